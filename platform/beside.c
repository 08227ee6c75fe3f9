/*
 * beside.c -- put names made beside their final ones in place, or take
 * them away (see pfx_root_commit_beside() in create.c, which makes them,
 * and extract/journal.c, which keeps the list).
 *
 * SECURITY: every call acts on names in one directory, through a
 * descriptor the caller opened beneath the root and checked to be the
 * directory the name was made in; nothing here resolves a path.  A name
 * is removed only while it is the inode we made (pfx_beside_drop), and
 * an existing name is replaced only by exchanging it with ours, so that
 * what stood there stays at our temporary name until the whole run is in
 * place, and can be put back if any step fails.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "platform.h"

/* see pfx_root.h */
int
pfx_beside_put(int dirfd, const char *tmp, const char *name,
    unsigned int flags)
{
	struct stat st;
	int r;

	if ((flags & ~PFX_BESIDE_EXCHANGE) != 0)
		return -EINVAL;
	if ((flags & PFX_BESIDE_EXCHANGE) == 0)
		return plat_os_rename_noreplace(dirfd, tmp, dirfd, name);
	r = plat_os_rename_dir(dirfd, tmp, dirfd, name, PLAT_RENAME_EXCHANGE);
	if (r < 0)
		return r;
	/*
	 * SECURITY: a rename over a directory fails; an exchange does not.
	 * One that someone made at NAME since it was judged goes back.
	 */
	if (fstatat(dirfd, tmp, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISDIR(st.st_mode)) {
		(void)plat_os_rename_dir(dirfd, tmp, dirfd, name,
		    PLAT_RENAME_EXCHANGE);
		return -EISDIR;
	}
	return 0;
}

/* see pfx_root.h */
int
pfx_beside_drop(int dirfd, const char *name, dev_t dev, ino_t ino)
{
	struct stat st;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == -1)
		return -errno;
	if (st.st_dev != dev || st.st_ino != ino || S_ISDIR(st.st_mode))
		return -ESTALE;
	return unlinkat(dirfd, name, 0) == -1 ? -errno : 0;
}

/* see pfx_root.h */
int
pfx_root_still_beneath(const struct pfx_root *root, int dirfd,
    const char *rel)
{
	return plat_check_beneath_at(root, dirfd, rel);
}
