#!/bin/sh
# root.sh -- --symlinks=root on real Debian packages (issue 19 §1).
#
# usage: sh tests/root.sh PFEXTRACT INROOT_CHECK
#
# Downloads a set of Debian 12 packages with absolute and merged-/usr
# links (apt-get download, into obj/debs/, skipped when they are there),
# builds a merged-/usr root (bin -> usr/bin, lib -> usr/lib, lib64 ->
# usr/lib64, sbin -> usr/sbin) and extracts every package's data into it,
# as dpkg unpacks them:
#	dpkg-deb --fsys-tarfile X.deb | pfextract --symlinks=root -xf - -C root
# once per resolver (openat2, walk).  Each run must exit 0.  Then:
#   - every symlink of the root resolves inside it with openat2's
#     RESOLVE_IN_ROOT (inroot_check), and the dynamic loader and zoneinfo
#     links resolve to regular files;
#   - the same packages extracted with GNU tar into a second merged root
#     (tar follows existing directory links) give the same tree: names,
#     types, link targets, sizes, modes, owners, mtimes of all but
#     directories, and contents.
# Without the network (or apt-get), the suite says so and FAILS: it
# never passes without having run.
set -u

pfx=${1:?usage: root.sh pfextract inroot_check}
check=${2:?usage: root.sh pfextract inroot_check}
cache=${ROOT_DEB_CACHE:-obj/debs}
PKGS="base-files bash coreutils dash libc6 libc-bin login openssl sudo \
systemd tzdata util-linux"
fail=0

now() { date +%s.%N; }
took() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f s", b - a }'; }
bad() { echo "root.sh: FAIL: $*" >&2; fail=1; }

for tool in apt-get dpkg-deb tar; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "root.sh: FAIL: $tool not found: this suite needs a" \
		    "Debian system (mk/deps.sh)" >&2
		exit 1
	fi
done

# The packages, downloaded once.
t0=$(now)
mkdir -p "$cache"
missing=""
for p in $PKGS; do
	set -- "$cache/${p}"_*.deb
	[ -f "$1" ] || missing="$missing $p"
done
if [ -n "$missing" ]; then
	# apt-get's _apt user may not write here; the download is plain.
	if ! (cd "$cache" && apt-get -q download $missing) >"$cache/log" \
	    2>&1; then
		cat "$cache/log" >&2
		echo "root.sh: FAIL: cannot download$missing with apt-get" \
		    "download (no network, or no package lists: run" \
		    "apt-get update as root): the suite did not run" >&2
		exit 1
	fi
fi
debs=""
for p in $PKGS; do
	set -- "$cache/${p}"_*.deb
	[ -f "$1" ] || { bad "$p: no .deb in $cache"; exit 1; }
	debs="$debs $1"
done
echo "root.sh: $(echo $PKGS | wc -w) packages ready ($(took "$t0"))"

T=$(mktemp -d "${TMPDIR:-/tmp}/pfx-root.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT INT TERM

merged() {
	mkdir -p "$1/usr/bin" "$1/usr/lib" "$1/usr/lib64" "$1/usr/sbin" &&
	ln -s usr/bin "$1/bin" && ln -s usr/lib "$1/lib" &&
	ln -s usr/lib64 "$1/lib64" && ln -s usr/sbin "$1/sbin"
}

# What is compared: everything but the mtimes of directories (each run
# sets those of the directories it made; tar also those it found) and
# of the four links made here.
listing() {
	(cd "$1" && find . \( -type d -printf '%p d %m %U %G\n' \) -o \
	    \( ! -type d -printf '%p %y %l %s %m %U %G %T@\n' \) | sort |
	    sed -E 's#^(\./(bin|lib|lib64|sbin) l usr/[a-z0-9]+ [0-9]+ 777 0 0) .*#\1#')
}
contents() {
	(cd "$1" && find . -type f -print0 | sort -z | xargs -0 md5sum)
}

# GNU tar's tree, the reference.
t0=$(now)
merged "$T/tar" || exit 1
for d in $debs; do
	dpkg-deb --fsys-tarfile "$d" |
	    tar -xpf - -C "$T/tar" --same-owner --keep-directory-symlink ||
	    bad "tar: $d"
done
listing "$T/tar" >"$T/tar.list"
contents "$T/tar" >"$T/tar.sum"
echo "root.sh: GNU tar: $(grep -c ' f ' "$T/tar.list") files," \
    "$(grep -c ' l ' "$T/tar.list") symlinks ($(took "$t0"))"

for res in openat2 walk; do
	r="$T/$res"
	t0=$(now)
	merged "$r" || exit 1
	for d in $debs; do
		dpkg-deb --fsys-tarfile "$d" >"$T/data.tar" ||
		    { bad "dpkg-deb: $d"; continue; }
		PFEXTRACT_RESOLVER=$res "$pfx" --symlinks=root -p \
		    --same-owner -xf "$T/data.tar" -C "$r" 2>"$T/err"
		rc=$?
		[ "$rc" -eq 0 ] || { cat "$T/err" >&2;
		    bad "$res: $(basename "$d"): exit $rc"; }
	done
	echo "root.sh: $res: extracted ($(took "$t0"))"
	out=$("$check" "$r" lib64/ld-linux-x86-64.so.2 \
	    /lib64/ld-linux-x86-64.so.2 usr/share/zoneinfo/UTC \
	    usr/share/zoneinfo/posixrules usr/share/zoneinfo/Zulu \
	    etc/os-release bin/sh) ||
	    bad "$res: a link does not resolve in the root"
	echo "root.sh: $res: $out"
	for l in bin lib lib64 sbin; do
		[ "$(readlink "$r/$l")" = "usr/$l" ] ||
		    bad "$res: $l is no longer the link to usr/$l"
	done
	listing "$r" >"$T/$res.list"
	if ! cmp -s "$T/tar.list" "$T/$res.list"; then
		diff "$T/tar.list" "$T/$res.list" | head -20 >&2
		bad "$res: the tree differs from GNU tar's"
	fi
	contents "$r" >"$T/$res.sum"
	cmp -s "$T/tar.sum" "$T/$res.sum" ||
	    bad "$res: contents differ from GNU tar's"
	grep -E ' l /' "$T/$res.list" >/dev/null ||
	    bad "$res: no absolute symlink was made"
done
echo "root.sh: $(grep -c ' l /' "$T/tar.list") absolute symlinks, as tar"

[ "$fail" -eq 0 ] && echo "root.sh: ok"
exit "$fail"
