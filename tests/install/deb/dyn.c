/*
 * dyn.c - a libusdt program for the package test: built with only the
 * header, library and pkg-config file the libusdt packages installed.
 *
 * Usage: dyn STOP-FILE READY-FILE.  It enables provider "dynapp" with the
 * probe work(int, char *), creates READY-FILE, and fires work(-3, "dynamic")
 * every 10 ms while a tracer has it enabled, until STOP-FILE exists (at
 * most 60 s).
 */
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include <usdt.h>

int
main(int argc, char **argv)
{
	const char *types[] = { "int", "char *" };
	usdt_provider_t *prov = usdt_create_provider("dynapp", "dyn");
	usdt_probedef_t *pd = usdt_create_probe("loop", "work", 2, types);
	char word[16];
	void *args[2];
	FILE *ready;

	if (argc != 3 || prov == NULL || pd == NULL)
		return 2;
	if (usdt_provider_add_probe(prov, pd) != 0 || usdt_provider_enable(prov) != 0) {
		fprintf(stderr, "dyn: %s\n", usdt_errstr(prov));
		return 1;
	}
	snprintf(word, sizeof(word), "dynamic");
	args[0] = (void *)(intptr_t)-3;
	args[1] = word;
	if ((ready = fopen(argv[2], "w")) != NULL)
		fclose(ready);
	for (int i = 0; i < 6000 && access(argv[1], F_OK) != 0; i++) {
		if (usdt_is_enabled(pd->probe))
			usdt_fire_probe(pd->probe, 2, args);
		usleep(10000);
	}
	usdt_probe_release(pd);
	usdt_provider_free(prov);
	return 0;
}
