/*
 * subproc.h - running another program: the one spawn and the one wait.
 *
 * usdtc runs cpp (-C, usdtc/cpp.c) and, when asked, a linker (-G with
 * -x ldpath=, objgen.c).  Both are spawned from an argv array with
 * posix_spawnp, never through a shell, with chosen descriptors as the
 * child's standard streams, and waited for through EINTR.  The callers word
 * their own messages, so these return error numbers.
 */
#ifndef USDTC_SUBPROC_H
#define USDTC_SUBPROC_H

#include <stddef.h>
#include <sys/types.h>

/*
 * Spawn argv[0] (found on PATH) with argv; fds[0], fds[1], fds[2] become
 * its standard input, output and error (-1: ours).  Returns 0 with *pidp
 * set, or an error number.
 */
int spawn_argv(char **argv, const int fds[3], pid_t *pidp);

/*
 * cmd's words (split at blanks, as $CC or -x ldpath= are written) as an
 * argv for spawn_argv with room for extra more entries and the NULL after
 * them, in one allocation (free() it); *argc is the number of words.
 * NULL when out of memory.
 */
char **spawn_words(const char *cmd, size_t extra, size_t *argc);

/* Wait for pid: 0 with its wait status in *statusp, or an error number. */
int spawn_wait(pid_t pid, int *statusp);

/*
 * The child spawned and not yet waited for, or 0: a fatal signal's handler
 * ends it (spawn_stop) before removing the temporaries, or the linker
 * would go on to create its output after they are gone.
 */
extern volatile pid_t spawn_running;

/* Kill the running child, if any, and reap it; async-signal-safe. */
void spawn_stop(void);

#endif
