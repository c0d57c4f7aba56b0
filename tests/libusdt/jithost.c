/*
 * jithost.c - a host with a JIT list of its own, for tests/libusdt's gdb
 * checks: libusdt shows its images to gdb through gdb's JIT interface,
 * and a host that already defines the interface's names (libLLVM does,
 * in a shared library) must keep its list to itself while gdb still
 * lists libusdt's probes.
 *
 * Built twice: with -DJITHOST_LIB, the host's library (defining
 * __jit_debug_descriptor and __jit_debug_register_code, as a JIT library
 * does); without, the program, linked with that library before libusdt.
 *
 * Usage: jithost STOP   enable provider "jithost" (probe func:hit(int)),
 *                       print "host-list LIST ACTION" (the host's
 *                       descriptor's first entry and action, both 0 when
 *                       libusdt left it alone) and "ready PID", then fire
 *                       hit(1), hit(2), ... until file STOP exists.
 */
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

struct host_entry;
struct host_descriptor {
	uint32_t version;
	uint32_t action_flag;
	struct host_entry *relevant_entry;
	struct host_entry *first_entry;
};

#ifdef JITHOST_LIB

struct host_descriptor __jit_debug_descriptor = { 1, 0, NULL, NULL };

void __jit_debug_register_code(void);
void jithost_list(void **first, unsigned *action);

/* Through a function: a reference from the program would copy the descriptor into it. */
void
jithost_list(void **first, unsigned *action)
{
	*first = __jit_debug_descriptor.first_entry;
	*action = __jit_debug_descriptor.action_flag;
}

__attribute__((noinline)) void
__jit_debug_register_code(void)
{
	__asm__ __volatile__("" ::: "memory");
}

#else

#include <usdt.h>

void jithost_list(void **first, unsigned *action);

int
main(int argc, char **argv)
{
	const char *types[] = { "int" };
	usdt_provider_t *p = usdt_create_provider("jithost", "host");
	usdt_probedef_t *pd = usdt_create_probe("func", "hit", 1, types);
	void *first;
	unsigned action;

	if (argc != 2 || p == NULL || pd == NULL || usdt_provider_add_probe(p, pd) != 0 ||
	    usdt_provider_enable(p) != 0) {
		fprintf(stderr, "jithost: %s\n", p != NULL ? usdt_errstr(p) : "usage: jithost STOP");
		return 1;
	}
	jithost_list(&first, &action);
	printf("host-list %p %u\nready %d\n", first, action, (int)getpid());
	fflush(stdout);
	for (long i = 1; access(argv[1], F_OK) != 0; i++) {
		void *args[1] = { (void *)i };

		usdt_fire_probe(pd->probe, 1, args);
		usleep(1000);
	}
	usdt_provider_free(p);
	usdt_probe_release(pd);
	return 0;
}

#endif
