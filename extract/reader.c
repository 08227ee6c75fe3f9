/*
 * reader.c -- libarchive reads; pfextract writes.
 *
 * An input that starts as gzip, zstd or xz does (by its magic bytes, never
 * its name) is decoded by pfextract's own decoder thread (decode.h), and
 * libarchive reads the plain stream; every other input is libarchive's to
 * decode, as it always was.  Either way each block reaches libarchive
 * through a read callback of ours (a pipe's, a file's, a buffer's, a
 * package member's here, placed.c's, stage.c's, the decoder's), never
 * libarchive's own file or memory readers: while libarchive reads an
 * entry's headers (a sparse map it keeps in memory) only those callbacks
 * run, and they bound what one header read takes (decode.h,
 * xtr_header_take()); all but -M's joiner (volumes.c), whose volumes
 * are never compressed.
 *
 * SECURITY: only libarchive's built-in decoders are registered.  A filter
 * that libarchive would run as an external program (when it was built
 * without the library) is never registered, and neither is any format
 * that reads other files (mtree reads the local files its entries name).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>

#include "cpiowalk.h"
#include "decmem.h"
#include "decode.h"
#include "extract.h"
#include "placed.h"
#include "reader.h"
#include "readfd.h"
#include "sevenzip.h"
#include "sevenzipfit.h"
#include "stage.h"
#include "volumes.h"
#include "plat_thread.h"

/* Where a zip's end record may be: itself (22) and a comment (64 KiB). */
#define XTR_ZIP_TAIL (22u + 65535u)

/*
 * xar's reader is the one format that needs libxml2, which brings ICU and
 * libstdc++ with it: loading them is half of the command's start-up (8.2
 * against 3.4 ms).  Referenced weakly, it is in a program linked with the
 * shared libarchive, but a static link (the command's, Makefile) does not
 * pull it in, and its address is then null: asked for, it is refused.
 */
#pragma weak archive_read_support_format_xar

/* The formats read when the caller names none. */
static const char default_formats[] = "tar,zip,cpio,7zip,ar";

struct format {
	const char *name;
	int (*enable)(struct archive *);
};

static const struct format formats[] = {
	{ "tar", archive_read_support_format_tar },
	{ "gnutar", archive_read_support_format_gnutar },
	{ "zip", archive_read_support_format_zip },
	{ "cpio", archive_read_support_format_cpio },
	{ "7zip", archive_read_support_format_7zip },
	{ "ar", archive_read_support_format_ar },
	{ "iso9660", archive_read_support_format_iso9660 },
	{ "rar", archive_read_support_format_rar },
	{ "rar5", archive_read_support_format_rar5 },
	{ "xar", archive_read_support_format_xar },
	{ "lha", archive_read_support_format_lha },
	{ "cab", archive_read_support_format_cab },
	{ "warc", archive_read_support_format_warc },
	{ "raw", archive_read_support_format_raw },
	{ "empty", archive_read_support_format_empty },
};

/*
 * Each filter with the test that libarchive was built with its library:
 * without one, libarchive would fall back to running a program.
 */
struct filter {
	int (*enable)(struct archive *);
	const char *(*library)(void);
};

static const char *
builtin(void)
{
	return "built in";
}

static const struct filter filters[] = {
	{ archive_read_support_filter_gzip, archive_zlib_version },
	{ archive_read_support_filter_bzip2, archive_bzlib_version },
	{ archive_read_support_filter_xz, archive_liblzma_version },
	{ archive_read_support_filter_lzma, archive_liblzma_version },
	{ archive_read_support_filter_lzip, archive_liblzma_version },
	{ archive_read_support_filter_zstd, archive_libzstd_version },
	{ archive_read_support_filter_lz4, archive_liblz4_version },
	{ archive_read_support_filter_compress, builtin },
	/* An rpm package: its lead and headers are skipped, and what
	 * follows (a compressed cpio) is read by the filters above. */
	{ archive_read_support_filter_rpm, builtin },
};

static int
enable_filters(struct archive *a, char *msg, size_t cap)
{
	size_t i;

	for (i = 0; i < sizeof(filters) / sizeof(filters[0]); i++) {
		if (filters[i].library() == NULL)
			continue;	/* never an external program */
		if (filters[i].enable(a) != ARCHIVE_OK) {
			snprintf(msg, cap, "cannot enable a decompressor: %s",
			    archive_error_string(a));
			return -1;
		}
	}
	return 0;
}

/*
 * A zip is read from its central directory when the input can seek, and
 * from its local headers only when it cannot (a pipe).  SECURITY: a zip
 * file whose central directory is missing or cut is then refused whole,
 * as unzip does, instead of being read a second way -- by local headers,
 * which may name other entries than the directory does.
 */
static int
enable_zip(struct archive *a, bool seekable)
{
	return seekable ? archive_read_support_format_zip_seekable(a) :
	    archive_read_support_format_zip_streamable(a);
}

/*
 * Enable the comma-separated format NAMES; SEEKABLE tells how a zip is
 * read.  0, or -1 with MSG set.
 */
static int
enable_formats(struct archive *a, const char *names, bool seekable,
    char *msg, size_t cap)
{
	const char *p = names, *end;
	size_t i, len;

	while (*p != '\0') {
		end = strchr(p, ',');
		len = end != NULL ? (size_t)(end - p) : strlen(p);
		for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
			if (strlen(formats[i].name) == len &&
			    strncmp(formats[i].name, p, len) == 0)
				break;
		}
		if (len == 5 && strncmp(p, "mtree", 5) == 0) {
			snprintf(msg, cap, "format mtree is never read: it "
			    "opens the local files its entries name");
			return -1;
		}
		if (i == sizeof(formats) / sizeof(formats[0])) {
			snprintf(msg, cap, "unknown format '%.*s'", (int)len,
			    p);
			return -1;
		}
		if (formats[i].enable == NULL) {
			snprintf(msg, cap, "format %s is not in this build: "
			    "it needs libarchive linked as a shared library "
			    "(make ARCHIVE_LINK=shared)", formats[i].name);
			return -1;
		}
		if ((formats[i].enable == archive_read_support_format_zip ?
		    enable_zip(a, seekable) : formats[i].enable(a)) !=
		    ARCHIVE_OK) {
			snprintf(msg, cap, "cannot enable format %s: %s",
			    formats[i].name, archive_error_string(a));
			return -1;
		}
		p += len;
		if (*p == ',')
			p++;
	}
	return 0;
}

/* Is NAME one of the comma-separated format NAMES? */
static bool
format_named(const char *names, const char *name)
{
	size_t len = strlen(name);
	const char *p;

	for (p = names; p != NULL; p = strchr(p, ',')) {
		if (*p == ',')
			p++;
		if (strncmp(p, name, len) == 0 &&
		    (p[len] == ',' || p[len] == '\0'))
			return true;
	}
	return false;
}

/* The comma-separated format NAMES but NAME (heap), or NULL. */
static char *
without_format(const char *names, const char *name)
{
	size_t len = strlen(name), n;
	const char *p = names, *end;
	char *out = malloc(strlen(names) + 1), *q = out;

	if (out == NULL)
		return NULL;
	while (*p != '\0') {
		end = strchr(p, ',');
		n = end != NULL ? (size_t)(end - p) : strlen(p);
		if (n != len || strncmp(p, name, len) != 0) {
			if (q != out)
				*q++ = ',';
			memcpy(q, p, n);
			q += n;
		}
		p += n;
		if (*p == ',')
			p++;
	}
	*q = '\0';
	return out;
}

/*
 * Does the input start as a zip does (a local file header)?  Then a
 * failure to open it is a zip without a readable central directory.
 */
static bool
looks_like_zip(const struct pfx_input *in)
{
	static const unsigned char magic[4] = { 'P', 'K', 3, 4 };
	unsigned char head[4];

	if (in->buf != NULL)
		return in->len >= 4 && memcmp(in->buf, magic, 4) == 0;
	if (in->path != NULL || in->fd < 0)
		return false;
	return pread(in->fd, head, 4, 0) == 4 && memcmp(head, magic, 4) == 0;
}

/* The little-endian 16-bit number at P. */
static size_t
le16(const unsigned char *p)
{
	return (size_t)p[0] | (size_t)p[1] << 8;
}

/*
 * In the last N bytes T of a zip: is the central directory whole, its
 * end record in place, and only the record's signature unrecognised?
 * The last central directory header (its signature "PK\1\2") must end
 * within T, and what follows it must be exactly an end record's 22 bytes
 * and the comment its length field gives.  A zip cut anywhere in its
 * directory or end record fails this, and stays refused.
 */
static bool
end_unsigned(const unsigned char *t, size_t n)
{
	static const unsigned char cen[4] = { 'P', 'K', 1, 2 };
	static const unsigned char end[4] = { 'P', 'K', 5, 6 };
	size_t i, at = SIZE_MAX, stop;

	for (i = 0; i + 4 <= n; i++) {
		if (memcmp(t + i, end, 4) == 0)
			return false;	/* signed: a directory to read by */
		if (memcmp(t + i, cen, 4) == 0)
			at = i;
	}
	if (at == SIZE_MAX || n - at < 46)
		return false;
	stop = at + 46 + le16(t + at + 28) + le16(t + at + 30) +
	    le16(t + at + 32);
	return stop + 22 <= n && n - stop == 22 + le16(t + stop + 20);
}

/*
 * Is the zip IN whole but for its end of central directory record's
 * signature (end_unsigned, over its last 64 KiB + 22 bytes, where the
 * record and its comment must be)?  Then there is no directory to read
 * the zip by: only its local headers, as from a pipe.  An input that
 * cannot be read says no, and is refused as before.
 */
static bool
zip_end_unsigned(const struct pfx_input *in)
{
	unsigned char tail[XTR_ZIP_TAIL];
	const unsigned char *t = tail;
	struct stat st;
	ssize_t got;
	size_t n;

	if (in->buf != NULL) {
		n = in->len < sizeof(tail) ? in->len : sizeof(tail);
		t = (const unsigned char *)in->buf + in->len - n;
	} else {
		if (fstat(in->fd, &st) == -1 || st.st_size < 0)
			return false;
		n = (uint64_t)st.st_size < sizeof(tail) ?
		    (size_t)st.st_size : sizeof(tail);
		got = pread(in->fd, tail, n, st.st_size - (off_t)n);
		if (got < 0 || (size_t)got != n)
			return false;
	}
	return end_unsigned(t, n);
}

/*
 * A pipe or FIFO is read here rather than by libarchive's fd reader,
 * which retries a read that a signal interrupted: a stop asked for while
 * the writer is slow would wait for its next byte, or forever.
 */
struct pipe_in {
	int fd;
	bool own_fd;		/* closed with the reader */
	const struct xtr_stop *stop;
	struct xtr_head *tap;	/* the first bytes kept, or NULL */
	unsigned char head[XTR_MAGIC_LEN];	/* read before, given first */
	size_t head_len;
	char buf[XTR_BLOCK];
};

/* Set A's error for a read of the input that returned R (-errno). */
static void
read_error(struct archive *a, ssize_t r)
{
	if (r == -ECANCELED || r == -ETIMEDOUT)
		archive_set_error(a, (int)-r, "%s", XTR_STOP_TEXT(-r));
	else
		archive_set_error(a, (int)-r, "%s", XTR_INPUT_UNREADABLE);
}

/*
 * libarchive's read callback: the head read before, then one read(2)
 * into the block buffer.  Return: the bytes read (0 at the end), or -1
 * with the archive's error set -- ECANCELED "interrupted" when a signal
 * cut the read short and the caller has cancelled, EFBIG past one
 * entry's headers' limit (decode.h, xtr_header_take()).
 */
static la_ssize_t
pipe_read(struct archive *a, void *arg, const void **buf)
{
	struct pipe_in *p = arg;
	ssize_t n;

	if (p->head_len > 0) {
		*buf = p->head;
		n = (ssize_t)p->head_len;
		if (xtr_header_take(a, p->tap, p->head, (size_t)n) != 0)
			return -1;
		p->head_len = 0;
		xtr_head_add(p->tap, p->head, (size_t)n);
		return n;
	}
	*buf = p->buf;
	n = xtr_read_cancellable(p->fd, p->buf, xtr_header_room(a, p->tap,
	    sizeof(p->buf)), p->stop);
	if (n < 0) {
		read_error(a, n);
		return -1;
	}
	if (xtr_header_take(a, p->tap, p->buf, (size_t)n) != 0)
		return -1;
	xtr_head_add(p->tap, p->buf, (size_t)n);
	return n;
}

/* libarchive's close callback: free the reader.  Return: ARCHIVE_OK. */
static int
pipe_close(struct archive *a, void *arg)
{
	struct pipe_in *p = arg;

	(void)a;
	if (p->own_fd)
		(void)close(p->fd);
	free(p);
	return ARCHIVE_OK;
}

/*
 * Open A on the pipe FD (closed with the reader when OWN_FD), HEAD_LEN
 * bytes of which were read into HEAD already.  Return: libarchive's
 * status.
 */
static int
open_pipe(struct archive *a, int fd, bool own_fd,
    const struct xtr_stop *stop, struct xtr_head *tap,
    const unsigned char *head, size_t head_len)
{
	struct pipe_in *p;

	p = malloc(sizeof(*p));
	if (p == NULL) {
		if (own_fd)
			(void)close(fd);
		archive_set_error(a, ENOMEM, "%s", strerror(ENOMEM));
		return ARCHIVE_FATAL;
	}
	p->fd = fd;
	p->own_fd = own_fd;
	p->stop = stop;
	p->tap = tap;
	memcpy(p->head, head, head_len);
	p->head_len = head_len;
	/* libarchive calls pipe_close() whether or not the open works. */
	return archive_read_open(a, p, NULL, pipe_read, pipe_close);
}

/*
 * A buffer that is not ours to decode, handed to libarchive in blocks of
 * XTR_READ_BLOCK by the callbacks here rather than whole by its memory
 * reader: a header read then calls a read callback of ours, which counts
 * it (decode.h, xtr_header_take()).  Skips and seeks move within it, as
 * libarchive's memory reader's do.
 */
struct mem_in {
	const unsigned char *buf;
	size_t len;
	size_t at;		/* the next byte handed out */
	struct xtr_head *tap;	/* one entry's headers counted, or NULL */
};

/* libarchive's read callback: the next block.  Return: its length (0 at
 * the end), or -1 with A's error set (EFBIG: past one entry's headers'
 * limit). */
static la_ssize_t
mem_read(struct archive *a, void *arg, const void **out)
{
	struct mem_in *m = arg;
	size_t n = m->len - m->at;

	n = xtr_header_room(a, m->tap, n < XTR_READ_BLOCK ? n :
	    XTR_READ_BLOCK);
	if (xtr_header_take(a, m->tap, m->buf + m->at, n) != 0)
		return -1;
	*out = m->buf + m->at;
	m->at += n;
	return (la_ssize_t)n;
}

/* libarchive's skip callback: REQUEST bytes on, no further than the end
 * (what is missing libarchive then finds cut).  Return: the bytes
 * skipped. */
static la_int64_t
mem_skip(struct archive *a, void *arg, la_int64_t request)
{
	struct mem_in *m = arg;

	(void)a;
	if (request <= 0)
		return 0;
	if ((uint64_t)request > m->len - m->at)
		request = (la_int64_t)(m->len - m->at);
	m->at += (size_t)request;
	return request;
}

/* libarchive's seek callback, as its memory reader's.  Return: the new
 * offset, or ARCHIVE_FAILED (at the start or the end) outside the
 * buffer. */
static la_int64_t
mem_seek(struct archive *a, void *arg, la_int64_t offset, int whence)
{
	struct mem_in *m = arg;
	la_int64_t base, len = (la_int64_t)m->len;

	(void)a;
	switch (whence) {
	case SEEK_SET:
		base = 0;
		break;
	case SEEK_CUR:
		base = (la_int64_t)m->at;
		break;
	case SEEK_END:
		base = len;
		break;
	default:
		return ARCHIVE_FATAL;
	}
	if (offset < -base) {
		m->at = 0;
		return ARCHIVE_FAILED;
	}
	if (offset > len - base) {
		m->at = m->len;
		return ARCHIVE_FAILED;
	}
	m->at = (size_t)(base + offset);
	return (la_int64_t)m->at;
}

/* libarchive's close callback: the reader's own.  Return: ARCHIVE_OK. */
static int
mem_close(struct archive *a, void *arg)
{
	(void)a;
	free(arg);
	return ARCHIVE_OK;
}

/* Open A on the LEN bytes at BUF (borrowed), counted in TAP (or NULL).
 * Return: libarchive's status. */
static int
open_mem(struct archive *a, const void *buf, size_t len,
    struct xtr_head *tap)
{
	struct mem_in *m = calloc(1, sizeof(*m));

	if (m == NULL) {
		archive_set_error(a, ENOMEM, "%s", strerror(ENOMEM));
		return ARCHIVE_FATAL;
	}
	m->buf = buf;
	m->len = len;
	m->tap = tap;
	if (archive_read_set_read_callback(a, mem_read) != ARCHIVE_OK ||
	    archive_read_set_skip_callback(a, mem_skip) != ARCHIVE_OK ||
	    archive_read_set_seek_callback(a, mem_seek) != ARCHIVE_OK ||
	    archive_read_set_close_callback(a, mem_close) != ARCHIVE_OK ||
	    archive_read_set_callback_data(a, m) != ARCHIVE_OK) {
		free(m);
		return ARCHIVE_FATAL;
	}
	/* libarchive calls mem_close() whether or not the open works. */
	return archive_read_open1(a);
}

/* How to open an input once its codec is known. */
struct opening {
	const struct xtr_stop *stop;
	unsigned int dec_flags;		/* XTR_DEC_* */
	struct xtr_decoder **dec;
	bool raw_empty;		/* set: the input has no byte at all */
	struct xtr_head *head;	/* the first bytes kept, or NULL */
	int open_err;		/* set: the input cannot be opened (errno) */
	const struct xtr_dec_mem *mem;	/* what xz may take */
	const struct xtr_read_place *place;	/* a plain file's blocks,
						   or NULL (placed.h) */
	uint64_t budget_7z;	/* a 7z's header's, or 0: none looked at,
				   and the 7z reader enabled as named */
	char *msg;		/* set: why the input is refused ... */
	size_t cap;
	int limit_err;		/* ... and this error (a limit) */
	bool read_7z;		/* the 7z reader enabled by fits_7z() */
};

/*
 * SECURITY: does the header of the raw input (LEN bytes at BUF, or the
 * file FD from BASE), if it is a 7z, fit in O's budget (sevenzipfit.c)?
 * Looked at through what libarchive is given, before it reads a byte.
 * Then A's 7z reader is enabled, here only, and for an input that starts
 * as a 7z (xtr_7z_fits()): an input not looked at so (a pipe, one
 * compressed, by us or libarchive's filters, or staged) is read with
 * none, as libarchive would list such a 7z's header unbounded before it
 * found it cannot seek to the data.  If not, O says why.
 */
static bool
fits_7z(struct archive *a, struct opening *o, const void *buf, size_t len,
    int fd, off_t base)
{
	int r;

	if (o->budget_7z == 0)
		return true;
	r = xtr_7z_fits(buf, len, fd, base, o->budget_7z, o->msg, o->cap);
	if (r < 0) {
		o->limit_err = -r;
		return false;
	}
	if (r == 0)
		return true;
	o->read_7z = true;
	return archive_read_support_format_7zip(a) == ARCHIVE_OK;
}

/*
 * Does a -G run read this input (HEAD has a window)?  Then an input that
 * is not ours to decode is read through a stage of libarchive's filters
 * (stage.c), so that the window holds the bytes the tar reader parses,
 * compressed (bzip2, lz4, lzip ...) or not.
 */
static bool
staging(const struct opening *o)
{
	return o->head != NULL && o->head->window != NULL;
}

/*
 * The stage's reader: every built-in filter, and the raw and empty
 * formats.  Return: it, or NULL with A's error set.
 */
static struct archive *
stage_reader(struct archive *a)
{
	struct archive *s = archive_read_new();
	char msg[256];

	if (s == NULL) {
		archive_set_error(a, ENOMEM, "%s", strerror(ENOMEM));
		return NULL;
	}
	msg[0] = '\0';
	if (enable_filters(s, msg, sizeof(msg)) == 0 &&
	    archive_read_support_format_raw(s) == ARCHIVE_OK &&
	    archive_read_support_format_empty(s) == ARCHIVE_OK)
		return s;
	archive_set_error(a, EINVAL, "%s", msg[0] != '\0' ? msg :
	    archive_error_string(s) != NULL ? archive_error_string(s) :
	    "cannot enable the raw format");
	archive_read_free(s);
	return NULL;
}

/*
 * Open A, through the stage, on the pipe FD (closed with the reader when
 * OWN_FD), HEAD_LEN bytes of which were read into HEAD already.
 * Return: libarchive's status.
 */
static int
open_staged_pipe(struct archive *a, int fd, bool own_fd,
    const struct opening *o, const unsigned char *head, size_t head_len)
{
	struct archive *inner = stage_reader(a);

	if (inner == NULL) {
		if (own_fd)
			(void)close(fd);
		return ARCHIVE_FATAL;
	}
	return xtr_stage_open(a, inner, open_pipe(inner, fd, own_fd,
	    o->stop, NULL, head, head_len), o->head);
}

/*
 * Open A on a stream that cannot seek (a pipe, FIFO or device), FD, owned
 * when OWN_FD: its head is read (a signal with the cancel flag set stops
 * the wait) to find the codec, and handed on to whichever reader follows.
 * Return: libarchive's status.
 */
static int
open_stream(struct archive *a, int fd, bool own_fd, struct opening *o)
{
	unsigned char head[XTR_MAGIC_LEN];
	struct xtr_dec_input di;
	enum xtr_codec codec;
	size_t got = 0;
	ssize_t n;

	while (got < sizeof(head)) {
		n = xtr_read_cancellable(fd, head + got, sizeof(head) - got,
		    o->stop);
		if (n < 0) {
			read_error(a, n);
			if (own_fd)
				(void)close(fd);
			return ARCHIVE_FATAL;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	o->raw_empty = got == 0;
	codec = xtr_codec_detect(head, got);
	if (codec == XTR_CODEC_NONE && staging(o))
		return open_staged_pipe(a, fd, own_fd, o, head, got);
	if (codec == XTR_CODEC_NONE)
		return open_pipe(a, fd, own_fd, o->stop, o->head, head, got);
	memset(&di, 0, sizeof(di));
	di.fd = fd;
	di.own_fd = own_fd;
	di.head = head;
	di.head_len = got;
	di.tap = o->head;
	di.mem = o->mem;
	return xtr_decode_open(a, codec, &di, o->dec_flags, o->stop,
	    o->dec);
}

/*
 * The codec of the seekable FD's head, read without moving its offset;
 * *EMPTY set when nothing follows the offset.  Return: the codec, or
 * XTR_CODEC_NONE (also when it cannot be read: libarchive then reports
 * that as it always did).
 */
static enum xtr_codec
seekable_codec(int fd, bool *empty)
{
	unsigned char head[XTR_MAGIC_LEN];
	off_t at;
	ssize_t n;

	at = lseek(fd, 0, SEEK_CUR);
	if (at == -1)
		return XTR_CODEC_NONE;
	do
		n = pread(fd, head, sizeof(head), at);
	while (n == -1 && errno == EINTR);
	*empty = n == 0;
	return n > 0 ? xtr_codec_detect(head, (size_t)n) : XTR_CODEC_NONE;
}

/* Open A on the seekable FD (read from where it is, owned when OWN_FD)
 * through our decoder for CODEC.  Return: libarchive's status. */
static int
open_decoded_fd(struct archive *a, int fd, bool own_fd,
    enum xtr_codec codec, const struct opening *o)
{
	struct xtr_dec_input di;

	memset(&di, 0, sizeof(di));
	di.fd = fd;
	di.own_fd = own_fd;
	di.tap = o->head;
	di.mem = o->mem;
	return xtr_decode_open(a, codec, &di, o->dec_flags, o->stop,
	    o->dec);
}

/* Keep the first bytes of the seekable FD from AT in HEAD (if not
 * NULL): libarchive reads the same bytes as they are, or decodes them
 * (then xtr_reader_open_head() says they are unseen). */
static void
keep_head(struct xtr_head *head, int fd, off_t at)
{
	ssize_t n;

	if (head == NULL || at < 0)
		return;
	do
		n = pread(fd, head->buf, sizeof(head->buf), at);
	while (n == -1 && errno == EINTR);
	head->len = n > 0 ? (size_t)n : 0;
}

/*
 * Open A on the file PATH.  A regular file (or block device) that is not
 * ours to decode is handed to libarchive by name, as before; one that is
 * keeps the descriptor opened to look at it.  Any other kind (a FIFO) is
 * read through that one descriptor: opening a FIFO twice would lose what
 * its writer wrote in between.  Return: libarchive's status.
 */
static int
open_path(struct archive *a, const char *path, struct opening *o)
{
	enum xtr_codec codec;
	struct stat st;
	int fd;

	fd = pfx_input_open(path);
	if (fd < 0) {
		o->open_err = -fd;
		return ARCHIVE_FATAL;
	}
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		(void)close(fd);
		o->open_err = EISDIR;
		return ARCHIVE_FATAL;
	}
	if (fstat(fd, &st) == 0 && !S_ISREG(st.st_mode) &&
	    !S_ISBLK(st.st_mode))
		return open_stream(a, fd, true, o);
	codec = seekable_codec(fd, &o->raw_empty);
	if (codec != XTR_CODEC_NONE)
		return open_decoded_fd(a, fd, true, codec, o);
	if (staging(o))
		return open_stream(a, fd, true, o);	/* every byte seen */
	if (!fits_7z(a, o, NULL, 0, fd, 0)) {
		(void)close(fd);
		return ARCHIVE_FATAL;
	}
	/* The label is read from this open of PATH; the blocks are ours
	 * to read (placed.c), as libarchive's file reader would, so that
	 * each header read is counted (decode.h). */
	keep_head(o->head, fd, 0);
	return xtr_placed_open(a, fd, true, NULL, o->head, o->stop);
}

/* Is FD open on a directory?  (read(2) would fail, EISDIR.) */
static bool
is_dir(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISDIR(st.st_mode);
}

/*
 * Open A on the volumes of IN (tar -M), joined (volumes.c): the first
 * from PATH or FD, the rest IN's VOLUMES; *VOLS is the joiner.
 * Return: libarchive's status.
 */
static int
open_volumes(struct archive *a, const struct pfx_input *in,
    const struct opening *o, struct xtr_volumes **vols)
{
	int fds[PFX_MAX_VOLUMES], own = -1;

	if (in->nvolumes >= PFX_MAX_VOLUMES || (in->nvolumes > 0 &&
	    in->volumes == NULL) || (in->path == NULL && (in->buf != NULL ||
	    in->fd < 0))) {
		archive_set_error(a, EINVAL, "multi-volume: the first volume "
		    "must be a file or a descriptor, and at most %d volumes "
		    "may be given", PFX_MAX_VOLUMES);
		return ARCHIVE_FATAL;
	}
	if (in->path != NULL) {
		own = pfx_input_open(in->path);
		if (own < 0) {
			archive_set_error(a, -own, "%s: %s", in->path,
			    strerror(-own));
			return ARCHIVE_FATAL;
		}
	}
	fds[0] = own >= 0 ? own : in->fd;
	if (in->nvolumes > 0)
		memcpy(fds + 1, in->volumes, in->nvolumes * sizeof(fds[0]));
	return xtr_volumes_open(a, fds, in->nvolumes + 1, own, o->stop,
	    o->head, vols);
}

/*
 * Open A on IN (SEEKABLE: a path, a buffer or an fd that can seek),
 * through our decoder when its head says so.
 * Return: libarchive's status.
 */
static int
open_input(struct archive *a, const struct pfx_input *in, bool seekable,
    struct opening *o)
{
	struct xtr_dec_input di;
	enum xtr_codec codec;
	struct archive *inner;
	off_t at;

	if (in->path != NULL)
		return open_path(a, in->path, o);
	/* A buffer wins over an fd, so a zeroed struct never reads fd 0. */
	if (in->buf != NULL) {
		o->raw_empty = in->len == 0;
		codec = xtr_codec_detect(in->buf, in->len);
		if (codec == XTR_CODEC_NONE && staging(o)) {
			inner = stage_reader(a);
			return inner == NULL ? ARCHIVE_FATAL :
			    xtr_stage_open(a, inner, archive_read_open_memory(
			    inner, in->buf, in->len), o->head);
		}
		if (codec == XTR_CODEC_NONE) {
			if (!fits_7z(a, o, in->buf, in->len, -1, 0))
				return ARCHIVE_FATAL;
			xtr_head_add(o->head, in->buf, in->len);
			return open_mem(a, in->buf, in->len, o->head);
		}
		memset(&di, 0, sizeof(di));
		di.fd = -1;
		di.buf = in->buf;
		di.len = in->len;
		di.tap = o->head;
	di.mem = o->mem;
		return xtr_decode_open(a, codec, &di, o->dec_flags,
		    o->stop, o->dec);
	}
	if (in->fd < 0)
		return ARCHIVE_FATAL;
	if (is_dir(in->fd)) {
		o->open_err = EISDIR;
		return ARCHIVE_FATAL;
	}
	if (!seekable)
		return open_stream(a, in->fd, false, o);
	codec = seekable_codec(in->fd, &o->raw_empty);
	if (codec != XTR_CODEC_NONE)
		return open_decoded_fd(a, in->fd, false, codec, o);
	if (staging(o))
		return open_stream(a, in->fd, false, o);	/* every byte seen */
	/* The 7z look reads with pread(2): where it starts stays. */
	at = lseek(in->fd, 0, SEEK_CUR);
	if (!fits_7z(a, o, NULL, 0, in->fd, at))
		return ARCHIVE_FATAL;
	keep_head(o->head, in->fd, at);
	/* Into PLACE's buffers if it has them; read by us either way, as
	 * libarchive's fd reader would, so that each header read is
	 * counted (decode.h). */
	return xtr_placed_open(a, in->fd, false, o->place, o->head,
	    o->stop);
}

/* see reader.h */
bool
xtr_input_drained(int fd)
{
	struct stat st;

	return fd >= 0 && fstat(fd, &st) == 0 &&
	    (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
}

/*
 * A cpio's entry AE, read from AR with status R: what libarchive's list
 * of files with more than one link cost, counted in W (cpiowalk.h).
 * Return: R, or ARCHIVE_FATAL past the bound, with AR's error set.
 */
static int
count_cpio(struct xtr_cpio_walk *w, struct archive *ar,
    struct archive_entry *ae, int r)
{
	char msg[320];
	int e;

	e = xtr_cpio_walk_count(w, archive_entry_nlink(ae),
	    (uint64_t)archive_entry_dev(ae),
	    (uint64_t)archive_entry_ino64(ae), archive_entry_pathname(ae),
	    msg, sizeof(msg));
	if (e == 0)
		return r;
	/* libarchive's own formatter knows no %llu: MSG is made. */
	archive_set_error(ar, -e, "%s", msg);
	return ARCHIVE_FATAL;
}

/*
 * SECURITY: the group bits of AE as the archive's header gives them.
 * An access ACL (a pax SCHILY.acl.access, a Solaris 'A' header) makes
 * libarchive put its owner, owning group and other entries in place of
 * the header's bits; but the group bits of a file with an ACL mask are
 * the mask's (POSIX.1e: what stat(2) shows, and what GNU tar and bsdtar
 * write in the header), and the owning group's entry may grant more than
 * the mask lets through.  A file of mode 0640 whose owning group has rwx
 * under a mask of r-- came out 0670 with -p, though ACLs are never
 * restored.  The mask's bits are put back.
 */
static void
acl_mode(struct archive_entry *ae)
{
	const char *name;
	int type, perms, tag, id;

	if (archive_entry_acl_reset(ae, ARCHIVE_ENTRY_ACL_TYPE_ACCESS) <= 0)
		return;
	while (archive_entry_acl_next(ae, ARCHIVE_ENTRY_ACL_TYPE_ACCESS, &type,
	    &perms, &tag, &id, &name) == ARCHIVE_OK)
		if (tag == ARCHIVE_ENTRY_ACL_MASK) {
			archive_entry_set_perm(ae, (archive_entry_perm(ae) &
			    ~(mode_t)070) | (mode_t)((perms & 07) << 3));
			return;
		}
}

/* see reader.h */
int
xtr_reader_next(struct archive *ar, struct xtr_head *head,
    struct xtr_cpio_walk *walk, bool *entry, struct archive_entry *ae)
{
	int r;

	if (*entry && archive_read_data_skip(ar) == ARCHIVE_FATAL) {
		*entry = false;
		return ARCHIVE_FATAL;
	}
	xtr_header_begin(head, ar);
	r = archive_read_next_header2(ar, ae);
	if (xtr_header_end(head, ar))
		r = ARCHIVE_FATAL;
	if ((r == ARCHIVE_OK || r == ARCHIVE_WARN) && walk != NULL &&
	    (archive_format(ar) & ARCHIVE_FORMAT_BASE_MASK) ==
	    ARCHIVE_FORMAT_CPIO)
		r = count_cpio(walk, ar, ae, r);
	/*
	 * A size below 0, which libarchive lets through from a pax
	 * GNU.sparse.size (its tar reader refuses it in the header's size
	 * and in a pax size): no writer could hold the data to it, and the
	 * decoder process could not even send it (wire.h).  Refused as
	 * libarchive refuses the others, in both.
	 */
	if ((r == ARCHIVE_OK || r == ARCHIVE_WARN) &&
	    archive_entry_size_is_set(ae) && archive_entry_size(ae) < 0) {
		archive_set_error(ar, EILSEQ, "%s: the entry's size is "
		    "negative", archive_entry_pathname(ae) != NULL ?
		    archive_entry_pathname(ae) : "");
		r = ARCHIVE_FATAL;
	}
	if (r == ARCHIVE_OK || r == ARCHIVE_WARN)
		acl_mode(ae);
	*entry = r == ARCHIVE_OK || r == ARCHIVE_WARN;
	return r;
}

/* libarchive's ARCHIVE_ERRNO_FILE_FORMAT, which archive.h does not give. */
#ifdef EFTYPE
#define LA_FILE_FORMAT	EFTYPE
#else
#define LA_FILE_FORMAT	EILSEQ
#endif

/* see reader.h */
enum xtr_header_warn
xtr_reader_warning(struct archive *ar)
{
	const char *why = archive_error_string(ar);

	/*
	 * libarchive gives a name it cannot convert (invalid UTF-8 in a
	 * pax path, say) as its bytes, with its ARCHIVE_ERRNO_FILE_FORMAT
	 * (EFTYPE, or EILSEQ where there is none) and "... can't be
	 * converted ..." or "cannot be converted" (tar, pax, cpio, zip):
	 * GNU tar takes such a name as it is, with no word.  Anything
	 * else, a pax record malformed and dropped among them, is damage;
	 * so is a message this does not know.
	 */
	if (archive_errno(ar) == LA_FILE_FORMAT && why != NULL &&
	    strstr(why, " be converted ") != NULL)
		return XTR_WARN_UNCONVERTED;
	return XTR_WARN_DAMAGED;
}

/* see reader.h */
void
xtr_span_begin(struct xtr_span *span, struct archive_entry *ae)
{
	la_int64_t off, len;

	span->end = 0;
	span->got = 0;
	span->want = 0;
	span->size = -1;
	/* libarchive's list of the map keeps only segments in order and
	 * none that overflows: the sum cannot.  It keeps one past the
	 * size, though, checked as the data comes. */
	if (archive_entry_sparse_reset(ae) <= 0)
		return;
	if (archive_entry_size_is_set(ae))
		span->size = archive_entry_size(ae);
	while (archive_entry_sparse_next(ae, &off, &len) == ARCHIVE_OK)
		if (len > 0)
			span->want += (uint64_t)len;
}

/* see reader.h */
int
xtr_reader_data(struct archive *ar, struct xtr_span *span, const void **buf,
    size_t *size, int64_t *offset)
{
	char msg[160];
	la_int64_t off;
	uint64_t end;
	int r;

	r = archive_read_data_block(ar, buf, size, &off);
	*offset = off;
	/* libarchive's own formatter knows no %llu: MSG is made. */
	if (r == ARCHIVE_EOF && span->got < span->want) {
		(void)snprintf(msg, sizeof(msg), "the entry's data ends short "
		    "of its sparse map (%llu of %llu bytes)",
		    (unsigned long long)span->got,
		    (unsigned long long)span->want);
		archive_set_error(ar, EILSEQ, "%s", msg);
		return ARCHIVE_WARN;
	}
	if (r != ARCHIVE_OK || off < 0)
		return r;
	if (off < span->end) {
		(void)snprintf(msg, sizeof(msg), "the entry's sparse map "
		    "overlaps or is out of order (data at %lld, after data up "
		    "to %lld)", (long long)off, (long long)span->end);
		archive_set_error(ar, EILSEQ, "%s", msg);
		return ARCHIVE_WARN;
	}
	end = (uint64_t)off + *size;
	/* SECURITY: as a map that goes back, a map that runs past the
	 * entry's size fails that entry, not the archive: its data was
	 * read whole, and the entries after it are intact. */
	if (span->size >= 0 && end > (uint64_t)span->size) {
		(void)snprintf(msg, sizeof(msg), "the entry's sparse map "
		    "runs past its size (data at %lld, size %lld)",
		    (long long)off, (long long)span->size);
		archive_set_error(ar, EILSEQ, "%s", msg);
		return ARCHIVE_WARN;
	}
	span->end = end > INT64_MAX ? INT64_MAX : (int64_t)end;
	span->got += *size;
	return ARCHIVE_OK;
}

/* see reader.h */
int
xtr_input_drain(int fd, uint64_t archive, struct xtr_decoder *dec,
    const struct xtr_stop *stop, void (*tick)(void))
{
	unsigned char buf[16384];
	uint64_t left = archive < UINT64_MAX - XTR_DRAIN_SLACK ?
	    archive + XTR_DRAIN_SLACK : UINT64_MAX;
	ssize_t n;

	if (dec != NULL)
		xtr_decoder_stop(dec);
	if (!xtr_input_drained(fd))
		return 0;
	do {
		n = xtr_read_cancellable(fd, buf, sizeof(buf), stop);
		if (tick != NULL)
			tick();
		if (n > 0 && (uint64_t)n >= left)
			break;	/* the bound: the rest is the writer's */
		if (n > 0)
			left -= (uint64_t)n;
	} while (n > 0);
	return n < 0 ? (int)n : 0;
}

/*
 * A reader with every built-in filter and the formats NAMES (SEEKABLE:
 * how a zip is read), reading past zero blocks with XTR_READ_CONCAT in
 * FLAGS.  Return: it, or NULL with MSG set.
 */
static struct archive *
new_reader(const char *names, bool seekable, unsigned int flags, char *msg,
    size_t cap)
{
	struct archive *a = archive_read_new();

	if (a == NULL) {
		snprintf(msg, cap, "%s", strerror(ENOMEM));
		return NULL;
	}
	if (enable_filters(a, msg, cap) < 0 ||
	    enable_formats(a, names, seekable, msg, cap) < 0) {
		archive_read_free(a);
		return NULL;
	}
	/* -i: GNU tar's --ignore-zeros; libarchive's tar reader only. */
	if ((flags & XTR_READ_CONCAT) != 0 &&
	    archive_read_set_format_option(a, "tar",
	    "read_concatenated_archives", "1") == ARCHIVE_FATAL) {
		snprintf(msg, cap, "cannot read past zero blocks: %s",
		    archive_error_string(a));
		archive_read_free(a);
		return NULL;
	}
	return a;
}

/*
 * A Debian package (XTR_READ_DEB): an ar archive of "debian-binary",
 * "control.tar.*" and "data.tar.*".  The data member is read as the
 * archive, by a second reader whose input is the member's bytes as the
 * first one gives them: nothing is stored, and the member's (compressed)
 * bytes are what the second reader counts as its input, for the ratio.
 */
struct deb {
	struct archive *outer;		/* the ar: owned */
	struct xtr_head *tap;		/* one entry's headers counted, or
					   NULL (decode.h) */
	char buf[XTR_BLOCK];
};

/* The inner reader's input: the member's next bytes.  Return: their
 * length (0 at the end), or -1 with INNER's error set (EFBIG: past one
 * entry's headers' limit, decode.h). */
static la_ssize_t
deb_read(struct archive *inner, void *arg, const void **out)
{
	struct deb *d = arg;
	la_ssize_t n;

	n = archive_read_data(d->outer, d->buf, xtr_header_room(inner, d->tap,
	    sizeof(d->buf)));
	if (n < 0)
		archive_set_error(inner, EIO, "%s",
		    archive_error_string(d->outer) != NULL ?
		    archive_error_string(d->outer) : "cannot read the package");
	else if (xtr_header_take(inner, d->tap, d->buf, (size_t)n) != 0)
		return -1;
	*out = d->buf;
	return n;
}

static int
deb_close(struct archive *inner, void *arg)
{
	struct deb *d = arg;

	(void)inner;
	archive_read_free(d->outer);
	free(d);
	return ARCHIVE_OK;
}

/*
 * Is NAME the member PREFIX ("control.tar", "data.tar") with a
 * compression dpkg-deb reads: none, ".gz", ".xz", ".zst", ".bz2" or
 * ".lzma"?
 */
static bool
is_deb_member(const char *name, const char *prefix)
{
	static const char *const suffixes[] = { "", ".gz", ".xz", ".zst",
	    ".bz2", ".lzma" };
	size_t n = strlen(prefix), i;

	if (strncmp(name, prefix, n) != 0)
		return false;
	for (i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++)
		if (strcmp(name + n, suffixes[i]) == 0)
			return true;
	return false;
}

/*
 * Is the package's member NAME, after "debian-binary", where dpkg-deb
 * takes it?  *CONTROL: the control member came.  SECURITY: --deb reads
 * the data member dpkg-deb would install, or none: members whose names
 * begin with '_' are passed over, and otherwise "control.tar" comes
 * first and "data.tar" next, each with a compression dpkg-deb knows
 * (dpkg-deb refuses the package else: a member "premature" before one
 * of them, or an unknown compression).  Return: 1 for the data member,
 * 0 to go on, -1 with MSG set to refuse the package.
 */
static int
deb_member(const char *name, bool *control, char *msg, size_t cap)
{
	if (name[0] == '_')
		return 0;
	if (!*control && is_deb_member(name, "control.tar")) {
		*control = true;
		return 0;
	}
	if (*control && is_deb_member(name, "data.tar"))
		return 1;
	snprintf(msg, cap, "not a Debian package as dpkg-deb reads it: "
	    "member '%.64s' where %s was due", name, *control ?
	    "data.tar (with a compression dpkg-deb knows)" : "control.tar");
	return -1;
}

/*
 * libarchive's ARCHIVE_ERRNO_FILE_FORMAT, which archive.h does not
 * export (archive_platform.h): EFTYPE where the system has it, else
 * EILSEQ.
 */
#ifdef EFTYPE
#define LA_ERRNO_FORMAT EFTYPE
#else
#define LA_ERRNO_FORMAT EILSEQ
#endif

static int open_errno(int);

/*
 * Open the data member of the package that OUTER (owned: freed with the
 * reader returned, or here on failure) reads, its header reads counted
 * in TAP (or NULL).  Return: a reader of the member's tar, or NULL with
 * MSG and *ERROR set.
 */
static struct archive *
open_deb(struct archive *outer, struct xtr_head *tap, char *msg, size_t cap,
    int *error)
{
	struct archive_entry *ae;
	struct archive *inner;
	struct deb *d;
	const char *name;
	char member[64];
	bool first = true, control = false;
	int r;

	for (;;) {
		r = archive_read_next_header(outer, &ae);
		if (r != ARCHIVE_OK && r != ARCHIVE_WARN) {
			snprintf(msg, cap, "cannot read the Debian package: %s",
			    r == ARCHIVE_EOF ? "it has no data.tar member" :
			    archive_error_string(outer) != NULL ?
			    archive_error_string(outer) : "corrupt");
			*error = r == ARCHIVE_EOF ? EILSEQ :
			    xtr_reader_errno(outer);
			archive_read_free(outer);
			return NULL;
		}
		name = archive_entry_pathname(ae);
		if (name == NULL)
			name = "";
		/* SECURITY: what dpkg-deb demands of its first member, so
		 * that --deb never reads an ar that is no package. */
		if (first && strcmp(name, "debian-binary") != 0) {
			snprintf(msg, cap, "not a Debian package: its first "
			    "member is not debian-binary");
			*error = EILSEQ;
			archive_read_free(outer);
			return NULL;
		}
		if (!first && (r = deb_member(name, &control, msg, cap)) != 0) {
			if (r == 1)
				break;
			*error = EILSEQ;
			archive_read_free(outer);
			return NULL;
		}
		first = false;
	}
	/* The name is the package reader's, gone with it. */
	snprintf(member, sizeof(member), "%s", name);
	inner = new_reader("tar", false, 0, msg, cap);
	d = inner != NULL ? malloc(sizeof(*d)) : NULL;
	if (d == NULL) {
		if (inner != NULL) {
			archive_read_free(inner);
			snprintf(msg, cap, "%s", strerror(ENOMEM));
		}
		*error = ENOMEM;
		archive_read_free(outer);
		return NULL;
	}
	d->outer = outer;
	d->tap = tap;
	/* The close callback frees D and the package's reader. */
	if (archive_read_open(inner, d, NULL, deb_read, deb_close) !=
	    ARCHIVE_OK) {
		snprintf(msg, cap, "cannot read the package's %s: %s", member,
		    archive_error_string(inner) != NULL ?
		    archive_error_string(inner) : "corrupt");
		*error = open_errno(archive_errno(inner));
		archive_read_free(inner);
		return NULL;
	}
	return inner;
}

/*
 * xtr_reader_open() for tar -M: the volumes joined, read as tar.
 * SECURITY: as GNU tar, never compressed -- a filter would have to read
 * across the joins, and GNU tar writes no such archive.
 */
static int open_errno(int e);

static struct archive *
open_multivolume(const struct pfx_input *in,
    const struct xtr_stop *stop, unsigned int dec_flags,
    struct xtr_volumes **vols, struct xtr_head *head, char *msg, size_t cap,
    int *error)
{
	struct opening o = { stop, 0, NULL, false, head, 0, NULL, NULL, 0,
	    NULL, 0, 0, false };
	struct xtr_volumes *joiner;
	struct archive *a;
	int r;

	if ((dec_flags & XTR_READ_DEB) != 0) {
		snprintf(msg, cap, "a Debian package is not read as volumes "
		    "(-M)");
		return NULL;
	}
	a = new_reader("tar", false, dec_flags, msg, cap);
	if (a == NULL)
		return NULL;
	joiner = NULL;
	r = open_volumes(a, in, &o, &joiner);
	if (r == ARCHIVE_OK && archive_filter_count(a) > 1) {
		snprintf(msg, cap, "cannot read a compressed multi-volume "
		    "archive (%s): GNU tar writes none",
		    archive_filter_name(a, 0));
		*error = EILSEQ;
		r = ARCHIVE_FATAL;
	} else if (r != ARCHIVE_OK) {
		int e = 0;

		/* The join's own cause first (a volume missing, out of
		 * sequence), else what opening says. */
		*error = xtr_volumes_error(joiner, &e) != NULL && e > 0 ? e :
		    o.open_err != 0 ? o.open_err : open_errno(archive_errno(a));
		snprintf(msg, cap, "cannot read archive: %s",
		    xtr_volumes_error(joiner, NULL) != NULL ?
		    xtr_volumes_error(joiner, NULL) :
		    archive_error_string(a) != NULL ?
		    archive_error_string(a) : "not a tar archive");
	}
	if (r != ARCHIVE_OK) {
		archive_read_free(a);
		xtr_volumes_free(joiner);
		return NULL;
	}
	*vols = joiner;
	return a;
}

/*
 * The errno of a failed opening whose libarchive errno is E.  Opening
 * reads no header: its only format error is that no format recognised
 * the input ("Unrecognized archive format", ARCHIVE_ERRNO_FILE_FORMAT),
 * EILSEQ here whatever the format.  Anything else is a compressed stream
 * that is truncated or damaged (libarchive's filters say
 * ARCHIVE_ERRNO_MISC, our decoders EIO), or a read that failed: EIO.
 */
static int
open_errno(int e)
{
	/* EFBIG: a limit our decoders enforce (decode.c, the ratio). */
	if (e == ENOMEM || e == ECANCELED || e == ETIMEDOUT || e == EFBIG)
		return e;
	if (e == LA_ERRNO_FORMAT)
		return EILSEQ;
	return EIO;
}

/* see reader.h */
int
xtr_reader_errno(struct archive *a)
{
	int e = archive_errno(a);

	/* EFBIG: a limit our decoders enforce (decode.c, the ratio). */
	if (e == ENOMEM || e == ECANCELED || e == ETIMEDOUT || e == EFBIG)
		return e;
	return EIO;
}

/*
 * Does the dictionary of the lzip or lzma stream that libarchive's own
 * filter decodes, if A has one, fit in MEM's budget (decode.h,
 * xtr_filter_dict())?  Looked at where that filter reads the bytes HEAD
 * kept, the first ones of the input or of our decoder's output (a .tar.lz
 * inside gzip), so when it is A's only filter.  If not, a message in MSG
 * (CAP bytes) names the budget.
 */
static bool
dict_fits(struct archive *a, const struct xtr_head *head,
    const struct xtr_dec_mem *mem, char *msg, size_t cap)
{
	int filter;
	uint64_t dict;

	if (mem->budget == 0 || archive_filter_count(a) != 2)
		return true;
	filter = archive_filter_code(a, 0);
	dict = xtr_filter_dict(filter, head->buf, head->len);
	if (dict <= mem->budget)
		return true;
	/* libarchive's own formatter knows no %llu. */
	(void)snprintf(msg, cap, "cannot read archive: %s decompression "
	    "failed: a dictionary of %llu MiB, more than the memory budget: "
	    "limit max-memory=%llu (raise limits.max_memory, or set it to 0)",
	    archive_filter_name(a, 0), (unsigned long long)(dict >> 20),
	    (unsigned long long)mem->budget);
	return false;
}

/* see reader.h */
struct archive *
xtr_reader_open(const struct pfx_input *in, const char *names,
    const struct xtr_stop *stop, unsigned int dec_flags,
    struct xtr_decoder **dec, struct xtr_volumes **vols, char *msg,
    size_t cap, int *error)
{
	struct pfx_limits lim = { .max_memory = PFX_DEFAULT_MAX_MEMORY };
	struct xtr_dec_mem mem;

	xtr_dec_mem_of(&lim, plat_thread_cpus(), &mem);
	return xtr_reader_open_head(in, names, stop, dec_flags, &mem, dec,
	    vols, NULL, NULL, msg, cap, error);
}

/* see reader.h */
struct archive *
xtr_reader_open_head(const struct pfx_input *in, const char *names,
    const struct xtr_stop *stop, unsigned int dec_flags,
    const struct xtr_dec_mem *mem, struct xtr_decoder **dec,
    struct xtr_volumes **vols, struct xtr_head *head,
    const struct xtr_read_place *place, char *msg, size_t cap, int *error)
{
	struct opening o = { stop, dec_flags & ~(XTR_READ_CONCAT |
	    XTR_READ_DEB | XTR_READ_MULTIVOL), dec, false, head, 0, mem,
	    place, 0, msg, cap, 0, false };
	struct archive *a;
	char *plain = NULL;
	bool seekable;
	off_t start;
	int r;

	*error = EINVAL;	/* new_reader(): the formats named */
	*dec = NULL;
	if (vols != NULL)
		*vols = NULL;
	/* One entry's headers' limit, for the read callbacks (decode.h). */
	if (head != NULL && mem != NULL) {
		head->hdr_max = mem->header_max;
		head->hdr_budget = mem->budget;
	}
	if ((dec_flags & XTR_READ_MULTIVOL) != 0)
		return open_multivolume(in, stop, dec_flags, vols, head, msg,
		    cap, error);
	if (names == NULL)
		names = default_formats;
	/* A package is an ar, whatever else the caller named. */
	if ((dec_flags & XTR_READ_DEB) != 0)
		names = "ar";
	o.dec_flags &= ~XTR_READ_DEB;
	*dec = NULL;
	/* A path is read as a file (libarchive seeks a regular file); an
	 * fd only if it can seek. */
	seekable = in->path != NULL || in->buf != NULL ||
	    (in->fd >= 0 && lseek(in->fd, 0, SEEK_CUR) != -1);
	/* A 7z's header, which libarchive decodes and lists whole before
	 * the first entry, is looked at first, and its reader enabled only
	 * where it was (fits_7z()). */
	if (mem != NULL && mem->budget != 0 && format_named(names, "7zip")) {
		o.budget_7z = mem->budget;
		if ((plain = without_format(names, "7zip")) == NULL) {
			snprintf(msg, cap, "%s", strerror(ENOMEM));
			*error = ENOMEM;
			return NULL;
		}
		names = plain;
	}
	a = new_reader(names, seekable, dec_flags, msg, cap);
	if (a == NULL) {
		free(plain);
		return NULL;
	}
	/*
	 * A compressed stream that holds nothing (`gzip </dev/null`) is an
	 * empty archive, as for bsdtar and GNU tar; an input of no byte at
	 * all is not, as for GNU tar, unless the caller names "empty".
	 */
	if (!format_named(names, "empty") &&
	    archive_read_support_format_empty(a) != ARCHIVE_OK) {
		snprintf(msg, cap, "cannot enable format empty: %s",
		    archive_error_string(a));
		goto fail;
	}
	start = in->buf == NULL && in->fd >= 0 && seekable ?
	    lseek(in->fd, 0, SEEK_CUR) : -1;
	r = open_input(a, in, seekable, &o);
	if (o.limit_err != 0) {
		*error = o.limit_err;
		goto fail;
	}
	if (o.open_err != 0) {
		snprintf(msg, cap, "%s: cannot open archive: %s",
		    in->path != NULL ? in->path : "input",
		    strerror(o.open_err));
		*error = o.open_err;
		goto fail;
	}
	/*
	 * A zip whole but for its end record's signature has no directory
	 * to read it by, nor one to disagree with its local headers: it is
	 * read by them, as from a pipe, with every entry's checks.
	 */
	if (r != ARCHIVE_OK && seekable && looks_like_zip(in) &&
	    zip_end_unsigned(in) && (in->buf != NULL || start >= 0) &&
	    (start < 0 || lseek(in->fd, start, SEEK_SET) == start)) {
		archive_read_free(a);
		a = new_reader(names, false, 0, msg, cap);
		if (a == NULL) {
			free(plain);
			return NULL;
		}
		if (head != NULL)
			head->len = 0;
		r = open_input(a, in, seekable, &o);
	}
	if (r == ARCHIVE_OK && o.raw_empty && !format_named(names, "empty")) {
		snprintf(msg, cap, "cannot read archive: the input is empty "
		    "(0 bytes), which is no archive");
		*error = EILSEQ;
		goto fail;
	}
	if (r != ARCHIVE_OK && seekable && looks_like_zip(in)) {
		snprintf(msg, cap, "cannot read archive: a zip archive whose "
		    "central directory is missing or damaged (truncated?)");
		*error = EIO;
		goto fail;
	}
	if (r != ARCHIVE_OK && o.budget_7z != 0 && head != NULL &&
	    head->len >= XTR_7Z_MAGIC_LEN && xtr_7z_magic(head->buf)) {
		snprintf(msg, cap, "cannot read archive: a 7z archive is read "
		    "only from a file or a buffer, uncompressed, where its "
		    "header is costed before libarchive lists it (not from a "
		    "pipe, a compressed input or with -G)");
		*error = EILSEQ;
		goto fail;
	}
	if (r != ARCHIVE_OK) {
		/* No format reader took it ("Unrecognized archive
		 * format"): open_errno() says PFX_ENOTARCHIVE (EILSEQ). */
		snprintf(msg, cap, "cannot read archive: %s",
		    archive_error_string(a) != NULL ?
		    archive_error_string(a) : r == ARCHIVE_FATAL &&
		    in->path == NULL && in->buf == NULL && in->fd < 0 ?
		    "no input" : "not an archive of an enabled format, or "
		    "truncated or corrupt");
		*error = open_errno(archive_errno(a));
		goto fail;
	}
	/* A 7z candidate that one of libarchive's filters decodes (a
	 * uuencoded part after a program's first bytes): what the 7z
	 * reader would read was not looked at. */
	if (o.read_7z && archive_filter_count(a) > 1) {
		snprintf(msg, cap, "cannot read archive: an input that starts "
		    "as a 7z or a program, which libarchive decodes (%s)",
		    archive_filter_name(a, 0));
		*error = EILSEQ;
		goto fail;
	}
	if (head != NULL && mem != NULL && !dict_fits(a, head, mem, msg,
	    cap)) {
		*error = ENOMEM;
		goto fail;
	}
	/* libarchive decodes it (bzip2, lz4, rpm ...), or a package's
	 * member is the archive: the bytes kept are not the archive's. */
	if (head != NULL && ((dec_flags & XTR_READ_DEB) != 0 ||
	    (*dec == NULL && archive_filter_count(a) > 1)))
		head->unseen = true;
	free(plain);
	if ((dec_flags & XTR_READ_DEB) != 0) {
		*dec = NULL;	/* an ar is never ours to decode */
		return open_deb(a, head, msg, cap, error);
	}
	return a;
fail:
	free(plain);
	*dec = NULL;
	archive_read_free(a);
	errno = *error;
	return NULL;
}

/* see reader.h */
uint64_t
xtr_reader_archive_bytes(struct archive *ar)
{
	la_int64_t n = archive_filter_bytes(ar, 0);

	return n > 0 ? (uint64_t)n : 0;
}

/* see reader.h */
uint64_t
xtr_reader_raw_bytes(struct archive *ar, const struct xtr_decoder *dec,
    const struct xtr_head *head)
{
	la_int64_t n;

	/*
	 * Some filters count what they read only when their read-ahead
	 * buffer is used up (compress: 64 KiB); our decoder counts what
	 * libarchive took, and a stage what its filters had read when the
	 * format reader took its last block.
	 */
	if (dec != NULL)
		return xtr_decoder_raw_bytes(dec);
	if (head != NULL && head->staged)
		return head->raw;
	n = archive_filter_bytes(ar, -1);
	return n > 0 ? (uint64_t)n : 0;
}
