#!/bin/sh
# The layers of the code (docs/design.md, "Layers"), checked from the
# #include "x.h" lines of core/, decode/, platform/, extract/ and cli/:
#
#  - each file is a node; a header x.h belongs to x.c beside it, or to
#    the files its comment names after "Defined in:" (to a full stop), or,
#    when neither is there, to no file (it declares types and constants
#    only, and is a node of its own);
#  - a file that includes a header points at the files the header belongs
#    to (a header named by several files makes them one node: a stage of
#    small files that share one header);
#  - the graph must have no cycle, and no include may point up the order
#    of the folders: core (0) < decode, platform (1) < extract (2) < cli (3),
#    where decode and platform do not include each other.
#
# Usage: sh mk/layers.sh [TREE]   (TREE: the source tree, "." by default)
# Exit 1 with the cycle, or the include, printed when the rule is broken.
set -u
here=$(cd "$(dirname "$0")" && pwd)
tree=${1:-.}
cd "$tree" || exit 2

dirs="core decode platform extract cli"
files=$(for d in $dirs; do ls "$d"/*.c "$d"/*.h 2>/dev/null; done)
[ -n "$files" ] || { echo "layers: no sources in $tree" >&2; exit 2; }

{
	# F <file>: every file; O <header> <owner>: a header's named owners;
	# I <file> <included path>: one #include "...".
	for f in $files; do
		echo "F $f"
		case $f in
		*.h)
			# From "Defined in:" to the first line that ends in '.'.
			awk '/Defined in:/ { on = 1; sub(/.*Defined in:/, "") }
			    on { sub(/^ \* /, ""); print; if (/\.[[:space:]]*$/) on = 0 }' \
			    "$f" | tr -s ' ,' '\n\n' | sed -n 's/^\(.*\.c\)\.\{0,1\}$/\1/p' |
			    while read -r c; do echo "O $f ${f%/*}/$c"; done
			;;
		esac
		sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' \
		    "$f" | while read -r p; do echo "I $f $p"; done
	done
} | awk '
function norm(p,   n, i, out, parts, k) {
	n = split(p, parts, "/")
	k = 0
	for (i = 1; i <= n; i++) {
		if (parts[i] == "." || parts[i] == "")
			continue
		if (parts[i] == ".." && k > 0) { k--; continue }
		st[++k] = parts[i]
	}
	out = ""
	for (i = 1; i <= k; i++)
		out = out (i > 1 ? "/" : "") st[i]
	return out
}
function dirof(f) { sub(/\/[^\/]*$/, "", f); return f }
function rank(f,   d) {
	d = f; sub(/\/.*/, "", d)
	return d == "core" ? 0 : d == "decode" || d == "platform" ? 1 : \
	    d == "extract" ? 2 : d == "cli" ? 3 : -1
}
function find(u) { while (grp[u] != u) u = grp[u]; return u }
function join(a, b) { a = find(a); b = find(b); if (a != b) grp[b] = a }
$1 == "F" { isfile[$2] = 1; grp[$2] = $2; order[++nf] = $2; next }
$1 == "O" { named[$2] = named[$2] " " $3; next }
$1 == "I" { ni++; inc_from[ni] = $2; inc_path[ni] = $3; next }
END {
	# Owners: the named files, else x.c beside x.h, else none.
	for (i = 1; i <= nf; i++) {
		h = order[i]
		if (h !~ /\.h$/)
			continue
		if (h in named) {
			n = split(named[h], own, " ")
			for (j = 1; j <= n; j++) {
				if (!(own[j] in isfile)) {
					printf "layers: %s names %s, which does not exist\n", h, own[j] > "/dev/stderr"
					bad = 1
					continue
				}
				join(own[j], h)
			}
		} else {
			c = h; sub(/\.h$/, ".c", c)
			if (c in isfile)
				join(c, h)
		}
	}
	# A node is named by its .c files, or by its header when it has none.
	for (i = 1; i <= nf; i++) {
		u = find(order[i])
		if (order[i] ~ /\.c$/)
			members[u] = members[u] (members[u] == "" ? "" : "+") order[i]
	}
	for (i = 1; i <= nf; i++) {
		u = find(order[i])
		if (members[u] == "")
			members[u] = order[i]
	}
	# Edges, from the includes that resolve to a file of the tree: beside
	# the includer first, then the -I folders (the Makefile'"'"'s INCLUDES).
	for (i = 1; i <= ni; i++) {
		f = inc_from[i]; p = inc_path[i]
		t = norm(dirof(f) "/" p)
		if (!(t in isfile)) {
			t = ""
			split("core platform decode extract", inc, " ")
			for (j = 1; j <= 4; j++)
				if (norm(inc[j] "/" p) in isfile) {
					t = norm(inc[j] "/" p); break
				}
		}
		if (t == "")
			continue
		if (rank(t) > rank(f) || (rank(t) == rank(f) && dirof(t) != dirof(f))) {
			printf "layers: %s includes %s: up the order of the folders\n", f, t > "/dev/stderr"
			bad = 1
		}
		a = find(f); b = find(t)
		if (a == b)
			continue
		if (!((a, b) in edge))
			edge[a, b] = f " includes " p
	}
	# The nodes, by the names of their files; then mk/cycle.awk.
	for (i = 1; i <= nf; i++)
		print "N " members[find(order[i])]
	for (k in edge) {
		split(k, ab, SUBSEP)
		print "E " members[ab[1]] " " members[ab[2]] " " edge[k]
	}
	if (bad)
		print "B"
}' | awk -v who="layers: include" -f "$here/cycle.awk"
