/*
 * pfextract.h -- extract untrusted archives beneath one directory.
 *
 * Conventions.  Pointer arguments MUST NOT be NULL unless stated.
 * Descriptors passed in are borrowed, never closed.  The library has no
 * global state: it never prints, exits, installs signal handlers or
 * changes the working directory, and two threads may extract two archives
 * at once.  Every file is created through the pinned-root layer
 * (pfx_root.h) beneath the destination; every name is judged by the
 * decision core (pfx_path.h) first.
 *
 * Safe by default: no symlinks are created (PFX_SYMLINKS_REFUSE), device
 * nodes, FIFOs and sockets are refused, no ownership is changed,
 * setuid/setgid/sticky and group/other write bits are cleared, nothing
 * that existed before is written through (an existing file is replaced
 * by a new one renamed over it).  Options only loosen this.
 */
#ifndef PFEXTRACT_H
#define PFEXTRACT_H

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pfx_path.h"
#include "pfx_root.h"
#include "pfx_sandbox.h"

/*
 * Versions.  PFX_VERSION_NUMBER is 0xMMmmpp: major, minor, patch, one
 * byte each (0.1.0 is 0x000100), so releases compare as numbers.  The
 * header's is what a caller was built against; pfx_version() is the
 * library's, at run time.  Within one major number the ABI only grows:
 * functions, flag bits and enumerators are added, and fields only at the
 * end of struct pfx_options and struct pfx_result.  See pfx_options.size.
 */
#define PFX_VERSION "0.2.0"
#define PFX_VERSION_NUMBER 0x000200

/* How one call ended; also pfextract(1)'s exit status. */
enum pfx_status {
	PFX_OK = 0,		/* every entry extracted */
	PFX_REFUSED = 1,	/* finished; some entries were refused,
				   or an xattr not stored */
	PFX_FATAL = 2		/* stopped: unreadable archive, unusable
				   destination, I/O error, or --strict */
};

/* What one entry turned out to be. */
enum pfx_entry_status {
	PFX_ENTRY_EXTRACTED = 0,
	PFX_ENTRY_LISTED,	/* PFX_OPT_LIST: looked at, nothing written */
	PFX_ENTRY_REFUSED,	/* by policy, reported; counts toward exit 1 */
	PFX_ENTRY_SKIPPED,	/* quietly: excluded, not selected, vetoed
				   by the caller, or an existing file kept
				   under PFX_EXISTING_SKIP */
	PFX_ENTRY_FAILED	/* an I/O error on this entry (fatal) */
};

enum pfx_entry_type {
	PFX_TYPE_FILE = 0,
	PFX_TYPE_DIR,
	PFX_TYPE_SYMLINK,
	PFX_TYPE_HARDLINK,
	PFX_TYPE_CHAR,
	PFX_TYPE_BLOCK,
	PFX_TYPE_FIFO,
	PFX_TYPE_SOCKET,
	PFX_TYPE_OTHER
};

/* What to do with symlink entries. */
enum pfx_symlinks {
	PFX_SYMLINKS_REFUSE = 0,	/* report each one; create none */
	PFX_SYMLINKS_CONTAIN,		/* create those whose target, resolved
					   with real symlink semantics, stays
					   beneath the destination; last */
	PFX_SYMLINKS_ROOT		/* DEST is a root filesystem: links
					   resolve as in a chroot (absolute
					   targets from DEST); made at once,
					   and existing ones followed to a
					   parent, RESOLVE_IN_ROOT */
};

/* What to do when an entry's name already exists in the destination. */
enum pfx_existing {
	PFX_EXISTING_REPLACE = 0,	/* tar's default: a new file is renamed
					   over the old name */
	PFX_EXISTING_KEEP,		/* -k: refuse and report */
	PFX_EXISTING_SKIP,		/* --skip-old-files: skip quietly */
	PFX_EXISTING_KEEP_NEWER		/* --keep-newer-files: as REPLACE,
					   but an existing non-directory
					   whose mtime is not older than
					   the entry's is kept (skipped,
					   reason "newer_exists") */
};

/*
 * Backups of an existing file an entry replaces (GNU tar's --backup):
 * the old name is renamed to NAME + suffix (SIMPLE), NAME.~N~ with N one
 * more than the highest there (NUMBERED), or NUMBERED where such a
 * backup of NAME exists, else SIMPLE (EXISTING), in its directory beneath
 * the root, just before the new file is renamed in.  Directories are
 * never backed up.
 */
enum pfx_backup {
	PFX_BACKUP_NONE = 0,
	PFX_BACKUP_SIMPLE,
	PFX_BACKUP_NUMBERED,
	PFX_BACKUP_EXISTING
};

/* Option flags. */
#define PFX_OPT_STRICT		0x0001u	/* the first refusal is fatal */
#define PFX_OPT_SAME_OWNER	0x0002u	/* restore uid/gid (root only) */
#define PFX_OPT_PRESERVE_PERMS	0x0004u	/* -p: keep group/other write and
					   sticky; setuid/setgid only with
					   PFX_OPT_SAME_OWNER too */
#define PFX_OPT_NO_MTIME	0x0008u	/* -m: do not restore mtimes */
#define PFX_OPT_XATTRS		0x0010u	/* restore xattrs, never security.*,
					   trusted.* or system.* */
#define PFX_OPT_NUMERIC_OWNER	0x0020u	/* ids, not names, with SAME_OWNER */
#define PFX_OPT_WINDOWS_NAMES	0x0040u	/* reject names dangerous on Windows
					   for every format (zip: always) */
#define PFX_OPT_LIST		0x0080u	/* list: read every entry, write
					   nothing */
#define PFX_OPT_ATOMIC		0x0100u	/* all or nothing: an absent or
					   empty DEST gets a staging tree
					   renamed into place; a populated
					   one gets each file beside its
					   name, all put in place at the
					   end; nothing if PFX_FATAL */
#define PFX_OPT_IGNORE_ZEROS	0x0200u	/* -i: read a tar archive past
					   its zero blocks, to its end */
#define PFX_OPT_RECURSIVE_UNLINK 0x0800u /* a directory where a file goes
					   is removed with what is beneath
					   it (never through a symlink or
					   into another mount) */
#define PFX_OPT_FSYNC		0x0400u	/* make the result durable: each
					   file synced before its rename,
					   each directory after its
					   entries, deepest first, the
					   destination last */
/*
 * GNU tar's -G/-g at extraction: each GNU dump directory (a 'D' entry of
 * an incremental archive) lists the names its directory held when it was
 * dumped; every name in that directory on disk that the list lacks (or
 * whose type differs: 'D' a directory, 'Y'/'N' anything else) is
 * removed, with all beneath it, through the pinned root, never through a
 * symlink.  Names with a '/', "." or "..", renames ('R', 'T', 'X') and a
 * list over PFX_DUMPDIR_MAX bytes refuse the entry.  When listing, the
 * list is given to the hooks (pfx_entry.dumpdir).
 */
#define PFX_OPT_INCREMENTAL	0x40000u
#define PFX_DUMPDIR_MAX		(16u << 20)	/* 16 MiB */

/*
 * Extract to a descriptor, as tar's -O: the data of each regular file is
 * written to pfx_options.out_fd, in archive order, holes as zeros; no
 * other entry is made (each is reported PFX_ENTRY_LISTED) and DEST is
 * not opened.  Names are judged, and every limit counts, as when
 * extracting.  A write error (EPIPE: the reader went away) fails the run;
 * no SIGPIPE is raised for it, whatever the caller's disposition.
 */
#define PFX_OPT_TO_FD		0x8000u

/*
 * The sandbox.  The archive is parsed by libarchive and the compression
 * libraries; an archive that exploits one of them runs its own code in
 * the process that parses.  With PFX_OPT_SANDBOX or PFX_OPT_SANDBOX_CHILD
 * that process is not the caller's: pfx_extract() forks a decoder
 * process that keeps only a socket and a read-only descriptor of the
 * input (a path is opened there, before confinement), confines itself
 * with PFX_SANDBOX_NO_DEST (pfx_sandbox.h: it can write, create, remove,
 * rename, chmod or chown nothing anywhere, start no process, signal no
 * other, execute nothing, open no socket), and only then reads the
 * archive.  It sends each header and block of data; the calling process
 * checks every message (a breach of the protocol is PFX_FATAL, EPROTO,
 * "protocol error from the decoder process: ..."), then judges and
 * writes each entry itself, exactly as without a sandbox: the hooks see
 * only what pfx_extract() made of it, in this process.  The decoder
 * process and everything in its process group are ended (SIGTERM, then
 * SIGKILL) and reaped before pfx_extract() returns; see TIMEOUT and
 * IDLE_TIMEOUT for its deadlines.  A decoder taken over can at most feed
 * the run a different archive, spend CPU and memory until a deadline,
 * and read what the kernel leaves readable (/usr).
 *
 * With PFX_OPT_SANDBOX the CALLING PROCESS is confined too, after the
 * fork and before the first entry is read: from then on the kernel lets
 * it -- every thread, for the rest of its life, irreversibly -- write only
 * beneath the destination (nothing at all when listing), read only the
 * input it holds, /usr and the NSS files, start no process; no exec, no
 * new socket, no network; change no file's mode, owner or times outside
 * the destination's parent either (read-only mounts in a mount namespace
 * of its own; as a user, in a user namespace, where the kernel allows
 * one: pfx_sandbox.h).  Symlinks may be made there only with
 * PFX_SYMLINKS_CONTAIN or PFX_SYMLINKS_ROOT, set-id and sticky bits and owners changed only
 * when the run restores them (PFX_OPT_PRESERVE_PERMS, or
 * PFX_OPT_SAME_OWNER as root).  That is for a program whose whole process is this
 * one extraction (pfextract(1) is one); a library caller that must go on
 * as before (a package manager, a server) MUST NOT use it: use
 * PFX_OPT_SANDBOX_CHILD, which confines the decoder process only.
 *
 * What was enforced is in pfx_result.sandbox: the decoder process's
 * confinement, and with PFX_OPT_SANDBOX the text goes on with
 * "; writer: " and the calling process's.  With PFX_OPT_SANDBOX_REQUIRE
 * too, the call fails (PFX_FATAL, ENOSYS, nothing extracted) unless the
 * kernel enforces both the filesystem rules and the system-call filter.
 * POSIX-only (fork); in a multithreaded caller the decoder process runs
 * only library code and libc's fork-safe parts, and ends with _exit().
 * glibc's iconv(3) lock, which a fork may copy held by another thread,
 * is taken first in the decoder process: one that cannot take it within
 * 250 ms is forked again, up to ten times (then PFX_FATAL, EAGAIN).
 */
#define PFX_OPT_SANDBOX		0x1000u	/* decoder process, and confine
					   the caller's process */
/* The decoder process alone; the caller's process is never confined. */
#define PFX_OPT_SANDBOX_CHILD	0x4000u
#define PFX_OPT_SANDBOX_REQUIRE	0x2000u	/* ... or fail if the kernel
					   cannot */

/*
 * The input is a Debian package (an ar whose first member is
 * debian-binary): its data.tar member (any compression) is read as the
 * archive; pfx_options.formats is not used.  The limits count the
 * member's bytes as the input.
 */
#define PFX_OPT_DEB		0x100000u

/*
 * The input is GNU tar's multi-volume archive (tar -M): pfx_input's PATH
 * or FD is its first volume, and VOLUMES the next, in order.  Only tar,
 * uncompressed (GNU tar writes no other).  See struct pfx_input.
 */
#define PFX_OPT_MULTI_VOLUME	0x200000u

/*
 * GNU tar's --test-label, with PFX_OPT_LIST: the archive is read only as
 * far as its first entry's header, for its volume label (hooks.label,
 * pfx_options.volume_label as always); no entry is reported or counted.
 * With MEMBERS, the label is matched as an entry's name would be (each
 * member's flags; with PFX_OPT_MULTI_VOLUME, also without a trailing
 * " Volume N", as GNU tar does): when there is no label or no member
 * matches it, stats.unmatched is 1 and the status PFX_REFUSED (no
 * hooks.unmatched).  A label read whole makes a damaged archive after
 * it no error, as in GNU tar; an archive whose first bytes pfextract
 * does not see (see hooks.label) fails, EINVAL.
 */
#define PFX_OPT_LABEL_ONLY	0x400000u

/*
 * Patterns (INCLUDE, EXCLUDE, MEMBERS, VOLUME_LABEL, XATTRS_INCLUDE and
 * XATTRS_EXCLUDE) take '^' right after '[' as an ordinary character, as
 * glibc's fnmatch(3) does when POSIXLY_CORRECT is set; without it '^'
 * negates as '!' does.  The library never reads the environment:
 * pfextract(1) sets this bit when POSIXLY_CORRECT is set, as GNU tar
 * behaves then.
 */
#define PFX_OPT_POSIX_GLOB	0x800000u

/*
 * Every PFX_OPT_* bit this header defines: pfx_extract() fails, EINVAL,
 * before anything is done, when pfx_options.flags holds any other, so a
 * safety flag of a newer header is never ignored by an older library.
 * A new bit is added here too.
 */
#define PFX_OPT_KNOWN							\
	(PFX_OPT_STRICT | PFX_OPT_SAME_OWNER | PFX_OPT_PRESERVE_PERMS |	\
	PFX_OPT_NO_MTIME | PFX_OPT_XATTRS | PFX_OPT_NUMERIC_OWNER |	\
	PFX_OPT_WINDOWS_NAMES | PFX_OPT_LIST | PFX_OPT_ATOMIC |		\
	PFX_OPT_IGNORE_ZEROS | PFX_OPT_FSYNC | PFX_OPT_RECURSIVE_UNLINK |	\
	PFX_OPT_SANDBOX | PFX_OPT_SANDBOX_REQUIRE | PFX_OPT_SANDBOX_CHILD |	\
	PFX_OPT_TO_FD | PFX_OPT_INCREMENTAL | PFX_OPT_DEB |		\
	PFX_OPT_MULTI_VOLUME | PFX_OPT_LABEL_ONLY | PFX_OPT_POSIX_GLOB)

/*
 * One entry, as the hooks see it.  Strings are valid only during the hook
 * call.  NAME is the archive's bytes, untrusted; PATH is the relative path
 * it was (or would be) written to, NULL when it has none.
 */
struct pfx_entry {
	const char *name;
	const char *path;
	const char *link_target;	/* symlink or hard-link target, or NULL */
	enum pfx_entry_type type;
	mode_t mode;			/* permission bits from the archive */
	int64_t size;			/* as the header claims */
	int64_t mtime;			/* seconds since the epoch */
	const char *uname, *gname;	/* may be NULL */
	int64_t uid, gid;
	enum pfx_decision decision;	/* allow, deny or reject */
	const char *reason;		/* stable code; "none" when allowed */
	enum pfx_entry_status status;	/* in report() only */
	int error;			/* errno of a failure, else 0 */
	uint64_t bytes;			/* bytes written for this entry */
	/*
	 * PFX_OPT_INCREMENTAL: a GNU dump directory's records as read
	 * ("Yname\0Dsub\0...", checked), DUMPDIR_LEN bytes; else NULL.
	 */
	const char *dumpdir;
	size_t dumpdir_len;
	/* Listings (tar -tv, -R) and progress; after the fields above,
	 * which keep their places. */
	int64_t devmajor, devminor;	/* a device's numbers, else 0 */
	long mtime_nsec;		/* nanoseconds of MTIME */
	int64_t offset;			/* where its header begins in the
					   decompressed archive; -1 unknown */
	uint64_t input_read;		/* bytes of the input read so far
					   (compressed, as stored) */
	/* --backup (pfx_options.backup): in report() of an extracted
	 * file, the name, one component in PATH's directory, that the
	 * file which was at PATH was renamed to; else NULL. */
	const char *backup;
};

/* Which name hooks.transform() is asked about. */
enum pfx_name_kind {
	PFX_NAME_ENTRY = 0,	/* the entry's own name */
	PFX_NAME_SYMLINK,	/* a symlink's target */
	PFX_NAME_HARDLINK	/* a hard link's target (an archive name) */
};

/* What decide() may answer. */
#define PFX_HOOK_CONTINUE 0	/* go on as decided */
#define PFX_HOOK_SKIP 1		/* veto: the entry is skipped */
#define PFX_HOOK_RENAME 2	/* write it at the path put in RENAME */
#define PFX_HOOK_ABORT 3	/* stop now: PFX_FATAL */

struct pfx_hooks {
	/*
	 * Called for every allowed entry before anything is written.  May
	 * return PFX_HOOK_RENAME after writing a new relative path (NUL-
	 * terminated, at most RENAME_CAP bytes) to RENAME; that path is
	 * judged by the decision core again.  NULL: always continue.
	 */
	int (*decide)(void *arg, const struct pfx_entry *entry, char *rename,
	    size_t rename_cap);
	/*
	 * Called, for each entry the member selection kept, with its name
	 * and then with its link target, before --strip-components and
	 * before anything is judged: tar's --transform.  Returns 0 to keep
	 * NAME, 1 after writing the new name (NUL-terminated, at most CAP
	 * bytes) to OUT, 2 when the new name would not fit (the entry is
	 * refused, "too_long"), anything else to stop the run.  What
	 * it gives is judged as the archive's own name would be; an entry
	 * whose new name is "" is skipped (reason "transform_empty"), as
	 * GNU tar does.  NULL: names as stored.
	 */
	int (*transform)(void *arg, enum pfx_name_kind kind,
	    const struct pfx_entry *entry, const char *name, char *out,
	    size_t cap);
	/*
	 * Called once per entry with its outcome, in archive order, on the
	 * calling thread; the report of a file, or of an entry behind one,
	 * may come when later entries are already written (a second thread
	 * finishes files).  Before each decide() every earlier entry is
	 * finished and reported.  NULL: none.
	 */
	void (*report)(void *arg, const struct pfx_entry *entry);
	void *arg;
	/*
	 * Called after the whole archive was read, once for each include
	 * pattern and member that selected no entry (tar's "Not found in
	 * archive"), with the pointer given in pfx_options; such a pattern
	 * makes the status PFX_REFUSED.  NULL: none.
	 */
	void (*unmatched)(void *arg, const char *pattern);
	/*
	 * With a sandbox: called once, after the decoder process (and with
	 * PFX_OPT_SANDBOX this process) confined itself and before the
	 * first entry is read, with what was enforced.  NULL: none.
	 */
	void (*confined)(void *arg, const struct pfx_sandbox_info *info);
	/*
	 * PFX_OPT_INCREMENTAL: called after NAME, a name in the directory
	 * of the dump-directory entry DIR, was removed (with all beneath
	 * it) because DIR's list lacks it.  NULL: none.
	 */
	void (*purged)(void *arg, const struct pfx_entry *dir,
	    const char *name);
	/*
	 * A GNU tar volume label: called once, before the first entry is
	 * reported (or at the end of an archive that holds none), when
	 * the archive's first header is a GNU volume header ('V') or a
	 * pax global header with GNU.volume.label.  LABEL->name is the
	 * label (hostile bytes, NUL-free); its mode, owners, size and
	 * mtime are the header's, as GNU tar lists them (a pax label: 0,
	 * and the global header's mtime); type PFX_TYPE_OTHER, path NULL,
	 * offset 0 for a 'V' header, -1 for a pax record (GNU tar lists
	 * that one only with the first entry it lists).  A label is never
	 * extracted, and is no entry: it is
	 * in no count.  Only a tar whose first 4 KiB of decompressed
	 * bytes pfextract sees is looked at: plain, or decoded by
	 * pfextract's gzip, zstd or xz decoder (not bzip2, lz4, lzip,
	 * lzma, compress, rpm or PFX_OPT_DEB).  NULL: none.
	 */
	void (*label)(void *arg, const struct pfx_entry *label);
};

/*
 * Resource limits, counted on what is really written and read, never on
 * what headers claim.  Crossing one stops the run (PFX_FATAL) with the
 * limit's name and value in the message; 0 means no limit.  The defaults
 * (pfx_options_init) stop compression bombs while a Linux source tree, a
 * large node_modules tree or a multi-gigabyte single file pass untouched.
 */
struct pfx_limits {
	uint64_t max_bytes;	/* file data written, in total */
	uint64_t max_entry_bytes; /* one entry's size, holes included */
	uint64_t max_entries;	/* entries read */
	unsigned int max_depth;	/* components of an entry's path */
	uint64_t max_links;	/* hard and symbolic link entries */
	uint64_t max_ratio;	/* bytes written per archive byte read ... */
	uint64_t ratio_after;	/* ... once this many bytes are written */
	uint64_t max_memory;	/* bytes the run may hold for what the
				   archive grows: names, links, tables */
};

#define PFX_DEFAULT_MAX_BYTES (256ull << 30)	/* 256 GiB */
#define PFX_DEFAULT_MAX_ENTRIES 4000000u
#define PFX_DEFAULT_MAX_DEPTH 256u
#define PFX_DEFAULT_MAX_LINKS 100000u
#define PFX_DEFAULT_MAX_RATIO 200u
#define PFX_DEFAULT_RATIO_AFTER (64ull << 20)	/* 64 MiB */
#define PFX_DEFAULT_MAX_MEMORY (1ull << 30)	/* 1 GiB */

/* How one member or exclude pattern matches (pfx_options.exclude_flags). */
#define PFX_MATCH_ANCHORED	0x1u	/* from the start of the name only */
#define PFX_MATCH_CASEFOLD	0x2u	/* ASCII case does not count */
#define PFX_MATCH_NOSLASH	0x4u	/* '*', '?' and [...] never match '/' */

struct pfx_options {
	/*
	 * sizeof(struct pfx_options) as the caller was built, set by
	 * pfx_options_init().  pfx_extract() fails, EINVAL, when it is
	 * below this release's size (0: a struct not from
	 * pfx_options_init()), or above it with a byte past it that is not
	 * 0 (a field this library does not know, set).  Then only the
	 * fields of pfx_result up to MESSAGE are written.
	 */
	size_t size;
	unsigned int flags;		/* PFX_OPT_* */
	struct pfx_limits limits;
	enum pfx_symlinks symlinks;
	enum pfx_existing existing;
	unsigned int strip_components;	/* leading components removed */
	/*
	 * Member selection, as tar: with INCLUDE, only entries whose name
	 * matches one of the patterns (fnmatch(3), or a leading directory of
	 * the name) are extracted.  EXCLUDE patterns match the name or any
	 * tail of it after a '/', and win.
	 */
	const char *const *include;
	size_t ninclude;
	const char *const *exclude;
	size_t nexclude;
	/*
	 * tar's member operands, as GNU tar matches them: an entry is
	 * selected if a pattern of MEMBERS (fnmatch(3), as INCLUDE) matches
	 * its name as stored -- a leading "./" is not removed, from either
	 * -- or a leading directory of it.  To take a name literally, as
	 * GNU tar does without --wildcards, escape '*', '?', '[' and '\'
	 * with '\'; drop a trailing '/' (GNU tar does), or the pattern
	 * selects the directory entry alone.  MEMBERS and INCLUDE select
	 * together: an entry either selects is in.
	 */
	const char *const *members;
	size_t nmembers;
	/*
	 * Per member, when not NULL: true selects the entry of that name
	 * alone, not what a directory of that name holds (GNU tar's
	 * --no-recursion).
	 */
	const bool *member_whole;
	/*
	 * GNU tar's --anchored, --ignore-case and --no-wildcards-match-slash,
	 * per pattern: EXCLUDE_FLAGS[i] for EXCLUDE[i], MEMBER_FLAGS[i] for
	 * MEMBERS[i], each a set of PFX_MATCH_* bits.  NULL: tar's defaults,
	 * 0 for an exclude pattern (it matches the name or any tail of it
	 * after a '/') and PFX_MATCH_ANCHORED for a member.  A trailing '/'
	 * of an entry's name is not part of it to either (a pattern "d/"
	 * then '*' does not match the entry "d/": its name is "d").
	 */
	const unsigned int *exclude_flags;
	const unsigned int *member_flags;
	/*
	 * GNU tar's --occurrence=N: with MEMBERS, only the Nth entry that
	 * each member selects by its own name (the first member that
	 * matches the entry counts it; entries beneath a selected
	 * directory follow the directory) is selected.  A member selected
	 * fewer than N times is unmatched.  0: every entry.
	 */
	unsigned int occurrence;
	/*
	 * Comma-separated libarchive format names to read, or NULL for the
	 * default set: tar (ustar, pax, GNU, v7), zip, cpio, 7zip, ar.
	 * "mtree" is always refused: it reads files named in the archive.
	 */
	const char *formats;
	int out_fd;			/* PFX_OPT_TO_FD: where data goes */
	enum pfx_resolver resolver;
	struct pfx_hooks hooks;
	/*
	 * Cancellation, e.g. from a signal handler: when *CANCEL is not 0
	 * the run stops as soon as it notices -- before the next entry, or
	 * before the next block of a file's data is written; a read blocked
	 * on a pipe or FIFO stops when a signal interrupts it.  The file
	 * being written is removed with its temporary name, no further
	 * entry is made, and the call returns PFX_FATAL with error
	 * ECANCELED and the message "interrupted".  What was complete stays.
	 * NULL: never cancelled.
	 */
	const volatile sig_atomic_t *cancel;
	/*
	 * Deadlines, in seconds; 0: none.  TIMEOUT bounds the whole call,
	 * a read of a stalled pipe too: past it the run stops as a
	 * cancellation does, with error ETIMEDOUT.  IDLE_TIMEOUT bounds,
	 * with a sandbox, how long the decoder process may send nothing
	 * while the run waits for it (it waits for a slow input too; the
	 * run's own time, in hooks, does not count): past it the process
	 * is killed and the run fails with ETIMEDOUT.
	 */
	unsigned int timeout;
	unsigned int idle_timeout;
	/*
	 * With a sandbox: the seconds of CPU the decoder process may spend
	 * without giving an entry or a block of data -- a reader that loops
	 * on a hostile archive (libarchive's own, past our reach) is ended
	 * by the kernel (its CPU timer) and the run fails, ETIMEDOUT.  0:
	 * none.
	 */
	unsigned int stall_timeout;
	/* Backups of replaced files (enum pfx_backup); the suffix of
	 * SIMPLE backups, NULL: "~".  No '/' in it, not empty (EINVAL). */
	enum pfx_backup backup;
	const char *backup_suffix;
	/*
	 * With PFX_OPT_XATTRS: only the attributes whose name matches a
	 * pattern of XATTRS_INCLUDE (fnmatch(3); none given: all), and
	 * none that matches one of XATTRS_EXCLUDE.  security.*, trusted.*
	 * and system.* are never set, whatever the patterns.
	 */
	const char *const *xattrs_include;
	size_t nxattrs_include;
	const char *const *xattrs_exclude;
	size_t nxattrs_exclude;
	/*
	 * GNU tar's -V PATTERN when reading: unless the archive's volume
	 * label (see hooks.label) matches the glob PATTERN (fnmatch(3),
	 * no flags), the run stops before the first entry, PFX_FATAL,
	 * EINVAL: "Volume 'LABEL' does not match 'PATTERN'", or "Archive
	 * not labeled to match 'PATTERN'".  NULL: not checked.
	 */
	const char *volume_label;
	/*
	 * GNU tar's positional -C, run once per directory: when not NULL,
	 * MEMBER_GROUP[i] is the group (directory) of MEMBERS[i], and an
	 * entry is selected by the members only when the first member that
	 * matches it, in order, is of group GROUP -- the one GNU tar
	 * extracts it for; that member alone counts it as found, and only
	 * GROUP's members are told to hooks.unmatched.
	 */
	const size_t *member_group;
	size_t group;
	/*
	 * Called, with hooks.arg, when an entry is read whose outcome waits
	 * for the end of the run: a symbolic link under
	 * PFX_SYMLINKS_CONTAIN or PFX_SYMLINKS_ROOT, judged (and made or
	 * refused) once the whole tree is known.  It comes in archive
	 * order among the reports -- every earlier entry was reported --
	 * with the entry as read (its PATH set; STATUS not: that is
	 * report()'s); the report itself comes at the end of the run, or
	 * when a later entry takes its name ("replaced").  Every symbolic
	 * link reported PFX_ENTRY_EXTRACTED was told here first: a
	 * listing of what is extracted in archive order (tar -xv) says a
	 * link here, and its refusal when it comes.  NULL: none.
	 */
	void (*queued)(void *arg, const struct pfx_entry *entry);
	/*
	 * Called, with hooks.arg, on a warning that does not stop the run,
	 * as it comes: WHAT is its stable code, NAME the member it is about
	 * (the archive's bytes, NUL-free, as the entry's name: empty where
	 * the header's is).  The codes:
	 * "xattr_not_stored" (PFX_OPT_XATTRS): the filesystem refused one
	 * of NAME's attributes (too long, malformed, no room); NAME is made
	 * without it and the status is PFX_REFUSED (under PFX_OPT_STRICT,
	 * an I/O error instead);
	 * "header_damaged": NAME's header was read whole, but a part of it
	 * malformed and ignored (a pax record: bsdtar's "Ignoring
	 * malformed pax extended attribute"); NAME is extracted as the
	 * rest of the header says, and its status is not changed by this
	 * (under PFX_OPT_STRICT the run stops there instead, EILSEQ);
	 * "name_not_converted": NAME is not in the character set its
	 * header says (invalid UTF-8 in a pax path) and is taken as its
	 * bytes, as GNU tar takes it;
	 * and, all of PFX_OPT_MULTI_VOLUME:
	 * "truncated_name": a later volume's 'M' header continues NAME,
	 * longer than the 100 bytes it holds of it, and is taken by those
	 * 100 bytes, the size and the offset, as GNU tar takes it
	 * ("possibly continued on this volume: header contains truncated
	 * name");
	 * "not_continued": a volume that continues another member than
	 * NAME (or none), cut at the end of the volume before, was skipped, as GNU tar
	 * skips it ("'NAME' is not continued on this volume"), and the next
	 * volume is read in its place;
	 * "out_of_sequence": the same for a volume that continues NAME from
	 * another offset (GNU tar's "This volume is out of sequence");
	 * "wrong_size": the same for a volume that continues NAME with
	 * another size (GNU tar's "'NAME' is the wrong size").
	 * A volume is skipped only when another follows it.  NULL: none.
	 */
	void (*warning)(void *arg, const char *what, const char *name);
	/*
	 * The CPUs the run plans its threads for; 0: those the process may
	 * use, counted at the start (its affinity mask, capped by a cgroup
	 * CPU quota).  At most PFX_MAX_CPUS.  With 1 each process of the
	 * run has one thread: gzip, zstd and xz are decoded where the
	 * archive is read, and a zip's members inflated there.  With 2 or
	 * more, decoding has a thread of its own, xz up to that many and
	 * a zip a pool of that many.  With 3 or more, a second thread also
	 * finishes the files the first writes (their data, mode, times and
	 * name); with 2 that thread only took turns with the first, and
	 * the run was slower.  The tree and the reports are the same
	 * whatever the count.
	 */
	unsigned int cpus;
};

#define PFX_MAX_CPUS 1024u

#define PFX_DEFAULT_IDLE_TIMEOUT 600u	/* ten minutes */
#define PFX_DEFAULT_STALL_TIMEOUT 30u

/* Counters, over the entries of one call. */
struct pfx_stats {
	uint64_t entries;
	uint64_t extracted;
	uint64_t listed;
	uint64_t refused;
	uint64_t skipped;
	uint64_t failed;
	uint64_t unmatched;	/* include patterns and members that
				   selected nothing */
	uint64_t bytes;		/* file bytes written */
};

/* The outcome of one call. */
struct pfx_result {
	enum pfx_status status;
	struct pfx_stats stats;
	int error;		/* errno of a fatal error, else 0 */
	char message[512];	/* a fatal error in words, else "" */
	const char *resolver;	/* "openat2" or "walk"; "none" when no
				   destination was opened (listing, or
				   an unusable destination) */
	struct pfx_sandbox_info sandbox; /* a sandbox: what was
				   enforced; all zero, text "", when
				   confinement was not attempted */
	uint64_t archive_bytes;	/* bytes of the decompressed archive
				   read, once it ended well (tar's
				   --totals); else 0 */
	int tar;		/* 1: that archive was a tar (ustar,
				   pax, GNU, v7); else 0 */
};

/*
 * pfx_result.error when the input is no archive at all: empty, or in no
 * format enabled (GNU tar's "This does not look like a tar archive"):
 * EILSEQ, the one errno of that cause (libpfextract(3), ERRORS).
 */
#define PFX_ENOTARCHIVE EILSEQ

/*
 * Fill the SIZE bytes at OPT with the safe defaults, SIZE in .size; the
 * bytes past this release's struct, if any, with 0.  Use the macro, which
 * passes the size the caller was built with; ctypes and other FFI callers
 * pass theirs.  Return: 0, or -EINVAL (OPT is NULL, or SIZE below this
 * release's struct; nothing written).
 */
PFX_API int pfx_options_init_size(struct pfx_options *opt, size_t size);
#define pfx_options_init(opt)						\
	((void)pfx_options_init_size((opt), sizeof(struct pfx_options)))

/* Return: the library's PFX_VERSION_NUMBER, at run time. */
PFX_API unsigned long pfx_version(void);

/*
 * Where the archive comes from: PATH if not NULL, else BUF if not NULL,
 * else FD if >= 0 -- so a zeroed struct with BUF set never reads fd 0;
 * the others are then ignored.  None of the three: EINVAL.
 * An FD that is a pipe, FIFO or socket is read to its end once the
 * archive has ended well (what follows is dropped, not decoded), so that
 * its writer is not killed by SIGPIPE; a FIFO given by PATH is too, with
 * a sandbox.
 */
struct pfx_input {
	const char *path;	/* a file; "-" is not special here */
	int fd;			/* an open descriptor, read from where it is */
	const void *buf;	/* a memory buffer of LEN bytes */
	size_t len;
	/*
	 * Read only with PFX_OPT_MULTI_VOLUME: the volumes after the first
	 * (PATH or FD; never BUF), NVOLUMES open descriptors, borrowed,
	 * read from where they are; at most PFX_MAX_VOLUMES - 1.  One that
	 * could not be opened may be given as -errno: the run fails with
	 * that error only if the archive reaches that volume.  They are
	 * joined into one archive.  Each later volume's label is dropped,
	 * and so is the continuation of the member cut at the end of the
	 * volume before, once it names that member, with its size and the
	 * offset reached, as GNU tar checks it: else the run fails (EINVAL,
	 * "'NAME' is not continued on volume N", "volume N is out of
	 * sequence", ...).  So does an archive that goes on past the last
	 * volume ("no more volumes"): nothing prompts for another.
	 */
	const int *volumes;
	size_t nvolumes;
};

#define PFX_MAX_VOLUMES 256

/*
 * Extract (or, with PFX_OPT_LIST, list) the archive IN beneath the
 * existing directory DEST, resolved from DIRFD (AT_FDCWD, or a directory
 * fd with DEST "."), following OPT (NULL: the defaults).  With
 * PFX_OPT_ATOMIC, DEST may be absent, and must otherwise be a directory
 * with a last component of its own or "." (with a directory fd, pass
 * the parent's fd and the name); see libpfextract(3).  *RESULT is always
 * filled in.  IN, DEST (unless PFX_OPT_LIST or PFX_OPT_TO_FD) and RESULT
 * must not be NULL: the first two fail EINVAL, a NULL RESULT returns
 * PFX_FATAL at once.  Unknown flag bits (outside PFX_OPT_KNOWN),
 * enumerators and pfx_options.size fail EINVAL before anything is done.
 * RESULT->error holds one errno per cause (libpfextract(3) ERRORS).
 * Return: RESULT->status.
 */
PFX_API enum pfx_status pfx_extract(const struct pfx_input *in, int dirfd,
    const char *dest, const struct pfx_options *opt,
    struct pfx_result *result);

/*
 * The push API, for a caller that reads its archives itself (a package
 * installer's own tar, cpio or ar reader): it gives each entry, then a
 * file's data, and pfextract judges and writes them exactly as
 * pfx_extract() judges and writes an archive's -- the same checks,
 * limits, links policy, hooks, reports and PFX_OPT_ATOMIC.  A thread of
 * the writer's runs the extraction; the hooks are called on it, one at
 * a time.  The writer keeps OPT's pointers (patterns, hooks), which
 * must stay valid until pfx_writer_finish().  Not with the PFX_OPT_SANDBOX
 * flags (EINVAL): they confine the archive's parser, which is the
 * caller.  Every call but finish returns 0 or an errno: EINVAL for a bad
 * argument or call order; EPIPE when the run has stopped (a fatal error,
 * a limit, a veto, data past an entry's size or short of a file's),
 * whose reason pfx_writer_finish() gives; EDEADLK, nothing done, when
 * a hook of the writer's own run calls it (finish too: PFX_FATAL, and
 * the writer is still the caller's to finish).
 *
 * pfx_writer_open(): begin a run beneath DEST, resolved from DIRFD, as
 * pfx_extract() would (DEST NULL with PFX_OPT_LIST or PFX_OPT_TO_FD, as
 * there); *W is the writer.  DIRFD and (with PFX_OPT_TO_FD) OPT's OUT_FD
 * are copied (dup): the caller may close its own once this returns.
 */
struct pfx_writer;
PFX_API int pfx_writer_open(int dirfd, const char *dest,
    const struct pfx_options *opt, struct pfx_writer **w);

/*
 * The next entry: NAME as the archive stores it, TYPE, MODE, SIZE (a
 * file's data length, which must then be given whole, whatever becomes
 * of the entry, or the run fails, EIO: -1 when unknown; below -1, EINVAL),
 * MTIME and MTIME_NSEC (0 to 999999999), UNAME, GNAME, UID, GID,
 * LINK_TARGET (a symlink's target, or a hard link's archive name),
 * DEVMAJOR and DEVMINOR (a device's, 0 to 2^32-1).  The rest of E is
 * ignored.  Copied: E may go once this returns.
 */
PFX_API int pfx_writer_entry(struct pfx_writer *w,
    const struct pfx_entry *e);

/* LEN more bytes of the current entry's data, in order. */
PFX_API int pfx_writer_data(struct pfx_writer *w, const void *buf,
    size_t len);

/* An extended attribute, for pfx_writer_entry_ext(). */
struct pfx_xattr {
	const char *name;	/* e.g. "user.mime_type"; not empty */
	const void *value;	/* SIZE bytes, any (NULL when SIZE is 0) */
	size_t size;
};

/* pfx_writer_entry_ext() FLAGS: a sparse file (PFX_TYPE_FILE, SIZE set). */
#define PFX_WRITER_SPARSE 0x1u

/*
 * As pfx_writer_entry(), with NXATTRS extended attributes XATTRS (set on
 * the file only with PFX_OPT_XATTRS, under the same rules as an
 * archive's), and FLAGS.  With PFX_WRITER_SPARSE the entry is a sparse
 * file of apparent size E->size: its data comes by pfx_writer_data_at()
 * (or pfx_writer_data(), which goes on where the last block ended), and
 * what no block covers is a hole -- charged against the limits and
 * max-ratio as the bytes it stands for, as a sparse tar member's.  The
 * header with its attributes must fit one message of the protocol
 * (4 MiB): else E2BIG, nothing sent.  Copied: XATTRS may go once this
 * returns.
 */
PFX_API int pfx_writer_entry_ext(struct pfx_writer *w,
    const struct pfx_entry *e, const struct pfx_xattr *xattrs,
    size_t nxattrs, unsigned int flags);

/*
 * LEN bytes of a sparse entry's data at OFFSET, at or after where the
 * last block ended (EINVAL otherwise, or for an entry not sparse).
 */
PFX_API int pfx_writer_data_at(struct pfx_writer *w, int64_t offset,
    const void *buf, size_t len);

/*
 * The caller's reader failed (WHY, its message): the run ends as for a
 * corrupt archive -- fatal, EIO, WHY in its message, and with
 * PFX_OPT_ATOMIC nothing is left.  Then pfx_writer_finish().
 */
PFX_API int pfx_writer_fail(struct pfx_writer *w, const char *why);

/*
 * End the run (the archive ended, unless pfx_writer_fail() said
 * otherwise), wait for it, fill RESULT (may be NULL) as pfx_extract()
 * does, and free W.  Return: the run's status.
 */
PFX_API enum pfx_status pfx_writer_finish(struct pfx_writer *w,
    struct pfx_result *result);

/* Return: the stable name of TYPE ("file", "dir", "symlink", ...). */
PFX_API const char *pfx_entry_type_name(enum pfx_entry_type type);

/* Return: the stable name of STATUS ("extracted", "refused", ...). */
PFX_API const char *pfx_entry_status_name(enum pfx_entry_status status);

/*
 * Return: a sentence explaining the stable reason code REASON, for
 * messages such as "pfextract: NAME: REASON_TEXT"; REASON itself when it
 * is no code, "" when it is NULL.  The codes are listed in
 * libpfextract(3).
 */
PFX_API const char *pfx_reason_text(const char *reason);

#endif /* PFEXTRACT_H */
