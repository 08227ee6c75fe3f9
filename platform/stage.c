/*
 * stage.c -- a staging directory beside a destination, published at the
 * destination's name in one rename, or removed whole: what makes an
 * extraction all-or-nothing.
 *
 * DEST's parent is opened once; every later step is relative to that
 * descriptor, so the staging directory, the check of DEST and the rename
 * all act in the same directory even if the path that named it changes
 * meanwhile.  The staging directory is on DEST's filesystem by
 * construction, so the final rename cannot turn into a copy.
 *
 * SECURITY: DEST's last component is never followed.  What stands at
 * DEST is looked at before anything is made, and again, by identity, at
 * publishing: a DEST that appeared, or an empty one that was swapped or
 * filled meanwhile, is never replaced.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "platform.h"

/* Fresh staging names to try before giving up with EEXIST. */
#define STAGE_TRIES 16

/* ".pfx-" and eight hex digits, after ".DEST". */
#define STAGE_SUFFIX_LEN 13

/*
 * Is the directory open as FD empty?  Return: 1 yes, 0 no, or -errno.
 */
static int
is_empty(int fd)
{
	struct dirent *de;
	DIR *d;
	int dfd, r = 1;

	dfd = dup(fd);
	if (dfd == -1)
		return -errno;
	d = fdopendir(dfd);
	if (d == NULL) {
		r = -errno;
		plat_close(dfd);
		return r;
	}
	rewinddir(d);
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

/*
 * Split DEST into the path of its parent (PARENT, PFX_PATH_MAX bytes)
 * and its last component (LEAF, PFX_NAME_MAX + 1 bytes), trailing
 * slashes dropped.  Return: 0, -EINVAL (no last component of its own),
 * or -ENAMETOOLONG.
 */
static int
split_dest(const char *dest, char *parent, char *leaf)
{
	size_t n = strlen(dest), cut, plen;

	while (n > 0 && dest[n - 1] == '/')
		n--;
	cut = n;
	while (cut > 0 && dest[cut - 1] != '/')
		cut--;
	if (n == cut || n - cut > PFX_NAME_MAX)
		return n == cut ? -EINVAL : -ENAMETOOLONG;
	memcpy(leaf, dest + cut, n - cut);
	leaf[n - cut] = '\0';
	if (strcmp(leaf, ".") == 0 || strcmp(leaf, "..") == 0)
		return -EINVAL;
	plen = cut;
	while (plen > 1 && dest[plen - 1] == '/')
		plen--;		/* "a//b": parent "a"; "/b": parent "/" */
	if (plen == 0) {
		memcpy(parent, ".", 2);
		return 0;
	}
	if (plen >= PFX_PATH_MAX)
		return -ENAMETOOLONG;
	memcpy(parent, dest, plen);
	parent[plen] = '\0';
	return 0;
}

/*
 * Look at what stands at DEST in the parent open as PFD (identity
 * PARENT): nothing (ST->replace 0), or an empty directory on the same
 * mount (ST->replace 1, its identity and mode recorded).
 * Return: 0, or -ELOOP, -ENOTDIR, -ENOTEMPTY, -EXDEV, -errno.
 */
static int
check_dest(struct pfx_stage *st, const struct plat_id *parent)
{
	struct plat_id id;
	struct stat sb;
	int fd, r;

	if (fstatat(st->parentfd, st->dest, &sb, AT_SYMLINK_NOFOLLOW) == -1) {
		if (errno != ENOENT)
			return -errno;
		st->replace = 0;
		st->mode = 0777 & ~plat_os_umask();
		return 0;
	}
	if (S_ISLNK(sb.st_mode))
		return -ELOOP;
	if (!S_ISDIR(sb.st_mode))
		return -ENOTDIR;
	fd = openat(st->parentfd, st->dest, O_RDONLY | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC);
	if (fd == -1)
		return errno == ENOTDIR ? -ELOOP : -errno;
	r = plat_os_identify(fd, &id);
	if (r == 0 && (id.dev != parent->dev || (id.mnt != 0 &&
	    parent->mnt != 0 && id.mnt != parent->mnt)))
		r = -EXDEV;	/* a mount point: it cannot be renamed */
	if (r == 0) {
		r = is_empty(fd);
		if (r == 0)
			r = -ENOTEMPTY;
		else if (r == 1)
			r = 0;
	}
	plat_close(fd);
	if (r < 0)
		return r;
	st->replace = 1;
	st->old_dev = id.dev;
	st->old_ino = id.ino;
	st->mode = id.mode & 07777;
	return 0;
}

/*
 * Fill ST->name with ".DEST.pfx-XXXXXXXX", DEST cut to keep the whole
 * within PFX_NAME_MAX bytes.  Return: 0, or -errno.
 */
static int
stage_name(struct pfx_stage *st)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char rnd[4];
	size_t n = strlen(st->dest), i;
	char *p;
	int r;

	if (n > PFX_NAME_MAX - 1 - STAGE_SUFFIX_LEN)
		n = PFX_NAME_MAX - 1 - STAGE_SUFFIX_LEN;
	r = plat_os_random(rnd, sizeof(rnd));
	if (r < 0)
		return r;
	p = st->name;
	*p++ = '.';
	memcpy(p, st->dest, n);
	p += n;
	memcpy(p, ".pfx-", 5);
	p += 5;
	for (i = 0; i < sizeof(rnd); i++) {
		*p++ = hex[rnd[i] >> 4];
		*p++ = hex[rnd[i] & 0xf];
	}
	*p = '\0';
	return 0;
}

/*
 * Make the staging directory in ST->parentfd and open it as ST->fd,
 * checking that what we opened is a new empty directory of ours on the
 * parent's mount.  Return: 0, or -errno.
 */
static int
make_stage(struct pfx_stage *st, const struct plat_id *parent)
{
	struct plat_id id;
	struct stat sb;
	int i, r;

	for (i = 0; i < STAGE_TRIES; i++) {
		r = stage_name(st);
		if (r < 0)
			return r;
		if (mkdirat(st->parentfd, st->name, S_IRWXU) == 0)
			break;
		if (errno != EEXIST)
			return -errno;
	}
	if (i == STAGE_TRIES)
		return -EEXIST;
	st->fd = openat(st->parentfd, st->name, O_RDONLY | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC);
	if (st->fd == -1) {
		r = -errno;
		goto undo;	/* rmdir(2): only an empty directory goes */
	}
	/*
	 * SECURITY: in a parent others may write to, the name could have
	 * been swapped between mkdirat and openat; only a directory that
	 * is ours, empty and on the parent's mount is used.  Anything else
	 * is left alone: it may not be ours to remove.
	 */
	r = plat_os_identify(st->fd, &id);
	if (r == 0 && fstat(st->fd, &sb) == -1)
		r = -errno;
	if (r == 0 && (!S_ISDIR(id.mode) || id.dev != parent->dev ||
	    (id.mnt != 0 && parent->mnt != 0 && id.mnt != parent->mnt) ||
	    sb.st_uid != geteuid()))
		r = -EEXIST;
	if (r == 0) {
		r = is_empty(st->fd);
		r = r == 1 ? 0 : r == 0 ? -EEXIST : r;
	}
	if (r < 0)
		goto gone;
	st->dev = id.dev;
	st->ino = id.ino;
	/* Private while it fills, whatever the umask took away. */
	if (fchmod(st->fd, S_IRWXU) == -1) {
		r = -errno;
		goto undo;
	}
	return 0;
undo:
	(void)unlinkat(st->parentfd, st->name, AT_REMOVEDIR);
gone:
	plat_close(st->fd);
	st->fd = -1;
	return r;
}

/* Release ST's descriptors. */
static void
release(struct pfx_stage *st)
{
	plat_close(st->fd);
	plat_close(st->parentfd);
	st->fd = st->parentfd = -1;
}

/* see pfx_root.h */
int
pfx_stage_open(struct pfx_stage *st, int dirfd, const char *dest)
{
	char parent[PFX_PATH_MAX];
	struct plat_id pid;
	int r;

	memset(st, 0, sizeof(*st));
	st->fd = st->parentfd = -1;
	r = split_dest(dest, parent, st->dest);
	if (r < 0)
		return r;
	/* The caller's choice: followed like any but DEST's last part. */
	st->parentfd = openat(dirfd, parent, O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC);
	if (st->parentfd == -1)
		return -errno;
	r = plat_os_identify(st->parentfd, &pid);
	if (r == 0)
		r = check_dest(st, &pid);
	if (r == 0)
		r = make_stage(st, &pid);
	if (r < 0) {
		release(st);
		st->name[0] = '\0';
	}
	return r;
}

/*
 * Is the entry NAME of the parent the directory DEV/INO?
 * Return: 1 yes, 0 no, or -errno.
 */
static int
is_same(const struct pfx_stage *st, const char *name, dev_t dev, ino_t ino)
{
	struct stat sb;

	if (fstatat(st->parentfd, name, &sb, AT_SYMLINK_NOFOLLOW) == -1)
		return -errno;
	return S_ISDIR(sb.st_mode) && sb.st_dev == dev && sb.st_ino == ino;
}

/*
 * Replace the empty directory DEST by the staging directory, where the
 * system cannot exchange: remove DEST (still the same one, still empty:
 * rmdir(2) removes only an empty directory), rename, and make DEST again
 * if the rename fails.  Return: 0, or -errno.
 */
static int
replace_by_steps(struct pfx_stage *st)
{
	int r;

	r = is_same(st, st->dest, st->old_dev, st->old_ino);
	if (r <= 0)
		return r == 0 ? -EEXIST : r;
	if (unlinkat(st->parentfd, st->dest, AT_REMOVEDIR) == -1)
		return -errno;
	r = plat_os_rename_dir(st->parentfd, st->name, st->parentfd,
	    st->dest, PLAT_RENAME_NOREPLACE);
	if (r < 0)
		(void)mkdirat(st->parentfd, st->dest, st->mode);
	return r;
}

/*
 * Swap the staging directory with the empty directory DEST, then remove
 * the old one, now at the staging name, if it is still the same and
 * empty; else swap back.  Return: 0, or -errno.
 */
static int
replace_by_exchange(struct pfx_stage *st)
{
	int r;

	r = is_same(st, st->dest, st->old_dev, st->old_ino);
	if (r <= 0)
		return r == 0 ? -EEXIST : r;
	r = plat_os_rename_dir(st->parentfd, st->name, st->parentfd,
	    st->dest, PLAT_RENAME_EXCHANGE);
	if (r == -ENOTSUP)
		return replace_by_steps(st);
	if (r < 0)
		return r;
	r = is_same(st, st->name, st->old_dev, st->old_ino);
	if (r == 0)
		r = -EEXIST;	/* swapped for another since we looked */
	if (r == 1 && unlinkat(st->parentfd, st->name, AT_REMOVEDIR) == 0)
		return 0;
	if (r == 1)
		r = errno == EEXIST ? -ENOTEMPTY : -errno;
	/* Not ours to remove, or filled meanwhile: put DEST back. */
	(void)plat_os_rename_dir(st->parentfd, st->name, st->parentfd,
	    st->dest, PLAT_RENAME_EXCHANGE);
	return r;
}

/* see pfx_root.h */
int
pfx_stage_publish(struct pfx_stage *st, unsigned int flags)
{
	int r;

	if (st->fd < 0)
		return -EBADF;
	/* The staging directory must still be the one we made. */
	r = is_same(st, st->name, st->dev, st->ino);
	if (r <= 0)
		return r == 0 ? -EXDEV : r;
	if (fchmod(st->fd, st->mode) == -1)
		return -errno;
	if (st->replace)
		r = replace_by_exchange(st);
	else
		r = plat_os_rename_dir(st->parentfd, st->name, st->parentfd,
		    st->dest, PLAT_RENAME_NOREPLACE);
	if (r < 0) {
		(void)fchmod(st->fd, S_IRWXU);
		return r;
	}
	if ((flags & PFX_STAGE_SYNC) != 0 && fsync(st->parentfd) == -1)
		r = -errno;
	release(st);
	st->name[0] = '\0';
	return r;
}

/* see pfx_root.h */
int
pfx_stage_discard(struct pfx_stage *st)
{
	int r = 0;

	if (st->fd < 0 || st->name[0] == '\0') {
		release(st);
		return 0;
	}
	/* Only the directory we made, if it is still at its name. */
	r = is_same(st, st->name, st->dev, st->ino);
	if (r == 1)
		r = pfx_remove_tree(st->parentfd, st->name);
	else if (r == 0)
		r = -EXDEV;
	else if (r == -ENOENT)
		r = 0;
	release(st);
	if (r == 0)
		st->name[0] = '\0';
	return r;
}
