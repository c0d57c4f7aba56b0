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

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>

#include "err.h"

/* The most file_read_all reads: provider files are text a person wrote. */
#define FILE_READ_MAX	((size_t)256 << 20)

/*
 * The whole of path, malloc'd with a NUL after the last byte (*lenp does
 * not count it), or NULL with errno set: EISDIR for a directory, EFBIG past
 * FILE_READ_MAX bytes (/dev/zero, an endless pipe).  Pipes and FIFOs are
 * read (a provider given as <(cmd)); one with no writer (nothing to read
 * at once, and none to wait for) is ENXIO, never a wait.
 */
char *file_read_all(const char *path, size_t *lenp);

/*
 * The same for a regular file only, with e naming the failing call
 * ("PATH: open: ...", "PATH: not a regular file"); at most the size the file
 * had when opened is read.  st (if not NULL) receives its stat as opened.
 */
int file_read_regular(const char *path, uint8_t **bufp, size_t *lenp,
    struct stat *st, err_t *e);

/*
 * Its reading alone, of a descriptor file_open_regular gave with stat st:
 * from the descriptor's offset, at most st->st_size bytes (for a reader
 * that looks at the first bytes, with pread, before reading them all).
 */
int file_read_opened(int fd, const char *path, const struct stat *st, uint8_t **bufp,
    size_t *lenp, err_t *e);

/*
 * Open path for reading if it is a regular file (a FIFO is refused without
 * waiting for a writer, a device without reading it); its stat in *st.
 * Returns the descriptor, or -1 with e set as above.
 */
int file_open_regular(const char *path, struct stat *st, err_t *e);

/*
 * Write len bytes of buf to fd, retrying short writes and EINTR.  Returns
 * 0, or -1 with errno set (EIO if write() wrote nothing).
 */
int file_write_all_fd(int fd, const void *buf, size_t len);

/*
 * Writing a file by path, the one place that does: path is created (or
 * truncated; mode 0666 less the umask, close-on-exec) and fill writes its
 * bytes to the descriptor.  name is the file in messages (NULL: path): a
 * temporary is best named as the file it becomes.  Returns 0, or -1 with e
 * set ("cannot open NAME", "cannot write NAME"; a failing fill sets e).
 */
typedef int (*file_fill_fn)(int fd, const char *name, void *ctx, err_t *e);
int file_write_path(const char *path, const char *name, file_fill_fn fill, void *ctx,
    err_t *e);
/* file_write_path with len bytes of buf as what the file holds. */
int file_write_bytes(const char *path, const char *name, const void *buf, size_t len,
    err_t *e);

/*
 * An anonymous file (memfd; without it an unlinked O_TMPFILE in $TMPDIR or
 * /tmp) that a spawned program can open as /proc/self/fd/N.  flags:
 * MFD_CLOEXEC or 0.  Returns the descriptor, or -1 with e naming what for.
 */
int file_anon(const char *name, unsigned flags, err_t *e);

/*
 * An anonymous file for code a loader maps (libusdt's image where no
 * directory will do): a memfd that can be sealed, asked for with MFD_EXEC
 * and asked again without it where the kernel predates the flag (EINVAL)
 * or vm.memfd_noexec=2 refuses it (EACCES).  No O_TMPFILE fallback: a
 * tracer attaching by pid cannot find an object mapped from one.  Returns
 * the descriptor, or -1 with e saying "memfd_create for WHAT: cause".
 */
int file_anon_exec(const char *name, const char *what, err_t *e);
/* Seal a file from file_anon_exec against writes, growing and shrinking. */
int file_anon_seal(int fd, err_t *e);

#endif
