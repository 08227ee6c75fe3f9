#!/bin/sh
#
# compat.sh -- pfextract(1) against GNU tar and bsdtar on ordinary
# archives: the same archive is extracted by the reference extractor and
# by pfextract, and the two trees must be the same.
#
# Usage: sh tests/compat.sh PATH_TO_PFEXTRACT
#
# The archives are made at test time from a varied source tree (nested
# and empty directories, files of 0, 1, 4095 and 70000 bytes and a 1 MiB
# random one, names with spaces, unicode and a leading dash, a name longer
# than 100 bytes and a path longer than 255, hard links, relative
# symlinks, a node_modules/.bin link, assorted modes and owners, fixed
# sub-second mtimes), by every archiver on the machine, in every format
# pfextract reads by default and with every compression libarchive reads
# without an external program; plus real ones: a Debian package (its
# data.tar and the .deb itself, an ar archive) and an npm package tarball.
#
# For each archive the reference (GNU tar for tar formats, bsdtar for the
# others; both with -p and --no-same-owner, so that the reference's mode
# is the archive's mode even as root, and GNU tar with
# --delay-directory-restore, so that it restores the mtimes of directories
# whose entries are not all together, as in bsdtar's archives) extracts
# into ref/ and `pfextract -xf ARCHIVE -C out --symlinks=contain` into
# out/, which must exit 0.  Then, for every path below the destination:
#   paths     the same set of paths;
#   type      the same type (file, directory, symlink);
#   content   the same bytes (sha1 of each file; cmp names the first
#             differing byte in the failure message);
#   symlink   the same link targets;
#   hardlink  the same hard-link groups (the paths sharing an inode);
#   mtime     the same mtime, to the nanosecond, of files and of the
#             directories the archive holds (an implicit directory, made
#             only to hold an entry, gets the time of the extraction from
#             both and is not compared; symlinks are not compared);
#   mode      the documented mode.  pfextract clears setuid, setgid and
#             sticky (07000) and group and other write (0020 | 0002)
#             unless -p, so its mode must be the reference's & ~07022,
#             i.e. & 0755; with -p it keeps sticky and group/other write
#             (& 01777); with -p and --same-owner it keeps all (& 07777).
#             An implicit directory is 0755 (tar: 0777 & ~umask 022);
#   owner     the same uid:gid: neither changes ownership (the source
#             tree has files owned by other users), or, with
#             --same-owner, both restore it;
#   holes     (sparse archives) the sparse file's holes stay holes;
#   symlink-mtime  (posix.tar only) the mtimes of symlinks;
#   list      `pfextract -tf` prints the same set of names as the
#             reference's -tf (a directory's trailing '/' aside).
# Each aspect of each archive is one comparison.  Then the same with the
# archive on a pipe (a zip on a pipe against bsdtar on a pipe), with
# --strip-components, with -p (and --same-owner as root), with duplicate
# names (the later entry wins), and under the default --symlinks=refuse
# (exit 1, the tree without its symlinks, one refusal naming the flag per
# link).  Needs GNU find (-printf) and coreutils; sh mk/deps.sh installs
# the archivers and compressors.  Faster with TMPDIR on a tmpfs.
#
# Prints one line per failed comparison (with up to three example paths:
# expected, got), then "compat: N passed, M failed"; exit status 0 only
# if none failed.  A combination no tool on the machine can make is
# skipped with a "skip:" note.  COMPAT_ONLY=PATTERN runs only the archives
# whose names match the shell PATTERN; COMPAT_KEEP=1 keeps the work
# directory.

# Words are split on purpose ($SHORT_EXCL, $cmd, ...), and the commands
# given to sh -c are single-quoted on purpose.
# shellcheck disable=SC2086,SC2016

set -u

if [ $# -ne 1 ]; then
	echo "usage: sh tests/compat.sh PATH_TO_PFEXTRACT" >&2
	exit 2
fi
PFX=$1
case $PFX in
/*) ;;
*) PFX=$(pwd)/$PFX ;;
esac
if [ ! -x "$PFX" ]; then
	echo "compat.sh: $PFX is not an executable" >&2
	exit 2
fi
for tool in tar bsdtar find sha1sum cmp awk sort gzip; do
	if ! command -v $tool >/dev/null 2>&1; then
		echo "compat.sh: $tool is missing (sh mk/deps.sh)" >&2
		exit 2
	fi
done

# Names are compared as bytes; listings are made in a UTF-8 locale, so
# that tar does not escape é and 日本.  Dates are UTC.
LC_ALL=C.UTF-8
TZ=UTC
export LC_ALL TZ
umask 022

T=$(mktemp -d) || exit 2
if [ -n "${COMPAT_KEEP-}" ]; then
	echo "compat.sh: keeping $T" >&2
else
	trap 'chmod -R u+rwx "$T" 2>/dev/null; rm -rf "$T"' EXIT
fi
trap 'exit 2' HUP INT TERM
A=$T/archives
M=$T/m
R=$T/ref
O=$T/out
mkdir "$A" "$M"

passed=0
failed=0
ok() {
	passed=$((passed + 1))
}
bad() {
	failed=$((failed + 1))
	printf 'FAIL: %s\n' "$*"
}
skip() {
	printf 'skip: %s\n' "$*"
}
have() {
	command -v "$1" >/dev/null 2>&1
}
ROOT=false
[ "$(id -u)" = 0 ] && ROOT=true

# --- the source trees ------------------------------------------------------

# mkfile PATH BYTES: PATH holding BYTES bytes of a repeating text.
mkfile() {
	awk -v n="$2" 'BEGIN {
		s = "The quick brown fox jumps over the lazy dog 0123456789\n"
		while (n >= length(s)) { printf "%s", s; n -= length(s) }
		printf "%s", substr(s, 1, n)
	}' >"$1"
}

# stamp DATE PATH...: set the mtime of each PATH (not through a link).
stamp() {
	d=$1
	shift
	touch -h -d "$d" "$@"
}

S=$T/src
mk_tree() {
	r=$S/tree
	mkdir -p "$r/empty" "$r/sizes" "$r/uni/日本" "$r/long" "$r/hl/sub" \
	    "$r/links" "$r/node_modules/pkg/bin" "$r/node_modules/.bin" \
	    "$r/modes/d700" "$r/modes/d750" "$r/modes/d2775" \
	    "$r/modes/d1777" "$r/ro" "$r/times" "$r/a/b/c/d"
	mkfile "$r/README" 300
	mkfile "$r/a/b/c/d/leaf.txt" 5
	mkfile "$r/a/b/mid.txt" 50
	: >"$r/sizes/zero"
	printf x >"$r/sizes/one"
	mkfile "$r/sizes/f4095" 4095
	mkfile "$r/sizes/f70000" 70000
	head -c 1048576 /dev/urandom >"$r/sizes/random.bin"
	mkfile "$r/sizes/name with spaces.txt" 20
	mkfile "$r/uni/café.txt" 10
	mkfile "$r/uni/日本/語.txt" 11
	mkfile "$r/-dash" 12
	# A name of 120 bytes, and a path of more than 255.
	long=$(awk 'BEGIN { for (i = 0; i < 116; i++) printf "n"; print ".txt" }')
	mkfile "$r/long/$long" 13
	seg=$(awk 'BEGIN { for (i = 0; i < 60; i++) printf "d" }')
	mkdir -p "$r/deep/$seg.1/$seg.2/$seg.3/$seg.4"
	mkfile "$r/deep/$seg.1/$seg.2/$seg.3/$seg.4/file.txt" 14
	# Hard links: a group of three, one in another directory.
	mkfile "$r/hl/a" 4000
	ln "$r/hl/a" "$r/hl/b"
	ln "$r/hl/a" "$r/hl/sub/c"
	# Relative symlinks that stay inside: to a file, to a directory,
	# to '.', through a directory link, and one dangling.
	ln -s ../sizes/one "$r/links/to_file"
	ln -s ../uni "$r/links/to_dir"
	ln -s . "$r/links/self"
	ln -s to_dir/café.txt "$r/links/through_link"
	ln -s ../no/such/file "$r/links/dangling"
	printf '#!/usr/bin/env node\nconsole.log("x")\n' \
	    >"$r/node_modules/pkg/bin/x.js"
	chmod 755 "$r/node_modules/pkg/bin/x.js"
	printf '{"name":"pkg","bin":{"x":"bin/x.js"}}\n' \
	    >"$r/node_modules/pkg/package.json"
	ln -s ../pkg/bin/x.js "$r/node_modules/.bin/x"
	# Modes.
	for m in 644 755 600 700 750 664 775 444 4755 2755 1755; do
		mkfile "$r/modes/m$m" 7
		chmod "$m" "$r/modes/m$m"
	done
	mkfile "$r/modes/d700/f" 3
	mkfile "$r/modes/d750/f" 3
	mkfile "$r/modes/d2775/f" 3
	chmod 700 "$r/modes/d700"
	chmod 750 "$r/modes/d750"
	chmod 2775 "$r/modes/d2775"
	chmod 1777 "$r/modes/d1777"
	mkfile "$r/ro/inside" 8
	chmod 444 "$r/ro/inside"
	# Owners other than the extracting user.
	if $ROOT; then
		chown 1000:1000 "$r/README" "$r/sizes/f4095" "$r/modes/d750"
		chown 65534:65534 "$r/uni/café.txt" "$r/modes/m2755"
		chown -h 1000:100 "$r/links/to_file"
	fi
	# Mtimes: sub-second, distinct, one in 1980 and one past 2038;
	# directories last, deepest first.
	i=10
	find "$r" ! -type d | sort | while IFS= read -r p; do
		i=$((i + 1))
		stamp "2021-03-04 05:06:$i.123456789" "$p"
	done
	mkfile "$r/times/old" 1
	mkfile "$r/times/future" 2
	stamp "1980-01-02 03:04:05.5" "$r/times/old"
	stamp "2040-05-06 07:08:09.000000001" "$r/times/future"
	i=10
	find "$r" -depth -type d | while IFS= read -r p; do
		i=$((i + 1))
		stamp "2022-11-12 13:14:$i.987654321" "$p"
	done
	chmod 555 "$r/ro"
}

# A sparse file: 1 MiB, data in three places.
mk_sparse() {
	mkdir -p "$T/sp/sparse"
	f=$T/sp/sparse/holey
	truncate -s 1048576 "$f"
	printf 'head' | dd of="$f" conv=notrunc 2>/dev/null
	printf 'middle' | dd of="$f" bs=1 seek=524288 conv=notrunc 2>/dev/null
	printf 'tail' | dd of="$f" bs=1 seek=1048572 conv=notrunc 2>/dev/null
	mkfile "$T/sp/sparse/plain" 100
	stamp "2020-01-01 00:00:01.25" "$f" "$T/sp/sparse/plain" \
	    "$T/sp/sparse"
}

# Flat files for ar, which holds no directories; flat/short holds only
# names that fit the 15 bytes of an SVR4 ar header.
mk_flat() {
	mkdir -p "$T/flat/short"
	mkfile "$T/flat/short/notes.txt" 30
	: >"$T/flat/short/empty"
	mkfile "$T/flat/short/odd" 4095
	printf '#!/bin/sh\n' >"$T/flat/short/tool"
	chmod 755 "$T/flat/short/tool"
	mkfile "$T/flat/a_name_longer_than_sixteen_bytes.txt" 40
	cp -p "$T/flat/short"/* "$T/flat"
	stamp "2019-07-08 09:10:11" "$T/flat"/* "$T/flat/short"/*
}

mk_tree
mk_sparse
mk_flat

# --- making the archives ---------------------------------------------------

# $T/list: "NAME KIND" per archive $A/NAME; KIND is tar (GNU tar is the
# reference) or lib (bsdtar is).
: >"$T/list"
add() {
	if [ -s "$A/$1" ]; then
		echo "$1 $2" >>"$T/list"
	else
		bad "making $1: the archiver failed: $(head -2 "$T/err" |
		    tr '\n' ' ')"
	fi
}

# Names that do not fit ustar or v7 headers.
SHORT_EXCL="--exclude=tree/long --exclude=tree/deep"

# gtar|btar OUT ARG...: GNU tar or bsdtar writes $A/OUT from $S/tree.
gtar() {
	out=$1
	shift
	(cd "$S" && tar -c "$@" -f "$A/$out" tree) 2>"$T/err"
	add "$out" tar
}
btar() {
	out=$1 kind=$2
	shift 2
	(cd "$S" && bsdtar -c "$@" -f "$A/$out" tree) 2>"$T/err"
	add "$out" "$kind"
}

# GNU tar.
gtar gnu.tar --format=gnu
gtar oldgnu.tar --format=oldgnu
gtar posix.tar --format=posix
gtar ustar.tar --format=ustar $SHORT_EXCL
gtar v7.tar --format=v7 $SHORT_EXCL
(cd "$T/sp" && tar -c -S --format=gnu -f "$A/sparse-gnu.tar" sparse) \
    2>"$T/err"
add sparse-gnu.tar tar
(cd "$T/sp" && tar -c -S --format=posix -f "$A/sparse-posix.tar" sparse) \
    2>"$T/err"
add sparse-posix.tar tar

# bsdtar (libarchive's writers).
btar bsd-ustar.tar tar --format=ustar $SHORT_EXCL
btar bsd-pax.tar tar --format=pax
btar bsd-paxr.tar tar --format=paxr
btar bsd-gnutar.tar tar --format=gnutar
btar bsd-v7.tar tar --format=v7tar $SHORT_EXCL
(cd "$T/sp" && bsdtar -c --format=pax -f "$A/sparse-bsd.tar" sparse) \
    2>"$T/err"
add sparse-bsd.tar tar
btar bsd-odc.cpio lib --format=odc
btar bsd-newc.cpio lib --format=newc
btar bsd-store.zip lib --format=zip --options=zip:compression=store
btar bsd-deflate.zip lib --format=zip --options=zip:compression=deflate
# (The slow methods without the random MiB.)
btar bsd-copy.7z lib --format=7zip --options=7zip:compression=copy
btar bsd-lzma2.7z lib --format=7zip --options=7zip:compression=lzma2
for c in deflate bzip2 lzma1 ppmd; do
	btar bsd-$c.7z lib --format=7zip --options=7zip:compression=$c \
	    --exclude=tree/sizes/random.bin
done
# libarchive's SVR4 ar writer needs the caller to write the long-name
# table, so it gets only short names.
(cd "$T/flat/short" && bsdtar -c --format=arsvr4 -f "$A/bsd-arsvr4.a" \
    notes.txt empty odd tool) 2>"$T/err"
add bsd-arsvr4.a lib
(cd "$T/flat" && bsdtar -c --format=arbsd -f "$A/bsd-arbsd.a" \
    notes.txt a_name_longer_than_sixteen_bytes.txt empty odd tool) \
    2>"$T/err"
add bsd-arbsd.a lib

# GNU cpio, as initramfs images are made.
if have cpio; then
	for f in newc crc odc bin; do
		(cd "$S" && find tree | cpio --quiet -o -H $f \
		    >"$A/cpio-$f.cpio") 2>"$T/err"
		add cpio-$f.cpio lib
	done
else
	skip "GNU cpio archives (newc, crc, odc, bin): no cpio"
fi
# binutils ar (a static library's format): real mtimes, owners and modes,
# and a GNU long-name table.
if have ar; then
	(cd "$T/flat" && ar rcU "$A/binutils.a" notes.txt \
	    a_name_longer_than_sixteen_bytes.txt empty odd tool) 2>"$T/err"
	add binutils.a lib
else
	skip "binutils ar archives: no ar"
fi
# Info-ZIP, storing symlinks as links.
if have zip; then
	(cd "$S" && zip -q -r -y "$A/infozip.zip" tree) 2>"$T/err"
	add infozip.zip lib
else
	skip "Info-ZIP archives: no zip"
fi
# 7-Zip itself, storing symlinks as links.
if have 7zz; then
	(cd "$S" && 7zz a -bd -bso0 -snl "$A/7zz.7z" tree) 2>"$T/err"
	add 7zz.7z lib
else
	skip "7-Zip archives: no 7zz"
fi

# Compressions: SUFFIX:COMMAND (words joined by ':'), fast levels.
COMPRESSORS="gz:gzip:-c bz2:bzip2:-1:-c xz:xz:-0:-c lzma:xz:--format=lzma:-0:-c
zst:zstd:-q:-c lz4:lz4:-q:-c lz:lzip:-0:-c Z:compress:-f:-c"
ALL_SUFFIXES="gz bz2 xz lzma zst lz4 lz Z"
# Every compression on the formats archives are usually compressed in,
# gzip on the other stream formats; none on zip, 7z and ar, which are
# never compressed as a whole.  "NAME SUFFIX..." per line.
cat >"$T/clist" <<EOF
gnu.tar $ALL_SUFFIXES
posix.tar $ALL_SUFFIXES
bsd-pax.tar $ALL_SUFFIXES
bsd-odc.cpio $ALL_SUFFIXES
oldgnu.tar gz
ustar.tar gz
v7.tar gz
bsd-ustar.tar gz
bsd-paxr.tar gz
bsd-gnutar.tar gz
bsd-v7.tar gz
bsd-newc.cpio gz
cpio-newc.cpio gz
cpio-crc.cpio gz
cpio-odc.cpio gz
cpio-bin.cpio gz
sparse-gnu.tar gz
sparse-posix.tar gz
sparse-bsd.tar gz
EOF
# compressor SUFFIX: the command line that makes SUFFIX.
compressor() {
	for c in $COMPRESSORS; do
		if [ "${c%%:*}" = "$1" ]; then
			echo "${c#*:}" | tr : ' '
			return
		fi
	done
}
# All compressions run at once, one job per archive; then each result is
# added in order.  (compress(1) exits 2 when it saved nothing.)
while read -r name sufs; do
	[ -f "$A/$name" ] || continue
	(for suf in $sufs; do
		cmd=$(compressor $suf)
		have "${cmd%% *}" && $cmd <"$A/$name" >"$A/$name.$suf" \
		    2>"$T/err.$name.$suf"
	done) &
done <"$T/clist"
wait
while read -r name sufs; do
	kind=$(awk -v n="$name" '$1 == n { print $2 }' "$T/list")
	[ -n "$kind" ] || continue
	for suf in $sufs; do
		cmd=$(compressor $suf)
		if ! have "${cmd%% *}"; then
			skip "$name.$suf: no ${cmd%% *}"
			continue
		fi
		cp "$T/err.$name.$suf" "$T/err"
		add "$name.$suf" "$kind"
	done
done <"$T/clist"

# Real archives 1: a Debian package.  A cached one with relative
# symlinks only (an absolute one is refused by design), else `hello`
# from the archive, else one built here.
DEB=
pick_deb() {
	# Smallest first; the names have no blanks.
	# shellcheck disable=SC2045
	for d in $(ls -S -r /var/cache/apt/archives/*.deb 2>/dev/null); do
		[ "$(stat -c %s "$d")" -ge 20000 ] || continue
		dpkg-deb -c "$d" >"$T/debls" 2>/dev/null || continue
		grep -q '^l' "$T/debls" || continue
		grep -q ' -> /' "$T/debls" && continue
		[ "$(grep -c '^-' "$T/debls")" -ge 4 ] || continue
		DEB=$d
		return
	done
}
if have dpkg-deb && have ar; then
	pick_deb
	if [ -z "$DEB" ] && have apt-get; then
		mkdir "$T/dl"
		(cd "$T/dl" && timeout 30 apt-get download -q hello) \
		    >/dev/null 2>"$T/err"
		for d in "$T/dl"/*.deb; do
			[ -f "$d" ] && DEB=$d
		done
	fi
	if [ -z "$DEB" ]; then
		b=$T/debsrc
		mkdir -p "$b/DEBIAN" "$b/usr/bin" "$b/usr/share/doc/compat" \
		    "$b/usr/lib/compat"
		printf 'Package: compat\nVersion: 1.0\nArchitecture: all\n%s\n%s\n' \
		    'Maintainer: compat <compat@example.org>' \
		    'Description: compat.sh test package' >"$b/DEBIAN/control"
		printf '#!/bin/sh\necho compat\n' >"$b/usr/lib/compat/run"
		chmod 755 "$b/usr/lib/compat/run"
		ln -s ../lib/compat/run "$b/usr/bin/compat"
		mkfile "$b/usr/share/doc/compat/README" 500
		gzip -9n -c "$b/usr/share/doc/compat/README" \
		    >"$b/usr/share/doc/compat/changelog.gz"
		dpkg-deb --root-owner-group -b "$b" "$T/compat.deb" \
		    >/dev/null 2>&1 && DEB=$T/compat.deb
	fi
fi
if [ -n "$DEB" ]; then
	echo "note: Debian package: ${DEB##*/}"
	mkdir "$T/deb"
	cp "$DEB" "$A/package.deb"
	add package.deb lib
	(cd "$T/deb" && ar x "$DEB")
	for f in "$T/deb"/data.tar*; do
		cp "$f" "$A/deb-${f##*/}"
		add "deb-${f##*/}" tar
	done
	dpkg-deb --fsys-tarfile "$DEB" >"$A/deb-fsys.tar"
	add deb-fsys.tar tar
else
	skip "Debian package: no .deb, no dpkg-deb or no ar"
fi

# Real archives 2: an npm package, packed by npm (else as npm packs:
# "package/" and the files, no directory entries).
NPMSRC=$T/npm/package
mkdir -p "$NPMSRC/lib/util" "$NPMSRC/bin"
cat >"$NPMSRC/package.json" <<'EOF'
{
  "name": "compat-pkg",
  "version": "1.2.3",
  "description": "compat.sh test package",
  "main": "lib/index.js",
  "bin": { "compat-pkg": "bin/cli.js" },
  "files": ["lib", "bin"],
  "license": "MIT"
}
EOF
printf 'module.exports = require("./util/helpers.js");\n' \
    >"$NPMSRC/lib/index.js"
mkfile "$NPMSRC/lib/util/helpers.js" 3000
printf '#!/usr/bin/env node\nrequire("../lib");\n' >"$NPMSRC/bin/cli.js"
chmod 755 "$NPMSRC/bin/cli.js"
mkfile "$NPMSRC/README.md" 200
NPMTGZ=
if have npm; then
	mkdir "$T/npm/home" "$T/npm/out"
	(cd "$NPMSRC" && HOME=$T/npm/home npm_config_cache=$T/npm/cache \
	    npm_config_update_notifier=false npm_config_fund=false \
	    npm_config_audit=false timeout 60 npm pack --silent \
	    --pack-destination "$T/npm/out") >/dev/null 2>&1
	for f in "$T/npm/out"/*.tgz; do
		[ -f "$f" ] && NPMTGZ=$f
	done
fi
if [ -n "$NPMTGZ" ]; then
	cp "$NPMTGZ" "$A/npm-pack.tgz"
else
	skip "npm pack: no npm or it failed; the tarball is made by tar"
	(cd "$T/npm" && find package ! -type d | sort |
	    tar -c -z --no-recursion --owner=0 --group=0 --numeric-owner \
	    --mtime='1985-10-26 08:15:00' -T - -f "$A/npm-pack.tgz")
fi
add npm-pack.tgz tar

# --- comparing -------------------------------------------------------------

# manifest DIR OUT: one line per path below DIR, "path TAB type TAB mode
# TAB uid:gid TAB mtime TAB inode TAB link target TAB blocks", and
# OUT.sum with the sha1 of each regular file.
manifest() {
	(cd "$1" && find . -mindepth 1 \
	    -printf '%P\t%y\t%m\t%U:%G\t%T@\t%i\t%l\t%b\n' | sort) >"$2"
	(cd "$1" && find . -type f -exec sha1sum {} +) >"$2.sum"
}

# names LISTING STRIP: the member names of a -tf listing, without a
# trailing '/' or a leading './', with STRIP leading components removed
# as the extractors do; sorted.
names() {
	awk -v strip="$2" '{
		n = $0
		sub(/^(\.\/)+/, "", n)
		sub(/\/+$/, "", n)
		for (i = 0; i < strip; i++)
			if (!sub(/^[^\/]*\/+/, "", n))
				n = ""
		if (n != "" && n != ".")
			print n
	}' "$1" | sort -u
}

ASPECTS="paths type content symlink hardlink mtime mode owner"

# compare LABEL REF OUT EXPLICIT KEEP [REFDIR OUTDIR]: compare the
# manifests REF and OUT (see manifest).  EXPLICIT lists the names the
# archive holds (see names); KEEP is the octal mode bits pfextract keeps.
# One comparison per aspect in $ASPECTS (plus holes if $HOLES names a
# file).  With REFDIR and OUTDIR, a differing file's first differing byte
# is shown.
compare() {
	awk -F'\t' -v keep="$5" -v aspects="$ASPECTS" -v holes="${HOLES-}" \
	    -v lmtime="${LMTIME-}" '
	function oct(s,   n, i) {
		n = 0
		for (i = 1; i <= length(s); i++)
			n = n * 8 + substr(s, i, 1)
		return n
	}
	function band(a, b,   r, bit) {
		r = 0
		bit = 1
		while (a > 0 && b > 0) {
			if (a % 2 == 1 && b % 2 == 1)
				r += bit
			a = int(a / 2)
			b = int(b / 2)
			bit *= 2
		}
		return r
	}
	function diff(aspect, path, want, got) {
		count[aspect]++
		if (count[aspect] <= 3) {
			msg[aspect] = msg[aspect] sep[aspect] path \
			    ": expected " want ", got " got
			sep[aspect] = "; "
		}
		if (aspect == "content")
			cfiles[++ncf] = path
	}
	FILENAME == ARGV[1] { rsum[substr($0, 45)] = substr($0, 1, 40); next }
	FILENAME == ARGV[2] { osum[substr($0, 45)] = substr($0, 1, 40); next }
	FILENAME == ARGV[3] { explicit[$0] = 1; next }
	FILENAME == ARGV[4] {
		rpaths[++nr] = $1
		rt[$1] = $2; rm[$1] = $3; ro[$1] = $4; rmt[$1] = $5
		ri[$1] = $6; rl[$1] = $7; rb[$1] = $8
		if ($2 == "f" && (!($6 in rlead) || $1 < rlead[$6]))
			rlead[$6] = $1
		next
	}
	{
		opaths[++no] = $1
		ot[$1] = $2; om[$1] = $3; oo[$1] = $4; omt[$1] = $5
		oi[$1] = $6; ol[$1] = $7; ob[$1] = $8
		if ($2 == "f" && (!($6 in olead) || $1 < olead[$6]))
			olead[$6] = $1
	}
	END {
		for (i = 1; i <= no; i++)
			if (!(opaths[i] in rt))
				diff("paths", opaths[i], "absent", "present")
		for (i = 1; i <= nr; i++) {
			p = rpaths[i]
			if (!(p in ot)) {
				diff("paths", p, "present", "absent")
				continue
			}
			if (rt[p] != ot[p]) {
				diff("type", p, rt[p], ot[p])
				continue
			}
			if (rt[p] == "f" && rsum[p] != osum[p])
				diff("content", p, "sha1 " rsum[p], \
				    "sha1 " osum[p])
			if (rt[p] == "l" && rl[p] != ol[p])
				diff("symlink", p, "-> " rl[p], "-> " ol[p])
			if (rt[p] == "f" && rlead[ri[p]] != olead[oi[p]])
				diff("hardlink", p, "linked with " \
				    rlead[ri[p]], "linked with " olead[oi[p]])
			if (ro[p] != oo[p])
				diff("owner", p, ro[p], oo[p])
			if (rt[p] == "l") {
				if (lmtime != "" && rmt[p] != omt[p])
					diff("symlink-mtime", p, rmt[p], omt[p])
				continue
			}
			if (rt[p] == "d" && !(p in explicit)) {
				if (om[p] != "755")
					diff("mode", p, "755 (implicit)", om[p])
				continue
			}
			if (rmt[p] != omt[p])
				diff("mtime", p, rmt[p], omt[p])
			want = sprintf("%o", band(oct(rm[p]), oct(keep)))
			if (want != om[p])
				diff("mode", p, want " (" rm[p] " & " keep ")", \
				    om[p])
		}
		for (i = 1; i <= ncf && i <= 3; i++)
			print "cmp\t" cfiles[i]
		n = split(aspects, as, " ")
		if (lmtime != "")
			as[++n] = "symlink-mtime"
		if (holes != "") {
			as[++n] = "holes"
			if (!(holes in ob) || ob[holes] > rb[holes] + 64)
				diff("holes", holes, "at most " rb[holes] + 64 \
				    " blocks", ob[holes] " blocks")
		}
		for (i = 1; i <= n; i++) {
			a = as[i]
			if (!(a in count)) {
				print "ok"
				continue
			}
			more = count[a] > 3 ? "; (" count[a] - 3 " more)" : ""
			print "bad\t" a ": " msg[a] more
		}
	}' "$2.sum" "$3.sum" "$4" "$2" "$3" >"$T/verdict"
	cmps=
	while IFS='	' read -r v text; do
		case $v in
		ok) ok ;;
		bad)	case $text in
			content:*) text="$text$cmps" ;;
			esac
			bad "$1: $text" ;;
		cmp)	if [ $# -ge 7 ] && [ -f "$6/$text" ] &&
			    [ -f "$7/$text" ]; then
				cmps="$cmps; $(cmp "$6/$text" "$7/$text" 2>&1 |
				    head -1 | sed "s|$6/||; s|$7/||")"
			fi ;;
		esac
	done <"$T/verdict"
}

# fresh DIR...: empty directories.
fresh() {
	for d in "$@"; do
		if [ -d "$d" ]; then
			chmod -R u+rwx "$d"
			rm -rf "$d"
		fi
		mkdir "$d"
	done
}

# gnu_decomp ARCHIVE: GNU tar's option to read ARCHIVE's compression.
gnu_decomp() {
	case $1 in
	*.gz | *.tgz) echo -z ;;
	*.bz2) echo -j ;;
	*.xz) echo -J ;;
	*.lzma) echo --lzma ;;
	*.zst) echo --zstd ;;
	*.lz4) echo --use-compress-program=lz4 ;;
	*.lz) echo --lzip ;;
	*.Z) echo -Z ;;
	esac
}

# reference KIND ARCHIVE DIR [OPTION...]: extract ARCHIVE into DIR with
# the reference extractor, and list its names into DIR.list.
reference() {
	kind=$1 arch=$2 dir=$3
	shift 3
	if [ "$kind" = tar ]; then
		dz=$(gnu_decomp "$arch")
		tar -x $dz -p --no-same-owner --delay-directory-restore \
		    --warning=no-timestamp "$@" -f "$arch" -C "$dir" \
		    2>"$T/referr"
		rc=$?
		tar -t $dz -f "$arch" >"$dir.list" 2>>"$T/referr"
	else
		bsdtar -x -p --no-same-owner "$@" -f "$arch" -C "$dir" \
		    2>"$T/referr"
		rc=$?
		bsdtar -t -f "$arch" >"$dir.list" 2>>"$T/referr"
	fi
	if [ $rc -ne 0 ]; then
		case $arch in
		# libarchive hands GNU ar's long-name table "//" over as an
		# entry; bsdtar then fails to write it as ".", after the rest.
		*.a) grep -qv "Can't replace existing directory\|leading '/'\|Error exit delayed" \
		    "$T/referr" || return 0 ;;
		esac
		echo "note: the reference failed on ${arch##*/}:" \
		    "$(head -3 "$T/referr" | tr '\n' ' ')"
	fi
}

# status LABEL WANT GOT: the exit status check.
status() {
	if [ "$3" -eq "$2" ]; then
		ok
	else
		bad "$1: exit: expected $2, got $3:" \
		    "$(head -3 "$T/err" | tr '\n' ' ')"
	fi
}

# list_check LABEL REFLIST ARCHIVE: pfextract -tf prints the same names.
list_check() {
	"$PFX" -tf "$3" >"$T/pl" 2>"$T/err"
	rc=$?
	names "$2" 0 >"$T/want"
	names "$T/pl" 0 >"$T/got"
	if [ $rc -eq 0 ] && cmp -s "$T/want" "$T/got"; then
		ok
		return
	fi
	d=$(diff "$T/want" "$T/got" | grep '^[<>]' | head -3 | tr '\n' ' ')
	bad "$1: list: exit $rc, expected 0 ($(head -1 "$T/err"));" \
	    "names (< only in tar's, > only in pfextract's): $d"
}

selected() {
	# shellcheck disable=SC2254 # a pattern, on purpose
	case $1 in
	${COMPAT_ONLY-*}) return 0 ;;
	esac
	return 1
}

# Every archive, read from a file.  The reference's manifest, listing and
# names are kept in $M/NAME.* for the checks after.
while read -r name kind; do
	selected "$name" || continue
	fresh "$R" "$O"
	reference "$kind" "$A/$name" "$R"
	cp "$R.list" "$M/$name.list"
	names "$R.list" 0 >"$M/$name.explicit"
	manifest "$R" "$M/$name.ref"
	"$PFX" -xf "$A/$name" -C "$O" --symlinks=contain 2>"$T/err"
	status "$name" 0 $?
	manifest "$O" "$M/out"
	# KEEP 755 = 07777 & ~07022: setuid, setgid, sticky and group and
	# other write cleared, as documented (see the top of this file).
	# The holes of the sparse file; on one archive, the mtimes of
	# symlinks, which tar restores too.
	HOLES='' LMTIME=''
	case $name in
	sparse-*) HOLES=sparse/holey ;;
	posix.tar) LMTIME=1 ;;
	esac
	compare "$name" "$M/$name.ref" "$M/out" "$M/$name.explicit" 755 \
	    "$R" "$O"
	HOLES='' LMTIME=''
	list_check "$name" "$R.list" "$A/$name"
done <"$T/list"

# The harness itself: GNU tar's extraction of the pax archive is the
# source tree (modes, mtimes to the nanosecond, links), ownership aside.
if selected posix.tar; then
	manifest "$S" "$M/src"
	ASPECTS="paths type content symlink hardlink mtime mode" \
	    compare "harness: GNU tar's posix.tar is the source tree" \
	    "$M/src" "$M/posix.tar.ref" "$M/posix.tar.explicit" 7777
fi

# again NAME LABEL WANT KEEP COMMAND: run COMMAND by sh -c (with $PFX,
# $ARCH the archive $A/NAME and $OUT the empty destination), expect exit
# WANT, and compare with NAME's reference tree.
again() {
	name=$1 label=$2 want=$3 keep=$4 cmd=$5
	[ -f "$M/$name.ref" ] || return 0
	fresh "$O"
	ARCH=$A/$name OUT=$O PFX=$PFX sh -c "$cmd" >"$T/stdout" 2>"$T/err"
	status "$label" "$want" $?
	manifest "$O" "$M/out"
	compare "$label" "$M/$name.ref" "$M/out" "$M/$name.explicit" "$keep"
}

# --- pipes -----------------------------------------------------------------

again gnu.tar.gz 'cat gnu.tar.gz | pfextract -xzf -' 0 755 \
    'cat "$ARCH" | "$PFX" -xzf - -C "$OUT" --symlinks=contain'
again posix.tar.zst 'pfextract -xf - < posix.tar.zst' 0 755 \
    '"$PFX" -xf - -C "$OUT" --symlinks=contain <"$ARCH"'
again bsd-pax.tar.xz 'pfextract -x -C out < bsd-pax.tar.xz (no -f)' 0 755 \
    '"$PFX" -x -C "$OUT" --symlinks=contain <"$ARCH"'
again gnu.tar.lz4 'cat gnu.tar.lz4 | pfextract -xf -' 0 755 \
    'cat "$ARCH" | "$PFX" -xf - -C "$OUT" --symlinks=contain'
again posix.tar.bz2 'cat posix.tar.bz2 | pfextract -xjf -' 0 755 \
    'cat "$ARCH" | "$PFX" -xjf - -C "$OUT" --symlinks=contain'
again bsd-odc.cpio.Z 'cat bsd-odc.cpio.Z | pfextract -xf -' 0 755 \
    'cat "$ARCH" | "$PFX" -xf - -C "$OUT" --symlinks=contain'
again npm-pack.tgz 'curl ... | pfextract -xzf - (npm tarball)' 0 755 \
    'cat "$ARCH" | "$PFX" -xzf - -C "$OUT" --symlinks=contain'
# A zip on a pipe is read from its local headers only, without the
# central directory's modes and symlink flags: compare with bsdtar on a
# pipe too.
if selected bsd-deflate.zip && [ -f "$A/bsd-deflate.zip" ]; then
	fresh "$R"
	# shellcheck disable=SC2002 # a pipe, on purpose
	cat "$A/bsd-deflate.zip" | bsdtar -x -p --no-same-owner -f - -C "$R" \
	    2>"$T/referr" || echo "note: bsdtar failed on a zip on a pipe:" \
	    "$(head -2 "$T/referr" | tr '\n' ' ')"
	manifest "$R" "$M/zpipe.ref"
	cp "$M/bsd-deflate.zip.explicit" "$M/zpipe.explicit"
	cp "$A/bsd-deflate.zip" "$A/zpipe"
	again zpipe 'cat bsd-deflate.zip | pfextract -xf -' 0 755 \
	    'cat "$ARCH" | "$PFX" -xf - -C "$OUT" --symlinks=contain'
fi

# --- permissions and owners ------------------------------------------------

# -p keeps sticky and group/other write, and clears setuid and setgid
# without --same-owner; with it (root only) every bit and the owners are
# the archive's, as GNU tar -p --same-owner makes them.
again posix.tar 'pfextract -p' 0 1777 \
    '"$PFX" -p -xf "$ARCH" -C "$OUT" --symlinks=contain'
if $ROOT && selected posix.tar; then
	fresh "$R"
	reference tar "$A/posix.tar" "$R" --same-owner
	manifest "$R" "$M/owned.ref"
	cp "$M/posix.tar.explicit" "$M/owned.explicit"
	cp "$A/posix.tar" "$A/owned"
	again owned 'pfextract -p --same-owner (posix.tar)' 0 7777 \
	    '"$PFX" -p --same-owner -xf "$ARCH" -C "$OUT" --symlinks=contain'
fi

# --- --strip-components ----------------------------------------------------

# strip NAME KIND N: pfextract --strip-components=N against the
# reference's --strip-components=N.
strip() {
	name=$1 kind=$2 n=$3
	selected "$name" || return 0
	fresh "$R"
	reference "$kind" "$A/$name" "$R" --strip-components=$n
	names "$R.list" $n >"$M/s.explicit"
	manifest "$R" "$M/s.ref"
	cp "$A/$name" "$A/s"
	again s "$name --strip-components=$n" 0 755 \
	    '"$PFX" -xf "$ARCH" -C "$OUT" --symlinks=contain --strip-components='$n
	rm -f "$A/s"
}
strip npm-pack.tgz tar 1
strip gnu.tar tar 1
strip bsd-odc.cpio.gz lib 1

# --- duplicate names -------------------------------------------------------

# An archive with a newer copy of a file appended (tar -r, tar -u): the
# later entry wins.
if selected dup.tar && [ -f "$A/gnu.tar" ]; then
	cp "$A/gnu.tar" "$A/dup.tar"
	mkdir -p "$T/dup/tree/sizes"
	mkfile "$T/dup/tree/README" 777
	mkfile "$T/dup/tree/sizes/one" 3
	stamp "2023-01-02 03:04:05" "$T/dup/tree/README" "$T/dup/tree/sizes/one"
	chmod 600 "$T/dup/tree/README"
	(cd "$T/dup" && tar -r --format=gnu -f "$A/dup.tar" tree/README \
	    tree/sizes/one)
	fresh "$R"
	reference tar "$A/dup.tar" "$R"
	names "$R.list" 0 >"$M/dup.tar.explicit"
	manifest "$R" "$M/dup.tar.ref"
	again dup.tar 'dup.tar (newer copies appended by tar -r)' 0 755 \
	    '"$PFX" -xf "$ARCH" -C "$OUT" --symlinks=contain'
fi
# A file, then a directory of the same name with a file in it (as
# --strip-components can make of tree/x/b and tree/y/b/): the directory
# replaces the file, as in tar.
if selected dirfile.tar; then
	mkdir -p "$T/df1/x" "$T/df2/x/b"
	mkfile "$T/df1/x/b" 10
	mkfile "$T/df2/x/b/f" 20
	stamp "2018-01-01 00:00:01" "$T/df1/x/b" "$T/df2/x/b/f"
	stamp "2018-01-01 00:00:02" "$T/df1/x" "$T/df2/x/b" "$T/df2/x"
	(cd "$T/df1" && tar -cf "$A/dirfile.tar" --no-recursion x x/b)
	(cd "$T/df2" && tar -rf "$A/dirfile.tar" x/b)
	fresh "$R"
	reference tar "$A/dirfile.tar" "$R"
	names "$R.list" 0 >"$M/dirfile.tar.explicit"
	manifest "$R" "$M/dirfile.tar.ref"
	again dirfile.tar 'dirfile.tar (x/b a file, then x/b/ a directory)' \
	    0 755 '"$PFX" -xf "$ARCH" -C "$OUT" --symlinks=contain'
fi

# --- the default, --symlinks=refuse -----------------------------------------

# The tree without its symlinks, exit 1, and one refusal per link on
# standard error that names --symlinks=contain.
if selected gnu.tar; then
	awk -F'\t' '$2 != "l"' "$M/gnu.tar.ref" >"$M/nolinks.ref"
	cp "$M/gnu.tar.ref.sum" "$M/nolinks.ref.sum"
	cp "$M/gnu.tar.explicit" "$M/nolinks.explicit"
	cp "$A/gnu.tar" "$A/nolinks"
	again nolinks 'pfextract (default --symlinks=refuse) gnu.tar' 1 755 \
	    '"$PFX" -xf "$ARCH" -C "$OUT"'
	want=$(awk -F'\t' '$2 == "l"' "$M/gnu.tar.ref" | wc -l)
	got=$(grep -c -- '--symlinks=contain' "$T/err")
	if [ "$want" -eq "$got" ] && [ "$(wc -l <"$T/err")" -eq "$want" ]; then
		ok
	else
		bad "default --symlinks=refuse: expected $want refusals" \
		    "naming --symlinks=contain, got $got in" \
		    "$(wc -l <"$T/err") lines: $(head -2 "$T/err" | tr '\n' ' ')"
	fi
fi

# --- member operands, against GNU tar ---------------------------------------

# like_tar LABEL ARG...: in $T/ops (or $LIKE_DIR), `pfextract ARG...`
# prints what `tar ARG...` prints, on standard output and on standard error ("tar:" read
# as "pfextract:", GNU tar's closing "Exiting with failure status" line
# aside), and exits as it does.
like_tar() {
	label=$1
	shift
	(cd "${LIKE_DIR-$T/ops}" && tar "$@") >"$T/tout" 2>"$T/terr"
	trc=$?
	(cd "${LIKE_DIR-$T/ops}" && "$PFX" "$@") >"$T/pout" 2>"$T/perr"
	prc=$?
	sed -e 's/^tar: /pfextract: /' \
	    -e '/^pfextract: Exiting with failure status/d' \
	    "$T/terr" >"$T/twant"
	same_as_tar "$label" "$T/twant"
}

# same_as_tar LABEL WANT: exit statuses $trc and $prc are one, standard
# outputs $T/tout and $T/pout the same, and pfextract's standard error
# $T/perr is WANT.
same_as_tar() {
	if [ $prc -eq $trc ] && cmp -s "$T/tout" "$T/pout" &&
	    cmp -s "$2" "$T/perr"; then
		ok
	else
		bad "$1: tar exit $trc, pfextract $prc;" \
		    "tar: $(cat "$T/tout" "$2" | head -4 | tr '\n' ' ')" \
		    "pfextract: $(cat "$T/pout" "$T/perr" | head -4 | tr '\n' ' ')"
	fi
}

# Operands are names unless --wildcards comes before them; "./x" and "x"
# are two names; a trailing '/' goes; a directory selects what it holds.
if selected operands; then
	mkdir -p "$T/ops/src/pkg/sub" "$T/ops/src/usr/share/doc"
	for f in pkg/package.json pkg/sub/x usr/share/doc/r 'st*r' file1; do
		echo "$f" >"$T/ops/src/$f"
	done
	(cd "$T/ops/src" && tar -cf ../plain.tar pkg usr 'st*r' file1 &&
	    tar -cf ../dot.tar ./pkg ./usr ./file1)
	for arch in plain.tar dot.tar; do
		for op in pkg/package.json ./pkg/package.json pkg pkg/ \
		    ./pkg pkg// usr/share/doc/ 'pk*' 'st*r' 'st\*r' \
		    '*/package.json' nothere; do
			like_tar "tar -tf $arch '$op'" -tf "$arch" "$op"
			like_tar "tar -tf $arch --wildcards '$op'" -tf "$arch" \
			    --wildcards "$op"
		done
		like_tar "tar -tf $arch 'pk*' --wildcards (after)" -tf \
		    "$arch" 'pk*' --wildcards
		like_tar "tar -tf $arch --wildcards 'pk*' --no-wildcards" \
		    -tf "$arch" --wildcards 'pk*' --no-wildcards
		like_tar "tar -tf $arch --no-wildcards 'pk*'" -tf "$arch" \
		    --no-wildcards 'pk*'
		# --exclude sees "./" as GNU tar does on these names; a
		# pattern with "./" on names without is left out (GNU tar
		# never matches it, pfextract anchors it: see match.c).
		for x in file1 'pkg/sub' '*/x' '*/file1' '.*' '*'; do
			like_tar "tar -tf $arch --exclude='$x'" -tf "$arch" \
			    --exclude="$x"
		done
	done
	for x in './*1' ./file1 ./pkg ./pkg/sub/x './/file1' './pk*' \
	    './*/x'; do
		like_tar "tar -tf dot.tar --exclude='$x'" -tf dot.tar \
		    --exclude="$x"
		rm -rf "$T/ops/r" "$T/ops/p" && mkdir "$T/ops/r" "$T/ops/p"
		like_tar "tar -xf dot.tar --exclude='$x'" -xf dot.tar \
		    --exclude="$x" -C r
		(cd "$T/ops/r" && find . | sort) >"$T/twant"
		"$PFX" -xf "$T/ops/dot.tar" --exclude="$x" -C "$T/ops/p" \
		    2>/dev/null
		(cd "$T/ops/p" && find . | sort) >"$T/pgot"
		if cmp -s "$T/twant" "$T/pgot"; then ok; else
			bad "tar -xf dot.tar --exclude='$x': the trees differ:" \
			    "$(diff "$T/twant" "$T/pgot" | grep '^[<>]' |
			    head -3 | tr '\n' ' ')"
		fi
	done
fi

# -k over existing files: GNU tar reports each, extracts the rest and
# exits 2; --skip-old-files is silent and exits 0.  The messages differ.
if selected operands; then
	for how in -k --keep-old-files --skip-old-files; do
		for d in r p; do
			rm -rf "$T/ops/$d" && mkdir -p "$T/ops/$d/pkg"
			echo old >"$T/ops/$d/pkg/package.json"
			echo old >"$T/ops/$d/file1"
		done
		(cd "$T/ops" && tar -xf plain.tar $how -C r) 2>"$T/terr"
		trc=$?
		(cd "$T/ops" && "$PFX" -xf plain.tar $how -C p) 2>"$T/perr"
		prc=$?
		(cd "$T/ops/r" && find . -type f -exec sh -c \
		    'printf "%s %s\n" "$1" "$(cat "$1")"' sh {} \; | sort) \
		    >"$T/twant"
		(cd "$T/ops/p" && find . -type f -exec sh -c \
		    'printf "%s %s\n" "$1" "$(cat "$1")"' sh {} \; | sort) \
		    >"$T/pgot"
		if [ $prc -eq $trc ] && cmp -s "$T/twant" "$T/pgot" &&
		    [ "$(wc -l <"$T/perr")" -eq \
		    "$(grep -vc 'Exiting with failure' "$T/terr")" ]; then
			ok
		else
			bad "tar -xf plain.tar $how over existing files:" \
			    "tar exit $trc, pfextract $prc;" \
			    "$(diff "$T/twant" "$T/pgot" | head -3 | tr '\n' ' ')" \
			    "$(head -2 "$T/perr" | tr '\n' ' ')"
		fi
	done
fi

# --- issue 19 section 5: run as tar, it speaks as GNU tar -------------------

# as_tar LABEL SETUP ARG...: in a fresh directory prepared by the shell
# function SETUP, pfextract run under the name tar (a symlink first in
# PATH, so that argv[0] is "tar", as GNU tar's is) prints byte for byte
# what `tar ARG...` prints on standard output and standard error, GNU
# tar's closing "Exiting with failure status" line included, and exits
# as it does.
as_tar() {
	label=$1
	setup=$2
	shift 2
	for d in r p; do
		rm -rf "$T/as/$d" && mkdir -p "$T/as/$d" &&
		    (cd "$T/as/$d" && $setup)
	done
	(cd "$T/as/r" && tar "$@") >"$T/tout" 2>"$T/terr"
	trc=$?
	(cd "$T/as/p" && PATH=$T/astar:$PATH tar "$@") >"$T/pout" 2>"$T/perr"
	prc=$?
	same_as_tar "as tar: $label" "$T/terr"
}

# tty_x PATH ERR: `tar -x` found in PATH, standard input a pty, standard
# error to ERR; its exit status.
tty_x() {
	PATH=$1 python3 -c 'import pty, subprocess, sys
m, s = pty.openpty()
r = subprocess.run(["tar", "-x"], stdin=s, stdout=subprocess.DEVNULL,
    stderr=open(sys.argv[1], "wb"))
sys.exit(r.returncode)' "$2"
}

as_none() { :; }
as_old() { mkdir -p pkg && echo old >pkg/package.json && echo old >file1; }
as_incr() {
	tar -g snar -xf "$T/as/i0.tar" && cp "$T/as/snar0" snar
}
as_newer() { echo newer >file1 && touch -d '2030-01-01' file1; }

if selected astar; then
	mkdir -p "$T/astar" "$T/as/src/dirA" "$T/as/src/pkg/sub"
	ln -s "$PFX" "$T/astar/tar"
	(cd "$T/as" && echo p >src/pkg/package.json && echo x >src/pkg/sub/x &&
	    echo 1 >src/file1 && (cd src && tar -cf ../plain.tar pkg file1) &&
	    awk 'BEGIN { for (i = 0; i < 511; i++) printf "%c", 97 + i % 23 }' \
	    >junk && : >empty &&
	    echo a >src/dirA/a && echo b >src/dirA/b &&
	    (cd src && tar -g ../snar0 -cf ../i0.tar dirA && cp ../snar0 \
	    ../snar1 && rm dirA/a && tar -g ../snar1 -cf ../i1.tar dirA))
	# -k over existing files, an operand not found: the failure named
	# at the end, exit 2.
	as_tar "-k" as_old -xf ../plain.tar -k
	as_tar "-xvf -k" as_old -xvf ../plain.tar --keep-old-files
	as_tar "not found" as_none -tf ../plain.tar nothere ./file1
	# No archive: junk, an empty file, a missing one.
	as_tar "junk" as_none -tf ../junk
	as_tar "junk -x" as_none -xf ../junk
	as_tar "empty" as_none -xvf ../empty
	as_tar "missing archive" as_none -tf ../nope.tar
	# GNU tar's usage errors: its words, its pointer to --help, exit 2.
	as_tar "--occurrence" as_none --occurrence -tf ../plain.tar
	as_tar "-tW" as_none -tWf ../plain.tar
	as_tar "-xW" as_none -x --verify -f ../plain.tar
	# Its other usage errors, in words of pfextract's own: a value it
	# refuses, -x with -t, -f twice, are its exit 2 too; argp's (an
	# unknown option, a missing value) 64.
	for args in "-x" "-f plain.tar" "--strip-components=-1" \
	    "--quoting-style=x" "--totals=SIGX" "--format=x" "--backup=x" \
	    "--occurrence=x pkg" "--checkpoint=x" "--bogus" "--file"; do
		# shellcheck disable=SC2086 # words, on purpose
		(cd "$T/as" && tar -tf plain.tar $args) >/dev/null 2>&1
		trc=$?
		# shellcheck disable=SC2086
		(cd "$T/as" && PATH=$T/astar:$PATH tar -tf plain.tar $args) \
		    >/dev/null 2>"$T/err"
		status "as tar: $args" $trc $?
	done
	# No -f and standard input a terminal: GNU tar's fatal error, its
	# words, exit 2 (pfextract's own name: a usage error, 64).
	if command -v python3 >/dev/null 2>&1; then
		tty_x "$PATH" "$T/as/r.err"
		trc=$?
		tty_x "$T/astar:$PATH" "$T/as/p.err"
		prc=$?
		if [ $trc -eq $prc ] && cmp -s "$T/as/r.err" "$T/as/p.err"; then
			ok
		else
			bad "as tar: -x from a terminal: tar exit $trc," \
			    "pfextract $prc: $(head -1 "$T/as/p.err")"
		fi
	fi
	# -v and -vv print what tar prints (no sandbox line), --backup's
	# "Renaming", -g's "Deleting", --keep-newer-files' warning.
	as_tar "-xvvf" as_none -xvvf ../plain.tar
	as_tar "--backup -v" as_old -xvf ../plain.tar --backup
	as_tar "--backup=numbered -v" as_old -xvf ../plain.tar \
	    --backup=numbered
	as_tar "-g -v Deleting" as_incr -g snar -xvf ../i1.tar
	as_tar "--keep-newer-files" as_newer -xf ../plain.tar \
	    --keep-newer-files
	# The other lines that name the program.
	as_tar "--checkpoint" as_none -tf ../plain.tar --checkpoint=1
	as_tar "--checkpoint-action=echo" as_none -tf ../plain.tar \
	    --checkpoint=1 --checkpoint-action=echo
	as_tar "wildcards warning" as_none -tf ../plain.tar 'pk*'
	# Run by a path, it is named by that path, as GNU tar is.
	(cd "$T/as" && "$(command -v tar)" -tf junk) 2>&1 |
	    sed "s#^$(command -v tar):#NAME:#" >"$T/twant"
	(cd "$T/as" && "$T/astar/tar" -tf junk) 2>&1 |
	    sed "s#^$T/astar/tar:#NAME:#" >"$T/pgot"
	if cmp -s "$T/twant" "$T/pgot"; then ok; else
		bad "as tar by its path: $(head -2 "$T/pgot" | tr '\n' ' ')"
	fi
	# Under its own name: "pfextract:", none of tar's closing lines.
	(cd "$T/as" && "$PFX" -tf junk) >/dev/null 2>"$T/err"
	if [ "$(cut -c1-11 "$T/err")" = "pfextract: " ]; then ok; else
		bad "pfextract -tf junk: $(cat "$T/err")"
	fi
fi

# --- issue 19: -O, transforms, -T, --occurrence, --one-top-level -----------

# xo_tree DIR: each path below DIR with its type, link target and the
# sha1 of its content.
xo_tree() {
	(cd "$1" && find . -mindepth 1 -printf '%y %p -> %l\n' | sort &&
	    find . -type f -exec sha1sum {} + | sort -k 2)
}

# like_tar_tree LABEL ARG...: in $T/xo, `tar -C r ARG...` and `pfextract
# -C p ARG... --symlinks=contain` make the same tree and exit alike.
like_tar_tree() {
	label=$1
	shift
	rm -rf "$T/xo/r" "$T/xo/p" && mkdir "$T/xo/r" "$T/xo/p"
	# GNU tar's -C is positional: first, so that it covers every member.
	(cd "$T/xo" && tar -C r "$@") >/dev/null 2>"$T/terr"
	trc=$?
	(cd "$T/xo" && "$PFX" -C p "$@" --symlinks=contain) >/dev/null \
	    2>"$T/perr"
	prc=$?
	xo_tree "$T/xo/r" >"$T/twant"
	xo_tree "$T/xo/p" >"$T/pgot"
	if [ $prc -eq $trc ] && cmp -s "$T/twant" "$T/pgot"; then ok; else
		bad "$label: tar exit $trc, pfextract $prc;" \
		    "$(diff "$T/twant" "$T/pgot" | grep '^[<>]' | head -3 |
		    tr '\n' ' ')" "$(head -2 "$T/perr" | tr '\n' ' ')"
	fi
}

if selected xopts; then
	LIKE_DIR=$T/xo
	mkdir -p "$T/xo/src/d/sub" "$T/xo/s2/top" "$T/xo/s2/x" "$T/xo/oc"
	echo hello >"$T/xo/src/d/a"
	echo world >"$T/xo/src/b"
	echo deep >"$T/xo/src/d/sub/c"
	ln -s b "$T/xo/src/sl"
	ln -s d/a "$T/xo/src/d2"
	ln "$T/xo/src/b" "$T/xo/src/hl"
	echo 1 >"$T/xo/s2/top/f"
	echo 2 >"$T/xo/s2/x/g"
	echo 3 >"$T/xo/s2/topx"
	(cd "$T/xo" && tar -cf x.tar -C src . && tar -cf n.tar -C src b d sl &&
	    tar -cf pkg-1.0.tar -C s2 top x topx &&
	    gzip -c pkg-1.0.tar >pkg-1.0.tar.gz && cp pkg-1.0.tar.gz p.tgz &&
	    tar -cf dot.tar -C s2 ./top ./x)
	(cd "$T/xo/oc" && echo one >f && tar -cf ../occ.tar f &&
	    echo two >f && tar -rf ../occ.tar f && echo three >f &&
	    tar -rf ../occ.tar f && echo g >g && tar -rf ../occ.tar g)

	# -O: the data in archive order; -v names on standard error.
	for args in "-xOf x.tar" "-xvOf x.tar" "-xOf x.tar ./d/a ./b" \
	    "-xOf x.tar ./nothere" "--to-stdout -xf n.tar d"; do
		like_tar "tar $args" $args
	done
	# --format, -H: ignored when reading, as GNU tar; an unknown one is
	# an error (GNU tar exits 2, pfextract 64: usage).
	for args in "-tf x.tar --format=gnu" "-tf x.tar -H pax" \
	    "-tf x.tar --format ustar" "-tf x.tar --forma=v7" \
	    "-xOf n.tar -H oldgnu b"; do
		like_tar "tar $args" $args
	done
	"$PFX" -tf "$T/xo/x.tar" --format=zip >/dev/null 2>"$T/err"
	status "pfextract --format=zip" 64 $?

	# --transform: the same tree as GNU tar, link targets included.
	for x in 's/b/B/' 's,^\./d,dir,' 's/(h)l/\1L/x' 's/a/A/g' \
	    's/[a-z]/X/2' 's/hl/HL/;s/sl/SL/' 's/b/B/S' 's/b/B/H' \
	    's/b/B/R' 's|^|pre/|' 's/\.\///' 's/D/Q/i' \
	    's/\(h\)\(l\)/\u\2\1/' 's/S/Z/g'; do
		like_tar_tree "tar -xf x.tar --transform='$x'" -xf x.tar \
		    --transform="$x"
	done
	like_tar_tree "tar -xf x.tar --xform twice" -xf x.tar \
	    --xform='s/b/B/' --xform='s/B/C/'
	like_tar_tree "tar -xf x.tar --transform --strip-components=1" \
	    -xf x.tar --transform='s,^\./,./top/,' --strip-components=1
	for args in "-tf x.tar --transform=s/b/B/" \
	    "-tf x.tar --transform=s/b/B/ --show-transformed-names" \
	    "-tvf x.tar --transform=s/b/B/ --show-transformed-names" \
	    "-xvf x.tar --transform=s/b/B/ --show-transformed-names -O"; do
		like_tar "tar $args" $args
	done
	"$PFX" -xf "$T/xo/x.tar" -C "$T/xo" --transform='s/\(a\)\1/b/' \
	    >/dev/null 2>"$T/err"
	status "--transform with a back-reference" 64 $?
	# bsdtar's -s, against bsdtar.
	for x in '/b/B/' ',^\./d,dir,' '/\(h\)l/\1~L/' '/a/A/g' '/b/B/S' \
	    '/b/B/H' ',^\./d.*,,'; do
		rm -rf "$T/xo/r" "$T/xo/p" && mkdir "$T/xo/r" "$T/xo/p"
		(cd "$T/xo" && bsdtar -xf x.tar -s "$x" -C r) 2>/dev/null
		trc=$?
		(cd "$T/xo" && "$PFX" -xf x.tar -s "$x" --symlinks=contain \
		    -C p) 2>/dev/null
		prc=$?
		xo_tree "$T/xo/r" >"$T/twant"
		xo_tree "$T/xo/p" >"$T/pgot"
		if [ $prc -eq $trc ] && cmp -s "$T/twant" "$T/pgot"; then ok
		else
			bad "bsdtar -xf x.tar -s '$x': bsdtar exit $trc," \
			    "pfextract $prc;" "$(diff "$T/twant" "$T/pgot" |
			    grep '^[<>]' | head -3 | tr '\n' ' ')"
		fi
	done
	# Two -s rules: only the first that matches applies, as bsdtar.
	rm -rf "$T/xo/r" "$T/xo/p" && mkdir "$T/xo/r" "$T/xo/p"
	(cd "$T/xo" && bsdtar -xf x.tar -s /b/B/ -s /B/C/ -s /hl/H/ -C r)
	(cd "$T/xo" && "$PFX" -xf x.tar -s /b/B/ -s /B/C/ -s /hl/H/ \
	    --symlinks=contain -C p)
	xo_tree "$T/xo/r" >"$T/twant"
	xo_tree "$T/xo/p" >"$T/pgot"
	if cmp -s "$T/twant" "$T/pgot"; then ok; else
		bad "bsdtar -s, three rules: the trees differ"
	fi
	# GNU tar's -s (--preserve-order) takes no argument.
	like_tar "tar -xsOf x.tar ./b" -xsOf x.tar ./b
	like_tar "tar -x -s -Of x.tar ./b" -x -s -Of x.tar ./b

	# -T, --null, --verbatim-files-from.
	printf './b\n\n./d/a\n./nothere\n' >"$T/xo/list"
	printf './b\000./d/a\000' >"$T/xo/nlist"
	printf -- '-x\n' >"$T/xo/dlist"
	for args in "-tf x.tar -T list" "-tf x.tar --files-from=list" \
	    "-tf x.tar --null -T nlist" "-xOf x.tar -T list" \
	    "-tf x.tar --verbatim-files-from -T dlist" \
	    "-tf x.tar --wildcards -T list"; do
		like_tar "tar $args" $args
	done
	(cd "$T/xo" && tar -tf x.tar -T - <list) >"$T/tout" 2>/dev/null
	trc=$?
	(cd "$T/xo" && "$PFX" -tf x.tar -T - <list) >"$T/pout" 2>/dev/null
	prc=$?
	if [ $prc -eq $trc ] && cmp -s "$T/tout" "$T/pout"; then ok; else
		bad "tar -tf x.tar -T - (list on stdin): exit $trc, $prc"
	fi

	# --occurrence.
	for args in "-xOf occ.tar --occurrence f" \
	    "-xOf occ.tar --occurrence=2 f" "-xOf occ.tar --occurrence=3 f" \
	    "-tf occ.tar --occurrence=2 f" "-xOf occ.tar --occurrence=0 f"; do
		like_tar "tar $args" $args
	done
	like_tar_tree "tar -xf occ.tar --occurrence=2 f" -xf occ.tar \
	    --occurrence=2 f

	# --no-recursion, --recursion: positional, for the names after them.
	for args in "-tf x.tar --no-recursion ./d" "-tf x.tar ./d --no-recursion" \
	    "-tf x.tar --no-recursion ./d --recursion ./d/sub" \
	    "-tf x.tar --no-recursion ./d/" "-tf x.tar --no-recursion -T list" \
	    "-tf x.tar --no-ignore-case --wildcards-match-slash ./d"; do
		like_tar "tar $args" $args
	done

	# --one-top-level (no hard links: GNU tar 1.34 does not move their
	# targets, and fails them).
	for a in pkg-1.0.tar pkg-1.0.tar.gz p.tgz dot.tar n.tar; do
		like_tar_tree "tar -xf $a --one-top-level" -xf $a \
		    --one-top-level
		like_tar_tree "tar -xf $a --one-top-level=top" -xf $a \
		    --one-top-level=top
	done
	like_tar_tree "tar -xf pkg-1.0.tar --one-top-level=x --transform" \
	    -xf pkg-1.0.tar --one-top-level=x --transform='s/topx/y/'
	# GNU tar strips first, then puts the directory in front (an entry
	# with nothing left it makes the directory: pfextract skips it).
	for n in 1 2; do
		like_tar_tree "tar -xf dot.tar --one-top-level -p$n" \
		    -xf dot.tar --one-top-level=top --strip-components=$n
	done
	unset LIKE_DIR
fi

# --- options (issue 19 section 2): every tar option is known ---------------
# Every option GNU tar 1.34 lists in --help, and every one bsdtar 3.6 has
# (tests/bsdtar_options.txt), is known to pfextract: implemented, accepted
# and ignored, or refused with its reason -- never "unknown option".
# OPTS_PENDING: names other branches of issue 19 add (opts1, list, vol,
# root); empty it once they are all merged.
OPTS_PENDING=''
opt_known() {
	for o in $OPTS_PENDING; do
		[ "$o" = "$1" ] && return 0
	done
	timeout 10 "$PFX" -t -f /dev/null "$1" </dev/null >/dev/null \
	    2>"$T/oerr"
	if grep -qE "unknown option|is ambiguous" "$T/oerr"; then
		bad "option $1 ($2): $(head -1 "$T/oerr")"
	else
		ok
	fi
}
# --anchored, --ignore-case, --no-wildcards-match-slash and their --no-
# forms (issue 19): positional, for the --exclude and -X patterns and the
# member operands and -T names after them; exclude patterns default to
# not anchored, members to anchored; "testdir/dir1/*" does not match the
# entry "testdir/dir1/" (GNU's exclude08-exclude16 are of this kind).
if selected matching; then
	LIKE_DIR=$T/xo
	mkdir -p "$T/xo/mts/testdir/dir1/dir2" "$T/xo/mts/testdir/Dir3"
	for f in testdir/file1 testdir/dir1/file1 testdir/dir1/File2 \
	    testdir/dir1/dir2/file1 testdir/Dir3/x.C testdir/Dir3/y.c; do
		echo "$f" >"$T/xo/mts/$f"
	done
	(cd "$T/xo/mts" && tar -cf ../mt.tar testdir &&
	    tar -cf ../mtdot.tar ./testdir)
	for opt in "" --anchored --no-anchored --ignore-case \
	    --no-wildcards-match-slash "--ignore-case --anchored" \
	    "--no-wildcards-match-slash --no-anchored --ignore-case"; do
		for x in file1 FILE1 'dir1/*' 'testdir/*' 'testdir/dir1/*' \
		    '*/file1' testdir/dir1 'testdir/*/file1' 'dir?' '*.c' \
		    'testdir/D*' 'dir1/' '[d]ir2'; do
			for a in mt.tar mtdot.tar; do
				# shellcheck disable=SC2086 # $opt: words
				like_tar "tar -tf $a $opt --exclude='$x'" \
				    -tf $a $opt --exclude="$x"
			done
			# shellcheck disable=SC2086
			like_tar "tar -tf mt.tar --exclude='$x' $opt (after)" \
			    -tf mt.tar --exclude="$x" $opt
		done
		for m in testdir/dir1 TESTDIR/DIR1 dir1 file1 dir2/file1 \
		    'testdir/dir1/*' '*/file1' 'testdir/*/file1' 'testdir/*' \
		    'testdir/d*' 'T*/[d]*/F*'; do
			# shellcheck disable=SC2086
			like_tar "tar -tf mt.tar $opt '$m'" -tf mt.tar $opt "$m"
			# shellcheck disable=SC2086
			like_tar "tar -tf mt.tar $opt --wildcards '$m'" \
			    -tf mt.tar $opt --wildcards "$m"
			# shellcheck disable=SC2086
			like_tar "tar -tf mtdot.tar $opt --wildcards '$m'" \
			    -tf mtdot.tar $opt --wildcards "$m"
		done
		# Extraction, -X and -T: the same flags.
		printf '%s\n' 'dir1/*' FILE2 'x.c' >"$T/xo/mt.x"
		printf '%s\n' 'testdir/dir1/*' 'testdir/dir3' >"$T/xo/mt.t"
		# shellcheck disable=SC2086
		like_tar_tree "tar -xf mt.tar $opt --exclude='*/file1'" \
		    -xf mt.tar $opt --exclude='*/file1'
		# shellcheck disable=SC2086
		like_tar_tree "tar -xf mt.tar $opt -X mt.x" -xf mt.tar $opt \
		    -X mt.x
		# shellcheck disable=SC2086
		like_tar_tree "tar -xf mt.tar $opt --wildcards -T mt.t" \
		    -xf mt.tar $opt --wildcards -T mt.t
		# shellcheck disable=SC2086
		like_tar "tar -tf mt.tar $opt -T mt.t" -tf mt.tar $opt -T mt.t
	done
	# Each pattern keeps the flags in force where it stands.
	like_tar "tar -tf mt.tar --exclude=FILE1 --ignore-case --exclude=*.C" \
	    -tf mt.tar --exclude=FILE1 --ignore-case --exclude='*.C'
	like_tar "tar -tf mt.tar --anchored --exclude=file1 --no-anchored --exclude=File2" \
	    -tf mt.tar --anchored --exclude=file1 --no-anchored --exclude=File2
	like_tar "tar -tf mt.tar --ignore-case TESTDIR/FILE1 --no-ignore-case testdir/DIR3" \
	    -tf mt.tar --ignore-case TESTDIR/FILE1 --no-ignore-case testdir/DIR3
	like_tar "tar -tf mt.tar --no-anchored --anchored dir1 testdir/Dir3" \
	    -tf mt.tar --no-anchored --anchored dir1 testdir/Dir3
	unset LIKE_DIR
fi

if selected options; then
	tar --help | awk '/^ +-/ { sub(/^ +/, ""); split($0, w, /   +/);
	    print w[1] }' | grep -oE '(^|[ ,])--?[a-zA-Z?][-a-zA-Z0-9]*' |
	    sed 's/^[ ,]*//' | sort -u >"$T/gnuopts"
	if [ "$(wc -l <"$T/gnuopts")" -lt 150 ]; then
		bad "tar --help lists only $(wc -l <"$T/gnuopts") options"
	fi
	while read -r o; do
		opt_known "$o" "GNU tar --help"
	done <"$T/gnuopts"
	grep -v '^#' "$(dirname "$0")/bsdtar_options.txt" >"$T/bsdopts"
	while read -r o; do
		opt_known "$o" bsdtar
	done <"$T/bsdopts"
fi

# --- options that change what is read or written, against GNU tar -------
# opt_tree LABEL SETUP OPTIONS: make r/ and p/, run the shell function
# SETUP in each, extract $T/opt/$opt_arch (a.tar unless set) with OPTIONS
# by GNU tar into r/ and by pfextract into p/; the exit statuses and the
# trees (type, name, content, mode of directories) must be the same.
opt_arch=a.tar
opt_tree() {
	label=$1 setup=$2
	shift 2
	for d in r p; do
		chmod -R u+rwx "$T/opt/$d" 2>/dev/null
		rm -rf "$T/opt/$d" && mkdir "$T/opt/$d" &&
		    (cd "$T/opt/$d" && $setup)
	done
	(cd "$T/opt" && tar -xf "$opt_arch" -C r "$@") >/dev/null 2>&1
	trc=$?
	(cd "$T/opt" && "$PFX" -xf "$opt_arch" -C p "$@") >/dev/null \
	    2>"$T/perr"
	prc=$?
	for d in r p; do
		(cd "$T/opt/$d" && find . -mindepth 1 \( -type d -printf \
		    '%y %p %m\n' \) -o \( -type f -printf '%y %p ' -exec cat \
		    {} \; \) -o -printf '%y %p\n' | sort) >"$T/opt/$d.tree"
	done
	if [ $trc -eq $prc ] && cmp -s "$T/opt/r.tree" "$T/opt/p.tree"; then
		ok
	else
		bad "$label: tar exit $trc, pfextract $prc ($(head -1 \
		    "$T/perr")); $(diff "$T/opt/r.tree" "$T/opt/p.tree" |
		    grep '^[<>]' | head -3 | tr '\n' ' ')"
	fi
}
# opt_list LABEL ARCHIVE OPTIONS: the same -t listing and exit status.
opt_list() {
	label=$1 arch=$2
	shift 2
	(cd "$T/opt" && tar -tf "$arch" "$@" 2>/dev/null) >"$T/opt/twant"
	trc=$?
	(cd "$T/opt" && "$PFX" -tf "$arch" "$@" 2>"$T/perr") >"$T/opt/tgot"
	prc=$?
	if [ $trc -eq $prc ] && cmp -s "$T/opt/twant" "$T/opt/tgot"; then
		ok
	else
		bad "$label: tar -t exit $trc, pfextract $prc ($(head -1 \
		    "$T/perr")); $(diff "$T/opt/twant" "$T/opt/tgot" |
		    grep '^[<>]' | head -3 | tr '\n' ' ')"
	fi
}
setup_none() { :; }
setup_old() {
	echo existing >f && echo existing >keep && touch -d 2030-01-01 keep
}
setup_backups() { echo one >f && echo bak >f.~1~; }
setup_dir_in_way() { mkdir -p f/sub/deeper && echo x >f/sub/deeper/x; }
setup_dir_mode() { mkdir d && chmod 700 d; }
if selected options; then
	mkdir -p "$T/opt/s/d/.git" "$T/opt/s/d/CVS" "$T/opt/s/d/sub"
	(cd "$T/opt/s" && for f in f keep d/a 'd/a~' 'd/#x#' d/.#y \
	    d/.gitignore d/.git/config d/CVS/Entries d/_darcs d/sub/x \
	    '-dash'; do echo "$f" >"./$f"; done &&
	    touch -d 2020-01-01 keep d/a && chmod 755 d &&
	    tar -cf ../a.tar -- f keep d ./-dash &&
	    tar -cf ../b.tar d/sub &&
	    cat ../a.tar ../b.tar >../ab.tar)
	opt_list "-i" ab.tar -i
	opt_list "--ignore-zeros" ab.tar --ignore-zeros
	opt_list "without -i" ab.tar
	opt_list "--exclude-vcs" a.tar --exclude-vcs
	opt_list "--exclude-backups" a.tar --exclude-backups
	opt_list "-N DATE" a.tar -N 2021-01-01
	opt_list "--newer-mtime=DATE" a.tar --newer-mtime=2021-01-01
	opt_list "--after-date='DATE TIME'" a.tar '--after-date=2020-01-01 00:00:01'
	opt_list "-K member" a.tar -K d/.git
	# (operands before the starting member: see pfextract(1), BUGS)
	opt_list "-K member with operands" a.tar -K d/sub -- d/.git ./-dash
	opt_list "--add-file" a.tar --add-file=./-dash
	opt_tree "-i" setup_none -i
	opt_tree "--exclude-vcs" setup_none --exclude-vcs
	opt_tree "--exclude-backups" setup_none --exclude-backups
	opt_tree "--keep-newer-files" setup_old --keep-newer-files
	opt_tree "--backup=numbered" setup_backups --backup=numbered
	opt_tree "--backup (existing)" setup_backups --backup
	opt_tree "--backup=simple" setup_backups --backup=simple
	opt_tree "--backup --suffix" setup_old --backup --suffix=.orig
	opt_tree "--suffix alone" setup_old --suffix=.orig
	opt_tree "--backup=none" setup_old --backup=none
	opt_tree "--recursive-unlink" setup_dir_in_way --recursive-unlink
	opt_tree "--no-overwrite-dir" setup_dir_mode --no-overwrite-dir
	# A directory kept open for its entries (kept.c) replaced by a
	# file, and made again: the later entries go where GNU tar puts
	# them, never into the directory that went.
	mkdir -p "$T/opt/k/d/sub" && echo a >"$T/opt/k/d/sub/a" &&
	    (cd "$T/opt/k" && tar -cf ../k.tar d && rm -r d/sub &&
	    echo file >d/sub && tar -rf ../k.tar d/sub && rm d/sub &&
	    mkdir d/sub && echo b >d/sub/b && tar -rf ../k.tar d/sub &&
	    echo c >d/c && tar -rf ../k.tar d/c)
	opt_arch=k.tar
	opt_tree "kept directory replaced, --recursive-unlink" setup_none \
	    --recursive-unlink
	opt_arch=a.tar
	opt_tree "-U" setup_old -U
	opt_tree "--unlink-first" setup_old --unlink-first
	# Options of creation: accepted, and the tree is the plain one.
	for o in -B -b20 --blocking-factor=20 --record-size=10240 -S \
	    --sparse --force-local --one-file-system --exclude-caches \
	    --exclude-caches-all --exclude-tag=x --exclude-tag-all=x \
	    --exclude-vcs-ignores --restrict --no-ignore-command-error \
	    --ignore-command-error --owner=nobody --group=nogroup \
	    --mode=777 --mtime=2000-01-01 --sort=name --pax-option=x=y \
	    --posix --old-archive --atime-preserve \
	    --atime-preserve=system --check-links -l --no-auto-compress \
	    --hole-detection=raw --ignore-failed-read --no-check-device \
	    --check-device --seek --no-seek -n \
	    --hard-dereference --remove-files --numeric-owner \
	    --no-acls --no-selinux --no-xattrs --overwrite-dir \
	    --show-omitted-dirs --quoting-style=escape --no-unquote; do
		opt_tree "$o (accepted, changes nothing)" setup_none "$o"
	done
	# Refused, each with its reason, and nothing is extracted.
	for o in --acls --selinux --rsh-command=x --rmt-command=x -w \
	    --interactive --confirmation; do
		rm -rf "$T/opt/p" && mkdir "$T/opt/p"
		(cd "$T/opt" && "$PFX" -xf a.tar -C p "$o") 2>"$T/perr"
		prc=$?
		if [ $prc -eq 64 ] && grep -q 'is refused: ' "$T/perr" &&
		    [ -z "$(ls -A "$T/opt/p")" ]; then
			ok
		else
			bad "$o: exit $prc, expected 64 and a reason:" \
			    "$(head -1 "$T/perr")"
		fi
	done
fi

# --- incremental archives (-G, -g), against GNU tar --------------------------

# tree_of DIR: each path below DIR with its type and, for files, content.
tree_of() {
	(cd "$1" && find . -printf '%p %y\n' | sort &&
	    find . -type f -exec sha1sum {} + | sort)
}

# Levels 0 and 1 of `tar -g`, with files, directories and a file turned
# into a directory (and back) removed in between; each restored by GNU tar
# and by pfextract over a tree with strays in it, which go.  -v says what
# goes as tar says it ("tar:" read as "pfextract:", in the C locale).
if selected incremental; then
	I=$T/incr
	mkdir -p "$I/src/d/sub/deep" "$I/src/d/gonedir/x" "$I/src/d/f2d" \
	    "$I/src/e"
	for f in d/a d/gone d/sub/b d/sub/deep/c d/gonedir/x/y d/d2f/z \
	    e/keep; do
		mkdir -p "$I/src/$(dirname "$f")"
		echo "$f" >"$I/src/$f"
	done
	(cd "$I" && tar -cf l0.tar -g snap src) || bad "tar -g level 0"
	sleep 1
	rm -rf "$I/src/d/gone" "$I/src/d/gonedir" "$I/src/d/d2f" \
	    "$I/src/d/f2d" "$I/src/d/sub/deep/c"
	echo now a file >"$I/src/d/d2f"
	mkdir "$I/src/d/f2d" "$I/src/new"
	echo n >"$I/src/new/n"
	echo a2 >"$I/src/d/a"
	(cd "$I" && tar -cf l1.tar -g snap src) || bad "tar -g level 1"
	for g in '-g /dev/null' '--listed-incremental=snap' -G \
	    --incremental; do
		for d in r p; do
			rm -rf "$I/$d" && mkdir "$I/$d"
		done
		(cd "$I" && tar -xf l0.tar -C r && "$PFX" -xf l0.tar -C p) ||
		    bad "level 0 ($g)"
		for d in r p; do
			echo stray >"$I/$d/src/d/stray"
			mkdir -p "$I/$d/src/e/straydir/s"
			ln -s ../../../.. "$I/$d/src/d/up"
		done
		(cd "$I" && LC_ALL=C tar -xvf l1.tar $g -C r) >"$I/tout" \
		    2>"$I/terr"
		trc=$?
		(cd "$I" && LC_ALL=C "$PFX" -xvf l1.tar $g -C p) >"$I/pout" \
		    2>"$I/perr"
		prc=$?
		sed 's/^tar: /pfextract: /' "$I/tout" >"$I/twant"
		tree_of "$I/r" >"$I/rtree"
		tree_of "$I/p" >"$I/ptree"
		if [ $trc -eq $prc ] && cmp -s "$I/rtree" "$I/ptree" &&
		    cmp -s "$I/twant" "$I/pout"; then
			ok
		else
			bad "tar -xvf l1.tar $g over level 0: tar exit $trc," \
			    "pfextract $prc;" \
			    "$(diff "$I/rtree" "$I/ptree" | grep '^[<>]' |
			    head -3 | tr '\n' ' ')" \
			    "$(diff "$I/twant" "$I/pout" | grep '^[<>]' |
			    head -3 | tr '\n' ' ')"
		fi
	done
	# Listing: -tvv shows each dump directory's list, -tv does not.
	# (Standard output only: -vv also says what the sandbox holds.)
	for a in l0.tar l1.tar; do
		for g in '-g /dev/null' -G ''; do
			for v in -tvvf -tvf; do
				(cd "$I" && tar $v $a $g) >"$I/tout" 2>/dev/null
				(cd "$I" && "$PFX" $v $a $g) >"$I/pout" \
				    2>/dev/null
				if cmp -s "$I/tout" "$I/pout"; then ok; else
					bad "tar $v $a $g: the listings" \
					    "differ: $(diff "$I/tout" \
					    "$I/pout" | grep '^[<>]' |
					    head -3 | tr '\n' ' ')"
				fi
			done
		done
	done
fi

# Renamed directories between levels ('R'/'T' records): a cycle a->b->c->a
# (through tar's 'X' temporary), a directory moved up a hierarchy, one
# renamed with its subdirectories, a chain x->y while y->z; level 1
# restored over level 0 by GNU tar and by pfextract give the same tree.
if selected incremental; then
	R=$T/incr-rename
	mkdir -p "$R/src/a" "$R/src/b" "$R/src/c" "$R/src/h/deep/er" \
	    "$R/src/p/q/r" "$R/src/x" "$R/src/y"
	for f in a/fa b/fb c/fc h/deep/er/f p/q/r/f p/pf x/fx y/fy; do
		echo "$f" >"$R/src/$f"
	done
	(cd "$R" && tar -cf l0.tar -g snap src) || bad "tar -g level 0"
	sleep 1
	(cd "$R/src" && mv a t && mv c a && mv b c && mv t b &&
	    mv h/deep/er er && mv p p2 && mv y z && mv x y) ||
	    bad "renames between levels"
	(cd "$R" && tar -cf l1.tar -g snap src) || bad "tar -g level 1"
	rm -rf "$R/r" "$R/p" && mkdir "$R/r" "$R/p"
	(cd "$R" && tar -xf l0.tar -C r -g /dev/null &&
	    "$PFX" -xf l0.tar -C p -g /dev/null) || bad "level 0"
	(cd "$R" && tar -xf l1.tar -g /dev/null -C r) 2>"$R/terr"
	trc=$?
	(cd "$R" && "$PFX" -xf l1.tar -g /dev/null -C p) 2>"$R/perr"
	prc=$?
	tree_of "$R/r" >"$R/rtree"
	tree_of "$R/p" >"$R/ptree"
	if [ $trc -eq 0 ] && [ $prc -eq 0 ] && cmp -s "$R/rtree" "$R/ptree" &&
	    grep -q '^./src/b/fa f' "$R/ptree"; then
		ok
	else
		bad "tar -g renames: tar exit $trc, pfextract $prc" \
		    "$(head -1 "$R/perr")" \
		    "$(diff "$R/rtree" "$R/ptree" | grep '^[<>]' | head -3 |
		    tr '\n' ' ')"
	fi
	# -tvv shows the renames as tar does ('T' with no name for 'X').
	(cd "$R" && tar -tvvf l1.tar -g /dev/null) >"$R/tout" 2>/dev/null
	(cd "$R" && "$PFX" -tvvf l1.tar -g /dev/null) >"$R/pout" 2>/dev/null
	if cmp -s "$R/tout" "$R/pout" && grep -q '^X ' "$R/pout"; then
		ok
	else
		bad "tar -tvvf l1.tar -g (renames): the listings differ:" \
		    "$(diff "$R/tout" "$R/pout" | grep '^[<>]' | head -3 |
		    tr '\n' ' ')"
	fi
fi

# -H posix levels compressed by GNU tar with what libarchive decodes
# itself (bzip2, lz4, lzip): their dump lists (GNU.dumpdir pax records)
# are read through libarchive's filters staged on their own
# (extract/stage.c).  Level 1 restored with -G over level 0 and a stray,
# in the decoder process and in pfextract's own (--no-sandbox), from the
# file and from a pipe, gives GNU tar's tree: the file deleted between the
# levels and the stray are gone.  Through the same stage a bomb is still
# stopped by --max-ratio, counted on the compressed bytes; and a level
# compressed twice (bzip2 inside gzip), whose tar bytes are not kept,
# still stops the run.
if selected incremental; then
	X=$T/incr-posix
	for z in bz2:-j:bzip2 lz4:--use-compress-program=lz4:lz4 \
	    lz:--lzip:lzip; do
		sfx=${z%%:*} prog=${z##*:} copt=${z#*:} copt=${copt%:*}
		if ! have "$prog"; then
			skip "-G on -H posix .tar.$sfx: no $prog"
			continue
		fi
		mkdir -p "$X/$sfx/src/d/sub"
		for f in d/a d/gone d/sub/b; do
			echo "$f" >"$X/$sfx/src/$f"
		done
		(cd "$X/$sfx" && tar -g snap -H posix $copt -cf l0.tar.$sfx \
		    src) || bad "tar -g -H posix $copt level 0"
	done
	sleep 1
	for sfx in bz2 lz4 lz; do
		[ -f "$X/$sfx/l0.tar.$sfx" ] || continue
		case $sfx in
		bz2) copt=-j ;;
		lz4) copt=--use-compress-program=lz4 ;;
		lz) copt=--lzip ;;
		esac
		rm "$X/$sfx/src/d/gone" && echo new >"$X/$sfx/src/d/new"
		(cd "$X/$sfx" && tar -g snap -H posix $copt -cf l1.tar.$sfx \
		    src) || bad "tar -g -H posix $copt level 1"
		rm -rf "$X/$sfx/r" && mkdir "$X/$sfx/r"
		(cd "$X/$sfx" && tar $copt -xf l0.tar.$sfx -g /dev/null -C r &&
		    tar $copt -xf l1.tar.$sfx -g /dev/null -C r) ||
		    bad "tar -xg of the .tar.$sfx levels"
		tree_of "$X/$sfx/r" >"$X/$sfx/rtree"
		for how in file pipe; do
			for sb in --sandbox=auto --no-sandbox; do
				P=$X/$sfx/p
				rm -rf "$P" && mkdir "$P"
				"$PFX" -xf "$X/$sfx/l0.tar.$sfx" -G -C "$P" $sb ||
				    bad "pfextract -G $sb: level 0 .tar.$sfx"
				echo stray >"$P/src/d/stray"
				if [ $how = file ]; then
					"$PFX" -xf "$X/$sfx/l1.tar.$sfx" -G -C "$P" \
					    $sb 2>"$X/$sfx/perr"
				else
					cat "$X/$sfx/l1.tar.$sfx" | "$PFX" -xf - -G \
					    -C "$P" $sb 2>"$X/$sfx/perr"
				fi
				prc=$?
				tree_of "$P" >"$X/$sfx/ptree"
				if [ $prc -eq 0 ] &&
				    cmp -s "$X/$sfx/rtree" "$X/$sfx/ptree" &&
				    [ ! -e "$P/src/d/gone" ] &&
				    [ ! -e "$P/src/d/stray" ] &&
				    [ -f "$P/src/d/new" ]; then
					ok
				else
					bad "pfextract -xf l1.tar.$sfx -G $sb" \
					    "($how): exit $prc," \
					    "$(head -1 "$X/$sfx/perr")" \
					    "$(diff "$X/$sfx/rtree" \
					    "$X/$sfx/ptree" | grep '^[<>]' |
					    head -3 | tr '\n' ' ')"
				fi
			done
		done
	done
	if [ -f "$X/bz2/l1.tar.bz2" ]; then
		mkdir -p "$X/bomb/src" && truncate -s 100M "$X/bomb/src/z"
		(cd "$X/bomb" && tar -g snap -H posix -cjf b.tar.bz2 src) ||
		    bad "tar -g -H posix -cjf (bomb)"
		rm "$X/bomb/src/z"
		gzip -c "$X/bz2/l1.tar.bz2" >"$X/twice.tar.bz2.gz"
		for sb in --sandbox=auto --no-sandbox; do
			# From a pipe too: the decoder process's count is
			# then not capped by the input's size.  A listing
			# decodes what it skips, and is stopped as well.
			for how in -xf -xf- -tf-; do
				rm -rf "$X/bd" && mkdir "$X/bd"
				if [ $how = -xf ]; then
					"$PFX" -xf "$X/bomb/b.tar.bz2" -G \
					    -C "$X/bd" $sb 2>"$X/perr"
				else
					cat "$X/bomb/b.tar.bz2" | "$PFX" $how \
					    -G -C "$X/bd" $sb 2>"$X/perr" \
					    >/dev/null
				fi
				prc=$?
				if [ $prc -eq 2 ] &&
				    grep -q max-ratio "$X/perr"; then
					ok
				else
					bad "pfextract $how -G $sb on a" \
					    ".tar.bz2 bomb: exit $prc," \
					    "$(head -1 "$X/perr")"
				fi
			done
			rm -rf "$X/p2" && mkdir -p "$X/p2/src/d" &&
			    echo stray >"$X/p2/src/d/stray"
			"$PFX" -xf "$X/twice.tar.bz2.gz" -G -C "$X/p2" $sb \
			    2>"$X/perr"
			prc=$?
			if [ $prc -eq 2 ] && grep -q 'compressed twice' \
			    "$X/perr" && [ -e "$X/p2/src/d/stray" ]; then
				ok
			else
				bad "pfextract -G $sb on a .tar.bz2.gz level:" \
				    "exit $prc, $(head -1 "$X/perr")"
			fi
		done
	fi
fi

# A -H posix list over 1 MiB (16,000 names of 66 bytes: about 1.1 MB),
# which libarchive refuses to read as an extended header: the run stops
# with exit 2 and libarchive's reason, before the directory or its files
# are made and without touching the stray already there (the man page's
# limit); one name fewer per 16 and the list fits, so the level is
# restored and the stray purged.  GNU tar restores both.
if selected incremental; then
	X=$T/incr-biglist
	for n in 16000 14000; do
		rm -rf "$X/$n" && mkdir -p "$X/$n/src/d"
		(cd "$X/$n/src/d" && i=0 && while [ $i -lt $n ]; do
			echo >"nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn$i"
			i=$((i + 1))
		done)
		(cd "$X/$n" && tar -g snap -H posix -cf l.tar src) ||
		    bad "tar -g -H posix ($n names)"
		mkdir -p "$X/$n/p/src/d" && echo stray >"$X/$n/p/src/d/stray"
		"$PFX" -xf "$X/$n/l.tar" -G -C "$X/$n/p" 2>"$X/$n/perr"
		prc=$?
		got=$(find "$X/$n/p/src/d" -type f | wc -l)
		if [ $n = 16000 ] && [ $prc -eq 2 ] &&
		    grep -q 'Special header too large' "$X/$n/perr" &&
		    [ "$got" -eq 1 ] && [ -e "$X/$n/p/src/d/stray" ]; then
			ok
		elif [ $n = 14000 ] && [ $prc -eq 0 ] && [ "$got" -eq $n ] &&
		    [ ! -e "$X/$n/p/src/d/stray" ]; then
			ok
		else
			bad "pfextract -G on a -H posix list of $n names: exit" \
			    "$prc, $got files, $(head -1 "$X/$n/perr")"
		fi
	done
fi

# --- listings, against GNU tar 1.34 -----------------------------------------

# -tv byte for byte: a file, directories, a symlink, a hard link, a
# character device and a FIFO (as root), setuid and sticky bits, a long
# owner name, ids without names, a size past 4 GiB, old and future dates,
# (a sparse file: the archive stays small) and names tar quotes (UTF-8, newline, tab, backslash, DEL, 0x80, 0xff);
# with --numeric-owner, --full-time, --utc, -R, each --quoting-style, in
# the C locale and a UTF-8 one; names in messages ("x\:y"); --index-file;
# --totals's line (its speed aside); --checkpoint's default message.
if selected listing; then
	L=$T/ops/lsrc
	mkdir -p "$L/d" "$L/stk" && chmod 1777 "$L/stk"
	echo hi >"$L/a" && ln "$L/a" "$L/hl" && ln -s a "$L/sl"
	printf 'x' >"$L/suid" && chmod 4755 "$L/suid"
	: >"$L/old" && touch -d '1970-01-02 03:04:05' "$L/old"
	: >"$L/fut" && touch -d '2300-01-01 12:34:56' "$L/fut"
	truncate -s 5000000000 "$L/big"
	for n in 'u\303\251' 'nl\nx' 't\tb\\c\177\200\377' 'sp ace:"q"' \
	    "it's" "it's!" '#h' 'a#h' '{' 'q?'; do
		: >"$L/$(printf "$n")"
	done
	if $ROOT; then
		mknod "$L/cdev" c 4 5 && mkfifo "$L/ff"
		chown 123456:654321 "$L/a"
	fi
	(cd "$T/ops" && tar -S -cf lst.tar -C lsrc . &&
	    tar -cf lsto.tar --owner=averyveryverylongownername:1 \
	    --group=grp:2 -C lsrc d a)
	for o in "" --numeric-owner --full-time --utc -R "-R --full-time"; do
		for loc in C C.UTF-8; do
			LC_ALL=$loc like_tar "LC_ALL=$loc tar -tvf lst.tar $o" \
			    -tvf lst.tar $o
		done
	done
	like_tar "tar -tvf lsto.tar" -tvf lsto.tar
	like_tar "tar -tf lst.tar -R" -tf lst.tar -R
	for st in literal shell shell-always shell-escape \
	    shell-escape-always c c-maybe escape locale clocale; do
		LC_ALL=C.UTF-8 like_tar "tar --quoting-style=$st -tf lst.tar" \
		    --quoting-style=$st -tf lst.tar
	done
	like_tar "tar --quote-chars=ai -tf lst.tar" --quote-chars=ai \
	    -tf lst.tar
	like_tar "tar -tf lst.tar x:y" -tf lst.tar x:y
	(cd "$T/ops" && tar -tvf lst.tar --index-file=tidx >/dev/null &&
	    "$PFX" -tvf lst.tar --index-file=pidx >"$T/pout")
	if cmp -s "$T/ops/tidx" "$T/ops/pidx" && [ ! -s "$T/pout" ]; then
		ok
	else
		bad "tar -tvf lst.tar --index-file: the files differ"
	fi
	(cd "$T/ops" && tar -cf ck.tar -C lsrc d a suid)
	for op in -t -x; do
		rm -rf "$T/ops/xt" && mkdir "$T/ops/xt"
		(cd "$T/ops" && tar $op --totals -f ck.tar -C xt) \
		    2>&1 >/dev/null | grep '^Total' |
		    sed 's/, [^,]*\/s)$/)/' >"$T/twant"
		rm -rf "$T/ops/xt" && mkdir "$T/ops/xt"
		(cd "$T/ops" && "$PFX" $op --totals -f ck.tar -C xt \
		    --symlinks=contain) 2>&1 >/dev/null | grep '^Total' |
		    sed 's/, [^,]*\/s)$/)/' >"$T/pgot"
		if [ -s "$T/twant" ] && cmp -s "$T/twant" "$T/pgot"; then
			ok
		else
			bad "tar $op --totals: '$(cat "$T/twant")'" \
			    "pfextract: '$(cat "$T/pgot")'"
		fi
	done
	like_tar "tar --checkpoint=1 -tf ck.tar" --checkpoint=1 -tf ck.tar
fi

# --- issue 19: GNU volume labels (-V), against GNU tar ----------------------

# A label is listed by -t and -tv (gnu, oldgnu: a 'V' header; posix: a
# pax global header), said by -xv, never extracted; -V PATTERN checks it
# before anything is extracted: "Volume 'L' does not match 'P'", or
# "Archive not labeled to match 'P'", exit 2 (GNU tar adds "Error is not
# recoverable").  On a pipe and through gzip as from a file.
if selected labels; then
	mkdir -p "$T/lab/src" && echo hi >"$T/lab/src/f"
	for fmt in gnu oldgnu posix; do
		(cd "$T/lab/src" && tar --format=$fmt -cf ../$fmt.tar \
		    -V 'Vol 1' f && gzip -c ../$fmt.tar >../$fmt.tgz)
	done
	(cd "$T/lab/src" && tar -cf ../none.tar f)
	LIKE_DIR=$T/lab
	for a in gnu.tar oldgnu.tar posix.tar gnu.tgz none.tar; do
		like_tar "tar -tf $a (label)" -tf "$a"
		like_tar "tar -tvf $a (label)" -tvf "$a"
		like_tar "tar -tf $a f (label)" -tf "$a" f
		# A pax label only with the first entry listed; a 'V' always.
		like_tar "tar -tf $a nothere (label)" -tf "$a" nothere
		like_tar "tar -tvf $a --exclude=f (label)" -tvf "$a" --exclude=f
		rm -rf "$T/lab/x" && mkdir "$T/lab/x"
		like_tar "tar -xvf $a (label)" -xvf "$a" -C x
		for pat in 'Vol 1' 'V*' 'Vol ?' '[UV]ol 1'; do
			[ $a = none.tar ] ||
			    like_tar "tar -tf $a -V '$pat'" -tf "$a" -V "$pat"
		done
		# GNU tar's quotes are the locale's: 'P' in C.
		for pat in 'Vol 1' Vol 'vol 1' '*2'; do
			case $a:$pat in
			none.tar:* | *:Vol | *:vol* | *:?2) ;;
			*) continue ;;
			esac
			rm -rf "$T/lab/x" && mkdir "$T/lab/x"
			(cd "$T/lab" && LC_ALL=C tar -xf "$a" -V "$pat" -C x) \
			    2>"$T/terr" >/dev/null
			trc=$?
			(cd "$T/lab" && "$PFX" -xf "$a" -V "$pat" -C x) \
			    2>"$T/perr" >/dev/null
			prc=$?
			sed -n '1s/^tar: /pfextract: /p' "$T/terr" >"$T/twant"
			if [ $prc -eq $trc ] && cmp -s "$T/twant" "$T/perr" &&
			    [ -z "$(ls -A "$T/lab/x")" ]; then
				ok
			else
				bad "tar -xf $a -V '$pat': tar exit $trc," \
				    "pfextract $prc: $(cat "$T/perr")"
			fi
		done
	done
	for a in gnu.tar posix.tgz; do
		gzip -dcf <"$T/lab/$a" | tar -tvf - >"$T/twant" 2>&1
		"$PFX" -tvf - <"$T/lab/$a" >"$T/pgot" 2>&1
		if cmp -s "$T/twant" "$T/pgot"; then ok; else
			bad "cat $a | tar -tvf -: $(head -1 "$T/pgot")"
		fi
	done
	unset LIKE_DIR
fi

# --- issue 19: --test-label, against GNU tar ---------------------------------

# Only the label is read, and nothing is extracted.  Without operands it
# is said (its name; -v: a long line of a header made up for it), exit 0,
# and nothing for an unlabelled archive; with operands (labels, matched
# as member names: literal unless --wildcards, a leading directory too)
# silent, exit 0 when one matches, else 1, with -v the label and "Archive
# label mismatch", and GNU tar's wildcards warning.  No destination is
# needed.  From a pipe it is read to its end, as every successful run.
# A bzip2 archive is decompressed by libarchive, whose output pfextract
# does not see: its label cannot be read (GNU tar reads it), and -V
# cannot check it, with the decoder process too.
if selected testlabel; then
	mkdir -p "$T/tl/src" && echo hi >"$T/tl/src/f"
	for fmt in gnu oldgnu posix; do
		(cd "$T/tl/src" && tar --format=$fmt -cf ../$fmt.tar \
		    -V 'Vol 1' f)
	done
	(cd "$T/tl/src" && tar -cf ../dir.tar -V 'Vol/1' f &&
	    tar -cf ../none.tar f && gzip -c ../gnu.tar >../gnu.tgz &&
	    bzip2 -c ../gnu.tar >../gnu.tbz)
	LIKE_DIR=$T/tl
	for a in gnu.tar oldgnu.tar posix.tar gnu.tgz dir.tar none.tar; do
		for v in "" -v -vv; do
			for ops in "" "'Vol 1'" "'V*'" "--wildcards 'V*'" \
			    "nope 'Vol 1'" nope Vol "--ignore-case 'VOL 1'"; do
				eval "set -- $v $ops"
				like_tar "tar --test-label -f $a $v $ops" \
				    --test-label -f "$a" "$@"
			done
		done
	done
	unset LIKE_DIR
	# GNU tar enters a -C, and fails on one that does not exist;
	# pfextract needs none.
	(cd "$T/tl" && "$PFX" --test-label -f gnu.tar -C nowhere 'Vol 1') \
	    >"$T/tl/out" 2>&1 && [ ! -s "$T/tl/out" ] && ok ||
	    bad "pfextract --test-label -C nowhere: $(head -1 "$T/tl/out")"
	{ cat "$T/tl/gnu.tar"; head -c 4194304 /dev/zero; echo $? \
	    >"$T/tl/wrc"; } | "$PFX" --test-label -f - >"$T/tl/out" 2>&1
	prc=$?
	if [ $prc -eq 0 ] && [ "$(cat "$T/tl/wrc")" = 0 ] &&
	    [ "$(cat "$T/tl/out")" = "Vol 1" ]; then ok; else
		bad "cat gnu.tar zeros | pfextract --test-label -f -: exit" \
		    "$prc, writer $(cat "$T/tl/wrc"): $(head -1 "$T/tl/out")"
	fi
	for sb in "" --no-sandbox; do
		for how in "read:--test-label" "check:-t -V Vol*"; do
			"$PFX" ${how#*:} -f "$T/tl/gnu.tbz" $sb >/dev/null \
			    2>"$T/perr"
			prc=$?
			if [ $prc -eq 2 ] && grep -q "cannot ${how%%:*} the" \
			    "$T/perr"; then ok; else
				bad "pfextract ${how#*:} -f gnu.tbz $sb: exit" \
				    "$prc, $(head -1 "$T/perr")"
			fi
		done
	done
fi

# --- issue 19: -xv names entries in archive order, as GNU tar ---------------

# Symbolic links wait for the end of the run under --symlinks=contain and
# root (they are judged over the whole tree), but -v and -vv name each at
# its place in the archive, as GNU tar does: the same lines as GNU tar's
# for an archive mixing files, directories, links inside, a hard link,
# and a link whose name a later entry takes; a link refused at the end
# is named in its place and refused on standard error.
if selected verbose-order; then
	mkdir -p "$T/vo/src/d/e" && echo 1 >"$T/vo/src/a" &&
	    echo 2 >"$T/vo/src/d/e/b" && echo 3 >"$T/vo/src/z" &&
	    ln -s a "$T/vo/src/l1" && ln -s ../../a "$T/vo/src/d/e/l2" &&
	    ln -s d "$T/vo/src/dl" && ln -s dl/e "$T/vo/src/chain" &&
	    ln "$T/vo/src/z" "$T/vo/src/hard" && ln -s z "$T/vo/src/later" &&
	    mkdir "$T/vo/src2" && echo 4 >"$T/vo/src2/later" &&
	    ln -s /etc "$T/vo/src2/abs"
	(cd "$T/vo/src" && tar -cf ../a.tar a l1 d dl chain z hard later &&
	    tar -rf ../a.tar -C ../src2 later)
	(cd "$T/vo/src2" && tar -rf ../b.tar -C ../src a l1 -C ../src2 abs &&
	    tar -rf ../b.tar -C ../src z)
	for v in -xv -xvv; do
		for pol in contain root; do
			for who in r p; do
				rm -rf "$T/vo/$who" && mkdir "$T/vo/$who"
			done
			(cd "$T/vo" && tar $v -f a.tar -C r) >"$T/vo/want" 2>&1
			(cd "$T/vo" && "$PFX" $v -f a.tar -C p \
			    --symlinks=$pol) >"$T/vo/got" 2>&1
			if cmp -s "$T/vo/want" "$T/vo/got"; then ok; else
				bad "tar $v -f a.tar, --symlinks=$pol:" \
				    "$(diff "$T/vo/want" "$T/vo/got" |
				    grep '^[<>]' | head -3 | tr '\n' ' ')"
			fi
		done
	done
	rm -rf "$T/vo/p" && mkdir "$T/vo/p"
	(cd "$T/vo" && "$PFX" -xvf b.tar -C p --symlinks=contain) \
	    >"$T/vo/got" 2>"$T/vo/err"
	prc=$?
	if [ $prc -eq 1 ] && [ "$(tr '\n' ' ' <"$T/vo/got")" = "a l1 abs z " ] &&
	    grep -q '^pfextract: abs: ' "$T/vo/err"; then ok; else
		bad "pfextract -xvf b.tar --symlinks=contain: exit $prc," \
		    "$(tr '\n' ' ' <"$T/vo/got") $(head -1 "$T/vo/err")"
	fi
fi

# --- issue 19: GNU tar's positional -C, against GNU tar ----------------------

# A member binds to the -C before it (none: the current directory), a
# relative -C is beneath the one before, with no member the last -C
# holds all: the trees and exit statuses as GNU tar's.  Members bound to
# several directories need an archive that is a file: from a pipe,
# refused (64), nothing made.
if selected multidir; then
	mkdir -p "$T/md/src/d/s" && echo 1 >"$T/md/src/d/s/f" &&
	    echo 2 >"$T/md/src/e" && echo 3 >"$T/md/src/g"
	(cd "$T/md/src" && tar -cf ../a.tar d e g)
	# md_case ARCHIVE ARGS: GNU tar in r/, pfextract in p/, each with
	# x/y/z, y and z made; ARGS with /ABS for r/ or p/.  The exit
	# statuses and the trees (paths and link counts) must be the same.
	md_case() {
		mdarch=$1 mdargs=$2
		for who in r p; do
			rm -rf "$T/md/$who" && mkdir -p "$T/md/$who/x/y/z" \
			    "$T/md/$who/y" "$T/md/$who/z"
			set -- $(echo "$mdargs" | sed "s#/ABS#$T/md/$who#g")
			if [ $who = r ]; then
				(cd "$T/md/$who" && tar -xf "../$mdarch" "$@") \
				    2>/dev/null
			else
				(cd "$T/md/$who" && "$PFX" -xf "../$mdarch" "$@") \
				    2>/dev/null
			fi
			echo $? >"$T/md/$who.rc"
			(cd "$T/md/$who" && find . -printf '%p %n\n' | sort) \
			    >"$T/md/$who.tree"
		done
		if cmp -s "$T/md/r.rc" "$T/md/p.rc" &&
		    cmp -s "$T/md/r.tree" "$T/md/p.tree"; then
			ok
		else
			bad "tar -xf $mdarch $mdargs: tar exit $(cat "$T/md/r.rc")," \
			    "pfextract $(cat "$T/md/p.rc");" \
			    "$(diff "$T/md/r.tree" "$T/md/p.tree" | grep '^[<>]' |
			    head -3 | tr '\n' ' ')"
		fi
	}
	for args in '-C x d -C y e' '-C x d -C /ABS/z e g' 'e -C x g' \
	    '-C x -C y' '-C x d -C y -C z e' '-C x d/s -C y d e' \
	    '-C x e -C y nothere' '-C x g -C . e'; do
		md_case a.tar "$args"
	done
	# Hard links: GNU tar links to the target's name in the link's
	# own -C directory.  Two -C that are one directory are one run in
	# pfextract, so the link reaches its target there; the same trees
	# and statuses as GNU tar's.
	(cd "$T/md/src" && ln e hl && tar -cf ../h.tar e g hl)
	for args in '-C /ABS/x e -C /ABS/y g -C /ABS/x hl' \
	    '-C /ABS/x e -C /ABS/x/. hl' 'e -C . hl' '-C x e -C /ABS/x hl' \
	    '-C /ABS/x hl -C /ABS/y e -C /ABS/x e' \
	    '-C /ABS/x e -C /ABS/y hl -C /ABS/y e'; do
		md_case h.tar "$args"
	done
	# A link whose target went to another directory: GNU tar fails to
	# link (exit 2), pfextract refuses it saying why (exit 1); the
	# same tree.
	rm -rf "$T/md/p" && mkdir -p "$T/md/p/x" "$T/md/p/y"
	(cd "$T/md/p" && "$PFX" -xf ../h.tar -C x e -C ../y hl) 2>"$T/perr"
	prc=$?
	if [ $prc -eq 1 ] && [ -f "$T/md/p/x/e" ] &&
	    [ -z "$(ls -A "$T/md/p/y")" ] &&
	    grep -q 'hl: .*own -C directory' "$T/perr"; then ok; else
		bad "pfextract -xf h.tar -C x e -C ../y hl: exit $prc," \
		    "$(head -1 "$T/perr")"
	fi
	rm -rf "$T/md/p" && mkdir -p "$T/md/p/x" "$T/md/p/y"
	(cd "$T/md/p" && cat ../a.tar | "$PFX" -xf - -C x d -C y e) \
	    2>"$T/perr"
	prc=$?
	if [ $prc -eq 64 ] && grep -q 'read again' "$T/perr" &&
	    [ -z "$(find "$T/md/p/x" "$T/md/p/y" -mindepth 1)" ]; then
		ok
	else
		bad "cat a.tar | pfextract -xf - -C x d -C y e: exit $prc," \
		    "$(head -1 "$T/perr")"
	fi
fi

echo "compat: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
