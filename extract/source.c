/*
 * source.c -- where the engine's entries come from: libarchive in this
 * process, or the decoder process (remote.c) when the run is sandboxed.
 * The engine reads both alike, and judges and writes what either gives.
 */
#include <errno.h>

#include <archive.h>
#include <archive_entry.h>

#include "decode.h"
#include "extract.h"

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
		if (r == ARCHIVE_EOF)
			break;
		if (r != ARCHIVE_OK)
			return r == ARCHIVE_WARN ? ARCHIVE_OK : ARCHIVE_FATAL;
		if (xtr_cancelled(x) || xtr_check_bytes(x, name != NULL ?
		    name : "", 0, 0) != 0)
			return ARCHIVE_FATAL;
	}
	return ARCHIVE_OK;
}

/* see extract.h */
int
xtr_source_next(struct xtr *x, struct archive_entry *ae)
{
	int r;

	if (drain(x, ae) != ARCHIVE_OK)
		return ARCHIVE_FATAL;
	if (x->remote != NULL)
		r = xtr_remote_next(x->remote, ae);
	else
		r = archive_read_next_header2(x->ar, ae);
	xtr_source_note(x);
	/* WARN is a header read whole (a name not in the locale...). */
	if (r == ARCHIVE_WARN)
		r = ARCHIVE_OK;
	x->in_data = r == ARCHIVE_OK;
	/* RETRY too: a bad header would make every later block an entry
	 * of garbage. */
	return r == ARCHIVE_OK || r == ARCHIVE_EOF ? r : ARCHIVE_FATAL;
}

/* see extract.h */
int
xtr_source_data(struct xtr *x, const void **buf, size_t *size,
    int64_t *offset)
{
	la_int64_t off;
	int r;

	if (!x->in_data)
		return XTR_DATA_EOF;
	if (x->remote != NULL) {
		r = xtr_remote_data(x->remote, buf, size, offset);
	} else {
		r = archive_read_data_block(x->ar, buf, size, &off);
		*offset = off;
	}
	xtr_source_note(x);
	if (r == ARCHIVE_OK) {
		x->decoded += *size;
		return XTR_DATA_OK;
	}
	x->in_data = false;
	return r == ARCHIVE_EOF ? XTR_DATA_EOF : XTR_DATA_FAILED;
}

/* see extract.h */
int
xtr_source_format(const struct xtr *x)
{
	if (x->remote != NULL)
		return xtr_remote_format(x->remote);
	return archive_format(x->ar);
}

/* see extract.h */
int64_t
xtr_source_raw(const struct xtr *x)
{
	if (x->remote != NULL)
		return (int64_t)xtr_remote_raw(x->remote);
	/*
	 * Some filters count what they read only when their read-ahead
	 * buffer is used up (compress: 64 KiB); our decoder counts what
	 * libarchive took.
	 */
	if (x->dec != NULL)
		return (int64_t)xtr_decoder_raw_bytes(x->dec);
	return archive_filter_bytes(x->ar, -1);
}

/* see extract.h */
int64_t
xtr_source_header_pos(const struct xtr *x)
{
	la_int64_t pos;

	if (x->remote != NULL)
		return xtr_remote_header_pos(x->remote);
	pos = archive_read_header_position(x->ar);
	return pos >= 0 ? (int64_t)xtr_volumes_physical(x->vols,
	    (uint64_t)pos) : -1;
}

/* see extract.h */
uint64_t
xtr_source_archive_bytes(const struct xtr *x)
{
	if (x->remote != NULL)
		return xtr_remote_archive_bytes(x->remote);
	return xtr_volumes_physical(x->vols, xtr_reader_archive_bytes(x->ar));
}

/* see extract.h */
bool
xtr_source_sparse(const struct xtr *x, struct archive_entry *ae)
{
	if (x->remote != NULL)
		return xtr_remote_sparse(x->remote);
	return archive_entry_sparse_count(ae) > 0;
}

/* see extract.h */
const char *
xtr_source_error(const struct xtr *x, int *error, bool *channel)
{
	const char *s;

	if (x->remote != NULL)
		return xtr_remote_error(x->remote, error, channel);
	*channel = false;
	s = xtr_volumes_error(x->vols, error);
	if (s != NULL)
		return s;
	*error = xtr_reader_errno(x->ar);
	s = archive_error_string(x->ar);
	return s != NULL ? s : "truncated or corrupt";
}

/* see extract.h */
const struct xtr_head *
xtr_source_head(const struct xtr *x)
{
	if (x->remote != NULL)
		return xtr_remote_head(x->remote);
	return x->ar != NULL ? &x->head : NULL;
}

/* see extract.h */
void
xtr_source_note(struct xtr *x)
{
	const char *name = x->remote != NULL ? xtr_remote_note(x->remote) :
	    xtr_volumes_note(x->vols);

	if (name != NULL && x->opt->warning != NULL)
		x->opt->warning(x->opt->hooks.arg, "truncated_name", name);
}
