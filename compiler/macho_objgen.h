/*
 * macho_objgen.h - the -G stage for macOS targets: a Mach-O MH_OBJECT with
 * the probe units and their DOF (macho_objgen.c says what and why).
 */
#ifndef USDTC_MACHO_OBJGEN_H
#define USDTC_MACHO_OBJGEN_H

#include "err.h"
#include "model.h"
#include "objgen.h"
#include "target.h"

/*
 * objgen_write for a target whose os is TARGET_OS_MACOS: check the
 * program's Mach-O objects against m (macho_in.c), find each probe's sites
 * (a site table: m is not changed), and write the object to out_path.
 * Returns 0, or -1 with e set; on failure out_path may exist and the
 * caller removes it.
 */
int macho_objgen_write(const mdl_model_t *m, const target_t *t,
    const objgen_opts_t *o, const char *out_path, err_t *e);

#endif
