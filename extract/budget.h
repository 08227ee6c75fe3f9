/*
 * budget.h -- the limits, the memory budget, the deadline and cancellation
 * (budget.c).
 */
#ifndef XTR_BUDGET_H
#define XTR_BUDGET_H

#include "extract.h"

/*
 * May entry NAME write WRITTEN more bytes (its own so far included) and
 * leave HOLE bytes of holes?  max-bytes counts what is written, holes
 * included; max-ratio counts what the source decoded (x->decoded, read
 * or drained, the block at hand included) and the holes, per archive
 * byte read.  Return: 0, or XTR_LIMIT with the run failed and the limit
 * named.
 */
int xtr_check_bytes(struct xtr *x, const char *name, uint64_t written,
    uint64_t hole);

/*
 * Count N more inodes against --max-entries: an entry read (before it is
 * taken on), or directories made implicitly for one.  Return: 0, or
 * XTR_LIMIT with the run failed.
 */
int xtr_count_inodes(struct xtr *x, unsigned int n);

/*
 * Take N bytes of the memory budget (pfx_limits.max_memory) for a
 * structure the archive grows (a name kept, a link queued, a table's
 * slots), or give them back.  Either thread may call them.  On crossing
 * the budget, take() returns -1 and the run fails at the reading
 * thread's next look (xtr_cancelled): the caller treats -1 as it would
 * ENOMEM, and no more is taken.  Return: 0, or -1.
 */
int xtr_mem_take(struct xtr *x, size_t n);
void xtr_mem_give(struct xtr *x, size_t n);

/*
 * As xtr_mem_take(), for what the run can do without (a cache): crossing
 * the budget is no failure; N is not taken.  Return: 0, or -1.
 */
int xtr_mem_try(struct xtr *x, size_t n);

/*
 * Has the caller cancelled the run (pfx_options.cancel), its deadline
 * passed (pfx_options.timeout), or the memory budget been crossed?  If so
 * the run is failed (ECANCELED, ETIMEDOUT, EFBIG).  Return: true if the
 * run must stop.
 */
bool xtr_cancelled(struct xtr *x);

/*
 * xtr_cancelled() without the memory budget, for the passes at the end,
 * which only give memory back: has the caller cancelled the run, or its
 * deadline passed?  If so the run is failed (ECANCELED, ETIMEDOUT), if
 * it was not already.  Return: true if the run must stop.
 */
bool xtr_out_of_time(struct xtr *x);

#endif /* XTR_BUDGET_H */
