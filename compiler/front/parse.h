/*
 * parse.h - reading provider definitions into the model.
 *
 * Stage: the bytes of provider.d (or cpp's output of it) --> lexer.l +
 * parser.y --> mdl_model_t.  The parser takes a buffer and its length;
 * reading files and running cpp are the program's (usdtc/source.c).
 * Diagnostics go to stderr through diag.c as `file:line:col: error: ...`
 * with the source line, a caret and a stable tag; the parser reports each
 * error once and the caller only looks at the count.
 */
#ifndef USDTC_PARSE_H
#define USDTC_PARSE_H

#include <stdbool.h>
#include <stddef.h>

#include "diag.h"
#include "model.h"

/*
 * What cpp calls its standard input in line markers, before the #line that
 * names the user's file (usdtc/cpp.c feeds the text on standard input).
 */
#define CPP_STDIN_NAME	"<stdin>"

/*
 * Parse text (len bytes) of the definition file `file` (a name interned in
 * m) and add what it declares to m, reporting through d.  A provider
 * declared again (in this or an earlier file) gains the new probes.
 * from_cpp: text is cpp's output, whose line markers name the places.
 */
void parse_text(mdl_model_t *m, diag_t *d, const char *file, const char *text,
    size_t len, bool from_cpp);

/*
 * The same for a buffer named name, with a diag_t of its own (tests,
 * fuzzers); no cpp.  Returns the number of errors reported.
 */
int parse_buffer(mdl_model_t *m, const char *name, const char *text, size_t len);

#endif
