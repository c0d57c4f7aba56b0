/*
 * err.c - filling an err_t.  See err.h for the convention.
 */
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "err.h"

int
err_set(err_t *e, const char *fmt, ...)
{
	va_list ap;

	if (e == NULL)
		return -1;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return -1;
}

int
err_errno(err_t *e, int errnum, const char *fmt, ...)
{
	va_list ap;
	size_t len;

	if (e == NULL)
		return -1;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	len = strlen(e->msg);
	snprintf(e->msg + len, sizeof(e->msg) - len, ": %s", strerror(errnum));
	return -1;
}

int
err_libelf(err_t *e, const char *subject, const char *call)
{
	return err_set(e, "%s: %s failed: %s", subject, call, elf_errmsg(-1));
}
