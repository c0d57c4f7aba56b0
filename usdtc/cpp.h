/*
 * cpp.h - running the system C preprocessor over a definition file (-C).
 */
#ifndef USDTC_CPP_H
#define USDTC_CPP_H

#include <stddef.h>

#include "err.h"
#include "target.h"

/* Which preprocessor, and its -I/-D/-U options. */
typedef struct cpp_opts {
	const char *cmd;	/* "cpp", or $CPP (may hold arguments, split on spaces) */
	char **args;		/* -I/-D/-U options in command-line order, e.g. "-I." "-DX=1" */
	size_t nargs;
} cpp_opts_t;

/*
 * Run o->cmd (default "cpp"; split on blanks, so "gcc -E" works) with
 * o->args and "-", feeding it `#line 1 "path"` and then text, and
 * collect what it writes.  On success *outp is a malloc'd NUL-terminated
 * buffer of *lenp bytes.  Returns 0, or -1 with e set: cpp not runnable,
 * or cpp failing (its own messages went to our stderr, naming path).
 * cpp names its standard input CPP_STDIN_NAME (parse.h) in line markers
 * before our #line.
 */
int cpp_run(const cpp_opts_t *o, const char *path, const char *text, size_t len,
    char **outp, size_t *lenp, err_t *e);

/*
 * The options dtrace's own cpp run gets on target t, before the user's
 * -D/-U/-I: the defines a provider file may test (__SUNW_D, __linux ...),
 * and -U__GNUC__, so that system headers leave out the GNU extensions a D
 * compiler does not take.  A NULL-terminated array of static strings.
 */
const char *const *cpp_platform_args(const target_t *t);

#endif
