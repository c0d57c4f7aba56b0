/*
 * evil.c - the attacker's library in tests/libusdt's attacks: if a victim
 * ever loads it, its constructor leaves a marker file (MARKER.UID) that
 * the test looks for.
 */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

__attribute__((constructor)) static void
evil(void)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s.%ld", MARKER, (long)getuid());
	if ((fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644)) >= 0) {
		(void)write(fd, "x\n", 2);
		close(fd);
	}
}
