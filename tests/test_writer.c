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
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
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
 * a read error, never a file cut short; the caller learns it at the next
 * entry (EPIPE). */
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
	e = entry("next", PFX_TYPE_FILE, 0);
	cr_expect_eq(pfx_writer_entry(w, &e), EPIPE);
	cr_assert_eq(pfx_writer_finish(w, &res), PFX_FATAL);
	cr_expect_eq(res.error, EIO, "%s", res.message);
	cr_expect(strstr(res.message, "short: archive data cannot be read: "
	    "the entry's data ends short of its size (3 of 100 bytes)") !=
	    NULL, "%s", res.message);
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
	/* No DEST: a listing only, as pfx_extract() takes it. */
	opt.flags = PFX_OPT_LIST;
	cr_expect_eq(pfx_writer_open(AT_FDCWD, NULL, &opt, &w), 0);
	e = entry("f", PFX_TYPE_FILE, 1);
	cr_expect_eq(pfx_writer_entry(w, &e), 0);
	cr_expect_eq(pfx_writer_data(w, "x", 1), 0);
	cr_expect_eq(pfx_writer_finish(w, &res), PFX_OK, "%s", res.message);
	cr_expect_eq(res.stats.entries, 1);
	opt.flags = 0;
	cr_expect_eq(pfx_writer_open(AT_FDCWD, NULL, &opt, &w), EINVAL);
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

/* An entry's extended attributes are set with PFX_OPT_XATTRS, and only
 * then. */
static void
xattrs_with(unsigned int flags, bool set)
{
	static const struct pfx_xattr xs[] = {
		{ "user.mime_type", "text/plain", 10 },
		{ "user.empty", NULL, 0 },
	};
	struct pfx_options opt;
	struct pfx_result res;
	struct pfx_writer *w;
	struct pfx_entry e;
	struct seen s;
	struct tree t;
	char path[PATH_MAX * 2], buf[32];
	ssize_t n;

	tree_begin(&t);
	options(&opt, &s);
	opt.flags |= flags;
	cr_assert_eq(pfx_writer_open(AT_FDCWD, t.dest, &opt, &w), 0);
	e = entry("f", PFX_TYPE_FILE, 2);
	cr_assert_eq(pfx_writer_entry_ext(w, &e, xs, 2, 0), 0);
	cr_assert_eq(pfx_writer_data(w, "hi", 2), 0);
	cr_assert_eq(pfx_writer_finish(w, &res), PFX_OK, "%s", res.message);
	snprintf(path, sizeof(path), "%s/f", t.dest);
	n = getxattr(path, "user.mime_type", buf, sizeof(buf));
	if (set) {
		cr_assert_eq(n, 10, "user.mime_type: %s", strerror(errno));
		cr_expect_eq(memcmp(buf, "text/plain", 10), 0);
		cr_expect_eq(getxattr(path, "user.empty", buf, sizeof(buf)), 0);
	} else {
		cr_expect_eq(n, -1, "set without PFX_OPT_XATTRS");
	}
	tree_end(&t);
}

Test(writer, xattrs_set)
{
	xattrs_with(PFX_OPT_XATTRS, true);
}

Test(writer, xattrs_not_without_the_flag)
{
	xattrs_with(0, false);
}

/* Attributes that cannot be one message, or are malformed, are the
 * caller's error: nothing is sent. */
Test(writer, xattrs_bad)
{
	static char big[5 << 20];
	struct pfx_xattr x = { "user.big", big, sizeof(big) };
	struct pfx_xattr bad = { "", "v", 1 };
	struct pfx_options opt;
	struct pfx_result res;
	struct pfx_writer *w;
	struct pfx_entry e;
	struct seen s;
	struct tree t;

	tree_begin(&t);
	options(&opt, &s);
	opt.flags |= PFX_OPT_XATTRS;
	cr_assert_eq(pfx_writer_open(AT_FDCWD, t.dest, &opt, &w), 0);
	e = entry("f", PFX_TYPE_FILE, 0);
	cr_expect_eq(pfx_writer_entry_ext(w, &e, &x, 1, 0), E2BIG);
	cr_expect_eq(pfx_writer_entry_ext(w, &e, &bad, 1, 0), EINVAL);
	cr_expect_eq(pfx_writer_entry_ext(w, &e, NULL, 1, 0), EINVAL);
	cr_expect_eq(pfx_writer_entry_ext(w, &e, NULL, 0, 0x80), EINVAL);
	cr_assert_eq(pfx_writer_finish(w, &res), PFX_OK, "%s", res.message);
	cr_expect_eq(s.extracted, 0);
	tree_end(&t);
}

/* A sparse file: its holes are holes, its data where it was given. */
Test(writer, sparse_holes)
{
	struct pfx_options opt;
	struct pfx_result res;
	struct pfx_writer *w;
	struct pfx_entry e;
	struct seen s;
	struct tree t;
	struct stat st;
	char path[PATH_MAX * 2], c;
	int fd;

	tree_begin(&t);
	options(&opt, &s);
	cr_assert_eq(pfx_writer_open(AT_FDCWD, t.dest, &opt, &w), 0);
	e = entry("sparse", PFX_TYPE_FILE, 8 << 20);
	cr_assert_eq(pfx_writer_entry_ext(w, &e, NULL, 0, PFX_WRITER_SPARSE),
	    0);
	cr_assert_eq(pfx_writer_data_at(w, 0, "A", 1), 0);
	cr_assert_eq(pfx_writer_data_at(w, 4 << 20, "B", 1), 0);
	cr_expect_eq(pfx_writer_data_at(w, 1, "C", 1), EINVAL,
	    "a block before the last one's end");
	cr_assert_eq(pfx_writer_data(w, "C", 1), 0);	/* at 4 MiB + 1 */
	/* A plain file's data cannot skip. */
	e = entry("plain", PFX_TYPE_FILE, 4);
	cr_assert_eq(pfx_writer_entry(w, &e), 0);
	cr_expect_eq(pfx_writer_data_at(w, 2, "xy", 2), EINVAL);
	cr_assert_eq(pfx_writer_data(w, "abcd", 4), 0);
	cr_assert_eq(pfx_writer_finish(w, &res), PFX_OK, "%s", res.message);
	cr_expect_eq(s.extracted, 2, "%s", s.reasons);
	snprintf(path, sizeof(path), "%s/sparse", t.dest);
	cr_assert_eq(stat(path, &st), 0);
	cr_expect_eq(st.st_size, 8 << 20, "the trailing hole is kept");
	cr_expect_lt(st.st_blocks * 512, 1 << 20, "holes were written: %lld "
	    "blocks", (long long)st.st_blocks);
	fd = open(path, O_RDONLY);
	cr_assert_geq(fd, 0);
	cr_expect(pread(fd, &c, 1, 0) == 1 && c == 'A');
	cr_expect(pread(fd, &c, 1, 4 << 20) == 1 && c == 'B');
	cr_expect(pread(fd, &c, 1, (4 << 20) + 1) == 1 && c == 'C');
	cr_expect(pread(fd, &c, 1, 2 << 20) == 1 && c == '\0');
	(void)close(fd);
	tree_end(&t);
}

/* A sparse file's holes count against the ratio as the bytes they stand
 * for: a tiny push of a huge apparent size stops the run, and no file of
 * that size is left. */
Test(writer, sparse_bomb_stopped)
{
	struct pfx_options opt;
	struct pfx_result res;
	struct pfx_writer *w;
	struct pfx_entry e;
	struct seen s;
	struct tree t;
	char path[PATH_MAX * 2];
	struct stat st;

	tree_begin(&t);
	options(&opt, &s);
	cr_assert_eq(pfx_writer_open(AT_FDCWD, t.dest, &opt, &w), 0);
	e = entry("bomb", PFX_TYPE_FILE, (int64_t)1 << 40);
	cr_assert_eq(pfx_writer_entry_ext(w, &e, NULL, 0, PFX_WRITER_SPARSE),
	    0);
	(void)pfx_writer_data_at(w, ((int64_t)1 << 40) - 1, "x", 1);
	cr_assert_eq(pfx_writer_finish(w, &res), PFX_FATAL);
	cr_expect_eq(res.error, EFBIG, "%s", res.message);
	snprintf(path, sizeof(path), "%s/bomb", t.dest);
	cr_expect_neq(stat(path, &st), 0, "the bomb has its name");
	tree_end(&t);
}

/* A writer into a new tree T, with OPT as options() makes it (S seen). */
static struct pfx_writer *
writer_in(struct tree *t, struct pfx_options *opt, struct seen *s)
{
	struct pfx_writer *w;

	tree_begin(t);
	options(opt, s);
	cr_assert_eq(pfx_writer_open(AT_FDCWD, t->dest, opt, &w), 0);
	return w;
}

/* A size below -1 is a reader's error, refused: taken as "unknown", it
 * would spare the data the size's check. */
Test(writer, size_below_minus_one)
{
	struct pfx_options opt;
	struct pfx_result res;
	struct pfx_writer *w;
	struct pfx_entry e;
	struct seen s;
	struct tree t;
	char buf[16];

	w = writer_in(&t, &opt, &s);
	e = entry("neg", PFX_TYPE_FILE, -2);
	cr_expect_eq(pfx_writer_entry(w, &e), EINVAL);
	e = entry("neg", PFX_TYPE_FILE, INT64_MIN);
	cr_expect_eq(pfx_writer_entry(w, &e), EINVAL);
	cr_expect_eq(pfx_writer_data(w, "abc", 3), EINVAL, "no entry begun");
	e = entry("unknown", PFX_TYPE_FILE, -1);
	cr_assert_eq(pfx_writer_entry(w, &e), 0);
	cr_assert_eq(pfx_writer_data(w, "abc", 3), 0);
	cr_assert_eq(pfx_writer_finish(w, &res), PFX_OK, "%s", res.message);
	cr_expect_eq(s.extracted, 1, "%s", s.reasons);
	cr_expect_eq(content(&t, "unknown", buf, sizeof(buf)), 3);
	cr_expect(!is_type(&t, "neg", S_IFREG));
	tree_end(&t);
}

/* Data that would end past INT64_MAX is refused at once, before the
 * writer's count of it overflows; the entry goes on. */
Test(writer, data_offset_overflow)
{
	struct pfx_options opt;
	struct pfx_result res;
	struct pfx_writer *w;
	struct pfx_entry e;
	struct seen s;
	struct tree t;
	char buf[16];

	w = writer_in(&t, &opt, &s);
	e = entry("sp", PFX_TYPE_FILE, 4);
	cr_assert_eq(pfx_writer_entry_ext(w, &e, NULL, 0, PFX_WRITER_SPARSE),
	    0);
	cr_expect_eq(pfx_writer_data_at(w, INT64_MAX, "x", 1), EINVAL);
	cr_expect_eq(pfx_writer_data_at(w, INT64_MAX - 1, "xy", 2), EINVAL);
	cr_assert_eq(pfx_writer_data_at(w, 1, "b", 1), 0);
	cr_assert_eq(pfx_writer_data(w, "cd", 2), 0);
	cr_assert_eq(pfx_writer_finish(w, &res), PFX_OK, "%s", res.message);
	cr_expect_eq(content(&t, "sp", buf, sizeof(buf)), 4);
	cr_expect_eq(memcmp(buf, "\0bcd", 4), 0);
	tree_end(&t);
}

/* What the caller gives is the input, its headers as much as its data:
 * many entries without data are no bomb to the ratio limit. */
Test(writer, headers_count_as_read)
{
	struct pfx_options opt;
	struct pfx_result res;
	struct pfx_writer *w;
	struct pfx_entry e;
	struct seen s;
	struct tree t;
	char name[64];
	int i, r = 0;

	tree_begin(&t);
	options(&opt, &s);
	opt.flags |= PFX_OPT_LIST;
	opt.limits.ratio_after = 1 << 20;
	cr_assert_eq(pfx_writer_open(AT_FDCWD, t.dest, &opt, &w), 0);
	/* About 3 MiB of headers, no byte of data. */
	for (i = 0; i < 20000 && r == 0; i++) {
		snprintf(name, sizeof(name), "pkg/d%03d/empty-%06d", i % 100,
		    i);
		e = entry(name, PFX_TYPE_FILE, 0);
		r = pfx_writer_entry(w, &e);
	}
	cr_expect_eq(r, 0, "entry %d: %s", i, strerror(r));
	cr_assert_eq(pfx_writer_finish(w, &res), PFX_OK, "%s", res.message);
	cr_expect_eq(res.stats.entries, 20000);
	tree_end(&t);
}

/*
 * A process the caller forked (a helper, not exec'd) holds copies of the
 * writer's socket: a run that stopped still fails the caller's next call
 * at once, EPIPE, and does not leave it waiting for that process.
 */
Test(writer, stop_seen_past_a_fork)
{
	static char block[65536];
	struct pfx_options opt;
	struct pfx_result res;
	struct pfx_writer *w;
	struct pfx_entry e;
	struct timespec t0, t1;
	struct seen s;
	struct tree t;
	int r = 0, i, status;
	pid_t pid;

	tree_begin(&t);
	options(&opt, &s);
	opt.limits.max_bytes = 100000;
	cr_assert_eq(pfx_writer_open(AT_FDCWD, t.dest, &opt, &w), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		sleep(60);
		_exit(0);
	}
	(void)clock_gettime(CLOCK_MONOTONIC, &t0);
	e = entry("big", PFX_TYPE_FILE, 64 << 20);
	r = pfx_writer_entry(w, &e);
	for (i = 0; i < 1024 && r == 0; i++)
		r = pfx_writer_data(w, block, sizeof(block));
	(void)clock_gettime(CLOCK_MONOTONIC, &t1);
	(void)kill(pid, SIGKILL);
	(void)waitpid(pid, &status, 0);
	cr_expect_eq(r, EPIPE, "%s", strerror(r));
	cr_expect_lt(t1.tv_sec - t0.tv_sec, 30, "the stop was seen only when "
	    "the forked process ended (%ld s)", (long)(t1.tv_sec - t0.tv_sec));
	cr_assert_eq(pfx_writer_finish(w, &res), PFX_FATAL);
	cr_expect_eq(res.error, EFBIG, "%s", res.message);
	tree_end(&t);
}

/* What a hook that calls the writer back got. */
struct reentry {
	struct pfx_writer *w;
	unsigned char *block;	/* more than a socket buffer holds */
	size_t len;
	int calls, data, fail;
	enum pfx_status finish;
	struct pfx_result res;
};

static int
decide_reenters(void *arg, const struct pfx_entry *e, char *rename,
    size_t cap)
{
	struct reentry *r = arg;

	(void)e;
	(void)rename;
	(void)cap;
	if (r->calls++ > 0)
		return PFX_HOOK_CONTINUE;
	/* The run's own thread is in this hook: nothing reads what these
	 * would send, and the caller's thread may be in a call on W. */
	r->data = pfx_writer_data(r->w, r->block, r->len);
	r->fail = pfx_writer_fail(r->w, "from a hook");
	r->finish = pfx_writer_finish(r->w, &r->res);
	return PFX_HOOK_CONTINUE;
}

/*
 * A hook that calls its own writer back (to push more, to fail it, to
 * finish it) is refused, EDEADLK: nothing on the run's own thread reads
 * what it would send, so a push past the socket's buffer waited for
 * ever, and pfx_writer_finish() freed the writer under the run still
 * using it.  The run goes on, and the caller's own calls work.
 */
Test(writer, hook_calls_back, .timeout = 20)
{
	struct pfx_options opt;
	struct pfx_result res;
	struct reentry r;
	struct pfx_entry e;
	struct seen s;
	struct tree t;
	char buf[16];

	tree_begin(&t);
	options(&opt, &s);
	memset(&r, 0, sizeof(r));
	r.len = 4u << 20;
	r.block = calloc(1, r.len);
	cr_assert_not_null(r.block);
	opt.hooks.decide = decide_reenters;
	opt.hooks.arg = &r;
	cr_assert_eq(pfx_writer_open(AT_FDCWD, t.dest, &opt, &r.w), 0);
	e = entry("a", PFX_TYPE_FILE, 3);
	cr_assert_eq(pfx_writer_entry(r.w, &e), 0);
	cr_assert_eq(pfx_writer_data(r.w, "abc", 3), 0);
	cr_assert_eq(pfx_writer_finish(r.w, &res), PFX_OK, "%s", res.message);
	cr_expect_eq(r.calls, 1);
	cr_expect_eq(r.data, EDEADLK, "%s", strerror(r.data));
	cr_expect_eq(r.fail, EDEADLK, "%s", strerror(r.fail));
	cr_expect_eq(r.finish, PFX_FATAL);
	cr_expect_eq(r.res.error, EDEADLK, "%s", r.res.message);
	cr_expect_eq(content(&t, "a", buf, sizeof(buf)), 3);
	free(r.block);
	tree_end(&t);
}

/*
 * The entry's size is held to whatever becomes of the entry: data past
 * it, or short of it, fails the run (EIO) for an entry listed, excluded,
 * refused or vetoed as for one written -- the caller's reader lost its
 * place in its archive, and what it gives next is not what it thinks.
 */
static void
size_held(unsigned int flags, const char *name, size_t given)
{
	static const char *const exclude[] = { "excluded" };
	struct pfx_options opt;
	struct pfx_result res;
	struct pfx_writer *w;
	struct pfx_entry e;
	struct seen s;
	struct tree t;
	int r;

	tree_begin(&t);
	options(&opt, &s);
	opt.flags |= flags;
	opt.exclude = exclude;
	opt.nexclude = 1;
	cr_assert_eq(pfx_writer_open(AT_FDCWD, t.dest, &opt, &w), 0);
	e = entry(name, PFX_TYPE_FILE, 5);
	cr_assert_eq(pfx_writer_entry(w, &e), 0);
	r = pfx_writer_data(w, "0123456789", given);
	cr_expect(r == 0 || r == EPIPE, "%s", strerror(r));
	e = entry("next", PFX_TYPE_FILE, 0);
	r = pfx_writer_entry(w, &e);
	cr_expect(r == 0 || r == EPIPE, "%s", strerror(r));
	cr_expect_eq(pfx_writer_finish(w, &res), PFX_FATAL,
	    "%s with %zu bytes of 5 (flags %#x): %s", name, given, flags,
	    res.message);
	cr_expect_eq(res.error, EIO, "%s", res.message);
	cr_expect_eq(content(&t, "next", (char[8]){ 0 }, 8), -1);
	tree_end(&t);
}

Test(writer, size_held_listed)
{
	size_held(PFX_OPT_LIST, "listed", 2);
	size_held(PFX_OPT_LIST, "listed", 9);
}

Test(writer, size_held_excluded)
{
	size_held(0, "excluded", 2);
	size_held(0, "excluded", 9);
}

Test(writer, size_held_refused)
{
	size_held(0, "../up", 2);
	size_held(0, "../up", 9);
	size_held(PFX_OPT_ATOMIC, "../up", 9);
}

/*
 * DIRFD is the caller's to close once pfx_writer_open() returned: the
 * run, which opens DEST later on its own thread, uses a copy.  With the
 * number kept, a directory the caller opened meanwhile took it, and the
 * entries were made beneath that directory -- here, beside DEST.
 */
Test(writer, dirfd_closed_after_open)
{
	struct pfx_options opt;
	struct pfx_result res;
	struct pfx_writer *w;
	struct seen s;
	struct tree t;
	char buf[16];
	int dfd, other;

	tree_begin(&t);
	options(&opt, &s);
	dfd = open(t.dest, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(dfd, 0);
	cr_assert_eq(pfx_writer_open(dfd, ".", &opt, &w), 0);
	cr_assert_eq(close(dfd), 0);
	/* The caller goes on: the lowest number free is the one closed. */
	other = open(t.top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(other, 0);
	put_file(w, "f", "hi\n");
	cr_assert_eq(pfx_writer_finish(w, &res), PFX_OK, "%s", res.message);
	(void)close(other);
	cr_expect_eq(content(&t, "f", buf, sizeof(buf)), 3, "the file is not "
	    "in DEST");
	tree_end(&t);
}

static int
decide_slowly(void *arg, const struct pfx_entry *e, char *rename,
    size_t cap)
{
	(void)arg;
	(void)rename;
	(void)cap;
	if (strcmp(e->name, "slow") == 0)
		(void)nanosleep(&(struct timespec){ 2, 0 }, NULL);
	return PFX_HOOK_CONTINUE;
}

/*
 * idle_timeout bounds how long the run waits for the caller, not the
 * time the run itself spends between two reads: a hook that takes
 * longer (an installer asking its user about a file) while the caller's
 * next entry already waits in the socket is no idle caller.  The run
 * counted from the last bytes it had read, and failed, ETIMEDOUT.
 */
Test(writer, idle_not_the_runs_time, .timeout = 30)
{
	struct pfx_options opt;
	struct pfx_result res;
	struct pfx_writer *w;
	struct seen s;
	struct tree t;

	tree_begin(&t);
	options(&opt, &s);
	opt.idle_timeout = 1;
	opt.hooks.decide = decide_slowly;
	cr_assert_eq(pfx_writer_open(AT_FDCWD, t.dest, &opt, &w), 0);
	put_file(w, "slow", "a\n");
	/* The run has read it, and is in the hook for 2 s. */
	(void)nanosleep(&(struct timespec){ 0, 300000000 }, NULL);
	put_file(w, "next", "b\n");
	cr_expect_eq(pfx_writer_finish(w, &res), PFX_OK, "%s", res.message);
	cr_expect_eq(s.extracted, 2, "%s", s.reasons);
	tree_end(&t);
}
