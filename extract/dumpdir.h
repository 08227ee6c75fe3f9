/*
 * dumpdir.h -- GNU incremental restore: a dump directory's list (dumpdir.c).
 */
#ifndef XTR_DUMPDIR_H
#define XTR_DUMPDIR_H

#include "extract.h"

/* Is AE a GNU dump directory, and the run PFX_OPT_INCREMENTAL? */
bool xtr_is_dumpdir(const struct xtr *x, struct archive_entry *ae);

/*
 * Read AE's list into *D (free it with xtr_dumpdir_free() whatever this
 * returns) and check it.  Return: 0; 1 with *REASON the entry's refusal
 * (malformed, renames, over PFX_DUMPDIR_MAX); -1 with the run failed.
 */
int xtr_dumpdir_read(struct xtr *x, struct archive_entry *ae,
    struct xtr_dumpdir *d, const char **reason);

void xtr_dumpdir_free(struct xtr *x, struct xtr_dumpdir *d);

/*
 * Make the renames of D ('R'/'T' pairs, 'X' temporaries), then remove
 * from the directory REL (the entry E) every name D does not keep,
 * telling the purged() hook of each.  A REL that is no directory is left
 * to the entry's own making.  Return: 0; 1 with *REASON the entry's
 * refusal (a rename's name refused, nothing done); -EFBIG with the run
 * stopped (a rename's path past --max-depth); or -errno.
 */
int xtr_dumpdir_purge(struct xtr *x, const struct pfx_entry *e,
    const char *rel, const struct xtr_dumpdir *d, const char **reason);

#endif /* XTR_DUMPDIR_H */
