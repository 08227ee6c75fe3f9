/*
 * report.c -- every entry's one report, and the run's one fatal error.
 *
 * Below the engine and the writers, which both call it: an entry ends
 * here (counted, given to the report hook, --strict applied), and so
 * does a run (the first fatal error is the one kept).  Reports keep
 * archive order with files still queued for the worker (async.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "budget.h"
#include "extract.h"
#include "fail.h"
#include "platform.h"
#include "report.h"
#include "table.h"
#include "worker.h"

/*
 * Was the destination itself removed?  A directory that was rmdir'ed
 * keeps working as a descriptor, but every name made in it fails with
 * ENOENT: that is no refusal of one entry but the end of the run.
 */
static bool
root_removed(struct xtr *x)
{
	struct stat st;
	int fd, r;

	fd = pfx_root_open_dir(&x->root, "");
	if (fd < 0)
		return fd == -ENOENT;
	r = fstat(fd, &st);
	(void)close(fd);
	return r == 0 && st.st_nlink == 0;
}

/* The reason code of ERROR, and is it an I/O failure? */
static const char *
errno_reason(int error, bool *io_failure)
{
	*io_failure = false;
	switch (error) {
	case EACCES:
	case EPERM:
		/* The destination's own: see xtr_error_reason(). */
		return "permission_denied";
	case ELOOP:
		return "symlink_in_path";
	case ENOTDIR:
		return "not_a_directory";
	case EISDIR:
	case ENOTEMPTY:
		return "is_a_directory";
	case EEXIST:
		return "exists";
	case EXDEV:
		return "escapes_root";
	case ENAMETOOLONG:
		return "too_long";
	case ENOENT:
		/* Only a concurrent writer removes what we just made. */
		return "vanished";
	case EMLINK:
		/*
		 * The archive's doing (65,001 hard links to one file on
		 * ext4), not the disk's: that entry is refused, and the
		 * others are still made, as GNU tar makes them.
		 */
		return "too_many_links";
	}
	*io_failure = true;
	return "io_error";
}

/*
 * May the run write in the destination itself?  EACCES and EPERM from
 * an entry are then that entry's: a directory beneath it that may not be
 * written (a read-only one an earlier archive left, another user's), an
 * immutable file, another user's file in a sticky directory.  If it may
 * not, no entry can be made, and the first such error ends the run
 * (a caller's Landlock domain too: plat_os_dir_writable()).
 */
static bool
dest_writable(const struct xtr *x)
{
	return x->root.fd >= 0 && plat_os_dir_writable(x->root.fd) == 0;
}

/* see report.h */
const char *
xtr_error_reason(const struct xtr *x, int error, bool *io_failure)
{
	const char *reason = errno_reason(error, io_failure);

	/* What an earlier archive left in DEST refuses one entry, never
	 * the good ones after it. */
	if (!*io_failure && (error == EACCES || error == EPERM) &&
	    !dest_writable(x)) {
		*io_failure = true;
		return "io_error";
	}
	return reason;
}


/* see report.h */
void
xtr_finish_entry(struct xtr *x, struct pfx_entry *entry,
    enum pfx_entry_status status, const char *reason, int error)
{
	struct pfx_stats *st = &x->res->stats;

	/* Reports in archive order: files queued before this entry first,
	 * or this report queued behind them. */
	if (xtr_async_defer(x, entry, status, reason, error))
		return;
	xtr_async_drain(x);
	entry->status = status;
	entry->reason = reason;
	entry->error = error;
	switch (status) {
	case PFX_ENTRY_EXTRACTED:
		st->extracted++;
		break;
	case PFX_ENTRY_LISTED:
		st->listed++;
		break;
	case PFX_ENTRY_REFUSED:
		st->refused++;
		break;
	case PFX_ENTRY_SKIPPED:
		st->skipped++;
		break;
	case PFX_ENTRY_FAILED:
		st->failed++;
		break;
	}
	st->bytes += entry->bytes;
	if (status != PFX_ENTRY_SKIPPED && status != PFX_ENTRY_LISTED)
		xtr_note_changed(x, entry->path);
	if (x->opt->hooks.report != NULL)
		x->opt->hooks.report(x->opt->hooks.arg, entry);
	if (status == PFX_ENTRY_REFUSED &&
	    (x->opt->flags & PFX_OPT_STRICT) != 0)
		xtr_fail(x, EPERM, "stopped at the first refused entry "
		    "(PFX_OPT_STRICT)");
}

/* see report.h */
void
xtr_finish_error(struct xtr *x, struct pfx_entry *e, int r)
{
	bool io;
	const char *reason = xtr_error_reason(x, -r, &io);
	char nb[XTR_SHORT_MAX];

	if (r == -ENOENT && root_removed(x)) {
		xtr_finish_entry(x, e, PFX_ENTRY_FAILED, reason, -r);
		xtr_fail(x, -r, "%s: the destination directory was removed "
		    "during extraction", xtr_short_name(e->name, nb));
		return;
	}
	if (xtr_cancelled(x)) {
		xtr_finish_entry(x, e, PFX_ENTRY_FAILED, "interrupted",
		    ECANCELED);
		return;
	}
	if (!io) {
		e->decision = PFX_DENY;
		xtr_finish_entry(x, e, PFX_ENTRY_REFUSED, reason, -r);
		return;
	}
	xtr_finish_entry(x, e, PFX_ENTRY_FAILED, reason, -r);
	xtr_fail(x, -r, "%s: %s", e->name, strerror(-r));
}

/* see report.h */
void
xtr_finish_existing(struct xtr *x, struct pfx_entry *e)
{
	if (x->opt->existing == PFX_EXISTING_SKIP) {
		e->bytes = 0;
		xtr_finish_entry(x, e, PFX_ENTRY_SKIPPED, "skipped_existing",
		    0);
		return;
	}
	e->bytes = 0;	/* what was written went with the temporary */
	e->decision = PFX_DENY;
	xtr_finish_entry(x, e, PFX_ENTRY_REFUSED, "exists", EEXIST);
}

/* see report.h */
void
xtr_finish_redirects(struct xtr *x, struct pfx_entry *e)
{
	e->bytes = 0;	/* what was written went with the temporary */
	e->decision = PFX_REJECT;
	xtr_finish_entry(x, e, PFX_ENTRY_REFUSED, "symlink_redirects", 0);
}

/* see report.h */
void
xtr_note_changed(struct xtr *x, const char *rel)
{
	char parent[PFX_PATH_MAX];
	const char *slash;
	size_t n;

	if ((x->opt->flags & PFX_OPT_FSYNC) == 0 || rel == NULL)
		return;
	slash = strrchr(rel, '/');
	if (slash == NULL)
		return;		/* the destination: always synced, last */
	n = (size_t)(slash - rel);
	if (n == 0 || n >= sizeof(parent))
		return;
	memcpy(parent, rel, n);
	parent[n] = '\0';
	if (xtr_table_add(&x->changed, parent) == NULL)
		xtr_fail(x, ENOMEM, "%s: %s", rel, strerror(ENOMEM));
}
