#!/bin/sh
#
# progress.sh -- pfextract(1)'s progress line: drawn on standard error
# when it is a terminal (a pty here, python3's pty module), with the share
# of a regular-file input read, and wiped at the end; never when standard
# error is a pipe, unless --progress; never with --no-progress or -q.
# The run is slowed by --checkpoint-action=sleep=1 (one checkpoint a
# record), so that the line, drawn at most 4 times a second, is drawn.
#
# Usage: sh tests/progress.sh PATH_TO_PFEXTRACT

set -u
if [ $# -ne 1 ]; then
	echo "usage: sh tests/progress.sh PATH_TO_PFEXTRACT" >&2
	exit 2
fi
PFX=$1
case $PFX in /*) ;; *) PFX=$(pwd)/$PFX ;; esac
T=$(mktemp -d "${TMPDIR:-/tmp}/pfx-progress.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT
passed=0
failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); printf 'FAIL: %s\n' "$*"; }

mkdir "$T/src" "$T/out"
i=0
while [ $i -lt 40 ]; do
	head -c 2000 /dev/zero >"$T/src/f$i"
	i=$((i + 1))
done
tar -cf "$T/a.tar" -C "$T/src" .

# ontty OUT ARG...: run pfextract ARG... with standard error on a pty,
# standard output to /dev/null; what the pty got goes to OUT.
ontty() {
	out=$1
	shift
	python3 - "$out" "$PFX" "$@" <<'PY'
import os, pty, subprocess, sys
out, argv = sys.argv[1], sys.argv[2:]
m, s = pty.openpty()
p = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
    stdout=subprocess.DEVNULL, stderr=s)
os.close(s)
got = b""
while True:
    try:
        b = os.read(m, 4096)
    except OSError:
        break
    if not b:
        break
    got += b
p.wait()
open(out, "wb").write(got)
PY
}

SLOW="--checkpoint=1 --checkpoint-action=sleep=1"

# On a pty: the line, with a percentage, and wiped last.
rm -rf "$T/out" && mkdir "$T/out"
ontty "$T/tty" -xf "$T/a.tar" -C "$T/out" $SLOW
if grep -q 'entries (' "$T/tty" && grep -q '%' "$T/tty" &&
    [ "$(tail -c 1 "$T/tty" | od -An -c | tr -d ' ')" = '\r' ] &&
    [ "$(ls "$T/out" | wc -l)" -eq 40 ]; then
	ok
else
	bad "no progress line on a terminal, or not wiped:" \
	    "$(od -c "$T/tty" | head -3 | tr '\n' ' ')"
fi

# On a pty, with --no-progress, or -q (even with --progress): nothing.
for o in --no-progress "-q --progress"; do
	rm -rf "$T/out" && mkdir "$T/out"
	ontty "$T/tty" -xf "$T/a.tar" -C "$T/out" $SLOW $o
	if [ ! -s "$T/tty" ]; then ok; else
		bad "$o on a terminal: '$(head -c 80 "$T/tty")'"
	fi
done

# Standard error a pipe: nothing, unless --progress.
rm -rf "$T/out" && mkdir "$T/out"
"$PFX" -xf "$T/a.tar" -C "$T/out" $SLOW 2>"$T/err"
if [ ! -s "$T/err" ]; then ok; else
	bad "progress on a pipe: '$(head -c 80 "$T/err")'"
fi
rm -rf "$T/out" && mkdir "$T/out"
"$PFX" -xf "$T/a.tar" -C "$T/out" $SLOW --progress 2>"$T/err"
if grep -q 'entries (' "$T/err"; then ok; else
	bad "--progress on a pipe drew nothing"
fi
# It begins with the name pfextract runs by: "pfextract: ", or run as
# tar, "tar: ", as its other messages.
if grep -q '^.\{0,1\}pfextract: [0-9.]* entries (' "$T/err"; then ok; else
	bad "--progress: not 'pfextract: ': '$(head -c 80 "$T/err")'"
fi
mkdir "$T/bin" && ln -s "$PFX" "$T/bin/tar"
rm -rf "$T/out" && mkdir "$T/out"
PATH=$T/bin:$PATH tar -xf "$T/a.tar" -C "$T/out" $SLOW --progress 2>"$T/err"
if grep -q '^.\{0,1\}tar: [0-9.]* entries (' "$T/err"; then ok; else
	bad "--progress as tar: '$(head -c 80 "$T/err")'"
fi

echo "progress: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
