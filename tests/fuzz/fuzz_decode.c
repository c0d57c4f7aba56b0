/*
 * fuzz_decode.c - libFuzzer entry point for the strict readers (decode.h)
 * and the printer behind --dump (list.c).
 *
 * Built by `make fuzz` (libFuzzer, clang, ASan and UBSan; the campaign
 * is tests/fuzz/campaign) and by `make test` as a plain replay of the seed
 * corpus and tests/fuzz/regress/decode/ (tests/fuzz/replay.c).  The seeds
 * (tests/fuzz/seeds) are raw DOF images, .note.stapsdt sections and whole
 * -G objects, each behind the byte that picks its reader.
 *
 * The first input byte picks the reader, so one corpus covers all three:
 * even: dof_decode; odd: dof_stapsdt_decode (ELF64 notes) and, every fourth,
 * list_buffer in --dump mode (ELF or raw DOF, with a load base).
 */
#include <stdint.h>
#include <stdio.h>

#include "decode.h"
#include "list.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *sink;
	dof_decoded_t d;
	stapsdt_notes_t n;
	err_t e;

	if (size == 0)
		return 0;
	if (sink == NULL && (sink = fopen("/dev/null", "w")) == NULL)
		return 0;
	switch (data[0] & 3) {
	case 0:
	case 2:
		if (dof_decode(data + 1, size - 1, &d, &e) == 0)
			dof_decoded_free(&d);
		if (dof_decode_ex(data + 1, size - 1, DOF_DECODE_LOADSZ, &d, &e) == 0)
			dof_decoded_free(&d);
		break;
	case 1:
		if (dof_stapsdt_decode(data + 1, size - 1, 8, &n, &e) == 0)
			dof_stapsdt_notes_free(&n);
		break;
	case 3: {
		list_opts_t o = { LIST_DUMP, 0x555555554000ull };

		(void)list_buffer(sink, data + 1, size - 1, "fuzz", &o, &e);
		break;
	}
	}
	return 0;
}
