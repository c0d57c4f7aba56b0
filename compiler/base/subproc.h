/*
 * subproc.h - running another program: the one spawn and the one wait.
 *
 * usdtc runs cpp (-C, usdtc/cpp.c), when asked a linker (-G with
 * -x ldpath=, objgen.c), and $CC (-G's `-dumpmachine`, usdtc/main.c; the
 * semaphores, sdtobj.c).  Each is spawned from an argv array with
 * posix_spawnp, never through a shell, with chosen descriptors as the
 * child's standard streams, and waited for by its exit through EINTR.  The callers word
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
 * cmd's words, split as the shell splits a command with no expansions
 * (blanks separate words; '...' is literal; "..." keeps blanks, a
 * backslash in it escaping only $ ` " \ and a newline; a backslash
 * outside quotes escapes the next character): $CC, $CFLAGS and -x ldpath=
 * are written for a shell, as make passes CFLAGS='-DNAME="a b"'.  An argv
 * for spawn_argv with room for extra more entries and the NULL after them,
 * in one allocation (free() it); *argc is the number of words.  NULL with
 * errno ENOMEM, or EINVAL for a quote never closed.
 */
char **spawn_words(const char *cmd, size_t extra, size_t *argc);

/* The same for the words of each of n commands (NULL ones skipped), in turn. */
char **spawn_words_n(const char *const *cmds, size_t n, size_t extra, size_t *argc);

/* Wait for pid: 0 with its wait status in *statusp, or an error number. */
int spawn_wait(pid_t pid, int *statusp);

/*
 * Wait for pid to exit, reading fd (>= 0: the read end of its standard
 * output) into buf meanwhile (up to size - 1 bytes kept, the rest read and
 * dropped; NUL-terminated; *lenp the bytes kept).  The wait is for pid's
 * exit, not for the end of fd: a descendant that keeps its copy of fd (a
 * compiler wrapper's background process) does not hold us; what pid wrote
 * is in the pipe when it exits, and is read.  timeout_ms >= 0 bounds the
 * whole wait: then pid is killed and reaped, and ETIMEDOUT returned.  0
 * with the wait status in *statusp, or an error number.  fd stays open.
 */
int spawn_wait_output(pid_t pid, int fd, char *buf, size_t size, size_t *lenp,
    int timeout_ms, int *statusp);

/*
 * 1 with *statusp when pid has exited (reaped), 0 while it runs, or -1
 * with errno: for a caller's own poll loop (usdtc/cpp.c).
 */
int spawn_exited(pid_t pid, int *statusp);

/*
 * The child spawned and not yet waited for, or 0: a fatal signal's handler
 * ends it (spawn_stop) before removing the temporaries, or the linker
 * would go on to create its output after they are gone.
 */
extern volatile pid_t spawn_running;

/* Kill the running child, if any, and reap it; async-signal-safe. */
void spawn_stop(void);

#endif
