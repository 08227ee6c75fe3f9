/*
 * worker.h -- the file-finishing worker as those below it ask it things
 * (worker.c).
 */
#ifndef XTR_WORKER_H
#define XTR_WORKER_H

#include "extract.h"

/*
 * The worker's calls as those below it make them (worker.c): a table
 * that async.c owns and sets in xtr.worker while the worker runs, so that
 * the writers and the reports, which it calls, never call up into it.
 * Each is the xtr_async_*() of its name, declared below.
 */
struct xtr_worker {
	bool (*ready)(struct xtr *x, const char *rel);
	void (*dir_ready)(struct xtr *x, const char *rel);
	bool (*defer)(struct xtr *x, struct pfx_entry *entry,
	    enum pfx_entry_status status, const char *reason, int error);
	int (*write)(struct xtr *x, const struct xtr_meta *m,
	    struct pfx_entry *entry, const char *rel);
	void (*drain)(struct xtr *x);
	int (*segment)(struct xtr *x, int fd, const void *buf, size_t len,
	    uint64_t off);
	int (*settle)(struct xtr *x);
	void (*fewer)(struct xtr *x);
};

/*
 * May the file at REL be handed to the worker?  Waits first for any
 * queued file whose name is a directory on REL's way, so that REL's
 * parents are looked up as they will be.
 */
bool xtr_async_ready(struct xtr *x, const char *rel);

/*
 * Before the directory at REL is made: waits for any queued file whose
 * name is REL or a directory on its way.
 */
void xtr_async_dir_ready(struct xtr *x, const char *rel);

/*
 * Queue ENTRY's report (what xtr_finish_entry() was given) behind the
 * files queued before it, so that it is made in archive order without
 * waiting for them.  Not for a failure, nor with nothing queued.
 * Return: whether it was queued (if not, report it now).
 */
bool xtr_async_defer(struct xtr *x, struct pfx_entry *entry,
    enum pfx_entry_status status, const char *reason, int error);

/*
 * Write ENTRY's data at REL (xtr_write_data) and queue the file for the
 * worker, which finishes it; its report comes later, in archive order.
 * Return: 0, or what xtr_write_data() returned (nothing was queued).
 */
int xtr_async_write(struct xtr *x, const struct xtr_meta *m,
    struct pfx_entry *entry, const char *rel);

/*
 * Wait for every queued file and report each, in order.  Called before
 * anything that depends on earlier entries being finished.
 */
void xtr_async_drain(struct xtr *x);

/*
 * Queue LEN bytes of BUF (copied) for the worker to write at OFF of FD,
 * the file being written, which must stay open until its own job is
 * queued behind them, or until xtr_async_settle().
 * Return: 0, or the -errno of a write of this file that failed already.
 */
int xtr_async_segment(struct xtr *x, int fd, const void *buf, size_t len,
    uint64_t off);

/*
 * Wait until the worker has written every segment queued (reports are
 * left for later), and forget their failure, returned: 0 or -errno.
 * After it, the file they were for may be closed.
 */
int xtr_async_settle(struct xtr *x);

/*
 * Queue half as many files as before (two at least): a run short of
 * descriptors keeps fewer for speed.  Reading thread only.
 */
void xtr_async_fewer(struct xtr *x);

#endif /* XTR_WORKER_H */
