/*
 * linkcheck.h -- would this symlink stay beneath the destination?
 *
 * Used by --symlinks=contain.  Pure: no I/O, no allocation, no global
 * state, no errno.  It never looks at the filesystem itself; whether a path
 * is a symlink, and where it points, comes from the caller's LOOKUP, which
 * describes the tree as it will be once the archive's links exist (links
 * already on disk and links the archive will create).
 *
 * Threat model.  Every link target comes from the archive and is hostile.
 * A target is resolved the way the kernel resolves it: from the link's own
 * directory, and a ".." after a link climbs from where that link points,
 * not lexically (pax and GNU tar's "is there a .. in it" tests miss
 * d/l -> .. plus d/l2 -> l/.., where l2 resolves to the destination's
 * parent).  The rules are those of openat2(2) with RESOLVE_BENEATH from
 * the destination, so a link this module calls contained is one the kernel
 * would also open beneath the destination:
 *
 *   - an absolute target, at any depth of the chain, escapes, even one
 *     that would name a place inside the destination;
 *   - a ".." at the destination itself escapes at once, even if later
 *     components would lead back in ("../dest/x"): the destination's own
 *     name is never consulted;
 *   - empty components ("a//b", a trailing '/') and "." are skipped;
 *   - a component that is a symlink is replaced by its target, resolved
 *     from that link's directory; the last component is followed too;
 *   - a link reached before the path ends is expanded even if it points
 *     at a file: the kernel would fail with ENOTDIR, which is not an
 *     escape, so resolution simply goes on lexically from its target;
 *   - a path that does not exist is taken as it is spelled (LOOKUP says
 *     0), so dangling links are judged by where they would point;
 *   - at most XTR_LINK_MAX_FOLLOW links are followed in total, the link
 *     being checked counting as the first, as in the kernel: a chain of
 *     41 links, or a loop, is -ELOOP;
 *   - an empty target, from the link itself or from any link on the way,
 *     is never contained (Linux cannot even create one).
 *
 * In a root (LOOKUP->in_root, --symlinks=root), the rules are those of
 * RESOLVE_IN_ROOT instead: the destination is "/".  An absolute target
 * starts again at the destination, and ".." at the destination stays
 * there, so nothing climbs out; what is refused is an empty target, a
 * loop or a chain over 40, and any path reaching "proc/X/M" with M one of
 * root, cwd, exe, fd, map_files, ns, task: the magic links a consumer
 * that mounts /proc in the tree would jump through, out of it
 * (/proc/1/root from a chroot is the host's root).  "proc/self/mounts"
 * (Debian's /etc/mtab) is a file there, and stays allowed.
 *
 * What the caller must know.
 *   - LINK's own parent directories are taken to be real directories.
 *     pfextract refuses any entry whose path crosses a symlink, so this
 *     holds for every link it would create.
 *   - LINK itself is always taken to be a symlink to TARGET, whatever
 *     LOOKUP says of that path, so a target that passes through its own
 *     link loops (-ELOOP) even if LOOKUP does not know the link yet.
 *   - The answer is only as good as LOOKUP.  Adding a link to the set can
 *     turn a contained link into an escaping one (d/l2 -> l/.. is harmless
 *     while d/l is a directory).  Check every link against the full set of
 *     links that will exist; if some link is then refused and not created,
 *     take it out of the set and check the others again.
 *   - The remaining path (a link target with the unread rest of the path
 *     after it) is kept within PFX_PATH_MAX - 1 bytes; a longer one is
 *     -ENAMETOOLONG, which the kernel would often still resolve.  The
 *     caller treats every negative answer as a refusal, so this errs on
 *     the safe side.
 *
 * The function uses about 3 * PFX_PATH_MAX bytes of stack.
 *
 * Cost.  Without a memo, one resolution looks up at most every component
 * of up to XTR_LINK_MAX_FOLLOW + 1 paths of PFX_PATH_MAX bytes: tens of
 * thousands of lookups for targets like "x/../x/../...", and the same
 * again for every link whose resolution passes through that one.  With a
 * memo (struct xtr_link_memo) each link met is resolved once, and taken
 * in one step after that: a resolution costs the components of its own
 * target, plus one step per link it meets.
 */
#ifndef XTR_LINKCHECK_H
#define XTR_LINKCHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/pfx_path.h"

/*
 * The most symlinks followed in one resolution: Linux's MAXSYMLINKS, so
 * that a chain the kernel would refuse with ELOOP is refused here too.
 */
#define XTR_LINK_MAX_FOLLOW 40

/*
 * LOOKUP answers: is REL (a normalised relative path inside the
 * destination: no leading '/', no "." or ".." or empty components; "" is
 * the destination itself) a symlink -- either one already on disk or one
 * the archive will create?  If so, it copies the target into BUF (CAP
 * bytes, NUL-terminated) and returns 1.  It returns 0 if REL is not a
 * symlink or does not exist, or -errno.  A target that does not fit in CAP
 * bytes MUST be reported as -ENAMETOOLONG, never truncated (readlinkat(2)
 * truncates silently: a result of CAP or more is too long).  FN is called
 * with ARG; a NULL LOOKUP, or a NULL FN, means "no other symlinks exist".
 */
struct xtr_link_lookup {
	int (*fn)(void *arg, const char *rel, char *buf, size_t cap);
	void *arg;
	struct xtr_link_memo *memo;	/* NULL: no memo */
	uint64_t *steps;	/* NULL, or incremented once per path
				   looked up and once per link followed */
	bool in_root;		/* resolve in a root (below) */
};

/*
 * A symlink's own resolution, as xtr_link_contained() of that link
 * alone would give it: what a memo keeps, so that a resolution that meets
 * the link again takes it in one step instead of following it again.
 */
struct xtr_link_res {
	int r;			/* xtr_link_contained()'s answer */
	unsigned follows;	/* links followed when it ended, the link
				   itself first (XTR_LINK_MAX_FOLLOW + 1 for
				   -ELOOP) */
	size_t peak;		/* the longest remaining path it built */
	const char *resolved;	/* r == 1: where it leads, "" for the
				   destination */
};

/* A nested resolution's buffers (about 3 * PFX_PATH_MAX bytes). */
struct xtr_link_frame {
	char path[PFX_PATH_MAX];
	char rem[PFX_PATH_MAX];
	char body[PFX_PATH_MAX];
};

/*
 * A memo of resolutions, kept by the caller.  GET answers: is REL a
 * symlink whose own resolution is kept?  If so it fills RES (RES->resolved
 * staying valid until the next PUT) and returns 1, else 0.  PUT keeps
 * RES for the symlink REL; it may keep nothing.  The caller MUST keep
 * every entry true of the tree LOOKUP describes: when that changes (a
 * link is added or taken out of the set, or made or removed on disk),
 * every entry goes.  A symlink met whose resolution is not kept is
 * resolved alone first, in one of the NFRAMES FRAMES (nesting deeper
 * than NFRAMES follows the link in place, as without a memo), and PUT.
 * With a memo, LOOKUP MUST answer for LINK itself what the resolution
 * takes it to be: a symlink to TARGET.  The answers are exactly those
 * without a memo.
 */
struct xtr_link_memo {
	int (*get)(void *arg, const char *rel, struct xtr_link_res *res);
	void (*put)(void *arg, const char *rel, const struct xtr_link_res *res);
	void *arg;
	struct xtr_link_frame *frames;
	unsigned nframes;
};

/*
 * Would the symlink at LINK (the normalised relative path of the link
 * itself) with target TARGET stay beneath the destination when followed,
 * and when any path through it is followed?  TARGET is resolved from
 * LINK's directory by the rules above, asking LOOKUP about each path
 * reached.  LINK and TARGET MUST NOT be NULL; LOOKUP and RESOLVED may be.
 * Return:
 *   1              contained; if RESOLVED is not NULL, the final resolved
 *                  relative path ("" for the destination itself) is
 *                  written there (CAP bytes, NUL-terminated);
 *   0              escapes: absolute, climbs above the destination, or an
 *                  empty target on the way;
 *   -ELOOP         more than XTR_LINK_MAX_FOLLOW links (a loop or a long
 *                  chain);
 *   -ENAMETOOLONG  TARGET, a looked-up target, a component or the path
 *                  being built is too long (PFX_PATH_MAX, PFX_NAME_MAX), or
 *                  LINK is PFX_PATH_MAX bytes or longer;
 *   -EINVAL        LINK is not a normalised relative path, or is "";
 *   -ERANGE        contained, but the result does not fit in CAP bytes;
 *   other          LOOKUP's own negative answer, passed on.
 * Every negative answer MUST be treated as "do not create this link".
 */
int xtr_link_contained(const char *link, const char *target,
    const struct xtr_link_lookup *lookup, char *resolved, size_t cap);

#endif /* XTR_LINKCHECK_H */
