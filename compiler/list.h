/*
 * list.h - `usdtc --list` and `usdtc --dump`: what probes a file carries.
 *
 * Both read any ELF object, executable or shared library (ours or one built
 * with sys/sdt.h), find its DOF (.SUNW_dof) and stapsdt notes through the
 * strict decoder (decode.h), and print them.  --list prints a summary a
 * person reads; --dump prints every DOF field, the form golden tests keep.
 */
#ifndef USDTC_LIST_H
#define USDTC_LIST_H

#include <stdio.h>

#include "err.h"

int list_file(FILE *out, const char *path, err_t *e);
int dump_file(FILE *out, const char *path, err_t *e);

#endif
