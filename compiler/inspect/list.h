/*
 * list.h - `usdtc --list` and `usdtc --dump`: what probes a file carries.
 *
 * Both read any ELF object, executable or shared library (ours or one built
 * with sys/sdt.h), have its DOF (.SUNW_dof) and stapsdt notes found and
 * decoded by the reader probefind.h, and print them.  --list prints a summary a
 * person reads; --dump prints every DOF field, the form golden tests keep
 * (no file names, no dates).  A raw DOF file (starting with \177DOF, e.g.
 * what drti_lite handed to the helper device) is read as well, and so is a
 * 64-bit Mach-O object or image (its S_DTRACE_DOF sections, macho_read.h).
 */
#ifndef USDTC_LIST_H
#define USDTC_LIST_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "err.h"

enum list_mode {
	LIST_SUMMARY,	/* --list */
	LIST_DUMP	/* --dump */
};

typedef struct list_opts {
	enum list_mode mode;
	/*
	 * The load base a consumer would be given (dofhp_addr): a probe
	 * record whose address has a DOF SETX relocation and is <= base gets
	 * base added, as Oracle Linux's DOF parser does.  0: none.
	 */
	uint64_t base;
} list_opts_t;

/* Print what path holds.  Returns 0, or -1 with e set (path named in it). */
int list_file_ex(FILE *out, const char *path, const list_opts_t *o, err_t *e);

/* The same for a file image in memory; name is used in messages only. */
int list_buffer(FILE *out, const void *buf, size_t len, const char *name,
    const list_opts_t *o, err_t *e);

/* Shorthands: summary / dump, no base. */
int list_file(FILE *out, const char *path, err_t *e);
int list_dump_file(FILE *out, const char *path, err_t *e);

#endif
