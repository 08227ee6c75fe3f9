/*
 * linkcheck.c -- resolve a symlink's target the way the kernel would,
 * against the tree the caller describes, and say whether it stays beneath
 * the destination.  The rules and the threat model are in linkcheck.h.
 *
 * The resolver is musl's realpath() turned inside out: no recursion and no
 * allocation, two fixed buffers.  One is the stack of components resolved
 * so far; the other is the remaining path, itself a stack of components:
 * each step pops the next one, and a symlink pushes its target back on top
 * of what is left.
 */
#include <errno.h>
#include <string.h>

#include "../core/pfx_path.h"
#include "linkcheck.h"

/*
 * The remaining path lives at the end of its buffer, rem[off .. REM_END),
 * with its NUL at rem[REM_END], so a link target is pushed in front of it
 * with one memcpy.  It holds at most PFX_PATH_MAX - 1 bytes, the longest
 * symlink target Linux stores.
 */
#define REM_END (PFX_PATH_MAX - 1)

/*
 * Is LINK (LEN bytes) a normalised relative path: not empty, no leading or
 * trailing '/', no empty, "." or ".." component, none longer than
 * PFX_NAME_MAX bytes?
 * Return: 0 if so, -EINVAL, or -ENAMETOOLONG for a long component.
 */
static int
check_link_path(const char *link, size_t len)
{
	const char *c;
	size_t i, n;

	if (len == 0)
		return -EINVAL;
	for (i = 0;; i += n + 1) {
		c = link + i;
		n = strcspn(c, "/");
		if (n == 0)
			return -EINVAL;
		if (n == 1 && c[0] == '.')
			return -EINVAL;
		if (n == 2 && c[0] == '.' && c[1] == '.')
			return -EINVAL;
		if (n > PFX_NAME_MAX)
			return -ENAMETOOLONG;
		if (c[n] == '\0')
			return 0;
	}
}

/* Drop the last component of PATH (*LEN bytes), keeping it NUL-terminated. */
static void
pop_component(char *path, size_t *len)
{
	size_t n;

	n = *len;
	while (n > 0 && path[n - 1] != '/')
		n--;
	*len = n > 0 ? n - 1 : 0;
	path[*len] = '\0';
}

/* see linkcheck.h */
int
xtr_link_contained(const char *link, const char *target,
    const struct xtr_link_lookup *lookup, char *resolved, size_t cap)
{
	/*
	 * PATH is the resolved prefix: "" is the destination, and every
	 * component in it but the one just pushed is a real directory (a
	 * symlink is never left on it), so ".." is a plain pop.
	 */
	char path[PFX_PATH_MAX];
	char rem[PFX_PATH_MAX];
	char body[PFX_PATH_MAX];
	const char *c, *lt;
	size_t linklen, base, plen, saved, off, next, n, need, blen;
	int follows, r;

	linklen = strnlen(link, PFX_PATH_MAX);
	if (linklen == PFX_PATH_MAX)
		return -ENAMETOOLONG;
	r = check_link_path(link, linklen);
	if (r != 0)
		return r;

	/*
	 * Start in LINK's directory with LINK's own name still to read, so
	 * that following LINK itself is an ordinary step, and counts as the
	 * first of XTR_LINK_MAX_FOLLOW as it does in the kernel.
	 */
	base = linklen;
	while (base > 0 && link[base - 1] != '/')
		base--;
	plen = base > 0 ? base - 1 : 0;
	memcpy(path, link, plen);
	path[plen] = '\0';
	n = linklen - base;
	off = REM_END - n;
	memcpy(rem + off, link + base, n);
	rem[REM_END] = '\0';
	follows = 0;

	/*
	 * Each step consumes at least one byte of the remaining path, which
	 * grows only when a link is followed, at most XTR_LINK_MAX_FOLLOW
	 * times by less than PFX_PATH_MAX bytes: the loop is bounded.
	 */
	while (off < REM_END) {
		c = rem + off;
		n = strcspn(c, "/");
		next = off + n;
		while (next < REM_END && rem[next] == '/')
			next++;
		off = next;

		if (n == 0 || (n == 1 && c[0] == '.'))
			continue;
		if (n == 2 && c[0] == '.' && c[1] == '.') {
			/*
			 * SECURITY: ".." at the destination escapes, even if
			 * later components would lead back in, as with
			 * RESOLVE_BENEATH.
			 */
			if (plen == 0)
				return 0;
			pop_component(path, &plen);
			continue;
		}
		if (n > PFX_NAME_MAX)
			return -ENAMETOOLONG;
		need = plen + (plen > 0 ? 1 : 0) + n;
		if (need >= PFX_PATH_MAX)
			return -ENAMETOOLONG;

		saved = plen;
		if (plen > 0)
			path[plen++] = '/';
		memcpy(path + plen, c, n);
		plen += n;
		path[plen] = '\0';

		/* Is the path so far a symlink?  LINK always is. */
		if (plen == linklen && memcmp(path, link, linklen) == 0) {
			lt = target;
		} else {
			if (lookup == NULL || lookup->fn == NULL)
				continue;
			r = lookup->fn(lookup->arg, path, body, sizeof(body));
			if (r < 0)
				return r;
			if (r == 0)
				continue;
			if (memchr(body, '\0', sizeof(body)) == NULL)
				return -ENAMETOOLONG;
			lt = body;
		}

		follows++;
		if (follows > XTR_LINK_MAX_FOLLOW)
			return -ELOOP;

		/* SECURITY: an empty or absolute target is never contained. */
		if (lt[0] == '\0' || lt[0] == '/')
			return 0;

		/*
		 * The target is read from the link's own directory, in front
		 * of whatever was left after the link's name.
		 */
		plen = saved;
		path[plen] = '\0';
		blen = strnlen(lt, PFX_PATH_MAX);
		need = blen + (off < REM_END ? 1 : 0);
		if (need > off)
			return -ENAMETOOLONG;
		if (off < REM_END)
			rem[--off] = '/';
		off -= blen;
		memcpy(rem + off, lt, blen);
	}

	if (resolved != NULL) {
		if (plen >= cap)
			return -ERANGE;
		memcpy(resolved, path, plen + 1);
	}
	return 1;
}
