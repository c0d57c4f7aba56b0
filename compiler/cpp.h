/*
 * cpp.h - running the system C preprocessor over a definition file (-C).
 */
#ifndef USDTC_CPP_H
#define USDTC_CPP_H

#include <stddef.h>

#include "err.h"
#include "parse.h"

/* What cpp calls its standard input in line markers before our #line. */
#define CPP_STDIN_NAME	"<stdin>"

/*
 * Run o->cpp_cmd (default "cpp"; split on blanks, so "gcc -E" works) with
 * o->cpp_args and "-", feeding it `#line 1 "path"` and then text, and
 * collect what it writes.  On success *outp is a malloc'd NUL-terminated
 * buffer of *lenp bytes.  Returns 0, or -1 with e set: cpp not runnable,
 * or cpp failing (its own messages went to our stderr, naming path).
 */
int cpp_run(const parse_opts_t *o, const char *path, const char *text, size_t len,
    char **outp, size_t *lenp, err_t *e);

#endif
