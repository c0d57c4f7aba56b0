/*
 * target.c - the table of targets (target.h).
 *
 * x86_64-linux follows Oracle Linux DTrace: DOF version 3 when is-enabled
 * probes exist (the tracer stores 1 through the is-enabled function's
 * pointer argument), and stapsdt notes for the other Linux tracers.  Further
 * targets are added here with their arch.
 */
#include <elf.h>
#include <string.h>

#include "target.h"

static const usdt_target_t targets[] = {
	{
		.name = "x86_64-linux",
		.arch = &usdt_arch_x86_64,
		.os = USDT_OS_LINUX,
		.dof_enabled_version = 3,
		.stapsdt = true,
		.dof_reloc = R_X86_64_64,
	},
};

const usdt_target_t *
target_find(const char *name)
{
	for (size_t i = 0; i < sizeof(targets) / sizeof(targets[0]); i++)
		if (strcmp(targets[i].name, name) == 0)
			return &targets[i];
	return NULL;
}

const usdt_target_t *
target_host(void)
{
#if defined(__x86_64__) && defined(__linux__)
	return target_find("x86_64-linux");
#else
	return &targets[0];
#endif
}

const char *
target_names(void)
{
	return "x86_64-linux";
}
