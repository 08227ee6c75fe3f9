/*
 * placed.c -- a plain archive file read into buffers its caller places.
 *
 * libarchive's own fd reader reads into a buffer of its own; this one asks
 * the caller for each block's buffer first (placed.h), and otherwise
 * reads as libarchive's does: whole blocks, a read that a signal
 * interrupted retried, skips within a regular file and seeks done with
 * lseek(2).  Every archive file that is not ours to decode is read here,
 * with a caller's buffers or not, so that each read is one of ours: one
 * entry's headers are counted as they are read (decode.h,
 * xtr_header_take()), which libarchive's fd and file readers would not
 * let us do.
 */
#include <sys/stat.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <archive.h>

#include "extract.h"
#include "placed.h"

struct placed {
	int fd;
	bool own_fd;		/* closed with the reader */
	const struct xtr_read_place *place;
	struct xtr_head *tap;	/* one entry's headers counted, or NULL */
	const struct xtr_stop *stop;	/* or NULL */
	unsigned char *own;	/* the block when PLACE gives none */
};

/* libarchive's read callback: one read(2), into the caller's buffer when
 * it gives one.  Return: the bytes read (0 at the end), or -1 (EFBIG:
 * past one entry's headers' limit, decode.h). */
static la_ssize_t
placed_read(struct archive *a, void *arg, const void **out)
{
	struct placed *p = arg;
	size_t cap = XTR_READ_BLOCK;
	void *buf = NULL;
	ssize_t n;
	int why;

	/* SECURITY: a file that never ends (/dev/zero under -i) blocks
	 * in no read(2) that a signal could cut short: the caller's
	 * cancellation and deadline are looked at before each. */
	why = xtr_stop_why(p->stop);
	if (why != 0) {
		archive_set_error(a, why, "%s", XTR_STOP_TEXT(why));
		return -1;
	}
	if (p->place != NULL)
		buf = p->place->get(p->place->ctx, &cap);
	if (buf == NULL) {
		if (p->own == NULL && (p->own = malloc(XTR_READ_BLOCK)) == NULL) {
			archive_set_error(a, ENOMEM, "%s", strerror(ENOMEM));
			return -1;
		}
		buf = p->own;
		cap = XTR_READ_BLOCK;
	}
	cap = xtr_header_room(a, p->tap, cap);
	do
		n = read(p->fd, buf, cap);
	while (n == -1 && errno == EINTR);
	if (n == -1) {
		archive_set_error(a, errno, "Error reading fd %d", p->fd);
		return -1;
	}
	if (buf != p->own)
		p->place->got(p->place->ctx, (size_t)n);
	if (xtr_header_take(a, p->tap, buf, (size_t)n) != 0)
		return -1;
	*out = buf;
	return n;
}

/* libarchive's skip callback: forward REQUEST bytes, or as many as can be
 * (0: libarchive reads them).  Only a regular file is skipped, and never
 * past its end: lseek(2) goes past the end without a word, and an archive
 * cut inside what is skipped (an entry's padding, an excluded member)
 * would then end as if whole.  What is not skipped libarchive reads, and
 * a read that finds the end tells it the input was cut.
 * Return: the bytes skipped, or -1. */
static la_int64_t
placed_skip(struct archive *a, void *arg, la_int64_t request)
{
	struct placed *p = arg;
	struct stat st;
	off_t from, to;

	if (request <= 0 || fstat(p->fd, &st) == -1 || !S_ISREG(st.st_mode))
		return 0;
	from = lseek(p->fd, 0, SEEK_CUR);
	if (from == -1 || from >= st.st_size)
		return 0;
	if (request > st.st_size - from)
		request = st.st_size - from;
	if ((to = lseek(p->fd, (off_t)request, SEEK_CUR)) == -1) {
		archive_set_error(a, errno, "Error seeking in fd %d", p->fd);
		return -1;
	}
	return (la_int64_t)(to - from);
}

/* libarchive's seek callback.  Return: the new offset, or a status. */
static la_int64_t
placed_seek(struct archive *a, void *arg, la_int64_t offset, int whence)
{
	struct placed *p = arg;
	off_t r;

	r = lseek(p->fd, (off_t)offset, whence);
	if (r != -1)
		return (la_int64_t)r;
	archive_set_error(a, errno, "Error seeking in fd %d", p->fd);
	return errno == ESPIPE ? ARCHIVE_FAILED : ARCHIVE_FATAL;
}

/* libarchive's close callback: the reader's own, and the fd if it is. */
static int
placed_close(struct archive *a, void *arg)
{
	struct placed *p = arg;

	(void)a;
	if (p->own_fd)
		(void)close(p->fd);
	free(p->own);
	free(p);
	return ARCHIVE_OK;
}

/* see placed.h */
int
xtr_placed_open(struct archive *a, int fd, bool own_fd,
    const struct xtr_read_place *place, struct xtr_head *tap,
    const struct xtr_stop *stop)
{
	struct placed *p;

	p = calloc(1, sizeof(*p));
	if (p == NULL) {
		if (own_fd)
			(void)close(fd);
		archive_set_error(a, ENOMEM, "%s", strerror(ENOMEM));
		return ARCHIVE_FATAL;
	}
	p->fd = fd;
	p->own_fd = own_fd;
	p->place = place;
	p->tap = tap;
	p->stop = stop;
	if (archive_read_set_read_callback(a, placed_read) != ARCHIVE_OK ||
	    archive_read_set_skip_callback(a, placed_skip) != ARCHIVE_OK ||
	    archive_read_set_seek_callback(a, placed_seek) != ARCHIVE_OK ||
	    archive_read_set_close_callback(a, placed_close) != ARCHIVE_OK ||
	    archive_read_set_callback_data(a, p) != ARCHIVE_OK) {
		if (own_fd)
			(void)close(fd);
		free(p);
		return ARCHIVE_FATAL;
	}
	/* libarchive calls placed_close() whether or not the open works. */
	return archive_read_open1(a);
}
