/*
 * shim.c - an LD_PRELOAD stand-in for DTrace's helper device.
 *
 * drti_lite opens DTRACE_DOF_INIT_DEVNAME and talks ioctl to it.  Pointed
 * at the path in USDTC_SHIM_DEV, this shim plays the device:
 *
 *  - open/openat of that path returns a descriptor of /dev/null that the
 *    shim remembers (or fails with ENOENT when USDTC_SHIM_ABSENT is set, to
 *    count how often drti_lite tries when there is no DTrace);
 *  - ioctl ADDDOF on it logs the dof_helper_t, copies dofh_loadsz bytes of
 *    DOF from dofhp_dof into USDTC_SHIM_DIR/dof.PID.GEN, and checks, in the
 *    running process, that every probe and is-enabled offset lands on a
 *    tracepoint (0f 1f 44 00 00; c3 0f 1f 40 00 where -G rewrote a tail
 *    call into ret + nop; the 1-byte nop 90 of the header's inline probe
 *    sites) after the consumer's rule (a dofpr_addr
 *    below dofhp_addr is relative and gets dofhp_addr added); it returns a
 *    generation number;
 *    with USDTC_SHIM_ENABLE set, it then enables every is-enabled site as
 *    DTrace on Linux does (DOF version 3: the site is reached with a
 *    pointer to a flag in %rdi, and the tracer makes it store 1 there):
 *    it writes `movb $1,(%rdi); xchg %ax,%ax` (c6 07 01 66 90) over the nop
 *    through /proc/self/mem, as a debugger writes text;
 *  - ioctl REMOVE logs the generation it was given (by value).
 *  - open of "/usdtc-shim-mark/WORD" logs "MARK WORD", so a test program
 *    can put its own events (dlclose done) in order with drti_lite's;
 *  - close forgets a device descriptor, so a reused number is a file again.
 *
 * The shim reads its USDTC_SHIM_* variables once, at its first call (in
 * a constructor, before main), as drti_lite reads its own: a program that
 * breaks its environment later (tests/hostile's corrupted environment)
 * must meet no getenv at exit, the shim's included.
 *
 * Log lines go to USDTC_SHIM_LOG, one write each, every line starting with
 * the event and "pid=N":
 *	OPEN pid=N path=P
 *	ADDDOF pid=N gen=G mod=M addr=0x.. dof=0x.. loadsz=N version=V
 *	SITE pid=N gen=G PROV:FUNC:NAME probe|enabled 0x.. ok|BAD
 *	ERROR pid=N gen=G two records of PROV:FUNC:NAME   (dtprobed refuses such a DOF)
 *	REMOVE pid=N gen=G
 *	MARK pid=N WORD
 *	ERROR pid=N what
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <unistd.h>

#include "dof.h"
#include "dtrace_helper.h"

#define MAX_FD 1024
#define MARK_PREFIX "/usdtc-shim-mark/"

typedef int (*open_fn)(const char *, int, ...);
typedef int (*openat_fn)(int, const char *, int, ...);
typedef int (*ioctl_fn)(int, unsigned long, ...);

static unsigned char device_fds[MAX_FD];	/* 1 = this fd is our "device" */
static int next_gen = 5;			/* generations we hand out */

/* The USDTC_SHIM_* variables, read once. */
static struct {
	int read;
	const char *log, *dir, *dev;
	int enable, absent;
} shim_env;

static void __attribute__((constructor))
shim_env_read(void)
{
	if (shim_env.read)
		return;
	shim_env.log = getenv("USDTC_SHIM_LOG");
	shim_env.dir = getenv("USDTC_SHIM_DIR");
	shim_env.dev = getenv("USDTC_SHIM_DEV");
	shim_env.enable = getenv("USDTC_SHIM_ENABLE") != NULL;
	shim_env.absent = getenv("USDTC_SHIM_ABSENT") != NULL;
	shim_env.read = 1;
}

static open_fn
real_open(void)
{
	static open_fn fn;

	if (fn == NULL)
		*(void **)&fn = dlsym(RTLD_NEXT, "open");
	return fn;
}

static void __attribute__((format(printf, 1, 2)))
shim_log(const char *fmt, ...)
{
	const char *path = (shim_env_read(), shim_env.log);
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
	if ((fd = real_open()(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644)) < 0)
		return;
	if (write(fd, line, (size_t)n) < 0)
		n = 0;
	close(fd);
}

/* Copy len bytes of our own memory, failing (not crashing) if unmapped. */
static int
peek(uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)addr, len };

	return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)len ? 0 : -1;
}

static const char *
strtab_at(const char *dof, const dof_sec_t *strtab, uint32_t off)
{
	if (off >= strtab->dofs_size)
		return "?";
	return dof + strtab->dofs_offset + off;
}

/* DTrace's is-enabled site, switched on: store 1 through %rdi. */
static void
enable_site(uint64_t addr)
{
	static const unsigned char store1[5] = { 0xc6, 0x07, 0x01, 0x66, 0x90 };
	int fd = real_open()("/proc/self/mem", O_RDWR | O_CLOEXEC);

	if (fd < 0 || pwrite(fd, store1, sizeof(store1), (off_t)addr) != (ssize_t)sizeof(store1))
		shim_log("ERROR pid=%d cannot enable the site at 0x%llx", (int)getpid(),
		    (unsigned long long)addr);
	if (fd >= 0)
		close(fd);
}

/* Log and check one probe or is-enabled site. */
static void
check_site(int gen, const char *prov, const char *func, const char *name,
    const char *kind, uint64_t addr)
{
	static const unsigned char nop5[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
	static const unsigned char ret_nop4[5] = { 0xc3, 0x0f, 0x1f, 0x40, 0x00 };
	unsigned char code[5];
	int ok = (peek(addr, code, sizeof(code)) == 0 &&
	    (memcmp(code, nop5, 5) == 0 || memcmp(code, ret_nop4, 5) == 0)) ||
	    (peek(addr, code, 1) == 0 && code[0] == 0x90 && strcmp(kind, "probe") == 0);

	shim_log("SITE pid=%d gen=%d %s:%s:%s %s 0x%llx %s", (int)getpid(), gen, prov,
	    func, name, kind, (unsigned long long)addr, ok ? "ok" : "BAD");
	if (ok && strcmp(kind, "enabled") == 0 && shim_env.enable)
		enable_site(addr);
}

/* Walk every provider's probes the way a consumer would. */
static void
check_dof(const char *dof, const dof_helper_t *dh, int gen)
{
	const dof_hdr_t *h = (const dof_hdr_t *)dof;
	const dof_sec_t *secs = (const dof_sec_t *)(dof + h->dofh_secoff);
	int version = h->dofh_ident[DOF_ID_VERSION];

	for (uint32_t i = 0; i < h->dofh_secnum; i++) {
		const dof_provider_t *pv;
		const dof_sec_t *strtab, *probes, *offs, *enoffs = NULL;

		if (secs[i].dofs_type != DOF_SECT_PROVIDER)
			continue;
		pv = (const dof_provider_t *)(dof + secs[i].dofs_offset);
		strtab = &secs[pv->dofpv_strtab];
		probes = &secs[pv->dofpv_probes];
		offs = &secs[pv->dofpv_proffs];
		if (version >= 2 && pv->dofpv_prenoffs != 0)
			enoffs = &secs[pv->dofpv_prenoffs];
		for (uint64_t k = 0; probes->dofs_entsize && k < probes->dofs_size / probes->dofs_entsize; k++) {
			const dof_probe_t *p = (const dof_probe_t *)(dof + probes->dofs_offset +
			    k * probes->dofs_entsize);
			const uint32_t *o = (const uint32_t *)(dof + offs->dofs_offset);
			const char *prov = strtab_at(dof, strtab, pv->dofpv_name);
			const char *func = strtab_at(dof, strtab, p->dofpr_func);
			const char *name = strtab_at(dof, strtab, p->dofpr_name);
			uint64_t addr = p->dofpr_addr;

			if (addr < dh->dofhp_addr)
				addr += dh->dofhp_addr;
			for (uint64_t k2 = 0; k2 < k; k2++) {
				const dof_probe_t *q = (const dof_probe_t *)(dof + probes->dofs_offset +
				    k2 * probes->dofs_entsize);

				if (strcmp(strtab_at(dof, strtab, q->dofpr_func), func) == 0 &&
				    strcmp(strtab_at(dof, strtab, q->dofpr_name), name) == 0)
					shim_log("ERROR pid=%d gen=%d two records of %s:%s:%s",
					    (int)getpid(), gen, prov, func, name);
			}
			for (unsigned j = 0; j < p->dofpr_noffs; j++)
				check_site(gen, prov, func, name, "probe", addr + o[p->dofpr_offidx + j]);
			if (enoffs == NULL)
				continue;
			o = (const uint32_t *)(dof + enoffs->dofs_offset);
			for (unsigned j = 0; j < p->dofpr_nenoffs; j++)
				check_site(gen, prov, func, name, "enabled",
				    addr + o[p->dofpr_enoffidx + j]);
		}
	}
}

/* Save the DOF as the device would read it: dofh_loadsz bytes. */
static void
capture(const char *dof, uint64_t size, int gen)
{
	const char *dir = (shim_env_read(), shim_env.dir);
	char path[4096];
	int fd;

	if (dir == NULL)
		return;
	snprintf(path, sizeof(path), "%s/dof.%d.%d", dir, (int)getpid(), gen);
	if ((fd = real_open()(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0) {
		shim_log("ERROR pid=%d cannot create %s", (int)getpid(), path);
		return;
	}
	if (write(fd, dof, size) != (ssize_t)size)
		shim_log("ERROR pid=%d short write to %s", (int)getpid(), path);
	close(fd);
}

static int
add_dof(const dof_helper_t *dh)
{
	dof_hdr_t h;
	char *copy;
	int gen = next_gen++;

	if (peek(dh->dofhp_dof, &h, sizeof(h)) != 0 || memcmp(h.dofh_ident, "\177DOF", 4) != 0) {
		shim_log("ERROR pid=%d ADDDOF: no DOF at 0x%llx", (int)getpid(),
		    (unsigned long long)dh->dofhp_dof);
		errno = EINVAL;
		return -1;
	}
	shim_log("ADDDOF pid=%d gen=%d mod=%.64s addr=0x%llx dof=0x%llx loadsz=%llu version=%d",
	    (int)getpid(), gen, dh->dofhp_mod, (unsigned long long)dh->dofhp_addr,
	    (unsigned long long)dh->dofhp_dof, (unsigned long long)h.dofh_loadsz,
	    h.dofh_ident[DOF_ID_VERSION]);
	if ((copy = malloc(h.dofh_loadsz)) == NULL || peek(dh->dofhp_dof, copy, h.dofh_loadsz) != 0) {
		shim_log("ERROR pid=%d ADDDOF: cannot read %llu bytes of DOF", (int)getpid(),
		    (unsigned long long)h.dofh_loadsz);
		free(copy);
		errno = EFAULT;
		return -1;
	}
	capture(copy, h.dofh_loadsz, gen);
	check_dof(copy, dh, gen);
	free(copy);
	return gen;
}

/* The "device": a /dev/null descriptor we remember, or ENOENT. */
static int
open_device(const char *path)
{
	int fd;

	shim_log("OPEN pid=%d path=%s", (int)getpid(), path);
	if (shim_env.absent) {
		errno = ENOENT;
		return -1;
	}
	fd = real_open()("/dev/null", O_RDWR | O_CLOEXEC);
	if (fd >= 0 && fd < MAX_FD)
		device_fds[fd] = 1;
	return fd;
}

/* Whether path is ours to answer; logs marks. */
static int
intercepted(const char *path, int *fdp)
{
	const char *dev;

	shim_env_read();
	dev = shim_env.dev;
	if (path != NULL && strncmp(path, MARK_PREFIX, sizeof(MARK_PREFIX) - 1) == 0) {
		shim_log("MARK pid=%d %s", (int)getpid(), path + sizeof(MARK_PREFIX) - 1);
		errno = ENOENT;
		*fdp = -1;
		return 1;
	}
	if (dev == NULL || path == NULL || strcmp(path, dev) != 0)
		return 0;
	*fdp = open_device(path);
	return 1;
}

int
open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;
	int fd;

	/* An O_PATH open (drti_fuse.c: which file system holds it) reaches no device. */
	if (!(flags & O_PATH) && intercepted(path, &fd))
		return fd;
	va_start(ap, flags);
	if (flags & (O_CREAT | O_TMPFILE))
		mode = (mode_t)va_arg(ap, int);
	va_end(ap);
	return real_open()(path, flags, mode);
}

int open64(const char *path, int flags, ...) __attribute__((alias("open")));

int
openat(int dirfd, const char *path, int flags, ...)
{
	static openat_fn fn;
	mode_t mode = 0;
	va_list ap;
	int fd;

	if (!(flags & O_PATH) && intercepted(path, &fd))
		return fd;
	if (fn == NULL)
		*(void **)&fn = dlsym(RTLD_NEXT, "openat");
	va_start(ap, flags);
	if (flags & (O_CREAT | O_TMPFILE))
		mode = (mode_t)va_arg(ap, int);
	va_end(ap);
	return fn(dirfd, path, flags, mode);
}

int openat64(int dirfd, const char *path, int flags, ...) __attribute__((alias("openat")));

int
ioctl(int fd, unsigned long request, ...)
{
	static ioctl_fn fn;
	va_list ap;
	void *arg;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (fd >= 0 && fd < MAX_FD && device_fds[fd]) {
		if (request == DTRACEHIOC_ADDDOF_LINUX)
			return add_dof(arg);
		if (request == DTRACEHIOC_REMOVE_LINUX) {
			shim_log("REMOVE pid=%d gen=%d", (int)getpid(), (int)(intptr_t)arg);
			return 0;
		}
		shim_log("ERROR pid=%d unknown ioctl 0x%lx", (int)getpid(), request);
		errno = ENOTTY;
		return -1;
	}
	if (fn == NULL)
		*(void **)&fn = dlsym(RTLD_NEXT, "ioctl");
	return fn(fd, request, arg);
}

int
close(int fd)
{
	static int (*fn)(int);

	if (fd >= 0 && fd < MAX_FD)
		device_fds[fd] = 0;
	if (fn == NULL)
		*(void **)&fn = dlsym(RTLD_NEXT, "close");
	return fn(fd);
}
