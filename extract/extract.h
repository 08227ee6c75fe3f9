/*
 * extract.h -- what every stage of the extractor shares: the state of
 * one run (struct xtr), the records the writers are given (struct
 * xtr_meta), the shared constants and return codes.  It declares no
 * function: each file declares what it exports in a header of its own
 * name (report.h for report.c, ...), and a file includes the header of
 * another only if that one is below it in the order of docs/design.md
 * ("Layers"): archive bytes -> decode -> read -> judge -> write -> report,
 * with the orchestration (run.c, atomic.c, writer.c) above the engine.
 * Only the reader includes <archive.h>; no file here calls open, mkdir,
 * stat or realpath on a path: every filesystem effect goes through
 * pfx_root.h.
 */
#ifndef XTR_EXTRACT_H
#define XTR_EXTRACT_H

#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

#include "decode.h"
#include "pfextract.h"

struct archive;
struct archive_entry;
struct xtr_meta;
struct stat;

/*
 * The decoder process may allocate the run's memory budget (which bounds
 * xz's threads too) and this much more: its threads' stacks (half of it,
 * or what they need beyond), the ring, libarchive's buffers and the
 * allocator's slack (xtr_decoder_rlimit()).
 */
#define XTR_DECODER_HEADROOM (512ull << 20)

/* Bytes read from the archive at a time, and written per write(2). */
#define XTR_BLOCK (64 * 1024)

/*
 * Bytes libarchive reads from a plain archive file at a time: one read(2)
 * per MiB rather than per 64 KiB (1,300 reads for Linux's 1.3 GB tar, not
 * 20,900).  Its buffer is one allocation of this size, within the
 * headroom above.
 */
#define XTR_READ_BLOCK (1024 * 1024)

/*
 * Directories kept open for the files and directories made in them next,
 * one a depth (parents.c): a directory's entries, its subdirectories',
 * and its own again after them cost no lookup.  Deeper names share the
 * last.
 */
#define XTR_PARENT_DEPTHS 16

/* Mode of directories made implicitly for an entry's parents. */
#define XTR_IMPLICIT_DIR_MODE 0755

/* Mode of every directory while extraction runs: private to us. */
#define XTR_PRIVATE_DIR_MODE 0700

/*
 * One key and its record.  The fields are ordered widest first, so that
 * no padding is left between them: a table has up to 8/3 slots per key
 * (xtr_table_add), and this is 56 bytes on LP64 (it was 72).
 */
struct xtr_slot {
	char *key;		/* in the table's arena; NULL when free */
	dev_t dev;
	ino_t ino;
	int64_t mtime;
	size_t index;		/* links.c: index into xtr.links, or SIZE_MAX */
	mode_t mode;
	uint32_t hash;		/* the key's hash, low bits: spares most
				   strcmp()s and every rehash */
	int32_t mtime_nsec;	/* 0 to 999,999,999 */
	bool has_time;
	bool has_id;
	bool at_end;		/* dirs: a mode and times to set at the end */
};

struct xtr;
struct xtr_chunk;
struct xtr_table_note;

struct xtr_table {
	struct xtr_slot *slots;
	size_t cap;		/* a power of two, or 0 */
	size_t used;
	struct xtr *owner;	/* whose memory budget pays, or NULL */
	struct xtr_chunk *chunks;	/* the keys' arena (table.c) */
	uint64_t key[2];	/* SipHash key, drawn at the first add */
	bool keyed;
	uint64_t probes;	/* slots looked at by adds and growth, ever:
				   the tests' measure of the work an
				   archive's names cause */
	/* Keys noted with an identity and not yet added (table.h,
	 * xtr_table_note()): their copies are in the arena. */
	struct xtr_table_note *notes;
	size_t nnotes, notes_cap;
};

/*
 * What libarchive's cpio reader walks of its list of files with more than
 * one link, for one reader (cpiowalk.h): zeroed, then MAX_LINKS set.
 */
struct xtr_cpio_group;

struct xtr_cpio_walk {
	uint64_t max_links;	/* limits.max_links; 0: not counted */
	uint64_t entries;	/* entries of a cpio archive read */
	uint64_t walked;	/* bytes of the list walked, ever */
	uint64_t list;		/* bytes the list holds now */
	struct xtr_cpio_group *v;	/* the groups in it, by (dev, ino) */
	size_t cap, used;	/* V's slots (a power of two, or 0), used */
	uint64_t key[2];	/* the hash key, drawn at the first group */
};

/*
 * What one entry's data has given so far, as libarchive read it in this
 * process (reader.h, xtr_reader_data()).
 */
struct xtr_span {
	int64_t end;		/* where the last block ended */
	uint64_t got;		/* the bytes of data given */
	uint64_t want;		/* the bytes of data its sparse map holds
				   (0: no map) */
	int64_t size;		/* a sparse entry's size, which its map
				   must stay inside (-1: no map, or none) */
};

/* --- the state of one extraction -------------------------------------- */

/* What libarchive's ARCHIVE_WARN on a header was. */
enum xtr_header_warn {
	XTR_WARN_NONE,
	XTR_WARN_DAMAGED,	/* a malformed part ignored (a pax record) */
	XTR_WARN_UNCONVERTED	/* a name not in its header's character
				   set, kept as its bytes */
};

/*
 * A symlink queued for the end.  Its three strings share one allocation,
 * "path\0target\0name\0" (name left out and pointing at path when they
 * are the same), owned through PATH; its bytes, with its array slot and
 * its slot in xtr.pending, are taken from the memory budget (MEM).
 */
struct xtr_symlink {
	char *path;		/* owned: relative path of the link */
	char *target;		/* in PATH's block: as in the archive */
	char *name;		/* in PATH's block: the archive's name */
	char *uname, *gname;	/* in PATH's block, or NULL: the
				   entry's, for its report */
	int64_t e_uid, e_gid, e_mtime;	/* the entry's, for its report */
	long e_mtime_nsec;
	size_t mem;		/* bytes taken from the budget for it */
	uid_t uid;		/* (uid_t)-1: leave the owner */
	gid_t gid;
	struct timespec mtime;	/* tv_nsec UTIME_OMIT: leave the time */
	const char *why;	/* --symlinks=root: NULL made, else why
				   not (a reason of names.c) */
	bool deferred;		/* --symlinks=root with a journal: its
				   name held something, so it is made
				   once every name is in place */
};

struct xtr {
	const struct pfx_options *opt;
	char backup[NAME_MAX + 1];	/* the reader's last file's
					   xtr_tail.backup, for its report */
	struct pfx_result *res;
	struct pfx_root root;
	struct pfx_parent_cache *parents[XTR_PARENT_DEPTHS];
				/* directories kept open, one a depth
				   (parents.c): reading thread, each
				   NULL until used */
	unsigned int parent_slots;	/* how many of PARENTS a run may
					   keep (xtr_fd_parent_slots()) */
	struct archive *ar;		/* libarchive reads here, or ... */
	struct xtr_decoder *dec;	/* AR's own decoder (its close frees
					   it), or NULL: libarchive decodes */
	struct xtr_volumes *vols;	/* AR's joiner of volumes (tar -M,
					   freed after AR), or NULL */
	struct xtr_remote *remote;	/* ... the decoder process does
					   (owned), or NULL */
	struct xtr_zip *zip;		/* ... or our zip reader (zip.h,
					   owned), or NULL */
	int drain_fd;			/* AR's input, borrowed, read to its
					   end after the archive (see
					   xtr_input_drain()), or -1 */
	unsigned int policy_flags;	/* PFX_POLICY_* for the core */
	bool no_hard_links;		/* the archive's format holds none
					   (zip): files not remembered as
					   link targets (xtr_note_file) */
	struct xtr_head head;		/* AR's first bytes (label.c) */
	struct xtr_cpio_walk cpio_walk;	/* AR's cpio link list, counted */
	bool label_done;		/* xtr_label_first() ran */
	struct xtr_table files;		/* regular files made: identity */
	struct xtr_table dirs;		/* directories made: final metadata */
	struct xtr_table pending;	/* symlinks queued: index into links */
	struct xtr_table changed;	/* PFX_OPT_FSYNC: directories whose
					   entries changed, to sync */
	bool *include_hit;		/* per include pattern, then per
					   member: selected any */
	uint64_t *member_seen;		/* opt->occurrence: per member, the
					   entries it selected by name */
	struct xtr_symlink *links;	/* symlinks to make at the end */
	size_t nlinks, links_cap;
	uint64_t link_entries;		/* hard and symbolic links taken on */
	uint64_t relink_slots;		/* slots of the files' table looked
					   at by cpio-style links
					   (hardlink.c relink_affordable()) */
	/*
	 * --symlinks=contain: resolution steps (paths looked up, links
	 * followed) spent judging the queued links, and the most the run
	 * may spend (links.c, XTR_LINK_STEPS_*).
	 */
	uint64_t link_steps, link_step_budget;
	struct link_cache *lcache;	/* owned while links are judged */
	struct xtr_async *async;	/* owned: the file-finishing worker */
	const struct xtr_worker *worker;	/* its calls, set by async.c
					   while it runs (worker.c) */
	/*
	 * The CPUs planned for (pfx_options.cpus, or plat_thread_cpus()
	 * counted in begin(), before any confinement hides the cgroup).
	 * On one, no thread is started that would only hand work over:
	 * the decoders run on the reading thread (XTR_DEC_INLINE), here or
	 * in the decoder process; below XTR_WORKER_MIN_CPUS, no worker.
	 */
	unsigned int cpus;
	/*
	 * --symlinks=contain or root: the destination was empty when the
	 * run began (begin()), so it held no link of before the run: there
	 * is none to list (links.c, collect_old_links(), list_old_links()).
	 */
	bool dest_was_empty;
	/*
	 * --symlinks=contain or root: the links in the destination, listed
	 * when an entry first replaces one (xtr_symlink_removable), under
	 * OLD_MU: the worker thread commits files too.  Root: OWN_LINKS,
	 * under OLD_MU too, holds the links the run made, which are neither
	 * listed nor judged when replaced (links.c, note_own()).
	 */
	struct old_links *old_listed;	/* owned, or NULL */
	struct xtr_table own_links;
	/* dumprename.c: the old and new paths of the directories GNU
	 * renames moved (dirs.c trusts no directory it knows by name alone
	 * at or beneath one); whether the destination held a symlink at
	 * the first rename (0: not asked yet). */
	struct xtr_table moved;
	int dest_links;			/* 0, 1: none, 2: some */
	pthread_mutex_t old_mu;
	uint64_t removals_judged;	/* listed links judged for a
					   replacement, under OLD_MU: for
					   the tests' cost count (links.c) */
	uint64_t queued_bytes;		/* written by files queued there */
	struct timespec born_after;	/* the run's start, by DEST's
					   clock (xtr_born_in_run()) */
	bool born_known;		/* BORN_AFTER is known */
	struct timespec deadline;	/* pfx_options.timeout, monotonic;
					   tv_sec 0: none */
	struct xtr_stop stop;		/* the cancel flag and DEADLINE, for
					   the reads of the input */
	uint64_t charged;		/* holes: counted as bytes written
					   in every limit */
	uint64_t inodes;		/* entries, and directories made
					   for them: --max-entries */
	uint64_t decoded;		/* entries' data the source gave,
					   read or drained: for the ratio */
	uint64_t stream_at;		/* where the last header began in
					   the decoded stream, or all the
					   decoder process sent if more:
					   for the ratio, headers counted
					   too */
	bool in_data;			/* the current entry's data may not
					   all have been read */
	bool ar_entry;			/* libarchive (X->ar) read a header
					   whose data it has not skipped */
	struct xtr_span span;		/* ... and what of its data it
					   gave (reader.h) */
	char *pax_list;			/* owned: the current entry's data
					   in place of libarchive's: a pax
					   GNU.dumpdir (paxdump.c), or NULL */
	size_t pax_len;
	size_t xattr_mem;		/* of the budget, held for the
					   current entry's xattrs */
	struct xtr_journal *journal;	/* owned: --atomic over a populated
					   destination (journal.c), or NULL */
	_Atomic uint64_t mem_used;	/* xtr_mem_take(), both threads */
	_Atomic bool mem_over;		/* ... crossed max_memory */
	bool unstored;			/* an extended attribute the
					   filesystem would not store
					   (meta.c): PFX_REFUSED */
	bool fatal;
};

/*
 * Where a run's entries come from: an archive (IN) that libarchive reads,
 * here or in the decoder process; or, IN NULL, a socket (WIRE, owned)
 * that carries the decoder process's messages (wire.h) from a sender in
 * this process: pfx_writer_*() (writer.c), the fuzzer, the tests.
 */
struct xtr_in {
	const struct pfx_input *in;
	int wire;
	const char *who;	/* WIRE's sender, as messages name it */
};

/*
 * What a writer needs of an entry beyond its struct pfx_entry (whose
 * size, mtime, mtime_nsec, uid, gid, uname and gname it uses), filled
 * once from the reader's entry (engine.c): the writers (file.c, dirs.c,
 * links.c, async.c) never see libarchive's.
 */
struct xtr_meta {
	bool size_set;		/* the entry's size is the header's */
	bool sparse;		/* its data has holes */
	bool atime_set;
	struct timespec atime;
	/*
	 * Call FN with each extended attribute, until one returns non-0;
	 * return that, or 0.  NULL: the entry has none.
	 */
	int (*xattrs)(void *arg, int (*fn)(void *fnarg, const char *name,
	    const void *value, size_t size), void *fnarg);
	void *xattrs_arg;
};

/* xtr_write_regular(): the archive's data could not be read (fatal). */
#define XTR_READ_FAILED 1
/* xtr_write_regular(): a resource limit was reached (fatal). */
#define XTR_LIMIT 2
/* xtr_write_regular(): the caller cancelled the run (fatal). */
#define XTR_CANCELLED 3
/*
 * xtr_write_regular(): the name holds a symlink that a link already in
 * the destination passes through, and removing it would turn that one
 * outwards (--symlinks=contain): refused, "symlink_redirects".
 */
#define XTR_REDIRECTS 4
/*
 * xtr_commit() with PFX_EXISTING_KEEP_NEWER: the name holds a file whose
 * mtime is not older than the entry's, and it is kept ("newer_exists").
 */
#define XTR_KEPT_NEWER 5
/*
 * xtr_write_regular(): the entry's data failed its check or cannot be
 * decoded (a zip member's CRC-32, an encrypted member): that entry failed
 * ("bad_data"), never given its name; the archive's next entry is read.
 */
#define XTR_BAD_DATA 6

/*
 * Does X's policy replace an existing name (PFX_EXISTING_REPLACE, or
 * PFX_EXISTING_KEEP_NEWER, which keeps only a newer file: xtr_commit)?
 */
static inline bool
xtr_replaces(const struct pfx_options *opt)
{
	return opt->existing == PFX_EXISTING_REPLACE ||
	    opt->existing == PFX_EXISTING_KEEP_NEWER;
}

/* A dump directory's list, read and checked. */
struct xtr_dumpdir {
	char *buf;		/* the records, "Cname\0" each, NUL after */
	size_t len;		/* bytes of records (padding left out) */
	const char **names;	/* the 'Y', 'N', 'D' records sorted by
				   name, or NULL */
	size_t n;
	size_t renames;		/* 'R'/'T' pairs */
	size_t mem;		/* taken from the memory budget */
};

#endif /* XTR_EXTRACT_H */
