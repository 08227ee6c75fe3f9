/*
 * next.h -- the engine's next entry, the current one's data drained (next.c).
 */
#ifndef XTR_NEXT_H
#define XTR_NEXT_H

#include "extract.h"

/*
 * Drain what is left of the current entry's data (counted against the
 * limits), then read the next header into AE.  Return: ARCHIVE_OK,
 * ARCHIVE_EOF, or ARCHIVE_FATAL (the run failed, or the source's error
 * to report: xtr_fail_read()).
 */
int xtr_source_next(struct xtr *x, struct archive_entry *ae);

#endif /* XTR_NEXT_H */
