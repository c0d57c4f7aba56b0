/*
 * xnu.c - xnu's own DOF code over a Mach-O object of usdtc's, laid out as
 * ld64 and dyld would, for tests/kdof.
 *
 * Why: on macOS no drti registers the DOF.  dyld hands every S_DTRACE_DOF
 * section of an image to /dev/dtracehelper in one DTRACEHIOC_ADDDOF, each
 * as a dof_helper_t whose dofhp_dof and dofhp_addr are both the section's
 * address (DyldRuntimeState.cpp's notifyDtrace); xnu copies each in
 * (dtrace_dof_copyin), validates it (dtrace_dof_slurp,
 * dtrace_helper_slurp, dtrace_helper_provider_validate) and fasttrap
 * places each tracepoint at the section's address plus the entry, with
 * the architecture's adjustment (dtrace_helper_provide_one,
 * fasttrap_meta_provide, fasttrap_meta_create_probe).  Those functions are
 * pulled out of xnu's sources at build time (kdof_extracted.c, unchanged)
 * and compiled for x86_64, or for arm64 (-DKDOF_ARM64: xnu's #if
 * __arm64__ branches) on this x86_64 host.
 *
 * No ld64 here, so this program lays the object out itself: every section
 * at its address in the object plus a base (the image's load address,
 * slid or not), and the object's relocations applied as a static linker
 * would (the SUBTRACTOR/UNSIGNED pairs that make each DOF site entry the
 * site minus the DOF; UNSIGNED absolute addresses).  That image is the
 * process's memory: copyin reads it.  Then every S_DTRACE_DOF section is
 * registered as dyld registers it, the kernel's answers logged on stdout:
 *	DOF sect=NAME addr=0x..
 *	KERNEL <what the kernel printed>
 *	PROBE prov:mod:func:name tracepoints=N
 *	TP prov:name probe|is-enabled rel=0x.. ok|BAD  (rel: pc - base; ok:
 *	   the bytes there are the tracepoint, a nop, or for an is-enabled
 *	   site `xor %rax,%rax; nop` / `mov x0, #0`)
 *	RESULT rval=N gen=G
 * and what the object's unit symbols say each tracepoint must be:
 *	WANT prov:name probe|is-enabled rel=0x..
 * Usage: xnu OBJECT BASE [GAP [MODULE]] (GAP: see lay_out); exit 0 unless
 * the object cannot be read or laid out.
 */
#define _GNU_SOURCE
#include "kshim_xnu.h"

#define __APPLE__ 1
#ifdef KDOF_ARM64
#undef __x86_64__
#undef __amd64__
#define __arm64__ 1
#endif
#define KERNEL 1
#define _KERNEL 1
#include <sys/dtrace.h>
#include <sys/dtrace_impl.h>
#include <sys/fasttrap_impl.h>

/* ---- the process ------------------------------------------------------- */

struct proc {
	pid_t p_pid;
	dtrace_helpers_t *p_dtrace_helpers;
};
static struct proc kdof_proc = { 4242, NULL };

#define proc_getpid(p)	((p)->p_pid)

/* The laid-out image: user addresses [kdof_base, kdof_base + kdof_size). */
static uint8_t *kdof_image;
static uint64_t kdof_base, kdof_size;

int
copyin(user_addr_t uaddr, void *kaddr, size_t n)
{
	if (uaddr < kdof_base || n > kdof_size || uaddr - kdof_base > kdof_size - n)
		return EFAULT;
	memcpy(kaddr, kdof_image + (uaddr - kdof_base), n);
	return 0;
}

/* ---- kernel services ----------------------------------------------------- */

#define ASSERT(x)			((void)0)
#define LCK_MTX_ASSERT(m, t)		((void)0)
#define lck_mtx_lock(m)			((void)(m))
#define lck_mtx_unlock(m)		((void)(m))
#define os_atomic_add(p, v, o)		(*(p) += (v))
#define os_atomic_sub(p, v, o)		(*(p) -= (v))
#define zalloc_flags(zone, f)		calloc(1, (zone)->size)
#define Z_WAITOK			0
#define Z_ZERO				0
#define KM_SLEEP			0
#define CE_WARN				2
#undef kmem_alloc
#undef kmem_zalloc
#undef kmem_free
#define kmem_alloc(n, f)		calloc(1, (n) ? (n) : 1)
#define kmem_zalloc(n, f)		calloc(1, (n) ? (n) : 1)
#define kmem_free(p, n)			free(p)
#define kmem_alloc_aligned(n, a, f)	aligned_alloc(8, ((n) + 7) & ~(size_t)7)
#define kmem_free_aligned(p, n)		free(p)
#define IS_P2ALIGNED(v, a)		((((uintptr_t)(v)) & ((uintptr_t)(a) - 1)) == 0)
#define LIT_STRNEQL(s, lit)		(strncmp((s), (lit), sizeof(lit)) == 0)

void *
dt_kmem_alloc_tag(size_t n, int flags, vm_tag_t tag)
{
	(void)flags; (void)tag;
	return calloc(1, n ? n : 1);
}

void *
dt_kmem_zalloc_tag(size_t n, int flags, vm_tag_t tag)
{
	(void)flags; (void)tag;
	return calloc(1, n ? n : 1);
}

void
dt_kmem_free(void *p, size_t n)
{
	(void)n;
	free(p);
}

void
cmn_err(int level, const char *fmt, ...)
{
	va_list ap;

	(void)level;
	fputs("KERNEL ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
}

/* fasttrap's zones: a size each. */
struct zone { size_t size; };
#define FASTTRAP_PROBE_T_ZONE_MAX_TRACEPOINTS 4
static struct zone kdof_tp_zone = { sizeof(fasttrap_tracepoint_t) };
static struct zone *fasttrap_tracepoint_t_zone = &kdof_tp_zone;
static struct zone kdof_probe_zones[FASTTRAP_PROBE_T_ZONE_MAX_TRACEPOINTS];
static struct zone *fasttrap_probe_t_zones[FASTTRAP_PROBE_T_ZONE_MAX_TRACEPOINTS];

/* ---- the framework's state the functions read ---------------------------- */

static lck_mtx_t dtrace_lock, dtrace_meta_lock;
static dtrace_meta_t *dtrace_meta_pid;
static dtrace_helpers_t *dtrace_deferred_pid;
static uint32_t dtrace_helper_providers_max = 64;
static uint64_t dtrace_dof_maxsize = 8 * 1024 * 1024;
static int dtrace_err_verbose = 1;
static uint32_t dtrace_helpers;
static uint32_t fasttrap_total, fasttrap_max = 250000;

/* ---- providers and probes, logged ---------------------------------------- */

/* xnu's provider id is its dtrace_provider_t (fasttrap_meta_provider_name reads it). */
static const char *
kdof_provname(dtrace_provider_id_t id)
{
	return ((dtrace_provider_t *)id)->dtpv_name;
}

/* The bytes at a tracepoint: the nop of a probe, the is-enabled site's. */
static int
kdof_site_ok(uint64_t pc, int is_enabled)
{
	uint8_t b[5];
#ifdef KDOF_ARM64
	static const uint8_t nop[4] = { 0x1f, 0x20, 0x03, 0xd5 }, mov_x0_0[4] = { 0x00, 0x00, 0x80, 0xd2 };

	return (pc & 3) == 0 && copyin(pc, b, 4) == 0 &&
	    memcmp(b, is_enabled ? mov_x0_0 : nop, 4) == 0;
#else
	static const uint8_t nop5[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 }, xor_nop[4] = { 0x48, 0x33, 0xc0, 0x90 };

	if (is_enabled)
		return copyin(pc - 3, b, 4) == 0 && memcmp(b, xor_nop, 4) == 0;
	return copyin(pc, b, 5) == 0 && memcmp(b, nop5, 5) == 0;
#endif
}

dtrace_id_t
dtrace_probe_create(dtrace_provider_id_t prov, const char *mod, const char *func,
    const char *name, int aframes, void *arg)
{
	static dtrace_id_t n;
	fasttrap_probe_t *pp = arg;
	const char *pname = kdof_provname(prov);
	size_t plen = strcspn(pname, "0123456789");

	(void)aframes;
	printf("PROBE %s:%s:%s:%s tracepoints=%u\n", pname, mod, func, name, (unsigned)pp->ftp_ntps);
	for (uint64_t i = 0; i < pp->ftp_ntps; i++) {
		uint64_t pc = pp->ftp_tps[i].fit_tp->ftt_pc;
		int en = pp->ftp_tps[i].fit_id.fti_ptype == DTFTP_IS_ENABLED;

		printf("TP %.*s:%s %s rel=0x%llx %s\n", (int)plen, pname, name,
		    en ? "is-enabled" : "probe", (unsigned long long)(pc - kdof_base),
		    kdof_site_ok(pc, en) ? "ok" : "BAD");
	}
	return ++n;
}

static fasttrap_provider_t *kdof_fprovs;

static fasttrap_provider_t *
fasttrap_provider_lookup(proc_t *p, fasttrap_provider_type_t type, const char *name,
    const dtrace_pattr_t *pattr)
{
	fasttrap_provider_t *fp;
	dtrace_provider_t *dp;

	(void)type; (void)pattr;
	for (fp = kdof_fprovs; fp != NULL; fp = fp->ftp_next)
		if (fp->ftp_pid == proc_getpid(p) && strcmp(fp->ftp_name, name) == 0)
			return fp;
	if ((fp = calloc(1, sizeof(*fp))) == NULL || (dp = calloc(1, sizeof(*dp))) == NULL ||
	    asprintf(&dp->dtpv_name, "%s%d", name, (int)proc_getpid(p)) < 0)
		abort();
	fp->ftp_pid = proc_getpid(p);
	snprintf(fp->ftp_name, sizeof(fp->ftp_name), "%s", name);
	fp->ftp_provid = (dtrace_provider_id_t)dp;
	fp->ftp_next = kdof_fprovs;
	kdof_fprovs = fp;
	return fp;
}

/* ---- what a helper DOF without enablings never reaches ------------------- */

static dtrace_enabling_t *
dtrace_enabling_create(dtrace_vstate_t *vstate)
{
	dtrace_enabling_t *e = calloc(1, sizeof(*e));

	if (e != NULL)
		e->dten_vstate = vstate;
	return e;
}

static void
dtrace_enabling_destroy(dtrace_enabling_t *enab)
{
	free(enab);
}

static void
dtrace_enabling_add(dtrace_enabling_t *enab, dtrace_ecbdesc_t *ep)
{
	(void)enab; (void)ep;
	abort();
}

static dtrace_ecbdesc_t *
dtrace_dof_ecbdesc(dof_hdr_t *dof, dof_sec_t *sec, dtrace_vstate_t *vstate, cred_t *cr)
{
	(void)dof; (void)sec; (void)vstate; (void)cr;
	puts("ERROR the DOF holds an ECB description");
	return NULL;
}

static int
dtrace_helper_action_add(proc_t *p, int which, dtrace_ecbdesc_t *ep)
{
	(void)p; (void)which; (void)ep;
	return EINVAL;
}

static int
dtrace_helper_destroygen(proc_t *p, int gen)
{
	(void)p; (void)gen;
	return 0;
}

static void dtrace_enabling_matchall_with_cond(dtrace_match_cond_t *cond) { (void)cond; }
int dtrace_attached(void) { return 1; }

/* ---- xnu's own functions --------------------------------------------------- */

#include "kdof_extracted.c"

static dtrace_meta_t kdof_meta = {
	.dtm_mops = {
		.dtms_create_probe = fasttrap_meta_create_probe,
		.dtms_provide_proc = fasttrap_meta_provide,
		.dtms_provider_name = fasttrap_meta_provider_name,
	},
	.dtm_name = "fasttrap",
};

/* ---- the object, laid out --------------------------------------------------- */

#define MH_MAGIC_64		0xfeedfacfu
#define LC_SEGMENT_64		0x19u
#define LC_SYMTAB		0x2u
#define SECTION_TYPE		0xffu
#define S_ZEROFILL		0x1u
#define S_DTRACE_DOF		0xfu
#define N_STAB			0xe0u
#define N_TYPE			0x0eu
#define N_SECT			0x0eu
#define RELOC_UNSIGNED		0u	/* both machines */
#ifdef KDOF_ARM64
#define RELOC_SUBTRACTOR	1u	/* ARM64_RELOC_SUBTRACTOR */
#else
#define RELOC_SUBTRACTOR	5u	/* X86_64_RELOC_SUBTRACTOR */
#endif

typedef struct sect {
	char name[17];
	uint64_t addr, size;
	uint32_t offset, reloff, nreloc, flags;
	uint64_t moved;		/* how far lay_out moved it */
} sect_t;

static uint8_t *file;
static size_t file_len;
static sect_t sects[64];
static unsigned nsects;
static uint32_t symoff, nsyms, stroff, strsize;

static int
rd(uint64_t off, void *out, size_t n)
{
	if (off > file_len || n > file_len - off)
		return -1;
	memcpy(out, file + off, n);
	return 0;
}

static int
read_object(void)
{
	uint32_t magic, ncmds;
	uint64_t at = 32;

	if (rd(0, &magic, 4) != 0 || magic != MH_MAGIC_64 || rd(16, &ncmds, 4) != 0)
		return -1;
	for (uint32_t c = 0; c < ncmds; c++) {
		uint32_t cmd, size;

		if (rd(at, &cmd, 4) != 0 || rd(at + 4, &size, 4) != 0 || size < 8)
			return -1;
		if (cmd == LC_SEGMENT_64) {
			uint32_t n;

			if (rd(at + 64, &n, 4) != 0)
				return -1;
			for (uint32_t k = 0; k < n && nsects < 64; k++) {
				uint64_t s = at + 72 + 80 * (uint64_t)k;
				sect_t *x = &sects[nsects++];

				if (rd(s, x->name, 16) != 0 || rd(s + 32, &x->addr, 8) != 0 ||
				    rd(s + 40, &x->size, 8) != 0 || rd(s + 48, &x->offset, 4) != 0 ||
				    rd(s + 56, &x->reloff, 4) != 0 || rd(s + 60, &x->nreloc, 4) != 0 ||
				    rd(s + 64, &x->flags, 4) != 0)
					return -1;
			}
		} else if (cmd == LC_SYMTAB) {
			if (rd(at + 8, &symoff, 4) != 0 || rd(at + 12, &nsyms, 4) != 0 ||
			    rd(at + 16, &stroff, 4) != 0 || rd(at + 20, &strsize, 4) != 0)
				return -1;
		}
		at += size;
	}
	return 0;
}

/* Symbol i's address in the image less the base, its name in *name. */
static int
symbol(uint32_t i, uint64_t *addr, const char **name)
{
	uint32_t strx;
	uint8_t type, sect;

	if (i >= nsyms || rd(symoff + 16 * (uint64_t)i, &strx, 4) != 0 ||
	    rd(symoff + 16 * (uint64_t)i + 4, &type, 1) != 0 ||
	    rd(symoff + 16 * (uint64_t)i + 5, &sect, 1) != 0 ||
	    rd(symoff + 16 * (uint64_t)i + 8, addr, 8) != 0 || strx >= strsize)
		return -1;
	*name = (const char *)file + stroff + strx;
	if ((type & N_STAB) != 0 || (type & N_TYPE) != N_SECT || sect == 0 || sect > nsects)
		return -1;
	*addr += sects[sect - 1].moved;
	return 0;
}

/* What relocation word w (extern or section ordinal) names, laid out. */
static int
target(uint32_t w, uint64_t *v)
{
	uint32_t num = w & 0xffffffu;
	const char *name;

	if (w & (1u << 27))
		return symbol(num, v, &name) == 0 ? (*v += kdof_base, 0) : -1;
	if (num == 0 || num > nsects)
		return -1;
	*v = kdof_base + sects[num - 1].addr;
	return 0;
}

/* The static linker's work on one section: each relocation applied. */
static int
relocate(const sect_t *s)
{
	uint64_t minus = 0;
	int have_minus = 0;

	for (uint32_t k = 0; k < s->nreloc; k++) {
		int32_t address;
		uint32_t w;
		uint64_t v, at;
		unsigned type, len;

		if (rd(s->reloff + 8 * (uint64_t)k, &address, 4) != 0 ||
		    rd(s->reloff + 8 * (uint64_t)k + 4, &w, 4) != 0 || address < 0)
			return -1;
		type = w >> 28;
		len = 1u << ((w >> 25) & 3);
		at = s->addr + (uint32_t)address;
		if (target(w, &v) != 0 || (w & (1u << 24)) || at + len > kdof_size)
			return printf("ERROR relocation %u of %s\n", k, s->name), -1;
		if (type == RELOC_SUBTRACTOR) {
			minus = v;
			have_minus = 1;
			continue;
		}
		if (type != RELOC_UNSIGNED || (len != 4 && len != 8))
			return printf("ERROR relocation type %u of %s\n", type, s->name), -1;
		if (len == 4) {
			int32_t a;

			memcpy(&a, kdof_image + at, 4);
			a = (int32_t)(v - (have_minus ? minus : 0) + (uint64_t)(int64_t)a);
			memcpy(kdof_image + at, &a, 4);
		} else {
			uint64_t a;

			memcpy(&a, kdof_image + at, 8);
			a += v - (have_minus ? minus : 0);
			memcpy(kdof_image + at, &a, 8);
		}
		have_minus = 0;
	}
	return 0;
}

/*
 * Each section at its address in the object, the S_DTRACE_DOF ones moved
 * gap bytes further (as when ld64 puts other objects' code between this
 * object's text and its DOF), then the relocations applied; with
 * KDOF_NO_RELOC set none is (the check must then fail).
 */
static int
lay_out(uint64_t gap)
{
	kdof_size = 0;
	for (unsigned i = 0; i < nsects; i++)
		if ((sects[i].flags & SECTION_TYPE) == S_DTRACE_DOF) {
			sects[i].addr += gap;
			sects[i].moved = gap;
		}
	for (unsigned i = 0; i < nsects; i++)
		if (sects[i].addr + sects[i].size > kdof_size)
			kdof_size = sects[i].addr + sects[i].size;
	if ((kdof_image = calloc(1, kdof_size + 16)) == NULL)
		return -1;
	for (unsigned i = 0; i < nsects; i++)
		if ((sects[i].flags & SECTION_TYPE) != S_ZEROFILL &&
		    rd(sects[i].offset, kdof_image + sects[i].addr, sects[i].size) != 0)
			return -1;
	for (unsigned i = 0; i < nsects && getenv("KDOF_NO_RELOC") == NULL; i++)
		if (relocate(&sects[i]) != 0)
			return -1;
	return 0;
}

/* WANT lines: each unit symbol's tracepoint, by macOS's names. */
static void
wants(void)
{
	for (uint32_t i = 0; i < nsyms; i++) {
		uint64_t addr;
		const char *name, *p;
		int en;
		char prov[128], probe[128];
		size_t n = 0;

		if (symbol(i, &addr, &name) != 0)
			continue;
		if (strncmp(name, "___dtrace_probe$", 16) == 0)
			en = 0, p = name + 16;
		else if (strncmp(name, "___dtrace_isenabled$", 20) == 0)
			en = 1, p = name + 20;
		else
			continue;
		if (sscanf(p, "%127[^$]$%127[^$]", prov, probe) != 2)
			continue;
		for (const char *q = probe; *q; q++, n++)	/* __ is - in DTrace */
			if (q[0] == '_' && q[1] == '_')
				probe[n] = '-', q++;
			else
				probe[n] = *q;
		probe[n] = '\0';
#ifdef KDOF_ARM64
		uint64_t adj = 0;
#else
		uint64_t adj = en ? 3 : 2;	/* past xor %rax,%rax; past pop %r11 */
#endif
		printf("WANT %s:%s %s rel=0x%llx\n", prov, probe, en ? "is-enabled" : "probe",
		    (unsigned long long)(addr + adj));
	}
}

int
main(int argc, char **argv)
{
	FILE *f;
	long len;
	int rv = 0;

	if (argc < 3 || (f = fopen(argv[1], "rb")) == NULL)
		return fprintf(stderr, "usage: xnu OBJECT BASE [GAP [MODULE]]\n"), 2;
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	if (len <= 0 || (file = malloc((size_t)len)) == NULL || fread(file, 1, (size_t)len, f) != (size_t)len)
		return fprintf(stderr, "xnu: cannot read %s\n", argv[1]), 2;
	fclose(f);
	file_len = (size_t)len;
	kdof_base = strtoull(argv[2], NULL, 0);
	if (read_object() != 0 || lay_out(argc > 3 ? strtoull(argv[3], NULL, 0) : 0) != 0)
		return fprintf(stderr, "xnu: %s: not an object this can lay out\n", argv[1]), 2;
	for (int i = 1; i < FASTTRAP_PROBE_T_ZONE_MAX_TRACEPOINTS; i++) {
		kdof_probe_zones[i].size = offsetof(fasttrap_probe_t, ftp_tps[i]);
		fasttrap_probe_t_zones[i] = &kdof_probe_zones[i];
	}
	dtrace_meta_pid = &kdof_meta;
	wants();
	/* dyld: one dof_helper_t per S_DTRACE_DOF section, dof = addr = its address. */
	for (unsigned i = 0; i < nsects; i++) {
		dof_helper_t dh;
		dof_hdr_t *dof;
		int64_t gen = -1;

		if ((sects[i].flags & SECTION_TYPE) != S_DTRACE_DOF)
			continue;
		memset(&dh, 0, sizeof(dh));
		snprintf(dh.dofhp_mod, sizeof(dh.dofhp_mod), "%s", argc > 4 ? argv[4] : "image");
		dh.dofhp_dof = dh.dofhp_addr = kdof_base + sects[i].addr;
		printf("DOF sect=%s addr=0x%llx\n", sects[i].name, (unsigned long long)dh.dofhp_dof);
		/* dtrace_ioctl_helper's ADDDOF when not lazy: copy in, slurp. */
		if ((dof = dtrace_dof_copyin(dh.dofhp_dof, &rv)) != NULL) {
			if ((gen = (int64_t)dtrace_helper_slurp(&kdof_proc, dof, &dh)) == -1)
				rv = EINVAL;
		}
		printf("RESULT rval=%d gen=%lld\n", rv, (long long)gen);
		rv = 0;
	}
	return 0;
}
