/*
 * macho_in.c - reading and checking the program's Mach-O objects for -G
 * (macho_in.h): the macOS counterpart of objin.c and objgen.c's checks.
 *
 * The objects are not rewritten (their calls reach the probe units), so
 * checking is all -G does with them: each must be a Mach-O MH_OBJECT of
 * the target's CPU (macho_read.c reads it, strictly), and each undefined
 * ___dtrace_probe$P$N$... or ___dtrace_isenabled$P$N$... it refers to must
 * name probe N of provider P, as the definition declares it.  A whole file
 * is read, regular files only, to the size it had (/dev/zero never ends).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "macho_arch.h"
#include "macho_in.h"
#include "macho_read.h"
#include "magic.h"

/* A -v note, as objgen.c writes them. */
static void
note(bool verbose, const char *path, const char *what)
{
	if (verbose)
		fprintf(stderr, "usdtc: %s: %s\n", path, what);
}

/*
 * An undefined ___dtrace_probe$P$N$... or ___dtrace_isenabled$P$N$...
 * must name probe N (as declared) of provider P.
 */
static int
check_reference(const mdl_model_t *m, const char *path, const char *name, err_t *e)
{
	static const char *const prefixes[] = { "___dtrace_probe$", "___dtrace_isenabled$" };
	const char *body = NULL, *d1, *d2;
	const mdl_provider_t *p;
	char *prov, *probe;
	int rc = 0;

	for (size_t i = 0; i < 2 && body == NULL; i++)
		if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
			body = name + strlen(prefixes[i]);
	if (body == NULL)
		return 0;
	if ((d1 = strchr(body, '$')) == NULL || (d2 = strchr(d1 + 1, '$')) == NULL)
		return err_set(e, "%s: %s: not a probe function name (expected "
		    "___dtrace_probe$PROVIDER$PROBE$v1...)", path, name);
	prov = strndup(body, (size_t)(d1 - body));
	probe = strndup(d1 + 1, (size_t)(d2 - d1 - 1));
	if (prov == NULL || probe == NULL)
		rc = err_set(e, "%s: out of memory", path);
	else if ((p = mdl_find_provider(m, prov)) == NULL ||
	    mdl_provider_find_probe(p, probe) == NULL)
		rc = err_set(e, "%s: %s: no probe '%s' in provider '%s'", path, name,
		    probe, prov);
	free(prov);
	free(probe);
	return rc;
}

static int
check_macho_object(const mdl_model_t *m, uint32_t cputype, const char *path,
    const uint8_t *buf, size_t len, err_t *e)
{
	macho_file_t f;
	err_t re;
	int rc = 0;

	if (macho_read(buf, len, &f, &re) != 0)
		return err_set(e, "%s: %s", path, re.msg);
	if (f.filetype != MH_OBJECT)
		rc = err_set(e, "%s: not a relocatable object (Mach-O file type %u); "
		    "-G takes the program's .o files", path, f.filetype);
	else if (f.cputype != cputype)
		rc = err_set(e, "%s: a Mach-O object for %s, but the target is %s", path,
		    macho_arch_name(f.cputype) ? macho_arch_name(f.cputype) : "another CPU",
		    macho_arch_name(cputype));
	for (size_t i = 0; rc == 0 && i < f.nsyms; i++)
		if (!(f.syms[i].type & N_STAB) && (f.syms[i].type & N_TYPE) == N_UNDF)
			rc = check_reference(m, path, f.syms[i].name, e);
	macho_file_free(&f);
	return rc;
}

/* One input: its kind, then, for Mach-O, its contents. */
static int
check_object(const mdl_model_t *m, const target_t *t, uint32_t cputype,
    bool verbose, const char *path, err_t *e)
{
	uint8_t *buf = NULL;
	size_t len;
	int rc = 0;

	if (file_read_regular(path, &buf, &len, NULL, e) != 0)
		return -1;
	switch (magic_of(buf, len)) {
	case MAGIC_ARCHIVE:
		rc = err_set(e, "%s: is an archive; pass the objects it contains to -G "
		    "instead (extract them with 'ar x')", path);
		break;
	case MAGIC_BITCODE:
		note(verbose, path, "LLVM bitcode (LTO) object: its probe calls are not checked");
		break;
	case MAGIC_ELF:
		rc = err_set(e, "%s: an ELF object, but target %s writes Mach-O", path,
		    t->name);
		break;
	case MAGIC_MACHO:
		rc = check_macho_object(m, cputype, path, buf, len, e);
		break;
	default:
		rc = err_set(e, "%s: not a Mach-O object", path);
	}
	free(buf);
	return rc;
}

int
macho_in_check(const mdl_model_t *m, const target_t *t,
    char *const *objects, size_t nobjects, bool verbose, err_t *e)
{
	macho_arch_t cpu;

	if (!macho_arch(t, &cpu))
		return err_set(e, "target %s: no Mach-O CPU for arch %s", t->name,
		    t->arch->name);
	for (size_t i = 0; i < nobjects; i++)
		if (check_object(m, t, cpu.cputype, verbose, objects[i], e) != 0)
			return -1;
	return 0;
}
