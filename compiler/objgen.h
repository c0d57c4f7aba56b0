/*
 * objgen.h - the -G stage: the relocatable object a program links with.
 */
#ifndef USDTC_OBJGEN_H
#define USDTC_OBJGEN_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"
#include "tempset.h"
#include "model.h"
#include "target.h"

typedef struct objgen_opts {
	char **objects;		/* the program's objects given to -G */
	size_t nobjects;
	bool lazyload;		/* -x lazyload: no drti_lite, symbol ___SUNW_dof */
	bool strip;		/* -x strip: the DOF without its comment (dofgen.h) */
	/*
	 * -x linktype=dof: the objects are rewritten as ever, and the output
	 * is the DOF alone (dofh_filesz bytes, its probe addresses left for a
	 * linker that never comes), as dtrace's dt_link.c writes it.
	 */
	bool raw_dof;
	bool verbose;		/* -v */
	const char *ld_cmd;	/* merge drti_lite with `ld_cmd -r`; NULL: merge it here */
	/*
	 * The target's drti_lite object (the program embeds one per target),
	 * or NULL with drti_missing saying why there is none; drti_ld is the
	 * linker for the target's machine when ld_cmd is NULL.
	 */
	const unsigned char *drti;
	size_t drti_size;
	const char *drti_missing;
	const char *drti_ld;
	/*
	 * Where the rewritten input objects' temporaries go; the caller
	 * commits them with the output (NULL: each object is committed by
	 * itself, as soon as it is written).
	 */
	tempset_t *temps;
	/* What messages call the output (out_path is its temporary); NULL: out_path. */
	const char *out_name;
	/*
	 * sdtobj.c: the flag $CC needs to compile for the target's half of
	 * its CPU (-m32 for i386 with an x86_64 compiler), or NULL.
	 */
	const char *cc_flag;
	/*
	 * sdtobj.c: the compiler command ($CC, or one found for the target:
	 * shell words), and how long its compile may take (ms).
	 */
	const char *cc_cmd;
	int cc_timeout_ms;
	/*
	 * objgen.c: called (when not NULL) once the model is read for the
	 * last time, before the object is laid out and written, so that the
	 * caller may free it then: at 100,000 probes the model is 35 MB that
	 * the writing need not be held beside (issue 40).
	 */
	void (*model_done)(void *ctx);
	void *model_done_ctx;
	/*
	 * objgen.c: called (when not NULL) where a large part of what -G
	 * holds was just freed (the site table, once the DOF is added), so
	 * that the program may hand the freed pages back before the rest of
	 * the object is built on top of them (issue 40).
	 */
	void (*memory_freed)(void);
} objgen_opts_t;

/*
 * Read each object once and check it against m, plan the rewrite of its
 * probe calls and every probe's sites (m is only read, and not after
 * o->model_done), then write the
 * rewritten objects (to o->temps) and the finished object to out_path (a
 * temporary name the caller renames).  Returns 0, or -1 with e set; on
 * failure out_path may exist and the caller removes it.
 */
int objgen_write(const mdl_model_t *m, const target_t *t,
    const objgen_opts_t *o, const char *out_path, err_t *e);

#endif
