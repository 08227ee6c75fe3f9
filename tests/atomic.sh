#!/bin/sh
# End-to-end tests of pfextract --atomic: a good run publishes DEST whole,
# a failed or refused one leaves DEST as it was and nothing beside it.
# Usage: sh tests/atomic.sh PFEXTRACT
set -u
pfx=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
T=$(mktemp -d)
trap 'chmod -R u+rwx "$T" 2>/dev/null; rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "atomic.sh: FAIL: $*" >&2; fail=$((fail + 1)); }

# The archives: a tree with a read-only directory, the same with a
# symlink out (refused by default), and a truncated copy.
mkdir -p "$T/src/d/ro/sub" "$T/w"
printf 'one\n' > "$T/src/d/a.txt"
printf 'two\n' > "$T/src/d/ro/sub/b.txt"
head -c 100000 /dev/zero > "$T/src/d/z.bin"
chmod 555 "$T/src/d/ro"
tar -C "$T/src" -cf "$T/a.tar" d
ln -s /etc/passwd "$T/src/d/ro2" 2>/dev/null || true
tar -C "$T/src" -cf "$T/link.tar" d
head -c 60000 "$T/a.tar" > "$T/cut.tar"
chmod 755 "$T/src/d/ro"

# run NAME EXPECTED_STATUS ARGS...: pfextract ARGS in $T/w.
run() {
	name=$1 want=$2
	shift 2
	(cd "$T/w" && "$pfx" "$@") > "$T/stdout" 2> "$T/stderr"
	rc=$?
	if [ "$rc" -ne "$want" ]; then
		bad "$name: exit status $rc, want $want; stderr: $(head -3 "$T/stderr")"
		return 1
	fi
	ok
}

# only NAME WORDS: $T/w holds exactly WORDS (ls -A, one line).
only() {
	got=$(cd "$T/w" && ls -A | tr '\n' ' ' | sed 's/ $//')
	[ "$got" = "$2" ] && ok || bad "$1: $T/w holds '$got', want '$2'"
}

clean() { chmod -R u+rwx "$T/w" 2>/dev/null; rm -rf "$T/w"; mkdir "$T/w"; }

# A new DEST: published whole.
clean
run "new DEST" 0 -xf ../a.tar -C new --atomic
[ "$(cat "$T/w/new/d/ro/sub/b.txt" 2>/dev/null)" = two ] && ok ||
    bad "new DEST: tree not there"
only "new DEST" "new"

# DEST through a parent path, and an existing empty DEST.
clean
mkdir -p "$T/w/p/empty"
run "empty DEST" 0 -xf ../a.tar -C p/empty --atomic
[ -f "$T/w/p/empty/d/a.txt" ] && ok || bad "empty DEST: tree not there"
[ "$(cd "$T/w/p" && ls -A)" = empty ] && ok || bad "empty DEST: leftovers"

# A refused entry without --strict: published without it, exit 1.
clean
run "refusal" 1 -xf ../link.tar -C new --atomic
[ -f "$T/w/new/d/a.txt" ] && [ ! -e "$T/w/new/d/ro2" ] && ok ||
    bad "refusal: tree not published as it should be"
only "refusal" "new"

# Failures: nothing published, nothing beside, exit 2.
for c in "strict:../link.tar --strict" "truncated:../cut.tar" \
    "limit:../a.tar --max-bytes=1000"; do
	what=${c%%:*} args=${c#*:}
	clean
	# shellcheck disable=SC2086
	run "$what, new DEST" 2 -xf $args -C new --atomic
	only "$what, new DEST" ""
	mkdir "$T/w/empty"
	# shellcheck disable=SC2086
	run "$what, empty DEST" 2 -xf $args -C empty --atomic
	only "$what, empty DEST" "empty"
	[ -z "$(ls -A "$T/w/empty")" ] && ok || bad "$what: DEST filled"
done

# A DEST that is not empty, a file or a symlink: refused before reading.
clean
mkdir "$T/w/full" && echo mine > "$T/w/full/mine"
echo file > "$T/w/file"
mkdir "$T/w/e" && ln -s e "$T/w/link"
for d in full file link; do
	run "DEST $d" 2 -xf ../a.tar -C $d --atomic
	grep -q -- '--atomic publishes a new tree' "$T/stderr" && ok ||
	    bad "DEST $d: message: $(cat "$T/stderr")"
done
only "refused DESTs" "e file full link"
[ "$(cat "$T/w/full/mine")" = mine ] && [ -z "$(ls -A "$T/w/e")" ] && ok ||
    bad "refused DESTs were changed"
run "DEST ." 2 -xf ../a.tar -C . --atomic
grep -q 'a name of its own' "$T/stderr" && ok ||
    bad "DEST .: message: $(cat "$T/stderr")"

# With -t, --atomic is ignored, as -k is: nothing is written.
clean
run "-t --atomic" 0 -tf ../a.tar -C new --atomic
only "-t --atomic" ""

# Killed by a signal mid-run: nothing published, no staging left.
clean
if command -v mkfifo >/dev/null 2>&1; then
	mkfifo "$T/fifo"
	(cd "$T/w" && exec "$pfx" -xf "$T/fifo" -C new --atomic) \
	    2> "$T/stderr" &
	pid=$!
	exec 3> "$T/fifo"
	head -c 30000 "$T/a.tar" >&3
	sleep 0.3
	kill -TERM "$pid"
	wait "$pid"
	rc=$?
	exec 3>&-
	[ "$rc" -eq 143 ] && ok || bad "SIGTERM: exit status $rc, want 143"
	only "SIGTERM" ""
fi

echo "atomic: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
