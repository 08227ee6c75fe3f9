/*
 * platform.h -- internals of the pinned-root layer (see pfx_root.h).
 *
 * The layer is split by job: path.c checks and splits a relative name,
 * resolve.c turns a directory name into a descriptor beneath the root
 * with either resolver, beneath.c proves a descriptor is still beneath the
 * root, and the os_*.c file chosen by the Makefile holds the few calls that
 * differ between kernels.  Nothing here prints or touches global state.
 *
 * One header for the stage (mk/layers.sh): Defined in: beneath.c close.c
 * create.c inroot.c listing.c os_linux.c os_posix.c path.c process.c
 * resolve.c sandbox_linux.c sandbox_posix.c step.c.
 */
#ifndef PLATFORM_H
#define PLATFORM_H

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

#include "../core/pfx_path.h"
#include "pfx_root.h"

/*
 * The deepest directory the beneath check climbs from (each level of a
 * path costs at least two bytes, "a/"), so no real tree is deeper.
 */
#define PLAT_MAX_DEPTH (PFX_PATH_MAX / 2)

/* openat2(2) may return EAGAIN when any rename races it; retry this often. */
#define PLAT_OPENAT2_RETRIES 128

/*
 * What makes a directory the same one, seen the same way: its inode, and
 * the mount it is reached through (a bind mount shares st_dev with the
 * filesystem it shows, so st_dev alone cannot see it).  MNT is 0 where
 * the kernel cannot tell mounts apart; then st_dev is all there is.
 */
struct plat_id {
	dev_t dev;
	ino_t ino;
	mode_t mode;
	unsigned long long mnt;
	struct timespec btime;	/* its birth time by its filesystem's
				   clock, which no one can set; 0 where
				   none is kept (plat_born_since()) */
};

/* Is A on the same mount as B (the root)? */
int plat_same_mount(const struct plat_id *a, const struct pfx_root *root);

/* Is A the root itself? */
int plat_is_root(const struct plat_id *a, const struct pfx_root *root);

/*
 * Was the file of identity ID made at T (a time by its filesystem's
 * clock: plat_os_fs_now(), a change time) or later, by its birth time?
 * Return: 1 yes, 0 no (it existed before T), -ENOTSUP (the filesystem
 * keeps no birth time).  A comparison: below the os_*.c files too.
 */
static inline int
plat_born_since(const struct plat_id *id, const struct timespec *t)
{
	if (id->btime.tv_sec == 0 && id->btime.tv_nsec == 0)
		return -ENOTSUP;
	if (id->btime.tv_sec != t->tv_sec)
		return id->btime.tv_sec > t->tv_sec;
	return id->btime.tv_nsec >= t->tv_nsec;
}

/* A relative name, checked and split: PARENT/LEAF is FULL. */
struct plat_path {
	char full[PFX_PATH_MAX];	/* "a/b/c", "" for the root */
	char parent[PFX_PATH_MAX];	/* "a/b", "" for the root */
	char leaf[PFX_NAME_MAX + 1];	/* "c", "" when FULL is "" */
};

/*
 * Check REL and split it into *P: no absolute name, no "..", empty and "."
 * components dropped, every component at most PFX_NAME_MAX bytes.
 * Return: 0, -EXDEV (absolute or ".."), or -ENAMETOOLONG.
 */
int plat_path_parse(const char *rel, struct plat_path *p);

/*
 * Open the directory DIR ("" for the root) beneath ROOT with ROOT's
 * resolver.  FLAGS is O_PATH-like (search only) when 0 or O_RDONLY when
 * PLAT_DIR_READ.  Return: a descriptor, or -errno.
 */
#define PLAT_DIR_SEARCH 0
#define PLAT_DIR_READ 1
int plat_resolve_dir(const struct pfx_root *root, const char *dir, int how);

/*
 * The modes of the directories a walk makes: DIR's last component, and
 * the parents on the way to it.
 */
struct plat_mkmode {
	mode_t leaf;
	mode_t parents;
};

/*
 * Walk DIR from the root one component at a time with plat_step(), and
 * check the result is still beneath the root.  With MK, a missing
 * component is made with its mode (and removed again if its parent turns
 * out to be outside the root), and *CREATED counts those made.
 * Return: a descriptor opened as HOW says, or -errno.
 */
int plat_walk(const struct pfx_root *root, const char *dir, int how,
    const struct plat_mkmode *mk, unsigned int *created);

/*
 * As plat_walk(), for a root made with pfx_root_in_root(): a symlink met
 * is followed with DIR's root as "/" (RESOLVE_IN_ROOT's rules), by hand,
 * so that it works without openat2 too (inroot.c).
 */
int plat_walk_in_root(const struct pfx_root *root, const char *dir, int how,
    const struct plat_mkmode *mk, unsigned int *created);

/*
 * Make directory NAME in DIRFD (DIRREL from the root, "" to prove it by
 * climbing) and open it as plat_step() does; one that appeared meanwhile
 * is opened as it is.  Adds 1 to *CREATED if this call made it and the
 * descriptor is of the very directory made (-ENOENT if another was moved
 * to the name in between: step.c).  Return: a descriptor, or -errno.
 */
int plat_make_new_dir(const struct pfx_root *root, int dirfd,
    const char *dirrel, const char *name, mode_t mode, int how,
    unsigned int *created);

/* The open(2) flags of a directory for HOW (PLAT_DIR_*) under ROOT's
 * resolver (step.c). */
int plat_dir_open_flags(const struct pfx_root *root, int how);

/*
 * Open the single component NAME of directory DIRFD as a directory,
 * without following a symlink and without leaving ROOT's filesystem.
 * Return: a descriptor, or -ELOOP, -ENOTDIR, -EXDEV, -ENOENT, -errno.
 */
int plat_step(const struct pfx_root *root, int dirfd, const char *name,
    int how);

/*
 * Make directory LEAF in the existing directory PARENT (beneath ROOT) if
 * it is missing, and open it as plat_resolve_dir() does with HOW; add 1
 * to *CREATED if this call made it.  -ENOENT when PARENT is missing.
 * Return: a descriptor, or -errno.
 */
int plat_make_leaf_dir(const struct pfx_root *root, const char *parent,
    const char *leaf, mode_t mode, int how, unsigned int *created);

/*
 * Keep FD (owned), open on directory DIR beneath ROOT, in CACHE for what
 * is made in DIR next (pfx_root_begin_cached(), plat_mkdirs_kept()),
 * where ROOT lets a kept directory be used again (see
 * pfx_parent_cache in pfx_root.h); else, or with no CACHE, close it.
 */
void plat_parent_cache_keep(const struct pfx_root *root,
    struct pfx_parent_cache *cache, const char *dir, int fd);

/*
 * pfx_root_mkdirs_count(), with MK's modes: REL itself with MK->leaf,
 * its missing parents with MK->parents.
 */
int plat_mkdirs_modes(const struct pfx_root *root, const char *rel,
    const struct plat_mkmode *mk, unsigned int *created);

/*
 * plat_mkdirs_modes(), but making REL in its parent as CACHE holds
 * it, where ROOT lets a kept directory be used again, and keeping the
 * parent there for the next call: a directory entry then costs no
 * lookup.  A kept parent that fails is let go and looked up once more;
 * a missing parent is made by the walk.  CACHE may be NULL.
 * Return: a descriptor open on REL (PLAT_DIR_READ), or -errno.
 */
int plat_mkdirs_kept(const struct pfx_root *root,
    struct pfx_parent_cache *cache, const char *rel,
    const struct plat_mkmode *mk, unsigned int *created);

/*
 * A branch of ROOT's tree held open for removing many directories, each
 * after everything beneath it (chain.c): only for a root the kernel
 * confines and that follows no links (NULL otherwise, or out of memory:
 * then remove by name).  One owner, one thread; ROOT outlives it.
 */
struct plat_chain;
struct plat_chain *plat_chain_new(const struct pfx_root *root);
void plat_chain_free(struct plat_chain *c);

/*
 * Remove the empty directory REL (beneath C's root), if ID is NULL or it
 * is still that very directory (-ESTALE if not), from its parent as C
 * holds it.  Cheap when REL comes after the directories beneath it and
 * those beneath its neighbours: keys in descending order, '/' lowest.
 * Return: 0, or -errno (-EXDEV: its parent was moved out of the root).
 */
int plat_chain_rmdir(struct plat_chain *c, const char *rel,
    const struct plat_id *id);

/* How many directories C has opened: the tests' measure of its cost. */
uint64_t plat_chain_steps(const struct plat_chain *c);

/*
 * Open the parent of the directory held as DIRFD: the directory it is in
 * now, whatever names lead to either (search-only, close-on-exec).
 * Return: a descriptor, or -errno.
 */
int plat_open_parent(int dirfd);

/*
 * Is the directory open as DIRFD the root, or beneath it, right now?
 * Climbs ".." from DIRFD comparing identities.
 * Return: 0 if beneath, -EXDEV if not, or -errno.
 */
int plat_check_beneath(const struct pfx_root *root, int dirfd);

/*
 * As plat_check_beneath(), for a DIRFD that was resolved from the root as
 * REL.  Where the kernel resolves beneath the root itself (openat2), REL
 * is resolved again and compared with DIRFD: one lookup instead of a
 * climb of one step per component.  When that does not show DIRFD at REL
 * (it was moved, perhaps out), the climb decides.
 * Return: 0 if beneath, -EXDEV if not, or -errno.
 */
int plat_check_beneath_at(const struct pfx_root *root, int dirfd,
    const char *rel);

/*
 * The error R (-errno) of an effect in the directory DIRFD, told apart
 * from a lack of permission where the kernel confines the process to the
 * root: there an effect in a directory moved out of the root is refused
 * with -EACCES, which then becomes -EXDEV, its meaning without
 * confinement.  Looks only when R is -EACCES under confinement: never
 * on the way of an effect that worked.
 * Return: -EXDEV, or R.
 */
int plat_confined_error(const struct pfx_root *root, int dirfd, int r);

/*
 * Read the replace FLAGS of commit, link and rename: 0 or
 * PFX_ROOT_NOREPLACE never replace, PFX_ROOT_REPLACE replaces.
 * Return: 0 (keep), 1 (replace), or -EINVAL for any other bits.
 */
int plat_replace_flags(unsigned int flags);

/* Close FD if it is open, keeping errno. */
void plat_close(int fd);

/*
 * Fill NAME (CAP bytes, at least 26) with ".pfx-<16 hex digits>.tmp",
 * the ATTEMPT-th try (0 first).  A name only has to be new in its
 * directory: O_EXCL (or link, symlink) refuses one that exists, and a
 * name someone guessed and made first costs one more try, no more.  So
 * the first try is made from the clock (no system call) and SALT; only a
 * retry, after a clash, asks the kernel for random bytes.
 * Return: 0, or -errno.
 */
int plat_temp_name(char *name, size_t cap, int attempt, const void *salt);

/* How many fresh temporary names to try before giving up with EEXIST. */
#define PLAT_TEMP_TRIES 16


/* --- os_*.c: what differs between kernels ------------------------------ */

/* Read the identity of the file open as FD.  0 or -errno. */
int plat_os_identify(int fd, struct plat_id *id);

/*
 * Read the identity of PATH from DIRFD, its last component not followed,
 * opening nothing.  0 or -errno.
 */
int plat_os_identify_at(int dirfd, const char *path, struct plat_id *id);

/*
 * The time by the clock of DIRFD's filesystem, which may not be ours (a
 * server's): the birth time of a file made in DIRFD without a name
 * (O_TMPFILE), never seen, never linked.  For plat_born_since(), as
 * is a file time of that filesystem.
 * Return: 0, -ENOTSUP (no such file, or no birth time), or -errno.
 */
int plat_os_fs_now(int dirfd, struct timespec *t);


/* The open flag for a search-only directory descriptor. */
int plat_os_search_flag(void);

/*
 * The open flags for a descriptor that only names a regular file, to
 * fstat and link it: O_PATH, which asks no right to read it, where there
 * is one; else O_RDONLY|O_NONBLOCK.
 */
int plat_os_pin_flags(void);

/* Does the kernel offer openat2 with the resolve flags we need?  0/-ENOSYS */
int plat_os_openat2_probe(int rootfd);

/*
 * openat2(DIRFD, PATH) with RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS|
 * RESOLVE_NO_MAGICLINKS|RESOLVE_NO_XDEV and FLAGS|O_CLOEXEC, retrying
 * EAGAIN a bounded number of times.  Return: a descriptor, or -errno.
 */
int plat_os_openat2(int dirfd, const char *path, int flags);

/*
 * As plat_os_openat2(), with RESOLVE_IN_ROOT|RESOLVE_NO_MAGICLINKS|
 * RESOLVE_NO_XDEV instead: symlinks are followed as if DIRFD were "/".
 */
int plat_os_openat2_in_root(int dirfd, const char *path, int flags);

/* renameat without replacing NEW: -EEXIST if it exists.  0 or -errno. */
int plat_os_rename_noreplace(int olddirfd, const char *oldname,
    int newdirfd, const char *newname);

/* Hard-link the inode open as FD at DIRFD/NAME.  0 or -errno. */
int plat_os_link_fd(int fd, int dirfd, const char *name);

/*
 * Create a regular file with MODE (before umask) in DIRFD, with no name,
 * open O_WRONLY, to be named by plat_os_link_fd().  Return: a descriptor,
 * or -errno (-ENOTSUP where the system cannot).
 */
int plat_os_open_unnamed(int dirfd, mode_t mode);

/*
 * Can files made by plat_os_open_unnamed() in DIRFD be given a name, by
 * any thread, whatever its credentials?  Nothing is left in DIRFD.
 * Return: 1 or 0.
 */
int plat_os_unnamed_probe(int dirfd);

/* Set an extended attribute through FD.  0, -ENOTSUP or -errno. */
int plat_os_fsetxattr(int fd, const char *name, const void *value,
    size_t size);

/*
 * Set the owner (-1: leave) and times (NULL: leave) of the symbolic link
 * NAME in DIRFD itself.  SECURITY: whatever NAME is when the change is
 * made must be a symlink (-EINVAL otherwise), so a file swapped in for it
 * -- perhaps a hard link to a file outside the root -- is never changed;
 * and with SINCE (from plat_os_fs_now(); NULL: any), one born at
 * SINCE or later (-ESTALE otherwise), so an old link swapped in for it is
 * not either.  Return: 0, or -errno.
 */
int plat_os_link_meta(int dirfd, const char *name, uid_t uid, gid_t gid,
    const struct timespec *times, const struct timespec *since);

/*
 * pfx_root_link_meta() on a link born at SINCE or later only (as
 * plat_os_link_meta() says): for the extractor, which gives a link it
 * made its owner and time after it made it, by its name.
 */
int plat_root_link_meta_since(const struct pfx_root *root, const char *rel,
    uid_t uid, gid_t gid, const struct timespec *times,
    const struct timespec *since);

/* Fill BUF with LEN unpredictable bytes.  0 or -errno. */
int plat_os_random(void *buf, size_t len);

/*
 * Move the directory OLDNAME of OLDDIRFD to NEWNAME of NEWDIRFD in one
 * step: with PLAT_RENAME_NOREPLACE only if NEWNAME does not exist
 * (-EEXIST), with PLAT_RENAME_EXCHANGE swapping the two names.  Where the
 * system or filesystem cannot: -ENOTSUP for EXCHANGE; NOREPLACE falls
 * back to a look then rename(2), which can replace an empty directory
 * made between the two.  Return: 0, or -errno.
 */
#define PLAT_RENAME_NOREPLACE 0
#define PLAT_RENAME_EXCHANGE 1
int plat_os_rename_dir(int olddirfd, const char *oldname, int newdirfd,
    const char *newname, int how);

/*
 * The file type that the directory entry DE says it names (S_IFLNK,
 * S_IFDIR, S_IFREG, ...), or 0 when it does not say (DT_UNKNOWN, or a
 * system without d_type): then the caller must look with fstatat(2).
 */
struct dirent;
mode_t plat_os_dirent_type(const struct dirent *de);

/*
 * Close every descriptor from LO to HI (INT_MAX: all above LO) in one
 * call (close_range(2), Linux 5.9).  Return: 0, or -errno (-ENOSYS where
 * there is no such call: plat_child_fds() then closes them one by one).
 */
int plat_os_close_range(int lo, int hi);

/* A descriptor that refers to process PID and polls readable when it
 * ends (pidfd_open(2), Linux 5.3).  Return: it, or -errno (-ENOSYS where
 * there is none: the caller polls waitpid(2) instead). */
int plat_os_pidfd_open(pid_t pid);

/*
 * A new open file description, read-only, of the regular file open as
 * FD (through /proc/self/fd on Linux), at FD's offset.  Return: the new
 * descriptor, or -errno (-ENOSYS where it cannot be done).
 */
int plat_os_reopen_readonly(int fd);

/*
 * Move at most MAX bytes from pipe PIPE_FD into file FD, no copy through
 * user memory (splice(2)), and make pipe FD's buffer as large as an
 * unprivileged process may (1 MiB by default): the output relay's
 * fast path (relay.c).  Return: the bytes moved, 0 at the pipe's end, or
 * -errno (-EINVAL: FD cannot take it, O_APPEND; -ENOSYS elsewhere:
 * read(2) and write(2) then).
 */
ssize_t plat_os_splice_out(int pipe_fd, int fd, size_t max);
void plat_os_pipe_grow(int fd);

/*
 * May this process make and remove names in the directory open as DIRFD
 * (its write and search permissions, by the effective ids)?  On Linux an
 * attempt too, which Landlock and path-based LSMs answer: a file with no
 * name (O_TMPFILE) made there and dropped, nothing changed in it.
 * Return: 0, or -errno (-EACCES, -EPERM, -EROFS).
 */
int plat_os_dir_writable(int dirfd);

/*
 * Sleep until the 32-bit word at ADDR, shared with another process, may
 * no longer hold VAL, or MS milliseconds passed (a futex on Linux; a
 * short sleep elsewhere).  Spurious returns happen: the caller looks
 * again.  plat_os_wake_word() wakes the sleepers on ADDR.
 */
void plat_os_wait_word(const uint32_t *addr, uint32_t val, int ms);
void plat_os_wake_word(const uint32_t *addr);

/* LEN bytes of zeroed memory that a child forked afterwards shares with
 * this process (MAP_SHARED | MAP_ANONYMOUS), or NULL; and its release. */
void *plat_os_shared_map(size_t len);
void plat_os_shared_unmap(void *p, size_t len);

/*
 * In a process just forked to run untrusted code: give up every
 * capability (effective, permitted, inheritable, ambient), the right
 * to raise its scheduling priority (RLIMIT_RTPRIO and RLIMIT_NICE 0)
 * and to queue real-time signals or make POSIX timers, which its user's
 * whole budget pays (RLIMIT_SIGPENDING 0).
 * SECURITY: the sandbox lets a process change its own scheduling; run
 * as root, a decoder taken over moved itself to SCHED_FIFO, nice -20
 * and the real-time I/O class, above every other process; and root's
 * capabilities would lift kernel limits a filter cannot see (socket
 * buffers, descriptors in flight).  Return: 0, or -errno.
 */
int plat_os_drop_privileges(void);

/* The identity a root process's decoder takes (plat_os_bound_tasks()):
 * no user's, no file's, so that no other process may signal it. */
#define PLAT_DECODER_ID 2147483646u

/*
 * In a process just forked to run untrusted code, before it confines
 * itself: let it hold at most N tasks (itself and its threads), so that
 * code taken over cannot exhaust the system's threads and PIDs (every
 * fork on the machine then fails).  The kernel bounds tasks only by
 * RLIMIT_NPROC, counted per real user and never for root: a root
 * process first takes PLAT_DECODER_ID as its real and effective user
 * and group (no supplementary group), its saved user ID staying root's
 * so that its parent may still signal it; and where a user namespace
 * can be made, the process moves into one, where its tasks are counted
 * apart from its user's others.  Else its user's (PLAT_DECODER_ID's)
 * other tasks count too, and N + PLAT_TASKS_SLACK is the limit; an
 * ordinary user's is then left as it was (its own RLIMIT_NPROC).
 * Changing the user clears PR_SET_PDEATHSIG: the caller sets it again.
 * Return: 0 (its own N), 1 (shared, with slack), or -errno (not
 * bounded; the identity may be half changed).
 */
int plat_os_bound_tasks(unsigned int n);
#define PLAT_TASKS_SLACK 1024u

/*
 * In a process that confines itself to write a destination: keep, of the
 * capabilities it has, only those that writing files as root needs --
 * CAP_CHOWN, CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH (a file linked at its
 * name through its descriptor), CAP_FOWNER, CAP_FSETID and
 * CAP_SYS_RESOURCE (the blocks a file system keeps for root, as tar
 * writes them), and CAP_SYS_PTRACE too with PTRACE (LeakSanitizer's
 * tracer) -- in the effective and permitted sets; the inheritable and
 * ambient ones emptied.  For good: nothing can raise them again.
 * SECURITY: a descriptor opened before the confinement (standard error
 * redirected to a file) keeps its file's writable mount, which
 * read-only mounts cannot reach: with CAP_SETFCAP a writer taken over
 * gave a program it wrote there a file capability, and with
 * CAP_SYS_ADMIN or CAP_LINUX_IMMUTABLE it sets trusted.* attributes or
 * the immutable flag.  Return: 0, or -errno.
 */
int plat_os_keep_file_caps(bool ptrace);

/*
 * In a process just forked to run untrusted code: unmap every mapping
 * through which it could write what a file or another process sees
 * (MAP_SHARED from a descriptor open for writing, even if mapped
 * read-only: mprotect(2) adds the write; System V or POSIX shared
 * memory) but those inside the KEEP_LEN bytes at KEEP (NULL, 0: none).
 * One that holds a byte of the NEED_LEN bytes at NEED, which the process
 * must read, is not unmapped: the call fails, -EBUSY.
 * SECURITY: such a write
 * needs no descriptor and no system call: no Landlock rule or seccomp
 * filter sees it.  Return: 0, or -errno (the maps cannot be read).
 */
int plat_os_unmap_shared(const void *keep, size_t keep_len,
    const void *need, size_t need_len);

/*
 * Give the LEN bytes at P, about to be written for the first time, their
 * pages now, in one call, instead of a page fault each (Linux 5.14's
 * MADV_POPULATE_WRITE; on a virtual machine a fault costs tens of
 * microseconds).  Only a hint: where it cannot, the writes fault as
 * before.
 */
void plat_os_prefault(void *p, size_t len);

/*
 * LEN bytes of memory on a huge page's boundary (2 MiB), marked for
 * transparent huge pages (Linux's MADV_HUGEPAGE: a hint, ignored where
 * they are off), or NULL; free(3) it.  For a buffer that is written
 * whole soon: a huge page costs one fault where 4 KiB pages cost 512, on
 * a virtual machine with shadow page tables 3 us each.
 */
void *plat_os_alloc_huge(size_t len);

/*
 * The bytes of this process's data (its private writable mappings and
 * stack: what RLIMIT_DATA counts, and a little more), as /proc tells
 * them; 0 where that cannot be known.  A forked process inherits them
 * all, and a limit set below them leaves it no allocation at all.
 */
uint64_t plat_os_data_size(void);

/* --- listing.c ------------------------------------------------------- */

/*
 * Make *D a listing of the directory open as FD (which stays open and
 * the caller's), starting at POS, a telldir(3) position, or at the
 * beginning if POS is negative.  Return: 0, or -errno.
 */
int plat_listing_open(int fd, long pos, DIR **d);

/* Is the directory open as FD empty?  Return: 1 yes, 0 no, or -errno. */
int plat_dir_is_empty(int fd);

/*
 * Is ROOT's directory empty now?  (An answer for that moment only: what
 * others add later is theirs to see.)  Return: 1 yes, 0 no, or -errno.
 */
int plat_root_is_empty(const struct pfx_root *root);

/*
 * Climb from the directory open as *FD to its parent, which must be the
 * directory UP (same device, inode and mount): else -EXDEV, as when it
 * was moved meanwhile.  Return: 0 with *FD the parent (the child
 * closed), or -errno with *FD left open.
 */
int plat_climb(int *fd, const struct plat_id *up);

/* --- process.c ------------------------------------------------------- */

/*
 * Sanitizer builds (make check's obj/san/ and obj/tsan/): gcc says
 * __SANITIZE_ADDRESS__ or __SANITIZE_THREAD__, clang __has_feature().
 */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define PLAT_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(leak_sanitizer) || \
    __has_feature(thread_sanitizer)
#define PLAT_SANITIZER 1
#endif
#endif
#ifndef PLAT_SANITIZER
#define PLAT_SANITIZER 0
#endif

/*
 * Is this process sanitized: this library built so (PLAT_SANITIZER), or
 * the program that uses it, built with ThreadSanitizer or
 * AddressSanitizer (found at run time)?  Their shadow memory counts
 * against RLIMIT_DATA, and their reports go to standard error.
 */
bool plat_sanitized(void);

/*
 * In a process just forked to run untrusted code: keep only the N
 * descriptors KEEP (moved to 3, 4, ... and KEEP updated; each close-on-
 * exec), make 0, 1 and 2 /dev/null (2 stays in sanitizer builds, whose
 * reports go there), close every other descriptor, and lower
 * RLIMIT_NOFILE to 3 + N + 32, so that what it can hold through
 * descriptors is bounded.  Return: 0, or -errno (the process must then
 * end).
 */
int plat_child_fds(int *keep, int n);

/*
 * A read-only descriptor for input FD, to hand to untrusted code: a new
 * open file description of a regular file (so neither FD's access mode
 * nor its offset is shared), else a duplicate of FD (a pipe or socket,
 * whose read end is all that was given).  FD open for writing only is
 * EBADF, as read(2) would say: it is not opened anew for reading.
 * Return: it, or -errno.
 */
int plat_input_readonly(int fd);

/*
 * The size of the input PATH (when not NULL) or FD, when it is a regular
 * file: the most a reader of it can read.  Return: it, or UINT64_MAX
 * (a pipe, a socket, a device, an error).
 */
uint64_t plat_input_size(const char *path, int fd);

/* The inputs one relay reads at most: an archive and 256 volumes. */
#define PLAT_RELAY_MAX 257

/*
 * Could untrusted code holding input FD (from plat_input_readonly())
 * write through it or act on a device with it?  Anything but a regular
 * file or a pipe open read-only: a socket, a terminal, a tape.
 */
bool plat_input_needs_relay(int fd);

/*
 * Put a pipe in the place of each of the N inputs FDS that
 * plat_input_needs_relay() (up to PLAT_RELAY_MAX), read by a relay that
 * parses nothing (relay.c): this process forks, and the child returns 0
 * with those FDS[i] replaced by the pipes' read ends.  The parent copies
 * each input into its pipe, waits for the child, and ends as it ended:
 * it never returns.  With none to relay, nothing is done.  Return: 0,
 * or -errno (nothing changed).
 */
int plat_input_relay(int *fds, size_t n);

/*
 * Could a confined writer holding output FD change the file itself
 * (mode, times, attributes) through it?  A regular file open for
 * writing: the read-only view reaches devices and pipes
 * (view_linux.c), not it.
 */
bool plat_output_needs_relay(int fd);

/* The most outputs one relay writes: standard output and error. */
#define PLAT_OUT_RELAY_MAX 4

struct plat_out_relay {
	pid_t pid;		/* the relay, or -1: none */
	int result;		/* the first output's result, or -1 */
	bool first_alone;	/* its pipe is the first output's alone */
};

/*
 * Put the write end of a pipe in the place of each of the N outputs
 * FDS (at most PLAT_OUT_RELAY_MAX) that plat_output_needs_relay(), same
 * number, and fork a relay that parses nothing and copies each pipe
 * into its file (two numbers of one file share a pipe, which keeps
 * their order).  *RL: the relay (pid -1 where none was needed).
 * Return: 0, or -errno (nothing changed, unless a dup2 failed: then
 * the relay runs).
 */
int plat_output_relay(const int *fds, size_t n, struct plat_out_relay *rl);

/*
 * Once the caller has closed FDS[0] (and RL->first_alone says no other
 * number writes into its pipe), wait until the relay has written all of
 * it.  Return: 0, or the errno of the first write into its file that
 * failed (ENOSPC).
 */
int plat_output_relay_first(struct plat_out_relay *rl);

/*
 * Once the caller has closed every one of FDS, wait for the relay to
 * have written all it was given and ended.  Return: 0; the errno of the
 * first output's failed write (unless plat_output_relay_first() told
 * it); EIO if the relay failed; or -errno of the wait.
 */
int plat_output_relay_wait(struct plat_out_relay *rl);

/* --- sandbox_*.c ------------------------------------------------------ */

struct pfx_sandbox_info;

/*
 * Internal flags of plat_sandbox_confine().  PLAT_SANDBOX_SIGNAL_OUT: the
 * process may signal other processes (a parent that must kill the child
 * it forked before confining itself): the filter's signal rules are
 * left out, and Landlock does not scope signals (abstract UNIX sockets
 * stay scoped; info->text then says "socket scope", not "scope").
 */
#define PLAT_SANDBOX_SIGNAL_OUT 0x1

/*
 * PLAT_SANDBOX_DECODER: the process is the decoder (extract/child.c), the
 * one code an archive may take over: besides PFX_SANDBOX_NO_DEST's
 * rules, the filter lets it use the descriptors it holds only through
 * the few ioctls that read (no chattr(1) of the archive, no freeze of
 * its file system), and refuses what would hold memory its RLIMIT_DATA
 * does not count (shared anonymous mappings, memfds, System V segments,
 * socket pairs), reach another process without a path (System V IPC,
 * POSIX message queues) or take from its user's budget (inotify).
 */
#define PLAT_SANDBOX_DECODER 0x2

/*
 * pfx_sandbox_confine() (see pfx_sandbox.h), with INTERNAL a combination
 * of PLAT_SANDBOX_* flags (0: pfx_sandbox_confine() itself).  Unknown
 * INTERNAL bits: -EINVAL, nothing applied.  Return: as
 * pfx_sandbox_confine().
 */
int plat_sandbox_confine(int destfd, unsigned int flags,
    unsigned int internal, struct pfx_sandbox_info *info);

/*
 * Give this process (it must run one thread) its own copy of the mount
 * table, every mount read-only, after giving each directory descriptor
 * it holds -- DESTFD among them -- a mount of its own, rooted at that
 * directory (DESTFD's at its parent, writable), under the same number
 * (view_linux.c).  Without CAP_SYS_ADMIN, for an ordinary user (not uid
 * 0, no capability), in a user namespace of its own that maps its ids to
 * themselves, every capability there dropped after; *USERNS then says
 * so.  Every procfs mount of the copy is detached (its magic links
 * /proc/self/exe and map_files lead to the writable mounts left), unless
 * KEEP_PROC (sanitizer builds, whose leak check reads /proc/self) or in
 * a user namespace (locked there).  Linux only, called by
 * plat_sandbox_confine().  Return: 0; -EPERM without CAP_SYS_ADMIN (and
 * no user namespace tried), -EBUSY with other threads, -EXDEV where
 * DESTFD or its parent is "/" (the tree would be every mount), -ESTALE
 * where DESTFD was not found under its name in its parent, time after
 * time (renamed meanwhile: plat_sandbox_confine() then fails), -ENOSYS
 * on a kernel before 5.12, or another -errno (with *USERNS: the user
 * namespace's): the mounts are then as writable as before.
 * -ENOTRECOVERABLE: a user namespace was made but its ids could not be
 * mapped, or its capabilities dropped: the process must not be used
 * (pfx_sandbox_confine()'s "failed midway").
 */
int plat_view_readonly(int destfd, bool keep_proc, bool *userns);

#endif /* PLATFORM_H */
