/*
 * elfw_int.h - the ELF builder's insides, shared by its two writers.
 *
 * The builder and its ET_REL writer live in elfwrite.c, the
 * ET_DYN writer that only libusdt uses in elfdyn.c; both read the same
 * description, so its structures and the few helpers both writers call
 * are declared here.  Nothing outside those two files includes this
 * header: the rest of the tree sees only elfwrite.h.
 */
#ifndef USDTC_ELFW_INT_H
#define USDTC_ELFW_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <libelf.h>

#include "err.h"
#include "idset.h"
#include "strbuf.h"

typedef struct elfw_rel {
	uint64_t offset;
	unsigned type;
	int symbol;		/* handle, 0 = none */
	int64_t addend;
} elfw_rel_t;

typedef struct elfw_sec {
	char *name;
	uint32_t type;
	uint64_t flags;
	uint64_t align;
	uint64_t entsize;
	void *data;		/* our copy; NULL when empty or NOBITS */
	size_t size;
	int group;
	elfw_rel_t *rels;
	size_t nrels, relcap;
	int symbol;		/* its STT_SECTION symbol, 0 until asked for */
	size_t index;		/* output index, set by the writer */
	size_t rel_index;	/* output index of its RELA section, 0 if none */
	uint64_t addr;		/* its address, set by elfw_write_dyn */
} elfw_sec_t;

/*
 * 20 bytes: a -G object of a million probes has 4 million of them.  What
 * only a write needs (the output index, the name's .strtab offset) is
 * the writer's, in arrays made when it runs (layout_t).  A value and a
 * size are section offsets and lengths, 32 bits in any object usdtc
 * makes; a symbol whose value or size does not fit (an absolute symbol
 * merged in could) says ELFW_SYM_WIDE in both, and has them in w->wide
 * (elfw_sym_value, elfw_sym_size).
 */
#define ELFW_SYM_WIDE	UINT32_MAX

typedef struct elfw_sym {
	/*
	 * Its name's offset in w->symnames (elfw_sym_name); once the ET_REL
	 * writer has made w->symnames into .strtab (build_strtab), the name's
	 * offset there.
	 */
	uint32_t name;
	int section;
	uint32_t value;		/* or ELFW_SYM_WIDE */
	uint32_t size;		/* or ELFW_SYM_WIDE */
	unsigned char info;	/* GELF_ST_INFO(bind, type) */
	unsigned char other;	/* visibility */
} elfw_sym_t;

/* The value and size of a symbol whose elfw_sym_t says ELFW_SYM_WIDE. */
typedef struct elfw_wide {
	size_t sym;		/* its position in w->syms (handle - 1) */
	uint64_t value;
	uint64_t size;
} elfw_wide_t;

typedef struct elfw_group {
	int signature;		/* symbol handle, 0 until set */
	size_t index;		/* output index, set by the writer */
} elfw_group_t;

/*
 * The sections' names, packed into blocks that never move (elfwrite.c's
 * elfw_name): one malloc per 64 KB of names, not one per name.
 */
typedef struct elfw_names {
	char **blocks;
	size_t nblocks, blockcap;
	char *next;		/* where the next name goes in the current block */
	size_t left;		/* and the bytes left there */
} elfw_names_t;

struct elfw {
	unsigned elf_class;
	unsigned machine;
	elfw_sec_t *secs;	/* handle h is secs[h - 1] */
	size_t nsecs, seccap;
	elfw_sym_t *syms;	/* handle h is syms[h - 1] */
	size_t nsyms, symcap;
	elfw_wide_t *wide;	/* the ELFW_SYM_WIDE symbols', by position */
	size_t nwide, widecap;
	elfw_group_t *groups;	/* handle h is groups[h - 1] */
	size_t ngroups, groupcap;
	idset_t names;		/* symbol handles by name (idset.h) */
	/*
	 * The symbols' names one after the other, each as it was added, from
	 * offset 1 (offset 0 is the empty name): the bytes .strtab is made of,
	 * in place (elfwrite.c's build_strtab).
	 */
	strbuf_t symnames;
	elfw_names_t secnames;	/* the sections' names */
	bool spent;		/* written by elfw_write_rel: its symbols are gone */
	const char *out_name;	/* what a failed write names (elfw_set_output_name) */
	bool failed;
	err_t err;
};

/*
 * A string table that stores each string once: a strbuf of the bytes and
 * a set of the offsets of the strings (idset.h).
 */
typedef struct elfw_strtab {
	strbuf_t bytes;
	idset_t offsets;	/* offsets of the stored strings (idset.h) */
	bool failed;
} elfw_strtab_t;

/* What one write needs besides the builder; released by elfw_layout_free. */
typedef struct layout {
	size_t symtab, strtab, shstrtab;	/* output section indices */
	size_t symtab_shndx;	/* SHT_SYMTAB_SHNDX's index, 0 if not needed */
	size_t nsections;			/* including the null section */
	size_t *members;	/* section positions (0-based), grouped by group */
	size_t *group_start;	/* group g's members: members[start[g], start[g + 1]) */
	int *order;		/* symbol handles in output order (from index 1) */
	size_t nlocals;		/* output index of the first non-local symbol */
	elfw_strtab_t strs;		/* .strtab (ET_DYN) */
	char *names;		/* .strtab (ET_REL: build_strtab): the builder's w->symnames */
	size_t names_size;
	void *symtab_buf;	/* .symtab (ET_REL: build_symtab), a buffer */
	uint32_t *xwords;	/* .symtab_shndx (ET_REL), NULL if none */
	uint32_t *symindex;	/* symbol handle h's output index at [h - 1] (ET_REL) */
	size_t nsyms;		/* symbols written, the null one aside (ET_REL) */
	elfw_strtab_t shstrs;	/* .shstrtab */
	void **buffers;		/* data handed to libelf, freed after elf_end */
	size_t nbuffers, buffercap;
} layout_t;

/* Make room for one more element in *arrayp; false on allocation failure. */
bool elfw_grow(void *arrayp, size_t n, size_t *capp, size_t elem);
/* Whether h is a symbol handle of w. */
bool elfw_valid_symbol(const struct elfw *w, int h);
/* The name of symbol s of w (valid until the next symbol is added). */
const char *elfw_sym_name(const struct elfw *w, const elfw_sym_t *s);
/* The value and the size of symbol s of w. */
uint64_t elfw_sym_value(const struct elfw *w, const elfw_sym_t *s);
uint64_t elfw_sym_size(const struct elfw *w, const elfw_sym_t *s);

void elfw_strtab_init(elfw_strtab_t *t);
void elfw_strtab_free(elfw_strtab_t *t);
/* Offset of s in the table, adding it if new; 0 after a failure. */
size_t elfw_strtab_add(elfw_strtab_t *t, const char *s);

void elfw_layout_free(layout_t *l);
/* A zeroed buffer that lives until the write ends; NULL on failure. */
void *elfw_layout_buffer(layout_t *l, size_t size);

/*
 * The file libelf built in elf written out (elf_update): both writers' one
 * write; a failure names the file and the cause (a full disk: ENOSPC).
 */
int elfw_update(const struct elfw *w, Elf *elf, err_t *e);

#endif
