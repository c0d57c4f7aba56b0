/*
 * drti_str.c - drti_lite's own string functions and formatter (drti_str.h
 * says why): plain loops, byte by byte; the strings are short (paths,
 * lines of /proc files, names of probes) and the code runs once.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "drti_str.h"

size_t
drti_strlen(const char *s)
{
	size_t n = 0;

	while (s[n] != '\0')
		n++;
	return n;
}

int
drti_strncmp(const char *a, const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char x = (unsigned char)a[i], y = (unsigned char)b[i];

		if (x != y)
			return x < y ? -1 : 1;
		if (x == '\0')
			return 0;
	}
	return 0;
}

int
drti_strcmp(const char *a, const char *b)
{
	return drti_strncmp(a, b, SIZE_MAX);
}

char *
drti_strchr(const char *s, int c)
{
	for (;; s++) {
		if (*s == (char)c)
			return (char *)(uintptr_t)s;
		if (*s == '\0')
			return NULL;
	}
}

char *
drti_strrchr(const char *s, int c)
{
	const char *last = NULL;

	for (;; s++) {
		if (*s == (char)c)
			last = s;
		if (*s == '\0')
			return (char *)(uintptr_t)last;
	}
}

char *
drti_strstr(const char *s, const char *needle)
{
	size_t n = drti_strlen(needle);

	for (; *s != '\0'; s++)
		if (drti_strncmp(s, needle, n) == 0)
			return (char *)(uintptr_t)s;
	return n == 0 ? (char *)(uintptr_t)s : NULL;
}

int
drti_memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;

	for (size_t i = 0; i < n; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

/*
 * Eight bytes at a time where the length allows (__builtin_memcpy of a
 * constant 8 is one load or store, not a call): the DOF copies and the
 * scratch tables of drti_sites.c are kilobytes to megabytes.
 */
typedef uint64_t drti_word_t;
#define DRTI_ONES	((drti_word_t)0x0101010101010101u)

static drti_word_t
drti_load(const unsigned char *p)
{
	drti_word_t w;

	__builtin_memcpy(&w, p, sizeof(w));
	return w;
}

void *
drti_memchr(const void *s, int c, size_t n)
{
	const unsigned char *p = s;
	drti_word_t pat = DRTI_ONES * (unsigned char)c;
	size_t i = 0;

	for (; n - i >= sizeof(drti_word_t); i += sizeof(drti_word_t)) {
		drti_word_t x = drti_load(p + i) ^ pat;
		drti_word_t zero = (x - DRTI_ONES) & ~x & (DRTI_ONES << 7);

		/* zero's lowest bit marks the first byte of c exactly (a borrow
		 * runs only upwards, into later bytes) */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		if (zero != 0)
			return (void *)(uintptr_t)(p + i + (size_t)__builtin_ctzll(zero) / 8);
#else
		if (zero != 0)
			break;	/* found byte by byte, below */
#endif
	}
	for (; i < n; i++)
		if (p[i] == (unsigned char)c)
			return (void *)(uintptr_t)(p + i);
	return NULL;
}

void *
drti_memcpy(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;
	size_t i = 0;

	for (; n - i >= sizeof(drti_word_t); i += sizeof(drti_word_t)) {
		drti_word_t w = drti_load(s + i);

		__builtin_memcpy(d + i, &w, sizeof(w));
	}
	for (; i < n; i++)
		d[i] = s[i];
	return dst;
}

void *
drti_memmove(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	if ((uintptr_t)d - (uintptr_t)s >= n)	/* d before s, or no overlap: forwards */
		return drti_memcpy(dst, src, n);
	for (; n >= sizeof(drti_word_t); n -= sizeof(drti_word_t)) {
		drti_word_t w = drti_load(s + n - sizeof(w));

		__builtin_memcpy(d + n - sizeof(w), &w, sizeof(w));
	}
	while (n-- > 0)
		d[n] = s[n];
	return dst;
}

void *
drti_memset(void *dst, int c, size_t n)
{
	unsigned char *d = dst;
	drti_word_t w = DRTI_ONES * (unsigned char)c;
	size_t i = 0;

	for (; n - i >= sizeof(w); i += sizeof(w))
		__builtin_memcpy(d + i, &w, sizeof(w));
	for (; i < n; i++)
		d[i] = (unsigned char)c;
	return dst;
}

unsigned long
drti_strtoul(const char *s, char **end)
{
	unsigned long v = 0;
	int over = 0;

	while (*s == ' ' || (*s >= '\t' && *s <= '\r'))
		s++;
	for (; *s >= '0' && *s <= '9'; s++) {
		unsigned d = (unsigned)(*s - '0');

		over |= v > (ULONG_MAX - d) / 10;
		v = v * 10 + d;
	}
	if (end != NULL)
		*end = (char *)(uintptr_t)s;
	return over ? ULONG_MAX : v;
}

/* Where the formatter writes: buf[0, size - 1), and how much it would have. */
typedef struct drti_fmt {
	char *buf;
	size_t size, len;
} drti_fmt_t;

static void
drti_put(drti_fmt_t *o, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++, o->len++)
		if (o->len + 1 < o->size)
			o->buf[o->len] = s[i];
}

/* v in base 10 or 16, after a minus sign if neg. */
static void
drti_put_num(drti_fmt_t *o, unsigned long long v, unsigned base, int neg)
{
	char digits[24];
	size_t n = sizeof(digits);

	do {
		digits[--n] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v != 0);
	if (neg)
		digits[--n] = '-';
	drti_put(o, digits + n, sizeof(digits) - n);
}

int
drti_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	drti_fmt_t o = { buf, size, 0 };

	for (const char *p = fmt; *p != '\0'; p++) {
		const char *s;
		long long d;

		if (*p != '%') {
			drti_put(&o, p, 1);
			continue;
		}
		switch (*++p) {
		case 's':
			s = va_arg(ap, const char *);
			drti_put(&o, s, drti_strlen(s));
			break;
		case '.':	/* %.*s */
			d = va_arg(ap, int);
			s = va_arg(ap, const char *);
			p += 2;
			drti_put(&o, s, d < 0 ? drti_strlen(s) :
			    (size_t)(drti_memchr(s, '\0', (size_t)d) != NULL ?
			    drti_strlen(s) : (size_t)d));
			break;
		case 'd':
			d = va_arg(ap, int);
			drti_put_num(&o, d < 0 ? 0 - (unsigned long long)d : (unsigned long long)d,
			    10, d < 0);
			break;
		case 'l':	/* %lu, %llu */
			if (p[1] == 'l') {
				p += 2;
				drti_put_num(&o, va_arg(ap, unsigned long long), 10, 0);
			} else {
				p++;
				drti_put_num(&o, va_arg(ap, unsigned long), 10, 0);
			}
			break;
		case 'z':	/* %zu */
			p++;
			drti_put_num(&o, va_arg(ap, size_t), 10, 0);
			break;
		case 'p':
			drti_put(&o, "0x", 2);
			drti_put_num(&o, (uintptr_t)va_arg(ap, void *), 16, 0);
			break;
		case 'm':
			s = strerror(errno);	/* the one libc call: its texts, translated */
			drti_put(&o, s, drti_strlen(s));
			break;
		case '%':
			drti_put(&o, "%", 1);
			break;
		default:	/* not one of ours: the format checks keep this out */
			p--;
			drti_put(&o, "%", 1);
			break;
		}
	}
	if (size > 0)
		buf[o.len < size ? o.len : size - 1] = '\0';
	return (int)o.len;
}

int
drti_snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = drti_vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}
