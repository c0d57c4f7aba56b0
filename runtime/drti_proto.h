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
 * This code runs inside other people's programs, setuid ones included, so
 * it trusts nothing it did not make:
 *   - the variables are read with secure_getenv: in a program running with
 *     privileges it was not started with (AT_SECURE), none of them is
 *     seen, so an unprivileged user cannot make the constructor open a
 *     path of their choice as root, or probe for files with the debug line;
 *   - the device is opened with O_NOFOLLOW (a symlink at its path is not
 *     followed), O_NONBLOCK and O_NOCTTY (nothing at the path can stop the
 *     program or become its terminal), O_CLOEXEC, and must be a character
 *     device (fstat) before any ioctl: a regular file or a FIFO there is
 *     refused and said so under DTRACE_DOF_INIT_DEBUG;
 *   - the debug line never raises SIGPIPE in the host (stderr a closed
 *     pipe): SIGPIPE is blocked around the write, a SIGPIPE the write
 *     raised is taken back with sigtimedwait, and the mask is restored.
 *
 * The functions are static and this header is included, not linked, so
 * drti_lite.o stays one self-contained object with no symbol but its
 * reference to __SUNW_dof, and libusdt keeps its own copy.  Nothing here
 * allocates, aborts or writes to stdout; the caller serializes calls on
 * one registration.
 */
#ifndef USDTC_DRTI_PROTO_H
#define USDTC_DRTI_PROTO_H

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dof.h"
#include "dtrace_helper.h"

#define DRTI_PROTO static __attribute__((unused))

/* One registration of one DOF. */
typedef struct drti_reg {
	dof_helper_t helper;	/* what ADDDOF hands over */
	int gen;		/* generation DTrace returned, -1 if none */
	int debug;		/* DTRACE_DOF_INIT_DEBUG is set */
} drti_reg_t;

/* An empty registration; reads DTRACE_DOF_INIT_DEBUG. */
DRTI_PROTO void
drti_reg_init(drti_reg_t *r)
{
	memset(r, 0, sizeof(*r));
	r->gen = -1;
	r->debug = secure_getenv("DTRACE_DOF_INIT_DEBUG") != NULL;
}

/* Whether DTRACE_DOF_INIT_DISABLE asks for no registration at all. */
DRTI_PROTO int
drti_disabled(void)
{
	return secure_getenv("DTRACE_DOF_INIT_DISABLE") != NULL;
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

/* A debug message on fd 2; nothing unless DTRACE_DOF_INIT_DEBUG is set. */
DRTI_PROTO void __attribute__((format(printf, 2, 3)))
drti_say(const drti_reg_t *r, const char *fmt, ...)
{
	char line[512];
	int n, m;
	va_list ap;

	if (!r->debug)
		return;
	n = snprintf(line, sizeof(line), "dtrace DOF %s: ",
	    r->helper.dofhp_mod[0] ? r->helper.dofhp_mod : "?");
	if (n < 0 || (size_t)n >= sizeof(line))
		return;
	va_start(ap, fmt);
	m = vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (m < 0)
		return;
	n += m;
	if ((size_t)n > sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	drti_write_stderr(line, (size_t)n);
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
 * The helper device, or -1 (errno set) when there is none or what is at
 * its path is not a character device.
 */
DRTI_PROTO int
drti_open_device(const drti_reg_t *r)
{
	const char *dev = secure_getenv("DTRACE_DOF_INIT_DEVNAME");
	struct stat st;
	int fd, err;

	if (dev == NULL || dev[0] == '\0')
		dev = DTRACE_HELPER_DEVICE;
	fd = open(dev, O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		err = errno;
		drti_say(r, "cannot open %s: %s", dev, strerror(err));
		errno = err;
		return -1;
	}
	if (fstat(fd, &st) != 0 || !S_ISCHR(st.st_mode)) {
		close(fd);
		drti_say(r, "%s is not a character device: not using it", dev);
		errno = ENODEV;
		return -1;
	}
	return fd;
}

/*
 * ADDDOF with r->helper.  Returns 1 when registered (r->gen set), 0 when
 * there is no device to talk to, -1 when the device refused (errno set).
 */
DRTI_PROTO int
drti_register(drti_reg_t *r)
{
	int fd = drti_open_device(r), gen, err;

	r->gen = -1;
	if (fd < 0)
		return 0;
	gen = ioctl(fd, DTRACEHIOC_ADDDOF_LINUX, &r->helper);
	err = errno;
	if (gen < 0)
		drti_say(r, "DTRACEHIOC_ADDDOF failed: %s", strerror(err));
	else
		drti_say(r, "DTRACEHIOC_ADDDOF returned generation %d", gen);
	r->gen = gen < 0 ? -1 : gen;
	close(fd);
	errno = err;
	return gen < 0 ? -1 : 1;
}

/*
 * REMOVE the generation r holds, if any.  Returns 0, or -1 when the
 * device could not be reached or refused (errno set); r->gen is -1 after.
 */
DRTI_PROTO int
drti_unregister(drti_reg_t *r)
{
	int fd, rc = 0, err = 0;

	if (r->gen < 0)
		return 0;
	if ((fd = drti_open_device(r)) < 0) {
		r->gen = -1;
		return -1;
	}
	if (ioctl(fd, DTRACEHIOC_REMOVE_LINUX, (long)r->gen) < 0) {
		err = errno;
		rc = -1;
		drti_say(r, "DTRACEHIOC_REMOVE of generation %d failed: %s", r->gen,
		    strerror(err));
	} else {
		drti_say(r, "DTRACEHIOC_REMOVE of generation %d done", r->gen);
	}
	r->gen = -1;
	close(fd);
	errno = err;
	return rc;
}

#endif
