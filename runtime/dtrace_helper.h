/*
 * dtrace_helper.h - the interface of DTrace's helper device, as the
 * runtime uses it: what a process hands over to register its DOF.
 *
 * drti_proto.h (drti_lite.c, libusdt) speaks it on Linux; the tests' shims
 * (tests/drti/shim.c, tests/targets/kshim.c) play the device with it.
 * FreeBSD's and illumos' layouts are runtime/drti_kernel.c's own.
 */
#ifndef USDTC_DTRACE_HELPER_H
#define USDTC_DTRACE_HELPER_H

#include <stdint.h>

/* What drti hands to the helper device (Linux and illumos layout). */
#define DTRACE_MODNAMELEN	64
typedef struct dof_helper {
	char dofhp_mod[DTRACE_MODNAMELEN];
	uint64_t dofhp_addr;	/* load bias of the object (0 for ET_EXEC) */
	uint64_t dofhp_dof;	/* address of the DOF in the process */
} dof_helper_t;

/* Linux (dtrace-utils) helper ioctls: _IOW(0xd8, n, type). */
#define DTRACEHIOC_ADD_LINUX	0x4040d801u
#define DTRACEHIOC_REMOVE_LINUX	0x4004d802u
#define DTRACEHIOC_ADDDOF_LINUX	0x4050d803u

#define DTRACE_HELPER_DEVICE	"/dev/dtrace/helper"

#endif
