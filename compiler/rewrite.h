/*
 * rewrite.h - the -G stage's call-site rewriting: zero-call probes.
 *
 * rewrite_objects() turns every call to a probe function in the program's
 * objects into the target's tracepoint, in place, and says where each one
 * now is (function + offset), so objgen.c records the sites in the DOF and
 * gives each probe site a stapsdt note.  rewrite.c explains how and why.
 */
#ifndef USDTC_REWRITE_H
#define USDTC_REWRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "fileio.h"
#include "model.h"
#include "target.h"

/* One rewritten call site (or one recovered from an earlier -G run). */
typedef struct rewrite_site {
	mdl_provider_t *provider;	/* in the model given to rewrite_objects */
	mdl_probe_t *probe;
	char *func;		/* dofpr_func: the calling function's name */
	char *symbol;		/* what relocations use: func, or its alias */
	uint32_t offset;	/* of the tracepoint from the start of func */
	bool is_enabled;	/* an is-enabled site */
	bool tail;		/* was a tail call: arguments lie as at stub entry */
	bool marked;		/* an inline site the header marked: its note is in the object */
} rewrite_site_t;

/*
 * What the rewrite reports: the sites, and the anchors, the symbols the -G
 * output must define because the rewritten objects refer to them (one per
 * object and provider, REWRITE_ANCHOR_PREFIX "PROVIDER.KEY"; rewrite.c
 * says why).  The -G output defines each, weak and hidden.
 */
#define REWRITE_ANCHOR_PREFIX	"__usdt_sites."

typedef struct rewrite_sites {
	rewrite_site_t *sites;
	size_t n;
	char **anchors;
	size_t nanchors;
} rewrite_sites_t;

/* Receives one -v explanation (a complete sentence, no newline). */
typedef void (*rewrite_note_fn)(void *ctx, const char *msg);

typedef struct rewrite_opts {
	rewrite_note_fn note;	/* NULL: explanations are dropped */
	void *note_ctx;
	/*
	 * The rewritten objects' temporaries, for the caller to commit with
	 * its output (fileio.h); NULL: rewrite_objects commits them itself
	 * when every object is done, or none of them.
	 */
	tempset_t *temps;
} rewrite_opts_t;

/*
 * Rewrite the probe calls of each object in paths (ELF relocatable objects
 * of target t; LLVM bitcode and GCC LTO objects are left alone with a
 * note), and append every site, new or recorded by an earlier run, to out,
 * with the anchors the objects refer to.
 * The objects must already have been checked against m (objgen.c does).
 * Returns 0, or -1 with e set; a failure leaves every object as it was.
 */
int rewrite_objects(mdl_model_t *m, const usdt_target_t *t,
    char *const *paths, size_t npaths, const rewrite_opts_t *o,
    rewrite_sites_t *out, err_t *e);
void rewrite_sites_free(rewrite_sites_t *s);

/* The key of the alias symbols made for an object at path (for tests). */
uint32_t rewrite_alias_key(const char *path);

#endif
