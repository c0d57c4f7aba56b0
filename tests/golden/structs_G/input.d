/* Declarations around providers: their sizes decide how by-value args travel. */
typedef struct { int dummy; } small_t;
typedef struct foo foo_t;
typedef unsigned short u16_t;
typedef const uint8_t *bytes_t;

struct big {
	int a;
	union {
		char c;
		long l;
	};
	struct {
		short s[3];
	} inner;
	char name[16];
	unsigned int bits1 : 3, bits2 : 5;
	void (*cb)(int, char *);
};

enum color { RED, GREEN = 2, BLUE = (1 << 3) };

provider structs {
	probe small(small_t s, u16_t u);
	probe pointers(foo_t *f, struct big *b, bytes_t p);
	probe enums(enum color c, enum after a);
};

enum after { X = -1, Y };
