/*
 * tests/fidelity: one probe per kind of argument a program passes.  The
 * suite reads each back with gdb and bpftrace and compares it with what
 * fid.c says it passed.
 */
struct pt { int x; int y; };
struct node { char *name; int v; };
struct big { long a, b, c; };	/* by value: D_PROBE_BYVALUE, the program passes a pointer */
enum color { RED, GREEN = 7, BLUE = -3 };
typedef char *cstr_t;

provider fid {
	probe str_copy(char *s);
	probe str_loop(char *s, int n);
	probe str_init(char *s);
	probe str_wrap(char *s);
	probe pt(struct pt *p);
	probe arr(int *a, int n);
	probe deep(struct node *n);
	probe globals(char *g, char *s);
	probe tls(char *t, int *ti);
	probe lit(char *a, string b);
	probe vol(int v, char *vs);
	probe tdef(cstr_t s);
	probe byval(struct big b, int after);
	probe six(char *a, char *b, char *c, char *d, char *e, char *f);
	probe w8(int8_t a, int8_t b, uint8_t c, uint8_t d);
	probe w16(int16_t a, int16_t b, uint16_t c, uint16_t d);
	probe w32(int32_t a, int32_t b, uint32_t c, uint32_t d);
	probe w64(int64_t a, int64_t b, uint64_t c, uint64_t d);
	probe wlong(long a, unsigned long b, long long c, unsigned long long d, short e, unsigned short f);
	probe misc(bool b, char c, unsigned char uc, signed char sc, enum color e, enum color e2);
	probe flt(float f, double d, int i, float g);
	/* qualified types (SystemTap's sdt_types declares them so), fired with constants */
	probe qc(const int a, const long b, const unsigned c, const short d, const char *e, char *const f);
	probe qv(volatile int a, volatile long b, const volatile int c, const volatile unsigned long long d,
	    volatile char *e, const char *const f);
	/* _Bool, enums and bit-field values; constants and expressions */
	probe qk(_Bool a, const bool b, enum color c, const enum color d, int e, unsigned f);
	probe kon(int a, long b, unsigned long c, char *d, int e, long f);
	/* floats: qualified, constants, expressions; past six arguments (the call) */
	probe fk(const double a, volatile float b, double c, float d);
	probe f8(double a, int b, float c, int d, int e, int f, int g, double h);
	probe a7(int a, long b, char *c, short d, unsigned e, char *f, int64_t g);
	probe a8(int a, int b, int c, int d, int e, int f, char *g, uint8_t h);
	probe a9(int a, int b, int c, int d, int e, int f, int g, int h, char *i);
	probe a10(char *a, int b, int c, int d, int e, int f, int g, int h, int i, int64_t j);
	probe a11(int a, int b, int c, int d, int e, int f, int g, int h, int i, int j, int16_t k);
	probe a12(int a, long b, char *c, int d, int e, char *f, int g, int h, char *i, int j, uint64_t k, char *l);
};
