/*
 * meta.c -- an entry's metadata as the writers give it: the safe
 * permission bits, the owner (by name or number), the extended
 * attributes an archive may set, the times.  Below every writer (file.c,
 * dirs.c, links.c), which each apply it through their own descriptor.
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "extract.h"
#include "meta.h"
#include "pattern.h"

/* The size of the buffer for getpwnam_r(3) and getgrnam_r(3). */
#define NAME_LOOKUP_BUF 4096

/* What apply_one() is given, and what it found. */
struct xattr_job {
	const struct pfx_options *opt;
	int fd;
	int unstored;	/* errno of the first attribute not stored, or 0 */
};

/* see meta.h */
mode_t
xtr_safe_mode(const struct pfx_options *opt, mode_t mode)
{
	mode_t m = mode & 07777;

	/*
	 * SECURITY: setuid, setgid and sticky bits and group/other write are
	 * cleared unless -p; setuid/setgid survive only with -p and
	 * --same-owner as root, when the owner is the archive's too.
	 */
	if ((opt->flags & PFX_OPT_PRESERVE_PERMS) == 0)
		return m & ~(mode_t)(S_ISUID | S_ISGID | S_ISVTX | S_IWGRP |
		    S_IWOTH);
	if ((opt->flags & PFX_OPT_SAME_OWNER) == 0 || geteuid() != 0)
		m &= ~(mode_t)(S_ISUID | S_ISGID);
	return m;
}

/*
 * An archive's owner number N as an id_t, or (id_t)-1 (chown's "leave
 * it") when it does not fit: a 64-bit 4294967296 cut to 32 bits would be
 * 0, root, and -1 is no one's number.
 */
static id_t
id_of(int64_t n)
{
	return n >= 0 && (uint64_t)n < (uint64_t)(id_t)-1 ? (id_t)n :
	    (id_t)-1;
}

/* The uid for AE: by name unless --numeric-owner, else the number. */
static uid_t
owner_uid(const struct xtr *x, const struct pfx_entry *e)
{
	char buf[NAME_LOOKUP_BUF];
	struct passwd pw, *found = NULL;
	const char *name = e->uname;

	if ((x->opt->flags & PFX_OPT_NUMERIC_OWNER) == 0 && name != NULL &&
	    getpwnam_r(name, &pw, buf, sizeof(buf), &found) == 0 &&
	    found != NULL)
		return found->pw_uid;
	return (uid_t)id_of(e->uid);
}

static gid_t
owner_gid(const struct xtr *x, const struct pfx_entry *e)
{
	char buf[NAME_LOOKUP_BUF];
	struct group gr, *found = NULL;
	const char *name = e->gname;

	if ((x->opt->flags & PFX_OPT_NUMERIC_OWNER) == 0 && name != NULL &&
	    getgrnam_r(name, &gr, buf, sizeof(buf), &found) == 0 &&
	    found != NULL)
		return found->gr_gid;
	return (gid_t)id_of(e->gid);
}

/* Is the xattr NAME one an archive may set? */
static bool
xattr_allowed(const char *name)
{
	/* SECURITY: never security.* (capabilities, SELinux labels),
	 * trusted.* or system.* (ACLs, which -p does not cover). */
	return strncmp(name, "security.", 9) != 0 &&
	    strncmp(name, "trusted.", 8) != 0 &&
	    strncmp(name, "system.", 7) != 0;
}

/*
 * Does NAME match one of the N patterns PATS, as fnmatch(PAT, NAME, 0) in
 * GNU tar?  xtr_glob(), not fnmatch(3): the option, not the environment,
 * says what '^' means, and its cost is bounded.
 */
static bool
xattr_matches(const struct pfx_options *opt, const char *name,
    const char *const *pats, size_t n)
{
	unsigned int flags = XTR_GLOB_WHOLE | xtr_glob_posix(opt);
	size_t i;

	for (i = 0; i < n; i++)
		if (xtr_glob(pats[i], name, flags, NULL))
			return true;
	return false;
}

/* Is the xattr NAME one the caller asks for (--xattrs-include/exclude)? */
static bool
xattr_selected(const struct pfx_options *opt, const char *name)
{
	if (opt->nxattrs_include > 0 &&
	    !xattr_matches(opt, name, opt->xattrs_include,
	    opt->nxattrs_include))
		return false;
	return !xattr_matches(opt, name, opt->xattrs_exclude,
	    opt->nxattrs_exclude);
}

/*
 * Is ERROR, from setting one attribute, the filesystem refusing that
 * attribute (its name or value too long, no room for it beside the
 * others), not a failure of the file?  The archive picks names and sizes:
 * one it cannot store is the entry's matter, not the run's.  ENOSPC may
 * also be a full disk; the next write then says so, and stops the run.
 */
static bool
xattr_unstorable(int error)
{
	return error == E2BIG || error == ERANGE || error == EINVAL ||
	    error == ENOSPC || error == EDQUOT;
}

/* Set one extended attribute, if allowed.  Return: 0, or -errno. */
static int
apply_one(void *arg, const char *name, const void *value, size_t size)
{
	struct xattr_job *job = arg;
	int r;

	if (name == NULL || !xattr_allowed(name) ||
	    !xattr_selected(job->opt, name))
		return 0;
	r = pfx_fd_setxattr(job->fd, name, value, size);
	if (r == -ENOTSUP)
		return 0;
	/* The others are still set: each is stored or not on its own. */
	if (r < 0 && xattr_unstorable(-r) &&
	    (job->opt->flags & PFX_OPT_STRICT) == 0) {
		if (job->unstored == 0)
			job->unstored = -r;
		return 0;
	}
	return r;
}

/*
 * Set M's attributes on FD; those the filesystem would not store are
 * told to the warning hook, once for E, and make the run's status
 * PFX_REFUSED.  Return: 0, or -errno.
 */
static int
apply_xattrs(struct xtr *x, const struct pfx_entry *e,
    const struct xtr_meta *m, int fd)
{
	struct xattr_job job = { x->opt, fd, 0 };
	int r;

	if (m->xattrs == NULL)
		return 0;
	r = m->xattrs(m->xattrs_arg, apply_one, &job);
	if (r == 0 && job.unstored != 0) {
		x->unstored = true;
		if (x->opt->warning != NULL)
			x->opt->warning(x->opt->hooks.arg, "xattr_not_stored",
			    e->name);
	}
	return r;
}

/* see meta.h */
void
xtr_owner_ids(const struct xtr *x, const struct pfx_entry *e, uid_t *uid,
    gid_t *gid)
{
	*uid = (uid_t)-1;
	*gid = (gid_t)-1;
	if ((x->opt->flags & PFX_OPT_SAME_OWNER) != 0 && geteuid() == 0) {
		*uid = owner_uid(x, e);
		*gid = owner_gid(x, e);
	}
}

/* see meta.h */
mode_t
xtr_entry_mode(const struct xtr *x, const struct pfx_entry *e)
{
	mode_t m = xtr_safe_mode(x->opt, e->mode);
	uid_t uid;
	gid_t gid;

	if ((m & (S_ISUID | S_ISGID)) == 0)
		return m;	/* no owner to look up */
	/* SECURITY: a set-id bit only with the owner the archive gives:
	 * not on the file as the run made it (root's). */
	xtr_owner_ids(x, e, &uid, &gid);
	if (uid == (uid_t)-1)
		m &= ~(mode_t)S_ISUID;
	if (gid == (gid_t)-1)
		m &= ~(mode_t)S_ISGID;
	return m;
}

/* see meta.h */
int
xtr_apply_owner_xattrs(struct xtr *x, const struct pfx_entry *e,
    const struct xtr_meta *m, int fd)
{
	uid_t uid;
	gid_t gid;
	int r;

	xtr_owner_ids(x, e, &uid, &gid);
	/* Either may be -1 (a number no id holds): that one is left. */
	if (uid != (uid_t)-1 || gid != (gid_t)-1) {
		r = pfx_fd_chown(fd, uid, gid);
		if (r < 0)
			return r;
	}
	if ((x->opt->flags & PFX_OPT_XATTRS) != 0)
		return apply_xattrs(x, e, m, fd);
	return 0;
}

/* see meta.h */
void
xtr_entry_times(const struct pfx_entry *e, const struct xtr_meta *m,
    struct timespec ts[2])
{
	ts[1].tv_sec = (time_t)e->mtime;
	ts[1].tv_nsec = e->mtime_nsec;
	if (m->atime_set) {
		ts[0] = m->atime;
	} else {
		ts[0].tv_sec = 0;
		ts[0].tv_nsec = UTIME_NOW;
	}
}
