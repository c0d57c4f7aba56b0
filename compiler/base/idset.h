/*
 * idset.h - a set of ids in an open-addressing hash table: the one hash
 * table of usdtc.
 *
 * Name maps, string tables and probe indexes all ask the same question:
 * "is an item equal to this key already stored, and which one?".  The items
 * live in the user's own storage (an array of symbols, the bytes of a
 * string table that moves as it grows, the model's probes), so the table
 * holds only ids -- an index or an offset the user chose -- and the hash
 * of each id's key.  The user hashes a key (hash.h) and says, through a
 * callback over its own storage, whether the key of a stored id equals a
 * key; keys can therefore be string pointers, offsets into a buffer that
 * moves, byte blocks with NULs inside, or item indices.
 *
 * Linear probing in a power-of-two table kept at most three quarters
 * full (kept half full, the -G object builder's index of its symbols'
 * names was 1 MB at 10,000 probes, a seventh of the object, to save 0.1%
 * of the instructions: issue 40); the stored hash spares the callback on
 * most mismatches and lets the table grow without asking the user to
 * hash again.  An id is removed by
 * backward-shift deletion (idset_remove): the ids after it on its probe
 * run move back into the hole when their home slot allows, so lookups
 * never meet a tombstone and a set with many removals stays as fast as a
 * fresh one.  A user whose ids shift clears the set and adds them again.
 */
#ifndef USDTC_IDSET_H
#define USDTC_IDSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define IDSET_NONE ((size_t)-1)

/*
 * 8 bytes: the ids of one set are below 2^32 - 1 (an id past that fails
 * as memory would), and 32 bits of the hash place and filter as well as
 * 64 in a table of fewer than 2^32 slots.  16-byte slots made the -G
 * object builder's index of 4 million symbol names (a million probes)
 * 128 MB (issue 40).
 */
typedef struct idset_slot {
	uint32_t id1;		/* the id + 1; 0 = empty */
	uint32_t hash;		/* the key's hash, its low 32 bits */
} idset_slot_t;

typedef struct idset {
	idset_slot_t *slots;
	size_t cap;		/* a power of two, or 0 */
	size_t count;
} idset_t;

/* Does the key of the stored id equal key?  ctx is the user's storage. */
typedef bool idset_same_fn(const void *ctx, size_t id, const void *key);

void idset_init(idset_t *s);
void idset_free(idset_t *s);

/* Room for n ids in all without growing; false when out of memory. */
bool idset_reserve(idset_t *s, size_t n);

/* The id whose key equals key (its hash h), or IDSET_NONE. */
size_t idset_find(const idset_t *s, uint64_t h, idset_same_fn *same,
    const void *ctx, const void *key);

/*
 * Store id, whose key hashes to h and equals no stored id's key (the user
 * looked it up first).  False when out of memory or id >= 2^32 - 1; the
 * set is unchanged.
 */
bool idset_add(idset_t *s, uint64_t h, size_t id);

/*
 * Store id for key (hash h), in place of the id of an equal key if there
 * is one (the last one stored wins).  False when out of memory.
 */
bool idset_set(idset_t *s, uint64_t h, size_t id, idset_same_fn *same,
    const void *ctx, const void *key);

/*
 * Remove the id whose key equals key (its hash h).  Returns that id, or
 * IDSET_NONE if there was none.  Never allocates; the table keeps its size.
 */
size_t idset_remove(idset_t *s, uint64_t h, idset_same_fn *same,
    const void *ctx, const void *key);

#endif
