/*
 * parse_decl.c - the meaning of providers and probes as the grammar
 * recognises them: the semantic actions parser.y calls (providers, probes,
 * parameters, translators, the ';' after a provider body that lexer.l
 * reports), with DTrace's checks and tags (parse.c lists them).
 *
 * It builds the model; it calls parse_layout.c for the spelling of types
 * and parse_ctx.c for memory, never the grammar or parse.c.
 */
#include <ctype.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "parse_int.h"
#include "strbuf.h"

/* ---- providers and probes ---------------------------------------------------- */
void
parse_translator(struct parse_ctx *ctx, struct ctype *out, struct cdecl *outd,
    struct ctype *in, struct cdecl *ind, parse_loc_t loc)
{
	if (mdl_add_translator(ctx->m, parse_decl_type(ctx, out, outd),
	    parse_decl_type(ctx, in, ind), parse_src(loc)) != 0)
		parse_nomem(ctx);
}

void
parse_provider_begin(struct parse_ctx *ctx, const char *name, parse_loc_t loc)
{
	size_t len = strlen(name);
	mdl_provider_t *p;

	if (len >= MDL_PROVNAMELEN)
		diag_error(ctx->d, parse_src(loc), "D_PROV_BADNAME",
		    "provider name '%s' is %zu characters long; DTrace allows at most %d",
		    name, len, MDL_PROVNAMELEN - 1);
	else if (len > 0 && isdigit((unsigned char)name[len - 1]))
		diag_error(ctx->d, parse_src(loc), "D_PROV_BADNAME",
		    "provider name '%s' ends with a digit, which DTrace does not allow: "
		    "it appends a process ID to provider names", name);
	if ((p = mdl_find_provider(ctx->m, name)) == NULL &&
	    (p = mdl_add_provider(ctx->m, name, parse_src(loc))) == NULL)
		parse_nomem(ctx);
	ctx->prov = p;
	ctx->prov_first = p->nprobes;
}

void
parse_provider_end(struct parse_ctx *ctx, parse_loc_t close)
{
	ctx->prov = NULL;
	ctx->want_semicolon = true;
	ctx->semi_loc = close;
}

void
parse_missing_semicolon(struct parse_ctx *ctx)
{
	ctx->want_semicolon = false;
	diag_warning(ctx->d, parse_src_after(ctx->semi_loc), "D_PROV_SEMICOLON",
	    "expected ';' after the provider body; DTrace requires it, "
	    "SystemTap's dtrace did not");
}

void
parse_token_seen(struct parse_ctx *ctx, int token, bool is_semicolon, bool is_probe)
{
	(void)token;
	if (ctx->want_semicolon) {
		if (is_semicolon)
			ctx->want_semicolon = false;
		else
			parse_missing_semicolon(ctx);
	}
	if (is_probe && ctx->item == LEX_ITEM_CLAUSE)
		ctx->clause_probe = true;
}

/*
 * `shop { probe a(int); };` is a D clause for the probe description
 * `shop`, whose body is skipped: the file declares no provider, and the
 * header and object come out empty.  DTrace rejects the body; say so.
 */
void
parse_clause_end(struct parse_ctx *ctx)
{
	if (!ctx->clause_probe)
		return;
	ctx->clause_probe = false;
	diag_warning(ctx->d, parse_src(ctx->pspec_loc), "D_PROV_NOKEYWORD",
	    "'%s { ... }' declares probes but is not a provider: it is read as "
	    "a D clause and ignored (is 'provider' missing before '%s'?)",
	    ctx->pspec_text, ctx->pspec_text);
}

struct cparam *
parse_param(struct parse_ctx *ctx, struct ctype *t, struct cdecl *d, parse_loc_t loc)
{
	struct cparam *p = parse_alloc(ctx, sizeof(*p));

	p->type = parse_decl_type(ctx, t, d);
	p->name = d->name;
	p->loc = loc;
	p->name_loc = d->name_loc;
	p->is_void = strcmp(t->text, "void") == 0 && d->abs.len == 0;
	return p;
}

/*
 * `(void)` is the empty list; any other void parameter is an error.
 * Returns false after reporting one.
 */
static bool
check_void(struct parse_ctx *ctx, struct plist *l)
{
	bool ok = true;

	for (struct cparam *p = l->head; p != NULL; p = p->next) {
		if (!p->is_void)
			continue;
		if (p->name != NULL) {
			diag_error(ctx->d, parse_src(p->loc), "D_PROBE_VOID",
			    "parameter '%s' has type void", p->name);
			ok = false;
		} else if (l->n > 1) {
			diag_error(ctx->d, parse_src(p->loc), "D_PROBE_VOID",
			    "'void' must be the only parameter");
			ok = false;
		}
	}
	if (ok && l->n == 1 && l->head->is_void) {
		l->head = l->tail = NULL;
		l->n = 0;
	}
	return ok;
}

static bool
check_count(struct parse_ctx *ctx, const struct plist *l, const char *what,
    const char *probe)
{
	const struct cparam *p = l->head;

	if (l->n <= MDL_MAXARGS)
		return true;
	for (int i = 0; i < MDL_MAXARGS; i++)
		p = p->next;
	diag_error(ctx->d, parse_src(p->loc), "D_PROV_PRARGLEN",
	    "probe '%s' has %zu %s arguments; DOF allows at most %d",
	    probe, l->n, what, MDL_MAXARGS);
	return false;
}

/* Whether a list written now has the same types as args recorded earlier. */
static bool
same_types(struct parse_ctx *ctx, const struct plist *l, const mdl_arg_t *args,
    size_t n)
{
	const struct cparam *p = l->head;

	if (l->n != n)
		return false;
	for (size_t i = 0; i < n; i++, p = p->next)
		if (strcmp(parse_take(ctx, mdl_normalise_type(p->type)), args[i].type) != 0)
			return false;
	return true;
}

/*
 * A probe declared again: an error in the same provider body; elsewhere
 * fine if identical (a file included twice), an error if not.  Returns
 * true if the declaration is to be dropped without a word.
 */
static bool
redeclared(struct parse_ctx *ctx, const mdl_probe_t *old, size_t old_index,
    const char *name, parse_loc_t loc, const struct plist *nargs,
    const struct plist *xargs, bool *ok)
{
	mdl_provider_t *p = ctx->prov;
	bool same;

	if (old_index >= ctx->prov_first) {
		diag_error(ctx->d, parse_src(loc), "D_PROV_PRDUP",
		    "probe '%s' is declared twice in provider '%s'", name, p->name);
		diag_note(ctx->d, old->loc, "'%s' was first declared here", old->name);
		*ok = false;
		return false;
	}
	same = same_types(ctx, nargs, old->nargs, old->nargc) &&
	    (xargs == NULL ? !old->translated :
	    old->translated && same_types(ctx, xargs, old->xargs, old->xargc));
	if (same)
		return true;
	diag_error(ctx->d, parse_src(loc), "D_PROV_INCOMPAT",
	    "probe %s:%s is declared again with different arguments", p->name, name);
	diag_note(ctx->d, old->loc, "'%s' was first declared here", old->name);
	*ok = false;
	return false;
}

static void
add_args(struct parse_ctx *ctx, mdl_probe_t *pr, const struct plist *l, bool xlated)
{
	for (const struct cparam *a = l->head; a != NULL; a = a->next) {
		int rc = xlated ?
		    mdl_probe_add_xlated_arg(pr, a->type, a->name, parse_src(a->loc)) :
		    mdl_probe_add_native_arg(pr, a->type, a->name, parse_src(a->loc));

		if (rc != 0)
			parse_nomem(ctx);
	}
}

/* Two native parameters with one name: DTrace rejects it; a warning. */
static void
check_duplicate_names(struct parse_ctx *ctx, const struct plist *l, const char *probe)
{
	for (const struct cparam *p = l->head; p != NULL; p = p->next) {
		if (p->name == NULL)
			continue;
		for (const struct cparam *q = l->head; q != p; q = q->next) {
			if (q->name == NULL || strcmp(q->name, p->name) != 0)
				continue;
			diag_warning(ctx->d, parse_src(p->name_loc), "D_PROBE_ARGDUP",
			    "parameter name '%s' is used twice in probe %s:%s",
			    p->name, ctx->prov->name, probe);
			diag_note(ctx->d, parse_src(q->name_loc), "'%s' was first used here",
			    q->name);
			break;
		}
	}
}

/*
 * A translated argument takes the value of the native argument of its
 * name; one whose name matches none takes the native argument at its
 * position, which DTrace would not do: say which one it got.
 */
static void
check_xarg_names(struct parse_ctx *ctx, const mdl_probe_t *pr)
{
	for (size_t i = 0; i < pr->xargc; i++) {
		const char *x = pr->xargs[i].name;
		bool found = false;

		if (x == NULL || pr->argmap[i] >= pr->nargc)
			continue;
		for (size_t j = 0; j < pr->nargc && !found; j++)
			found = pr->nargs[j].name != NULL && strcmp(pr->nargs[j].name, x) == 0;
		if (!found)
			diag_warning(ctx->d, mdl_arg_loc(pr, &pr->xargs[i]), "D_PROV_XARGNAME",
			    "translated argument '%s' of probe %s:%s names no native "
			    "argument; it takes the value of native argument #%u by position",
			    x, ctx->prov->name, pr->name, (unsigned)pr->argmap[i] + 1);
	}
}

/* Name and limit checks; false after reporting. */
static bool
check_probe_names(struct parse_ctx *ctx, const char *name, const char *dof_name,
    parse_loc_t loc)
{
	char *func = parse_take(ctx, mdl_probe_func(ctx->prov->name, dof_name));
	bool ok = true;

	if (strlen(dof_name) >= MDL_NAMELEN) {
		diag_error(ctx->d, parse_src(loc), "D_PROBE_BADNAME",
		    "probe name '%s' is %zu characters long; DTrace allows at most %d",
		    dof_name, strlen(dof_name), MDL_NAMELEN - 1);
		ok = false;
	}
	if (strlen(func) >= MDL_FUNCNAMELEN) {
		diag_error(ctx->d, parse_src(loc), "D_PROBE_FUNCLEN",
		    "the function of probe %s:%s, %s, is %zu characters long; "
		    "DTrace allows function names of at most %d",
		    ctx->prov->name, name, func, strlen(func), MDL_FUNCNAMELEN - 1);
		ok = false;
	}
	return ok;
}

static void
remember_probe(struct parse_ctx *ctx, mdl_probe_t *pr)
{
	struct new_probe *np = parse_keep_alloc(ctx, sizeof(*np));

	np->prov = ctx->prov;
	np->probe = pr;
	if (ctx->probes_tail != NULL)
		ctx->probes_tail->next = np;
	else
		ctx->probes = np;
	ctx->probes_tail = np;
}

void
parse_probe(struct parse_ctx *ctx, const char *name, parse_loc_t loc,
    struct plist *nargs, struct plist *xargs)
{
	mdl_provider_t *p = ctx->prov;
	char *dof_name = parse_take(ctx, mdl_dof_probe_name(name));
	bool ok;
	size_t old;
	mdl_probe_t *pr;

	if (p == NULL)
		return;
	ok = check_probe_names(ctx, name, dof_name, loc);
	ok = check_void(ctx, nargs) && ok;
	ok = check_count(ctx, nargs, "native", name) && ok;
	if (xargs != NULL) {
		ok = check_void(ctx, xargs) && ok;
		ok = check_count(ctx, xargs, "translated", name) && ok;
	}
	/* Translated lists repeat names on purpose: (conninfo_t *p, reqinfo_t *p). */
	if (ok)
		check_duplicate_names(ctx, nargs, name);
	if ((old = mdl_provider_find_dof_probe(p, dof_name)) != (size_t)-1 &&
	    redeclared(ctx, p->probes[old], old, name, loc, nargs, xargs, &ok))
		return;
	if (!ok)
		return;
	if ((pr = mdl_provider_add_probe(p, name, parse_src(loc))) == NULL)
		parse_nomem(ctx);
	add_args(ctx, pr, nargs, false);
	if (xargs != NULL) {
		add_args(ctx, pr, xargs, true);
		pr->translated = true;
	}
	if (mdl_probe_finish_args(pr) != 0)
		parse_nomem(ctx);
	for (size_t i = 0; i < pr->xargc; i++) {
		if (pr->argmap[i] >= pr->nargc) {
			diag_error(ctx->d, mdl_arg_loc(pr, &pr->xargs[i]), "D_PROV_PRXLATOR",
			    "translated argument #%zu of probe %s:%s has no native "
			    "argument to take its value from", i + 1, p->name, name);
			return;
		}
	}
	check_xarg_names(ctx, pr);
	remember_probe(ctx, pr);
}

void
parse_probe_done(struct parse_ctx *ctx, parse_loc_t semi)
{
	if (ctx->tok_loc.first_line == semi.first_line &&
	    ctx->tok_loc.first_column == semi.first_column && ctx->tok_loc.file == semi.file)
		parse_release(ctx, ctx->probe_mark);
}
