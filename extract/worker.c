/*
 * worker.c -- the file-finishing worker (async.c) as those below it see
 * it.  The writers and the reports, which the worker calls, must also ask
 * it things: may a file be queued, wait for the files on a name's way,
 * queue a report behind them (report order has this one owner: the
 * worker's queue), hand it a file's data.  They ask through the table of
 * calls that async.c owns and sets in X when it starts (X->worker), never
 * by calling up into it.  Without a worker every answer is "nothing
 * queued": each file is finished where it is written, each report made
 * at once.
 */
#include <errno.h>

#include "extract.h"
#include "worker.h"

/* see worker.h */
bool
xtr_async_ready(struct xtr *x, const char *rel)
{
	return x->worker != NULL && x->worker->ready(x, rel);
}

/* see worker.h */
void
xtr_async_dir_ready(struct xtr *x, const char *rel)
{
	if (x->worker != NULL)
		x->worker->dir_ready(x, rel);
}

/* see worker.h */
bool
xtr_async_defer(struct xtr *x, struct pfx_entry *entry,
    enum pfx_entry_status status, const char *reason, int error)
{
	return x->worker != NULL &&
	    x->worker->defer(x, entry, status, reason, error);
}

/* see worker.h */
int
xtr_async_write(struct xtr *x, const struct xtr_meta *m,
    struct pfx_entry *entry, const char *rel)
{
	/* Only once xtr_async_ready() said yes, which needs a worker. */
	return x->worker != NULL ? x->worker->write(x, m, entry, rel) :
	    -EINVAL;
}

/* see worker.h */
void
xtr_async_drain(struct xtr *x)
{
	if (x->worker != NULL)
		x->worker->drain(x);
}

/* see worker.h */
int
xtr_async_segment(struct xtr *x, int fd, const void *buf, size_t len,
    uint64_t off)
{
	return x->worker != NULL ? x->worker->segment(x, fd, buf, len, off) :
	    -EINVAL;
}

/* see worker.h */
int
xtr_async_settle(struct xtr *x)
{
	return x->worker != NULL ? x->worker->settle(x) : 0;
}

/* see worker.h */
void
xtr_async_fewer(struct xtr *x)
{
	if (x->worker != NULL)
		x->worker->fewer(x);
}
