/*
 * beneath.c -- is a directory we hold still beneath the root?
 *
 * A descriptor pins an inode, not a place: a directory opened beneath the
 * root can be renamed out of it a moment later, and whatever we create in
 * it then appears outside.  No resolver can prevent that, so every effect
 * is followed by this check and undone when it fails.  The check climbs
 * ".." from the descriptor, comparing each directory's identity with the
 * root's, until it meets the root (beneath) or the top of the filesystem or
 * another filesystem, or finds no ".." (out of its mount's tree; not
 * beneath).  A concurrent rename can only make the
 * answer describe a moment during the climb, never a state that did not
 * exist.  When no descriptor is left to open the next parent with
 * (another thread of the process holds them all), the climb goes on
 * without opening: each parent is looked at as "..", "../.." ... from the
 * last one held (climb_unopened), so that the worker's commits, which
 * end with this check, never fail for want of a descriptor.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "platform.h"

/* see platform.h */
int
plat_open_parent(int dirfd)
{
	int up = openat(dirfd, "..", plat_os_search_flag() | O_DIRECTORY |
	    O_CLOEXEC);

	return up == -1 ? -errno : up;
}

/*
 * The rest of plat_check_beneath()'s climb from directory FD, identity
 * ID, DEPTH levels up, when opening its parent failed with SHORT
 * (-EMFILE or -ENFILE): each parent is looked at as "..", "../.." ...
 * from FD, opening nothing.  ".." is never a symlink, and each look is a
 * walk up from FD at that moment: as with the open climb, a concurrent
 * rename can only make the answer describe a moment during the climb.
 * O(depth^2) lookups, only while descriptors are short.
 * Return: 0 if beneath, -EXDEV if not, or -errno (SHORT when the parents'
 * path would be too long).
 */
static int
climb_unopened(const struct pfx_root *root, int fd, struct plat_id id,
    size_t depth, int short_r)
{
	char up[PFX_PATH_MAX];
	struct plat_id up_id;
	size_t n = 0;
	int r;

	for (; depth < PLAT_MAX_DEPTH; depth++) {
		if (plat_is_root(&id, root))
			return 0;
		if (!plat_same_mount(&id, root))
			return -EXDEV;	/* left the root's mount: outside */
		if (n + 4 > sizeof(up))
			return short_r;
		memcpy(up + n, n == 0 ? ".." : "/..", n == 0 ? 3 : 4);
		n += n == 0 ? 2 : 3;
		r = plat_os_identify_at(fd, up, &up_id);
		if (r == -ENOENT)
			return -EXDEV;	/* out of its mount's tree: outside */
		if (r < 0)
			return r;
		if (up_id.dev == id.dev && up_id.ino == id.ino)
			return -EXDEV;	/* ".." of the top is itself */
		id = up_id;
	}
	return -EXDEV;
}

/* see platform.h */
int
plat_check_beneath(const struct pfx_root *root, int dirfd)
{
	struct plat_id id, up_id;
	int fd = dirfd, up, r;
	size_t depth;

	r = plat_os_identify(fd, &id);
	if (r < 0)
		return r;
	r = -EXDEV;
	for (depth = 0; depth < PLAT_MAX_DEPTH; depth++) {
		if (plat_is_root(&id, root)) {
			r = 0;
			break;
		}
		if (!plat_same_mount(&id, root))
			break;	/* left the root's mount: outside */
		up = plat_open_parent(fd);
		if (up == -EMFILE || up == -ENFILE) {
			r = climb_unopened(root, fd, id, depth, up);
			break;
		}
		/*
		 * SECURITY: ".." says ENOENT where the directory left the
		 * tree of the mount it is held through (a bind mount, or
		 * the confined writer's tree rooted at the root's parent,
		 * view_linux.c): the root is in that tree, so this is not
		 * beneath it.  Said as the escape it is, not as an error
		 * ("permission denied" once Landlock refused the effect).
		 */
		if (up == -ENOENT) {
			r = -EXDEV;
			break;
		}
		if (up < 0) {
			r = up;
			break;
		}
		if (fd != dirfd)
			plat_close(fd);
		fd = up;
		r = plat_os_identify(fd, &up_id);
		if (r < 0)
			break;
		r = -EXDEV;
		if (up_id.dev == id.dev && up_id.ino == id.ino)
			break;	/* ".." of the top is itself: outside */
		id = up_id;
	}
	if (fd != dirfd)
		plat_close(fd);
	return r;
}

/* see platform.h */
int
plat_check_beneath_at(const struct pfx_root *root, int dirfd,
    const char *rel)
{
	struct plat_id held, found;
	int fd, r;

	/*
	 * SECURITY: under a kernel confinement to the root (Landlock), an
	 * effect in a directory that was moved out has already been refused
	 * by the kernel, at the moment of the call: nothing to undo.
	 */
	if (root->kernel_confined)
		return 0;
	if (root->resolver != PFX_RESOLVER_OPENAT2 || rel[0] == '\0')
		return plat_check_beneath(root, dirfd);
	/*
	 * SECURITY: a directory has one parent, so the inode openat2 finds
	 * at REL -- beneath the root, through no symlink and no mount, now
	 * -- being the one we hold means the one we hold is beneath the root
	 * now.  Any other answer proves nothing either way: climb.
	 */
	fd = plat_os_openat2(root->fd, rel, plat_os_search_flag() |
	    O_DIRECTORY);
	if (fd >= 0) {
		r = plat_os_identify(fd, &found);
		plat_close(fd);
		if (r == 0 && plat_os_identify(dirfd, &held) == 0 &&
		    held.dev == found.dev && held.ino == found.ino &&
		    held.mnt == found.mnt)
			return 0;
	}
	return plat_check_beneath(root, dirfd);
}

/* see platform.h */
int
plat_confined_error(const struct pfx_root *root, int dirfd, int r)
{
	/*
	 * SECURITY: Landlock refuses an effect in a directory moved out of
	 * the root with EACCES, the errno of a read-only directory too.
	 * The two must not share a report: one is an entry whose directory
	 * left the destination (refused, the run goes on, as without
	 * confinement, where the effect is made and undone: -EXDEV), the
	 * other a destination we cannot write to (fatal).  The climb is
	 * O_PATH opens and fstat, which Landlock leaves alone, and is paid
	 * only on this failure path.
	 */
	if (r != -EACCES || !root->kernel_confined)
		return r;
	if (plat_check_beneath(root, dirfd) == -EXDEV)
		return -EXDEV;
	return r;
}

/* see platform.h */
int
plat_same_mount(const struct plat_id *a, const struct pfx_root *root)
{
	if (a->dev != root->dev)
		return 0;
	return a->mnt == 0 || root->mnt == 0 || a->mnt == root->mnt;
}

/* see platform.h */
int
plat_is_root(const struct plat_id *a, const struct pfx_root *root)
{
	return a->dev == root->dev && a->ino == root->ino &&
	    plat_same_mount(a, root);
}
