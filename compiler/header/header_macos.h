/*
 * header_macos.h - the -h stage for macOS targets (header_macos.c); the
 * names macOS dtrace gives probe functions are the target's (target.h).
 */
#ifndef USDTC_HEADER_MACOS_H
#define USDTC_HEADER_MACOS_H

#include "model.h"
#include "strbuf.h"
#include "target.h"

/* The header of header.h, in macOS dtrace's form. */
void header_macos_write(const mdl_model_t *m, const target_t *t,
    const char *guard_file, strbuf_t *out);

#endif
