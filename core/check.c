/*
 * check.c -- the decision: allow, deny or reject one requested path.
 *
 * The request is normalised once (normalize.c) and every later comparison
 * is made on that one normalised string, the same bytes the caller gets
 * back: the decision and the path it is about cannot drift apart.
 *
 * The contracts are proved by `make prove` (docs/testing.md, "Proofs"): the
 * decision is total, deny wins, and an allowed path is beneath its root
 * with a clean relative part.
 */
#include "check.h"
#include "core.h"

/* see check.h */
/*@
  requires \valid_read(path + (0 .. plen - 1));
  requires \valid_read(dir + (0 .. dlen - 1));
  assigns \nothing;
  ensures \result <==> beneath(path, plen, dir, dlen);
*/
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
	/*@ loop invariant 0 <= i <= dlen;
	    loop invariant eqb(path, dir, i);
	    loop assigns i;
	    loop variant dlen - i; */
	for (i = 0; i < dlen; i++) {
		if (path[i] != dir[i])
			return false;
	}
	/* Whole components only: /tmp/a_b is not beneath /tmp/a. */
	return plen == dlen || path[dlen] == '/';
}

/*
 * Set every field but the path.  (The path is written by the
 * normalisation, or emptied by the caller: writing it here, before the
 * request is read, would leave the proof to show that the request's bytes
 * did not move.)
 */
/*@
  requires \valid(out);
  assigns out->decision, out->reason, out->root, out->path_len,
    out->rel_off, out->rel_len;
  ensures out->decision == PFX_REJECT && out->reason == PFX_R_NONE &&
    out->root == 0 && out->path_len == 0 && out->rel_off == 0 &&
    out->rel_len == 0;
*/
static void
verdict_reset(struct pfx_verdict *out)
{
	out->decision = PFX_REJECT;
	out->reason = PFX_R_NONE;
	out->root = 0;
	out->path_len = 0;
	out->rel_off = 0;
	out->rel_len = 0;
}

/* Fill in the relative part of an allowed path beneath a root of RLEN. */
/*@
  requires \valid(out);
  requires 1 <= rlen <= out->path_len;
  assigns out->rel_off, out->rel_len;
  ensures out->rel_off == rel_start(out->path_len, rlen);
  ensures out->rel_off + out->rel_len == out->path_len;
*/
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
/*@
  requires policy_ok(policy);
  requires \valid_read(in + (0 .. len - 1));
  requires \valid(out);
  requires apart(out, policy);
  requires \separated(out, in + (0 .. len - 1));
  assigns *out;
  ensures total: \result == out->decision && (\result == PFX_ALLOW ||
    \result == PFX_DENY || \result == PFX_REJECT);
  ensures rejected: \result == PFX_REJECT ==> out->path_len == 0 &&
    reject_reason(out->reason, policy->flags);
  ensures denied: \result == PFX_DENY ==> out->reason == PFX_R_DENIED ||
    out->reason == PFX_R_OUTSIDE;
  ensures rejects_escape: \old(escapes(in, len)) ==> \result == PFX_REJECT;
  ensures deny_wins: \result == PFX_ALLOW ==>
    \forall integer k; 0 <= k < policy->ndeny ==>
      !beneath_span((char *)&out->path[0], out->path_len,
        (struct pfx_span *)policy->deny, k);
  ensures deny_why: \result == PFX_DENY && out->reason == PFX_R_DENIED ==>
    out->root < policy->ndeny &&
    beneath_span((char *)&out->path[0], out->path_len,
      (struct pfx_span *)policy->deny, out->root);
  ensures outside: \result == PFX_DENY && out->reason == PFX_R_OUTSIDE ==>
    \forall integer k; 0 <= k < policy->nallow ==>
      !beneath_span((char *)&out->path[0], out->path_len,
        (struct pfx_span *)policy->allow, k) &&
    \forall integer k; 0 <= k < policy->ndeny ==>
      !beneath_span((char *)&out->path[0], out->path_len,
        (struct pfx_span *)policy->deny, k);
  ensures allowed: \result == PFX_ALLOW ==> out->reason == PFX_R_NONE &&
    out->root < policy->nallow &&
    beneath_span((char *)&out->path[0], out->path_len,
      (struct pfx_span *)policy->allow, out->root) &&
    out->rel_off == rel_start(out->path_len,
      policy->allow[out->root].len) &&
    out->rel_off + out->rel_len == out->path_len;
  ensures first_root: \result == PFX_ALLOW ==>
    \forall integer k; 0 <= k < out->root ==>
      !beneath_span((char *)&out->path[0], out->path_len,
        (struct pfx_span *)policy->allow, k);
  ensures contained: \result == PFX_ALLOW && \old(base_normal(policy)) ==>
    normal((char *)&out->path[0], out->path_len) &&
    rel_clean((char *)&out->path[0], out->path_len, out->rel_off);
*/
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
		out->path[0] = '\0';
		out->reason = r;
		return out->decision;
	}

	/* SECURITY: deny lists are consulted first and always win. */
	/*@ loop invariant 0 <= i <= policy->ndeny;
	    loop invariant \forall integer k; 0 <= k < i ==>
	      !beneath_span((char *)&out->path[0], out->path_len,
	        (struct pfx_span *)policy->deny, k);
	    loop assigns i, out->decision, out->reason, out->root;
	    loop variant policy->ndeny - i; */
	for (i = 0; i < policy->ndeny; i++) {
		if (core_is_beneath(out->path, out->path_len,
		    policy->deny[i].ptr, policy->deny[i].len)) {
			out->decision = PFX_DENY;
			out->reason = PFX_R_DENIED;
			out->root = i;
			return out->decision;
		}
	}
	/*@ loop invariant 0 <= i <= policy->nallow;
	    loop invariant \forall integer k; 0 <= k < i ==>
	      !beneath_span((char *)&out->path[0], out->path_len,
	        (struct pfx_span *)policy->allow, k);
	    loop invariant \forall integer k; 0 <= k < policy->ndeny ==>
	      !beneath_span((char *)&out->path[0], out->path_len,
	        (struct pfx_span *)policy->deny, k);
	    loop assigns i, out->decision, out->reason, out->root,
	      out->rel_off, out->rel_len;
	    loop variant policy->nallow - i; */
	for (i = 0; i < policy->nallow; i++) {
		if (core_is_beneath(out->path, out->path_len,
		    policy->allow[i].ptr, policy->allow[i].len)) {
			/*@ ghost W: ; */
			out->decision = PFX_ALLOW;
			out->reason = PFX_R_NONE;
			out->root = i;
			set_relative(out, policy->allow[i].len);
			/*@ assert same_policy: policy_same{W, Here}(policy) &&
			      out->path_len == \at(out->path_len, W); */
			/*@ assert same_deny: \forall integer k;
			      0 <= k < policy->ndeny ==>
			      \at(policy->deny[k].ptr, W) == policy->deny[k].ptr &&
			      \at(policy->deny[k].len, W) == policy->deny[k].len; */
			/*@ assert same_allow: \forall integer k;
			      0 <= k < policy->nallow ==>
			      \at(policy->allow[k].ptr, W) == policy->allow[k].ptr &&
			      \at(policy->allow[k].len, W) == policy->allow[k].len; */
			/*@ assert no_deny: \forall integer k;
			      0 <= k < policy->ndeny ==>
			      !beneath_span((char *)&out->path[0], out->path_len,
			        (struct pfx_span *)policy->deny, k); */
			/*@ assert first: \forall integer k; 0 <= k < i ==>
			      !beneath_span((char *)&out->path[0], out->path_len,
			        (struct pfx_span *)policy->allow, k); */
			return out->decision;
		}
	}
	out->decision = PFX_DENY;
	out->reason = PFX_R_OUTSIDE;
	return out->decision;
}
