/*
 * macho.h - the parts of the Mach-O format usdtc writes and reads.
 *
 * Written from the format's definitions as Apple's <mach-o/loader.h>,
 * <mach-o/nlist.h>, <mach-o/reloc.h>, <mach-o/x86_64/reloc.h> and
 * <mach-o/arm64/reloc.h> give them; Debian has no Mach-O headers or library,
 * so the few numbers and layouts needed are here.  Only 64-bit
 * little-endian files (x86_64 and arm64) are handled.  Every structure is
 * written and read field by field at the offsets below, never by casting
 * a buffer, so the layouts are given as sizes and offsets:
 *
 *   mach_header_64 (32 bytes): magic, cputype, cpusubtype, filetype,
 *     ncmds, sizeofcmds, flags, reserved; all u32.  The load commands
 *     follow it, each starting with u32 cmd and u32 cmdsize (a multiple
 *     of 8 in 64-bit files).
 *   segment_command_64 (72 bytes): cmd, cmdsize, segname[16], vmaddr,
 *     vmsize, fileoff, filesize (u64), maxprot, initprot, nsects, flags;
 *     followed by nsects section_64 records.  A relocatable object has one
 *     segment with an empty name holding every section.
 *   section_64 (80 bytes): sectname[16], segname[16], addr, size (u64),
 *     offset, align (log2), reloff, nreloc, flags, reserved1..3 (u32).
 *     The low byte of flags is the section type; dyld finds DOF by the
 *     type S_DTRACE_DOF, not by the name.
 *   symtab_command (24): cmd, cmdsize, symoff, nsyms, stroff, strsize.
 *   dysymtab_command (80): cmd, cmdsize, then 18 u32: ilocalsym,
 *     nlocalsym, iextdefsym, nextdefsym, iundefsym, nundefsym and twelve
 *     table offsets and counts a relocatable object leaves 0.
 *   build_version_command (24 + 8 per tool): cmd, cmdsize, platform,
 *     minos, sdk (X.Y.Z as xxxx.yy.zz nibbles: 11.0 = 0x000b0000), ntools.
 *   nlist_64 (16): u32 n_strx, u8 n_type, u8 n_sect (1-based section
 *     ordinal, 0 = none), u16 n_desc, u64 n_value (the address; in an
 *     object, the address in the object's own layout).
 *   relocation_info (8): i32 r_address (offset in the section), u32 with
 *     r_symbolnum in bits 0-23, r_pcrel bit 24, r_length bits 25-26
 *     (log2 of the size), r_extern bit 27, r_type bits 28-31.  The addend
 *     of these relocations is the value stored at r_address.
 */
#ifndef USDTC_MACHO_H
#define USDTC_MACHO_H

#include <stdint.h>

/* The magic numbers (MH_MAGIC_64 ...) are magic.h's, with every file kind's. */
#include "magic.h"

#define CPU_ARCH_ABI64		0x01000000u
#define CPU_TYPE_X86_64		(7u | CPU_ARCH_ABI64)
#define CPU_TYPE_ARM64		(12u | CPU_ARCH_ABI64)
#define CPU_SUBTYPE_X86_64_ALL	3u
#define CPU_SUBTYPE_ARM64_ALL	0u

#define MH_OBJECT		1u
#define MH_EXECUTE		2u
#define MH_DYLIB		6u
#define MH_BUNDLE		8u

#define LC_SYMTAB		0x2u
#define LC_DYSYMTAB		0xbu
#define LC_SEGMENT_64		0x19u
#define LC_BUILD_VERSION	0x32u
#define PLATFORM_MACOS		1u

#define MACHO_HEADER_SIZE	32u
#define MACHO_SEGMENT_SIZE	72u
#define MACHO_SECTION_SIZE	80u
#define MACHO_SYMTAB_SIZE	24u
#define MACHO_DYSYMTAB_SIZE	80u
#define MACHO_BUILD_VERSION_SIZE 24u
#define MACHO_NLIST_SIZE	16u
#define MACHO_RELOC_SIZE	8u

/* Section flags: the type in the low byte, attributes above. */
#define SECTION_TYPE		0x000000ffu
#define S_REGULAR		0x0u
#define S_ZEROFILL		0x1u
#define S_GB_ZEROFILL		0xcu
#define S_DTRACE_DOF		0xfu
#define S_THREAD_LOCAL_ZEROFILL	0x12u
#define S_ATTR_PURE_INSTRUCTIONS 0x80000000u
#define S_ATTR_NO_DEAD_STRIP	0x10000000u
#define S_ATTR_SOME_INSTRUCTIONS 0x00000400u

/* nlist_64.n_type and n_desc. */
#define N_STAB			0xe0u
#define N_PEXT			0x10u
#define N_TYPE			0x0eu
#define N_EXT			0x01u
#define N_UNDF			0x0u
#define N_ABS			0x2u
#define N_SECT			0xeu
#define N_WEAK_DEF		0x0080u

/* Relocation types: the pair SUBTRACTOR then UNSIGNED stores A - B. */
#define X86_64_RELOC_UNSIGNED	0u
#define X86_64_RELOC_SUBTRACTOR	5u
#define ARM64_RELOC_UNSIGNED	0u
#define ARM64_RELOC_SUBTRACTOR	1u

/* The segment and section-name prefix of DOF as ld64 makes it. */
#define MACHO_DOF_SEGMENT	"__TEXT"
#define MACHO_DOF_PREFIX	"__dof_"

/*
 * Where the macOS kernel puts a tracepoint, relative to the address the
 * DOF records for a site (xnu, fasttrap_meta_create_probe): on x86_64 a
 * probe site is recorded at the rel32 field of the call ld64 replaced, so
 * the kernel steps back 1; an is-enabled site is recorded the same way
 * and the kernel steps forward 2, past `xorl %eax,%eax`, to a one-byte
 * nop.  On arm64 the site is the instruction itself.
 */
static inline int
macho_tracepoint_adjust(uint32_t cputype, int is_enabled)
{
	if (cputype == CPU_TYPE_X86_64)
		return is_enabled ? 2 : -1;
	return 0;
}

#endif
