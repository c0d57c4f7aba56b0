# tests/kdof/extract.awk - print C function definitions, by name, from a
# kernel source file, unchanged.
#
# Why: tests/kdof runs the kernels' own DOF code (CDDL), which this
# repository must not carry; the test pulls the functions it needs out of
# the kernel sources at build time.  The kernels write a definition as
#	static int			<- the line before (return type)
#	name(args...			<- the name at the start of a line
#	{ ... }				<- ends with "}" alone at the start of a line
# Usage: awk -v names="f g h" -f extract.awk dtrace.c > out.c
# Each function is preceded by a #line directive naming its file and line,
# so compiler messages point into the kernel source.  A name not found is
# reported on stderr and the exit status is 1.
BEGIN {
	n = split(names, list, " ")
	for (i = 1; i <= n; i++) want[list[i]] = 1
}
{
	line[NR] = $0
}
END {
	for (i = 1; i <= NR; i++) {
		if (match(line[i], /^[A-Za-z_][A-Za-z_0-9]*\(/) == 0) continue
		name = substr(line[i], 1, RLENGTH - 1)
		if (!(name in want) || (name in done)) continue
		# A prototype ends with ";" before any "{" line: skip it.
		for (j = i; j <= NR && line[j] !~ /^\{/ && line[j] !~ /;[ \t]*$/; j++) ;
		if (j > NR || line[j] !~ /^\{/) continue
		start = i - 1
		printf "#line %d \"%s\"\n", start, FILENAME
		for (k = start; k <= NR; k++) {
			print line[k]
			if (line[k] ~ /^\}/) break
		}
		print ""
		done[name] = 1
	}
	rc = 0
	for (i = 1; i <= n; i++)
		if (!(list[i] in done)) { print "extract.awk: " list[i] " not found in " FILENAME > "/dev/stderr"; rc = 1 }
	exit rc
}
