#!/bin/sh
#
# fdlimit.sh -- pfextract(1) under a low RLIMIT_NOFILE (issue 19 §5):
# descriptors kept only for speed (the worker's queue, the kept parent)
# are sized from the limit and given back under pressure, so a deep or a
# wide tree is extracted whole at the least the run needs (10; 11
# without the decoder process, 14 with --atomic), and below that the run stops before it begins, saying so.
#
# Usage: sh tests/fdlimit.sh PATH_TO_PFEXTRACT
#
# For each limit (10, 12, 16), with and without the decoder process
# (--no-sandbox, from 12), with and without the worker thread (--cpus=3:
# planned for three CPUs, where it runs), plain and gzip input, with both resolvers
# (PFEXTRACT_RESOLVER=walk), and with --atomic where the limit allows it,
# the tree must be GNU tar's (type, path, size, mode, content) and the
# exit 0; and --symlinks=contain over a DEST with links 30 levels deep.
# Each run has only descriptors 0-2 open (bash closes the rest).

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

# lim N CMD...: CMD with descriptors 0-2 only and RLIMIT_NOFILE N.
cat > "$T/lim.bash" <<'LIM'
n=$1; shift
for f in /proc/$$/fd/*; do
	fd=${f##*/}
	if [ "$fd" -gt 2 ] && [ -e "$f" ]; then exec {fd}>&-; fi
done
ulimit -n "$n" || exit 99
exec "$@"
LIM
lim() { bash "$T/lim.bash" "$@"; }

# The trees: 50 levels deep, and 40 directories of files side by side.
mk_src() {
	p=$T/src
	i=1
	while [ $i -le 50 ]; do p=$p/d$i; i=$((i + 1)); done
	mkdir -p "$p"
	echo deep > "$p/f"
	i=1
	while [ $i -le 40 ]; do
		mkdir -p "$T/src/w$i/x"
		echo "$i" > "$T/src/w$i/x/f"
		head -c $((i * 3000)) /dev/urandom > "$T/src/w$i/g"
		i=$((i + 1))
	done
	chmod 750 "$T/src/w7"
	chmod 600 "$T/src/w9/g"
}

# The listing compared: type, path, size of files, mode; and contents.
tree_of() {
	(cd "$1" && find . -mindepth 1 -printf '%y %p %m\n' | sort &&
	    find . -type f -exec sha1sum {} + | sort -k2)
}

mk_src
tar -cf "$T/t.tar" -C "$T/src" .
gzip -c "$T/t.tar" > "$T/t.tar.gz"
mkdir "$T/ref"
tar -xf "$T/t.tar" -C "$T/ref"
tree_of "$T/ref" > "$T/ref.lst"

check() {	# check LIMIT RESOLVER ARCHIVE OPTS...
	n=$1 r=$2 arc=$3
	shift 3
	what="ulimit -n $n, resolver ${r:-auto}, $arc, ${*:-defaults}"
	rm -rf "$T/out"
	[ "$*" = "${*#--atomic}" ] && mkdir "$T/out"
	PFEXTRACT_RESOLVER=$r lim "$n" "$PFX" "$@" -xf "$T/$arc" \
	    -C "$T/out" 2> "$T/err"
	st=$?
	if [ $st -ne 0 ]; then
		bad "$what: exit $st: $(tail -1 "$T/err")"
		return
	fi
	tree_of "$T/out" > "$T/out.lst"
	if cmp -s "$T/ref.lst" "$T/out.lst"; then
		ok
	else
		bad "$what: tree differs from GNU tar's:" \
		    "$(diff "$T/ref.lst" "$T/out.lst" | head -3)"
	fi
}

for n in 10 12 16; do
	for r in "" walk; do
		for arc in t.tar t.tar.gz; do
			check $n "$r" $arc
			check $n "$r" $arc --cpus=3
			[ $n -ge 11 ] && check $n "$r" $arc --no-sandbox
			[ $n -ge 11 ] && check $n "$r" $arc --no-sandbox --cpus=3
			check $n "$r" $arc --strict
		done
		[ $n -ge 14 ] && check $n "$r" t.tar.gz --atomic
		[ $n -ge 14 ] && check $n "$r" t.tar --atomic --no-sandbox
	done
done

# --symlinks=contain lists the links already in DEST (platform/walk.c):
# the listings it keeps open above a deep directory only save relisting,
# and go under pressure.  DEST holds a link at each of 30 levels.
mkdir -p "$T/lk/a"
echo hi > "$T/lk/a/x"
ln -s x "$T/lk/a/link"
tar -cf "$T/lk.tar" -C "$T/lk" a
for n in 10 12; do
	for r in "" walk; do
		rm -rf "$T/out"
		p=$T/out
		i=1
		while [ $i -le 30 ]; do
			p=$p/e$i
			mkdir -p "$p"
			ln -s ../x "$p/l"
			i=$((i + 1))
		done
		PFEXTRACT_RESOLVER=$r lim "$n" "$PFX" --symlinks=contain \
		    -xf "$T/lk.tar" -C "$T/out" 2> "$T/err"
		st=$?
		if [ $st -eq 0 ] && [ "$(readlink "$T/out/a/link")" = x ] &&
		    [ "$(find "$T/out" -type l | wc -l)" -eq 31 ]; then
			ok
		else
			bad "ulimit -n $n, resolver ${r:-auto}, contain over" \
			    "30 levels of links: exit $st: $(tail -1 "$T/err")"
		fi
	done
done

# Below the least a run needs: a clear error, exit 2, nothing made.
under() {	# under LIMIT NEED OPTS...
	n=$1 need=$2
	shift 2
	rm -rf "$T/out"
	[ "$*" = "${*#--atomic}" ] && mkdir "$T/out"
	lim "$n" "$PFX" "$@" -xf "$T/t.tar" -C "$T/out" 2> "$T/err"
	st=$?
	if [ $st -eq 2 ] && grep -q "too few file descriptors: the limit" \
	    "$T/err" && grep -q "needs $need" "$T/err" &&
	    [ -z "$(ls -A "$T/out" 2>/dev/null)" ]; then
		ok
	else
		bad "ulimit -n $n $*: exit $st, want 2 and 'needs $need':" \
		    "$(tail -1 "$T/err")"
	fi
}
under 9 10
under 10 11 --no-sandbox
under 13 14 --atomic

echo "fdlimit: $pass passed, $fail failed"
[ $fail -eq 0 ]
