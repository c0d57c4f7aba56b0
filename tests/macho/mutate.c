/*
 * mutate.c - a mutation loop over the Mach-O reader and the --dump printer.
 *
 * usage: mutate FILE ROUNDS SEED
 * Each round copies FILE, changes 1 to 8 bytes (random positions, biased to
 * the first 2 KiB where the load commands and tables lie, and random or
 * boundary values), cuts the copy short one round in eight, and hands it
 * to macho_read + macho_dof_relocs and to list_buffer in --dump mode.
 * Built with the sanitizers by tests/macho/run: any memory error aborts.
 * Prints how many copies were accepted and refused.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "list.h"
#include "macho_read.h"

static uint32_t rng;

static uint32_t
next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng;
}

static const uint8_t boundary[] = { 0x00, 0x01, 0x7f, 0x80, 0xff, 0x0f, 0x10, 0x20 };

static void
mutate(uint8_t *b, size_t len)
{
	int n = 1 + (int)(next() % 8);

	for (int i = 0; i < n; i++) {
		size_t at = (next() & 3) ? next() % (len < 2048 ? len : 2048) : next() % len;

		b[at] = (next() & 1) ? (uint8_t)next() : boundary[next() % sizeof(boundary)];
	}
}

/* What a consumer of macho_read does with a file; 0 if all of it was accepted. */
static int
read_all(const uint8_t *b, size_t len)
{
	macho_file_t f;
	err_t e;
	int rc = 0;

	if (macho_read(b, len, &f, &e) != 0)
		return -1;
	for (size_t i = 0; i < f.nsects; i++) {
		macho_dof_rel_t *v;
		macho_reloc_t *r;
		size_t n;

		if (macho_relocs(&f, i, &r, &n, &e) != 0)
			rc = -1;
		else
			free(r);
		if (macho_is_dof_section(&f.sects[i])) {
			if (macho_dof_relocs(&f, i, &v, &n, &e) != 0)
				rc = -1;
			else
				free(v);
		}
	}
	macho_file_free(&f);
	return rc;
}

int
main(int argc, char **argv)
{
	FILE *in, *sink = fopen("/dev/null", "w");
	uint8_t *orig, *copy;
	long len, rounds, accepted = 0, refused = 0;
	list_opts_t o = { LIST_DUMP, 0 };
	err_t e;

	if (argc != 4 || sink == NULL || (in = fopen(argv[1], "rb")) == NULL)
		return 2;
	fseek(in, 0, SEEK_END);
	len = ftell(in);
	rewind(in);
	rounds = atol(argv[2]);
	rng = (uint32_t)strtoul(argv[3], NULL, 0) | 1;
	orig = malloc((size_t)len);
	copy = malloc((size_t)len);
	if (len <= 0 || orig == NULL || copy == NULL || fread(orig, 1, (size_t)len, in) != (size_t)len)
		return 2;
	fclose(in);
	for (long r = 0; r < rounds; r++) {
		size_t n = (size_t)len;
		int rc;

		memcpy(copy, orig, n);
		mutate(copy, n);
		if ((next() & 7) == 0)
			n = next() % n;
		rc = read_all(copy, n);
		rc |= list_buffer(sink, copy, n, "mutant", &o, &e);
		if (rc == 0)
			accepted++;
		else
			refused++;
	}
	printf("%ld accepted, %ld refused\n", accepted, refused);
	free(orig);
	free(copy);
	fclose(sink);
	return 0;
}
