/*
 * path.c -- check and split a name relative to a root, and read the flags
 * that say whether an existing name may be replaced.
 *
 * The platform layer does not judge names: that is the decision core's
 * job.  It refuses outright the forms that could only be an escape, an
 * absolute name or a "..", so that a resolver never has to reason about
 * climbing at all.
 */
#include <errno.h>
#include <string.h>

#include "platform.h"

/* see platform.h */
int
plat_path_parse(const char *rel, struct plat_path *p)
{
	size_t i = 0, start, clen, n = 0, leaf_off = 0;

	p->full[0] = p->parent[0] = p->leaf[0] = '\0';
	if (rel[0] == '/')
		return -EXDEV;
	while (rel[i] != '\0') {
		while (rel[i] == '/')
			i++;
		start = i;
		while (rel[i] != '\0' && rel[i] != '/')
			i++;
		clen = i - start;
		if (clen == 0 || (clen == 1 && rel[start] == '.'))
			continue;
		if (clen == 2 && rel[start] == '.' && rel[start + 1] == '.')
			return -EXDEV;
		if (clen > PFX_NAME_MAX)
			return -ENAMETOOLONG;
		if (n + clen + 1 >= sizeof(p->full))
			return -ENAMETOOLONG;
		if (n > 0)
			p->full[n++] = '/';
		leaf_off = n;
		memcpy(p->full + n, rel + start, clen);
		n += clen;
	}
	p->full[n] = '\0';
	if (n == 0)
		return 0;
	memcpy(p->leaf, p->full + leaf_off, n - leaf_off + 1);
	if (leaf_off > 0) {
		memcpy(p->parent, p->full, leaf_off - 1);
		p->parent[leaf_off - 1] = '\0';
	}
	return 0;
}

/* see platform.h */
int
plat_replace_flags(unsigned int flags)
{
	if (flags == 0 || flags == PFX_ROOT_NOREPLACE)
		return 0;
	if (flags == PFX_ROOT_REPLACE)
		return 1;
	return -EINVAL;
}
