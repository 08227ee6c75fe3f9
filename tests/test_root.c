/*
 * test_root.c -- --symlinks=root (PFX_SYMLINKS_ROOT): the destination is a
 * root filesystem.  Links are made at once and resolve as in a chroot
 * (absolute targets and ".." at the top stay in dest); links already in
 * dest, or made earlier in the run, are followed to reach a parent,
 * RESOLVE_IN_ROOT; the last component of a name is never followed.
 *
 * Each case runs once per resolver, in a fresh mkdtemp() directory:
 *
 *	$TMPDIR/pfx-root.XXXXXX/
 *	|-- dest/		the destination (a merged-/usr root when
 *	|			the case asks: bin -> usr/bin, lib -> usr/lib,
 *	|			lib64 -> usr/lib64, sbin -> usr/sbin)
 *	`-- outside/
 *	    `-- sentinel	"sentinel\n": must end as it began, alone
 *
 * After every run: outside/ holds only its sentinel, unchanged, and every
 * symlink in dest resolves with openat2(RESOLVE_IN_ROOT|
 * RESOLVE_NO_MAGICLINKS) from dest (a missing component is no escape).
 */
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <criterion/criterion.h>

#include "pfextract.h"
#include "pfx_root.h"
#include "fixture.h"

#define SENTINEL "sentinel\n"
#define ARCHIVE_CAP (1u << 20)
#define MAX_REPORTS 64

struct rrec {
	char name[256];
	char reason[64];
	enum pfx_entry_status status;
};

struct rfx {
	const char *rname;
	char top[PATH_MAX / 4];
	char dest[PATH_MAX / 2];
	char outside[PATH_MAX / 2];
	int destfd, outfd;
	struct pfx_options opt;
	struct pfx_result res;
	struct rrec rep[MAX_REPORTS];
	size_t nrep;
	struct archive *a;
	char *buf;
	size_t used;
};

static const struct {
	enum pfx_resolver how;
	const char *name;
} resolvers[] = {
	{ PFX_RESOLVER_OPENAT2, "openat2" },
	{ PFX_RESOLVER_WALK, "walk" },
};

static void
on_report(void *arg, const struct pfx_entry *e)
{
	struct rfx *fx = arg;
	struct rrec *r;

	cr_assert(fx->nrep < MAX_REPORTS, "too many reports");
	r = &fx->rep[fx->nrep++];
	(void)snprintf(r->name, sizeof(r->name), "%s", e->name);
	(void)snprintf(r->reason, sizeof(r->reason), "%s", e->reason);
	r->status = e->status;
}

/* A fresh tree; MERGED: dest is a merged-/usr root. */
static void
rfx_begin(struct rfx *fx, size_t ri, bool merged)
{
	const char *tmp = getenv("TMPDIR");
	int topfd, fd;

	memset(fx, 0, sizeof(*fx));
	fx->rname = resolvers[ri].name;
	(void)snprintf(fx->top, sizeof(fx->top), "%s/pfx-root.XXXXXX",
	    tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
	cr_assert(mkdtemp(fx->top) != NULL, "mkdtemp: %s", strerror(errno));
	topfd = open(fx->top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert(topfd >= 0);
	cr_assert(mkdirat(topfd, "dest", 0755) == 0);
	cr_assert(mkdirat(topfd, "outside", 0755) == 0);
	fx->destfd = openat(topfd, "dest", O_RDONLY | O_DIRECTORY);
	fx->outfd = openat(topfd, "outside", O_RDONLY | O_DIRECTORY);
	cr_assert(fx->destfd >= 0 && fx->outfd >= 0);
	fd = openat(fx->outfd, "sentinel", O_WRONLY | O_CREAT | O_EXCL, 0644);
	cr_assert(fd >= 0);
	cr_assert(write(fd, SENTINEL, strlen(SENTINEL)) ==
	    (ssize_t)strlen(SENTINEL));
	(void)close(fd);
	(void)close(topfd);
	(void)snprintf(fx->dest, sizeof(fx->dest), "%s/dest", fx->top);
	(void)snprintf(fx->outside, sizeof(fx->outside), "%s/outside",
	    fx->top);
	if (merged) {
		cr_assert(mkdirat(fx->destfd, "usr", 0755) == 0);
		cr_assert(mkdirat(fx->destfd, "usr/bin", 0755) == 0);
		cr_assert(mkdirat(fx->destfd, "usr/lib", 0755) == 0);
		cr_assert(mkdirat(fx->destfd, "usr/lib64", 0755) == 0);
		cr_assert(mkdirat(fx->destfd, "usr/sbin", 0755) == 0);
		cr_assert(symlinkat("usr/bin", fx->destfd, "bin") == 0);
		cr_assert(symlinkat("usr/lib", fx->destfd, "lib") == 0);
		cr_assert(symlinkat("usr/lib64", fx->destfd, "lib64") == 0);
		cr_assert(symlinkat("usr/sbin", fx->destfd, "sbin") == 0);
	}
	pfx_options_init(&fx->opt);
	fx->opt.symlinks = PFX_SYMLINKS_ROOT;
	fx->opt.resolver = resolvers[ri].how;
	fx->opt.hooks.report = on_report;
	fx->opt.hooks.arg = fx;
	fx->buf = malloc(ARCHIVE_CAP);
	cr_assert(fx->buf != NULL);
	fx->a = archive_write_new();
	cr_assert(archive_write_set_format_pax(fx->a) == ARCHIVE_OK);
	cr_assert(archive_write_open_memory(fx->a, fx->buf, ARCHIVE_CAP,
	    &fx->used) == ARCHIVE_OK);
}

/* Is every symlink beneath dest/REL resolvable in the root? */
static void
check_links_in_root(struct rfx *fx, int dirfd, const char *rel)
{
	struct open_how how;
	struct dirent *de;
	struct stat st;
	char path[PATH_MAX];
	DIR *d;
	long fd;
	int sub;

	d = fdopendir(dup(dirfd));
	cr_assert(d != NULL);
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		(void)snprintf(path, sizeof(path), "%s%s%s", rel,
		    rel[0] != '\0' ? "/" : "", de->d_name);
		cr_assert(fstatat(dirfd, de->d_name, &st,
		    AT_SYMLINK_NOFOLLOW) == 0);
		if (S_ISLNK(st.st_mode)) {
			memset(&how, 0, sizeof(how));
			how.flags = O_PATH | O_CLOEXEC;
			how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS |
			    RESOLVE_NO_XDEV;
			/* EAGAIN: a rename elsewhere raced the lookup. */
			do
				fd = syscall(SYS_openat2, fx->destfd, path,
				    &how, sizeof(how));
			while (fd < 0 && errno == EAGAIN);
			cr_assert(fd >= 0 || errno == ENOENT ||
			    errno == ENOTDIR, "[%s] %s: %s", fx->rname, path,
			    strerror(errno));
			if (fd >= 0)
				(void)close((int)fd);
		} else if (S_ISDIR(st.st_mode)) {
			sub = openat(dirfd, de->d_name, O_RDONLY |
			    O_DIRECTORY | O_NOFOLLOW);
			cr_assert(sub >= 0);
			check_links_in_root(fx, sub, path);
			(void)close(sub);
		}
	}
	(void)closedir(d);
}

static void
rfx_end(struct rfx *fx)
{
	char buf[64];
	char **names;
	ssize_t n;
	int fd;

	n = tfx_read_names(fx->outfd, ".", &names);
	cr_assert(n == 1, "[%s] outside/ holds %zd names", fx->rname, n);
	cr_assert_str_eq(names[0], "sentinel");
	free(names[0]);
	free(names);
	fd = openat(fx->outfd, "sentinel", O_RDONLY | O_NOFOLLOW);
	cr_assert(fd >= 0, "[%s] sentinel gone", fx->rname);
	n = read(fd, buf, sizeof(buf));
	(void)close(fd);
	cr_assert(n == (ssize_t)strlen(SENTINEL) &&
	    memcmp(buf, SENTINEL, (size_t)n) == 0, "[%s] sentinel changed",
	    fx->rname);
	check_links_in_root(fx, fx->destfd, "");
	(void)close(fx->destfd);
	(void)close(fx->outfd);
	if (fx->a != NULL)
		archive_write_free(fx->a);
	free(fx->buf);
	(void)tfx_rm_tree(fx->top);
}

static void
add(struct rfx *fx, const char *name, mode_t type, const char *target,
    const char *data)
{
	struct archive_entry *e = archive_entry_new();
	size_t len = data != NULL ? strlen(data) : 0;
	int r;

	archive_entry_set_pathname(e, name);
	archive_entry_set_filetype(e, type);
	archive_entry_set_perm(e, type == AE_IFLNK ? 0777 : 0755);
	archive_entry_set_mtime(e, 1300000000, 0);
	archive_entry_set_size(e, (la_int64_t)len);
	if (type == AE_IFLNK)
		archive_entry_set_symlink(e, target);
	if (target != NULL && type == AE_IFREG) {
		archive_entry_set_hardlink(e, target);
		archive_entry_set_size(e, 0);
		len = 0;
	}
	r = archive_write_header(fx->a, e);
	cr_assert(r == ARCHIVE_OK || r == ARCHIVE_WARN, "header %s", name);
	if (len > 0)
		cr_assert(archive_write_data(fx->a, data, len) ==
		    (la_ssize_t)len);
	archive_entry_free(e);
}

#define FILE_(fx, n, d)	add((fx), (n), AE_IFREG, NULL, (d))
#define DIR_(fx, n)	add((fx), (n), AE_IFDIR, NULL, NULL)
#define LINK_(fx, n, t)	add((fx), (n), AE_IFLNK, (t), NULL)
#define HARD_(fx, n, t)	add((fx), (n), AE_IFREG, (t), NULL)

static enum pfx_status
rfx_run(struct rfx *fx)
{
	struct pfx_input in = { .fd = -1, .buf = NULL, .len = 0 };
	enum pfx_status st;

	if (fx->a != NULL) {
		cr_assert(archive_write_close(fx->a) == ARCHIVE_OK);
		archive_write_free(fx->a);
		fx->a = NULL;
	}
	in.buf = fx->buf;
	in.len = fx->used;
	fx->nrep = 0;
	st = pfx_extract(&in, AT_FDCWD, fx->dest, &fx->opt, &fx->res);
	cr_assert(st != PFX_FATAL, "[%s] fatal: %s", fx->rname,
	    fx->res.message);
	return st;
}

static const struct rrec *
report_of(const struct rfx *fx, const char *name)
{
	size_t i;

	for (i = 0; i < fx->nrep; i++)
		if (strcmp(fx->rep[i].name, name) == 0)
			return &fx->rep[i];
	cr_assert_fail("[%s] no report for %s", fx->rname, name);
	return NULL;
}

static void
expect_status(const struct rfx *fx, const char *name,
    enum pfx_entry_status status, const char *reason)
{
	const struct rrec *r = report_of(fx, name);

	cr_assert(r->status == status, "[%s] %s: status %d (%s)", fx->rname,
	    name, (int)r->status, r->reason);
	if (reason != NULL)
		cr_assert_str_eq(r->reason, reason, "[%s] %s", fx->rname,
		    name);
}

/* dest/REL is a symlink to TARGET. */
static void
expect_link(const struct rfx *fx, const char *rel, const char *target)
{
	char buf[PATH_MAX];
	ssize_t n;

	n = readlinkat(fx->destfd, rel, buf, sizeof(buf) - 1);
	cr_assert(n >= 0, "[%s] %s is not a symlink: %s", fx->rname, rel,
	    strerror(errno));
	buf[n] = '\0';
	cr_assert_str_eq(buf, target, "[%s] %s", fx->rname, rel);
}

/* dest/REL, through no symlink, is a regular file holding DATA. */
static void
expect_file(const struct rfx *fx, const char *rel, const char *data)
{
	struct open_how how;
	char buf[256];
	ssize_t n;
	long fd;

	memset(&how, 0, sizeof(how));
	how.flags = O_RDONLY | O_CLOEXEC;
	how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS;
	do	/* EAGAIN: a rename elsewhere raced the lookup. */
		fd = syscall(SYS_openat2, fx->destfd, rel, &how, sizeof(how));
	while (fd < 0 && errno == EAGAIN);
	cr_assert(fd >= 0, "[%s] %s: %s", fx->rname, rel, strerror(errno));
	n = read((int)fd, buf, sizeof(buf) - 1);
	(void)close((int)fd);
	cr_assert(n >= 0);
	buf[n] = '\0';
	cr_assert_str_eq(buf, data, "[%s] %s", fx->rname, rel);
}

static void
expect_absent(const struct rfx *fx, const char *rel)
{
	struct stat st;

	cr_assert(fstatat(fx->destfd, rel, &st, AT_SYMLINK_NOFOLLOW) == -1 &&
	    errno == ENOENT, "[%s] %s exists", fx->rname, rel);
}

#define EACH_RESOLVER(ri) \
	for (size_t ri = 0; ri < sizeof(resolvers) / sizeof(resolvers[0]); \
	    ri++)

Test(root, absolute_targets_and_dotdot_past_the_top)
{
	struct rfx fx;

	EACH_RESOLVER(ri) {
		rfx_begin(&fx, ri, false);
		LINK_(&fx, "lib64/ld-linux-x86-64.so.2",
		    "/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2");
		LINK_(&fx, "etc/localtime",
		    "../../../../usr/share/zoneinfo/Etc/UTC");
		LINK_(&fx, "etc/mtab", "../proc/self/mounts");
		cr_assert(rfx_run(&fx) == PFX_OK, "[%s] %s", fx.rname,
		    fx.res.message);
		expect_link(&fx, "lib64/ld-linux-x86-64.so.2",
		    "/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2");
		expect_link(&fx, "etc/localtime",
		    "../../../../usr/share/zoneinfo/Etc/UTC");
		expect_link(&fx, "etc/mtab", "../proc/self/mounts");
		expect_status(&fx, "etc/mtab", PFX_ENTRY_EXTRACTED, "none");
		rfx_end(&fx);
	}
}

Test(root, magic_links_refused_also_through_a_later_chain)
{
	struct rfx fx;

	EACH_RESOLVER(ri) {
		rfx_begin(&fx, ri, false);
		LINK_(&fx, "etc/evil", "/proc/1/root");
		LINK_(&fx, "etc/fd", "../../proc/self/fd/0");
		/* Harmless when made; magic once p exists. */
		LINK_(&fx, "a", "p/root");
		LINK_(&fx, "p", "/proc/self");
		LINK_(&fx, "loop1", "/loop2");
		LINK_(&fx, "loop2", "loop1");
		cr_assert(rfx_run(&fx) == PFX_REFUSED, "[%s]", fx.rname);
		expect_status(&fx, "etc/evil", PFX_ENTRY_REFUSED,
		    "symlink_escapes");
		expect_status(&fx, "etc/fd", PFX_ENTRY_REFUSED,
		    "symlink_escapes");
		expect_status(&fx, "a", PFX_ENTRY_REFUSED, "symlink_escapes");
		expect_status(&fx, "p", PFX_ENTRY_EXTRACTED, "none");
		expect_status(&fx, "loop2", PFX_ENTRY_REFUSED, "symlink_loop");
		expect_absent(&fx, "etc/evil");
		expect_absent(&fx, "etc/fd");
		expect_absent(&fx, "a");
		expect_absent(&fx, "loop2");
		expect_link(&fx, "p", "/proc/self");
		rfx_end(&fx);
	}
}

Test(root, merged_usr_entries_land_through_existing_links)
{
	struct rfx fx;
	struct stat a, b;

	EACH_RESOLVER(ri) {
		rfx_begin(&fx, ri, true);
		DIR_(&fx, "./");
		DIR_(&fx, "./bin/");
		FILE_(&fx, "./bin/gzip", "gzip\n");
		HARD_(&fx, "./bin/gunzip", "./bin/gzip");
		DIR_(&fx, "./sbin/");
		DIR_(&fx, "./lib/x86_64-linux-gnu/");
		FILE_(&fx, "./lib/x86_64-linux-gnu/libc.so.6", "libc\n");
		cr_assert(rfx_run(&fx) == PFX_OK, "[%s] %s", fx.rname,
		    fx.res.message);
		/* The directory entries kept the links (dpkg, tar -k...). */
		expect_link(&fx, "bin", "usr/bin");
		expect_link(&fx, "sbin", "usr/sbin");
		expect_link(&fx, "lib", "usr/lib");
		expect_file(&fx, "usr/bin/gzip", "gzip\n");
		expect_file(&fx, "usr/lib/x86_64-linux-gnu/libc.so.6",
		    "libc\n");
		cr_assert(fstatat(fx.destfd, "usr/bin/gzip", &a, 0) == 0);
		cr_assert(fstatat(fx.destfd, "usr/bin/gunzip", &b, 0) == 0);
		cr_assert(a.st_ino == b.st_ino, "[%s] hard link", fx.rname);
		rfx_end(&fx);
	}
}

Test(root, a_link_made_earlier_in_the_run_is_a_parent)
{
	struct rfx fx;

	EACH_RESOLVER(ri) {
		rfx_begin(&fx, ri, false);
		DIR_(&fx, "usr/");
		DIR_(&fx, "usr/lib64/");
		LINK_(&fx, "lib64", "/usr/lib64");
		FILE_(&fx, "lib64/ld.so", "ld\n");
		LINK_(&fx, "up", "../../..");
		FILE_(&fx, "up/top", "top\n");
		cr_assert(rfx_run(&fx) == PFX_OK, "[%s] %s", fx.rname,
		    fx.res.message);
		expect_link(&fx, "lib64", "/usr/lib64");
		expect_file(&fx, "usr/lib64/ld.so", "ld\n");
		expect_file(&fx, "top", "top\n");
		rfx_end(&fx);
	}
}

/*
 * A link already in dest that names a host path outside, absolutely or
 * by "..": in the root both lead inside, and what goes through them is
 * made inside.
 */
Test(root, existing_links_to_outside_lead_inside)
{
	struct rfx fx;
	char rel[PATH_MAX];

	EACH_RESOLVER(ri) {
		rfx_begin(&fx, ri, false);
		cr_assert(symlinkat(fx.outside, fx.destfd, "abs") == 0);
		cr_assert(symlinkat("../outside", fx.destfd, "rel") == 0);
		FILE_(&fx, "abs/sentinel", "evil\n");
		FILE_(&fx, "rel/sentinel", "evil\n");
		FILE_(&fx, "abs/new", "new\n");
		cr_assert(rfx_run(&fx) == PFX_OK, "[%s] %s", fx.rname,
		    fx.res.message);
		expect_file(&fx, "outside/sentinel", "evil\n");
		(void)snprintf(rel, sizeof(rel), "%.2000s/new",
		    fx.outside + 1);
		expect_file(&fx, rel, "new\n");
		rfx_end(&fx);
	}
}

/* The last component is never followed: a link there is replaced. */
Test(root, final_component_never_followed)
{
	struct rfx fx;
	char target[PATH_MAX];

	EACH_RESOLVER(ri) {
		rfx_begin(&fx, ri, false);
		(void)snprintf(target, sizeof(target), "%s/sentinel",
		    fx.outside);
		cr_assert(mkdirat(fx.destfd, "etc", 0755) == 0);
		cr_assert(symlinkat(target, fx.destfd, "etc/passwd") == 0);
		cr_assert(symlinkat(fx.outside, fx.destfd, "etc/d") == 0);
		FILE_(&fx, "etc/passwd", "root\n");
		LINK_(&fx, "etc/d", "/x");
		cr_assert(rfx_run(&fx) == PFX_OK, "[%s] %s", fx.rname,
		    fx.res.message);
		expect_file(&fx, "etc/passwd", "root\n");
		expect_link(&fx, "etc/d", "/x");
		rfx_end(&fx);
	}
}

/* The other policies still refuse a path through an existing link. */
Test(root, other_policies_refuse_existing_links)
{
	static const enum pfx_symlinks pol[] = {
		PFX_SYMLINKS_REFUSE, PFX_SYMLINKS_CONTAIN
	};
	struct rfx fx;
	size_t p;

	for (p = 0; p < 2; p++) {
		EACH_RESOLVER(ri) {
			rfx_begin(&fx, ri, true);
			fx.opt.symlinks = pol[p];
			FILE_(&fx, "./bin/gzip", "gzip\n");
			cr_assert(rfx_run(&fx) == PFX_REFUSED, "[%s]",
			    fx.rname);
			expect_status(&fx, "./bin/gzip", PFX_ENTRY_REFUSED,
			    "symlink_in_path");
			expect_absent(&fx, "usr/bin/gzip");
			rfx_end(&fx);
		}
	}
}

/*
 * A link's own parents may be links: y -> / puts y/z/l at z/l, where
 * ../proc/1/root is the magic proc/1/root, not y/proc/1/root.
 */
Test(root, a_link_is_judged_where_its_parents_put_it)
{
	struct rfx fx;

	EACH_RESOLVER(ri) {
		rfx_begin(&fx, ri, false);
		cr_assert(symlinkat("/", fx.destfd, "y") == 0);
		DIR_(&fx, "y/z/");
		LINK_(&fx, "y/z/l", "../proc/1/root");
		LINK_(&fx, "y/z/ok", "../etc");
		cr_assert(rfx_run(&fx) == PFX_REFUSED, "[%s]", fx.rname);
		expect_status(&fx, "y/z/l", PFX_ENTRY_REFUSED,
		    "symlink_escapes");
		expect_status(&fx, "y/z/ok", PFX_ENTRY_EXTRACTED, "none");
		expect_absent(&fx, "z/l");
		expect_link(&fx, "z/ok", "../etc");
		rfx_end(&fx);
	}
}

/*
 * A directory entry whose name led to a directory this run made, and by
 * now, through a link the run replaced, leads to one that was in dest
 * before: that one is used, never chmod'ed or given the entry's times --
 * whether the run knew the directory it made by its identity (l/pre/, an
 * entry) or by its name alone (l/old/, a parent of l/old/b/f).
 */
Test(root, a_name_turned_to_an_old_directory_leaves_it_alone)
{
	static const char *const olds[] = { "pre", "old" };
	struct timespec ts[2] = { { 5, 0 }, { 5, 0 } };
	struct rfx fx;
	struct stat st;
	size_t i;

	EACH_RESOLVER(ri) {
		rfx_begin(&fx, ri, false);
		for (i = 0; i < 2; i++) {
			cr_assert(mkdirat(fx.destfd, olds[i], 0700) == 0);
			cr_assert(fchmodat(fx.destfd, olds[i], 0700, 0) == 0);
			cr_assert(utimensat(fx.destfd, olds[i], ts, 0) == 0);
		}
		DIR_(&fx, "e/");
		LINK_(&fx, "l", "e");
		DIR_(&fx, "l/pre/");
		FILE_(&fx, "l/old/b/f", "f\n");
		LINK_(&fx, "l", ".");
		DIR_(&fx, "l/pre/");
		DIR_(&fx, "l/old/");
		cr_assert(rfx_run(&fx) == PFX_OK, "[%s] %s", fx.rname,
		    fx.res.message);
		expect_link(&fx, "l", ".");
		expect_file(&fx, "e/old/b/f", "f\n");
		for (i = 0; i < 2; i++) {
			cr_assert(fstatat(fx.destfd, olds[i], &st,
			    AT_SYMLINK_NOFOLLOW) == 0);
			cr_expect((st.st_mode & 07777) == 0700,
			    "[%s] %s: mode %o, was 0700", fx.rname, olds[i],
			    (unsigned)(st.st_mode & 07777));
			cr_expect(st.st_mtime == 5, "[%s] %s: mtime %lld, "
			    "was 5", fx.rname, olds[i],
			    (long long)st.st_mtime);
		}
		rfx_end(&fx);
	}
}

/*
 * A name whose walk made a directory and left it again: l/c/ with
 * l -> n/../x makes n, climbs back out of it, and makes c in x, a
 * directory that was in dest before.  x is c's parent, but not the
 * directory made at "l": it keeps its mode.  Before, the run took the
 * last two components of l/c for the two it made, climbed ".." from c
 * for their identities, and gave x the mode of a directory it made
 * (0700 to 0755, at once, no race needed).
 */
Test(root, a_walk_that_left_what_it_made_leaves_the_old_parent_alone)
{
	struct rfx fx;
	struct stat st;

	EACH_RESOLVER(ri) {
		rfx_begin(&fx, ri, false);
		cr_assert(mkdirat(fx.destfd, "x", 0700) == 0);
		cr_assert(fchmodat(fx.destfd, "x", 0700, 0) == 0);
		LINK_(&fx, "l", "n/../x");
		DIR_(&fx, "l/c/");
		cr_assert(rfx_run(&fx) == PFX_OK, "[%s] %s", fx.rname,
		    fx.res.message);
		cr_assert(fstatat(fx.destfd, "x", &st,
		    AT_SYMLINK_NOFOLLOW) == 0);
		cr_expect((st.st_mode & 07777) == 0700,
		    "[%s] x: mode %o, was 0700", fx.rname,
		    (unsigned)(st.st_mode & 07777));
		cr_assert(fstatat(fx.destfd, "x/c", &st,
		    AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode),
		    "[%s] x/c is made", fx.rname);
		rfx_end(&fx);
	}
}

/* --- a lookup through ".." while the system renames and mounts ------- */

/*
 * Until STOP, rename a file between DIRFD and DIRFD/o, and (where we may:
 * root) make and drop a mount: each bumps the kernel's global rename or
 * mount count, which a scoped openat2 lookup through ".." checks,
 * failing with EAGAIN when either moved.  TURNS counts the rounds.
 */
struct churn {
	int dirfd;
	atomic_int stop, turns;
};

static void *
churn_loop(void *arg)
{
	struct churn *c = arg;

	while (atomic_load(&c->stop) == 0) {
		(void)renameat(c->dirfd, "a", c->dirfd, "o/a");
		(void)renameat(c->dirfd, "o/a", c->dirfd, "a");
		(void)close((int)syscall(SYS_open_tree, c->dirfd, "",
		    1 /* OPEN_TREE_CLONE */ | AT_EMPTY_PATH | O_CLOEXEC));
		atomic_fetch_add(&c->turns, 1);
	}
	return NULL;
}

/*
 * A parent reached through a link of 800 "x/.." steps, resolved in the
 * root for half a second while another thread renames and mounts without
 * pause: openat2 gives up with EAGAIN after its retries, and the name
 * must still be made -- the walk answers then (platform/resolve.c).
 * Without it, an archive entry failed with an I/O error whenever the
 * machine was busy mounting (each confined run as root makes a few
 * mounts: a corpus run beside other runs failed so).
 */
Test(root, dotdot_lookup_while_the_system_churns, .timeout = 120)
{
	const char *tmp = getenv("TMPDIR");
	char top[PATH_MAX], target[4096];
	struct timespec t0, t;
	struct pfx_pending pend;
	struct pfx_root root;
	struct churn ch;
	pthread_t th;
	size_t n = 0;
	int topfd, fd, r, tries = 0, fails = 0, last = 0;

	snprintf(top, sizeof(top), "%s/pfx-dotdot.XXXXXX",
	    tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
	cr_assert(mkdtemp(top) != NULL);
	topfd = open(top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert(topfd >= 0);
	cr_assert(mkdirat(topfd, "dest", 0755) == 0 &&
	    mkdirat(topfd, "dest/x", 0755) == 0 &&
	    mkdirat(topfd, "dest/d", 0755) == 0 &&
	    mkdirat(topfd, "spin", 0755) == 0 &&
	    mkdirat(topfd, "spin/o", 0755) == 0);
	while (n + 5 + 2 < sizeof(target)) {
		memcpy(target + n, "x/../", 5);
		n += 5;
	}
	memcpy(target + n, "d", 2);
	cr_assert(symlinkat(target, topfd, "dest/l") == 0);
	fd = openat(topfd, "spin/a", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	cr_assert(fd >= 0 && close(fd) == 0);
	r = pfx_root_open(&root, topfd, "dest", PFX_RESOLVER_OPENAT2);
	if (r == -ENOSYS)
		cr_skip_test("no openat2 here");
	cr_assert_eq(r, 0, "root: %s", strerror(-r));
	pfx_root_in_root(&root);
	ch.dirfd = openat(topfd, "spin", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	atomic_init(&ch.stop, 0);
	atomic_init(&ch.turns, 0);
	cr_assert(pthread_create(&th, NULL, churn_loop, &ch) == 0);
	while (atomic_load(&ch.turns) < 100)
		(void)usleep(1000);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		r = pfx_root_begin(&root, "l/f", 0644, &pend);
		if (r == 0)
			pfx_root_abort(&pend);
		else {
			fails++;
			last = r;
		}
		tries++;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000000L +
	    (t.tv_nsec - t0.tv_nsec) < 500000000L);
	atomic_store(&ch.stop, 1);
	cr_assert(pthread_join(th, NULL) == 0);
	cr_expect_eq(fails, 0, "%d of %d failed, the last with %s", fails,
	    tries, strerror(-last));
	pfx_root_close(&root);
	(void)close(ch.dirfd);
	(void)tfx_rm_tree(top);
	(void)close(topfd);
}
