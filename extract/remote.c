/*
 * remote.c -- the calling process's side of the decoder process: start
 * it, read what it sends, check every message against the contract
 * (wire.h), and end it, within deadlines, whatever it does.
 *
 * The engine reads entries from here as it would from libarchive
 * (source.c); it judges and writes them itself.  Nothing the child sends
 * reaches a hook or the result unchecked: a header becomes an archive
 * entry that the core judges like any other, and a message that breaks
 * the contract (a length, a type, a boolean, a NUL in a name, data out of
 * order, a block outside the ring) ends the run as a protocol error.
 *
 * SECURITY: the parent owns the child's whole life.  Every wait here is
 * a poll(2) with a timeout: an overall deadline (pfx_options.timeout), an
 * idle one (idle_timeout: nothing received while it waits), the caller's
 * cancel flag looked at every POLL_MS.  The child gets SIGTERM, then
 * SIGKILL after GRACE_MS; its process group is killed before it is
 * reaped (so its pid, the group's id, cannot have been reused), and the
 * call never returns while the child may still run -- except when the
 * kernel does not let a SIGKILLed process die (then the message says
 * so).
 */
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <poll.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

#include <archive.h>
#include <archive_entry.h>

#include "child.h"
#include "notes.h"
#include "platform.h"
#include "remote.h"
#include "wire.h"

/* How often a wait looks at the cancel flag and the child's state. */
#define POLL_MS		100
/* How long a child that sent its END may take to exit, and one that
 * was told to stop (SIGTERM) to do so, before SIGKILL. */
#define EXIT_GRACE_MS	2000
#define STOP_GRACE_MS	1000
/* How long a SIGKILLed child may take to be reaped. */
#define REAP_MS		5000

/* The socket's buffers: the decoder runs ahead of the writer by this. */
#define SOCK_BUF	(1 << 20)

/* The first read buffer; grown to a whole message when one needs it. */
#define BUF_START	(1u << 20)

enum state {
	S_START,	/* CONFINED expected */
	S_BETWEEN,	/* HEADER or END expected */
	S_ENTRY,	/* DATA or DATA_END expected */
	S_DONE,		/* END received */
	S_BROKEN	/* the channel failed: nothing more is read */
};

struct xtr_remote {
	int fd;
	pid_t pid;		/* -1: no child (xtr_remote_open_fd) */
	const char *who;	/* the sender, in messages */
	int pidfd;		/* -1: none; waitpid(WNOHANG) is polled */
	bool reaped;
	bool reaped_elsewhere;	/* by the host: WSTATUS is not known */
	int wstatus;
	const volatile sig_atomic_t *cancel;
	struct timespec start;	/* CLOCK_MONOTONIC */
	unsigned int timeout, idle;	/* seconds; 0: none */
	unsigned int stall;		/* CPU seconds; 0: none */
	uint64_t raw_max;	/* the input's size when known */

	unsigned char *buf;
	size_t cap, at, len;	/* unread bytes: buf[at, len) */

	struct wire_ring *ring;	/* shared with the child (data), or NULL */
	uint32_t release;	/* the ring count to hand back ... */
	bool holding;		/* ... once the engine is done with a block */

	enum state state;
	int format;
	uint64_t raw;
	uint64_t sent;		/* bytes of every message taken, and of
				   the ring blocks they placed */
	int64_t header_pos;	/* the entry's, or -1 */
	struct xtr_head head;	/* LABEL's bytes: the archive's first */
	bool label_seen;	/* LABEL came */
	bool header_seen;	/* a HEADER came: no LABEL after it */
	uint64_t archive_bytes;	/* TOTAL's count */
	bool total_seen;
	bool sparse;
	enum xtr_header_warn warn;	/* the header's WIRE_DAMAGED or
					   WIRE_UNCONVERTED */
	int64_t data_end;	/* where the entry's last block ended */
	/* scratch for a header's strings, terminated */
	char *str;
	size_t str_cap;

	char note[PFX_PATH_MAX + 1];	/* scratch for a NOTE's name */
	struct xtr_notes notes;	/* NOTEs and SKIPs, until taken
				   (xtr_remote_note()) */

	int error;		/* the last error's errno */
	bool channel;		/* ... a failure of the child, not of the
				   archive it read */
	char text[512];
};

static long
ms_since(const struct timespec *t)
{
	struct timespec now;

	(void)clock_gettime(CLOCK_MONOTONIC, &now);
	return (long)(now.tv_sec - t->tv_sec) * 1000 +
	    (now.tv_nsec - t->tv_nsec) / 1000000;
}

/* Record a failure of the channel, and break it.  Return: FATAL. */
static int
broken(struct xtr_remote *rm, int error, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
broken(struct xtr_remote *rm, int error, const char *fmt, ...)
{
	va_list ap;

	if (rm->state == S_BROKEN)
		return ARCHIVE_FATAL;	/* the first failure is the one */
	rm->state = S_BROKEN;
	rm->error = error;
	rm->channel = true;
	va_start(ap, fmt);
	(void)vsnprintf(rm->text, sizeof(rm->text), fmt, ap);
	va_end(ap);
	return ARCHIVE_FATAL;
}

static int
protocol(struct xtr_remote *rm, const char *what)
{
	return broken(rm, EPROTO, "protocol error from %s: %s", rm->who,
	    what);
}

/* Has the child ended?  Reaps it if so.  Return: true or false. */
static bool
child_ended(struct xtr_remote *rm)
{
	pid_t r;

	if (rm->pid < 0 || rm->reaped)
		return true;
	do {
		r = waitpid(rm->pid, &rm->wstatus, WNOHANG);
	} while (r == -1 && errno == EINTR);
	if (r == -1 && errno == ECHILD)
		rm->reaped_elsewhere = true;
	if (r == rm->pid || rm->reaped_elsewhere)
		rm->reaped = true;
	return rm->reaped;
}

/* Wait up to MS for the child to end (and reap it).  Return: ended? */
static bool
wait_child(struct xtr_remote *rm, long ms)
{
	struct timespec t0;
	struct pollfd p;

	(void)clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!child_ended(rm)) {
		long left = ms - ms_since(&t0);

		if (left <= 0)
			return false;
		if (rm->pidfd >= 0) {
			p.fd = rm->pidfd;
			p.events = POLLIN;
			p.revents = 0;
			(void)poll(&p, 1, (int)(left < POLL_MS ? left :
			    POLL_MS));
		} else {
			struct timespec nap = { 0, 10 * 1000000L };

			(void)nanosleep(&nap, NULL);
		}
	}
	return true;
}

/* Say in RM's text how the child ended without finishing. */
static int
child_gone(struct xtr_remote *rm)
{
	if (rm->pid < 0)
		return protocol(rm, "the channel ended before the archive "
		    "did");
	(void)wait_child(rm, STOP_GRACE_MS);
	if (rm->reaped_elsewhere)
		return broken(rm, ECHILD, "the decoder process ended before "
		    "the end of the archive, and was reaped by another part "
		    "of the program (a SIGCHLD handler?): how it ended is "
		    "not known");
	if (rm->reaped && WIFSIGNALED(rm->wstatus) &&
	    WTERMSIG(rm->wstatus) == SIGPROF && rm->stall != 0)
		return broken(rm, ETIMEDOUT, "the decoder process spent %u s "
		    "of CPU without giving an entry or data: a reader that "
		    "loops (pfx_options.stall_timeout)", rm->stall);
	if (rm->reaped && WIFSIGNALED(rm->wstatus))
		return broken(rm, ECHILD, "the decoder process was killed by "
		    "signal %d (%s) before the end of the archive",
		    WTERMSIG(rm->wstatus), strsignal(WTERMSIG(rm->wstatus)));
	/*
	 * Status 1 with the channel whole: libarchive's own end where an
	 * allocation fails (__archive_errx(1, "Out of memory"), its message
	 * on the decoder process's closed standard error), which an archive
	 * that needs more than RLIMIT_DATA brings about.  Said so, not as a
	 * bare status.
	 */
	if (rm->reaped && WIFEXITED(rm->wstatus) &&
	    WEXITSTATUS(rm->wstatus) == 1)
		return broken(rm, ENOMEM, "the decoder process exited with "
		    "status 1 before the end of the archive: libarchive ends "
		    "so when it runs out of memory, here past the decoder "
		    "process's limit (pfx_options.limits.max_memory, and "
		    "512 MiB)");
	if (rm->reaped && WIFEXITED(rm->wstatus))
		return broken(rm, ECHILD, "the decoder process exited with "
		    "status %d before the end of the archive",
		    WEXITSTATUS(rm->wstatus));
	return broken(rm, ECHILD, "%s ended its channel before the end of "
	    "the archive", rm->who);
}

/*
 * Wait until FD has bytes, within the deadlines; the sender is idle
 * since SINCE.  Return: 0, or FATAL (the channel broken: deadline,
 * cancel, or the child gone while another process still holds its end
 * of the socket).
 */
static int
wait_bytes(struct xtr_remote *rm, const struct timespec *since)
{
	struct pollfd p[2];
	long left, step;
	int n;

	for (;;) {
		if (rm->cancel != NULL && *rm->cancel != 0)
			return broken(rm, ECANCELED, "interrupted");
		if (rm->timeout != 0 && ms_since(&rm->start) >=
		    (long)rm->timeout * 1000)
			return broken(rm, ETIMEDOUT, "time limit of %u s "
			    "reached (pfx_options.timeout)", rm->timeout);
		step = POLL_MS;
		if (rm->idle != 0) {
			left = (long)rm->idle * 1000 - ms_since(since);
			if (left <= 0)
				return broken(rm, ETIMEDOUT, "%s sent "
				    "nothing for %u s "
				    "(pfx_options.idle_timeout)", rm->who,
				    rm->idle);
			if (left < step)
				step = left;
		}
		p[0].fd = rm->fd;
		p[0].events = POLLIN;
		p[1].fd = rm->pidfd;
		p[1].events = POLLIN;
		p[0].revents = p[1].revents = 0;
		n = poll(p, rm->pidfd >= 0 ? 2 : 1, (int)step);
		if (n < 0 && errno != EINTR)
			return broken(rm, errno, "cannot wait for the decoder "
			    "process: %s", strerror(errno));
		if (n > 0 && p[0].revents != 0)
			return 0;
		/* SECURITY: the child is gone but its socket is held open
		 * (by a descendant): nothing more can be trusted to come. */
		if ((n > 0 && p[1].revents != 0) ||
		    (rm->pidfd < 0 && rm->pid >= 0 && child_ended(rm)))
			return child_gone(rm);
	}
}

/* Have NEED unread bytes in the buffer.  Return: 0, or FATAL. */
static int
fill(struct xtr_remote *rm, size_t need)
{
	struct timespec since;
	bool waiting = false;
	ssize_t n;

	if (rm->cap - rm->at < need) {
		size_t cap = need > BUF_START ? WIRE_HEAD + WIRE_MSG_MAX :
		    BUF_START;
		unsigned char *b;

		if (cap > rm->cap) {
			b = realloc(rm->buf, cap);
			if (b == NULL)
				return broken(rm, ENOMEM, "%s",
				    strerror(ENOMEM));
			rm->buf = b;
			rm->cap = cap;
		}
	}
	if (rm->cap - rm->at < need) {
		memmove(rm->buf, rm->buf + rm->at, rm->len - rm->at);
		rm->len -= rm->at;
		rm->at = 0;
	}
	while (rm->len - rm->at < need) {
		/* What is there already is taken without a poll(2). */
		n = rm->pid >= 0 ? recv(rm->fd, rm->buf + rm->len,
		    rm->cap - rm->len, MSG_DONTWAIT) : -1;
		if (n < 0 && (rm->pid < 0 || errno == EAGAIN ||
		    errno == EWOULDBLOCK || errno == EINTR)) {
			/* Idle counts from when this fill began to wait, not
			 * from the last bytes read: the time the run spent
			 * in between (a hook that asks its user, a slow
			 * disk) is not the sender's silence -- the next
			 * entry of a pfx_writer_*() caller may be waiting in
			 * the socket all along.  Nothing unread is left
			 * behind by this: a child's bytes are taken without
			 * a wait, and readable ones end it at once. */
			if (!waiting)
				(void)clock_gettime(CLOCK_MONOTONIC, &since);
			waiting = true;
			if (wait_bytes(rm, &since) != 0)
				return ARCHIVE_FATAL;
			/*
			 * SECURITY: the child's socket is never read with a
			 * wait, even once poll(2) said it is readable: a
			 * byte sent out of band (MSG_OOB) makes it so, and
			 * read(2) drops that byte and then waits, past every
			 * deadline, for bytes a child taken over never sends.
			 * Back to recv(MSG_DONTWAIT), and to poll(2) with
			 * the same idle start if nothing came.
			 */
			if (rm->pid >= 0)
				continue;
			n = read(rm->fd, rm->buf + rm->len,
			    rm->cap - rm->len);
		}
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0)
			return broken(rm, errno, "cannot read from %s: %s",
			    rm->who, strerror(errno));
		if (n == 0)
			return child_gone(rm);
		rm->len += (size_t)n;
		waiting = false;
	}
	return 0;
}

/* Read the next message, NOTE or not.  Return: its type, or FATAL. */
static int
next_raw(struct xtr_remote *rm, const unsigned char **body, size_t *len)
{
	long n;
	int type;

	if (rm->state == S_BROKEN || fill(rm, WIRE_HEAD) != 0)
		return ARCHIVE_FATAL;
	n = wire_body_len(rm->buf + rm->at, &type);
	if (n < 0)
		return protocol(rm, "a message longer than the contract's "
		    "4 MiB");
	/* The head stays in the buffer until the body is whole. */
	if (fill(rm, WIRE_HEAD + (size_t)n) != 0)
		return ARCHIVE_FATAL;
	*body = rm->buf + rm->at + WIRE_HEAD;
	*len = (size_t)n;
	rm->at += WIRE_HEAD + (size_t)n;
	rm->sent += WIRE_HEAD + (uint64_t)n;
	return type;
}

/* Queue the NOTE or SKIP (TYPE) BODY of LEN bytes.  Return: 0, or
 * -EINVAL (malformed, or more than PFX_MAX_VOLUMES), -ENOMEM. */
static int
take_note(struct xtr_remote *rm, int type, const unsigned char *body,
    size_t len)
{
	int why = 0;

	if (type == WIRE_NOTE ? wire_get_note(body, len, rm->note) < 0 :
	    wire_get_skip(body, len, &why, rm->note) < 0)
		return -EINVAL;
	return xtr_notes_add(&rm->notes, type == WIRE_NOTE ?
	    XTR_NOTE_TRUNCATED : why == WIRE_SKIP_OTHER ?
	    XTR_NOTE_NOT_CONTINUED : why == WIRE_SKIP_SIZE ?
	    XTR_NOTE_WRONG_SIZE : XTR_NOTE_OUT_OF_SEQUENCE, rm->note);
}

/*
 * Read the next message but a NOTE or SKIP: those (after CONFINED, one
 * per later volume at most) are queued for xtr_remote_note(), whatever
 * the message around them.  Return: the type, or FATAL.
 */
static int
next_msg(struct xtr_remote *rm, const unsigned char **body, size_t *len)
{
	int type, r;

	for (;;) {
		type = next_raw(rm, body, len);
		if (type != WIRE_NOTE && type != WIRE_SKIP)
			return type;
		if (rm->state != S_BETWEEN && rm->state != S_ENTRY)
			return protocol(rm, "a malformed note");
		r = take_note(rm, type, *body, *len);
		if (r == -ENOMEM)
			return broken(rm, ENOMEM, "%s", strerror(ENOMEM));
		if (r < 0)
			return protocol(rm, "a malformed note");
	}
}

/*
 * Take the raw count RAW of a message.  It may go back (a zip or 7z
 * reader seeks back to its entries after the directory at the end): the
 * ratio's denominator is the most read so far, never more than the input
 * holds when its size is known.
 */
static void
take_raw(struct xtr_remote *rm, uint64_t raw)
{
	if (raw > rm->raw)
		rm->raw = raw < rm->raw_max ? raw : rm->raw_max;
}

/* A terminated copy of header string I of H, in RM's scratch, at *AT. */
static const char *
terminated(struct xtr_remote *rm, const char *s, size_t len, size_t *at)
{
	char *p = rm->str + *at;

	memcpy(p, s, len);
	p[len] = '\0';
	*at += len + 1;
	return p;
}

/* Make AE the entry H describes.  Return: 0, or FATAL. */
static int
fill_entry(struct xtr_remote *rm, const struct wire_header *h,
    struct archive_entry *ae)
{
	struct wire_xattr x;
	const char *s[WIRE_NSTR];
	size_t need = 0, at = 0, i;
	char *name;

	for (i = 0; i < WIRE_NSTR; i++)
		need += h->len[i] + 1;
	if (need > rm->str_cap) {
		char *p = realloc(rm->str, need);

		if (p == NULL)
			return broken(rm, ENOMEM, "%s", strerror(ENOMEM));
		rm->str = p;
		rm->str_cap = need;
	}
	for (i = 0; i < WIRE_NSTR; i++)
		s[i] = h->str[i] != NULL ? terminated(rm, h->str[i], h->len[i],
		    &at) : NULL;
	archive_entry_clear(ae);
	if (h->filetype != 0)
		archive_entry_set_filetype(ae, h->filetype);
	archive_entry_set_perm(ae, (mode_t)h->perm);
	if ((h->flags & WIRE_SIZE_SET) != 0)
		archive_entry_set_size(ae, h->size);
	else
		archive_entry_unset_size(ae);
	archive_entry_set_mtime(ae, (time_t)h->mtime, (long)h->mtime_nsec);
	if ((h->flags & WIRE_ATIME_SET) != 0)
		archive_entry_set_atime(ae, (time_t)h->atime,
		    (long)h->atime_nsec);
	archive_entry_set_uid(ae, h->uid);
	archive_entry_set_gid(ae, h->gid);
	archive_entry_set_rdevmajor(ae, (dev_t)h->devmajor);
	archive_entry_set_rdevminor(ae, (dev_t)h->devminor);
	if (s[WIRE_NAME] != NULL)
		archive_entry_copy_pathname(ae, s[WIRE_NAME]);
	if (s[WIRE_HARDLINK] != NULL)
		archive_entry_copy_hardlink(ae, s[WIRE_HARDLINK]);
	if (s[WIRE_SYMLINK] != NULL)
		archive_entry_copy_symlink(ae, s[WIRE_SYMLINK]);
	if (s[WIRE_UNAME] != NULL)
		archive_entry_copy_uname(ae, s[WIRE_UNAME]);
	if (s[WIRE_GNAME] != NULL)
		archive_entry_copy_gname(ae, s[WIRE_GNAME]);
	for (i = 0; wire_next_xattr(h, &i, &x) == 1;) {
		name = strndup(x.name, x.name_len);
		if (name == NULL)
			return broken(rm, ENOMEM, "%s", strerror(ENOMEM));
		archive_entry_xattr_add_entry(ae, name, x.value, x.value_len);
		free(name);
	}
	rm->format = h->format;
	rm->header_pos = h->pos;
	rm->sparse = (h->flags & WIRE_SPARSE) != 0;
	rm->warn = (h->flags & WIRE_DAMAGED) != 0 ? XTR_WARN_DAMAGED :
	    (h->flags & WIRE_UNCONVERTED) != 0 ? XTR_WARN_UNCONVERTED :
	    XTR_WARN_NONE;
	rm->data_end = 0;
	return 0;
}

/* Hand the ring's bytes of the last block back to the child. */
static void
release(struct xtr_remote *rm)
{
	if (!rm->holding)
		return;
	rm->holding = false;
	atomic_store(&rm->ring->done, rm->release);
	if (atomic_load(&rm->ring->waiting) != 0 &&
	    (int32_t)(rm->release - atomic_load(&rm->ring->want)) >= 0) {
		atomic_store(&rm->ring->waiting, 0);
		plat_os_wake_word((const uint32_t *)&rm->ring->done);
	}
}

/*
 * Decode a data block of TYPE (DATA or DATA_RING) into D; a ring block
 * is held until release().  Return: 0, or -1 when it is malformed.
 */
static int
get_block(struct xtr_remote *rm, int type, const unsigned char *body,
    size_t len, struct wire_data *d)
{
	if (type == WIRE_DATA)
		return wire_get_data(body, len, d);
	if (rm->ring == NULL || wire_get_data_ring(body, len, rm->ring, d) < 0)
		return -1;
	rm->release = d->at + (uint32_t)d->len;
	rm->holding = true;
	rm->sent += d->len;
	return 0;
}

/*
 * The errno E that the child names for its archive or its confinement.
 * SECURITY: EPROTO is this file's word for a child that broke the
 * contract (protocol(), with a message that says so); a child naming it
 * itself would have its failure told as one, so it is told as EIO.  So
 * is ECANCELED, the caller's own stop (pfx_options.cancel, a hook): the
 * child never sees the caller's flag set, and one that named it would
 * have its failure taken for the caller's ("interrupted").
 */
static int
child_errno(int e)
{
	return e == EPROTO || e == ECANCELED ? EIO : e;
}

/* Take a DATA_END or END body; set the archive's error if it has one.
 * Return: its status, or -1 (protocol error recorded). */
static int
take_end(struct xtr_remote *rm, const unsigned char *body, size_t len)
{
	struct wire_end e;

	if (wire_get_end(body, len, &e, rm->text, sizeof(rm->text)) < 0) {
		(void)protocol(rm, "a malformed end message");
		return -1;
	}
	rm->error = child_errno(e.error);
	rm->channel = false;
	return e.status;
}

/* see remote.h */
int
xtr_remote_next(struct xtr_remote *rm, struct archive_entry *ae)
{
	struct wire_header h;
	const unsigned char *body;
	const void *buf;
	size_t len;
	int64_t off;
	int type, st;

	/* What is left of an entry the engine did not read, checked as if
	 * read: one contract, read or not.  A failed check of the data
	 * is the child's to end with END. */
	while (rm->state == S_ENTRY)
		if (xtr_remote_data(rm, &buf, &len, &off) == ARCHIVE_FATAL &&
		    rm->state == S_BROKEN)
			return ARCHIVE_FATAL;
	release(rm);
	if (rm->state == S_DONE)
		return ARCHIVE_EOF;
	type = next_msg(rm, &body, &len);
	/* LABEL: once, before the first HEADER, TOTAL or END. */
	if (type == WIRE_LABEL) {
		if (rm->label_seen || rm->header_seen ||
		    wire_get_label(body, len) < 0)
			return protocol(rm, "a malformed label message");
		rm->label_seen = true;
		rm->head.len = 0;
		xtr_head_add(&rm->head, body, len);
		type = next_msg(rm, &body, &len);
	}
	rm->header_seen = true;
	/* TOTAL: once, and only right before the END of an archive that
	 * ended well (checked there). */
	if (type == WIRE_TOTAL) {
		if (rm->total_seen || wire_get_total(body, len,
		    &rm->archive_bytes) < 0)
			return protocol(rm, "a malformed total message");
		rm->total_seen = true;
		type = next_msg(rm, &body, &len);
		if (type != WIRE_END && type != ARCHIVE_FATAL)
			return protocol(rm, "a message out of order");
	}
	if (type == ARCHIVE_FATAL)
		return ARCHIVE_FATAL;
	if (type == WIRE_END) {
		st = take_end(rm, body, len);
		if (st < 0 || st == WIRE_BAD_DATA ||
		    (rm->total_seen && st != WIRE_OK))
			return st < 0 ? ARCHIVE_FATAL :
			    protocol(rm, "a malformed end message");
		rm->state = S_DONE;
		return st == WIRE_OK ? ARCHIVE_EOF : ARCHIVE_FATAL;
	}
	if (type != WIRE_HEADER)
		return protocol(rm, "a message out of order");
	if (wire_get_header(body, len, &h) < 0)
		return protocol(rm, "a malformed entry header");
	take_raw(rm, h.raw);
	if (fill_entry(rm, &h, ae) != 0)
		return ARCHIVE_FATAL;
	rm->state = S_ENTRY;
	/* As xtr_reader_next() in this process says it. */
	return rm->warn != XTR_WARN_NONE ? ARCHIVE_WARN : ARCHIVE_OK;
}

/* see remote.h */
enum xtr_header_warn
xtr_remote_warning(const struct xtr_remote *rm)
{
	return rm->warn;
}

/* see remote.h */
int
xtr_remote_data(struct xtr_remote *rm, const void **buf, size_t *size,
    int64_t *offset)
{
	struct wire_data d;
	const unsigned char *body;
	size_t len;
	int type, st;

	/* SECURITY: the last block's bytes are the child's to write over
	 * only now, when the engine asks for the next. */
	release(rm);
	if (rm->state == S_BETWEEN || rm->state == S_DONE)
		return ARCHIVE_EOF;
	if (rm->state != S_ENTRY)
		return ARCHIVE_FATAL;
	type = next_msg(rm, &body, &len);
	if (type == ARCHIVE_FATAL)
		return ARCHIVE_FATAL;
	if (type == WIRE_DATA_END) {
		st = take_end(rm, body, len);
		if (st < 0)
			return ARCHIVE_FATAL;
		rm->state = S_BETWEEN;
		return st == WIRE_OK ? ARCHIVE_EOF : st == WIRE_BAD_DATA ?
		    ARCHIVE_WARN : ARCHIVE_FATAL;
	}
	if (type != WIRE_DATA && type != WIRE_DATA_RING)
		return protocol(rm, "a message out of order");
	if (get_block(rm, type, body, len, &d) < 0)
		return protocol(rm, "a malformed data block");
	/* SECURITY: blocks only go forward; a hole is a gap between. */
	if (d.offset < rm->data_end)
		return protocol(rm, "a data block before the previous one");
	take_raw(rm, d.raw);
	rm->data_end = d.offset + (int64_t)d.len;
	*buf = d.buf;
	*size = d.len;
	*offset = d.offset;
	return ARCHIVE_OK;
}

/* see remote.h */
int
xtr_remote_format(const struct xtr_remote *rm)
{
	return rm->format;
}

/* see remote.h */
uint64_t
xtr_remote_raw(const struct xtr_remote *rm)
{
	return rm->raw;
}

/* see remote.h */
uint64_t
xtr_remote_sent(const struct xtr_remote *rm)
{
	return rm->sent;
}

/* see remote.h */
int64_t
xtr_remote_header_pos(const struct xtr_remote *rm)
{
	return rm->header_pos;
}

/* see remote.h */
uint64_t
xtr_remote_archive_bytes(const struct xtr_remote *rm)
{
	return rm->archive_bytes;
}

/* see remote.h */
bool
xtr_remote_sparse(const struct xtr_remote *rm)
{
	return rm->sparse;
}

/* see remote.h */
const char *
xtr_remote_error(const struct xtr_remote *rm, int *error, bool *channel)
{
	*error = rm->error > 0 ? rm->error : EIO;
	*channel = rm->channel;
	return rm->text[0] != '\0' ? rm->text : "truncated or corrupt";
}

/*
 * The size of the input IN (with OPT's later volumes) when it cannot
 * grow, else UINT64_MAX.  SECURITY: the ratio divides by what the child
 * says it read, never more than this: a file named by its path is sized
 * as one given open, and volumes as what they hold together.
 */
static uint64_t
input_size(const struct pfx_input *in, const struct pfx_options *opt)
{
	uint64_t size, n;
	size_t i;

	if (in->path == NULL && in->buf != NULL)
		return in->len;
	size = plat_input_size(in->path, in->fd);
	if ((opt->flags & PFX_OPT_MULTI_VOLUME) == 0 || in->volumes == NULL)
		return size;
	/* One that could not be opened (-errno) holds nothing. */
	for (i = 0; i < in->nvolumes && size != UINT64_MAX; i++) {
		n = in->volumes[i] >= 0 ?
		    plat_input_size(NULL, in->volumes[i]) : 0;
		size = n > UINT64_MAX - size ? UINT64_MAX : size + n;
	}
	return size;
}

static struct xtr_remote *
remote_new(int fd, const struct pfx_options *opt)
{
	struct xtr_remote *rm = calloc(1, sizeof(*rm));

	if (rm == NULL)
		return NULL;
	rm->fd = fd;
	rm->who = "the decoder process";
	rm->pid = -1;
	rm->pidfd = -1;
	rm->cancel = opt->cancel;
	rm->timeout = opt->timeout;
	rm->idle = opt->idle_timeout;
	rm->stall = opt->stall_timeout;
	rm->raw_max = UINT64_MAX;
	/* Without it the data goes through the socket: only slower. */
	rm->ring = plat_os_shared_map(sizeof(*rm->ring));
	(void)clock_gettime(CLOCK_MONOTONIC, &rm->start);
	return rm;
}

/* Read the CONFINED message into RES.  Return: 0, or -1 with RES the
 * fatal error. */
static int
take_confined(struct xtr_remote *rm, const struct pfx_options *opt,
    struct pfx_result *res)
{
	const unsigned char *body;
	size_t len;
	int type, r;

	type = next_msg(rm, &body, &len);
	if (type != ARCHIVE_FATAL && (type != WIRE_CONFINED ||
	    wire_get_confined(body, len, &r, &res->sandbox) < 0))
		(void)protocol(rm, "a malformed first message");
	if (rm->state == S_BROKEN) {
		res->status = PFX_FATAL;
		res->error = rm->error;
		snprintf(res->message, sizeof(res->message), "%s", rm->text);
		return -1;
	}
	rm->state = S_BETWEEN;
	if (r == 0)
		return 0;
	res->status = PFX_FATAL;
	res->error = child_errno(-r);
	if (r == -ENOSYS && (opt->flags & PFX_OPT_SANDBOX_REQUIRE) != 0)
		snprintf(res->message, sizeof(res->message), "sandbox "
		    "required, but the kernel cannot enforce it: %s",
		    res->sandbox.text);
	else if (r == -EBUSY)
		snprintf(res->message, sizeof(res->message), "cannot confine "
		    "the decoder process: pfx_input.buf is in memory mapped "
		    "MAP_SHARED from a descriptor open for writing, which the "
		    "decoder process gives up (map it MAP_PRIVATE or from a "
		    "read-only descriptor, or give the descriptor)");
	else
		snprintf(res->message, sizeof(res->message), "cannot confine "
		    "the decoder process: %s", strerror(res->error));
	return -1;
}

/* see remote.h */
int
xtr_remote_open_fd(struct xtr_remote **out, int fd, const char *who,
    const struct pfx_options *opt, struct pfx_result *res)
{
	struct xtr_remote *rm;

	*out = NULL;
	rm = remote_new(fd, opt);
	if (rm != NULL && who != NULL)
		rm->who = who;
	if (rm == NULL) {
		res->status = PFX_FATAL;
		res->error = ENOMEM;
		snprintf(res->message, sizeof(res->message), "%s",
		    strerror(ENOMEM));
		return -1;
	}
	*out = rm;
	return take_confined(rm, opt, res);
}

/* Fail RES: the decoder process could not be started (errno E). */
static int
cannot_start(struct pfx_result *res, int e)
{
	res->status = PFX_FATAL;
	res->error = e;
	snprintf(res->message, sizeof(res->message), "cannot start the "
	    "decoder process: %s", strerror(e));
	return -1;
}

/*
 * Load here what the child would load on its first multibyte conversion:
 * glibc's character conversions of the current locale, loaded on first
 * use while holding a lock of iconv's own, which fork(2) copies as it
 * is.  A child forked while another thread of the caller held it (in
 * iconv_open(3), say) would wait for it forever; loaded here, the child
 * never takes it (libarchive converts from UTF-8 and UTF-16 into a UTF-8
 * locale without iconv_open(3)).
 */
static void
load_conversions(void)
{
	mbstate_t st;
	wchar_t wc;

	memset(&st, 0, sizeof(st));
	(void)mbrtowc(&wc, "", 1, &st);
}

/* How many times a child is forked while the caller's threads hold the
 * iconv lock (child.h). */
#define FORK_TRIES 10

/*
 * Wait for the child PID to say on READY that it holds no lock copied
 * held (child.c take_iconv_lock()).  Return: 0, or -1 once it is ended
 * and reaped (SIGALRM: the lock was held; fork again).
 */
static int
child_ready(int ready, pid_t pid)
{
	struct pollfd p = { ready, POLLIN, 0 };
	char ok = 0;
	ssize_t n = -1;

	while (poll(&p, 1, 10 * XTR_CHILD_PROBE_MS) == -1 && errno == EINTR)
		;
	if (p.revents != 0)
		while ((n = read(ready, &ok, 1)) == -1 && errno == EINTR)
			;
	if (n == 1)
		return 0;
	/* Its end still open: alive, so PID is still its own. */
	if (n < 0)
		(void)kill(pid, SIGKILL);
	/* ECHILD: reaped by the caller (SIGCHLD ignored, a reaper). */
	while (waitpid(pid, NULL, 0) == -1 && errno == EINTR)
		;
	return -1;
}

/* see remote.h */
int
xtr_remote_start(struct xtr_remote **out, const struct pfx_input *in,
    const struct pfx_options *opt, unsigned int dec_flags,
    unsigned int cpus, struct pfx_result *res)
{
	struct xtr_remote *rm;
	sigset_t all, old;
	pid_t self = getpid(), pid = -1;
	int sv[2], ready[2], size = SOCK_BUF, one = 1, tries, e = 0;

	*out = NULL;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == -1)
		return cannot_start(res, errno);
	(void)setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
	(void)setsockopt(sv[0], SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	/* SECURITY: a byte the child sends out of band (MSG_OOB) is read
	 * in its place in the stream, as any other (and so breaks the
	 * contract), not taken out of it where the reader waits. */
	(void)setsockopt(sv[0], SOL_SOCKET, SO_OOBINLINE, &one, sizeof(one));
	rm = remote_new(sv[0], opt);
	if (rm == NULL) {
		(void)close(sv[0]);
		(void)close(sv[1]);
		return cannot_start(res, ENOMEM);
	}
	rm->raw_max = input_size(in, opt);
	load_conversions();
	(void)sigfillset(&all);
	for (tries = 0; tries < FORK_TRIES && pid == -1 && e == 0; tries++) {
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0,
		    ready) == -1) {
			e = errno;
			break;
		}
		/* No handler of the caller's may run in the child before it
		 * has reset them all (child.c). */
		(void)pthread_sigmask(SIG_BLOCK, &all, &old);
		pid = fork();
		if (pid == 0) {
			(void)close(sv[0]);
			(void)close(ready[0]);
			xtr_child_main(sv[1], ready[1], self, rm->ring, in, opt,
			    dec_flags, cpus);
		}
		e = pid == -1 ? errno : 0;
		(void)pthread_sigmask(SIG_SETMASK, &old, NULL);
		(void)close(ready[1]);
		if (pid > 0 && child_ready(ready[0], pid) < 0)
			pid = -1;
		(void)close(ready[0]);
	}
	(void)close(sv[1]);
	if (pid == -1) {
		xtr_remote_free(rm);
		if (e != 0)
			return cannot_start(res, e);
		res->status = PFX_FATAL;
		res->error = EAGAIN;
		snprintf(res->message, sizeof(res->message), "cannot start "
		    "the decoder process: another thread of this process "
		    "held the C library's iconv lock at each of %d forks",
		    FORK_TRIES);
		return -1;
	}
	rm->pid = pid;
	/* The child makes its own session and group (setsid(2), which a
	 * group leader cannot: so not set from here too); until then,
	 * signal_all() reaches it by its pid. */
	rm->pidfd = plat_os_pidfd_open(pid);
	if (rm->pidfd < 0)
		rm->pidfd = -1;
	*out = rm;
	return 0;
}

/* see remote.h */
int
xtr_remote_confined(struct xtr_remote *rm, const struct pfx_options *opt,
    struct pfx_result *res)
{
	return take_confined(rm, opt, res);
}

/* Signal the child's process group, and the child. */
static void
signal_all(struct xtr_remote *rm, int sig)
{
	/* SECURITY: until the child is reaped its pid, and so its group's
	 * id, cannot name another process. */
	if (rm->reaped)
		return;
	(void)kill(-rm->pid, sig);
	(void)kill(rm->pid, sig);
}

/* see remote.h */
int
xtr_remote_stop(struct xtr_remote *rm, char *msg, size_t cap)
{
	bool finished, lingered = false;

	if (rm == NULL || rm->pid < 0 || (rm->reaped && rm->fd < 0))
		return 0;
	finished = rm->state == S_DONE;
	/* The child's next send fails: it ends. */
	if (rm->fd >= 0)
		(void)close(rm->fd);
	rm->fd = -1;
	if (finished) {
		lingered = !wait_child(rm, EXIT_GRACE_MS);
	} else if (!child_ended(rm)) {
		signal_all(rm, SIGTERM);
		(void)wait_child(rm, STOP_GRACE_MS);
	}
	/* SECURITY: whatever it started in its group ends with it. */
	signal_all(rm, SIGKILL);
	if (!rm->reaped) {
		signal_all(rm, SIGKILL);
		(void)wait_child(rm, REAP_MS);
	}
	if (!rm->reaped) {
		snprintf(msg, cap, "the decoder process (pid %ld) did not "
		    "end after SIGKILL", (long)rm->pid);
		return -EBUSY;
	}
	if (lingered) {
		snprintf(msg, cap, "the decoder process did not exit within "
		    "%d s of the archive's end (killed)", EXIT_GRACE_MS / 1000);
		return -ETIMEDOUT;
	}
	if (finished && !(WIFEXITED(rm->wstatus) &&
	    WEXITSTATUS(rm->wstatus) == 0)) {
		snprintf(msg, cap, "the decoder process failed after the "
		    "archive's end (%s %d)", WIFSIGNALED(rm->wstatus) ?
		    "signal" : "status", WIFSIGNALED(rm->wstatus) ?
		    WTERMSIG(rm->wstatus) : WEXITSTATUS(rm->wstatus));
		return -ECHILD;
	}
	return 0;
}

/* see remote.h */
void
xtr_remote_free(struct xtr_remote *rm)
{
	char msg[160];

	if (rm == NULL)
		return;
	(void)xtr_remote_stop(rm, msg, sizeof(msg));
	if (rm->fd >= 0)
		(void)close(rm->fd);
	if (rm->pidfd >= 0)
		(void)close(rm->pidfd);
	plat_os_shared_unmap(rm->ring, sizeof(*rm->ring));
	xtr_notes_free(&rm->notes);
	free(rm->buf);
	free(rm->str);
	free(rm);
}

/* see remote.h */
const char *
xtr_remote_note(struct xtr_remote *rm, int *kind)
{
	return xtr_notes_take(&rm->notes, kind);
}

/* see remote.h */
const struct xtr_head *
xtr_remote_head(const struct xtr_remote *rm)
{
	return &rm->head;
}
