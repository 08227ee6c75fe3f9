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
 *      every mount), nor one at or beneath an unbindable mount, which a
 *      clone leaves out (-EINVAL: unbindable_below()).  The destination
 *      is found in the clone by its name
 *      in the parent (from /proc/self/fd, or among the parent's entries
 *      where /proc cannot give a path that long: name_in()), then
 *      proved by identity: a rename meanwhile makes the view fail, not
 *      act elsewhere; it is made again, a few times, and then fails the
 *      confinement (-ESTALE: another process that could make it fail at
 *      will must not be able to take it away).
 *   1b. Each device or named pipe the process holds (a terminal,
 *      /dev/null, a FIFO: standard output and error, most often; of
 *      devices, those an open gives again as they were: reopens_same())
 *      is opened again through a read-only clone of its own mount, with
 *      the original's access mode and status flags (clone_node()).  It
 *      is written to as before: the kernel asks a mount's write access
 *      only of regular files, directories and links.  Why: Landlock does
 *      not check a chmod, chown, utimes or setxattr through a held
 *      descriptor, nor can the filter tell one from the writer's own
 *      files; as root, a writer taken over made its terminal 0666 (for
 *      any user to read the keys typed in it) or chmod'ed /dev/null
 *      through standard output.  A device whose open makes a new
 *      instance (/dev/ptmx, /dev/net/tun) or acts (a tape rewinds) is
 *      left as it is, and so is one that cannot be opened again.
 *   2. unshare(CLONE_NEWNS): a private copy of the mount table, for
 *      this process only; the cwd and root move to the copy.  Every
 *      procfs mount of the copy is detached (detach_proc()): its magic
 *      links lead to the program and libraries on the old mounts.
 *   3. mount_setattr("/", AT_RECURSIVE) (Linux 5.12): every mount of
 *      the copy read-only and private (nothing mounted later elsewhere
 *      appears in it).  The caller's filter then refuses every mount
 *      call, so it cannot be undone.
 *   4. Each clone, opened as the original was (O_PATH or not, the
 *      close-on-exec flag kept), takes the original's number (dup3):
 *      the same directory (device, pipe), on a mount of its own.
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
 *      new one (here(); a path /proc cannot give is rebuilt from the
 *      parents' entries, reopen()), proved to be the same directory on
 *      a mount with the same flags, then cloned as in step 1.  One
 *      that is not the destination and has no path here (removed
 *      since, which a caller may hand down) means no view (-ENOENT),
 *      not -ESTALE.  So is each device and named pipe, for step 1b
 *      (node_here(): by /proc's path alone; one not found there again
 *      is left as it is).
 *   3'. Steps 3 and 4 as above (not 2b: the procfs mounts a user
 *      namespace inherits are locked to it, and through their links
 *      the process reaches only files its user may change anyway: a
 *      program and libraries installed by root are not among them),
 *      then every capability of the new
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
 * What stays changeable through a descriptor: regular files opened
 * before -- the archive, a standard output redirected to a file -- as
 * the filter cannot tell them from the files the process makes, and a
 * read-only mount cannot be written through; and a device or pipe
 * that step 1b could not open again.  The caller lets the archive go,
 * and relays such an output (pfextract(1)).
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
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
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

/* The most devices and named pipes given a mount of their own. */
#define VIEW_MAX_NODES 16

/* pipefs, where an anonymous pipe lives: nothing to reach by a name. */
#define VIEW_PIPEFS_MAGIC 0x50495045

struct view_dir {
	int fd;		/* the caller's number */
	int clone;	/* its replacement, on the cloned tree; -1: none yet */
	bool cloexec;
};

struct view {
	struct view_dir dirs[VIEW_MAX_DIRS];
	size_t n;
	/* Devices and named pipes (step 1b); clone -1: left as it is. */
	struct view_dir nodes[VIEW_MAX_NODES];
	size_t nnodes;
};

static void
close_clones(struct view *v)
{
	size_t i;

	for (i = 0; i < v->n; i++)
		if (v->dirs[i].clone >= 0)
			(void)close(v->dirs[i].clone);
	for (i = 0; i < v->nnodes; i++)
		if (v->nodes[i].clone >= 0)
			(void)close(v->nodes[i].clone);
	v->n = 0;
	v->nnodes = 0;
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
 * Find the name of the directory with identity *DST among the entries of
 * directory PARENT (stat, not lstat's d_ino, so that a mount point's name
 * gives the mount's root), into BUF of CAP bytes.  For a destination whose
 * path /proc cannot give: one longer than a page, which symlinks in the
 * path given may make (or another process moving its parents).
 * O(entries).  Return: 0, or -errno (-ESTALE: not there).
 */
static int
name_in(int parent, const struct stat *dst, char *buf, size_t cap)
{
	struct dirent *e;
	struct stat st;
	DIR *d;
	int fd, r = -ESTALE;

	fd = openat(parent, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd == -1)
		return -errno;
	d = fdopendir(fd);
	if (d == NULL) {
		r = -errno;
		(void)close(fd);
		return r;
	}
	while (r == -ESTALE && (e = readdir(d)) != NULL) {
		if ((e->d_type != DT_DIR && e->d_type != DT_UNKNOWN) ||
		    strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    st.st_dev == dst->st_dev && st.st_ino == dst->st_ino &&
		    strlen(e->d_name) < cap) {
			memcpy(buf, e->d_name, strlen(e->d_name) + 1);
			r = 0;
		}
	}
	(void)closedir(d);
	return r;
}

/*
 * Undo the escapes of a mount point in /proc/self/mountinfo ("\040" for
 * a space, and so on) in place.
 */
static void
unescape(char *s)
{
	char *to = s;

	for (; *s != '\0'; s++, to++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*to = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
			    (s[3] - '0'));
			s += 3;
		} else {
			*to = *s;
		}
	}
	*to = '\0';
}

/*
 * The mount point in LINE, a line of /proc/self/mountinfo cut at its
 * " - " ("ID PARENT MAJ:MIN ROOT POINT OPTS [TAGS...]"): the fifth field,
 * ended and unescaped in place (a space in it is "\040").  Return: it,
 * or NULL where LINE has no such field.
 */
static char *
mount_point(char *line)
{
	char *point = line, *end;
	size_t k;

	for (k = 0; k < 4 && point != NULL; k++)
		if ((point = strchr(point, ' ')) != NULL)
			point++;
	end = point != NULL ? strchr(point, ' ') : NULL;
	if (end == NULL)
		return NULL;
	*end = '\0';
	unescape(point);
	return point;
}

/*
 * Is an unbindable mount at or beneath the destination, whose path from
 * /proc is DEST ("" if unknown: then any in the tree of directory
 * PARENT's mount counts)?  open_tree(OPEN_TREE_CLONE | AT_RECURSIVE)
 * leaves such a mount out of its clone without a word, and there its
 * mount point shows the directory under it: a destination that is one
 * was "renamed" (-ESTALE, the run refused), and with one beneath it the
 * writer put an entry into the directory it hides, where without a view
 * the kernel refuses to cross (RESOLVE_NO_XDEV).  Only CAP_SYS_ADMIN over
 * a namespace makes a mount unbindable: no view then, as for any other
 * mount that cannot be cloned (open_tree()'s EINVAL).  The paths only
 * choose between a view and none.  From /proc/self/mountinfo ("ID PARENT
 * MAJ:MIN ROOT POINT OPTS [TAGS...] - ...", a tag "unbindable"; a space
 * in a name is "\040").  O(mounts x depth).  Return: 1, 0, or -errno.
 */
static int
unbindable_below(int parent, const char *dest)
{
	struct { unsigned long long id, up; bool unb; } *mnt = NULL;
	unsigned long long cur;
	size_t n = 0, cap = 0, len = 0, dlen = strlen(dest), i, k, steps;
	struct plat_id top;
	char *line = NULL, *dash, *point;
	void *grown;
	FILE *m;
	int r;

	r = plat_os_identify(parent, &top);
	if (r < 0)
		return r;
	if (top.mnt == 0)
		return -ENOSYS;	/* no mount ID (Linux < 5.8) */
	m = fopen("/proc/self/mountinfo", "re");
	if (m == NULL)
		return -errno;
	while (r == 0 && getline(&line, &len, m) != -1) {
		if (n == cap) {
			cap = cap == 0 ? 32 : cap * 2;
			grown = realloc(mnt, cap * sizeof(*mnt));
			if (grown == NULL) {
				r = -ENOMEM;
				break;
			}
			mnt = grown;
		}
		dash = strstr(line, " - ");
		if (dash == NULL ||
		    sscanf(line, "%llu %llu", &mnt[n].id, &mnt[n].up) != 2) {
			r = -EINVAL;
			break;
		}
		*dash = '\0';
		mnt[n].unb = strstr(line, " unbindable") != NULL;
		/* The mount point: DEST or beneath it? */
		point = mount_point(line);
		if (point == NULL) {
			r = -EINVAL;
			break;
		}
		if (dlen > 0 && (strncmp(point, dest, dlen) != 0 ||
		    (point[dlen] != '\0' && point[dlen] != '/')))
			mnt[n].unb = false;
		n++;
	}
	free(line);
	(void)fclose(m);
	/* Each one's parents, up to the top (at most N of them). */
	for (i = 0; r == 0 && i < n; i++) {
		if (!mnt[i].unb)
			continue;
		for (cur = mnt[i].id, steps = 0; r == 0 && steps <= n;
		    steps++) {
			if (cur == top.mnt)
				r = 1;
			for (k = 0; k < n && mnt[k].id != cur; k++)
				continue;
			if (k == n || mnt[k].up == cur)
				break;
			cur = mnt[k].up;
		}
	}
	free(mnt);
	return r;
}

/*
 * The destination, directory FD with identity *DST, opened as FD is (O_PATH
 * or O_RDONLY) on a writable clone of its parent's tree (see the head of
 * the file).  Return: the descriptor, or -errno (-ESTALE: not found under
 * its name; -EXDEV: its parent is "/", or it is).
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
	if (n > 0 && n < (ssize_t)sizeof(path) - 1) {
		path[n] = '\0';
	} else {
		/* SECURITY: a path too long for /proc must not be a way to
		 * have no view (symlinks in the path given make one). */
		r = n <= 0 && errno != ENAMETOOLONG ? -errno :
		    name_in(parent, dst, path, sizeof(path));
		if (r < 0) {
			(void)close(parent);
			return r;
		}
	}
	r = unbindable_below(parent, path[0] == '/' ? path : "");
	if (r != 0) {
		(void)close(parent);
		return r < 0 ? r : -EINVAL;
	}
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

/* Look PATH up from our root, no symlink followed, as a directory when
 * TYPE is O_DIRECTORY (else 0: any node).  Return: the descriptor
 * (O_PATH), or -errno (-ESTALE: not there, or not from "/"). */
static int
open_path(const char *path, int type)
{
	struct open_how how;
	int dir;

	if (path[0] != '/')
		return -ESTALE;	/* not reachable from our root */
	memset(&how, 0, sizeof(how));
	how.flags = O_PATH | (uint64_t)type | O_NOFOLLOW | O_CLOEXEC;
	how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
	dir = (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));
	if (dir == -1 && errno == ENOSYS)
		dir = open(path, (int)how.flags);
	if (dir == -1)
		return errno == ENOENT || errno == ENOTDIR || errno == ELOOP ?
		    -ESTALE : -errno;
	return dir;
}

/* The most bytes of names kept below the nearest ancestor /proc names. */
#define VIEW_LONG_MAX (64 * 1024)

/*
 * Directory FD opened again by its path from our root, O_PATH.  SECURITY:
 * where /proc cannot give that path (longer than a page: symlinks in the
 * path given, or a user who owns a directory on it moving it deep, make
 * one), a user's writer had no view ("File name too long"); as for root
 * (name_in()), the names below its nearest ancestor that /proc can name
 * are found among each parent's entries, then looked up one by one, no
 * symlink followed.  The caller proves what is found.  O(entries x
 * depth).  Return: the descriptor, or -errno.
 */
static int
reopen(int fd)
{
	char link[32], path[PATH_MAX], *names = NULL, *p, *q;
	struct stat cst;
	size_t len = 0, k;
	ssize_t n;
	int cur, up, dir, r = 0;

	cur = openat(fd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (cur == -1)
		return -errno;
	for (;;) {
		(void)snprintf(link, sizeof(link), "/proc/self/fd/%d", cur);
		n = readlink(link, path, sizeof(path) - 1);
		if (n > 0 && n < (ssize_t)sizeof(path) - 1)
			break;
		if (n <= 0 && errno != ENAMETOOLONG) {
			r = -errno;
			break;
		}
		if (names == NULL && (names = malloc(VIEW_LONG_MAX)) == NULL) {
			r = -ENOMEM;
			break;
		}
		/* CUR's name in its parent, kept deepest first. */
		up = openat(cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (up == -1 || fstat(cur, &cst) == -1) {
			r = -errno;
			if (up != -1)
				(void)close(up);
			break;
		}
		(void)close(cur);
		cur = up;
		r = name_in(cur, &cst, path, NAME_MAX + 1);
		k = r == 0 ? strlen(path) + 1 : 0;
		if (r == 0 && len + k > VIEW_LONG_MAX)
			r = -ENAMETOOLONG;
		if (r < 0)
			break;
		memcpy(names + len, path, k);
		len += k;
	}
	(void)close(cur);
	if (r < 0) {
		free(names);
		return r;
	}
	path[n] = '\0';
	dir = open_path(path, O_DIRECTORY);
	/* Down again, the last name kept first. */
	for (p = names != NULL ? names + len : NULL; dir >= 0 && p != NULL &&
	    p > names; p = q) {
		for (q = p - 1; q > names && q[-1] != '\0'; q--)
			continue;
		r = openat(dir, q, O_PATH | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
		if (r == -1)
			r = errno == ENOENT || errno == ENOTDIR ||
			    errno == ELOOP ? -ESTALE : -errno;
		(void)close(dir);
		dir = r;
	}
	free(names);
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
	struct statfs was, is;
	struct stat now;
	int dir, r;

	dir = reopen(fd);
	if (dir < 0)
		return dir;
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
 * Is character device RDEV one that an open of its node gives again
 * as it was: a memory device (/dev/null, /dev/zero, /dev/full, the
 * random ones, /dev/kmsg: major 1), a virtual console or serial line
 * (4), /dev/tty or /dev/console (5, minors 0 and 1), a pseudo-terminal's
 * side that a program writes to (136 to 143)?  Not a device whose open
 * makes a new instance (/dev/ptmx, /dev/net/tun, /dev/fuse), nor one
 * whose open acts (a tape rewinds): those are left as they are.
 */
static bool
reopens_same(dev_t rdev)
{
	unsigned int maj = major(rdev), min = minor(rdev);

	return maj == 1 || maj == 4 || (maj == 5 && min <= 1) ||
	    (maj >= 136 && maj <= 143);
}

/*
 * Is FD, of status *ST, a device or a named pipe that step 1b opens
 * again: a node of a file system that a descriptor lets the process
 * chmod, chown, touch or tag?  Not an anonymous pipe or a socket, which
 * no name reaches.
 */
static bool
is_node(int fd, const struct stat *st)
{
	struct statfs fs;

	if (S_ISCHR(st->st_mode))
		return reopens_same(st->st_rdev);
	return S_ISFIFO(st->st_mode) && fstatfs(fd, &fs) == 0 &&
	    fs.f_type != VIEW_PIPEFS_MAGIC;
}

/* Add FD, of descriptor flags FLAGS, to the N of LIST (CAP at most).
 * Return: 0, or -EMFILE. */
static int
add_fd(struct view_dir *list, size_t *n, size_t cap, int fd, int flags)
{
	if (*n == cap)
		return -EMFILE;
	list[*n].fd = fd;
	list[*n].clone = -1;
	list[*n].cloexec = (flags & FD_CLOEXEC) != 0;
	(*n)++;
	return 0;
}

/*
 * The directory descriptors this process holds, into V (clone -1), and
 * its devices and named pipes (step 1b: past VIEW_MAX_NODES, the rest
 * are left as they are, as one that cannot be opened again is; a
 * caller's many terminals must not cost it the view).  Listed whole
 * before any is cloned: /proc/self/fd read while the clones are opened
 * would list them too.  Return: 0, or -errno (-EMFILE past
 * VIEW_MAX_DIRS).
 */
static int
list_fds(struct view *v)
{
	DIR *d;
	struct dirent *e;
	struct stat st;
	char *end;
	long fd;
	int flags, r = 0;

	v->n = 0;
	v->nnodes = 0;
	d = opendir("/proc/self/fd");
	if (d == NULL)
		return -errno;
	while (r == 0 && (e = readdir(d)) != NULL) {
		fd = strtol(e->d_name, &end, 10);
		if (*end != '\0' || end == e->d_name || fd == dirfd(d) ||
		    fstat((int)fd, &st) == -1)
			continue;
		if (!S_ISDIR(st.st_mode) && !is_node((int)fd, &st))
			continue;
		flags = fcntl((int)fd, F_GETFD);
		if (flags == -1)
			r = -errno;
		else if (S_ISDIR(st.st_mode))
			r = add_fd(v->dirs, &v->n, VIEW_MAX_DIRS, (int)fd,
			    flags);
		else
			(void)add_fd(v->nodes, &v->nnodes, VIEW_MAX_NODES,
			    (int)fd, flags);
	}
	(void)closedir(d);
	if (r < 0) {
		v->n = 0;
		v->nnodes = 0;
	}
	return r;
}

/*
 * Step 1b: open the device or named pipe FD again, through a detached
 * read-only mount of its own, as FD is (access mode and status flags).
 * A device or a pipe is written to on a read-only mount all the same
 * (the kernel asks a mount's write access only of regular files,
 * directories and links), while a chmod, chown, utimes or setxattr
 * through the new descriptor meets EROFS.  Opened without blocking
 * (a serial line waits for its carrier, a named pipe for a reader),
 * then given FD's status flags.  AT is FD, or (in a user namespace,
 * whose mounts the process may clone only once they are its own) the
 * same node looked up again by its path there (node_here()).
 * Return: the descriptor, or -errno (one that cannot be opened twice).
 */
static int
clone_node(int fd, int at)
{
	struct mount_attr attr;
	struct stat was, now;
	char link[32];
	int tree, nfd, fl, r;

	fl = fcntl(fd, F_GETFL);
	if (fl == -1 || fstat(fd, &was) == -1)
		return -errno;
	tree = (int)syscall(SYS_open_tree, at, "", OPEN_TREE_CLONE |
	    AT_EMPTY_PATH | O_CLOEXEC);
	if (tree == -1)
		return -errno;
	memset(&attr, 0, sizeof(attr));
	attr.attr_set = MOUNT_ATTR_RDONLY;
	nfd = -1;
	/* The magic link leads to the clone's mount, not FD's. */
	(void)snprintf(link, sizeof(link), "/proc/self/fd/%d", tree);
	if (syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH, &attr,
	    sizeof(attr)) == 0)
		nfd = open(link, (fl & O_ACCMODE) | O_NONBLOCK | O_NOCTTY |
		    O_CLOEXEC);
	r = nfd == -1 ? -errno : 0;
	(void)close(tree);
	if (r < 0)
		return r;
	if (fstat(nfd, &now) == -1 || fcntl(nfd, F_SETFL, fl) == -1)
		r = -errno;
	else if (now.st_dev != was.st_dev || now.st_ino != was.st_ino ||
	    now.st_rdev != was.st_rdev)
		r = -ESTALE;
	if (r < 0) {
		(void)close(nfd);
		return r;
	}
	return nfd;
}

/*
 * In a user namespace: device or named pipe FD looked up again by its
 * path (/proc/self/fd), through no symbolic link, and proved to be the
 * same node.  Return: the descriptor (O_PATH), or -errno (-ESTALE:
 * not there, another, or no path: a node removed since).
 */
static int
node_here(int fd)
{
	struct stat was, now;
	char link[32], path[PATH_MAX];
	ssize_t n;
	int at;

	(void)snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	if (n <= 0 || n >= (ssize_t)sizeof(path) - 1 || path[0] != '/' ||
	    fstat(fd, &was) == -1)
		return -ESTALE;
	path[n] = '\0';
	at = open_path(path, 0);
	if (at < 0)
		return at;
	if (fstat(at, &now) == -1 || now.st_dev != was.st_dev ||
	    now.st_ino != was.st_ino || now.st_rdev != was.st_rdev ||
	    (now.st_mode & S_IFMT) != (was.st_mode & S_IFMT)) {
		(void)close(at);
		return -ESTALE;
	}
	return at;
}

/*
 * Step 1 (2' with AGAIN: each opened again by its path first): a clone
 * for every directory descriptor in V, writable for those of DESTFD's
 * directory alone; and step 1b for every device and named pipe (with
 * AGAIN, each looked up again by its path first).  Return: 0, or -errno
 * with none left open.
 */
static int
clone_dirs(struct view *v, int destfd, bool again)
{
	struct stat st, dst;
	bool isdest;
	size_t i;
	int flags, fd, r;

	if (fstat(destfd, &dst) == -1)
		return -errno;
	r = list_fds(v);
	for (i = 0; r == 0 && i < v->n; i++) {
		flags = fcntl(v->dirs[i].fd, F_GETFL);
		if (flags == -1 || fstat(v->dirs[i].fd, &st) == -1) {
			r = -errno;
			break;
		}
		isdest = st.st_dev == dst.st_dev && st.st_ino == dst.st_ino;
		fd = again ? here(v->dirs[i].fd, &st) : v->dirs[i].fd;
		if (fd < 0) {
			/* -ESTALE fails the run: the destination taken away.
			 * Another directory the caller handed down that has no
			 * path here (removed, renamed, out of our root) cannot
			 * be cloned either: no view, as for one whose mount
			 * cannot be (clone_readonly()). */
			r = fd == -ESTALE && !isdest ? -ENOENT : fd;
			break;
		}
		r = isdest ? dest_clone(fd, flags, &dst) :
		    clone_readonly(fd, flags);
		if (again)
			(void)close(fd);
		if (r < 0)
			break;
		v->dirs[i].clone = r;
		r = 0;
	}
	/* One that cannot be opened again is left as it is. */
	for (i = 0; r == 0 && i < v->nnodes; i++) {
		fd = again ? node_here(v->nodes[i].fd) : v->nodes[i].fd;
		v->nodes[i].clone = fd < 0 ? -1 :
		    clone_node(v->nodes[i].fd, fd);
		if (v->nodes[i].clone < 0)
			v->nodes[i].clone = -1;
		if (again && fd >= 0)
			(void)close(fd);
	}
	if (r < 0)
		close_clones(v);
	return r;
}

/*
 * Step 2b: detach every procfs mount of this process's copy of the mount
 * table, the last listed (the deepest, or the one on top) first.  Why:
 * /proc/self/exe and /proc/self/map_files/ are magic links to the files
 * the process runs and maps, whose mounts are the ones it was started
 * on, in the namespace it left: as writable as ever.  Landlock does not
 * check a chmod or utimensat, nor the walk through a magic link: a
 * writer taken over made its own program and the libc it maps 0666
 * through them.  The confined process reads nothing in /proc (Landlock
 * has no rule for it), so nothing it needs goes.  Return: 0, or -errno.
 */
static int
detach_proc(void)
{
	char (*points)[PATH_MAX] = NULL, *line = NULL, *dash, *point;
	size_t n = 0, cap = 0, len = 0, i;
	void *grown;
	FILE *m;
	int r = 0;

	m = fopen("/proc/self/mountinfo", "re");
	if (m == NULL)
		return -errno;
	/* Whole lines: an overlay's options (its layers) may be pages long.
	 * "ID PARENT MAJ:MIN ROOT POINT OPTS [TAGS...] - TYPE SOURCE OPTS",
	 * the kernel's own text. */
	while (r == 0 && getline(&line, &len, m) != -1) {
		dash = strstr(line, " - ");
		if (dash == NULL || strncmp(dash, " - proc ", 8) != 0)
			continue;
		*dash = '\0';
		point = mount_point(line);
		if (point == NULL || strlen(point) >= PATH_MAX) {
			r = -EINVAL;
			break;
		}
		if (n == cap) {
			cap = cap == 0 ? 4 : cap * 2;
			grown = realloc(points, cap * sizeof(*points));
			if (grown == NULL) {
				r = -ENOMEM;
				break;
			}
			points = grown;
		}
		(void)snprintf(points[n++], sizeof(*points), "%s", point);
	}
	free(line);
	(void)fclose(m);
	for (i = n; r == 0 && i > 0; i--)
		if (umount2(points[i - 1], MNT_DETACH | UMOUNT_NOFOLLOW) == -1)
			r = -errno;
	free(points);
	return r;
}

/*
 * Steps 2 (with UNSHARE_NS) and 3, and 2b unless KEEP_PROC.  Return: 0,
 * or -errno.
 */
static int
readonly_mounts(bool unshare_ns, bool keep_proc)
{
	struct mount_attr attr;
	int r;

	if (unshare_ns && unshare(CLONE_NEWNS) == -1)
		return -errno;
	if (!keep_proc && (r = detach_proc()) < 0)
		return r;
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
	for (i = 0; i < v->nnodes; i++) {
		if (v->nodes[i].clone < 0)
			continue;
		if (dup3(v->nodes[i].clone, v->nodes[i].fd,
		    v->nodes[i].cloexec ? O_CLOEXEC : 0) == -1)
			r = -errno;
		(void)close(v->nodes[i].clone);
	}
	v->n = 0;
	v->nnodes = 0;
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
			r = readonly_mounts(false, true);
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

/* How many times the clones are made while the destination's name in its
 * parent keeps changing (-ESTALE). */
#define VIEW_TRIES 4

/* see platform.h */
int
plat_view_readonly(int destfd, bool keep_proc, bool *userns)
{
	struct view v;
	bool changed;
	int r, tries;

	*userns = false;
	r = one_thread();
	if (r <= 0)
		return r < 0 ? r : -EBUSY;
	/* A rename by another process between the name read and its
	 * lookup fails the proof; it may have been a single one. */
	for (tries = 0, r = -ESTALE; r == -ESTALE && tries < VIEW_TRIES;
	    tries++)
		r = clone_dirs(&v, destfd, false);
	if (r == -EPERM && plain_user()) {
		/* No CAP_SYS_ADMIN: the same view in a user namespace,
		 * tried first where a failure changes nothing. */
		*userns = true;
		for (tries = 0, r = -ESTALE; r == -ESTALE &&
		    tries < VIEW_TRIES; tries++)
			r = probe_userns(destfd);
		if (r < 0)
			return r;
		r = userns_view(destfd, &changed);
		return r < 0 && changed ? -ENOTRECOVERABLE : r;
	}
	if (r < 0)
		return r;
	r = readonly_mounts(true, keep_proc);
	if (r < 0) {
		close_clones(&v);
		return r;
	}
	return put_clones(&v);
}
