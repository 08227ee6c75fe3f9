#!/bin/sh
# pfextract built with ThreadSanitizer (obj/tsan/pfextract), on archives
# that keep its threads busy together: the decoder's (gzip, zstd, xz),
# the worker that finishes files (extract/async.c) and the reader that
# helps it when its queue is full, big files written in segments, names
# written twice, hard links and directories that wait for the queue, a
# refusal behind queued files, and a stop by signal.  Every run must end as
# it should, make the tree GNU tar makes (where it is meant to), and print
# no ThreadSanitizer report.  Every run is planned for three CPUs
# (--cpus=3, pfx_options.cpus), where the worker runs whatever the
# machine has.  (The Criterion runner cannot start under
# ThreadSanitizer: its arena cannot be mapped.)  With PUSH (the push
# API's test command, obj/tsan/tests/pfextract-push), the plain tar
# archives go through pfx_writer_*() too: the caller's thread, the
# writer's thread that runs the extraction, and its worker.  With CALLER
# (obj/tests/tsan_caller), also a program built with ThreadSanitizer
# around the plain shared library, two threads extracting at once, under
# the suppressions `make install` ships (tests/tsan.supp).  With CALLS
# (obj/tsan/tests/tsan_calls, that program around the library built with
# ThreadSanitizer), eight calls at once under RLIMIT_NOFILE 96, too few
# for what they keep open for speed together: each gives back and waits
# while its worker finishes its queue, and every call must succeed.
# Usage: sh tests/tsan.sh obj/tsan/pfextract [PUSH [CALLER [CALLS]]]
set -u
pfx=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
push=
[ $# -ge 2 ] && push=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
caller=${3:-}
calls=${4:-}
supp=$(cd "$(dirname "$0")" && pwd)/tsan.supp
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "tsan.sh: FAIL: $*" >&2; fail=$((fail + 1)); }
TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1"
export TSAN_OPTIONS

# The tree: 1,500 small files in 30 directories (the queue is 32 files
# long), three of 1.5 MiB (written in segments), hard links.  Then the
# same names again, appended, with other data: the later copy must win.
mkdir -p "$T/src"
i=0
while [ $i -lt 30 ]; do
	mkdir -p "$T/src/d$i/sub"
	j=0
	while [ $j -lt 50 ]; do
		printf 'file %d %d\n' $i $j > "$T/src/d$i/f$j"
		j=$((j + 1))
	done
	i=$((i + 1))
done
for k in 1 2 3; do
	head -c 1572864 /dev/urandom > "$T/src/d$k/sub/big"
done
ln "$T/src/d1/f1" "$T/src/d2/hard"
# A hard link every tenth file: each waits for the queue, which the
# reader then empties alongside the worker.
i=0
while [ $i -lt 30 ]; do
	for j in 9 19 29 39 49; do
		ln "$T/src/d$i/f$j" "$T/src/d$i/f${j}l"
	done
	i=$((i + 1))
done
tar --sort=name -C "$T/src" -cf "$T/a.tar" .
i=0
while [ $i -lt 30 ]; do
	printf 'again %d\n' $i > "$T/src/d$i/f7"
	printf 'again %d\n' $i > "$T/src/d$i/f8"
	i=$((i + 1))
done
(cd "$T/src" && tar -rf "$T/a.tar" ./d*/f7 ./d*/f8)
gzip -c "$T/a.tar" > "$T/a.tar.gz"
zstd -q -c "$T/a.tar" > "$T/a.tar.zst"
xz -T2 --block-size=262144 -c "$T/a.tar" > "$T/a.tar.xz"
mkdir "$T/ref"
tar -xf "$T/a.tar" -C "$T/ref"

# clean NAME: no ThreadSanitizer report in $T/err.
clean() {
	if grep -q 'ThreadSanitizer' "$T/err"; then
		bad "$1: $(grep -m1 'ThreadSanitizer' "$T/err")"
		sed -n '1,40p' "$T/err" >&2
		return 1
	fi
	ok
}

for a in a.tar a.tar.gz a.tar.zst a.tar.xz; do
	rm -rf "$T/out" && mkdir "$T/out"
	"$pfx" --cpus=3 -xf "$T/$a" -C "$T/out" 2> "$T/err"
	rc=$?
	[ $rc -eq 0 ] && ok || bad "$a: exit status $rc: $(head -3 "$T/err")"
	clean "$a" || continue
	diff -r "$T/ref" "$T/out" > /dev/null && ok ||
	    bad "$a: the tree differs from GNU tar's"
	[ "$(stat -c %i "$T/out/d1/f1")" = "$(stat -c %i "$T/out/d2/hard")" ] &&
	    ok || bad "$a: d2/hard is not d1/f1"
done

# A zip of the same tree (its last state), read by the pool of zip
# threads: at the default budget, and at one that makes them let their
# read buffers go and wait for room (2 MiB held).
if command -v python3 > /dev/null; then
	python3 - "$T/src" "$T/a.zip" <<'PY'
import os, sys, zipfile
src, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
    for top, dirs, files in sorted(os.walk(src)):
        dirs.sort()
        for d in dirs:
            p = os.path.join(top, d)
            z.write(p, os.path.relpath(p, src))
        for f in sorted(files):
            p = os.path.join(top, f)
            z.write(p, os.path.relpath(p, src))
PY
	for mem in 1G 16M; do
		rm -rf "$T/out" && mkdir "$T/out"
		"$pfx" --cpus=3 --max-memory=$mem -xf "$T/a.zip" -C "$T/out" 2> "$T/err"
		rc=$?
		[ $rc -eq 0 ] && ok || bad "a.zip ($mem): exit status $rc"
		clean "a.zip ($mem)" || continue
		diff -r "$T/src" "$T/out" > /dev/null && ok ||
		    bad "a.zip ($mem): the tree differs from its source"
	done
else
	echo "tsan.sh: python3 is missing: no zip read" >&2
fi

# From standard input, in a pipe, with the report on.
rm -rf "$T/out" && mkdir "$T/out"
"$pfx" --cpus=3 -xf - -C "$T/out" --report=json < "$T/a.tar.zst" > "$T/rep" \
    2> "$T/err"
rc=$?
[ $rc -eq 0 ] && ok || bad "stdin: exit status $rc"
clean stdin
[ "$(grep -c '"status":"extracted"' "$T/rep")" -eq \
    "$(tar -tf "$T/a.tar" | wc -l)" ] && ok ||
    bad "stdin: not every entry reported extracted"

# A refusal behind a full queue: 200 files, then a name under one of
# them, which is not a directory; the refusal keeps its place in the
# report, the 200 are made.
mkdir -p "$T/bad/x"
i=0
while [ $i -lt 200 ]; do
	printf '%d\n' $i > "$T/bad/x/f$i"
	i=$((i + 1))
done
tar --sort=name -C "$T/bad" -cf "$T/bad.tar" x
mkdir -p "$T/bad2/x/f5"
printf 'under\n' > "$T/bad2/x/f5/under"
(cd "$T/bad2" && tar -rf "$T/bad.tar" x/f5/under)
rm -rf "$T/out" && mkdir "$T/out"
"$pfx" --cpus=3 -xf "$T/bad.tar" -C "$T/out" 2> "$T/err"
rc=$?
[ $rc -eq 1 ] && ok || bad "refusal: exit status $rc, want 1"
grep -q 'x/f5/under' "$T/err" && ok || bad "refusal: not named"
clean refusal
[ "$(find "$T/out/x" -type f | wc -l)" -eq 200 ] && ok ||
    bad "refusal: the good files were not all made"

# A stop by SIGTERM while the input stalls, files queued.
rm -rf "$T/out" && mkdir "$T/out"
mkfifo "$T/fifo"
"$pfx" --cpus=3 -xf "$T/fifo" -C "$T/out" 2> "$T/err" &
pid=$!
exec 3> "$T/fifo"
head -c 3000000 "$T/a.tar" >&3
sleep 1
kill -TERM $pid
wait $pid
rc=$?
exec 3>&-
[ $rc -eq 143 ] && ok || bad "SIGTERM: exit status $rc, want 143"
clean SIGTERM
[ -z "$(find "$T/out" -name '.pfx-*')" ] && ok ||
    bad "SIGTERM: a temporary is left"

# A full disk behind queued files (extract/async.c, retry_no_space): small
# files the worker writes, then one the reader writes that fills a 256 KiB
# tmpfs.  Every small file is whole, the big one is named.
mkdir -p "$T/full/src"
for i in 1 2 3 4 5 6 7 8; do
	head -c 3000 /dev/urandom > "$T/full/src/s$i"
done
head -c 600000 /dev/urandom > "$T/full/src/t-big"
printf 'after\n' > "$T/full/src/u-after"
tar --sort=name -C "$T/full/src" -cf "$T/full.tar" .
mkdir "$T/full/out"
if unshare -m sh -c 'mount -t tmpfs -o size=256k none "$1"' sh \
    "$T/full/out" 2> /dev/null; then
	for k in 1 2 3 4; do
		unshare -m sh -c 'mount -t tmpfs -o size=256k none "$2" &&
		    "$1" --cpus=3 -xf "$3" -C "$2" 2> "$4"; rc=$?
		    for i in 1 2 3 4 5 6 7 8; do
			cmp -s "$2/s$i" "$5/s$i" || echo "s$i differs" >> "$4"
		    done
		    [ -e "$2/u-after" ] && echo "u-after made" >> "$4"
		    exit $rc' sh "$pfx" "$T/full/out" "$T/full.tar" "$T/err" \
		    "$T/full/src"
		rc=$?
		[ $rc -eq 2 ] && ok || bad "full disk: exit status $rc, want 2"
		clean "full disk"
		grep -q 't-big: .*No space left on device' "$T/err" &&
		    ! grep -q 'differs\|made' "$T/err" && ok ||
		    bad "full disk: $(head -3 "$T/err")"
	done
else
	echo "tsan.sh: no tmpfs of our own here; the full-disk case is skipped"
fi

# The push API: the same trees through pfx_writer_*(), and a refusal
# behind queued files.
if [ -n "$push" ]; then
	rm -rf "$T/out" && mkdir "$T/out"
	PFX_PUSH_LOG=$T/push.log "$push" --cpus=3 -xf "$T/a.tar" -C "$T/out" \
	    2> "$T/err"
	rc=$?
	[ $rc -eq 0 ] && ok || bad "push: exit status $rc: $(head -3 "$T/err")"
	clean push
	grep -q '^push$' "$T/push.log" && ok ||
	    bad "push: a.tar did not go through pfx_writer_*()"
	diff -r "$T/ref" "$T/out" > /dev/null && ok ||
	    bad "push: the tree differs from GNU tar's"
	[ "$(stat -c %i "$T/out/d1/f1")" = \
	    "$(stat -c %i "$T/out/d2/hard")" ] && ok ||
	    bad "push: d2/hard is not d1/f1"
	rm -rf "$T/out" && mkdir "$T/out"
	"$push" --cpus=3 -xf "$T/bad.tar" -C "$T/out" 2> "$T/err"
	rc=$?
	[ $rc -eq 1 ] && ok || bad "push refusal: exit status $rc, want 1"
	clean "push refusal"
	[ "$(find "$T/out/x" -type f | wc -l)" -eq 200 ] && ok ||
	    bad "push refusal: the good files were not all made"
fi

# The library as an installer built with ThreadSanitizer uses it: the
# shipped suppressions leave no report (the library's threads hand work
# over through atomics that the plain build hides from ThreadSanitizer).
if [ -n "$caller" ]; then
	for a in a.tar.gz a.tar.xz a.tar; do
		rm -rf "$T/out" && mkdir "$T/out"
		TSAN_OPTIONS="$TSAN_OPTIONS suppressions=$supp" \
		    "$caller" "$T/$a" "$T/out" 2> "$T/err"
		rc=$?
		[ $rc -eq 0 ] && ok || bad "caller $a: exit status $rc: $(head -3 "$T/err")"
		clean "caller $a"
	done
fi

# Many calls in one process, short of descriptors together: no report,
# no failed call (fdbudget.c).  The ThreadSanitizer runtime holds a few.
if [ -n "$calls" ]; then
	for a in a.tar a.tar.gz; do
		rm -rf "$T/out" && mkdir "$T/out"
		"$calls" "$T/$a" "$T/out" 8 96 2> "$T/err"
		rc=$?
		[ $rc -eq 0 ] && ok || bad "calls $a: exit status $rc: $(head -3 "$T/err")"
		clean "calls $a"
	done
fi

echo "tsan: $pass passed, $fail failed"
[ $fail -eq 0 ]
