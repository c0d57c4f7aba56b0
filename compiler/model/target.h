/*
 * target.h - what differs between the platforms usdtc writes for.
 *
 * A target is an architecture (instruction set, ELF machine, the probe unit
 * of stub code, where arguments lie at its tracepoint) plus an operating
 * system's DTrace conventions (DOF version for is-enabled probes, the ELF
 * relocation for DOF addresses, whether Linux stapsdt notes are written).
 *
 * The probe unit.  Every probe owns one small piece of code, emitted both
 * by the header (as top-level asm, so programs built with -h alone have
 * probes) and by the -G object, in a COMDAT group named after the probe
 * function so the linker keeps exactly one copy:
 *
 *	__dtrace_P___N:		[x86_64: pop the return address,]
 *				+probe_offset	the tracepoint (x86_64: 5-byte nop),
 *						[x86_64: push it back,] ret
 *	__dtraceenabled_P___N:	+enabled_offset	[DOF v2: clear the result,]
 *				+enabled_skip	the is-enabled tracepoint, ret
 *
 * DTrace sees one function, __dtrace_P___N (its symbol covers the whole
 * unit), with the probe offset and the is-enabled offset inside it; Linux
 * tracers see a stapsdt note whose pc is the probe tracepoint.
 */
#ifndef USDTC_TARGET_H
#define USDTC_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "strbuf.h"

typedef struct arch {
	const char *name;		/* "x86_64" */
	unsigned elf_machine;		/* EM_X86_64 */
	unsigned elf_class;		/* ELFCLASS64 */
	/*
	 * The ELF relocation types usdtc writes or reads, all stated here:
	 * the absolute address (notes, DOF probe addresses), the PC-relative
	 * one (DOF probe addresses of the FreeBSD and illumos targets), the
	 * dynamic base-relative and GOT ones (--list of linked programs), and
	 * the two a call or tail jump to a probe function carries (-G rewriting).
	 */
	unsigned reloc_abs64;		/* R_X86_64_64 */
	unsigned reloc_abs32;		/* R_X86_64_32: DWARF's section offsets */
	unsigned reloc_pc64;		/* R_X86_64_PC64 */
	unsigned reloc_relative;	/* R_X86_64_RELATIVE */
	unsigned reloc_glob_dat;	/* R_X86_64_GLOB_DAT */
	unsigned reloc_branch[2];	/* R_X86_64_PC32, R_X86_64_PLT32 */
	const uint8_t *unit;		/* the probe unit's bytes */
	size_t unit_size;
	unsigned unit_align;
	uint32_t probe_offset;		/* the probe tracepoint within the unit */
	uint32_t enabled_offset;	/* the is-enabled function within the unit */
	/*
	 * From the is-enabled function's entry to its tracepoint: 0, or 3 in
	 * the DOF version 2 unit, whose slot clears %rax first (`48 33 c0`)
	 * so that it returns 0 unless the tracer sets %rax to 1.
	 */
	uint32_t enabled_skip;
	/*
	 * Append the stapsdt argument description ("-4@%edi 8@%rsi ...") of a
	 * probe's native arguments as they lie at the unit's probe tracepoint
	 * (x86_64: the return address popped, so as at the call).
	 */
	void (*note_args)(const mdl_model_t *m, const mdl_probe_t *pr, strbuf_t *out);
	/*
	 * The same, as the arguments lie at the call instruction of a site
	 * that -G rewrote into the tracepoint (rewrite_plan.c): no return address
	 * has been pushed yet.
	 */
	void (*note_args_call)(const mdl_model_t *m, const mdl_probe_t *pr, strbuf_t *out);
	/*
	 * The same at a tail call -G rewrote (a jump into `ret`): the
	 * caller's return address is on the stack (x86_64: stack arguments
	 * from 8(%rsp)).
	 */
	void (*note_args_tail)(const mdl_model_t *m, const mdl_probe_t *pr, strbuf_t *out);
} arch_t;

enum target_os { TARGET_OS_LINUX, TARGET_OS_FREEBSD, TARGET_OS_ILLUMOS, TARGET_OS_MACOS };

/*
 * How the -G object makes a DOF probe record's dofpr_addr the function's
 * address, as the consumer of that system relocates it (doc/dof.md):
 *  DOF_ADDR_ABS      the linker writes the absolute address (reloc_abs64;
 *                    the loader relocates it in a PIE), DOF SETX: Linux
 *                    under -x lazyload (no drti_lite);
 *  DOF_ADDR_SELF     the linker writes it relative to the u64 itself
 *                    (reloc_pc64), DOF DOFREL: FreeBSD's kernel adds the
 *                    u64's address, as for FreeBSD's own dtrace -G; on
 *                    Linux drti_lite does, in the copy it registers
 *                    (runtime/drti_sites.h), so that no probe costs a
 *                    dynamic relocation at start-up;
 *  DOF_ADDR_DOFBASE  relative to the DOF's first byte (reloc_pc64 plus the
 *                    u64's offset), DOF SETX with DOF_RELDATA_DOFBASE:
 *                    illumos' kernel adds dofhp_addr, which drti_kernel.c
 *                    sets to the DOF's address (illumos has no DOFREL).
 * Neither relative form needs a load-time relocation, so every linker and
 * loader leaves the value alone.
 */
enum dof_addr_reloc { DOF_ADDR_ABS, DOF_ADDR_SELF, DOF_ADDR_DOFBASE };

typedef struct target {
	const char *name;		/* "x86_64-linux" */
	const arch_t *arch;
	enum target_os os;
	uint8_t dof_enabled_version;	/* DOF version when is-enabled probes exist */
	bool stapsdt;			/* write .note.stapsdt and semaphores */
	enum dof_addr_reloc dof_addr;	/* with drti; -x lazyload: DOF_ADDR_ABS
					   unless DOF_ADDR_SELF (target_dof_addr) */
	bool sdt_only;			/* no DTrace: -G compiles semaphores (sdtobj.c) */
	/*
	 * sdt_only: the GNU triples of the target's compilers as Debian
	 * names them, blank-separated, most usual first: with no $CC, -G
	 * compiles with the first <triple>-gcc on PATH.
	 */
	const char *cc_triples;
} target_t;

extern const arch_t arch_x86_64;
extern const arch_t arch_x86_64_v2;	/* is-enabled slot clears %rax */
extern const arch_t arch_aarch64;
extern const arch_t arch_arm64_macos;	/* is-enabled slot: mov x0, #0 */

/* NULL if the name is unknown. */
const target_t *target_find(const char *name);

/*
 * How t's -G object relocates DOF probe addresses: t->dof_addr, but the
 * system's own form (absolute, SETX) when no drti registers the DOF
 * (lazyload: dofhp_addr is then the load base, as the system's tools set it).
 */
enum dof_addr_reloc target_dof_addr(const target_t *t, bool lazyload);

/*
 * Whether t's -G object carries, beside the DOF drti_lite registers (then
 * of type SHT_PROGBITS), a readers' copy of it for tools that read the
 * file's SHT_SUNW_dof sections (gdb): on Linux, when drti_lite registers a
 * DOF whose addresses are relative (target_dof_addr), which those tools
 * would take as absolute.  units.c and doc/design.md say what it holds.
 */
bool target_dof_readers_copy(const target_t *t, bool lazyload);

/* The Linux target of objects of an ELF machine and class, or NULL. */
const target_t *target_for_elf(unsigned machine, unsigned elf_class);

/* The target's pointer width in bits: 32 or 64. */
int target_bits(const target_t *t);

/* The Linux target of a GNU triple, in its 32- or 64-bit half (bits, or 0). */
const target_t *target_for_triple(const char *triple, int bits);

/* The (first) architecture of an ELF e_machine, or NULL. */
const arch_t *target_arch_for_machine(unsigned elf_machine);
/* The target usdtc was built for. */
const target_t *target_host(void);
/*
 * Whether usdtc, as built, writes t's -G object right: the writers of DOF,
 * probe units and notes (dofgen.c, units.c, elfenc.c) lay the fields of a
 * little-endian target out in the host's order, so a big-endian host
 * (s390x) writes only the targets whose object $CC compiles (sdt_only).
 */
bool target_host_writes(const target_t *t);
/* Comma-separated list of known target names, for --help and errors. */
const char *target_names(void);

/*
 * The names macOS dtrace gives a probe's functions, which its -h header
 * calls and the -G object defines: "__dtrace_probe$P$N$v1$696e74" (each
 * native argument type's C spelling in lower-case hex) and
 * "__dtrace_isenabled$P$N$v1"; their Mach-O symbols have one more leading
 * underscore.  malloc'd; NULL on allocation failure.
 */
char *target_macos_probe_func(const mdl_provider_t *p, const mdl_probe_t *pr);
char *target_macos_enabled_func(const mdl_provider_t *p, const mdl_probe_t *pr);
/* s as lower-case hex, two digits a byte, as those names spell types. */
void target_macos_put_hex(strbuf_t *sb, const char *s);

#endif
