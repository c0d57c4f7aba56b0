#!/usr/bin/env bash
# tests/kdof/build.sh OS KERNEL_DOF OUT - build the kernel harness for one
# system from the kernel sources under KERNEL_DOF: freebsd or illumos (OUT
# a shared object, kernel.c), xnu-x86_64 or xnu-arm64 (OUT a program, xnu.c).
#
# Why a script: the kernels' functions are extracted from their sources at
# build time (extract.awk), never kept in this repository; the headers they
# include that are not among those sources get empty stand-ins here, and
# kshim.h defines what the code uses of them.
set -eu
os=$1 kdof=$2 out=$3
here=$(cd "$(dirname "$0")" && pwd)

# The kernels' code is compiled as it is: no warnings of ours, but a call to
# a function nobody declared is an error (a missing shim).
KFLAGS=(-std=gnu11 -g -O1 -w -Werror=implicit-function-declaration
	-Werror=incompatible-pointer-types -Werror=int-conversion)

case $os in xnu-*)
	src=$kdof/xnu/bsd
	work=$(dirname "$out")/kdof-$os
	rm -rf "$work"; mkdir -p "$work/inc"
	# Darwin headers xnu's include that are not among its sources: empty.
	for h in sys/user.h sys/ucred.h sys/systm.h sys/syslog.h sys/processor.h sys/proc.h \
	    sys/param.h sys/modctl.h sys/ioctl.h sys/int_limits.h sys/cyclic.h sys/ctf_api.h \
	    os/overflow.h machine/machine_routines.h machine/atomic.h mach/kmod.h \
	    libkern/libkern.h kern/thread_call.h kern/thread.h kern/locks.h kern/kalloc.h \
	    kern/debug.h kern/cpu_number.h i386/mp.h; do
		mkdir -p "$work/inc/$(dirname "$h")"; : > "$work/inc/$h"
	done
	{
		for f in dtrace_dof_error dtrace_dof_destroy dtrace_dof_sect dtrace_dof_copyin \
		    dtrace_dof_slurp dtrace_dofattr2attr dtrace_dofprov2hprov dtrace_cond_provider_match \
		    dtrace_helper_provide_one dtrace_helper_provide dtrace_helper_provider_register \
		    dtrace_helper_provider_add dtrace_helper_provider_validate dtrace_helpers_create \
		    dtrace_helper_slurp; do
			awk -v names="$f" -f "$here/extract.awk" "$src/dev/dtrace/dtrace.c"
		done
		for f in fasttrap_uint32_cmp fasttrap_meta_provide fasttrap_meta_create_probe \
		    fasttrap_meta_provider_name; do
			awk -v names="$f" -f "$here/extract.awk" "$src/dev/dtrace/fasttrap.c"
		done
	} > "$work/kdof_extracted.c"
	arch=()
	[ "$os" = xnu-arm64 ] && arch=(-DKDOF_ARM64)
	exec ${CC:-cc} "${KFLAGS[@]}" "${arch[@]}" -I"$here" -I"$work" -I"$work/inc" -I"$src" \
	    -o "$out" "$here/xnu.c"
esac
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
${CC:-cc} "${KFLAGS[@]}" -shared -fPIC -DKDOF_$OS -I"$here" -I"$work" -I"$work/inc" -I"$src" \
    -Wl,--no-undefined -o "$out" "$here/kernel.c" -ldl
