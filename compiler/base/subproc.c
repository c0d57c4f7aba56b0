/*
 * subproc.c - running another program (subproc.h).
 */
#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
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

char **
spawn_words(const char *cmd, size_t extra, size_t *argc)
{
	size_t len = strlen(cmd), cap = len / 2 + 1 + extra + 1;
	char **argv = malloc(cap * sizeof(*argv) + len + 1);
	char *text, *save = NULL;

	if (argv == NULL)
		return NULL;
	text = memcpy((char *)(argv + cap), cmd, len + 1);
	*argc = 0;
	for (char *w = strtok_r(text, " \t\n", &save); w != NULL;
	    w = strtok_r(NULL, " \t\n", &save))
		argv[(*argc)++] = w;
	argv[*argc] = NULL;
	return argv;
}
