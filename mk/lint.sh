#!/bin/sh
# House rules that a compiler does not check, run by `make check`.
set -u
fail=0

say() { echo "lint: $*" >&2; fail=1; }

# Manual pages are clean mdoc.
if command -v mandoc >/dev/null 2>&1; then
	out=$(mandoc -Tlint -Wwarning man/*.[0-9] 2>&1)
	[ -n "$out" ] && say "mandoc -Tlint: $out"
else
	say "mandoc is missing (make deps installs it)"
fi

# Functions the library never calls (STYLE.md, habit 10).
banned='strcpy|strcat|sprintf|vsprintf|strncpy|strtok|atoi|atol|access|realpath|chdir|system|gets|tmpnam|mktemp'
hits=$(grep -nE "(^|[^a-z_])($banned)[[:space:]]*\(" core/*.c platform/*.c cli/*.c decode/*.c extract/*.c 2>/dev/null |
    grep -vE '^[^:]+:[0-9]+:[[:space:]]*(/?\*|\*)')
[ -n "$hits" ] && say "banned function: $hits"

# The decision core is pure: no I/O, no allocation, no errno.
hits=$(grep -nE '#include <(stdio|stdlib|fcntl|unistd|errno|sys/[a-z]+)\.h>|\<(malloc|calloc|realloc|free|errno)\>' core/*.c core/*.h |
    grep -vE '^[^:]+:[0-9]+:[[:space:]]*(/?\*|\*)')
[ -n "$hits" ] && say "core/ must stay pure: $hits"

# SECURITY: the extractor acts on the filesystem only through the pinned
# root (platform/): no call that takes a path, only descriptors.
pathcalls='open|openat|creat|mkdir|mkdirat|stat|lstat|fstatat|statx|realpath|unlink|unlinkat|rmdir|rename|renameat|renameat2|symlink|symlinkat|link|linkat|chmod|fchmodat|chown|lchown|fchownat|utime|utimes|utimensat|truncate|readlink|readlinkat|opendir|fopen|mknod|mknodat|mkfifo|setxattr|lsetxattr|chdir'
# The decoders work on descriptors and buffers alone.  The commands
# (cli/pfextract.c, cli/args.c) may open what the user names, such as an
# -X file; they never touch the destination, which only the library does.
hits=$(grep -nE "(^|[^a-z_.>])($pathcalls)[[:space:]]*\(" extract/*.c decode/*.c cli/*.c 2>/dev/null |
    grep -vE '^cli/(pfextract|args|pathfence)\.c:' |
    grep -vE '^[^:]+:[0-9]+:[[:space:]]*(/?\*|\*)')
[ -n "$hits" ] && say "path-based filesystem call in extract/, decode/ or cli/: $hits"

# Only the reader reads archives: the files that read entries and their
# data (engine.c turns each into struct pfx_entry and struct xtr_meta,
# which is all the writers see; volumes.c joins tar -M's volumes for
# libarchive; paxdump.c reads a pax header again for the readers, and
# stage.c runs libarchive's filters ahead of the tar reader; placed.c
# reads a plain archive file into the decoder's ring for it; zip.c,
# our own zip reader, gives entries as libarchive's struct
# archive_entry), and decode/'s hand-over to libarchive.
hits=$(grep -ln '#include <archive' core/*.[ch] platform/*.[ch] cli/*.[ch] \
    decode/*.[ch] extract/*.[ch] 2>/dev/null |
    grep -vE '^(extract/(engine|raw|reader|placed|volumes|source|remote|child|dumpdir|paxdump|stage|zip)\.c|decode/decode\.c)$')
[ -n "$hits" ] && say "<archive.h> outside the reader: $hits"

# The layers (docs/design.md): no include cycle between files, and no
# include up the order of the folders (mk/layers.sh says which).
sh mk/layers.sh . || say "the layers are broken (mk/layers.sh)"
# ... and, once the library is built, from what its objects call: no two
# files call each other, whichever header declares what (mk/calls.sh).
if [ -f obj/libpfextract.so ]; then
	os=posix
	[ "$(uname -s)" = Linux ] && os=linux
	objs=
	for f in core/*.c decode/*.c extract/*.c platform/*.c; do
		case $f in
		platform/os_*.c|platform/sandbox_*.c)
			[ "$f" = "platform/os_$os.c" ] ||
			    [ "$f" = "platform/sandbox_$os.c" ] || continue ;;
		esac
		[ -f "obj/${f%.c}.o" ] || { objs=; break; }
		objs="$objs obj/${f%.c}.o"
	done
	# shellcheck disable=SC2086 # one word per object
	[ -z "$objs" ] || sh mk/calls.sh $objs ||
	    say "two files call each other (mk/calls.sh)"
fi

# Only the OS files may name a kernel.
hits=$(grep -nE '__linux__|__FreeBSD__|__APPLE__|HAVE_OPENAT2' core/*.[ch] platform/*.[ch] cli/*.[ch] decode/*.[ch] extract/*.[ch] | grep -v 'platform/os_')
[ -n "$hits" ] && say "OS tests outside platform/os_*.c: $hits"

# The two OS files define the same calls: only one is linked here, and a
# call that the other lacks breaks the port's link, not this build
# (plat_os_dir_writable() once).
for pair in os_linux:os_posix sandbox_linux:sandbox_posix; do
	a=platform/${pair%%:*}.c
	b=platform/${pair##*:}.c
	for f in $(grep -ohE '^plat_[a-z0-9_]+\(' "$a" "$b" | sort -u); do
		grep -q "^$f" "$a" && grep -q "^$f" "$b" ||
		    say "${f%(}() is defined in only one of $a and $b"
	done
done

# Only the public API is exported from the shared library.
if [ -f obj/libpfextract.so ]; then
	bad=$(nm -D --defined-only obj/libpfextract.so | awk '{print $3}' |
	    grep -vE '^pfx_' | grep -vE '^(_init|_fini|_edata|_end|__bss_start)$')
	[ -n "$bad" ] && say "exported non-API symbols: $bad"
fi

if [ "$fail" -ne 0 ]; then
	echo "lint: failed" >&2
	exit 1
fi
echo "lint: ok"
