/*
 * kept.c -- the directories kept open, one a depth, for the files and
 * directories made in them next.
 *
 * An archive lists a tree depth first: a directory, its files, its
 * subdirectories' entries, then perhaps more of its own.  Keeping one
 * directory a depth, the one last used there, serves all of them without
 * a lookup, and when the walk comes back up from a subtree its parent is
 * still kept.  Whether a kept directory may be used at all is the
 * platform's call (pfx_parent_cache in pfx_root.h): only under the
 * kernel's confinement to the root.  Reading thread only.
 */
#include <stdlib.h>
#include <string.h>

#include "extract.h"
#include "kept.h"
#include "platform.h"

/* see kept.h */
void
xtr_parents_init(struct xtr *x, unsigned int slots)
{
	memset(x->parents, 0, sizeof(x->parents));
	x->parent_slots = slots < XTR_PARENT_DEPTHS ? slots : XTR_PARENT_DEPTHS;
}

/* How deep a name's parent is: its slashes ("a/b" is in "a", depth 1). */
static size_t
depth_of(const char *rel)
{
	size_t n = 0;

	for (; *rel != '\0'; rel++)
		n += *rel == '/';
	return n;
}

/* The cache of depth D, made on first use; NULL where none is kept. */
static struct pfx_parent_cache *
cache_at(struct xtr *x, size_t d)
{
	struct pfx_parent_cache *c;

	if (x->parent_slots == 0)
		return NULL;
	if (d >= x->parent_slots)
		d = x->parent_slots - 1;
	c = x->parents[d];
	if (c == NULL) {
		/* Allocated when first needed: most archives are shallow. */
		c = malloc(sizeof(*c));
		if (c == NULL)
			return NULL;
		pfx_parent_cache_init(c);
		x->parents[d] = c;
	}
	return c;
}

/* see kept.h */
struct pfx_parent_cache *
xtr_parent_cache(struct xtr *x, const char *rel)
{
	return cache_at(x, depth_of(rel));
}

/* see kept.h */
void
xtr_keep_dir(struct xtr *x, const char *dir, int fd)
{
	/* DIR's names are one deeper than DIR's own. */
	plat_parent_cache_keep(&x->root, cache_at(x, depth_of(dir) + 1), dir,
	    fd);
}

/* see kept.h */
void
xtr_parents_drop(struct xtr *x)
{
	size_t i;

	for (i = 0; i < XTR_PARENT_DEPTHS; i++)
		if (x->parents[i] != NULL)
			pfx_parent_cache_drop(x->parents[i]);
}

/* see kept.h */
void
xtr_parents_free(struct xtr *x)
{
	size_t i;

	xtr_parents_drop(x);
	for (i = 0; i < XTR_PARENT_DEPTHS; i++) {
		free(x->parents[i]);
		x->parents[i] = NULL;
	}
}
