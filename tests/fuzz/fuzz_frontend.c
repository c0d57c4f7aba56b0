/*
 * fuzz_frontend.c - libFuzzer entry point for the provider-file front end
 * (lexer.l, parser.y, parse*.c, model.c) and the writers that read what it
 * builds: the header (compiler/header/) and the DOF (dofgen.c).
 *
 * A provider file is the one input usdtc reads that a person writes, so
 * every byte sequence must end in either a model or `file:line:col`
 * diagnostics, never a crash.  On success the model goes through every
 * writer a real run would use: the Linux and macOS headers, and the DOF of
 * each probe given one firing site and one is-enabled site at known
 * addresses (the -G stage and libusdt give sites the same way).
 * Diagnostics go to /dev/null: the fuzzer looks for crashes and
 * sanitizer reports, tests/errors and tests/golden check the words.
 *
 * Built by `make fuzz` (libFuzzer) and by tests/fuzz/run (a plain replay
 * of the corpus and regression inputs, tests/fuzz/replay.c).
 */
#include <stdint.h>
#include <stdio.h>

#include "diag.h"
#include "dofgen.h"
#include "header.h"
#include "header_macos.h"
#include "model.h"
#include "parse.h"
#include "strbuf.h"
#include "target.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* One firing and one is-enabled site per probe, at made-up addresses. */
static int
add_sites(mdl_model_t *m)
{
	uint64_t addr = 0x401000;

	for (size_t i = 0; i < m->nproviders; i++) {
		mdl_provider_t *p = m->providers[i];

		for (size_t j = 0; j < p->nprobes; j++, addr += 0x40)
			if (mdl_probe_add_site(p->probes[j], "main", "main", addr, 4,
			    false) != 0 ||
			    mdl_probe_add_site(p->probes[j], "main", "main", addr, 12,
			    true) != 0)
				return -1;
	}
	return 0;
}

static void
write_all(mdl_model_t *m)
{
	const char *targets[] = { "x86_64-linux", "x86_64-freebsd", "arm64-macos" };
	dof_image_t img;
	err_t e;

	for (size_t i = 0; i < sizeof(targets) / sizeof(targets[0]); i++) {
		const target_t *t = target_find(targets[i]);
		strbuf_t out;

		if (t == NULL)
			continue;
		sb_init(&out);
		if (t->os == TARGET_OS_MACOS)
			header_macos_write(m, t, "probes.h", &out);
		else
			header_write(m, t, "probes.h", &out);
		sb_free(&out);
	}
	if (add_sites(m) != 0)
		return;
	if (dof_generate(m, target_host(), &img, &e) == 0)
		dof_image_free(&img);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *sink;
	mdl_model_t *m;

	if (sink == NULL && (sink = fopen("/dev/null", "w")) == NULL)
		return 0;
	diag_set_output(sink);
	if ((m = mdl_new()) == NULL)
		return 0;
	if (parse_buffer(m, "fuzz.d", (const char *)data, size) == 0)
		write_all(m);
	mdl_free(m);
	return 0;
}
