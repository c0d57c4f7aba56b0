/*
 * subproc.c - running another program (subproc.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include "subproc.h"

extern char **environ;

volatile pid_t spawn_running;

/*
 * Signals are blocked from the spawn until spawn_running names the child,
 * so a handler never misses a child that already runs; the child starts
 * with the mask we had.
 */
int
spawn_argv(char **argv, const int fds[3], pid_t *pidp)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t all, old;
	int rc;

	if ((rc = posix_spawn_file_actions_init(&fa)) != 0)
		return rc;
	if ((rc = posix_spawnattr_init(&attr)) != 0) {
		posix_spawn_file_actions_destroy(&fa);
		return rc;
	}
	for (int i = 0; i < 3 && rc == 0; i++)
		if (fds[i] >= 0)
			rc = posix_spawn_file_actions_adddup2(&fa, fds[i], i);
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	if (rc == 0)
		rc = posix_spawnattr_setsigmask(&attr, &old);
	if (rc == 0)
		rc = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
	if (rc == 0)
		rc = posix_spawnp(pidp, argv[0], &fa, &attr, argv, environ);
	if (rc == 0)
		spawn_running = *pidp;
	sigprocmask(SIG_SETMASK, &old, NULL);
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
	return rc;
}

int
spawn_wait(pid_t pid, int *statusp)
{
	while (waitpid(pid, statusp, 0) < 0)
		if (errno != EINTR) {
			spawn_running = 0;
			return errno;
		}
	spawn_running = 0;
	return 0;
}

void
spawn_stop(void)
{
	pid_t pid = spawn_running;

	if (pid > 0) {
		kill(pid, SIGKILL);
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
}

/*
 * The word of the command at *pp, unquoted (subproc.h) into *outp and
 * NUL-terminated: 1, with *pp and *outp past it; 0 at the end; -1 for a
 * quote never closed.
 */
static int
next_word(const char **pp, char **outp)
{
	const char *p = *pp + strspn(*pp, " \t\n");
	char *o = *outp;

	if (*p == '\0')
		return 0;
	while (*p != '\0' && *p != ' ' && *p != '\t' && *p != '\n') {
		if (*p == '\'') {
			const char *end = strchr(p + 1, '\'');

			if (end == NULL)
				return -1;
			memcpy(o, p + 1, (size_t)(end - p - 1));
			o += end - p - 1;
			p = end + 1;
		} else if (*p == '"') {
			for (p++; *p != '"'; p++) {
				if (*p == '\0')
					return -1;
				if (*p == '\\' && p[1] != '\0' && strchr("$`\"\\\n", p[1]) != NULL)
					if (*++p == '\n')
						continue;	/* a line joined */
				*o++ = *p;
			}
			p++;
		} else if (*p == '\\' && p[1] != '\0') {
			if (p[1] != '\n')
				*o++ = p[1];
			p += 2;
		} else {
			*o++ = *p++;	/* a trailing backslash stays, as in sh */
		}
	}
	*o++ = '\0';
	*pp = p;
	*outp = o;
	return 1;
}

char **
spawn_words_n(const char *const *cmds, size_t n, size_t extra, size_t *argc)
{
	size_t len = 0, cap;
	char **argv, *text;

	for (size_t i = 0; i < n; i++)
		len += cmds[i] != NULL ? strlen(cmds[i]) + 1 : 0;
	/* A word and its blank take two bytes at least; its NUL one more. */
	cap = len / 2 + 1 + extra + 1;
	if ((argv = malloc(cap * sizeof(*argv) + 2 * len + 1)) == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	text = (char *)(argv + cap);
	*argc = 0;
	for (size_t i = 0; i < n; i++) {
		const char *p = cmds[i];
		char *w = text;
		int r;

		while (p != NULL && (r = next_word(&p, &text)) != 0) {
			if (r < 0) {
				free(argv);
				errno = EINVAL;
				return NULL;
			}
			argv[(*argc)++] = w;
			w = text;
		}
	}
	argv[*argc] = NULL;
	return argv;
}

char **
spawn_words(const char *cmd, size_t extra, size_t *argc)
{
	return spawn_words_n(&cmd, 1, extra, argc);
}

int
spawn_exited(pid_t pid, int *statusp)
{
	pid_t r;

	while ((r = waitpid(pid, statusp, WNOHANG)) < 0 && errno == EINTR)
		;
	if (r == 0)
		return 0;
	spawn_running = 0;
	return r < 0 ? -1 : 1;
}

/* Milliseconds on the monotonic clock. */
static long long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Read what fd holds now into buf (see spawn_wait_output); false at its end. */
static bool
read_some(int fd, char *buf, size_t size, size_t *lenp)
{
	char scratch[4096];
	ssize_t r;

	for (;;) {
		char *to = *lenp + 1 < size ? buf + *lenp : scratch;
		size_t room = *lenp + 1 < size ? size - 1 - *lenp : sizeof(scratch);

		r = read(fd, to, room);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)	/* EAGAIN: more may come; the end, or an error: no more */
			return r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
		if (to != scratch)
			*lenp += (size_t)r;
	}
}

int
spawn_wait_output(pid_t pid, int fd, char *buf, size_t size, size_t *lenp,
    int timeout_ms, int *statusp)
{
	long long end = now_ms() + timeout_ms;
	bool open_fd = fd >= 0;
	int step = 1, r;

	*lenp = 0;
	if (open_fd)
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	for (;;) {
		struct pollfd pfd = { fd, POLLIN, 0 };
		int ms = step;

		if ((r = spawn_exited(pid, statusp)) != 0)
			break;
		if (timeout_ms >= 0 && now_ms() >= end) {
			spawn_stop();
			spawn_running = 0;
			return ETIMEDOUT;
		}
		/* Output wakes us; the exit is looked for in steps up to 100 ms. */
		if (open_fd && poll(&pfd, 1, ms) > 0)
			open_fd = read_some(fd, buf, size, lenp);
		else if (!open_fd)
			poll(NULL, 0, ms);
		step = step < 100 ? step * 2 : 100;
	}
	if (r < 0)
		return errno;
	if (fd >= 0)
		read_some(fd, buf, size, lenp);	/* what it wrote before it ended */
	if (size > 0)
		buf[*lenp] = '\0';
	return 0;
}
