#!/usr/bin/env bash
# examples/demo.sh - `make demo`: usdtc from provider file to traced program.
#
# 1. usdtc -h turns examples/http.d into http.h, the probe macros;
# 2. server.c is compiled against it;
# 3. usdtc -G turns http.d plus server.o into http_probes.o (DOF, stapsdt
#    notes, semaphores, the drti_lite start-up code), and both are linked;
# 4. usdtc --list shows the probes the program carries;
# 5. the server runs, and bpftrace attaches by provider:probe name for two
#    seconds and prints every probe's arguments.  The request__debug probe
#    fires only because bpftrace enabled it (HTTP_REQUEST_DEBUG_ENABLED()).
#
# Tracing needs root and a kernel with uprobes; otherwise the demo says
# why and stops after step 4.  Everything is built in $B/demo.
set -u
: "${USDTC:?USDTC must name the usdtc binary}"
root=$(cd "$(dirname "$0")/.." && pwd)
ex=$root/examples
b=${B:-build}
case $b in /*) out=$b/demo ;; *) out=$root/$b/demo ;; esac
CC=${CC:-cc}
mkdir -p "$out"
cd "$out" || exit 1

say() { printf '\n### %s\n' "$*"; }
run() { echo "\$ $*"; "$@" || { echo "demo: '$1' failed" >&2; exit 1; }; }

say "1. the header of probe macros"
run "$USDTC" -h -s "$ex/http.d" -o http.h
grep -E '^#define[[:space:]]+HTTP_[A-Z_]+\(' http.h | sed "s/ *\\\\$//" | head -n 8

say "2-3. compile the server, build the probe object, link"
run "$CC" -O2 -g -Wall -Wextra -I. -c -o server.o "$ex/server.c"
run "$USDTC" -G -s "$ex/http.d" -o http_probes.o server.o
run "$CC" -o server server.o http_probes.o

say "4. the probes the program carries"
run "$USDTC" --list ./server

# Why bpftrace cannot run here, or nothing if it can.
why_no_trace() {
	[ "$(id -u)" -eq 0 ] || { echo "not root: uprobes need root"; return; }
	command -v bpftrace >/dev/null 2>&1 || { echo "bpftrace is not installed (make deps)"; return; }
	grep -qs ' /sys/kernel/tracing tracefs ' /proc/mounts ||
	    mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
	[ -e /sys/kernel/tracing/uprobe_events ] ||
	    [ -e /sys/kernel/debug/tracing/uprobe_events ] ||
	    echo "this kernel offers no uprobes (no uprobe_events in tracefs)"
}

reason=$(why_no_trace)
if [ -n "$reason" ]; then
	say "5. tracing skipped: $reason"
	exit 0
fi

say "5. run the server and trace it with bpftrace for two seconds"
./server 10 > server.out &
server=$!
trap 'kill $server 2>/dev/null' EXIT
script='
usdt:./server:http:conn__accept    { printf("conn-accept    fd=%d peer=%s\n", arg0, str(arg1)); }
usdt:./server:http:request__start  { printf("request-start  id=%d %s %s\n", arg0, str(arg1), str(arg2)); }
usdt:./server:http:request__debug  { printf("request-debug  id=%d \"%s\"\n", arg0, str(arg1)); }
usdt:./server:http:request__done   { printf("request-done   id=%d status=%d bytes=%llu us=%u\n", arg0, arg1, arg2, arg3); }
interval:s:2 { exit(); }'
echo "\$ bpftrace -e '...'  (the script is in examples/demo.sh)"
timeout 20 bpftrace -e "$script" 2> bpftrace.err
rc=${PIPESTATUS[0]}
kill "$server" 2>/dev/null
wait "$server" 2>/dev/null
if [ "$rc" -ne 0 ]; then
	echo "demo: bpftrace exited $rc:" >&2
	cat bpftrace.err >&2
	exit 1
fi
