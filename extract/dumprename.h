/*
 * dumprename.h -- GNU incremental restore: the renames and the paths moved
 * (dumprename.c).
 */
#ifndef XTR_DUMPRENAME_H
#define XTR_DUMPRENAME_H

#include "extract.h"

/* Is REL, or a directory above it, a path a GNU rename moved from or to? */
bool xtr_dumpdir_moved(const struct xtr *x, const char *rel);

/*
 * dumprename.c: make D's renames ('R'/'T' pairs, 'X' temporaries), if
 * the directory REL is there.  Return: 0; 1 with *REASON the refusal (a
 * name refused, or links that a move could lead out: nothing moved; or
 * a move whose old path is missing or new one taken: those before it
 * were made); or -errno (a move failed otherwise, likewise).
 */
int xtr_dumpdir_rename(struct xtr *x, const struct xtr_dumpdir *d,
    const char *rel, const char **reason);

#endif /* XTR_DUMPRENAME_H */
