#!/usr/bin/env bash
# examples/libusdt_demo.sh - `make demo-libusdt`: probes a Python program
# defines while it runs (bindings/python over libusdt), traced by bpftrace.
#
# 1. the usdt module is installed with pip into $B/demo-libusdt/py (no
#    network; linked with $B/libusdt.a);
# 2. examples/pyapp.py runs: provider pyapp, probe request(int, str);
# 3. its probe object is a file with a real path, listed by usdtc --list;
# 4. bpftrace attaches by provider:probe name for two seconds and prints
#    the arguments; request.enabled is true only while it does.
set -u
: "${USDTC:?USDTC must name the usdtc binary}"
root=$(cd "$(dirname "$0")/.." && pwd)
b=${B:-build}
case $b in /*) lib=$b ;; *) lib=$root/$b ;; esac
out=$lib/demo-libusdt
rm -rf "$out"
mkdir -p "$out"
cd "$out" || exit 1

say() { printf '\n### %s\n' "$*"; }

say "1. python3 -m pip install bindings/python"
cp -r "$root/bindings/python" src && rm -rf src/build src/*.egg-info
LIBUSDT_ROOT=$root LIBUSDT_A=$lib/libusdt.a /usr/bin/python3 -m pip install -q \
    --no-build-isolation --no-index --target="$out/py" ./src || exit 1

say "2. a Python program defines provider pyapp and probe request(int, str)"
sed -n '/^prov = /,/^with prov/p' "$root/examples/pyapp.py"
PYTHONPATH=$out/py /usr/bin/python3 "$root/examples/pyapp.py" "$out/stop" > app.out 2>&1 &
for _ in $(seq 100); do grep -q '^ready' app.out && break; sleep 0.1; done
pid=$(awk '/^ready/ { print $2 }' app.out)
[ -n "$pid" ] || { echo "demo: the program did not start: $(cat app.out)" >&2; exit 1; }

say "3. its probe object, by the path in /proc/$pid/maps"
img=$(awk '$6 ~ /libusdt-.*-pyapp\.so$/ { print $6; exit }' "/proc/$pid/maps")
echo "$img"
"$USDTC" --list "$img" | grep -A1 'stapsdt notes'

say "4. bpftrace -p $pid, two seconds"
if [ "$(id -u)" -ne 0 ] || ! command -v bpftrace > /dev/null 2>&1; then
	echo "(tracing needs root and bpftrace; stopping here)"
else
	echo "\$ bpftrace -p $pid -e 'usdt:*:pyapp:request { printf(\"%d %s\\n\", arg0, str(arg1)); }'"
	timeout 30 bpftrace -p "$pid" -e 'usdt:*:pyapp:request { printf("%d %s\n", arg0, str(arg1)); }
	    interval:s:2 { exit(); }' 2>&1 | grep -v RLIMIT
fi
touch "$out/stop"
wait
