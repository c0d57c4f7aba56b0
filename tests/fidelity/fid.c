/*
 * fid.c - the program of tests/fidelity: every kind of argument a probe
 * can be given, each written just before its probe and, where the
 * compiler could otherwise drop the stores, never read after it.
 *
 *   fid           fire every probe once
 *   fid MARKER    fire them every 10 ms until the file MARKER exists
 *
 * In the first round it prints, one line per probe in firing order, what
 * it passes (to the file $FID_EXPECT, else to standard output), as the suite's gdb reader (gdb_args.py) and bpftrace
 * script print what they read:
 *
 *	NAME VALUE...	integers in decimal, floats "%.9g", a string as its
 *			text, N bytes at a pointer as hex, a struct node as
 *			NAME/V
 *
 * Each test function prints its line first, from its parameters and its
 * own copies, never from the probe's buffers, and fires the probe last (or
 * overwrites the buffers after it), so that nothing but the probe reads
 * what was written for it: a compiler that takes the probe for reading
 * nothing may drop those stores, and the tracer then reads stale bytes.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The types fid.d names, as the program declares them (the header does not). */
struct pt { int x; int y; };
struct node { char *name; int v; };
struct big { long a, b, c; };
enum color { RED, GREEN = 7, BLUE = -3 };
typedef char *cstr_t;

#include "fid.h"

#define NOINLINE __attribute__((noinline))

char g_buf[24];
static char s_buf[24];
static __thread char t_buf[24];
static __thread int t_int;
static volatile char v_buf[16];
static int quiet;		/* after the first round: fire, print nothing */
static FILE *expect;		/* where the first round's lines go */

static void NOINLINE
out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void NOINLINE
out(const char *fmt, ...)
{
	va_list ap;

	if (quiet)
		return;
	va_start(ap, fmt);
	vfprintf(expect, fmt, ap);
	va_end(ap);
}

static void NOINLINE
out_hex(const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		out("%02x", b[i]);
}

/* A float's and a double's bits, as a tracer reads them from the note. */
static uint32_t
bits_f(float f)
{
	uint32_t b;

	memcpy(&b, &f, sizeof(b));
	return b;
}

static uint64_t
bits_d(double d)
{
	uint64_t b;

	memcpy(&b, &d, sizeof(b));
	return b;
}

/* The text str_loop builds: n letters from k. */
static void NOINLINE
loop_text(char *d, int n, int k)
{
	for (int i = 0; i < n; i++)
		d[i] = (char)('a' + (i * 7 + k) % 26);
	d[n] = '\0';
}

static void NOINLINE
t_str_copy(void)
{
	char s[24];

	out("str_copy copied-literal\n");
	strcpy(s, "copied-literal");
	FID_STR_COPY(s);
}

static void NOINLINE
t_str_loop(int n, int k)
{
	char s[32], e[32];

	loop_text(e, n, k);
	out("str_loop %s %d\n", e, n);
	for (int i = 0; i < n; i++)
		s[i] = (char)('a' + (i * 7 + k) % 26);
	s[n] = '\0';
	FID_STR_LOOP(s, n);
}

static void NOINLINE
t_str_init(void)
{
	out("str_init initialised-on-stack\n");
	{
		char s[] = "initialised-on-stack";

		FID_STR_INIT(s);
	}
}

/* A probe in a function of its own, which gcc may summarise (modref). */
static void NOINLINE
fire_wrap(const char *s)
{
	FID_STR_WRAP(s);
}

static void NOINLINE
t_str_wrap(int k)
{
	char s[16];

	loop_text(s, 9, k);
	out("str_wrap %s\n", s);
	memset(s, 0, sizeof(s));
	loop_text(s, 9, k);
	fire_wrap(s);
	memset(s, 'x', 9);
	out("str_wrap \n");
	fire_wrap("");		/* s is dead here: only fire_wrap read it */
}

static void NOINLINE
t_pt(int a)
{
	struct pt e;

	memset(&e, 0, sizeof(e));
	e.x = a;
	e.y = a * 2 + 1;
	out("pt ");
	out_hex(&e, sizeof(e));
	out("\n");
	{
		struct pt p = { a, a * 2 + 1 };

		FID_PT(&p);
	}
}

static void NOINLINE
t_arr(int a)
{
	int e[4] = { a, -a, a * 3, 0x7fffffff }, v[4];

	out("arr ");
	out_hex(e, sizeof(e));
	out(" 4\n");
	v[0] = a;
	v[1] = -a;
	v[2] = a * 3;
	v[3] = 0x7fffffff;
	FID_ARR(v, 4);
}

static void NOINLINE
t_deep(int a)
{
	char name[16];
	struct node n;

	out("deep deep-name/%d\n", a);
	strcpy(name, "deep-name");
	n.name = name;
	n.v = a;
	FID_DEEP(&n);
}

/* Globals written before the probe and overwritten after it. */
static void NOINLINE
t_globals(void)
{
	out("globals global-before static-before\n");
	strcpy(g_buf, "global-before");
	strcpy(s_buf, "static-before");
	FID_GLOBALS(g_buf, s_buf);
	strcpy(g_buf, "global-after!");
	strcpy(s_buf, "static-after!");
}

static void NOINLINE
t_tls(int a)
{
	out("tls thread-local ");
	out_hex(&a, sizeof(a));
	out("\n");
	strcpy(t_buf, "thread-local");
	t_int = a;
	FID_TLS(t_buf, &t_int);
	strcpy(t_buf, "overwritten!");
	t_int = -1;
}

static void NOINLINE
t_lit(void)
{
	out("lit a-literal another-literal\n");
	FID_LIT("a-literal", "another-literal");
}

static void NOINLINE
t_vol(int a)
{
	volatile int v = a;

	out("vol %d pqrstuvw\n", a);
	for (int i = 0; i < 8; i++)
		v_buf[i] = (char)('p' + i);
	v_buf[8] = '\0';
	FID_VOL(v, v_buf);
}

static void NOINLINE
t_tdef(void)
{
	char s[16];

	out("tdef typedef-ptr\n");
	strcpy(s, "typedef-ptr");
	FID_TDEF(s);
}

/* fid.d declares the struct by value; the program passes a pointer. */
static void NOINLINE
t_byval(int k)
{
	struct big e, b;

	memset(&e, 0, sizeof(e));
	e.a = k;
	e.b = -k;
	e.c = (long)0x0123456789abcdefLL;	/* truncated where long is 32 bits */
	out("byval ");
	out_hex(&e, sizeof(e));
	out(" 5\n");
	b.a = k;
	b.b = -k;
	b.c = (long)0x0123456789abcdefLL;
	FID_BYVAL(&b, 5);
}

static void NOINLINE
t_six(void)
{
	char a[8], b[8], c[8], d[8], e[8], f[8];

	out("six one two three four five six\n");
	strcpy(a, "one");
	strcpy(b, "two");
	strcpy(c, "three");
	strcpy(d, "four");
	strcpy(e, "five");
	strcpy(f, "six");
	FID_SIX(a, b, c, d, e, f);
}

static void NOINLINE
t_widths(void)
{
	out("w8 %d %d %u %u\n", INT8_MIN, INT8_MAX, 0u, (unsigned)UINT8_MAX);
	FID_W8(INT8_MIN, INT8_MAX, 0, UINT8_MAX);
	out("w16 %d %d %u %u\n", INT16_MIN, INT16_MAX, 0u, (unsigned)UINT16_MAX);
	FID_W16(INT16_MIN, INT16_MAX, 0, UINT16_MAX);
	out("w32 %d %d %u %u\n", INT32_MIN, INT32_MAX, 0u, UINT32_MAX);
	FID_W32(INT32_MIN, INT32_MAX, 0, UINT32_MAX);
	out("w64 %lld %lld %llu %llu\n", (long long)INT64_MIN, (long long)INT64_MAX, 0ull,
	    (unsigned long long)UINT64_MAX);
	FID_W64(INT64_MIN, INT64_MAX, 0, UINT64_MAX);
	out("wlong %ld %lu %lld %llu %d %d\n", -1L, (unsigned long)0xfedcba9876543210ull, -1234567890123LL,
	    1ull << 63, -32768, 65535);
	FID_WLONG(-1L, (unsigned long)0xfedcba9876543210ull, -1234567890123LL, 1ull << 63, -32768, 65535);
}

static void NOINLINE
t_misc(int k)
{
	bool b = k > 0;
	char c = (char)-5;
	unsigned char uc = 250;
	signed char sc = -128;
	enum color e = BLUE, e2 = GREEN;

	out("misc %d %d %u %d %d %d\n", b, c, uc, sc, (int)e, (int)e2);
	FID_MISC(b, c, uc, sc, e, e2);
}

static void NOINLINE
t_flt(int k)
{
	float f = 1.5f + (float)k;
	double d = -2.25e100 * k;
	float g = -0.0009765625f;

	out("flt %.9g %.9g %d %.9g\n", f, d, k, g);
	out("fltx %x %llx %d %x\n", bits_f(f), (unsigned long long)bits_d(d), k, bits_f(g));
	FID_FLT(f, d, k, g);
}

/*
 * Qualified argument types, fired with constants: a `register const int`
 * bound to %edi is one gcc may fold and never load (the note then named a
 * register that did not hold the value); a volatile one broke -Werror.
 */
static void NOINLINE
t_qual(int k)
{
	char f[8];
	static volatile char e[8];
	volatile int a = -1000 * k;
	volatile long b = LONG_MIN;	/* INT64_MIN where long is 64 bits */
	const volatile int c = 77;
	const volatile unsigned long long d = UINT64_MAX;

	out("qc -2147483647 %ld 4000000000 -32768 qc-e qc-f\n", (long)-1234567890123LL);
	strcpy(f, "qc-f");
	FID_QC(-2147483647, (long)-1234567890123LL, 4000000000u, -32768, "qc-e", f);
	out("qv %d %lld 77 %llu qv-e qv-f\n", -1000 * k, (long long)LONG_MIN,
	    (unsigned long long)UINT64_MAX);
	for (int i = 0; i < 4; i++)
		e[i] = "qv-e"[i];
	e[4] = '\0';
	FID_QV(a, b, c, d, e, "qv-f");
}

/* _Bool, enums, bit-field values; constants and expressions as arguments. */
static void NOINLINE
t_kinds(int k)
{
	struct { unsigned on : 1; int neg : 5; unsigned wide : 20; } bf;

	bf.on = k & 1;
	bf.neg = -8 - k;
	bf.wide = 0xabcd0u + (unsigned)k;
	out("qk %d 0 7 -3 %d %u\n", k > 0, -8 - k, 0xabcd0u + (unsigned)k);
	FID_QK(k > 0, (const bool)(k == 7), GREEN, (const enum color)BLUE, bf.neg, bf.wide);
	/* (the constants truncated where long is 32 bits) */
	out("kon -2147483647 -5 %lu kon-lit %d %ld\n", (unsigned long)0xfedcba9876543210ull,
	    k * 3 + 1, (long)((long long)k << 40));
	FID_KON(-2147483647, -5L, (unsigned long)0xfedcba9876543210ull, "kon-lit", k * 3 + 1,
	    (long)((long long)k << 40));
}

/* Floats qualified, constant, computed; and past six arguments. */
static void NOINLINE
t_floats(int k)
{
	double c = k * 0.5;
	volatile float d = (float)k / 3.0f;	/* stored: no x87 excess precision (i386) */

	out("fk 3.5 -0.125 %.9g %.9g\n", c, (double)d);
	out("fkx %llx %x %llx %x\n", (unsigned long long)bits_d(3.5), bits_f(-0.125f),
	    (unsigned long long)bits_d(c), bits_f(d));
	FID_FK(3.5, -0.125f, k * 0.5, (float)k / 3.0f);
	out("f8 %.9g %d 2.5 4 5 6 7 1e+300\n", -1.5 * k, k);
	FID_F8(-1.5 * k, k, 2.5f, 4, 5, 6, 7, 1e300);
}

static void NOINLINE
t_many(int k)
{
	char c[8], f[8], i[8], l[8];

	out("a7 -1 -2 c7 -4 5 f7 %lld\n", (long long)INT64_MIN);
	strcpy(c, "c7");
	strcpy(f, "f7");
	FID_A7(-1, -2L, c, -4, 5u, f, INT64_MIN);
	out("a8 %d 2 3 4 5 6 g8 255\n", k);
	strcpy(c, "g8");
	FID_A8(k, 2, 3, 4, 5, 6, c, 255);
	out("a9 1 2 3 4 5 6 7 -8 i9\n");
	strcpy(i, "i9");
	FID_A9(1, 2, 3, 4, 5, 6, 7, -8, i);
	out("a10 a10 2 3 4 5 6 7 8 -9 -10\n");
	strcpy(c, "a10");
	FID_A10(c, 2, 3, 4, 5, 6, 7, 8, -9, -10);
	out("a11 1 2 3 4 5 6 7 8 9 10 -11\n");
	FID_A11(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, -11);
	out("a12 1 -2 c12 4 5 f12 7 8 i12 10 %llu l12\n", (unsigned long long)UINT64_MAX);
	strcpy(c, "c12");
	strcpy(f, "f12");
	strcpy(i, "i12");
	strcpy(l, "l12");
	FID_A12(1, -2L, c, 4, 5, f, 7, 8, i, 10, UINT64_MAX, l);
}

static void
round_(int k)
{
	t_str_copy();
	t_str_loop(11, k);
	t_str_init();
	t_str_wrap(k);
	t_pt(k * 1000 + 7);
	t_arr(k + 40);
	t_deep(k + 5);
	t_globals();
	t_tls(k + 99);
	t_lit();
	t_vol(k - 77);
	t_tdef();
	t_byval(k);
	t_six();
	t_widths();
	t_misc(k);
	t_flt(k);
	t_qual(k);
	t_kinds(k);
	t_floats(k);
	t_many(k);
	fflush(expect);
}

int
main(int argc, char **argv)
{
	int k = argc;		/* 1, or 2 with a marker: not a constant */
	const char *path = getenv("FID_EXPECT");

	expect = path != NULL ? fopen(path, "w") : stdout;
	if (expect == NULL) {
		perror(path);
		return 1;
	}
	if (argc < 2) {
		round_(k);
		return 0;
	}
	for (;;) {
		round_(k);
		quiet = 1;
		if (access(argv[1], F_OK) == 0)
			return 0;
		usleep(10000);
	}
}
