/*
 * idset_test.c - the one hash table (compiler/base/idset.c) finds what a scan
 * of the user's storage finds.
 *
 * The keys live in a buffer that moves as it grows (realloc), as the
 * string tables' do, and are byte blocks that may hold NULs; ids are
 * offsets into that buffer.  Many keys (so the table grows many times),
 * a hash that sends every key to one slot (so every lookup walks the
 * probe sequence and equality alone decides), "first wins" with
 * idset_add after a failed find and "last wins" with idset_set are each
 * compared with a linear scan.  Removal (idset_remove, backward-shift
 * deletion) is checked the same way: keys are removed in a scrambled
 * order, some added back, then all removed, and after each round every
 * key is looked up and compared with a scan of the keys still stored;
 * with real hashes, with every key in one slot, and with keys whose home
 * slots are the table's last ones, so that their runs wrap around to
 * slot 0.  One check per table shape (tests/testlib.h), each failure
 * listing the mismatches.  tests/unit/run runs it.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "idset.h"
#include "../testlib.h"

/* The user's storage: blocks of bytes, each preceded by its length. */
typedef struct store {
	unsigned char *buf;
	size_t len, cap;
} store_t;

typedef struct key {
	const unsigned char *p;
	size_t n;
} key_t_;

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
			test_failf("collide=%d last_wins=%d key %u: found %zu, a scan finds %zu",
			    collide, last_wins, i, got, want);
		}
	}
	idset_free(&set);
	free(s.buf);
}

/* Hash modes of the removal test. */
enum { H_REAL, H_ONE_SLOT, H_WRAP };

static uint64_t
remove_hash(const key_t_ *k, int mode)
{
	uint64_t h = hash_bytes(HASH_FNV_OFFSET, k->p, k->n);

	return mode == H_REAL ? h : mode == H_ONE_SLOT ? 0 : UINT64_MAX - h % 4;
}

/* The first live block equal to k, by a scan (dead[off] marks removed ones). */
static size_t
scan_live(const store_t *s, const unsigned char *dead, const key_t_ *k)
{
	for (size_t off = 0; off < s->len; off += s->buf[off] + 1u)
		if (!dead[off] && same(s, off, k))
			return off;
	return IDSET_NONE;
}

/* Every key (and one absent) found as a scan of the live blocks finds it. */
static void
check_live(const idset_t *set, const store_t *s, const unsigned char *dead,
    unsigned nkeys, int mode, const char *round)
{
	for (unsigned i = 0; i <= nkeys; i++) {
		unsigned char b[16];
		key_t_ k = i < nkeys ? make_key(i, b) :
		    (key_t_){ (const unsigned char *)"absent", 6 };
		size_t got = idset_find(set, remove_hash(&k, mode), same, s, &k);
		size_t want = scan_live(s, dead, &k);

		if (got != want) {
			test_failf("remove mode=%d %s: key %u: found %zu, a scan finds %zu",
			    mode, round, i, got, want);
		}
	}
}

/* Remove key i's block; it must be the stored one, once. */
static void
remove_key(idset_t *set, const store_t *s, unsigned char *dead, const size_t *offs,
    unsigned i, int mode)
{
	unsigned char b[16];
	key_t_ k = make_key(i, b);
	uint64_t h = remove_hash(&k, mode);
	size_t got = idset_remove(set, h, same, s, &k);

	if (got != offs[i] || idset_remove(set, h, same, s, &k) != IDSET_NONE) {
		test_failf("remove mode=%d key %u: removed %zu, want %zu once", mode, i,
		    got, offs[i]);
	}
	dead[offs[i]] = 1;
}

static void
run_remove(int mode, unsigned nkeys)
{
	store_t s = { NULL, 0, 0 };
	size_t *offs = calloc(nkeys, sizeof(size_t));
	unsigned char *dead;
	unsigned lcg = 12345;
	idset_t set;

	modulus = nkeys;	/* keys 0..nkeys-1 are all different */
	idset_init(&set);
	for (unsigned i = 0; offs != NULL && i < nkeys; i++) {
		unsigned char b[16];
		key_t_ k = make_key(i, b);

		offs[i] = store_put(&s, k.p, k.n);
		if (!idset_add(&set, remove_hash(&k, mode), offs[i])) {
			puts("out of memory");
			exit(1);
		}
	}
	if (offs == NULL || (dead = calloc(s.len + 1, 1)) == NULL) {
		puts("out of memory");
		exit(1);
	}
	/* A third of the keys, in a scrambled order. */
	for (unsigned n = 0; n < nkeys; n++) {
		unsigned i = (unsigned)(((unsigned long)n * 7919u) % nkeys);

		lcg = lcg * 1103515245u + 12345u;
		if ((lcg >> 16) % 3 == 0)
			remove_key(&set, &s, dead, offs, i, mode);
	}
	check_live(&set, &s, dead, nkeys, mode, "after removing a third");
	/* Half of those back, with their old ids. */
	for (unsigned i = 0; i < nkeys; i += 2)
		if (dead[offs[i]]) {
			unsigned char b[16];
			key_t_ k = make_key(i, b);

			if (!idset_add(&set, remove_hash(&k, mode), offs[i])) {
				puts("out of memory");
				exit(1);
			}
			dead[offs[i]] = 0;
		}
	check_live(&set, &s, dead, nkeys, mode, "after adding some back");
	for (unsigned n = 0; n < nkeys; n++) {
		unsigned i = nkeys - 1 - n;

		if (!dead[offs[i]])
			remove_key(&set, &s, dead, offs, i, mode);
	}
	check_live(&set, &s, dead, nkeys, mode, "after removing all");
	if (set.count != 0) {
		test_failf("remove mode=%d: %zu ids left after removing all", mode, set.count);
	}
	idset_free(&set);
	free(dead);
	free(offs);
	free(s.buf);
}

int
main(void)
{
	test_begin("idset_add / idset_find find what a scan finds (first wins)");
	run(false, false, 12000, 7500);
	test_end();
	test_begin("idset_set / idset_find find what a scan finds (last wins)");
	run(false, true, 12000, 7500);
	test_end();
	test_begin("every key in one slot: equality alone decides");
	run(true, false, 1500, 1000);
	run(true, true, 1500, 1000);
	test_end();
	test_begin("idset_remove keeps every other key findable (real hashes)");
	run_remove(H_REAL, 3000);
	test_end();
	test_begin("idset_remove with every key in one slot");
	run_remove(H_ONE_SLOT, 1500);
	test_end();
	test_begin("idset_remove with runs that wrap around to slot 0");
	run_remove(H_WRAP, 1500);
	test_end();
	return test_summary();
}
