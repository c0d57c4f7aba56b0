/*
 * tests/cpp: a provider file that includes system headers (-C) and uses
 * their typedefs, built into a real program and traced (run).
 */
#include <sys/types.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>

provider sys {
	probe io(pid_t pid, ssize_t n, size_t len, off_t off, FILE *fp);
	probe net(socklen_t len, sa_family_t family, struct sockaddr *sa, struct msghdr *msg);
	probe widths(int8_t a, uint16_t b, int32_t c, uint64_t d, intptr_t e, uid_t f);
};
