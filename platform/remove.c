/*
 * remove.c -- remove a whole tree, as rm -rf would, without ever
 * following a symlink or leaving the tree's filesystem.
 *
 * The tree is one this library filled from a hostile archive: files,
 * symlinks pointing anywhere, directories the archive made read-only.
 * So nothing here resolves a path of more than one component: every
 * entry is removed with unlinkat(2) from a descriptor of the directory
 * holding it, every directory is entered with openat(O_NOFOLLOW|
 * O_DIRECTORY) and checked, and the way back up is ".." checked against
 * the identity recorded on the way down.
 *
 * SECURITY: a descriptor pins a directory, not its place.  Whoever can
 * write the tree can move a directory out of it while the walk empties
 * it, and every unlinkat(2) from its descriptor would then remove an
 * entry outside: no call removes "by descriptor, only if still beneath".
 * So right before each effect -- each unlinkat, each chmod -- the
 * directory it acts in is proved to be beneath the walk's base at that
 * moment, and the walk stops at once with -EXDEV when it is not.  The
 * base is the root where the caller gives one (pfx_remove_tree_beneath),
 * else DIRFD itself, which the caller vouches for.  The proof is one
 * openat2(RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS|RESOLVE_NO_XDEV) of the
 * directory's path from the base and a comparison of identities (a
 * directory has one parent: found at its path, it is there), in pieces
 * of fewer than PFX_PATH_MAX bytes if it is longer, else -- it found
 * something else, or there is no openat2 -- a climb of ".."
 * (plat_check_beneath()).  What no proof can close: a move that lands in
 * the microseconds between a proof and the call it guards still has that
 * one call act outside; the next proof sees the move (a directory moved
 * out and back in between two proofs is not seen at all, and costs that
 * one call too).  So each move of a directory out of the base while the
 * walk is in it or beneath it costs at most one entry removed, or one
 * directory made 0700, outside -- never the rest of the tree.  Only a
 * kernel confinement to the root (pfx_root_confined(): Landlock) closes
 * that window; there the proofs are left to the kernel, which refuses
 * the call itself, and its EACCES becomes -EXDEV.  Renaming the doomed
 * tree to a fresh name first would not help: whoever can move it can
 * list its parent, or hold a descriptor of it, and find it again.
 *
 * The walk is iterative, not recursive: it holds one directory open,
 * lists it, removes what it can and enters the first directory that is
 * not empty; when that one is empty it climbs back and lists the parent
 * on from where it left off -- the listing itself, kept open, for the top
 * KEEP_LEVELS levels, a telldir(3) position below -- so a wide directory
 * is not listed again for each subdirectory.  A directory is
 * only taken for empty after a pass from its start found nothing left:
 * a position can be stale on some filesystems, never the conclusion.
 * Neither the stack nor the descriptor count grows with depth; the path
 * the proofs resolve does, on the heap past PFX_PATH_MAX bytes.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "platform.h"

/*
 * Passes in a row that removed nothing before giving up: more than a
 * walk down the deepest tree takes, so only a tree that something keeps
 * refilling while we work gets there.
 */
#define STALE_PASSES (PLAT_MAX_DEPTH + 2)

/*
 * Levels whose listing stays open while a subdirectory is emptied, so a
 * wide directory near the top is listed once, not once per subdirectory;
 * deeper levels keep only a position.  Bounds the descriptors held.
 */
#define KEEP_LEVELS 8

/* A path we could not keep (out of memory): the proof climbs instead. */
#define NOPATH ((size_t)-1)

/*
 * Where the walk may act: beneath BASE -- the root the caller gave, else
 * ANCHOR, the directory NAME is in, taken for a root.  PATH is the path
 * from BASE's directory to the directory entered last, in SMALL until it
 * outgrows it, then in CAP bytes on the heap; each level keeps its own
 * length of it.  OPENAT2: the kernel still seems to have it.
 */
struct guard {
	const struct pfx_root *base;
	struct pfx_root anchor;
	bool openat2;
	char *path;
	size_t cap;
	char small[PFX_PATH_MAX];
};

/* One directory on the way down from the top of the tree. */
struct level {
	struct plat_id id;	/* the directory entered */
	DIR *d;			/* its listing, kept open; or NULL */
	long pos;		/* else where the listing goes on; -1: start */
	size_t plen;		/* its length of the guard's path, or NOPATH */
};

/*
 * Set G up to prove directories beneath ROOT, where DIRFD was opened as
 * DIRREL, or beneath DIRFD itself (identity HERE) if ROOT is NULL.
 * Return: the length of DIRFD's path in G's (NOPATH: too long).
 */
static size_t
guard_init(struct guard *g, const struct pfx_root *root, int dirfd,
    const struct plat_id *here, const char *dirrel)
{
	size_t n;

	g->openat2 = true;
	g->path = g->small;
	g->cap = sizeof(g->small);
	g->path[0] = '\0';
	if (root != NULL) {
		g->base = root;
		n = strlen(dirrel);
		if (n >= g->cap)
			return NOPATH;
		memcpy(g->path, dirrel, n + 1);
		return n;
	}
	memset(&g->anchor, 0, sizeof(g->anchor));
	g->anchor.fd = dirfd;
	g->anchor.resolver = PFX_RESOLVER_OPENAT2;
	g->anchor.dev = here->dev;
	g->anchor.ino = here->ino;
	g->anchor.mnt = here->mnt;
	g->base = &g->anchor;
	return 0;
}

/* Free what G holds. */
static void
guard_free(struct guard *g)
{
	if (g->path != g->small)
		free(g->path);
	g->path = g->small;
}

/*
 * The path of NAME in the directory at PLEN of G's path: appended to it,
 * the buffer grown as needed (at most PLAT_MAX_DEPTH components of
 * PFX_NAME_MAX bytes).  Return: its length, or NOPATH (out of memory).
 */
static size_t
path_push(struct guard *g, size_t plen, const char *name)
{
	size_t n = strlen(name), at, cap;
	char *p;

	if (plen == NOPATH)
		return NOPATH;
	at = plen == 0 ? 0 : plen + 1;
	if (at + n >= g->cap) {
		for (cap = g->cap; at + n >= cap; cap *= 2)
			;
		p = malloc(cap);
		if (p == NULL)
			return NOPATH;
		memcpy(p, g->path, plen + 1);
		guard_free(g);
		g->path = p;
		g->cap = cap;
	}
	if (plen > 0)
		g->path[plen] = '/';
	memcpy(g->path + at, name, n + 1);
	return at + n;
}

/*
 * Open the directory at G's path up to PLEN (PLEN > 0) beneath G's base,
 * with openat2(RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS|RESOLVE_NO_XDEV), or
 * RESOLVE_IN_ROOT for a root used as a root filesystem: in one call, or,
 * for a path of PFX_PATH_MAX bytes or more, in pieces shorter than that,
 * each from where the last one ended.
 * Return: an O_PATH descriptor, or -errno.
 */
static int
open_path(struct guard *g, size_t plen)
{
	int fd = g->base->fd, next;
	size_t at = 0, cut;
	char c;

	for (;;) {
		cut = plen;
		if (cut - at >= PFX_PATH_MAX) {
			cut = at + PFX_PATH_MAX - 1;
			while (cut > at && g->path[cut] != '/')
				cut--;
		}
		if (cut == at) {
			next = -ENAMETOOLONG;	/* not a path we made */
		} else {
			c = g->path[cut];
			g->path[cut] = '\0';
			/* A root used as a root filesystem: its parent's path
			 * may cross symlinks, each resolved inside it. */
			next = g->base->in_root ?
			    plat_os_openat2_in_root(fd, g->path + at,
			    plat_os_search_flag() | O_DIRECTORY) :
			    plat_os_openat2(fd, g->path + at,
			    plat_os_search_flag() | O_DIRECTORY);
			g->path[cut] = c;
		}
		if (fd != g->base->fd)
			plat_close(fd);
		if (next < 0 || cut == plen)
			return next;
		fd = next;
		at = cut + 1;
	}
}

/*
 * Is the directory open as FD (identity ID, at PLEN in G's path) beneath
 * G's base now?  Cost: an openat2, a statx and a close (one more openat2
 * and close per PFX_PATH_MAX bytes of path beyond the first); a climb of
 * ".." only where that does not show FD at its path.
 * Return: 0, -EXDEV if not, or -errno.
 */
static int
still_beneath(struct guard *g, int fd, const struct plat_id *id,
    size_t plen)
{
	struct plat_id found;
	int pfd, r;

	/*
	 * SECURITY: confined by the kernel to the root, this process has each
	 * call in a directory moved out refused at the moment of the call.
	 */
	if (g->base->kernel_confined)
		return 0;
	if (plen == 0 && fd == g->base->fd)
		return 0;	/* the base itself */
	if (g->openat2 && plen != NOPATH && plen > 0) {
		pfd = open_path(g, plen);
		/*
		 * SECURITY: as in plat_check_beneath_at(): a directory has one
		 * parent, so the inode openat2 finds at the path -- beneath the
		 * base, through no symlink and no mount, now -- being FD's
		 * means FD is beneath the base now.  (In pieces, each piece
		 * is beneath where the last ended at its own moment: a move
		 * meanwhile is one more in the window the top of this file
		 * speaks of.)  Any other answer proves nothing either way:
		 * climb.
		 */
		if (pfd >= 0) {
			r = plat_os_identify(pfd, &found);
			plat_close(pfd);
			if (r == 0 && found.dev == id->dev &&
			    found.ino == id->ino && found.mnt == id->mnt)
				return 0;
		} else if (pfd == -ENOSYS || pfd == -EPERM ||
		    pfd == -EINVAL || pfd == -E2BIG) {
			g->openat2 = false;	/* no openat2 here: climb */
		}
	}
	return plat_check_beneath(g->base, fd);
}

/*
 * The error R (-errno) of an effect in the directory FD (identity ID, at
 * PLEN in G's path): -EXDEV where the directory is no longer beneath G's
 * base -- what a kernel confinement's EACCES means then --, or a mount
 * point's EBUSY; else R.  Looks only on -EACCES and -EPERM.
 */
static int
refused(struct guard *g, int fd, const struct plat_id *id, size_t plen,
    int r)
{
	/* A mount point (rmdir's EBUSY): another filesystem, which the
	 * walk never enters, is no part of the root to remove. */
	if (r == -EBUSY)
		return -EXDEV;
	if (r != -EACCES && r != -EPERM)
		return r;
	if (g->base->kernel_confined)
		return plat_confined_error(g->base, fd, r);
	return still_beneath(g, fd, id, plen) == -EXDEV ? -EXDEV : r;
}

/*
 * Is NAME in DIRFD still the inode ID?  Return: 0, -EXDEV, or -errno.
 */
static int
still_at(int dirfd, const char *name, const struct plat_id *id)
{
	struct stat st;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == -1)
		return -errno;
	return st.st_dev == id->dev && st.st_ino == id->ino ? 0 : -EXDEV;
}

/*
 * Open the directory NAME in DIRFD (identity DIRID, at DPLEN in G's path)
 * to empty it, without following a symlink, and only on TOP's filesystem
 * and mount; make it 0700 if its owner cannot read, write or search it
 * (the archive may have made it 0500 or 0), each chmod only once DIRFD
 * is proved beneath G's base.  *ID receives its identity.
 * Return: a descriptor (O_RDONLY|O_DIRECTORY), or -errno.
 */
static int
enter(struct guard *g, int dirfd, const struct plat_id *dirid, size_t dplen,
    const char *name, const struct plat_id *top, struct plat_id *id)
{
	struct stat st;
	int fd, r;

	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (fd == -1 && errno == EACCES) {
		/*
		 * SECURITY: a chmod by name, in a directory proved beneath,
		 * of what was a directory a moment ago (never a hard link to
		 * a file, then); fchmodat(AT_SYMLINK_NOFOLLOW) never follows
		 * a symlink.
		 */
		if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == -1)
			return -errno;
		if (!S_ISDIR(st.st_mode))
			return -ENOTDIR;
		r = still_beneath(g, dirfd, dirid, dplen);
		if (r < 0)
			return r;
		if (fchmodat(dirfd, name, S_IRWXU, AT_SYMLINK_NOFOLLOW) == -1)
			return refused(g, dirfd, dirid, dplen, -errno);
		fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
	}
	if (fd == -1)
		return -errno;
	r = plat_os_identify(fd, id);
	if (r == 0 && !S_ISDIR(id->mode))
		r = -ENOTDIR;
	/* SECURITY: a mount point beneath is someone else's tree. */
	if (r == 0 && top != NULL && (id->dev != top->dev ||
	    (id->mnt != 0 && top->mnt != 0 && id->mnt != top->mnt)))
		r = -EXDEV;
	if (r == 0 && (id->mode & S_IRWXU) != S_IRWXU) {
		/*
		 * SECURITY: proved through DIRFD, which we can search (FD,
		 * perhaps, not yet), and FD still at NAME in it.
		 */
		r = still_beneath(g, dirfd, dirid, dplen);
		if (r == 0)
			r = still_at(dirfd, name, id);
		if (r == 0 && fchmod(fd, S_IRWXU) == -1)
			r = refused(g, dirfd, dirid, dplen, -errno);
	}
	if (r < 0) {
		plat_close(fd);
		return r;
	}
	return fd;
}

/*
 * Remove the entry NAME of DIRFD (identity DIRID, at PLEN in G's path),
 * once DIRFD is proved beneath G's base: a non-directory (a symlink
 * itself) with unlinkat, a directory with unlinkat(AT_REMOVEDIR) if it
 * is empty.  TYPE: its S_IFMT type as listed, 0 if the listing did not
 * say (then fstatat(2) asks).  Return: 0 removed, 1 a directory that is
 * not empty, or -errno (-EXDEV: DIRFD is no longer beneath the base).
 */
static int
remove_entry(struct guard *g, int dirfd, const struct plat_id *dirid,
    size_t plen, const char *name, mode_t type)
{
	struct stat st;
	int flags, r;

	if (type == 0) {
		if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == -1)
			return errno == ENOENT ? 0 : -errno;
		type = st.st_mode & S_IFMT;
	}
	/* SECURITY: see the top of this file; the proof goes last. */
	r = still_beneath(g, dirfd, dirid, plen);
	if (r < 0)
		return r;
	flags = S_ISDIR(type) ? AT_REMOVEDIR : 0;
	if (unlinkat(dirfd, name, flags) == 0 || errno == ENOENT)
		return 0;
	/* Its type changed since it was listed: the other call, once. */
	if ((flags == 0 && errno == EISDIR) ||
	    (flags != 0 && errno == ENOTDIR)) {
		flags ^= AT_REMOVEDIR;
		if (unlinkat(dirfd, name, flags) == 0 || errno == ENOENT)
			return 0;
	}
	if (flags != 0 && (errno == ENOTEMPTY || errno == EEXIST))
		return 1;
	return refused(g, dirfd, dirid, plen, -errno);
}

/*
 * One pass over the directory open as FD, whose listing goes on in L:
 * from L->d if open, else from the position L->pos (-1: the start).
 * Remove every entry that can go at once, and stop at the first
 * directory that is not empty, whose name goes to CHILD (PFX_NAME_MAX + 1
 * bytes), with the listing kept open in L->d if KEEP, else closed and
 * the position before the child in L->pos.  *REMOVED counts removals.
 * Return: 1 a directory to enter, 0 nothing left to enter, or -errno.
 */
static int
one_pass(struct guard *g, int fd, struct level *l, bool keep, char *child,
    unsigned long *removed)
{
	struct dirent *de;
	long here = 0;
	int r = 0;

	if (l->d == NULL) {
		r = plat_listing_open(fd, l->pos, &l->d);
		if (r < 0)
			return r;
	}
	for (;;) {
		if (!keep)
			here = telldir(l->d);
		errno = 0;
		de = readdir(l->d);
		if (de == NULL) {
			r = errno != 0 ? -errno : 0;
			break;
		}
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		r = remove_entry(g, fd, &l->id, l->plen, de->d_name,
		    plat_os_dirent_type(de));
		if (r < 0)
			break;
		if (r == 0) {
			(*removed)++;
			continue;
		}
		if (strlen(de->d_name) > PFX_NAME_MAX) {
			r = -ENAMETOOLONG;
			break;
		}
		memcpy(child, de->d_name, strlen(de->d_name) + 1);
		if (keep)
			return 1;
		l->pos = here;
		break;
	}
	(void)closedir(l->d);
	l->d = NULL;
	return r;
}

/* Is NAME a single component other than "." and ".."? */
static int
check_name(const char *name)
{
	if (name[0] == '\0' || strchr(name, '/') != NULL ||
	    strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return -EINVAL;
	if (strlen(name) > PFX_NAME_MAX)
		return -ENAMETOOLONG;
	return 0;
}

/*
 * Empty the directory open as FD, identity W[0].id, path W[0].plen in
 * G's, and everything beneath it; W has room for PLAT_MAX_DEPTH + 1
 * levels, one per directory entered, and FD ends where it started.  The
 * listings of the first KEEP_LEVELS levels stay open while their
 * subdirectories are emptied.
 * Return: 0, or -errno (listings may stay open in W: see close_levels).
 */
static int
empty_tree(struct guard *g, int *fd, struct level *w)
{
	char child[PFX_NAME_MAX + 1];
	unsigned long removed, stale = 0;
	size_t depth = 0, plen;
	bool fresh;
	int cfd, r;

	w[0].pos = -1;
	for (;;) {
		removed = 0;
		fresh = w[depth].d == NULL && w[depth].pos < 0;
		r = one_pass(g, *fd, &w[depth], depth < KEEP_LEVELS, child,
		    &removed);
		if (r < 0)
			return r;
		stale = removed > 0 ? 0 : stale + 1;
		if (stale > STALE_PASSES)
			return -ENOTEMPTY;	/* refilled as fast as emptied */
		if (r == 1) {
			if (depth + 1 > PLAT_MAX_DEPTH)
				return -ENAMETOOLONG;
			plen = path_push(g, w[depth].plen, child);
			cfd = enter(g, *fd, &w[depth].id, w[depth].plen, child,
			    &w[0].id, &w[depth + 1].id);
			if (cfd < 0)
				return cfd;
			plat_close(*fd);
			*fd = cfd;
			depth++;
			w[depth].d = NULL;
			w[depth].pos = -1;
			w[depth].plen = plen;
			continue;
		}
		if (!fresh) {
			w[depth].pos = -1;	/* make sure: once from the start */
			continue;
		}
		if (depth == 0)
			return 0;
		/* Empty now: back to the parent, whose next pass removes it. */
		r = plat_climb(fd, &w[depth - 1].id);
		if (r < 0)
			return r;
		depth--;
	}
}

/* Close the listings left open in the PLAT_MAX_DEPTH + 1 levels of W. */
static void
close_levels(struct level *w)
{
	size_t i;

	for (i = 0; i <= PLAT_MAX_DEPTH && i < KEEP_LEVELS + 1; i++) {
		if (w[i].d != NULL)
			(void)closedir(w[i].d);
		w[i].d = NULL;
	}
}

/*
 * pfx_remove_tree() with ROOT NULL, pfx_remove_tree_beneath() with ROOT,
 * where DIRFD was opened as DIRREL.
 */
static int
remove_tree(const struct pfx_root *root, int dirfd, const char *dirrel,
    const char *name)
{
	struct level *w = NULL;
	struct plat_id top, here;
	struct guard g;
	struct stat st;
	size_t base, plen;
	int fd = -1, r;

	r = check_name(name);
	if (r < 0)
		return r;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == -1)
		return -errno;
	r = plat_os_identify(dirfd, &here);
	if (r < 0)
		return r;
	base = guard_init(&g, root, dirfd, &here, dirrel);
	r = remove_entry(&g, dirfd, &here, base, name, st.st_mode & S_IFMT);
	if (r <= 0)
		return r;	/* a non-directory, or an empty directory */
	w = calloc(PLAT_MAX_DEPTH + 1, sizeof(*w));
	if (w == NULL) {
		r = -ENOMEM;
		goto out;
	}
	plen = path_push(&g, base, name);
	fd = enter(&g, dirfd, &here, base, name, &here, &top);
	if (fd < 0) {
		r = fd;
		goto out;
	}
	w[0].id = top;
	w[0].plen = plen;
	r = empty_tree(&g, &fd, w);
	if (r < 0)
		goto out;
	/* The very directory we emptied, still at NAME: remove it. */
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == -1)
		r = -errno;
	else if (st.st_dev != top.dev || st.st_ino != top.ino)
		r = -EXDEV;
	else if ((r = still_beneath(&g, dirfd, &here, base)) == 0 &&
	    unlinkat(dirfd, name, AT_REMOVEDIR) == -1)
		r = refused(&g, dirfd, &here, base, -errno);
out:
	if (w != NULL)
		close_levels(w);
	plat_close(fd);
	free(w);
	guard_free(&g);
	return r;
}

/* see pfx_root.h */
int
pfx_remove_tree(int dirfd, const char *name)
{
	return remove_tree(NULL, dirfd, "", name);
}

/* see pfx_root.h */
int
pfx_remove_tree_beneath(const struct pfx_root *root, int dirfd,
    const char *dirrel, const char *name)
{
	return remove_tree(root, dirfd, dirrel, name);
}
