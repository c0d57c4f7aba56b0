/*
 * header_gen.c - write a -h header for a model described on the command
 * line, without the parser: the header tests drive compiler/header/
 * through this.
 *
 * Usage: header_gen [--no-stapsdt] OUT.h SPEC...
 *
 * Each SPEC adds to the model, in order:
 *	PROVIDER			a provider (no probes yet)
 *	PROVIDER/PROBE			a probe without arguments
 *	PROVIDER/PROBE/T1;T2;...	a probe with native argument types
 * A provider named again gains the new probes, as with several .d files.
 * The header is written to OUT.h, whose name also gives the include guard.
 * The target is x86_64-linux; --no-stapsdt takes away its stapsdt notes and
 * semaphores, as a target such as FreeBSD would.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "header.h"
#include "model.h"
#include "target.h"

static int
add_args(mdl_probe_t *pr, char *types)
{
	src_loc_t loc = { "spec", 0, 0 };
	char *save = NULL;

	for (char *t = strtok_r(types, ";", &save); t != NULL;
	    t = strtok_r(NULL, ";", &save))
		if (mdl_probe_add_native_arg(pr, t, NULL, loc) != 0)
			return -1;
	return mdl_probe_finish_args(pr);
}

/* Add what one SPEC says to m; -1 on a bad spec or no memory. */
static int
add_spec(mdl_model_t *m, char *spec)
{
	src_loc_t loc = { "spec", 0, 0 };
	char *probe = strchr(spec, '/'), *types = NULL;
	mdl_provider_t *prov;
	mdl_probe_t *pr;

	if (probe != NULL) {
		*probe++ = '\0';
		if ((types = strchr(probe, '/')) != NULL)
			*types++ = '\0';
	}
	if (*spec == '\0' || (probe != NULL && *probe == '\0'))
		return -1;
	prov = mdl_find_provider(m, spec);
	if (prov == NULL && (prov = mdl_add_provider(m, spec, loc)) == NULL)
		return -1;
	if (probe == NULL)
		return 0;
	if ((pr = mdl_provider_add_probe(prov, probe, loc)) == NULL)
		return -1;
	return add_args(pr, types != NULL ? types : (char *)"");
}

int
main(int argc, char **argv)
{
	mdl_model_t *m = mdl_new();
	target_t target = *target_find("x86_64-linux");
	strbuf_t text;
	FILE *f;
	int rc = 0, first = 1;

	if (argc > 1 && strcmp(argv[1], "--no-stapsdt") == 0) {
		target.stapsdt = false;
		first++;
	}
	if (argc < first + 1) {
		fprintf(stderr, "usage: header_gen [--no-stapsdt] OUT.h SPEC...\n");
		mdl_free(m);
		return 2;
	}
	for (int i = first + 1; i < argc; i++) {
		char *spec = strdup(argv[i]);

		if (m == NULL || spec == NULL || add_spec(m, spec) != 0) {
			fprintf(stderr, "header_gen: bad spec or no memory: %s\n", argv[i]);
			free(spec);
			mdl_free(m);
			return 2;
		}
		free(spec);
	}
	sb_init(&text);
	header_write(m, &target, argv[first], &text);
	if (text.failed) {
		fprintf(stderr, "header_gen: out of memory\n");
		rc = 1;
	} else if ((f = fopen(argv[first], "w")) == NULL ||
	    fwrite(text.data, 1, text.len, f) != text.len || fclose(f) != 0) {
		perror(argv[first]);
		rc = 1;
	}
	sb_free(&text);
	mdl_free(m);
	return rc;
}
