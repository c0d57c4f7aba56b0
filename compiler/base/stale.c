/*
 * stale.c - names of temporaries that say whose they are, and the removal
 * of those a killed run left behind (stale.h).
 *
 * Why: usdtc writes every output beside its destination under a temporary
 * name and removes it on any exit it can see, but SIGKILL (an OOM kill, a
 * build tool's timeout) cannot be seen: 30 of 50 killed -G runs left
 * ".out.o~XXXXXX" files that nothing removed.  O_TMPFILE would make a
 * temporary vanish with its process, but -G hands its temporaries to a
 * linker by name and keeps old inodes under second names while it commits,
 * so names are needed.  Each name therefore carries its maker: the pid,
 * and a tag of the boot and pid namespace the pid means something in
 * (FNV-1a of /proc/sys/kernel/random/boot_id and the inode of
 * /proc/self/ns/pid).  Before making a temporary in a directory, a run
 * removes the temporaries there whose tag is its own and whose pid no
 * longer exists (kill(pid, 0) fails with ESRCH), if they are regular files
 * of its own user.  A pid reused since is taken as alive: the file stays,
 * never the reverse.  Another machine (a shared NFS directory) or another
 * container has another tag, so its live temporaries are never touched.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hash.h"
#include "stale.h"

/* Directories swept in this run, by device and inode (a few at most). */
#define SWEPT_MAX	64
static struct { dev_t dev; ino_t ino; } swept[SWEPT_MAX];
static size_t nswept;

/* This run's tag: boot and pid namespace; 0 when either is unknown. */
static unsigned long
run_tag(void)
{
	static unsigned long tag;
	static bool known;
	char boot[64] = "";
	struct stat ns;
	FILE *f;
	uint64_t h;

	if (known)
		return tag;
	known = true;
	if ((f = fopen("/proc/sys/kernel/random/boot_id", "re")) != NULL) {
		if (fgets(boot, sizeof(boot), f) == NULL)
			boot[0] = '\0';
		fclose(f);
	}
	if (boot[0] == '\0' || stat("/proc/self/ns/pid", &ns) != 0)
		return tag = 0;
	h = hash_str(HASH_FNV_OFFSET, boot);
	h = hash_bytes(h, &ns.st_ino, sizeof(ns.st_ino));
	tag = (unsigned long)(h & 0xffffffffu);
	return tag;
}

int
stale_stamp(char *buf, size_t size)
{
	return snprintf(buf, size, "~%lx.%08lx~", (unsigned long)getpid(), run_tag());
}

/*
 * Is name a temporary of a dead process of this boot and pid namespace
 * (".NAME~PID.TAG~XXXXXX")?
 */
static bool
is_stale_name(const char *name, unsigned long tag)
{
	size_t len = strlen(name);
	const char *end, *p;
	unsigned long pid, their_tag;
	char *stop;

	if (name[0] != '.' || len < 1 + 1 + 3 + 8 + 1 + 6 || name[len - 7] != '~')
		return false;
	for (size_t i = len - 6; i < len; i++)
		if (!((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= 'A' && name[i] <= 'Z') ||
		    (name[i] >= '0' && name[i] <= '9')))
			return false;
	end = name + len - 7;		/* the '~' before XXXXXX */
	if (end - name < 11 || end[-9] != '.')
		return false;
	for (p = end - 1; p > name && *p != '~'; p--)
		;
	if (p == name || p + 1 >= end - 9)
		return false;
	errno = 0;
	pid = strtoul(p + 1, &stop, 16);
	if (stop != end - 9 || errno != 0 || pid == 0 || pid > 0x7fffffff)
		return false;
	their_tag = strtoul(end - 8, &stop, 16);
	if (stop != end || their_tag != tag)
		return false;
	if (pid == (unsigned long)getpid())
		return false;
	return kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

/* Have we swept the directory open as dirfd already?  Note it if not. */
static bool
already_swept(int dirfd)
{
	struct stat st;

	if (fstat(dirfd, &st) != 0)
		return true;
	for (size_t i = 0; i < nswept; i++)
		if (swept[i].dev == st.st_dev && swept[i].ino == st.st_ino)
			return true;
	if (nswept == SWEPT_MAX)
		return true;	/* bounded: a run over many directories sweeps the first */
	swept[nswept].dev = st.st_dev;
	swept[nswept].ino = st.st_ino;
	nswept++;
	return false;
}

void
stale_sweep(const char *dir)
{
	unsigned long tag = run_tag();
	struct dirent *de;
	struct stat st;
	DIR *d;
	int fd;

	if (tag == 0)
		return;
	fd = open(dir[0] != '\0' ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (already_swept(fd) || (d = fdopendir(fd)) == NULL) {
		close(fd);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		if (!is_stale_name(de->d_name, tag))
			continue;
		if (fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISREG(st.st_mode) && st.st_uid == geteuid())
			unlinkat(fd, de->d_name, 0);
	}
	closedir(d);
}
