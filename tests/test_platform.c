/*
 * test_platform.c -- tests of the pinned-root layer (pfx_root.h).
 *
 * Every test runs once per resolver, openat2 and walk, as a
 * ParameterizedTest, so each run is its own process.  Each run gets a
 * fresh fixture, made by fx_init() with plain syscalls in a mkdtemp()
 * directory and removed by fx_fini() with tfx_rm_tree() (fixture.c):
 *
 *	/tmp/pfx-platform.XXXXXX/	top (not watched)
 *	|-- dest/			the root; each test adds what it needs
 *	|-- elsewhere/			outside the root, not watched
 *	`-- outside/			watched: must end exactly as it began
 *	    |-- secret			"outside secret\n", 0600
 *	    |-- victim			"victim\n", 0644
 *	    |-- slink -> secret
 *	    |-- empty/			0700
 *	    `-- sdir/			0755
 *	        `-- inner		"inner\n", 0644
 *
 * Symlinks planted in dest/ point at outside/ by relative names
 * ("../outside/victim") and by absolute ones.  Around each test body
 * fx_run() takes a recursive snapshot of outside/ with tfx_snapshot()
 * (names, types, modes, sizes, link counts, owners, mtimes in ns, content
 * hashes, symlink targets) and counts the open descriptors; both must be
 * the same afterwards.
 * Everything in outside/ gets an old fixed mtime, so any change shows.
 * The umask is 0 unless a test sets it, so modes compare exactly.
 *
 * Errors are asserted as the exact negative errno that pfx_root.h
 * documents, and every failure message names the resolver.  The mount
 * tests need root and a private mount namespace (unshare(2)); without
 * them they are skipped.
 */
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/xattr.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "../platform/platform.h"
#include "../platform/pfx_root.h"
#include "fixture.h"

#define SECRET	"outside secret\n"
#define VICTIM	"victim\n"
#define INNER	"inner\n"

/* The mtime given to everything watched: far from "now", so writes show. */
#define OLD_SEC	1000000000

/* The most entries a fixture directory holds; fixtures are small. */
#define MAX_NAMES 64

/* Temporaries of pfx_root_begin() and pfx_root_link() start with this. */
#define TEMP_PREFIX ".pfx-"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* One fixture: the tree above, the root pinned on dest/, and the cleanup. */
struct fx {
	char path[64];		/* top, from mkdtemp() */
	int top;		/* top/ */
	int dest;		/* top/dest/, the root as the test sees it */
	int out;		/* top/outside/, watched */
	int elsewhere;		/* top/elsewhere/, outside the root */
	enum pfx_resolver how;
	bool named;		/* pending files forced to a temporary name */
	const char *rname;	/* "openat2" or "walk", ", named" */
	struct pfx_root root;	/* pinned on dest/ by fx_run() */
	bool root_open;
	char *before;		/* snapshot of outside/ before the body */
	char *after;		/* and after it */
	char *scratch[2];	/* snapshots taken inside a body */
	char mounts[2][PATH_MAX];	/* mounts to undo, in order made */
	int nmounts;
	char shm[64];		/* a file in /dev/shm to remove, or "" */
};

static struct fx the_fx;

static enum pfx_resolver resolvers[] = {
	PFX_RESOLVER_OPENAT2,
	PFX_RESOLVER_WALK
};

/* The symbolic name of the result R: "ok" or e.g. "ELOOP". */
static const char *
errname(int r)
{
	const char *s;

	if (r >= 0)
		return "ok";
	s = strerrorname_np(-r);
	return s != NULL ? s : "?";
}

/* Assert that GOT, the result of WHAT on LINE, is WANT (0 or -errno). */
static void
expect_ret(const struct fx *fx, int line, const char *what, int got,
    int want)
{
	cr_assert(got == want, "line %d [%s] %s: got %d (%s), want %d (%s)",
	    line, fx->rname, what, got, errname(got), want, errname(want));
}

/*
 * Assert that FD, returned by WHAT on LINE, is a descriptor with
 * FD_CLOEXEC set.  Return: FD.
 */
static int
expect_fd(const struct fx *fx, int line, const char *what, int fd)
{
	int fl;

	cr_assert(fd >= 0, "line %d [%s] %s: got %d (%s), want a descriptor",
	    line, fx->rname, what, fd, errname(fd));
	fl = fcntl(fd, F_GETFD);
	cr_assert(fl != -1 && (fl & FD_CLOEXEC) != 0,
	    "line %d [%s] %s: descriptor %d lacks FD_CLOEXEC", line,
	    fx->rname, what, fd);
	return fd;
}

#define ASSERT_RET(expr, want) \
	expect_ret(fx, __LINE__, #expr, (expr), (want))
#define ASSERT_FD(expr) \
	expect_fd(fx, __LINE__, #expr, (expr))

/* Assert that FD has access mode ACC and is neither O_PATH nor O_NONBLOCK. */
static void
expect_flags(const struct fx *fx, int fd, int acc, const char *what)
{
	int fl;

	fl = fcntl(fd, F_GETFL);
	cr_assert(fl != -1, "[%s] %s: F_GETFL: %s", fx->rname, what,
	    strerror(errno));
	cr_assert((fl & O_ACCMODE) == acc, "[%s] %s: access mode %#o, "
	    "want %#o", fx->rname, what, fl & O_ACCMODE, acc);
	cr_assert((fl & O_PATH) == 0, "[%s] %s: O_PATH descriptor",
	    fx->rname, what);
	cr_assert((fl & O_NONBLOCK) == 0, "[%s] %s: O_NONBLOCK is set",
	    fx->rname, what);
}

/* Write all of DATA to FD. */
static void
write_all(int fd, const char *data)
{
	size_t len = strlen(data), off = 0;
	ssize_t n;

	while (off < len) {
		n = write(fd, data + off, len - off);
		if (n == -1 && errno == EINTR)
			continue;
		cr_assert(n > 0, "write: %s", strerror(errno));
		off += (size_t)n;
	}
}

/* Make the regular file DIRFD/NAME holding DATA. */
static void
put_file(int dirfd, const char *name, const char *data, mode_t mode)
{
	int fd;

	fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, mode);
	cr_assert(fd >= 0, "fixture: create %s: %s", name, strerror(errno));
	write_all(fd, data);
	(void)close(fd);
}

/* Make the directory DIRFD/NAME. */
static void
put_dir(int dirfd, const char *name, mode_t mode)
{
	cr_assert(mkdirat(dirfd, name, mode) == 0, "fixture: mkdir %s: %s",
	    name, strerror(errno));
}

/* Make the symlink DIRFD/NAME -> TARGET. */
static void
put_link(int dirfd, const char *name, const char *target)
{
	cr_assert(symlinkat(target, dirfd, name) == 0,
	    "fixture: symlink %s: %s", name, strerror(errno));
}

/* Open the directory DIRFD/NAME for the test's own use. */
static int
open_fixture_dir(int dirfd, const char *name)
{
	int fd;

	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	cr_assert(fd >= 0, "fixture: open %s: %s", name, strerror(errno));
	return fd;
}

/* The lstat(2) of DIRFD/NAME, which must exist. */
static struct stat
stat_at(int dirfd, const char *name)
{
	struct stat st;

	cr_assert(fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0,
	    "stat %s: %s", name, strerror(errno));
	return st;
}

/* Is there an entry DIRFD/NAME (of any kind, not followed)? */
static bool
exists_at(int dirfd, const char *name)
{
	struct stat st;

	return fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/* Assert that FD and DIRFD/NAME (not followed) are the same inode. */
static void
expect_same(const struct fx *fx, int fd, int dirfd, const char *name)
{
	struct stat a, b;

	cr_assert(fstat(fd, &a) == 0, "fstat: %s", strerror(errno));
	b = stat_at(dirfd, name);
	cr_assert(a.st_dev == b.st_dev && a.st_ino == b.st_ino,
	    "[%s] descriptor %d is not \"%s\"", fx->rname, fd, name);
}

/* Assert that the file open as FD holds exactly WANT. */
static void
expect_fd_content(const struct fx *fx, int fd, const char *want,
    const char *what)
{
	char buf[256];
	ssize_t n;

	n = pread(fd, buf, sizeof(buf) - 1, 0);
	cr_assert(n >= 0, "[%s] read %s: %s", fx->rname, what,
	    strerror(errno));
	buf[n] = '\0';
	cr_assert(strcmp(buf, want) == 0, "[%s] %s holds \"%s\", want \"%s\"",
	    fx->rname, what, buf, want);
}

/* Assert that the regular file DIRFD/NAME holds exactly WANT. */
static void
expect_content(const struct fx *fx, int dirfd, const char *name,
    const char *want)
{
	int fd;

	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC);
	cr_assert(fd >= 0, "[%s] open %s: %s", fx->rname, name,
	    strerror(errno));
	expect_fd_content(fx, fd, want, name);
	(void)close(fd);
}

/*
 * Read the names in the directory open as FD, sorted, "." and ".."
 * left out; FD is consumed.  The caller frees each name.
 * Return: how many.
 */
static size_t
read_names(int fd, char **names)
{
	char **v;
	ssize_t n;

	n = tfx_read_names(fd, ".", &v);
	(void)close(fd);
	cr_assert(n >= 0, "read names: %s", strerror((int)-n));
	cr_assert((size_t)n <= MAX_NAMES, "directory too large for a fixture");
	if (n > 0)
		memcpy(names, v, (size_t)n * sizeof(*v));
	free(v);
	return (size_t)n;
}

/*
 * Write the names in the directory open as FD to BUF, sorted and
 * separated by single spaces; FD is consumed.
 */
static void
list_fd(int fd, char *buf, size_t cap)
{
	char *names[MAX_NAMES];
	size_t n, i, off = 0;
	int w;

	n = read_names(fd, names);
	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		w = snprintf(buf + off, cap - off, "%s%s", i > 0 ? " " : "",
		    names[i]);
		cr_assert(w >= 0 && (size_t)w < cap - off, "listing too long");
		off += (size_t)w;
		free(names[i]);
	}
}

/* As list_fd(), for the directory DIRFD/NAME. */
static void
list_at(int dirfd, const char *name, char *buf, size_t cap)
{
	list_fd(open_fixture_dir(dirfd, name), buf, cap);
}

/* How many temporaries (TEMP_PREFIX...) are in DIRFD/NAME? */
static size_t
count_temps(int dirfd, const char *name)
{
	char *names[MAX_NAMES];
	size_t n, i, temps = 0;

	n = read_names(open_fixture_dir(dirfd, name), names);
	for (i = 0; i < n; i++) {
		if (strncmp(names[i], TEMP_PREFIX, strlen(TEMP_PREFIX)) == 0)
			temps++;
		free(names[i]);
	}
	return temps;
}

/* Give DIRFD/NAME the old fixed times, without following a symlink. */
static void
set_old_times(int dirfd, const char *name)
{
	static const struct timespec old[2] = {
		{ OLD_SEC, 0 }, { OLD_SEC, 0 }
	};

	cr_assert(utimensat(dirfd, name, old, AT_SYMLINK_NOFOLLOW) == 0,
	    "fixture: utimensat %s: %s", name, strerror(errno));
}

static void
fx_init(void)
{
	struct fx *fx = &the_fx;

	memset(fx, 0, sizeof(*fx));
	fx->top = fx->dest = fx->out = fx->elsewhere = -1;
	fx->rname = "?";
	(void)umask(0);
	(void)snprintf(fx->path, sizeof(fx->path),
	    "/tmp/pfx-platform.XXXXXX");
	cr_assert(mkdtemp(fx->path) != NULL, "mkdtemp: %s", strerror(errno));
	fx->top = open(fx->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert(fx->top >= 0, "open %s: %s", fx->path, strerror(errno));
	put_dir(fx->top, "dest", 0755);
	put_dir(fx->top, "outside", 0755);
	put_dir(fx->top, "elsewhere", 0755);
	fx->dest = open_fixture_dir(fx->top, "dest");
	fx->out = open_fixture_dir(fx->top, "outside");
	fx->elsewhere = open_fixture_dir(fx->top, "elsewhere");

	put_file(fx->out, "secret", SECRET, 0600);
	put_file(fx->out, "victim", VICTIM, 0644);
	put_link(fx->out, "slink", "secret");
	put_dir(fx->out, "empty", 0700);
	put_dir(fx->out, "sdir", 0755);
	put_file(fx->out, "sdir/inner", INNER, 0644);
	set_old_times(fx->out, "secret");
	set_old_times(fx->out, "victim");
	set_old_times(fx->out, "slink");
	set_old_times(fx->out, "empty");
	set_old_times(fx->out, "sdir/inner");
	set_old_times(fx->out, "sdir");
	set_old_times(fx->top, "outside");
}

/* Undo the fixture.  Safe to call twice: fx_skip() calls it early. */
static void
fx_fini(void)
{
	struct fx *fx = &the_fx;

	if (fx->root_open)
		pfx_root_close(&fx->root);
	fx->root_open = false;
	while (fx->nmounts > 0)
		(void)umount2(fx->mounts[--fx->nmounts], MNT_DETACH);
	if (fx->shm[0] != '\0')
		(void)unlink(fx->shm);
	fx->shm[0] = '\0';
	if (fx->elsewhere >= 0)
		(void)close(fx->elsewhere);
	if (fx->out >= 0)
		(void)close(fx->out);
	if (fx->dest >= 0)
		(void)close(fx->dest);
	if (fx->top >= 0)
		(void)close(fx->top);
	fx->top = fx->dest = fx->out = fx->elsewhere = -1;
	if (fx->path[0] != '\0')
		(void)tfx_rm_tree(fx->path);
	fx->path[0] = '\0';
	free(fx->before);
	free(fx->after);
	free(fx->scratch[0]);
	free(fx->scratch[1]);
	fx->before = fx->after = fx->scratch[0] = fx->scratch[1] = NULL;
}

/*
 * Skip the running test, removing the fixture first: Criterion does not
 * run .fini for a skipped test.
 */
static void fx_skip(const char *, ...)
    __attribute__((format(printf, 1, 2), noreturn));

static void
fx_skip(const char *fmt, ...)
{
	char why[256];
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	fx_fini();
	cr_skip_test("%s", why);
	abort();	/* not reached */
}

/*
 * Pin dest/ with resolver HOW, run BODY, and check that no descriptor
 * leaked and nothing in outside/ changed.
 */
static void
fx_run_as(enum pfx_resolver how, bool named, void (*body)(struct fx *))
{
	struct fx *fx = &the_fx;
	int nfd, r;

	fx->how = how;
	fx->named = named;
	if (named)
		fx->rname = how == PFX_RESOLVER_OPENAT2 ? "openat2, named" :
		    "walk, named";
	else
		fx->rname = how == PFX_RESOLVER_OPENAT2 ? "openat2" : "walk";
	fx->before = tfx_snapshot(fx->out, 0);
	nfd = tfx_count_fds();
	r = pfx_root_open(&fx->root, fx->top, "dest", how);
	if (r == -ENOSYS && how == PFX_RESOLVER_OPENAT2)
		fx_skip("openat2 is not available on this kernel");
	expect_ret(fx, __LINE__, "pfx_root_open(dest)", r, 0);
	fx->root_open = true;
	/*
	 * Linux on tmpfs makes pending files without a name; the named
	 * temporaries of other systems and filesystems are tested by
	 * turning that off.
	 */
	cr_assert(fx->root.unnamed == 1, "[%s] pending files would be "
	    "named: no O_TMPFILE, or no /proc", fx->rname);
	if (named)
		fx->root.unnamed = 0;

	body(fx);

	pfx_root_close(&fx->root);
	fx->root_open = false;
	r = tfx_count_fds();
	cr_assert(r == nfd, "[%s] %d descriptors before the test, %d after",
	    fx->rname, nfd, r);
	fx->after = tfx_snapshot(fx->out, 0);
	tfx_expect_same_snapshot(fx->rname, "outside/", fx->before,
	    fx->after);
}

static void
fx_run(enum pfx_resolver how, void (*body)(struct fx *))
{
	fx_run_as(how, false, body);
}

/*
 * ROOT_TEST(name) { ... } defines a test whose body, given the fixture
 * FX, runs once under each resolver.
 */
#define ROOT_TEST(name)							\
	static void name##_body(struct fx *);				\
	ParameterizedTestParameters(platform, name)			\
	{								\
		return cr_make_param_array(enum pfx_resolver, resolvers, \
		    NELEM(resolvers));					\
	}								\
	ParameterizedTest(enum pfx_resolver *how, platform, name,	\
	    .init = fx_init, .fini = fx_fini, .timeout = 10.)		\
	{								\
		fx_run(*how, name##_body);				\
	}								\
	static void							\
	name##_body(struct fx *fx)

/* A resolver, and whether pending files are forced to a temporary name. */
struct pend_param {
	enum pfx_resolver how;
	bool named;
};

static struct pend_param pend_params[] = {
	{ PFX_RESOLVER_OPENAT2, false },
	{ PFX_RESOLVER_WALK, false },
	{ PFX_RESOLVER_OPENAT2, true },
	{ PFX_RESOLVER_WALK, true },
};

/*
 * PENDING_TEST(name) { ... }: as ROOT_TEST, and each resolver once more
 * with pending files under a temporary name (fx->named).
 */
#define PENDING_TEST(name)						\
	static void name##_body(struct fx *);				\
	ParameterizedTestParameters(platform, name)			\
	{								\
		return cr_make_param_array(struct pend_param,		\
		    pend_params, NELEM(pend_params));			\
	}								\
	ParameterizedTest(struct pend_param *pp, platform, name,	\
	    .init = fx_init, .fini = fx_fini, .timeout = 10.)		\
	{								\
		fx_run_as(pp->how, pp->named, name##_body);		\
	}								\
	static void							\
	name##_body(struct fx *fx)

/* --- every operation on one name ------------------------------------ */

enum op {
	OP_MKDIRS,
	OP_CREATE,
	OP_BEGIN,
	OP_OPEN_READ,
	OP_OPEN_FILE,
	OP_OPEN_DIR,
	OP_SUB,
	OP_LINK,
	OP_UNLINK,
	OP_RMDIR,
	OP_RENAME_FROM,
	OP_RENAME_TO,
	NOPS
};

static const char *const op_names[NOPS] = {
	"pfx_root_mkdirs", "pfx_root_create", "pfx_root_begin",
	"pfx_root_open_read", "pfx_root_open_file", "pfx_root_open_dir",
	"pfx_root_sub",
	"pfx_root_link", "pfx_root_unlink", "pfx_root_rmdir",
	"pfx_root_rename(REL, \"renamed\")", "pfx_root_rename(\"spare\", REL)"
};

/*
 * Call OP on REL beneath ROOT and undo a success at once (close what it
 * returned, abort the pending file), so that only the result is left.
 * OP_LINK links FILE_FD; OP_RENAME_TO moves the file "spare" of ROOT.
 * Return: 0 or -errno.
 */
static int
apply_op(const struct pfx_root *root, enum op op, const char *rel,
    int file_fd)
{
	struct pfx_pending pend;
	struct pfx_root sub;
	int r;

	switch (op) {
	case OP_MKDIRS:
		r = pfx_root_mkdirs(root, rel, 0755);
		break;
	case OP_CREATE:
		r = pfx_root_create(root, rel, 0644);
		break;
	case OP_BEGIN:
		r = pfx_root_begin(root, rel, 0644, &pend);
		if (r == 0)
			pfx_root_abort(&pend);
		return r;
	case OP_OPEN_READ:
		r = pfx_root_open_read(root, rel);
		break;
	case OP_OPEN_FILE:
		r = pfx_root_open_file(root, rel);
		break;
	case OP_OPEN_DIR:
		r = pfx_root_open_dir(root, rel);
		break;
	case OP_SUB:
		r = pfx_root_sub(root, rel, &sub);
		if (r == 0)
			pfx_root_close(&sub);
		return r;
	case OP_LINK:
		return pfx_root_link(root, file_fd, rel, 0);
	case OP_UNLINK:
		return pfx_root_unlink(root, rel);
	case OP_RMDIR:
		return pfx_root_rmdir(root, rel);
	case OP_RENAME_FROM:
		return pfx_root_rename(root, rel, "renamed", 0);
	case OP_RENAME_TO:
		return pfx_root_rename(root, "spare", rel, 0);
	default:
		cr_assert_fail("no such operation %d", (int)op);
	}
	if (r >= 0) {
		(void)close(r);
		r = 0;
	}
	return r;
}

/*
 * Assert that every operation on every name in RELS beneath ROOT gives
 * WANT, and that the tree at ROOTFD (ROOT as the test sees it, holding a
 * regular file "spare") is the same afterwards.
 */
static void
expect_all_ops(struct fx *fx, const struct pfx_root *root, int rootfd,
    const char *const *rels, size_t nrels, int want)
{
	size_t i;
	int fd, op, r;

	fd = openat(rootfd, "spare", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	cr_assert(fd >= 0, "fixture: open spare: %s", strerror(errno));
	fx->scratch[0] = tfx_snapshot(rootfd, 0);
	for (i = 0; i < nrels; i++) {
		for (op = 0; op < NOPS; op++) {
			r = apply_op(root, (enum op)op, rels[i], fd);
			cr_assert(r == want, "[%s] %s on \"%s\": got %d (%s), "
			    "want %d (%s)", fx->rname, op_names[op], rels[i],
			    r, errname(r), want, errname(want));
		}
	}
	fx->scratch[1] = tfx_snapshot(rootfd, 0);
	tfx_expect_same_snapshot(fx->rname, "the root", fx->scratch[0],
	    fx->scratch[1]);
	free(fx->scratch[0]);
	free(fx->scratch[1]);
	fx->scratch[0] = fx->scratch[1] = NULL;
	(void)close(fd);
}

/* --- pfx_root_open, pfx_root_close, pfx_root_resolver_name ---------- */

/* Does this kernel have openat2(2) at all? */
static bool
kernel_has_openat2(void)
{
	return syscall(SYS_openat2, -1, "", NULL, (size_t)0) == -1 &&
	    errno != ENOSYS;
}

/*
 *	top/
 *	|-- dest/
 *	|-- destlink -> dest
 *	|-- dangling -> nothere
 *	`-- toplink -> .
 */
ROOT_TEST(open_root)
{
	static const struct {
		const char *name;
		const char *path;
		int want;
	} rows[] = {
		{ "a directory", "dest", 0 },
		{ "a directory with a trailing slash", "dest/", 0 },
		{ "a symlink before the last component (trusted)",
		    "toplink/dest", 0 },
		{ "a symlink to a directory", "destlink", -ELOOP },
		{ "a symlink to a directory, trailing slash", "destlink/",
		    -ELOOP },
		{ "a symlink to a file", "outside/slink", -ELOOP },
		{ "a dangling symlink", "dangling", -ELOOP },
		{ "a regular file", "outside/secret", -ENOTDIR },
		{ "a missing name", "missing", -ENOENT },
		{ "beneath a missing directory", "missing/dest", -ENOENT },
	};
	struct pfx_root r2;
	char abs[PATH_MAX];
	size_t i;
	int fd, fl, r;

	put_link(fx->top, "destlink", "dest");
	put_link(fx->top, "dangling", "nothere");
	put_link(fx->top, "toplink", ".");
	for (i = 0; i < NELEM(rows); i++) {
		r = pfx_root_open(&r2, fx->top, rows[i].path, fx->how);
		cr_assert(r == rows[i].want, "[%s] pfx_root_open on %s "
		    "(\"%s\"): got %d (%s), want %s", fx->rname,
		    rows[i].name, rows[i].path, r, errname(r),
		    errname(rows[i].want));
		if (r < 0)
			continue;
		cr_assert_str_eq(pfx_root_resolver_name(&r2), fx->rname);
		/* White box: the fd is private; only its flags are read. */
		fl = fcntl(r2.fd, F_GETFD);
		cr_assert(fl != -1 && (fl & FD_CLOEXEC) != 0,
		    "[%s] the root fd lacks FD_CLOEXEC", fx->rname);
		fd = ASSERT_FD(pfx_root_open_dir(&r2, ""));
		expect_same(fx, fd, fx->top, "dest");
		(void)close(fd);
		pfx_root_close(&r2);
		pfx_root_close(&r2);
	}

	/* A directory the caller holds, pinned as its fd and ".". */
	ASSERT_RET(pfx_root_open(&r2, fx->dest, ".", fx->how), 0);
	cr_assert_str_eq(pfx_root_resolver_name(&r2), fx->rname);
	fd = ASSERT_FD(pfx_root_open_dir(&r2, ""));
	expect_same(fx, fd, fx->top, "dest");
	(void)close(fd);
	pfx_root_close(&r2);
	pfx_root_close(&r2);

	/* An absolute PATH, from AT_FDCWD. */
	(void)snprintf(abs, sizeof(abs), "%s/dest", fx->path);
	ASSERT_RET(pfx_root_open(&r2, AT_FDCWD, abs, fx->how), 0);
	fd = ASSERT_FD(pfx_root_open_dir(&r2, "."));
	expect_same(fx, fd, fx->top, "dest");
	(void)close(fd);
	pfx_root_close(&r2);

	/* AUTO picks openat2 where the kernel has it. */
	ASSERT_RET(pfx_root_open(&r2, fx->top, "dest", PFX_RESOLVER_AUTO), 0);
	cr_assert_str_eq(pfx_root_resolver_name(&r2),
	    kernel_has_openat2() ? "openat2" : "walk");
	pfx_root_close(&r2);
	pfx_root_close(&r2);

	/* The fixture's own root says what it was asked to be. */
	cr_assert_str_eq(pfx_root_resolver_name(&fx->root), fx->rname);
}

/* --- escapes: ".." and absolute names ------------------------------- */

/*
 *	dest/
 *	|-- a/
 *	|   `-- b/
 *	`-- spare		"spare\n"
 */
ROOT_TEST(dotdot_and_absolute_refused)
{
	static const char *const rels[] = {
		"..", "../", "../outside", "../outside/secret",
		"../outside/sdir/inner", "../dest/x", "./..", "a/..",
		"a/../b", "a/b/..", "a/b/../../..", "a//../b", "x/..",
		"x/../y", ".././..", "/", "/tmp", "//x", "/../x",
		"/dev/null"
	};
	const char *abs[1];
	char buf[PATH_MAX];

	put_dir(fx->dest, "a", 0755);
	put_dir(fx->dest, "a/b", 0755);
	put_file(fx->dest, "spare", "spare\n", 0644);
	expect_all_ops(fx, &fx->root, fx->dest, rels, NELEM(rels), -EXDEV);

	/* An absolute name of a place inside the root is still absolute. */
	(void)snprintf(buf, sizeof(buf), "%s/dest/a/b", fx->path);
	abs[0] = buf;
	expect_all_ops(fx, &fx->root, fx->dest, abs, 1, -EXDEV);

	/* Refused before anything is touched: nothing of "n1/n2" made. */
	ASSERT_RET(pfx_root_mkdirs(&fx->root, "n1/n2/../x", 0755), -EXDEV);
	cr_assert(!exists_at(fx->dest, "n1"), "[%s] n1 was created",
	    fx->rname);
}

/*
 *	dest/
 *	|-- a/
 *	|   `-- b/
 *	|       `-- c/
 *	|           `-- f	"dots\n" (made by the test)
 *	`-- ...  ..foo  foo..  .hidden	(made by the test)
 */
ROOT_TEST(dot_and_empty_components)
{
	static const char *const odd[] = { "...", "..foo", "foo..",
	    ".hidden" };
	struct pfx_root sub;
	char list[256];
	size_t i;
	int fd;

	fd = ASSERT_FD(pfx_root_mkdirs(&fx->root, "a/./b//c/", 0755));
	expect_same(fx, fd, fx->dest, "a/b/c");
	(void)close(fd);
	fd = ASSERT_FD(pfx_root_open_dir(&fx->root, "./a//b/./c/"));
	expect_same(fx, fd, fx->dest, "a/b/c");
	(void)close(fd);
	fd = ASSERT_FD(pfx_root_create(&fx->root, "a/./b//c//f", 0644));
	write_all(fd, "dots\n");
	(void)close(fd);
	expect_content(fx, fx->dest, "a/b/c/f", "dots\n");
	fd = ASSERT_FD(pfx_root_open_read(&fx->root, ".//a/b/c/./f"));
	expect_fd_content(fx, fd, "dots\n", "a/b/c/f");
	(void)close(fd);
	ASSERT_RET(pfx_root_sub(&fx->root, "a/./b/", &sub), 0);
	fd = ASSERT_FD(pfx_root_open_dir(&sub, ""));
	expect_same(fx, fd, fx->dest, "a/b");
	(void)close(fd);
	pfx_root_close(&sub);
	ASSERT_RET(pfx_root_rename(&fx->root, "a/b/c/f", "./a//b/c/g", 0), 0);
	cr_assert(exists_at(fx->dest, "a/b/c/g") &&
	    !exists_at(fx->dest, "a/b/c/f"), "[%s] rename", fx->rname);
	ASSERT_RET(pfx_root_unlink(&fx->root, "a//b/c/./g"), 0);
	ASSERT_RET(pfx_root_rmdir(&fx->root, "a/b/c/"), 0);
	cr_assert(!exists_at(fx->dest, "a/b/c"), "[%s] rmdir", fx->rname);

	/* Names that only look like dots are ordinary names. */
	for (i = 0; i < NELEM(odd); i++) {
		fd = ASSERT_FD(pfx_root_create(&fx->root, odd[i], 0644));
		(void)close(fd);
	}
	list_at(fx->dest, ".", list, sizeof(list));
	cr_assert_str_eq(list, "... ..foo .hidden a foo..");
}

/* --- symlinks: never followed --------------------------------------- */

/*
 *	dest/
 *	|-- a -> ../outside
 *	|-- abs -> /tmp/pfx-platform.XXXXXX/outside
 *	|-- dang -> ../outside/nothere
 *	|-- deep/
 *	|   `-- up -> ../../outside
 *	|-- in -> real
 *	|-- real/
 *	|   |-- sub/
 *	|   `-- x		"x\n"
 *	`-- spare		"spare\n"
 */
ROOT_TEST(symlink_in_path_refused)
{
	static const char *const rels[] = {
		"a/x", "a/secret", "a/sdir", "a/sdir/inner", "a/sdir/new",
		"a/empty", "a/slink", "abs/x", "abs/secret", "abs/sdir/x",
		"dang/x", "deep/up/x", "deep/up/secret", "in/x", "in/sub",
		"in/sub/y", "in/new"
	};
	char target[PATH_MAX], list[256];

	(void)snprintf(target, sizeof(target), "%s/outside", fx->path);
	put_link(fx->dest, "a", "../outside");
	put_link(fx->dest, "abs", target);
	put_link(fx->dest, "dang", "../outside/nothere");
	put_dir(fx->dest, "deep", 0755);
	put_link(fx->dest, "deep/up", "../../outside");
	put_dir(fx->dest, "real", 0755);
	put_dir(fx->dest, "real/sub", 0755);
	put_file(fx->dest, "real/x", "x\n", 0644);
	put_link(fx->dest, "in", "real");
	put_file(fx->dest, "spare", "spare\n", 0644);

	expect_all_ops(fx, &fx->root, fx->dest, rels, NELEM(rels), -ELOOP);
	list_at(fx->dest, "real", list, sizeof(list));
	cr_assert_str_eq(list, "sub x");
	list_at(fx->dest, "real/sub", list, sizeof(list));
	cr_assert_str_eq(list, "");
}

/*
 *	dest/
 *	|-- d/
 *	|-- ld -> ../outside/sdir
 *	|-- lf -> ../outside/secret
 *	`-- in -> d
 */
ROOT_TEST(symlink_as_last_component)
{
	struct pfx_root sub;
	struct pfx_pending pend;
	char list[64];

	put_dir(fx->dest, "d", 0755);
	put_link(fx->dest, "ld", "../outside/sdir");
	put_link(fx->dest, "lf", "../outside/secret");
	put_link(fx->dest, "in", "d");

	ASSERT_RET(pfx_root_open_dir(&fx->root, "ld"), -ELOOP);
	ASSERT_RET(pfx_root_open_dir(&fx->root, "in"), -ELOOP);
	ASSERT_RET(pfx_root_open_dir(&fx->root, "in/"), -ELOOP);
	ASSERT_RET(pfx_root_mkdirs(&fx->root, "ld", 0755), -ELOOP);
	ASSERT_RET(pfx_root_mkdirs(&fx->root, "in", 0755), -ELOOP);
	ASSERT_RET(pfx_root_mkdirs(&fx->root, "in/", 0755), -ELOOP);
	ASSERT_RET(pfx_root_sub(&fx->root, "ld", &sub), -ELOOP);
	ASSERT_RET(pfx_root_sub(&fx->root, "in", &sub), -ELOOP);
	ASSERT_RET(pfx_root_open_read(&fx->root, "lf"), -ELOOP);
	ASSERT_RET(pfx_root_open_read(&fx->root, "ld"), -ELOOP);
	ASSERT_RET(pfx_root_create(&fx->root, "lf", 0644), -EEXIST);
	ASSERT_RET(pfx_root_create(&fx->root, "ld", 0644), -EEXIST);

	/* A pending file in a symlinked directory is refused at once. */
	ASSERT_RET(pfx_root_begin(&fx->root, "in/f", 0644, &pend), -ELOOP);
	list_at(fx->dest, "d", list, sizeof(list));
	cr_assert_str_eq(list, "", "[%s] d/ holds \"%s\"", fx->rname, list);
}

/* --- pfx_root_mkdirs ------------------------------------------------ */

ROOT_TEST(mkdirs_nested)
{
	static const char *const dirs[] = { "a", "a/b", "a/b/c" };
	struct stat st;
	char list[64];
	size_t i;
	int fd;

	fd = ASSERT_FD(pfx_root_mkdirs(&fx->root, "a/b/c", 0750));
	expect_flags(fx, fd, O_RDONLY, "pfx_root_mkdirs");
	expect_same(fx, fd, fx->dest, "a/b/c");
	for (i = 0; i < NELEM(dirs); i++) {
		st = stat_at(fx->dest, dirs[i]);
		cr_assert(S_ISDIR(st.st_mode) && (st.st_mode & 07777) == 0750,
		    "[%s] %s has mode %06o, want a directory 0750",
		    fx->rname, dirs[i], (unsigned int)st.st_mode);
	}
	/* The descriptor can list the new directory. */
	list_fd(fd, list, sizeof(list));
	cr_assert_str_eq(list, "");

	/* The root itself. */
	fd = ASSERT_FD(pfx_root_mkdirs(&fx->root, "", 0700));
	expect_same(fx, fd, fx->top, "dest");
	(void)close(fd);
	fd = ASSERT_FD(pfx_root_mkdirs(&fx->root, ".", 0700));
	expect_same(fx, fd, fx->top, "dest");
	(void)close(fd);
	st = stat_at(fx->top, "dest");
	cr_assert((st.st_mode & 07777) == 0755, "[%s] the root's mode "
	    "changed to %04o", fx->rname, (unsigned int)(st.st_mode & 07777));
}

/*
 *	dest/
 *	`-- a/			0700
 *	    `-- keep		"keep\n"
 */
ROOT_TEST(mkdirs_reuses_existing)
{
	struct stat st;
	int fd;

	put_dir(fx->dest, "a", 0700);
	put_file(fx->dest, "a/keep", "keep\n", 0644);
	fd = ASSERT_FD(pfx_root_mkdirs(&fx->root, "a/b", 0755));
	expect_same(fx, fd, fx->dest, "a/b");
	(void)close(fd);
	st = stat_at(fx->dest, "a");
	cr_assert((st.st_mode & 07777) == 0700, "[%s] existing a/ got mode "
	    "%04o", fx->rname, (unsigned int)(st.st_mode & 07777));
	expect_content(fx, fx->dest, "a/keep", "keep\n");
	st = stat_at(fx->dest, "a/b");
	cr_assert((st.st_mode & 07777) == 0755, "[%s] a/b mode %04o",
	    fx->rname, (unsigned int)(st.st_mode & 07777));

	/* Again, with another mode: the same directory, mode untouched. */
	fd = ASSERT_FD(pfx_root_mkdirs(&fx->root, "a/b", 0700));
	expect_same(fx, fd, fx->dest, "a/b");
	(void)close(fd);
	st = stat_at(fx->dest, "a/b");
	cr_assert((st.st_mode & 07777) == 0755, "[%s] a/b mode changed to "
	    "%04o", fx->rname, (unsigned int)(st.st_mode & 07777));
	fd = ASSERT_FD(pfx_root_mkdirs(&fx->root, "a", 0777));
	expect_same(fx, fd, fx->dest, "a");
	(void)close(fd);
}

ROOT_TEST(mkdirs_honours_umask)
{
	struct stat st;
	int fd;

	(void)umask(027);
	fd = ASSERT_FD(pfx_root_mkdirs(&fx->root, "u/v", 0777));
	(void)close(fd);
	(void)umask(0);
	st = stat_at(fx->dest, "u");
	cr_assert((st.st_mode & 07777) == 0750, "[%s] u mode %04o, want 0750",
	    fx->rname, (unsigned int)(st.st_mode & 07777));
	st = stat_at(fx->dest, "u/v");
	cr_assert((st.st_mode & 07777) == 0750, "[%s] u/v mode %04o, want "
	    "0750", fx->rname, (unsigned int)(st.st_mode & 07777));
}

/*
 *	dest/
 *	|-- d/
 *	|-- f			"f\n"
 *	|-- fifo		(FIFO)
 *	|-- in -> d
 *	`-- l -> ../outside/sdir
 */
ROOT_TEST(mkdirs_refused)
{
	static const struct {
		const char *rel;
		int want;
	} rows[] = {
		{ "f", -ENOTDIR },
		{ "f/x", -ENOTDIR },
		{ "f/x/y", -ENOTDIR },
		{ "fifo", -ENOTDIR },
		{ "fifo/x", -ENOTDIR },
		{ "l", -ELOOP },
		{ "l/new", -ELOOP },
		{ "l/new/deeper", -ELOOP },
		{ "in", -ELOOP },
		{ "in/new", -ELOOP },
		{ "d/../x", -EXDEV },
	};
	char list[128];
	size_t i;
	int r;

	put_dir(fx->dest, "d", 0755);
	put_file(fx->dest, "f", "f\n", 0644);
	cr_assert(mkfifoat(fx->dest, "fifo", 0600) == 0, "mkfifo: %s",
	    strerror(errno));
	put_link(fx->dest, "in", "d");
	put_link(fx->dest, "l", "../outside/sdir");
	for (i = 0; i < NELEM(rows); i++) {
		r = pfx_root_mkdirs(&fx->root, rows[i].rel, 0755);
		cr_assert(r == rows[i].want, "[%s] pfx_root_mkdirs(\"%s\"): "
		    "got %d (%s), want %s", fx->rname, rows[i].rel, r,
		    errname(r), errname(rows[i].want));
	}
	list_at(fx->dest, ".", list, sizeof(list));
	cr_assert_str_eq(list, "d f fifo in l");
	list_at(fx->dest, "d", list, sizeof(list));
	cr_assert_str_eq(list, "");
	expect_content(fx, fx->dest, "f", "f\n");
}

/* --- pfx_root_mkdirs_count ------------------------------------------ */

/* Assert that pfx_root_mkdirs_count() on REL made WANT components. */
static void
expect_count(const struct fx *fx, int line, const char *rel,
    unsigned int got, unsigned int want)
{
	cr_assert(got == want, "line %d [%s] pfx_root_mkdirs_count(\"%s\"): "
	    "*created is %u, want %u", line, fx->rname, rel, got, want);
}

/*
 *	dest/
 *	`-- a/ b/ c/		made by the test, then counted again
 */
ROOT_TEST(mkdirs_count_new)
{
	static const char *const dirs[] = { "a", "a/b", "a/b/c" };
	struct stat st;
	unsigned int n;
	size_t i;
	int fd;

	/* From nothing: every component is new. */
	n = 99;
	fd = ASSERT_FD(pfx_root_mkdirs_count(&fx->root, "a/b/c", 0750, &n));
	expect_count(fx, __LINE__, "a/b/c", n, 3);
	expect_flags(fx, fd, O_RDONLY, "pfx_root_mkdirs_count");
	expect_same(fx, fd, fx->dest, "a/b/c");
	(void)close(fd);
	for (i = 0; i < NELEM(dirs); i++) {
		st = stat_at(fx->dest, dirs[i]);
		cr_assert(S_ISDIR(st.st_mode) && (st.st_mode & 07777) == 0750,
		    "[%s] %s has mode %06o, want a directory 0750",
		    fx->rname, dirs[i], (unsigned int)st.st_mode);
	}

	/* The same name again: it exists, nothing is made. */
	n = 99;
	fd = ASSERT_FD(pfx_root_mkdirs_count(&fx->root, "a/b/c", 0700, &n));
	expect_count(fx, __LINE__, "a/b/c", n, 0);
	expect_same(fx, fd, fx->dest, "a/b/c");
	(void)close(fd);
	st = stat_at(fx->dest, "a/b/c");
	cr_assert((st.st_mode & 07777) == 0750, "[%s] a/b/c mode changed to "
	    "%04o", fx->rname, (unsigned int)(st.st_mode & 07777));
	n = 99;
	fd = ASSERT_FD(pfx_root_mkdirs_count(&fx->root, "a", 0755, &n));
	expect_count(fx, __LINE__, "a", n, 0);
	(void)close(fd);
	n = 99;
	fd = ASSERT_FD(pfx_root_mkdirs_count(&fx->root, "./a//b/", 0755, &n));
	expect_count(fx, __LINE__, "./a//b/", n, 0);
	expect_same(fx, fd, fx->dest, "a/b");
	(void)close(fd);

	/* The root itself always exists. */
	n = 99;
	fd = ASSERT_FD(pfx_root_mkdirs_count(&fx->root, "", 0755, &n));
	expect_count(fx, __LINE__, "", n, 0);
	expect_same(fx, fd, fx->top, "dest");
	(void)close(fd);
	n = 99;
	fd = ASSERT_FD(pfx_root_mkdirs_count(&fx->root, ".", 0755, &n));
	expect_count(fx, __LINE__, ".", n, 0);
	(void)close(fd);

	/* Only the missing tail is counted. */
	n = 99;
	fd = ASSERT_FD(pfx_root_mkdirs_count(&fx->root, "a/b/c/d/e", 0755,
	    &n));
	expect_count(fx, __LINE__, "a/b/c/d/e", n, 2);
	expect_same(fx, fd, fx->dest, "a/b/c/d/e");
	(void)close(fd);
}

/*
 *	dest/
 *	`-- a/
 *	    `-- b/		0700, holding "keep"
 */
ROOT_TEST(mkdirs_count_partial)
{
	struct stat st;
	char list[64];
	unsigned int n;
	int fd;

	put_dir(fx->dest, "a", 0755);
	put_dir(fx->dest, "a/b", 0700);
	put_file(fx->dest, "a/b/keep", "keep\n", 0644);
	n = 99;
	fd = ASSERT_FD(pfx_root_mkdirs_count(&fx->root, "a/b/c", 0751, &n));
	expect_count(fx, __LINE__, "a/b/c", n, 1);
	expect_same(fx, fd, fx->dest, "a/b/c");
	(void)close(fd);
	st = stat_at(fx->dest, "a/b");
	cr_assert((st.st_mode & 07777) == 0700, "[%s] existing a/b got mode "
	    "%04o", fx->rname, (unsigned int)(st.st_mode & 07777));
	st = stat_at(fx->dest, "a/b/c");
	cr_assert((st.st_mode & 07777) == 0751, "[%s] a/b/c mode %04o",
	    fx->rname, (unsigned int)(st.st_mode & 07777));
	list_at(fx->dest, "a/b", list, sizeof(list));
	cr_assert_str_eq(list, "c keep");
}

/* CREATED may be NULL, whether or not anything is made. */
ROOT_TEST(mkdirs_count_null)
{
	int fd;

	fd = ASSERT_FD(pfx_root_mkdirs_count(&fx->root, "n1/n2", 0755, NULL));
	expect_same(fx, fd, fx->dest, "n1/n2");
	(void)close(fd);
	fd = ASSERT_FD(pfx_root_mkdirs_count(&fx->root, "n1/n2", 0755, NULL));
	expect_same(fx, fd, fx->dest, "n1/n2");
	(void)close(fd);
	fd = ASSERT_FD(pfx_root_mkdirs_count(&fx->root, "", 0755, NULL));
	(void)close(fd);
	ASSERT_RET(pfx_root_mkdirs_count(&fx->root, "../x", 0755, NULL),
	    -EXDEV);
}

/*
 * A refused call made nothing, and says so.
 *
 *	dest/
 *	|-- d/
 *	|-- f			"f\n"
 *	`-- l -> ../outside/sdir
 */
ROOT_TEST(mkdirs_count_refused)
{
	static const struct {
		const char *rel;
		int want;
	} rows[] = {
		{ "f", -ENOTDIR },
		{ "f/x/y", -ENOTDIR },
		{ "l", -ELOOP },
		{ "l/new", -ELOOP },
		{ "d/../x", -EXDEV },
		{ "/x", -EXDEV },
	};
	char list[64];
	unsigned int n;
	size_t i;
	int r;

	put_dir(fx->dest, "d", 0755);
	put_file(fx->dest, "f", "f\n", 0644);
	put_link(fx->dest, "l", "../outside/sdir");
	for (i = 0; i < NELEM(rows); i++) {
		n = 99;
		r = pfx_root_mkdirs_count(&fx->root, rows[i].rel, 0755, &n);
		if (r >= 0)
			(void)close(r);
		cr_assert(r == rows[i].want, "[%s] pfx_root_mkdirs_count"
		    "(\"%s\"): got %d (%s), want %s", fx->rname, rows[i].rel,
		    r, errname(r), errname(rows[i].want));
		expect_count(fx, __LINE__, rows[i].rel, n, 0);
	}
	list_at(fx->dest, ".", list, sizeof(list));
	cr_assert_str_eq(list, "d f l");
	list_at(fx->dest, "d", list, sizeof(list));
	cr_assert_str_eq(list, "");
}

/* --- what may already stand at a name -------------------------------- */

enum prior {
	PRIOR_FILE,		/* a regular file of the root: "old\n" */
	PRIOR_HARDLINK_OUT,	/* a hard link to outside/victim */
	PRIOR_SYMLINK_OUT,	/* -> ../outside/victim */
	PRIOR_SYMLINK_ABS,	/* -> /tmp/.../outside/victim */
	PRIOR_SYMLINK_DIR_OUT,	/* -> ../outside/sdir */
	PRIOR_DANGLING_OUT,	/* -> ../outside/created (missing) */
	PRIOR_SYMLINK_IN,	/* -> spare, a file of the root */
	PRIOR_FIFO,		/* a FIFO */
	PRIOR_DIR,		/* an empty directory */
	NPRIORS
};

static const char *const prior_names[NPRIORS] = {
	"a regular file", "a hard link to a file outside",
	"a symlink to a file outside", "an absolute symlink outside",
	"a symlink to a directory outside", "a dangling symlink outside",
	"a symlink to a file inside", "a FIFO", "an empty directory"
};

/* Put an entry of kind PRIOR at dest/NAME. */
static void
plant(struct fx *fx, enum prior prior, const char *name)
{
	char target[PATH_MAX];

	switch (prior) {
	case PRIOR_FILE:
		put_file(fx->dest, name, "old\n", 0644);
		break;
	case PRIOR_HARDLINK_OUT:
		cr_assert(linkat(fx->out, "victim", fx->dest, name, 0) == 0,
		    "fixture: link %s: %s", name, strerror(errno));
		break;
	case PRIOR_SYMLINK_OUT:
		put_link(fx->dest, name, "../outside/victim");
		break;
	case PRIOR_SYMLINK_ABS:
		(void)snprintf(target, sizeof(target), "%s/outside/victim",
		    fx->path);
		put_link(fx->dest, name, target);
		break;
	case PRIOR_SYMLINK_DIR_OUT:
		put_link(fx->dest, name, "../outside/sdir");
		break;
	case PRIOR_DANGLING_OUT:
		put_link(fx->dest, name, "../outside/created");
		break;
	case PRIOR_SYMLINK_IN:
		put_link(fx->dest, name, "spare");
		break;
	case PRIOR_FIFO:
		cr_assert(mkfifoat(fx->dest, name, 0600) == 0,
		    "fixture: mkfifo %s: %s", name, strerror(errno));
		break;
	case PRIOR_DIR:
		put_dir(fx->dest, name, 0755);
		break;
	default:
		cr_assert_fail("no such prior %d", (int)prior);
	}
}

/* Assert that outside/victim is as the fixture made it, link count too. */
static void
expect_victim_intact(const struct fx *fx, const char *after)
{
	struct stat st;

	st = stat_at(fx->out, "victim");
	cr_assert(S_ISREG(st.st_mode) && st.st_nlink == 1,
	    "[%s] after %s outside/victim has nlink %lu", fx->rname, after,
	    (unsigned long)st.st_nlink);
	expect_content(fx, fx->out, "victim", VICTIM);
	cr_assert(!exists_at(fx->out, "created"),
	    "[%s] after %s outside/created exists", fx->rname, after);
}

/* --- pfx_root_create ------------------------------------------------ */

ROOT_TEST(create_new_file)
{
	struct stat st;
	int fd;

	put_dir(fx->dest, "d", 0755);
	fd = ASSERT_FD(pfx_root_create(&fx->root, "f", 0640));
	expect_flags(fx, fd, O_WRONLY, "pfx_root_create");
	write_all(fd, "hello\n");
	expect_same(fx, fd, fx->dest, "f");
	(void)close(fd);
	st = stat_at(fx->dest, "f");
	cr_assert(S_ISREG(st.st_mode) && (st.st_mode & 07777) == 0640 &&
	    st.st_nlink == 1, "[%s] f: mode %06o nlink %lu", fx->rname,
	    (unsigned int)st.st_mode, (unsigned long)st.st_nlink);
	expect_content(fx, fx->dest, "f", "hello\n");

	fd = ASSERT_FD(pfx_root_create(&fx->root, "d/g", 0600));
	(void)close(fd);
	st = stat_at(fx->dest, "d/g");
	cr_assert(S_ISREG(st.st_mode) && (st.st_mode & 07777) == 0600 &&
	    st.st_size == 0, "[%s] d/g: mode %06o size %lld", fx->rname,
	    (unsigned int)st.st_mode, (long long)st.st_size);

	(void)umask(077);
	fd = ASSERT_FD(pfx_root_create(&fx->root, "u", 0666));
	(void)close(fd);
	(void)umask(0);
	st = stat_at(fx->dest, "u");
	cr_assert((st.st_mode & 07777) == 0600, "[%s] u: mode %04o under "
	    "umask 077", fx->rname, (unsigned int)(st.st_mode & 07777));
}

ROOT_TEST(create_is_exclusive)
{
	char name[16], list[256];
	struct stat before, after;
	int p;

	put_file(fx->dest, "spare", "spare\n", 0644);
	for (p = 0; p < NPRIORS; p++) {
		(void)snprintf(name, sizeof(name), "p%d", p);
		plant(fx, (enum prior)p, name);
		before = stat_at(fx->dest, name);
		ASSERT_RET(pfx_root_create(&fx->root, name, 0644), -EEXIST);
		after = stat_at(fx->dest, name);
		cr_assert(before.st_ino == after.st_ino &&
		    before.st_mode == after.st_mode &&
		    before.st_size == after.st_size,
		    "[%s] create over %s changed it", fx->rname,
		    prior_names[p]);
	}
	expect_content(fx, fx->dest, "p0", "old\n");
	expect_content(fx, fx->dest, "spare", "spare\n");
	list_at(fx->dest, "p8", list, sizeof(list));
	cr_assert_str_eq(list, "");
	cr_assert(unlinkat(fx->dest, "p1", 0) == 0, "unlink p1");
	expect_victim_intact(fx, "pfx_root_create");

	/* The root itself exists. */
	ASSERT_RET(pfx_root_create(&fx->root, "", 0644), -EEXIST);
	ASSERT_RET(pfx_root_create(&fx->root, ".", 0644), -EEXIST);
}

/*
 *	dest/
 *	|-- f			"f\n"
 *	`-- l -> ../outside/sdir
 */
ROOT_TEST(create_parent_refused)
{
	put_file(fx->dest, "f", "f\n", 0644);
	put_link(fx->dest, "l", "../outside/sdir");
	ASSERT_RET(pfx_root_create(&fx->root, "missing/f", 0644), -ENOENT);
	ASSERT_RET(pfx_root_create(&fx->root, "m1/m2/f", 0644), -ENOENT);
	ASSERT_RET(pfx_root_create(&fx->root, "f/x", 0644), -ENOTDIR);
	ASSERT_RET(pfx_root_create(&fx->root, "l/x", 0644), -ELOOP);
	cr_assert(!exists_at(fx->dest, "missing") &&
	    !exists_at(fx->dest, "m1"), "[%s] a parent was made", fx->rname);
}

/* --- pfx_root_begin, pfx_root_commit, pfx_root_abort ------------------ */

PENDING_TEST(commit_new_file)
{
	struct pfx_pending pend;
	struct stat st;
	char list[64];

	put_dir(fx->dest, "d", 0755);
	ASSERT_RET(pfx_root_begin(&fx->root, "d/f", 0640, &pend), 0);
	expect_fd(fx, __LINE__, "pend.fd", pend.fd);
	expect_flags(fx, pend.fd, O_WRONLY, "pend.fd");
	/* Unnamed, the pending file is in no directory at all. */
	list_at(fx->dest, "d", list, sizeof(list));
	if (!fx->named)
		cr_assert_str_eq(list, "", "[%s] d/ holds \"%s\" while "
		    "pending", fx->rname, list);
	cr_assert(count_temps(fx->dest, "d") == (fx->named ? 1 : 0),
	    "[%s] %zu temporaries while pending", fx->rname,
	    count_temps(fx->dest, "d"));
	cr_assert(!exists_at(fx->dest, "d/f"), "[%s] d/f exists before the "
	    "commit", fx->rname);
	write_all(pend.fd, "committed\n");
	ASSERT_RET(pfx_root_commit(&fx->root, &pend, PFX_ROOT_REPLACE), 0);
	st = stat_at(fx->dest, "d/f");
	cr_assert(S_ISREG(st.st_mode) && (st.st_mode & 07777) == 0640 &&
	    st.st_nlink == 1, "[%s] d/f: mode %06o nlink %lu", fx->rname,
	    (unsigned int)st.st_mode, (unsigned long)st.st_nlink);
	expect_content(fx, fx->dest, "d/f", "committed\n");
	cr_assert(count_temps(fx->dest, "d") == 0, "[%s] temporary left",
	    fx->rname);

	/* NOREPLACE on a free name works too. */
	ASSERT_RET(pfx_root_begin(&fx->root, "g", 0600, &pend), 0);
	write_all(pend.fd, "g\n");
	ASSERT_RET(pfx_root_commit(&fx->root, &pend, PFX_ROOT_NOREPLACE), 0);
	expect_content(fx, fx->dest, "g", "g\n");
	cr_assert(count_temps(fx->dest, ".") == 0, "[%s] temporary left",
	    fx->rname);
}

/*
 * Each kind of prior entry at the name is replaced by the new file; the
 * hard link to outside/victim is unlinked, not written through.
 */
PENDING_TEST(commit_replace)
{
	struct pfx_pending pend;
	struct stat st, vst;
	char name[16], data[32];
	int p;

	put_file(fx->dest, "spare", "spare\n", 0644);
	for (p = 0; p < NPRIORS; p++) {
		if (p == PRIOR_DIR)
			continue;
		(void)snprintf(name, sizeof(name), "p%d", p);
		(void)snprintf(data, sizeof(data), "new %d\n", p);
		plant(fx, (enum prior)p, name);
		if (p == PRIOR_HARDLINK_OUT) {
			vst = stat_at(fx->out, "victim");
			cr_assert(vst.st_nlink == 2, "fixture: nlink %lu",
			    (unsigned long)vst.st_nlink);
		}
		ASSERT_RET(pfx_root_begin(&fx->root, name, 0644, &pend), 0);
		write_all(pend.fd, data);
		ASSERT_RET(pfx_root_commit(&fx->root, &pend,
		    PFX_ROOT_REPLACE), 0);
		st = stat_at(fx->dest, name);
		cr_assert(S_ISREG(st.st_mode) && st.st_nlink == 1,
		    "[%s] over %s: mode %06o nlink %lu", fx->rname,
		    prior_names[p], (unsigned int)st.st_mode,
		    (unsigned long)st.st_nlink);
		expect_content(fx, fx->dest, name, data);
		expect_victim_intact(fx, prior_names[p]);
	}
	expect_content(fx, fx->dest, "spare", "spare\n");
	cr_assert(count_temps(fx->dest, ".") == 0, "[%s] temporary left",
	    fx->rname);
}

/*
 * PFX_ROOT_REPLACE_FILE replaces a file, but stops at a symlink with
 * PFX_ROOT_SYMLINK_HELD, the pending file kept for a second commit; a
 * hard link stops there too.
 *
 *	dest/
 *	|-- f		"old\n"
 *	|-- l -> f
 *	`-- m -> f
 */
PENDING_TEST(commit_replace_file)
{
	struct pfx_pending pend;
	struct stat st;
	int fd;

	put_file(fx->dest, "f", "old\n", 0644);
	put_link(fx->dest, "l", "f");
	put_link(fx->dest, "m", "f");
	ASSERT_RET(pfx_root_begin(&fx->root, "l", 0644, &pend), 0);
	write_all(pend.fd, "new\n");
	ASSERT_RET(pfx_root_commit(&fx->root, &pend, PFX_ROOT_REPLACE_FILE),
	    PFX_ROOT_SYMLINK_HELD);
	st = stat_at(fx->dest, "l");
	cr_assert(S_ISLNK(st.st_mode), "[%s] l replaced", fx->rname);
	ASSERT_RET(pfx_root_commit(&fx->root, &pend, PFX_ROOT_REPLACE), 0);
	expect_content(fx, fx->dest, "l", "new\n");
	ASSERT_RET(pfx_root_begin(&fx->root, "f", 0644, &pend), 0);
	write_all(pend.fd, "newer\n");
	ASSERT_RET(pfx_root_commit(&fx->root, &pend, PFX_ROOT_REPLACE_FILE),
	    0);
	expect_content(fx, fx->dest, "f", "newer\n");
	fd = ASSERT_FD(pfx_root_open_read(&fx->root, "f"));
	ASSERT_RET(pfx_root_link(&fx->root, fd, "m", PFX_ROOT_REPLACE_FILE),
	    PFX_ROOT_SYMLINK_HELD);
	st = stat_at(fx->dest, "m");
	cr_assert(S_ISLNK(st.st_mode), "[%s] m replaced", fx->rname);
	ASSERT_RET(pfx_root_link(&fx->root, fd, "l", PFX_ROOT_REPLACE_FILE),
	    0);
	expect_content(fx, fx->dest, "l", "newer\n");
	(void)close(fd);
	cr_assert(count_temps(fx->dest, ".") == 0, "[%s] temporary left",
	    fx->rname);
}

/* Flags 0 and PFX_ROOT_NOREPLACE leave every kind of prior entry alone. */
PENDING_TEST(commit_noreplace)
{
	static const unsigned int flags[] = { 0, PFX_ROOT_NOREPLACE };
	struct pfx_pending pend;
	struct stat before, after;
	char name[16];
	size_t i;
	int p;

	put_file(fx->dest, "spare", "spare\n", 0644);
	for (p = 0; p < NPRIORS; p++) {
		(void)snprintf(name, sizeof(name), "p%d", p);
		plant(fx, (enum prior)p, name);
		before = stat_at(fx->dest, name);
		for (i = 0; i < NELEM(flags); i++) {
			ASSERT_RET(pfx_root_begin(&fx->root, name, 0644,
			    &pend), 0);
			write_all(pend.fd, "lost\n");
			ASSERT_RET(pfx_root_commit(&fx->root, &pend,
			    flags[i]), -EEXIST);
			after = stat_at(fx->dest, name);
			cr_assert(before.st_ino == after.st_ino &&
			    before.st_mode == after.st_mode,
			    "[%s] commit %#x replaced %s", fx->rname,
			    flags[i], prior_names[p]);
			cr_assert(count_temps(fx->dest, ".") == 0,
			    "[%s] temporary left after commit %#x over %s",
			    fx->rname, flags[i], prior_names[p]);
		}
	}
	expect_content(fx, fx->dest, "p0", "old\n");
	cr_assert(unlinkat(fx->dest, "p1", 0) == 0, "unlink p1");
	expect_victim_intact(fx, "a NOREPLACE commit");
}

/*
 *	dest/
 *	`-- d/
 *	    `-- keep		"keep\n"
 */
PENDING_TEST(commit_over_directory)
{
	struct pfx_pending pend;
	struct stat st;
	char list[64];

	put_dir(fx->dest, "d", 0755);
	put_file(fx->dest, "d/keep", "keep\n", 0644);
	ASSERT_RET(pfx_root_begin(&fx->root, "d", 0644, &pend), 0);
	write_all(pend.fd, "file\n");
	ASSERT_RET(pfx_root_commit(&fx->root, &pend, PFX_ROOT_REPLACE),
	    -EISDIR);
	st = stat_at(fx->dest, "d");
	cr_assert(S_ISDIR(st.st_mode), "[%s] d is no longer a directory",
	    fx->rname);
	list_at(fx->dest, "d", list, sizeof(list));
	cr_assert_str_eq(list, "keep");
	cr_assert(count_temps(fx->dest, ".") == 0, "[%s] temporary left",
	    fx->rname);
}

PENDING_TEST(abort_removes_temporary)
{
	struct pfx_pending pend;
	char list[64];

	ASSERT_RET(pfx_root_begin(&fx->root, "f", 0644, &pend), 0);
	write_all(pend.fd, "aborted\n");
	cr_assert(count_temps(fx->dest, ".") == (fx->named ? 1 : 0),
	    "[%s] %zu temporaries while pending", fx->rname,
	    count_temps(fx->dest, "."));
	pfx_root_abort(&pend);
	list_at(fx->dest, ".", list, sizeof(list));
	cr_assert_str_eq(list, "", "[%s] after abort dest/ holds \"%s\"",
	    fx->rname, list);
}

/*
 *	dest/
 *	|-- f			"f\n"
 *	`-- l -> ../outside/sdir
 */
ROOT_TEST(begin_refused)
{
	struct pfx_pending pend;
	char list[64];

	put_file(fx->dest, "f", "f\n", 0644);
	put_link(fx->dest, "l", "../outside/sdir");
	ASSERT_RET(pfx_root_begin(&fx->root, "missing/f", 0644, &pend),
	    -ENOENT);
	ASSERT_RET(pfx_root_begin(&fx->root, "f/x", 0644, &pend), -ENOTDIR);
	ASSERT_RET(pfx_root_begin(&fx->root, "l/x", 0644, &pend), -ELOOP);
	ASSERT_RET(pfx_root_begin(&fx->root, "../x", 0644, &pend), -EXDEV);
	list_at(fx->dest, ".", list, sizeof(list));
	cr_assert_str_eq(list, "f l");
}

/*
 * Without the kernel's confinement the parent cache keeps nothing: each
 * file's parent is looked up again, so a directory moved out, or swapped
 * for a symlink, between two files is seen.
 *
 *	dest/
 *	`-- a/			moved to elsewhere/a, then a symlink to it
 */
ROOT_TEST(begin_cached_unconfined)
{
	struct pfx_parent_cache cache;
	struct pfx_pending pend;
	char list[64];

	put_dir(fx->dest, "a", 0755);
	pfx_parent_cache_init(&cache);
	ASSERT_RET(pfx_root_begin_cached(&fx->root, &cache, "a/f1", 0644,
	    &pend), 0);
	write_all(pend.fd, "f1\n");
	ASSERT_RET(pfx_root_commit(&fx->root, &pend, 0), 0);
	cr_assert(renameat(fx->dest, "a", fx->elsewhere, "a") == 0,
	    "rename: %s", strerror(errno));
	ASSERT_RET(pfx_root_begin_cached(&fx->root, &cache, "a/f2", 0644,
	    &pend), -ENOENT);
	put_link(fx->dest, "a", "../elsewhere/a");
	ASSERT_RET(pfx_root_begin_cached(&fx->root, &cache, "a/f3", 0644,
	    &pend), -ELOOP);
	list_at(fx->elsewhere, "a", list, sizeof(list));
	cr_assert_str_eq(list, "f1", "[%s] elsewhere/a holds \"%s\"",
	    fx->rname, list);
	pfx_parent_cache_drop(&cache);
}

/*
 * Confined (here only said to be: the kernel's part is tested in
 * test_sandbox.c), the cache keeps the last parent: files land in the
 * directory their name says, whichever was kept, and a drop closes it.
 *
 *	dest/
 *	|-- a/			f1, f3
 *	`-- b/			f2
 */
ROOT_TEST(begin_cached_confined)
{
	static const char *const names[] = { "a/f1", "a/f3", "b/f2", "a/f4",
	    "f5" };
	struct pfx_parent_cache cache;
	struct pfx_pending pend;
	char list[64];
	size_t i;

	put_dir(fx->dest, "a", 0755);
	put_dir(fx->dest, "b", 0755);
	pfx_root_confined(&fx->root);
	pfx_parent_cache_init(&cache);
	for (i = 0; i < NELEM(names); i++) {
		ASSERT_RET(pfx_root_begin_cached(&fx->root, &cache, names[i],
		    0644, &pend), 0);
		write_all(pend.fd, names[i]);
		ASSERT_RET(pfx_root_commit(&fx->root, &pend, 0), 0);
		expect_content(fx, fx->dest, names[i], names[i]);
	}
	/* A failure lets the kept directory go. */
	ASSERT_RET(pfx_root_begin_cached(&fx->root, &cache, "missing/f",
	    0644, &pend), -ENOENT);
	cr_assert(cache.ref == NULL, "[%s] a failed begin kept a parent",
	    fx->rname);
	ASSERT_RET(pfx_root_begin_cached(&fx->root, &cache, "b/f6", 0644,
	    &pend), 0);
	pfx_root_abort(&pend);
	pfx_parent_cache_drop(&cache);
	list_at(fx->dest, "a", list, sizeof(list));
	cr_assert_str_eq(list, "f1 f3 f4", "[%s] a/ holds \"%s\"", fx->rname,
	    list);
	list_at(fx->dest, "b", list, sizeof(list));
	cr_assert_str_eq(list, "f2", "[%s] b/ holds \"%s\"", fx->rname, list);
}

/*
 * The files begun through a cache share its descriptor, one for them all
 * (no copy each), and outlive the cache: committed or aborted after it is
 * dropped, in any order, they land where their names say and the last
 * one closes it.
 *
 *	dest/
 *	`-- a/			f2, f3 (f1 aborted)
 */
ROOT_TEST(begin_cached_shared)
{
	static const char *const names[] = { "a/f1", "a/f2", "a/f3" };
	struct pfx_parent_cache cache;
	struct pfx_pending pend[3];
	char list[64];
	int base;
	size_t i;

	put_dir(fx->dest, "a", 0755);
	pfx_root_confined(&fx->root);
	pfx_parent_cache_init(&cache);
	base = tfx_count_fds();
	for (i = 0; i < NELEM(names); i++) {
		ASSERT_RET(pfx_root_begin_cached(&fx->root, &cache, names[i],
		    0644, &pend[i]), 0);
		write_all(pend[i].fd, names[i]);
	}
	cr_assert(tfx_count_fds() == base + 4, "[%s] three files in one "
	    "directory hold %d descriptors, not 3 and the directory's",
	    fx->rname, tfx_count_fds() - base);
	pfx_parent_cache_drop(&cache);
	ASSERT_RET(pfx_root_commit(&fx->root, &pend[1], 0), 0);
	pfx_root_abort(&pend[0]);
	ASSERT_RET(pfx_root_commit(&fx->root, &pend[2], 0), 0);
	cr_assert(tfx_count_fds() == base, "[%s] %d descriptors left open",
	    fx->rname, tfx_count_fds() - base);
	list_at(fx->dest, "a", list, sizeof(list));
	cr_assert_str_eq(list, "f2 f3", "[%s] a/ holds \"%s\"", fx->rname,
	    list);
	expect_content(fx, fx->dest, "a/f2", "a/f2");
	expect_content(fx, fx->dest, "a/f3", "a/f3");
}

/*
 * A kept parent removed, and a directory of its name made again: the next
 * file lands in the new one, as a fresh lookup would put it, and fails
 * only where nothing of that name is there.
 *
 *	dest/
 *	`-- a/			removed with f1 in it, made again: f2
 */
ROOT_TEST(begin_cached_confined_removed)
{
	struct pfx_parent_cache cache;
	struct pfx_pending pend;
	char list[64];

	put_dir(fx->dest, "a", 0755);
	pfx_root_confined(&fx->root);
	pfx_parent_cache_init(&cache);
	ASSERT_RET(pfx_root_begin_cached(&fx->root, &cache, "a/f1", 0644,
	    &pend), 0);
	ASSERT_RET(pfx_root_commit(&fx->root, &pend, 0), 0);
	cr_assert(unlinkat(fx->dest, "a/f1", 0) == 0 &&
	    unlinkat(fx->dest, "a", AT_REMOVEDIR) == 0, "remove: %s",
	    strerror(errno));
	put_dir(fx->dest, "a", 0755);
	ASSERT_RET(pfx_root_begin_cached(&fx->root, &cache, "a/f2", 0644,
	    &pend), 0);
	write_all(pend.fd, "f2");
	ASSERT_RET(pfx_root_commit(&fx->root, &pend, 0), 0);
	expect_content(fx, fx->dest, "a/f2", "f2");
	cr_assert(unlinkat(fx->dest, "a/f2", 0) == 0 &&
	    unlinkat(fx->dest, "a", AT_REMOVEDIR) == 0, "remove: %s",
	    strerror(errno));
	ASSERT_RET(pfx_root_begin_cached(&fx->root, &cache, "a/f3", 0644,
	    &pend), -ENOENT);
	pfx_parent_cache_drop(&cache);
	list_at(fx->dest, ".", list, sizeof(list));
	cr_assert_str_eq(list, "", "[%s] dest/ holds \"%s\"", fx->rname,
	    list);
}

/* The modes the kept-parent tests make directories with. */
static const struct plat_mkmode mk = { 0700, 0700 };

/* plat_mkdirs_kept() into CACHE: the descriptor, and what it made. */
static int
mkdirs_kept(struct fx *fx, struct pfx_parent_cache *cache, const char *rel,
    unsigned int *made)
{
	int fd;

	fd = plat_mkdirs_kept(&fx->root, cache, rel, &mk, made);
	if (fd >= 0)
		close(fd);
	return fd < 0 ? fd : 0;
}

/*
 * Directories made through kept parents: what a walk makes, with the
 * same refusals, in the directory the name says even when the kept one
 * was removed and made again.
 *
 *	dest/
 *	|-- a/			removed with b/ in it, made again: c/
 *	|-- f			"f\n": no directory goes there
 *	|-- l -> a		nor there
 *	`-- x/y/z/		made by the walk: its parents were missing
 */
ROOT_TEST(mkdirs_kept_confined)
{
	struct pfx_parent_cache top, in_a;
	unsigned int made;
	char list[64];
	int fd;

	put_file(fx->dest, "f", "f\n", 0644);
	put_link(fx->dest, "l", "a");
	pfx_root_confined(&fx->root);
	pfx_parent_cache_init(&top);
	pfx_parent_cache_init(&in_a);
	fd = plat_mkdirs_kept(&fx->root, &top, "a", &mk, &made);
	cr_assert(fd >= 0 && made == 1, "[%s] a: %d, %u made", fx->rname, fd,
	    made);
	plat_parent_cache_keep(&fx->root, &in_a, "a", fd);
	ASSERT_RET(mkdirs_kept(fx, &in_a, "a/b", &made), 0);
	cr_assert(made == 1, "[%s] a/b: %u made", fx->rname, made);
	ASSERT_RET(mkdirs_kept(fx, &in_a, "a/b", &made), 0);
	cr_assert(made == 0, "[%s] a/b again: %u made", fx->rname, made);
	ASSERT_RET(mkdirs_kept(fx, &top, "f", &made), -ENOTDIR);
	ASSERT_RET(mkdirs_kept(fx, &top, "l", &made), -ELOOP);
	ASSERT_RET(mkdirs_kept(fx, &top, "x/y/z", &made), 0);
	cr_assert(made == 3, "[%s] x/y/z: %u made", fx->rname, made);
	cr_assert(unlinkat(fx->dest, "a/b", AT_REMOVEDIR) == 0 &&
	    unlinkat(fx->dest, "a", AT_REMOVEDIR) == 0, "remove: %s",
	    strerror(errno));
	put_dir(fx->dest, "a", 0755);
	ASSERT_RET(mkdirs_kept(fx, &in_a, "a/c", &made), 0);
	cr_assert(made == 1, "[%s] a/c: %u made", fx->rname, made);
	pfx_parent_cache_drop(&top);
	pfx_parent_cache_drop(&in_a);
	list_at(fx->dest, "a", list, sizeof(list));
	cr_assert_str_eq(list, "c", "[%s] a/ holds \"%s\"", fx->rname, list);
	list_at(fx->dest, ".", list, sizeof(list));
	cr_assert_str_eq(list, "a f l x", "[%s] dest/ holds \"%s\"",
	    fx->rname, list);
	list_at(fx->dest, "x/y", list, sizeof(list));
	cr_assert_str_eq(list, "z", "[%s] x/y/ holds \"%s\"", fx->rname,
	    list);
}

/*
 * A chain (chain.c) removes a tree's directories, each after the ones
 * beneath it, from parents it holds: one opening a directory, where a
 * removal by name walks from the root, O(depth) each.  It removes only
 * the very directory it is told of, never through a link, and exists
 * only for a root the kernel confines.
 *
 *	dest/
 *	|-- b0/d/d/.../d/	4 branches of 40 levels: removed
 *	|-- s/			another than the one told of (s0/): kept
 *	`-- l -> ../elsewhere	elsewhere/sub/ is not removed through it
 */
ROOT_TEST(chain_removes_branches)
{
	enum { BRANCHES = 4, LEVELS = 40 };
	char rel[BRANCHES * LEVELS * 2 + 8];
	struct plat_chain *c;
	struct plat_id id;
	struct stat st;
	size_t len;
	int b, k, fd, removed = 0;

	cr_assert(plat_chain_new(&fx->root) == NULL, "[%s] a chain for a "
	    "root the kernel does not confine", fx->rname);
	for (b = 0; b < BRANCHES; b++) {
		len = (size_t)snprintf(rel, sizeof(rel), "b%d", b);
		for (k = 0; k < LEVELS; k++)
			len += (size_t)snprintf(rel + len, sizeof(rel) - len,
			    "/d");
		fd = pfx_root_mkdirs(&fx->root, rel, 0700);
		cr_assert(fd >= 0, "[%s] mkdirs: %d", fx->rname, fd);
		close(fd);
	}
	put_dir(fx->dest, "s", 0700);
	st = stat_at(fx->dest, "s");
	id.dev = st.st_dev;
	id.ino = st.st_ino;
	cr_assert(renameat(fx->dest, "s", fx->dest, "s0") == 0);
	put_dir(fx->dest, "s", 0700);
	put_dir(fx->elsewhere, "sub", 0700);
	put_link(fx->dest, "l", "../elsewhere");
	pfx_root_confined(&fx->root);
	c = plat_chain_new(&fx->root);
	cr_assert(c != NULL);
	/* Descending order, '/' lowest: each branch deepest first. */
	for (b = BRANCHES - 1; b >= 0; b--) {
		for (k = LEVELS; k >= 0; k--) {
			len = (size_t)snprintf(rel, sizeof(rel), "b%d", b);
			while (len < (size_t)k * 2 + 2)
				len += (size_t)snprintf(rel + len,
				    sizeof(rel) - len, "/d");
			ASSERT_RET(plat_chain_rmdir(c, rel, NULL), 0);
			removed++;
		}
	}
	for (b = 0; b < BRANCHES; b++) {
		snprintf(rel, sizeof(rel), "b%d", b);
		cr_assert(!exists_at(fx->dest, rel), "[%s] %s left",
		    fx->rname, rel);
	}
	cr_assert(plat_chain_steps(c) <= 2 * (uint64_t)removed, "[%s] %llu "
	    "directories opened to remove %d", fx->rname,
	    (unsigned long long)plat_chain_steps(c), removed);
	ASSERT_RET(plat_chain_rmdir(c, "s", &id), -ESTALE);
	cr_assert(exists_at(fx->dest, "s"), "[%s] s/ removed", fx->rname);
	ASSERT_RET(plat_chain_rmdir(c, "l/sub", NULL), -ELOOP);
	cr_assert(exists_at(fx->elsewhere, "sub"), "[%s] elsewhere/sub/ "
	    "removed through a link", fx->rname);
	plat_chain_free(c);
}

/*
 * A directory moved out of the root between begin and commit: the commit
 * notices, takes back what it made there and fails with -EXDEV.
 *
 *	dest/
 *	`-- a/			moved to elsewhere/a by the test
 */
PENDING_TEST(commit_in_moved_out_directory)
{
	static const unsigned int flags[] = { PFX_ROOT_REPLACE,
	    PFX_ROOT_NOREPLACE };
	struct pfx_pending pend;
	char list[64];
	size_t i;

	put_dir(fx->dest, "a", 0755);
	for (i = 0; i < NELEM(flags); i++) {
		ASSERT_RET(pfx_root_begin(&fx->root, "a/f", 0644, &pend), 0);
		write_all(pend.fd, "escaped?\n");
		cr_assert(renameat(fx->dest, "a", fx->elsewhere, "a") == 0,
		    "rename: %s", strerror(errno));
		ASSERT_RET(pfx_root_commit(&fx->root, &pend, flags[i]),
		    -EXDEV);
		list_at(fx->elsewhere, "a", list, sizeof(list));
		cr_assert_str_eq(list, "", "[%s] commit %#x left \"%s\" in "
		    "the moved directory", fx->rname, flags[i], list);
		cr_assert(renameat(fx->elsewhere, "a", fx->dest, "a") == 0,
		    "rename back: %s", strerror(errno));
	}

	/* Abort cleans up wherever the directory went. */
	ASSERT_RET(pfx_root_begin(&fx->root, "a/f", 0644, &pend), 0);
	cr_assert(renameat(fx->dest, "a", fx->elsewhere, "a") == 0,
	    "rename: %s", strerror(errno));
	pfx_root_abort(&pend);
	list_at(fx->elsewhere, "a", list, sizeof(list));
	cr_assert_str_eq(list, "", "[%s] abort left \"%s\"", fx->rname, list);
}

/* Descriptors a test may take at most to leave none free. */
#define FILLERS 256

/*
 * Take every free descriptor: RLIMIT_NOFILE is lowered to LIMIT (or left
 * where it is lower: *OLD keeps it) and /dev/null opened until EMFILE.
 * Return: how many FILL holds, for give_fds().
 */
static size_t
take_fds(int *fill, struct rlimit *old, rlim_t limit)
{
	struct rlimit low;
	size_t n = 0;

	cr_assert_eq(getrlimit(RLIMIT_NOFILE, old), 0);
	low = *old;
	if (low.rlim_cur > limit)
		low.rlim_cur = limit;
	cr_assert_eq(setrlimit(RLIMIT_NOFILE, &low), 0);
	while (n < FILLERS && (fill[n] = open("/dev/null",
	    O_RDONLY | O_CLOEXEC)) != -1)
		n++;
	cr_assert(n < FILLERS && errno == EMFILE, "took %zu: %s", n,
	    strerror(errno));
	return n;
}

/* Give back the N descriptors of FILL, and RLIMIT_NOFILE *OLD. */
static void
give_fds(int *fill, size_t n, const struct rlimit *old)
{
	while (n > 0)
		(void)close(fill[--n]);
	cr_assert_eq(setrlimit(RLIMIT_NOFILE, old), 0);
}

/*
 * The commit's check beneath the root, after the rename, when another
 * thread of the process holds every descriptor for a moment (the worker
 * of a library call commits while its caller's other threads hold
 * them): the check climbs without opening, so the file is committed,
 * not undone with EMFILE; and a directory moved out of the root is
 * still caught, the file taken back.
 *
 *	dest/
 *	`-- a/
 *	    `-- b/		f committed; moved out with a: g refused
 */
PENDING_TEST(commit_without_free_descriptors)
{
	static int fill[FILLERS];
	struct pfx_pending pend;
	struct rlimit old;
	char list[64];
	size_t n;
	int r;

	put_dir(fx->dest, "a", 0755);
	put_dir(fx->dest, "a/b", 0755);
	ASSERT_RET(pfx_root_begin(&fx->root, "a/b/f", 0644, &pend), 0);
	write_all(pend.fd, "committed\n");
	n = take_fds(fill, &old, 64);
	r = pfx_root_commit(&fx->root, &pend, PFX_ROOT_REPLACE);
	give_fds(fill, n, &old);
	ASSERT_RET(r, 0);
	expect_content(fx, fx->dest, "a/b/f", "committed\n");
	cr_assert(count_temps(fx->dest, "a/b") == 0, "[%s] temporary left",
	    fx->rname);

	ASSERT_RET(pfx_root_begin(&fx->root, "a/b/g", 0644, &pend), 0);
	write_all(pend.fd, "escaped?\n");
	cr_assert(renameat(fx->dest, "a", fx->elsewhere, "a") == 0,
	    "rename: %s", strerror(errno));
	n = take_fds(fill, &old, 64);
	r = pfx_root_commit(&fx->root, &pend, PFX_ROOT_NOREPLACE);
	give_fds(fill, n, &old);
	ASSERT_RET(r, -EXDEV);
	list_at(fx->elsewhere, "a/b", list, sizeof(list));
	cr_assert_str_eq(list, "f", "[%s] the commit left \"%s\" in the "
	    "moved directory", fx->rname, list);
	cr_assert(renameat(fx->elsewhere, "a", fx->dest, "a") == 0,
	    "rename back: %s", strerror(errno));
}

/*
 * Flags other than 0, PFX_ROOT_REPLACE and PFX_ROOT_NOREPLACE are refused
 * with -EINVAL; a refused commit still removes its temporary.
 *
 *	dest/
 *	|-- f			"f\n"
 *	`-- g			"g\n"
 */
PENDING_TEST(flags_invalid)
{
	static const unsigned int bad[] = {
		PFX_ROOT_REPLACE | PFX_ROOT_NOREPLACE, 0x4u, 0x80000000u,
		PFX_ROOT_REPLACE | 0x100u
	};
	struct pfx_pending pend;
	char list[64];
	size_t i;
	int fd;

	put_file(fx->dest, "f", "f\n", 0644);
	put_file(fx->dest, "g", "g\n", 0644);
	fd = ASSERT_FD(pfx_root_open_read(&fx->root, "f"));
	for (i = 0; i < NELEM(bad); i++) {
		ASSERT_RET(pfx_root_begin(&fx->root, "new", 0644, &pend), 0);
		write_all(pend.fd, "new\n");
		ASSERT_RET(pfx_root_commit(&fx->root, &pend, bad[i]), -EINVAL);
		ASSERT_RET(pfx_root_link(&fx->root, fd, "h", bad[i]), -EINVAL);
		ASSERT_RET(pfx_root_link(&fx->root, fd, "g", bad[i]), -EINVAL);
		ASSERT_RET(pfx_root_rename(&fx->root, "f", "h", bad[i]),
		    -EINVAL);
		ASSERT_RET(pfx_root_rename(&fx->root, "f", "g", bad[i]),
		    -EINVAL);
	}
	(void)close(fd);
	list_at(fx->dest, ".", list, sizeof(list));
	cr_assert_str_eq(list, "f g", "[%s] dest/ holds \"%s\"", fx->rname,
	    list);
	expect_content(fx, fx->dest, "f", "f\n");
	expect_content(fx, fx->dest, "g", "g\n");
}

/* --- pfx_root_link -------------------------------------------------- */

/*
 *	dest/
 *	|-- d/
 *	`-- f			"linked\n" (made by pfx_root_create)
 */
ROOT_TEST(link_new_names)
{
	struct stat st, fst;
	int fd;

	put_dir(fx->dest, "d", 0755);
	fd = ASSERT_FD(pfx_root_create(&fx->root, "f", 0644));
	write_all(fd, "linked\n");
	ASSERT_RET(pfx_root_link(&fx->root, fd, "g", 0), 0);
	cr_assert(fstat(fd, &fst) == 0, "fstat");
	st = stat_at(fx->dest, "g");
	cr_assert(S_ISREG(st.st_mode) && st.st_ino == fst.st_ino &&
	    st.st_nlink == 2, "[%s] g: ino %llu nlink %lu, want ino %llu "
	    "nlink 2", fx->rname, (unsigned long long)st.st_ino,
	    (unsigned long)st.st_nlink, (unsigned long long)fst.st_ino);
	ASSERT_RET(pfx_root_link(&fx->root, fd, "d/h", PFX_ROOT_NOREPLACE),
	    0);
	expect_same(fx, fd, fx->dest, "d/h");
	st = stat_at(fx->dest, "f");
	cr_assert(st.st_nlink == 3, "[%s] nlink %lu, want 3", fx->rname,
	    (unsigned long)st.st_nlink);
	expect_content(fx, fx->dest, "d/h", "linked\n");

	/* REPLACE where the name already is this inode: no temporary left. */
	ASSERT_RET(pfx_root_link(&fx->root, fd, "g", PFX_ROOT_REPLACE), 0);
	expect_same(fx, fd, fx->dest, "g");
	st = stat_at(fx->dest, "f");
	cr_assert(st.st_nlink == 3, "[%s] nlink %lu, want 3", fx->rname,
	    (unsigned long)st.st_nlink);
	cr_assert(count_temps(fx->dest, ".") == 0, "[%s] temporary left",
	    fx->rname);

	/* A descriptor from pfx_root_open_read() links as well. */
	(void)close(fd);
	fd = ASSERT_FD(pfx_root_open_read(&fx->root, "f"));
	ASSERT_RET(pfx_root_link(&fx->root, fd, "r", 0), 0);
	expect_same(fx, fd, fx->dest, "r");
	(void)close(fd);

	ASSERT_RET(pfx_root_link(&fx->root, fx->dest, "x", 0), -EINVAL);
}

ROOT_TEST(link_existing_name)
{
	struct stat before, after;
	char name[16];
	int fd, p;

	put_file(fx->dest, "spare", "spare\n", 0644);
	fd = ASSERT_FD(pfx_root_create(&fx->root, "f", 0644));
	write_all(fd, "new\n");
	for (p = 0; p < NPRIORS; p++) {
		(void)snprintf(name, sizeof(name), "p%d", p);
		plant(fx, (enum prior)p, name);
		before = stat_at(fx->dest, name);
		ASSERT_RET(pfx_root_link(&fx->root, fd, name, 0), -EEXIST);
		ASSERT_RET(pfx_root_link(&fx->root, fd, name,
		    PFX_ROOT_NOREPLACE), -EEXIST);
		after = stat_at(fx->dest, name);
		cr_assert(before.st_ino == after.st_ino &&
		    before.st_mode == after.st_mode,
		    "[%s] link without REPLACE changed %s", fx->rname,
		    prior_names[p]);
	}
	after = stat_at(fx->dest, "f");
	cr_assert(after.st_nlink == 1, "[%s] f nlink %lu", fx->rname,
	    (unsigned long)after.st_nlink);
	expect_content(fx, fx->dest, "p0", "old\n");
	cr_assert(unlinkat(fx->dest, "p1", 0) == 0, "unlink p1");
	expect_victim_intact(fx, "pfx_root_link");
	(void)close(fd);
}

ROOT_TEST(link_replace)
{
	struct stat st;
	char name[16];
	int fd, p;

	put_file(fx->dest, "spare", "spare\n", 0644);
	fd = ASSERT_FD(pfx_root_create(&fx->root, "f", 0644));
	write_all(fd, "new\n");
	for (p = 0; p < NPRIORS; p++) {
		(void)snprintf(name, sizeof(name), "p%d", p);
		plant(fx, (enum prior)p, name);
		if (p == PRIOR_DIR) {
			ASSERT_RET(pfx_root_link(&fx->root, fd, name,
			    PFX_ROOT_REPLACE), -EISDIR);
			st = stat_at(fx->dest, name);
			cr_assert(S_ISDIR(st.st_mode), "[%s] %s replaced",
			    fx->rname, prior_names[p]);
			continue;
		}
		ASSERT_RET(pfx_root_link(&fx->root, fd, name,
		    PFX_ROOT_REPLACE), 0);
		expect_same(fx, fd, fx->dest, name);
		expect_content(fx, fx->dest, name, "new\n");
		expect_victim_intact(fx, prior_names[p]);
	}
	/* f itself, and every prior but the directory. */
	st = stat_at(fx->dest, "f");
	cr_assert(st.st_nlink == 1 + (NPRIORS - 1), "[%s] f nlink %lu, "
	    "want %d", fx->rname, (unsigned long)st.st_nlink, NPRIORS);
	expect_content(fx, fx->dest, "spare", "spare\n");
	cr_assert(count_temps(fx->dest, ".") == 0, "[%s] temporary left",
	    fx->rname);
	(void)close(fd);
}

/*
 *	dest/
 *	|-- d/
 *	`-- gone		unlinked while held open
 */
ROOT_TEST(link_refused)
{
	int dfd, fd;

	put_dir(fx->dest, "d", 0755);
	dfd = ASSERT_FD(pfx_root_open_dir(&fx->root, "d"));
	ASSERT_RET(pfx_root_link(&fx->root, dfd, "x", 0), -EINVAL);
	ASSERT_RET(pfx_root_link(&fx->root, dfd, "x", PFX_ROOT_REPLACE),
	    -EINVAL);
	(void)close(dfd);

	fd = ASSERT_FD(pfx_root_create(&fx->root, "gone", 0644));
	ASSERT_RET(pfx_root_link(&fx->root, fd, "missing/x", 0), -ENOENT);
	cr_assert(unlinkat(fx->dest, "gone", 0) == 0, "unlink");
	ASSERT_RET(pfx_root_link(&fx->root, fd, "back", 0), -ENOENT);
	ASSERT_RET(pfx_root_link(&fx->root, fd, "back", PFX_ROOT_REPLACE),
	    -ENOENT);
	(void)close(fd);
	cr_assert(!exists_at(fx->dest, "x") && !exists_at(fx->dest, "back"),
	    "[%s] a link was made", fx->rname);
	cr_assert(count_temps(fx->dest, ".") == 0, "[%s] temporary left",
	    fx->rname);
}

ROOT_TEST(link_other_filesystem)
{
	static const unsigned int flags[] = { 0, PFX_ROOT_NOREPLACE,
	    PFX_ROOT_REPLACE };
	struct stat st, dst;
	size_t i;
	int fd;

	(void)snprintf(fx->shm, sizeof(fx->shm),
	    "/dev/shm/pfx-platform.XXXXXX");
	fd = mkostemp(fx->shm, O_CLOEXEC);
	if (fd == -1) {
		fx->shm[0] = '\0';
		fx_skip("no /dev/shm: %s", strerror(errno));
	}
	cr_assert(fstat(fd, &st) == 0 && fstat(fx->dest, &dst) == 0, "fstat");
	if (st.st_dev == dst.st_dev) {
		(void)close(fd);
		fx_skip("/dev/shm is on the same filesystem as /tmp");
	}
	for (i = 0; i < NELEM(flags); i++)
		ASSERT_RET(pfx_root_link(&fx->root, fd, "x", flags[i]),
		    -EXDEV);
	cr_assert(!exists_at(fx->dest, "x"), "[%s] x was made", fx->rname);
	cr_assert(count_temps(fx->dest, ".") == 0, "[%s] temporary left",
	    fx->rname);
	(void)close(fd);
	(void)unlink(fx->shm);
	fx->shm[0] = '\0';
}

/* --- pfx_root_open_read --------------------------------------------- */

/*
 *	dest/
 *	|-- d/
 *	|   `-- g		"g\n"
 *	`-- f			"content\n"
 */
ROOT_TEST(open_read_file)
{
	int fd;

	put_dir(fx->dest, "d", 0755);
	put_file(fx->dest, "d/g", "g\n", 0400);
	put_file(fx->dest, "f", "content\n", 0644);
	fd = ASSERT_FD(pfx_root_open_read(&fx->root, "f"));
	expect_flags(fx, fd, O_RDONLY, "pfx_root_open_read");
	expect_same(fx, fd, fx->dest, "f");
	expect_fd_content(fx, fd, "content\n", "f");
	(void)close(fd);
	fd = ASSERT_FD(pfx_root_open_read(&fx->root, "d/g"));
	expect_flags(fx, fd, O_RDONLY, "pfx_root_open_read");
	expect_fd_content(fx, fd, "g\n", "d/g");
	(void)close(fd);
}

/*
 *	dest/
 *	|-- d/
 *	|-- f			"f\n"
 *	|-- fifo		(FIFO, no writer: opening it would block)
 *	|-- li -> f
 *	|-- lo -> ../outside/secret
 *	|-- null		(character device 1,3, when root may make it)
 *	`-- sock		(socket)
 */
ROOT_TEST(open_read_refused)
{
	static const struct {
		const char *rel;
		int want;
	} rows[] = {
		{ "lo", -ELOOP },
		{ "li", -ELOOP },
		{ "d", -EISDIR },
		{ "", -EISDIR },
		{ ".", -EISDIR },
		{ "fifo", -EINVAL },
		{ "sock", -EINVAL },
		{ "null", -EINVAL },
		{ "missing", -ENOENT },
		{ "f/x", -ENOTDIR },
	};
	struct sockaddr_un sa;
	size_t i;
	int s, r;

	put_dir(fx->dest, "d", 0755);
	put_file(fx->dest, "f", "f\n", 0644);
	cr_assert(mkfifoat(fx->dest, "fifo", 0644) == 0, "mkfifo: %s",
	    strerror(errno));
	put_link(fx->dest, "li", "f");
	put_link(fx->dest, "lo", "../outside/secret");
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	(void)snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/dest/sock",
	    fx->path);
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	cr_assert(s >= 0 && bind(s, (struct sockaddr *)&sa, sizeof(sa)) == 0,
	    "socket: %s", strerror(errno));
	(void)close(s);
	if (mknodat(fx->dest, "null", S_IFCHR | 0666, makedev(1, 3)) == -1)
		put_file(fx->dest, "null", "", 0644);	/* unprivileged */

	for (i = 0; i < NELEM(rows); i++) {
		if (strcmp(rows[i].rel, "null") == 0 &&
		    S_ISREG(stat_at(fx->dest, "null").st_mode))
			continue;
		r = pfx_root_open_read(&fx->root, rows[i].rel);
		if (r >= 0)
			(void)close(r);
		cr_assert(r == rows[i].want, "[%s] pfx_root_open_read(\"%s\"): "
		    "got %d (%s), want %s", fx->rname, rows[i].rel, r,
		    errname(r), errname(rows[i].want));
		/* O_PATH opens a symlink itself: still refused. */
		r = pfx_root_open_file(&fx->root, rows[i].rel);
		if (r >= 0)
			(void)close(r);
		cr_assert(r == rows[i].want, "[%s] pfx_root_open_file(\"%s\"): "
		    "got %d (%s), want %s", fx->rname, rows[i].rel, r,
		    errname(r), errname(rows[i].want));
	}
}

/*
 * pfx_root_open_file() opens a file no one may read (mode 0000) without
 * reading it, O_PATH, and what it opens links as pfx_root_open_read()'s
 * descriptor does.
 *
 *	dest/
 *	`-- f			"f\n", mode 0000
 */
ROOT_TEST(open_file_unreadable)
{
	int fd;

	put_file(fx->dest, "f", "f\n", 0000);
	fd = ASSERT_FD(pfx_root_open_file(&fx->root, "f"));
	cr_assert((fcntl(fd, F_GETFL) & O_PATH) != 0, "[%s] not O_PATH",
	    fx->rname);
	expect_same(fx, fd, fx->dest, "f");
	ASSERT_RET(pfx_root_link(&fx->root, fd, "g", 0), 0);
	expect_same(fx, fd, fx->dest, "g");
	(void)close(fd);
}

/* --- pfx_root_open_dir ---------------------------------------------- */

/*
 *	dest/
 *	|-- d1/
 *	|   `-- inner		"i\n"
 *	|-- f1			"f\n"
 *	|-- fifo		(FIFO)
 *	|-- l1 -> d1
 *	`-- lo -> ../outside/sdir
 */
ROOT_TEST(open_dir)
{
	static const struct {
		const char *rel;
		int want;
	} rows[] = {
		{ "l1", -ELOOP },
		{ "lo", -ELOOP },
		{ "lo/", -ELOOP },
		{ "f1", -ENOTDIR },
		{ "fifo", -ENOTDIR },
		{ "missing", -ENOENT },
		{ "d1/inner", -ENOTDIR },
		{ "..", -EXDEV },
	};
	char list[128];
	size_t i;
	int fd, r;

	put_dir(fx->dest, "d1", 0755);
	put_file(fx->dest, "d1/inner", "i\n", 0644);
	put_file(fx->dest, "f1", "f\n", 0644);
	cr_assert(mkfifoat(fx->dest, "fifo", 0644) == 0, "mkfifo: %s",
	    strerror(errno));
	put_link(fx->dest, "l1", "d1");
	put_link(fx->dest, "lo", "../outside/sdir");

	fd = ASSERT_FD(pfx_root_open_dir(&fx->root, ""));
	expect_flags(fx, fd, O_RDONLY, "pfx_root_open_dir");
	expect_same(fx, fd, fx->top, "dest");
	list_fd(fd, list, sizeof(list));
	cr_assert_str_eq(list, "d1 f1 fifo l1 lo");
	fd = ASSERT_FD(pfx_root_open_dir(&fx->root, "."));
	expect_same(fx, fd, fx->top, "dest");
	(void)close(fd);
	fd = ASSERT_FD(pfx_root_open_dir(&fx->root, "d1"));
	expect_flags(fx, fd, O_RDONLY, "pfx_root_open_dir");
	expect_same(fx, fd, fx->dest, "d1");
	list_fd(fd, list, sizeof(list));
	cr_assert_str_eq(list, "inner");

	for (i = 0; i < NELEM(rows); i++) {
		r = pfx_root_open_dir(&fx->root, rows[i].rel);
		if (r >= 0)
			(void)close(r);
		cr_assert(r == rows[i].want, "[%s] pfx_root_open_dir(\"%s\"): "
		    "got %d (%s), want %s", fx->rname, rows[i].rel, r,
		    errname(r), errname(rows[i].want));
	}
}

/* --- pfx_root_sub --------------------------------------------------- */

/*
 *	dest/
 *	|-- a/
 *	|   `-- b/		the sub-root
 *	|       |-- l -> ../../../outside
 *	|       `-- spare	"spare\n"
 *	|-- file		"file\n"
 *	`-- lnk -> a
 */
ROOT_TEST(sub_root)
{
	static const char *const escapes[] = { "..", "../..", "../b/x",
	    "../../outside", "/x" };
	static const char *const loops[] = { "l/x", "l/secret",
	    "l/sdir/inner" };
	struct pfx_root sub, sub2, bad;
	int bfd, fd, fl;

	put_dir(fx->dest, "a", 0755);
	put_dir(fx->dest, "a/b", 0755);
	put_link(fx->dest, "a/b/l", "../../../outside");
	put_file(fx->dest, "a/b/spare", "spare\n", 0644);
	put_file(fx->dest, "file", "file\n", 0644);
	put_link(fx->dest, "lnk", "a");

	ASSERT_RET(pfx_root_sub(&fx->root, "a/b", &sub), 0);
	cr_assert_str_eq(pfx_root_resolver_name(&sub), fx->rname);
	/* White box: the fd is private; only its flags are read. */
	fl = fcntl(sub.fd, F_GETFD);
	cr_assert(fl != -1 && (fl & FD_CLOEXEC) != 0,
	    "[%s] the sub-root fd lacks FD_CLOEXEC", fx->rname);
	fd = ASSERT_FD(pfx_root_open_dir(&sub, ""));
	expect_same(fx, fd, fx->dest, "a/b");
	(void)close(fd);

	bfd = open_fixture_dir(fx->dest, "a/b");
	expect_all_ops(fx, &sub, bfd, escapes, NELEM(escapes), -EXDEV);
	expect_all_ops(fx, &sub, bfd, loops, NELEM(loops), -ELOOP);
	(void)close(bfd);
	cr_assert(!exists_at(fx->dest, "a/x") && !exists_at(fx->dest, "x"),
	    "[%s] something was made above the sub-root", fx->rname);

	fd = ASSERT_FD(pfx_root_create(&sub, "f", 0644));
	write_all(fd, "in sub\n");
	(void)close(fd);
	expect_content(fx, fx->dest, "a/b/f", "in sub\n");

	/* A sub-root of the sub-root. */
	fd = ASSERT_FD(pfx_root_mkdirs(&sub, "c", 0755));
	(void)close(fd);
	ASSERT_RET(pfx_root_sub(&sub, "c", &sub2), 0);
	cr_assert_str_eq(pfx_root_resolver_name(&sub2), fx->rname);
	fd = ASSERT_FD(pfx_root_create(&sub2, "g", 0644));
	(void)close(fd);
	cr_assert(exists_at(fx->dest, "a/b/c/g"), "[%s] a/b/c/g missing",
	    fx->rname);
	ASSERT_RET(pfx_root_open_dir(&sub2, ".."), -EXDEV);
	pfx_root_close(&sub2);
	pfx_root_close(&sub2);
	pfx_root_close(&sub);
	pfx_root_close(&sub);

	ASSERT_RET(pfx_root_sub(&fx->root, "lnk", &bad), -ELOOP);
	ASSERT_RET(pfx_root_sub(&fx->root, "lnk/b", &bad), -ELOOP);
	ASSERT_RET(pfx_root_sub(&fx->root, "a/b/l", &bad), -ELOOP);
	ASSERT_RET(pfx_root_sub(&fx->root, "file", &bad), -ENOTDIR);
	ASSERT_RET(pfx_root_sub(&fx->root, "missing", &bad), -ENOENT);
	ASSERT_RET(pfx_root_sub(&fx->root, "..", &bad), -EXDEV);
}

/* --- pfx_root_unlink, pfx_root_rmdir, pfx_root_rename ----------------- */

/*
 *	dest/
 *	|-- d/
 *	|-- f			"f\n"
 *	|-- h			hard link to outside/victim
 *	|-- ld -> ../outside/sdir
 *	`-- lf -> ../outside/secret
 */
ROOT_TEST(unlink_names)
{
	cr_assert(linkat(fx->out, "victim", fx->dest, "h", 0) == 0, "link");
	put_dir(fx->dest, "d", 0755);
	put_file(fx->dest, "f", "f\n", 0644);
	put_link(fx->dest, "ld", "../outside/sdir");
	put_link(fx->dest, "lf", "../outside/secret");

	ASSERT_RET(pfx_root_unlink(&fx->root, "lf"), 0);
	cr_assert(!exists_at(fx->dest, "lf"), "[%s] lf still there",
	    fx->rname);
	expect_content(fx, fx->out, "secret", SECRET);
	ASSERT_RET(pfx_root_unlink(&fx->root, "ld"), 0);
	cr_assert(!exists_at(fx->dest, "ld") &&
	    exists_at(fx->out, "sdir/inner"), "[%s] unlink ld", fx->rname);
	ASSERT_RET(pfx_root_unlink(&fx->root, "h"), 0);
	expect_victim_intact(fx, "pfx_root_unlink");
	ASSERT_RET(pfx_root_unlink(&fx->root, "f"), 0);
	cr_assert(!exists_at(fx->dest, "f"), "[%s] f still there", fx->rname);

	ASSERT_RET(pfx_root_unlink(&fx->root, "d"), -EISDIR);
	ASSERT_RET(pfx_root_unlink(&fx->root, "missing"), -ENOENT);
	ASSERT_RET(pfx_root_unlink(&fx->root, ""), -EBUSY);
	ASSERT_RET(pfx_root_unlink(&fx->root, "."), -EBUSY);
	cr_assert(exists_at(fx->dest, "d"), "[%s] d removed", fx->rname);
}

/*
 *	dest/
 *	|-- e/
 *	|-- f			"f\n"
 *	|-- full/
 *	|   `-- x		"x\n"
 *	`-- ld -> e
 */
ROOT_TEST(rmdir_dirs)
{
	put_dir(fx->dest, "e", 0755);
	put_file(fx->dest, "f", "f\n", 0644);
	put_dir(fx->dest, "full", 0755);
	put_file(fx->dest, "full/x", "x\n", 0644);
	put_link(fx->dest, "ld", "e");

	ASSERT_RET(pfx_root_rmdir(&fx->root, "full"), -ENOTEMPTY);
	ASSERT_RET(pfx_root_rmdir(&fx->root, "f"), -ENOTDIR);
	ASSERT_RET(pfx_root_rmdir(&fx->root, "ld"), -ENOTDIR);
	ASSERT_RET(pfx_root_rmdir(&fx->root, "missing"), -ENOENT);
	ASSERT_RET(pfx_root_rmdir(&fx->root, ""), -EBUSY);
	ASSERT_RET(pfx_root_rmdir(&fx->root, "."), -EBUSY);
	cr_assert(exists_at(fx->dest, "ld") && exists_at(fx->dest, "e") &&
	    exists_at(fx->dest, "full/x") && exists_at(fx->dest, "f"),
	    "[%s] a refused rmdir removed something", fx->rname);
	ASSERT_RET(pfx_root_rmdir(&fx->root, "e"), 0);
	cr_assert(!exists_at(fx->dest, "e"), "[%s] e still there", fx->rname);
	ASSERT_RET(pfx_root_rmdir(&fx->root, "full/"), -ENOTEMPTY);
}

/*
 *	dest/
 *	|-- a/
 *	|-- b/
 *	|-- f			"f\n"
 *	|-- g			"g\n"
 *	`-- lo -> ../outside/victim
 */
ROOT_TEST(rename_names)
{
	char target[64];
	ssize_t n;

	put_dir(fx->dest, "a", 0755);
	put_dir(fx->dest, "b", 0755);
	put_file(fx->dest, "f", "f\n", 0644);
	put_file(fx->dest, "g", "g\n", 0644);
	put_link(fx->dest, "lo", "../outside/victim");

	ASSERT_RET(pfx_root_rename(&fx->root, "f", "a/f2", 0), 0);
	cr_assert(!exists_at(fx->dest, "f"), "[%s] f still there", fx->rname);
	expect_content(fx, fx->dest, "a/f2", "f\n");
	ASSERT_RET(pfx_root_rename(&fx->root, "a/f2", "b/f3",
	    PFX_ROOT_NOREPLACE), 0);
	expect_content(fx, fx->dest, "b/f3", "f\n");

	/* 0 or NOREPLACE onto an existing name: both left as they were. */
	ASSERT_RET(pfx_root_rename(&fx->root, "b/f3", "g", 0), -EEXIST);
	ASSERT_RET(pfx_root_rename(&fx->root, "b/f3", "g",
	    PFX_ROOT_NOREPLACE), -EEXIST);
	expect_content(fx, fx->dest, "b/f3", "f\n");
	expect_content(fx, fx->dest, "g", "g\n");
	ASSERT_RET(pfx_root_rename(&fx->root, "g", "lo", PFX_ROOT_NOREPLACE),
	    -EEXIST);
	cr_assert(S_ISLNK(stat_at(fx->dest, "lo").st_mode), "[%s] lo",
	    fx->rname);

	/* REPLACE replaces. */
	ASSERT_RET(pfx_root_rename(&fx->root, "b/f3", "g", PFX_ROOT_REPLACE),
	    0);
	expect_content(fx, fx->dest, "g", "f\n");

	/* A symlink moves as itself; its target is not touched. */
	ASSERT_RET(pfx_root_rename(&fx->root, "lo", "a/lo2", 0), 0);
	n = readlinkat(fx->dest, "a/lo2", target, sizeof(target) - 1);
	cr_assert(n > 0, "[%s] a/lo2 is not a symlink", fx->rname);
	target[n] = '\0';
	cr_assert_str_eq(target, "../outside/victim");

	/* Replacing a symlink to outside replaces the link only. */
	ASSERT_RET(pfx_root_rename(&fx->root, "g", "a/lo2", PFX_ROOT_REPLACE),
	    0);
	cr_assert(S_ISREG(stat_at(fx->dest, "a/lo2").st_mode),
	    "[%s] a/lo2", fx->rname);
	expect_victim_intact(fx, "pfx_root_rename");

	ASSERT_RET(pfx_root_rename(&fx->root, "", "x", 0), -EBUSY);
	ASSERT_RET(pfx_root_rename(&fx->root, "a", "", 0), -EBUSY);
	ASSERT_RET(pfx_root_rename(&fx->root, "missing", "x", 0), -ENOENT);
	ASSERT_RET(pfx_root_rename(&fx->root, "a/lo2", "nodir/x", 0),
	    -ENOENT);
	cr_assert(exists_at(fx->dest, "a/lo2"), "[%s] a/lo2 moved",
	    fx->rname);
}

/* --- pfx_fd_chmod, pfx_fd_set_times --------------------------------- */

/* Assert the permission bits (07777) and file type of DIRFD/NAME. */
static void
expect_mode(const struct fx *fx, int dirfd, const char *name, mode_t type,
    mode_t perm)
{
	struct stat st;

	st = stat_at(dirfd, name);
	cr_assert((st.st_mode & S_IFMT) == type &&
	    (st.st_mode & 07777) == perm, "[%s] %s: mode %06o, want %06o",
	    fx->rname, name, (unsigned int)st.st_mode,
	    (unsigned int)(type | perm));
}

/* Assert the atime and mtime of DIRFD/NAME. */
static void
expect_times(const struct fx *fx, int dirfd, const char *name,
    const struct timespec *atime, const struct timespec *mtime)
{
	struct stat st;

	st = stat_at(dirfd, name);
	cr_assert(st.st_atim.tv_sec == atime->tv_sec &&
	    st.st_atim.tv_nsec == atime->tv_nsec,
	    "[%s] %s: atime %lld.%09ld, want %lld.%09ld", fx->rname, name,
	    (long long)st.st_atim.tv_sec, st.st_atim.tv_nsec,
	    (long long)atime->tv_sec, atime->tv_nsec);
	cr_assert(st.st_mtim.tv_sec == mtime->tv_sec &&
	    st.st_mtim.tv_nsec == mtime->tv_nsec,
	    "[%s] %s: mtime %lld.%09ld, want %lld.%09ld", fx->rname, name,
	    (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
	    (long long)mtime->tv_sec, mtime->tv_nsec);
}

ROOT_TEST(fd_chmod_and_times)
{
	static const struct timespec t1[2] = {
		{ 1000000001, 111 }, { 1234567890, 987654321 }
	};
	static const struct timespec t2[2] = {
		{ 1100000000, 5 }, { 0, UTIME_OMIT }
	};
	int fd, dfd, rfd;

	put_dir(fx->dest, "d", 0755);
	fd = ASSERT_FD(pfx_root_create(&fx->root, "f", 0600));
	ASSERT_RET(pfx_fd_chmod(fd, 0640), 0);
	expect_mode(fx, fx->dest, "f", S_IFREG, 0640);
	ASSERT_RET(pfx_fd_chmod(fd, 04755), 0);
	expect_mode(fx, fx->dest, "f", S_IFREG, 04755);
	/* Bits above 07777 are masked off: the file stays a regular file. */
	ASSERT_RET(pfx_fd_chmod(fd, S_IFDIR | 0751), 0);
	expect_mode(fx, fx->dest, "f", S_IFREG, 0751);
	ASSERT_RET(pfx_fd_chmod(fd, 0170644), 0);
	expect_mode(fx, fx->dest, "f", S_IFREG, 0644);

	ASSERT_RET(pfx_fd_set_times(fd, t1), 0);
	expect_times(fx, fx->dest, "f", &t1[0], &t1[1]);
	ASSERT_RET(pfx_fd_set_times(fd, t2), 0);
	expect_times(fx, fx->dest, "f", &t2[0], &t1[1]);
	(void)close(fd);

	/* Through a directory descriptor of pfx_root_open_dir(). */
	dfd = ASSERT_FD(pfx_root_open_dir(&fx->root, "d"));
	ASSERT_RET(pfx_fd_chmod(dfd, 0711), 0);
	expect_mode(fx, fx->dest, "d", S_IFDIR, 0711);
	ASSERT_RET(pfx_fd_set_times(dfd, t1), 0);
	expect_times(fx, fx->dest, "d", &t1[0], &t1[1]);
	(void)close(dfd);

	/* Through a read-only descriptor of pfx_root_open_read(). */
	rfd = ASSERT_FD(pfx_root_open_read(&fx->root, "f"));
	ASSERT_RET(pfx_fd_chmod(rfd, 0444), 0);
	expect_mode(fx, fx->dest, "f", S_IFREG, 0444);
	(void)close(rfd);

	ASSERT_RET(pfx_fd_chmod(-1, 0644), -EBADF);
	ASSERT_RET(pfx_fd_set_times(-1, t1), -EBADF);
}

/* --- pfx_fd_chown, pfx_fd_setxattr ---------------------------------- */

/* Skip the running test unless it runs as root. */
static void
need_root(const char *what)
{
	if (geteuid() != 0)
		fx_skip("%s needs root", what);
}

/* Assert the owner and group of DIRFD/NAME (not followed). */
static void
expect_owner(const struct fx *fx, int dirfd, const char *name, uid_t uid,
    gid_t gid)
{
	struct stat st;

	st = stat_at(dirfd, name);
	cr_assert(st.st_uid == uid && st.st_gid == gid, "[%s] %s: owner "
	    "%u:%u, want %u:%u", fx->rname, name, (unsigned int)st.st_uid,
	    (unsigned int)st.st_gid, (unsigned int)uid, (unsigned int)gid);
}

/*
 *	dest/
 *	|-- d/
 *	`-- f			(made by pfx_root_create)
 */
ROOT_TEST(fd_chown)
{
	int fd, dfd, rfd;

	need_root("chown");
	put_dir(fx->dest, "d", 0755);
	fd = ASSERT_FD(pfx_root_create(&fx->root, "f", 0644));
	expect_owner(fx, fx->dest, "f", 0, 0);
	ASSERT_RET(pfx_fd_chown(fd, 1234, 1234), 0);
	expect_owner(fx, fx->dest, "f", 1234, 1234);
	/* -1 leaves that half alone. */
	ASSERT_RET(pfx_fd_chown(fd, (uid_t)-1, 4321), 0);
	expect_owner(fx, fx->dest, "f", 1234, 4321);
	ASSERT_RET(pfx_fd_chown(fd, 1235, (gid_t)-1), 0);
	expect_owner(fx, fx->dest, "f", 1235, 4321);
	ASSERT_RET(pfx_fd_chown(fd, (uid_t)-1, (gid_t)-1), 0);
	expect_owner(fx, fx->dest, "f", 1235, 4321);
	(void)close(fd);

	/* Through a read-only descriptor and a directory descriptor. */
	rfd = ASSERT_FD(pfx_root_open_read(&fx->root, "f"));
	ASSERT_RET(pfx_fd_chown(rfd, 0, 0), 0);
	expect_owner(fx, fx->dest, "f", 0, 0);
	(void)close(rfd);
	dfd = ASSERT_FD(pfx_root_open_dir(&fx->root, "d"));
	ASSERT_RET(pfx_fd_chown(dfd, 1234, 1234), 0);
	expect_owner(fx, fx->dest, "d", 1234, 1234);
	(void)close(dfd);

	ASSERT_RET(pfx_fd_chown(-1, 1234, 1234), -EBADF);
}

/* Assert that the attribute NAME of FD holds exactly VALUE (SIZE bytes). */
static void
expect_xattr(const struct fx *fx, int fd, const char *name,
    const void *value, size_t size)
{
	char buf[256];
	ssize_t n;

	n = fgetxattr(fd, name, buf, sizeof(buf));
	cr_assert(n >= 0, "[%s] fgetxattr %s: %s", fx->rname, name,
	    strerror(errno));
	cr_assert((size_t)n == size && memcmp(buf, value, size) == 0,
	    "[%s] %s: %zd bytes \"%.*s\", want %zu bytes", fx->rname, name, n,
	    (int)n, buf, size);
}

/*
 *	dest/
 *	|-- d/
 *	`-- f			(made by pfx_root_create)
 */
ROOT_TEST(fd_setxattr)
{
	static const char binary[] = { 'a', '\0', 'b', '\377', '\n' };
	int fd, dfd, rfd, r;

	put_dir(fx->dest, "d", 0755);
	fd = ASSERT_FD(pfx_root_create(&fx->root, "f", 0644));
	r = pfx_fd_setxattr(fd, "user.test", "value", 5);
	if (r == -ENOTSUP) {
		(void)close(fd);
		fx_skip("no user xattrs on this filesystem");
	}
	expect_ret(fx, __LINE__, "pfx_fd_setxattr(user.test)", r, 0);
	expect_xattr(fx, fd, "user.test", "value", 5);

	/* Set again: replaced, any bytes, any size, empty too. */
	ASSERT_RET(pfx_fd_setxattr(fd, "user.test", binary, sizeof(binary)),
	    0);
	expect_xattr(fx, fd, "user.test", binary, sizeof(binary));
	ASSERT_RET(pfx_fd_setxattr(fd, "user.test", "", 0), 0);
	expect_xattr(fx, fd, "user.test", "", 0);
	ASSERT_RET(pfx_fd_setxattr(fd, "user.other", "2", 1), 0);
	expect_xattr(fx, fd, "user.other", "2", 1);
	(void)close(fd);

	/* Through a read-only descriptor and a directory descriptor. */
	rfd = ASSERT_FD(pfx_root_open_read(&fx->root, "f"));
	expect_xattr(fx, rfd, "user.test", "", 0);
	ASSERT_RET(pfx_fd_setxattr(rfd, "user.test", "ro", 2), 0);
	expect_xattr(fx, rfd, "user.test", "ro", 2);
	(void)close(rfd);
	dfd = ASSERT_FD(pfx_root_open_dir(&fx->root, "d"));
	ASSERT_RET(pfx_fd_setxattr(dfd, "user.test", "dir", 3), 0);
	expect_xattr(fx, dfd, "user.test", "dir", 3);
	(void)close(dfd);

	ASSERT_RET(pfx_fd_setxattr(-1, "user.test", "x", 1), -EBADF);
}

/* --- pfx_root_symlink ----------------------------------------------- */

/* Assert that DIRFD/NAME is a symlink whose target is exactly WANT. */
static void
expect_link(const struct fx *fx, int dirfd, const char *name,
    const char *want)
{
	char target[PATH_MAX];
	struct stat st;
	ssize_t n;

	st = stat_at(dirfd, name);
	cr_assert(S_ISLNK(st.st_mode), "[%s] %s is not a symlink (mode %06o)",
	    fx->rname, name, (unsigned int)st.st_mode);
	n = readlinkat(dirfd, name, target, sizeof(target));
	cr_assert(n >= 0 && (size_t)n < sizeof(target), "[%s] readlink %s: "
	    "%s", fx->rname, name, strerror(errno));
	cr_assert((size_t)n == strlen(want) && memcmp(target, want,
	    (size_t)n) == 0, "[%s] %s -> \"%.*s\", want \"%s\"", fx->rname,
	    name, (int)n, target, want);
}

/*
 *	dest/
 *	|-- d/			the test's links go here and in dest/
 *	`-- f			"f\n"
 */
ROOT_TEST(symlink_new)
{
	static const struct {
		const char *rel;	/* as passed */
		const char *name;	/* as made */
		const char *target;
	} rows[] = {
		{ "up", "up", "../../outside/x" },
		{ "d/up", "d/up", "../outside/secret" },
		{ "d/updir", "d/updir", "../../outside/sdir" },
		{ "dang", "dang", "nothere" },
		{ "in", "in", "f" },
		{ "d/in", "d/in", "../f" },
		{ "dot", "dot", "." },
		{ "dotdot", "dotdot", ".." },
		{ "odd", "odd", "a//b/./c/" },
		{ "bytes", "bytes", "\001\377 \t\n*?" },
		{ "./d//dots/", "d/dots", "..." },
	};
	char abs[PATH_MAX];
	char *long_target;
	size_t i;

	put_dir(fx->dest, "d", 0755);
	put_file(fx->dest, "f", "f\n", 0644);
	for (i = 0; i < NELEM(rows); i++) {
		ASSERT_RET(pfx_root_symlink(&fx->root, rows[i].target,
		    rows[i].rel), 0);
		expect_link(fx, fx->dest, rows[i].name, rows[i].target);
	}

	/* Never resolved: nothing appeared where "up" points. */
	cr_assert(!exists_at(fx->out, "x"), "[%s] outside/x exists",
	    fx->rname);
	cr_assert(!exists_at(fx->top, "x"), "[%s] top/x exists", fx->rname);
	expect_content(fx, fx->dest, "f", "f\n");

	/* An absolute target is stored as is. */
	(void)snprintf(abs, sizeof(abs), "%s/outside/victim", fx->path);
	ASSERT_RET(pfx_root_symlink(&fx->root, abs, "abs"), 0);
	expect_link(fx, fx->dest, "abs", abs);

	/* A long target, byte for byte. */
	long_target = malloc(PATH_MAX - 1);
	cr_assert(long_target != NULL, "malloc");
	for (i = 0; i < PATH_MAX - 2; i++)
		long_target[i] = i % 64 == 63 ? '/' : (char)('a' + i % 26);
	long_target[PATH_MAX - 2] = '\0';
	ASSERT_RET(pfx_root_symlink(&fx->root, long_target, "long"), 0);
	expect_link(fx, fx->dest, "long", long_target);
	free(long_target);
}

/*
 * An existing name of any kind is left alone.
 *
 *	dest/
 *	|-- p0 ... p8		one of each prior
 *	`-- spare		"spare\n"
 */
ROOT_TEST(symlink_existing_name)
{
	char name[16], target[PATH_MAX], list[64];
	struct stat before, after;
	ssize_t n1, n2;
	int p;

	put_file(fx->dest, "spare", "spare\n", 0644);
	for (p = 0; p < NPRIORS; p++) {
		(void)snprintf(name, sizeof(name), "p%d", p);
		plant(fx, (enum prior)p, name);
		before = stat_at(fx->dest, name);
		n1 = readlinkat(fx->dest, name, target, sizeof(target));
		ASSERT_RET(pfx_root_symlink(&fx->root, "new", name), -EEXIST);
		ASSERT_RET(pfx_root_symlink(&fx->root, "../outside/victim",
		    name), -EEXIST);
		after = stat_at(fx->dest, name);
		cr_assert(before.st_ino == after.st_ino &&
		    before.st_mode == after.st_mode &&
		    before.st_size == after.st_size,
		    "[%s] symlink over %s changed it", fx->rname,
		    prior_names[p]);
		n2 = readlinkat(fx->dest, name, target, sizeof(target));
		cr_assert(n1 == n2, "[%s] symlink over %s changed its target",
		    fx->rname, prior_names[p]);
	}
	expect_content(fx, fx->dest, "p0", "old\n");
	expect_link(fx, fx->dest, "p2", "../outside/victim");
	expect_link(fx, fx->dest, "p5", "../outside/created");
	expect_link(fx, fx->dest, "p6", "spare");
	expect_content(fx, fx->dest, "spare", "spare\n");
	list_at(fx->dest, "p8", list, sizeof(list));
	cr_assert_str_eq(list, "");
	cr_assert(unlinkat(fx->dest, "p1", 0) == 0, "unlink p1");
	expect_victim_intact(fx, "pfx_root_symlink");

	/* The root itself exists. */
	ASSERT_RET(pfx_root_symlink(&fx->root, "x", ""), -EEXIST);
	ASSERT_RET(pfx_root_symlink(&fx->root, "x", "."), -EEXIST);
}

/*
 *	dest/
 *	|-- d/
 *	|-- f			"f\n"
 *	|-- in -> d
 *	`-- lo -> ../outside/sdir
 */
ROOT_TEST(symlink_refused)
{
	static const struct {
		const char *rel;
		int want;
	} rows[] = {
		{ "missing/l", -ENOENT },
		{ "m1/m2/l", -ENOENT },
		{ "f/l", -ENOTDIR },
		{ "in/l", -ELOOP },
		{ "lo/l", -ELOOP },
		{ "lo/inner", -ELOOP },
		{ "..", -EXDEV },
		{ "../l", -EXDEV },
		{ "../outside/l", -EXDEV },
		{ "d/../l", -EXDEV },
		{ "d/../../outside/l", -EXDEV },
		{ "/l", -EXDEV },
		{ "/tmp/l", -EXDEV },
	};
	char abs[PATH_MAX], list[64];
	size_t i;
	int r;

	put_dir(fx->dest, "d", 0755);
	put_file(fx->dest, "f", "f\n", 0644);
	put_link(fx->dest, "in", "d");
	put_link(fx->dest, "lo", "../outside/sdir");
	for (i = 0; i < NELEM(rows); i++) {
		r = pfx_root_symlink(&fx->root, "target", rows[i].rel);
		cr_assert(r == rows[i].want, "[%s] pfx_root_symlink(\"%s\"): "
		    "got %d (%s), want %s", fx->rname, rows[i].rel, r,
		    errname(r), errname(rows[i].want));
	}
	/* An absolute name of a place inside the root is still absolute. */
	(void)snprintf(abs, sizeof(abs), "%s/dest/d/l", fx->path);
	ASSERT_RET(pfx_root_symlink(&fx->root, "target", abs), -EXDEV);

	list_at(fx->dest, ".", list, sizeof(list));
	cr_assert_str_eq(list, "d f in lo");
	list_at(fx->dest, "d", list, sizeof(list));
	cr_assert_str_eq(list, "");
	cr_assert(!exists_at(fx->top, "l"), "[%s] top/l exists", fx->rname);
}

/* --- pfx_root_readlink ---------------------------------------------- */

/*
 *	dest/
 *	|-- abs -> /tmp/pfx-platform.XXXXXX/outside/victim
 *	|-- d/
 *	|   `-- m -> x
 *	|-- lo -> ../outside/secret
 *	`-- odd -> "a//b/./c/"
 */
ROOT_TEST(readlink_targets)
{
	char abs[PATH_MAX], buf[PATH_MAX];
	size_t len;

	(void)snprintf(abs, sizeof(abs), "%s/outside/victim", fx->path);
	put_dir(fx->dest, "d", 0755);
	put_link(fx->dest, "lo", "../outside/secret");
	put_link(fx->dest, "d/m", "x");
	put_link(fx->dest, "abs", abs);
	put_link(fx->dest, "odd", "a//b/./c/");

	memset(buf, 'Z', sizeof(buf));
	ASSERT_RET(pfx_root_readlink(&fx->root, "lo", buf, sizeof(buf)),
	    (int)strlen("../outside/secret"));
	cr_assert_str_eq(buf, "../outside/secret");
	ASSERT_RET(pfx_root_readlink(&fx->root, "d/m", buf, sizeof(buf)), 1);
	cr_assert_str_eq(buf, "x");
	ASSERT_RET(pfx_root_readlink(&fx->root, "./d//m", buf, sizeof(buf)),
	    1);
	cr_assert_str_eq(buf, "x");
	ASSERT_RET(pfx_root_readlink(&fx->root, "abs", buf, sizeof(buf)),
	    (int)strlen(abs));
	cr_assert_str_eq(buf, abs);
	ASSERT_RET(pfx_root_readlink(&fx->root, "odd", buf, sizeof(buf)), 9);
	cr_assert_str_eq(buf, "a//b/./c/");

	/* Just room for the target and its NUL; one byte less is too little. */
	len = strlen("../outside/secret");
	memset(buf, 'Z', sizeof(buf));
	ASSERT_RET(pfx_root_readlink(&fx->root, "lo", buf, len + 1),
	    (int)len);
	cr_assert_str_eq(buf, "../outside/secret");
	ASSERT_RET(pfx_root_readlink(&fx->root, "lo", buf, len),
	    -ENAMETOOLONG);
	ASSERT_RET(pfx_root_readlink(&fx->root, "lo", buf, 1), -ENAMETOOLONG);
	ASSERT_RET(pfx_root_readlink(&fx->root, "d/m", buf, 2), 1);
	cr_assert_str_eq(buf, "x");
	ASSERT_RET(pfx_root_readlink(&fx->root, "d/m", buf, 1),
	    -ENAMETOOLONG);
}

/* What pfx_root_symlink() stores, pfx_root_readlink() reads back. */
ROOT_TEST(readlink_round_trip)
{
	static const char *const targets[] = {
		"../../outside/x", "/etc/passwd", "a", "\001\377 \t\n*?",
		"..", "dir/", "a//b"
	};
	char name[16], buf[64];
	size_t i;

	for (i = 0; i < NELEM(targets); i++) {
		(void)snprintf(name, sizeof(name), "l%zu", i);
		ASSERT_RET(pfx_root_symlink(&fx->root, targets[i], name), 0);
		ASSERT_RET(pfx_root_readlink(&fx->root, name, buf,
		    sizeof(buf)), (int)strlen(targets[i]));
		cr_assert(strcmp(buf, targets[i]) == 0, "[%s] %s -> \"%s\", "
		    "want \"%s\"", fx->rname, name, buf, targets[i]);
	}
}

/*
 *	dest/
 *	|-- d/
 *	|-- f			"f\n"
 *	|-- fifo		(FIFO)
 *	|-- in -> d
 *	|-- lo -> ../outside/sdir
 *	`-- d/m -> x
 */
ROOT_TEST(readlink_refused)
{
	static const struct {
		const char *rel;
		int want;
	} rows[] = {
		{ "f", -EINVAL },
		{ "d", -EINVAL },
		{ "d/", -EINVAL },
		{ "fifo", -EINVAL },
		{ "", -EINVAL },
		{ ".", -EINVAL },
		{ "missing", -ENOENT },
		{ "nodir/l", -ENOENT },
		{ "f/x", -ENOTDIR },
		{ "in/m", -ELOOP },
		{ "lo/inner", -ELOOP },
		{ "lo/x", -ELOOP },
		{ "..", -EXDEV },
		{ "../outside/slink", -EXDEV },
		{ "d/../in", -EXDEV },
		{ "/etc/passwd", -EXDEV },
	};
	char buf[PATH_MAX];
	size_t i;
	int r;

	put_dir(fx->dest, "d", 0755);
	put_file(fx->dest, "f", "f\n", 0644);
	cr_assert(mkfifoat(fx->dest, "fifo", 0644) == 0, "mkfifo: %s",
	    strerror(errno));
	put_link(fx->dest, "in", "d");
	put_link(fx->dest, "lo", "../outside/sdir");
	put_link(fx->dest, "d/m", "x");
	for (i = 0; i < NELEM(rows); i++) {
		r = pfx_root_readlink(&fx->root, rows[i].rel, buf,
		    sizeof(buf));
		cr_assert(r == rows[i].want, "[%s] pfx_root_readlink(\"%s\"): "
		    "got %d (%s), want %s", fx->rname, rows[i].rel, r,
		    errname(r), errname(rows[i].want));
	}
	expect_content(fx, fx->dest, "f", "f\n");
}

/* --- pfx_root_link_meta --------------------------------------------- */

/*
 * Assert that outside/secret still has the fixture's mtime.  Its atime is
 * not compared: the snapshot taken before the body reads the file.
 */
static void
expect_secret_mtime(const struct fx *fx)
{
	struct stat st;

	st = stat_at(fx->out, "secret");
	cr_assert(st.st_mtim.tv_sec == OLD_SEC && st.st_mtim.tv_nsec == 0,
	    "[%s] outside/secret: mtime %lld.%09ld, want %d.000000000",
	    fx->rname, (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
	    OLD_SEC);
}

/*
 *	dest/
 *	|-- d/
 *	|   `-- l -> ../f
 *	|-- f			"f\n", old times
 *	|-- li -> f
 *	`-- lo -> ../outside/secret
 */
ROOT_TEST(link_meta_times)
{
	static const struct timespec t1[2] = {
		{ 1000000001, 111 }, { 1234567890, 987654321 }
	};
	static const struct timespec t2[2] = {
		{ 1100000000, 5 }, { 0, UTIME_OMIT }
	};
	static const struct timespec old = { OLD_SEC, 0 };
	struct stat before, after;

	put_dir(fx->dest, "d", 0755);
	put_file(fx->dest, "f", "f\n", 0644);
	set_old_times(fx->dest, "f");
	put_link(fx->dest, "li", "f");
	put_link(fx->dest, "lo", "../outside/secret");
	put_link(fx->dest, "d/l", "../f");

	/* The link itself gets the times; the outside target keeps its own. */
	before = stat_at(fx->dest, "lo");
	ASSERT_RET(pfx_root_link_meta(&fx->root, "lo", (uid_t)-1, (gid_t)-1,
	    t1), 0);
	expect_times(fx, fx->dest, "lo", &t1[0], &t1[1]);
	expect_secret_mtime(fx);
	after = stat_at(fx->dest, "lo");
	cr_assert(after.st_uid == before.st_uid &&
	    after.st_gid == before.st_gid, "[%s] lo: owner %u:%u changed to "
	    "%u:%u", fx->rname, (unsigned int)before.st_uid,
	    (unsigned int)before.st_gid, (unsigned int)after.st_uid,
	    (unsigned int)after.st_gid);
	expect_link(fx, fx->dest, "lo", "../outside/secret");
	ASSERT_RET(pfx_root_link_meta(&fx->root, "lo", (uid_t)-1, (gid_t)-1,
	    t2), 0);
	expect_times(fx, fx->dest, "lo", &t2[0], &t1[1]);
	expect_secret_mtime(fx);

	/* NULL times: nothing changes. */
	ASSERT_RET(pfx_root_link_meta(&fx->root, "lo", (uid_t)-1, (gid_t)-1,
	    NULL), 0);
	expect_times(fx, fx->dest, "lo", &t2[0], &t1[1]);

	/* A link to a file inside, at the top and in a subdirectory. */
	ASSERT_RET(pfx_root_link_meta(&fx->root, "li", (uid_t)-1, (gid_t)-1,
	    t1), 0);
	expect_times(fx, fx->dest, "li", &t1[0], &t1[1]);
	ASSERT_RET(pfx_root_link_meta(&fx->root, "d/l", (uid_t)-1, (gid_t)-1,
	    t1), 0);
	expect_times(fx, fx->dest, "d/l", &t1[0], &t1[1]);
	expect_times(fx, fx->dest, "f", &old, &old);
	expect_content(fx, fx->dest, "f", "f\n");
}

/*
 *	dest/
 *	|-- f			"f\n"
 *	|-- li -> f
 *	`-- lo -> ../outside/secret
 */
ROOT_TEST(link_meta_owner)
{
	static const struct timespec t1[2] = {
		{ 1000000001, 111 }, { 1234567890, 987654321 }
	};
	struct stat sec;

	need_root("chown");
	put_file(fx->dest, "f", "f\n", 0644);
	put_link(fx->dest, "li", "f");
	put_link(fx->dest, "lo", "../outside/secret");
	sec = stat_at(fx->out, "secret");

	ASSERT_RET(pfx_root_link_meta(&fx->root, "lo", 1234, 1234, NULL), 0);
	expect_owner(fx, fx->dest, "lo", 1234, 1234);
	expect_owner(fx, fx->out, "secret", sec.st_uid, sec.st_gid);
	ASSERT_RET(pfx_root_link_meta(&fx->root, "li", 1234, 1234, t1), 0);
	expect_owner(fx, fx->dest, "li", 1234, 1234);
	expect_times(fx, fx->dest, "li", &t1[0], &t1[1]);
	expect_owner(fx, fx->dest, "f", 0, 0);

	/* -1 leaves that half alone. */
	ASSERT_RET(pfx_root_link_meta(&fx->root, "lo", (uid_t)-1, 4321,
	    NULL), 0);
	expect_owner(fx, fx->dest, "lo", 1234, 4321);
	ASSERT_RET(pfx_root_link_meta(&fx->root, "lo", 1235, (gid_t)-1,
	    NULL), 0);
	expect_owner(fx, fx->dest, "lo", 1235, 4321);
	ASSERT_RET(pfx_root_link_meta(&fx->root, "lo", (uid_t)-1, (gid_t)-1,
	    t1), 0);
	expect_owner(fx, fx->dest, "lo", 1235, 4321);
	expect_owner(fx, fx->out, "secret", sec.st_uid, sec.st_gid);
}

/*
 *	dest/
 *	|-- d/
 *	|-- in -> d
 *	`-- lo -> ../outside/sdir
 */
ROOT_TEST(link_meta_refused)
{
	static const struct timespec t1[2] = {
		{ 1000000001, 111 }, { 1234567890, 987654321 }
	};
	static const struct {
		const char *rel;
		int want;
	} rows[] = {
		{ "missing", -ENOENT },
		{ "nodir/l", -ENOENT },
		{ "in/l", -ELOOP },
		{ "lo/inner", -ELOOP },
		{ "..", -EXDEV },
		{ "../outside/slink", -EXDEV },
		{ "d/../lo", -EXDEV },
		{ "/tmp", -EXDEV },
	};
	size_t i;
	int r;

	put_dir(fx->dest, "d", 0755);
	put_link(fx->dest, "d/l", "x");
	put_link(fx->dest, "in", "d");
	put_link(fx->dest, "lo", "../outside/sdir");
	set_old_times(fx->dest, "d/l");
	for (i = 0; i < NELEM(rows); i++) {
		r = pfx_root_link_meta(&fx->root, rows[i].rel, (uid_t)-1,
		    (gid_t)-1, t1);
		cr_assert(r == rows[i].want, "[%s] pfx_root_link_meta(\"%s\"): "
		    "got %d (%s), want %s", fx->rname, rows[i].rel, r,
		    errname(r), errname(rows[i].want));
	}
	cr_assert(stat_at(fx->dest, "d/l").st_mtim.tv_sec == OLD_SEC,
	    "[%s] d/l got new times through \"in\"", fx->rname);
}

/*
 * A racer may swap the link just made for a hard link to a file outside;
 * link_meta must then change nothing (the outside snapshot checks it).
 *
 *	dest/
 *	|-- h		hard link to outside/victim
 *	`-- f		"f\n"
 */
ROOT_TEST(link_meta_not_a_link)
{
	static const struct timespec t1[2] = {
		{ 1000000001, 111 }, { 1234567890, 987654321 }
	};

	plant(fx, PRIOR_HARDLINK_OUT, "h");
	put_file(fx->dest, "f", "f\n", 0644);
	ASSERT_RET(pfx_root_link_meta(&fx->root, "h", 1234, 1234, t1),
	    -EINVAL);
	ASSERT_RET(pfx_root_link_meta(&fx->root, "f", (uid_t)-1, (gid_t)-1,
	    t1), -EINVAL);
	ASSERT_RET(pfx_root_link_meta(&fx->root, "", (uid_t)-1, (gid_t)-1,
	    t1), -EBUSY);
	/* Drop the planted link, so outside/victim's nlink is as before. */
	cr_assert(unlinkat(fx->dest, "h", 0) == 0, "unlink h: %s",
	    strerror(errno));
}

/* --- descriptors ---------------------------------------------------- */

/*
 *	dest/
 *	|-- d/
 *	`-- f			"f\n"
 */
ROOT_TEST(descriptors_are_cloexec)
{
	struct pfx_pending pend;
	struct pfx_root sub;
	int fd, fl;

	put_dir(fx->dest, "d", 0755);
	put_file(fx->dest, "f", "f\n", 0644);

	/* White box: root fds are private; only their flags are read. */
	fl = fcntl(fx->root.fd, F_GETFD);
	cr_assert(fl != -1 && (fl & FD_CLOEXEC) != 0, "[%s] root fd",
	    fx->rname);
	ASSERT_RET(pfx_root_sub(&fx->root, "d", &sub), 0);
	fl = fcntl(sub.fd, F_GETFD);
	cr_assert(fl != -1 && (fl & FD_CLOEXEC) != 0, "[%s] sub fd",
	    fx->rname);
	pfx_root_close(&sub);

	fd = ASSERT_FD(pfx_root_open_dir(&fx->root, "d"));
	expect_flags(fx, fd, O_RDONLY, "pfx_root_open_dir");
	(void)close(fd);
	fd = ASSERT_FD(pfx_root_open_read(&fx->root, "f"));
	expect_flags(fx, fd, O_RDONLY, "pfx_root_open_read");
	(void)close(fd);
	fd = ASSERT_FD(pfx_root_mkdirs(&fx->root, "d", 0755));
	expect_flags(fx, fd, O_RDONLY, "pfx_root_mkdirs, existing");
	(void)close(fd);
	fd = ASSERT_FD(pfx_root_mkdirs(&fx->root, "n/m", 0755));
	expect_flags(fx, fd, O_RDONLY, "pfx_root_mkdirs, new");
	(void)close(fd);
	fd = ASSERT_FD(pfx_root_create(&fx->root, "c", 0644));
	expect_flags(fx, fd, O_WRONLY, "pfx_root_create");
	(void)close(fd);
	ASSERT_RET(pfx_root_begin(&fx->root, "p", 0644, &pend), 0);
	expect_fd(fx, __LINE__, "pend.fd", pend.fd);
	expect_flags(fx, pend.fd, O_WRONLY, "pend.fd");
	pfx_root_abort(&pend);
}

/* --- mount points --------------------------------------------------- */

/* Open the fixture's directories again, and pin dest/ again. */
static void
fx_reopen(struct fx *fx)
{
	(void)close(fx->elsewhere);
	(void)close(fx->out);
	(void)close(fx->dest);
	(void)close(fx->top);
	fx->top = open(fx->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert(fx->top >= 0, "open %s: %s", fx->path, strerror(errno));
	fx->dest = open_fixture_dir(fx->top, "dest");
	fx->out = open_fixture_dir(fx->top, "outside");
	fx->elsewhere = open_fixture_dir(fx->top, "elsewhere");
	pfx_root_close(&fx->root);
	fx->root_open = false;
	ASSERT_RET(pfx_root_open(&fx->root, fx->top, "dest", fx->how), 0);
	fx->root_open = true;
}

/*
 * Enter a private mount namespace (once) and mount SRC of TYPE with FLAGS
 * on dest/NAME, which is made first.  Skips the test where that is not
 * possible, e.g. without root.  A descriptor keeps the mount namespace it
 * was opened in, so every fixture descriptor and the root are opened
 * again inside the new one.
 */
static void
fx_mount(struct fx *fx, const char *src, const char *name, const char *type,
    unsigned long flags)
{
	char at[PATH_MAX];

	if (geteuid() != 0)
		fx_skip("mount tests need root");
	if (fx->nmounts == 0) {
		if (unshare(CLONE_NEWNS) == -1)
			fx_skip("unshare: %s", strerror(errno));
		if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == -1)
			fx_skip("private mounts: %s", strerror(errno));
		fx_reopen(fx);
	}
	cr_assert(fx->nmounts < (int)NELEM(fx->mounts), "too many mounts");
	put_dir(fx->dest, name, 0755);
	(void)snprintf(at, sizeof(at), "%s/dest/%s", fx->path, name);
	if (mount(src, at, type, flags, type != NULL ? "size=1m" : NULL) == -1)
		fx_skip("mount %s: %s", name, strerror(errno));
	memcpy(fx->mounts[fx->nmounts++], at, sizeof(at));
}

/* Undo the mounts of fx_mount(). */
static void
fx_unmount(struct fx *fx)
{
	while (fx->nmounts > 0) {
		fx->nmounts--;
		cr_assert(umount2(fx->mounts[fx->nmounts], MNT_DETACH) == 0,
		    "umount: %s", strerror(errno));
	}
}

/*
 *	dest/
 *	|-- mnt/		a tmpfs
 *	|   `-- d/
 *	|       `-- f		"f\n"
 *	`-- spare		"spare\n"
 */
ROOT_TEST(mount_tmpfs_crossing_refused)
{
	static const char *const through[] = { "mnt/x", "mnt/d", "mnt/d/x",
	    "mnt/d/f" };
	static const char *const at[] = { "mnt", "mnt/" };
	char path[PATH_MAX];
	struct pfx_root sub;
	int fd;

	fx_mount(fx, "tmpfs", "mnt", "tmpfs", 0);
	(void)snprintf(path, sizeof(path), "%s/dest/mnt/d", fx->path);
	cr_assert(mkdir(path, 0755) == 0, "mkdir in tmpfs");
	fd = open_fixture_dir(fx->dest, "mnt/d");
	put_file(fd, "f", "f\n", 0644);
	(void)close(fd);
	put_file(fx->dest, "spare", "spare\n", 0644);

	expect_all_ops(fx, &fx->root, fx->dest, through, NELEM(through),
	    -EXDEV);
	ASSERT_RET(pfx_root_open_dir(&fx->root, at[0]), -EXDEV);
	ASSERT_RET(pfx_root_open_dir(&fx->root, at[1]), -EXDEV);
	ASSERT_RET(pfx_root_mkdirs(&fx->root, at[0], 0755), -EXDEV);
	ASSERT_RET(pfx_root_sub(&fx->root, at[0], &sub), -EXDEV);
	fx_unmount(fx);
}

/*
 * A bind mount of outside/ inside the root: the same filesystem (st_dev),
 * but a mount point all the same.
 *
 *	dest/
 *	|-- bind/		outside/, bind-mounted
 *	`-- spare		"spare\n"
 */
ROOT_TEST(mount_bind_crossing_refused)
{
	static const char *const through[] = { "bind/x", "bind/secret",
	    "bind/sdir/inner", "bind/sdir/x" };
	char src[PATH_MAX];
	struct pfx_root sub;

	(void)snprintf(src, sizeof(src), "%s/outside", fx->path);
	fx_mount(fx, src, "bind", NULL, MS_BIND);
	put_file(fx->dest, "spare", "spare\n", 0644);

	expect_all_ops(fx, &fx->root, fx->dest, through, NELEM(through),
	    -EXDEV);
	ASSERT_RET(pfx_root_open_dir(&fx->root, "bind"), -EXDEV);
	ASSERT_RET(pfx_root_sub(&fx->root, "bind", &sub), -EXDEV);
	ASSERT_RET(pfx_root_mkdirs(&fx->root, "bind", 0755), -EXDEV);
	fx_unmount(fx);
}

/*
 * A mount point where a file goes (--recursive-unlink): what is mounted
 * stays, and the name is refused as a way out of the root (EXDEV), as
 * any mount crossing is, not failed as an I/O error (rmdir's EBUSY).
 */
ROOT_TEST(mount_point_not_removed)
{
	struct pfx_pending pend;
	char src[PATH_MAX];

	(void)snprintf(src, sizeof(src), "%s/outside", fx->path);
	fx_mount(fx, src, "bind", NULL, MS_BIND);
	ASSERT_RET(pfx_root_begin(&fx->root, "bind", 0644, &pend), 0);
	ASSERT_RET(pfx_pending_remove_dir(&pend), -EXDEV);
	pfx_root_abort(&pend);
	fx_unmount(fx);
	expect_victim_intact(fx, "pfx_pending_remove_dir on a mount point");
}

/* --- pfx_pending_existing, _backup, _remove_dir (opts2) -------------- */

/*
 * Backups are renames in the pending file's own directory: of the name
 * itself (a symlink is moved, never followed), to a name of one bounded
 * component; a name that cannot have one is left in place.
 */
PENDING_TEST(pending_backup)
{
	struct pfx_pending pend;
	struct stat st;
	char bak[256], longname[251];

	put_file(fx->dest, "f", "old\n", 0644);
	ASSERT_RET(pfx_root_begin(&fx->root, "f", 0644, &pend), 0);
	ASSERT_RET(pfx_pending_existing(&pend, &st), 0);
	cr_assert(S_ISREG(st.st_mode), "[%s] f is a file", fx->rname);
	ASSERT_RET(pfx_pending_backup(&pend, PFX_PENDING_BACKUP_SIMPLE, NULL,
	    bak, sizeof(bak)), 0);
	cr_assert_str_eq(bak, "f~");
	expect_content(fx, fx->dest, "f~", "old\n");
	ASSERT_RET(pfx_pending_existing(&pend, &st), -ENOENT);
	write_all(pend.fd, "new\n");
	ASSERT_RET(pfx_root_commit(&fx->root, &pend, PFX_ROOT_REPLACE), 0);
	expect_content(fx, fx->dest, "f", "new\n");

	/* Numbered: one past the highest; existing: numbered then. */
	put_file(fx->dest, "f.~7~", "seven\n", 0644);
	put_file(fx->dest, "f.~x~", "not a number\n", 0644);
	ASSERT_RET(pfx_root_begin(&fx->root, "f", 0644, &pend), 0);
	ASSERT_RET(pfx_pending_backup(&pend, PFX_PENDING_BACKUP_EXISTING,
	    ".s", bak, sizeof(bak)), 0);
	cr_assert_str_eq(bak, "f.~8~");
	expect_content(fx, fx->dest, "f.~8~", "new\n");
	pfx_root_abort(&pend);

	/* A symlink to outside/victim is moved itself. */
	put_link(fx->dest, "l", "../outside/victim");
	ASSERT_RET(pfx_root_begin(&fx->root, "l", 0644, &pend), 0);
	ASSERT_RET(pfx_pending_backup(&pend, PFX_PENDING_BACKUP_SIMPLE,
	    ".b", bak, sizeof(bak)), 0);
	st = stat_at(fx->dest, "l.b");
	cr_assert(S_ISLNK(st.st_mode), "[%s] l.b is the link", fx->rname);
	pfx_root_abort(&pend);
	expect_victim_intact(fx, "pfx_pending_backup");

	/* No backup name longer than NAME_MAX: the file stays. */
	memset(longname, 'n', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	put_file(fx->dest, longname, "long\n", 0644);
	ASSERT_RET(pfx_root_begin(&fx->root, longname, 0644, &pend), 0);
	ASSERT_RET(pfx_pending_backup(&pend, PFX_PENDING_BACKUP_SIMPLE,
	    ".suffix", bak, sizeof(bak)), -ENAMETOOLONG);
	cr_assert_str_eq(bak, "");
	expect_content(fx, fx->dest, longname, "long\n");
	pfx_root_abort(&pend);

	/* Nothing there, or a directory: no backup. */
	put_dir(fx->dest, "dir", 0755);
	ASSERT_RET(pfx_root_begin(&fx->root, "dir", 0644, &pend), 0);
	ASSERT_RET(pfx_pending_backup(&pend, PFX_PENDING_BACKUP_NUMBERED,
	    NULL, bak, sizeof(bak)), 0);
	cr_assert_str_eq(bak, "");
	cr_assert(S_ISDIR(stat_at(fx->dest, "dir").st_mode));
	pfx_root_abort(&pend);
}

/*
 * As below, for the commit itself: a file that replaces its name, in a
 * parent moved out of the root while its data was written, would remove
 * what the name held there (a rename over it), which the check after the
 * commit cannot give back.  The parent is proved first: -EXDEV, and
 * elsewhere/a/f stays as it was, whichever way a name is replaced.
 *
 *	dest/
 *	`-- a/			f "old", moved to elsewhere/a after the begin
 */
PENDING_TEST(pending_commit_parent_moved_out)
{
	static const unsigned int flags[] = { PFX_ROOT_REPLACE,
	    PFX_ROOT_REPLACE_FILE };
	struct pfx_pending pend;
	char list[64];
	size_t i;

	put_dir(fx->dest, "a", 0755);
	put_file(fx->dest, "a/f", "old\n", 0644);
	for (i = 0; i < NELEM(flags); i++) {
		ASSERT_RET(pfx_root_begin(&fx->root, "a/f", 0644, &pend), 0);
		write_all(pend.fd, "new\n");
		cr_assert(renameat(fx->dest, "a", fx->elsewhere, "a") == 0,
		    "rename: %s", strerror(errno));
		ASSERT_RET(pfx_root_commit(&fx->root, &pend, flags[i]),
		    -EXDEV);
		list_at(fx->elsewhere, "a", list, sizeof(list));
		cr_assert_str_eq(list, "f", "[%s] elsewhere/a holds \"%s\"",
		    fx->rname, list);
		expect_content(fx, fx->elsewhere, "a/f", "old\n");
		cr_assert(renameat(fx->elsewhere, "a", fx->dest, "a") == 0,
		    "rename: %s", strerror(errno));
	}
}

/*
 * A pending file's parent is resolved when it is begun; its data takes
 * time, and the parent may be moved out of the root meanwhile.  The
 * backup made at the commit renames nothing there: -EXDEV, and
 * elsewhere/a holds f as it was, no f~.  Beneath the root, it is made.
 *
 *	dest/
 *	`-- a/			f "old", moved to elsewhere/a after the begin
 */
PENDING_TEST(pending_backup_parent_moved_out)
{
	struct pfx_pending pend;
	char bak[256], list[64];

	put_dir(fx->dest, "a", 0755);
	put_file(fx->dest, "a/f", "old\n", 0644);
	ASSERT_RET(pfx_root_begin(&fx->root, "a/f", 0644, &pend), 0);
	write_all(pend.fd, "new\n");
	ASSERT_RET(pfx_pending_backup_name(&pend, PFX_PENDING_BACKUP_SIMPLE,
	    NULL, bak, sizeof(bak)), 0);
	cr_assert_str_eq(bak, "f~");
	cr_assert(renameat(fx->dest, "a", fx->elsewhere, "a") == 0,
	    "rename: %s", strerror(errno));
	ASSERT_RET(pfx_pending_backup_as_beneath(&fx->root, &pend, bak),
	    -EXDEV);
	cr_assert_str_eq(bak, "", "[%s] a backup is reported", fx->rname);
	pfx_root_abort(&pend);
	list_at(fx->elsewhere, "a", list, sizeof(list));
	cr_assert_str_eq(list, "f", "[%s] elsewhere/a holds \"%s\"",
	    fx->rname, list);
	expect_content(fx, fx->elsewhere, "a/f", "old\n");

	/* Back beneath the root: the backup is made. */
	cr_assert(renameat(fx->elsewhere, "a", fx->dest, "a") == 0,
	    "rename: %s", strerror(errno));
	ASSERT_RET(pfx_root_begin(&fx->root, "a/f", 0644, &pend), 0);
	write_all(pend.fd, "new\n");
	strcpy(bak, "f~");
	ASSERT_RET(pfx_pending_backup_as_beneath(&fx->root, &pend, bak), 0);
	cr_assert_str_eq(bak, "f~");
	ASSERT_RET(pfx_root_commit(&fx->root, &pend, PFX_ROOT_REPLACE), 0);
	expect_content(fx, fx->dest, "a/f~", "old\n");
	expect_content(fx, fx->dest, "a/f", "new\n");
}

/* A directory in the way goes with its tree; what a link in it points
 * to stays; a file at the name is not a directory. */
PENDING_TEST(pending_remove_dir)
{
	struct pfx_pending pend;

	put_dir(fx->dest, "d", 0755);
	put_dir(fx->dest, "d/sub", 0555);
	put_link(fx->dest, "d/out", "../../outside");
	put_link(fx->dest, "d/v", "../../outside/victim");
	put_file(fx->dest, "f", "f\n", 0644);
	ASSERT_RET(pfx_root_begin(&fx->root, "d", 0644, &pend), 0);
	ASSERT_RET(pfx_pending_remove_dir(&pend), 0);
	cr_assert(!exists_at(fx->dest, "d"), "[%s] d is left", fx->rname);
	write_all(pend.fd, "file\n");
	ASSERT_RET(pfx_root_commit(&fx->root, &pend, PFX_ROOT_REPLACE), 0);
	expect_content(fx, fx->dest, "d", "file\n");
	expect_victim_intact(fx, "pfx_pending_remove_dir");
	ASSERT_RET(pfx_root_begin(&fx->root, "f", 0644, &pend), 0);
	ASSERT_RET(pfx_pending_remove_dir(&pend), -ENOTDIR);
	pfx_root_abort(&pend);
	expect_content(fx, fx->dest, "f", "f\n");
}
