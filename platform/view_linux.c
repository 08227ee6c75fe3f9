/*
 * view_linux.c -- plat_view_readonly(): a confined process's own view of
 * the mounts, every one read-only but the destination's.
 *
 * Why: Landlock has no right for a file's mode, owner, times or
 * extended attributes, and the seccomp filter cannot tell a name
 * outside the destination from one beneath it, nor a descriptor of a
 * file the process made from one of /etc/passwd it opened to read.  A
 * process taken over in the writer could, as root, chmod 0666
 * /etc/shadow by name, or through a descriptor of /usr/bin/su opened
 * read-only (or O_PATH, which Landlock does not see) give it a set-id
 * mode.  A read-only mount refuses all of those, however the file was
 * reached: the kernel checks the mount the descriptor was opened
 * through (EROFS).
 *
 * How, all by descriptor but "/" (this process's own root):
 *   1. Each directory descriptor the process holds is cloned as a
 *      detached mount tree (open_tree(OPEN_TREE_CLONE | AT_RECURSIVE),
 *      Linux 5.2), while its mount is still in our namespace (the kernel
 *      requires it).  A detached tree's root has no parent: ".." from it
 *      is itself, so a descriptor cannot climb out of it to a writable
 *      mount.  The destination's tree is rooted at its parent and stays
 *      writable; every other one is rooted at the directory itself and
 *      made read-only (Landlock lets the process write nowhere else).
 *      Why the parent: Landlock judges a directory moved out of a bind
 *      mount's tree by the rules of that tree's root too (its "erratum
 *      3", Linux 6.18): with the destination as the root, a directory
 *      renamed out of it by another process would keep the right to be
 *      written, and the kernel's refusal of that (pfx_root_confined())
 *      would be lost.  Rooted above, a directory moved out meets no
 *      rule.  The price: what lies beside the destination in its parent
 *      (and beneath) keeps a writable mount; its mode, owner, times and
 *      attributes stay changeable as before, and a destination whose
 *      parent is "/" gets no view at all (-EXDEV: that tree would hold
 *      every mount).  The destination is found in the clone by its name
 *      in the parent, then proved by identity: a rename meanwhile makes
 *      the view fail, not act elsewhere.
 *   2. unshare(CLONE_NEWNS): a private copy of the mount table, for
 *      this process only; the cwd and root move to the copy.
 *   3. mount_setattr("/", AT_RECURSIVE) (Linux 5.12): every mount of
 *      the copy read-only and private (nothing mounted later elsewhere
 *      appears in it).  The caller's filter then refuses every mount
 *      call, so it cannot be undone.
 *   4. Each clone, opened as the original was (O_PATH or not, the
 *      close-on-exec flag kept), takes the original's number (dup3):
 *      the same directory, on a mount of its own.
 * Until step 4 nothing the caller sees has changed; a failure before
 * it leaves the process as it was, or in a copy of the mount table
 * that is just as writable.
 *
 * Needs CAP_SYS_ADMIN (root, or root of a container): otherwise
 * unshare says EPERM and the view is not made (a user namespace would
 * do for others, but it hides supplementary groups and cannot be
 * entered by a multithreaded process).  A process with other threads
 * is refused (EBUSY): only the calling thread would get the view.
 * What stays changeable through a descriptor: files (not directories)
 * opened before -- the archive, stdout -- as the filter cannot tell
 * them from the files the process makes.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/mount.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "platform.h"

#ifndef SYS_open_tree
#define SYS_open_tree 428
#endif
#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif
#ifndef OPEN_TREE_CLONE
#define OPEN_TREE_CLONE 1
#endif
#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif

/* The most directory descriptors given a mount of their own. */
#define VIEW_MAX_DIRS 64

struct view_dir {
	int fd;		/* the caller's number */
	int clone;	/* its replacement, on the cloned tree */
	bool cloexec;
};

struct view {
	struct view_dir dirs[VIEW_MAX_DIRS];
	size_t n;
};

static void
close_clones(struct view *v)
{
	size_t i;

	for (i = 0; i < v->n; i++)
		(void)close(v->dirs[i].clone);
	v->n = 0;
}

/* Does this process run one thread?  Return: 1, 0, or -errno. */
static int
one_thread(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	if (d == NULL)
		return -errno;
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.')
			n++;
	(void)closedir(d);
	return n == 1;
}

/*
 * Clone the tree at FD (a directory) as a detached read-only one, and
 * open its root as FD is open (O_PATH or O_RDONLY).  Return: the
 * descriptor, or -errno.
 */
static int
clone_readonly(int fd)
{
	struct mount_attr attr;
	int tree, flags, dir;

	flags = fcntl(fd, F_GETFL);
	if (flags == -1)
		return -errno;
	tree = (int)syscall(SYS_open_tree, fd, "", OPEN_TREE_CLONE |
	    AT_RECURSIVE | AT_EMPTY_PATH | O_CLOEXEC);
	if (tree == -1)
		return -errno;
	memset(&attr, 0, sizeof(attr));
	attr.attr_set = MOUNT_ATTR_RDONLY;
	dir = -1;
	if (syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH |
	    AT_RECURSIVE, &attr, sizeof(attr)) == 0)
		dir = openat(tree, ".", ((flags & O_PATH) != 0 ? O_PATH :
		    O_RDONLY) | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dir == -1)
		dir = -errno;
	/* The tree lives as long as a descriptor of it does. */
	(void)close(tree);
	return dir;
}

/*
 * The destination, directory FD with identity *DST, opened as FD is (O_PATH
 * or O_RDONLY) on a writable clone of its parent's tree (see the head of
 * the file).  Return: the descriptor, or -errno (-ESTALE: not found under
 * its name; -EXDEV: its parent is "/", or it is).
 */
static int
dest_clone(int fd, const struct stat *dst)
{
	char link[32], path[PATH_MAX];
	const char *name;
	struct stat st, top;
	ssize_t n;
	int flags, parent, tree, dir, r;

	flags = fcntl(fd, F_GETFL);
	parent = openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (flags == -1 || parent == -1 || fstat(parent, &st) == -1) {
		r = -errno;
		if (parent != -1)
			(void)close(parent);
		return r;
	}
	/* SECURITY: a tree rooted at "/" would be every mount, all
	 * writable: no view is better than one that claims to be. */
	if ((st.st_dev == dst->st_dev && st.st_ino == dst->st_ino) ||
	    (stat("/", &top) == 0 && st.st_dev == top.st_dev &&
	    st.st_ino == top.st_ino)) {
		(void)close(parent);
		return -EXDEV;
	}
	(void)snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	if (n <= 0 || n == (ssize_t)sizeof(path) - 1) {
		r = n <= 0 ? -errno : -ENAMETOOLONG;
		(void)close(parent);
		return r;
	}
	path[n] = '\0';
	tree = (int)syscall(SYS_open_tree, parent, "", OPEN_TREE_CLONE |
	    AT_RECURSIVE | AT_EMPTY_PATH | O_CLOEXEC);
	r = -errno;
	(void)close(parent);
	if (tree == -1)
		return r;
	name = strrchr(path, '/');
	name = name != NULL ? name + 1 : path;
	dir = openat(tree, name, ((flags & O_PATH) != 0 ? O_PATH : O_RDONLY) |
	    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	r = dir == -1 ? -errno : dir;
	(void)close(tree);
	if (r < 0)
		return r == -ENOENT || r == -ENOTDIR || r == -ELOOP ?
		    -ESTALE : r;
	/* SECURITY: the name was read, then looked up: prove it is ours. */
	if (fstat(dir, &st) == -1 || st.st_dev != dst->st_dev ||
	    st.st_ino != dst->st_ino) {
		(void)close(dir);
		return -ESTALE;
	}
	return dir;
}

/*
 * Step 1: a clone for every directory descriptor in V, writable for
 * those of DESTFD's directory alone.  Return: 0, or -errno (-EMFILE past VIEW_MAX_DIRS) with
 * none left open.
 */
static int
clone_dirs(struct view *v, int destfd)
{
	DIR *d;
	struct dirent *e;
	struct stat st, dst;
	char *end;
	long fd;
	int flags, r = 0;

	if (fstat(destfd, &dst) == -1)
		return -errno;
	d = opendir("/proc/self/fd");
	if (d == NULL)
		return -errno;
	while (r == 0 && (e = readdir(d)) != NULL) {
		fd = strtol(e->d_name, &end, 10);
		if (*end != '\0' || end == e->d_name || fd == dirfd(d) ||
		    fstat((int)fd, &st) == -1 || !S_ISDIR(st.st_mode))
			continue;
		if (v->n == VIEW_MAX_DIRS) {
			r = -EMFILE;
			break;
		}
		flags = fcntl((int)fd, F_GETFD);
		r = flags == -1 ? -errno : st.st_dev == dst.st_dev &&
		    st.st_ino == dst.st_ino ? dest_clone((int)fd, &dst) :
		    clone_readonly((int)fd);
		if (r < 0)
			break;
		v->dirs[v->n].fd = (int)fd;
		v->dirs[v->n].clone = r;
		v->dirs[v->n].cloexec = (flags & FD_CLOEXEC) != 0;
		v->n++;
		r = 0;
	}
	(void)closedir(d);
	if (r < 0)
		close_clones(v);
	return r;
}

/* Steps 2 and 3.  Return: 0, or -errno. */
static int
readonly_mounts(void)
{
	struct mount_attr attr;

	if (unshare(CLONE_NEWNS) == -1)
		return -errno;
	memset(&attr, 0, sizeof(attr));
	attr.attr_set = MOUNT_ATTR_RDONLY;
	attr.propagation = MS_PRIVATE;
	if (syscall(SYS_mount_setattr, AT_FDCWD, "/", AT_RECURSIVE, &attr,
	    sizeof(attr)) == -1)
		return -errno;
	return 0;
}

/* see platform.h */
int
plat_view_readonly(int destfd)
{
	struct view v;
	size_t i;
	int r;

	r = one_thread();
	if (r <= 0)
		return r < 0 ? r : -EBUSY;
	v.n = 0;
	r = clone_dirs(&v, destfd);
	if (r < 0)
		return r;
	r = readonly_mounts();
	if (r < 0) {
		close_clones(&v);
		return r;
	}
	/* Step 4: dup3 onto an open number needs no free slot; it fails
	 * only for a bad descriptor, which none of these is. */
	for (i = 0; i < v.n; i++) {
		if (dup3(v.dirs[i].clone, v.dirs[i].fd,
		    v.dirs[i].cloexec ? O_CLOEXEC : 0) == -1)
			r = -errno;
		(void)close(v.dirs[i].clone);
	}
	return r;
}
