/*
 * hash.h - FNV-1a, the one string and byte hash of usdtc.
 *
 * Hash tables of names (symbols, strings, probes) and identifiers that
 * only need to tell contents apart (the build-id of a libusdt image) use
 * it: it is short, needs no table, and spreads names that differ only in
 * their last characters, as generated probe and symbol names do.  It is
 * not a cryptographic hash and nothing here relies on it being one.
 *
 * The hash tables themselves are idset.c's.  The 32-bit form serves where
 * the value is written out and must stay as it is (the object key in -G's
 * alias names, rewrite_plan.c).
 */
#ifndef USDTC_HASH_H
#define USDTC_HASH_H

#include <stddef.h>
#include <stdint.h>

#define HASH_FNV_OFFSET	0xcbf29ce484222325ull
#define HASH_FNV_PRIME	0x100000001b3ull

/* Continue hash h over n bytes. */
static inline uint64_t
hash_bytes(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= HASH_FNV_PRIME;
	}
	return h;
}

/* Continue hash h over a NUL-terminated string, its NUL included. */
static inline uint64_t
hash_str(uint64_t h, const char *s)
{
	do {
		h ^= (unsigned char)*s;
		h *= HASH_FNV_PRIME;
	} while (*s++ != '\0');
	return h;
}

#define HASH32_FNV_OFFSET	2166136261u
#define HASH32_FNV_PRIME	16777619u

/* Continue the 32-bit hash h over n bytes. */
static inline uint32_t
hash32_bytes(uint32_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * HASH32_FNV_PRIME;
	return h;
}

#endif
