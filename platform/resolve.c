/*
 * resolve.c -- turn a directory name into a descriptor beneath the root.
 *
 * Two resolvers stand behind one interface.
 *
 * openat2: the kernel resolves the whole name from the root fd with
 * RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS|RESOLVE_NO_MAGICLINKS|RESOLVE_NO_XDEV;
 * it refuses any symlink, any mount crossing and any step above the root,
 * and detects concurrent renames itself (EAGAIN, retried in os_linux.c,
 * then left to the walk).
 *
 * Both resolve from the root fd in one go when the name exists.  The walk
 * below is also how pfx_root_mkdirs() makes what is missing, one
 * component at a time, whichever resolver the root uses.
 *
 * walk: for kernels without openat2, or when forced.  Threat model: anyone
 * may rename, replace or symlink anything beneath the root while we walk.
 * So every component is opened alone, from the descriptor of the one
 * before, with O_NOFOLLOW|O_DIRECTORY: a symlink is never followed because
 * it is always the last component of the call that meets it.  Each step's
 * result must be on the root's mount (st_dev, and the mount ID where the
 * kernel gives one, so a bind mount is refused too), and since a directory
 * we hold may be moved out of the root mid-walk, the final descriptor is
 * checked to still lie beneath the root (beneath.c) before it is returned.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "platform.h"

/* As make_new_dir(), for a NAME that may exist: then it is opened. */
static int
make_one_dir(const struct pfx_root *root, int dirfd, const char *dirrel,
    const char *name, mode_t mode, int how, unsigned int *created)
{
	int fd;

	fd = plat_step(root, dirfd, name, how);
	if (fd != -ENOENT)
		return fd;
	return plat_make_new_dir(root, dirfd, dirrel, name, mode, how, created);
}

/* see platform.h */
int
plat_walk(const struct pfx_root *root, const char *dir, int how,
    const struct plat_mkmode *mk, unsigned int *created)
{
	char comp[PFX_NAME_MAX + 1], done[PFX_PATH_MAX];
	const char *p = dir, *slash;
	size_t len;
	int cur = -1, next, r, step_how;

	if (root->in_root)
		return plat_walk_in_root(root, dir, how, mk, created);
	cur = openat(root->fd, ".", plat_dir_open_flags(root, *p == '\0' ? how :
	    PLAT_DIR_SEARCH));
	if (cur == -1)
		return -errno;
	while (*p != '\0') {
		slash = strchr(p, '/');
		len = slash != NULL ? (size_t)(slash - p) : strlen(p);
		if (len == 0 || len > PFX_NAME_MAX) {
			plat_close(cur);
			return -EINVAL;
		}
		memcpy(comp, p, len);
		comp[len] = '\0';
		/* DONE: the part of DIR that CUR stands for. */
		memcpy(done, dir, (size_t)(p - dir));
		done[p - dir > 0 ? p - dir - 1 : 0] = '\0';
		p += len;
		if (*p == '/')
			p++;
		step_how = *p == '\0' ? how : PLAT_DIR_SEARCH;
		if (mk != NULL)
			next = make_one_dir(root, cur, done, comp, *p == '\0' ?
			    mk->leaf : mk->parents, step_how, created);
		else
			next = plat_step(root, cur, comp, step_how);
		plat_close(cur);
		if (next < 0)
			return next;
		cur = next;
	}
	/* SECURITY: a directory on the way may have been moved out. */
	r = plat_check_beneath(root, cur);
	if (r < 0) {
		plat_close(cur);
		return r;
	}
	return cur;
}

/* see platform.h */
int
plat_resolve_dir(const struct pfx_root *root, const char *dir, int how)
{
	const char *d = dir[0] != '\0' ? dir : ".";
	int fd;

	if (root->resolver == PFX_RESOLVER_WALK)
		return plat_walk(root, dir, how, NULL, NULL);
	fd = root->in_root ?
	    plat_os_openat2_in_root(root->fd, d, plat_dir_open_flags(root, how)) :
	    plat_os_openat2(root->fd, d, plat_dir_open_flags(root, how));
	/*
	 * openat2 gave up: every try of a lookup through ".." was cut short
	 * by a rename or a mount somewhere on the system (each run as root
	 * makes a few, read-only mounts: view_linux.c).  The walk proves
	 * each step itself and does not depend on either: it answers.
	 */
	if (fd == -EAGAIN)
		return plat_walk(root, dir, how, NULL, NULL);
	return fd;
}

/* see platform.h */
int
plat_make_leaf_dir(const struct pfx_root *root, const char *parent,
    const char *leaf, mode_t mode, int how, unsigned int *created)
{
	int pfd, fd;

	pfd = plat_resolve_dir(root, parent, PLAT_DIR_SEARCH);
	if (pfd < 0)
		return pfd;
	/* The caller just found LEAF missing: make it without a look. */
	fd = plat_make_new_dir(root, pfd, parent, leaf, mode, how, created);
	plat_close(pfd);
	return fd;
}
