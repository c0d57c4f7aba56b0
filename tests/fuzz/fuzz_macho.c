/*
 * fuzz_macho.c - libFuzzer entry point for the strict Mach-O reader
 * (macho_read.c) and what --list/--dump make of a Mach-O file (list.c).
 *
 * usdtc reads Mach-O files it did not write: the program's objects given
 * to -G for a macOS target, and any file given to --list/--dump.  The
 * reader takes (buffer, length); this harness reads the header, every
 * section's relocations and the relocations of each DOF section, then
 * hands the same bytes to the --dump printer.
 *
 * Built by `make fuzz` (libFuzzer) and by tests/fuzz/run (a plain replay
 * of the corpus and regression inputs, tests/fuzz/replay.c).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "list.h"
#include "macho_read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
read_relocs(const macho_file_t *f)
{
	for (size_t i = 0; i < f->nsects; i++) {
		macho_reloc_t *r;
		macho_dof_rel_t *d;
		size_t n;
		err_t e;

		if (macho_relocs(f, i, &r, &n, &e) == 0)
			free(r);
		if (macho_is_dof_section(&f->sects[i]) &&
		    macho_dof_relocs(f, i, &d, &n, &e) == 0)
			free(d);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *sink;
	list_opts_t dump = { LIST_DUMP, 0 }, list = { LIST_SUMMARY, 0 };
	macho_file_t f;
	err_t e;

	if (sink == NULL && (sink = fopen("/dev/null", "w")) == NULL)
		return 0;
	if (macho_read(data, size, &f, &e) == 0) {
		read_relocs(&f);
		macho_file_free(&f);
	}
	(void)list_buffer(sink, data, size, "fuzz", &dump, &e);
	(void)list_buffer(sink, data, size, "fuzz", &list, &e);
	return 0;
}
