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
#include <stdbool.h>
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

/*
 * The names under /proc/PID/ (and /proc/PID/task/TID/) that are magic
 * links: the kernel jumps through them to an object, not a path --
 * another process's root or cwd, an open file -- so a consumer that
 * mounts /proc in the tree (a chroot, a container) leaves the tree there.
 */
static const char *const magic_names[] = {
	"root", "cwd", "exe", "fd", "map_files", "ns", "task"
};

/*
 * Is PATH (PLEN bytes, normalised) "proc/X/M" or beneath it, with M a
 * magic name above?  "proc/self/mounts" is not: a file, read as one.
 */
static bool
magic_proc(const char *path, size_t plen)
{
	const char *c, *m;
	size_t i, n;

	if (plen < 5 || memcmp(path, "proc/", 5) != 0)
		return false;
	c = memchr(path + 5, '/', plen - 5);
	if (c == NULL)
		return false;
	m = c + 1;
	n = strcspn(m, "/");
	for (i = 0; i < sizeof(magic_names) / sizeof(magic_names[0]); i++)
		if (strlen(magic_names[i]) == n &&
		    memcmp(magic_names[i], m, n) == 0)
			return true;
	return false;
}

/* One resolution and the ones nested in it for the memo. */
struct rctx {
	const struct xtr_link_lookup *lookup;
	struct xtr_link_memo *memo;	/* NULL: none */
	const char *root;		/* the link being checked, and */
	const char *root_target;	/* its target */
	size_t root_len;
	unsigned depth;			/* nested resolutions under way */
	const char *busy[XTR_LINK_MAX_FOLLOW + 1];	/* their links */
};

/* Count one step, if the caller counts. */
static void
step(const struct rctx *rc)
{
	if (rc->lookup != NULL && rc->lookup->steps != NULL)
		(*rc->lookup->steps)++;
}

/* Is LINK (LEN bytes) one of the links being resolved right now? */
static bool
busy(const struct rctx *rc, const char *link, size_t len)
{
	unsigned i;

	for (i = 0; i <= rc->depth; i++)
		if (strncmp(rc->busy[i], link, len) == 0 &&
		    rc->busy[i][len] == '\0')
			return true;
	return false;
}

/*
 * Ask LOOKUP whether PATH is a symlink, its target into BODY
 * (PFX_PATH_MAX bytes); a lookup's own error clears *KEEP.
 * Return: 1, 0, or -errno (-ENAMETOOLONG: a target not terminated).
 */
static int
read_target(const struct xtr_link_lookup *lookup, const char *path,
    char *body, bool *keep)
{
	int r;

	r = lookup->fn(lookup->arg, path, body, PFX_PATH_MAX);
	if (r < 0)
		*keep = false;
	if (r == 1 && memchr(body, '\0', PFX_PATH_MAX) == NULL)
		return -ENAMETOOLONG;
	return r;
}

/*
 * Resolve LINK (LINKLEN bytes, checked) with target TARGET, in the
 * buffers PATH, REM and BODY (PFX_PATH_MAX bytes each), filling RES
 * (RES->resolved is PATH).  *KEEP is cleared if the answer depends on
 * something a memo must not keep: a lookup's own error, or the link
 * being checked taken as a symlink whatever LOOKUP says.
 * Return: as xtr_link_contained().
 */
static int
resolve(struct rctx *rc, const char *link, size_t linklen,
    const char *target, char *path, char *rem, char *body,
    struct xtr_link_res *res, bool *keep)
{
	/*
	 * PATH is the resolved prefix: "" is the destination, and every
	 * component in it but the one just pushed is a real directory (a
	 * symlink is never left on it), so ".." is a plain pop.
	 */
	const struct xtr_link_lookup *lookup = rc->lookup;
	struct xtr_link_frame *fr;
	struct xtr_link_res sub;
	const char *c, *lt;
	size_t base, plen, saved, off, next, n, need, blen, extra, rlen;
	unsigned follows;
	bool known, fetched, subkeep;
	int r;

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
	res->peak = 0;
	res->resolved = path;

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
			if (plen == 0) {
				/* In a root, ".." at the top is the top. */
				if (lookup != NULL && lookup->in_root)
					continue;
				r = 0;
				goto out;
			}
			pop_component(path, &plen);
			continue;
		}
		if (n > PFX_NAME_MAX) {
			r = -ENAMETOOLONG;
			goto out;
		}
		need = plen + (plen > 0 ? 1 : 0) + n;
		if (need >= PFX_PATH_MAX) {
			r = -ENAMETOOLONG;
			goto out;
		}

		saved = plen;
		if (plen > 0)
			path[plen++] = '/';
		memcpy(path + plen, c, n);
		plen += n;
		path[plen] = '\0';
		/* SECURITY: in a root, never towards a magic link. */
		if (lookup != NULL && lookup->in_root &&
		    magic_proc(path, plen)) {
			r = 0;
			goto out;
		}

		/*
		 * Is the path so far a symlink?  LINK always is, and so is
		 * the link being checked, whatever LOOKUP says.
		 */
		known = false;
		fetched = true;
		if (plen == linklen && memcmp(path, link, linklen) == 0) {
			lt = target;
		} else if (plen == rc->root_len &&
		    memcmp(path, rc->root, plen) == 0) {
			lt = rc->root_target;
			*keep = false;
		} else {
			if (lookup == NULL || lookup->fn == NULL)
				continue;
			step(rc);
			fetched = false;
			if (rc->memo != NULL &&
			    rc->memo->get(rc->memo->arg, path, &sub) == 1) {
				known = true;
				subkeep = true;
			} else {
				fetched = true;
				r = read_target(lookup, path, body, keep);
				if (r < 0)
					goto out;
				if (r == 0)
					continue;
				/* Resolve it alone first, for the memo. */
				if (rc->memo != NULL &&
				    rc->depth < rc->memo->nframes &&
				    rc->depth < XTR_LINK_MAX_FOLLOW &&
				    !busy(rc, path, plen)) {
					fr = &rc->memo->frames[rc->depth++];
					rc->busy[rc->depth] = path;
					subkeep = true;
					sub.r = resolve(rc, path, plen, body,
					    fr->path, fr->rem, fr->body, &sub,
					    &subkeep);
					rc->depth--;
					if (subkeep)
						rc->memo->put(rc->memo->arg,
						    path, &sub);
					known = true;
				}
			}
			lt = body;
		}

		/*
		 * Its own resolution is known: take it in one step, unless
		 * the remaining path after it could make a difference that
		 * the memo does not record (which of two limits comes
		 * first), in which case follow it as without a memo.
		 */
		extra = off < REM_END ? REM_END - off + 1 : 0;
		if (known && sub.peak + extra <= REM_END) {
			step(rc);
			if (!subkeep)
				*keep = false;
			if (follows + sub.follows > XTR_LINK_MAX_FOLLOW) {
				follows = XTR_LINK_MAX_FOLLOW + 1;
				r = -ELOOP;
				goto out;
			}
			follows += sub.follows;
			if (sub.r != 1) {
				r = sub.r;
				goto out;
			}
			if (sub.peak + extra > res->peak)
				res->peak = sub.peak + extra;
			rlen = strlen(sub.resolved);
			memmove(path, sub.resolved, rlen + 1);
			plen = rlen;
			continue;
		}
		/* Known from the memo alone: its target is still to read. */
		if (known && !fetched) {
			r = read_target(lookup, path, body, keep);
			if (r < 0)
				goto out;
			if (r == 0)
				continue;
		}

		step(rc);
		follows++;
		if (follows > XTR_LINK_MAX_FOLLOW) {
			r = -ELOOP;
			goto out;
		}

		/*
		 * SECURITY: an empty target is never contained, nor an
		 * absolute one -- except in a root, where "/" is the top.
		 */
		if (lt[0] == '\0' || (lt[0] == '/' &&
		    (lookup == NULL || !lookup->in_root))) {
			r = 0;
			goto out;
		}

		/*
		 * The target is read from the link's own directory, in front
		 * of whatever was left after the link's name; an absolute one
		 * from the top.
		 */
		plen = lt[0] == '/' ? 0 : saved;
		path[plen] = '\0';
		blen = strnlen(lt, PFX_PATH_MAX);
		need = blen + (off < REM_END ? 1 : 0);
		if (need > off) {
			r = -ENAMETOOLONG;
			goto out;
		}
		if (off < REM_END)
			rem[--off] = '/';
		off -= blen;
		memcpy(rem + off, lt, blen);
		if (REM_END - off > res->peak)
			res->peak = REM_END - off;
	}
	r = 1;
out:
	res->r = r;
	res->follows = follows;
	return r;
}

/* see linkcheck.h */
int
xtr_link_contained(const char *link, const char *target,
    const struct xtr_link_lookup *lookup, char *resolved, size_t cap)
{
	char path[PFX_PATH_MAX];
	char rem[PFX_PATH_MAX];
	char body[PFX_PATH_MAX];
	struct xtr_link_res res;
	struct rctx rc;
	size_t linklen, plen;
	bool keep;
	int r;

	linklen = strnlen(link, PFX_PATH_MAX);
	if (linklen == PFX_PATH_MAX)
		return -ENAMETOOLONG;
	r = check_link_path(link, linklen);
	if (r != 0)
		return r;
	memset(&rc, 0, sizeof(rc));
	rc.lookup = lookup;
	rc.memo = lookup != NULL && lookup->fn != NULL ? lookup->memo : NULL;
	if (rc.memo != NULL && (rc.memo->frames == NULL ||
	    rc.memo->nframes == 0))
		rc.memo = NULL;
	rc.root = link;
	rc.root_target = target;
	rc.root_len = linklen;
	rc.busy[0] = link;
	keep = true;
	r = resolve(&rc, link, linklen, target, path, rem, body, &res, &keep);
	if (rc.memo != NULL && keep)
		rc.memo->put(rc.memo->arg, link, &res);
	if (r != 1)
		return r;
	if (resolved != NULL) {
		plen = strlen(path);
		if (plen >= cap)
			return -ERANGE;
		memcpy(resolved, path, plen + 1);
	}
	return 1;
}
