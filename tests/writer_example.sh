#!/bin/sh
# writer_example.sh -- the example of pfx_writer(3), compiled from the man
# page as printed and run (make check): a newc cpio reader of the
# caller's own, driving the push API all or nothing.  A good archive
# comes out as cpio itself extracts it; a truncated one, or one with a
# hostile name, leaves DEST as it was, and nothing beside it changes.
#	sh tests/writer_example.sh [CC]
set -eu
cc=${1:-cc}
top=$(pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/pfx-wex.XXXXXX")
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "writer_example.sh: FAIL: $*" >&2; fail=$((fail + 1)); }

# The example as mdoc prints it: between .Bd -literal and .Ed, from its
# first #include, with mdoc's escapes undone.
awk '/^\.Bd -literal/ { f = 1; next } /^\.Ed/ { f = 0 } f' \
    "$top/man/pfx_writer.3" | sed -n '/^#include <fcntl.h>/,$p' |
    sed -e 's/\\e/\\/g' > "$T/ex.c"
cat >> "$T/ex.c" <<'MAIN'

int
main(int argc, char **argv)
{
	FILE *f = argc == 3 ? fopen(argv[1], "rb") : NULL;

	return f != NULL && install(f, argv[2]) == 0 ? 0 : 1;
}
MAIN
"$cc" -std=c11 -D_XOPEN_SOURCE=700 -Wall -Werror -I"$top/extract" \
    -I"$top/core" -I"$top/platform" -o "$T/ex" "$T/ex.c" \
    "$top/obj/libpfextract.so" -Wl,-rpath,"$top/obj" && ok ||
    { bad "the example does not compile"; exit 1; }

mkdir -p "$T/src/d/e" "$T/ref" "$T/out" "$T/top"
printf 'hello\n' > "$T/src/d/f"
head -c 100000 /dev/urandom > "$T/src/d/e/big"
printf 'x\n' > "$T/src/top"
(cd "$T/src" && find . | LC_ALL=C sort | cpio -o -H newc 2>/dev/null) \
    > "$T/a.cpio"
(cd "$T/ref" && cpio -id --quiet < "$T/a.cpio")
"$T/ex" "$T/a.cpio" "$T/out" && ok || bad "good archive: failed"
diff -r "$T/ref" "$T/out" > /dev/null && ok ||
    bad "good archive: the tree differs from cpio's"

# Truncated in the big file's data: all or nothing leaves DEST empty.
head -c 60000 "$T/a.cpio" > "$T/short.cpio"
mkdir "$T/top/dest"
printf 'keep\n' > "$T/top/sentinel"
"$T/ex" "$T/short.cpio" "$T/top/dest" 2> "$T/err" && bad "truncated: exit 0" ||
    ok
grep -q 'truncated data' "$T/err" && ok || bad "truncated: $(cat "$T/err")"
[ -z "$(ls -A "$T/top/dest")" ] && ok || bad "truncated: dest not empty"

# A name that climbs out (the same length, so the archive stays whole):
# refused by name, the good entry kept, nothing written beside DEST.
mkdir -p "$T/evil/aa"
printf 'pwned\n' > "$T/evil/aa/f"
(cd "$T/evil" && printf 'aa\naa/f\n' | cpio -o -H newc 2>/dev/null) |
    sed 's|aa/f|../f|' > "$T/evil.cpio"
"$T/ex" "$T/evil.cpio" "$T/top/dest" 2> "$T/err" &&
    bad "hostile: exit 0" || ok
[ ! -s "$T/err" ] && ok || bad "hostile: the reader failed: $(cat "$T/err")"
[ ! -e "$T/top/f" ] && [ ! -e "$T/f" ] && ok || bad "hostile: ../f written"
[ "$(ls -A "$T/top")" = "$(printf 'dest\nsentinel')" ] && ok ||
    bad "hostile: something changed beside dest"
[ "$(ls -A "$T/top/dest")" = aa ] && ok || bad "hostile: dest holds" \
    "$(ls -A "$T/top/dest")"

echo "writer_example: $pass passed, $fail failed"
[ $fail -eq 0 ]
