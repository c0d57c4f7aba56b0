/*
 * target.c - the table of targets (target.h).
 *
 * x86_64-linux follows Oracle Linux DTrace: DOF version 3 when is-enabled
 * probes exist (the tracer stores 1 through the is-enabled function's
 * pointer argument), and stapsdt notes for the other Linux tracers;
 * aarch64-linux the same on AArch64.  x86_64-freebsd and x86_64-illumos
 * follow their own dtrace: DOF version 2 (the is-enabled function returns
 * an int that the tracer sets, see arch_x86_64.c), no stapsdt notes.
 * x86_64-macos and arm64-macos write Mach-O (macho_objgen.c) with units
 * whose is-enabled slot returns 0, as macOS's int is-enabled function must;
 * what their arch is in Mach-O and what macOS names probe functions are
 * here too (target_macho, target_macos_probe_func), for the -h and -G stages and
 * the check of the program's objects alike.
 * Further targets are added here with their arch.
 */
#include <elf.h>
#include <stdio.h>
#include <string.h>

#include "macho.h"
#include "target.h"

static const target_t targets[] = {
	{
		.name = "x86_64-linux",
		.arch = &arch_x86_64,
		.os = TARGET_OS_LINUX,
		.dof_enabled_version = 3,
		.stapsdt = true,
	},
	{
		/* FreeBSD and illumos: kernel DTrace, DOF v2 is-enabled sites. */
		.name = "x86_64-freebsd",
		.arch = &arch_x86_64_v2,
		.os = TARGET_OS_FREEBSD,
		.dof_enabled_version = 2,
		.stapsdt = false,
		.dof_addr = DOF_ADDR_SELF,
	},
	{
		.name = "x86_64-illumos",
		.arch = &arch_x86_64_v2,
		.os = TARGET_OS_ILLUMOS,
		.dof_enabled_version = 2,
		.stapsdt = false,
		.dof_addr = DOF_ADDR_DOFBASE,
	},
	{
		.name = "aarch64-linux",
		.arch = &arch_aarch64,
		.os = TARGET_OS_LINUX,
		.dof_enabled_version = 3,
		.stapsdt = true,
	},
	{
		/* macOS: Mach-O, DOF version 3 only, int is-enabled (macho_objgen.c). */
		.name = "x86_64-macos",
		.arch = &arch_x86_64_v2,
		.os = TARGET_OS_MACOS,
		.dof_enabled_version = 3,
		.stapsdt = false,
	},
	{
		.name = "arm64-macos",
		.arch = &arch_arm64_macos,
		.os = TARGET_OS_MACOS,
		.dof_enabled_version = 3,
		.stapsdt = false,
	},
};

#define NTARGETS (sizeof(targets) / sizeof(targets[0]))

const target_t *
target_find(const char *name)
{
	for (size_t i = 0; i < NTARGETS; i++)
		if (strcmp(targets[i].name, name) == 0)
			return &targets[i];
	return NULL;
}

const arch_t *
target_arch_for_machine(unsigned elf_machine)
{
	static const arch_t *const arches[] = {
		&arch_x86_64, &arch_aarch64,
	};

	for (size_t i = 0; i < sizeof(arches) / sizeof(arches[0]); i++)
		if (arches[i]->elf_machine == elf_machine)
			return arches[i];
	return NULL;
}

const target_t *
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
target_dof_addr(const target_t *t, bool lazyload)
{
	return lazyload && t->dof_addr == DOF_ADDR_DOFBASE ? DOF_ADDR_ABS : t->dof_addr;
}

bool
target_macho(const target_t *t, target_macho_t *out)
{
	/* The oldest macOS each runs: 10.9 on x86_64, 11.0 on arm64. */
	static const struct {
		unsigned elf_machine;
		target_macho_t macho;
	} cpus[] = {
		{ EM_X86_64, { CPU_TYPE_X86_64, CPU_SUBTYPE_X86_64_ALL, 0x000a0900,
		    X86_64_RELOC_UNSIGNED, X86_64_RELOC_SUBTRACTOR } },
		{ EM_AARCH64, { CPU_TYPE_ARM64, CPU_SUBTYPE_ARM64_ALL, 0x000b0000,
		    ARM64_RELOC_UNSIGNED, ARM64_RELOC_SUBTRACTOR } },
	};

	for (size_t i = 0; i < sizeof(cpus) / sizeof(cpus[0]); i++)
		if (cpus[i].elf_machine == t->arch->elf_machine) {
			*out = cpus[i].macho;
			return true;
		}
	memset(out, 0, sizeof(*out));
	return false;
}

/* ---- what macOS names probe functions -------------------------------------- */

void
target_macos_put_hex(strbuf_t *sb, const char *s)
{
	for (; *s != '\0'; s++)
		sb_printf(sb, "%02x", (unsigned char)*s);
}

/* "PREFIX$PROV$NAME$v1", then "$hex" per native argument if with_args. */
static char *
macos_name(const char *prefix, const mdl_provider_t *p, const mdl_probe_t *pr,
    bool with_args)
{
	strbuf_t sb;

	sb_init(&sb);
	sb_printf(&sb, "%s$%s$%s$v1", prefix, p->name, pr->name);
	for (size_t i = 0; with_args && i < pr->nargc; i++) {
		sb_putc(&sb, '$');
		target_macos_put_hex(&sb, mdl_c_type(pr->nargs[i].type));
	}
	if (sb.failed) {
		sb_free(&sb);
		return NULL;
	}
	return sb_steal(&sb, NULL);
}

char *
target_macos_probe_func(const mdl_provider_t *p, const mdl_probe_t *pr)
{
	return macos_name("__dtrace_probe", p, pr, true);
}

char *
target_macos_enabled_func(const mdl_provider_t *p, const mdl_probe_t *pr)
{
	return macos_name("__dtrace_isenabled", p, pr, false);
}
