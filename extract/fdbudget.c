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
 * caller took some), given back by the reading thread, which owns the
 * kept directories and the queue, and the step tried again, after a nap
 * while other threads hold what is left, up to XTR_FD_WAIT_MS
 * (xtr_fd_relieve); the run keeps half as many for speed from then on.
 * The worker needs no descriptor of its own to empty the queue: a
 * commit's check beneath the root climbs without opening when none is
 * left (platform/beneath.c).  So a shortage of descriptors slows a run,
 * never fails it, unless even the ones it needs cannot be had.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "budget.h"
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

/* The longest of xtr_fd_relieve()'s naps, in ms. */
#define XTR_FD_NAP_MAX 64

/* The nap before the TRIES-th retry but one, in ms: 1, 2, 4 ... 64. */
static long
nap_ms(unsigned int tries)
{
	return tries < 6 ? 1L << tries : XTR_FD_NAP_MAX;
}

/*
 * Nap before the TRIES-th retry but one, unless the naps before it lasted
 * XTR_FD_WAIT_MS in all.  Return: whether it napped.
 */
static bool
nap(unsigned int tries)
{
	struct timespec ts;
	long ms = 0;
	unsigned int i;

	for (i = 0; i < tries && ms < XTR_FD_WAIT_MS; i++)
		ms += nap_ms(i);
	if (ms >= XTR_FD_WAIT_MS)
		return false;
	ts.tv_sec = 0;
	ts.tv_nsec = nap_ms(tries) * 1000000L;
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		continue;
	return true;
}

/* see fdbudget.h */
bool
xtr_fd_relieve(struct xtr *x, int r, unsigned int *tries)
{
	if (r != -EMFILE && r != -ENFILE)
		return false;
	if (*tries == 0) {
		/* Fewer kept from now on: room for the caller's others. */
		xtr_async_drain(x);
		xtr_async_fewer(x);
		xtr_parents_drop(x);
		if (x->parent_slots > 1)
			x->parent_slots /= 2;
	} else if (xtr_cancelled(x) || !nap(*tries - 1)) {
		return false;	/* a stop asked for ends the wait too */
	}
	(*tries)++;
	return true;
}

/* see fdbudget.h */
bool
xtr_fd_nap(int r, unsigned int *tries)
{
	if ((r != -EMFILE && r != -ENFILE) || !nap(*tries))
		return false;
	(*tries)++;
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
