/*
 * drti_str.h - the string functions and the one formatter of drti_lite's
 * code, its own, not the C library's.
 *
 * Why: every libc function drti_lite calls is an import of each program
 * that links a -G object: the dynamic linker binds it (a symbol look-up
 * at its first call, or at start-up under -z now) and checks its symbol
 * version at every start-up, which the program pays even without DTrace
 * (bench/startup).  These few loops cost nothing of the kind.  The
 * Makefile builds drti_lite with -fno-builtin and without gcc's loop
 * distribution, so that the compiler does not turn them back into calls
 * of memcpy or memset (tests/drti checks the merged object's imports).
 */
#ifndef USDTC_DRTI_STR_H
#define USDTC_DRTI_STR_H

#include <stdarg.h>
#include <stddef.h>

#pragma GCC visibility push(hidden)

size_t drti_strlen(const char *s);
int drti_strcmp(const char *a, const char *b);
int drti_strncmp(const char *a, const char *b, size_t n);
char *drti_strchr(const char *s, int c);
char *drti_strrchr(const char *s, int c);
char *drti_strstr(const char *s, const char *needle);
int drti_memcmp(const void *a, const void *b, size_t n);
void *drti_memchr(const void *s, int c, size_t n);
void *drti_memcpy(void *dst, const void *src, size_t n);
void *drti_memmove(void *dst, const void *src, size_t n);
void *drti_memset(void *dst, int c, size_t n);
/* strtoul(s, end, 10): spaces skipped, no sign, ULONG_MAX past it. */
unsigned long drti_strtoul(const char *s, char **end);

/*
 * vsnprintf of the conversions drti_lite uses: %s, %.*s, %d, %lu, %llu,
 * %zu, %p, %m (strerror of errno) and %%.  Returns the length the whole
 * output would have; buf holds what fits, NUL-ended (size > 0).
 */
int drti_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
int drti_snprintf(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#pragma GCC visibility pop

#endif
