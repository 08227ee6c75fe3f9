# lib.sh -- what bench/run.sh and bench/dos.sh share; sourced, with
# $ME set to the name their messages start with.  Run from the top of
# the tree.

umask 022
LC_ALL=C
export LC_ALL

top=$(pwd)

say() {
	printf '%s: %s\n' "$ME" "$*" >&2
}

fail() {
	say "FAIL: $*"
	exit 1
}

# The absolute form of path $1, relative to the top of the tree.
abs() {
	case $1 in
	/*) printf '%s\n' "$1" ;;
	*) printf '%s/%s\n' "$top" "$1" ;;
	esac
}
