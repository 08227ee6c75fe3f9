/*
 * args.c -- pfextract's command line, parsed the way tar parses it, so
 * that pfextract can replace `tar -xf` in a pipeline unchanged.
 *
 * Spellings accepted:
 *  - short options, alone or bundled ("-x -v", "-xzvf a.tgz"); a letter
 *    that takes an argument takes the rest of its word ("-fFILE",
 *    "-Cdir") or else the next word;
 *  - long options, "--opt=value" or "--opt value", and any unambiguous
 *    prefix of one ("--strip=1");
 *  - tar's old-style bundle as the first word ("xzf a.tgz", "xfC a.tar
 *    dir"): letters without a '-', whose letters that take an argument
 *    take the following words in order;
 *  - options and operands in any order; "--" ends the options.
 * Without -f the first operand is the archive; the other operands are
 * member names, taken literally as GNU tar takes them, or patterns when
 * --wildcards comes before them (and not --no-wildcards after that).
 * --anchored, --ignore-case and --no-wildcards-match-slash (and their
 * --no- forms) are positional too, for the patterns that follow them.
 *
 * SECURITY: options that would defeat containment, or run a program on
 * hostile input, are refused by name with the reason, never ignored.
 *
 * Nothing here prints or exits: errors go to the caller's buffer.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <signal.h>
#include <unistd.h>

#include "quote.h"
#include "args.h"

/*
 * Limits on an -X file.  A line is a pattern, and no pattern can match a
 * name longer than PFX_PATH_MAX, so a longer line is a mistake (or the
 * wrong file); a megabyte of patterns is far more than any real exclude
 * list, and bounds what a wrong -X (say, an archive) can cost.
 */
#define XTR_EXCLUDE_LINE_MAX 4096
#define XTR_EXCLUDE_FILE_MAX (1024 * 1024)

/* -v is counted; past this nothing changes, and the count cannot wrap. */
#define XTR_VERBOSE_MAX 100

/* --suffix: a backup name is the file's name and this (NAME_MAX bound). */
#define XTR_SUFFIX_MAX 32

const char xtr_usage[] =
    "usage: pfextract [-x | -t] [-aJjkmopqvZz] [-C dir] [-f archive] "
    "[-X file]\n"
    "                 [--strip-components=n] [--symlinks=refuse|contain|root]\n"
    "                 [--report=json] [--strict] [--max-bytes=size] "
    "[--max-entries=n]\n"
    "                 [--max-depth=n] [--max-links=n] [--max-ratio=n] "
    "[--no-limits]\n"
    "                 [--max-memory=size]\n"
    "                 [--atomic] [--fsync] [--no-sandbox | "
    "--sandbox=require]\n"
    "                 [--timeout=seconds] [--idle-timeout=seconds]\n"
    "                 [--stall-timeout=seconds]\n"
    "                 [options] [archive] [member ...]\n";

enum opt_id {
	OPT_EXTRACT,
	OPT_TIMEOUT,
	OPT_IDLE_TIMEOUT,
	OPT_STALL_TIMEOUT,
	OPT_CPUS,
	OPT_LIST,
	OPT_TEST_LABEL,
	OPT_FILE,
	OPT_DIRECTORY,
	OPT_VERBOSE,
	OPT_IGNORED,		/* compression letters, --warning, ... */
	OPT_STRIP,
	OPT_EXCLUDE,
	OPT_INCLUDE,
	OPT_EXCLUDE_FROM,
	OPT_WILDCARDS,
	OPT_NO_WILDCARDS,
	OPT_ANCHORED,
	OPT_NO_ANCHORED,
	OPT_IGNORE_CASE,
	OPT_NO_IGNORE_CASE,
	OPT_WILDCARDS_MATCH_SLASH,
	OPT_NO_WILDCARDS_MATCH_SLASH,
	OPT_KEEP_OLD,
	OPT_SKIP_OLD,
	OPT_OVERWRITE,
	OPT_NO_SAME_OWNER,
	OPT_SAME_OWNER,
	OPT_PRESERVE,
	OPT_NO_PRESERVE,
	OPT_TOUCH,
	OPT_NUMERIC_OWNER,
	OPT_XATTRS,
	OPT_NO_XATTRS,
	OPT_SYMLINKS,
	OPT_REPORT,
	OPT_QUIET,
	OPT_STRICT,
	OPT_ATOMIC,
	OPT_FSYNC,
	OPT_SANDBOX,
	OPT_NO_SANDBOX,
	OPT_FORMATS,
	OPT_WINDOWS_NAMES,
	OPT_MAX_BYTES,
	OPT_MAX_ENTRIES,
	OPT_MAX_DEPTH,
	OPT_MAX_LINKS,
	OPT_FORMAT,		/* --format, -H: checked, then ignored */
	OPT_TO_STDOUT,
	OPT_FILES_FROM,
	OPT_NULL,
	OPT_NO_NULL,
	OPT_VERBATIM,
	OPT_NO_VERBATIM,
	OPT_TRANSFORM,
	OPT_BSD_SUBST,		/* bsdtar's -s /old/new/ (see parse_short) */
	OPT_SHOW_TRANSFORMED,
	OPT_SHOW_STORED,
	OPT_OCCURRENCE,
	OPT_ONE_TOP_LEVEL,
	OPT_RECURSION,
	OPT_NO_RECURSION,
	OPT_MAX_MEMORY,
	OPT_MAX_RATIO,
	OPT_NO_LIMITS,
	OPT_HELP,
	OPT_VERSION,
	/* opts2: the rest of GNU tar's and bsdtar's lists */
	OPT_IGNORED_OPTARG,	/* ignored; "--opt" or "--opt=value" */
	OPT_IGNORE_ZEROS,
	OPT_RECURSIVE_UNLINK,
	OPT_KEEP_NEWER,
	OPT_BACKUP,		/* --backup[=CONTROL] */
	OPT_SUFFIX,
	OPT_EXCLUDE_VCS,
	OPT_EXCLUDE_BACKUPS,
	OPT_NEWER,		/* -N DATE or FILE, as GNU tar */
	OPT_NEWER_THAN,		/* bsdtar: a file's mtime */
	OPT_OLDER,
	OPT_OLDER_THAN,
	OPT_STARTING_FILE,
	OPT_ADD_FILE,
	OPT_SHOW_DEFAULTS,
	OPT_XATTRS_INCLUDE,
	OPT_XATTRS_EXCLUDE,
	OPT_INCREMENTAL,	/* -G, -g: GNU dump directories purge */
	OPT_DEB,
	OPT_QUOTING_STYLE,
	OPT_QUOTE_CHARS,
	OPT_NO_QUOTE_CHARS,
	OPT_FULL_TIME,
	OPT_UTC,
	OPT_BLOCK_NUMBER,
	OPT_TOTALS,
	OPT_CHECKPOINT,
	OPT_CHECKPOINT_ACTION,
	OPT_INDEX_FILE,
	OPT_PROGRESS,
	OPT_NO_PROGRESS,
	OPT_VERIFY,		/* -W: GNU tar's usage error with -x, -t */
	OPT_MULTI_VOLUME,	/* -M: the -f archives are the volumes */
	OPT_LABEL,		/* -V PATTERN */
	OPT_REFUSED		/* refused, for the reason in why */
};

struct opt_def {
	const char *name;	/* long name without "--", or NULL */
	char letter;		/* short letter, or 0 */
	bool has_arg;
	enum opt_id id;
	const char *why;	/* OPT_REFUSED: why, as a clause */
};

/* GNU tar's options whose value is optional: only as "--name=value". */
#define OPTIONAL_ARG(d) \
	((d)->id == OPT_OCCURRENCE || (d)->id == OPT_ONE_TOP_LEVEL || \
	(d)->id == OPT_BACKUP || (d)->id == OPT_IGNORED_OPTARG || \
	(d)->id == OPT_TOTALS || (d)->id == OPT_CHECKPOINT)

#define WHY_OPERATION "pfextract only extracts and lists"

/*
 * Every option.  Aliases share an id; a short letter is given on one row
 * only.  Refused options are here too, so that their letters, names and
 * prefixes all get the reason rather than "unknown option".
 */
static const struct opt_def opts[] = {
	{ "extract", 'x', false, OPT_EXTRACT, NULL },
	{ "get", 0, false, OPT_EXTRACT, NULL },
	{ "list", 't', false, OPT_LIST, NULL },
	{ "file", 'f', true, OPT_FILE, NULL },
	{ "directory", 'C', true, OPT_DIRECTORY, NULL },
	{ "verbose", 'v', false, OPT_VERBOSE, NULL },
	/* Compression is detected from the bytes; these change nothing. */
	{ "gzip", 'z', false, OPT_IGNORED, NULL },
	{ "gunzip", 0, false, OPT_IGNORED, NULL },
	{ "ungzip", 0, false, OPT_IGNORED, NULL },
	{ "bzip2", 'j', false, OPT_IGNORED, NULL },
	{ "xz", 'J', false, OPT_IGNORED, NULL },
	{ "zstd", 0, false, OPT_IGNORED, NULL },
	{ "lzma", 0, false, OPT_IGNORED, NULL },
	{ "lzip", 0, false, OPT_IGNORED, NULL },
	{ "lzop", 0, false, OPT_IGNORED, NULL },
	{ "compress", 'Z', false, OPT_IGNORED, NULL },
	{ "uncompress", 0, false, OPT_IGNORED, NULL },
	{ "auto-compress", 'a', false, OPT_IGNORED, NULL },
	{ "strip-components", 0, true, OPT_STRIP, NULL },
	{ "exclude", 0, true, OPT_EXCLUDE, NULL },
	{ "include", 0, true, OPT_INCLUDE, NULL },
	{ "exclude-from", 'X', true, OPT_EXCLUDE_FROM, NULL },
	{ "wildcards", 0, false, OPT_WILDCARDS, NULL },
	{ "no-wildcards", 0, false, OPT_NO_WILDCARDS, NULL },
	{ "keep-old-files", 'k', false, OPT_KEEP_OLD, NULL },
	{ "skip-old-files", 0, false, OPT_SKIP_OLD, NULL },
	{ "overwrite", 0, false, OPT_OVERWRITE, NULL },
	{ "no-same-owner", 'o', false, OPT_NO_SAME_OWNER, NULL },
	{ "same-owner", 0, false, OPT_SAME_OWNER, NULL },
	{ "preserve-permissions", 'p', false, OPT_PRESERVE, NULL },
	{ "same-permissions", 0, false, OPT_PRESERVE, NULL },
	{ "no-same-permissions", 0, false, OPT_NO_PRESERVE, NULL },
	{ "touch", 'm', false, OPT_TOUCH, NULL },
	{ "numeric-owner", 0, false, OPT_NUMERIC_OWNER, NULL },
	{ "xattrs", 0, false, OPT_XATTRS, NULL },
	{ "no-xattrs", 0, false, OPT_NO_XATTRS, NULL },
	{ "warning", 0, true, OPT_IGNORED, NULL },
	/* Directory modes and times are always applied last. */
	{ "delay-directory-restore", 0, false, OPT_IGNORED, NULL },
	{ "no-delay-directory-restore", 0, false, OPT_IGNORED, NULL },
	{ "symlinks", 0, true, OPT_SYMLINKS, NULL },
	{ "report", 0, true, OPT_REPORT, NULL },
	{ "quiet", 'q', false, OPT_QUIET, NULL },
	{ "strict", 0, false, OPT_STRICT, NULL },
	{ "atomic", 0, false, OPT_ATOMIC, NULL },
	{ "fsync", 0, false, OPT_FSYNC, NULL },
	{ "sandbox", 0, true, OPT_SANDBOX, NULL },
	{ "no-sandbox", 0, false, OPT_NO_SANDBOX, NULL },
	{ "formats", 0, true, OPT_FORMATS, NULL },
	{ "windows-names", 0, false, OPT_WINDOWS_NAMES, NULL },
	{ "max-bytes", 0, true, OPT_MAX_BYTES, NULL },
	{ "max-entries", 0, true, OPT_MAX_ENTRIES, NULL },
	{ "max-depth", 0, true, OPT_MAX_DEPTH, NULL },
	{ "max-links", 0, true, OPT_MAX_LINKS, NULL },
	{ "max-memory", 0, true, OPT_MAX_MEMORY, NULL },
	{ "max-ratio", 0, true, OPT_MAX_RATIO, NULL },
	{ "no-limits", 0, false, OPT_NO_LIMITS, NULL },
	{ "timeout", 0, true, OPT_TIMEOUT, NULL },
	{ "idle-timeout", 0, true, OPT_IDLE_TIMEOUT, NULL },
	{ "stall-timeout", 0, true, OPT_STALL_TIMEOUT, NULL },
	{ "cpus", 0, true, OPT_CPUS, NULL },
	{ "help", 0, false, OPT_HELP, NULL },
	{ "version", 0, false, OPT_VERSION, NULL },
	/* GNU tar ignores the archive format when reading; so do we. */
	{ "format", 'H', true, OPT_FORMAT, NULL },
	{ "to-stdout", 'O', false, OPT_TO_STDOUT, NULL },
	{ "files-from", 'T', true, OPT_FILES_FROM, NULL },
	{ "null", 0, false, OPT_NULL, NULL },
	{ "no-null", 0, false, OPT_NO_NULL, NULL },
	{ "verbatim-files-from", 0, false, OPT_VERBATIM, NULL },
	{ "no-verbatim-files-from", 0, false, OPT_NO_VERBATIM, NULL },
	{ "transform", 0, true, OPT_TRANSFORM, NULL },
	{ "xform", 0, true, OPT_TRANSFORM, NULL },
	{ NULL, 's', false, OPT_BSD_SUBST, NULL },
	{ "preserve-order", 0, false, OPT_IGNORED, NULL },
	{ "same-order", 0, false, OPT_IGNORED, NULL },
	{ "show-transformed-names", 0, false, OPT_SHOW_TRANSFORMED, NULL },
	{ "show-stored-names", 0, false, OPT_SHOW_STORED, NULL },
	{ "occurrence", 0, false, OPT_OCCURRENCE, NULL },
	{ "one-top-level", 0, false, OPT_ONE_TOP_LEVEL, NULL },
	{ "recursion", 0, false, OPT_RECURSION, NULL },
	{ "no-recursion", 0, false, OPT_NO_RECURSION, NULL },
	{ "norecurse", 0, false, OPT_NO_RECURSION, NULL },	/* bsdtar */
	/* Positional, as GNU tar: they govern the patterns after them. */
	{ "no-ignore-case", 0, false, OPT_NO_IGNORE_CASE, NULL },
	{ "wildcards-match-slash", 0, false, OPT_WILDCARDS_MATCH_SLASH, NULL },
	{ "ignore-case", 0, false, OPT_IGNORE_CASE, NULL },
	{ "no-wildcards-match-slash", 0, false, OPT_NO_WILDCARDS_MATCH_SLASH,
	    NULL },
	{ "anchored", 0, false, OPT_ANCHORED, NULL },
	{ "no-anchored", 0, false, OPT_NO_ANCHORED, NULL },
	/*
	 * The rest of GNU tar 1.34's and bsdtar's lists.  The
	 * classification of every option is in pfextract(1).
	 */
	{ "ignore-zeros", 'i', false, OPT_IGNORE_ZEROS, NULL },
	{ "unlink-first", 'U', false, OPT_IGNORED, NULL },
	{ "unlink", 0, false, OPT_IGNORED, NULL },
	{ "recursive-unlink", 0, false, OPT_RECURSIVE_UNLINK, NULL },
	/* Metadata of a directory that existed is never changed. */
	{ "no-overwrite-dir", 0, false, OPT_IGNORED, NULL },
	{ "overwrite-dir", 0, false, OPT_IGNORED, NULL },
	{ "keep-newer-files", 0, false, OPT_KEEP_NEWER, NULL },
	{ "backup", 0, false, OPT_BACKUP, NULL },
	{ "suffix", 0, true, OPT_SUFFIX, NULL },
	{ "exclude-vcs", 0, false, OPT_EXCLUDE_VCS, NULL },
	{ "exclude-backups", 0, false, OPT_EXCLUDE_BACKUPS, NULL },
	{ "newer", 'N', true, OPT_NEWER, NULL },
	{ "after-date", 0, true, OPT_NEWER, NULL },
	{ "newer-mtime", 0, true, OPT_NEWER, NULL },
	{ "newer-ctime", 0, true, OPT_NEWER, NULL },
	{ "newer-than", 0, true, OPT_NEWER_THAN, NULL },
	{ "newer-mtime-than", 0, true, OPT_NEWER_THAN, NULL },
	{ "newer-ctime-than", 0, true, OPT_NEWER_THAN, NULL },
	{ "older", 0, true, OPT_OLDER, NULL },
	{ "older-mtime", 0, true, OPT_OLDER, NULL },
	{ "older-ctime", 0, true, OPT_OLDER, NULL },
	{ "older-than", 0, true, OPT_OLDER_THAN, NULL },
	{ "older-mtime-than", 0, true, OPT_OLDER_THAN, NULL },
	{ "older-ctime-than", 0, true, OPT_OLDER_THAN, NULL },
	{ "starting-file", 'K', true, OPT_STARTING_FILE, NULL },
	{ "add-file", 0, true, OPT_ADD_FILE, NULL },
	{ "show-defaults", 0, false, OPT_SHOW_DEFAULTS, NULL },
	{ "usage", '?', false, OPT_HELP, NULL },
	{ "xattrs-include", 0, true, OPT_XATTRS_INCLUDE, NULL },
	{ "xattrs-exclude", 0, true, OPT_XATTRS_EXCLUDE, NULL },
	{ "no-acls", 0, false, OPT_IGNORED, NULL },
	{ "no-selinux", 0, false, OPT_IGNORED, NULL },
	{ "no-fflags", 0, false, OPT_IGNORED, NULL },
	{ "no-mac-metadata", 0, false, OPT_IGNORED, NULL },
	{ "cd", 0, true, OPT_DIRECTORY, NULL },
	{ "modification-time", 0, false, OPT_TOUCH, NULL },
	{ "preserve", 0, false, OPT_PRESERVE, NULL },
	/* Reading: the record size is found from the bytes, and sparse
	 * members and concatenated zero blocks are read as they come. */
	{ "blocking-factor", 'b', true, OPT_IGNORED, NULL },
	{ "block-size", 0, true, OPT_IGNORED, NULL },
	{ "record-size", 0, true, OPT_IGNORED, NULL },
	{ "read-full-records", 'B', false, OPT_IGNORED, NULL },
	{ "read-full-blocks", 0, false, OPT_IGNORED, NULL },
	{ "sparse", 'S', false, OPT_IGNORED, NULL },
	{ "sparse-version", 0, true, OPT_IGNORED, NULL },
	{ "seek", 'n', false, OPT_IGNORED, NULL },
	{ "no-seek", 0, false, OPT_IGNORED, NULL },
	/* No archive name is ever remote; nothing runs a shell. */
	{ "force-local", 0, false, OPT_IGNORED, NULL },
	{ "restrict", 0, false, OPT_IGNORED, NULL },
	{ "ignore-command-error", 0, false, OPT_IGNORED, NULL },
	{ "no-ignore-command-error", 0, false, OPT_IGNORED, NULL },
	/* pfextract always writes a new file and renames it in. */
	{ "safe-writes", 0, false, OPT_IGNORED, NULL },
	{ "no-safe-writes", 0, false, OPT_IGNORED, NULL },
	{ "show-omitted-dirs", 0, false, OPT_IGNORED, NULL },
	{ "fast-read", 0, false, OPT_IGNORED, NULL },
	{ "unquote", 0, false, OPT_IGNORED, NULL },
	{ "no-unquote", 0, false, OPT_IGNORED, NULL },
	/* Compression is detected from the bytes (bsdtar's spellings). */
	{ "bzip", 0, false, OPT_IGNORED, NULL },
	{ "bunzip2", 0, false, OPT_IGNORED, NULL },
	{ NULL, 'y', false, OPT_IGNORED, NULL },
	{ "lz4", 0, false, OPT_IGNORED, NULL },
	{ "lrzip", 0, false, OPT_IGNORED, NULL },
	{ "grzip", 0, false, OPT_IGNORED, NULL },
	{ "b64encode", 0, false, OPT_IGNORED, NULL },
	{ "uuencode", 0, false, OPT_IGNORED, NULL },
	{ "no-auto-compress", 0, false, OPT_IGNORED, NULL },
	/* Options of archive creation: they change nothing on reading. */
	{ "atime-preserve", 0, false, OPT_IGNORED_OPTARG, NULL },
	{ "check-device", 0, false, OPT_IGNORED, NULL },
	{ "no-check-device", 0, false, OPT_IGNORED, NULL },
	{ "check-links", 'l', false, OPT_IGNORED, NULL },
	{ "clamp-mtime", 0, false, OPT_IGNORED, NULL },
	{ "exclude-caches", 0, false, OPT_IGNORED, NULL },
	{ "exclude-caches-all", 0, false, OPT_IGNORED, NULL },
	{ "exclude-caches-under", 0, false, OPT_IGNORED, NULL },
	{ "exclude-ignore", 0, true, OPT_IGNORED, NULL },
	{ "exclude-ignore-recursive", 0, true, OPT_IGNORED, NULL },
	{ "exclude-tag", 0, true, OPT_IGNORED, NULL },
	{ "exclude-tag-all", 0, true, OPT_IGNORED, NULL },
	{ "exclude-tag-under", 0, true, OPT_IGNORED, NULL },
	{ "exclude-vcs-ignores", 0, false, OPT_IGNORED, NULL },
	{ "group", 0, true, OPT_IGNORED, NULL },
	{ "owner", 0, true, OPT_IGNORED, NULL },
	{ "group-map", 0, true, OPT_IGNORED, NULL },
	{ "owner-map", 0, true, OPT_IGNORED, NULL },
	{ "mode", 0, true, OPT_IGNORED, NULL },
	{ "mtime", 0, true, OPT_IGNORED, NULL },
	{ "sort", 0, true, OPT_IGNORED, NULL },
	{ "hard-dereference", 0, false, OPT_IGNORED, NULL },
	{ "hole-detection", 0, true, OPT_IGNORED, NULL },
	{ "ignore-failed-read", 0, false, OPT_IGNORED, NULL },
	{ "one-file-system", 0, false, OPT_IGNORED, NULL },
	{ "remove-files", 0, false, OPT_IGNORED, NULL },
	{ "old-archive", 0, false, OPT_IGNORED, NULL },
	{ "portability", 0, false, OPT_IGNORED, NULL },
	{ "posix", 0, false, OPT_IGNORED, NULL },
	{ "pax-option", 0, true, OPT_IGNORED, NULL },
	{ "level", 0, true, OPT_IGNORED, NULL },
	{ "show-snapshot-field-ranges", 0, false, OPT_IGNORED, NULL },
	{ "uid", 0, true, OPT_IGNORED, NULL },
	{ "gid", 0, true, OPT_IGNORED, NULL },
	{ "uname", 0, true, OPT_IGNORED, NULL },
	{ "gname", 0, true, OPT_IGNORED, NULL },
	{ "nodump", 0, false, OPT_IGNORED, NULL },
	{ "read-sparse", 0, false, OPT_IGNORED, NULL },
	{ "no-read-sparse", 0, false, OPT_IGNORED, NULL },
	{ "mac-metadata", 0, false, OPT_IGNORED, NULL },
	{ "disable-copyfile", 0, false, OPT_IGNORED, NULL },
	{ "hfsCompression", 0, false, OPT_IGNORED, NULL },
	{ "nopreserveHFSCompression", 0, false, OPT_IGNORED, NULL },
	/* SECURITY (opts2): refused, each for its reason. */
	{ "acls", 0, false, OPT_REFUSED,
	  "POSIX ACLs can grant the access that pfextract clears from "
	  "modes, and are never restored" },
	{ "selinux", 0, false, OPT_REFUSED,
	  "security.* attributes (SELinux labels) are never restored" },
	{ "fflags", 0, false, OPT_REFUSED,
	  "file flags (immutable, append-only) are never restored" },
	{ "clear-nochange-fflags", 0, false, OPT_REFUSED,
	  "it changes the flags of files that existed before the run" },
	{ "rmt-command", 0, true, OPT_REFUSED,
	  "it runs a program for a remote archive" },
	{ "rsh-command", 0, true, OPT_REFUSED,
	  "it runs a program for a remote archive" },
	{ "interactive", 'w', false, OPT_REFUSED,
	  "it prompts on the terminal for every entry" },
	{ "confirmation", 0, false, OPT_REFUSED,
	  "it prompts on the terminal for every entry" },
	{ "chroot", 0, false, OPT_REFUSED,
	  "pfextract keeps every name beneath the destination without "
	  "chroot(2); for root filesystem trees see --symlinks" },
	{ "passphrase", 0, true, OPT_REFUSED,
	  "encrypted entries are not decrypted (a passphrase on the "
	  "command line is visible to every user)" },
	{ "options", 0, true, OPT_REFUSED,
	  "libarchive reader options change how hostile input is parsed" },
	/* The snapshot file is tar's at creation; extraction ignores it. */
	{ "incremental", 'G', false, OPT_INCREMENTAL, NULL },
	{ "listed-incremental", 'g', true, OPT_INCREMENTAL, NULL },
	/*
	 * GNU tar's: a directory entry over a symlink to a directory keeps
	 * the link.  --symlinks=root always does; the other policies refuse
	 * a path through an existing link (symlink_in_path) whatever it says.
	 */
	{ "keep-directory-symlink", 0, false, OPT_IGNORED, NULL },
	{ "deb", 0, false, OPT_DEB, NULL },
	/* Listing and terminal output, as GNU tar (listing_out.c). */
	{ "quoting-style", 0, true, OPT_QUOTING_STYLE, NULL },
	{ "quote-chars", 0, true, OPT_QUOTE_CHARS, NULL },
	{ "no-quote-chars", 0, true, OPT_NO_QUOTE_CHARS, NULL },
	{ "full-time", 0, false, OPT_FULL_TIME, NULL },
	{ "utc", 0, false, OPT_UTC, NULL },
	{ "block-number", 'R', false, OPT_BLOCK_NUMBER, NULL },
	{ "totals", 0, false, OPT_TOTALS, NULL },
	{ "checkpoint", 0, false, OPT_CHECKPOINT, NULL },
	{ "checkpoint-action", 0, true, OPT_CHECKPOINT_ACTION, NULL },
	{ "index-file", 0, true, OPT_INDEX_FILE, NULL },
	{ "progress", 0, false, OPT_PROGRESS, NULL },
	{ "no-progress", 0, false, OPT_NO_PROGRESS, NULL },
	/*
	 * GNU multi-volume archives: the volumes are read as they are, so
	 * a volume's length (-L, tar's at creation) is not needed, and
	 * --volno-file only matters at creation.
	 */
	{ "multi-volume", 'M', false, OPT_MULTI_VOLUME, NULL },
	{ "tape-length", 'L', true, OPT_IGNORED, NULL },
	{ "volno-file", 0, true, OPT_IGNORED, NULL },
	/* -V PATTERN: the archive's label must match (label.c). */
	{ "label", 'V', true, OPT_LABEL, NULL },
	/* Reads the label alone; the operands are labels (label.c). */
	{ "test-label", 0, false, OPT_TEST_LABEL, NULL },
	/* It verifies an archive after writing it: GNU tar refuses it
	 * with -x and -t, in the same words (finish_tar_options). */
	{ "verify", 'W', false, OPT_VERIFY, NULL },
	{ "info-script", 'F', true, OPT_REFUSED,
	  "it runs a program" },
	{ "new-volume-script", 0, true, OPT_REFUSED,
	  "it runs a program" },
	/* SECURITY: each of these would defeat containment. */
	{ "absolute-names", 'P', false, OPT_REFUSED,
	  "it would let names escape the destination" },
	/* (bsdtar's names for -P: after it, so that --abs is -P) */
	{ "absolute-paths", 0, false, OPT_REFUSED,
	  "it would let names escape the destination" },
	{ "insecure", 0, false, OPT_REFUSED,
	  "it would let names escape the destination" },
	{ "to-command", 0, true, OPT_REFUSED,
	  "it runs a program per entry" },
	{ "use-compress-program", 'I', true, OPT_REFUSED,
	  "it runs an external program on hostile input" },
	{ "dereference", 'h', false, OPT_REFUSED,
	  "it would follow symlinks" },
	{ "create", 'c', false, OPT_REFUSED, WHY_OPERATION },
	{ "append", 'r', false, OPT_REFUSED, WHY_OPERATION },
	{ "update", 'u', false, OPT_REFUSED, WHY_OPERATION },
	{ "concatenate", 'A', false, OPT_REFUSED, WHY_OPERATION },
	{ "catenate", 0, false, OPT_REFUSED, WHY_OPERATION },
	{ "diff", 'd', false, OPT_REFUSED, WHY_OPERATION },
	{ "compare", 0, false, OPT_REFUSED, WHY_OPERATION },
	{ "delete", 0, false, OPT_REFUSED, WHY_OPERATION },
};

#define NOPTS (sizeof(opts) / sizeof(opts[0]))

/*
 * The letters that select an operation, accepted or refused.  An old-style
 * bundle must name exactly one of them (see is_bundle()).
 */
#define MODE_LETTERS "xtcruAd"

/* A -T file, as the options before it left the way to read it. */
struct from_file {
	const char *path;
	bool null;		/* NUL-terminated names */
	bool verbatim;		/* a name starting with '-' is a name */
	bool glob;		/* --wildcards in force */
	bool norec;		/* --no-recursion in force */
	unsigned int match;	/* PFX_MATCH_* in force for members */
	size_t dir;		/* the -C in force: xtr_args.member_dir */
};

/* Parser state that does not outlive xtr_parse_args(). */
struct parse {
	struct xtr_args *a;
	char *err;
	size_t errcap;
	bool mode_set;
	bool file_set;
	const char **ops;	/* operands, borrowed from argv */
	size_t *ops_dir;	/* per operand: the -C in force (ndirs) */
	size_t cur_dir;		/* the -C of the member being pushed */
	size_t cap_dirs;
	bool *ops_glob;		/* per operand: --wildcards was in force */
	bool *ops_norec;	/* per operand: --no-recursion was */
	unsigned int *ops_match; /* per operand: member_match() then */
	unsigned int match;	/* PFX_MATCH_* of --anchored, --ignore-case,
				   --no-wildcards-match-slash in force */
	bool no_anchored;	/* --no-anchored seen: members unanchored
				   but for a later --anchored (GNU tar) */
	bool norec;		/* --no-recursion, until --recursion */
	size_t cap_whole;
	size_t nops;
	bool wildcards;		/* --wildcards, until --no-wildcards */
	bool null;		/* --null: -T files that follow hold
				   NUL-terminated names */
	bool verbatim;		/* --verbatim-files-from, for those too */
	struct from_file *from;	/* -T files, read by finish() */
	size_t nfrom;
	bool top_level;		/* --one-top-level given */
	bool verify;		/* -W given */
	size_t cap_members;
	size_t cap_member_pat;
	size_t cap_include;
	size_t cap_exclude;
	size_t cap_exclude_flags;
	size_t cap_member_flags;
	size_t cap_xattrs_include;
	size_t cap_xattrs_exclude;
	size_t cap_volumes;
};

static int fail(struct parse *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int add_dir(struct parse *p, const char *v);

/*
 * Write the message to the caller's buffer.
 * Return: -1, always, so that callers can return fail(...).
 */
static int
fail(struct parse *p, const char *fmt, ...)
{
	va_list ap;

	if (p->err == NULL || p->errcap == 0)
		return -1;
	va_start(ap, fmt);
	vsnprintf(p->err, p->errcap, fmt, ap);
	va_end(ap);
	return -1;
}

/*
 * R (-1, from fail()) for an error GNU tar finds in an option it took (a
 * value it refuses, -x with -t, -f twice): its USAGE_ERROR or
 * FATAL_ERROR, exit 2, where argp's own errors (an unknown option, a
 * missing value) are 64.  Run as tar, the same status.
 */
static int
tar_error(struct parse *p, int r)
{
	p->a->conflict = true;
	return r;
}

/* Return: the row of short option C, or NULL. */
static const struct opt_def *
find_short(char c)
{
	size_t i;

	if (c == '\0')
		return NULL;
	for (i = 0; i < NOPTS; i++)
		if (opts[i].letter == c)
			return &opts[i];
	return NULL;
}

/*
 * Find the long option NAME (LEN bytes): an exact name, else the one
 * option it is a prefix of.  Several candidates are still one answer when
 * they are aliases (same id), or when one candidate is a prefix of all
 * the others ("--excl" is --exclude, not --exclude-from: typing more of
 * "exclude" could never single out --exclude).
 * Return: the row, or NULL with the error written.
 */
static const struct opt_def *
find_long(struct parse *p, const char *name, size_t len)
{
	const struct opt_def *first = NULL, *shortest = NULL;
	size_t i, n = 0, slen = 0;
	bool aliases = true, nested = true;
	int off;

	if (len == 0) {
		fail(p, "unknown option '--'");
		return NULL;
	}
	for (i = 0; i < NOPTS; i++) {
		if (opts[i].name == NULL ||
		    strncmp(opts[i].name, name, len) != 0)
			continue;
		if (opts[i].name[len] == '\0')
			return &opts[i];
		if (first == NULL)
			first = &opts[i];
		else if (opts[i].id != first->id)
			aliases = false;
		if (shortest == NULL || strlen(opts[i].name) < slen) {
			shortest = &opts[i];
			slen = strlen(opts[i].name);
		}
		n++;
	}
	if (n == 0) {
		fail(p, "unknown option '--%.*s'", (int)len, name);
		return NULL;
	}
	if (n == 1 || aliases)
		return first;
	for (i = 0; i < NOPTS; i++)
		if (opts[i].name != NULL &&
		    strncmp(opts[i].name, name, len) == 0 &&
		    strncmp(opts[i].name, shortest->name, slen) != 0)
			nested = false;
	if (nested)
		return shortest;

	/* Ambiguous: list every candidate, as far as the buffer goes. */
	if (p->err == NULL || p->errcap == 0)
		return NULL;
	off = snprintf(p->err, p->errcap,
	    "option '--%.*s' is ambiguous; possibilities:", (int)len, name);
	for (i = 0; i < NOPTS && off >= 0 && (size_t)off < p->errcap; i++) {
		if (opts[i].name == NULL ||
		    strncmp(opts[i].name, name, len) != 0)
			continue;
		off += snprintf(p->err + off, p->errcap - (size_t)off,
		    " '--%s'", opts[i].name);
	}
	return NULL;
}

/*
 * Append a copy of S (LEN bytes) to the array *ARR of *N strings, with
 * capacity *CAP.  Return: 0, or -1 (out of memory, error written).
 */
static int
push(struct parse *p, char ***arr, size_t *n, size_t *cap, const char *s,
    size_t len)
{
	char **grown;
	char *copy;
	size_t ncap;

	if (*n == *cap) {
		if (*cap > SIZE_MAX / 2 / sizeof(**arr))
			return fail(p, "too many patterns");
		ncap = *cap == 0 ? 8 : *cap * 2;
		grown = realloc(*arr, ncap * sizeof(**arr));
		if (grown == NULL)
			return fail(p, "out of memory");
		*arr = grown;
		*cap = ncap;
	}
	copy = malloc(len + 1);
	if (copy == NULL)
		return fail(p, "out of memory");
	memcpy(copy, s, len);
	copy[len] = '\0';
	(*arr)[(*n)++] = copy;
	return 0;
}

/*
 * Parse S as a non-negative decimal integer no larger than UINT_MAX:
 * digits only, no sign, no spaces, no base prefix.
 * Return: 0 and *OUT, or -1.
 */
static int
parse_uint(const char *s, unsigned int *out)
{
	unsigned int n = 0, d;

	if (*s == '\0')
		return -1;
	for (; *s != '\0'; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		d = (unsigned int)(*s - '0');
		if (n > (UINT_MAX - d) / 10)
			return -1;
		n = n * 10 + d;
	}
	*out = n;
	return 0;
}

/*
 * Parse S as a size: a decimal integer with an optional binary suffix K,
 * M, G or T (KiB, MiB, GiB, TiB), no larger than UINT64_MAX.
 * Return: 0 and *OUT, or -1.
 */
static int
parse_size(const char *s, uint64_t *out)
{
	uint64_t n = 0, d, mul = 1;

	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		d = (uint64_t)(*s - '0');
		if (n > (UINT64_MAX - d) / 10)
			return -1;
		n = n * 10 + d;
	}
	switch (*s) {
	case '\0':
		break;
	case 'K': case 'k':
		mul = 1ull << 10;
		break;
	case 'M': case 'm':
		mul = 1ull << 20;
		break;
	case 'G': case 'g':
		mul = 1ull << 30;
		break;
	case 'T': case 't':
		mul = 1ull << 40;
		break;
	default:
		return -1;
	}
	if (*s != '\0' && s[1] != '\0')
		return -1;
	if (n > UINT64_MAX / mul)
		return -1;
	*out = n * mul;
	return 0;
}

/*
 * Give the pattern just added to the N of a list its PFX_MATCH_* flags
 * FLAGS, in *ARR, a parallel array of capacity *CAP.
 * Return: 0, or -1 (error written).
 */
static int
set_flags(struct parse *p, unsigned int **arr, size_t *cap, size_t n,
    unsigned int flags)
{
	unsigned int *grown;
	size_t ncap;

	if (n > *cap) {
		ncap = *cap == 0 ? 8 : *cap * 2;
		if (ncap < n)
			ncap = n;
		grown = realloc(*arr, ncap * sizeof(*grown));
		if (grown == NULL)
			return fail(p, "out of memory");
		*arr = grown;
		*cap = ncap;
	}
	(*arr)[n - 1] = flags;
	return 0;
}

/* Add the exclude pattern S (LEN bytes) with the flags now in force
 * (GNU tar: not anchored unless --anchored came before it).
 * Return: 0, or -1 (error written). */
static int
push_exclude(struct parse *p, const char *s, size_t len)
{
	struct xtr_args *a = p->a;

	if (push(p, &a->exclude, &a->nexclude, &p->cap_exclude, s, len) == -1)
		return -1;
	return set_flags(p, &a->exclude_flags, &p->cap_exclude_flags,
	    a->nexclude, p->match);
}

/* The PFX_MATCH_* flags of a member operand given now: anchored as GNU
 * tar's are, unless --no-anchored was ever given (and no --anchored
 * since: GNU tar 1.34 forgets the default for good). */
static unsigned int
member_match(const struct parse *p)
{
	return p->no_anchored ? p->match : p->match | PFX_MATCH_ANCHORED;
}

/* --anchored, --ignore-case, --no-wildcards-match-slash, their --no-
 * forms (ID): for the patterns that follow, as in GNU tar. */
static void
set_match(struct parse *p, enum opt_id id)
{
	switch (id) {
	case OPT_ANCHORED:
		p->match |= PFX_MATCH_ANCHORED;
		break;
	case OPT_NO_ANCHORED:
		p->match &= ~PFX_MATCH_ANCHORED;
		p->no_anchored = true;
		break;
	case OPT_IGNORE_CASE:
		p->match |= PFX_MATCH_CASEFOLD;
		break;
	case OPT_NO_IGNORE_CASE:
		p->match &= ~PFX_MATCH_CASEFOLD;
		break;
	case OPT_NO_WILDCARDS_MATCH_SLASH:
		p->match |= PFX_MATCH_NOSLASH;
		break;
	default:	/* OPT_WILDCARDS_MATCH_SLASH */
		p->match &= ~PFX_MATCH_NOSLASH;
		break;
	}
}

/*
 * Add one line of an -X file as an exclude pattern: trailing white space
 * is dropped and a blank line adds nothing, as GNU tar does.
 * Return: 0, or -1 (error written).
 */
static int
add_exclude_line(struct parse *p, const struct from_file *ff, size_t lineno,
    const char *line, size_t len)
{
	(void)ff;
	(void)lineno;
	while (len > 0 && (line[len - 1] == ' ' || line[len - 1] == '\t' ||
	    line[len - 1] == '\r' || line[len - 1] == '\v' ||
	    line[len - 1] == '\f'))
		len--;
	if (len == 0)
		return 0;
	return push_exclude(p, line, len);
}

static int push_member_pattern(struct parse *p, const char *s, bool glob,
    bool norec, unsigned int match);

/*
 * Add one name of the -T file FF as a member operand, as GNU tar reads
 * it: an empty line adds nothing.  A line that starts with '-' is an
 * option to GNU tar unless --verbatim-files-from (or --null) was given;
 * pfextract takes no options from a file, and says so.
 * Return: 0, or -1 (error written).
 */
static int
add_member_line(struct parse *p, const struct from_file *ff, size_t lineno,
    const char *line, size_t len)
{
	struct xtr_args *a = p->a;

	if (len == 0)
		return 0;
	if (line[0] == '-' && !ff->verbatim)
		return fail(p, "file list '%s': line %zu ('%.*s') is an "
		    "option; pfextract takes no options from a file list (use "
		    "--verbatim-files-from to read it as a name)", ff->path,
		    lineno, len > 64 ? 64 : (int)len, line);
	p->cur_dir = ff->dir;
	if (push(p, &a->members, &a->nmembers, &p->cap_members, line,
	    len) == -1)
		return -1;
	return push_member_pattern(p, a->members[a->nmembers - 1], ff->glob,
	    ff->norec, ff->match);
}

typedef int line_fn(struct parse *p, const struct from_file *ff,
    size_t lineno, const char *line, size_t len);

/*
 * Read the list file FF (WHAT, for messages: "exclude file", "file
 * list"), one entry per line -- or per NUL-terminated string with
 * FF->null -- and give each to FN.  "-" is standard input for a file list
 * only.  Lines over XTR_EXCLUDE_LINE_MAX bytes, files over
 * XTR_EXCLUDE_FILE_MAX bytes, and NUL bytes in a file of lines, are
 * refused.  Return: 0, or -1 (error written).
 */
static int
read_list_file(struct parse *p, const struct from_file *ff, const char *what,
    bool stdin_ok, line_fn *fn)
{
	char line[XTR_EXCLUDE_LINE_MAX];
	const char *path = ff->path;
	char sep = ff->null ? '\0' : '\n';
	size_t len = 0, total = 0, lineno = 1;
	FILE *f;
	int fd, c, e, rc = -1;

	if (stdin_ok && strcmp(path, "-") == 0)
		fd = dup(STDIN_FILENO);
	else
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd == -1) {
		e = errno;
		return fail(p, "cannot open %s '%s': %s", what, path,
		    strerror(e));
	}
	f = fdopen(fd, "r");
	if (f == NULL) {
		e = errno;
		close(fd);
		return fail(p, "cannot read %s '%s': %s", what, path,
		    strerror(e));
	}
	for (;;) {
		c = getc(f);
		if (c == EOF)
			break;
		if (++total > XTR_EXCLUDE_FILE_MAX) {
			fail(p, "%s '%s' is larger than %d bytes (1 MiB)",
			    what, path, XTR_EXCLUDE_FILE_MAX);
			goto out;
		}
		if (c == sep) {
			if (fn(p, ff, lineno, line, len) == -1)
				goto out;
			len = 0;
			lineno++;
			continue;
		}
		if (c == '\0') {
			fail(p, "%s '%s': line %zu holds a NUL byte (--null "
			    "reads NUL-terminated names)", what, path, lineno);
			goto out;
		}
		if (len == sizeof(line)) {
			fail(p, "%s '%s': line %zu is longer than %d bytes",
			    what, path, lineno, XTR_EXCLUDE_LINE_MAX);
			goto out;
		}
		line[len++] = (char)c;
	}
	if (ferror(f)) {
		e = errno;
		fail(p, "cannot read %s '%s': %s", what, path, strerror(e));
		goto out;
	}
	if (fn(p, ff, lineno, line, len) == -1)
		goto out;
	rc = 0;
out:
	fclose(f);
	return rc;
}

/*
 * --backup[=CONTROL] and --suffix=SUFFIX, as GNU tar: CONTROL as
 * VERSION_CONTROL (none/off, simple/never, existing/nil, numbered/t);
 * without one, $VERSION_CONTROL, else "existing".  The suffix is a tail
 * of one name: no '/', not empty.  Return: 0, or -1 (error written).
 */
static int
set_backup(struct parse *p, enum opt_id id, const char *v)
{
	static const struct {
		const char *name;
		enum pfx_backup how;
	} ctl[] = {
		{ "none", PFX_BACKUP_NONE }, { "off", PFX_BACKUP_NONE },
		{ "simple", PFX_BACKUP_SIMPLE }, { "never", PFX_BACKUP_SIMPLE },
		{ "existing", PFX_BACKUP_EXISTING },
		{ "nil", PFX_BACKUP_EXISTING },
		{ "numbered", PFX_BACKUP_NUMBERED }, { "t", PFX_BACKUP_NUMBERED },
	};
	struct pfx_options *o = &p->a->opt;
	size_t i;

	if (id == OPT_SUFFIX) {
		if (*v == '\0' || strchr(v, '/') != NULL ||
		    strlen(v) > XTR_SUFFIX_MAX)
			return fail(p, "invalid --suffix value '%s' (a tail "
			    "of a file name: no '/', 1 to %d bytes)", v,
			    XTR_SUFFIX_MAX);
		o->backup_suffix = v;
		/* As GNU tar: a suffix asks for backups. */
		if (o->backup != PFX_BACKUP_NONE)
			return 0;
		v = NULL;
	}
	if (v == NULL)
		v = getenv("VERSION_CONTROL");
	if (v == NULL || *v == '\0')
		v = "existing";
	for (i = 0; i < sizeof(ctl) / sizeof(ctl[0]); i++)
		if (strcmp(v, ctl[i].name) == 0) {
			o->backup = ctl[i].how;
			return 0;
		}
	return tar_error(p, fail(p, "invalid --backup value '%s' (none, "
	    "off, simple, never, existing, nil, numbered or t)", v));
}

/*
 * Parse S as GNU tar's date for -N: "@SECONDS", or "YYYY-MM-DD" with an
 * optional time "HH:MM[:SS]" after ' ' or 'T', in local time as GNU
 * tar takes it.  GNU tar reads many more forms (get_date); these are
 * the unambiguous ones.  Return: 0 and *OUT, or -1.
 */
static int
parse_date(const char *s, int64_t *out)
{
	struct tm tm;
	char tail[2];
	int n = 0, k;
	long long secs;
	time_t t;

	if (s[0] == '@') {
		if (sscanf(s + 1, "%lld%n", &secs, &n) != 1 ||
		    s[1 + n] != '\0' || s[1] == ' ' || s[1] == '+')
			return -1;
		*out = secs;
		return 0;
	}
	memset(&tm, 0, sizeof(tm));
	k = sscanf(s, "%4d-%2d-%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
	    &n);
	if (k != 3 || n != 10)
		return -1;
	if (s[n] == ' ' || s[n] == 'T') {
		s += n + 1;
		n = 0;
		k = sscanf(s, "%2d:%2d%n:%2d%n", &tm.tm_hour, &tm.tm_min, &n,
		    &tm.tm_sec, &n);
		if (k < 2 || n == 0)
			return -1;
	}
	if (s[n] != '\0' || sscanf(s + n, "%1s", tail) == 1)
		return -1;
	if (tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 ||
	    tm.tm_mday > 31 || tm.tm_hour > 23 || tm.tm_min > 59 ||
	    tm.tm_sec > 60 || tm.tm_year < 1)
		return -1;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	tm.tm_isdst = -1;
	t = mktime(&tm);
	if (t == (time_t)-1)
		return -1;
	*out = (int64_t)t;
	return 0;
}

/*
 * -N/--newer/--after-date/--newer-mtime DATE (a name that starts with
 * '/' or '.' is a file, whose mtime is the date, as GNU tar), bsdtar's
 * --older DATE and the *-than FILE spellings.  Entries are judged by
 * mtime, the one time every format stores.  Return: 0, or -1.
 */
static int
set_time_bound(struct parse *p, const struct opt_def *d, const char *v)
{
	struct xtr_args *a = p->a;
	bool file = d->id == OPT_NEWER_THAN || d->id == OPT_OLDER_THAN ||
	    v[0] == '/' || v[0] == '.';
	struct stat st;
	int64_t t;

	if (file) {
		if (stat(v, &st) == -1)
			return fail(p, "--%s: cannot stat '%s': %s", d->name,
			    v, strerror(errno));
		t = (int64_t)st.st_mtime;
	} else if (parse_date(v, &t) == -1) {
		return fail(p, "invalid date '%s' for --%s (YYYY-MM-DD, "
		    "'YYYY-MM-DD HH:MM[:SS]', @SECONDS, or a file name "
		    "starting with '/' or '.')", v, d->name);
	}
	if (d->id == OPT_NEWER || d->id == OPT_NEWER_THAN) {
		a->newer_set = true;
		a->newer = t;
	} else {
		a->older_set = true;
		a->older = t;
	}
	return 0;
}

/* Read the exclude patterns of -X PATH ("-" is a file name here). */
static int
read_exclude_file(struct parse *p, const char *path)
{
	struct from_file ff = { path, false, true, false, false, 0, 0 };

	return read_list_file(p, &ff, "exclude file", false, add_exclude_line);
}

/* Note the -T file PATH, to be read by finish() once the archive is
 * known (its "-" is standard input only when the archive is not). */
static int
note_files_from(struct parse *p, const char *path)
{
	struct from_file *grown;

	if (*path == '\0')
		return fail(p, "-T needs a file name");
	grown = realloc(p->from, (p->nfrom + 1) * sizeof(*grown));
	if (grown == NULL)
		return fail(p, "out of memory");
	p->from = grown;
	grown[p->nfrom].path = path;
	grown[p->nfrom].null = p->null;
	/* GNU tar: --null implies --verbatim-files-from. */
	grown[p->nfrom].verbatim = p->verbatim || p->null;
	grown[p->nfrom].glob = p->wildcards;
	grown[p->nfrom].norec = p->norec;
	grown[p->nfrom].match = member_match(p);
	grown[p->nfrom].dir = p->a->ndirs;
	p->nfrom++;
	return 0;
}

/*
 * --one-top-level's default directory: the archive's base name without
 * its ".tar" and compression suffixes, as GNU tar takes it (foo.tar.gz,
 * foo.tgz: foo); never "", "." or "..".  Return: 0 and *OUT (new
 * memory), or -1 (error written).
 */
static int
top_dir_of(struct parse *p, const char *archive, char **out)
{
	static const char *const sfx[] = { "gz", "tgz", "taz", "Z", "taZ",
	    "bz2", "tbz", "tbz2", "tz2", "lz", "lzma", "tlz", "lzo", "xz",
	    "txz", "zst", "tzst", "tar" };
	const char *base, *dot;
	size_t len, i;

	if (archive == NULL || strcmp(archive, "-") == 0)
		goto cannot;
	base = strrchr(archive, '/');
	base = base != NULL ? base + 1 : archive;
	dot = strrchr(base, '.');
	if (dot == NULL)
		goto cannot;
	for (i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++)
		if (strcmp(dot + 1, sfx[i]) == 0)
			break;
	if (i == sizeof(sfx) / sizeof(sfx[0]))
		goto cannot;
	len = (size_t)(dot - base);
	/* "a.tar.gz": the ".tar" too, unless the suffix began with 't'. */
	if (dot[1] != 't' && len > 4 && strncmp(dot - 4, ".tar", 4) == 0)
		len -= 4;
	/* SECURITY: "." and ".." name no directory of their own ("..tar",
	 * "...tar"): every entry would go to DEST's top, or be refused.
	 * The archive's name may be an uploader's. */
	if (len == 0 || (base[0] == '.' && (len == 1 ||
	    (len == 2 && base[1] == '.'))))
		goto cannot;
	*out = strndup(base, len);
	return *out == NULL ? fail(p, "out of memory") : 0;
cannot:
	return fail(p, "cannot deduce the top-level directory name from the "
	    "archive's name; give it with --one-top-level=DIR");
}

/*
 * --format, -H: GNU tar ignores the archive format when reading; a name it
 * does not know is still an error, as in GNU tar.
 * Return: 0, or -1 (error written).
 */
static int
check_format(struct parse *p, const char *v)
{
	static const char *const gnu[] = { "gnu", "oldgnu", "pax", "posix",
	    "ustar", "v7" };
	size_t i;

	for (i = 0; i < sizeof(gnu) / sizeof(gnu[0]); i++)
		if (strcmp(v, gnu[i]) == 0)
			return 0;
	return tar_error(p, fail(p, "invalid --format value '%s' (gnu, "
	    "oldgnu, pax, posix, ustar or v7; ignored when reading: the "
	    "format is detected)", v));
}

/* Select mode M ('x', 't' or 'l').  Return: 0, or -1 if another was
 * given. */
static int
set_mode(struct parse *p, char m)
{
	if (p->mode_set && p->a->mode != m)
		return tar_error(p, fail(p, "only one of -x (--extract), -t "
		    "(--list) and --test-label may be given"));
	p->a->mode = m;
	p->mode_set = true;
	return 0;
}

/* The signals --totals=SIGNAL may name, as GNU tar. */
static const struct {
	const char *name;
	int sig;
} totals_signals[] = {
	{ "SIGHUP", SIGHUP }, { "SIGQUIT", SIGQUIT }, { "SIGINT", SIGINT },
	{ "SIGUSR1", SIGUSR1 }, { "SIGUSR2", SIGUSR2 },
};

/* Parse --totals's SIGNAL: a name with or without "SIG", or a number.
 * Return: the signal, or 0. */
static int
parse_totals_signal(const char *v)
{
	unsigned int n;
	size_t i;

	for (i = 0; i < sizeof(totals_signals) / sizeof(totals_signals[0]);
	    i++) {
		if (strcmp(v, totals_signals[i].name) == 0 ||
		    strcmp(v, totals_signals[i].name + 3) == 0)
			return totals_signals[i].sig;
		if (parse_uint(v, &n) == 0 &&
		    (int)n == totals_signals[i].sig)
			return (int)n;
	}
	return 0;
}

/* Act on an option of listing or terminal output.  Return: 0, or -1. */
static int
apply_output(struct parse *p, const struct opt_def *d, const char *v)
{
	struct xtr_args *a = p->a;
	const unsigned char *u;

	switch (d->id) {
	case OPT_QUOTING_STYLE:
		if (quote_style_parse(v, &(enum quote_style){ 0 }) == -1)
			return tar_error(p, fail(p, "invalid --quoting-style "
			    "value '%s' (literal, shell, shell-always, "
			    "shell-escape, shell-escape-always, c, c-maybe, "
			    "escape, locale or clocale)", v));
		a->quoting_style = v;
		return 0;
	case OPT_QUOTE_CHARS:
	case OPT_NO_QUOTE_CHARS:
		for (u = (const unsigned char *)v; *u != '\0'; u++) {
			if (d->id == OPT_QUOTE_CHARS)
				a->quote_chars[*u / 32] |= 1u << (*u % 32);
			else
				a->quote_chars[*u / 32] &= ~(1u << (*u % 32));
		}
		return 0;
	case OPT_FULL_TIME:
		a->full_time = true;
		return 0;
	case OPT_UTC:
		a->utc = true;
		return 0;
	case OPT_BLOCK_NUMBER:
		a->block_number = true;
		return 0;
	case OPT_TOTALS:
		a->totals = true;
		if (v == NULL)
			return 0;
		a->totals_signal = parse_totals_signal(v);
		if (a->totals_signal == 0)
			return tar_error(p, fail(p, "invalid --totals value "
			    "'%s' (SIGHUP, SIGQUIT, SIGINT, SIGUSR1 or "
			    "SIGUSR2)", v));
		return 0;
	case OPT_CHECKPOINT:
		if (v == NULL) {
			a->checkpoint = 10;
			return 0;
		}
		if (parse_size(v, &a->checkpoint) == -1 || a->checkpoint == 0
		    || v[strlen(v) - 1] < '0' || v[strlen(v) - 1] > '9')
			return tar_error(p, fail(p, "invalid --checkpoint "
			    "value '%s' (a positive number of records)", v));
		return 0;
	case OPT_CHECKPOINT_ACTION:
		if (a->nckpt_actions == XTR_CKPT_ACTIONS_MAX)
			return fail(p, "more than %d --checkpoint-action "
			    "options", XTR_CKPT_ACTIONS_MAX);
		a->ckpt_actions[a->nckpt_actions++] = v;
		if (a->checkpoint == 0)
			a->checkpoint = 10;
		return 0;
	case OPT_INDEX_FILE:
		if (*v == '\0')
			return fail(p, "--index-file needs a file name");
		a->index_file = v;
		return 0;
	case OPT_PROGRESS:
		a->progress = 1;
		return 0;
	case OPT_NO_PROGRESS:
		a->progress = 0;
		return 0;
	default:
		break;
	}
	return fail(p, "internal error: option without an action");
}

/*
 * Act on option D with value V (NULL when it takes none); AS_SHORT says
 * how it was spelled, for messages.  Return: 0, or -1 (error written).
 */
static int
apply(struct parse *p, const struct opt_def *d, const char *v, bool as_short)
{
	struct xtr_args *a = p->a;

	switch (d->id) {
	case OPT_EXTRACT:
		return set_mode(p, 'x');
	case OPT_LIST:
		return set_mode(p, 't');
	case OPT_TEST_LABEL:
		return set_mode(p, 'l');
	case OPT_FILE:
		if (*v == '\0')
			return fail(p, "-f needs an archive name");
		/* Several: the volumes, with -M (checked in finish()). */
		if (p->file_set)
			return push(p, &a->volumes, &a->nvolumes,
			    &p->cap_volumes, v, strlen(v));
		a->archive = v;
		p->file_set = true;
		return 0;
	case OPT_DIRECTORY:
		return add_dir(p, v);
	case OPT_VERBOSE:
		if (a->verbose < XTR_VERBOSE_MAX)
			a->verbose++;
		return 0;
	case OPT_IGNORED:
		return 0;
	case OPT_STRIP:
		if (parse_uint(v, &a->opt.strip_components) == -1)
			return tar_error(p, fail(p, "invalid "
			    "--strip-components value '%s' (a non-negative "
			    "integer, at most %u)", v, UINT_MAX));
		return 0;
	case OPT_EXCLUDE:
		return push_exclude(p, v, strlen(v));
	case OPT_INCLUDE:
		return push(p, &a->include, &a->ninclude, &p->cap_include, v,
		    strlen(v));
	case OPT_EXCLUDE_FROM:
		return read_exclude_file(p, v);
	case OPT_WILDCARDS:
	case OPT_NO_WILDCARDS:
		/* As GNU tar: for the operands that follow. */
		p->wildcards = d->id == OPT_WILDCARDS;
		a->wildcards_given = true;
		return 0;
	case OPT_ANCHORED:
	case OPT_NO_ANCHORED:
	case OPT_IGNORE_CASE:
	case OPT_NO_IGNORE_CASE:
	case OPT_WILDCARDS_MATCH_SLASH:
	case OPT_NO_WILDCARDS_MATCH_SLASH:
		set_match(p, d->id);
		return 0;
	case OPT_KEEP_OLD:
		a->opt.existing = PFX_EXISTING_KEEP;
		return 0;
	case OPT_SKIP_OLD:
		a->opt.existing = PFX_EXISTING_SKIP;
		return 0;
	case OPT_OVERWRITE:
		a->opt.existing = PFX_EXISTING_REPLACE;
		return 0;
	case OPT_NO_SAME_OWNER:
		a->opt.flags &= ~PFX_OPT_SAME_OWNER;
		return 0;
	case OPT_SAME_OWNER:
		a->opt.flags |= PFX_OPT_SAME_OWNER;
		return 0;
	case OPT_PRESERVE:
		a->opt.flags |= PFX_OPT_PRESERVE_PERMS;
		return 0;
	case OPT_NO_PRESERVE:
		a->opt.flags &= ~PFX_OPT_PRESERVE_PERMS;
		return 0;
	case OPT_TOUCH:
		a->opt.flags |= PFX_OPT_NO_MTIME;
		return 0;
	case OPT_NUMERIC_OWNER:
		a->opt.flags |= PFX_OPT_NUMERIC_OWNER;
		return 0;
	case OPT_XATTRS:
		a->opt.flags |= PFX_OPT_XATTRS;
		return 0;
	case OPT_NO_XATTRS:
		a->opt.flags &= ~PFX_OPT_XATTRS;
		return 0;
	case OPT_SYMLINKS:
		if (strcmp(v, "refuse") == 0)
			a->opt.symlinks = PFX_SYMLINKS_REFUSE;
		else if (strcmp(v, "contain") == 0)
			a->opt.symlinks = PFX_SYMLINKS_CONTAIN;
		else if (strcmp(v, "root") == 0)
			a->opt.symlinks = PFX_SYMLINKS_ROOT;
		else
			return fail(p, "invalid --symlinks value '%s' "
			    "(refuse, contain or root)", v);
		return 0;
	case OPT_REPORT:
		if (strcmp(v, "json") != 0)
			return fail(p, "invalid --report value '%s' "
			    "(only json)", v);
		a->report_json = true;
		return 0;
	case OPT_QUIET:
		a->quiet = true;
		return 0;
	case OPT_STRICT:
		a->opt.flags |= PFX_OPT_STRICT;
		return 0;
	case OPT_DEB:
		a->opt.flags |= PFX_OPT_DEB;
		return 0;
	case OPT_ATOMIC:
		/* Ignored with -t, as -k is: a listing writes nothing. */
		a->opt.flags |= PFX_OPT_ATOMIC;
		return 0;
	case OPT_FSYNC:
		a->opt.flags |= PFX_OPT_FSYNC;
		return 0;
	case OPT_INCREMENTAL:
		a->opt.flags |= PFX_OPT_INCREMENTAL;
		return 0;
	case OPT_SANDBOX:
		if (strcmp(v, "require") == 0)
			a->sandbox = XTR_SANDBOX_REQUIRE;
		else if (strcmp(v, "auto") == 0)
			a->sandbox = XTR_SANDBOX_ON;
		else if (strcmp(v, "off") == 0)
			a->sandbox = XTR_SANDBOX_OFF;
		else
			return fail(p, "invalid --sandbox value '%s' "
			    "(require, auto or off)", v);
		return 0;
	case OPT_NO_SANDBOX:
		a->sandbox = XTR_SANDBOX_OFF;
		return 0;
	case OPT_FORMATS:
		if (*v == '\0')
			return fail(p, "--formats needs a list of formats");
		a->opt.formats = v;
		return 0;
	case OPT_WINDOWS_NAMES:
		a->opt.flags |= PFX_OPT_WINDOWS_NAMES;
		return 0;
	case OPT_MAX_BYTES:
		if (parse_size(v, &a->opt.limits.max_bytes) == -1)
			return fail(p, "invalid --max-bytes value '%s' (a size "
			    "such as 10G; 0 for no limit)", v);
		/* One entry can be no larger than the whole. */
		a->opt.limits.max_entry_bytes = a->opt.limits.max_bytes;
		return 0;
	case OPT_MAX_ENTRIES:
		if (parse_size(v, &a->opt.limits.max_entries) == -1)
			return fail(p, "invalid --max-entries value '%s' (a "
			    "count; 0 for no limit)", v);
		return 0;
	case OPT_MAX_DEPTH:
		if (parse_uint(v, &a->opt.limits.max_depth) == -1)
			return fail(p, "invalid --max-depth value '%s' (a "
			    "count; 0 for no limit)", v);
		return 0;
	case OPT_MAX_LINKS:
		if (parse_size(v, &a->opt.limits.max_links) == -1)
			return fail(p, "invalid --max-links value '%s' (a "
			    "count; 0 for no limit)", v);
		return 0;
	case OPT_MAX_MEMORY:
		if (parse_size(v, &a->opt.limits.max_memory) == -1)
			return fail(p, "invalid --max-memory value '%s' (a "
			    "size such as 512M; 0 for no limit)", v);
		return 0;
	case OPT_MAX_RATIO:
		if (parse_size(v, &a->opt.limits.max_ratio) == -1)
			return fail(p, "invalid --max-ratio value '%s' (bytes "
			    "written per byte read; 0 for no limit)", v);
		return 0;
	case OPT_NO_LIMITS:
		memset(&a->opt.limits, 0, sizeof(a->opt.limits));
		return 0;
	case OPT_TIMEOUT:
		if (parse_uint(v, &a->opt.timeout) == -1)
			return fail(p, "invalid --timeout value '%s' (seconds; "
			    "0 for none)", v);
		return 0;
	case OPT_STALL_TIMEOUT:
		if (parse_uint(v, &a->opt.stall_timeout) == -1)
			return fail(p, "invalid --stall-timeout value '%s' "
			    "(seconds of CPU; 0 for none)", v);
		return 0;
	case OPT_IDLE_TIMEOUT:
		if (parse_uint(v, &a->opt.idle_timeout) == -1)
			return fail(p, "invalid --idle-timeout value '%s' "
			    "(seconds; 0 for none)", v);
		return 0;
	case OPT_CPUS:
		if (parse_uint(v, &a->opt.cpus) == -1 || a->opt.cpus == 0 ||
		    a->opt.cpus > PFX_MAX_CPUS)
			return fail(p, "invalid --cpus value '%s' (1 to %u)", v,
			    PFX_MAX_CPUS);
		return 0;
	case OPT_HELP:
		a->help = true;
		return 0;
	case OPT_FORMAT:
		return check_format(p, v);
	case OPT_TO_STDOUT:
		a->to_stdout = true;
		return 0;
	case OPT_FILES_FROM:
		return note_files_from(p, v);
	case OPT_NULL:
	case OPT_NO_NULL:
		/* As GNU tar: for the -T files that follow. */
		p->null = d->id == OPT_NULL;
		return 0;
	case OPT_VERBATIM:
	case OPT_NO_VERBATIM:
		p->verbatim = d->id == OPT_VERBATIM;
		return 0;
	case OPT_TRANSFORM:
	case OPT_BSD_SUBST:
		if (v == NULL)
			return 0;	/* GNU's -s in an old-style bundle */
		if (xtr_xform_add(&a->xforms, v, d->id == OPT_BSD_SUBST,
		    p->err, p->errcap) == 0)
			return 0;
		/* GNU tar's usage error: exit 2 when run as tar. */
		a->conflict = d->id == OPT_TRANSFORM;
		return -1;
	case OPT_SHOW_TRANSFORMED:
	case OPT_SHOW_STORED:
		a->show_transformed = d->id == OPT_SHOW_TRANSFORMED;
		return 0;
	case OPT_VERIFY:
		p->verify = true;
		return 0;
	case OPT_OCCURRENCE:
		if (v == NULL) {
			a->opt.occurrence = 1;
			return 0;
		}
		if (parse_uint(v, &a->opt.occurrence) == -1)
			return tar_error(p, fail(p, "invalid --occurrence "
			    "value '%s' (a positive integer)", v));
		return 0;
	case OPT_ONE_TOP_LEVEL:
		p->top_level = true;
		free(a->top_dir);
		a->top_dir = NULL;
		if (v == NULL)
			return 0;
		/* The directory is a name judged like the entries' own. */
		if (*v == '\0')
			return fail(p, "--one-top-level= needs a directory");
		a->top_dir = strdup(v);
		return a->top_dir == NULL ? fail(p, "out of memory") : 0;
	case OPT_RECURSION:
	case OPT_NO_RECURSION:
		/* As GNU tar: for the operands and -T files that follow. */
		p->norec = d->id == OPT_NO_RECURSION;
		return 0;
	case OPT_VERSION:
		a->version = true;
		return 0;
	case OPT_IGNORED_OPTARG:
		return 0;
	case OPT_IGNORE_ZEROS:
		a->opt.flags |= PFX_OPT_IGNORE_ZEROS;
		return 0;
	case OPT_RECURSIVE_UNLINK:
		a->opt.flags |= PFX_OPT_RECURSIVE_UNLINK;
		return 0;
	case OPT_KEEP_NEWER:
		a->opt.existing = PFX_EXISTING_KEEP_NEWER;
		return 0;
	case OPT_BACKUP:
	case OPT_SUFFIX:
		return set_backup(p, d->id, v);
	case OPT_EXCLUDE_VCS:
		a->exclude_vcs = true;
		return 0;
	case OPT_EXCLUDE_BACKUPS:
		a->exclude_backups = true;
		return 0;
	case OPT_NEWER:
	case OPT_NEWER_THAN:
	case OPT_OLDER:
	case OPT_OLDER_THAN:
		return set_time_bound(p, d, v);
	case OPT_STARTING_FILE:
		if (*v == '\0')
			return fail(p, "--starting-file needs a member name");
		a->starting_file = v;
		/* As GNU tar: the starting member is a member operand too. */
		p->ops_glob[p->nops] = false;
		p->ops_match[p->nops] = member_match(p);
		p->ops_dir[p->nops] = a->ndirs;
		p->ops[p->nops++] = v;
		return 0;
	case OPT_ADD_FILE:
		/* A member operand, even one that starts with '-'. */
		p->ops_glob[p->nops] = p->wildcards;
		p->ops_match[p->nops] = member_match(p);
		p->ops_dir[p->nops] = a->ndirs;
		p->ops[p->nops++] = v;
		return 0;
	case OPT_SHOW_DEFAULTS:
		a->show_defaults = true;
		return 0;
	case OPT_XATTRS_INCLUDE:
		return push(p, &a->xattrs_include, &a->nxattrs_include,
		    &p->cap_xattrs_include, v, strlen(v));
	case OPT_XATTRS_EXCLUDE:
		return push(p, &a->xattrs_exclude, &a->nxattrs_exclude,
		    &p->cap_xattrs_exclude, v, strlen(v));
	case OPT_QUOTING_STYLE:
	case OPT_QUOTE_CHARS:
	case OPT_NO_QUOTE_CHARS:
	case OPT_FULL_TIME:
	case OPT_UTC:
	case OPT_BLOCK_NUMBER:
	case OPT_TOTALS:
	case OPT_CHECKPOINT:
	case OPT_CHECKPOINT_ACTION:
	case OPT_INDEX_FILE:
	case OPT_PROGRESS:
	case OPT_NO_PROGRESS:
		return apply_output(p, d, v);
	case OPT_MULTI_VOLUME:
		a->opt.flags |= PFX_OPT_MULTI_VOLUME;
		return 0;
	case OPT_LABEL:
		a->opt.volume_label = v;
		return 0;
	case OPT_REFUSED:
		if (as_short)
			return fail(p, "'-%c' (--%s) is refused: %s",
			    d->letter, d->name, d->why);
		return fail(p, "'--%s' is refused: %s", d->name, d->why);
	}
	return fail(p, "internal error: option without an action");
}

/*
 * Parse the long option ARGV[*I] ("--name", "--name=value" or "--name
 * value", the last taking ARGV[*I + 1]).  Return: 0, or -1.
 */
static int
parse_long(struct parse *p, int argc, char **argv, int *i)
{
	const char *arg = argv[*i] + 2;
	const char *eq = strchr(arg, '=');
	const char *v = NULL;
	const struct opt_def *d;
	size_t len = eq != NULL ? (size_t)(eq - arg) : strlen(arg);

	d = find_long(p, arg, len);
	if (d == NULL)
		return -1;
	if (d->id == OPT_REFUSED)
		return apply(p, d, NULL, false);
	/* An optional value is only ever "--opt=value", as getopt. */
	if (OPTIONAL_ARG(d))
		return apply(p, d, eq != NULL ? eq + 1 : NULL, false);
	if (!d->has_arg && eq != NULL)
		return fail(p, "option '--%s' does not take an argument",
		    d->name);
	if (d->has_arg && eq != NULL) {
		v = eq + 1;
	} else if (d->has_arg) {
		if (*i + 1 >= argc)
			return fail(p, "option '--%s' requires an argument",
			    d->name);
		v = argv[++*i];
	}
	return apply(p, d, v, false);
}

static int parse_short_from(struct parse *p, int argc, char **argv, int *i,
    size_t j);

/*
 * The letter -s at ARGV[*I][J]: bsdtar's -s RULE when the rest of the word
 * is a rule ("-s/a/b/"), or the word is "-s" alone and the next word is
 * one ("-s /a/b/"); else GNU tar's -s (--preserve-order, which changes
 * nothing here) and the bundle goes on.  Return: 0, or -1.
 */
static int
parse_s(struct parse *p, int argc, char **argv, int *i, size_t j)
{
	const char *arg = argv[*i];
	const struct opt_def *d = find_short('s');

	if (arg[j + 1] != '\0' && xtr_xform_is_bsd_rule(arg + j + 1))
		return apply(p, d, arg + j + 1, true);
	if (j == 1 && arg[2] == '\0' && *i + 1 < argc &&
	    xtr_xform_is_bsd_rule(argv[*i + 1]))
		return apply(p, d, argv[++*i], true);
	/* GNU's -s: the rest of the bundle is more letters. */
	return arg[j + 1] == '\0' ? 0 : parse_short_from(p, argc, argv, i,
	    j + 1);
}

/*
 * Parse the bundle of short options ARGV[*I] ("-xzvf"); a letter that
 * takes an argument takes the rest of the word, or else ARGV[*I + 1].
 * Return: 0, or -1.
 */
static int
parse_short_from(struct parse *p, int argc, char **argv, int *i, size_t j)
{
	const char *arg = argv[*i];
	const struct opt_def *d;
	const char *v;

	for (; arg[j] != '\0'; j++) {
		d = find_short(arg[j]);
		if (d == NULL)
			return fail(p, "unknown option '-%c'", arg[j]);
		if (d->id == OPT_REFUSED)
			return apply(p, d, NULL, true);
		if (d->id == OPT_BSD_SUBST)
			return parse_s(p, argc, argv, i, j);
		if (!d->has_arg) {
			if (apply(p, d, NULL, true) == -1)
				return -1;
			if (p->a->help || p->a->version)
				return 0;
			continue;
		}
		if (arg[j + 1] != '\0') {
			v = arg + j + 1;
		} else {
			if (*i + 1 >= argc)
				return fail(p, "option '-%c' requires an "
				    "argument", arg[j]);
			v = argv[++*i];
		}
		return apply(p, d, v, true);
	}
	return 0;
}

/* parse_short_from() from the word's first letter. */
static int
parse_short(struct parse *p, int argc, char **argv, int *i)
{
	return parse_short_from(p, argc, argv, i, 1);
}

/*
 * Is S tar's old-style bundle ("xzvf")?  It must be made only of option
 * letters, and name an operation: one distinct letter of MODE_LETTERS,
 * possibly repeated.  The second rule keeps an archive operand such as
 * "data" (a 'd' and a 't') or "hook" (no operation) an operand.
 */
static bool
is_bundle(const char *s)
{
	char mode = '\0';
	size_t j;

	if (s[0] == '\0' || s[0] == '-')
		return false;
	for (j = 0; s[j] != '\0'; j++) {
		if (find_short(s[j]) == NULL)
			return false;
		if (strchr(MODE_LETTERS, s[j]) == NULL)
			continue;
		if (mode != '\0' && mode != s[j])
			return false;
		mode = s[j];
	}
	return mode != '\0';
}

/*
 * Parse the old-style bundle ARGV[1]: its letters that take an argument
 * take ARGV[2], ARGV[3]... in order.  *NEXT is set to the first word not
 * consumed.  Return: 0, or -1.
 */
static int
parse_bundle(struct parse *p, int argc, char **argv, int *next)
{
	const char *s = argv[1];
	const struct opt_def *d;
	const char *v;
	size_t j;

	*next = 2;
	for (j = 0; s[j] != '\0'; j++) {
		d = find_short(s[j]);
		v = NULL;
		if (d->has_arg && d->id != OPT_REFUSED) {
			if (*next >= argc)
				return fail(p, "option '-%c' requires an "
				    "argument", s[j]);
			v = argv[(*next)++];
		}
		if (apply(p, d, v, true) == -1)
			return -1;
		if (p->a->help || p->a->version)
			return 0;
	}
	return 0;
}

/*
 * Note for the member pattern just added whether it selects its name
 * alone (--no-recursion), and how it matches (MATCH, PFX_MATCH_*).
 * Return: 0, or -1 (error written).
 */
static int
push_whole(struct parse *p, bool norec, unsigned int match)
{
	struct xtr_args *a = p->a;
	bool *grown;
	size_t ncap;

	size_t *dirs;

	if (a->nmember_pat > p->cap_whole) {
		ncap = p->cap_whole == 0 ? 8 : p->cap_whole * 2;
		if (ncap < a->nmember_pat)
			ncap = a->nmember_pat;
		grown = realloc(a->member_whole, ncap * sizeof(*grown));
		if (grown == NULL)
			return fail(p, "out of memory");
		a->member_whole = grown;
		dirs = realloc(a->member_dir, ncap * sizeof(*dirs));
		if (dirs == NULL)
			return fail(p, "out of memory");
		a->member_dir = dirs;
		p->cap_whole = ncap;
	}
	a->member_whole[a->nmember_pat - 1] = norec;
	a->member_dir[a->nmember_pat - 1] = p->cur_dir;
	return set_flags(p, &a->member_flags, &p->cap_member_flags,
	    a->nmember_pat, match);
}

/*
 * Add the member operand S as a pattern for the library, as GNU tar
 * reads it: without its trailing '/'s, and, unless GLOB, literal -- its
 * '*', '?', '[' and '\' escaped; with NOREC it selects its name alone.
 * Return: 0, or -1 (error written).
 */
static int
push_member_pattern(struct parse *p, const char *s, bool glob, bool norec,
    unsigned int match)
{
	struct xtr_args *a = p->a;
	size_t len = strlen(s), i, n = 0;
	char *pat;
	int rc;

	while (len > 1 && s[len - 1] == '/')
		len--;
	if (glob)
		return push(p, &a->member_pat, &a->nmember_pat,
		    &p->cap_member_pat, s, len) == -1 ? -1 :
		    push_whole(p, norec, match);
	if (len > (SIZE_MAX - 1) / 2)
		return fail(p, "out of memory");
	pat = malloc(2 * len + 1);
	if (pat == NULL)
		return fail(p, "out of memory");
	for (i = 0; i < len; i++) {
		if (strchr("*?[\\", s[i]) != NULL)
			pat[n++] = '\\';
		pat[n++] = s[i];
	}
	rc = push(p, &a->member_pat, &a->nmember_pat, &p->cap_member_pat,
	    pat, n);
	free(pat);
	return rc == -1 ? -1 : push_whole(p, norec, match);
}

/*
 * The options finish() can only give a meaning once the archive is known:
 * -T files (a "-" is standard input unless the archive comes from it),
 * --one-top-level's default name, -O, --occurrence.
 * Return: 0, or -1 (error written).
 */
static int
finish_tar_options(struct parse *p)
{
	struct xtr_args *a = p->a;
	bool archive_stdin = a->archive == NULL ||
	    strcmp(a->archive, "-") == 0;
	size_t k;

	for (k = 0; k < p->nfrom; k++) {
		if (strcmp(p->from[k].path, "-") == 0 && archive_stdin)
			return fail(p, "-T -: standard input is the archive's; "
			    "give the archive with -f or the list as a file");
		if (read_list_file(p, &p->from[k], "file list", true,
		    add_member_line) == -1)
			return -1;
	}
	/* GNU tar's usage errors, in its words. */
	a->conflict = true;
	if (p->verify)
		return fail(p, "'--verify' cannot be used with '%s'",
		    a->mode == 'l' ? "--test-label" : a->mode == 't' ?
		    "-t" : "-x");
	if (a->opt.occurrence > 0 && a->nmembers == 0)
		return fail(p, "--occurrence is meaningless without a file "
		    "list");
	a->conflict = false;
	if (a->to_stdout && a->report_json)
		return fail(p, "-O (--to-stdout) and --report=json both "
		    "write to standard output");
	if (a->to_stdout && a->mode == 'x') {
		a->opt.flags |= PFX_OPT_TO_FD;
		a->opt.out_fd = STDOUT_FILENO;
	}
	if (!p->top_level)
		return 0;
	if (a->top_dir == NULL && top_dir_of(p, a->archive, &a->top_dir) == -1)
		return -1;
	if (xtr_xform_top_dir(&a->xforms, a->top_dir,
	    a->opt.strip_components) == -1)
		return fail(p, "out of memory");
	return 0;
}

/*
 * The destination as GNU tar's positional -C makes it: with no member,
 * the last -C; else the -C each member binds to, and when they bind to
 * more than one, no single destination (A->ngroups).
 */
static void
group_dirs(struct xtr_args *a)
{
	size_t i, k, first = 0;

	a->ngroups = 1;
	if (a->nmember_pat == 0) {
		a->dir = a->ndirs > 0 ? a->dirs[a->ndirs - 1] : NULL;
		return;
	}
	for (i = 0; i < a->nmember_pat; i++) {
		for (k = 0; k < i; k++)
			if (a->member_dir[k] == a->member_dir[i])
				break;
		if (k == i && i > 0)
			a->ngroups++;
		if (i == 0)
			first = a->member_dir[0];
	}
	a->dir = a->ngroups == 1 && first > 0 ? a->dirs[first - 1] : NULL;
}

/*
 * -C DIR: GNU tar's, for the member operands after it; a relative DIR is
 * beneath the -C before it.  Return: 0, or -1.
 */
static int
add_dir(struct parse *p, const char *v)
{
	struct xtr_args *a = p->a;
	const char *prev = a->ndirs > 0 ? a->dirs[a->ndirs - 1] : NULL;
	char *dir;
	size_t n;
	int rc;

	if (*v == '\0')
		return fail(p, "-C needs a directory");
	if (v[0] == '/' || prev == NULL)
		return push(p, &a->dirs, &a->ndirs, &p->cap_dirs, v, strlen(v));
	n = strlen(prev) + 1 + strlen(v) + 1;
	dir = malloc(n);
	if (dir == NULL)
		return fail(p, "out of memory");
	(void)snprintf(dir, n, "%s/%s", prev, v);
	rc = push(p, &a->dirs, &a->ndirs, &p->cap_dirs, dir, n - 1);
	free(dir);
	return rc;
}

/*
 * Give the operands their meaning and point the library's options at the
 * arrays.  Return: 0, or -1.
 */
static int
finish(struct parse *p)
{
	struct xtr_args *a = p->a;
	size_t k = 0;

	/* As GNU tar, which then reads them as the volumes. */
	if (a->nvolumes > 0 && (a->opt.flags & PFX_OPT_MULTI_VOLUME) == 0)
		return tar_error(p, fail(p, "multiple archive files require "
		    "'-M' option (-f appears twice)"));
	if (a->nvolumes >= PFX_MAX_VOLUMES)
		return fail(p, "-M: at most %d volumes may be given",
		    PFX_MAX_VOLUMES);
	if (!p->file_set && p->nops > 0)
		a->archive = p->ops[k++];
	for (; k < p->nops; k++) {
		if (push(p, &a->members, &a->nmembers, &p->cap_members,
		    p->ops[k], strlen(p->ops[k])) == -1)
			return -1;
		p->cur_dir = p->ops_dir[k];
		if (push_member_pattern(p, p->ops[k], p->ops_glob[k],
		    p->ops_norec[k], p->ops_match[k]) == -1)
			return -1;
	}
	if (finish_tar_options(p) == -1)
		return -1;
	group_dirs(a);
	if (a->mode != 'x')
		a->opt.flags |= PFX_OPT_LIST;
	else
		a->opt.flags &= ~PFX_OPT_LIST;
	if (a->mode == 'l')
		a->opt.flags |= PFX_OPT_LABEL_ONLY;
	a->opt.include = (const char *const *)a->include;
	a->opt.ninclude = a->ninclude;
	a->opt.exclude = (const char *const *)a->exclude;
	a->opt.nexclude = a->nexclude;
	a->opt.members = (const char *const *)a->member_pat;
	a->opt.nmembers = a->nmember_pat;
	a->opt.member_whole = a->member_whole;
	a->opt.exclude_flags = a->exclude_flags;
	a->opt.member_flags = a->member_flags;
	a->opt.xattrs_include = (const char *const *)a->xattrs_include;
	a->opt.nxattrs_include = a->nxattrs_include;
	a->opt.xattrs_exclude = (const char *const *)a->xattrs_exclude;
	a->opt.nxattrs_exclude = a->nxattrs_exclude;
	return 0;
}

/* see args.h */
int
xtr_parse_args(int argc, char **argv, struct xtr_args *a, char *err,
    size_t errcap)
{
	struct parse p;
	bool options = true;
	int i = 1, rc = -1;

	memset(a, 0, sizeof(*a));
	pfx_options_init(&a->opt);
	a->mode = 'x';
	a->progress = -1;
	memset(&p, 0, sizeof(p));
	p.a = a;
	p.err = err;
	p.errcap = errcap;
	if (err != NULL && errcap > 0)
		err[0] = '\0';
	if (argc < 1)
		return finish(&p);
	p.ops = calloc((size_t)argc, sizeof(*p.ops));
	p.ops_glob = calloc((size_t)argc, sizeof(*p.ops_glob));
	p.ops_norec = calloc((size_t)argc, sizeof(*p.ops_norec));
	p.ops_match = calloc((size_t)argc, sizeof(*p.ops_match));
	p.ops_dir = calloc((size_t)argc, sizeof(*p.ops_dir));
	if (p.ops == NULL || p.ops_glob == NULL || p.ops_norec == NULL ||
	    p.ops_match == NULL || p.ops_dir == NULL) {
		free(p.ops_dir);
		free(p.ops_match);
		free(p.ops_norec);
		free(p.ops);
		free(p.ops_glob);
		return fail(&p, "out of memory");
	}

	if (argc > 1 && is_bundle(argv[1]) &&
	    parse_bundle(&p, argc, argv, &i) == -1)
		goto out;
	for (; i < argc && !a->help && !a->version; i++) {
		const char *arg = argv[i];

		if (!options || arg[0] != '-' || arg[1] == '\0') {
			p.ops_glob[p.nops] = p.wildcards;
			p.ops_norec[p.nops] = p.norec;
			p.ops_match[p.nops] = member_match(&p);
			p.ops_dir[p.nops] = a->ndirs;
			p.ops[p.nops++] = arg;
			continue;
		}
		if (strcmp(arg, "--") == 0) {
			options = false;
			continue;
		}
		if (arg[1] == '-') {
			if (parse_long(&p, argc, argv, &i) == -1)
				goto out;
		} else {
			if (parse_short(&p, argc, argv, &i) == -1)
				goto out;
		}
	}
	rc = finish(&p);
out:
	free(p.ops);
	free(p.ops_glob);
	free(p.ops_norec);
	free(p.ops_match);
	free(p.ops_dir);
	free(p.from);
	return rc;
}

/* Free the N strings of *ARR and the array, and forget them. */
static void
free_strings(char ***arr, size_t *n)
{
	size_t i;

	if (*arr != NULL)
		for (i = 0; i < *n; i++)
			free((*arr)[i]);
	free(*arr);
	*arr = NULL;
	*n = 0;
}

/* see args.h */
void
xtr_args_free(struct xtr_args *a)
{
	free_strings(&a->members, &a->nmembers);
	free_strings(&a->member_pat, &a->nmember_pat);
	free(a->member_whole);
	a->member_whole = NULL;
	free(a->member_dir);
	a->member_dir = NULL;
	free_strings(&a->dirs, &a->ndirs);
	a->dir = NULL;
	a->opt.member_whole = NULL;
	free(a->member_flags);
	a->member_flags = NULL;
	a->opt.member_flags = NULL;
	free(a->exclude_flags);
	a->exclude_flags = NULL;
	a->opt.exclude_flags = NULL;
	free_strings(&a->include, &a->ninclude);
	free_strings(&a->exclude, &a->nexclude);
	free_strings(&a->volumes, &a->nvolumes);
	xtr_xforms_free(a->xforms);
	a->xforms = NULL;
	free(a->top_dir);
	a->top_dir = NULL;
	free_strings(&a->xattrs_include, &a->nxattrs_include);
	free_strings(&a->xattrs_exclude, &a->nxattrs_exclude);
	a->opt.xattrs_include = NULL;
	a->opt.nxattrs_include = 0;
	a->opt.xattrs_exclude = NULL;
	a->opt.nxattrs_exclude = 0;
	a->opt.include = NULL;
	a->opt.ninclude = 0;
	a->opt.exclude = NULL;
	a->opt.nexclude = 0;
	a->opt.members = NULL;
	a->opt.nmembers = 0;
}
