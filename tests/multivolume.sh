#!/bin/sh
#
# multivolume.sh -- GNU tar's multi-volume archives (-M, several -f), read
# by pfextract(1) as GNU tar reads them (issue 19 §5):
#   trees     volumes written by GNU tar itself (-c -M -L), in the gnu,
#             oldgnu and posix formats, with members cut across volumes,
#             a long name and a directory, symlinks, a sparse file:
#             the tree extracted and the -tv listing (-tvR for gnu) must
#             be GNU tar's, sandboxed and not, with a later volume read
#             from a pipe too;
#   hostile   a continuation that names another member, or gives another
#             offset; volumes out of order, one missing, one that is no
#             tar, a compressed one; several -f without -M: each a clear
#             error, exit 2 (64 for usage), nothing outside DEST and no
#             member cut short left under its name;
#   judged    a member named ../escape in the joined stream is refused as
#             in any archive.
#
# Usage: sh tests/multivolume.sh PATH_TO_PFEXTRACT
# Needs GNU tar (tar --version); prints "multivolume: N passed, M failed".

set -u

PFX=$1
case $PFX in
/*) ;;
*) PFX=$(pwd)/$PFX ;;
esac
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

tar --version 2>/dev/null | grep -q 'GNU tar' || {
	echo "multivolume: needs GNU tar" >&2
	exit 1
}

# The listing compared: type, path, mode, size, link target; contents.
tree_of() {
	(cd "$1" && find . -mindepth 1 -printf '%y %p %m %s %l\n' | sort &&
	    find . -type f -exec sha1sum {} + | sort -k2)
}

# The volumes' names, -f each: "-f v01 -f v02 ..." for N volumes.
vols() {
	i=1
	while [ "$i" -le "$1" ]; do
		printf -- '-f %s/v%02d ' "$2" "$i"
		i=$((i + 1))
	done
}

# --- the source tree: members cut across 10 KiB volumes ---
S=$T/src
mkdir -p "$S/dir/sub"
long=$(printf 'l%.0s' $(seq 1 150))
head -c 30000 /dev/urandom > "$S/big"
head -c 700 /dev/urandom > "$S/dir/small"
head -c 9000 /dev/urandom > "$S/dir/sub/$long"
head -c 12345 /dev/urandom > "$S/dir/odd"
: > "$S/empty"
ln -s dir/small "$S/link"
# A sparse file: data, a 1 MiB hole, data.
printf 'head' > "$S/sparse"
printf 'tail' | dd of="$S/sparse" bs=1 seek=1048576 conv=notrunc \
    2>/dev/null
for i in 1 2 3 4 5 6; do
	head -c $((i * 1700)) /dev/urandom > "$S/f$i"
done
chmod 644 "$S"/f* "$S/big" "$S/dir/small" "$S/dir/odd" "$S/sparse" \
    "$S/dir/sub/$long"
chmod 755 "$S/dir" "$S/dir/sub"

# make FMT [MEMBERS]: write the volumes of $S in $T/FMT (GNU tar), set N
# to their count.
MEMBERS="big dir empty link sparse f1 f2 f3 f4 f5 f6"
make_vols() {
	d=$T/$1
	rm -rf "$d"
	mkdir -p "$d"
	# shellcheck disable=SC2046,SC2086 # one word per -f, per member
	(cd "$S" && tar -c --format="$1" --sparse -M -L 10 \
	    $(vols 60 "$d") ${2:-$MEMBERS}) \
	    </dev/null >/dev/null 2>&1 || bad "$1: GNU tar could not write"
	N=$(ls "$d" | wc -l)
}

# The reference is GNU tar's extraction and listing of the same members
# in one volume: GNU tar 1.34 cannot read some of its own multi-volume
# sparse members back (it checks the offset of one cut right after its
# header against the file's whole size).
for fmt in gnu oldgnu posix; do
	# GNU tar 1.34 writes a posix volume set with a sparse member that
	# it cannot read back itself ("This volume is out of sequence"):
	# its sparse members are GNU tar's own suite's (spmvp*).
	[ "$fmt" = posix ] && MEMBERS="big dir empty link f1 f2 f3 f4 f5 f6"
	make_vols "$fmt"
	d=$T/$fmt
	[ "$N" -ge 5 ] || bad "$fmt: only $N volumes"
	# shellcheck disable=SC2086
	(cd "$S" && tar -c --format="$fmt" --sparse -f "$T/one.tar" $MEMBERS)
	rm -rf "$T/ref"
	mkdir "$T/ref"
	tar -x -f "$T/one.tar" -C "$T/ref" || bad "$fmt: GNU tar -x"
	tree_of "$T/ref" > "$T/ref.lst"
	tar -tv -f "$T/one.tar" > "$T/ref.tv"
	for sb in "" --no-sandbox; do
		rm -rf "$T/out"
		mkdir "$T/out"
		# shellcheck disable=SC2046
		if "$PFX" $sb --symlinks=contain -x -M $(vols "$N" "$d") \
		    -C "$T/out" 2>"$T/err"; then
			tree_of "$T/out" > "$T/out.lst"
			if cmp -s "$T/ref.lst" "$T/out.lst"; then ok; else
				bad "$fmt $sb: the tree differs from GNU tar's"
				diff "$T/ref.lst" "$T/out.lst" | head -5
			fi
		else
			bad "$fmt $sb: -x exit $?: $(cat "$T/err")"
		fi
		# shellcheck disable=SC2046
		"$PFX" $sb -tv -M $(vols "$N" "$d") > "$T/out.tv" 2>"$T/err"
		if cmp -s "$T/ref.tv" "$T/out.tv"; then ok; else
			bad "$fmt $sb: -tv differs from GNU tar's"
			diff "$T/ref.tv" "$T/out.tv" | head -5
		fi
	done
	# A later volume from a pipe (tar -f v01 -f - ...).
	rm -rf "$T/out"
	mkdir "$T/out"
	rest=$(vols "$N" "$d" | sed 's/^-f [^ ]* -f [^ ]* //')
	# shellcheck disable=SC2086
	if "$PFX" --symlinks=contain -x -M -f "$d/v01" -f - $rest \
	    -C "$T/out" < "$d/v02" 2>"$T/err"; then
		tree_of "$T/out" > "$T/out.lst"
		cmp -s "$T/ref.lst" "$T/out.lst" && ok ||
		    bad "$fmt: the tree from a piped volume differs"
	else
		bad "$fmt: -x with a piped volume: $(cat "$T/err")"
	fi
done

# The last volume from a pipe, with 1 MiB after the archive's end: read
# to its end, so that its writer ends well, not of SIGPIPE (issue 19 §4).
d=$T/gnu
N=$(ls "$d" | wc -l)
last=$(printf '%s/v%02d' "$d" "$N")
for sb in "" --no-sandbox; do
	rm -rf "$T/out"
	mkdir "$T/out"
	# shellcheck disable=SC2046
	{ cat "$last" && head -c 1048576 /dev/zero; echo $? > "$T/wrc"; } |
	    "$PFX" $sb --symlinks=contain -x -M $(vols $((N - 1)) "$d") \
	    -f - -C "$T/out" 2>"$T/err" ||
	    bad "piped last volume $sb: $(cat "$T/err")"
	[ "$(cat "$T/wrc")" = 0 ] && ok ||
	    bad "piped last volume $sb: its writer exited $(cat "$T/wrc")"
done

# Descriptors: one more per volume after the first, said before the run
# begins when the limit is short of it (a run needs 10 otherwise).
rm -rf "$T/out"
mkdir "$T/out"
three=$(vols 3 "$d")
# shellcheck disable=SC2086
(ulimit -n $((10 + 2)) && exec "$PFX" --symlinks=contain -x -M $three \
    -C "$T/out") 2>"$T/err"
grep -q "no more volumes" "$T/err" && ok ||
    bad "3 volumes at ulimit -n 12: $(cat "$T/err")"
# shellcheck disable=SC2086
(ulimit -n $((10 + 1)) && exec "$PFX" --symlinks=contain -x -M $three \
    -C "$T/out") 2>"$T/err"
[ $? = 2 ] && grep -q "each volume after the first" \
    "$T/err" && ok || bad "3 volumes at ulimit -n 11: $(cat "$T/err")"

# -R: blocks counted in the volumes, continuations included, as GNU tar
# counts them (members GNU tar reads back; its posix -R is the x header's).
for fmt in gnu oldgnu; do
	make_vols "$fmt" "big dir f1 f2 f3 f4 f5 f6"
	# shellcheck disable=SC2046
	tar -tR -M $(vols "$N" "$d") </dev/null > "$T/ref.R" 2>"$T/ref.Re"
	# shellcheck disable=SC2046
	"$PFX" -tR -M $(vols "$N" "$d") > "$T/out.R" 2>"$T/out.Re"
	# The warnings too (a long name cut in an 'M' header).
	sed -i 's/^tar: /pfextract: /' "$T/ref.Re"
	if [ -s "$T/ref.R" ] && cmp -s "$T/ref.R" "$T/out.R" &&
	    cmp -s "$T/ref.Re" "$T/out.Re"; then ok; else
		bad "$fmt: -tR differs from GNU tar's"
		{ diff "$T/ref.R" "$T/out.R"; diff "$T/ref.Re" "$T/out.Re"; } |
		    head -5
	fi
done

# --- hostile: each a clear error, exit 2, nothing outside DEST ---
d=$T/gnu
make_vols gnu

# expect WHAT CODE PATTERN ARGS...: pfextract -x ARGS into a fresh DEST
# alone in its parent exits CODE, says PATTERN, and leaves nothing beside
# DEST, no temporary name in it, and no member whose data was cut short.
expect() {
	what=$1 code=$2 pat=$3
	shift 3
	rm -rf "$T/jail"
	mkdir -p "$T/jail/dest"
	"$PFX" -x "$@" -C "$T/jail/dest" >/dev/null 2>"$T/err"
	rc=$?
	if [ "$rc" != "$code" ]; then
		bad "$what: exit $rc, not $code: $(cat "$T/err")"
		return
	fi
	[ -z "$pat" ] || { grep -q -- "$pat" "$T/err" && ok ||
	    bad "$what: no '$pat' in: $(cat "$T/err")"; }
	[ "$(ls -A "$T/jail")" = dest ] && ok || bad "$what: beside DEST"
	if find "$T/jail/dest" -name '.pfx-*' | grep -q .; then
		bad "$what: a temporary name was left"
	else
		ok
	fi
	# Every file left is whole: as GNU tar extracted it.
	(cd "$T/jail/dest" && find . -type f) | while read -r f; do
		cmp -s "$S/$f" "$T/jail/dest/$f" ||
		    echo "$what: $f left cut short or wrong"
	done > "$T/cut"
	[ -s "$T/cut" ] && bad "$(cat "$T/cut")" || ok
}

# set_field VOL OFFSET LEN VALUE: write VALUE into a header's field and
# fix its checksum (the block at OFFSET's start).
patch_header() {
	python3 - "$@" <<'EOF'
import sys
path, blk, off, val = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
d = bytearray(open(path, 'rb').read())
h = blk * 512
d[h + off:h + off + len(val)] = val.encode()
d[h + 148:h + 156] = b' ' * 8
s = sum(d[h:h + 512])
d[h + 148:h + 156] = ('%06o\0 ' % s).encode()
open(path, 'wb').write(bytes(d))
EOF
}

all=$(vols "$N" "$d")
# shellcheck disable=SC2086
expect "all volumes" 0 "" --symlinks=contain -M $all
# A volume that continues another member: its 'M' header's name.
cp -r "$d" "$T/bad"
b=$T/bad
# The first volume that begins inside a member's data (an 'M' header
# whose offset is not 0; one of offset 0 only names the next member).
m=$(python3 - "$b" <<'EOF'
import os, sys
for v in sorted(os.listdir(sys.argv[1]))[1:]:
    h = open(os.path.join(sys.argv[1], v), 'rb').read(512)
    if h[156:157] == b'M' and int(h[369:380] or b'0', 8) != 0:
        print(v[1:]); break
EOF
)
[ -n "$m" ] || bad "no volume begins with an M header"
patch_header "$b/v$m" 0 0 X
# It is skipped with GNU tar's warning, as GNU tar skips it; no later
# volume continues the member either, so the run fails (GNU tar would
# ask for another volume).
# shellcheck disable=SC2086
expect "M header of another name" 2 "is not continued on this volume" \
    -M $(vols "$N" "$b")
# ... or another offset (the offset field, octal, 369).
rm -rf "$b"
cp -r "$d" "$b"
patch_header "$b/v$m" 0 369 00000000001
# shellcheck disable=SC2046
expect "M header of another offset" 2 "wrong size\|out of sequence" \
    -M $(vols "$N" "$b")
# Out of order: the second and third swapped.
# shellcheck disable=SC2046
expect "volumes out of order" 2 "out of sequence\|not continued\|out of order" \
    -M -f "$d/v01" -f "$d/v03" -f "$d/v02" $(vols "$N" "$d" |
    sed 's/^\(-f [^ ]* \)\{3\}//')
# A volume missing at the end, and in the middle.
# shellcheck disable=SC2046
expect "last volume missing" 2 "no more volumes" \
    -M $(vols $((N - 1)) "$d")
# shellcheck disable=SC2046
expect "a volume missing" 2 "not continued\|out of sequence\|out of order" \
    -M -f "$d/v01" $(vols "$N" "$d" | sed 's/^\(-f [^ ]* \)\{2\}//')
# A volume that cannot be opened: an error only once it is needed, as
# GNU tar opens each when the archive reaches it.
# shellcheck disable=SC2046
expect "a volume that cannot be opened" 2 "could not be opened" \
    -M $(vols $((N - 1)) "$d") -f "$T/nonexistent"
# shellcheck disable=SC2086
expect "an extra volume that cannot be opened" 0 "" --symlinks=contain \
    -M $all -f "$T/nonexistent"
# The first volume missing: the second begins with a continuation.
# shellcheck disable=SC2046
expect "first volume missing" 2 "earlier volume" \
    -M $(vols "$N" "$d" | sed 's/^-f [^ ]* //')
# A volume that is no tar.
rm -rf "$b"
cp -r "$d" "$b"
head -c 10240 /dev/urandom > "$b/v03"
# shellcheck disable=SC2046
expect "a volume that is no tar" 2 "does not look like a tar volume\|not continued" \
    -M $(vols "$N" "$b")
# Compressed: GNU tar writes none, and refuses -M with -z.
gzip -c "$d/v01" > "$T/v01.gz"
# shellcheck disable=SC2046
expect "a compressed volume" 2 "compressed" \
    -M -f "$T/v01.gz" $(vols "$N" "$d" | sed 's/^-f [^ ]* //')
# Several -f without -M: a usage error, as GNU tar's.
expect "several -f without -M" 64 "require '-M'" \
    -f "$d/v01" -f "$d/v02"
# -F runs a program at each volume's end: refused with its reason.
# shellcheck disable=SC2086
expect "-F" 64 "runs a program" -M -F /bin/true $all

# --- judged: an entry of the joined stream is judged as any ---
E=$T/esc
mkdir -p "$E/x"
head -c 15000 /dev/urandom > "$E/x/pad"
echo evil > "$E/x/escape"
rm -rf "$T/ev"
mkdir "$T/ev"
# shellcheck disable=SC2046
(cd "$E/x" && tar -c --format=gnu -P --transform 's,^escape,../escape,' \
    -M -L 10 $(vols 9 "$T/ev") pad escape) </dev/null >/dev/null 2>&1
n=$(ls "$T/ev" | wc -l)
rm -rf "$T/jail"
mkdir -p "$T/jail/dest"
# shellcheck disable=SC2046
"$PFX" -x -M $(vols "$n" "$T/ev") -C "$T/jail/dest" >/dev/null 2>"$T/err"
rc=$?
[ "$rc" = 1 ] && grep -q escape "$T/err" && ok ||
    bad "../escape: exit $rc: $(cat "$T/err")"
[ ! -e "$T/jail/escape" ] && ok || bad "../escape was written outside DEST"
cmp -s "$E/x/pad" "$T/jail/dest/pad" && ok || bad "pad not extracted"

# A labelled multi-volume archive: -t and -tv list the first volume's
# label ("L Volume 1") as GNU tar does; -V checks it.
rm -rf "$T/lab" && mkdir -p "$T/lab/src"
head -c 30000 /dev/urandom > "$T/lab/src/a"
head -c 20000 /dev/urandom > "$T/lab/src/b"
tar -c -M -L 20 -V "Test Volume" -f "$T/lab/v1" -f "$T/lab/v2" \
    -f "$T/lab/v3" -C "$T/lab/src" a b </dev/null >/dev/null 2>&1
for l in -t -tv; do
	tar $l -M -f "$T/lab/v1" -f "$T/lab/v2" -f "$T/lab/v3" \
	    > "$T/lab/ref" 2>&1
	"$PFX" $l -M -f "$T/lab/v1" -f "$T/lab/v2" -f "$T/lab/v3" \
	    > "$T/lab/out" 2>&1
	grep -q 'Test Volume Volume 1' "$T/lab/ref" &&
	    cmp -s "$T/lab/ref" "$T/lab/out" && ok ||
	    bad "label $l: differs from GNU tar's: $(head -2 "$T/lab/out")"
done
"$PFX" -t -M -V 'Test*' -f "$T/lab/v1" -f "$T/lab/v2" -f "$T/lab/v3" \
    >/dev/null 2>&1 && ok || bad "label: -V 'Test*' did not match"
# The label as given to GNU tar -M -V, which wrote "Test Volume Volume 1":
# GNU tar -M matches it without its " Volume N" (check_label_pattern()).
for sb in "" --no-sandbox; do
	"$PFX" -t -M -V 'Test Volume' $sb -f "$T/lab/v1" -f "$T/lab/v2" \
	    -f "$T/lab/v3" >/dev/null 2>&1 && ok ||
	    bad "label: -M -V 'Test Volume' $sb did not match"
done
"$PFX" -t -M -V 'Other*' -f "$T/lab/v1" -f "$T/lab/v2" -f "$T/lab/v3" \
    >/dev/null 2>&1; rc=$?
[ "$rc" = 2 ] && ok || bad "label: -V 'Other*' exit $rc, want 2"
# --test-label: with -M an operand matches the label without its
# " Volume N" too, as in GNU tar; the output and exit status as its.
for ops in "" "-M" "-M 'Test Volume'" "'Test Volume'" "-M Test" \
    "-M 'Test Volume Volume 1'" "-M -v Other"; do
	eval "tar --test-label -f \"\$T/lab/v1\" $ops" >"$T/lab/ref" 2>&1
	trc=$?
	eval "\"\$PFX\" --test-label -f \"\$T/lab/v1\" $ops" >"$T/lab/out" \
	    2>&1
	prc=$?
	sed -i 's/^tar: /pfextract: /' "$T/lab/ref"
	[ "$trc" = "$prc" ] && cmp -s "$T/lab/ref" "$T/lab/out" && ok ||
	    bad "--test-label $ops: tar exit $trc, pfextract $prc:" \
	    "$(head -2 "$T/lab/out")"
done

# A member whose name is longer than the 100 bytes of GNU tar's 'M'
# header (multiv03): the continuation is taken by those 100 bytes, its
# size and offset, and GNU tar's warning is given, -x and -t, with the
# decoder process and without; the file whole, exit 0.
rm -rf "$T/tn" && mkdir -p "$T/tn/src"
B=$(awk 'BEGIN { for (i = 0; i < 101; i++) printf "b"; exit; }')
head -c 15360 /dev/urandom > "$T/tn/src/$B"
(cd "$T/tn/src" && tar -M -L 10 -c -f ../arch.1 -f ../arch.2 "$B" \
    </dev/null 2>/dev/null)
for op in -x -t; do
	(cd "$T/tn" && tar $op -M -f arch.1 -f arch.2 >/dev/null 2>ref)
	for sb in "" --no-sandbox; do
		rm -f "$T/tn/$B"
		(cd "$T/tn" && "$PFX" $op -M -f arch.1 -f arch.2 $sb \
		    >/dev/null 2>err)
		rc=$?
		sed 's/^tar: /pfextract: /' "$T/tn/ref" >"$T/tn/want"
		if [ $rc = 0 ] && grep -q 'truncated name' "$T/tn/want" &&
		    cmp -s "$T/tn/want" "$T/tn/err" && { [ $op = -t ] ||
		    cmp -s "$T/tn/src/$B" "$T/tn/$B"; }; then ok; else
			bad "101-byte name $op $sb: exit $rc: $(cat "$T/tn/err")"
		fi
	done
done

# A volume out of sequence, then the right one (GNU tar's multiv05,
# suite test 157): GNU tar warns that the member it waits for is not
# continued on that volume, skips it and goes on with the next -f; so
# does pfextract, -x, -t and -tR (a skipped volume counts no blocks),
# with the decoder process and without: the
# same tree, the same warning, exit 0.  And a volume continuing the same
# member from further on (out of sequence), with another size, or not at
# all (an archive of its own), skipped the same way.
rm -rf "$T/oos" && mkdir -p "$T/oos/src" "$T/oos/one"
for f in jeden dwa trzy cztery piec szesc; do
	head -c 20000 /dev/urandom > "$T/oos/src/$f"
done
head -c 25000 /dev/urandom > "$T/oos/one/big"
(cd "$T/oos/src" && tar -c -M -L 50 -f ../a -f ../b -f ../c \
    jeden dwa trzy cztery piec szesc </dev/null >/dev/null 2>&1)
(cd "$T/oos/one" && tar -c -M -L 10 -f ../A -f ../B -f ../C big \
    </dev/null >/dev/null 2>&1)
# Another 'big', longer, in volumes of its own (B2 continues it with
# another size), and an archive of its own (X: no continuation at all).
mkdir -p "$T/oos/two" && head -c 30000 /dev/urandom > "$T/oos/two/big"
(cd "$T/oos/two" && tar -c -M -L 10 -f ../A2 -f ../B2 -f ../C2 -f ../D2 \
    big </dev/null >/dev/null 2>&1 && tar -cf ../X big)
for set in "a c b c:src:is not continued on this volume" \
    "A C B C:one:out of sequence" "A B2 B C:one:is the wrong size" \
    "A X B C:one:is not continued on this volume"; do
	order=${set%%:*} tree=${set#*:} want=${tree#*:} tree=${tree%%:*}
	args=$(for v in $order; do printf ' -f %s' "$v"; done)
	for op in -x -t -tR; do
		rm -rf "$T/oos/ref" && mkdir "$T/oos/ref"
		# shellcheck disable=SC2086
		(cd "$T/oos" && tar $op -M $args -C ref </dev/null \
		    >ref.out 2>ref.err)
		for sb in "" --no-sandbox; do
			rm -rf "$T/oos/dest" && mkdir "$T/oos/dest"
			# shellcheck disable=SC2086
			(cd "$T/oos" && "$PFX" $op -M $args -C dest $sb \
			    >out 2>err)
			rc=$?
			# GNU tar's numbers are not said: the member is.
			sed -e 's/^tar: /pfextract: /' -e 's/(.*)$//' \
			    "$T/oos/ref.err" > "$T/oos/want"
			sed 's/(.*)$//' "$T/oos/err" > "$T/oos/got"
			if [ $rc = 0 ] && grep -q "$want" "$T/oos/want" &&
			    cmp -s "$T/oos/want" "$T/oos/got" &&
			    cmp -s "$T/oos/ref.out" "$T/oos/out" &&
			    { [ $op != -x ] || diff -r "$T/oos/$tree" \
			    "$T/oos/dest" >/dev/null; } &&
			    diff -r "$T/oos/ref" "$T/oos/dest" >/dev/null; then
				ok
			else
				bad "$order $op $sb: exit $rc: $(cat "$T/oos/err")"
			fi
		done
	done
done

# A volume skipped that is standard input, a pipe longer than a pipe's
# buffer: read to its end, so that its writer exits 0, not by SIGPIPE.
rm -rf "$T/oos/p" && mkdir -p "$T/oos/p/src" "$T/oos/p/dest"
head -c 350000 /dev/urandom > "$T/oos/p/src/big"
(cd "$T/oos/p/src" && tar -c -M -L 100 -f ../a -f ../b -f ../c -f ../d \
    big </dev/null >/dev/null 2>&1)
for sb in "" --no-sandbox; do
	rm -rf "$T/oos/p/dest" && mkdir "$T/oos/p/dest"
	(cd "$T/oos/p" && { cat c; echo $? > cat.rc; } |
	    "$PFX" -xM -f a -f - -f b -f c -f d -C dest $sb 2>err)
	rc=$?
	if [ $rc = 0 ] && [ "$(cat "$T/oos/p/cat.rc")" = 0 ] &&
	    grep -q 'out of sequence' "$T/oos/p/err" &&
	    cmp -s "$T/oos/p/src/big" "$T/oos/p/dest/big"; then ok; else
		bad "skipped stdin $sb: exit $rc, cat $(cat "$T/oos/p/cat.rc"):" \
		    "$(cat "$T/oos/p/err")"
	fi
done

echo "multivolume: $pass passed, $fail failed"
[ "$fail" = 0 ]
