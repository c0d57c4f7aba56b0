/*
 * cpp.c - spawning the C preprocessor and talking to it.
 *
 * Like dtrace -C, we hand the definition file to the system's cpp and parse
 * its output; the line markers it leaves (`# 12 "probes.d"`) keep every
 * diagnostic on the user's file and line.
 *
 * The text goes in on cpp's standard input, after a `#line 1 "probes.d"`
 * line, rather than as a file argument: a compiler driver given as $CPP
 * ("gcc -E", "clang -E") takes a file whose name ends in .d for a linker
 * input and silently prints nothing, while every cpp reads "-" as C.  The
 * #line makes cpp's own messages and markers name the user's file.  As with
 * dtrace, which also feeds cpp a descriptor, quoted #include names are found
 * through -I and the current directory.
 *
 * The command is spawned from an argv array, never through a shell.  We
 * write its input and read its output in one poll loop, so neither side can
 * block the other however large the text; the input is a socket written
 * with MSG_NOSIGNAL so a cpp that stops reading (a missing #include) cannot
 * kill us with SIGPIPE.  Nothing here prints: failures come back in an
 * err_t, and cpp's own messages go to the stderr we share with it.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cpp.h"
#include "subproc.h"
#include "strbuf.h"

#define SUNW_D		"-D__SUNW_D=1", "-D__SUNW_D_64", "-U__GNUC__"
#define NOT_LINUX	"-U__linux__", "-U__linux", "-Ulinux", "-U__gnu_linux__"

const char *const *
cpp_platform_args(const target_t *t)
{
	static const char *const linux_args[] = {
		"-D__linux", "-D__unix", "-D__SVR4", SUNW_D, "-D__Linux",
		"-D__SUNW_D_VERSION=0x02000001", NULL
	};
	static const char *const illumos_args[] = {
		NOT_LINUX, "-D__sun", "-D__unix", "-D__SVR4", SUNW_D,
		"-D__SunOS_5.11", "-D__SUNW_D_VERSION=0x0100d000", NULL
	};
	static const char *const freebsd_args[] = {
		NOT_LINUX, "-D__FreeBSD__", "-D__unix__", SUNW_D,
		"-D__SUNW_D_VERSION=0x0100d000", NULL
	};
	static const char *const macos_args[] = {
		NOT_LINUX, "-D__APPLE__", "-D__MACH__", "-D__unix", SUNW_D,
		"-D__SUNW_D_VERSION=0x0100d000", NULL
	};

	switch (t->os) {
	case TARGET_OS_ILLUMOS:
		return illumos_args;
	case TARGET_OS_FREEBSD:
		return freebsd_args;
	case TARGET_OS_MACOS:
		return macos_args;
	case TARGET_OS_LINUX:
	default:
		return linux_args;
	}
}

/*
 * `#line 1 "path"` and the text: what cpp reads.  The name is written as a
 * C string literal, which cpp decodes: a quote or backslash escaped, '?'
 * as \? (no trigraph can form), and every control character as a
 * three-digit octal escape, since cpp ends a line at a carriage return as
 * at a newline and would run what follows as a directive.  cpp writes the
 * name back in its markers escaped its own way (\n, \015 or the raw
 * byte), which the parser decodes (parse.c, unquote).
 */
static void
make_input(strbuf_t *in, const char *path, const char *text, size_t len)
{
	sb_puts(in, "#line 1 \"");
	for (const unsigned char *p = (const unsigned char *)path; *p != '\0'; p++) {
		if (*p == '"' || *p == '\\' || *p == '?')
			sb_printf(in, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			sb_printf(in, "\\%03o", *p);
		else
			sb_putc(in, (char)*p);
	}
	sb_puts(in, "\"\n");
	sb_append(in, text, len);
}

/* Spawn argv[0] with in_fd as stdin and out_fd as stdout. */
static int
spawn(char **argv, int in_fd, int out_fd, pid_t *pidp, err_t *e)
{
	const int fds[3] = { in_fd, out_fd, -1 };
	int rc = spawn_argv(argv, fds, pidp);

	return rc == 0 ? 0 : err_errno(e, rc, "cannot run %s", argv[0]);
}

/*
 * Read what *from_fd holds now into out and close it: cpp has exited, and
 * a process it left behind may keep the pipe open for ever.
 */
static int
drain(int *from_fd, strbuf_t *out, err_t *e)
{
	char buf[16384];
	ssize_t n;

	fcntl(*from_fd, F_SETFL, fcntl(*from_fd, F_GETFL) | O_NONBLOCK);
	while ((n = read(*from_fd, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR))
		if (n > 0)
			sb_append(out, buf, (size_t)n);
	close(*from_fd);
	*from_fd = -1;
	if (n < 0 && errno != EAGAIN)
		return err_errno(e, errno, "cannot read the output of cpp");
	return 0;
}

/*
 * Write in to *to_fd and read *from_fd into out until cpp closes its
 * output or exits (then *reaped is set, with its wait status in *status:
 * a wrapper's background process holding the pipe does not hold us).  A
 * cpp that stops reading just ends the writing.  Closes both.
 */
static int
exchange(pid_t pid, int *status, bool *reaped, int *to_fd, int *from_fd,
    const strbuf_t *in, strbuf_t *out, err_t *e)
{
	size_t done = 0;
	char buf[16384];

	while (*from_fd >= 0) {
		struct pollfd pfd[2] = {
			{ *from_fd, POLLIN, 0 }, { *to_fd, POLLOUT, 0 }
		};
		ssize_t n;
		int r = poll(pfd, *to_fd >= 0 ? 2 : 1, 100);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return err_errno(e, errno, "cannot wait for cpp");
		}
		if (r == 0 && (r = spawn_exited(pid, status)) != 0) {
			if (r < 0)
				return err_errno(e, errno, "cannot wait for cpp");
			*reaped = true;
			return drain(from_fd, out, e) != 0 ? -1 : out->failed ?
			    err_set(e, "out of memory reading the output of cpp") : 0;
		}
		if (*to_fd >= 0 && (pfd[1].revents & (POLLOUT | POLLERR | POLLHUP))) {
			n = send(*to_fd, in->data + done, in->len - done,
			    MSG_NOSIGNAL | MSG_DONTWAIT);
			if (n > 0)
				done += (size_t)n;
			if ((n < 0 && errno != EAGAIN && errno != EINTR) || done == in->len) {
				close(*to_fd);	/* all written, or cpp stopped reading */
				*to_fd = -1;
			}
		}
		if (pfd[0].revents & (POLLIN | POLLERR | POLLHUP)) {
			n = read(*from_fd, buf, sizeof(buf));
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				return err_errno(e, errno, "cannot read the output of cpp");
			if (n == 0) {
				close(*from_fd);
				*from_fd = -1;
			}
			sb_append(out, buf, (size_t)n);
		}
	}
	if (out->failed)
		return err_set(e, "out of memory reading the output of cpp");
	return 0;
}

/*
 * Wait for pid, unless it was (reaped, status), and turn a failure into a
 * message naming cmd.
 */
static int
wait_cpp(pid_t pid, bool reaped, int status, const char *cmd, err_t *e)
{
	int rc;

	if (!reaped && (rc = spawn_wait(pid, &status)) != 0)
		return err_errno(e, rc, "cannot wait for %s", cmd);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (WIFEXITED(status))
		return err_set(e, "%s failed with exit status %d", cmd,
		    WEXITSTATUS(status));
	return err_set(e, "%s was killed by signal %d", cmd, WTERMSIG(status));
}

int
cpp_run(const cpp_opts_t *o, const char *path, const char *text, size_t len,
    char **outp, size_t *lenp, err_t *e)
{
	const char *cmd = o->cmd != NULL && o->cmd[0] != '\0' ? o->cmd : "cpp";
	char **argv = NULL;
	int sv[2] = { -1, -1 }, pipefd[2] = { -1, -1 }, rc = -1, status = 0;
	bool reaped = false;
	strbuf_t in, out;
	size_t argc;
	pid_t pid;

	sb_init(&in);
	sb_init(&out);
	*outp = NULL;
	*lenp = 0;
	if ((argv = spawn_words(cmd, o->nargs + 1, &argc)) == NULL) {
		if (errno == EINVAL)
			err_set(e, "the preprocessor command '%s' has a quote that is never "
			    "closed [OPT_BAD_QUOTE]", cmd);
		else
			err_set(e, "out of memory running cpp");
		goto out;
	}
	if (argc == 0) {
		err_set(e, "the preprocessor command is empty");
		goto out;
	}
	for (size_t i = 0; i < o->nargs; i++)
		argv[argc++] = o->args[i];
	argv[argc++] = (char *)"-";
	argv[argc] = NULL;
	make_input(&in, path, text, len);
	if (in.failed) {
		err_set(e, "out of memory running cpp");
		goto out;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0 ||
	    pipe2(pipefd, O_CLOEXEC) != 0) {
		err_errno(e, errno, "cannot connect to cpp");
		goto out;
	}
	if (spawn(argv, sv[1], pipefd[1], &pid, e) != 0)
		goto out;
	close(sv[1]);
	close(pipefd[1]);
	sv[1] = pipefd[1] = -1;
	rc = exchange(pid, &status, &reaped, &sv[0], &pipefd[0], &in, &out, e);
	if (sv[0] >= 0)
		close(sv[0]);
	if (pipefd[0] >= 0)
		close(pipefd[0]);
	sv[0] = pipefd[0] = -1;
	if (wait_cpp(pid, reaped, status, argv[0], rc == 0 ? e : NULL) != 0)
		rc = -1;
	if (rc == 0) {
		sb_append(&out, "", 0);	/* NUL-terminated even when empty */
		if (out.failed) {
			rc = err_set(e, "out of memory reading the output of cpp");
		} else {
			*outp = sb_steal(&out, lenp);
		}
	}
out:
	for (int i = 0; i < 2; i++) {
		if (sv[i] >= 0)
			close(sv[i]);
		if (pipefd[i] >= 0)
			close(pipefd[i]);
	}
	sb_free(&in);
	sb_free(&out);
	free(argv);
	return rc;
}
