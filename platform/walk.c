/*
 * walk.c -- list the symbolic links already beneath a root, without
 * following any of them or leaving the root's mount.
 *
 * Threat model: the tree is whatever was in the destination before, and
 * what earlier runs made of hostile archives -- links pointing anywhere,
 * deep trees, wide directories -- and anyone may rename or replace
 * things in it while we walk.  So nothing here resolves a path of more
 * than one component: every directory is entered alone from its parent's
 * descriptor with openat(O_NOFOLLOW|O_DIRECTORY) and checked to be on the
 * root's mount, every link is read with readlinkat(2) from its parent's
 * descriptor, and the way back up is ".." checked against the identity
 * recorded on the way down, as in remove.c.
 *
 * The walk is iterative, not recursive, and shaped like remove.c's: the
 * listings of the top KEEP_LEVELS levels stay open while their
 * subdirectories are walked, deeper levels keep only a telldir(3)
 * position and are listed on from there after the climb back, so neither
 * the stack nor the descriptor count grows with depth.  Out of
 * descriptors (EMFILE, ENFILE), the top levels' listings are let go too
 * (shed_levels) and the step tried again: they only save relisting.  Nothing is
 * changed, so a position is only stale if someone else changes that
 * directory meanwhile; then, as with any listing of a live tree, an entry
 * may be missed or seen twice.
 */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "platform.h"

/*
 * Levels whose listing stays open while a subdirectory is walked, so a
 * wide directory near the top is listed once; deeper levels keep only a
 * position.  Bounds the descriptors held: KEEP_LEVELS listings, the
 * deepest level's own listing and descriptor, and one being opened.
 */
#define KEEP_LEVELS 8

/* One directory on the way down from the root. */
struct level {
	struct plat_id id;	/* the directory entered */
	DIR *d;			/* its listing, open; or NULL */
	long pos;		/* else where the listing goes on; -1: start */
	size_t plen;		/* bytes of the path that names it */
};

/* The state of one walk: what pfx_root_list_links() was given, and more. */
struct walk {
	const struct pfx_root *root;
	int (*fn)(void *arg, const char *rel, const char *target);
	void *arg;
	struct level *w;	/* PLAT_MAX_DEPTH + 1 levels */
	char path[PFX_PATH_MAX];	/* the entry at hand, from the root */
	char target[PFX_PATH_MAX];
};

/*
 * Append the component NAME to W->path, which names a directory in its
 * first PLEN bytes.  Return: the new length, or -ENAMETOOLONG.
 */
static long
append_name(struct walk *w, size_t plen, const char *name)
{
	size_t n = strlen(name), sep = plen > 0 ? 1 : 0;

	if (n > PFX_NAME_MAX || plen + sep + n >= sizeof(w->path))
		return -ENAMETOOLONG;
	if (sep != 0)
		w->path[plen] = '/';
	memcpy(w->path + plen + sep, name, n + 1);
	return (long)(plen + sep + n);
}

/*
 * The type of the entry DE of the directory open as FD: from d_type, or
 * by looking, without following a symlink.
 * Return: the S_IF* type, 0 if it vanished meanwhile, or -errno.
 */
static long
entry_type(int fd, const struct dirent *de)
{
	struct stat st;
	mode_t t;

	t = plat_os_dirent_type(de);
	if (t != 0)
		return (long)t;
	if (fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == -1)
		return errno == ENOENT ? 0 : -errno;
	return (long)(st.st_mode & S_IFMT);
}

/*
 * Read the link NAME of the directory open as FD, whose path from the
 * root is W->path (PLEN bytes), and give it to W->fn.
 * Return: 0 (also when it vanished meanwhile), FN's answer, or -errno.
 */
static int
give_link(struct walk *w, int fd, size_t plen, const char *name)
{
	ssize_t n;
	long len;
	int r;

	n = readlinkat(fd, name, w->target, sizeof(w->target));
	if (n == -1)
		return errno == ENOENT ? 0 : -errno;
	/* SECURITY: readlinkat(2) truncates silently; never pass that on. */
	if ((size_t)n >= sizeof(w->target))
		return -ENAMETOOLONG;
	w->target[n] = '\0';
	len = append_name(w, plen, name);
	if (len < 0)
		return (int)len;
	r = w->fn(w->arg, w->path, w->target);
	w->path[plen] = '\0';
	return r;
}

/*
 * Open the directory NAME of DIRFD to walk it, without following a
 * symlink; *ID receives its identity.
 * Return: a descriptor, or -EXDEV when it is on another mount (not to be
 * entered), -ENOENT when it vanished meanwhile, or -errno.
 */
static int
enter(const struct pfx_root *root, int dirfd, const char *name,
    struct plat_id *id)
{
	int fd, r;

	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (fd == -1)
		return -errno;
	r = plat_os_identify(fd, id);
	if (r == 0 && !S_ISDIR(id->mode))
		r = -ENOTDIR;
	/* SECURITY: a mount point beneath is someone else's tree. */
	if (r == 0 && !plat_same_mount(id, root))
		r = -EXDEV;
	if (r < 0) {
		plat_close(fd);
		return r;
	}
	return fd;
}

/* Is R the error of a process or system out of descriptors? */
static bool
out_of_fds(int r)
{
	return r == -EMFILE || r == -ENFILE;
}

/*
 * Out of descriptors: let the listings kept open above DEPTH go, each
 * left as a position to list on from after the climb back, as deeper
 * levels always are -- they are kept for speed only.
 * Return: whether any was let go (the caller tries once more).
 */
static bool
shed_levels(struct walk *w, size_t depth)
{
	bool any = false;
	size_t i;

	for (i = 0; i < depth; i++) {
		if (w->w[i].d == NULL)
			continue;
		w->w[i].pos = telldir(w->w[i].d);
		(void)closedir(w->w[i].d);
		w->w[i].d = NULL;
		any = true;
	}
	return any;
}

/*
 * Go down from the directory open as *FD, at DEPTH, into its entry NAME:
 * on success *FD is the child and DEPTH + 1 its level, and the parent's
 * listing is kept open or left as a position.
 * Return: 1 entered, 0 not entered (another mount, or vanished), or -errno.
 */
static int
descend(struct walk *w, int *fd, size_t depth, const char *name)
{
	struct level *l = &w->w[depth], *c = &w->w[depth + 1];
	long len;
	int cfd;

	if (depth + 1 > PLAT_MAX_DEPTH)
		return -ENAMETOOLONG;
	len = append_name(w, l->plen, name);
	if (len < 0)
		return (int)len;
	cfd = enter(w->root, *fd, name, &c->id);
	if (out_of_fds(cfd) && shed_levels(w, depth))
		cfd = enter(w->root, *fd, name, &c->id);
	if (cfd < 0) {
		w->path[l->plen] = '\0';
		return cfd == -EXDEV || cfd == -ENOENT ? 0 : cfd;
	}
	if (depth >= KEEP_LEVELS) {
		l->pos = telldir(l->d);
		(void)closedir(l->d);
		l->d = NULL;
	}
	plat_close(*fd);
	*fd = cfd;
	c->d = NULL;
	c->pos = -1;
	c->plen = (size_t)len;
	return 1;
}

/*
 * Walk beneath the directory open as *FD, the root, whose identity is in
 * W->w[0].  Return: 0, FN's nonzero answer, or -errno (listings may stay
 * open in W->w: see close_levels).
 */
static int
walk_tree(struct walk *w, int *fd)
{
	struct dirent *de;
	size_t depth = 0;
	long type;
	int r;

	for (;;) {
		struct level *l = &w->w[depth];

		if (l->d == NULL) {
			r = plat_listing_open(*fd, l->pos, &l->d);
			if (out_of_fds(r) && shed_levels(w, depth))
				r = plat_listing_open(*fd, l->pos, &l->d);
			if (r < 0)
				return r;
		}
		errno = 0;
		de = readdir(l->d);
		if (de == NULL) {
			if (errno != 0)
				return -errno;
			(void)closedir(l->d);
			l->d = NULL;
			if (depth == 0)
				return 0;
			r = plat_climb(fd, &w->w[depth - 1].id);
			if (out_of_fds(r) && shed_levels(w, depth))
				r = plat_climb(fd, &w->w[depth - 1].id);
			if (r < 0)
				return r;
			depth--;
			w->path[w->w[depth].plen] = '\0';
			continue;
		}
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		type = entry_type(*fd, de);
		if (type < 0)
			return (int)type;
		if (type == S_IFLNK) {
			r = give_link(w, *fd, l->plen, de->d_name);
			if (r != 0)
				return r;
		} else if (type == S_IFDIR) {
			r = descend(w, fd, depth, de->d_name);
			if (r < 0)
				return r;
			if (r == 1)
				depth++;
		}
	}
}

/* Close the listings left open in the levels of W. */
static void
close_levels(struct level *w)
{
	size_t i;

	for (i = 0; i <= PLAT_MAX_DEPTH; i++) {
		if (w[i].d != NULL)
			(void)closedir(w[i].d);
		w[i].d = NULL;
	}
}

/* see pfx_root.h */
int
pfx_root_list_links(const struct pfx_root *root,
    int (*fn)(void *arg, const char *rel, const char *target), void *arg)
{
	struct walk *w;
	int fd = -1, r;

	w = malloc(sizeof(*w));
	if (w == NULL)
		return -ENOMEM;
	w->root = root;
	w->fn = fn;
	w->arg = arg;
	w->path[0] = '\0';
	w->w = calloc(PLAT_MAX_DEPTH + 1, sizeof(*w->w));
	if (w->w == NULL) {
		free(w);
		return -ENOMEM;
	}
	fd = openat(root->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd == -1) {
		r = -errno;
		goto out;
	}
	r = plat_os_identify(fd, &w->w[0].id);
	if (r < 0)
		goto out;
	w->w[0].pos = -1;
	w->w[0].plen = 0;
	r = walk_tree(w, &fd);
out:
	close_levels(w->w);
	plat_close(fd);
	free(w->w);
	free(w);
	return r;
}
