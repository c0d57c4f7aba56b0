# tests/lib.sh - shared helpers for test suites (source it).
#
# Every suite reports one line per check:
#   ok - NAME
#   FAIL - NAME: why
#   SKIP - NAME: why
# tests/run counts these lines across suites.  A suite must exit non-zero
# if any check failed.

: "${USDTC:?USDTC must name the usdtc binary}"
# A relative path (USDTC=build/usdtc) still names it after a suite's cd.
case $USDTC in /*) ;; */*) USDTC=$PWD/$USDTC ;; esac
TESTS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$TESTS_DIR/.." && pwd)
CC=${CC:-cc}
suite_failed=0

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

suite_exit() { exit "$suite_failed"; }

# build_driver OUT SRC...: a test driver (tests/unit, tests/macho/mutate.c)
# from its own sources and the core library as the Makefile builds it for
# tests, with ASan and UBSan ($B/test/libusdtc.a; the program's file reading
# and cpp in $B/test/libusdtc-prog.a), never from lists of the core's sources.
B=${B:-build}
case $B in /*) ;; *) B=$ROOT/$B ;; esac
DRIVER_CFLAGS=(-std=gnu11 -Wall -Wextra -Werror -g -O1 -D_GNU_SOURCE
	-I"$ROOT/compiler" -I"$ROOT/usdtc"
	-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
build_driver() {
	local out=$1; shift
	(cd "$ROOT" && $CC "${DRIVER_CFLAGS[@]}" -o "$out" "$@" \
	    "$B/test/libusdtc-prog.a" "$B/test/libusdtc.a" -lelf)
}
