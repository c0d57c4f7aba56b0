/*
 * usdt_image.h - the shared object behind one run-time provider.
 *
 * Internal to libusdt: usdt.c speaks the public API (usdt_provider_t,
 * usdt_probe_t) and hands a provider over to usdt_image.c in the plain
 * types below; only usdt_image.c sees the core's model (mdl_provider_t,
 * mdl_probe_t: other names, so a program linking both sees one type per
 * name).
 */
#ifndef LIBUSDT_USDT_IMAGE_H
#define LIBUSDT_USDT_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

/* One probe, as libusdt's caller defined it. */
typedef struct usdt_image_probe {
	const char *function;		/* DOF function name */
	const char *name;		/* DTrace probe name, as given */
	size_t argc;
	char *const *types;		/* [argc], spellings from usdt_image_arg_type */
} usdt_image_probe_t;

/* Where one probe's pieces are, as offsets from the object's load base. */
typedef struct usdt_image_addrs {
	uint64_t entry;		/* the probe function: its unit, what is called */
	uint64_t probe;		/* the probe tracepoint, probe_offset into it */
	uint64_t enabled;	/* the is-enabled tracepoint */
	uint64_t semaphore;	/* the 2-byte semaphore, 0 if none */
} usdt_image_addrs_t;

typedef struct usdt_image_layout {
	usdt_image_addrs_t *probes;	/* [nprobes], filled in */
	uint64_t dof;			/* the DOF (its header says its size) */
} usdt_image_layout_t;

/*
 * The model spelling of an argument type given to usdt_create_probe:
 * "int" and the older USDT_ARGTYPE_INTEGER meaning become "int64_t" (the
 * argument is a 64-bit value), integer and pointer types keep their
 * normalised spelling.  malloc'd; NULL with errno EINVAL for a type that
 * cannot travel as one void * (float, struct, unknown name), ENOMEM when
 * memory runs out.
 */
char *usdt_image_arg_type(const char *type);

/*
 * Build the shared object for provider `provider` with probes[0..n) and
 * write it to fd (positioned at 0): probe units, stapsdt notes and
 * semaphores, .stapsdt.base, and the DOF under the symbol __SUNW_dof.
 * Fills out (whose probes array has n entries).  Returns 0, or -1 with e
 * set.
 */
int usdt_image_write(const char *provider, const usdt_image_probe_t *probes,
    size_t n, int fd, usdt_image_layout_t *out, err_t *e);

#endif
