# tests/lib.sh - shared helpers for test suites (source it).
#
# Every suite reports one line per check:
#   ok - NAME
#   FAIL - NAME: why
#   SKIP - NAME: why
# tests/run counts these lines across suites.  A suite must exit non-zero
# if any check failed.

: "${USDTC:?USDTC must name the usdtc binary}"
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
