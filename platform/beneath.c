/*
 * beneath.c -- is a directory we hold still beneath the root?
 *
 * A descriptor pins an inode, not a place: a directory opened beneath the
 * root can be renamed out of it a moment later, and whatever we create in
 * it then appears outside.  No resolver can prevent that, so every effect
 * is followed by this check and undone when it fails.  The check climbs
 * ".." from the descriptor, comparing each directory's identity with the
 * root's, until it meets the root (beneath) or the top of the filesystem or
 * another filesystem (not beneath).  A concurrent rename can only make the
 * answer describe a moment during the climb, never a state that did not
 * exist.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "platform.h"

/* see platform.h */
int
plat_check_beneath(const struct pfx_root *root, int dirfd)
{
	struct stat st, up_st;
	int fd = dirfd, up, r = -EXDEV;
	size_t depth;

	if (fstat(fd, &st) == -1)
		return -errno;
	for (depth = 0; depth < PLAT_MAX_DEPTH; depth++) {
		if (st.st_dev == root->dev && st.st_ino == root->ino) {
			r = 0;
			break;
		}
		if (st.st_dev != root->dev)
			break;	/* left the root's filesystem: outside */
		up = openat(fd, "..", plat_os_search_flag() | O_DIRECTORY |
		    O_CLOEXEC);
		if (up == -1) {
			r = -errno;
			break;
		}
		if (fd != dirfd)
			plat_close(fd);
		fd = up;
		if (fstat(fd, &up_st) == -1) {
			r = -errno;
			break;
		}
		if (up_st.st_dev == st.st_dev && up_st.st_ino == st.st_ino)
			break;	/* ".." of the top is itself: outside */
		st = up_st;
	}
	if (fd != dirfd)
		plat_close(fd);
	return r;
}

/* see platform.h */
void
plat_close(int fd)
{
	int saved = errno;

	if (fd >= 0)
		(void)close(fd);
	errno = saved;
}
