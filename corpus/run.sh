#!/bin/sh
# Run the attack corpus: build every case's archive with mkcorpus, extract
# each one with pfextract in a fresh tree, with each resolver, and judge
# the outcome against the manifest (corpus/manifest/*.cases; the format is
# in corpus/README).  For every run it asserts:
#   - nothing outside dest changed: a snapshot of the whole test tree
#     (type, mode, owner, size, times, inode, link count, symlink target
#     and a hash of every file) is the same before and after;
#   - dest holds exactly the manifest's listing (or counts), and the house
#     rules: only files and directories (symlinks only with a --symlinks
#     option), no setuid/setgid bits, everything owned by the caller
#     unless --same-owner;
#   - the exit status, the multiset of status:reason pairs in
#     --report=json, and the summary's error when the manifest names one.
#
#	sh corpus/run.sh PFEXTRACT MKCORPUS [CASE ...]
set -eu

pfx=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
mk=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
shift 2
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/pfx-corpus.XXXXXX")
# Reports and snapshots go elsewhere: $work is all snapshotted.
scratch=$(mktemp -d "${TMPDIR:-/tmp}/pfx-corpus-out.XXXXXX")
trap 'rm -rf "$work" "$scratch"' EXIT
umask 022

gen=$work/gen
t=$work/t
dest=$t/a/b/c/d/e/f/dest	# seven levels of '..' stay inside $t
mkdir "$gen"
"$mk" "$gen" "$t" "$@"
uid=$(id -u)

fails=0
runs=0
cases=0

# The tree every run starts from: sentinels beside and above dest.
fresh_tree() {
	rm -rf "$t"
	mkdir -p "$dest" "$t/outside/dir"
	printf 'secret\n' > "$t/outside/secret"
	chmod 600 "$t/outside/secret"
	printf 'keep\n' > "$t/outside/dir/keep"
	ln -s secret "$t/outside/link"
	printf 'beside\n' > "$t/a/b/c/d/e/f/sentinel"
	printf 'top\n' > "$t/sentinel"
}

# Pre-existing state in dest, from the manifest's setup lines.
setup() {
	case $1 in
	symlink) ln -s "$(printf %s "$3" | sed "s|@T|$t|g")" "$dest/$2" ;;
	hardlink) ln "$t/$3" "$dest/$2" ;;
	file) mkdir -p "$(dirname "$dest/$2")"
	      printf %s "$3" > "$dest/$2" ;;
	dir) mkdir -p "$dest/$2" ;;
	*) echo "corpus: unknown setup '$1'" >&2; exit 2 ;;
	esac
}

# Everything under $work but dest's contents and the archives' bytes.
# Paths named by relink lines keep their line without link count and
# ctime: replacing a hard link in dest lowers the outside file's count.
snapshot() {
	(cd "$work" && find . -path "./t/a/b/c/d/e/f/dest" -prune -o \
	    -printf '%p|%y|%m|%U:%G|%s|%T@|%C@|%i|%n|%l\n' | LC_ALL=C sort |
	    awk -F'|' -v relink="$relink" '
		BEGIN { n = split(relink, r, " "); for (i = 1; i <= n; i++) skip["./t/" r[i]] = 1 }
		$1 in skip { $7 = "-"; $9 = "-" } { print }' OFS='|'
	 cd "$work" && find ./t -path "./t/a/b/c/d/e/f/dest" -prune -o \
	    -type f -print0 | LC_ALL=C sort -z | xargs -0r sha256sum)
}

listing() {
	(cd "$dest" && find . -mindepth 1 -printf '%y %m %P\n' | LC_ALL=C sort)
}

# A failure that a "known" line may excuse: the outcome differs from the
# manifest's.  Never excused: a change outside dest, a crash, a broken
# house rule (hard_fail).
fail() {
	if [ -n "$known" ]; then
		echo "known $name ($resolver): $*"
		soft=1
		return 0
	fi
	hard_fail "$@"
}

hard_fail() {
	echo "FAIL $name ($resolver): $*"
	fails=$((fails + 1))
	bad=1
}

# Reduce the report to sorted status:reason pairs, runs as pair*N.
reasons() {
	grep -v '^{"summary":true' "$1" |
	    sed 's/.*"reason":"\([^"]*\)","status":"\([^"]*\)".*/\2:\1/' |
	    LC_ALL=C sort | uniq -c |
	    awk '{ printf "%s%s%s", sep, $2, ($1 > 1 ? "*" $1 : ""); sep = " " }
		END { print "" }'
}

run_one() {
	resolver=$1
	bad=0
	soft=0
	fresh_tree
	while IFS=' ' read -r kind a1 a2; do
		if [ -n "$kind" ]; then setup "$kind" "$a1" "$a2"; fi
	done <<-EOF
	$setups
	EOF
	snapshot > "$scratch/before"
	set +e
	# shellcheck disable=SC2086
	PFEXTRACT_RESOLVER=$resolver "$pfx" -x -f "$gen/$name" -C "$dest" \
	    --report=json $options > "$scratch/report" 2> "$scratch/stderr"
	status=$?
	set -e
	runs=$((runs + 1))
	snapshot > "$scratch/after"
	if ! cmp -s "$scratch/before" "$scratch/after"; then
		hard_fail "the tree outside dest changed:"
		diff "$scratch/before" "$scratch/after" | head -20
	fi
	[ "$status" = "$exit" ] || fail "exit $status, expected $exit"
	if [ "$status" -ge 128 ] || grep -q 'Sanitizer' "$scratch/stderr"; then
		hard_fail "crashed:"; head -30 "$scratch/stderr"
	fi
	got=$(reasons "$scratch/report")
	[ "$got" = "$report" ] || fail "report '$got', expected '$report'"
	summary=$(grep '^{"summary":true' "$scratch/report" || true)
	[ -n "$summary" ] || fail "no summary in the report"
	if [ -n "$error" ]; then
		case $summary in
		*'"error":"'*"$error"*) ;;
		*) fail "summary error lacks '$error': $summary" ;;
		esac
	fi
	if [ -n "$maxbytes" ]; then
		b=$(printf %s "$summary" | sed 's/.*"bytes":\([0-9]*\).*/\1/')
		[ "$b" -le "$maxbytes" ] ||
		    hard_fail "wrote $b bytes, bound $maxbytes"
		u=$(du -s -B1 "$dest" | cut -f1)
		[ "$u" -le "$maxbytes" ] ||
		    hard_fail "dest uses $u bytes, bound $maxbytes"
	fi
	house_rules
	if [ -n "$dests" ]; then
		listing > "$scratch/listing"
		printf '%s\n' "$dests" > "$scratch/expected"
		if ! cmp -s "$scratch/expected" "$scratch/listing"; then
			fail "dest differs from the manifest:"
			diff "$scratch/expected" "$scratch/listing" | head -20
		fi
	fi
	if [ -n "$counts" ]; then
		printf '%s\n' "$counts" > "$scratch/counts"
		while read -r ty n; do
			c=$(find "$dest" -mindepth 1 -type "$ty" | wc -l)
			[ "$c" = "$n" ] || fail "$c entries of type $ty, expected $n"
		done < "$scratch/counts"
	fi
	if [ -n "$datas" ]; then
		printf '%s\n' "$datas" > "$scratch/datas"
		while IFS=' ' read -r p text; do
			if [ ! -f "$dest/$p" ] ||
			    [ "$(cat "$dest/$p")" != "$text" ]; then
				fail "$p does not hold '$text'"
			fi
		done < "$scratch/datas"
	fi
	if [ -n "$known" ] && [ "$soft" = 0 ]; then
		hard_fail "passes, but the manifest calls it a known" \
		    "failure ($known): remove the known line"
	fi
	[ "$bad" = 0 ] || { sed 's/^/  stderr: /' "$scratch/stderr" | head -10; }
}

# What every dest must satisfy, whatever the case.
house_rules() {
	case " $options " in
	*" --symlinks="*) odd=$(find "$dest" -mindepth 1 ! -type f ! -type d ! -type l |
		head -5) ;;
	*) odd=$(find "$dest" -mindepth 1 ! -type f ! -type d | head -5) ;;
	esac
	[ -z "$odd" ] || hard_fail "dest holds a forbidden file type: $odd"
	setid=$(find "$dest" -mindepth 1 ! -type l -perm /6000 | head -5)
	[ -z "$setid" ] || hard_fail "dest holds setuid/setgid: $setid"
	case " $options " in
	*" --same-owner "*) ;;
	*) foreign=$(find "$dest" -mindepth 1 ! -user "$uid" | head -5)
	   [ -z "$foreign" ] ||
	       hard_fail "dest holds foreign owners: $foreign" ;;
	esac
	# Nothing half-made is left: no temporary names.
	tmp=$(find "$dest" -mindepth 1 -name '.pfx*' | head -5)
	[ -z "$tmp" ] || hard_fail "temporary files left: $tmp"
}

run_case() {
	[ -n "$name" ] || return 0
	if [ ! -e "$gen/$name" ]; then
		[ $# -eq 0 ] || return 0
		echo "FAIL $name: the generator wrote no archive"
		fails=$((fails + 1))
		return 0
	fi
	[ -n "$attack" ] || { echo "FAIL $name: no attack line"; fails=$((fails + 1)); }
	[ -n "$exit" ] || { echo "FAIL $name: no exit line"; fails=$((fails + 1)); }
	cases=$((cases + 1))
	for r in openat2 walk; do
		run_one "$r"
	done
	: > "$scratch/$name.seen"
}

for m in "$here"/manifest/*.cases; do
	name=
	while IFS= read -r line || [ -n "$line" ]; do
		case $line in
		''|'#'*) continue ;;
		esac
		key=${line%% *}
		val=${line#"$key"}
		val=${val# }
		case $key in
		case) name=$val attack= options= setups= relink= exit= report=
		      error= maxbytes= dests= counts= datas= known= ;;
		attack) attack=$val ;;
		options) options=$val ;;
		setup) setups="${setups:+$setups
}$val" ;;
		relink) relink="$relink $val" ;;
		exit) exit=$val ;;
		report) report=$val ;;
		error) error=$val ;;
		known) known=$val ;;
		maxbytes) maxbytes=$val ;;
		dest) dests="${dests:+$dests
}$val" ;;
		count) counts="${counts:+$counts
}$val" ;;
		data) datas="${datas:+$datas
}$val" ;;
		end) if [ $# -eq 0 ] || printf '%s\n' "$@" | grep -qx "$name"
		     then run_case; fi
		     name= ;;
		*) echo "corpus: $m: unknown key '$key'" >&2; exit 2 ;;
		esac
	done < "$m"
done

# Every archive the generator wrote has a manifest entry.
for f in "$gen"/*; do
	[ -e "$scratch/$(basename "$f").seen" ] || { echo "FAIL $(basename "$f"): not in the manifest"; fails=$((fails + 1)); }
done

echo "corpus: $cases cases, $runs runs, $fails failures ($(basename "$pfx"))"
[ "$fails" = 0 ]
