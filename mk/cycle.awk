# The first cycle of a directed graph, for mk/layers.sh and mk/calls.sh.
# Input: "N NODE" for each node (the search starts from them in order),
# "E FROM TO WHY..." for each edge (WHY: what makes it, printed), and
# "B" once for each other failure its caller already told.
# Output: the cycle on stderr, "WHO: ..." (-v who=WHO).  Exit: 1 on a
# cycle or any B line, else 0.
$1 == "N" { if (!($2 in seen)) { seen[$2] = 1; order[++n] = $2 }; next }
$1 == "B" { bad = 1; next }
$1 == "E" {
	if (($2, $3) in edge)
		next
	why = $0
	sub(/^E [^ ]+ [^ ]+ /, "", why)
	edge[$2, $3] = why
	adj[$2] = adj[$2] " " $3
	next
}
END {
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
					printf "%s: a cycle:\n", who > "/dev/stderr"
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
	exit bad
}
