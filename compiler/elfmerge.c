/*
 * elfmerge.c - copying a small relocatable object into an elfw builder
 * (elfw_merge_rel, elfwrite.h), and what stands in for it after `ld -r`
 * (elfw_localize_symbol).
 *
 * `usdtc -G` puts drti_lite (runtime/drti_lite.c, embedded in usdtc by
 * drti_blob.S) into its output.  It used to run `ld -r` for that, which
 * costs a process, anonymous files for its inputs, and a linker pass over
 * every section of the output, of which a provider has several a probe
 * (`bench/compile` times -G of a 10,000-probe provider).  drti_lite is ours,
 * small and of a known shape, so the builder takes it in directly and
 * does what `ld -r` does with such an object:
 *
 *  - each content section (SHT_PROGBITS, SHT_NOBITS, SHT_NOTE, the init,
 *    fini and preinit arrays, and on x86_64 SHT_X86_64_UNWIND, the type
 *    LLVM gives .eh_frame) becomes a builder section with the same name,
 *    type, flags, alignment and bytes.  It is never concatenated with a
 *    section of the builder, so no byte moves and no relocation has to be
 *    understood: each RELA entry is copied with its type, offset and
 *    addend, and only its symbol is renumbered;
 *  - symbols: a section symbol becomes the builder's section symbol of the
 *    copy; local and defined symbols are copied; an undefined symbol binds
 *    to the builder's global or weak symbol of that name (this is how
 *    drti_lite's reference to __SUNW_dof meets the DOF, which the caller
 *    may then make local), or else becomes an undefined symbol of the
 *    builder.  The writer puts local symbols first, as the gABI wants;
 *  - the image's .note.GNU-stack marker is not copied: it must not ask
 *    for an executable stack, and the builder's own marker then speaks for
 *    both;
 *  - LLVM's address-significance table (.llvm_addrsig, from clang) is
 *    left out: it names symbols by index, and without it a linker treats
 *    every symbol as address-significant, which is the safe reading.
 *
 *  - the image's GNU property note (.note.gnu.property) is not copied:
 *    its meaning is a combination over every input (ld -r ANDs the x86
 *    feature bits of all of them), and the builder's other sections are
 *    not described by it.  elfw_x86_feature_1() reads the image's bits, and
 *    the caller writes the one note of the output (objgen.c ANDs them with
 *    what its own code satisfies).  Leaving it out can only take a claim
 *    away, never make one.
 *
 * Everything else is refused with an error that names it, never dropped:
 * SHT_REL (its addends live in the section bytes, one format per
 * relocation type), groups, sections that link to other sections,
 * common symbols, a global symbol the builder already has, a relocation
 * that applies to or refers to something not copied.  tests/merge checks
 * the result against `ld -r` of the same inputs.
 *
 * When a linker is named (-x ldpath=), -G runs `ld -r` instead of this
 * merge, and GNU ld ignores version scripts under -r, so __SUNW_dof comes
 * out global; elfw_localize_symbol, at the end of this file, then makes it
 * local in the linker's output, in place.  It is the one routine of the
 * core that edits an existing file.  (The merge makes the symbol local in
 * the builder instead: elfw_set_symbol_bind.)
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elfenc.h"
#include "elfwrite.h"

#ifndef SHT_LLVM_ADDRSIG
#define SHT_LLVM_ADDRSIG	0x6fff4c03
#endif
#ifndef SHT_X86_64_UNWIND
#define SHT_X86_64_UNWIND	0x70000001
#endif
#ifndef SHF_GNU_RETAIN
#define SHF_GNU_RETAIN		(1u << 21)
#endif

/* Flags a copied section may carry: none of them refers to another section. */
#define COPYABLE_FLAGS	(SHF_WRITE | SHF_ALLOC | SHF_EXECINSTR | SHF_MERGE | \
	SHF_STRINGS | SHF_TLS | SHF_EXCLUDE | SHF_GNU_RETAIN)

/* One merge: the image, what became of its sections and symbols. */
typedef struct merge {
	elfw_t *w;
	Elf *elf;
	const char *what;	/* the image's name, for errors */
	err_t *e;
	size_t nsecs;		/* section headers, the null one included */
	size_t shstrndx;
	int *secmap;		/* input section index -> builder handle, 0 = none */
	size_t symtab;		/* the symbol table's section index */
	GElf_Shdr symtab_sh;
	Elf_Data *syms;
	Elf_Data *xndx;		/* SHT_SYMTAB_SHNDX data, or NULL */
	size_t nsyms;
	int *symmap;		/* input symbol index -> builder handle, 0 = none */
} merge_t;

/* What becomes of one input section. */
enum fate { FATE_COPY, FATE_TABLE, FATE_RELOCS, FATE_LEAVE };

static int
fail_libelf(merge_t *m, const char *call)
{
	return err_libelf(m->e, m->what, call);
}

static const char *
section_name(const merge_t *m, const GElf_Shdr *sh)
{
	const char *name = elf_strptr(m->elf, m->shstrndx, sh->sh_name);

	return name != NULL ? name : "(unnamed)";
}

static const char *
symbol_name(const merge_t *m, const GElf_Sym *sym)
{
	const char *name = elf_strptr(m->elf, m->symtab_sh.sh_link, sym->st_name);

	return name != NULL ? name : "";
}

/* The image must be a relocatable object of the builder's class and machine. */
static int
check_header(merge_t *m, unsigned elf_class, unsigned machine)
{
	GElf_Ehdr eh;

	if (elf_kind(m->elf) != ELF_K_ELF || gelf_getehdr(m->elf, &eh) == NULL)
		return err_set(m->e, "%s: not an ELF object: %s", m->what, elf_errmsg(-1));
	if (eh.e_type != ET_REL)
		return err_set(m->e, "%s: not a relocatable object (ELF type %u)", m->what,
		    eh.e_type);
	if ((unsigned)gelf_getclass(m->elf) != elf_class || eh.e_machine != machine ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB)
		return err_set(m->e, "%s: ELF class %d, machine %u: the object being "
		    "built is class %u, machine %u, little-endian", m->what,
		    gelf_getclass(m->elf), eh.e_machine, elf_class, machine);
	if (elf_getshdrnum(m->elf, &m->nsecs) != 0)
		return fail_libelf(m, "elf_getshdrnum");
	if (elf_getshdrstrndx(m->elf, &m->shstrndx) != 0)
		return fail_libelf(m, "elf_getshdrstrndx");
	return 0;
}

/* The one symbol table and its extended index section, if any. */
static int
find_symtab(merge_t *m)
{
	Elf_Scn *scn = NULL, *xscn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(m->elf, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) == NULL)
			return fail_libelf(m, "gelf_getshdr");
		if (sh.sh_type == SHT_SYMTAB) {
			if (m->symtab != 0)
				return err_set(m->e, "%s: more than one symbol table", m->what);
			m->symtab = elf_ndxscn(scn);
			m->symtab_sh = sh;
			if ((m->syms = elf_getdata(scn, NULL)) == NULL)
				return fail_libelf(m, "elf_getdata");
		} else if (sh.sh_type == SHT_SYMTAB_SHNDX) {
			xscn = scn;
		}
	}
	/* No symbol table is fine for an object without relocations (copy_relocs). */
	if (xscn != NULL && (m->xndx = elf_getdata(xscn, NULL)) == NULL)
		return fail_libelf(m, "elf_getdata");
	m->nsyms = m->symtab_sh.sh_entsize ? m->symtab_sh.sh_size / m->symtab_sh.sh_entsize : 0;
	return 0;
}

static bool
is_content_type(const merge_t *m, uint32_t type)
{
	GElf_Ehdr eh;

	switch (type) {
	case SHT_PROGBITS: case SHT_NOBITS: case SHT_NOTE:
	case SHT_INIT_ARRAY: case SHT_FINI_ARRAY: case SHT_PREINIT_ARRAY:
		return true;
	case SHT_X86_64_UNWIND:
		return gelf_getehdr(m->elf, &eh) != NULL && eh.e_machine == EM_X86_64;
	default:
		return false;
	}
}

/* Decide what becomes of section idx; -1 with the reason if it is refused. */
static int
section_fate(merge_t *m, size_t idx, const GElf_Shdr *sh, enum fate *fate)
{
	const char *name = section_name(m, sh);

	if (sh->sh_type == SHT_SYMTAB || sh->sh_type == SHT_SYMTAB_SHNDX ||
	    (sh->sh_type == SHT_STRTAB && (idx == m->shstrndx || idx == m->symtab_sh.sh_link))) {
		*fate = FATE_TABLE;
	} else if (sh->sh_type == SHT_RELA) {
		*fate = FATE_RELOCS;
	} else if (sh->sh_type == SHT_LLVM_ADDRSIG) {
		*fate = FATE_LEAVE;
	} else if (strcmp(name, ".note.GNU-stack") == 0 && sh->sh_type == SHT_PROGBITS) {
		if (sh->sh_flags & SHF_EXECINSTR)
			return err_set(m->e, "%s: .note.GNU-stack asks for an executable stack",
			    m->what);
		*fate = FATE_LEAVE;
	} else if (strcmp(name, ".note.gnu.property") == 0 && sh->sh_type == SHT_NOTE) {
		*fate = FATE_LEAVE;	/* see elfw_x86_feature_1 */
	} else if (sh->sh_type == SHT_REL) {
		return err_set(m->e, "%s: section %s is SHT_REL; only RELA relocations "
		    "can be merged", m->what, name);
	} else if (!is_content_type(m, sh->sh_type)) {
		return err_set(m->e, "%s: section %s has type 0x%x, which cannot be merged",
		    m->what, name, (unsigned)sh->sh_type);
	} else if ((sh->sh_flags & ~(GElf_Xword)COPYABLE_FLAGS) != 0) {
		return err_set(m->e, "%s: section %s has flags 0x%llx, which cannot be merged",
		    m->what, name, (unsigned long long)(sh->sh_flags & ~(GElf_Xword)COPYABLE_FLAGS));
	} else if (sh->sh_link != 0 || sh->sh_info != 0) {
		return err_set(m->e, "%s: section %s links to other sections, which "
		    "cannot be merged", m->what, name);
	} else {
		*fate = FATE_COPY;
	}
	return 0;
}

static int
copy_section(merge_t *m, Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *data = NULL;
	elfw_section_desc_t d = { 0 };

	if (sh->sh_type != SHT_NOBITS && sh->sh_size > 0 &&
	    ((data = elf_getdata(scn, NULL)) == NULL || data->d_size != sh->sh_size))
		return fail_libelf(m, "elf_getdata");
	d.name = section_name(m, sh);
	d.type = sh->sh_type;
	d.flags = sh->sh_flags;
	d.align = sh->sh_addralign;
	d.entsize = sh->sh_entsize;
	d.data = data != NULL ? data->d_buf : NULL;
	d.size = sh->sh_size;
	if ((m->secmap[elf_ndxscn(scn)] = elfw_add_section(m->w, &d)) < 0) {
		elfw_failed(m->w, m->e);
		return -1;
	}
	return 0;
}

/* Copy every content section; check the others. */
static int
copy_sections(merge_t *m)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(m->elf, scn)) != NULL) {
		enum fate fate = FATE_LEAVE;

		if (gelf_getshdr(scn, &sh) == NULL)
			return fail_libelf(m, "gelf_getshdr");
		if (section_fate(m, elf_ndxscn(scn), &sh, &fate) != 0)
			return -1;
		if (fate == FATE_COPY && copy_section(m, scn, &sh) != 0)
			return -1;
	}
	return 0;
}

/*
 * The builder symbol an undefined symbol of the image binds to: the
 * builder's global or weak symbol of that name, or a new undefined one.
 */
static int
bind_undefined(merge_t *m, const char *name, const GElf_Sym *sym)
{
	elfw_symbol_desc_t d;
	int h = elfw_find_symbol(m->w, name);

	if (h > 0 && elfw_symbol_info(m->w, h, &d) == 0 && d.bind != STB_LOCAL)
		return h;
	d = (elfw_symbol_desc_t){ name, ELFW_UNDEF, 0, 0, GELF_ST_BIND(sym->st_info),
	    GELF_ST_TYPE(sym->st_info), GELF_ST_VISIBILITY(sym->st_other) };
	return elfw_add_symbol(m->w, &d);
}

/* A symbol defined in a copied section (or absolute). */
static int
copy_defined(merge_t *m, const char *name, const GElf_Sym *sym, int section)
{
	unsigned bind = GELF_ST_BIND(sym->st_info);
	elfw_symbol_desc_t d;
	int h;

	if (bind != STB_LOCAL && (h = elfw_find_symbol(m->w, name)) > 0 &&
	    elfw_symbol_info(m->w, h, &d) == 0 && d.bind != STB_LOCAL)
		return err_set(m->e, "%s: defines %s, a global symbol the object being "
		    "built already has", m->what, name);
	d = (elfw_symbol_desc_t){ name, section, sym->st_value, sym->st_size, bind,
	    GELF_ST_TYPE(sym->st_info), GELF_ST_VISIBILITY(sym->st_other) };
	return elfw_add_symbol(m->w, &d);
}

/* The builder symbol for input symbol i; 0 if it is not copied, -1 on error. */
static int
map_symbol(merge_t *m, size_t i)
{
	GElf_Sym sym;
	Elf32_Word xndx = 0;
	const char *name;
	size_t shndx;

	if (gelf_getsymshndx(m->syms, m->xndx, (int)i, &sym, &xndx) == NULL)
		return fail_libelf(m, "gelf_getsymshndx");
	name = symbol_name(m, &sym);
	shndx = sym.st_shndx == SHN_XINDEX ? xndx : sym.st_shndx;
	if (GELF_ST_TYPE(sym.st_info) == STT_SECTION)
		return shndx < m->nsecs && m->secmap[shndx] > 0 ?
		    elfw_section_symbol(m->w, m->secmap[shndx]) : 0;
	if (sym.st_shndx == SHN_UNDEF) {
		if (GELF_ST_BIND(sym.st_info) == STB_LOCAL)
			return err_set(m->e, "%s: local symbol %s is undefined", m->what, name);
		return bind_undefined(m, name, &sym);
	}
	if (sym.st_shndx == SHN_ABS)
		return copy_defined(m, name, &sym, ELFW_ABS);
	if (sym.st_shndx != SHN_XINDEX && sym.st_shndx >= SHN_LORESERVE)
		return err_set(m->e, "%s: symbol %s has section index 0x%x (common or "
		    "processor-specific), which cannot be merged", m->what, name, sym.st_shndx);
	if (shndx >= m->nsecs || m->secmap[shndx] <= 0)
		return err_set(m->e, "%s: symbol %s is defined in section %zu, which is "
		    "not merged", m->what, name, shndx);
	return copy_defined(m, name, &sym, m->secmap[shndx]);
}

static int
map_symbols(merge_t *m)
{
	if ((m->symmap = calloc(m->nsyms + 1, sizeof(int))) == NULL)
		return err_errno(m->e, ENOMEM, "%s", m->what);
	for (size_t i = 1; i < m->nsyms; i++) {
		if ((m->symmap[i] = map_symbol(m, i)) < 0) {
			elfw_failed(m->w, m->e);	/* the builder's message, if it failed */
			return -1;
		}
	}
	return 0;
}

/* Copy one RELA section's entries onto the copy of the section they patch. */
static int
copy_relocs(merge_t *m, Elf_Scn *scn, const GElf_Shdr *sh)
{
	const char *name = section_name(m, sh);
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n, target = sh->sh_info;
	GElf_Shdr tsh;

	if (data == NULL)
		return fail_libelf(m, "elf_getdata");
	if (m->symtab == 0 || sh->sh_link != m->symtab)
		return err_set(m->e, "%s: %s uses another symbol table, or none", m->what, name);
	if (target == 0 || target >= m->nsecs || m->secmap[target] <= 0 ||
	    gelf_getshdr(elf_getscn(m->elf, target), &tsh) == NULL)
		return err_set(m->e, "%s: %s applies to section %zu, which is not merged",
		    m->what, name, target);
	if (sh->sh_entsize != gelf_fsize(m->elf, ELF_T_RELA, 1, EV_CURRENT))
		return err_set(m->e, "%s: %s has entries of %llu bytes", m->what, name,
		    (unsigned long long)sh->sh_entsize);
	n = sh->sh_size / sh->sh_entsize;
	for (size_t i = 0; i < n; i++) {
		GElf_Rela r;
		size_t sym;

		if (gelf_getrela(data, (int)i, &r) == NULL)
			return fail_libelf(m, "gelf_getrela");
		sym = GELF_R_SYM(r.r_info);
		if (sym >= m->nsyms || (sym != 0 && m->symmap[sym] == 0))
			return err_set(m->e, "%s: relocation %zu of %s refers to symbol %zu, "
			    "which is not merged", m->what, i, name, sym);
		if (tsh.sh_type == SHT_NOBITS || r.r_offset >= tsh.sh_size)
			return err_set(m->e, "%s: relocation %zu of %s lies outside its section",
			    m->what, i, name);
		if (elfw_add_reloc(m->w, m->secmap[target], r.r_offset,
		    (unsigned)GELF_R_TYPE(r.r_info), m->symmap[sym], r.r_addend) != 0) {
			elfw_failed(m->w, m->e);
			return -1;
		}
	}
	return 0;
}

static int
copy_all_relocs(merge_t *m)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(m->elf, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) == NULL)
			return fail_libelf(m, "gelf_getshdr");
		if (sh.sh_type == SHT_RELA && copy_relocs(m, scn, &sh) != 0)
			return -1;
	}
	return 0;
}

int
elfw_merge_rel(elfw_t *w, const void *image, size_t size, const char *what,
    err_t *e)
{
	merge_t m = { 0 };
	char *copy;
	unsigned elf_class, machine;
	int rc = -1;

	if (elfw_failed(w, e))
		return -1;
	elfw_class_and_machine(w, &elf_class, &machine);
	/* libelf wants a writable buffer; the image is read-only data. */
	if ((copy = malloc(size ? size : 1)) == NULL)
		return err_errno(e, ENOMEM, "%s", what);
	memcpy(copy, image, size);
	m.w = w;
	m.what = what;
	m.e = e;
	if ((m.elf = elf_memory(copy, size)) == NULL) {
		fail_libelf(&m, "elf_memory");
		free(copy);
		return -1;
	}
	if (check_header(&m, elf_class, machine) == 0 && find_symtab(&m) == 0) {
		if ((m.secmap = calloc(m.nsecs + 1, sizeof(int))) == NULL)
			err_errno(e, ENOMEM, "%s", what);
		else if (copy_sections(&m) == 0 && map_symbols(&m) == 0 &&
		    copy_all_relocs(&m) == 0)
			rc = 0;
	}
	elf_end(m.elf);
	free(m.secmap);
	free(m.symmap);
	free(copy);
	return rc;
}

/* ---- the image's GNU property note ---------------------------------------- */

/* The X86_FEATURE_1_AND value in one note's properties, or 0. */
static uint32_t
property_x86_feature_1(const uint8_t *desc, size_t size, size_t align)
{
	size_t at = 0;

	while (size - at >= 8) {
		uint32_t type, datasz, bits;

		memcpy(&type, desc + at, 4);
		memcpy(&datasz, desc + at + 4, 4);
		at += 8;
		if (datasz > size - at)
			return 0;
		if (type == ELFENC_X86_FEATURE_1_AND && datasz == 4) {
			memcpy(&bits, desc + at, 4);
			return bits;
		}
		at += (datasz + align - 1) / align * align;
		if (at > size)
			return 0;
	}
	return 0;
}

/* The bits of the .note.gnu.property section scn, or 0. */
static uint32_t
note_x86_feature_1(Elf *elf, Elf_Scn *scn)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t off = 0, name_off, desc_off;
	size_t align = elfenc_addr_size(gelf_getclass(elf));
	GElf_Nhdr nh;

	while (d != NULL && (off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == ELFENC_NT_GNU_PROPERTY_TYPE_0 && nh.n_namesz == 4 &&
		    memcmp((const char *)d->d_buf + name_off, "GNU", 4) == 0)
			return property_x86_feature_1((const uint8_t *)d->d_buf + desc_off,
			    nh.n_descsz, align);
	}
	return 0;
}

uint32_t
elfw_x86_feature_1(const void *image, size_t size)
{
	char *copy = malloc(size ? size : 1);
	Elf *elf;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	uint32_t bits = 0;

	if (copy == NULL || elf_version(EV_CURRENT) == EV_NONE) {
		free(copy);
		return 0;
	}
	memcpy(copy, image, size);
	if ((elf = elf_memory(copy, size)) != NULL && elf_getshdrstrndx(elf, &shstrndx) == 0) {
		while ((scn = elf_nextscn(elf, scn)) != NULL) {
			GElf_Shdr sh;
			const char *name;

			if (gelf_getshdr(scn, &sh) != NULL && sh.sh_type == SHT_NOTE &&
			    (name = elf_strptr(elf, shstrndx, sh.sh_name)) != NULL &&
			    strcmp(name, ".note.gnu.property") == 0) {
				bits = note_x86_feature_1(elf, scn);
				break;
			}
		}
	}
	if (elf != NULL)
		elf_end(elf);
	free(copy);
	return bits;
}

/* ---- localizing a symbol in an existing object -------------------------- */

/* The symbol table section of elf, or NULL. */
static Elf_Scn *
symtab_of(Elf *elf, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn)) != NULL)
		if (gelf_getshdr(scn, sh) != NULL && sh->sh_type == SHT_SYMTAB)
			return scn;
	return NULL;
}

/* Index of the symbol called name among [from, to), or 0. */
static size_t
find_named(Elf *elf, Elf_Data *syms, const GElf_Shdr *sh, const char *name,
    size_t from, size_t to)
{
	for (size_t i = from; i < to; i++) {
		GElf_Sym s;
		const char *n;

		if (gelf_getsym(syms, (int)i, &s) == NULL)
			continue;
		n = elf_strptr(elf, sh->sh_link, s.st_name);
		if (n != NULL && strcmp(n, name) == 0)
			return i;
	}
	return 0;
}

static size_t
swapped(size_t index, size_t a, size_t b)
{
	return index == a ? b : index == b ? a : index;
}

/* Renumber the relocations of one REL/RELA section after swapping a and b. */
static int
renumber_relocs(Elf_Scn *scn, const GElf_Shdr *sh, size_t a, size_t b,
    const char *path, err_t *e)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;

	if (data == NULL)
		return err_libelf(e, path, "elf_getdata");
	/* A REL entry is a RELA entry without the addend: one path for both. */
	for (size_t i = 0; i < n; i++) {
		bool rela = sh->sh_type == SHT_RELA;
		GElf_Rela r = { 0 };
		GElf_Rel rel = { 0 };

		if (rela ? gelf_getrela(data, (int)i, &r) == NULL :
		    gelf_getrel(data, (int)i, &rel) == NULL)
			return err_libelf(e, path, rela ? "gelf_getrela" : "gelf_getrel");
		if (!rela)
			r.r_info = rel.r_info;
		r.r_info = GELF_R_INFO(swapped(GELF_R_SYM(r.r_info), a, b),
		    GELF_R_TYPE(r.r_info));
		rel.r_info = r.r_info;
		if ((rela ? gelf_update_rela(data, (int)i, &r) :
		    gelf_update_rel(data, (int)i, &rel)) == 0)
			return err_libelf(e, path, rela ? "gelf_update_rela" : "gelf_update_rel");
	}
	elf_flagdata(data, ELF_C_SET, ELF_F_DIRTY);
	return 0;
}

static int
swap_shndx_words(Elf_Scn *scn, size_t a, size_t b, const char *path, err_t *e)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	uint32_t *words, t;

	if (data == NULL)
		return err_libelf(e, path, "elf_getdata");
	words = data->d_buf;
	if ((a + 1) * 4 > data->d_size || (b + 1) * 4 > data->d_size)
		return err_set(e, "%s: SHT_SYMTAB_SHNDX is shorter than the symbol table", path);
	t = words[a];
	words[a] = words[b];
	words[b] = t;
	elf_flagdata(data, ELF_C_SET, ELF_F_DIRTY);
	return 0;
}

/* Fix every section that names symbols by index after swapping a and b. */
static int
renumber_users(Elf *elf, size_t symtab, size_t a, size_t b, const char *path,
    err_t *e)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) == NULL)
			return err_libelf(e, path, "gelf_getshdr");
		if (sh.sh_link != symtab)
			continue;
		if (sh.sh_type == SHT_REL || sh.sh_type == SHT_RELA) {
			if (renumber_relocs(scn, &sh, a, b, path, e) != 0)
				return -1;
		} else if (sh.sh_type == SHT_GROUP) {
			sh.sh_info = (GElf_Word)swapped(sh.sh_info, a, b);
			if (gelf_update_shdr(scn, &sh) == 0)
				return err_libelf(e, path, "gelf_update_shdr");
		} else if (sh.sh_type == SHT_SYMTAB_SHNDX) {
			if (swap_shndx_words(scn, a, b, path, e) != 0)
				return -1;
		}
	}
	return 0;
}

/*
 * Swap the global symbol at k with the first global (index sh_info), make
 * it local and move the boundary past it.
 */
static int
localize_in(Elf *elf, const char *path, const char *name, err_t *e)
{
	GElf_Shdr sh;
	Elf_Scn *scn = symtab_of(elf, &sh);
	Elf_Data *syms;
	size_t n, first, k;
	GElf_Sym sk, sf;

	if (scn == NULL)
		return err_set(e, "%s: no symbol table", path);
	if ((syms = elf_getdata(scn, NULL)) == NULL)
		return err_libelf(e, path, "elf_getdata");
	n = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
	first = sh.sh_info;
	if (find_named(elf, syms, &sh, name, 1, first < n ? first : n) != 0)
		return 0;	/* already local */
	if ((k = find_named(elf, syms, &sh, name, first, n)) == 0)
		return err_set(e, "%s: no global symbol %s to make local", path, name);
	if (gelf_getsym(syms, (int)k, &sk) == NULL ||
	    gelf_getsym(syms, (int)first, &sf) == NULL)
		return err_libelf(e, path, "gelf_getsym");
	sk.st_info = GELF_ST_INFO(STB_LOCAL, GELF_ST_TYPE(sk.st_info));
	if (gelf_update_sym(syms, (int)first, &sk) == 0 ||
	    gelf_update_sym(syms, (int)k, &sf) == 0)
		return err_libelf(e, path, "gelf_update_sym");
	elf_flagdata(syms, ELF_C_SET, ELF_F_DIRTY);
	sh.sh_info = (GElf_Word)(first + 1);
	if (gelf_update_shdr(scn, &sh) == 0)
		return err_libelf(e, path, "gelf_update_shdr");
	return renumber_users(elf, elf_ndxscn(scn), k, first, path, e);
}

int
elfw_localize_symbol(const char *path, const char *name, err_t *e)
{
	Elf *elf;
	int fd, rc = -1;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return err_set(e, "libelf is out of date: elf_version failed: %s",
		    elf_errmsg(-1));
	if ((fd = open(path, O_RDWR | O_CLOEXEC)) < 0)
		return err_errno(e, errno, "%s", path);
	if ((elf = elf_begin(fd, ELF_C_RDWR, NULL)) == NULL) {
		err_libelf(e, path, "elf_begin");
		close(fd);
		return -1;
	}
	if (elf_kind(elf) != ELF_K_ELF) {
		err_set(e, "%s: not an ELF object", path);
		goto out;
	}
	/* Keep the linker's layout: only bytes inside sections change. */
	elf_flagelf(elf, ELF_C_SET, ELF_F_LAYOUT);
	if (localize_in(elf, path, name, e) != 0)
		goto out;
	if (elf_update(elf, ELF_C_WRITE) < 0) {
		err_libelf(e, path, "elf_update");
		goto out;
	}
	rc = 0;
out:
	elf_end(elf);
	if (close(fd) != 0 && rc == 0)
		rc = err_errno(e, errno, "%s", path);
	return rc;
}
