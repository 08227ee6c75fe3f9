/*
 * spec.h -- the ACSL vocabulary of the decision core's contracts.
 *
 * Only Frama-C reads what is in this file: to a C compiler it is comments.
 * `make prove` checks every contract in core/ against the code with WP
 * (docs/testing.md, "Proofs").  Each definition is small and non-recursive
 * except the depth functions, and each property of a normal path is its
 * own predicate with its own lemmas: the provers take one small step at a
 * time, where a single big predicate would time out.
 *
 * A string is S[A .. B): a pointer and integer bounds.  While a path is
 * being built the root "/" is held as the empty range, so "a sequence of
 * components" is a run of "/name" pieces.
 */
#ifndef CORE_SPEC_H
#define CORE_SPEC_H

/*@
  // ---- the shape of a normal path ----------------------------------------

  // No NUL byte in s[a .. b).
  predicate no_nul{L}(char *s, integer a, integer b) =
    \forall integer k; a <= k < b ==> s[k] != '\0';

  // s[a .. b) is empty, or starts with '/' and does not end with one.
  predicate ends_ok{L}(char *s, integer a, integer b) =
    a == b || (a < b && s[a] == '/' && s[b - 1] != '/');

  // No empty component: no "//".
  predicate no_dslash{L}(char *s, integer a, integer b) =
    \forall integer k; a <= k && k + 1 < b ==>
      s[k] != '/' || s[k + 1] != '/';

  // No "." component: "/." is followed by a byte that is not '/'.
  predicate no_dot{L}(char *s, integer a, integer b) =
    \forall integer k; a <= k && k + 1 < b && s[k] == '/' &&
      s[k + 1] == '.' ==> k + 2 < b && s[k + 2] != '/';

  // No ".." component: "/.." is followed by a byte that is not '/'.
  predicate no_dotdot{L}(char *s, integer a, integer b) =
    \forall integer k; a <= k && k + 2 < b && s[k] == '/' &&
      s[k + 1] == '.' && s[k + 2] == '.' ==> k + 3 < b && s[k + 3] != '/';

  // s[k .. k + PFX_NAME_MAX] holds no '/': a name over PFX_NAME_MAX bytes
  // runs through it.  (A predicate of its own, so that the provers have a
  // term to instantiate the quantifiers below with.)
  predicate name_run{L}(char *s, integer k) =
    \forall integer j; k <= j <= k + PFX_NAME_MAX ==> s[j] != '/';

  // No component over PFX_NAME_MAX bytes: every window of
  // PFX_NAME_MAX + 1 bytes holds a '/'.
  predicate short_names{L}(char *s, integer a, integer b) =
    \forall integer k; a <= k && k + PFX_NAME_MAX < b ==> !name_run(s, k);

  // s[a .. b) is a sequence of "/name" components, each name non-empty,
  // not "." or "..", without NUL and at most PFX_NAME_MAX bytes.
  predicate comps{L}(char *s, integer a, integer b) =
    ends_ok(s, a, b) && no_dslash(s, a, b) && no_dot(s, a, b) &&
    no_dotdot(s, a, b) && no_nul(s, a, b) && short_names(s, a, b);

  // s[0 .. n) is a normal absolute path: "/" or "/name/.../name", within
  // PFX_PATH_MAX - 1 bytes.
  predicate normal{L}(char *s, integer n) =
    1 <= n < PFX_PATH_MAX && s[0] == '/' && (n == 1 || comps(s, 0, n));

  // s[a .. b) is one name that may be appended as "/name".
  predicate comp_ok{L}(char *s, integer a, integer b) =
    a < b && b - a <= PFX_NAME_MAX &&
    (\forall integer k; a <= k < b ==> s[k] != '/' && s[k] != '\0') &&
    !(b == a + 1 && s[a] == '.') &&
    !(b == a + 2 && s[a] == '.' && s[a + 1] == '.');

  // p[0 .. n) equals q[0 .. n).
  predicate eqb{L}(char *p, char *q, integer n) =
    \forall integer k; 0 <= k < n ==> p[k] == q[k];

  // s[a .. b) holds the same bytes at L1 and at L2.
  predicate same{L1, L2}(char *s, integer a, integer b) =
    \forall integer k; a <= k < b ==> \at(s[k], L1) == \at(s[k], L2);

  // ---- the request --------------------------------------------------------

  predicate has_nul{L}(char *s, integer n) =
    \exists integer k; 0 <= k < n && s[k] == '\0';

  // A ".." component starts at e.
  predicate dotdot_at{L}(char *s, integer n, integer e) =
    0 <= e && e + 2 <= n && s[e] == '.' && s[e + 1] == '.' &&
    (e + 2 == n || s[e + 2] == '/') && (e == 0 || s[e - 1] == '/');

  // The running depth.  cstart(s, i) is where the component that holds
  // byte i - 1 starts; delta is what a component does to the depth
  // (".." -1, "." and "" 0, a name +1); pdepth(s, i) is the depth after
  // every component that a '/' before i has closed; rdepth(s, i) also
  // counts the component that ends at i.
  logic integer cstart{L}(char *s, integer i) =
    i <= 0 ? 0 : (s[i - 1] == '/' ? i : cstart(s, i - 1));

  logic integer delta{L}(char *s, integer a, integer b) =
    b - a == 0 ? 0 :
    (b - a == 1 ? (s[a] == '.' ? 0 : 1) :
    (b - a == 2 ? (s[a] == '.' ? (s[a + 1] == '.' ? -1 : 1) : 1) : 1));

  logic integer pdepth{L}(char *s, integer i) =
    i <= 0 ? 0 :
    (s[i - 1] == '/' ?
      pdepth(s, i - 1) + delta(s, cstart(s, i - 1), i - 1) :
      pdepth(s, i - 1));

  logic integer rdepth{L}(char *s, integer i) =
    pdepth(s, i) + delta(s, cstart(s, i), i);

  // The seed's escape: at the end of some component the running depth is
  // below zero, i.e. a ".." climbs above the base.
  predicate escapes{L}(char *s, integer n) =
    \exists integer j; 0 <= j <= n && (j == n || s[j] == '/') &&
      rdepth(s, j) < 0;

  // ---- decisions ----------------------------------------------------------

  // Is the path p[0 .. pn) equal to or beneath the directory d[0 .. dn),
  // by whole components?  This is exactly core_is_beneath().
  predicate beneath{L}(char *p, integer pn, char *d, integer dn) =
    dn >= 1 && pn >= 1 && d[0] == '/' && p[0] == '/' &&
    (dn == 1 ||
     (pn >= dn && eqb(p, d, dn) && (pn == dn || p[dn] == '/')));

  // Where the relative part of p[0 .. pn) beneath a root of rn bytes
  // starts (pn when it is empty).
  logic integer rel_start(integer pn, integer rn) =
    pn == rn ? pn : (pn == 1 ? pn : (rn == 1 ? 1 : rn + 1));

  // The relative part p[off .. pn) is empty, or components after a '/',
  // with no leading '/'.
  predicate rel_clean{L}(char *p, integer pn, integer off) =
    off == pn ||
    (1 <= off < pn && p[off - 1] == '/' && p[off] != '/' &&
     comps(p, off - 1, pn));

  predicate win_reason(integer r) =
    PFX_R_WIN_BACKSLASH <= r <= PFX_R_WIN_CHAR;

  // The documented reasons for PFX_REJECT: pfx_path.h, enum pfx_reason.
  predicate reject_reason(integer r, integer flags) =
    r == PFX_R_EMPTY || r == PFX_R_NUL || r == PFX_R_TOO_LONG ||
    r == PFX_R_ESCAPES || r == PFX_R_RELATIVE ||
    ((flags & PFX_POLICY_WINDOWS) != 0 && win_reason(r));

  // ---- policies and verdicts (check.c) -----------------------------------

  // Every string of DIRS[0 .. n) can be read.
  predicate spans_ok{L}(struct pfx_span *dirs, integer n) =
    \valid_read(dirs + (0 .. n - 1)) &&
    \forall integer k; 0 <= k < n ==>
      \valid_read(dirs[k].ptr + (0 .. dirs[k].len - 1));

  // PATH is beneath DIRS[k].
  predicate beneath_span{L}(char *path, integer plen,
      struct pfx_span *dirs, integer k) =
    beneath(path, plen, (char *)dirs[k].ptr, dirs[k].len);

  // The policy's arrays and strings can be read.
  predicate policy_ok{L}(struct pfx_policy *p) =
    \valid_read(p) && spans_ok((struct pfx_span *)p->allow, p->nallow) &&
    spans_ok((struct pfx_span *)p->deny, p->ndeny);

  // OUT overlaps nothing that the policy holds.
  predicate apart{L}(struct pfx_verdict *out, struct pfx_policy *p) =
    \separated(out, p) &&
    \separated(out, p->allow + (0 .. p->nallow - 1)) &&
    \separated(out, p->deny + (0 .. p->ndeny - 1)) &&
    (\forall integer k; 0 <= k < p->nallow ==>
      \separated(out, p->allow[k].ptr + (0 .. p->allow[k].len - 1))) &&
    (\forall integer k; 0 <= k < p->ndeny ==>
      \separated(out, p->deny[k].ptr + (0 .. p->deny[k].len - 1)));

  // The policy's entries are the same at L1 and L2.
  predicate spans_same{L1, L2}(struct pfx_span *dirs, integer n) =
    \forall integer k; 0 <= k < n ==>
      \at(dirs[k].ptr, L1) == \at(dirs[k].ptr, L2) &&
      \at(dirs[k].len, L1) == \at(dirs[k].len, L2);

  predicate policy_same{L1, L2}(struct pfx_policy *p) =
    \at(p->allow, L1) == \at(p->allow, L2) &&
    \at(p->nallow, L1) == \at(p->nallow, L2) &&
    \at(p->deny, L1) == \at(p->deny, L2) &&
    \at(p->ndeny, L1) == \at(p->ndeny, L2) &&
    \at(p->flags, L1) == \at(p->flags, L2) &&
    spans_same{L1, L2}((struct pfx_span *)\at(p->allow, L1),
      \at(p->nallow, L1)) &&
    spans_same{L1, L2}((struct pfx_span *)\at(p->deny, L1),
      \at(p->ndeny, L1));

  // The first root is normal, as pfx_path.h asks of every root.
  predicate base_normal{L}(struct pfx_policy *p) =
    p->nallow > 0 && normal((char *)p->allow[0].ptr, p->allow[0].len);

  // ---- lemmas: a component appended at n ----------------------------------

  lemma app_ends{L}: \forall char *s, integer a, n, m;
    a <= n && ends_ok(s, a, n) && s[n] == '/' && comp_ok(s, n + 1, m) ==>
    ends_ok(s, a, m);

  lemma app_dslash{L}: \forall char *s, integer a, n, m;
    a <= n && ends_ok(s, a, n) && no_dslash(s, a, n) && s[n] == '/' &&
    comp_ok(s, n + 1, m) ==> no_dslash(s, a, m);

  lemma app_dot{L}: \forall char *s, integer a, n, m;
    a <= n && ends_ok(s, a, n) && no_dot(s, a, n) && s[n] == '/' &&
    comp_ok(s, n + 1, m) ==> no_dot(s, a, m);

  lemma app_dotdot{L}: \forall char *s, integer a, n, m;
    a <= n && ends_ok(s, a, n) && no_dotdot(s, a, n) && s[n] == '/' &&
    comp_ok(s, n + 1, m) ==> no_dotdot(s, a, m);

  lemma app_nul{L}: \forall char *s, integer a, n, m;
    a <= n && no_nul(s, a, n) && s[n] == '/' && comp_ok(s, n + 1, m) ==>
    no_nul(s, a, m);

  lemma app_short{L}: \forall char *s, integer a, n, m;
    a <= n && short_names(s, a, n) && s[n] == '/' &&
    comp_ok(s, n + 1, m) ==> short_names(s, a, m);

  // ---- lemmas: the last component removed, at the '/' at m ----------------

  lemma pop_ends{L}: \forall char *s, integer a, m, n;
    a <= m < n && s[m] == '/' && ends_ok(s, a, n) && no_dslash(s, a, n) ==>
    ends_ok(s, a, m);

  lemma pop_dslash{L}: \forall char *s, integer a, m, n;
    m <= n && no_dslash(s, a, n) ==> no_dslash(s, a, m);

  lemma pop_dot{L}: \forall char *s, integer a, m, n;
    m < n && s[m] == '/' && no_dot(s, a, n) ==> no_dot(s, a, m);

  lemma pop_dotdot{L}: \forall char *s, integer a, m, n;
    m < n && s[m] == '/' && no_dotdot(s, a, n) ==> no_dotdot(s, a, m);

  lemma pop_nul{L}: \forall char *s, integer a, m, n;
    m <= n && no_nul(s, a, n) ==> no_nul(s, a, m);

  lemma pop_short{L}: \forall char *s, integer a, m, n;
    m <= n && short_names(s, a, n) ==> short_names(s, a, m);

  // ---- lemmas: the same bytes at two labels -------------------------------

  lemma frame_ends{L1, L2}: \forall char *s, integer a, b;
    same{L1, L2}(s, a, b) && ends_ok{L1}(s, a, b) ==> ends_ok{L2}(s, a, b);

  lemma frame_dslash{L1, L2}: \forall char *s, integer a, b;
    same{L1, L2}(s, a, b) && no_dslash{L1}(s, a, b) ==>
    no_dslash{L2}(s, a, b);

  lemma frame_dot{L1, L2}: \forall char *s, integer a, b;
    same{L1, L2}(s, a, b) && no_dot{L1}(s, a, b) ==> no_dot{L2}(s, a, b);

  lemma frame_dotdot{L1, L2}: \forall char *s, integer a, b;
    same{L1, L2}(s, a, b) && no_dotdot{L1}(s, a, b) ==>
    no_dotdot{L2}(s, a, b);

  lemma frame_nul{L1, L2}: \forall char *s, integer a, b;
    same{L1, L2}(s, a, b) && no_nul{L1}(s, a, b) ==> no_nul{L2}(s, a, b);

  // A name run is a run at either label when its window is the same.
  lemma frame_run{L1, L2}: \forall char *s, integer k;
    same{L1, L2}(s, k, k + PFX_NAME_MAX + 1) && name_run{L2}(s, k) ==>
    name_run{L1}(s, k);

  lemma frame_window{L1, L2}: \forall char *s, integer a, b, k;
    same{L1, L2}(s, a, b) && a <= k && k + PFX_NAME_MAX < b ==>
    same{L1, L2}(s, k, k + PFX_NAME_MAX + 1);

  lemma frame_short{L1, L2}: \forall char *s, integer a, b;
    same{L1, L2}(s, a, b) && short_names{L1}(s, a, b) ==>
    short_names{L2}(s, a, b);

  lemma frame_eqb{L1, L2}: \forall char *p, char *q, integer n;
    same{L1, L2}(p, 0, n) && same{L1, L2}(q, 0, n) && eqb{L1}(p, q, n) ==>
    eqb{L2}(p, q, n);

  // ---- lemmas: a normal base copied -------------

  lemma copy_ends{L}: \forall char *p, char *q, integer n;
    1 < n && eqb(p, q, n) && ends_ok(q, 0, n) ==> ends_ok(p, 0, n);

  lemma copy_dslash{L}: \forall char *p, char *q, integer n;
    eqb(p, q, n) && no_dslash(q, 0, n) ==> no_dslash(p, 0, n);

  lemma copy_dot{L}: \forall char *p, char *q, integer n;
    eqb(p, q, n) && no_dot(q, 0, n) ==> no_dot(p, 0, n);

  lemma copy_dotdot{L}: \forall char *p, char *q, integer n;
    eqb(p, q, n) && no_dotdot(q, 0, n) ==> no_dotdot(p, 0, n);

  lemma copy_nul{L}: \forall char *p, char *q, integer n;
    eqb(p, q, n) && no_nul(q, 0, n) ==> no_nul(p, 0, n);

  lemma copy_run{L}: \forall char *p, char *q, integer n, k;
    eqb(p, q, n) && 0 <= k && k + PFX_NAME_MAX < n && name_run(p, k) ==>
    name_run(q, k);

  lemma copy_short{L}: \forall char *p, char *q, integer n;
    eqb(p, q, n) && short_names(q, 0, n) ==> short_names(p, 0, n);

  // ---- lemmas: the components after a '/' of a sequence -------------------

  lemma comps_head{L}: \forall char *s, integer a, b;
    a < b && comps(s, a, b) ==> s[a] == '/' && a + 1 < b && s[a + 1] != '/';

  lemma suffix_ends{L}: \forall char *s, integer a, b, c;
    a <= c < b && s[c] == '/' && ends_ok(s, a, b) ==> ends_ok(s, c, b);

  lemma suffix_short{L}: \forall char *s, integer a, b, c;
    a <= c && short_names(s, a, b) ==> short_names(s, c, b);

  lemma suffix_comps{L}: \forall char *s, integer a, b, c;
    a <= c < b && s[c] == '/' && comps(s, a, b) ==> comps(s, c, b);

  // ---- the seed's composability -------------------------------------------

  // beneath_composable: beneath a sub-root that is itself beneath a root
  // is beneath that root...
  lemma beneath_trans{L}: \forall char *p, char *s, char *r,
      integer pn, sn, rn;
    beneath(p, pn, s, sn) && beneath(s, sn, r, rn) ==> beneath(p, pn, r, rn);

  // ...and the part relative to the root is the sub-root's relative part,
  // a '/', then the part relative to the sub-root.
  lemma rel_composable{L}: \forall char *p, char *s, char *r,
      integer pn, sn, rn;
    beneath(p, pn, s, sn) && beneath(s, sn, r, rn) && rn < sn < pn ==>
    rel_start(pn, rn) <= sn && p[sn] == '/' && rel_start(pn, sn) == sn + 1 &&
    (\forall integer k; rel_start(pn, rn) <= k < sn ==> p[k] == s[k]);
*/

#endif /* CORE_SPEC_H */
