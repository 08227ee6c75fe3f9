#!/bin/sh
# `make install` into a staging directory: every file lands where the
# prefix says, and a program builds against the installed headers and
# library through pkg-config.
set -u
top=$(mktemp -d)
trap 'rm -rf "$top"' EXIT
fail=0 pass=0
check() {
	if eval "$2"; then pass=$((pass + 1)); else
		echo "install: FAIL: $1" >&2; fail=$((fail + 1)); fi
}

make -s install DESTDIR="$top/stage" PREFIX=/opt/pfx >/dev/null || {
	echo "install: make install failed" >&2; exit 1; }
s="$top/stage/opt/pfx"
for f in bin/pathfence bin/pfextract include/pfextract.h \
    share/man/man1/pfextract.1 share/man/man3/libpfextract.3 \
    lib/libpfextract.a lib/libpfextract.so.0 \
    lib/libpfextract.so include/pfx_path.h include/pfx_root.h \
    include/pfx_sandbox.h share/man/man3/pfx_sandbox.3 \
    share/man/man3/pfx_writer.3 \
    lib/pkgconfig/pfextract.pc share/man/man1/pathfence.1 \
    share/man/man3/pfx_path.3 share/man/man3/pfx_root.3 \
    share/pfextract/tsan.supp; do
	check "installed $f" "[ -e '$s/$f' ]"
done
check "pc file names the prefix" "grep -q '^prefix=/opt/pfx' '$s/lib/pkgconfig/pfextract.pc'"
check "pc file sets an rpath" "grep -q '^Libs:.*-Wl,-rpath,\${libdir}' '$s/lib/pkgconfig/pfextract.pc'"
v=$(sed -n 's/^#define PFX_VERSION "\(.*\)"$/\1/p' "$s/include/pfextract.h")
check "pc version is the header's ($v)" "grep -q '^Version: $v\$' '$s/lib/pkgconfig/pfextract.pc'"

cat > "$top/use.c" <<'C'
#include <string.h>
#include <pfextract.h>
int
main(void)
{
	struct pfx_span root = { "/r", 2 };
	struct pfx_policy pol = { &root, 1, NULL, 0, 0 };
	struct pfx_verdict v;
	struct pfx_options opt;

	pfx_options_init(&opt);
	if (pfx_version() != PFX_VERSION_NUMBER)
		return 1;
	if (opt.symlinks != PFX_SYMLINKS_REFUSE)
		return 1;
	if (pfx_path_check(&pol, "a/../b", 6, &v) != PFX_ALLOW)
		return 1;
	return strcmp(v.path, "/r/b") != 0;
}
C
flags=$(PKG_CONFIG_SYSROOT_DIR="$top/stage" \
    PKG_CONFIG_PATH="$s/lib/pkgconfig" pkg-config --cflags --libs pfextract)
check "builds against the installed library" \
    "cc -o '$top/use' '$top/use.c' $flags -Wl,-rpath,'$s/lib' 2>&2"
check "runs against the shared library" "'$top/use'"
check "links statically" \
    "cc -o '$top/use_static' '$top/use.c' -I'$s/include' '$s/lib/libpfextract.a' -larchive && '$top/use_static'"

# Installed for real (no DESTDIR, so the rpath is where the library is):
# the flags of pkg-config alone find it at run time.
make -s install PREFIX="$top/real" >/dev/null || {
	echo "install: make install PREFIX=... failed" >&2; exit 1; }
flags=$(PKG_CONFIG_PATH="$top/real/lib/pkgconfig" pkg-config --cflags \
    --libs pfextract)
check "builds with pkg-config's flags alone" \
    "cc -o '$top/use_rpath' '$top/use.c' $flags 2>&2"
check "runs by the rpath of the pc file" "env -u LD_LIBRARY_PATH '$top/use_rpath'"

make -s uninstall DESTDIR="$top/stage" PREFIX=/opt/pfx >/dev/null
left=$(find "$top/stage" -type f | wc -l)
check "uninstall removes every file" "[ '$left' -eq 0 ]"

echo "install: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
