/*
 * budget.c -- what a run may spend: bytes written and decoded (the ratio),
 * inodes, memory, time, and the caller's cancellation.
 *
 * Each crossing fails the run with the limit named (xtr_fail); the
 * memory budget may be taken by either thread, so it is atomic.  The
 * decoders' part of the memory budget is worked out here too, and handed
 * to decode/ as data (xtr_dec_mem_of()).
 */
#include <sys/resource.h>

#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <time.h>

#include "extract.h"

/* Is the CLOCK_MONOTONIC time T behind us? */
static bool
past(const struct timespec *t)
{
	struct timespec now;

	(void)clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > t->tv_sec || (now.tv_sec == t->tv_sec &&
	    now.tv_nsec >= t->tv_nsec);
}

/* see extract.h */
bool
xtr_cancelled(struct xtr *x)
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
	if (atomic_load(&x->mem_over)) {
		xtr_fail(x, EFBIG, "max-memory");	/* told by xtr_fail */
		return true;
	}
	return false;
}

/* see extract.h */
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
	 * written too. */
	uint64_t seen = x->decoded + x->charged + hole;
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

/* see extract.h */
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

/* see extract.h */
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

/* see extract.h */
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

/* see extract.h */
void
xtr_mem_give(struct xtr *x, size_t n)
{
	atomic_fetch_sub(&x->mem_used, (uint64_t)n);
}

/* see extract.h */
void
xtr_dec_mem_of(const struct pfx_limits *lim, unsigned int cpus,
    struct xtr_dec_mem *mem)
{
	uint64_t budget = lim->max_memory;

	mem->budget = budget;
	/* Without a budget, the threads keep the default's share: more
	 * CPUs then never mean more memory. */
	mem->threading = (budget != 0 ? budget : PFX_DEFAULT_MAX_MEMORY) /
	    XTR_XZ_MEM_SHARE;
	mem->threads = cpus < 1 ? 1 : cpus > XTR_XZ_MAX_THREADS ?
	    XTR_XZ_MAX_THREADS : cpus;
}

/*
 * A thread's stack, as glibc sizes it by default: RLIMIT_STACK's soft
 * limit, or a default of its own where that is unlimited (2 MiB on
 * x86-64, 32 MiB on some others: counted at 32).
 */
static uint64_t
thread_stack(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_STACK, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
		return 32ull << 20;
	return (uint64_t)rl.rlim_cur;
}

/* see extract.h */
uint64_t
xtr_decoder_rlimit(const struct pfx_limits *lim,
    const struct xtr_dec_mem *mem)
{
	uint64_t stacks = ((uint64_t)mem->threads + 1) * thread_stack();

	if (lim->max_memory == 0)
		return 0;
	/* SECURITY: every writable private mapping counts against
	 * RLIMIT_DATA, a thread's stack too: the xz threads the budget
	 * lets run must fit, or a run within its budget would fail.  Half
	 * the headroom is theirs; more threads than that holds get more. */
	return lim->max_memory + XTR_DECODER_HEADROOM +
	    (stacks > XTR_DECODER_HEADROOM / 2 ? stacks -
	    XTR_DECODER_HEADROOM / 2 : 0);
}
