/*
 * magic.h - what kind of file the first bytes announce: the one place that
 * knows the magic numbers of the files usdtc is handed (-G's inputs,
 * --list's and --dump's).
 */
#ifndef USDTC_MAGIC_H
#define USDTC_MAGIC_H

#include <stddef.h>

enum file_magic {
	MAGIC_OTHER,
	MAGIC_ELF,	/* \177ELF */
	MAGIC_ARCHIVE,	/* ar: "!<arch>\n", or a GNU thin archive "!<thin>\n" */
	MAGIC_BITCODE,	/* LLVM bitcode, bare ("BC\xc0\xde") or wrapped (0x0b17c0de) */
	MAGIC_MACHO,	/* Mach-O, either word size or byte order, or universal */
	MAGIC_DOF	/* a raw DOF image: \177DOF */
};

enum file_magic magic_of(const void *buf, size_t len);

/* Mach-O's first word (macho/macho.h has the rest of the format). */
#define MH_MAGIC_64		0xfeedfacfu	/* 64-bit, this byte order */
#define MH_CIGAM_64		0xcffaedfeu	/* 64-bit, the other byte order */
#define MH_MAGIC		0xfeedfaceu	/* 32-bit */
#define MH_CIGAM		0xcefaedfeu
#define FAT_MAGIC		0xcafebabeu	/* universal file, big-endian header */
#define FAT_CIGAM		0xbebafecau

#endif
