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

/* ---- temporaries committed together ------------------------------------ */

/*
 * A set of files written under temporary names and put in place together
 * (tempset_commit), or not at all (tempset_discard): -G's rewritten input
 * objects and its output, -h's header.  How each destination is treated
 * (doc/guarantees.md):
 *
 *   missing or a regular file (through any symlinks at its name: the file
 *     they lead to): a temporary beside it, renamed over it on commit;
 *   a device, FIFO or socket: the bytes go to an anonymous file and are
 *     written into the node on commit, as cc and ld do (never replaced);
 *   a directory: refused.
 *
 * A temporary that replaces an input (tempset_add with like != NULL) gets
 * its owner and group where they can be given (root, or the runner's own),
 * its mode, and on commit its modification time: a build tool that compares
 * times sees the object as old as the compile that made it, not newer than
 * the step that rewrote it.  An input is always replaced by a rename, never
 * written in place, so a reader (a linker, a second run) opens the old file
 * or the new one, never a mix; an input with other hard links leaves them
 * on the old content, and tempset_link gives further names the new file.
 *
 * The set may be read by a signal handler (tempset_unlink_all); every
 * change to it blocks the fatal signals usdtc catches, and so does the
 * commit.
 */
typedef struct temp_entry {
	char *dest;		/* what the temporary becomes */
	char *tmp;		/* its name on disk, or NULL (anonymous) */
	char *path;		/* the name writers open: tmp, or /proc/PID/fd/N */
	char *backup;		/* during commit: dest's old inode */
	int fd;			/* the anonymous file of a device/FIFO, or -1 */
	bool into;		/* dest is a device/FIFO: write into it */
	bool existed;		/* dest existed when the commit began */
	bool keep_time;		/* an input's: its old mtime is given back */
	struct timespec mtime;	/* that time */
} temp_entry_t;

typedef struct tempset {
	temp_entry_t *v;
	size_t n, cap;
} tempset_t;

/* The fatal signals a run catches, and that the set's changes block. */
extern const int tempset_signals[];

/*
 * A temporary for dest, added to ts.  like: the stat of the input it
 * replaces (its identity is kept), or NULL for a new output.  Returns the
 * entry's index and an open read-write descriptor in *fdp (the caller's to
 * close), or -1 with e set.
 */
int tempset_add(tempset_t *ts, const char *dest, const struct stat *like,
    int *fdp, err_t *e);

/*
 * Another name, dest, for the file of entry i (an input named twice by two
 * hard links): on commit dest becomes that same file too.  Entry i must
 * replace a regular file (tempset_add with like).  Returns 0, or -1 with e
 * set.
 */
int tempset_link(tempset_t *ts, int i, const char *dest, err_t *e);

/* The name the writers open for entry i. */
const char *tempset_path(const tempset_t *ts, int i);

/*
 * Put every entry in place: first the writes into devices and FIFOs, then,
 * with the fatal signals blocked, each replaced file's old inode kept aside
 * (a hard link), the inputs' times given back, and every rename, in order.
 * If one fails, those done are undone in reverse order (the kept inode
 * renamed back).  Afterwards the set is empty.  Returns 0, or -1 with e set.
 */
int tempset_commit(tempset_t *ts, err_t *e);

/* Remove every temporary and empty the set. */
void tempset_discard(tempset_t *ts);

/* Unlink every temporary of ts; async-signal-safe (for a handler). */
void tempset_unlink_all(const tempset_t *ts);

#endif
