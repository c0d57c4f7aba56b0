# tests/clients/libvirt.sh - libvirt 9.0 (Debian source package libvirt).
#
# What makes its build use usdtc: meson.build runs find_program('dtrace')
# (DTRACE= is not read); meson takes a program of that name from the
# `[binaries]` section of a machine file before it searches PATH, so
#     meson setup build --native-file usdtc.ini    ([binaries] dtrace = '/path/to/usdtc')
# src/meson.build then runs `dtrace -h` for libvirt_probes.h and
# `dtrace -G -s libvirt_probes.d` (no objects: build style (b)), linked
# into libvirt.so.
#
# Trimmed to what carries the probes: every automatic feature off
# (-Dauto_features=disabled), the remote driver (the RPC client code,
# virnetclient.c and virnettlscontext.c, whose 8-argument probes are where
# usdtc's header once warned, issue 42) and the test driver on, and only
# libvirt.so built (about 240 compiles against the package's 1,470).
# -Dwerror=true makes every warning an error (libvirt's own git_werror
# applies to git checkouts only): the header must compile clean under
# libvirt's long warning list, with every argument cast
# `(void *)(intptr_t)` (src/util/virprobe.h).  A usdtc from before the
# header converted such arguments stops this build: 38 -Wint-conversion
# warnings in virnetclient.c, virnetserverclient.c and virnettlscontext.c.
#
# The check: a small program links the built libvirt.so, adds a timer of
# 4321 ms to libvirt's default event loop, sets it to -1, and opens the
# test driver; bpftrace, attached to libvirt.so by path, must see
# event_glib_add_timeout carry 4321, update_timeout
# -1 (an int passed as a pointer, read back as an int), and object_new the
# class name "virConnect".
# shellcheck disable=SC2034 # read by run-clients
SRCPKG=libvirt

client_build() {
	printf "[binaries]\ndtrace = '%s'\n" "$USDTC" > "$1/usdtc.ini" &&
		meson setup "$1/b" --native-file "$1/usdtc.ini" -Dauto_features=disabled \
		    -Ddtrace=enabled -Ddriver_remote=enabled -Ddriver_test=enabled \
		    -Ddocs=disabled -Dtests=disabled -Dwerror=true &&
		grep -qF "$USDTC -o src/libvirt_probes.h -h" "$1/b/build.ninja" &&
		t=$(ninja -C "$1/b" -t targets all | sed -n 's|^\(src/libvirt[.]so[.]0[.][0-9.]*\): .*|\1|p') &&
		[ -n "$t" ] && ninja -C "$1/b" -j"$JOBS" "$t" &&
		ls "$1"/b/src/libvirt.so.0.* > /dev/null
}

client_trace() {
	local b=$1/b d lib bt
	lib=$(ls "$b"/src/libvirt.so.0.*.* | head -n 1)
	d=$(mktemp -d /tmp/usdtc-lv.XXXXXX) || { fail "libvirt: trace" "mktemp"; return; }
	cat > "$d/lvprobe.c" <<'C'
#include <stdio.h>
#include <libvirt/libvirt.h>

static void tick(int timer, void *opaque) { (void)timer; (void)opaque; }

int main(void)
{
	virConnectPtr c;
	int t;

	if (virInitialize() < 0 || virEventRegisterDefaultImpl() < 0)
		return 1;
	t = virEventAddTimeout(4321, tick, NULL, NULL);
	if (t < 0)
		return 1;
	virEventUpdateTimeout(t, -1);
	c = virConnectOpen("test:///default");
	if (!c)
		return 1;
	printf("domains %d\n", virConnectNumOfDomains(c));
	virConnectClose(c);
	virEventRemoveTimeout(t);
	return 0;
}
C
	if ! cc -Wall -Wextra -Werror -I"$1/src/include" -I"$b/include" -o "$d/lvprobe" "$d/lvprobe.c" \
	    -L"$b/src" -lvirt -Wl,-rpath,"$b/src" > "$d/cc.log" 2>&1; then
		fail "libvirt: a program linking libvirt.so compiles" "see below"; show "$d/cc.log"; rm -rf "$d"; return
	fi
	# By the library's path, attached before the program starts (bpftrace -c
	# looks for the library in a process that has not loaded it yet); the
	# kernel sets the semaphores libvirt's PROBE() tests in every process
	# that maps the library.
	cat > "$d/trace.bt" <<BT
BEGIN { printf("usdtc-attached\\n"); }
usdt:$lib:libvirt:event_glib_add_timeout { printf("event_glib_add_timeout %d\n", arg1); }
usdt:$lib:libvirt:event_glib_update_timeout { printf("event_glib_update_timeout %d\n", arg1); }
usdt:$lib:libvirt:object_new /str(arg1) == "virConnect"/ { printf("object_new %s\n", str(arg1)); exit(); }
BT
	timeout -k 5 120 bpftrace "$d/trace.bt" > "$d/bpftrace.out" 2> "$d/bpftrace.err" &
	bt=$!
	children+=("$bt")
	if ! wait_for_line "$d/bpftrace.out" '^usdtc-attached$' 30; then
		fail "libvirt: bpftrace attaches" "BEGIN did not run within 30 s"
		show "$d/bpftrace.err"; kill "$bt" 2>/dev/null; rm -rf "$d"; return
	fi
	"$d/lvprobe" > "$d/lvprobe.out" 2>&1
	wait "$bt"
	trace_lines "$d/bpftrace.out" > "$d/got"
	printf '%s\n' "event_glib_add_timeout 4321" "event_glib_update_timeout -1" "object_new virConnect" > "$d/want"
	expect "libvirt: bpftrace prints add_timeout 4321, update_timeout -1, object_new virConnect" \
	    "$d/want" "$d/got" "$d/bpftrace.err" "$d/lvprobe.out"
	# usdtc's DOF names every probe of libvirt_probes.d (45); the notes, the
	# probes libvirt.so's code fires (40: the daemon's auth probes are not
	# built, and rpc_tls_session_handshake_* has no call in libvirt 9.0),
	# among them the 8-argument rpc_client_msg_tx_queue.
	local want_n dof_n note_n
	want_n=$(grep -c '^[[:space:]]*probe ' "$1/src/src/libvirt_probes.d")
	"$USDTC" --list "$lib" > "$d/list" 2>&1
	dof_n=$(grep -c '^  probe ' "$d/list")
	note_n=$(sed -n 's/^  libvirt:\([^ ]*\) .*/\1/p' "$d/list" | sort -u | wc -l)
	if grep -q '^DOF ' "$d/list" && [ "$dof_n" = "$want_n" ] &&
	    grep -q '^  libvirt:rpc_client_msg_tx_queue .*args=.*@.*@.*@.*@.*@.*@.*@.*@' "$d/list"; then
		ok "libvirt: libvirt.so's DOF names all $want_n probes, its notes $note_n, rpc_client_msg_tx_queue with 8 arguments"
	else
		fail "libvirt: libvirt.so's DOF names all $want_n probes, rpc_client_msg_tx_queue noted" \
		    "DOF probes $dof_n, noted $note_n"
	fi
	rm -rf "$d"
}
