# tests/clients/debsrc.sh - make `apt-get source` work (source it).
#
# Debian 12 describes its archives in deb822 files
# (/etc/apt/sources.list.d/*.sources) whose stanzas say `Types: deb`, and
# older machines in /etc/apt/sources.list one-line entries; neither asks for
# source packages.  enable_deb_src writes one file of our own,
# /etc/apt/sources.list.d/usdtc-deb-src.sources, holding a `Types: deb-src`
# copy of every binary stanza and line, unless the machine already has
# source indexes.  Rewriting our own file (never editing the existing ones)
# keeps it idempotent and leaves the machine's configuration as it was.

DEBSRC_FILE=/etc/apt/sources.list.d/usdtc-deb-src.sources

# have_deb_src: true if apt already knows a source index.
have_deb_src() {
	apt-get indextargets --no-release-info --format '$(CREATED_BY)' 2>/dev/null |
		grep -qx 'Sources'
}

# debsrc_stanzas: the deb822 text of a deb-src twin of every deb entry.
debsrc_stanzas() {
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -e "$f" ] && [ "$f" != "$DEBSRC_FILE" ] || continue
		# Paragraphs whose Types include deb, with Types set to deb-src.
		awk 'BEGIN { RS = ""; ORS = "\n\n" }
		     /(^|\n)Types:[^\n]*(^|[ \t])deb([ \t]|\n|$)/ && !/(^|\n)Enabled:[ \t]*no/ {
			sub(/(^|\n)Types:[^\n]*/, "\nTypes: deb-src"); sub(/^\n/, ""); print }' "$f"
	done
	if [ -e /etc/apt/sources.list ]; then
		# deb [opts] URI SUITE COMPONENT...
		awk '$1 == "deb" {
			i = 2; opts = ""
			if ($2 ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
			uri = $i; suite = $(i + 1); comps = ""
			for (j = i + 2; j <= NF; j++) comps = comps " " $j
			printf "Types: deb-src\nURIs: %s\nSuites: %s\nComponents:%s\n\n", uri, suite, comps
		}' /etc/apt/sources.list
	fi
}

# enable_deb_src: add source entries if none exist, and `apt-get update`
# when they are new or changed (a second run touches no network here).
enable_deb_src() {
	if [ -e "$DEBSRC_FILE" ] || ! have_deb_src; then
		local text
		text=$(debsrc_stanzas)
		if [ -z "$text" ]; then
			echo "no deb entry in /etc/apt to copy as deb-src" >&2
			return 1
		fi
		if [ "$(cat "$DEBSRC_FILE" 2>/dev/null)" != "$text" ] || ! have_deb_src; then
			printf '%s\n' "$text" > "$DEBSRC_FILE.tmp" &&
				mv "$DEBSRC_FILE.tmp" "$DEBSRC_FILE" || return 1
			apt-get -o DPkg::Lock::Timeout=600 update -q >/dev/null || return 1
		fi
	fi
	have_deb_src
}
