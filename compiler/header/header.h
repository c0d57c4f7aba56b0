/*
 * header.h - the -h stage: the C header of probe macros (compiler/header/,
 * whose pieces share header_int.h; macOS's header is header_macos.h).
 */
#ifndef USDTC_HEADER_H
#define USDTC_HEADER_H

#include "model.h"
#include "strbuf.h"
#include "target.h"

/*
 * Append the header for every provider of m to out.  guard_file is the
 * output file name the include guard derives from ("probes.h.tmp" ->
 * _PROBES_H_TMP; directories are dropped).
 */
void header_write(const mdl_model_t *m, const target_t *t,
    const char *guard_file, strbuf_t *out);

/*
 * Whether the header fires the probe by calling its stub (the call form),
 * not at an inline site: the probes whose stubs -G gives a note.
 */
bool header_probe_calls_stub(const mdl_model_t *m, const target_t *t,
    const mdl_probe_t *pr);

#endif
