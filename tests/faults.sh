#!/bin/sh
# Faults and signals, end to end: what pfextract leaves when a run cannot
# finish.  Disk full (a 256 KiB tmpfs), EIO, EDQUOT and ENOSPC from
# write(2) and EMFILE from openat(2) (tests/faultshim.c, LD_PRELOAD), EIO
# from fsync(2) under --fsync, EMFILE from `ulimit -n`, a read-only, a
# missing and a vanishing destination, permission denied, a truncated or
# corrupt archive, standard input closed early, and SIGINT, SIGTERM,
# SIGHUP and SIGPIPE mid-extraction.
#
# Every case asserts: the exit status (2, or 128 + the signal), a message
# naming the cause (and the entry, where there is one; none at all for
# SIGPIPE, as with tar), no ".pfx-"
# temporary in the destination, no file under its final name that is not
# whole (each is compared with its source), and nothing outside the
# destination changed (a snapshot of $T/outside and of the destination's
# parent).  When `pfextract --help` lists --atomic, each case runs again
# with --atomic and asserts the destination exactly as before and no
# staging directory left beside it.  Also checked: a file being written
# is never under its final name (read while the input stalls), and the
# order of --fsync's calls (files before their rename, directories
# deepest first, the destination last).
#
# Needs root for the mount and setpriv cases; each skips with a message
# when it cannot run.
# Usage: sh tests/faults.sh PFEXTRACT FAULTSHIM_SO
set -u
pfx=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
shim=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
T=$(mktemp -d)
chmod 755 "$T"		# the permission case runs as nobody
pids=
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	for m in "$T"/mnt-*; do
		[ -d "$m" ] && umount -l "$m" 2>/dev/null
	done
	rm -rf "$T"
}
trap cleanup EXIT
pass=0 fail=0 skip=0
ok() { pass=$((pass + 1)); }
bad() { echo "faults.sh: FAIL: $*" >&2; fail=$((fail + 1)); }
skipped() { echo "faults.sh: skip: $*" >&2; skip=$((skip + 1)); }

modes=plain
if "$pfx" --help 2>&1 | grep -q -e '--atomic'; then
	modes="plain atomic"
fi
# Signals must reach pfextract even from a background job of sh, which
# ignores SIGINT there.
sigdfl="env --default-signal=INT,TERM,HUP,PIPE"
$sigdfl true 2>/dev/null || sigdfl=env

# The source tree and its archives: entries in name order.
mkdir -p "$T/src/d" "$T/outside/dir"
head -c 1000 /dev/urandom > "$T/src/d/a-small"
head -c 300000 /dev/urandom > "$T/src/d/f1"
head -c 300000 /dev/urandom > "$T/src/d/f2"
head -c 300000 /dev/urandom > "$T/src/d/f3"
head -c 1000 /dev/urandom > "$T/src/d/z-last"
head -c 600000 /dev/urandom > "$T/src/d/big"
tar --sort=name -C "$T/src" -cf "$T/a.tar" d/a-small d/f1 d/f2 d/f3 d/z-last
tar --sort=name -C "$T/src" -cf "$T/big.tar" d/a-small d/big d/z-last
mkdir "$T/src/m"
i=0
while [ $i -lt 3000 ]; do
	: > "$T/src/m/entry-with-a-rather-long-name-to-fill-the-pipe-$i"
	i=$((i + 1))
done
tar --sort=name -C "$T/src" -cf "$T/many.tar" m
chmod -R a+rX "$T/src" "$T/a.tar"
printf 'secret\n' > "$T/outside/secret"
printf 'keep\n' > "$T/outside/dir/keep"
chmod 600 "$T/outside/secret"
# Where the archive cuts d/f2's data in half: 150000 bytes past its header.
cut=$(( $(grep -boa 'd/f2' "$T/a.tar" | head -1 | cut -d: -f1) + 512 + 150000 ))

snap_outside() {
	(cd "$T/outside" &&
	    find . -printf '%p %y %m %s %T@ %C@ %i %n\n' | LC_ALL=C sort &&
	    find . -type f -exec sha256sum {} + | LC_ALL=C sort)
}

# snap_dest DIR: DIR's whole content, or "absent".
snap_dest() {
	if [ -e "$1" ] || [ -L "$1" ]; then
		(cd "$1" && find . -printf '%p %y %m %s %T@\n' |
		    LC_ALL=C sort &&
		    find . -type f -exec sha256sum {} + | LC_ALL=C sort)
	else
		echo absent
	fi
}

# beside DEST: the names beside DEST in its parent, DEST left out.
beside() {
	ls -A "$(dirname "$1")" 2>/dev/null | grep -vx "$(basename "$1")"
}

# prepare DEST: remember what must not change.
prepare() {
	DEST=$1
	out_before=$(snap_outside)
	dest_before=$(snap_dest "$DEST")
	beside_before=$(beside "$DEST")
}

# judge NAME MODE RC WANT PATTERN: the run's outcome, as the top says.
judge() {
	name="$1 ($2)" mode=$2 rc=$3 want=$4 pattern=$5
	if [ "$rc" -eq "$want" ]; then ok; else
		bad "$name: exit $rc, want $want; stderr: $(head -3 "$T/err")"
	fi
	# An empty PATTERN: nothing may be said but -v's sandbox line.
	if [ -z "$pattern" ]; then
		[ -z "$(grep -v '^pfextract: sandbox: ' "$T/err")" ] && ok ||
		    bad "$name: stderr not empty: $(head -3 "$T/err")"
	elif grep -Eq -- "$pattern" "$T/err"; then ok; else
		bad "$name: stderr lacks /$pattern/: $(head -3 "$T/err")"
	fi
	[ "$(snap_outside)" = "$out_before" ] && ok ||
	    bad "$name: something outside the destination changed"
	# No temporary and no staging directory beside it, either.
	[ "$(beside "$DEST")" = "$beside_before" ] && ok ||
	    bad "$name: left beside the destination: $(beside "$DEST")"
	if [ "$mode" = atomic ]; then
		[ "$(snap_dest "$DEST")" = "$dest_before" ] && ok ||
		    bad "$name: --atomic, yet the destination changed"
		return
	fi
	[ -d "$DEST" ] || return 0
	tmp=$(find "$DEST" -name '.pfx-*' | head -3)
	[ -z "$tmp" ] && ok || bad "$name: temporaries left: $tmp"
	[ "${nocmp:-no}" = yes ] && return
	find "$DEST" -type f > "$T/files"
	while IFS= read -r f; do
		rel=${f#"$DEST"/}
		cmp -s "$f" "$T/src/$rel" ||
		    bad "$name: $rel is under its final name but not whole"
	done < "$T/files"
}

# opt MODE: the option that MODE adds.
opt() { [ "$1" = atomic ] && echo --atomic; }

# mount_tmpfs NAME OPTIONS: a tmpfs at $T/mnt-NAME; fails when it cannot.
mount_tmpfs() {
	mkdir -p "$T/mnt-$1" &&
	    mount -t tmpfs -o "$2" "pfx-faults" "$T/mnt-$1" 2>/dev/null
}

# --- disk full ------------------------------------------------------------
for mode in $modes; do
	if ! mount_tmpfs full-$mode size=256k; then
		skipped "disk full: cannot mount a tmpfs (not root?)"
		break
	fi
	mkdir "$T/mnt-full-$mode/dest"
	prepare "$T/mnt-full-$mode/dest"
	"$pfx" -xf "$T/big.tar" -C "$DEST" $(opt $mode) 2> "$T/err"
	judge "disk full" $mode $? 2 \
	    '^pfextract: d/big: .*No space left on device'
	# Said once: as the entry's failure, not again as the run's end.
	n=$(grep -c 'No space left on device' "$T/err")
	[ "$n" -eq 1 ] && ok ||
	    bad "disk full ($mode): said $n times: $(cat "$T/err")"
	umount -l "$T/mnt-full-$mode"
done

# --- errors injected into write, openat, fsync ------------------------------
# shim_case NAME SPEC PATTERN [OPTION]
shim_case() {
	for mode in $modes; do
		rm -rf "$T/w" && mkdir -p "$T/w/dest"
		prepare "$T/w/dest"
		FAULTSHIM=$2 LD_PRELOAD=$shim "$pfx" -xf "$T/a.tar" \
		    -C "$DEST" $(opt $mode) ${4:-} 2> "$T/err"
		judge "$1" $mode $? 2 "$3"
	done
}
# The second write of file data (4 KiB or more: d/f1, d/f2 and d/f3 are
# 300 kB each, written in as many pieces as their data came in) fails.
shim_case "write EIO" write:EIO:min=4096:after=1 '^pfextract: d/f[123]: .*Input/output error'
shim_case "write EDQUOT" write:EDQUOT:min=4096:after=1 '^pfextract: d/f[123]: .*Disk quota exceeded'
shim_case "write ENOSPC" write:ENOSPC:min=4096:after=1 '^pfextract: d/f[123]: .*No space left on device'
# For good: a file that cannot be opened for want of descriptors is
# tried once more in its parent looked up afresh (the kept one let go),
# again after the files queued for the worker thread gave theirs back
# (planned for three CPUs, --cpus=3, where the worker runs), and again
# for a second, in naps (extract/fdbudget.c); then it fails.
shim_case "openat EMFILE" openat:EMFILE:dir=d:after=2 '^pfextract: d/f2: .*Too many open files'
shim_case "openat EMFILE, worker" openat:EMFILE:dir=d:after=2 '^pfextract: d/f2: .*Too many open files' --cpus=3
shim_case "write ENOSPC, worker" write:ENOSPC:min=4096:after=1 '^pfextract: d/f[123]: .*No space left on device' --cpus=3
shim_case "fsync EIO" fsync:EIO:after=2 'Input/output error' --fsync
# A full disk when the links are made, at the end: fatal as for a file,
# so --atomic publishes no tree that lacks them.
ln -s f1 "$T/src/d/l1" && ln -s f2 "$T/src/d/l2"
tar --sort=name -C "$T/src" -cf "$T/links.tar" d/a-small d/f1 d/f2 d/l1 \
    d/l2
for mode in $modes; do
	rm -rf "$T/w" && mkdir -p "$T/w/dest"
	prepare "$T/w/dest"
	FAULTSHIM=symlinkat:ENOSPC:after=1 LD_PRELOAD=$shim "$pfx" \
	    --symlinks=contain -xf "$T/links.tar" -C "$DEST" $(opt $mode) \
	    2> "$T/err"
	judge "symlinkat ENOSPC" $mode $? 2 \
	    '^pfextract: d/l2: .*No space left on device'
done
# The links after it are not made, and what stands at their names stays.
rm -rf "$T/w" && mkdir -p "$T/w/dest/d"
echo keep > "$T/w/dest/d/l1" && echo keep > "$T/w/dest/d/l2"
FAULTSHIM=symlinkat:ENOSPC:after=0:times=1 LD_PRELOAD=$shim "$pfx" \
    --symlinks=contain -xf "$T/links.tar" -C "$T/w/dest" 2> "$T/err"
rc=$?
[ "$rc" -eq 2 ] && [ "$(cat "$T/w/dest/d/l1")" = keep ] &&
    [ "$(cat "$T/w/dest/d/l2")" = keep ] && ok ||
    bad "symlinkat ENOSPC, old names: exit $rc: $(ls -l "$T/w/dest/d")"
rm "$T/src/d/l1" "$T/src/d/l2"

# For a moment (as when another thread of a library caller holds the
# descriptors): the waits outlast it, and the run is whole.
for mode in $modes; do
	rm -rf "$T/w" && mkdir -p "$T/w/dest"
	FAULTSHIM=openat:EMFILE:dir=d:after=2:times=6 LD_PRELOAD=$shim \
	    "$pfx" -xf "$T/a.tar" -C "$T/w/dest" $(opt $mode) 2> "$T/err"
	rc=$?
	whole=yes
	for f in a-small f1 f2 f3 z-last; do
		cmp -s "$T/src/d/$f" "$T/w/dest/d/$f" || whole=no
	done
	[ $rc -eq 0 ] && [ $whole = yes ] &&
	    [ -z "$(find "$T/w" -name '.pfx-*')" ] && ok ||
	    bad "openat EMFILE for a moment ($mode): exit $rc: $(head -3 "$T/err")"
done

# --- EMLINK: a hard link the file system refuses is one entry refused -------
# (65,001 links to one file on ext4.)  The archive: f, h -> f, g; the
# second linkat(2), h's (after f's name; the shim does not count the
# probes for O_TMPFILE, links to "."), fails.  h is refused (too_many_links, exit 1, as an entry refused), and
# g is still made: the run goes on, as GNU tar's.
mkdir -p "$T/src/ml"
echo f > "$T/src/ml/f" && ln "$T/src/ml/f" "$T/src/ml/h" &&
    echo g > "$T/src/ml/g"
tar -C "$T/src/ml" -cf "$T/emlink.tar" f h g
for mode in $modes; do
	rm -rf "$T/w" && mkdir -p "$T/w/dest"
	FAULTSHIM=linkat:EMLINK:after=1:times=1 LD_PRELOAD=$shim "$pfx" \
	    -xf "$T/emlink.tar" -C "$T/w/dest" $(opt $mode) 2> "$T/err"
	rc=$?
	[ $rc -eq 1 ] &&
	    grep -q '^pfextract: h: the file system allows no more links' \
	    "$T/err" && [ "$(cat "$T/w/dest/f")" = f ] &&
	    [ "$(cat "$T/w/dest/g")" = g ] && [ ! -e "$T/w/dest/h" ] &&
	    [ -z "$(find "$T/w/dest" -name '.pfx-*')" ] && ok ||
	    bad "linkat EMLINK ($mode): exit $rc: $(cat "$T/err"); $(ls -A "$T/w/dest")"
done

# --- EMFILE from a low `ulimit -n`: every limit fails cleanly or works -----
for mode in $modes; do
	n=4 done=no named=no
	while [ $n -lt 24 ]; do
		rm -rf "$T/w" && mkdir -p "$T/w/dest"
		prepare "$T/w/dest"
		sh -c 'ulimit -n "$1" && shift && exec "$@"' sh $n "$pfx" \
		    -xf "$T/a.tar" -C "$DEST" $(opt $mode) 2> "$T/err"
		rc=$?
		if [ $rc -eq 0 ]; then done=yes; break; fi
		judge "ulimit -n $n" $mode $rc 2 \
		    'Too many open files|too few file descriptors'
		# Below the least a run needs it says so before it begins,
		# naming that least; above, a failure names its entry.
		need=$(sed -n 's/.*extracting needs \([0-9]*\).*/\1/p' \
		    "$T/err")
		grep -q '^pfextract: d/' "$T/err" && named=yes
		n=$((n + 1))
	done
	[ $done = yes ] && ok || bad "ulimit -n ($mode): never succeeded"
	# The least announced is the least that works.
	[ $named = yes ] || [ "${need:-0}" -eq "$n" ] && ok ||
	    bad "ulimit -n ($mode): works from $n, said it needs ${need:-?}"
done

# --- a read-only destination ------------------------------------------------
for mode in $modes; do
	if ! mount_tmpfs ro-$mode size=1m; then
		skipped "read-only destination: cannot mount a tmpfs"
		break
	fi
	mkdir "$T/mnt-ro-$mode/dest"
	mount -o remount,ro "$T/mnt-ro-$mode"
	prepare "$T/mnt-ro-$mode/dest"
	"$pfx" -xf "$T/a.tar" -C "$DEST" $(opt $mode) 2> "$T/err"
	judge "read-only destination" $mode $? 2 'Read-only file system'
	umount -l "$T/mnt-ro-$mode"
done

# --- a destination that is not there ----------------------------------------
for mode in $modes; do
	rm -rf "$T/gone"
	prepare "$T/gone/dest"
	"$pfx" -xf "$T/a.tar" -C "$DEST" $(opt $mode) 2> "$T/err"
	judge "missing destination" $mode $? 2 'No such file or directory'
done

# --- permission denied: nobody into a directory of root's -------------------
if command -v setpriv >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ]; then
	for mode in $modes; do
		rm -rf "$T/w" && mkdir -p "$T/w/dest" && chmod 755 "$T/w"
		prepare "$T/w/dest"
		setpriv --reuid=65534 --regid=65534 --clear-groups \
		    "$pfx" -xf "$T/a.tar" -C "$DEST" $(opt $mode) 2> "$T/err"
		judge "permission denied" $mode $? 2 'Permission denied'
	done
else
	skipped "permission denied: needs root and setpriv"
fi

# --- truncated and corrupt archives, standard input closed early -----------
head -c "$cut" "$T/a.tar" > "$T/cut.tar"
cp "$T/a.tar" "$T/bad.tar"
off=$(grep -boa 'd/f2' "$T/bad.tar" | head -1 | cut -d: -f1)
printf 'XXXXXXXX' | dd of="$T/bad.tar" bs=1 seek=$((off + 148)) conv=notrunc \
    2>/dev/null
# Damage inside a deflate stream of text: it decodes to wrong bytes for a
# while before the damage breaks the tar structure.
seq 1 200000 > "$T/src/d/text"
tar -C "$T/src" -czf "$T/bad.tgz" d/text d/f1
head -c 64 /dev/zero | tr '\0' '\377' |
    dd of="$T/bad.tgz" bs=1 seek=20000 conv=notrunc 2>/dev/null
for mode in $modes; do
	rm -rf "$T/w" && mkdir -p "$T/w/dest"
	prepare "$T/w/dest"
	"$pfx" -xf "$T/cut.tar" -C "$DEST" $(opt $mode) 2> "$T/err"
	judge "truncated archive" $mode $? 2 \
	    '^pfextract: d/f2: archive data cannot be read'
	rm -rf "$T/w" && mkdir -p "$T/w/dest"
	prepare "$T/w/dest"
	"$pfx" -xf "$T/bad.tar" -C "$DEST" $(opt $mode) 2> "$T/err"
	judge "corrupt header" $mode $? 2 'corrupt or unreadable archive'
	rm -rf "$T/w" && mkdir -p "$T/w/dest"
	prepare "$T/w/dest"
	"$pfx" -xf "$T/bad.tgz" -C "$DEST" $(opt $mode) 2> "$T/err"
	# A tar has no checksum of its own data, and libarchive 3.6 does not
	# check gzip's: d/text may be whole in size but wrong, as with tar.
	# Only --atomic keeps it from being published.
	rc=$?
	nocmp=yes
	judge "corrupt gzip" $mode $rc 2 \
	    'cannot be read|corrupt|decompression failed'
	nocmp=no
	rm -rf "$T/w" && mkdir -p "$T/w/dest"
	prepare "$T/w/dest"
	head -c "$cut" "$T/a.tar" | "$pfx" -x -C "$DEST" $(opt $mode) \
	    2> "$T/err"
	judge "standard input closed early" $mode $? 2 \
	    '^pfextract: d/f2: archive data cannot be read'
done

# --- slow input: a FIFO the test writes to ---------------------------------
# start_slow MODE [OPTION...]: pfextract reads $T/fifo into $DEST (made
# ready by prepare) in the background; the test holds the write end on
# fd 3 and has written the archive up to the middle of d/f2.  Sets $pid.
start_slow() {
	mode=$1
	shift
	rm -f "$T/fifo" && mkfifo "$T/fifo"
	$sigdfl "$pfx" -xf "$T/fifo" -C "$DEST" $(opt $mode) "$@" \
	    > "$T/out" 2> "$T/err" &
	pid=$!
	pids="$pids $pid"
	exec 3> "$T/fifo"
	head -c "$cut" "$T/a.tar" >&3
}

# writing DIR: is pfextract ($pid, or its child that extracts) writing a
# file beneath DIR?  Either a file with no name (O_TMPFILE, which /proc
# shows as "DIR/... (deleted)") or one under a temporary name, with data in
# it either way.
writing() {
	kids=$(cat /proc/$pid/task/*/children 2>/dev/null)
	for f in $(for p in $pid $kids; do echo /proc/$p/fd/*; done); do
		l=$(readlink "$f" 2>/dev/null) || continue
		# Behind read-only mounts (run as root) the writer's files are
		# on a mount tree of its own rooted at DIR, DEST's parent:
		# seen from here, their paths start at "/dest".
		case $l in
		"$1"/*" (deleted)" | /dest/*" (deleted)")
			[ "$(stat -L -c %s "$f" 2>/dev/null || echo 0)" -gt 0 ] &&
			    return 0 ;;
		esac
	done
	[ -n "$(find "$1" -name '.pfx-*' -type f -size +0 2>/dev/null)" ]
}

# wait_tmp DIR: wait (5 s at most) until a file is being written beneath
# DIR.
wait_tmp() {
	i=0
	while [ $i -lt 100 ]; do
		writing "$1" && return 0
		sleep 0.05
		i=$((i + 1))
	done
	return 1
}

# A file being written has no name, or a temporary one, never its own.
for mode in $modes; do
	rm -rf "$T/w" && mkdir -p "$T/w/dest"
	prepare "$T/w/dest"
	start_slow $mode
	if wait_tmp "$T/w"; then ok; else bad "stalled ($mode): no file being written"; fi
	[ -z "$(find "$T/w" -path '*/d/f2')" ] && ok ||
	    bad "stalled ($mode): d/f2 under its final name before it is whole"
	[ "$mode" = atomic ] || { cmp -s "$T/w/dest/d/f1" "$T/src/d/f1" && ok ||
	    bad "stalled: d/f1 not whole before d/f2 began"; }
	tail -c +$((cut + 1)) "$T/a.tar" >&3
	exec 3>&-
	wait $pid
	rc=$?
	[ $rc -eq 0 ] && ok || bad "stalled ($mode): exit $rc: $(cat "$T/err")"
	cmp -s "$T/w/dest/d/f2" "$T/src/d/f2" && ok ||
	    bad "stalled ($mode): d/f2 not whole at the end"
done

# SIGINT, SIGTERM and SIGHUP while the input stalls in d/f2's data.
for mode in $modes; do
	for sig in INT:130 TERM:143 HUP:129; do
		s=${sig%:*} want=${sig#*:}
		rm -rf "$T/w" && mkdir -p "$T/w/dest"
		prepare "$T/w/dest"
		start_slow $mode --report=json
		wait_tmp "$T/w" || bad "SIG$s ($mode): never started"
		kill -s "$s" $pid
		wait $pid
		rc=$?
		exec 3>&-
		judge "SIG$s" $mode $rc $want "^pfextract: interrupted by SIG$s\$"
		tail -1 "$T/out" | grep -q "\"error\":\"interrupted by SIG$s\"" &&
		    ok || bad "SIG$s ($mode): summary: $(tail -1 "$T/out")"
		[ "$mode" = atomic ] || { [ ! -e "$T/w/dest/d/f2" ] &&
		    [ -f "$T/w/dest/d/f1" ] && ok ||
		    bad "SIG$s: d/f1 lost or d/f2 kept"; }
	done
done

# The destination removed while the input stalls (not with --atomic,
# whose destination is only made at the end).
rm -rf "$T/w" && mkdir -p "$T/w/dest"
prepare "$T/w/dest"
start_slow plain
wait_tmp "$T/w"
rm -rf "$T/w/dest"
tail -c +$((cut + 1)) "$T/a.tar" >&3
exec 3>&-
wait $pid
judge "destination removed mid-run" plain $? 2 \
    '^pfextract: d/f2: the destination directory was removed'

# SIGPIPE: the reader of -v or of --report=json goes away; pfextract says
# nothing, and ends killed by SIGPIPE, as tar does (141 to the shell).
# (A signal ignored on entry stays ignored: SigIgn bit 12 is SIGPIPE.)
ign=$(sed -n 's/^SigIgn:[[:space:]]*//p' /proc/self/status 2>/dev/null)
if [ -n "$ign" ] && [ $(( 0x$ign & 0x1000 )) -ne 0 ]; then
	skipped "SIGPIPE: ignored by whoever runs the tests"
else
	for mode in $modes; do
		for how in -v --report=json; do
			rm -rf "$T/w" && mkdir -p "$T/w/dest"
			prepare "$T/w/dest"
			{ $sigdfl "$pfx" -xf "$T/many.tar" -C "$DEST" \
			    $(opt $mode) $how 2> "$T/err"; echo $? > "$T/rc"; } |
			    head -1 > /dev/null
			judge "SIGPIPE $how" $mode "$(cat "$T/rc")" 141 ''
		done
	done
fi

# --fsync: each file synced before it is named, directories after their
# entries, deepest first, the destination last.
rm -rf "$T/w" "$T/log" && mkdir -p "$T/w/dest" "$T/t/a/b"
echo 1 > "$T/t/a/b/x" && echo 2 > "$T/t/a/y" && echo 3 > "$T/t/z"
tar --sort=name -C "$T/t" -cf "$T/t.tar" a z
FAULTSHIM_LOG=$T/log LD_PRELOAD=$shim "$pfx" -xf "$T/t.tar" -C "$T/w/dest" \
    --fsync 2> "$T/err"
rc=$?
[ $rc -eq 0 ] && ok || bad "--fsync: exit $rc: $(cat "$T/err")"
ino() { stat -c %i "$T/w/dest/$1"; }
# line N: the line number of the first log line equal to N.
line() { grep -nxF "$1" "$T/log" | head -1 | cut -d: -f1; }
for f in a/b/x a/y z; do
	s=$(line "fsync $(ino $f)") r=$(line "name $(ino "$(dirname "$f")") $(basename "$f")")
	[ -n "$s" ] && [ -n "$r" ] && [ "$s" -lt "$r" ] && ok ||
	    bad "--fsync: $f not synced before it was named: $(cat "$T/log")"
done
b=$(line "fsync $(ino a/b)") a=$(line "fsync $(ino a)") d=$(line "fsync $(ino .)")
x=$(line "name $(ino a/b) x")
[ -n "$b" ] && [ -n "$a" ] && [ -n "$d" ] && [ "$x" -lt "$b" ] &&
    [ "$b" -lt "$a" ] && [ "$a" -lt "$d" ] && ok ||
    bad "--fsync: directories not synced deepest first: $(cat "$T/log")"
[ "$(tail -1 "$T/log")" = "fsync $(ino .)" ] && ok ||
    bad "--fsync: the destination is not synced last"

# --atomic: a staging tree that cannot be removed is always told, even
# when the error before it fills the message (a long DEST path).
if [ "$modes" != plain ]; then
	long=$T/w/$(printf 'd%.0s' $(seq 1 200))/$(printf 'e%.0s' $(seq 1 200))
	rm -rf "$T/w" && mkdir -p "$long"
	head -c 3000 "$T/t.tar" > "$T/cut.tar"
	FAULTSHIM=unlinkat:EACCES LD_PRELOAD=$shim "$pfx" -xf "$T/cut.tar" \
	    -C "$long/dest" --atomic 2> "$T/err"
	rc=$?
	[ $rc -eq 2 ] && grep -q 'the staging directory .* could not be removed: Permission denied$' "$T/err" &&
	    [ ! -e "$long/dest" ] && ok ||
	    bad "--atomic: leftover staging not told: exit $rc: $(cat "$T/err")"
fi

# --atomic over a populated DEST: a rename that fails in the middle of
# putting names in place takes back every name put; an unlink that fails
# while a failed run is undone is told, with the temporary names left.
if [ "$modes" != plain ]; then
	rm -rf "$T/pop" && mkdir -p "$T/pop/src/d" "$T/pop/v2/d"
	for i in 1 2 3 4 5 6; do
		echo "old $i" > "$T/pop/src/d/f$i"
		echo "new $i" > "$T/pop/v2/d/f$i"
	done
	echo new > "$T/pop/v2/d/g"
	tar -C "$T/pop/v2" -cf "$T/pop/v2.tar" d
	head -c 4000 "$T/pop/v2.tar" > "$T/pop/cut.tar"
	popsnap() {
		(cd "$T/pop/dest" && find . -printf '%p %i %y %m %T@ %s\n' |
		    sort && find . -type f -exec md5sum {} + | sort)
	}
	rm -rf "$T/pop/dest" && cp -a "$T/pop/src" "$T/pop/dest"
	touch -d @1000000000 "$T/pop/dest/d" "$T/pop/dest"
	popsnap > "$T/pop/before"
	FAULTSHIM=renameat:EIO:after=3:times=1 LD_PRELOAD=$shim "$pfx" \
	    -xf "$T/pop/v2.tar" -C "$T/pop/dest" --atomic 2> "$T/err"
	rc=$?
	popsnap > "$T/pop/after"
	[ $rc -eq 2 ] && grep -q 'cannot be put in place: Input/output error; every name put was taken back' "$T/err" &&
	    cmp -s "$T/pop/before" "$T/pop/after" &&
	    [ -z "$(find "$T/pop/dest" -name '.pfx-*')" ] && ok ||
	    bad "--atomic, populated: a failed rename: exit $rc: $(cat "$T/err"); $(diff "$T/pop/before" "$T/pop/after" | head -5)"
	FAULTSHIM=unlinkfile:EIO LD_PRELOAD=$shim "$pfx" \
	    -xf "$T/pop/cut.tar" -C "$T/pop/dest" --atomic 2> "$T/err"
	rc=$?
	n=$(find "$T/pop/dest" -name '.pfx-*.tmp' | wc -l)
	[ $rc -eq 2 ] && [ "$n" -gt 0 ] &&
	    grep -q "$n new files were left under temporary names (.pfx-\*.tmp), such as d/.pfx-[0-9a-f]*.tmp: Input/output error" "$T/err" &&
	    [ "$(cat "$T/pop/dest/d/f1")" = "old 1" ] && ok ||
	    bad "--atomic, populated: a failed unlink: exit $rc, $n left: $(cat "$T/err")"
fi

echo "faults: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
