/*
 * macho_in.h - the -G stage's inputs for macOS targets: the program's
 * Mach-O objects, each read once and checked (macho_in.c), as objin.h is
 * for ELF targets.  Nothing is rewritten on macOS, so nothing of them is
 * kept: the writer never sees them.
 */
#ifndef USDTC_MACHO_IN_H
#define USDTC_MACHO_IN_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"
#include "model.h"
#include "target.h"

/*
 * Read each of the nobjects objects once, in the order given, and check
 * it: a Mach-O object of t's CPU whose references to probe functions name
 * probes of m (an LLVM bitcode object is passed over, with a note when
 * verbose, -v).  Returns 0, or -1 with e set at the first object at fault.
 */
int macho_in_check(const mdl_model_t *m, const target_t *t,
    char *const *objects, size_t nobjects, bool verbose, err_t *e);

#endif
