/*
 * kshim.h - the kernel around the kernels' DOF code, for tests/kdof.
 *
 * Why: tests/kdof compiles the illumos and FreeBSD kernels' own functions
 * (extracted at build time from the kernel sources, unchanged) into a
 * user-space harness.  Those functions expect a kernel: its types, its
 * allocator, locks and copyin, the DTrace framework's provider and probe
 * registration.  This header supplies the few of each they use, as plain
 * user-space code; the kernel's own sys/dtrace.h and sys/fasttrap_impl.h
 * are compiled after it.  Build with -DKDOF_FREEBSD or -DKDOF_ILLUMOS.
 * Nothing here is the kernels' text.
 */
#ifndef KDOF_KSHIM_H
#define KDOF_KSHIM_H

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <signal.h>
#include <sys/types.h>

/* ---- Solaris-style types the headers use ---------------------------------- */
typedef unsigned int uint_t;
typedef unsigned char uchar_t;
typedef unsigned short ushort_t;
typedef unsigned long ulong_t;
typedef unsigned long long u_longlong_t;
typedef long long longlong_t;
typedef char *caddr_t;
typedef long long hrtime_t;
typedef int zoneid_t;
typedef int processorid_t;
typedef uintptr_t vm_offset_t;
#ifdef KDOF_ILLUMOS
typedef int model_t;
#endif
typedef int boolean_t;
#define B_FALSE 0
#define B_TRUE 1
typedef struct kdof_cred { int cr_ref; } cred_t;
typedef struct kdof_kthread { int t_unused; } kthread_t;
typedef struct kdof_modctl { int mod_unused; } modctl_t;
typedef struct kdof_kmutex { int m_held; } kmutex_t;
typedef struct kdof_cpu { int cpu_unused; } cpu_t;
#define __printflike(a, b) __attribute__((format(printf, a, b)))
typedef va_list __va_list;

/* The process: what dtrace_helper_slurp and its callees read. */
struct dtrace_helpers;
typedef struct proc {
	pid_t p_pid;
	struct dtrace_helpers *p_dtrace_helpers;
	int p_dtrace_probes;
	int p_flag;
	struct proc *p_pptr;
} proc_t;

/* ---- kernel services --------------------------------------------------- */
#define ASSERT(x)		((void)0)
#define MUTEX_HELD(m)		1
#define MUTEX_NOT_HELD(m)	1
#define mutex_enter(m)		((void)(m))
#define mutex_exit(m)		((void)(m))
#define mutex_init(m, n, t, a)	((void)(m))
#define KM_SLEEP		0
#define KM_NOSLEEP		1
#define kmem_alloc(n, f)	kdof_alloc((n), 0)
#define kmem_zalloc(n, f)	kdof_alloc((n), 1)
#define kmem_free(p, n)		free(p)
#define bcopy(s, d, n)		memmove((d), (s), (n))
#define bzero(p, n)		memset((p), 0, (n))
#define bcmp(a, b, n)		memcmp((a), (b), (n))
#define IS_P2ALIGNED(v, a)	((((uintptr_t)(v)) & ((uintptr_t)(a) - 1)) == 0)
#define ISP2(x)			(((x) & ((x) - 1)) == 0)
#define P2ROUNDUP(x, a)		(-(-(x) & -(a)))
#define atomic_add_32(p, v)	(*(p) += (v))
#define CE_WARN			2
#define MAX(a, b)		((a) > (b) ? (a) : (b))
#define MIN(a, b)		((a) < (b) ? (a) : (b))

#ifdef KDOF_FREEBSD
/* FreeBSD's sys/fasttrap.h is not among the sources: its probe types. */
typedef enum fasttrap_probe_type {
	DTFTP_NONE = 0, DTFTP_ENTRY, DTFTP_RETURN, DTFTP_OFFSETS,
	DTFTP_POST_OFFSETS, DTFTP_IS_ENABLED
} fasttrap_probe_type_t;
#endif
#define FASTTRAP_PID_NAME	"pid"	/* fasttrap.c's, for its own provider */

#ifdef KDOF_FREEBSD
/* <sys/ioccom.h>: FreeBSD's ioctl numbers (in, out, length, group, number). */
#define IOC_IN		0x80000000u
#define IOC_OUT		0x40000000u
#define IOC_INOUT	(IOC_IN | IOC_OUT)
#define _IOC(inout, group, num, len) \
	((unsigned long)((inout) | (((len) & 0x1fffu) << 16) | ((group) << 8) | (num)))
#define _IOW(g, n, t)	_IOC(IOC_IN, (g), (n), sizeof(t))
#define _IOWR(g, n, t)	_IOC(IOC_INOUT, (g), (n), sizeof(t))
#endif

/* sys/fasttrap_isa.h (not among the sources): the machine part of a tracepoint. */
typedef struct fasttrap_machtp { uint8_t ftmt_instr[16]; } fasttrap_machtp_t;
typedef uint8_t fasttrap_instr_t;
#define FASTTRAP_OFFSET_AFRAMES	3

void *kdof_alloc(size_t n, int zero);
int copyin(const void *uaddr, void *kaddr, size_t n);
void cmn_err(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
