/*
 * list.c - `usdtc --list` / `--dump`: printing the DOF and stapsdt notes
 * of a file, as probefind.c finds them.
 *
 * Output.  --list groups the records of a probe and prints, per provider,
 * each probe with its argument types (translated ones when they differ),
 * its sites as function+offset with the address when known (in an object,
 * the symbol its address is relocated against; in a Mach-O image the
 * tracepoint the kernel derives from the section's address,
 * macho_tracepoint_adjust), then the notes (in an object the pc, base and
 * semaphore fields as the symbols their relocations name).  --dump prints
 * every field of every DOF in a fixed order close to the decoded dtrace
 * output kept in the reference folder, then the notes; it never prints
 * file names or anything else that varies between runs.  A raw DOF image
 * prints its DOFs only.
 *
 * Everything is found before anything is printed: a file that fails to
 * read prints nothing but the error.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "dof.h"
#include "list.h"
#include "macho.h"
#include "probefind.h"

typedef struct lister {
	FILE *out;
	const list_opts_t *o;
	const probefind_found_t *f;
} lister_t;

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
put_symref(FILE *f, const probefind_rel_t *r, uint64_t extra)
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
    const probefind_rels_t *rels)
{
	FILE *f = L->out;
	const dof_probe_t *p = &r->raw;
	const probefind_rel_t *er = probefind_rels_find(rels, secoff + r->addr_offset);

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
		fputs((L->f->kind == PROBEFIND_MACHO) ? " machorel='" : " elfrel='", f);
		put_symref(f, er, 0);
		if (er->minus != NULL)
			fprintf(f, "-%s", er->minus);
		fputc('\'', f);
	}
	fputc('\n', f);
}

static void
dump_dof(lister_t *L, const dof_decoded_t *d, const char *where, uint64_t secoff,
    const probefind_rels_t *rels, bool readers_copy)
{
	FILE *f = L->out;

	fprintf(f, "DOF %s+0x%" PRIx64 "%s\n", where, secoff,
	    readers_copy ? " (not loaded: the readers' copy)" : "");
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
    const probefind_rel_t *er, int adjust)
{
	FILE *f = L->out;

	if ((L->f->kind == PROBEFIND_MACHO))
		fprintf(f, "    %-10s %s entry=%" PRId32, kind, r->func, (int32_t)off);
	else
		fprintf(f, "    %-10s %s+0x%" PRIx32, kind, r->func, off);
	if (er != NULL) {
		fputs(" @ ", f);
		put_symref(f, er, (uint64_t)((int64_t)off + adjust));
	} else if ((L->f->kind == PROBEFIND_MACHO) && !L->f->object) {
		fprintf(f, " @ 0x%" PRIx64, r->raw.dofpr_addr +
		    (uint64_t)((int64_t)(int32_t)off + adjust));
	} else if (!L->f->object || r->raw.dofpr_addr != 0) {
		fprintf(f, " @ 0x%" PRIx64, r->raw.dofpr_addr + off);
	}
	fputc('\n', f);
}

static void
list_record_sites(lister_t *L, const dofd_probe_t *r, uint64_t secoff, const probefind_rels_t *rels)
{
	const probefind_rel_t *er = probefind_rels_find(rels, secoff + r->addr_offset);
	int probe_adjust = (L->f->kind == PROBEFIND_MACHO) ? macho_tracepoint_adjust(L->f->cputype, 0) : 0;
	int enabled_adjust = (L->f->kind == PROBEFIND_MACHO) ? macho_tracepoint_adjust(L->f->cputype, 1) : 0;

	for (unsigned k = 0; k < r->raw.dofpr_noffs; k++)
		list_site(L, r, "site", r->offs[k], er, probe_adjust);
	for (unsigned k = 0; k < r->nenoffs; k++)
		list_site(L, r, "is-enabled", r->enoffs[k], er, enabled_adjust);
}

/* A probe record's place among its provider's, for grouping them by name. */
typedef struct rec_pos {
	const char *name;
	size_t j;
} rec_pos_t;

static int
cmp_rec_pos(const void *a, const void *b)
{
	const rec_pos_t *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c != 0)
		return c;
	return x->j < y->j ? -1 : x->j > y->j;
}

/*
 * A provider's probes, one per name in the order of first appearance, each
 * with the sites of every record of that name (a probe called from several
 * functions has a record per function).  The records are sorted by name,
 * then position, once: n log n where comparing each with all the earlier
 * ones was n squared.  Without memory for that, one record at a time.
 */
static void
list_provider(lister_t *L, const dofd_provider_t *pv, uint64_t secoff,
    const probefind_rels_t *rels)
{
	size_t n = pv->nprobes;
	rec_pos_t *byname = malloc((n ? n : 1) * sizeof(*byname));
	size_t *first = malloc((n ? n : 1) * sizeof(*first));	/* [j]: run start in byname */

	if (byname == NULL || first == NULL) {
		for (size_t j = 0; j < n; j++) {
			list_signature(L->out, &pv->probes[j]);
			list_record_sites(L, &pv->probes[j], secoff, rels);
		}
		goto out;
	}
	for (size_t j = 0; j < n; j++)
		byname[j] = (rec_pos_t){ pv->probes[j].name, j };
	qsort(byname, n, sizeof(*byname), cmp_rec_pos);
	for (size_t k = 0; k < n; k++)
		first[byname[k].j] = k > 0 && strcmp(byname[k - 1].name, byname[k].name) == 0 ?
		    first[byname[k - 1].j] : k;
	for (size_t j = 0; j < n; j++) {
		size_t k = first[j];

		if (byname[k].j != j)
			continue;	/* not the first record of its name */
		list_signature(L->out, &pv->probes[j]);
		for (; k < n && strcmp(byname[k].name, pv->probes[j].name) == 0; k++)
			list_record_sites(L, &pv->probes[byname[k].j], secoff, rels);
	}
out:
	free(byname);
	free(first);
}

static void
list_dof(lister_t *L, const dof_decoded_t *d, const char *where, uint64_t secoff,
    const probefind_rels_t *rels)
{
	FILE *f = L->out;

	fprintf(f, "DOF %s+0x%" PRIx64 ": version %u, %zu provider%s\n", where, secoff,
	    d->version, d->nproviders, d->nproviders == 1 ? "" : "s");
	for (size_t i = 0; i < d->nproviders; i++) {
		fprintf(f, "provider %s\n", d->providers[i].name);
		list_provider(L, &d->providers[i], secoff, rels);
	}
}

static void
put_note_addr(FILE *f, const char *label, uint64_t v, const probefind_rel_t *r)
{
	fprintf(f, " %s=", label);
	if (r->sym != NULL)
		put_symref(f, r, 0);
	else
		fprintf(f, "0x%" PRIx64, v);
}

static void
put_note_rel(FILE *f, const char *label, const probefind_rel_t *r)
{
	if (r->sym == NULL)
		return;
	fprintf(f, " %s='", label);
	put_symref(f, r, 0);
	fputc('\'', f);
}

/* --dump: every field, then the relocations of an object. */
static void
dump_note(FILE *f, size_t i, const probefind_note_t *nr)
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
list_note(FILE *f, const probefind_note_t *nr)
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
	if (L->f->nnotes == 0) {
		fputs("no stapsdt notes\n", L->out);
		return;
	}
	fprintf(L->out, "stapsdt notes: %zu\n", L->f->nnotes);
	for (size_t i = 0; i < L->f->nnotes; i++) {
		if (L->o->mode == LIST_DUMP)
			dump_note(L->out, i, &L->f->notes[i]);
		else
			list_note(L->out, &L->f->notes[i]);
	}
}

/* ---- the whole file ------------------------------------------------------ */

static void
print_found(FILE *out, const probefind_found_t *f, const list_opts_t *o)
{
	lister_t L = { out, o, f };

	for (size_t i = 0; i < f->ndofs; i++) {
		const probefind_dof_t *x = &f->dofs[i];

		if (o->mode == LIST_DUMP)
			dump_dof(&L, &x->d, x->where, x->secoff, x->rels, x->readers_copy);
		else if (probefind_dof_listed(f, i))
			list_dof(&L, &x->d, x->where, x->secoff, x->rels);
	}
	if (f->kind == PROBEFIND_DOF)
		return;
	if (f->ndofs == 0)
		fputs("no DOF\n", out);
	print_notes(&L);
}

int
list_buffer(FILE *out, const void *buf, size_t len, const char *name,
    const list_opts_t *o, err_t *e)
{
	probefind_found_t f;

	if (probefind_buffer(buf, len, name, o->base, &f, e) != 0)
		return -1;
	print_found(out, &f, o);
	probefind_found_free(&f);
	return 0;
}

int
list_file_ex(FILE *out, const char *path, const list_opts_t *o, err_t *e)
{
	probefind_found_t f;

	if (probefind_file(path, o->base, &f, e) != 0)
		return -1;
	print_found(out, &f, o);
	probefind_found_free(&f);
	return 0;
}

int
list_file(FILE *out, const char *path, err_t *e)
{
	list_opts_t o = { LIST_SUMMARY, 0 };

	return list_file_ex(out, path, &o, e);
}

int
list_dump_file(FILE *out, const char *path, err_t *e)
{
	list_opts_t o = { LIST_DUMP, 0 };

	return list_file_ex(out, path, &o, e);
}
