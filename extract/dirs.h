/*
 * dirs.h -- directory entries, and every directory's final mode and times
 * (dirs.c).
 */
#ifndef XTR_DIRS_H
#define XTR_DIRS_H

#include "extract.h"

/* Make the directory entry ENTRY at REL (REL may be "").  Reports it. */
void xtr_make_dir(struct xtr *x, const struct xtr_meta *m,
    struct pfx_entry *entry, const char *rel);

/*
 * Give every directory this run made its final mode and times; with
 * PFX_OPT_FSYNC, then sync every directory whose entries changed, deepest
 * first, and the destination last.
 */
void xtr_finish_dirs(struct xtr *x);

#endif /* XTR_DIRS_H */
