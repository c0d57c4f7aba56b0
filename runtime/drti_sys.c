/*
 * drti_sys.c - the system calls of drti_lite's code, each through one
 * function: its own system call on x86_64 and AArch64, the C library's
 * wrapper elsewhere (drti_sys.h says why).
 *
 * This code runs inside other people's programs: nothing here allocates,
 * aborts or writes to stdout, and each call leaves errno as the system
 * set it (drti_write_stderr, drti_dir_absent: as it was).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "drti_str.h"
#include "drti_sys.h"

#if defined(__x86_64__) || defined(__aarch64__)
#define DRTI_RAW 1

/* System call nr; its result, -errno on failure (errno not touched). */
static long
drti_trap(long nr, long a, long b, long c, long d, long e, long f)
{
#if defined(__x86_64__)
	register long r10 __asm__("r10") = d, r8 __asm__("r8") = e, r9 __asm__("r9") = f;
	long ret;

	__asm__ __volatile__("syscall" : "=a"(ret)
	    : "0"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
	    : "rcx", "r11", "memory");
	return ret;
#else
	register long x8 __asm__("x8") = nr, x0 __asm__("x0") = a, x1 __asm__("x1") = b,
	    x2 __asm__("x2") = c, x3 __asm__("x3") = d, x4 __asm__("x4") = e, x5 __asm__("x5") = f;

	__asm__ __volatile__("svc #0" : "+r"(x0)
	    : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5) : "memory");
	return x0;
#endif
}

/* drti_trap with errno set and -1 returned on failure, as a wrapper does. */
static long
drti_sys(long nr, long a, long b, long c, long d, long e, long f)
{
	long r = drti_trap(nr, a, b, c, d, e, f);

	if (r < 0 && r > -4096) {
		errno = (int)-r;
		return -1;
	}
	return r;
}
/* DRTI_CALL(the libc call, its system call and arguments): the one this architecture makes. */
#define DRTI_CALL(libc, ...)	DRTI_SYS_(__VA_ARGS__, 0, 0, 0, 0, 0, 0)
#define DRTI_SYS_(nr, a, b, c, d, e, f, ...) \
	drti_sys((nr), (long)(a), (long)(b), (long)(c), (long)(d), (long)(e), (long)(f))
#else
#define DRTI_RAW 0
#define DRTI_CALL(libc, ...)	(libc)
#endif

/*
 * open, close and ioctl, the calls that reach the helper device, are the
 * C library's everywhere (drti_sys.h says why).
 */
int
drti_open(const char *path, int flags)
{
	return open(path, flags | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
}

int
drti_dir_absent(const char *dir)
{
	int flags = O_PATH | O_DIRECTORY | O_CLOEXEC;
#if DRTI_RAW
	long fd = drti_trap(SYS_openat, AT_FDCWD, (long)dir, flags, 0, 0, 0);

	if (fd < 0)
		return 1;
	drti_trap(SYS_close, fd, 0, 0, 0, 0, 0);
#else
	int err = errno, fd = open(dir, flags);

	errno = err;
	if (fd < 0)
		return 1;
	close(fd);
	errno = err;
#endif
	return 0;
}

int
drti_close(int fd)
{
	return close(fd);
}

long
drti_read(int fd, void *buf, size_t n)
{
	return DRTI_CALL(read(fd, buf, n), SYS_read, fd, buf, n);
}

long
drti_readlinkat(int dirfd, const char *path, char *buf, size_t n)
{
	return DRTI_CALL(readlinkat(dirfd, path, buf, n), SYS_readlinkat, dirfd, path, buf, n);
}

int
drti_ioctl(int fd, unsigned long req, unsigned long arg)
{
	return ioctl(fd, req, arg);
}

void *
drti_mmap(void *addr, size_t len, int prot, int flags, int fd)
{
	return (void *)DRTI_CALL((intptr_t)mmap(addr, len, prot, flags, fd, 0),
	    SYS_mmap, addr, len, prot, flags, fd, 0);
}

int
drti_munmap(void *p, size_t len)
{
	return (int)DRTI_CALL(munmap(p, len), SYS_munmap, p, len);
}

/* (the kernel's struct stat and statfs are the C library's on x86_64 and AArch64) */
int
drti_fstat(int fd, struct stat *st)
{
	return (int)DRTI_CALL(fstat(fd, st), SYS_fstat, fd, st);
}

int
drti_fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
	return (int)DRTI_CALL(fstatat(dirfd, path, st, flags), SYS_newfstatat, dirfd, path, st,
	    flags);
}

int
drti_fstatfs(int fd, struct statfs *sf)
{
	return (int)DRTI_CALL(fstatfs(fd, sf), SYS_fstatfs, fd, sf);
}

long
drti_getdents64(int fd, void *buf, size_t n)
{
	return DRTI_CALL(syscall(SYS_getdents64, fd, buf, n), SYS_getdents64, fd, buf, n);
}

uid_t
drti_geteuid(void)
{
	return (uid_t)DRTI_CALL(geteuid(), SYS_geteuid);
}

int
drti_memfd(const char *name)
{
	return (int)DRTI_CALL(syscall(SYS_memfd_create, name, 1u), SYS_memfd_create, name,
	    1u /* MFD_CLOEXEC */);
}

long
drti_pwrite(int fd, const void *buf, size_t n, off_t off)
{
	return DRTI_CALL(pwrite(fd, buf, n, off), SYS_pwrite64, fd, buf, n, off);
}

int
drti_ftruncate(int fd, off_t len)
{
	return (int)DRTI_CALL(ftruncate(fd, len), SYS_ftruncate, fd, len);
}

/*
 * The line of the file at path that starts with prefix, into line (cut to
 * size, NUL-ended); 0, or -1 when there is none.  read(2) only: this runs
 * in constructors, before and without stdio.
 */
int
drti_find_line(const char *path, const char *prefix, char *line, size_t size)
{
	char buf[4096];
	size_t plen = drti_strlen(prefix), n = 0;
	int fd = drti_open(path, O_RDONLY), found = -1;
	long got = 0;

	if (fd < 0 || size <= plen)
		return fd < 0 ? -1 : (drti_close(fd), -1);
	while (found != 0 && (got = drti_read(fd, buf, sizeof(buf))) > 0) {
		for (long i = 0; i < got && found != 0; i++) {
			if (buf[i] != '\n') {
				if (n + 1 < size)
					line[n++] = buf[i];
				continue;
			}
			line[n] = '\0';
			if (n >= plen && drti_strncmp(line, prefix, plen) == 0)
				found = 0;
			else
				n = 0;
		}
	}
	line[n] = '\0';
	if (found != 0 && got == 0 && n >= plen && drti_strncmp(line, prefix, plen) == 0)
		found = 0;	/* the last line has no newline */
	drti_close(fd);
	return found;
}

/* SIGPIPE's mask, pending set and wait, as the kernel takes them (64 bits) or libc's. */
#if DRTI_RAW
typedef uint64_t drti_sigset_t;

static void
drti_sigpipe_set(drti_sigset_t *set)
{
	*set = (uint64_t)1 << (SIGPIPE - 1);
}

static int
drti_sigmask(int how, const drti_sigset_t *set, drti_sigset_t *old)
{
	return (int)DRTI_CALL(0, SYS_rt_sigprocmask, how, set, old, sizeof(*set));
}

static int
drti_sigpipe_pending(void)
{
	drti_sigset_t p = 0;

	return DRTI_CALL(0, SYS_rt_sigpending, &p, sizeof(p)) == 0 &&
	    (p & ((uint64_t)1 << (SIGPIPE - 1))) != 0;
}

static int
drti_sigwait_now(const drti_sigset_t *set)
{
	struct timespec zero = { 0, 0 };

	return (int)DRTI_CALL(0, SYS_rt_sigtimedwait, set, NULL, &zero, sizeof(*set));
}
#else
typedef sigset_t drti_sigset_t;

static void
drti_sigpipe_set(drti_sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGPIPE);
}

static int
drti_sigmask(int how, const drti_sigset_t *set, drti_sigset_t *old)
{
	return sigprocmask(how, set, old);
}

static int
drti_sigpipe_pending(void)
{
	sigset_t p;

	sigemptyset(&p);
	return sigpending(&p) == 0 && sigismember(&p, SIGPIPE);
}

static int
drti_sigwait_now(const drti_sigset_t *set)
{
	struct timespec zero = { 0, 0 };

	return sigtimedwait(set, NULL, &zero);
}
#endif

/*
 * write(2) to fd 2 without SIGPIPE: a pipe whose reader has gone would
 * otherwise kill the host.  A SIGPIPE already pending before the write is
 * the host's and stays pending; one the write raised is consumed.
 */
void
drti_write_stderr(const char *buf, size_t n)
{
	drti_sigset_t pipe_set, old;
	int was_pending, err = errno;

	drti_sigpipe_set(&pipe_set);
	if (drti_sigmask(SIG_BLOCK, &pipe_set, &old) != 0)
		return;	/* cannot make it safe: say nothing */
	was_pending = drti_sigpipe_pending();
	if (DRTI_CALL(write(2, buf, n), SYS_write, 2, buf, n) < 0 && errno == EPIPE && !was_pending)
		while (drti_sigwait_now(&pipe_set) < 0 && errno == EINTR)
			;
	drti_sigmask(SIG_SETMASK, &old, NULL);
	errno = err;
}
