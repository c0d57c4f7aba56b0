/*
 * drti_reg.h - one registration of a DOF with DTrace's helper, as
 * drti_lite.c and libusdt make it: what the helper is handed, the
 * generation it returned, and what the environment said, read once.
 *
 * The environment is read once, when a registration is made ready
 * (drti_reg_init: drti_lite's constructor, with the environment it was
 * called with; libusdt, with environ), in one pass,
 * and what it says is kept in the registration (drti_env_t): nothing
 * later -- the fork child's registration, the destructor's REMOVE at exit
 * -- looks at the environment again.  A program may have changed or
 * broken its environment by then (Oracle's own test tst.corruptenv.sh
 * sets envp[0] to 0xff before it exits), and getenv at exit would then
 * crash it, as Oracle's drti, which reads it once at start-up, does not.
 * The variables are read as secure_getenv reads them: in a program
 * running with privileges it was not started with (AT_SECURE), none of
 * them is seen (drti_proto.h says what each would let a user do).  Two
 * ways in: an environment block (drti_reg_init), where the caller finds
 * AT_SECURE (drti_lite.c from the auxiliary vector, libusdt with
 * getauxval) and then hands none; or a function that looks one variable
 * up (drti_reg_init_lookup), libc's secure_getenv itself, which drti_lite
 * uses when its constructor was not handed the kernel's block (musl calls
 * constructors without arguments; a dlopen after setenv moved environ):
 * then each of the four names is one call and libc applies the rule.
 *
 * The debug line (drti_say) is here too: it names the registration's
 * object and is written only when its DTRACE_DOF_INIT_DEBUG said so.
 */
#ifndef USDTC_DRTI_REG_H
#define USDTC_DRTI_REG_H

#include "drti_sys.h"
#include "dtrace_helper.h"

#pragma GCC visibility push(hidden)

/* What the environment said, read once (drti_reg_init). */
typedef struct drti_env {
	int disabled;		/* DTRACE_DOF_INIT_DISABLE */
	int debug;		/* DTRACE_DOF_INIT_DEBUG */
	int lockdown;		/* DTRACE_DOF_INIT_LOCKDOWN: -1 unset, 0 none, 1 locked */
	char lockdown_mode[32];	/* its value, for the debug line */
	int dev_too_long;	/* DTRACE_DOF_INIT_DEVNAME did not fit */
	int looked_up;		/* read through drti_reg_init_lookup, not a block */
	char dev[DRTI_PATH_MAX];	/* the device: DTRACE_DOF_INIT_DEVNAME or the default */
} drti_env_t;

/* One registration of one DOF. */
typedef struct drti_reg {
	dof_helper_t helper;	/* what ADDDOF hands over */
	int gen;		/* generation DTrace returned, -1 if none */
	int strip;		/* lockdown: no is-enabled offsets; -1 not yet asked */
	drti_env_t env;		/* the environment, as it was at drti_reg_init */
} drti_reg_t;

/*
 * An empty registration; the environment envp read, once, into it: NULL
 * when none may be trusted (AT_SECURE: the caller knows).
 */
void drti_reg_init(drti_reg_t *r, char *const *envp);
/*
 * The same, each variable looked up by name with lookup (secure_getenv:
 * NULL when unset or when the process is AT_SECURE).
 */
void drti_reg_init_lookup(drti_reg_t *r, char *(*lookup)(const char *name));
/* Whether DTRACE_DOF_INIT_DISABLE asked r for no registration at all. */
int drti_disabled(const drti_reg_t *r);
/* dofhp_mod: name, cut to fit. */
void drti_set_module_name(drti_reg_t *r, const char *name);

/*
 * A debug line on fd 2, "dtrace DOF <mod>: " and fmt; nothing unless
 * DTRACE_DOF_INIT_DEBUG is set.  errno is the caller's throughout (%m
 * says it) and is what it was when drti_say returns.
 */
void drti_say(const drti_reg_t *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#pragma GCC visibility pop

#endif
