/*
 * process.c -- what a process forked to run untrusted code keeps: the
 * descriptors it needs, with the least access, and nothing else.
 *
 * fork(2) copies every descriptor of the caller, close-on-exec or not,
 * and the kernel's sandbox checks paths when a file is opened, never the
 * calls made on a descriptor already open.  So a decoder that confined
 * itself could still chmod, write or read through any descriptor its
 * caller held: a library caller's files and sockets, a shell's stdout.
 * The child therefore closes them all before it confines itself.
 */
#include <sys/resource.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <unistd.h>

#include "platform.h"

/* The first descriptor the child keeps for itself. */
#define FIRST_KEPT 3

/* The descriptors the child may open besides those it keeps: a
 * decoder's wake pipe or two, a gconv module or locale file being read. */
#define SPARE_FDS 32

/* The highest descriptor number worth closing one by one. */
static int
fd_ceiling(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 &&
	    rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < (1u << 24))
		return (int)rl.rlim_cur - 1;
	return (1 << 20) - 1;
}

/* Close every descriptor from LO to HI.  Return: 0, or -errno. */
static int
close_range_of(int lo, int hi)
{
	int fd, r;

	if (lo > hi)
		return 0;
	r = plat_os_close_range(lo, hi);
	if (r != -ENOSYS)
		return r;
	if (hi > fd_ceiling())
		hi = fd_ceiling();
	for (fd = lo; fd <= hi; fd++)
		(void)close(fd);
	return 0;
}

/* Is FD one of the N in KEEP? */
static bool
kept(const int *keep, int n, int fd)
{
	int i;

	for (i = 0; i < n; i++)
		if (keep[i] == fd)
			return true;
	return false;
}

/*
 * Close every descriptor from FIRST_KEPT up but the N in KEEP, first, so
 * that what follows needs no more descriptors than it keeps: a low
 * RLIMIT_NOFILE must not stop the child before the parent's own writes.
 */
static int
close_all_but(const int *keep, int n)
{
	int lo = FIRST_KEPT, next, i, r;

	for (;;) {
		next = INT_MAX;
		for (i = 0; i < n; i++)
			if (keep[i] >= lo && keep[i] < next)
				next = keep[i];
		r = close_range_of(lo, next == INT_MAX ? INT_MAX : next - 1);
		if (r < 0 || next == INT_MAX)
			return r;
		lo = next + 1;
	}
}

/* Make descriptor TO a copy of FROM, close-on-exec.  Return: 0, -errno. */
static int
copy_to(int from, int to)
{
	if (from != to && dup2(from, to) == -1)
		return -errno;
	return fcntl(to, F_SETFD, FD_CLOEXEC) == -1 ? -errno : 0;
}

/*
 * The sanitizers' runtimes: a weak reference is NULL unless the program
 * that loaded this library was built with one.
 */
extern void __tsan_init(void) __attribute__((weak));
extern void __asan_init(void) __attribute__((weak));

/* see platform.h */
bool
plat_sanitized(void)
{
	return PLAT_SANITIZER || __tsan_init != NULL || __asan_init != NULL;
}

/*
 * SECURITY: at most MAX descriptors open from now on.  What a process
 * holds through descriptors (a pipe's buffer, up to 1 MiB with
 * F_SETPIPE_SZ; an eventfd, an epoll set, and as many more in flight in
 * SCM_RIGHTS messages) is kernel memory that RLIMIT_DATA does not count:
 * under the caller's RLIMIT_NOFILE of 20,000 a decoder taken over held
 * 1 GiB in pipes.  Only ever lowered; the filter then refuses raising
 * it.  Return: 0, or -errno.
 */
static int
cap_open_files(int max)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return -errno;
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur <= (rlim_t)max &&
	    rl.rlim_max != RLIM_INFINITY && rl.rlim_max <= (rlim_t)max)
		return 0;
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > (rlim_t)max)
		rl.rlim_cur = (rlim_t)max;
	if (rl.rlim_max == RLIM_INFINITY || rl.rlim_max > (rlim_t)max)
		rl.rlim_max = (rlim_t)max;
	return setrlimit(RLIMIT_NOFILE, &rl) == 0 ? 0 : -errno;
}

/* see platform.h */
int
plat_child_fds(int *keep, int n)
{
	int i, j, fd, null, r;

	r = close_all_but(keep, n);
	if (r < 0)
		return r;
	/* KEEP[i] goes to FIRST_KEPT + i; one already there is moved out
	 * of the way first, unless it is the one that goes there. */
	for (i = 0; i < n; i++) {
		for (j = i + 1; j < n; j++) {
			if (keep[j] != FIRST_KEPT + i)
				continue;
			fd = fcntl(keep[j], F_DUPFD_CLOEXEC, FIRST_KEPT + n);
			if (fd == -1)
				return -errno;
			(void)close(keep[j]);
			keep[j] = fd;
		}
		r = copy_to(keep[i], FIRST_KEPT + i);
		if (r < 0)
			return r;
		/* The old number, unless a later one still needs it. */
		if (keep[i] != FIRST_KEPT + i &&
		    !kept(keep + i + 1, n - i - 1, keep[i]))
			(void)close(keep[i]);
		keep[i] = FIRST_KEPT + i;
	}
	null = open("/dev/null", O_RDWR | O_CLOEXEC | O_NOCTTY);
	if (null == -1)
		return -errno;
	/* SECURITY: nothing the child writes reaches the caller's output;
	 * a sanitizer's report is for the developer, in test builds. */
	r = 0;
	if (null != 0)
		r = dup2(null, 0) == -1 ? -errno : 0;
	if (r == 0 && null != 1)
		r = dup2(null, 1) == -1 ? -errno : 0;
	if (r == 0 && null != 2 && !plat_sanitized())
		r = dup2(null, 2) == -1 ? -errno : 0;
	if (null >= FIRST_KEPT + n)
		(void)close(null);
	return r == 0 ? cap_open_files(FIRST_KEPT + n + SPARE_FDS) : r;
}

/* see platform.h */
int
plat_input_readonly(int fd)
{
	struct stat st;
	int r, fl;

	if (fstat(fd, &st) == -1)
		return -errno;
	/* SECURITY: only what the caller gave to be read is read. */
	fl = fcntl(fd, F_GETFL);
	if (fl == -1)
		return -errno;
	if ((fl & O_ACCMODE) == O_WRONLY)
		return -EBADF;
	if (S_ISREG(st.st_mode)) {
		r = plat_os_reopen_readonly(fd);
		if (r >= 0)
			return r;
	}
	/* A pipe's or socket's end cannot be opened anew: it is shared. */
	r = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	return r >= 0 ? r : -errno;
}

/* see platform.h */
uint64_t
plat_input_size(const char *path, int fd)
{
	struct stat st;
	int r = -1;

	if (path != NULL)
		r = stat(path, &st);
	else if (fd >= 0)
		r = fstat(fd, &st);
	return r == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size :
	    UINT64_MAX;
}
