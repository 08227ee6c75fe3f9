/*
 * replaced.c -- what a pending file is about to replace: look at it, move
 * it aside as a backup, or remove a directory tree in its way.
 *
 * Each acts in the pending file's own parent, the directory already
 * resolved beneath the root for it (pend->dirfd), on its one last
 * component: nothing here resolves a path, follows a symlink or leaves
 * that directory.  The name can change between one of these calls and
 * pfx_root_commit(); what that costs is said at each function.  A tree
 * in the way is removed by remove.c, which proves before each removal
 * that the directory it removes in has not left the root (or, without a
 * root, PEND's parent): a directory moved out meanwhile stops it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pfx_root.h"
#include "platform.h"

/* see pfx_root.h */
int
pfx_pending_existing(const struct pfx_pending *pend, struct stat *st)
{
	if (pend->dirfd < 0)
		return -EBADF;
	if (fstatat(pend->dirfd, pend->name, st, AT_SYMLINK_NOFOLLOW) == -1)
		return -errno;
	return 0;
}

/*
 * Is ENT "NAME.~N~" with N decimal and positive?  Return: N, or 0.
 * A number past LONG_MAX / 2 is taken for none, so N + 1 never wraps.
 */
static long
backup_number(const char *ent, const char *name, size_t nlen)
{
	const char *s;
	char *end;
	long n;

	if (strncmp(ent, name, nlen) != 0 || ent[nlen] != '.' ||
	    ent[nlen + 1] != '~')
		return 0;
	s = ent + nlen + 2;
	if (*s < '1' || *s > '9')
		return 0;
	errno = 0;
	n = strtol(s, &end, 10);
	if (errno != 0 || n > LONG_MAX / 2 || strcmp(end, "~") != 0)
		return 0;
	return n;
}

/*
 * The highest N of the backups "NAME.~N~" in DIRFD, 0 if none.
 * Cost: one pass over the directory's entries.  Return: N, or -errno.
 */
static long
highest_backup(int dirfd, const char *name)
{
	struct dirent *de;
	size_t nlen = strlen(name);
	long n, max = 0;
	DIR *d;
	int fd;

	fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd == -1)
		return -errno;
	d = fdopendir(fd);
	if (d == NULL) {
		n = -errno;
		(void)close(fd);
		return n;
	}
	while ((de = readdir(d)) != NULL) {
		n = backup_number(de->d_name, name, nlen);
		if (n > max)
			max = n;
	}
	(void)closedir(d);
	return max;
}

/*
 * SECURITY: is BAK one component of NAME_MAX bytes at most, to be used in
 * the same directory: never a path, ".", ".." or ""?
 */
static bool
one_component(const char *bak)
{
	return bak[0] != '\0' && strlen(bak) <= NAME_MAX &&
	    strchr(bak, '/') == NULL && strcmp(bak, ".") != 0 &&
	    strcmp(bak, "..") != 0;
}

/*
 * The name a backup of what NAME in DIRFD holds would take now, into BAK,
 * as pfx_pending_backup_name() says.  Return: 0, or -errno.
 */
static int
backup_name_at(int dirfd, const char *name, int how, const char *suffix,
    char *bak, size_t cap)
{
	struct stat st;
	long n = 0;
	int len;

	bak[0] = '\0';
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == -1)
		return errno == ENOENT ? 0 : -errno;
	if (S_ISDIR(st.st_mode))
		return 0;	/* as GNU tar: directories are not backed up */
	if (how != PFX_PENDING_BACKUP_SIMPLE) {
		n = highest_backup(dirfd, name);
		if (n < 0)
			return (int)n;
		if (how == PFX_PENDING_BACKUP_EXISTING && n == 0)
			how = PFX_PENDING_BACKUP_SIMPLE;
	}
	if (how == PFX_PENDING_BACKUP_SIMPLE)
		len = snprintf(bak, cap, "%s%s", name,
		    suffix != NULL ? suffix : "~");
	else
		len = snprintf(bak, cap, "%s.~%ld~", name, n + 1);
	if (len < 0 || (size_t)len >= cap || !one_component(bak)) {
		bak[0] = '\0';
		return -ENAMETOOLONG;
	}
	return 0;
}

/*
 * Move what NAME in DIRFD holds to BAK, a backup's name got from
 * backup_name_at() (and judged, maybe, since): that very name, never
 * one worked out again.  Nothing there any more: BAK set to "".
 * Return: 0, or -errno.
 */
static int
move_to_backup(int dirfd, const char *name, char *bak)
{
	if (!one_component(bak))
		return -EINVAL;
	/* As GNU tar, a simple backup replaces the previous one. */
	if (renameat(dirfd, name, dirfd, bak) == -1) {
		bak[0] = '\0';
		return errno == ENOENT ? 0 : -errno;
	}
	return 0;
}

/*
 * move_to_backup() in DIRFD, the directory DIR beneath ROOT, proved
 * beneath ROOT right before the move and again after it.
 * SECURITY: DIRFD may have been resolved long ago -- a pending file's
 * parent was, before its data was written -- and moved out of the root
 * since: renaming in it then renames outside.  The proof before keeps
 * that from happening at all unless the move lands in the instant
 * between the two calls; the proof after undoes the rename then.  What
 * such a simple backup replaced cannot be given back, as with any
 * rename (modify.c).  Return: 0, -EXDEV (nothing moved), or -errno.
 */
static int
backup_beneath(const struct pfx_root *root, int dirfd, const char *dir,
    const char *name, char *bak)
{
	int r;

	r = plat_check_beneath_at(root, dirfd, dir);
	if (r == 0)
		r = move_to_backup(dirfd, name, bak);
	if (r < 0) {
		bak[0] = '\0';
		return plat_confined_error(root, dirfd, r);
	}
	if (bak[0] == '\0')
		return 0;	/* nothing there any more: nothing moved */
	r = plat_check_beneath_at(root, dirfd, dir);
	if (r < 0) {
		(void)plat_os_rename_noreplace(dirfd, bak, dirfd, name);
		bak[0] = '\0';
	}
	return r;
}

/* see pfx_root.h */
int
pfx_pending_backup_name(const struct pfx_pending *pend, int how,
    const char *suffix, char *bak, size_t cap)
{
	bak[0] = '\0';
	if (pend->dirfd < 0)
		return -EBADF;
	return backup_name_at(pend->dirfd, pend->name, how, suffix, bak, cap);
}

/* see pfx_root.h */
int
pfx_pending_backup_as(const struct pfx_pending *pend, char *bak)
{
	if (pend->dirfd < 0)
		return -EBADF;
	return move_to_backup(pend->dirfd, pend->name, bak);
}

/* see pfx_root.h */
int
pfx_pending_backup_as_beneath(const struct pfx_root *root,
    const struct pfx_pending *pend, char *bak)
{
	if (pend->dirfd < 0)
		return -EBADF;
	return backup_beneath(root, pend->dirfd, pend->dir, pend->name, bak);
}

/* see pfx_root.h */
int
pfx_pending_backup(const struct pfx_pending *pend, int how,
    const char *suffix, char *bak, size_t cap)
{
	int r;

	r = pfx_pending_backup_name(pend, how, suffix, bak, cap);
	if (r < 0 || bak[0] == '\0')
		return r;
	return pfx_pending_backup_as(pend, bak);
}

/*
 * Open the parent of REL beneath ROOT, its last component in *P.
 * Return: the parent's descriptor (search only), or -errno (-EISDIR: REL
 * is the root).
 */
static int
open_parent(const struct pfx_root *root, const char *rel, struct plat_path *p)
{
	int r;

	r = plat_path_parse(rel, p);
	if (r < 0)
		return r;
	if (p->leaf[0] == '\0')
		return -EISDIR;
	return plat_resolve_dir(root, p->parent, PLAT_DIR_SEARCH);
}

/* see pfx_root.h */
int
pfx_root_existing(const struct pfx_root *root, const char *rel,
    struct stat *st)
{
	struct plat_path p;
	int pfd, r;

	pfd = open_parent(root, rel, &p);
	if (pfd < 0)
		return pfd;
	r = fstatat(pfd, p.leaf, st, AT_SYMLINK_NOFOLLOW) == -1 ? -errno : 0;
	plat_close(pfd);
	return r;
}

/* see pfx_root.h */
int
pfx_root_backup_name(const struct pfx_root *root, const char *rel, int how,
    const char *suffix, char *bak, size_t cap)
{
	struct plat_path p;
	int pfd, r;

	bak[0] = '\0';
	pfd = open_parent(root, rel, &p);
	if (pfd == -EISDIR)
		return 0;	/* the root, a directory: never backed up */
	if (pfd < 0)
		return pfd;
	r = backup_name_at(pfd, p.leaf, how, suffix, bak, cap);
	plat_close(pfd);
	return r;
}

/* see pfx_root.h */
int
pfx_root_backup_as(const struct pfx_root *root, const char *rel, char *bak)
{
	struct plat_path p;
	int pfd, r;

	pfd = open_parent(root, rel, &p);
	if (pfd < 0)
		return pfd;
	r = backup_beneath(root, pfd, p.parent, p.leaf, bak);
	plat_close(pfd);
	return r;
}

/*
 * Is there a directory at PEND's name?  Return: 0, -ENOTDIR, or -errno.
 */
static int
pending_dir(const struct pfx_pending *pend)
{
	struct stat st;

	if (pend->dirfd < 0)
		return -EBADF;
	if (fstatat(pend->dirfd, pend->name, &st, AT_SYMLINK_NOFOLLOW) == -1)
		return -errno;
	return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
}

/*
 * see pfx_root.h.  SECURITY: without a root, the walk proves only that it
 * stays beneath PEND's parent; a parent moved out of the root since PEND
 * was begun is not seen: pfx_pending_remove_dir_beneath() sees it.
 */
int
pfx_pending_remove_dir(const struct pfx_pending *pend)
{
	int r;

	r = pending_dir(pend);
	if (r < 0)
		return r;
	return pfx_remove_tree(pend->dirfd, pend->name);
}

/*
 * see pfx_root.h.  SECURITY: remove.c proves each directory it removes
 * in beneath ROOT right before each call; the one call a move can still
 * beat, and why, are said there.
 */
int
pfx_pending_remove_dir_beneath(const struct pfx_root *root,
    const struct pfx_pending *pend)
{
	int r;

	r = pending_dir(pend);
	if (r < 0)
		return r;
	return pfx_remove_tree_beneath(root, pend->dirfd, pend->dir,
	    pend->name);
}
