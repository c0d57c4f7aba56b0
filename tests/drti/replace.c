/*
 * replace.c - a program whose -G library is replaced while it runs, then
 * forks: as an upgrade renames a new file over it, or worse, a FIFO.  The
 * fork child is a new process to DTrace and registers again; drti_lite
 * reads nothing from the file for it (the site records are in memory), so
 * the child neither hangs on the FIFO nor crashes, and registers the
 * library's inline sites (rlib_fire's) as the parent did.  Prints "child
 * ok" when the child exited by itself, 0.
 *
 * Usage: replace LIB
 */
#include <dlfcn.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	void *h;
	int (*fire)(int);
	int st;
	pid_t p;

	if (argc != 2 || (h = dlopen(argv[1], RTLD_NOW)) == NULL ||
	    (fire = (int (*)(int))dlsym(h, "rlib_fire")) == NULL) {
		fprintf(stderr, "replace: %s\n", dlerror());
		return 2;
	}
	fire(1);
	if (unlink(argv[1]) != 0 || mkfifo(argv[1], 0600) != 0) {
		perror("replace: the FIFO");
		return 2;
	}
	if ((p = fork()) == 0) {
		alarm(60);	/* a hang is a failure, not a stuck test */
		_exit(fire(2) > 0 ? 0 : 1);
	}
	if (p < 0 || waitpid(p, &st, 0) != p)
		return 2;
	printf("child %s\n", WIFEXITED(st) && WEXITSTATUS(st) == 0 ? "ok" : "failed");
	return 0;
}
