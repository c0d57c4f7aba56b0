/*
 * drti_sys.c - the system calls and string functions of drti_lite's code,
 * each through one function (drti_sys.h says why).
 *
 * This code runs inside other people's programs: nothing here allocates,
 * aborts or writes to stdout, and each call leaves errno as the system
 * set it (drti_write_stderr: as it was).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "drti_sys.h"

/* (noinline: one call of each libc function, whatever the compiler inlines) */
#define DRTI_LIBC __attribute__((noinline))
DRTI_LIBC int drti_close(int fd) { return close(fd); }
DRTI_LIBC int drti_munmap(void *p, size_t len) { return munmap(p, len); }
DRTI_LIBC char *drti_strchr(const char *s, int c) { return strchr(s, c); }
DRTI_LIBC int drti_strcmp(const char *a, const char *b) { return strcmp(a, b); }
DRTI_LIBC int drti_strncmp(const char *a, const char *b, size_t n) { return strncmp(a, b, n); }
DRTI_LIBC int drti_memcmp(const void *a, const void *b, size_t n) { return memcmp(a, b, n); }

/* Every open here: none can block (a FIFO, a device), none is inherited by exec. */
DRTI_LIBC int
drti_open(const char *path, int flags)
{
	return open(path, flags | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
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
	size_t plen = strlen(prefix), n = 0;
	int fd = drti_open(path, O_RDONLY), found = -1;
	ssize_t got = 0;

	if (fd < 0 || size <= plen)
		return fd < 0 ? -1 : (drti_close(fd), -1);
	while (found != 0 && (got = read(fd, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < got && found != 0; i++) {
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

/*
 * write(2) to fd 2 without SIGPIPE: a pipe whose reader has gone would
 * otherwise kill the host.  A SIGPIPE already pending before the write is
 * the host's and stays pending; one the write raised is consumed.
 */
void
drti_write_stderr(const char *buf, size_t n)
{
	sigset_t pipe_set, old, pending;
	struct timespec zero = { 0, 0 };
	int was_pending, err = errno;

	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	if (sigprocmask(SIG_BLOCK, &pipe_set, &old) != 0)
		return;	/* cannot make it safe: say nothing */
	sigemptyset(&pending);
	was_pending = sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE);
	if (write(2, buf, n) < 0 && errno == EPIPE && !was_pending)
		while (sigtimedwait(&pipe_set, NULL, &zero) < 0 && errno == EINTR)
			;
	sigprocmask(SIG_SETMASK, &old, NULL);
	errno = err;
}
