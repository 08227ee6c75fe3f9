#!/bin/sh
# dos.sh -- `make dos`: the hostile resource archives of the review, each
# at N and 4N (and at the review's full size where that is larger), run
# through pfextract at its defaults, in one table of N against CPU and peak
# RSS, so that the claims of the cost model can be read off it.  Run from
# the top of the tree, after
# `make obj/pfextract obj/bench/measure obj/bench/dosgen`.
#
# Mechanisms (obj/bench/dosgen writes their archives; see bench/dosgen.c):
#   chain       N symlinks l0 -> l1 -> ... -> f, --symlinks=contain
#   links       N symlinks with 3.9 KB names, --symlinks=contain
#   paths       N empty files with 3.9 KB names
#   exclude     one name of N "a/" and "x.c", listed with --exclude='*.o'
#   skipdecode  N MiB of zeros in a .tar.zst, skipped with --exclude=zeros
#   hash        N empty files with random names
#   empty       N empty files
#   sparse      a sparse file of N GiB holding 8 KiB of data
#   small       N files of 8 bytes in 1000 directories, .tar.xz: an
#               ordinary archive, which must extract whole (exit 0)
#
# The archives are cached in $DOS_DIR/arc as MECHANISM-N.EXT and made
# again when obj/bench/dosgen is newer (each written under a temporary
# name and renamed).  Every run is into a fresh destination, removed
# afterwards, and timed by obj/bench/measure under `timeout 300`: CPU is
# user + sys of pfextract and its decoder process, peak RSS the larger of
# theirs.
#
# Environment: DOS_DIR (/dev/shm/pfx-dos), DOS_ONLY (a comma list of
# mechanisms), PFEXTRACT (obj/pfextract).
#
# Output: the table, also written to obj/bench/dos.txt.  Exit status 1
# when a run crashed (status 128 or more) or passed the wall cap (status
# 124, from timeout), else 0: a limit stopping a run is what is measured,
# not a failure.
set -eu
# No globbing: the options hold patterns (--exclude=*.o).
set -f

ME=dos
. bench/lib.sh

DIR=$(abs "${DOS_DIR:-/dev/shm/pfx-dos}")
ONLY=${DOS_ONLY:-}
PFX=$(abs "${PFEXTRACT:-obj/pfextract}")
MEASURE=$top/obj/bench/measure
GEN=$top/obj/bench/dosgen
RESULTS=$top/obj/bench/dos.txt
ARC=$DIR/arc
RUN=$DIR/run
# The wall cap of one run, in seconds.
CAP=300

# Lists of paths are split on white space below.
for p in "$DIR" "$PFX" "$top"; do
	case $p in
	*[[:space:]]*) fail "white space in a path: '$p'" ;;
	esac
done
for f in "$PFX" "$MEASURE" "$GEN"; do
	[ -x "$f" ] || fail "$f is missing (make dos builds it)"
done
command -v timeout >/dev/null 2>&1 || fail "timeout (coreutils) is missing"

# The runs, in order: "MECHANISM N EXT OPTION...".  The first row of a
# mechanism is its N; the others are compared with it.  The review's full
# sizes: chain 400, links 100000, paths 50000, exclude 100000, skipdecode
# 20 GiB, hash 262144, empty 100001, sparse 8 GiB.
CASES='
chain 100 tar.gz --symlinks=contain
chain 400 tar.gz --symlinks=contain
links 25000 tar.gz --symlinks=contain
links 100000 tar.gz --symlinks=contain
paths 12500 tar.gz
paths 50000 tar.gz
exclude 25000 tar.gz -t --exclude=*.o
exclude 100000 tar.gz -t --exclude=*.o
skipdecode 256 tar.zst --exclude=zeros
skipdecode 1024 tar.zst --exclude=zeros
skipdecode 20480 tar.zst --exclude=zeros
hash 65536 tar.gz
hash 262144 tar.gz
empty 25000 tar.gz
empty 100000 tar.gz
sparse 2 tar.gz
sparse 8 tar.gz
small 250000 tar.xz
small 1000000 tar.xz
'

# Whether mechanism $1 is selected.
selected() {
	[ -z "$ONLY" ] && return 0
	for want in $(echo "$ONLY" | tr ',' ' '); do
		[ "$want" = "$1" ] && return 0
	done
	return 1
}

for want in $(echo "$ONLY" | tr ',' ' '); do
	echo "$CASES" | awk -v m="$want" '$1 == m { f = 1 } END { exit !f }' ||
	    fail "DOS_ONLY: unknown mechanism '$want'"
done

# The archive of mechanism $1 at $2 (extension $3), made unless cached.
# Prints its path.
archive() {
	a=$ARC/$1-$2.$3
	if [ ! -f "$a" ] || [ -n "$(find "$GEN" -newer "$a")" ]; then
		say "making $1-$2.$3"
		"$GEN" "$1" "$2" "$a.tmp" || fail "dosgen $1 $2"
		mv "$a.tmp" "$a"
	fi
	echo "$a"
}

# Run case "$@" (MECHANISM N EXT OPTION...) once; append
# "MECHANISM N BYTES STATUS LIMIT CPU RSS WALL" to $RUN/raw, and the first
# message of a run that failed without naming a limit to $RUN/notes.
run_case() {
	mech=$1
	n=$2
	a=$(archive "$1" "$2" "$3")
	shift 3
	bytes=$(stat -c %s "$a")
	rm -rf "${RUN:?}/out"
	mkdir "$RUN/out"
	case " $* " in
	*" -t "*) set -- "$PFX" -f "$a" "$@" ;;
	*) set -- "$PFX" -x -f "$a" -C "$RUN/out" "$@" ;;
	esac
	say "$mech $n: $*"
	"$MEASURE" -n timeout -k 10 "$CAP" "$@" >"$RUN/line" 2>"$RUN/err" ||
	    true
	rm -rf "${RUN:?}/out"
	grep -q '^wall ' "$RUN/line" || {
		cat "$RUN/err" >&2
		fail "obj/bench/measure failed on $mech $n"
	}
	limit=$(grep -o 'limit max-[a-z]*=[^ :]*' "$RUN/err" | head -n 1 |
	    sed 's/^limit //')
	awk -v m="$mech" -v n="$n" -v b="$bytes" -v l="${limit:--}" \
	    '{ print m, n, b, $12, l, $4, $10, $2 }' "$RUN/line" >>"$RUN/raw"
	status=$(awk '{ print $12 }' "$RUN/line")
	if [ "$status" != 0 ] && [ -z "$limit" ]; then
		printf '%s %s: status %s, %s message(s), the first: %s\n' \
		    "$mech" "$n" "$status" "$(wc -l <"$RUN/err")" \
		    "$(head -n 1 "$RUN/err" | awk '{ n = length($0)
			if (n > 120) $0 = "..." substr($0, n - 116); print }')" \
		    >>"$RUN/notes"
	fi
}

header() {
	cpu=$(awk -F ': *' '/^model name/ { print $2; exit }' /proc/cpuinfo)
	mem=$(awk '/^MemTotal:/ { printf "%.1f GiB", $2 / 1048576 }' \
	    /proc/meminfo)
	rev=$(git -C "$top" describe --always --dirty 2>/dev/null || echo "?")
	echo "pfextract dos, $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "machine: ${cpu:-?}, $(getconf _NPROCESSORS_ONLN) CPUs, $mem," \
	    "$(uname -sr); output on $(stat -f -c %T "$DIR") ($DIR)"
	echo "pfextract: $PFX (tree $rev), default options and sandbox," \
	    "one run each; load average at the start:" \
	    "$(cut -d' ' -f1-3 /proc/loadavg)"
	echo
}

# The table from $RUN/raw.  The last column compares a row with the first
# row of its mechanism: CPU and RSS ratios, and the factor of N when it is
# not 4.
table() {
	awk '
	function row(m, n, b, st, l, cpu, rss, wall, vs) {
		printf "%-10s %9s %11s %6s %-15s %7s %9s %7s  %s\n",
		    m, n, b, st, l, cpu, rss, wall, vs
	}
	BEGIN {
		row("mechanism", "N", "input B", "status", "limit", "CPU s",
		    "RSS KiB", "wall s", "4N/N: CPU RSS")
	}
	{
		vs = ""
		if (!($1 in n0)) {
			n0[$1] = $2; c0[$1] = $6; r0[$1] = $7
		} else {
			f = $2 / n0[$1]
			cr = c0[$1] > 0 ? sprintf("%.2f", $6 / c0[$1]) : "-"
			vs = sprintf("%s %.2f", cr, $7 / r0[$1])
			if (f != 4)
				vs = vs sprintf(" (%gN)", f)
		}
		row($1, $2, $3, $4, $5, sprintf("%.2f", $6), $7,
		    sprintf("%.2f", $8), vs)
	}' "$RUN/raw"
}

# How far the ordinary archives (small) are from the limits.
headroom() {
	awk '$1 == "small" {
		e = $2 + 1000
		how = $4 == 0 ? "extracted whole" : "FAILED: status " $4
		printf "small %s: %d entries, %.1f%% of --max-entries" \
		    " 4000000; peak RSS %d KiB, %.1f%% of --max-memory 1G" \
		    " (%s)\n", $2, e, 100 * e / 4000000, $7,
		    100 * $7 / 1048576, how
	}' "$RUN/raw"
}

mkdir -p "$ARC" "$(dirname "$RESULTS")"
rm -rf "$RUN"
mkdir -p "$RUN"
trap 'rm -rf "${RUN:?}"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
: >"$RUN/raw"
: >"$RUN/notes"
echo "$CASES" | while read -r mech n ext opts; do
	[ -n "$mech" ] || continue
	selected "$mech" || continue
	# shellcheck disable=SC2086 # the options hold no white space
	run_case "$mech" "$n" "$ext" $opts </dev/null
done
[ -s "$RUN/raw" ] || fail "no run was recorded"
{
	header
	table
	echo
	headroom
	[ -s "$RUN/notes" ] && cat "$RUN/notes"
	echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee "$RUN/results"
cp "$RUN/results" "$RESULTS.tmp"
mv "$RESULTS.tmp" "$RESULTS"
say "table written to obj/bench/dos.txt"
bad=$(awk '$4 == 124 || $4 >= 128 { printf " %s-%s(status %s)", $1, $2, $4 }' \
    "$RUN/raw")
[ -z "$bad" ] || fail "crashed or passed ${CAP} s:$bad"
exit 0
