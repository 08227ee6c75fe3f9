/*
 * fuzz_core.c -- libFuzzer harness for the decision core (pfx_path.h).
 *
 * The input is split into a policy and a request:
 *
 *   byte 0      flags: bit 0 PFX_POLICY_WINDOWS; bits 1-7 pick the
 *               capacity of a second, small output buffer (see below)
 *   byte 1      shape: bits 0-1 the number of allowed roots (0-3), bits
 *               2-3 the number of denied directories (0-3)
 *   then        that many '\n'-terminated policy strings, roots first;
 *               each is normalised with pfx_path_normalize() against "/"
 *               (so "tmp//a" is "/tmp/a") and dropped if it does not
 *               normalise
 *   the rest    the request, any bytes (NUL and '\n' included)
 *
 * Oracles; any failure is an abort():
 *
 *   1. The verdict's invariants.  ALLOW and DENY carry a normalised
 *      absolute path: it starts with '/', has no empty, "." or ".."
 *      component, no trailing '/', no NUL, and a NUL after it.  ALLOW is
 *      beneath its root by whole components, under no denied directory
 *      (deny wins), under no earlier root, and its rel part is the path
 *      minus the root.  DENY is under its denied directory, or under no
 *      root and no denied directory.  REJECT has path_len 0 and a reject
 *      reason; the Windows reasons only under PFX_POLICY_WINDOWS.
 *   2. Normalising an ALLOW or DENY path again gives the same bytes, and
 *      asking twice gives the same verdict.
 *   3. An independent reference model, written here from the contract in
 *      pfx_path.h and sharing no code with core/: split on '/', a stack of
 *      components over the base (".." below the base is "escapes", a path
 *      that grows past the limit is "too_long"), then deny and allow by
 *      comparing component lists.  The core must agree on the decision,
 *      the reason, the root, the path and the relative path -- for every
 *      input, except that a Windows reason under PFX_POLICY_WINDOWS is
 *      taken on trust (the model knows nothing of Windows).
 *   4. pfx_path_normalize() into a buffer of exactly CAP bytes (from the
 *      heap, so ASan sees one byte too far) answers as the model does
 *      with that capacity: the same path, or "too_long".
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pfx_path.h"
#include "fuzz.h"

#define MAX_ALLOW 3
#define MAX_DENY 3

/* A normalised path of PFX_PATH_MAX - 1 bytes has at most this many
 * components ("/x" each). */
#define MAX_COMPS (PFX_PATH_MAX / 2 + 1)

/* One component: LEN bytes at PTR, in the request or in a root. */
struct comp {
	const char *ptr;
	size_t len;
};

/* A path as the model builds it: components, and the bytes it would
 * take as a string with "/" counted as 0 (as the core builds it). */
struct mpath {
	struct comp c[MAX_COMPS];
	size_t n;
	size_t bytes;
};

/* What the model says pfx_path_check() must answer. */
struct mverdict {
	enum pfx_decision decision;
	enum pfx_reason reason;
	size_t root;
	size_t root_comps;	/* ALLOW: components of the root */
};

static char roots[MAX_ALLOW + MAX_DENY][PFX_PATH_MAX];
static struct mpath root_paths[MAX_ALLOW + MAX_DENY];
static struct mpath req_path;
static struct pfx_verdict v1, v2;
static char rendered[PFX_PATH_MAX + 1];
static char renorm[PFX_PATH_MAX];

static void die(const char *fmt, ...)
    __attribute__((format(printf, 1, 2), noreturn));

static void
die(const char *fmt, ...)
{
	va_list ap;

	fputs("fuzz_core: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

static bool
is_win_reason(enum pfx_reason r)
{
	return r >= PFX_R_WIN_BACKSLASH && r < PFX_R_COUNT_;
}

static bool
is_reject_reason(enum pfx_reason r)
{
	return r >= PFX_R_EMPTY && r < PFX_R_COUNT_;
}

/* --- the reference model ---------------------------------------------- */

/* Split the normalised absolute path S (LEN bytes) into P. */
static void
model_split(const char *s, size_t len, struct mpath *p)
{
	const char *end = s + len, *q;

	p->n = 0;
	p->bytes = len == 1 ? 0 : len;
	s++;			/* the leading '/' */
	while (s < end) {
		q = memchr(s, '/', (size_t)(end - s));
		if (q == NULL)
			q = end;
		p->c[p->n].ptr = s;
		p->c[p->n].len = (size_t)(q - s);
		p->n++;
		s = q + 1;
	}
}

/*
 * Normalise IN (LEN bytes) into P, against BASE (a root of BASE_LEN
 * bytes, split into BASEP) when IN is relative, with LIMIT bytes at most
 * for the path at any point.  Everything but the Windows forms.
 * Return: the reason, PFX_R_NONE when normalised.
 */
static enum pfx_reason
model_normalize(const char *in, size_t len, const struct mpath *basep,
    size_t base_len, size_t limit, struct mpath *p)
{
	const char *s = in, *end = in + len, *q;
	size_t floor, n;

	if (len == 0)
		return PFX_R_EMPTY;
	if (memchr(in, '\0', len) != NULL)
		return PFX_R_NUL;
	if (len >= PFX_PATH_MAX)
		return PFX_R_TOO_LONG;
	p->n = 0;
	p->bytes = 0;
	if (in[0] != '/') {
		if (basep == NULL)
			return PFX_R_RELATIVE;
		if (base_len > limit)
			return PFX_R_TOO_LONG;
		memcpy(p->c, basep->c, basep->n * sizeof(p->c[0]));
		p->n = basep->n;
		p->bytes = basep->bytes;
	}
	floor = p->n;
	while (s < end) {
		q = memchr(s, '/', (size_t)(end - s));
		if (q == NULL)
			q = end;
		n = (size_t)(q - s);
		if (n == 0 || (n == 1 && s[0] == '.')) {
			/* nothing */
		} else if (n == 2 && s[0] == '.' && s[1] == '.') {
			if (p->n == floor)
				return PFX_R_ESCAPES;
			p->n--;
			p->bytes -= 1 + p->c[p->n].len;
		} else {
			if (n > PFX_NAME_MAX)
				return PFX_R_TOO_LONG;
			if (p->bytes + 1 + n > limit)
				return PFX_R_TOO_LONG;
			p->c[p->n].ptr = s;
			p->c[p->n].len = n;
			p->n++;
			p->bytes += 1 + n;
		}
		s = q + 1;
	}
	return PFX_R_NONE;
}

/* Write P from component FROM on, joined by '/', with a leading '/' if
 * LEAD, into rendered[].  Return: its length. */
static size_t
model_render(const struct mpath *p, size_t from, bool lead)
{
	size_t i, n = 0;

	for (i = from; i < p->n; i++) {
		if (lead || i > from)
			rendered[n++] = '/';
		memcpy(rendered + n, p->c[i].ptr, p->c[i].len);
		n += p->c[i].len;
	}
	if (lead && n == 0)
		rendered[n++] = '/';
	rendered[n] = '\0';
	return n;
}

/* Is P beneath (or equal to) D, comparing whole components? */
static bool
model_beneath(const struct mpath *p, const struct mpath *d)
{
	size_t i;

	if (d->n > p->n)
		return false;
	for (i = 0; i < d->n; i++) {
		if (d->c[i].len != p->c[i].len ||
		    memcmp(d->c[i].ptr, p->c[i].ptr, d->c[i].len) != 0)
			return false;
	}
	return true;
}

static void
model_check(const struct mpath *allow, size_t nallow,
    const struct mpath *deny, size_t ndeny, size_t base_len,
    const char *in, size_t len, struct mverdict *mv)
{
	size_t i;

	memset(mv, 0, sizeof(*mv));
	mv->reason = model_normalize(in, len, nallow > 0 ? &allow[0] : NULL,
	    base_len, PFX_PATH_MAX - 1, &req_path);
	if (mv->reason != PFX_R_NONE) {
		mv->decision = PFX_REJECT;
		return;
	}
	for (i = 0; i < ndeny; i++) {
		if (model_beneath(&req_path, &deny[i])) {
			mv->decision = PFX_DENY;
			mv->reason = PFX_R_DENIED;
			mv->root = i;
			return;
		}
	}
	for (i = 0; i < nallow; i++) {
		if (model_beneath(&req_path, &allow[i])) {
			mv->decision = PFX_ALLOW;
			mv->root = i;
			mv->root_comps = allow[i].n;
			return;
		}
	}
	mv->decision = PFX_DENY;
	mv->reason = PFX_R_OUTSIDE;
}

/* --- the verdict's invariants, on strings ------------------------------ */

/* Return: NULL if P (LEN bytes) is a normalised absolute path, else why. */
static const char *
bad_shape(const char *p, size_t len)
{
	size_t i, start;

	if (len == 0 || len >= PFX_PATH_MAX)
		return "length";
	if (p[0] != '/')
		return "not absolute";
	if (p[len] != '\0')
		return "not NUL-terminated";
	if (memchr(p, '\0', len) != NULL)
		return "NUL inside";
	if (len == 1)
		return NULL;
	if (p[len - 1] == '/')
		return "trailing '/'";
	for (i = 1; i <= len; i = start + 1) {
		start = i;
		while (start < len && p[start] != '/')
			start++;
		if (start == i)
			return "empty component";
		if (start - i == 1 && p[i] == '.')
			return "\".\" component";
		if (start - i == 2 && p[i] == '.' && p[i + 1] == '.')
			return "\"..\" component";
		if (start - i > PFX_NAME_MAX)
			return "component too long";
	}
	return NULL;
}

/* Is P (PLEN bytes) beneath or at D (DLEN bytes), by whole components? */
static bool
str_beneath(const char *p, size_t plen, const char *d, size_t dlen)
{
	if (dlen == 1)
		return true;
	return plen >= dlen && memcmp(p, d, dlen) == 0 &&
	    (plen == dlen || p[dlen] == '/');
}

static void
check_invariants(const struct pfx_policy *pol, const struct pfx_verdict *v)
{
	const struct pfx_span *r;
	const char *why;
	size_t i;

	if (v->decision == PFX_REJECT) {
		if (v->path_len != 0)
			die("REJECT with path_len %zu", v->path_len);
		if (!is_reject_reason(v->reason))
			die("REJECT with reason %s",
			    pfx_reason_name(v->reason));
		if (is_win_reason(v->reason) &&
		    (pol->flags & PFX_POLICY_WINDOWS) == 0)
			die("Windows reason %s without the Windows policy",
			    pfx_reason_name(v->reason));
		return;
	}
	if (v->decision != PFX_ALLOW && v->decision != PFX_DENY)
		die("decision %d", (int)v->decision);
	why = bad_shape(v->path, v->path_len);
	if (why != NULL)
		die("%s path \"%s\": %s", pfx_decision_name(v->decision),
		    v->path, why);
	/* SECURITY: deny always wins. */
	for (i = 0; i < pol->ndeny; i++) {
		r = &pol->deny[i];
		if (v->decision == PFX_ALLOW &&
		    str_beneath(v->path, v->path_len, r->ptr, r->len))
			die("ALLOW \"%s\" is beneath deny \"%s\"", v->path,
			    r->ptr);
	}
	if (v->decision == PFX_DENY) {
		if (v->reason == PFX_R_DENIED) {
			if (v->root >= pol->ndeny || !str_beneath(v->path,
			    v->path_len, pol->deny[v->root].ptr,
			    pol->deny[v->root].len))
				die("DENIED \"%s\" by %zu", v->path, v->root);
			return;
		}
		if (v->reason != PFX_R_OUTSIDE)
			die("DENY with reason %s", pfx_reason_name(v->reason));
		for (i = 0; i < pol->nallow; i++) {
			r = &pol->allow[i];
			if (str_beneath(v->path, v->path_len, r->ptr, r->len))
				die("OUTSIDE \"%s\" is beneath root \"%s\"",
				    v->path, r->ptr);
		}
		for (i = 0; i < pol->ndeny; i++) {
			r = &pol->deny[i];
			if (str_beneath(v->path, v->path_len, r->ptr, r->len))
				die("OUTSIDE \"%s\" is beneath deny \"%s\"",
				    v->path, r->ptr);
		}
		return;
	}
	/* ALLOW */
	if (v->reason != PFX_R_NONE)
		die("ALLOW with reason %s", pfx_reason_name(v->reason));
	if (v->root >= pol->nallow)
		die("ALLOW with root %zu of %zu", v->root, pol->nallow);
	r = &pol->allow[v->root];
	if (!str_beneath(v->path, v->path_len, r->ptr, r->len))
		die("ALLOW \"%s\" not beneath its root \"%s\"", v->path,
		    r->ptr);
	for (i = 0; i < v->root; i++) {
		if (str_beneath(v->path, v->path_len, pol->allow[i].ptr,
		    pol->allow[i].len))
			die("ALLOW \"%s\": root %zu, but %zu came first",
			    v->path, v->root, i);
	}
	if (v->rel_off > v->path_len || v->rel_off + v->rel_len != v->path_len)
		die("ALLOW \"%s\": rel_off %zu rel_len %zu", v->path,
		    v->rel_off, v->rel_len);
	if (v->rel_len == 0) {
		if (v->path_len != r->len && !(r->len == 1 && v->path_len == 1))
			die("ALLOW \"%s\": empty rel, root \"%s\"", v->path,
			    r->ptr);
		return;
	}
	if (v->path[v->rel_off] == '/' || v->path[v->rel_off - 1] != '/')
		die("ALLOW \"%s\": rel at %zu not a whole component", v->path,
		    v->rel_off);
	if (v->rel_off != (r->len == 1 ? 1 : r->len + 1))
		die("ALLOW \"%s\": rel at %zu, root \"%s\"", v->path,
		    v->rel_off, r->ptr);
}

/* Normalising an allowed or denied path again changes nothing. */
static void
check_idempotent(const struct pfx_verdict *v)
{
	enum pfx_reason r;
	size_t n;

	if (v->decision == PFX_REJECT)
		return;
	r = pfx_path_normalize(v->path, v->path_len, NULL, 0, 0, renorm,
	    sizeof(renorm), &n);
	if (r != PFX_R_NONE || n != v->path_len ||
	    memcmp(renorm, v->path, n + 1) != 0)
		die("\"%s\" normalises again to %s \"%s\"", v->path,
		    pfx_reason_name(r), r == PFX_R_NONE ? renorm : "");
}

static void
check_same(const struct pfx_verdict *a, const struct pfx_verdict *b)
{
	if (a->decision != b->decision || a->reason != b->reason ||
	    a->path_len != b->path_len ||
	    memcmp(a->path, b->path, a->path_len + 1) != 0)
		die("two calls, two verdicts");
	if (a->decision == PFX_ALLOW && (a->root != b->root ||
	    a->rel_off != b->rel_off || a->rel_len != b->rel_len))
		die("two calls, two roots");
}

/* --- the core against the model ----------------------------------------- */

static void
compare(const struct pfx_policy *pol, const struct pfx_verdict *v,
    const struct mverdict *mv, enum pfx_reason pre)
{
	size_t n;

	/* The model knows nothing of Windows: trust a Windows reason, as
	 * long as nothing the model decides on the raw bytes came first. */
	if (pre == PFX_R_NONE && is_win_reason(v->reason) &&
	    (pol->flags & PFX_POLICY_WINDOWS) != 0)
		return;
	if (v->decision != mv->decision || v->reason != mv->reason)
		die("core says %s/%s \"%s\", model %s/%s",
		    pfx_decision_name(v->decision),
		    pfx_reason_name(v->reason), v->path,
		    pfx_decision_name(mv->decision),
		    pfx_reason_name(mv->reason));
	if (mv->decision == PFX_REJECT)
		return;
	n = model_render(&req_path, 0, true);
	if (n != v->path_len || memcmp(rendered, v->path, n) != 0)
		die("core path \"%s\", model \"%s\"", v->path, rendered);
	if (mv->decision == PFX_DENY && mv->reason == PFX_R_OUTSIDE)
		return;
	/* Deny: the core may name any denied directory that holds the path
	 * (invariants checked that); allow: the first root. */
	if (mv->decision == PFX_ALLOW) {
		if (v->root != mv->root)
			die("core root %zu, model %zu", v->root, mv->root);
		n = model_render(&req_path, mv->root_comps, false);
		if (n != v->rel_len ||
		    memcmp(rendered, v->path + v->rel_off, n) != 0)
			die("core rel \"%.*s\", model \"%s\"",
			    (int)v->rel_len, v->path + v->rel_off, rendered);
	}
}

/* The raw-byte checks the model can make: empty, NUL, too long. */
static enum pfx_reason
model_precheck(const char *in, size_t len)
{
	if (len == 0)
		return PFX_R_EMPTY;
	if (memchr(in, '\0', len) != NULL)
		return PFX_R_NUL;
	if (len >= PFX_PATH_MAX)
		return PFX_R_TOO_LONG;
	return PFX_R_NONE;
}

/*
 * Normalise the request into a heap buffer of exactly CAP bytes; the
 * answer must be the model's with a limit of CAP - 1 (the core clamps CAP
 * to PFX_PATH_MAX, and needs 2 bytes at least), and the same bytes as
 * the full-size answer when it succeeds.
 */
static void
check_small(const struct pfx_policy *pol, const char *in, size_t len,
    size_t cap, const struct mpath *basep, const struct pfx_verdict *full)
{
	static struct mpath small_path;
	enum pfx_reason r, mr, pre;
	size_t n = 0, mn;
	char *buf;

	buf = malloc(cap > 0 ? cap : 1);
	if (buf == NULL)
		die("out of memory");
	r = pfx_path_normalize(in, len, pol->nallow > 0 ? pol->allow[0].ptr :
	    NULL, pol->nallow > 0 ? pol->allow[0].len : 0, pol->flags, buf, cap,
	    &n);
	pre = model_precheck(in, len);
	if (cap < 2)
		mr = PFX_R_TOO_LONG;
	else
		mr = model_normalize(in, len, basep, pol->nallow > 0 ?
		    pol->allow[0].len : 0, (cap > PFX_PATH_MAX ? PFX_PATH_MAX :
		    cap) - 1, &small_path);
	if (cap >= 2 && pre == PFX_R_NONE &&
	    (pol->flags & PFX_POLICY_WINDOWS) != 0 &&
	    (is_win_reason(r) || is_win_reason(full->reason))) {
		if (full->reason != r)
			die("cap %zu: %s, full size: %s", cap,
			    pfx_reason_name(r), pfx_reason_name(full->reason));
		free(buf);
		return;
	}
	if (r != mr)
		die("cap %zu: core %s, model %s", cap, pfx_reason_name(r),
		    pfx_reason_name(mr));
	if (r == PFX_R_NONE) {
		mn = model_render(&small_path, 0, true);
		if (n != mn || n >= cap || memcmp(buf, rendered, n) != 0 ||
		    buf[n] != '\0')
			die("cap %zu: core \"%.*s\", model \"%s\"", cap,
			    (int)(n < cap ? n : 0), buf, rendered);
		/* Same as the full-size answer, when that one is a path. */
		if (full->decision != PFX_REJECT && (n != full->path_len ||
		    memcmp(buf, full->path, n) != 0))
			die("cap %zu: \"%.*s\", full size \"%s\"", cap, (int)n,
			    buf, full->path);
	}
	free(buf);
}

/* --- the harness -------------------------------------------------------- */

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pfx_span allow[MAX_ALLOW], deny[MAX_DENY];
	struct pfx_policy pol;
	struct mverdict mv;
	const char *p = (const char *)data, *end = p + size, *nl;
	size_t want_allow, want_deny, i, k, n, len, cap, nroots = 0;
	unsigned int flags, capsel;
	enum pfx_reason r;

	if (size < 2)
		return 0;
	flags = data[0] & PFX_POLICY_WINDOWS;
	capsel = data[0] >> 1;
	want_allow = data[1] & 3;
	want_deny = (data[1] >> 2) & 3;
	p += 2;

	memset(&pol, 0, sizeof(pol));
	pol.allow = allow;
	pol.deny = deny;
	pol.flags = flags;
	for (i = 0; i < want_allow + want_deny; i++) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL)
			break;
		len = (size_t)(nl - p);
		k = nroots;
		r = pfx_path_normalize(p, len, "/", 1, 0, roots[k],
		    sizeof(roots[k]), &n);
		p = nl + 1;
		if (r != PFX_R_NONE)
			continue;
		if (bad_shape(roots[k], n) != NULL)
			die("root \"%s\" normalised to a bad shape", roots[k]);
		nroots++;
		model_split(roots[k], n, &root_paths[k]);
		if (i < want_allow) {
			allow[pol.nallow].ptr = roots[k];
			allow[pol.nallow].len = n;
			pol.nallow++;
		} else {
			deny[pol.ndeny].ptr = roots[k];
			deny[pol.ndeny].len = n;
			pol.ndeny++;
		}
	}
	len = (size_t)(end - p);

	memset(&v1, 0xa5, sizeof(v1));
	if (pfx_path_check(&pol, p, len, &v1) != v1.decision)
		die("return value is not out->decision");
	check_invariants(&pol, &v1);
	check_idempotent(&v1);
	memset(&v2, 0x5a, sizeof(v2));
	(void)pfx_path_check(&pol, p, len, &v2);
	check_same(&v1, &v2);

	model_check(root_paths, pol.nallow, root_paths + pol.nallow,
	    pol.ndeny, pol.nallow > 0 ? allow[0].len : 0, p, len, &mv);
	compare(&pol, &v1, &mv, model_precheck(p, len));

	/*
	 * The small buffer: capacities 0-31, or around the full answer's
	 * length (and so around the longest the path grew to), or big.
	 */
	if (capsel < 32)
		cap = capsel;
	else if (capsel < 112)
		cap = v1.path_len + 1 + capsel > 72 ?
		    v1.path_len + 1 + capsel - 72 : 0;
	else
		cap = PFX_PATH_MAX + capsel - 112;
	check_small(&pol, p, len, cap, pol.nallow > 0 ? &root_paths[0] : NULL,
	    &v1);
	return 0;
}
