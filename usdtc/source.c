/*
 * source.c - a definition file into the model: read it, run cpp over it
 * for -C (cpp.c), hand the bytes to the parser (compiler/front/parse.c).
 *
 * The parser takes a buffer and knows nothing of files or processes, so
 * fuzzers and unit tests need neither; this is the program's side.  Failing
 * to read the file or to run cpp is reported like a parse error, through
 * the same diag_t (tags D_IO and D_CPP), so the caller only counts errors.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cpp.h"
#include "diag.h"
#include "fileio.h"
#include "parse.h"
#include "source.h"

/* cpp's output of text, parsed; a failure to run it is one D_CPP error. */
static void
parse_through_cpp(mdl_model_t *m, diag_t *d, const char *file, const char *path,
    const char *text, size_t len, const parse_opts_t *o)
{
	cpp_opts_t co = { o->cpp_cmd, o->cpp_args, o->ncpp_args };
	char *out;
	err_t e;

	if (cpp_run(&co, path, text, len, &out, &len, &e) != 0) {
		src_loc_t at_file = { file, 0, 0 };

		diag_error(d, at_file, "D_CPP", "%s", e.msg);
		return;
	}
	parse_text(m, d, file, out, len, true);
	free(out);
}

/*
 * The file could not be read: said at the file, as every other error about
 * it is ("FILE: error: ..."); a file that goes on past FILE_READ_MAX bytes
 * (/dev/zero, an endless pipe) is no definition file, which EFBIG's text,
 * "File too large", does not say.
 */
static void
read_error(diag_t *d, const char *file, int errnum)
{
	src_loc_t at_file = { file, 0, 0 };

	if (errnum == EFBIG)
		diag_error(d, at_file, "D_IO", "cannot read it: it goes on past %zu MiB, "
		    "more than any provider definition holds", FILE_READ_MAX >> 20);
	else if (errnum == ENXIO)
		diag_error(d, at_file, "D_IO", "cannot read it: a FIFO with nothing "
		    "written to it and no writer");
	else
		diag_error(d, at_file, "D_IO", "cannot read it: %s", strerror(errnum));
}

int
parse_file(mdl_model_t *m, const char *path, const parse_opts_t *o)
{
	src_loc_t run = { NULL, 0, 0 };
	const char *file = mdl_intern_file(m, path);
	char *text = NULL;
	size_t len = 0;
	diag_t d;
	int errors;

	diag_init(&d);
	if (file == NULL) {
		diag_error(&d, run, "D_NOMEM", "out of memory");
	} else if ((text = file_read_all(path, &len)) == NULL) {
		read_error(&d, file, errno);
	} else if (o != NULL && o->cpp) {
		parse_through_cpp(m, &d, file, path, text, len, o);
	} else if (diag_add_text(&d, file, text, len) != 0) {
		diag_error(&d, run, "D_NOMEM", "out of memory");
	} else {
		parse_text(m, &d, file, text, len, false);
	}
	free(text);
	errors = d.nerrors;
	diag_fini(&d);
	return errors;
}
