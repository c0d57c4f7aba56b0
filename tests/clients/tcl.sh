# tests/clients/tcl.sh - Tcl 8.6 (Debian source package tcl8.6).
#
# Why Tcl: its probes are the richest of the interpreters' (procs, commands,
# bytecode), and its build runs both halves of dtrace: unix/Makefile.in
# makes tclDTrace.h with `$(DTRACE) -h` and tclDTrace.o with `$(DTRACE) -G`
# over all of libtcl's objects, linked into libtcl8.6.so.
#
# What makes its build use usdtc: configure runs
# AC_PATH_PROG(DTRACE, dtrace,, $PATH:/usr/sbin), which keeps a DTRACE
# given as an absolute path, so
#     cd unix && ./configure --enable-dtrace DTRACE=/path/to/usdtc
#
# Checks: Tcl's own test suite, a bounded subset (TCL_TESTS: 32 files, 7085
# tests of the interpreter core, procs, namespaces, commands, coroutines
# and TclOO, 44 s to 111 s on a loaded 2-core machine; `make test-tcl` runs all.tcl
# over them) must pass with no failure.  The full suite (151 files, 245 s
# alone) is left to hand runs: doc/languages.md compares it with the build
# by SystemTap's dtrace; its timing tests (cmdMZ-6.6, interp-36.7) fail
# under load with either dtrace.  Then a tclsh calling two procs, under
# bpftrace -p with the probes named by libtcl8.6.so's path: proc__entry,
# proc__return and cmd__entry name them, with their argument counts and
# return codes.
# shellcheck disable=SC2034 # read by run-clients
SRCPKG=tcl8.6
TCL_TESTS=${TCL_TESTS:-"basic.test proc.test proc-old.test cmdIL.test namespace.test
	namespace-old.test upvar.test uplevel.test info.test apply.test compile.test execute.test
	expr.test string.test list.test dict.test lsearch.test regexp.test subst.test var.test
	incr.test set.test if.test for.test while.test foreach.test switch.test trace.test
	rename.test coroutine.test oo.test error.test"}

client_build() {
	cd unix &&
		./configure --enable-dtrace DTRACE="$USDTC" &&
		grep -q "^DTRACE[[:space:]]*= $USDTC\$" Makefile &&
		make -j"$JOBS" &&
		make -j"$JOBS" tcltest
}

client_tests() {
	local u=$1/src/unix t0=$SECONDS files
	files=$(echo "$TCL_TESTS" | tr -s ' \t\n' ' ')
	(cd "$u" && make test-tcl TESTFLAGS="-file '$files'") > "$1/tests.log" 2>&1
	local sum
	sum=$(grep -E '^all\.tcl:[[:space:]]+Total' "$1/tests.log")
	if [[ $sum =~ Failed[[:space:]]+0$ ]] && ! grep -q '^Test files exiting with errors' "$1/tests.log"; then
		ok "tcl: its own tests, $(wc -w <<<"$files") files of TCL_TESTS: $sum, in $((SECONDS - t0)) s"
	else
		fail "tcl: its own tests" "${sum:-no summary}; see $1/tests.log"
		SHOW_LINES=20 show "$1/tests.log"
	fi
}

client_trace() {
	local u=$1/src/unix d pid
	client_tests "$1"
	d=$(mktemp -d /tmp/usdtc-tcl.XXXXXX) || { fail "tcl: trace" "mktemp"; return; }
	# The probes are in libtcl8.6.so, which bpftrace -c cannot find before
	# the program has loaded it (also with SystemTap's dtrace): tclsh
	# starts, waits for the go file, then calls the procs.
	cat > "$d/target.tcl" <<'TCL'
proc usdtc_outer {a b} { return [usdtc_inner $a] }
proc usdtc_inner {x} { return [expr {$x + 1}] }
set go [lindex $argv 0]
while {![file exists $go]} { after 20 }
usdtc_outer 1 2
TCL
	LD_LIBRARY_PATH=$u TCL_LIBRARY=$1/src/library "$u/tclsh" "$d/target.tcl" "$d/go" > "$d/tclsh.out" 2>&1 &
	pid=$!
	children+=("$pid")
	cat > "$d/trace.bt" <<BT
BEGIN { printf("usdtc-attached\\n"); }
usdt:$u/libtcl8.6.so:tcl:proc__entry /strncmp(str(arg0), "usdtc_", 6) == 0/ {
	printf("proc__entry %s %d\\n", str(arg0), arg1); }
usdt:$u/libtcl8.6.so:tcl:proc__return /strncmp(str(arg0), "usdtc_", 6) == 0/ {
	printf("proc__return %s %d\\n", str(arg0), arg1);
	if (strncmp(str(arg0), "usdtc_outer", 12) == 0) { exit(); } }
usdt:$u/libtcl8.6.so:tcl:cmd__entry /strncmp(str(arg0), "usdtc_", 6) == 0/ {
	printf("cmd__entry %s %d\\n", str(arg0), arg1); }
BT
	# The library is mapped once tclsh runs its script (it waits in it).
	wait_for_line "/proc/$pid/maps" 'libtcl8\.6\.so' 60
	timeout -k 5 120 bpftrace -p "$pid" "$d/trace.bt" > "$d/bpftrace.out" 2> "$d/bpftrace.err" &
	local bpid=$!
	wait_for_line "$d/bpftrace.out" '^usdtc-attached$' 120
	touch "$d/go"
	wait "$bpid"
	wait "$pid"
	trace_lines "$d/bpftrace.out" > "$d/got"
	# proc__entry twice a call: TclNRInterpProcCore (generic/tclProc.c) has
	# the same `if (TCL_DTRACE_PROC_ENTRY_ENABLED())` block twice in a row;
	# the build with SystemTap's dtrace prints the same six lines.
	printf '%s\n' "cmd__entry usdtc_outer 2" "proc__entry usdtc_outer 2" "proc__entry usdtc_outer 2" \
	    "cmd__entry usdtc_inner 1" "proc__entry usdtc_inner 1" "proc__entry usdtc_inner 1" \
	    "proc__return usdtc_inner 0" "proc__return usdtc_outer 0" > "$d/want"
	expect "tcl: bpftrace prints proc__entry/return and cmd__entry with the procs' names, argument counts, codes" \
	    "$d/want" "$d/got" "$d/bpftrace.err"
	rm -rf "$d"
}
