/*
 * macho_read.h - a strict reader for 64-bit little-endian Mach-O files,
 * and for the relocations of the DOF sections in them (macho_read.c).
 *
 * Takes (buffer, length) like decode.h; decoded names point into the
 * buffer, which must outlive the result; arrays are owned by it.  Failures
 * fill err_t with one sentence naming the load command, section, symbol or
 * relocation at fault (the caller adds the file name).
 */
#ifndef USDTC_MACHO_READ_H
#define USDTC_MACHO_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "macho.h"

typedef struct macho_section {
	char segname[17];	/* NUL-terminated copies of the 16-byte fields */
	char sectname[17];
	uint64_t addr;
	uint64_t size;
	uint32_t offset;
	uint32_t align;		/* log2 */
	uint32_t reloff;
	uint32_t nreloc;
	uint32_t flags;
	const uint8_t *data;	/* NULL for a zero-fill section */
} macho_section_t;

typedef struct macho_symbol {
	const char *name;
	uint8_t type;		/* n_type */
	uint8_t sect;		/* n_sect: 1-based section ordinal, 0 = none */
	uint16_t desc;
	uint64_t value;
} macho_symbol_t;

typedef struct macho_reloc {
	int32_t address;	/* offset in the section */
	uint32_t symbolnum;	/* symbol index (extern) or section ordinal */
	bool pcrel;
	bool ext;
	uint8_t length;		/* log2 of the size */
	uint8_t type;
} macho_reloc_t;

typedef struct macho_file {
	const uint8_t *image;	/* the buffer read */
	size_t size;
	uint32_t cputype;
	uint32_t cpusubtype;
	uint32_t filetype;	/* MH_OBJECT, MH_EXECUTE, MH_DYLIB, ... */
	uint32_t flags;
	macho_section_t *sects;	/* in ordinal order: sects[0] is ordinal 1 */
	size_t nsects;
	macho_symbol_t *syms;
	size_t nsyms;
} macho_file_t;

/*
 * Read the header, the segments and their sections, and the symbol table.
 * Universal, 32-bit and big-endian files are refused with a message
 * saying so.  Returns 0, or -1 with e set and out empty.
 */
int macho_read(const void *buf, size_t len, macho_file_t *out, err_t *e);
void macho_file_free(macho_file_t *f);

/* "x86_64", "arm64", or NULL for another CPU. */
const char *macho_arch_name(uint32_t cputype);

/* Whether a section holds DOF: type S_DTRACE_DOF, as dyld decides. */
bool macho_is_dof_section(const macho_section_t *s);

/*
 * The relocations of section index i (sects[i]), each checked to lie
 * inside the section and, when extern, to name a symbol.  *out is NULL
 * when there are none.  Returns 0, or -1 with e set.
 */
int macho_relocs(const macho_file_t *f, size_t i, macho_reloc_t **out,
    size_t *n, err_t *e);

/*
 * In a relocatable object, the sites of each DOF probe record of DOF
 * section i are relative to two symbols: every PROFFS and PRENOFFS entry
 * of the record carries the pair SUBTRACTOR (the DOF's first byte) then
 * UNSIGNED (the function holding the site), 4 bytes, so the linker stores
 * function - DOF + entry.  One result per record.
 */
typedef struct macho_dof_rel {
	uint64_t addr_offset;	/* of the record's dofpr_addr in the section */
	const char *function;	/* the UNSIGNED symbol */
	const char *dof;	/* the SUBTRACTOR symbol */
} macho_dof_rel_t;

/*
 * Check the relocations of DOF section i against the DOFs it holds (each
 * DOF 8-aligned, zero padding between them): pairs well formed, the
 * SUBTRACTOR symbol at the start of its DOF, every site entry of a record
 * relocated against one function, nothing else relocated.  A section
 * without relocations yields no results.  Returns 0, or -1 with e set.
 */
int macho_dof_relocs(const macho_file_t *f, size_t i, macho_dof_rel_t **out,
    size_t *n, err_t *e);

#endif
