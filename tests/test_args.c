/*
 * test_args.c -- pfextract's tar-compatible command line (cli/args.c).
 *
 * Two tables, one named row per spelling: ok_rows give the whole expected
 * struct xtr_args, err_rows the usage error (a piece of its message).
 * Each row runs as its own ParameterizedTest.  Then -X files, written to a
 * fresh temporary file per test, and ownership: xtr_args_free() must
 * release everything, checked under ASan by the allocator's own count.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../cli/args.h"

#define MAXARGV 24

/* args.c's bound on one line of an -X or -T file. */
#define XTR_T_LINE 4096

/*
 * One spelling that parses.  Fields left out mean the default: mode 0 is
 * 'x', NULL strings are "none given", flags are the defaults of
 * pfx_options_init() plus SET minus CLEAR.
 */
struct ok_row {
	const char *name;
	const char *argv[MAXARGV];	/* after argv[0], NULL-terminated */
	char mode;
	const char *archive;
	const char *dir;
	int verbose;
	const char *members;		/* '|'-joined */
	const char *include;
	const char *patterns;		/* member_pat, '|'-joined */
	const char *exclude;
	bool wildcards_given;
	unsigned int set;
	unsigned int clear;
	unsigned int strip;
	enum pfx_symlinks symlinks;
	enum pfx_existing existing;
	bool report_json;
	bool quiet;
	bool help;
	bool version;
	const char *formats;
	bool to_stdout;
	bool show_transformed;
	bool xforms;			/* a transform was compiled */
	unsigned int occurrence;
	const char *top_dir;
	const char *whole;		/* member_whole as '0'/'1', 0-padded */
	const char *mflags;	/* member_flags, a digit (PFX_MATCH_*)
				   each; NULL: all anchored (1) */
	const char *xflags;	/* exclude_flags, the same; NULL: all 0 */
};

static const struct ok_row ok_rows[] = {
	/* Issue 19: GNU tar's --format is checked and ignored; --formats is
	 * pfextract's own, and exact names win over prefixes. */
	{ "--format=gnu", { "--format=gnu", "a" }, .archive = "a" },
	{ "--format ustar", { "--format", "ustar", "a" }, .archive = "a" },
	{ "-H pax", { "-H", "pax", "a" }, .archive = "a" },
	{ "-xHv7f bundle", { "-xHv7", "-f", "a" }, .archive = "a" },
	{ "--forma=posix is --format", { "--forma=posix", "a" },
	  .archive = "a" },
	{ "--formats still exact", { "--formats=zip", "--format=gnu", "a" },
	  .archive = "a", .formats = "zip" },
	{ "-O", { "-xOf", "a" }, .archive = "a", .to_stdout = true,
	  .set = PFX_OPT_TO_FD },
	{ "--to-stdout", { "--to-stdout", "a", "m" }, .archive = "a",
	  .members = "m", .patterns = "m", .to_stdout = true,
	  .set = PFX_OPT_TO_FD },
	{ "-tO lists", { "-tOf", "a" }, .mode = 't', .archive = "a",
	  .to_stdout = true, .set = PFX_OPT_LIST },
	{ "--transform", { "--transform", "s/a/b/", "a" }, .archive = "a",
	  .xforms = true },
	{ "--xform=two;rules", { "--xform=s,a,b,gi;s/x/y/3x", "a" },
	  .archive = "a", .xforms = true },
	{ "--transform flags rRsShH", { "--transform=s/a/b/rRsShH", "a" },
	  .archive = "a", .xforms = true },
	{ "-s /a/b/ is bsdtar's", { "-s", "/a/b/", "a" }, .archive = "a",
	  .xforms = true },
	{ "-s/a/b/gp attached", { "-s/a/b/gp", "a" }, .archive = "a",
	  .xforms = true },
	{ "-s ,x,y,HRS", { "-s", ",x,y,HRS", "-f", "a" }, .archive = "a",
	  .xforms = true },
	{ "-s before an operand is GNU's -s", { "-s", "a", "m" },
	  .archive = "a", .members = "m", .patterns = "m" },
	{ "-xsf bundle: GNU's -s", { "-xsf", "a" }, .archive = "a" },
	{ "old-style xsf: GNU's -s", { "xsf", "a" }, .archive = "a" },
	{ "--preserve-order", { "--preserve-order", "--same-order", "a" },
	  .archive = "a" },
	{ "--show-transformed-names", { "--show-transformed", "a" },
	  .archive = "a", .show_transformed = true },
	{ "--show-stored-names last wins",
	  { "--show-transformed-names", "--show-stored-names", "a" },
	  .archive = "a" },
	{ "--occurrence", { "--occurrence", "a", "m" }, .archive = "a",
	  .members = "m", .patterns = "m", .occurrence = 1 },
	{ "--occurrence=3", { "--occurrence=3", "a", "m" }, .archive = "a",
	  .members = "m", .patterns = "m", .occurrence = 3 },
	{ "--occurrence=0: every one", { "--occurrence=0", "a" },
	  .archive = "a" },
	{ "--one-top-level=DIR", { "--one-top-level=top", "a" },
	  .archive = "a", .xforms = true, .top_dir = "top" },
	{ "--one-top-level: a.tar.gz", { "--one-top-level", "d/a.tar.gz" },
	  .archive = "d/a.tar.gz", .xforms = true, .top_dir = "a" },
	{ "--one-top-level: pkg-1.0.tgz",
	  { "-f", "pkg-1.0.tgz", "--one-top-level" },
	  .archive = "pkg-1.0.tgz", .xforms = true, .top_dir = "pkg-1.0" },
	{ "--one-top-level: x.tbz2 keeps no .tar",
	  { "--one-top-level", "x.tar.tbz2" }, .archive = "x.tar.tbz2",
	  .xforms = true, .top_dir = "x.tar" },
	{ "--one-top-level: c.tar", { "--one-top-level", "c.tar" },
	  .archive = "c.tar", .xforms = true, .top_dir = "c" },
	{ "--no-recursion: the operands after it",
	  { "a", "m1", "--no-recursion", "m2", "--recursion", "m3" },
	  .archive = "a", .members = "m1|m2|m3", .patterns = "m1|m2|m3",
	  .whole = "010" },
	{ "GNU defaults accepted",
	  { "--no-ignore-case", "--wildcards-match-slash", "a" },
	  .archive = "a" },
	/* Issue 19: --anchored, --ignore-case, --no-wildcards-match-slash
	 * and their --no- forms, for the patterns after them.  Flags:
	 * 1 anchored, 2 case folded, 4 '*' does not match '/'. */
	{ "matching flags: members after them", { "a", "m1", "--ignore-case",
	  "m2", "--no-anchored", "m3", "--no-wildcards-match-slash", "m4",
	  "--anchored", "--no-ignore-case", "m5", "--wildcards-match-slash",
	  "--no-anchored", "m6" }, .archive = "a",
	  .members = "m1|m2|m3|m4|m5|m6", .patterns = "m1|m2|m3|m4|m5|m6",
	  .mflags = "132650" },
	{ "matching flags: --exclude after them", { "a",
	  "--exclude=e1", "--anchored", "--exclude=e2", "--ignore-case",
	  "--no-anchored", "--exclude", "e3", "--no-wildcards-match-slash",
	  "--no-ignore-case", "--exclude=e4" }, .archive = "a",
	  .exclude = "e1|e2|e3|e4", .xflags = "0124" },
	{ "--no-anchored: members stay unanchored (GNU tar 1.34)",
	  { "--no-anchored", "--ignore-case", "--no-ignore-case", "a", "m" },
	  .archive = "a", .members = "m", .patterns = "m", .mflags = "0" },
	{ "--null --no-null --verbatim-files-from",
	  { "--null", "--no-null", "--verbatim-files-from",
	    "--no-verbatim-files-from", "a" }, .archive = "a" },
	/* The spellings of issue 3. */
	{ "archive operand, -C after it", { "a.tgz", "-C", "d" },
	  .archive = "a.tgz", .dir = "d" },
	{ "-xzvf bundle, -C after", { "-xzvf", "a.tgz", "-C", "d" },
	  .archive = "a.tgz", .dir = "d", .verbose = 1 },
	{ "old-style xzf", { "xzf", "a.tgz" }, .archive = "a.tgz" },
	{ "old-style xfC takes its arguments in order",
	  { "xfC", "a.tar", "dir" }, .archive = "a.tar", .dir = "dir" },
	{ "old-style xCf takes its arguments in order",
	  { "xCf", "dir", "a.tar" }, .archive = "a.tar", .dir = "dir" },
	{ "old-style xvvf with members", { "xvvf", "a.tar", "m1", "m2" },
	  .archive = "a.tar", .verbose = 2, .members = "m1|m2",
	  .patterns = "m1|m2" },
	{ "old-style tvf lists", { "tvf", "a.tar" }, .mode = 't',
	  .archive = "a.tar", .verbose = 1, .set = PFX_OPT_LIST },
	{ "old-style x then -f", { "x", "-f", "a.tgz" }, .archive = "a.tgz" },
	{ "-xf - -C d", { "-xf", "-", "-C", "d" }, .archive = "-",
	  .dir = "d" },
	{ "-f - with a member", { "-xf", "-", "m" }, .archive = "-",
	  .members = "m", .patterns = "m" },
	{ "lone - operand is the archive", { "-", "-C", "d" },
	  .archive = "-", .dir = "d" },
	{ "no arguments: standard input", { NULL }, .mode = 0 },
	{ "options after operands",
	  { "a.tgz", "-v", "-C", "d", "--strip-components", "2" },
	  .archive = "a.tgz", .dir = "d", .verbose = 1, .strip = 2 },
	{ "options between members",
	  { "-f", "a.tar", "m1", "-v", "m2", "--exclude=*.o", "m3" },
	  .archive = "a.tar", .verbose = 1, .members = "m1|m2|m3",
	  .patterns = "m1|m2|m3", .exclude = "*.o" },
	{ "-Cdir and -fFILE attached", { "-x", "-Cdir", "-fFILE" },
	  .archive = "FILE", .dir = "dir" },
	{ "-xvfa.tar: f takes the rest of the word", { "-xvfa.tar" },
	  .archive = "a.tar", .verbose = 1 },
	{ "-xfv a.tar: f takes 'v', as in tar", { "-xfv", "a.tar" },
	  .archive = "v", .members = "a.tar", .patterns = "a.tar" },
	{ "--opt=value", { "--file=a.tar", "--directory=d",
	  "--strip-components=3" }, .archive = "a.tar", .dir = "d",
	  .strip = 3 },
	{ "--opt value", { "--file", "a.tar", "--directory", "d",
	  "--strip-components", "3" }, .archive = "a.tar", .dir = "d",
	  .strip = 3 },
	{ "--opt value taking a dash", { "--file", "-", "--exclude", "-x" },
	  .archive = "-", .exclude = "-x" },
	{ "prefix --strip=1", { "-xf", "a", "--strip=1" }, .archive = "a",
	  .strip = 1 },
	{ "prefix --excl=x is --exclude", { "-xf", "a", "--excl=x" },
	  .archive = "a", .exclude = "x" },
	{ "prefixes --fil and --dir", { "--fil", "a", "--dir", "d" },
	  .archive = "a", .dir = "d" },
	/* "--verb" is also --verbatim-files-from now, as in GNU tar. */
	{ "prefix --verbo", { "--verbo", "a" }, .archive = "a",
	  .verbose = 1 },
	{ "prefix --gz", { "--gz", "a" }, .archive = "a" },
	{ "prefix --same-perm", { "--same-perm", "a" }, .archive = "a",
	  .set = PFX_OPT_PRESERVE_PERMS },
	{ "prefix --no-same-o", { "--same-owner", "--no-same-o", "a" },
	  .archive = "a" },
	{ "prefix --sym=contain", { "--sym=contain", "a" }, .archive = "a",
	  .symlinks = PFX_SYMLINKS_CONTAIN },
	{ "-- ends options", { "-xf", "a.tar", "--", "-v", "--x" },
	  .archive = "a.tar", .members = "-v|--x", .patterns = "-v|--x" },
	{ "-- before the archive operand", { "--", "-weird.tar", "m" },
	  .archive = "-weird.tar", .members = "m", .patterns = "m" },
	{ "members after -f", { "-xf", "a.tar", "dir/", "*.c" },
	  .archive = "a.tar", .members = "dir/|*.c",
	  .patterns = "dir|\\*.c" },
	{ "first operand archive, the rest members", { "a.tar", "m1" },
	  .archive = "a.tar", .members = "m1", .patterns = "m1" },
	{ "-f after an operand makes it a member", { "m1", "-f", "a.tar" },
	  .archive = "a.tar", .members = "m1", .patterns = "m1" },
	{ "--include and members both select",
	  { "--include=a/*", "-f", "x.tar", "m" }, .archive = "x.tar",
	  .members = "m", .include = "a/*", .patterns = "m" },
	/* Members are literal, as GNU tar's, unless --wildcards is in force
	 * where they appear; a trailing '/' goes. */
	{ "literal members escaped", { "-xf", "a", "a*b", "q?[x]", "b\\c",
	  "./d//" }, .archive = "a", .members = "a*b|q?[x]|b\\c|./d//",
	  .patterns = "a\\*b|q\\?\\[x]|b\\\\c|./d" },
	{ "--wildcards: the members after it", { "-xf", "a", "x*",
	  "--wildcards", "y*/", "--no-wildcards", "z*" }, .archive = "a",
	  .members = "x*|y*/|z*", .patterns = "x\\*|y*|z\\*",
	  .wildcards_given = true },
	{ "--no-wildcards alone", { "--no-wildcards", "-xf", "a", "m*" },
	  .archive = "a", .members = "m*", .patterns = "m\\*",
	  .wildcards_given = true },
	{ "a lone '/' member stays", { "-xf", "a", "/" }, .archive = "a",
	  .members = "/", .patterns = "/" },
	{ "'data' is an archive, not a bundle", { "data", "-C", "d" },
	  .archive = "data", .dir = "d" },
	{ "'hook' is an archive, not a bundle", { "hook" },
	  .archive = "hook" },
	{ "'xt' names two modes: an archive", { "xt" }, .archive = "xt" },
	{ "a bundle only in first place", { "-f", "a", "xvf" },
	  .archive = "a", .members = "xvf", .patterns = "xvf" },

	/* Modes. */
	{ "-t", { "-t", "-f", "a" }, .mode = 't', .archive = "a",
	  .set = PFX_OPT_LIST },
	{ "--list", { "--list", "-f", "a" }, .mode = 't', .archive = "a",
	  .set = PFX_OPT_LIST },
	{ "-tv", { "-tvf", "a" }, .mode = 't', .archive = "a",
	  .verbose = 1, .set = PFX_OPT_LIST },
	{ "--extract", { "--extract", "a" }, .archive = "a" },
	{ "--get", { "--get", "a" }, .archive = "a" },
	{ "-x twice is one mode", { "-x", "-x", "a" }, .archive = "a" },
	{ "-vvv", { "-vvv", "a" }, .archive = "a", .verbose = 3 },
	{ "-v -v --verbose", { "-v", "-v", "--verbose", "a" },
	  .archive = "a", .verbose = 3 },

	/* Accepted and ignored. */
	{ "compression letters", { "-xzjJZa", "-f", "a" }, .archive = "a" },
	{ "compression long options", { "--gzip", "--gunzip", "--ungzip",
	  "--bzip2", "--xz", "--zstd", "--lzma", "--lzip", "--lzop",
	  "--compress", "--uncompress", "--auto-compress", "a" },
	  .archive = "a" },
	{ "--warning=KEYWORD", { "--warning=no-unknown-keyword", "a" },
	  .archive = "a" },
	{ "--warning KEYWORD", { "--warning", "none", "a" },
	  .archive = "a" },
	{ "--delay-directory-restore",
	  { "--delay-directory-restore", "a" }, .archive = "a" },
	{ "--no-delay-directory-restore",
	  { "--no-delay-directory-restore", "a" }, .archive = "a" },

	/* Existing files. */
	{ "-k", { "-xkf", "a" }, .archive = "a",
	  .existing = PFX_EXISTING_KEEP },
	{ "--keep-old-files", { "--keep-old-files", "a" }, .archive = "a",
	  .existing = PFX_EXISTING_KEEP },
	{ "--skip-old-files", { "--skip-old-files", "a" }, .archive = "a",
	  .existing = PFX_EXISTING_SKIP },
	{ "-k then --overwrite", { "-k", "--overwrite", "a" },
	  .archive = "a", .existing = PFX_EXISTING_REPLACE },
	{ "--overwrite then --skip-old-files",
	  { "--overwrite", "--skip-old-files", "a" }, .archive = "a",
	  .existing = PFX_EXISTING_SKIP },

	/* Metadata. */
	{ "--same-owner", { "--same-owner", "a" }, .archive = "a",
	  .set = PFX_OPT_SAME_OWNER },
	{ "--same-owner then --no-same-owner",
	  { "--same-owner", "--no-same-owner", "a" }, .archive = "a",
	  .clear = PFX_OPT_SAME_OWNER },
	{ "-o is --no-same-owner", { "--same-owner", "-xof", "a" },
	  .archive = "a", .clear = PFX_OPT_SAME_OWNER },
	{ "-p", { "-xpf", "a" }, .archive = "a",
	  .set = PFX_OPT_PRESERVE_PERMS },
	{ "--preserve-permissions", { "--preserve-permissions", "a" },
	  .archive = "a", .set = PFX_OPT_PRESERVE_PERMS },
	{ "--same-permissions", { "--same-permissions", "a" },
	  .archive = "a", .set = PFX_OPT_PRESERVE_PERMS },
	{ "-p then --no-same-permissions",
	  { "-p", "--no-same-permissions", "a" }, .archive = "a",
	  .clear = PFX_OPT_PRESERVE_PERMS },
	{ "-m", { "-xmf", "a" }, .archive = "a", .set = PFX_OPT_NO_MTIME },
	{ "--touch", { "--touch", "a" }, .archive = "a",
	  .set = PFX_OPT_NO_MTIME },
	{ "--numeric-owner", { "--numeric-owner", "a" }, .archive = "a",
	  .set = PFX_OPT_NUMERIC_OWNER },
	{ "--xattrs", { "--xattrs", "a" }, .archive = "a",
	  .set = PFX_OPT_XATTRS },
	{ "--xattrs then --no-xattrs", { "--xattrs", "--no-xattrs", "a" },
	  .archive = "a", .clear = PFX_OPT_XATTRS },

	/* Policy and output. */
	{ "--symlinks=contain", { "--symlinks=contain", "a" },
	  .archive = "a", .symlinks = PFX_SYMLINKS_CONTAIN },
	{ "--symlinks refuse", { "--symlinks=contain", "--symlinks",
	  "refuse", "a" }, .archive = "a",
	  .symlinks = PFX_SYMLINKS_REFUSE },
	{ "--symlinks=root", { "--symlinks=root", "a" },
	  .archive = "a", .symlinks = PFX_SYMLINKS_ROOT },
	{ "--keep-directory-symlink", { "--symlinks=root",
	  "--keep-directory-symlink", "a" }, .archive = "a",
	  .symlinks = PFX_SYMLINKS_ROOT },
	{ "--report=json", { "--report=json", "a" }, .archive = "a",
	  .report_json = true },
	{ "--report json", { "--report", "json", "a" }, .archive = "a",
	  .report_json = true },
	{ "-q", { "-xqf", "a" }, .archive = "a", .quiet = true },
	{ "--quiet", { "--quiet", "a" }, .archive = "a", .quiet = true },
	{ "--strict", { "--strict", "a" }, .archive = "a",
	  .set = PFX_OPT_STRICT },
	{ "--formats=LIST", { "--formats=tar,zip", "a" }, .archive = "a",
	  .formats = "tar,zip" },
	{ "--windows-names", { "--windows-names", "a" }, .archive = "a",
	  .set = PFX_OPT_WINDOWS_NAMES },
	{ "--strip-components=0", { "--strip-components=0", "a" },
	  .archive = "a" },
	{ "--strip-components=UINT_MAX",
	  { "--strip-components=4294967295", "a" }, .archive = "a",
	  .strip = UINT_MAX },
	{ "--strip-components leading zeros",
	  { "--strip-components=007", "a" }, .archive = "a", .strip = 7 },
	{ "--exclude and --include, repeated", { "--exclude=*.o",
	  "--include", "src/*", "--exclude", ".git", "--include=doc", "a" },
	  .archive = "a", .include = "src/*|doc", .exclude = "*.o|.git" },
	{ "empty --exclude= is a pattern", { "--exclude=", "a" },
	  .archive = "a", .exclude = "" },

	/* --help and --version stop the parse. */
	{ "--help", { "--help" }, .help = true },
	{ "--help stops before a bad option", { "-x", "--help", "--bogus" },
	  .help = true },
	{ "--version", { "--version" }, .version = true },
	{ "prefix --he", { "--he" }, .help = true },

	/* opts2: the rest of GNU tar's and bsdtar's lists. */
	{ "-i", { "-xif", "a" }, .archive = "a",
	  .set = PFX_OPT_IGNORE_ZEROS },
	{ "--ignore-zeros", { "--ignore-zeros", "a" }, .archive = "a",
	  .set = PFX_OPT_IGNORE_ZEROS },
	{ "--recursive-unlink", { "--recursive-unlink", "a" },
	  .archive = "a", .set = PFX_OPT_RECURSIVE_UNLINK },
	{ "--keep-newer-files", { "--keep-newer-files", "a" },
	  .archive = "a", .existing = PFX_EXISTING_KEEP_NEWER },
	{ "-U changes nothing", { "-xUf", "a" }, .archive = "a" },
	{ "--unlink (bsdtar)", { "--unlink", "a" }, .archive = "a" },
	{ "--no-overwrite-dir", { "--no-overwrite-dir", "a" },
	  .archive = "a" },
	{ "-b 20 takes its value", { "-xb", "20", "a" }, .archive = "a" },
	{ "-b20 -B -S", { "-b20", "-BS", "a" }, .archive = "a" },
	{ "-n is GNU's --seek", { "-xnf", "a" }, .archive = "a" },
	{ "--atime-preserve", { "--atime-preserve", "a" }, .archive = "a" },
	{ "--atime-preserve=system", { "--atime-preserve=system", "a" },
	  .archive = "a" },
	{ "--owner=x --group=y --mode=z --mtime=d",
	  { "--owner=x", "--group", "y", "--mode=z", "--mtime=d", "a" },
	  .archive = "a" },
	{ "--add-file takes a member", { "-f", "a", "--add-file=-m" },
	  .archive = "a", .members = "-m", .patterns = "-m" },
	{ "-K is a member too", { "-f", "a", "-K", "d/x", "m" },
	  .archive = "a", .members = "d/x|m", .patterns = "d/x|m" },
	{ "--cd is -C", { "--cd", "d", "a" }, .archive = "a", .dir = "d" },
	{ "--modification-time is -m", { "--modification-time", "a" },
	  .archive = "a", .set = PFX_OPT_NO_MTIME },
	{ "--preserve is -p", { "--preserve", "a" }, .archive = "a",
	  .set = PFX_OPT_PRESERVE_PERMS },
	{ "-? is --usage", { "-?" }, .help = true },
	{ "--usage", { "--usage" }, .help = true },
	{ "--no-acls --no-selinux --no-fflags",
	  { "--no-acls", "--no-selinux", "--no-fflags", "a" },
	  .archive = "a" },
	{ "-y --lz4 --zstd", { "-xy", "--lz4", "--zstd", "a" },
	  .archive = "a" },
	{ "--quoting-style=c", { "--quoting-style=c", "a" }, .archive = "a" },
};

#define NOK (sizeof(ok_rows) / sizeof(ok_rows[0]))

/* One spelling that is a usage error, and a piece of its message. */
struct err_row {
	const char *name;
	const char *argv[MAXARGV];
	const char *want;
};

#define WHY_OP "is refused: pfextract only extracts and lists"

static const struct err_row err_rows[] = {
	/* Refused, saying why. */
	{ "-P", { "-xPf", "a" },
	  "'-P' (--absolute-names) is refused: it would let names escape "
	  "the destination" },
	{ "--absolute-names", { "--absolute-names", "a" },
	  "'--absolute-names' is refused: it would let names escape the "
	  "destination" },
	{ "prefix --abs", { "--abs", "a" },
	  "'--absolute-names' is refused" },
	{ "--to-command=sh", { "--to-command=sh", "a" },
	  "'--to-command' is refused: it runs a program per entry" },
	{ "--to-command sh", { "a", "--to-command", "sh" },
	  "'--to-command' is refused: it runs a program per entry" },
	{ "-I gzip", { "-I", "gzip", "a" },
	  "'-I' (--use-compress-program) is refused: it runs an external "
	  "program on hostile input" },
	{ "-Igzip", { "-xIgzip", "a" }, "'-I' (--use-compress-program)" },
	{ "--use-compress-program=gzip",
	  { "--use-compress-program=gzip", "a" },
	  "'--use-compress-program' is refused: it runs an external "
	  "program on hostile input" },
	{ "-h", { "-xhf", "a" },
	  "'-h' (--dereference) is refused: it would follow symlinks" },
	{ "--dereference", { "--dereference", "a" },
	  "'--dereference' is refused: it would follow symlinks" },
	{ "-c", { "-cf", "a", "." }, "'-c' (--create) " WHY_OP },
	{ "-r", { "-rf", "a", "." }, "'-r' (--append) " WHY_OP },
	{ "-u", { "-uf", "a", "." }, "'-u' (--update) " WHY_OP },
	{ "-A", { "-Af", "a", "b" }, "'-A' (--concatenate) " WHY_OP },
	{ "-d", { "-df", "a" }, "'-d' (--diff) " WHY_OP },
	{ "--create", { "--create", "a" }, "'--create' " WHY_OP },
	{ "--append", { "--append", "a" }, "'--append' " WHY_OP },
	{ "--update", { "--update", "a" }, "'--update' " WHY_OP },
	{ "--concatenate", { "--concatenate", "a" },
	  "'--concatenate' " WHY_OP },
	{ "--catenate", { "--catenate", "a" }, "'--catenate' " WHY_OP },
	{ "--diff", { "--diff", "a" }, "'--diff' " WHY_OP },
	{ "--compare", { "--compare", "a" }, "'--compare' " WHY_OP },
	{ "--delete", { "--delete", "a" }, "'--delete' " WHY_OP },
	{ "old-style cvf", { "cvf", "out.tar", "." },
	  "'-c' (--create) " WHY_OP },
	{ "old-style xPf", { "xPf", "a" }, "'-P' (--absolute-names)" },

	/* Unknown. */
	{ "unknown long", { "--foo", "a" }, "unknown option '--foo'" },
	{ "unknown long with a value", { "--foo=bar", "a" },
	  "unknown option '--foo'" },
	{ "unknown short", { "-Y", "a" }, "unknown option '-Y'" },
	{ "unknown short in a bundle", { "-xYf", "a" },
	  "unknown option '-Y'" },
	{ "unknown after operands", { "a", "m", "--transmogrify=1" },
	  "unknown option '--transmogrify'" },
	{ "empty long name", { "--=x", "a" }, "unknown option '--'" },

	/* Two modes. */
	{ "-x -t", { "-x", "-t", "a" }, "only one of -x" },
	{ "-xt", { "-xtf", "a" }, "only one of -x" },
	{ "--extract --list", { "--extract", "--list", "a" },
	  "only one of -x" },
	{ "old-style x then -t", { "xf", "a", "-t" }, "only one of -x" },

	/* Ambiguous prefixes. */
	{ "ambiguous --s", { "--s", "a" },
	  "option '--s' is ambiguous; possibilities:" },
	{ "ambiguous --s lists --strip-components", { "--s", "a" },
	  "'--strip-components'" },
	{ "ambiguous --s lists --skip-old-files", { "--s", "a" },
	  "'--skip-old-files'" },
	{ "ambiguous --no-same", { "--no-same", "a" },
	  "option '--no-same' is ambiguous; possibilities: "
	  "'--no-same-owner' '--no-same-permissions'" },
	{ "ambiguous --stri", { "--stri=1", "a" },
	  "'--strip-components' '--strict'" },
	{ "ambiguous --ver", { "--ver", "a" },
	  "possibilities: '--verbose' '--version'" },
	{ "ambiguous --g", { "--g", "a" }, "'--get' '--gzip' '--gunzip'" },

	/* Missing arguments. */
	{ "-f at the end", { "-x", "-f" }, "option '-f' requires an argument" },
	{ "-xC at the end", { "a", "-xC" },
	  "option '-C' requires an argument" },
	{ "-X at the end", { "a", "-X" }, "option '-X' requires an argument" },
	{ "--file at the end", { "-x", "--file" },
	  "option '--file' requires an argument" },
	{ "--directory at the end", { "a", "--directory" },
	  "option '--directory' requires an argument" },
	{ "--strip-components at the end", { "a", "--strip-components" },
	  "option '--strip-components' requires an argument" },
	{ "--exclude at the end", { "a", "--exclude" },
	  "option '--exclude' requires an argument" },
	{ "--symlinks at the end", { "a", "--symlinks" },
	  "option '--symlinks' requires an argument" },
	{ "old-style xf without an archive", { "xf" },
	  "option '-f' requires an argument" },
	{ "old-style xfC without a directory", { "xfC", "a.tar" },
	  "option '-C' requires an argument" },

	/* Bad values. */
	{ "--verbose=2", { "--verbose=2", "a" },
	  "option '--verbose' does not take an argument" },
	{ "prefix with a value", { "--verbo=2", "a" },
	  "option '--verbose' does not take an argument" },
	{ "--strip-components=x", { "--strip-components=x", "a" },
	  "invalid --strip-components value 'x'" },
	{ "--strip-components=-1", { "--strip-components=-1", "a" },
	  "invalid --strip-components value '-1'" },
	{ "--strip-components=+1", { "--strip-components=+1", "a" },
	  "invalid --strip-components value '+1'" },
	{ "--strip-components=' 1'", { "--strip-components= 1", "a" },
	  "invalid --strip-components value ' 1'" },
	{ "--strip-components=1x", { "--strip-components=1x", "a" },
	  "invalid --strip-components value '1x'" },
	{ "--strip-components=0x10", { "--strip-components=0x10", "a" },
	  "invalid --strip-components value '0x10'" },
	{ "--strip-components=", { "--strip-components=", "a" },
	  "invalid --strip-components value ''" },
	{ "--strip-components=UINT_MAX+1",
	  { "--strip-components=4294967296", "a" },
	  "invalid --strip-components value '4294967296'" },
	{ "--strip-components=huge",
	  { "--strip-components=99999999999999999999999", "a" },
	  "invalid --strip-components value" },
	{ "--symlinks=follow", { "--symlinks=follow", "a" },
	  "invalid --symlinks value 'follow'" },
	{ "--symlinks=", { "--symlinks=", "a" },
	  "invalid --symlinks value ''" },
	{ "--report=xml", { "--report=xml", "a" },
	  "invalid --report value 'xml'" },
	{ "--formats=", { "--formats=", "a" }, "--formats needs" },
	{ "--format=bogus", { "--format=bogus", "a" },
	  "invalid --format value 'bogus'" },
	{ "-H zip", { "-H", "zip", "a" }, "invalid --format value 'zip'" },
	{ "-O with --report=json", { "-O", "--report=json", "a" },
	  "both write to standard output" },
	{ "--transform unterminated", { "--transform=s/a/b", "a" },
	  "unterminated" },
	{ "--transform not s", { "--transform=y/a/b/", "a" },
	  "only s/regex/replacement/" },
	{ "--transform unknown flag", { "--transform=s/a/b/q", "a" },
	  "unknown flag" },
	{ "--transform back-reference", { "--transform=s/\\(a\\)\\1/b/",
	  "a" }, "back-references in the pattern are refused" },
	{ "--transform bad regex", { "--transform=s/a\\{1/b/", "a" },
	  "invalid transform expression" },
	{ "--transform second rule bad", { "--transform=s/a/b/;s/c", "a" },
	  "unterminated" },
	{ "-s with bsdtar's p only", { "--transform=s/a/b/p", "a" },
	  "unknown flag" },
	{ "--occurrence=x", { "--occurrence=x", "a", "m" },
	  "invalid --occurrence value 'x'" },
	{ "--occurrence without members", { "--occurrence", "a" },
	  "meaningless without a file list" },
	{ "--one-top-level from stdin", { "--one-top-level", "-f", "-" },
	  "cannot deduce the top-level directory" },
	{ "--one-top-level from a.zip", { "--one-top-level", "a.zip" },
	  "cannot deduce the top-level directory" },
	{ "--one-top-level from .tar", { "--one-top-level", ".tar" },
	  "cannot deduce the top-level directory" },
	/* "." put every entry at DEST's top, beside the other uploads'
	 * directories and into them, silently; ".." refused them all. */
	{ "--one-top-level from ..tar", { "--one-top-level", "up/..tar" },
	  "cannot deduce the top-level directory" },
	{ "--one-top-level from ..tgz", { "--one-top-level", "..tgz" },
	  "cannot deduce the top-level directory" },
	{ "--one-top-level from ..tar.gz", { "--one-top-level", "..tar.gz" },
	  "cannot deduce the top-level directory" },
	{ "--one-top-level from ...tar", { "--one-top-level", "...tar" },
	  "cannot deduce the top-level directory" },
	{ "--one-top-level=", { "--one-top-level=", "a.tar" },
	  "needs a directory" },
	{ "-T - with the archive on stdin", { "-T", "-" },
	  "standard input is the archive's" },
	{ "-T missing", { "-T", "/nonexistent/list", "a" },
	  "cannot open file list" },
	{ "--verb is ambiguous", { "--verb", "a" }, "is ambiguous" },
	{ "-f twice", { "-f", "a", "-f", "b" }, "require '-M' option" },
	{ "-f empty", { "-f", "", "x" }, "-f needs an archive name" },
	{ "-C empty", { "a", "-C", "" }, "-C needs a directory" },

	/* opts2: refused with a reason, and bad values. */
	{ "--acls", { "--acls", "a" }, "'--acls' is refused: POSIX ACLs" },
	{ "--selinux", { "--selinux", "a" },
	  "'--selinux' is refused: security.* attributes" },
	{ "-w", { "-xwf", "a" }, "'-w' (--interactive) is refused: it "
	  "prompts" },
	{ "--confirmation", { "--confirmation", "a" },
	  "'--confirmation' is refused" },
	{ "--rsh-command", { "--rsh-command=ssh", "a" },
	  "'--rsh-command' is refused: it runs a program" },
	{ "--rmt-command", { "--rmt-command", "x", "a" },
	  "'--rmt-command' is refused" },
	{ "--insecure", { "--insecure", "a" },
	  "'--insecure' is refused: it would let names escape" },
	{ "--chroot", { "--chroot", "a" }, "'--chroot' is refused" },
	{ "--passphrase", { "--passphrase=x", "a" },
	  "'--passphrase' is refused" },
	{ "--options", { "--options=hdrcharset=UTF-8", "a" },
	  "'--options' is refused" },
	{ "--fflags", { "--fflags", "a" }, "'--fflags' is refused" },
	{ "--backup=bogus", { "--backup=bogus", "a" },
	  "invalid --backup value 'bogus'" },
	{ "--suffix with a /", { "--suffix=/x", "a" },
	  "invalid --suffix value '/x'" },
	{ "--suffix empty", { "--suffix=", "a" }, "invalid --suffix value" },
	{ "-N bogus", { "-N", "yesterday", "a" }, "invalid date 'yesterday'" },
	{ "-N bad month", { "-N", "2020-13-01", "a" }, "invalid date" },
	{ "-N trailing junk", { "--newer=2020-01-01x", "a" }, "invalid date" },
	{ "--newer-than missing", { "--newer-than=/nonexistent/x", "a" },
	  "cannot stat '/nonexistent/x'" },
	{ "--quoting-style=bogus", { "--quoting-style=bogus", "a" },
	  "invalid --quoting-style value 'bogus'" },
	{ "--unlink-first takes no value", { "--unlink-first=1", "a" },
	  "does not take an argument" },
};

#define NERR (sizeof(err_rows) / sizeof(err_rows[0]))

/* Build ARGV ("pfextract" and ROW's words) into OUT.  Return: argc. */
static int
make_argv(const char *const *words, char **out)
{
	int n = 0;

	out[n++] = "pfextract";
	while (n < MAXARGV && words[n - 1] != NULL) {
		out[n] = (char *)words[n - 1];
		n++;
	}
	out[n] = NULL;
	return n;
}

/* Return: the N strings of V joined by '|', in new memory. */
static char *
join(char **v, size_t n)
{
	char *buf = NULL;
	size_t size = 0, i;
	FILE *f;

	f = open_memstream(&buf, &size);
	cr_assert_not_null(f);
	for (i = 0; i < n; i++)
		fprintf(f, "%s%s", i > 0 ? "|" : "", v[i]);
	cr_assert_eq(fclose(f), 0);
	return buf;
}

/* Expect the N strings of V to join to WANT (NULL: none). */
static void
expect_list(const char *row, const char *what, char **v, size_t n,
    const char *want)
{
	char *got;

	if (want == NULL) {
		cr_expect_eq(n, 0, "%s: %s: %zu given, none expected", row,
		    what, n);
		return;
	}
	got = join(v, n);
	cr_expect_str_eq(got, want, "%s: %s \"%s\", expected \"%s\"", row,
	    what, got, want);
	free(got);
}

/* Expect the string GOT to be WANT, both possibly NULL. */
static void
expect_str(const char *row, const char *what, const char *got,
    const char *want)
{
	if (want == NULL)
		cr_expect_null(got, "%s: %s \"%s\", expected none", row, what,
		    got);
	else if (got == NULL)
		cr_expect(false, "%s: %s none, expected \"%s\"", row, what,
		    want);
	else
		cr_expect_str_eq(got, want, "%s: %s \"%s\", expected \"%s\"",
		    row, what, got, want);
}

ParameterizedTestParameters(xtr_args_ok, parse)
{
	static size_t index[NOK];
	size_t i;

	for (i = 0; i < NOK; i++)
		index[i] = i;
	return cr_make_param_array(size_t, index, NOK);
}

ParameterizedTest(size_t *i, xtr_args_ok, parse)
{
	const struct ok_row *r = &ok_rows[*i];
	struct pfx_options def;
	struct xtr_args a;
	char *argv[MAXARGV + 1];
	char err[256];
	unsigned int flags;
	int argc, rc;

	pfx_options_init(&def);
	flags = (def.flags | r->set) & ~r->clear;
	argc = make_argv(r->argv, argv);
	rc = xtr_parse_args(argc, argv, &a, err, sizeof(err));
	cr_assert_eq(rc, 0, "%s: refused: %s", r->name, err);

	cr_expect_eq(a.mode, r->mode != 0 ? r->mode : 'x',
	    "%s: mode '%c'", r->name, a.mode);
	expect_str(r->name, "archive", a.archive, r->archive);
	expect_str(r->name, "dir", a.dir, r->dir);
	cr_expect_eq(a.verbose, r->verbose, "%s: verbose %d, expected %d",
	    r->name, a.verbose, r->verbose);
	expect_list(r->name, "members", a.members, a.nmembers, r->members);
	expect_list(r->name, "include", a.include, a.ninclude, r->include);
	expect_list(r->name, "patterns", a.member_pat, a.nmember_pat,
	    r->patterns);
	cr_expect_eq(a.wildcards_given, r->wildcards_given,
	    "%s: wildcards_given", r->name);
	expect_list(r->name, "exclude", a.exclude, a.nexclude, r->exclude);
	cr_expect_eq(a.opt.flags, flags, "%s: flags %#x, expected %#x",
	    r->name, a.opt.flags, flags);
	cr_expect_eq(a.opt.strip_components, r->strip,
	    "%s: strip %u, expected %u", r->name, a.opt.strip_components,
	    r->strip);
	cr_expect_eq(a.opt.symlinks, r->symlinks, "%s: symlinks %d",
	    r->name, (int)a.opt.symlinks);
	cr_expect_eq(a.opt.existing, r->existing, "%s: existing %d",
	    r->name, (int)a.opt.existing);
	cr_expect_eq(a.report_json, r->report_json, "%s: report_json",
	    r->name);
	cr_expect_eq(a.quiet, r->quiet, "%s: quiet", r->name);
	cr_expect_eq(a.help, r->help, "%s: help", r->name);
	cr_expect_eq(a.version, r->version, "%s: version", r->name);
	expect_str(r->name, "formats", a.opt.formats, r->formats);
	cr_expect_eq(a.to_stdout, r->to_stdout, "%s: to_stdout", r->name);
	cr_expect_eq(a.opt.out_fd, r->set & PFX_OPT_TO_FD ? 1 : -1,
	    "%s: out_fd %d", r->name, a.opt.out_fd);
	cr_expect_eq(a.show_transformed, r->show_transformed,
	    "%s: show_transformed", r->name);
	cr_expect_eq(a.xforms != NULL, r->xforms, "%s: xforms", r->name);
	cr_expect_eq(a.opt.occurrence, r->occurrence, "%s: occurrence %u",
	    r->name, a.opt.occurrence);
	expect_str(r->name, "top_dir", a.top_dir, r->top_dir);
	for (size_t k = 0; k < a.nmember_pat; k++)
		cr_expect_eq(a.member_whole[k], r->whole != NULL &&
		    r->whole[k] == '1', "%s: member %zu whole", r->name, k);
	cr_expect(a.opt.member_whole == a.member_whole, "%s: member_whole",
	    r->name);
	for (size_t k = 0; k < a.nmember_pat; k++)
		cr_expect_eq(a.member_flags[k], r->mflags != NULL ?
		    (unsigned int)(r->mflags[k] - '0') : PFX_MATCH_ANCHORED,
		    "%s: member %zu flags %u", r->name, k, a.member_flags[k]);
	for (size_t k = 0; k < a.nexclude; k++)
		cr_expect_eq(a.exclude_flags[k], r->xflags != NULL ?
		    (unsigned int)(r->xflags[k] - '0') : 0u,
		    "%s: exclude %zu flags %u", r->name, k, a.exclude_flags[k]);
	cr_expect(a.opt.member_flags == a.member_flags &&
	    a.opt.exclude_flags == a.exclude_flags, "%s: flags", r->name);

	/* The library's view is the same arrays. */
	cr_expect(a.opt.include == (const char *const *)a.include &&
	    a.opt.ninclude == a.ninclude, "%s: opt.include", r->name);
	cr_expect(a.opt.exclude == (const char *const *)a.exclude &&
	    a.opt.nexclude == a.nexclude, "%s: opt.exclude", r->name);
	cr_expect(a.opt.members == (const char *const *)a.member_pat &&
	    a.opt.nmembers == a.nmember_pat, "%s: opt.members", r->name);
	cr_expect_eq(a.opt.resolver, def.resolver, "%s: resolver",
	    r->name);
	xtr_args_free(&a);
}

ParameterizedTestParameters(xtr_args_err, parse)
{
	static size_t index[NERR];
	size_t i;

	for (i = 0; i < NERR; i++)
		index[i] = i;
	return cr_make_param_array(size_t, index, NERR);
}

ParameterizedTest(size_t *i, xtr_args_err, parse)
{
	const struct err_row *r = &err_rows[*i];
	struct xtr_args a;
	char *argv[MAXARGV + 1];
	char err[512];
	int argc, rc;

	memset(err, 0, sizeof(err));
	argc = make_argv(r->argv, argv);
	rc = xtr_parse_args(argc, argv, &a, err, sizeof(err));
	cr_expect_eq(rc, -1, "%s: accepted", r->name);
	cr_expect(strstr(err, r->want) != NULL,
	    "%s: message \"%s\", expected it to hold \"%s\"", r->name, err,
	    r->want);
	cr_expect(strchr(err, '\n') == NULL, "%s: not one line", r->name);
	xtr_args_free(&a);
}

/* A usage error with no buffer, or a tiny one, is still just -1. */
Test(xtr_args_err, small_buffers)
{
	char *argv[] = { "pfextract", "--s", NULL };
	char *argv2[] = { "pfextract", "--foo", NULL };
	struct xtr_args a;
	char err[8];

	cr_expect_eq(xtr_parse_args(2, argv, &a, NULL, 0), -1);
	xtr_args_free(&a);
	memset(err, 'z', sizeof(err));
	cr_expect_eq(xtr_parse_args(2, argv, &a, err, 5), -1);
	cr_expect_str_eq(err, "opti");
	cr_expect_eq(err[5], 'z', "wrote past the given size");
	xtr_args_free(&a);
	cr_expect_eq(xtr_parse_args(2, argv2, &a, err, 1), -1);
	cr_expect_str_eq(err, "");
	xtr_args_free(&a);
}

Test(xtr_args, usage_text)
{
	const char *p = xtr_usage, *nl;

	cr_expect(strncmp(xtr_usage, "usage: pfextract [-x | -t] ", 27) == 0,
	    "usage starts \"%.27s\"", xtr_usage);
	cr_expect(xtr_usage[strlen(xtr_usage) - 1] == '\n');
	for (; *p != '\0'; p = nl + 1) {
		nl = strchr(p, '\n');
		cr_assert_not_null(nl);
		cr_expect(nl - p <= 80, "usage line over 80 columns: %.*s",
		    (int)(nl - p), p);
	}
}

Test(xtr_args, free_is_idempotent)
{
	char *argv[] = { "pfextract", "-f", "a", "m1", "--exclude=x",
	    NULL };
	struct xtr_args a;

	cr_assert_eq(xtr_parse_args(5, argv, &a, NULL, 0), 0);
	xtr_args_free(&a);
	cr_expect_null(a.members);
	cr_expect_null(a.include);
	cr_expect_null(a.exclude);
	cr_expect_null(a.opt.include);
	cr_expect_null(a.member_pat);
	cr_expect_null(a.opt.members);
	cr_expect_eq(a.nmembers + a.ninclude + a.nexclude + a.nmember_pat +
	    a.opt.nmembers, 0);
	xtr_args_free(&a);

	/* A zeroed struct, never parsed, is fine too. */
	memset(&a, 0, sizeof(a));
	xtr_args_free(&a);
}

/*
 * -X files.  Each test writes its own file with mkstemp(3) under
 * $TMPDIR and removes it again.
 */

/* Write LEN bytes of DATA to a new temporary file.  Return: its path. */
static char *
temp_file(const void *data, size_t len)
{
	const char *dir = getenv("TMPDIR");
	char *path = NULL;
	int fd;

	if (dir == NULL || dir[0] == '\0')
		dir = "/tmp";
	cr_assert_gt(asprintf(&path, "%s/test_args.XXXXXX", dir), 0);
	fd = mkstemp(path);
	cr_assert_geq(fd, 0, "mkstemp %s: %s", path, strerror(errno));
	cr_assert_eq(write(fd, data, len), (ssize_t)len);
	cr_assert_eq(close(fd), 0);
	return path;
}

/* Parse "pfextract OPT1 OPT2 ... a" built around -X PATH. */
static int
parse_x(const char *spelling, const char *path, struct xtr_args *a,
    char *err, size_t errcap)
{
	char *argv[8];
	char *joined = NULL;
	int argc = 0, rc;

	argv[argc++] = "pfextract";
	if (strcmp(spelling, "-X") == 0 ||
	    strcmp(spelling, "--exclude-from") == 0) {
		argv[argc++] = (char *)spelling;
		argv[argc++] = (char *)path;
	} else {
		/* "-X" attached or "--exclude-from=" */
		cr_assert_gt(asprintf(&joined, "%s%s", spelling, path), 0);
		argv[argc++] = joined;
	}
	argv[argc++] = "a";
	argv[argc] = NULL;
	rc = xtr_parse_args(argc, argv, a, err, errcap);
	/* Patterns are copies: the argument may go away now. */
	free(joined);
	return rc;
}

Test(xtr_args_x, lines)
{
	static const char data[] = "a\n  b  \n\n \t\n*.o\r\nlast";
	static const char *const spellings[] = { "-X", "-X",
	    "--exclude-from", "--exclude-from=" };
	char *path = temp_file(data, sizeof(data) - 1);
	struct xtr_args a;
	char err[256];
	size_t s;

	for (s = 0; s < sizeof(spellings) / sizeof(spellings[0]); s++) {
		cr_assert_eq(parse_x(spellings[s], path, &a, err, sizeof(err)),
		    0, "%s: %s", spellings[s], err);
		expect_list(spellings[s], "exclude", a.exclude, a.nexclude,
		    "a|  b|*.o|last");
		cr_expect_str_eq(a.archive, "a");
		cr_expect(a.opt.exclude == (const char *const *)a.exclude &&
		    a.opt.nexclude == 4);
		xtr_args_free(&a);
	}
	unlink(path);
	free(path);
}

Test(xtr_args_x, order_with_exclude)
{
	char *path = temp_file("p1\np2\n", 6);
	char *argv[] = { "pfextract", "--exclude=first", "-xX", path,
	    "--exclude", "after", "-fa", NULL };
	struct xtr_args a;
	char err[256];

	cr_assert_eq(xtr_parse_args(7, argv, &a, err, sizeof(err)), 0,
	    "%s", err);
	expect_list("order", "exclude", a.exclude, a.nexclude,
	    "first|p1|p2|after");
	xtr_args_free(&a);
	unlink(path);
	free(path);
}

Test(xtr_args_x, old_style_bundle)
{
	char *path = temp_file("p\n", 2);
	char *argv[] = { "pfextract", "xfX", "a.tar", path, NULL };
	struct xtr_args a;
	char err[256];

	cr_assert_eq(xtr_parse_args(4, argv, &a, err, sizeof(err)), 0,
	    "%s", err);
	cr_expect_str_eq(a.archive, "a.tar");
	expect_list("xfX", "exclude", a.exclude, a.nexclude, "p");
	xtr_args_free(&a);
	unlink(path);
	free(path);
}

Test(xtr_args_x, empty_file)
{
	char *path = temp_file("", 0);
	struct xtr_args a;
	char err[256];

	cr_assert_eq(parse_x("-X", path, &a, err, sizeof(err)), 0, "%s",
	    err);
	cr_expect_eq(a.nexclude, 0);
	xtr_args_free(&a);
	unlink(path);
	free(path);
}

Test(xtr_args_x, line_limit)
{
	char *data = malloc(6 + 4097 + 1);
	char *path;
	struct xtr_args a;
	char err[256];

	cr_assert_not_null(data);

	/* 4096 bytes, then a newline: the longest line allowed. */
	memset(data, 'a', 4096);
	data[4096] = '\n';
	path = temp_file(data, 4097);
	cr_expect_eq(parse_x("-X", path, &a, err, sizeof(err)), 0, "%s",
	    err);
	cr_expect_eq(a.nexclude, 1);
	if (a.nexclude == 1)
		cr_expect_eq(strlen(a.exclude[0]), 4096);
	xtr_args_free(&a);
	unlink(path);
	free(path);

	/* 4097 bytes, with or without a newline: refused. */
	memset(data, 'a', 4097);
	data[4097] = '\n';
	path = temp_file(data, 4098);
	cr_expect_eq(parse_x("-X", path, &a, err, sizeof(err)), -1);
	cr_expect(strstr(err, "line 1 is longer than 4096 bytes") != NULL,
	    "message: %s", err);
	xtr_args_free(&a);
	unlink(path);
	free(path);
	path = temp_file(data, 4097);
	cr_expect_eq(parse_x("-X", path, &a, err, sizeof(err)), -1);
	xtr_args_free(&a);
	unlink(path);
	free(path);

	/* The line number counts from 1. */
	memcpy(data, "ok\nok\n", 6);
	memset(data + 6, 'a', 4097);
	path = temp_file(data, 6 + 4097);
	cr_expect_eq(parse_x("-X", path, &a, err, sizeof(err)), -1);
	cr_expect(strstr(err, "line 3 is longer") != NULL, "message: %s",
	    err);
	xtr_args_free(&a);
	unlink(path);
	free(path);
	free(data);
}

Test(xtr_args_x, file_limit)
{
	const size_t mib = 1024 * 1024;
	char *data = malloc(mib + 1);
	char *path;
	struct xtr_args a;
	char err[256];
	size_t k;

	cr_assert_not_null(data);
	/* Lines of 63 'x' and a newline: exactly 1 MiB is allowed. */
	for (k = 0; k < mib; k++)
		data[k] = (k % 64 == 63) ? '\n' : 'x';
	path = temp_file(data, mib);
	cr_expect_eq(parse_x("-X", path, &a, err, sizeof(err)), 0, "%s",
	    err);
	cr_expect_eq(a.nexclude, mib / 64);
	xtr_args_free(&a);
	unlink(path);
	free(path);

	data[mib] = 'x';
	path = temp_file(data, mib + 1);
	cr_expect_eq(parse_x("-X", path, &a, err, sizeof(err)), -1);
	cr_expect(strstr(err, "is larger than 1048576 bytes") != NULL,
	    "message: %s", err);
	xtr_args_free(&a);
	unlink(path);
	free(path);
	free(data);
}

Test(xtr_args_x, nul_byte)
{
	char *path = temp_file("a\nb\0c\n", 6);
	struct xtr_args a;
	char err[256];

	cr_expect_eq(parse_x("-X", path, &a, err, sizeof(err)), -1);
	cr_expect(strstr(err, "line 2 holds a NUL byte") != NULL,
	    "message: %s", err);
	xtr_args_free(&a);
	unlink(path);
	free(path);
}

Test(xtr_args_x, missing_file)
{
	struct xtr_args a;
	char err[256];

	cr_expect_eq(parse_x("-X", "/nonexistent/pfextract-x", &a, err,
	    sizeof(err)), -1);
	cr_expect(strstr(err, "cannot open exclude file "
	    "'/nonexistent/pfextract-x'") != NULL, "message: %s", err);
	xtr_args_free(&a);
}

/* "-X -" names a file called "-": standard input is the archive's. */
Test(xtr_args_x, dash_is_a_file_name)
{
	struct xtr_args a;
	char err[256];
	int fd;

	fd = open("-", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		cr_skip_test("a file named '-' exists in the test's cwd");
	}
	cr_expect_eq(parse_x("-X", "-", &a, err, sizeof(err)), -1);
	cr_expect(strstr(err, "cannot open exclude file '-'") != NULL,
	    "message: %s", err);
	xtr_args_free(&a);
}

/*
 * Ownership.  Under ASan, the allocator counts the bytes in use: parsing
 * every row and freeing it must bring the count back.  Without ASan the
 * test still runs every path, for LSan or valgrind to judge.
 */
#if defined(__SANITIZE_ADDRESS__)
#define HAVE_ALLOC_COUNT 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HAVE_ALLOC_COUNT 1
#endif
#endif

#ifdef HAVE_ALLOC_COUNT
size_t __sanitizer_get_current_allocated_bytes(void);
#define ALLOCATED() __sanitizer_get_current_allocated_bytes()
#else
#define ALLOCATED() ((size_t)0)
#endif

/*
 * -T files (issue 19): names, one per line or NUL-terminated with --null,
 * as member operands; literal unless --wildcards came before -T.
 */

/* Parse ARGV (NULL-terminated, after "pfextract"). */
static int
parse_words(const char *const *words, struct xtr_args *a, char *err,
    size_t errcap)
{
	char *argv[MAXARGV + 1];
	int argc = make_argv(words, argv);

	return xtr_parse_args(argc, argv, a, err, errcap);
}

Test(xtr_args_t, lines_are_members)
{
	static const char data[] = "a\n  b  \n\nd*r/\nlast";
	char *path = temp_file(data, sizeof(data) - 1);
	const char *w1[] = { "-f", "x.tar", "m", "-T", path, NULL };
	const char *w2[] = { "-f", "x.tar", "--wildcards", "--files-from",
	    path, NULL };
	struct xtr_args a;
	char err[256];

	cr_assert_eq(parse_words(w1, &a, err, sizeof(err)), 0, "%s", err);
	expect_list("-T", "members", a.members, a.nmembers,
	    "m|a|  b  |d*r/|last");
	expect_list("-T", "patterns", a.member_pat, a.nmember_pat,
	    "m|a|  b  |d\\*r|last");
	cr_expect(a.opt.members == (const char *const *)a.member_pat &&
	    a.opt.nmembers == 5);
	xtr_args_free(&a);
	cr_assert_eq(parse_words(w2, &a, err, sizeof(err)), 0, "%s", err);
	expect_list("--wildcards -T", "patterns", a.member_pat,
	    a.nmember_pat, "a|  b  |d*r|last");
	xtr_args_free(&a);
	unlink(path);
	free(path);
}

Test(xtr_args_t, null_and_verbatim)
{
	static const char data[] = "a\0-b\nc\0\0last";
	static const char opt[] = "a\n-C\ndir\n";
	char *path = temp_file(data, sizeof(data) - 1);
	char *opath = temp_file(opt, sizeof(opt) - 1);
	const char *w1[] = { "--null", "-T", path, "x.tar", NULL };
	const char *w2[] = { "-T", path, "x.tar", NULL };
	const char *w3[] = { "-T", opath, "x.tar", NULL };
	const char *w4[] = { "--verbatim-files-from", "-T", opath, "x.tar",
	    NULL };
	const char *w5[] = { "--null", "--no-null", "--verbatim-files-from",
	    "-T", opath, "x.tar", NULL };
	struct xtr_args a;
	char err[512];

	cr_assert_eq(parse_words(w1, &a, err, sizeof(err)), 0, "%s", err);
	expect_list("--null -T", "members", a.members, a.nmembers,
	    "a|-b\nc|last");
	cr_expect_str_eq(a.archive, "x.tar");
	xtr_args_free(&a);
	/* Without --null a NUL is refused, as in an -X file. */
	cr_expect_eq(parse_words(w2, &a, err, sizeof(err)), -1);
	cr_expect(strstr(err, "holds a NUL byte") != NULL, "%s", err);
	xtr_args_free(&a);
	/* GNU tar would take "-C" as an option: refused, with why. */
	cr_expect_eq(parse_words(w3, &a, err, sizeof(err)), -1);
	cr_expect(strstr(err, "line 2 ('-C') is an option") != NULL, "%s",
	    err);
	xtr_args_free(&a);
	cr_assert_eq(parse_words(w4, &a, err, sizeof(err)), 0, "%s", err);
	expect_list("--verbatim-files-from", "members", a.members,
	    a.nmembers, "a|-C|dir");
	xtr_args_free(&a);
	cr_assert_eq(parse_words(w5, &a, err, sizeof(err)), 0, "%s", err);
	expect_list("--no-null", "members", a.members, a.nmembers,
	    "a|-C|dir");
	xtr_args_free(&a);
	unlink(path);
	unlink(opath);
	free(path);
	free(opath);
}

Test(xtr_args_t, dash_is_stdin_when_the_archive_is_not)
{
	static const char data[] = "one\ntwo\n";
	char *path = temp_file(data, sizeof(data) - 1);
	const char *w[] = { "-f", "x.tar", "-T", "-", NULL };
	struct xtr_args a;
	char err[256];
	int fd, saved;

	fd = open(path, O_RDONLY);
	cr_assert_geq(fd, 0);
	saved = dup(STDIN_FILENO);
	cr_assert_geq(saved, 0);
	cr_assert_eq(dup2(fd, STDIN_FILENO), STDIN_FILENO);
	cr_assert_eq(parse_words(w, &a, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(dup2(saved, STDIN_FILENO), STDIN_FILENO);
	close(saved);
	close(fd);
	expect_list("-T -", "members", a.members, a.nmembers, "one|two");
	xtr_args_free(&a);
	unlink(path);
	free(path);
}

Test(xtr_args_t, limits)
{
	char *big = malloc(XTR_T_LINE + 2);
	char *path;
	const char *w[] = { "-T", NULL, "x.tar", NULL };
	struct xtr_args a;
	char err[256];

	cr_assert_not_null(big);
	memset(big, 'a', XTR_T_LINE + 1);
	big[XTR_T_LINE + 1] = '\n';
	path = temp_file(big, XTR_T_LINE + 2);
	w[1] = path;
	cr_expect_eq(parse_words(w, &a, err, sizeof(err)), -1);
	cr_expect(strstr(err, "is longer than 4096 bytes") != NULL, "%s",
	    err);
	xtr_args_free(&a);
	unlink(path);
	free(path);
	free(big);
}

Test(xtr_args, free_releases_everything)
{
	char *path = temp_file("p1\np2\np3\n", 9);
	char *argv[MAXARGV + 1];
	char *xargv[] = { "pfextract", "--exclude=e", "-X", path, "-f", "a",
	    "m1", "m2", "--include=i", NULL };
	char *xbad[] = { "pfextract", "--exclude=e", "m", "-X", "/nonexistent",
	    NULL };
	struct xtr_args a;
	char err[256];
	size_t before, after, i;
	int argc, round;

	/* A first round warms up stdio and anything else lazily made. */
	for (round = 0; round < 2; round++) {
		before = ALLOCATED();
		for (i = 0; i < NOK; i++) {
			argc = make_argv(ok_rows[i].argv, argv);
			(void)xtr_parse_args(argc, argv, &a, err,
			    sizeof(err));
			xtr_args_free(&a);
		}
		for (i = 0; i < NERR; i++) {
			argc = make_argv(err_rows[i].argv, argv);
			(void)xtr_parse_args(argc, argv, &a, err,
			    sizeof(err));
			xtr_args_free(&a);
		}
		(void)xtr_parse_args(9, xargv, &a, err, sizeof(err));
		xtr_args_free(&a);
		(void)xtr_parse_args(5, xbad, &a, err, sizeof(err));
		xtr_args_free(&a);
		after = ALLOCATED();
	}
	cr_expect_eq(after, before, "%zu bytes still allocated after "
	    "xtr_args_free", after - before);
	unlink(path);
	free(path);
}

/* The resource-limit options: sizes with suffixes, counts, and off. */
Test(xtr_args_limits, values)
{
	char *ok[] = { "pfextract", "-xf", "a.tar", "--max-bytes=10G",
		"--max-entries=5", "--max-depth", "7", "--max-ratio=300",
		"--max-links=9", NULL };
	char *off[] = { "pfextract", "-xf", "a.tar", "--no-limits", NULL };
	char *bad[][5] = {
		{ "pfextract", "-xf", "a.tar", "--max-bytes=12X", NULL },
		{ "pfextract", "-xf", "a.tar", "--max-bytes=1GG", NULL },
		{ "pfextract", "-xf", "a.tar", "--max-bytes=", NULL },
		{ "pfextract", "-xf", "a.tar", "--max-bytes=99999999999T",
		  NULL },
		{ "pfextract", "-xf", "a.tar", "--max-depth=-1", NULL },
	};
	struct pfx_options def;
	struct xtr_args a;
	char err[256];
	size_t i;

	pfx_options_init(&def);
	cr_assert_eq(xtr_parse_args(9, ok, &a, err, sizeof(err)), 0, "%s",
	    err);
	cr_expect_eq(a.opt.limits.max_bytes, 10ull << 30);
	cr_expect_eq(a.opt.limits.max_entry_bytes, 10ull << 30);
	cr_expect_eq(a.opt.limits.max_entries, 5);
	cr_expect_eq(a.opt.limits.max_depth, 7);
	cr_expect_eq(a.opt.limits.max_ratio, 300);
	cr_expect_eq(a.opt.limits.max_links, 9);
	cr_expect_eq(a.opt.limits.ratio_after, def.limits.ratio_after);
	xtr_args_free(&a);

	cr_assert_eq(xtr_parse_args(4, off, &a, err, sizeof(err)), 0, "%s",
	    err);
	cr_expect_eq(a.opt.limits.max_bytes, 0);
	cr_expect_eq(a.opt.limits.max_entries, 0);
	cr_expect_eq(a.opt.limits.max_depth, 0);
	cr_expect_eq(a.opt.limits.max_ratio, 0);
	cr_expect_eq(a.opt.limits.max_links, 0);
	xtr_args_free(&a);

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_expect_eq(xtr_parse_args(4, bad[i], &a, err, sizeof(err)),
		    -1, "%s was accepted", bad[i][3]);
		cr_expect(strstr(err, "invalid --max-") != NULL,
		    "%s: message \"%s\"", bad[i][3], err);
		xtr_args_free(&a);
	}

	/* Without a limit option, the defaults stand. */
	cr_assert_eq(xtr_parse_args(3, ok, &a, err, sizeof(err)), 0, "%s",
	    err);
	cr_expect_eq(a.opt.limits.max_bytes, def.limits.max_bytes);
	cr_expect_eq(a.opt.limits.max_ratio, def.limits.max_ratio);
	xtr_args_free(&a);
}

/* --cpus=N: 1 to PFX_MAX_CPUS, planned for; without it, counted (0). */
Test(xtr_args_limits, cpus)
{
	char *one[] = { "pfextract", "-xf", "a.tar", "--cpus=1", NULL };
	char *most[] = { "pfextract", "-xf", "a.tar", "--cpus=1024", NULL };
	char *bad[][5] = {
		{ "pfextract", "-xf", "a.tar", "--cpus=0", NULL },
		{ "pfextract", "-xf", "a.tar", "--cpus=1025", NULL },
		{ "pfextract", "-xf", "a.tar", "--cpus=", NULL },
		{ "pfextract", "-xf", "a.tar", "--cpus=2x", NULL },
		{ "pfextract", "-xf", "a.tar", "--cpus=-1", NULL },
	};
	struct xtr_args a;
	char err[256];
	size_t i;

	cr_assert_eq(xtr_parse_args(3, one, &a, err, sizeof(err)), 0, "%s",
	    err);
	cr_expect_eq(a.opt.cpus, 0, "counted unless --cpus is given");
	xtr_args_free(&a);
	cr_assert_eq(xtr_parse_args(4, one, &a, err, sizeof(err)), 0, "%s",
	    err);
	cr_expect_eq(a.opt.cpus, 1);
	xtr_args_free(&a);
	cr_assert_eq(xtr_parse_args(4, most, &a, err, sizeof(err)), 0, "%s",
	    err);
	cr_expect_eq(a.opt.cpus, PFX_MAX_CPUS);
	xtr_args_free(&a);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_expect_eq(xtr_parse_args(4, bad[i], &a, err, sizeof(err)),
		    -1, "%s was accepted", bad[i][3]);
		cr_expect(strstr(err, "invalid --cpus") != NULL,
		    "%s: message \"%s\"", bad[i][3], err);
		xtr_args_free(&a);
	}
}

/* opts2: --backup and --suffix, as GNU tar (and $VERSION_CONTROL). */
Test(xtr_args_opts2, backup)
{
	static const struct {
		const char *argv[4];
		enum pfx_backup want;
		const char *suffix;
	} rows[] = {
		{ { "--backup", "a" }, PFX_BACKUP_EXISTING, NULL },
		{ { "--backup=numbered", "a" }, PFX_BACKUP_NUMBERED, NULL },
		{ { "--backup=t", "a" }, PFX_BACKUP_NUMBERED, NULL },
		{ { "--backup=never", "a" }, PFX_BACKUP_SIMPLE, NULL },
		{ { "--backup=nil", "a" }, PFX_BACKUP_EXISTING, NULL },
		{ { "--backup=off", "a" }, PFX_BACKUP_NONE, NULL },
		{ { "--suffix=.orig", "a" }, PFX_BACKUP_EXISTING, ".orig" },
		{ { "--backup=simple", "--suffix", ".b" }, PFX_BACKUP_SIMPLE,
		  ".b" },
		{ { "a" }, PFX_BACKUP_NONE, NULL },
	};
	struct xtr_args a;
	char *argv[MAXARGV + 1];
	char err[256];
	size_t i;
	int argc;

	unsetenv("VERSION_CONTROL");
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		argc = make_argv(rows[i].argv, argv);
		cr_assert_eq(xtr_parse_args(argc, argv, &a, err, sizeof(err)),
		    0, "%s: %s", rows[i].argv[0], err);
		cr_expect_eq(a.opt.backup, rows[i].want, "%s: backup %d",
		    rows[i].argv[0], (int)a.opt.backup);
		expect_str(rows[i].argv[0], "suffix", a.opt.backup_suffix,
		    rows[i].suffix);
		xtr_args_free(&a);
	}
	setenv("VERSION_CONTROL", "simple", 1);
	argc = make_argv(rows[0].argv, argv);
	cr_assert_eq(xtr_parse_args(argc, argv, &a, err, sizeof(err)), 0);
	cr_expect_eq(a.opt.backup, PFX_BACKUP_SIMPLE, "$VERSION_CONTROL");
	xtr_args_free(&a);
	unsetenv("VERSION_CONTROL");
}

/* opts2: the dates of -N and --older, and what the CLI then skips. */
Test(xtr_args_opts2, dates_select)
{
	const char *newer[] = { "-N", "@1000", "a", NULL };
	const char *older[] = { "--older=1970-01-01 00:20", "a", NULL };
	const char *start[] = { "-K", "d/s/", "a", NULL };
	const char *vcs[] = { "--exclude-vcs", "--exclude-backups", "a",
	    NULL };
	struct pfx_entry e;
	struct xtr_args a;
	char *argv[MAXARGV + 1];
	char err[256];
	bool started = false;
	int argc;

	setenv("TZ", "UTC", 1);
	tzset();
	memset(&e, 0, sizeof(e));
	e.name = "f";
	argc = make_argv(newer, argv);
	cr_assert_eq(xtr_parse_args(argc, argv, &a, err, sizeof(err)), 0,
	    "%s", err);
	cr_expect(a.newer_set && a.newer == 1000);
	cr_expect(xtr_select_needed(&a));
	e.mtime = 999;
	cr_expect(xtr_select_skip(&a, &started, &e), "older than -N");
	e.mtime = 1000;
	cr_expect(!xtr_select_skip(&a, &started, &e), "as old as -N");
	xtr_args_free(&a);

	argc = make_argv(older, argv);
	cr_assert_eq(xtr_parse_args(argc, argv, &a, err, sizeof(err)), 0,
	    "%s", err);
	cr_expect(a.older_set && a.older == 1200, "older %lld",
	    (long long)a.older);
	e.mtime = 1200;
	cr_expect(xtr_select_skip(&a, &started, &e));
	e.mtime = 1199;
	cr_expect(!xtr_select_skip(&a, &started, &e));
	xtr_args_free(&a);

	argc = make_argv(start, argv);
	cr_assert_eq(xtr_parse_args(argc, argv, &a, err, sizeof(err)), 0);
	e.name = "d/sx";
	cr_expect(xtr_select_skip(&a, &started, &e), "before -K");
	e.name = "d/s/y";
	cr_expect(!xtr_select_skip(&a, &started, &e), "beneath -K");
	cr_expect(started);
	e.name = "z";
	cr_expect(!xtr_select_skip(&a, &started, &e), "after -K");
	xtr_args_free(&a);

	argc = make_argv(vcs, argv);
	cr_assert_eq(xtr_parse_args(argc, argv, &a, err, sizeof(err)), 0);
	started = false;
	e.name = "p/.git/";
	cr_expect(xtr_select_skip(&a, &started, &e), ".git");
	e.name = "p/.git/config";
	cr_expect(!xtr_select_skip(&a, &started, &e), "inside .git");
	e.name = "p/x.c~";
	cr_expect(xtr_select_skip(&a, &started, &e), "a backup");
	e.name = "p/#x#";
	cr_expect(xtr_select_skip(&a, &started, &e), "an autosave");
	e.name = "p/CVSx";
	cr_expect(!xtr_select_skip(&a, &started, &e), "CVSx");
	xtr_args_free(&a);
}

/* opts2: --xattrs-include and --xattrs-exclude reach the library. */
Test(xtr_args_opts2, xattrs_patterns)
{
	const char *v[] = { "--xattrs", "--xattrs-include=user.*",
	    "--xattrs-exclude", "user.secret", "a", NULL };
	struct xtr_args a;
	char *argv[MAXARGV + 1];
	char err[256];
	int argc = make_argv(v, argv);

	cr_assert_eq(xtr_parse_args(argc, argv, &a, err, sizeof(err)), 0,
	    "%s", err);
	cr_assert_eq(a.opt.nxattrs_include, 1);
	cr_expect_str_eq(a.opt.xattrs_include[0], "user.*");
	cr_assert_eq(a.opt.nxattrs_exclude, 1);
	cr_expect_str_eq(a.opt.xattrs_exclude[0], "user.secret");
	xtr_args_free(&a);
	cr_expect_null(a.opt.xattrs_include);
}

/*
 * GNU tar's positional -C: a member binds to the -C before it, a relative
 * -C is beneath the one before; with no member the last -C is the
 * destination; members bound to several directories leave none (main.c
 * runs once per directory).
 */
Test(xtr_args, positional_directory)
{
	char *v1[] = { "pfextract", "-xf", "a.tar", "-C", "x", "d", "-C", "y",
	    "e", "f", "-C", "/abs", "g", "-C", "z", NULL };
	char *v2[] = { "pfextract", "-xf", "a.tar", "f", "-C", "x", NULL };
	char *v3[] = { "pfextract", "-C", "a", "-C", "b", "-xf", "a.tar",
	    NULL };
	char *v4[] = { "pfextract", "-C", "a", "-xf", "a.tar", "d", "e",
	    NULL };
	static const size_t want[] = { 1, 2, 2, 3 };
	struct xtr_args a;
	char err[256];
	size_t i;

	cr_assert_eq(xtr_parse_args(15, v1, &a, err, sizeof(err)), 0, "%s",
	    err);
	cr_assert_eq(a.ndirs, 4);
	cr_expect_str_eq(a.dirs[0], "x");
	cr_expect_str_eq(a.dirs[1], "x/y");
	cr_expect_str_eq(a.dirs[2], "/abs");
	cr_expect_str_eq(a.dirs[3], "/abs/z");
	cr_assert_eq(a.nmember_pat, 4);
	for (i = 0; i < 4; i++)
		cr_expect_eq(a.member_dir[i], want[i], "member %zu", i);
	cr_expect_eq(a.ngroups, 3);
	cr_expect_null(a.dir);
	xtr_args_free(&a);

	cr_assert_eq(xtr_parse_args(6, v2, &a, err, sizeof(err)), 0);
	cr_expect(a.ngroups == 1 && a.dir == NULL, "f binds to no -C");
	xtr_args_free(&a);

	cr_assert_eq(xtr_parse_args(7, v3, &a, err, sizeof(err)), 0);
	cr_assert_not_null(a.dir);
	cr_expect_str_eq(a.dir, "a/b");
	xtr_args_free(&a);

	cr_assert_eq(xtr_parse_args(7, v4, &a, err, sizeof(err)), 0);
	cr_assert(a.ngroups == 1 && a.dir != NULL);
	cr_expect_str_eq(a.dir, "a");
	xtr_args_free(&a);
}
