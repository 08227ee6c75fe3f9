/*
 * test_core_props.c -- property tests of the decision core (pfx_path.h).
 *
 * Each property runs over many requests drawn by a fixed-seed xorshift64
 * generator from an alphabet biased to the pieces that break path code:
 * "/", "//", ".", "..", '\', ':', drive letters, device names, control
 * bytes, bytes over 0x7f, and components near PFX_NAME_MAX.  A few
 * requests are built long, near PFX_PATH_MAX, and a few carry a NUL.  The
 * seeds are fixed, so a failure names its seed and case number and can be
 * replayed.  The first counterexample stops the test with the request
 * quoted.
 *
 * Some properties compare the core with a reference model written here,
 * independently of core/: it splits on '/', drops empty and "."
 * components, and lets ".." pop the last pushed component, failing when
 * there is none.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>

#include "../core/pfx_path.h"

/* Room for the longest generated request, with slack for prefixes. */
#define GEN_CAP		(2 * PFX_PATH_MAX + 1024)

/* Room for a reference result: a base and a request, both long. */
#define REF_CAP		(PFX_PATH_MAX + GEN_CAP + 2)

/* A string literal as pointer and length; the literal may hold NULs. */
#define IN(s)		(s), sizeof(s) - 1

/* Advance the xorshift64 state *S and return the new value. */
static uint64_t
rng_next(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*s = x;
	return x;
}

/* Return: a number in [0, N). */
static size_t
rng_below(uint64_t *s, size_t n)
{
	return (size_t)(rng_next(s) % n);
}

/*
 * The alphabet.  Repeated entries weigh the draw towards separators and
 * "..".  "r", "d", "e", "s1" and "s2" are the names of the roots and
 * denied directories used below, so generated requests often land in
 * them.
 */
static const struct pfx_span pieces[] = {
	{ IN("/") }, { IN("/") }, { IN("/") }, { IN("/") }, { IN("/") },
	{ IN("//") }, { IN(".") }, { IN(".") }, { IN("..") }, { IN("..") },
	{ IN("..") }, { IN("../") }, { IN("./") }, { IN("/..") },
	{ IN("a") }, { IN("b") }, { IN("ab") }, { IN("a.") }, { IN("...") },
	{ IN("r") }, { IN("r") }, { IN("d") }, { IN("d") }, { IN("e") },
	{ IN("x") }, { IN("s1") }, { IN("s2") },
	{ IN("\\") }, { IN(":") }, { IN("C:") }, { IN("\\\\") }, { IN(" ") },
	{ IN("\xff") }, { IN("\x01") }, { IN("<") }, { IN("?") },
	{ IN("CON") }, { IN("nul.txt") }, { IN("COM1") },
	{ IN("lpt\xc2\xb9") }
};

#define NPIECES	(sizeof(pieces) / sizeof(pieces[0]))

/* Append N copies of byte C to BUF at *N_IO, within GEN_CAP. */
static void
gen_fill(char *buf, size_t *n_io, char c, size_t n)
{
	if (n > GEN_CAP - *n_io)
		n = GEN_CAP - *n_io;
	memset(buf + *n_io, c, n);
	*n_io += n;
}

/* Append LEN bytes at P to BUF at *N_IO, within GEN_CAP. */
static void
gen_put(char *buf, size_t *n_io, const char *p, size_t len)
{
	if (len == 0)
		return;
	if (len > GEN_CAP - *n_io)
		len = GEN_CAP - *n_io;
	memcpy(buf + *n_io, p, len);
	*n_io += len;
}

/*
 * A long request: components of 150 to 258 bytes mixed with "..", "." and
 * empty ones, cut at a length around PFX_PATH_MAX.
 */
static void
gen_long(uint64_t *s, char *buf, size_t *n_io)
{
	size_t target, r;

	target = *n_io + 3700 + rng_below(s, 700);
	if (rng_below(s, 2) == 0)
		gen_put(buf, n_io, IN("/"));
	while (*n_io < target) {
		r = rng_below(s, 10);
		if (r < 7)
			gen_fill(buf, n_io, 'x', 150 + rng_below(s, 109));
		else if (r == 7)
			gen_put(buf, n_io, IN(".."));
		else if (r == 8)
			gen_put(buf, n_io, IN("."));
		gen_put(buf, n_io, IN("/"));
	}
	*n_io = target;
}

/*
 * Whole components for structured requests: "..", "." and empty ones
 * weigh as much as names, so requests climb and descend often.
 */
static const struct pfx_span components[] = {
	{ IN("..") }, { IN("..") }, { IN("..") }, { IN(".") }, { IN("") },
	{ IN("a") }, { IN("b") }, { IN("r") }, { IN("d") }, { IN("e") },
	{ IN("s1") }, { IN("s2") }, { IN("a.") }, { IN("...") }, { IN("C:") },
	{ IN("a\\b") }, { IN("CON") }, { IN("\xff") }
};

#define NCOMPONENTS	(sizeof(components) / sizeof(components[0]))

/* A structured request: whole components joined by '/'. */
static void
gen_structured(uint64_t *s, char *buf, size_t *n_io)
{
	size_t count, i;
	const struct pfx_span *c;

	if (rng_below(s, 3) == 0)
		gen_put(buf, n_io, IN("/"));
	count = 1 + rng_below(s, 10);
	for (i = 0; i < count; i++) {
		if (i > 0)
			gen_put(buf, n_io, IN("/"));
		if (rng_below(s, 80) == 0) {
			gen_fill(buf, n_io, 'n', 250 + rng_below(s, 11));
			continue;
		}
		c = &components[rng_below(s, NCOMPONENTS)];
		gen_put(buf, n_io, c->ptr, c->len);
	}
	if (rng_below(s, 4) == 0)
		gen_put(buf, n_io, IN("/"));
}

/*
 * Draw one request into BUF (GEN_CAP bytes) after the LEN bytes of PREFIX:
 * one time in 64 a long one, else half structured, half free pieces.
 * Return: its length.
 */
static size_t
gen_path(uint64_t *s, const char *prefix, size_t prefix_len, char *buf)
{
	size_t n = 0, count, i;
	const struct pfx_span *p;

	gen_put(buf, &n, prefix, prefix_len);
	if (rng_below(s, 64) == 0) {
		gen_long(s, buf, &n);
	} else if (rng_below(s, 2) == 0) {
		gen_structured(s, buf, &n);
	} else {
		count = rng_below(s, 14);
		if (rng_below(s, 20) == 0)
			count += rng_below(s, 48);
		for (i = 0; i < count; i++) {
			if (rng_below(s, 80) == 0) {
				/* A component near PFX_NAME_MAX. */
				gen_fill(buf, &n, 'n', 250 + rng_below(s, 11));
				continue;
			}
			p = &pieces[rng_below(s, NPIECES)];
			gen_put(buf, &n, p->ptr, p->len);
		}
	}
	if (n > 0 && rng_below(s, 256) == 0)
		buf[rng_below(s, n)] = '\0';
	return n;
}

/*
 * Quote LEN bytes at IN for a failure message, C-style, keeping the first
 * 160 bytes.  Return: a static buffer, overwritten by the next call.
 */
static const char *
quote(const char *in, size_t len)
{
	static char out[1024];
	size_t i, o = 0;
	unsigned char c;

	for (i = 0; i < len && i < 160; i++) {
		c = (unsigned char)in[i];
		if (c == '\\' || c == '"')
			o += (size_t)snprintf(out + o, sizeof(out) - o,
			    "\\%c", c);
		else if (c < 0x20 || c > 0x7e)
			o += (size_t)snprintf(out + o, sizeof(out) - o,
			    "\\x%02x", c);
		else
			out[o++] = (char)c;
	}
	if (i < len)
		snprintf(out + o, sizeof(out) - o, "\"... (%zu bytes)", len);
	else
		snprintf(out + o, sizeof(out) - o, "\" (%zu bytes)", len);
	return out;
}

/* Stop the test at the first counterexample. */
#define FAIL_CASE(prop, why, seed, k, in, len)				\
	cr_assert_fail("%s: %s; seed %#llx case %zu; request \"%s",	\
	    (prop), (why), (unsigned long long)(seed), (k), quote((in), (len)))

/*
 * Is PATH (PLEN bytes) equal to or beneath DIR, by whole components?
 * DIR is a normalised absolute path.
 */
static bool
under(const char *path, size_t plen, const struct pfx_span *dir)
{
	if (dir->len == 1)
		return plen > 0 && path[0] == '/';
	return plen >= dir->len && memcmp(path, dir->ptr, dir->len) == 0 &&
	    (plen == dir->len || path[dir->len] == '/');
}

static bool
is_win_reason(enum pfx_reason r)
{
	return r >= PFX_R_WIN_BACKSLASH && r < PFX_R_COUNT_;
}

/*
 * Is PATH (LEN bytes) in normal form: absolute, no empty, "." or ".."
 * component, no trailing '/' unless it is "/", within the limits?
 * Return: NULL if so, or what is wrong.
 */
static const char *
bad_shape(const char *path, size_t len)
{
	size_t i, start, clen;

	if (len == 0 || path[0] != '/')
		return "path is not absolute";
	if (len >= PFX_PATH_MAX)
		return "path_len >= PFX_PATH_MAX";
	if (len == 1)
		return NULL;
	if (path[len - 1] == '/')
		return "path ends in '/'";
	i = 1;
	while (i <= len) {
		start = i;
		while (i < len && path[i] != '/')
			i++;
		clen = i - start;
		if (clen == 0)
			return "path has an empty component (\"//\")";
		if (clen == 1 && path[start] == '.')
			return "path has a \".\" component";
		if (clen == 2 && path[start] == '.' && path[start + 1] == '.')
			return "path has a \"..\" component";
		if (clen > PFX_NAME_MAX)
			return "path has a component over PFX_NAME_MAX";
		i++;
	}
	return NULL;
}

/*
 * Check the invariants every verdict V, returned as RET for POLICY, must
 * hold whatever the request was.  Return: NULL, or the broken invariant.
 */
static const char *
bad_verdict(const struct pfx_policy *policy, enum pfx_decision ret,
    const struct pfx_verdict *v)
{
	const struct pfx_span *root;
	const char *why;
	size_t i, off;

	if (ret != v->decision)
		return "return value differs from verdict->decision";
	if ((unsigned int)v->reason >= PFX_R_COUNT_)
		return "reason out of range";
	if ((policy->flags & PFX_POLICY_WINDOWS) == 0 &&
	    is_win_reason(v->reason))
		return "Windows reason without PFX_POLICY_WINDOWS";
	switch (v->decision) {
	case PFX_ALLOW:
		if (v->reason != PFX_R_NONE)
			return "allow with a reason other than none";
		break;
	case PFX_DENY:
		if (v->reason != PFX_R_OUTSIDE && v->reason != PFX_R_DENIED)
			return "deny with a reason other than outside/denied";
		break;
	case PFX_REJECT:
		if (v->reason == PFX_R_NONE || v->reason == PFX_R_OUTSIDE ||
		    v->reason == PFX_R_DENIED)
			return "reject with an allow or deny reason";
		if (v->path_len != 0)
			return "reject with path_len != 0";
		return NULL;
	default:
		return "decision out of range";
	}

	if (v->path_len >= PFX_PATH_MAX)
		return "path_len >= PFX_PATH_MAX";
	if (v->path[v->path_len] != '\0')
		return "path is not NUL-terminated at path_len";
	if (strlen(v->path) != v->path_len)
		return "strlen(path) != path_len";
	why = bad_shape(v->path, v->path_len);
	if (why != NULL)
		return why;

	/* Deny lists win, and the reported one contains the path. */
	if (v->reason == PFX_R_DENIED) {
		if (v->root >= policy->ndeny)
			return "denied with root out of the deny list";
		if (!under(v->path, v->path_len, &policy->deny[v->root]))
			return "denied, but not beneath deny[root]";
		return NULL;
	}
	for (i = 0; i < policy->ndeny; i++) {
		if (under(v->path, v->path_len, &policy->deny[i]))
			return "beneath a denied directory, but not denied";
	}
	if (v->decision == PFX_DENY) {
		for (i = 0; i < policy->nallow; i++) {
			if (under(v->path, v->path_len, &policy->allow[i]))
				return "outside, but beneath an allowed root";
		}
		return NULL;
	}

	/* Allowed: beneath its root, the first such, and rel is the rest. */
	if (v->root >= policy->nallow)
		return "allowed with root out of the allow list";
	root = &policy->allow[v->root];
	if (!under(v->path, v->path_len, root))
		return "allowed, but not beneath allow[root]";
	for (i = 0; i < v->root; i++) {
		if (under(v->path, v->path_len, &policy->allow[i]))
			return "allowed, but an earlier root contains it";
	}
	if (v->rel_off > v->path_len || v->rel_len > v->path_len - v->rel_off)
		return "rel_off/rel_len outside the path";
	if (v->path_len == root->len || v->path_len == 1) {
		if (v->rel_len != 0)
			return "the root itself with rel_len != 0";
		return NULL;
	}
	off = root->len == 1 ? 1 : root->len + 1;
	if (v->rel_len != v->path_len - off ||
	    memcmp(v->path + v->rel_off, v->path + off, v->rel_len) != 0)
		return "rel is not the path after its root";
	if (v->rel_len == 0 || v->path[v->rel_off] == '/')
		return "rel is empty or starts with '/'";
	return NULL;
}

/* A policy with a name for messages. */
struct named_policy {
	const char *name;
	struct pfx_policy policy;
};

static const struct pfx_span sp_r[] = { { IN("/r") } };
static const struct pfx_span sp_slash[] = { { IN("/") } };
static const struct pfx_span sp_tmp[] = { { IN("/tmp/allowed_dir") } };
static const struct pfx_span sp_r_q[] = { { IN("/r") }, { IN("/q/w") } };
static const struct pfx_span sp_s_r[] = { { IN("/r/s1/s2") }, { IN("/r") } };
static const struct pfx_span sp_s[] = { { IN("/r/s1/s2") } };
static const struct pfx_span sp_d[] = { { IN("/r/d") } };
static const struct pfx_span sp_d_x[] = { { IN("/r/d") }, { IN("/r/x") } };
static const struct pfx_span sp_x_d[] = { { IN("/r/x") }, { IN("/r/d") } };
static const struct pfx_span sp_x_de_d[] = {
	{ IN("/r/x") }, { IN("/r/d/e") }, { IN("/r/d") }
};
static const struct pfx_span sp_d_r[] = { { IN("/r/d") }, { IN("/r") } };
static const struct pfx_span sp_slash_d[] = { { IN("/") }, { IN("/r/d") } };

#define POL(a, d, f)	{ (a), sizeof(a) / sizeof((a)[0]), (d), \
			    sizeof(d) / sizeof((d)[0]), (f) }
#define POL_NODENY(a, f) { (a), sizeof(a) / sizeof((a)[0]), NULL, 0, (f) }

/* Run one request through pfx_path_check with a poisoned verdict. */
static enum pfx_decision
run_check(const struct pfx_policy *policy, const char *in, size_t len,
    struct pfx_verdict *v)
{
	memset(v, 0xa5, sizeof(*v));
	return pfx_path_check(policy, in, len, v);
}

/*
 * Every verdict is consistent and fully written, and an allowed path is
 * in normal form, beneath the first root that contains it, with rel the
 * rest of it.
 */
Test(core_props, verdict_invariants)
{
	static const struct named_policy pols[] = {
		{ "allow /r", POL_NODENY(sp_r, 0) },
		{ "allow /", POL_NODENY(sp_slash, 0) },
		{ "allow /r /q/w deny /r/d", POL(sp_r_q, sp_d, 0) },
		{ "allow /r/s1/s2 /r deny /r/d /r/x", POL(sp_s_r, sp_d_x, 0) },
		{ "no root", { NULL, 0, NULL, 0, 0 } },
		{ "allow /r windows", POL_NODENY(sp_r, PFX_POLICY_WINDOWS) }
	};
	static char in[GEN_CAP];
	static struct pfx_verdict v;
	const uint64_t seed = 0x9e3779b97f4a7c15ull;
	uint64_t s = seed;
	size_t k, j, len, nallow = 0, ndeny = 0, nreject = 0;
	enum pfx_decision ret;
	const char *why;

	for (j = 0; j < sizeof(pols) / sizeof(pols[0]); j++) {
		for (k = 0; k < 12000; k++) {
			len = gen_path(&s, NULL, 0, in);
			ret = run_check(&pols[j].policy, in, len, &v);
			why = bad_verdict(&pols[j].policy, ret, &v);
			if (why != NULL)
				FAIL_CASE(pols[j].name, why, seed, k, in, len);
			if (v.decision == PFX_ALLOW)
				nallow++;
			else if (v.decision == PFX_DENY)
				ndeny++;
			else
				nreject++;
		}
	}
	/* The generator must reach all three decisions often. */
	cr_expect(nallow > 5000 && ndeny > 5000 && nreject > 5000,
	    "allow %zu, deny %zu, reject %zu", nallow, ndeny, nreject);
}

/*
 * A normalised path is a fixed point: normalising it again gives the same
 * bytes, and checking it again gives the same verdict.
 */
Test(core_props, idempotence)
{
	static const struct named_policy pols[] = {
		{ "allow /r deny /r/d", POL(sp_r, sp_d, 0) },
		{ "allow /r/s1/s2 /r deny /r/d /r/x", POL(sp_s_r, sp_d_x, 0) },
		{ "allow /r windows", POL_NODENY(sp_r, PFX_POLICY_WINDOWS) }
	};
	static char in[GEN_CAP];
	static char buf[PFX_PATH_MAX];
	static struct pfx_verdict v, w;
	const uint64_t seed = 0x2545f4914f6cdd1dull;
	uint64_t s = seed;
	size_t k, j, len, out_len, tested = 0;
	const struct pfx_policy *pol;
	enum pfx_reason r;

	for (j = 0; j < sizeof(pols) / sizeof(pols[0]); j++) {
		pol = &pols[j].policy;
		for (k = 0; k < 15000; k++) {
			len = gen_path(&s, NULL, 0, in);
			run_check(pol, in, len, &v);
			if (v.decision == PFX_REJECT)
				continue;
			tested++;
			memset(buf, 'X', sizeof(buf));
			r = pfx_path_normalize(v.path, v.path_len, NULL, 0,
			    pol->flags, buf, sizeof(buf), &out_len);
			if (r != PFX_R_NONE)
				FAIL_CASE(pols[j].name,
				    "normalising the result again fails", seed,
				    k, in, len);
			if (out_len != v.path_len ||
			    memcmp(buf, v.path, out_len + 1) != 0)
				FAIL_CASE(pols[j].name,
				    "normalising the result changes it", seed,
				    k, in, len);
			run_check(pol, v.path, v.path_len, &w);
			if (w.decision != v.decision || w.reason != v.reason ||
			    w.path_len != v.path_len ||
			    memcmp(w.path, v.path, v.path_len) != 0)
				FAIL_CASE(pols[j].name,
				    "checking the result again changes it",
				    seed, k, in, len);
			if ((v.decision == PFX_ALLOW ||
			    v.reason == PFX_R_DENIED) && w.root != v.root)
				FAIL_CASE(pols[j].name,
				    "checking the result again changes root",
				    seed, k, in, len);
			if (v.decision == PFX_ALLOW &&
			    (w.rel_len != v.rel_len || memcmp(w.path +
			    w.rel_off, v.path + v.rel_off, v.rel_len) != 0))
				FAIL_CASE(pols[j].name,
				    "checking the result again changes rel",
				    seed, k, in, len);
		}
	}
	cr_expect(tested > 10000, "only %zu requests were not rejected",
	    tested);
}

/* What the reference model makes of one request. */
struct ref_result {
	enum pfx_reason reason;	/* ESCAPES also admits TOO_LONG */
	char path[REF_CAP];
	size_t len;
};

/*
 * The reference model.  Normalise IN (LEN bytes) against BASE (BASE_LEN
 * bytes, 0 for none) with no length limit on the way, then apply the
 * limits the contract states: the input, each component, the result.
 * The running depth starts at 0 at the base ("/" for an absolute request)
 * and a ".." at depth 0 is an escape.  When the request both escapes and
 * is too long, either reason is right: the core stops at the first.
 */
static void
ref_normalize(const char *in, size_t len, const char *base, size_t base_len,
    struct ref_result *out)
{
	static size_t stack[GEN_CAP];
	size_t i, start, clen, depth = 0;
	bool long_comp = false;

	out->len = 0;
	if (len == 0) {
		out->reason = PFX_R_EMPTY;
		return;
	}
	if (memchr(in, '\0', len) != NULL) {
		out->reason = PFX_R_NUL;
		return;
	}
	if (len > PFX_PATH_MAX - 1) {
		out->reason = PFX_R_TOO_LONG;
		return;
	}
	if (in[0] != '/') {
		if (base_len == 0) {
			out->reason = PFX_R_RELATIVE;
			return;
		}
		/* The base "/" is held as the empty string. */
		if (base_len > 1) {
			memcpy(out->path, base, base_len);
			out->len = base_len;
		}
	}

	i = 0;
	while (i < len) {
		start = i;
		while (i < len && in[i] != '/')
			i++;
		clen = i - start;
		i++;
		if (clen == 0 || (clen == 1 && in[start] == '.'))
			continue;
		if (clen == 2 && in[start] == '.' && in[start + 1] == '.') {
			if (depth == 0) {
				out->reason = PFX_R_ESCAPES;
				return;
			}
			out->len = stack[--depth];
			continue;
		}
		if (clen > PFX_NAME_MAX)
			long_comp = true;
		stack[depth++] = out->len;
		out->path[out->len++] = '/';
		memcpy(out->path + out->len, in + start, clen);
		out->len += clen;
	}
	if (out->len == 0)
		out->path[out->len++] = '/';
	out->path[out->len] = '\0';
	if (long_comp || out->len > PFX_PATH_MAX - 1)
		out->reason = PFX_R_TOO_LONG;
	else
		out->reason = PFX_R_NONE;
}

/* Does the core's reason GOT agree with the model's WANT? */
static bool
reason_agrees(enum pfx_reason want, enum pfx_reason got)
{
	if (want == PFX_R_ESCAPES)
		return got == PFX_R_ESCAPES || got == PFX_R_TOO_LONG;
	return got == want;
}

/*
 * The core agrees with the reference model: a request that climbs above
 * its base is rejected (escapes, or too_long), one that does not is never
 * rejected as escapes, and a valid request normalises to the model's
 * bytes.  Checked through pfx_path_check under three roots and through
 * pfx_path_normalize with no base.
 */
Test(core_props, reference_model)
{
	static const struct named_policy pols[] = {
		{ "allow /r", POL_NODENY(sp_r, 0) },
		{ "allow /", POL_NODENY(sp_slash, 0) },
		{ "allow /tmp/allowed_dir", POL_NODENY(sp_tmp, 0) }
	};
	static char in[GEN_CAP];
	static char buf[PFX_PATH_MAX];
	static struct pfx_verdict v;
	static struct ref_result ref;
	const uint64_t seed = 0xd1b54a32d192ed03ull;
	uint64_t s = seed;
	size_t k, j, len, out_len, nescape = 0, nvalid = 0, nlong = 0;
	const struct pfx_policy *pol;
	enum pfx_reason r;

	for (j = 0; j < sizeof(pols) / sizeof(pols[0]); j++) {
		pol = &pols[j].policy;
		for (k = 0; k < 40000; k++) {
			len = gen_path(&s, NULL, 0, in);
			ref_normalize(in, len, pol->allow[0].ptr,
			    pol->allow[0].len, &ref);
			run_check(pol, in, len, &v);
			if (ref.reason == PFX_R_ESCAPES)
				nescape++;
			else if (ref.reason == PFX_R_TOO_LONG)
				nlong++;
			if (ref.reason != PFX_R_NONE) {
				if (v.decision != PFX_REJECT ||
				    !reason_agrees(ref.reason, v.reason))
					FAIL_CASE(pols[j].name,
					    ref.reason == PFX_R_ESCAPES ?
					    "escapes, but not rejected as "
					    "escapes or too_long" :
					    "reason differs from the model",
					    seed, k, in, len);
				continue;
			}
			nvalid++;
			if (v.decision == PFX_REJECT)
				FAIL_CASE(pols[j].name,
				    "valid per the model, but rejected", seed,
				    k, in, len);
			if (v.path_len != ref.len ||
			    memcmp(v.path, ref.path, ref.len) != 0)
				FAIL_CASE(pols[j].name,
				    "path differs from the model", seed, k, in,
				    len);
		}
	}

	/* The same, through pfx_path_normalize with no base. */
	for (k = 0; k < 40000; k++) {
		len = gen_path(&s, NULL, 0, in);
		ref_normalize(in, len, NULL, 0, &ref);
		memset(buf, 'X', sizeof(buf));
		r = pfx_path_normalize(in, len, NULL, 0, 0, buf, sizeof(buf),
		    &out_len);
		if (!reason_agrees(ref.reason, r))
			FAIL_CASE("normalize, no base",
			    "reason differs from the model", seed, k, in, len);
		if (r != PFX_R_NONE)
			continue;
		if (out_len != ref.len ||
		    memcmp(buf, ref.path, ref.len + 1) != 0)
			FAIL_CASE("normalize, no base",
			    "result differs from the model", seed, k, in, len);
	}
	cr_expect(nescape > 5000 && nvalid > 10000 && nlong > 500,
	    "escapes %zu, valid %zu, too long %zu", nescape, nvalid, nlong);
}

/*
 * Roots compose: a relative request X allowed beneath S = /r/s1/s2 with
 * rel R is allowed beneath P = /r as "s1/s2/" X, with the same path and
 * rel "s1/s2/" R ("s1/s2" when R is empty).
 */
Test(core_props, composability)
{
	static const struct pfx_policy pol_s = POL_NODENY(sp_s, 0);
	static const struct pfx_policy pol_p = POL_NODENY(sp_r, 0);
	static char in[GEN_CAP + 8];
	static char want_rel[PFX_PATH_MAX + 8];
	static struct pfx_verdict vs, vp;
	const uint64_t seed = 0x853c49e6748fea9bull;
	uint64_t s = seed;
	size_t k, len, want_len, tested = 0;

	memcpy(in, "s1/s2/", 6);
	for (k = 0; k < 40000; k++) {
		len = gen_path(&s, NULL, 0, in + 6);
		if (len == 0 || in[6] == '/')
			continue;
		run_check(&pol_s, in + 6, len, &vs);
		if (vs.decision != PFX_ALLOW || len + 6 > PFX_PATH_MAX - 1)
			continue;
		tested++;
		run_check(&pol_p, in, len + 6, &vp);
		if (vp.decision != PFX_ALLOW)
			FAIL_CASE("compose /r/s1/s2 in /r",
			    "allowed beneath S, not as s1/s2/X beneath P", seed,
			    k, in + 6, len);
		if (vp.root != 0 || vp.path_len != vs.path_len ||
		    memcmp(vp.path, vs.path, vs.path_len + 1) != 0)
			FAIL_CASE("compose /r/s1/s2 in /r",
			    "path or root differs beneath P", seed, k, in + 6,
			    len);
		memcpy(want_rel, "s1/s2", 5);
		want_len = 5;
		if (vs.rel_len > 0) {
			want_rel[want_len++] = '/';
			memcpy(want_rel + want_len, vs.path + vs.rel_off,
			    vs.rel_len);
			want_len += vs.rel_len;
		}
		if (vp.rel_len != want_len ||
		    memcmp(vp.path + vp.rel_off, want_rel, want_len) != 0)
			FAIL_CASE("compose /r/s1/s2 in /r",
			    "rel beneath P is not s1/s2/R", seed, k, in + 6,
			    len);
	}
	cr_expect(tested > 5000, "only %zu requests were allowed beneath S",
	    tested);
}

/*
 * Deny wins: whatever the request, a normalised path equal to or beneath
 * /r/d is denied (reason denied, root a deny entry that contains it) and
 * never allowed, with the deny entry first, last or between others, and
 * even when /r/d or "/" is also an allowed root.
 */
Test(core_props, deny_wins)
{
	static const struct named_policy pols[] = {
		{ "allow /r deny /r/d", POL(sp_r, sp_d, 0) },
		{ "allow /r deny /r/d /r/x", POL(sp_r, sp_d_x, 0) },
		{ "allow /r deny /r/x /r/d", POL(sp_r, sp_x_d, 0) },
		{ "allow /r deny /r/x /r/d/e /r/d", POL(sp_r, sp_x_de_d, 0) },
		{ "allow /r/d /r deny /r/d", POL(sp_d_r, sp_d, 0) },
		{ "allow / /r/d deny /r/x /r/d", POL(sp_slash_d, sp_x_d, 0) }
	};
	static const struct pfx_span prefixes[] = {
		{ IN("") }, { IN("d") }, { IN("d/") }, { IN("/r/d") },
		{ IN("/r/d/") }, { IN("d/e/") }, { IN("x/../d/") },
		{ IN("/r/./d//") }
	};
	static const struct pfx_span denied = { IN("/r/d") };
	static char in[GEN_CAP];
	static struct pfx_verdict v;
	static struct ref_result ref;
	const uint64_t seed = 0xbf58476d1ce4e5b9ull;
	uint64_t s = seed;
	size_t k, j, len, ndenied = 0;
	const struct pfx_span *pre;
	const struct pfx_policy *pol;

	for (j = 0; j < sizeof(pols) / sizeof(pols[0]); j++) {
		pol = &pols[j].policy;
		for (k = 0; k < 6000; k++) {
			pre = &prefixes[rng_below(&s,
			    sizeof(prefixes) / sizeof(prefixes[0]))];
			len = gen_path(&s, pre->ptr, pre->len, in);
			ref_normalize(in, len, pol->allow[0].ptr,
			    pol->allow[0].len, &ref);
			run_check(pol, in, len, &v);
			if (ref.reason != PFX_R_NONE ||
			    !under(ref.path, ref.len, &denied))
				continue;
			ndenied++;
			if (v.decision == PFX_ALLOW)
				FAIL_CASE(pols[j].name,
				    "beneath /r/d, but allowed", seed, k, in,
				    len);
			if (v.decision != PFX_DENY ||
			    v.reason != PFX_R_DENIED)
				FAIL_CASE(pols[j].name,
				    "beneath /r/d, but not denied", seed, k,
				    in, len);
			if (v.root >= pol->ndeny ||
			    !under(v.path, v.path_len, &pol->deny[v.root]))
				FAIL_CASE(pols[j].name,
				    "denied, but root is not a deny entry "
				    "that contains the path", seed, k, in,
				    len);
		}
	}
	cr_expect(ndenied > 5000, "only %zu requests landed beneath /r/d",
	    ndenied);
}

/*
 * Is component C (LEN bytes) a device name, by this test's own reading
 * of the Windows rules: CON, PRN, AUX, NUL, CONIN$, CONOUT$, COM1-COM9 or
 * LPT1-LPT9 (or with a superscript digit), any case, before any
 * extension and ignoring trailing spaces?
 */
static bool
win_device_name(const char *c, size_t len)
{
	static const char *const names[] = {
		"CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"
	};
	char up[8];
	size_t stem = 0, i;

	while (stem < len && c[stem] != '.')
		stem++;
	while (stem > 0 && c[stem - 1] == ' ')
		stem--;
	if (stem >= sizeof(up))
		return false;
	for (i = 0; i < stem; i++)
		up[i] = (c[i] >= 'a' && c[i] <= 'z') ? (char)(c[i] - 32) : c[i];
	up[stem] = '\0';
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strcmp(up, names[i]) == 0)
			return true;
	}
	if (strncmp(up, "COM", 3) != 0 && strncmp(up, "LPT", 3) != 0)
		return false;
	if (stem == 4)
		return up[3] >= '1' && up[3] <= '9';
	return stem == 5 && up[3] == '\xc2' &&
	    (up[4] == '\xb9' || up[4] == '\xb2' || up[4] == '\xb3');
}

/*
 * Is the raw request IN (LEN bytes) free of every Windows form?
 * Return: NULL if so, or the form found.
 */
static const char *
win_form(const char *in, size_t len)
{
	size_t i, start, clen;
	unsigned char c;

	for (i = 0; i < len; i++) {
		c = (unsigned char)in[i];
		if (c == '\\')
			return "a backslash";
		if (c == ':')
			return "a colon (drive or stream)";
		if ((c >= 0x01 && c <= 0x1f) || c == '<' || c == '>' ||
		    c == '"' || c == '|' || c == '?' || c == '*')
			return "a character Windows forbids";
	}
	if (len >= 2 && in[0] == '/' && in[1] == '/')
		return "a UNC or device prefix";
	i = 0;
	while (i < len) {
		start = i;
		while (i < len && in[i] != '/')
			i++;
		clen = i - start;
		i++;
		if (clen == 0 || (clen == 1 && in[start] == '.') ||
		    (clen == 2 && in[start] == '.' && in[start + 1] == '.'))
			continue;
		if (in[start + clen - 1] == '.' || in[start + clen - 1] == ' ')
			return "a trailing dot or space";
		if (win_device_name(in + start, clen))
			return "a device name";
	}
	return NULL;
}

/*
 * PFX_POLICY_WINDOWS only adds rejections: with it, a request is either
 * rejected for a Windows form or gets exactly the verdict it gets
 * without it; without it, no Windows reason ever appears; and a request
 * it lets through contains none of the Windows forms.
 */
Test(core_props, windows_only_adds)
{
	static const struct pfx_policy pol_posix = POL(sp_r, sp_d, 0);
	static const struct pfx_policy pol_win =
	    POL(sp_r, sp_d, PFX_POLICY_WINDOWS);
	static char in[GEN_CAP];
	static struct pfx_verdict v0, v1;
	const uint64_t seed = 0x94d049bb133111ebull;
	uint64_t s = seed;
	size_t k, len, nwin = 0, npass = 0;
	const char *form;

	for (k = 0; k < 40000; k++) {
		len = gen_path(&s, NULL, 0, in);
		run_check(&pol_posix, in, len, &v0);
		run_check(&pol_win, in, len, &v1);
		if (is_win_reason(v0.reason))
			FAIL_CASE("windows", "Windows reason without the flag",
			    seed, k, in, len);
		if (is_win_reason(v1.reason)) {
			nwin++;
			if (v1.decision != PFX_REJECT || v1.path_len != 0)
				FAIL_CASE("windows",
				    "Windows reason, but not a reject", seed, k,
				    in, len);
			continue;
		}
		if (v1.decision != v0.decision || v1.reason != v0.reason ||
		    v1.root != v0.root || v1.path_len != v0.path_len ||
		    memcmp(v1.path, v0.path, v0.path_len) != 0 ||
		    (v0.decision == PFX_ALLOW && (v1.rel_off != v0.rel_off ||
		    v1.rel_len != v0.rel_len)))
			FAIL_CASE("windows", "the flag changed a verdict "
			    "other than by a Windows reject", seed, k, in,
			    len);
		if (v1.decision == PFX_REJECT)
			continue;
		npass++;
		form = win_form(in, len);
		if (form != NULL)
			FAIL_CASE("windows", form, seed, k, in, len);
	}
	cr_expect(nwin > 5000 && npass > 3000,
	    "Windows rejects %zu, passed %zu", nwin, npass);
}
