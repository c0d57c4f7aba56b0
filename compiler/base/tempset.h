/*
 * tempset.h - files written under temporary names and put in place
 * together, or not at all: every output of usdtc and every object -G
 * rewrites.
 */
#ifndef USDTC_TEMPSET_H
#define USDTC_TEMPSET_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <time.h>

#include "err.h"

/* ---- temporaries committed together ------------------------------------ */

/*
 * A set of files written under temporary names and put in place together
 * (tempset_commit), or not at all (tempset_discard): -G's rewritten input
 * objects and its output, -h's header.  How each destination is treated
 * (doc/guarantees.md):
 *
 *   (any symlink on the way, and a FIFO, as the kernel's protected_symlinks
 *     and protected_fifos allow: tempset.c, link_allowed)
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
