/*
 * usdt_file.h - where the shared object of an enabled provider lives.
 *
 * Internal to libusdt (usdt_file.c says why and how).  usdt.c creates a
 * file, writes the object into it, seals it, maps it from the descriptor
 * (usdt_map.c), and removes it when the provider is disabled.
 */
#ifndef LIBUSDT_USDT_FILE_H
#define LIBUSDT_USDT_FILE_H

#include <sys/types.h>

#include "err.h"

struct usdt_dir;

typedef struct usdt_file {
	int fd;			/* writable until sealed; -1 once closed */
	struct usdt_dir *dir;	/* the checked directory it is in, NULL for a memfd */
	char *name;		/* its name in dir, NULL for a memfd */
	char *path;		/* dir's path and name (messages), NULL for a memfd */
	dev_t dev;		/* the inode created, for removing only it */
	ino_t ino;
	pid_t owner;		/* the process that removes it */
	struct usdt_file *next;	/* in the list removed at exit */
	struct usdt_file **pprev;	/* what points at it there: removal is constant time */
} usdt_file_t;

/*
 * A new, empty file for provider `provider`'s object: in the first usable
 * directory (usdt_file.c), else a memfd.  Returns 0, or -1 with e set (the
 * cause is the real one: EMFILE says so).
 */
int usdt_file_create(usdt_file_t *f, const char *provider, err_t *e);

/* A memfd for it, whatever directories there are (the fallback). */
int usdt_file_create_memfd(usdt_file_t *f, const char *provider, err_t *e);

/*
 * Once written: nothing can write to it through our descriptor any more
 * (a memfd is sealed; a named file's writable descriptor is replaced by a
 * read-only one of the same inode, kept until usdt_file_loaded, through
 * which the loaded object is compared with what was written).  0, or -1
 * with e set.
 */
int usdt_file_seal(usdt_file_t *f, err_t *e);

/*
 * The object is loaded and checked: a named file's descriptor is closed
 * (its path in maps is what tracers open); a memfd's stays open, since its
 * /proc/PID/fd entry is the only way tracers find it.
 */
void usdt_file_loaded(usdt_file_t *f);

/*
 * Close it and, if its name in the directory is still the inode created,
 * unlink it there (at disable, or when enabling failed).
 */
void usdt_file_remove(usdt_file_t *f);

/*
 * fork() while another thread holds the list of files (usdt.c's
 * pthread_atfork handlers call these, after taking usdt.c's own lock):
 * taken before the fork, released after it in the parent, made anew in
 * the child (whose copy may be held by a thread it does not have).
 */
void usdt_file_fork_prepare(void);
void usdt_file_fork_parent(void);
void usdt_file_fork_child(void);

#endif
