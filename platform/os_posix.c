/*
 * os_posix.c -- the kernel-specific calls for systems other than Linux:
 * no openat2 (the walk resolver is used), RENAME_NOREPLACE emulated with
 * link(2) and unlink(2), and hard links from a descriptor where the
 * system offers AT_EMPTY_PATH (FreeBSD 13 and later); no batch
 * scheduling policy for the library's threads (plat_thread.h).
 */
#define _DEFAULT_SOURCE /* arc4random_buf(3) where glibc has it */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "plat_thread.h"
#include "platform.h"

#ifdef O_SEARCH
#define SEARCH_FLAG O_SEARCH
#else
#define SEARCH_FLAG O_RDONLY
#endif

/* see platform.h */
int
plat_os_identify(int fd, struct plat_id *id)
{
	struct stat st;

	if (fstat(fd, &st) == -1)
		return -errno;
	id->dev = st.st_dev;
	id->ino = st.st_ino;
	id->mode = st.st_mode;
	id->mnt = 0;	/* no portable mount ID: st_dev only */
	id->btime.tv_sec = 0;	/* nor a birth time */
	id->btime.tv_nsec = 0;
	return 0;
}

/* see platform.h: no portable birth time. */
int
plat_os_fs_now(int dirfd, struct timespec *t)
{
	(void)dirfd;
	(void)t;
	return -ENOTSUP;
}

/* see platform.h */
int
plat_os_identify_at(int dirfd, const char *path, struct plat_id *id)
{
	struct stat st;

	if (fstatat(dirfd, path, &st, AT_SYMLINK_NOFOLLOW) == -1)
		return -errno;
	id->dev = st.st_dev;
	id->ino = st.st_ino;
	id->mode = st.st_mode;
	id->mnt = 0;
	id->btime.tv_sec = 0;
	id->btime.tv_nsec = 0;
	return 0;
}

/* see platform.h */
int
plat_os_search_flag(void)
{
	return SEARCH_FLAG;
}

/* see platform.h */
int
plat_os_pin_flags(void)
{
	return O_RDONLY | O_NONBLOCK;
}

/* see platform.h */
int
plat_os_openat2_probe(int rootfd)
{
	(void)rootfd;
	return -ENOSYS;
}

/* see platform.h */
int
plat_os_openat2(int dirfd, const char *path, int flags)
{
	(void)dirfd;
	(void)path;
	(void)flags;
	return -ENOSYS;
}

/* see platform.h */
int
plat_os_openat2_in_root(int dirfd, const char *path, int flags)
{
	(void)dirfd;
	(void)path;
	(void)flags;
	return -ENOSYS;
}

/* see platform.h */
int
plat_os_rename_noreplace(int olddirfd, const char *oldname, int newdirfd,
    const char *newname)
{
	if (linkat(olddirfd, oldname, newdirfd, newname, 0) == -1)
		return -errno;
	if (unlinkat(olddirfd, oldname, 0) == -1)
		return -errno;
	return 0;
}

/* see platform.h */
int
plat_os_link_fd(int fd, int dirfd, const char *name)
{
#ifdef AT_EMPTY_PATH
	if (linkat(fd, "", dirfd, name, AT_EMPTY_PATH) == 0)
		return 0;
	return -errno;
#else
	(void)fd;
	(void)dirfd;
	(void)name;
	return -ENOTSUP;
#endif
}

/* see platform.h */
int
plat_os_open_unnamed(int dirfd, mode_t mode)
{
	(void)dirfd;
	(void)mode;
	return -ENOTSUP;
}

/* see platform.h */
int
plat_os_unnamed_probe(int dirfd)
{
	(void)dirfd;
	return 0;
}

/* see platform.h */
int
plat_os_random(void *buf, size_t len)
{
	arc4random_buf(buf, len);
	return 0;
}

/* see platform.h */
int
plat_os_fsetxattr(int fd, const char *name, const void *value, size_t size)
{
	(void)fd;
	(void)name;
	(void)value;
	(void)size;
	return -ENOTSUP;
}

/* see platform.h */
int
plat_os_link_meta(int dirfd, const char *name, uid_t uid, gid_t gid,
    const struct timespec *times, const struct timespec *since)
{
	struct stat st;

	(void)since;	/* no portable birth time */
	/*
	 * Without O_PATH a link cannot be pinned: this check and the change
	 * are two steps, and a swap between them is not detected here.
	 */
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == -1)
		return -errno;
	if (!S_ISLNK(st.st_mode))
		return -EINVAL;
	if ((uid != (uid_t)-1 || gid != (gid_t)-1) &&
	    fchownat(dirfd, name, uid, gid, AT_SYMLINK_NOFOLLOW) == -1)
		return -errno;
	if (times != NULL &&
	    utimensat(dirfd, name, times, AT_SYMLINK_NOFOLLOW) == -1)
		return -errno;
	return 0;
}

/* see platform.h */
int
plat_os_rename_dir(int olddirfd, const char *oldname, int newdirfd,
    const char *newname, int how)
{
	struct stat st;

	/* No portable exchange or no-replace rename: look, then move. */
	if (how == PLAT_RENAME_EXCHANGE)
		return -ENOTSUP;
	if (fstatat(newdirfd, newname, &st, AT_SYMLINK_NOFOLLOW) == 0)
		return -EEXIST;
	if (errno != ENOENT)
		return -errno;
	if (renameat(olddirfd, oldname, newdirfd, newname) == -1)
		return -errno;
	return 0;
}

/* see platform.h */
mode_t
plat_os_dirent_type(const struct dirent *de)
{
	(void)de;
	return 0;	/* d_type is not POSIX: always look */
}

/* see plat_thread.h */
int
plat_thread_batch(pthread_t t)
{
	(void)t;
	return -ENOTSUP;
}

/* see plat_thread.h */
unsigned int
plat_thread_cpus(void)
{
	long on = sysconf(_SC_NPROCESSORS_ONLN);

	return on > 0 ? (unsigned int)on : 1;
}

/* see platform.h */
int
plat_os_close_range(int lo, int hi)
{
	(void)lo;
	(void)hi;
	return -ENOSYS;
}

/* see platform.h */
int
plat_os_pidfd_open(pid_t pid)
{
	(void)pid;
	return -ENOSYS;
}

/* see platform.h */
int
plat_os_reopen_readonly(int fd)
{
	(void)fd;
	return -ENOSYS;
}

/* see platform.h */
int
plat_os_bound_tasks(unsigned int n)
{
	(void)n;
	return -ENOSYS;
}

/* see platform.h */
ssize_t
plat_os_splice_out(int pipe_fd, int fd, size_t max)
{
	(void)pipe_fd;
	(void)fd;
	(void)max;
	return -ENOSYS;
}

/* see platform.h */
void
plat_os_pipe_grow(int fd)
{
	(void)fd;
}

/* see platform.h */
void
plat_os_wait_word(const uint32_t *addr, uint32_t val, int ms)
{
	struct timespec ts = { 0, 1000000L };	/* 1 ms: then look again */

	(void)addr;
	(void)val;
	(void)ms;
	(void)nanosleep(&ts, NULL);
}

/* see platform.h */
void
plat_os_wake_word(const uint32_t *addr)
{
	(void)addr;
}

/* see platform.h */
void *
plat_os_shared_map(size_t len)
{
#if defined(MAP_ANON)
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANON, -1, 0);

	return p != MAP_FAILED ? p : NULL;
#else
	(void)len;
	return NULL;	/* the data then goes through the socket */
#endif
}

/* see platform.h */
void
plat_os_shared_unmap(void *p, size_t len)
{
	if (p != NULL)
		(void)munmap(p, len);
}

/* see platform.h */
int
plat_os_unmap_shared(const void *keep, size_t keep_len, const void *need,
    size_t need_len)
{
	/* No portable list of a process's mappings. */
	(void)keep;
	(void)keep_len;
	(void)need;
	(void)need_len;
	return 0;
}

/* see platform.h */
void
plat_os_prefault(void *p, size_t len)
{
	(void)p;	/* the writes fault as they come */
	(void)len;
}

/* see platform.h */
void *
plat_os_alloc_huge(size_t len)
{
	void *p;

	/* No huge pages to ask for: aligned all the same. */
	if (posix_memalign(&p, (size_t)2 << 20, len) != 0)
		return NULL;
	return p;
}

/* see platform.h */
uint64_t
plat_os_data_size(void)
{
	return 0;	/* not known: the limit is the budget's alone */
}

/* see platform.h */
int
plat_os_dir_writable(int dirfd)
{
	return faccessat(dirfd, ".", W_OK | X_OK, AT_EACCESS) == 0 ? 0 :
	    -errno;
}

/* see platform.h */
int
plat_os_keep_file_caps(bool ptrace)
{
	/* No portable capabilities. */
	(void)ptrace;
	return 0;
}

/* see platform.h */
int
plat_os_drop_privileges(void)
{
	/* No portable capabilities; set-id programs are the caller's. */
	return 0;
}
