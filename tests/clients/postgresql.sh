# tests/clients/postgresql.sh - PostgreSQL 15 (Debian source package postgresql-15).
#
# What makes its build use usdtc: configure honours DTRACE (PGAC_PATH_PROGS
# searches PATH only when it is unset), so
#     ./configure --enable-dtrace DTRACE=/path/to/usdtc
# src/backend/utils/Makefile then runs `$(DTRACE) -C -h` for probes.h (and
# sed renames the macros to TRACE_POSTGRESQL_*), and src/backend/Makefile
# `$(DTRACE) -C -G -s utils/probes.d -o utils/probes.o` over every backend
# object (build style (c): the objects' probe calls are rewritten).
#
# The check builds and installs into the build tree, runs initdb and a
# server on a unix socket in a temporary directory (as `nobody`: postgres
# refuses to run as root), attaches bpftrace to the postgres binary by path,
# and runs `SELECT 42` with psql: query__start must carry the query text,
# and transaction__start (which follows it in the same backend) a local
# transaction id.
# shellcheck disable=SC2034 # read by run-clients
SRCPKG=postgresql-15

client_build() {
	./configure --enable-dtrace DTRACE="$USDTC" --prefix="$1/inst" \
	    --without-icu --without-readline &&
		grep -q "^DTRACE = $USDTC\$" src/Makefile.global &&
		make -j"$JOBS" &&
		make install
}

# pg_stop DIR PID: stop the server started in DIR.
pg_stop() {
	runuser -u nobody -- "$bin/pg_ctl" -D "$1/data" -m immediate stop > /dev/null 2>&1
	kill "$2" 2>/dev/null
	wait "$2" 2>/dev/null
}

client_trace() {
	local bin=$1/inst/bin d pid bt
	# A directory nobody can use: the suite's scratch root is root's alone.
	d=$(mktemp -d /tmp/usdtc-pg.XXXXXX) || { fail "postgresql: server" "mktemp"; return; }
	chown nobody "$d"
	if ! runuser -u nobody -- "$bin/initdb" -D "$d/data" -A trust --no-sync > "$d/initdb.log" 2>&1; then
		fail "postgresql: initdb" "failed"; show "$d/initdb.log"; rm -rf "$d"; return
	fi
	runuser -u nobody -- "$bin/postgres" -D "$d/data" -k "$d" -c listen_addresses= \
	    -c fsync=off > "$d/server.log" 2>&1 &
	pid=$!
	children+=("$pid")
	if ! wait_for_line "$d/server.log" 'ready to accept connections' 60; then
		fail "postgresql: server starts" "not ready after 60 s"; show "$d/server.log"
		pg_stop "$d" "$pid"; rm -rf "$d"; return
	fi
	cat > "$d/trace.bt" <<BT
BEGIN { printf("usdtc-attached\\n"); }
usdt:$bin/postgres:postgresql:query__start /str(arg0) == "SELECT 42"/ {
	printf("query__start %s\n", str(arg0)); @q[pid] = 1; }
usdt:$bin/postgres:postgresql:transaction__start /@q[pid]/ {
	printf("transaction__start %u\n", arg0); exit(); }
END { clear(@q); }
BT
	timeout -k 5 60 bpftrace "$d/trace.bt" > "$d/bpftrace.out" 2> "$d/bpftrace.err" &
	bt=$!
	children+=("$bt")
	# BEGIN runs once every probe is attached.
	if ! wait_for_line "$d/bpftrace.out" '^usdtc-attached$' 30; then
		fail "postgresql: bpftrace attaches" "BEGIN did not run within 30 s"
		show "$d/bpftrace.err"; kill "$bt" 2>/dev/null; pg_stop "$d" "$pid"; rm -rf "$d"; return
	fi
	runuser -u nobody -- "$bin/psql" -h "$d" -d postgres -XAtc 'SELECT 42' > "$d/psql.out" 2>&1
	wait "$bt"
	# The local transaction id varies: any positive number is right.
	trace_lines "$d/bpftrace.out" | tee "$d/raw" |
		sed -E 's/^(transaction__start) [1-9][0-9]*$/\1 LXID>0/' > "$d/got"
	sed 's/^/#   bpftrace (raw): /' "$d/raw"
	printf '%s\n' "query__start SELECT 42" "transaction__start LXID>0" > "$d/want"
	expect "postgresql: bpftrace prints query__start with the query text, then transaction__start" \
	    "$d/want" "$d/got" "$d/bpftrace.err" "$d/psql.out"
	if grep -qx 42 "$d/psql.out"; then
		ok "postgresql: psql SELECT 42 returns 42"
	else
		fail "postgresql: psql SELECT 42 returns 42" "$(head -c 300 "$d/psql.out")"
	fi
	pg_stop "$d" "$pid"
	rm -rf "$d"
}
