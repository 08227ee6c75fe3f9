/*
 * next.c -- the engine's next entry: what is left of the current one's
 * data drained and counted against the limits (a bomb in an entry that
 * is refused, skipped or listed is stopped as one that is written), then
 * the next header from the source.  Above the limits (budget.c), which
 * read the source's counts, and the source itself.
 */
#include <archive.h>
#include <archive_entry.h>

#include "budget.h"
#include "extract.h"
#include "next.h"
#include "remote.h"
#include "source.h"

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

/* see next.h */
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
	/* WARN is a header read whole (a name not in the locale...). */
	if (r == ARCHIVE_WARN)
		r = ARCHIVE_OK;
	x->in_data = r == ARCHIVE_OK;
	/* RETRY too: a bad header would make every later block an entry
	 * of garbage. */
	return r == ARCHIVE_OK || r == ARCHIVE_EOF ? r : ARCHIVE_FATAL;
}
