/*
 * prog.c - the drti test program.
 *
 *   prog            print "drtitest:NAME 0xADDR" for each probe function
 *   prog quiet      fire the probes, print nothing
 *   prog fork       print, then fork; the child exits (running its
 *                   destructors), the parent waits
 *   prog enabled    print "sem=0xS enabled=E": the semaphore of
 *                   drtitest:stop-now and what DRTITEST_STOP_NOW_ENABLED() says
 *   prog counted    the same after adding 1 to the semaphore, as a Linux
 *                   tracer (bpftrace, perf) does when it attaches
 *   prog dlopen LIB print, dlopen LIB, run its lib_run() (which prints its
 *                   own probes), dlclose it, then open the shim's mark
 *                   path "dlclosed" so the log shows where dlclose ended
 *
 * With -DSECOND, a second translation unit (second.c) with its own -G
 * object is linked in, and prog also calls second_fire().
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "prov.h"

#ifdef SECOND
void second_fire(void);
#endif

/*
 * The probe functions, whose addresses are printed: the header declares
 * them only where a macro calls them (the call form), and these probes
 * are inline sites.
 */
extern void __dtrace_drtitest___start(int);
extern void __dtrace_drtitest___stop__now(void);

static void
print_probes(void)
{
	printf("drtitest:start %p\n", (void *)&__dtrace_drtitest___start);
	printf("drtitest:stop-now %p\n", (void *)&__dtrace_drtitest___stop__now);
	fflush(stdout);
}

static int
run_library(const char *path)
{
	void *h = dlopen(path, RTLD_NOW);
	int (*run)(void);
	int fd;

	if (h == NULL) {
		fprintf(stderr, "dlopen %s: %s\n", path, dlerror());
		return 1;
	}
	*(void **)&run = dlsym(h, "lib_run");
	if (run == NULL || run() != 0) {
		fprintf(stderr, "lib_run missing or failed\n");
		return 1;
	}
	dlclose(h);
	if ((fd = open("/usdtc-shim-mark/dlclosed", O_RDONLY)) >= 0)
		close(fd);
	return 0;
}

int
main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	DRTITEST_START(argc);
	if (DRTITEST_STOP_NOW_ENABLED())
		DRTITEST_STOP_NOW();
#ifdef SECOND
	second_fire();
#endif
	if (strcmp(mode, "quiet") == 0)
		return 0;
	if (strcmp(mode, "counted") == 0)
		drtitest_stop__now_semaphore++;
	if (strcmp(mode, "enabled") == 0 || strcmp(mode, "counted") == 0) {
		printf("sem=0x%x enabled=%d\n", (unsigned)drtitest_stop__now_semaphore,
		    DRTITEST_STOP_NOW_ENABLED() != 0);
		return 0;
	}
	print_probes();
	if (strcmp(mode, "fork") == 0) {
		pid_t pid = fork();
		int status;

		if (pid == 0)
			exit(0);	/* run destructors: the child unregisters too */
		if (pid < 0 || waitpid(pid, &status, 0) != pid || status != 0)
			return 1;
	}
	if (strcmp(mode, "dlopen") == 0 && argc > 2)
		return run_library(argv[2]);
	return 0;
}
