/*
 * fileio.c - whole files in and out (fileio.h).
 *
 * Reading.  One read loop serves every reader: it grows its buffer from a
 * size hint (the file's size when it is a regular file), stops at the
 * first failure, and never reads past a bound: FILE_READ_MAX for provider
 * text (which may come from a pipe), the size at open for a regular file.
 * Readers that need a regular file open it with O_NONBLOCK and check
 * before reading, so a FIFO cannot make them wait and /dev/zero cannot
 * make them read forever.
 *
 * Writing outputs together, all or none: tempset.c.
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

/*
 * Read fd to its end, or to limit bytes, into a malloc'd buffer with a NUL
 * after the data.  More than limit bytes is EFBIG when strict, else the
 * first limit bytes are the file.  Returns 0, or -1 with errno set (ENOMEM
 * when out of memory): the first failure ends the read.
 */
static int
read_fd_all(int fd, size_t hint, size_t limit, bool strict, char **bufp, size_t *lenp)
{
	size_t len = 0, cap = (hint < limit ? hint : limit) + 2;
	char *buf = malloc(cap < 4096 ? 4096 : cap);

	if (buf == NULL)
		return errno = ENOMEM, -1;
	cap = cap < 4096 ? 4096 : cap;
	for (;;) {
		ssize_t n;

		if (cap - len < 2) {
			char *p = cap > SIZE_MAX / 2 ? NULL : realloc(buf, cap * 2);

			if (p == NULL) {
				free(buf);
				return errno = ENOMEM, -1;
			}
			buf = p;
			cap *= 2;
		}
		/* One byte past the limit tells a strict read that there is more. */
		n = read(fd, buf + len, cap - len - 1 < limit + 1 - len ?
		    cap - len - 1 : limit + 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {	/* a writer is there: wait for it */
			fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
			continue;
		}
		if (n < 0) {
			int saved = errno;

			free(buf);
			return errno = saved, -1;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > limit && strict) {
			free(buf);
			return errno = EFBIG, -1;
		}
		if (len >= limit) {
			len = limit;
			break;
		}
	}
	buf[len] = '\0';
	*bufp = buf;
	*lenp = len;
	return 0;
}

char *
file_read_all(const char *path, size_t *lenp)
{
	/*
	 * O_NONBLOCK: opening a FIFO must not wait for a writer.  The first
	 * read of a FIFO then says whether one is there (EAGAIN: read_fd_all
	 * waits for its data) or not (end of file at once: ENXIO).
	 */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK), saved;
	struct stat st;
	char *buf = NULL;

	*lenp = 0;
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) != 0) {
		buf = NULL;
	} else if (S_ISDIR(st.st_mode)) {
		errno = EISDIR;
	} else {
		if (!S_ISFIFO(st.st_mode))
			fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
		if (read_fd_all(fd, S_ISREG(st.st_mode) ? (size_t)st.st_size : 0,
		    FILE_READ_MAX, true, &buf, lenp) != 0)
			buf = NULL;
		else if (S_ISFIFO(st.st_mode) && *lenp == 0) {
			free(buf);
			buf = NULL;
			errno = ENXIO;
		}
	}
	saved = errno;
	close(fd);
	errno = saved;
	return buf;
}

int
file_read_regular(const char *path, uint8_t **bufp, size_t *lenp,
    struct stat *stp, err_t *e)
{
	int fd, rc;
	struct stat st;

	if ((fd = file_open_regular(path, &st, e)) < 0)
		return -1;
	if (stp != NULL)
		*stp = st;
	rc = file_read_opened(fd, path, &st, bufp, lenp, e);
	close(fd);
	return rc;
}

int
file_read_opened(int fd, const char *path, const struct stat *st, uint8_t **bufp,
    size_t *lenp, err_t *e)
{
	char *buf;

	if (read_fd_all(fd, (size_t)st->st_size, (size_t)st->st_size, false, &buf, lenp) != 0)
		return errno == ENOMEM ? err_set(e, "%s: out of memory reading %zu bytes",
		    path, (size_t)st->st_size) : err_errno(e, errno, "%s: read", path);
	*bufp = (uint8_t *)buf;
	return 0;
}

int
file_open_regular(const char *path, struct stat *st, err_t *e)
{
	/* O_NONBLOCK: opening a FIFO must not wait for a writer. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

	if (fd < 0)
		return err_errno(e, errno, "%s: open", path);
	if (fstat(fd, st) != 0) {
		err_errno(e, errno, "%s: fstat", path);
	} else if (!S_ISREG(st->st_mode)) {
		err_set(e, "%s: not a regular file", path);
	} else if ((uintmax_t)st->st_size > SIZE_MAX / 2) {
		err_set(e, "%s: too large to read (%jd bytes)", path, (intmax_t)st->st_size);
	} else {
		/* Reads of a regular file do not care; clear it for libelf's sake. */
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
		return fd;
	}
	close(fd);
	return -1;
}

int
file_anon(const char *name, unsigned flags, err_t *e)
{
	const char *tmp = getenv("TMPDIR");
	int fd = memfd_create(name, flags);

	if (fd >= 0)
		return fd;
	/* No memfd (old kernel): an unlinked temporary file does the same. */
	fd = open(tmp && *tmp ? tmp : "/tmp", O_TMPFILE | O_RDWR |
	    ((flags & MFD_CLOEXEC) ? O_CLOEXEC : 0), 0600);
	if (fd < 0)
		err_errno(e, errno, "cannot create an anonymous file for %s", name);
	return fd;
}

#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U	/* Linux 6.3: an executable memfd, whatever the sysctl says */
#endif

int
file_anon_exec(const char *name, const char *what, err_t *e)
{
	int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_EXEC);

	/* EINVAL: a kernel before MFD_EXEC; EACCES: vm.memfd_noexec=2. */
	if (fd < 0 && (errno == EINVAL || errno == EACCES))
		fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		err_errno(e, errno, "memfd_create for %s", what);
	return fd;
}

int
file_anon_seal(int fd, err_t *e)
{
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE |
	    F_SEAL_SEAL) != 0)
		return err_errno(e, errno, "sealing the memfd");
	return 0;
}

int
file_write_all_fd(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int
file_write_path(const char *path, const char *name, file_fill_fn fill, void *ctx, err_t *e)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666), rc;

	if (name == NULL)
		name = path;
	if (fd < 0)
		return err_errno(e, errno, "cannot open %s", name);
	rc = fill(fd, name, ctx, e);
	if (close(fd) != 0 && rc == 0)
		rc = err_errno(e, errno, "cannot write %s", name);
	return rc;
}

typedef struct bytes_ref {
	const void *buf;
	size_t len;
} bytes_ref_t;

static int
fill_bytes(int fd, const char *name, void *ctx, err_t *e)
{
	const bytes_ref_t *b = ctx;

	if (file_write_all_fd(fd, b->buf, b->len) != 0)
		return err_errno(e, errno, "cannot write %s", name);
	return 0;
}

int
file_write_bytes(const char *path, const char *name, const void *buf, size_t len, err_t *e)
{
	bytes_ref_t b = { buf, len };

	return file_write_path(path, name, fill_bytes, &b, e);
}
