/*
 * macho_in.h - the -G stage's inputs for macOS targets: the program's
 * Mach-O objects, each read once and checked (macho_in.c), as objin.h is
 * for ELF targets.  Nothing is rewritten on macOS, so nothing of them is
 * kept: the writer never sees them.
 */
#ifndef USDTC_MACHO_IN_H
#define USDTC_MACHO_IN_H

#include "err.h"
#include "model.h"
#include "objgen.h"
#include "target.h"

/*
 * Read each of o->objects once, in the order given, and check it: a
 * Mach-O object of t's CPU whose references to probe functions name
 * probes of m (an LLVM bitcode object is passed over, with a note under
 * -v).  Returns 0, or -1 with e set at the first object at fault.
 */
int macho_in_check(const mdl_model_t *m, const target_t *t,
    const objgen_opts_t *o, err_t *e);

#endif
