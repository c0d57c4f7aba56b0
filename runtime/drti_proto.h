/*
 * drti_proto.h - the DTrace helper protocol, shared by drti_lite.c and
 * libusdt (usdt.c).
 *
 * Handing DOF to DTrace is the same act whether a -G object's constructor
 * does it at load time (drti_lite.c) or libusdt does it when a run-time
 * provider is enabled: describe the object in a dof_helper_t (its name,
 * its load bias, where the DOF lies), then
 *
 *	fd = open("/dev/dtrace/helper", O_RDWR)
 *	gen = ioctl(fd, DTRACEHIOC_ADDDOF, &dof_helper_t)   to register
 *	ioctl(fd, DTRACEHIOC_REMOVE, gen)                   to take it back
 *
 * with the same environment variables: DTRACE_DOF_INIT_DISABLE skips it,
 * DTRACE_DOF_INIT_DEVNAME names another device, DTRACE_DOF_INIT_DEBUG
 * reports each step on fd 2 as "dtrace DOF <mod>: ...".  No DTrace is the
 * normal case on Linux: then registering costs one failed open() and says
 * nothing unless asked to.
 *
 * The environment is read once, when a registration is made ready
 * (drti_reg_init: drti_lite's constructor), in one pass over environ,
 * and what it says is kept in the registration (drti_env_t): nothing
 * later -- the fork child's registration, the destructor's REMOVE at exit
 * -- looks at the environment again.  A program may have changed or
 * broken its environment by then (Oracle's own test tst.corruptenv.sh
 * sets envp[0] to 0xff before it exits), and getenv at exit would then
 * crash it, as Oracle's drti, which reads it once at start-up, does not.
 *
 * What the helper gets is a copy.  Oracle's dtprobed (2.0.1) files each
 * DOF it is given under the device and inode of the mapping that holds
 * dofhp_dof, per process and across processes (its stash, /run/dtrace):
 * two DOFs from one file collide (the second ADDDOF fails and damages the
 * stash), and one DOF of several providers is read only up to its first.
 * So each DOF, one provider each, is copied into a memfd of its own,
 * mapped just for the ioctl (dtprobed reads it during the call and never
 * again; its tracepoints are absolute, dofhp_addr + function + offset,
 * and DTrace finds their file by address): every registration has its
 * own inode, whatever object or library it came from.
 *
 * Kernel lockdown.  DTrace enables an is-enabled site with a BPF program
 * that calls bpf_probe_write_user, which a kernel in lockdown (integrity
 * or confidentiality: every Secure Boot machine) refuses, and then it
 * refuses the whole probe.  When /sys/kernel/security/lockdown says the
 * kernel is locked down, the copy loses its is-enabled offsets (a probe
 * record with no other site is dropped), so every probe can be enabled
 * and fire; _ENABLED() then answers only for the Linux tracers
 * (semaphores), never for DTrace, which is all such a kernel allows.
 * Where that file cannot be read (securityfs not mounted) or says no mode,
 * the kernel is taken as locked down: what keeps every probe usable on
 * any kernel (drti_lockdown).  DTRACE_DOF_INIT_LOCKDOWN=none|integrity|
 * confidentiality says it instead (tests use it to see both DOFs).
 *
 * This code runs inside other people's programs, setuid ones included, so
 * it trusts nothing it did not make:
 *   - the variables are read as secure_getenv reads them: in a program
 *     running with privileges it was not started with (AT_SECURE), none of
 *     them is seen, so an unprivileged user cannot make the constructor
 *     open a path of their choice as root, or probe for files with the
 *     debug line;
 *   - every file is opened O_NONBLOCK, O_NOCTTY and O_CLOEXEC (drti_open):
 *     nothing at any path -- a FIFO where a library was, a terminal -- can
 *     stop the program in open(2) or become its terminal;
 *   - the device is opened with O_NOFOLLOW (a symlink at its path is not
 *     followed), and must be a character
 *     device (fstat) before any ioctl: a regular file or a FIFO there is
 *     refused and said so under DTRACE_DOF_INIT_DEBUG.  One exception: a
 *     regular file of a FUSE file system, which is how dtprobed serves its
 *     helper on a kernel without CUSE, when it is known to be served by
 *     root or by the program's own user (a root program: root's mount and
 *     a root process holding its connection; any other: its own user's
 *     mount), found before anything reaches the daemon, at a cost no other
 *     user sets (drti_fuse.h).  A setuid program never reaches it
 *     (DEVNAME is not read there);
 *   - DTRACE_DOF_INIT_LOCKDOWN only chooses which of our own DOFs the
 *     process registers for itself, and is not read in a setuid program
 *     either;
 *   - the debug line never raises SIGPIPE in the host (stderr a closed
 *     pipe): SIGPIPE is blocked around the write, a SIGPIPE the write
 *     raised is taken back with sigtimedwait, and the mask is restored.
 *
 * The functions are static and this header is included, not linked, so
 * drti_lite.o stays one self-contained object with no symbol but its
 * reference to __SUNW_dof, and libusdt keeps its own copy.  Nothing here
 * allocates (the DOF copy is a memfd mapped only for the ioctl), aborts or
 * writes to stdout; the caller serializes calls on one registration.
 */
#ifndef USDTC_DRTI_PROTO_H
#define USDTC_DRTI_PROTO_H

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "dof.h"
#include "dtrace_helper.h"

#define DRTI_PROTO static __attribute__((unused))

/*
 * The libc functions called from many places here, each called through
 * one function of its own: in a -G object every call of a libc function
 * is a relocation (24 bytes in every copy of drti_lite), a call within
 * its .text is none.
 */
#define DRTI_LIBC static __attribute__((unused, noinline))
DRTI_LIBC int drti_close(int fd) { return close(fd); }
DRTI_LIBC int drti_munmap(void *p, size_t len) { return munmap(p, len); }
DRTI_LIBC char *drti_strchr(const char *s, int c) { return strchr(s, c); }
DRTI_LIBC int drti_strcmp(const char *a, const char *b) { return strcmp(a, b); }
DRTI_LIBC int drti_strncmp(const char *a, const char *b, size_t n) { return strncmp(a, b, n); }
DRTI_LIBC int drti_memcmp(const void *a, const void *b, size_t n) { return memcmp(a, b, n); }

/* Every open here: none can block (a FIFO, a device), none is inherited by exec. */
DRTI_LIBC int
drti_open(const char *path, int flags)
{
	return open(path, flags | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
}

#define DRTI_PATH_MAX	4096

/* What the environment said, read once (drti_env_read). */
typedef struct drti_env {
	int disabled;		/* DTRACE_DOF_INIT_DISABLE */
	int debug;		/* DTRACE_DOF_INIT_DEBUG */
	int lockdown;		/* DTRACE_DOF_INIT_LOCKDOWN: -1 unset, 0 none, 1 locked */
	char lockdown_mode[32];	/* its value, for the debug line */
	int dev_too_long;	/* DTRACE_DOF_INIT_DEVNAME did not fit */
	char dev[DRTI_PATH_MAX];	/* the device: DTRACE_DOF_INIT_DEVNAME or the default */
} drti_env_t;

/* The value in the environment entry e if it is name ("NAME="), else NULL. */
DRTI_PROTO const char *
drti_env_value(const char *e, const char *name)
{
	size_t len = strlen(name);

	return drti_strncmp(e, name, len) == 0 ? e + len : NULL;
}

/* s into buf (size bytes), NUL-ended; whether it fitted (else buf is ""). */
DRTI_PROTO int
drti_copy_str(char *buf, size_t size, const char *s)
{
	size_t len = strlen(s);

	if (len >= size) {
		buf[0] = '\0';
		return 0;
	}
	memcpy(buf, s, len + 1);
	return 1;
}

/*
 * The DTRACE_DOF_INIT_* variables into *env, in one pass over environ
 * (the first of each name counts, as for getenv); none in a program that
 * runs with privileges it was not started with (AT_SECURE, as
 * secure_getenv).  Values are copied: nothing here points into the
 * environment afterwards.
 */
DRTI_PROTO void
drti_env_read(drti_env_t *env)
{
	extern char **environ;
	const char *dev = NULL, *lock = NULL, *v;

	env->disabled = env->debug = 0;	/* fields one by one: dev is 4 KiB, start-up pays a memset */
	env->lockdown = -1;
	env->lockdown_mode[0] = '\0';
	for (char **ep = getauxval(AT_SECURE) ? NULL : environ; ep != NULL && *ep != NULL; ep++) {
		const char *e = *ep;

		if (e[0] != 'D' || drti_strncmp(e, "DTRACE_DOF_INIT_", 16) != 0)
			continue;
		e += 16;
		if (drti_strncmp(e, "DISABLE=", 8) == 0)
			env->disabled = 1;
		else if (drti_strncmp(e, "DEBUG=", 6) == 0)
			env->debug = 1;
		else if (dev == NULL && (v = drti_env_value(e, "DEVNAME=")) != NULL)
			dev = v;
		else if (lock == NULL && (v = drti_env_value(e, "LOCKDOWN=")) != NULL)
			lock = v;
	}
	if (dev == NULL || dev[0] == '\0')
		dev = DTRACE_HELPER_DEVICE;
	env->dev_too_long = !drti_copy_str(env->dev, sizeof(env->dev), dev);
	if (lock != NULL && lock[0] != '\0') {
		env->lockdown = drti_strcmp(lock, "none") != 0;
		if (!drti_copy_str(env->lockdown_mode, sizeof(env->lockdown_mode), lock))
			drti_copy_str(env->lockdown_mode, sizeof(env->lockdown_mode), "(too long)");
	}
}

/* One registration of one DOF. */
typedef struct drti_reg {
	dof_helper_t helper;	/* what ADDDOF hands over */
	int gen;		/* generation DTrace returned, -1 if none */
	int strip;		/* lockdown: no is-enabled offsets; -1 not yet asked */
	drti_env_t env;		/* the environment, as it was at drti_reg_init */
} drti_reg_t;

/* An empty registration; the environment read, once, into it. */
DRTI_PROTO void
drti_reg_init(drti_reg_t *r)
{
	memset(r, 0, offsetof(drti_reg_t, env));	/* drti_env_read sets the rest */
	r->gen = -1;
	r->strip = -1;
	drti_env_read(&r->env);
}

/* Whether DTRACE_DOF_INIT_DISABLE asked r for no registration at all. */
DRTI_PROTO int
drti_disabled(const drti_reg_t *r)
{
	return r->env.disabled;
}

/*
 * write(2) to fd 2 without SIGPIPE: a pipe whose reader has gone would
 * otherwise kill the host.  A SIGPIPE already pending before the write is
 * the host's and stays pending; one the write raised is consumed.
 */
DRTI_PROTO void
drti_write_stderr(const char *buf, size_t n)
{
	sigset_t pipe_set, old, pending;
	struct timespec zero = { 0, 0 };
	int was_pending, err = errno;

	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	if (sigprocmask(SIG_BLOCK, &pipe_set, &old) != 0)
		return;	/* cannot make it safe: say nothing */
	sigemptyset(&pending);
	was_pending = sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE);
	if (write(2, buf, n) < 0 && errno == EPIPE && !was_pending)
		while (sigtimedwait(&pipe_set, NULL, &zero) < 0 && errno == EINTR)
			;
	sigprocmask(SIG_SETMASK, &old, NULL);
	errno = err;
}

/*
 * A debug message on fd 2; nothing unless DTRACE_DOF_INIT_DEBUG is set.
 * errno is the caller's throughout: %m says it (one call where each
 * message would pass strerror's, a relocation each in every -G object),
 * and it is what it was when drti_say returns.
 */
DRTI_PROTO void __attribute__((format(printf, 2, 3)))
drti_say(const drti_reg_t *r, const char *fmt, ...)
{
	char line[512];
	int n, m, err = errno;
	va_list ap;

	if (!r->env.debug)
		return;
	n = snprintf(line, sizeof(line), "dtrace DOF %s: ",
	    r->helper.dofhp_mod[0] ? r->helper.dofhp_mod : "?");
	if (n < 0 || (size_t)n >= sizeof(line))
		return;
	errno = err;
	va_start(ap, fmt);
	m = vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (m >= 0) {
		n += m;
		if ((size_t)n > sizeof(line) - 2)
			n = (int)sizeof(line) - 2;
		line[n++] = '\n';
		drti_write_stderr(line, (size_t)n);
	}
	errno = err;
}

/* dofhp_mod: name, cut to fit. */
DRTI_PROTO void
drti_set_module_name(drti_reg_t *r, const char *name)
{
	strncpy(r->helper.dofhp_mod, name, sizeof(r->helper.dofhp_mod) - 1);
	r->helper.dofhp_mod[sizeof(r->helper.dofhp_mod) - 1] = '\0';
}

/* Whether the DOF at dof starts with the DOF magic. */
DRTI_PROTO int
drti_dof_magic_ok(const void *dof)
{
	const dof_hdr_t *h = dof;

	return h->dofh_ident[DOF_ID_MAG0] == 0x7f && h->dofh_ident[DOF_ID_MAG1] == 'D' &&
	    h->dofh_ident[DOF_ID_MAG2] == 'O' && h->dofh_ident[DOF_ID_MAG3] == 'F';
}

/*
 * The line of the file at path that starts with prefix, into line (cut to
 * size, NUL-ended); 0, or -1 when there is none.  read(2) only: this runs
 * in constructors, before and without stdio.
 */
DRTI_PROTO int
drti_find_line(const char *path, const char *prefix, char *line, size_t size)
{
	char buf[4096];
	size_t plen = strlen(prefix), n = 0;
	int fd = drti_open(path, O_RDONLY), found = -1;
	ssize_t got = 0;

	if (fd < 0 || size <= plen)
		return fd < 0 ? -1 : (drti_close(fd), -1);
	while (found != 0 && (got = read(fd, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < got && found != 0; i++) {
			if (buf[i] != '\n') {
				if (n + 1 < size)
					line[n++] = buf[i];
				continue;
			}
			line[n] = '\0';
			if (n >= plen && drti_strncmp(line, prefix, plen) == 0)
				found = 0;
			else
				n = 0;
		}
	}
	line[n] = '\0';
	if (found != 0 && got == 0 && n >= plen && drti_strncmp(line, prefix, plen) == 0)
		found = 0;	/* the last line has no newline */
	drti_close(fd);
	return found;
}

/* Whether the comma-separated list opts holds the item word. */
DRTI_PROTO int
drti_has_option(const char *opts, const char *word)
{
	size_t len = strlen(word);

	for (const char *p = opts;; p++) {
		if (drti_strncmp(p, word, len) == 0 && drti_strchr(", ", p[len]) != NULL)
			return 1;
		if ((p = drti_strchr(p, ',')) == NULL)
			return 0;
	}
}

#include "drti_fuse.h"

/*
 * The helper device, or -1 (errno set) when there is none or what is at
 * its path is neither a character device nor root's FUSE file.
 */
DRTI_PROTO int
drti_open_device(const drti_reg_t *r)
{
	const char *dev = r->env.dev;
	struct stat st;
	int fd = -1, ok;

	if (r->env.dev_too_long) {
		errno = ENAMETOOLONG;
		drti_say(r, "cannot open DTRACE_DOF_INIT_DEVNAME: %m");
		return -1;
	}
	if ((ok = drti_fuse_helper_ok(r, dev)) == 0) {
		errno = EPERM;
		return -1;
	}
	if (ok > 0)
		fd = drti_open(dev, O_RDWR | O_NOFOLLOW);
	if (fd < 0) {
		drti_say(r, "cannot open %s: %m", dev);
		return -1;
	}
	if (fstat(fd, &st) != 0 ||
	    !(S_ISCHR(st.st_mode) || (S_ISREG(st.st_mode) && drti_trusted_fuse(fd)))) {
		drti_close(fd);
		drti_say(r, "%s is not a character device: not using it", dev);
		errno = ENODEV;
		return -1;
	}
	return fd;
}

/*
 * Whether the kernel is locked down: DTRACE_DOF_INIT_LOCKDOWN if set,
 * else the bracketed mode of /sys/kernel/security/lockdown ("none
 * [integrity] confidentiality").  When neither says (securityfs not
 * mounted, as in a container's usual mount namespace; the file unreadable
 * or not in that form), taken as locked down: without is-enabled offsets
 * every probe can still be enabled and fire on any kernel, only DTrace's
 * _ENABLED() answers false; with them a locked-down kernel's DTrace could
 * enable no probe that has an is-enabled site.
 */
DRTI_PROTO int
drti_lockdown(const drti_reg_t *r)
{
	char line[128];
	const char *open_br = NULL, *close_br = NULL;
	int err = 0;

	if (r->env.lockdown >= 0) {
		drti_say(r, "lockdown %s (DTRACE_DOF_INIT_LOCKDOWN)", r->env.lockdown_mode);
		return r->env.lockdown;
	}
	errno = 0;
	if (drti_find_line("/sys/kernel/security/lockdown", "", line, sizeof(line)) != 0)
		err = errno != 0 ? errno : EIO;
	else if ((open_br = drti_strchr(line, '[')) == NULL ||
	    (close_br = drti_strchr(open_br, ']')) == NULL)
		err = EINVAL;
	if (err != 0) {
		errno = err;
		drti_say(r, err == EINVAL ? "cannot read %s (no [mode] in it): %s" :
		    "cannot read %s (%m): %s", "/sys/kernel/security/lockdown", "taken as "
		    "locked down, is-enabled offsets dropped so that every probe can be "
		    "enabled");
		return 1;
	}
	drti_say(r, "kernel lockdown %.*s", (int)(close_br - open_br - 1), open_br + 1);
	return drti_strncmp(open_br + 1, "none]", 5) != 0;
}

/* Section i of the DOF d (size bytes), or NULL if it lies outside. */
DRTI_PROTO dof_sec_t *
drti_dof_section(char *d, size_t size, uint32_t i)
{
	dof_hdr_t *h = (dof_hdr_t *)(void *)d;
	uint64_t at = h->dofh_secoff + (uint64_t)i * h->dofh_secsize;
	dof_sec_t *s;

	if (i >= h->dofh_secnum || h->dofh_secsize < sizeof(dof_sec_t) || at > size ||
	    size - at < sizeof(dof_sec_t) || at % 8 != 0)
		return NULL;
	s = (dof_sec_t *)(void *)(d + at);
	if (s->dofs_offset > size || s->dofs_size > size - s->dofs_offset)
		return NULL;
	return s;
}

/*
 * Point the relocations of the DOF d that apply to section tgt (probe
 * records of entsize bytes, each of whose dofpr_pad2 holds its new index
 * plus 1, or 0 when it goes) at where their records will be.
 */
DRTI_PROTO void
drti_move_relocations(char *d, size_t size, const dof_sec_t *tgt, uint32_t tgtidx)
{
	const dof_hdr_t *h = (const dof_hdr_t *)(const void *)d;

	for (uint32_t i = 0; i < h->dofh_secnum; i++) {
		dof_sec_t *u = drti_dof_section(d, size, i), *rs;
		dof_relohdr_t *rh;

		if (u == NULL || u->dofs_type != DOF_SECT_URELHDR ||
		    u->dofs_size < sizeof(dof_relohdr_t) || u->dofs_offset % 4 != 0)
			continue;
		rh = (dof_relohdr_t *)(void *)(d + u->dofs_offset);
		if (rh->dofr_tgtsec != tgtidx ||
		    (rs = drti_dof_section(d, size, rh->dofr_relsec)) == NULL ||
		    rs->dofs_entsize < sizeof(dof_relodesc_t) || rs->dofs_offset % 8 != 0)
			continue;
		for (uint64_t o = 0; o + rs->dofs_entsize <= rs->dofs_size; o += rs->dofs_entsize) {
			dof_relodesc_t *rd = (dof_relodesc_t *)(void *)(d + rs->dofs_offset + o);
			uint64_t rec = rd->dofr_offset / tgt->dofs_entsize;
			const dof_probe_t *pr;

			if (rd->dofr_offset >= tgt->dofs_size)
				continue;
			pr = (const dof_probe_t *)(const void *)(d + tgt->dofs_offset +
			    rec * tgt->dofs_entsize);
			if (pr->dofpr_pad2 == 0)
				rd->dofr_type = DOF_RELO_NONE;
			else
				rd->dofr_offset -= (rec - (pr->dofpr_pad2 - 1)) * tgt->dofs_entsize;
		}
	}
}

/*
 * Section i of the DOF d if it is a provider: *prov and its probe records'
 * section *ps; 1, 0 when it is no provider, -1 when it cannot be read.
 */
DRTI_PROTO int
drti_provider_at(char *d, size_t size, uint32_t i, dof_provider_t **prov, dof_sec_t **ps)
{
	dof_sec_t *pv = drti_dof_section(d, size, i);

	if (pv == NULL || pv->dofs_type != DOF_SECT_PROVIDER)
		return 0;
	if (pv->dofs_size < sizeof(dof_provider_t) || pv->dofs_offset % 4 != 0)
		return -1;
	*prov = (dof_provider_t *)(void *)(d + pv->dofs_offset);
	if ((*ps = drti_dof_section(d, size, (*prov)->dofpv_probes)) == NULL ||
	    (*ps)->dofs_entsize < sizeof(dof_probe_t) || (*ps)->dofs_offset % 8 != 0 ||
	    (*ps)->dofs_entsize % 8 != 0)
		return -1;
	return 1;
}

/*
 * The DOF d (size bytes, a writable copy) without the probe records that
 * have no tracepoint (dtprobed refuses a probe without tracepoints, and a
 * refusal halfway through a DOF leaves the rest of it in its parser's
 * pipe), the relocations of the others moved with them.  Returns the
 * probe records left, or -1 if the DOF is not one it can read.
 */
DRTI_PROTO long
drti_drop_empty(char *d, size_t size)
{
	dof_hdr_t *h = (dof_hdr_t *)(void *)d;
	long left = 0;

	if (size < sizeof(*h) || h->dofh_secoff > size)
		return -1;
	for (uint32_t i = 0; i < h->dofh_secnum; i++) {
		dof_provider_t *prov;
		dof_sec_t *ps;
		uint64_t nrec, kept = 0;
		int rc = drti_provider_at(d, size, i, &prov, &ps);

		if (rc <= 0) {
			if (rc < 0)
				return -1;
			continue;
		}
		nrec = ps->dofs_size / ps->dofs_entsize;
		for (uint64_t j = 0; j < nrec; j++) {	/* where each record goes */
			dof_probe_t *pr = (dof_probe_t *)(void *)(d + ps->dofs_offset +
			    j * ps->dofs_entsize);

			pr->dofpr_pad2 = pr->dofpr_noffs + pr->dofpr_nenoffs == 0 ? 0 :
			    (uint32_t)++kept;
		}
		if (kept != nrec)
			drti_move_relocations(d, size, ps, prov->dofpv_probes);
		for (uint64_t j = 0; j < nrec; j++) {
			dof_probe_t *pr = (dof_probe_t *)(void *)(d + ps->dofs_offset +
			    j * ps->dofs_entsize);
			uint32_t to = pr->dofpr_pad2;

			pr->dofpr_pad2 = 0;
			if (to != 0 && to - 1 != j)
				memmove(d + ps->dofs_offset + (to - 1) * ps->dofs_entsize, pr,
				    ps->dofs_entsize);
		}
		ps->dofs_size = kept * ps->dofs_entsize;
		left += (long)kept;
	}
	return left;
}

/*
 * The DOF d (size bytes, a writable copy) without is-enabled offsets: each
 * probe record's are cleared, and a record left with no probe site is
 * dropped (drti_drop_empty).  Returns the probe records left, or -1 if the
 * DOF is not one it can read.
 */
DRTI_PROTO long
drti_strip_enabled(char *d, size_t size)
{
	dof_hdr_t *h = (dof_hdr_t *)(void *)d;

	if (size < sizeof(*h) || h->dofh_secoff > size)
		return -1;
	for (uint32_t i = 0; i < h->dofh_secnum; i++) {
		dof_provider_t *prov;
		dof_sec_t *ps;
		int rc = drti_provider_at(d, size, i, &prov, &ps);

		if (rc < 0)
			return -1;
		for (uint64_t j = 0; rc > 0 && j < ps->dofs_size / ps->dofs_entsize; j++) {
			dof_probe_t *pr = (dof_probe_t *)(void *)(d + ps->dofs_offset +
			    j * ps->dofs_entsize);

			pr->dofpr_enoffidx = 0;
			pr->dofpr_nenoffs = 0;
		}
		if (rc > 0)
			prov->dofpv_prenoffs = DOF_SECT_NONE;
	}
	h->dofh_ident[DOF_ID_VERSION] = DOF_VERSION_1;	/* none left, as dtrace writes it */
	return drti_drop_empty(d, size);
}

/* ADDDOF of r->helper on fd; 1 when registered (r->gen set), -1 if refused. */
DRTI_PROTO int
drti_adddof(drti_reg_t *r, int fd)
{
	int gen = ioctl(fd, DTRACEHIOC_ADDDOF_LINUX, &r->helper);

	if (gen < 0)
		drti_say(r, "DTRACEHIOC_ADDDOF failed: %m");
	else
		drti_say(r, "DTRACEHIOC_ADDDOF returned generation %d", gen);
	r->gen = gen < 0 ? -1 : gen;
	return gen < 0 ? -1 : 1;
}

/* DOF larger than this is not ours: not copied. */
#define DRTI_DOF_MAX	(256u << 20)

/*
 * What a caller adds to its copy of a DOF before the helper gets it
 * (drti_lite.c: the header's inline sites).  room(arg, dof): the bytes the
 * copy may need beyond the DOF; add(arg, copy, size, cap): extend the copy
 * (size bytes of DOF, cap bytes mapped), returning its new size.  Both are
 * asked only once a helper device is open, so a machine without DTrace
 * never pays for them.
 */
typedef struct drti_extend {
	size_t (*room)(void *arg, const void *dof);
	size_t (*add)(void *arg, char *copy, size_t size, size_t cap);
	void *arg;
} drti_extend_t;

/*
 * A private copy of the DOF at dof in a memfd mapping of its own (the
 * descriptor closed), extended by ext if not NULL, without is-enabled
 * offsets if strip; NULL (said so) when it cannot be made or nothing of
 * it is left.  *len: the mapping's size, for munmap.
 */
DRTI_PROTO char *
drti_copy_dof(const drti_reg_t *r, const void *dof, int strip, const drti_extend_t *ext,
    size_t *len)
{
	const dof_hdr_t *h = dof;
	size_t size = (size_t)h->dofh_loadsz;	/* what the helper reads */
	size_t cap = size;
	char *copy;
	int mfd;

	if (h->dofh_loadsz < sizeof(*h) || h->dofh_loadsz > DRTI_DOF_MAX) {
		drti_say(r, "DOF of %llu bytes: not registered", (unsigned long long)h->dofh_loadsz);
		return NULL;
	}
	if (ext != NULL) {
		size_t more = ext->room(ext->arg, dof);

		cap = more <= DRTI_DOF_MAX ? size + more : size;
	}
	if ((mfd = (int)syscall(SYS_memfd_create, "dtrace-dof", 1u /* MFD_CLOEXEC */)) < 0) {
		drti_say(r, "memfd_create: %m");
		return NULL;
	}
	copy = ftruncate(mfd, (off_t)cap) == 0 ?
	    mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0) : MAP_FAILED;
	if (copy == MAP_FAILED)
		drti_say(r, "cannot map a copy of the DOF: %m");
	drti_close(mfd);
	if (copy == MAP_FAILED)
		return NULL;
	memcpy(copy, dof, size);
	*len = cap;
	if (cap > size)
		size = ext->add(ext->arg, copy, size, cap);
	if (strip) {
		long left = drti_strip_enabled(copy, size);

		if (left <= 0) {
			drti_say(r, left < 0 ? "cannot read the DOF to drop its is-enabled "
			    "offsets" : "no probe site but is-enabled ones: not registered "
			    "under lockdown");
			drti_munmap(copy, cap);
			return NULL;
		}
	}
	return copy;
}

/*
 * Register the DOF at dof (r->helper's name and load bias set) from a copy
 * of its own, extended by ext (NULL: as it is), without is-enabled offsets
 * under lockdown (asked once a device is there, and kept in r->strip).
 * Returns 1 when registered (r->gen set), 0 when there is no device to
 * talk to, -1 when no copy could be made or the device refused it (errno
 * set).
 */
DRTI_PROTO int
drti_register_dof(drti_reg_t *r, const void *dof, const drti_extend_t *ext)
{
	int fd = drti_open_device(r), rc = -1, err = EINVAL;
	size_t len = 0;
	char *copy;

	r->gen = -1;
	if (fd < 0)
		return 0;
	if (r->strip < 0)
		r->strip = drti_lockdown(r);
	if ((copy = drti_copy_dof(r, dof, r->strip, ext, &len)) != NULL) {
		r->helper.dofhp_dof = (uint64_t)(uintptr_t)copy;
		rc = drti_adddof(r, fd);
		err = errno;
		drti_munmap(copy, len);
	}
	drti_close(fd);
	errno = err;
	return rc;
}

/*
 * REMOVE the generation r holds, if any: by value to a character device,
 * through drti_fuse_remove_arg to a FUSE file.  Returns 0 (r->gen is then
 * -1), or -1 when the device could not be reached or refused (errno set):
 * r->gen is kept, since the helper may still hold the registration, and
 * libusdt must not unmap what DTrace may still trace.
 */
DRTI_PROTO int
drti_unregister(drti_reg_t *r)
{
	unsigned long arg = (unsigned long)r->gen;
	void *map = NULL;
	size_t maplen = 0;
	struct stat st;
	int fd, rc = 0, err = 0;

	if (r->gen < 0)
		return 0;
	if ((fd = drti_open_device(r)) < 0)
		return -1;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    (arg = drti_fuse_remove_arg(r->gen, &map, &maplen)) == 0) {
		err = errno;
		rc = -1;
		drti_say(r, "cannot map DTRACEHIOC_REMOVE's argument for %s: %m",
		    "a FUSE helper");
	} else if (ioctl(fd, DTRACEHIOC_REMOVE_LINUX, arg) < 0) {
		err = errno;
		rc = -1;
		drti_say(r, "DTRACEHIOC_REMOVE of generation %d failed: %m", r->gen);
	} else {
		drti_say(r, "DTRACEHIOC_REMOVE of generation %d done", r->gen);
		r->gen = -1;
	}
	if (map != NULL)
		drti_munmap(map, maplen);
	drti_close(fd);
	errno = err;
	return rc;
}

#endif
