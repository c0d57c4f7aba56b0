/*
 * subproc.c - running another program (subproc.h).
 */
#include <errno.h>
#include <spawn.h>
#include <sys/wait.h>

#include "subproc.h"

extern char **environ;

int
spawn_argv(char **argv, const int fds[3], pid_t *pidp)
{
	posix_spawn_file_actions_t fa;
	int rc;

	if ((rc = posix_spawn_file_actions_init(&fa)) != 0)
		return rc;
	for (int i = 0; i < 3 && rc == 0; i++)
		if (fds[i] >= 0)
			rc = posix_spawn_file_actions_adddup2(&fa, fds[i], i);
	if (rc == 0)
		rc = posix_spawnp(pidp, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	return rc;
}

int
spawn_wait(pid_t pid, int *statusp)
{
	while (waitpid(pid, statusp, 0) < 0)
		if (errno != EINTR)
			return errno;
	return 0;
}
