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

#endif
