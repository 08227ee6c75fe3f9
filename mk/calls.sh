#!/bin/sh
# The calls between the library's files, from its objects: file A calls
# file B when A's object uses a symbol B's defines (nm).  Where
# mk/layers.sh reads the #include lines, this reads what the linker
# links, so that a header shared by a stage (decode.h, platform.h) hides
# no cycle: two files that call each other, however, fail, printed.
#
# Usage: sh mk/calls.sh OBJECT...
# Exit 1 with the cycle printed; 0 when there is none.
set -u
here=$(cd "$(dirname "$0")" && pwd)
[ "$#" -gt 0 ] || { echo "usage: sh mk/calls.sh OBJECT..." >&2; exit 2; }

for o in "$@"; do
	nm "$o" | sed "s#^#$o #"
done | awk '
# "OBJ [VALUE] TYPE SYMBOL": defined (T D B R) or used (U).
!($1 in seen) { seen[$1] = 1; print "N " $1 }
NF == 4 && $3 ~ /^[TDBR]$/ { def[$4] = $1; next }
NF == 3 && $2 == "U" { nuse++; ufrom[nuse] = $1; usym[nuse] = $3; next }
END {
	for (i = 1; i <= nuse; i++)
		if ((usym[i] in def) && def[usym[i]] != ufrom[i])
			print "E " ufrom[i] " " def[usym[i]] " " usym[i]
}' | awk -v who="calls: calls" -f "$here/cycle.awk"
