/*
 * idset.c - a set of ids in an open-addressing hash table; see idset.h for
 * why the table holds ids and not keys.
 */
#include <stdlib.h>

#include "idset.h"

void
idset_init(idset_t *s)
{
	s->slots = NULL;
	s->cap = s->count = 0;
}

void
idset_free(idset_t *s)
{
	free(s->slots);
	idset_init(s);
}

/* The first empty slot on h's probe sequence (the table has one). */
static size_t
empty_slot(const idset_slot_t *slots, size_t cap, uint32_t h)
{
	size_t i = (size_t)h & (cap - 1);

	while (slots[i].id1 != 0)
		i = (i + 1) & (cap - 1);
	return i;
}

/* Move every id into a table of cap slots. */
static bool
rehash(idset_t *s, size_t cap)
{
	idset_slot_t *slots = calloc(cap, sizeof(*slots));

	if (slots == NULL)
		return false;
	for (size_t i = 0; i < s->cap; i++)
		if (s->slots[i].id1 != 0)
			slots[empty_slot(slots, cap, s->slots[i].hash)] = s->slots[i];
	free(s->slots);
	s->slots = slots;
	s->cap = cap;
	return true;
}

bool
idset_reserve(idset_t *s, size_t n)
{
	size_t cap = s->cap ? s->cap : 16;

	while (cap < n + n / 3)
		cap *= 2;
	return cap == s->cap || rehash(s, cap);
}

/* The slot holding key, or the empty slot where it would go. */
static size_t
find_slot(const idset_t *s, uint64_t h, idset_same_fn *same, const void *ctx,
    const void *key)
{
	size_t i = (size_t)(uint32_t)h & (s->cap - 1);

	for (; s->slots[i].id1 != 0; i = (i + 1) & (s->cap - 1))
		if (s->slots[i].hash == (uint32_t)h && same(ctx, s->slots[i].id1 - 1, key))
			break;
	return i;
}

size_t
idset_find(const idset_t *s, uint64_t h, idset_same_fn *same, const void *ctx,
    const void *key)
{
	size_t i;

	if (s->cap == 0)
		return IDSET_NONE;
	i = find_slot(s, h, same, ctx, key);
	return s->slots[i].id1 != 0 ? s->slots[i].id1 - 1 : IDSET_NONE;
}

/* Whether id fits a slot (id1 = id + 1 in 32 bits, 0 meaning empty). */
static bool
id_fits(size_t id)
{
	return id < UINT32_MAX;
}

bool
idset_add(idset_t *s, uint64_t h, size_t id)
{
	if (!id_fits(id) || !idset_reserve(s, s->count + 1))
		return false;
	s->slots[empty_slot(s->slots, s->cap, (uint32_t)h)] =
	    (idset_slot_t){ (uint32_t)id + 1, (uint32_t)h };
	s->count++;
	return true;
}

bool
idset_set(idset_t *s, uint64_t h, size_t id, idset_same_fn *same,
    const void *ctx, const void *key)
{
	size_t i;

	if (!id_fits(id) || !idset_reserve(s, s->count + 1))
		return false;
	i = find_slot(s, h, same, ctx, key);
	if (s->slots[i].id1 == 0)
		s->count++;
	s->slots[i] = (idset_slot_t){ (uint32_t)id + 1, (uint32_t)h };
	return true;
}

/*
 * Backward-shift deletion: empty slot i, then walk the run after it.  An
 * id at j whose home slot lies cyclically in (i, j] must stay (a lookup
 * starting at its home reaches it without crossing i); any other id moves
 * back into i, and j becomes the hole.  The walk ends at an empty slot.
 */
size_t
idset_remove(idset_t *s, uint64_t h, idset_same_fn *same, const void *ctx,
    const void *key)
{
	size_t mask, i, j, id;

	if (s->cap == 0)
		return IDSET_NONE;
	mask = s->cap - 1;
	i = find_slot(s, h, same, ctx, key);
	if (s->slots[i].id1 == 0)
		return IDSET_NONE;
	id = s->slots[i].id1 - 1;
	for (j = (i + 1) & mask; s->slots[j].id1 != 0; j = (j + 1) & mask) {
		size_t home = (size_t)s->slots[j].hash & mask;

		/* Distance home -> j at least i -> j: i is on its probe run. */
		if (((j - home) & mask) >= ((j - i) & mask)) {
			s->slots[i] = s->slots[j];
			i = j;
		}
	}
	s->slots[i].id1 = 0;
	s->count--;
	return id;
}
