/*
 * elfwrite_test.c - the ELF builder's symbols as its ET_REL writer writes
 * them (compiler/elfwrite.c), read back with libelf.
 *
 * Why: the writer makes .strtab in place of the names as the symbols were
 * added (locals set aside, the others moved down, then up past the
 * locals'), and keeps a value or size past 32 bits apart from the symbol
 * (ELFW_SYM_WIDE).  The -G outputs exercise neither corner: no name of
 * theirs is both a local's and a global's, and no value is wide.  Here
 * locals and globals alternate, names repeat, some are empty, and two
 * symbols are wide; every symbol must come back with its name, value,
 * size and binding, locals first, each name stored once.
 */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elfwrite.h"
#include "../testlib.h"

typedef struct want {
	const char *name;
	int in_section;		/* 1: the data section, 0: SHN_ABS */
	uint64_t value, size;
	unsigned bind;
} want_t;

/* In the order they are added: globals and locals mixed, names repeated. */
static const want_t added[] = {
	{ "g_first", 1, 0, 8, STB_GLOBAL },
	{ "l_first", 1, 8, 0, STB_LOCAL },
	{ "shared", 1, 16, 4, STB_GLOBAL },
	{ "l_second_and_longer", 1, 24, 0, STB_LOCAL },
	{ "shared", 1, 20, 4, STB_LOCAL },	/* a local named like a global */
	{ "far", 0, 0x123456789aULL, 0, STB_GLOBAL },	/* a wide value */
	{ "", 1, 4, 0, STB_LOCAL },
	{ "big", 1, 0, (uint64_t)1 << 33, STB_WEAK },	/* a wide size */
	{ "g_last", 1, 32, 8, STB_GLOBAL },
	{ "l_last", 1, 40, 0, STB_LOCAL },
};
#define NADDED (sizeof(added) / sizeof(added[0]))

/* The object of `added` written to fd; 0, or -1 with the error printed. */
static int
write_object(unsigned elf_class, int fd)
{
	static const unsigned char data[64];
	err_t e;
	elfw_t *w = elfw_new(elf_class, EM_X86_64, &e);
	elfw_section_desc_t sd = { ".data.t", SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, 8, 0,
	    data, sizeof(data), 0 };
	int sec, rc;

	if (w == NULL)
		return -1;
	sec = elfw_add_section(w, &sd);
	for (size_t i = 0; i < NADDED; i++) {
		elfw_symbol_desc_t d = { added[i].name, added[i].in_section ? sec : ELFW_ABS,
		    added[i].value, added[i].size, added[i].bind, STT_OBJECT, STV_DEFAULT };

		elfw_add_symbol(w, &d);
	}
	rc = elfw_write_rel(w, fd, &e);
	if (rc != 0)
		printf("# write: %s\n", e.msg);
	elfw_free(w);
	return rc;
}

/* The symbol table's section of elf, NULL if none. */
static Elf_Scn *
symtab_of(Elf *elf, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn)) != NULL)
		if (gelf_getshdr(scn, sh) != NULL && sh->sh_type == SHT_SYMTAB)
			return scn;
	return NULL;
}

/* Output position k (from 1): locals first, each kind in the order added. */
static const want_t *
expected_at(size_t k)
{
	size_t n = 0;

	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < NADDED; i++)
			if ((added[i].bind == STB_LOCAL) == (pass == 0) && ++n == k)
				return &added[i];
	return NULL;
}

/* Every symbol read back from fd as added, and .strtab without repeats. */
static void
check_symbols(int fd)
{
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	GElf_Shdr sh, strsh;
	Elf_Scn *scn = elf != NULL ? symtab_of(elf, &sh) : NULL;
	Elf_Data *syms = scn != NULL ? elf_getdata(scn, NULL) : NULL;
	size_t unique = 1, shared_name = 0;

	test_begin("symbols come back with their names, values, sizes and bindings");
	if (syms == NULL || sh.sh_size / sh.sh_entsize != NADDED + 1) {
		test_failf("no .symtab of %zu symbols", NADDED + 1);
		test_end();
		if (elf != NULL)
			elf_end(elf);
		return;
	}
	for (size_t k = 1; k <= NADDED; k++) {
		const want_t *x = expected_at(k);
		GElf_Sym s;
		const char *name;

		if (gelf_getsym(syms, (int)k, &s) == NULL ||
		    (name = elf_strptr(elf, sh.sh_link, s.st_name)) == NULL) {
			test_failf("symbol %zu unreadable", k);
			continue;
		}
		if (strcmp(name, x->name) != 0 || s.st_value != x->value ||
		    s.st_size != x->size || GELF_ST_BIND(s.st_info) != x->bind ||
		    (x->in_section == 0) != (s.st_shndx == SHN_ABS))
			test_failf("symbol %zu: %s value %#llx size %#llx bind %u; want %s "
			    "%#llx %#llx %u", k, name, (unsigned long long)s.st_value,
			    (unsigned long long)s.st_size, GELF_ST_BIND(s.st_info), x->name,
			    (unsigned long long)x->value, (unsigned long long)x->size, x->bind);
		if (strcmp(x->name, "shared") == 0 && shared_name == 0)
			shared_name = s.st_name;
		else if (strcmp(x->name, "shared") == 0 && s.st_name != shared_name)
			test_failf("the two symbols named shared have two names in .strtab");
	}
	test_end();
	for (size_t i = 0; i < NADDED; i++) {
		bool seen = false;

		for (size_t j = 0; j < i; j++)
			seen = seen || strcmp(added[i].name, added[j].name) == 0;
		if (!seen && added[i].name[0] != '\0')
			unique += strlen(added[i].name) + 1;
	}
	CHECK(gelf_getshdr(elf_getscn(elf, sh.sh_link), &strsh) != NULL &&
	    strsh.sh_size == unique, ".strtab holds each name once");
	elf_end(elf);
}

int
main(void)
{
	char path[] = "/tmp/usdtc-elfwrite-test.XXXXXX";
	int fd = mkstemp(path);

	if (fd < 0 || elf_version(EV_CURRENT) == EV_NONE) {
		CHECK(0, "a temporary file and libelf");
		return test_summary();
	}
	unlink(path);
	if (write_object(ELFCLASS64, fd) != 0)
		CHECK(0, "an ELFCLASS64 object of wide and narrow symbols is written");
	else
		check_symbols(fd);
	close(fd);
	strcpy(path, "/tmp/usdtc-elfwrite-test.XXXXXX");
	if ((fd = mkstemp(path)) < 0) {
		CHECK(0, "a second temporary file");
	} else {
		unlink(path);
		CHECK(write_object(ELFCLASS32, fd) != 0,
		    "ELFCLASS32 refuses a value past 32 bits");
		close(fd);
	}
	return test_summary();
}
