/*
 * inroot.c -- resolve a directory name in a root used as a root
 * filesystem (pfx_root_in_root()), by hand, as openat2's RESOLVE_IN_ROOT
 * would: for kernels without openat2, for the walk resolver, and to make
 * what is missing on the way with either.
 *
 * Threat model: as the walk in resolve.c -- anyone may rename, replace or
 * symlink anything beneath the root while we walk -- and every symlink
 * met is hostile.  So:
 *   - every component is opened alone, from the descriptor of the one
 *     before, with O_NOFOLLOW|O_DIRECTORY, and must be on the root's
 *     mount: a symlink is never followed by the kernel;
 *   - a symlink met is read with readlinkat(2) from that same descriptor
 *     and its target put in front of what is left of the name; an
 *     absolute target starts again from the pinned root's descriptor;
 *   - ".." pops the stack of directories held on the way down, and at the
 *     root stays there: ".." is never opened by name, so a directory
 *     moved away meanwhile cannot lead us above where we came from;
 *   - at most PLAT_IN_ROOT_FOLLOW links are followed per name, as the
 *     kernel's 40 (ELOOP), and the name being built never exceeds
 *     PFX_PATH_MAX bytes (ENAMETOOLONG);
 *   - the descriptor returned is checked to be still beneath the root
 *     (beneath.c): one held may have been moved out mid-walk.
 * Descriptors held: one per directory level of the resolved name, at
 * most PLAT_MAX_DEPTH (a deeper name is -ENAMETOOLONG).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "platform.h"

/* Linux's MAXSYMLINKS: a chain the kernel refuses is refused here. */
#define PLAT_IN_ROOT_FOLLOW 40

/* The remaining name lives at the end of its buffer, as in linkcheck.c. */
#define REM_END (PFX_PATH_MAX - 1)

struct inroot {
	const struct pfx_root *root;
	int *fds;		/* fds[0] the root; fds[depth] where we are */
	size_t depth;
	char rem[PFX_PATH_MAX];
	size_t off;		/* rem[off .. REM_END) is still to read */
	char target[PFX_PATH_MAX];
	unsigned follows;
};

/* Close every held directory but the root's. */
static void
pop_to(struct inroot *w, size_t depth)
{
	while (w->depth > depth)
		plat_close(w->fds[w->depth--]);
}

/*
 * Put the target of the symlink NAME of the directory we are in in front
 * of the remaining name.  Return: 1 if NAME is a symlink, 0 if not, or
 * -errno (-ELOOP: too many links; -ENAMETOOLONG).
 */
static int
follow(struct inroot *w, const char *name)
{
	ssize_t n;
	size_t need;

	n = readlinkat(w->fds[w->depth], name, w->target, sizeof(w->target));
	if (n == -1)
		return errno == EINVAL ? 0 : -errno;
	/* SECURITY: readlinkat(2) truncates silently; never use that. */
	if ((size_t)n >= sizeof(w->target))
		return -ENAMETOOLONG;
	if (n == 0)
		return -ENOENT;		/* as the kernel says of "" */
	if (++w->follows > PLAT_IN_ROOT_FOLLOW)
		return -ELOOP;
	need = (size_t)n + (w->off < REM_END ? 1 : 0);
	if (need > w->off)
		return -ENAMETOOLONG;
	if (w->off < REM_END)
		w->rem[--w->off] = '/';
	w->off -= (size_t)n;
	memcpy(w->rem + w->off, w->target, (size_t)n);
	/* SECURITY: "/" is the root, never the host's. */
	if (w->target[0] == '/')
		pop_to(w, 0);
	return 1;
}

/*
 * Go down into NAME of the directory we are in, making it with MK's mode
 * (the leaf's if nothing follows) if it is missing, following it if it is
 * a symlink.  Return: 0, or -errno.
 */
static int
step_in(struct inroot *w, const char *name, const struct plat_mkmode *mk,
    unsigned int *created)
{
	int fd, r;

	if (w->depth + 1 > PLAT_MAX_DEPTH)
		return -ENAMETOOLONG;
	fd = plat_step(w->root, w->fds[w->depth], name, PLAT_DIR_SEARCH);
	if (fd == -ENOENT && mk != NULL)
		fd = plat_make_new_dir(w->root, w->fds[w->depth], "", name,
		    w->off < REM_END ? mk->parents : mk->leaf,
		    PLAT_DIR_SEARCH, created);
	if (fd == -ELOOP || fd == -ENOTDIR) {
		r = follow(w, name);
		if (r != 0)
			return r < 0 ? r : 0;
		return fd;
	}
	if (fd < 0)
		return fd;
	w->fds[++w->depth] = fd;
	return 0;
}

/* Walk W's remaining name.  Return: 0, or -errno. */
static int
walk(struct inroot *w, const struct plat_mkmode *mk, unsigned int *created)
{
	char comp[PFX_NAME_MAX + 1];
	const char *c;
	size_t n;
	int r;

	/*
	 * Each step consumes a component, and the name grows only when a
	 * link is followed, at most PLAT_IN_ROOT_FOLLOW times: bounded.
	 */
	while (w->off < REM_END) {
		c = w->rem + w->off;
		n = strcspn(c, "/");
		w->off += n;
		while (w->off < REM_END && w->rem[w->off] == '/')
			w->off++;
		if (n == 0 || (n == 1 && c[0] == '.'))
			continue;
		if (n == 2 && c[0] == '.' && c[1] == '.') {
			if (w->depth > 0)
				pop_to(w, w->depth - 1);
			continue;
		}
		if (n > PFX_NAME_MAX)
			return -ENAMETOOLONG;
		memcpy(comp, c, n);
		comp[n] = '\0';
		r = step_in(w, comp, mk, created);
		if (r < 0)
			return r;
	}
	return 0;
}

/* see platform.h */
int
plat_walk_in_root(const struct pfx_root *root, const char *dir, int how,
    const struct plat_mkmode *mk, unsigned int *created)
{
	struct inroot *w;
	size_t n;
	int fd, r;

	n = strlen(dir);
	if (n > REM_END)
		return -ENAMETOOLONG;
	w = malloc(sizeof(*w));
	if (w == NULL)
		return -ENOMEM;
	w->fds = malloc((PLAT_MAX_DEPTH + 1) * sizeof(*w->fds));
	if (w->fds == NULL) {
		free(w);
		return -ENOMEM;
	}
	w->root = root;
	w->depth = 0;
	w->follows = 0;
	w->fds[0] = root->fd;	/* borrowed: never closed */
	w->off = REM_END - n;
	memcpy(w->rem + w->off, dir, n);
	w->rem[REM_END] = '\0';
	r = walk(w, mk, created);
	fd = -1;
	if (r == 0) {
		/* Where we are, opened as asked (the stack holds O_PATH). */
		fd = openat(w->fds[w->depth], ".", (how == PLAT_DIR_READ ?
		    O_RDONLY : plat_os_search_flag()) | O_DIRECTORY |
		    O_CLOEXEC);
		r = fd == -1 ? -errno : 0;
	}
	pop_to(w, 0);
	free(w->fds);
	free(w);
	if (r < 0)
		return r;
	/* SECURITY: a directory on the way may have been moved out. */
	r = plat_check_beneath(root, fd);
	if (r < 0) {
		plat_close(fd);
		return r;
	}
	return fd;
}
