# classic.awk - the bpftrace script for classic.c's probes, from their
# stapsdt notes.  Input: "NAME SPEC..." per probe (from usdtc --list);
# -v kind=c|i.  Each argument is printed on its own line ("NAME K VALUE"),
# so 32 strings never meet in one printf; register arguments are argN,
# stack ones (8@OFF(%rsp)) are read at reg("sp") + OFF, as the note says,
# since bpftrace 0.17 reads only arg0..arg5.  BEGIN runs once every probe
# is attached; the script exits once every probe has fired.
{
	name = $1
	printf("usdt:*:testlibusdt:%s {", name)
	for (k = 2; k <= NF; k++) {
		spec = $k
		sub(/^-?8@/, "", spec)
		j = k - 2
		if (spec ~ /^%/) {
			e = "arg" j
		} else {
			off = spec
			sub(/\(%rsp\)$/, "", off)
			e = "*(uint64 *)(reg(\"sp\") + " off ")"
		}
		if (kind == "c")
			printf(" printf(\"%s %d %%s\\n\", str(%s));", name, j, e)
		else
			printf(" printf(\"%s %d %%ld\\n\", (int64)%s);", name, j, e)
	}
	printf(" printf(\"%s fired\\n\"); @n++; }\n", name)
	total++
}
END {
	print "BEGIN { printf(\"attached\\n\"); }"
	printf("interval:ms:50 { if (@n == %d) { exit(); } }\n", total)
	print "END { clear(@n); }"
}
