/*
 * fail.c -- the run's one fatal error, and the words it is said in.
 *
 * The lowest stage of the extractor that speaks: the limits (budget.c),
 * the tables, the writers and the engine all stop a run here, and the
 * first fatal error is the one kept.  It calls nothing of the extractor.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "extract.h"
#include "fail.h"

/* see fail.h */
void
xtr_fail(struct xtr *x, int error, const char *fmt, ...)
{
	va_list ap;

	if (x->fatal)
		return;		/* the first fatal error is the one reported */
	x->fatal = true;
	x->res->status = PFX_FATAL;
	/*
	 * A stop the caller asked for is told as such, whatever failed
	 * because of it: a read the signal interrupted is no corrupt
	 * archive.
	 */
	if (x->opt->cancel != NULL && *x->opt->cancel != 0) {
		x->res->error = ECANCELED;
		snprintf(x->res->message, sizeof(x->res->message),
		    "interrupted");
		return;
	}
	/*
	 * So is the memory budget: a caller whose xtr_mem_take() (or
	 * table add) was refused fails as for ENOMEM, but the reason is
	 * the limit, which the user can raise.
	 */
	if (atomic_load(&x->mem_over)) {
		x->res->error = EFBIG;
		snprintf(x->res->message, sizeof(x->res->message),
		    "limit max-memory=%" PRIu64 " reached: the archive's "
		    "names, links and tables need more (raise "
		    "limits.max_memory, or set it to 0)", x->opt->limits.max_memory);
		return;
	}
	x->res->error = error;
	va_start(ap, fmt);
	vsnprintf(x->res->message, sizeof(x->res->message), fmt, ap);
	va_end(ap);
}

/* see fail.h */
const char *
xtr_short_name(const char *name, char *buf)
{
	enum { HEAD = 100, TAIL = 40 };
	size_t len = strlen(name);

	if (len < XTR_SHORT_MAX)
		return name;
	memcpy(buf, name, HEAD);
	memcpy(buf + HEAD, "...", 3);
	memcpy(buf + HEAD + 3, name + len - TAIL, TAIL + 1);
	return buf;
}

/* see fail.h */
void
xtr_append_notice(struct pfx_result *res, const char *notice)
{
	size_t cap = sizeof(res->message), n = strlen(res->message);
	size_t len = strlen(notice);

	if (n > 0 && n + 2 + len >= cap) {
		/* Room for "...; " and the notice, at the message's end. */
		n = len + 6 < cap ? cap - len - 6 : 0;
		memcpy(res->message + n, "...", n > 0 ? 4 : 1);
		n = strlen(res->message);
	}
	snprintf(res->message + n, cap - n, "%s%s", n > 0 ? "; " : "",
	    notice);
}
