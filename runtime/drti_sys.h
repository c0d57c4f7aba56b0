/*
 * drti_sys.h - the system calls of drti_lite's code (drti_lite.c, and
 * libusdt through drti_proto.h), each made through one function of this
 * module.
 *
 * Why one module: what drti_lite asks of the system decides what it costs
 * a program's start-up and whether it can block it, so it is in one
 * place.  On x86_64 and AArch64 (the Linux architectures DTrace runs on)
 * each is a system call of its own, not the C library's wrapper: every
 * libc function drti_lite calls is an import of each program linking a
 * -G object, which the dynamic linker binds and version-checks even when
 * no DTrace is there (bench/startup; drti_str.h does the same for the
 * string functions).  Elsewhere (a 32-bit host's own drti_lite, built but
 * never run under DTrace) they are the C library's.  Each sets errno as
 * its wrapper would, and returns -1 on failure.  Three stay the C
 * library's everywhere: open, close and ioctl, the calls that reach the
 * helper device, so that what interposes on them sees them (an LD_PRELOAD
 * tracer; the tests' shim that plays the device, tests/drti/shim.c).  A
 * program without DTrace never makes them (drti_dir_absent is enough), so
 * the dynamic linker never binds them: their cost is a lazy PLT slot each,
 * under the symbol version (GLIBC_2.2.5) the program already has.
 *
 * Every open here is O_NONBLOCK, O_NOCTTY and O_CLOEXEC: nothing at any
 * path -- a FIFO where a library was, a terminal -- can stop the program
 * in open(2) or become its terminal, nor is inherited by exec; and the
 * debug line never raises SIGPIPE in the host.
 *
 * Every function is hidden: drti_lite's objects are merged into one and
 * its names made local (the Makefile's drti_merge), libusdt's are local
 * to it.
 */
#ifndef USDTC_DRTI_SYS_H
#define USDTC_DRTI_SYS_H

#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/vfs.h>

#pragma GCC visibility push(hidden)

#define DRTI_PATH_MAX	4096

/* open(path, flags) that cannot block and is not inherited; fd or -1. */
int drti_open(const char *path, int flags);
/*
 * Whether the directory dir cannot be opened (O_PATH: no file system's
 * daemon is asked but for its own look-up); errno is left alone, so that
 * the usual case, no DTrace, calls nothing of the C library.
 */
int drti_dir_absent(const char *dir);
int drti_close(int fd);
long drti_read(int fd, void *buf, size_t n);
long drti_readlinkat(int dirfd, const char *path, char *buf, size_t n);
int drti_ioctl(int fd, unsigned long req, unsigned long arg);
/* mmap of fd from offset 0 (-1: anonymous); MAP_FAILED on failure. */
void *drti_mmap(void *addr, size_t len, int prot, int flags, int fd);
int drti_munmap(void *p, size_t len);
int drti_fstat(int fd, struct stat *st);
int drti_fstatat(int dirfd, const char *path, struct stat *st, int flags);
int drti_fstatfs(int fd, struct statfs *sf);
/* getdents64: bytes of struct dirent64 read into buf, 0 at the end, -1. */
long drti_getdents64(int fd, void *buf, size_t n);
uid_t drti_geteuid(void);
/* memfd_create(name, MFD_CLOEXEC) */
int drti_memfd(const char *name);
int drti_ftruncate(int fd, off_t len);
/* pwrite(2): the bytes written, or -1. */
long drti_pwrite(int fd, const void *buf, size_t n, off_t off);

/*
 * The line of the file at path that starts with prefix, into line (cut to
 * size, NUL-ended); 0, or -1 when there is none.
 */
int drti_find_line(const char *path, const char *prefix, char *line, size_t size);

/* write(2) of buf to fd 2, without SIGPIPE; errno kept. */
void drti_write_stderr(const char *buf, size_t n);

#pragma GCC visibility pop

#endif
