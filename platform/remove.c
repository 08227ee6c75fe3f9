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
 * The walk is iterative, not recursive: it holds one directory open,
 * lists it, removes what it can and enters the first directory that is
 * not empty; when that one is empty it climbs back and lists the parent
 * on from where it left off -- the listing itself, kept open, for the top
 * KEEP_LEVELS levels, a telldir(3) position below -- so a wide directory
 * is not listed again for each subdirectory.  A directory is
 * only taken for empty after a pass from its start found nothing left:
 * a position can be stale on some filesystems, never the conclusion.
 * Neither the stack nor the descriptor count grows with depth.
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

/*
 * Open the directory NAME in DIRFD to empty it, without following a
 * symlink, and only on TOP's filesystem and mount; make it 0700 if its
 * owner cannot read, write or search it (the archive may have made it
 * 0500 or 0).  *ID receives its identity.
 * Return: a descriptor (O_RDONLY|O_DIRECTORY), or -errno.
 */
static int
enter(int dirfd, const char *name, const struct plat_id *top,
    struct plat_id *id)
{
	int fd, r;

	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	/* fchmodat(AT_SYMLINK_NOFOLLOW) never follows a symlink either. */
	if (fd == -1 && errno == EACCES &&
	    fchmodat(dirfd, name, S_IRWXU, AT_SYMLINK_NOFOLLOW) == 0)
		fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
	if (fd == -1)
		return -errno;
	r = plat_os_identify(fd, id);
	if (r == 0 && !S_ISDIR(id->mode))
		r = -ENOTDIR;
	/* SECURITY: a mount point beneath is someone else's tree. */
	if (r == 0 && top != NULL && (id->dev != top->dev ||
	    (id->mnt != 0 && top->mnt != 0 && id->mnt != top->mnt)))
		r = -EXDEV;
	if (r == 0 && (id->mode & S_IRWXU) != S_IRWXU &&
	    fchmod(fd, S_IRWXU) == -1)
		r = -errno;
	if (r < 0) {
		plat_close(fd);
		return r;
	}
	return fd;
}

/*
 * Remove the entry NAME of DIRFD: a non-directory (a symlink itself)
 * with unlinkat, a directory with unlinkat(AT_REMOVEDIR) if it is empty.
 * Return: 0 removed, 1 a directory that is not empty, or -errno.
 */
static int
remove_entry(int dirfd, const char *name)
{
	struct stat st;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == -1)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISDIR(st.st_mode)) {
		if (unlinkat(dirfd, name, 0) == -1 && errno != ENOENT)
			return -errno;
		return 0;
	}
	if (unlinkat(dirfd, name, AT_REMOVEDIR) == 0 || errno == ENOENT)
		return 0;
	if (errno == ENOTEMPTY || errno == EEXIST)
		return 1;
	return -errno;
}

/* One directory on the way down from the top of the tree. */
struct level {
	struct plat_id id;	/* the directory entered */
	DIR *d;			/* its listing, kept open; or NULL */
	long pos;		/* else where the listing goes on; -1: start */
};

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
one_pass(int fd, struct level *l, bool keep, char *child,
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
		r = remove_entry(fd, de->d_name);
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
 * Empty the directory open as FD, identity W[0].id, and everything
 * beneath it; W has room for PLAT_MAX_DEPTH + 1 levels, one per directory
 * entered, and FD ends where it started.  The listings of the first
 * KEEP_LEVELS levels stay open while their subdirectories are emptied.
 * Return: 0, or -errno (listings may stay open in W: see close_levels).
 */
static int
empty_tree(int *fd, struct level *w)
{
	char child[PFX_NAME_MAX + 1];
	unsigned long removed, stale = 0;
	size_t depth = 0;
	bool fresh;
	int cfd, r;

	w[0].pos = -1;
	for (;;) {
		removed = 0;
		fresh = w[depth].d == NULL && w[depth].pos < 0;
		r = one_pass(*fd, &w[depth], depth < KEEP_LEVELS, child,
		    &removed);
		if (r < 0)
			return r;
		stale = removed > 0 ? 0 : stale + 1;
		if (stale > STALE_PASSES)
			return -ENOTEMPTY;	/* refilled as fast as emptied */
		if (r == 1) {
			if (depth + 1 > PLAT_MAX_DEPTH)
				return -ENAMETOOLONG;
			cfd = enter(*fd, child, &w[0].id, &w[depth + 1].id);
			if (cfd < 0)
				return cfd;
			plat_close(*fd);
			*fd = cfd;
			depth++;
			w[depth].d = NULL;
			w[depth].pos = -1;
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

/* see pfx_root.h */
int
pfx_remove_tree(int dirfd, const char *name)
{
	struct level *w = NULL;
	struct plat_id top, here;
	struct stat st;
	int fd = -1, r;

	r = check_name(name);
	if (r < 0)
		return r;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == -1)
		return -errno;
	r = remove_entry(dirfd, name);
	if (r <= 0)
		return r;	/* a non-directory, or an empty directory */
	r = plat_os_identify(dirfd, &here);
	if (r < 0)
		return r;
	w = calloc(PLAT_MAX_DEPTH + 1, sizeof(*w));
	if (w == NULL)
		return -ENOMEM;
	fd = enter(dirfd, name, &here, &top);
	if (fd < 0) {
		r = fd;
		goto out;
	}
	w[0].id = top;
	r = empty_tree(&fd, w);
	if (r < 0)
		goto out;
	/* The very directory we emptied, still at NAME: remove it. */
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == -1)
		r = -errno;
	else if (st.st_dev != top.dev || st.st_ino != top.ino)
		r = -EXDEV;
	else if (unlinkat(dirfd, name, AT_REMOVEDIR) == -1)
		r = -errno;
out:
	close_levels(w);
	plat_close(fd);
	free(w);
	return r;
}
