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
[ "$#" -gt 0 ] || { echo "usage: sh mk/calls.sh OBJECT..." >&2; exit 2; }

for o in "$@"; do
	nm "$o" | sed "s#^#$o #"
done | awk '
# "OBJ [VALUE] TYPE SYMBOL": defined (T D B R) or used (U).
!($1 in seen) { seen[$1] = 1; order[++n] = $1 }
NF == 4 && $3 ~ /^[TDBR]$/ { def[$4] = $1; next }
NF == 3 && $2 == "U" { nuse++; ufrom[nuse] = $1; usym[nuse] = $3; next }
END {
	for (i = 1; i <= nuse; i++) {
		a = ufrom[i]
		if (!(usym[i] in def))
			continue
		b = def[usym[i]]
		if (a == b || (a, b) in edge)
			continue
		edge[a, b] = usym[i]
		adj[a] = adj[a] " " b
	}
	for (i = 1; i <= n; i++) {
		s = order[i]
		if (color[s] != "")
			continue
		sp = 1; stack[1] = s; pos[1] = 0; color[s] = "grey"
		while (sp > 0) {
			u = stack[sp]
			m = split(adj[u], nb, " ")
			if (pos[sp] < m) {
				v = nb[++pos[sp]]
				if (color[v] == "grey") {
					printf "calls: a cycle of calls:\n" > "/dev/stderr"
					for (k = 1; k <= sp && stack[k] != v; k++)
						;
					for (; k <= sp; k++) {
						w = (k < sp) ? stack[k + 1] : v
						printf "  %s -> %s   (%s)\n", stack[k], w, edge[stack[k], w] > "/dev/stderr"
					}
					exit 1
				}
				if (color[v] == "") {
					color[v] = "grey"
					stack[++sp] = v; pos[sp] = 0
				}
			} else {
				color[u] = "black"
				sp--
			}
		}
	}
}'
