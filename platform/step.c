/*
 * step.c -- one directory opened, or made and opened, beneath a
 * directory of the root: the step that both walks take, the plain one
 * (resolve.c) and the one that follows links inside the root (inroot.c),
 * below them both.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "platform.h"

/*
 * The open flags for a directory.  The walk relies on O_NOFOLLOW; openat2
 * must not get it, or a trailing symlink is reported as ENOTDIR instead of
 * RESOLVE_NO_SYMLINKS's ELOOP.
 */
int
plat_dir_open_flags(const struct pfx_root *root, int how)
{
	int acc = how == PLAT_DIR_READ ? O_RDONLY : plat_os_search_flag();

	if (root->resolver == PFX_RESOLVER_OPENAT2)
		return acc | O_DIRECTORY | O_CLOEXEC;
	return acc | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
}

/*
 * One meaning per condition: whatever the kernel says about a symlink met
 * with O_NOFOLLOW|O_DIRECTORY (ENOTDIR on Linux, ELOOP or EMLINK
 * elsewhere), the caller sees ELOOP.
 */
static int
normalise_open_error(int dirfd, const char *name, int err)
{
	struct stat st;

	if (err == ENOTDIR || err == EMLINK || err == ELOOP) {
		if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISLNK(st.st_mode))
			return -ELOOP;
	}
	return -err;
}

/* Is FD on the root's mount?  0, -EXDEV or -errno. */
static int
check_same_mount(const struct pfx_root *root, int fd)
{
	struct plat_id id;
	int r;

	r = plat_os_identify(fd, &id);
	if (r < 0)
		return r;
	if (!plat_same_mount(&id, root))
		return -EXDEV;
	return 0;
}

/* see platform.h */
int
plat_step(const struct pfx_root *root, int dirfd, const char *name, int how)
{
	int fd, r;

	if (root->resolver == PFX_RESOLVER_OPENAT2) {
		fd = plat_os_openat2(dirfd, name,
		    plat_dir_open_flags(root, how));
		if (fd < 0)
			return normalise_open_error(dirfd, name, -fd);
		return fd;
	}
	fd = openat(dirfd, name, plat_dir_open_flags(root, how));
	if (fd == -1)
		return normalise_open_error(dirfd, name, errno);
	r = check_same_mount(root, fd);
	if (r < 0) {
		plat_close(fd);
		return r;
	}
	return fd;
}

/*
 * Open NAME in DIRFD, the directory just made (*CREATED counted it), as
 * plat_step().  When no descriptor is left for it (EMFILE, ENFILE:
 * another thread of the process holds them for a moment), it is taken
 * back, uncounted: the caller's retry then makes it again as this run's,
 * where it would find it there and leave it as it found it (private,
 * 0700, for a directory entry whose mode is set at the end).  rmdir(2)
 * takes only an empty directory; and only the one made, MADE, unless
 * MADE is NULL: under the kernel's confinement to the root, where
 * nothing outside it can be removed.
 */
static int
open_made(const struct pfx_root *root, int dirfd, const char *name,
    int how, const struct stat *made, unsigned int *created)
{
	struct stat now;
	int fd;

	fd = plat_step(root, dirfd, name, how);
	if (fd != -EMFILE && fd != -ENFILE)
		return fd;
	if (made != NULL && (made->st_ino == 0 || fstatat(dirfd, name, &now,
	    AT_SYMLINK_NOFOLLOW) == -1 || !S_ISDIR(now.st_mode) ||
	    now.st_ino != made->st_ino || now.st_dev != made->st_dev))
		return fd;
	if (unlinkat(dirfd, name, AT_REMOVEDIR) == 0)
		(*created)--;
	return fd;
}

/* see platform.h; a new directory is removed again if DIRFD turns out
 * to be outside the root. */
int
plat_make_new_dir(const struct pfx_root *root, int dirfd, const char *dirrel,
    const char *name, mode_t mode, int how, unsigned int *created)
{
	struct stat made, now;
	int r;

	if (mkdirat(dirfd, name, mode) == -1) {
		if (errno != EEXIST)
			return plat_confined_error(root, dirfd, -errno);
		return plat_step(root, dirfd, name, how);
	}
	(*created)++;
	/*
	 * SECURITY: under the kernel's confinement a directory moved out has
	 * refused the mkdirat itself (plat_check_beneath_at): nothing to
	 * check, nor to undo.
	 */
	if (root->kernel_confined)
		return open_made(root, dirfd, name, how, NULL, created);
	/* Note what we made, so that an undo removes only that. */
	if (fstatat(dirfd, name, &made, AT_SYMLINK_NOFOLLOW) == -1)
		made.st_ino = 0;
	r = plat_check_beneath_at(root, dirfd, dirrel);
	if (r < 0) {
		if (made.st_ino != 0 &&
		    fstatat(dirfd, name, &now, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISDIR(now.st_mode) && now.st_ino == made.st_ino &&
		    now.st_dev == made.st_dev)
			(void)unlinkat(dirfd, name, AT_REMOVEDIR);
		return r;
	}
	return open_made(root, dirfd, name, how, &made, created);
}
