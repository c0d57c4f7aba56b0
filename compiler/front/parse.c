/*
 * parse.c - reading definition files into the model: entry points and the
 * meaning of what the grammar recognises.
 *
 * The front end in stages, each its own file: lexer.l (tokens, control
 * lines handed on), parser.y (the grammar), parse_pragma.c (control lines:
 * line markers, #pragma D), parse_layout.c (types, struct and union
 * layout), and this file: the model built from providers and probes, the
 * checks that need the whole file, the arena.  parse_int.h is what they
 * share.
 *
 * parse_text and parse_buffer (parse.h) take the bytes of a definition,
 * set up one parse_ctx, run the grammar (lexer.l, parser.y) and then finish
 * what needs the whole file: `#pragma D attributes` may come before or after
 * its provider, and a translator may be declared after the probe that needs
 * it, so both are settled once the file has been read.  The program reads
 * files and runs cpp (usdtc/source.c); with -C the text is cpp's output and
 * its line markers put every location back on the user's file.
 *
 * The checks are DTrace's, with DTrace's tags where DTrace has one:
 *
 *   D_SYNTAX, D_STR_NL, D_CHR_NL     the grammar and the lexer
 *   D_UNTERMINATED_COMMENT           a comment still open at the end
 *   D_PROV_BADNAME                   provider name too long or ending in a digit
 *   D_PROBE_BADNAME                  probe name too long (after __ -> -)
 *   D_PROBE_FUNCLEN                  __dtrace_P___N too long for DOF
 *   D_PROV_PRDUP                     a probe declared twice in one provider body
 *   D_PROV_INCOMPAT                  a probe redeclared with other arguments
 *   D_PROV_PRARGLEN                  more than 255 arguments
 *   D_PROBE_VOID                     void that is not the only, unnamed parameter
 *   D_PROV_PRXLATOR                  a translated argument nothing can produce
 *   D_PROBE_BYVALUE                  a long double passed by value
 *   D_PRAGMA_MALFORM                 #line not understood
 *   D_CPP, D_IO, D_NOMEM             running cpp, reading the file, memory
 *
 * Warnings (exit 0, output unchanged).  What real Linux files contain and
 * SystemTap's dtrace accepted, which DTrace rejects:
 *
 *   D_PROV_SEMICOLON                 a provider body without its ';'
 *   D_PRAGMA_MALFORM, D_PRAGMA_INVAL a #pragma D attributes line not
 *                                    understood, ignored
 *   D_PROBE_BYVALUE                  a struct or union by value that no
 *                                    register holds, taken for a pointer
 *                                    (Oracle's dtrace -G accepts it too)
 *
 * and what usdtc accepted silently where DTrace would have said something:
 *
 *   D_PROV_NOKEYWORD                 probes in a D clause: 'provider' missing
 *   D_PREPROC                        cpp directives without -C (once a file)
 *   D_PROBE_ARGDUP                   a native parameter name used twice
 *   D_PROV_XARGNAME                  a translated name matching no native one
 *   D_TYPE_UNKNOWN                   a native argument's type names nothing known
 *   D_PRAGMA_UNKNOWN                 an unknown #pragma D directive, ignored
 *   D_PRAGMA_NOPROV                  attributes for a provider never declared
 *
 * Every string and value of one parse lives in an arena freed at the end;
 * running out of memory abandons the parse through ctx->fatal, after one
 * D_NOMEM diagnostic.
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

/* ---- the arena ---------------------------------------------------------- */

#define ARENA_BLOCK	16384

struct arena_block {
	struct arena_block *next;
	size_t used, cap;
	alignas(max_align_t) unsigned char data[];
};

_Noreturn void
parse_nomem(struct parse_ctx *ctx)
{
	src_loc_t nowhere = { NULL, 0, 0 };

	diag_error(ctx->d, nowhere, "D_NOMEM", "out of memory while reading %s",
	    ctx->main_file);
	longjmp(ctx->fatal, 1);
}

void *
parse_alloc(struct parse_ctx *ctx, size_t size)
{
	struct arena_block *b = ctx->arena;
	void *p;

	size = (size + alignof(max_align_t) - 1) & ~(alignof(max_align_t) - 1);
	if (b == NULL || b->cap - b->used < size) {
		size_t cap = size > ARENA_BLOCK ? size : ARENA_BLOCK;

		if ((b = malloc(sizeof(*b) + cap)) == NULL)
			parse_nomem(ctx);
		b->used = 0;
		b->cap = cap;
		b->next = ctx->arena;
		ctx->arena = b;
	}
	p = b->data + b->used;
	b->used += size;
	memset(p, 0, size);
	return p;
}

char *
parse_strndup(struct parse_ctx *ctx, const char *s, size_t n)
{
	char *p = parse_alloc(ctx, n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *
parse_strdup(struct parse_ctx *ctx, const char *s)
{
	return parse_strndup(ctx, s, strlen(s));
}

char *
parse_join(struct parse_ctx *ctx, const char *a, const char *sep, const char *b)
{
	size_t na = strlen(a), ns = strlen(sep), nb = strlen(b);
	char *p;

	if (nb == 0)
		return parse_strndup(ctx, a, na);
	if (na == 0)
		ns = 0;
	p = parse_alloc(ctx, na + ns + nb + 1);
	memcpy(p, a, na);
	memcpy(p + na, sep, ns);
	memcpy(p + na + ns, b, nb);
	return p;
}

struct ptext *
ptext_new(struct parse_ctx *ctx)
{
	return parse_alloc(ctx, sizeof(struct ptext));
}

/*
 * The old room is left in the arena when the text moves: the rooms double,
 * so what is left behind is less than the text's final room.
 */
void
ptext_append(struct parse_ctx *ctx, struct ptext *t, const char *s, size_t n)
{
	if (t->cap - t->len <= n) {
		size_t cap = t->cap ? t->cap : 32;
		char *p;

		while (cap - t->len <= n) {
			if (cap > SIZE_MAX / 2)
				parse_nomem(ctx);
			cap *= 2;
		}
		p = parse_alloc(ctx, cap);
		if (t->len > 0)
			memcpy(p, t->s, t->len);
		t->s = p;
		t->cap = cap;
	}
	if (n > 0)
		memcpy(t->s + t->len, s, n);
	t->len += n;
	t->s[t->len] = '\0';
}

void
ptext_word(struct parse_ctx *ctx, struct ptext *t, const char *w)
{
	size_t n = strlen(w);

	if (n == 0)
		return;
	if (t->len > 0 && !t->glue)
		ptext_append(ctx, t, " ", 1);
	t->glue = false;
	ptext_append(ctx, t, w, n);
}

const char *
ptext_str(const struct ptext *t)
{
	return t->len > 0 ? t->s : "";
}

/* Append n bytes to ctx->ptrs, doubling its room as needed. */
static void
pointer_append(struct parse_ctx *ctx, const char *s, size_t n)
{
	if (ctx->ptrs_cap - ctx->ptrs_len <= n) {
		size_t cap = ctx->ptrs_cap ? ctx->ptrs_cap : 64;
		char *p;

		while (cap - ctx->ptrs_len <= n)
			cap *= 2;
		if ((p = realloc(ctx->ptrs, cap)) == NULL)
			parse_nomem(ctx);
		ctx->ptrs = p;
		ctx->ptrs_cap = cap;
	}
	memcpy(ctx->ptrs + ctx->ptrs_len, s, n);
	ctx->ptrs_len += n;
	ctx->ptrs[ctx->ptrs_len] = '\0';
}

void
parse_pointer_star(struct parse_ctx *ctx, bool first, const char *quals)
{
	if (first)
		ctx->ptrs_len = 0;
	pointer_append(ctx, "*", 1);
	if (quals[0] != '\0') {
		pointer_append(ctx, " ", 1);
		pointer_append(ctx, quals, strlen(quals));
	}
}

char *
parse_pointer_text(struct parse_ctx *ctx)
{
	return parse_strndup(ctx, ctx->ptrs != NULL ? ctx->ptrs : "", ctx->ptrs_len);
}

static void
arena_free(struct parse_ctx *ctx)
{
	while (ctx->arena != NULL) {
		struct arena_block *next = ctx->arena->next;

		free(ctx->arena);
		ctx->arena = next;
	}
}

/* A model string (malloc'd by the model layer) copied into the arena. */
char *
parse_take(struct parse_ctx *ctx, char *s)
{
	char *copy;

	if (s == NULL)
		parse_nomem(ctx);
	copy = parse_strdup(ctx, s);
	free(s);
	return copy;
}

/* ---- locations and the construct stack ---------------------------------- */

src_loc_t
parse_src(parse_loc_t l)
{
	src_loc_t s = { l.file, l.first_line, l.first_column };
	return s;
}

src_loc_t
parse_src_after(parse_loc_t l)
{
	src_loc_t s = { l.file, l.last_line, l.last_column + 1 };
	return s;
}

void
parse_open(struct parse_ctx *ctx, const char *what, int closer, parse_loc_t loc)
{
	if (ctx->nopen < PARSE_MAX_OPEN) {
		ctx->open[ctx->nopen].what = what;
		ctx->open[ctx->nopen].closer = closer;
		ctx->open[ctx->nopen].loc = loc;
	}
	ctx->nopen++;
}

void
parse_close(struct parse_ctx *ctx)
{
	if (ctx->nopen > 0)
		ctx->nopen--;
}

/* ---- providers and probes ---------------------------------------------------- */
void
parse_translator(struct parse_ctx *ctx, struct ctype *out, struct cdecl *outd,
    struct ctype *in, struct cdecl *ind, parse_loc_t loc)
{
	if (model_add_translator(ctx->m, parse_decl_type(ctx, out, outd),
	    parse_decl_type(ctx, in, ind), parse_src(loc)) != 0)
		parse_nomem(ctx);
}


struct new_probe {
	mdl_provider_t *prov;
	mdl_probe_t *probe;
	struct new_probe *next;
};

void
parse_provider_begin(struct parse_ctx *ctx, const char *name, parse_loc_t loc)
{
	size_t len = strlen(name);
	mdl_provider_t *p;

	if (len >= USDT_PROVNAMELEN)
		diag_error(ctx->d, parse_src(loc), "D_PROV_BADNAME",
		    "provider name '%s' is %zu characters long; DTrace allows at most %d",
		    name, len, USDT_PROVNAMELEN - 1);
	else if (len > 0 && isdigit((unsigned char)name[len - 1]))
		diag_error(ctx->d, parse_src(loc), "D_PROV_BADNAME",
		    "provider name '%s' ends with a digit, which DTrace does not allow: "
		    "it appends a process ID to provider names", name);
	if ((p = model_find_provider(ctx->m, name)) == NULL &&
	    (p = model_add_provider(ctx->m, name, parse_src(loc))) == NULL)
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

static void
missing_semicolon(struct parse_ctx *ctx)
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
			missing_semicolon(ctx);
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

	if (l->n <= USDT_MAXARGS)
		return true;
	for (int i = 0; i < USDT_MAXARGS; i++)
		p = p->next;
	diag_error(ctx->d, parse_src(p->loc), "D_PROV_PRARGLEN",
	    "probe '%s' has %zu %s arguments; DOF allows at most %d",
	    probe, l->n, what, USDT_MAXARGS);
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
		    probe_add_xlated_arg(pr, a->type, a->name, parse_src(a->loc)) :
		    probe_add_native_arg(pr, a->type, a->name, parse_src(a->loc));

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
			diag_warning(ctx->d, pr->xargs[i].loc, "D_PROV_XARGNAME",
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

	if (strlen(dof_name) >= USDT_NAMELEN) {
		diag_error(ctx->d, parse_src(loc), "D_PROBE_BADNAME",
		    "probe name '%s' is %zu characters long; DTrace allows at most %d",
		    dof_name, strlen(dof_name), USDT_NAMELEN - 1);
		ok = false;
	}
	if (strlen(func) >= USDT_FUNCNAMELEN) {
		diag_error(ctx->d, parse_src(loc), "D_PROBE_FUNCLEN",
		    "the function of probe %s:%s, %s, is %zu characters long; "
		    "DTrace allows function names of at most %d",
		    ctx->prov->name, name, func, strlen(func), USDT_FUNCNAMELEN - 1);
		ok = false;
	}
	return ok;
}

static void
remember_probe(struct parse_ctx *ctx, mdl_probe_t *pr)
{
	struct new_probe *np = parse_alloc(ctx, sizeof(*np));

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
	if ((old = provider_find_dof_probe(p, dof_name)) != (size_t)-1 &&
	    redeclared(ctx, p->probes[old], old, name, loc, nargs, xargs, &ok))
		return;
	if (!ok)
		return;
	if ((pr = provider_add_probe(p, name, parse_src(loc))) == NULL)
		parse_nomem(ctx);
	add_args(ctx, pr, nargs, false);
	if (xargs != NULL) {
		add_args(ctx, pr, xargs, true);
		pr->translated = true;
	}
	if (probe_finish_args(pr) != 0)
		parse_nomem(ctx);
	for (size_t i = 0; i < pr->xargc; i++) {
		if (pr->argmap[i] >= pr->nargc) {
			diag_error(ctx->d, pr->xargs[i].loc, "D_PROV_PRXLATOR",
			    "translated argument #%zu of probe %s:%s has no native "
			    "argument to take its value from", i + 1, p->name, name);
			return;
		}
	}
	check_xarg_names(ctx, pr);
	remember_probe(ctx, pr);
}

/* ---- after the whole file: translators and attributes ------------------------ */

static bool
is_pointer(const char *canon)
{
	return strpbrk(canon, "*[") != NULL;
}

static bool
is_string_like(const char *canon)
{
	return strcmp(canon, "string") == 0 || strcmp(canon, "char *") == 0;
}

/* Split a canonical type into its base and its pointer/array part. */
static void
split_type(struct parse_ctx *ctx, const char *canon, char **basep, const char **suffixp)
{
	size_t n = strcspn(canon, "*[(");

	*suffixp = canon + n;
	while (n > 0 && canon[n - 1] == ' ')
		n--;
	*basep = parse_strndup(ctx, canon, n);
}

/*
 * CTF's idea of two types being the same (ctf_type_compat), which DTrace
 * applies to the types pointers point to and to structs passed by value:
 * the same kind and name, where every untagged struct has the same (empty)
 * name, and for structs and unions the same size.  So two typedefs of
 * different untagged structs of one size are compatible, which is what
 * lets a provider declare "bogus definitions" of its translated types
 * instead of translators (node's node_provider.d does).  Integers are
 * compatible when their size and sign agree.
 */
static bool
same_base(struct parse_ctx *ctx, const char *a, const char *b)
{
	bool a_struct = parse_starts_with(a, "struct "), b_struct = parse_starts_with(b, "struct ");
	mdl_typeinfo_t ta, tb;

	if (strcmp(a, b) == 0)
		return true;
	if ((a_struct || parse_starts_with(a, "union ")) && (b_struct || parse_starts_with(b, "union "))) {
		const mdl_tagged_t *sa = model_find_tagged(ctx->m, a);
		const mdl_tagged_t *sb = model_find_tagged(ctx->m, b);

		return a_struct == b_struct && strstr(a, " __anon") != NULL &&
		    strstr(b, " __anon") != NULL && sa != NULL && sb != NULL &&
		    sa->complete && sb->complete && sa->size == sb->size;
	}
	if (strcmp(a, "string") == 0 || strcmp(b, "string") == 0)
		return false;
	ta = model_type_info(ctx->m, a);
	tb = model_type_info(ctx->m, b);
	return ta.known && tb.known && ta.tclass == USDT_TC_INTEGER &&
	    tb.tclass == USDT_TC_INTEGER && ta.size == tb.size &&
	    ta.is_signed == tb.is_signed;
}

/*
 * Whether a native value of type n can stand for translated type x with no
 * translator, as DTrace's dt_node_is_argcompat decides: both integers; both
 * strings; void * and any other pointer; pointers to compatible types; and
 * compatible structs by value (same_base).
 */
static bool
compatible(struct parse_ctx *ctx, const char *n, const char *x)
{
	char *cn = parse_canonical_type(ctx, n), *cx = parse_canonical_type(ctx, x), *nb, *xb;
	const char *ns, *xs;
	mdl_typeinfo_t tn, tx;

	if (strcmp(cn, cx) == 0)
		return true;
	if (is_string_like(cn) && is_string_like(cx))
		return true;
	if ((strcmp(cn, "void *") == 0 && is_pointer(cx)) ||
	    (strcmp(cx, "void *") == 0 && is_pointer(cn)))
		return true;
	split_type(ctx, cn, &nb, &ns);
	split_type(ctx, cx, &xb, &xs);
	if (strcmp(ns, xs) == 0 && (ns[0] != '\0' || parse_starts_with(nb, "struct ") ||
	    parse_starts_with(nb, "union ")))
		return same_base(ctx, nb, xb);
	if (is_pointer(cn) || is_pointer(cx) ||
	    strcmp(cn, "string") == 0 || strcmp(cx, "string") == 0)
		return false;
	tn = model_type_info(ctx->m, cn);
	tx = model_type_info(ctx->m, cx);
	return tn.known && tx.known && tn.tclass == USDT_TC_INTEGER &&
	    tx.tclass == USDT_TC_INTEGER;
}

/*
 * Whether a translator turns native type n into x.  A translator's output
 * is a struct type; a translated argument may be a pointer to it.
 */
static bool
have_translator(struct parse_ctx *ctx, const char *n, const char *x)
{
	char *cx = parse_canonical_type(ctx, x);

	for (size_t i = 0; i < ctx->m->ntranslators; i++) {
		const mdl_translator_t *t = &ctx->m->translators[i];
		char *out = parse_canonical_type(ctx, t->out_type);
		bool out_ok = strcmp(out, cx) == 0 ||
		    strcmp(parse_join(ctx, out, " ", "*"), cx) == 0;

		if (out_ok && compatible(ctx, t->in_type, n))
			return true;
	}
	return false;
}

/* "conninfo_t *" -> "conninfo_t": what a translator's output would be. */
static char *
translator_output(struct parse_ctx *ctx, const char *x)
{
	size_t n = strlen(x);

	if (n > 2 && strcmp(x + n - 2, " *") == 0)
		return parse_strndup(ctx, x, n - 2);
	return parse_strdup(ctx, x);
}

static void
check_translators(struct parse_ctx *ctx)
{
	for (struct new_probe *np = ctx->probes; np != NULL; np = np->next) {
		mdl_probe_t *pr = np->probe;

		if (!pr->translated)
			continue;
		for (size_t i = 0; i < pr->xargc; i++) {
			const char *n = pr->nargs[pr->argmap[i]].type;
			const char *x = pr->xargs[i].type;

			if (compatible(ctx, n, x) || have_translator(ctx, n, x))
				continue;
			diag_error(ctx->d, pr->xargs[i].loc, "D_PROV_PRXLATOR",
			    "no translator from '%s' to '%s' for translated argument #%zu "
			    "of probe %s:%s; declare one as 'translator %s < %s NAME > { ... };'",
			    n, x, i + 1, np->prov->name, pr->name,
			    translator_output(ctx, x), n);
		}
	}
}

/*
 * Why a native argument of canonical type c cannot be described where the
 * ABI passes it, or NULL.  A stapsdt argument is one scalar in one place
 * (a register or a stack slot) and a DOF argument a 64-bit value, so an
 * aggregate passed by value can only be described when it fits one
 * general register: at most 8 bytes, no floating member (which would send
 * it to an SSE register on x86_64, a SIMD one on AArch64).  Larger ones
 * travel in two registers (9 to 16 bytes) or are copied to the stack
 * (x86_64) or passed by hidden reference (AArch64); the note's old
 * `8@8(%rsp)` read eight bytes of something else.
 */
static const char *
by_value_problem(struct parse_ctx *ctx, const char *c, char *why, size_t size)
{
	const mdl_tagged_t *tg;

	if (strpbrk(c, "*[(") != NULL)
		return NULL;
	if (strcmp(c, "long double") == 0)
		return "a long double is passed in memory";
	if (!parse_starts_with(c, "struct ") && !parse_starts_with(c, "union "))
		return NULL;
	tg = model_find_tagged(ctx->m, c);
	if (tg == NULL || !tg->complete)
		snprintf(why, size, "'%s' has no known size", c);
	else if (tg->has_float)
		snprintf(why, size, "'%s' has a floating member and travels in "
		    "floating-point registers", c);
	else if (tg->size > 16)
		snprintf(why, size, "'%s' is %u bytes, which the ABI copies to "
		    "the stack", c, tg->size);
	else if (tg->size > 8)
		snprintf(why, size, "'%s' is %u bytes, which the ABI splits "
		    "between two registers", c, tg->size);
	else
		return NULL;
	return why;
}

/*
 * A native argument's type that names nothing we know: not C's, not one
 * DTrace predefines (model.c), not a typedef, struct, union or enum of the
 * file.  DTrace rejects it; SystemTap's dtrace copied it into the header.
 * usdtc copies it too, and reads the value as 8 unsigned bytes.
 */
static void
check_known_types(struct parse_ctx *ctx)
{
	for (struct new_probe *np = ctx->probes; np != NULL; np = np->next) {
		mdl_probe_t *pr = np->probe;

		for (size_t i = 0; i < pr->nargc; i++) {
			char *base;
			const char *suffix;

			split_type(ctx, parse_canonical_type(ctx, pr->nargs[i].type), &base, &suffix);
			if (parse_starts_with(base, "struct ") || parse_starts_with(base, "union ") ||
			    parse_starts_with(base, "enum ") || model_type_info(ctx->m, base).known)
				continue;
			diag_warning(ctx->d, pr->nargs[i].loc, "D_TYPE_UNKNOWN",
			    "unknown type name '%s' in argument #%zu of probe %s:%s; "
			    "the header names it as written, so the C program must "
			    "declare it", base, i + 1,
			    np->prov->name, pr->name);
		}
	}
}

/* `TYPE *`, in place of arg's type; false when out of memory. */
static bool
arg_to_pointer(mdl_arg_t *arg)
{
	size_t n = strlen(arg->type);
	char *t = malloc(n + 3);

	if (t == NULL)
		return false;
	memcpy(t, arg->type, n);
	memcpy(t + n, " *", 3);
	free(arg->type);
	arg->type = t;
	return true;
}

/*
 * Structs and unions by value that no register holds whole (one of unknown
 * size, over 8 bytes, or with a floating member): the files SystemTap's and
 * Oracle's dtrace accept, whose programs pass a pointer (SystemTap's own
 * test providers declare `probe test_probe_4(struct astruct arg)`).  So it
 * is a warning, and the argument is taken for what the program passes, a
 * pointer to the type: `struct astruct *` in the header (a uintptr_t that
 * takes any pointer), the note (8 bytes, where a pointer lies) and the DOF
 * (the native and the untranslated type), the output of the same file
 * with `struct astruct *` written.  A long double by value is no pointer
 * and still refused.
 */
static void
check_by_value(struct parse_ctx *ctx)
{
	char why[300];
	strbuf_t who;	/* "argument #N 'name' of probe P:N", for both messages */

	for (struct new_probe *np = ctx->probes; np != NULL; np = np->next) {
		mdl_probe_t *pr = np->probe;

		for (size_t i = 0; i < pr->nargc; i++) {
			mdl_arg_t *a = &pr->nargs[i];
			const char *w = by_value_problem(ctx,
			    parse_canonical_type(ctx, a->type), why, sizeof(why));

			if (w == NULL)
				continue;
			sb_init(&who);
			sb_printf(&who, "argument #%zu%s%s%s of probe %s:%s", i + 1,
			    a->name != NULL ? " '" : "", a->name != NULL ? a->name : "",
			    a->name != NULL ? "'" : "", np->prov->name, pr->name);
			if (who.failed) {
				sb_free(&who);
				parse_nomem(ctx);
			}
			if (w != why)
				diag_error(ctx->d, a->loc, "D_PROBE_BYVALUE",
				    "%s is passed by value, and no probe argument can "
				    "describe it: %s; pass a pointer ('%s *') instead",
				    who.data, w, a->type);
			else
				diag_warning(ctx->d, a->loc, "D_PROBE_BYVALUE",
				    "%s is declared by value, which no probe argument can "
				    "describe: %s; it is taken for the pointer a program "
				    "passes, '%s *'", who.data, w, a->type);
			sb_free(&who);
			if (w != why)
				continue;
			if (!arg_to_pointer(a) ||
			    (!pr->translated && i < pr->xargc && !arg_to_pointer(&pr->xargs[i])))
				parse_nomem(ctx);
		}
	}
}

/* ---- entry points -------------------------------------------------------------- */

void
parse_text(mdl_model_t *m, diag_t *d, const char *file, const char *text,
    size_t len, bool from_cpp)
{
	struct parse_ctx *ctx = calloc(1, sizeof(*ctx));
	src_loc_t whole = { file, 0, 0 };

	if (ctx == NULL) {
		diag_error(d, whole, "D_NOMEM", "out of memory");
		return;
	}
	ctx->m = m;
	ctx->d = d;
	ctx->main_file = file;
	ctx->from_cpp = from_cpp;
	ctx->text = text;
	ctx->len = len;
	ctx->cur_file = file;
	ctx->line = 1;
	ctx->col = 1;
	if (setjmp(ctx->fatal) == 0) {
		if (lexer_run(ctx) == 0) {
			if (ctx->want_semicolon)
				missing_semicolon(ctx);
			parse_apply_attributes(ctx);
			check_translators(ctx);
			check_by_value(ctx);
			check_known_types(ctx);
		}
	}
	d->nincl = 0;		/* the chain lives in ctx */
	lexer_free(ctx);
	arena_free(ctx);
	free(ctx->ptrs);
	free(ctx);
}

int
parse_buffer(mdl_model_t *m, const char *name, const char *text, size_t len)
{
	src_loc_t run = { NULL, 0, 0 };
	const char *file = model_intern_file(m, name);
	diag_t d;
	int errors;

	diag_init(&d);
	if (file == NULL || diag_add_text(&d, file, text, len) != 0)
		diag_error(&d, run, "D_NOMEM", "out of memory");
	else
		parse_text(m, &d, file, text, len, false);
	errors = d.nerrors;
	diag_fini(&d);
	return errors;
}
