#!/bin/sh
# run.sh -- `make bench` (issues 6 and 21): pfextract against GNU tar and
# bsdtar on real data, side by side.  Run from the top of the tree, after
# `make obj/pfextract obj/bench/measure obj/bench/floor`.
#
# Datasets, built once into $BENCH_DATA and re-used (each written under a
# temporary name and renamed, so it is there whole or not at all):
#   linux.tar.xz   /usr/src/linux-source-6.1.tar.xz from Debian's
#                  linux-source-6.1 package, as shipped (multi-block)
#   linux.tar, linux.tar.gz (gzip -6), linux.tar.zst (zstd -3),
#   linux.zip      (zip -r, deflate): the same tree re-packed
#   npm            the package tarballs of bench/npm-packages.txt (npm pack)
#   node_modules   bench/node_modules/ installed (npm ci --ignore-scripts),
#                  as a .tar.gz
#   huge.tar, huge.tar.zst  four 512 MiB files of AES-CTR keystream
# and two variants of linux.tar, the same archive under other conditions:
#   linux.tar@1cpu   every tool on one CPU (taskset -c, the first CPU of
#                    this run's affinity)
#   linux.tar@quota  every tool in a cgroup of its own with a quota of one
#                    CPU (cgroup v2 cpu.max or v1 cpu.cfs_quota_us), on all
#                    the CPUs; skipped, and said so, where no cgroup with a
#                    cpu controller can be made
# linux.tar.xz also runs pfextract at a smaller memory budget
# (--max-memory=$BENCH_XZ_MEM), as a fourth tool of its rounds.
#
# For each dataset: one untimed warm-up run of every tool, after which
# pfextract's tree is compared with GNU tar's (bsdtar's for the zip); then
# BENCH_ROUNDS rounds, each running the tools in turn (pfextract, GNU
# tar, bsdtar), every run into a fresh destination under $BENCH_DIR that
# is removed afterwards, untimed.  obj/bench/measure times each run (wall,
# CPU of all descendants, the peak RSS of the largest process and of the
# process tree).  A multi-archive set (npm) is one measured run per
# archive, each into its own destination, summed.
#
# The efficiency bound of a compressed set (issue 21) is 1.2 x max(D,
# (DC + P) / CPUS): D and DC the wall and CPU time of decoding alone on
# every CPU the format allows (obj/bench/floor, the library with the least
# wall time), P the median CPU time of pfextract on the plain twin of the
# set (linux.tar for the Linux sets) in this run, CPUS the CPUs available
# to the run (its affinity, as nproc counts them).
#
# Environment: BENCH_DATA (obj/bench/data), BENCH_DIR (/dev/shm/pfx-bench),
# BENCH_ROUNDS (3), BENCH_ONLY (a comma list of datasets, or linux / huge
# for all of theirs), BENCH_XZ_MEM (64M), PFEXTRACT (obj/pfextract).
#
# Output: one table per dataset, also written to obj/bench/results.txt,
# then a summary line.  A tool that exits nonzero, or a tree that differs,
# fails the bench (exit 1); a missed target does not (exit 0).
set -eu

ME=bench
. bench/lib.sh

DATA=$(abs "${BENCH_DATA:-obj/bench/data}")
DIR=$(abs "${BENCH_DIR:-/dev/shm/pfx-bench}")
ROUNDS=${BENCH_ROUNDS:-3}
ONLY=${BENCH_ONLY:-}
XZ_MEM=${BENCH_XZ_MEM:-64M}
PFX=$(abs "${PFEXTRACT:-obj/pfextract}")
MEASURE=$top/obj/bench/measure
FLOOR=$top/obj/bench/floor
BENCH=$top/bench
RESULTS=$top/obj/bench/results.txt
RUN=$DIR/run

ALL="linux.tar linux.tar@1cpu linux.tar@quota linux.tar.gz linux.tar.xz"
ALL="$ALL linux.tar.zst linux.zip npm node_modules huge.tar huge.tar.zst"

# The CPUs this run may use: its affinity (a cgroup quota is not counted).
CPUS=$(nproc)
# The one CPU of linux.tar@1cpu: the first of the affinity list ("0-3,8").
ONE_CPU=$(taskset -cp $$ | sed 's/.*: *//; s/[-,].*//')
# The cgroup of linux.tar@quota (made below), or empty.
QUOTA_CG=""

# The linux-source package and the member that holds the tree.
DEB_PKG=linux-source-6.1
DEB_MEMBER=./usr/src/linux-source-6.1.tar.xz
# The huge set: HUGE_FILES files of HUGE_BYTES each.
HUGE_FILES=4
HUGE_BYTES=536870912

# Lists of paths are split on white space below.
for p in "$DATA" "$DIR" "$PFX" "$top"; do
	case $p in
	*[[:space:]]*) fail "white space in a path: '$p'" ;;
	esac
done
case $ROUNDS in
'' | *[!0-9]* | 0) fail "BENCH_ROUNDS must be a positive integer" ;;
esac
case $XZ_MEM in
[1-9]*[KMG] | [1-9]*) ;;
*) fail "BENCH_XZ_MEM must be a size such as 64M" ;;
esac
[ "$ROUNDS" -le 99 ] || fail "BENCH_ROUNDS must be at most 99"
for f in "$PFX" "$MEASURE" "$FLOOR"; do
	[ -x "$f" ] || fail "$f is missing (make bench builds it)"
done

# --- Which datasets ---------------------------------------------------

# Print the selected datasets, in the order of $ALL.
selected() {
	for ds in $ALL; do
		if [ -z "$ONLY" ]; then
			echo "$ds"
			continue
		fi
		for want in $(echo "$ONLY" | tr ',' ' '); do
			if [ "$want" = "$ds" ] ||
			    [ "$want" = "${ds%%.*}" ]; then
				echo "$ds"
				break
			fi
		done
	done
}

for want in $(echo "$ONLY" | tr ',' ' '); do
	ok=no
	for ds in $ALL; do
		if [ "$want" = "$ds" ] || [ "$want" = "${ds%%.*}" ]; then
			ok=yes
		fi
	done
	[ $ok = yes ] ||
	    fail "BENCH_ONLY: unknown dataset '$want' (known: $ALL linux huge)"
done
DATASETS=$(selected)

# The tools the selected datasets need; say which are missing.
need_tools() {
	missing=""
	set -- tar bsdtar find diff awk sort xz gzip nproc taskset
	for ds in $DATASETS; do
		case $ds in
		linux.zip) set -- "$@" unzip zip ;;
		linux.*) set -- "$@" zstd dpkg-deb apt-get ;;
		npm | node_modules) set -- "$@" npm ;;
		huge.*) set -- "$@" openssl zstd ;;
		esac
	done
	for t in "$@"; do
		command -v "$t" >/dev/null 2>&1 || missing="$missing $t"
	done
	[ -z "$missing" ] && return 0
	fail "missing tools:$missing (Debian: apt-get install unzip zip" \
	    "npm openssl zstd xz-utils libarchive-tools)"
}

# --- Datasets, built once ---------------------------------------------

# Make $1, a temporary directory, empty.
fresh() {
	rm -rf "$1"
	mkdir -p "$1"
}

# The linux-source .deb: one already in $DATA (it may be seeded by hand),
# or downloaded by apt-get.  Prints its path.
linux_deb() {
	for deb in "$DATA/$DEB_PKG"_*_all.deb; do
		[ -f "$deb" ] && { echo "$deb"; return 0; }
	done
	t=$DATA/.deb.tmp
	fresh "$t"
	say "downloading $DEB_PKG (apt-get download)"
	(cd "$t" && apt-get download "$DEB_PKG" >&2) ||
	    fail "apt-get download $DEB_PKG (is the package list current?" \
		"apt-get update)"
	for deb in "$t/$DEB_PKG"_*_all.deb; do
		[ -f "$deb" ] || fail "apt-get download left no .deb"
		mv "$deb" "$DATA/"
		rmdir "$t"
		echo "$DATA/${deb##*/}"
		return 0
	done
}

build_linux_xz() {
	deb=$(linux_deb)
	say "building linux.tar.xz from ${deb##*/}"
	dpkg-deb --fsys-tarfile "$deb" | tar -xOf - "$DEB_MEMBER" \
	    >"$DATA/.linux.tar.xz.tmp"
	# The pipe hides dpkg-deb's status: the index proves the file whole.
	xz -l "$DATA/.linux.tar.xz.tmp" >/dev/null ||
	    fail "$DEB_MEMBER from $deb is damaged"
	mv "$DATA/.linux.tar.xz.tmp" "$DATA/linux.tar.xz"
}

build_linux_tar() {
	say "building linux.tar"
	xz -T0 -dc "$DATA/linux.tar.xz" >"$DATA/.linux.tar.tmp"
	mv "$DATA/.linux.tar.tmp" "$DATA/linux.tar"
}

build_linux_gz() {
	say "building linux.tar.gz (gzip -6)"
	gzip -6 -n -c "$DATA/linux.tar" >"$DATA/.linux.tar.gz.tmp"
	mv "$DATA/.linux.tar.gz.tmp" "$DATA/linux.tar.gz"
}

build_linux_zst() {
	say "building linux.tar.zst (zstd -3 -T0)"
	zstd -q -3 -T0 -c "$DATA/linux.tar" >"$DATA/.linux.tar.zst.tmp"
	mv "$DATA/.linux.tar.zst.tmp" "$DATA/linux.tar.zst"
}

# Names that are reserved devices on Windows (aux.c, nul, com1.txt ...):
# pfextract refuses them in zip archives, by design (reason reserved_name),
# so the zip set leaves them out; the Linux tree has three (aux.c, aux.h).
ZIP_LEFT_OUT='.*/(con|prn|aux|nul|com[0-9]|lpt[0-9])(\.[^/]*)?'

# zip from inside the unpacked tree, so that names are relative.  The
# temporary name keeps an extension (.tmp) so that zip adds no .zip.
build_linux_zip() {
	say "building linux.zip (zip -qry, deflate)"
	src=$RUN/zipsrc
	fresh "$src"
	tar -xf "$DATA/linux.tar" -C "$src"
	find "$src" -regextype posix-extended -iregex "$ZIP_LEFT_OUT" \
	    -print >"$RUN/left-out"
	xargs rm -rf <"$RUN/left-out"
	say "linux.zip: left out (reserved Windows names):" \
	    "$(sed "s|^$src/||" "$RUN/left-out" | tr '\n' ' ')"
	rm -f "$DATA/.linux.zip.tmp"
	(cd "$src" && zip -qry -b "$DATA" "$DATA/.linux.zip.tmp" .)
	rm -rf "$src"
	mv "$DATA/.linux.zip.tmp" "$DATA/linux.zip"
}

# The package specs of bench/npm-packages.txt.
npm_specs() {
	grep -v -e '^#' -e '^[[:space:]]*$' "$BENCH/npm-packages.txt"
}

build_npm() {
	say "building npm (npm pack of $(npm_specs | wc -l) packages)"
	t=$DATA/.npm.tmp
	fresh "$t"
	npm_specs | (cd "$t" && xargs npm pack --silent --ignore-scripts \
	    --pack-destination "$t" >/dev/null) || fail "npm pack"
	n=$(find "$t" -name '*.tgz' | wc -l)
	[ "$n" -eq "$(npm_specs | wc -l)" ] ||
	    fail "npm pack made $n tarballs for $(npm_specs | wc -l) specs"
	mv "$t" "$DATA/npm"
}

# The plain twin of the npm set: each .tgz as a .tar.
build_npm_tar() {
	say "building npm-tar"
	t=$DATA/.npm-tar.tmp
	fresh "$t"
	for f in "$DATA"/npm/*.tgz; do
		b=${f##*/}
		gzip -dc "$f" >"$t/${b%.tgz}.tar"
	done
	mv "$t" "$DATA/npm-tar"
}

build_node_modules() {
	say "building node_modules.tar.gz (npm ci --ignore-scripts)"
	t=$RUN/nm
	fresh "$t"
	cp "$BENCH/node_modules/package.json" \
	    "$BENCH/node_modules/package-lock.json" "$t/"
	(cd "$t" && npm ci --ignore-scripts --no-audit --no-fund \
	    --loglevel=error >&2) || fail "npm ci in $t"
	tar -C "$t" --sort=name -czf "$DATA/.node_modules.tar.gz.tmp" \
	    node_modules
	rm -rf "$t"
	mv "$DATA/.node_modules.tar.gz.tmp" "$DATA/node_modules.tar.gz"
}

build_node_modules_tar() {
	say "building node_modules.tar"
	gzip -dc "$DATA/node_modules.tar.gz" >"$DATA/.node_modules.tar.tmp"
	mv "$DATA/.node_modules.tar.tmp" "$DATA/node_modules.tar"
}

# Deterministic, incompressible, not sparse: AES-128-CTR keystream, one
# key per file.
build_huge_tar() {
	say "building huge.tar ($HUGE_FILES x $HUGE_BYTES bytes)"
	src=$RUN/huge
	fresh "$src/huge"
	i=1
	while [ "$i" -le "$HUGE_FILES" ]; do
		head -c "$HUGE_BYTES" /dev/zero |
		    openssl enc -aes-128-ctr -nosalt \
			-K "$(printf '%032x' "$i")" -iv "$(printf '%032x' 0)" \
			>"$src/huge/part$i.bin"
		[ "$(wc -c <"$src/huge/part$i.bin")" -eq "$HUGE_BYTES" ] ||
		    fail "openssl wrote a short part$i.bin"
		i=$((i + 1))
	done
	tar -C "$src" --sort=name --owner=0 --group=0 --numeric-owner \
	    --mtime=@1700000000 -cf "$DATA/.huge.tar.tmp" huge
	rm -rf "$src"
	mv "$DATA/.huge.tar.tmp" "$DATA/huge.tar"
}

build_huge_zst() {
	say "building huge.tar.zst (zstd -3 -T0)"
	zstd -q -3 -T0 -c "$DATA/huge.tar" >"$DATA/.huge.tar.zst.tmp"
	mv "$DATA/.huge.tar.zst.tmp" "$DATA/huge.tar.zst"
}

# Make sure data item $1 (a dataset or a plain twin) is in $DATA.
ensure() {
	case $1 in
	linux.tar.xz) [ -f "$DATA/$1" ] || build_linux_xz ;;
	linux.tar)
		ensure linux.tar.xz
		[ -f "$DATA/$1" ] || build_linux_tar
		;;
	linux.tar.gz | linux.tar.zst | linux.zip)
		ensure linux.tar
		if [ ! -f "$DATA/$1" ]; then
			case $1 in
			*.gz) build_linux_gz ;;
			*.zst) build_linux_zst ;;
			*) build_linux_zip ;;
			esac
		fi
		;;
	npm) [ -d "$DATA/npm" ] || build_npm ;;
	npm-tar)
		ensure npm
		[ -d "$DATA/npm-tar" ] || build_npm_tar
		;;
	node_modules)
		[ -f "$DATA/node_modules.tar.gz" ] || build_node_modules
		;;
	node_modules.tar)
		ensure node_modules
		[ -f "$DATA/$1" ] || build_node_modules_tar
		;;
	huge.tar) [ -f "$DATA/$1" ] || build_huge_tar ;;
	huge.tar.zst)
		ensure huge.tar
		[ -f "$DATA/$1" ] || build_huge_zst
		;;
	*) fail "ensure: unknown data item $1" ;;
	esac
}

# The archives of data item $1, one a line.
archives() {
	case $1 in
	npm) ls "$DATA"/npm/*.tgz ;;
	npm-tar) ls "$DATA"/npm-tar/*.tar ;;
	node_modules) echo "$DATA/node_modules.tar.gz" ;;
	*) echo "$DATA/$1" ;;
	esac
}

# The data item of dataset $1: itself, or what its variant (@...) runs on.
base_of() {
	echo "${1%@*}"
}

# The plain twin of dataset $1, whose pfextract CPU time goes into the
# bound, or nothing: a plain set, or a variant, has no bound.  The zip's
# tree lacks three small files of linux.tar's (see build_linux_zip).
twin() {
	case $1 in
	linux.tar.gz | linux.tar.xz | linux.tar.zst | linux.zip)
		echo linux.tar
		;;
	npm) echo npm-tar ;;
	node_modules) echo node_modules.tar ;;
	huge.tar.zst) echo huge.tar ;;
	esac
}

# The tools of dataset $1, in the order of each round.  pfextract-mem is
# pfextract with --max-memory=$XZ_MEM.
tools_of() {
	case $1 in
	*.zip) echo pfextract bsdtar unzip ;;
	linux.tar.xz) echo pfextract pfextract-mem tar bsdtar ;;
	*) echo pfextract tar bsdtar ;;
	esac
}

# The tool whose tree pfextract's must equal.
reference_of() {
	case $1 in
	*.zip) echo bsdtar ;;
	*) echo tar ;;
	esac
}

# "ENTRIES SYMLINKS" of dataset $1 (yes/no), counted with bsdtar -tv and
# kept in $DATA/.meta-$1 until an archive of the set is newer.
meta() {
	m=$DATA/.meta-$1
	# shellcheck disable=SC2046 # paths hold no white space (checked)
	if [ ! -f "$m" ] ||
	    [ -n "$(find $(archives "$1") -newer "$m" | head -n 1)" ]; then
		say "$1: counting entries and symlinks (bsdtar -tv)"
		archives "$1" | while read -r a; do
			bsdtar -tvf "$a" || echo "LISTING-FAILED"
		done | awk '/^LISTING-FAILED$/ { bad = 1 }
		    /^l/ { links++ }
		    { n++ }
		    END { if (bad) exit 1
			print n, (links > 0 ? "yes" : "no") }' >"$m.tmp" ||
		    fail "bsdtar -tv failed on $1"
		mv "$m.tmp" "$m"
	fi
	cat "$m"
}

# --- Runs -------------------------------------------------------------

# Write $RUN/list.$2: "ARCHIVE<TAB>$RUN/$2/N" for each of $RUN/archives.
make_list() {
	awk -v root="$RUN/$2" '{ printf "%s\t%s/%d\n", $0, root, NR }' \
	    "$RUN/archives" >"$RUN/list.$2"
}

# A fresh, empty destination for each line of $RUN/list.$1.
make_dests() {
	rm -rf "${RUN:?}/$1"
	cut -f2 "$RUN/list.$1" | xargs mkdir -p
}

# Run tool $1 once over list $2 under measure; measure's line goes to
# $RUN/line.  The variant of dataset $CUR says where it runs: on one CPU
# (taskset), or in the cgroup of one CPU's quota (a shell that moves
# itself there, then becomes the tool).  Fails the bench when the tool
# exits nonzero.  (Never call it in a pipeline or $(...): a failure there
# would only end a subshell.)
run_tool() {
	tool=$1
	list=$2
	# shellcheck disable=SC2086 # PFX_OPTS is a list of options
	case $tool in
	pfextract) set -- "$PFX" -x -f '{a}' -C '{d}' $PFX_OPTS ;;
	pfextract-mem)
		set -- "$PFX" -x -f '{a}' -C '{d}' $PFX_OPTS \
		    --max-memory="$XZ_MEM"
		;;
	tar) set -- tar -xf '{a}' -C '{d}' ;;
	bsdtar) set -- bsdtar -xf '{a}' -C '{d}' ;;
	unzip) set -- unzip -q '{a}' -d '{d}' ;;
	esac
	case $CUR in
	*@1cpu) set -- taskset -c "$ONE_CPU" "$@" ;;
	*@quota)
		# shellcheck disable=SC2016 # $$ and $0 are the inner shell's
		set -- sh -c 'echo $$ >"$0" && exec "$@"' \
		    "$QUOTA_CG/cgroup.procs" "$@"
		;;
	esac
	"$MEASURE" -n -l "$RUN/list.$list" "$@" >"$RUN/line" || {
		fail "$tool failed on $CUR: $(cat "$RUN/line")"
	}
}

# The untimed warm-up of dataset $1: the reference tool first, then the
# others, each pfextract's tree checked against the reference's.
warm_up() {
	ref=$(reference_of "$1")
	make_list "$1" ref
	make_dests ref
	run_tool "$ref" ref
	for tool in $(tools_of "$1"); do
		[ "$tool" = "$ref" ] && continue
		make_list "$1" pfx
		make_dests pfx
		run_tool "$tool" pfx
		case $tool in
		pfextract*) compare_trees "$1" "$ref" "$tool" ;;
		esac
		rm -rf "${RUN:?}/pfx"
	done
	rm -rf "${RUN:?}/ref"
}

# Paths, types, modes and symlink targets under the destinations in tree
# $1 (its N/), one a line, sorted.  Modes are masked with $2 (three octal
# digits); a symlink's is left out.
listing() {
	(cd "$1" && find . -mindepth 2 -printf '%y\t%m\t%P\t%l\n') |
	    awk -F '\t' -v OFS='\t' -v mask="$2" '
	    # Octal digits D and M, bitwise and.
	    function and3(d, m,    r, b) {
		r = 0
		for (b = 4; b >= 1; b /= 2) {
			if (d >= b && m >= b)
				r += b
			if (d >= b)
				d -= b
			if (m >= b)
				m -= b
		}
		return r
	    }
	    {
		m = sprintf("%03d", $2 % 1000)
		$2 = and3(substr(m, 1, 1), substr(mask, 1, 1)) \
		    and3(substr(m, 2, 1), substr(mask, 2, 1)) \
		    and3(substr(m, 3, 1), substr(mask, 3, 1))
		if ($1 == "l")
			$2 = "-"
		print
	    }' | sort
}

# Fail unless the tree of $3 (a pfextract) equals the reference tool's
# ($2), for dataset $1: the listings, then every file's bytes.  pfextract clears
# group and other write by design (npm tarballs hold 0664 files), so the
# reference's modes are masked with 0755, pfextract's with 0777: any
# other difference in a mode shows.
compare_trees() {
	listing "$RUN/pfx" 777 >"$RUN/pfx.lst"
	listing "$RUN/ref" 755 >"$RUN/ref.lst"
	if ! diff "$RUN/ref.lst" "$RUN/pfx.lst" >"$RUN/lst.diff"; then
		head -n 20 "$RUN/lst.diff" >&2
		fail "$1: $3's tree is not $2's (< $2, > $3)"
	fi
	if ! diff -r -q --no-dereference "$RUN/ref" "$RUN/pfx" \
	    >"$RUN/data.diff"; then
		head -n 20 "$RUN/data.diff" >&2
		fail "$1: $3's files differ from $2's"
	fi
	echo "C $1 $2 $(wc -l <"$RUN/pfx.lst") $3" >>"$RUN/raw"
	say "$1: $3 identical to $2 ($(wc -l <"$RUN/pfx.lst") entries)"
}

# Record the run in $RUN/line as "R DATASET TOOL ROUND WALL CPU RSS_KIB
# TREE_KIB" in $RUN/raw: the peak RSS of the largest process, and of the
# process tree.
record() {
	awk -v ds="$1" -v t="$2" -v r="$3" \
	    '{ print "R", ds, t, r, $2, $4, $10, $16 }' "$RUN/line" \
	    >>"$RUN/raw"
}

# ROUNDS rounds of the tools on dataset $1, recorded.
rounds() {
	make_list "$1" out
	r=1
	while [ "$r" -le "$ROUNDS" ]; do
		for tool in $(tools_of "$1"); do
			make_dests out
			run_tool "$tool" out
			record "$1" "$tool" "$r"
			rm -rf "${RUN:?}/out"
		done
		say "$1: round $r of $ROUNDS done"
		r=$((r + 1))
	done
}

# pfextract's own work for dataset $1: pfextract on its plain twin,
# unless this run has timed that already (the twin is a dataset of the
# run, or the twin of another).  The options are the twin's own.
plain_alone() {
	tw=$(twin "$1")
	[ -n "$tw" ] || return 0
	grep -q "^R $tw pfextract " "$RUN/raw" && return 0
	ensure "$tw"
	say "$1: pfextract alone on its plain twin, $tw"
	m=$(meta "$tw")
	PFX_OPTS=""
	[ "${m#* }" = yes ] && PFX_OPTS="--symlinks=contain"
	archives "$tw" >"$RUN/archives"
	make_list "$tw" out
	make_dests out
	CUR=$tw
	run_tool pfextract out
	rm -rf "${RUN:?}/out"
	r=1
	while [ "$r" -le "$ROUNDS" ]; do
		make_dests out
		run_tool pfextract out
		record "$tw" pfextract "$r"
		rm -rf "${RUN:?}/out"
		r=$((r + 1))
	done
}

# Decode alone for dataset $1 (its archives in $RUN/archives), on every
# CPU the format allows: "F DATASET LIB WALL CPU" per library, "B DATASET
# LIB WALL CPU" the one with the least wall time.
decode_alone() {
	[ -n "$(twin "$1")" ] || return 0
	say "$1: decode alone on $CPUS CPUs (obj/bench/floor)"
	# shellcheck disable=SC2046 # paths hold no white space (checked)
	"$FLOOR" -j "$CPUS" -r "$ROUNDS" $(cat "$RUN/archives") \
	    >"$RUN/floor.out" || fail "obj/bench/floor failed on $1"
	awk -v ds="$1" '$1 == "best" { print "B", ds, $2, $3, $4; next }
	    $1 != "format" { print "F", ds, $1, $2, $3 }' "$RUN/floor.out" \
	    >>"$RUN/raw"
}

# Everything for dataset $1.
bench_one() {
	CUR=$1
	base=$(base_of "$1")
	if [ "$1" != "${1%@quota}" ] && [ -z "$QUOTA_CG" ]; then
		say "$1: skipped: $QUOTA_WHY"
		echo "$1: skipped: $QUOTA_WHY" | tee -a "$RUN/results"
		echo | tee -a "$RUN/results"
		return 0
	fi
	ensure "$base"
	m=$(meta "$base")
	entries=${m% *}
	links=${m#* }
	PFX_OPTS=""
	[ "$links" = yes ] && PFX_OPTS="--symlinks=contain"
	archives "$base" >"$RUN/archives"
	bytes=$(xargs stat -c %s <"$RUN/archives" |
	    awk '{ n += $1 } END { print n }')
	echo "I $1 $(wc -l <"$RUN/archives") $bytes $entries $links" \
	    "$(twin "$1")" >>"$RUN/raw"
	[ "$1" = linux.zip ] && echo "N $1 the files named aux.c and aux.h" \
	    "are left out: reserved Windows names, which pfextract refuses" \
	    "in zip archives" >>"$RUN/raw"
	case $1 in
	*@1cpu) echo "N $1 every tool runs on CPU $ONE_CPU alone" \
	    "(taskset -c $ONE_CPU)" >>"$RUN/raw" ;;
	*@quota) echo "N $1 every tool runs in a cgroup with a quota of" \
	    "one CPU ($QUOTA_HOW), on the $CPUS CPUs of the affinity" \
	    >>"$RUN/raw" ;;
	esac
	say "$1: warm-up and check"
	warm_up "$1"
	rounds "$1"
	decode_alone "$1"
	plain_alone "$1"
	report "$1" | tee -a "$RUN/results"
}

# --- The cgroup of linux.tar@quota ----------------------------------

# Make a cgroup with a quota of one CPU under this shell's own, in $1 (a
# cgroup v2 mount, or v1's cpu hierarchy); QUOTA_CG is its directory,
# QUOTA_HOW what limits it.  Return: 0, or 1 when it cannot be made.
quota_v2() {
	[ -f "$1/cgroup.controllers" ] || return 1
	rel=$(sed -n 's/^0:://p' /proc/self/cgroup)
	parent=$1${rel%/}
	grep -qw cpu "$parent/cgroup.subtree_control" 2>/dev/null ||
	    return 1
	cg=$parent/pfx-bench-$$
	mkdir "$cg" 2>/dev/null || return 1
	if ! echo "100000 100000" >"$cg/cpu.max" 2>/dev/null; then
		rmdir "$cg"
		return 1
	fi
	QUOTA_CG=$cg
	QUOTA_HOW="cgroup v2, cpu.max 100000 100000"
}

quota_v1() {
	[ -f "$1/cpu.cfs_quota_us" ] || return 1
	rel=$(sed -n 's/^[0-9]*:[^:]*\<cpu\>[^:]*://p' /proc/self/cgroup)
	cg=$1${rel%/}/pfx-bench-$$
	mkdir "$cg" 2>/dev/null || return 1
	if ! echo 100000 >"$cg/cpu.cfs_period_us" 2>/dev/null ||
	    ! echo 100000 >"$cg/cpu.cfs_quota_us" 2>/dev/null; then
		rmdir "$cg"
		return 1
	fi
	QUOTA_CG=$cg
	QUOTA_HOW="cgroup v1, cpu.cfs_quota_us = cpu.cfs_period_us = 100000"
}

# The cgroup for linux.tar@quota, if that dataset is selected: v2 where
# its cpu controller is enabled, else v1's cpu hierarchy.  QUOTA_WHY says
# why there is none.
make_quota_cgroup() {
	echo "$DATASETS" | grep -q '@quota$' || return 0
	QUOTA_WHY="no cgroup with a cpu controller could be made here"
	QUOTA_WHY="$QUOTA_WHY (neither a cgroup v2 mount with cpu in"
	QUOTA_WHY="$QUOTA_WHY cgroup.subtree_control nor a writable v1"
	QUOTA_WHY="$QUOTA_WHY /sys/fs/cgroup/cpu)"
	quota_v2 /sys/fs/cgroup || quota_v2 /sys/fs/cgroup/unified ||
	    quota_v1 /sys/fs/cgroup/cpu || quota_v1 /sys/fs/cgroup/cpu,cpuacct ||
	    return 0
	say "linux.tar@quota: cgroup $QUOTA_CG ($QUOTA_HOW)"
}

# Remove the cgroup, once no process is left in it.
drop_quota_cgroup() {
	[ -n "$QUOTA_CG" ] && rmdir "$QUOTA_CG" 2>/dev/null
	QUOTA_CG=""
}

# --- The table --------------------------------------------------------

# The table of dataset $1 from $RUN/raw; the targets also go to
# $RUN/targets as "DATASET WHAT ok|MISS".
report() {
	awk -v ds="$1" -v tools="$(tools_of "$1")" -v xzmem="$XZ_MEM" \
	    -v targets="$RUN/targets" -f "$BENCH/table.awk" "$RUN/raw"
}

header() {
	cpu=$(awk -F ': *' '/^model name/ { print $2; exit }' /proc/cpuinfo)
	mem=$(awk '/^MemTotal:/ { printf "%.1f GiB", $2 / 1048576 }' \
	    /proc/meminfo)
	rev=$(git -C "$top" describe --always --dirty 2>/dev/null || echo "?")
	unzip=""
	command -v unzip >/dev/null 2>&1 &&
	    unzip="; $(unzip -v | head -n 1 | cut -d' ' -f1-2)"
	echo "pfextract bench, $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "machine: ${cpu:-?}, $(getconf _NPROCESSORS_ONLN) CPUs online," \
	    "$CPUS available to this run (affinity), $mem, $(uname -sr);" \
	    "output on $(stat -f -c %T "$DIR") ($DIR)"
	# The tree's commit says which pfextract this is only if it was
	# built here.
	case $PFX in
	"$top"/*) from="tree $rev" ;;
	*) from="from outside the tree at $rev" ;;
	esac
	echo "pfextract: $PFX (sha256 $(sha256sum "$PFX" | cut -c1-12)," \
	    "$from); $(tar --version | head -n 1);" \
	    "$(bsdtar --version | cut -d' ' -f1-2)$unzip"
	echo "rounds: $ROUNDS after one warm-up, the tools in turn; times are" \
	    "medians; pfx/tool is the median of the per-round ratios; RSS is" \
	    "the largest over the rounds of the process tree's peak (its" \
	    "processes' resident sets added up, sampled every 10 ms), proc" \
	    "that of the largest single process; load average at the start:" \
	    "$(cut -d' ' -f1-3 /proc/loadavg)"
	echo
}

summary() {
	echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
	awk '{ n++ } $3 == "MISS" { m++; miss = miss " " $1 ":" $2 }
	    END { printf "bench: %d targets, %d ok, %d missed%s\n", n, n - m,
		m, (m ? " --" miss : "") }' "$RUN/targets"
}

need_tools
mkdir -p "$DATA" "$DIR" "$(dirname "$RESULTS")"
rm -rf "$RUN"
mkdir -p "$RUN"
trap 'rm -rf "${RUN:?}"; drop_quota_cgroup' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
: >"$RUN/raw"
: >"$RUN/targets"
echo "M $CPUS" >>"$RUN/raw"
make_quota_cgroup
header | tee "$RUN/results"
for ds in $DATASETS; do
	bench_one "$ds"
done
summary | tee -a "$RUN/results"
cp "$RUN/results" "$RESULTS.tmp"
mv "$RESULTS.tmp" "$RESULTS"
say "table written to obj/bench/results.txt"
