/*
 * args.bpf.c - the BPF side of tests/libbpf: every argument of a USDT
 * probe, as libbpf's own USDT support reads it.
 *
 * Why: bpftrace 0.17 reads our stapsdt notes through bcc; libbpf
 * (`bpf_program__attach_usdt`, usdt.bpf.h) has its own parser of the
 * notes' argument specifications ("-4@%edi", "-8@16(%rsp)", "8@$5") and
 * its own semaphore handling, and is what modern tracers attach with.
 * This program uses nothing but that: on each hit it asks libbpf's
 * helpers for the argument count and every argument, and sends them with
 * the attach cookie (which probe user space attached) through a ring
 * buffer.  User space (tracer.c) compares them with what the traced
 * program says it passed.
 *
 * Built with clang -target bpf -D__TARGET_ARCH_x86 against the uapi
 * headers only (no vmlinux.h): usdt.bpf.h needs struct pt_regs, which
 * <linux/ptrace.h> gives, and libbpf computes register offsets in that
 * same layout.  usdt.bpf.h uses bool without including <stdbool.h>.
 */
#include <stdbool.h>

#include <linux/bpf.h>
#include <linux/ptrace.h>
#include <bpf/bpf_helpers.h>
#include <bpf/usdt.bpf.h>

#include "event.h"

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} events SEC(".maps");

/* Events the ring buffer had no room for; user space fails on any. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} dropped SEC(".maps");

SEC("usdt")
int on_usdt(struct pt_regs *ctx)
{
	struct lbt_event *e;
	__u32 zero = 0;
	__u64 *n;
	int i, cnt;

	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (e == NULL) {
		n = bpf_map_lookup_elem(&dropped, &zero);
		if (n != NULL)
			__sync_fetch_and_add(n, 1);
		return 0;
	}
	e->cookie = bpf_usdt_cookie(ctx);
	e->pid = bpf_get_current_pid_tgid() >> 32;
	cnt = bpf_usdt_arg_cnt(ctx);
	e->argc = cnt;
	e->errmask = 0;
	for (i = 0; i < LBT_MAX_ARGS; i++) {
		long v = 0;

		if (i < cnt && bpf_usdt_arg(ctx, i, &v) != 0)
			e->errmask |= 1u << i;
		e->args[i] = v;
	}
	bpf_ringbuf_submit(e, 0);
	return 0;
}
