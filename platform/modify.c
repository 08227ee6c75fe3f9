/*
 * modify.c -- change what exists beneath the root: remove, rename, and set
 * metadata.  Names are resolved to their parent directory beneath the root
 * and acted on with *at(2) calls from it; metadata is set through a
 * descriptor, never by path.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "platform.h"

/*
 * Resolve REL's parent; *P receives the split name.  The root itself has
 * no parent: -EBUSY, as rmdir(2) says of a mount point.
 * Return: the parent's descriptor, or -errno.
 */
static int
open_parent(const struct pfx_root *root, const char *rel,
    struct plat_path *p)
{
	int r;

	r = plat_path_parse(rel, p);
	if (r < 0)
		return r;
	if (p->leaf[0] == '\0')
		return -EBUSY;
	return plat_resolve_dir(root, p->parent, PLAT_DIR_SEARCH);
}

/*
 * Remove REL with unlinkat FLAGS.  0 or -errno.
 * SECURITY: a removal cannot be undone, so unlike a rename (below) it is
 * not checked after, but made right after its parent was resolved
 * beneath the root, which proves the parent there at that moment: a
 * parent moved out in between costs this one call, as remove.c explains.
 * Under pfx_root_confined() the kernel refuses that call: -EXDEV.
 */
static int
remove_at(const struct pfx_root *root, const char *rel, int flags)
{
	struct plat_path p;
	int pfd, r = 0;

	pfd = open_parent(root, rel, &p);
	if (pfd < 0)
		return pfd;
	if (unlinkat(pfd, p.leaf, flags) == -1)
		r = plat_confined_error(root, pfd, -errno);
	plat_close(pfd);
	return r;
}

/* see pfx_root.h */
int
pfx_root_unlink(const struct pfx_root *root, const char *rel)
{
	return remove_at(root, rel, 0);
}

/* see pfx_root.h */
int
pfx_root_rmdir(const struct pfx_root *root, const char *rel)
{
	return remove_at(root, rel, AT_REMOVEDIR);
}

/*
 * Is LEAF of the directory DFD a directory itself, not a symlink?
 * Return: 0, -ENOTDIR, or -errno.
 */
static int
is_real_dir(int dfd, const char *leaf)
{
	struct stat st;

	if (fstatat(dfd, leaf, &st, AT_SYMLINK_NOFOLLOW) == -1)
		return -errno;
	return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
}

/* pfx_root_rename(), and pfx_root_rename_dir() with DIR_ONLY. */
static int
rename_beneath(const struct pfx_root *root, const char *from,
    const char *to, unsigned int flags, bool dir_only)
{
	struct pfx_root strict;
	struct plat_path pf, pt;
	int ffd = -1, tfd = -1, r, replace;

	replace = plat_replace_flags(flags);
	if (replace < 0)
		return replace;
	/* SECURITY: a directory is moved from and to parents reached
	 * without symlinks, in a root used as a root filesystem too
	 * (pfx_root_in_root(), --symlinks=root).  The copy shares the
	 * root's descriptor. */
	if (dir_only) {
		strict = *root;
		strict.in_root = 0;
		root = &strict;
	}
	ffd = open_parent(root, from, &pf);
	if (ffd < 0)
		return ffd;
	tfd = open_parent(root, to, &pt);
	if (tfd < 0) {
		r = tfd;
		goto out;
	}
	/* A symlink moved elsewhere would resolve elsewhere: not that. */
	if (dir_only) {
		r = is_real_dir(ffd, pf.leaf);
		if (r < 0)
			goto out;
	}
	if (replace == 0)
		r = plat_os_rename_noreplace(ffd, pf.leaf, tfd, pt.leaf);
	else
		r = renameat(ffd, pf.leaf, tfd, pt.leaf) == -1 ? -errno : 0;
	if (r < 0) {
		r = plat_confined_error(root, tfd, r);
		if (r == -EACCES)
			r = plat_confined_error(root, ffd, r);
		goto out;
	}
	/*
	 * SECURITY: if either directory left the root meanwhile, the rename
	 * moved something out of the root or into it from outside: undo it.
	 */
	r = plat_check_beneath(root, tfd);
	if (r == 0)
		r = plat_check_beneath(root, ffd);
	if (r < 0)
		(void)plat_os_rename_noreplace(tfd, pt.leaf, ffd, pf.leaf);
out:
	plat_close(tfd);
	plat_close(ffd);
	return r;
}

/* see pfx_root.h */
int
pfx_root_rename(const struct pfx_root *root, const char *from,
    const char *to, unsigned int flags)
{
	return rename_beneath(root, from, to, flags, false);
}

/* see pfx_root.h */
int
pfx_root_rename_dir(const struct pfx_root *root, const char *from,
    const char *to, unsigned int flags)
{
	return rename_beneath(root, from, to, flags, true);
}

/* see pfx_root.h */
int
pfx_fd_chmod(int fd, mode_t mode)
{
	if (fchmod(fd, mode & 07777) == -1)
		return -errno;
	return 0;
}

/* see pfx_root.h */
int
pfx_fd_set_times(int fd, const struct timespec times[2])
{
	if (futimens(fd, times) == -1)
		return -errno;
	return 0;
}

/* see pfx_root.h */
int
pfx_fd_chown(int fd, uid_t uid, gid_t gid)
{
	if (fchown(fd, uid, gid) == -1)
		return -errno;
	return 0;
}

/* see pfx_root.h */
int
pfx_fd_setxattr(int fd, const char *name, const void *value, size_t size)
{
	return plat_os_fsetxattr(fd, name, value, size);
}

/* see pfx_root.h */
int
pfx_root_link_meta(const struct pfx_root *root, const char *rel, uid_t uid,
    gid_t gid, const struct timespec *times)
{
	return plat_root_link_meta_since(root, rel, uid, gid, times, NULL);
}

/* see platform.h */
int
plat_root_link_meta_since(const struct pfx_root *root, const char *rel,
    uid_t uid, gid_t gid, const struct timespec *times,
    const struct timespec *since)
{
	struct plat_path p;
	int pfd, r;

	pfd = open_parent(root, rel, &p);
	if (pfd < 0)
		return pfd;
	r = plat_os_link_meta(pfd, p.leaf, uid, gid, times, since);
	plat_close(pfd);
	return r;
}
