/*
 * tracer.c - attach libbpf's USDT support to every probe of a file and
 * check every argument of every hit.
 *
 *   tracer BPFOBJ PID PROGOUT GO FILE...
 *
 * Why: a second, independent reader of our stapsdt notes.  bpftrace 0.17
 * reads them through bcc; libbpf parses the argument specifications
 * itself, raises semaphores through the kernel (the uprobe's reference
 * counter), and is what newer tracers are built on.
 *
 * The probes are found by reading each FILE's .note.stapsdt here
 * (libelf), not by asking usdtc, and every distinct provider:name of each
 * file is attached with bpf_program__attach_usdt (PID, or -1 for every
 * process running the file), its index in our table as the USDT cookie.  The traced program writes
 * PROGOUT:
 *
 *	pid N
 *	expect PROVIDER NAME HITS V0 V1 ...	(one line per probe; it
 *						 holds in every FILE that
 *						 has the probe)
 *	ready
 *	... it then opens the fifo GO and waits for a byte ...
 *	done				(after firing every probe)
 *
 * Once every probe is attached, we write the byte to GO; the program fires
 * its probes and writes "done".  The BPF program (args.bpf.c) runs in the
 * firing thread before the probe returns, so at "done" every event is in
 * the ring buffer: no sleeping, only waiting for that line ($LBT_SECONDS,
 * 30 by default, bounds the wait).  Then each probe must have been hit exactly
 * HITS times, each time by the program's pid, with bpf_usdt_arg_cnt equal
 * to the number of values and every bpf_usdt_arg equal to its value (as
 * 64-bit patterns: libbpf sign- or zero-extends by the spec's size).
 *
 * Prints one line per probe ("hits", "wrong", "never", "refused") and
 * last "result ok ..." or "result FAIL ..."; exit 0, 1 (a check failed)
 * or 2 (could not run).  libbpf's own warnings go to stderr; LBT_DEBUG=1
 * adds its debug messages (where it attached each note, the specs).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/types.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "event.h"

#define MAX_PROBES	128
#define NT_STAPSDT	3

typedef struct probe {
	const char *file;
	char *provider, *name;
	char *spec;			/* the first note's argument string */
	int notes;			/* notes naming provider:name */
	int spec_args;			/* arguments in spec */
	int expected;			/* the program gave an expect line */
	int want_hits, want_argc;
	__u64 want[LBT_MAX_ARGS];
	struct bpf_link *link;
	int hits, wrong_hits;
	char first_wrong[512];
} probe_t;

typedef struct run {
	probe_t probes[MAX_PROBES];
	int nprobes, nnotes;
	long prog_pid;
	int stray;			/* events from another pid or cookie */
	int problems;			/* failed checks, besides the probes' */
} run_t;

static int debug;

static int
print_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG && !debug)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int
count_args(const char *spec)
{
	int n = 0;
	const char *s = spec;

	while (*s != '\0') {
		while (*s == ' ')
			s++;
		if (*s == '\0')
			break;
		n++;
		while (*s != '\0' && *s != ' ')
			s++;
	}
	return n;
}

static probe_t *
find_probe(run_t *r, const char *file, const char *provider, const char *name)
{
	int i;

	for (i = 0; i < r->nprobes; i++)
		if (r->probes[i].file == file && strcmp(r->probes[i].provider, provider) == 0 &&
		    strcmp(r->probes[i].name, name) == 0)
			return &r->probes[i];
	return NULL;
}

/* One stapsdt note's strings: provider, name, arguments, after 3 addresses. */
static int
add_note(run_t *r, const char *file, const char *desc, size_t size, size_t addr_size)
{
	const char *s[3], *p = desc + 3 * addr_size, *end = desc + size;
	probe_t *pr;
	int i;

	for (i = 0; i < 3; i++) {
		const char *nul = p < end ? memchr(p, '\0', end - p) : NULL;

		if (nul == NULL)
			return -1;
		s[i] = p;
		p = nul + 1;
	}
	r->nnotes++;
	pr = find_probe(r, file, s[0], s[1]);
	if (pr == NULL) {
		if (r->nprobes == MAX_PROBES)
			return -1;
		pr = &r->probes[r->nprobes++];
		pr->file = file;
		pr->provider = strdup(s[0]);
		pr->name = strdup(s[1]);
		pr->spec = strdup(s[2]);
		pr->spec_args = count_args(s[2]);
		if (pr->provider == NULL || pr->name == NULL || pr->spec == NULL)
			return -1;
	}
	pr->notes++;
	return 0;
}

static int
read_note_section(run_t *r, const char *file, Elf_Data *d, size_t addr_size)
{
	GElf_Nhdr nh;
	size_t off = 0, next, name_off, desc_off;

	while ((next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_STAPSDT && nh.n_namesz == 8 &&
		    memcmp((char *)d->d_buf + name_off, "stapsdt", 8) == 0 &&
		    add_note(r, file, (char *)d->d_buf + desc_off, nh.n_descsz, addr_size) != 0)
			return -1;
		off = next;
	}
	return 0;
}

/* Every .note.stapsdt note of FILE, grouped by provider:name. */
static int
read_notes(run_t *r, const char *file)
{
	int fd = open(file, O_RDONLY), rc = -1;
	Elf *e;
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (fd < 0) {
		fprintf(stderr, "tracer: %s: %s\n", file, strerror(errno));
		return -1;
	}
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (e == NULL || elf_getshdrstrndx(e, &shstrndx) != 0) {
		fprintf(stderr, "tracer: %s: elf_begin: %s\n", file, elf_errmsg(-1));
		goto out;
	}
	rc = 0;
	while (rc == 0 && (scn = elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh;
		const char *nm;
		Elf_Data *d;

		if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type != SHT_NOTE)
			continue;
		nm = elf_strptr(e, shstrndx, sh.sh_name);
		if (nm == NULL || strcmp(nm, ".note.stapsdt") != 0)
			continue;
		d = elf_getdata(scn, NULL);
		if (d != NULL)
			rc = read_note_section(r, file, d, gelf_getclass(e) == ELFCLASS64 ? 8 : 4);
	}
	if (rc != 0)
		fprintf(stderr, "tracer: %s: a malformed stapsdt note\n", file);
out:
	if (e != NULL)
		elf_end(e);
	close(fd);
	return rc;
}

/* A value as the program printed it, as the 64-bit pattern BPF sees. */
static int
parse_value(const char *s, __u64 *v)
{
	char *end;

	errno = 0;
	if (s[0] == '-')
		*v = (__u64)strtoll(s, &end, 10);
	else
		*v = strtoull(s, &end, 10);
	return errno != 0 || end == s || *end != '\0' ? -1 : 0;
}

/* PR's expectation from TOK[0] (hits) and the values after it. */
static int
set_expected(run_t *r, probe_t *pr, char **tok, int n)
{
	int i;

	pr->expected = 1;
	pr->want_hits = atoi(tok[0]);
	pr->want_argc = n - 1;
	for (i = 0; i < pr->want_argc; i++)
		if (parse_value(tok[1 + i], &pr->want[i]) != 0) {
			printf("bad-expect value '%s' of %s:%s\n", tok[1 + i], pr->provider, pr->name);
			r->problems++;
			return -1;
		}
	return 0;
}

/* "expect PROVIDER NAME HITS V0 V1 ...", tokenized in place. */
static void
read_expect_line(run_t *r, char *line)
{
	char *tok[3 + 1 + LBT_MAX_ARGS + 1], *save = NULL, *t;
	int n = 0, i;
	int matched = 0;
	probe_t *pr;

	for (t = strtok_r(line, " \n", &save); t != NULL && n < (int)(sizeof(tok) / sizeof(tok[0]));
	    t = strtok_r(NULL, " \n", &save))
		tok[n++] = t;
	if (n < 4 || t != NULL) {
		printf("bad-expect %s\n", line);
		r->problems++;
		return;
	}
	for (i = 0; i < r->nprobes; i++) {
		pr = &r->probes[i];
		if (strcmp(pr->provider, tok[1]) == 0 && strcmp(pr->name, tok[2]) == 0)
			matched += set_expected(r, pr, tok + 3, n - 3) == 0;
	}
	if (matched == 0) {
		printf("no-note %s:%s (the program fires it; no file has a note for it)\n", tok[1], tok[2]);
		r->problems++;
	}
}

/* PROGOUT: the pid and the expectations; with want_done, whether "done" is there. */
static int
read_progout(run_t *r, const char *path, int want_done)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	int done = 0;

	if (f == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (want_done) {
			done |= strcmp(line, "done\n") == 0;
			continue;
		}
		if (strncmp(line, "pid ", 4) == 0)
			r->prog_pid = atol(line + 4);
		else if (strncmp(line, "expect ", 7) == 0)
			read_expect_line(r, line);
	}
	fclose(f);
	return done;
}

/* What is wrong with one hit of PR, into W; 0 if nothing. */
static int
check_hit(const probe_t *pr, const struct lbt_event *e, char *w, size_t len)
{
	int i;

	if (e->argc != pr->want_argc) {
		snprintf(w, len, "bpf_usdt_arg_cnt %d, want %d", e->argc, pr->want_argc);
		return 1;
	}
	for (i = 0; i < pr->want_argc && i < LBT_MAX_ARGS; i++) {
		if (e->errmask & (1u << i)) {
			snprintf(w, len, "bpf_usdt_arg(%d) failed", i);
			return 1;
		}
		if ((__u64)e->args[i] != pr->want[i]) {
			snprintf(w, len, "arg %d: got %lld (0x%llx), want %lld (0x%llx)", i,
			    (long long)e->args[i], (unsigned long long)e->args[i],
			    (long long)pr->want[i], (unsigned long long)pr->want[i]);
			return 1;
		}
	}
	return 0;
}

static int
on_event(void *ctx, void *data, size_t size)
{
	run_t *r = ctx;
	const struct lbt_event *e = data;
	probe_t *pr;
	char w[sizeof(pr->first_wrong)];

	if (size < sizeof(*e) || e->cookie >= (__u64)r->nprobes || e->pid != r->prog_pid) {
		r->stray++;
		return 0;
	}
	pr = &r->probes[e->cookie];
	pr->hits++;
	if (check_hit(pr, e, w, sizeof(w)) && pr->wrong_hits++ == 0)
		memcpy(pr->first_wrong, w, sizeof(w));
	return 0;
}

static int
attach_all(run_t *r, struct bpf_program *prog, pid_t pid)
{
	int i, attached = 0;

	for (i = 0; i < r->nprobes; i++) {
		probe_t *pr = &r->probes[i];
		LIBBPF_OPTS(bpf_usdt_opts, o, .usdt_cookie = i);

		pr->link = bpf_program__attach_usdt(prog, pid, pr->file, pr->provider, pr->name, &o);
		if (pr->link == NULL) {
			printf("refused %s:%s in %s (%d notes, args '%s'): %s\n", pr->provider,
			    pr->name, pr->file, pr->notes, pr->spec, strerror(errno));
			r->problems++;
		} else {
			attached++;
		}
	}
	printf("attached %d of %d probes (%d notes)\n", attached, r->nprobes, r->nnotes);
	return attached;
}

/* Write the byte the program waits for; it must open GO within the deadline. */
static int
say_go(const char *go, double deadline)
{
	int fd;

	while ((fd = open(go, O_WRONLY | O_NONBLOCK)) < 0) {
		if (errno != ENXIO || now() > deadline) {
			fprintf(stderr, "tracer: %s: %s\n", go, strerror(errno));
			return -1;
		}
		usleep(10000);
	}
	if (write(fd, "g", 1) != 1) {
		fprintf(stderr, "tracer: write %s: %s\n", go, strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

/* Each probe's verdict; the number of failed checks. */
static int
report(run_t *r, __u64 dropped)
{
	int i, bad = r->problems, hits = 0, args = 0;

	for (i = 0; i < r->nprobes; i++) {
		probe_t *pr = &r->probes[i];
		const char *pn = pr->provider, *nm = pr->name;

		hits += pr->hits;
		if (!pr->expected) {
			printf("unexpected %s:%s: the program says nothing of this probe\n", pn, nm);
			bad++;
		} else if (pr->link == NULL) {
			continue;
		} else if (pr->hits == 0) {
			printf("never %s:%s (args '%s') never fired\n", pn, nm, pr->spec);
			bad++;
		} else if (pr->wrong_hits > 0) {
			printf("wrong %s:%s (args '%s'): %d of %d hits, first: %s\n", pn, nm,
			    pr->spec, pr->wrong_hits, pr->hits, pr->first_wrong);
			bad++;
		} else if (pr->hits != pr->want_hits || pr->spec_args != pr->want_argc) {
			printf("wrong %s:%s: %d hits, want %d; %d args in the note, %d passed\n", pn, nm,
			    pr->hits, pr->want_hits, pr->spec_args, pr->want_argc);
			bad++;
		} else {
			printf("hits %s:%s %d, %d args each ok\n", pn, nm, pr->hits, pr->want_argc);
			args += pr->hits * pr->want_argc;
		}
	}
	if (r->stray > 0 || dropped > 0) {
		printf("stray %d events from another pid or cookie, %llu dropped\n", r->stray,
		    (unsigned long long)dropped);
		bad++;
	}
	if (bad == 0)
		printf("result ok %d probes, %d notes, %d hits, %d argument values\n",
		    r->nprobes, r->nnotes, hits, args);
	else
		printf("result FAIL %d problems\n", bad);
	return bad;
}

static __u64
read_dropped(struct bpf_object *obj)
{
	struct bpf_map *m = bpf_object__find_map_by_name(obj, "dropped");
	__u32 zero = 0;
	__u64 v = 0;

	if (m == NULL || bpf_map__lookup_elem(m, &zero, sizeof(zero), &v, sizeof(v), 0) != 0)
		return 1;	/* cannot tell: count it as a loss */
	return v;
}

static int
trace(run_t *r, const char *objpath, pid_t pid, const char *progout, const char *go,
    double deadline)
{
	struct bpf_object *obj;
	struct bpf_program *prog;
	struct ring_buffer *rb = NULL;
	int i, bad = 1, done = 0;

	obj = bpf_object__open_file(objpath, NULL);
	if (obj == NULL || bpf_object__load(obj) != 0) {
		fprintf(stderr, "tracer: loading %s: %s\n", objpath, strerror(errno));
		return 2;
	}
	prog = bpf_object__find_program_by_name(obj, "on_usdt");
	rb = ring_buffer__new(bpf_object__find_map_fd_by_name(obj, "events"), on_event, r, NULL);
	if (prog == NULL || rb == NULL) {
		fprintf(stderr, "tracer: %s: no program on_usdt or ring buffer events\n", objpath);
		goto out;
	}
	attach_all(r, prog, pid);
	if (say_go(go, deadline) != 0)
		goto out;
	while (!(done = read_progout(r, progout, 1)) && now() < deadline)
		ring_buffer__poll(rb, 20);
	ring_buffer__consume(rb);
	if (!done) {
		printf("timeout: the program never wrote \"done\"\n");
		r->problems++;
	}
	bad = report(r, read_dropped(obj)) != 0;
out:
	/*
	 * Each note's uprobe takes an RCU grace period to detach (the
	 * kernel waits for one); destroying the links from one
	 * thread each took as long as one after the other, so the waits do
	 * not overlap.  The suite's time is mostly this.
	 */
	for (i = 0; i < r->nprobes; i++)
		bpf_link__destroy(r->probes[i].link);
	ring_buffer__free(rb);
	bpf_object__close(obj);
	return bad;
}

int
main(int argc, char **argv)
{
	static run_t r;
	const char *secs = getenv("LBT_SECONDS");
	int i;

	if (argc < 6) {
		fprintf(stderr, "usage: tracer BPFOBJ PID PROGOUT GO FILE...\n");
		return 2;
	}
	debug = getenv("LBT_DEBUG") != NULL;
	libbpf_set_print(print_libbpf);
	if (elf_version(EV_CURRENT) == EV_NONE)
		return 2;
	for (i = 5; i < argc; i++)
		if (read_notes(&r, argv[i]) != 0)
			return 2;
	for (i = 0; i < r.nprobes; i++)
		printf("probe %s:%s notes=%d args='%s'\n", r.probes[i].provider, r.probes[i].name,
		    r.probes[i].notes, r.probes[i].spec);
	if (r.nprobes == 0) {
		printf("result FAIL no stapsdt note in the files\n");
		return 1;
	}
	read_progout(&r, argv[3], 0);
	if (r.prog_pid <= 0) {
		fprintf(stderr, "tracer: %s: no \"pid N\" line\n", argv[3]);
		return 2;
	}
	return trace(&r, argv[1], (pid_t)atol(argv[2]), argv[3], argv[4],
	    now() + (secs != NULL ? atof(secs) : 30));
}
