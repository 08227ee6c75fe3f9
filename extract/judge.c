/*
 * judge.c -- an archive name judged: tar's --strip-components, then the
 * decision core beneath a root of "/".  Below the engine, which judges
 * every entry's name here, and GNU incremental renames (dumprename.c),
 * whose names are judged as entries' are.
 */
#include <string.h>

#include "extract.h"
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
const char *
xtr_judge_rel(struct xtr *x, const char *name, struct pfx_verdict *v)
{
	char stripped[PFX_PATH_MAX];
	struct pfx_entry e;

	memset(&e, 0, sizeof(e));
	if (x->opt->strip_components > 0) {
		if (xtr_strip_components(name, x->opt->strip_components,
		    stripped, sizeof(stripped)) < 0)
			return "stripped";
		name = stripped;
	}
	return xtr_judge_name(x, &e, name, v);
}
