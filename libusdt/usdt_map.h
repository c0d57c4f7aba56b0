/*
 * usdt_map.h - map a provider's image from its descriptor, without the
 * dynamic linker (usdt_map.c says why).  Internal to libusdt.
 */
#ifndef LIBUSDT_USDT_MAP_H
#define LIBUSDT_USDT_MAP_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

typedef struct usdt_map {
	void *start;		/* the whole span reserved, NULL when unmapped */
	size_t len;
	uintptr_t base;		/* the load bias: image address A is at base + A */
} usdt_map_t;

/*
 * Map the image in fd (an ET_DYN of the host's class and machine, with
 * nothing for a dynamic linker to do: no interpreter, TLS, DT_NEEDED,
 * relocation or initializer) segment by segment with each segment's
 * protections.  Returns 0 with m filled in, or -1 with e set and nothing
 * mapped.
 */
int usdt_map_image(int fd, usdt_map_t *m, err_t *e);

/* Unmap what usdt_map_image mapped (nothing if m->start is NULL). */
void usdt_map_unmap(usdt_map_t *m);

#endif
