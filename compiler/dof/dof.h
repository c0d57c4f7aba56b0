/*
 * dof.h - the DOF format: the structures DTrace reads, as they lie in memory.
 *
 * sys/dtrace.h's layout for LP64 little-endian, explained in doc/dof.md.
 * Shared by the writer (dofgen.c), the strict reader (decode.c) and the
 * run-time registration code (runtime/drti_lite.c), so this header holds
 * only types and constants.
 */
#ifndef USDTC_DOF_H
#define USDTC_DOF_H

#include <stdint.h>

#define DOF_ID_SIZE	16
#define DOF_ID_MAG0	0	/* 0x7f */
#define DOF_ID_MAG1	1	/* 'D' */
#define DOF_ID_MAG2	2	/* 'O' */
#define DOF_ID_MAG3	3	/* 'F' */
#define DOF_ID_MODEL	4
#define DOF_ID_ENCODING	5
#define DOF_ID_VERSION	6
#define DOF_ID_DIFVERS	7
#define DOF_ID_DIFIREG	8
#define DOF_ID_DIFTREG	9

#define DOF_MODEL_ILP32	1
#define DOF_MODEL_LP64	2
#define DOF_ENCODE_LSB	1
#define DOF_ENCODE_MSB	2
#define DOF_VERSION_1	1
#define DOF_VERSION_2	2
#define DOF_VERSION_3	3
#define DIF_VERSION_2	2
#define DIF_DIR_NREGS	8
#define DIF_DTR_NREGS	8

typedef struct dof_hdr {
	uint8_t dofh_ident[DOF_ID_SIZE];
	uint32_t dofh_flags;
	uint32_t dofh_hdrsize;
	uint32_t dofh_secsize;
	uint32_t dofh_secnum;
	uint64_t dofh_secoff;
	uint64_t dofh_loadsz;
	uint64_t dofh_filesz;
	uint64_t dofh_pad;
} dof_hdr_t;

enum dof_sectype {
	DOF_SECT_NONE = 0, DOF_SECT_COMMENTS = 1, DOF_SECT_SOURCE = 2,
	DOF_SECT_ECBDESC = 3, DOF_SECT_PROBEDESC = 4, DOF_SECT_ACTDESC = 5,
	DOF_SECT_DIFOHDR = 6, DOF_SECT_DIF = 7, DOF_SECT_STRTAB = 8,
	DOF_SECT_VARTAB = 9, DOF_SECT_RELTAB = 10, DOF_SECT_TYPTAB = 11,
	DOF_SECT_URELHDR = 12, DOF_SECT_KRELHDR = 13, DOF_SECT_OPTDESC = 14,
	DOF_SECT_PROVIDER = 15, DOF_SECT_PROBES = 16, DOF_SECT_PRARGS = 17,
	DOF_SECT_PROFFS = 18, DOF_SECT_INTTAB = 19, DOF_SECT_UTSNAME = 20,
	DOF_SECT_XLTAB = 21, DOF_SECT_XLMEMBERS = 22, DOF_SECT_XLIMPORT = 23,
	DOF_SECT_XLEXPORT = 24, DOF_SECT_PREXPORT = 25, DOF_SECT_PRENOFFS = 26
};

#define DOF_SECF_LOAD	1

typedef struct dof_sec {
	uint32_t dofs_type;
	uint32_t dofs_align;
	uint32_t dofs_flags;
	uint32_t dofs_entsize;
	uint64_t dofs_offset;
	uint64_t dofs_size;
} dof_sec_t;

typedef uint32_t dof_secidx_t;
typedef uint32_t dof_stridx_t;
typedef uint32_t dof_attr_t;

#define DOF_ATTR(n, d, c)	(((uint32_t)(n) << 24) | ((uint32_t)(d) << 16) | ((uint32_t)(c) << 8))
#define DOF_ATTR_NAME(a)	(((a) >> 24) & 0xff)
#define DOF_ATTR_DATA(a)	(((a) >> 16) & 0xff)
#define DOF_ATTR_CLASS(a)	(((a) >> 8) & 0xff)

typedef struct dof_provider {
	dof_secidx_t dofpv_strtab;
	dof_secidx_t dofpv_probes;
	dof_secidx_t dofpv_prargs;
	dof_secidx_t dofpv_proffs;
	dof_stridx_t dofpv_name;
	dof_attr_t dofpv_provattr;
	dof_attr_t dofpv_modattr;
	dof_attr_t dofpv_funcattr;
	dof_attr_t dofpv_nameattr;
	dof_attr_t dofpv_argsattr;
	dof_secidx_t dofpv_prenoffs;
} dof_provider_t;

typedef struct dof_probe {
	uint64_t dofpr_addr;
	dof_stridx_t dofpr_func;
	dof_stridx_t dofpr_name;
	dof_stridx_t dofpr_nargv;
	dof_stridx_t dofpr_xargv;
	uint32_t dofpr_argidx;
	uint32_t dofpr_offidx;
	uint8_t dofpr_nargc;
	uint8_t dofpr_xargc;
	uint16_t dofpr_noffs;
	uint32_t dofpr_enoffidx;
	uint16_t dofpr_nenoffs;
	uint16_t dofpr_pad1;
	uint32_t dofpr_pad2;
} dof_probe_t;

typedef struct dof_relohdr {
	dof_secidx_t dofr_strtab;
	dof_secidx_t dofr_relsec;
	dof_secidx_t dofr_tgtsec;
} dof_relohdr_t;

#define DOF_RELO_NONE	0
#define DOF_RELO_SETX	1	/* the consumer adds the load base (dofhp_addr) */
#define DOF_RELO_DOFREL	2	/* FreeBSD: the consumer adds the u64's own address */

/*
 * dofr_data of a SETX relocation whose u64 holds the address relative to
 * the DOF's first byte (x86_64-illumos with drti_kernel.c, which makes
 * dofhp_addr the DOF's address).  The kernels ignore dofr_data; usdtc's
 * decoder reads it to place such a record in a linked file.
 */
#define DOF_RELDATA_DOFBASE	0x44424153u	/* "DBAS" */

typedef struct dof_relodesc {
	dof_stridx_t dofr_name;
	uint32_t dofr_type;
	uint64_t dofr_offset;
	uint64_t dofr_data;
} dof_relodesc_t;

/* ELF section type and name of DOF in objects (SHT_SUNW_dof). */
#define SHT_SUNW_dof		0x6ffffff4
#define DOF_ELF_SECTION		".SUNW_dof"
#define DOF_ELF_SYMBOL		"__SUNW_dof"
/*
 * The -G object's readers' copy of its DOF (target_dof_readers_copy):
 * SHT_SUNW_dof, not loaded, named this prefix and 16 hex digits.
 */
#define DOF_ELF_READERS_SECTION	".SUNW_dof_file."
#define DOF_ELF_SYMBOL_LAZY	"___SUNW_dof"

/*
 * The link anchor of probe P:N, which takes a -G object out of a static
 * library.  A project may archive its -G output (made without objects)
 * with its own objects; nothing refers to the -G object's weak and hidden
 * symbols, so a linker would never take it, and the program would have no
 * DOF and no drti_lite.  So every object file whose code holds a probe
 * P:N (the header's _USDT_SEM_) refers to DOF_LINK_SYMBOL_PREFIX P
 * MDL_PROBE_SEP N (N as declared), `__start_` and the name of a 1-byte
 * section, DOF_LINK_SECTION_PREFIX P MDL_PROBE_SEP N, that it keeps in no
 * COMDAT group, retained: the reference is a relocation of type NONE in
 * its code, which changes no byte (a 4-byte word in the section, grouped,
 * cost two section headers more a probe and object: the group's and the
 * word's relocations').
 * The -G object defines that symbol for each of its probes (weak: two -G
 * outputs of P may meet; hidden), so the linker takes it out of the
 * archive as it takes any member that defines an undefined symbol; with
 * no -G object (header only) the linker defines it itself, as the start
 * of the section, and the program links as before.  Nothing runs or reads
 * it.  One anchor per probe, not per provider: QEMU archives 22 -G
 * objects of `provider qemu`, each with probes of its own, and a
 * provider's anchor took only the first of them.  (The -G object also
 * defines the provider's anchor, DOF_LINK_SYMBOL_PREFIX P, which the
 * headers of usdtc 1.x refer to.)
 */
#define DOF_LINK_SECTION_PREFIX	"__usdtc_link_"
#define DOF_LINK_SYMBOL_PREFIX	"__start___usdtc_link_"

/*
 * The header's inline sites (x86_64) record themselves in the loaded
 * section DOF_SITES_SECTION (a C identifier: the linker defines its
 * `__start_` and `__stop_`), one dof_site_rec_t each, in the COMDAT group
 * of the code around them (flag `?`), so that drti_lite finds every site
 * the header put in its object, and the function it sits in, from memory,
 * without reading a file.  Every field is PC-relative (the target's
 * address minus the field's own): the static linker resolves them and no
 * dynamic relocation is left.  dsr_probe points at DOF_SITE_PROBE_PREFIX f
 * (f the probe function's name after MDL_PROBE_PREFIX; assembler-local,
 * `.L`), a string pair "provider\0probe\0" in DOF_SITE_PROBE_SECTION, in
 * no group (one copy per object file that fires the probe inline: readers
 * compare names by address first, then by their bytes), the probe as
 * declared (`__` for DOF's `-`); dsr_func at the `__func__` string of the
 * function the site is in.  drti_lite.c's own empty record defines the
 * section in every -G output: a field of 0 is no site.
 */
#define DOF_SITES_SECTION	"usdtc_sites"
/*
 * A -G given the program's objects records every inline site of them in
 * its DOF, in the record of its function; in each object it rewrites, the
 * site records whose sites it recorded (each record's section, outside any
 * COMDAT group) are renamed DOF_SITES_GIVEN_SECTION, still loaded, and the
 * -G object defines DOF_FINAL_SYMBOL (local, like __SUNW_dof) at its DOF
 * list's first byte when no two records of its DOF share a probe and a
 * function name (one byte past it otherwise, and in every -G object made
 * without the objects).  A drti_lite whose -G object puts it there reads
 * neither the renamed records nor, when no other record names a site, the
 * DOF: it registers it as built (runtime/drti_sites.h).  Any other (made
 * without the objects, in a program that links an object given to
 * another -G) reads the renamed records as it reads the others.
 */
#define DOF_SITES_GIVEN_SECTION	"usdtc_sites_given"
#define DOF_FINAL_SYMBOL	"__usdtc_dof_final"
/*
 * And every -G object's drti_lite lists its DOF list (__SUNW_dof) in
 * DOF_LISTS_SECTION, 8 bytes PC-relative each: so each copy of drti_lite
 * sees the DOFs of every other -G object linked into the same output, and
 * adds no site that one of them recorded or will add.
 */
#define DOF_LISTS_SECTION	"usdtc_dofs"
#define DOF_SITE_PROBE_PREFIX	"__usdtc_probe_"
#define DOF_SITE_PROBE_SECTION	".rodata.usdtc_probe"

typedef struct dof_site_rec {
	int32_t dsr_site;	/* the tracepoint: a 1-byte nop */
	int32_t dsr_func;	/* its function's name */
	int32_t dsr_probe;	/* "provider\0probe\0" */
} dof_site_rec_t;

/* DTrace's limits (sys/dtrace.h): lengths include the terminating NUL. */
#define DTRACE_PROVNAMELEN	64
#define DTRACE_FUNCNAMELEN	128
#define DTRACE_NAMELEN		64	/* a probe's name */
#define DTRACE_ARGTYPELEN	128	/* an argument's type string */
#define DOF_MAXARGS		255	/* dofpr_nargc / dofpr_xargc are u8 */

#endif
