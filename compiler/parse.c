/*
 * parse.c - reading definition files into the model: entry points and the
 * meaning of what the grammar recognises.
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
 * Struct and union bodies are laid out as the x86_64 System V ABI does
 * (LP64, bit-fields in units of their declared type), so that a struct
 * passed by value has a size; a member whose size we cannot know makes the
 * whole struct's size unknown (recorded as incomplete), never a guess.
 *
 * Every string and value of one parse lives in an arena freed at the end;
 * running out of memory abandons the parse through ctx->fatal, after one
 * D_NOMEM diagnostic.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "parse_int.h"

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
static char *
arena_take(struct parse_ctx *ctx, char *s)
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

/* ---- control lines: line markers and pragmas ---------------------------- */

struct word {
	char *s;
	int col;	/* column of its first byte */
};

#define MAX_WORDS	16

/*
 * Blank out comments, line continuations and carriage returns of a control
 * line, in place.  Returns true if a comment is left open at its end.
 */
static bool
blank_comments(char *s)
{
	bool in_string = false;

	for (char *p = s; *p != '\0'; p++) {
		if (in_string) {
			if (*p == '\\' && p[1] != '\0')
				p++;
			else if (*p == '"')
				in_string = false;
		} else if (*p == '"') {
			in_string = true;
		} else if (p[0] == '/' && p[1] == '/') {
			*p = '\0';
			break;
		} else if (p[0] == '/' && p[1] == '*') {
			char *end = strstr(p + 2, "*/");

			if (end == NULL) {
				*p = '\0';
				return true;
			}
			memset(p, ' ', (size_t)(end + 2 - p));
			p = end + 1;
		} else if (*p == '\\' && (p[1] == '\n' || (p[1] == '\r' && p[2] == '\n'))) {
			*p = ' ';
		} else if (*p == '\r' || *p == '\n') {
			*p = ' ';
		}
	}
	return false;
}

/* Split after the '#' into words; a quoted string is one word. */
static int
split_words(char *s, int col0, struct word *w)
{
	int n = 0;
	char *p = s;

	while (*p != '\0' && n < MAX_WORDS) {
		while (*p != '\0' && isspace((unsigned char)*p))
			p++;
		if (*p == '\0')
			break;
		w[n].s = p;
		w[n].col = col0 + (int)(p - s);
		n++;
		if (*p == '"') {
			for (p++; *p != '\0' && *p != '"'; p++)
				if (*p == '\\' && p[1] != '\0')
					p++;
			if (*p == '"')
				p++;
		} else {
			while (*p != '\0' && !isspace((unsigned char)*p))
				p++;
		}
		if (*p != '\0')
			*p++ = '\0';
	}
	return n;
}

static src_loc_t
word_loc(parse_loc_t loc, const struct word *w)
{
	src_loc_t s = { loc.file, loc.first_line, w->col };
	return s;
}

static bool
all_digits(const char *s)
{
	if (*s == '\0')
		return false;
	for (; *s != '\0'; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* The byte C's simple escape \c stands for (\n, \t ...); c itself for \\, \" ... */
static char
simple_escape(char c)
{
	static const char from[] = "abfnrtv", to[] = "\a\b\f\n\r\t\v";
	const char *f = strchr(from, c);

	return f != NULL && c != '\0' ? to[f - from] : c;
}

/*
 * A quoted file name without its quotes and escapes, as cpp writes them:
 * gcc writes a newline as \n and a carriage return as itself, clang the
 * latter as \015 (usdtc/cpp.c escapes them in the #line it gives cpp).
 */
static char *
unquote(struct parse_ctx *ctx, const char *q)
{
	size_t n = strlen(q);
	char *out = parse_alloc(ctx, n + 1), *o = out;

	for (const char *p = q + 1; *p != '\0' && *p != '"'; p++) {
		if (*p == '\\' && p[1] >= '0' && p[1] <= '7') {
			int v = 0;

			for (int i = 0; i < 3 && p[1] >= '0' && p[1] <= '7'; i++)
				v = v * 8 + (*++p - '0');
			*o++ = (char)v;
		} else if (*p == '\\' && p[1] != '\0') {
			*o++ = simple_escape(*++p);
		} else {
			*o++ = *p;
		}
	}
	*o = '\0';
	return out;
}

/*
 * cpp's flags after a marker's file name: 1, entering a file that from
 * included at from_line; 2, back in the includer.  The chain goes to the
 * diagnostics, which name it before anything located in the file.
 */
static void
follow_include(struct parse_ctx *ctx, const struct word *flags, int n,
    const char *from, int from_line)
{
	for (int i = 0; i < n; i++) {
		if (strcmp(flags[i].s, "1") == 0) {
			if (ctx->nincl < PARSE_MAX_INCLUDE) {
				ctx->incl[ctx->nincl].file = from;
				ctx->incl[ctx->nincl].line = from_line;
			}
			ctx->nincl++;
		} else if (strcmp(flags[i].s, "2") == 0 && ctx->nincl > 0) {
			ctx->nincl--;
		}
	}
	ctx->d->incl = ctx->incl;
	ctx->d->nincl = ctx->nincl < PARSE_MAX_INCLUDE ? ctx->nincl : PARSE_MAX_INCLUDE;
	ctx->d->incl_file = ctx->cur_file;
}

/*
 * `# N "file" flags` (cpp) or `#line N ["file"]`: the next line is line N
 * of file.  Without `line`, a '#' line that does not look like a marker is
 * a comment.
 */
static void
line_marker(struct parse_ctx *ctx, struct word *w, int n, bool explicit,
    parse_loc_t loc)
{
	const char *file = NULL;
	long line;

	if (n == 0 || !all_digits(w[0].s) || (n >= 2 && w[1].s[0] != '"')) {
		if (explicit)
			diag_error(ctx->d, n > 0 ? word_loc(loc, &w[0]) : parse_src(loc),
			    "D_PRAGMA_MALFORM",
			    "malformed #line: expected a line number and an optional quoted file name");
		return;
	}
	errno = 0;
	line = strtol(w[0].s, NULL, 10);
	if (errno != 0 || line > INT_MAX / 2)
		line = INT_MAX / 2;
	if (n >= 2) {
		const char *from = ctx->cur_file;
		int from_line = ctx->line;

		file = unquote(ctx, w[1].s);
		if (ctx->from_cpp && strcmp(file, CPP_STDIN_NAME) == 0)
			ctx->cur_file = ctx->main_file;
		else if ((ctx->cur_file = model_intern_file(ctx->m, file)) == NULL)
			parse_nomem(ctx);
		if (!explicit)
			follow_include(ctx, w + 2, n - 2, from, from_line);
	}
	ctx->line = (int)line - 1;	/* the newline ending this line makes it N */
}

static const char *const stability_names[] = {
	"Internal", "Private", "Obsolete", "External",
	"Unstable", "Evolving", "Stable", "Standard"
};
static const char *const class_names[] = {
	"Unknown", "CPU", "Platform", "Group", "ISA", "Common"
};
static const char *const part_names[USDT_ATTR_NPARTS] = {
	"provider", "module", "function", "name", "args"
};

static int
find_name(const char *const *names, int n, const char *s, size_t len)
{
	for (int i = 0; i < n; i++)
		if (strlen(names[i]) == len && strncasecmp(names[i], s, len) == 0)
			return i;
	return -1;
}

/*
 * NAME[/DATA[/CLASS]] as dtrace_str2attr reads it: parts left out keep the
 * most permissive value (Standard/Standard/Common), letters in any case.
 * Returns NULL, or why the text is invalid.
 */
static const char *
parse_attr(const char *s, mdl_attr_t *a, char *why, size_t whysize)
{
	const char *p = s;

	a->name = USDT_STAB_STANDARD;
	a->data = USDT_STAB_STANDARD;
	a->dclass = USDT_CLASS_COMMON;
	for (int part = 0; *p != '\0'; part++) {
		const char *slash = strchr(p, '/');
		size_t len = slash != NULL ? (size_t)(slash - p) : strlen(p);
		int v;

		if (part == 3) {
			snprintf(why, whysize, "it has more than three parts");
			return why;
		}
		if (part < 2) {
			v = find_name(stability_names, 8, p, len);
			if (v < 0) {
				snprintf(why, whysize, "'%.*s' is not a stability level "
				    "(Internal, Private, Obsolete, External, Unstable, "
				    "Evolving, Stable or Standard)", (int)len, p);
				return why;
			}
			if (part == 0)
				a->name = (uint8_t)v;
			else
				a->data = (uint8_t)v;
		} else {
			v = find_name(class_names, 6, p, len);
			if (v < 0) {
				snprintf(why, whysize, "'%.*s' is not a dependency class "
				    "(Unknown, CPU, Platform, Group, ISA or Common)", (int)len, p);
				return why;
			}
			a->dclass = (uint8_t)v;
		}
		p += len;
		if (*p == '/')
			p++;
	}
	return NULL;
}

struct pending_attr {
	char *provider;
	int part;
	mdl_attr_t attr;
	src_loc_t loc;
	struct pending_attr *next;
};

/*
 * #pragma D attributes ATTR provider NAME PART: stored, and applied once
 * the file is read.  #pragma D attributes ATTR IDENT names a D identifier,
 * which has no meaning here, and is accepted.  A line we cannot read is a
 * warning and ignored, not an error: DTrace rejects it, but SystemTap's
 * dtrace skipped every '#' line, and real files carry such lines.
 */
static void
pragma_attributes(struct parse_ctx *ctx, struct word *w, int n, parse_loc_t loc,
    const struct word *directive)
{
	struct pending_attr *pa;
	mdl_attr_t attr;
	char why[200];
	int part;

	if (n < 2) {
		diag_warning(ctx->d, word_loc(loc, directive), "D_PRAGMA_MALFORM",
		    "malformed #pragma D attributes, ignored: expected "
		    "'attributes NAME[/DATA[/CLASS]] provider PROVIDER PART'");
		return;
	}
	if (parse_attr(w[0].s, &attr, why, sizeof(why)) != NULL) {
		diag_warning(ctx->d, word_loc(loc, &w[0]), "D_PRAGMA_INVAL",
		    "invalid attributes '%s' in #pragma D attributes, ignored: %s",
		    w[0].s, why);
		return;
	}
	if (strcmp(w[1].s, "provider") != 0)
		return;
	if (n < 4) {
		diag_warning(ctx->d, word_loc(loc, &w[1]), "D_PRAGMA_MALFORM",
		    "malformed #pragma D attributes, ignored: expected 'provider PROVIDER PART' "
		    "where PART is provider, module, function, name or args");
		return;
	}
	part = -1;
	for (int i = 0; i < USDT_ATTR_NPARTS; i++)
		if (strcmp(w[3].s, part_names[i]) == 0)
			part = i;
	if (part < 0) {
		diag_warning(ctx->d, word_loc(loc, &w[3]), "D_PRAGMA_INVAL",
		    "invalid component '%s' in #pragma D attributes for provider %s, ignored: "
		    "expected provider, module, function, name or args", w[3].s, w[2].s);
		return;
	}
	pa = parse_alloc(ctx, sizeof(*pa));
	pa->provider = parse_strdup(ctx, w[2].s);
	pa->part = part;
	pa->attr = attr;
	pa->loc = word_loc(loc, &w[2]);
	if (ctx->attrs_tail != NULL)
		ctx->attrs_tail->next = pa;
	else
		ctx->attrs = pa;
	ctx->attrs_tail = pa;
}

/* #pragma D ...: attributes matter; depends_on, option, binding do not here. */
static void
pragma_d(struct parse_ctx *ctx, struct word *w, int n, parse_loc_t loc,
    const struct word *d_word)
{
	static const char *const ignored[] = { "depends_on", "option", "binding", "ident" };

	if (n == 0) {
		diag_warning(ctx->d, word_loc(loc, d_word), "D_PRAGMA_MALFORM",
		    "malformed #pragma D, ignored: expected a directive such as attributes");
		return;
	}
	if (strcmp(w[0].s, "attributes") == 0) {
		pragma_attributes(ctx, w + 1, n - 1, loc, &w[0]);
		return;
	}
	for (size_t i = 0; i < sizeof(ignored) / sizeof(ignored[0]); i++)
		if (strcmp(w[0].s, ignored[i]) == 0)
			return;
	diag_warning(ctx->d, word_loc(loc, &w[0]), "D_PRAGMA_UNKNOWN",
	    "unknown #pragma D %s, ignored", w[0].s);
}

/*
 * Without -C a cpp directive is a comment, as in DTrace, which then fails
 * on what the directive would have made of the file; SystemTap's dtrace
 * ran cpp itself.  Say so once per file, at the first directive.
 */
static void
directive_without_cpp(struct parse_ctx *ctx, const struct word *w, parse_loc_t loc,
    int hash_col)
{
	static const char *const cpp_words[] = {
		"include", "if", "ifdef", "ifndef", "elif", "else", "endif",
		"define", "undef", "error"
	};

	if (ctx->cpp_warned)
		return;
	for (size_t i = 0; i < sizeof(cpp_words) / sizeof(cpp_words[0]); i++) {
		if (strcmp(w->s, cpp_words[i]) != 0)
			continue;
		src_loc_t at = { loc.file, loc.first_line, hash_col };

		ctx->cpp_warned = true;
		diag_warning(ctx->d, at, "D_PREPROC",
		    "'#%s' is ignored without -C, as are the file's other cpp "
		    "directives; add -C to run the C preprocessor", w->s);
		return;
	}
}

bool
parse_control_line(struct parse_ctx *ctx, const char *s, size_t n, parse_loc_t loc)
{
	char *line = parse_strndup(ctx, s, n), *hash = strchr(line, '#');
	bool open_comment = blank_comments(line);
	struct word w[MAX_WORDS];
	int nw;

	if (hash == NULL)
		return open_comment;
	nw = split_words(hash + 1, loc.first_column + (int)(hash + 1 - line), w);
	if (nw == 0)
		return open_comment;
	if (isdigit((unsigned char)w[0].s[0]))
		line_marker(ctx, w, nw, false, loc);
	else if (strcmp(w[0].s, "line") == 0)
		line_marker(ctx, w + 1, nw - 1, true, loc);
	else if (strcmp(w[0].s, "pragma") == 0 && nw >= 2 && strcmp(w[1].s, "D") == 0)
		pragma_d(ctx, w + 2, nw - 2, loc, &w[1]);
	else if (!ctx->from_cpp)
		directive_without_cpp(ctx, &w[0], loc,
		    loc.first_column + (int)(hash - line));
	/* Anything else (#include, #define, # comment, #pragma once) is a comment. */
	return open_comment;
}

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
	return parse_join(ctx, t->text, " ", ptext_str(&d->abs));
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
	return arena_take(ctx, usdt_normalise_type(out));
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
		if (strchr(base, ' ') != NULL || (td = model_find_typedef(ctx->m, base)) == NULL)
			break;
		t = drop_qualifiers(ctx, parse_join(ctx, td->type, " ", t + base_len));
	}
	return t;
}

static bool
starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Size and alignment of a type on LP64; false if unknown. */
static bool
type_layout(struct parse_ctx *ctx, const char *text, int depth,
    unsigned *sizep, unsigned *alignp)
{
	char *c = canonical_type(ctx, text);
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
			if (end == p + 1 || *end != ']' || d > 0xffffffffULL)
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
	if (starts_with(c, "struct ") || starts_with(c, "union ")) {
		const mdl_tagged_t *tg = model_find_tagged(ctx->m, c);

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
	ti = model_type_info(ctx->m, c);
	if (!ti.known || ti.tclass == USDT_TC_VOID || ti.size == 0)
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
	if ((tg = model_add_tagged(ctx->m, t->text, t->size, t->align, t->known)) == NULL)
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
	if (model_add_tagged(ctx->m, t->text, 4, 4, true) == NULL)
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
	    (starts_with(t->text, "struct ") || starts_with(t->text, "union "));
}

/* Whether a value of type t is, or holds, a floating value. */
static bool
is_floating(struct parse_ctx *ctx, const struct ctype *t)
{
	char *c;
	const mdl_tagged_t *tg;

	if (t->has_layout)
		return t->has_float;
	c = canonical_type(ctx, t->text);
	if (strpbrk(c, "*(") != NULL)
		return false;
	if (starts_with(c, "struct ") || starts_with(c, "union "))
		return (tg = model_find_tagged(ctx->m, c)) != NULL && tg->has_float;
	return strcmp(c, "long double") == 0 ||
	    model_type_info(ctx->m, c).tclass == USDT_TC_FLOAT;
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
		if (model_add_typedef(ctx->m, d->name, parse_decl_type(ctx, t, d)) != 0)
			parse_nomem(ctx);
	}
}

void
parse_translator(struct parse_ctx *ctx, struct ctype *out, struct cdecl *outd,
    struct ctype *in, struct cdecl *ind, parse_loc_t loc)
{
	if (model_add_translator(ctx->m, parse_decl_type(ctx, out, outd),
	    parse_decl_type(ctx, in, ind), parse_src(loc)) != 0)
		parse_nomem(ctx);
}

/* ---- providers and probes ---------------------------------------------------- */

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
		if (strcmp(arena_take(ctx, usdt_normalise_type(p->type)), args[i].type) != 0)
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
	char *func = arena_take(ctx, usdt_probe_func(ctx->prov->name, dof_name));
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
	char *dof_name = arena_take(ctx, usdt_dof_probe_name(name));
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
	bool a_struct = starts_with(a, "struct "), b_struct = starts_with(b, "struct ");
	mdl_typeinfo_t ta, tb;

	if (strcmp(a, b) == 0)
		return true;
	if ((a_struct || starts_with(a, "union ")) && (b_struct || starts_with(b, "union "))) {
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
	char *cn = canonical_type(ctx, n), *cx = canonical_type(ctx, x), *nb, *xb;
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
	if (strcmp(ns, xs) == 0 && (ns[0] != '\0' || starts_with(nb, "struct ") ||
	    starts_with(nb, "union ")))
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
	char *cx = canonical_type(ctx, x);

	for (size_t i = 0; i < ctx->m->ntranslators; i++) {
		const mdl_translator_t *t = &ctx->m->translators[i];
		char *out = canonical_type(ctx, t->out_type);
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
	if (!starts_with(c, "struct ") && !starts_with(c, "union "))
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

			split_type(ctx, canonical_type(ctx, pr->nargs[i].type), &base, &suffix);
			if (starts_with(base, "struct ") || starts_with(base, "union ") ||
			    starts_with(base, "enum ") || model_type_info(ctx->m, base).known)
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

	for (struct new_probe *np = ctx->probes; np != NULL; np = np->next) {
		mdl_probe_t *pr = np->probe;

		for (size_t i = 0; i < pr->nargc; i++) {
			mdl_arg_t *a = &pr->nargs[i];
			const char *w = by_value_problem(ctx,
			    canonical_type(ctx, a->type), why, sizeof(why));

			if (w == NULL)
				continue;
			if (w != why) {
				diag_error(ctx->d, a->loc, "D_PROBE_BYVALUE",
				    "argument #%zu%s%s%s of probe %s:%s is passed by value, "
				    "and no probe argument can describe it: %s; pass a "
				    "pointer ('%s *') instead", i + 1,
				    a->name != NULL ? " '" : "", a->name != NULL ? a->name : "",
				    a->name != NULL ? "'" : "", np->prov->name, pr->name, w,
				    a->type);
				continue;
			}
			diag_warning(ctx->d, a->loc, "D_PROBE_BYVALUE",
			    "argument #%zu%s%s%s of probe %s:%s is declared by value, "
			    "which no probe argument can describe: %s; it is taken "
			    "for the pointer a program passes, '%s *'", i + 1,
			    a->name != NULL ? " '" : "", a->name != NULL ? a->name : "",
			    a->name != NULL ? "'" : "", np->prov->name, pr->name, w,
			    a->type);
			if (!arg_to_pointer(a) ||
			    (!pr->translated && i < pr->xargc && !arg_to_pointer(&pr->xargs[i])))
				parse_nomem(ctx);
		}
	}
}

static void
apply_attributes(struct parse_ctx *ctx)
{
	for (struct pending_attr *pa = ctx->attrs; pa != NULL; pa = pa->next) {
		mdl_provider_t *p = model_find_provider(ctx->m, pa->provider);

		if (p == NULL) {
			diag_warning(ctx->d, pa->loc, "D_PRAGMA_NOPROV",
			    "#pragma D attributes names provider '%s', which is not "
			    "declared; ignored", pa->provider);
			continue;
		}
		p->attr[pa->part] = pa->attr;
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
			apply_attributes(ctx);
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
