/*
 * parents.c -- the parent directories an entry's name needs, made with
 * their final mode (0755, less what the umask takes) and remembered as
 * made by this run, for a later entry of one of them (dirs.c), made in
 * the parent kept open (kept.c) where there is one.  Below every writer
 * that makes a name (file.c, links.c, dirs.c, dumprename.c).
 *
 * Why final at once, where a directory entry is made private (0700) and
 * given its mode at the end: a parent the archive does not list has no
 * mode or time of its own to wait for, and the end pass resolves each
 * directory from the root again, O(its depth), so a name of d missing
 * components would cost O(d^2) there, from d bytes of the archive
 * (docs/security.md, the cost model).
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "budget.h"
#include "extract.h"
#include "fdbudget.h"
#include "journal.h"
#include "kept.h"
#include "parents.h"
#include "platform.h"
#include "table.h"

/* A directory entry's modes: its own private until the end, its
 * parents' final. */
const struct plat_mkmode xtr_dir_modes = {
	XTR_PRIVATE_DIR_MODE, XTR_IMPLICIT_DIR_MODE
};

/* see parents.h */
bool
xtr_born_in_run(const struct xtr *x, const struct plat_id *id)
{
	int r;

	if (!x->born_known)
		return true;
	r = plat_born_since(id, &x->born_after);
	return r == 1 || r == -ENOTSUP;
}

/*
 * Is ".." of FD, made at DIR in a root that follows links
 * (--symlinks=root), the directory DIR's parent names, through no link?
 * The walk may have reached FD through a link (l/c with l -> n/../x: its
 * ".." is x, an old directory, not one made at "l").  One lookup of
 * DIR's parent, paid only where more than one component was made.
 */
static bool
parent_by_name(const struct xtr *x, const char *dir, int fd)
{
	struct pfx_root strict = x->root;
	struct plat_id named, up_id;
	char parent[PFX_PATH_MAX];
	const char *slash = strrchr(dir, '/');
	int pfd, up;
	bool same;

	if (slash == NULL || (size_t)(slash - dir) >= sizeof(parent))
		return false;
	memcpy(parent, dir, (size_t)(slash - dir));
	parent[slash - dir] = '\0';
	strict.in_root = 0;
	pfd = pfx_root_open_dir(&strict, parent);
	if (pfd < 0)
		return false;
	up = plat_open_parent(fd);
	same = up >= 0 && plat_os_identify(pfd, &named) == 0 &&
	    plat_os_identify(up, &up_id) == 0 && named.dev == up_id.dev &&
	    named.ino == up_id.ino;
	if (up >= 0)
		plat_close(up);
	plat_close(pfd);
	return same;
}

/*
 * Remember that this run made the last CREATED components of DIR, with
 * nothing to set at the end unless an entry says otherwise later.  Each is known by
 * its identity, so that it gets its mode even when its name leads through
 * a link (--symlinks=root), and no other directory does.  SECURITY: the
 * identities are read climbing ".." from FD, held since DIR was made,
 * never by a name again: someone may have moved another directory to one
 * of those names since (dirs.c changes only the inode made).  One step a
 * component, where a lookup of each parent from the root would cost
 * O(depth) each.
 */
int
xtr_note_made(struct xtr *x, const char *dir, unsigned int created, int fd)
{
	char buf[PFX_PATH_MAX];
	size_t n = strlen(dir);
	struct xtr_slot *s;
	struct plat_id id;
	int at = fd, up, r = 0;
	bool known;

	if (n >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, dir, n + 1);
	/* SECURITY: in a root, the parents climbed to are DIR's by name
	 * only if no link was followed on the way: else FD alone is known. */
	if (created > 1 && x->root.in_root && !parent_by_name(x, dir, fd))
		created = 1;
	while (created > 0 && n > 0) {
		/*
		 * SECURITY: ".." may not be what the walk made -- a link
		 * followed in a root (n/../x), or a directory moved since --
		 * and one that was there before the run is not ours: it and
		 * what is above it are left out.
		 */
		known = at >= 0 && plat_os_identify(at, &id) == 0;
		if (at >= 0 && (!known || !xtr_born_in_run(x, &id)))
			break;
		s = xtr_table_find(&x->dirs, buf);
		if (s == NULL) {
			s = xtr_table_add(&x->dirs, buf);
			if (s == NULL) {
				r = -ENOMEM;
				break;
			}
			s->mode = XTR_IMPLICIT_DIR_MODE;
			s->at_end = false;
			if (known) {
				s->dev = id.dev;
				s->ino = id.ino;
				s->has_id = true;
			}
		}
		created--;
		while (n > 0 && buf[n - 1] != '/')
			n--;
		if (n > 0)
			n--;	/* drop the '/' too */
		buf[n] = '\0';
		if (created > 0 && n > 0 && at >= 0) {
			up = plat_open_parent(at);
			if (at != fd)
				plat_close(at);
			at = up >= 0 ? up : -1;
		}
	}
	if (at >= 0 && at != fd)
		plat_close(at);
	return r;
}

/* see parents.h */
int
xtr_make_parents(struct xtr *x, const char *rel)
{
	char parent[PFX_PATH_MAX];
	const char *slash = strrchr(rel, '/');
	unsigned int created = 0, more = 0, tries = 0;
	size_t n;
	int fd, r;

	if (slash == NULL)
		return 0;
	n = (size_t)(slash - rel);
	if (n >= sizeof(parent))
		return -ENAMETOOLONG;
	memcpy(parent, rel, n);
	parent[n] = '\0';
	fd = xtr_journal_mkdir(x, parent);
	if (fd == 0) {
		fd = pfx_root_mkdirs_count(&x->root, parent,
		    XTR_IMPLICIT_DIR_MODE, &created);
		/* Those made before the shortage count too. */
		while (xtr_fd_relieve(x, fd, &tries)) {
			fd = pfx_root_mkdirs_count(&x->root, parent,
			    XTR_IMPLICIT_DIR_MODE, &more);
			created += more;
		}
	}
	if (fd < 0)
		return fd;
	r = 0;
	if (created > 0 && xtr_count_inodes(x, created) != 0)
		r = -EFBIG;
	if (r == 0 && created > 0)
		r = xtr_note_made(x, parent, created, fd);
	(void)close(fd);
	return r;
}

/* see parents.h */
int
xtr_mkdirs(struct xtr *x, const char *rel, unsigned int *created)
{
	unsigned int tries = 0, more;
	int fd;

	fd = plat_mkdirs_kept(&x->root, xtr_parent_cache(x, rel), rel,
	    &xtr_dir_modes, created);
	/* Those made before the shortage count too. */
	while (xtr_fd_relieve(x, fd, &tries)) {
		fd = plat_mkdirs_kept(&x->root, xtr_parent_cache(x, rel), rel,
		    &xtr_dir_modes, &more);
		*created += more;
	}
	return fd;
}
