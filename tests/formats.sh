#!/bin/sh
#
# formats.sh -- archives pfextract(1) reads as bsdtar does (issue 19 §6):
#   zip-padding  libarchive's own test_read_format_zip_extra_padding.zip
#                (its bytes below): zero-padded extra fields, and an end
#                of central directory record whose signature is damaged
#                ("\0K\5\6"), so that there is no directory to read it
#                by.  Read by its local headers, as from a pipe, with the
#                CRC and size checks; while a zip cut short anywhere (in
#                its directory, its end record) is still refused;
#   rpm          packages built by rpmbuild, payload gzip, xz and zstd:
#                the tree must be bsdtar's, from a file and from a pipe;
#   deb          --deb: the data.tar member of packages built by dpkg-deb
#                (gzip, xz, zstd, none) and of coreutils and tzdata
#                (apt-get download, when it can), against dpkg-deb -x;
#                an ar that is no package, or has no data.tar, refused.
#
# Usage: sh tests/formats.sh PATH_TO_PFEXTRACT
# Needs bsdtar, rpmbuild and dpkg-deb (sh mk/deps.sh installs them); prints
# "formats: N passed, M failed".

set -u

PFX=$1
case $PFX in
/*) ;;
*) PFX=$(pwd)/$PFX ;;
esac
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
skip=0

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# The listing compared: type, path, mode, link target; and contents.
tree_of() {
	(cd "$1" && find . -mindepth 1 -printf '%y %p %m %l\n' | sort &&
	    find . -type f -exec sha1sum {} + | sort -k2)
}

# same WHAT REF OUT: the two trees are the same, but for the group and
# other write bits, which pfextract clears (documented) and bsdtar keeps.
same() {
	find "$2" \( -type f -o -type d \) -exec chmod go-w {} +
	tree_of "$2" > "$T/ref.lst"
	tree_of "$3" > "$T/out.lst"
	if [ -s "$T/ref.lst" ] && cmp -s "$T/ref.lst" "$T/out.lst"; then
		ok
	else
		bad "$1: tree differs from the reference's:" \
		    "$(diff "$T/ref.lst" "$T/out.lst" | head -4)"
	fi
}

fresh() { rm -rf "$T/ref" "$T/out"; mkdir "$T/ref" "$T/out"; }

# --- zip: padded extra fields, no end record ---------------------------------

printf '%b' \
'\120\113\003\004\012\000\000\000\000\000\043\135\217\115\304\362' \
'\307\366\002\000\000\000\002\000\000\000\001\000\034\000\141\000' \
'\000\000\000\125\124\011\000\003\322\130\025\134\333\130\025\134' \
'\000\000\004\000\000\000\000\000\000\000\000\142\012\120\113\001' \
'\002\036\003\012\000\000\000\000\000\043\135\217\115\304\362\307' \
'\366\002\000\000\000\002\000\000\000\001\000\030\000\000\000\000' \
'\000\001\000\000\000\244\201\000\000\000\000\141\000\000\000\000' \
'\125\124\011\000\003\322\130\025\134\333\130\025\134\000\000\004' \
'\000\000\000\000\000\113\005\006\000\000\000\000\001\000\001\000' \
'\107\000\000\000\075\000\000\000\000\000' > "$T/pad.zip"

fresh
bsdtar -xf "$T/pad.zip" -C "$T/ref"
if "$PFX" -xf "$T/pad.zip" -C "$T/out" 2> "$T/err"; then
	same "zip-padding (file)" "$T/ref" "$T/out"
else
	bad "zip-padding (file): exit $?: $(cat "$T/err")"
fi
rm -rf "$T/out"; mkdir "$T/out"
if "$PFX" -xf - -C "$T/out" < "$T/pad.zip" 2> "$T/err"; then
	same "zip-padding (stdin, seekable)" "$T/ref" "$T/out"
else
	bad "zip-padding (stdin, seekable): exit $?: $(cat "$T/err")"
fi
rm -rf "$T/out"; mkdir "$T/out"
if cat "$T/pad.zip" | "$PFX" -xf - -C "$T/out" 2> "$T/err"; then
	same "zip-padding (pipe)" "$T/ref" "$T/out"
else
	bad "zip-padding (pipe): exit $?: $(cat "$T/err")"
fi

# Its CRC still counts: one data byte changed fails the entry.
sed 's/b$/c/' "$T/pad.zip" > "$T/badcrc.zip"
rm -rf "$T/out"; mkdir "$T/out"
"$PFX" -xf "$T/badcrc.zip" -C "$T/out" 2> "$T/err"
st=$?
if [ $st -eq 1 ] && [ ! -e "$T/out/a" ] &&
    grep -q "its data fails" "$T/err"; then
	ok
else
	bad "zip-padding, bad CRC: exit $st, want 1: $(cat "$T/err")"
fi
# Cut short: before its central directory (61: only the entry; a read
# error, as on a pipe), at the directory's end (132: no end record), in
# the end record (140): refused, never read by its local headers.
for c in 61 100 132 140; do
	head -c $c "$T/pad.zip" > "$T/cut.zip"
	rm -rf "$T/out"; mkdir "$T/out"
	"$PFX" -xf "$T/cut.zip" -C "$T/out" 2> "$T/err"
	st=$?
	if [ $st -eq 2 ]; then
		ok
	else
		bad "zip cut at byte $c: exit $st, want 2"
	fi
done

# --- zip: pfextract's own reader ---------------------------------------------
# A zip of the common kind is read by pfextract's reader (extract/zip.c),
# in the decoder process and without the sandbox: the tree is bsdtar's;
# a zip that contradicts itself is refused with the reader's own words,
# which libarchive has none of (it took the local header's name).
Z=$(cd "$(dirname "$0")" && pwd)/zip_make.py
if ! command -v python3 > /dev/null 2>&1; then
	skip=$((skip + 1))
	echo "skip: zip reader (no python3 for tests/zip_make.py)"
else
	mkdir -p "$T/zips/s/d"
	python3 "$Z" --hostile "$T/zips"
	seq 1 50000 > "$T/zips/s/d/n.txt"
	printf 'x\n' > "$T/zips/s/x"
	(cd "$T/zips/s" && bsdtar --format zip -cf "$T/zips/good.zip" .)
	for sb in --sandbox=auto --no-sandbox; do
		fresh
		bsdtar -xf "$T/zips/good.zip" -C "$T/ref"
		if "$PFX" $sb -xf "$T/zips/good.zip" -C "$T/out" 2> "$T/err"
		then
			same "zip reader ($sb)" "$T/ref" "$T/out"
		else
			bad "zip reader ($sb): exit $?: $(cat "$T/err")"
		fi
		for h in name-mismatch:'names another file' \
		    overlap-bomb:'overlapping members' \
		    more-entries:'more than the entries'; do
			fresh
			"$PFX" $sb -xf "$T/zips/hostile-${h%%:*}.zip" \
			    -C "$T/out" 2> "$T/err"
			st=$?
			if [ $st -eq 2 ] && grep -q "${h#*:}" "$T/err"; then
				ok
			else
				bad "zip ${h%%:*} ($sb): exit $st, want 2" \
				    "and '${h#*:}': $(cat "$T/err")"
			fi
		done
		# A symlink member whose data fails its CRC-32: no link is
		# made from it, and the member after it is.
		fresh
		"$PFX" $sb --symlinks=contain -xf \
		    "$T/zips/hostile-link-crc-lies-then-good.zip" -C "$T/out" \
		    2> "$T/err"
		st=$?
		if [ $st -eq 1 ] && grep -q "lnk: its data fails" "$T/err" &&
		    [ -s "$T/out/good.txt" ] && [ ! -e "$T/out/lnk" ] &&
		    [ ! -L "$T/out/lnk" ]; then
			ok
		else
			bad "zip link-crc-lies ($sb): exit $st, want 1 and" \
			    "good.txt: $(ls "$T/out") $(cat "$T/err")"
		fi
		# A member whose data fails its CRC-32 fails alone: never
		# given its name, and the members around it are made (exit
		# 1, as bsdtar; unzip goes on too).
		fresh
		"$PFX" $sb -xf "$T/zips/hostile-crc-lies.zip" -C "$T/out" \
		    2> "$T/err"
		st=$?
		if [ $st -eq 1 ] && grep -q "third.txt: its data fails" \
		    "$T/err" && [ -s "$T/out/first.txt" ] &&
		    [ -s "$T/out/second.txt" ] && [ ! -e "$T/out/third.txt" ]
		then
			ok
		else
			bad "zip crc-lies ($sb): exit $st, want 1, first and" \
			    "second made: $(ls "$T/out") $(cat "$T/err")"
		fi
		# An end record hidden in the end record's comment, with
		# a directory of its own: the zip is libarchive's, read by
		# the last end record as bsdtar and unzip read it.
		fresh
		bsdtar -xf "$T/zips/hostile-end-in-comment.zip" -C "$T/ref"
		if "$PFX" $sb -xf "$T/zips/hostile-end-in-comment.zip" \
		    -C "$T/out" 2> "$T/err"; then
			same "zip end record in a comment ($sb)" "$T/ref" \
			    "$T/out"
		else
			bad "zip end record in a comment ($sb): exit $?:" \
			    "$(cat "$T/err")"
		fi
	done
fi

# --- xar: in the command only when it links the shared libarchive -----------
# ARCHIVE_LINK (the Makefile's) says how the command was linked: static,
# it starts without libxml2, ICU and libstdc++, and refuses xar by name.
mkdir -p "$T/xsrc/d"
printf 'xar\n' > "$T/xsrc/d/a.txt"
bsdtar --format xar -cf "$T/a.xar" -C "$T/xsrc" d ||
    bad "xar: bsdtar cannot write one"
fresh
case ${ARCHIVE_LINK:-shared} in
static)
	"$PFX" --formats=xar -xf "$T/a.xar" -C "$T/out" 2> "$T/err"
	st=$?
	if [ $st -eq 2 ] && [ -z "$(ls -A "$T/out")" ] &&
	    grep -q "format xar is not in this build" "$T/err"; then ok
	else bad "xar, static: exit $st: $(cat "$T/err")"; fi
	if ldd "$PFX" > "$T/ldd" 2>&1 &&
	    ! grep -q -e libarchive -e libxml2 -e libicu -e libstdc "$T/ldd"
	then ok
	else bad "xar, static: the command loads: $(cat "$T/ldd")"; fi
	;;
*)
	bsdtar -xf "$T/a.xar" -C "$T/ref"
	if "$PFX" --formats=xar -xf "$T/a.xar" -C "$T/out" 2> "$T/err"
	then same "xar" "$T/ref" "$T/out"
	else bad "xar, shared: $(cat "$T/err")"; fi
	;;
esac

# --- rpm ---------------------------------------------------------------------

if ! command -v rpmbuild > /dev/null 2>&1; then
	skip=$((skip + 1))
	echo "skip: rpm (no rpmbuild; sh mk/deps.sh installs it)"
else
	mkdir -p "$T/rpm"
	cat > "$T/rpm/t.spec" <<'SPEC'
Name: pfxdemo
Version: 1.0
Release: 1
Summary: pfextract test package
License: MIT
BuildArch: noarch
%description
A package for tests/formats.sh.
%install
mkdir -p %{buildroot}/usr/share/pfxdemo/sub %{buildroot}/usr/bin
echo hello > %{buildroot}/usr/share/pfxdemo/hello.txt
head -c 70000 /dev/urandom > %{buildroot}/usr/share/pfxdemo/sub/blob
printf '#!/bin/sh\necho hi\n' > %{buildroot}/usr/bin/pfxdemo
chmod 755 %{buildroot}/usr/bin/pfxdemo
ln -s ../share/pfxdemo/hello.txt %{buildroot}/usr/bin/hello-link
%files
/usr/share/pfxdemo
/usr/bin/pfxdemo
/usr/bin/hello-link
SPEC
	for c in w9.gzdio w6.xzdio w19.zstdio; do
		rm -rf "$T/rpm/top"
		if ! rpmbuild -bb --define "_topdir $T/rpm/top" \
		    --define "_binary_payload $c" \
		    --define "_build_id_links none" \
		    "$T/rpm/t.spec" > "$T/rpm/log" 2>&1; then
			bad "rpm $c: rpmbuild failed: $(tail -2 "$T/rpm/log")"
			continue
		fi
		rpm=$T/rpm/$c.rpm
		mv "$T"/rpm/top/RPMS/noarch/*.rpm "$rpm"
		fresh
		bsdtar -xf "$rpm" -C "$T/ref"
		if "$PFX" -xf "$rpm" -C "$T/out" --symlinks=contain \
		    2> "$T/err"; then
			same "rpm $c (file)" "$T/ref" "$T/out"
		else
			bad "rpm $c (file): exit $?: $(cat "$T/err")"
		fi
		rm -rf "$T/out"; mkdir "$T/out"
		if cat "$rpm" | "$PFX" --no-sandbox -xf - -C "$T/out" \
		    --symlinks=contain 2> "$T/err"; then
			same "rpm $c (pipe, no decoder process)" "$T/ref" \
			    "$T/out"
		else
			bad "rpm $c (pipe): exit $?: $(cat "$T/err")"
		fi
		n=$("$PFX" -tf "$rpm" | wc -l)
		if [ "$n" -eq "$(bsdtar -tf "$rpm" | wc -l)" ]; then
			ok
		else
			bad "rpm $c: -t lists $n names, bsdtar otherwise"
		fi
	done
fi

# --- deb: --deb extracts the data.tar member --------------------------------

# deb_case WHAT DEB OPTS...: pfextract --deb OPTS against dpkg-deb -x.
deb_case() {
	what=$1 deb=$2
	shift 2
	fresh
	dpkg-deb -x "$deb" "$T/ref"
	if "$PFX" --deb "$@" -xf "$deb" -C "$T/out" 2> "$T/err"; then
		same "deb $what" "$T/ref" "$T/out"
	else
		bad "deb $what: exit $?: $(head -2 "$T/err")"
	fi
}

if ! command -v dpkg-deb > /dev/null 2>&1; then
	skip=$((skip + 1))
	echo "skip: deb (no dpkg-deb)"
else
	b=$T/debsrc
	mkdir -p "$b/DEBIAN" "$b/usr/bin" "$b/usr/share/doc/pfxdemo" \
	    "$b/usr/lib/pfxdemo/empty"
	printf 'Package: pfxdemo\nVersion: 1.0\nArchitecture: all\n%s\n%s\n' \
	    'Maintainer: pfxdemo <pfxdemo@example.org>' \
	    'Description: tests/formats.sh package' > "$b/DEBIAN/control"
	printf '#!/bin/sh\necho hi\n' > "$b/usr/lib/pfxdemo/run"
	chmod 755 "$b/usr/lib/pfxdemo/run"
	ln -s ../lib/pfxdemo/run "$b/usr/bin/pfxdemo"
	head -c 100000 /dev/urandom > "$b/usr/share/doc/pfxdemo/blob"
	for z in gzip xz zstd none; do
		if ! dpkg-deb --root-owner-group -Z$z -b "$b" "$T/d-$z.deb" \
		    > /dev/null 2>&1; then
			skip=$((skip + 1))
			echo "skip: deb -Z$z (dpkg-deb cannot make it)"
			continue
		fi
		deb_case "data.tar ($z)" "$T/d-$z.deb" --symlinks=contain
		deb_case "data.tar ($z), no decoder process" "$T/d-$z.deb" \
		    --symlinks=contain --no-sandbox
	done
	# From a pipe; and listed.
	fresh
	dpkg-deb -x "$T/d-xz.deb" "$T/ref"
	if cat "$T/d-xz.deb" | "$PFX" --deb --symlinks=contain -xf - \
	    -C "$T/out" 2> "$T/err"; then
		same "deb (pipe)" "$T/ref" "$T/out"
	else
		bad "deb (pipe): exit $?: $(head -2 "$T/err")"
	fi
	if [ "$("$PFX" --deb -tf "$T/d-xz.deb" | sed 's,/$,,' | sort)" = \
	    "$(dpkg-deb --fsys-tarfile "$T/d-xz.deb" | tar -t |
	    sed 's,/$,,' | sort)" ]; then
		ok
	else
		bad "deb: --deb -t lists other names than the data.tar"
	fi
	# The default policy: the link refused (exit 1), the rest there.
	rm -rf "$T/out"; mkdir "$T/out"
	"$PFX" --deb -xf "$T/d-gzip.deb" -C "$T/out" 2> "$T/err"
	st=$?
	if [ $st -eq 1 ] && [ -f "$T/out/usr/share/doc/pfxdemo/blob" ] &&
	    [ ! -e "$T/out/usr/bin/pfxdemo" ] &&
	    grep -q "usr/bin/pfxdemo: symbolic link not created" "$T/err"; then
		ok
	else
		bad "deb, default policy: exit $st: $(head -2 "$T/err")"
	fi
	# An ar that is no package is refused, and so is a package
	# without its data member: refused WHAT ARCHIVE MESSAGE.
	refused() {
		rm -rf "$T/out"; mkdir "$T/out"
		"$PFX" --deb -xf "$2" -C "$T/out" 2> "$T/err"
		st=$?
		if [ $st -eq 2 ] && grep -q "$3" "$T/err"; then
			ok
		else
			bad "deb: $1: exit $st: $(cat "$T/err")"
		fi
	}
	printf 'x\n' > "$T/x"
	(cd "$T" && ar qc "$T/not.deb" x 2> /dev/null)
	refused "an ar that is no package" "$T/not.deb" "not a Debian package"
	mkdir "$T/nodata"
	(cd "$T/nodata" && ar x "$T/d-gzip.deb" && rm data.tar.* &&
	    ar qc "$T/nodata.deb" debian-binary control.tar.*)
	refused "without data.tar" "$T/nodata.deb" "no data.tar member"
	# A data member that is no tar: its name in the message.
	(cd "$T/nodata" && head -c 3000 /dev/urandom > data.tar.gz &&
	    ar qc "$T/baddata.deb" debian-binary control.tar.* data.tar.gz)
	refused "data.tar.gz that is no tar" "$T/baddata.deb" \
	    "cannot read the package's data.tar.gz"
	# Members where dpkg-deb does not take them ("premature member",
	# "unknown compression"), which --deb read as a package: data.tar
	# before control.tar, another member before either, a data member
	# of an unknown compression.  One whose name begins with '_' is
	# passed over, as dpkg-deb passes it over.
	mkdir "$T/order"
	(cd "$T/order" && ar x "$T/d-gzip.deb" && printf 'x\n' > zzz &&
	    printf 'x\n' > _extra && cp data.tar.gz data.tar.evil &&
	    ar qc "$T/o-data.deb" debian-binary data.tar.gz control.tar.* &&
	    ar qc "$T/o-junk.deb" debian-binary zzz control.tar.* data.tar.gz &&
	    ar qc "$T/o-mid.deb" debian-binary control.tar.* zzz data.tar.gz &&
	    ar qc "$T/o-comp.deb" debian-binary control.tar.* data.tar.evil &&
	    ar qc "$T/o-under.deb" debian-binary _extra control.tar.* \
	    _extra data.tar.gz)
	for d in data junk mid comp; do
		refused "members out of dpkg-deb's order ($d)" \
		    "$T/o-$d.deb" "not a Debian package as dpkg-deb reads it"
	done
	deb_case "a member beginning with '_'" "$T/o-under.deb" \
	    --symlinks=contain
	# Real packages, when the package registry can be reached.
	mkdir "$T/dl"
	(cd "$T/dl" && timeout 60 apt-get download -q coreutils tzdata) \
	    > /dev/null 2>&1
	n=0
	for d in "$T"/dl/coreutils_*.deb; do
		[ -f "$d" ] || continue
		n=$((n + 1))
		deb_case "coreutils" "$d" --symlinks=contain
	done
	for d in "$T"/dl/tzdata_*.deb; do
		[ -f "$d" ] || continue
		n=$((n + 1))
		# Its one absolute link (zoneinfo/localtime -> /etc/...)
		# is refused under contain: dpkg's tree without it.
		fresh
		dpkg-deb -x "$d" "$T/ref"
		find "$T/ref" -type l -lname '/*' -exec rm {} +
		"$PFX" --deb --symlinks=contain -xf "$d" -C "$T/out" \
		    2> "$T/err"
		st=$?
		if [ $st -eq 1 ] && [ "$(wc -l < "$T/err")" -eq 1 ] &&
		    grep -q "localtime: symbolic link points outside" \
		    "$T/err"; then
			same "tzdata" "$T/ref" "$T/out"
		else
			bad "deb tzdata: exit $st: $(head -2 "$T/err")"
		fi
	done
	if [ $n -eq 0 ]; then
		skip=$((skip + 1))
		echo "skip: real packages (apt-get download failed)"
	fi
fi

echo "formats: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
