/*
 * drti_objects.h - the drti_lite object -G links in, per target.
 *
 * usdtc carries the objects it links into -G outputs (drti_blob.S): the
 * host's runtime/drti_lite.c, and for other targets whatever the build
 * could compile (drti_objects.c says how each is made).  -G asks here.
 */
#ifndef USDTC_DRTI_OBJECTS_H
#define USDTC_DRTI_OBJECTS_H

#include <stddef.h>

#include "target.h"

/*
 * The bytes of target t's drti_lite object and their size; NULL and 0 when
 * this usdtc was built without one for t.
 */
const unsigned char *drti_object_for(const target_t *t, size_t *size);

/* Why t has no drti_lite object and what to do instead, for a message. */
const char *drti_object_missing(const target_t *t);

/*
 * The linker that can combine objects of t with `ld -r` when none was
 * named: "ld" for the host's machine, the cross linker otherwise.
 */
const char *drti_linker(const target_t *t);

#endif
