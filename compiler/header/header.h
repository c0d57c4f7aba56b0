/*
 * header.h - the -h stage: the C header of probe macros.
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
 * The include guard for an output file: `_` + its base name upper-cased,
 * every other character `_` (probes.h.tmp -> _PROBES_H_TMP).  Shared with
 * the macOS header writer.
 */
void header_put_guard_name(strbuf_t *out, const char *guard_file);

/* The end of a header: the C++ block and the include guard closed. */
void header_put_epilogue(strbuf_t *out, const char *guard_file);

/* A probe macro's parameter list: "(arg0, arg1)" or "()". */
void header_put_macro_params(strbuf_t *out, const mdl_probe_t *pr);

/*
 * Whether the header fires the probe by calling its stub (the call form),
 * not at an inline site: the probes whose stubs -G gives a note.
 */
bool header_probe_calls_stub(const mdl_model_t *m, const target_t *t,
    const mdl_probe_t *pr);

#endif
