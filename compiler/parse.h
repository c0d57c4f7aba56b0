/*
 * parse.h - reading provider definition files into the model.
 *
 * Stage: provider.d --(cpp.c when -C)--> lexer.l + parser.y --> usdt_model_t.
 * Diagnostics go to stderr through diag.c as `file:line:col: error: ...`
 * with the source line, a caret and a stable tag; the parser reports each
 * error once and the caller only looks at the count.
 */
#ifndef USDTC_PARSE_H
#define USDTC_PARSE_H

#include <stdbool.h>
#include <stddef.h>

#include "model.h"

typedef struct parse_opts {
	bool cpp;		/* -C: run the C preprocessor first */
	const char *cpp_cmd;	/* "cpp", or $CPP (may hold arguments, split on spaces) */
	char **cpp_args;	/* -I/-D/-U options in command-line order, e.g. "-I." "-DX=1" */
	size_t ncpp_args;
} parse_opts_t;

/*
 * Parse one definition file and add what it declares to m.  Returns the
 * number of errors reported (0 on success).  A provider declared again
 * (in this or an earlier file) gains the new probes.
 */
int parse_file(usdt_model_t *m, const char *path, const parse_opts_t *o);

/* The same for text already in memory (tests, fuzzers); no cpp. */
int parse_buffer(usdt_model_t *m, const char *name, const char *text, size_t len);

#endif
