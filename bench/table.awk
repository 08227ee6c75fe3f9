# table.awk -- one dataset's table for bench/run.sh, from the records the
# run wrote (one a line):
#   I DS ARCHIVES BYTES ENTRIES SYMLINKS [TWIN]   the dataset
#   C DS REF ENTRIES                           pfextract's tree equals REF's
#   R DS TOOL ROUND WALL CPU RSS_KIB           one measured run
#   F DS LIB SECONDS, B DS LIB SECONDS         decode alone, the best
#   N DS TEXT ...                              a note on the dataset
# Variables: ds, tools (the row order), targets (a file that gets one
# "DS WHAT ok|MISS" line per target).
#
# Issue 6's targets: the compressed linux sets, pfextract <= 0.5x bsdtar's
# wall time and <= 1.25x the floor; every other set, <= 1.0x the faster of
# GNU tar and bsdtar; everywhere, pfextract's peak RSS <= 64 MiB.  A ratio
# is the median over the rounds of pfextract's time / the tool's time in
# the same round.

# The median of the N values A[1..N] (A is left alone).
function median(a, n,    b, i, j, v) {
	for (i = 1; i <= n; i++)
		b[i] = a[i]
	for (i = 2; i <= n; i++) {
		v = b[i]
		for (j = i - 1; j >= 1 && b[j] > v; j--)
			b[j + 1] = b[j]
		b[j + 1] = v
	}
	if (n % 2 == 1)
		return b[(n + 1) / 2]
	return (b[n / 2] + b[n / 2 + 1]) / 2
}

# Median wall (or CPU when WHICH is "cpu") of TOOL on dataset D.
function med(d, tool, which,    a, r) {
	for (r = 1; r <= rounds[d, tool]; r++)
		a[r] = (which == "cpu" ? cpu[d, tool, r] : wall[d, tool, r])
	return median(a, rounds[d, tool])
}

# Median over the rounds of pfextract's wall time / TOOL's.
function ratio(tool,    a, r) {
	for (r = 1; r <= rounds[ds, tool]; r++)
		a[r] = wall[ds, "pfextract", r] / wall[ds, tool, r]
	return median(a, rounds[ds, tool])
}

# "ok" or "MISS" for VALUE <= LIMIT, also recorded as target WHAT.
function mark(what, value, limit,    m) {
	m = (value <= limit ? "ok" : "MISS")
	print ds, what, m >> targets
	return m
}

function label(tool) {
	return tool == "tar" ? "GNU tar" : tool
}

$1 == "I" && $2 == ds {
	narch = $3; bytes = $4; entries = $5; links = $6; twin = $7
}
$1 == "C" && $2 == ds { ref = $3 }
$1 == "R" {
	wall[$2, $3, $4] = $5
	cpu[$2, $3, $4] = $6
	if ($7 > rss[$2, $3])
		rss[$2, $3] = $7
	if ($4 > rounds[$2, $3])
		rounds[$2, $3] = $4
}
$1 == "F" && $2 == ds { nlib++; lib[nlib] = $3; libsec[nlib] = $4 }
$1 == "B" && $2 == ds { best = $3; bestsec = $4 }
$1 == "N" && $2 == ds {
	$1 = $2 = ""
	sub(/^ +/, "")
	note = note "  note: " $0 "\n"
}

END {
	n = split(tools, tool, " ")
	linuxz = (ds ~ /^linux\.tar\.(gz|xz|zst)$/)
	# The faster of GNU tar and bsdtar, the one the target names.
	fast = ""
	for (i = 1; i <= n; i++)
		if (tool[i] == "tar" || tool[i] == "bsdtar")
			if (fast == "" || med(ds, tool[i]) < med(ds, fast))
				fast = tool[i]

	printf "%s: %d archive%s, %.1f MB, %d entries%s; rounds: %d\n", ds,
	    narch, (narch == 1 ? "" : "s"), bytes / 1e6, entries,
	    (links == "yes" ? " with symlinks (--symlinks=contain)" : ""),
	    rounds[ds, "pfextract"]
	printf "  %-10s %8s %8s %8s %9s  %s\n", "tool", "wall s", "cpu s",
	    "RSS MiB", "pfx/tool", "target"
	for (i = 1; i <= n; i++) {
		t = tool[i]
		target = ""
		if (t == "pfextract")
			target = "RSS <= 64 MiB: " \
			    mark("rss", rss[ds, t] / 1024, 64)
		else if (linuxz && t == "bsdtar")
			target = "<= 0.50x: " mark("vs-bsdtar", ratio(t), 0.5)
		else if (!linuxz && t == fast)
			target = "<= 1.00x (faster peer): " \
			    mark("vs-" t, ratio(t), 1.0)
		printf "  %-10s %8.3f %8.3f %8.1f %9s  %s\n", label(t),
		    med(ds, t), med(ds, t, "cpu"), rss[ds, t] / 1024,
		    (t == "pfextract" ? "-" : sprintf("%.2fx", ratio(t))),
		    target
	}
	if (best != "") {
		write = (rounds[twin, "tar"] > 0 ? med(twin, "tar") : 0)
		fl = (bestsec > write ? bestsec : write)
		r = med(ds, "pfextract") / fl
		target = (linuxz ? "<= 1.25x: " mark("vs-floor", r, 1.25) : \
		    "(not a target)")
		printf "  %-10s %8.3f %8s %8s %8.2fx  %s\n", "floor", fl, "-",
		    "-", r, target
		libs = ""
		for (i = 1; i <= nlib; i++)
			libs = libs sprintf("%s%s %.3f s", (i > 1 ? ", " : ""),
			    lib[i], libsec[i])
		printf "  floor = max(decode %.3f s (%s), write %.3f s " \
		    "(GNU tar on %s))\n", bestsec, libs, write, twin
	}
	if (ref != "")
		printf "  output: identical to %s's\n", label(ref)
	printf "%s", note
	print ""
}
