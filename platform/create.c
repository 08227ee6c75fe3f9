/*
 * create.c -- make new things beneath the root: directories, regular
 * files, and hard links.
 *
 * SECURITY: nothing that existed before is ever opened for writing.  A new
 * file is created with O_CREAT|O_EXCL|O_NOFOLLOW, so an existing name of
 * any kind -- a symlink to /etc/passwd, a hard link to a file outside --
 * makes the call fail rather than be written through.  Replacing a name is
 * done by creating a new file under a temporary name and renaming it over
 * the old one, which replaces the old directory entry without opening it.
 *
 * A file written in full before it is named (pfx_root_begin) is made with
 * no name at all where the system can (O_TMPFILE) and linked at its name
 * when complete: one directory change instead of two (a create and a
 * rename), and nothing to remove if the run stops half-way.
 *
 * After each effect the parent directory is checked to still lie beneath
 * the root (beneath.c); if it was moved out while we worked, the effect is
 * undone and the call fails with -EXDEV.  Where the kernel confines us to
 * the root it refuses such an effect itself, with EACCES; the same check,
 * made only then (plat_confined_error), turns that into -EXDEV too.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "platform.h"

#define FILE_CREATE_FLAGS (O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | \
    O_NOCTTY | O_CLOEXEC)

/* The parent's path is kept in a pending file for the check at commit,
 * and in a parent cache to know it again. */
_Static_assert(sizeof(((struct pfx_pending *)0)->dir) >= PFX_PATH_MAX,
    "pfx_pending.dir holds any parent path");
_Static_assert(sizeof(((struct pfx_parent_cache *)0)->dir) >= PFX_PATH_MAX,
    "pfx_parent_cache.dir holds any parent path");

/* splitmix64's finaliser: every input bit reaches every output bit. */
static uint64_t
mix64(uint64_t v)
{
	v = (v ^ (v >> 30)) * 0xbf58476d1ce4e5b9ULL;
	v = (v ^ (v >> 27)) * 0x94d049bb133111ebULL;
	return v ^ (v >> 31);
}

/* see platform.h */
int
plat_temp_name(char *name, size_t cap, int attempt, const void *salt)
{
	static const char hex[] = "0123456789abcdef";
	struct timespec now;
	uint64_t v;
	size_t i;
	int r;

	if (cap < 26)
		return -ENAMETOOLONG;
	if (attempt == 0 && clock_gettime(CLOCK_MONOTONIC, &now) == 0) {
		v = (uint64_t)now.tv_sec * 1000000000u +
		    (uint64_t)now.tv_nsec;
		v = mix64(v ^ mix64((uint64_t)(uintptr_t)salt));
	} else {
		r = plat_os_random(&v, sizeof(v));
		if (r < 0)
			return r;
	}
	memcpy(name, ".pfx-", 5);
	for (i = 0; i < 16; i++)
		name[5 + i] = hex[(v >> (60 - 4 * i)) & 0xf];
	memcpy(name + 21, ".tmp", 5);
	return 0;
}

/*
 * Remove DIRFD/NAME if it is still the inode open as FD: undoing our own
 * effect must never remove something someone else put there since.
 */
static void
unlink_if_same(int dirfd, const char *name, int fd)
{
	struct stat a, b;

	if (fstat(fd, &a) == 0 &&
	    fstatat(dirfd, name, &b, AT_SYMLINK_NOFOLLOW) == 0 &&
	    a.st_dev == b.st_dev && a.st_ino == b.st_ino)
		(void)unlinkat(dirfd, name, 0);
}

/* Parse REL, which must name something other than the root. */
static int
parse_leaf(const char *rel, struct plat_path *p)
{
	int r;

	r = plat_path_parse(rel, p);
	if (r < 0)
		return r;
	if (p->leaf[0] == '\0')
		return -EEXIST;	/* the root itself always exists */
	return 0;
}

/* see pfx_root.h */
int
pfx_root_mkdirs(const struct pfx_root *root, const char *rel, mode_t mode)
{
	return pfx_root_mkdirs_count(root, rel, mode, NULL);
}

/* see pfx_root.h */
int
pfx_root_mkdirs_count(const struct pfx_root *root, const char *rel,
    mode_t mode, unsigned int *created)
{
	struct plat_mkmode mk = { mode, mode };

	return plat_mkdirs_modes(root, rel, &mk, created);
}

/* see platform.h */
int
plat_mkdirs_modes(const struct pfx_root *root, const char *rel,
    const struct plat_mkmode *mk, unsigned int *created)
{
	struct plat_path p;
	unsigned int made = 0;
	int fd, r;

	if (created != NULL)
		*created = 0;
	r = plat_path_parse(rel, &p);
	if (r < 0)
		return r;
	fd = plat_resolve_dir(root, p.full, PLAT_DIR_READ);
	if (fd != -ENOENT)
		return fd;
	/*
	 * Most often only the last is missing: one lookup of its parent.
	 * In a root the last may be a link to follow: the walk does that.
	 */
	if (p.leaf[0] != '\0' && !root->in_root) {
		fd = plat_make_leaf_dir(root, p.parent, p.leaf, mk->leaf,
		    PLAT_DIR_READ, &made);
		if (fd != -ENOENT) {
			if (created != NULL)
				*created = made;
			return fd;
		}
	}
	/* More is missing: go one component at a time. */
	fd = plat_walk(root, p.full, PLAT_DIR_READ, mk, &made);
	if (created != NULL)
		*created = made;
	return fd;
}

/* see pfx_root.h */
int
pfx_root_symlink(const struct pfx_root *root, const char *target,
    const char *rel)
{
	return pfx_root_symlink_flags(root, target, rel, PFX_ROOT_NOREPLACE);
}

/*
 * Make the symlink NAME -> TARGET in DIRFD, replacing an existing
 * non-directory: made under a temporary name in the same directory and
 * renamed over NAME, all through DIRFD, so nothing is looked up again.
 * Return: 0, or -errno (and no temporary is left).
 */
static int
symlink_replacing(int dirfd, const char *target, const char *name)
{
	struct stat made, now;
	char tmp[32];
	int i, r = -EEXIST;

	for (i = 0; i < PLAT_TEMP_TRIES && r == -EEXIST; i++) {
		r = plat_temp_name(tmp, sizeof(tmp), i, tmp);
		if (r < 0)
			return r;
		r = symlinkat(target, dirfd, tmp) == -1 ? -errno : 0;
	}
	if (r < 0)
		return r;
	if (fstatat(dirfd, tmp, &made, AT_SYMLINK_NOFOLLOW) == -1)
		made.st_ino = 0;
	if (renameat(dirfd, tmp, dirfd, name) == 0)
		return 0;
	r = -errno;
	/* Remove the temporary, if it is still the link we made. */
	if (made.st_ino != 0 &&
	    fstatat(dirfd, tmp, &now, AT_SYMLINK_NOFOLLOW) == 0 &&
	    now.st_ino == made.st_ino && now.st_dev == made.st_dev)
		(void)unlinkat(dirfd, tmp, 0);
	return r;
}

/* see pfx_root.h */
int
pfx_root_symlink_flags(const struct pfx_root *root, const char *target,
    const char *rel, unsigned int flags)
{
	struct plat_path p;
	struct stat made, now;
	int pfd, r, replace;

	replace = plat_replace_flags(flags);
	if (replace < 0)
		return replace;
	if (target[0] == '\0')
		return -EINVAL;	/* no system makes an empty link */
	r = parse_leaf(rel, &p);
	if (r < 0)
		return r;
	pfd = plat_resolve_dir(root, p.parent, PLAT_DIR_SEARCH);
	if (pfd < 0)
		return pfd;
	r = symlinkat(target, pfd, p.leaf) == -1 ? -errno : 0;
	if (r == -EEXIST && replace == 1)
		r = symlink_replacing(pfd, target, p.leaf);
	if (r < 0) {
		r = plat_confined_error(root, pfd, r);
		plat_close(pfd);
		return r;
	}
	if (fstatat(pfd, p.leaf, &made, AT_SYMLINK_NOFOLLOW) == -1)
		made.st_ino = 0;
	r = plat_check_beneath_at(root, pfd, p.parent);
	if (r < 0 && made.st_ino != 0 &&
	    fstatat(pfd, p.leaf, &now, AT_SYMLINK_NOFOLLOW) == 0 &&
	    now.st_ino == made.st_ino && now.st_dev == made.st_dev)
		(void)unlinkat(pfd, p.leaf, 0);
	plat_close(pfd);
	return r;
}

/* see pfx_root.h */
int
pfx_root_create(const struct pfx_root *root, const char *rel, mode_t mode)
{
	struct plat_path p;
	int pfd, fd, r;

	r = parse_leaf(rel, &p);
	if (r < 0)
		return r;
	pfd = plat_resolve_dir(root, p.parent, PLAT_DIR_SEARCH);
	if (pfd < 0)
		return pfd;
	fd = openat(pfd, p.leaf, FILE_CREATE_FLAGS, mode);
	if (fd == -1) {
		r = plat_confined_error(root, pfd, -errno);
		plat_close(pfd);
		return r;
	}
	r = plat_check_beneath_at(root, pfd, p.parent);
	if (r < 0) {
		unlink_if_same(pfd, p.leaf, fd);
		plat_close(fd);
		fd = r;
	}
	plat_close(pfd);
	return fd;
}

/*
 * A directory descriptor shared by the parent cache and the pending files
 * begun through it, closed by whichever lets it go last.  Sharing it
 * spares each file a dup(2) and a close(2), and half its descriptors.
 */
struct pfx_dirref {
	atomic_uint refs;
	int fd;
};

/* Let REF go: the last one closes the descriptor. */
static void
dirref_put(struct pfx_dirref *ref)
{
	/* acq_rel: every use of the fd by another holder is before the
	 * close. */
	if (ref != NULL && atomic_fetch_sub_explicit(&ref->refs, 1,
	    memory_order_acq_rel) == 1) {
		plat_close(ref->fd);
		free(ref);
	}
}

/* Release what *PEND holds. */
static void
pending_release(struct pfx_pending *pend)
{
	plat_close(pend->fd);
	if (pend->dirref != NULL)
		dirref_put(pend->dirref);
	else
		plat_close(pend->dirfd);
	pend->fd = -1;
	pend->dirfd = -1;
	pend->dirref = NULL;
}

/* see pfx_root.h */
void
pfx_parent_cache_init(struct pfx_parent_cache *cache)
{
	cache->ref = NULL;
	cache->dir[0] = '\0';
}

/* see pfx_root.h */
void
pfx_parent_cache_drop(struct pfx_parent_cache *cache)
{
	dirref_put(cache->ref);
	pfx_parent_cache_init(cache);
}

/* Make CACHE hold FD (owned) as directory DIR.  Return: 0, or -ENOMEM. */
static int
cache_keep(struct pfx_parent_cache *cache, const char *dir, int fd)
{
	struct pfx_dirref *ref;

	ref = malloc(sizeof(*ref));
	if (ref == NULL) {
		plat_close(fd);
		return -ENOMEM;
	}
	atomic_init(&ref->refs, 1);
	ref->fd = fd;
	pfx_parent_cache_drop(cache);
	cache->ref = ref;
	memcpy(cache->dir, dir, strlen(dir) + 1);
	return 0;
}

/*
 * May ROOT's directories be kept in a cache and used again without a new
 * look?  SECURITY: only under the kernel's confinement to the root: if a
 * kept directory was moved out since, Landlock refuses what is made in it
 * (an open, a link, a mkdir), at that moment.  Without it, each name's
 * parent is resolved beneath the root at the time of use.  Not in a root
 * (--symlinks=root), whose lookups follow links inside it.
 */
static bool
keeps_parents(const struct pfx_root *root)
{
	return root->kernel_confined && !root->in_root;
}

/*
 * Make CACHE hold directory DIR beneath ROOT: resolved now unless CACHE
 * holds it already, which *KEPT says.  Return: CACHE's descriptor (owned
 * by CACHE), or -errno.
 */
static int
cache_hold(const struct pfx_root *root, struct pfx_parent_cache *cache,
    const char *dir, bool *kept)
{
	int fd, r;

	*kept = cache->ref != NULL && strcmp(cache->dir, dir) == 0;
	if (*kept)
		return cache->ref->fd;
	fd = plat_resolve_dir(root, dir, PLAT_DIR_SEARCH);
	if (fd < 0)
		return fd;
	r = cache_keep(cache, dir, fd);
	return r < 0 ? r : cache->ref->fd;
}

/*
 * Give PEND directory DIR beneath ROOT: CACHE's, shared, when it holds
 * DIR and may be used, else resolved (and then kept in CACHE when it may
 * be), or resolved for PEND alone.  *KEPT says whether it was found in
 * CACHE, kept from an earlier call, rather than resolved now.
 * Return: 0, or -errno.
 */
static int
parent_fd(const struct pfx_root *root, struct pfx_parent_cache *cache,
    const char *dir, struct pfx_pending *pend, bool *kept)
{
	int fd;

	*kept = false;
	if (cache == NULL || !keeps_parents(root)) {
		fd = plat_resolve_dir(root, dir, PLAT_DIR_SEARCH);
		if (fd < 0)
			return fd;
		pend->dirfd = fd;
		return 0;
	}
	fd = cache_hold(root, cache, dir, kept);
	if (fd < 0)
		return fd;
	atomic_fetch_add_explicit(&cache->ref->refs, 1, memory_order_relaxed);
	pend->dirref = cache->ref;
	pend->dirfd = fd;
	return 0;
}

/* see platform.h */
void
plat_parent_cache_keep(const struct pfx_root *root,
    struct pfx_parent_cache *cache, const char *dir, int fd)
{
	if (cache == NULL || !keeps_parents(root) ||
	    strlen(dir) >= sizeof(cache->dir))
		plat_close(fd);
	else
		(void)cache_keep(cache, dir, fd);	/* closes FD if not */
}

/*
 * plat_mkdirs_kept() where only REL's last component may be missing: made
 * in REL's parent as CACHE holds it, or as resolved now and then kept.
 */
static int
mkdir_in_kept(const struct pfx_root *root, struct pfx_parent_cache *cache,
    const struct plat_path *p, mode_t mode, unsigned int *created)
{
	bool kept;
	int dirfd, fd;

	dirfd = cache_hold(root, cache, p->parent, &kept);
	if (dirfd < 0)
		return dirfd;
	fd = plat_make_new_dir(root, dirfd, p->parent, p->leaf, mode,
	    PLAT_DIR_READ, created);
	/*
	 * As in begin(): a kept parent that fails (removed, or moved out
	 * since) is let go and the name looked up once more, so the result
	 * is the one a lookup now gives.
	 */
	if (fd < 0 && kept) {
		pfx_parent_cache_drop(cache);
		dirfd = cache_hold(root, cache, p->parent, &kept);
		if (dirfd < 0)
			return dirfd;
		fd = plat_make_new_dir(root, dirfd, p->parent, p->leaf, mode,
		    PLAT_DIR_READ, created);
	}
	return fd;
}

/* see platform.h */
int
plat_mkdirs_kept(const struct pfx_root *root, struct pfx_parent_cache *cache,
    const char *rel, const struct plat_mkmode *mk, unsigned int *created)
{
	struct plat_path p;
	unsigned int made = 0;
	int fd;

	*created = 0;
	if (cache == NULL || !keeps_parents(root) || parse_leaf(rel, &p) < 0)
		return plat_mkdirs_modes(root, rel, mk, created);
	fd = mkdir_in_kept(root, cache, &p, mk->leaf, &made);
	if (fd < 0)
		pfx_parent_cache_drop(cache);
	/* A parent is missing too: the walk makes what is. */
	if (fd == -ENOENT)
		return plat_mkdirs_modes(root, rel, mk, created);
	*created = made;
	return fd;
}

/*
 * Make PEND's file, with MODE, in PEND's directory (pend->dirfd): with no
 * name where the root's filesystem can, else under a fresh temporary one.
 * Return: 0, or -errno (and PEND is released).
 */
static int
open_pending(const struct pfx_root *root, struct pfx_pending *pend,
    mode_t mode)
{
	int i, r;

	pend->tmp[0] = '\0';
	if (root->unnamed) {
		r = plat_os_open_unnamed(pend->dirfd, mode);
		if (r >= 0) {
			pend->fd = r;
			return 0;
		}
		if (r != -ENOTSUP)
			goto fail;
		/* Not in this directory after all: name it, as below. */
	}
	r = -EEXIST;
	for (i = 0; i < PLAT_TEMP_TRIES && r == -EEXIST; i++) {
		r = plat_temp_name(pend->tmp, sizeof(pend->tmp), i, pend);
		if (r < 0)
			break;
		pend->fd = openat(pend->dirfd, pend->tmp, FILE_CREATE_FLAGS,
		    mode);
		r = pend->fd == -1 ? -errno : 0;
	}
	if (r == 0)
		return 0;
fail:
	r = plat_confined_error(root, pend->dirfd, r);
	pending_release(pend);
	return r;
}

/* pfx_root_begin_cached(), but for the cache's cleanup on failure. */
static int
begin(const struct pfx_root *root, struct pfx_parent_cache *cache,
    const char *rel, mode_t mode, struct pfx_pending *pend)
{
	struct plat_path p;
	bool kept;
	int r;

	pend->fd = -1;
	pend->dirfd = -1;
	pend->dirref = NULL;
	r = parse_leaf(rel, &p);
	if (r < 0)
		return r;
	memcpy(pend->name, p.leaf, sizeof(pend->name));
	memcpy(pend->dir, p.parent, strlen(p.parent) + 1);
	r = parent_fd(root, cache, p.parent, pend, &kept);
	if (r < 0)
		return r;
	r = open_pending(root, pend, mode);
	/*
	 * The kept parent failed: moved out of the root since it was kept,
	 * or removed (and perhaps made again).  A root without a cache
	 * would have looked the name up now, and found what is there now
	 * (nothing, or another directory): so do we, once, rather than
	 * report a change this file never saw.
	 */
	if (r < 0 && kept) {
		pfx_parent_cache_drop(cache);
		r = parent_fd(root, cache, p.parent, pend, &kept);
		if (r == 0)
			r = open_pending(root, pend, mode);
	}
	return r;
}

/* see pfx_root.h */
int
pfx_root_begin(const struct pfx_root *root, const char *rel, mode_t mode,
    struct pfx_pending *pend)
{
	return pfx_root_begin_cached(root, NULL, rel, mode, pend);
}

/* see pfx_root.h */
int
pfx_root_begin_cached(const struct pfx_root *root,
    struct pfx_parent_cache *cache, const char *rel, mode_t mode,
    struct pfx_pending *pend)
{
	int r;

	r = begin(root, cache, rel, mode, pend);
	if (r < 0 && cache != NULL)
		pfx_parent_cache_drop(cache);
	return r;
}

/*
 * How pfx_root_commit() and pfx_root_link() treat a taken name, from
 * FLAGS: 0 fail, 1 replace, 2 replace unless a symlink
 * (PFX_ROOT_REPLACE_FILE), or -EINVAL.
 */
static int
replace_mode(unsigned int flags)
{
	return flags == PFX_ROOT_REPLACE_FILE ? 2 : plat_replace_flags(flags);
}

/*
 * Is NAME in DIRFD a symlink?  Asked only once NAME proved taken.  A
 * name that cannot be looked at counts as one: the caller then judges
 * the removal of a symlink, which is the cautious way to be wrong.
 */
static bool
holds_symlink(int dirfd, const char *name)
{
	struct stat st;

	return fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == -1 ||
	    S_ISLNK(st.st_mode);
}

/*
 * Is PEND's parent still beneath ROOT, right before a commit replaces
 * what its name holds?  0, -EXDEV, or -errno.
 * SECURITY: the parent was resolved when PEND was begun, and may have
 * been moved out of the root while its data was written -- for as long
 * as whoever feeds the archive likes.  A name replaced is a removal,
 * which the check after the commit cannot undo (it undoes only what the
 * commit made); so, as remove.c does before each removal, prove first,
 * and leave only the moment between the proof and the call.
 */
static int
pending_beneath(const struct pfx_root *root, const struct pfx_pending *pend)
{
	return plat_check_beneath_at(root, pend->dirfd, pend->dir);
}

/* Link FD at a temporary name in DIRFD, then rename it over NAME. */
static int
link_replacing(int fd, int dirfd, const char *name)
{
	char tmp[32];
	int i, r = -EEXIST;

	for (i = 0; i < PLAT_TEMP_TRIES && r == -EEXIST; i++) {
		r = plat_temp_name(tmp, sizeof(tmp), i, tmp);
		if (r < 0)
			return r;
		r = plat_os_link_fd(fd, dirfd, tmp);
	}
	if (r < 0)
		return r;
	if (renameat(dirfd, tmp, dirfd, name) == -1)
		r = -errno;
	/*
	 * If NAME was already a link to the same inode, rename(2) succeeds
	 * and does nothing, leaving TMP behind: remove it in every case.
	 */
	unlink_if_same(dirfd, tmp, fd);
	return r;
}

/*
 * Give the unnamed file of PEND, begun beneath ROOT, its name: a link,
 * which fails with EEXIST where the name is taken; with MODE
 * (replace_mode) 1, a link at a temporary name renamed over it then;
 * with 2, the same unless the name holds a symlink
 * (PFX_ROOT_SYMLINK_HELD).
 */
static int
name_unnamed(const struct pfx_root *root, struct pfx_pending *pend,
    int mode)
{
	int r;

	r = plat_os_link_fd(pend->fd, pend->dirfd, pend->name);
	if (r == -EEXIST && mode == 2 &&
	    holds_symlink(pend->dirfd, pend->name))
		return PFX_ROOT_SYMLINK_HELD;
	if (r == -EEXIST && mode != 0) {
		r = pending_beneath(root, pend);
		if (r == 0)
			r = link_replacing(pend->fd, pend->dirfd, pend->name);
	}
	return r;
}

/* As name_unnamed(), for a file PEND made under a temporary name. */
static int
rename_pending(const struct pfx_root *root, struct pfx_pending *pend,
    int mode)
{
	int r;

	r = plat_os_rename_noreplace(pend->dirfd, pend->tmp, pend->dirfd,
	    pend->name);
	if (r != -EEXIST || mode == 0)
		return r;
	if (mode == 2 && holds_symlink(pend->dirfd, pend->name))
		return PFX_ROOT_SYMLINK_HELD;
	r = pending_beneath(root, pend);
	if (r < 0)
		return r;
	return renameat(pend->dirfd, pend->tmp, pend->dirfd,
	    pend->name) == -1 ? -errno : 0;
}

/* see pfx_root.h */
int
pfx_root_commit(const struct pfx_root *root, struct pfx_pending *pend,
    unsigned int flags)
{
	int r;

	r = replace_mode(flags);
	if (r >= 0 && pend->tmp[0] == '\0')
		r = name_unnamed(root, pend, r);
	else if (r >= 0)
		r = rename_pending(root, pend, r);
	/* Nothing done: the caller commits again or aborts. */
	if (r == PFX_ROOT_SYMLINK_HELD)
		return r;
	if (r < 0) {
		/* Begun beneath the root, named in a directory moved out? */
		r = plat_confined_error(root, pend->dirfd, r);
		if (pend->tmp[0] != '\0')
			unlink_if_same(pend->dirfd, pend->tmp, pend->fd);
		pending_release(pend);
		return r;
	}
	r = plat_check_beneath_at(root, pend->dirfd, pend->dir);
	if (r < 0)
		unlink_if_same(pend->dirfd, pend->name, pend->fd);
	pending_release(pend);
	return r;
}

/* see pfx_root.h */
void
pfx_root_abort(struct pfx_pending *pend)
{
	if (pend->fd >= 0 && pend->dirfd >= 0 && pend->tmp[0] != '\0')
		unlink_if_same(pend->dirfd, pend->tmp, pend->fd);
	pending_release(pend);
}

/*
 * For a hard link to FD at REL: FD must be a regular file on the root's
 * filesystem.  Parse REL into *P and open its parent beneath ROOT.
 * Return: the parent's descriptor, or -errno.
 */
static int
link_parent(const struct pfx_root *root, int fd, const char *rel,
    struct plat_path *p)
{
	struct stat st;
	int r;

	if (fstat(fd, &st) == -1)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	if (st.st_dev != root->dev)
		return -EXDEV;
	r = parse_leaf(rel, p);
	if (r < 0)
		return r;
	return plat_resolve_dir(root, p->parent, PLAT_DIR_SEARCH);
}

/* see pfx_root.h */
int
pfx_root_link(const struct pfx_root *root, int fd, const char *rel,
    unsigned int flags)
{
	struct plat_path p;
	int pfd, r, replace;

	replace = replace_mode(flags);
	if (replace < 0)
		return replace;
	pfd = link_parent(root, fd, rel, &p);
	if (pfd < 0)
		return pfd;
	if (replace == 1) {
		r = link_replacing(fd, pfd, p.leaf);
	} else {
		r = plat_os_link_fd(fd, pfd, p.leaf);
		if (r == -EEXIST && replace == 2) {
			if (holds_symlink(pfd, p.leaf)) {
				plat_close(pfd);
				return PFX_ROOT_SYMLINK_HELD;
			}
			r = link_replacing(fd, pfd, p.leaf);
		}
	}
	if (r == 0) {
		r = plat_check_beneath_at(root, pfd, p.parent);
		if (r < 0)
			unlink_if_same(pfd, p.leaf, fd);
	} else {
		r = plat_confined_error(root, pfd, r);
	}
	plat_close(pfd);
	return r;
}

/*
 * Judge NAME in DIRFD for a name to be made beside it, under MODE
 * (replace_mode): what it holds now goes in OUT->had.
 * Return: 0, PFX_ROOT_SYMLINK_HELD, -EEXIST, -EISDIR, or -errno.
 */
static int
judge_final(int dirfd, const char *name, int mode, struct pfx_beside *out)
{
	struct stat st;

	out->had = 0;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == -1)
		return errno == ENOENT ? 0 : -errno;
	out->had = st.st_mode & S_IFMT;
	out->had_dev = st.st_dev;
	out->had_ino = st.st_ino;
	if (mode == 0)
		return -EEXIST;
	/* SECURITY: a directory never changes type: refused, not swapped. */
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (mode == 2 && S_ISLNK(st.st_mode))
		return PFX_ROOT_SYMLINK_HELD;
	return 0;
}

/*
 * Link FD at a fresh temporary name in DIRFD (OUT->tmp), after noting
 * the directory's identity and mtime, and the file's identity.
 * Return: 0, or -errno (nothing left).
 */
static int
link_beside(int fd, int dirfd, struct pfx_beside *out)
{
	struct stat st;
	int i, r = -EEXIST;

	if (fstat(dirfd, &st) == -1)
		return -errno;
	out->dir_dev = st.st_dev;
	out->dir_ino = st.st_ino;
	out->dir_mtime = st.st_mtim;
	if (fstat(fd, &st) == -1)
		return -errno;
	out->dev = st.st_dev;
	out->ino = st.st_ino;
	for (i = 0; i < PLAT_TEMP_TRIES && r == -EEXIST; i++) {
		r = plat_temp_name(out->tmp, sizeof(out->tmp), i, out);
		if (r < 0)
			return r;
		r = plat_os_link_fd(fd, dirfd, out->tmp);
	}
	return r;
}

/* see pfx_root.h */
int
pfx_root_commit_beside(const struct pfx_root *root, struct pfx_pending *pend,
    unsigned int flags, struct pfx_beside *out)
{
	struct stat st = { 0 };
	int r;

	memset(out, 0, sizeof(*out));
	r = replace_mode(flags);
	if (r >= 0)
		r = judge_final(pend->dirfd, pend->name, r, out);
	if (r == PFX_ROOT_SYMLINK_HELD)
		return r;	/* nothing done: commit again or abort */
	if (r == 0 && pend->tmp[0] == '\0') {
		r = link_beside(pend->fd, pend->dirfd, out);
	} else if (r == 0) {
		/* Made under a temporary name already: it stays there. */
		memcpy(out->tmp, pend->tmp, sizeof(out->tmp));
		pend->tmp[0] = '\0';	/* no longer the pending file's */
		r = fstat(pend->dirfd, &st) == -1 ? -errno : 0;
		out->dir_dev = st.st_dev;
		out->dir_ino = st.st_ino;
		out->dir_mtime = st.st_mtim;
		if (r == 0)
			r = fstat(pend->fd, &st) == -1 ? -errno : 0;
		out->dev = st.st_dev;
		out->ino = st.st_ino;
		if (r < 0)
			unlink_if_same(pend->dirfd, out->tmp, pend->fd);
	}
	if (r == 0) {
		r = plat_check_beneath_at(root, pend->dirfd, pend->dir);
		if (r < 0)
			unlink_if_same(pend->dirfd, out->tmp, pend->fd);
	} else {
		r = plat_confined_error(root, pend->dirfd, r);
	}
	pfx_root_abort(pend);
	return r;
}

/* see pfx_root.h */
int
pfx_root_link_beside(const struct pfx_root *root, int fd, const char *rel,
    unsigned int flags, struct pfx_beside *out)
{
	struct plat_path p;
	int pfd, r, mode;

	memset(out, 0, sizeof(*out));
	mode = replace_mode(flags);
	if (mode < 0)
		return mode;
	pfd = link_parent(root, fd, rel, &p);
	if (pfd < 0)
		return pfd;
	r = judge_final(pfd, p.leaf, mode, out);
	if (r == 0)
		r = link_beside(fd, pfd, out);
	if (r == 0) {
		r = plat_check_beneath_at(root, pfd, p.parent);
		if (r < 0)
			unlink_if_same(pfd, out->tmp, fd);
	} else if (r != PFX_ROOT_SYMLINK_HELD) {
		r = plat_confined_error(root, pfd, r);
	}
	plat_close(pfd);
	return r;
}
