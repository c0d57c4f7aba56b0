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

#define TAB_WIDTH	8

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


static const diag_text_t *
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

/* Start and length of line (1-based) of t, without its line ending. */
static bool
find_line(const diag_text_t *t, int line, const char **startp, size_t *lenp)
{
	const char *p = t->text, *end = t->text + t->len, *nl;

	for (int l = 1; l < line; l++) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL)
			return false;
		p = nl + 1;
	}
	nl = memchr(p, '\n', (size_t)(end - p));
	*startp = p;
	*lenp = (size_t)((nl != NULL ? nl : end) - p);
	if (*lenp > 0 && p[*lenp - 1] == '\r')
		(*lenp)--;
	return true;
}

/*
 * Print the source line with tabs expanded and unprintable bytes shown as
 * '?', then a caret under byte column col (1-based; 0 = no caret).
 */
static void
quote_line(FILE *f, const char *s, size_t len, int col)
{
	size_t disp = 0, caret = 0;

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if ((int)i == col - 1)
			caret = disp;
		if (c == '\t') {
			do
				fputc(' ', f);
			while (++disp % TAB_WIDTH != 0);
			continue;
		}
		fputc(c < 0x20 || c == 0x7f ? '?' : c, f);
		disp++;
	}
	if (col - 1 >= (int)len)
		caret = disp + (size_t)(col - 1 - (int)len);
	fputc('\n', f);
	if (col <= 0)
		return;
	for (size_t i = 0; i < caret; i++)
		fputc(' ', f);
	fputs("^\n", f);
}

static void
report(diag_t *d, src_loc_t loc, const char *kind, const char *tag,
    const char *fmt, va_list ap)
{
	FILE *f = out_stream();
	const diag_text_t *t;
	const char *line;
	size_t len;

	if (loc.file == NULL)
		fprintf(f, "usdtc: ");
	else if (loc.line <= 0)
		fprintf(f, "%s: ", loc.file);
	else if (loc.col <= 0)
		fprintf(f, "%s:%d: ", loc.file, loc.line);
	else
		fprintf(f, "%s:%d:%d: ", loc.file, loc.line, loc.col);
	fprintf(f, "%s: ", kind);
	vfprintf(f, fmt, ap);
	if (tag != NULL)
		fprintf(f, " [%s]", tag);
	fputc('\n', f);
	if (loc.file == NULL || loc.line <= 0)
		return;
	t = find_text(d, loc.file);
	if (t != NULL && t->text != NULL && find_line(t, loc.line, &line, &len))
		quote_line(f, line, len, loc.col);
}

void
diag_error(diag_t *d, src_loc_t loc, const char *tag, const char *fmt, ...)
{
	va_list ap;

	d->nerrors++;
	va_start(ap, fmt);
	report(d, loc, "error", tag, fmt, ap);
	va_end(ap);
}

void
diag_warning(diag_t *d, src_loc_t loc, const char *tag, const char *fmt, ...)
{
	va_list ap;

	d->nwarnings++;
	va_start(ap, fmt);
	report(d, loc, "warning", tag, fmt, ap);
	va_end(ap);
}

void
diag_note(diag_t *d, src_loc_t loc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report(d, loc, "note", NULL, fmt, ap);
	va_end(ap);
}
