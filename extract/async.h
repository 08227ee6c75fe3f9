/*
 * async.h -- the worker thread that finishes regular files (async.c).
 */
#ifndef XTR_ASYNC_H
#define XTR_ASYNC_H

#include "extract.h"

/* The CPUs a run needs to plan for (xtr.cpus) to start the worker. */
#define XTR_WORKER_MIN_CPUS 3u

/*
 * Start the worker thread that finishes regular files (xtr_finish_data)
 * while this thread reads on.  Without it (failure, fewer than
 * XTR_WORKER_MIN_CPUS, or a run that must stop at once on any error)
 * every file is finished here.  Return: 0, or -errno.
 */
int xtr_async_start(struct xtr *x);

/* Finish every queued file, report each, and stop the worker. */
void xtr_async_stop(struct xtr *x);

#endif /* XTR_ASYNC_H */
