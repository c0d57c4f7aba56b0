/*
 * parse_layout.c - the front end's types: the spelling types are compared
 * by, and the size and alignment of the struct and union bodies a
 * definition file writes.
 *
 * A probe argument passed by value must fit what a tracer reads, so its
 * size matters (parse.c: D_PROBE_BYVALUE), and two declarations of one
 * probe agree when their types do under typedefs and qualifiers.
 * Struct and union bodies are laid out as the x86_64 System V ABI does
 * (LP64, bit-fields in units of their declared type), so that a struct
 * passed by value has a size; a member whose size we cannot know makes the
 * whole struct's size unknown (recorded as incomplete), never a guess.
 *
 * Like the rest of the front end it allocates from the parse's arena
 * (parse.c) and reports through ctx->d.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "parse_int.h"

/* ---- types ------------------------------------------------------------------ */

struct ctype *
parse_ctype(struct parse_ctx *ctx, const char *text)
{
	struct ctype *t = parse_alloc(ctx, sizeof(*t));

	t->text = parse_strdup(ctx, text);
	return t;
}

char *
parse_decl_type(struct parse_ctx *ctx, const struct ctype *t, const struct cdecl *d)
{
	return parse_join(ctx, t->text, " ", parse_ptext_str(&d->abs));
}

static bool
is_qualifier(const char *w, size_t n)
{
	return (n == 5 && strncmp(w, "const", 5) == 0) ||
	    (n == 8 && strncmp(w, "volatile", 8) == 0) ||
	    (n == 8 && strncmp(w, "restrict", 8) == 0) ||
	    (n == 10 && strncmp(w, "__restrict", 10) == 0) ||
	    (n == 12 && strncmp(w, "__restrict__", 12) == 0);
}

/* The text with qualifier words removed (normalised again). */
static char *
drop_qualifiers(struct parse_ctx *ctx, const char *text)
{
	char *out = parse_alloc(ctx, strlen(text) + 1), *o = out;
	const char *p = text;

	while (*p != '\0') {
		size_t n = 0;

		while (isalnum((unsigned char)p[n]) || p[n] == '_' || p[n] == '$')
			n++;
		if (n > 0 && is_qualifier(p, n)) {
			p += n;
			continue;
		}
		if (n == 0)
			n = 1;
		memcpy(o, p, n);
		o += n;
		p += n;
	}
	*o = '\0';
	return parse_take(ctx, mdl_normalise_type(out));
}

/*
 * A spelling to compare types by: normalised, without qualifiers, the
 * leading typedef name replaced by what it names (repeatedly):
 * "const foo_t *" with `typedef struct foo foo_t` -> "struct foo *".
 */
static char *
canonical_type(struct parse_ctx *ctx, const char *text)
{
	char *t = drop_qualifiers(ctx, text);

	for (int depth = 0; depth < 16; depth++) {
		size_t base_len = strcspn(t, "*[(");
		const mdl_typedef_t *td;
		char *base;

		while (base_len > 0 && t[base_len - 1] == ' ')
			base_len--;
		base = parse_strndup(ctx, t, base_len);
		if (strchr(base, ' ') != NULL || (td = mdl_find_typedef(ctx->m, base)) == NULL)
			break;
		t = drop_qualifiers(ctx, parse_join(ctx, td->type, " ", t + base_len));
	}
	return t;
}

static bool
canon_text_is(const void *memo, size_t id, const void *key)
{
	return strcmp(((const struct canon_memo *)memo)->text[id], key) == 0;
}

/* Remember text's canonical spelling; nothing when out of memory (only a memo). */
static void
canon_put(struct parse_ctx *ctx, uint64_t h, const char *text, char *canon)
{
	struct canon_memo *c = &ctx->canon;

	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 16;
		const char **t = parse_keep_alloc(ctx, cap * sizeof(*t));
		char **k = parse_keep_alloc(ctx, cap * sizeof(*k));

		if (c->n > 0) {
			memcpy(t, c->text, c->n * sizeof(*t));
			memcpy(k, c->canon, c->n * sizeof(*k));
		}
		c->text = t;
		c->canon = k;
		c->cap = cap;
	}
	if (!idset_add(&c->ids, h, c->n))
		return;
	c->text[c->n] = parse_keep_strdup(ctx, text);
	c->canon[c->n++] = canon;
}

char *
parse_canonical_type(struct parse_ctx *ctx, const char *text)
{
	struct canon_memo *c = &ctx->canon;
	uint64_t h = hash_str(HASH_FNV_OFFSET, text);
	size_t id;
	char *t;

	if (c->ntypedefs != ctx->m->ntypedefs) {	/* a typedef was added */
		idset_free(&c->ids);
		idset_init(&c->ids);
		c->n = 0;
		c->ntypedefs = ctx->m->ntypedefs;
	}
	if ((id = idset_find(&c->ids, h, canon_text_is, c, text)) != IDSET_NONE)
		return c->canon[id];
	t = parse_keep_strdup(ctx, canonical_type(ctx, text));	/* outlives a declaration */
	canon_put(ctx, h, text, t);
	return t;
}

void
parse_canon_free(struct parse_ctx *ctx)
{
	idset_free(&ctx->canon.ids);
}

/* Size and alignment of a type on LP64; false if unknown. */
static bool
type_layout(struct parse_ctx *ctx, const char *text, int depth,
    unsigned *sizep, unsigned *alignp)
{
	char *c = parse_canonical_type(ctx, text);
	size_t len = strlen(c);
	char *bracket = strchr(c, '[');
	mdl_typeinfo_t ti;

	if (depth > 16 || len == 0)
		return false;
	if (strstr(c, "(*") != NULL || c[len - 1] == '*') {
		*sizep = *alignp = 8;
		return true;
	}
	if (bracket != NULL) {
		unsigned long long n = 1;
		unsigned esize, ealign;

		for (char *p = bracket; *p == '['; ) {
			char *end;
			unsigned long long d = strtoull(p + 1, &end, 0);

			while (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L')
				end++;
			/* Each product stays within 32 bits, so none wraps. */
			if (end == p + 1 || *end != ']' || d > 0xffffffffULL ||
			    (d != 0 && n > 0xffffffffULL / d))
				return false;
			n *= d;
			p = end + 1;
		}
		if (!type_layout(ctx, parse_strndup(ctx, c, (size_t)(bracket - c)),
		    depth + 1, &esize, &ealign) || n * esize > 0xffffffffULL)
			return false;
		*sizep = (unsigned)(n * esize);
		*alignp = ealign;
		return true;
	}
	if (parse_starts_with(c, "struct ") || parse_starts_with(c, "union ")) {
		const mdl_tagged_t *tg = mdl_find_tagged(ctx->m, c);

		if (tg == NULL || !tg->complete)
			return false;
		*sizep = tg->size;
		*alignp = tg->align;
		return true;
	}
	if (strcmp(c, "long double") == 0) {
		*sizep = *alignp = 16;
		return true;
	}
	ti = mdl_type_info(ctx->m, c);
	if (!ti.known || ti.tclass == MDL_TC_VOID || ti.size == 0)
		return false;
	*sizep = *alignp = ti.size;
	return true;
}

/* ---- struct and union layout ------------------------------------------------- */

struct layout {
	struct layout *outer;
	bool is_union;
	bool known;
	bool has_float;			/* a float, double or long double member */
	unsigned long long bits;	/* struct: bits used so far; union: largest member */
	unsigned align;
};

static unsigned long long
round_up(unsigned long long v, unsigned long long to)
{
	return to == 0 ? v : (v + to - 1) / to * to;
}

void
parse_layout_begin(struct parse_ctx *ctx, bool is_union)
{
	struct layout *l = parse_alloc(ctx, sizeof(*l));

	l->outer = ctx->layout;
	l->is_union = is_union;
	l->known = true;
	l->align = 1;
	ctx->layout = l;
}

/* A made-up tag for an untagged struct, union or enum (typedefs need one). */
static char *
anonymous_tag(struct parse_ctx *ctx, const char *kw)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%s __anon%zu", kw, ctx->m->ntagged);
	return parse_strdup(ctx, buf);
}

struct ctype *
parse_layout_end(struct parse_ctx *ctx, const char *kw, const char *tag)
{
	struct layout *l = ctx->layout;
	struct ctype *t;
	mdl_tagged_t *tg;
	unsigned long long size;

	if (l == NULL)
		return parse_ctype(ctx, kw);
	ctx->layout = l->outer;
	size = round_up((l->bits + 7) / 8, l->align);
	if (size > 0xffffffffULL)
		l->known = false;
	t = parse_ctype(ctx, tag != NULL ? parse_join(ctx, kw, " ", tag) : anonymous_tag(ctx, kw));
	t->has_layout = true;
	t->known = l->known;
	t->size = l->known ? (unsigned)size : 0;
	t->align = l->known ? l->align : 0;
	t->has_float = l->has_float;
	if ((tg = mdl_add_tagged(ctx->m, t->text, t->size, t->align, t->known)) == NULL)
		parse_nomem(ctx);
	tg->has_float = l->has_float;
	return t;
}

struct ctype *
parse_enum(struct parse_ctx *ctx, const char *tag)
{
	struct ctype *t = parse_ctype(ctx, tag != NULL ?
	    parse_join(ctx, "enum", " ", tag) : anonymous_tag(ctx, "enum"));

	t->has_layout = true;
	t->known = true;
	t->size = t->align = 4;
	if (mdl_add_tagged(ctx->m, t->text, 4, 4, true) == NULL)
		parse_nomem(ctx);
	return t;
}

/* Place a bit-field of width bits whose declared type is unit bytes. */
static void
place_bitfield(struct layout *l, unsigned unit, unsigned align, int bits, bool named)
{
	unsigned long long ubits = (unsigned long long)unit * 8;

	if ((unsigned long long)bits > ubits) {
		l->known = false;
		return;
	}
	if (l->is_union) {
		if (round_up((unsigned long long)bits, 8) > l->bits)
			l->bits = round_up((unsigned long long)bits, 8);
	} else if (bits == 0) {
		l->bits = round_up(l->bits, ubits);
	} else {
		if (l->bits / ubits != (l->bits + (unsigned)bits - 1) / ubits)
			l->bits = round_up(l->bits, ubits);
		l->bits += (unsigned)bits;
	}
	/* Unnamed bit-fields do not align the struct (System V ABI). */
	if (named && align > l->align)
		l->align = align;
}

static void
place_member(struct layout *l, unsigned long long size, unsigned align)
{
	if (l->is_union) {
		if (size * 8 > l->bits)
			l->bits = size * 8;
	} else {
		l->bits = (round_up((l->bits + 7) / 8, align) + size) * 8;
	}
	if (align > l->align)
		l->align = align;
}

static bool
is_anonymous(const struct ctype *t)
{
	return strstr(t->text, " __anon") != NULL &&
	    (parse_starts_with(t->text, "struct ") || parse_starts_with(t->text, "union "));
}

/* Whether a value of type t is, or holds, a floating value. */
static bool
is_floating(struct parse_ctx *ctx, const struct ctype *t)
{
	char *c;
	const mdl_tagged_t *tg;

	if (t->has_layout)
		return t->has_float;
	c = parse_canonical_type(ctx, t->text);
	if (strpbrk(c, "*(") != NULL)
		return false;
	if (parse_starts_with(c, "struct ") || parse_starts_with(c, "union "))
		return (tg = mdl_find_tagged(ctx->m, c)) != NULL && tg->has_float;
	return strcmp(c, "long double") == 0 ||
	    mdl_type_info(ctx->m, c).tclass == MDL_TC_FLOAT;
}

static void
add_member(struct parse_ctx *ctx, const struct ctype *t, const struct cdecl *d)
{
	struct layout *l = ctx->layout;
	unsigned size, align;

	if (l == NULL)
		return;
	if (d->name == NULL && d->bits < 0 && d->abs.len == 0 && !is_anonymous(t))
		return;		/* `struct foo { ... };` inside: declares a tag only */
	if (!d->pointer && is_floating(ctx, t))
		l->has_float = true;
	if (!l->known)
		return;
	if (d->bits == -2 || d->dim_unknown) {
		l->known = false;
		return;
	}
	if (d->pointer) {
		size = align = 8;
	} else if (t->has_layout) {
		if (!t->known) {
			l->known = false;
			return;
		}
		size = t->size;
		align = t->align;
	} else if (!type_layout(ctx, t->text, 0, &size, &align)) {
		l->known = false;
		return;
	}
	if (d->bits >= 0)
		place_bitfield(l, size, align, d->bits, d->name != NULL);
	else
		place_member(l, d->flexible ? 0 : (unsigned long long)size * d->nelem, align);
}

void
parse_member(struct parse_ctx *ctx, struct ctype *t, struct dlist *decls)
{
	for (struct cdecl *d = decls->head; d != NULL; d = d->next)
		add_member(ctx, t, d);
}

void
parse_typedef(struct parse_ctx *ctx, struct ctype *t, struct dlist *decls)
{
	for (struct cdecl *d = decls->head; d != NULL; d = d->next) {
		if (d->name == NULL)
			continue;	/* `typedef struct foo { ... };` names nothing */
		if (mdl_add_typedef(ctx->m, d->name, parse_decl_type(ctx, t, d)) != 0)
			parse_nomem(ctx);
	}
}
