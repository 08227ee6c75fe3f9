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
#include <unistd.h>

#include "platform.h"

/* The first descriptor the child keeps for itself. */
#define FIRST_KEPT 3

/* Close every descriptor from LOWFD up.  Return: 0, or -errno. */
static int
close_from(int lowfd)
{
	struct rlimit rl;
	long fd, max;
	int r;

	r = plat_os_close_from(lowfd);
	if (r != -ENOSYS)
		return r;
	max = getrlimit(RLIMIT_NOFILE, &rl) == 0 &&
	    rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < (1u << 24) ?
	    (long)rl.rlim_cur : 1L << 20;
	for (fd = lowfd; fd < max; fd++)
		(void)close((int)fd);
	return 0;
}

/* Make FD (open on /dev/null) descriptor TO.  Return: 0, or -errno. */
static int
null_at(int null, int to)
{
	return dup2(null, to) == -1 ? -errno : 0;
}

/* see platform.h */
int
plat_child_fds(int *keep, int n)
{
	int i, fd, null, r;

	/*
	 * Every kept descriptor goes above all those it will be moved to,
	 * so that no move overwrites another kept one.
	 */
	for (i = 0; i < n; i++) {
		fd = fcntl(keep[i], F_DUPFD_CLOEXEC, FIRST_KEPT + n);
		if (fd == -1)
			return -errno;
		keep[i] = fd;
	}
	null = open("/dev/null", O_RDWR | O_CLOEXEC | O_NOCTTY);
	if (null == -1)
		return -errno;
	r = null_at(null, 0);
	if (r == 0)
		r = null_at(null, 1);
	/* SECURITY: nothing the child writes reaches the caller's output;
	 * a sanitizer's report is for the developer, in test builds. */
	if (r == 0 && !PLAT_SANITIZER)
		r = null_at(null, 2);
	for (i = 0; r == 0 && i < n; i++) {
		if (dup2(keep[i], FIRST_KEPT + i) == -1 ||
		    fcntl(FIRST_KEPT + i, F_SETFD, FD_CLOEXEC) == -1)
			r = -errno;
		else
			keep[i] = FIRST_KEPT + i;
	}
	if (r == 0)
		r = close_from(FIRST_KEPT + n);
	return r;
}

/* see platform.h */
int
plat_input_readonly(int fd)
{
	struct stat st;
	int r;

	if (fstat(fd, &st) == -1)
		return -errno;
	if (S_ISREG(st.st_mode)) {
		r = plat_os_reopen_readonly(fd);
		if (r >= 0)
			return r;
	}
	/* A pipe's or socket's end cannot be opened anew: it is shared. */
	r = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	return r >= 0 ? r : -errno;
}
