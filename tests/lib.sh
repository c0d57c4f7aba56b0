# tests/lib.sh - shared helpers for test suites (source it).
#
# Every suite reports one line per check:
#   ok - NAME
#   FAIL - NAME: why
#   SKIP - NAME: why
# tests/run counts these lines across suites.  A suite must exit non-zero
# if any check failed.  C test drivers print the same lines through
# tests/testlib.h.  A build is not a check (build_step): what it built is.
# A wait is for a condition (wait_until, wait_line), never a sleep.

: "${USDTC:?USDTC must name the usdtc binary}"
# A relative path (USDTC=build/usdtc) still names it after a suite's cd.
case $USDTC in /*) ;; */*) USDTC=$PWD/$USDTC ;; esac
TESTS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$TESTS_DIR/.." && pwd)
CC=${CC:-cc}
suite_failed=0
# The caller's locale stays for characters (LC_CTYPE: a UTF-8 locale is
# tested as it comes), but sort order, numbers and the tools' messages
# are C's: no check depends on how sort(1) collates ".x" and "_x", on
# printf's decimal comma, or on the language of a tool's error.
if [ -n "${LC_ALL:-}" ]; then export LC_CTYPE=$LC_ALL; unset LC_ALL; fi
export LC_COLLATE=C LC_NUMERIC=C LC_MESSAGES=C

ok()   { echo "ok - $1"; }
fail() { echo "FAIL - $1: $2"; suite_failed=1; }
skip() { echo "SKIP - $1: $2"; }

# check NAME CMD...: ok if CMD succeeds, else fail with its output.
check() {
	local name=$1; shift
	local out
	if out=$("$@" 2>&1); then ok "$name"; else fail "$name" "$(echo "$out" | tail -n 5 | tr '\n' ' ')"; fi
}

# Scratch space: one root per suite, removed when the suite exits; each
# `$(scratch)` is a fresh directory under it (safe to call in a subshell).
SCRATCH_ROOT=$(mktemp -d "${TMPDIR:-/tmp}/usdtc-test.XXXXXX")
trap 'rm -rf "$SCRATCH_ROOT"' EXIT
scratch() { mktemp -d "$SCRATCH_ROOT/s.XXXXXX"; }

# expect_eq NAME GOT WANT: ok if GOT is WANT, else FAIL saying both.
expect_eq() { if [ "$2" = "$3" ]; then ok "$1"; else fail "$1" "want '$3', got '$2'"; fi; }
# have COMMAND: whether COMMAND is installed.
have() { command -v "$1" >/dev/null 2>&1; }
# trace_unavailable: why bpftrace cannot trace uprobes here (not root, no
# bpftrace, no uprobe events), or nothing if it can; mounts tracefs and
# debugfs where they are missing.
trace_unavailable() {
	if [ "$(id -u)" -ne 0 ]; then
		echo "not root (uprobes need CAP_SYS_ADMIN)"; return
	fi
	if ! have bpftrace; then
		echo "bpftrace is not installed"; return
	fi
	if ! grep -qs ' /sys/kernel/tracing tracefs ' /proc/mounts; then
		mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
	fi
	if ! grep -qs ' /sys/kernel/debug debugfs ' /proc/mounts; then
		mount -t debugfs nodev /sys/kernel/debug 2>/dev/null
	fi
	if [ ! -e /sys/kernel/tracing/uprobe_events ] &&
	    [ ! -e /sys/kernel/debug/tracing/uprobe_events ]; then
		echo "no uprobe_events in tracefs (kernel without CONFIG_UPROBE_EVENTS, or tracefs not mountable)"
	fi
}

suite_exit() { exit "$suite_failed"; }

# Waiting: for a condition, never for a length of time, so that a loaded
# machine makes a test slower, not red.  The cap ($WAIT_CAP seconds,
# default 300) only ends a test that hangs; a check is never expected to
# meet it.
# wait_until CMD...: poll CMD every 0.05 s until it succeeds (false at the cap).
wait_until() {
	local end=$((SECONDS + ${WAIT_CAP:-300}))
	until "$@"; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.05
	done
}
# gone PID: process PID has ended (a condition for wait_until).
gone() { ! kill -0 "$1" 2>/dev/null; }
# wait_for FILE PID: true once FILE exists; false if PID left first.
wait_for() { wait_until has_file "$@"; [ -e "$1" ]; }
has_file() { [ -e "$1" ] || gone "$2"; }
# line_or_gone FILE REGEX [PID]: FILE has a line matching REGEX; with PID,
# also true (ending the wait) once process PID is gone, so a wait for a
# tracer's line ends when the tracer has died; the caller's check then fails.
line_or_gone() {
	grep -q -- "$2" "$1" 2>/dev/null && return 0
	[ -n "${3:-}" ] && gone "$3"
}
# wait_line FILE REGEX [PID]: wait until line_or_gone FILE REGEX [PID]; false
# if FILE has no such line by then.
wait_line() {
	wait_until line_or_gone "$@"
	grep -q -- "$2" "$1" 2>/dev/null
}

# stop_program PID: wait for PID to leave (it ends after its last marker),
# then kill it, which only a hang at the cap leaves to do.
stop_program() {
	wait_until gone "$1"
	kill "$1" 2>/dev/null
	wait "$1" 2>/dev/null
}

# pool MAX CMD...: CMD in the background once fewer than MAX of this
# shell's jobs run ($! is its pid).
pool() {
	local max=$1; shift
	while [ "$(jobs -rp | wc -l)" -ge "$max" ]; do wait -n; done
	"$@" &
}

# show FILE...: the last $SHOW_LINES (40) lines of each file, indented
# under its name, for a failure report.
show() {
	local f
	for f in "$@"; do
		echo "    --- $(basename "$f"):"
		sed 's/^/    | /' "$f" 2>/dev/null | tail -n "${SHOW_LINES:-40}"
	done
}

# build_driver OUT SRC...: a test driver (tests/unit, tests/macho/mutate.c)
# from its own sources and the core library as the Makefile builds it for
# tests, with ASan and UBSan ($B/test/libusdtc.a; the program's file reading
# and cpp in $B/test/libusdtc-prog.a), never from lists of the core's sources.
B=${B:-build}
case $B in /*) ;; *) B=$ROOT/$B ;; esac
# CORE_INC: the -I options of the core's folders, compiler/ and each of
# its layers (the Makefile's CORE_DIRS), for what includes the core's headers.
CORE_INC=(-I"$ROOT/compiler")
for _d in "$ROOT"/compiler/*/; do CORE_INC+=(-I"${_d%/}"); done
unset _d
DRIVER_CFLAGS=(-std=gnu11 -Wall -Wextra -Werror -g -O1 -D_GNU_SOURCE
	"${CORE_INC[@]}" -I"$ROOT/usdtc" -fno-omit-frame-pointer)
# With a cross-built usdtc (make HOST=... check), HOST_CC builds the
# drivers, HOST_CFLAGS and HOST_LDLIBS name the host's libelf and zlib, and
# HOST_RUN is the qemu-user command that runs its programs: OUT is then a
# script that runs the driver (DIR/.bin/NAME) through it, and the drivers
# have no sanitizers (ASan cannot reserve its shadow memory under qemu-user;
# the Makefile builds that core without them too).
DRIVER_CC=${HOST_CC:-$CC}
[ -n "${HOST_RUN:-}" ] ||
	DRIVER_CFLAGS+=(-fsanitize=address,undefined -fno-sanitize-recover=all)
# Under tests/run with every suite, $USDTC_DRIVER_LOG names a file: OUT is
# then such a script that also appends the driver's sources to it, so
# tests/run can check that every driver in tests/unit was really run by
# some suite.
build_driver() {
	local out=$1; shift
	local bin=$out
	[ -z "${USDTC_DRIVER_LOG:-}${HOST_RUN:-}" ] || bin=$(dirname "$out")/.bin/$(basename "$out")
	mkdir -p "$(dirname "$bin")" &&
	(cd "$ROOT" && $DRIVER_CC "${DRIVER_CFLAGS[@]}" ${HOST_CFLAGS:-} -o "$bin" "$@" \
	    "$B/test/libusdtc-prog.a" "$B/test/libusdtc.a" ${HOST_LDLIBS:--lelf}) || return
	[ "$bin" != "$out" ] || return 0
	{
		echo '#!/bin/sh'
		[ -z "${USDTC_DRIVER_LOG:-}" ] || printf 'echo %q >> %q\n' "$*" "$USDTC_DRIVER_LOG"
		printf 'exec %s %q "$@"\n' "${HOST_RUN:-}" "$bin"
	} > "$out" && chmod +x "$out"
}

# build_step NAME CMD...: a build step, not a check: silent when CMD succeeds,
# `FAIL - NAME: its output` (false) when it does not.  A compile proves
# nothing about behaviour; what is built is checked by what runs it.
build_step() {
	local name=$1; shift
	local out
	out=$("$@" 2>&1) && return 0
	fail "$name" "$(echo "$out" | tail -n 5 | tr '\n' ' ')"
	return 1
}
