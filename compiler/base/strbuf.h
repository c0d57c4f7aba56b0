/*
 * strbuf.h - a growable byte buffer for text and binary output.
 *
 * Writers (header, notes, DOF, ELF images) append to a strbuf and check for
 * failure once, at the end: an allocation failure latches `failed` and makes
 * every later append a no-op, so callers need not test each call.
 */
#ifndef USDTC_STRBUF_H
#define USDTC_STRBUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where a streamed strbuf's bytes go (sb_stream): 0, or -1 to fail it. */
typedef int sb_sink_fn(void *ctx, const void *bytes, size_t n);

typedef struct strbuf {
	char *data;	/* NUL-terminated whenever len < cap */
	size_t len;
	size_t cap;
	bool failed;	/* an allocation (or the sink) failed; contents are incomplete */
	sb_sink_fn *sink;	/* NULL, or where the bytes go (sb_stream) */
	void *sink_ctx;
	size_t sink_at;		/* hand the bytes over before holding more than this */
} strbuf_t;

void sb_init(strbuf_t *sb);
void sb_free(strbuf_t *sb);
/* Hand the bytes to the caller (who frees them); sb is left empty. */
char *sb_steal(strbuf_t *sb, size_t *lenp);

/*
 * Room for n more bytes (and a NUL) in one allocation of exactly that
 * size, for a writer that knows what it will append: no doubling, no
 * copies, no unused half.  Appends past it grow as usual.  False once
 * anything failed.
 */
bool sb_presize(strbuf_t *sb, size_t n);

/*
 * Stream sb: instead of growing past about `at` bytes, it hands what it
 * holds to sink and starts again empty, so a writer that only appends (the
 * header) can produce a file of any size in a buffer of `at` bytes.  A
 * failing sink fails sb.  sb_flush hands over the rest; len then counts
 * only what sb still holds.
 */
void sb_stream(strbuf_t *sb, sb_sink_fn *sink, void *ctx, size_t at);
/* Hand what sb holds to its sink (nothing without one); false once failed. */
bool sb_flush(strbuf_t *sb);

void sb_append(strbuf_t *sb, const void *bytes, size_t n);
void sb_puts(strbuf_t *sb, const char *s);
void sb_putc(strbuf_t *sb, char c);
void sb_printf(strbuf_t *sb, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void sb_vprintf(strbuf_t *sb, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
/* Append n zero bytes. */
void sb_zero(strbuf_t *sb, size_t n);
/* Pad with zero bytes until len is a multiple of align (a power of two). */
void sb_align(strbuf_t *sb, size_t align);
/* Fixed-width native-endian integers. */
void sb_u8(strbuf_t *sb, uint8_t v);
void sb_u16(strbuf_t *sb, uint16_t v);
void sb_u32(strbuf_t *sb, uint32_t v);
void sb_u64(strbuf_t *sb, uint64_t v);

#endif
