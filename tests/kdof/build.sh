#!/usr/bin/env bash
# tests/kdof/build.sh OS KERNEL_DOF OUT.so - build the kernel harness for one
# system (freebsd or illumos) from the kernel sources under KERNEL_DOF.
#
# Why a script: the kernels' functions are extracted from their sources at
# build time (extract.awk), never kept in this repository; the headers they
# include that are not among those sources get empty stand-ins here, and
# kshim.h defines what the code uses of them.
set -eu
os=$1 kdof=$2 out=$3
here=$(cd "$(dirname "$0")" && pwd)
src=$kdof/$os/uts/common
work=$(dirname "$out")/kdof-$os
rm -rf "$work"; mkdir -p "$work/inc/sys"
for h in modctl processor systm cpuvar param linker ioccom ucred ctf_api cyclic \
    int_limits stdint proc fasttrap_isa; do
	: > "$work/inc/sys/$h.h"
done
# FreeBSD's sys/fasttrap.h is not among its sources (kshim.h has its types).
[ "$os" = freebsd ] && : > "$work/inc/sys/fasttrap.h"
ioctl_src=$src/dtrace/dtrace.c
[ "$os" = freebsd ] && ioctl_src=$kdof/freebsd/dev/dtrace/dtrace_ioctl.c
{
	# In calling order, so that each is defined before its first use.
	for f in dtrace_dof_error dtrace_dof_destroy dtrace_dofattr2attr dtrace_dof_sect dtrace_dof_copyin \
	    dtrace_dof_relocate dtrace_dof_slurp dtrace_dofprov2hprov dtrace_helper_provide_one \
	    dtrace_helper_provide dtrace_helper_provider_register dtrace_helper_provider_add \
	    dtrace_helper_provider_validate dtrace_helpers_create dtrace_helper_slurp; do
		awk -v names="$f" -f "$here/extract.awk" "$src/dtrace/dtrace.c"
	done
	for f in fasttrap_uint32_cmp fasttrap_meta_provide fasttrap_meta_create_probe; do
		awk -v names="$f" -f "$here/extract.awk" "$src/dtrace/fasttrap.c"
	done
	awk -v names=dtrace_ioctl_helper -f "$here/extract.awk" "$ioctl_src"
} > "$work/kdof_extracted.c"
OS=$(echo "$os" | tr a-z A-Z)
# The kernels' code is compiled as it is: no warnings of ours, but a call to
# a function nobody declared is an error (a missing shim).
${CC:-cc} -std=gnu11 -g -O1 -shared -fPIC -w -Werror=implicit-function-declaration \
    -Werror=incompatible-pointer-types -Werror=int-conversion \
    -DKDOF_$OS -I"$here" -I"$work" -I"$work/inc" -I"$src" \
    -Wl,--no-undefined -o "$out" "$here/kernel.c" -ldl
