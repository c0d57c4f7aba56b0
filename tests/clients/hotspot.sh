# tests/clients/hotspot.sh - OpenJDK hotspot's probe definitions, and a
# C++ body that fires every one of their probes (source it).
#
# Why one file: tests/clients/openjdk.sh (CI's client builds) and
# bench/header_weight both need hotspot's three `.d` files (hotspot.d,
# hotspot_jni.d, hs_private.d: 523 probes) and both fire every probe; the
# fetch and the generator live here once.  OpenJDK itself cannot be built
# here (doc/debian-rebuilds.md), so only its probe step is reproduced.
#
# hotspot_fetch DIR: DIR/tree holds, at their paths in OpenJDK's tree,
# src/hotspot/os/posix/dtrace/*.d and make/hotspot/gensrc/GensrcDtrace.gmk
# (the make rules that run `dtrace -h` on them), and DIR/version the
# source package's version.  Debian's openjdk-17 source: its orig tarball
# (about 64 MB) is fetched with `apt-get source --download-only` (newest
# version the archive still serves first), only those members extracted,
# and the tarball removed; a second call finds DIR/tree and does nothing.
# Needs root and deb-src entries (tests/clients/debsrc.sh).
hotspot_fetch() {
	local dir=$1 v tarball
	[ -e "$dir/tree/.usdtc-extracted" ] && return 0
	rm -rf "$dir" && mkdir -p "$dir" || return 1
	for v in $(apt-cache showsrc openjdk-17 | sed -n 's/^Version: //p' | sort -u | sort -r -V); do
		(cd "$dir" && apt-get -o DPkg::Lock::Timeout=600 source -q --download-only --only-source \
		    "openjdk-17=$v") >> "$dir/fetch.log" 2>&1 && { echo "$v" > "$dir/version"; break; }
		rm -f "$dir"/*.dsc "$dir"/*.tar.*
	done
	tarball=$(ls "$dir"/openjdk-17_*.orig.tar.xz 2>/dev/null | head -n 1)
	[ -n "$tarball" ] || { echo "no openjdk-17 orig tarball could be fetched" >> "$dir/fetch.log"; return 1; }
	mkdir -p "$dir/x" && tar -C "$dir/x" -xJf "$tarball" --wildcards --no-wildcards-match-slash \
	    '*/src/hotspot/os/posix/dtrace/*.d' '*/make/hotspot/gensrc/GensrcDtrace.gmk' \
	    >> "$dir/fetch.log" 2>&1 || return 1
	# The tarball's one top-level directory becomes DIR/tree.
	mv "$dir"/x/* "$dir/tree" && rm -rf "$dir/x" "$dir"/*.tar.* "$dir"/*.dsc || return 1
	ls "$dir/tree/src/hotspot/os/posix/dtrace/"*.d > /dev/null 2>&1 || return 1
	touch "$dir/tree/.usdtc-extracted"
}

# hotspot_fire_all FILE.d VAR [K]: C statements firing each of the first K
# probes of FILE.d (default all) once, under its _ENABLED(), every argument
# cast from VAR to its declared type: `(TYPE)VAR`.
hotspot_fire_all() {
	awk -v var="$2" -v want="${3:-1000000000}" '
	/^provider / { prov = toupper($2) }
	/^[ \t]*probe / && k < want {
		line = $0
		while (line !~ /;/ && (getline more) > 0)	# a declaration over lines
			line = line " " more
		sub(/^[ \t]*probe[ \t]+/, "", line)
		name = line; sub(/[ \t]*\(.*/, "", name); gsub(/__/, "_", name)
		args = line; sub(/^[^(]*\(/, "", args); sub(/\)[^)]*$/, "", args)
		if (args ~ /^[ \t]*(void)?[ \t]*$/) args = ""
		n = (args == "") ? 0 : split(args, type, ",")
		m = prov "_" toupper(name)
		call = ""
		for (a = 1; a <= n; a++) {
			t = type[a]	# less a parameter name after a star: "void* env"
			if (t ~ /\*[ \t]*[A-Za-z_][A-Za-z0-9_]*[ \t]*$/)
				sub(/[A-Za-z_][A-Za-z0-9_]*[ \t]*$/, "", t)
			call = call (a > 1 ? ", " : "") "(" t ")" var
		}
		printf "\tif (%s_ENABLED())\n\t\t%s(%s);\n", m, m, call
		k++
	}' "$1"
}
