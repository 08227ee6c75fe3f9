#!/bin/sh
# pfextract in pipelines, as `tar -xf - -C dir` is used: neither side of
# the pipe may fail because of the other.  The producer of the archive
# must end well (no SIGPIPE) when the archive is followed by bytes that
# pfextract does not need -- a zip's central directory and what follows
# it, a tar's zero blocks, junk after a gzip member -- also when it
# writes slowly, in bursts; with and without the sandbox.  A producer that
# stalls after the archive's end is ended by --idle-timeout as any stall.
# And a reader of the listing that goes away early (`| head -1`) ends
# pfextract silently, killed by SIGPIPE as tar is (141 to the shell).
#
# `set -o pipefail` is not POSIX: each producer runs in a subshell that
# writes its exit status to a file.
# Usage: sh tests/pipes.sh PFEXTRACT
set -u
pfx=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0 skip=0
ok() { pass=$((pass + 1)); }
bad() { echo "pipes.sh: FAIL: $*" >&2; fail=$((fail + 1)); }
skipped() { echo "pipes.sh: skipped: $*" >&2; skip=$((skip + 1)); }

# A tree of two files, one of 300 KiB that does not compress, so that the
# archives are larger than a pipe's buffer.
mkdir -p "$T/src/d"
head -c 307200 /dev/urandom > "$T/src/d/big"
printf 'small\n' > "$T/src/d/small"
tar -C "$T/src" -cf "$T/a.tar" d

# A tar followed by 100 KiB of zero blocks (tar -b sizes, or a padded
# tape image), plain and gzipped.
{ cat "$T/a.tar"; head -c 102400 /dev/zero; } > "$T/zeros.tar"
gzip -c "$T/zeros.tar" > "$T/zeros.tgz"
# A gzip member followed by 100 KiB of junk, ignored as gzip ignores it.
{ gzip -c "$T/a.tar"; head -c 102400 /dev/zero | tr '\0' 'j'; } \
    > "$T/junk.tgz"
# A zip followed by 200 KiB after its central directory, which a zip read
# from a pipe never needs (libarchive stops at the central directory).
if command -v zip >/dev/null 2>&1; then
	(cd "$T/src" && zip -qr "$T/a.zip" d)
elif command -v bsdtar >/dev/null 2>&1; then
	bsdtar --format=zip -C "$T/src" -cf "$T/a.zip" d
fi
if [ -f "$T/a.zip" ]; then
	{ cat "$T/a.zip"; head -c 204800 /dev/zero; } > "$T/tail.zip"
fi

# pipe NAME WANT_PRODUCER WANT_PFX PRODUCER [PFEXTRACT OPTIONS...]:
# PRODUCER (a shell command) | pfextract OPTIONS; both exit statuses
# checked, output in $T/stdout and $T/err, a fresh $T/out as the
# destination.
pipe() {
	name=$1 wantp=$2 wantx=$3 producer=$4
	shift 4
	rm -rf "$T/out" "$T/prc" && mkdir "$T/out"
	{ sh -c "$producer"; echo $? > "$T/prc"; } |
	    "$pfx" "$@" > "$T/stdout" 2> "$T/err"
	rc=$?
	prc=$(cat "$T/prc")
	if [ "$prc" -eq "$wantp" ] && [ "$rc" -eq "$wantx" ]; then ok; else
		bad "$name: exit statuses $prc $rc, want $wantp $wantx;" \
		    "stderr: $(head -3 "$T/err")"
		return 1
	fi
	return 0
}

# has_tree NAME: the tree is in $T/out, whole.
has_tree() {
	cmp -s "$T/out/d/big" "$T/src/d/big" &&
	    cmp -s "$T/out/d/small" "$T/src/d/small" && ok ||
	    bad "$1: tree not extracted whole"
}

# bursts FILE: FILE in 32 KiB bursts, 0.1 s apart: a slow network.
bursts() {
	echo "n=\$(wc -c < '$1'); i=0;" \
	    "while [ \$((i * 32768)) -lt \$n ]; do" \
	    "dd if='$1' bs=32768 skip=\$i count=1 2>/dev/null || exit 1;" \
	    "sleep 0.1; i=\$((i + 1)); done"
}

for m in --sandbox=auto --no-sandbox; do
	for f in zeros.tar zeros.tgz junk.tgz; do
		pipe "cat $f $m" 0 0 "cat '$T/$f'" -xf - -C "$T/out" $m &&
		    has_tree "cat $f $m"
	done
	if [ -f "$T/tail.zip" ]; then
		pipe "cat tail.zip $m" 0 0 "cat '$T/tail.zip'" \
		    -xf - -C "$T/out" $m && has_tree "cat tail.zip $m"
		pipe "cat tail.zip, listed $m" 0 0 "cat '$T/tail.zip'" \
		    -tf - $m
	else
		skipped "tail.zip $m: neither zip nor bsdtar"
	fi
	pipe "bursts of zeros.tar $m" 0 0 "$(bursts "$T/zeros.tar")" \
	    -xf - -C "$T/out" $m && has_tree "bursts of zeros.tar $m"
	pipe "bursts of zeros.tgz $m" 0 0 "$(bursts "$T/zeros.tgz")" \
	    -xf - -C "$T/out" $m && has_tree "bursts of zeros.tgz $m"
	pipe "zeros.tar listed $m" 0 0 "cat '$T/zeros.tar'" -tvf - $m
done

# A producer that stalls after the archive's end: the decoder process
# waits for it as for any stall, up to --idle-timeout.
pipe "stall after the end" 0 2 "cat '$T/zeros.tar'; sleep 4" \
    -xf - -C "$T/out" --idle-timeout=1
grep -q 'idle-timeout' "$T/err" && ok ||
    bad "stall after the end: no --idle-timeout message: $(cat "$T/err")"

# A reader that goes away early: pfextract says nothing and ends killed
# by SIGPIPE, as tar does.  (A signal ignored on entry stays ignored:
# SigIgn bit 12 is SIGPIPE.)
# The names are long enough that even -tf writes more than a pipe holds
# (64 KiB): the writer cannot finish before the reader has gone.
mkdir -p "$T/many"
i=0
while [ $i -lt 3000 ]; do
	: > "$T/many/file-with-a-long-enough-name-to-fill-the-pipe-$i"
	i=$((i + 1))
done
tar -C "$T" -cf "$T/many.tar" many
ign=$(sed -n 's/^SigIgn:[[:space:]]*//p' /proc/self/status 2>/dev/null)
if [ -n "$ign" ] && [ $(( 0x$ign & 0x1000 )) -ne 0 ]; then
	skipped "early readers: SIGPIPE is ignored by whoever runs the tests"
else
	for m in --sandbox=auto --no-sandbox; do
		for l in -tvf -tf; do
			{ "$pfx" $l "$T/many.tar" $m 2> "$T/err"; echo $? \
			    > "$T/rc"; } | head -1 > /dev/null
			rc=$(cat "$T/rc")
			[ "$rc" -eq 141 ] && ok ||
			    bad "$l | head -1 $m: exit $rc, want 141"
			# -v says what the sandbox enforced, and nothing else.
			[ -z "$(grep -v '^pfextract: sandbox: ' "$T/err")" ] &&
			    ok || bad "$l | head -1 $m: said $(head -2 "$T/err")"
		done
		# -O (issue 19): the reader of the data goes away.
		head -c 2000000 /dev/urandom > "$T/big.bin"
		tar -C "$T" -cf "$T/big.tar" big.bin
		{ "$pfx" -xOf "$T/big.tar" $m 2> "$T/err"; echo $? \
		    > "$T/rc"; } | head -c 10 > /dev/null
		rc=$(cat "$T/rc")
		[ "$rc" -eq 141 ] && ok ||
		    bad "-xOf | head -c 10 $m: exit $rc, want 141"
		[ -s "$T/err" ] && bad "-xOf | head $m: said $(head -2 \
		    "$T/err")" || ok
		# Whole, from a pipe, it is the file.
		cat "$T/big.tar" | "$pfx" -xOf - $m | cmp -s - "$T/big.bin" &&
		    ok || bad "cat big.tar | pfextract -xOf - $m: not the file"
	done
fi

# A device as the archive is read through the decoder process's relay
# (platform/relay.c), and, unlike a pipe, not read to its end after the
# archive's: /dev/zero is an empty archive, at once, with or without the
# sandbox.
for m in "" --no-sandbox; do
	rm -rf "$T/z" && mkdir "$T/z"
	# shellcheck disable=SC2086 # M is an option or none
	timeout 20 "$pfx" -xf /dev/zero -C "$T/z" $m 2> "$T/err"
	rc=$?
	[ "$rc" -eq 0 ] && [ -z "$(ls -A "$T/z")" ] && ok ||
	    bad "-xf /dev/zero $m: exit $rc (124: hung): $(head -2 "$T/err")"
done

# A producer without end after the archive (`cat /dev/zero`, an upload
# that goes on): read past the archive only as much again and 64 MiB,
# then left; it was read for ever (or until --idle-timeout, exit 2).
for m in "" --no-sandbox; do
	rm -rf "$T/z" && mkdir "$T/z"
	# shellcheck disable=SC2086 # M is an option or none
	timeout 60 sh -c "{ cat '$T/a.tar'; cat /dev/zero; } |
	    '$pfx' -xf - -C '$T/z' $m" 2> "$T/err"
	rc=$?
	[ "$rc" -eq 0 ] && cmp -s "$T/z/d/big" "$T/src/d/big" && ok ||
	    bad "endless input after the archive $m: exit $rc (124: hung): $(head -2 "$T/err")"
done

# An input that never blocks and never ends, read past its zero blocks
# (-i, GNU tar's --ignore-zeros): SIGTERM stops the run (143) and so does
# --timeout (2), also where the archive is parsed in pfextract's own
# process; there no read(2) was cut short by the signal, and it went on.
for m in "" --no-sandbox; do
	rm -rf "$T/z" && mkdir "$T/z"
	# shellcheck disable=SC2086 # M is an option or none
	timeout -s KILL 20 sh -c "'$pfx' -xi -f /dev/zero -C '$T/z' $m &
	    p=\$!; sleep 1; kill -TERM \$p; wait \$p" 2> "$T/err"
	rc=$?
	[ "$rc" -eq 143 ] && ok ||
	    bad "-xi -f /dev/zero $m, SIGTERM: exit $rc (137: not stopped)"
	# shellcheck disable=SC2086 # M is an option or none
	timeout -s KILL 20 "$pfx" -xi -f /dev/zero -C "$T/z" --timeout=1 $m \
	    2> "$T/err"
	rc=$?
	[ "$rc" -eq 2 ] && ok ||
	    bad "-xi -f /dev/zero --timeout=1 $m: exit $rc (137: not stopped)"
done

# A FIFO named with -f (an uploader's named pipe) whose writer never
# opens it: open(2) waits for one, before the decoder process that the
# deadlines watch is started.  --timeout, and --idle-timeout under the
# sandbox, bound that wait too (exit 2, saying so), for the archive and
# a -M volume; a writer that comes in time is read as ever.
mkfifo "$T/fifo"
for m in "--timeout=1" "--idle-timeout=1" "--no-sandbox --timeout=1" \
    "-M -f $T/a.tar --timeout=1"; do
	rm -rf "$T/z" && mkdir "$T/z"
	# shellcheck disable=SC2086 # M is options
	case $m in
	-M*) timeout 20 "$pfx" -x $m -f "$T/fifo" -C "$T/z" 2> "$T/err" ;;
	*) timeout 20 "$pfx" -xf "$T/fifo" -C "$T/z" $m 2> "$T/err" ;;
	esac
	rc=$?
	[ "$rc" -eq 2 ] && grep -q 'fifo: no writer opened it within 1 s' \
	    "$T/err" && ok ||
	    bad "-xf FIFO with no writer $m: exit $rc (124: hung): $(head -2 "$T/err")"
done
rm -rf "$T/z" && mkdir "$T/z"
{ sleep 1; cat "$T/a.tar" > "$T/fifo"; } &
timeout 20 "$pfx" -xf "$T/fifo" -C "$T/z" --timeout=5 2> "$T/err"
rc=$?
wait
[ "$rc" -eq 0 ] && cmp -s "$T/z/d/big" "$T/src/d/big" && ok ||
    bad "-xf FIFO, a writer after 1 s: exit $rc: $(head -2 "$T/err")"

echo "pipes: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
