# tests/install/trace.sh - bpftrace against the install tests' programs
# (source it after tests/lib.sh).
#
# The programs (app.c, deb/dyn.c) take STOP-FILE READY-FILE: they create
# READY-FILE once their probes exist and fire until STOP-FILE appears.

# app_script PROGRAM: print app:hello's arguments and app:guarded's, each
# once, then exit.
app_script() {
	cat <<EOS
usdt:$1:app:hello /@h == 0/ { @h = 1; printf("hello %d %s %llu\n", arg0, str(arg1), arg2); if (@h + @g == 2) { exit(); } }
usdt:$1:app:guarded /@g == 0/ { @g = 1; printf("guarded %d\n", arg0); if (@h + @g == 2) { exit(); } }
END { clear(@h); clear(@g); }
EOS
}
app_want() { printf '%s\n' "guarded 99" "hello -7 installed-12 4886718345"; }

# trace_run NAME SCRIPT WANT [-p] PROGRAM: run PROGRAM, attach bpftrace
# with the script SCRIPT prints (given the program's path) -- by process
# with -p -- and compare what it prints, sorted, with what WANT prints.
trace_run() {
	local name=$1 script=$2 want=$3 byp= prog w pid rc i
	shift 3
	[ "$1" = -p ] && { byp=1; shift; }
	prog=$1
	if [ -n "$(trace_unavailable)" ]; then
		skip "$name: bpftrace" "$(trace_unavailable)"; return
	fi
	w=$(scratch)
	"$prog" "$w/stop" "$w/ready" > "$w/prog.out" 2>&1 &
	pid=$!
	wait_until has_file "$w/ready" "$pid"
	"$script" "$prog" > "$w/t.bt"
	timeout 300 bpftrace ${byp:+-p "$pid"} "$w/t.bt" > "$w/bt.out" 2> "$w/bt.err"
	rc=$?
	touch "$w/stop"
	wait "$pid"
	grep -Ev '^(Attaching [0-9]+ probes?\.\.\.|@[A-Za-z0-9_]+(\[.*\])?: .*)?$' "$w/bt.out" | sort > "$w/got"
	"$want" | sort > "$w/want"
	if [ "$rc" -eq 0 ] && cmp -s "$w/want" "$w/got"; then
		ok "$name: bpftrace reads the probes' arguments ($(tr '\n' ';' < "$w/got"))"
	else
		fail "$name: bpftrace reads the probes' arguments" \
		    "bpftrace exit $rc (124: timed out); got: $(tr '\n' '|' < "$w/got") $(head -c 300 "$w/bt.err") $(head -c 200 "$w/prog.out")"
	fi
}
