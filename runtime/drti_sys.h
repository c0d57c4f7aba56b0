/*
 * drti_sys.h - the system calls and string functions of drti_lite's code
 * (drti_lite.c, and libusdt through drti_proto.h), each made through one
 * function of this module.
 *
 * Why one module: in a -G object every call of a libc function is a
 * relocation (24 bytes in every copy of drti_lite), a call of a function
 * of drti_lite's own is one only across its files; and what drti_lite
 * asks of the system is what decides what it costs a program's start-up
 * and whether it can block it, so it is in one place: every open here is
 * O_NONBLOCK, O_NOCTTY and O_CLOEXEC (nothing at any path -- a FIFO where
 * a library was, a terminal -- can stop the program in open(2) or become
 * its terminal, nor is inherited by exec), and the debug line never
 * raises SIGPIPE in the host.
 *
 * Every function is hidden: drti_lite's objects are merged into one and
 * its names made local (the Makefile's drti_merge), libusdt's are local
 * to it.
 */
#ifndef USDTC_DRTI_SYS_H
#define USDTC_DRTI_SYS_H

#include <stddef.h>

#pragma GCC visibility push(hidden)

#define DRTI_PATH_MAX	4096

/* open(path, flags) that cannot block and is not inherited; fd or -1. */
int drti_open(const char *path, int flags);
int drti_close(int fd);
int drti_munmap(void *p, size_t len);
char *drti_strchr(const char *s, int c);
int drti_strcmp(const char *a, const char *b);
int drti_strncmp(const char *a, const char *b, size_t n);
int drti_memcmp(const void *a, const void *b, size_t n);

/*
 * The line of the file at path that starts with prefix, into line (cut to
 * size, NUL-ended); 0, or -1 when there is none.
 */
int drti_find_line(const char *path, const char *prefix, char *line, size_t size);

/* write(2) of buf to fd 2, without SIGPIPE; errno kept. */
void drti_write_stderr(const char *buf, size_t n);

#pragma GCC visibility pop

#endif
