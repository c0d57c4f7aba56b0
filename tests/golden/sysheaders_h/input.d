/*
 * System headers through -C, as dtrace -C reads them: glibc's declarations
 * (prototypes, extern objects, static inline bodies, attributes) are read
 * and dropped, their typedefs kept and used by the probes below.
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
