/*
 * zip.c -- pfextract's own zip reader (zip.h): the entries of a zip whose
 * central directory zipdir.c took, in archive order, as libarchive's
 * seekable reader gives them, their members inflated ahead of the writer
 * on every CPU.
 *
 * Members are compressed independently and the directory gives their
 * offsets, so a pool of threads (one per CPU the run plans for:
 * pfx_options.cpus, or plat_thread_cpus(); none with one CPU) reads and
 * inflates the members after the current entry,
 * each whole into a buffer, bounded in bytes held (a share of the run's
 * memory budget: the members' data and each thread's buffer for the
 * bytes it reads) and in members ahead (RING).  A member too big to hold
 * (more than a quarter of the bytes held) is left to the reading thread,
 * which streams it in order, in blocks, as every member is without a
 * pool.  The checks are the same either way, and the same as libarchive's
 * (zipdir.c for the local header): the CRC-32, and the sizes the
 * directory gives against what the data really holds.  A member whose
 * data fails them is an entry that failed (ARCHIVE_WARN), as libarchive
 * says; a local header that contradicts the directory ends the archive.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>

#include "decode.h"
#include "extract.h"
#include "reader.h"
#include "tarhead.h"
#include "zip.h"

/* Members the pool may be ahead of the reading thread by (a power of 2). */
#define RING		1024u
/* The pool's share of the memory budget, and its most. */
#define HOLD_SHARE	8u
#define HOLD_MAX	(8u << 20)
/* A streamed member is read and handed on in blocks of this. */
#define BLOCK		(256u << 10)
/* The most a symlink's target may take, stored (libarchive's bound). */
#define LINK_MAX	(64u << 10)
/* The first read of a local header: its fixed part, name, and this. */
#define HEAD_GUESS	512u
/* The first read of member M's local header. */
#define LOC_FIRST(m)	(30u + (uint64_t)(m)->name_len + HEAD_GUESS)
/* A pool thread's stack: it holds no buffer. */
#define STACK		(256u << 10)
#define THREADS_MAX	64u

#define M_IFMT		0170000u
#define M_IFDIR		0040000u
#define M_IFREG		0100000u
#define M_IFLNK		0120000u
#define M_IFIFO		0010000u

enum slot_state { SL_FREE, SL_BUSY, SL_DONE, SL_STREAM };
/* V_NOMEM: a buffer could not be had -- ENOMEM, as libpfextract(3)
 * says memory that ran out, not a read that failed (V_IO, EIO). */
enum verdict { V_OK, V_BAD_DATA, V_HOSTILE, V_IO, V_NOMEM };

/* A member the pool took: its local header and its data, inflated. */
struct slot {
	enum slot_state state;
	enum verdict verdict;
	struct zip_local loc;
	unsigned char *out;	/* its data: usize bytes */
	size_t made;		/* of them, what it held (all, unless the
				   verdict is bad) */
	size_t held;		/* what it counts in the bytes held */
	char *why;		/* the verdict's reason, or NULL */
};

/* The member being streamed by the reading thread. */
struct stream {
	struct zip_inflate *zi;
	uint64_t next;		/* the input offset of the next read */
	uint64_t c_left;	/* compressed bytes not yet read */
	uint64_t made;		/* bytes handed on */
	uint32_t crc;		/* stored: the CRC-32 so far */
	const unsigned char *in;
	size_t in_len;
	bool done;		/* the deflate stream ended */
	unsigned char *inbuf, *outbuf;
};

struct xtr_zip {
	struct zip_in in;
	int own_fd;		/* opened here, or -1 */
	struct zip_dir d;
	bool list;		/* a listing: data is not read */
	bool zlib;

	/* the entry being read: index into d.m, d.n before the first */
	size_t cur;
	bool started;
	struct zip_local loc;
	struct slot *cs;	/* its slot, when the pool took it */
	bool data_given;	/* a pooled member's buffer was handed on */
	bool data_end;
	bool bad_link;		/* the current member, a symlink, has data
				   that failed its check (xtr_zip_next()) */
	struct stream st;
	char *link;		/* a symlink's target */
	uint64_t raw;		/* input bytes up to the entry's end */

	/* the pool */
	pthread_t th[THREADS_MAX];
	unsigned int nth;
	pthread_mutex_t mu;
	pthread_cond_t work, ready;
	bool mu_init;
	struct slot ring[RING];
	size_t claim;		/* the next member a thread takes */
	size_t held, hold_max;	/* the slots' data and the threads' spans */
	_Atomic size_t live, live_peak;	/* what those buffers really take */
	bool stop;
	_Atomic uint64_t decoded_by[THREADS_MAX];

	int error;
	char text[320];
};

/* Set Z's error.  Return: ARCHIVE_FATAL. */
static int
fail(struct xtr_zip *z, int error, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
fail(struct xtr_zip *z, int error, const char *fmt, ...)
{
	va_list ap;

	z->error = error;
	va_start(ap, fmt);
	(void)vsnprintf(z->text, sizeof(z->text), fmt, ap);
	va_end(ap);
	return ARCHIVE_FATAL;
}

/* The member's name, for messages: its first bytes. */
static void
member_name(const struct xtr_zip *z, const struct zip_member *m, char *buf,
    size_t cap)
{
	size_t n = m->name_len < cap - 1 ? m->name_len : cap - 1;

	memcpy(buf, z->d.names + m->name, n);
	buf[n] = '\0';
}

/* --- decoding one member ------------------------------------------------ */

/*
 * Check the inflated or stored data of M: what the deflate stream left
 * unread (LEFT), whether it ended (DONE), the bytes made and their CRC.
 * Return: NULL, or why the data is bad.
 */
static const char *
data_verdict(const struct zip_member *m, bool done, uint64_t left,
    uint64_t made, uint32_t crc, char *buf, size_t cap)
{
	if (made > m->usize)
		snprintf(buf, cap, "it holds more than the %llu bytes its "
		    "central directory says", (unsigned long long)m->usize);
	else if (m->method == 8 && !done)
		snprintf(buf, cap, "its deflate data ends before its size "
		    "(%llu bytes, central directory)",
		    (unsigned long long)m->usize);
	else if (left != 0)
		snprintf(buf, cap, "its compressed data is %llu bytes shorter "
		    "than its central directory says",
		    (unsigned long long)left);
	else if (made != m->usize)
		snprintf(buf, cap, "it holds %llu bytes, its central directory "
		    "says %llu", (unsigned long long)made,
		    (unsigned long long)m->usize);
	else if (crc != m->crc)
		snprintf(buf, cap, "bad CRC-32: 0x%08lx, its central directory "
		    "says 0x%08lx", (unsigned long)crc, (unsigned long)m->crc);
	else
		return NULL;
	return buf;
}

/*
 * Inflate or copy DATA (M's CSIZE bytes) into OUT (USIZE bytes, one more
 * to see an overrun) with ZI; *MADE the bytes of OUT that are its data
 * (at most USIZE).  Return: NULL, or why the data is bad.
 */
static const char *
decode_whole(const struct zip_member *m, struct zip_inflate *zi,
    const unsigned char *data, unsigned char *out, size_t *made, char *buf,
    size_t cap)
{
	const unsigned char *in = data;
	unsigned char *o = out;
	size_t in_len = (size_t)m->csize, o_len = (size_t)m->usize + 1;
	bool done = false;

	if (m->method == 0) {
		*made = (size_t)(m->csize < m->usize ? m->csize : m->usize);
		memcpy(out, data, *made);
		if (m->csize != m->usize)
			return data_verdict(m, true, 0, m->csize,
			    m->crc, buf, cap);
		return data_verdict(m, true, 0, m->csize,
		    zip_crc32(0, out, (size_t)m->csize), buf, cap);
	}
	zip_inflate_reset(zi);
	while (!done) {
		size_t was_in = in_len, was_out = o_len;

		if (zip_inflate_run(zi, &in, &in_len, &o, &o_len, &done) < 0) {
			snprintf(buf, cap, "its deflate data is corrupt");
			return buf;
		}
		if (!done && (o_len == 0 || (in_len == was_in &&
		    o_len == was_out)))
			break;
	}
	*made = (size_t)(o - out) < m->usize ? (size_t)(o - out) :
	    (size_t)m->usize;
	return data_verdict(m, done, in_len, (uint64_t)(o - out),
	    zip_inflate_crc(zi), buf, cap);
}

/* What slot S costs in bytes held while it is decoded: its span read
 * (at most a local header's most and its data) and its data. */
static size_t
span_len(const struct zip_member *m)
{
	uint64_t span = m->end - m->off, most = ZIP_LOCAL_MAX + m->csize;

	return (size_t)(span < most ? span : most);
}

/* Set S's verdict V, and its reason WHY (copied). */
static void
set_verdict(struct slot *s, enum verdict v, const char *why)
{
	s->verdict = v;
	s->why = why != NULL ? strdup(why) : NULL;
}

/* A pool thread's own: its inflater, and the buffer it reads a member's
 * span into, kept from one member to the next while the bytes held
 * allow, and counted in them (CAP) as long as it is kept. */
struct worker {
	struct xtr_zip *z;
	unsigned int id;
	struct zip_inflate *zi;
	unsigned char *span;
	size_t cap;
};

/* N more bytes of buffers in use by the pool; live_sub(): N fewer. */
static void
live_add(struct xtr_zip *z, size_t n)
{
	size_t now = atomic_fetch_add(&z->live, n) + n;
	size_t peak = atomic_load(&z->live_peak);

	while (now > peak && !atomic_compare_exchange_weak(&z->live_peak,
	    &peak, now))
		continue;
}

static void
live_sub(struct xtr_zip *z, size_t n)
{
	(void)atomic_fetch_sub(&z->live, n);
}

/* Let W's span buffer go, with what it counts in the bytes held.
 * (Under MU.) */
static void
span_let_go(struct xtr_zip *z, struct worker *w)
{
	z->held -= w->cap;
	live_sub(z, w->cap);
	free(w->span);
	w->span = NULL;
	w->cap = 0;
}

/* Make W's span buffer LEN bytes at least; the bytes held count LEN for
 * it since the member was taken (take_cost()), and count nothing once a
 * buffer cannot be had.  (Under MU.) */
static void
span_fit(struct xtr_zip *z, struct worker *w, size_t len)
{
	if (len <= w->cap)
		return;
	live_sub(z, w->cap);
	free(w->span);
	w->span = malloc(len);
	w->cap = w->span != NULL ? len : 0;
	if (w->span != NULL)
		live_add(z, len);
	else
		z->held -= len;
}

/* A pool thread's work on member M into S: read its span, check its
 * local header, inflate its data. */
static void
decode_member(struct xtr_zip *z, const struct zip_member *m, struct slot *s,
    struct worker *w)
{
	size_t len = span_len(m);
	unsigned char *span = w->span;
	char why[200];
	const char *bad;
	long r;

	s->out = malloc((size_t)m->usize + 1);
	if (s->out != NULL)
		live_add(z, (size_t)m->usize + 1);
	if (span == NULL || len > w->cap || s->out == NULL) {
		set_verdict(s, V_NOMEM, strerror(ENOMEM));
		return;
	}
	r = zip_pread(&z->in, span, len, m->off);
	if (r < 0) {
		set_verdict(s, V_IO, strerror((int)-r));
		return;
	}
	r = zip_local_check(&z->d, m, span, len, &s->loc, why, sizeof(why));
	if (r != 0) {
		set_verdict(s, V_HOSTILE, r > 0 ? "a zip that contradicts "
		    "itself: a local header runs into the next member" : why);
		return;
	}
	bad = decode_whole(m, w->zi, span + (s->loc.data - m->off), s->out,
	    &s->made, why, sizeof(why));
	set_verdict(s, bad != NULL ? V_BAD_DATA : V_OK, bad);
}

/* --- the pool ----------------------------------------------------------- */

/* Can member I be taken now?  (Under MU.)  Its slot must be free, and
 * what it costs must fit in the bytes held, unless nothing is. */
static bool
can_take(const struct xtr_zip *z, size_t i, size_t cost)
{
	if (i >= z->d.n || z->ring[i & (RING - 1)].state != SL_FREE)
		return false;
	return z->held == 0 || z->held + cost <= z->hold_max;
}

/* Does member M go to the pool, or is it streamed?  Return: 0 when it
 * is streamed. */
static size_t
pool_cost(const struct xtr_zip *z, const struct zip_member *m)
{
	uint64_t c = span_len(m) + m->usize + 1;

	return c <= z->hold_max / 4 ? (size_t)c : 0;
}

/* What member M adds to the bytes held when W takes it: its data, and
 * what W's span buffer must grow by. */
static size_t
take_cost(const struct zip_member *m, const struct worker *w)
{
	size_t len = span_len(m);

	return (size_t)m->usize + 1 + (len > w->cap ? len - w->cap : 0);
}

static void *
pool_main(void *arg)
{
	struct worker *w = arg;
	struct xtr_zip *z = w->z;
	struct zip_inflate *zi = zip_inflate_new(z->zlib);
	const struct zip_member *m;
	struct slot *s;
	size_t i, cost = 0;	/* set before it is read: for the compiler */

	(void)pthread_mutex_lock(&z->mu);
	for (;;) {
		while (!z->stop && z->claim < z->d.n) {
			m = &z->d.m[z->claim];
			cost = pool_cost(z, m);
			/* Streamed, or no inflater: the reading thread's. */
			if ((cost == 0 || zi == NULL) &&
			    z->ring[z->claim & (RING - 1)].state == SL_FREE) {
				z->ring[z->claim++ & (RING - 1)].state =
				    SL_STREAM;
				(void)pthread_cond_broadcast(&z->ready);
				continue;
			}
			if (cost != 0) {
				cost = take_cost(m, w);
				if (can_take(z, z->claim, cost))
					break;
				/* SECURITY: a thread that waits for room
				 * holds none: the spans of idle threads
				 * would otherwise stay outside the bytes
				 * held, or keep them from ever emptying. */
				if (w->cap > 0 && z->held + cost >
				    z->hold_max) {
					span_let_go(z, w);
					(void)pthread_cond_broadcast(&z->work);
					continue;
				}
			}
			(void)pthread_cond_wait(&z->work, &z->mu);
		}
		if (z->stop || z->claim >= z->d.n)
			break;
		i = z->claim++;
		s = &z->ring[i & (RING - 1)];
		s->state = SL_BUSY;
		s->held = (size_t)z->d.m[i].usize + 1;
		z->held += cost;
		span_fit(z, w, span_len(&z->d.m[i]));
		(void)pthread_mutex_unlock(&z->mu);
		w->zi = zi;
		decode_member(z, &z->d.m[i], s, w);
		atomic_fetch_add(&z->decoded_by[w->id], 1);
		(void)pthread_mutex_lock(&z->mu);
		s->state = SL_DONE;
		(void)pthread_cond_broadcast(&z->ready);
	}
	span_let_go(z, w);
	(void)pthread_cond_broadcast(&z->work);
	(void)pthread_mutex_unlock(&z->mu);
	zip_inflate_free(zi);
	free(w);
	return NULL;
}

/* Start up to CPUS threads (none for one CPU).  Fewer is only slower. */
static void
pool_start(struct xtr_zip *z, unsigned int cpus)
{
	pthread_attr_t attr;
	struct worker *w;
	unsigned int i;

	if (cpus < 2 || z->list || z->d.n < 2)
		return;
	if (cpus > THREADS_MAX)
		cpus = THREADS_MAX;
	if (pthread_mutex_init(&z->mu, NULL) != 0)
		return;
	if (pthread_cond_init(&z->work, NULL) != 0) {
		(void)pthread_mutex_destroy(&z->mu);
		return;
	}
	if (pthread_cond_init(&z->ready, NULL) != 0) {
		(void)pthread_cond_destroy(&z->work);
		(void)pthread_mutex_destroy(&z->mu);
		return;
	}
	z->mu_init = true;
	if (pthread_attr_init(&attr) != 0)
		return;
	(void)pthread_attr_setstacksize(&attr, STACK);
	for (i = 0; i < cpus; i++) {
		w = calloc(1, sizeof(*w));
		if (w == NULL)
			break;
		w->z = z;
		w->id = z->nth;
		if (pthread_create(&z->th[z->nth], &attr, pool_main, w) != 0) {
			free(w);
			break;
		}
		z->nth++;
	}
	(void)pthread_attr_destroy(&attr);
}

static void
slot_clear(struct xtr_zip *z, struct slot *s)
{
	if (s->out != NULL)
		live_sub(z, s->held);
	free(s->out);
	free(s->why);
	memset(s, 0, sizeof(*s));
}

static void
pool_stop(struct xtr_zip *z)
{
	unsigned int i;

	if (!z->mu_init)
		return;
	(void)pthread_mutex_lock(&z->mu);
	z->stop = true;
	(void)pthread_cond_broadcast(&z->work);
	(void)pthread_mutex_unlock(&z->mu);
	for (i = 0; i < z->nth; i++)
		(void)pthread_join(z->th[i], NULL);
	z->nth = 0;
	for (i = 0; i < RING; i++)
		slot_clear(z, &z->ring[i]);
	(void)pthread_cond_destroy(&z->work);
	(void)pthread_cond_destroy(&z->ready);
	(void)pthread_mutex_destroy(&z->mu);
	z->mu_init = false;
}

/* Let the current entry's slot go, for the pool to take another. */
static void
release_current(struct xtr_zip *z)
{
	if (z->cs == NULL)
		return;
	(void)pthread_mutex_lock(&z->mu);
	z->held -= z->cs->held;
	slot_clear(z, z->cs);
	(void)pthread_cond_broadcast(&z->work);
	(void)pthread_mutex_unlock(&z->mu);
	z->cs = NULL;
}

/* Wait for the pool's word on member I.  Return: its slot, or NULL when
 * it is the reading thread's to stream. */
static struct slot *
pool_wait(struct xtr_zip *z, size_t i)
{
	struct slot *s = &z->ring[i & (RING - 1)];

	(void)pthread_mutex_lock(&z->mu);
	while (s->state == SL_FREE || s->state == SL_BUSY)
		(void)pthread_cond_wait(&z->ready, &z->mu);
	if (s->state == SL_STREAM) {
		s->state = SL_FREE;
		(void)pthread_cond_broadcast(&z->work);
		s = NULL;
	}
	(void)pthread_mutex_unlock(&z->mu);
	return s;
}

/* --- streaming one member ----------------------------------------------- */

/* Read and check member M's local header on the reading thread.
 * Return: ARCHIVE_OK, or FATAL with Z's error set. */
static int
read_local(struct xtr_zip *z, const struct zip_member *m)
{
	uint64_t span = m->end - m->off;
	size_t len = (size_t)(span < LOC_FIRST(m) ? span : LOC_FIRST(m));
	unsigned char *p;
	char why[200];
	long r;
	int e;

	for (;;) {
		p = malloc(len > 0 ? len : 1);
		if (p == NULL)
			return fail(z, ENOMEM, "%s", strerror(ENOMEM));
		e = zip_pread(&z->in, p, len, m->off);
		r = e == 0 ? zip_local_check(&z->d, m, p, len, &z->loc, why,
		    sizeof(why)) : 0;
		free(p);
		if (e < 0)
			return fail(z, -e, "cannot read the archive: %s",
			    strerror(-e));
		/* EXDEV: an extra field this reader does not take. */
		if (r < 0)
			return fail(z, r == -2 ? EXDEV : EILSEQ, "%s", why);
		if (r == 0)
			return ARCHIVE_OK;
		if ((uint64_t)r > span)
			return fail(z, EILSEQ, "a zip that contradicts itself: "
			    "a local header runs into the next member");
		len = (size_t)r;
	}
}

/* Ready the current member M (local header read) to be streamed. */
static int
stream_begin(struct xtr_zip *z, const struct zip_member *m)
{
	struct stream *st = &z->st;

	st->next = z->loc.data;
	st->c_left = m->csize;
	st->made = 0;
	st->crc = 0;
	st->in_len = 0;
	st->done = false;
	if (st->inbuf == NULL)
		st->inbuf = malloc(BLOCK);
	if (st->outbuf == NULL)
		st->outbuf = malloc(BLOCK);
	if (st->zi == NULL && m->method == 8)
		st->zi = zip_inflate_new(z->zlib);
	if (st->inbuf == NULL || st->outbuf == NULL ||
	    (m->method == 8 && st->zi == NULL))
		return fail(z, ENOMEM, "%s", strerror(ENOMEM));
	if (st->zi != NULL)
		zip_inflate_reset(st->zi);
	return ARCHIVE_OK;
}

/* Read the next compressed block of the streamed member into its input
 * buffer.  Return: 0, or -errno. */
static int
stream_read(struct xtr_zip *z)
{
	struct stream *st = &z->st;
	size_t n = st->c_left < BLOCK ? (size_t)st->c_left : BLOCK;
	int r = zip_pread(&z->in, st->inbuf, n, st->next);

	if (r < 0)
		return r;
	st->next += n;
	st->c_left -= n;
	/* SECURITY: the ratio's denominator is what was read so far: a
	 * bomb streamed is stopped within a block of the limit. */
	z->raw = st->next;
	st->in = st->inbuf;
	st->in_len = n;
	return 0;
}

/*
 * The streamed member's next block.  Return: ARCHIVE_OK with *BUF and
 * *SIZE; ARCHIVE_EOF at its end, checked; ARCHIVE_WARN for data that
 * fails a check; ARCHIVE_FATAL for a read that failed.
 */
static int
stream_next(struct xtr_zip *z, const struct zip_member *m,
    const void **buf, size_t *size)
{
	struct stream *st = &z->st;
	unsigned char *o = st->outbuf;
	/* SECURITY: never a byte more inflated than its size and one (to
	 * see an overrun), as a pooled member: bytes past it are never
	 * given, so the limits could not count them. */
	size_t room = m->usize - st->made < BLOCK ? (size_t)(m->usize -
	    st->made) + 1 : BLOCK, o_len = room;
	char why[200], name[64];
	const char *bad;
	int r;

	if (m->method == 0) {
		if (st->c_left > 0) {
			r = stream_read(z);
			if (r < 0)
				return fail(z, -r, "cannot read the archive: "
				    "%s", strerror(-r));
			st->crc = zip_crc32(st->crc, st->inbuf, st->in_len);
			st->made += st->in_len;
			/* SECURITY: as inflated data below, never a byte past
			 * the size it says: a consumer sizes its buffer by
			 * USIZE (read_link()), and the compressed size of a
			 * stored member is the archive's to pick. */
			if (st->made <= m->usize) {
				*buf = st->inbuf;
				*size = st->in_len;
				return ARCHIVE_OK;
			}
		}
		bad = data_verdict(m, true, st->c_left, st->made, st->crc,
		    why, sizeof(why));
		goto end;
	}
	while (o_len == room && !st->done) {
		size_t was_in;

		if (st->in_len == 0 && st->c_left > 0) {
			r = stream_read(z);
			if (r < 0)
				return fail(z, -r, "cannot read the archive: "
				    "%s", strerror(-r));
		}
		was_in = st->in_len;
		if (zip_inflate_run(st->zi, &st->in, &st->in_len, &o, &o_len,
		    &st->done) < 0 || (!st->done && o_len == room &&
		    was_in > 0 && st->in_len == was_in)) {
			snprintf(why, sizeof(why), "its deflate data is "
			    "corrupt");
			bad = why;
			goto end;
		}
		if (!st->done && o_len == room && st->in_len == 0 &&
		    st->c_left == 0)
			break;	/* the data ended first */
	}
	if (o_len < room) {
		st->made += room - o_len;
		/* SECURITY: no more than the size it says, a bomb or not. */
		if (st->made <= m->usize) {
			*buf = st->outbuf;
			*size = room - o_len;
			return ARCHIVE_OK;
		}
	}
	bad = data_verdict(m, st->done, st->in_len + st->c_left, st->made,
	    zip_inflate_crc(st->zi), why, sizeof(why));
end:
	if (bad == NULL)
		return ARCHIVE_EOF;
	member_name(z, m, name, sizeof(name));
	z->error = EILSEQ;
	snprintf(z->text, sizeof(z->text), "%s: %s", name, bad);
	return ARCHIVE_WARN;
}

/* --- entries ------------------------------------------------------------ */

/* The mode libarchive gives member M named NAME (NLEN bytes). */
static uint32_t
final_mode(uint32_t mode, const char *name, size_t nlen)
{
	if ((mode & M_IFMT) == M_IFIFO)
		mode = (mode & ~M_IFMT) | M_IFREG;
	if (mode == 0)
		mode = 0664;
	if ((mode & M_IFMT) != M_IFDIR) {
		if (nlen > 0 && name[nlen - 1] == '/')
			mode = (mode & ~M_IFMT) | M_IFDIR | 0111;
		else if ((mode & M_IFMT) == 0)
			mode |= M_IFREG;
	}
	return mode;
}

/* The target of the symlink M: its data, whole (pooled in S, or read
 * now).  Return: ARCHIVE_OK with Z->link set, ARCHIVE_WARN when the data
 * fails its check (Z's text says why), or FATAL. */
static int
read_link(struct xtr_zip *z, const struct zip_member *m, struct slot *s)
{
	const void *buf;
	size_t size, at = 0;
	char name[64];
	int r;

	member_name(z, m, name, sizeof(name));
	if (m->csize > LINK_MAX || m->usize > LINK_MAX)
		return fail(z, EILSEQ, "%s: a symlink whose target is more "
		    "than %u bytes", name, LINK_MAX);
	free(z->link);
	z->link = malloc((size_t)m->usize + 1);
	if (z->link == NULL)
		return fail(z, ENOMEM, "%s", strerror(ENOMEM));
	if (s != NULL) {
		memcpy(z->link, s->out, (size_t)m->usize);
		at = (size_t)m->usize;
	} else {
		if (stream_begin(z, m) != ARCHIVE_OK)
			return ARCHIVE_FATAL;
		while ((r = stream_next(z, m, &buf, &size)) == ARCHIVE_OK) {
			/* stream_next() gives no more than USIZE; checked
			 * again where the buffer is sized by it. */
			if (size > (size_t)m->usize - at)
				return fail(z, EILSEQ, "%s: it holds more than "
				    "the %llu bytes its central directory says",
				    name, (unsigned long long)m->usize);
			memcpy(z->link + at, buf, size);
			at += size;
		}
		/* Z->error and Z->text already say why. */
		if (r != ARCHIVE_EOF)
			return r == ARCHIVE_WARN ? r : ARCHIVE_FATAL;
	}
	z->link[at] = '\0';
	return ARCHIVE_OK;
}

/* Fill AE with member M (local header L), as libarchive would. */
static int
fill_entry(struct xtr_zip *z, const struct zip_member *m,
    struct archive_entry *ae)
{
	char *name = malloc((size_t)m->name_len + 2);
	size_t nlen = m->name_len;
	uint32_t mode;

	if (name == NULL)
		return fail(z, ENOMEM, "%s", strerror(ENOMEM));
	memcpy(name, z->d.names + m->name, nlen);
	name[nlen] = '\0';
	mode = final_mode(m->mode, name, nlen);
	/* A directory's name ends in '/'. */
	if ((mode & M_IFMT) == M_IFDIR && (nlen == 0 || name[nlen - 1] != '/'))
		memcpy(name + nlen, "/", 2);
	archive_entry_clear(ae);
	archive_entry_copy_pathname(ae, name);
	free(name);
	archive_entry_set_mode(ae, (mode_t)mode);
	archive_entry_set_uid(ae, z->loc.uid);
	archive_entry_set_gid(ae, z->loc.gid);
	archive_entry_set_mtime(ae, (time_t)(z->loc.mtime_set ? z->loc.mtime :
	    zip_dos_time(z->loc.dos_time)), 0);
	archive_entry_set_ctime(ae, (time_t)z->loc.ctime, 0);
	archive_entry_set_atime(ae, (time_t)z->loc.atime, 0);
	if ((mode & M_IFMT) == M_IFLNK && z->bad_link) {
		/* SECURITY: no link from data that failed its check: given
		 * as a file whose data fails at once, it fails alone (the
		 * writer's bad_data), and is passed over if refused. */
		archive_entry_set_mode(ae, (mode_t)((mode & ~M_IFMT) | M_IFREG));
		archive_entry_set_size(ae, (la_int64_t)m->usize);
	} else if ((mode & M_IFMT) == M_IFLNK) {
		archive_entry_set_size(ae, 0);
		archive_entry_copy_symlink(ae, z->link);
	} else {
		archive_entry_set_size(ae, (la_int64_t)m->usize);
	}
	return ARCHIVE_OK;
}

/* see zip.h */
int
xtr_zip_next(struct xtr_zip *z, struct archive_entry *ae)
{
	const struct zip_member *m;
	struct slot *s = NULL;
	char name[64];
	int r;

	release_current(z);
	if (z->started && z->cur < z->d.n)
		z->cur++;
	z->started = true;
	if (z->cur >= z->d.n)
		return ARCHIVE_EOF;
	m = &z->d.m[z->cur];
	z->data_given = false;
	z->data_end = false;
	z->bad_link = false;
	if (z->nth > 0)
		s = pool_wait(z, z->cur);
	/* A pooled member was read whole, a streamed one as it goes. */
	if (s != NULL) {
		z->raw = m->end;
		z->cs = s;
		if (s->verdict == V_HOSTILE || s->verdict == V_IO ||
		    s->verdict == V_NOMEM)
			return fail(z, s->verdict == V_HOSTILE ? EILSEQ :
			    s->verdict == V_NOMEM ? ENOMEM : EIO, "%s",
			    s->why != NULL ? s->why : "unreadable");
		z->loc = s->loc;
	} else {
		r = read_local(z, m);
		if (r != ARCHIVE_OK) {
			if (z->error == EXDEV)
				z->error = EILSEQ;
			return r;
		}
		if (z->raw < z->loc.data)
			z->raw = z->loc.data;
	}
	if ((final_mode(m->mode, (const char *)z->d.names + m->name,
	    m->name_len) & M_IFMT) == M_IFLNK) {
		if (s != NULL && s->verdict == V_BAD_DATA) {
			member_name(z, m, name, sizeof(name));
			z->error = EILSEQ;
			snprintf(z->text, sizeof(z->text), "%s: %s", name,
			    s->why);
			z->bad_link = true;
		} else {
			r = read_link(z, m, s);
			if (r != ARCHIVE_OK && r != ARCHIVE_WARN)
				return ARCHIVE_FATAL;
			z->bad_link = r == ARCHIVE_WARN;
		}
		z->data_end = !z->bad_link;
	} else if (s == NULL && !z->list) {
		if (stream_begin(z, m) != ARCHIVE_OK)
			return ARCHIVE_FATAL;
	}
	if (z->list)
		z->data_end = true;
	return fill_entry(z, m, ae);
}

/* see zip.h */
int
xtr_zip_data(struct xtr_zip *z, const void **buf, size_t *size,
    int64_t *offset)
{
	const struct zip_member *m = &z->d.m[z->cur];
	char name[64];

	if (!z->started || z->cur >= z->d.n || z->data_end)
		return ARCHIVE_EOF;
	/* A symlink whose data failed its check (xtr_zip_next()). */
	if (z->bad_link) {
		z->data_end = true;
		return ARCHIVE_WARN;
	}
	*offset = z->cs != NULL ? (z->data_given ? (int64_t)z->cs->made : 0) :
	    (int64_t)z->st.made;
	if (z->cs == NULL) {
		int r = stream_next(z, m, buf, size);

		if (r != ARCHIVE_OK)
			z->data_end = true;
		return r;
	}
	/* What it held first, then its verdict, as a streamed member: a
	 * bad one's bytes count in the limits as a good one's do. */
	if (!z->data_given && z->cs->made > 0) {
		z->data_given = true;
		*buf = z->cs->out;
		*size = z->cs->made;
		return ARCHIVE_OK;
	}
	z->data_end = true;
	if (z->cs->verdict == V_BAD_DATA) {
		member_name(z, m, name, sizeof(name));
		z->error = EILSEQ;
		snprintf(z->text, sizeof(z->text), "%s: %s", name,
		    z->cs->why);
		return ARCHIVE_WARN;
	}
	return ARCHIVE_EOF;
}

/* see zip.h */
uint64_t
xtr_zip_raw(const struct xtr_zip *z)
{
	return z->raw;
}

/* see zip.h */
int64_t
xtr_zip_header_pos(const struct xtr_zip *z)
{
	return z->started && z->cur < z->d.n ? (int64_t)z->d.m[z->cur].off :
	    -1;
}

/* see zip.h */
uint64_t
xtr_zip_archive_bytes(const struct xtr_zip *z)
{
	return z->in.size;
}

/* see zip.h */
const char *
xtr_zip_error(const struct xtr_zip *z, int *error)
{
	*error = z->error > 0 ? z->error : EIO;
	return z->text[0] != '\0' ? z->text : "truncated or corrupt";
}

/* see zip.h */
void
xtr_zip_stats(const struct xtr_zip *z, struct xtr_zip_stats *s)
{
	unsigned int i;
	uint64_t n;

	memset(s, 0, sizeof(*s));
	s->threads = z->nth;
	s->buffers_peak = atomic_load(&((struct xtr_zip *)z)->live_peak);
	s->hold_max = z->hold_max;
	for (i = 0; i < THREADS_MAX; i++) {
		n = atomic_load(&((struct xtr_zip *)z)->decoded_by[i]);
		s->pooled += n;
		s->threads_used += n > 0;
	}
}

/* see zip.h */
void
xtr_zip_free(struct xtr_zip *z)
{
	if (z == NULL)
		return;
	pool_stop(z);
	zip_inflate_free(z->st.zi);
	free(z->st.inbuf);
	free(z->st.outbuf);
	free(z->link);
	zip_dir_free(&z->d);
	if (z->own_fd >= 0)
		(void)close(z->own_fd);
	free(z);
}

/* --- opening ------------------------------------------------------------ */

/* Is "zip" among the comma-separated format NAMES (NULL: the default,
 * which has it)? */
static bool
zip_named(const char *names)
{
	const char *p;

	if (names == NULL)
		return true;
	for (p = names; p != NULL; p = strchr(p, ',')) {
		if (*p == ',')
			p++;
		if (strncmp(p, "zip", 3) == 0 && (p[3] == ',' || p[3] == '\0'))
			return true;
	}
	return false;
}

/*
 * The bytes of IN, when they are a regular file (or a buffer) read from
 * its start: *FD set to a descriptor opened here (or -1).  Return: 0, or
 * -1 when IN is not for this reader (a pipe, an offset not 0).
 */
static int
input_of(const struct pfx_input *in, struct zip_in *zin, int *fd)
{
	struct stat st;
	int use;

	*fd = -1;
	memset(zin, 0, sizeof(*zin));
	zin->fd = -1;
	if (in->path == NULL && in->buf != NULL) {
		zin->buf = in->buf;
		zin->size = in->len;
		return 0;
	}
	if (in->path != NULL) {
		*fd = pfx_input_open(in->path);
		if (*fd < 0) {
			*fd = -1;
			return -1;
		}
		use = *fd;
	} else if (in->fd >= 0 && lseek(in->fd, 0, SEEK_CUR) == 0) {
		use = in->fd;
	} else {
		return -1;
	}
	if (fstat(use, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 0)
		return -1;
	zin->fd = use;
	zin->size = (uint64_t)st.st_size;
	return 0;
}

/* Does IN start as a zip does, and not as a tar header that libarchive
 * could take it for? */
static bool
starts_as_zip(const struct zip_in *in)
{
	unsigned char b[XTR_TAR_BLOCK];

	if (zip_pread(in, b, 4, 0) < 0 || memcmp(b, "PK\3\4", 4) != 0)
		return false;
	return in->size < XTR_TAR_BLOCK || zip_pread(in, b, sizeof(b), 0) < 0 ||
	    !xtr_tar_header_ok(b);
}

/* see zip.h */
int
xtr_zip_open(const struct pfx_input *in, const struct pfx_options *opt,
    unsigned int dec_flags, unsigned int cpus, struct xtr_zip **out,
    char *msg, size_t cap, int *error)
{
	uint64_t mem = opt->limits.max_memory;
	struct xtr_zip *z;
	int r;

	*out = NULL;
	if ((dec_flags & (XTR_READ_DEB | XTR_READ_MULTIVOL)) != 0 ||
	    !zip_named(opt->formats))
		return ZIP_NOT_OURS;
	z = calloc(1, sizeof(*z));
	if (z == NULL)
		return ZIP_NOT_OURS;	/* libarchive says it */
	z->own_fd = -1;
	if (input_of(in, &z->in, &z->own_fd) < 0 || !starts_as_zip(&z->in)) {
		xtr_zip_free(z);
		return ZIP_NOT_OURS;
	}
	r = zip_dir_read(&z->in, mem, &z->d, msg, cap, error);
	/* The tool that wrote it wrote every local header alike: one with
	 * an extra field libarchive reads and we do not is libarchive's. */
	if (r == ZIP_OURS && z->d.n > 0 && read_local(z, &z->d.m[0]) ==
	    ARCHIVE_FATAL) {
		r = z->error == EXDEV ? ZIP_NOT_OURS : ZIP_HOSTILE;
		snprintf(msg, cap, "%s", z->text);
		*error = z->error;
	}
	if (r != ZIP_OURS) {
		xtr_zip_free(z);
		return r;
	}
	z->list = (opt->flags & PFX_OPT_LIST) != 0;
	z->zlib = (dec_flags & XTR_DEC_ZLIB) != 0;
	z->hold_max = mem != 0 && mem / HOLD_SHARE < HOLD_MAX ?
	    (size_t)(mem / HOLD_SHARE) : HOLD_MAX;
	pool_start(z, cpus);
	*out = z;
	return ZIP_OURS;
}
