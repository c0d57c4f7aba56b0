/*
 * drti_fuse.c - whether a DTrace helper served through FUSE may be used:
 * its three entry points declared in drti_fuse.h, used by drti_proto.c.
 *
 * Why: on a kernel without CUSE, dtprobed serves its helper as a regular
 * file of a FUSE file system.  A program hands the helper its load
 * address and the address of its DOF, and waits in the ioctl until the
 * daemon answers -- uninterruptibly once the daemon has read the request
 * (the kernel's request_wait_answer: a fatal signal waits it out too), so
 * a daemon that never answers leaves the program in D state before main,
 * unkillable.  There is no timeout to put on that ioctl, nor on the open
 * and lookups that reach the daemon first; a thread to do the
 * registration would make every program built with -G multi-threaded
 * before main (unshare(CLONE_NEWUSER) then fails, a fork in a
 * constructor inherits it), and a hung ioctl would still hold the process
 * at exit.  So the only sound defence is to talk to no daemon but a
 * trusted one -- root's, or the program's own user's -- and to find out
 * who serves before anything reaches it, at a cost no other user sets.
 *
 * What the kernel tells, and at what cost:
 *   - /proc/self/mountinfo gives the file system's type, its connection
 *     (MAJOR:MINOR) and user_id=N, the user who mounted it (fusectl's
 *     /sys/fs/fuse/connections/N says no more: its files are owned by
 *     that same user_id).  Only root mounts with user_id=0, and only our
 *     own mount namespace is listed, which no other user can add to.  It
 *     says who mounted, not who serves: root may hand the connection's
 *     descriptor to a daemon of another user (`-o drop_privileges`, or
 *     setuid after mounting), so it is necessary, not sufficient;
 *   - the server is whoever holds a /dev/fuse descriptor of the
 *     connection: /proc/PID/fdinfo of such a descriptor says
 *     "fuse_connection: N".  Nothing maps a connection to its holders: the
 *     only way to them is every process's descriptors, which another user
 *     can make as many as they like (400,000 in 20 processes took 16.9 s
 *     to read), and a program that is not root may read only its own
 *     user's;
 *   - the helper is identified without touching it: its directory and
 *     then the helper are opened O_PATH (no FUSE request: the lookup of
 *     each is done by the file system holding it, and a mount point is
 *     crossed without one), and their mount found by fdinfo's mnt_id.
 *
 * So, for a helper on FUSE:
 *   - a program that is not root uses it only on a mount of its own user
 *     (user_id = its effective uid), whose server that user chose.  On
 *     root's mount it cannot tell who serves (it may not read root's
 *     descriptors, nor those of a daemon that dropped from root to another
 *     user), so it does not use it, and says so;
 *   - a root program uses it only on root's mount (user_id=0) and only
 *     when a process running with every uid (real, effective, saved, file
 *     system) root is seen holding its connection.  It reads the
 *     descriptors of those processes alone: /proc/PID of a process of
 *     another user is owned by that user (one fstatat skips it), and one
 *     owned by root but not running as root (a process that cannot be
 *     dumped: a daemon that dropped from root to nobody, or any that asked
 *     prctl(PR_SET_DUMPABLE, 0)) is skipped on its status line.  What it
 *     reads is what root holds: no other user can make it larger, however
 *     many descriptors they hold (a fstatat per process is what it pays
 *     for theirs).  A daemon served by nobody, as in the test, holds
 *     the connection alone and is refused for want of a root server.  Not
 *     ruled out: root keeping a copy of the descriptor while also handing
 *     one to another user's process -- root's choice;
 *   - a daemon in another pid namespace is not seen: a root program then
 *     does not use it.
 * A CUSE or kernel helper is a character device, and no DTrace costs one
 * failed open, as before: none of this runs.  A root daemon that hangs
 * still hangs its clients, as a hung CUSE dtprobed does: `echo 1 >
 * /sys/fs/fuse/connections/N/abort` frees them.
 */
#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>

#include "drti_fuse.h"
#include "drti_str.h"

#define DRTI_FUSE_MAGIC	0x65735546	/* statfs f_type of FUSE */

/* The /proc/self/mountinfo line of fd's mount (fdinfo's mnt_id); 0 or -1. */
static int
drti_mount_line(int fd, char *line, size_t size)
{
	char path[64], id[32];

	drti_snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	if (drti_find_line(path, "mnt_id:", line, size) != 0)
		return -1;
	drti_snprintf(id, sizeof(id), "%lu ", drti_strtoul(line + sizeof("mnt_id:") - 1, NULL));
	return drti_find_line("/proc/self/mountinfo", id, line, size);
}

/*
 * A mountinfo line's FUSE connection (its device, as the kernel numbers
 * it: MAJOR << 20 | MINOR), or -1 when the file system is not FUSE;
 * *owner: its super options' user_id, or -1 if they have none.
 */
static long
drti_fuse_conn(const char *line, long *owner)
{
	const char *dash = drti_strstr(line, " - "), *fstype, *opts, *p = line;
	unsigned long major, minor;
	char *end;

	*owner = -1;
	if (dash == NULL)
		return -1;
	fstype = dash + 3;
	if (drti_strncmp(fstype, "fuse ", 5) != 0 && drti_strncmp(fstype, "fuse.", 5) != 0)
		return -1;
	/* "ID PARENT MAJOR:MINOR ..." */
	for (int field = 0; field < 2 && p != NULL; field++)
		if ((p = drti_strchr(p, ' ')) != NULL)
			p++;
	if (p == NULL)
		return -1;
	major = drti_strtoul(p, &end);
	if (*end != ':')
		return -1;
	minor = drti_strtoul(end + 1, &end);
	/* " - fstype source superopts": superopts "rw,user_id=N,..." */
	if ((opts = drti_strchr(fstype, ' ')) != NULL && (opts = drti_strchr(opts + 1, ' ')) != NULL &&
	    (p = drti_strstr(opts, "user_id=")) != NULL && (p[-1] == ',' || p[-1] == ' ')) {
		unsigned long u = drti_strtoul(p + 8, &end);

		if (end != p + 8 && (*end == ',' || *end == '\0' || *end == ' ' || *end == '\n'))
			*owner = (long)u;
	}
	return (long)(major << 20 | minor);
}

/* Whether every uid in /proc/PID/status's "Uid:" line is want; -1 unreadable. */
static int
drti_uids_are(const char *pid, unsigned long want)
{
	char path[300], line[256], *end;
	const char *p = line + 4;
	int all = 1;

	drti_snprintf(path, sizeof(path), "/proc/%s/status", pid);
	if (drti_find_line(path, "Uid:", line, sizeof(line)) != 0)
		return -1;
	for (int k = 0; k < 4; k++, p = end) {	/* real, effective, saved, file system */
		unsigned long u = drti_strtoul(p, &end);

		if (end == p)
			return -1;
		all &= u == want;
	}
	return all;
}

/* How many /dev/fuse descriptors of process pid serve connection conn. */
static int
drti_pid_serves(const char *pid, long conn)
{
	char path[600], link[16], line[128], buf[2048];
	int dfd, found = 0;
	long n;

	drti_snprintf(path, sizeof(path), "/proc/%s/fd", pid);
	if ((dfd = drti_open(path, O_RDONLY | O_DIRECTORY)) < 0)
		return 0;
	while ((n = drti_getdents64(dfd, buf, sizeof(buf))) > 0) {
		for (long off = 0; off < n;) {
			struct dirent64 *de = (struct dirent64 *)(void *)(buf + off);

			off += de->d_reclen;
			if (de->d_name[0] == '.' ||
			    drti_readlinkat(dfd, de->d_name, link, sizeof(link)) != 9 ||
			    drti_memcmp(link, "/dev/fuse", 9) != 0)
				continue;
			drti_snprintf(path, sizeof(path), "/proc/%s/fdinfo/%s", pid, de->d_name);
			if (drti_find_line(path, "fuse_connection:", line, sizeof(line)) == 0 &&
			    (long)drti_strtoul(line + sizeof("fuse_connection:") - 1, NULL) == conn)
				found++;
		}
	}
	drti_close(dfd);
	return found;
}

/*
 * Whether process pid (a /proc entry) runs as root: its /proc directory
 * owned by root (one fstatat: another user's process stops here) and
 * every uid of its status root (a process owned by root in /proc but not
 * running as root -- one that cannot be dumped -- stops there).
 */
static int
drti_pid_is_root(int pfd, const char *pid)
{
	struct stat st;

	return drti_fstatat(pfd, pid, &st, AT_SYMLINK_NOFOLLOW) == 0 && st.st_uid == 0 &&
	    drti_uids_are(pid, 0) == 1;
}

/*
 * Whether a process running as root holds FUSE connection conn: the only
 * descriptors read are root's (drti_pid_is_root), so the cost is what
 * root holds, whatever other users hold.  Says why not under
 * DTRACE_DOF_INIT_DEBUG.
 */
static int
drti_fuse_root_serves(const drti_reg_t *r, const char *dev, long conn)
{
	char buf[2048];
	int pfd, seen = 0;
	long n;

	if ((pfd = drti_open("/proc", O_RDONLY | O_DIRECTORY)) < 0) {
		drti_say(r, "%s: cannot read /proc (%m) to see who serves it: not using it", dev);
		return 0;
	}
	while (!seen && (n = drti_getdents64(pfd, buf, sizeof(buf))) > 0) {
		for (long off = 0; off < n && !seen;) {
			struct dirent64 *de = (struct dirent64 *)(void *)(buf + off);

			off += de->d_reclen;
			seen = de->d_name[0] >= '1' && de->d_name[0] <= '9' &&
			    drti_pid_is_root(pfd, de->d_name) && drti_pid_serves(de->d_name, conn) > 0;
		}
	}
	drti_close(pfd);
	if (!seen)
		drti_say(r, "%s: no process running as root is seen serving its FUSE "
		    "connection: not using it", dev);
	return seen;
}

/*
 * Whether a helper on the FUSE mount of user owner, connection conn, may
 * be used by this process (the top of this file says why): its own
 * user's mount, or, in a root program, root's mount served by root.
 */
static int
drti_fuse_trusted(const drti_reg_t *r, const char *dev, long owner, long conn)
{
	uid_t me = drti_geteuid();

	if (owner != 0 && (owner < 0 || (uid_t)owner != me)) {
		drti_say(r, "%s is on a FUSE file system mounted by another user: not using it", dev);
		return 0;
	}
	if (owner != 0)
		return 1;	/* this user's own mount */
	if (me != 0) {
		drti_say(r, "%s is on root's FUSE file system, whose server a program not run "
		    "by root cannot see: not using it", dev);
		return 0;
	}
	return drti_fuse_root_serves(r, dev, conn);
}

/*
 * Before dev is opened: if it, or the directory holding it, is on FUSE,
 * whether that file system is root's mount served by a trusted process
 * (the top of this file says why; nothing here sends the daemon a
 * request).  1 when dev may be opened, 0 when not, -1 (errno set) when
 * its directory cannot be opened: then dev cannot be either, and the
 * usual case, no DTrace, still costs one failed open.
 */
int
drti_fuse_helper_ok(const drti_reg_t *r, const char *dev)
{
	char dir[4096], line[4096];
	const char *slash = drti_strrchr(dev, '/');
	const char *paths[2] = { dir, dev };
	long conn, owner;

	drti_snprintf(dir, sizeof(dir), "%.*s",
	    slash == NULL || slash == dev ? 1 : (int)(slash - dev), slash == NULL ? "." : dev);
	for (int i = 0; i < 2; i++) {
		int fd = drti_open(paths[i], O_PATH | (i == 0 ? O_DIRECTORY : O_NOFOLLOW));

		if (fd < 0)
			return i == 0 ? -1 : 1;	/* else the open that follows says why */
		conn = drti_mount_line(fd, line, sizeof(line)) == 0 ?
		    drti_fuse_conn(line, &owner) : -1;
		drti_close(fd);
		if (conn >= 0)
			return drti_fuse_trusted(r, dev, owner, conn);
	}
	return 1;
}

/*
 * After the open, for a regular file: whether fd is a file of a FUSE
 * file system mounted by root or by this process's user
 * (drti_fuse_helper_ok checked it and its server before the open).
 */
int
drti_trusted_fuse(int fd)
{
	char line[4096];
	struct statfs sf;
	long owner;

	if (drti_fstatfs(fd, &sf) != 0 || (unsigned long)sf.f_type != DRTI_FUSE_MAGIC)
		return 0;
	return drti_mount_line(fd, line, sizeof(line)) == 0 &&
	    drti_fuse_conn(line, &owner) >= 0 && (owner == 0 || (uid_t)owner == drti_geteuid());
}

/*
 * DTRACEHIOC_REMOVE's argument for a helper on FUSE.  The ioctl number
 * declares a 4-byte input (_IOW), so for a FUSE file the kernel copies 4
 * bytes from the argument's address before the daemon sees anything:
 * the generation passed by value, as a character device takes it, is an
 * address like 7 and the ioctl fails with EFAULT.  A FUSE daemon may read
 * either the 4 bytes (in_buf, what FUSE hands it) or the raw argument
 * (dtprobed-fuse does, as its CUSE original; dof_stash_remove takes an
 * int, so only its low 32 bits count).  So the argument is an address
 * whose low 32 bits are the generation, in 64 KiB mapped here (some
 * multiple of 4 GiB below 128 TiB is free in any 64-bit process) that
 * hold the generation there: both readings get it.  Returns the address
 * (0 if nothing could be mapped), the mapping in *map and *maplen for
 * munmap.
 */
unsigned long
drti_fuse_remove_arg(int gen, void **map, size_t *maplen)
{
	size_t page = 65536;	/* a multiple of every page size Linux has: no sysconf */

	*map = NULL;
	*maplen = 0;
	if (sizeof(unsigned long) < 8 || gen < 0)
		return 0;
	/* 4 GiB apart, then spread out (ASan's shadow takes 4 GiB to 16 TiB). */
	for (unsigned long k = 1; k < 0x8000; k = k < 64 ? k + 1 : 2 * k) {
		/* (two shifts: a 32-bit host returned above, and one of 32 is an
		 * error there under -Werror, shift-count-overflow) */
		unsigned long at = k << 16 << 16 | (unsigned long)gen;
		unsigned long base = at / page * page;
		size_t len = at + sizeof(int) > base + page ? 2 * page : page;
		void *p = drti_mmap((void *)base, len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1);

		if (p == MAP_FAILED)
			continue;
		if ((unsigned long)p != base) {	/* a kernel that took it as a hint */
			drti_munmap(p, len);
			continue;
		}
		drti_memcpy((void *)at, &gen, sizeof(gen));
		*map = p;
		*maplen = len;
		return at;
	}
	return 0;
}

