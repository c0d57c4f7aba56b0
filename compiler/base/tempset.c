/*
 * tempset.c - temporaries committed together (tempset.h).
 *
 * Writing.  Outputs and -G's rewritten objects are written to temporaries
 * that a tempset puts in place together (tempset.h says what each kind of
 * destination gets).  The commit keeps every replaced file's old inode
 * under a second name (a hard link) until the last step has succeeded, so
 * that a failure can rename each back; its changes are made with the fatal
 * signals blocked, because the handler of usdtc's main walks the set to
 * remove the temporaries.
 *
 * Why an input is never written in place, not even one with other hard
 * links (Oracle's dtrace -G edits objects in place, so every link sees
 * the edit): bytes copied into a file that a linker or a second -G is
 * reading are seen half old, half new, and a copy that fails midway (a
 * full disk) leaves the file neither; a rename is seen whole or not at all
 * and touches no byte of the old file.  The price is that the name given
 * to -G gets a new inode: a hard link not given keeps the old object (as a
 * ccache cache entry linked into the build tree must), and names given
 * together are linked to the new one (tempset_link).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "stale.h"
#include "tempset.h"

/* ---- temporaries committed together (tempset.h) --------------------------- */

const int tempset_signals[] = {
	SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE, SIGXCPU, SIGXFSZ, 0
};

/* Block (or, with old, restore) the signals whose handler reads a set. */
static void
block_signals(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	for (int i = 0; tempset_signals[i] != 0; i++)
		sigaddset(&set, tempset_signals[i]);
	sigprocmask(SIG_BLOCK, &set, old);
}

static void
restore_signals(const sigset_t *old)
{
	sigprocmask(SIG_SETMASK, old, NULL);
}

/*
 * 0 if the symlink at path (lstat'ed into lst) may be followed, as the
 * kernel's protected_symlinks allows: unless it sits in a sticky
 * world-writable directory (/tmp), it may; there, only if it is ours or the
 * directory owner's.  usdtc resolves links itself, to rename its temporary
 * over the file they lead to, so the kernel's own check never applies to
 * that rename: without this, another user's link in /tmp would have root
 * replace any file.  -1 with e otherwise.
 */
static int
link_allowed(const char *path, const struct stat *lst, err_t *e)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash == NULL ? strdup(".") :
	    strndup(path, slash == path ? 1 : (size_t)(slash - path));
	struct stat dst;
	int ok;

	if (dir == NULL)
		return err_errno(e, ENOMEM, "%s", path);
	ok = stat(dir, &dst) != 0 || !(dst.st_mode & S_ISVTX) || !(dst.st_mode & S_IWOTH) ||
	    lst->st_uid == geteuid() || lst->st_uid == dst.st_uid;
	if (!ok)
		err_set(e, "%s: a symlink of another user (uid %u) in the sticky world-writable "
		    "directory %s: not followed, as the kernel's protected_symlinks refuses "
		    "it; remove it, or name the file it leads to [OUT_SYMLINK]", path,
		    (unsigned)lst->st_uid, dir);
	free(dir);
	return ok ? 0 : -1;
}

/*
 * Follow the symlinks at path's last component (as open() would) to the
 * name of the file itself, which need not exist, each link checked
 * (link_allowed); malloc'd, or NULL with e set (ELOOP after 40 links, as
 * the kernel).
 */
static char *
follow_links(const char *path, err_t *e)
{
	char *cur = strdup(path), target[PATH_MAX];
	struct stat st;

	for (int i = 0; cur != NULL && i < 40; i++) {
		ssize_t n;
		char *next, *slash;

		if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode))
			return cur;
		if (link_allowed(cur, &st, e) != 0) {
			free(cur);
			return NULL;
		}
		if ((n = readlink(cur, target, sizeof(target) - 1)) < 0)
			break;
		target[n] = '\0';
		slash = strrchr(cur, '/');
		if (target[0] == '/' || slash == NULL)
			next = strdup(target);
		else if (asprintf(&next, "%.*s%s", (int)(slash - cur + 1), cur, target) < 0)
			next = NULL;
		free(cur);
		cur = next;
	}
	if (cur != NULL) {
		free(cur);
		errno = ELOOP;
	}
	err_errno(e, errno, "%s", path);
	return NULL;
}

/*
 * 0 if the device, FIFO or socket at dest (stat'ed into st) may be written
 * into: the links to it may be followed (follow_links), and a FIFO is
 * written into as the kernel's protected_fifos allows an O_CREAT open: not
 * in a sticky world-writable directory, or ours or the directory owner's.
 * -1 with e otherwise.
 */
static int
into_allowed(const char *dest, const struct stat *st, err_t *e)
{
	char *real;
	const char *slash;
	struct stat dst;
	int ok = 1;

	if ((real = follow_links(dest, e)) == NULL)
		return -1;
	if (!S_ISFIFO(st->st_mode)) {
		free(real);
		return 0;
	}
	slash = strrchr(real, '/');
	if (slash != NULL)
		real[slash == real ? 1 : slash - real] = '\0';
	if (stat(slash != NULL ? real : ".", &dst) == 0 && (dst.st_mode & S_ISVTX) &&
	    (dst.st_mode & S_IWOTH) && st->st_uid != geteuid() && st->st_uid != dst.st_uid)
		ok = err_set(e, "%s: a FIFO of another user (uid %u) in a sticky world-writable "
		    "directory: not written into, as the kernel's protected_fifos refuses "
		    "it [OUT_FIFO]", dest, (unsigned)st->st_uid) + 1;
	free(real);
	return ok ? 0 : -1;
}

/*
 * A new file beside dest named ".NAME~PID.TAG~XXXXXX" (stale.h: a later run
 * removes it if this one is killed), NAME shortened so that the name fits
 * NAME_MAX and the path PATH_MAX: a name the user could give always leaves
 * room for its temporary.  The directory's stale temporaries go first.
 * Returns its fd, the name in *tmpp.
 */
static int
temp_beside(const char *dest, char **tmpp)
{
	const char *slash = strrchr(dest, '/'), *base = slash ? slash + 1 : dest;
	size_t dirlen = (size_t)(base - dest), baselen = strlen(base);
	char stamp[STALE_STAMP_MAX + 1], *dir;
	size_t suffix = 1 + STALE_STAMP_MAX + 6;	/* ".", "~PID.TAG~", "XXXXXX" */
	size_t room = NAME_MAX - suffix;
	int fd;

	if (dirlen + suffix + 1 < PATH_MAX && PATH_MAX - 1 - dirlen - suffix < room)
		room = PATH_MAX - 1 - dirlen - suffix;
	if (baselen > room)
		baselen = room;
	if ((dir = strndup(dest, dirlen)) == NULL)
		return *tmpp = NULL, errno = ENOMEM, -1;
	stale_sweep(dir);
	free(dir);
	stale_stamp(stamp, sizeof(stamp));
	if (asprintf(tmpp, "%.*s.%.*s%sXXXXXX", (int)dirlen, dest, (int)baselen, base,
	    stamp) < 0)
		return *tmpp = NULL, errno = ENOMEM, -1;
	if ((fd = mkostemp(*tmpp, O_CLOEXEC)) < 0) {
		int saved = errno;

		free(*tmpp);
		*tmpp = NULL;
		errno = saved;
	}
	return fd;
}

/*
 * Give the temporary for an input the input's owner and group where that
 * is allowed (root, or a group of the runner's), else they stay the
 * runner's, as a compiler writing the object afresh would leave them; then
 * its mode.  false if the mode cannot be set.
 */
static bool
take_identity(int fd, const struct stat *like)
{
	bool owned = like->st_uid == geteuid() && like->st_gid == getegid();

	if (!owned && fchown(fd, like->st_uid, like->st_gid) != 0 &&
	    fchown(fd, (uid_t)-1, like->st_gid) != 0) {
		/* Neither is ours to give: they stay the runner's, as cc's output's. */
	}
	/* After fchown, which clears set-id bits. */
	return fchmod(fd, like->st_mode & 07777) == 0;
}

/* The process's umask (there is no call that only reads it). */
static mode_t
current_umask(void)
{
	mode_t mask = umask(0);

	umask(mask);
	return mask;
}

/* Fill entry t for dest; its open descriptor, or -1 with e set. */
static int
temp_entry_init(temp_entry_t *t, const char *dest, const struct stat *like, err_t *e)
{
	struct stat st;
	int fd;

	memset(t, 0, sizeof(*t));
	t->fd = -1;
	if (stat(dest, &st) == 0 && S_ISDIR(st.st_mode))
		return err_set(e, "%s: is a directory", dest);
	if (stat(dest, &st) == 0 && !S_ISREG(st.st_mode)) {
		/*
		 * A device, FIFO or socket: written into on commit, never
		 * replaced; a name the kernel opens (/dev/stdout), its links
		 * checked as any output's.
		 */
		if (into_allowed(dest, &st, e) != 0)
			return -1;
		t->into = true;
		if ((t->dest = strdup(dest)) == NULL)
			return err_errno(e, ENOMEM, "%s", dest);
		/* /proc/PID, not /proc/self: a linker (-x ldpath=) opens it too. */
		if ((t->fd = file_anon("usdtc-output", MFD_CLOEXEC, e)) < 0 ||
		    asprintf(&t->path, "/proc/%d/fd/%d", (int)getpid(), t->fd) < 0 ||
		    (fd = dup(t->fd)) < 0)
			return err_errno(e, errno, "%s", dest);
		return fd;
	}
	if ((t->dest = follow_links(dest, e)) == NULL)
		return -1;
	if ((fd = temp_beside(t->dest, &t->tmp)) < 0)
		return err_errno(e, errno, "cannot create a file beside %s", t->dest);
	if ((t->path = strdup(t->tmp)) == NULL) {
		close(fd);
		return err_errno(e, ENOMEM, "%s", dest);
	}
	if (like != NULL) {
		if (!take_identity(fd, like)) {
			err_errno(e, errno, "cannot set the mode of a file beside %s", t->dest);
			close(fd);
			return -1;
		}
		t->keep_time = true;
		t->mtime = like->st_mtim;
	} else {
		fchmod(fd, 0666 & ~current_umask());
	}
	return fd;
}

static void
temp_entry_free(temp_entry_t *t)
{
	if (t->tmp != NULL)
		unlink(t->tmp);
	if (t->backup != NULL)
		unlink(t->backup);
	if (t->fd >= 0)
		close(t->fd);
	free(t->dest);
	free(t->tmp);
	free(t->path);
	free(t->backup);
}

/* Room for one more entry (for dest, in e's message); 0 or -1. */
static int
tempset_grow(tempset_t *ts, const char *dest, err_t *e)
{
	size_t cap = ts->cap ? ts->cap * 2 : 8;
	temp_entry_t *v;
	sigset_t old;

	if (ts->n < ts->cap)
		return 0;
	if ((v = malloc(cap * sizeof(*v))) == NULL)
		return err_errno(e, ENOMEM, "%s", dest);
	/* The handler may read the old array until the new one is in. */
	if (ts->n > 0)
		memcpy(v, ts->v, ts->n * sizeof(*v));
	block_signals(&old);
	free(ts->v);
	ts->v = v;
	ts->cap = cap;
	restore_signals(&old);
	return 0;
}

int
tempset_add(tempset_t *ts, const char *dest, const struct stat *like, int *fdp, err_t *e)
{
	temp_entry_t t;
	sigset_t old;
	int fd;

	if (tempset_grow(ts, dest, e) != 0)
		return -1;
	block_signals(&old);
	fd = temp_entry_init(&t, dest, like, e);
	ts->v[ts->n++] = t;	/* even half made: discard frees it */
	restore_signals(&old);
	if (fd < 0)
		return -1;
	*fdp = fd;
	return (int)(ts->n - 1);
}

/*
 * A new name beside dest for the existing file src: a name reserved by
 * temp_beside, then replaced by the link (link() will not replace; a name
 * taken in between is tried again).  Returns 0 with the name in *tmpp.
 */
static int
link_beside(const char *src, const char *dest, char **tmpp)
{
	for (int tries = 0; tries < 100; tries++) {
		int fd = temp_beside(dest, tmpp), saved;

		if (fd < 0)
			return -1;
		close(fd);
		if (unlink(*tmpp) != 0) {
			saved = errno;
			unlink(*tmpp);
		} else if (link(src, *tmpp) == 0) {
			return 0;
		} else {
			saved = errno;	/* EEXIST: another file took the name */
		}
		free(*tmpp);
		*tmpp = NULL;
		if ((errno = saved) != EEXIST)
			return -1;
	}
	return -1;
}

/* Fill entry t: dest, a second name of entry from's temporary. */
static int
link_entry_init(temp_entry_t *t, const temp_entry_t *from, const char *dest, err_t *e)
{
	memset(t, 0, sizeof(*t));
	t->fd = -1;
	if (from->tmp == NULL || from->into)
		return err_set(e, "%s: only a replaced file can have a second name", dest);
	if ((t->dest = follow_links(dest, e)) == NULL)
		return -1;
	if (link_beside(from->tmp, t->dest, &t->tmp) != 0)
		return err_errno(e, errno, "cannot create a file beside %s", t->dest);
	if ((t->path = strdup(t->tmp)) == NULL)
		return err_errno(e, ENOMEM, "%s", dest);
	t->keep_time = from->keep_time;
	t->mtime = from->mtime;
	return 0;
}

int
tempset_link(tempset_t *ts, int i, const char *dest, err_t *e)
{
	temp_entry_t t;
	sigset_t old;
	int rc;

	if (tempset_grow(ts, dest, e) != 0)
		return -1;
	block_signals(&old);
	rc = link_entry_init(&t, &ts->v[i], dest, e);
	ts->v[ts->n++] = t;	/* even half made: discard frees it */
	restore_signals(&old);
	return rc;
}

const char *
tempset_path(const tempset_t *ts, int i)
{
	return ts->v[i].path;
}

void
tempset_unlink_all(const tempset_t *ts)
{
	for (size_t i = 0; i < ts->n; i++) {
		if (ts->v[i].tmp != NULL)
			unlink(ts->v[i].tmp);
		if (ts->v[i].backup != NULL)
			unlink(ts->v[i].backup);
	}
}

void
tempset_discard(tempset_t *ts)
{
	sigset_t old;

	block_signals(&old);
	for (size_t i = 0; i < ts->n; i++)
		temp_entry_free(&ts->v[i]);
	free(ts->v);
	ts->v = NULL;
	ts->n = ts->cap = 0;
	restore_signals(&old);
}

/* Copy all of from (from offset 0) over to, truncated to that size. */
static int
copy_fd(int from, int to)
{
	char buf[65536];
	off_t at = 0;
	ssize_t n;

	while ((n = pread(from, buf, sizeof(buf), at)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || file_write_all_fd(to, buf, (size_t)n) != 0)
			return -1;
		at += n;
	}
	/* A device or FIFO has no size to set. */
	if (ftruncate(to, at) != 0 && errno != EINVAL)
		return -1;
	return 0;
}

/* Write the bytes for a device or FIFO into it (may wait for a reader). */
static int
commit_into(temp_entry_t *t, err_t *e)
{
	int fd = open(t->dest, O_WRONLY | O_CLOEXEC | O_NOCTTY), rc;

	if (fd < 0)
		return err_errno(e, errno, "cannot open %s", t->dest);
	rc = copy_fd(t->fd, fd);
	if (rc != 0)
		err_errno(e, errno, "cannot write %s", t->dest);
	if (close(fd) != 0 && rc == 0)
		rc = err_errno(e, errno, "cannot write %s", t->dest);
	return rc;
}

/*
 * Keep dest's present inode under a second name (rename replaces dest), and
 * give an input's temporary the input's modification time: after every
 * write to it, since a write sets the time.
 */
static int
keep_aside(temp_entry_t *t, err_t *e)
{
	struct stat st;
	struct timespec times[2] = { { 0, UTIME_OMIT }, t->mtime };

	if (t->keep_time && utimensat(AT_FDCWD, t->tmp, times, 0) != 0)
		return err_errno(e, errno, "cannot set the modification time of %s", t->dest);
	t->existed = lstat(t->dest, &st) == 0;
	if (!t->existed)
		return 0;
	if (link_beside(t->dest, t->dest, &t->backup) == 0)
		return 0;
	return err_errno(e, errno, "cannot keep a copy of %s while replacing it", t->dest);
}

static int
put_in_place(temp_entry_t *t, err_t *e)
{
	if (rename(t->tmp, t->dest) != 0)
		return err_errno(e, errno, "cannot write %s", t->dest);
	free(t->tmp);
	t->tmp = NULL;
	return 0;
}

/*
 * Undo put_in_place: the old inode comes back, or the new name goes.  If
 * the old inode cannot be renamed back, its second name is kept (never
 * removed with the temporaries) and e says where it is.
 */
static void
take_back(temp_entry_t *t, err_t *e)
{
	char first[ERR_MSG_MAX];

	if (!t->existed) {
		unlink(t->dest);
		return;
	}
	if (rename(t->backup, t->dest) != 0) {
		int saved = errno;

		snprintf(first, sizeof(first), "%s", e->msg);
		err_errno(e, saved, "%s; and the old %s could not be put back, it is kept "
		    "as %s", first, t->dest, t->backup);
	}
	free(t->backup);
	t->backup = NULL;
}

int
tempset_commit(tempset_t *ts, err_t *e)
{
	sigset_t old;
	size_t done = 0;
	int rc = 0;

	for (size_t i = 0; i < ts->n && rc == 0; i++)
		if (ts->v[i].into)
			rc = commit_into(&ts->v[i], e);
	block_signals(&old);
	for (size_t i = 0; i < ts->n && rc == 0; i++)
		if (!ts->v[i].into)
			rc = keep_aside(&ts->v[i], e);
	for (; done < ts->n && rc == 0; done++)
		if (!ts->v[done].into && put_in_place(&ts->v[done], e) != 0) {
			rc = -1;
			break;	/* entry done was not put in place: not undone */
		}
	if (rc != 0)
		while (done-- > 0)
			if (!ts->v[done].into)
				take_back(&ts->v[done], e);
	restore_signals(&old);
	tempset_discard(ts);
	return rc;
}
