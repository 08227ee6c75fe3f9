#!/bin/sh
# The corpus through the push API (make check): the run of corpus/run.sh
# with obj/tests/pfextract-push passes only if its tar cases really went
# through pfx_writer_*(), not all to pfx_extract(): at least MIN runs
# pushed (tests/push_tar.c writes one line per run to LOG).
#	sh tests/push_count.sh LOG [MIN]
set -eu
log=$1
min=${2:-150}
pushed=$(grep -c '^push$' "$log" || true)
other=$(grep -c '^pfx_extract$' "$log" || true)
echo "push: $pushed corpus runs through pfx_writer_*(), $other through pfx_extract()"
if [ "$pushed" -lt "$min" ]; then
	echo "push: FAIL: fewer than $min runs went through the push API" >&2
	exit 1
fi
