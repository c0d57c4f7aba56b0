/*
 * drti_proto.c - the DTrace helper protocol (drti_proto.h says what and
 * why): the device opened with every check, the kernel's lockdown asked,
 * the DOF copied into a memfd of its own and trimmed for the helper,
 * ADDDOF and REMOVE.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "drti_fuse.h"
#include "drti_proto.h"
#include "drti_str.h"

/* Whether the DOF at dof starts with the DOF magic. */
int
drti_dof_magic_ok(const void *dof)
{
	const dof_hdr_t *h = dof;

	return h->dofh_ident[DOF_ID_MAG0] == 0x7f && h->dofh_ident[DOF_ID_MAG1] == 'D' &&
	    h->dofh_ident[DOF_ID_MAG2] == 'O' && h->dofh_ident[DOF_ID_MAG3] == 'F';
}

/*
 * The helper device, or -1 (errno set) when there is none or what is at
 * its path is neither a character device nor root's FUSE file.
 */
static int
drti_open_device(const drti_reg_t *r)
{
	const char *dev = r->env.dev;
	struct stat st;
	int fd = -1, ok;

	if (r->env.dev_too_long) {
		errno = ENAMETOOLONG;
		drti_say(r, "cannot open DTRACE_DOF_INIT_DEVNAME: %m");
		return -1;
	}
	if ((ok = drti_fuse_helper_ok(r, dev)) == 0) {
		errno = EPERM;
		return -1;
	}
	if (ok > 0)
		fd = drti_open(dev, O_RDWR | O_NOFOLLOW);
	if (fd < 0) {
		drti_say(r, "cannot open %s: %m", dev);
		return -1;
	}
	if (drti_fstat(fd, &st) != 0 ||
	    !(S_ISCHR(st.st_mode) || (S_ISREG(st.st_mode) && drti_trusted_fuse(fd)))) {
		drti_close(fd);
		drti_say(r, "%s is not a character device: not using it", dev);
		errno = ENODEV;
		return -1;
	}
	return fd;
}

/*
 * Whether the kernel is locked down: DTRACE_DOF_INIT_LOCKDOWN if set,
 * else the bracketed mode of /sys/kernel/security/lockdown ("none
 * [integrity] confidentiality").  When neither says (securityfs not
 * mounted, as in a container's usual mount namespace; the file unreadable
 * or not in that form), taken as locked down: without is-enabled offsets
 * every probe can still be enabled and fire on any kernel, only DTrace's
 * _ENABLED() answers false; with them a locked-down kernel's DTrace could
 * enable no probe that has an is-enabled site.
 */
static int
drti_lockdown(const drti_reg_t *r)
{
	char line[128];
	const char *open_br = NULL, *close_br = NULL;
	int err = 0;

	if (r->env.lockdown >= 0) {
		drti_say(r, "lockdown %s (DTRACE_DOF_INIT_LOCKDOWN)", r->env.lockdown_mode);
		return r->env.lockdown;
	}
	errno = 0;
	if (drti_find_line("/sys/kernel/security/lockdown", "", line, sizeof(line)) != 0)
		err = errno != 0 ? errno : EIO;
	else if ((open_br = drti_strchr(line, '[')) == NULL ||
	    (close_br = drti_strchr(open_br, ']')) == NULL)
		err = EINVAL;
	if (err != 0) {
		errno = err;
		drti_say(r, err == EINVAL ? "cannot read %s (no [mode] in it): %s" :
		    "cannot read %s (%m): %s", "/sys/kernel/security/lockdown", "taken as "
		    "locked down, is-enabled offsets dropped so that every probe can be "
		    "enabled");
		return 1;
	}
	drti_say(r, "kernel lockdown %.*s", (int)(close_br - open_br - 1), open_br + 1);
	return drti_strncmp(open_br + 1, "none]", 5) != 0;
}

/* Section i of the DOF d (size bytes), or NULL if it lies outside. */
dof_sec_t *
drti_dof_section(char *d, size_t size, uint32_t i)
{
	dof_hdr_t *h = (dof_hdr_t *)(void *)d;
	uint64_t at = h->dofh_secoff + (uint64_t)i * h->dofh_secsize;
	dof_sec_t *s;

	if (i >= h->dofh_secnum || h->dofh_secsize < sizeof(dof_sec_t) || at > size ||
	    size - at < sizeof(dof_sec_t) || at % 8 != 0)
		return NULL;
	s = (dof_sec_t *)(void *)(d + at);
	if (s->dofs_offset > size || s->dofs_size > size - s->dofs_offset)
		return NULL;
	return s;
}

/*
 * The relocations (DOF_SECT_RELTAB) that section i of the DOF d holds for
 * section tgt, if section i is a relocation header for tgt and both lie
 * inside d, aligned, with whole relocations; else NULL.
 */
dof_sec_t *
drti_dof_relocs_for(char *d, size_t size, uint32_t i, uint32_t tgt)
{
	dof_sec_t *u = drti_dof_section(d, size, i), *rs;
	const dof_relohdr_t *rh;

	if (u == NULL || u->dofs_type != DOF_SECT_URELHDR ||
	    u->dofs_size < sizeof(dof_relohdr_t) || u->dofs_offset % 4 != 0)
		return NULL;
	rh = (const dof_relohdr_t *)(const void *)(d + u->dofs_offset);
	if (rh->dofr_tgtsec != tgt || (rs = drti_dof_section(d, size, rh->dofr_relsec)) == NULL ||
	    rs->dofs_entsize < sizeof(dof_relodesc_t) || rs->dofs_entsize % 8 != 0 ||
	    rs->dofs_offset % 8 != 0)
		return NULL;
	return rs;
}

/*
 * Point the relocations of the DOF d that apply to section tgt (probe
 * records of entsize bytes, each of whose dofpr_pad2 holds its new index
 * plus 1, or 0 when it goes) at where their records will be.
 */
static void
drti_move_relocations(char *d, size_t size, const dof_sec_t *tgt, uint32_t tgtidx)
{
	const dof_hdr_t *h = (const dof_hdr_t *)(const void *)d;

	for (uint32_t i = 0; i < h->dofh_secnum; i++) {
		dof_sec_t *rs = drti_dof_relocs_for(d, size, i, tgtidx);

		if (rs == NULL)
			continue;
		for (uint64_t o = 0; o + rs->dofs_entsize <= rs->dofs_size; o += rs->dofs_entsize) {
			dof_relodesc_t *rd = (dof_relodesc_t *)(void *)(d + rs->dofs_offset + o);
			uint64_t rec = rd->dofr_offset / tgt->dofs_entsize;
			const dof_probe_t *pr;

			if (rd->dofr_offset >= tgt->dofs_size)
				continue;
			pr = (const dof_probe_t *)(const void *)(d + tgt->dofs_offset +
			    rec * tgt->dofs_entsize);
			if (pr->dofpr_pad2 == 0)
				rd->dofr_type = DOF_RELO_NONE;
			else
				rd->dofr_offset -= (rec - (pr->dofpr_pad2 - 1)) * tgt->dofs_entsize;
		}
	}
}

/*
 * Section i of the DOF d if it is a provider: *prov and its probe records'
 * section *ps; 1, 0 when it is no provider, -1 when it cannot be read.
 */
int
drti_provider_at(char *d, size_t size, uint32_t i, dof_provider_t **prov, dof_sec_t **ps)
{
	dof_sec_t *pv = drti_dof_section(d, size, i);

	if (pv == NULL || pv->dofs_type != DOF_SECT_PROVIDER)
		return 0;
	if (pv->dofs_size < sizeof(dof_provider_t) || pv->dofs_offset % 4 != 0)
		return -1;
	*prov = (dof_provider_t *)(void *)(d + pv->dofs_offset);
	if ((*ps = drti_dof_section(d, size, (*prov)->dofpv_probes)) == NULL ||
	    (*ps)->dofs_entsize < sizeof(dof_probe_t) || (*ps)->dofs_offset % 8 != 0 ||
	    (*ps)->dofs_entsize % 8 != 0)
		return -1;
	return 1;
}

/*
 * The DOF d (size bytes, a writable copy) without the probe records that
 * have no tracepoint (dtprobed refuses a probe without tracepoints, and a
 * refusal halfway through a DOF leaves the rest of it in its parser's
 * pipe), the relocations of the others moved with them.  Returns the
 * probe records left, or -1 if the DOF is not one it can read.
 */
static long
drti_drop_empty(char *d, size_t size)
{
	dof_hdr_t *h = (dof_hdr_t *)(void *)d;
	long left = 0;

	if (size < sizeof(*h) || h->dofh_secoff > size)
		return -1;
	for (uint32_t i = 0; i < h->dofh_secnum; i++) {
		dof_provider_t *prov;
		dof_sec_t *ps;
		uint64_t nrec, kept = 0;
		int rc = drti_provider_at(d, size, i, &prov, &ps);

		if (rc <= 0) {
			if (rc < 0)
				return -1;
			continue;
		}
		nrec = ps->dofs_size / ps->dofs_entsize;
		for (uint64_t j = 0; j < nrec; j++) {	/* where each record goes */
			dof_probe_t *pr = (dof_probe_t *)(void *)(d + ps->dofs_offset +
			    j * ps->dofs_entsize);

			pr->dofpr_pad2 = pr->dofpr_noffs + pr->dofpr_nenoffs == 0 ? 0 :
			    (uint32_t)++kept;
		}
		if (kept != nrec)
			drti_move_relocations(d, size, ps, prov->dofpv_probes);
		for (uint64_t j = 0; j < nrec; j++) {
			dof_probe_t *pr = (dof_probe_t *)(void *)(d + ps->dofs_offset +
			    j * ps->dofs_entsize);
			uint32_t to = pr->dofpr_pad2;

			pr->dofpr_pad2 = 0;
			if (to != 0 && to - 1 != j)
				drti_memmove(d + ps->dofs_offset + (to - 1) * ps->dofs_entsize, pr,
				    ps->dofs_entsize);
		}
		ps->dofs_size = kept * ps->dofs_entsize;
		left += (long)kept;
	}
	return left;
}

/*
 * The DOF d (size bytes, a writable copy) without is-enabled offsets: each
 * probe record's are cleared, and a record left with no probe site is
 * dropped (drti_drop_empty).  Returns the probe records left, or -1 if the
 * DOF is not one it can read.
 */
static long
drti_strip_enabled(char *d, size_t size)
{
	dof_hdr_t *h = (dof_hdr_t *)(void *)d;

	if (size < sizeof(*h) || h->dofh_secoff > size)
		return -1;
	for (uint32_t i = 0; i < h->dofh_secnum; i++) {
		dof_provider_t *prov;
		dof_sec_t *ps;
		int rc = drti_provider_at(d, size, i, &prov, &ps);

		if (rc < 0)
			return -1;
		for (uint64_t j = 0; rc > 0 && j < ps->dofs_size / ps->dofs_entsize; j++) {
			dof_probe_t *pr = (dof_probe_t *)(void *)(d + ps->dofs_offset +
			    j * ps->dofs_entsize);

			pr->dofpr_enoffidx = 0;
			pr->dofpr_nenoffs = 0;
		}
		if (rc > 0)
			prov->dofpv_prenoffs = DOF_SECT_NONE;
	}
	h->dofh_ident[DOF_ID_VERSION] = DOF_VERSION_1;	/* none left, as dtrace writes it */
	return drti_drop_empty(d, size);
}

/* ADDDOF of r->helper on fd; 1 when registered (r->gen set), -1 if refused. */
static int
drti_adddof(drti_reg_t *r, int fd)
{
	int gen = drti_ioctl(fd, DTRACEHIOC_ADDDOF_LINUX, (unsigned long)&r->helper);

	if (gen < 0)
		drti_say(r, "DTRACEHIOC_ADDDOF failed: %m");
	else
		drti_say(r, "DTRACEHIOC_ADDDOF returned generation %d", gen);
	r->gen = gen < 0 ? -1 : gen;
	return gen < 0 ? -1 : 1;
}

/*
 * The DOF's size bytes at dof written into the memfd mfd from its start:
 * the kernel copies them (a loop here was an instruction a byte, most of
 * a 5,000-probe program's start-up under DTrace with -G given the
 * objects: bench/startup).  0, or -1 (errno set).
 */
static int
drti_fill(int mfd, const void *dof, size_t size)
{
	size_t done = 0;

	while (done < size) {
		long n = drti_pwrite(mfd, (const char *)dof + done, size - done, (off_t)done);

		if (n <= 0)
			return -1;
		done += (size_t)n;
	}
	return 0;
}

/* DOF larger than this is not ours: not copied. */
#define DRTI_DOF_MAX	(256u << 20)

/*
 * A private copy of the DOF at dof in a memfd mapping of its own (the
 * descriptor closed), extended by ext if not NULL, without is-enabled
 * offsets if strip; NULL (said so) when it cannot be made or nothing of
 * it is left.  *len: the mapping's size, for munmap.
 */
static char *
drti_copy_dof(const drti_reg_t *r, const void *dof, int strip, const drti_extend_t *ext,
    size_t *len)
{
	const dof_hdr_t *h = dof;
	size_t size = (size_t)h->dofh_loadsz;	/* what the helper reads */
	size_t cap = size;
	char *copy;
	int mfd;

	if (h->dofh_loadsz < sizeof(*h) || h->dofh_loadsz > DRTI_DOF_MAX) {
		drti_say(r, "DOF of %llu bytes: not registered", (unsigned long long)h->dofh_loadsz);
		return NULL;
	}
	if (ext != NULL) {
		size_t more = ext->room(ext->arg, dof);

		cap = more <= DRTI_DOF_MAX ? size + more : size;
	}
	if ((mfd = drti_memfd("dtrace-dof")) < 0) {
		drti_say(r, "memfd_create: %m");
		return NULL;
	}
	copy = drti_ftruncate(mfd, (off_t)cap) == 0 && drti_fill(mfd, dof, size) == 0 ?
	    drti_mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_SHARED, mfd) : MAP_FAILED;
	if (copy == MAP_FAILED)
		drti_say(r, "cannot map a copy of the DOF: %m");
	drti_close(mfd);
	if (copy == MAP_FAILED)
		return NULL;
	*len = cap;
	if (cap > size)
		size = ext->add(ext->arg, copy, size, cap);
	if (strip) {
		long left = drti_strip_enabled(copy, size);

		if (left <= 0) {
			drti_say(r, left < 0 ? "cannot read the DOF to drop its is-enabled "
			    "offsets" : "no probe site but is-enabled ones: not registered "
			    "under lockdown");
			drti_munmap(copy, cap);
			return NULL;
		}
	}
	return copy;
}

/*
 * Register the DOF at dof (r->helper's name and load bias set) from a copy
 * of its own, extended by ext (NULL: as it is), without is-enabled offsets
 * under lockdown (asked once a device is there, and kept in r->strip).
 * Returns 1 when registered (r->gen set), 0 when there is no device to
 * talk to, -1 when no copy could be made or the device refused it (errno
 * set).
 */
int
drti_register_dof(drti_reg_t *r, const void *dof, const drti_extend_t *ext)
{
	int fd = drti_open_device(r), rc = -1, err = EINVAL;
	size_t len = 0;
	char *copy;

	r->gen = -1;
	if (fd < 0)
		return 0;
	if (r->strip < 0)
		r->strip = drti_lockdown(r);
	if ((copy = drti_copy_dof(r, dof, r->strip, ext, &len)) != NULL) {
		r->helper.dofhp_dof = (uint64_t)(uintptr_t)copy;
		rc = drti_adddof(r, fd);
		err = errno;
		drti_munmap(copy, len);
	}
	drti_close(fd);
	errno = err;
	return rc;
}

/*
 * REMOVE the generation r holds, if any: by value to a character device,
 * through drti_fuse_remove_arg to a FUSE file.  Returns 0 (r->gen is then
 * -1), or -1 when the device could not be reached or refused (errno set):
 * r->gen is kept, since the helper may still hold the registration, and
 * libusdt must not unmap what DTrace may still trace.
 */
int
drti_unregister(drti_reg_t *r)
{
	unsigned long arg = (unsigned long)r->gen;
	void *map = NULL;
	size_t maplen = 0;
	struct stat st;
	int fd, rc = 0, err = 0;

	if (r->gen < 0)
		return 0;
	if ((fd = drti_open_device(r)) < 0)
		return -1;
	if (drti_fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    (arg = drti_fuse_remove_arg(r->gen, &map, &maplen)) == 0) {
		err = errno;
		rc = -1;
		drti_say(r, "cannot map DTRACEHIOC_REMOVE's argument for %s: %m",
		    "a FUSE helper");
	} else if (drti_ioctl(fd, DTRACEHIOC_REMOVE_LINUX, arg) < 0) {
		err = errno;
		rc = -1;
		drti_say(r, "DTRACEHIOC_REMOVE of generation %d failed: %m", r->gen);
	} else {
		drti_say(r, "DTRACEHIOC_REMOVE of generation %d done", r->gen);
		r->gen = -1;
	}
	if (map != NULL)
		drti_munmap(map, maplen);
	drti_close(fd);
	errno = err;
	return rc;
}
