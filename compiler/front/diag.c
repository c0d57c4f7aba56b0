/*
 * diag.c - printing diagnostics with the source line and a caret.
 *
 * See diag.h for the format.  The only state beyond counts is the texts of
 * files already seen, so that quoting a line never re-reads a file and a
 * buffer parsed from memory (tests, fuzzers) can be quoted too.  A file that
 * cannot be read is remembered as such and its lines are simply not shown:
 * a diagnostic must never fail because its decoration could not be made.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "fileio.h"
#include "strbuf.h"

#define TAB_WIDTH	8
/* Lines up to QUOTE_WHOLE bytes are quoted whole, longer ones cut. */
#define QUOTE_WHOLE	4096
#define QUOTE_CONTEXT	100	/* bytes each side of the caret in a cut line */
#define QUOTE_CUT	"..."
#define MESSAGE_MAX	1024	/* bytes of message text, before the tag */

static FILE *diag_out;

void
diag_set_output(FILE *f)
{
	diag_out = f;
}

static FILE *
out_stream(void)
{
	return diag_out != NULL ? diag_out : stderr;
}

void
diag_init(diag_t *d)
{
	memset(d, 0, sizeof(*d));
	d->max_errors = DIAG_MAX_ERRORS;
}

void
diag_fini(diag_t *d)
{
	for (size_t i = 0; i < d->ntexts; i++) {
		free(d->texts[i].file);
		free(d->texts[i].text);
	}
	free(d->texts);
	memset(d, 0, sizeof(*d));
}

/* Append an entry for file; text may be NULL (unreadable). */
static diag_text_t *
add_entry(diag_t *d, const char *file, char *text, size_t len)
{
	diag_text_t *t = realloc(d->texts, (d->ntexts + 1) * sizeof(*t));
	char *name = strdup(file);

	if (t == NULL || name == NULL) {
		if (t != NULL)
			d->texts = t;
		free(name);
		return NULL;
	}
	d->texts = t;
	t = &d->texts[d->ntexts++];
	t->file = name;
	t->text = text;
	t->len = len;
	t->last_line = 0;
	t->last_off = 0;
	return t;
}

int
diag_add_text(diag_t *d, const char *file, const char *text, size_t len)
{
	char *copy = malloc(len + 1);

	if (copy == NULL)
		return -1;
	memcpy(copy, text, len);
	copy[len] = '\0';
	if (add_entry(d, file, copy, len) == NULL) {
		free(copy);
		return -1;
	}
	return 0;
}


static diag_text_t *
find_text(diag_t *d, const char *file)
{
	char *text;
	size_t len;

	for (size_t i = 0; i < d->ntexts; i++)
		if (strcmp(d->texts[i].file, file) == 0)
			return &d->texts[i];
	text = file_read_all(file, &len);
	if (add_entry(d, file, text, len) == NULL) {
		free(text);
		return NULL;
	}
	return &d->texts[d->ntexts - 1];
}

/*
 * Start and length of line (1-based) of t, without its line ending.  The
 * parser reports in source order, so the search resumes from the line
 * found last: n diagnostics cost one pass over the text, not n.
 */
static bool
find_line(diag_text_t *t, int line, const char **startp, size_t *lenp)
{
	const char *p = t->text, *end = t->text + t->len, *nl;
	int l = 1;

	if (t->last_line > 0 && t->last_line <= line) {
		p = t->text + t->last_off;
		l = t->last_line;
	}
	for (; l < line; l++) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL)
			return false;
		p = nl + 1;
	}
	t->last_line = line;
	t->last_off = (size_t)(p - t->text);
	nl = memchr(p, '\n', (size_t)(end - p));
	*startp = p;
	*lenp = (size_t)((nl != NULL ? nl : end) - p);
	if (*lenp > 0 && p[*lenp - 1] == '\r')
		(*lenp)--;
	return true;
}

/*
 * The bytes [*fromp, *top) of a line of len bytes to quote for a caret at
 * byte at: the whole line when it is short, else a window around the
 * caret, so that a 10 MB line costs a few hundred bytes of stderr.
 */
static void
quote_window(size_t len, size_t at, size_t *fromp, size_t *top)
{
	size_t anchor = at < len ? at : len;

	*fromp = 0;
	*top = len;
	if (len <= QUOTE_WHOLE)
		return;
	*fromp = anchor > QUOTE_CONTEXT ? anchor - QUOTE_CONTEXT : 0;
	if (len - anchor > QUOTE_CONTEXT)
		*top = anchor + QUOTE_CONTEXT;
}

/*
 * Append the source line with tabs expanded and unprintable bytes shown
 * as '?', then a caret under byte column col (1-based; 0 = no caret).  A
 * line cut to its window starts or ends with "...".
 */
static void
quote_line(strbuf_t *sb, const char *s, size_t len, int col)
{
	size_t at = col > 0 ? (size_t)col - 1 : 0, from, to, disp = 0, caret = 0;

	quote_window(len, at, &from, &to);
	if (from > 0) {
		sb_puts(sb, QUOTE_CUT);
		disp = strlen(QUOTE_CUT);
	}
	for (size_t i = from; i < to; i++) {
		unsigned char c = (unsigned char)s[i];

		if (i == at)
			caret = disp;
		if (c == '\t') {
			do
				sb_putc(sb, ' ');
			while (++disp % TAB_WIDTH != 0);
			continue;
		}
		sb_putc(sb, c < 0x20 || c == 0x7f ? '?' : (char)c);
		disp++;
	}
	if (at >= len)	/* past the end: beyond the last byte, as far as asked */
		caret = disp + (at - len < QUOTE_CONTEXT ? at - len : QUOTE_CONTEXT);
	if (to < len)
		sb_puts(sb, QUOTE_CUT);
	sb_putc(sb, '\n');
	if (col <= 0)
		return;
	for (size_t i = 0; i < caret; i++)
		sb_putc(sb, ' ');
	sb_puts(sb, "^\n");
}

/*
 * The message, whose arguments may quote a name of any length: one longer
 * than MESSAGE_MAX keeps its start and its end (where the limit it broke
 * is usually said) around " ... ".
 */
static void __attribute__((format(printf, 2, 0)))
put_message(strbuf_t *sb, const char *fmt, va_list ap)
{
	strbuf_t msg;
	size_t keep = (MESSAGE_MAX - 5) / 2;

	sb_init(&msg);
	sb_vprintf(&msg, fmt, ap);
	if (msg.failed || msg.len <= MESSAGE_MAX) {
		sb_append(sb, msg.data, msg.failed ? 0 : msg.len);
	} else {
		sb_append(sb, msg.data, keep);
		sb_puts(sb, " ... ");
		sb_append(sb, msg.data + msg.len - keep, keep);
	}
	sb_free(&msg);
}

/*
 * One diagnostic is built in memory and written with one fwrite: stderr
 * is unbuffered, and a byte at a time costs a write(2) per byte.
 */
/* "In file included from b.h:2,\n                 from probes.d:3:\n" */
static void
put_include_chain(strbuf_t *sb, const diag_t *d, src_loc_t loc)
{
	if (d->nincl == 0 || loc.file == NULL || loc.file != d->incl_file)
		return;
	for (size_t i = d->nincl; i-- > 0; )
		sb_printf(sb, "%s %s:%d%s\n", i == d->nincl - 1 ?
		    "In file included from" : "                 from",
		    d->incl[i].file, d->incl[i].line, i == 0 ? ":" : ",");
}

static void __attribute__((format(printf, 5, 0)))
report(diag_t *d, src_loc_t loc, const char *kind, const char *tag,
    const char *fmt, va_list ap)
{
	FILE *f = out_stream();
	diag_text_t *t;
	const char *line;
	size_t len;
	strbuf_t sb;

	sb_init(&sb);
	put_include_chain(&sb, d, loc);
	if (loc.file == NULL)
		sb_puts(&sb, "usdtc: ");
	else if (loc.line <= 0)
		sb_printf(&sb, "%s: ", loc.file);
	else if (loc.col <= 0)
		sb_printf(&sb, "%s:%d: ", loc.file, loc.line);
	else
		sb_printf(&sb, "%s:%d:%d: ", loc.file, loc.line, loc.col);
	sb_printf(&sb, "%s: ", kind);
	put_message(&sb, fmt, ap);
	if (tag != NULL)
		sb_printf(&sb, " [%s]", tag);
	sb_putc(&sb, '\n');
	if (loc.file != NULL && loc.line > 0) {
		t = find_text(d, loc.file);
		if (t != NULL && t->text != NULL && find_line(t, loc.line, &line, &len))
			quote_line(&sb, line, len, loc.col);
	}
	if (!sb.failed)
		fwrite(sb.data, 1, sb.len, f);
	else	/* no memory for the decoration: the bare fact, unformatted */
		fprintf(f, "usdtc: %s: out of memory formatting a diagnostic\n", kind);
	fflush(f);
	sb_free(&sb);
}

/* One error past the limit: say so once, then stop where the caller asked. */
static void
too_many(diag_t *d)
{
	FILE *f = out_stream();

	d->capped = true;
	fprintf(f, "usdtc: error: too many errors, stopping after %d [D_TOO_MANY]\n",
	    d->max_errors);
	fflush(f);
	if (d->stop != NULL)
		longjmp(*d->stop, 1);
}

void
diag_error(diag_t *d, src_loc_t loc, const char *tag, const char *fmt, ...)
{
	va_list ap;

	d->nerrors++;
	if (d->capped)
		return;
	if (d->max_errors > 0 && d->nerrors > d->max_errors) {
		too_many(d);
		return;
	}
	va_start(ap, fmt);
	report(d, loc, "error", tag, fmt, ap);
	va_end(ap);
}

void
diag_warning(diag_t *d, src_loc_t loc, const char *tag, const char *fmt, ...)
{
	va_list ap;

	d->nwarnings++;
	if (d->capped)
		return;
	va_start(ap, fmt);
	report(d, loc, "warning", tag, fmt, ap);
	va_end(ap);
}

void
diag_note(diag_t *d, src_loc_t loc, const char *fmt, ...)
{
	va_list ap;

	if (d->capped)
		return;
	va_start(ap, fmt);
	report(d, loc, "note", NULL, fmt, ap);
	va_end(ap);
}
