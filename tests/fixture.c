/*
 * fixture.c -- helpers that the test files share for their fixtures (see
 * fixture.h): one way to remove a tree, to count open descriptors, and to
 * snapshot a tree.
 *
 * A snapshot is a text, one line per entry, sorted by name and recursing
 * into directories without following a symlink.  A line holds the path,
 * the type, the permission bits, the size, the link count, the owner and
 * group, the mtime in nanoseconds, the FNV-1a hash of a regular file's
 * whole content and a symlink's target; an entry that cannot be read
 * gets a line saying why.  Two snapshots of a tree are equal only if
 * nothing in it that a test watches has changed.  And a racer that
 * swaps old entries in where a run makes new ones (tfx_swapper).
 */
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "fixture.h"

/* The first error tfx_rm_tree() met, as -errno; 0 if none. */
static _Thread_local int rm_error;

/* Make the directory PATH writable and searchable, so that it can go. */
static int
rm_prepare(const char *path, const struct stat *st, int flag,
    struct FTW *ftw)
{
	(void)ftw;
	if (flag == FTW_D || flag == FTW_DNR)
		(void)chmod(path, (st->st_mode & 07777) | 0700);
	return 0;
}

/* Remove PATH, noting the first failure but going on.  Returns 0. */
static int
rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	if (remove(path) == -1 && errno != ENOENT && rm_error == 0)
		rm_error = -errno;
	return 0;
}

/*
 * Remove PATH and everything beneath it, never following a symlink and
 * never crossing into another mount.  Directories are first made
 * writable, so that a test's read-only directory does not stay behind.
 * A PATH that does not exist is no error.
 * Return: 0, or the first -errno.
 */
int
tfx_rm_tree(const char *path)
{
	rm_error = 0;
	if (nftw(path, rm_prepare, 16, FTW_PHYS | FTW_MOUNT) == -1) {
		if (errno == ENOENT)
			return 0;
		return -errno;
	}
	if (nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT) == -1 &&
	    errno != ENOENT && rm_error == 0)
		rm_error = -errno;
	return rm_error;
}

/*
 * Count the descriptors this process holds, leaving out the one that
 * the count itself opens.
 * Return: how many.
 */
int
tfx_count_fds(void)
{
	struct dirent *de;
	DIR *d;
	int n = 0;

	d = opendir("/proc/self/fd");
	cr_assert(d != NULL, "opendir /proc/self/fd: %s", strerror(errno));
	for (;;) {
		de = readdir(d);
		if (de == NULL)
			break;
		if (de->d_name[0] != '.')
			n++;
	}
	(void)closedir(d);
	return n - 1;
}

/*
 * Count the threads of this process (Linux's /proc/self/task).
 * Return: how many, or -1 where /proc cannot tell.
 */
int
tfx_count_threads(void)
{
	struct dirent *de;
	DIR *d = opendir("/proc/self/task");
	int n = 0;

	if (d == NULL)
		return -1;
	while ((de = readdir(d)) != NULL)
		n += de->d_name[0] != '.';
	(void)closedir(d);
	return n;
}

/*
 * The threads of this process, once they are WANT or fewer, or after two
 * seconds: a thread that pthread_join(3) has returned for is still listed
 * in /proc/self/task until the kernel has finished its exit, which on a
 * loaded machine can be a while.  Return: the last count.
 */
int
tfx_threads_settle(int want)
{
	struct timespec tick = { 0, 10 * 1000 * 1000 };
	int n, i;

	for (i = 0; (n = tfx_count_threads()) > want && i < 200; i++)
		(void)nanosleep(&tick, NULL);
	return n;
}

/*
 * Pin this process to the first CPU of its affinity mask, as taskset -c
 * does, so that the library counts one CPU (plat_thread_cpus()); *OLD
 * gets the mask it had, to put back with sched_setaffinity(2).
 * Criterion runs each test in a process of its own: the pin ends with it.
 * Return: the CPUs the mask had.
 */
int
tfx_pin_one_cpu(cpu_set_t *old)
{
	cpu_set_t one;
	int c;

	cr_assert(sched_getaffinity(0, sizeof(*old), old) == 0);
	for (c = 0; c < CPU_SETSIZE && !CPU_ISSET(c, old); c++)
		continue;
	CPU_ZERO(&one);
	CPU_SET(c, &one);
	cr_assert(sched_setaffinity(0, sizeof(one), &one) == 0,
	    "sched_setaffinity: %s", strerror(errno));
	return CPU_COUNT(old);
}

/*
 * Name the type in MODE by one letter.
 * Return: 'f', 'd', 'l', 'p', 'c', 'b' or 's', or '?' for anything else.
 */
char
tfx_kind_of(mode_t mode)
{
	if (S_ISREG(mode))
		return 'f';
	if (S_ISDIR(mode))
		return 'd';
	if (S_ISLNK(mode))
		return 'l';
	if (S_ISFIFO(mode))
		return 'p';
	if (S_ISCHR(mode))
		return 'c';
	if (S_ISBLK(mode))
		return 'b';
	if (S_ISSOCK(mode))
		return 's';
	return '?';
}

/*
 * Hash the content of the regular file DIRFD/NAME with FNV-1a, never
 * through a symlink.
 * Return: the hash, or 0 if the file cannot be opened.
 */
uint64_t
tfx_hash_at(int dirfd, const char *name)
{
	unsigned char buf[4096];
	uint64_t h = 14695981039346656037ULL;
	ssize_t n, i;
	int fd;

	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC);
	if (fd == -1)
		return 0;
	for (;;) {
		n = read(fd, buf, sizeof(buf));
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		for (i = 0; i < n; i++) {
			h ^= buf[i];
			h *= 1099511628211ULL;
		}
	}
	(void)close(fd);
	return h;
}

/* Order two names for qsort(3).  Returns as strcmp(3) does. */
static int
cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Read the names in the directory DIRFD/REL, never through a symlink,
 * "." and ".." left out, into a sorted array, which *NAMES receives; the
 * caller frees each name and the array.  DIRFD stays open.
 * Return: how many names, or -errno if the directory cannot be read.
 */
ssize_t
tfx_read_names(int dirfd, const char *rel, char ***names)
{
	struct dirent *de;
	char **v = NULL, **grown;
	size_t n = 0, cap = 0;
	DIR *d;
	int fd, e;

	*names = NULL;
	fd = openat(dirfd, rel, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (fd == -1)
		return -errno;
	d = fdopendir(fd);
	if (d == NULL) {
		e = -errno;
		(void)close(fd);
		return e;
	}
	for (;;) {
		de = readdir(d);
		if (de == NULL)
			break;
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (n == cap) {
			cap = cap == 0 ? 16 : cap * 2;
			grown = realloc(v, cap * sizeof(*v));
			cr_assert(grown != NULL, "read names: realloc");
			v = grown;
		}
		v[n] = strdup(de->d_name);
		cr_assert(v[n] != NULL, "read names: strdup");
		n++;
	}
	(void)closedir(d);
	if (n > 0)
		qsort(v, n, sizeof(*v), cmp_name);
	*names = v;
	return (ssize_t)n;
}

static void snap_dir(FILE *, int, const char *, int);

/*
 * Write to OUT the line of DIRFD/NAME, shown as PATH, and if it is a
 * directory the lines of all beneath it; FLAGS as for tfx_snapshot().
 */
static void
snap_entry(FILE *out, int dirfd, const char *name, const char *path,
    int flags)
{
	char target[PATH_MAX];
	struct stat st;
	ssize_t n;
	int fd;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == -1) {
		fprintf(out, "%s: %s\n", path, strerror(errno));
		return;
	}
	fprintf(out, "%s %c %04o size=%lld", path, tfx_kind_of(st.st_mode),
	    (unsigned int)(st.st_mode & 07777), (long long)st.st_size);
	if ((flags & TFX_SNAP_NO_NLINK) == 0)
		fprintf(out, " nlink=%lu", (unsigned long)st.st_nlink);
	fprintf(out, " uid=%u gid=%u mtime=%lld.%09ld",
	    (unsigned int)st.st_uid, (unsigned int)st.st_gid,
	    (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
	if (S_ISREG(st.st_mode))
		fprintf(out, " fnv=%016llx",
		    (unsigned long long)tfx_hash_at(dirfd, name));
	if (S_ISLNK(st.st_mode)) {
		n = readlinkat(dirfd, name, target, sizeof(target) - 1);
		if (n == -1)
			fprintf(out, " -> (%s)", strerror(errno));
		else {
			target[n] = '\0';
			fprintf(out, " -> %s", target);
		}
	}
	fputc('\n', out);
	if (S_ISDIR(st.st_mode)) {
		fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
		if (fd == -1) {
			fprintf(out, "%s/: %s\n", path, strerror(errno));
			return;
		}
		snap_dir(out, fd, path, flags);
		(void)close(fd);
	}
}

/*
 * Write to OUT the lines of every entry beneath the directory DIRFD,
 * shown under PREFIX, sorted by name; FLAGS as for tfx_snapshot().
 */
static void
snap_dir(FILE *out, int dirfd, const char *prefix, int flags)
{
	char path[PATH_MAX], **names;
	ssize_t n, i;

	n = tfx_read_names(dirfd, ".", &names);
	if (n < 0) {
		fprintf(out, "%s/: %s\n", prefix, strerror((int)-n));
		return;
	}
	for (i = 0; i < n; i++) {
		(void)snprintf(path, sizeof(path), "%s/%s", prefix, names[i]);
		snap_entry(out, dirfd, names[i], path, flags);
		free(names[i]);
	}
	free(names);
}

/*
 * Take a snapshot of the tree at the directory DIRFD, the directory
 * itself included unless FLAGS holds TFX_SNAP_NO_TOP, and with link
 * counts unless it holds TFX_SNAP_NO_NLINK.  Paths begin with ".".
 * Return: the snapshot, which the caller frees.
 */
char *
tfx_snapshot(int dirfd, int flags)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out;

	out = open_memstream(&buf, &len);
	cr_assert(out != NULL, "open_memstream: %s", strerror(errno));
	if (flags & TFX_SNAP_NO_TOP)
		snap_dir(out, dirfd, ".", flags);
	else
		snap_entry(out, dirfd, ".", ".", flags);
	cr_assert(fclose(out) == 0, "snapshot: %s", strerror(errno));
	return buf;
}

/*
 * Fail the test unless the snapshots BEFORE and AFTER of the tree WHAT
 * are equal; the message begins with "[WHO]" and shows both.
 */
void
tfx_expect_same_snapshot(const char *who, const char *what,
    const char *before, const char *after)
{
	cr_assert(strcmp(before, after) == 0,
	    "[%s] %s changed.\nbefore:\n%s\nafter:\n%s", who, what, before,
	    after);
}

/* --- names recorded in a signal handler ------------------------------- */

/* Write PREFIX and the decimal V to BUF (16 bytes), without stdio. */
void
tfx_format_name(char *buf, const char *prefix, unsigned int v)
{
	char digits[12];
	size_t n = 0, len = strlen(prefix);

	do {
		digits[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0);
	memcpy(buf, prefix, len);
	while (n > 0)
		buf[len++] = digits[--n];
	buf[len] = '\0';
}

/* Append REL, then NAME under it, to A.  False when it is full. */
static bool
arena_add(struct tfx_arena *a, const char *rel, size_t rlen,
    const char *name)
{
	size_t nlen = strlen(name), need = rlen + 1 + nlen + 1;
	char *p = a->buf + a->len;

	if (need > a->cap - a->len)
		return false;
	if (rlen > 0) {
		memcpy(p, rel, rlen);
		p[rlen] = '/';
		p += rlen + 1;
	}
	memcpy(p, name, nlen + 1);
	a->len += (size_t)(p - (a->buf + a->len)) + nlen + 1;
	return true;
}

/*
 * List the directory DIRFD recursively into A, with nothing a signal
 * handler may not call, never through a symlink.  REL (PATH_MAX bytes)
 * holds DIRFD's name below the top, RLEN bytes long; *COUNT counts the
 * names.  Return: false if A is full or a directory could not be read.
 */
bool
tfx_arena_list(struct tfx_arena *a, int dirfd, char *rel, size_t rlen,
    size_t *count)
{
	_Alignas(struct dirent64) char buf[4096];
	struct dirent64 *de;
	struct stat st;
	ssize_t n, off;
	size_t nlen, sublen;
	bool ok = true, isdir;
	int fd, sub;

	fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd == -1)
		return false;
	while (ok) {
		n = getdents64(fd, buf, sizeof(buf));
		if (n <= 0) {
			ok = n == 0;
			break;
		}
		for (off = 0; off < n && ok; off += de->d_reclen) {
			de = (struct dirent64 *)(void *)(buf + off);
			if (strcmp(de->d_name, ".") == 0 ||
			    strcmp(de->d_name, "..") == 0)
				continue;
			ok = arena_add(a, rel, rlen, de->d_name);
			if (!ok)
				break;
			(*count)++;
			isdir = de->d_type == DT_DIR;
			if (de->d_type == DT_UNKNOWN)
				isdir = fstatat(fd, de->d_name, &st,
				    AT_SYMLINK_NOFOLLOW) == 0 &&
				    S_ISDIR(st.st_mode);
			if (!isdir)
				continue;
			nlen = strlen(de->d_name);
			sublen = rlen > 0 ? rlen + 1 + nlen : nlen;
			if (sublen >= PATH_MAX) {
				ok = false;
				break;
			}
			if (rlen > 0)
				rel[rlen] = '/';
			memcpy(rel + (rlen > 0 ? rlen + 1 : 0), de->d_name,
			    nlen + 1);
			sub = openat(fd, de->d_name, O_RDONLY | O_DIRECTORY |
			    O_NOFOLLOW | O_CLOEXEC);
			ok = sub >= 0 && tfx_arena_list(a, sub, rel, sublen,
			    count);
			if (sub >= 0)
				close(sub);
			rel[rlen] = '\0';
		}
	}
	close(fd);
	return ok;
}

/*
 * The race tests' number of trials: DFLT, or $PFX_RACE_TRIALS (make
 * soak), which must lie within 1..MAX.
 */
unsigned int
tfx_race_trials(unsigned int dflt, unsigned int max)
{
	const char *s = getenv("PFX_RACE_TRIALS");
	char *end;
	unsigned long n;

	if (s == NULL || *s == '\0')
		return dflt;
	errno = 0;
	n = strtoul(s, &end, 10);
	cr_assert(errno == 0 && *end == '\0' && n >= 1 && n <= max,
	    "PFX_RACE_TRIALS=%s: want 1..%u", s, max);
	return (unsigned int)n;
}

/*
 * Make $TMPDIR/pfx-NAME.XXXXXX/dest (TOP, CAP bytes, gets the first
 * directory).  Return: an O_DIRECTORY descriptor of dest.
 */
int
tfx_temp_dest(const char *name, char *top, size_t cap)
{
	const char *tmp = getenv("TMPDIR");
	char dest[PATH_MAX];
	int fd;

	cr_assert(snprintf(top, cap, "%s/pfx-%s.XXXXXX",
	    tmp != NULL && *tmp != '\0' ? tmp : "/tmp", name) < (int)cap);
	cr_assert(mkdtemp(top) != NULL, "mkdtemp: %s", strerror(errno));
	(void)snprintf(dest, sizeof(dest), "%s/dest", top);
	cr_assert(mkdir(dest, 0755) == 0);
	fd = open(dest, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert(fd >= 0);
	return fd;
}

/* Undo tfx_temp_dest(): close *FD (set to -1) and remove TOP. */
void
tfx_temp_end(int *fd, const char *top)
{
	if (*fd >= 0)
		(void)close(*fd);
	*fd = -1;
	(void)tfx_rm_tree(top);
}

/* tfx_swapper: the racer's thread. */
static void *
swapper_main(void *arg)
{
	struct tfx_swapper *s = arg;
	char buf[4096] __attribute__((aligned(8))), old[32];
	const struct inotify_event *ev;
	ssize_t n;
	char *p;

	for (;;) {
		/* Blocking: woken inside the call that made the name. */
		n = read(s->inotifyfd, buf, sizeof(buf));
		if (n <= 0)
			continue;
		for (p = buf; p < buf + n; p += sizeof(*ev) + ev->len) {
			ev = (const struct inotify_event *)(void *)p;
			if (ev->len == 0)
				continue;
			if (strcmp(ev->name, "wake") == 0)
				return NULL;	/* tfx_swapper_stop(): done */
			if (ev->name[0] != 'n' ||
			    (s->dirs_only && (ev->mask & IN_ISDIR) == 0))
				continue;
			(void)snprintf(old, sizeof(old), "%s%s", s->old,
			    ev->name + 1);
			if (renameat2(s->dirfd, ev->name, s->dirfd, old,
			    RENAME_EXCHANGE) == 0)
				atomic_fetch_add(&s->exchanges, 1);
			atomic_fetch_add(&s->seen, 1);
		}
	}
}

void
tfx_swapper_start(struct tfx_swapper *s, int dirfd, const char *path,
    const char *old, bool dirs_only)
{
	s->dirfd = dirfd;
	s->old = old;
	s->dirs_only = dirs_only;
	atomic_store(&s->exchanges, 0);
	atomic_store(&s->seen, 0);
	s->inotifyfd = inotify_init1(IN_CLOEXEC);
	cr_assert(s->inotifyfd >= 0, "inotify_init1: %s", strerror(errno));
	cr_assert(inotify_add_watch(s->inotifyfd, path, IN_CREATE |
	    (dirs_only ? IN_ONLYDIR : 0)) >= 0, "inotify_add_watch %s: %s",
	    path, strerror(errno));
	cr_assert(pthread_create(&s->tid, NULL, swapper_main, s) == 0);
	s->started = true;
}

void
tfx_swapper_stop(struct tfx_swapper *s)
{
	if (s->started) {
		/* Blocked in read(2) or not, it sees this name last. */
		(void)mkdirat(s->dirfd, "wake", 0700);
		(void)unlinkat(s->dirfd, "wake", AT_REMOVEDIR);
		(void)pthread_join(s->tid, NULL);
		s->started = false;
	}
	if (s->inotifyfd >= 0)
		(void)close(s->inotifyfd);
	s->inotifyfd = -1;
}
