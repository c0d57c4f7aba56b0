# tests/clients/perl.sh - Perl 5.36 (Debian source package perl).
#
# What makes its build use usdtc: Configure's usedtrace takes the path,
#     sh Configure -des -Dusedtrace=/path/to/usdtc
# (Configure asks "Where is the dtrace executable?" and checks `-h`).  The
# Makefile then rewrites copies of the objects with `-G` (mpdtrace/,
# libpdtrace/, maindtrace/), puts the rewritten ones and dtrace_perllib.o
# into libperl.a, and links `perlmain.o dtrace_main.o libperl.a`.
#
# The archive is why perl is here: each rewritten object refers to an
# anchor only dtrace_perllib.o defines (doc/design.md section 5), so the
# linker takes dtrace_perllib.o, its notes and DOF, out of libperl.a; before
# that, `perl` had 6 notes (the header's units) and bpftrace printed
# nothing.
#
# Only `perl` is built (`make perl`), not the extensions or the tests.  The
# check runs a script whose sub starts at a known line under `bpftrace -c`
# (Perl tests PERL_SUB_ENTRY_ENABLED(), a semaphore, before it fires).
# shellcheck disable=SC2034 # read by run-clients
SRCPKG=perl

client_build() {
	sh Configure -des -Dusedtrace="$USDTC" -Dprefix="$1/inst" &&
		grep -qx "dtrace='$USDTC'" config.sh &&
		make -j"$JOBS" perl
}

client_trace() {
	local src=$1/src d
	# A short directory: the script's absolute path must fit in bpftrace's
	# default 64-byte strings.
	d=$(mktemp -d /tmp/usdtc-pl.XXXXXX) || { fail "perl: trace" "mktemp"; return; }
	# usdtc_target's first statement is at line 2.
	cat > "$d/probe_target.pl" <<'PL'
sub usdtc_target {
    return $_[0] * 2;
}
usdtc_target($_) for 1 .. 3;
PL
	cat > "$d/trace.bt" <<BT
usdt:$src/perl:perl:sub__entry /str(arg0) == "usdtc_target"/ {
	printf("sub__entry %s %s %d %s\n", str(arg0), str(arg1), arg2, str(arg3)); }
usdt:$src/perl:perl:sub__return /str(arg0) == "usdtc_target"/ {
	printf("sub__return %s %s %d %s\n", str(arg0), str(arg1), arg2, str(arg3)); }
BT
	timeout -k 5 120 bpftrace "$d/trace.bt" -c "$src/perl -I$src/lib $d/probe_target.pl" \
	    > "$d/bpftrace.out" 2> "$d/bpftrace.err"
	trace_lines "$d/bpftrace.out" > "$d/got"
	for _ in 1 2 3; do
		echo "sub__entry usdtc_target $d/probe_target.pl 2 main"
		echo "sub__return usdtc_target $d/probe_target.pl 2 main"
	done > "$d/want"
	expect "perl: bpftrace prints sub__entry/return with sub, file, line and package" \
	    "$d/want" "$d/got" "$d/bpftrace.err"
	rm -rf "$d"
}
