/*
 * fileio.c - whole files in and out (fileio.h).
 *
 * One read loop serves both readers: it grows its buffer from a size hint
 * (the file's size when it is a regular file) until read() returns 0, so a
 * file that grows or shrinks while read is still read whole and a pipe or
 * /proc file with size 0 still works.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"

/*
 * Read fd to its end into a malloc'd buffer with a NUL after the data.
 * Returns 0, or -1 with errno set (ENOMEM when out of memory).
 */
static int
read_fd_all(int fd, size_t hint, char **bufp, size_t *lenp)
{
	size_t len = 0, cap = hint + 1 > 4096 ? hint + 1 : 4096;
	char *buf = malloc(cap);

	if (buf == NULL)
		return errno = ENOMEM, -1;
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
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int saved = errno;

			free(buf);
			return errno = saved, -1;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	*bufp = buf;
	*lenp = len;
	return 0;
}

char *
file_read_all(const char *path, size_t *lenp)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), saved;
	struct stat st;
	char *buf = NULL;

	*lenp = 0;
	if (fd < 0)
		return NULL;
	if (read_fd_all(fd, fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ?
	    (size_t)st.st_size : 0, &buf, lenp) != 0)
		buf = NULL;
	saved = errno;
	close(fd);
	errno = saved;
	return buf;
}

int
file_read_regular(const char *path, uint8_t **bufp, size_t *lenp, err_t *e)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = -1;
	struct stat st;
	char *buf;

	if (fd < 0)
		return err_errno(e, errno, "%s: open", path);
	if (fstat(fd, &st) != 0)
		err_errno(e, errno, "%s: fstat", path);
	else if (!S_ISREG(st.st_mode))
		err_set(e, "%s: not a regular file", path);
	else if (read_fd_all(fd, (size_t)st.st_size, &buf, lenp) != 0)
		errno == ENOMEM ? err_set(e, "%s: out of memory reading %zu bytes", path,
		    (size_t)st.st_size) : err_errno(e, errno, "%s: read", path);
	else
		*bufp = (uint8_t *)buf, rc = 0;
	close(fd);
	return rc;
}

int
anon_file(const char *name, unsigned flags, err_t *e)
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

int
fd_write_all(int fd, const void *buf, size_t len)
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
