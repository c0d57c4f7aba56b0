/*
 * macho_arch.h - what a macOS target's architecture is in Mach-O: the
 * header's CPU, the oldest macOS it runs and its relocation types, for the
 * -G stage's writer (macho_objgen.c, macho_write.c) and the check of the
 * program's objects (macho_in.c).  Here, in the Mach-O layer, and not in
 * the target's table (target.c): the model knows no object format.
 */
#ifndef USDTC_MACHO_ARCH_H
#define USDTC_MACHO_ARCH_H

#include <stdbool.h>
#include <stdint.h>

#include "target.h"

/*
 * The CPU of the header, the oldest macOS it runs (LC_BUILD_VERSION,
 * 0xMMMMmmpp), and the two relocation types a difference of two symbols
 * takes.
 */
typedef struct macho_arch {
	uint32_t cputype, cpusubtype;
	uint32_t minos;
	unsigned reloc_unsigned, reloc_subtractor;
} macho_arch_t;

/* t's Mach-O facts into out; false for an arch macOS does not run on. */
bool macho_arch(const target_t *t, macho_arch_t *out);

#endif
