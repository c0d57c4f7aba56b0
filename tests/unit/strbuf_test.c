/*
 * strbuf_test.c - sb_printf formats exactly what snprintf formats.
 *
 * sb_printf (compiler/base/strbuf.c) formats plain conversions itself and hands
 * the rest to vsnprintf; both paths, and the growth of the buffer across
 * its capacity, are compared here with the C library's snprintf.  Two
 * checks (tests/testlib.h), each failure listing the mismatches; a third
 * streams a buffer (sb_stream) and compares what its sink got.
 * tests/unit/run runs it.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include "strbuf.h"
#include "../testlib.h"

static char want[1 << 16];
static strbuf_t all;		/* every output appended, to test growth */
static size_t all_len;
static char all_want[1 << 20];

#define SAME(...) compare(__LINE__, (size_t)snprintf(want, sizeof(want), __VA_ARGS__), \
	(sb_printf(&sb, __VA_ARGS__), sb_printf(&all, __VA_ARGS__), &sb))

static void
compare(int line, size_t n, strbuf_t *sb)
{
	if (sb->failed || sb->len != n || memcmp(sb->data, want, n) != 0 ||
	    sb->data[n] != '\0')
		testlib_failf(__FILE__, line, "want '%.40s' (%zu), got '%.40s' (%zu)", want, n,
		    sb->data ? sb->data : "", sb->len);
	memcpy(all_want + all_len, want, n);
	all_len += n;
	sb->len = 0;
}

/* sb_stream's sink for the check below: appends to `streamed`. */
static char streamed[1 << 16];
static size_t streamed_len, sink_calls;

static int
collect(void *ctx, const void *bytes, size_t n)
{
	(void)ctx;
	if (streamed_len + n > sizeof(streamed))
		return -1;
	memcpy(streamed + streamed_len, bytes, n);
	streamed_len += n;
	sink_calls++;
	return 0;
}

/* A streamed buffer hands over what a whole one would hold, in pieces. */
static void
stream_check(void)
{
	strbuf_t sb, whole;

	sb_init(&sb);
	sb_init(&whole);
	sb_stream(&sb, collect, NULL, 100);
	for (int i = 0; i < 500; i++) {
		sb_printf(&sb, "line %d of the stream\n", i);
		sb_printf(&whole, "line %d of the stream\n", i);
	}
	sb_append(&sb, streamed, 300);	/* larger than the chunk at once */
	sb_append(&whole, streamed, 300);
	check(sb_flush(&sb) && sb.len == 0 && sink_calls > 10 && sb.cap <= 512 &&
	    streamed_len == whole.len && memcmp(streamed, whole.data, whole.len) == 0,
	    "sb_stream hands over every byte in order, in a small buffer",
	    "%zu bytes in %zu calls, want %zu; cap %zu", streamed_len, sink_calls,
	    whole.len, sb.cap);
	sb_free(&sb);
	sb_free(&whole);
}

int
main(void)
{
	strbuf_t sb;
	char lots[3000];

	sb_init(&sb);
	sb_init(&all);
	test_begin("sb_printf formats as snprintf does");
	memset(lots, 'x', sizeof(lots) - 1);
	lots[sizeof(lots) - 1] = '\0';

	SAME("plain text, no conversion");
	SAME("%s", "");
	SAME("%s and %s", "one", "two");
	SAME("%c%c%%%c", 'a', 'b', 'c');
	SAME("%d %d %d %i", 0, -1, INT_MIN, INT_MAX);
	SAME("%u %u", 0u, UINT_MAX);
	SAME("%zu %zu", (size_t)0, SIZE_MAX);
	SAME("%zd %zd", (ssize_t)-5, (ssize_t)SSIZE_MAX);
	SAME("%ld %lu %lx", LONG_MIN, ULONG_MAX, 0xdeadbeefUL);
	SAME("%lld %llu %llx", LLONG_MIN, ULLONG_MAX, 0x123456789abcdefULL);
	SAME("%x %02x %02x %08x", 0u, 5u, 255u, 0xabcu);
	SAME("%o %03o %03o", 8u, 7u, 0377u);
	SAME("[%5d] [%05d] [%5d] [%05d] [%1d]", 42, 42, -42, -42, 12345);
	SAME("[%3u] [%03zu]", 7u, (size_t)7);
	SAME("\\t.byte %s0x%02x", ",", 0xc3u);
	SAME("#define %s_ENABLED() \\\n\t(__extension__ ({ uint32_t __usdt_e = %s; "
	    "%s(&__usdt_e); __usdt_e != 0; }))\n", "P_N", "p_n_semaphore", "__dtraceenabled_p___n");
	SAME("%s%s", lots, lots);
	SAME("%s%.*s|%.*s|%.*s|%.*s", " ", 3, "abcdef", 0, "abc", 9, "ab", -1, "whole");
	SAME("%.*s;\n", 2000, lots);
	/* Not plain: the C library formats these. */
	SAME("%.3s|%-5d|%+d|% d|%#x", "abcdef", 7, 7, 7, 255u);
	SAME("%5s|%-5s|%c", "ab", "cd", 'e');
	SAME("%p", (void *)&sb);
	SAME("%f %g", 1.5, 0.25);
	SAME("%hhu %hu %jd %td", (unsigned char)200, (unsigned short)60000,
	    (intmax_t)-3, (ptrdiff_t)-4);
	/* Growth: many small pieces across capacity boundaries. */
	for (int i = 0; i < 2000; i++)
		SAME("%d:%s;", i, lots + sizeof(lots) - 1 - (size_t)(i * 7) % 300);
	test_end();
	check(!all.failed && all.len == all_len && memcmp(all.data, all_want, all_len) == 0,
	    "sb_printf appends across the buffer's growth",
	    "the appended text differs (%zu bytes, want %zu)", all.len, all_len);
	sb_free(&sb);
	sb_free(&all);
	stream_check();
	return test_summary();
}
