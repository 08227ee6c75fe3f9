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

# A DEST that is a file or a symlink: refused before reading.
clean
echo file > "$T/w/file"
mkdir "$T/w/e" && ln -s e "$T/w/link"
for d in file link; do
	run "DEST $d" 2 -xf ../a.tar -C $d --atomic
	grep -q -- '--atomic needs a directory or no destination' "$T/stderr" && ok ||
	    bad "DEST $d: message: $(cat "$T/stderr")"
done
only "refused DESTs" "e file link"
[ -z "$(ls -A "$T/w/e")" ] && ok || bad "refused DESTs were changed"

# --- A populated DEST: every name beside its own until the end --------

# snap DIR: every name beneath DIR (DIR itself included) with its inode,
# type, mode, mtime, size, link target and content hash.
snap() {
	(cd "$1" && find . -printf '%p %i %y %m %T@ %s %n %l\n' | sort &&
	    find . -type f -exec md5sum {} + | sort)
}

# same NAME: $T/w/root is as $T/before says, and holds no temporary name.
same() {
	snap "$T/w/root" > "$T/after"
	if cmp -s "$T/before" "$T/after"; then ok; else
		bad "$1: DEST changed: $(diff "$T/before" "$T/after" | head -5)"
	fi
	leftovers "$1"
}
leftovers() {
	n=$(find "$T/w/root" -name '.pfx-*' | wc -l)
	[ "$n" -eq 0 ] && ok || bad "$1: $n temporary names left"
}

# Packages: p1 a base, p2 a second one (619 files, a hard link, new
# directories beside old ones), p1v2 an upgrade of p1.
mkdir -p "$T/p1/usr/bin" "$T/p1/etc" "$T/p2/usr/bin" "$T/p2/usr/share/p2" \
    "$T/p1v2/usr/bin" "$T/p1v2/etc"
echo a1 > "$T/p1/usr/bin/a"; echo conf > "$T/p1/etc/c"
echo keep > "$T/p1/usr/bin/keep"
echo b > "$T/p2/usr/bin/b"
i=0
while [ $i -lt 619 ]; do
	echo "file $i" > "$T/p2/usr/share/p2/f$i"; i=$((i + 1))
done
ln "$T/p2/usr/bin/b" "$T/p2/usr/share/p2/b-link"
echo a2 > "$T/p1v2/usr/bin/a"; echo new > "$T/p1v2/usr/bin/new"
echo conf2 > "$T/p1v2/etc/c"
tar -C "$T/p1" -cf "$T/p1.tar" .
tar -C "$T/p2" -cf "$T/p2.tar" .
tar -C "$T/p1v2" -cf "$T/p1v2.tar" .
# The 619 files, then a truncation: a last big file's data cut.
mkdir -p "$T/p2big/usr/share"
head -c 300000 /dev/urandom > "$T/p2big/usr/share/zbig"
cp "$T/p2.tar" "$T/p2full.tar"
tar -C "$T/p2big" -rf "$T/p2full.tar" ./usr/share/zbig
sz=$(wc -c < "$T/p2full.tar")
head -c $((sz - 200000)) "$T/p2full.tar" > "$T/p2cut.tar"

populated() {
	clean
	mkdir "$T/w/root"
	(cd "$T/w" && "$pfx" -xf "$T/p1.tar" -C root) || bad "p1: exit $?"
	# An old mtime on every directory: a change to one shows.
	find "$T/w/root" -type d -exec touch -d @1000000000 {} +
	snap "$T/w/root" > "$T/before"
}

# A second package into a populated root: old names untouched.
populated
ino=$(stat -c %i "$T/w/root/usr/bin/a")
run "second package" 0 -xf "$T/p2.tar" -C root --atomic
[ "$(cat "$T/w/root/usr/share/p2/f618")" = "file 618" ] &&
    [ "$(stat -c %i "$T/w/root/usr/bin/b")" = \
    "$(stat -c %i "$T/w/root/usr/share/p2/b-link")" ] && ok ||
    bad "second package: not extracted"
[ "$(stat -c %i "$T/w/root/usr/bin/a")" = "$ino" ] &&
    [ "$(cat "$T/w/root/etc/c")" = conf ] && ok ||
    bad "second package: an old name changed"
leftovers "second package"

# An upgrade: files replaced by new inodes, the rest kept.
populated
kino=$(stat -c %i "$T/w/root/usr/bin/keep")
run "upgrade" 0 -xf "$T/p1v2.tar" -C root --atomic
[ "$(cat "$T/w/root/usr/bin/a")" = a2 ] &&
    [ "$(cat "$T/w/root/etc/c")" = conf2 ] &&
    [ "$(cat "$T/w/root/usr/bin/new")" = new ] &&
    [ "$(stat -c %i "$T/w/root/usr/bin/keep")" = "$kino" ] && ok ||
    bad "upgrade: not as it should be"
leftovers "upgrade"

# -k judges the old names before anything is put in place.
populated
run "upgrade -k" 2 -xkf "$T/p1v2.tar" -C root --atomic
[ "$(cat "$T/w/root/usr/bin/a")" = a1 ] &&
    [ "$(cat "$T/w/root/usr/bin/new")" = new ] && ok ||
    bad "upgrade -k: an old file was replaced, or the new one not made"
leftovers "upgrade -k"

# Failures: DEST byte for byte and inode for inode as before.
# Each fails for its own reason (WHY, in the message), not for DEST's.
for c in "truncated:Truncated:$T/p2cut.tar" \
    "limit:max-entries=300:$T/p2.tar --max-entries=300" \
    "bytes:max-bytes=3000:$T/p2.tar --max-bytes=3000" \
    "strict:ro2:$T/link.tar --strict" \
    "upgrade limit:max-entries=4:$T/p1v2.tar --max-entries=4" \
    "backup:cannot be backed up (--backup):$T/p1v2.tar --backup" \
    "recursive unlink:removed (--recursive-unlink):$T/p1v2.tar --recursive-unlink"; do
	what=${c%%:*} rest=${c#*:}
	why=${rest%%:*} args=${rest#*:}
	populated
	# shellcheck disable=SC2086
	run "populated $what" 2 -xf $args -C root --atomic
	grep -q -- "$why" "$T/stderr" && ok ||
	    bad "populated $what: message: $(head -3 "$T/stderr")"
	same "populated $what"
done

# Deep names of new directories, the archive cut at its end (below): the
# rollback removes every directory the run made, from a parent held open
# where Landlock confines the run (each after the ones beneath it), and
# not the old ones the names went through (usr/, usr/bin/).
rm -rf "$T/deep" && mkdir -p "$T/deep"
lv=""
j=0
while [ $j -lt 60 ]; do lv="${lv}x/"; j=$((j + 1)); done
i=0
while [ $i -lt 20 ]; do
	mkdir -p "$T/deep/d$i/$lv" && echo "$i" > "$T/deep/d$i/${lv}f"
	i=$((i + 1))
done
mkdir -p "$T/deep/usr/bin/$lv" && echo u > "$T/deep/usr/bin/${lv}f"
(cd "$T/deep" && find . -type f | sort > "$T/deep.list") &&
    tar -C "$T/deep" --no-recursion -cf "$T/deep.tar" -T "$T/deep.list"
tar -C "$T/p2big" -rf "$T/deep.tar" ./usr/share/zbig
sz=$(wc -c < "$T/deep.tar")
head -c $((sz - 200000)) "$T/deep.tar" > "$T/deepcut.tar"
# cut_short NAME ARCHIVE ARGS...: ARCHIVE, cut short, over a populated
# DEST: the message says so, and DEST is as before.
cut_short() {
	name=$1 tarball=$2
	shift 2
	populated
	run "$name" 2 -xf "$tarball" -C root --atomic "$@"
	grep -q Truncated "$T/stderr" && ok ||
	    bad "$name: $(head -3 "$T/stderr")"
	same "$name"
}

# The same, confined (--sandbox=require) and without the decoder process.
for c in "sandbox:--sandbox=require" "no sandbox:--no-sandbox"; do
	what=${c%%:*} args=${c#*:}
	cut_short "populated truncated, $what" "$T/p2cut.tar" "$args"
	cut_short "deep names cut, $what" "$T/deepcut.tar" "$args"
	run "populated, $what" 0 -xf "$T/p1v2.tar" -C root --atomic $args
	[ "$(cat "$T/w/root/usr/bin/a")" = a2 ] && ok ||
	    bad "populated, $what: not upgraded"
	leftovers "populated, $what"
done

# A name that would change type is refused; the rest is put in place.
populated
mkdir -p "$T/tc/usr/bin/a" "$T/tc/etc"
echo x > "$T/tc/usr/bin/a/x"; echo y > "$T/tc/usr/y"
mkdir "$T/tc/etc/c"
tar -C "$T/tc" -cf "$T/tc.tar" ./usr/y ./usr/bin/a ./etc/c
run "type change" 1 -xf "$T/tc.tar" -C root --atomic
[ -f "$T/w/root/usr/bin/a" ] && [ -f "$T/w/root/etc/c" ] &&
    [ "$(cat "$T/w/root/usr/y")" = y ] && ok ||
    bad "type change: $(ls -la "$T/w/root/usr" "$T/w/root/etc")"
populated
run "type change --strict" 2 -xf "$T/tc.tar" -C root --atomic --strict
grep -q "usr/bin/a" "$T/stderr" && ok ||
    bad "type change --strict: $(head -3 "$T/stderr")"
same "type change --strict"

# '.' is a populated DEST like any other.
populated
(cd "$T/w/root" && "$pfx" -xf "$T/p1v2.tar" -C . --atomic) &&
    [ "$(cat "$T/w/root/usr/bin/a")" = a2 ] && ok ||
    bad "DEST .: not upgraded"

# --fsync: the same result.
populated
run "--fsync" 0 -xf "$T/p2.tar" -C root --atomic --fsync
[ -f "$T/w/root/usr/share/p2/f0" ] && ok || bad "--fsync: not extracted"
leftovers "--fsync"

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
	# The same into a populated DEST: as it was.
	populated
	(cd "$T/w" && exec "$pfx" -xf "$T/fifo" -C root --atomic) \
	    2> "$T/stderr" &
	pid=$!
	exec 3> "$T/fifo"
	head -c 300000 "$T/p2.tar" >&3
	sleep 0.3
	kill -TERM "$pid"
	wait "$pid"
	rc=$?
	exec 3>&-
	[ "$rc" -eq 143 ] && ok || bad "SIGTERM, populated: exit $rc, want 143"
	same "SIGTERM, populated"

	# Killed outright (SIGKILL): nothing ran to remove the private
	# directory.  A later run for the same DEST takes it back once it
	# is a minute old and no run holds it; one a live run holds stays.
	head -c 400000 /dev/urandom > "$T/k.bin"
	tar -C "$T" -cf "$T/k.tar" k.bin
	# killed PID: SIGKILL it once it has begun, and reap it.
	killed() {
		exec 3> "$T/fifo"
		head -c 100000 "$T/k.tar" >&3
		sleep 0.3
		kill -KILL "$1"
		wait "$1"
		exec 3>&-
	}
	clean
	(cd "$T/w" && exec "$pfx" -xf "$T/fifo" -C new --atomic) \
	    2> "$T/stderr" &
	killed $!
	left=$(cd "$T/w" && ls -A)
	case $left in
	.new.pfx-????????) ok ;;
	*) bad "SIGKILL: left '$left', want one private directory" ;;
	esac
	# Under a minute old: it may be a live run's, just made.
	run "SIGKILL, then at once" 0 -xf ../a.tar -C new2 --atomic
	only "SIGKILL, then at once" "$left new2"
	touch -d '2 minutes ago' "$T/w/$left"
	run "SIGKILL, then later" 0 -xf ../k.tar -C new --atomic
	only "SIGKILL, then later" "new new2"
	cmp -s "$T/w/new/k.bin" "$T/k.bin" && ok ||
	    bad "SIGKILL, then later: new/k.bin is not the archive's"
	# One holding what stood at DEST (old: a publish killed before it
	# swapped it back) may hold the user's: left for a person.
	clean
	mkdir -m 700 "$T/w/.new.pfx-0123abcd" "$T/w/.new.pfx-0badcafe"
	mkdir "$T/w/.new.pfx-0123abcd/old" "$T/w/.new.pfx-0badcafe/tree"
	echo precious > "$T/w/.new.pfx-0123abcd/old/data"
	touch -d '2 minutes ago' "$T/w/.new.pfx-0123abcd" \
	    "$T/w/.new.pfx-0badcafe"
	run "left over with old" 0 -xf ../a.tar -C new --atomic
	only "left over with old" ".new.pfx-0123abcd new"
	# A live run's private directory, however old, is held.  Two
	# parents open to others (no sticky bit): both runs stage in
	# $T/w, the nearest directory closed to others, under one name.
	clean
	mkdir -m 777 "$T/w/a" "$T/w/b"
	chmod 777 "$T/w/a" "$T/w/b"
	(cd "$T/w" && exec "$pfx" -xf "$T/fifo" -C a/new --atomic) \
	    2> "$T/stderr" &
	pid=$!
	exec 3> "$T/fifo"
	head -c 100000 "$T/k.tar" >&3
	sleep 0.3
	live=$(cd "$T/w" && ls -A | grep '^\.new\.pfx-')
	touch -d '2 minutes ago' "$T/w/$live"
	(cd "$T/w" && "$pfx" -xf ../a.tar -C b/new --atomic) 2> "$T/stderr2"
	[ -n "$live" ] && [ -d "$T/w/$live" ] && ok ||
	    bad "a live run's private directory was taken: $(ls -A "$T/w")"
	tail -c +100001 "$T/k.tar" >&3
	exec 3>&-
	wait "$pid"
	rc=$?
	[ "$rc" -eq 0 ] && ok || bad "the live run: exit $rc; $(cat "$T/stderr")"
	only "live run held" "a b"
	[ -f "$T/w/a/new/k.bin" ] && [ -f "$T/w/b/new/d/a.txt" ] && ok ||
	    bad "live run held: $(find "$T/w" | head -5)"
fi

# --symlinks=root makes links at once, but not over a name that holds
# something while the run may still fail: a truncated package that
# replaces a file by a link leaves the file; a whole one replaces it.
rm -rf "$T/rl" && mkdir -p "$T/rl/root/usr/bin" "$T/rl/src/bin"
ln -s usr/bin "$T/rl/root/bin"
echo old > "$T/rl/root/usr/bin/z"
ln -s /bin/x "$T/rl/src/bin/z"
ln -s /bin/x "$T/rl/src/bin/new"
head -c 100000 /dev/urandom > "$T/rl/src/bin/big"
tar -C "$T/rl/src" -cf "$T/rl/p.tar" ./bin/z ./bin/new ./bin/big
head -c 20000 "$T/rl/p.tar" > "$T/rl/cut.tar"
rlsnap() { (cd "$T/rl/root" && find . -printf '%p %i %y %l %T@\n' | sort); }
# rl_cut_same NAME: $T/rl/cut.tar into $T/rl/root under --symlinks=root
# fails (exit 2) and leaves it as it was, mtimes included.
rl_cut_same() {
	rlsnap > "$T/rl/before"
	"$pfx" --symlinks=root --atomic -xf "$T/rl/cut.tar" -C "$T/rl/root" \
	    2> "$T/stderr"
	rc=$?
	rlsnap > "$T/rl/after"
	[ "$rc" -eq 2 ] && cmp -s "$T/rl/before" "$T/rl/after" && ok ||
	    bad "$1: exit $rc: $(diff "$T/rl/before" "$T/rl/after" | head -6)"
}
rl_cut_same "root, populated, truncated"
"$pfx" --symlinks=root --atomic -xf "$T/rl/p.tar" -C "$T/rl/root" \
    2> "$T/stderr"
rc=$?
[ "$rc" -eq 0 ] && [ "$(readlink "$T/rl/root/usr/bin/z")" = /bin/x ] &&
    [ -L "$T/rl/root/usr/bin/new" ] && [ -f "$T/rl/root/usr/bin/big" ] &&
    ok || bad "root, populated: exit $rc: $(cat "$T/stderr")"

# rltar OUT SPEC...: a GNU tar of SPECs, each KIND:NAME[:VALUE]: a file
# holding VALUE (f), a symlink to VALUE (l), a directory (d).
rltar() {
	python3 - "$@" <<'PY'
import io, sys, tarfile
with tarfile.open(sys.argv[1], 'w', format=tarfile.GNU_FORMAT) as t:
    for a in sys.argv[2:]:
        k, n, v = (a.split(':', 2) + [''])[:3]
        i = tarfile.TarInfo(n)
        if k == 'l':
            i.type, i.linkname = tarfile.SYMTYPE, v
        elif k == 'd':
            i.type, i.mode = tarfile.DIRTYPE, 0o755
        else:
            i.size = len(v)
        t.addfile(i, io.BytesIO(v.encode()))
PY
}

# --symlinks=root: a link made at once and taken over by a later entry of
# its name (a file, a link, a directory through it) is still the run's:
# a failed run removes it.  A file then a link of one name: the link wins.
for c in "file:l:n:k f:n:new" "link:l:n:k l:n:a" "dir:l:n:usr d:n"; do
	what=${c%%:*} spec=${c#*:}
	rm -rf "$T/rl" && mkdir -p "$T/rl/root/usr" "$T/rl/src"
	echo old > "$T/rl/root/usr/z"
	# shellcheck disable=SC2086
	rltar "$T/rl/p.tar" $spec f:zz:x
	touch -d @1000000000 "$T/rl/root"
	rlsnap > "$T/rl/before"
	"$pfx" --symlinks=root --atomic --max-entries=2 -xf "$T/rl/p.tar" \
	    -C "$T/rl/root" 2> "$T/stderr"
	rc=$?
	rlsnap > "$T/rl/after"
	[ "$rc" -eq 2 ] && cmp -s "$T/rl/before" "$T/rl/after" && ok ||
	    bad "root, populated, $what taken over, failed: exit $rc: $(diff "$T/rl/before" "$T/rl/after" | head -4)"
done

# --symlinks=root: names made through a link the run made at once ("l ->
# usr", then l/x, l/d/, l/d/y, l/k, l/e/ holding a link) are reached only
# through it: a failed run removes them all before the link, and gives
# usr its mtime back.
rm -rf "$T/rl" && mkdir -p "$T/rl/root/usr"
echo old > "$T/rl/root/usr/z"
rltar "$T/rl/p.tar" l:l:usr f:l/x:x d:l/d f:l/d/y:y l:l/k:z d:l/e \
    l:l/e/k:../z "f:big:$(head -c 100000 /dev/zero | tr '\0' b)"
head -c 20000 "$T/rl/p.tar" > "$T/rl/cut.tar"
touch -d @1000000000 "$T/rl/root/usr" "$T/rl/root"
rl_cut_same "root, populated, names through a new link, failed"

# --symlinks=root: one file on disk named twice by the archive, through a
# link made at once (usr/z, then l/z with l -> usr), is a name given
# twice: the later wins, nothing is left beside it, exit 0.  A name made
# through a link that a later file of its name replaces (l/x, then l) is
# put in place before it.  As without --atomic.
for c in "twice:f:usr/z:one l:l:usr f:l/z:two" \
    "replaced:l:l:usr f:l/x:x f:l:file"; do
	what=${c%%:*} spec=${c#*:}
	for m in plain atomic; do
		rm -rf "$T/rl/$m" && mkdir -p "$T/rl/$m/usr"
		echo old > "$T/rl/$m/usr/z"
	done
	# shellcheck disable=SC2086
	rltar "$T/rl/p.tar" $spec
	"$pfx" --symlinks=root -xf "$T/rl/p.tar" -C "$T/rl/plain"
	"$pfx" --symlinks=root --atomic -xf "$T/rl/p.tar" -C "$T/rl/atomic" \
	    2> "$T/stderr"
	rc=$?
	(cd "$T/rl/plain" && find . -printf '%p %y %l\n' | sort) > "$T/rl/want"
	(cd "$T/rl/atomic" && find . -printf '%p %y %l\n' | sort) > "$T/rl/got"
	[ "$rc" -eq 0 ] && cmp -s "$T/rl/want" "$T/rl/got" &&
	    [ "$(cat "$T/rl/atomic/usr/z")" = "$(cat "$T/rl/plain/usr/z")" ] &&
	    ok || bad "root, populated, $what through a new link: exit $rc: $(head -2 "$T/stderr") $(diff "$T/rl/want" "$T/rl/got" | head -4)"
done
# The same with --skip-old-files: the second name cannot be put in place
# (the first holds it), so every name is taken back, the directory made
# through the link (holding a link) goes, and usr's mtime, looked at
# through both names, is the one from before the run.
rm -rf "$T/rl/atomic" && mkdir -p "$T/rl/atomic/usr"
rltar "$T/rl/p.tar" f:usr/new:one l:l:usr d:l/d l:l/d/k:../new f:l/new:two
touch -d @1000000000 "$T/rl/atomic/usr" "$T/rl/atomic"
(cd "$T/rl/atomic" && find . -printf '%p %i %y %l %T@\n' | sort) > "$T/rl/before"
"$pfx" --symlinks=root --atomic --skip-old-files -xf "$T/rl/p.tar" \
    -C "$T/rl/atomic" 2> "$T/stderr"
rc=$?
(cd "$T/rl/atomic" && find . -printf '%p %i %y %l %T@\n' | sort) > "$T/rl/after"
[ "$rc" -eq 2 ] && cmp -s "$T/rl/before" "$T/rl/after" && ok ||
    bad "root, populated, kept name twice: exit $rc: $(diff "$T/rl/before" "$T/rl/after" | head -4)"
rm -rf "$T/rl" && mkdir -p "$T/rl/root/usr"
rltar "$T/rl/p.tar" f:n:new l:n:usr
"$pfx" --symlinks=root --atomic -xf "$T/rl/p.tar" -C "$T/rl/root" \
    2> "$T/stderr"
rc=$?
[ "$rc" -eq 0 ] && [ "$(readlink "$T/rl/root/n")" = usr ] && ok ||
    bad "root, populated, a file then a link: exit $rc: $(cat "$T/stderr")"

# --strict: links are judged after every name is in place, where a
# refusal could not be taken back: such a run stops first, DEST as it was.
for pol in contain root; do
	populated
	mkdir -p "$T/sl/usr/bin" && echo a3 > "$T/sl/usr/bin/a"
	ln -sfn /proc/self/cwd "$T/sl/usr/bin/esc"
	tar -C "$T/sl" -cf "$T/sl.tar" ./usr/bin/a ./usr/bin/esc
	run "strict, $pol links, populated" 2 -xf "$T/sl.tar" -C root \
	    --atomic --strict --symlinks=$pol
	same "strict, $pol links, populated"
done

# -G removes names at once: refused over a populated DEST, which keeps
# the names its dump directory lacks.
rm -rf "$T/inc" && mkdir -p "$T/inc/src" "$T/inc/dest"
echo a > "$T/inc/src/a"
echo keep > "$T/inc/dest/keep"
tar -C "$T/inc/src" -cGf "$T/inc/inc.tar" . 2>/dev/null
"$pfx" -G -xf "$T/inc/inc.tar" -C "$T/inc/dest" --atomic 2> "$T/stderr"
rc=$?
[ "$rc" -eq 2 ] && [ -f "$T/inc/dest/keep" ] && [ ! -e "$T/inc/dest/a" ] &&
    grep -q 'incremental restore removes names' "$T/stderr" && ok ||
    bad "-G --atomic, populated: exit $rc: $(cat "$T/stderr")"

# --keep-newer-files over a populated DEST: a name the archive gives
# twice, the newer first, keeps the first, as without --atomic (the
# second was compared with the old file, not the first one waiting).
rm -rf "$T/kn" && mkdir -p "$T/kn/src" "$T/kn/dest"
echo old > "$T/kn/dest/other"
echo A > "$T/kn/src/x" && touch -d @2000000000 "$T/kn/src/x"
tar -C "$T/kn/src" -cf "$T/kn/kn.tar" x
echo B > "$T/kn/src/x" && touch -d @1000000000 "$T/kn/src/x"
tar -C "$T/kn/src" -rf "$T/kn/kn.tar" x
"$pfx" -xf "$T/kn/kn.tar" -C "$T/kn/dest" --atomic --keep-newer-files \
    2> "$T/stderr"
rc=$?
[ "$rc" -eq 0 ] && [ "$(cat "$T/kn/dest/x")" = A ] && ok ||
    bad "--keep-newer-files, populated: exit $rc, x holds $(cat \
    "$T/kn/dest/x"): $(cat "$T/stderr")"

echo "atomic: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
