/*
 * elfwrite.h - building ELF objects in memory and writing them with libelf.
 *
 * A builder (elfw_t) holds a description of an object that does not depend
 * on its file layout: sections with their bytes, COMDAT groups, symbols and
 * relocations, all named by small integer handles.  A writer then lays the
 * description out as a file.  Today there is one writer, elfw_write_rel
 * (ET_REL, what -G produces, elfwrite.c); the run-time library has one for ET_DYN
 * from the same description (program headers and dynamic tables are a
 * property of the writer, not of the builder): elfw_write_dyn.  Both ELF classes go through
 * GElf, so there is one copy of every routine.
 *
 * Errors latch, as in strbuf: the first failing call records a message in
 * the builder and every later call does nothing and returns -1, so a caller
 * adds everything and checks once, at elfw_write_rel or elfw_failed.
 * Nothing here prints or exits.
 */
#ifndef USDTC_ELFWRITE_H
#define USDTC_ELFWRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

typedef struct elfw elfw_t;

/* Symbol "section" handles that are not sections. */
#define ELFW_UNDEF	0	/* undefined: a reference to another object */
#define ELFW_ABS	(-2)	/* SHN_ABS */

typedef struct elfw_section_desc {
	const char *name;
	uint32_t type;		/* SHT_* */
	uint64_t flags;		/* SHF_*; SHF_GROUP is added for group members */
	uint64_t align;		/* a power of two, or 0/1 */
	uint64_t entsize;
	const void *data;	/* copied; NULL means size zero bytes */
	size_t size;
	int group;		/* a handle from elfw_add_group, or 0 */
} elfw_section_desc_t;

typedef struct elfw_symbol_desc {
	const char *name;	/* "" or NULL for section symbols */
	int section;		/* section handle, ELFW_UNDEF or ELFW_ABS */
	uint64_t value;		/* offset inside the section */
	uint64_t size;
	unsigned bind;		/* STB_* */
	unsigned type;		/* STT_* */
	unsigned visibility;	/* STV_* */
} elfw_symbol_desc_t;

/*
 * A builder for objects of the given class (ELFCLASS32/64) and machine
 * (EM_*), little-endian, with RELA relocations.  NULL with e set if libelf
 * is unusable or memory runs out.
 */
elfw_t *elfw_new(unsigned elf_class, unsigned machine, err_t *e);
void elfw_free(elfw_t *w);

/* True once a call has failed; e (if non-NULL) receives the message. */
bool elfw_failed(const elfw_t *w, err_t *e);
/* The class and machine the builder was made for. */
void elfw_class_and_machine(const elfw_t *w, unsigned *elf_class, unsigned *machine);

/*
 * A COMDAT group (GRP_COMDAT).  Its signature symbol is named later with
 * elfw_set_group_signature, because that symbol usually lives in a section
 * of the group.  Returns a handle > 0, or -1.
 */
int elfw_add_group(elfw_t *w);
int elfw_set_group_signature(elfw_t *w, int group, int symbol);

/* A section; returns its handle (> 0), or -1. */
int elfw_add_section(elfw_t *w, const elfw_section_desc_t *d);
/*
 * The same with data, malloc'd, d->size bytes, taken by the builder instead
 * of copied (d->data is ignored; freed on failure too; NULL fails as out of
 * memory): for sections of megabytes.
 */
int elfw_adopt_section(elfw_t *w, const elfw_section_desc_t *d, void *data);

/* A symbol; returns its handle (> 0), or -1.  Names need not be unique. */
int elfw_add_symbol(elfw_t *w, const elfw_symbol_desc_t *d);
/* The STT_SECTION symbol of a section (made on first use), or -1. */
int elfw_section_symbol(elfw_t *w, int section);
/* The most recently added symbol with this name, or 0 if none. */
int elfw_find_symbol(const elfw_t *w, const char *name);
/* That symbol, or a new undefined STB_GLOBAL reference to name. */
int elfw_symbol_ref(elfw_t *w, const char *name);
/*
 * What a symbol was added as (name points into the builder, until a
 * symbol is added); -1 if the handle names no symbol.
 */
int elfw_symbol_info(const elfw_t *w, int symbol, elfw_symbol_desc_t *d);
/* Change a symbol's binding (STB_*), e.g. to make it local before writing. */
int elfw_set_symbol_bind(elfw_t *w, int symbol, unsigned bind);

/*
 * Copy the relocatable object image[0, size) into the builder as `ld -r`
 * would combine it with what the builder holds: its sections, symbols and
 * relocations, renumbered (elfmerge.c says what it takes and what it
 * refuses).  An undefined symbol of the image binds to the builder's
 * global or weak symbol of the same name.  what names the image in
 * errors.  Returns 0, or -1 with e set; after a failure the builder may
 * hold part of the image and is not to be written.
 */
int elfw_merge_rel(elfw_t *w, const void *image, size_t size, const char *what,
    err_t *e);

/*
 * What the GNU property note of the relocatable object image[0, size)
 * says its code satisfies: GNU_PROPERTY_X86_FEATURE_1_AND (bit 0 IBT,
 * bit 1 SHSTK); 0 when it has no such note.  elfw_merge_rel leaves that
 * note out, for the caller to write one for the whole output.
 */
uint32_t elfw_x86_feature_1(const void *image, size_t size);

/*
 * A relocation of the given type at offset inside section, against symbol
 * (0 for none).  RELA sections are created per target section at write
 * time, flagged SHF_INFO_LINK and put in the target's group.
 */
/*
 * Room for nsyms more symbols, and for nrels more relocations of section
 * (if it is not 0), in one allocation each: a writer that knows how many
 * it will add spares the copies of growing by doubling.  0, or -1 (the
 * builder failed) when out of memory.
 */
int elfw_reserve(elfw_t *w, size_t nsyms, int section, size_t nrels);

int elfw_add_reloc(elfw_t *w, int section, uint64_t offset, unsigned type,
    int symbol, int64_t addend);

/*
 * Lay the builder out as a relocatable object (ET_REL) and write it to fd
 * (open for writing, positioned at 0).  Section order: groups, then each
 * section followed by its relocations, then .symtab, .strtab, .shstrtab;
 * local symbols come first.  Returns 0, or -1 with e set.  It is the
 * builder's last use, whatever it returns: to keep -G's peak memory
 * near its output, the write frees the symbols and their names as soon
 * as .symtab and .strtab hold them, and turns the relocations into the
 * file's in place; after it, only elfw_free (a second write fails).
 */
int elfw_write_rel(elfw_t *w, int fd, err_t *e);

/*
 * The name a failed write of w's file gives ("cannot write NAME: cause"),
 * kept by reference until the write; without it, "the object".
 */
void elfw_set_output_name(elfw_t *w, const char *name);

/* What a shared object needs beyond the description. */
typedef struct elfw_dyn_opts {
	const char *soname;	/* DT_SONAME, or NULL for none */
	unsigned abs_reloc;	/* the machine's absolute address relocation */
	uint64_t page_size;	/* segment alignment; 0 means 4096 */
} elfw_dyn_opts_t;

/*
 * Lay the builder out as a shared object (ET_DYN) that dlopen can load and
 * write it to fd: read-only, executable and writable PT_LOAD segments,
 * PT_DYNAMIC, a non-executable PT_GNU_STACK, and a dynamic symbol table
 * with every global and weak symbol.  Relocations are resolved to
 * link-time addresses (no dynamic relocations); each must be of type
 * abs_reloc against a defined symbol, and is resolved in the bytes the
 * builder holds where an output section is one input section (written
 * from there, not copied).  Groups are ignored.  elfdyn.c describes the
 * layout.  Returns 0, or -1 with e set.
 */
int elfw_write_dyn(elfw_t *w, int fd, const elfw_dyn_opts_t *o, err_t *e);

/*
 * The link-time address (offset from the load base) elfw_write_dyn gave a
 * symbol; a symbol's value before any ET_DYN write.
 */
uint64_t elfw_symbol_address(const elfw_t *w, int symbol);

/*
 * Make the global symbol `name` of the relocatable object at path local,
 * in place (elfmerge.c; used after `ld -r`, -x ldpath=): the symbol table is reordered so locals stay first, and every
 * relocation and group signature that used a moved index is renumbered.
 * Section offsets are kept as they are.  Returns 0, or -1 with e set.
 */
int elfw_localize_symbol(const char *path, const char *name, err_t *e);

#endif
