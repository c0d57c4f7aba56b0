/*
 * fuzz_rewrite.c - libFuzzer entry point for -G's ELF input path: the
 * check of the program's object against the provider (objgen.c), the plan
 * of its probe calls and their rewrite (rewrite_plan.c, rewrite_write.c), and
 * the output built from the sites found.
 *
 * -G reads and then rewrites relocatable objects it did not write.  The
 * mutated bytes are the one object given to -G for x86_64-linux, with the
 * provider below (tests/fuzz/seeds compiles programs against the same
 * text).  The object lives in a file on a memory file system (/dev/shm
 * when there is one): rewrite_write.c edits a copy of each object
 * with libelf.  Nothing is ever committed: the rewritten copy and the
 * output are temporaries, discarded after each input, so every input
 * starts from its own bytes.
 *
 * Built by `make fuzz` (libFuzzer) and by tests/fuzz/run (a plain replay
 * of the corpus and regression inputs, tests/fuzz/replay.c).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fileio.h"
#include "tempset.h"
#include "model.h"
#include "objgen.h"
#include "parse.h"
#include "target.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The provider the seed objects call (tests/fuzz/seeds writes it too). */
static const char provider[] =
    "provider fz { probe a(int); probe b(); probe c(char *, long); };\n";

static char dir[64];

static void
remove_dir(void)
{
	rmdir(dir);
}

/* A private directory for the object and the temporaries, once. */
static int
workdir(void)
{
	const char *roots[] = { "/dev/shm", getenv("TMPDIR"), "/tmp" };

	for (size_t i = 0; dir[0] == '\0' && i < 3; i++) {
		if (roots[i] == NULL || strlen(roots[i]) > 32)
			continue;
		snprintf(dir, sizeof(dir), "%s/usdtc-fuzz-XXXXXX", roots[i]);
		if (mkdtemp(dir) == NULL)
			dir[0] = '\0';
	}
	if (dir[0] == '\0')
		return -1;
	static bool registered;
	if (!registered)
		registered = atexit(remove_dir) == 0;
	return 0;
}

static int
write_object(const char *path, const uint8_t *data, size_t size)
{
	FILE *f = fopen(path, "wb");
	int rc = 0;

	if (f == NULL)
		return -1;
	if (size > 0 && fwrite(data, 1, size, f) != size)
		rc = -1;
	if (fclose(f) != 0)
		rc = -1;
	return rc;
}

/* -G of the object at path, its results thrown away. */
static void
run_g(const char *path)
{
	char out[96], *objects[] = { (char *)path };
	objgen_opts_t o = { .objects = objects, .nobjects = 1, .lazyload = true };
	tempset_t ts = { NULL, 0, 0 };
	mdl_model_t *m = mdl_new();
	int fd, i;
	err_t e;

	if (m == NULL)
		return;
	o.temps = &ts;
	snprintf(out, sizeof(out), "%s/out.o", dir);
	if (parse_buffer(m, "fuzz.d", provider, sizeof(provider) - 1) == 0 &&
	    (i = tempset_add(&ts, out, NULL, &fd, &e)) >= 0) {
		close(fd);
		(void)objgen_write(m, target_find("x86_64-linux"), &o,
		    tempset_path(&ts, i), &e);
	}
	tempset_discard(&ts);
	mdl_free(m);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[96];

	if (workdir() != 0)
		return 0;
	snprintf(path, sizeof(path), "%s/in.o", dir);
	if (write_object(path, data, size) == 0)
		run_g(path);
	unlink(path);
	return 0;
}
