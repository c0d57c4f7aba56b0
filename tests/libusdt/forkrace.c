/*
 * forkrace.c - fork() while other threads enable and disable providers
 * (issue 32): the child must be able to use libusdt and exit.
 *
 * Before pthread_atfork handlers, a child forked while another thread held
 * libusdt's lock inherited it held by a thread that does not exist in the
 * child, and its first enable waited forever (1 child in 30 to 1 in 400).
 *
 * Usage: forkrace DIR CHILDREN.  DIR is where images go (LIBUSDT_DIR).
 * Two threads create, enable, disable and free providers in a loop while
 * main forks CHILDREN children, each of which enables and disables a
 * provider of its own and exits 0.  A child that hangs is ended by
 * alarm(): a bound that only a hang meets (the child's work takes
 * milliseconds), so a busy machine makes the test slower, not red.
 * Prints one ok/FAIL line (testlib.h).  Linked with asanfork.c, which in
 * an ASan build gives GCC 12's libasan the fork handler it lacks.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <usdt.h>

#include "../testlib.h"

#define HANG_BOUND	120	/* seconds: only a deadlocked child gets there */

static atomic_int stop;
static atomic_long cycles;

/* Create, enable, disable, free one provider; 0 or -1. */
static int
cycle(const char *name)
{
	const char *types[] = { "int" };
	usdt_provider_t *p = usdt_create_provider(name, "mod");
	usdt_probedef_t *pd = usdt_create_probe("fn", "tick", 1, types);
	int rc = -1;

	if (p == NULL || pd == NULL || usdt_provider_add_probe(p, pd) != 0)
		goto out;
	if (usdt_provider_enable(p) == 0 && usdt_provider_disable(p) == 0)
		rc = 0;
out:
	if (pd != NULL)
		usdt_probe_release(pd);
	if (p != NULL)
		usdt_provider_free(p);
	return rc;
}

static void *
churn(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		cycle("churner");
		atomic_fetch_add(&cycles, 1);
	}
	return NULL;
}

int
main(int argc, char **argv)
{
	pthread_t th[2];
	int children, hung = 0, failed = 0, forked = 0;

	if (argc != 3 || setenv("LIBUSDT_DIR", argv[1], 1) != 0)
		return 2;
	children = atoi(argv[2]);
	for (int i = 0; i < 2; i++)
		if (pthread_create(&th[i], NULL, churn, NULL) != 0)
			return 2;
	for (int i = 0; i < children; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			alarm(HANG_BOUND);
			_exit(cycle("child") == 0 ? 0 : 1);
		}
		if (pid < 0) {
			if (errno == EAGAIN) {	/* too many at once: collect some */
				i--;
				while (waitpid(-1, NULL, WNOHANG) > 0)
					;
				continue;
			}
			break;
		}
		forked++;
	}
	atomic_store(&stop, 1);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	for (int status; wait(&status) > 0;) {
		if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
			hung++;
		else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			failed++;
	}
	check(forked == children && hung == 0 && failed == 0,
	    "fork while 2 threads enable and disable: every child uses libusdt and exits",
	    "%ld cycles, %d of %d children forked, %d hung (a lock held at the fork), %d failed",
	    atomic_load(&cycles), forked, children, hung, failed);
	printf("# %ld enable/disable cycles in the threads, %d children\n",
	    atomic_load(&cycles), forked);
	return test_summary();
}
