#!/bin/sh
#
# pathfence.sh -- end-to-end tests of pathfence(1), the decision core as a
# command: output bytes, exit statuses, usage errors, --stdin framing, JSON
# escaping, the bounded line buffer, and agreement with man/pathfence.1.
#
# Usage: sh tests/pathfence.sh PATH_TO_PATHFENCE
#
# Prints one line per failed check, then "pathfence: N passed, M failed";
# the exit status is 0 only if every check passed.

set -u

if [ $# -ne 1 ]; then
	echo "usage: sh tests/pathfence.sh PATH_TO_PATHFENCE" >&2
	exit 2
fi
PF=$1
case $PF in
/*) ;;
*) PF=$(pwd)/$PF ;;	# some checks run in another directory
esac
if [ ! -x "$PF" ]; then
	echo "pathfence.sh: $PF is not an executable" >&2
	exit 2
fi
HERE=$(cd "$(dirname "$0")" && pwd)
MAN=$HERE/../man/pathfence.1

T=$(mktemp -d) || exit 2
trap 'rm -rf "$T"' EXIT
trap 'exit 2' HUP INT TERM
: >"$T/all.json"

# Polling interval for the co-process checks: fractional if sleep allows.
if sleep 0.01 2>/dev/null; then
	NAP=0.05 TRIES=200
else
	NAP=1 TRIES=10
fi

passed=0
failed=0

ok() {
	passed=$((passed + 1))
}

bad() {
	failed=$((failed + 1))
	printf 'FAIL: %s\n' "$*"
}

# collect ARGS...: keep the output of a run with ARGS, unless it is the
# usage or the version, for the JSON check at the end.
collect() {
	case " $* " in
	*" --help "* | *" -h "* | *" --version "*) ;;
	*) cat "$T/out" >>"$T/all.json" ;;
	esac
}

# run ARGS...: run pathfence with no input; sets rc, fills out and err.
run() {
	"$PF" "$@" </dev/null >"$T/out" 2>"$T/err"
	rc=$?
	collect "$@"
}

# run_in FILE ARGS...: the same, with FILE as standard input.
run_in() {
	_f=$1
	shift
	"$PF" "$@" <"$_f" >"$T/out" 2>"$T/err"
	rc=$?
	collect "$@"
}

# expect_rc NAME WANT: the last run exited with WANT.
expect_rc() {
	if [ "$rc" -eq "$2" ]; then
		ok
	else
		bad "$1: exit status $rc, want $2"
	fi
}

# expect_out NAME < EXPECTED: the last run's stdout is EXPECTED, byte for
# byte.
expect_out() {
	cat >"$T/want"
	if cmp -s "$T/want" "$T/out"; then
		ok
	else
		bad "$1: output differs at $(firstdiff "$T/want" "$T/out")"
	fi
}

# expect_usage NAME: exit 2, nothing on stdout, a message on stderr.
expect_usage() {
	if [ "$rc" -eq 2 ] && [ ! -s "$T/out" ] && [ -s "$T/err" ]; then
		ok
	else
		bad "$1: want exit 2, empty stdout and a message;" \
		    "got exit $rc, stdout '$(peek "$T/out")'"
	fi
}

# expect_err NAME TEXT: stderr of the last run contains TEXT.
expect_err() {
	if grep -F -e "$2" "$T/err" >/dev/null; then
		ok
	else
		bad "$1: stderr lacks '$2': '$(peek "$T/err")'"
	fi
}

# expect_no_err NAME: nothing on stderr.
expect_no_err() {
	if [ ! -s "$T/err" ]; then
		ok
	else
		bad "$1: unexpected stderr '$(peek "$T/err")'"
	fi
}

# peek FILE: the start of FILE on one line, for a message.
peek() {
	dd bs=300 count=1 <"$1" 2>/dev/null | tr '\n' '|'
}

# firstdiff WANT GOT: the first line where GOT differs from WANT.
firstdiff() {
	LC_ALL=C awk '
	NR == FNR { w[FNR] = $0; nw = FNR; next }
	{
		ng = FNR
		if (FNR > nw || w[FNR] != $0) {
			printf "line %d: got \047%s\047, want \047%s\047\n",
			    FNR, substr($0, 1, 200), substr(w[FNR], 1, 200)
			found = 1
			exit
		}
	}
	END {
		if (!found && ng < nw)
			printf "line %d: missing, want \047%s\047\n", ng + 1,
			    substr(w[ng + 1], 1, 200)
		else if (!found)
			print "the end of a line or of the output"
	}' "$1" "$2"
}

# repeat CHAR N: CHAR written N times, no newline.
repeat() {
	awk -v c="$1" -v n="$2" 'BEGIN {
		s = ""
		for (i = 0; i < n; i++)
			s = s c
		printf "%s", s
	}'
}

# squeeze: join lines, squeeze blanks, trim.
squeeze() {
	tr -s ' \t\n' '   ' | sed -e 's/^ //' -e 's/ $//'
}

# lines FILE: the number of lines in FILE.
lines() {
	wc -l <"$1" | tr -d ' '
}

# wait_lines FILE N: wait until FILE has at least N lines.
# Return: 0, or 1 on timeout.
wait_lines() {
	_n=0
	while [ "$(lines "$1")" -lt "$2" ]; do
		_n=$((_n + 1))
		[ $_n -gt $TRIES ] && return 1
		sleep $NAP
	done
	return 0
}

# --- The reference lines ------------------------------------------------

run check --allow /tmp/allowed_dir -- /tmp/allowed_dir_malicious/secret \
    ../x a/../b
expect_out "reference" <<'EOF'
{"input":"/tmp/allowed_dir_malicious/secret","decision":"deny","path":"/tmp/allowed_dir_malicious/secret"}
{"input":"../x","decision":"reject","reason":"escapes"}
{"input":"a/../b","decision":"allow","path":"/tmp/allowed_dir/b","root":"/tmp/allowed_dir","rel":"b"}
EOF
expect_rc "reference exit" 1
expect_no_err "reference stderr"

# --- Exit statuses -------------------------------------------------------

run check --allow /tmp/allowed_dir -- a b/./c /tmp/allowed_dir
expect_rc "all allowed" 0
expect_out "all allowed output" <<'EOF'
{"input":"a","decision":"allow","path":"/tmp/allowed_dir/a","root":"/tmp/allowed_dir","rel":"a"}
{"input":"b/./c","decision":"allow","path":"/tmp/allowed_dir/b/c","root":"/tmp/allowed_dir","rel":"b/c"}
{"input":"/tmp/allowed_dir","decision":"allow","path":"/tmp/allowed_dir","root":"/tmp/allowed_dir","rel":"."}
EOF

run check --allow /srv -- a /etc/passwd
expect_rc "one denied" 1

run check --allow /srv -- a ../a
expect_rc "one rejected" 1

# --- Usage errors ------------------------------------------------------

run check --allow /srv --bogus x
expect_usage "unknown option"
expect_err "unknown option named" "--bogus"

run check --allow /srv -x
expect_usage "unknown short option"
expect_err "unknown short option named" "-x"

run check -- x
expect_usage "no --allow"

run check --allow /srv
expect_usage "no paths"

run check --allow /srv -0 x
expect_usage "-0 without --stdin"

run check --allow /srv --null x
expect_usage "--null without --stdin"

run check --allow /srv --stdin x
expect_usage "--stdin with operands"

run frobnicate --allow /srv x
expect_usage "unknown command"
expect_err "unknown command named" "frobnicate"

run
expect_usage "no command"

run check --allow
expect_usage "--allow without directory"

run check --allow /srv --deny
expect_usage "--deny without directory"

run check --allow= x
expect_usage "--allow= empty directory"

run check --allow /srv --deny= x
expect_usage "--deny= empty directory"

(cd / && "$PF" check --allow .. x </dev/null >"$T/out" 2>"$T/err")
rc=$?
expect_usage "--allow climbing above /"

run check --allow /srv --deny ../up x
expect_usage "--deny climbing above the root"

run check --allowx /srv x
expect_usage "--allowx is not --allow"

run check --version
expect_rc "check --version exit" 0

# --- Options end at the first operand or "--" -------------------------

run check --allow /srv -- -x
expect_out "operand after --" <<'EOF'
{"input":"-x","decision":"allow","path":"/srv/-x","root":"/srv","rel":"-x"}
EOF

run check --allow /srv - x
expect_out "lone - is an operand" <<'EOF'
{"input":"-","decision":"allow","path":"/srv/-","root":"/srv","rel":"-"}
{"input":"x","decision":"allow","path":"/srv/x","root":"/srv","rel":"x"}
EOF

run check --allow /srv x --deny /srv
expect_out "options after an operand are operands" <<'EOF'
{"input":"x","decision":"allow","path":"/srv/x","root":"/srv","rel":"x"}
{"input":"--deny","decision":"allow","path":"/srv/--deny","root":"/srv","rel":"--deny"}
{"input":"/srv","decision":"allow","path":"/srv","root":"/srv","rel":"."}
EOF

# --- --help, --version, and the man page -------------------------------

run --help
expect_rc "--help exit" 0
expect_no_err "--help stderr"
cp "$T/out" "$T/usage"
if head -n 1 "$T/usage" | grep '^usage: pathfence check ' >/dev/null; then
	ok
else
	bad "--help: first line is not a usage line: '$(head -n 1 "$T/usage")'"
fi

run check --help
if [ "$rc" -eq 0 ] && cmp -s "$T/usage" "$T/out"; then
	ok
else
	bad "check --help: exit $rc or output differs from --help"
fi

run -h
if [ "$rc" -eq 0 ] && cmp -s "$T/usage" "$T/out"; then
	ok
else
	bad "-h: exit $rc or output differs from --help"
fi

run check --allow /srv --bogus
if tail -n "$(lines "$T/usage")" "$T/err" | cmp -s "$T/usage" -; then
	ok
else
	bad "usage error: stderr does not end with the usage"
fi

usage_text=$(sed 's/^usage: //' "$T/usage" | squeeze)

# The SYNOPSIS of the man page, rendered by a minimal mdoc reader that
# knows the macros a synopsis uses: Nm, Cm, Op, Fl, Ar.
if [ -f "$MAN" ]; then
	synopsis=$(awk '
	/^\.Sh / { insyn = ($2 == "SYNOPSIS"); next }
	!insyn || !/^\./ { next }
	{
		line = ""
		open = 0
		fl = 0
		for (i = 1; i <= NF; i++) {
			w = $i
			if (i == 1)
				sub(/^\./, "", w)
			if (w == "Nm") {
				if (i == NF)
					line = line " pathfence"
				continue
			}
			if (w == "Cm" || w == "Ar")
				continue
			if (w == "Op") {
				line = line " ["
				open++
				continue
			}
			if (w == "Fl") {
				fl = 1
				continue
			}
			if (fl) {
				w = "-" w
				fl = 0
			}
			line = line " " w
		}
		if (fl)
			line = line " -"
		for (; open > 0; open--)
			line = line "]"
		out = out line
	}
	END { print out }' "$MAN" | sed -e 's/\[ /[/g' | squeeze)
	if [ "$synopsis" = "$usage_text" ]; then
		ok
	else
		bad "man page SYNOPSIS source '$synopsis' differs from" \
		    "usage '$usage_text'"
	fi
	if command -v mandoc >/dev/null 2>&1; then
		rendered=$(mandoc -T utf8 "$MAN" | col -b | awk '
		    /^SYNOPSIS/ { f = 1; next }
		    /^[A-Z]/ { f = 0 }
		    f' | squeeze)
		if [ "$rendered" = "$usage_text" ]; then
			ok
		else
			bad "rendered SYNOPSIS '$rendered' differs from" \
			    "usage '$usage_text'"
		fi
		if mandoc -Tlint -Wwarning "$MAN" >"$T/lint" 2>&1 &&
		    [ ! -s "$T/lint" ]; then
			ok
		else
			bad "mandoc -Tlint: $(head -n 3 "$T/lint")"
		fi
	fi
else
	bad "man page $MAN is missing"
fi

run --version
expect_rc "--version exit" 0
if grep -E '^pathfence [0-9]+\.[0-9]+\.[0-9]+$' "$T/out" >/dev/null &&
    [ "$(lines "$T/out")" -eq 1 ]; then
	ok
else
	bad "--version: '$(cat "$T/out")'"
fi
if [ -f "$HERE/../Makefile" ]; then
	mkver=$(sed -n 's/^VERSION[ \t]*=[ \t]*//p' "$HERE/../Makefile")
	if [ "pathfence $mkver" = "$(cat "$T/out")" ]; then
		ok
	else
		bad "--version '$(cat "$T/out")' is not the Makefile's $mkver"
	fi
fi

# --- --stdin: newline-separated records -------------------------------

printf 'a\nb/../c\n../x\n' >"$T/in"
run_in "$T/in" check --allow /r --stdin
expect_out "stdin lines" <<'EOF'
{"input":"a","decision":"allow","path":"/r/a","root":"/r","rel":"a"}
{"input":"b/../c","decision":"allow","path":"/r/c","root":"/r","rel":"c"}
{"input":"../x","decision":"reject","reason":"escapes"}
EOF
expect_rc "stdin lines exit" 1

printf 'a\nb' >"$T/in"
run_in "$T/in" check --allow /r --stdin
expect_out "stdin final record without newline" <<'EOF'
{"input":"a","decision":"allow","path":"/r/a","root":"/r","rel":"a"}
{"input":"b","decision":"allow","path":"/r/b","root":"/r","rel":"b"}
EOF
expect_rc "stdin final record exit" 0

printf 'a\n\nb\n' >"$T/in"
run_in "$T/in" check --allow /r --stdin
expect_out "stdin empty line" <<'EOF'
{"input":"a","decision":"allow","path":"/r/a","root":"/r","rel":"a"}
{"input":"","decision":"reject","reason":"empty"}
{"input":"b","decision":"allow","path":"/r/b","root":"/r","rel":"b"}
EOF
expect_rc "stdin empty line exit" 1

: >"$T/in"
run_in "$T/in" check --allow /r --stdin
if [ "$rc" -eq 0 ] && [ ! -s "$T/out" ]; then
	ok
else
	bad "empty stdin: exit $rc, output '$(cat "$T/out")'"
fi

run_in "$T/in" check --allow /r --stdin -0
if [ "$rc" -eq 0 ] && [ ! -s "$T/out" ]; then
	ok
else
	bad "empty stdin -0: exit $rc, output '$(cat "$T/out")'"
fi

printf 'a\000b\n' >"$T/in"
run_in "$T/in" check --allow /r --stdin
expect_out "NUL inside a line" <<'EOF'
{"input":"a\u0000b","decision":"reject","reason":"nul"}
EOF

printf 'a\r\n' >"$T/in"
run_in "$T/in" check --allow /r --stdin
expect_out "CR is part of the line" <<'EOF'
{"input":"a\r","decision":"allow","path":"/r/a\r","root":"/r","rel":"a\r"}
EOF

# --- --stdin -0: NUL-separated records ---------------------------------

printf 'a\000b\nc\000d' >"$T/in"
run_in "$T/in" check --allow /r --stdin -0
expect_out "-0 records with a newline, final without NUL" <<'EOF'
{"input":"a","decision":"allow","path":"/r/a","root":"/r","rel":"a"}
{"input":"b\nc","decision":"allow","path":"/r/b\nc","root":"/r","rel":"b\nc"}
{"input":"d","decision":"allow","path":"/r/d","root":"/r","rel":"d"}
EOF
expect_rc "-0 exit" 0

run_in "$T/in" check --allow /r -0 --stdin
expect_out "-0 before --stdin" <<'EOF'
{"input":"a","decision":"allow","path":"/r/a","root":"/r","rel":"a"}
{"input":"b\nc","decision":"allow","path":"/r/b\nc","root":"/r","rel":"b\nc"}
{"input":"d","decision":"allow","path":"/r/d","root":"/r","rel":"d"}
EOF

run_in "$T/in" check --allow /r --stdin --null
expect_out "--null" <<'EOF'
{"input":"a","decision":"allow","path":"/r/a","root":"/r","rel":"a"}
{"input":"b\nc","decision":"allow","path":"/r/b\nc","root":"/r","rel":"b\nc"}
{"input":"d","decision":"allow","path":"/r/d","root":"/r","rel":"d"}
EOF

printf 'a\000\000' >"$T/in"
run_in "$T/in" check --allow /r --stdin -0
expect_out "-0 empty record" <<'EOF'
{"input":"a","decision":"allow","path":"/r/a","root":"/r","rel":"a"}
{"input":"","decision":"reject","reason":"empty"}
EOF
expect_rc "-0 empty record exit" 1

mkdir -p "$T/tree/d e" "$T/tree/n
l"
: >"$T/tree/d e/f"
(cd "$T/tree" && find . -print0) >"$T/in"
run_in "$T/in" check --allow /out --stdin -0
if [ "$rc" -eq 0 ] && [ "$(lines "$T/out")" -eq 4 ] &&
    grep -F '"rel":"n\nl"' "$T/out" >/dev/null &&
    grep -F '"input":".","decision":"allow","path":"/out","root":"/out","rel":"."' \
    "$T/out" >/dev/null; then
	ok
else
	bad "find -print0 | --stdin -0: exit $rc, '$(tr '\n' '|' <"$T/out")'"
fi

# --- --allow and --deny spellings and bases ---------------------------

run check --allow=/srv/a -- x
cp "$T/out" "$T/eq"
run check --allow /srv/a -- x
if cmp -s "$T/eq" "$T/out" && [ -s "$T/out" ]; then
	ok
else
	bad "--allow=DIR and --allow DIR differ"
fi

run check --allow //srv/./a/b/.. -- x
expect_out "--allow is normalised" <<'EOF'
{"input":"x","decision":"allow","path":"/srv/a/x","root":"/srv/a","rel":"x"}
EOF

mkdir -p "$T/cwd/sub"
cwd=$(cd "$T/cwd" && pwd -P)
# As a JSON string body, should TMPDIR hold a quote, backslash or tab.
cwd=$(printf '%s' "$cwd" | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' \
    -e "s/$(printf '\t')/\\\\t/g")
(cd "$T/cwd" && "$PF" check --allow sub -- x ../y /elsewhere \
    >"$T/out" 2>"$T/err")
rc=$?
cat "$T/out" >>"$T/all.json"
expect_out "relative --allow against the current directory" <<EOF
{"input":"x","decision":"allow","path":"$cwd/sub/x","root":"$cwd/sub","rel":"x"}
{"input":"../y","decision":"reject","reason":"escapes"}
{"input":"/elsewhere","decision":"deny","path":"/elsewhere"}
EOF

(cd "$T/cwd" && "$PF" check --allow=./sub/../sub/. -- x >"$T/out" 2>"$T/err")
cat "$T/out" >>"$T/all.json"
expect_out "relative --allow= with . and .." <<EOF
{"input":"x","decision":"allow","path":"$cwd/sub/x","root":"$cwd/sub","rel":"x"}
EOF

# The current directory is where a relative --allow starts, not a floor:
# only "/" is (pathfence(1), "Directories").
(cd "$T/cwd/sub" && "$PF" check --allow ../sub/. -- x >"$T/out" \
    2>"$T/err")
rc=$?
cat "$T/out" >>"$T/all.json"
expect_out "relative --allow climbing above the current directory" <<EOF
{"input":"x","decision":"allow","path":"$cwd/sub/x","root":"$cwd/sub","rel":"x"}
EOF
expect_rc "relative --allow climbing above the current directory exit" 0

run check --allow /srv --deny /srv/secret -- /srv/secret/key secret \
    /srv/secretive /srv/public
expect_out "--deny absolute" <<'EOF'
{"input":"/srv/secret/key","decision":"deny","path":"/srv/secret/key","reason":"denied","denied_by":"/srv/secret"}
{"input":"secret","decision":"deny","path":"/srv/secret","reason":"denied","denied_by":"/srv/secret"}
{"input":"/srv/secretive","decision":"allow","path":"/srv/secretive","root":"/srv","rel":"secretive"}
{"input":"/srv/public","decision":"allow","path":"/srv/public","root":"/srv","rel":"public"}
EOF
expect_rc "--deny exit" 1

(cd "$T/cwd" && "$PF" check --allow /srv --allow /other --deny=priv/./x/.. \
    -- priv/k /other/priv/k >"$T/out" 2>"$T/err")
cat "$T/out" >>"$T/all.json"
expect_out "relative --deny against the first root, not the cwd" <<'EOF'
{"input":"priv/k","decision":"deny","path":"/srv/priv/k","reason":"denied","denied_by":"/srv/priv"}
{"input":"/other/priv/k","decision":"allow","path":"/other/priv/k","root":"/other","rel":"priv/k"}
EOF

run check --allow /srv --deny /srv -- /srv/x
expect_out "deny wins over an equal allow" <<'EOF'
{"input":"/srv/x","decision":"deny","path":"/srv/x","reason":"denied","denied_by":"/srv"}
EOF

run check --allow /srv --deny /a --deny /srv/b -- /srv/b/c
expect_out "second --deny reported" <<'EOF'
{"input":"/srv/b/c","decision":"deny","path":"/srv/b/c","reason":"denied","denied_by":"/srv/b"}
EOF

run check --allow /srv --allow /srv/a -- /srv/a/x
expect_out "first matching root, least specific first" <<'EOF'
{"input":"/srv/a/x","decision":"allow","path":"/srv/a/x","root":"/srv","rel":"a/x"}
EOF

run check --allow /srv/a --allow /srv -- /srv/a/x /srv/b x
expect_out "first matching root, most specific first" <<'EOF'
{"input":"/srv/a/x","decision":"allow","path":"/srv/a/x","root":"/srv/a","rel":"x"}
{"input":"/srv/b","decision":"allow","path":"/srv/b","root":"/srv","rel":"b"}
{"input":"x","decision":"allow","path":"/srv/a/x","root":"/srv/a","rel":"x"}
EOF

run check --allow / -- / /x x
expect_out "root /" <<'EOF'
{"input":"/","decision":"allow","path":"/","root":"/","rel":"."}
{"input":"/x","decision":"allow","path":"/x","root":"/","rel":"x"}
{"input":"x","decision":"allow","path":"/x","root":"/","rel":"x"}
EOF

# --- Normalisation --------------------------------------------------------

run check --allow /srv -- /.. /srv/../.. a/../.. //srv//a/./b/ a/b/../../c \
    . ./
expect_out "normalisation" <<'EOF'
{"input":"/..","decision":"reject","reason":"escapes"}
{"input":"/srv/../..","decision":"reject","reason":"escapes"}
{"input":"a/../..","decision":"reject","reason":"escapes"}
{"input":"//srv//a/./b/","decision":"allow","path":"/srv/a/b","root":"/srv","rel":"a/b"}
{"input":"a/b/../../c","decision":"allow","path":"/srv/c","root":"/srv","rel":"c"}
{"input":".","decision":"allow","path":"/srv","root":"/srv","rel":"."}
{"input":"./","decision":"allow","path":"/srv","root":"/srv","rel":"."}
EOF

run check --allow /srv -- /srv/../etc/passwd
expect_out "climb out of the root stays inside /" <<'EOF'
{"input":"/srv/../etc/passwd","decision":"deny","path":"/etc/passwd"}
EOF

c255=$(repeat a 255)
c256=$(repeat a 256)
run check --allow /srv -- "$c255" "$c256"
expect_out "component of 255 and 256 bytes" <<EOF
{"input":"$c255","decision":"allow","path":"/srv/$c255","root":"/srv","rel":"$c255"}
{"input":"$c256","decision":"reject","reason":"too_long"}
EOF

p4095=/$(repeat "$(repeat a 99)/" 40)$(repeat b 94)
p4096=${p4095}b
run check --allow / -- "$p4095" "$p4096"
if [ "$rc" -eq 1 ] && [ "$(lines "$T/out")" -eq 2 ] &&
    head -n 1 "$T/out" | grep -F '"decision":"allow"' >/dev/null &&
    tail -n 1 "$T/out" | grep -F '"reason":"too_long"}' >/dev/null; then
	ok
else
	bad "paths of 4095 and 4096 bytes: exit $rc"
fi

rel4000=$(repeat "$(repeat a 99)/" 40)
run check --allow "/$(repeat r 200)" -- "$rel4000"
if [ "$rc" -eq 1 ] &&
    grep -F '"decision":"reject","reason":"too_long"}' "$T/out" >/dev/null
then
	ok
else
	bad "result over 4095 bytes: exit $rc, '$(cut -c 1-80 "$T/out")'"
fi

# --- --windows ----------------------------------------------------------

run check --windows --allow /srv -- 'a\b' 'C:x' 'c:\x' '\\host\share' \
    '//host/share' '\\?\C:\x' '//./pipe' '\??\C:' 'nul.txt' 'd/CON' \
    'com1.log' 'lpt9' 'conin$' 'a.' 'dir/a ' 'file:stream' 'a<b' 'a|b' \
    'a?b' 'a*b' 'a"b' "$(printf 'a\001b')" 'ok/name.txt' '../x' ''
expect_out "--windows reasons" <<'EOF'
{"input":"a\\b","decision":"reject","reason":"backslash"}
{"input":"C:x","decision":"reject","reason":"drive"}
{"input":"c:\\x","decision":"reject","reason":"drive"}
{"input":"\\\\host\\share","decision":"reject","reason":"unc"}
{"input":"//host/share","decision":"reject","reason":"unc"}
{"input":"\\\\?\\C:\\x","decision":"reject","reason":"device_path"}
{"input":"//./pipe","decision":"reject","reason":"device_path"}
{"input":"\\??\\C:","decision":"reject","reason":"device_path"}
{"input":"nul.txt","decision":"reject","reason":"reserved_name"}
{"input":"d/CON","decision":"reject","reason":"reserved_name"}
{"input":"com1.log","decision":"reject","reason":"reserved_name"}
{"input":"lpt9","decision":"reject","reason":"reserved_name"}
{"input":"conin$","decision":"reject","reason":"reserved_name"}
{"input":"a.","decision":"reject","reason":"trailing_dot_space"}
{"input":"dir/a ","decision":"reject","reason":"trailing_dot_space"}
{"input":"file:stream","decision":"reject","reason":"stream"}
{"input":"a<b","decision":"reject","reason":"invalid_char"}
{"input":"a|b","decision":"reject","reason":"invalid_char"}
{"input":"a?b","decision":"reject","reason":"invalid_char"}
{"input":"a*b","decision":"reject","reason":"invalid_char"}
{"input":"a\"b","decision":"reject","reason":"invalid_char"}
{"input":"a\u0001b","decision":"reject","reason":"invalid_char"}
{"input":"ok/name.txt","decision":"allow","path":"/srv/ok/name.txt","root":"/srv","rel":"ok/name.txt"}
{"input":"../x","decision":"reject","reason":"escapes"}
{"input":"","decision":"reject","reason":"empty"}
EOF
expect_rc "--windows exit" 1

run check --allow /srv -- 'a\b' 'C:x' 'nul.txt' 'a.' 'file:stream' 'a<b' \
    '//srv/x'
expect_out "Windows forms allowed without --windows" <<'EOF'
{"input":"a\\b","decision":"allow","path":"/srv/a\\b","root":"/srv","rel":"a\\b"}
{"input":"C:x","decision":"allow","path":"/srv/C:x","root":"/srv","rel":"C:x"}
{"input":"nul.txt","decision":"allow","path":"/srv/nul.txt","root":"/srv","rel":"nul.txt"}
{"input":"a.","decision":"allow","path":"/srv/a.","root":"/srv","rel":"a."}
{"input":"file:stream","decision":"allow","path":"/srv/file:stream","root":"/srv","rel":"file:stream"}
{"input":"a<b","decision":"allow","path":"/srv/a<b","root":"/srv","rel":"a<b"}
{"input":"//srv/x","decision":"allow","path":"/srv/x","root":"/srv","rel":"x"}
EOF
expect_rc "Windows forms allowed exit" 0

# --- JSON escaping -------------------------------------------------------

run check --allow /r -- 'a"b' 'a\b' "$(printf 'a\tb')" "$(printf 'a\001b')" \
    "$(printf 'a\377b')" "$(printf 'caf\303\251')" "$(printf 'a\177b')" \
    "$(printf 'a\010b\014c\rd')" "$(printf 'a\037b')"
expect_out "JSON escaping of operands" <<'EOF'
{"input":"a\"b","decision":"allow","path":"/r/a\"b","root":"/r","rel":"a\"b"}
{"input":"a\\b","decision":"allow","path":"/r/a\\b","root":"/r","rel":"a\\b"}
{"input":"a\tb","decision":"allow","path":"/r/a\tb","root":"/r","rel":"a\tb"}
{"input":"a\u0001b","decision":"allow","path":"/r/a\u0001b","root":"/r","rel":"a\u0001b"}
{"input":"a\ufffdb","decision":"allow","path":"/r/a\ufffdb","root":"/r","rel":"a\ufffdb"}
{"input":"café","decision":"allow","path":"/r/café","root":"/r","rel":"café"}
{"input":"a\u007fb","decision":"allow","path":"/r/a\u007fb","root":"/r","rel":"a\u007fb"}
{"input":"a\bb\fc\rd","decision":"allow","path":"/r/a\bb\fc\rd","root":"/r","rel":"a\bb\fc\rd"}
{"input":"a\u001fb","decision":"allow","path":"/r/a\u001fb","root":"/r","rel":"a\u001fb"}
EOF

printf 'q"\000b\\\000n\nl\000t\tb\000\001\000\377\000\303\251\000\342\200\250\342\200\251\000\360\237\230\200\000\300\257\000\355\240\200\000\303' \
    >"$T/in"
run_in "$T/in" check --allow /r --stdin -0
expect_out "JSON escaping of --stdin -0 records" <<'EOF'
{"input":"q\"","decision":"allow","path":"/r/q\"","root":"/r","rel":"q\""}
{"input":"b\\","decision":"allow","path":"/r/b\\","root":"/r","rel":"b\\"}
{"input":"n\nl","decision":"allow","path":"/r/n\nl","root":"/r","rel":"n\nl"}
{"input":"t\tb","decision":"allow","path":"/r/t\tb","root":"/r","rel":"t\tb"}
{"input":"\u0001","decision":"allow","path":"/r/\u0001","root":"/r","rel":"\u0001"}
{"input":"\ufffd","decision":"allow","path":"/r/\ufffd","root":"/r","rel":"\ufffd"}
{"input":"é","decision":"allow","path":"/r/é","root":"/r","rel":"é"}
{"input":"\u2028\u2029","decision":"allow","path":"/r/\u2028\u2029","root":"/r","rel":"\u2028\u2029"}
{"input":"😀","decision":"allow","path":"/r/😀","root":"/r","rel":"😀"}
{"input":"\ufffd\ufffd","decision":"allow","path":"/r/\ufffd\ufffd","root":"/r","rel":"\ufffd\ufffd"}
{"input":"\ufffd\ufffd\ufffd","decision":"allow","path":"/r/\ufffd\ufffd\ufffd","root":"/r","rel":"\ufffd\ufffd\ufffd"}
{"input":"\ufffd","decision":"allow","path":"/r/\ufffd","root":"/r","rel":"\ufffd"}
EOF
cp "$T/out" "$T/escapes.json"

run check --allow '/r"o\ot' --deny "$(printf '/r"o\\ot/d\te')" -- x \
    "$(printf 'd\te/f')"
expect_out "JSON escaping of root and denied_by" <<'EOF'
{"input":"x","decision":"allow","path":"/r\"o\\ot/x","root":"/r\"o\\ot","rel":"x"}
{"input":"d\te/f","decision":"deny","path":"/r\"o\\ot/d\te/f","reason":"denied","denied_by":"/r\"o\\ot/d\te"}
EOF

# C1 controls: U+0085 (NEL) ends a line for Python's str.splitlines(),
# Perl's \R and Unicode's newline rules, as U+2028 does for JavaScript, and
# U+009B is a CSI to some terminals.  U+00A1 is printable and stays raw.
printf 'a\302\205b\000\302\200\302\233[0m\000\302\237\302\241' >"$T/in"
run_in "$T/in" check --allow /r --stdin -0
expect_out "JSON escaping of C1 controls" <<'EOF'
{"input":"a\u0085b","decision":"allow","path":"/r/a\u0085b","root":"/r","rel":"a\u0085b"}
{"input":"\u0080\u009b[0m","decision":"allow","path":"/r/\u0080\u009b[0m","root":"/r","rel":"\u0080\u009b[0m"}
{"input":"\u009f¡","decision":"allow","path":"/r/\u009f¡","root":"/r","rel":"\u009f¡"}
EOF

# --- Long lines on standard input ---------------------------------------

dd if=/dev/zero bs=1024 count=64 2>/dev/null | tr '\0' a >"$T/a64k"
{ cat "$T/a64k"; printf '\nx\n'; } >"$T/in"
run_in "$T/in" check --allow /r --stdin
{ printf '{"input":"'; cat "$T/a64k"
  printf '","decision":"reject","reason":"too_long"}\n'
  printf '{"input":"x","decision":"allow","path":"/r/x","root":"/r","rel":"x"}\n'
} >"$T/want64k"
if cmp -s "$T/want64k" "$T/out"; then
	ok
else
	bad "line of exactly 65536 bytes: not too_long without truncation"
fi

{ cat "$T/a64k"; printf 'bcd\nx\n'; } >"$T/in"
run_in "$T/in" check --allow /r --stdin
{ printf '{"input":"'; cat "$T/a64k"
  printf '","input_truncated":true,"decision":"reject","reason":"too_long"}\n'
} >"$T/trunc1"
{ cat "$T/trunc1"
  printf '{"input":"x","decision":"allow","path":"/r/x","root":"/r","rel":"x"}\n'
} >"$T/want64k"
if cmp -s "$T/want64k" "$T/out"; then
	ok
else
	bad "line of 65539 bytes: want its first 65536 bytes, input_truncated" \
	    "and too_long, then the next record"
fi
expect_rc "long line exit" 1

{ cat "$T/a64k"; printf 'b'; } >"$T/in"
run_in "$T/in" check --allow /r --stdin -0
if [ "$(lines "$T/out")" -eq 1 ] &&
    grep -F '","input_truncated":true,"decision":"reject","reason":"too_long"}' \
    "$T/out" >/dev/null; then
	ok
else
	bad "-0 final record of 65537 bytes: not truncated"
fi

# A 64 MiB line through a FIFO: the answer comes while input is still
# open, and the peak resident size stays far below the line's size.
if mkfifo "$T/fifo" 2>/dev/null; then
	"$PF" check --allow /r --stdin <"$T/fifo" >"$T/out" 2>"$T/err" &
	pid=$!
	exec 3>"$T/fifo"
	(dd if=/dev/zero bs=1048576 count=64 2>/dev/null | tr '\0' a
	 printf '\nok\n') >&3
	if wait_lines "$T/out" 2; then
		ok
	else
		bad "64 MiB line: no answer while standard input is open"
	fi
	hwm=
	if [ -r "/proc/$pid/status" ]; then
		hwm=$(sed -n 's/^VmHWM:[^0-9]*\([0-9]*\) kB$/\1/p' \
		    "/proc/$pid/status")
	fi
	exec 3>&-
	wait "$pid"
	rc=$?
	cat "$T/out" >>"$T/all.json"
	expect_rc "64 MiB line exit" 1
	if [ "$(lines "$T/out")" -eq 2 ] &&
	    head -n 1 "$T/out" | cmp -s "$T/trunc1" - &&
	    tail -n 1 "$T/out" | grep -F '{"input":"ok","decision":"allow"' \
	    >/dev/null; then
		ok
	else
		bad "64 MiB line: wrong output"
	fi
	if [ -n "$hwm" ]; then
		if [ "$hwm" -lt 16384 ]; then
			ok
		else
			bad "64 MiB line: peak resident size ${hwm} kB," \
			    "memory is not bounded"
		fi
	fi
	rm -f "$T/fifo"

	# A co-process: one question, one answer, while input stays open.
	mkfifo "$T/fifo"
	"$PF" check --allow /r --stdin <"$T/fifo" >"$T/out" 2>"$T/err" &
	pid=$!
	exec 3>"$T/fifo"
	printf 'a\n' >&3
	if wait_lines "$T/out" 1; then
		ok
	else
		bad "co-process: first answer not flushed"
	fi
	printf '../b\n' >&3
	if wait_lines "$T/out" 2; then
		ok
	else
		bad "co-process: second answer not flushed"
	fi
	exec 3>&-
	wait "$pid"
	rc=$?
	cat "$T/out" >>"$T/all.json"
	expect_out "co-process output" <<'EOF'
{"input":"a","decision":"allow","path":"/r/a","root":"/r","rel":"a"}
{"input":"../b","decision":"reject","reason":"escapes"}
EOF
	expect_rc "co-process exit" 1
fi

# --- I/O errors ---------------------------------------------------------

if [ -w /dev/full ]; then
	"$PF" check --allow /r -- x >/dev/full 2>"$T/err"
	rc=$?
	if [ "$rc" -eq 2 ] && [ -s "$T/err" ]; then
		ok
	else
		bad "write error on operands: exit $rc, want 2 and a message"
	fi
	printf 'x\ny\n' | "$PF" check --allow /r --stdin >/dev/full 2>"$T/err"
	rc=$?
	if [ "$rc" -eq 2 ] && [ -s "$T/err" ]; then
		ok
	else
		bad "write error on --stdin: exit $rc, want 2 and a message"
	fi
fi

# A write error ends the run at once, while input is still open: the
# answers can no longer reach anyone (a full disk, or a reader gone with
# SIGPIPE ignored), and the input may never end.
rm -f "$T/fifo"
if [ -w /dev/full ] && mkfifo "$T/fifo" 2>/dev/null; then
	"$PF" check --allow /r --stdin <"$T/fifo" >/dev/full 2>"$T/err" &
	pid=$!
	exec 3>"$T/fifo"
	printf 'x\n' >&3
	_n=0
	while kill -0 "$pid" 2>/dev/null && [ $_n -le $TRIES ]; do
		_n=$((_n + 1))
		sleep $NAP
	done
	if kill -0 "$pid" 2>/dev/null; then
		bad "write error on --stdin: still reading its open input"
	else
		ok
	fi
	exec 3>&-
	wait "$pid"
	rc=$?
	if [ "$rc" -eq 2 ] && [ -s "$T/err" ]; then
		ok
	else
		bad "write error on open --stdin: exit $rc, want 2 and a message"
	fi
	rm -f "$T/fifo"
fi

# --- Every line of output is one JSON object ---------------------------

if command -v python3 >/dev/null 2>&1; then
	if python3 -c '
import json, sys
n = 0
for raw in sys.stdin.buffer:
    n += 1
    if not raw.endswith(b"\n"):
        sys.exit("line %d: no newline" % n)
    obj = json.loads(raw.decode("utf-8"))
    if not isinstance(obj, dict) or "input" not in obj:
        sys.exit("line %d: not a verdict" % n)
    if obj["decision"] not in ("allow", "deny", "reject"):
        sys.exit("line %d: bad decision" % n)
if n < 100:
    sys.exit("only %d lines" % n)
' <"$T/all.json" 2>"$T/pyerr"; then
		ok
	else
		bad "output is not valid JSON lines: $(tail -n 1 "$T/pyerr")"
	fi
	# No answer is split by a consumer that splits on every Unicode line
	# break (Python's str.splitlines(), Perl's \R), not only on '\n'.
	if python3 -c '
import sys
b = sys.stdin.buffer.read()
n, m = b.count(b"\n"), len(b.decode("utf-8").splitlines())
sys.exit(0 if n == m else "%d lines, %d by str.splitlines()" % (n, m))
' <"$T/all.json" 2>"$T/pyerr"; then
		ok
	else
		bad "a line break inside an answer: $(tail -n 1 "$T/pyerr")"
	fi
	# The escapes decode to what they stand for.
	if python3 -c '
import json, sys
want = ["q\"", "b\\", "n\nl", "t\tb", "\x01", "\ufffd", "\u00e9",
        "\u2028\u2029", "\U0001f600", "\ufffd\ufffd", "\ufffd" * 3, "\ufffd"]
got = [json.loads(l)["input"] for l in sys.stdin.buffer.read().decode("utf-8").splitlines()]
sys.exit(0 if got == want else "got %r" % got)
' <"$T/escapes.json" 2>"$T/pyerr"; then
		ok
	else
		bad "escapes do not decode as expected: $(tail -n 1 "$T/pyerr")"
	fi
else
	echo "pathfence.sh: python3 not found; JSON validity not checked" >&2
fi

echo "pathfence: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
