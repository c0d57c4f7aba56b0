/*
 * strbuf.c - growable buffer; see strbuf.h.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"

void
sb_init(strbuf_t *sb)
{
	sb->data = NULL;
	sb->len = 0;
	sb->cap = 0;
	sb->failed = false;
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

/* Make room for n more bytes plus a NUL; false once anything failed. */
static bool
sb_reserve(strbuf_t *sb, size_t n)
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
	cap = sb->cap ? sb->cap : 64;
	while (cap < want)
		cap *= 2;
	p = realloc(sb->data, cap);
	if (p == NULL) {
		sb->failed = true;
		return false;
	}
	sb->data = p;
	sb->cap = cap;
	return true;
}

void
sb_append(strbuf_t *sb, const void *bytes, size_t n)
{
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
	sb_append(sb, &c, 1);
}

void
sb_printf(strbuf_t *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		sb->failed = true;
		return;
	}
	if (!sb_reserve(sb, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sb->len += (size_t)n;
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
