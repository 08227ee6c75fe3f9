#!/bin/sh
# Write the seed archives of fuzz/corpus/extract/: small tar, pax, GNU,
# cpio, zip, 7z and ar archives, benign and hostile, each behind the flags
# byte fuzz_extract.c reads first (00: defaults; 01: --symlinks=contain;
# 02: the walk resolver).  Run by hand, as root (for the device node), with
# bsdtar, GNU tar, cpio, zip, 7zz, ar, gzip, xz and zstd; the output is
# committed, so `make check` needs none of them.  Each file stays under
# 4 KiB: archives are written with a blocking factor of 1.
#
#	sh fuzz/mkseeds.sh [outdir]
set -eu

out=$(cd "${1:-fuzz/corpus/extract}" && pwd)
top=$(pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/pfx-seeds.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"

# seed NAME FLAGS FILE: the flags byte (two hex digits), then FILE.
seed() {
	{ printf "\\$(printf %03o "0x$2")"; cat "$3"; } > "$out/$1"
}

btar() { bsdtar -b 1 "$@"; }

mkdir s && cd s
mkdir -p app/sub
printf 'hello\n' > app/README
printf 'int main(void) { return 0; }\n' > app/sub/main.c
ln app/README app/README.hard
ln -s README app/link
ln -s ../app/sub app/sublink
printf 'outside\n' > evil
mkdir l && printf 'through\n' > l/x
cd ..
# Whole seconds: restricted pax then needs no extended header.
stamp() { find "$@" -exec touch -h -d @1700000000 {} +; }
stamp s

# Benign: every format, and the compressions.
btar -cf ustar.tar --format ustar -C s app/README app/README.hard app/link
btar -cf pax.tar --format pax -C s app/sub/main.c
tar -b 1 -cf gnu.tar --format=gnu -C s app/README app/link
btar -cf newc.cpio --format newc -C s app
btar -cf odc.cpio --format odc -C s app/README app/sub
(cd s && zip -q -y -r ../plain.zip app)
(cd s && 7zz a -bd -snl ../plain.7z app >/dev/null)
(cd s/app && ar rc ../../plain.a README sub/main.c 2>/dev/null)
gzip -9 -n -c ustar.tar > ustar.tar.gz
xz -9 -c pax.tar > pax.tar.xz
zstd -q -19 -c gnu.tar > gnu.tar.zst
# Two zstd frames with a skippable one between (decoded in the ring), and
# a frame with a 128 MiB window (too big for it: libzstd's streaming).
{ head -c 1024 gnu.tar | zstd -q -1 -c
  printf '\120\052\115\030\004\000\000\000skip'
  tail -c +1025 gnu.tar | zstd -q --no-check -c; } > frames.tar.zst
zstd -q --long=27 -c < gnu.tar > long.tar.zst
seed ustar 00 ustar.tar
seed ustar-contain 01 ustar.tar
seed pax-walk 02 pax.tar
seed gnu-contain 01 gnu.tar
seed newc-contain 01 newc.cpio
seed odc 00 odc.cpio
seed zip-contain 01 plain.zip
seed 7z 00 plain.7z
seed ar 00 plain.a
seed ustar-gz 00 ustar.tar.gz
seed pax-xz 01 pax.tar.xz
seed gnu-zst 00 gnu.tar.zst
seed gnu-zst-frames 00 frames.tar.zst
seed gnu-zst-long 01 long.tar.zst

# Names: "../", absolute, "./../", a long pax path= that overrides the
# header's name, a GNU longname, Windows forms in a zip.
btar -cf dotdot.tar -P -s ',^evil$,../evil,' -C s evil app/README
btar -cf abs.tar -P -s ',^evil$,/tmp/pfx-seed-evil,' -C s evil
btar -cf dotslash.tar -P -s ',^evil$,./a/../../evil,' -C s evil
long=dir/$(printf '%0120d' 0)/../../../evil
btar -cf paxpath.tar --format pax -P -s ",^evil\$,$long," -C s evil
tar -b 1 -cf gnulong.tar --format=gnu -P \
    --transform "s,^evil\$,$long," -C s evil
btar -cf dotdot.zip --format zip -P -s ',^evil$,../evil,' -C s evil
btar -cf win.zip --format zip -P -s ',^evil$,C:\\x\\..\\..\\evil,' \
    -s ',^app/README$,app/CON.txt,' -C s evil app/README
btar -cf dotdot.cpio --format newc -P -s ',^evil$,../evil,' -C s evil
seed name-dotdot 00 dotdot.tar
seed name-absolute 00 abs.tar
seed name-dotslash-dotdot 02 dotslash.tar
seed name-pax-path 00 paxpath.tar
seed name-gnu-longname 00 gnulong.tar
seed name-zip-windows 00 win.zip
seed name-zip-dotdot 02 dotdot.zip
seed name-cpio-dotdot 01 dotdot.cpio

# Symlinks: one out of the destination, then a file written through it;
# relative ones that climb out; a chain that fools lexical checks
# (d/l -> .., d/l2 -> l/..).
mkdir t1 t2 t3
ln -s /tmp t1/l
ln -s ../../.. t1/up
btar -cf sym1.tar -C t1 l up
btar -cf sym2.tar -C s l/x
btar -cf sym-through.tar @sym1.tar @sym2.tar
mkdir t3/d
ln -s .. t3/d/l
ln -s l/.. t3/d/l2
ln -s d/l2/x t3/esc
stamp t1 t3
btar -cf sym-chain.tar -C t3 d esc
seed symlink-then-file 00 sym-through.tar
seed symlink-then-file-contain 01 sym-through.tar
seed symlink-chain-contain 01 sym-chain.tar

# Hard links: to "../evil" (the name made by -s), and to an absolute path.
mkdir h && printf 'x\n' > h/evil && ln h/evil h/h && stamp h
btar -cf hard-dotdot.tar -P -s ',^evil$,../evil,' -C h evil h
btar -cf hard-abs.tar -P -s ',^evil$,/etc/passwd,' -C h evil h
seed hardlink-dotdot 00 hard-dotdot.tar
seed hardlink-absolute 02 hard-abs.tar

# Special files and modes: a device node, a FIFO, setuid and
# world-writable files.
mkdir d
mknod d/null c 1 3
mkfifo d/fifo
printf '#!/bin/sh\n' > d/suid && chmod 4755 d/suid
printf 'w\n' > d/ww && chmod 0666 d/ww
mkdir d/sticky && chmod 1777 d/sticky
stamp d
btar -cf special.tar -C d null fifo
btar -cf modes.tar -C d suid ww sticky
seed special-files 00 special.tar
seed setid-modes 00 modes.tar
seed setid-modes-p 80 modes.tar

# Truncated: a header and half of its data; a cut inside the second
# header.
head -c 700 ustar.tar > trunc1.tar
head -c 1300 dotdot.tar > trunc2.tar
seed truncated-data 00 trunc1.tar
seed truncated-header 01 trunc2.tar

# pfextract's own zip reader (extract/zip.c): zips it takes (Python's
# zipfile: data descriptors, zip64 extras, DOS attributes, a symlink),
# and the hostile ones of tests/zip_make.py, each one lie (names, sizes,
# CRC, overlapping members, a directory past its end, zip64 records).
mkdir zips && python3 "$top/tests/zip_make.py" zips >/dev/null
for z in zips/real-python.zip zips/real-python-stream.zip zips/hostile-*.zip
do
	n=$(basename "$z" .zip)
	seed "zipread-${n#real-}" 00 "$z"
	seed "zipread-${n#real-}-contain" 01 "$z"
done
