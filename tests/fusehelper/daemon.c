/*
 * daemon.c - a tiny FUSE daemon serving a DTrace helper as the file
 * "helper", as dtprobed does on a kernel without CUSE, for
 * tests/fusehelper (issue 32): who serves it, and what REMOVE hands it.
 *
 * Usage: daemon MNT LOG answer|noremove|hang UID [mine]
 *
 * Mounts MNT itself, as root: /dev/fuse opened, mount(2) with fd=N,
 * user_id=0, allow_other -- root's mount, as `-o drop_privileges` leaves
 * it (with "mine": user_id=UID, that user's own mount, as fusermount3
 * makes one) -- then drops to UID (every uid and gid; 0 stays root) and serves
 * the descriptor (libfuse's "/dev/fd/N").  Every request on the helper is
 * logged to LOG, one line each: "OPEN pid=P", "IOCTL cmd=C in=N
 * arg=A pid=P", and for DTRACEHIOC_REMOVE "REMOVE gen=G" when its 4-byte
 * input was readable.  answer: ADDDOF returns generation 7, REMOVE 0.
 * noremove: the same, but REMOVE fails (EIO), as a helper that keeps the
 * registration.  hang: no ioctl is ever answered, as a daemon that hangs.  "ready" is
 * logged once it serves.  SIGTERM ends it; the caller unmounts.
 */
#define FUSE_USE_VERSION 34
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <fuse_lowlevel.h>
#include <grp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#define HELPER_INO	2
#define REMOVE_CMD	0x4004d802u

static FILE *logf;
static int hang, noremove;

static void
say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(logf, fmt, ap);
	va_end(ap);
	fputc('\n', logf);
	fflush(logf);
}

static void
fill(fuse_ino_t ino, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
	st->st_mode = ino == HELPER_INO ? S_IFREG | 0666 : S_IFDIR | 0755;
	st->st_nlink = ino == HELPER_INO ? 1 : 2;
}

static void
op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct fuse_entry_param e;

	if (parent != FUSE_ROOT_ID || strcmp(name, "helper") != 0) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	memset(&e, 0, sizeof(e));
	e.ino = HELPER_INO;
	fill(HELPER_INO, &e.attr);
	fuse_reply_entry(req, &e);
}

static void
op_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct stat st;

	(void)fi;
	fill(ino, &st);
	fuse_reply_attr(req, &st, 0);
}

static void
op_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	say("OPEN pid=%d", (int)fuse_req_ctx(req)->pid);
	if (ino != HELPER_INO) {
		fuse_reply_err(req, EISDIR);
		return;
	}
	fi->direct_io = 1;
	fuse_reply_open(req, fi);
}

static void
op_ioctl(fuse_req_t req, fuse_ino_t ino, int cmd, void *arg,
    struct fuse_file_info *fi, unsigned flags, const void *in_buf, size_t in_bufsz,
    size_t out_bufsz)
{
	int gen;

	(void)ino; (void)fi; (void)flags; (void)out_bufsz;
	say("IOCTL cmd=%x in=%zu arg=%p pid=%d", (unsigned)cmd, in_bufsz, arg,
	    (int)fuse_req_ctx(req)->pid);
	if (hang)
		return;		/* never answered */
	if ((unsigned)cmd == REMOVE_CMD) {
		if (in_bufsz == sizeof(int)) {
			memcpy(&gen, in_buf, sizeof(gen));
			say("REMOVE gen=%d", gen);
		}
		if (noremove)
			fuse_reply_err(req, EIO);
		else
			fuse_reply_ioctl(req, 0, NULL, 0);
		return;
	}
	fuse_reply_ioctl(req, 7, NULL, 0);
}

static const struct fuse_lowlevel_ops ops = {
	.lookup = op_lookup,
	.getattr = op_getattr,
	.open = op_open,
	.ioctl = op_ioctl,
};

int
main(int argc, char **argv)
{
	char *fake[] = { argv[0], NULL };
	struct fuse_args args = FUSE_ARGS_INIT(1, fake);
	struct fuse_session *se;
	char opts[128], fdpath[32];
	uid_t uid;
	int fd, rc;

	if (argc < 5 || argc > 6 || (logf = fopen(argv[2], "a")) == NULL)
		return 2;
	hang = strcmp(argv[3], "hang") == 0;
	noremove = strcmp(argv[3], "noremove") == 0;
	uid = (uid_t)atol(argv[4]);
	if ((fd = open("/dev/fuse", O_RDWR | O_CLOEXEC)) < 0) {
		say("cannot open /dev/fuse: %s", strerror(errno));
		return 1;
	}
	snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=%ld,group_id=%ld,allow_other", fd,
	    argc == 6 ? (long)uid : 0L, argc == 6 ? (long)uid : 0L);
	if (mount("fusehelper", argv[1], "fuse.fusehelper", MS_NOSUID | MS_NODEV, opts) != 0) {
		say("mount: %s", strerror(errno));
		return 1;
	}
	if (uid != 0 && (setgroups(0, NULL) != 0 || setresgid(uid, uid, uid) != 0 ||
	    setresuid(uid, uid, uid) != 0)) {
		say("cannot become uid %ld: %s", (long)uid, strerror(errno));
		return 1;
	}
	if ((se = fuse_session_new(&args, &ops, sizeof(ops), NULL)) == NULL ||
	    fuse_set_signal_handlers(se) != 0)
		return 1;
	snprintf(fdpath, sizeof(fdpath), "/dev/fd/%d", fd);
	if (fuse_session_mount(se, fdpath) != 0)
		return 1;
	say("ready uid=%ld", (long)geteuid());
	rc = fuse_session_loop(se);
	fuse_remove_signal_handlers(se);
	fuse_session_destroy(se);
	return rc != 0;
}
