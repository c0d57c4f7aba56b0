/*
 * merge_test.c - drives elfw_merge_rel (compiler/elfmerge.c) for tests/merge.
 *
 *   merge_test [-aarch64] OUT [IN]
 *
 * Builds a small x86_64 (or AArch64) object the way -G builds its own: a COMDAT group
 * with a unit section and its weak hidden symbol, a section holding the
 * global symbol `taken` and a relocation against it, an undefined
 * reference `shared_ref`, and .note.GNU-stack.  With IN, the relocatable
 * object IN is merged in (elfw_merge_rel).  The result is written to OUT.
 * tests/merge/run compares OUT with `ld -r` of the same inputs (OUT
 * without IN, plus IN), and feeds it objects the merge must refuse.
 *
 * Exit status: 0 written, 1 refused or failed (the message on stderr),
 * 2 usage.
 */
#include <elf.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfwrite.h"

/* The builder's own part: what an IN may refer to or collide with. */
static void
build_base(elfw_t *w, unsigned abs64)
{
	static const unsigned char unit[16] = { 0x0f, 0x1f, 0x44, 0x00, 0x00, 0xc3 };
	static const unsigned char data[16];
	int g = elfw_add_group(w);
	elfw_section_desc_t text = { ".text.base_unit", SHT_PROGBITS,
	    SHF_ALLOC | SHF_EXECINSTR, 16, 0, unit, sizeof(unit), g };
	int ts = elfw_add_section(w, &text);
	elfw_symbol_desc_t fn = { "base_unit", ts, 0, 16, STB_WEAK, STT_FUNC, STV_HIDDEN };
	elfw_section_desc_t dd = { ".data.base", SHT_PROGBITS, SHF_ALLOC | SHF_WRITE,
	    8, 0, data, sizeof(data), 0 };
	int ds = elfw_add_section(w, &dd);
	elfw_symbol_desc_t taken = { "taken", ds, 0, 16, STB_GLOBAL, STT_OBJECT,
	    STV_HIDDEN };
	elfw_section_desc_t stack = { ".note.GNU-stack", SHT_PROGBITS, 0, 1, 0, NULL, 0, 0 };

	elfw_set_group_signature(w, g, elfw_add_symbol(w, &fn));
	elfw_add_symbol(w, &taken);
	elfw_add_reloc(w, ds, 0, abs64, elfw_symbol_ref(w, "shared_ref"), 0);
	elfw_add_reloc(w, ds, 8, abs64, elfw_find_symbol(w, "base_unit"), 8);
	elfw_add_section(w, &stack);
}

/* The whole of a file in memory; NULL (and a message) on failure. */
static unsigned char *
slurp(const char *path, size_t *size)
{
	struct stat st;
	unsigned char *buf = NULL;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st) != 0 ||
	    (buf = malloc((size_t)st.st_size + 1)) == NULL ||
	    read(fd, buf, (size_t)st.st_size) != st.st_size) {
		perror(path);
		free(buf);
		buf = NULL;
	}
	*size = buf != NULL ? (size_t)st.st_size : 0;
	if (fd >= 0)
		close(fd);
	return buf;
}

int
main(int argc, char **argv)
{
	err_t e = { 0 };
	elfw_t *w;
	unsigned char *image = NULL;
	size_t size = 0;
	bool aarch64 = argc > 1 && strcmp(argv[1], "-aarch64") == 0;
	int fd, rc = 1;

	argc -= aarch64;
	argv += aarch64;
	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: merge_test [-aarch64] OUT [IN]\n");
		return 2;
	}
	if ((w = elfw_new(ELFCLASS64, aarch64 ? EM_AARCH64 : EM_X86_64, &e)) == NULL) {
		fprintf(stderr, "merge_test: %s\n", e.msg);
		return 1;
	}
	build_base(w, aarch64 ? R_AARCH64_ABS64 : R_X86_64_64);
	if (argc == 3 && (image = slurp(argv[2], &size)) == NULL)
		goto out;
	if (image != NULL && elfw_merge_rel(w, image, size, argv[2], &e) != 0) {
		fprintf(stderr, "merge_test: %s\n", e.msg);
		goto out;
	}
	if ((fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0644)) < 0) {
		perror(argv[1]);
		goto out;
	}
	if (elfw_write_rel(w, fd, &e) != 0)
		fprintf(stderr, "merge_test: %s\n", e.msg);
	else
		rc = 0;
	close(fd);
out:
	free(image);
	elfw_free(w);
	return rc;
}
