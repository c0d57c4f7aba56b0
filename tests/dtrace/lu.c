/*
 * lu.c - a libusdt provider for DTrace: "lu" with a probe of two
 * arguments (a negative int and a string) and one of eight, fired every
 * 10 ms until MARKER exists; READY is created once the provider is enabled.
 * req fires only while usdt_is_enabled() says so, as language bindings
 * fire; at the end lu prints "enabled_seen=N", whether it ever did.
 *
 *   lu MARKER READY
 */
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "usdt.h"

int
main(int argc, char **argv)
{
	const char *t2[] = { "int", "char *" };
	const char *t8[] = { "int", "int", "int", "int", "int", "int", "int", "int" };
	usdt_provider_t *p;
	usdt_probedef_t *req, *many;
	char word[16];
	int seen = 0;
	FILE *f;

	if (argc < 3)
		return 2;
	snprintf(word, sizeof(word), "lu-%d", 9);
	p = usdt_create_provider("lu", "lumod");
	req = usdt_create_probe("handler", "req", 2, t2);
	many = usdt_create_probe("handler", "many", 8, t8);
	if (p == NULL || req == NULL || many == NULL || usdt_provider_add_probe(p, req) != 0 ||
	    usdt_provider_add_probe(p, many) != 0 || usdt_provider_enable(p) != 0) {
		fprintf(stderr, "libusdt: %s\n", p ? usdt_errstr(p) : "no provider");
		return 1;
	}
	if ((f = fopen(argv[2], "w")) == NULL || fclose(f) != 0)
		return 1;
	for (int i = 0; i < 12000 && access(argv[1], F_OK) != 0; i++) {
		void *a2[] = { (void *)(intptr_t)-42, word };
		void *a8[] = { (void *)1, (void *)2, (void *)3, (void *)4, (void *)5,
		    (void *)6, (void *)(intptr_t)-7, (void *)8 };

		if (usdt_is_enabled(req->probe)) {
			seen = 1;
			usdt_fire_probe(req->probe, 2, a2);
		}
		usdt_fire_probe(many->probe, 8, a8);
		usleep(10000);
	}
	usdt_provider_disable(p);
	usdt_provider_free(p);
	usdt_probe_release(req);	/* the caller's references: the last word */
	usdt_probe_release(many);
	printf("enabled_seen=%d\n", seen);
	return 0;
}
