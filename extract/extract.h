/*
 * extract.h -- internals of the extractor (see pfextract.h).
 *
 * One job per file: reader.c opens libarchive on the input, engine.c runs
 * the loop and decides each entry, file.c writes regular files and their
 * metadata, dirs.c finishes directories at the end, links.c makes hard
 * and symbolic links, match.c selects members (glob.c matches the
 * patterns), table.c is the one map the others use, names.c holds the stable strings, atomic.c makes a run
 * all or nothing (PFX_OPT_ATOMIC), journal.c when DEST holds something.  Only this directory
 * includes <archive.h>; no file here calls open, mkdir, stat or realpath
 * on a path: every filesystem effect goes through pfx_root.h.
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

/* Mode of directories made implicitly for an entry's parents. */
#define XTR_IMPLICIT_DIR_MODE 0755

/* Mode of every directory while extraction runs: private to us. */
#define XTR_PRIVATE_DIR_MODE 0700

/* --- table.c: a map from relative path to a small record ------------- */

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
};

struct xtr;
struct xtr_chunk;

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
};

/*
 * SipHash-c-d (Aumasson and Bernstein, 2012) of LEN bytes at MSG under
 * KEY: the tables use c = 1, d = 3.
 */
uint64_t xtr_siphash(const uint64_t key[2], const void *msg, size_t len,
    unsigned int c, unsigned int d);

/* A fresh SipHash key for one table of one run: random bytes, or what
 * differs from one process to the next where there are none. */
void xtr_hash_key(uint64_t key[2]);

/* Make T empty, charging what it will hold to OWNER (NULL: nobody). */
void xtr_table_init(struct xtr_table *t, struct xtr *owner);

/* Find KEY.  Return: its slot, or NULL. */
struct xtr_slot *xtr_table_find(const struct xtr_table *t, const char *key);

/*
 * Find KEY, adding it (zeroed, key copied) if missing.
 * Return: its slot, or NULL when memory or T's owner's memory budget
 * runs out (xtr_mem_take(): the run then fails with EFBIG).
 */
struct xtr_slot *xtr_table_add(struct xtr_table *t, const char *key);

/* Release everything T holds and give it back to T's owner. */
void xtr_table_free(struct xtr_table *t);

/* --- glob.c: the patterns of member selection ----------------------- */

/* xtr_glob() flags. */
#define XTR_GLOB_TAIL	0x1u	/* match NAME or any part after a '/' */
#define XTR_GLOB_WHOLE	0x2u	/* NAME whole (but for trailing '/'s),
				   not a leading directory of it */
#define XTR_GLOB_FOLD	0x4u	/* ASCII case does not count
				   (fnmatch's FNM_CASEFOLD) */
#define XTR_GLOB_NOSLASH 0x8u	/* '*', '?' and [...] never match '/'
				   (FNM_PATHNAME) */
#define XTR_GLOB_TRIM	0x10u	/* NAME's trailing '/'s are not part of
				   it, as in GNU tar ("d/" is "d") */

/*
 * Does the pattern PAT match NAME, as fnmatch(PAT, NAME, FNM_LEADING_DIR)
 * would in glibc's single-byte path ("a*" also matches "ab/c")?  Under
 * XTR_GLOB_TAIL, does it match NAME or any part of NAME after a '/'?
 * Adds to *WORK (if WORK is not NULL) the number of pattern elements
 * compared with a byte of NAME: at most (n + 1) * (m + 1) for a name of
 * n bytes and a pattern of m, XTR_GLOB_TAIL or not -- (n + 1) * (m + 1) *
 * (s + 1) under XTR_GLOB_TAIL and XTR_GLOB_NOSLASH, for a pattern of s
 * slashes.
 */
bool xtr_glob(const char *pat, const char *name, unsigned int flags,
    uint64_t *work);

/* --- match.c ---------------------------------------------------------- */

/*
 * Is NAME left out by the include, member and exclude patterns of OPT?
 * Sets HITS[i] (if HITS is not NULL) for each include pattern that
 * selects it, and HITS[ninclude + i] for each member.
 * Return: NULL if selected, else "excluded" or "not_selected".
 */
const char *xtr_unselected(const struct pfx_options *opt, const char *name,
    bool *hits);

/*
 * GNU tar's --occurrence: is NAME, selected, not the wanted occurrence of
 * the first member that matches it?  SEEN counts per member how many
 * entries it selected by their own name (a directory's content does not
 * count once the directory did).
 */
bool xtr_occurrence_skips(const struct pfx_options *opt, const char *name,
    uint64_t *seen);

/* --- tarhead.c: a raw tar header's fields (label.c, volumes.c) -------- */

#define XTR_TAR_BLOCK 512u

/*
 * The numeric header field F of W bytes: octal (spaces around it, a NUL
 * or space after), or GNU's base-256 when its first byte has 0x80 set
 * (positive only).  Return: 0 with *OUT, or -1 (not a number, too big).
 */
int xtr_tar_number(const unsigned char *f, size_t w, uint64_t *out);

/* Does the block B (XTR_TAR_BLOCK bytes) check as a tar header (its
 * checksum, summed unsigned, or signed as some old tars summed)? */
bool xtr_tar_header_ok(const unsigned char *b);

/* --- label.c: GNU tar's volume label ---------------------------------- */

/* The archive's first bytes: struct xtr_head, decode.h. */

/* A volume label as read from its header. */
struct xtr_label {
	char name[XTR_HEAD_MAX];	/* NUL-free, terminated */
	char uname[33], gname[33];
	int64_t mode, uid, gid, size, mtime;
	bool pax;			/* from a pax global header */
};

/*
 * Read the label from the first LEN bytes B of an archive: a 'V' header
 * or a pax global header ('g') with a GNU.volume.label record, either
 * with a good checksum.  Pure.  Return: 1 with *L set, else 0.
 */
int xtr_label_parse(const unsigned char *b, size_t len, struct xtr_label *l);

/*
 * Once, when the first entry (or the end) was read: tell hooks.label the
 * archive's label, and check opt->volume_label (-V); a mismatch fails X.
 */
void xtr_label_first(struct xtr *x);

/* --- reader.c --------------------------------------------------------- */

/*
 * Make a reader for IN with the formats FORMATS (NULL: the default set)
 * and every built-in filter; open it.  A read from a pipe that a signal
 * interrupts fails when *CANCEL (if CANCEL is not NULL) is set.  An input
 * in gzip, zstd or xz is decoded by our own decoder thread (decode.h;
 * DEC_FLAGS: XTR_DEC_*), which the reader owns: *DEC is set to it,
 * borrowed until the reader is freed, or to NULL when libarchive decodes.
 * On failure writes a message to MSG (CAP bytes) and the cause to
 * *ERROR: the input's open(2) errno (ENOENT, EACCES, ...), EISDIR,
 * EILSEQ (no archive of a format read: empty, unknown), EIO (truncated
 * or corrupt), ENOMEM, ECANCELED, or EINVAL (FORMATS names none read).
 * Return: the reader, or NULL.
 */
struct xtr_decoder;
struct xtr_volumes;

/*
 * Reader flags, given with the XTR_DEC_* bits (which they do not reach):
 * XTR_READ_DEB (PFX_OPT_DEB): IN is a Debian package, and the reader
 * returned reads its data.tar member; XTR_READ_CONCAT: read a tar archive
 * past its zero blocks, to the end (-i, PFX_OPT_IGNORE_ZEROS).
 */
#define XTR_READ_DEB 0x100u
#define XTR_READ_CONCAT 0x200u
#define XTR_READ_MULTIVOL 0x400u	/* PFX_OPT_MULTI_VOLUME (volumes.c) */
#define XTR_READ_FLAGS(opt) \
	((((opt)->flags & PFX_OPT_IGNORE_ZEROS) != 0 ? XTR_READ_CONCAT : 0u) | \
	(((opt)->flags & PFX_OPT_DEB) != 0 ? XTR_READ_DEB : 0u) | \
	(((opt)->flags & PFX_OPT_MULTI_VOLUME) != 0 ? XTR_READ_MULTIVOL : 0u))
/* Return: the bytes of the decompressed archive AR's format reader has
 * taken, what tar's --totals counts (0 when unknown). */
uint64_t xtr_reader_archive_bytes(struct archive *ar);

/*
 * With XTR_READ_MULTIVOL, *VOLS is set to the joiner of the volumes
 * (volumes.c), for the caller to free after the reader, else NULL (VOLS
 * may be NULL only without XTR_READ_MULTIVOL).
 */
struct archive *xtr_reader_open(const struct pfx_input *in,
    const char *formats, const volatile sig_atomic_t *cancel,
    unsigned int dec_flags, struct xtr_decoder **dec,
    struct xtr_volumes **vols, char *msg, size_t cap, int *error);

/*
 * The errno for a read of A that failed once it was open: ENOMEM,
 * ECANCELED or ETIMEDOUT as said, else EIO -- the input ended early, is
 * corrupt, or could not be read: one value whatever the format and the
 * compression (libpfextract(3) ERRORS).
 */
int xtr_reader_errno(struct archive *a);


/*
 * One read(2) of FD into BUF (CAP bytes).  Return: the bytes read (0 at
 * the end), -ECANCELED when a signal cut the read short and *CANCEL is
 * set (any other interruption is retried), or -errno.
 */
ssize_t xtr_read_cancellable(int fd, void *buf, size_t cap,
    const volatile sig_atomic_t *cancel);

/* --- volumes.c: GNU tar's multi-volume archives, joined --------------- */

/*
 * Open A on the N volumes FDS (the caller's, read from where they are;
 * but OWN, if not -1, which is closed with the reader) as one archive;
 * *OUT is the joiner, to free with xtr_volumes_free() once A is freed
 * (whether or not the open worked).  Return: libarchive's status.
 */
int xtr_volumes_open(struct archive *a, const int *fds, size_t n, int own,
    const volatile sig_atomic_t *cancel, struct xtr_head *tap,
    struct xtr_volumes **out);

/*
 * The offset in the volumes, as GNU tar counts blocks (-R), of the byte
 * at JOINED in the joined stream; JOINED itself when V is NULL.
 */
uint64_t xtr_volumes_physical(const struct xtr_volumes *v, uint64_t joined);

/*
 * Why the join failed (and *ERROR, if not NULL, its errno), or NULL when
 * V is NULL or has not failed.  libarchive may have put its own words
 * ("Truncated input file") on the archive since: these are the cause.
 */
const char *xtr_volumes_error(const struct xtr_volumes *v, int *error);

/* The volume V reads now (the last, once the archive ended): what is
 * left of it is drained as a pipe's (xtr_input_drain()).  -1: none. */
int xtr_volumes_fd(const struct xtr_volumes *v);

/* Free V (NULL: nothing), after its reader. */
void xtr_volumes_free(struct xtr_volumes *v);

/*
 * As xtr_reader_open(), keeping the first bytes of the decompressed
 * archive (of volumes, joined) in *HEAD (not NULL) as they are read
 * (label.c), with what the xz decoder may take of the memory budget in
 * MEM (xtr_dec_mem_of()); xtr_reader_open() gives it the default
 * budget's.
 */
struct archive *xtr_reader_open_head(const struct pfx_input *in,
    const char *formats, const volatile sig_atomic_t *cancel,
    unsigned int dec_flags, const struct xtr_dec_mem *mem,
    struct xtr_decoder **dec, struct xtr_volumes **vols,
    struct xtr_head *head, char *msg, size_t cap, int *error);

/*
 * The archive has ended: stop our decoder DEC (if not NULL; it stays the
 * reader's), then read what is left of FD, a pipe, FIFO or socket, to its
 * end and drop it -- not decoded, not bounded -- so that the process
 * writing it is never killed by SIGPIPE for bytes after the archive (a
 * zip's central directory, a tar's zero blocks).  FD of any other kind (a
 * file, a device), or -1, is left alone.  TICK, if not NULL, is called
 * after each read(2); a read that a signal interrupts fails when *CANCEL
 * (if CANCEL is not NULL) is set.  Return: 0 at the end, or -errno
 * (-ECANCELED).
 */
int xtr_input_drain(int fd, struct xtr_decoder *dec,
    const volatile sig_atomic_t *cancel, void (*tick)(void));


/* --- the state of one extraction -------------------------------------- */

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
	struct pfx_parent_cache parents;	/* the last file's parent
						   (file.c), reading thread */
	struct archive *ar;		/* libarchive reads here, or ... */
	struct xtr_decoder *dec;	/* AR's own decoder (its close frees
					   it), or NULL: libarchive decodes */
	struct xtr_volumes *vols;	/* AR's joiner of volumes (tar -M,
					   freed after AR), or NULL */
	struct xtr_remote *remote;	/* ... the decoder process does
					   (owned), or NULL */
	int drain_fd;			/* AR's input, borrowed, read to its
					   end after the archive (see
					   xtr_input_drain()), or -1 */
	unsigned int policy_flags;	/* PFX_POLICY_* for the core */
	struct xtr_head head;		/* AR's first bytes (label.c) */
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
	/*
	 * --symlinks=contain: resolution steps (paths looked up, links
	 * followed) spent judging the queued links, and the most the run
	 * may spend (links.c, XTR_LINK_STEPS_*).
	 */
	uint64_t link_steps, link_step_budget;
	struct link_cache *lcache;	/* owned while links are judged */
	struct xtr_async *async;	/* owned: the file-finishing worker */
	/*
	 * --symlinks=contain: the links in the destination, listed when an
	 * entry first replaces one (xtr_symlink_removable), under OLD_MU:
	 * the worker thread commits files too.
	 */
	struct old_links *old_listed;	/* owned, or NULL */
	/* dumprename.c: the old and new paths of the directories GNU
	 * renames moved (dirs.c trusts no directory it knows by name alone
	 * at or beneath one); whether the destination held a symlink at
	 * the first rename (0: not asked yet). */
	struct xtr_table moved;
	int dest_links;			/* 0, 1: none, 2: some */
	pthread_mutex_t old_mu;
	uint64_t queued_bytes;		/* written by files queued there */
	struct timespec deadline;	/* pfx_options.timeout, monotonic;
					   tv_sec 0: none */
	uint64_t charged;		/* holes: counted as bytes written
					   in every limit */
	uint64_t inodes;		/* entries, and directories made
					   for them: --max-entries */
	uint64_t decoded;		/* entries' data the source gave,
					   read or drained: for the ratio */
	bool in_data;			/* the current entry's data may not
					   all have been read */
	struct xtr_journal *journal;	/* owned: --atomic over a populated
					   destination (journal.c), or NULL */
	_Atomic uint64_t mem_used;	/* xtr_mem_take(), both threads */
	_Atomic bool mem_over;		/* ... crossed max_memory */
	bool fatal;
};

/* --- report.c: each entry's one report, the run's one fatal error ---- */

/*
 * Give ENTRY its outcome: count it, report it through the hook, and apply
 * --strict.  Every entry passes here exactly once.
 */
void xtr_finish_entry(struct xtr *x, struct pfx_entry *entry,
    enum pfx_entry_status status, const char *reason, int error);

/*
 * Report the platform error R (-errno) on ENTRY: a refusal for the
 * conditions an archive can cause (ELOOP, ENOTDIR, EEXIST...), else a
 * failure of the destination, which is fatal.
 */
void xtr_finish_error(struct xtr *x, struct pfx_entry *entry, int r);

/* Report ENTRY, whose name exists, under -k or --skip-old-files. */
void xtr_finish_existing(struct xtr *x, struct pfx_entry *entry);

/*
 * Report ENTRY refused ("symlink_redirects"): it would have replaced a
 * symlink that a link already in the destination passes through.
 */
void xtr_finish_redirects(struct xtr *x, struct pfx_entry *entry);

/*
 * NAME, or when longer than fits a message beside the words that matter
 * (a limit's name and value), its head and tail around "...", in BUF of
 * XTR_SHORT_MAX bytes.  Return: NAME or BUF.
 */
#define XTR_SHORT_MAX 160
const char *xtr_short_name(const char *name, char *buf);

/*
 * Stop the run with a fatal error ERROR (errno) and a message; once the
 * caller cancelled, the error is ECANCELED and the message "interrupted".
 */
void xtr_fail(struct xtr *x, int error, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/*
 * Stop the run because the source failed while reading entry NAME's data
 * (NULL: a header): the archive is unreadable, or the decoder process
 * failed (source.c).
 */
void xtr_fail_read(struct xtr *x, const char *name);

/*
 * Turn a platform error for an entry into its reason code, and say if it
 * is an I/O failure of the destination (fatal) rather than a refusal.
 */
const char *xtr_errno_reason(int error, bool *io_failure);

/* --- budget.c: limits, memory, time, cancellation --------------------- */

/*
 * May entry NAME write WRITTEN more bytes (its own so far included) and
 * leave HOLE bytes of holes?  max-bytes counts what is written, holes
 * included; max-ratio counts what the source decoded (x->decoded, read
 * or drained, the block at hand included) and the holes, per archive
 * byte read.  Return: 0, or XTR_LIMIT with the run failed and the limit
 * named.
 */
int xtr_check_bytes(struct xtr *x, const char *name, uint64_t written,
    uint64_t hole);

/*
 * Count N more inodes against --max-entries: an entry read (before it is
 * taken on), or directories made implicitly for one.  Return: 0, or
 * XTR_LIMIT with the run failed.
 */
int xtr_count_inodes(struct xtr *x, unsigned int n);

/*
 * Take N bytes of the memory budget (pfx_limits.max_memory) for a
 * structure the archive grows (a name kept, a link queued, a table's
 * slots), or give them back.  Either thread may call them.  On crossing
 * the budget, take() returns -1 and the run fails at the reading
 * thread's next look (xtr_cancelled): the caller treats -1 as it would
 * ENOMEM, and no more is taken.  Return: 0, or -1.
 */
int xtr_mem_take(struct xtr *x, size_t n);
void xtr_mem_give(struct xtr *x, size_t n);

/*
 * As xtr_mem_take(), for what the run can do without (a cache): crossing
 * the budget is no failure; N is not taken.  Return: 0, or -1.
 */
int xtr_mem_try(struct xtr *x, size_t n);

/*
 * What the decoders may take of the memory budget LIM->max_memory, on
 * CPUS CPUs (plat_thread_cpus()), into *MEM: xz's threads together
 * 1/XTR_XZ_MEM_SHARE of it, one thread the whole of it (decode.h).
 * Names, links and tables are counted against the whole budget apart,
 * in the process that writes; the decoders' memory is in the process
 * that decodes (the sandbox's decoder process, or this one), where
 * xtr_decoder_rlimit() caps it all.
 */
void xtr_dec_mem_of(const struct pfx_limits *lim, unsigned int cpus,
    struct xtr_dec_mem *mem);

/*
 * The RLIMIT_DATA of the decoder process for LIM and MEM, or 0 for none
 * (no budget): the budget and XTR_DECODER_HEADROOM, more where the
 * stacks of MEM->threads xz threads and of the decoder thread need more
 * than half of that.  A decoder that runs away stops there with ENOMEM.
 */
uint64_t xtr_decoder_rlimit(const struct pfx_limits *lim,
    const struct xtr_dec_mem *mem);

/*
 * Has the caller cancelled the run (pfx_options.cancel), its deadline
 * passed (pfx_options.timeout), or the memory budget been crossed?  If so
 * the run is failed (ECANCELED, ETIMEDOUT, EFBIG).  Return: true if the
 * run must stop.
 */
bool xtr_cancelled(struct xtr *x);

/* --- engine.c --------------------------------------------------------- */

/*
 * PFX_OPT_SANDBOX (else nothing): confine the calling process to DESTFD,
 * or to no destination when DESTFD is -1 (listing).  Called once the
 * decoder process runs (it was forked first, so that this process may
 * still signal it) and before the first entry is read.  Fills INFO; on
 * failure sets RES's status, error and message.  Return: 0, or -1 (the
 * run must stop).
 */
int xtr_confine(const struct pfx_options *opt, int destfd,
    struct pfx_sandbox_info *info, struct pfx_result *res);

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
 * pfx_extract() of SRC, whatever the flags: the descriptor check, then
 * all or nothing (atomic.c) or not.  Return: RESULT->status.
 */
enum pfx_status xtr_extract_any(const struct xtr_in *src, int dirfd,
    const char *dest, const struct pfx_options *opt,
    struct pfx_result *result);

/*
 * pfx_extract() without PFX_OPT_ATOMIC: extract beneath DEST, resolved
 * from DIRFD, as it is.  Return: RESULT->status.
 */
enum pfx_status xtr_extract(const struct xtr_in *src, int dirfd,
    const char *dest, const struct pfx_options *opt,
    struct pfx_result *result);

/*
 * xtr_extract() reading entries from FD (owned), which carries the
 * decoder process's messages (wire.h), with no child: the fuzzer's and
 * the tests' way to play a hostile decoder.  Return: RESULT->status.
 */
enum pfx_status xtr_extract_wire(int fd, int dirfd, const char *dest,
    const struct pfx_options *opt, struct pfx_result *result);

/* --- source.c: where the engine's entries come from ------------------- */

/* xtr_source_data(): a block; the entry's end; no block (a failed
 * check of the data, or a failed read). */
#define XTR_DATA_OK 0
#define XTR_DATA_EOF 1
#define XTR_DATA_FAILED (-1)

/*
 * Each wraps libarchive (no sandbox) or the decoder process (remote.c):
 * the next header into AE (ARCHIVE_OK, _EOF or _FATAL), the next data
 * block of the current entry (XTR_DATA_*: the writers need no libarchive
 * to read it), the archive's format (archive_format()), the archive
 * bytes read so far, whether the entry is sparse.
 */
int xtr_source_next(struct xtr *x, struct archive_entry *ae);
int xtr_source_data(struct xtr *x, const void **buf, size_t *size,
    int64_t *offset);
int xtr_source_format(const struct xtr *x);
int64_t xtr_source_raw(const struct xtr *x);
/* Where the current entry's header begins in the decompressed archive
 * (-1: unknown), and, once it ended well, the archive's bytes read. */
int64_t xtr_source_header_pos(const struct xtr *x);
uint64_t xtr_source_archive_bytes(const struct xtr *x);
bool xtr_source_sparse(const struct xtr *x, struct archive_entry *ae);
/* The archive's first bytes as kept (label.c), or NULL. */
const struct xtr_head *xtr_source_head(const struct xtr *x);

/*
 * The last error of the source: its text, *ERROR its errno, *CHANNEL
 * whether the decoder process failed (a protocol error, a deadline, its
 * death) rather than the archive being unreadable.
 */
const char *xtr_source_error(const struct xtr *x, int *error, bool *channel);

/* --- child.c: the decoder process -------------------------------------- */

/*
 * The child's whole life (never returns): keep FD (the socket to PARENT)
 * and a read-only descriptor of IN, confine, read the archive, send it
 * (wire.h; the data through RING, mapped shared before the fork), _exit.
 */
struct wire_ring;
void xtr_child_main(int fd, pid_t parent, struct wire_ring *ring,
    const struct pfx_input *in, const struct pfx_options *opt)
    __attribute__((noreturn));

#ifdef PFX_HOSTILE_TEST
/* The hostile-child test build (tests/hostile.c): what a decoder taken
 * over does right after it confined itself; FD is its socket. */
void xtr_hostile(int fd);
#endif

/* --- remote.c: the parent's side of the decoder process ---------------- */

struct xtr_remote;

/*
 * Fork the decoder process for IN and wait for its confinement report
 * (RES->sandbox).  Return: 0 with *OUT set, or -1 with RES the fatal
 * error (*OUT set when a process was started: free it).
 */
int xtr_remote_start(struct xtr_remote **out, const struct pfx_input *in,
    const struct pfx_options *opt, struct pfx_result *res);

/* The same over FD (owned), with no process: WHO sends (NULL: "the
 * decoder process"), as messages name it. */
int xtr_remote_open_fd(struct xtr_remote **out, int fd, const char *who,
    const struct pfx_options *opt, struct pfx_result *res);

int xtr_remote_next(struct xtr_remote *rm, struct archive_entry *ae);
int xtr_remote_data(struct xtr_remote *rm, const void **buf, size_t *size,
    int64_t *offset);
int xtr_remote_format(const struct xtr_remote *rm);
uint64_t xtr_remote_raw(const struct xtr_remote *rm);
int64_t xtr_remote_header_pos(const struct xtr_remote *rm);
uint64_t xtr_remote_archive_bytes(const struct xtr_remote *rm);
bool xtr_remote_sparse(const struct xtr_remote *rm);
/* The archive's first bytes the child sent (wire.h LABEL), or NULL. */
const struct xtr_head *xtr_remote_head(const struct xtr_remote *rm);
const char *xtr_remote_error(const struct xtr_remote *rm, int *error,
    bool *channel);

/*
 * End the decoder process and every process in its group, and reap it,
 * within bounded time.  Return: 0, or -errno with MSG (CAP bytes) saying
 * how it misbehaved (it lingered after its END, failed, or would not
 * die).
 */
int xtr_remote_stop(struct xtr_remote *rm, char *msg, size_t cap);

/* Stop (if not yet) and free RM (NULL allowed). */
void xtr_remote_free(struct xtr_remote *rm);

/* --- journal.c: --atomic over a populated destination ----------------- */

struct xtr_journal;

/* Make X keep every name beside its final one until the end.  0/-ENOMEM. */
int xtr_journal_start(struct xtr *x);

/* Release X's journal (what it lists stays where it is). */
void xtr_journal_free(struct xtr *x);

/*
 * pfx_root_commit() for X: with a journal, the file goes beside REL and
 * is listed.  Return: as pfx_root_commit().
 */
int xtr_journal_commit(struct xtr *x, struct pfx_pending *pend,
    const char *rel, unsigned int flags);

/* pfx_root_link() for X, likewise.  Return: as pfx_root_link(). */
int xtr_link_file(struct xtr *x, int fd, const char *rel, unsigned int flags);

/*
 * pfx_root_open_read() of a file this run made as REL: with a journal,
 * the very file listed for REL, at its temporary name, if any.
 */
int xtr_open_made(struct xtr *x, const char *rel);

/*
 * Before directory DIR (and its missing parents) is made: refuse one at
 * a name listed as a file (-ENOTDIR), and keep the mtime of the
 * directory that gets the first new entry.  Return: 0, or -errno.
 */
int xtr_journal_mkdir(struct xtr *x, const char *dir);

/*
 * Before a name is made at once in REL's directory (a link under
 * --symlinks=root): keep that directory's mtime, to give it back if the
 * run fails.  Return: 0, or -errno.
 */
int xtr_journal_touch_parent(struct xtr *x, const char *rel);

/*
 * The end of X's run, once the archive was read whole (engine.c): put
 * every listed name in place, or, when the run failed or cannot put
 * them, undo it all (xtr_unmake_dirs() included).
 */
void xtr_journal_end(struct xtr *x);

/* dirs.c: remove every directory X made, deepest first, and forget them. */
void xtr_unmake_dirs(struct xtr *x);

/*
 * Append NOTICE to RES's message after "; ", cutting the message, not the
 * notice, when both do not fit: a tree left on disk must always be told.
 */
void xtr_append_notice(struct pfx_result *res, const char *notice);

/*
 * pfx_extract() with PFX_OPT_ATOMIC over a populated destination DEST:
 * every name beside its own until the archive is read whole (journal.c).
 */
enum pfx_status xtr_extract_journaled(const struct xtr_in *src, int dirfd,
    const char *dest, const struct pfx_options *opt,
    struct pfx_result *result);

/* --- atomic.c --------------------------------------------------------- */

/*
 * pfx_extract() with PFX_OPT_ATOMIC: extract into a staging directory
 * beside DEST and publish it at DEST, or remove it; DEST is left as it
 * was unless the tree is published.  Return: RESULT->status.
 */
enum pfx_status xtr_extract_atomic(const struct xtr_in *src, int dirfd,
    const char *dest, const struct pfx_options *opt,
    struct pfx_result *result);

/* --- async.c ---------------------------------------------------------- */

/*
 * Start the worker thread that finishes regular files (xtr_finish_data)
 * while this thread reads on.  Without it (failure, or a run that must
 * stop at once on any error) every file is finished here.
 * Return: 0, or -errno.
 */
int xtr_async_start(struct xtr *x);

/* Finish every queued file, report each, and stop the worker. */
void xtr_async_stop(struct xtr *x);

/*
 * May the file at REL be handed to the worker?  Waits first for any
 * queued file whose name is a directory on REL's way, so that REL's
 * parents are looked up as they will be.
 */
bool xtr_async_ready(struct xtr *x, const char *rel);

/*
 * Before the directory at REL is made: waits for any queued file whose
 * name is REL or a directory on its way.
 */
void xtr_async_dir_ready(struct xtr *x, const char *rel);

/*
 * Queue ENTRY's report (what xtr_finish_entry() was given) behind the
 * files queued before it, so that it is made in archive order without
 * waiting for them.  Not for a failure, nor with nothing queued.
 * Return: whether it was queued (if not, report it now).
 */
bool xtr_async_defer(struct xtr *x, struct pfx_entry *entry,
    enum pfx_entry_status status, const char *reason, int error);

/*
 * Write ENTRY's data at REL (xtr_write_data) and queue the file for the
 * worker, which finishes it; its report comes later, in archive order.
 * Return: 0, or what xtr_write_data() returned (nothing was queued).
 */
int xtr_async_write(struct xtr *x, const struct xtr_meta *m,
    struct pfx_entry *entry, const char *rel);

/*
 * Wait for every queued file and report each, in order.  Called before
 * anything that depends on earlier entries being finished.
 */
void xtr_async_drain(struct xtr *x);

/*
 * Queue LEN bytes of BUF (copied) for the worker to write at OFF of FD,
 * the file being written, which must stay open until its own job is
 * queued behind them, or until xtr_async_settle().
 * Return: 0, or the -errno of a write of this file that failed already.
 */
int xtr_async_segment(struct xtr *x, int fd, const void *buf, size_t len,
    uint64_t off);

/*
 * Wait until the worker has written every segment queued (reports are
 * left for later), and forget their failure, returned: 0 or -errno.
 * After it, the file they were for may be closed.
 */
int xtr_async_settle(struct xtr *x);

/* --- what the writers are given ----------------------------------------- */

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

/* --- file.c ----------------------------------------------------------- */

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
 * The first bytes of a file, held in memory to be written by the thread
 * that finishes it: contiguous from offset 0, LEN of CAP bytes used.
 */
struct xtr_stash {
	char *buf;
	size_t len, cap;
};

/*
 * A regular file whose data is written under a temporary name, with what
 * finishing it needs -- no archive, so that another thread may do it.
 */
struct xtr_tail {
	struct pfx_pending pend;	/* owned until finished */
	struct xtr_stash *stash;	/* borrowed, or NULL: data to write
					   first, when finishing */
	bool stream;			/* in: the data goes to the worker
					   as it comes (xtr_async_segment) */
	mode_t mode;			/* its final permission bits */
	bool set_times;
	bool fsync;
	struct timespec ts[2];		/* atime, mtime */
	unsigned int flags;		/* PFX_ROOT_REPLACE, _REPLACE_FILE
					   or _NOREPLACE */
	const char *rel;		/* borrowed: its name, for the check
					   of a symlink it replaces */
	struct stat st;			/* out: the new file's identity */
	int64_t mtime;			/* the entry's, for
					   PFX_EXISTING_KEEP_NEWER */
	char backup[NAME_MAX + 1];	/* out: --backup's new name (one
					   component) of the file that was
					   at its name, or "" */
};

/*
 * The first half of xtr_write_regular(): make the temporary file (and any
 * missing parent), write ENTRY's data (or keep it in T->stash, if not
 * NULL, as far as it fits) and owner to it, and fill *T.
 * Return: 0 (finish *T with xtr_finish_data()), -errno, or
 * XTR_READ_FAILED, XTR_LIMIT or XTR_CANCELLED; on failure nothing is left.
 */
int xtr_write_data(struct xtr *x, const struct xtr_meta *m,
    struct pfx_entry *entry, const char *rel, struct xtr_tail *t);

/*
 * The second half: xtr_seal_data(), then xtr_commit().  Safe on any
 * thread, as xtr_commit().
 * Return: 0 with T->st filled, XTR_REDIRECTS, or -errno (the temporary
 * removed).
 */
int xtr_finish_data(struct xtr *x, struct xtr_tail *t);

/*
 * Commit the sealed file *T under its name beneath X's root.  Where the
 * name holds a symlink (PFX_ROOT_REPLACE_FILE), it is replaced only if
 * xtr_symlink_removable() says so.  Touches nothing but the root, *T and
 * X's old-link list (under its lock): safe on any thread.
 * Return: 0, XTR_REDIRECTS, or -errno; the temporary is removed but on 0.
 */
int xtr_commit(struct xtr *x, struct xtr_tail *t);

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

/*
 * All of xtr_finish_data() but the commit: the stashed data, mode,
 * times, --fsync, on the file that has no name yet.  Touches nothing but
 * *T: safe on any thread, and in any order with other files.
 * Return: 0 with T->st filled (commit T->pend next), or -errno (the
 * temporary removed).
 */
int xtr_seal_data(struct xtr_tail *t);

/*
 * The stashed part of xtr_seal_data(): write T's stash, if any, to its
 * file; AGAIN, from the start over what an earlier try left.  The
 * temporary is kept, failed or not, for a retry or xtr_seal_data().
 * Return: 0 or -errno.
 */
int xtr_write_stash(struct xtr_tail *t, bool again);

/* E's access (M's) and modification times, for futimens(2). */
void xtr_entry_times(const struct pfx_entry *e, const struct xtr_meta *m,
    struct timespec ts[2]);

/*
 * Write the regular file ENTRY at REL from the archive's data, with its
 * metadata, under the existing-name policy, without reporting it.
 * Return: 0 with *ST the new file's identity, -errno, or XTR_READ_FAILED,
 * XTR_LIMIT or XTR_CANCELLED (the run is already failed).
 */
int xtr_write_regular(struct xtr *x, const struct xtr_meta *m,
    struct pfx_entry *entry, const char *rel, struct stat *st);

/* Report ENTRY after xtr_write_regular() returned R (not 0). */
void xtr_finish_write_error(struct xtr *x, struct pfx_entry *entry, int r);

/*
 * PFX_OPT_TO_FD: write a regular file's data to opt->out_fd, or report
 * any other entry as listed (file.c).
 */
void xtr_write_out(struct xtr *x, const struct xtr_meta *m,
    struct pfx_entry *e);

/*
 * Write the regular file ENTRY at REL from the archive's data, with its
 * metadata, under the existing-name policy.  With RELINK, every name this
 * run gave that inode is then linked to the new file.  Reports the entry.
 */
void xtr_write_file(struct xtr *x, const struct xtr_meta *m,
    struct pfx_entry *entry, const char *rel, const struct stat *relink);

/*
 * The permission bits to give an entry with archive mode MODE, after the
 * safety rules of OPT (setuid/setgid/sticky and group/other write).
 */
mode_t xtr_safe_mode(const struct pfx_options *opt, mode_t mode);

/*
 * Apply the ownership (PFX_OPT_SAME_OWNER, as root) of E and the xattrs
 * (PFX_OPT_XATTRS) of M to the file open as FD.  Return: 0, or -errno.
 */
int xtr_apply_owner_xattrs(const struct xtr *x, const struct pfx_entry *e,
    const struct xtr_meta *m, int fd);

/*
 * The owner E should get under PFX_OPT_SAME_OWNER (by name unless
 * PFX_OPT_NUMERIC_OWNER), or -1 and -1 when ownership is not restored.
 */
void xtr_owner_ids(const struct xtr *x, const struct pfx_entry *e,
    uid_t *uid, gid_t *gid);

/* --- fdbudget.c ------------------------------------------------------- */

/*
 * The descriptors a run cannot do without: 0-2, the root, the input, the
 * decoder process's socket and pidfd (or the decoder thread's pipe), and
 * what one entry needs at once: a walk's two and the check's climb, a
 * file and its parent.  A run under a lower RLIMIT_NOFILE stops at once,
 * saying so (cli/pfextract.c, the CLI; the library fails with EMFILE as it meets
 * it).
 */
#define XTR_FD_MIN 10

/* ... one more without a decoder process (the input is decoded here),
 * and with PFX_OPT_ATOMIC, the staging directories held besides. */
#define XTR_FD_INPROC 1
#define XTR_FD_ATOMIC 4

/* Kept free beyond XTR_FD_MIN before any is kept for speed. */
#define XTR_FD_SPARE 4

/* A limit this high is as good as none. */
#define XTR_FD_PLENTY 4096

/* RLIMIT_NOFILE's soft limit, at most XTR_FD_PLENTY. */
int xtr_fd_limit(void);

/*
 * How many files the worker's queue may hold (at most MOST), so that
 * their descriptors fit beside the ones the run needs.
 */
size_t xtr_fd_queue_slots(size_t most);

/* --- names.c ---------------------------------------------------------- */

/* The Ith reason code of the table pfx_reason_text() reads, or NULL past
 * its end: how a test holds libpfextract(3)'s list to it. */
const char *xtr_reason_at(size_t i);

/* --- contract.c: what pfx_extract() checks first --------------------- */

/*
 * Check OPT's size, flag bits, enumerators and arrays (pfx_extract(),
 * pfx_writer_open()).  Return: 0, or -1 with RES filled as a call refused
 * (PFX_FATAL, EINVAL, the field named).
 */
int xtr_contract_options(const struct pfx_options *opt,
    struct pfx_result *res);

/*
 * Check pfx_extract()'s arguments (OPT may be NULL, the defaults; RES
 * must not be): the options' size, flag bits and enumerators, NULL
 * pointers where they are needed.  Return: 0, or -1 with RES filled as a
 * call refused (PFX_FATAL, EINVAL, the field named).
 */
int xtr_contract_check(const struct pfx_input *in, const char *dest,
    const struct pfx_options *opt, struct pfx_result *res);

/*
 * Can a run with OPT, and VOLUMES later volumes held open (tar -M), have
 * the descriptors it needs?  Return: 0, or -1 with RES filled as a failed
 * run (PFX_FATAL, EMFILE, the numbers said).
 */
int xtr_fd_check(const struct pfx_options *opt, size_t volumes,
    struct pfx_result *res);

/*
 * If R is -EMFILE or -ENFILE, give back every descriptor held only for
 * speed (the worker's queue is emptied, the kept parent let go) and
 * return true: the caller tries once more.  Else false.
 */
bool xtr_fd_relieve(struct xtr *x, int r);

/* --- dirs.c ----------------------------------------------------------- */

/* Make the parent directories of REL; remember the ones made. 0/-errno */
int xtr_make_parents(struct xtr *x, const char *rel);

/* Make the directory entry ENTRY at REL (REL may be "").  Reports it. */
void xtr_make_dir(struct xtr *x, const struct xtr_meta *m,
    struct pfx_entry *entry, const char *rel);

/*
 * Give every directory this run made its final mode and times; with
 * PFX_OPT_FSYNC, then sync every directory whose entries changed, deepest
 * first, and the destination last.
 */
void xtr_finish_dirs(struct xtr *x);

/*
 * With PFX_OPT_FSYNC, remember that the parent directory of REL (may be
 * NULL: nothing) changed, to be synced at the end.
 */
void xtr_note_changed(struct xtr *x, const char *rel);

/* --- dumpdir.c: GNU incremental restore (PFX_OPT_INCREMENTAL) -------- */

/*
 * Judge NAME, a path as an archive stores it (a GNU rename's), as an
 * entry's name is judged: --strip-components, then the decision core.
 * Return: NULL with the relative path at V->path + V->rel_off, or the
 * reason code.
 */
struct pfx_verdict;
const char *xtr_judge_rel(struct xtr *x, const char *name,
    struct pfx_verdict *v);

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

/* Is AE a GNU dump directory, and the run PFX_OPT_INCREMENTAL? */
bool xtr_is_dumpdir(const struct xtr *x, struct archive_entry *ae);

/*
 * Read AE's list into *D (free it with xtr_dumpdir_free() whatever this
 * returns) and check it.  Return: 0; 1 with *REASON the entry's refusal
 * (malformed, renames, over PFX_DUMPDIR_MAX); -1 with the run failed.
 */
int xtr_dumpdir_read(struct xtr *x, struct archive_entry *ae,
    struct xtr_dumpdir *d, const char **reason);

void xtr_dumpdir_free(struct xtr *x, struct xtr_dumpdir *d);

/* Is REL, or a directory above it, a path a GNU rename moved from or to? */
bool xtr_dumpdir_moved(const struct xtr *x, const char *rel);

/*
 * dumprename.c: make D's renames ('R'/'T' pairs, 'X' temporaries), if
 * the directory REL is there.  Return: 0; 1 with *REASON the refusal (a
 * name refused, or links that a move could lead out: nothing moved; or
 * a move whose old path is missing or new one taken: those before it
 * were made); or -errno (a move failed otherwise, likewise).
 */
int xtr_dumpdir_rename(struct xtr *x, const struct xtr_dumpdir *d,
    const char *rel, const char **reason);

/*
 * Make the renames of D ('R'/'T' pairs, 'X' temporaries), then remove
 * from the directory REL (the entry E) every name D does not keep,
 * telling the purged() hook of each.  A REL that is no directory is left
 * to the entry's own making.  Return: 0; 1 with *REASON the entry's
 * refusal (a rename's name refused, nothing done); or -errno.
 */
int xtr_dumpdir_purge(struct xtr *x, const struct pfx_entry *e,
    const char *rel, const struct xtr_dumpdir *d, const char **reason);

/* --- links.c ---------------------------------------------------------- */

/* Remember the regular file at REL, with identity ST, as made this run. */
void xtr_note_file(struct xtr *x, const char *rel, const struct stat *st);

/* Forget any pending symlink at REL: a later entry took the name. */
void xtr_forget_symlink(struct xtr *x, const char *rel);

/*
 * --symlinks=contain: may the symlink at REL, which an entry is about to
 * replace, go?  Not if a link already in the destination that leads
 * inside now would lead out, or loop, once REL is not a symlink.  Judged
 * over the disk as it is; the links this run queued are judged with the
 * old ones at the end (xtr_finish_symlinks).  The links in the
 * destination are listed once, at the first call, and kept until
 * xtr_free_old_links().  Thread-safe (X->old_mu).
 * Return: 0, XTR_REDIRECTS, or -errno (listing failed).
 */
int xtr_symlink_removable(struct xtr *x, const char *rel);

/* Free what xtr_symlink_removable() listed. */
void xtr_free_old_links(struct xtr *x);

/*
 * Point every name this run gave the inode OLD at the new file NEW_REL
 * (identity NEW), by linking over them: what cpio's "data on the last
 * link" means, done without writing into the old inode.
 */
void xtr_relink_all(struct xtr *x, const struct stat *old,
    const char *new_rel, const struct stat *new);

/* Make the hard-link entry ENTRY at REL to TARGET_REL.  Reports it. */
void xtr_make_hardlink(struct xtr *x, const struct xtr_meta *m,
    struct pfx_entry *entry, const char *rel, const char *target_rel);

/* Refuse, or queue for the end, the symlink entry ENTRY at REL. */
void xtr_queue_symlink(struct xtr *x, struct pfx_entry *entry,
    const char *rel);

/* Make the queued symlinks that stay inside.  Reports each. */
void xtr_finish_symlinks(struct xtr *x);

/* Free the queued symlinks, giving their memory back. */
void xtr_free_symlinks(struct xtr *x);

/*
 * For tests: the resolution steps the last xtr_finish_symlinks() in this
 * process spent.
 */
uint64_t xtr_link_steps_last(void);

#endif /* XTR_EXTRACT_H */
