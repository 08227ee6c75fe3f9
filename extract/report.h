/*
 * report.h -- each entry's one report (report.c).
 */
#ifndef XTR_REPORT_H
#define XTR_REPORT_H

#include "extract.h"

/*
 * Give ENTRY its outcome: count it, report it through the hook, and apply
 * --strict.  Every entry passes here exactly once.
 */
void xtr_finish_entry(struct xtr *x, struct pfx_entry *entry,
    enum pfx_entry_status status, const char *reason, int error);

/*
 * Report the platform error R (-errno) on ENTRY: a refusal for the
 * conditions an archive can cause (ELOOP, ENOTDIR, EEXIST...), else a
 * failure of the destination, which is fatal.
 */
void xtr_finish_error(struct xtr *x, struct pfx_entry *entry, int r);

/* Report ENTRY, whose name exists, under -k or --skip-old-files. */
void xtr_finish_existing(struct xtr *x, struct pfx_entry *entry);

/*
 * Report ENTRY refused ("symlink_redirects"): it would have replaced a
 * symlink that a link already in the destination passes through.
 */
void xtr_finish_redirects(struct xtr *x, struct pfx_entry *entry);

/*
 * Turn a platform error for an entry of X's run into its reason code, and
 * say if it is an I/O failure of the destination (fatal) rather than a
 * refusal.  EACCES and EPERM refuse the entry alone (permission_denied)
 * while the destination itself may be written, and are fatal I/O
 * failures ("io_error") when it may not.
 */
const char *xtr_error_reason(const struct xtr *x, int error,
    bool *io_failure);

/*
 * With PFX_OPT_FSYNC, remember that the parent directory of REL (may be
 * NULL: nothing) changed, to be synced at the end.
 */
void xtr_note_changed(struct xtr *x, const char *rel);

#endif /* XTR_REPORT_H */
