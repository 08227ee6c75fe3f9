/*
 * atomic.h -- all or nothing: a staging directory published at DEST
 * (atomic.c).
 */
#ifndef XTR_ATOMIC_H
#define XTR_ATOMIC_H

#include "extract.h"

/*
 * pfx_extract() with PFX_OPT_ATOMIC: extract into a staging directory
 * beside DEST and publish it at DEST, or remove it; DEST is left as it
 * was unless the tree is published.  Return: RESULT->status.
 */
enum pfx_status xtr_extract_atomic(const struct xtr_in *src, int dirfd,
    const char *dest, const struct pfx_options *opt,
    struct pfx_result *result);

#endif /* XTR_ATOMIC_H */
