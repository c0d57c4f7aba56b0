/*
 * rewrite_write.c - the second stage of the call-site rewrite: applying a
 * plan (rewrite_plan.c) to a copy of each object.
 *
 * Planning decided every edit and touched no file; what is left is bytes,
 * kept apart so that the decisions can be read, tested and fuzzed without
 * a write, and so that nothing is written before every object is planned.
 *
 * An object with something to rewrite is copied to a temporary file beside
 * it (through symlinks: beside the file they name), edited there with libelf (ELF_C_RDWR: code bytes patched in place, relocation
 * sections compacted, symbol and string tables and .usdt.sites grown, only
 * appended to, so no index in the object changes; the header's site
 * records of the sites recorded renamed, dof.h's DOF_SITES_GIVEN_SECTION,
 * so that drti_lite need not read what the DOF already holds).  The temporary joins the
 * caller's set (rewrite_opts_t.temps, fileio.h), which puts every object
 * and the -G output in place together only once all of them are written:
 * a failure anywhere leaves every object as it was.
 *
 * Nothing is decided here: a call that no longer looks as planned means the
 * file changed while -G read it, an error.
 */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "dof.h"
#include "fileio.h"
#include "tempset.h"
#include "objin.h"
#include "rewrite_int.h"
#include "strbuf.h"

/* ---- one object: writing ----------------------------------------------------- */

/* A section whose bytes grow: its old bytes, then what was appended. */
typedef struct grown {
	size_t idx;
	strbuf_t bytes;
} grown_t;

typedef struct writer {
	object_t *ob;
	grown_t grown[4];	/* strtab, shstrtab, symtab, shndx: at most */
	size_t ngrown;
	err_t *e;
} writer_t;

static grown_t *
grown_section(writer_t *w, size_t idx)
{
	GElf_Shdr sh;
	Elf_Data *d;
	grown_t *g;

	for (size_t i = 0; i < w->ngrown; i++)
		if (w->grown[i].idx == idx)
			return &w->grown[i];
	if (w->ngrown == sizeof(w->grown) / sizeof(w->grown[0]) ||
	    (d = rewrite_section_data(w->ob, idx, &sh)) == NULL)
		return NULL;
	g = &w->grown[w->ngrown++];
	g->idx = idx;
	sb_init(&g->bytes);
	sb_append(&g->bytes, d->d_buf, d->d_size);
	return g;
}

/* Append a NUL-terminated string to a string table; its offset, or -1. */
static int64_t
append_string(writer_t *w, size_t idx, const char *s)
{
	grown_t *g = grown_section(w, idx);
	size_t off;

	if (g == NULL)
		return -1;
	off = g->bytes.len;
	sb_append(&g->bytes, s, strlen(s) + 1);
	return g->bytes.failed || off > UINT32_MAX ? -1 : (int64_t)off;
}

/* Point each grown section at its new bytes (alive until the writer ends). */
static int
install_grown(writer_t *w)
{
	for (size_t i = 0; i < w->ngrown; i++) {
		grown_t *g = &w->grown[i];
		Elf_Data *d = elf_getdata(elf_getscn(w->ob->elf, g->idx), NULL);

		if (d == NULL || g->bytes.failed)
			return -1;
		d->d_buf = g->bytes.data;
		d->d_size = g->bytes.len;
		elf_flagdata(d, ELF_C_SET, ELF_F_DIRTY);
	}
	return 0;
}

/* Overwrite each planned call with the tracepoint. */
static int
patch_calls(writer_t *w, const plan_t *p)
{
	const call_isa_t *isa = w->ob->isa;

	for (size_t i = 0; i < p->n; i++) {
		const planned_t *c = &p->calls[i];
		Elf_Data *d;
		GElf_Shdr sh;
		uint8_t *code;

		if (c->ref == NULL)
			continue;
		if ((d = rewrite_section_data(w->ob, c->textsec, &sh)) == NULL ||
		    c->at + (c->marked ? 1 : isa->site_size) > d->d_size)
			return err_libelf(w->e, w->ob->path, "elf_getdata (code)");
		code = (uint8_t *)d->d_buf + c->at;
		if (c->marked && code[0] == isa->mark_byte)
			continue;	/* already the tracepoint */
		if (c->marked || rewrite_opcode_at(isa, code) != (c->tail ? isa->jump_op : isa->call_op))
			return err_set(w->e, "%s: changed while -G read it", w->ob->path);
		memcpy(code, rewrite_replacement(isa, w->ob->t, c->ref->is_enabled, c->tail),
		    isa->site_size);
		elf_flagdata(d, ELF_C_SET, ELF_F_DIRTY);
	}
	return 0;
}

static int
compare_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

/* Remove the planned calls' relocations, compacting each section. */
static int
remove_relocs(writer_t *w, const plan_t *p)
{
	size_t *gone = calloc(p->n + 1, sizeof(size_t)), ngone = 0;
	int rc = 0;

	if (gone == NULL)
		return err_errno(w->e, ENOMEM, "%s", w->ob->path);
	for (size_t i = 0; i < p->n; i++)
		if (p->calls[i].ref != NULL)
			gone[ngone++] = p->calls[i].relsec;
	qsort(gone, ngone, sizeof(size_t), compare_size);
	for (size_t i = 0; i < ngone && rc == 0; i++) {
		size_t sec = gone[i], n, kept = 0;
		bool *drop;
		GElf_Shdr sh;
		Elf_Data *d;

		if (i > 0 && gone[i - 1] == sec)
			continue;
		if ((d = rewrite_section_data(w->ob, sec, &sh)) == NULL || sh.sh_entsize == 0) {
			rc = err_libelf(w->e, w->ob->path, "elf_getdata (relocations)");
			break;
		}
		n = d->d_size / sh.sh_entsize;
		if ((drop = calloc(n + 1, sizeof(bool))) == NULL) {
			rc = err_errno(w->e, ENOMEM, "%s", w->ob->path);
			break;
		}
		for (size_t j = 0; j < p->n; j++)
			if (p->calls[j].ref != NULL && p->calls[j].relsec == sec &&
			    p->calls[j].relidx < n)
				drop[p->calls[j].relidx] = true;
		for (size_t j = 0; j < n && rc == 0; j++) {
			GElf_Rela r;

			if (drop[j])
				continue;
			if (gelf_getrela(d, (int)j, &r) == NULL ||
			    gelf_update_rela(d, (int)kept++, &r) == 0)
				rc = err_libelf(w->e, w->ob->path, "gelf_update_rela");
		}
		free(drop);
		d->d_size = kept * sh.sh_entsize;
		elf_flagdata(d, ELF_C_SET, ELF_F_DIRTY);
	}
	free(gone);
	return rc;
}

/*
 * Append the alias symbols and the anchors (global: after every local, as
 * ELF wants).  The symbol table's data is pointed at its grown bytes
 * first, so that each entry is written through libelf in the object's
 * class.
 */
static int
add_symbols(writer_t *w, const edits_t *ed)
{
	object_t *ob = w->ob;
	size_t symsize = gelf_fsize(ob->elf, ELF_T_SYM, 1, EV_CURRENT), first;
	size_t nanchors = ed->sites.nanchors, n = ed->naliases + nanchors;
	grown_t *symtab, *xndx = NULL;

	if (n == 0)
		return 0;
	if ((symtab = grown_section(w, ob->symndx)) == NULL ||
	    (ob->xndx_scn != 0 && (xndx = grown_section(w, ob->xndx_scn)) == NULL))
		return err_errno(w->e, ENOMEM, "%s", ob->path);
	first = symtab->bytes.len / symsize;
	sb_zero(&symtab->bytes, n * symsize);
	if (symtab->bytes.failed)
		return err_errno(w->e, ENOMEM, "%s", ob->path);
	ob->syms->d_buf = symtab->bytes.data;
	ob->syms->d_size = symtab->bytes.len;
	for (size_t i = 0; i < n; i++) {
		bool alias = i < ed->naliases;
		const char *name = alias ? ed->aliases[i].name :
		    ed->sites.anchors[i - ed->naliases];
		int64_t off = append_string(w, ob->symsh.sh_link, name);
		GElf_Sym sym;
		size_t shndx = 0;
		uint32_t x;

		memset(&sym, 0, sizeof(sym));
		if (off < 0 || (alias && !rewrite_get_sym(ob, ed->aliases[i].of, &sym, &shndx)))
			return err_errno(w->e, ENOMEM, "%s", ob->path);
		/* An alias: untyped and empty (see the top of rewrite_plan.c); an anchor: undefined. */
		sym.st_name = (Elf64_Word)off;
		sym.st_info = GELF_ST_INFO(STB_GLOBAL, STT_NOTYPE);
		sym.st_other = STV_HIDDEN;
		sym.st_size = 0;
		if (gelf_update_sym(ob->syms, (int)(first + i), &sym) == 0)
			return err_libelf(w->e, ob->path, "gelf_update_sym");
		if (xndx != NULL) {
			x = sym.st_shndx == SHN_XINDEX ? (uint32_t)shndx : 0;
			sb_append(&xndx->bytes, &x, sizeof(x));
		}
	}
	return 0;
}

/* Append the records to .usdt.sites, creating it if need be. */
static int
add_records(writer_t *w, const edits_t *ed)
{
	object_t *ob = w->ob;
	size_t idx = rewrite_sites_section(ob);
	Elf_Scn *scn;
	Elf_Data *d;
	GElf_Shdr sh;
	int64_t name;

	if (ed->records.len == 0)
		return 0;
	if (idx != 0) {
		grown_t *g = grown_section(w, idx);

		if (g == NULL)
			return err_errno(w->e, ENOMEM, "%s", ob->path);
		sb_append(&g->bytes, ed->records.data, ed->records.len);
		return 0;
	}
	if ((name = append_string(w, ob->shstrndx, SITES_SECTION)) < 0)
		return err_errno(w->e, ENOMEM, "%s", ob->path);
	if ((scn = elf_newscn(ob->elf)) == NULL || gelf_getshdr(scn, &sh) == NULL)
		return err_libelf(w->e, ob->path, "elf_newscn");
	sh.sh_name = (Elf64_Word)name;
	sh.sh_type = SHT_PROGBITS;
	sh.sh_flags = SHF_EXCLUDE;
	sh.sh_addralign = 1;
	if (gelf_update_shdr(scn, &sh) == 0 || (d = elf_newdata(scn)) == NULL)
		return err_libelf(w->e, ob->path, "elf_newdata");
	d->d_buf = ed->records.data;
	d->d_size = ed->records.len;
	d->d_type = ELF_T_BYTE;
	d->d_align = 1;
	d->d_version = EV_CURRENT;
	return 0;
}

/* ---- the site records of the recorded sites: renamed --------------------- */

/* A recorded inline site: its code section and offset there. */
typedef struct site_at {
	size_t sec;
	uint64_t at;
} site_at_t;

static int
compare_site_at(const void *a, const void *b)
{
	const site_at_t *x = a, *y = b;

	if (x->sec != y->sec)
		return x->sec < y->sec ? -1 : 1;
	return (x->at > y->at) - (x->at < y->at);
}

/*
 * Whether every record of the site-record section sec (dof.h's
 * dof_site_rec_t, DOF_SITES_SECTION), whose relocations are section rela,
 * names a site in sites (n, sorted): each record's first field has its
 * relocation, against a symbol of the code, and the site it reaches was
 * recorded.  Anything else (a record of a site left as it was, one a
 * relocation does not name, another layout): false, and the section keeps
 * its name.
 */
static bool
records_recorded(const object_t *ob, size_t sec, size_t rela, const site_at_t *sites, size_t n)
{
	GElf_Shdr sh, rsh;
	Elf_Data *d;
	size_t found = 0;

	if (rela == 0 || gelf_getshdr(elf_getscn(ob->elf, sec), &sh) == NULL || sh.sh_size == 0 ||
	    sh.sh_size % sizeof(dof_site_rec_t) != 0 ||
	    (d = rewrite_section_data(ob, rela, &rsh)) == NULL || rsh.sh_type != SHT_RELA ||
	    rsh.sh_entsize == 0)
		return false;
	for (size_t i = 0; i < d->d_size / rsh.sh_entsize; i++) {
		GElf_Rela r;
		GElf_Sym sym;
		size_t shndx;
		site_at_t key;

		if (gelf_getrela(d, (int)i, &r) == NULL)
			return false;
		if (r.r_offset % sizeof(dof_site_rec_t) != 0)
			continue;	/* a record's name fields */
		if (!rewrite_get_sym(ob, GELF_R_SYM(r.r_info), &sym, &shndx))
			return false;
		key.sec = shndx;
		key.at = sym.st_value + (uint64_t)r.r_addend;
		if (bsearch(&key, sites, n, sizeof(*sites), compare_site_at) == NULL)
			return false;
		found++;
	}
	return found == sh.sh_size / sizeof(dof_site_rec_t);
}

/*
 * For each section, the one relocation section that applies to it (0:
 * none; SIZE_MAX: more than one, or a REL one): one pass over the
 * sections, so that an object of thousands of record sections costs no
 * more than its sections.  NULL out of memory.
 */
static size_t *
relocations_by_target(const object_t *ob)
{
	size_t *rela = calloc(ob->nsections + 1, sizeof(size_t));
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	if (rela == NULL)
		return NULL;
	while ((scn = elf_nextscn(ob->elf, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) == NULL ||
		    (sh.sh_type != SHT_RELA && sh.sh_type != SHT_REL) || sh.sh_info >= ob->nsections)
			continue;
		rela[sh.sh_info] = rela[sh.sh_info] == 0 && sh.sh_type == SHT_RELA ?
		    elf_ndxscn(scn) : SIZE_MAX;
	}
	return rela;
}

/*
 * Whether the section name at offset off is DOF_SITES_SECTION; *known: the
 * offset last found so (the assembler writes a name once), -1 if none.
 */
static bool
is_records_name(const object_t *ob, size_t off, int64_t *known)
{
	const char *s;

	if (*known >= 0 && (size_t)*known == off)
		return true;
	if ((s = elf_strptr(ob->elf, ob->shstrndx, off)) == NULL || strcmp(s, DOF_SITES_SECTION) != 0)
		return false;
	*known = (int64_t)off;
	return true;
}

/*
 * The inline sites' records (DOF_SITES_SECTION) of the sites recorded
 * here, each section whose every record's site the DOF now holds and
 * that is in no COMDAT group (a group's code is not rewritten, and the
 * linker may keep another copy): renamed DOF_SITES_GIVEN_SECTION, so that
 * drti_lite need not read them (dof.h).  The bytes stay, loaded.
 */
static int
rename_recorded_records(writer_t *w, const plan_t *p)
{
	object_t *ob = w->ob;
	site_at_t *sites = calloc(p->n + 1, sizeof(*sites));
	size_t n = 0, *rela = NULL;
	int64_t name = -1, known = -1;
	int rc = 0;

	if (sites == NULL)
		return err_errno(w->e, ENOMEM, "%s", ob->path);
	for (size_t i = 0; i < p->n; i++)
		if (p->calls[i].marked && p->calls[i].ref != NULL)
			sites[n++] = (site_at_t){ p->calls[i].textsec, p->calls[i].at };
	qsort(sites, n, sizeof(*sites), compare_site_at);
	if (n > 0 && (rela = relocations_by_target(ob)) == NULL)
		rc = err_errno(w->e, ENOMEM, "%s", ob->path);
	for (size_t i = 1; n > 0 && i < ob->nsections && rc == 0; i++) {
		Elf_Scn *scn = elf_getscn(ob->elf, i);
		GElf_Shdr sh;

		if (ob->grouped[i] || rela[i] == 0 || rela[i] == SIZE_MAX ||
		    gelf_getshdr(scn, &sh) == NULL || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_ALLOC) || !is_records_name(ob, sh.sh_name, &known) ||
		    !records_recorded(ob, i, rela[i], sites, n))
			continue;
		if (name < 0 && (name = append_string(w, ob->shstrndx, DOF_SITES_GIVEN_SECTION)) < 0) {
			rc = err_errno(w->e, ENOMEM, "%s", ob->path);
		} else {
			sh.sh_name = (Elf64_Word)name;	/* sh: read in the test above */
			if (gelf_update_shdr(scn, &sh) == 0)
				rc = err_libelf(w->e, ob->path, "gelf_update_shdr");
		}
	}
	free(rela);
	free(sites);
	return rc;
}

/* Apply the plan to the copy open as ob (ELF_C_RDWR) and write it. */
static int
write_edits(object_t *ob, const plan_t *p, const edits_t *ed, int fd, err_t *e)
{
	writer_t w = { ob, { { 0, { 0 } } }, 0, e };
	off_t size;
	int rc = -1;

	if (patch_calls(&w, p) != 0 || remove_relocs(&w, p) != 0 ||
	    add_symbols(&w, ed) != 0 || add_records(&w, ed) != 0 ||
	    rename_recorded_records(&w, p) != 0)
		goto out;
	if (install_grown(&w) != 0) {
		err_errno(e, ENOMEM, "%s", ob->path);
		goto out;
	}
	/*
	 * Dirty as a whole: otherwise libelf (0.188) writes the section
	 * headers straight from the array it read them into, one entry short
	 * once .usdt.sites is new, so the added header came from past the
	 * array's end (seen as a corrupt last section; valgrind: pwrite of
	 * unaddressable bytes).  A dirty Elf gets its headers gathered anew.
	 */
	elf_flagelf(ob->elf, ELF_C_SET, ELF_F_DIRTY);
	errno = 0;
	if ((size = elf_update(ob->elf, ELF_C_WRITE)) < 0) {
		/* A failed write (a full disk) leaves its cause in errno. */
		if (errno != 0)
			err_errno(e, errno, "cannot write %s", ob->path);
		else
			err_libelf(e, ob->path, "elf_update");
		goto out;
	}
	/* libelf grows the file but does not shrink it. */
	if (ftruncate(fd, size) != 0) {
		err_errno(e, errno, "cannot write %s", ob->path);
		goto out;
	}
	rc = 0;
out:
	/* libelf has written the grown bytes and reads them no more. */
	for (size_t i = 0; i < w.ngrown; i++)
		sb_free(&w.grown[i].bytes);
	return rc;
}

/*
 * The object's image (as read, objin.c) in a new temporary for its real
 * path, in ts; its fd and its entry in *entryp, or -1.  The temporary
 * takes the object's owner, group, mode and time (fileio.h).
 */
static int
copy_to_temp(tempset_t *ts, const objin_t *in, int *entryp, err_t *e)
{
	int fd;

	if ((*entryp = tempset_add(ts, in->real, &in->st, &fd, e)) < 0)
		return -1;
	if (file_write_all_fd(fd, in->bytes, in->len) != 0) {
		err_errno(e, errno, "cannot write %s", in->path);
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Edit a copy of the object in a temporary of ts, which the caller puts in
 * place (tempset_commit) once everything else has succeeded.
 */
int
rewrite_commit_object(const object_t *read_ob, const objin_t *in, const plan_t *p,
    const edits_t *ed, int *entryp, err_t *e)
{
	object_t ob;
	int fd, rc = -1;

	memset(&ob, 0, sizeof(ob));
	ob.path = read_ob->path;
	ob.t = read_ob->t;
	ob.isa = read_ob->isa;
	ob.o = read_ob->o;
	ob.temps = read_ob->temps;
	ob.filesize = read_ob->filesize;
	memcpy(ob.alias_prefix, read_ob->alias_prefix, sizeof(ob.alias_prefix));
	ob.key = read_ob->key;
	if ((fd = copy_to_temp(read_ob->temps, in, entryp, e)) < 0)
		return -1;
	if ((ob.elf = elf_begin(fd, ELF_C_RDWR, NULL)) == NULL)
		err_libelf(e, read_ob->path, "elf_begin");
	else if (rewrite_object_init(&ob, e) != 0)
		;	/* e is set */
	else if (ob.nsections != read_ob->nsections || ob.nsyms != read_ob->nsyms)
		err_set(e, "%s: changed while -G read it", read_ob->path);
	else
		rc = write_edits(&ob, p, ed, fd, e);
	rewrite_object_free(&ob);
	if (ob.elf != NULL)
		elf_end(ob.elf);
	if (close(fd) != 0 && rc == 0)
		rc = err_errno(e, errno, "cannot write %s", in->path);
	return rc;
}

/* ---- every object: writing the plan ----------------------------------------- */

/*
 * The other names under which the object of po was given (hard links of
 * it: objin.c reads it once) become its rewritten file too, so that each
 * name given to -G carries the rewrite; each name once.
 */
static int
link_other_names(rewrite_plan_t *rp, const planned_object_t *po, int entry, err_t *e)
{
	for (size_t i = 0; i < rp->nins; i++) {
		const objin_t *in = &rp->ins[i];
		bool done = strcmp(in->real, po->in->real) == 0;

		if (in->same_as != po->in)
			continue;
		for (size_t j = 0; j < i && !done; j++)
			done = rp->ins[j].same_as == po->in && strcmp(rp->ins[j].real, in->real) == 0;
		if (!done && tempset_link(rp->temps, entry, in->real, e) != 0)
			return -1;
	}
	return 0;
}

int
rewrite_write(rewrite_plan_t *rp, err_t *e)
{
	for (size_t i = 0; i < rp->nobjs; i++) {
		planned_object_t *po = &rp->objs[i];
		int entry;

		if (po->nsites == 0)
			continue;
		if (rewrite_commit_object(&po->ob, po->in, &po->p, &po->ed, &entry, e) != 0 ||
		    link_other_names(rp, po, entry, e) != 0)
			return -1;
		rewrite_note(&po->ob, "rewrote %zu probe call%s", po->nsites, po->nsites == 1 ? "" : "s");
	}
	return rp->temps == &rp->own ? tempset_commit(&rp->own, e) : 0;
}
