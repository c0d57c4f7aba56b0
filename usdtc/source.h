/*
 * source.h - definition files into the model: read, -C through cpp, parse.
 */
#ifndef USDTC_SOURCE_H
#define USDTC_SOURCE_H

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
 * number of errors reported (0 on success); a file that cannot be read
 * (D_IO) or a cpp that fails (D_CPP) is one error.
 */
int parse_file(mdl_model_t *m, const char *path, const parse_opts_t *o);

#endif
