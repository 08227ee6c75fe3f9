#!/bin/sh
# make prove: prove the ACSL contracts of the decision core (core/*.c, the
# lemmas of core/spec.h and the seed's theorems in core/proof/theorems.c)
# on the C code itself, with Frama-C's WP plugin and the SMT solvers CVC4
# and cvc5 (docs/testing.md, "Proofs").  Any goal left unproved fails the run:
# WP's "Proved goals" must read N / N, and the Report plugin turns every
# unknown property into an error (frama-c itself exits 0 with unproved
# goals).
#
# Usage: sh mk/prove.sh WHY3CONF [LOGDIR]
#
# WHY3CONF is the project's why3.conf (the Makefile writes it).  The full
# log goes to LOGDIR/prove.log (obj/prove).  Each prover gets a fixed time
# per goal, PROVE_TIMEOUT seconds (120: the slowest goal,
# pfx_path_check's "contained", takes about 11 on this 2-core machine when
# it is quiet, and timed out at 30 with the unit tests running beside it;
# the limit only costs time on a goal that would fail anyway).
set -eu

conf=${1:?usage: mk/prove.sh WHY3CONF [LOGDIR]}
logdir=${2:-obj/prove}
timeout=${PROVE_TIMEOUT:-120}

for tool in frama-c why3 cvc4 cvc5; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "prove: $tool is missing (sh mk/deps.sh installs it)" >&2
		exit 1
	fi
done
mkdir -p "$logdir"
log=$logdir/prove.log

# -wp-definitions-terminate: the recursive logic functions of spec.h are
# total.  Every loop has a variant, so WP proves termination too.
# -report-*: an unknown property is an error; a warning (an ACSL
# extension, say) is not a failed proof, and the requires of an entry
# point, which nothing calls, are hypotheses, not goals (untried).
status=0
# shellcheck disable=SC2086 # word splitting is meant
WHY3CONFIG=$conf frama-c -cpp-extra-args="-Icore -D_GNU_SOURCE" \
    -wp -wp-rte -warn-unsigned-overflow -wp-definitions-terminate \
    -wp-prover cvc4,cvc5 -wp-par 2 -wp-timeout "$timeout" \
    core/component.c core/normalize.c core/windows.c core/check.c \
    core/names.c \
    core/proof/theorems.c \
    -then -report-classify -report-unclassified-unknown ERROR \
    -report-unclassified-warning SKIP -report-unclassified-untried SKIP \
    >"$log" 2>&1 || status=$?

grep -E '^\[wp\] \[Failed\]|^\[ERROR|^\[kernel\] User Error' "$log" >&2 || true
line=$(grep -E '^\[wp\] Proved goals:' "$log" | tail -n 1 || true)
if [ -z "$line" ]; then
	echo "prove: WP did not run; see $log" >&2
	exit 1
fi
echo "$line"
proved=$(echo "$line" | sed 's/.*: *\([0-9]*\) *\/ *\([0-9]*\).*/\1/')
total=$(echo "$line" | sed 's/.*: *\([0-9]*\) *\/ *\([0-9]*\).*/\2/')
if [ "$status" -ne 0 ] || [ "$proved" -ne "$total" ] || [ "$total" -eq 0 ]
then
	echo "prove: not every goal is proved; see $log" >&2
	exit 1
fi
