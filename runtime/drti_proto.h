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
 * The environment is read once, into the registration (drti_reg.h).
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
 *
 * The code is in drti_proto.c, drti_reg.c, drti_fuse.c and drti_sys.c,
 * linked into libusdt and merged into drti_lite's one object (the
 * Makefile's drti_merge), where every name but drti_init's and
 * drti_fini's is made local: each -G object and libusdt keep their own
 * copy.  Nothing here allocates (the DOF copy is a memfd mapped only for
 * the ioctl), aborts or writes to stdout; the caller serializes calls on
 * one registration.
 */
#ifndef USDTC_DRTI_PROTO_H
#define USDTC_DRTI_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "dof.h"
#include "drti_reg.h"

#pragma GCC visibility push(hidden)

/* Whether the DOF at dof starts with the DOF magic. */
int drti_dof_magic_ok(const void *dof);
/* Section i of the DOF d (size bytes), or NULL if it lies outside. */
dof_sec_t *drti_dof_section(char *d, size_t size, uint32_t i);
/* The relocations section i of d holds for section tgt, checked; or NULL. */
dof_sec_t *drti_dof_relocs_for(char *d, size_t size, uint32_t i, uint32_t tgt);
/*
 * Section i of the DOF d if it is a provider: *prov and its probe records'
 * section *ps; 1, 0 when it is no provider, -1 when it cannot be read.
 */
int drti_provider_at(char *d, size_t size, uint32_t i, dof_provider_t **prov, dof_sec_t **ps);

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
 * Register the DOF at dof (r->helper's name and load bias set) from a copy
 * of its own, extended by ext (NULL: as it is), without is-enabled offsets
 * under lockdown.  Returns 1 when registered (r->gen set), 0 when there is
 * no device to talk to, -1 when no copy could be made or the device
 * refused it (errno set).
 */
int drti_register_dof(drti_reg_t *r, const void *dof, const drti_extend_t *ext);
/*
 * REMOVE the generation r holds, if any; 0 (r->gen is then -1), or -1 when
 * the device could not be reached or refused (errno set; r->gen kept).
 */
int drti_unregister(drti_reg_t *r);

#pragma GCC visibility pop

#endif
