/*
 * macho_write.h - the Mach-O writer of the -G stage for macOS targets: an
 * MH_OBJECT built in memory (sections with their bytes and relocations,
 * symbols), then written in one pass (macho_write.c).  What goes in is the
 * stage's business (macho_objgen.c); the writer reads nothing.
 */
#ifndef USDTC_MACHO_WRITE_H
#define USDTC_MACHO_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "strbuf.h"
#include "macho_arch.h"

typedef struct mw_reloc {
	uint32_t address;
	size_t symbol;		/* index in mw_t.syms until layout, then final */
	uint8_t type;
	uint8_t length;		/* log2 of the size */
} mw_reloc_t;

typedef struct mw_section {
	char sectname[16];	/* NUL-padded, not NUL-terminated */
	char segname[16];
	uint32_t flags;
	uint32_t align;		/* log2 */
	strbuf_t data;
	mw_reloc_t *relocs;
	size_t nrelocs;
	uint64_t addr;		/* set by layout */
	uint32_t offset, reloff;
} mw_section_t;

typedef struct mw_symbol {
	char *name;
	uint8_t type;		/* n_type */
	size_t sect;		/* index in mw_t.sects */
	uint64_t offset;	/* in the section */
	uint16_t desc;
	uint32_t final;		/* index in the written table */
	uint32_t strx;
} mw_symbol_t;

typedef struct mw {
	macho_arch_t cpu;	/* the header's CPU, the relocation types */
	mw_section_t *sects;
	size_t nsects;
	mw_symbol_t *syms;
	size_t nsyms;
	bool failed;		/* out of memory: everything after is a no-op */
} mw_t;

/* An empty object for the CPU cpu names. */
void mw_init(mw_t *w, const macho_arch_t *cpu);
void mw_free(mw_t *w);

/* A new empty section; its index, or (size_t)-1 when memory ran out. */
size_t mw_add_section(mw_t *w, const char *seg, const char *sect, uint32_t flags,
    uint32_t align);

/* A symbol defined in section sect at offset; its index. */
size_t mw_add_symbol(mw_t *w, const char *name, uint8_t type, uint16_t desc,
    size_t sect, uint64_t offset);

/* The index of the symbol named name, or (size_t)-1. */
size_t mw_find_symbol(const mw_t *w, const char *name);

/* The 4 bytes at address in sect become minuend - subtrahend + themselves. */
void mw_add_difference(mw_t *w, size_t sect, uint32_t address, size_t minuend,
    size_t subtrahend);

/*
 * The object, laid out (locals first, then external definitions by name,
 * as LC_DYSYMTAB wants), written to path.  Returns 0, or -1 with e set
 * (out of memory on the way included: w->failed).
 */
int mw_write(mw_t *w, const char *path, err_t *e);

#endif
