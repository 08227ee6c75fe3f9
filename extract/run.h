/*
 * run.h -- a whole run: pfx_extract() and the push API's way in (run.c).
 */
#ifndef XTR_RUN_H
#define XTR_RUN_H

#include "extract.h"

/*
 * pfx_extract() of SRC, whatever the flags: the descriptor check, then
 * all or nothing (atomic.c) or not.  Return: RESULT->status.
 */
enum pfx_status xtr_extract_any(const struct xtr_in *src, int dirfd,
    const char *dest, const struct pfx_options *opt,
    struct pfx_result *result);

#endif /* XTR_RUN_H */
