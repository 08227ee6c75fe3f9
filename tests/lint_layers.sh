#!/bin/sh
# mk/layers.sh, the check of the layers (docs/design.md, "Layers"): it
# passes on the tree, and fails, printing what is wrong, on a copy of the
# tree with a cycle added (in extract/, in core/) or an include that
# points up the order of the folders.  mk/calls.sh, its twin over the
# objects, fails on two files that call each other.
#
# Usage: sh tests/lint_layers.sh
set -u
fail=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/lint_layers.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

ok() { echo "ok - $*"; }
no() { echo "not ok - $*"; fail=1; }

# copy NAME: a fresh copy of the five folders in $tmp/NAME.
copy() {
	rm -rf "${tmp:?}/$1"
	mkdir -p "$tmp/$1"
	cp -R core decode platform extract cli "$tmp/$1/"
}

# expect NAME WORDS...: mk/layers.sh fails on $tmp/NAME and says WORDS.
expect() {
	name=$1; shift
	if sh mk/layers.sh "$tmp/$name" >"$tmp/$name.out" 2>&1; then
		no "$name: passed"
		return
	fi
	for w in "$@"; do
		if ! grep -qF -- "$w" "$tmp/$name.out"; then
			no "$name: no '$w' in: $(cat "$tmp/$name.out")"
			return
		fi
	done
	ok "$name"
}

if out=$(sh mk/layers.sh . 2>&1); then
	ok "the tree"
else
	no "the tree: $out"
fi

# The report calls the engine back: report.c -> engine.c -> ... -> report.c.
copy report_engine
sed 's/^#include "report.h"$/#include "engine.h"\n#include "report.h"/' \
    extract/report.c >"$tmp/report_engine/extract/report.c"
expect report_engine "layers: include: a cycle" "extract/report.c includes engine.h" \
    "extract/engine.c"

# The core pair this check was made for: normalize.c <-> windows.c, through
# a header of normalize.c's own.
copy core_pair
printf '/* normalize.h */\n' >"$tmp/core_pair/core/normalize.h"
printf '#include "normalize.h"\n' >>"$tmp/core_pair/core/windows.c"
expect core_pair "layers: include: a cycle" "core/windows.c includes normalize.h" \
    "core/normalize.c includes windows.h"

# A header whose comment names its files makes them one node.
copy named
printf '/*\n * Defined in: windows.c normalize.c.\n */\n' \
    >"$tmp/named/core/pair.h"
printf '#include "pair.h"\n' >>"$tmp/named/core/check.c"
printf '#include "check.h"\n' >>"$tmp/named/core/windows.c"
expect named "layers: include: a cycle" "core/check.c includes pair.h" \
    "core/normalize.c+core/windows.c"

# The decision core reaching up into the platform layer.
copy up
printf '#include "../platform/platform.h"\n' >>"$tmp/up/core/check.c"
expect up "core/check.c includes platform/platform.h: up the order"

# mk/calls.sh, from the objects: two files that call each other fail,
# whatever their headers say; a call one way passes.
mkdir -p "$tmp/calls"
printf 'int b(int);\nint a(int n) { return n > 0 ? b(n - 1) : 0; }\n' \
    >"$tmp/calls/a.c"
printf 'int a(int);\nint b(int n) { return a(n); }\n' >"$tmp/calls/b.c"
printf 'int c(int);\nint c(int n) { return n; }\n' >"$tmp/calls/c.c"
for f in a b c; do
	${CC:-cc} -c -o "$tmp/calls/$f.o" "$tmp/calls/$f.c" || no "cc $f.c"
done
if sh mk/calls.sh "$tmp/calls/a.o" "$tmp/calls/b.o" "$tmp/calls/c.o" \
    >"$tmp/calls.out" 2>&1; then
	no "calls: a cycle of calls passed"
elif grep -q "a.o -> .*b.o" "$tmp/calls.out" &&
    grep -q "b.o -> .*a.o" "$tmp/calls.out"; then
	ok "calls: a cycle"
else
	no "calls: $(cat "$tmp/calls.out")"
fi
printf 'int c(int);\nint b(int n) { return c(n); }\n' >"$tmp/calls/b.c"
${CC:-cc} -c -o "$tmp/calls/b.o" "$tmp/calls/b.c" || no "cc b.c"
if out=$(sh mk/calls.sh "$tmp/calls/a.o" "$tmp/calls/b.o" \
    "$tmp/calls/c.o" 2>&1); then
	ok "calls: one way"
else
	no "calls: one way: $out"
fi

exit "$fail"
