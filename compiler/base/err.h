/*
 * err.h - the one error convention of the library layer.
 *
 * Code shared between the compiler and the run-time library (model, dofgen,
 * elfwrite, decode) never prints and never exits: a failing function fills
 * an err_t with a complete sentence naming the subject and the cause, and
 * returns -1 (or NULL).  Only the caller that owns the process (usdtc's main,
 * or libusdt's public edge) decides what to do with the message.
 */
#ifndef USDTC_ERR_H
#define USDTC_ERR_H

#include <stddef.h>

#define ERR_MSG_MAX 512

typedef struct err {
	char msg[ERR_MSG_MAX];
} err_t;

/* Format a message into e (if e is non-NULL); always returns -1. */
int err_set(err_t *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Like err_set, with ": strerror(errnum)" appended. */
int err_errno(err_t *e, int errnum, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/*
 * A libelf call failed: "SUBJECT: CALL failed: " and libelf's own
 * message (elf_errmsg(-1)), the form of every libelf failure.
 */
int err_libelf(err_t *e, const char *subject, const char *call);

#endif
