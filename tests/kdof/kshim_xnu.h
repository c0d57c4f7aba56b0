/*
 * kshim_xnu.h - the kernel around xnu's DOF code, for tests/kdof/xnu.c.
 *
 * Why: xnu.c compiles xnu's own dtrace.c and fasttrap.c functions
 * (extracted at build time, unchanged) in user space on Linux.  xnu's
 * headers (sys/dtrace.h, sys/dtrace_impl.h, sys/dtrace_glue.h,
 * sys/fasttrap_impl.h) are compiled after this file; it supplies what they
 * take from the rest of the Darwin kernel: a few types, the ioctl number
 * macros, the endianness xnu's dtrace.h asks for.  The kernel services
 * the functions call (allocation, locks, copyin, zones) are in xnu.c.
 * Nothing here is xnu's text.
 */
#ifndef KDOF_KSHIM_XNU_H
#define KDOF_KSHIM_XNU_H

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#define __LITTLE_ENDIAN__ 1
#define __zpercpu

typedef int model_t;
typedef uint64_t user_addr_t;
typedef uint64_t user_size_t;
typedef struct kdof_lck { int held; } lck_mtx_t, lck_grp_t, lck_attr_t, lck_rw_t,
    lck_spin_t, lck_grp_attr_t;
typedef struct kdof_state { int unused; } x86_saved_state_t, arm_saved_state_t;
typedef struct kdof_vmem vmem_t;
typedef uintptr_t cyclic_id_t;
typedef uintptr_t pc_t;
typedef uint32_t minor_t;
typedef uint32_t major_t;
typedef struct kdof_uthread *uthread_t;
typedef unsigned int vm_tag_t;
#define VM_ALLOC_SITE_TAG() 0
typedef struct proc proc_t;
typedef struct kdof_cred cred_t;
typedef struct kdof_thread *thread_t;
typedef struct _kthread kthread_t;
typedef int kern_return_t;
typedef uint64_t vm_offset_t;
typedef uint64_t vm_size_t;
typedef uint64_t mach_vm_address_t;
typedef int boolean_t;
typedef void *thread_call_t;
typedef int processor_t;

/* <sys/ioccom.h>: Darwin's ioctl numbers, as BSD's. */
#define IOC_IN		0x80000000u
#define IOC_OUT		0x40000000u
#define IOC_VOID	0x20000000u
#define IOC_INOUT	(IOC_IN | IOC_OUT)
#define _IOC(inout, group, num, len) \
	((unsigned long)((inout) | (((len) & 0x1fffu) << 16) | ((group) << 8) | (num)))
#define _IO(g, n)	_IOC(IOC_VOID, (g), (n), 0)
#define _IOR(g, n, t)	_IOC(IOC_OUT, (g), (n), sizeof(t))
#define _IOW(g, n, t)	_IOC(IOC_IN, (g), (n), sizeof(t))
#define _IOWR(g, n, t)	_IOC(IOC_INOUT, (g), (n), sizeof(t))

#endif
