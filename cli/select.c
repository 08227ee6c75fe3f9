/*
 * select.c -- the CLI's own selection of entries, for the tar options
 * that choose by more than a name pattern: -N/--newer and bsdtar's
 * --older (by mtime), -K/--starting-file (by position), --exclude-vcs and
 * --exclude-backups (by GNU tar's fixed lists of names).  pfextract.c asks it
 * from the library's decide hook; a skipped entry is quietly skipped, as
 * tar skips it.
 */
#include <fnmatch.h>
#include <stdbool.h>
#include <string.h>

#include "args.h"

/*
 * GNU tar 1.34's lists (exclist.c): the names of version control files
 * and of editor backups.  Each matches the last component of an entry's
 * name, and only that entry: as GNU tar, "d/.git" is excluded but not
 * "d/.git/config" (see the -x and -t checks in tests/compat.sh).
 */
static const char *const vcs_names[] = {
	"CVS", ".cvsignore", "RCS", "SCCS", ".git", ".gitignore",
	".gitattributes", ".gitmodules", ".arch-ids", "{arch}", "=RELEASE-ID",
	"=meta-update", "=update", ".bzr", ".bzrignore", ".bzrtags", ".hg",
	".hgignore", ".hgtags", "_darcs",
};

static const char *const backup_patterns[] = { ".#*", "*~", "#*#" };

/* The last component of NAME, without trailing '/'s, into BUF. */
static const char *
last_component(const char *name, char *buf, size_t cap)
{
	size_t len = strlen(name), start;

	while (len > 1 && name[len - 1] == '/')
		len--;
	start = len;
	while (start > 0 && name[start - 1] != '/')
		start--;
	if (len - start >= cap)
		return NULL;
	memcpy(buf, name + start, len - start);
	buf[len - start] = '\0';
	return buf;
}

/* Does the last component of NAME match one of the N PATS? */
static bool
base_matches(const char *name, const char *const *pats, size_t n)
{
	char buf[256];
	const char *base = last_component(name, buf, sizeof(buf));
	size_t i;

	if (base == NULL)
		return false;	/* longer than any name on the lists */
	for (i = 0; i < n; i++)
		if (fnmatch(pats[i], base, 0) == 0)
			return true;
	return false;
}

/*
 * Is NAME the member -K names, or beneath it?  Literal, as GNU tar takes
 * its member names: trailing '/'s on either side do not count.
 */
static bool
is_start(const char *name, const char *start)
{
	size_t n = strlen(start), m = strlen(name);

	while (n > 1 && start[n - 1] == '/')
		n--;
	while (m > 1 && name[m - 1] == '/')
		m--;
	if (m < n || strncmp(name, start, n) != 0)
		return false;
	return m == n || name[n] == '/';
}

/* see args.h */
bool
xtr_select_needed(const struct xtr_args *a)
{
	return a->newer_set || a->older_set || a->starting_file != NULL ||
	    a->exclude_vcs || a->exclude_backups;
}

/* see args.h */
bool
xtr_select_skip(const struct xtr_args *a, bool *started,
    const struct pfx_entry *e)
{
	if (a->starting_file != NULL && !*started) {
		if (!is_start(e->name, a->starting_file))
			return true;
		*started = true;
	}
	/* As GNU tar: an entry older than -N's date is skipped. */
	if (a->newer_set && e->mtime < a->newer)
		return true;
	if (a->older_set && e->mtime >= a->older)
		return true;
	if (a->exclude_vcs && base_matches(e->name, vcs_names,
	    sizeof(vcs_names) / sizeof(vcs_names[0])))
		return true;
	return a->exclude_backups && base_matches(e->name, backup_patterns,
	    sizeof(backup_patterns) / sizeof(backup_patterns[0]));
}
