#!/bin/sh
# A decoder process taken over: the hostile test build (obj/hostile/)
# runs tests/hostile.c in the decoder process right after it confined
# itself, as an exploit of libarchive would, case by case (PFX_HOSTILE).
# Each case runs four ways: the CLI, the CLI with --atomic, and the
# library with PFX_OPT_SANDBOX_CHILD (the archive by its path), and with
# PFX_OPT_ATOMIC too (by a descriptor; tests/hostile_lib.c, which holds a
# file O_RDWR, a directory and a socket with unread bytes while it
# extracts).  Asserted, from outside:
# nothing outside DEST and its staging area changed (content, mode,
# owner, link count, xattrs; /dev/null, /etc/shadow), DEST's pre-existing
# files neither; no set-id file anywhere; no FORGED byte on standard
# output, in the JSON report, or in any file the case did not allow;
# the exit status, the message and a bound on the time taken; with
# --atomic, a failed run leaves DEST absent and no staging directory;
# no process of the run survives it; the archive's attribute flags
# (lsattr) are as they were; the ipc case left no System V object and
# wrote nothing into a segment of this script's; and 3 s later nothing
# has changed.
# Usage: sh tests/hostile.sh HOSTILE_PFEXTRACT HOSTILE_LIB
set -u
pfx=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
lib=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
T=$(mktemp -d)
tag=hostile-sh-$$
devnull=$(stat -c '%a %u %g' /dev/null)

# The processes of this script's runs still alive (their environment
# carries the tag).
survivors() {
	for e in /proc/[0-9]*/environ; do
		if (tr '\0' '\n' < "$e") 2>/dev/null |
		    grep -qx "PFX_HOSTILE_RUN=$tag.$1"; then
			p=${e#/proc/}
			echo "${p%/environ}"
		fi
	done
}
cleanup() {
	for p in $(survivors '[0-9]*'); do kill -KILL "$p" 2>/dev/null; done
	restore_devnull
	rm -rf "$T"
}
# The decoder process holds /dev/null: a chmod of its stdio is one.
restore_devnull() {
	if [ "$(stat -c '%a %u %g' /dev/null)" != "$devnull" ]; then
		chmod "${devnull%% *}" /dev/null
		chown "$(echo "$devnull" | cut -d' ' -f2):$(echo "$devnull" |
		    cut -d' ' -f3)" /dev/null
	fi
}
trap cleanup EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "hostile.sh: FAIL: $*" >&2; fail=$((fail + 1)); }
now_ms() { echo $(($(date +%s%N) / 1000000)); }
start=$(now_ms)

mkdir -p "$T/src/d/e"
printf 'one\n' > "$T/src/d/a.txt"
printf 'two\n' > "$T/src/d/e/b.txt"
head -c 300000 /dev/urandom > "$T/src/d/big"
tar -C "$T/src" -cf "$T/a.tar" d

# tree DIR: DIR's names with type, mode, size and content.
tree() {
	(cd "$1" && find . -mindepth 1 -printf '%y %m %U %G %s %P\n' | sort &&
	    find . -type f -exec sha256sum {} + | sort)
}
want_tree=$(tree "$T/src")

# snap R: what must not change in run R: everything but DEST and the
# staging area (directories without their times, which a publish
# changes: size, link count), DEST's pre-existing files, /dev/null and
# /etc/shadow.
snap() {
	(cd "$1" && find . \( -path ./w/dest -o -path './w/.dest.pfx-*' \) \
	    -prune -o \( -type f -printf '%y %m %U %G %n %s %T@ %p\n' \) \
	    -o -printf '%y %m %U %G %p\n' | sort
	find . \( -path ./w/dest -o -path './w/.dest.pfx-*' \) -prune -o \
	    -type f -exec sha256sum {} + | sort
	"$lib" xattrs $(find . \( -path ./w/dest -o -path './w/.dest.pfx-*' \
	    \) -prune -o -print | sort)
	if [ -e pre ]; then
		stat -c '%f %u %g %n' w/dest
		stat -c '%f %u %g %h %s %Y %n' w/dest/pre w/dest/hl
		sha256sum w/dest/pre
		"$lib" xattrs w/dest w/dest/pre
	fi)
	# The archive's attribute flags, which a descriptor open for
	# reading could set (FS_IOC_SETFLAGS), where the file system has
	# them.
	lsattr "$1/a.tar" 2>/dev/null | cut -d' ' -f1
	stat -c '%f %u %g %n' /dev/null
	sha256sum /etc/shadow 2>&1
	stat -c '%f %u %g %h %s %Y %n' /etc/shadow 2>&1
}

# setup R ATOMIC: a run's directory: the archive, the outside files (one
# held O_RDWR by hostile_lib, one behind a hard link), DEST's parent w/
# and, without --atomic, DEST with a file and the hard link in it.
setup() {
	mkdir -p "$1/out/dir" "$1/w" "$1/cwd"
	cp "$T/a.tar" "$1/a.tar"
	printf 'secret\n' > "$1/out/secret"
	printf 'target\n' > "$1/out/target"
	if [ "$2" = 1 ]; then
		ln "$1/out/target" "$1/w/hl"
	else
		mkdir "$1/w/dest"
		printf 'pre\n' > "$1/w/dest/pre"
		ln "$1/out/target" "$1/w/dest/hl"
		touch "$1/pre"
	fi
}

# The argument of case C for run R (ATOMIC 1 or 0).
arg_of() {
	D=$2/w/dest S="$2/w/.dest.pfx-*/tree"
	case $1 in
	setid) if [ "$3" = 1 ]; then
		echo "setid:$S/new-setid,$S,$S/d/a.txt,$2/w/hl,$2/w"
	else
		echo "setid:$D/new-setid,$D/pre,$D/hl,$D"
	fi ;;
	hardlink) if [ "$3" = 1 ]; then echo "hardlink:$2/w/hl"; else
		echo "hardlink:$D/hl"; fi ;;
	fork) echo "fork:$D/d/a.txt" ;;
	*) echo "$1" ;;
	esac
}

# run ID CASE WAY: one run; WAY is cli, cli-atomic, lib or lib-atomic.
# The run's world is $T/ID; what is said of it goes to $T/ID.m: rc, ms,
# stdout, stderr, before, after, late, dest, case, way.
run() {
	R=$T/$1 M=$T/$1.m c=$2 way=$3
	mkdir -p "$M"
	atomic=0
	case $way in *atomic) atomic=1 ;; esac
	setup "$R" $atomic
	echo "$c" > "$M/case"
	echo "$way" > "$M/way"
	snap "$R" > "$M/before"
	# A spinning decoder is the stall limit's (CPU seconds) to stop: the
	# idle limit (wall seconds) is kept out of its way, so that a busy
	# machine, where a CPU second takes longer, still shows that one.
	idle=2 stall=1
	[ "$c" = spin ] && idle=30
	# A hog fills the memory the decoder process may have (the budget
	# and 512 MiB) until RLIMIT_DATA stops it, a hoard 1 GiB where that
	# limit does not look: on a VM where a page fault costs 20 us that
	# alone is 2 to 3 s of CPU, in which it sends nothing; both
	# deadlines are kept out of the way of the limit.
	case $c in hog|hoard:*) idle=30 stall=30 ;; esac
	# ipc: a segment of this script's, for the decoder to find, and
	# the System V objects there were (ipcs: ids, keys, owners).
	if [ "$c" = ipc ]; then
		shm=$(ipcmk -M 4096 2>/dev/null | sed -n 's/.*: *//p')
		ipc_list > "$M/ipc-before"
	fi
	t0=$(now_ms)
	case $way in
	cli)
		(cd "$R/cwd" && PFX_HOSTILE=$(arg_of "$c" "$R" 0) \
		    PFX_HOSTILE_RUN=$tag.$1 timeout -s KILL 30 "$pfx" -x \
		    -f ../a.tar -C ../w/dest --report=json \
		    --idle-timeout=$idle --stall-timeout=$stall --max-memory=64M) \
		    > "$M/stdout" 2> "$M/stderr" ;;
	cli-atomic)
		(cd "$R/cwd" && PFX_HOSTILE=$(arg_of "$c" "$R" 1) \
		    PFX_HOSTILE_RUN=$tag.$1 timeout -s KILL 30 "$pfx" -x \
		    -f ../a.tar -C ../w/dest --atomic --report=json \
		    --idle-timeout=$idle --stall-timeout=$stall --max-memory=64M) \
		    > "$M/stdout" \
		    2> "$M/stderr" ;;
	lib*)
		(cd "$R/cwd" && PFX_HOSTILE=$(arg_of "$c" "$R" $atomic) \
		    PFX_HOSTILE_IDLE=$idle PFX_HOSTILE_STALL=$stall \
		    PFX_HOSTILE_RUN=$tag.$1 timeout -s KILL 30 "$lib" \
		    "$([ $atomic = 1 ] && echo atomic || echo child)" \
		    ../a.tar ../w/dest ../out/secret ../out/dir) \
		    > "$M/stdout" 2> "$M/stderr" ;;
	esac
	echo $? > "$M/rc"
	echo $(($(now_ms) - t0)) > "$M/ms"
	if [ "$c" = ipc ]; then
		if [ -n "$shm" ]; then
			"$lib" shm "$shm" > "$M/shm"
		else	# no segment to be had here: nothing to write into
			echo 00000000000000000000000000000000 > "$M/shm"
		fi
		ipc_list > "$M/ipc-after"
		# What the run left is this script's to remove.
		for id in $(diff "$M/ipc-before" "$M/ipc-after" |
		    sed -n 's/^> \([a-z]\) \([0-9]*\) .*/\1:\2/p'); do
			ipcrm -"${id%%:*}" "${id#*:}" 2>/dev/null
		done
		[ -n "$shm" ] && ipcrm -m "$shm"
	fi
	snap "$R" > "$M/after"
	dest_state "$R" > "$M/dest"
	# What a late change is judged against: /dev/null as it should be.
	restore_devnull
	snap "$R" > "$M/late"
}

# ipc_list: every System V object, one a line: its kind (m, q, s), id
# and key.
ipc_list() {
	for k in m q s; do
		ipcs -"$k" | awk -v k="$k" '$2 ~ /^[0-9]+$/ { print k, $2, $1 }'
	done
}

# dest_state R: DEST and every staging directory, whole.
dest_state() {
	[ -d "$1/w/dest" ] && tree "$1/w/dest"
	ls -A "$1/w"
}

# check ID: judge run ID right after it returned.
check() {
	R=$T/$1 M=$T/$1.m c=$(cat "$T/$1.m/case") way=$(cat "$T/$1.m/way")
	rc=$(cat "$M/rc") ms=$(cat "$M/ms") n="$c/$way"
	case $way in
	lib*) rc=$(sed -n 's/^status \([0-9]*\) .*/\1/p' "$M/stdout")
	      msg=$(sed -n 's/^message //p' "$M/stdout")
	      if grep -q '^FAIL' "$M/stdout"; then
		      bad "$n: $(grep '^FAIL' "$M/stdout" | head -3)"
	      else ok; fi ;;
	*) msg=$(grep -v '^pfextract: sandbox' "$M/stderr" | tail -1) ;;
	esac
	# What the case must come to, and how soon.
	case $c in
	fds|setid|hardlink|fork|signal|sched|rt|ipc|hold|threads) want=0 limit=10000
	    text= ;;
	hog|hoard:*) want=0 limit=25000 text= ;;
	silent|urgent) want=2 limit=5000
	    text='sent nothing for 2 s' ;;
	spin) want=2 limit=15000
	    text='of CPU without giving an entry or data' ;;
	linger) want=2 limit=3500
	    text="did not exit within 2 s of the archive's end (killed)" ;;
	lies:[1-7]) want=2 limit=3000
	    text='protocol error from the decoder process' ;;
	# Messages that say nothing, or a bomb that claims a huge input:
	# the ratio counts what was sent against what the input holds.
	empty|raw) want=2 limit=10000 text='max-ratio' ;;
	lies:*) want=1 limit=3000 text= ;;
	esac
	if [ "$rc" = "$want" ]; then ok; else
		bad "$n: status '$rc', want $want: $msg"
	fi
	if [ -z "$text" ] || echo "$msg" | grep -qF "$text"; then ok; else
		bad "$n: message '$msg', want '$text'"
	fi
	if [ "$ms" -le "$limit" ]; then ok; else
		bad "$n: took $ms ms, more than $limit"
	fi
	if cmp -s "$M/before" "$M/after"; then ok; else
		bad "$n: changed outside DEST: $(diff "$M/before" \
		    "$M/after" | grep '^[<>]' | head -4 | tr '\n' ' ')"
	fi
	if [ -z "$(find "$R" -perm /6000)" ]; then ok; else
		bad "$n: set-id files: $(find "$R" -perm /6000 | head -3)"
	fi
	if ! grep -q FORGED "$M/stdout" "$M/stderr"; then ok; else
		bad "$n: FORGED on standard output, error or in the report"
	fi
	# Only lies 8 and 9 send FORGED as an entry's data, in DEST.
	case $c in lies:8|lies:9) forged=$(grep -rl FORGED "$R" |
	    grep -v "^$R/w/dest/") ;;
	*) forged=$(grep -rl FORGED "$R") ;;
	esac
	if [ -z "$forged" ]; then ok; else
		bad "$n: FORGED written in: $forged"
	fi
	if [ -z "$(survivors "$1")" ]; then ok; else
		bad "$n: processes alive after the call: $(survivors "$1" | tr "\n" " ")"
	fi
	if [ "$c" = ipc ]; then
		if cmp -s "$M/ipc-before" "$M/ipc-after"; then ok; else
			bad "$n: System V objects left: $(diff "$M/ipc-before" \
			    "$M/ipc-after" | grep '^>' | tr '\n' ' ')"
		fi
		if [ "$(cat "$M/shm")" = 00000000000000000000000000000000 ]
		then ok; else
			bad "$n: wrote into another process's shared memory:" \
			    "$(cat "$M/shm")"
		fi
	fi
	# DEST: the archive's tree when the run succeeds; with --atomic,
	# absent when it fails; never a staging directory left.
	if [ "$want" = 0 ]; then
		if [ "$(tree "$R/w/dest/d" 2>&1)" = "$(tree "$T/src/d")" ]; then
			ok
		else
			bad "$n: DEST is not the archive's tree"
		fi
	fi
	case $way in *atomic)
		if [ "$rc" = 2 ] && [ -e "$R/w/dest" ]; then
			bad "$n: a failed --atomic run left DEST"
		else ok; fi
		if [ "$(ls -A "$R/w")" = "$(printf 'dest\nhl')" ] ||
		    [ "$(ls -A "$R/w")" = hl ]; then ok; else
			bad "$n: left in DEST's parent: $(ls -A "$R/w" |
			    tr '\n' ' ')"
		fi ;;
	esac
}

# late ID: 3 s on, nothing changed, in DEST or elsewhere.
late() {
	R=$T/$1 M=$T/$1.m n="$(cat "$T/$1.m/case")/$(cat "$T/$1.m/way")"
	if [ "$(snap "$R")" = "$(cat "$M/late")" ]; then ok; else
		bad "$n: changed after the call returned: $(snap "$R" |
		    diff "$M/late" - | grep '^[<>]' | head -4 | tr '\n' ' ')"
	fi
	if [ "$(dest_state "$R")" = "$(cat "$M/dest")" ]; then ok; else
		bad "$n: DEST changed after the call returned"
	fi
	if [ -z "$(find "$R" -perm /6000)" ]; then ok; else
		bad "$n: set-id files after the call: $(find "$R" -perm /6000 |
		    head -3)"
	fi
	if [ -z "$(survivors "$1")" ]; then ok; else
		bad "$n: processes alive 3 s after the call: $(survivors "$1" | tr "\n" " ")"
		for p in $(survivors "$1"); do kill -KILL "$p"; done
	fi
}

cases="fds setid hardlink fork signal sched rt hold threads hog hoard:shared hoard:memfd hoard:sysv
hoard:sockets hoard:pipes silent urgent spin linger lies:1 lies:2 lies:3 lies:4 lies:5 lies:6
lies:7 lies:8 lies:9 empty raw"
# System V IPC: made and read with util-linux's ipcmk and ipcs.
if command -v ipcmk > /dev/null && command -v ipcs > /dev/null; then
	cases="$cases ipc"
else
	echo "hostile.sh: ipcmk or ipcs is missing: no ipc case"
fi
if [ -n "${HOSTILE_CASES:-}" ]; then cases=$HOSTILE_CASES; fi
i=0
for c in $cases; do
	for way in cli cli-atomic lib lib-atomic; do
		i=$((i + 1))
		run "$i" "$c" "$way"
		check "$i"
	done
done
# A standard input it could write through: one socket for stdin and
# stdout, and a terminal (tests/hostile_stdio.py).
if command -v python3 > /dev/null; then
	mkdir "$T/stdio"
	if python3 "$(dirname "$0")/hostile_stdio.py" "$pfx" "$T/a.tar" \
	    "$T/stdio"; then ok; else
		bad "stdio: a socket or terminal on stdin (above)"
	fi
	# A pipe as the archive: its read end's status flags are those of
	# the open file description the pipeline shares (fds sets
	# O_NONBLOCK and O_APPEND on every descriptor), and the next
	# reader of the pipeline's input must find them as they were.
	mkdir "$T/pipe"
	flags=$(cat "$T/a.tar" | { PFX_HOSTILE=fds PFX_HOSTILE_RUN=$tag.pipe \
	    timeout -s KILL 30 "$pfx" -x -f - -C "$T/pipe" \
	    --idle-timeout=2 > /dev/null 2>&1
	    python3 -c 'import fcntl; print(fcntl.fcntl(0, fcntl.F_GETFL))'; })
	if [ "$flags" = 0 ]; then ok; else
		bad "pipe: the pipeline's input left with status flags $flags"
	fi
else
	echo "hostile.sh: python3 is missing: no socket or terminal stdin"
fi
sleep 3
j=0
while [ "$j" -lt "$i" ]; do
	j=$((j + 1))
	late "$j"
done

echo "hostile.sh: $pass passed, $fail failed, $i runs," \
    "$(($(now_ms) - start)) ms"
[ "$fail" -eq 0 ]
