/*
 * list.c - `usdtc --list` / `--dump`: the DOF and stapsdt notes of a file.
 *
 * A file is read whole and recognised by its first bytes: an ELF file of
 * any type and class (through libelf), or a raw DOF image such as the one
 * drti_lite hands to the helper device.
 *
 * DOF.  Every section named .SUNW_dof (or typed SHT_SUNW_dof) is copied and
 * walked: a linked program holds one DOF per -G object, concatenated by the
 * linker, each starting at an 8-aligned offset, with zero padding between
 * them that we skip.  Before decoding, the copy gets what a loader would
 * put there: in an executable or shared library, dynamic relocations
 * (RELATIVE, 64-bit absolute, GLOB_DAT) that land in the section are
 * applied, because a PIE link may leave the section bytes zero and keep
 * the addresses only in .rela.dyn.  In a relocatable object nothing is
 * applied; instead each probe record shows the symbol its address is
 * relocated against (from .rela.SUNW_dof, whose entries, like those of the
 * notes, must be the machine's 64-bit address relocations: R_X86_64_64 or
 * GLOB_DAT, R_AARCH64_ABS64 or GLOB_DAT).  Then the consumer's rule for
 * a load base, when one is given: a record with a DOF SETX relocation whose
 * address is <= base gets base added.
 *
 * Mach-O.  A 64-bit Mach-O file (macho_read.c) has its DOF in every
 * section of type S_DTRACE_DOF, the sections dyld registers.  macOS gives
 * the kernel each such section's address as the base of all its probes
 * (dofpr_addr is not used), and its PROFFS/PRENOFFS entries are signed
 * distances from the DOF; so in a linked image each record shows that
 * base as its address and each site the tracepoint the kernel derives
 * (macho_tracepoint_adjust).  In an object, the relocation pairs that
 * make the entries relative (macho_dof_relocs) are checked and each
 * record shows the function its sites are relative to.  Mach-O files
 * have no stapsdt notes.
 *
 * Notes.  Every SHT_NOTE section named .note.stapsdt (an object has one per
 * COMDAT group) is decoded; in a relocatable object the pc, base and
 * semaphore fields are shown as the symbols their relocations name.
 *
 * Output.  --list groups the records of a probe and prints, per provider,
 * each probe with its argument types (translated ones when they differ),
 * its sites as function+offset with the address when known, then the
 * notes.  --dump prints every field of every DOF in a fixed order close to
 * the decoded dtrace output kept in the reference folder, then the notes;
 * it never prints file names or anything else that varies between runs.
 *
 * Errors name the file and the section; libelf failures name the call and
 * elf_errmsg(-1).  elf_end runs on every path.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "decode.h"
#include "dof.h"
#include "fileio.h"
#include "list.h"
#include "magic.h"
#include "macho_read.h"
#include "stapsdt.h"
#include "target.h"

/* A relocation of a relocatable object: at off (in its target), sym+addend. */
typedef struct relent {
	uint64_t off;
	const char *sym;	/* NULL: none */
	int64_t addend;
	const char *minus;	/* Mach-O: the symbol subtracted (the DOF's start) */
} relent_t;

typedef struct relset {
	relent_t *v;
	size_t n;
} relset_t;

/* A stapsdt note and, in a relocatable object, what its fields relocate to. */
typedef struct note_rec {
	stapsdt_note_t n;
	relent_t pc, base, sem;
} note_rec_t;

typedef struct lister {
	FILE *out;
	const list_opts_t *o;
	const char *name;	/* for messages */
	err_t *e;
	Elf *elf;
	GElf_Ehdr eh;
	size_t shstrndx;
	size_t *relsecs;	/* indices of the REL/RELA sections */
	size_t nrelsecs;
	unsigned ndofs;
	note_rec_t *notes;
	size_t nnotes;
	bool macho;		/* a Mach-O file: eh.e_type says object or image */
	uint32_t cputype;	/* Mach-O */
	uint64_t dof_addr;	/* Mach-O image: address of the section walked */
	size_t xndx_of;		/* the symbol table xndx belongs to, 0 if none looked up */
	Elf_Data *xndx;		/* its SHT_SYMTAB_SHNDX data, or NULL */
} lister_t;

static int
elf_fail(lister_t *L, const char *call)
{
	return err_libelf(L->e, L->name, call);
}

/* ---- printing helpers ------------------------------------------------ */

/* Bytes as a Python-style literal body: printable ASCII, else \xNN. */
static void
put_escaped(FILE *f, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '\\' || c == '\'')
			fprintf(f, "\\%c", c);
		else if (c >= 0x20 && c < 0x7f)
			fputc(c, f);
		else
			fprintf(f, "\\x%02x", c);
	}
}

static void
put_quoted(FILE *f, const char *s)
{
	fputc('\'', f);
	put_escaped(f, s, strlen(s));
	fputc('\'', f);
}

static void
put_string_list(FILE *f, const char *const *v, size_t n)
{
	fputc('[', f);
	for (size_t i = 0; i < n; i++) {
		if (i > 0)
			fputs(", ", f);
		put_quoted(f, v[i]);
	}
	fputc(']', f);
}

static void
put_hex_list(FILE *f, const uint32_t *v, size_t n)
{
	fputc('[', f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s'0x%" PRIx32 "'", i ? ", " : "", v[i]);
	fputc(']', f);
}

static void
put_symref(FILE *f, const relent_t *r, uint64_t extra)
{
	/*
	 * Modulo 2^64, as the linker computes it: an addend from the file may
	 * be anything, and signed arithmetic on it could overflow.
	 */
	uint64_t add = (uint64_t)r->addend + extra;

	fputs(r->sym[0] != '\0' ? r->sym : "?", f);
	if (add != 0 && add <= (uint64_t)INT64_MAX)
		fprintf(f, "+0x%" PRIx64, add);
	else if (add != 0)
		fprintf(f, "-0x%" PRIx64, 0 - add);
}

/* ---- relocations ----------------------------------------------------- */

static const relent_t *
relset_find(const relset_t *rs, uint64_t off)
{
	for (size_t i = 0; i < rs->n; i++)
		if (rs->v[i].off == off)
			return &rs->v[i];
	return NULL;
}

static const char *
section_name(lister_t *L, size_t ndx)
{
	Elf_Scn *scn = elf_getscn(L->elf, ndx);
	GElf_Shdr sh;
	const char *n;

	if (scn == NULL || gelf_getshdr(scn, &sh) == NULL)
		return "";
	n = elf_strptr(L->elf, L->shstrndx, sh.sh_name);
	return n != NULL ? n : "";
}

/*
 * The section index of symbol i of the table in section symndx: st_shndx,
 * or with extended section numbering (SHN_XINDEX) the table's
 * SHT_SYMTAB_SHNDX entry, found once per table.
 */
static size_t
symbol_section(lister_t *L, size_t symndx, Elf_Data *syms, size_t i, const GElf_Sym *sym)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Sym s;
	Elf32_Word x = 0;

	if (sym->st_shndx != SHN_XINDEX)
		return sym->st_shndx;
	if (L->xndx_of != symndx) {
		L->xndx_of = symndx;
		L->xndx = NULL;
		while (L->xndx == NULL && (scn = elf_nextscn(L->elf, scn)) != NULL)
			if (gelf_getshdr(scn, &sh) != NULL && sh.sh_type == SHT_SYMTAB_SHNDX &&
			    sh.sh_link == symndx)
				L->xndx = elf_getdata(scn, NULL);
	}
	if (L->xndx == NULL || gelf_getsymshndx(syms, L->xndx, (int)i, &s, &x) == NULL)
		return 0;
	return x;
}

/* The name of symbol i of the table in section symndx (section symbols: their section). */
static const char *
symbol_name(lister_t *L, size_t symndx, size_t i, GElf_Sym *symp)
{
	Elf_Scn *scn = elf_getscn(L->elf, symndx);
	GElf_Shdr sh;
	Elf_Data *d;
	GElf_Sym sym;
	const char *n;

	if (scn == NULL || gelf_getshdr(scn, &sh) == NULL ||
	    (d = elf_getdata(scn, NULL)) == NULL ||
	    gelf_getsym(d, (int)i, &sym) == NULL)
		return NULL;
	if (symp != NULL)
		*symp = sym;
	if (GELF_ST_TYPE(sym.st_info) == STT_SECTION)
		return section_name(L, symbol_section(L, symndx, d, i, &sym));
	n = elf_strptr(L->elf, sh.sh_link, sym.st_name);
	return n != NULL ? n : "";
}

static int
relset_add(lister_t *L, relset_t *rs, const relent_t *r)
{
	relent_t *v = realloc(rs->v, (rs->n + 1) * sizeof(*v));

	if (v == NULL)
		return err_set(L->e, "%s: out of memory reading relocations", L->name);
	rs->v = v;
	v[rs->n++] = *r;
	return 0;
}

/* Note the REL/RELA sections once: an object may have thousands of sections. */
static int
find_reloc_sections(lister_t *L)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(L->elf, scn)) != NULL) {
		GElf_Shdr sh;
		size_t *v;

		if (gelf_getshdr(scn, &sh) == NULL)
			return elf_fail(L, "gelf_getshdr");
		if (sh.sh_type != SHT_RELA && sh.sh_type != SHT_REL)
			continue;
		if ((v = realloc(L->relsecs, (L->nrelsecs + 1) * sizeof(*v))) == NULL)
			return err_set(L->e, "%s: out of memory reading sections", L->name);
		L->relsecs = v;
		v[L->nrelsecs++] = elf_ndxscn(scn);
	}
	return 0;
}

static int dynamic_reloc_kind(unsigned machine, unsigned type);

/*
 * Whether a relocation of a relocatable object can fill an address field
 * of a DOF or a note: a 64-bit absolute (symbol + addend) relocation of
 * the machine, whatever the target (R_X86_64_64, the R_X86_64_GLOB_DAT
 * Oracle's dtrace writes, R_AARCH64_ABS64).  Machines we do not know are
 * taken on trust.
 */
static bool
is_address_reloc(unsigned machine, unsigned type)
{
	switch (machine) {
	case EM_X86_64:
	case EM_AARCH64:
		return dynamic_reloc_kind(machine, type) == 2;
	default:
		return true;
	}
}

/* Every REL/RELA entry of a relocatable object that applies to section target. */
static int
collect_relocs(lister_t *L, size_t target, relset_t *rs)
{
	memset(rs, 0, sizeof(*rs));
	for (size_t k = 0; k < L->nrelsecs; k++) {
		Elf_Scn *scn = elf_getscn(L->elf, L->relsecs[k]);
		GElf_Shdr sh;
		Elf_Data *d;
		bool rela;

		if (scn == NULL || gelf_getshdr(scn, &sh) == NULL)
			return elf_fail(L, "gelf_getshdr");
		if ((sh.sh_type != SHT_RELA && sh.sh_type != SHT_REL) || sh.sh_info != target)
			continue;
		if ((d = elf_getdata(scn, NULL)) == NULL)
			continue;
		rela = sh.sh_type == SHT_RELA;
		for (size_t i = 0; sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
			relent_t r = { 0, NULL, 0, NULL };
			GElf_Rela ra;
			GElf_Rel rl;

			if (rela ? gelf_getrela(d, (int)i, &ra) == NULL :
			    gelf_getrel(d, (int)i, &rl) == NULL)
				return elf_fail(L, rela ? "gelf_getrela" : "gelf_getrel");
			if (!rela) {
				ra.r_offset = rl.r_offset;
				ra.r_info = rl.r_info;
				ra.r_addend = 0;
			}
			if (GELF_R_TYPE(ra.r_info) == 0)
				continue;	/* R_*_NONE: no relocation */
			if (!is_address_reloc(L->eh.e_machine, (unsigned)GELF_R_TYPE(ra.r_info)))
				return err_set(L->e, "%s: %s+0x%" PRIx64 ": relocation type %u is not a "
				    "64-bit address relocation of ELF machine %u", L->name,
				    section_name(L, target), (uint64_t)ra.r_offset,
				    (unsigned)GELF_R_TYPE(ra.r_info), (unsigned)L->eh.e_machine);
			r.off = ra.r_offset;
			r.addend = ra.r_addend;
			r.sym = GELF_R_SYM(ra.r_info) == 0 ? "" :
			    symbol_name(L, sh.sh_link, GELF_R_SYM(ra.r_info), NULL);
			if (r.sym == NULL)
				r.sym = "?";
			if (relset_add(L, rs, &r) != 0)
				return -1;
		}
	}
	return 0;
}

/* 0: not an address relocation; 1: base-relative (addend); 2: symbol + addend. */
static int
dynamic_reloc_kind(unsigned machine, unsigned type)
{
	const usdt_arch_t *a = arch_for_machine(machine);

	if (a == NULL)
		return 0;
	if (type == a->reloc_relative)
		return 1;
	if (type == a->reloc_abs64 || type == a->reloc_glob_dat)
		return 2;
	return 0;
}

/*
 * In an executable or shared library, write into buf (a copy of the
 * section at sh) the link-time value of every dynamic relocation that
 * lands in it.
 */
static int
apply_dynamic_relocs(lister_t *L, const GElf_Shdr *dof, uint8_t *buf)
{
	if (L->eh.e_ident[EI_CLASS] != ELFCLASS64 || dof->sh_size < 8)
		return 0;
	for (size_t k = 0; k < L->nrelsecs; k++) {
		Elf_Scn *scn = elf_getscn(L->elf, L->relsecs[k]);
		GElf_Shdr sh;
		Elf_Data *d;

		if (scn == NULL || gelf_getshdr(scn, &sh) == NULL)
			return elf_fail(L, "gelf_getshdr");
		if (sh.sh_type != SHT_RELA || sh.sh_entsize == 0 ||
		    (d = elf_getdata(scn, NULL)) == NULL)
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Rela r;
			GElf_Sym sym;
			uint64_t v;
			int kind;

			if (gelf_getrela(d, (int)i, &r) == NULL)
				return elf_fail(L, "gelf_getrela");
			if (r.r_offset < dof->sh_addr || r.r_offset - dof->sh_addr > dof->sh_size - 8)
				continue;
			kind = dynamic_reloc_kind(L->eh.e_machine, GELF_R_TYPE(r.r_info));
			if (kind == 0)
				continue;
			v = (uint64_t)r.r_addend;
			if (kind == 2) {
				if (symbol_name(L, sh.sh_link, GELF_R_SYM(r.r_info), &sym) == NULL ||
				    sym.st_shndx == SHN_UNDEF)
					continue;
				v += sym.st_value;
			}
			memcpy(buf + (r.r_offset - dof->sh_addr), &v, sizeof(v));
		}
	}
	return 0;
}

/* ---- DOF: --dump ----------------------------------------------------- */

static const char *
type_label(uint32_t type, char buf[16])
{
	const char *n = dof_section_type_name(type);

	if (n != NULL)
		return n;
	snprintf(buf, 16, "TYPE%" PRIu32, type);
	return buf;
}

static void
dump_header(FILE *f, const dof_decoded_t *d)
{
	const dof_hdr_t *h = &d->hdr;
	char tb[16];

	fputs("ident", f);
	for (int i = 0; i < DOF_ID_SIZE; i++)
		fprintf(f, " %02x", h->dofh_ident[i]);
	fprintf(f, " flags %" PRIu32 " hdrsize %" PRIu32 " secsize %" PRIu32
	    " secnum %" PRIu32 " secoff %" PRIu64 " loadsz %" PRIu64 " filesz %" PRIu64 "\n",
	    h->dofh_flags, h->dofh_hdrsize, h->dofh_secsize, h->dofh_secnum,
	    h->dofh_secoff, h->dofh_loadsz, h->dofh_filesz);
	for (size_t i = 0; i < d->nsecs; i++) {
		const dof_sec_t *s = &d->secs[i].hdr;

		fprintf(f, " sec[%zu] %s align=%" PRIu32 " flags=%" PRIu32 " entsize=%" PRIu32
		    " off=0x%" PRIx64 " size=0x%" PRIx64 "\n", i, type_label(s->dofs_type, tb),
		    s->dofs_align, s->dofs_flags, s->dofs_entsize, s->dofs_offset, s->dofs_size);
	}
	/* Byte sections: the string tables, the comment, the system name. */
	for (size_t i = 0; i < d->nsecs; i++) {
		const dofd_section_t *s = &d->secs[i];
		uint32_t t = s->hdr.dofs_type;

		if (t != DOF_SECT_STRTAB && t != DOF_SECT_COMMENTS && t != DOF_SECT_UTSNAME)
			continue;
		fprintf(f, " %s[%zu] ", t == DOF_SECT_STRTAB ? "strtab" :
		    t == DOF_SECT_COMMENTS ? "comments" : "utsname", i);
		if (s->data == NULL) {
			fputs("(not in the image)\n", f);
			continue;
		}
		fputs("b'", f);
		put_escaped(f, (const char *)s->data, s->hdr.dofs_size);
		fputs("'\n", f);
	}
}

static void
dump_attr(FILE *f, const char *what, dof_attr_t a)
{
	fprintf(f, "  attr %s 0x%08" PRIx32 "(name=%u,data=%u,class=%u)\n", what, a,
	    DOF_ATTR_NAME(a), DOF_ATTR_DATA(a), DOF_ATTR_CLASS(a));
}

static void
dump_record(lister_t *L, const dofd_probe_t *r, size_t j, uint64_t secoff,
    const relset_t *rels)
{
	FILE *f = L->out;
	const dof_probe_t *p = &r->raw;
	const relent_t *er = relset_find(rels, secoff + r->addr_offset);

	fprintf(f, "  probe[%zu] addr=0x%" PRIx64 " func=", j, p->dofpr_addr);
	put_quoted(f, r->func);
	fputs(" name=", f);
	put_quoted(f, r->name);
	fprintf(f, " nargc=%u native=", p->dofpr_nargc);
	put_string_list(f, r->nargv, p->dofpr_nargc);
	fprintf(f, " xargc=%u xlate=", p->dofpr_xargc);
	put_string_list(f, r->xargv, p->dofpr_xargc);
	fprintf(f, " argidx=%" PRIu32 " map=[", p->dofpr_argidx);
	for (unsigned k = 0; k < p->dofpr_xargc; k++)
		fprintf(f, "%s%u", k ? ", " : "", r->argmap[k]);
	fprintf(f, "] offidx=%" PRIu32 " noffs=%u offs=", p->dofpr_offidx, p->dofpr_noffs);
	put_hex_list(f, r->offs, p->dofpr_noffs);
	fprintf(f, " enoffidx=%" PRIu32 " nenoffs=%u enoffs=", p->dofpr_enoffidx,
	    p->dofpr_nenoffs);
	put_hex_list(f, r->enoffs, r->nenoffs);
	if (r->reloc != NULL) {
		fputs(" reloc=", f);
		put_quoted(f, r->reloc);
	}
	if (er != NULL) {
		fputs(L->macho ? " machorel='" : " elfrel='", f);
		put_symref(f, er, 0);
		if (er->minus != NULL)
			fprintf(f, "-%s", er->minus);
		fputc('\'', f);
	}
	fputc('\n', f);
}

static void
dump_dof(lister_t *L, const dof_decoded_t *d, const char *where, uint64_t secoff,
    const relset_t *rels)
{
	FILE *f = L->out;

	fprintf(f, "DOF %s+0x%" PRIx64 "\n", where, secoff);
	dump_header(f, d);
	for (size_t i = 0; i < d->nproviders; i++) {
		const dofd_provider_t *pv = &d->providers[i];
		const dof_provider_t *r = &pv->raw;

		fputs("PROVIDER name=", f);
		put_quoted(f, pv->name);
		fprintf(f, " strtab=%" PRIu32 " probes=%" PRIu32 " prargs=%" PRIu32
		    " proffs=%" PRIu32 " prenoffs=%" PRIu32 "\n", r->dofpv_strtab,
		    r->dofpv_probes, r->dofpv_prargs, r->dofpv_proffs, r->dofpv_prenoffs);
		dump_attr(f, "provider", r->dofpv_provattr);
		dump_attr(f, "mod", r->dofpv_modattr);
		dump_attr(f, "func", r->dofpv_funcattr);
		dump_attr(f, "name", r->dofpv_nameattr);
		dump_attr(f, "args", r->dofpv_argsattr);
		for (size_t j = 0; j < pv->nprobes; j++)
			dump_record(L, &pv->probes[j], j, secoff, rels);
	}
	for (size_t i = 0; i < d->nrelhdrs; i++) {
		const dofd_relhdr_t *rh = &d->relhdrs[i];

		fprintf(f, "URELHDR strtab=%" PRIu32 " relsec=%" PRIu32 " tgtsec=%" PRIu32 "\n",
		    rh->raw.dofr_strtab, rh->raw.dofr_relsec, rh->raw.dofr_tgtsec);
		for (size_t k = 0; k < rh->nrelocs; k++) {
			const dofd_reloc_t *r = &rh->relocs[k];

			fputs("  relo name=", f);
			put_quoted(f, r->name);
			fprintf(f, " type=%" PRIu32 " offset=%" PRIu64 " data=%" PRIu64 "\n",
			    r->raw.dofr_type, r->raw.dofr_offset, r->raw.dofr_data);
		}
	}
}

/* ---- DOF: --list ----------------------------------------------------- */

static void
put_types(FILE *f, const char *const *v, size_t n)
{
	fputc('(', f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%s", i ? ", " : "", v[i]);
	fputc(')', f);
}

/* Whether a record's translated arguments say more than its native ones. */
static bool
is_translated(const dofd_probe_t *r)
{
	if (r->raw.dofpr_nargc != r->raw.dofpr_xargc)
		return true;
	for (unsigned k = 0; k < r->raw.dofpr_xargc; k++)
		if (r->argmap[k] != k || strcmp(r->nargv[k], r->xargv[k]) != 0)
			return true;
	return false;
}

static void
list_signature(FILE *f, const dofd_probe_t *r)
{
	fprintf(f, "  probe %s", r->name);
	put_types(f, r->nargv, r->raw.dofpr_nargc);
	if (is_translated(r)) {
		fputs(" : ", f);
		put_types(f, r->xargv, r->raw.dofpr_xargc);
		fputs(" map [", f);
		for (unsigned k = 0; k < r->raw.dofpr_xargc; k++)
			fprintf(f, "%s%u", k ? ", " : "", r->argmap[k]);
		fputc(']', f);
	}
	fputc('\n', f);
}

/*
 * adjust: from the recorded site to the tracepoint (0 but on macOS).  A
 * Mach-O site is a signed 32-bit distance from the record's base.
 */
static void
list_site(lister_t *L, const dofd_probe_t *r, const char *kind, uint32_t off,
    const relent_t *er, int adjust)
{
	FILE *f = L->out;

	if (L->macho)
		fprintf(f, "    %-10s %s entry=%" PRId32, kind, r->func, (int32_t)off);
	else
		fprintf(f, "    %-10s %s+0x%" PRIx32, kind, r->func, off);
	if (er != NULL) {
		fputs(" @ ", f);
		put_symref(f, er, (uint64_t)((int64_t)off + adjust));
	} else if (L->macho && L->eh.e_type != ET_REL) {
		fprintf(f, " @ 0x%" PRIx64, r->raw.dofpr_addr +
		    (uint64_t)((int64_t)(int32_t)off + adjust));
	} else if (L->eh.e_type != ET_REL || r->raw.dofpr_addr != 0) {
		fprintf(f, " @ 0x%" PRIx64, r->raw.dofpr_addr + off);
	}
	fputc('\n', f);
}

static void
list_record_sites(lister_t *L, const dofd_probe_t *r, uint64_t secoff, const relset_t *rels)
{
	const relent_t *er = relset_find(rels, secoff + r->addr_offset);
	int probe_adjust = L->macho ? macho_tracepoint_adjust(L->cputype, 0) : 0;
	int enabled_adjust = L->macho ? macho_tracepoint_adjust(L->cputype, 1) : 0;

	for (unsigned k = 0; k < r->raw.dofpr_noffs; k++)
		list_site(L, r, "site", r->offs[k], er, probe_adjust);
	for (unsigned k = 0; k < r->nenoffs; k++)
		list_site(L, r, "is-enabled", r->enoffs[k], er, enabled_adjust);
}

static void
list_dof(lister_t *L, const dof_decoded_t *d, const char *where, uint64_t secoff,
    const relset_t *rels)
{
	FILE *f = L->out;

	fprintf(f, "DOF %s+0x%" PRIx64 ": version %u, %zu provider%s\n", where, secoff,
	    d->version, d->nproviders, d->nproviders == 1 ? "" : "s");
	for (size_t i = 0; i < d->nproviders; i++) {
		const dofd_provider_t *pv = &d->providers[i];

		fprintf(f, "provider %s\n", pv->name);
		for (size_t j = 0; j < pv->nprobes; j++) {
			bool seen = false;

			for (size_t k = 0; k < j && !seen; k++)
				seen = strcmp(pv->probes[k].name, pv->probes[j].name) == 0;
			if (seen)
				continue;
			list_signature(f, &pv->probes[j]);
			for (size_t k = j; k < pv->nprobes; k++)
				if (strcmp(pv->probes[k].name, pv->probes[j].name) == 0)
					list_record_sites(L, &pv->probes[k], secoff, rels);
		}
	}
}

/* ---- DOF: finding and walking ---------------------------------------- */

/* The consumer's base rule, on records with a SETX relocation. */
static void
apply_base(dof_decoded_t *d, uint64_t base)
{
	if (base == 0)
		return;
	for (size_t i = 0; i < d->nproviders; i++)
		for (size_t j = 0; j < d->providers[i].nprobes; j++) {
			dofd_probe_t *r = &d->providers[i].probes[j];

			if (r->reloc != NULL && r->raw.dofpr_addr <= base)
				r->raw.dofpr_addr += base;
		}
}

/* macOS: every probe's base is the address of its DOF (dofhp_addr). */
static void
set_record_bases(dof_decoded_t *d, uint64_t dof_addr)
{
	for (size_t i = 0; i < d->nproviders; i++)
		for (size_t j = 0; j < d->providers[i].nprobes; j++)
			d->providers[i].probes[j].raw.dofpr_addr = dof_addr;
}

static bool
all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != 0)
			return false;
	return true;
}

/*
 * Decode and print every DOF in buf: images at 8-aligned offsets, zero
 * padding between them.  raw: a captured image may stop at dofh_loadsz.
 */
static int
walk_dofs(lister_t *L, const uint8_t *buf, size_t len, const char *where,
    const relset_t *rels, bool raw)
{
	size_t off = 0;

	while (off < len) {
		size_t chunk = len - off < 8 ? len - off : 8;
		dof_decoded_t d;
		dof_hdr_t h;
		unsigned flags = 0;
		err_t de;

		if (all_zero(buf + off, chunk)) {
			off += chunk;
			continue;
		}
		if (raw && len - off >= sizeof(h)) {
			memcpy(&h, buf + off, sizeof(h));
			if (h.dofh_filesz > len - off)
				flags = DOF_DECODE_LOADSZ;
		}
		if (dof_decode_ex(buf + off, len - off, flags, &d, &de) != 0)
			return err_set(L->e, "%s: %s+0x%zx: %s", L->name, where, off, de.msg);
		apply_base(&d, L->o->base);
		if (L->macho && L->eh.e_type != ET_REL)
			set_record_bases(&d, L->dof_addr + off);
		if (L->o->mode == LIST_DUMP)
			dump_dof(L, &d, where, off, rels);
		else
			list_dof(L, &d, where, off, rels);
		L->ndofs++;
		if (flags & DOF_DECODE_LOADSZ)
			off = len;
		else
			off += (d.hdr.dofh_filesz + 7) & ~(uint64_t)7;
		dof_decoded_free(&d);
	}
	return 0;
}

static int
list_dof_section(lister_t *L, Elf_Scn *scn, const GElf_Shdr *sh, const char *name)
{
	Elf_Data *d;
	uint8_t *copy;
	relset_t rels = { NULL, 0 };
	int rc = 0;

	if (sh->sh_type == SHT_NOBITS || sh->sh_size == 0)
		return 0;
	if ((d = elf_getdata(scn, NULL)) == NULL)
		return elf_fail(L, "elf_getdata");
	if (d->d_size == 0 || d->d_buf == NULL)
		return 0;
	if ((copy = malloc(d->d_size)) == NULL)
		return err_set(L->e, "%s: out of memory copying %s", L->name, name);
	memcpy(copy, d->d_buf, d->d_size);
	if (L->eh.e_type == ET_REL)
		rc = collect_relocs(L, elf_ndxscn(scn), &rels);
	else
		rc = apply_dynamic_relocs(L, sh, copy);
	if (rc == 0)
		rc = walk_dofs(L, copy, d->d_size, name, &rels, false);
	free(rels.v);
	free(copy);
	return rc;
}

/* ---- stapsdt notes --------------------------------------------------- */

static int
collect_notes(lister_t *L, Elf_Scn *scn, const char *name)
{
	unsigned asz = L->eh.e_ident[EI_CLASS] == ELFCLASS32 ? 4 : 8;
	relset_t rels = { NULL, 0 };
	stapsdt_notes_t ns;
	Elf_Data *d;
	note_rec_t *v;
	err_t de;
	int rc = -1;

	if ((d = elf_getdata(scn, NULL)) == NULL)
		return elf_fail(L, "elf_getdata");
	if (d->d_buf == NULL || d->d_size == 0)
		return 0;
	if (stapsdt_decode(d->d_buf, d->d_size, asz, &ns, &de) != 0)
		return err_set(L->e, "%s: %s (section %zu): %s", L->name, name,
		    elf_ndxscn(scn), de.msg);
	if (L->eh.e_type == ET_REL && collect_relocs(L, elf_ndxscn(scn), &rels) != 0)
		goto out;
	if ((v = realloc(L->notes, (L->nnotes + ns.n + 1) * sizeof(*v))) == NULL) {
		err_set(L->e, "%s: out of memory reading notes", L->name);
		goto out;
	}
	L->notes = v;
	for (size_t i = 0; i < ns.n; i++) {
		note_rec_t *nr = &L->notes[L->nnotes++];
		const relent_t *r;
		uint64_t at = ns.notes[i].desc_offset;

		memset(nr, 0, sizeof(*nr));
		nr->n = ns.notes[i];
		if ((r = relset_find(&rels, at)) != NULL)
			nr->pc = *r;
		if ((r = relset_find(&rels, at + STAPSDT_BASE * asz)) != NULL)
			nr->base = *r;
		if ((r = relset_find(&rels, at + STAPSDT_SEMAPHORE * asz)) != NULL)
			nr->sem = *r;
	}
	rc = 0;
out:
	free(rels.v);
	stapsdt_notes_free(&ns);
	return rc;
}

static void
put_note_addr(FILE *f, const char *label, uint64_t v, const relent_t *r)
{
	fprintf(f, " %s=", label);
	if (r->sym != NULL)
		put_symref(f, r, 0);
	else
		fprintf(f, "0x%" PRIx64, v);
}

static void
put_note_rel(FILE *f, const char *label, const relent_t *r)
{
	if (r->sym == NULL)
		return;
	fprintf(f, " %s='", label);
	put_symref(f, r, 0);
	fputc('\'', f);
}

/* --dump: every field, then the relocations of an object. */
static void
dump_note(FILE *f, size_t i, const note_rec_t *nr)
{
	const stapsdt_note_t *n = &nr->n;

	fprintf(f, " note[%zu] provider=", i);
	put_quoted(f, n->provider);
	fputs(" name=", f);
	put_quoted(f, n->name);
	fprintf(f, " pc=0x%" PRIx64 " base=0x%" PRIx64 " semaphore=0x%" PRIx64 " args=",
	    n->pc, n->base, n->semaphore);
	put_quoted(f, n->args);
	put_note_rel(f, "pc_rel", &nr->pc);
	put_note_rel(f, "base_rel", &nr->base);
	put_note_rel(f, "sem_rel", &nr->sem);
	fputc('\n', f);
}

/* --list: the probe, where it is, its semaphore, its arguments. */
static void
list_note(FILE *f, const note_rec_t *nr)
{
	const stapsdt_note_t *n = &nr->n;

	fprintf(f, "  %s:%s", n->provider, n->name);
	put_note_addr(f, "pc", n->pc, &nr->pc);
	if (n->semaphore == 0 && nr->sem.sym == NULL)
		fputs(" semaphore=none", f);
	else
		put_note_addr(f, "semaphore", n->semaphore, &nr->sem);
	fputs(" args=", f);
	put_quoted(f, n->args);
	fputc('\n', f);
}

static void
print_notes(lister_t *L)
{
	if (L->nnotes == 0) {
		fputs("no stapsdt notes\n", L->out);
		return;
	}
	fprintf(L->out, "stapsdt notes: %zu\n", L->nnotes);
	for (size_t i = 0; i < L->nnotes; i++) {
		if (L->o->mode == LIST_DUMP)
			dump_note(L->out, i, &L->notes[i]);
		else
			list_note(L->out, &L->notes[i]);
	}
}

/* ---- files ----------------------------------------------------------- */

static bool
is_dof_section(const GElf_Shdr *sh, const char *name)
{
	return sh->sh_type == SHT_SUNW_dof || strcmp(name, DOF_ELF_SECTION) == 0;
}

static bool
is_note_section(const GElf_Shdr *sh, const char *name)
{
	return sh->sh_type == SHT_NOTE && strcmp(name, STAPSDT_NOTE_SECTION) == 0;
}

/* Pass over the sections: DOF first (mode printing), then notes. */
static int
list_elf_sections(lister_t *L, bool notes)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(L->elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *name;

		if (gelf_getshdr(scn, &sh) == NULL)
			return elf_fail(L, "gelf_getshdr");
		if ((name = elf_strptr(L->elf, L->shstrndx, sh.sh_name)) == NULL)
			return elf_fail(L, "elf_strptr");
		if (!notes && is_dof_section(&sh, name) &&
		    list_dof_section(L, scn, &sh, name) != 0)
			return -1;
		if (notes && is_note_section(&sh, name) &&
		    collect_notes(L, scn, name) != 0)
			return -1;
	}
	return 0;
}

static int
list_elf(lister_t *L)
{
	if (elf_kind(L->elf) == ELF_K_AR)
		return err_set(L->e, "%s: is an archive; list its members instead", L->name);
	if (elf_kind(L->elf) != ELF_K_ELF)
		return err_set(L->e, "%s: not an ELF file", L->name);
	if (gelf_getehdr(L->elf, &L->eh) == NULL)
		return elf_fail(L, "gelf_getehdr");
	if (elf_getshdrstrndx(L->elf, &L->shstrndx) != 0)
		return elf_fail(L, "elf_getshdrstrndx");
	if (find_reloc_sections(L) != 0 || list_elf_sections(L, false) != 0)
		return -1;
	if (L->ndofs == 0)
		fputs("no DOF\n", L->out);
	if (list_elf_sections(L, true) != 0)
		return -1;
	print_notes(L);
	return 0;
}

/* ---- Mach-O files ---------------------------------------------------- */

/* The relocation pairs of DOF section i of an object, as one relent per record. */
static int
macho_dof_relset(lister_t *L, const macho_file_t *mf, size_t i, relset_t *rs)
{
	macho_dof_rel_t *v;
	size_t n;
	err_t me;
	int rc = 0;

	memset(rs, 0, sizeof(*rs));
	if (macho_dof_relocs(mf, i, &v, &n, &me) != 0)
		return err_set(L->e, "%s: %s", L->name, me.msg);
	for (size_t k = 0; k < n && rc == 0; k++)
		rc = relset_add(L, rs, &(relent_t){ v[k].addr_offset, v[k].function, 0,
		    v[k].dof });
	free(v);
	return rc;
}

static int
list_macho_dof(lister_t *L, const macho_file_t *mf, size_t i)
{
	const macho_section_t *s = &mf->sects[i];
	relset_t rels = { NULL, 0 };
	char where[40];
	uint8_t *copy;
	int rc = 0;

	if (s->data == NULL || s->size == 0)
		return 0;
	if ((copy = malloc((size_t)s->size)) == NULL)
		return err_set(L->e, "%s: out of memory copying %s", L->name, s->sectname);
	memcpy(copy, s->data, (size_t)s->size);
	snprintf(where, sizeof(where), "%s,%s", s->segname, s->sectname);
	L->dof_addr = s->addr;
	if (L->eh.e_type == ET_REL)
		rc = macho_dof_relset(L, mf, i, &rels);
	if (rc == 0)
		rc = walk_dofs(L, copy, (size_t)s->size, where, &rels, false);
	free(rels.v);
	free(copy);
	return rc;
}

static int
list_macho(lister_t *L, const uint8_t *buf, size_t len)
{
	macho_file_t mf;
	err_t me;
	int rc = 0;

	if (macho_read(buf, len, &mf, &me) != 0)
		return err_set(L->e, "%s: %s", L->name, me.msg);
	L->macho = true;
	L->cputype = mf.cputype;
	L->eh.e_type = mf.filetype == MH_OBJECT ? ET_REL : ET_DYN;
	for (size_t i = 0; i < mf.nsects && rc == 0; i++)
		if (macho_is_dof_section(&mf.sects[i]))
			rc = list_macho_dof(L, &mf, i);
	if (rc == 0 && L->ndofs == 0)
		fputs("no DOF\n", L->out);
	if (rc == 0)
		print_notes(L);
	macho_file_free(&mf);
	return rc;
}

/* A file image the lister may hand to libelf (which wants writable memory). */
static int
list_image(FILE *out, uint8_t *buf, size_t len, const char *name,
    const list_opts_t *o, err_t *e)
{
	lister_t L;
	int rc;

	memset(&L, 0, sizeof(L));
	L.out = out;
	L.o = o;
	L.name = name;
	L.e = e;
	switch (file_magic(buf, len)) {
	case MAGIC_DOF:
		L.eh.e_type = ET_NONE;
		return walk_dofs(&L, buf, len, "DOF file", &(relset_t){ NULL, 0 }, true);
	case MAGIC_MACHO:
		return list_macho(&L, buf, len);
	case MAGIC_ELF:
		break;
	default:
		return err_set(e, "%s: neither an ELF file, a Mach-O file nor a DOF image",
		    name);
	}
	if (elf_version(EV_CURRENT) == EV_NONE)
		return err_set(e, "%s: elf_version: libelf is out of date: %s",
		    name, elf_errmsg(-1));
	if ((L.elf = elf_memory((char *)buf, len)) == NULL)
		return elf_fail(&L, "elf_memory");
	rc = list_elf(&L);
	elf_end(L.elf);
	free(L.notes);
	free(L.relsecs);
	return rc;
}

int
list_buffer(FILE *out, const void *buf, size_t len, const char *name,
    const list_opts_t *o, err_t *e)
{
	uint8_t *copy = malloc(len ? len : 1);
	int rc;

	if (copy == NULL)
		return err_set(e, "%s: out of memory", name);
	memcpy(copy, buf, len);
	rc = list_image(out, copy, len, name, o, e);
	free(copy);
	return rc;
}

int
list_file_ex(FILE *out, const char *path, const list_opts_t *o, err_t *e)
{
	uint8_t *buf = NULL;
	size_t len = 0;
	int rc;

	if (file_read_regular(path, &buf, &len, NULL, e) != 0)
		return -1;
	rc = list_image(out, buf, len, path, o, e);
	free(buf);
	return rc;
}

int
list_file(FILE *out, const char *path, err_t *e)
{
	list_opts_t o = { LIST_SUMMARY, 0 };

	return list_file_ex(out, path, &o, e);
}

int
dump_file(FILE *out, const char *path, err_t *e)
{
	list_opts_t o = { LIST_DUMP, 0 };

	return list_file_ex(out, path, &o, e);
}
