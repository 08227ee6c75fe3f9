/*
 * paxdump.c -- the dump list of a POSIX-format incremental archive.
 *
 * GNU tar -g/-G in its gnu and oldgnu formats stores a directory's dump
 * list as the data of a 'D' entry, which libarchive reads (dumpdir.c).
 * With -H posix it stores the same list in the directory's pax header,
 * as a GNU.dumpdir record, and libarchive 3.6 drops that record.  So
 * the reader keeps the stream's last bytes (struct xtr_window, decode.h),
 * and when libarchive gives a directory of a pax archive, its headers
 * are read again from those very bytes, at the offset libarchive says
 * they began.
 *
 * SECURITY: this is a second look at bytes libarchive parsed, so the two
 * must agree on which entry it is, or the list is not used: the headers
 * read again must check as tar headers, and end in a directory header
 * whose name (the pax path record, else the ustar name and prefix) is
 * the name libarchive gave.  Any disagreement, or a header no longer
 * kept, stops the run with the reason: nothing is ever guessed.  The
 * list itself is then judged as a 'D' entry's is (dumpdir.c).
 * Cost: the window (PFX_DUMPDIR_MAX and 2 MiB), one copy of each byte
 * read, in -G runs only; a walk of at most XTR_PAXDUMP_HEADERS headers
 * per directory.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <archive.h>
#include <archive_entry.h>

#include "extract.h"
#include "paxdump.h"
#include "tarhead.h"

/* Extended headers walked before the entry's own: more is not tar's. */
#define XTR_PAXDUMP_HEADERS 8
/* The largest pax header read again: the list and a little more. */
#define XTR_PAXDUMP_PAX_MAX (PFX_DUMPDIR_MAX + (64u << 10))

/* What the walk found so far. */
struct walk {
	char *list;		/* the GNU.dumpdir value, or NULL */
	size_t len;
	char *path;		/* the pax path record, or NULL */
};

/* see paxdump.h */
struct xtr_window *
xtr_paxdump_window(void)
{
	return xtr_window_new(XTR_PAXDUMP_WINDOW);
}

/* A copy of the N bytes at P, NUL-ended, in *OUT (replacing it).  0/-1. */
static int
keep(char **out, const unsigned char *p, size_t n)
{
	char *c = malloc(n + 1);

	if (c == NULL)
		return -1;
	memcpy(c, p, n);
	c[n] = '\0';
	free(*out);
	*out = c;
	return 0;
}

/*
 * Read the records of a pax header's data D (N bytes) into W: GNU.dumpdir
 * and path.  Return: NULL, or the reason it is refused.
 */
static const char *
read_records(const unsigned char *d, size_t n, struct walk *w)
{
	size_t i = 0, len, k, eq;

	while (i < n) {
		len = 0;
		for (k = i; k < n && d[k] >= '0' && d[k] <= '9'; k++) {
			if (len > n)
				return "a pax record's length is out of range";
			len = len * 10 + (size_t)(d[k] - '0');
		}
		if (k == i || k >= n || d[k] != ' ' || len < k - i + 3 ||
		    len > n - i || d[i + len - 1] != '\n')
			return "a pax record is malformed";
		for (eq = k + 1; eq < i + len - 1 && d[eq] != '='; eq++)
			continue;
		if (eq == i + len - 1)
			return "a pax record has no '='";
		if (eq - k - 1 == 11 && memcmp(d + k + 1, "GNU.dumpdir", 11) == 0) {
			if (i + len - 1 - (eq + 1) > PFX_DUMPDIR_MAX)
				return "its GNU.dumpdir record is over "
				    "PFX_DUMPDIR_MAX";
			if (keep(&w->list, d + eq + 1, i + len - 1 - (eq + 1)))
				return strerror(ENOMEM);
			w->len = i + len - 1 - (eq + 1);
		} else if (eq - k - 1 == 4 && memcmp(d + k + 1, "path", 4) == 0) {
			if (keep(&w->path, d + eq + 1, i + len - 1 - (eq + 1)))
				return strerror(ENOMEM);
		}
		i += len;
	}
	return NULL;
}

/* The ustar name of header B (prefix "/" name) into OUT (257 bytes). */
static void
ustar_name(const unsigned char *b, char *out)
{
	size_t np = strnlen((const char *)b + 345, 155);
	size_t nn = strnlen((const char *)b, 100);
	size_t o = 0;

	if (memcmp(b + 257, "ustar", 5) == 0 && np > 0) {
		memcpy(out, b + 345, np);
		o = np;
		out[o++] = '/';
	}
	memcpy(out + o, b, nn);
	out[o + nn] = '\0';
}

/* Is block B all zeros? */
static bool
zero_block(const unsigned char *b)
{
	size_t i;

	for (i = 0; i < XTR_TAR_BLOCK; i++)
		if (b[i] != 0)
			return false;
	return true;
}

/*
 * Walk the headers of T from AT to the entry's own, reading the pax
 * records into W; NAME and NAME_UTF8 are libarchive's names of it.
 * Return: NULL, or the reason the list cannot be used.
 */
static const char *
walk_headers(const struct xtr_window *t, uint64_t at, const char *name,
    const char *name_utf8, struct walk *w)
{
	unsigned char b[XTR_TAR_BLOCK], *d;
	char ustar[257];
	const char *why, *own;
	uint64_t size;
	int n = 0;

	for (;;) {
		if (xtr_window_get(t, at, sizeof(b), b) == -1)
			return "its headers are no longer in the bytes kept";
		if (n == 0 && zero_block(b)) {
			at += XTR_TAR_BLOCK;	/* -i: zeros before it */
			continue;
		}
		if (!xtr_tar_header_ok(b))
			return "no tar header where libarchive read one";
		if (b[156] != 'x' && b[156] != 'g')
			break;
		if (++n > XTR_PAXDUMP_HEADERS)
			return "too many extended headers";
		if (xtr_tar_number(b + 124, 12, &size) == -1 ||
		    size > XTR_PAXDUMP_PAX_MAX)
			return "a pax header is over the size kept";
		d = malloc(size > 0 ? (size_t)size : 1);
		if (d == NULL)
			return strerror(ENOMEM);
		why = xtr_window_get(t, at + XTR_TAR_BLOCK, (size_t)size, d) == -1 ?
		    "its pax header is no longer in the bytes kept" :
		    b[156] == 'x' ? read_records(d, (size_t)size, w) : NULL;
		free(d);
		if (why != NULL)
			return why;
		at += XTR_TAR_BLOCK + (size + XTR_TAR_BLOCK - 1) /
		    XTR_TAR_BLOCK * XTR_TAR_BLOCK;
	}
	if (b[156] != '5')
		return "the header read again is not a directory's";
	ustar_name(b, ustar);
	own = w->path != NULL ? w->path : ustar;
	if (strcmp(own, name) != 0 &&
	    (name_utf8 == NULL || strcmp(own, name_utf8) != 0))
		return "the header read again names another entry";
	return NULL;
}

/* see paxdump.h */
int
xtr_paxdump_take(struct archive *ar, struct archive_entry *ae,
    const struct xtr_head *head, char **list, size_t *len,
    const char **reason)
{
	struct walk w = { NULL, 0, NULL };
	la_int64_t pos;
	int format;

	*list = NULL;
	*len = 0;
	if (ar == NULL || head == NULL || head->window == NULL)
		return XTR_PAXDUMP_NONE;
	format = archive_format(ar);
	if (archive_entry_filetype(ae) != AE_IFDIR ||
	    (format & ARCHIVE_FORMAT_BASE_MASK) != ARCHIVE_FORMAT_TAR ||
	    format == ARCHIVE_FORMAT_TAR_GNUTAR)
		return XTR_PAXDUMP_NONE;
	if (head->unseen || archive_filter_count(ar) > 1) {
		/* The bytes kept are not the tar's: a package's member, or
		 * a stream that libarchive decoded inside ours (stage.c
		 * stages libarchive's filters only where ours are none). */
		*reason = "its bytes are not kept: the archive is a Debian "
		    "package's member, or compressed twice, by libarchive "
		    "inside a format pfextract decodes (gzip, xz, zstd)";
		return XTR_PAXDUMP_BAD;
	}
	pos = archive_read_header_position(ar);
	*reason = pos < 0 ? "libarchive gave no header offset" :
	    walk_headers(head->window, (uint64_t)pos, archive_entry_pathname(ae),
	    archive_entry_pathname_utf8(ae), &w);
	free(w.path);
	if (*reason != NULL) {
		free(w.list);
		return XTR_PAXDUMP_BAD;
	}
	if (w.list == NULL)
		return XTR_PAXDUMP_NONE;
	*list = w.list;
	*len = w.len;
	archive_entry_set_size(ae, (la_int64_t)w.len);
	return XTR_PAXDUMP_FOUND;
}
