/*
 * sdtobj.c - -G where no DTrace exists: the object SystemTap's dtrace -G
 * gives there.
 *
 * Why: on i386, Arm, MIPS, POWER, s390x and RISC-V the header's probes are
 * <sys/sdt.h>'s (header/forms_sdt.c), and a build that runs -G
 * expects an object to link.  SystemTap's -G compiles a C file of the
 * providers' semaphores with `$CC $CFLAGS`, so that the object has the
 * build's own ELF flags (float ABI, MIPS ABI, POWER ELFv2), which a
 * writer of its own would have to know per architecture; usdtc does the
 * same.  Each semaphore is two bytes in `.probes`, where gdb and bpftrace
 * look; the header's own copies are weak, so this one is kept.
 *
 * Before anything is written, every object given is checked to be of the
 * target's ELF class and machine, and so is the compiled object: a 64-bit
 * object given to a 32-bit -G, or a compiler of another machine, is an
 * error naming the file, never a wrong object.
 */
#include <errno.h>
#include <fcntl.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "objin.h"
#include "sdtobj.h"
#include "subproc.h"

/*
 * 0 if the ELF file at path is of t's class and machine, else -1 with e
 * naming it name (the output's, not its temporary's).
 */
static int
check_identity(const target_t *t, const char *path, const char *name, err_t *e)
{
	int fd = open(path, O_RDONLY);
	Elf *elf;
	int rc;

	if (fd < 0)
		return err_errno(e, errno, "%s", name);
	if ((elf = elf_begin(fd, ELF_C_READ, NULL)) == NULL)
		rc = err_set(e, "%s: not an ELF object [G_NOT_ELF]", name);
	else
		rc = objin_check_target(elf, name, t, e);
	if (elf != NULL)
		elf_end(elf);
	close(fd);
	return rc;
}

/* The C text declaring every semaphore of m, by its symbol name. */
static int
write_source(const mdl_model_t *m, FILE *f)
{
	size_t k = 0;

	fputs("/* usdtc -G: the providers' semaphores (sdtobj.c) */\n", f);
	for (size_t i = 0; i < m->nproviders; i++)
		for (size_t j = 0; j < m->providers[i]->nprobes; j++) {
			char *sem = mdl_semaphore_name(m->providers[i]->name,
			    m->providers[i]->probes[j]->name);

			if (sem == NULL)
				return -1;
			fprintf(f, "__extension__ unsigned short __usdt_sem%zu __asm__(\"%s\") "
			    "__attribute__((used, section(\".probes\"))) = 0;\n", k++, sem);
			free(sem);
		}
	return ferror(f) ? -1 : 0;
}

/*
 * Run `CC $CFLAGS [flag] -g -x c -c -o out -` with src as its standard
 * input, CC being o->cc_cmd (both split as the shell splits them,
 * subproc.h), bounded by o->cc_timeout_ms; 0, or -1 with e.  -g, as
 * SystemTap's -G compiles them: the semaphores' DWARF lets a debugger
 * print them (`print prov_probe_semaphore` is an unsigned short, not
 * "unknown type").  Read from its input, the source is named "<stdin>" in
 * the object's file symbol, not by the temporary's random name: the same
 * -G gives the same bytes, on every run and every host.
 */
static int
compile(const char *src, const char *out, const objgen_opts_t *o, err_t *e)
{
	const char *words[] = { o->cc_cmd != NULL ? o->cc_cmd : "cc", getenv("CFLAGS") };
	const char *tail[] = { "-g", "-x", "c", "-c", "-o", out, "-" };
	size_t ntail = sizeof(tail) / sizeof(tail[0]), n;
	char **argv;
	int fds[3] = { -1, -1, -1 };
	int rc = -1, status, err;
	size_t len;
	pid_t pid;

	if ((fds[0] = open(src, O_RDONLY | O_CLOEXEC)) < 0)
		return err_errno(e, errno, "%s", src);
	if ((argv = spawn_words_n(words, 2, ntail + 1, &n)) == NULL) {
		err = errno;
		close(fds[0]);
		return err == EINVAL ? err_set(e, "$CC or $CFLAGS has a quote that is never "
		    "closed [OPT_BAD_QUOTE]") : err_set(e, "out of memory");
	}
	if (o->cc_flag != NULL)
		argv[n++] = (char *)o->cc_flag;
	for (size_t i = 0; i < ntail; i++)
		argv[n++] = (char *)tail[i];
	argv[n] = NULL;
	if ((err = spawn_argv(argv, fds, &pid)) != 0)
		err_errno(e, err, "cannot run the compiler '%s' ($CC) for the semaphores", argv[0]);
	else if ((err = spawn_wait_output(pid, -1, NULL, 0, &len, o->cc_timeout_ms > 0 ?
	    o->cc_timeout_ms : -1, &status)) == ETIMEDOUT)
		err_set(e, "'%s' ($CC) did not compile the semaphores in %d s: more time with "
		    "USDTC_CC_TIMEOUT=SECONDS [G_CC_TIMEOUT]", argv[0], o->cc_timeout_ms / 1000);
	else if (err != 0)
		err_errno(e, err, "waiting for '%s'", argv[0]);
	else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		err_set(e, "'%s' ($CC) failed to compile the semaphores", argv[0]);
	else
		rc = 0;
	close(fds[0]);
	free(argv);
	return rc;
}

int
sdtobj_write(const mdl_model_t *m, const target_t *t, const objgen_opts_t *o,
    const char *out_path, err_t *e)
{
	const char *tmpdir = getenv("TMPDIR");
	char src[4096];
	FILE *f;
	int fd, rc;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return err_libelf(e, "libelf", "elf_version");
	for (size_t i = 0; i < o->nobjects; i++)
		if (check_identity(t, o->objects[i], o->objects[i], e) != 0)
			return -1;
	snprintf(src, sizeof(src), "%s/usdtc-sem.XXXXXX",
	    tmpdir != NULL && *tmpdir != '\0' ? tmpdir : "/tmp");
	if ((fd = mkstemp(src)) < 0)
		return err_errno(e, errno, "%s", src);
	if ((f = fdopen(fd, "w")) == NULL) {
		close(fd);
		unlink(src);
		return err_errno(e, errno, "%s", src);
	}
	rc = write_source(m, f);
	if (fclose(f) != 0 || rc != 0) {
		unlink(src);
		return err_set(e, "%s: cannot write the semaphores' source", src);
	}
	rc = compile(src, out_path, o, e);
	unlink(src);
	if (rc == 0 && check_identity(t, out_path, o->out_name != NULL ? o->out_name : out_path,
	    e) != 0) {
		char why[ERR_MSG_MAX];

		snprintf(why, sizeof(why), "%s", e->msg);
		return err_set(e, "the compiler '%s' ($CC) writes objects for another machine "
		    "than target %s: set CC to a compiler for %s (export it: -G reads $CC "
		    "from the environment, not from make's variables), or give the --target= "
		    "of the compiler's machine: %s", o->cc_cmd != NULL ? o->cc_cmd : "cc",
		    t->name, t->name, why);
	}
	return rc;
}
