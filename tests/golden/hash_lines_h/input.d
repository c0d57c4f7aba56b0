/* Built without -C: # lines are comments; CRLF line endings. */
#include <sys/types.h>
#define UNUSED 1
#ifdef UNUSED
provider hashes { // a C++ comment
	# file: server.c
	probe accept(int fd, /* inline comment */ const char *peer);
#endif
	probe close(int fd);
};
