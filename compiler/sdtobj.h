/*
 * sdtobj.h - -G for a target with no DTrace (sdtobj.c): the semaphores,
 * compiled by the target's compiler, as SystemTap's dtrace -G gives.
 */
#ifndef USDTC_SDTOBJ_H
#define USDTC_SDTOBJ_H

#include <stddef.h>

#include "err.h"
#include "model.h"
#include "objgen.h"
#include "target.h"

/*
 * Check that each of o's objects (the rest of o is objgen_write's) is of
 * t's ELF class and machine, then compile m's semaphores with $CC $CFLAGS
 * to out_path and check it the same way.  0, or -1 with e set (out_path may exist; the caller removes it).
 */
int sdtobj_write(const mdl_model_t *m, const target_t *t, const objgen_opts_t *o,
    const char *out_path, err_t *e);

#endif
