/*
 * fdbudget.c -- descriptors: what a run truly needs, and letting go of
 * the ones kept only for speed when there are too few.
 *
 * A run holds a few descriptors it cannot do without: the standard three,
 * the pinned root, the input, the decoder process's socket and pidfd (or
 * the decoder thread's wake pipe), and the handful one entry's walk and
 * file need at once (XTR_FD_MIN in all).  Everything else is held for
 * speed: the directories kept open for the names made in them next, one a
 * depth (parents.c), and the files queued for the worker thread
 * (async.c), two each.  Those
 * are sized from RLIMIT_NOFILE at the start (xtr_fd_queue_slots), and when
 * the system still says EMFILE or ENFILE (another thread of a library
 * caller took some), given back and the step tried again
 * (xtr_fd_relieve): a shortage of descriptors slows a run, never fails it,
 * unless even the ones it needs cannot be had.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "extract.h"
#include "fdbudget.h"
#include "kept.h"
#include "worker.h"

/* see fdbudget.h */
int
xtr_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur > (rlim_t)XTR_FD_PLENTY)
		return XTR_FD_PLENTY;
	return (int)rl.rlim_cur;
}

/* Descriptors beyond what the run needs and the spare, or 0. */
static unsigned int
fd_spare(void)
{
	int spare = xtr_fd_limit() - XTR_FD_MIN - XTR_FD_SPARE;

	return spare > 0 ? (unsigned int)spare : 0;
}

/* see fdbudget.h */
unsigned int
xtr_fd_parent_slots(void)
{
	unsigned int n = fd_spare() / 2;

	return n < XTR_PARENT_DEPTHS ? n : XTR_PARENT_DEPTHS;
}

/* see fdbudget.h */
size_t
xtr_fd_queue_slots(size_t most)
{
	size_t n;

	/* Each queued file holds its descriptor and its parent's. */
	n = (size_t)(fd_spare() - xtr_fd_parent_slots()) / 2;
	return n < most ? n : most;
}

/* see fdbudget.h */
bool
xtr_fd_relieve(struct xtr *x, int r)
{
	if (r != -EMFILE && r != -ENFILE)
		return false;
	xtr_async_drain(x);
	xtr_parents_drop(x);
	return true;
}

/* see fdbudget.h */
int
xtr_fd_check(const struct pfx_options *opt, size_t volumes,
    struct pfx_result *res)
{
	int need = XTR_FD_MIN, have = xtr_fd_limit();

	if ((opt->flags & PFX_OPT_LIST) != 0)
		return 0;
	/* tar -M: each later volume is held open for the whole run. */
	need += volumes < PFX_MAX_VOLUMES ? (int)volumes : PFX_MAX_VOLUMES;
	/* Decoding here: the decoder thread's pipe beside the input. */
	if ((opt->flags & (PFX_OPT_SANDBOX | PFX_OPT_SANDBOX_CHILD)) == 0)
		need += XTR_FD_INPROC;
	if ((opt->flags & PFX_OPT_ATOMIC) != 0)
		need += XTR_FD_ATOMIC;
	if (have >= need)
		return 0;
	memset(res, 0, sizeof(*res));
	res->status = PFX_FATAL;
	res->error = EMFILE;
	res->resolver = "none";
	(void)snprintf(res->message, sizeof(res->message), "too few file "
	    "descriptors: the limit (RLIMIT_NOFILE) is %d, extracting needs "
	    "%d%s", have, need, volumes > 0 ? " (one for each volume after "
	    "the first)" : "");
	return -1;
}
