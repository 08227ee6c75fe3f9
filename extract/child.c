/*
 * child.c -- the decoder process: libarchive and the compression
 * libraries, in a child that can write nothing anywhere.
 *
 * The archive's bytes reach large parsers written in C.  If one is
 * exploited, the attacker runs code with the rights of the process that
 * parses, and every check of ours is theirs to skip.  So with a sandbox
 * the parsing happens here, in a process forked for it, that:
 *
 *	- keeps two descriptors, the socket to its parent and a read-only
 *	  one of the archive (platform/process.c), with /dev/null as its
 *	  standard input, output and error, and room for 32 more at most
 *	  (RLIMIT_NOFILE), and of the memory it shares with others only
 *	  the ring (plat_os_unmap_shared());
 *	- gives up every capability and the right to raise its priority
 *	  (plat_os_drop_privileges());
 *	- confines itself with PFX_SANDBOX_NO_DEST and PLAT_SANDBOX_DECODER
 *	  (pfx_sandbox.h, platform.h): no write, create, remove, rename,
 *	  chmod or chown anywhere, no ioctl but those that read, no new
 *	  process, no signal to another, no exec, no socket, no System V
 *	  IPC, no memory that its RLIMIT_DATA does not count;
 *	- then reads the archive and sends each header and data block to
 *	  its parent (wire.h), which judges and writes them.
 *
 * What it can still do if taken over: read what Landlock leaves readable
 * (/usr), send its parent any bytes (each message is checked, and every
 * entry is judged as an archive's would be), spend CPU and memory until
 * its parent's deadlines end it.  It cannot outlive its parent's call.
 *
 * The child never returns: it ends with _exit(2) and runs none of the
 * caller's code (atexit handlers, stdio buffers), as the caller may be
 * multithreaded.
 */
#if defined(__has_include) && __has_include(<sys/prctl.h>)
#include <sys/prctl.h>
#endif
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/uio.h>

#include <errno.h>
#include <iconv.h>
#include <langinfo.h>
#include <pthread.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>

#include "child.h"
#include "decmem.h"
#include "decode.h"
#include "extract.h"
#include "labelparse.h"
#include "notes.h"
#include "paxdump.h"
#include "placed.h"
#include "platform.h"
#include "reader.h"
#include "volumes.h"
#include "wire.h"
#include "zip.h"

/* Above every signal number (NSIG is not POSIX; Linux has 64). */
#ifdef NSIG
#define SIG_LIMIT NSIG
#else
#define SIG_LIMIT 65
#endif

/* Messages queued to go in one send(2): a small file's header, data
 * and end cost one system call, not three. */
#define QUEUE_CAP (64u << 10)

/* The first send of a LAZY child goes once this much is queued, each
 * next one at twice the last, up to QUEUE_CAP: the parent starts on a
 * small archive's first entries while the rest is decoded, instead of
 * waiting for it all, and a large one still costs few sends. */
#define QUEUE_FIRST (4u << 10)

/* What the child sends. */
struct out {
	int fd;
	unsigned char *buf;	/* a header being built: grown up to
				   WIRE_HEAD + WIRE_MSG_MAX */
	size_t cap;
	struct wire_ring *ring;	/* shared with the parent, or NULL */
	uint32_t head;		/* ring bytes placed so far, modulo 2^32 */
	size_t faulted;		/* the ring's bytes from its start given
				   their pages (ring_prefault()) */
	uint32_t span;		/* the ring's bytes in use (ring_room()) */
	unsigned int laps;	/* laps of SPAN made, up to SPAN_LAPS */
	uint32_t sent;		/* the end of the last block told of */
	/*
	 * A plain tar read into the ring (placed.h): READS once the first
	 * header says so; BLOCK, BLOCK_LEN: the block libarchive reads now
	 * (its data is sent where it lies); PLACED: one was read there, so
	 * no data is ever copied into the ring again (ring_room()).
	 */
	bool reads, placed;
	uint32_t block;
	size_t block_len;
	bool lazy;		/* the input never stalls: send when full */
	size_t full;		/* LAZY: "full", QUEUE_FIRST to QUEUE_CAP */
	struct xtr_volumes *vols;	/* tar -M: the joiner, or NULL */
	const struct xtr_head *kept;	/* the reader's (a stage's raw
					   count, stage.c), or NULL */
	size_t nq;
	unsigned char q[QUEUE_CAP];
};

/* Send the IOV's bytes whole.  On failure the parent is gone: end. */
static void
send_iov(int fd, struct iovec *iov, int n)
{
	struct msghdr mh;
	ssize_t k;

	while (n > 0) {
		memset(&mh, 0, sizeof(mh));
		mh.msg_iov = iov;
		mh.msg_iovlen = (size_t)n;
		k = sendmsg(fd, &mh, MSG_NOSIGNAL);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			_exit(1);
		}
		while (n > 0 && (size_t)k >= iov->iov_len) {
			k -= (ssize_t)iov->iov_len;
			iov++;
			n--;
		}
		if (n > 0) {
			iov->iov_base = (char *)iov->iov_base + k;
			iov->iov_len -= (size_t)k;
		}
	}
}

static void
send_buf(int fd, const void *buf, size_t len)
{
	struct iovec iov = { (void *)buf, len };

	send_iov(fd, &iov, 1);
}

/*
 * Tell the parent, through socket FD, that this process could not
 * confine itself: -errno R, said as "none: WHAT: ..." (WHAT NULL: the
 * error alone), then end.  Never returns.
 */
static void
refuse_confined(int fd, int r, const char *what)
{
	unsigned char m[WIRE_CONFINED_LEN + 8 + WIRE_TEXT_MAX];
	struct pfx_sandbox_info info;

	memset(&info, 0, sizeof(info));
	if (what != NULL)
		(void)snprintf(info.text, sizeof(info.text), "none: %s: %s",
		    what, strerror(-r));
	else
		(void)snprintf(info.text, sizeof(info.text), "none: %s",
		    strerror(-r));
	send_buf(fd, m, wire_put_confined(m, r, &info));
	_exit(0);
}

/* The CPU seconds the child may spend without sending (0: none). */
static unsigned int stall_s;

/*
 * Give the child STALL_S more seconds of CPU: the kernel ends it with
 * SIGPROF when it spends them without another call here, which happens
 * at each send.  A reader that loops without giving anything (libarchive
 * has had such loops on hostile ISO and xar images) is so ended, whose
 * code we cannot stop otherwise.
 */
static void
arm_stall(void)
{
	struct itimerval t;

	if (stall_s == 0)
		return;
	memset(&t, 0, sizeof(t));
	t.it_value.tv_sec = (time_t)stall_s;
	(void)setitimer(ITIMER_PROF, &t, NULL);
}

/* Send what is queued. */
static void
flush(struct out *o)
{
	if (o->nq > 0) {
		send_buf(o->fd, o->q, o->nq);
		arm_stall();
		if (o->full < QUEUE_CAP)
			o->full *= 2;
	}
	o->nq = 0;
}

/*
 * Queue message M of LEN bytes (sent at once if it is larger than the
 * queue), after everything queued before it.  When the input may stall
 * (a pipe), nothing waits in the queue: the next read may block, and the
 * parent must not wait for what is already decoded.
 */
static void
queue(struct out *o, const void *m, size_t len)
{
	if (len > QUEUE_CAP - o->nq)
		flush(o);
	if (len > QUEUE_CAP) {
		send_buf(o->fd, m, len);
		return;
	}
	memcpy(o->q + o->nq, m, len);
	o->nq += len;
	if (!o->lazy || o->nq >= o->full)
		flush(o);
}

/* Queue DATA_END or END (TYPE); the end of the archive goes out. */
static void
send_end(struct out *o, int type, int status, int error, const char *text)
{
	unsigned char m[WIRE_HEAD + 8 + WIRE_TEXT_MAX];

	queue(o, m, wire_put_end(m, type, status, error, text));
	if (type == WIRE_END)
		flush(o);
}

/* End the run with ERROR and TEXT: the archive cannot be read further. */
static void __attribute__((noreturn))
finish(struct out *o, int error, const char *text)
{
	send_end(o, WIRE_END, WIRE_FATAL, error > 0 ? error : EIO, text);
	_exit(0);
}

/* AR's error, or the joiner's that libarchive may have worded over. */
static const char *
error_text(const struct out *o, struct archive *ar, const char *dflt)
{
	const char *s = xtr_volumes_error(o->vols, NULL);

	if (s == NULL)
		s = archive_error_string(ar);
	return s != NULL ? s : dflt;
}

static int
error_of(const struct out *o, struct archive *ar)
{
	int e;

	if (xtr_volumes_error(o->vols, &e) != NULL)
		return e;
	return xtr_reader_errno(ar);
}

/*
 * Count AE's extended attributes and fill XS (NULL: count only) with the
 * TOTAL of them, last first: pfextract adds each one it receives at the
 * head of its entry's list (remote.c, archive_entry_xattr_add_entry()),
 * so its list is then the one libarchive made here, in the same order,
 * and an archive that names an attribute twice gets the value it gets
 * without the sandbox (engine.c).
 */
static uint32_t
list_xattrs(struct archive_entry *ae, struct wire_xattr *xs, uint32_t total)
{
	const char *name;
	const void *value;
	size_t size;
	uint32_t n = 0;

	archive_entry_xattr_reset(ae);
	while (archive_entry_xattr_next(ae, &name, &value, &size) ==
	    ARCHIVE_OK) {
		if (name == NULL || name[0] == '\0')
			continue;
		if (xs != NULL && n < total) {
			xs[total - 1 - n].name = name;
			xs[total - 1 - n].name_len = strlen(name);
			xs[total - 1 - n].value = value;
			xs[total - 1 - n].value_len = value != NULL ? size : 0;
		}
		n++;
	}
	return n;
}

/* Where an entry is: the archive's format, the raw bytes read so far,
 * its header's position (-1: unknown). */
struct place {
	int format;
	uint64_t raw;
	int64_t pos;
	enum xtr_header_warn warn;	/* libarchive's ARCHIVE_WARN on the
					   header: what it was */
};

/* Where libarchive's AR is, with its decoder DEC, joiner VOLS and bytes
 * kept HEAD. */
static struct place
ar_place(struct archive *ar, struct xtr_decoder *dec,
    const struct xtr_volumes *vols, const struct xtr_head *head)
{
	struct place pl;

	pl.format = archive_format(ar);
	pl.warn = XTR_WARN_NONE;
	pl.raw = xtr_reader_raw_bytes(ar, dec, head);
	pl.pos = archive_read_header_position(ar);
	if (pl.pos < 0)
		pl.pos = -1;
	else	/* tar -M: where GNU tar counts it, in the volumes */
		pl.pos = (int64_t)xtr_volumes_physical(vols, (uint64_t)pl.pos);
	return pl;
}

/* Send AE's header, at PL.  Return: 0, or -E2BIG when it exceeds a
 * message. */
static int
send_header(struct out *o, const struct place *pl, struct archive_entry *ae)
{
	struct wire_header h;
	struct wire_xattr *xs;
	const char *name;
	size_t len, need;

	memset(&h, 0, sizeof(h));
	h.format = pl->format;
	h.filetype = (uint32_t)archive_entry_filetype(ae) & 0170000u;
	h.perm = (uint32_t)archive_entry_perm(ae) & 07777u;
	if (archive_entry_size_is_set(ae) && archive_entry_size(ae) >= 0) {
		h.flags |= WIRE_SIZE_SET;
		h.size = archive_entry_size(ae);
	}
	if (archive_entry_sparse_count(ae) > 0)
		h.flags |= WIRE_SPARSE;
	if (pl->warn == XTR_WARN_DAMAGED)
		h.flags |= WIRE_DAMAGED;
	else if (pl->warn == XTR_WARN_UNCONVERTED)
		h.flags |= WIRE_UNCONVERTED;
	h.mtime = archive_entry_mtime(ae);
	h.mtime_nsec = archive_entry_mtime_nsec(ae);
	if (h.mtime_nsec < 0 || h.mtime_nsec > 999999999)
		h.mtime_nsec = 0;
	if (archive_entry_atime_is_set(ae)) {
		h.flags |= WIRE_ATIME_SET;
		h.atime = archive_entry_atime(ae);
		h.atime_nsec = archive_entry_atime_nsec(ae);
		if (h.atime_nsec < 0 || h.atime_nsec > 999999999)
			h.atime_nsec = 0;
	}
	h.uid = archive_entry_uid(ae);
	h.gid = archive_entry_gid(ae);
	h.raw = pl->raw;
	/* A listing's device column and block number (wire.h's bounds). */
	if (h.filetype == AE_IFCHR || h.filetype == AE_IFBLK) {
		h.devmajor = (int64_t)archive_entry_rdevmajor(ae) & UINT32_MAX;
		h.devminor = (int64_t)archive_entry_rdevminor(ae) & UINT32_MAX;
	}
	h.pos = pl->pos;
	/* The name as the engine would take it (engine.c entry_name()). */
	name = archive_entry_pathname(ae);
	if (name == NULL)
		name = archive_entry_pathname_utf8(ae);
	wire_set_str(&h, WIRE_NAME, name);
	wire_set_str(&h, WIRE_HARDLINK, archive_entry_hardlink(ae));
	wire_set_str(&h, WIRE_SYMLINK, archive_entry_symlink(ae));
	wire_set_str(&h, WIRE_UNAME, archive_entry_uname(ae));
	wire_set_str(&h, WIRE_GNAME, archive_entry_gname(ae));
	h.nxattr = list_xattrs(ae, NULL, 0);
	if (h.nxattr > WIRE_MSG_MAX / 8)
		return -E2BIG;
	xs = calloc(h.nxattr + 1, sizeof(*xs));
	if (xs == NULL)
		return -ENOMEM;
	(void)list_xattrs(ae, xs, h.nxattr);
	need = WIRE_HEAD + WIRE_MSG_MAX;
	for (len = 0; len == 0;) {
		len = wire_put_header(o->buf, o->cap, &h, xs);
		if (len > 0 || o->cap >= need)
			break;
		free(o->buf);
		o->buf = malloc(need);
		o->cap = o->buf != NULL ? need : 0;
		if (o->buf == NULL)
			break;
	}
	free(xs);
	if (o->buf == NULL)
		return -ENOMEM;
	if (len == 0)
		return -E2BIG;
	queue(o, o->buf, len);
	return 0;
}

/* Pages given ahead of the first lap's writes: at most this much more
 * than is written. */
#define PREFAULT_AHEAD (64u << 10)

/*
 * The ring's pages, the first time its bytes at ring count AT, N of them,
 * are used (at most 4 * PREFAULT_AHEAD of them, a placed read's block
 * being larger than what it may get, and up to PREFAULT_AHEAD past them):
 * one call each time, not a page fault every 4 KiB (plat_os_prefault()).
 * The span in use only grows from the ring's start (ring_room()), so one
 * mark says what has its pages.
 */
static void
ring_prefault(struct out *o, uint32_t at, size_t n)
{
	size_t pos = at & (WIRE_RING_SIZE - 1), end;

	if (n > 4 * PREFAULT_AHEAD)
		n = 4 * PREFAULT_AHEAD;
	if (o->faulted >= WIRE_RING_SIZE || pos + n <= o->faulted)
		return;
	end = (pos + n + PREFAULT_AHEAD - 1) & ~(size_t)(PREFAULT_AHEAD - 1);
	if (end > WIRE_RING_SIZE)
		end = WIRE_RING_SIZE;
	plat_os_prefault(o->ring->data + o->faulted, end - o->faulted);
	o->faulted = end;
}

/*
 * The span of the ring in use: SPAN_FIRST bytes from its start, twice
 * that after SPAN_LAPS laps of it, and so on up to the whole ring.  A
 * page of the ring costs each process a fault the first time it is
 * used, 3 us on a virtual machine with shadow page tables: the 4 MiB
 * ring's first lap cost an npm tarball of 3 MiB more than a fifth of its
 * run.  A small archive now goes round 1 MiB of it, and a large one gets
 * the whole ring after 12 MiB.
 */
#define SPAN_FIRST (1u << 20)
#define SPAN_LAPS 4u
_Static_assert(WIRE_DATA_MAX <= SPAN_FIRST / 4 && SPAN_FIRST <= WIRE_RING_SIZE,
    "a block fits a quarter of the first span, which fits the ring");

/*
 * Room for N bytes in the ring, contiguous: wait until the parent is done
 * with enough of it.  Return: the ring count where they go (a block that
 * would run past the ring's end starts at its beginning instead).
 *
 * The parent holds the bytes from DONE to the end of the last block it
 * was told of (SENT), and no other: blocks are told of in the order of
 * the ring, and it is done with each in turn.  Bytes never told of (a
 * read block's headers) are the child's again at once.
 */
static uint32_t
ring_room(struct out *o, size_t n)
{
	uint32_t at = o->head, pos = at & (WIRE_RING_SIZE - 1), done;

	if (o->span == 0)
		o->span = SPAN_FIRST < WIRE_RING_SIZE ? SPAN_FIRST :
		    WIRE_RING_SIZE;
	if (pos + n > o->span) {
		/* Skip the tail: the ring's start again, a lap done. */
		at += WIRE_RING_SIZE - pos;
		if (++o->laps >= SPAN_LAPS && o->span < WIRE_RING_SIZE) {
			o->span *= 2;
			o->laps = 0;
		}
	}
	for (;;) {
		done = atomic_load(&o->ring->done);
		if (done == o->sent ||
		    (uint32_t)(at + n - done) <= WIRE_RING_SIZE)
			break;
		/* The parent frees only what it was told of. */
		flush(o);
		atomic_store(&o->ring->want, at + (uint32_t)n -
		    WIRE_RING_SIZE + o->span / 4);
		/* Told before the second look, so that a parent that moves
		 * DONE in between sees it and wakes us (both seq_cst). */
		atomic_store(&o->ring->waiting, 1);
		if (atomic_load(&o->ring->done) == done)
			plat_os_wait_word((const uint32_t *)&o->ring->done,
			    done, 1000);
	}
	atomic_store(&o->ring->waiting, 0);
	ring_prefault(o, at, n);
	return at;
}

/* Is AE a GNU dump directory whose list a listing shows (-G/-g)? */
static bool
dumpdir_listed(const struct pfx_options *opt, struct archive_entry *ae)
{
	return (opt->flags & PFX_OPT_INCREMENTAL) != 0 &&
	    archive_entry_filetype(ae) == AE_IFDIR &&
	    archive_entry_size(ae) > 0;
}

/* Send LEN bytes of data at OFFSET in a DATA message, by the socket. */
static void
send_inline(struct out *o, const void *buf, size_t len, int64_t offset,
    uint64_t raw)
{
	unsigned char head[WIRE_HEAD + 24];
	struct iovec iov[2];

	flush(o);
	iov[0].iov_base = head;
	iov[0].iov_len = wire_put_data_head(head, offset, raw, len);
	iov[1].iov_base = (void *)buf;
	iov[1].iov_len = len;
	send_iov(o->fd, iov, len > 0 ? 2 : 1);
}

/* Do LEN bytes at BUF lie in the block read last?  Then *AT is their
 * ring count. */
static bool
read_at(const struct out *o, const void *buf, size_t len, uint32_t *at)
{
	const unsigned char *b = o->ring->data +
	    (o->block & (WIRE_RING_SIZE - 1));
	const unsigned char *p = buf;

	if (p < b || p > b + o->block_len ||
	    len > o->block_len - (size_t)(p - b))
		return false;
	*at = o->block + (uint32_t)(p - b);
	return true;
}

/*
 * The ring as the buffer of a plain tar's next read (placed.h), from the
 * first header on: the parent is told of the data where it lies, with no
 * copy.  NULL before, or where there is no ring.
 */
static void *
ring_block(void *ctx, size_t *cap)
{
	struct out *o = ctx;
	size_t n;

	if (o->ring == NULL || !o->reads)
		return NULL;
	n = o->span != 0 ? o->span / 4 : SPAN_FIRST / 4;
	if (*cap < n)
		n = *cap;
	o->block = ring_room(o, n);
	o->block_len = 0;
	o->head = o->block;
	o->placed = true;
	*cap = n;
	return o->ring->data + (o->block & (WIRE_RING_SIZE - 1));
}

/* N bytes were read into the block ring_block() gave. */
static void
ring_block_got(void *ctx, size_t n)
{
	struct out *o = ctx;

	o->block_len = n;
	o->head = o->block + (uint32_t)n;
}

/* Send LEN bytes of data at OFFSET: through the ring if there is one. */
static void
send_block(struct out *o, const void *buf, size_t len, int64_t offset,
    uint64_t raw)
{
	unsigned char head[WIRE_HEAD + 24];
	uint32_t at;

	if (o->ring == NULL || len == 0) {
		send_inline(o, buf, len, offset, raw);
		return;
	}
	if (o->placed) {
		if (!read_at(o, buf, len, &at)) {
			/* Not in the block read (libarchive's copy of a
			 * header's tail): by the socket, so that what the
			 * parent holds stays in the ring's order. */
			send_inline(o, buf, len, offset, raw);
			return;
		}
	} else {
		at = ring_room(o, len);
		memcpy(o->ring->data + (at & (WIRE_RING_SIZE - 1)), buf, len);
		o->head = at + (uint32_t)len;
	}
	o->sent = at + (uint32_t)len;
	queue(o, head, wire_put_data_ring(head, offset, raw, at, len));
}

/* Send SIZE bytes at BUF, the data at OFFSET, in blocks of a message. */
static void
send_blocks(struct out *o, const void *buf, size_t size, int64_t offset,
    uint64_t raw)
{
	size_t n;

	do {
		n = size < WIRE_DATA_MAX ? size : WIRE_DATA_MAX;
		send_block(o, buf, n, offset, raw);
		buf = (const char *)buf + n;
		offset += (int64_t)n;
		size -= n;
	} while (size > 0);
}

/* The warnings of the volumes' join (xtr_volumes_note()), sent when
 * they come: a NOTE, or a SKIP for a volume skipped; the parent tells
 * the caller. */
static void
send_note(struct out *o)
{
	static unsigned char m[WIRE_HEAD + 1 + PFX_PATH_MAX];
	const char *name;
	size_t n;
	int kind;

	while ((name = xtr_volumes_note(o->vols, &kind)) != NULL) {
		if (kind == XTR_NOTE_TRUNCATED)
			n = wire_put_note(m, name, strlen(name));
		else
			n = wire_put_skip(m, kind == XTR_NOTE_NOT_CONTINUED ?
			    WIRE_SKIP_OTHER : kind == XTR_NOTE_WRONG_SIZE ?
			    WIRE_SKIP_SIZE : WIRE_SKIP_OFFSET, name,
			    strlen(name));
		if (n > 0)
			queue(o, m, n);
	}
}

/*
 * Send the current entry's data (SPAN: begun for it), then DATA_END.
 * Return: 0; -1 when the data could not be read (DATA_END says why; the
 * run ends).  Data that fails its check or cannot be decoded
 * (ARCHIVE_WARN: a zip member's CRC-32, a sparse map the data breaks
 * (reader.h); ARCHIVE_FAILED: an encrypted member) ends only its entry, as
 * without a sandbox (source.c): the parent passes over a refused or
 * excluded entry and goes on, and ends the run on one it was writing.
 */
static int
send_data(struct out *o, struct archive *ar, struct xtr_decoder *dec,
    struct xtr_span *span)
{
	const void *buf;
	size_t size;
	int64_t offset;
	int r;

	for (;;) {
		/* SECURITY: held to what an entry's data is (reader.h): a
		 * sparse map that goes back fails its entry here, not the
		 * channel at the parent's check. */
		r = xtr_reader_data(ar, span, &buf, &size, &offset);
		send_note(o);
		if (r == ARCHIVE_EOF)
			break;
		if (r != ARCHIVE_OK || offset < 0) {
			bool bad = r == ARCHIVE_WARN || r == ARCHIVE_FAILED;

			send_end(o, WIRE_DATA_END, bad ? WIRE_BAD_DATA :
			    WIRE_FATAL, error_of(o, ar), error_text(o, ar,
			    "truncated or corrupt"));
			return bad ? 0 : -1;
		}
		send_blocks(o, buf, size, offset,
		    xtr_reader_raw_bytes(ar, dec, o->kept));
	}
	send_end(o, WIRE_DATA_END, WIRE_OK, 0, NULL);
	return 0;
}

/* Send LIST (LEN bytes), a pax dump list, as the entry's data, then
 * DATA_END. */
static void
send_list(struct out *o, const char *list, size_t len, struct archive *ar,
    struct xtr_decoder *dec)
{
	size_t at = 0, n;

	while (at < len) {
		n = len - at < WIRE_DATA_MAX ? len - at : WIRE_DATA_MAX;
		send_block(o, list + at, n, (la_int64_t)at,
		    xtr_reader_raw_bytes(ar, dec, o->kept));
		at += n;
	}
	send_end(o, WIRE_DATA_END, WIRE_OK, 0, NULL);
}

/*
 * Take AE's pax dump list (-G, paxdump.c) into *LIST, or end the run
 * when its headers cannot be trusted.
 */
static void
take_pax_list(struct out *o, struct archive *ar, struct archive_entry *ae,
    const struct xtr_head *head, char **list, size_t *len)
{
	char text[512];
	const char *reason = NULL;

	if (xtr_paxdump_take(ar, ae, head, list, len, &reason) !=
	    XTR_PAXDUMP_BAD)
		return;
	(void)snprintf(text, sizeof(text), "%s: the dump list of a -H posix "
	    "incremental archive cannot be read: %s",
	    archive_entry_pathname(ae) != NULL ? archive_entry_pathname(ae) :
	    "", reason);
	finish(o, EILSEQ, text);
}

/* Is FD open on a directory? */
static bool
is_dir(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Is FD open on a regular file? */
static bool
is_file(int fd)
{
	struct stat st;

	return fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
}

/*
 * Once, after the first header (or the end) was read: the archive's
 * first bytes, when they are its own, for the parent to read a GNU
 * volume label from (label.c).
 */
static void
send_label(struct out *o, const struct xtr_head *head, bool *sent,
    const struct pfx_options *opt)
{
	static unsigned char m[WIRE_HEAD + WIRE_LABEL_MAX];
	const char *why;

	if (*sent)
		return;
	*sent = true;
	/* The parent cannot tell unseen bytes from no label: a label it
	 * must read fails here, as label.c fails it without a sandbox. */
	why = head->unseen ? xtr_label_unseen(opt) : NULL;
	if (why != NULL)
		finish(o, EINVAL, why);
	if (head->unseen || head->len == 0)
		return;
	queue(o, m, wire_put_label(m, head->buf, head->len));
}

/* The CPUs the decoder process may use, as the parent counted them. */
static unsigned int child_cpus = 1;

/*
 * Is what follows the archive's end read to its end (a pipe's or
 * socket's, so that its writer is not killed by SIGPIPE)?  Not when a
 * terminal or device is relayed through a pipe (xtr_child_main()): read
 * to their end, /dev/zero never ends and a terminal waits for ^D.
 */
static bool drain_ok = true;

/* Send the current zip entry's data, then DATA_END.  Return: 0, or -1
 * when it could not be read (the run ends). */
static int
send_zip_data(struct out *o, struct xtr_zip *zip)
{
	const void *buf;
	size_t size;
	int64_t offset;
	const char *text;
	int r, e;

	for (;;) {
		r = xtr_zip_data(zip, &buf, &size, &offset);
		if (r == ARCHIVE_EOF)
			break;
		if (r != ARCHIVE_OK) {
			text = xtr_zip_error(zip, &e);
			send_end(o, WIRE_DATA_END, r == ARCHIVE_WARN ?
			    WIRE_BAD_DATA : WIRE_FATAL, e, text);
			return r == ARCHIVE_WARN ? 0 : -1;
		}
		send_blocks(o, buf, size, offset, xtr_zip_raw(zip));
	}
	send_end(o, WIRE_DATA_END, WIRE_OK, 0, NULL);
	return 0;
}

/* decode_all() for a zip our reader took.  Never returns. */
static void __attribute__((noreturn))
decode_zip(struct out *o, struct xtr_zip *zip)
{
	unsigned char m[WIRE_HEAD + 8];
	struct archive_entry *ae;
	struct place pl;
	int r, e;

	ae = archive_entry_new();
	o->cap = 64u << 10;
	o->buf = malloc(o->cap);
	if (ae == NULL || o->buf == NULL)
		finish(o, ENOMEM, strerror(ENOMEM));
	pl.format = ARCHIVE_FORMAT_ZIP;
	pl.warn = XTR_WARN_NONE;
	for (;;) {
		r = xtr_zip_next(zip, ae);
		if (r == ARCHIVE_EOF)
			break;
		if (r != ARCHIVE_OK) {
			const char *text = xtr_zip_error(zip, &e);

			finish(o, e, text);
		}
		pl.raw = xtr_zip_raw(zip);
		pl.pos = xtr_zip_header_pos(zip);
		r = send_header(o, &pl, ae);
		if (r < 0)
			finish(o, -r, r == -E2BIG ? "an entry's header is "
			    "larger than the 4 MiB a decoder process may send" :
			    strerror(-r));
		if (send_zip_data(o, zip) < 0)
			finish(o, e = 0, xtr_zip_error(zip, &e));
	}
	queue(o, m, wire_put_total(m, xtr_zip_archive_bytes(zip)));
	send_end(o, WIRE_END, WIRE_OK, 0, NULL);
	xtr_zip_free(zip);
	_exit(0);
}

/* Read the archive and send it all; then END.  Never returns. */
static void __attribute__((noreturn))
decode_all(int fd, struct wire_ring *ring, const struct pfx_input *in,
    const struct pfx_options *opt, unsigned int dec_flags,
    const struct xtr_dec_mem *mem)
{
	static struct out o;	/* the queue: too big for the stack */
	static struct xtr_head head;	/* the archive's first bytes */
	static struct xtr_cpio_walk walk;	/* libarchive's cpio list */
	static const struct xtr_read_place place = { ring_block,
	    ring_block_got, &o };
	unsigned char m[WIRE_HEAD + 8];
	bool label_sent = false;
	bool entry = false;		/* a header read, its data not skipped */
	char *pax = NULL;		/* a pax dump list (-G) */
	size_t pax_len = 0;
	uint64_t total;			/* the archive's bytes, at its end */
	struct xtr_decoder *dec;
	struct xtr_volumes *vols;
	struct archive_entry *ae;
	struct archive *ar;
	struct xtr_zip *zip;
	struct xtr_span span;
	struct place pl;
	char msg[256];
	bool list = (opt->flags & PFX_OPT_LIST) != 0;
	bool label_only = (opt->flags & PFX_OPT_LABEL_ONLY) != 0;
	int r;

	o.fd = fd;
	o.ring = ring;
	walk.max_links = opt->limits.max_links;
	/* A buffer or a regular file never keeps the decoder waiting. */
	o.lazy = in->buf != NULL || is_file(in->fd);
	o.full = QUEUE_FIRST;
	/* A zip of the common kind: our reader, on every CPU. */
	switch (xtr_zip_open(in, opt, XTR_READ_FLAGS(opt), child_cpus, &zip,
	    msg, sizeof(msg), &r)) {
	case ZIP_OURS:
		decode_zip(&o, zip);
		/* NOTREACHED */
	case ZIP_HOSTILE:
		finish(&o, r, msg);
	}
	/* -G: the stream's last bytes, for pax dump lists. */
	if ((opt->flags & PFX_OPT_INCREMENTAL) != 0 &&
	    (head.window = xtr_paxdump_window()) == NULL)
		finish(&o, ENOMEM, "cannot keep the stream's last bytes for -G");
	ar = xtr_reader_open_head(in, opt->formats, NULL,
	    XTR_READ_FLAGS(opt) | dec_flags, mem, &dec, &vols, &head,
	    ring != NULL ? &place : NULL, msg, sizeof(msg), &r);
	if (ar == NULL)
		finish(&o, r, msg);
	o.vols = vols;
	o.kept = &head;
	ae = archive_entry_new();
	o.cap = 64u << 10;
	o.buf = malloc(o.cap);
	if (ae == NULL || o.buf == NULL)
		finish(&o, ENOMEM, strerror(ENOMEM));
	for (;;) {
		/* SECURITY: each entry's headers counted (reader.h); the
		 * last entry's data left unread (a listing's, a pax dump
		 * list's) skipped first. */
		r = xtr_reader_next(ar, &head, &walk, &entry, ae);
		send_note(&o);
		/* --test-label: the label even before a damaged header,
		 * and nothing after it (engine.c read_label()). */
		if (r == ARCHIVE_OK || r == ARCHIVE_WARN || r == ARCHIVE_EOF ||
		    label_only)
			send_label(&o, &head, &label_sent, opt);
		if (r == ARCHIVE_EOF || (label_only &&
		    (r == ARCHIVE_OK || r == ARCHIVE_WARN)))
			break;
		/* RETRY too: see engine.c read_all(). */
		if (r != ARCHIVE_OK && r != ARCHIVE_WARN)
			finish(&o, error_of(&o, ar), error_text(&o, ar,
			    "truncated or "
			    "corrupt (the decoder gave no detail)"));
		/* A plain tar's data lies in the blocks read as they are:
		 * they are read into the ring from now on (ring_block()). */
		if (archive_filter_count(ar) <= 1 && (archive_format(ar) &
		    ARCHIVE_FORMAT_BASE_MASK) == ARCHIVE_FORMAT_TAR)
			o.reads = true;
		take_pax_list(&o, ar, ae, &head, &pax, &pax_len);
		pl = ar_place(ar, dec, vols, &head);
		if (r == ARCHIVE_WARN)
			pl.warn = xtr_reader_warning(ar);
		r = send_header(&o, &pl, ae);
		if (r < 0)
			finish(&o, -r, r == -E2BIG ? "an entry's header is "
			    "larger than the 4 MiB a decoder process may send" :
			    strerror(-r));
		if (pax != NULL) {
			send_list(&o, pax, pax_len, ar, dec);
			free(pax);
			pax = NULL;
			continue;
		}
		/* A listing needs no data, and a plain stream is skipped
		 * without decoding; a compressed one is decoded to be
		 * skipped, and the parent counts what it costs. */
		if (list && dec == NULL && archive_filter_count(ar) <= 1 &&
		    !head.staged && !dumpdir_listed(opt, ae)) {
			send_end(&o, WIRE_DATA_END, WIRE_OK, 0, NULL);
			continue;
		}
		xtr_span_begin(&span, ae);
		if (send_data(&o, ar, dec, &span) < 0)
			finish(&o, error_of(&o, ar), error_text(&o, ar,
			    "truncated or corrupt"));
	}
	/*
	 * The archive ended well: what follows it in a pipe is read and
	 * dropped before END, so that its writer ends well too (not of
	 * SIGPIPE); the parent writes what it was sent meanwhile.  Reading
	 * costs no CPU, but the stall timer is given its seconds again at
	 * each read; a writer that stalls is the parent's idle timeout's.
	 */
	total = xtr_volumes_physical(vols, xtr_reader_archive_bytes(ar));
	queue(&o, m, wire_put_total(m, total));
	flush(&o);
	(void)xtr_input_drain(!drain_ok ? -1 : vols != NULL ?
	    xtr_volumes_fd(vols) : in->buf == NULL ? in->fd : -1, total, dec,
	    NULL, arm_stall);
	send_end(&o, WIRE_END, WIRE_OK, 0, NULL);
	/* Our decoder thread is stopped by now; the memory is the
	 * kernel's to free, and sooner. */
	archive_read_free(ar);
	xtr_volumes_free(vols);
	_exit(0);
}

/* Every signal back to its default action, none blocked; SIGPIPE
 * ignored, so that a parent gone is an error of send(2). */
static void
reset_signals(void)
{
	struct sigaction sa;
	sigset_t none;
	int sig;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	(void)sigemptyset(&sa.sa_mask);
	for (sig = 1; sig < SIG_LIMIT; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			(void)sigaction(sig, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	(void)sigaction(SIGPIPE, &sa, NULL);
	(void)sigemptyset(&none);
	(void)pthread_sigmask(SIG_SETMASK, &none, NULL);
}

/*
 * fork(2) copies the caller's locks as they stand: one that another of
 * its threads held then stays held here for ever, by no one.  glibc's
 * lock of iconv(3)'s tables is one that no fork handler releases, and
 * libarchive takes it (iconv_open(3)) to convert an archive's UTF-8 or
 * UTF-16 names into a locale that is not UTF-8 ("C").  So take it once,
 * first, under a timer: held, SIGALRM ends this process before it did
 * anything, and the parent forks again (remote.c); free, this process,
 * one thread, never waits for it later.  Then say so on READY.
 */
static void
take_iconv_lock(int ready)
{
	struct sigaction sa;
	struct itimerval t;
	sigset_t alrm;
	iconv_t cd;
	char ok = 1;

	/* Before reset_signals(), which costs a system call a signal:
	 * the parent waits for this. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	(void)sigemptyset(&sa.sa_mask);
	(void)sigaction(SIGALRM, &sa, NULL);
	(void)sigemptyset(&alrm);
	(void)sigaddset(&alrm, SIGALRM);
	(void)pthread_sigmask(SIG_UNBLOCK, &alrm, NULL);
	memset(&t, 0, sizeof(t));
	t.it_value.tv_usec = XTR_CHILD_PROBE_MS * 1000;
	(void)setitimer(ITIMER_REAL, &t, NULL);
	cd = iconv_open(nl_langinfo(CODESET), "UTF-8");
	if (cd != (iconv_t)-1)
		(void)iconv_close(cd);
	memset(&t, 0, sizeof(t));
	(void)setitimer(ITIMER_REAL, &t, NULL);
	while (send(ready, &ok, 1, MSG_NOSIGNAL) == -1 && errno == EINTR)
		;
	(void)close(ready);
}

/*
 * The tasks a decoder process may hold (plat_os_bound_tasks()): itself,
 * its decoding thread, xz's threads and a zip's pool (one a CPU each, at
 * most), and room for a sanitizer's.
 */
#define XTR_DECODER_TASKS(cpus) (2u * (cpus) + 16u)

_Static_assert(1 + PFX_MAX_VOLUMES <= PLAT_RELAY_MAX,
    "the relay takes the archive and every volume");

/* see child.h */
void
xtr_child_main(int fd, int ready, pid_t parent, struct wire_ring *ring,
    const struct pfx_input *in, const struct pfx_options *opt,
    unsigned int dec_flags, unsigned int cpus)
{
	unsigned char m[WIRE_CONFINED_LEN + 8 + WIRE_TEXT_MAX];
	struct pfx_sandbox_info info;
	struct pfx_input input = *in;
	struct xtr_dec_mem mem;
	char msg[WIRE_TEXT_MAX];
	unsigned int flags = PFX_SANDBOX_NO_DEST;
	int keep[1 + PFX_MAX_VOLUMES], vols[PFX_MAX_VOLUMES];
	int n = 1, r, open_err = 0;
	size_t i, nvol = 0;
	pid_t self = getpid(), up;

	take_iconv_lock(ready);
	reset_signals();
#ifdef PR_SET_PDEATHSIG
	/* Where the kernel can: the child dies with its parent. */
	(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
	if (getppid() != parent)
		_exit(1);
	/*
	 * Its own session, so its own process group: the parent ends it
	 * and all it made.  SECURITY: and no controlling terminal, whose
	 * input a process taken over could otherwise fill (TIOCSTI, which
	 * the filter refuses too) or whose settings it could change.
	 */
	(void)setsid();

	/* The input, read-only, before anything is closed or confined. */
	keep[0] = fd;
	if (in->path != NULL || (in->buf == NULL && in->fd >= 0)) {
		r = in->path != NULL ? pfx_input_open(in->path) :
		    plat_input_readonly(in->fd);
		/* As in-process reading says it (reader.c): by its name,
		 * or as "input" (a directory as standard input, which read
		 * as an empty archive here). */
		if (r >= 0 && is_dir(r)) {
			(void)close(r);
			r = -EISDIR;
		}
		if (r >= 0)
			keep[n++] = r;
		else
			open_err = -r;
	}
	/* tar -M: the later volumes too (reader.c checks the count). */
	if ((opt->flags & PFX_OPT_MULTI_VOLUME) != 0 && n > 1)
		nvol = in->nvolumes < PFX_MAX_VOLUMES && in->volumes != NULL ?
		    in->nvolumes : 0;
	/* One the caller could not open (-errno) stays so: the reader
	 * fails on it if the archive reaches it.  VOLS: where each is in
	 * KEEP, or that -errno. */
	for (i = 0; i < nvol && open_err == 0; i++) {
		r = in->volumes[i] < 0 ? in->volumes[i] :
		    plat_input_readonly(in->volumes[i]);
		if (r >= 0 && is_dir(r)) {
			(void)close(r);
			r = -EISDIR;	/* as the archive: not "empty" */
		}
		vols[i] = r >= 0 ? n : r;
		if (r >= 0)
			keep[n++] = r;
	}
	/*
	 * SECURITY: an input that this process could write through or act
	 * on as a device (a socket that is also stdout, a terminal) is read
	 * by a relay that parses nothing: this process goes on as its
	 * child, with a pipe in its place.
	 */
	for (i = 1; i < (size_t)n; i++)
		if (plat_input_needs_relay(keep[i]) &&
		    !xtr_input_drained(keep[i]))
			drain_ok = false;
	r = plat_input_relay(keep + 1, (size_t)(n - 1));
	if (r == 0 && getpid() != self) {
#ifdef PR_SET_PDEATHSIG
		(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
		if (getppid() != self)
			_exit(1);
	}
	if (r == 0)
		r = plat_child_fds(keep, n);
	fd = keep[0];	/* the socket, whether or not it moved */
	/* Told as a confinement that failed (EMFILE, say). */
	if (r < 0)
		refuse_confined(fd, r, NULL);
	input.path = NULL;
	if (in->buf == NULL)
		input.fd = n > 1 ? keep[1] : -1;
	for (i = 0; i < nvol; i++)
		if (vols[i] >= 0)
			vols[i] = keep[vols[i]];
	input.volumes = nvol > 0 && open_err == 0 ? vols : NULL;

	/* The parent counted the CPUs, before any sandbox hid the cgroup. */
	child_cpus = cpus;
	xtr_dec_mem_of(&opt->limits, child_cpus, &mem);
	/*
	 * SECURITY: what the decoders may allocate for a hostile archive (a
	 * zip's central directory, a pax header, a 7z header, an xz
	 * dictionary) is bounded: the run's memory budget, which bounds
	 * xz's threads too, their stacks, and room for buffers of fixed
	 * size (xtr_decoder_rlimit()).  The filter keeps the child from
	 * raising it.  Not under a sanitizer, whose shadow memory counts:
	 * the library's, or the caller's (a ThreadSanitizer build of an
	 * installer, with this library built plainly).
	 */
	if (xtr_decoder_rlimit(&opt->limits, &mem) != 0 && !plat_sanitized()) {
		struct rlimit rl;
		uint64_t lim = xtr_decoder_rlimit(&opt->limits, &mem);
		uint64_t had = plat_os_data_size();

		/* Over what this process inherited from its caller (a
		 * library's host may hold gigabytes): the budget is for what
		 * decoding takes. */
		lim = had > UINT64_MAX - lim ? UINT64_MAX : lim + had;
		rl.rlim_cur = (rlim_t)lim;
		rl.rlim_max = rl.rlim_cur;
		(void)setrlimit(RLIMIT_DATA, &rl);
	}
	/*
	 * SECURITY: the caller's memory that another process or a file
	 * shares (a database's pages mapped MAP_SHARED from a descriptor
	 * open for writing: a store through it, after an mprotect(2), is a
	 * write to the file) goes before anything is decoded; no Landlock
	 * rule or filter sees such writes.  Only the ring stays.  Where
	 * the maps cannot be read (no /proc), a gap in the sandbox: fatal
	 * when it is required, as the others are.
	 */
	r = plat_os_unmap_shared(ring, ring != NULL ? sizeof(*ring) : 0,
	    in->buf, in->buf != NULL ? in->len : 0);
	/* The caller's buffer is such memory: it cannot be read safely. */
	if (r == -EBUSY || (r < 0 &&
	    (opt->flags & PFX_OPT_SANDBOX_REQUIRE) != 0))
		refuse_confined(fd, r, "cannot unmap shared memory");
	/*
	 * SECURITY: a bounded number of threads (plat_os_bound_tasks()):
	 * what decoding starts (a thread, xz's and a zip's, one a CPU
	 * each) and room; a decoder taken over that started threads
	 * until the kernel's threads-max left no process on the machine
	 * able to fork, until a deadline ended it.  After /proc is read
	 * (the new identity cannot), before the capabilities go (root's
	 * change of identity needs them).  A failure is a gap in the
	 * sandbox: fatal when it is required, as the others.
	 */
	up = getppid();		/* ours, or the relay */
	r = plat_os_bound_tasks(XTR_DECODER_TASKS(child_cpus));
#ifdef PR_SET_PDEATHSIG
	(void)prctl(PR_SET_PDEATHSIG, SIGKILL);	/* cleared by a new id */
#endif
	if (getppid() != up)
		_exit(1);
	if (r < 0 && (opt->flags & PFX_OPT_SANDBOX_REQUIRE) != 0)
		refuse_confined(fd, r, "cannot bound its threads");
	/*
	 * SECURITY: no privilege left to the code that parses: root's
	 * capabilities and scheduling rights (plat_os_drop_privileges()).
	 * After the memory limit, which it may have raised.  A failure is
	 * a gap in the sandbox: fatal when it is required, as the others.
	 */
	r = plat_os_drop_privileges();
	if (r < 0 && (opt->flags & PFX_OPT_SANDBOX_REQUIRE) != 0)
		refuse_confined(fd, r, "cannot drop privileges");
	/* SECURITY: confined before the first archive byte is read. */
	if ((opt->flags & PFX_OPT_SANDBOX_REQUIRE) != 0)
		flags |= PFX_SANDBOX_REQUIRE;
	r = plat_sandbox_confine(-1, flags, PLAT_SANDBOX_DECODER, &info);
	send_buf(fd, m, wire_put_confined(m, r, &info));
	if (r < 0)
		_exit(0);
	stall_s = opt->stall_timeout;
	arm_stall();
#ifdef PFX_HOSTILE_TEST
	xtr_hostile(fd);
#endif
	/* A descriptor that cannot be read: as in-process reading says
	 * it (reader.c), a read that failed. */
	if (open_err == EBADF && in->path == NULL) {
		send_buf(fd, m, wire_put_end(m, WIRE_END, WIRE_FATAL, EIO,
		    "cannot read archive: " XTR_INPUT_UNREADABLE));
		_exit(0);
	}
	if (open_err != 0) {
		(void)snprintf(msg, sizeof(msg), "%s: cannot open archive: "
		    "%s", in->path != NULL ? in->path : "input",
		    strerror(open_err));
		send_buf(fd, m, wire_put_end(m, WIRE_END, WIRE_FATAL, open_err,
		    msg));
		_exit(0);
	}
	decode_all(fd, ring, &input, opt, dec_flags, &mem);
}
