/*
 * host.c - a program carrying drti_lite, for tests/hostile/run.
 *
 * drti_lite's constructor runs before main; main reports what it left
 * behind in the process: whether SIGPIPE is pending or blocked (it must
 * be neither after a debug line written to a broken pipe), and its
 * effective user id (a setuid test checks that the bit took effect).  With
 * "storm N" it forks N children, each of which forks once more (drti_lite
 * registers again in every child, pthread_atfork), and waits for all:
 * every child must exit 0.  Prints "storm ok N" or what went wrong.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host.h"

static int
storm(int n)
{
	int bad = 0, status;
	pid_t pid;

	for (int i = 0; i < n; i++) {
		if ((pid = fork()) < 0) {
			perror("fork");
			bad++;
			break;
		}
		if (pid == 0) {
			HOST_TICK(i);
			pid = fork();
			if (pid == 0)
				_exit(0);
			_exit(pid > 0 && waitpid(pid, &status, 0) == pid &&
			    WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1);
		}
	}
	while ((pid = wait(&status)) > 0)
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			bad++;
	if (bad == 0)
		printf("storm ok %d\n", n);
	else
		printf("storm: %d children failed\n", bad);
	return bad != 0;
}

int
main(int argc, char **argv)
{
	sigset_t pending, blocked;

	if (argc == 3 && strcmp(argv[1], "storm") == 0)
		return storm(atoi(argv[2]));
	sigemptyset(&pending);
	sigemptyset(&blocked);
	sigpending(&pending);
	sigprocmask(SIG_BLOCK, NULL, &blocked);
	HOST_TICK(argc);
	printf("pending=%d blocked=%d euid=%d\n", sigismember(&pending, SIGPIPE),
	    sigismember(&blocked, SIGPIPE), (int)geteuid());
	return 0;
}
