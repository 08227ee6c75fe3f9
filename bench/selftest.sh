#!/bin/sh
# selftest.sh -- `make bench-selftest`: what the benchmark's own tools
# must get right, checked on small inputs in a few seconds, with no
# dataset and no timing:
#   obj/bench/measure  an orphan's peak RSS still counts (it is the
#                      subreaper); tree_kib adds up processes that run at
#                      once, rss_kib is the largest one alone
#   obj/bench/floor    a zip is inflated whole (the bytes of its files),
#                      zip64 extra fields read; a damaged member fails;
#                      -j sets the CPUs it reports
#   bench/table.awk    the efficiency bound, 1.2 x max(D, (C + P) / N),
#                      and the targets it marks, on fixed records
# Run from the top of the tree, after `make obj/bench/measure
# obj/bench/floor`.
set -u

ME=bench-selftest
. bench/lib.sh

MEASURE=$top/obj/bench/measure
FLOOR=$top/obj/bench/floor
for f in "$MEASURE" "$FLOOR"; do
	[ -x "$f" ] || fail "$f is missing"
done
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 failed=0
ok() { pass=$((pass + 1)); }
bad() { say "FAIL: $*"; failed=$((failed + 1)); }

# Field NAME of the measure line in file $2.
field() {
	awk -v f="$1" '{ for (i = 1; i < NF; i++) if ($i == f) print $(i + 1) }' \
	    "$2"
}

# A process that holds 32 MiB or more for $1 seconds: a string doubled 25
# times, in any awk.
HOG="awk 'BEGIN { s = \"x\"; for (i = 0; i < 25; i++) s = s s;"
HOG="$HOG system(\"sleep \" ARGV[1]); print length(s) > \"/dev/null\" }'"

# --- measure ----------------------------------------------------------

# An orphan: its parent exits at once, and it is reparented.  Without
# the subreaper it would go to init and its RSS would not count.
"$MEASURE" -n sh -c "($HOG 0.3 &); exit 0" >"$T/orphan" ||
    bad "measure: the orphan run failed: $(cat "$T/orphan")"
rss=$(field rss_kib "$T/orphan")
if [ "${rss:-0}" -ge 32768 ]; then ok; else
	bad "measure: an orphan's peak RSS was not counted (rss_kib $rss)"
fi

# Two at once: the tree holds both, the largest process one.
"$MEASURE" -n sh -c "$HOG 1 & $HOG 1; wait" >"$T/two" ||
    bad "measure: the run of two failed: $(cat "$T/two")"
rss=$(field rss_kib "$T/two")
tree=$(field tree_kib "$T/two")
if [ "${rss:-0}" -ge 32768 ] && [ "${tree:-0}" -ge $((rss * 3 / 2)) ]; then
	ok
else
	bad "measure: two processes of 32 MiB or more at once: tree_kib" \
	    "$tree, rss_kib $rss (want the tree 1.5 times the largest)"
fi

# A failing command: the line is printed, status 1.
if "$MEASURE" -n sh -c 'exit 3' >"$T/st"; then
	bad "measure: a failing command exited 0"
elif [ "$(field status "$T/st")" = 3 ]; then ok; else
	bad "measure: status of 'exit 3': $(cat "$T/st")"
fi

# --- floor on zip -----------------------------------------------------

if command -v zip >/dev/null 2>&1; then
	mkdir -p "$T/z/d"
	cp bench/floor.c bench/measure.c "$T/z/d/"
	head -c 200000 /dev/urandom >"$T/z/d/random.bin"
	: >"$T/z/d/empty"
	want=$(cat "$T/z/d/"* | wc -c)
	(cd "$T/z" && zip -qr "$T/a.zip" d && zip -qr -fz "$T/a64.zip" d)
	for z in a.zip a64.zip; do
		"$FLOOR" -j 2 "$T/$z" >"$T/floor.out" 2>"$T/floor.err" ||
		    bad "floor: $z: $(cat "$T/floor.err")"
		got=$(awk '$1 == "format" { print $2, $8, $10 }' \
		    "$T/floor.out")
		if [ "$got" = "zip $want 2" ] &&
		    [ "$(awk '$1 == "isal" || $1 == "zlib"' "$T/floor.out" |
			wc -l)" -eq 2 ]; then ok; else
			bad "floor: $z: '$got' (want 'zip $want 2')," \
			    "$(tr '\n' ' ' <"$T/floor.out")"
		fi
	done
	# Damage the middle of the random member, whose bytes are stored
	# or barely compressed: its CRC-32 no longer matches.
	cp "$T/a.zip" "$T/bad.zip"
	off=$(($(wc -c <"$T/a.zip") / 2))
	printf 'XXXXXXXX' | dd of="$T/bad.zip" bs=1 seek="$off" \
	    conv=notrunc 2>/dev/null
	if "$FLOOR" "$T/bad.zip" >/dev/null 2>"$T/floor.err"; then
		bad "floor: a damaged zip decoded"
	else
		ok
	fi
else
	say "zip is missing: floor's zip left unchecked"
fi

# --- table.awk --------------------------------------------------------

cat >"$T/raw" <<'EOF'
M 2
I linux.tar 1 1000 10 no
R linux.tar pfextract 1 1.8 3.2 20000 24000
R linux.tar pfextract 2 1.8 2.8 20000 24000
R linux.tar tar 1 2.2 2.2 2000 2000
R linux.tar tar 2 2.2 2.2 2000 2000
R linux.tar bsdtar 1 4.0 4.0 6000 6000
R linux.tar bsdtar 2 4.0 4.0 6000 6000
I linux.tar.xz 1 100 10 no linux.tar
R linux.tar.xz pfextract 1 6.0 11.0 150000 200000
R linux.tar.xz pfextract 2 7.0 11.0 150000 190000
R linux.tar.xz pfextract-mem 1 8.0 10.0 50000 60000
R linux.tar.xz pfextract-mem 2 8.0 10.0 50000 60000
R linux.tar.xz tar 1 8.0 12.0 9000 10000
R linux.tar.xz tar 2 8.0 12.0 9000 10000
R linux.tar.xz bsdtar 1 13.0 13.0 14000 14000
R linux.tar.xz bsdtar 2 13.0 13.0 14000 14000
F linux.tar.xz xz-mt 4.5 8.9
F linux.tar.xz xz-1 7.4 7.4
B linux.tar.xz xz-mt 4.5 8.9
EOF
: >"$T/targets"
awk -v ds=linux.tar.xz -v tools="pfextract pfextract-mem tar bsdtar" \
    -v xzmem=64M -v targets="$T/targets" -f bench/table.awk "$T/raw" \
    >"$T/table"
# D = 4.5, (C + P) / N = (8.9 + 3.0) / 2 = 5.95: the bound is 7.14, and
# pfextract's median 6.5 s is 0.91x of it.  The tree's peak, 200000 KiB,
# is past 192 MiB; bsdtar's ratio, median of 6/13 and 7/13, is 0.50.
if grep -q '^  bound  *7\.140 .* 0\.91x  <= 1\.00x: ok$' "$T/table"; then ok
else bad "table.awk: the bound: $(grep bound "$T/table")"; fi
printf '%s\n' "linux.tar.xz rss MISS" "linux.tar.xz vs-bsdtar ok" \
    "linux.tar.xz bound ok" >"$T/want"
if cmp -s "$T/want" "$T/targets"; then ok; else
	bad "table.awk: targets: $(tr '\n' ';' <"$T/targets")"
fi
if grep -q '^  pfx 64M .*(--max-memory=64M)$' "$T/table"; then ok; else
	bad "table.awk: no row for --max-memory=64M"
fi
: >"$T/targets"
awk -v ds=linux.tar -v tools="pfextract tar bsdtar" -v xzmem=64M \
    -v targets="$T/targets" -f bench/table.awk "$T/raw" >"$T/table"
# 1.8 / 2.2 = 0.82 of GNU tar's time: past 0.7.
if grep -qx "linux.tar vs-tar MISS" "$T/targets" &&
    ! grep -q bound "$T/table"; then ok; else
	bad "table.awk: linux.tar: $(tr '\n' ';' <"$T/targets")"
fi

say "$pass passed, $failed failed"
[ "$failed" -eq 0 ]
