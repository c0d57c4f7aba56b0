/*
 * drti_reg.c - a registration made ready, the environment read into it
 * once, and the debug line (drti_reg.h says why).
 */
#include <errno.h>
#include <stdarg.h>

#include "drti_reg.h"
#include "drti_str.h"

/* s into buf (size bytes), NUL-ended; whether it fitted (else buf is ""). */
static int
drti_copy_str(char *buf, size_t size, const char *s)
{
	size_t len = drti_strlen(s);

	if (len >= size) {
		buf[0] = '\0';
		return 0;
	}
	drti_memcpy(buf, s, len + 1);
	return 1;
}

/* The variables' common prefix; each name is it and one of the suffixes below. */
#define DRTI_ENV_PREFIX "DTRACE_DOF_INIT_"

/* What the environment holds of them: each value, NULL when unset. */
typedef struct drti_vars {
	const char *disable, *debug, *dev, *lock;
} drti_vars_t;

/*
 * The variables of envp, in one pass (the first of each name counts, as
 * for getenv); none when envp is NULL (the caller's: a program that runs
 * with privileges it was not started with, AT_SECURE, as secure_getenv).
 */
static void
drti_vars_scan(drti_vars_t *v, char *const *envp)
{
	const char *e;

	v->disable = v->debug = v->dev = v->lock = NULL;
	for (char *const *ep = envp; ep != NULL && *ep != NULL; ep++) {
		e = *ep;
		if (e[0] != 'D' || drti_strncmp(e, DRTI_ENV_PREFIX, 16) != 0)
			continue;
		e += 16;
		if (v->disable == NULL && drti_strncmp(e, "DISABLE=", 8) == 0)
			v->disable = e + 8;
		else if (v->debug == NULL && drti_strncmp(e, "DEBUG=", 6) == 0)
			v->debug = e + 6;
		else if (v->dev == NULL && drti_strncmp(e, "DEVNAME=", 8) == 0)
			v->dev = e + 8;
		else if (v->lock == NULL && drti_strncmp(e, "LOCKDOWN=", 9) == 0)
			v->lock = e + 9;
	}
}

/*
 * What the variables say, into *env.  Values are copied: nothing here
 * points into the environment afterwards.
 */
static void
drti_env_keep(drti_env_t *env, const drti_vars_t *v)
{
	const char *dev = v->dev;

	env->disabled = v->disable != NULL;	/* fields one by one: dev is 4 KiB, start-up pays a memset */
	env->debug = v->debug != NULL;
	env->lockdown = -1;
	env->lockdown_mode[0] = '\0';
	if (dev == NULL || dev[0] == '\0')
		dev = DTRACE_HELPER_DEVICE;
	env->dev_too_long = !drti_copy_str(env->dev, sizeof(env->dev), dev);
	if (v->lock != NULL && v->lock[0] != '\0') {
		env->lockdown = drti_strcmp(v->lock, "none") != 0;
		if (!drti_copy_str(env->lockdown_mode, sizeof(env->lockdown_mode), v->lock))
			drti_copy_str(env->lockdown_mode, sizeof(env->lockdown_mode), "(too long)");
	}
}

/* An empty registration. */
static void
drti_reg_clear(drti_reg_t *r)
{
	r->helper.dofhp_mod[0] = '\0';	/* drti_set_module_name fills it, padded */
	r->helper.dofhp_addr = r->helper.dofhp_dof = 0;
	r->gen = -1;
	r->strip = -1;
}

void
drti_reg_init(drti_reg_t *r, char *const *envp)
{
	drti_vars_t v;

	drti_reg_clear(r);
	drti_vars_scan(&v, envp);
	drti_env_keep(&r->env, &v);
	r->env.looked_up = 0;
}

void
drti_reg_init_lookup(drti_reg_t *r, char *(*lookup)(const char *name))
{
	drti_vars_t v;

	drti_reg_clear(r);
	v.disable = lookup(DRTI_ENV_PREFIX "DISABLE");
	v.debug = lookup(DRTI_ENV_PREFIX "DEBUG");
	v.dev = lookup(DRTI_ENV_PREFIX "DEVNAME");
	v.lock = lookup(DRTI_ENV_PREFIX "LOCKDOWN");
	drti_env_keep(&r->env, &v);
	r->env.looked_up = 1;
}

/* Whether DTRACE_DOF_INIT_DISABLE asked r for no registration at all. */
int
drti_disabled(const drti_reg_t *r)
{
	return r->env.disabled;
}

/*
 * A debug message on fd 2; nothing unless DTRACE_DOF_INIT_DEBUG is set.
 * errno is the caller's throughout: %m says it (one call where each
 * message would pass strerror's, a relocation each in every -G object),
 * and it is what it was when drti_say returns.
 */
void
drti_say(const drti_reg_t *r, const char *fmt, ...)
{
	char line[512];
	int n, m, err;
	va_list ap;

	if (!r->env.debug)
		return;
	err = errno;
	n = drti_snprintf(line, sizeof(line), "dtrace DOF %s: ",
	    r->helper.dofhp_mod[0] ? r->helper.dofhp_mod : "?");
	if (n < 0 || (size_t)n >= sizeof(line))
		return;
	errno = err;
	va_start(ap, fmt);
	m = drti_vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
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
void
drti_set_module_name(drti_reg_t *r, const char *name)
{
	char *mod = r->helper.dofhp_mod;
	size_t n = 0;

	for (; n + 1 < sizeof(r->helper.dofhp_mod) && name[n] != '\0'; n++)
		mod[n] = name[n];
	drti_memset(mod + n, 0, sizeof(r->helper.dofhp_mod) - n);	/* as strncpy pads */
}
