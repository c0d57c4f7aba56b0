/* aarch64-linux: AArch64 argument registers, stack slots and a struct in a register in the notes. */
typedef struct { int a; } s4_t;
typedef struct { long a; long b; } s16_t;
typedef struct { long a; long b; long c; } s24_t;

provider arm {
	probe ints(char c, signed char sc, unsigned char uc, short s, int i, long l, long long ll, unsigned long ul);
	probe stack(int a0, int a1, int a2, int a3, int a4, int a5, int a6, int a7, int s0, long s1, char *s2);
	probe floats(float f, double d, int i);
	probe structs(s4_t a, s16_t *b, s24_t *c, int i);
	probe none();
};
