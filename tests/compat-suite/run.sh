#!/bin/sh
# make compat-suite: GNU tar 1.34's own test suite (tests/testsuite, an
# Autotest suite) run three ways -- GNU tar alone, then through the
# wrapper tests/compat-suite/tar, which sends extraction and listing to
# pfextract and everything else to GNU tar, once with pfextract's defaults
# and once with --symlinks=contain.  Prints the counts, and the tests that
# pass with GNU tar and fail through the wrapper as markdown rows for
# docs/testing.md ("GNU tar's test suite"), each with its reason from
# tests/compat-suite/reasons.
#
# Usage: sh tests/compat-suite/run.sh [pfextract]
# Everything lives in obj/compat-suite: the source (fetched once, its
# sha256 checked), GNU tar built from it (once), and per run the suite's
# output, log and the directories of the failed tests
# (obj/compat-suite/{gnu,default,contain}/testsuite.dir/NNN/testsuite.log).
# GNU tar's own run is kept and reused while the build is unchanged, so a
# rerun costs only the two wrapper runs.
#   COMPAT_SUITE_JOBS	parallel tests (2)
#   COMPAT_SUITE_FRESH=1	rerun GNU tar's baseline too
#   COMPAT_SUITE_REPORT=1	run nothing: print the last results again, with
#			the reasons file reread
#   COMPAT_SUITE_FLAGS	more testsuite arguments, e.g. "-k extract" or
#			"12 37-40": the counts then cover those only
set -eu

TOP=$(cd "$(dirname "$0")/../.." && pwd)
PFX=$(cd "$(dirname "${1:-$TOP/obj/pfextract}")" && pwd)/$(basename \
    "${1:-obj/pfextract}")
OBJ=$TOP/obj/compat-suite
URL=http://deb.debian.org/debian/pool/main/t/tar/tar_1.34+dfsg.orig.tar.xz
SHA256=7d57029540cb928394defb3b377b3531237c947e795b51aa8acac0c5ba0e4844
SRC=$OBJ/tar-1.34+dfsg
JOBS=${COMPAT_SUITE_JOBS:-2}
REASONS=$TOP/tests/compat-suite/reasons

[ -x "$PFX" ] || { echo "compat-suite: no $PFX; make obj/pfextract" >&2; exit 2; }
mkdir -p "$OBJ"
t0=$(date +%s)

# 1. The source, pinned.
tarball=$OBJ/$(basename "$URL")
if [ ! -f "$tarball" ]; then
	echo "compat-suite: fetching $URL"
	curl -fsSL -o "$tarball.part" "$URL"
	mv "$tarball.part" "$tarball"
fi
echo "$SHA256  $tarball" | sha256sum -c --quiet - || {
	echo "compat-suite: $tarball: sha256 mismatch; remove it" >&2
	exit 2
}

# 2. GNU tar, built once, and the helpers its tests call (`make check`
# would build them).  configure refuses root without the variable.
if [ ! -f "$SRC/.built" ]; then
	rm -rf "$SRC"
	(cd "$OBJ" && xz -dc "$tarball" | tar -xf -)
	[ -f "$SRC/tests/testsuite" ] || {
		echo "compat-suite: no tests/testsuite in the source" >&2
		exit 2
	}
	echo "compat-suite: building GNU tar (log: $OBJ/build.log)"
	(cd "$SRC" && FORCE_UNSAFE_CONFIGURE=1 ./configure -q &&
	    make -j2 && make -j2 -C tests genfile checkseekhole ckmtime) \
	    > "$OBJ/build.log" 2>&1 || {
		tail -20 "$OBJ/build.log" >&2
		exit 2
	}
	: > "$SRC/.built"
fi
"$SRC/src/tar" --version | sed 1q

# 3. The wrappers: one directory each, put first in the suite's PATH.
for mode in default contain; do
	mkdir -p "$OBJ/bin-$mode"
	links=""
	[ "$mode" = contain ] && links=contain
	sed -e "s#@GNUTAR@#$SRC/src/tar#" -e "s#@PFEXTRACT@#$PFX#" \
	    -e "s#@SYMLINKS@#$links#" "$TOP/tests/compat-suite/tar" \
	    > "$OBJ/bin-$mode/tar"
	chmod +x "$OBJ/bin-$mode/tar"
done

# run MODE [AUTOTEST_PATH]: the suite into $OBJ/MODE, its seconds printed.
run() {
	s=$(date +%s)
	rm -rf "$OBJ/$1"
	mkdir -p "$OBJ/$1"
	# shellcheck disable=SC2086 # the flags are words.
	(cd "$SRC/tests" && ./testsuite -j"$JOBS" ${COMPAT_SUITE_FLAGS:-} \
	    ${2:+AUTOTEST_PATH="$2"} > "$OBJ/$1/stdout" 2>&1) || :
	mv "$SRC/tests/testsuite.log" "$SRC/tests/testsuite.dir" "$OBJ/$1/" \
	    2>/dev/null || :
	echo "compat-suite: $1: $(($(date +%s) - s)) s"
}

if [ "${COMPAT_SUITE_REPORT:-0}" = 1 ]; then
	echo "compat-suite: the last runs' results, reasons reread"
elif [ "${COMPAT_SUITE_FRESH:-0}" = 1 ] || [ -n "${COMPAT_SUITE_FLAGS:-}" ] ||
    [ ! -f "$OBJ/gnu/stdout" ] || [ "$SRC/.built" -nt "$OBJ/gnu/stdout" ] ||
    [ -f "$OBJ/gnu/.partial" ]; then
	run gnu
	[ -n "${COMPAT_SUITE_FLAGS:-}" ] && : > "$OBJ/gnu/.partial"
else
	echo "compat-suite: gnu: reused (COMPAT_SUITE_FRESH=1 reruns it)"
fi
if [ "${COMPAT_SUITE_REPORT:-0}" != 1 ]; then
	run default "$OBJ/bin-default"
	run contain "$OBJ/bin-contain"
fi

# results MODE: "NNN<TAB>status<TAB>title" for each test the run reached;
# status is ok, FAILED, skipped, "expected failure" or "UNEXPECTED PASS".
results() {
	sed -n 's/^ *\([0-9][0-9]*\): \(.*[^ ]\)  *\(ok\|FAILED\|skipped\|expected failure\|UNEXPECTED PASS\)\( (.*)\)\{0,1\}$/\1	\3	\2/p' \
	    "$OBJ/$1/stdout" | sort -n
}
for mode in gnu default contain; do
	results "$mode" > "$OBJ/$mode/results"
done
pass() { awk -F '\t' '$2 == "ok"' "$OBJ/$1/results" | wc -l; }
total=$(wc -l < "$OBJ/gnu/results")

# The tests GNU tar passes and the wrapper fails, with the reason.
awk -F '\t' -v reasons="$REASONS" -v contain="$OBJ/contain/results" '
BEGIN {
	while ((getline l < reasons) > 0) {
		if (l ~ /^#/ || l !~ /^[0-9]+[ \t]/)
			continue
		n = l; sub(/[ \t].*/, "", n)
		r = l; sub(/^[0-9]+[ \t]+/, "", r)
		why[n + 0] = r
	}
	while ((getline l < contain) > 0) {
		split(l, f, "\t")
		c[f[1] + 0] = f[2]
	}
}
FNR == NR { if ($2 == "ok") gnu[$1 + 0] = 1; next }
gnu[$1 + 0] && $2 != "ok" {
	r = ($1 + 0) in why ? why[$1 + 0] : "unclassified"
	printf "| %d | %s | %s | %s |\n", $1, $3, r, \
	    c[$1 + 0] == "ok" ? "passes" : "fails"
}' "$OBJ/gnu/results" "$OBJ/default/results" > "$OBJ/failures.md"

cat <<EOF

GNU tar's test suite ($(basename "$SRC"), $total tests), pfextract $(cd "$TOP" && git rev-parse --short HEAD 2>/dev/null || echo '?'):
  GNU tar passes                          $(pass gnu)
  wrapper, pfextract's defaults, passes   $(pass default)
  wrapper, --symlinks=contain, passes     $(pass contain)
  runtime                                 $(($(date +%s) - t0)) s
Passed by GNU tar, failed through the wrapper (default policy; last
column: with --symlinks=contain), also in $OBJ/failures.md:

| # | Test | Reason | contain |
|---|------|--------|---------|
EOF
cat "$OBJ/failures.md"
echo
echo "Causes by count, by kind, then by reason (details in parentheses dropped):"
causes() {
	awk -F ' \\| ' -v kind="$1" '{ r = $3
	    if (kind) sub(/:.*/, "", r); else sub(/ *\(.*/, "", r)
	    n[r]++ } END { for (r in n) printf "%4d  %s\n", n[r], r }' \
	    "$OBJ/failures.md" | sort -k1,1rn -k2
}
causes 1
echo
causes ""
echo "Logs: $OBJ/default/testsuite.dir/NNN/testsuite.log"
