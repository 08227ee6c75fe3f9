# table.awk -- one dataset's table for bench/run.sh, from the records the
# run wrote (one a line):
#   M CPUS                                     the CPUs available to the run
#   I DS ARCHIVES BYTES ENTRIES SYMLINKS [TWIN]   the dataset
#   C DS REF ENTRIES TOOL                      TOOL's tree equals REF's
#   R DS TOOL ROUND WALL CPU RSS_KIB TREE_KIB  one measured run; RSS_KIB
#                                              the largest process's peak,
#                                              TREE_KIB the process tree's
#   F DS LIB WALL CPU, B DS LIB WALL CPU       decode alone, the fastest
#   N DS TEXT ...                              a note on the dataset
# Variables: ds, tools (the row order), xzmem (pfextract-mem's
# --max-memory), targets (a file that gets one "DS WHAT ok|MISS" line per
# target).
#
# Issue 21's targets.  pfextract's wall time against a peer's: .tar.zst
# <= 0.45x bsdtar; .tar.xz, .tar.gz, .zip and node_modules <= 0.5x
# bsdtar; .tar <= 0.7x GNU tar, and <= 1.0x GNU tar on one CPU (taskset
# or a cgroup quota); every other set <= 1.0x the faster of GNU tar and
# bsdtar.  pfextract's peak RSS (of its process tree) <= 64 MiB, and <=
# 192 MiB on the multi-block linux.tar.xz, at its default budget.  A
# compressed set within its efficiency bound: 1.2 x max(decode alone on
# every CPU, (decode CPU + pfextract's CPU on the plain twin) / CPUs).  A
# ratio is the median over the rounds of pfextract's time / the tool's
# time in the same round.

# The slack of the efficiency bound.
BEGIN { SLACK = 1.2 }

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

# Median over the rounds of tool A's wall time / tool B's.
function ratio2(a, b,    x, r) {
	for (r = 1; r <= rounds[ds, b]; r++)
		x[r] = wall[ds, a, r] / wall[ds, b, r]
	return median(x, rounds[ds, b])
}

# Median over the rounds of pfextract's wall time / TOOL's.
function ratio(tool) {
	return ratio2("pfextract", tool)
}

# "ok" or "MISS" for VALUE <= LIMIT, also recorded as target WHAT.
function mark(what, value, limit,    m) {
	m = (value <= limit ? "ok" : "MISS")
	print ds, what, m >> targets
	return m
}

function label(tool) {
	if (tool == "tar")
		return "GNU tar"
	if (tool == "pfextract-mem")
		return "pfx " xzmem
	return tool
}

# The peer target of dataset D: sets peer (a tool, or "fast" for the
# faster of GNU tar and bsdtar) and limit.
function peer_target(d) {
	peer = "bsdtar"
	limit = 0.5
	if (d == "linux.tar") {
		peer = "tar"
		limit = 0.7
	} else if (d ~ /^linux\.tar@/) {
		peer = "tar"
		limit = 1.0
	} else if (d == "linux.tar.zst") {
		limit = 0.45
	} else if (d !~ /^(linux\.tar\.(gz|xz)|linux\.zip|node_modules)$/) {
		peer = "fast"
		limit = 1.0
	}
}

$1 == "M" { cpus = $2 }
$1 == "I" && $2 == ds {
	narch = $3; bytes = $4; entries = $5; links = $6; twin = $7
}
$1 == "C" && $2 == ds {
	ref = $3
	same = same (same == "" ? "" : " and ") label($5) "'s tree"
}
$1 == "R" {
	wall[$2, $3, $4] = $5
	cpu[$2, $3, $4] = $6
	if ($7 > proc[$2, $3])
		proc[$2, $3] = $7
	if ($8 > rss[$2, $3])
		rss[$2, $3] = $8
	if ($4 > rounds[$2, $3])
		rounds[$2, $3] = $4
}
$1 == "F" && $2 == ds {
	nlib++
	lib[nlib] = $3
	libwall[nlib] = $4
	libcpu[nlib] = $5
}
$1 == "B" && $2 == ds { best = $3; bestwall = $4; bestcpu = $5 }
$1 == "N" && $2 == ds {
	$1 = $2 = ""
	sub(/^ +/, "")
	note = note "  note: " $0 "\n"
}

# The target column of TOOL's row.
function target_of(t) {
	if (t == "pfextract") {
		rlimit = (ds == "linux.tar.xz" ? 192 : 64)
		return sprintf("RSS <= %d MiB: %s", rlimit,
		    mark("rss", rss[ds, t] / 1024, rlimit))
	}
	if (t == "pfextract-mem")
		return "(--max-memory=" xzmem ")"
	if (t == peer)
		return sprintf("<= %.2fx: %s", limit,
		    mark("vs-" t, ratio(t), limit))
	return ""
}

# The bound's row and the two lines that say what it is made of.
function bound_rows(    plain, b, r, libs, i) {
	if (rounds[twin, "pfextract"] == 0) {
		printf "  bound: no run of pfextract on %s to make it of\n", twin
		return
	}
	plain = med(twin, "pfextract", "cpu")
	b = (bestcpu + plain) / cpus
	b = SLACK * (bestwall > b ? bestwall : b)
	r = med(ds, "pfextract") / b
	printf "  %-12s %8.3f %8s %8s %8s %8.2fx  <= 1.00x: %s\n", "bound", b,
	    "-", "-", "-", r, mark("bound", r, 1.0)
	printf "  bound = %.1f x max(decode alone %.3f s, (its CPU %.3f s" \
	    " + pfextract's CPU %.3f s on %s) / %d CPUs)\n", SLACK, bestwall,
	    bestcpu, plain, twin, cpus
	libs = ""
	for (i = 1; i <= nlib; i++)
		libs = libs sprintf("%s%s %.3f s (CPU %.3f s)",
		    (i > 1 ? ", " : ""), lib[i], libwall[i], libcpu[i])
	printf "  decode alone on %d CPUs: %s\n", cpus, libs
}

END {
	n = split(tools, tool, " ")
	peer_target(ds)
	# The faster of GNU tar and bsdtar, where the target names it.
	if (peer == "fast") {
		peer = ""
		for (i = 1; i <= n; i++) {
			t = tool[i]
			if (t != "tar" && t != "bsdtar")
				continue
			if (peer == "" || med(ds, t) < med(ds, peer))
				peer = t
		}
	}

	printf "%s: %d archive%s, %.1f MB, %d entries%s; rounds: %d\n", ds,
	    narch, (narch == 1 ? "" : "s"), bytes / 1e6, entries,
	    (links == "yes" ? " with symlinks (--symlinks=contain)" : ""),
	    rounds[ds, "pfextract"]
	printf "  %-12s %8s %8s %8s %8s %9s  %s\n", "tool", "wall s", "cpu s",
	    "RSS MiB", "proc MiB", "pfx/tool", "target"
	for (i = 1; i <= n; i++) {
		t = tool[i]
		printf "  %-12s %8.3f %8.3f %8.1f %8.1f %9s  %s\n", label(t),
		    med(ds, t), med(ds, t, "cpu"), rss[ds, t] / 1024,
		    proc[ds, t] / 1024,
		    (t ~ /^pfextract/ ? "-" : sprintf("%.2fx", ratio(t))),
		    target_of(t)
	}
	if (best != "")
		bound_rows()
	for (i = 1; i <= n; i++)
		if (tool[i] == "pfextract-mem")
			printf "  pfx %s: pfextract --max-memory=%s, %.2fx " \
			    "bsdtar's time, %.2fx its own at the default " \
			    "budget\n", xzmem, xzmem,
			    ratio2("pfextract-mem", "bsdtar"),
			    ratio2("pfextract-mem", "pfextract")
	if (ds ~ /@/)
		printf "  CPU time: pfextract %.3f s, GNU tar %.3f s (%.2fx)\n",
		    med(ds, "pfextract", "cpu"), med(ds, "tar", "cpu"),
		    med(ds, "pfextract", "cpu") / med(ds, "tar", "cpu")
	if (ref != "")
		printf "  output: %s identical to %s's\n", same, label(ref)
	printf "%s", note
	print ""
}
