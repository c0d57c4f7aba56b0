/*
 * replay.c - run a libFuzzer harness over files without libFuzzer.
 *
 * `make test` must replay every seed and every input a fuzzer once
 * crashed on (tests/fuzz/regress/), with whatever compiler and sanitizers
 * the build uses, and clang's libFuzzer runtime is not always at hand.
 * This main reads each file named on the command line and calls
 * LLVMFuzzerTestOneInput with it, as libFuzzer does when given files.
 * A crash or sanitizer report ends the process; otherwise it prints how
 * many inputs ran and exits 0.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The whole file, or NULL. */
static uint8_t *
read_input(const char *path, size_t *lenp)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL, *p;
	size_t len = 0, cap = 0, n;

	if (f == NULL)
		return NULL;
	for (;;) {
		if (len == cap) {
			if (cap > ((size_t)64 << 20) ||
			    (p = realloc(buf, cap = cap * 2 + 4096)) == NULL) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = p;
		}
		if ((n = fread(buf + len, 1, cap - len, f)) == 0)
			break;
		len += n;
	}
	fclose(f);
	*lenp = len;
	return buf;
}

int
main(int argc, char **argv)
{
	int ran = 0;

	for (int i = 1; i < argc; i++) {
		size_t len = 0;
		uint8_t *buf = read_input(argv[i], &len);

		if (buf == NULL) {
			fprintf(stderr, "replay: cannot read %s\n", argv[i]);
			return 1;
		}
		LLVMFuzzerTestOneInput(buf, len);
		free(buf);
		ran++;
	}
	printf("replayed %d inputs\n", ran);
	return 0;
}
