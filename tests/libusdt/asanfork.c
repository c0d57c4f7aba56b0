/*
 * asanfork.c - forkrace's stand-in for the fork handler that GCC 12's
 * libasan lacks; linked into forkrace, empty outside an ASan build.
 *
 * Why: forkrace's children malloc after a fork() taken while two other
 * threads malloc and free (inside libusdt).  glibc's malloc takes its own
 * locks across fork(), so that works in the plain build, as real hosts
 * expect.  GCC 12's libasan (libasan.so.8) does not: it imports neither
 * fork nor pthread_atfork, so a child forked while another thread held
 * one of its allocator's size-class mutexes waits on it forever, in
 * SizeClassAllocator64::GetFromAllocator under usdt_create_probe's first
 * malloc (4 children of 12,000, in 3 of 12 runs, two copies at once on
 * a loaded 2-core machine).  LLVM fixed its ASan in December 2023
 * (llvm-project PR 75290, "[asan] Install pthread_atfork": lock the
 * allocator and the stack depot before fork, release them after); no
 * ASAN_OPTIONS setting does it.
 *
 * This does what that handler does, from outside: every entry to ASan's
 * allocator that forkrace's threads reach (libusdt and libelf call
 * malloc, calloc, realloc, free, strdup; glibc's asprintf, fdopendir and
 * the loader call malloc by name, so they come here too) holds `gate`
 * for reading, and fork() holds it for writing, so no thread is inside
 * the allocator when the child is made.  The order matters as it does
 * for glibc, which takes its malloc locks after every handler: a thread
 * may hold libusdt's locks while it allocates, so the gate must be taken
 * after libusdt's fork_prepare.  Prepare handlers run in the reverse
 * order of registration and libusdt registers from its constructor, so
 * the gate registers earlier, from .preinit_array (after the __asan_init
 * GCC puts first there, before any library's constructor).  Nothing here
 * is instrumented: the loader may call malloc before ASan has started.
 * It never holds libusdt's locks, so a libusdt without its fork handlers
 * still deadlocks its children here, and forkrace still fails.
 *
 * The wrappers call ASan's interceptors (exported as __interceptor_NAME
 * by GCC 12's libasan) directly: the executable's malloc comes first in
 * symbol lookup, so dlsym(RTLD_NEXT) would recurse through calloc.
 */
#ifdef __SANITIZE_ADDRESS__
#define _GNU_SOURCE
#include <malloc.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define NOASAN __attribute__((no_sanitize_address))

void *__interceptor_malloc(size_t);
void *__interceptor_calloc(size_t, size_t);
void *__interceptor_realloc(void *, size_t);
void __interceptor_free(void *);
int __interceptor_posix_memalign(void **, size_t, size_t);
void *__interceptor_aligned_alloc(size_t, size_t);
void *__interceptor_memalign(size_t, size_t);
char *__interceptor_strdup(const char *);
char *__interceptor_strndup(const char *, size_t);

/* Writer-preferring: a stream of allocations cannot keep fork() waiting. */
static pthread_rwlock_t gate = PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP;
static __thread bool forking;	/* this thread holds the gate to fork */

NOASAN static void
enter(void)
{
	if (!forking)
		pthread_rwlock_rdlock(&gate);
}

NOASAN static void
leave(void)
{
	if (!forking)
		pthread_rwlock_unlock(&gate);
}

NOASAN static void
gate_prepare(void)
{
	pthread_rwlock_wrlock(&gate);
	forking = true;
}

NOASAN static void
gate_parent(void)
{
	forking = false;
	pthread_rwlock_unlock(&gate);
}

/* Made anew: the readers that queued before the fork do not exist here. */
NOASAN static void
gate_child(void)
{
	pthread_rwlockattr_t a;

	forking = false;
	pthread_rwlockattr_init(&a);
	pthread_rwlockattr_setkind_np(&a, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	pthread_rwlock_init(&gate, &a);
	pthread_rwlockattr_destroy(&a);
}

NOASAN static void
gate_register(void)
{
	pthread_atfork(gate_prepare, gate_parent, gate_child);
}

__attribute__((section(".preinit_array"), used))
static void (*const gate_preinit)(void) = gate_register;

/* Each entry to ASan's allocator, between enter() and leave(). */
#define GATED(type, call)	do { enter(); type r_ = (call); leave(); return r_; } while (0)

NOASAN void *
malloc(size_t n)
{
	GATED(void *, __interceptor_malloc(n));
}

NOASAN void *
calloc(size_t k, size_t n)
{
	GATED(void *, __interceptor_calloc(k, n));
}

NOASAN void *
realloc(void *old, size_t n)
{
	GATED(void *, __interceptor_realloc(old, n));
}

NOASAN void
free(void *p)
{
	enter();
	__interceptor_free(p);
	leave();
}

NOASAN int
posix_memalign(void **out, size_t align, size_t n)
{
	GATED(int, __interceptor_posix_memalign(out, align, n));
}

NOASAN void *
aligned_alloc(size_t align, size_t n)
{
	GATED(void *, __interceptor_aligned_alloc(align, n));
}

NOASAN void *
memalign(size_t align, size_t n)
{
	GATED(void *, __interceptor_memalign(align, n));
}

NOASAN char *
strdup(const char *s)
{
	GATED(char *, __interceptor_strdup(s));
}

NOASAN char *
strndup(const char *s, size_t n)
{
	GATED(char *, __interceptor_strndup(s, n));
}
#else
typedef int asanfork_empty;	/* ISO C wants a declaration in every file */
#endif
