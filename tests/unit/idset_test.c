/*
 * idset_test.c - the one hash table (compiler/idset.c) finds what a scan
 * of the user's storage finds.
 *
 * The keys live in a buffer that moves as it grows (realloc), as the
 * string tables' do, and are byte blocks that may hold NULs; ids are
 * offsets into that buffer.  Many keys (so the table grows many times),
 * a hash that sends every key to one slot (so every lookup walks the
 * probe sequence and equality alone decides), "first wins" with
 * idset_add after a failed find and "last wins" with idset_set are each
 * compared with a linear scan.  Prints one line per mismatch and exits 1
 * if there was any.  tests/scale/run runs it.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "idset.h"

/* The user's storage: blocks of bytes, each preceded by its length. */
typedef struct store {
	unsigned char *buf;
	size_t len, cap;
} store_t;

typedef struct key {
	const unsigned char *p;
	size_t n;
} key_t_;

static int failures;
static unsigned modulus;	/* keys i and i + modulus are equal */

static size_t
store_put(store_t *s, const unsigned char *p, size_t n)
{
	size_t off = s->len;

	while (s->len + n + 1 > s->cap) {
		s->cap = s->cap ? 2 * s->cap : 16;
		if ((s->buf = realloc(s->buf, s->cap)) == NULL) {
			puts("out of memory");
			exit(1);
		}
	}
	s->buf[s->len] = (unsigned char)n;
	memcpy(s->buf + s->len + 1, p, n);
	s->len += n + 1;
	return off;
}

static bool
same(const void *ctx, size_t id, const void *key)
{
	const store_t *s = ctx;
	const key_t_ *k = key;

	return s->buf[id] == k->n && memcmp(s->buf + id + 1, k->p, k->n) == 0;
}

/* The offset of the first (or last) block equal to k, by a scan. */
static size_t
scan(const store_t *s, const key_t_ *k, bool last)
{
	size_t found = IDSET_NONE;

	for (size_t off = 0; off < s->len; off += s->buf[off] + 1u)
		if (same(s, off, k)) {
			found = off;
			if (!last)
				break;
		}
	return found;
}

/* Key i: a few bytes with a NUL inside, many keys alike. */
static key_t_
make_key(unsigned i, unsigned char *b)
{
	int n = snprintf((char *)b, 16, "k%u", i % modulus / 2);

	b[n] = '\0';
	b[n + 1] = (unsigned char)(i % modulus % 2);
	return (key_t_){ b, (size_t)n + 2 };
}

static uint64_t
hash_of(const key_t_ *k, bool collide)
{
	return collide ? 0 : hash_bytes(HASH_FNV_OFFSET, k->p, k->n);
}

static void
run(bool collide, bool last_wins, unsigned nkeys, unsigned m)
{
	store_t s = { NULL, 0, 0 };
	idset_t set;

	modulus = m;
	idset_init(&set);
	for (unsigned i = 0; i < nkeys; i++) {
		unsigned char b[16];
		key_t_ k = make_key(i, b);
		uint64_t h = hash_of(&k, collide);
		size_t off = store_put(&s, k.p, k.n);
		bool ok;

		k.p = s.buf + off + 1;	/* the key as stored; the buffer moved */
		if (last_wins)
			ok = idset_set(&set, h, off, same, &s, &k);
		else
			ok = idset_find(&set, h, same, &s, &k) != IDSET_NONE ||
			    idset_add(&set, h, off);
		if (!ok) {
			puts("out of memory");
			exit(1);
		}
	}
	for (unsigned i = 0; i < nkeys + 100; i++) {
		unsigned char b[16];
		key_t_ k = i < nkeys ? make_key(i, b) :
		    (key_t_){ (const unsigned char *)"absent", 6 };
		size_t got = idset_find(&set, hash_of(&k, collide), same, &s, &k);
		size_t want = scan(&s, &k, last_wins);

		if (got != want) {
			printf("collide=%d last_wins=%d key %u: found %zu, a scan finds %zu\n",
			    collide, last_wins, i, got, want);
			failures++;
		}
	}
	idset_free(&set);
	free(s.buf);
}

int
main(void)
{
	run(false, false, 40000, 25000);
	run(false, true, 40000, 25000);
	run(true, false, 1500, 1000);
	run(true, true, 1500, 1000);
	return failures != 0;
}
