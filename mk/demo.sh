#!/bin/sh
# make demo: extract the bundled sample archive (an ordinary project with
# hostile entries mixed in), show what was extracted and what was refused
# and why, and show that nothing appeared outside the destination.
set -u
pfx=${1:-obj/pfextract}
archive=${2:-obj/demo.tar.gz}
pf=${3:-obj/pathfence}

top=$(mktemp -d)
trap 'rm -rf "$top"' EXIT
mkdir "$top/dest" "$top/outside"
echo "untouched" > "$top/outside/sentinel"

show() {
	printf '\n$ %s\n' "$*"
	"$@"
	printf '(exit status %d)\n' "$?"
}

echo "== pfextract: the sample archive, as listed by pfextract -tvf"
"$pfx" -tvf "$archive"

echo
echo "== extracting it with the defaults (symlink-free output):"
show "$pfx" -xvf "$archive" -C "$top/dest"

echo
echo "== what is in the destination now:"
(cd "$top/dest" && find . -mindepth 1 | sort | while read -r p; do
	ls -ld "$p"
done)

echo
echo "== and outside it (only the sentinel, unchanged):"
(cd "$top" && find . -path ./dest -prune -o -print | sort)
cat "$top/outside/sentinel"

echo
echo "== again with --symlinks=contain, reporting as JSON lines:"
rm -rf "$top/dest" && mkdir "$top/dest"
show "$pfx" -xf "$archive" -C "$top/dest" --symlinks=contain --report=json

echo
echo "== the decision core alone, as pathfence check:"
show "$pf" check --allow /tmp/allowed_dir -- \
    /tmp/allowed_dir_malicious/secret ../x a/../b
exit 0
