/*
 * budget.c -- what a run may spend: bytes written and decoded (the ratio),
 * inodes, memory, time, and the caller's cancellation.
 *
 * Each crossing fails the run with the limit named (xtr_fail); the
 * memory budget may be taken by either thread, so it is atomic.  The
 * decoders' part of the memory budget is worked out in decmem.c.
 */
#include <sys/resource.h>

#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <time.h>

#include "budget.h"
#include "extract.h"
#include "fail.h"
#include "raw.h"

/* Is the CLOCK_MONOTONIC time T behind us? */
static bool
past(const struct timespec *t)
{
	struct timespec now;

	(void)clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > t->tv_sec || (now.tv_sec == t->tv_sec &&
	    now.tv_nsec >= t->tv_nsec);
}

/* see budget.h */
bool
xtr_out_of_time(struct xtr *x)
{
	if (x->opt->cancel != NULL && *x->opt->cancel != 0) {
		xtr_fail(x, ECANCELED, "interrupted");
		return true;
	}
	if (x->deadline.tv_sec != 0 && past(&x->deadline)) {
		xtr_fail(x, ETIMEDOUT, "time limit of %u s reached "
		    "(pfx_options.timeout)", x->opt->timeout);
		return true;
	}
	return false;
}

/* see budget.h */
bool
xtr_cancelled(struct xtr *x)
{
	if (xtr_out_of_time(x))
		return true;
	if (atomic_load(&x->mem_over)) {
		xtr_fail(x, EFBIG, "max-memory");	/* told by xtr_fail */
		return true;
	}
	return false;
}

/* see budget.h */
int
xtr_check_bytes(struct xtr *x, const char *name, uint64_t written,
    uint64_t hole)
{
	const struct pfx_limits *lim = &x->opt->limits;
	char nb[XTR_SHORT_MAX];
	/* Files still queued for the worker have their bytes written. */
	uint64_t total = x->res->stats.bytes + x->queued_bytes + x->charged +
	    written + hole;
	/* What the source gave is in DECODED already, the block being
	 * written too; the stream up to the last header holds it, and
	 * every header and padding block before (STREAM_AT). */
	uint64_t seen = (x->decoded > x->stream_at ? x->decoded :
	    x->stream_at) + x->charged + hole;
	int64_t in;

	if (lim->max_bytes != 0 && total > lim->max_bytes) {
		xtr_fail(x, EFBIG, "%s: limit max-bytes=%" PRIu64 " reached "
		    "(written, holes included; raise limits.max_bytes, or "
		    "set it to 0)", xtr_short_name(name, nb), lim->max_bytes);
		return XTR_LIMIT;
	}
	if (lim->max_ratio == 0 || seen <= lim->ratio_after)
		return 0;
	/* The count may still be 0 past ratio_after (source.c); a bomb must
	 * not hide behind that. */
	in = xtr_source_raw(x);
	if (in < 1)
		in = 1;
	/* SECURITY: a bomb is stopped within one block of crossing, written
	 * or not: data decoded for a refused, skipped or listed entry counts
	 * as much. */
	if (seen / (uint64_t)in > lim->max_ratio) {
		xtr_fail(x, EFBIG, "%s: limit max-ratio=%" PRIu64 " reached: "
		    "%" PRIu64 " bytes decoded from %" PRId64 " read (raise "
		    "limits.max_ratio, or set it to 0)", xtr_short_name(name, nb),
		    lim->max_ratio, seen, in);
		return XTR_LIMIT;
	}
	return 0;
}

/* see budget.h */
int
xtr_count_inodes(struct xtr *x, unsigned int n)
{
	uint64_t max = x->opt->limits.max_entries;

	/* SECURITY: a name of 256 new components makes 256 directories;
	 * they are inodes as entries are. */
	if (max != 0 && x->inodes + n > max) {
		xtr_fail(x, EFBIG, "limit max-entries=%" PRIu64 " reached "
		    "(entries and the directories made for them; raise "
		    "limits.max_entries, or set it to 0)", max);
		return XTR_LIMIT;
	}
	x->inodes += n;
	return 0;
}

/* see budget.h */
int
xtr_mem_take(struct xtr *x, size_t n)
{
	uint64_t max = x->opt->limits.max_memory, was;

	if (atomic_load(&x->mem_over))
		return -1;
	was = atomic_fetch_add(&x->mem_used, (uint64_t)n);
	if (max != 0 && was + n > max) {
		atomic_fetch_sub(&x->mem_used, (uint64_t)n);
		atomic_store(&x->mem_over, true);
		return -1;
	}
	return 0;
}

/* see budget.h */
int
xtr_mem_try(struct xtr *x, size_t n)
{
	uint64_t max = x->opt->limits.max_memory, was;

	was = atomic_fetch_add(&x->mem_used, (uint64_t)n);
	if (max != 0 && was + n > max) {
		atomic_fetch_sub(&x->mem_used, (uint64_t)n);
		return -1;
	}
	return 0;
}

/* see budget.h */
void
xtr_mem_give(struct xtr *x, size_t n)
{
	atomic_fetch_sub(&x->mem_used, (uint64_t)n);
}
