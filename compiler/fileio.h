/*
 * fileio.h - whole files in and out: the one reader and the one write loop.
 *
 * Every stage that reads a file reads all of it into memory and then works
 * on (buffer, length), so parsers and readers stay testable without files;
 * every write of a buffer to a descriptor goes through one loop that
 * survives short writes and EINTR.
 */
#ifndef USDTC_FILEIO_H
#define USDTC_FILEIO_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

/*
 * The whole of path, malloc'd with a NUL after the last byte (*lenp does
 * not count it), or NULL with errno set.
 */
char *file_read_all(const char *path, size_t *lenp);

/*
 * The same for a regular file only, with e naming the failing call
 * ("PATH: open: ...", "PATH: not a regular file").
 */
int file_read_regular(const char *path, uint8_t **bufp, size_t *lenp, err_t *e);

/*
 * Write len bytes of buf to fd, retrying short writes and EINTR.  Returns
 * 0, or -1 with errno set (EIO if write() wrote nothing).
 */
int fd_write_all(int fd, const void *buf, size_t len);

/*
 * An anonymous file (memfd; without it an unlinked O_TMPFILE in $TMPDIR or
 * /tmp) that a spawned program can open as /proc/self/fd/N.  flags:
 * MFD_CLOEXEC or 0.  Returns the descriptor, or -1 with e naming what for.
 */
int anon_file(const char *name, unsigned flags, err_t *e);

#endif
