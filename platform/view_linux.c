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
 * With CAP_SYS_ADMIN (root, or root of a container) that is all.
 * Without it (an ordinary user: no capability at all, not uid 0) the
 * same view is made in a user namespace of its own (userns_view()):
 *   0. The whole of what follows is first done in a forked child
 *      (probe_userns()): where the kernel, a sysctl
 *      (user.max_user_namespaces=0) or an LSM refuses any of it, this
 *      process is left as it was and the mounts stay writable.
 *   1'. unshare(CLONE_NEWUSER | CLONE_NEWNS), then "deny" to
 *      /proc/self/setgroups and the one line "ID ID 1" to uid_map and
 *      gid_map, for the effective ids: the process keeps its own ids,
 *      and its supplementary groups still count in every permission
 *      check (the kernel compares its own ids, not those a namespace
 *      shows; setgroups "deny" only forbids changing them).  What it
 *      sees changes: an owner or group not mapped is shown as the
 *      overflow id (65534), and it cannot chown(2) to one; the writer
 *      makes no decision on either as an ordinary user (it restores
 *      owners only as root).  A failure here leaves a process whose ids
 *      are unmapped: the caller must fail (-ENOTRECOVERABLE).
 *   2'. Each directory descriptor names a mount of the namespace left
 *      behind, which open_tree() will not clone for a process without
 *      CAP_SYS_ADMIN over it: each is opened again by its path in the
 *      new one (here()), proved to be the same directory on a mount
 *      with the same flags, then cloned as in step 1.
 *   3'. Steps 3 and 4 as above, then every capability of the new
 *      namespace is dropped (effective, permitted, inheritable,
 *      ambient): with CAP_DAC_OVERRIDE or CAP_FOWNER there the process
 *      could write or chmod its own read-only files, which an ordinary
 *      user cannot.  If that fails too: -ENOTRECOVERABLE.  A failure
 *      of 2' or 3' before it (a directory renamed since step 0) leaves
 *      the process in namespaces of its own, the mounts as writable as
 *      before, with its own ids and no capability: as without a view.
 *   What a user namespace gives away: the user's other processes own
 *   it, so they hold every capability in it; Yama's ptrace_scope 1 no
 *   longer keeps one that is not an ancestor from tracing the writer,
 *   and they may enter its namespaces.  They can do nothing to the
 *   files it writes (theirs) that they could not do before.
 * A process with other threads is refused (EBUSY): only the calling
 * thread would get the view (and unshare(CLONE_NEWUSER) needs one).
 * A process with some capabilities but not CAP_SYS_ADMIN gets no view
 * (EPERM): in a user namespace it would lose them.
 * What stays changeable through a descriptor: files (not directories)
 * opened before -- the archive, stdout -- as the filter cannot tell
 * them from the files the process makes.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <linux/mount.h>
#include <linux/openat2.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "platform.h"

#ifndef SYS_open_tree
#define SYS_open_tree 428
#endif
#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif
#ifndef SYS_openat2
#define SYS_openat2 437
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
	int clone;	/* its replacement, on the cloned tree; -1: none yet */
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
		if (v->dirs[i].clone >= 0)
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
 * open its root as O_PATH or O_RDONLY, as FLAGS (F_GETFL of the
 * caller's descriptor) say.  Return: the descriptor, or -errno.
 */
static int
clone_readonly(int fd, int flags)
{
	struct mount_attr attr;
	int tree, dir;

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
 * The destination, directory FD with identity *DST, opened as FLAGS say
 * (O_PATH or O_RDONLY) on a writable clone of its parent's tree (see the
 * head of the file).  Return: the descriptor, or -errno (-ESTALE: not
 * found under its name; -EXDEV: its parent is "/", or it is).
 */
static int
dest_clone(int fd, int flags, const struct stat *dst)
{
	char link[32], path[PATH_MAX];
	const char *name;
	struct stat st, top;
	ssize_t n;
	int parent, tree, dir, r;

	parent = openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (parent == -1 || fstat(parent, &st) == -1) {
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
 * Step 2': the directory FD (identity *ST) opened again, O_PATH, by its
 * path in this process's mount namespace as it now is: FD still names a
 * mount of the one it left, which open_tree() refuses to clone without
 * CAP_SYS_ADMIN over that one.  SECURITY: the path was read, then looked
 * up: no symlink is followed, and what is found must be FD's directory
 * (device, inode) on a mount with FD's flags (read-only, nosuid, ...),
 * or -ESTALE.  Return: the descriptor, or -errno.
 */
static int
here(int fd, const struct stat *st)
{
	char link[32], path[PATH_MAX];
	struct open_how how;
	struct statfs was, is;
	struct stat now;
	ssize_t n;
	int dir, r;

	(void)snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	if (n <= 0 || n == (ssize_t)sizeof(path) - 1)
		return n <= 0 ? -errno : -ENAMETOOLONG;
	path[n] = '\0';
	if (path[0] != '/')
		return -ESTALE;	/* not reachable from our root */
	memset(&how, 0, sizeof(how));
	how.flags = O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
	how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
	dir = (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));
	if (dir == -1 && errno == ENOSYS)
		dir = open(path, (int)how.flags);
	if (dir == -1)
		return errno == ENOENT || errno == ENOTDIR || errno == ELOOP ?
		    -ESTALE : -errno;
	r = 0;
	if (fstat(dir, &now) == -1 || fstatfs(fd, &was) == -1 ||
	    fstatfs(dir, &is) == -1)
		r = -errno;
	else if (now.st_dev != st->st_dev || now.st_ino != st->st_ino ||
	    was.f_flags != is.f_flags)
		r = -ESTALE;
	if (r < 0) {
		(void)close(dir);
		return r;
	}
	return dir;
}

/*
 * The directory descriptors this process holds, into V (clone -1).
 * Listed whole before any is cloned: /proc/self/fd read while the clones
 * are opened would list them too.  Return: 0, or -errno (-EMFILE past
 * VIEW_MAX_DIRS).
 */
static int
list_dirs(struct view *v)
{
	DIR *d;
	struct dirent *e;
	struct stat st;
	char *end;
	long fd;
	int flags, r = 0;

	v->n = 0;
	d = opendir("/proc/self/fd");
	if (d == NULL)
		return -errno;
	while ((e = readdir(d)) != NULL) {
		fd = strtol(e->d_name, &end, 10);
		if (*end != '\0' || end == e->d_name || fd == dirfd(d) ||
		    fstat((int)fd, &st) == -1 || !S_ISDIR(st.st_mode))
			continue;
		flags = fcntl((int)fd, F_GETFD);
		if (flags == -1 || v->n == VIEW_MAX_DIRS) {
			r = flags == -1 ? -errno : -EMFILE;
			break;
		}
		v->dirs[v->n].fd = (int)fd;
		v->dirs[v->n].clone = -1;
		v->dirs[v->n].cloexec = (flags & FD_CLOEXEC) != 0;
		v->n++;
	}
	(void)closedir(d);
	if (r < 0)
		v->n = 0;
	return r;
}

/*
 * Step 1 (2' with AGAIN: each opened again by its path first): a clone
 * for every directory descriptor in V, writable for those of DESTFD's
 * directory alone.  Return: 0, or -errno with none left open.
 */
static int
clone_dirs(struct view *v, int destfd, bool again)
{
	struct stat st, dst;
	size_t i;
	int flags, fd, r;

	if (fstat(destfd, &dst) == -1)
		return -errno;
	r = list_dirs(v);
	for (i = 0; r == 0 && i < v->n; i++) {
		flags = fcntl(v->dirs[i].fd, F_GETFL);
		if (flags == -1 || fstat(v->dirs[i].fd, &st) == -1) {
			r = -errno;
			break;
		}
		fd = again ? here(v->dirs[i].fd, &st) : v->dirs[i].fd;
		if (fd < 0) {
			r = fd;
			break;
		}
		r = st.st_dev == dst.st_dev && st.st_ino == dst.st_ino ?
		    dest_clone(fd, flags, &dst) : clone_readonly(fd, flags);
		if (again)
			(void)close(fd);
		if (r < 0)
			break;
		v->dirs[i].clone = r;
		r = 0;
	}
	if (r < 0)
		close_clones(v);
	return r;
}

/* Steps 2 (with UNSHARE) and 3.  Return: 0, or -errno. */
static int
readonly_mounts(bool unshare_ns)
{
	struct mount_attr attr;

	if (unshare_ns && unshare(CLONE_NEWNS) == -1)
		return -errno;
	memset(&attr, 0, sizeof(attr));
	attr.attr_set = MOUNT_ATTR_RDONLY;
	attr.propagation = MS_PRIVATE;
	if (syscall(SYS_mount_setattr, AT_FDCWD, "/", AT_RECURSIVE, &attr,
	    sizeof(attr)) == -1)
		return -errno;
	return 0;
}

/* Step 4.  Return: 0, or -errno. */
static int
put_clones(struct view *v)
{
	size_t i;
	int r = 0;

	/* dup3 onto an open number needs no free slot; it fails only for
	 * a bad descriptor, which none of these is. */
	for (i = 0; i < v->n; i++) {
		if (dup3(v->dirs[i].clone, v->dirs[i].fd,
		    v->dirs[i].cloexec ? O_CLOEXEC : 0) == -1)
			r = -errno;
		(void)close(v->dirs[i].clone);
	}
	v->n = 0;
	return r;
}

/*
 * Is this process an ordinary user's: not uid 0, and no capability,
 * effective or permitted?  Only then is a user namespace used: one with
 * some capabilities would lose them there.
 */
static bool
plain_user(void)
{
	struct __user_cap_header_struct hdr;
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	size_t i;

	if (geteuid() == 0)
		return false;
	memset(&hdr, 0, sizeof(hdr));
	hdr.version = _LINUX_CAPABILITY_VERSION_3;
	if (syscall(SYS_capget, &hdr, data) == -1)
		return false;
	for (i = 0; i < _LINUX_CAPABILITY_U32S_3; i++)
		if (data[i].effective != 0 || data[i].permitted != 0)
			return false;
	return true;
}

/* Write TEXT to the file PATH.  Return: 0, or -errno. */
static int
put_text(const char *path, const char *text)
{
	size_t len = strlen(text);
	ssize_t n;
	int fd, r;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd == -1)
		return -errno;
	n = write(fd, text, len);
	r = n == (ssize_t)len ? 0 : n == -1 ? -errno : -EIO;
	if (close(fd) == -1 && r == 0)
		r = -errno;
	return r;
}

/*
 * Step 1': a user and a mount namespace, this process's effective ids
 * mapped to themselves.  Return: 0; -errno with nothing changed (the
 * unshare refused); or -errno with *CHANGED set (made, but the ids not
 * all mapped).
 */
static int
enter_userns(bool *changed)
{
	char map[64];
	uid_t uid = geteuid();
	gid_t gid = getegid();
	int r;

	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) == -1)
		return -errno;
	*changed = true;
	/* Unprivileged, gid_map is written only after setgroups is
	 * denied (the groups held stay held, and still count). */
	r = put_text("/proc/self/setgroups", "deny");
	if (r == 0) {
		(void)snprintf(map, sizeof(map), "%lu %lu 1",
		    (unsigned long)uid, (unsigned long)uid);
		r = put_text("/proc/self/uid_map", map);
	}
	if (r == 0) {
		(void)snprintf(map, sizeof(map), "%lu %lu 1",
		    (unsigned long)gid, (unsigned long)gid);
		r = put_text("/proc/self/gid_map", map);
	}
	if (r == 0 && (geteuid() != uid || getegid() != gid))
		r = -EIO;
	if (r == 0)
		*changed = false;
	return r;
}

/* Step 3', last: every capability dropped.  Return: 0, or -errno. */
static int
drop_caps(void)
{
	struct __user_cap_header_struct hdr;
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];

	(void)prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	memset(&hdr, 0, sizeof(hdr));
	memset(data, 0, sizeof(data));
	hdr.version = _LINUX_CAPABILITY_VERSION_3;
	return syscall(SYS_capset, &hdr, data) == -1 ? -errno : 0;
}

/*
 * Steps 1' to 3' (see the head of the file).  Return: 0; or -errno,
 * with *CHANGED set when the process is left other than an ordinary
 * user's (ids unmapped, or capabilities kept).  A failure of the mount
 * work alone leaves it in namespaces of its own, as writable as before,
 * with its own ids and no capability.
 */
static int
userns_view(int destfd, bool *changed)
{
	struct view v;
	int r, d;

	*changed = false;
	r = enter_userns(changed);
	if (r < 0 && !*changed)
		return r;
	if (r == 0) {
		r = clone_dirs(&v, destfd, true);
		if (r == 0) {
			r = readonly_mounts(false);
			if (r < 0)
				close_clones(&v);
			else
				r = put_clones(&v);
		}
	}
	d = drop_caps();
	if (d < 0) {
		*changed = true;
		return d;
	}
	return r;
}

/*
 * Step 0: userns_view() in a forked child, which says how it went
 * through a pipe (not its exit status: a caller that ignores SIGCHLD
 * gets none).  Return: 0, or -errno; this process is left as it was.
 */
static int
probe_userns(int destfd)
{
	bool changed;
	ssize_t n;
	pid_t pid;
	int p[2], r;

	if (pipe2(p, O_CLOEXEC) == -1)
		return -errno;
	pid = fork();
	if (pid == -1) {
		r = -errno;
		(void)close(p[0]);
		(void)close(p[1]);
		return r;
	}
	if (pid == 0) {
		(void)close(p[0]);
		r = userns_view(destfd, &changed);
		if (write(p[1], &r, sizeof(r)) != (ssize_t)sizeof(r))
			_exit(1);
		_exit(0);
	}
	(void)close(p[1]);
	do
		n = read(p[0], &r, sizeof(r));
	while (n == -1 && errno == EINTR);
	if (n != (ssize_t)sizeof(r))
		r = -ECHILD;
	(void)close(p[0]);
	while (waitpid(pid, NULL, 0) == -1 && errno == EINTR)
		continue;
	return r;
}

/* see platform.h */
int
plat_view_readonly(int destfd, bool *userns)
{
	struct view v;
	bool changed;
	int r;

	*userns = false;
	r = one_thread();
	if (r <= 0)
		return r < 0 ? r : -EBUSY;
	r = clone_dirs(&v, destfd, false);
	if (r == -EPERM && plain_user()) {
		/* No CAP_SYS_ADMIN: the same view in a user namespace,
		 * tried first where a failure changes nothing. */
		*userns = true;
		r = probe_userns(destfd);
		if (r < 0)
			return r;
		r = userns_view(destfd, &changed);
		return r < 0 && changed ? -ENOTRECOVERABLE : r;
	}
	if (r < 0)
		return r;
	r = readonly_mounts(true);
	if (r < 0) {
		close_clones(&v);
		return r;
	}
	return put_clones(&v);
}
