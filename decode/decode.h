/*
 * decode.h -- pfextract's own decompression: gzip, zstd and xz are
 * decoded here, on a thread of their own, and libarchive is handed the
 * plain stream; every other filter stays libarchive's (reader.c).
 *
 * decode.c detects the codec by the input's magic bytes (never by a
 * name), runs the decoder thread and the bounded ring of blocks between
 * it and libarchive's read callback.  The codecs are decode_gzip.c
 * (ISA-L's igzip, or zlib's inflate where ISA-L is missing or a test asks
 * for it), decode_zstd.c (libzstd) and decode_xz.c (liblzma's threaded
 * decoder).  Every check the formats carry is verified: gzip's CRC-32 and
 * length of each member, zstd's frame checksums, xz's block checks.
 *
 * SECURITY: the decoder runs at most XTR_DEC_BLOCKS blocks ahead of the
 * consumer, so a bomb costs that much memory at most and the ratio limit
 * (file.c) still stops it within a block; the ratio is then counted on
 * the raw bytes the codec consumed (xtr_decoder_raw_bytes(), extract.h).
 * A block is handed over only when full or at the verified end of the
 * stream: data the decoder read before an error, in the block that was
 * filling, never reaches an extracted file.
 *
 * One header for the stage (mk/layers.sh): Defined in: decode.c
 * decode_gzip.c decode_xz.c decode_zstd.c stream.c window.c.
 */
#ifndef XTR_DECODE_H
#define XTR_DECODE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct archive;
struct xtr_decoder;

/* The codecs decoded here; XTR_CODEC_NONE: libarchive decodes. */
enum xtr_codec {
	XTR_CODEC_NONE = 0,
	XTR_CODEC_GZIP,
	XTR_CODEC_ZSTD,
	XTR_CODEC_XZ
};

/* The bytes of the input's head that xtr_codec_detect() needs at most. */
#define XTR_MAGIC_LEN 6

/*
 * Blocks in the ring between the decoder and libarchive, and their size:
 * with 1 MiB blocks libarchive reads most entries' data in place, and
 * four keep the decoder busy while a large file is written, for 4 MiB.
 */
#define XTR_DEC_BLOCKS 4
#define XTR_DEC_BLOCK (1024 * 1024)

/*
 * The first block is published with XTR_DEC_FIRST bytes at most, each
 * next one with twice the last, up to XTR_DEC_BLOCK: the consumer starts
 * on a small archive's first entries while the rest is decoded (an npm
 * tarball is decoded whole in one 1 MiB block), and a large one still
 * goes in 1 MiB blocks after the first five.
 */
#define XTR_DEC_FIRST (64 * 1024)

/*
 * The blocks lie one after another in one buffer of XTR_DEC_RING bytes,
 * each where the one before it ended, so that a codec writes one
 * contiguous stream: back at the buffer's start only when fewer bytes
 * than it needs are left before the end (at most XTR_DEC_NEED_MAX, so
 * the slack wasted there).  What a codec wrote therefore stays in place
 * until XTR_DEC_RING - 2 * XTR_DEC_NEED_MAX more bytes have been written
 * after it, whether or not libarchive has read it: zstd decodes in the
 * ring itself, its window behind it, with no copy (decode_zstd.c).
 */
#define XTR_DEC_NEED_MAX (128 * 1024)
#define XTR_DEC_RING (XTR_DEC_BLOCKS * XTR_DEC_BLOCK + 2 * XTR_DEC_NEED_MAX)

/*
 * Raw bytes read from a descriptor at a time: 64 KiB, as libarchive
 * reads.  256 KiB measured slower (the bytes read leave the cache before
 * the codec gets to them); so did rings of 8 blocks of 256 KiB or 4 of
 * 512 KiB, by less, for 2 MiB of RSS less.
 */
#define XTR_DEC_INBUF (64 * 1024)

/*
 * xz: what the decoder may take of the run's memory budget
 * (pfx_limits.max_memory), worked out by the caller (extract/budget.c)
 * and handed down as data.  THREADING: liblzma's memlimit_threading,
 * what all its threads may hold together; it starts as many as that
 * allows, up to THREADS, and fewer where blocks are large, down to one
 * (a thread holds its block's dictionary and its compressed and
 * decompressed data: about 10 MiB for xz -T -2's blocks, 35 MiB for
 * -6's 24 MiB blocks).  BUDGET: the whole budget, what one thread may
 * need at most (liblzma's memlimit_stop): a stream that needs more, a
 * hostile dictionary size say, is refused, with the budget named; 0: no
 * budget, nothing refused.  zstd: BUDGET is what a frame too big for the
 * ring may take for its window (decode_zstd.c), the same way: a frame
 * that needs more is refused, the budget named (zstd --long=30's 1 GiB
 * window at the default budget).
 */
struct xtr_dec_mem {
	uint64_t threading;
	uint64_t budget;
	unsigned int threads;	/* at least 1 */
	/* The ratio limit on the whole decoded stream, headers, padding
	 * and zero blocks too (dec_read()): past RATIO_AFTER bytes, no
	 * more than MAX_RATIO per raw byte; 0, none. */
	uint64_t max_ratio;
	uint64_t ratio_after;
	/* The bytes one entry's headers may take (xtr_header_begin()),
	 * worked out from the budget by the caller; 0: no limit. */
	uint64_t header_max;
};

/*
 * xz: the threads' share of the budget, 1/XTR_XZ_MEM_SHARE of it: 128
 * MiB of the 1 GiB default, room for three threads of xz -6's blocks, so
 * that the peak RSS of a run stays under 192 MiB on any number of CPUs;
 * a larger budget lets more threads run.  With no budget (0), the
 * default's share.
 */
#define XTR_XZ_MEM_SHARE 8u

/*
 * The archive bytes that libarchive's tar reader may take to read one
 * entry's headers: 1/XTR_HEADER_SHARE of the memory budget, and
 * XTR_HEADER_MIN at least (16 MiB either way at the default budget of 1
 * GiB); none without a budget.  SECURITY: libarchive holds what a sparse
 * map says in two lists while it reads the headers, before pfextract
 * sees the entry: up to 12 bytes of memory for each byte of the map
 * (measured: a PAX 1.0 map of "0\n0\n" pairs, 48 bytes for 4; an old
 * GNU map's extension blocks, 80 bytes a 24-byte entry), and xz, zstd
 * or gzip shrink such maps 60 times and more.  So 16 MiB of headers
 * hold 200 MiB at most, 1/5 of the budget.  What libarchive 3.6.2 reads
 * with no sparse map is bounded by itself: at most 32 extended headers
 * in a row (then "Too many special headers"), each of 1 MiB at most;
 * real writers put 1 or 2 of a few KiB before an entry, and a sparse
 * file of 680,000 segments fits in 16 MiB.
 */
#define XTR_HEADER_SHARE 64u
#define XTR_HEADER_MIN (16ull << 20)

/*
 * xz: threads at most, whatever the CPUs: a thread's stack counts
 * against the decoder process's RLIMIT_DATA (extract/child.c).
 */
#define XTR_XZ_MAX_THREADS 64u

/* xtr_decode_open() flags: gzip with zlib, even where ISA-L is built in
 * (the fallback's tests). */
#define XTR_DEC_ZLIB 0x1u

/*
 * xtr_decode_open() flag: no decoder thread.  libarchive's read callback
 * decodes the next block itself, on the reading thread, into the same
 * ring (and xz decodes on one thread, liblzma's single-threaded
 * decoder).  For a process that may use one CPU (plat_thread_cpus()):
 * there a thread only adds a handoff per block, its wake-ups and its
 * locks, and decodes nothing sooner.
 */
#define XTR_DEC_INLINE 0x2u

/*
 * ISA-L's igzip inflates gzip when its header is there at build time (the
 * Makefile links -lisal on the same test); zlib's inflate otherwise.
 */
#if defined(__has_include)
#if __has_include(<isa-l/igzip_lib.h>)
#define XTR_HAVE_ISAL 1
#endif
#endif

/*
 * Which codec of ours do the first LEN bytes of an input (HEAD) start?
 * Gzip needs 4 bytes (method deflate, no reserved flag: anything else is
 * left to libarchive, which refuses it as before), zstd 4 (a frame's
 * magic, or a skippable frame's: libarchive's filter would take a stream
 * that opens with one, and give its frames their window whatever the
 * memory budget), xz 6.  Return: the codec, or XTR_CODEC_NONE.
 */
enum xtr_codec xtr_codec_detect(const unsigned char *head, size_t len);

/*
 * The dictionary that the first LEN bytes of a stream (HEAD) declare,
 * where libarchive's own filter FILTER (ARCHIVE_FILTER_*) decodes it:
 * lzip's (byte 5, 4 KiB to 512 MiB) and lzma's (bytes 1 to 4).  SECURITY:
 * libarchive gives liblzma no memory limit for them, and the dictionary
 * fills as the data is decoded, so a 2 MB .tar.lz that declares 512 MiB
 * held 300 MiB under a budget of 16 MiB; the caller refuses a stream
 * whose dictionary is larger than the memory budget, as xz's one thread
 * is (decode_xz.c).  Return: its size in bytes, or 0 for another filter,
 * or a HEAD too short to hold it.
 */
uint64_t xtr_filter_dict(int filter, const unsigned char *head, size_t len);

/* The raw input of a decoder: exactly one of FD and BUF. */
/*
 * The first bytes of the decompressed archive, kept as the reader takes
 * them (reader.c, and dec_read() here) so that label.c can read a GNU
 * volume label from them (libarchive skips it): one 'V' header, or a pax
 * global header and its records.  UNSEEN: libarchive decodes the input
 * (bzip2, lz4, ...), or it is a Debian package's member: these bytes are
 * not the archive's.
 */
#define XTR_HEAD_MAX 4096u
struct xtr_head {
	unsigned char buf[XTR_HEAD_MAX];
	size_t len;
	bool unseen;
	struct xtr_window *window;	/* also the last bytes of all, or NULL */
	/* With a window, an input that libarchive's filters decode is read
	 * through a stage of their own (extract/stage.c), so the window
	 * still holds the decompressed bytes: STAGED is then set, and RAW
	 * is the compressed bytes read when the last block was taken. */
	bool staged;
	uint64_t raw;
	/*
	 * The header being read (xtr_header_begin() to xtr_header_end()):
	 * ON while it is; FROM, what the format reader had taken of the
	 * stream when it began (archive_filter_bytes(a, 0)); TAKEN, the
	 * bytes handed to it since, but blocks of 512 zero bytes.  MAX,
	 * the limit (0: none), and BUDGET, the memory budget it comes from
	 * (the message names it): set when the reader is opened.
	 */
	bool hdr_on;
	bool hdr_over;		/* ... and crossed MAX */
	bool hdr_begun;		/* a header read began: the reader is
				   open, its filters picked */
	int64_t hdr_from;
	uint64_t hdr_taken;
	uint64_t hdr_max;
	uint64_t hdr_budget;
};

/*
 * The last CAP bytes of the decompressed archive, with their offsets in
 * it, kept by xtr_head_add() when a struct xtr_head has one: for a
 * pax header that libarchive reads and drops (GNU.dumpdir, paxdump.c),
 * read again from the very bytes libarchive took.  END is the offset
 * after the last byte kept.
 */
struct xtr_window {
	unsigned char *buf;
	size_t cap;
	uint64_t end;
};

/* A window of CAP bytes; NULL without memory.  Free with xtr_window_free(). */
struct xtr_window *xtr_window_new(size_t cap);
void xtr_window_free(struct xtr_window *t);

/*
 * Copy the N bytes at offset AT of the stream from T to OUT.
 * Return: 0, or -1 when they are not all kept (before the window, or
 * not yet read).
 */
int xtr_window_get(const struct xtr_window *t, uint64_t at, size_t n, void *out);

/* Keep what of P (N bytes) still fits in H (NULL: nothing), and P in
 * H's window, if it has one. */
void xtr_head_add(struct xtr_head *h, const void *p, size_t n);

/*
 * SECURITY: one entry's headers are bounded while libarchive reads them.
 * libarchive's tar reader parses an entry's extended headers, an old GNU
 * sparse map's extension blocks and a PAX 1.0 sparse map (in the data
 * area) inside archive_read_next_header(), and holds the map in lists of
 * its own before the caller sees the entry.  The only code of ours that
 * runs meanwhile is the read callbacks, so they count: the caller marks
 * the start of each header read with xtr_header_begin() on the reader's
 * HEAD (after the last entry's data was read or skipped: that data is
 * not the header's), and every read callback hands what it gives through
 * xtr_header_take(), which fails the read once the header has taken more
 * than H->hdr_max bytes.  Counted for libarchive's tar reader only, the
 * one that reads an entry's headers so (7-Zip's and zip's readers read
 * their whole directory at the first header, and seek to it):
 *	- where the callback hands libarchive's format reader the archive's
 *	  own bytes (our decoders, a plain file, a pipe, the stage): the
 *	  bytes given, but 512-byte blocks of zeros (-i reads runs of them
 *	  in one header read; they hold no memory, and no map or pax record
 *	  can be made of them), so at most one block read ahead too many;
 *	- where libarchive's own filters decode what the callback gives
 *	  (bzip2, lz4, lzip, lzma, compress, a Debian package's member,
 *	  and the gzip or zstd variants not ours): what the format reader
 *	  took of the decoded stream since the mark (zero blocks
 *	  included), looked at each time the filter reads.  A read of such
 *	  an input may decode to thousands of times its size before the
 *	  next one (bzip2 24,000 times, lzma 7,000 times, measured on
 *	  sparse maps), so each is small (xtr_header_room()), and so are
 *	  the reads of any input made before the first header read, while
 *	  libarchive picks its filters: what one read decodes past the
 *	  limit stays a few tens of MiB.
 * A limit crossed fails the read with EFBIG and a message naming the
 * budget; libarchive then ends the header read (ARCHIVE_FATAL).
 */
#define XTR_FILTER_STEP 1024u		/* bzip2, xz, lzma, lzip, zstd, ... */
#define XTR_FILTER_STEP_GZIP (16u << 10)	/* deflate: 1032 times at most */
#define XTR_FILTER_STEP_LZ4 (64u << 10)	/* LZ4: 255 times at most */

/* Mark the start of a header read of A, whose callbacks count in H (NULL:
 * nothing is counted). */
void xtr_header_begin(struct xtr_head *h, struct archive *a);

/*
 * The header read of A that H counted is over, whatever it returned.  If
 * it crossed the limit, A's error is set to say so again (EFBIG, the
 * limit named): libarchive's own filters replace a read's error with
 * theirs ("truncated bzip2 input").  Return: true if it crossed it.
 */
bool xtr_header_end(struct xtr_head *h, struct archive *a);

/*
 * For a read callback of A counting in H (or NULL), about to read at
 * most CAP bytes of its input: the bytes it should read.  CAP, but for
 * the reads made before the first header read (libarchive opening the
 * input, picking its filters) and those that libarchive's own filters
 * decode: XTR_FILTER_STEP (or the filter's own step: gzip, lz4) at
 * most.  CAP too where nothing is counted (H NULL, or no limit).
 */
size_t xtr_header_room(struct archive *a, const struct xtr_head *h,
    size_t cap);

/*
 * For a read callback of A counting in H (or NULL): it is about to hand
 * the N bytes at P to A.  Return: 0, or -1 with A's error set (EFBIG,
 * the limit named) when the header being read has taken more than
 * H->hdr_max bytes: the callback then fails (returns -1).
 */
int xtr_header_take(struct archive *a, struct xtr_head *h, const void *p,
    size_t n);

struct xtr_dec_input {
	int fd;			/* read from where it is, or -1 */
	bool own_fd;		/* closed with the decoder */
	const void *buf;	/* or LEN bytes in memory (borrowed) */
	size_t len;
	const unsigned char *head;	/* HEAD_LEN bytes already read from
					   FD (a pipe), decoded first */
	size_t head_len;
	struct xtr_head *tap;	/* the first decoded bytes are kept here
				   (label.c), by the reading thread; or
				   NULL */
	const struct xtr_dec_mem *mem;	/* what xz may take (borrowed,
					   read at the start) */
};

/*
 * What stops a read of the input short: the caller's cancel flag (NULL:
 * none), and the call's deadline on CLOCK_MONOTONIC (tv_sec 0: none) --
 * pfx_options.timeout bounds the whole call, a wait for a pipe whose
 * writer stalled too, which no signal may come to interrupt.
 */
struct xtr_stop {
	const volatile sig_atomic_t *cancel;
	struct timespec deadline;
};

/* Return: ECANCELED when STOP's flag is set, ETIMEDOUT past its
 * deadline, else 0 (and for a NULL STOP). */
int xtr_stop_why(const struct xtr_stop *stop);

/* Return: the milliseconds to STOP's deadline, at most MOST (0 once it is
 * past); MOST when there is none. */
int xtr_stop_ms(const struct xtr_stop *stop, int most);

/* The message of a stop (xtr_stop_why()'s WHY). */
#define XTR_STOP_TEXT(why) ((why) == ETIMEDOUT ? "time limit reached" : \
	"interrupted")

/*
 * Start decoding IN with CODEC on a thread of its own (on the reading
 * thread with XTR_DEC_INLINE), and open A on the plain stream with
 * archive_read_open().  FLAGS: XTR_DEC_*.  While the ring is empty the
 * read callback checks STOP (if not NULL) every XTR_DEC_TICK_MS (and
 * while it waits for input, inline) and fails with ECANCELED
 * "interrupted" once its flag is set, ETIMEDOUT past its deadline.
 * A owns the decoder from here on, whether or not the open works: its
 * close callback stops the thread, joins it and frees everything (the
 * descriptor too when IN->own_fd).  *DEC is set to the decoder, borrowed,
 * valid until A is freed (NULL when nothing could be started).
 * Return: libarchive's status of the open (ARCHIVE_OK, or ARCHIVE_FATAL
 * with A's error set).
 */
int xtr_decode_open(struct archive *a, enum xtr_codec codec,
    const struct xtr_dec_input *in, unsigned int flags,
    const struct xtr_stop *stop, struct xtr_decoder **dec);

/*
 * Stop D's thread, if it still runs, and join it: nothing more is read
 * from its input, and once the blocks published are taken, libarchive's
 * next read fails (ECANCELED) unless the stream had ended.  D stays to
 * be freed with its reader.  For the thread that reads the archive.
 */
void xtr_decoder_stop(struct xtr_decoder *d);

/* The message of a read(2) of the input that failed: its errno says
 * why; no internal descriptor number is named. */
#define XTR_INPUT_UNREADABLE "the input cannot be read"

/* How often a read waiting for the decoder looks at the cancel flag. */
#define XTR_DEC_TICK_MS 50

/*
 * The raw (compressed) bytes decoder D had consumed when it finished the
 * last block that libarchive took: the ratio limit's denominator, outer
 * compression only when it is nested.  Call it from the thread that reads
 * the archive.
 */
uint64_t xtr_decoder_raw_bytes(const struct xtr_decoder *d);

/* --- the codecs' side --------------------------------------------------- */

/*
 * One step's buffers, as zlib's: the codec consumes from IN and writes to
 * OUT, moving both.  IN_END: no byte follows IN[IN_LEN - 1].  OUT always
 * goes on where the last step's output ended, but where the ring wraps
 * (see XTR_DEC_RING): the bytes before it are the codec's own earlier
 * output.  OUT_NEED: set by the codec (it is 0 on entry) when it cannot
 * go on with less room than that (at most XTR_DEC_NEED_MAX): the block is
 * then handed over as it is, and the next step has that much room at
 * least.  On an error the codec sets ERROR (an errno: EILSEQ for corrupt
 * data, EIO for a truncated stream, ENOMEM) and a message in MSG (MSG_CAP
 * bytes).
 */
struct xtr_stream {
	const unsigned char *in;
	size_t in_len;
	bool in_end;
	unsigned char *out;
	size_t out_len;
	size_t out_need;
	int error;
	char *msg;
	size_t msg_cap;
};

enum xtr_step {
	XTR_STEP_MORE,		/* needs input (IN_LEN 0) or room
				   (OUT_LEN 0, or under OUT_NEED) */
	XTR_STEP_END,		/* the stream ended and was verified */
	XTR_STEP_ERROR		/* ERROR and MSG say why */
};

struct xtr_codec_ops {
	const char *name;
	/*
	 * Make a codec's state for FLAGS (XTR_DEC_*), within MEM.
	 * Return: the state, or NULL with a message in MSG (CAP bytes).
	 */
	void *(*create)(unsigned int flags, const struct xtr_dec_mem *mem,
	    char *msg, size_t cap);
	/* Decode what S allows.  Return: what stopped it. */
	enum xtr_step (*step)(void *state, struct xtr_stream *s);
	void (*destroy)(void *state);
};

extern const struct xtr_codec_ops xtr_codec_gzip;
extern const struct xtr_codec_ops xtr_codec_zstd;
extern const struct xtr_codec_ops xtr_codec_xz;

/* Fail S with ERROR and a printf-style message.  Return: XTR_STEP_ERROR. */
enum xtr_step xtr_stream_fail(struct xtr_stream *s, int error,
    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif /* XTR_DECODE_H */
