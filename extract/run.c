/*
 * run.c -- pfx_extract(): the library's entry for a whole run, at the
 * top of the extractor.  It checks the caller's arguments (contract.c)
 * and the descriptors a run needs (fdbudget.c), then runs all or nothing
 * (atomic.c) or not (engine.c).  Nothing below calls it back: the push
 * API (writer.c) runs the same way from above.
 */
#include "atomic.h"
#include "contract.h"
#include "engine.h"
#include "extract.h"
#include "fdbudget.h"
#include "names.h"
#include "run.h"

/* see run.h */
enum pfx_status
xtr_extract_any(const struct xtr_in *src, int dirfd, const char *dest,
    const struct pfx_options *opt, struct pfx_result *result)
{
	/* Below what it needs, a run would stop part way: not begun. */
	if (xtr_fd_check(opt, src->in != NULL && (opt->flags &
	    PFX_OPT_MULTI_VOLUME) != 0 ? src->in->nvolumes : 0, result) < 0)
		return result->status;
	/* All or nothing (atomic.c); a listing writes nothing anyway. */
	if ((opt->flags & PFX_OPT_ATOMIC) != 0 &&
	    (opt->flags & (PFX_OPT_LIST | PFX_OPT_TO_FD)) == 0)
		return xtr_extract_atomic(src, dirfd, dest, opt, result);
	return xtr_extract(src, dirfd, dest, opt, result);
}

/* see pfextract.h */
enum pfx_status
pfx_extract(const struct pfx_input *in, int dirfd, const char *dest,
    const struct pfx_options *opt, struct pfx_result *result)
{
	struct pfx_options defaults, adopted;
	struct xtr_in src = { in, -1, NULL };

	/* Nowhere to say why: documented, not reported. */
	if (result == NULL)
		return PFX_FATAL;
	/* A caller built with an earlier release's header: its struct,
	 * the fields added since 0 (never read past what it has). */
	if (xtr_options_adopt(opt, &adopted))
		opt = &adopted;
	/* A value this library does not know is refused, not ignored. */
	if (xtr_contract_check(in, dest, opt, result) < 0)
		return result->status;
	if (opt == NULL) {
		pfx_options_init(&defaults);
		opt = &defaults;
	}
	return xtr_extract_any(&src, dirfd, dest, opt, result);
}
