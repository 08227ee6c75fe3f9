/*
 * step.c -- one directory opened, or made and opened, beneath a
 * directory of the root: the step that both walks take, the plain one
 * (resolve.c) and the one that follows links inside the root (inroot.c),
 * below them both.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
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
 * Take back the directory made at NAME in DIRFD, MADE (looked at right
 * after the mkdirat): when its parent turned out to be outside the root,
 * or no descriptor is left to open it with (EMFILE, ENFILE: another
 * thread of the process holds them for a moment), so that the caller's
 * retry makes it again as this run's, where it would find it there and
 * leave it as it found it (private, 0700, for a directory entry whose
 * mode is set at the end).  rmdir(2) takes only an empty directory, and
 * only the one made is taken.
 */
static void
take_back(int dirfd, const char *name, const struct stat *made)
{
	struct stat now;

	if (made->st_ino != 0 && fstatat(dirfd, name, &now,
	    AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(now.st_mode) &&
	    now.st_ino == made->st_ino && now.st_dev == made->st_dev)
		(void)unlinkat(dirfd, name, AT_REMOVEDIR);
}

/*
 * Is FD, opened at the name where we made a directory, the directory we
 * made: MADE, looked at right after the mkdirat, and born at BEFORE or
 * later, the change time of its parent before the mkdirat?
 * SECURITY: mkdirat(2) gives no descriptor; the name is opened again,
 * and by then someone may have moved another directory to it, one that
 * was there before the run.  Whoever uses FD as new gives it the
 * archive's owner, mode and times (extract/dirs.c).  The identity alone
 * leaves the instant between the mkdirat and the look, and someone who
 * watches the parent (inotify) is woken inside the mkdirat: the tests'
 * attacker won that instant 99 times in 100.  A birth time, which no one
 * can set, no older than the parent's last change -- a time by the
 * filesystem's own clock, which may be a server's, not ours -- closes it
 * where the filesystem keeps one: an old directory moved in was made
 * before that change, unless it was made elsewhere since the parent last
 * changed (extract/parents.c xtr_born_in_run() bounds that by the run).
 */
static bool
is_made(int fd, const struct stat *made, const struct timespec *before)
{
	struct plat_id id;
	int r;

	if (made->st_ino == 0 || plat_os_identify(fd, &id) < 0 ||
	    id.dev != made->st_dev || id.ino != made->st_ino)
		return false;
	r = plat_born_since(&id, before);
	return r == 1 || r == -ENOTSUP;
}

/* see platform.h; a new directory is removed again if DIRFD turns out
 * to be outside the root. */
int
plat_make_new_dir(const struct pfx_root *root, int dirfd, const char *dirrel,
    const char *name, mode_t mode, int how, unsigned int *created)
{
	struct stat made, parent;
	int fd, r;

	if (fstat(dirfd, &parent) == -1)
		return -errno;
	if (mkdirat(dirfd, name, mode) == -1) {
		if (errno != EEXIST)
			return plat_confined_error(root, dirfd, -errno);
		return plat_step(root, dirfd, name, how);
	}
	/* Note what we made: to know it again, and so that an undo
	 * removes only that. */
	if (fstatat(dirfd, name, &made, AT_SYMLINK_NOFOLLOW) == -1)
		made.st_ino = 0;
	/*
	 * SECURITY: under the kernel's confinement a directory moved out has
	 * refused the mkdirat itself (plat_check_beneath_at): nothing to
	 * check, nor to undo.
	 */
	r = root->kernel_confined ? 0 :
	    plat_check_beneath_at(root, dirfd, dirrel);
	if (r < 0) {
		take_back(dirfd, name, &made);
		return r;
	}
	fd = plat_step(root, dirfd, name, how);
	if (fd == -EMFILE || fd == -ENFILE)
		take_back(dirfd, name, &made);
	if (fd < 0)
		return fd;
	/*
	 * Counted only now: *CREATED says which directories the caller may
	 * give the archive's mode, and a caller that tries again after a
	 * failure (create.c, mkdir_in_kept()) must not count one twice.
	 */
	if (is_made(fd, &made, &parent.st_ctim)) {
		(*created)++;
		return fd;
	}
	/*
	 * Ours was moved away, as if removed (-ENOENT: only a concurrent
	 * writer does that), and what stands at its name now is not ours
	 * to change: a caller that looks again finds it there, and uses
	 * it as a directory that was there, uncounted.
	 */
	plat_close(fd);
	return -ENOENT;
}
