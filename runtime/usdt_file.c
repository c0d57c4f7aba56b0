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
 *    /run/user/EUID, /dev/shm, $TMPDIR, /tmp, /var/tmp.  Usable: mounted
 *    neither read-only nor noexec (the loader could not map it), owned by
 *    us or root, sticky if anyone may write to it (nobody else can rename
 *    or replace our file), and we can create a file in it.  Environment
 *    variables are read with secure_getenv, so a setuid program uses the
 *    fixed directories only;
 *  - the file, libusdt-NS-PID-START-SEQ-PROVIDER.so, is created with
 *    O_EXCL | O_NOFOLLOW and mode 0400, written, then the writable
 *    descriptor is closed (a write to the file would change the code of
 *    the running probes: MAP_PRIVATE pages not yet copied are the file's);
 *  - it is unlinked when the provider is disabled or freed, and at exit
 *    (a destructor walks the live files of this process, not of a parent
 *    it was forked from); and when a process is killed before that, the
 *    next process that uses the directory sweeps it: NS (the pid
 *    namespace), PID and START (its start time in /proc/PID/stat) say
 *    whether its owner is gone, so a pid reused since is not mistaken
 *    for the owner, and a process in another pid namespace is never
 *    judged;
 *  - where no directory is usable the object goes into a memfd, as
 *    before (fileio.c's anon_exec_file and anon_file_seal): created
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
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "fileio.h"
#include "usdt_file.h"

#define FILE_PREFIX "libusdt-"

/* The live named files of this process, unlinked at exit. */
static pthread_mutex_t files_lock = PTHREAD_MUTEX_INITIALIZER;
static usdt_file_t *live_files;
static unsigned file_seq;

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

/* Unlink the files in dirfd left by processes of our namespace now gone. */
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
		    !S_ISREG(st.st_mode) || (st.st_uid != geteuid() && geteuid() != 0))
			continue;
		if (owner_gone(pid, start))
			unlinkat(dirfd, de->d_name, 0);
	}
	closedir(d);
}

/* Sweep each directory once per process (and again after a fork). */
static void
sweep_once(int dirfd, const char *dir, unsigned long long ns)
{
	static char done[8][256];
	static pid_t done_pid;
	static int ndone;

	pthread_mutex_lock(&files_lock);
	if (done_pid != getpid()) {
		done_pid = getpid();
		ndone = 0;
	}
	for (int i = 0; i < ndone; i++)
		if (strcmp(done[i], dir) == 0) {
			pthread_mutex_unlock(&files_lock);
			return;
		}
	if (ndone < 8 && strlen(dir) < sizeof(done[0]))
		strcpy(done[ndone++], dir);
	pthread_mutex_unlock(&files_lock);
	sweep(dirfd, ns);
}

/* ---- directories --------------------------------------------------------- */

/* Whether a directory can hold an object the loader maps, safely. */
static bool
dir_usable(int dirfd)
{
	struct statvfs vfs;
	struct stat st;

	if (fstatvfs(dirfd, &vfs) != 0 || (vfs.f_flag & (ST_RDONLY | ST_NOEXEC)) != 0)
		return false;
	if (fstat(dirfd, &st) != 0 || !S_ISDIR(st.st_mode))
		return false;
	if (st.st_uid != 0 && st.st_uid != geteuid())
		return false;
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0 && (st.st_mode & S_ISVTX) == 0)
		return false;
	return true;
}

/* Errors that say "not this directory", as opposed to "not at all". */
static bool
dir_error(int err)
{
	return err != EMFILE && err != ENFILE && err != ENOMEM;
}

/*
 * Try to create the file in dir: 1 done, 0 not here, -1 with e set on an
 * error no other directory would avoid.
 */
static int
try_dir(usdt_file_t *f, const char *dir, const char *provider, err_t *e)
{
	unsigned long long ns = pid_namespace();
	char name[160];
	int dirfd, fd, err;
	unsigned seq;

	if (dir == NULL || dir[0] != '/')
		return 0;
	if ((dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return dir_error(errno) ? 0 : err_errno(e, errno, "opening %s", dir);
	if (!dir_usable(dirfd)) {
		close(dirfd);
		return 0;
	}
	sweep_once(dirfd, dir, ns);
	seq = __atomic_fetch_add(&file_seq, 1, __ATOMIC_RELAXED);
	snprintf(name, sizeof(name), FILE_PREFIX "%llu-%ld-%llu-%u-%.63s.so", ns,
	    (long)getpid(), start_time((long)getpid()), seq, provider);
	if (asprintf(&f->path, "%s/%s", dir, name) < 0) {
		f->path = NULL;
		close(dirfd);
		return err_errno(e, ENOMEM, "file name");
	}
	fd = openat(dirfd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0400);
	err = errno;
	close(dirfd);
	if (fd < 0) {
		free(f->path);
		f->path = NULL;
		return dir_error(err) ? 0 : err_errno(e, err, "creating a file in %s", dir);
	}
	f->fd = fd;
	return 1;
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
	if ((fd = anon_exec_file(name, what, e)) < 0)
		return -1;
	f->fd = fd;
	snprintf(f->dlpath, sizeof(f->dlpath), "/proc/%ld/fd/%d", (long)getpid(), fd);
	return 0;
}

int
usdt_file_create(usdt_file_t *f, const char *provider, err_t *e)
{
	char *dirs = candidate_dirs(), *save = NULL;
	int rc = 0;

	file_init(f);
	if (dirs == NULL)
		return err_errno(e, ENOMEM, "directory list");
	for (char *d = strtok_r(dirs, ":", &save); d != NULL && rc == 0;
	    d = strtok_r(NULL, ":", &save))
		rc = try_dir(f, d, provider, e);
	free(dirs);
	if (rc < 0)
		return -1;
	if (rc == 0)
		return usdt_file_create_memfd(f, provider, e);
	pthread_mutex_lock(&files_lock);
	f->next = live_files;
	live_files = f;
	pthread_mutex_unlock(&files_lock);
	return 0;
}

int
usdt_file_seal(usdt_file_t *f, err_t *e)
{
	struct stat a, b;
	int ro;

	if (f->path == NULL)
		return anon_file_seal(f->fd, e);
	if ((ro = open(f->path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return err_errno(e, errno, "reopening %s", f->path);
	if (fstat(ro, &a) != 0 || fstat(f->fd, &b) != 0 ||
	    a.st_dev != b.st_dev || a.st_ino != b.st_ino) {
		close(ro);
		return err_set(e, "%s was replaced while it was written", f->path);
	}
	close(f->fd);
	f->fd = ro;
	return 0;
}

const char *
usdt_file_dlpath(const usdt_file_t *f)
{
	return f->path != NULL ? f->path : f->dlpath;
}

void
usdt_file_loaded(usdt_file_t *f)
{
	if (f->path != NULL && f->fd >= 0) {
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
	if (f->path == NULL)
		return;
	pthread_mutex_lock(&files_lock);
	for (usdt_file_t **l = &live_files; *l != NULL; l = &(*l)->next)
		if (*l == f) {
			*l = f->next;
			break;
		}
	pthread_mutex_unlock(&files_lock);
	if (f->owner == getpid())
		unlink(f->path);
	free(f->path);
	f->path = NULL;
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
		if (f->owner == getpid() && f->path != NULL)
			unlink(f->path);
	pthread_mutex_unlock(&files_lock);
}
