/*
 * usdt_jit.h - show mapped images to gdb through its JIT interface
 * (usdt_jit.c says why).  Internal to libusdt.
 */
#ifndef LIBUSDT_USDT_JIT_H
#define LIBUSDT_USDT_JIT_H

#include <stdint.h>

#include "err.h"

struct usdt_jit_entry;

/*
 * Register the image in fd, mapped at load bias base, with debuggers:
 * *out is its entry.  The caller serializes calls (libusdt's lock).
 * Returns 0, or -1 with e set and nothing registered.
 */
int usdt_jit_register(int fd, uintptr_t base, struct usdt_jit_entry **out, err_t *e);

/* Unregister and free an entry (nothing if NULL). */
void usdt_jit_unregister(struct usdt_jit_entry *entry);

#endif
