/*
 * drti_fuse.h - whether a DTrace helper served through FUSE may be used,
 * found before anything reaches its daemon, and DTRACEHIOC_REMOVE's
 * argument there (drti_fuse.c says why and how).  drti_proto.c asks it
 * when it opens the helper and when it takes a registration back.
 */
#ifndef USDTC_DRTI_FUSE_H
#define USDTC_DRTI_FUSE_H

#include <stddef.h>

#include "drti_reg.h"

#pragma GCC visibility push(hidden)

/*
 * Before dev is opened: 1 when it may be, 0 when it is on a FUSE file
 * system whose server is not known to be trusted (said so), -1 (errno
 * set) when its directory cannot be opened.
 */
int drti_fuse_helper_ok(const drti_reg_t *r, const char *dev);
/* After the open, for a regular file: whether fd is on a trusted FUSE mount. */
int drti_trusted_fuse(int fd);
/*
 * REMOVE's argument for generation gen on a FUSE helper: an address whose
 * low 32 bits are gen and which holds it; 0 if none could be mapped.
 * The mapping is returned in *map and *maplen, for drti_munmap.
 */
unsigned long drti_fuse_remove_arg(int gen, void **map, size_t *maplen);

#pragma GCC visibility pop

#endif
