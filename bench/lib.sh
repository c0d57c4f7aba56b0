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
