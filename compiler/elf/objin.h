/*
 * objin.h - the -G stage's inputs, the program's objects, each read once.
 *
 * -G checks every object against the model (objgen.c), plans the rewriting
 * of its probe calls (rewrite_plan.c) and writes the rewritten copy
 * (rewrite_write.c); all three
 * work on the one image read here, so an object is read from disk exactly
 * once and every stage sees the same bytes.  An object given twice (the
 * same device and inode: the same name, a symlink or another hard link)
 * is planned once: the later input points at the first.
 */
#ifndef USDTC_OBJIN_H
#define USDTC_OBJIN_H

#include <libelf.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "err.h"
#include "idset.h"
#include "magic.h"
#include "target.h"

typedef struct objin {
	const char *path;	/* as given, for messages */
	char *real;		/* its real path: the rewritten copy goes beside it */
	struct stat st;		/* as opened: the copy takes its owner and mode */
	uint8_t *bytes;		/* the whole file (NULL for a repeated input) */
	size_t len;
	enum file_magic kind;
	Elf *elf;		/* MAGIC_ELF: libelf over bytes (elf_memory), else NULL */
	const struct objin *same_as;	/* the earlier input that is this file, or NULL */
} objin_t;

/*
 * Read the input at path (a regular file) into in, the input after the n
 * of before (in is &before[n]), unless it is the file of one of them:
 * then in->same_as says which (in->bytes is NULL, in->real its own name).
 * byfile is the caller's set of those inputs by device and inode
 * (idset_init'd before the first, freed after the last), so that a long
 * command line costs one lookup per input, not a comparison with every
 * earlier one.  libelf must have been initialised
 * (elf_version).  Returns 0, or -1 with e set (the path named in it) and
 * in empty.
 */
int objin_read(objin_t *in, const char *path, const objin_t *before, size_t n,
    idset_t *byfile, err_t *e);

/* The input whose bytes in stands for: in itself, or the one it repeats. */
const objin_t *objin_image(const objin_t *in);

/*
 * 0 if elf (read from path) is an ELF file of t's class and machine, else
 * -1 with e naming path and the tag G_CLASS_MISMATCH or G_MACHINE_MISMATCH:
 * the one check -G makes of every object, for every target.
 */
int objin_check_target(Elf *elf, const char *path, const target_t *t, err_t *e);

void objin_free(objin_t *in);

#endif
