/*
 * kernel.c - the illumos or FreeBSD kernel's DOF code as an LD_PRELOAD
 * helper device, for tests/kdof.
 *
 * Why: usdtc's DOF for x86_64-freebsd and x86_64-illumos is read by those
 * kernels, not by usdtc's decoder.  This file puts their own functions
 * (pulled out of the kernel sources at build time by extract.awk into
 * kdof_extracted.c, unchanged) behind the helper device that
 * runtime/drti_kernel.c opens, inside a real program linked and loaded
 * here: the dynamic loader relocated the DOF as it does on those systems
 * with GNU ld and lld, and drti_kernel.c built the dof_helper_t itself.
 * The kernel copies the DOF in (dtrace_ioctl_helper, dtrace_dof_copyin),
 * relocates and validates it (dtrace_dof_slurp, dtrace_dof_relocate,
 * dtrace_helper_slurp, dtrace_helper_provider_validate) and fasttrap
 * creates each probe and tracepoint (dtrace_helper_provide_one,
 * fasttrap_meta_provide, fasttrap_meta_create_probe).  The rest of the
 * kernel is here, small: allocation, locks, copyin from this process,
 * the provider hash (fasttrap_provider_lookup's work), and
 * dtrace_register/dtrace_probe_create, which log what they are given.
 *
 * Environment:
 *	KDOF_DEV	the device path (the program's DTRACE_DOF_INIT_DEVNAME)
 *	KDOF_LOG	the log, one line per write:
 *	  ADDDOF mod=M addr=0x.. dof=0x..	(the dof_helper_t drti_kernel.c built)
 *	  KERNEL <what the kernel printed>
 *	  PROVIDER <name>
 *	  PROBE prov:mod:func:name tracepoints=N args=NxM
 *	  TP prov:func:name offset|is-enabled pc=0x.. obj=O rel=0x.. ok|BAD
 *	  RESULT rval=N gen=G			(the ioctl's error, the generation)
 *	  REMOVE gen=G
 *	KDOF_UNRELOCATED  set: copyin reads the DOF as it is in the file, with
 *			the dynamic relocations applied at base 0 (illumos' ld,
 *			which does not relocate the DOF at load time)
 *	KDOF_CORRUPT	magic|version|loadsz|stroff|argmap: copyin corrupts that
 *			part of the DOF it hands the kernel (the kernel must
 *			refuse it)
 * Build: see tests/kdof/run (-DKDOF_FREEBSD or -DKDOF_ILLUMOS, the kernel's
 * sys/ headers on the include path, kdof_extracted.c beside it).
 */
#define _GNU_SOURCE
#include "kshim.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/uio.h>
#include <unistd.h>

#ifdef KDOF_FREEBSD
#define __FreeBSD__ 12
#else
#define illumos 1
#define curproc (&kdof_proc)
#endif
#define _KERNEL 1
#include <sys/dtrace.h>
#include <sys/fasttrap_impl.h>

/* ---- the framework's state the functions read (dtrace_impl.h's) ---------- */

typedef struct dtrace_vstate { int dtvs_unused; } dtrace_vstate_t;
typedef struct dtrace_enabling {
	dtrace_ecbdesc_t **dten_desc;
	int dten_ndesc;
} dtrace_enabling_t;
typedef struct dtrace_helper_action dtrace_helper_action_t;
typedef struct dtrace_helper_provider {
	dof_helper_t dthp_prov;
	uint32_t dthp_ref;
	uint32_t dthp_generation;
} dtrace_helper_provider_t;
typedef struct dtrace_helpers {
	dtrace_helper_action_t **dthps_actions;
	dtrace_vstate_t dthps_vstate;
	uint32_t dthps_generation;
	uint_t dthps_nprovs;
	uint_t dthps_maxprovs;
	dtrace_helper_provider_t **dthps_provs;
	uint64_t dthps_has_offsets;
	struct dtrace_helpers *dthps_next;
	struct dtrace_helpers *dthps_prev;
	uint_t dthps_deferred;
	pid_t dthps_pid;
} dtrace_helpers_t;
typedef struct dtrace_meta {
	dtrace_mops_t dtm_mops;
	char *dtm_name;
	void *dtm_arg;
	uint64_t dtm_count;
} dtrace_meta_t;

#define DTRACE_NHELPER_ACTIONS	2
#define DTRACE_HELPER_ACTION_USTACK	0

#ifdef KDOF_FREEBSD
#define KDOF_LOOKUP_CONST
#else
#define KDOF_LOOKUP_CONST const
#endif

static kmutex_t dtrace_lock, dtrace_meta_lock;
static dtrace_meta_t *dtrace_meta_pid;
static dtrace_helpers_t *dtrace_deferred_pid;
static uint32_t dtrace_helper_providers_max = 64;	/* the kernels' default */
static size_t dtrace_dof_maxsize = 8 * 1024 * 1024;	/* the kernels' default */
static int dtrace_err_verbose = 1;
static uint32_t dtrace_helpers;
static uint32_t fasttrap_total, fasttrap_max = 250000;	/* fasttrap's default */
static proc_t kdof_proc;

/* ---- logging ---------------------------------------------------------------- */

static void kdof_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void
kdof_log(const char *fmt, ...)
{
	char line[1024];
	const char *path = getenv("KDOF_LOG");
	va_list ap;
	int fd, n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	if (path == NULL || (fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644)) < 0)
		return;
	(void)!write(fd, line, (size_t)n);
	close(fd);
}

/* cmn_err and the printf of fasttrap: what the kernel says goes to the log. */
void
cmn_err(int level, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	(void)level;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	kdof_log("KERNEL %s", msg);
}
#define printf(...) cmn_err(CE_WARN, __VA_ARGS__)

void *
kdof_alloc(size_t n, int zero)
{
	void *p = zero ? calloc(1, n ? n : 1) : malloc(n ? n : 1);

	if (p == NULL)
		abort();	/* KM_SLEEP does not fail */
	return p;
}

/* ---- copyin: this process's memory, or the DOF as its file holds it ------ */

/* Read n bytes at addr of this process without faulting; 0 or -1. */
static int
kdof_read_self(uintptr_t addr, void *buf, size_t n)
{
	struct iovec local = { buf, n }, remote = { (void *)addr, n };

	return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)n ? 0 : -1;
}

struct kdof_find {
	uintptr_t addr;
	uintptr_t bias;
	const char *path;
	const ElfW(Phdr) *ph;		/* the PT_LOAD holding addr */
};

static int
kdof_find_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct kdof_find *f = arg;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t start = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && f->addr >= start && f->addr - start < ph->p_memsz) {
			f->bias = info->dlpi_addr;
			f->path = info->dlpi_name[0] ? info->dlpi_name : "/proc/self/exe";
			f->ph = ph;
			return 1;
		}
	}
	return 0;
}

/* The loaded object holding addr; 0, or -1 if none does. */
static int
kdof_find(uintptr_t addr, struct kdof_find *f)
{
	*f = (struct kdof_find){ addr, 0, NULL, NULL };
	return dl_iterate_phdr(kdof_find_cb, f) ? 0 : -1;
}

static const char *
kdof_base(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* Apply one RELA section's relocations that fall in [vaddr, vaddr+n) at base 0. */
static int
kdof_apply_rela(const uint8_t *img, size_t len, const Elf64_Shdr *sh, const Elf64_Shdr *shdrs,
    uint64_t vaddr, uint8_t *buf, size_t n)
{
	const Elf64_Shdr *symsh = &shdrs[sh->sh_link];

	for (uint64_t off = sh->sh_offset; off + sizeof(Elf64_Rela) <= sh->sh_offset + sh->sh_size &&
	    off + sizeof(Elf64_Rela) <= len; off += sizeof(Elf64_Rela)) {
		Elf64_Rela r;
		uint64_t v;

		memcpy(&r, img + off, sizeof(r));
		if (r.r_offset < vaddr || r.r_offset + 8 > vaddr + n)
			continue;
		switch (ELF64_R_TYPE(r.r_info)) {
		case R_X86_64_RELATIVE:
			v = (uint64_t)r.r_addend;
			break;
		case R_X86_64_64: {
			Elf64_Sym s;
			uint64_t so = symsh->sh_offset + ELF64_R_SYM(r.r_info) * sizeof(s);

			if (so + sizeof(s) > len)
				return -1;
			memcpy(&s, img + so, sizeof(s));
			v = s.st_value + (uint64_t)r.r_addend;
			break;
		}
		default:
			kdof_log("ERROR dynamic relocation type %u in the DOF",
			    (unsigned)ELF64_R_TYPE(r.r_info));
			return -1;
		}
		memcpy(buf + (r.r_offset - vaddr), &v, 8);
	}
	return 0;
}

/*
 * What illumos' ld leaves at addr: the file's bytes, every relocation
 * resolved at link time and none applied by the loader.
 */
static int
kdof_read_unrelocated(uintptr_t addr, void *buf, size_t n)
{
	struct kdof_find f;
	uint8_t *img = NULL;
	size_t len = 0, cap = 0;
	ssize_t got;
	uint64_t vaddr, foff;
	Elf64_Ehdr eh;
	int fd, rc = -1;

	if (kdof_find(addr, &f) != 0 || (fd = open(f.path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	for (;;) {
		if (len == cap && (img = realloc(img, cap = cap ? 2 * cap : 1 << 20)) == NULL)
			abort();
		if ((got = read(fd, img + len, cap - len)) <= 0)
			break;
		len += (size_t)got;
	}
	close(fd);
	vaddr = addr - f.bias;
	foff = vaddr - f.ph->p_vaddr + f.ph->p_offset;
	if (len < sizeof(eh) || foff + n > len)
		goto out;
	memcpy(buf, img + foff, n);
	memcpy(&eh, img, sizeof(eh));
	if (eh.e_shoff + (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr) > len)
		goto out;
	const Elf64_Shdr *sh = (const Elf64_Shdr *)(img + eh.e_shoff);
	for (int i = 0; i < eh.e_shnum; i++)
		if (sh[i].sh_type == SHT_RELA && (sh[i].sh_flags & SHF_ALLOC) &&
		    kdof_apply_rela(img, len, &sh[i], sh, vaddr, buf, n) != 0)
			goto out;
	rc = 0;
out:
	free(img);
	return rc;
}

/* ---- the DOF handed to the kernel, corrupted on request ------------------ */

static uintptr_t kdof_dof_uaddr;	/* the DOF ADDDOF names */

/* The first section of a type in a DOF copy of n bytes, or NULL. */
static dof_sec_t *
kdof_sec(void *kbuf, size_t n, uint32_t type)
{
	dof_hdr_t *h = kbuf;

	for (uint32_t i = 0; i < h->dofh_secnum; i++) {
		uint64_t o = h->dofh_secoff + (uint64_t)i * h->dofh_secsize;

		if (o + sizeof(dof_sec_t) <= n && ((dof_sec_t *)((char *)kbuf + o))->dofs_type == type)
			return (dof_sec_t *)((char *)kbuf + o);
	}
	return NULL;
}

static void
kdof_corrupt(void *kbuf, size_t n)
{
	const char *what = getenv("KDOF_CORRUPT");
	dof_hdr_t *h = kbuf;
	dof_sec_t *s;

	if (what == NULL || n < sizeof(*h))
		return;
	if (strcmp(what, "magic") == 0) {
		h->dofh_ident[DOF_ID_MAG1] = 'X';
	} else if (strcmp(what, "version") == 0) {
		h->dofh_ident[DOF_ID_VERSION] = 9;
	} else if (strcmp(what, "loadsz") == 0) {
		h->dofh_loadsz = sizeof(*h) - 8;
	} else if (strcmp(what, "stroff") == 0 && (s = kdof_sec(kbuf, n, DOF_SECT_PROBES)) != NULL &&
	    s->dofs_offset + sizeof(dof_probe_t) <= n) {
		/* the first probe's name points past its string table */
		((dof_probe_t *)((char *)kbuf + s->dofs_offset))->dofpr_name = 0x7fff0000;
	} else if (strcmp(what, "argmap") == 0 && (s = kdof_sec(kbuf, n, DOF_SECT_PROBES)) != NULL) {
		/*
		 * the first probe with arguments maps one to a native it lacks:
		 * nargc + 1, since the kernels' check (">" nargc) lets nargc by
		 */
		for (uint64_t o = s->dofs_offset; o + sizeof(dof_probe_t) <= s->dofs_offset + s->dofs_size &&
		    o + sizeof(dof_probe_t) <= n; o += s->dofs_entsize) {
			dof_probe_t *p = (dof_probe_t *)((char *)kbuf + o);
			dof_sec_t *a = kdof_sec(kbuf, n, DOF_SECT_PRARGS);

			if (p->dofpr_xargc == 0 || a == NULL ||
			    a->dofs_offset + p->dofpr_argidx >= n)
				continue;
			((uint8_t *)kbuf)[a->dofs_offset + p->dofpr_argidx] = p->dofpr_nargc + 1;
			break;
		}
	}
}

int
copyin(const void *uaddr, void *kaddr, size_t n)
{
	uintptr_t a = (uintptr_t)uaddr;
	int rc;

	if (getenv("KDOF_UNRELOCATED") != NULL && a == kdof_dof_uaddr)
		rc = kdof_read_unrelocated(a, kaddr, n);
	else
		rc = kdof_read_self(a, kaddr, n);
	if (rc != 0)
		return EFAULT;
	if (a == kdof_dof_uaddr)
		kdof_corrupt(kaddr, n);
	return 0;
}

/* ---- the framework: providers and probes, logged ------------------------- */

#define KDOF_MAXPROV 64
static char kdof_provnames[KDOF_MAXPROV][DTRACE_PROVNAMELEN];
static int kdof_nprov;

int
dtrace_register(const char *name, const dtrace_pattr_t *pap, uint32_t priv, cred_t *cr,
    const dtrace_pops_t *pops, void *arg, dtrace_provider_id_t *idp)
{
	(void)pap; (void)priv; (void)cr; (void)pops; (void)arg;
	if (kdof_nprov == KDOF_MAXPROV)
		return ENOSPC;
	snprintf(kdof_provnames[kdof_nprov], DTRACE_PROVNAMELEN, "%s", name);
	*idp = (dtrace_provider_id_t)++kdof_nprov;
	kdof_log("PROVIDER %s", name);
	return 0;
}

static const char *
kdof_provname(dtrace_provider_id_t id)
{
	return id >= 1 && id <= (dtrace_provider_id_t)kdof_nprov ? kdof_provnames[id - 1] : "?";
}

static dtrace_id_t kdof_nprobes;

dtrace_id_t
dtrace_probe_lookup(dtrace_provider_id_t id, KDOF_LOOKUP_CONST char *mod,
    KDOF_LOOKUP_CONST char *func, KDOF_LOOKUP_CONST char *name)
{
	(void)id; (void)mod; (void)func; (void)name;
	return 0;	/* each probe is created once here */
}

/* A tracepoint's bytes: a probe site is the 5-byte nop (ret for a tail call),
 * an is-enabled one (DOF version 2) the nop or ret after xor %rax,%rax. */
static int
kdof_site_ok(uintptr_t pc, int is_enabled)
{
	uint8_t b[8];
	static const uint8_t nop5[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };

	if (is_enabled)
		return kdof_read_self(pc - 3, b, 4) == 0 && b[0] == 0x48 && b[1] == 0x33 &&
		    b[2] == 0xc0 && (b[3] == 0x90 || b[3] == 0xc3);
	return kdof_read_self(pc, b, 5) == 0 && (memcmp(b, nop5, 5) == 0 || b[0] == 0xc3);
}

dtrace_id_t
dtrace_probe_create(dtrace_provider_id_t prov, const char *mod, const char *func,
    const char *name, int aframes, void *arg)
{
	fasttrap_probe_t *pp = arg;
	const char *pname = kdof_provname(prov);

	(void)aframes;
	kdof_log("PROBE %s:%s:%s:%s tracepoints=%u args=%u", pname, mod, func, name,
	    (unsigned)pp->ftp_ntps, (unsigned)pp->ftp_nargs);
	for (uint64_t i = 0; i < pp->ftp_ntps; i++) {
		uintptr_t pc = pp->ftp_tps[i].fit_tp->ftt_pc;
		int en = pp->ftp_tps[i].fit_id.fti_ptype == DTFTP_IS_ENABLED;
		struct kdof_find f;
		int found = kdof_find(pc, &f) == 0;

		kdof_log("TP %s:%s:%s %s pc=0x%lx obj=%s rel=0x%lx %s", pname, func, name,
		    en ? "is-enabled" : "offset", (unsigned long)pc,
		    found ? kdof_base(f.path) : "none", (unsigned long)(found ? pc - f.bias : 0),
		    found && kdof_site_ok(pc, en) ? "ok" : "BAD");
	}
	return ++kdof_nprobes;
}

/* fasttrap_provider_lookup's work: one provider per name, registered once. */
static fasttrap_provider_t *kdof_fprovs;

static fasttrap_provider_t *
fasttrap_provider_lookup(pid_t pid, const char *name, const dtrace_pattr_t *pattr)
{
	fasttrap_provider_t *fp;
	char provname[DTRACE_PROVNAMELEN];

	for (fp = kdof_fprovs; fp != NULL; fp = fp->ftp_next)
		if (fp->ftp_pid == pid && strcmp(fp->ftp_name, name) == 0)
			return fp;
	fp = kmem_zalloc(sizeof(*fp), KM_SLEEP);
	fp->ftp_pid = pid;
	snprintf(fp->ftp_name, sizeof(fp->ftp_name), "%s", name);
	snprintf(provname, sizeof(provname), "%s%u", name, (unsigned)pid);
	if (dtrace_register(provname, pattr, 0, NULL, NULL, fp, &fp->ftp_provid) != 0) {
		free(fp);
		return NULL;
	}
	fp->ftp_next = kdof_fprovs;
	kdof_fprovs = fp;
	return fp;
}

/* ---- the parts of the framework a helper with no enablings never reaches -- */

static dtrace_enabling_t *
dtrace_enabling_create(dtrace_vstate_t *vstate)
{
	(void)vstate;
	return kmem_zalloc(sizeof(dtrace_enabling_t), KM_SLEEP);
}

static void
dtrace_enabling_destroy(dtrace_enabling_t *enab)
{
	if (enab != NULL)
		free(enab->dten_desc);
	free(enab);
}

static void
dtrace_enabling_add(dtrace_enabling_t *enab, dtrace_ecbdesc_t *ep)
{
	(void)enab; (void)ep;
	abort();	/* a helper DOF of usdtc's has no ECB description */
}

static dtrace_ecbdesc_t *
dtrace_dof_ecbdesc(dof_hdr_t *dof, dof_sec_t *sec, dtrace_vstate_t *vstate, cred_t *cr)
{
	(void)dof; (void)sec; (void)vstate; (void)cr;
	kdof_log("ERROR the DOF holds an ECB description");
	return NULL;
}

#ifdef KDOF_FREEBSD
static int
dtrace_helper_action_add(int which, dtrace_ecbdesc_t *ep, dtrace_helpers_t *help)
{
	(void)help;
#else
static int
dtrace_helper_action_add(int which, dtrace_ecbdesc_t *ep)
{
#endif
	(void)which; (void)ep;
	return EINVAL;
}

#ifdef KDOF_FREEBSD
static int
dtrace_helper_destroygen(dtrace_helpers_t *help, int gen)
{
	(void)help;
	kdof_log("REMOVE gen=%d", gen);
	return 0;
}

/* dtrace_ioctl_helper's path for a DOF of another process: never taken here. */
static dof_hdr_t *
dtrace_dof_copyin_proc(proc_t *p, uintptr_t uarg, int *errp)
{
	(void)p; (void)uarg;
	*errp = EINVAL;
	return NULL;
}
#define pfind(pid)		((proc_t *)NULL)
#define P_SHOULDSTOP(p)		0
#define P_TRACED		1
#define P_WEXIT			2
#define PROC_UNLOCK(p)		((void)(p))
#define _PHOLD(p)		((void)(p))
#define PRELE(p)		((void)(p))
#define curproc			(&kdof_proc)
struct cdev;
struct thread;
#else
static int
dtrace_helper_destroygen(int gen)
{
	kdof_log("REMOVE gen=%d", gen);
	return 0;
}
#endif

static void dtrace_enabling_matchall(void) {}
static int dtrace_attached(void) { return 1; }

/* ---- the kernel's own functions ------------------------------------------- */

#include "kdof_extracted.c"

/* ---- the helper device ---------------------------------------------------- */

static dtrace_meta_t kdof_meta = {
	.dtm_mops = {
		.dtms_create_probe = fasttrap_meta_create_probe,
		.dtms_provide_pid = fasttrap_meta_provide,
	},
	.dtm_name = "fasttrap",
};
static int kdof_fd = -1;

int
open(const char *path, int flags, ...)
{
	static int (*real)(const char *, int, ...);
	const char *dev = getenv("KDOF_DEV");
	mode_t mode = 0;
	va_list ap;

	if (real == NULL)
		*(void **)&real = dlsym(RTLD_NEXT, "open");
	va_start(ap, flags);
	if (flags & O_CREAT)
		mode = (mode_t)va_arg(ap, int);
	va_end(ap);
	if (dev != NULL && strcmp(path, dev) == 0) {
		kdof_fd = real("/dev/null", O_RDWR | O_CLOEXEC);
		return kdof_fd;
	}
	return real(path, flags, mode);
}

static int
kdof_adddof(unsigned long req, void *arg)
{
	dof_helper_t help;
	int rv = 0, rval;

	memcpy(&help, arg, sizeof(help));
	kdof_dof_uaddr = (uintptr_t)help.dofhp_dof;
	kdof_proc.p_pid = getpid();
	dtrace_meta_pid = &kdof_meta;
	kdof_log("ADDDOF mod=%.64s addr=0x%lx dof=0x%lx", help.dofhp_mod,
	    (unsigned long)help.dofhp_addr, (unsigned long)help.dofhp_dof);
#ifdef KDOF_FREEBSD
	rval = dtrace_ioctl_helper(NULL, req, (caddr_t)&help, 0, NULL);
	rv = help.dofhp_gen;
	memcpy(arg, &help, sizeof(help));	/* _IOWR: copied back out */
#else
	rval = dtrace_ioctl_helper((int)req, (intptr_t)arg, &rv);
#endif
	kdof_log("RESULT rval=%d gen=%d", rval, rval == 0 ? rv : -1);
	if (rval != 0) {
		errno = rval;
		return -1;
	}
#ifdef KDOF_FREEBSD
	return 0;
#else
	return rv;
#endif
}

int
ioctl(int fd, unsigned long req, ...)
{
	static int (*real)(int, unsigned long, ...);
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (real == NULL)
		*(void **)&real = dlsym(RTLD_NEXT, "ioctl");
	if (fd != kdof_fd || kdof_fd < 0)
		return real(fd, req, arg);
	if (req == (unsigned long)DTRACEHIOC_ADDDOF)
		return kdof_adddof(req, arg);
	if (req == (unsigned long)DTRACEHIOC_REMOVE) {
#ifdef KDOF_FREEBSD
		return dtrace_ioctl_helper(NULL, req, (caddr_t)arg, 0, NULL) == 0 ? 0 : -1;
#else
		int rv;
		return dtrace_ioctl_helper((int)req, (intptr_t)arg, &rv) == 0 ? 0 : -1;
#endif
	}
	kdof_log("ERROR unknown ioctl 0x%lx", req);
	errno = ENOTTY;
	return -1;
}

/* FreeBSD and illumos number sigprocmask's `how` one above glibc (SIG_BLOCK 1). */
int
sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	static int (*real)(int, const sigset_t *, sigset_t *);

	if (real == NULL)
		*(void **)&real = dlsym(RTLD_NEXT, "sigprocmask");
	return real(how - 1, set, old);
}
