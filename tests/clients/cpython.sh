# tests/clients/cpython.sh - CPython 3.11 (Debian source package python3.11).
#
# What makes its build use usdtc: configure.ac empties DTRACE and runs
# AC_PATH_PROG(DTRACE, dtrace), so `DTRACE=usdtc` is ignored and whatever
# `dtrace` PATH holds is used.  The recipe is autoconf's cache variable,
#     ./configure --with-dtrace ac_cv_path_DTRACE=/path/to/usdtc
# (or a `dtrace` symlink to usdtc earlier in PATH).  configure then finds
# that `-G` works and links Python/pydtrace.o, made by `usdtc -G` over
# ceval.o, import.o, sysmodule.o and gcmodule.o, which usdtc rewrites.
#
# Only the interpreter is built (`make python`): no extension modules, no
# test suite, no optimisation passes.  The check runs a script that calls a
# known function at a known line under `bpftrace -c`, which also sets the
# semaphores CPython tests before it fires function__entry/return.
# CPython 3.11 itself fires function__entry only on its tracing path
# (ceval.c: DTRACE_FUNCTION_ENTRY under DO_TRACING, taken while a profile
# or trace function is set), so the script sets an empty profile function;
# Debian's own python3.11, built with SystemTap's dtrace, behaves the same.
# shellcheck disable=SC2034 # read by run-clients
SRCPKG=python3.11

client_build() {
	./configure --with-dtrace ac_cv_path_DTRACE="$USDTC" \
	    --without-ensurepip --disable-test-modules &&
		grep -Eq "^DTRACE=[[:space:]]*$USDTC\$" Makefile &&
		make -j"$JOBS" python
}

client_trace() {
	local py=$1/src/python d
	# A short directory: the script's absolute path must fit in bpftrace's
	# default 64-byte strings.
	d=$(mktemp -d /tmp/usdtc-py.XXXXXX) || { fail "cpython: trace" "mktemp"; return; }
	# Line numbers matter: function__entry reports usdtc_target's `def`
	# (line 2), function__return its `return` (line 3).
	cat > "$d/probe_target.py" <<'PY'
import sys
def usdtc_target(n):
    return n * 2
sys.setprofile(lambda *a: None)
for i in range(3):
    usdtc_target(i)
PY
	cat > "$d/trace.bt" <<BT
usdt:$py:python:function__entry /str(arg1) == "usdtc_target"/ {
	printf("function__entry %s %s %d\n", str(arg0), str(arg1), arg2); }
usdt:$py:python:function__return /str(arg1) == "usdtc_target"/ {
	printf("function__return %s %s %d\n", str(arg0), str(arg1), arg2); }
BT
	timeout -k 5 120 bpftrace "$d/trace.bt" -c "$py -S -E $d/probe_target.py" \
	    > "$d/bpftrace.out" 2> "$d/bpftrace.err"
	trace_lines "$d/bpftrace.out" > "$d/got"
	for _ in 1 2 3; do
		echo "function__entry $d/probe_target.py usdtc_target 2"
		echo "function__return $d/probe_target.py usdtc_target 3"
	done > "$d/want"
	expect "cpython: bpftrace prints function__entry/return with file, function and line" \
	    "$d/want" "$d/got" "$d/bpftrace.err"
	# usdtc's DOF (SystemTap's dtrace writes none), with the probe calls of
	# ceval.o rewritten into sites by `usdtc -G`.
	if "$USDTC" --list "$py" > "$d/list" 2>&1 && grep -q '^DOF ' "$d/list" &&
	    grep -A3 'probe function-entry' "$d/list" | grep -Eq 'site +_PyEval_EvalFrameDefault\+'; then
		ok "cpython: python carries usdtc's DOF, function-entry sites in _PyEval_EvalFrameDefault"
	else
		fail "cpython: python carries usdtc's DOF, function-entry sites in _PyEval_EvalFrameDefault" \
		    "$(head -c 300 "$d/list")"
	fi
	rm -rf "$d"
}
