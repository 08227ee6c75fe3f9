/*
 * faultshim.c -- an LD_PRELOAD library for tests only (tests/faults.sh):
 * makes chosen libc calls of the process it is loaded into fail, or
 * logs them.  Never built into anything shipped.
 *
 * FAULTSHIM="CALL:ERRNO[:after=N][:times=K][:min=BYTES]" makes CALL fail
 * with ERRNO once N calls of it have succeeded (default 0), K times
 * (default: every call from then on).  ":min=BYTES" counts (and fails)
 * only the writes of at least BYTES, so that a test does not depend on
 * how a file's data is cut into writes.  CALL is write (write, pwrite and pwrite64, on
 * regular files only, so that standard output and error still work),
 * openat (openat and openat64),
 * fsync, mkdirat, renameat (renameat and renameat2), unlinkat (of a
 * directory only: AT_REMOVEDIR, so that temporaries still go),
 * unlinkfile (unlinkat of anything else) or linkat (not counting the
 * probes, links to ".").  ERRNO is a name:
 * EIO, ENOSPC, EDQUOT, EMFILE, EACCES, EROFS, ENOENT, EMLINK.  ":dir=NAME"
 * counts (and fails) only the openat calls that create a file (O_CREAT or
 * O_TMPFILE) in a directory named NAME, so that a test does not depend on
 * how many other files pfextract opens.
 *
 * FAULTSHIM_LOG=FILE appends one line per fsync and per name given
 * (rename, or link) the process makes, in order: "fsync INODE" (the inode
 * synced) and "name DIRINODE NEWNAME".  The file is opened before main(),
 * so that a sandbox the program enters later does not stop the log.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static struct {
	char call[16];
	int error;
	long after;
	long times;		/* < 0: no end */
	long seen;		/* calls of CALL so far */
	size_t min;		/* write: only writes of this many bytes */
	char dir[64];		/* openat: only creations in a dir so named */
} rule;

static int logfd = -1;

static const struct {
	const char *name;
	int value;
} errnos[] = {
	{ "EIO", EIO }, { "ENOSPC", ENOSPC }, { "EDQUOT", EDQUOT },
	{ "EMFILE", EMFILE }, { "EACCES", EACCES }, { "EROFS", EROFS },
	{ "ENOENT", ENOENT }, { "EMLINK", EMLINK },
};

/* Read FAULTSHIM and FAULTSHIM_LOG once, before main(). */
__attribute__((constructor)) static void
shim_init(void)
{
	const char *spec = getenv("FAULTSHIM"), *log = getenv("FAULTSHIM_LOG");
	char buf[128], *field, *save = NULL;
	size_t i;

	rule.times = -1;
	if (log != NULL)
		logfd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC,
		    0644);
	if (spec == NULL || strlen(spec) >= sizeof(buf))
		return;
	memcpy(buf, spec, strlen(spec) + 1);
	field = strtok_r(buf, ":", &save);
	if (field == NULL)
		return;
	snprintf(rule.call, sizeof(rule.call), "%s", field);
	field = strtok_r(NULL, ":", &save);
	for (i = 0; field != NULL && i < sizeof(errnos) / sizeof(errnos[0]);
	    i++) {
		if (strcmp(field, errnos[i].name) == 0)
			rule.error = errnos[i].value;
	}
	while ((field = strtok_r(NULL, ":", &save)) != NULL) {
		if (strncmp(field, "after=", 6) == 0)
			rule.after = strtol(field + 6, NULL, 10);
		else if (strncmp(field, "times=", 6) == 0)
			rule.times = strtol(field + 6, NULL, 10);
		else if (strncmp(field, "min=", 4) == 0)
			rule.min = strtoul(field + 4, NULL, 10);
		else if (strncmp(field, "dir=", 4) == 0)
			snprintf(rule.dir, sizeof(rule.dir), "%s", field + 4);
	}
}

/* Should this call of CALL fail?  Sets errno when it should. */
static int
shim_fail(const char *call)
{
	if (rule.error == 0 || strcmp(rule.call, call) != 0)
		return 0;
	if (rule.seen++ < rule.after)
		return 0;
	if (rule.times >= 0 && rule.seen - rule.after > rule.times)
		return 0;
	errno = rule.error;
	return 1;
}

static void
shim_log(const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n, saved = errno;

	if (logfd < 0)
		return;
	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n > 0 && (size_t)n < sizeof(line))
		(void)!write(logfd, line, (size_t)n);
	errno = saved;
}

static unsigned long long
ino_of(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 ? (unsigned long long)st.st_ino : 0;
}

#define REAL(name) \
	static __typeof__(name) *real_##name; \
	if (real_##name == NULL) \
		real_##name = (__typeof__(name) *)dlsym(RTLD_NEXT, #name)

/* Should this write of LEN bytes to FD fail?  Only regular files are made
 * to. */
static int
write_fails(int fd, size_t len)
{
	struct stat st;

	return fd != logfd && len >= rule.min && fstat(fd, &st) == 0 &&
	    S_ISREG(st.st_mode) && shim_fail("write");
}

ssize_t
write(int fd, const void *buf, size_t len)
{
	REAL(write);
	return write_fails(fd, len) ? -1 : real_write(fd, buf, len);
}

/* pwrite and pwrite64 count as write: file data goes through either. */
ssize_t
pwrite(int fd, const void *buf, size_t len, off_t off)
{
	REAL(pwrite);
	return write_fails(fd, len) ? -1 : real_pwrite(fd, buf, len, off);
}

ssize_t
pwrite64(int fd, const void *buf, size_t len, off64_t off)
{
	REAL(pwrite64);
	return write_fails(fd, len) ? -1 : real_pwrite64(fd, buf, len, off);
}

/*
 * The name of directory DIRFD in its parent, into BUF (CAP bytes), found
 * among the parent's entries: for a process with no /proc (the writer
 * confined as root detaches it: platform/view_linux.c).  Return: 0, or -1.
 */
static int
name_of(int dirfd, char *buf, size_t cap)
{
	struct dirent *e;
	struct stat st, est;
	DIR *d;
	int up, r = -1;

	if (fstat(dirfd, &st) == -1)
		return -1;
	up = openat(dirfd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (up == -1)
		return -1;
	d = fdopendir(up);
	if (d == NULL) {
		close(up);
		return -1;
	}
	while (r == -1 && (e = readdir(d)) != NULL)
		if (strcmp(e->d_name, "..") != 0 &&
		    fstatat(up, e->d_name, &est, AT_SYMLINK_NOFOLLOW) == 0 &&
		    est.st_dev == st.st_dev && est.st_ino == st.st_ino &&
		    strlen(e->d_name) < cap) {
			memcpy(buf, e->d_name, strlen(e->d_name) + 1);
			r = 0;
		}
	closedir(d);
	return r;
}

/* Does openat(DIRFD, PATH, FLAGS) create a file in a directory named NAME? */
static int
creates_in(int dirfd, const char *path, int flags, const char *name)
{
	char proc[64], where[4096];
	const char *slash;
	ssize_t n;

	if ((flags & O_CREAT) == 0 && (flags & O_TMPFILE) != O_TMPFILE)
		return 0;
	/* PATH's directory part, if any, else DIRFD's own name. */
	slash = strrchr(path, '/');
	if (slash != NULL && (flags & O_TMPFILE) != O_TMPFILE) {
		n = slash - path;
		if ((size_t)n >= sizeof(where))
			return 0;
		memcpy(where, path, (size_t)n);
		where[n] = '\0';
	} else {
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", dirfd);
		n = readlink(proc, where, sizeof(where) - 1);
		if (n < 0)
			return name_of(dirfd, where, sizeof(where)) == 0 &&
			    strcmp(where, name) == 0;
		where[n] = '\0';
	}
	slash = strrchr(where, '/');
	return strcmp(slash != NULL ? slash + 1 : where, name) == 0;
}

/* openat and openat64 are the same call on 64-bit systems. */
static int
shim_openat(int (*real)(int, const char *, int, ...), int dirfd,
    const char *path, int flags, mode_t mode)
{
	if ((rule.dir[0] == '\0' || creates_in(dirfd, path, flags,
	    rule.dir)) && shim_fail("openat"))
		return -1;
	return real(dirfd, path, flags, mode);
}

int
openat(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode = 0;

	REAL(openat);
	if ((flags & (O_CREAT | O_TMPFILE)) != 0) {
		va_start(ap, flags);
		mode = (mode_t)va_arg(ap, int);
		va_end(ap);
	}
	return shim_openat(real_openat, dirfd, path, flags, mode);
}

int
openat64(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode = 0;

	REAL(openat64);
	if ((flags & (O_CREAT | O_TMPFILE)) != 0) {
		va_start(ap, flags);
		mode = (mode_t)va_arg(ap, int);
		va_end(ap);
	}
	return shim_openat(real_openat64, dirfd, path, flags, mode);
}

int
fsync(int fd)
{
	REAL(fsync);
	if (shim_fail("fsync"))
		return -1;
	shim_log("fsync %llu\n", ino_of(fd));
	return real_fsync(fd);
}

int
mkdirat(int dirfd, const char *path, mode_t mode)
{
	REAL(mkdirat);
	if (shim_fail("mkdirat"))
		return -1;
	return real_mkdirat(dirfd, path, mode);
}

int
symlinkat(const char *target, int dirfd, const char *path)
{
	REAL(symlinkat);
	if (shim_fail("symlinkat"))
		return -1;
	return real_symlinkat(target, dirfd, path);
}

int
unlinkat(int dirfd, const char *path, int flags)
{
	REAL(unlinkat);
	/* "unlinkat" fails directories, "unlinkfile" everything else. */
	if (shim_fail((flags & AT_REMOVEDIR) != 0 ? "unlinkat" :
	    "unlinkfile"))
		return -1;
	return real_unlinkat(dirfd, path, flags);
}

int
renameat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath)
{
	REAL(renameat);
	if (shim_fail("renameat"))
		return -1;
	shim_log("name %llu %s\n", ino_of(newdirfd), newpath);
	return real_renameat(olddirfd, oldpath, newdirfd, newpath);
}

int
linkat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath,
    int flags)
{
	REAL(linkat);
	/* Not a probe of how a file made with no name is linked: a link to
	 * ".", which exists (platform/os_linux.c). */
	if (strcmp(newpath, ".") != 0 && shim_fail("linkat"))
		return -1;
	shim_log("name %llu %s\n", ino_of(newdirfd), newpath);
	return real_linkat(olddirfd, oldpath, newdirfd, newpath, flags);
}

int
renameat2(int olddirfd, const char *oldpath, int newdirfd,
    const char *newpath, unsigned int flags)
{
	REAL(renameat2);
	if (shim_fail("renameat"))
		return -1;
	shim_log("name %llu %s\n", ino_of(newdirfd), newpath);
	return real_renameat2(olddirfd, oldpath, newdirfd, newpath, flags);
}
