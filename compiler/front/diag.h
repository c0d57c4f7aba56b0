/*
 * diag.h - diagnostics for definition files: where, what, and a tag.
 *
 * Every problem found in a definition file is reported once, where it is
 * known, as
 *
 *	probes.d:3:16: error: expected ';' to end the probe ... [D_SYNTAX]
 *	   probe a(int x)
 *	                 ^
 *
 * the location, the severity, a sentence, and a stable tag that tests and
 * scripts match.  The source line is shown with tabs expanded and a caret
 * under the column; columns count bytes from 1.  The text of the line comes
 * from the buffer being parsed when it is the file named in the location,
 * else from the file on disk (after `cpp` the location names the user's
 * file, which is read once and kept), else the line is left out.
 *
 * Input of any size makes a diagnostic of a few KB, written with one
 * write(2): a line over 4 KB is cut to 100 bytes each side of the caret,
 * marked "...", and a message over 1 KB (a name of any length quoted in
 * it) keeps its start and its end around " ... ".
 *
 * A diag_t counts what it reported; the parser returns that count.  As
 * compilers do (gcc's -fmax-errors, clang's -ferror-limit), it stops after
 * DIAG_MAX_ERRORS errors: the next one is not shown, "too many errors" is
 * said once ([D_TOO_MANY]) and, when the caller gave a stop point (the
 * parser's), the run jumps there -- a file of 100,000 bad names reports
 * 50, not 100,000.  All
 * diagnostics go to one stream per process, stderr unless diag_set_output
 * says otherwise (tests capture them; a fuzzer discards them).
 */
#ifndef USDTC_DIAG_H
#define USDTC_DIAG_H

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "model.h"

/* The text of one file, for quoting its lines. */
typedef struct diag_text {
	char *file;
	char *text;	/* NULL: the file could not be read */
	size_t len;
	int last_line;	/* the line found last (0: none) and where it starts */
	size_t last_off;
} diag_text_t;

/* One step of an include chain: the file that included, and its line. */
typedef struct diag_include {
	const char *file;
	int line;
} diag_include_t;

#define DIAG_MAX_ERRORS	50

typedef struct diag {
	int nerrors;
	int nwarnings;
	int max_errors;		/* DIAG_MAX_ERRORS from diag_init; 0: no limit */
	bool capped;		/* "too many errors" said: nothing more is shown */
	jmp_buf *stop;		/* where to go when capped, or NULL */
	diag_text_t *texts;
	size_t ntexts;
	/*
	 * While the parser reads a file that cpp included, the chain that led
	 * there (outermost first) and that file: a diagnostic located in it is
	 * preceded by "In file included from probes.d:3:", as gcc's are.
	 */
	const diag_include_t *incl;
	size_t nincl;
	const char *incl_file;
} diag_t;

void diag_init(diag_t *d);
void diag_fini(diag_t *d);

/* Where every diagnostic goes from now on; NULL means stderr. */
void diag_set_output(FILE *f);

/* Remember the text of file (copied) so its lines can be quoted. */
int diag_add_text(diag_t *d, const char *file, const char *text, size_t len);

/*
 * Report at loc (loc.file NULL: about the whole run, "usdtc: error: ...";
 * loc.line 0: about a whole file).  tag is a D_ name; notes have none.
 */
void diag_error(diag_t *d, src_loc_t loc, const char *tag, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void diag_warning(diag_t *d, src_loc_t loc, const char *tag, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void diag_note(diag_t *d, src_loc_t loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
