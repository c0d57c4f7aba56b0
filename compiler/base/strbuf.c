/*
 * strbuf.c - growable buffer; see strbuf.h.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "strbuf.h"

void
sb_init(strbuf_t *sb)
{
	sb->data = NULL;
	sb->len = 0;
	sb->cap = 0;
	sb->failed = false;
	sb->sink = NULL;
	sb->sink_ctx = NULL;
	sb->sink_at = 0;
}

void
sb_free(strbuf_t *sb)
{
	free(sb->data);
	sb_init(sb);
}

char *
sb_steal(strbuf_t *sb, size_t *lenp)
{
	char *data = sb->data;

	if (lenp != NULL)
		*lenp = sb->len;
	sb_init(sb);
	return data;
}

/*
 * Give sb room for n more bytes plus a NUL: exactly that (exact) or the
 * next power of two from 64 up.  False once anything failed.
 */
static bool
sb_grow(strbuf_t *sb, size_t n, bool exact)
{
	size_t want, cap;
	char *p;

	if (sb->failed)
		return false;
	if (n > SIZE_MAX / 2 - sb->len) {
		sb->failed = true;
		return false;
	}
	want = sb->len + n + 1;
	if (want <= sb->cap)
		return true;
	if (sb->sink != NULL && sb->len > 0 && want > sb->sink_at) {
		if (!sb_flush(sb))
			return false;
		if ((want = n + 1) <= sb->cap)
			return true;
	}
	cap = exact ? want : sb->cap ? sb->cap : 64;
	while (cap < want)
		cap *= 2;
	if ((p = realloc(sb->data, cap)) == NULL) {
		sb->failed = true;
		return false;
	}
	sb->data = p;
	sb->cap = cap;
	return true;
}

/* Make room for n more bytes plus a NUL, growing by doubling. */
void
sb_stream(strbuf_t *sb, sb_sink_fn *sink, void *ctx, size_t at)
{
	sb->sink = sink;
	sb->sink_ctx = ctx;
	sb->sink_at = at;
}

bool
sb_flush(strbuf_t *sb)
{
	if (sb->failed)
		return false;
	if (sb->sink == NULL || sb->len == 0)
		return true;
	if (sb->sink(sb->sink_ctx, sb->data, sb->len) != 0) {
		sb->failed = true;
		return false;
	}
	sb->len = 0;
	sb->data[0] = '\0';
	return true;
}

static bool
sb_reserve(strbuf_t *sb, size_t n)
{
	return sb_grow(sb, n, false);
}

bool
sb_presize(strbuf_t *sb, size_t n)
{
	return sb_grow(sb, n, true);
}

void
sb_append(strbuf_t *sb, const void *bytes, size_t n)
{
	/* n == 0 may come with bytes == NULL (an empty section): no memcpy. */
	if (n > 0 && n < sb->cap && sb->len < sb->cap - n && !sb->failed) {
		memcpy(sb->data + sb->len, bytes, n);	/* fits: the common case */
		sb->len += n;
		sb->data[sb->len] = '\0';
		return;
	}
	if (!sb_reserve(sb, n))
		return;
	if (n > 0)
		memcpy(sb->data + sb->len, bytes, n);
	sb->len += n;
	sb->data[sb->len] = '\0';
}

void
sb_puts(strbuf_t *sb, const char *s)
{
	sb_append(sb, s, strlen(s));
}

void
sb_putc(strbuf_t *sb, char c)
{
	/* The common case, room for c and the NUL, without the general path. */
	if (sb->len + 2 <= sb->cap && !sb->failed) {
		sb->data[sb->len++] = c;
		sb->data[sb->len] = '\0';
		return;
	}
	sb_append(sb, &c, 1);
}

/*
 * sb_printf formats the plain conversions itself: the header writer calls
 * it a few hundred thousand times for a big provider, and the C library's
 * vsnprintf sets up a stream and parses the format anew on every call
 * (`bench/compile` times -h of a 10,000-probe provider).  Plain means %s, %.*s, %c, %% and
 * the integer conversions d, i, u, x, o with an optional 0 flag, width and
 * z, l or ll; a format with anything else goes to vsnprintf whole.
 */
static bool
plain_format(const char *fmt)
{
	for (const char *p = fmt; (p = strchr(p, '%')) != NULL; p++) {
		bool sized = false;

		p++;
		if (p[0] == '.' && p[1] == '*' && p[2] == 's') {	/* %.*s */
			p += 2;
			continue;
		}
		if (*p == '0')
			p++, sized = true;
		for (; *p >= '0' && *p <= '9'; p++)
			sized = true;
		if (*p == 'z' || *p == 'l')
			sized = true, p += (p[0] == 'l' && p[1] == 'l') ? 2 : 1;
		switch (*p) {
		case 'd': case 'i': case 'u': case 'x': case 'o':
			break;
		case 's': case 'c': case '%':
			if (sized)
				return false;
			break;
		default:
			return false;
		}
	}
	return true;
}

/* One integer conversion: the magnitude in base, its sign, width and pad. */
static void
put_integer(strbuf_t *sb, unsigned long long v, bool negative, unsigned base,
    size_t width, char pad)
{
	char digits[3 * sizeof(v)];
	size_t n = 0, len;

	do {
		digits[n++] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v != 0);
	len = n + negative;
	if (negative && pad == '0')
		sb_putc(sb, '-');
	for (; len < width; len++)
		sb_putc(sb, pad);
	if (negative && pad != '0')
		sb_putc(sb, '-');
	while (n > 0)
		sb_putc(sb, digits[--n]);
}

/* The value of an integer conversion with length l ('\0', 'z', 'l' or 'L' for ll). */
static void
put_integer_arg(strbuf_t *sb, char conv, char l, size_t width, char pad, va_list *ap)
{
	unsigned base = conv == 'x' ? 16 : conv == 'o' ? 8 : 10;

	if (conv == 'd' || conv == 'i') {
		long long v = l == 'z' ? (long long)va_arg(*ap, ssize_t) :
		    l == 'l' ? va_arg(*ap, long) : l == 'L' ? va_arg(*ap, long long) :
		    va_arg(*ap, int);

		put_integer(sb, v < 0 ? 0 - (unsigned long long)v : (unsigned long long)v,
		    v < 0, base, width, pad);
	} else {
		unsigned long long v = l == 'z' ? va_arg(*ap, size_t) :
		    l == 'l' ? va_arg(*ap, unsigned long) :
		    l == 'L' ? va_arg(*ap, unsigned long long) : va_arg(*ap, unsigned);

		put_integer(sb, v, false, base, width, pad);
	}
}

/* Format a plain_format() format; literal runs are copied whole. */
static void
plain_printf(strbuf_t *sb, const char *fmt, va_list *ap)
{
	const char *p = fmt, *pct;

	while ((pct = strchr(p, '%')) != NULL) {
		char pad = ' ', l = '\0';
		size_t width = 0;
		const char *s;

		sb_append(sb, p, (size_t)(pct - p));
		p = pct + 1;
		if (p[0] == '.' && p[1] == '*') {	/* %.*s: at most that many bytes */
			int prec = va_arg(*ap, int);

			if ((s = va_arg(*ap, const char *)) == NULL)
				s = "(null)";
			sb_append(sb, s, prec < 0 ? strlen(s) : strnlen(s, (size_t)prec));
			p += 3;
			continue;
		}
		if (*p == '0')
			pad = '0', p++;
		for (; *p >= '0' && *p <= '9'; p++)
			width = width * 10 + (size_t)(*p - '0');
		if (*p == 'z' || *p == 'l') {
			l = (p[0] == 'l' && p[1] == 'l') ? 'L' : *p;
			p += l == 'L' ? 2 : 1;
		}
		switch (*p++) {
		case '%': sb_putc(sb, '%'); break;
		case 'c': sb_putc(sb, (char)va_arg(*ap, int)); break;
		case 's':
			s = va_arg(*ap, const char *);
			sb_puts(sb, s != NULL ? s : "(null)");
			break;
		default: put_integer_arg(sb, p[-1], l, width, pad, ap); break;
		}
	}
	sb_puts(sb, p);
}

void
sb_vprintf(strbuf_t *sb, const char *fmt, va_list ap)
{
	size_t room = sb->cap > sb->len ? sb->cap - sb->len : 0;
	va_list aq;
	int n;

	if (sb->failed)
		return;
	va_copy(aq, ap);
	if (plain_format(fmt)) {
		plain_printf(sb, fmt, &aq);
		va_end(aq);
		return;
	}
	/* Format straight into the spare room; only a text too long for it is formatted twice. */
	n = vsnprintf(room ? sb->data + sb->len : NULL, room, fmt, aq);
	va_end(aq);
	if (n < 0) {
		sb->failed = true;
		return;
	}
	if ((size_t)n >= room) {
		if (!sb_reserve(sb, (size_t)n)) {
			if (room > 0)
				sb->data[sb->len] = '\0';	/* undo the cut-off attempt */
			return;
		}
		va_copy(aq, ap);
		vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, aq);
		va_end(aq);
	}
	sb->len += (size_t)n;
}

void
sb_printf(strbuf_t *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sb_vprintf(sb, fmt, ap);
	va_end(ap);
}

void
sb_zero(strbuf_t *sb, size_t n)
{
	if (!sb_reserve(sb, n))
		return;
	memset(sb->data + sb->len, 0, n);
	sb->len += n;
	sb->data[sb->len] = '\0';
}

void
sb_align(strbuf_t *sb, size_t align)
{
	size_t rem = sb->len & (align - 1);

	if (rem != 0)
		sb_zero(sb, align - rem);
}

void sb_u8(strbuf_t *sb, uint8_t v) { sb_append(sb, &v, sizeof(v)); }
void sb_u16(strbuf_t *sb, uint16_t v) { sb_append(sb, &v, sizeof(v)); }
void sb_u32(strbuf_t *sb, uint32_t v) { sb_append(sb, &v, sizeof(v)); }
void sb_u64(strbuf_t *sb, uint64_t v) { sb_append(sb, &v, sizeof(v)); }
