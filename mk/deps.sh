#!/bin/sh
# Install the Debian packages that pfextract's build and tests need, if
# any is missing.  As root with apt-get it installs them; elsewhere it
# prints the exact command and fails, so nothing half-works.
set -eu

PKGS="gcc make pkg-config libarchive-dev libcriterion-dev libzstd-dev \
zlib1g-dev mandoc"
PKGS="$PKGS libisal-dev liblzma-dev"	# ISA-L, liblzma: decoders, bench/floor.c
# The static libraries the command links libarchive with (Makefile,
# ARCHIVE_LINK): libarchive-dev brings the shared ones only.
PKGS="$PKGS nettle-dev liblz4-dev libbz2-dev"
# tests/compat.sh: the reference extractors and the archivers and
# compressors that make its archives.
PKGS="$PKGS libarchive-tools cpio zip 7zip binutils bzip2 xz-utils zstd \
lz4 lzip ncompress"
# tests/formats.sh: rpmbuild makes the rpm packages it reads;
# tests/progress.sh drives a pty with python3; tests/fdlimit.sh is bash.
PKGS="$PKGS rpm python3 bash"
# make fuzz: clang and its libFuzzer runtime (Debian 12 names).
PKGS="$PKGS clang libclang-rt-14-dev"
# make prove: Frama-C's WP, Why3 and the SMT solvers it proves with.
PKGS="$PKGS frama-c-base why3 cvc4 cvc5"

# make bench (mk/deps.sh bench): the peers and the dataset builders.  A
# node/npm already on the machine, from anywhere, is used as it is.
if [ "${1:-}" = bench ]; then
	PKGS="$PKGS unzip openssl tar"
	command -v npm >/dev/null 2>&1 || PKGS="$PKGS npm"
fi

# make compat-suite (mk/deps.sh compat-suite): fetch, unpack and build
# GNU tar 1.34 and run its Autotest suite (tests/testsuite is shipped
# generated, so no autom4te).
if [ "${1:-}" = compat-suite ]; then
	PKGS="$PKGS curl xz-utils bash gcc make"
fi

if ! command -v dpkg-query >/dev/null 2>&1; then
	echo "deps: not a Debian system; install the equivalents of:" \
	    "$PKGS" >&2
	exit 0
fi

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
	    grep -q 'install ok installed'; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "deps: installing$missing"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	    --no-install-recommends $missing
	exit 0
fi
echo "deps: missing packages:$missing" >&2
echo "deps: run: sudo apt-get install -y$missing" >&2
exit 1
