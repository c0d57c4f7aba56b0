# tests/clients/openjdk.sh - OpenJDK 17's probe step (Debian source package
# openjdk-17), not OpenJDK itself.
#
# OpenJDK takes hours to build here (doc/debian-rebuilds.md), so only what
# its build does with dtrace is reproduced: hotspot's make
# (make/hotspot/gensrc/GensrcDtrace.gmk) preprocesses each of
# src/hotspot/os/posix/dtrace/*.d with `$(CPP) -x c` into a support file
# and runs `$(DTRACE) $(DTRACE_FLAGS) -h -o dtracefiles/NAME.h -s` on it
# (no -G on Linux: the header alone carries the probes, build style (a));
# utilities/dtrace.hpp includes <sys/sdt.h> and then the three headers.
# What makes the build use usdtc: configure's DTRACE (the recipe here runs
# $USDTC where the make rule runs $(DTRACE)).
#
# Only the `.d` files and the make rule are taken from the 64 MB source
# (tests/clients/hotspot.sh, shared with bench/header_weight), and only g++
# and <sys/sdt.h> installed, not the package's build dependencies.  The
# build: the three headers, then a C++ file firing every probe (523) once
# under its _ENABLED(), each argument cast from a `long`, compiled
# `g++ -std=c++14 -O3 -Wall -Wextra -Werror` and linked.  The check:
# `usdtc --list` finds a note for every probe, and under `bpftrace -c`
# (which sets the semaphores _ENABLED() reads) gc__begin carries the value
# passed (42) and thread__start its second and fifth arguments.
# shellcheck disable=SC2034 # read by run-clients
SRCPKG=openjdk-17
CLIENT_DEPS="g++ systemtap-sdt-dev"
. "$(dirname "${BASH_SOURCE[0]}")/hotspot.sh"

client_fetch() { hotspot_fetch "$1"; }

client_build() {
	local d n dfiles=src/hotspot/os/posix/dtrace
	grep -q 'DTRACE) $(DTRACE_FLAGS) -h -o $@ -s' make/hotspot/gensrc/GensrcDtrace.gmk || {
		echo "GensrcDtrace.gmk no longer runs dtrace -h as this recipe does" >&2; return 1; }
	mkdir -p "$1/support" "$1/gensrc/dtracefiles" || return 1
	for d in "$dfiles"/*.d; do
		n=$(basename "$d" .d)
		"${CC:-cc}" -E -x c "$d" > "$1/support/$n.h.d" &&
			"$USDTC" -h -o "$1/gensrc/dtracefiles/$n.h" -s "$1/support/$n.h.d" || return 1
	done
	{
		printf '#include <sys/sdt.h>\n#include <stdint.h>\n'
		for d in "$dfiles"/*.d; do printf '#include "dtracefiles/%s.h"\n' "$(basename "$d" .d)"; done
		printf 'void fire_all(long v);\nvoid fire_all(long v)\n{\n'
		for d in "$dfiles"/*.d; do hotspot_fire_all "$d" v; done
		printf '}\n'
	} > "$1/fire_all.cc" &&
		printf 'void fire_all(long v);\nint main(int argc, char **argv)\n{\n\t(void)argv;\n\tfire_all(argc + 41);\n\treturn 0;\n}\n' \
		    > "$1/main.cc" &&
		g++ -std=c++14 -O3 -Wall -Wextra -Werror -I"$1/gensrc" -c "$1/fire_all.cc" -o "$1/fire_all.o" &&
		g++ -std=c++14 -O3 -Wall -Wextra -Werror -c "$1/main.cc" -o "$1/main.o" &&
		g++ -o "$1/fire_all" "$1/main.o" "$1/fire_all.o"
}

client_trace() {
	local prog=$1/fire_all d want_n got_n
	d=$(mktemp -d /tmp/usdtc-jdk.XXXXXX) || { fail "openjdk: trace" "mktemp"; return; }
	want_n=$(cat "$1"/src/src/hotspot/os/posix/dtrace/*.d | grep -c '^[[:space:]]*probe ')
	"$USDTC" --list "$prog" > "$d/list" 2>&1
	got_n=$(sed -n 's/^stapsdt notes: //p' "$d/list")
	if [ "$got_n" = "$want_n" ] && [ "$want_n" -gt 500 ]; then
		ok "openjdk: the program has a stapsdt note for each of hotspot's $want_n probes"
	else
		fail "openjdk: the program has a stapsdt note for each of hotspot's $want_n probes" "notes: ${got_n:-none}"
	fi
	cat > "$d/trace.bt" <<BT
usdt:$prog:hotspot:gc__begin { printf("gc__begin %d\n", arg0); }
usdt:$prog:hotspot:thread__start { printf("thread__start %d %d\n", arg1, arg4); }
BT
	timeout -k 5 120 bpftrace "$d/trace.bt" -c "$prog" > "$d/bpftrace.out" 2> "$d/bpftrace.err"
	trace_lines "$d/bpftrace.out" | sort > "$d/got"
	printf '%s\n' "gc__begin 42" "thread__start 42 42" > "$d/want"
	expect "openjdk: bpftrace prints gc__begin 42 and thread__start 42 42" \
	    "$d/want" "$d/got" "$d/bpftrace.err" "$d/bpftrace.out"
	rm -rf "$d"
}
