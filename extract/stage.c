/*
 * stage.c -- libarchive's filters as a stage of their own.
 *
 * A -G run reads pax headers that libarchive drops again from the last
 * bytes of the decompressed stream (paxdump.c, decode/window.c), so it
 * must see every byte the tar reader parses.  Our decoders (gzip, zstd,
 * xz) hand it those bytes; the formats libarchive decodes itself (bzip2,
 * lz4, lzip, lzma, compress, rpm) decode inside the reader, out of sight.
 * So in -G runs the input is opened by a first reader with the filters
 * and the raw format only, whose entry's data is the decompressed stream,
 * and the tar reader reads that stream through the callbacks here, each
 * block passing the window on the way.  libarchive still chooses and runs
 * the filters, with every check they make; nothing is decoded twice and
 * nothing is copied (archive_read_data_block() lends the filter's block).
 * A block is handed on in pieces of XTR_BLOCK at most, as a plain input
 * is read: a filter's block may be larger (lz4's are up to 4 MiB), and
 * the window (XTR_PAXDUMP_WINDOW) must still hold a header when the tar
 * reader gets to it.  (libarchive reads no pax header over 1 MiB, so a
 * whole block would fit today; the window's bound is not left to hang on
 * those two numbers.)
 * Cost: the same filters' memory, and one more reader's few buffers.
 */
#include <errno.h>
#include <stdlib.h>

#include <archive.h>
#include <archive_entry.h>

#include "extract.h"
#include "stage.h"

struct stage {
	struct archive *inner;	/* filters and raw: owned */
	struct xtr_head *head;
	bool end;		/* no byte follows: empty, or at its end */
	uint64_t given;		/* bytes handed on so far */
	const unsigned char *left;	/* of the block lent, not yet handed
					   on */
	size_t left_len;
};

/* Set A's error to INNER's, which failed (or DFLT when it says none). */
static void
pass_error(struct archive *a, struct archive *inner, const char *dflt)
{
	const char *s = archive_error_string(inner);
	int e = archive_errno(inner);

	archive_set_error(a, e > 0 ? e : EIO, "%s", s != NULL ? s : dflt);
}

/*
 * The stage's next block, lent, into S->left.  Return: 1, 0 at the
 * verified end of the stream, or -1 with A's error set to the filter's.
 */
static int
next_block(struct archive *a, struct stage *s)
{
	const void *p;
	size_t n;
	la_int64_t off, raw;
	int r;

	r = archive_read_data_block(s->inner, &p, &n, &off);
	if (r == ARCHIVE_EOF) {
		s->end = true;
		return 0;
	}
	/* The raw format's blocks follow each other: anything else is not
	 * the stream, and is never handed on as if it were. */
	if (r != ARCHIVE_OK || off < 0 || (uint64_t)off != s->given) {
		if (r == ARCHIVE_OK)
			archive_set_error(a, EIO, "the decompressed stream "
			    "is out of order");
		else
			pass_error(a, s->inner, "cannot decompress the input");
		return -1;
	}
	s->left = p;
	s->left_len = n;
	raw = archive_filter_bytes(s->inner, -1);
	s->head->raw = raw > 0 ? (uint64_t)raw : 0;
	return 1;
}

/*
 * The format reader's read callback: the next XTR_BLOCK bytes at most of
 * the stage's block, lent.  Return: their length (0 at the verified end
 * of the stream), or -1 with A's error set to the filter's (or EFBIG,
 * past one entry's headers' limit: decode.h, xtr_header_take()).
 */
static la_ssize_t
stage_read(struct archive *a, void *arg, const void **buf)
{
	struct stage *s = arg;
	size_t n;
	int r;

	while (s->left_len == 0) {
		if (s->end)
			return 0;
		r = next_block(a, s);
		if (r <= 0)
			return r;
	}
	n = s->left_len < XTR_BLOCK ? s->left_len : XTR_BLOCK;
	if (xtr_header_take(a, s->head, s->left, n) != 0)
		return -1;
	*buf = s->left;
	s->left += n;
	s->left_len -= n;
	s->given += n;
	xtr_head_add(s->head, *buf, n);
	return (la_ssize_t)n;
}

/* The format reader's close callback: the stage goes with it. */
static int
stage_close(struct archive *a, void *arg)
{
	struct stage *s = arg;

	(void)a;
	archive_read_free(s->inner);
	free(s);
	return ARCHIVE_OK;
}

/* see stage.h */
int
xtr_stage_open(struct archive *a, struct archive *inner, int r,
    struct xtr_head *head)
{
	struct archive_entry *ae;
	struct stage *s;

	/* The raw format's one entry is the stream; an empty stream is the
	 * empty format's, and no entry (the format reader decides). */
	if (r == ARCHIVE_OK)
		r = archive_read_next_header(inner, &ae);
	if (r != ARCHIVE_OK && r != ARCHIVE_EOF) {
		pass_error(a, inner, "cannot decompress the input");
		archive_read_free(inner);
		return ARCHIVE_FATAL;
	}
	s = calloc(1, sizeof(*s));
	if (s == NULL) {
		archive_read_free(inner);
		archive_set_error(a, ENOMEM, "out of memory");
		return ARCHIVE_FATAL;
	}
	s->inner = inner;
	s->head = head;
	s->end = r == ARCHIVE_EOF;
	head->staged = archive_filter_count(inner) > 1;
	head->raw = 0;
	/* libarchive calls stage_close() whether or not the open works. */
	return archive_read_open(a, s, NULL, stage_read, stage_close);
}
