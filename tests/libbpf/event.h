/*
 * event.h - one probe hit, as args.bpf.c sends it and tracer.c reads it.
 *
 * Shared by the BPF program and user space so that both agree on the
 * layout; only fixed-width types, no padding between members.
 */
#ifndef LBT_EVENT_H
#define LBT_EVENT_H

/* libbpf's BPF_USDT_MAX_ARG_CNT: the most arguments it reads. */
#define LBT_MAX_ARGS 12

struct lbt_event {
	__u64 cookie;			/* bpf_usdt_cookie: which attached probe */
	__s32 pid;
	__s32 argc;			/* bpf_usdt_arg_cnt, or a negative errno */
	__u32 errmask;			/* bit i: bpf_usdt_arg(i) failed */
	__u32 pad;
	__s64 args[LBT_MAX_ARGS];	/* bpf_usdt_arg(i), 0 past argc */
};

#endif
