/*
 * parse.c - reading definition files into the model: entry points and the
 * meaning of what the grammar recognises.
 *
 * The front end in stages, each its own file: lexer.l (tokens, control
 * lines handed on), parser.y (the grammar), parse_pragma.c (control lines:
 * line markers, #pragma D), parse_layout.c (types, struct and union
 * layout), parse_decl.c (the model built from providers and probes),
 * parse_ctx.c (the arena, text pieces, locations: the bottom every other
 * file calls), and this file: the entry points and the checks that need
 * the whole file.  parse_int.h is what they share.
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
 *   D_TOO_MANY                       more than DIAG_MAX_ERRORS errors: the
 *                                    parse stops (diag.h)
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
 * D_NOMEM diagnostic, and so does an error past diag.h's limit
 * (D_TOO_MANY).
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
		const mdl_tagged_t *sa = mdl_find_tagged(ctx->m, a);
		const mdl_tagged_t *sb = mdl_find_tagged(ctx->m, b);

		return a_struct == b_struct && strstr(a, " __anon") != NULL &&
		    strstr(b, " __anon") != NULL && sa != NULL && sb != NULL &&
		    sa->complete && sb->complete && sa->size == sb->size;
	}
	if (strcmp(a, "string") == 0 || strcmp(b, "string") == 0)
		return false;
	ta = mdl_type_info(ctx->m, a);
	tb = mdl_type_info(ctx->m, b);
	return ta.known && tb.known && ta.tclass == MDL_TC_INTEGER &&
	    tb.tclass == MDL_TC_INTEGER && ta.size == tb.size &&
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
	tn = mdl_type_info(ctx->m, cn);
	tx = mdl_type_info(ctx->m, cx);
	return tn.known && tx.known && tn.tclass == MDL_TC_INTEGER &&
	    tx.tclass == MDL_TC_INTEGER;
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
			diag_error(ctx->d, mdl_arg_loc(pr, &pr->xargs[i]), "D_PROV_PRXLATOR",
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
	tg = mdl_find_tagged(ctx->m, c);
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
			    parse_starts_with(base, "enum ") || mdl_type_info(ctx->m, base).known)
				continue;
			diag_warning(ctx->d, mdl_arg_loc(pr, &pr->nargs[i]), "D_TYPE_UNKNOWN",
			    "unknown type name '%s' in argument #%zu of probe %s:%s; "
			    "the header names it as written, so the C program must "
			    "declare it", base, i + 1,
			    np->prov->name, pr->name);
		}
	}
}

/* `TYPE *` in place of argument i's type (of the translated list if xlated); false on ENOMEM. */
static bool
arg_to_pointer(mdl_probe_t *pr, bool xlated, size_t i)
{
	strbuf_t t;
	bool ok;

	sb_init(&t);
	sb_printf(&t, "%s *", (xlated ? pr->xargs : pr->nargs)[i].type);
	ok = !t.failed && mdl_probe_set_arg_type(pr, xlated, i, t.data) == 0;
	sb_free(&t);
	return ok;
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
				diag_error(ctx->d, mdl_arg_loc(pr, a), "D_PROBE_BYVALUE",
				    "%s is passed by value, and no probe argument can "
				    "describe it: %s; pass a pointer ('%s *') instead",
				    who.data, w, a->type);
			else
				diag_warning(ctx->d, mdl_arg_loc(pr, a), "D_PROBE_BYVALUE",
				    "%s is declared by value, which no probe argument can "
				    "describe: %s; it is taken for the pointer a program "
				    "passes, '%s *'", who.data, w, a->type);
			sb_free(&who);
			if (w != why)
				continue;
			if (!arg_to_pointer(pr, false, i) ||
			    (!pr->translated && pr->xargs != pr->nargs && i < pr->xargc &&
			    !arg_to_pointer(pr, true, i)))
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
	d->stop = &ctx->fatal;	/* too many errors end the parse too */
	if (setjmp(ctx->fatal) == 0) {
		if (lexer_run(ctx) == 0) {
			if (ctx->want_semicolon)
				parse_missing_semicolon(ctx);
			parse_apply_attributes(ctx);
			check_translators(ctx);
			check_by_value(ctx);
			check_known_types(ctx);
		}
	}
	d->stop = NULL;
	d->nincl = 0;		/* the chain lives in ctx */
	lexer_free(ctx);
	parse_canon_free(ctx);
	parse_arena_free(ctx);
	free(ctx->ptrs);
	free(ctx);
}

int
parse_buffer(mdl_model_t *m, const char *name, const char *text, size_t len)
{
	src_loc_t run = { NULL, 0, 0 };
	const char *file = mdl_intern_file(m, name);
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
