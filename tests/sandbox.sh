#!/bin/sh
# The CLI's sandbox, proved from the outside: with the test seam
# PFEXTRACT_SANDBOX_PROBE=PATH, pfextract tries, right after confining
# itself, to create PATH, change its directory's mode, give standard
# error's file a file capability, make an AF_INET socket and execute
# /bin/true, and says how each went on standard error.  Confined, the kernel says
# EACCES and EPERM; with --no-sandbox the same probe succeeds (so the
# probe can tell).  And the sandbox changes nothing of an ordinary run:
# the same tree, exit status and report as with --no-sandbox, with both
# resolvers and both symlink policies, for extraction and listing.
# Skipped where the kernel has no Landlock (the Criterion suite
# "sandbox" says what is enforced there).
# Usage: sh tests/sandbox.sh PFEXTRACT MKDEMO
set -u
pfx=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
mkdemo=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "sandbox.sh: FAIL: $*" >&2; fail=$((fail + 1)); }

# A tree with a hard link across directories and a symlink inside, and
# the demo archive with its hostile entries.
mkdir -p "$T/src/d/e"
printf 'one\n' > "$T/src/d/a.txt"
printf 'two\n' > "$T/src/d/e/b.txt"
ln "$T/src/d/a.txt" "$T/src/d/e/hl.txt"
ln -s ../a.txt "$T/src/d/e/sl"
tar -C "$T/src" -czf "$T/a.tgz" d
"$mkdemo" "$T/demo.tgz"

# Is the sandbox enforced at all here?
"$pfx" -vvv -xf "$T/a.tgz" -C "$T" 2> "$T/probe-stderr" > /dev/null
rm -rf "$T/d"
if ! grep -q '^pfextract: sandbox: landlock ABI' "$T/probe-stderr"; then
	echo "sandbox.sh: skipped: $(grep 'sandbox:' "$T/probe-stderr")"
	exit 0
fi

# listing DIR: every name beneath DIR with its type, mode, owner, size,
# link count, symlink target and content hash, sorted; the modification
# time of regular files (not of directories, which change as a run goes,
# nor of nodes a test makes anew each run), and the extended attributes.
listing() {
	(cd "$1" && find . -mindepth 1 -printf '%y %m %U:%G %s %n %l %P\n' |
	    sort &&
	    find . -type f -printf '%T@ %P\n' | sort &&
	    find . -type f -exec sha256sum {} + | sort &&
	    python3 -c 'import os
for d, ds, fs in sorted(os.walk(".")):
	for n in sorted(ds + fs):
		p = os.path.join(d, n)
		for a in sorted(os.listxattr(p, follow_symlinks=False)):
			print(p, a, os.getxattr(p, a, follow_symlinks=False))')
}

# outside: what must not change, the archives and the sources.
outside() {
	(cd "$T" && find src a.tgz demo.tgz -printf '%y %m %s %T@ %P\n' |
	    sort)
}

# A change of mode outside DEST by name: read-only mounts refuse it where
# pfextract may make a mount namespace (CAP_SYS_ADMIN: root, and a
# container that allows unshare), or, run as an ordinary user, a user
# namespace with one (unless user.max_user_namespaces=0 or an LSM says
# no); elsewhere nothing does (pfx_sandbox(3)).  The open outside DEST is
# then refused by the mount (EROFS) before Landlock (EACCES) is asked.
if { [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; } ||
    { [ "$(id -u)" != 0 ] && unshare -U -m true 2>/dev/null; }; then
	chmod_on="probe: chmod EROFS" open_on="probe: open EROFS"
else
	chmod_on="probe: chmod OK" open_on="probe: open EACCES"
fi

# The archive (a file): the confined writer lets its descriptor go, as
# the decoder process reads it through its own; unconfined, the process
# reads it, and holds it.
# A file capability given to standard error's file (outside DEST, opened
# before the confinement), through that descriptor: the confined writer
# keeps no CAP_SETFCAP (plat_os_keep_file_caps()), so it is refused; root
# unconfined may, an ordinary user never.
if [ "$(id -u)" = 0 ]; then
	setfcap_off="probe: setfcap OK"
else
	setfcap_off="probe: setfcap EPERM"
fi

# Standard output and error redirected to files (outside DEST, opened
# before the confinement): the probe makes each writable by others
# through its descriptor.  Confined, the writer holds only pipes to a
# relay (plat_output_relay()), and the files keep their modes; root
# unconfined changes them (so the probe can tell); the files are root's,
# so nobody never does.
if [ "$(id -u)" = 0 ]; then
	outputs_off="642 642"
else
	outputs_off="640 640"
fi

# fresh_outputs FILE...: empty FILEs of mode 640, for the shell to write.
fresh_outputs() {
	for f in "$@"; do
		rm -f "$f" && : > "$f" && chmod 640 "$f"
	done
}

# modes FILE...: their modes, on one line.
modes() {
	stat -c %a "$@" | tr '\n' ' ' | sed 's/ $//'
}

# compare NAME ARCHIVE OPTIONS...: extract confined, with the probe, and
# with --no-sandbox; the trees, exit statuses and reports must be the
# same, and the probe refused only in the confined run.  In $W (the
# outputs, the probe's file), as $AS (a command prefix: setpriv), into a
# copy of $TPL when set, else an empty directory.
W=$T AS='' TPL=''
compare() {
	name=$1 archive=$2
	shift 2
	before=$(outside)
	rm -rf "$W/on" "$W/off" "$W/probe-file"
	if [ -n "$TPL" ]; then
		cp -a "$TPL" "$W/on" && cp -a "$TPL" "$W/off"
	else
		mkdir "$W/on" "$W/off"
	fi
	fresh_outputs "$T/on.json" "$T/on.err" "$T/off.json" "$T/off.err"
	PFEXTRACT_SANDBOX_PROBE="$W/probe-file" $AS "$pfx" -x -f "$archive" \
	    -C "$W/on" --report=json "$@" > "$T/on.json" 2> "$T/on.err"
	rc_on=$?
	if [ "$(modes "$T/on.json" "$T/on.err")" = "640 640" ]; then ok; else
		bad "$name: the confined probe changed its outputs: $(modes \
		    "$T/on.json" "$T/on.err")"
	fi
	if [ -e "$W/probe-file" ]; then
		bad "$name: the confined probe created its file"
	else
		ok
	fi
	for want in "$open_on" "probe: socket EPERM" \
	    "probe: fork EPERM" "$chmod_on" "probe: setfcap EPERM" \
	    "probe: archive gone"; do
		if grep -qx "$want" "$T/on.err"; then ok; else
			bad "$name: no '$want' in: $(grep probe: "$T/on.err")"
		fi
	done
	PFEXTRACT_SANDBOX_PROBE="$W/probe-file" $AS "$pfx" -x -f "$archive" \
	    -C "$W/off" --report=json --no-sandbox "$@" > "$T/off.json" \
	    2> "$T/off.err"
	rc_off=$?
	if [ "$(modes "$T/off.json" "$T/off.err")" = "$outputs_off" ]; then
		ok
	else
		bad "$name: unconfined, outputs $(modes "$T/off.json" \
		    "$T/off.err"), expected $outputs_off"
	fi
	for want in "probe: open OK" "probe: socket OK" "probe: fork OK" \
	    "probe: execve OK" "probe: chmod OK" "$setfcap_off" \
	    "probe: archive held"; do
		if grep -qx "$want" "$T/off.err"; then ok; else
			bad "$name: unconfined, no '$want' in: $(grep probe: "$T/off.err")"
		fi
	done
	rm -f "$W/probe-file"
	if [ "$rc_on" -eq "$rc_off" ]; then ok; else
		bad "$name: exit $rc_on confined, $rc_off with --no-sandbox"
	fi
	if [ "$(listing "$W/on")" = "$(listing "$W/off")" ]; then ok; else
		bad "$name: the trees differ: $(listing "$W/on" |
		    diff - "$T/off.list" 2>/dev/null | head -5)"
		listing "$W/off" > "$T/off.list"
		listing "$W/on" | diff - "$T/off.list" | head -10 >&2
	fi
	if [ "$(grep -v '"summary"' "$T/on.json")" = \
	    "$(grep -v '"summary"' "$T/off.json")" ]; then ok; else
		bad "$name: the reports differ"
	fi
	grep -v 'probe:' "$T/on.err" > "$T/on.msgs"
	grep -v 'probe:' "$T/off.err" > "$T/off.msgs"
	if cmp -s "$T/on.msgs" "$T/off.msgs"; then ok; else
		bad "$name: the messages differ: $(diff "$T/on.msgs" \
		    "$T/off.msgs" | head -4)"
	fi
	case $(grep '"summary"' "$T/on.json") in
	*'"sandbox":{"landlock_abi":'*'"fs":true'*'"seccomp":true'*) ok ;;
	*) bad "$name: summary: $(grep '"summary"' "$T/on.json")" ;;
	esac
	case $(grep '"summary"' "$T/off.json") in
	*'"sandbox":null'*) ok ;;
	*) bad "$name: --no-sandbox summary: $(grep '"summary"' "$T/off.json")" ;;
	esac
	if [ "$(outside)" = "$before" ]; then ok; else
		bad "$name: something outside the destination changed"
	fi
}

for r in openat2 walk; do
	export PFEXTRACT_RESOLVER=$r
	compare "$r tree" "$T/a.tgz"
	compare "$r tree contain" "$T/a.tgz" --symlinks=contain
	compare "$r demo" "$T/demo.tgz"
	compare "$r demo contain" "$T/demo.tgz" --symlinks=contain
	compare "$r demo contain strict" "$T/demo.tgz" --symlinks=contain \
	    --strict
	# --symlinks=root makes links at once, under the same Landlock
	# ruleset (PFX_SANDBOX_SYMLINKS) and seccomp filter (openat2).
	compare "$r tree root" "$T/a.tgz" --symlinks=root
	compare "$r demo root" "$T/demo.tgz" --symlinks=root
done
unset PFEXTRACT_RESOLVER

# Set-id and sticky modes, and (as root) other owners: the runs that
# restore them (-p; --same-owner as root) confine with PFX_SANDBOX_SETID,
# and give the same tree as unconfined; the filter refuses them to any
# other run.
mkdir -p "$T/ids/s"
printf 'u\n' > "$T/ids/u"
printf 'g\n' > "$T/ids/g"
if [ "$(id -u)" -eq 0 ]; then
	chown 1:1 "$T/ids/u"
	chown 2:2 "$T/ids/g"
fi
chmod 4755 "$T/ids/u"
chmod 2755 "$T/ids/g"
chmod 1777 "$T/ids/s"
tar -C "$T" -cf "$T/ids.tar" ids
compare "ids" "$T/ids.tar"
compare "ids -p" "$T/ids.tar" -p
compare "ids --same-owner" "$T/ids.tar" --same-owner
compare "ids -p --same-owner" "$T/ids.tar" -p --same-owner

# A directory moved out of the destination while a file in it is being
# written (the archive comes through a FIFO that stalls in d/big's data):
# confined, the kernel refuses to name the file there (EACCES) where
# unconfined it is named and taken back; either way d/big is refused as
# escapes_root, the run goes on (exit 1) and d/after makes a new d.  The
# same exit status, report and messages with the sandbox and without,
# with both resolvers; nothing appears in the moved directory.
mkdir -p "$T/mv/a" "$T/mv/d" "$T/mv/e"
printf 'first\n' > "$T/mv/a/first"
head -c 400000 /dev/zero | tr '\0' x > "$T/mv/d/big"
printf 'after\n' > "$T/mv/d/after"
printf 'g\n' > "$T/mv/e/g"
tar --format=ustar --no-recursion -C "$T/mv" -cf "$T/mv.tar" a/first d/ d/big \
    d/after e/g
cut=$(( $(grep -boa 'd/big' "$T/mv.tar" | head -1 | cut -d: -f1) + 512 +
    150000 ))

# writing_in DIR PID: does PID, or a child of it, hold a file being
# written beneath DIR (unnamed, or under a temporary name)?  Behind
# read-only mounts the writer's files are on a mount tree of its own,
# rooted at DEST's parent: seen from here, their paths start at DEST's
# name (the last two components of DIR, "/dest/d").
writing_in() {
	tail=/$(basename "$(dirname "$1")")/$(basename "$1")
	for p in $2 $(cat /proc/$2/task/*/children 2>/dev/null); do
		for f in /proc/$p/fd/*; do
			l=$(readlink "$f" 2>/dev/null) || continue
			case $l in
			"$1"/*" (deleted)" | "$1"/.pfx-*) return 0 ;;
			"$tail"/*" (deleted)" | "$tail"/.pfx-*) return 0 ;;
			esac
		done
	done
	return 1
}

# await_writing DIR PID: wait up to 10 s for writing_in DIR PID.
# Return: 0, or 1 if it never came.
await_writing() {
	i=0
	while [ $i -lt 200 ] && ! writing_in "$1" "$2"; do
		sleep 0.05
		i=$((i + 1))
	done
	[ $i -lt 200 ]
}

# moved RESOLVER NAME OPTIONS...: extract mv.tar into $T/NAME/dest,
# moving dest/d to $T/NAME/moved once d/big is begun.
moved() {
	r=$1 w=$T/$2
	shift 2
	rm -rf "$w" && mkdir -p "$w/dest" && rm -f "$T/fifo" &&
	    mkfifo "$T/fifo"
	PFEXTRACT_RESOLVER=$r "$pfx" -xf "$T/fifo" -C "$w/dest" \
	    --report=json "$@" > "$w.json" 2> "$w.err" &
	mpid=$!
	exec 3> "$T/fifo"
	head -c "$cut" "$T/mv.tar" >&3
	await_writing "$w/dest/d" $mpid || bad "moved $r $*: d/big never began"
	mv "$w/dest/d" "$w/moved"
	tail -c +$((cut + 1)) "$T/mv.tar" >&3
	exec 3>&-
	wait $mpid
	echo $? > "$w.rc"
	[ -z "$(ls -A "$w/moved")" ] && ok ||
	    bad "moved $r $*: made in the moved directory: $(ls -A "$w/moved")"
}

for r in openat2 walk; do
	before=$(outside)
	moved $r on
	moved $r off --no-sandbox
	rc_on=$(cat "$T/on.rc") rc_off=$(cat "$T/off.rc")
	[ "$rc_on" -eq 1 ] && [ "$rc_off" -eq 1 ] && ok ||
	    bad "moved $r: exit $rc_on confined, $rc_off with --no-sandbox: $(cat "$T/on.err")"
	if grep -q '"input":"d/big","decision":"deny","reason":"escapes_root","status":"refused"' \
	    "$T/on.json"; then ok; else
		bad "moved $r: d/big not refused as escapes_root: $(grep d/big "$T/on.json")"
	fi
	if [ "$(grep -v '"summary"' "$T/on.json")" = \
	    "$(grep -v '"summary"' "$T/off.json")" ] &&
	    cmp -s "$T/on.err" "$T/off.err"; then ok; else
		bad "moved $r: the reports or messages differ: $(diff "$T/on.err" "$T/off.err" | head -4)"
	fi
	[ "$(listing "$T/on/dest")" = "$(listing "$T/off/dest")" ] &&
	    [ "$(cat "$T/on/dest/d/after" "$T/on/dest/e/g")" = "$(printf 'after\ng')" ] &&
	    [ ! -e "$T/on/dest/d/big" ] && ok ||
	    bad "moved $r: the trees differ, or lack d/after and e/g"
	[ "$(outside)" = "$before" ] && ok ||
	    bad "moved $r: something outside the destination changed"
done

# A run stopped by SIGTERM to its process group (as a terminal's ^C or
# a supervisor does) while the archive stalls in d/big, both outputs in
# files: the writer holds only pipes to the relay, which ignores the
# signal and writes to the end what the writer said (a/first listed,
# "interrupted by SIGTERM" last); pfextract exits 143 once it has, and
# no process of the run is left.
rm -rf "$T/tm" && mkdir "$T/tm" && rm -f "$T/fifo" && mkfifo "$T/fifo"
setsid "$pfx" -xvf "$T/fifo" -C "$T/tm" --idle-timeout=20 > "$T/tm.out" \
    2> "$T/tm.err" &
tpid=$!
exec 3> "$T/fifo"
head -c "$cut" "$T/mv.tar" >&3
await_writing "$T/tm/d" $tpid
kill -TERM -"$tpid"
wait $tpid
rc=$?
exec 3>&-
if [ "$rc" = 143 ] && grep -qx 'a/first' "$T/tm.out" &&
    [ "$(tail -1 "$T/tm.err")" = 'pfextract: interrupted by SIGTERM' ] &&
    [ -z "$(ps -eo args | grep -F "$T/fifo" | grep -v grep)" ]; then
	ok
else
	bad "SIGTERM with outputs in files: exit $rc, stdout $(cat "$T/tm.out"), stderr $(cat "$T/tm.err"), left: $(ps -eo pid,args | grep -F "$T/fifo" | grep -v grep)"
fi
rm -rf "$T/tm" "$T/tm.out" "$T/tm.err" "$T/fifo"

# A device node already in the destination (a root's dev/null, made by
# root): --backup moves it aside, --atomic's journal exchanges the new
# file with it, each a rename that Landlock takes for making one.  The
# same as with --no-sandbox: exit 0, the device kept at f~ or gone.
# Before, the writer's Landlock refused both (EACCES): with --backup f
# failed (exit 2), with --atomic nothing was published (exit 2).
if [ "$(id -u)" -eq 0 ]; then
	printf 'new\n' > "$T/devf"
	tar -C "$T" --transform 's,^devf$,dev/f,' -cf "$T/dev.tar" devf
	for how in "--backup" "--atomic" "--backup=numbered"; do
		for sb in on off; do
			w=$T/dev-$sb
			rm -rf "$w" && mkdir -p "$w/dev" &&
			    mknod "$w/dev/f" c 1 3 || break 2
			opt=
			[ $sb = off ] && opt=--no-sandbox
			"$pfx" -xf "$T/dev.tar" -C "$w" $how $opt 2> "$w.err"
			echo $? > "$w.rc"
		done
		[ "$(cat "$T/dev-on.rc")" -eq 0 ] &&
		    [ "$(cat "$T/dev-off.rc")" -eq 0 ] &&
		    [ "$(listing "$T/dev-on")" = "$(listing "$T/dev-off")" ] &&
		    [ "$(cat "$T/dev-on/dev/f")" = new ] && ok ||
		    bad "device node in dest, $how: exit $(cat "$T/dev-on.rc") confined, $(cat "$T/dev-off.rc") with --no-sandbox: $(cat "$T/dev-on.err")"
	done
fi

# Listing is confined too, with nothing writable: not even the current
# directory.  The system-call filter refuses the create (EPERM) before
# Landlock would (EACCES).
(cd "$T" && PFEXTRACT_SANDBOX_PROBE=listed "$pfx" -tvvvf a.tgz) \
    > "$T/list-on" 2> "$T/list-on.err"
rc_on=$?
(cd "$T" && "$pfx" -tvvvf a.tgz --no-sandbox) > "$T/list-off" 2>/dev/null
rc_off=$?
if [ "$rc_on" -eq 0 ] && [ "$rc_off" -eq 0 ] &&
    cmp -s "$T/list-on" "$T/list-off"; then ok; else
	bad "listing: exit $rc_on/$rc_off, or the listings differ"
fi
if grep -qx 'probe: open EPERM' "$T/list-on.err" &&
    grep -qx 'probe: fork EPERM' "$T/list-on.err" &&
    [ ! -e "$T/listed" ]; then ok; else
	bad "listing: probe not refused: $(cat "$T/list-on.err")"
fi
if grep -q '^pfextract: sandbox: landlock ABI [0-9]* (fs read-only' \
    "$T/list-on.err"; then ok; else
	bad "listing: no read-only sandbox line: $(head -2 "$T/list-on.err")"
fi

# -vvv says what holds, one line on standard error; and what is off.
rm -rf "$T/v" && mkdir "$T/v"
"$pfx" -xvvvf "$T/a.tgz" -C "$T/v" > "$T/v.out" 2> "$T/v.err"
if [ "$(grep -c '^pfextract: sandbox: ' "$T/v.err")" -eq 1 ] &&
    grep -q 'no_new_privs, seccomp$' "$T/v.err" &&
    ! grep -q sandbox "$T/v.out"; then ok; else
	bad "-vvv: $(cat "$T/v.err")"
fi
rm -rf "$T/v" && mkdir "$T/v"
"$pfx" -xvvvf "$T/a.tgz" -C "$T/v" --no-sandbox > /dev/null 2> "$T/v.err"
if grep -qx 'pfextract: sandbox: off (--no-sandbox)' "$T/v.err"; then ok
else bad "-vvv --no-sandbox: $(cat "$T/v.err")"; fi
# -v and -vv write what GNU tar writes: the names or the long lines, and
# nothing on standard error.
for how in "-v" "-v --no-sandbox" "-vv" "-vv --no-sandbox"; do
	rm -rf "$T/v" && mkdir "$T/v"
	"$pfx" -xf "$T/a.tgz" -C "$T/v" --symlinks=contain $how \
	    > "$T/v.out" 2> "$T/v.err"
	# d/a.txt is a file or, in the order the archive holds them, a
	# hard link to d/e/hl.txt ("d/a.txt link to d/e/hl.txt" with -vv).
	if [ ! -s "$T/v.err" ] &&
	    grep -q '\(^\| \)d/a.txt\( link to .*\)\{0,1\}$' "$T/v.out"; then ok
	else bad "$how wrote on standard error: $(cat "$T/v.err")"; fi
done
rm -rf "$T/v" && mkdir "$T/v"
"$pfx" -xf "$T/a.tgz" -C "$T/v" --symlinks=contain > /dev/null 2> "$T/v.err"
if [ ! -s "$T/v.err" ]; then ok; else bad "quiet run wrote: $(cat "$T/v.err")"; fi

# Standard output on a device (a null device of the test's own) and
# standard error on a named pipe, as root behind read-only mounts: the
# view opens each again through a read-only mount of its own
# (view_linux.c, step 1b), so the probe's chmod through them meets EROFS
# and their modes stay; everything written still arrives.  Unconfined,
# the probe changes both (so it can tell).
if [ "$(id -u)" = 0 ] && [ "$chmod_on" = "probe: chmod EROFS" ] &&
    mknod -m 640 "$T/out-null" c 1 3 2>/dev/null && mkfifo -m 640 "$T/out-fifo"; then
	for how in on off; do
		rm -rf "$T/dv" && mkdir "$T/dv"
		cat "$T/out-fifo" > "$T/out-fifo.txt" &
		if [ "$how" = on ]; then set --; else set -- --no-sandbox; fi
		PFEXTRACT_SANDBOX_PROBE="$T/probe-file" "$pfx" -xvf "$T/a.tgz" \
		    --symlinks=contain \
		    -C "$T/dv" "$@" > "$T/out-null" 2> "$T/out-fifo"
		rc=$?
		wait
		rm -f "$T/probe-file"
		if [ "$how" = on ]; then
			want="640 640" e=EROFS
		else
			want="642 642" e=OK
		fi
		if [ "$rc" = 0 ] && [ "$(modes "$T/out-null" "$T/out-fifo")" = "$want" ] &&
		    grep -qx "probe: fchmod stdout $e" "$T/out-fifo.txt" &&
		    grep -qx "probe: fchmod stderr $e" "$T/out-fifo.txt" &&
		    grep -q '^probe: execve\|^probe: fork EPERM' "$T/out-fifo.txt"; then
			ok
		else
			bad "device and FIFO outputs, $how: exit $rc, modes $(modes \
			    "$T/out-null" "$T/out-fifo"), $(grep probe "$T/out-fifo.txt" | tr '\n' ' ')"
		fi
		chmod 640 "$T/out-null" "$T/out-fifo"
	done
	rm -f "$T/out-null" "$T/out-fifo" "$T/out-fifo.txt"
fi

# Standard output relayed into a file on a full file system: the write
# error is the run's, said as without the relay (exit 2, "standard
# output: No space left on device"), and standard error still says it.
if [ "$(id -u)" = 0 ] && mkdir "$T/full" &&
    mount -t tmpfs -o size=8k tmpfs "$T/full" 2>/dev/null; then
	head -c 65536 /dev/zero > "$T/full/fill" 2>/dev/null
	for o in "" --no-sandbox; do
		# shellcheck disable=SC2086 # O is one option or none
		"$pfx" -tvf "$T/a.tgz" $o > "$T/full/list" 2> "$T/full.err"
		rc=$?
		if [ "$rc" = 2 ] && grep -qx \
		    'pfextract: standard output: No space left on device' \
		    "$T/full.err"; then ok; else
			bad "stdout on a full disk ($o): exit $rc: $(cat "$T/full.err")"
		fi
		rm -f "$T/full/list"
	done
	umount "$T/full"
	rmdir "$T/full"
fi

# Standard output and error into one file (>f 2>&1) go through one pipe:
# the relay keeps their order, the same lines in the same order as
# unconfined.
for o in "" --no-sandbox; do
	rm -rf "$T/one" && mkdir "$T/one"
	# shellcheck disable=SC2086 # O is one option or none
	"$pfx" -xvvf "$T/demo.tgz" -C "$T/one" $o --warning=all \
	    > "$T/one${o}.out" 2>&1
done
if [ -s "$T/one.out" ] && cmp -s "$T/one.out" "$T/one--no-sandbox.out"; then
	ok
else
	bad "one file for both outputs: $(diff "$T/one.out" \
	    "$T/one--no-sandbox.out" | head -4)"
fi
rm -rf "$T/one" "$T/one.out" "$T/one--no-sandbox.out"

# --sandbox=require holds here; a bad value is a usage error.
rm -rf "$T/v" && mkdir "$T/v"
if "$pfx" -xf "$T/a.tgz" -C "$T/v" --sandbox=require --symlinks=contain &&
    [ "$(cat "$T/v/d/a.txt")" = one ]; then ok; else
	bad "--sandbox=require refused where the kernel enforces it"
fi
"$pfx" -xf "$T/a.tgz" -C "$T/v" --sandbox=maybe 2> "$T/v.err"
rc=$?
if [ "$rc" -eq 64 ] && grep -q "invalid --sandbox value 'maybe'" "$T/v.err"
then ok; else bad "--sandbox=maybe: exit $rc: $(head -1 "$T/v.err")"; fi

# --sandbox=require where the kernel cannot: a preloaded shim makes
# Landlock's system calls say ENOSYS.  Only for a build that a plain
# shim can be preloaded into (not under ASan) and with a compiler.
cat > "$T/nolandlock.c" <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
/* syscall(2), but Landlock's three calls (444 to 446) say ENOSYS. */
long
syscall(long n, ...)
{
	long (*real)(long, ...) = (long (*)(long, ...))dlsym(RTLD_NEXT,
	    "syscall");
	long a[6];
	va_list ap;
	int i;

	va_start(ap, n);
	for (i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (n >= 444 && n <= 446) {
		errno = ENOSYS;
		return -1;
	}
	return real(n, a[0], a[1], a[2], a[3], a[4], a[5]);
}
C
if cc -shared -fPIC -o "$T/nolandlock.so" "$T/nolandlock.c" -ldl \
    2>/dev/null && LD_PRELOAD="$T/nolandlock.so" "$pfx" --version \
    > /dev/null 2>&1; then
	rm -rf "$T/v" && mkdir "$T/v"
	LD_PRELOAD="$T/nolandlock.so" "$pfx" -xf "$T/a.tgz" -C "$T/v" \
	    --sandbox=require --report=json > "$T/v.json" 2> "$T/v.err"
	rc=$?
	if [ "$rc" -eq 2 ] &&
	    grep -q '^pfextract: sandbox required, but the kernel cannot enforce it: ' \
	    "$T/v.err" && [ -z "$(ls -A "$T/v")" ]; then ok; else
		bad "require without Landlock: exit $rc: $(cat "$T/v.err")"
	fi
	# Without require it degrades, says so, and extracts.
	rm -rf "$T/v" && mkdir "$T/v"
	LD_PRELOAD="$T/nolandlock.so" PFEXTRACT_SANDBOX_PROBE="$T/pf" \
	    "$pfx" -xvvvf "$T/a.tgz" -C "$T/v" --symlinks=contain > /dev/null \
	    2> "$T/v.err"
	rc=$?
	if [ "$rc" -eq 0 ] && [ "$(cat "$T/v/d/a.txt")" = one ] &&
	    grep -q '^pfextract: sandbox: no landlock (kernel without it), no_new_privs, seccomp; writer: no landlock (kernel without it), no_new_privs, seccomp$' \
	    "$T/v.err" && grep -qx 'probe: socket EPERM' "$T/v.err" &&
	    grep -qx 'probe: open OK' "$T/v.err"; then ok; else
		bad "degraded sandbox: exit $rc: $(cat "$T/v.err")"
	fi
	rm -f "$T/pf"
fi

# --backup and --atomic over an existing symlink, FIFO and socket: each
# is moved aside (Landlock asks for the right to make its kind to move
# it), confined as with --no-sandbox.
if command -v python3 > /dev/null; then
	mkdir -p "$T/sp/src" && for n in lnk fifo sock; do
		echo new > "$T/sp/src/$n"
	done
	tar -C "$T/sp/src" -cf "$T/sp/a.tar" lnk fifo sock
	for how in --backup --atomic "--backup --no-sandbox"; do
		rm -rf "$T/sp/dest" && mkdir "$T/sp/dest"
		ln -s somewhere "$T/sp/dest/lnk" && mkfifo "$T/sp/dest/fifo"
		python3 -c 'import socket, sys
socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$T/sp/dest/sock"
		# shellcheck disable=SC2086 # HOW is a list of options
		"$pfx" -xf "$T/sp/a.tar" -C "$T/sp/dest" $how 2> "$T/sp/err"
		rc=$?
		got=$(cat "$T/sp/dest/lnk" "$T/sp/dest/fifo" \
		    "$T/sp/dest/sock" 2>/dev/null | tr '\n' ' ')
		if [ "$rc" -eq 0 ] && [ "$got" = "new new new " ]; then ok
		else
			bad "$how over a symlink, FIFO, socket: exit $rc," \
			    "'$got': $(cat "$T/sp/err")"
		fi
		case $how in --backup*)
			if [ -L "$T/sp/dest/lnk~" ] && [ -p "$T/sp/dest/fifo~" ] &&
			    [ -S "$T/sp/dest/sock~" ]; then ok; else
				bad "$how: no backups: $(ls -l "$T/sp/dest")"
			fi ;;
		esac
	done
fi

# As an ordinary user (nobody, with a supplementary group), where root can
# become one and nobody may make a user namespace: the writer's read-only
# mounts come from a user namespace of its own (view_linux.c), and
# nothing else of the run may change with them.  Owners and groups (a
# setgid destination of the supplementary group, a directory writable
# only through it), modes with -p (a set-group-ID file of that group),
# user.* attributes, hard links, a file of root's replaced, a read-only
# directory of its own (permission_denied), --same-owner and
# --numeric-owner, -k, --backup, --recursive-unlink: the same tree, exit
# status, report and messages as with --no-sandbox.
if [ "$(id -u)" -eq 0 ] && command -v setpriv > /dev/null &&
    setpriv --reuid=65534 --regid=65534 --clear-groups \
    unshare -U -m true 2> /dev/null; then
	chmod 711 "$T"
	W=$T/nobody TPL=$T/nobody-tpl
	AS="setpriv --reuid=65534 --regid=65534 --groups=100"
	setfcap_off="probe: setfcap EPERM" outputs_off="640 640"
	mkdir "$W" "$TPL" "$TPL/g" "$TPL/ro" "$TPL/sub"
	printf 'old\n' > "$TPL/rootfile"
	printf 'old\n' > "$TPL/old"
	printf 'old\n' > "$TPL/sub/x"
	chown -R 65534:65534 "$W" "$TPL"
	chown 0:0 "$TPL/rootfile"
	chown 0:100 "$TPL/g" "$TPL" && chmod 2775 "$TPL/g" "$TPL"
	chmod 555 "$TPL/ro"
	python3 - "$T/nobody.tar" <<'EOF'
import io, sys, tarfile
def add(t, name, kind=tarfile.REGTYPE, mode=0o644, uid=65534, gid=100,
    data=b'', link='', xattrs=None):
	i = tarfile.TarInfo(name)
	i.type, i.mode, i.uid, i.gid, i.linkname = kind, mode, uid, gid, link
	i.uname, i.gname, i.mtime = 'nobody', 'users', 1600000000
	if xattrs:
		i.pax_headers = {'SCHILY.xattr.' + k: v for k, v in xattrs.items()}
	i.size = len(data)
	t.addfile(i, io.BytesIO(data) if data else None)
with tarfile.open(sys.argv[1], 'w', format=tarfile.PAX_FORMAT) as t:
	add(t, 'd', tarfile.DIRTYPE, 0o2775)
	add(t, 'd/f', data=b'f\n', uid=1234, gid=1234)
	add(t, 'd/sgid', mode=0o2755, data=b'sgid\n')
	add(t, 'd/hl', tarfile.LNKTYPE, link='d/f')
	add(t, 'd/sl', tarfile.SYMTYPE, link='f')
	add(t, 'd/x', data=b'x\n', xattrs={'user.pfx': 'v'})
	add(t, 'g/new', data=b'new\n')
	add(t, 'ro/x', data=b'x\n')
	add(t, 'rootfile', data=b'new\n', uid=0, gid=0)
	add(t, 'old', data=b'new\n')
	add(t, 'sub', tarfile.DIRTYPE, 0o755)
	add(t, 'sub/y', data=b'y\n')
EOF
	for o in "" -p --same-owner "-p --same-owner --numeric-owner" -k \
	    --backup --recursive-unlink --xattrs "--xattrs -p" \
	    --symlinks=contain; do
		# shellcheck disable=SC2086 # O is a list of options
		compare "nobody $o" "$T/nobody.tar" $o
	done
	if [ -e "$W/on/ro/x" ] ||
	    ! grep -q '"input":"ro/x".*"permission_denied"' "$T/on.json"; then
		bad "nobody: ro/x not refused: $(grep ro/x "$T/on.json")"
	else
		ok
	fi
	# Standard error on a FIFO of nobody's own, which nobody may chmod:
	# in the user namespace's view it is opened again by its path on a
	# read-only mount of its own (node_here()), so the probe's chmod
	# meets EROFS; unconfined it works (so the probe can tell).
	mkfifo -m 640 "$W/err-fifo" && chown 65534 "$W/err-fifo"
	for how in on off; do
		rm -rf "$W/dv" && mkdir "$W/dv" && chown 65534 "$W/dv"
		cat "$W/err-fifo" > "$T/err-fifo.txt" &
		if [ "$how" = on ]; then set --; else set -- --no-sandbox; fi
		PFEXTRACT_SANDBOX_PROBE="$W/probe-file" $AS "$pfx" \
		    -xf "$T/nobody.tar" -C "$W/dv" "$@" 2> "$W/err-fifo"
		wait
		rm -f "$W/probe-file"
		if [ "$how" = on ]; then
			want=640 e=EROFS
		else
			want=642 e=OK
		fi
		if [ "$(modes "$W/err-fifo")" = "$want" ] &&
		    grep -qx "probe: fchmod stderr $e" "$T/err-fifo.txt"; then
			ok
		else
			bad "nobody, FIFO output, $how: mode $(modes \
			    "$W/err-fifo"), $(grep probe "$T/err-fifo.txt" |
			    tr '\n' ' ')"
		fi
		chmod 640 "$W/err-fifo"
	done
	rm -rf "$W/err-fifo" "$T/err-fifo.txt" "$W/dv"
	W=$T AS='' TPL='' setfcap_off="probe: setfcap OK" outputs_off="642 642"
fi

echo "sandbox: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
