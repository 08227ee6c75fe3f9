/*
 * pfx_root.h -- a pinned directory beneath which every output is made.
 *
 * Conventions.  Every function returns a file descriptor or 0 on success
 * and a negative errno value on failure; global errno carries no meaning
 * afterwards, and nothing is printed.  Descriptors returned are O_CLOEXEC
 * and owned by the caller; descriptors passed in are borrowed, never
 * closed.  Pointer arguments MUST NOT be NULL.  A struct pfx_root is
 * filled by pfx_root_open() and released by pfx_root_close(); its fields
 * are private.  A root holds no mutable state after opening, so one root
 * may be used by several threads at once.
 *
 * Paths.  REL arguments are relative to the root: components separated by
 * '/', empty and "." components ignored.  An absolute REL or a ".."
 * component is refused with -EXDEV before anything is touched (the
 * decision core, pfx_path.h, is where such names get a verdict).  "" and
 * "." name the root itself where a directory is expected.
 *
 * Guarantees, for both resolvers:
 *  - every name is resolved beneath the pinned directory fd, never through
 *    a symlink (-ELOOP), never across a mount point (-EXDEV), never above
 *    the root (-EXDEV);
 *  - nothing that existed before a call is opened for writing, truncated,
 *    chmod'ed or written through by it: files are created with O_EXCL, and
 *    an existing name is replaced by renaming a new file over it;
 *  - a directory moved out of the root while a call works in it is noticed
 *    after the effect: what the call made there is removed again and the
 *    call fails with -EXDEV; under pfx_root_confined() the kernel refuses
 *    the effect instead, and the call fails with -EXDEV all the same.
 *
 * Errors keep one meaning each: -ELOOP a symlink where none may be;
 * -EXDEV an escape (absolute, "..", mount crossing, moved out of the
 * root); -ENOTDIR a non-directory where a directory is needed; -EEXIST the
 * name exists and may not be replaced; -ENOENT a missing parent;
 * -ENOSYS the requested resolver is not available here.
 */
#ifndef PFX_ROOT_H
#define PFX_ROOT_H

#include <sys/stat.h>
#include <stdbool.h>
#include <sys/types.h>
#include <time.h>

#ifndef PFX_API
#define PFX_API __attribute__((visibility("default")))
#endif

enum pfx_resolver {
	PFX_RESOLVER_AUTO = 0,	/* openat2 where the kernel has it, else walk */
	PFX_RESOLVER_OPENAT2,	/* Linux 5.6+ openat2(RESOLVE_BENEATH|...) */
	PFX_RESOLVER_WALK	/* one openat(O_NOFOLLOW) per component */
};

struct pfx_root {
	int fd;				/* private: the pinned directory */
	enum pfx_resolver resolver;	/* private: never AUTO once open */
	dev_t dev;			/* private: identity of the root */
	ino_t ino;
	unsigned long long mnt;		/* private: its mount, 0 if unknown */
	int kernel_confined;		/* private: see pfx_root_confined() */
	int unnamed;			/* private: files begin unnamed */
	int in_root;			/* private: see pfx_root_in_root() */
};

/*
 * Flags of pfx_root_commit(), pfx_root_link() and pfx_root_rename(): what
 * to do when the new name exists.  Exactly one, or 0, which is the same as
 * PFX_ROOT_NOREPLACE; any other value gives -EINVAL.
 */
#define PFX_ROOT_REPLACE   0x1u	/* replace it, by rename(2) */
#define PFX_ROOT_NOREPLACE 0x2u	/* fail with -EEXIST (the default) */

/*
 * For pfx_root_commit() and pfx_root_link() only: replace an existing
 * non-directory as PFX_ROOT_REPLACE does, unless it is a symbolic link;
 * then nothing is done and the call returns PFX_ROOT_SYMLINK_HELD, so
 * that the caller can judge what removing that link would change
 * (--symlinks=contain) and call again with PFX_ROOT_REPLACE, or give up.
 * The name's type is asked only once the name proved taken, so this
 * costs no system call where the name is new.  What the name holds can
 * change before the second call; a caller MUST judge as if a symlink
 * were removed, whatever is replaced then.
 */
#define PFX_ROOT_REPLACE_FILE 0x8u
#define PFX_ROOT_SYMLINK_HELD 1

/*
 * A regular file being written, to appear at its final name only when
 * pfx_root_commit() succeeds: until then it has no name at all (Linux's
 * O_TMPFILE), or a temporary one where the filesystem cannot do that.
 * Fields are private except fd, the descriptor to write to (owned by the
 * pending file).
 */
struct pfx_dirref;		/* private: a parent shared by pending files */

struct pfx_pending {
	int fd;			/* write here */
	int dirfd;		/* private */
	struct pfx_dirref *dirref;	/* private: DIRFD's owner, if shared */
	char tmp[32];		/* private */
	char name[256];		/* private */
	char dir[4096];		/* private: the parent, as resolved */
};

/*
 * Pin PATH (resolved from DIRFD, which may be AT_FDCWD) as a root.  The
 * last component of PATH may not be a symlink (-ELOOP); PATH itself is
 * trusted: it is the caller's choice of destination.  HOW picks the
 * resolver; PFX_RESOLVER_OPENAT2 fails with -ENOSYS where the kernel lacks
 * it.  To pin a directory the caller already holds, pass its fd and ".".
 * Return: 0, or -errno.
 */
PFX_API int pfx_root_open(struct pfx_root *root, int dirfd, const char *path,
    enum pfx_resolver how);

/*
 * Tell ROOT that the kernel now refuses this process (every thread) any
 * change outside ROOT's own directory: pfx_sandbox_confine() was given
 * ROOT's fd and reported the filesystem confined (info.fs).  From then on
 * the check that follows each effect -- is the directory we acted in
 * still beneath the root? -- is left to the kernel, which refuses an
 * effect in a directory moved out before it happens (Landlock judges
 * where a directory is at the moment of each call) instead of undoing it
 * after.  The kernel says EACCES then, as for a directory we may not
 * write to; a call that meets EACCES looks where its directory is, and
 * fails with -EXDEV if it is outside the root (with -EACCES otherwise),
 * as it would unconfined.  MUST NOT be called in any other case.  A root
 * made from this one by pfx_root_sub() does not inherit it.
 */
PFX_API void pfx_root_confined(struct pfx_root *root);

/*
 * Use ROOT as a root filesystem (--symlinks=root): from now on a symlink
 * met on the way to a name's parent directory -- and in a name given
 * where a directory is expected (pfx_root_mkdirs(), pfx_root_open_dir())
 * -- is followed as the kernel follows it for a process whose "/" is
 * ROOT: an absolute target starts again at ROOT, ".." at ROOT stays
 * there (openat2's RESOLVE_IN_ROOT), at most 40 links per name, never a
 * magic link (/proc/PID/root and the like) nor a mount crossing.  Every
 * other guarantee above holds: the last component of a name is never
 * followed when something is made, replaced or removed there, and
 * nothing resolved leaves ROOT.  The walk resolver does the same by
 * hand: one component at a time with O_NOFOLLOW, reading each symlink
 * met and going back up ".." only to a directory it holds.  A root made
 * by pfx_root_sub() does not inherit this.
 */
PFX_API void pfx_root_in_root(struct pfx_root *root);

/* Release ROOT.  Safe to call twice. */
PFX_API void pfx_root_close(struct pfx_root *root);

/* Return: the resolver ROOT uses, "openat2" or "walk". */
PFX_API const char *pfx_root_resolver_name(const struct pfx_root *root);

/*
 * Pin the existing directory REL beneath PARENT as SUB, with the same
 * resolver.  SUB keeps every guarantee of PARENT: it is reached without
 * symlinks or mount crossings, and nothing resolved beneath SUB can leave
 * it.  Return: 0, or -errno.
 */
PFX_API int pfx_root_sub(const struct pfx_root *parent, const char *rel,
    struct pfx_root *sub);

/*
 * Open the existing directory REL ("" for the root) for reading, e.g. to
 * list it with fdopendir(3) or to set its mode and times through the fd.
 * Return: a descriptor (O_RDONLY|O_DIRECTORY|O_CLOEXEC), or -errno.
 */
PFX_API int pfx_root_open_dir(const struct pfx_root *root, const char *rel);

/*
 * Open the existing regular file REL for reading.  A directory gives
 * -EISDIR, any other non-regular file -EINVAL; a FIFO or device is never
 * opened in a way that could block or have side effects.
 * Return: a descriptor (O_RDONLY|O_CLOEXEC), or -errno.
 */
PFX_API int pfx_root_open_read(const struct pfx_root *root, const char *rel);

/*
 * Open the existing regular file REL only to know it (fstat(2)) and to
 * link it (pfx_root_link()), refused as pfx_root_open_read() refuses:
 * with O_PATH where there is one, so that a file its owner may not read
 * (mode 0000 or 0200, as an archive may give it) can still be linked, as
 * link(2) asks no right to read; elsewhere as pfx_root_open_read().
 * Return: a descriptor, or -errno.
 */
PFX_API int pfx_root_open_file(const struct pfx_root *root, const char *rel);

/*
 * Make directory REL and any missing parents, like mkdir -p; new
 * directories get MODE (before umask).  Existing directories are reused; an
 * existing symlink on the way is never followed (-ELOOP) and an existing
 * non-directory gives -ENOTDIR.
 * Return: a descriptor of directory REL (as pfx_root_open_dir()), or -errno.
 */
PFX_API int pfx_root_mkdirs(const struct pfx_root *root, const char *rel,
    mode_t mode);

/*
 * As pfx_root_mkdirs(), and set *CREATED (if not NULL) to how many
 * components of REL this call made: always the last *CREATED ones, since
 * once one is missing every later one is new -- unless someone else puts
 * a directory in one just made, or a link in a root (pfx_root_in_root())
 * leads out of one.  A directory another moved to a name right after it
 * was made there is not counted (the call fails, -ENOENT, or uses it as
 * one that was there): the descriptor returned is of the very directory
 * made, where *CREATED > 0.
 */
PFX_API int pfx_root_mkdirs_count(const struct pfx_root *root,
    const char *rel, mode_t mode, unsigned int *created);

/*
 * Create the new regular file REL with MODE (before umask), exclusively:
 * an existing name of any kind, symlinks included, gives -EEXIST and is
 * left alone.  The parent must exist.
 * Return: a descriptor open for writing (O_WRONLY|O_CLOEXEC), or -errno.
 */
PFX_API int pfx_root_create(const struct pfx_root *root, const char *rel,
    mode_t mode);

/*
 * Begin writing a new regular file that will become REL: a file with MODE
 * is created in REL's parent, which must exist, without a name, or under
 * a fresh temporary one (".pfx-*.tmp") where that cannot be done.  Write
 * to pend->fd, then pfx_root_commit() or pfx_root_abort().
 * Return: 0, or -errno (and *PEND needs no cleanup).
 */
PFX_API int pfx_root_begin(const struct pfx_root *root, const char *rel,
    mode_t mode, struct pfx_pending *pend);

/*
 * The parent directory of the last file begun through it, kept open for
 * the next file begun in the same directory: an archive holds a
 * directory's files together, and each then costs no lookup.  SECURITY:
 * a descriptor pins an inode, not a place; it is only kept for a root the
 * kernel confines (pfx_root_confined()), which refuses at the moment of
 * the call a file made in a directory moved out of the root since.  With
 * any other root it holds nothing and every file is looked up afresh.
 * One owner, one thread.  Drop it (pfx_parent_cache_drop()) whenever the
 * tree may have changed other than by files begun through it.  The files
 * begun through it share its descriptor rather than each holding a copy;
 * the sharing is counted, so each may be committed or aborted on any
 * thread, before or after the cache is dropped.
 */
struct pfx_parent_cache {
	struct pfx_dirref *ref;		/* private */
	char dir[4096];			/* private: the parent's path */
};

/* Make *CACHE empty.  Drop it when done. */
PFX_API void pfx_parent_cache_init(struct pfx_parent_cache *cache);

/* Close what *CACHE holds, leaving it empty. */
PFX_API void pfx_parent_cache_drop(struct pfx_parent_cache *cache);

/*
 * As pfx_root_begin(), taking REL's parent from *CACHE when it holds it,
 * and leaving it there for the next call.  A kept parent that fails
 * (moved out of the root since, or removed) is let go and REL's parent
 * looked up afresh, so the result is the one a call without a cache
 * gives.  A failure empties *CACHE.
 */
PFX_API int pfx_root_begin_cached(const struct pfx_root *root,
    struct pfx_parent_cache *cache, const char *rel, mode_t mode,
    struct pfx_pending *pend);

/*
 * Give the pending file its final name.  With PFX_ROOT_REPLACE an existing
 * non-directory at that name (a file, a symlink, a hard link to anything)
 * is atomically replaced by the rename and never opened or followed (an
 * existing directory gives -EISDIR); with PFX_ROOT_NOREPLACE or 0 an
 * existing name gives -EEXIST.  On failure the
 * temporary file is removed.  Either way *PEND is released, fd included,
 * but on PFX_ROOT_SYMLINK_HELD (PFX_ROOT_REPLACE_FILE): then *PEND is
 * kept as it was, to commit again or abort.
 * Return: 0, PFX_ROOT_SYMLINK_HELD, or -errno.
 */
PFX_API int pfx_root_commit(const struct pfx_root *root,
    struct pfx_pending *pend, unsigned int flags);

/* Remove the pending file and release *PEND. */
PFX_API void pfx_root_abort(struct pfx_pending *pend);

/*
 * Make REL a new hard link to the regular file held open as FD, which
 * must be on the root's filesystem (-EXDEV), a regular file (-EINVAL) and
 * still linked somewhere (-ENOENT).  The caller MUST only pass files it
 * made beneath this root: an inode's location cannot be checked.  The inode linked is the one FD refers to, never a name
 * looked up again.  FLAGS: 0 or PFX_ROOT_NOREPLACE (an existing name gives
 * -EEXIST), PFX_ROOT_REPLACE (an existing non-directory is replaced), or
 * PFX_ROOT_REPLACE_FILE.
 * Return: 0, PFX_ROOT_SYMLINK_HELD, or -errno.
 */
PFX_API int pfx_root_link(const struct pfx_root *root, int fd,
    const char *rel, unsigned int flags);

/*
 * Names made beside their final ones, put in place later, all together
 * (extract/journal.c: --atomic over a populated destination).
 *
 * pfx_root_commit_beside() and pfx_root_link_beside() judge the final
 * name as pfx_root_commit() and pfx_root_link() would (-EEXIST,
 * PFX_ROOT_SYMLINK_HELD; an existing directory gives -EISDIR whatever the
 * flags), but change nothing at it: the file or link is named at a fresh
 * temporary name (".pfx-<16 hex digits>.tmp", made exclusively, never
 * reused) in the same directory, and described in *OUT.  The caller
 * later puts it in place with pfx_beside_put() through a descriptor of
 * that directory it opened beneath the root and checked (OUT->dir_dev,
 * dir_ino), or removes it with pfx_beside_drop().
 */
struct pfx_beside {
	char tmp[32];		/* the temporary name, in the same directory */
	dev_t dev;		/* what was made there */
	ino_t ino;
	dev_t dir_dev;		/* the directory both names are in */
	ino_t dir_ino;
	struct timespec dir_mtime;	/* its mtime before the temporary
					   name was made */
	mode_t had;		/* S_IFMT of what the final name held when
				   looked at, 0 for nothing */
	dev_t had_dev;		/* ... and its identity */
	ino_t had_ino;
};

/*
 * As pfx_root_commit(), naming the pending file beside its final name.
 * *PEND is released as pfx_root_commit() releases it.
 * Return: 0, PFX_ROOT_SYMLINK_HELD, or -errno.
 */
PFX_API int pfx_root_commit_beside(const struct pfx_root *root,
    struct pfx_pending *pend, unsigned int flags, struct pfx_beside *out);

/*
 * As pfx_root_link(), linking FD beside REL.
 * Return: 0, PFX_ROOT_SYMLINK_HELD, or -errno.
 */
PFX_API int pfx_root_link_beside(const struct pfx_root *root, int fd,
    const char *rel, unsigned int flags, struct pfx_beside *out);

/*
 * In the directory DIRFD, put TMP at NAME: where NAME existed
 * (PFX_BESIDE_EXCHANGE) by exchanging the two, so that what stood at
 * NAME is now at TMP, to be removed when every name is in place or put
 * back (a directory that stands at NAME by then is swapped back at once:
 * -EISDIR); else only as a new name (-EEXIST if NAME exists).  Both are one
 * renameat2(2) each, of names in one directory.
 * Return: 0, or -errno (-ENOENT for an exchange with a NAME now gone).
 */
#define PFX_BESIDE_EXCHANGE 0x1u
PFX_API int pfx_beside_put(int dirfd, const char *tmp, const char *name,
    unsigned int flags);

/*
 * Remove NAME (never a directory) from DIRFD if it is the inode (DEV,
 * INO); a name that holds anything else is left, with -ESTALE.
 * Return: 0, or -errno.
 */
PFX_API int pfx_beside_drop(int dirfd, const char *name, dev_t dev,
    ino_t ino);

/*
 * Is the directory DIRFD, opened beneath ROOT as REL, beneath it still?
 * Return: 0, -EXDEV, or -errno.
 */
PFX_API int pfx_root_still_beneath(const struct pfx_root *root, int dirfd,
    const char *rel);

/*
 * Create the symbolic link REL pointing at TARGET, which is stored as is
 * and never resolved here: judging where it points is the caller's job.
 * An existing name gives -EEXIST; an empty TARGET -EINVAL.  The parent
 * must exist.  Return: 0, or -errno.
 */
PFX_API int pfx_root_symlink(const struct pfx_root *root, const char *target,
    const char *rel);

/*
 * As pfx_root_symlink(), with FLAGS as for pfx_root_commit():
 * PFX_ROOT_REPLACE replaces an existing non-directory at REL by a link
 * made under a temporary name and renamed over it, all from one
 * descriptor of the parent, so nothing is looked up twice and no
 * temporary is left behind.  Return: 0, or -errno.
 */
PFX_API int pfx_root_symlink_flags(const struct pfx_root *root,
    const char *target, const char *rel, unsigned int flags);

/*
 * Read the target of the symbolic link REL into BUF (CAP bytes,
 * NUL-terminated).  Not a symlink: -EINVAL; too long for CAP (CAP 0
 * included): -ENAMETOOLONG.
 * Return: the target's length, or -errno.
 */
PFX_API int pfx_root_readlink(const struct pfx_root *root, const char *rel,
    char *buf, size_t cap);

/*
 * Set the owner and times of the symbolic link REL itself (never what it
 * points to).  REL must be a symlink when the change is made (-EINVAL):
 * on Linux the link is pinned with O_PATH|O_NOFOLLOW, checked, and changed
 * through that descriptor, so a file swapped in for it is never touched.
 * The root itself gives -EBUSY.  TIMES may be NULL to leave the times; UID
 * and GID may be -1 to leave the owner.  Return: 0, or -errno.
 */
PFX_API int pfx_root_link_meta(const struct pfx_root *root, const char *rel,
    uid_t uid, gid_t gid, const struct timespec *times);

/*
 * Call FN(ARG, REL, TARGET) once for every symbolic link beneath ROOT:
 * REL is its path relative to the root (normalised: no "." or ".." or
 * empty component), TARGET what it holds; both are NUL-terminated and
 * valid only during the call.  A nonzero answer from FN stops the walk
 * and is returned as it is (FN should answer 0 or -errno).
 * SECURITY: nothing is followed.  Each directory is entered alone, from a
 * descriptor of its parent, with openat(O_NOFOLLOW|O_DIRECTORY), so the
 * parents of every REL reported are real directories; coming back up,
 * ".." must be the very directory that was entered (-EXDEV otherwise).
 * A directory on another mount (a mount point beneath the root, or a
 * bind mount) is not entered: the root never writes there.  Nothing is
 * skipped silently otherwise: a directory that cannot be read, a target
 * longer than PFX_PATH_MAX - 1 bytes (never truncated), a path of
 * PFX_PATH_MAX bytes or more or a tree deeper than PLAT_MAX_DEPTH
 * (-ENAMETOOLONG) stops the walk with that error.  Only what vanishes
 * while the walk runs is passed over.
 * Cost: O(entries beneath the root) -- one getdents pass over each
 * directory, one openat(2) and statx(2) per directory, one readlinkat(2)
 * per link, one fstatat(2) per entry only where the filesystem gives no
 * d_type.  The walk is iterative; it holds at most eleven descriptors and
 * about 125 KiB of memory, whatever the depth.  The tree is not frozen:
 * what others change meanwhile may or may not be seen.
 * Return: 0, FN's nonzero answer, or -errno.
 */
PFX_API int pfx_root_list_links(const struct pfx_root *root,
    int (*fn)(void *arg, const char *rel, const char *target), void *arg);

/*
 * What the pending file PEND would replace: fstatat(2) of its name in its
 * parent, without following a symlink.  The name may change before the
 * commit.  Return: 0 and *ST, or -errno (-ENOENT: nothing there).
 */
PFX_API int pfx_pending_existing(const struct pfx_pending *pend,
    struct stat *st);

/*
 * Move what PEND's name holds aside as a backup, in the same directory:
 * to NAME + SUFFIX (NULL: "~"), replacing an earlier such backup
 * (SIMPLE), to NAME.~N~ with N one past the highest present (NUMBERED),
 * or NUMBERED where one exists, else SIMPLE (EXISTING).  Nothing there,
 * or a directory: nothing is done.  The backup name is one component of
 * at most NAME_MAX bytes (else -ENAMETOOLONG), written to BAK (CAP
 * bytes; "" when none was made).  A name that appears between this
 * call and the commit is replaced unbacked, as with GNU tar.
 * Return: 0, or -errno.
 */
#define PFX_PENDING_BACKUP_SIMPLE 1
#define PFX_PENDING_BACKUP_NUMBERED 2
#define PFX_PENDING_BACKUP_EXISTING 3
PFX_API int pfx_pending_backup(const struct pfx_pending *pend, int how,
    const char *suffix, char *bak, size_t cap);

/*
 * The name pfx_pending_backup() would move PEND's name to now, into BAK
 * (CAP bytes; "" when it would move nothing: nothing there, or a
 * directory), moving nothing: for a caller that must judge the move
 * first.  Return: 0, or -errno.
 */
PFX_API int pfx_pending_backup_name(const struct pfx_pending *pend, int how,
    const char *suffix, char *bak, size_t cap);

/*
 * Move what PEND's name holds to BAK, the one component
 * pfx_pending_backup_name() gave (and the caller judged): that very name,
 * never one worked out again.  Nothing there any more: BAK set to "".
 * Return: 0, or -errno (-EINVAL: BAK is no single component).
 */
PFX_API int pfx_pending_backup_as(const struct pfx_pending *pend, char *bak);

/*
 * pfx_pending_backup_as() for PEND begun beneath ROOT: its parent is
 * proved beneath ROOT right before the move, and again after it (the
 * move undone if not).  PEND's parent was resolved when PEND was begun
 * and may have been moved out of the root since, while the data was
 * written: pfx_pending_backup_as() would then rename outside the root.
 * Use this one.  Return: 0, -EXDEV (nothing moved; BAK ""), or -errno.
 */
PFX_API int pfx_pending_backup_as_beneath(const struct pfx_root *root,
    const struct pfx_pending *pend, char *bak);

/*
 * pfx_pending_existing(), pfx_pending_backup_name() and
 * pfx_pending_backup_as_beneath() for the name REL beneath ROOT, for what
 * is put there with no pending file (a hard link, pfx_root_link()): its
 * parent is resolved beneath ROOT, its last component never followed.
 * REL "" (the root) gives -EISDIR, and no backup.  Return: 0, or -errno.
 */
PFX_API int pfx_root_existing(const struct pfx_root *root, const char *rel,
    struct stat *st);
PFX_API int pfx_root_backup_name(const struct pfx_root *root,
    const char *rel, int how, const char *suffix, char *bak, size_t cap);
PFX_API int pfx_root_backup_as(const struct pfx_root *root, const char *rel,
    char *bak);

/*
 * Remove the directory at PEND's name and everything beneath it, with
 * pfx_remove_tree() (never through a symlink, never into another
 * mount), from PEND's parent: what it proves beneath is that parent,
 * which may itself have been moved out of the root since PEND was
 * begun.  -ENOTDIR if the name is not a directory.  Return: 0, or
 * -errno.
 */
PFX_API int pfx_pending_remove_dir(const struct pfx_pending *pend);

/*
 * pfx_pending_remove_dir() for PEND begun beneath ROOT, with
 * pfx_remove_tree_beneath(): every directory it removes in, PEND's
 * parent included, is proved beneath ROOT right before each call
 * (-EXDEV otherwise).  Use this one.  Return: 0, or -errno.
 */
PFX_API int pfx_pending_remove_dir_beneath(const struct pfx_root *root,
    const struct pfx_pending *pend);

/* Remove the non-directory REL (a symlink itself, never its target). */
PFX_API int pfx_root_unlink(const struct pfx_root *root, const char *rel);

/* Remove the empty directory REL.  Return: 0, or -errno. */
PFX_API int pfx_root_rmdir(const struct pfx_root *root, const char *rel);

/*
 * Empty the existing directory REL beneath ROOT of what KEEP says must
 * go: KEEP(ARG, NAME, IS_DIR) is asked once for each name in it (IS_DIR:
 * a directory, a symlink being none), and a name it answers false for
 * is removed with pfx_remove_tree(), then GONE(ARG, NAME), if not NULL,
 * is told.  REL is reached as every name here is, never through a
 * symlink (in a root made with pfx_root_in_root() too: -ELOOP); before
 * each removal the directory is checked to be still beneath the root
 * (-EXDEV stops the purge otherwise).  One pass over the listing: what
 * others add meanwhile may or may not be seen.  The first failed removal
 * stops the purge.  Return: 0, or -errno (-ENOENT,
 * -ENOTDIR, -ELOOP: REL is no directory reachable beneath the root).
 */
PFX_API int pfx_root_purge(const struct pfx_root *root, const char *rel,
    bool (*keep)(void *arg, const char *name, bool is_dir),
    void (*gone)(void *arg, const char *name), void *arg);

/*
 * Rename FROM to TO, both beneath ROOT.  FLAGS: 0 or PFX_ROOT_NOREPLACE to
 * fail with -EEXIST if TO exists; PFX_ROOT_REPLACE for rename(2)'s
 * replacing semantics.  If either directory is found outside the root
 * after the rename, the rename is undone and the call fails with -EXDEV.
 * Return: 0, or -errno.
 */
PFX_API int pfx_root_rename(const struct pfx_root *root, const char *from,
    const char *to, unsigned int flags);

/*
 * Move the directory FROM to TO, both beneath ROOT, as pfx_root_rename()
 * does with FLAGS, and only if FROM is a directory (-ENOTDIR for anything
 * else, a symlink included: moved, a relative link would lead
 * elsewhere).  Both parents are reached without symlinks, in a root made
 * with pfx_root_in_root() too (-ELOOP).  With PFX_ROOT_REPLACE, rename(2)'s
 * rule for a directory holds: only an empty directory at TO is replaced
 * (-ENOTEMPTY, -EEXIST, -ENOTDIR otherwise).  GNU tar's incremental
 * renames.
 * Return: 0, or -errno.
 */
PFX_API int pfx_root_rename_dir(const struct pfx_root *root,
    const char *from, const char *to, unsigned int flags);

/* Set the owner and group of the file open as FD.  Return: 0, or -errno. */
PFX_API int pfx_fd_chown(int fd, uid_t uid, gid_t gid);

/*
 * Set the extended attribute NAME of the file open as FD to VALUE (SIZE
 * bytes).  -ENOTSUP where the system or filesystem has none.
 * Return: 0, or -errno.
 */
PFX_API int pfx_fd_setxattr(int fd, const char *name, const void *value,
    size_t size);

/* Set the permission bits of the file open as FD.  Return: 0, or -errno. */
PFX_API int pfx_fd_chmod(int fd, mode_t mode);

/*
 * Set the access and modification times of the file open as FD
 * (futimens(2) semantics, UTIME_OMIT allowed).  Return: 0, or -errno.
 */
PFX_API int pfx_fd_set_times(int fd, const struct timespec times[2]);

/*
 * Remove NAME, one component in the directory DIRFD, and everything
 * beneath it, as rm -rf would; meant for trees this library made, such
 * as a staging directory (below).  A non-directory NAME is unlinked.
 * SECURITY: a symlink is removed itself, never followed, at every level,
 * NAME included; a directory is entered only with
 * openat(O_NOFOLLOW|O_DIRECTORY), only on NAME's filesystem and mount
 * (anything else, a mount point for one, gives -EXDEV and is left), and
 * coming back up, ".." must be the very directory that was entered
 * (-EXDEV otherwise).  A directory without read, write or search
 * permission for its owner is made 0700 first, so that a tree holding
 * read-only directories goes too.  SECURITY: right before each removal
 * and each chmod, the directory it acts in is proved to be beneath DIRFD
 * still (openat2(RESOLVE_BENEATH) of its path from DIRFD and a comparison
 * of identities, else a climb of ".."); a directory moved out meanwhile
 * stops the walk with -EXDEV.  No proof can cover the moment between it
 * and the call: a move that lands there has that one call act outside,
 * so each directory moved out while the walk works beneath it costs at
 * most one entry removed (or one directory made 0700) outside DIRFD,
 * never its tree; only a kernel confinement closes that.  DIRFD itself
 * is the caller's to vouch for: beneath a root, use
 * pfx_remove_tree_beneath().  Cost: an openat2(2), a statx(2) and a
 * close(2) per entry removed (one more openat2 and close per
 * PFX_PATH_MAX bytes of path), and the kernel's walk of that path, about
 * 40 ns a level; a climb of ".." instead, three calls a level, where the
 * kernel has no openat2 or someone renamed a directory of the path.
 * The walk is iterative, with at most eleven descriptors open (one or
 * two more for the moment of a proof) and a stack and memory that do
 * not grow with depth but for the path, PFX_NAME_MAX + 1 bytes a level
 * past the first PFX_PATH_MAX; a tree deeper than
 * PFX_PATH_MAX / 2 levels gives -ENAMETOOLONG.  On any error the walk
 * stops and what is left stays.  NAME "", ".", "..", or with a '/':
 * -EINVAL.  Return: 0, or -errno (-ENOENT: no NAME).
 */
PFX_API int pfx_remove_tree(int dirfd, const char *name);

/*
 * pfx_remove_tree(), for a DIRFD opened beneath ROOT as DIRREL (a path
 * relative to ROOT, "" for ROOT itself): each directory the walk acts in,
 * DIRFD included, is proved to be beneath ROOT right before each call,
 * as pfx_remove_tree() proves it beneath DIRFD, so that DIRFD moved out
 * of ROOT meanwhile stops the walk too (-EXDEV), at the same cost and
 * with the same one call per move that no proof can cover.  Under
 * pfx_root_confined() the proofs are left to the kernel, which refuses
 * each call in a directory moved out; that refusal gives -EXDEV.
 * Return: 0, or -errno.
 */
PFX_API int pfx_remove_tree_beneath(const struct pfx_root *root, int dirfd,
    const char *dirrel, const char *name);

/*
 * A staging tree: a new, private directory made beside a destination
 * DEST, filled, and then published at DEST's name in one rename, or
 * removed whole.  It lives one level down, in a private directory
 * ".DEST.pfx-XXXXXXXX" (mode 0700) made in DEST's parent if no one else
 * can change that, else in the nearest directory above it, on its mount,
 * that no one else can change.  DEST's parent, which others may be able
 * to write to, is never walked: the tree is filled through FD and
 * removed through the private directory's descriptor, and the names in
 * DEST's parent are only made or exchanged in the ways stage.c's
 * SECURITY note lists.  Fields are private except FD, the staging tree
 * to fill (pin it with pfx_root_open(&root, st->fd, ".", ...)), NAME,
 * the private directory's name, and UP, how far above DEST's parent it
 * is, for messages; all are read only, and owned by *ST.
 */
struct pfx_stage {
	int fd;			/* the staging tree (O_RDONLY) */
	char name[272];		/* ".DEST.pfx-XXXXXXXX", read only; ""
				   once nothing of ours is left there */
	int parentfd;		/* private: DEST's parent */
	int stagefd;		/* private: where the private directory is:
				   PARENTFD, or a directory above it */
	unsigned int up;	/* read only: how many levels above DEST's
				   parent NAME is (0: in it) */
	int parent_closed;	/* no one else can change entries of
				   DEST's parent; read only after
				   -ENOTEMPTY or -EXDEV */
	int privfd;		/* private: the private directory */
	int replace;		/* private: DEST is an empty directory */
	dev_t dev;		/* private: the staging tree */
	ino_t ino;
	dev_t priv_dev;		/* private: the private directory */
	ino_t priv_ino;
	dev_t old_dev;		/* private: the empty DEST, if any */
	ino_t old_ino;
	mode_t mode;		/* private: DEST's mode once published */
	char dest[256];		/* private: DEST's last component */
};

/*
 * Make a staging tree for DEST, resolved from DIRFD (AT_FDCWD or a
 * directory fd).  DEST's parent path is trusted, as pfx_root_open()'s
 * PATH is: it is opened once (following symlinks, as any component but
 * the last of a destination is), and everything later is relative to
 * that descriptor.  DEST's last component is never followed: DEST must
 * be absent, or an empty directory on the same mount as its parent.  The
 * private directory ".DEST.pfx-XXXXXXXX" (DEST cut to fit, X random) is
 * made with mkdirat(2), mode 0700, where the struct's comment says,
 * opened, and used only if it is a new empty directory of ours with no
 * rights for others; the tree is made in it.  It is held with flock(2)
 * while ST is open, and where no one else can change names, up to four
 * private directories that killed runs left for a DEST of the same name
 * (ours, private, a minute old, held by no one, holding no "old") are
 * removed.
 * Errors: -EINVAL DEST has no last component of its
 * own ("", "/", ".", ".."); -ELOOP DEST is a symlink; -ENOTDIR DEST is
 * another non-directory; -ENOTEMPTY DEST is a directory with entries;
 * -EXDEV DEST is a mount point; -EPERM DEST is an empty directory in a
 * parent others can change (owned by another user, or writable by others
 * without the sticky bit), where exchanging it could not be proved to
 * act on DEST alone (all before anything is made); -ESTALE
 * what stood at the name made was not ours (swapped by someone who can
 * write where it was made), and is left as it is, named in ST->NAME.
 * Return: 0, or -errno (and *ST needs no cleanup; ST->NAME is "" unless
 * a name of ours was left behind).
 */
PFX_API int pfx_stage_open(struct pfx_stage *st, int dirfd,
    const char *dest);

/*
 * Publish the staging tree at DEST's name in one step, after giving it
 * DEST's mode: the mode of the empty DEST it replaces, else 0777 less
 * the umask (or as a default ACL of the directory staged in says), as
 * the kernel gave it to the staging tree when it was made.
 * A new DEST is made with renameat2(RENAME_NOREPLACE); an empty DEST is
 * swapped with RENAME_EXCHANGE into the private directory, where it is
 * removed if it is the same empty directory seen by pfx_stage_open()
 * (anything else is swapped back).  Where the filesystem or system
 * cannot exchange, the empty DEST is moved into the private directory,
 * judged there, and the tree renamed to DEST.  Then the private
 * directory is removed.  With FLAGS PFX_STAGE_SYNC, DEST's parent is
 * synced last, so that the new name is durable.  If DEST changed since
 * pfx_stage_open() nothing is published: -EEXIST or -ENOTEMPTY, and the
 * tree is left for pfx_stage_discard(); -ESTALE says that a swap by
 * someone else could not be undone, and the tree is no longer ours to
 * remove.  Return: 0, or -errno: nothing was published, unless ST->fd
 * is -1, which says that the tree was published and only the sync, or
 * the removal of the private directory (ST->NAME not ""), failed.
 */
#define PFX_STAGE_SYNC 0x1u
PFX_API int pfx_stage_publish(struct pfx_stage *st, unsigned int flags);

/*
 * Remove the staging tree -- only the very tree made, found by identity
 * in the private directory -- with pfx_remove_tree(), then the private
 * directory, and release *ST.  After a successful publish, or twice, it
 * only releases.  Return: 0, or -errno when some of it could not be
 * removed (it stays, under ST->NAME in DEST's parent; -ESTALE: the tree
 * or the private directory was not found at its name, and is not
 * chased).
 */
PFX_API int pfx_stage_discard(struct pfx_stage *st);

/*
 * Open the archive file PATH, named by the caller (not by an archive), for
 * reading: the descriptor outlives a later pfx_sandbox_confine().
 * Return: the descriptor (close-on-exec), or -errno.
 */
PFX_API int pfx_input_open(const char *path);

#endif /* PFX_ROOT_H */
