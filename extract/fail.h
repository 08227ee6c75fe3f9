/*
 * fail.h -- the run's one fatal error, and the words it is said in (fail.c).
 */
#ifndef XTR_FAIL_H
#define XTR_FAIL_H

#include "extract.h"

/*
 * NAME, or when longer than fits a message beside the words that matter
 * (a limit's name and value), its head and tail around "...", in BUF of
 * XTR_SHORT_MAX bytes.  Return: NAME or BUF.
 */
#define XTR_SHORT_MAX 160
const char *xtr_short_name(const char *name, char *buf);

/*
 * Stop the run with a fatal error ERROR (errno) and a message; once the
 * caller cancelled, the error is ECANCELED and the message "interrupted".
 */
void xtr_fail(struct xtr *x, int error, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/*
 * Append NOTICE to RES's message after "; ", cutting the message, not the
 * notice, when both do not fit: a tree left on disk must always be told.
 */
void xtr_append_notice(struct pfx_result *res, const char *notice);

#endif /* XTR_FAIL_H */
