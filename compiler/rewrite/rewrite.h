/*
 * rewrite.h - the -G stage's call-site rewriting: zero-call probes.
 *
 * Every call to a probe function in the program's objects becomes the
 * target's tracepoint, in place, and the rewrite says where each one now
 * is (function + offset), so objgen.c records the sites in the DOF and
 * gives each probe site a stapsdt note.  rewrite_plan.c explains how and why,
 * and plans; rewrite_write.c writes.
 *
 * Two steps over the objects objgen.c has read (objin.h) and checked:
 * rewrite_plan() decides every edit and reports the sites, touching no
 * file; rewrite_write() then writes the rewritten copies.  The model is
 * only read.
 */
#ifndef USDTC_REWRITE_H
#define USDTC_REWRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "tempset.h"
#include "idset.h"
#include "model.h"
#include "objin.h"
#include "target.h"

/* One rewritten call site (or one recovered from an earlier -G run). */
typedef struct rewrite_site {
	const mdl_provider_t *provider;	/* in the model given to rewrite_plan */
	const mdl_probe_t *probe;
	char *func;		/* dofpr_func: the calling function's name */
	char *symbol;		/* what relocations use: func, or its alias */
	uint32_t offset;	/* of the tracepoint from the start of func */
	bool is_enabled;	/* an is-enabled site */
	bool tail;		/* was a tail call: the return address is on the stack */
	bool marked;		/* an inline site the header marked: its note is in the object */
} rewrite_site_t;

/*
 * What the rewrite reports: the sites, and the anchors, the symbols the -G
 * output must define because the rewritten objects refer to them (one per
 * object and provider, REWRITE_ANCHOR_PREFIX "PROVIDER.KEY"; rewrite_plan.c
 * says why).  The -G output defines each, weak and hidden.
 */
#define REWRITE_ANCHOR_PREFIX	"__usdt_sites."

/* A set of probes, sorted by address. */
typedef struct rewrite_kept {
	const mdl_probe_t **probes;
	size_t n;
} rewrite_kept_t;

typedef struct rewrite_sites {
	rewrite_site_t *sites;
	size_t n;
	char **anchors;
	size_t nanchors;
	idset_t anchor_set;	/* anchors by name: one lookup per object */
	/*
	 * The probes whose unit an is-enabled call (kept_enabled) or a probe
	 * call (kept_probe) still reaches (a call that was not rewritten, a
	 * reference that is not a call), by address: objgen.c gives those
	 * units' is-enabled or probe slots a site (rewrite_keeps_enabled,
	 * rewrite_keeps_probe); a slot nothing reaches never fires, and
	 * DTrace must not list it.  A probe with no probe site in the given
	 * objects keeps its unit's probe slot too: only objects not given
	 * to -G can fire it (sited: the probes that have one).  every_kept:
	 * an object's calls could not be seen (LLVM bitcode, LTO, a machine
	 * without rewriting), so any probe's may.
	 */
	rewrite_kept_t kept_enabled, kept_probe, sited;
	bool every_kept;
} rewrite_sites_t;

/* Receives one -v explanation (a complete sentence, no newline). */
typedef void (*rewrite_note_fn)(void *ctx, const char *msg);

typedef struct rewrite_opts {
	rewrite_note_fn note;	/* NULL: explanations are dropped */
	void *note_ctx;
	/*
	 * The rewritten objects' temporaries, for the caller to commit with
	 * its output (fileio.h); NULL: rewrite_write commits them itself
	 * when every object is done, or none of them.
	 */
	tempset_t *temps;
} rewrite_opts_t;

typedef struct rewrite_plan rewrite_plan_t;

/*
 * Plan the rewriting of the probe calls of each input (ELF relocatable
 * objects of target t; LLVM bitcode and GCC LTO objects are left alone
 * with a note), and append every site, new or recorded by an earlier run,
 * to out (zeroed by the caller), with the anchors the objects refer to and
 * the probes whose is-enabled calls were kept.  The inputs must already
 * have been checked against m (objgen.c does), and outlive the plan.
 * Writes nothing.  Returns 0, or -1 with e set; either way *planp is for
 * rewrite_plan_free.
 */
int rewrite_plan(const mdl_model_t *m, const target_t *t,
    const objin_t *ins, size_t nins, const rewrite_opts_t *o,
    rewrite_plan_t **planp, rewrite_sites_t *out, err_t *e);

/*
 * Write every object the plan changes, to temporaries in o->temps (or,
 * with none, committed together here).  Returns 0, or -1 with e set; a
 * failure leaves every object as it was.
 */
int rewrite_write(rewrite_plan_t *plan, err_t *e);
void rewrite_plan_free(rewrite_plan_t *plan);

void rewrite_sites_free(rewrite_sites_t *s);

/* Whether an is-enabled call of pr still reaches its unit (see kept). */
bool rewrite_keeps_enabled(const rewrite_sites_t *s, const mdl_probe_t *pr);
/*
 * Whether pr's unit's probe slot is a site: a probe call (or a reference)
 * still reaches it, or pr has no other probe site in the given objects.
 */
bool rewrite_keeps_probe(const rewrite_sites_t *s, const mdl_probe_t *pr);

/* The key of the alias symbols made for an object at path (for tests). */
uint32_t rewrite_alias_key(const char *path);

#endif
