/*
 * forker.c - a program that changes the world drti_lite registered in,
 * then forks, for tests/hostile/run (issue 37): drti_lite registers again
 * in the fork child (pthread_atfork), and nothing it meets there may kill
 * or stop the child.
 *
 * Usage: forker ACTION [ARGS]
 *   none              fork as it is
 *   rename NEW PATH   rename(NEW, PATH): the -G library replaced, as a
 *                     package upgrade replaces it
 *   delete PATH       unlink(PATH): the library deleted
 *   fifo PATH         unlink(PATH), mkfifo(PATH): a FIFO where it was
 *   drop              setgid, setuid to nobody (65534): a root daemon
 *                     whose executable (mode 0711) it can no longer read
 *
 * The program carries a -G object (provider fkmain) and is linked with
 * libfk.so, which carries another (provider fk).  After ACTION it fires
 * both probes, forks; the child fires them again and exits with exit(0)
 * (the destructors run); the parent waits and prints "child exit N" or
 * "child signal N", and exits 0 only when the child exited 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fkmain.h"

int fk_fire(int n);

static int
act(int argc, char **argv)
{
	const char *a = argv[1];

	if (strcmp(a, "none") == 0)
		return 0;
	if (strcmp(a, "rename") == 0 && argc == 4)
		return rename(argv[2], argv[3]);
	if (strcmp(a, "delete") == 0 && argc == 3)
		return unlink(argv[2]);
	if (strcmp(a, "fifo") == 0 && argc == 3)
		return unlink(argv[2]) != 0 ? -1 : mkfifo(argv[2], 0644);
	if (strcmp(a, "drop") == 0)
		return setgid(65534) != 0 ? -1 : setuid(65534);
	fprintf(stderr, "forker: bad action\n");
	return -1;
}

int
main(int argc, char **argv)
{
	int status;
	pid_t pid;

	if (argc < 2 || act(argc, argv) != 0) {
		perror("forker");
		return 2;
	}
	FKMAIN_MAIN(fk_fire(argc));
	fflush(stdout);
	if ((pid = fork()) < 0) {
		perror("fork");
		return 2;
	}
	if (pid == 0) {
		FKMAIN_MAIN(fk_fire(argc + 1));
		exit(0);
	}
	if (waitpid(pid, &status, 0) != pid) {
		perror("waitpid");
		return 2;
	}
	if (WIFEXITED(status))
		printf("child exit %d\n", WEXITSTATUS(status));
	else
		printf("child signal %d\n", WTERMSIG(status));
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
