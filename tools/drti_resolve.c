/*
 * drti_resolve.c - resolve, in drti_lite's merged object, the calls and
 * address loads from its code to its own code, as a final link would,
 * and drop their relocations.  A build tool (the Makefile's drti_merge),
 * never shipped.
 *
 * Why: drti_lite is several .c files merged into one relocatable object
 * (`ld -r`, runtime/README.md), and every -G output carries a copy.  A
 * call from one file's function to another's is a relocation after `ld
 * -r` (24 bytes of RELA on x86_64 and AArch64), and it keeps the callee's
 * name in the symbol table (24 bytes and the string), though both ends
 * now lie in one .text at a fixed distance: in a single file the
 * assembler would have resolved it.  This does what the assembler would:
 * for each relocation of an executable section whose symbol is local and
 * defined in that same section, and whose type is PC-relative to the
 * byte (x86_64's PC32 and PLT32; AArch64's CALL26 and JUMP26), it writes
 * S + A - P into the instruction and removes the relocation.  Everything
 * else is kept: references to other sections (.rodata, .bss), to
 * undefined symbols, page-relative ones (AArch64's ADRP, whose value
 * depends on where the final link puts the page).  The symbols no
 * relocation names any more are left for `objcopy --strip-unneeded`.
 *
 *   drti_resolve OBJECT      (in place; run after objcopy --localize-hidden)
 *
 * An object of another class, byte order or machine (a 32-bit or
 * big-endian host's own drti_lite) is left as it is.  Exit 1, with a
 * message, when the object cannot be read or written or a value does not
 * fit its field.
 */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char *prog_path;

static int
fail(const char *what)
{
	fprintf(stderr, "drti_resolve: %s: %s%s%s\n", prog_path, what,
	    elf_errno() != 0 ? ": " : "", elf_errno() != 0 ? elf_errmsg(-1) : "");
	return 1;
}

/* Whether rtype is a relocation this resolves for machine (the whole byte offset, PC-relative). */
static int
resolvable(unsigned machine, unsigned rtype)
{
	if (machine == EM_X86_64)
		return rtype == R_X86_64_PC32 || rtype == R_X86_64_PLT32;
	return rtype == R_AARCH64_CALL26 || rtype == R_AARCH64_JUMP26;
}

static uint32_t
get32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void
put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* The value v (S + A - P) written at code + off for rtype; 0, or -1 if it does not fit. */
static int
patch(unsigned machine, unsigned rtype, unsigned char *code, uint64_t off, int64_t v)
{
	if (machine == EM_X86_64) {
		if (v < INT32_MIN || v > INT32_MAX)
			return -1;
		put32(code + off, (uint32_t)v);
		return 0;
	}
	(void)rtype;	/* CALL26 and JUMP26: imm26, in words */
	if (v % 4 != 0 || v < -(INT64_C(1) << 27) || v >= (INT64_C(1) << 27))
		return -1;
	put32(code + off, (get32(code + off) & ~UINT32_C(0x3ffffff)) |
	    ((uint32_t)(v / 4) & UINT32_C(0x3ffffff)));
	return 0;
}

/* The relocations of section rs (SHT_RELA) resolved where they can be; how many, or -1. */
static long
resolve_section(Elf *elf, unsigned machine, Elf_Scn *rs, Elf_Data *syms)
{
	GElf_Shdr rsh, tsh;
	Elf_Scn *ts;
	Elf_Data *rd, *td;
	size_t n, kept = 0;

	if (gelf_getshdr(rs, &rsh) == NULL || (ts = elf_getscn(elf, rsh.sh_info)) == NULL ||
	    gelf_getshdr(ts, &tsh) == NULL)
		return -1;
	if (!(tsh.sh_flags & SHF_EXECINSTR) || tsh.sh_type != SHT_PROGBITS)
		return 0;
	if ((rd = elf_getdata(rs, NULL)) == NULL || (td = elf_getdata(ts, NULL)) == NULL ||
	    elf_getdata(ts, td) != NULL || td->d_size != tsh.sh_size)
		return -1;
	n = rd->d_size / gelf_fsize(elf, ELF_T_RELA, 1, EV_CURRENT);
	for (size_t i = 0; i < n; i++) {
		GElf_Rela r;
		GElf_Sym sym;
		unsigned rtype;

		if (gelf_getrela(rd, (int)i, &r) == NULL ||
		    gelf_getsym(syms, (int)GELF_R_SYM(r.r_info), &sym) == NULL)
			return -1;
		rtype = (unsigned)GELF_R_TYPE(r.r_info);
		if (resolvable(machine, rtype) && GELF_ST_BIND(sym.st_info) == STB_LOCAL &&
		    sym.st_shndx == elf_ndxscn(ts) && r.r_offset + 4 <= td->d_size) {
			int64_t v = (int64_t)(sym.st_value + (uint64_t)r.r_addend - r.r_offset);

			if (patch(machine, rtype, td->d_buf, r.r_offset, v) != 0)
				return -1;
			continue;
		}
		if (gelf_update_rela(rd, (int)kept++, &r) == 0)
			return -1;
	}
	if (kept != n) {
		rd->d_size = kept * gelf_fsize(elf, ELF_T_RELA, 1, EV_CURRENT);
		elf_flagdata(rd, ELF_C_SET, ELF_F_DIRTY);
		elf_flagdata(td, ELF_C_SET, ELF_F_DIRTY);
	}
	return (long)(n - kept);
}

int
main(int argc, char **argv)
{
	Elf *elf;
	Elf_Scn *scn = NULL;
	Elf_Data *syms = NULL;
	GElf_Ehdr eh;
	int fd, rc = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: drti_resolve OBJECT\n");
		return 2;
	}
	prog_path = argv[1];
	if (elf_version(EV_CURRENT) == EV_NONE || (fd = open(argv[1], O_RDWR)) < 0)
		return fail("cannot open");
	if ((elf = elf_begin(fd, ELF_C_RDWR, NULL)) == NULL || gelf_getehdr(elf, &eh) == NULL) {
		close(fd);
		return fail("not an ELF object");
	}
	if (eh.e_type != ET_REL || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB || (eh.e_machine != EM_X86_64 &&
	    eh.e_machine != EM_AARCH64)) {
		elf_end(elf);
		close(fd);
		return 0;	/* not one this knows: left as it is */
	}
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) != NULL && sh.sh_type == SHT_SYMTAB)
			syms = elf_getdata(scn, NULL);
	}
	for (scn = NULL; syms != NULL && rc == 0 && (scn = elf_nextscn(elf, scn)) != NULL;) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) != NULL && sh.sh_type == SHT_RELA &&
		    resolve_section(elf, eh.e_machine, scn, syms) < 0)
			rc = fail("a relocation cannot be resolved");
	}
	if (rc == 0 && elf_update(elf, ELF_C_WRITE) < 0)
		rc = fail("cannot write");
	elf_end(elf);
	close(fd);
	return rc;
}
