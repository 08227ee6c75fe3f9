/*
 * theorems.c -- the seed's theorems, stated as C functions over the
 * shipped code, for `make prove` (docs/testing.md, "Proofs").
 *
 * PathFence states its theorems about a model in Lean.  Here each one is a
 * small function that calls the real core and whose contract is the
 * theorem: WP proves that for every input the requires clauses allow, the
 * ensures clauses hold, so the theorem holds of the code in core/.  These
 * functions are never compiled into the library; only Frama-C reads them.
 * The properties themselves are contracts of the core's functions
 * (normalize.c, check.c); these restate them in the seed's shape.
 */
#include "../check.h"
#include "../core.h"

/*@
  // Everything pfx_path_check() needs to be called.
  predicate callable{L}(struct pfx_policy *policy, char *in, integer len,
      struct pfx_verdict *out) =
    policy_ok(policy) && \valid_read(in + (0 .. len - 1)) &&
    \valid(out) && apart(out, policy) &&
    \separated(out, in + (0 .. len - 1));
*/

/*
 * normalize_rejects_escape: a request whose running depth drops below
 * zero -- a ".." above its base -- is rejected, whatever the policy.
 */
/*@
  requires callable((struct pfx_policy *)policy, (char *)in, len, out);
  requires escapes((char *)in, len);
  assigns *out;
  ensures \result == PFX_REJECT && out->decision == PFX_REJECT;
*/
enum pfx_decision
thm_normalize_rejects_escape(const struct pfx_policy *policy,
    const char *in, size_t len, struct pfx_verdict *out)
{
	return pfx_path_check(policy, in, len, out);
}

/*
 * normalize_preserves_containment: an allowed path is beneath its root by
 * whole components, and the part after the root is names without "", "."
 * or "..", and no leading '/' (roots normalised, as pfx_path.h asks).
 */
/*@
  requires callable((struct pfx_policy *)policy, (char *)in, len, out);
  requires base_normal((struct pfx_policy *)policy);
  assigns *out;
  ensures \result == PFX_ALLOW ==>
    out->root < policy->nallow &&
    beneath((char *)&out->path[0], out->path_len,
      (char *)policy->allow[out->root].ptr,
      policy->allow[out->root].len) &&
    rel_clean((char *)&out->path[0], out->path_len, out->rel_off);
*/
enum pfx_decision
thm_normalize_preserves_containment(const struct pfx_policy *policy,
    const char *in, size_t len, struct pfx_verdict *out)
{
	return pfx_path_check(policy, in, len, out);
}

/*
 * normalize_idempotent: normalising a result again gives it back, byte
 * for byte.  The first result is normal when the request is absolute or
 * its base is normal (pfx_path.h asks that of every root).
 */
/*@
  requires \valid_read(in + (0 .. len - 1));
  requires \valid_read(base + (0 .. base_len - 1));
  requires base_len == 0 || normal((char *)base, base_len);
  requires \valid(b1 + (0 .. PFX_PATH_MAX - 1));
  requires \valid(b2 + (0 .. PFX_PATH_MAX - 1));
  requires \valid(n1) && \valid(n2) && \separated(n1, n2);
  requires \separated(b1 + (0 .. PFX_PATH_MAX - 1),
    b2 + (0 .. PFX_PATH_MAX - 1));
  requires \separated(b1 + (0 .. PFX_PATH_MAX - 1), in + (0 .. len - 1));
  requires \separated(b1 + (0 .. PFX_PATH_MAX - 1),
    base + (0 .. base_len - 1));
  assigns *n1, *n2, b1[0 .. PFX_PATH_MAX - 1], b2[0 .. PFX_PATH_MAX - 1];
  ensures \result == PFX_R_NONE ==> *n2 == *n1 &&
    \forall integer k; 0 <= k < *n1 ==> b2[k] == b1[k];
*/
enum pfx_reason
thm_normalize_idempotent(const char *in, size_t len, const char *base,
    size_t base_len, char *b1, size_t *n1, char *b2, size_t *n2)
{
	enum pfx_reason r;

	r = pfx_path_normalize(in, len, base, base_len, 0, b1, PFX_PATH_MAX,
	    n1);
	if (r != PFX_R_NONE)
		return r;
	/*@ assert normal(b1, *n1); */
	r = pfx_path_normalize(b1, *n1, "", 0, 0, b2, PFX_PATH_MAX, n2);
	/*@ assert r == PFX_R_NONE; */
	return r;
}

/*
 * beneath_composable: beneath a sub-root that is beneath a root is
 * beneath that root, as core_is_beneath() decides it.  (The lemmas
 * beneath_trans and rel_composable of spec.h say the same of the
 * predicate, and that the relative parts join with a '/'.)
 */
/*@
  requires \valid_read(p + (0 .. pn - 1));
  requires \valid_read(s + (0 .. sn - 1));
  requires \valid_read(r + (0 .. rn - 1));
  assigns \nothing;
  ensures \result;
*/
bool
thm_beneath_composable(const char *p, size_t pn, const char *s, size_t sn,
    const char *r, size_t rn)
{
	if (core_is_beneath(p, pn, s, sn) && core_is_beneath(s, sn, r, rn))
		return core_is_beneath(p, pn, r, rn);
	return true;
}

/*
 * deny_wins: a path beneath a denied directory is never allowed, whatever
 * the allowed roots.
 */
/*@
  requires callable((struct pfx_policy *)policy, (char *)in, len, out);
  assigns *out;
  ensures never_allowed: \forall integer k; 0 <= k < policy->ndeny &&
    beneath_span((char *)&out->path[0], out->path_len,
      (struct pfx_span *)policy->deny, k) ==> \result != PFX_ALLOW;
*/
enum pfx_decision
thm_deny_wins(const struct pfx_policy *policy, const char *in, size_t len,
    struct pfx_verdict *out)
{
	return pfx_path_check(policy, in, len, out);
}

/*
 * decision_total: every request gets exactly one of allow, deny and
 * reject, and a reject carries one of the documented reasons.
 */
/*@
  requires callable((struct pfx_policy *)policy, (char *)in, len, out);
  assigns *out;
  ensures \result == out->decision;
  ensures (\result == PFX_ALLOW && out->reason == PFX_R_NONE) ||
    (\result == PFX_DENY && (out->reason == PFX_R_DENIED ||
      out->reason == PFX_R_OUTSIDE)) ||
    (\result == PFX_REJECT && reject_reason(out->reason, policy->flags));
*/
enum pfx_decision
thm_decision_total(const struct pfx_policy *policy, const char *in,
    size_t len, struct pfx_verdict *out)
{
	return pfx_path_check(policy, in, len, out);
}
