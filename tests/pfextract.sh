#!/bin/sh
# End-to-end tests of the pfextract command: tar's spellings really
# extract, exit statuses, messages, listing, and the JSON report.
# Usage: sh tests/pfextract.sh PFEXTRACT MKDEMO
set -u
pfx=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
mkdemo=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "pfextract.sh: FAIL: $*" >&2; fail=$((fail + 1)); }

# A small ordinary tree and its archives.
mkdir -p "$T/src/d/e"
printf 'one\n' > "$T/src/d/a.txt"
printf 'two\n' > "$T/src/d/e/b.txt"
tar -C "$T/src" -cf "$T/a.tar" d
gzip -c "$T/a.tar" > "$T/a.tgz"
"$mkdemo" "$T/demo.tgz"

# run NAME EXPECTED_STATUS CMD...: run in a fresh $T/out.
run() {
	name=$1 want=$2
	shift 2
	rm -rf "$T/out" && mkdir "$T/out"
	(cd "$T" && "$@") > "$T/stdout" 2> "$T/stderr"
	rc=$?
	if [ "$rc" -ne "$want" ]; then
		bad "$name: exit status $rc, want $want; stderr: $(head -3 "$T/stderr")"
		return 1
	fi
	ok
	return 0
}

# has_tree NAME: the ordinary tree is in $T/out/d.
has_tree() {
	if [ "$(cat "$T/out/d/a.txt" 2>/dev/null)" = one ] &&
	    [ "$(cat "$T/out/d/e/b.txt" 2>/dev/null)" = two ]; then
		ok
	else
		bad "$1: tree not extracted"
	fi
}

# Every spelling of tar's that the issue names.
run "operand and -C" 0 "$pfx" a.tgz -C out && has_tree "operand and -C"
run "-xzvf" 0 "$pfx" -xzvf a.tgz -C out && has_tree "-xzvf"
run "old-style bundle" 0 sh -c "cd out && '$pfx' xzf ../a.tgz" &&
    has_tree "old-style bundle"
run "x -f" 0 sh -c "cd out && '$pfx' x -f ../a.tar" && has_tree "x -f"
run "-xf - from a pipe" 0 sh -c "cat a.tgz | '$pfx' -xf - -C out" &&
    has_tree "-xf - from a pipe"
run "stdin with no -f" 0 sh -c "'$pfx' -x -C out < a.tar" &&
    has_tree "stdin with no -f"
run "options after operands" 0 "$pfx" -x a.tgz -C out -v &&
    has_tree "options after operands"
run "--opt=value" 0 "$pfx" --extract --file=a.tgz --directory=out &&
    has_tree "--opt=value"
run "long prefix" 0 "$pfx" -xf a.tgz -C out --strip=1
[ -f "$T/out/a.txt" ] && ok || bad "--strip=1: a.txt not at the top"
run "-v names on stdout" 0 "$pfx" -xvf a.tar -C out
grep -qx 'd/a.txt' "$T/stdout" && ok || bad "-v: no name on stdout"
run "member operand" 0 "$pfx" -xf a.tar -C out d/e
[ -f "$T/out/d/e/b.txt" ] && [ ! -e "$T/out/d/a.txt" ] && ok ||
    bad "member operand selects only d/e"
# As GNU tar: a member not found is exit 2, after the rest is extracted.
run "member not in the archive" 2 "$pfx" -xf a.tar -C out d/e nothere/
grep -q '^pfextract: nothere: Not found in archive$' "$T/stderr" && ok ||
    bad "missing member not reported: $(cat "$T/stderr")"
[ -f "$T/out/d/e/b.txt" ] && ok || bad "found member not extracted"
# Operands are names, not patterns, and "./d" is not "d" (GNU tar).
run "member operand is literal" 2 "$pfx" -xf a.tar -C out 'd/*.txt'
[ -z "$(ls -A "$T/out")" ] && ok || bad "'d/*.txt' matched as a pattern"
grep -q '^pfextract: Use --wildcards to enable pattern matching' \
    "$T/stderr" && ok || bad "no wildcards warning: $(cat "$T/stderr")"
run "./ member against d/" 2 "$pfx" -tf a.tar ./d/a.txt
[ ! -s "$T/stdout" ] && ok || bad "./d/a.txt listed $(cat "$T/stdout")"
run "--wildcards" 0 "$pfx" -xf a.tar -C out --wildcards 'd/a*'
[ -f "$T/out/d/a.txt" ] && [ ! -e "$T/out/d/e" ] && ok ||
    bad "--wildcards 'd/a*'"
run "--include stays a pattern" 0 "$pfx" -xf a.tar -C out --include='*/a.*'
[ -f "$T/out/d/a.txt" ] && [ ! -e "$T/out/d/e" ] && ok ||
    bad "--include='*/a.*'"
run "--exclude" 0 "$pfx" -xf a.tar -C out --exclude='*.txt'
[ -d "$T/out/d/e" ] && [ ! -e "$T/out/d/a.txt" ] && ok || bad "--exclude"
# '^' after '[' negates, unless POSIXLY_CORRECT is set (GNU tar's
# fnmatch); the command tells the library, which reads no environment.
run "--exclude='d/[^a]*'" 0 "$pfx" -xf a.tar -C out --exclude='d/[^a]*'
[ -f "$T/out/d/a.txt" ] && [ ! -e "$T/out/d/e" ] && ok ||
    bad "--exclude='d/[^a]*' kept d/e or lost d/a.txt"
run "POSIXLY_CORRECT --exclude='d/[^a]*'" 0 env POSIXLY_CORRECT=1 "$pfx" \
    -xf a.tar -C out --exclude='d/[^a]*'
[ -f "$T/out/d/e/b.txt" ] && [ ! -e "$T/out/d/a.txt" ] && ok ||
    bad "POSIXLY_CORRECT: '^' negated"
# -k over an existing file: reported, the rest extracted, exit 2 (GNU
# tar); --skip-old-files is silent and 0.
run "-k over an existing file" 2 sh -c \
    "mkdir -p out/d && echo old > out/d/a.txt && '$pfx' -xkf a.tar -C out"
[ "$(cat "$T/out/d/a.txt")" = old ] && [ -f "$T/out/d/e/b.txt" ] && ok ||
    bad "-k: the old file replaced, or the rest not extracted"
grep -q '^pfextract: d/a.txt: ' "$T/stderr" && ok ||
    bad "-k: existing file not reported: $(cat "$T/stderr")"
run "--skip-old-files over an existing file" 0 sh -c \
    "mkdir -p out/d && echo old > out/d/a.txt &&
    '$pfx' -xf a.tar -C out --skip-old-files"
[ "$(cat "$T/out/d/a.txt")" = old ] && [ ! -s "$T/stderr" ] && ok ||
    bad "--skip-old-files: $(cat "$T/stderr")"
run "-k on a fresh directory" 0 "$pfx" -xkf a.tar -C out

# --exclude with "./", on names stored with "./" (as GNU tar).
tar -C "$T/src" -cf "$T/dot.tar" ./d
run "--exclude=./d/a.txt" 0 "$pfx" -xf dot.tar -C out --exclude=./d/a.txt
[ -f "$T/out/d/e/b.txt" ] && [ ! -e "$T/out/d/a.txt" ] && ok ||
    bad "--exclude=./d/a.txt on ./d/a.txt"
run "--exclude='./*.txt' -t" 0 "$pfx" -tf dot.tar --exclude='./*.txt'
[ "$(cat "$T/stdout")" = "$(printf './d/\n./d/e/')" ] && ok ||
    bad "--exclude='./*.txt' listed: $(cat "$T/stdout")"

# Listing.
run "-t" 0 "$pfx" -tf a.tar
[ "$(sort "$T/stdout")" = "$(tar -tf "$T/a.tar" | sort)" ] && ok ||
    bad "-t names differ from tar -t"
[ -z "$(ls -A "$T/out")" ] && ok || bad "-t wrote something"

# Exit statuses and messages.
run "hostile entries: exit 1" 1 "$pfx" -xf demo.tgz -C out
grep -q '^pfextract: project/\.\./\.\./evil\.txt: ' "$T/stderr" && ok ||
    bad "no 'pfextract: NAME: REASON' line for the zip-slip entry"
[ -f "$T/out/project/README.txt" ] && ok ||
    bad "good entries lost because of bad ones"
[ ! -e "$T/evil.txt" ] && [ ! -e "$T/../evil.txt" ] && ok ||
    bad "zip-slip entry written outside"
run "-q silences refusals" 1 "$pfx" -qxf demo.tgz -C out
[ ! -s "$T/stderr" ] && ok || bad "-q still printed: $(head -1 "$T/stderr")"
run "--strict" 2 "$pfx" -xf demo.tgz -C out --strict
printf 'garbage, not an archive\n' > "$T/junk"
run "corrupt archive: exit 2" 2 "$pfx" -xf junk -C out
grep -q '^pfextract: ' "$T/stderr" && ok || bad "no message for a corrupt archive"
head -c 1030 "$T/a.tar" > "$T/cut.tar"
run "truncated archive: exit 2" 2 "$pfx" -xf cut.tar -C out
ls -A "$T/out/d" 2>/dev/null | grep -q "^\.pfx-" && bad "truncated: a temporary file was left" || ok
# A header read with a part of it ignored (a pax record whose length
# runs past the header's data) is said with the entry's name, the entry
# is extracted as the rest of the header says, and the exit status is 2,
# as GNU tar's (bsdtar's is 1): never a silent 0.
tar --format=pax --pax-option='comment:=hello' -C "$T/src" -cf "$T/pax.tar" d/a.txt
sed 's/[0-9][0-9] comment=hello/99 comment=hello/' "$T/pax.tar" > "$T/badpax.tar"
cmp -s "$T/pax.tar" "$T/badpax.tar" && bad "badpax.tar: no record to damage"
for m in --sandbox=auto --no-sandbox; do
	run "damaged pax header ($m)" 2 "$pfx" -xf badpax.tar -C out $m
	grep -q "a.txt.*Damaged header" "$T/stderr" && ok ||
	    bad "damaged pax header ($m): not told: $(cat "$T/stderr")"
	[ "$(cat "$T/out/d/a.txt" 2>/dev/null)" = one ] && ok ||
	    bad "damaged pax header ($m): d/a.txt not extracted"
	run "damaged pax header -t ($m)" 2 "$pfx" -tf badpax.tar $m
	grep -qx 'd/a.txt' "$T/stdout" && ok ||
	    bad "damaged pax header -t ($m): not listed"
done
# An archive cut where pfextract skips rather than reads (an entry's
# padding, an excluded member's data, every member's data when listing)
# is cut all the same, from a file or a pipe: exit 2, nothing made of the
# entry cut. A skip past the end of a file must not pass for data.
mkdir -p "$T/cut/s" && printf 'small' > "$T/cut/s/a" &&
    head -c 3145728 /dev/urandom > "$T/cut/s/big" && printf 'z' > "$T/cut/s/z"
tar -C "$T/cut/s" -cf "$T/cut/whole.tar" a big z
head -c 600 "$T/cut/whole.tar" > "$T/cut/pad.tar"
head -c 2097152 "$T/cut/whole.tar" > "$T/cut/mid.tar"
for how in file pipe; do
	for c in "pad.tar -x" "mid.tar -x --exclude=big" "mid.tar -t" \
	    "mid.tar -x --atomic --exclude=big"; do
		set -- $c
		f=$1 && shift
		if [ $how = file ]; then
			run "cut $c ($how)" 2 "$pfx" "$@" -f "cut/$f" -C out
		else
			run "cut $c ($how)" 2 sh -c "cat 'cut/$f' | '$pfx' $* -f - -C out"
		fi
		grep -qi 'truncated\|unexpected EOF' "$T/stderr" &&
		    ok || bad "cut $c ($how): not told: $(cat "$T/stderr")"
		[ ! -e "$T/out/z" ] && ok || bad "cut $c ($how): z made"
	done
	[ ! -e "$T/out/a" ] && ok || bad "cut --atomic ($how): a made"
done
# An empty compressed stream is an empty archive (bsdtar and GNU tar exit
# 0); an input of no byte at all is no archive (GNU tar exits 2).
: > "$T/empty"
for c in gzip xz zstd lz4; do
	command -v "$c" >/dev/null 2>&1 || continue
	"$c" -c < "$T/empty" > "$T/empty.$c"
	for m in --sandbox=auto --no-sandbox; do
		run "empty $c stream $m" 0 "$pfx" -xf "empty.$c" -C out $m
		[ -z "$(ls -A "$T/out")" ] && ok || bad "empty $c: wrote something"
		run "empty $c stream from a pipe $m" 0 sh -c \
		    "'$pfx' -tf - $m < 'empty.$c'"
		[ ! -s "$T/stdout" ] && ok || bad "empty $c: listed something"
	done
done
for m in --sandbox=auto --no-sandbox; do
	run "0-byte input $m" 2 "$pfx" -xf empty -C out $m
	grep -q 'the input is empty (0 bytes)' "$T/stderr" && ok ||
	    bad "0-byte input: $(cat "$T/stderr")"
	run "0-byte input from a pipe $m" 2 sh -c "'$pfx' -tf - $m < empty"
	# A directory as the archive (-f, standard input) is said to be
	# one, confined or not; it read as an empty archive in the decoder
	# process.
	run "directory as -f $m" 2 "$pfx" -xf src -C out $m
	grep -q 'cannot open archive: Is a directory' "$T/stderr" && ok ||
	    bad "directory as -f $m: $(cat "$T/stderr")"
	run "directory as stdin $m" 2 sh -c "'$pfx' -tf - $m < src"
	grep -q 'cannot open archive: Is a directory' "$T/stderr" && ok ||
	    bad "directory as stdin $m: $(cat "$T/stderr")"
done
run "missing destination: exit 2" 2 "$pfx" -xf a.tar -C nowhere
run "missing archive: exit 2" 2 "$pfx" -xf nothing.tar -C out
run "usage error: exit 64" 64 "$pfx" --no-such-option a.tar
grep -q "no-such-option" "$T/stderr" && ok || bad "unknown option not named"
for opt in -P --absolute-names --to-command=sh -Igzip --use-compress-program=gzip -h --dereference; do
	run "refused option $opt" 64 "$pfx" -xf a.tar -C out "$opt"
done
run "--help" 0 "$pfx" --help
grep -q '^usage: pfextract' "$T/stdout" && ok || bad "--help: no usage"
run "--version" 0 "$pfx" --version
grep -q '^pfextract [0-9]' "$T/stdout" && ok || bad "--version"

# GNU ar's deterministic archives store modes without file-type bits.
if command -v ar >/dev/null 2>&1; then
	(cd "$T/src/d" && ar rcs "$T/det.a" a.txt)
	run "ar rcs members" 0 "$pfx" -xf det.a -C out
	[ "$(cat "$T/out/a.txt" 2>/dev/null)" = one ] && ok ||
	    bad "ar rcs: member not extracted"
fi

# Resource limits: a zstd bomb (100 MiB of zeros in a few KiB) stops on
# the ratio by default; each limit names itself; --no-limits lifts them.
truncate -s 100M "$T/zeros"
tar -C "$T" -cf - zeros | zstd -q -c > "$T/bomb.tar.zst"
rm -f "$T/zeros"
run "bomb stops on the ratio" 2 "$pfx" -xf bomb.tar.zst -C out
grep -q 'max-ratio=200' "$T/stderr" && ok ||
    bad "bomb: no max-ratio message: $(cat "$T/stderr")"
[ -z "$(ls -A "$T/out")" ] && ok || bad "bomb: a partial file was left: $(ls -A "$T/out")"
run "--no-limits lets it through" 0 "$pfx" -xf bomb.tar.zst -C out --no-limits
[ "$(wc -c < "$T/out/zeros")" -eq 104857600 ] && ok ||
    bad "--no-limits: zeros is not 100 MiB"
run "--max-bytes" 2 "$pfx" -xf bomb.tar.zst -C out --no-limits --max-bytes=1M
grep -q 'max-bytes=1048576' "$T/stderr" && ok || bad "--max-bytes: $(cat "$T/stderr")"
run "--max-entries" 2 "$pfx" -xf a.tar -C out --max-entries=2
grep -q 'max-entries=2' "$T/stderr" && ok || bad "--max-entries: $(cat "$T/stderr")"
run "--max-depth" 2 "$pfx" -xf a.tar -C out --max-depth=1
grep -q 'max-depth=1' "$T/stderr" && ok || bad "--max-depth: $(cat "$T/stderr")"
mkdir "$T/lk" && echo x > "$T/lk/f" && ln "$T/lk/f" "$T/lk/h1" &&
    ln "$T/lk/f" "$T/lk/h2" && tar -C "$T/lk" -cf "$T/links.tar" f h1 h2
run "--max-links" 2 "$pfx" -xf links.tar -C out --max-links=1
grep -q 'max-links=1' "$T/stderr" && ok || bad "--max-links: $(cat "$T/stderr")"
run "--max-ratio=0 is no limit" 0 "$pfx" -xf bomb.tar.zst -C out --max-ratio=0
run "bad --max-bytes" 64 "$pfx" -xf a.tar -C out --max-bytes=12X
# zstd's window comes from --max-memory: --long=30's 1 GiB window needs
# more than the default budget of 1 GiB (the window and libzstd's
# buffers), --long=27's 128 MiB fits; a larger budget takes --long=30.
tar -C "$T/src" -cf - d | zstd -q --long=27 -c > "$T/w27.tar.zst"
tar -C "$T/src" -cf - d | zstd -q --long=30 -c > "$T/w30.tar.zst"
run "zstd --long=27, default budget" 0 "$pfx" -xf w27.tar.zst -C out &&
    has_tree "zstd --long=27, default budget"
for m in --sandbox=auto --no-sandbox; do
	run "zstd --long=30, default budget $m" 2 "$pfx" -xf w30.tar.zst \
	    -C out $m
	grep -q "zstd decompression failed: a frame's window of 1024 MiB needs 1025 MiB to decode, more than the memory budget: limit max-memory=1073741824 (use --max-memory or --no-limits)" "$T/stderr" &&
	    ok || bad "zstd --long=30 $m: $(cat "$T/stderr")"
	[ -z "$(ls -A "$T/out")" ] && ok ||
	    bad "zstd --long=30 $m: wrote $(ls -A "$T/out")"
	run "zstd --long=30, --max-memory=2G $m" 0 "$pfx" -xf w30.tar.zst \
	    -C out --max-memory=2G $m &&
	    has_tree "zstd --long=30, --max-memory=2G $m"
done

# Resolver choice from the environment.
run "walk resolver" 0 env PFEXTRACT_RESOLVER=walk "$pfx" -xf a.tar -C out &&
    has_tree "walk resolver"
run "bad resolver" 64 env PFEXTRACT_RESOLVER=bogus "$pfx" -xf a.tar -C out

# The JSON report: one valid object per entry and a summary.
run "--report=json" 1 "$pfx" -xf demo.tgz -C out --report=json
if command -v python3 >/dev/null 2>&1; then
	python3 - "$T/stdout" <<'PY' && ok || bad "--report=json is not what it should be"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8")]
entries, summary = lines[:-1], lines[-1]
assert summary["summary"] is True and summary["status"] == "refused"
assert summary["entries"] == len(entries)
for e in entries:
    assert set(e) >= {"input", "decision", "reason", "status", "path", "type", "bytes"}
    assert e["decision"] in ("allow", "deny", "reject")
slip = [e for e in entries if e["input"] == "project/../../evil.txt"][0]
assert slip["decision"] == "reject" and slip["reason"] == "escapes"
PY
fi

# --same-owner as root: an owner number that does not fit 32 bits is not
# cut to one that does (4294968296 is not uid 1000); the file keeps the
# extracting user's, as for an unknown owner.
if [ "$(id -u)" = 0 ] && command -v python3 > /dev/null; then
	python3 -c 'import io, sys, tarfile
with tarfile.open(sys.argv[1], "w", format=tarfile.PAX_FORMAT) as t:
    for n, u in (("big", 2**32 + 1000), ("ok", 1000)):
        ti = tarfile.TarInfo(n); ti.size = 1; ti.uid = ti.gid = u
        ti.uname = ti.gname = ""
        t.addfile(ti, io.BytesIO(b"x"))' "$T/uid.tar"
	rm -rf "$T/out" && mkdir "$T/out"
	run "--same-owner, an owner past 32 bits" 0 "$pfx" -xf uid.tar \
	    -C out --same-owner --numeric-owner
	[ "$(stat -c %u:%g "$T/out/big")" = 0:0 ] &&
	    [ "$(stat -c %u:%g "$T/out/ok")" = 1000:1000 ] && ok ||
	    bad "owner past 32 bits: $(stat -c '%n %u:%g' "$T/out/big" \
	    "$T/out/ok")"
	# With -p, a set-id bit only with the owner the archive names: an
	# owner past 32 bits is not given, so its setuid bit goes, and a
	# group that fits is still given, with its setgid bit.
	python3 -c 'import io, sys, tarfile
with tarfile.open(sys.argv[1], "w", format=tarfile.PAX_FORMAT) as t:
    for n, u, g in (("su", 2**32 + 5, 1000), ("sg", 1000, 2**32 + 5)):
        ti = tarfile.TarInfo(n); ti.size = 1; ti.mode = 0o6755
        ti.uid, ti.gid = u, g
        ti.uname = ti.gname = ""
        t.addfile(ti, io.BytesIO(b"x"))' "$T/sid.tar"
	rm -rf "$T/out" && mkdir "$T/out"
	run "-p --same-owner, set-id with an owner past 32 bits" 0 "$pfx" \
	    -xf sid.tar -C out -p --same-owner --numeric-owner
	[ "$(stat -c %a:%u:%g "$T/out/su")" = 2755:0:1000 ] &&
	    [ "$(stat -c %a:%u:%g "$T/out/sg")" = 4755:1000:0 ] && ok ||
	    bad "set-id with an owner past 32 bits: $(stat -c '%n %a:%u:%g' \
	    "$T/out/su" "$T/out/sg")"
fi

# --xattrs: what an archive's attributes give does not depend on the
# sandbox (a name given twice, an empty name: "LIBARCHIVE.xattr.%00"),
# and a read-only file keeps its "user." attribute in an unprivileged run
# (fsetxattr(2) needs write permission on the inode): none of them stops
# the run.  Run as nobody when root, where setpriv(1) can.
if command -v python3 > /dev/null && python3 - "$T" <<'PY'
import os, sys
p = os.path.join(sys.argv[1], "xprobe")
open(p, "w").close()
try:
    os.setxattr(p, "user.p", b"1")
except OSError:
    sys.exit(1)
finally:
    os.unlink(p)
PY
then
	python3 - "$T/xattr.tar" <<'PY'
import sys
def rec(k, v):
    body = (" %s=%s\n" % (k, v)).encode()
    n = len(body) + 1
    while len(str(n)) + len(body) != n:
        n = len(str(n)) + len(body)
    return str(n).encode() + body
def hdr(name, size, typ, mode):
    h = bytearray(512)
    def put(off, val):
        h[off:off + len(val)] = val
    put(0, name.encode()); put(100, b"%07o\0" % mode)
    put(108, b"0000000\0"); put(116, b"0000000\0")
    put(124, b"%011o\0" % size); put(136, b"%011o\0" % 0)
    put(156, typ); put(257, b"ustar\0"); put(263, b"00")
    h[148:156] = b"        "
    put(148, b"%06o\0 " % sum(h))
    return bytes(h)
def pad(b):
    return b + b"\0" * (-len(b) % 512)
def entry(name, recs, mode):
    p = b"".join(rec(k, v) for k, v in recs)
    return (hdr("PaxHeaders/" + name, len(p), b"x", 0o644) + pad(p) +
        hdr(name, 1, b"0", mode) + pad(b"x"))
out = entry("twice", [("SCHILY.xattr.user.k", "first"),
    ("SCHILY.xattr.user.k", "second")], 0o644)
out += entry("empty", [("LIBARCHIVE.xattr.%00", "eA=="),
    ("SCHILY.xattr.user.e", "e")], 0o644)
out += entry("ro", [("SCHILY.xattr.user.r", "r")], 0o444)
out += entry("none", [("SCHILY.xattr.user.n", "n")], 0o000)
open(sys.argv[1], "wb").write(out + b"\0" * 1024)
PY
	as=""
	if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null; then
		as="setpriv --reuid=65534 --regid=65534 --clear-groups"
		chmod 711 "$T" && chmod 644 "$T/xattr.tar"
	fi
	for m in --sandbox=auto --no-sandbox; do
		rm -rf "$T/xo" && mkdir "$T/xo" && chmod 777 "$T/xo"
		if ! $as "$pfx" -xf "$T/xattr.tar" --xattrs "$m" -C "$T/xo" \
		    2> "$T/stderr"; then
			bad "--xattrs $m: exit status $?: $(head -3 "$T/stderr")"
			continue
		fi
		if python3 - "$T/xo" > "$T/xattrs.$m" 2>&1 <<'PY'
import os, sys
d = sys.argv[1]
assert os.stat(os.path.join(d, "ro")).st_mode & 0o7777 == 0o444, "ro"
assert os.stat(os.path.join(d, "none")).st_mode & 0o7777 == 0, "none"
os.chmod(os.path.join(d, "none"), 0o400)  # readable by a non-root run
for f, a, v in (("empty", "user.e", b"e"), ("ro", "user.r", b"r"),
        ("none", "user.n", b"n")):
    assert os.getxattr(os.path.join(d, f), a) == v, f
print(os.getxattr(os.path.join(d, "twice"), "user.k"))
PY
		then
			ok
		else
			bad "--xattrs $m: $(tail -1 "$T/xattrs.$m")"
		fi
	done
	chmod 700 "$T"
	if cmp -s "$T/xattrs.--sandbox=auto" "$T/xattrs.--no-sandbox"; then
		ok
	else
		bad "--xattrs: a name given twice: $(cat "$T/xattrs.--sandbox=auto") with the sandbox, $(cat "$T/xattrs.--no-sandbox") without"
	fi

	# An attribute the filesystem will not store (a value over 64 KiB,
	# a name past 255 bytes, "user." alone) is the entry's matter: the
	# file or directory is made without it, with the others, a warning
	# names it, the run goes on and exits 1; with --strict it stops.
	python3 - "$T/xbig.tar" <<'PY'
import io, sys, tarfile
def add(t, name, xa, typ=tarfile.REGTYPE):
    ti = tarfile.TarInfo(name)
    ti.type = typ
    ti.mode = 0o755 if typ == tarfile.DIRTYPE else 0o644
    ti.pax_headers = {"SCHILY.xattr." + k: v for k, v in xa.items()}
    data = b"" if typ == tarfile.DIRTYPE else b"x"
    ti.size = len(data)
    t.addfile(ti, io.BytesIO(data))
with tarfile.open(sys.argv[1], "w", format=tarfile.PAX_FORMAT) as t:
    add(t, "big", {"user.big": "v" * 70000, "user.ok": "1"})
    add(t, "long", {"user." + "n" * 300: "1", "user.ok": "2"})
    add(t, "bare", {"user.": "1"})
    add(t, "dir", {"user.big": "v" * 70000, "user.ok": "3"},
        tarfile.DIRTYPE)
    add(t, "dir/after", {"user.ok": "4"})
PY
	for m in --sandbox=auto --no-sandbox; do
		rm -rf "$T/xo" && mkdir "$T/xo"
		run "--xattrs $m: attributes not stored" 1 "$pfx" \
		    -xf xbig.tar --xattrs "$m" -C xo
		n=$(grep -c "Cannot set extended attributes" "$T/stderr")
		[ "$n" = 4 ] && ok || bad "--xattrs $m: $n warnings, not 4"
		rm -rf "$T/xo" && mkdir "$T/xo"
		(cd "$T" && "$pfx" -xf xbig.tar --xattrs "$m" -C xo \
		    --report=json 2>/dev/null) | tail -1 |
		    grep -q '"status":"refused".*"refused":0,.*"warnings":4,' &&
		    ok || bad "--xattrs $m: the JSON summary's warnings"
		if python3 - "$T/xo" 2>&1 <<'PY'
import os, sys
d = sys.argv[1]
for f, v in (("big", b"1"), ("long", b"2"), ("dir", b"3"),
        ("dir/after", b"4")):
    assert os.getxattr(os.path.join(d, f), "user.ok") == v, f
assert os.listxattr(os.path.join(d, "bare")) == [], "bare"
assert os.stat(os.path.join(d, "dir")).st_mode & 0o777 == 0o755, "dir"
PY
		then
			ok
		else
			bad "--xattrs $m: the attributes that fit"
		fi
		rm -rf "$T/xo" && mkdir "$T/xo"
		run "--xattrs --strict $m: an attribute not stored" 2 \
		    "$pfx" -xf xbig.tar --xattrs --strict "$m" -C xo
		[ ! -e "$T/xo/long" ] && ok ||
		    bad "--xattrs --strict $m: went on past 'big'"
	done
fi

# --one-top-level puts every entry under its directory: "DIR/" in front
# of "../z", "a/../../y" or "/etc/x" must not hide what they are (they
# were extracted beside DIR, exit 0); they are refused as without it.
if command -v python3 > /dev/null; then
	python3 -c 'import io, sys, tarfile
t = tarfile.open(sys.argv[1], "w")
for n in ("ok", "../z", "a/../../y", "/etc/x"):
    i = tarfile.TarInfo(n); i.size = 1; t.addfile(i, io.BytesIO(b"1"))
i = tarfile.TarInfo("hl"); i.type = tarfile.LNKTYPE; i.linkname = "../z"
t.addfile(i); t.close()' "$T/top.tar"
	run "--one-top-level: climbing names" 1 \
	    "$pfx" -xf top.tar --one-top-level=s -C out
	[ "$(ls -A "$T/out")" = s ] && [ "$(ls -A "$T/out/s")" = ok ] &&
	    ok || bad "--one-top-level: names left s: $(ls -AR "$T/out")"
	n=$(grep -c -e ": name climbs out" -e ": absolute name refused" \
	    -e "hl: hard link target is outside" "$T/stderr")
	[ "$n" = 4 ] && ok || bad "--one-top-level: $n refusals, not 4"
fi
# With --strip-components, GNU tar strips, then puts DIR in front: what is
# left lands under DIR (it was stripped with the rest: beside DIR).
run "--one-top-level --strip-components=1" 0 \
    "$pfx" -xf a.tar --one-top-level=s --strip-components=1 -C out
[ "$(cat "$T/out/s/a.txt" 2>/dev/null)" = one ] &&
    [ "$(cat "$T/out/s/e/b.txt" 2>/dev/null)" = two ] &&
    [ "$(ls -A "$T/out")" = s ] && ok ||
    bad "--one-top-level --strip-components=1: $(ls -AR "$T/out")"

# bsdtar's -s rule flagged 'p' says "old >> new" with the archive's
# names: quoted as every name, never an escape sequence raw.
if command -v python3 > /dev/null; then
	python3 -c 'import io, sys, tarfile
t = tarfile.open(sys.argv[1], "w")
i = tarfile.TarInfo("a\x1b[2J\nb"); i.size = 1
t.addfile(i, io.BytesIO(b"1")); t.close()' "$T/sp.tar"
	run "-s ///p: a hostile name" 0 "$pfx" -xf sp.tar -s '/^a/A/p' -C out
	[ "$(cat "$T/stderr")" = 'a\033[2J\nb >> A\033[2J\nb' ] && ok ||
	    bad "-s ///p: said $(od -c "$T/stderr" | head -3)"
fi

# Sparse maps that libarchive lets through, the same in the decoder
# process and without it, from a file and from a pipe: a map that goes
# back fails its entry only (it was a protocol error that ended the run,
# and the good entries after it, when the entry was refused or not
# asked for); a map that holds more data than the entry stores fails it
# alone, bad_data, and the run goes on (its holes were filled with zeros
# and the run exited 0), the run with --strict; so does a map whose data
# runs past the entry's size (it ended the run, and the good entries
# after it, though the listing read them all).  A pax header with a
# record whose length lies is told of, naming the entry, exit 2 as GNU
# tar's, and with --strict stops the run (libarchive drops the records
# from there on, and the entry was made under its ustar name in silence,
# exit 0, where GNU tar makes it under the pax path record before the bad
# one); a negative
# GNU.sparse.size is refused (the decoder process extracted the entry).
if command -v python3 > /dev/null; then
	python3 - "$T" <<'PY'
import sys
def num(v, w):
    return ('%0*o' % (w - 1, v)).encode() + b'\0'
def header(name, size, typ=b'0', gnu=False, extra=()):
    b = bytearray(512)
    b[0:len(name)] = name.encode()
    b[100:108] = num(0o644, 8); b[108:116] = num(0, 8); b[116:124] = num(0, 8)
    b[124:136] = num(size, 12); b[136:148] = num(1700000000, 12)
    b[156:157] = typ
    b[257:265] = b'ustar  \0' if gnu else b'ustar\x0000'
    for off, data in extra:
        b[off:off + len(data)] = data
    b[148:156] = b' ' * 8
    b[148:156] = ('%06o' % sum(b)).encode() + b'\0 '
    return bytes(b)
def pad(d):
    return d + b'\0' * (-len(d) % 512)
def entry(name, data):
    return header(name, len(data)) + pad(data)
def sparse(name, segs, real, data):
    x = [(483, num(real, 12))]
    for i, (o, l) in enumerate(segs):
        x += [(386 + 24 * i, num(o, 12)), (398 + 24 * i, num(l, 12))]
    return header(name, len(data), b'S', True, x) + pad(data)
def rec(r):
    n = len(r) + 3
    while len(r) + 2 + len(str(n)) != n:
        n = len(r) + 2 + len(str(n))
    return b'%d %s\n' % (n, r)
def pax(recs):
    d = b''.join(rec(r) for r in recs)
    return header('PaxHeaders/x', len(d), b'x') + pad(d)
end = b'\0' * 1024
good = entry('good', b'good\n')
t = sys.argv[1]
open(t + '/sp-back.tar', 'wb').write(sparse('../bad', [(0, 1024), (512, 512)],
    4096, b'A' * 1536) + good + end)
open(t + '/sp-short.tar', 'wb').write(sparse('f', [(0, 512), (8192, 4096)],
    12288, b'A' * 1024) + good + end)
open(t + '/sp-over.tar', 'wb').write(sparse('f', [(0, 512), (8192, 512)],
    4096, b'A' * 1024) + good + end)
bad = rec(b'path=long/' + b'n' * 120) + b'99 mtime=1\n'
open(t + '/pax-bad.tar', 'wb').write(header('PaxHeaders/x', len(bad), b'x') +
    pad(bad) + entry('short', b'short\n') + good + end)
open(t + '/sp-neg.tar', 'wb').write(pax([b'GNU.sparse.size=-5',
    b'GNU.sparse.numblocks=1', b'GNU.sparse.offset=0',
    b'GNU.sparse.numbytes=512']) + entry('f', b'A' * 512) + good + end)
PY
	# sp ARCHIVE HOW [OPTION]: pfextract reads $T/ARCHIVE into out, from
	# a file or (HOW pipe) from a pipe, with OPTION; then SP_ARGS.
	sp() {
		if [ "$2" = file ]; then
			"$pfx" ${3-} -xf "$1" -C out $SP_ARGS
		else
			cat "$1" | "$pfx" ${3-} -xf - -C out $SP_ARGS
		fi
	}
	for m in "" --no-sandbox; do
		for how in file pipe; do
			w="sparse ($how${m:+, $m})"
			SP_ARGS=
			run "$w: a map that goes back" 1 sp sp-back.tar $how $m &&
			    [ "$(cat "$T/out/good")" = good ] && ok ||
			    bad "$w: a map that goes back: $(cat "$T/stderr")"
			SP_ARGS=good
			run "$w: a map that goes back, not asked for" 0 \
			    sp sp-back.tar $how $m &&
			    [ "$(cat "$T/out/good")" = good ] && ok ||
			    bad "$w: not asked for: $(cat "$T/stderr")"
			SP_ARGS=
			run "$w: a map past the data" 1 sp sp-short.tar $how $m &&
			    [ ! -e "$T/out/f" ] &&
			    [ "$(cat "$T/out/good")" = good ] &&
			    grep -q "f: its data fails the archive's check" \
			    "$T/stderr" && ok ||
			    bad "$w: a map past the data: $(cat "$T/stderr")"
			run "$w: a map past the data, --strict" 2 \
			    sp sp-short.tar $how "$m --strict" &&
			    [ ! -e "$T/out/f" ] &&
			    grep -q "ends short of its sparse map" \
			    "$T/stderr" && ok ||
			    bad "$w: --strict: $(cat "$T/stderr")"
			run "$w: a map past the size" 1 sp sp-over.tar $how $m &&
			    [ ! -e "$T/out/f" ] &&
			    [ "$(cat "$T/out/good")" = good ] &&
			    grep -q "f: its data fails the archive's check" \
			    "$T/stderr" && ok ||
			    bad "$w: a map past the size: $(cat "$T/stderr")"
			run "$w: a map past the size, --strict" 2 \
			    sp sp-over.tar $how "$m --strict" &&
			    [ ! -e "$T/out/f" ] &&
			    grep -q "sparse map runs past its size" \
			    "$T/stderr" && ok ||
			    bad "$w: past the size, --strict: $(cat "$T/stderr")"
			run "$w: a malformed pax header" 2 \
			    sp pax-bad.tar $how $m &&
			    [ "$(cat "$T/out/short")" = short ] &&
			    [ "$(cat "$T/out/good")" = good ] &&
			    grep -q "short.: Damaged header" \
			    "$T/stderr" && ok ||
			    bad "$w: a malformed pax header: $(cat "$T/stderr")"
			run "$w: a malformed pax header, --strict" 2 \
			    sp pax-bad.tar $how "$m --strict" &&
			    [ ! -e "$T/out/short" ] &&
			    grep -q "short: a damaged header" \
			    "$T/stderr" && ok ||
			    bad "$w: malformed, --strict: $(cat "$T/stderr")"
			run "$w: a negative size" 2 sp sp-neg.tar $how $m &&
			    [ ! -e "$T/out/f" ] &&
			    grep -q "f: the entry's size is negative" \
			    "$T/stderr" && ok ||
			    bad "$w: a negative size: $(cat "$T/stderr")"
		done
	done
fi

# A file of mode 0640 with an access ACL whose owning group has rwx under
# a mask of r-- (as GNU tar --acls and bsdtar write it): ACLs are not
# restored, and its mode is the header's, 0640 (the owning group's rwx
# made it 0670 with -p, 0650 without), in the decoder process or not.
if command -v python3 > /dev/null; then
	python3 - "$T/acl.tar" <<'PY'
import sys
def num(v, w):
    return ('%0*o' % (w - 1, v)).encode() + b'\0'
def header(name, size, typ, mode):
    b = bytearray(512)
    b[0:len(name)] = name.encode()
    b[100:108] = num(mode, 8); b[108:116] = num(0, 8); b[116:124] = num(0, 8)
    b[124:136] = num(size, 12); b[136:148] = num(1700000000, 12)
    b[156:157] = typ
    b[257:265] = b'ustar\x0000'
    b[148:156] = b' ' * 8
    b[148:156] = ('%06o' % sum(b)).encode() + b'\0 '
    return bytes(b)
def pad(d):
    return d + b'\0' * (-len(d) % 512)
r = (b'SCHILY.acl.access=user::rw-,user:1000:rwx,group::rwx,mask::r--,'
    b'other::---')
n = len(r) + 3
while len(r) + 2 + len(str(n)) != n:
    n = len(r) + 2 + len(str(n))
rec = b'%d %s\n' % (n, r)
open(sys.argv[1], 'wb').write(header('PaxHeaders/f', len(rec), b'x', 0o644) +
    pad(rec) + header('f', 7, b'0', 0o640) + pad(b'secret\n') +
    b'\0' * 1024)
PY
	for o in -p --no-same-permissions; do
		for m in "" --no-sandbox; do
			run "ACL mask ($o${m:+ $m})" 0 "$pfx" $m $o -xf acl.tar \
			    -C out &&
			    [ "$(stat -c %a "$T/out/f")" = 640 ] && ok ||
			    bad "ACL mask ($o${m:+ $m}): mode $(stat -c %a "$T/out/f")"
		done
	done
fi

# Without the sandbox: the parent of a file is resolved when its header
# comes, and moved out of DEST while its data flows.  Neither the file's
# commit over the old d/f nor --backup's move of it may touch it there
# (before: outside/d/f was removed, or became outside/d/f~).  The archive
# comes down a pipe, paused for the move.
mkdir -p "$T/bk/d"
dd if=/dev/zero of="$T/bk/d/f" bs=1048576 count=4 2> /dev/null
tar -C "$T/bk" -cf "$T/bk.tar" d
for res in walk openat2; do
	for opt in --overwrite --backup; do
		rm -rf "$T/out" "$T/away" && mkdir -p "$T/out/d" "$T/away"
		printf 'old\n' > "$T/out/d/f"
		{ head -c 1048576 "$T/bk.tar"; sleep 1
		    mv "$T/out/d" "$T/away/d"
		    tail -c +1048577 "$T/bk.tar"; } |
		    PFEXTRACT_RESOLVER=$res "$pfx" -x --no-sandbox $opt \
		    -C "$T/out" -f - 2> "$T/stderr"
		[ "$(ls -A "$T/away/d")" = f ] &&
		    [ "$(cat "$T/away/d/f")" = old ] && ok ||
		    bad "$opt, parent moved out ($res): away/d holds $(ls -A "$T/away/d")"
		grep -q "d/f: its directory left the destination" \
		    "$T/stderr" && ok ||
		    bad "$opt, parent moved out ($res): $(cat "$T/stderr")"
	done
done

# A populated destination whose directory an earlier archive left
# read-only (0555): as GNU tar, the entry beneath it is refused with its
# own message (permission_denied, exit 1) and every entry after it is
# extracted, confined or not, and with --atomic.  Before, it stopped the run ("I/O error: Permission denied",
# said twice, exit 2): b and c lost.  A destination not ours to write
# still stops at its first entry (exit 2).  Run as nobody when root.
if [ "$(id -u)" != 0 ] || command -v setpriv > /dev/null; then
	as=""
	[ "$(id -u)" = 0 ] &&
	    as="setpriv --reuid=65534 --regid=65534 --clear-groups"
	mkdir -p "$T/rosrc/ro" && printf 'a\n' > "$T/rosrc/a" &&
	    printf 'x\n' > "$T/rosrc/ro/x" && printf 'b\n' > "$T/rosrc/b" &&
	    printf 'c\n' > "$T/rosrc/c"
	tar -C "$T/rosrc" --no-recursion -cf "$T/ro.tar" a ro/x b c
	chmod 711 "$T" && chmod 644 "$T/ro.tar"
	# DEST's parent is the user's own (--atomic stages in DEST only
	# where no one else can write its parent).
	rm -rf "$T/rop" && mkdir "$T/rop"
	[ "$as" ] && chown 65534 "$T/rop"
	d=$T/rop/rod
	for m in "" --no-sandbox --atomic; do
		$as sh -c "rm -rf '$d' && mkdir -p '$d/ro' && chmod 555 '$d/ro'"
		$as "$pfx" -xf "$T/ro.tar" -C "$d" $m 2> "$T/stderr"
		rc=$?
		[ $rc -eq 1 ] && [ "$(cat "$d/b" "$d/c")" = "$(printf 'b\nc')" ] &&
		    [ -z "$(ls -A "$d/ro")" ] &&
		    [ "$(wc -l < "$T/stderr")" -eq 1 ] &&
		    grep -q '^pfextract: ro/x: the file system refused it (permission denied)' \
		    "$T/stderr" && ok ||
		    bad "read-only directory in dest $m: exit $rc: $(ls "$d"): $(cat "$T/stderr")"
	done
	$as sh -c "rm -rf '$d' && mkdir -m 555 '$d'"
	$as "$pfx" -xf "$T/ro.tar" -C "$d" 2> "$T/stderr"
	rc=$?
	[ $rc -eq 2 ] && grep -q '^pfextract: a: .*Permission denied' \
	    "$T/stderr" && ok ||
	    bad "read-only dest: exit $rc: $(cat "$T/stderr")"
	chmod -R u+w "$T/rop"
fi

# Members bound to two -C directories run in a child per directory: one
# whose pfextract is killed by SIGKILL (which no handler can pass on)
# dies with it instead of writing on into its directory, unwaited for.
mkdir -p "$T/grp/g1" "$T/grp/g2"
for i in 1 2 3 4 5 6; do head -c 20000 /dev/zero > "$T/grp/g1/f$i"; done
printf 'x\n' > "$T/grp/g2/x"
tar -C "$T/grp" -cf "$T/grp.tar" g1 g2
rm -rf "$T/o1" "$T/o2" && mkdir "$T/o1" "$T/o2"
"$pfx" -xf "$T/grp.tar" --checkpoint=1 --checkpoint-action=sleep=1 \
    -C "$T/o1" g1 -C "$T/o2" g2 2>/dev/null &
gp=$!
kid=
for i in 1 2 3 4 5 6 7 8 9 10; do
	kid=$(pgrep -P "$gp" | head -1)
	[ -n "$kid" ] && break
	sleep 0.2
done
sleep 0.5
kill -KILL "$gp"
wait "$gp" 2>/dev/null
sleep 0.5
if [ -z "$kid" ]; then
	bad "-C groups killed: no child seen"
elif ps -o stat= -p "$kid" 2>/dev/null | grep -qv Z; then
	bad "-C groups killed: the run for $T/o1 goes on after pfextract was killed"
	kill -KILL "$kid"
else
	ok
fi

# Standard output and error closed when pfextract starts (a daemon's
# child): the next descriptor opened took their numbers, and -v's names
# and the refusals went into the decoder process's socket, which ended
# the run by SIGPIPE, silently, before most files were made.  Now both
# fail as closed ones do: every file is made, exit 2 (-v's output lost).
mkdir -p "$T/cl/m"
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
	head -c 20000 /dev/zero | tr '\0' "$((i % 10))" > "$T/cl/m/f$i"
	ln -s /etc/passwd "$T/cl/m/l$i"
done
tar -C "$T/cl" -cf "$T/cl.tar" m
for m in "" --no-sandbox; do
	rm -rf "$T/out" && mkdir "$T/out"
	# shellcheck disable=SC2086 # M is an option or none
	"$pfx" -xv -f - -C "$T/out" $m < "$T/cl.tar" >&- 2>&-
	rc=$?
	diff -r "$T/cl/m" "$T/out/m" 2>/dev/null | grep -v '^Only in .*: l[0-9]' |
	    grep -q . && bad "stdout, stderr closed $m: files lost" || ok
	[ "$rc" -eq 2 ] && ok || bad "stdout, stderr closed $m: exit $rc, want 2"
done
# Standard input closed: not an empty archive, nor DEST read as one.
for m in "" --no-sandbox; do
	rm -rf "$T/out" && mkdir "$T/out"
	# shellcheck disable=SC2086 # M is an option or none
	"$pfx" -x -C "$T/out" $m <&- 2> "$T/stderr"
	rc=$?
	[ "$rc" -eq 2 ] && ! grep -q 'Is a directory\|is empty' "$T/stderr" &&
	    ok || bad "stdin closed $m: exit $rc: $(cat "$T/stderr")"
done

# --cpus=N plans the threads (one, a decoder thread, and a worker from
# three): the same tree, messages and exit status whatever N; 0 and
# past 1024 are refused as usage errors.
mkdir "$T/cpus"
"$pfx" -xf "$T/demo.tgz" -C "$T/cpus" 2> "$T/cpus.err"
(cd "$T/cpus" && find . -printf '%y %p %m %s\n' | sort) > "$T/cpus.lst"
for n in 1 2 3 8; do
	run "--cpus=$n" 1 "$pfx" --cpus=$n -xf demo.tgz -C out &&
	    (cd "$T/out" && find . -printf '%y %p %m %s\n' | sort) |
	    cmp -s - "$T/cpus.lst" && cmp -s "$T/stderr" "$T/cpus.err" && ok ||
	    bad "--cpus=$n: not the tree or the messages of the default"
done
for n in 0 1025 x; do
	run "--cpus=$n refused" 64 "$pfx" --cpus=$n -xf demo.tgz -C out &&
	    grep -q "invalid --cpus value '$n'" "$T/stderr" && ok ||
	    bad "--cpus=$n: $(head -1 "$T/stderr")"
done

echo "pfextract: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
