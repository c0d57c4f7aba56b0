/*
 * rewrite_obj.c - one object of -G, read once for the rewrite: its
 * sections, symbols, COMDAT groups and functions, checked and indexed
 * (object_t), and the small map from names to indices the indexes use.
 *
 * Planning (rewrite_plan.c) decides on these tables and writing
 * (rewrite_write.c) patches through them; neither is called from here, so
 * the rewrite's files call only downwards: objgen.c -> plan, write ->
 * this file and rewrite_insn.c.  Nothing here prints: -v explanations go
 * to the caller's callback (rewrite_note).
 */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "hash.h"
#include "idset.h"
#include "objin.h"
#include "rewrite_int.h"
#include "strbuf.h"


/* ---- a small map from names to indices ------------------------------------ */


static uint32_t
hash_name(const char *s)
{
	return hash32_bytes(HASH32_FNV_OFFSET, s, strlen(s));
}

static bool
entry_key_is(const void *ctx, size_t id, const void *key)
{
	return strcmp(((const name_map_t *)ctx)->entries[id].key, key) == 0;
}

int
rewrite_map_init(name_map_t *map, size_t expected)
{
	idset_init(&map->set);
	map->n = 0;
	map->cap = expected;
	map->entries = calloc(expected ? expected : 1, sizeof(name_entry_t));
	if (map->entries == NULL || !idset_reserve(&map->set, expected)) {
		free(map->entries);
		map->entries = NULL;
		map->cap = 0;
		return -1;
	}
	return 0;
}

void
rewrite_map_free(name_map_t *map)
{
	free(map->entries);
	map->entries = NULL;
	map->cap = map->n = 0;
	idset_free(&map->set);
}

/* The value stored for key, or (size_t)-1. */
size_t
rewrite_map_get(const name_map_t *map, const char *key)
{
	size_t id = idset_find(&map->set, hash_str(HASH_FNV_OFFSET, key), entry_key_is, map, key);

	return id == IDSET_NONE ? (size_t)-1 : map->entries[id].val;
}

/* Insert (the first value for a key wins); key must outlive the map. */
void
rewrite_map_put(name_map_t *map, const char *key, size_t val)
{
	uint64_t h = hash_str(HASH_FNV_OFFSET, key);

	if (map->n == map->cap)
		return;		/* sized by map_init; never happens */
	if (idset_find(&map->set, h, entry_key_is, map, key) != IDSET_NONE)
		return;
	map->entries[map->n] = (name_entry_t){ key, val };
	if (idset_add(&map->set, h, map->n))	/* reserved by map_init */
		map->n++;
}

/* Whether name is a probe or is-enabled function of a unit. */
bool
rewrite_is_probe_function(const char *name)
{
	return strncmp(name, MDL_PROBE_PREFIX, sizeof(MDL_PROBE_PREFIX) - 1) == 0 ||
	    strncmp(name, MDL_ENABLED_PREFIX, sizeof(MDL_ENABLED_PREFIX) - 1) == 0;
}

/* ---- one object: its tables ----------------------------------------------- */

void
rewrite_note(const object_t *ob, const char *fmt, ...)
{
	char msg[512];
	int n;
	va_list ap;

	if (ob->o == NULL || ob->o->note == NULL)
		return;
	n = snprintf(msg, sizeof(msg), "%s: ", ob->path);
	if (n < 0 || (size_t)n >= sizeof(msg))
		n = 0;
	va_start(ap, fmt);
	vsnprintf(msg + n, sizeof(msg) - (size_t)n, fmt, ap);
	va_end(ap);
	ob->o->note(ob->o->note_ctx, msg);
}

uint32_t
rewrite_alias_key(const char *path)
{
	return hash_name(path);
}

/* Symbol i, with its real section index; false if unreadable. */
bool
rewrite_get_sym(const object_t *ob, size_t i, GElf_Sym *sym, size_t *shndx)
{
	Elf32_Word x = 0;

	if (gelf_getsymshndx(ob->syms, ob->xndx, (int)i, sym, &x) == NULL)
		return false;
	*shndx = sym->st_shndx == SHN_XINDEX ? x : sym->st_shndx;
	return true;
}

const char *
rewrite_sym_name(const object_t *ob, const GElf_Sym *sym)
{
	const char *s = elf_strptr(ob->elf, ob->symsh.sh_link, sym->st_name);

	return s ? s : "";
}

const char *
rewrite_section_name(const object_t *ob, size_t idx)
{
	Elf_Scn *scn = elf_getscn(ob->elf, idx);
	GElf_Shdr sh;
	const char *s = NULL;

	if (scn != NULL && gelf_getshdr(scn, &sh) != NULL)
		s = elf_strptr(ob->elf, ob->shstrndx, sh.sh_name);
	return s ? s : "?";
}

/* Mark the members of COMDAT groups, and of probe groups in particular. */
static int
find_groups(object_t *ob, err_t *e)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	ob->probe_group = calloc(ob->nsections + 1, sizeof(bool));
	ob->grouped = calloc(ob->nsections + 1, sizeof(bool));
	if (ob->probe_group == NULL || ob->grouped == NULL)
		return err_errno(e, ENOMEM, "%s", ob->path);
	while ((scn = elf_nextscn(ob->elf, scn)) != NULL) {
		Elf_Data *data;
		GElf_Sym sig;
		size_t shndx;
		bool probe;

		if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type != SHT_GROUP)
			continue;
		if ((data = elf_getdata(scn, NULL)) == NULL)
			return err_libelf(e, ob->path, "elf_getdata");
		probe = sh.sh_link == ob->symndx && rewrite_get_sym(ob, sh.sh_info, &sig, &shndx) &&
		    rewrite_is_probe_function(rewrite_sym_name(ob, &sig));
		for (size_t k = 1; k < data->d_size / 4; k++) {
			uint32_t member;

			memcpy(&member, (const char *)data->d_buf + 4 * k, 4);
			if (member < ob->nsections) {
				ob->grouped[member] = true;
				ob->probe_group[member] |= probe;
			}
		}
	}
	return 0;
}

static int
compare_funcs(const void *a, const void *b)
{
	const func_sym_t *x = a, *y = b;

	if (x->shndx != y->shndx)
		return x->shndx < y->shndx ? -1 : 1;
	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank > y->rank ? -1 : 1;	/* preferred first */
	return x->index < y->index ? -1 : x->index > y->index;
}

/* Preference among function symbols at one address. */
static int
func_rank(const GElf_Sym *sym)
{
	int rank = sym->st_size > 0 ? 4 : 0;

	switch (GELF_ST_BIND(sym->st_info)) {
	case STB_GLOBAL: return rank + 3;
	case STB_WEAK: return rank + 2;
	default: return rank + 1;
	}
}

/* The function symbols (not our aliases), and a map of defined names. */
static int
index_symbols(object_t *ob, err_t *e)
{
	if (rewrite_map_init(&ob->defined, ob->nsyms) != 0 ||
	    (ob->funcs = calloc(ob->nsyms + 1, sizeof(func_sym_t))) == NULL)
		return err_errno(e, ENOMEM, "%s", ob->path);
	for (size_t i = 1; i < ob->nsyms; i++) {
		GElf_Sym sym;
		size_t shndx;
		const char *name;

		if (!rewrite_get_sym(ob, i, &sym, &shndx))
			return err_libelf(e, ob->path, "gelf_getsymshndx");
		if (sym.st_shndx == SHN_UNDEF || shndx >= ob->nsections ||
		    GELF_ST_TYPE(sym.st_info) == STT_SECTION)
			continue;
		name = rewrite_sym_name(ob, &sym);
		if (*name != '\0' && GELF_ST_BIND(sym.st_info) != STB_LOCAL)
			rewrite_map_put(&ob->defined, name, i);
		if (GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    strncmp(name, ALIAS_PREFIX, sizeof(ALIAS_PREFIX) - 1) == 0)
			continue;
		ob->funcs[ob->nfuncs++] = (func_sym_t){ shndx, sym.st_value,
		    sym.st_size, i, func_rank(&sym) };
	}
	qsort(ob->funcs, ob->nfuncs, sizeof(func_sym_t), compare_funcs);
	return 0;
}

/*
 * The function whose code holds the call at `at` of section
 * shndx: the last function symbol starting at or before `at`, if its size
 * covers the site (a size-0 symbol, from assembly, covers up to the next).
 */
const func_sym_t *
rewrite_enclosing_function(const object_t *ob, size_t shndx, uint64_t at, unsigned size)
{
	size_t lo = 0, hi = ob->nfuncs;
	const func_sym_t *f;

	/* The first entry past (shndx, at). */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const func_sym_t *x = &ob->funcs[mid];

		if (x->shndx < shndx || (x->shndx == shndx && x->value <= at))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	f = &ob->funcs[lo - 1];
	if (f->shndx != shndx)
		return NULL;
	while (lo - 1 > 0 && ob->funcs[lo - 2].shndx == shndx &&
	    ob->funcs[lo - 2].value == f->value)
		f = &ob->funcs[--lo - 1];	/* the preferred one sorts first */
	if (f->size > 0 && at + size > f->value + f->size)
		return NULL;
	return f;
}

void
rewrite_object_free(object_t *ob)
{
	free(ob->probe_group);
	free(ob->grouped);
	free(ob->funcs);
	rewrite_map_free(&ob->defined);
	ob->probe_group = ob->grouped = NULL;
	ob->funcs = NULL;
}

/*
 * What libelf would quietly change when it writes the object back, refused
 * (-G would otherwise write what it never checked): a section past the end
 * of the file, an alignment that is
 * not a power of two or exceeds the file (libelf pads each section's
 * offset to it: 1 GiB would make a 1 GiB object), a table whose entry size
 * is not its type's (libelf reads a RELA section of a bogus size as empty
 * and writes it back live), a string table whose last string has no NUL
 * (appended names would run on from it).
 */
static int
check_section(object_t *ob, size_t idx, const GElf_Shdr *sh, size_t filesize, err_t *e)
{
	static const struct { unsigned type; Elf_Type t; } tables[] = {
		{ SHT_RELA, ELF_T_RELA }, { SHT_REL, ELF_T_REL }, { SHT_SYMTAB, ELF_T_SYM },
	};
	uint64_t align = sh->sh_addralign;
	Elf_Data *d;

	if (sh->sh_type != SHT_NOBITS && (sh->sh_offset > filesize ||
	    sh->sh_size > filesize - sh->sh_offset))
		return err_set(e, "%s: section %zu (%s) runs past the end of the file: "
		    "not rewriting it", ob->path, idx, rewrite_section_name(ob, idx));
	if (align > 1 && ((align & (align - 1)) != 0 || align > filesize))
		return err_set(e, "%s: section %zu (%s) asks for an alignment of %ju bytes, "
		    "which the file (%zu bytes) cannot hold: not rewriting it", ob->path,
		    idx, rewrite_section_name(ob, idx), (uintmax_t)align, filesize);
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
		if (sh->sh_type == tables[i].type && sh->sh_entsize !=
		    gelf_fsize(ob->elf, tables[i].t, 1, EV_CURRENT))
			return err_set(e, "%s: section %zu (%s) has entries of %ju bytes, not "
			    "the %zu of its type: not rewriting it", ob->path, idx,
			    rewrite_section_name(ob, idx), (uintmax_t)sh->sh_entsize,
			    gelf_fsize(ob->elf, tables[i].t, 1, EV_CURRENT));
	if (sh->sh_type == SHT_STRTAB && sh->sh_size > 0 &&
	    ((d = elf_getdata(elf_getscn(ob->elf, idx), NULL)) == NULL || d->d_size == 0 ||
	    ((const char *)d->d_buf)[d->d_size - 1] != '\0'))
		return err_set(e, "%s: string table %zu (%s) does not end in a NUL: "
		    "not rewriting it", ob->path, idx, rewrite_section_name(ob, idx));
	return 0;
}

/*
 * The section names must come from a string table: -G adds the name of
 * .usdt.sites to it.  With e_shstrndx 0 (or pointing at anything else)
 * libelf would be asked to grow section 0 and abort in elf_update.
 */
static int
shstrtab_check(const object_t *ob, err_t *e)
{
	GElf_Shdr sh;
	Elf_Scn *scn;

	if (ob->shstrndx == SHN_UNDEF || ob->shstrndx >= ob->nsections ||
	    (scn = elf_getscn(ob->elf, ob->shstrndx)) == NULL || gelf_getshdr(scn, &sh) == NULL ||
	    sh.sh_type != SHT_STRTAB)
		return err_set(e, "%s: its section names are not in a string table "
		    "(e_shstrndx %zu): not rewriting it", ob->path, ob->shstrndx);
	return 0;
}

/* Read the tables of an ELF object ob->elf. */
int
rewrite_object_init(object_t *ob, err_t *e)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Ehdr eh;

	if (elf_getshdrnum(ob->elf, &ob->nsections) != 0 ||
	    elf_getshdrstrndx(ob->elf, &ob->shstrndx) != 0 || gelf_getehdr(ob->elf, &eh) == NULL)
		return err_libelf(e, ob->path, "elf_getshdrnum");
	/* A cut object: libelf would see no sections at all. */
	if (eh.e_shoff == 0 || eh.e_shoff > ob->filesize || ob->nsections == 0 ||
	    ob->nsections > (ob->filesize - eh.e_shoff) / (eh.e_shentsize ? eh.e_shentsize : 1))
		return err_set(e, "%s: its section headers lie past the end of the file "
		    "(%zu bytes): truncated?", ob->path, ob->filesize);
	if (shstrtab_check(ob, e) != 0)
		return -1;
	while ((scn = elf_nextscn(ob->elf, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) == NULL)
			return err_libelf(e, ob->path, "gelf_getshdr");
		if (check_section(ob, elf_ndxscn(scn), &sh, ob->filesize, e) != 0)
			return -1;
		if (sh.sh_type == SHT_SYMTAB && ob->symscn == NULL) {
			ob->symscn = scn;
			ob->symndx = elf_ndxscn(scn);
			ob->symsh = sh;
		}
	}
	if (ob->symscn == NULL)
		return 0;
	if ((ob->syms = elf_getdata(ob->symscn, NULL)) == NULL || ob->symsh.sh_entsize == 0)
		return err_libelf(e, ob->path, "elf_getdata (.symtab)");
	ob->nsyms = ob->symsh.sh_size / ob->symsh.sh_entsize;
	scn = NULL;
	while ((scn = elf_nextscn(ob->elf, scn)) != NULL)
		if (gelf_getshdr(scn, &sh) != NULL && sh.sh_type == SHT_SYMTAB_SHNDX &&
		    sh.sh_link == ob->symndx) {
			ob->xndx = elf_getdata(scn, NULL);
			ob->xndx_scn = elf_ndxscn(scn);
		}
	if (find_groups(ob, e) != 0 || index_symbols(ob, e) != 0)
		return -1;
	return 0;
}

/* LTO objects: the linker may recompile their IR, so leave them alone. */
bool
rewrite_has_lto_sections(const object_t *ob)
{
	for (size_t i = 1; i < ob->nsections; i++) {
		const char *n = rewrite_section_name(ob, i);

		if (strncmp(n, ".gnu.lto_", 9) == 0 || strncmp(n, ".gnu.lto.", 9) == 0 ||
		    strcmp(n, ".llvm.lto") == 0)
			return true;
	}
	return false;
}

/* The bytes of section idx (one data block), or NULL. */
Elf_Data *
rewrite_section_data(const object_t *ob, size_t idx, GElf_Shdr *sh)
{
	Elf_Scn *scn = elf_getscn(ob->elf, idx);

	if (scn == NULL || gelf_getshdr(scn, sh) == NULL || sh->sh_type == SHT_NOBITS)
		return NULL;
	return elf_getdata(scn, NULL);
}

/* ---- one object: sites recorded by earlier runs ----------------------------- */

/* The index of the .usdt.sites section, or 0. */
size_t
rewrite_sites_section(const object_t *ob)
{
	for (size_t i = 1; i < ob->nsections; i++)
		if (strcmp(rewrite_section_name(ob, i), SITES_SECTION) == 0)
			return i;
	return 0;
}
