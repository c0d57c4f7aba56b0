# bench/lib.sh - what the benchmark scripts share (sourced, not run).
#
# instructions OUT CMD...: run CMD under callgrind and print the number of
# instructions it executed (the whole process, its libraries included),
# keeping callgrind's file at OUT and valgrind's messages at OUT.log; the
# status is CMD's (the count is printed either way).  The count does not depend on what else
# the machine is doing, which is why bench/gate and bench/regen use it;
# it does depend on the compiler and C library usdtc was built with.
instructions() {
	local out=$1 rc; shift
	rm -f "$out"
	valgrind --tool=callgrind --callgrind-out-file="$out" "$@" > /dev/null 2> "$out.log"
	rc=$?
	[ -f "$out" ] && sed -n 's/^summary: *\([0-9]*\).*/\1/p' "$out"
	return "$rc"
}

# need_valgrind NAME: exit with a message when valgrind is missing.
need_valgrind() {
	command -v valgrind > /dev/null ||
		{ echo "$1: needs valgrind (.ci/deps installs it)" >&2; exit 1; }
}

# cpu_seconds OUT REPS CMD...: run `CMD -o OUT` REPS times in a row, $RUNS
# times over (default 3); print the least user+sys CPU seconds of one run
# of CMD (the compiler's children included): wall time is noise on a
# loaded machine.  Needs GNU time and a scratch directory $work.
cpu_seconds() {
	local out=$1 reps=$2 best="" t i
	shift 2
	for ((i = 0; i < ${RUNS:-3}; i++)); do
		/usr/bin/time -f '%U %S' -o "$work/time" \
			bash -c 'for ((r = 0; r < $1; r++)); do "${@:3}" -o "$2" || exit 1; done' \
			cpu "$reps" "$out" "$@" 2> "$work/err" ||
			{ echo "FAILED: $*" >&2; head -n 5 "$work/err" >&2; echo "-"; return 1; }
		t=$(awk -v r="$reps" '{ printf "%.3f", ($1 + $2) / r }' "$work/time")
		if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$t; fi
	done
	echo "$best"
}

# size_of FILE: its bytes, 0 when it is not there.
size_of() { stat -c %s "$1" 2> /dev/null || echo 0; }

# startup_program N: bench/startup's program in the current directory: a
# provider of N probes of one int (p.d), a program firing each once at an
# inline site, 100 to a function, never run (p.c), built from the header
# alone (hdr-N), with the -G object made without the objects (g-N,
# build style b: drti_lite adds every inline site from the site records),
# and with -G given the objects (go-N, from a copy of p.o that -G
# rewrites: its DOF holds every site, drti_lite registers it as built).
# bench/gate measures g-1000's and go-1000's start-up too.
startup_program() {
	awk -v n="$1" 'BEGIN {
		print "provider bench {"
		for (i = 0; i < n; i++) printf "\tprobe p%05d(int);\n", i
		print "};" }' > p.d
	awk -v n="$1" 'BEGIN {
		print "#include \"p.h\""
		for (f = 0; f * 100 < n; f++) {
			printf "void f%d(int x);\nvoid f%d(int x) {\n", f, f
			for (i = f * 100; i < n && i < (f + 1) * 100; i++) printf "\tBENCH_P%05d(x);\n", i
			print "}"
		}
		print "int main(int argc, char **argv) { (void)argv; if (argc > 99) {"
		for (f = 0; f * 100 < n; f++) printf "\tf%d(argc);\n", f
		print "} return 0; }" }' > p.c
	"$USDTC" -h -s p.d -o p.h && ${CC:-cc} -O1 -c p.c -o p.o && ${CC:-cc} p.o -o "hdr-$1" &&
	    "$USDTC" -G -s p.d -o g.o && ${CC:-cc} p.o g.o -o "g-$1" &&
	    cp p.o po.o && "$USDTC" -G -s p.d -o go.o po.o && ${CC:-cc} po.o go.o -o "go-$1"
}
