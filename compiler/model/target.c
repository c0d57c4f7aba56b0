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
 * what macOS names probe functions is here too (target_macos_probe_func),
 * for the -h and -G stages and the check of the program's objects alike;
 * what their arch is in Mach-O is the Mach-O layer's (macho/macho_arch.c):
 * the model knows no object format.
 * Further targets are added here with their arch.
 */
#include <elf.h>
#include <stdio.h>
#include <string.h>

#include "target.h"

/*
 * The architectures with no DTrace: a Linux target there is what
 * SystemTap's <sys/sdt.h> and dtrace -G give, the header's generic arch
 * and a -G object of semaphores compiled by the target's compiler
 * (sdtobj.c).  Only the ELF identity is stated: nothing else is written
 * for them.
 */
#define SDT_ARCH(var, nm, machine, cls) \
	static const arch_t var = { .name = nm, .elf_machine = machine, .elf_class = cls }
SDT_ARCH(arch_i386, "i386", EM_386, ELFCLASS32);
SDT_ARCH(arch_arm, "arm", EM_ARM, ELFCLASS32);
SDT_ARCH(arch_mips, "mips", EM_MIPS, ELFCLASS32);
SDT_ARCH(arch_mips64, "mips64", EM_MIPS, ELFCLASS64);
SDT_ARCH(arch_ppc64, "ppc64", EM_PPC64, ELFCLASS64);
SDT_ARCH(arch_s390x, "s390x", EM_S390, ELFCLASS64);
SDT_ARCH(arch_riscv64, "riscv64", EM_RISCV, ELFCLASS64);
#define SDT_TARGET(nm, a, triples) \
	{ .name = nm, .arch = &a, .os = TARGET_OS_LINUX, .stapsdt = true, .sdt_only = true, \
	  .cc_triples = triples }

static const target_t targets[] = {
	{
		.name = "x86_64-linux",
		.arch = &arch_x86_64,
		.os = TARGET_OS_LINUX,
		.dof_enabled_version = 3,
		.stapsdt = true,
		.dof_addr = DOF_ADDR_SELF,	/* drti_lite makes them absolute */
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
		.dof_addr = DOF_ADDR_SELF,
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
	SDT_TARGET("i386-linux", arch_i386, "i686-linux-gnu i386-linux-gnu"),
	SDT_TARGET("arm-linux", arch_arm, "arm-linux-gnueabihf arm-linux-gnueabi"),
	SDT_TARGET("mips-linux", arch_mips, "mipsel-linux-gnu"),
	SDT_TARGET("mips64-linux", arch_mips64, "mips64el-linux-gnuabi64"),
	SDT_TARGET("ppc64le-linux", arch_ppc64, "powerpc64le-linux-gnu"),
	SDT_TARGET("s390x-linux", arch_s390x, "s390x-linux-gnu"),
	SDT_TARGET("riscv64-linux", arch_riscv64, "riscv64-linux-gnu"),
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

const target_t *
target_for_elf(unsigned machine, unsigned elf_class)
{
	for (size_t i = 0; i < NTARGETS; i++)
		if (targets[i].os == TARGET_OS_LINUX && targets[i].arch->elf_machine == machine &&
		    targets[i].arch->elf_class == elf_class)
			return &targets[i];
	return NULL;
}

int
target_bits(const target_t *t)
{
	return t->arch->elf_class == ELFCLASS64 ? 64 : 32;
}

/*
 * The Linux target of a GNU triple ($CC -dumpmachine: x86_64-linux-gnu,
 * arm-linux-gnueabihf, mips64el-linux-gnuabi64, ...), bits 32 or 64 when
 * -32/-64 or -m32/-m64 ask for the other half of a biarch CPU; NULL for
 * one usdtc does not know.
 */
const target_t *
target_for_triple(const char *triple, int bits)
{
	static const struct { const char *cpu, *name32, *name64; } cpus[] = {
		{ "x86_64", "i386-linux", "x86_64-linux" },
		{ "i386", "i386-linux", "x86_64-linux" },
		{ "i486", "i386-linux", "x86_64-linux" },
		{ "i586", "i386-linux", "x86_64-linux" },
		{ "i686", "i386-linux", "x86_64-linux" },
		{ "aarch64", NULL, "aarch64-linux" },
		{ "arm", "arm-linux", NULL },
		{ "armv7l", "arm-linux", NULL },
		{ "mipsel", "mips-linux", "mips64-linux" },
		{ "mips64el", "mips-linux", "mips64-linux" },
		{ "powerpc64le", NULL, "ppc64le-linux" },
		{ "s390x", NULL, "s390x-linux" },
		{ "riscv64", NULL, "riscv64-linux" },
	};
	size_t len = strcspn(triple, "-");

	if (strstr(triple, "-linux") == NULL)
		return NULL;
	for (size_t i = 0; i < sizeof(cpus) / sizeof(cpus[0]); i++) {
		const char *name;

		if (strlen(cpus[i].cpu) != len || strncmp(cpus[i].cpu, triple, len) != 0)
			continue;
		if (bits == 0)	/* the triple's own half */
			bits = strstr(cpus[i].cpu, "64") != NULL || cpus[i].name32 == NULL ? 64 : 32;
		name = bits == 32 ? cpus[i].name32 : cpus[i].name64;
		return name != NULL ? target_find(name) : NULL;
	}
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
#elif defined(__linux__) && defined(__i386__)
	return target_find("i386-linux");
#elif defined(__linux__) && defined(__arm__)
	return target_find("arm-linux");
#elif defined(__linux__) && defined(__mips__) && defined(__mips64)
	return target_find("mips64-linux");
#elif defined(__linux__) && defined(__mips__)
	return target_find("mips-linux");
#elif defined(__linux__) && defined(__powerpc64__) && defined(__LITTLE_ENDIAN__)
	return target_find("ppc64le-linux");
#elif defined(__linux__) && defined(__s390x__)
	return target_find("s390x-linux");
#elif defined(__linux__) && defined(__riscv) && __riscv_xlen == 64
	return target_find("riscv64-linux");
#else
	return &targets[0];
#endif
}

bool
target_host_writes(const target_t *t)
{
	const unsigned short one = 1;

	return t->sdt_only || *(const unsigned char *)&one == 1;
}

/* Built once from the table, so a new target is named without more edits. */
const char *
target_names(void)
{
	static char names[512];

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
	/* FreeBSD's kernel reads DOFREL itself; on Linux drti_lite resolves it. */
	return lazyload && t->os != TARGET_OS_FREEBSD ? DOF_ADDR_ABS : t->dof_addr;
}

bool
target_dof_readers_copy(const target_t *t, bool lazyload)
{
	return t->os == TARGET_OS_LINUX && !t->sdt_only &&
	    target_dof_addr(t, lazyload) != DOF_ADDR_ABS;
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
