/*
 * source.c -- where the engine's entries come from: libarchive in this
 * process, or the decoder process (remote.c) when the run is sandboxed.
 * The engine reads both alike, and judges and writes what either gives.
 */
#include <errno.h>

#include <archive.h>
#include <archive_entry.h>

#include "extract.h"

/* see extract.h */
int
xtr_source_next(struct xtr *x, struct archive_entry *ae)
{
	int r;

	if (x->remote != NULL)
		return xtr_remote_next(x->remote, ae);
	r = archive_read_next_header2(x->ar, ae);
	/* WARN is a header read whole (a name not in the locale...). */
	if (r == ARCHIVE_WARN)
		return ARCHIVE_OK;
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

	if (x->remote != NULL)
		return xtr_remote_data(x->remote, buf, size, offset);
	r = archive_read_data_block(x->ar, buf, size, &off);
	*offset = off;
	return r;
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
	*error = archive_errno(x->ar) > 0 ? archive_errno(x->ar) : EIO;
	s = archive_error_string(x->ar);
	return s != NULL ? s : "truncated or corrupt";
}
