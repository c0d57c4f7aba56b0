/*
 * decode.c - strict readers for DOF and for .note.stapsdt (decode.h).
 *
 * The DOF reader accepts what DTrace's consumers accept and nothing they
 * would trip over: the checks of Oracle Linux's dof_parser and of the
 * illumos/FreeBSD kernel, made exact where our writer is exact.  In order:
 *
 *   header    magic; LP64; this host's byte order; DOF version 1..3; DIF
 *             version 2; at most 8 integer and 8 tuple registers; padding
 *             ident bytes and dofh_flags zero; hdrsize 64, secsize 32;
 *             64 <= loadsz <= filesz <= buffer; section headers 8-aligned,
 *             after the header and inside loadsz.
 *   sections  known flag bits only; types DTrace loads carry the LOAD flag;
 *             alignment a power of two and the offset aligned to it; data
 *             inside loadsz (loaded) or filesz (not loaded); entsize and
 *             a whole number of entries for PROBES (48), PRARGS (1), PROFFS
 *             and PRENOFFS (4), RELTAB (24); natural alignment for the
 *             tables; a string table that is not empty and ends in NUL.
 *   providers every section index in range, of the right type; the name
 *             a string of 1..63 bytes; at least one probe record.
 *   records   function (1..127 bytes) and probe name (1..63 bytes) inside
 *             the string table; offsets inside PROFFS; is-enabled offsets
 *             inside PRENOFFS, read only from version 2 on; at least one
 *             offset; no offset twice; nargc/xargc consecutive strings of at
 *             most 127 bytes for the native/translated types; the argument
 *             map inside PRARGS, each entry naming a native argument.
 *   relocs    URELHDR naming a STRTAB, a RELTAB and a PROBES section;
 *             types NONE, SETX or DOFREL (FreeBSD's); a SETX or DOFREL
 *             relocation on the dofpr_addr of a record inside the target,
 *             at most one per record.
 *
 * Every failure is one sentence naming where: "DOF section 3 (PROFFS):
 * offset 0x1f0 + size 0x20 exceeds the file size 0x1ff".  All arithmetic
 * on values from the buffer is done in 64 bits after range checks, and the
 * buffer is read with memcpy, so any bytes at any alignment are safe.
 *
 * The stapsdt reader walks ELF notes (4-byte padding, as sys/sdt.h writes
 * them), skips notes that are not stapsdt's, and requires pc, base and
 * semaphore addresses followed by three NUL-terminated strings.  Its words
 * are read in the file's byte order, never the host's: an s390x program's
 * addresses listed on x86_64 are readelf's.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "stapsdt.h"

#define ARGTYPE_MAX	DTRACE_ARGTYPELEN
#define PROVNAME_MAX	DTRACE_PROVNAMELEN
#define FUNCNAME_MAX	DTRACE_FUNCNAMELEN
#define PROBENAME_MAX	DTRACE_NAMELEN
#define PROVIDER_V1_SIZE offsetof(dof_provider_t, dofpv_prenoffs)

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define DOF_ENCODE_NATIVE DOF_ENCODE_LSB
#else
#define DOF_ENCODE_NATIVE DOF_ENCODE_MSB
#endif

static const char *const section_type_names[] = {
	"NONE", "COMMENTS", "SOURCE", "ECBDESC", "PROBEDESC", "ACTDESC",
	"DIFOHDR", "DIF", "STRTAB", "VARTAB", "RELTAB", "TYPTAB", "URELHDR",
	"KRELHDR", "OPTDESC", "PROVIDER", "PROBES", "PRARGS", "PROFFS",
	"INTTAB", "UTSNAME", "XLTAB", "XLMEMBERS", "XLIMPORT", "XLEXPORT",
	"PREXPORT", "PRENOFFS",
};

const char *
dof_section_type_name(uint32_t type)
{
	if (type < sizeof(section_type_names) / sizeof(section_type_names[0]))
		return section_type_names[type];
	return NULL;
}

typedef struct decoder {
	const uint8_t *buf;
	size_t len;
	unsigned flags;
	dof_decoded_t *d;
	err_t *e;
} decoder_t;

/* "3 (PROFFS)" for messages. */
typedef struct label {
	char s[48];
} label_t;

static label_t
sec_label(const decoder_t *dc, uint32_t i)
{
	label_t l;
	const char *name = NULL;

	if (i < dc->d->nsecs)
		name = dof_section_type_name(dc->d->secs[i].hdr.dofs_type);
	if (name != NULL)
		snprintf(l.s, sizeof(l.s), "%" PRIu32 " (%s)", i, name);
	else if (i < dc->d->nsecs)
		snprintf(l.s, sizeof(l.s), "%" PRIu32 " (type %" PRIu32 ")", i,
		    dc->d->secs[i].hdr.dofs_type);
	else
		snprintf(l.s, sizeof(l.s), "%" PRIu32, i);
	return l;
}

/* An error prefixed by what it is about ("DOF section 3 (PROFFS): "). */
static int
fail(const decoder_t *dc, const char *who, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
fail(const decoder_t *dc, const char *who, const char *fmt, ...)
{
	char msg[ERR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return err_set(dc->e, "%s: %s", who, msg);
}

static int
sec_fail(const decoder_t *dc, uint32_t i, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
sec_fail(const decoder_t *dc, uint32_t i, const char *fmt, ...)
{
	char msg[ERR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return err_set(dc->e, "DOF section %s: %s", sec_label(dc, i).s, msg);
}

/* ---- header ---------------------------------------------------------- */

static int
check_ident(const decoder_t *dc, const dof_hdr_t *h)
{
	const uint8_t *id = h->dofh_ident;
	const char *who = "DOF header";

	if (id[DOF_ID_MAG0] != 0x7f || id[DOF_ID_MAG1] != 'D' ||
	    id[DOF_ID_MAG2] != 'O' || id[DOF_ID_MAG3] != 'F')
		return fail(dc, who, "bad magic %02x %02x %02x %02x (expected 7f 44 4f 46)",
		    id[0], id[1], id[2], id[3]);
	if (id[DOF_ID_MODEL] != DOF_MODEL_LP64)
		return fail(dc, who, "data model %u is not LP64 (%u)",
		    id[DOF_ID_MODEL], DOF_MODEL_LP64);
	if (id[DOF_ID_ENCODING] != DOF_ENCODE_NATIVE)
		return fail(dc, who, "encoding %u is not this host's byte order (%u)",
		    id[DOF_ID_ENCODING], DOF_ENCODE_NATIVE);
	if (id[DOF_ID_VERSION] < DOF_VERSION_1 || id[DOF_ID_VERSION] > DOF_VERSION_3)
		return fail(dc, who, "version %u is not 1, 2 or 3", id[DOF_ID_VERSION]);
	if (id[DOF_ID_DIFVERS] != DIF_VERSION_2)
		return fail(dc, who, "DIF version %u is not %u",
		    id[DOF_ID_DIFVERS], DIF_VERSION_2);
	if (id[DOF_ID_DIFIREG] > DIF_DIR_NREGS)
		return fail(dc, who, "%u integer registers exceed the %u DTrace has",
		    id[DOF_ID_DIFIREG], DIF_DIR_NREGS);
	if (id[DOF_ID_DIFTREG] > DIF_DTR_NREGS)
		return fail(dc, who, "%u tuple registers exceed the %u DTrace has",
		    id[DOF_ID_DIFTREG], DIF_DTR_NREGS);
	for (int i = DOF_ID_DIFTREG + 1; i < DOF_ID_SIZE; i++)
		if (id[i] != 0)
			return fail(dc, who, "ident byte %d is 0x%02x, must be 0", i, id[i]);
	return 0;
}

static int
check_header(decoder_t *dc)
{
	dof_hdr_t *h = &dc->d->hdr;
	const char *who = "DOF header";
	uint64_t seclen;

	if (dc->len < sizeof(*h))
		return fail(dc, who, "%zu bytes are too few for the %zu-byte header",
		    dc->len, sizeof(*h));
	memcpy(h, dc->buf, sizeof(*h));
	if (check_ident(dc, h) != 0)
		return -1;
	dc->d->version = h->dofh_ident[DOF_ID_VERSION];
	if (h->dofh_flags != 0)
		return fail(dc, who, "flags 0x%" PRIx32 " set; no flag is defined",
		    h->dofh_flags);
	if (h->dofh_hdrsize != sizeof(dof_hdr_t))
		return fail(dc, who, "header size %" PRIu32 " is not %zu",
		    h->dofh_hdrsize, sizeof(dof_hdr_t));
	if (h->dofh_secsize != sizeof(dof_sec_t))
		return fail(dc, who, "section header size %" PRIu32 " is not %zu",
		    h->dofh_secsize, sizeof(dof_sec_t));
	if (h->dofh_loadsz < sizeof(dof_hdr_t))
		return fail(dc, who, "load size 0x%" PRIx64 " is smaller than the header",
		    h->dofh_loadsz);
	if (h->dofh_loadsz > h->dofh_filesz)
		return fail(dc, who, "load size 0x%" PRIx64 " exceeds file size 0x%" PRIx64,
		    h->dofh_loadsz, h->dofh_filesz);
	if ((dc->flags & DOF_DECODE_LOADSZ) ? h->dofh_loadsz > dc->len :
	    h->dofh_filesz > dc->len)
		return fail(dc, who, "%s 0x%" PRIx64 " exceeds the 0x%zx bytes available",
		    (dc->flags & DOF_DECODE_LOADSZ) ? "load size" : "file size",
		    (dc->flags & DOF_DECODE_LOADSZ) ? h->dofh_loadsz : h->dofh_filesz,
		    dc->len);
	if (h->dofh_secoff % 8 != 0 || h->dofh_secoff < sizeof(dof_hdr_t))
		return fail(dc, who, "section headers at 0x%" PRIx64 " are not 8-aligned "
		    "after the header", h->dofh_secoff);
	seclen = (uint64_t)h->dofh_secnum * sizeof(dof_sec_t);
	if (h->dofh_secoff > h->dofh_loadsz || seclen > h->dofh_loadsz - h->dofh_secoff)
		return fail(dc, who, "%" PRIu32 " section headers at 0x%" PRIx64
		    " exceed the load size 0x%" PRIx64, h->dofh_secnum,
		    h->dofh_secoff, h->dofh_loadsz);
	return 0;
}

/* ---- sections -------------------------------------------------------- */

/* Types DTrace copies into the kernel (sys/dtrace.h DOF_SEC_ISLOADABLE). */
static bool
loadable_type(uint32_t type)
{
	return type != DOF_SECT_NONE && type != DOF_SECT_COMMENTS &&
	    type != DOF_SECT_SOURCE && type != DOF_SECT_UTSNAME;
}

/* Table types: their entry size, and the least alignment a reader relies on. */
static bool
table_shape(uint32_t type, uint32_t *entsize, uint32_t *min_align, bool *exact_align)
{
	*exact_align = false;
	switch (type) {
	case DOF_SECT_PROBES: *entsize = sizeof(dof_probe_t); *min_align = 8; return true;
	case DOF_SECT_PRARGS: *entsize = 1; *min_align = 1; return true;
	case DOF_SECT_PROFFS:
	case DOF_SECT_PRENOFFS: *entsize = 4; *min_align = 4; return true;
	case DOF_SECT_RELTAB:
		*entsize = sizeof(dof_relodesc_t);
		*min_align = 8;
		*exact_align = true;	/* the Linux consumer wants exactly 8 */
		return true;
	default:
		return false;
	}
}

static int
check_section_shape(const decoder_t *dc, uint32_t i, const dof_sec_t *s)
{
	uint32_t entsize, min_align;
	bool exact;

	if (table_shape(s->dofs_type, &entsize, &min_align, &exact)) {
		if (s->dofs_entsize != entsize)
			return sec_fail(dc, i, "entry size %" PRIu32 " is not %" PRIu32,
			    s->dofs_entsize, entsize);
		if (s->dofs_size % entsize != 0)
			return sec_fail(dc, i, "size 0x%" PRIx64 " is not a multiple of "
			    "the entry size %" PRIu32, s->dofs_size, entsize);
		if (exact ? s->dofs_align != min_align : s->dofs_align < min_align)
			return sec_fail(dc, i, "alignment %" PRIu32 " is not %s%" PRIu32,
			    s->dofs_align, exact ? "" : "at least ", min_align);
	}
	switch (s->dofs_type) {
	case DOF_SECT_PROVIDER:
		if (s->dofs_align < 4)
			return sec_fail(dc, i, "alignment %" PRIu32 " is not at least 4",
			    s->dofs_align);
		if (s->dofs_size < (dc->d->version == DOF_VERSION_1 ?
		    PROVIDER_V1_SIZE : sizeof(dof_provider_t)))
			return sec_fail(dc, i, "size 0x%" PRIx64 " is too small for a "
			    "version %u provider", s->dofs_size, dc->d->version);
		break;
	case DOF_SECT_URELHDR:
		if (s->dofs_align != 4)
			return sec_fail(dc, i, "alignment %" PRIu32 " is not 4", s->dofs_align);
		if (s->dofs_size < sizeof(dof_relohdr_t))
			return sec_fail(dc, i, "size 0x%" PRIx64 " is too small for a "
			    "relocation header", s->dofs_size);
		break;
	case DOF_SECT_STRTAB:
		if (s->dofs_size == 0)
			return sec_fail(dc, i, "string table is empty");
		if (dc->buf[s->dofs_offset + s->dofs_size - 1] != '\0')
			return sec_fail(dc, i, "string table does not end in NUL");
		break;
	}
	return 0;
}

static int
check_section(decoder_t *dc, uint32_t i)
{
	dofd_section_t *ds = &dc->d->secs[i];
	const dof_sec_t *s = &ds->hdr;
	const dof_hdr_t *h = &dc->d->hdr;
	bool load = (s->dofs_flags & DOF_SECF_LOAD) != 0;
	uint64_t limit = load ? h->dofh_loadsz : h->dofh_filesz;

	if (s->dofs_type == DOF_SECT_NONE)
		return 0;
	if (s->dofs_flags & ~(uint32_t)DOF_SECF_LOAD)
		return sec_fail(dc, i, "unknown flags 0x%" PRIx32, s->dofs_flags);
	if (loadable_type(s->dofs_type) && !load)
		return sec_fail(dc, i, "not marked loadable, but DTrace loads this type");
	if (s->dofs_align == 0 || (s->dofs_align & (s->dofs_align - 1)) != 0)
		return sec_fail(dc, i, "alignment %" PRIu32 " is not a power of two",
		    s->dofs_align);
	if (s->dofs_offset & (s->dofs_align - 1))
		return sec_fail(dc, i, "offset 0x%" PRIx64 " is not aligned to %" PRIu32,
		    s->dofs_offset, s->dofs_align);
	if (s->dofs_offset > limit || s->dofs_size > limit - s->dofs_offset)
		return sec_fail(dc, i, "offset 0x%" PRIx64 " + size 0x%" PRIx64
		    " exceeds the %s size 0x%" PRIx64, s->dofs_offset, s->dofs_size,
		    load ? "load" : "file", limit);
	if (s->dofs_offset + s->dofs_size <= dc->len)
		ds->data = dc->buf + s->dofs_offset;
	return check_section_shape(dc, i, s);
}

static int
read_sections(decoder_t *dc)
{
	const dof_hdr_t *h = &dc->d->hdr;

	if (h->dofh_secnum == 0)
		return 0;
	dc->d->secs = calloc(h->dofh_secnum, sizeof(*dc->d->secs));
	if (dc->d->secs == NULL)
		return err_set(dc->e, "out of memory decoding DOF");
	dc->d->nsecs = h->dofh_secnum;
	for (uint32_t i = 0; i < h->dofh_secnum; i++)
		memcpy(&dc->d->secs[i].hdr,
		    dc->buf + h->dofh_secoff + (uint64_t)i * sizeof(dof_sec_t),
		    sizeof(dof_sec_t));
	for (uint32_t i = 0; i < h->dofh_secnum; i++)
		if (check_section(dc, i) != 0)
			return -1;
	return 0;
}

/* A section named by an index field of `who`, which must have `type`. */
static const dofd_section_t *
sec_ref(const decoder_t *dc, const char *who, const char *field, uint32_t idx,
    uint32_t type)
{
	const dofd_section_t *s;

	if (idx >= dc->d->nsecs) {
		fail(dc, who, "%s %" PRIu32 " is not a section index (the DOF has %zu)",
		    field, idx, dc->d->nsecs);
		return NULL;
	}
	s = &dc->d->secs[idx];
	if (s->hdr.dofs_type != type) {
		fail(dc, who, "%s names section %s, not a %s section", field,
		    sec_label(dc, idx).s, dof_section_type_name(type));
		return NULL;
	}
	return s;
}

/* ---- strings --------------------------------------------------------- */

typedef struct strtab_ref {
	const char *base;
	uint64_t size;
	uint32_t sec;
} strtab_ref_t;

/* The string at idx (terminated: the table ends in NUL), or NULL if outside. */
static const char *
str_at(const strtab_ref_t *st, uint64_t idx)
{
	return idx < st->size ? st->base + idx : NULL;
}

static strtab_ref_t
strtab_of(const dofd_section_t *s, uint32_t idx)
{
	strtab_ref_t st = { (const char *)s->data, s->hdr.dofs_size, idx };

	return st;
}

/* A name of 1..max-1 bytes at idx; what names it in messages. */
static int
read_name(const decoder_t *dc, const char *who, const strtab_ref_t *st,
    uint32_t idx, const char *what, size_t max, const char **out)
{
	const char *s = str_at(st, idx);
	size_t n;

	if (s == NULL)
		return fail(dc, who, "%s at string offset 0x%" PRIx32 " is outside "
		    "section %" PRIu32 " (STRTAB, size 0x%" PRIx64 ")", what, idx,
		    st->sec, st->size);
	n = strlen(s);
	if (n == 0)
		return fail(dc, who, "%s is empty", what);
	if (n >= max)
		return fail(dc, who, "%s '%.40s...' has %zu bytes; DTrace allows %zu",
		    what, s, n, max - 1);
	*out = s;
	return 0;
}

/* count consecutive strings from idx: argument types. */
static int
read_types(const decoder_t *dc, const char *who, const strtab_ref_t *st,
    uint32_t idx, unsigned count, const char *what, const char ***out)
{
	uint64_t at = idx;

	*out = NULL;
	if (count == 0)
		return 0;
	if ((*out = calloc(count, sizeof(char *))) == NULL)
		return err_set(dc->e, "out of memory decoding DOF");
	for (unsigned k = 0; k < count; k++) {
		const char *s = str_at(st, at);
		size_t n;

		if (s == NULL)
			return fail(dc, who, "%s type %u at string offset 0x%" PRIx64
			    " is outside section %" PRIu32 " (STRTAB, size 0x%" PRIx64 ")",
			    what, k, at, st->sec, st->size);
		n = strlen(s);
		if (n >= ARGTYPE_MAX)
			return fail(dc, who, "%s type %u '%.40s...' has %zu bytes; "
			    "DTrace allows %d", what, k, s, n, ARGTYPE_MAX - 1);
		(*out)[k] = s;
		at += n + 1;
	}
	return 0;
}

/* ---- providers and probe records ------------------------------------- */

typedef struct prov_ctx {
	char who[160];
	strtab_ref_t st;
	const dofd_section_t *probes, *prargs, *proffs, *prenoffs;
	uint32_t s_prargs, s_proffs, s_prenoffs;
} prov_ctx_t;

static uint32_t *
read_u32s(const uint8_t *p, size_t n)
{
	uint32_t *v = malloc(n ? n * sizeof(uint32_t) : 1);

	if (v != NULL && n > 0)
		memcpy(v, p, n * sizeof(uint32_t));
	return v;
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Whether v[0..n) holds a value twice; *dup receives it. */
static int
find_duplicate(const uint32_t *v, size_t n, uint32_t *dup, bool *found)
{
	uint32_t *s;

	*found = false;
	if (n < 2)
		return 0;
	if ((s = read_u32s((const uint8_t *)v, n)) == NULL)
		return -1;
	qsort(s, n, sizeof(*s), cmp_u32);
	for (size_t i = 1; i < n && !*found; i++)
		if (s[i] == s[i - 1]) {
			*found = true;
			*dup = s[i];
		}
	free(s);
	return 0;
}

static int
read_offsets(const decoder_t *dc, const char *who, const dofd_section_t *sec,
    uint32_t secidx, uint32_t idx, uint32_t count, const char *what,
    uint32_t **out)
{
	uint64_t n = sec->hdr.dofs_size / 4;
	uint32_t dup;
	bool found;

	if ((uint64_t)idx + count > n)
		return fail(dc, who, "%s index %" PRIu32 " + count %" PRIu32
		    " exceeds the %" PRIu64 " entries of section %s", what, idx,
		    count, n, sec_label(dc, secidx).s);
	if ((*out = read_u32s(sec->data + (uint64_t)idx * 4, count)) == NULL ||
	    find_duplicate(*out, count, &dup, &found) != 0)
		return err_set(dc->e, "out of memory decoding DOF");
	if (found)
		return fail(dc, who, "%s 0x%" PRIx32 " appears twice", what, dup);
	return 0;
}

static int
read_argmap(const decoder_t *dc, const char *who, const prov_ctx_t *c,
    dofd_probe_t *r)
{
	const dof_probe_t *p = &r->raw;

	if ((uint64_t)p->dofpr_argidx + p->dofpr_xargc > c->prargs->hdr.dofs_size)
		return fail(dc, who, "argument map index %" PRIu32 " + %u entries "
		    "exceeds section %s of size 0x%" PRIx64, p->dofpr_argidx,
		    p->dofpr_xargc, sec_label(dc, c->s_prargs).s,
		    c->prargs->hdr.dofs_size);
	if (p->dofpr_xargc == 0)
		return 0;
	if ((r->argmap = malloc(p->dofpr_xargc)) == NULL)
		return err_set(dc->e, "out of memory decoding DOF");
	memcpy(r->argmap, c->prargs->data + p->dofpr_argidx, p->dofpr_xargc);
	for (unsigned k = 0; k < p->dofpr_xargc; k++)
		if (r->argmap[k] >= p->dofpr_nargc)
			return fail(dc, who, "translated argument %u maps to native "
			    "argument %u, but there are %u", k, r->argmap[k],
			    p->dofpr_nargc);
	return 0;
}

static int
decode_record(const decoder_t *dc, const prov_ctx_t *c, size_t j, dofd_probe_t *r)
{
	const dof_probe_t *p = &r->raw;
	char who[400];

	r->addr_offset = c->probes->hdr.dofs_offset + (uint64_t)j * sizeof(dof_probe_t);
	memcpy(&r->raw, c->probes->data + (uint64_t)j * sizeof(dof_probe_t), sizeof(r->raw));
	snprintf(who, sizeof(who), "%s: probe record %zu", c->who, j);
	if (read_name(dc, who, &c->st, p->dofpr_func, "function name", FUNCNAME_MAX, &r->func) != 0 ||
	    read_name(dc, who, &c->st, p->dofpr_name, "probe name", PROBENAME_MAX, &r->name) != 0)
		return -1;
	snprintf(who, sizeof(who), "%s: probe record %zu (%.64s:%.64s)", c->who, j,
	    r->func, r->name);

	if (read_offsets(dc, who, c->proffs, c->s_proffs, p->dofpr_offidx,
	    p->dofpr_noffs, "offset", &r->offs) != 0)
		return -1;
	if (dc->d->version >= DOF_VERSION_2) {
		if (c->prenoffs == NULL && (p->dofpr_enoffidx != 0 || p->dofpr_nenoffs != 0))
			return fail(dc, who, "%u is-enabled offsets at index %" PRIu32
			    " but the provider has no PRENOFFS section",
			    p->dofpr_nenoffs, p->dofpr_enoffidx);
		if (c->prenoffs != NULL && read_offsets(dc, who, c->prenoffs,
		    c->s_prenoffs, p->dofpr_enoffidx, p->dofpr_nenoffs,
		    "is-enabled offset", &r->enoffs) != 0)
			return -1;
		r->nenoffs = c->prenoffs != NULL ? p->dofpr_nenoffs : 0;
		if (p->dofpr_noffs == 0 && r->nenoffs == 0)
			return fail(dc, who, "no probe and no is-enabled offsets");
	} else if (p->dofpr_noffs == 0) {
		return fail(dc, who, "no probe offsets");
	}
	if (read_types(dc, who, &c->st, p->dofpr_nargv, p->dofpr_nargc, "native", &r->nargv) != 0 ||
	    read_types(dc, who, &c->st, p->dofpr_xargv, p->dofpr_xargc, "translated", &r->xargv) != 0)
		return -1;
	return read_argmap(dc, who, c, r);
}

static int
decode_provider(decoder_t *dc, uint32_t secidx, dofd_provider_t *pv)
{
	const dofd_section_t *ps = &dc->d->secs[secidx];
	const dofd_section_t *st;
	prov_ctx_t c;
	size_t n = ps->hdr.dofs_size < sizeof(pv->raw) ? ps->hdr.dofs_size : sizeof(pv->raw);

	memset(&c, 0, sizeof(c));
	pv->sec = secidx;
	memcpy(&pv->raw, ps->data, n);
	snprintf(c.who, sizeof(c.who), "DOF provider in section %" PRIu32, secidx);
	if ((st = sec_ref(dc, c.who, "dofpv_strtab", pv->raw.dofpv_strtab, DOF_SECT_STRTAB)) == NULL ||
	    (c.probes = sec_ref(dc, c.who, "dofpv_probes", pv->raw.dofpv_probes, DOF_SECT_PROBES)) == NULL ||
	    (c.prargs = sec_ref(dc, c.who, "dofpv_prargs", pv->raw.dofpv_prargs, DOF_SECT_PRARGS)) == NULL ||
	    (c.proffs = sec_ref(dc, c.who, "dofpv_proffs", pv->raw.dofpv_proffs, DOF_SECT_PROFFS)) == NULL)
		return -1;
	c.s_prargs = pv->raw.dofpv_prargs;
	c.s_proffs = pv->raw.dofpv_proffs;
	pv->has_prenoffs = dc->d->version >= DOF_VERSION_2 && pv->raw.dofpv_prenoffs != 0;
	if (pv->has_prenoffs) {
		c.s_prenoffs = pv->raw.dofpv_prenoffs;
		if ((c.prenoffs = sec_ref(dc, c.who, "dofpv_prenoffs", c.s_prenoffs,
		    DOF_SECT_PRENOFFS)) == NULL)
			return -1;
	}
	c.st = strtab_of(st, pv->raw.dofpv_strtab);
	if (read_name(dc, c.who, &c.st, pv->raw.dofpv_name, "provider name",
	    PROVNAME_MAX, &pv->name) != 0)
		return -1;
	snprintf(c.who, sizeof(c.who), "DOF provider '%.64s' (section %" PRIu32 ")",
	    pv->name, secidx);
	pv->nprobes = c.probes->hdr.dofs_size / sizeof(dof_probe_t);
	if (pv->nprobes == 0)
		return fail(dc, c.who, "no probe records (section %s is empty)",
		    sec_label(dc, pv->raw.dofpv_probes).s);
	if ((pv->probes = calloc(pv->nprobes, sizeof(*pv->probes))) == NULL) {
		pv->nprobes = 0;
		return err_set(dc->e, "out of memory decoding DOF");
	}
	for (size_t j = 0; j < pv->nprobes; j++)
		if (decode_record(dc, &c, j, &pv->probes[j]) != 0)
			return -1;
	return 0;
}

static int
decode_providers(decoder_t *dc)
{
	dof_decoded_t *d = dc->d;
	size_t n = 0;

	for (size_t i = 0; i < d->nsecs; i++)
		n += d->secs[i].hdr.dofs_type == DOF_SECT_PROVIDER;
	if (n == 0)
		return 0;
	if ((d->providers = calloc(n, sizeof(*d->providers))) == NULL)
		return err_set(dc->e, "out of memory decoding DOF");
	for (size_t i = 0; i < d->nsecs; i++) {
		if (d->secs[i].hdr.dofs_type != DOF_SECT_PROVIDER)
			continue;
		if (decode_provider(dc, (uint32_t)i, &d->providers[d->nproviders++]) != 0)
			return -1;
	}
	return 0;
}

/* ---- relocations ----------------------------------------------------- */

/* The probe record whose dofpr_addr lies at offset off of PROBES section tgt. */
static dofd_probe_t *
record_at(const dof_decoded_t *d, uint32_t tgt, uint64_t off)
{
	for (size_t i = 0; i < d->nproviders; i++) {
		const dofd_provider_t *pv = &d->providers[i];

		if (pv->raw.dofpv_probes == tgt && off / sizeof(dof_probe_t) < pv->nprobes)
			return &pv->probes[off / sizeof(dof_probe_t)];
	}
	return NULL;
}

static int
decode_reloc(const decoder_t *dc, const char *who, const dofd_relhdr_t *rh,
    const strtab_ref_t *st, const dofd_section_t *rs, const dofd_section_t *ts,
    size_t k, dofd_reloc_t *r)
{
	char rwho[240];
	dofd_probe_t *rec;

	memcpy(&r->raw, rs->data + k * sizeof(dof_relodesc_t), sizeof(r->raw));
	snprintf(rwho, sizeof(rwho), "%s: relocation %zu", who, k);
	if (read_name(dc, rwho, st, r->raw.dofr_name, "symbol name",
	    SIZE_MAX, &r->name) != 0)
		return -1;
	if (r->raw.dofr_type == DOF_RELO_NONE)
		return 0;
	if (r->raw.dofr_type != DOF_RELO_SETX && r->raw.dofr_type != DOF_RELO_DOFREL)
		return fail(dc, rwho, "type %" PRIu32 " is neither NONE (0), SETX (1) "
		    "nor DOFREL (2)", r->raw.dofr_type);
	if (r->raw.dofr_offset > ts->hdr.dofs_size ||
	    ts->hdr.dofs_size - r->raw.dofr_offset < sizeof(uint64_t))
		return fail(dc, rwho, "offset 0x%" PRIx64 " + 8 exceeds section %s "
		    "of size 0x%" PRIx64, r->raw.dofr_offset,
		    sec_label(dc, rh->raw.dofr_tgtsec).s, ts->hdr.dofs_size);
	if ((ts->hdr.dofs_offset + r->raw.dofr_offset) % 8 != 0 ||
	    r->raw.dofr_offset % sizeof(dof_probe_t) != 0)
		return fail(dc, rwho, "offset 0x%" PRIx64 " in section %s is not "
		    "the address of a probe record", r->raw.dofr_offset,
		    sec_label(dc, rh->raw.dofr_tgtsec).s);
	rec = record_at(dc->d, rh->raw.dofr_tgtsec, r->raw.dofr_offset);
	if (rec != NULL) {
		if (rec->reloc != NULL)
			return fail(dc, rwho, "relocates probe record %" PRIu64
			    " a second time", r->raw.dofr_offset / sizeof(dof_probe_t));
		rec->reloc = r->name;
		rec->reloc_type = r->raw.dofr_type;
		rec->reloc_data = r->raw.dofr_data;
	}
	return 0;
}

static int
decode_relhdr(decoder_t *dc, uint32_t secidx, dofd_relhdr_t *rh)
{
	const dofd_section_t *hs = &dc->d->secs[secidx], *ss, *rs, *ts;
	strtab_ref_t st;
	char who[64];

	rh->sec = secidx;
	memcpy(&rh->raw, hs->data, sizeof(rh->raw));
	snprintf(who, sizeof(who), "DOF relocation header in section %" PRIu32, secidx);
	if ((ss = sec_ref(dc, who, "dofr_strtab", rh->raw.dofr_strtab, DOF_SECT_STRTAB)) == NULL ||
	    (rs = sec_ref(dc, who, "dofr_relsec", rh->raw.dofr_relsec, DOF_SECT_RELTAB)) == NULL ||
	    (ts = sec_ref(dc, who, "dofr_tgtsec", rh->raw.dofr_tgtsec, DOF_SECT_PROBES)) == NULL)
		return -1;
	st = strtab_of(ss, rh->raw.dofr_strtab);
	rh->nrelocs = rs->hdr.dofs_size / sizeof(dof_relodesc_t);
	if (rh->nrelocs == 0)
		return 0;
	if ((rh->relocs = calloc(rh->nrelocs, sizeof(*rh->relocs))) == NULL) {
		rh->nrelocs = 0;
		return err_set(dc->e, "out of memory decoding DOF");
	}
	for (size_t k = 0; k < rh->nrelocs; k++)
		if (decode_reloc(dc, who, rh, &st, rs, ts, k, &rh->relocs[k]) != 0)
			return -1;
	return 0;
}

static int
decode_relocs(decoder_t *dc)
{
	dof_decoded_t *d = dc->d;
	size_t n = 0;

	for (size_t i = 0; i < d->nsecs; i++)
		n += d->secs[i].hdr.dofs_type == DOF_SECT_URELHDR;
	if (n == 0)
		return 0;
	if ((d->relhdrs = calloc(n, sizeof(*d->relhdrs))) == NULL)
		return err_set(dc->e, "out of memory decoding DOF");
	for (size_t i = 0; i < d->nsecs; i++) {
		if (d->secs[i].hdr.dofs_type != DOF_SECT_URELHDR)
			continue;
		if (decode_relhdr(dc, (uint32_t)i, &d->relhdrs[d->nrelhdrs++]) != 0)
			return -1;
	}
	return 0;
}

int
dof_decode_ex(const void *buf, size_t len, unsigned flags,
    dof_decoded_t *out, err_t *e)
{
	decoder_t dc = { buf, len, flags, out, e };

	memset(out, 0, sizeof(*out));
	out->image = buf;
	if (check_header(&dc) != 0 || read_sections(&dc) != 0 ||
	    decode_providers(&dc) != 0 || decode_relocs(&dc) != 0) {
		dof_decoded_free(out);
		return -1;
	}
	return 0;
}

int
dof_decode(const void *buf, size_t len, dof_decoded_t *out, err_t *e)
{
	return dof_decode_ex(buf, len, 0, out, e);
}

static bool
all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != 0)
			return false;
	return true;
}

/* Does the DOF at buf (len bytes left) claim more than the buffer holds? */
static bool
cut_at_loadsz(const uint8_t *buf, size_t len)
{
	dof_hdr_t h;

	if (len < sizeof(h))
		return false;
	memcpy(&h, buf, sizeof(h));
	return h.dofh_filesz > len;
}

int
dof_walk(const uint8_t *buf, size_t len, unsigned flags, dof_walk_fn *each,
    void *arg)
{
	size_t off = 0;

	while (off < len) {
		size_t chunk = len - off < 8 ? len - off : 8;
		unsigned f = 0;
		dof_decoded_t d;
		uint64_t next;
		err_t de;
		int rc;

		if (all_zero(buf + off, chunk)) {
			off += chunk;
			continue;
		}
		if ((flags & DOF_DECODE_LOADSZ) && cut_at_loadsz(buf + off, len - off))
			f = DOF_DECODE_LOADSZ;
		if (dof_decode_ex(buf + off, len - off, f, &d, &de) != 0)
			return each(arg, NULL, off, &de);
		next = f ? len : off + ((d.hdr.dofh_filesz + 7) & ~(uint64_t)7);
		if ((rc = each(arg, &d, off, NULL)) != 0)
			return rc;
		off = next > len ? len : (size_t)next;
	}
	return 0;
}

void
dof_decoded_free(dof_decoded_t *d)
{
	if (d == NULL)
		return;
	for (size_t i = 0; i < d->nproviders; i++) {
		dofd_provider_t *pv = &d->providers[i];

		for (size_t j = 0; j < pv->nprobes; j++) {
			dofd_probe_t *r = &pv->probes[j];

			free(r->nargv);
			free(r->xargv);
			free(r->argmap);
			free(r->offs);
			free(r->enoffs);
		}
		free(pv->probes);
	}
	free(d->providers);
	for (size_t i = 0; i < d->nrelhdrs; i++)
		free(d->relhdrs[i].relocs);
	free(d->relhdrs);
	free(d->secs);
	memset(d, 0, sizeof(*d));
}

/* ---- stapsdt notes --------------------------------------------------- */

#define NOTE_ALIGN	4

static size_t
note_pad(size_t n)
{
	return (n + NOTE_ALIGN - 1) & ~(size_t)(NOTE_ALIGN - 1);
}

/* The size-byte word at p (2, 4 or 8 bytes), big-endian when msb. */
static uint64_t
read_word(const uint8_t *p, unsigned size, bool msb)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < size; i++)
		v |= (uint64_t)p[msb ? i : size - 1 - i] << (8 * (size - 1 - i));
	return v;
}

/* The NUL-terminated string at *pos inside desc[0..end); advances *pos. */
static const char *
desc_string(const uint8_t *desc, size_t end, size_t *pos)
{
	const uint8_t *nul;

	if (*pos >= end)
		return NULL;
	nul = memchr(desc + *pos, '\0', end - *pos);
	if (nul == NULL)
		return NULL;
	{
		const char *s = (const char *)desc + *pos;

		*pos = (size_t)(nul - desc) + 1;
		return s;
	}
}

static int
parse_stapsdt_desc(const uint8_t *desc, size_t descsz, unsigned asz, bool msb,
    size_t at, stapsdt_note_t *n, err_t *e)
{
	size_t pos = STAPSDT_NADDRS * (size_t)asz;

	if (descsz < pos)
		return err_set(e, "stapsdt note at 0x%zx: descriptor of %zu bytes "
		    "is too short for three %u-byte addresses", at, descsz, asz);
	n->pc = read_word(desc, asz, msb);
	n->base = read_word(desc + STAPSDT_BASE * asz, asz, msb);
	n->semaphore = read_word(desc + STAPSDT_SEMAPHORE * asz, asz, msb);
	if ((n->provider = desc_string(desc, descsz, &pos)) == NULL)
		return err_set(e, "stapsdt note at 0x%zx: provider name is not "
		    "NUL-terminated inside the descriptor", at);
	if ((n->name = desc_string(desc, descsz, &pos)) == NULL)
		return err_set(e, "stapsdt note at 0x%zx: probe name is not "
		    "NUL-terminated inside the descriptor", at);
	if ((n->args = desc_string(desc, descsz, &pos)) == NULL)
		return err_set(e, "stapsdt note at 0x%zx: argument string is not "
		    "NUL-terminated inside the descriptor", at);
	if (n->provider[0] == '\0' || n->name[0] == '\0')
		return err_set(e, "stapsdt note at 0x%zx: empty %s name", at,
		    n->provider[0] == '\0' ? "provider" : "probe");
	return 0;
}

static int
add_note(stapsdt_notes_t *out, const stapsdt_note_t *n, err_t *e)
{
	stapsdt_note_t *v = realloc(out->notes, (out->n + 1) * sizeof(*v));

	if (v == NULL)
		return err_set(e, "out of memory decoding stapsdt notes");
	out->notes = v;
	v[out->n++] = *n;
	return 0;
}

int
dof_stapsdt_decode(const void *buf, size_t len, unsigned addr_size,
    stapsdt_notes_t *out, err_t *e)
{
	const uint16_t one = 1;

	return dof_stapsdt_decode_order(buf, len, addr_size, *(const uint8_t *)&one == 0,
	    out, e);
}

int
dof_stapsdt_decode_order(const void *buf, size_t len, unsigned addr_size, bool msb,
    stapsdt_notes_t *out, err_t *e)
{
	const uint8_t *b = buf;
	size_t off = 0;

	memset(out, 0, sizeof(*out));
	if (addr_size != 4 && addr_size != 8)
		return err_set(e, "stapsdt notes: address size %u is not 4 or 8", addr_size);
	while (off < len) {
		uint32_t hdr[3];	/* namesz, descsz, type */
		size_t name_off, desc_off;
		stapsdt_note_t n;

		if (len - off < sizeof(hdr)) {
			err_set(e, "note at 0x%zx: %zu bytes left, too few for a note "
			    "header", off, len - off);
			goto fail;
		}
		for (size_t i = 0; i < 3; i++)
			hdr[i] = (uint32_t)read_word(b + off + 4 * i, 4, msb);
		name_off = off + sizeof(hdr);
		if (hdr[0] > len - name_off || note_pad(hdr[0]) > len - name_off) {
			err_set(e, "note at 0x%zx: name size %" PRIu32 " runs past the "
			    "section end 0x%zx", off, hdr[0], len);
			goto fail;
		}
		desc_off = name_off + note_pad(hdr[0]);
		if (hdr[1] > len - desc_off) {
			err_set(e, "note at 0x%zx: descriptor size %" PRIu32 " runs past "
			    "the section end 0x%zx", off, hdr[1], len);
			goto fail;
		}
		if (hdr[2] == STAPSDT_NOTE_TYPE && hdr[0] == sizeof(STAPSDT_NOTE_NAME) &&
		    memcmp(b + name_off, STAPSDT_NOTE_NAME, sizeof(STAPSDT_NOTE_NAME)) == 0) {
			memset(&n, 0, sizeof(n));
			n.offset = off;
			n.desc_offset = desc_off;
			if (parse_stapsdt_desc(b + desc_off, hdr[1], addr_size, msb, off, &n, e) != 0 ||
			    add_note(out, &n, e) != 0)
				goto fail;
		}
		/* The last note may end without padding. */
		off = desc_off + hdr[1];
		off = note_pad(off) < len ? note_pad(off) : len;
	}
	return 0;
fail:
	dof_stapsdt_notes_free(out);
	return -1;
}

void
dof_stapsdt_notes_free(stapsdt_notes_t *n)
{
	if (n == NULL)
		return;
	free(n->notes);
	memset(n, 0, sizeof(*n));
}
