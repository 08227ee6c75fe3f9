/*
 * hardlink.h -- a hard-link entry (hardlink.c).
 */
#ifndef XTR_HARDLINK_H
#define XTR_HARDLINK_H

#include "extract.h"

/* Make the hard-link entry ENTRY at REL to TARGET_REL.  Reports it. */
void xtr_make_hardlink(struct xtr *x, const struct xtr_meta *m,
    struct pfx_entry *entry, const char *rel, const char *target_rel);

#endif /* XTR_HARDLINK_H */
