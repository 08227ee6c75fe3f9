/*
 * listing.c -- walking a directory tree by descriptors, for remove.c and
 * walk.c: a listing that starts where it is told, and the climb back up
 * to the very directory that was entered; and whether a directory is
 * empty (stage.c, and the engine for --symlinks=contain).
 *
 * Both walk trees that others may change while we are in them, so a
 * listing never trusts the offset it shares with the descriptor it was
 * made from, and ".." is never taken for the parent until its identity
 * says so.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "platform.h"

/* see platform.h */
int
plat_listing_open(int fd, long pos, DIR **d)
{
	int dfd, r;

	dfd = dup(fd);
	if (dfd == -1)
		return -errno;
	*d = fdopendir(dfd);
	if (*d == NULL) {
		r = -errno;
		plat_close(dfd);
		return r;
	}
	/* The offset is shared with FD: always say where to start. */
	if (pos < 0)
		rewinddir(*d);
	else
		seekdir(*d, pos);
	return 0;
}

/* see platform.h */
int
plat_dir_is_empty(int fd)
{
	struct dirent *de;
	DIR *d;
	int r;

	r = plat_listing_open(fd, -1, &d);
	if (r < 0)
		return r;
	r = 1;
	for (;;) {
		errno = 0;
		de = readdir(d);
		if (de == NULL) {
			if (errno != 0)
				r = -errno;
			break;
		}
		if (strcmp(de->d_name, ".") != 0 &&
		    strcmp(de->d_name, "..") != 0) {
			r = 0;
			break;
		}
	}
	(void)closedir(d);
	return r;
}

/* see platform.h */
int
plat_root_is_empty(const struct pfx_root *root)
{
	int fd, r;

	/* The root may be an O_PATH descriptor, which lists nothing. */
	fd = openat(root->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd == -1)
		return -errno;
	r = plat_dir_is_empty(fd);
	plat_close(fd);
	return r;
}

/* see platform.h */
int
plat_climb(int *fd, const struct plat_id *up)
{
	struct plat_id id;
	int pfd, r;

	pfd = openat(*fd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pfd == -1)
		return -errno;
	r = plat_os_identify(pfd, &id);
	/* SECURITY: moved meanwhile; ".." is not where we came from. */
	if (r == 0 && (id.dev != up->dev || id.ino != up->ino ||
	    (id.mnt != 0 && up->mnt != 0 && id.mnt != up->mnt)))
		r = -EXDEV;
	if (r < 0) {
		plat_close(pfd);
		return r;
	}
	plat_close(*fd);
	*fd = pfd;
	return 0;
}
