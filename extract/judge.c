/*
 * judge.c -- an archive name judged: tar's --strip-components, then the
 * decision core beneath a root of "/".  Below the engine, which judges
 * every entry's name here, and GNU incremental renames (dumprename.c),
 * whose names are transformed and judged as entries' are.
 */
#include <errno.h>
#include <string.h>

#include "extract.h"
#include "fail.h"
#include "judge.h"

/*
 * Remove the first N components of NAME into OUT (CAP bytes), as tar's
 * --strip-components: empty components do not count, "." does.
 * Return: 0, or -1 if nothing is left or OUT is too small.
 */
int
xtr_strip_components(const char *name, unsigned int n, char *out, size_t cap)
{
	const char *p = name;
	size_t len;

	while (n > 0) {
		while (*p == '/')
			p++;
		if (*p == '\0')
			return -1;
		while (*p != '\0' && *p != '/')
			p++;
		n--;
	}
	while (*p == '/')
		p++;
	len = strlen(p);
	if (len == 0 || len >= cap)
		return -1;
	memcpy(out, p, len + 1);
	return 0;
}

/*
 * Judge the archive name NAME: absolute names are refused outright, the
 * rest go to the decision core beneath a root of "/", which gives back the
 * normalised relative path in *V.  Return: NULL if allowed, else the
 * reason code, with E->decision set.
 */
const char *
xtr_judge_name(struct xtr *x, struct pfx_entry *e, const char *name,
    struct pfx_verdict *v)
{
	static const struct pfx_span slash = { "/", 1 };
	struct pfx_policy pol = { &slash, 1, NULL, 0, x->policy_flags };

	if (name[0] == '/') {
		/* Under Windows rules "//server/share" (a zip's "\\server\
		 * share", whose '\' libarchive turned into '/') is named for
		 * what it is; anything else absolute is just absolute. */
		if ((x->policy_flags & PFX_POLICY_WINDOWS) != 0 &&
		    pfx_path_check(&pol, name, strlen(name), v) ==
		    PFX_REJECT && v->reason != PFX_R_TOO_LONG &&
		    v->reason != PFX_R_ESCAPES) {
			e->decision = PFX_REJECT;
			return pfx_reason_name(v->reason);
		}
		e->decision = PFX_DENY;
		return "absolute";
	}
	if (pfx_path_check(&pol, name, strlen(name), v) != PFX_ALLOW) {
		e->decision = v->decision;
		return pfx_reason_name(v->reason);
	}
	return NULL;
}

/* see judge.h */
bool
xtr_past_max_depth(const struct xtr *x, const char *rel, unsigned int extra)
{
	unsigned int max = x->opt->limits.max_depth;
	unsigned int depth = extra + (rel[0] != '\0');

	if (max == 0)
		return false;
	for (; *rel != '\0'; rel++)
		depth += *rel == '/';
	return depth > max;
}

/* see judge.h */
const char xtr_too_long[] = "";

/* see judge.h */
const char *
xtr_transform_name(struct xtr *x, const struct pfx_entry *e,
    enum pfx_name_kind kind, const char *name, char *buf, size_t cap)
{
	int r;

	buf[0] = '\0';
	r = x->opt->hooks.transform(x->opt->hooks.arg, kind, e, name, buf,
	    cap);
	if (r == 0)
		return name;
	if (r == 2)
		return xtr_too_long;
	/* Not terminated: a caller bug, as for a rename. */
	if (r == 1 && memchr(buf, '\0', cap) != NULL)
		return buf;
	xtr_fail(x, ECANCELED, "%s: stopped by the caller's transform",
	    e->name);
	return NULL;
}

/* see judge.h */
const char *
xtr_judge_rel(struct xtr *x, const struct pfx_entry *e, const char *name,
    struct pfx_verdict *v)
{
	char xname[PFX_PATH_MAX], stripped[PFX_PATH_MAX];
	struct pfx_entry j;

	/* SECURITY: renamed as the entries are, or a path the transform
	 * keeps entries out of (--one-top-level) could still be moved. */
	if (x->opt->hooks.transform != NULL) {
		name = xtr_transform_name(x, e, PFX_NAME_ENTRY, name, xname,
		    sizeof(xname));
		if (name == NULL)
			return "vetoed";
		if (name == xtr_too_long)
			return "too_long";
		if (name[0] == '\0')
			return "transform_empty";
	}
	memset(&j, 0, sizeof(j));
	if (x->opt->strip_components > 0) {
		if (xtr_strip_components(name, x->opt->strip_components,
		    stripped, sizeof(stripped)) < 0)
			return "stripped";
		name = stripped;
	}
	return xtr_judge_name(x, &j, name, v);
}
