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
 * dumprename.c: make the renames ('R'/'T' pairs, 'X' temporaries) of the
 * list D of the dump directory E, if the directory REL is there.
 * Return: 0; 1 with *REASON the refusal (a name refused, or links that a
 * move could lead out: nothing moved; or a move whose old path is
 * missing or new one taken: those before it were made); -EFBIG with the
 * run stopped (a path past --max-depth: nothing moved); or -errno (a
 * move failed otherwise, as for a refusal of the second kind).
 */
int xtr_dumpdir_rename(struct xtr *x, const struct pfx_entry *e,
    const struct xtr_dumpdir *d, const char *rel, const char **reason);

#endif /* XTR_DUMPRENAME_H */
