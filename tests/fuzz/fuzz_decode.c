/*
 * fuzz_decode.c - libFuzzer entry point for the strict readers (decode.h)
 * and the printer behind --dump (list.c).
 *
 * Build (optional; tests/dof/run runs its own mutation loop instead):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE -Icompiler \
 *     tests/fuzz/fuzz_decode.c compiler/decode.c compiler/list.c \
 *     compiler/macho_read.c compiler/err.c -lelf -o fuzz_decode
 *   ./fuzz_decode CORPUS_DIR
 * A good seed corpus is a few raw DOF images (tests/unit/dof_test raw ...)
 * and .note.stapsdt sections cut out of objects.
 *
 * The first input byte picks the reader, so one corpus covers all three:
 * even: dof_decode; odd: stapsdt_decode (ELF64 notes) and, every fourth,
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
		if (stapsdt_decode(data + 1, size - 1, 8, &n, &e) == 0)
			stapsdt_notes_free(&n);
		break;
	case 3: {
		list_opts_t o = { LIST_DUMP, 0x555555554000ull };

		(void)list_buffer(sink, data + 1, size - 1, "fuzz", &o, &e);
		break;
	}
	}
	return 0;
}
