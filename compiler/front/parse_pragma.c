/*
 * parse_pragma.c - the control lines of a definition file: cpp's line
 * markers and #line, which put every location back on the user's file, and
 * #pragma D, which sets a provider's attributes.
 *
 * The lexer hands over every line that starts with '#' (parse_control_line).
 * A line marker changes where later tokens are said to be, and follows
 * cpp's include chain for diagnostics.  `#pragma D attributes` may come
 * before or after its provider, so it is only stored here and applied once
 * the file is read (parse_apply_attributes).  Anything else, and a pragma
 * we cannot read, is a comment or a warning, never an error: SystemTap's
 * dtrace skipped every '#' line, and real files carry such lines.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "parse_int.h"

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
		else if ((ctx->cur_file = mdl_intern_file(ctx->m, file)) == NULL)
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
static const char *const part_names[MDL_ATTR_NPARTS] = {
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

	a->name = MDL_STAB_STANDARD;
	a->data = MDL_STAB_STANDARD;
	a->dclass = MDL_CLASS_COMMON;
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
	for (int i = 0; i < MDL_ATTR_NPARTS; i++)
		if (strcmp(w[3].s, part_names[i]) == 0)
			part = i;
	if (part < 0) {
		diag_warning(ctx->d, word_loc(loc, &w[3]), "D_PRAGMA_INVAL",
		    "invalid component '%s' in #pragma D attributes for provider %s, ignored: "
		    "expected provider, module, function, name or args", w[3].s, w[2].s);
		return;
	}
	pa = parse_keep_alloc(ctx, sizeof(*pa));	/* a pragma may sit inside a declaration */
	pa->provider = parse_keep_strdup(ctx, w[2].s);
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


/* Give each provider the attributes its pragmas named (once the file is read). */
void
parse_apply_attributes(struct parse_ctx *ctx)
{
	for (struct pending_attr *pa = ctx->attrs; pa != NULL; pa = pa->next) {
		mdl_provider_t *p = mdl_find_provider(ctx->m, pa->provider);

		if (p == NULL) {
			diag_warning(ctx->d, pa->loc, "D_PRAGMA_NOPROV",
			    "#pragma D attributes names provider '%s', which is not "
			    "declared; ignored", pa->provider);
			continue;
		}
		p->attr[pa->part] = pa->attr;
	}
}

