/*
 * parse_ctx.c - what every file of the front end shares: the arena that
 * holds every string and value of one parse, the pieces of text the
 * grammar builds (ptext, pointer text), locations and the construct stack.
 *
 * It is the bottom of the front end: lexer.l, parser.y, parse_decl.c,
 * parse_layout.c, parse_pragma.c and parse.c call it, and it calls none of
 * them, so no file calls back up into the one that runs the parse.
 * Running out of memory abandons the parse through ctx->fatal, after one
 * D_NOMEM diagnostic (parse_nomem).
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

/* size bytes, zeroed, from the arena whose newest block is *list. */
static void *
arena_alloc(struct parse_ctx *ctx, struct arena_block **list, size_t size)
{
	struct arena_block *b = *list;
	void *p;

	size = (size + alignof(max_align_t) - 1) & ~(alignof(max_align_t) - 1);
	if (b == NULL || b->cap - b->used < size) {
		size_t cap = size > ARENA_BLOCK ? size : ARENA_BLOCK;

		if ((b = malloc(sizeof(*b) + cap)) == NULL)
			parse_nomem(ctx);
		b->used = 0;
		b->cap = cap;
		b->next = *list;
		*list = b;
	}
	p = b->data + b->used;
	b->used += size;
	memset(p, 0, size);
	return p;
}

void *
parse_alloc(struct parse_ctx *ctx, size_t size)
{
	return arena_alloc(ctx, &ctx->arena, size);
}

void *
parse_keep_alloc(struct parse_ctx *ctx, size_t size)
{
	return arena_alloc(ctx, &ctx->keep, size);
}

char *
parse_keep_strdup(struct parse_ctx *ctx, const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(parse_keep_alloc(ctx, n), s, n);
}

parse_mark_t
parse_mark(struct parse_ctx *ctx)
{
	return (parse_mark_t){ ctx->arena, ctx->arena != NULL ? ctx->arena->used : 0 };
}

void
parse_release(struct parse_ctx *ctx, parse_mark_t mark)
{
	while (ctx->arena != mark.block) {
		struct arena_block *next = ctx->arena->next;

		free(ctx->arena);
		ctx->arena = next;
	}
	if (ctx->arena != NULL)
		ctx->arena->used = mark.used;
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

struct parse_ptext *
parse_ptext_new(struct parse_ctx *ctx)
{
	return parse_alloc(ctx, sizeof(struct parse_ptext));
}

/*
 * The old room is left in the arena when the text moves: the rooms double,
 * so what is left behind is less than the text's final room.
 */
void
parse_ptext_append(struct parse_ctx *ctx, struct parse_ptext *t, const char *s, size_t n)
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
parse_ptext_word(struct parse_ctx *ctx, struct parse_ptext *t, const char *w)
{
	size_t n = strlen(w);

	if (n == 0)
		return;
	if (t->len > 0 && !t->glue)
		parse_ptext_append(ctx, t, " ", 1);
	t->glue = false;
	parse_ptext_append(ctx, t, w, n);
}

const char *
parse_ptext_str(const struct parse_ptext *t)
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

/* Every block of both arenas, once the parse is over. */
void
parse_arena_free(struct parse_ctx *ctx)
{
	parse_release(ctx, (parse_mark_t){ NULL, 0 });
	while (ctx->keep != NULL) {
		struct arena_block *next = ctx->keep->next;

		free(ctx->keep);
		ctx->keep = next;
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

