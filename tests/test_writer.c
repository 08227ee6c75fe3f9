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
#include <sys/stat.h>
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
