/*
 * normalize.c -- lexical normalisation of one requested path.
 *
 * Threat model: IN is attacker-controlled bytes of any length and content.
 * The result is either a normalised absolute path that provably came from
 * IN without climbing above its base, or a reason.  Nothing is clamped:
 * "../x" is an escape, not "x".  Every write to BUF is bounds-checked
 * against CAP and against PFX_PATH_MAX, so no input can overflow it.
 */
#include "core.h"

/* see core.h */
size_t
core_next_component(const char *in, size_t len, size_t *pos)
{
	size_t i = *pos, start;

	while (i < len && in[i] == '/')
		i++;
	start = i;
	while (i < len && in[i] != '/')
		i++;
	*pos = i;
	return start;
}

/*
 * Reject what can be decided on the raw bytes, before any normalisation:
 * empty, NUL, too long, and (if asked) the Windows forms.
 */
static enum pfx_reason
precheck(const char *in, size_t len, unsigned int flags)
{
	size_t i;

	if (len == 0)
		return PFX_R_EMPTY;
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
 * Remove the last component of BUF[0 .. *n), never going below FLOOR.
 * Invariant: BUF[floor .. *n) is a sequence of "/component" runs.
 * Return: false if there is no component above FLOOR to remove.
 */
static bool
pop_component(const char *buf, size_t floor, size_t *n)
{
	size_t k = *n;

	if (k <= floor)
		return false;
	while (k > floor && buf[k - 1] != '/')
		k--;
	/* buf[k - 1] is the '/' that opened the component. */
	*n = k - 1;
	return true;
}

/* see pfx_path.h */
enum pfx_reason
pfx_path_normalize(const char *in, size_t len, const char *base,
    size_t base_len, unsigned int flags, char *buf, size_t cap,
    size_t *out_len)
{
	enum pfx_reason r;
	size_t limit, n, floor, i, start, clen, k;

	*out_len = 0;
	if (cap < 2)
		return PFX_R_TOO_LONG;
	if (cap > PFX_PATH_MAX)
		cap = PFX_PATH_MAX;
	limit = cap - 1;	/* longest result, leaving room for NUL */
	buf[0] = '\0';

	r = precheck(in, len, flags);
	if (r != PFX_R_NONE)
		return r;

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
			for (k = 0; k < base_len; k++)
				buf[k] = base[k];
			n = base_len;
		}
	}
	floor = n;

	i = 0;
	while (i < len) {
		start = core_next_component(in, len, &i);
		clen = i - start;
		if (clen == 0)
			continue;
		if (clen > PFX_NAME_MAX)
			return PFX_R_TOO_LONG;
		if (clen == 1 && in[start] == '.')
			continue;
		if (clen == 2 && in[start] == '.' && in[start + 1] == '.') {
			/* SECURITY: climbing above the base is refused. */
			if (!pop_component(buf, floor, &n))
				return PFX_R_ESCAPES;
			continue;
		}
		if (clen + 1 > limit - n)
			return PFX_R_TOO_LONG;
		buf[n++] = '/';
		for (k = 0; k < clen; k++)
			buf[n++] = in[start + k];
	}
	if (n == 0)
		buf[n++] = '/';
	buf[n] = '\0';
	*out_len = n;
	return PFX_R_NONE;
}
