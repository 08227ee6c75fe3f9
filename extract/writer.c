/*
 * writer.c -- the push API (pfx_writer_*): entries and data given by a
 * caller that parses its archives itself, as package installers do.
 *
 * The caller is put where the decoder process sits under a sandbox: it
 * speaks the decoder's protocol (wire.h) over a socket pair, and a thread
 * of the writer's runs the very run pfx_extract() runs on the other end
 * (xtr_extract_any: the descriptor check, all or nothing, the engine),
 * which reads those messages as it reads a decoder process's
 * (remote.c).  So the caller's entries meet every check a hostile
 * decoder's meet -- names, types, sizes, data past the size -- and then
 * the same judging, limits, links policy and reports as an archive's.
 * Nothing here decides anything: it only encodes.
 *
 * The socket is the bound: the caller waits while the run is behind by a
 * socket buffer, and a run that stopped (a fatal error, a limit) closes
 * its end, so that the caller's next call fails with EPIPE at once and
 * pfx_writer_finish() says why.
 *
 * The entry's size is held to here, on the caller's side, whatever the
 * run makes of the entry: the run checks the data of a file it writes,
 * but drains that of one it lists, excludes or refuses unread, and a
 * caller whose reader lost its place must not have the rest taken as
 * an archive that ended well.
 *
 * A hook runs on the writer's thread, the only reader of the socket:
 * its calls on its own writer are refused (EDEADLK), as a push there
 * would wait for ever and a finish would free the writer under the run.
 *
 * Bounded: one message buffer (a header of WIRE_MSG_MAX bytes at most,
 * grown once), two descriptors (and copies of the caller's two) and one
 * thread per writer.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "contract.h"
#include "extract.h"
#include "names.h"
#include "run.h"
#include "wire.h"

struct pfx_writer {
	int fd;			/* the caller's end of the socket pair */
	int run_fd;		/* the run's end, read by the thread */
	pthread_t thread;
	/* The run: what the thread is given, and what it returns. */
	struct pfx_options opt;	/* OUT_FD, with PFX_OPT_TO_FD, ours */
	char *dest;
	int dirfd;		/* ours when >= 0 */
	struct pfx_result res;
	/* The stream. */
	bool in_entry;		/* a HEADER was sent, its DATA_END not */
	bool sparse;		/* ... of a sparse file: data may skip */
	bool ended;		/* END was sent */
	int64_t offset;		/* data bytes of the entry so far */
	int64_t size;		/* the entry's size, -1 when not known */
	bool whole;		/* ... which its data must reach (a
				   regular file, not sparse) */
	/* Bytes given in all, headers as much as data: the input, as an
	 * archive's holds its headers.  What the ratio limit divides by:
	 * counting the data alone, a push of many entries with little data
	 * (empty files, directories, links) would pass max_ratio once its
	 * headers passed ratio_after. */
	uint64_t raw;
	int error;		/* the first failed send, or 0 */
	unsigned char *buf;	/* one message */
	size_t cap;
};

/*
 * The writer whose run this thread runs (run_main), else NULL: a hook's
 * call on it is refused.  One per thread, set only on the writer's own:
 * no state shared between writers or with the caller's threads.
 */
static _Thread_local const struct pfx_writer *running;

/* Is this call a hook's, on W's own thread? */
static bool
from_hook(const struct pfx_writer *w)
{
	return w != NULL && running == w;
}

/* Send LEN bytes of P whole.  Return: 0, or the errno that stopped it. */
static int
send_all(struct pfx_writer *w, const void *p, size_t len)
{
	const unsigned char *b = p;
	ssize_t n;

	if (w->error != 0)
		return w->error;
	while (len > 0) {
		/* SECURITY: a run that stopped must not kill the caller
		 * with SIGPIPE: EPIPE, and pfx_writer_finish() says why. */
		n = send(w->fd, b, len, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		/* A run that stopped with bytes unread resets the
		 * connection: the same stop. */
		if (n < 0) {
			w->error = errno == ECONNRESET ? EPIPE : errno;
			return w->error;
		}
		b += n;
		len -= (size_t)n;
		w->raw += (uint64_t)n;
	}
	return 0;
}

/* The thread: the run, on the socket's other end. */
static void *
run_main(void *arg)
{
	struct pfx_writer *w = arg;
	struct xtr_in src = { NULL, w->run_fd, "the caller (pfx_writer_*)" };

	running = w;
	(void)xtr_extract_any(&src, w->dirfd, w->dest, &w->opt, &w->res);
	running = NULL;
	/* The caller's next send fails now, whatever the run read.
	 * SECURITY: shut the socket itself down, not only this descriptor:
	 * a process the caller forked holds a copy of it, which would keep
	 * the socket open, and the caller's next send would wait for that
	 * process to end instead of failing. */
	(void)shutdown(w->run_fd, SHUT_RDWR);
	(void)close(w->run_fd);
	w->run_fd = -1;
	return NULL;
}

/* Free W, its thread already joined or never started. */
static void
writer_free(struct pfx_writer *w)
{
	if (w->fd >= 0)
		(void)close(w->fd);
	if (w->run_fd >= 0)
		(void)close(w->run_fd);
	if (w->dirfd >= 0)
		(void)close(w->dirfd);
	if ((w->opt.flags & PFX_OPT_TO_FD) != 0 && w->opt.out_fd >= 0)
		(void)close(w->opt.out_fd);
	free(w->dest);
	free(w->buf);
	free(w);
}

/*
 * The run's own copy of the caller's descriptor FD, in *COPY: the run
 * uses it on its thread until pfx_writer_finish(), long after
 * pfx_writer_open() returned, and the caller may close its own then.
 * SECURITY: were the number kept, a descriptor the caller opened
 * meanwhile would take it, and the run would extract beneath a
 * directory it was never given.  AT_FDCWD stays as it is; a number that
 * is not open becomes -1, which fails in the run as it would have.
 * Return: 0, or an errno.
 */
static int
own_fd(int fd, int *copy)
{
	*copy = fd;
	if (fd < 0)
		return 0;
	*copy = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (*copy >= 0)
		return 0;
	if (errno == EBADF)
		return 0;
	return errno;
}

/* The first message: no decoder process, and nothing it confined. */
static int
send_confined(struct pfx_writer *w)
{
	struct pfx_sandbox_info info;
	unsigned char msg[WIRE_CONFINED_LEN];
	size_t len;

	memset(&info, 0, sizeof(info));
	snprintf(info.text, sizeof(info.text), "none: the caller reads the "
	    "archive (pfx_writer_open)");
	len = wire_put_confined(msg, 0, &info);
	return send_all(w, msg, len);
}

/* see pfextract.h */
int
pfx_writer_open(int dirfd, const char *dest, const struct pfx_options *opt,
    struct pfx_writer **out)
{
	struct pfx_writer *w;
	struct pfx_result refused;
	struct pfx_options adopted;
	int sv[2], r;

	if (out == NULL)
		return EINVAL;
	*out = NULL;
	/* An earlier release's struct: never read past what it has. */
	if (xtr_options_adopt(opt, &adopted))
		opt = &adopted;
	/* As pfx_extract(): a value this library does not know is refused,
	 * not ignored; DEST may be NULL for a listing or -O alone. */
	if (opt != NULL && xtr_contract_options(opt, &refused) < 0)
		return EINVAL;
	if (dest == NULL && (opt == NULL ||
	    (opt->flags & (PFX_OPT_LIST | PFX_OPT_TO_FD)) == 0))
		return EINVAL;
	/* SECURITY: the sandbox confines the archive's parser, and here
	 * that is the caller: nothing could be confined for it. */
	if (opt != NULL && (opt->flags & (PFX_OPT_SANDBOX |
	    PFX_OPT_SANDBOX_CHILD | PFX_OPT_SANDBOX_REQUIRE)) != 0)
		return EINVAL;
	w = calloc(1, sizeof(*w));
	if (w == NULL)
		return ENOMEM;
	w->fd = w->run_fd = w->dirfd = -1;
	if (opt != NULL)
		w->opt = *opt;
	else
		pfx_options_init(&w->opt);
	r = 0;
	if ((w->opt.flags & PFX_OPT_TO_FD) != 0)
		r = own_fd(w->opt.out_fd, &w->opt.out_fd);
	if (r == 0)
		r = own_fd(dirfd, &w->dirfd);
	if (r != 0) {
		writer_free(w);
		return r;
	}
	w->dest = dest != NULL ? strdup(dest) : NULL;
	if (dest != NULL && w->dest == NULL) {
		writer_free(w);
		return ENOMEM;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == -1) {
		r = errno;
		writer_free(w);
		return r;
	}
	w->fd = sv[0];
	w->run_fd = sv[1];
	r = send_confined(w);
	if (r == 0)
		r = pthread_create(&w->thread, NULL, run_main, w);
	if (r != 0) {
		writer_free(w);
		return r;
	}
	*out = w;
	return 0;
}

/*
 * Stop the run as a damaged archive stops it: the entry being given, if
 * any, fails to be read (EIO, WHY), then the archive.
 */
static void
fail_stream(struct pfx_writer *w, const char *why)
{
	unsigned char msg[WIRE_HEAD + 8 + WIRE_TEXT_MAX];
	size_t len;

	if (w->in_entry) {
		w->in_entry = false;
		len = wire_put_end(msg, WIRE_DATA_END, WIRE_FATAL, EIO, why);
		(void)send_all(w, msg, len);
	}
	if (w->ended)
		return;
	w->ended = true;
	len = wire_put_end(msg, WIRE_END, WIRE_FATAL, EIO, why);
	(void)send_all(w, msg, len);
}

/*
 * The caller broke the entry's size (WHY says how): the run stops, EIO.
 * Return: EPIPE, which every later call returns too.
 */
static int
broken_size(struct pfx_writer *w, const char *why)
{
	fail_stream(w, why);
	w->error = EPIPE;
	return EPIPE;
}

/* Close the entry being given, if any: its data has ended well, or
 * short of its size. */
static int
end_entry(struct pfx_writer *w)
{
	unsigned char msg[WIRE_HEAD + 8 + WIRE_TEXT_MAX];
	char why[128];
	size_t len;

	if (!w->in_entry)
		return 0;
	if (w->whole && w->offset < w->size) {
		(void)snprintf(why, sizeof(why), "the entry's data ends "
		    "short of its size (%" PRId64 " of %" PRId64 " bytes)",
		    w->offset, w->size);
		return broken_size(w, why);
	}
	w->in_entry = false;
	len = wire_put_end(msg, WIRE_DATA_END, WIRE_OK, 0, "");
	return send_all(w, msg, len);
}

/* The file-type bits of an entry of TYPE (a hard link: a file's). */
static uint32_t
filetype_of(enum pfx_entry_type type)
{
	switch (type) {
	case PFX_TYPE_FILE:
	case PFX_TYPE_HARDLINK:
		return S_IFREG;
	case PFX_TYPE_DIR:
		return S_IFDIR;
	case PFX_TYPE_SYMLINK:
		return S_IFLNK;
	case PFX_TYPE_CHAR:
		return S_IFCHR;
	case PFX_TYPE_BLOCK:
		return S_IFBLK;
	case PFX_TYPE_FIFO:
		return S_IFIFO;
	case PFX_TYPE_SOCKET:
		return S_IFSOCK;
	case PFX_TYPE_OTHER:
		break;
	}
	return 0;
}

/* E as a wire header into *H; strings borrowed from E. */
static void
fill_header(struct wire_header *h, const struct pfx_entry *e, uint64_t raw)
{
	memset(h, 0, sizeof(*h));
	h->filetype = filetype_of(e->type);
	h->perm = (uint32_t)e->mode & 07777u;
	if (e->size >= 0) {
		h->flags |= WIRE_SIZE_SET;
		h->size = e->size;
	}
	h->mtime = e->mtime;
	h->mtime_nsec = e->mtime_nsec;
	h->uid = e->uid;
	h->gid = e->gid;
	h->raw = raw;
	if (e->type == PFX_TYPE_CHAR || e->type == PFX_TYPE_BLOCK) {
		h->devmajor = e->devmajor;
		h->devminor = e->devminor;
	}
	h->pos = -1;
	wire_set_str(h, WIRE_NAME, e->name);
	if (e->type == PFX_TYPE_HARDLINK)
		wire_set_str(h, WIRE_HARDLINK, e->link_target);
	else if (e->type == PFX_TYPE_SYMLINK)
		wire_set_str(h, WIRE_SYMLINK, e->link_target);
	wire_set_str(h, WIRE_UNAME, e->uname);
	wire_set_str(h, WIRE_GNAME, e->gname);
}

/*
 * Is E one the protocol can carry?  What it could not (a nanosecond out
 * of range, a device number past 32 bits) is the caller's error, told
 * at once, not a broken run.
 */
static bool
entry_ok(const struct pfx_entry *e)
{
	if ((unsigned int)e->type > PFX_TYPE_OTHER)
		return false;
	if ((e->type == PFX_TYPE_HARDLINK || e->type == PFX_TYPE_SYMLINK) &&
	    e->link_target == NULL)
		return false;
	/* A size, or -1: any other negative one is a reader's error, not
	 * an unknown size that would spare the data the size's check. */
	if (e->size < -1)
		return false;
	if (e->mtime_nsec < 0 || e->mtime_nsec > 999999999)
		return false;
	if ((e->type == PFX_TYPE_CHAR || e->type == PFX_TYPE_BLOCK) &&
	    (e->devmajor < 0 || e->devmajor > (int64_t)UINT32_MAX ||
	    e->devminor < 0 || e->devminor > (int64_t)UINT32_MAX))
		return false;
	return true;
}

/*
 * Are the NXATTRS attributes XATTRS, and FLAGS, ones E may carry?  A
 * sparse file is a regular file of known size.
 */
static bool
ext_ok(const struct pfx_entry *e, const struct pfx_xattr *xattrs,
    size_t nxattrs, unsigned int flags)
{
	size_t i;

	if ((flags & ~PFX_WRITER_SPARSE) != 0 || (nxattrs > 0 &&
	    xattrs == NULL) || nxattrs > WIRE_MSG_MAX / 8)
		return false;
	if ((flags & PFX_WRITER_SPARSE) != 0 && (e->type != PFX_TYPE_FILE ||
	    e->size < 0))
		return false;
	for (i = 0; i < nxattrs; i++)
		if (xattrs[i].name == NULL || xattrs[i].name[0] == '\0' ||
		    (xattrs[i].value == NULL && xattrs[i].size > 0))
			return false;
	return true;
}

/*
 * Encode H and XS (H->nxattr of them) into W's buffer, growing it to a
 * whole message if need be.  Return: its length, or 0 when it does not
 * fit one message.
 */
static size_t
encode_header(struct pfx_writer *w, const struct wire_header *h,
    const struct wire_xattr *xs)
{
	unsigned char *p;
	size_t len;

	for (;;) {
		len = wire_put_header(w->buf, w->cap, h, xs);
		if (len > 0 || w->cap >= WIRE_HEAD + WIRE_MSG_MAX)
			return len;
		p = realloc(w->buf, WIRE_HEAD + WIRE_MSG_MAX);
		if (p == NULL)
			return 0;
		w->buf = p;
		w->cap = WIRE_HEAD + WIRE_MSG_MAX;
	}
}

/* see pfextract.h */
int
pfx_writer_entry_ext(struct pfx_writer *w, const struct pfx_entry *e,
    const struct pfx_xattr *xattrs, size_t nxattrs, unsigned int flags)
{
	struct wire_header h;
	struct wire_xattr *xs;
	size_t len, i;
	int r;

	if (from_hook(w))
		return EDEADLK;
	if (w == NULL || e == NULL || e->name == NULL)
		return EINVAL;
	/* A run stopped by a size the caller broke: EPIPE, not EINVAL. */
	if (w->error != 0)
		return w->error;
	if (w->ended)
		return EINVAL;
	if (!entry_ok(e) || !ext_ok(e, xattrs, nxattrs, flags))
		return EINVAL;
	r = end_entry(w);
	if (r != 0)
		return r;
	fill_header(&h, e, w->raw);
	if ((flags & PFX_WRITER_SPARSE) != 0)
		h.flags |= WIRE_SPARSE;
	xs = calloc(nxattrs + 1, sizeof(*xs));
	if (xs == NULL)
		return ENOMEM;
	for (i = 0; i < nxattrs; i++) {
		xs[i].name = xattrs[i].name;
		xs[i].name_len = strlen(xattrs[i].name);
		xs[i].value = xattrs[i].value;
		xs[i].value_len = xattrs[i].size;
	}
	h.nxattr = (uint32_t)nxattrs;
	/* Too long for one message: refused, as a decoder's would be,
	 * before anything is sent. */
	len = encode_header(w, &h, xs);
	free(xs);
	if (len == 0)
		return w->cap < WIRE_HEAD + WIRE_MSG_MAX ? ENOMEM :
		    nxattrs > 0 ? E2BIG : ENAMETOOLONG;
	r = send_all(w, w->buf, len);
	if (r == 0) {
		w->in_entry = true;
		w->sparse = (flags & PFX_WRITER_SPARSE) != 0;
		w->offset = 0;
		w->size = e->size;
		w->whole = e->type == PFX_TYPE_FILE && !w->sparse &&
		    e->size >= 0;
	}
	return r;
}

/* see pfextract.h */
int
pfx_writer_entry(struct pfx_writer *w, const struct pfx_entry *e)
{
	return pfx_writer_entry_ext(w, e, NULL, 0, 0);
}

/* Send LEN bytes of BUF as the current entry's data at W->offset. */
static int
send_data(struct pfx_writer *w, const void *buf, size_t len)
{
	unsigned char head[WIRE_HEAD + 16];
	const unsigned char *b = buf;
	char why[128];
	size_t n, hl;
	int r;

	/* An entry's data ends by INT64_MAX, as the run holds it to. */
	if ((uint64_t)len > (uint64_t)(INT64_MAX - w->offset))
		return EINVAL;
	if (w->size >= 0 && (w->offset > w->size ||
	    (uint64_t)len > (uint64_t)(w->size - w->offset))) {
		(void)snprintf(why, sizeof(why), "the entry's data runs past "
		    "its size (%" PRId64 " bytes)", w->size);
		return broken_size(w, why);
	}
	while (len > 0) {
		n = len < WIRE_DATA_MAX ? len : WIRE_DATA_MAX;
		/* RAW: all given so far, this block's bytes included. */
		hl = wire_put_data_head(head, w->offset, w->raw + n, n);
		r = send_all(w, head, hl);
		if (r == 0)
			r = send_all(w, b, n);
		if (r != 0)
			return r;
		w->offset += (int64_t)n;
		b += n;
		len -= n;
	}
	return 0;
}

/* see pfextract.h */
int
pfx_writer_data(struct pfx_writer *w, const void *buf, size_t len)
{
	if (from_hook(w))
		return EDEADLK;
	if (w == NULL || (buf == NULL && len > 0))
		return EINVAL;
	if (w->error != 0)
		return w->error;
	if (!w->in_entry)
		return EINVAL;
	return send_data(w, buf, len);
}

/* see pfextract.h */
int
pfx_writer_data_at(struct pfx_writer *w, int64_t offset, const void *buf,
    size_t len)
{
	if (from_hook(w))
		return EDEADLK;
	if (w != NULL && w->error != 0)
		return w->error;
	if (w == NULL || (buf == NULL && len > 0) || !w->in_entry ||
	    !w->sparse || offset < w->offset ||
	    (uint64_t)len > (uint64_t)(INT64_MAX - offset))
		return EINVAL;
	/* What is skipped is a hole; the run checks it against the
	 * entry's size and charges it as the bytes it stands for. */
	w->offset = offset;
	return send_data(w, buf, len);
}

/* Send END with STATUS, ERROR and WHY, once. */
static int
send_end(struct pfx_writer *w, int status, int error, const char *why)
{
	unsigned char msg[WIRE_HEAD + 8 + WIRE_TEXT_MAX];
	size_t len;

	if (w->ended)
		return 0;
	w->ended = true;
	len = wire_put_end(msg, WIRE_END, status, error, why);
	return send_all(w, msg, len);
}

/* see pfextract.h */
int
pfx_writer_fail(struct pfx_writer *w, const char *why)
{
	if (from_hook(w))
		return EDEADLK;
	if (w == NULL)
		return EINVAL;
	if (w->error != 0)
		return w->error;
	if (w->ended)
		return EINVAL;
	/* As a decoder's failed read: the entry being given, then the
	 * run, EIO, the text the caller's. */
	fail_stream(w, why != NULL ? why : "");
	return w->error;
}

/* see pfextract.h */
enum pfx_status
pfx_writer_finish(struct pfx_writer *w, struct pfx_result *result)
{
	enum pfx_status status;

	if (w == NULL)
		return PFX_FATAL;
	/* Not freed under its own run: the caller's finish comes later. */
	if (from_hook(w)) {
		if (result != NULL) {
			memset(result, 0, sizeof(*result));
			result->status = PFX_FATAL;
			result->error = EDEADLK;
			result->resolver = "none";
			(void)snprintf(result->message, sizeof(result->message),
			    "pfx_writer_finish: called from a hook of the "
			    "writer's own run");
		}
		return PFX_FATAL;
	}
	if (!w->ended && end_entry(w) == 0)
		(void)send_end(w, WIRE_OK, 0, "");
	/* The run reads to END, or has stopped; either way it ends. */
	(void)shutdown(w->fd, SHUT_WR);
	(void)pthread_join(w->thread, NULL);
	status = w->res.status;
	if (result != NULL)
		*result = w->res;
	writer_free(w);
	return status;
}
