/*
 * header_macos.h - the -h stage for macOS targets, and the names macOS
 * dtrace gives probe functions (header_macos.c).
 */
#ifndef USDTC_HEADER_MACOS_H
#define USDTC_HEADER_MACOS_H

#include "model.h"
#include "strbuf.h"
#include "target.h"

/* The header of header.h, in macOS dtrace's form. */
void header_macos_write(const mdl_model_t *m, const usdt_target_t *t,
    const char *guard_file, strbuf_t *out);

/*
 * The C names of a probe's functions ("__dtrace_probe$P$N$v1$696e74",
 * "__dtrace_isenabled$P$N$v1"); their Mach-O symbols have one more
 * leading underscore.  malloc'd; NULL on allocation failure.
 */
char *macos_probe_func(const mdl_provider_t *p, const mdl_probe_t *pr);
char *macos_enabled_func(const mdl_provider_t *p, const mdl_probe_t *pr);

#endif
