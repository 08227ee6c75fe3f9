/*
 * test_writer.c -- the push API (extract/writer.c): entries and data
 * given by the caller are judged and written as an archive's are, and
 * what the caller cannot be trusted with (names, sizes, order) is checked
 * as a decoder process's would be.  Every test looks at the real tree:
 * what DEST holds, and that nothing beside it changed.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "fixture.h"
#include "pfextract.h"

struct tree {
	char top[PATH_MAX];	/* holds dest and a sentinel beside it */
	char dest[PATH_MAX + 8];
	int topfd, destfd;
};

static void
tree_begin(struct tree *t)
{
	int fd;

	t->destfd = tfx_temp_dest("writer", t->top, sizeof(t->top));
	snprintf(t->dest, sizeof(t->dest), "%s/dest", t->top);
	t->topfd = open(t->top, O_RDONLY | O_DIRECTORY);
	cr_assert_geq(t->topfd, 0);
	fd = openat(t->topfd, "sentinel", O_WRONLY | O_CREAT | O_EXCL, 0644);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, "keep\n", 5), 5);
	(void)close(fd);
}

/* Nothing beside DEST changed: the sentinel as it was, and no name
 * added. */
static void
tree_end(struct tree *t)
{
	int fd = openat(t->topfd, "sentinel", O_RDONLY | O_NOFOLLOW);
	char buf[16] = "";
	char **names;
	ssize_t n;

	cr_expect_geq(fd, 0, "the sentinel beside dest is gone");
	if (fd >= 0) {
		cr_expect_eq(read(fd, buf, sizeof(buf) - 1), 5);
		cr_expect_str_eq(buf, "keep\n");
		(void)close(fd);
	}
	n = tfx_read_names(t->topfd, ".", &names);
	cr_expect_eq(n, 2, "a name was added beside dest");
	while (n > 0)
		free(names[--n]);
	free(names);
	(void)close(t->topfd);
	tfx_temp_end(&t->destfd, t->top);
}

/* Is dest/REL of mode type TYPE (S_IFREG...)? */
static bool
is_type(const struct tree *t, const char *rel, mode_t type)
{
	char path[PATH_MAX * 2];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", t->dest, rel);
	return lstat(path, &st) == 0 && (st.st_mode & S_IFMT) == type;
}

/* dest/REL's content, in BUF (CAP bytes); -1 when it cannot be read. */
static ssize_t
content(const struct tree *t, const char *rel, char *buf, size_t cap)
{
	char path[PATH_MAX * 2];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", t->dest, rel);
	fd = open(path, O_RDONLY | O_NOFOLLOW);
	if (fd < 0)
		return -1;
	n = read(fd, buf, cap - 1);
	(void)close(fd);
	if (n >= 0)
		buf[n] = '\0';
	return n;
}

/* The reports of a run: name and reason of each refused entry. */
struct seen {
	unsigned int extracted, refused, failed;
	char reasons[1024];
};

static void
on_report(void *arg, const struct pfx_entry *e)
{
	struct seen *s = arg;
	size_t n = strlen(s->reasons);

	if (e->status == PFX_ENTRY_EXTRACTED)
		s->extracted++;
	else if (e->status == PFX_ENTRY_REFUSED)
		s->refused++;
	else if (e->status == PFX_ENTRY_FAILED)
		s->failed++;
	if (e->status != PFX_ENTRY_EXTRACTED)
		snprintf(s->reasons + n, sizeof(s->reasons) - n, "%s:%s ",
		    e->name, e->reason);
}

static struct pfx_entry
entry(const char *name, enum pfx_entry_type type, int64_t size)
{
	struct pfx_entry e;

	memset(&e, 0, sizeof(e));
	e.name = name;
	e.type = type;
	e.mode = type == PFX_TYPE_DIR ? 0755 : 0644;
	e.size = size;
	e.mtime = 1700000000;
	return e;
}

static void
options(struct pfx_options *opt, struct seen *s)
{
	pfx_options_init(opt);
	memset(s, 0, sizeof(*s));
	opt->hooks.report = on_report;
	opt->hooks.arg = s;
}

/* A file NAME with DATA, given in pieces of 3 bytes. */
static void
put_file(struct pfx_writer *w, const char *name, const char *data)
{
	struct pfx_entry e = entry(name, PFX_TYPE_FILE,
	    (int64_t)strlen(data));
	size_t i, n = strlen(data);

	cr_assert_eq(pfx_writer_entry(w, &e), 0);
	for (i = 0; i < n; i += 3)
		cr_assert_eq(pfx_writer_data(w, data + i,
		    n - i < 3 ? n - i : 3), 0);
}

TestSuite(writer, .timeout = 60);

/* A tree given entry by entry comes out as given. */
Test(writer, tree)
{
	struct pfx_options opt;
	struct pfx_result res;
	struct pfx_writer *w;
	struct pfx_entry e;
	struct seen s;
	struct tree t;
	char buf[64];
	struct stat a, b;
	char pa[PATH_MAX * 2], pb[PATH_MAX * 2];

	tree_begin(&t);
	options(&opt, &s);
	opt.symlinks = PFX_SYMLINKS_CONTAIN;
	cr_assert_eq(pfx_writer_open(AT_FDCWD, t.dest, &opt, &w), 0);
	e = entry("pkg/", PFX_TYPE_DIR, 0);
	cr_assert_eq(pfx_writer_entry(w, &e), 0);
	put_file(w, "pkg/a.txt", "hello, world\n");
	e = entry("pkg/link", PFX_TYPE_SYMLINK, 0);
	e.link_target = "a.txt";
	cr_assert_eq(pfx_writer_entry(w, &e), 0);
	e = entry("pkg/hard", PFX_TYPE_HARDLINK, 0);
	e.link_target = "pkg/a.txt";
	cr_assert_eq(pfx_writer_entry(w, &e), 0);
	e = entry("pkg/empty", PFX_TYPE_FILE, 0);
	cr_assert_eq(pfx_writer_entry(w, &e), 0);
	cr_assert_eq(pfx_writer_finish(w, &res), PFX_OK, "%s", res.message);
	cr_expect_eq(s.extracted, 5, "%s", s.reasons);
	cr_expect(is_type(&t, "pkg", S_IFDIR));
	cr_expect_eq(content(&t, "pkg/a.txt", buf, sizeof(buf)), 13);
	cr_expect_str_eq(buf, "hello, world\n");
	cr_expect(is_type(&t, "pkg/link", S_IFLNK));
	cr_expect_eq(content(&t, "pkg/empty", buf, sizeof(buf)), 0);
	snprintf(pa, sizeof(pa), "%s/pkg/a.txt", t.dest);
	snprintf(pb, sizeof(pb), "%s/pkg/hard", t.dest);
	cr_assert_eq(stat(pa, &a), 0);
	cr_assert_eq(stat(pb, &b), 0);
	cr_expect(a.st_ino == b.st_ino, "pkg/hard is not a link of a.txt");
	cr_expect_eq(a.st_mtime, 1700000000);
	tree_end(&t);
}

/* Hostile names and links are judged as an archive's: refused, named,
 * and the good entries kept. */
Test(writer, hostile_names)
{
	static const char *bad[] = { "../evil", "/etc/evil", "a/../../evil" };
	struct pfx_options opt;
	struct pfx_result res;
	struct pfx_writer *w;
	struct pfx_entry e;
	struct seen s;
	struct tree t;
	char buf[64];
	size_t i;

	tree_begin(&t);
	options(&opt, &s);
	opt.symlinks = PFX_SYMLINKS_CONTAIN;
	cr_assert_eq(pfx_writer_open(AT_FDCWD, t.dest, &opt, &w), 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		put_file(w, bad[i], "pwned\n");
	e = entry("out", PFX_TYPE_SYMLINK, 0);
	e.link_target = "../sentinel";
	cr_assert_eq(pfx_writer_entry(w, &e), 0);
	e = entry("dev", PFX_TYPE_CHAR, 0);
	e.devmajor = 1;
	e.devminor = 3;
	cr_assert_eq(pfx_writer_entry(w, &e), 0);
	put_file(w, "good", "fine\n");
	cr_assert_eq(pfx_writer_finish(w, &res), PFX_REFUSED, "%s",
	    res.message);
	cr_expect_eq(s.refused, 5, "%s", s.reasons);
	cr_expect_eq(s.extracted, 1, "%s", s.reasons);
	cr_expect_eq(content(&t, "good", buf, sizeof(buf)), 5);
	cr_expect(!is_type(&t, "out", S_IFLNK));
	cr_expect(!is_type(&t, "dev", S_IFCHR));
	tree_end(&t);
}

/* More data than the entry said: the run stops, as for an archive
 * whose data runs past its header's size, and nothing of it is left. */
Test(writer, data_past_size)
{
	struct pfx_options opt;
	struct pfx_result res;
	struct pfx_writer *w;
	struct pfx_entry e;
	struct seen s;
	struct tree t;
	char buf[64];
	int r = 0, i;

	tree_begin(&t);
	options(&opt, &s);
	cr_assert_eq(pfx_writer_open(AT_FDCWD, t.dest, &opt, &w), 0);
	put_file(w, "first", "ok\n");
	e = entry("liar", PFX_TYPE_FILE, 4);
	cr_assert_eq(pfx_writer_entry(w, &e), 0);
	/* The run may stop before the caller learns it: EPIPE then. */
	for (i = 0; i < 64 && r == 0; i++)
		r = pfx_writer_data(w, "0123456789abcdef", 16);
	cr_expect(r == 0 || r == EPIPE, "%s", strerror(r));
	cr_assert_eq(pfx_writer_finish(w, &res), PFX_FATAL);
	cr_expect_eq(res.error, EIO, "error %d: %s", res.error,
	    res.message);
	cr_expect(strstr(res.message, "liar: archive data cannot be read: "
	    "the entry's data runs past its size") != NULL, "%s",
	    res.message);
	cr_expect_eq(content(&t, "first", buf, sizeof(buf)), 3);
	cr_expect_eq(content(&t, "liar", buf, sizeof(buf)), -1);
	tree_end(&t);
}

/* Less data than the entry said, then the next entry: a short file is
 * a read error, never a file cut short. */
Test(writer, data_short)
{
	struct pfx_options opt;
	struct pfx_result res;
	struct pfx_writer *w;
	struct pfx_entry e;
	struct seen s;
	struct tree t;
	char buf[64];

	tree_begin(&t);
	options(&opt, &s);
	cr_assert_eq(pfx_writer_open(AT_FDCWD, t.dest, &opt, &w), 0);
	e = entry("short", PFX_TYPE_FILE, 100);
	cr_assert_eq(pfx_writer_entry(w, &e), 0);
	cr_assert_eq(pfx_writer_data(w, "abc", 3), 0);
	put_file(w, "next", "n\n");
	cr_assert_eq(pfx_writer_finish(w, &res), PFX_FATAL);
	cr_expect_eq(content(&t, "short", buf, sizeof(buf)), -1);
	cr_expect_eq(content(&t, "next", buf, sizeof(buf)), -1);
	tree_end(&t);
}

/* The caller's reader fails half way: with PFX_OPT_ATOMIC nothing is
 * left in DEST, and the reason is the caller's. */
Test(writer, fail_atomic)
{
	struct pfx_options opt;
	struct pfx_result res;
	struct pfx_writer *w;
	struct seen s;
	struct tree t;
	char **list;
	ssize_t n;
	int destfd;

	tree_begin(&t);
	options(&opt, &s);
	opt.flags |= PFX_OPT_ATOMIC;
	cr_assert_eq(pfx_writer_open(AT_FDCWD, t.dest, &opt, &w), 0);
	put_file(w, "a", "one\n");
	put_file(w, "d/b", "two\n");
	cr_assert_eq(pfx_writer_fail(w, "bad cpio header at 4096"), 0);
	cr_assert_eq(pfx_writer_finish(w, &res), PFX_FATAL);
	cr_expect_eq(res.error, EIO, "%d: %s", res.error, res.message);
	cr_expect(strstr(res.message, "bad cpio header") != NULL, "%s",
	    res.message);
	destfd = open(t.dest, O_RDONLY | O_DIRECTORY);
	cr_assert_geq(destfd, 0);
	n = tfx_read_names(destfd, ".", &list);
	cr_expect_eq(n, 0, "dest is not empty");
	while (n > 0)
		free(list[--n]);
	free(list);
	(void)close(destfd);
	tree_end(&t);
}

/* Limits hold: a budget of bytes stops the run, and the caller's next
 * call says the run has stopped. */
Test(writer, limit_stops)
{
	static char block[65536];
	struct pfx_options opt;
	struct pfx_result res;
	struct pfx_writer *w;
	struct pfx_entry e;
	struct seen s;
	struct tree t;
	int r = 0, i;

	tree_begin(&t);
	options(&opt, &s);
	opt.limits.max_bytes = 100000;
	cr_assert_eq(pfx_writer_open(AT_FDCWD, t.dest, &opt, &w), 0);
	e = entry("big", PFX_TYPE_FILE, 64 << 20);
	cr_assert_eq(pfx_writer_entry(w, &e), 0);
	for (i = 0; i < 1024 && r == 0; i++)
		r = pfx_writer_data(w, block, sizeof(block));
	cr_expect_eq(r, EPIPE, "64 MiB given past a 100 kB limit: %s",
	    strerror(r));
	cr_assert_eq(pfx_writer_finish(w, &res), PFX_FATAL);
	cr_expect_eq(res.error, EFBIG, "%s", res.message);
	tree_end(&t);
}

/* What the writer cannot carry, or is not for, is refused at once. */
Test(writer, bad_arguments)
{
	struct pfx_options opt;
	struct pfx_result res;
	struct pfx_writer *w;
	struct pfx_entry e;
	struct tree t;

	tree_begin(&t);
	pfx_options_init(&opt);
	opt.flags |= PFX_OPT_SANDBOX;
	cr_expect_eq(pfx_writer_open(AT_FDCWD, t.dest, &opt, &w), EINVAL);
	cr_expect_eq(pfx_writer_open(AT_FDCWD, NULL, NULL, &w), EINVAL);
	cr_assert_eq(pfx_writer_open(AT_FDCWD, t.dest, NULL, &w), 0);
	cr_expect_eq(pfx_writer_data(w, "x", 1), EINVAL,
	    "data before any entry");
	e = entry("f", PFX_TYPE_FILE, 1);
	e.mtime_nsec = 1000000000;
	cr_expect_eq(pfx_writer_entry(w, &e), EINVAL);
	e = entry("l", PFX_TYPE_SYMLINK, 0);
	cr_expect_eq(pfx_writer_entry(w, &e), EINVAL, "a link without "
	    "a target");
	e = entry("c", PFX_TYPE_CHAR, 0);
	e.devmajor = (int64_t)1 << 40;
	cr_expect_eq(pfx_writer_entry(w, &e), EINVAL);
	cr_expect_eq(pfx_writer_finish(w, &res), PFX_OK, "%s", res.message);
	tree_end(&t);
}

/* What the symlink report carried. */
struct link_seen {
	char uname[32];
	int64_t uid, mtime;
	long nsec;
	bool seen;
};

static void
on_link_report(void *arg, const struct pfx_entry *e)
{
	struct link_seen *l = arg;

	if (e->type != PFX_TYPE_SYMLINK)
		return;
	l->seen = true;
	snprintf(l->uname, sizeof(l->uname), "%s",
	    e->uname != NULL ? e->uname : "(null)");
	l->uid = e->uid;
	l->mtime = e->mtime;
	l->nsec = e->mtime_nsec;
}

/* A symlink is made, and reported, at the end of the run; its report
 * still carries what the archive said of it (tar -xvv lists it). */
Test(writer, symlink_report_metadata)
{
	struct pfx_options opt;
	struct pfx_result res;
	struct pfx_writer *w;
	struct pfx_entry e;
	struct link_seen l;
	struct tree t;

	tree_begin(&t);
	memset(&l, 0, sizeof(l));
	pfx_options_init(&opt);
	opt.symlinks = PFX_SYMLINKS_CONTAIN;
	opt.hooks.report = on_link_report;
	opt.hooks.arg = &l;
	cr_assert_eq(pfx_writer_open(AT_FDCWD, t.dest, &opt, &w), 0);
	put_file(w, "a", "x\n");
	e = entry("sl", PFX_TYPE_SYMLINK, 0);
	e.link_target = "a";
	e.uname = "alice";
	e.uid = 1000;
	e.mtime = 1600000000;
	e.mtime_nsec = 123;
	cr_assert_eq(pfx_writer_entry(w, &e), 0);
	cr_assert_eq(pfx_writer_finish(w, &res), PFX_OK, "%s", res.message);
	cr_assert(l.seen);
	cr_expect_str_eq(l.uname, "alice");
	cr_expect_eq(l.uid, 1000);
	cr_expect_eq(l.mtime, 1600000000);
	cr_expect_eq(l.nsec, 123);
	tree_end(&t);
}

/* dest/REL's xattr NAME, in BUF (CAP bytes, terminated); -1 when it has
 * none. */
static ssize_t
xattr_of(const struct tree *t, const char *rel, const char *name, char *buf,
    size_t cap)
{
	char path[PATH_MAX * 2];
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%s", t->dest, rel);
	n = lgetxattr(path, name, buf, cap - 1);
	if (n >= 0)
		buf[n] = '\0';
	return n;
}

/* One file with XATTRS (N of them), given to a run with OPT's flags. */
static enum pfx_status
put_with_xattrs(struct tree *t, unsigned int flags,
    const struct pfx_xattr *xattrs, size_t n, struct pfx_result *res)
{
	struct pfx_writer_extra x = { sizeof(x), xattrs, n, 0 };
	struct pfx_options opt;
	struct pfx_writer *w;
	struct pfx_entry e = entry("x.txt", PFX_TYPE_FILE, 3);
	struct seen s;

	options(&opt, &s);
	opt.flags |= flags;
	cr_assert_eq(pfx_writer_open(AT_FDCWD, t->dest, &opt, &w), 0);
	cr_assert_eq(pfx_writer_entry_ext(w, &e, &x), 0);
	cr_assert_eq(pfx_writer_data(w, "hi\n", 3), 0);
	return pfx_writer_finish(w, res);
}

/* An entry's xattrs are set on the file with PFX_OPT_XATTRS, as an
 * archive's are: never trusted.* or security.*, and none without it. */
Test(writer, xattrs)
{
	static const struct pfx_xattr xa[] = {
		{ "user.pfx", "hello", 5 },
		{ "user.empty", NULL, 0 },
		{ "trusted.evil", "x", 1 },
		{ "security.capability", "\x01\x00\x00\x02", 4 },
	};
	struct pfx_result res;
	struct tree t;
	char buf[64];

	tree_begin(&t);
	cr_assert_eq(put_with_xattrs(&t, PFX_OPT_XATTRS, xa, 4, &res), PFX_OK,
	    "%s", res.message);
	cr_expect_eq(xattr_of(&t, "x.txt", "user.pfx", buf, sizeof(buf)), 5,
	    "user.pfx: %s", strerror(errno));
	cr_expect_str_eq(buf, "hello");
	cr_expect_eq(xattr_of(&t, "x.txt", "user.empty", buf, sizeof(buf)), 0);
	cr_expect_eq(xattr_of(&t, "x.txt", "trusted.evil", buf, sizeof(buf)),
	    -1, "trusted.* was set");
	cr_expect_eq(xattr_of(&t, "x.txt", "security.capability", buf,
	    sizeof(buf)), -1, "security.* was set");
	tree_end(&t);

	tree_begin(&t);
	cr_assert_eq(put_with_xattrs(&t, 0, xa, 4, &res), PFX_OK, "%s",
	    res.message);
	cr_expect_eq(content(&t, "x.txt", buf, sizeof(buf)), 3);
	cr_expect_eq(xattr_of(&t, "x.txt", "user.pfx", buf, sizeof(buf)), -1,
	    "an xattr was set without PFX_OPT_XATTRS");
	tree_end(&t);
}

/* Xattrs the protocol cannot carry, or that break its rules, are the
 * caller's error, told at once: nothing is sent, and the run goes on. */
Test(writer, xattrs_refused)
{
	struct pfx_xattr xa[2] = { { "user.a", "v", 1 }, { "", "v", 1 } };
	struct pfx_writer_extra x = { sizeof(x), xa, 2, 0 };
	struct pfx_options opt;
	struct pfx_result res;
	struct pfx_writer *w;
	struct pfx_entry e = entry("f", PFX_TYPE_FILE, 0);
	struct seen s;
	struct tree t;
	char *big, buf[8];

	tree_begin(&t);
	options(&opt, &s);
	cr_assert_eq(pfx_writer_open(AT_FDCWD, t.dest, &opt, &w), 0);
	/* An empty name; a value of bytes with none given. */
	cr_expect_eq(pfx_writer_entry_ext(w, &e, &x), EINVAL);
	xa[1].name = "user.b";
	xa[1].value = NULL;
	cr_expect_eq(pfx_writer_entry_ext(w, &e, &x), EINVAL);
	x.xattrs = NULL;
	cr_expect_eq(pfx_writer_entry_ext(w, &e, &x), EINVAL);
	/* A header of more than a message. */
	big = malloc(5u << 20);
	cr_assert_not_null(big);
	memset(big, 'v', 5u << 20);
	xa[1].value = big;
	xa[1].size = 5u << 20;
	x.xattrs = xa;
	cr_expect_eq(pfx_writer_entry_ext(w, &e, &x), E2BIG);
	x.nxattrs = SIZE_MAX / 2;
	cr_expect_eq(pfx_writer_entry_ext(w, &e, &x), E2BIG);
	free(big);
	/* An extra of another size, an unknown flag. */
	x.nxattrs = 1;
	x.size = sizeof(x) - 1;
	cr_expect_eq(pfx_writer_entry_ext(w, &e, &x), EINVAL);
	x.size = sizeof(x);
	x.flags = 0x80;
	cr_expect_eq(pfx_writer_entry_ext(w, &e, &x), EINVAL);
	x.flags = 0;
	cr_expect_eq(pfx_writer_entry_ext(w, &e, &x), 0);
	cr_assert_eq(pfx_writer_finish(w, &res), PFX_OK, "%s", res.message);
	cr_expect_eq(content(&t, "f", buf, sizeof(buf)), 0);
	tree_end(&t);
}

/* A sparse file: its data at offsets, the gaps and its end holes on
 * disk, read back as zeros. */
Test(writer, sparse)
{
	const int64_t mib = 1 << 20, size = 8 * mib + 5;
	struct pfx_writer_extra x = { sizeof(x), NULL, 0, PFX_WRITER_SPARSE };
	struct pfx_options opt;
	struct pfx_result res;
	struct pfx_writer *w;
	struct pfx_entry e = entry("sparse", PFX_TYPE_FILE, size);
	struct seen s;
	struct tree t;
	char path[PATH_MAX * 2], buf[8];
	struct stat st;
	int fd;

	tree_begin(&t);
	options(&opt, &s);
	cr_assert_eq(pfx_writer_open(AT_FDCWD, t.dest, &opt, &w), 0);
	cr_assert_eq(pfx_writer_entry_ext(w, &e, &x), 0);
	cr_assert_eq(pfx_writer_data_at(w, 0, "head", 4), 0);
	cr_assert_eq(pfx_writer_data_at(w, 4 * mib, "mid", 3), 0);
	cr_assert_eq(pfx_writer_data(w, "dle", 3), 0);
	put_file(w, "after", "a\n");
	cr_assert_eq(pfx_writer_finish(w, &res), PFX_OK, "%s", res.message);
	cr_expect_eq(s.extracted, 2, "%s", s.reasons);
	snprintf(path, sizeof(path), "%s/sparse", t.dest);
	cr_assert_eq(stat(path, &st), 0);
	cr_expect_eq(st.st_size, size);
	/* Two pages of data at most, not 8 MiB of zeros. */
	cr_expect_lt((int64_t)st.st_blocks * 512, 256 * 1024,
	    "%lld bytes allocated: the holes were written",
	    (long long)st.st_blocks * 512);
	fd = open(path, O_RDONLY);
	cr_assert_geq(fd, 0);
	cr_expect_eq(pread(fd, buf, 4, 0), 4);
	cr_expect_eq(memcmp(buf, "head", 4), 0);
	cr_expect_eq(pread(fd, buf, 6, 4 * mib), 6);
	cr_expect_eq(memcmp(buf, "middle", 6), 0);
	cr_expect_eq(pread(fd, buf, 4, 2 * mib), 4);
	cr_expect_eq(memcmp(buf, "\0\0\0\0", 4), 0);
	cr_expect_eq(pread(fd, buf, 8, size - 5), 5);
	cr_expect_eq(memcmp(buf, "\0\0\0\0\0", 5), 0);
	(void)close(fd);
	tree_end(&t);
}

/* One sparse entry of MAP (blocks at offsets, N of them) and apparent
 * size SIZE: the run must stop, fatal, with ERROR and WHY in its
 * message, and leave nothing of it. */
static void
sparse_refused(int64_t size, const int64_t *map, size_t n, int error,
    const char *why)
{
	struct pfx_writer_extra x = { sizeof(x), NULL, 0, PFX_WRITER_SPARSE };
	struct pfx_options opt;
	struct pfx_result res;
	struct pfx_writer *w;
	struct pfx_entry e = entry("bomb", PFX_TYPE_FILE, size);
	struct seen s;
	struct tree t;
	char buf[8];
	size_t i;
	int r = 0;

	tree_begin(&t);
	options(&opt, &s);
	cr_assert_eq(pfx_writer_open(AT_FDCWD, t.dest, &opt, &w), 0);
	cr_assert_eq(pfx_writer_entry_ext(w, &e, &x), 0);
	for (i = 0; i < n && r == 0; i++)
		r = pfx_writer_data_at(w, map[i], "abcd", 4);
	/* The run may stop before the caller learns it: EPIPE then. */
	cr_expect(r == 0 || r == EPIPE, "%s", strerror(r));
	cr_assert_eq(pfx_writer_finish(w, &res), PFX_FATAL, "%s",
	    res.message);
	cr_expect_eq(res.error, error, "error %d: %s", res.error,
	    res.message);
	cr_expect(strstr(res.message, why) != NULL, "%s", res.message);
	cr_expect_eq(content(&t, "bomb", buf, sizeof(buf)), -1);
	tree_end(&t);
}

/* A hostile sparse map is refused as a decoder's would be: a hole that
 * makes the file a bomb (the limits count holes as bytes), blocks that
 * go back over each other, a block past the apparent size. */
Test(writer, sparse_hostile)
{
	static const int64_t tail[] = { 0 };
	static const int64_t back[] = { 0, 4096, 100 };
	static const int64_t past[] = { 0, 1000 };
	static const int64_t far[] = { 0, (int64_t)1 << 40 };

	/* 4 bytes given, 1 TiB of holes: the ratio limit's bomb. */
	sparse_refused((int64_t)1 << 40, tail, 1, EFBIG, "limit max-");
	sparse_refused(((int64_t)1 << 40) + 4, far, 2, EFBIG, "limit max-");
	sparse_refused(8192, back, 3, EPROTO,
	    "a data block before the previous one");
	sparse_refused(1002, past, 2, EIO, "runs past its size");
}

/* What the protocol cannot carry is the caller's error at once. */
Test(writer, sparse_arguments)
{
	struct pfx_writer_extra x = { sizeof(x), NULL, 0, PFX_WRITER_SPARSE };
	struct pfx_options opt;
	struct pfx_result res;
	struct pfx_writer *w;
	struct pfx_entry d = entry("d/", PFX_TYPE_DIR, 0);
	struct pfx_entry f = entry("f", PFX_TYPE_FILE, 10);
	struct seen s;
	struct tree t;

	tree_begin(&t);
	options(&opt, &s);
	cr_assert_eq(pfx_writer_open(AT_FDCWD, t.dest, &opt, &w), 0);
	cr_expect_eq(pfx_writer_data_at(w, 0, "a", 1), EINVAL,
	    "data before any entry");
	cr_expect_eq(pfx_writer_entry_ext(w, &d, &x), EINVAL,
	    "a sparse directory");
	cr_assert_eq(pfx_writer_entry_ext(w, &f, &x), 0);
	cr_expect_eq(pfx_writer_data_at(w, -1, "a", 1), EINVAL);
	cr_expect_eq(pfx_writer_data_at(w, INT64_MAX, "ab", 2), EINVAL);
	cr_expect_eq(pfx_writer_data_at(w, 0, NULL, 1), EINVAL);
	cr_expect_eq(pfx_writer_data_at(w, 9, "z", 1), 0);
	cr_assert_eq(pfx_writer_finish(w, &res), PFX_OK, "%s", res.message);
	tree_end(&t);
}
