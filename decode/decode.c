/*
 * decode.c -- the decoder thread, and the ring of blocks between it and
 * libarchive's read callback (see decode.h).
 *
 * Two threads share one decoder.  The consumer is the thread that called
 * pfx_extract(): it runs libarchive and the extraction, as it would
 * without a decoder.  The decoder thread only reads
 * the raw input and runs the codec into the ring's free room.  The ring
 * is under one mutex: the decoder fills ring[first + nfull] (a free block,
 * its own until published), which starts where the last one ended in the
 * ring's buffer (decode.h, XTR_DEC_RING), and publishes it; the consumer
 * holds ring[first] between two calls of the read callback (libarchive
 * reads the buffer until the next call) and gives it back on the next
 * one (the one after its last piece, where it is handed out in pieces:
 * decode.h, xtr_header_room()).  When every block is full or held, or
 * the buffer has no room left before the oldest byte not given back, the
 * decoder waits: it never runs more than XTR_DEC_BLOCKS blocks ahead.
 *
 * Inline (XTR_DEC_INLINE, a process on one CPU): no thread.  The read
 * callback, having given back its block, runs the same steps
 * (decode_step) itself until the next block is published or the stream
 * is over, so the ring holds one block at a time and nothing waits on
 * another thread; a wait for input looks at the cancel flag every
 * XTR_DEC_TICK_MS instead of a wake-up from the consumer.
 *
 * Stopping.  The caller's cancel flag is set by a signal handler, which
 * may run on any thread and cannot signal a condition variable; the
 * decoder thread blocks the signals (it runs none of the caller's
 * handlers, and liblzma's threads, made by it, inherit that), so the
 * consumer is the one that looks at the flag: while it waits for a block
 * it wakes every XTR_DEC_TICK_MS to do so, whichever thread took the
 * signal -- simple, and a stop costs at most one tick.  The consumer then
 * fails the read, and libarchive's close callback stops the decoder: it
 * sets STOP, wakes a decoder waiting for room, and writes a byte to a
 * self-pipe that a decoder waiting for input (poll(2) on the input and
 * the pipe) wakes on, since a read(2) on a stalled pipe would never
 * return; then it joins the thread.  Every path (end, error, limit,
 * cancel) ends in that close callback.
 */
#define _DEFAULT_SOURCE	/* MADV_POPULATE_WRITE */
#include <sys/mman.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <archive.h>

#include "decode.h"

/* The room for a decoder's error message. */
#define DEC_MSG 256

/*
 * Steps in a row that may leave the input and the output as they were
 * before the decoder is declared stuck (a codec bug, never the input's).
 */
#define DEC_MAX_IDLE_STEPS 64

struct block {
	unsigned char *data;	/* in the ring's buffer */
	size_t len;
	uint64_t raw_end;	/* raw bytes consumed when it was published */
};

struct xtr_decoder {
	/* Set before the thread starts; read-only afterwards. */
	const struct xtr_codec_ops *ops;
	void *codec;
	int fd;			/* the raw input, or -1 for BUF */
	bool own_fd;
	const unsigned char *buf;
	size_t len;
	unsigned char head[XTR_MAGIC_LEN];	/* read from FD already */
	size_t head_len;
	int wake[2];		/* self-pipe: stops a wait for input */
	const struct xtr_stop *halt;	/* the caller's cancel, the deadline */
	struct xtr_head *tap;	/* the consumer's: first bytes kept */

	/* The decoder thread's own (the reading thread's, INLINE). */
	unsigned char *inbuf;	/* XTR_DEC_INBUF bytes, for FD */
	size_t wr;		/* where in MEM the next block starts */
	bool head_given;
	uint64_t raw_used;	/* raw bytes the codec consumed */
	char step_msg[DEC_MSG];
	struct xtr_stream s;	/* decode_step()'s, from one to the next */
	size_t cap, need;	/* the block being filled: its room; the
				   room the next one needs */
	size_t grow;		/* a block's room at most, XTR_DEC_FIRST to
				   XTR_DEC_BLOCK, doubled at each publish */
	size_t faulted;		/* MEM's bytes from its start given their
				   pages (prefault()) */
	bool have_block;
	unsigned int idle;	/* steps in a row that did nothing */
	bool inline_dec;	/* XTR_DEC_INLINE: no thread, dec_read()
				   decodes */

	/* Shared, under MU. */
	pthread_mutex_t mu;
	pthread_cond_t ready;	/* a block was published, or DONE */
	pthread_cond_t room;	/* a block was given back, or STOP */
	unsigned char *mem;	/* the ring's XTR_DEC_RING bytes */
	struct block ring[XTR_DEC_BLOCKS];
	unsigned int first;	/* the oldest block that holds data */
	unsigned int nfull;	/* blocks holding data from FIRST on */
	bool held;		/* the consumer holds ring[FIRST] */
	size_t off;		/* ... and handed out its bytes up to OFF */
	bool done;		/* the decoder finished: at the end or not */
	int error;		/* with DONE: 0 at the end, else an errno */
	char msg[DEC_MSG];	/* with an ERROR: why */
	uint64_t raw_total;	/* with DONE: raw bytes consumed at all */
	atomic_bool stop;	/* the consumer asks the decoder to stop */

	/* The consumer's own. */
	uint64_t raw_seen;
	uint64_t given;		/* decoded bytes handed to libarchive */
	uint64_t max_ratio, ratio_after;	/* struct xtr_dec_mem's */
	pthread_t thread;
	bool started;
	int nsync;		/* of MU, READY, ROOM: how many were made */
};

/* see decode.h */
enum xtr_codec
xtr_codec_detect(const unsigned char *h, size_t len)
{
	static const unsigned char zstd[4] = { 0x28, 0xb5, 0x2f, 0xfd };
	static const unsigned char xz[6] = { 0xfd, '7', 'z', 'X', 'Z', 0 };

	/* ID1 ID2, CM 8 (deflate), FLG without reserved bits (RFC 1952). */
	if (len >= 4 && h[0] == 0x1f && h[1] == 0x8b && h[2] == 8 &&
	    (h[3] & 0xe0) == 0)
		return XTR_CODEC_GZIP;
	/* A frame, or a skippable frame (magic 0x184D2A50 to 5F): pzstd
	 * opens with one, and libarchive's filter would decode what follows
	 * it with a window of up to 128 MiB whatever the budget. */
	if (len >= 4 && (memcmp(h, zstd, sizeof(zstd)) == 0 ||
	    ((h[0] & 0xf0) == 0x50 && h[1] == 0x2a && h[2] == 0x4d &&
	    h[3] == 0x18)))
		return XTR_CODEC_ZSTD;
	if (len >= 6 && memcmp(h, xz, sizeof(xz)) == 0)
		return XTR_CODEC_XZ;
	return XTR_CODEC_NONE;
}

/* see decode.h */
uint64_t
xtr_filter_dict(int filter, const unsigned char *h, size_t len)
{
	uint64_t dict;
	unsigned int log2;

	switch (filter) {
	case ARCHIVE_FILTER_LZIP:
		/* "LZIP", the version, then a power of two less 0 to 7
		 * sixteenths of it. */
		if (len < 6 || memcmp(h, "LZIP", 4) != 0)
			return 0;
		log2 = h[5] & 0x1fu;
		dict = 1ull << log2;
		if (log2 > 12)
			dict -= (dict / 16) * (h[5] >> 5);
		return dict;
	case ARCHIVE_FILTER_LZMA:
		if (len < 5)
			return 0;
		return (uint64_t)h[1] | (uint64_t)h[2] << 8 |
		    (uint64_t)h[3] << 16 | (uint64_t)h[4] << 24;
	default:
		return 0;
	}
}

/* see extract.h */
uint64_t
xtr_decoder_raw_bytes(const struct xtr_decoder *d)
{
	return d->raw_seen;
}

/* --- the decoder thread --------------------------------------------------- */

/* End the decoding: at the end (ERROR 0) or with ERROR and a message. */
static void __attribute__((format(printf, 3, 4)))
finish(struct xtr_decoder *d, int error, const char *fmt, ...)
{
	va_list ap;

	(void)pthread_mutex_lock(&d->mu);
	d->error = error;
	if (error != 0) {
		va_start(ap, fmt);
		(void)vsnprintf(d->msg, sizeof(d->msg), fmt, ap);
		va_end(ap);
	}
	d->raw_total = d->raw_used;
	d->done = true;
	(void)pthread_cond_signal(&d->ready);
	(void)pthread_mutex_unlock(&d->mu);
}

/*
 * The bytes of the ring free from D->wr on (MU held): to the buffer's end,
 * or to the oldest byte the consumer has not given back.  Published
 * blocks follow each other from ring[first] to D->wr, wrapping at most
 * once, and are never empty, so that byte is ring[first]'s first; when
 * it is at D->wr itself, every byte is taken.
 */
static size_t
free_room(const struct xtr_decoder *d)
{
	size_t oldest;

	if (d->nfull == 0)
		return XTR_DEC_RING - d->wr;
	oldest = (size_t)(d->ring[d->first].data - d->mem);
	if (oldest == d->wr)
		return 0;
	return oldest > d->wr ? oldest - d->wr : XTR_DEC_RING - d->wr;
}

/*
 * Give the pages of MEM up to END (past D->faulted) at once: the first
 * lap of the ring, block by block, costs a call a block and not a page
 * fault every 4 KiB (tens of microseconds each on a virtual machine).
 * Blocks follow each other from MEM's start, so one mark says what has
 * its pages.  Only a hint (MADV_POPULATE_WRITE, Linux 5.14): where it
 * fails, the codec's writes fault as before.
 */
/* Huge pages, where the kernel has them: 2 MiB on x86-64 and arm64. */
#define HUGE_ALIGN (2u << 20)

/*
 * The ring's buffer (free(3) it), on huge-page boundaries and marked for
 * huge pages (MADV_HUGEPAGE; a hint, ignored where transparent huge pages
 * are off): its first lap then costs three faults, not one each 4 KiB
 * page, which on a virtual machine with shadow page tables is 3 us a page
 * (a 4 MiB ring 12 ms; with huge pages 0.3 ms), more than decoding a
 * small archive.  NULL without memory.
 */
static unsigned char *
ring_alloc(void)
{
	void *p;

	if (posix_memalign(&p, HUGE_ALIGN, XTR_DEC_RING) != 0)
		return NULL;
#ifdef MADV_HUGEPAGE
	(void)madvise(p, XTR_DEC_RING, MADV_HUGEPAGE);
#endif
	return p;
}

static void
prefault(struct xtr_decoder *d, size_t end)
{
	if (end <= d->faulted)
		return;
#ifdef MADV_POPULATE_WRITE
	{
		size_t page = (size_t)sysconf(_SC_PAGESIZE);
		uintptr_t from = (uintptr_t)(d->mem + d->faulted) &
		    ~(uintptr_t)(page - 1);

		if (page > 0 && (page & (page - 1)) == 0)
			(void)madvise((void *)from, (uintptr_t)(d->mem + end) -
			    from, MADV_POPULATE_WRITE);
	}
#endif
	d->faulted = end;
}

/*
 * Wait for a free block with room for NEED bytes at least (1 to
 * XTR_DEC_NEED_MAX), at D->wr, or at the buffer's start when fewer than
 * NEED bytes are left before its end.  Return: the block, the decoder's
 * until it is published, with *CAP its room (at most D->grow, or NEED), or
 * NULL when the consumer asked the decoder to stop.
 */
static struct block *
take_block(struct xtr_decoder *d, size_t need, size_t *cap)
{
	struct block *b = NULL;
	size_t room, most = d->grow > need ? d->grow : need;

	if (XTR_DEC_RING - d->wr < need)
		d->wr = 0;
	(void)pthread_mutex_lock(&d->mu);
	while (!atomic_load(&d->stop)) {
		room = d->nfull < XTR_DEC_BLOCKS ? free_room(d) : 0;
		if (room >= need) {
			b = &d->ring[(d->first + d->nfull) % XTR_DEC_BLOCKS];
			b->data = d->mem + d->wr;
			*cap = room < most ? room : most;
			break;
		}
		(void)pthread_cond_wait(&d->room, &d->mu);
	}
	(void)pthread_mutex_unlock(&d->mu);
	if (b != NULL)
		prefault(d, d->wr + *cap);
	return b;
}

/* Hand the block being filled, of LEN bytes (not 0), to the consumer. */
static void
publish(struct xtr_decoder *d, size_t len)
{
	struct block *b;

	(void)pthread_mutex_lock(&d->mu);
	b = &d->ring[(d->first + d->nfull) % XTR_DEC_BLOCKS];
	b->len = len;
	b->raw_end = d->raw_used;
	d->wr += len;
	d->nfull++;
	if (d->grow < XTR_DEC_BLOCK)
		d->grow *= 2;
	(void)pthread_cond_signal(&d->ready);
	(void)pthread_mutex_unlock(&d->mu);
}

static bool cancelled(const struct xtr_decoder *d);

/*
 * Wait until the input can be read or the consumer wakes us; inline,
 * where the consumer is this thread, until the caller cancels, looking
 * at the flag every XTR_DEC_TICK_MS (a signal sets it and may interrupt
 * the poll, or come just before it).
 * Return: 0 (read), 1 (stop), 2 (cancelled, inline), or -errno.
 */
static int
wait_input(struct xtr_decoder *d)
{
	struct pollfd p[2];
	int n;

	p[0].fd = d->fd;
	p[0].events = POLLIN;
	p[1].fd = d->wake[0];	/* -1 inline: poll(2) passes over it */
	p[1].events = POLLIN;
	for (;;) {
		if (d->inline_dec && cancelled(d))
			return 2;
		p[0].revents = 0;
		p[1].revents = 0;
		n = poll(p, 2, d->inline_dec ? XTR_DEC_TICK_MS : -1);
		if (n > 0)
			break;
		if (n < 0 && errno != EINTR && errno != EAGAIN)
			return -errno;
	}
	return p[1].revents != 0 ? 1 : 0;
}

/*
 * Point S at the next raw bytes: the whole buffer, the head read before
 * the thread started, or the next read(2).
 * Return: 0, or -1 when the decoder must end (finished, or stopping).
 */
static int
fill_input(struct xtr_decoder *d, struct xtr_stream *s)
{
	ssize_t n;
	int r;

	if (d->buf != NULL) {
		s->in = d->buf;
		s->in_len = d->len;
		s->in_end = true;
		return 0;
	}
	if (!d->head_given && d->head_len > 0) {
		d->head_given = true;
		s->in = d->head;
		s->in_len = d->head_len;
		return 0;
	}
	for (;;) {
		r = wait_input(d);
		if (r == 1)
			return -1;
		if (r == 2) {
			r = xtr_stop_why(d->halt);
			if (r == 0)	/* a cancel flag set back to 0 */
				r = ECANCELED;
			finish(d, r, "%s", XTR_STOP_TEXT(r));
			return -1;
		}
		if (r < 0) {
			finish(d, -r, "%s: %s", XTR_INPUT_UNREADABLE,
			    strerror(-r));
			return -1;
		}
		n = read(d->fd, d->inbuf, XTR_DEC_INBUF);
		if (n >= 0)
			break;
		if (errno != EINTR && errno != EAGAIN) {
			r = errno;
			finish(d, r, "%s: %s", XTR_INPUT_UNREADABLE,
			    strerror(r));
			return -1;
		}
	}
	s->in = d->inbuf;
	s->in_len = (size_t)n;
	s->in_end = n == 0;
	return 0;
}

/*
 * One step of the decoding: take a block if none is being filled, read
 * input if the codec has none, run the codec once.  The block being
 * filled is published only when it is full, when the codec needs more
 * room than it has left (then as it is), or when the stream ended
 * verified, so an error drops it.  Return: false once the decoding is
 * over (finished, failed, or stopped by the consumer).
 */
static bool
decode_step(struct xtr_decoder *d)
{
	struct xtr_stream *s = &d->s;
	enum xtr_step st;
	size_t in0, out0;
	struct block *b;

	if (!d->have_block) {
		b = take_block(d, d->need, &d->cap);
		if (b == NULL)
			return false;
		s->out = b->data;
		s->out_len = d->cap;
		d->have_block = true;
		d->need = 1;
	}
	if (s->in_len == 0 && !s->in_end && fill_input(d, s) < 0)
		return false;
	in0 = s->in_len;
	out0 = s->out_len;
	s->out_need = 0;
	st = d->ops->step(d->codec, s);
	d->raw_used += in0 - s->in_len;
	if (st == XTR_STEP_ERROR) {
		finish(d, s->error, "%s", s->msg);
		return false;
	}
	if (st == XTR_STEP_END) {
		if (s->out_len < d->cap)
			publish(d, d->cap - s->out_len);
		finish(d, 0, NULL);
		return false;
	}
	if (s->out_need > XTR_DEC_NEED_MAX) {
		finish(d, EIO, "%s decompression failed: the decoder asks "
		    "for %zu bytes of room at once", d->ops->name,
		    s->out_need);
		return false;
	}
	if (s->out_len == 0 || s->out_need > s->out_len) {
		/* Full, or too full for the codec: hand it over (an empty
		 * one is only given back) and take room on. */
		if (s->out_len < d->cap)
			publish(d, d->cap - s->out_len);
		d->need = s->out_need > 0 ? s->out_need : 1;
		d->have_block = false;
	}
	d->idle = in0 == s->in_len && out0 == s->out_len ? d->idle + 1 : 0;
	if (d->idle > DEC_MAX_IDLE_STEPS) {
		finish(d, EIO, "%s decompression failed: the decoder makes "
		    "no progress", d->ops->name);
		return false;
	}
	return !atomic_load(&d->stop);
}

/* The decoder thread: fill blocks until the stream ends, fails, or the
 * consumer stops us. */
static void *
decode_main(void *arg)
{
	struct xtr_decoder *d = arg;

	while (decode_step(d))
		continue;
	return NULL;
}

/*
 * XTR_DEC_INLINE, on the reading thread, no block held: decode until a
 * block is published or the decoding is over.  Nothing else touches the
 * decoder meanwhile, so the ring always has room (take_block() never
 * waits) and NFULL and DONE are read without the lock.
 */
static void
decode_inline(struct xtr_decoder *d)
{
	while (d->nfull == 0 && !d->done) {
		if (!decode_step(d) && !d->done)
			finish(d, ECANCELED, "the decoder was stopped");
	}
}

/* --- the consumer: libarchive's callbacks --------------------------------- */

/* see decode.h */
int
xtr_stop_why(const struct xtr_stop *stop)
{
	struct timespec now;

	if (stop == NULL)
		return 0;
	if (stop->cancel != NULL && *stop->cancel != 0)
		return ECANCELED;
	if (stop->deadline.tv_sec == 0)
		return 0;
	(void)clock_gettime(CLOCK_MONOTONIC, &now);
	if (now.tv_sec > stop->deadline.tv_sec ||
	    (now.tv_sec == stop->deadline.tv_sec &&
	    now.tv_nsec >= stop->deadline.tv_nsec))
		return ETIMEDOUT;
	return 0;
}

/* see decode.h */
int
xtr_stop_ms(const struct xtr_stop *stop, int most)
{
	struct timespec now;
	int64_t ms;

	if (stop == NULL || stop->deadline.tv_sec == 0)
		return most;
	(void)clock_gettime(CLOCK_MONOTONIC, &now);
	ms = ((int64_t)stop->deadline.tv_sec - now.tv_sec) * 1000 +
	    (stop->deadline.tv_nsec - now.tv_nsec) / 1000000;
	if (ms < 0)
		return 0;
	return ms < most ? (int)ms : most;
}

/* Has the caller cancelled the run, or its time run out? */
static bool
cancelled(const struct xtr_decoder *d)
{
	return xtr_stop_why(d->halt) != 0;
}

/* Wait on READY (MU held) for at most one tick. */
static void
wait_ready(struct xtr_decoder *d)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) {
		(void)pthread_cond_wait(&d->ready, &d->mu);
		return;
	}
	ts.tv_nsec += XTR_DEC_TICK_MS * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	(void)pthread_cond_timedwait(&d->ready, &d->mu, &ts);
}

/*
 * Would handing out a block of LEN bytes, decoded from the first RAW raw
 * bytes, cross D's ratio limit?  SECURITY: every byte the tar reader
 * parses counts, not only entries' data (extract/budget.c): extended
 * headers of 1 MiB each, or -i's zero blocks, decode to gigabytes in
 * which no entry has data.  Then A's error is set, EFBIG.
 */
static bool
over_ratio(struct archive *a, const struct xtr_decoder *d, size_t len,
    uint64_t raw)
{
	uint64_t given = d->given + len;
	char msg[DEC_MSG];

	if (d->max_ratio == 0 || given <= d->ratio_after)
		return false;
	if (raw < 1)
		raw = 1;
	if (given / raw <= d->max_ratio)
		return false;
	/* libarchive's own formatter knows no %llu. */
	(void)snprintf(msg, sizeof(msg), "limit max-ratio=%llu reached: "
	    "%llu bytes decoded from %llu read (raise limits.max_ratio, or "
	    "set it to 0)", (unsigned long long)d->max_ratio,
	    (unsigned long long)given, (unsigned long long)raw);
	archive_set_error(a, EFBIG, "%s", msg);
	return true;
}

/* --- one entry's headers (decode.h) ------------------------------------- */

/* see decode.h */
void
xtr_header_begin(struct xtr_head *h, struct archive *a)
{
	la_int64_t at;

	if (h == NULL)
		return;
	at = archive_filter_bytes(a, 0);
	h->hdr_from = at > 0 ? at : 0;
	h->hdr_taken = 0;
	h->hdr_over = false;
	h->hdr_on = true;
	h->hdr_begun = true;
}

/* Set A's error: H's limit crossed. */
static void
header_error(struct archive *a, const struct xtr_head *h)
{
	char msg[DEC_MSG + 64];

	/* libarchive's own formatter knows no %llu. */
	(void)snprintf(msg, sizeof(msg), "limit max-memory=%llu reached: "
	    "one entry's headers take more than %llu MiB of the archive (a "
	    "sparse map of over %llu segments?), which libarchive would hold "
	    "in memory (raise limits.max_memory, or set it to 0)",
	    (unsigned long long)h->hdr_budget,
	    (unsigned long long)(h->hdr_max >> 20),
	    (unsigned long long)(h->hdr_max / 512 * 21));
	archive_set_error(a, EFBIG, "%s", msg);
}

/* see decode.h */
bool
xtr_header_end(struct xtr_head *h, struct archive *a)
{
	if (h == NULL || !h->hdr_on)
		return false;
	h->hdr_on = false;
	if (h->hdr_over)
		header_error(a, h);
	return h->hdr_over;
}

/* Does H count a header read of A, by libarchive's tar reader (which
 * says so before it reads what follows a header: its extension blocks,
 * its map)? */
static bool
counting(struct archive *a, const struct xtr_head *h)
{
	return h != NULL && h->hdr_on && h->hdr_max != 0 &&
	    (archive_format(a) & ARCHIVE_FORMAT_BASE_MASK) ==
	    ARCHIVE_FORMAT_TAR;
}

/* What A's format reader took of the decoded stream since the mark:
 * where libarchive's own filters decode. */
static uint64_t
decoded_taken(struct archive *a, const struct xtr_head *h)
{
	la_int64_t at = archive_filter_bytes(a, 0);

	return at > h->hdr_from ? (uint64_t)(at - h->hdr_from) : 0;
}

/* The bytes one read may take when FILTER decodes them (decode.h). */
static size_t
filter_step(int filter)
{
	switch (filter) {
	case ARCHIVE_FILTER_NONE:
	case ARCHIVE_FILTER_RPM:	/* a container: decodes nothing */
		return SIZE_MAX;
	case ARCHIVE_FILTER_LZ4:
		return XTR_FILTER_STEP_LZ4;
	case ARCHIVE_FILTER_GZIP:
		return XTR_FILTER_STEP_GZIP;
	default:
		return XTR_FILTER_STEP;
	}
}

/* see decode.h */
size_t
xtr_header_room(struct archive *a, const struct xtr_head *h, size_t cap)
{
	size_t step = SIZE_MAX, s;
	int i, n;

	if (h == NULL || h->hdr_max == 0)
		return cap;
	if (!h->hdr_begun)
		step = XTR_FILTER_STEP;
	/* Every filter but the reader's own (the last), each decoding
	 * what the one below gives. */
	n = archive_filter_count(a);
	for (i = 0; i + 1 < n; i++) {
		s = filter_step(archive_filter_code(a, i));
		if (s < step)
			step = s;
	}
	return cap < step ? cap : step;
}

/*
 * The bytes of P (N) in its 512-byte pieces from P on that are not all
 * zero.  A zero block of the stream that two pieces share leaves at most
 * its two ends counted; a piece that holds any byte of a map or a
 * header is counted whole.
 */
static uint64_t
nonzero_bytes(const unsigned char *p, size_t n)
{
	static const unsigned char zeros[512];
	uint64_t count = 0;
	size_t i, len;

	for (i = 0; i < n; i += len) {
		len = n - i < sizeof(zeros) ? n - i : sizeof(zeros);
		if (p[i] != 0 || memcmp(p + i, zeros, len) != 0)
			count += len;
	}
	return count;
}

/* see decode.h */
int
xtr_header_take(struct archive *a, struct xtr_head *h, const void *p,
    size_t n)
{
	uint64_t taken;

	if (!counting(a, h))
		return 0;
	if (archive_filter_count(a) > 1) {
		taken = decoded_taken(a, h);
	} else {
		h->hdr_taken += nonzero_bytes(p, n);
		taken = h->hdr_taken;
	}
	if (taken <= h->hdr_max && !h->hdr_over)
		return 0;
	h->hdr_over = true;	/* every later read of it fails too */
	header_error(a, h);
	return -1;
}

/*
 * Hand out the next bytes of the block held, ring[first], from D->off
 * on: all that is left, or less where libarchive's own filters decode
 * them (an archive compressed twice: xtr_header_room()).  MU is not
 * held: the block is the consumer's until it is given back.
 * Return: their length, or -1 with A's error set (EFBIG: past the ratio
 * limit, or an entry's headers' (xtr_header_take())).
 */
static la_ssize_t
hand_out(struct archive *a, struct xtr_decoder *d, const void **buf)
{
	const struct block *b = &d->ring[d->first];
	const unsigned char *p = b->data + d->off;
	size_t n = xtr_header_room(a, d->tap, b->len - d->off);

	if (over_ratio(a, d, n, b->raw_end) ||
	    xtr_header_take(a, d->tap, p, n) != 0)
		return -1;
	d->given += n;
	d->off += n;
	d->raw_seen = b->raw_end;
	*buf = p;
	xtr_head_add(d->tap, p, n);
	return (la_ssize_t)n;
}

/*
 * libarchive's read callback: give back the block handed out last time,
 * and hand out the next one (or what is left of the one held).
 * Return: its length, 0 at the verified end, or -1 with A's error set
 * (the decoder's, ECANCELED "interrupted", or EFBIG past the ratio limit
 * or an entry's headers' (xtr_header_take())).
 */
static la_ssize_t
dec_read(struct archive *a, void *arg, const void **buf)
{
	struct xtr_decoder *d = arg;

	*buf = NULL;
	(void)pthread_mutex_lock(&d->mu);
	if (d->held && d->off < d->ring[d->first].len) {
		(void)pthread_mutex_unlock(&d->mu);
		return hand_out(a, d, buf);
	}
	if (d->held) {
		d->held = false;
		d->first = (d->first + 1) % XTR_DEC_BLOCKS;
		d->nfull--;
		(void)pthread_cond_signal(&d->room);
	}
	if (d->inline_dec) {
		(void)pthread_mutex_unlock(&d->mu);
		decode_inline(d);
		(void)pthread_mutex_lock(&d->mu);
	}
	while (d->nfull == 0 && !d->done) {
		if (cancelled(d)) {
			int why = xtr_stop_why(d->halt);

			if (why == 0)	/* a cancel flag set back to 0 */
				why = ECANCELED;
			(void)pthread_mutex_unlock(&d->mu);
			archive_set_error(a, why, "%s", XTR_STOP_TEXT(why));
			return -1;
		}
		wait_ready(d);
	}
	if (d->nfull > 0) {
		d->held = true;
		d->off = 0;
		(void)pthread_mutex_unlock(&d->mu);
		return hand_out(a, d, buf);
	}
	d->raw_seen = d->raw_total;
	(void)pthread_mutex_unlock(&d->mu);
	/* DONE is final: ERROR and MSG no longer change. */
	if (d->error != 0) {
		archive_set_error(a, d->error, "%s", d->msg);
		return -1;
	}
	return 0;
}

/* see decode.h */
void
xtr_decoder_stop(struct xtr_decoder *d)
{
	ssize_t n;
	int e = errno;

	if (!d->started && !d->inline_dec)
		return;
	if (d->started) {
		(void)pthread_mutex_lock(&d->mu);
		atomic_store(&d->stop, true);
		(void)pthread_cond_signal(&d->room);
		(void)pthread_mutex_unlock(&d->mu);
		/* The pipe is written once and never read: it cannot be
		 * full, and a failure leaves nothing to do. */
		if (d->wake[1] >= 0) {
			n = write(d->wake[1], "", 1);
			(void)n;
		}
		(void)pthread_join(d->thread, NULL);
		d->started = false;
	}
	/* A later read fails instead of waiting for a thread that is gone. */
	if (!d->done) {
		d->error = ECANCELED;
		(void)snprintf(d->msg, sizeof(d->msg), "the decoder was "
		    "stopped");
		d->raw_total = d->raw_used;
		d->done = true;
	}
	errno = e;
}

/* Stop the decoder thread (if it runs), join it, and free D. */
static void
decoder_free(struct xtr_decoder *d)
{
	size_t i;
	int e = errno;

	xtr_decoder_stop(d);
	if (d->codec != NULL)
		d->ops->destroy(d->codec);
	free(d->mem);
	free(d->inbuf);
	for (i = 0; i < 2; i++) {
		if (d->wake[i] >= 0)
			(void)close(d->wake[i]);
	}
	if (d->own_fd && d->fd >= 0)
		(void)close(d->fd);
	if (d->nsync > 2)
		(void)pthread_cond_destroy(&d->room);
	if (d->nsync > 1)
		(void)pthread_cond_destroy(&d->ready);
	if (d->nsync > 0)
		(void)pthread_mutex_destroy(&d->mu);
	free(d);
	errno = e;
}

/* libarchive's close callback: free the decoder.  Return: ARCHIVE_OK. */
static int
dec_close(struct archive *a, void *arg)
{
	(void)a;
	decoder_free(arg);
	return ARCHIVE_OK;
}

/* --- starting ------------------------------------------------------------- */

static const struct xtr_codec_ops *
codec_ops(enum xtr_codec codec)
{
	switch (codec) {
	case XTR_CODEC_GZIP:
		return &xtr_codec_gzip;
	case XTR_CODEC_ZSTD:
		return &xtr_codec_zstd;
	case XTR_CODEC_XZ:
		return &xtr_codec_xz;
	case XTR_CODEC_NONE:
		break;
	}
	return NULL;
}

/* Make the mutex and the condition variables.  Return: 0, or an errno. */
static int
make_sync(struct xtr_decoder *d)
{
	pthread_condattr_t ca;
	int r;

	r = pthread_mutex_init(&d->mu, NULL);
	if (r != 0)
		return r;
	d->nsync = 1;
	r = pthread_condattr_init(&ca);
	if (r != 0)
		return r;
	/* The ticks of wait_ready() must not jump with the wall clock. */
	r = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	if (r == 0)
		r = pthread_cond_init(&d->ready, &ca);
	(void)pthread_condattr_destroy(&ca);
	if (r != 0)
		return r;
	d->nsync = 2;
	r = pthread_cond_init(&d->room, NULL);
	if (r != 0)
		return r;
	d->nsync = 3;
	return 0;
}

/*
 * The self-pipe, both ends close-on-exec.  (pipe2() is not POSIX here; a
 * fork by another thread in between would only copy a pipe that nothing
 * writes.)  Return: 0, or an errno.
 */
static int
make_wake_pipe(struct xtr_decoder *d)
{
	int i;

	if (pipe(d->wake) != 0) {
		d->wake[0] = d->wake[1] = -1;
		return errno;
	}
	for (i = 0; i < 2; i++) {
		if (fcntl(d->wake[i], F_SETFD, FD_CLOEXEC) == -1)
			return errno;
	}
	return 0;
}

/*
 * Start the thread with every signal blocked but those a fault raises on
 * the faulting thread itself (a crash stays a crash, reported as such).
 * Return: 0, or an errno.
 */
static int
start_thread(struct xtr_decoder *d)
{
	static const int faults[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL,
		SIGTRAP, SIGSYS, SIGABRT };
	sigset_t all, old;
	size_t i;
	int r;

	if (sigfillset(&all) != 0)
		return EINVAL;
	for (i = 0; i < sizeof(faults) / sizeof(faults[0]); i++)
		(void)sigdelset(&all, faults[i]);
	r = pthread_sigmask(SIG_SETMASK, &all, &old);
	if (r != 0)
		return r;
	r = pthread_create(&d->thread, NULL, decode_main, d);
	(void)pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r != 0)
		return r;
	d->started = true;
	return 0;
}

/*
 * Make a decoder for IN and start its thread.  Return: 0 with *OUT set,
 * or an errno with a message in MSG (CAP bytes); an owned descriptor is
 * then closed.
 */
static int
decoder_new(enum xtr_codec codec, const struct xtr_dec_input *in,
    unsigned int flags, const struct xtr_stop *stop,
    struct xtr_decoder **out, char *msg, size_t cap)
{
	struct xtr_decoder *d;
	int r = ENOMEM;

	*out = NULL;
	d = calloc(1, sizeof(*d));
	if (d == NULL) {
		if (in->own_fd)
			(void)close(in->fd);
		(void)snprintf(msg, cap, "%s", strerror(ENOMEM));
		return ENOMEM;
	}
	d->fd = in->fd;
	d->own_fd = in->own_fd;
	d->buf = in->buf;
	d->len = in->len;
	d->wake[0] = d->wake[1] = -1;
	d->halt = stop;
	d->tap = in->tap;
	if (in->mem != NULL) {
		d->max_ratio = in->mem->max_ratio;
		d->ratio_after = in->mem->ratio_after;
	}
	atomic_init(&d->stop, false);
	d->head_len = in->head_len < XTR_MAGIC_LEN ? in->head_len :
	    XTR_MAGIC_LEN;
	if (d->head_len > 0)
		memcpy(d->head, in->head, d->head_len);
	d->ops = codec_ops(codec);
	if (d->ops == NULL) {
		r = EINVAL;
		(void)snprintf(msg, cap, "no decoder for codec %d", codec);
		goto fail;
	}
	d->codec = d->ops->create(flags, in->mem, msg, cap);
	if (d->codec == NULL)
		goto fail;
	d->mem = ring_alloc();
	if (d->mem == NULL)
		goto fail_msg;
	if (d->buf == NULL) {
		d->inbuf = malloc(XTR_DEC_INBUF);
		if (d->inbuf == NULL)
			goto fail_msg;
		/* Inline, nothing waits for input but the reader itself. */
		r = (flags & XTR_DEC_INLINE) != 0 ? 0 : make_wake_pipe(d);
		if (r != 0)
			goto fail_msg;
	}
	d->s.msg = d->step_msg;
	d->s.msg_cap = sizeof(d->step_msg);
	d->need = 1;
	d->grow = XTR_DEC_FIRST;
	r = make_sync(d);
	if (r == 0 && (flags & XTR_DEC_INLINE) != 0)
		d->inline_dec = true;
	else if (r == 0)
		r = start_thread(d);
	if (r != 0)
		goto fail_msg;
	*out = d;
	return 0;
fail_msg:
	(void)snprintf(msg, cap, "cannot start the %s decoder: %s",
	    d->ops->name, strerror(r));
fail:
	decoder_free(d);
	return r;
}

/* see decode.h */
int
xtr_decode_open(struct archive *a, enum xtr_codec codec,
    const struct xtr_dec_input *in, unsigned int flags,
    const struct xtr_stop *stop, struct xtr_decoder **dec)
{
	struct xtr_decoder *d;
	char msg[DEC_MSG];
	int r;

	*dec = NULL;
	r = decoder_new(codec, in, flags, stop, &d, msg, sizeof(msg));
	if (r != 0) {
		archive_set_error(a, r, "%s", msg);
		return ARCHIVE_FATAL;
	}
	*dec = d;
	/* libarchive calls dec_close() whether or not the open works. */
	return archive_read_open(a, d, NULL, dec_read, dec_close);
}
