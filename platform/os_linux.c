/*
 * os_linux.c -- the Linux calls behind the platform layer: openat2(2)
 * (Linux 5.6), mount IDs from statx(2) (Linux 5.8), renameat2(2)
 * RENAME_NOREPLACE, files made without a name (O_TMPFILE, Linux 3.11) and
 * hard links made from a descriptor; and SCHED_BATCH for the library's
 * own threads (plat_thread.h).  glibc 2.36 has no openat2() wrapper,
 * hence syscall(2).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <linux/futex.h>
#include <linux/openat2.h>
#include <pthread.h>
#include <grp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "plat_thread.h"
#include "platform.h"

#define RESOLVE_CONFINED (RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | \
    RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV)

/* see platform.h */
int
plat_os_identify(int fd, struct plat_id *id)
{
	return plat_os_identify_at(fd, "", id);
}

/* see platform.h */
int
plat_os_identify_at(int dirfd, const char *path, struct plat_id *id)
{
	struct statx stx;

	/* "" is DIRFD itself (AT_EMPTY_PATH); never through a symlink. */
	if (statx(dirfd, path, (path[0] == '\0' ? AT_EMPTY_PATH : 0) |
	    AT_SYMLINK_NOFOLLOW, STATX_TYPE | STATX_MODE | STATX_INO |
	    STATX_MNT_ID | STATX_BTIME, &stx) == -1)
		return -errno;
	id->dev = makedev(stx.stx_dev_major, stx.stx_dev_minor);
	id->ino = (ino_t)stx.stx_ino;
	id->mode = stx.stx_mode;
	/* Linux before 5.8 has no mount ID: st_dev is then all we have. */
	id->mnt = (stx.stx_mask & STATX_MNT_ID) != 0 ? stx.stx_mnt_id : 0;
	/* Some filesystems claim a birth time and give 0: none, as 0. */
	id->btime.tv_sec = 0;
	id->btime.tv_nsec = 0;
	if ((stx.stx_mask & STATX_BTIME) != 0) {
		id->btime.tv_sec = (time_t)stx.stx_btime.tv_sec;
		id->btime.tv_nsec = (long)stx.stx_btime.tv_nsec;
	}
	return 0;
}

/* see platform.h */
int
plat_os_fs_now(int dirfd, struct timespec *t)
{
	struct plat_id id;
	int fd, r;

	fd = openat(dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
	if (fd == -1)
		return errno == EISDIR || errno == EOPNOTSUPP ||
		    errno == EINVAL ? -ENOTSUP : -errno;
	r = plat_os_identify(fd, &id);
	plat_close(fd);
	if (r < 0)
		return r;
	if (id.btime.tv_sec == 0 && id.btime.tv_nsec == 0)
		return -ENOTSUP;
	*t = id.btime;
	return 0;
}

/* see platform.h */
int
plat_os_search_flag(void)
{
	return O_PATH;
}

/* see platform.h */
int
plat_os_pin_flags(void)
{
	return O_PATH;
}

/*
 * In a root used as a root filesystem (pfx_root_in_root()): symlinks are
 * followed, but "/" and ".." at the top are the root itself, and neither a
 * magic link nor a mount crossing is taken.
 */
#define RESOLVE_ROOTED (RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS | \
    RESOLVE_NO_XDEV)

static int
raw_openat2_how(int dirfd, const char *path, int flags,
    unsigned long long resolve)
{
	struct open_how how;

	memset(&how, 0, sizeof(how));
	how.flags = (unsigned long long)(flags | O_CLOEXEC);
	how.resolve = resolve;
	return (int)syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
}

static int
raw_openat2(int dirfd, const char *path, int flags)
{
	return raw_openat2_how(dirfd, path, flags, RESOLVE_CONFINED);
}

/* see platform.h */
int
plat_os_openat2_probe(int rootfd)
{
	int fd;

	fd = raw_openat2(rootfd, ".", O_PATH | O_DIRECTORY);
	if (fd >= 0) {
		plat_close(fd);
		return 0;
	}
	/* Old kernels say ENOSYS; seccomp filters often say EPERM. */
	if (errno == ENOSYS || errno == EPERM || errno == EINVAL ||
	    errno == E2BIG)
		return -ENOSYS;
	return -errno;
}

/* openat2 with RESOLVE, retried as plat_os_openat2() says. */
static int
retry_openat2(int dirfd, const char *path, int flags,
    unsigned long long resolve)
{
	int fd, i;

	/*
	 * openat2 fails with EAGAIN when a rename or mount happened anywhere
	 * on the system during a RESOLVE_BENEATH lookup: it cannot then prove
	 * the walk stayed beneath.  Retry a bounded number of times; a
	 * hostile renamer that wins every time gets EAGAIN, not a hang.
	 */
	for (i = 0; i < PLAT_OPENAT2_RETRIES; i++) {
		fd = raw_openat2_how(dirfd, path, flags, resolve);
		if (fd >= 0)
			return fd;
		if (errno != EAGAIN && errno != EINTR)
			return -errno;
	}
	return -EAGAIN;
}

/* see platform.h */
int
plat_os_openat2(int dirfd, const char *path, int flags)
{
	return retry_openat2(dirfd, path, flags, RESOLVE_CONFINED);
}

/* see platform.h */
int
plat_os_openat2_in_root(int dirfd, const char *path, int flags)
{
	return retry_openat2(dirfd, path, flags, RESOLVE_ROOTED);
}

/* see platform.h */
int
plat_os_rename_noreplace(int olddirfd, const char *oldname, int newdirfd,
    const char *newname)
{
	if (renameat2(olddirfd, oldname, newdirfd, newname,
	    RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL)
		return -errno;
	/* A filesystem without RENAME_NOREPLACE: link, then unlink. */
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
	char proc[64];
	int n;

	if (linkat(fd, "", dirfd, name, AT_EMPTY_PATH) == 0)
		return 0;
	/*
	 * AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH; without it the kernel
	 * says ENOENT.  /proc/self/fd/N names the same open inode.
	 */
	if (errno != ENOENT && errno != EPERM)
		return -errno;
	n = snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if (n < 0 || (size_t)n >= sizeof(proc))
		return -EINVAL;
	if (linkat(AT_FDCWD, proc, dirfd, name, AT_SYMLINK_FOLLOW) == -1)
		return -errno;
	return 0;
}

/* see platform.h */
int
plat_os_open_unnamed(int dirfd, mode_t mode)
{
	int fd;

	fd = openat(dirfd, ".", O_TMPFILE | O_WRONLY | O_NOCTTY | O_CLOEXEC,
	    mode);
	if (fd >= 0)
		return fd;
	/* Filesystems without it say EOPNOTSUPP; kernels before 3.11 take
	 * the flag for O_DIRECTORY and say EISDIR. */
	if (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)
		return -ENOTSUP;
	return -errno;
}

/* see platform.h */
int
plat_os_unnamed_probe(int dirfd)
{
	char proc[64];
	int fd, n, ok;

	fd = plat_os_open_unnamed(dirfd, 0600);
	if (fd < 0)
		return 0;
	/*
	 * linkat(fd, "", AT_EMPTY_PATH) needs CAP_DAC_READ_SEARCH, or (Linux
	 * 6.10) the credentials that opened the file, which another thread
	 * may no longer share.  /proc/self/fd/N needs neither, but a
	 * confined process may have no /proc (view_linux.c): one of the two
	 * must work, as plat_os_link_fd() tries them.  "." always exists,
	 * so a kernel that could link says EEXIST, and nothing is made.
	 */
	if (linkat(fd, "", dirfd, ".", AT_EMPTY_PATH) == -1 &&
	    errno == EEXIST) {
		plat_close(fd);
		return 1;
	}
	n = snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	ok = n > 0 && (size_t)n < sizeof(proc) &&
	    linkat(AT_FDCWD, proc, dirfd, ".", AT_SYMLINK_FOLLOW) == -1 &&
	    errno == EEXIST;
	plat_close(fd);
	return ok;
}

/* see platform.h */
int
plat_os_random(void *buf, size_t len)
{
	ssize_t n;

	do {
		n = getrandom(buf, len, 0);
	} while (n == -1 && errno == EINTR);
	if (n == -1)
		return -errno;
	if ((size_t)n != len)
		return -EIO;
	return 0;
}

/* see platform.h */
int
plat_os_fsetxattr(int fd, const char *name, const void *value, size_t size)
{
	if (fsetxattr(fd, name, value, size, 0) == -1)
		return -errno;
	return 0;
}

/* see platform.h */
int
plat_os_link_meta(int dirfd, const char *name, uid_t uid, gid_t gid,
    const struct timespec *times, const struct timespec *since)
{
	struct plat_id id;
	int fd, r;

	/* An O_PATH descriptor pins the link's own inode: check, then act
	 * on that very inode, never on whatever has the name by then. */
	fd = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd == -1)
		return -errno;
	r = plat_os_identify(fd, &id);
	if (r == 0 && !S_ISLNK(id.mode))
		r = -EINVAL;
	/* SECURITY: an old link moved to NAME since ours was made there
	 * is not ours to change. */
	else if (r == 0 && since != NULL && plat_born_since(&id, since) == 0)
		r = -ESTALE;
	if (r == 0 && (uid != (uid_t)-1 || gid != (gid_t)-1) &&
	    fchownat(fd, "", uid, gid, AT_EMPTY_PATH) == -1)
		r = -errno;
	if (r == 0 && times != NULL &&
	    utimensat(fd, "", times, AT_EMPTY_PATH) == -1)
		r = -errno;
	plat_close(fd);
	return r;
}

/* see platform.h */
int
plat_os_rename_dir(int olddirfd, const char *oldname, int newdirfd,
    const char *newname, int how)
{
	struct stat st;

	if (renameat2(olddirfd, oldname, newdirfd, newname,
	    how == PLAT_RENAME_EXCHANGE ? RENAME_EXCHANGE :
	    RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -errno;
	/* A filesystem without the flags (some network ones). */
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

/* see plat_thread.h */
int
plat_thread_batch(pthread_t t)
{
	struct sched_param sp = { 0 };

	return -pthread_setschedparam(t, SCHED_BATCH, &sp);
}

/* Cgroup depth walked for a quota: deeper trees are not made by hand. */
#define CPU_QUOTA_MAX_DEPTH 32

/* Read the small file NAME under DIRFD into BUF (NUL-ended).  0 or -1. */
static int
read_small(int dirfd, const char *name, char *buf, size_t cap)
{
	ssize_t n;
	int fd;

	fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd == -1)
		return -1;
	n = read(fd, buf, cap - 1);
	(void)close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

/* CPUs of a quota of QUOTA per PERIOD, rounded up; 0 for no cap. */
static unsigned int
quota_cpus(long long quota, long long period)
{
	long long cpus;

	if (quota <= 0 || period <= 0)
		return 0;
	cpus = quota / period + (quota % period != 0);
	return cpus > (long long)UINT_MAX ? UINT_MAX : (unsigned int)cpus;
}

/*
 * The CPUs the cgroup directory DIRFD caps its processes to, or 0: v2's
 * cpu.max ("QUOTA PERIOD", or "max PERIOD" for none), v1's
 * cpu.cfs_quota_us (-1 for none) over cpu.cfs_period_us.
 */
static unsigned int
cgroup_dir_cpus(int dirfd, bool v2)
{
	char buf[64];
	long long quota, period;

	if (v2)
		return read_small(dirfd, "cpu.max", buf, sizeof(buf)) == 0 &&
		    sscanf(buf, "%lld %lld", &quota, &period) == 2 ?
		    quota_cpus(quota, period) : 0;
	if (read_small(dirfd, "cpu.cfs_quota_us", buf, sizeof(buf)) == -1 ||
	    sscanf(buf, "%lld", &quota) != 1 ||
	    read_small(dirfd, "cpu.cfs_period_us", buf, sizeof(buf)) == -1 ||
	    sscanf(buf, "%lld", &period) != 1)
		return 0;
	return quota_cpus(quota, period);
}

/*
 * The smallest CPU quota from the cgroup PATH (as /proc/self/cgroup
 * gives it, from "/") up to the root of the hierarchy mounted at MOUNT,
 * or 0 where none is set or MOUNT is not there.  Each step up is an
 * openat(".."), never a path built from PATH's parts.
 */
static unsigned int
cgroup_walk_cpus(const char *mount, const char *path, bool v2)
{
	unsigned int best = 0, q;
	int dir, up, depth, levels = 0;
	const char *p;

	for (p = path; *p != '\0'; p++)
		levels += *p == '/' && p[1] != '\0' && p[1] != '/';
	dir = open(mount, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir == -1)
		return 0;
	if (levels > 0) {
		up = openat(dir, path + 1, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		(void)close(dir);
		if (up == -1)
			return 0;
		dir = up;
	}
	for (depth = 0; depth <= levels && depth < CPU_QUOTA_MAX_DEPTH;
	    depth++) {
		q = cgroup_dir_cpus(dir, v2);
		if (q != 0 && (best == 0 || q < best))
			best = q;
		if (depth == levels)
			break;
		up = openat(dir, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		(void)close(dir);
		if (up == -1)
			return best;
		dir = up;
	}
	(void)close(dir);
	return best;
}

/* The smaller of two caps, where 0 is none. */
static unsigned int
min_cap(unsigned int a, unsigned int b)
{
	return a == 0 ? b : b == 0 || a < b ? a : b;
}

/* Does the comma list LIST of a /proc/self/cgroup line name "cpu"? */
static bool
names_cpu(const char *list, size_t len)
{
	size_t i = 0, j;

	while (i < len) {
		for (j = i; j < len && list[j] != ','; j++)
			continue;
		if (j - i == 3 && memcmp(list + i, "cpu", 3) == 0)
			return true;
		i = j + 1;
	}
	return false;
}

/*
 * The CPU quota of the process's cgroups, v2 ("0::PATH") and v1 (the
 * line whose controllers name "cpu"), at the places Linux distributions
 * mount them; 0 where none caps it.
 */
static unsigned int
cgroup_cpus(void)
{
	static const char *const v2_mounts[] = {
		"/sys/fs/cgroup", "/sys/fs/cgroup/unified",
	};
	static const char *const v1_mounts[] = {
		"/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct",
	};
	char text[4096], *line, *next, *c1, *c2;
	unsigned int best = 0;
	size_t i;

	if (read_small(AT_FDCWD, "/proc/self/cgroup", text, sizeof(text)) == -1)
		return 0;
	for (line = text; line != NULL && *line != '\0'; line = next) {
		next = strchr(line, '\n');
		if (next != NULL)
			*next++ = '\0';
		c1 = strchr(line, ':');
		c2 = c1 == NULL ? NULL : strchr(c1 + 1, ':');
		if (c2 == NULL || c2[1] != '/')
			continue;
		if (c2 == c1 + 1 && strncmp(line, "0:", 2) == 0) {
			for (i = 0; i < sizeof(v2_mounts) / sizeof(*v2_mounts);
			    i++)
				best = min_cap(best,
				    cgroup_walk_cpus(v2_mounts[i], c2 + 1, true));
		} else if (names_cpu(c1 + 1, (size_t)(c2 - c1 - 1))) {
			for (i = 0; i < sizeof(v1_mounts) / sizeof(*v1_mounts);
			    i++)
				best = min_cap(best,
				    cgroup_walk_cpus(v1_mounts[i], c2 + 1,
				    false));
		}
	}
	return best;
}

/* see plat_thread.h */
unsigned int
plat_thread_cpus(void)
{
	cpu_set_t set;
	unsigned int cpus = 1, quota;
	int n;

	if (sched_getaffinity(0, sizeof(set), &set) == 0) {
		n = CPU_COUNT(&set);
		cpus = n > 0 ? (unsigned int)n : 1;
	} else {
		long on = sysconf(_SC_NPROCESSORS_ONLN);

		cpus = on > 0 ? (unsigned int)on : 1;
	}
	quota = cgroup_cpus();
	return quota != 0 && quota < cpus ? quota : cpus;
}

/* see platform.h */
mode_t
plat_os_dirent_type(const struct dirent *de)
{
	switch (de->d_type) {
	case DT_LNK:
		return S_IFLNK;
	case DT_DIR:
		return S_IFDIR;
	case DT_REG:
		return S_IFREG;
	case DT_FIFO:
		return S_IFIFO;
	case DT_SOCK:
		return S_IFSOCK;
	case DT_CHR:
		return S_IFCHR;
	case DT_BLK:
		return S_IFBLK;
	}
	return 0;	/* DT_UNKNOWN: the filesystem does not say */
}

/* see platform.h */
int
plat_os_close_range(int lo, int hi)
{
#ifdef SYS_close_range
	if (syscall(SYS_close_range, (unsigned int)lo, (unsigned int)hi,
	    0u) == 0)
		return 0;
	/* EINVAL too: a kernel before 5.9 may not know the call. */
	return errno == ENOSYS || errno == EINVAL ? -ENOSYS : -errno;
#else
	(void)lo;
	(void)hi;
	return -ENOSYS;
#endif
}

/* see platform.h */
int
plat_os_pidfd_open(pid_t pid)
{
#ifdef SYS_pidfd_open
	long fd = syscall(SYS_pidfd_open, pid, 0u);

	if (fd >= 0) {
		/* pidfd_open(2) descriptors are always close-on-exec. */
		return (int)fd;
	}
	return -errno;
#else
	(void)pid;
	return -ENOSYS;
#endif
}

/* see platform.h */
int
plat_os_dir_writable(int dirfd)
{
	int fd;

	if (faccessat(dirfd, ".", W_OK | X_OK, AT_EACCESS) == -1)
		return -errno;
	/*
	 * SECURITY: the mode bits, ACLs and read-only mounts are not all:
	 * a Landlock domain of the caller's (or a path-based LSM) refuses
	 * every write in a directory that faccessat(2) says may be
	 * written, and each entry would then be refused alone as if a
	 * subdirectory's.  So make a file there too, one with no name
	 * (O_TMPFILE), which those check as any other and which goes with
	 * its descriptor: nothing in the directory changes.  Where the
	 * file system has no O_TMPFILE, the look alone answers.
	 */
	fd = openat(dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
	if (fd >= 0) {
		plat_close(fd);
		return 0;
	}
	return errno == EACCES || errno == EPERM || errno == EROFS ?
	    -errno : 0;
}

/* see platform.h */
int
plat_os_reopen_readonly(int fd)
{
	char path[40];
	off_t at;
	int nfd;

	at = lseek(fd, 0, SEEK_CUR);
	if (at == -1)
		return -errno;
	/* A magic link: the very file FD is open on, even if renamed. */
	(void)snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	nfd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (nfd == -1)
		return -errno;
	if (lseek(nfd, at, SEEK_SET) == -1) {
		int e = errno;

		(void)close(nfd);
		return -e;
	}
	return nfd;
}

/* see platform.h */
int
plat_os_bound_tasks(unsigned int n)
{
	const struct rlimit inf = { RLIM_INFINITY, RLIM_INFINITY };
	struct rlimit rl;
	bool root = getuid() == 0, alone;

	if (root) {
		/* Raised first where it may be (CAP_SYS_RESOURCE): a user
		 * namespace made below takes the limit of its parent's
		 * level (all of the identity's tasks) from this one. */
		(void)setrlimit(RLIMIT_NPROC, &inf);
		if (setgroups(0, NULL) == -1 ||
		    setresgid(PLAT_DECODER_ID, PLAT_DECODER_ID,
		    PLAT_DECODER_ID) == -1 ||
		    setresuid(PLAT_DECODER_ID, PLAT_DECODER_ID, 0) == -1)
			return -errno;
	}
	/* Its tasks counted on their own: (namespace, user). */
	alone = unshare(CLONE_NEWUSER) == 0;
	if (!alone && !root)
		return 1;	/* the user's own RLIMIT_NPROC */
	rl.rlim_cur = (rlim_t)n + (alone ? 0 : PLAT_TASKS_SLACK);
	rl.rlim_max = rl.rlim_cur;
	if (setrlimit(RLIMIT_NPROC, &rl) == -1)
		return -errno;
	return alone ? 0 : 1;
}

/* see platform.h */
ssize_t
plat_os_splice_out(int pipe_fd, int fd, size_t max)
{
	ssize_t n;

	do
		n = splice(pipe_fd, NULL, fd, NULL, max, SPLICE_F_MOVE);
	while (n == -1 && errno == EINTR);
	return n == -1 ? -errno : n;
}

/* see platform.h */
void
plat_os_pipe_grow(int fd)
{
	/* /proc/sys/fs/pipe-max-size, 1 MiB by default; less is fine. */
	(void)fcntl(fd, F_SETPIPE_SZ, 1 << 20);
}

/* see platform.h */
void
plat_os_wait_word(const uint32_t *addr, uint32_t val, int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	/* Not FUTEX_PRIVATE_FLAG: the word is shared between processes. */
	(void)syscall(SYS_futex, addr, FUTEX_WAIT, val, &ts, NULL, 0);
}

/* see platform.h */
void
plat_os_wake_word(const uint32_t *addr)
{
	(void)syscall(SYS_futex, addr, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

/* see platform.h */
void *
plat_os_shared_map(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return p != MAP_FAILED ? p : NULL;
}

/* see platform.h */
void
plat_os_shared_unmap(void *p, size_t len)
{
	if (p != NULL)
		(void)munmap(p, len);
}

/* How many shared mappings one look at the maps collects. */
#define SHARED_BATCH 64

/*
 * The mappings of this process that may write to what another process
 * or a file sees: shared ("sh") and writable or able to become so
 * ("mw": mprotect(2) may add PROT_WRITE, as for a file open for
 * writing), but those inside [KEEP, KEEP_END) (one mapping, or its
 * parts if it was ever split).  Not glibc's gconv cache, shared but from
 * a read-only descriptor.  Up to CAP of them into LO and HI, their count
 * into *N.  Return: 0, or -errno.
 */
static int
shared_maps(uintptr_t keep, uintptr_t keep_end, uintptr_t *lo,
    uintptr_t *hi, size_t cap, size_t *n)
{
	FILE *f = fopen("/proc/self/smaps", "re");
	unsigned long a = 0, b = 0;
	char line[512];
	bool start = true, have = false;

	*n = 0;
	if (f == NULL)
		return -errno;
	while (*n < cap && fgets(line, sizeof(line), f) != NULL) {
		/* A long line (a path) comes in pieces: only a line's first
		 * piece is read.  A mapping's line starts with its address
		 * (lowercase hex), its fields with a capital. */
		if (start && ((line[0] >= '0' && line[0] <= '9') ||
		    (line[0] >= 'a' && line[0] <= 'f')))
			have = sscanf(line, "%lx-%lx", &a, &b) == 2 &&
			    b > a && !(a >= keep && b <= keep_end);
		else if (start && have &&
		    strncmp(line, "VmFlags:", 8) == 0 &&
		    strstr(line, " sh") != NULL &&
		    strstr(line, " mw") != NULL) {
			lo[*n] = a;
			hi[*n] = b;
			(*n)++;
			have = false;
		}
		start = strchr(line, '\n') != NULL;
	}
	(void)fclose(f);
	return 0;
}

/* see platform.h */
int
plat_os_unmap_shared(const void *keep, size_t keep_len, const void *need,
    size_t need_len)
{
	uintptr_t lo[SHARED_BATCH], hi[SHARED_BATCH];
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t end = (uintptr_t)keep + keep_len;
	size_t n, i;
	int round, r;

	/* A mapping ends on a page: so does what is kept. */
	if (page > 0 && keep_len > 0)
		end = (end + page - 1) & ~(page - 1);

	/* Read whole before any is unmapped (the list changes), then
	 * again, until none is left. */
	for (round = 0; round < 1024; round++) {
		r = shared_maps((uintptr_t)keep, end, lo, hi, SHARED_BATCH,
		    &n);
		if (r < 0 || n == 0)
			return r;
		for (i = 0; i < n; i++)
			if (need_len > 0 && lo[i] < (uintptr_t)need + need_len &&
			    hi[i] > (uintptr_t)need)
				return -EBUSY;
		for (i = 0; i < n; i++)
			if (munmap((void *)lo[i], hi[i] - lo[i]) == -1)
				return -errno;
	}
	return -E2BIG;
}

/* Not in every libc's headers yet (Linux 5.14). */
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/* see platform.h */
void *
plat_os_alloc_huge(size_t len)
{
	void *p;

	if (posix_memalign(&p, (size_t)2 << 20, len) != 0)
		return NULL;
	(void)madvise(p, len, MADV_HUGEPAGE);
	return p;
}

/* see platform.h */
void
plat_os_prefault(void *p, size_t len)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t from = (uintptr_t)p & ~(page - 1);
	uintptr_t to = ((uintptr_t)p + len + page - 1) & ~(page - 1);

	/* EINVAL before 5.14: the writes fault instead. */
	if (len > 0 && page > 0 && to > from)
		(void)madvise((void *)from, to - from, MADV_POPULATE_WRITE);
}

/* see platform.h */
uint64_t
plat_os_data_size(void)
{
	unsigned long size, res, shared, text, lib, data;
	long page = sysconf(_SC_PAGESIZE);
	FILE *f = fopen("/proc/self/statm", "re");
	int n;

	if (f == NULL)
		return 0;
	n = fscanf(f, "%lu %lu %lu %lu %lu %lu", &size, &res, &shared, &text,
	    &lib, &data);
	(void)fclose(f);
	if (n != 6 || page <= 0)
		return 0;
	return (uint64_t)data * (uint64_t)page;
}

/* see platform.h */
int
plat_os_keep_file_caps(bool ptrace)
{
	static const unsigned int keep[] = {
		CAP_CHOWN, CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER,
		CAP_FSETID, CAP_SYS_RESOURCE,
	};
	struct __user_cap_header_struct hdr;
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	uint32_t mask[_LINUX_CAPABILITY_U32S_3] = { 0 };
	size_t i;

	for (i = 0; i < sizeof(keep) / sizeof(keep[0]); i++)
		mask[keep[i] / 32] |= 1u << (keep[i] % 32);
	if (ptrace)
		mask[CAP_SYS_PTRACE / 32] |= 1u << (CAP_SYS_PTRACE % 32);
	memset(&hdr, 0, sizeof(hdr));
	memset(data, 0, sizeof(data));
	hdr.version = _LINUX_CAPABILITY_VERSION_3;
	if (syscall(SYS_capget, &hdr, data) == -1)
		return -errno;
	for (i = 0; i < _LINUX_CAPABILITY_U32S_3; i++) {
		data[i].effective &= mask[i];
		data[i].permitted &= mask[i];
		data[i].inheritable = 0;
	}
	(void)prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	return syscall(SYS_capset, &hdr, data) == -1 ? -errno : 0;
}

/* see platform.h */
int
plat_os_drop_privileges(void)
{
	struct __user_cap_header_struct hdr;
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	const struct rlimit none = { 0, 0 };

	/* No real-time priority, no nice value below the one it has.
	 * SECURITY: and no queued real-time signal or POSIX timer, which
	 * its user's whole budget pays (RLIMIT_SIGPENDING is checked
	 * against a count per user): a decoder taken over made 96,367
	 * timers, and no other process of its user could make one or queue
	 * such a signal while it ran.  The kernel's own (its interval
	 * timers' SIGALRM and SIGPROF, a fault's) are never refused. */
	if (setrlimit(RLIMIT_RTPRIO, &none) == -1 ||
	    setrlimit(RLIMIT_NICE, &none) == -1 ||
	    setrlimit(RLIMIT_SIGPENDING, &none) == -1)
		return -errno;
	(void)prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	memset(&hdr, 0, sizeof(hdr));
	memset(data, 0, sizeof(data));
	hdr.version = _LINUX_CAPABILITY_VERSION_3;
	hdr.pid = 0;
	return syscall(SYS_capset, &hdr, data) == -1 ? -errno : 0;
}
