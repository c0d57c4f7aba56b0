/*
 * target.c - the table of targets (target.h).
 *
 * x86_64-linux follows Oracle Linux DTrace: DOF version 3 when is-enabled
 * probes exist (the tracer stores 1 through the is-enabled function's
 * pointer argument), and stapsdt notes for the other Linux tracers;
 * aarch64-linux the same on AArch64.  x86_64-freebsd and x86_64-illumos
 * follow their own dtrace: DOF version 2 (the is-enabled function returns
 * an int that the tracer sets, see arch_x86_64.c), no stapsdt notes.
 * x86_64-macos and arm64-macos write Mach-O (macho_write.c) with units
 * whose is-enabled slot returns 0, as macOS's int is-enabled function must.
 * Further targets are added here with their arch.
 */
#include <elf.h>
#include <stdio.h>
#include <string.h>

#include "target.h"

static const usdt_target_t targets[] = {
	{
		.name = "x86_64-linux",
		.arch = &usdt_arch_x86_64,
		.os = USDT_OS_LINUX,
		.dof_enabled_version = 3,
		.stapsdt = true,
	},
	{
		/* FreeBSD and illumos: kernel DTrace, DOF v2 is-enabled sites. */
		.name = "x86_64-freebsd",
		.arch = &usdt_arch_x86_64_v2,
		.os = USDT_OS_FREEBSD,
		.dof_enabled_version = 2,
		.stapsdt = false,
		.dof_addr = DOF_ADDR_SELF,
	},
	{
		.name = "x86_64-illumos",
		.arch = &usdt_arch_x86_64_v2,
		.os = USDT_OS_ILLUMOS,
		.dof_enabled_version = 2,
		.stapsdt = false,
		.dof_addr = DOF_ADDR_DOFBASE,
	},
	{
		.name = "aarch64-linux",
		.arch = &usdt_arch_aarch64,
		.os = USDT_OS_LINUX,
		.dof_enabled_version = 3,
		.stapsdt = true,
	},
	{
		/* macOS: Mach-O, DOF version 3 only, int is-enabled (macho_write.c). */
		.name = "x86_64-macos",
		.arch = &usdt_arch_x86_64_v2,
		.os = USDT_OS_MACOS,
		.dof_enabled_version = 3,
		.stapsdt = false,
	},
	{
		.name = "arm64-macos",
		.arch = &usdt_arch_arm64_macos,
		.os = USDT_OS_MACOS,
		.dof_enabled_version = 3,
		.stapsdt = false,
	},
};

#define NTARGETS (sizeof(targets) / sizeof(targets[0]))

const usdt_target_t *
target_find(const char *name)
{
	for (size_t i = 0; i < NTARGETS; i++)
		if (strcmp(targets[i].name, name) == 0)
			return &targets[i];
	return NULL;
}

const usdt_arch_t *
arch_for_machine(unsigned elf_machine)
{
	static const usdt_arch_t *const arches[] = {
		&usdt_arch_x86_64, &usdt_arch_aarch64,
	};

	for (size_t i = 0; i < sizeof(arches) / sizeof(arches[0]); i++)
		if (arches[i]->elf_machine == elf_machine)
			return arches[i];
	return NULL;
}

const usdt_target_t *
target_host(void)
{
#if defined(__x86_64__) && defined(__linux__)
	return target_find("x86_64-linux");
#elif defined(__aarch64__) && defined(__linux__)
	return target_find("aarch64-linux");
#elif defined(__x86_64__) && defined(__FreeBSD__)
	return target_find("x86_64-freebsd");
#elif defined(__x86_64__) && (defined(__illumos__) || defined(__sun))
	return target_find("x86_64-illumos");
#elif defined(__x86_64__) && defined(__APPLE__)
	return target_find("x86_64-macos");
#elif defined(__aarch64__) && defined(__APPLE__)
	return target_find("arm64-macos");
#else
	return &targets[0];
#endif
}

/* Built once from the table, so a new target is named without more edits. */
const char *
target_names(void)
{
	static char names[256];

	if (names[0] == '\0')
		for (size_t i = 0; i < NTARGETS; i++) {
			size_t len = strlen(names);

			snprintf(names + len, sizeof(names) - len, "%s%s", i ? ", " : "",
			    targets[i].name);
		}
	return names;
}

enum dof_addr_reloc
target_dof_addr(const usdt_target_t *t, bool lazyload)
{
	return lazyload && t->dof_addr == DOF_ADDR_DOFBASE ? DOF_ADDR_ABS : t->dof_addr;
}
