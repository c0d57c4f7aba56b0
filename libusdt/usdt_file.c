/*
 * usdt_file.c - where the shared object of an enabled provider lives.
 *
 * Tracers find USDT probes in the files a process maps.  bpftrace 0.17
 * (through bcc) also resolves a memfd mapping, "/memfd:NAME (deleted)" in
 * /proc/PID/maps, by looking for a descriptor of the same inode in
 * /proc/PID/fd; tracers that walk the paths of /proc/PID/maps and open
 * each one (newer bpftrace releases parse the ELF files themselves, and
 * skip "(deleted)" entries) never see a memfd.  So the object gets a real
 * path while its provider is enabled:
 *
 *  - the directory is the first usable one of $LIBUSDT_DIR (a ':'
 *    separated list; empty means none), else $XDG_RUNTIME_DIR,
 *    /run/user/EUID, /dev/shm, $TMPDIR, /tmp, /var/tmp.  It is opened
 *    once, and everything after the checks goes through that descriptor,
 *    never through its path again (the path may be a symlink another
 *    user flips).  Usable: mounted neither read-only nor noexec (the
 *    image could not be mapped executable), owned by us or root, sticky if anyone may
 *    write to it (nobody else can rename or replace our file), we can
 *    create a file in it, and its whole real path is safe as OpenSSH
 *    wants a key file's: every component a directory (no symlink) owned
 *    by root or us, none writable by group or others unless sticky and
 *    root-owned, so the path tracers read in maps leads to our file.
 *    Environment variables are read with secure_getenv, so a setuid
 *    program uses the fixed directories only;
 *  - the file, libusdt-NS-PID-START-SEQ-RAND-PROVIDER.so, is created
 *    with openat(dirfd) O_EXCL | O_NOFOLLOW and mode 0400, written, then
 *    the writable descriptor is exchanged for a read-only one of the same
 *    inode (a write to the file would change the code of the running
 *    probes: MAP_PRIVATE pages not yet copied are the file's).  RAND is
 *    64 bits from getrandom, so no other user can plant the name before
 *    us (a planted name would only cost a retry: up to NAME_TRIES);
 *  - the image is mapped from that descriptor (usdt_map.c), never
 *    opened by name again; maps show its real path, since the kernel
 *    names a mapping by the file's dentry.  The directory's descriptor
 *    stays open while a file in it is live (removal goes through it);
 *  - it is unlinked, with unlinkat in that directory and only while the
 *    name is still the inode created, when the provider is disabled or
 *    freed, and at exit (a destructor walks the live files of this
 *    process, not of a parent it was forked from); and when a process is
 *    killed before that, the next process of the same user that uses the
 *    directory sweeps it: NS (the pid namespace), PID and START (its start
 *    time in /proc/PID/stat) say whether its owner is gone, so a pid
 *    reused since is not mistaken for the owner, and a process in another
 *    pid namespace is never judged;
 *  - where no directory is usable the object goes into a memfd, as
 *    before (fileio.c's file_anon_exec and file_anon_seal): created
 *    executable (MFD_EXEC) where the kernel has that flag, and without it
 *    when vm.memfd_noexec=2 refuses it (EACCES), then sealed against
 *    writes, growing and shrinking once written.  Its
 *    descriptor stays open while the provider is enabled, since bcc finds
 *    the object through it.
 *
 * Errors that are not about the directory (EMFILE, ENFILE, ENOMEM) stop
 * the search and are reported as they are.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "fileio.h"
#include "usdt_file.h"

#define FILE_PREFIX "libusdt-"
#define NAME_TRIES 16

/*
 * A checked directory, shared by the files in it: its descriptor stays
 * open while one of them is live (they are removed through it), and is
 * closed with the last.
 */
typedef struct usdt_dir {
	int fd;
	dev_t dev;
	ino_t ino;
	char *path;		/* its real path when checked (messages) */
	unsigned refs;
	struct usdt_dir *next;
} usdt_dir_t;

/* The live named files of this process (unlinked at exit), and their directories. */
static pthread_mutex_t files_lock = PTHREAD_MUTEX_INITIALIZER;
static usdt_file_t *live_files;
static usdt_dir_t *dirs;
static unsigned file_seq;

void
usdt_file_fork_prepare(void)
{
	pthread_mutex_lock(&files_lock);
}

void
usdt_file_fork_parent(void)
{
	pthread_mutex_unlock(&files_lock);
}

void
usdt_file_fork_child(void)
{
	pthread_mutex_init(&files_lock, NULL);
}

/* ---- who we are ---------------------------------------------------------- */

/* Field 22 of /proc/PID/stat (start time in clock ticks), 0 if unknown. */
static unsigned long long
start_time(long pid)
{
	char path[64], buf[1024], *p;
	unsigned long long start = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	if ((p = strrchr(buf, ')')) == NULL)
		return 0;
	/* After ") ": state is field 3; start time is field 22. */
	if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u "
	    "%*d %*d %*d %*d %*d %*d %llu", &start) != 1)
		return 0;
	return start;
}

/* The inode of our pid namespace, 0 if unknown. */
static unsigned long long
pid_namespace(void)
{
	char link[64];
	unsigned long long ns = 0;
	ssize_t n = readlink("/proc/self/ns/pid", link, sizeof(link) - 1);

	if (n > 0) {
		link[n] = '\0';
		if (sscanf(link, "pid:[%llu]", &ns) != 1)
			ns = 0;
	}
	return ns;
}

/* 64 bits no other user can guess (getrandom; a weaker mix only without it). */
static unsigned long long
name_random(void)
{
	unsigned long long r = 0;
	struct timespec ts;

	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) == (ssize_t)sizeof(r))
		return r;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return r ^ ((unsigned long long)ts.tv_nsec << 20) ^ (unsigned long long)ts.tv_sec ^
	    (unsigned long long)(uintptr_t)&r;
}

/* ---- sweeping ------------------------------------------------------------ */

/* Whether the process that made a file (in our pid namespace) is gone. */
static bool
owner_gone(long pid, unsigned long long start)
{
	unsigned long long now;

	if (kill((pid_t)pid, 0) != 0 && errno == ESRCH)
		return true;
	now = start_time(pid);
	return start != 0 && now != 0 && now != start;
}

/*
 * Unlink the files in dirfd that processes of our namespace, now gone,
 * left: only regular files of our own user (root too leaves other users'
 * files to them), only with unlinkat in the checked directory.
 */
static void
sweep(int dirfd, unsigned long long ns)
{
	int fd = dup(dirfd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;

	if (d == NULL) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		unsigned long long fns, start;
		long pid;
		unsigned seq;
		struct stat st;

		if (strncmp(de->d_name, FILE_PREFIX, strlen(FILE_PREFIX)) != 0 ||
		    sscanf(de->d_name + strlen(FILE_PREFIX), "%llu-%ld-%llu-%u-",
		    &fns, &pid, &start, &seq) != 4 || fns != ns || pid <= 0)
			continue;
		if (fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !S_ISREG(st.st_mode) || st.st_uid != geteuid())
			continue;
		if (owner_gone(pid, start))
			unlinkat(dirfd, de->d_name, 0);
	}
	closedir(d);
}

/* Sweep each directory once per process (and again after a fork). */
static void
sweep_once(const usdt_dir_t *dir, unsigned long long ns)
{
	static struct { dev_t dev; ino_t ino; } done[8];
	static pid_t done_pid;
	static int ndone;

	pthread_mutex_lock(&files_lock);
	if (done_pid != getpid()) {
		done_pid = getpid();
		ndone = 0;
	}
	for (int i = 0; i < ndone; i++)
		if (done[i].dev == dir->dev && done[i].ino == dir->ino) {
			pthread_mutex_unlock(&files_lock);
			return;
		}
	if (ndone < 8) {
		done[ndone].dev = dir->dev;
		done[ndone++].ino = dir->ino;
	}
	pthread_mutex_unlock(&files_lock);
	sweep(dir->fd, ns);
}

/* ---- directories --------------------------------------------------------- */

/* Whether a directory can hold an image we map, safely. */
static bool
dir_usable(int dirfd, struct stat *st)
{
	struct statvfs vfs;

	if (fstatvfs(dirfd, &vfs) != 0 || (vfs.f_flag & (ST_RDONLY | ST_NOEXEC)) != 0)
		return false;
	if (fstat(dirfd, st) != 0 || !S_ISDIR(st->st_mode))
		return false;
	if (st->st_uid != 0 && st->st_uid != geteuid())
		return false;
	if ((st->st_mode & (S_IWGRP | S_IWOTH)) != 0 && (st->st_mode & S_ISVTX) == 0)
		return false;
	return true;
}

/* An ancestor of the directory: a real directory nobody else can change. */
static bool
ancestor_safe(const struct stat *st)
{
	if (!S_ISDIR(st->st_mode))
		return false;
	if (st->st_uid != 0 && st->st_uid != geteuid())
		return false;
	if ((st->st_mode & (S_IWGRP | S_IWOTH)) == 0)
		return true;
	return (st->st_mode & S_ISVTX) != 0 && st->st_uid == 0;
}

/*
 * The real path of the directory we hold, malloc'd, if every component of
 * it is safe (ancestor_safe; the directory itself passed dir_usable) and
 * it still names the directory we hold; else NULL.
 */
static char *
dir_real_path(int dirfd, const struct stat *dst)
{
	char link[64], *path = malloc(PATH_MAX);
	struct stat st;
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", dirfd);
	if (path == NULL || (n = readlink(link, path, PATH_MAX - 1)) <= 0 || path[0] != '/')
		goto bad;
	path[n] = '\0';
	for (char *p = path + 1; (p = strchr(p, '/')) != NULL; p++) {
		*p = '\0';
		if (lstat(path, &st) != 0 || !ancestor_safe(&st)) {
			*p = '/';
			goto bad;
		}
		*p = '/';
	}
	if (lstat("/", &st) != 0 || !ancestor_safe(&st))
		goto bad;
	if (lstat(path, &st) != 0 || !S_ISDIR(st.st_mode) ||
	    st.st_dev != dst->st_dev || st.st_ino != dst->st_ino)
		goto bad;
	return path;
bad:
	free(path);
	return NULL;
}

/* Errors that say "not this directory", as opposed to "not at all". */
static bool
dir_error(int err)
{
	return err != EMFILE && err != ENFILE && err != ENOMEM;
}

/*
 * The checked directory dir names now, shared with the files already in
 * it: 1 with *out set (a reference taken), 0 not usable, -1 with e set.
 */
static int
dir_get(const char *dir, usdt_dir_t **out, err_t *e)
{
	usdt_dir_t *d;
	struct stat st;
	char *real;
	int fd;

	if (dir == NULL || dir[0] != '/')
		return 0;
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return dir_error(errno) ? 0 : err_errno(e, errno, "opening %s", dir);
	if (!dir_usable(fd, &st)) {
		close(fd);
		return 0;
	}
	pthread_mutex_lock(&files_lock);
	for (d = dirs; d != NULL; d = d->next)
		if (d->dev == st.st_dev && d->ino == st.st_ino)
			break;
	if (d != NULL) {
		d->refs++;
		pthread_mutex_unlock(&files_lock);
		close(fd);
		*out = d;
		return 1;
	}
	pthread_mutex_unlock(&files_lock);
	if ((real = dir_real_path(fd, &st)) == NULL || (d = calloc(1, sizeof(*d))) == NULL) {
		close(fd);
		if (real == NULL)
			return 0;
		free(real);
		return err_errno(e, ENOMEM, "directory %s", dir);
	}
	*d = (usdt_dir_t){ fd, st.st_dev, st.st_ino, real, 1, NULL };
	pthread_mutex_lock(&files_lock);
	d->next = dirs;
	dirs = d;
	pthread_mutex_unlock(&files_lock);
	*out = d;
	return 1;
}

/* Drop a reference; the last closes the directory. */
static void
dir_put(usdt_dir_t *d)
{
	bool last;

	pthread_mutex_lock(&files_lock);
	if ((last = --d->refs == 0))
		for (usdt_dir_t **l = &dirs; *l != NULL; l = &(*l)->next)
			if (*l == d) {
				*l = d->next;
				break;
			}
	pthread_mutex_unlock(&files_lock);
	if (last) {
		close(d->fd);
		free(d->path);
		free(d);
	}
}

/*
 * Create f's file in d under a fresh name: 1 done, 0 not here, -1 with e
 * set.  A name that exists (planted, or a clash) is retried with new
 * random bits, a few times.
 */
static int
create_in(usdt_file_t *f, usdt_dir_t *d, const char *provider, err_t *e)
{
	unsigned long long ns = pid_namespace(), start = start_time((long)getpid());
	char name[200];
	struct stat st;
	int fd = -1, err = 0;

	sweep_once(d, ns);
	for (int i = 0; i < NAME_TRIES && fd < 0; i++) {
		unsigned seq = __atomic_fetch_add(&file_seq, 1, __ATOMIC_RELAXED);

		snprintf(name, sizeof(name), FILE_PREFIX "%llu-%ld-%llu-%u-%llu-%.63s.so", ns,
		    (long)getpid(), start, seq, name_random(), provider);
		fd = openat(d->fd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0400);
		err = errno;
		if (fd < 0 && err != EEXIST)
			break;
	}
	if (fd < 0)
		return dir_error(err) ? 0 : err_errno(e, err, "creating a file in %s", d->path);
	if (fstat(fd, &st) != 0 || (f->name = strdup(name)) == NULL ||
	    asprintf(&f->path, "%s/%s", d->path, name) < 0) {
		f->path = NULL;
		unlinkat(d->fd, name, 0);
		close(fd);
		free(f->name);
		f->name = NULL;
		return err_errno(e, ENOMEM, "file name");
	}
	f->fd = fd;
	f->dir = d;
	f->dev = st.st_dev;
	f->ino = st.st_ino;
	return 1;
}

/* Try directory dir: 1 done, 0 not here, -1 with e set. */
static int
try_dir(usdt_file_t *f, const char *dir, const char *provider, err_t *e)
{
	usdt_dir_t *d = NULL;
	int rc = dir_get(dir, &d, e);

	if (rc != 1)
		return rc;
	if ((rc = create_in(f, d, provider, e)) != 1)
		dir_put(d);
	return rc;
}

/* The directories to try, in order; a malloc'd ':'-separated list. */
static char *
candidate_dirs(void)
{
	const char *env = secure_getenv("LIBUSDT_DIR");
	const char *xdg = secure_getenv("XDG_RUNTIME_DIR");
	const char *tmp = secure_getenv("TMPDIR");
	char *list;

	if (env != NULL)
		return strdup(env);
	if (asprintf(&list, "%s:/run/user/%ld:/dev/shm:%s:/tmp:/var/tmp",
	    xdg != NULL ? xdg : "", (long)geteuid(), tmp != NULL ? tmp : "") < 0)
		return NULL;
	return list;
}

/* ---- the file ------------------------------------------------------------ */

static void
file_init(usdt_file_t *f)
{
	memset(f, 0, sizeof(*f));
	f->fd = -1;
	f->owner = getpid();
}

int
usdt_file_create_memfd(usdt_file_t *f, const char *provider, err_t *e)
{
	char name[96], what[96];
	int fd;

	file_init(f);
	snprintf(name, sizeof(name), "libusdt:%.63s", provider);
	snprintf(what, sizeof(what), "provider %.63s", provider);
	if ((fd = file_anon_exec(name, what, e)) < 0)
		return -1;
	f->fd = fd;
	return 0;
}

int
usdt_file_create(usdt_file_t *f, const char *provider, err_t *e)
{
	char *list = candidate_dirs(), *save = NULL;
	int rc = 0;

	file_init(f);
	if (list == NULL)
		return err_errno(e, ENOMEM, "directory list");
	for (char *d = strtok_r(list, ":", &save); d != NULL && rc == 0;
	    d = strtok_r(NULL, ":", &save))
		rc = try_dir(f, d, provider, e);
	free(list);
	if (rc < 0)
		return -1;
	if (rc == 0)
		return usdt_file_create_memfd(f, provider, e);
	pthread_mutex_lock(&files_lock);
	if ((f->next = live_files) != NULL)
		live_files->pprev = &f->next;
	live_files = f;
	f->pprev = &live_files;
	pthread_mutex_unlock(&files_lock);
	return 0;
}

/* Whether f's name in its directory is still the inode we created. */
static bool
name_is_ours(const usdt_file_t *f)
{
	struct stat st;

	return fstatat(f->dir->fd, f->name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    st.st_dev == f->dev && st.st_ino == f->ino;
}

int
usdt_file_seal(usdt_file_t *f, err_t *e)
{
	struct stat st;
	int ro;

	if (f->name == NULL)
		return file_anon_seal(f->fd, e);
	if ((ro = openat(f->dir->fd, f->name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return err_errno(e, errno, "reopening %s", f->path);
	if (fstat(ro, &st) != 0 || st.st_dev != f->dev || st.st_ino != f->ino) {
		close(ro);
		return err_set(e, "%s was replaced while it was written", f->path);
	}
	close(f->fd);
	f->fd = ro;
	return 0;
}

void
usdt_file_loaded(usdt_file_t *f)
{
	if (f->name != NULL && f->fd >= 0) {
		close(f->fd);
		f->fd = -1;
	}
}

void
usdt_file_remove(usdt_file_t *f)
{
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	if (f->name == NULL)
		return;
	pthread_mutex_lock(&files_lock);
	if (f->pprev != NULL) {
		if ((*f->pprev = f->next) != NULL)
			f->next->pprev = f->pprev;
		f->pprev = NULL;
		f->next = NULL;
	}
	pthread_mutex_unlock(&files_lock);
	if (f->owner == getpid() && name_is_ours(f))
		unlinkat(f->dir->fd, f->name, 0);
	dir_put(f->dir);
	f->dir = NULL;
	free(f->name);
	free(f->path);
	f->name = f->path = NULL;
}

/*
 * At exit (or when libusdt is unloaded): the files this process made.
 * Never waits: if another thread holds the lock while the process exits,
 * the files are left for the next process's sweep.
 */
__attribute__((destructor)) static void
remove_at_exit(void)
{
	if (pthread_mutex_trylock(&files_lock) != 0)
		return;
	for (usdt_file_t *f = live_files; f != NULL; f = f->next)
		if (f->owner == getpid() && f->name != NULL && name_is_ours(f))
			unlinkat(f->dir->fd, f->name, 0);
	pthread_mutex_unlock(&files_lock);
}
