/*
 * kshim.c - an LD_PRELOAD stand-in for the DTrace helper device of every
 * ELF target, for programs built with --target and run here.
 *
 * runtime/drti_kernel.c is the drti_lite that -G links in for
 * x86_64-freebsd and x86_64-illumos.  Those systems use the System V AMD64
 * ABI as Linux does, so a Linux program can carry that object and run it;
 * only the device is missing.  aarch64-linux programs run under qemu-user
 * with this shim built by the cross compiler.  Pointed at the path in
 * KSHIM_DEV (which the program reaches through DTRACE_DOF_INIT_DEVNAME),
 * this shim plays the device:
 *
 *  - open of that path returns a descriptor of /dev/null it remembers;
 *  - ioctl on it with FreeBSD's, illumos' or Linux's ADDDOF reads the
 *    helper in that system's layout (88 or 80 bytes), logs it, copies
 *    dofh_loadsz bytes of DOF into KSHIM_DIR/dof.GEN, and checks in the
 *    running process that each offset holds a tracepoint (each record's
 *    address relocated as that system's consumer does: FreeBSD's and
 *    illumos' kernels by the DOF's SETX and DOFREL relocations, Linux's
 *    dtprobed adding the base to an address not above it): on x86_64 a
 *    probe is the 5-byte nop (or c3 where a tail call was rewritten) and,
 *    under DOF version 2, an is-enabled site the first byte after
 *    `xor %rax,%rax` (48 33 c0 | 90, or c3 where it was a tail call); on
 *    AArch64 both are `nop` (or `ret`
 *    for a tail call).  It answers with generation 7 as that system does
 *    (FreeBSD: in dofhp_gen; illumos and Linux: as ioctl's value);
 *  - ioctl REMOVE logs the generation: FreeBSD passes a pointer to it,
 *    illumos and Linux the value.
 *
 *  - with KSHIM_BSD_SIGNALS set, sigprocmask takes `how` as FreeBSD and
 *    illumos number it (SIG_BLOCK 1, SIG_UNBLOCK 2, SIG_SETMASK 3; glibc's
 *    are one less), so drti_kernel.c's SIGPIPE guard works here as there.
 *
 * Log lines (KSHIM_LOG, one write each):
 *	ADDDOF os=freebsd|illumos|linux mod=M addr=0x.. dof=0x.. pid=N version=V
 *	SITE PROV:FUNC:NAME probe|enabled 0x.. ok|BAD
 *	REMOVE os=freebsd|illumos gen=G
 *	ERROR what
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dof.h"
#include "dtrace_helper.h"

#define FREEBSD_ADDDOF	0xc0587a03ul
#define FREEBSD_REMOVE	0x80047a02ul
#define ILLUMOS_ADDDOF	0x64746803ul
#define ILLUMOS_REMOVE	0x64746802ul
#define LINUX_ADDDOF	0x4050d803ul
#define LINUX_REMOVE	0x4004d802ul
#define GENERATION	7

typedef struct freebsd_helper {
	char mod[64];
	uint64_t addr;
	uint64_t dof;
	int32_t pid;
	int32_t gen;
} freebsd_helper_t;

typedef int (*open_fn)(const char *, int, ...);
typedef int (*ioctl_fn)(int, unsigned long, ...);

static int device_fd = -1;

static void __attribute__((format(printf, 1, 2)))
kshim_log(const char *fmt, ...)
{
	const char *path = getenv("KSHIM_LOG");
	open_fn real_open;
	char line[1024];
	va_list ap;
	int fd, n;

	if (path == NULL)
		return;
	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	*(void **)&real_open = dlsym(RTLD_NEXT, "open");
	if ((fd = real_open(path, O_WRONLY | O_CREAT | O_APPEND, 0644)) < 0)
		return;
	if (write(fd, line, (size_t)n) < 0)
		n = 0;
	close(fd);
}

int
open(const char *path, int flags, ...)
{
	const char *dev = getenv("KSHIM_DEV");
	open_fn real_open;
	mode_t mode = 0;
	va_list ap;

	*(void **)&real_open = dlsym(RTLD_NEXT, "open");
	va_start(ap, flags);
	if (flags & O_CREAT)
		mode = (mode_t)va_arg(ap, int);
	va_end(ap);
	if (dev != NULL && strcmp(path, dev) == 0) {
		device_fd = real_open("/dev/null", O_RDWR);
		return device_fd;
	}
	return real_open(path, flags, mode);
}

/* The string at strtab offset off of the DOF. */
static const char *
dof_string(const uint8_t *dof, const dof_sec_t *strtab, uint32_t off)
{
	return (const char *)dof + strtab->dofs_offset + off;
}

#if defined(__aarch64__)
static bool
is_probe_site(const uint8_t *p)
{
	uint32_t insn;

	memcpy(&insn, p, 4);
	return insn == 0xd503201f || insn == 0xd65f03c0;	/* nop, ret */
}

static bool
is_enabled_site(const uint8_t *p, unsigned version)
{
	return version == 3 && is_probe_site(p);
}
#else
static bool
is_probe_site(const uint8_t *p)
{
	static const uint8_t nop5[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };

	return memcmp(p, nop5, 5) == 0 || p[0] == 0xc3;
}

static bool
is_enabled_site(const uint8_t *p, unsigned version)
{
	if (version == 3)
		return is_probe_site(p);
	return p[-3] == 0x48 && p[-2] == 0x33 && p[-1] == 0xc0 && (p[0] == 0x90 || p[0] == 0xc3);
}
#endif

/*
 * A record's address as FreeBSD's and illumos' kernels relocate it
 * (dtrace_dof_relocate): its SETX relocation adds dofhp_addr (base), a
 * DOFREL one the address of the u64 itself; a record without one is
 * absolute.
 */
static uint64_t
kernel_addr(const uint8_t *dof, uint32_t probes, uint64_t k, uint64_t base, uint64_t dofaddr)
{
	const dof_hdr_t *h = (const dof_hdr_t *)dof;
	const dof_sec_t *secs = (const dof_sec_t *)(dof + h->dofh_secoff);
	const dof_probe_t *pr = (const dof_probe_t *)(dof + secs[probes].dofs_offset) + k;

	for (uint32_t i = 0; i < h->dofh_secnum; i++) {
		const dof_relohdr_t *rh = (const dof_relohdr_t *)(dof + secs[i].dofs_offset);
		const dof_sec_t *rs;

		if (secs[i].dofs_type != DOF_SECT_URELHDR || rh->dofr_tgtsec != probes)
			continue;
		rs = &secs[rh->dofr_relsec];
		for (uint64_t j = 0; j < rs->dofs_size / sizeof(dof_relodesc_t); j++) {
			const dof_relodesc_t *r = (const dof_relodesc_t *)(dof + rs->dofs_offset) + j;

			if (r->dofr_offset != k * sizeof(dof_probe_t))
				continue;
			if (r->dofr_type == DOF_RELO_SETX)
				return pr->dofpr_addr + base;
			if (r->dofr_type == DOF_RELO_DOFREL)
				return pr->dofpr_addr + dofaddr + secs[probes].dofs_offset + r->dofr_offset;
		}
	}
	return pr->dofpr_addr;
}

/*
 * Check every offset of every probe record, as the consumer would place
 * them: a kernel (FreeBSD, illumos) by the DOF's relocations, Linux's
 * dtprobed adding base to an address not above it.
 */
static void
check_sites(const uint8_t *dof, uint64_t base, uint64_t dofaddr, bool kernel)
{
	const dof_hdr_t *h = (const dof_hdr_t *)dof;
	const dof_sec_t *secs = (const dof_sec_t *)(dof + h->dofh_secoff);

	for (uint32_t i = 0; i < h->dofh_secnum; i++) {
		const dof_provider_t *pv;
		const dof_sec_t *probes, *strtab, *offs, *enoffs = NULL;

		if (secs[i].dofs_type != DOF_SECT_PROVIDER)
			continue;
		pv = (const dof_provider_t *)(dof + secs[i].dofs_offset);
		probes = &secs[pv->dofpv_probes];
		strtab = &secs[pv->dofpv_strtab];
		offs = &secs[pv->dofpv_proffs];
		if (pv->dofpv_prenoffs != 0)
			enoffs = &secs[pv->dofpv_prenoffs];
		for (uint64_t k = 0; k < probes->dofs_size / sizeof(dof_probe_t); k++) {
			const dof_probe_t *pr = (const dof_probe_t *)(dof + probes->dofs_offset) + k;
			uint64_t addr = kernel ? kernel_addr(dof, pv->dofpv_probes, k, base, dofaddr) :
			    pr->dofpr_addr <= base ? pr->dofpr_addr + base : pr->dofpr_addr;
			const uint32_t *o = (const uint32_t *)(dof + offs->dofs_offset);

			for (unsigned j = 0; j < pr->dofpr_noffs; j++) {
				const uint8_t *at = (const uint8_t *)(uintptr_t)(addr + o[pr->dofpr_offidx + j]);

				kshim_log("SITE %s:%s:%s probe 0x%lx %s",
				    dof_string(dof, strtab, pv->dofpv_name),
				    dof_string(dof, strtab, pr->dofpr_func),
				    dof_string(dof, strtab, pr->dofpr_name), (unsigned long)(uintptr_t)at,
				    is_probe_site(at) ? "ok" : "BAD");
			}
			for (unsigned j = 0; enoffs != NULL && j < pr->dofpr_nenoffs; j++) {
				const uint32_t *e = (const uint32_t *)(dof + enoffs->dofs_offset);
				const uint8_t *at = (const uint8_t *)(uintptr_t)(addr + e[pr->dofpr_enoffidx + j]);

				kshim_log("SITE %s:%s:%s enabled 0x%lx %s",
				    dof_string(dof, strtab, pv->dofpv_name),
				    dof_string(dof, strtab, pr->dofpr_func),
				    dof_string(dof, strtab, pr->dofpr_name), (unsigned long)(uintptr_t)at,
				    is_enabled_site(at, dof[DOF_ID_VERSION]) ? "ok" : "BAD");
			}
		}
	}
}

/* Keep what a kernel would read: dofh_loadsz bytes. */
static void
capture(const uint8_t *dof)
{
	const char *dir = getenv("KSHIM_DIR");
	const dof_hdr_t *h = (const dof_hdr_t *)dof;
	char path[4096];
	FILE *f;

	if (dir == NULL)
		return;
	snprintf(path, sizeof(path), "%s/dof.%d", dir, GENERATION);
	if ((f = fopen(path, "wb")) == NULL) {
		kshim_log("ERROR cannot write %s", path);
		return;
	}
	fwrite(dof, 1, h->dofh_loadsz, f);
	fclose(f);
}

static int
add_dof(const char *os, const char *mod, uint64_t addr, uint64_t dofaddr, long pid)
{
	const uint8_t *dof = (const uint8_t *)(uintptr_t)dofaddr;

	kshim_log("ADDDOF os=%s mod=%s addr=0x%llx dof=0x%llx pid=%ld version=%u", os, mod,
	    (unsigned long long)addr, (unsigned long long)dofaddr, pid, dof[DOF_ID_VERSION]);
	capture(dof);
	check_sites(dof, addr, dofaddr, strcmp(os, "linux") != 0);
	return GENERATION;
}

int
ioctl(int fd, unsigned long req, ...)
{
	ioctl_fn real_ioctl;
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (fd == device_fd && fd >= 0) {
		if (req == FREEBSD_ADDDOF) {
			freebsd_helper_t *h = arg;

			h->gen = add_dof("freebsd", h->mod, h->addr, h->dof, h->pid);
			return 0;
		}
		if (req == LINUX_ADDDOF) {
			const dof_helper_t *h = arg;

			return add_dof("linux", h->dofhp_mod, h->dofhp_addr, h->dofhp_dof, -1);
		}
		if (req == LINUX_REMOVE) {
			kshim_log("REMOVE os=linux gen=%ld", (long)(intptr_t)arg);
			return 0;
		}
		if (req == ILLUMOS_ADDDOF) {
			const dof_helper_t *h = arg;

			return add_dof("illumos", h->dofhp_mod, h->dofhp_addr, h->dofhp_dof, -1);
		}
		if (req == FREEBSD_REMOVE) {
			kshim_log("REMOVE os=freebsd gen=%d", *(const int *)arg);
			return 0;
		}
		if (req == ILLUMOS_REMOVE) {
			kshim_log("REMOVE os=illumos gen=%ld", (long)(intptr_t)arg);
			return 0;
		}
		kshim_log("ERROR unknown ioctl 0x%lx", req);
		return -1;
	}
	*(void **)&real_ioctl = dlsym(RTLD_NEXT, "ioctl");
	return real_ioctl(fd, req, arg);
}

int
sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	static int (*real)(int, const sigset_t *, sigset_t *);

	if (real == NULL)
		*(void **)&real = dlsym(RTLD_NEXT, "sigprocmask");
	if (getenv("KSHIM_BSD_SIGNALS") != NULL && how >= 1 && how <= 3)
		how -= 1;
	return real(how, set, old);
}
