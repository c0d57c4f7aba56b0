/*
 * discover.c - find a process's USDT probes the way path-walking tracers
 * do, as a test tool.
 *
 * Newer bpftrace releases (and other tools that parse ELF files
 * themselves) list a process's probes by reading /proc/PID/maps, taking
 * each mapped path that begins with '/' and is not marked "(deleted)",
 * opening it (through /proc/PID/root, so a process in a container or
 * another mount namespace is seen as it sees its files), and reading the
 * stapsdt notes of its .note.stapsdt section.  A memfd,
 * "/memfd:NAME (deleted)", is skipped by that rule; so is a file unlinked
 * after loading.  This tool does exactly that and nothing more, so a test
 * that finds libusdt's probes with it shows that such tracers find them.
 *
 * Usage: discover PID.  Prints "PATH PROVIDER:NAME ARGS" per note, each
 * path once; exits 1 if it could not read the maps.
 */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NT_STAPSDT 3

static size_t
align4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

/*
 * The notes in one .note.stapsdt section: namesz, descsz, type, the name
 * "stapsdt", then pc, base and semaphore (one address each, 4 or 8
 * bytes), provider, name and argument strings.
 */
static void
print_notes(const char *path, const unsigned char *p, size_t size, size_t addr)
{
	size_t off = 0;

	while (off + 12 <= size) {
		uint32_t namesz, descsz, type;
		const char *desc, *prov, *name, *args, *end;

		memcpy(&namesz, p + off, 4);
		memcpy(&descsz, p + off + 4, 4);
		memcpy(&type, p + off + 8, 4);
		off += 12;
		if (off + align4(namesz) + descsz > size)
			return;
		desc = (const char *)p + off + align4(namesz);
		end = desc + descsz;
		if (type == NT_STAPSDT && namesz == 8 &&
		    memcmp(p + off, "stapsdt", 8) == 0 && descsz > 3 * addr) {
			prov = desc + 3 * addr;
			name = memchr(prov, '\0', (size_t)(end - prov)) ? prov + strlen(prov) + 1 : end;
			args = name < end && memchr(name, '\0', (size_t)(end - name)) ?
			    name + strlen(name) + 1 : end;
			if (args < end && memchr(args, '\0', (size_t)(end - args)))
				printf("%s %s:%s %s\n", path, prov, name, args);
		}
		off += align4(namesz) + align4(descsz);
	}
}

/* Every stapsdt note of the file at path (opened as root/path). */
static void
scan_file(const char *root, const char *path)
{
	char full[8192];
	Elf *elf;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	int fd;

	snprintf(full, sizeof(full), "%s%s", root, path);
	if ((fd = open(full, O_RDONLY | O_CLOEXEC)) < 0)
		return;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf != NULL && elf_kind(elf) == ELF_K_ELF && elf_getshdrstrndx(elf, &shstrndx) == 0) {
		size_t addr = gelf_getclass(elf) == ELFCLASS32 ? 4 : 8;

		while ((scn = elf_nextscn(elf, scn)) != NULL) {
			GElf_Shdr sh;
			const char *sname;
			Elf_Data *data;

			if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type != SHT_NOTE)
				continue;
			sname = elf_strptr(elf, shstrndx, sh.sh_name);
			if (sname == NULL || strcmp(sname, ".note.stapsdt") != 0)
				continue;
			if ((data = elf_rawdata(scn, NULL)) != NULL && data->d_buf != NULL)
				print_notes(path, data->d_buf, data->d_size, addr);
		}
	}
	elf_end(elf);
	close(fd);
}

int
main(int argc, char **argv)
{
	char maps[64], root[64], line[8192], **seen = NULL;
	size_t nseen = 0;
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: %s PID\n", argv[0]);
		return 2;
	}
	elf_version(EV_CURRENT);
	snprintf(maps, sizeof(maps), "/proc/%s/maps", argv[1]);
	snprintf(root, sizeof(root), "/proc/%s/root", argv[1]);
	if ((f = fopen(maps, "r")) == NULL) {
		perror(maps);
		return 1;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		char *path = NULL, *nl;
		int field = 0, dup = 0;

		line[strcspn(line, "\n")] = '\0';
		/* address perms offset dev inode path */
		for (char *s = line; *s != '\0' && field < 5; field++) {
			s += strcspn(s, " ");
			s += strspn(s, " ");
			path = s;
		}
		if (field < 5 || path == NULL || path[0] != '/')
			continue;
		if ((nl = strstr(path, " (deleted)")) != NULL && nl[10] == '\0')
			continue;
		for (size_t i = 0; i < nseen && !dup; i++)
			dup = strcmp(seen[i], path) == 0;
		if (dup)
			continue;
		seen = realloc(seen, (nseen + 1) * sizeof(*seen));
		if (seen == NULL || (seen[nseen] = strdup(path)) == NULL)
			return 1;
		nseen++;
		scan_file(root, path);
	}
	fclose(f);
	for (size_t i = 0; i < nseen; i++)
		free(seen[i]);
	free(seen);
	return 0;
}
