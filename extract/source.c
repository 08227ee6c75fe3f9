/*
 * source.c -- where the engine's entries come from: libarchive in this
 * process, or our own zip reader (zip.c) for the zips it takes, or the
 * decoder process (remote.c) when the run is sandboxed.
 * The engine reads both alike, and judges and writes what either gives.
 */
#include <errno.h>
#include <stdlib.h>

#include <archive.h>
#include <archive_entry.h>

#include "budget.h"
#include "decode.h"
#include "extract.h"
#include "fail.h"
#include "notes.h"
#include "paxdump.h"
#include "reader.h"
#include "remote.h"
#include "source.h"
#include "volumes.h"
#include "zip.h"


/*
 * Read what is left of the current entry's data, counting it as decoded:
 * a bomb in an entry that is refused, skipped or listed is stopped as one
 * that is written.  Return: ARCHIVE_OK, or ARCHIVE_FATAL with the run
 * failed (a limit, a cancel) or the source's error to report.
 */
static int
drain(struct xtr *x, struct archive_entry *ae)
{
	/* AE still holds the entry whose data this is. */
	const char *name = archive_entry_pathname(ae);
	const void *buf;
	size_t size;
	int64_t offset;
	int r;

	while (x->in_data) {
		r = xtr_source_data(x, &buf, &size, &offset);
		if (r == XTR_DATA_EOF)
			break;
		/* Data that fails its check is not written: the entry
		 * goes, the next one is read. */
		if (r != XTR_DATA_OK)
			return r == XTR_DATA_BAD ? ARCHIVE_OK : ARCHIVE_FATAL;
		if (xtr_cancelled(x) || xtr_check_bytes(x, name != NULL ?
		    name : "", 0, 0) != 0)
			return ARCHIVE_FATAL;
	}
	return ARCHIVE_OK;
}

/*
 * A directory of a pax archive read with -G: its GNU.dumpdir, which
 * libarchive drops, becomes its data (paxdump.c).  Return: 0, or -1 with
 * the reason set as the reader's error.
 */
static int
pax_list(struct xtr *x, struct archive_entry *ae)
{
	const char *reason = NULL;
	int r;

	r = xtr_paxdump_take(x->ar, ae, &x->head, &x->pax_list, &x->pax_len,
	    &reason);
	if (r != XTR_PAXDUMP_BAD)
		return 0;
	archive_set_error(x->ar, EILSEQ, "%s: the dump list of a -H posix "
	    "incremental archive cannot be read: %s",
	    archive_entry_pathname(ae) != NULL ?
	    archive_entry_pathname(ae) : "", reason);
	return -1;
}

/*
 * SECURITY: a decoder process taken over can send without end what
 * costs no data (empty blocks, the headers of entries refused or
 * skipped): every byte it sent counts as decoded, for the ratio, as the
 * stream's headers do.
 */
static void
count_sent(struct xtr *x)
{
	uint64_t n;

	if (x->remote == NULL)
		return;
	n = xtr_remote_sent(x->remote);
	if (n > x->stream_at)
		x->stream_at = n;
}

/*
 * SECURITY: the ratio limit counts the headers too.  Our decoders count
 * every byte they give (decode.c); a stream libarchive decodes itself
 * (bzip2, lz4, lzip ...) is counted here, at each header, up to where it
 * begins: pax headers of 1 MiB each, or -i's zero blocks, in which no
 * entry has data, are stopped at the next header.  Return: 0, or
 * XTR_LIMIT with the run failed.
 */
static int
header_ratio(struct xtr *x, struct archive_entry *ae)
{
	int64_t at = xtr_source_header_pos(x);
	const char *name = archive_entry_pathname(ae);

	if (at > 0 && (uint64_t)at > x->stream_at)
		x->stream_at = (uint64_t)at;
	count_sent(x);
	return xtr_check_bytes(x, name != NULL ? name : "", 0, 0);
}

/*
 * Tell of AE's header that libarchive read with a warning (ARCHIVE_WARN,
 * in this process or in the decoder's: wire.h WIRE_DAMAGED and
 * WIRE_UNCONVERTED): a name not in its character set, kept as its bytes;
 * or a part of it malformed and ignored (a pax record whose length lies,
 * as bsdtar says "Ignoring malformed pax extended attribute"), which
 * SECURITY: leaves an entry that is not what GNU tar reads (its ustar
 * name where GNU tar takes the pax path before the bad record): told,
 * never silent, and under PFX_OPT_STRICT the run stops here.  The run's
 * status stays what its entries make it: PFX_REFUSED says an entry was
 * refused, and this one is not.  Return: 0, or -1 when it stopped.
 */
static int
warn_header(struct xtr *x, struct archive_entry *ae)
{
	const char *name = archive_entry_pathname(ae);
	enum xtr_header_warn w;
	char nb[XTR_SHORT_MAX];

	if (name == NULL)
		name = "";
	w = x->remote != NULL ? xtr_remote_warning(x->remote) :
	    x->ar != NULL ? xtr_reader_warning(x->ar) : XTR_WARN_DAMAGED;
	if (w == XTR_WARN_DAMAGED &&
	    (x->opt->flags & PFX_OPT_STRICT) != 0) {
		xtr_fail(x, EILSEQ, "%s: a damaged header (a malformed part "
		    "of it ignored)", xtr_short_name(name, nb));
		return -1;
	}
	if (x->opt->warning != NULL)
		x->opt->warning(x->opt->hooks.arg, w == XTR_WARN_UNCONVERTED ?
		    "name_not_converted" : "header_damaged", name);
	return 0;
}

/*
 * SECURITY: the entry libarchive builds holds each extended attribute in
 * three allocations of its own (a list node, the name, the value): about
 * 112 bytes for a one-byte attribute, past what the header spends on it.
 * One header message of 466,000 of them grew the writer by 37 MB, so the
 * current entry's attributes are charged to the memory budget, from the
 * header that brings them to the next; crossing it fails the run at the
 * engine's next look (xtr_cancelled).
 */
#define XATTR_COST 128

static void
charge_xattrs(struct xtr *x, struct archive_entry *ae)
{
	size_t n = (size_t)archive_entry_xattr_count(ae);

	if (n != 0 && xtr_mem_take(x, n * XATTR_COST) == 0)
		x->xattr_mem = n * XATTR_COST;
}

/* see source.h */
int
xtr_source_next(struct xtr *x, struct archive_entry *ae)
{
	int r;

	if (drain(x, ae) != ARCHIVE_OK)
		return ARCHIVE_FATAL;
	free(x->pax_list);
	x->pax_list = NULL;
	xtr_mem_give(x, x->xattr_mem);
	x->xattr_mem = 0;
	if (x->remote != NULL)
		r = xtr_remote_next(x->remote, ae);
	else if (x->zip != NULL)
		r = xtr_zip_next(x->zip, ae);
	else
		r = xtr_reader_next(x->ar, &x->head, &x->cpio_walk,
		    &x->ar_entry, ae);
	xtr_source_note(x);
	/* WARN is a header read whole, but a part of it ignored or a
	 * name not converted: said, never silent, and the entry goes on. */
	if (r == ARCHIVE_WARN)
		r = warn_header(x, ae) == 0 ? ARCHIVE_OK : ARCHIVE_FATAL;
	if (r == ARCHIVE_OK && x->ar != NULL && pax_list(x, ae) < 0)
		r = ARCHIVE_FATAL;
	if (r == ARCHIVE_OK)
		charge_xattrs(x, ae);
	if (r == ARCHIVE_OK && x->remote == NULL && x->zip == NULL)
		xtr_span_begin(&x->span, ae);
	x->in_data = r == ARCHIVE_OK;
	if (r == ARCHIVE_OK && header_ratio(x, ae) != 0)
		return ARCHIVE_FATAL;
	/* RETRY too: a bad header would make every later block an entry
	 * of garbage. */
	return r == ARCHIVE_OK || r == ARCHIVE_EOF ? r : ARCHIVE_FATAL;
}

/* see source.h */
int
xtr_source_data(struct xtr *x, const void **buf, size_t *size,
    int64_t *offset)
{
	int r;

	if (!x->in_data)
		return XTR_DATA_EOF;
	if (x->pax_list != NULL) {	/* given once, whole */
		*buf = x->pax_list;
		*size = x->pax_len;
		*offset = 0;
		x->decoded += *size;
		x->in_data = false;	/* the next call says EOF */
		return XTR_DATA_OK;
	}
	if (x->remote != NULL) {
		r = xtr_remote_data(x->remote, buf, size, offset);
		count_sent(x);
	} else if (x->zip != NULL) {
		r = xtr_zip_data(x->zip, buf, size, offset);
	} else {
		r = xtr_reader_data(x->ar, &x->span, buf, size, offset);
	}
	xtr_source_note(x);
	if (r == ARCHIVE_OK) {
		x->decoded += *size;
		return XTR_DATA_OK;
	}
	x->in_data = false;
	/* WARN: data that fails its check (a zip member's CRC-32); FAILED,
	 * libarchive's word for an entry it cannot decode whose archive
	 * goes on (an encrypted zip member): that entry failed, and one
	 * refused, excluded or listed is passed over, as bsdtar does. */
	if (r == ARCHIVE_WARN || r == ARCHIVE_FAILED)
		return XTR_DATA_BAD;
	return r == ARCHIVE_EOF ? XTR_DATA_EOF : XTR_DATA_FAILED;
}

/* see source.h */
int
xtr_source_format(const struct xtr *x)
{
	if (x->remote != NULL)
		return xtr_remote_format(x->remote);
	if (x->zip != NULL)
		return ARCHIVE_FORMAT_ZIP;
	return archive_format(x->ar);
}

/* see source.h */
int64_t
xtr_source_header_pos(const struct xtr *x)
{
	la_int64_t pos;

	if (x->remote != NULL)
		return xtr_remote_header_pos(x->remote);
	if (x->zip != NULL)
		return xtr_zip_header_pos(x->zip);
	pos = archive_read_header_position(x->ar);
	return pos >= 0 ? (int64_t)xtr_volumes_physical(x->vols,
	    (uint64_t)pos) : -1;
}

/* see source.h */
uint64_t
xtr_source_archive_bytes(const struct xtr *x)
{
	if (x->remote != NULL)
		return xtr_remote_archive_bytes(x->remote);
	if (x->zip != NULL)
		return xtr_zip_archive_bytes(x->zip);
	return xtr_volumes_physical(x->vols, xtr_reader_archive_bytes(x->ar));
}

/* see source.h */
bool
xtr_source_sparse(const struct xtr *x, struct archive_entry *ae)
{
	if (x->remote != NULL)
		return xtr_remote_sparse(x->remote);
	if (x->zip != NULL)
		return false;
	return archive_entry_sparse_count(ae) > 0;
}

/* see source.h */
const char *
xtr_source_error(const struct xtr *x, int *error, bool *channel)
{
	const char *s;

	if (x->remote != NULL)
		return xtr_remote_error(x->remote, error, channel);
	*channel = false;
	if (x->zip != NULL)
		return xtr_zip_error(x->zip, error);
	s = xtr_volumes_error(x->vols, error);
	if (s != NULL)
		return s;
	*error = xtr_reader_errno(x->ar);
	s = archive_error_string(x->ar);
	return s != NULL ? s : "truncated or corrupt";
}

/* see source.h */
const struct xtr_head *
xtr_source_head(const struct xtr *x)
{
	if (x->remote != NULL)
		return xtr_remote_head(x->remote);
	return x->ar != NULL ? &x->head : NULL;
}

/* see source.h */
void
xtr_fail_read(struct xtr *x, const char *name)
{
	char nb[XTR_SHORT_MAX];
	const char *text;
	bool channel;
	int error;

	text = xtr_source_error(x, &error, &channel);
	if (channel)
		xtr_fail(x, error, "%s", text);
	else if (name != NULL)
		xtr_fail(x, error, "%s: archive data "
		    "cannot be read: %s", xtr_short_name(name, nb), text);
	else if (error != EIO)	/* the decoder process could not open it */
		xtr_fail(x, error, "%s", text);
	else
		xtr_fail(x, error, "corrupt or unreadable archive: %s", text);
}

/* see source.h */
void
xtr_source_note(struct xtr *x)
{
	const char *name;
	int kind;

	while ((name = x->remote != NULL ? xtr_remote_note(x->remote, &kind) :
	    xtr_volumes_note(x->vols, &kind)) != NULL)
		if (x->opt->warning != NULL)
			x->opt->warning(x->opt->hooks.arg, xtr_note_code(kind),
			    name);
}
