/*
 * check.c -- the decision: allow, deny or reject one requested path.
 *
 * The request is normalised once (normalize.c) and every later comparison
 * is made on that one normalised string, the same bytes the caller gets
 * back: the decision and the path it is about cannot drift apart.
 */
#include "core.h"

/* see core.h */
bool
core_is_beneath(const char *path, size_t plen, const char *dir, size_t dlen)
{
	size_t i;

	if (dlen == 0 || plen == 0 || dir[0] != '/' || path[0] != '/')
		return false;
	if (dlen == 1)
		return true;	/* everything absolute is beneath "/" */
	if (plen < dlen)
		return false;
	for (i = 0; i < dlen; i++) {
		if (path[i] != dir[i])
			return false;
	}
	/* Whole components only: /tmp/a_b is not beneath /tmp/a. */
	return plen == dlen || path[dlen] == '/';
}

static void
verdict_reset(struct pfx_verdict *out)
{
	out->decision = PFX_REJECT;
	out->reason = PFX_R_NONE;
	out->root = 0;
	out->path_len = 0;
	out->rel_off = 0;
	out->rel_len = 0;
	out->path[0] = '\0';
}

/* Fill in the relative part of an allowed path beneath a root of RLEN. */
static void
set_relative(struct pfx_verdict *out, size_t rlen)
{
	size_t off;

	if (out->path_len == rlen || out->path_len == 1) {
		out->rel_off = out->path_len;
		out->rel_len = 0;
		return;
	}
	off = rlen == 1 ? 1 : rlen + 1;
	out->rel_off = off;
	out->rel_len = out->path_len - off;
}

/* see pfx_path.h */
enum pfx_decision
pfx_path_check(const struct pfx_policy *policy, const char *in, size_t len,
    struct pfx_verdict *out)
{
	const char *base = "";
	size_t base_len = 0, i;
	enum pfx_reason r;

	verdict_reset(out);
	if (policy->nallow > 0) {
		base = policy->allow[0].ptr;
		base_len = policy->allow[0].len;
	}
	r = pfx_path_normalize(in, len, base, base_len, policy->flags,
	    out->path, sizeof(out->path), &out->path_len);
	if (r != PFX_R_NONE) {
		verdict_reset(out);
		out->reason = r;
		return out->decision;
	}

	/* SECURITY: deny lists are consulted first and always win. */
	for (i = 0; i < policy->ndeny; i++) {
		if (core_is_beneath(out->path, out->path_len,
		    policy->deny[i].ptr, policy->deny[i].len)) {
			out->decision = PFX_DENY;
			out->reason = PFX_R_DENIED;
			out->root = i;
			return out->decision;
		}
	}
	for (i = 0; i < policy->nallow; i++) {
		if (core_is_beneath(out->path, out->path_len,
		    policy->allow[i].ptr, policy->allow[i].len)) {
			out->decision = PFX_ALLOW;
			out->reason = PFX_R_NONE;
			out->root = i;
			set_relative(out, policy->allow[i].len);
			return out->decision;
		}
	}
	out->decision = PFX_DENY;
	out->reason = PFX_R_OUTSIDE;
	return out->decision;
}
