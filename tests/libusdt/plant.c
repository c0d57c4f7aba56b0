/*
 * plant.c - the attacker of tests/libusdt's attacks on libusdt's files,
 * run as another user than its victim (race.c).
 *
 * Usage:
 *   plant names VPID PROV N DIR TARGET link|copy
 *       create in DIR the names libusdt-NS-VPID-START-SEQ-PROV.so that
 *       VPID would give its images under the predictable naming (NS our
 *       pid namespace, START from /proc/VPID/stat, SEQ 0..N-1): symlinks
 *       to TARGET, or copies of it; prints how many;
 *   plant flip LINK A B STOP SECONDS
 *       point the symlink LINK at A and B in turn (atomically, by rename)
 *       until file STOP exists or SECONDS have passed; prints the flips.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static unsigned long long
victim_start(const char *pid)
{
	char path[64], buf[1024], *p;
	unsigned long long start = 0;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	if ((f = fopen(path, "r")) == NULL)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	if ((p = strrchr(buf, ')')) == NULL ||
	    sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u "
	    "%*d %*d %*d %*d %*d %*d %llu", &start) != 1)
		return 0;
	return start;
}

static unsigned long long
our_ns(void)
{
	char link[64];
	unsigned long long ns = 0;
	ssize_t n = readlink("/proc/self/ns/pid", link, sizeof(link) - 1);

	if (n > 0) {
		link[n] = '\0';
		sscanf(link, "pid:[%llu]", &ns);
	}
	return ns;
}

static int
copy_file(const char *from, const char *to)
{
	int in = open(from, O_RDONLY), out;
	struct stat st;
	int rc = -1;

	if (in < 0)
		return -1;
	if (fstat(in, &st) == 0 && (out = open(to, O_WRONLY | O_CREAT | O_EXCL, 0755)) >= 0) {
		rc = sendfile(out, in, NULL, (size_t)st.st_size) == st.st_size ? 0 : -1;
		close(out);
	}
	close(in);
	return rc;
}

static int
names(char **argv)
{
	unsigned long long ns = our_ns(), start = victim_start(argv[2]);
	long n = atol(argv[4]), made = 0;
	char path[4096];

	if (ns == 0 || start == 0) {
		fprintf(stderr, "plant: no namespace or start time for %s\n", argv[2]);
		return 1;
	}
	for (long seq = 0; seq < n; seq++) {
		snprintf(path, sizeof(path), "%s/libusdt-%llu-%s-%llu-%ld-%s.so", argv[5], ns,
		    argv[2], start, seq, argv[3]);
		if (strcmp(argv[7], "link") == 0 ? symlink(argv[6], path) == 0 :
		    copy_file(argv[6], path) == 0)
			made++;
	}
	printf("planted %ld\n", made);
	return made == n ? 0 : 1;
}

static int
flip(char **argv)
{
	char tmp[4096];
	struct timespec t0, t;
	long flips = 0;

	snprintf(tmp, sizeof(tmp), "%s.new", argv[2]);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (access(argv[5], F_OK) == 0 || t.tv_sec - t0.tv_sec >= atol(argv[6]))
			break;
		unlink(tmp);
		if (symlink(argv[3 + (flips & 1)], tmp) == 0 && rename(tmp, argv[2]) == 0)
			flips++;
	}
	printf("flips %ld\n", flips);
	return 0;
}

int
main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 8 && strcmp(argv[1], "names") == 0)
		return names(argv);
	if (argc == 7 && strcmp(argv[1], "flip") == 0)
		return flip(argv);
	fprintf(stderr, "usage: plant names VPID PROV N DIR TARGET link|copy | "
	    "plant flip LINK A B STOP SECONDS\n");
	return 2;
}
