#!/bin/sh
# make demo: the decision core on the reference inputs, and a few more.
set -u
pf=${1:-obj/pathfence}

run() {
	printf '\n$ %s\n' "$*"
	"$@"
	printf '(exit status %d)\n' "$?"
}

echo "pathfence check: allow, deny or reject, one JSON line per path."
run "$pf" check --allow /tmp/allowed_dir -- \
    /tmp/allowed_dir_malicious/secret ../x a/../b
run "$pf" check --allow /srv/up --deny /srv/up/.git -- \
    docs/./a.txt .git/config /srv/up/../up/b "$(printf 'bad\001name')"
run "$pf" check --windows --allow /srv/up -- \
    'C:..\boot.ini' '\\host\share\x' 'dir/CON.txt' 'file.txt:ads' ok/name
printf '\n$ printf "a\\n../b\\n" | %s check --allow /srv/up --stdin\n' "$pf"
printf 'a\n../b\n' | "$pf" check --allow /srv/up --stdin
printf '(exit status %d)\n' "$?"
exit 0
