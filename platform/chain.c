/*
 * chain.c -- one branch of the root's tree held open, for a pass that
 * removes many directories, each after everything beneath it.
 *
 * Removing a directory by its name from the root resolves the name
 * again: O(its depth) in the kernel, so a chain of d directories costs
 * O(d^2) to remove one by one.  Given the directories in an order where a
 * directory's descendants come together and before it (keys in
 * descending order, '/' below every other byte), the directories on the
 * way are opened once, from the one above, and kept while the pass is
 * beneath them: each directory then costs O(1) steps.
 *
 * SECURITY: a descriptor pins an inode, not a place, so a chain is only
 * made for a root the kernel confines (pfx_root_confined(): Landlock),
 * which refuses the removal itself in a directory moved out of the root
 * since it was opened, at the moment of the call; its EACCES becomes
 * -EXDEV.  Every step is opened with O_NOFOLLOW|O_DIRECTORY on the root's
 * mount (plat_step()): no symlink is followed, no mount crossed.  With
 * any other root there is no chain, and the caller removes by name.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "platform.h"

/*
 * Levels held at most: past them the shallowest is let go, and found
 * again from the root when the pass comes back up to it.  Bounds the
 * descriptors held; a chain deeper than this costs one more walk from the
 * root per this many levels.
 */
#define CHAIN_LEVELS 32

struct plat_chain {
	const struct pfx_root *root;
	uint64_t steps;			/* directories opened, ever */
	size_t n;			/* levels held */
	size_t len[CHAIN_LEVELS];	/* level i is path[0 .. len[i]) */
	int fd[CHAIN_LEVELS];
	char path[PFX_PATH_MAX];	/* the deepest level's name */
};

/* see platform.h */
struct plat_chain *
plat_chain_new(const struct pfx_root *root)
{
	struct plat_chain *c;

	if (!root->kernel_confined || root->in_root)
		return NULL;
	c = calloc(1, sizeof(*c));
	if (c != NULL)
		c->root = root;
	return c;
}

/* see platform.h */
void
plat_chain_free(struct plat_chain *c)
{
	if (c == NULL)
		return;
	while (c->n > 0)
		plat_close(c->fd[--c->n]);
	free(c);
}

/* see platform.h */
uint64_t
plat_chain_steps(const struct plat_chain *c)
{
	return c->steps;
}

/* Is the level of LEN bytes DIR itself or a directory above it? */
static bool
holds_above(const struct plat_chain *c, size_t len, const char *dir,
    size_t dirlen)
{
	return len <= dirlen && memcmp(c->path, dir, len) == 0 &&
	    (dir[len] == '\0' || dir[len] == '/');
}

/* Hold FD as the level of LEN bytes, letting the shallowest go if full. */
static void
push(struct plat_chain *c, size_t len, int fd)
{
	if (c->n == CHAIN_LEVELS) {
		plat_close(c->fd[0]);
		memmove(c->len, c->len + 1, (CHAIN_LEVELS - 1) * sizeof(*c->len));
		memmove(c->fd, c->fd + 1, (CHAIN_LEVELS - 1) * sizeof(*c->fd));
		c->n--;
	}
	c->len[c->n] = len;
	c->fd[c->n++] = fd;
}

/*
 * The directory DIR ("" the root) open, from the deepest level held above
 * it, each missing level opened from the one above.  The descriptor is
 * the chain's.  Return: it, or -errno.
 */
static int
hold(struct plat_chain *c, const char *dir)
{
	size_t dirlen = strlen(dir), at, end;
	char comp[PFX_NAME_MAX + 1];
	int fd;

	if (dirlen >= sizeof(c->path))
		return -ENAMETOOLONG;
	while (c->n > 0 && !holds_above(c, c->len[c->n - 1], dir, dirlen))
		plat_close(c->fd[--c->n]);
	at = c->n > 0 ? c->len[c->n - 1] : 0;
	fd = c->n > 0 ? c->fd[c->n - 1] : c->root->fd;
	memcpy(c->path, dir, dirlen + 1);
	while (at < dirlen) {
		if (dir[at] == '/')
			at++;
		end = at;
		while (end < dirlen && dir[end] != '/')
			end++;
		if (end == at || end - at > PFX_NAME_MAX)
			return -EINVAL;
		memcpy(comp, dir + at, end - at);
		comp[end - at] = '\0';
		fd = plat_step(c->root, fd, comp, PLAT_DIR_SEARCH);
		if (fd < 0)
			return fd;
		c->steps++;
		push(c, end, fd);
		at = end;
	}
	return fd;
}

/* see platform.h */
int
plat_chain_rmdir(struct plat_chain *c, const char *rel,
    const struct plat_id *id)
{
	struct plat_path p;
	struct stat st;
	int pfd, r;

	r = plat_path_parse(rel, &p);
	if (r < 0)
		return r;
	if (p.leaf[0] == '\0')
		return -EBUSY;	/* the root itself */
	pfd = hold(c, p.parent);
	if (pfd < 0)
		return pfd;
	if (id != NULL) {
		if (fstatat(pfd, p.leaf, &st, AT_SYMLINK_NOFOLLOW) == -1)
			return -errno;
		if (!S_ISDIR(st.st_mode) || st.st_dev != id->dev ||
		    st.st_ino != id->ino)
			return -ESTALE;
	}
	if (unlinkat(pfd, p.leaf, AT_REMOVEDIR) == -1)
		return plat_confined_error(c->root, pfd, -errno);
	return 0;
}
