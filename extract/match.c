/*
 * match.c -- member selection, as tar does it: operands and --include
 * select a member or a whole directory; --exclude patterns match the name
 * or any tail of it after a '/', and win.  Each pattern is matched once
 * per name, in O(n * m) time (pattern.c).
 *
 * Operands (pfx_options.members) see the name as stored, as GNU tar's
 * do: "./a" and "a" are two names.  --include and --exclude patterns see
 * it without its leading "./", and lose their own; an exclude pattern
 * that had one is anchored, as it is in GNU tar on names stored with
 * "./" (no tail after a '/' starts with "./"): --exclude=./a leaves
 * "./d/a" alone.  One without sees the name as stored too, as in GNU
 * tar: --exclude='*' '/a' takes "./a".  --anchored exclude patterns see
 * the name as stored, as GNU tar's do.  Each pattern carries its own
 * PFX_MATCH_* flags (--anchored, --ignore-case, ...), positional in tar.
 */
#include <string.h>

#include "match.h"
#include "pattern.h"

/* Does PAT match NAME or a leading directory of NAME ("a" selects "a/b"),
 * under OPT? */
static bool
include_matches(const struct pfx_options *opt, const char *pat,
    const char *name)
{
	size_t n;

	while (pat[0] == '.' && pat[1] == '/')
		pat += 2;
	n = strlen(pat);
	while (n > 1 && pat[n - 1] == '/')
		n--;
	if (xtr_glob(pat, name, xtr_glob_posix(opt), NULL))
		return true;
	/* "dir/" names the directory "dir" too. */
	return strncmp(pat, name, n) == 0 &&
	    (name[n] == '\0' || name[n] == '/');
}

/*
 * The xtr_glob() flags of the PFX_MATCH_* bits M under OPT.  The name
 * loses its trailing '/'s, as in GNU tar: a pattern "d/" then '*' does
 * not match the entry "d/", whose name is "d".
 */
static unsigned int
glob_flags(const struct pfx_options *opt, unsigned int m)
{
	return XTR_GLOB_TRIM | xtr_glob_posix(opt) |
	    ((m & PFX_MATCH_ANCHORED) != 0 ? 0 : XTR_GLOB_TAIL) |
	    ((m & PFX_MATCH_CASEFOLD) != 0 ? XTR_GLOB_FOLD : 0) |
	    ((m & PFX_MATCH_NOSLASH) != 0 ? XTR_GLOB_NOSLASH : 0);
}

/* The xtr_glob() flags of member I: anchored unless told otherwise, the
 * name alone with --no-recursion. */
static unsigned int
member_glob_flags(const struct pfx_options *opt, size_t i)
{
	unsigned int f = glob_flags(opt, opt->member_flags != NULL ?
	    opt->member_flags[i] : PFX_MATCH_ANCHORED);

	return opt->member_whole != NULL && opt->member_whole[i] ?
	    f | XTR_GLOB_WHOLE : f;
}

/*
 * Does exclude pattern I match NAME (without its leading "./"), STORED
 * its name as stored?  Anchored, it sees the stored name, as GNU tar's
 * --anchored does; not anchored, the name or any tail of it.
 */
static bool
excluded(const struct pfx_options *opt, size_t i, const char *name,
    const char *stored)
{
	const char *pat = opt->exclude[i];
	unsigned int flags = glob_flags(opt, opt->exclude_flags != NULL ?
	    opt->exclude_flags[i] : 0);

	if (pat[0] == '.' && pat[1] == '/') {
		while (pat[0] == '.' && pat[1] == '/')
			pat += 2;
		return xtr_glob(pat, name, flags & ~XTR_GLOB_TAIL, NULL);
	}
	if ((flags & XTR_GLOB_TAIL) == 0)
		return xtr_glob(pat, stored, flags, NULL);
	return xtr_glob(pat, name, flags, NULL) || (stored != name &&
	    xtr_glob(pat, stored, flags & ~XTR_GLOB_TAIL, NULL));
}

/* see match.h */
const char *
xtr_unselected(const struct pfx_options *opt, const char *name, bool *hits)
{
	const char *stored = name;
	size_t i;
	bool in = opt->ninclude == 0 && opt->nmembers == 0;

	while (name[0] == '.' && name[1] == '/')
		name += 2;
	/* Exclusion wins, and says so. */
	for (i = 0; i < opt->nexclude; i++)
		if (excluded(opt, i, name, stored))
			return "excluded";
	/* Every pattern that matches is marked, not only the first. */
	for (i = 0; i < opt->ninclude; i++) {
		if (include_matches(opt, opt->include[i], name)) {
			in = true;
			if (hits != NULL)
				hits[i] = true;
		}
	}
	for (i = 0; i < opt->nmembers; i++) {
		if (!xtr_glob(opt->members[i], stored,
		    member_glob_flags(opt, i), NULL))
			continue;
		/* Positional -C: the first member that matches decides. */
		if (opt->member_group != NULL &&
		    opt->member_group[i] != opt->group)
			break;
		in = true;
		if (hits != NULL)
			hits[opt->ninclude + i] = true;
		if (opt->member_group != NULL)
			break;
	}
	return in ? NULL : "not_selected";
}

/* see match.h */
bool
xtr_occurrence_skips(const struct pfx_options *opt, const char *name,
    uint64_t *seen)
{
	unsigned int flags;
	size_t i;

	for (i = 0; i < opt->nmembers; i++) {
		flags = member_glob_flags(opt, i);
		if (!xtr_glob(opt->members[i], name, flags, NULL))
			continue;
		/* As GNU tar: "d/x" counts for the member "d" only if "d"
		 * itself was never seen. */
		if (seen[i] == 0 ||
		    xtr_glob(opt->members[i], name, flags | XTR_GLOB_WHOLE,
		    NULL))
			seen[i]++;
		return seen[i] != opt->occurrence;
	}
	return false;	/* selected by --include alone */
}

/* see match.h */
bool
xtr_member_matches(const struct pfx_options *opt, const char *name)
{
	size_t i;

	for (i = 0; i < opt->nmembers; i++)
		if (xtr_glob(opt->members[i], name, member_glob_flags(opt, i),
		    NULL))
			return true;
	return false;
}
