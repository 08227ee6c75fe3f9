/*
 * inroot_check.c -- resolve every symbolic link of a tree the way a
 * consumer that uses the tree as its root does, and say whether each one
 * stays inside it (tests/root.sh).
 *
 * usage: inroot_check ROOT [REL ...]
 *
 * Walks ROOT without following anything (openat O_NOFOLLOW, one level at
 * a time) and opens every symlink found with openat2(2) from ROOT with
 * RESOLVE_IN_ROOT|RESOLVE_NO_MAGICLINKS|RESOLVE_NO_XDEV: the kernel keeps
 * every step inside ROOT.  A link that resolves, or that dangles (ENOENT,
 * ENOTDIR: a missing component is no escape), is fine; ELOOP, EXDEV or
 * any other error is reported.  Each REL given must then resolve in the
 * root to a regular file (the dynamic loader, a zoneinfo link).  Prints
 * "links N resolved N dangling N bad N" and exits 0 only if none is bad.
 */
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct counts {
	unsigned long links, resolved, dangling, bad;
};

/* Open REL from ROOTFD as a process whose "/" is ROOTFD.  fd or -errno. */
static int
open_in_root(int rootfd, const char *rel, int flags)
{
	struct open_how how;
	long fd;
	int tries;

	memset(&how, 0, sizeof(how));
	how.flags = (unsigned long long)(flags | O_CLOEXEC);
	how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS |
	    RESOLVE_NO_XDEV;
	for (tries = 0; tries < 16; tries++) {
		fd = syscall(SYS_openat2, rootfd, rel, &how, sizeof(how));
		if (fd >= 0)
			return (int)fd;
		if (errno != EAGAIN)
			break;
	}
	return -errno;
}

static void
check_link(int rootfd, const char *rel, struct counts *c)
{
	int fd;

	c->links++;
	fd = open_in_root(rootfd, rel, O_PATH);
	if (fd >= 0) {
		c->resolved++;
		(void)close(fd);
	} else if (fd == -ENOENT || fd == -ENOTDIR) {
		c->dangling++;
	} else {
		c->bad++;
		(void)fprintf(stderr, "inroot_check: %s: %s\n", rel,
		    strerror(-fd));
	}
}

/* Walk the directory DIRFD, REL from the root.  0, or -1 on an error. */
static int
walk(int rootfd, int dirfd, const char *rel, struct counts *c)
{
	struct dirent *de;
	struct stat st;
	char path[8192];
	DIR *d;
	int sub, r = 0;

	d = fdopendir(dirfd);
	if (d == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s%s%s", rel,
		    rel[0] != '\0' ? "/" : "", de->d_name) >= sizeof(path))
			return -1;
		if (fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == -1)
			return -1;
		if (S_ISLNK(st.st_mode)) {
			check_link(rootfd, path, c);
		} else if (S_ISDIR(st.st_mode)) {
			sub = openat(dirfd, de->d_name, O_RDONLY | O_DIRECTORY |
			    O_NOFOLLOW | O_CLOEXEC);
			if (sub == -1 || walk(rootfd, sub, path, c) < 0)
				r = -1;
		}
	}
	(void)closedir(d);
	return r;
}

int
main(int argc, char **argv)
{
	struct counts c = { 0, 0, 0, 0 };
	struct stat st;
	int rootfd, fd, i, bad = 0;

	if (argc < 2) {
		(void)fprintf(stderr, "usage: inroot_check root [rel ...]\n");
		return 64;
	}
	rootfd = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd == -1 || walk(rootfd, dup(rootfd), "", &c) < 0) {
		(void)fprintf(stderr, "inroot_check: %s: cannot walk: %s\n",
		    argv[1], strerror(errno));
		return 2;
	}
	for (i = 2; i < argc; i++) {
		fd = open_in_root(rootfd, argv[i], O_RDONLY);
		if (fd < 0 || fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
			(void)fprintf(stderr, "inroot_check: %s: not a file "
			    "in the root: %s\n", argv[i],
			    fd < 0 ? strerror(-fd) : "another type");
			bad++;
		}
		if (fd >= 0)
			(void)close(fd);
	}
	(void)printf("links %lu resolved %lu dangling %lu bad %lu\n",
	    c.links, c.resolved, c.dangling, c.bad);
	return c.bad != 0 || bad != 0 ? 1 : 0;
}
