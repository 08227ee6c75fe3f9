/*
 * root.c -- pin a root, and open what already exists beneath it.
 *
 * The root is one directory descriptor, opened once; every later name is
 * resolved from it by resolve.c and never from a path string again.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "platform.h"

/* Choose the resolver for a root open as FD.  0 or -errno. */
static int
pick_resolver(struct pfx_root *root, enum pfx_resolver how)
{
	int r;

	switch (how) {
	case PFX_RESOLVER_WALK:
		root->resolver = PFX_RESOLVER_WALK;
		return 0;
	case PFX_RESOLVER_OPENAT2:
	case PFX_RESOLVER_AUTO:
		r = plat_os_openat2_probe(root->fd);
		if (r == 0) {
			root->resolver = PFX_RESOLVER_OPENAT2;
			return 0;
		}
		if (how == PFX_RESOLVER_OPENAT2 || r != -ENOSYS)
			return r;
		root->resolver = PFX_RESOLVER_WALK;
		return 0;
	}
	return -EINVAL;
}

/* Record the identity of the directory ROOT->fd.  0 or -errno. */
static int
record_identity(struct pfx_root *root)
{
	struct plat_id id;
	int r;

	r = plat_os_identify(root->fd, &id);
	if (r < 0)
		return r;
	if (!S_ISDIR(id.mode))
		return -ENOTDIR;
	root->dev = id.dev;
	root->ino = id.ino;
	root->mnt = id.mnt;
	return 0;
}

/*
 * Copy PATH into BUF without trailing slashes: "dest/" would make the
 * kernel follow a symlink at "dest" despite O_NOFOLLOW.  "/" stays "/".
 */
static int
strip_trailing_slashes(const char *path, char *buf, size_t cap)
{
	size_t n = strlen(path);

	while (n > 1 && path[n - 1] == '/')
		n--;
	if (n >= cap)
		return -ENAMETOOLONG;
	memcpy(buf, path, n);
	buf[n] = '\0';
	return 0;
}

/* see pfx_root.h */
int
pfx_root_open(struct pfx_root *root, int dirfd, const char *unsafe_path,
    enum pfx_resolver how)
{
	char path[PFX_PATH_MAX];
	struct stat st;
	int r;

	root->fd = -1;
	root->resolver = PFX_RESOLVER_WALK;
	root->kernel_confined = 0;
	root->unnamed = 0;
	root->in_root = 0;
	r = strip_trailing_slashes(unsafe_path, path, sizeof(path));
	if (r < 0)
		return r;
	root->fd = openat(dirfd, path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (root->fd == -1) {
		r = -errno;
		if (r == -ENOTDIR && fstatat(dirfd, path, &st,
		    AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
			r = -ELOOP;
		return r;
	}
	r = record_identity(root);
	if (r == 0)
		r = pick_resolver(root, how);
	if (r < 0) {
		pfx_root_close(root);
		return r;
	}
	root->unnamed = plat_os_unnamed_probe(root->fd);
	return 0;
}

/* see pfx_root.h */
void
pfx_root_confined(struct pfx_root *root)
{
	/* The confinement may have put ROOT's directory on a mount of its
	 * own, under the same number (plat_view_readonly()): the mount ID
	 * later identities are compared with is that one's.  Its fd is
	 * a directory still; on the rare failure the old ID stays. */
	(void)record_identity(root);
	/* ...and may have taken /proc away, one of the two ways to give a
	 * file made with no name its name: ask again. */
	root->unnamed = plat_os_unnamed_probe(root->fd);
	root->kernel_confined = 1;
}

/* see pfx_root.h */
void
pfx_root_close(struct pfx_root *root)
{
	plat_close(root->fd);
	root->fd = -1;
}

/* see pfx_root.h */
void
pfx_root_in_root(struct pfx_root *root)
{
	root->in_root = 1;
}

/* see pfx_root.h */
const char *
pfx_root_resolver_name(const struct pfx_root *root)
{
	return root->resolver == PFX_RESOLVER_OPENAT2 ? "openat2" : "walk";
}

/* see pfx_root.h */
int
pfx_root_sub(const struct pfx_root *parent, const char *rel,
    struct pfx_root *sub)
{
	int r;

	sub->kernel_confined = 0;
	sub->unnamed = 0;
	sub->in_root = 0;
	sub->fd = pfx_root_open_dir(parent, rel);
	if (sub->fd < 0) {
		r = sub->fd;
		sub->fd = -1;
		return r;
	}
	/* The kernel confines to PARENT, not to SUB: keep every check. */
	sub->resolver = parent->resolver;
	r = record_identity(sub);
	if (r < 0) {
		pfx_root_close(sub);
		return r;
	}
	sub->unnamed = plat_os_unnamed_probe(sub->fd);
	return 0;
}

/* see pfx_root.h */
int
pfx_root_open_dir(const struct pfx_root *root, const char *rel)
{
	struct plat_path p;
	int r;

	r = plat_path_parse(rel, &p);
	if (r < 0)
		return r;
	return plat_resolve_dir(root, p.full, PLAT_DIR_READ);
}

/* Is the file open as FD of a kind that may be opened for reading? */
static int
check_regular(mode_t mode)
{
	if (S_ISREG(mode))
		return 0;
	if (S_ISDIR(mode))
		return -EISDIR;
	if (S_ISLNK(mode))
		return -ELOOP;
	return -EINVAL;
}

/*
 * Open the existing regular file REL beneath ROOT with FLAGS (and
 * O_NOFOLLOW|O_NOCTTY|O_CLOEXEC).  Return: a descriptor, or -errno.
 */
static int
open_regular(const struct pfx_root *root, const char *rel, int flags)
{
	struct plat_path p;
	struct stat st;
	int pfd = -1, fd = -1, r;

	r = plat_path_parse(rel, &p);
	if (r < 0)
		return r;
	if (p.leaf[0] == '\0')
		return -EISDIR;
	pfd = plat_resolve_dir(root, p.parent, PLAT_DIR_SEARCH);
	if (pfd < 0)
		return pfd;
	/* Look before opening: a FIFO or device is never opened at all. */
	if (fstatat(pfd, p.leaf, &st, AT_SYMLINK_NOFOLLOW) == -1) {
		r = -errno;
		goto out;
	}
	r = check_regular(st.st_mode);
	if (r < 0)
		goto out;
	fd = openat(pfd, p.leaf, flags | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
	if (fd == -1) {
		r = errno == ELOOP || errno == EMLINK ? -ELOOP : -errno;
		goto out;
	}
	/* O_PATH opens a symlink itself: this look refuses it too. */
	if (fstat(fd, &st) == -1) {
		r = -errno;
		goto out;
	}
	r = check_regular(st.st_mode);
	if (r < 0)
		goto out;
	r = fd;
	fd = -1;
out:
	plat_close(fd);
	plat_close(pfd);
	return r;
}

/* see pfx_root.h */
int
pfx_root_open_read(const struct pfx_root *root, const char *rel)
{
	int fd, r;

	/* O_NONBLOCK in case it was swapped for a FIFO since the look. */
	fd = open_regular(root, rel, O_RDONLY | O_NONBLOCK);
	if (fd >= 0 && fcntl(fd, F_SETFL, 0) == -1) {
		r = -errno;
		plat_close(fd);
		return r;
	}
	return fd;
}

/* see pfx_root.h */
int
pfx_root_open_file(const struct pfx_root *root, const char *rel)
{
	return open_regular(root, rel, plat_os_pin_flags());
}

/* see pfx_root.h */
int
pfx_root_readlink(const struct pfx_root *root, const char *rel, char *buf,
    size_t cap)
{
	struct plat_path p;
	ssize_t n;
	int pfd, r;

	if (cap == 0)
		return -ENAMETOOLONG;
	r = plat_path_parse(rel, &p);
	if (r < 0)
		return r;
	if (p.leaf[0] == '\0')
		return -EINVAL;	/* the root is a directory */
	pfd = plat_resolve_dir(root, p.parent, PLAT_DIR_SEARCH);
	if (pfd < 0)
		return pfd;
	n = readlinkat(pfd, p.leaf, buf, cap);
	r = n == -1 ? -errno : 0;
	plat_close(pfd);
	if (r < 0)
		return r;
	if ((size_t)n >= cap)
		return -ENAMETOOLONG;
	buf[n] = '\0';
	return (int)n;
}
