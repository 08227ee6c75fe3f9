/*
 * decmem.c -- the decoders' part of the memory budget, handed to decode/
 * as data (struct xtr_dec_mem), and the decoder process's RLIMIT_DATA
 * that caps it all.  Pure arithmetic on the limits (and RLIMIT_STACK),
 * below both the engine (budget.c's callers) and the decoder process
 * (child.c), which both need it.
 */
#include <sys/resource.h>

#include <stdint.h>

#include "decmem.h"
#include "extract.h"

/* see decmem.h */
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
	mem->max_ratio = lim->max_ratio;
	mem->ratio_after = lim->ratio_after;
	/* One entry's headers, as libarchive reads them (decode.h). */
	mem->header_max = budget == 0 ? 0 :
	    budget / XTR_HEADER_SHARE > XTR_HEADER_MIN ?
	    budget / XTR_HEADER_SHARE : XTR_HEADER_MIN;
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

/* see decmem.h */
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
