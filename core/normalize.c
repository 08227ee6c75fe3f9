/*
 * normalize.c -- lexical normalisation of one requested path.
 *
 * Threat model: IN is attacker-controlled bytes of any length and content.
 * The result is either a normalised absolute path that provably came from
 * IN without climbing above its base, or a reason.  Nothing is clamped:
 * "../x" is an escape, not "x".  Every write to BUF is bounds-checked
 * against CAP and against PFX_PATH_MAX, so no input can overflow it.
 *
 * The contracts are proved by `make prove` (docs/testing.md, "Proofs"), and the
 * code keeps the shape that makes that tractable: first_escape() reads IN
 * and writes nothing, so the running depth -- a recursive function of IN
 * -- is reasoned about only there; build() then writes BUF and needs only
 * facts that are not recursive.  One loop per function.
 */
#include "component.h"
#include "core.h"
#include "windows.h"

/*
 * Reject what can be decided on the raw bytes, before any normalisation:
 * empty, NUL, too long, and (if asked) the Windows forms.
 */
/*@
  requires \valid_read(in + (0 .. len - 1));
  assigns \nothing;
  behavior empty:
    assumes len == 0;
    ensures \result == PFX_R_EMPTY;
  behavior nul:
    assumes len > 0 && has_nul(in, len);
    ensures \result == PFX_R_NUL;
  behavior too_long:
    assumes len > 0 && !has_nul(in, len) && len >= PFX_PATH_MAX;
    ensures \result == PFX_R_TOO_LONG;
  behavior windows:
    assumes len > 0 && !has_nul(in, len) && len < PFX_PATH_MAX;
    assumes (flags & PFX_POLICY_WINDOWS) != 0;
    ensures \result == PFX_R_NONE || win_reason(\result);
  behavior plain:
    assumes len > 0 && !has_nul(in, len) && len < PFX_PATH_MAX;
    assumes (flags & PFX_POLICY_WINDOWS) == 0;
    ensures \result == PFX_R_NONE;
  complete behaviors;
  disjoint behaviors;
*/
static enum pfx_reason
precheck(const char *in, size_t len, unsigned int flags)
{
	size_t i;

	if (len == 0)
		return PFX_R_EMPTY;
	/*@ loop invariant 0 <= i <= len;
	    loop invariant no_nul(in, 0, i);
	    loop assigns i;
	    loop variant len - i; */
	for (i = 0; i < len; i++) {
		if (in[i] == '\0')
			return PFX_R_NUL;
	}
	if (len >= PFX_PATH_MAX)
		return PFX_R_TOO_LONG;
	if ((flags & PFX_POLICY_WINDOWS) != 0)
		return core_windows_check(in, len);
	return PFX_R_NONE;
}

/*
 * Find the first ".." of IN (LEN bytes) that climbs above the base: the
 * running depth, counted from 0 at the base, would go below 0.  One pass
 * over the bytes; CS is where the current component starts and D the
 * depth after the components closed so far.
 * Return: where that ".." starts, or LEN if there is none.
 */
/*@
  requires len < PFX_PATH_MAX;
  requires \valid_read(in + (0 .. len - 1));
  assigns \nothing;
  ensures \result <= len;
  ensures none: \result == len ==> !escapes(in, len);
  ensures found: \result < len ==> escapes(in, len) &&
    dotdot_at(in, len, \result);
*/
static size_t
first_escape(const char *in, size_t len)
{
	size_t i, cs = 0, d = 0;

	/*@ loop invariant 0 <= cs <= i <= len;
	    loop invariant d <= i;
	    loop invariant cs == cstart(in, i);
	    loop invariant d == pdepth(in, i);
	    loop invariant cs == 0 || in[cs - 1] == '/';
	    loop invariant \forall integer j; 0 <= j < i && in[j] == '/' ==>
	      rdepth(in, j) >= 0;
	    loop assigns i, cs, d;
	    loop variant len - i; */
	for (i = 0; i < len; i++) {
		if (in[i] != '/')
			continue;
		/* in[cs .. i) is a whole component. */
		if (i - cs == 2 && in[cs] == '.' && in[cs + 1] == '.') {
			if (d == 0)
				return cs;
			d--;
		} else if (i - cs > 1 || (i - cs == 1 && in[cs] != '.')) {
			d++;
		}
		cs = i + 1;
	}
	/* The last component, which no '/' closes. */
	if (len - cs == 2 && in[cs] == '.' && in[cs + 1] == '.' && d == 0)
		return cs;
	return len;
}

/*
 * Remove the last component of BUF[0 .. N), which BUF[FLOOR .. N) holds
 * as "/name" runs, at least one.
 * Return: the new length, where the '/' that opened it was.
 */
/*@
  requires floor < n < PFX_PATH_MAX;
  requires \valid_read(buf + (0 .. n - 1));
  requires buf[floor] == '/';
  assigns \nothing;
  ensures floor <= \result < n && buf[\result] == '/';
*/
static size_t
pop_component(const char *buf, size_t floor, size_t n)
{
	size_t k = n;

	/*@ loop invariant floor + 1 <= k <= n;
	    loop assigns k;
	    loop variant k; */
	while (k > floor + 1 && buf[k - 1] != '/')
		k--;
	/* buf[k - 1] is the '/' that opened the component. */
	return k - 1;
}

/*
 * Append "/" and the name IN[START .. START + CLEN) at BUF[N]; the caller
 * has checked that it fits.
 * Return: the new length, N + 1 + CLEN.
 */
/*@
  requires 1 <= clen && n + 1 + clen < PFX_PATH_MAX;
  requires start + clen < PFX_PATH_MAX;
  requires \valid(buf + (n .. n + clen));
  requires \valid_read(in + (start .. start + clen - 1));
  requires \separated(buf + (n .. n + clen),
    in + (start .. start + clen - 1));
  assigns buf[n .. n + clen];
  ensures \result == n + 1 + clen;
  ensures slash: buf[n] == '/';
  ensures copy: \forall integer p; n < p < \result ==>
    buf[p] == in[p - (n + 1) + start];
*/
static size_t
append_component(char *buf, size_t n, const char *in, size_t start,
    size_t clen)
{
	size_t k;

	buf[n] = '/';
	/*@ loop invariant 0 <= k <= clen;
	    loop invariant buf[n] == '/';
	    loop invariant \forall integer p; n < p < n + 1 + k ==>
	      buf[p] == in[p - (n + 1) + start];
	    loop assigns k, buf[n + 1 .. n + clen];
	    loop variant clen - k; */
	for (k = 0; k < clen; k++)
		buf[n + 1 + k] = in[start + k];
	return n + 1 + clen;
}

/*@
  // build() on a normal absolute path with room for it: the fixed point.
  predicate idem_case{L}(char *in, integer m, integer floor,
      integer limit) =
    floor == 0 && normal(in, m) && m <= limit;
*/

/*
 * Append the components of IN[0 .. M) to BUF, which holds the base in
 * BUF[0 .. FLOOR) ("/" as the empty string), keeping every byte below
 * LIMIT: "" and "." vanish, ".." removes the last component, a name is
 * appended as "/name".
 * Return: PFX_R_NONE with *NP the new length, PFX_R_TOO_LONG or
 * PFX_R_ESCAPES.
 */
/*@
  requires m < PFX_PATH_MAX;
  requires floor <= limit < PFX_PATH_MAX;
  requires \valid_read(in + (0 .. m - 1));
  requires \valid(buf + (0 .. limit - 1));
  requires \valid(np);
  requires \separated(buf + (0 .. limit - 1), in + (0 .. m - 1));
  requires no_nul(in, 0, m);
  assigns *np, buf[floor .. limit - 1];
  ensures reasons: \result == PFX_R_NONE || \result == PFX_R_TOO_LONG ||
    \result == PFX_R_ESCAPES;
  ensures bounds: \result == PFX_R_NONE ==> floor <= *np <= limit;
  ensures shape: \result == PFX_R_NONE ==> comps(buf, floor, *np);
  ensures whole: \result == PFX_R_NONE && \old(comps(buf, 0, floor)) ==>
    comps(buf, 0, *np);
  ensures idem: \old(idem_case(in, m, floor, limit)) ==>
    \result == PFX_R_NONE && (m == 1 ==> *np == 0) &&
    (m > 1 ==> *np == m && eqb(buf, in, m));
*/
static enum pfx_reason
build(const char *in, size_t m, char *buf, size_t floor, size_t limit,
    size_t *np)
{
	size_t i = 0, n = floor, start, clen;

	/*@ loop invariant kept: same{Pre, Here}(in, 0, m);
	    loop invariant bounds: 0 <= i <= m && floor <= n <= limit;
	    loop invariant shape: comps(buf, floor, n);
	    loop invariant whole: \at(comps(buf, 0, floor), Pre) ==>
	      comps(buf, 0, n);
	    loop invariant idem1: \at(idem_case(in, m, floor, limit), Pre) &&
	      m == 1 ==> n == 0;
	    loop invariant idem: \at(idem_case(in, m, floor, limit), Pre) &&
	      m > 1 ==> n == i && eqb(buf, in, i) && (i == m || in[i] == '/');
	    loop assigns i, n, start, clen, buf[floor .. limit - 1];
	    loop variant m - i; */
	while (i < m) {
		/*@ assert idem_here: \at(idem_case(in, m, floor, limit), Pre) ==>
		      idem_case(in, m, floor, limit); */
		start = core_next_component(in, m, &i);
		/*@ assert kept_next: same{Pre, Here}(in, 0, m); */
		/*@ assert idem_start: \at(idem_case(in, m, floor, limit), Pre) &&
		      m > 1 ==> start == \at(i, LoopCurrent) + 1 && start < i; */
		clen = i - start;
		if (clen == 0)
			continue;
		/*@ assert clen > PFX_NAME_MAX ==> name_run(in, start); */
		/*@ assert idem_short: \at(idem_case(in, m, floor, limit), Pre) &&
		      m > 1 ==> clen <= PFX_NAME_MAX; */
		if (clen > PFX_NAME_MAX)
			return PFX_R_TOO_LONG;
		/*@ assert idem_dot: \at(idem_case(in, m, floor, limit), Pre) &&
		      m > 1 ==> !(clen == 1 && in[start] == '.'); */
		if (clen == 1 && in[start] == '.')
			continue;
		/*@ assert idem_dotdot: \at(idem_case(in, m, floor, limit), Pre) &&
		      m > 1 ==> !(clen == 2 && in[start] == '.' &&
		      in[start + 1] == '.'); */
		if (clen == 2 && in[start] == '.' && in[start + 1] == '.') {
			/* SECURITY: climbing above the base is refused. */
			if (n <= floor)
				return PFX_R_ESCAPES;
			/*@ assert buf[floor] == '/'; */
			n = pop_component(buf, floor, n);
			/*@ assert pop_ends: ends_ok(buf, floor, n); */
			/*@ assert pop_whole: \at(comps(buf, 0, floor), Pre) ==>
			      comps(buf, 0, n); */
			continue;
		}
		/*@ assert name: comp_ok(in, start, i); */
		/*@ assert idem_fits: \at(idem_case(in, m, floor, limit), Pre) &&
		      m > 1 ==> n + 1 + clen == i && i <= limit; */
		if (clen + 1 > limit - n)
			return PFX_R_TOO_LONG;
		/*@ ghost A: ; */
		n = append_component(buf, n, in, start, clen);
		/*@ assert kept_in: same{A, Here}(in, 0, m); */
		/*@ assert kept_buf: same{A, Here}(buf, 0, \at(n, A)); */
		/*@ assert kept_floor: same{A, Here}(buf, floor, \at(n, A)); */
		/*@ assert appended: comp_ok(buf, \at(n, A) + 1, n); */
		/*@ assert old_ends: ends_ok(buf, floor, \at(n, A)); */
		/*@ assert old_dslash: no_dslash(buf, floor, \at(n, A)); */
		/*@ assert old_dot: no_dot(buf, floor, \at(n, A)); */
		/*@ assert old_dotdot: no_dotdot(buf, floor, \at(n, A)); */
		/*@ assert old_nul: no_nul(buf, floor, \at(n, A)); */
		/*@ assert old_short: short_names(buf, floor, \at(n, A)); */
		/*@ assert new_shape: comps(buf, floor, n); */
		/*@ assert old_whole: \at(comps(buf, 0, floor), Pre) ==>
		      comps(buf, 0, \at(n, A)); */
		/*@ assert new_whole: \at(comps(buf, 0, floor), Pre) ==>
		      comps(buf, 0, n); */
		/*@ assert idem_old: \at(idem_case(in, m, floor, limit), Pre) &&
		      m > 1 ==> eqb(buf, in, \at(n, A)); */
		/*@ assert idem_slash: \at(idem_case(in, m, floor, limit), Pre) &&
		      m > 1 ==> buf[\at(n, A)] == in[\at(n, A)]; */
		/*@ assert idem_copy: \at(idem_case(in, m, floor, limit), Pre) &&
		      m > 1 ==> \forall integer p; \at(n, A) < p < n ==>
		      buf[p] == in[p]; */
		/*@ assert idem_next: \at(idem_case(in, m, floor, limit), Pre) &&
		      m > 1 ==> n == i && eqb(buf, in, i); */
	}
	*np = n;
	return PFX_R_NONE;
}

/*
 * Copy the base BASE[0 .. N) to BUF[0 .. N).
 */
/*@
  requires n < PFX_PATH_MAX;
  requires \valid(buf + (0 .. n - 1));
  requires \valid_read(base + (0 .. n - 1));
  requires \separated(buf + (0 .. n - 1), base + (0 .. n - 1));
  assigns buf[0 .. n - 1];
  ensures eqb(buf, base, n);
*/
static void
copy_base(char *buf, const char *base, size_t n)
{
	size_t k;

	/*@ loop invariant 0 <= k <= n;
	    loop invariant eqb(buf, base, k);
	    loop assigns k, buf[0 .. n - 1];
	    loop variant n - k; */
	for (k = 0; k < n; k++)
		buf[k] = base[k];
}

/*
 * Normalise IN (LEN bytes, passed by precheck(): no NUL, shorter than
 * PFX_PATH_MAX) against BASE (BASE_LEN bytes) into BUF, a result of at
 * most LIMIT bytes and its NUL.  ESC is first_escape(IN, LEN).
 * Return: as pfx_path_normalize(): PFX_R_NONE, PFX_R_RELATIVE,
 * PFX_R_TOO_LONG or PFX_R_ESCAPES.
 */
/*@
  requires 0 < len < PFX_PATH_MAX && no_nul(in, 0, len);
  requires 1 <= limit < PFX_PATH_MAX;
  requires esc <= len;
  requires \valid_read(in + (0 .. len - 1));
  requires \valid_read(base + (0 .. base_len - 1));
  requires \valid(buf + (0 .. limit));
  requires \valid(out_len);
  requires \separated(buf + (0 .. limit), in + (0 .. len - 1));
  requires \separated(buf + (0 .. limit), base + (0 .. base_len - 1));
  assigns *out_len, buf[0 .. limit];
  ensures reasons: \result == PFX_R_NONE || \result == PFX_R_RELATIVE ||
    \result == PFX_R_TOO_LONG || \result == PFX_R_ESCAPES;
  ensures failed: \result != PFX_R_NONE ==> *out_len == \old(*out_len);
  ensures escape: esc < len ==> \result != PFX_R_NONE;
  ensures relative: \result == PFX_R_RELATIVE ==> base_len == 0;
  ensures based: \result == PFX_R_NONE && \old(in[0]) != '/' ==>
    base_len > 0;
  ensures length: \result == PFX_R_NONE ==> 1 <= *out_len <= limit &&
    buf[*out_len] == '\0';
  ensures absolute: \result == PFX_R_NONE && \old(in[0]) == '/' ==>
    normal(buf, *out_len);
  ensures contained: \result == PFX_R_NONE && \old(in[0]) != '/' &&
    base_len > 1 ==> base_len <= *out_len &&
    (\forall integer k; 0 <= k < base_len ==> buf[k] == \old(base[k])) &&
    comps(buf, base_len, *out_len);
  ensures normal_base: \result == PFX_R_NONE &&
    \old(normal(base, base_len)) ==> normal(buf, *out_len);
  ensures idempotent: \old(normal(in, len)) && esc == len && len <= limit
    ==> \result == PFX_R_NONE && *out_len == len &&
    (\forall integer k; 0 <= k < len ==> buf[k] == \old(in[k]));
*/
static enum pfx_reason
resolve(const char *in, size_t len, size_t esc, const char *base,
    size_t base_len, char *buf, size_t limit, size_t *out_len)
{
	enum pfx_reason r;
	size_t n;

	buf[0] = '\0';
	/*
	 * While building, "/" is the empty string and every component is
	 * stored as "/name", so popping one is a scan back to its '/'.
	 */
	n = 0;
	if (in[0] != '/') {
		if (base_len == 0)
			return PFX_R_RELATIVE;
		if (base_len > limit)
			return PFX_R_TOO_LONG;
		if (base_len > 1) {
			copy_base(buf, base, base_len);
			n = base_len;
		}
	}
	/*@ assert k1_in: same{Pre, Here}(in, 0, len); */
	/*@ assert k1_base: same{Pre, Here}(base, 0, base_len); */
	/*@ assert idem_abs: \at(normal(in, len), Pre) ==> n == 0; */
	/*@ assert idem_in: \at(normal(in, len), Pre) ==> normal(in, len); */
	/*@ assert abs_floor: \at(in[0], Pre) == '/' ==> n == 0; */
	/*@ assert based: \at(in[0], Pre) != '/' && base_len > 1 ==>
	      n == base_len && eqb(buf, base, base_len); */
	/*@ assert base_whole: \at(normal(base, base_len), Pre) ==>
	      comps(buf, 0, n); */
	/*@ ghost size_t floor = n; */
	/*@ ghost C: ; */
	/* Only the components before the ".." that climbs, if any. */
	r = build(in, esc, buf, n, limit, &n);
	if (r != PFX_R_NONE)
		return r;
	/* SECURITY: that ".." climbs above the base; nothing is clamped. */
	if (esc < len)
		return PFX_R_ESCAPES;
	/*@ assert k2_in: same{C, Here}(in, 0, len); */
	/*@ assert k2_base: same{C, Here}(base, 0, base_len); */
	/*@ assert k2_buf: same{C, Here}(buf, 0, floor); */
	/*@ assert built_abs: \at(in[0], Pre) == '/' ==> comps(buf, 0, n); */
	/*@ assert built_base: \at(normal(base, base_len), Pre) ==>
	      comps(buf, 0, n); */
	/*@ assert built_based: \at(in[0], Pre) != '/' && base_len > 1 ==>
	      \forall integer k; 0 <= k < base_len ==>
	        buf[k] == \at(base[k], Pre); */
	/*@ assert built_idem: \at(normal(in, len), Pre) && esc == len &&
	      len <= limit ==> (len == 1 ==> n == 0) && (len > 1 ==> n == len &&
	      \forall integer k; 0 <= k < len ==> buf[k] == \at(in[k], Pre)); */
	/*@ assert built_shape: \at(in[0], Pre) != '/' && base_len > 1 ==>
	      floor == base_len && comps(buf, base_len, n); */
	/*@ ghost B: ; */
	if (n == 0)
		buf[n++] = '/';
	buf[n] = '\0';
	/*@ assert kept_buf: \at(n, B) > 0 ==> same{B, Here}(buf, 0, n); */
	/*@ assert kept_rel: \at(in[0], Pre) != '/' && base_len > 1 ==>
	      same{B, Here}(buf, base_len, n); */
	/*@ assert end_rel: \at(in[0], Pre) != '/' && base_len > 1 ==>
	      comps(buf, base_len, n); */
	/*@ assert end_based: \at(in[0], Pre) != '/' && base_len > 1 ==>
	      \forall integer k; 0 <= k < base_len ==>
	        buf[k] == \at(base[k], Pre); */
	/*@ assert end_idem: \at(normal(in, len), Pre) && esc == len &&
	      len <= limit ==> n == len && (\forall integer k; 0 <= k < len ==>
	      buf[k] == \at(in[k], Pre)); */
	*out_len = n;
	return PFX_R_NONE;
}

/* see pfx_path.h */
/*@
  requires \valid_read(in + (0 .. len - 1));
  requires \valid_read(base + (0 .. base_len - 1));
  requires \valid(buf + (0 .. cap - 1));
  requires \valid(out_len);
  requires \separated(buf + (0 .. cap - 1), in + (0 .. len - 1));
  requires \separated(buf + (0 .. cap - 1), base + (0 .. base_len - 1));
  assigns *out_len, buf[0 .. cap - 1];
  ensures reasons: \result == PFX_R_NONE || reject_reason(\result, flags);
  ensures failed: \result != PFX_R_NONE ==> *out_len == 0;
  ensures relative: \result == PFX_R_RELATIVE ==> base_len == 0;
  ensures based: \result == PFX_R_NONE && \old(in[0]) != '/' ==>
    base_len > 0;
  ensures rejects_escape: \old(escapes(in, len)) ==> \result != PFX_R_NONE;
  ensures length: \result == PFX_R_NONE ==> 1 <= *out_len < cap &&
    *out_len < PFX_PATH_MAX && buf[*out_len] == '\0';
  ensures absolute: \result == PFX_R_NONE && \old(in[0]) == '/' ==>
    normal(buf, *out_len);
  ensures contained: \result == PFX_R_NONE && \old(in[0]) != '/' &&
    base_len > 1 ==> base_len <= *out_len &&
    (\forall integer k; 0 <= k < base_len ==> buf[k] == \old(base[k])) &&
    comps(buf, base_len, *out_len);
  ensures normal_base: \result == PFX_R_NONE &&
    \old(normal(base, base_len)) ==> normal(buf, *out_len);
  ensures idempotent: \old(normal(in, len)) &&
    (flags & PFX_POLICY_WINDOWS) == 0 && len < cap ==>
    \result == PFX_R_NONE && *out_len == len &&
    (\forall integer k; 0 <= k < len ==> buf[k] == \old(in[k]));
*/
enum pfx_reason
pfx_path_normalize(const char *in, size_t len, const char *base,
    size_t base_len, unsigned int flags, char *buf, size_t cap,
    size_t *out_len)
{
	enum pfx_reason r;
	size_t esc;

	*out_len = 0;
	if (cap < 2)
		return PFX_R_TOO_LONG;
	if (cap > PFX_PATH_MAX)
		cap = PFX_PATH_MAX;
	/* IN is judged before anything is written. */
	r = precheck(in, len, flags);
	if (r != PFX_R_NONE) {
		buf[0] = '\0';
		return r;
	}
	esc = first_escape(in, len);
	/*@ assert idem_noesc: normal(in, len) ==> esc == len; */
	/* cap - 1: the longest result, leaving room for its NUL. */
	return resolve(in, len, esc, base, base_len, buf, cap - 1, out_len);
}
