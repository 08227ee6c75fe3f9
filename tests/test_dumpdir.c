/*
 * test_dumpdir.c -- GNU incremental restore (PFX_OPT_INCREMENTAL): a dump
 * directory removes what its list lacks, beneath the destination only,
 * moves the directories its 'R'/'T' records rename (through an 'X'
 * temporary for cycles), and a list that lies (names with '/', "..",
 * renames out of the destination or through a symlink, a huge one, one
 * for a directory reached through a symlink) is refused or harmless.
 *
 * The archives are written byte by byte here, as GNU tar writes them
 * ('D' headers with GNU's magic), so that the hostile ones can be.
 */
#include <archive.h>
#include <archive_entry.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pfextract.h"
#include "fixture.h"

/* An archive being written in memory. */
struct tar {
	unsigned char *buf;
	size_t len, cap;
};

static unsigned char *
tar_block(struct tar *t)
{
	unsigned char *b;

	if (t->len + 512 > t->cap) {
		t->cap = t->cap == 0 ? 8192 : t->cap * 2;
		while (t->len + 512 > t->cap)
			t->cap *= 2;
		t->buf = realloc(t->buf, t->cap);
		cr_assert_not_null(t->buf);
	}
	b = t->buf + t->len;
	memset(b, 0, 512);
	t->len += 512;
	return b;
}

static void
tar_octal(unsigned char *f, size_t w, uint64_t v)
{
	snprintf((char *)f, w, "%0*llo", (int)w - 1, (unsigned long long)v);
}

/* Append a GNU header for NAME of TYPE claiming SIZE bytes. */
static void
tar_header(struct tar *t, const char *name, char type, uint64_t size)
{
	unsigned char *h = tar_block(t);
	unsigned int sum = 0;
	size_t i;

	cr_assert(strlen(name) < 100);
	memcpy(h, name, strlen(name));
	tar_octal(h + 100, 8, type == 'D' || type == '5' ? 0755 : 0644);
	tar_octal(h + 108, 8, 0);
	tar_octal(h + 116, 8, 0);
	tar_octal(h + 124, 12, size);
	tar_octal(h + 136, 12, 1700000000);
	h[156] = (unsigned char)type;
	memcpy(h + 257, "ustar  ", 8);
	memset(h + 148, ' ', 8);
	for (i = 0; i < 512; i++)
		sum += h[i];
	snprintf((char *)h + 148, 8, "%06o", sum);
}

/* Append LEN bytes of DATA, padded to whole blocks. */
static void
tar_data(struct tar *t, const void *data, size_t len)
{
	const unsigned char *p = data;
	size_t n;

	while (len > 0) {
		n = len < 512 ? len : 512;
		memcpy(tar_block(t), p, n);
		p += n;
		len -= n;
	}
}

/* A dump directory NAME listing LEN bytes of records. */
static void
tar_dumpdir(struct tar *t, const char *name, const char *rec, size_t len)
{
	tar_header(t, name, 'D', len);
	tar_data(t, rec, len);
}

static void
tar_file(struct tar *t, const char *name, const char *data)
{
	tar_header(t, name, '0', strlen(data));
	tar_data(t, data, strlen(data));
}

static void
tar_end(struct tar *t)
{
	(void)tar_block(t);
	(void)tar_block(t);
}

/* The work directory: DEST to extract into, OUT beside it. */
static char base[PATH_MAX], dest[PATH_MAX], out[PATH_MAX];

/* P (PATH_MAX bytes) = BASE/REL. */
static void
at_base(char *p, const char *rel)
{
	int n = snprintf(p, PATH_MAX, "%s/%s", base, rel);

	cr_assert(n > 0 && n < PATH_MAX);
}

static void
setup(void)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(base, sizeof(base), "%s/pfx-dumpdir-XXXXXX",
	    tmp != NULL ? tmp : "/tmp");
	cr_assert_not_null(mkdtemp(base));
	at_base(dest, "dest");
	at_base(out, "out");
	cr_assert_eq(mkdir(dest, 0755), 0);
	cr_assert_eq(mkdir(out, 0755), 0);
}

static void
teardown(void)
{
	(void)tfx_rm_tree(base);
}

TestSuite(dumpdir, .init = setup, .fini = teardown, .timeout = 60);

/* Make the file BASE/REL holding REL. */
static void
put(const char *rel)
{
	char p[PATH_MAX];
	int fd;

	at_base(p, rel);
	fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0644);
	cr_assert(fd >= 0, "%s: %s", p, strerror(errno));
	cr_assert_eq(write(fd, rel, strlen(rel)), (ssize_t)strlen(rel));
	close(fd);
}

static void
put_dir(const char *rel)
{
	char p[PATH_MAX];

	at_base(p, rel);
	cr_assert_eq(mkdir(p, 0755), 0, "%s: %s", p, strerror(errno));
}

static void
put_link(const char *rel, const char *target)
{
	char p[PATH_MAX];

	at_base(p, rel);
	cr_assert_eq(symlink(target, p), 0, "%s: %s", p, strerror(errno));
}

static bool
exists(const char *rel)
{
	char p[PATH_MAX];
	struct stat st;

	at_base(p, rel);
	return lstat(p, &st) == 0;
}

/* What the hooks saw. */
struct seen {
	char purged[16][64];
	size_t npurged;
	char refused[8][64];	/* "name:reason" */
	size_t nrefused;
	char list[256];		/* the last dump directory listed */
	size_t list_len;
};

static void
on_report(void *arg, const struct pfx_entry *e)
{
	struct seen *s = arg;

	if (e->status == PFX_ENTRY_REFUSED && s->nrefused < 8)
		snprintf(s->refused[s->nrefused++], 64, "%s:%s", e->name,
		    e->reason);
	if (e->status == PFX_ENTRY_LISTED && e->dumpdir != NULL &&
	    e->dumpdir_len < sizeof(s->list)) {
		memcpy(s->list, e->dumpdir, e->dumpdir_len);
		s->list_len = e->dumpdir_len;
	}
}

static void
on_purged(void *arg, const struct pfx_entry *dir, const char *name)
{
	struct seen *s = arg;

	if (s->npurged < 16)
		snprintf(s->purged[s->npurged++], 64, "%s%s", dir->name,
		    name);
}

/* The symlink policy, depth limit (0: the default) and transform hook of
 * run(): each test process runs one test. */
static enum pfx_symlinks run_symlinks = PFX_SYMLINKS_REFUSE;
static unsigned int run_max_depth;
static int (*run_transform)(void *, enum pfx_name_kind,
    const struct pfx_entry *, const char *, char *, size_t);

/* Extract T into DEST with FLAGS (and MAX_MEMORY if not 0). */
static enum pfx_status
run(const struct tar *t, unsigned int flags, uint64_t max_memory,
    struct seen *s, struct pfx_result *res)
{
	struct pfx_options opt;
	struct pfx_input in;

	memset(s, 0, sizeof(*s));
	pfx_options_init(&opt);
	opt.flags |= flags;
	opt.symlinks = run_symlinks;
	if (max_memory != 0)
		opt.limits.max_memory = max_memory;
	if (run_max_depth != 0)
		opt.limits.max_depth = run_max_depth;
	opt.hooks.transform = run_transform;
	opt.hooks.report = on_report;
	opt.hooks.purged = on_purged;
	opt.hooks.arg = s;
	memset(&in, 0, sizeof(in));
	in.fd = -1;
	in.buf = t->buf;
	in.len = t->len;
	return pfx_extract(&in, AT_FDCWD, dest, &opt, res);
}

/* The tree the purge tests start from. */
static void
populate(void)
{
	put_dir("dest/d");
	put("dest/d/keep");
	put("dest/d/gone");
	put_dir("dest/d/gonedir");
	put_dir("dest/d/gonedir/sub");
	put("dest/d/gonedir/sub/x");
	put("dest/d/wasdir");	/* the list says 'D': a file goes */
	put_dir("dest/d/wasfile");	/* the list says 'Y': a directory goes */
	put_dir("dest/d/sub");
	put("out/sentinel");
	put_link("dest/d/tothere", "../../out");
}

static const char good_list[] = "Ykeep\0Nnew\0Dwasdir\0Ywasfile\0Dsub\0";

static void
expect_purged(void)
{
	cr_expect(exists("dest/d/keep"));
	cr_expect(exists("dest/d/new"));
	cr_expect(exists("dest/d/sub"));
	cr_expect(!exists("dest/d/gone"));
	cr_expect(!exists("dest/d/gonedir"));
	cr_expect(!exists("dest/d/wasdir"));
	cr_expect(!exists("dest/d/wasfile"));
	/* A symlink goes itself; what it points at stays. */
	cr_expect(!exists("dest/d/tothere"));
	cr_expect(exists("out/sentinel"));
}

/* The good list for d/ as a 'D' entry, then d/new. */
static void
gnu_archive(struct tar *t)
{
	tar_dumpdir(t, "d/", good_list, sizeof(good_list));
	tar_file(t, "d/new", "new");
	tar_end(t);
}

/* Extract the archive BUILD writes over populate()'s tree, with FLAGS. */
static void
purge_with(unsigned int flags, void (*build)(struct tar *))
{
	struct tar t = { 0 };
	struct pfx_result res;
	struct seen s;

	populate();
	build(&t);
	cr_assert_eq(run(&t, PFX_OPT_INCREMENTAL | flags, 0, &s, &res),
	    PFX_OK, "%s", res.message);
	expect_purged();
	cr_expect_eq(s.npurged, 5, "purged %zu names", s.npurged);
	free(t.buf);
}

Test(dumpdir, purges_what_the_list_lacks)
{
	purge_with(0, gnu_archive);
}

Test(dumpdir, purges_with_the_decoder_process)
{
	purge_with(PFX_OPT_SANDBOX_CHILD, gnu_archive);
}

/* Without -G/-g a dump directory is a directory, as before. */
Test(dumpdir, nothing_without_the_option)
{
	struct tar t = { 0 };
	struct pfx_result res;
	struct seen s;

	populate();
	tar_dumpdir(&t, "d/", good_list, sizeof(good_list));
	tar_end(&t);
	cr_assert_eq(run(&t, 0, 0, &s, &res), PFX_OK, "%s", res.message);
	cr_expect(exists("dest/d/gone"));
	cr_expect(exists("dest/d/gonedir/sub/x"));
	cr_expect_eq(s.npurged, 0);
	free(t.buf);
}

/* A list that names anything but a direct child is refused whole. */
Test(dumpdir, hostile_names_refused)
{
	static const struct {
		const char *rec;
		size_t len;
		const char *reason;
	} rows[] = {
		{ "Y../gone\0", 10, "dumpdir_bad" },
		{ "Ya/b\0", 6, "dumpdir_bad" },
		{ "Y..\0", 5, "dumpdir_bad" },
		{ "D.\0", 4, "dumpdir_bad" },
		{ "Y\0Ykeep\0", 9, "dumpdir_bad" },
		{ "Qkeep\0", 7, "dumpdir_bad" },
		{ "Ykeep", 5, "dumpdir_bad" },	/* unterminated */
		{ "Rgone\0", 7, "dumpdir_rename_bad" },	/* no 'T' */
		{ "Tkeep\0", 7, "dumpdir_rename_bad" },	/* no 'R' */
		{ "X\0", 3, "dumpdir_rename_bad" },
	};
	size_t i;

	populate();
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct tar t = { 0 };
		struct pfx_result res;
		struct seen s;
		char want[64];

		tar_dumpdir(&t, "d/", rows[i].rec, rows[i].len);
		tar_end(&t);
		cr_expect_eq(run(&t, PFX_OPT_INCREMENTAL, 0, &s, &res),
		    PFX_REFUSED, "row %zu: %s", i, res.message);
		snprintf(want, sizeof(want), "d/:%s", rows[i].reason);
		cr_expect_eq(s.nrefused, 1, "row %zu", i);
		cr_expect_str_eq(s.refused[0], want, "row %zu", i);
		cr_expect_eq(s.npurged, 0, "row %zu", i);
		cr_expect(exists("dest/d/gone"), "row %zu", i);
		cr_expect(exists("dest/d/keep"), "row %zu", i);
		free(t.buf);
	}
}

/* Over PFX_DUMPDIR_MAX: refused unread; under it but over the memory
 * budget: the run stops. */
Test(dumpdir, huge_list_bounded)
{
	size_t big = PFX_DUMPDIR_MAX + 512, i;
	struct tar t = { 0 };
	struct pfx_result res;
	struct seen s;
	char *rec = malloc(big);

	cr_assert_not_null(rec);
	populate();
	for (i = 0; i + 8 <= big; i += 8)
		memcpy(rec + i, "Yabcdef", 8);
	tar_dumpdir(&t, "d/", rec, big);
	tar_end(&t);
	cr_expect_eq(run(&t, PFX_OPT_INCREMENTAL, 0, &s, &res), PFX_REFUSED,
	    "%s", res.message);
	cr_expect_str_eq(s.refused[0], "d/:dumpdir_too_large");
	cr_expect(exists("dest/d/gone"));
	free(t.buf);

	memset(&t, 0, sizeof(t));
	tar_dumpdir(&t, "d/", rec, 1u << 20);
	tar_end(&t);
	cr_expect_eq(run(&t, PFX_OPT_INCREMENTAL, 256u << 10, &s, &res),
	    PFX_FATAL);
	cr_expect_eq(res.error, EFBIG, "%s", res.message);
	cr_expect(exists("dest/d/gone"));
	free(t.buf);
	free(rec);
}

/*
 * Dump directories reached through the links l and m (l/, l/sub/, m/),
 * each with an empty list, purge nothing: A and B, where the links lead,
 * are still there.
 */
static void
purge_through_links_keeps(const char *a, const char *b)
{
	static const char *const names[] = { "l/", "l/sub/", "m/" };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct tar t = { 0 };
		struct pfx_result res;
		struct seen s;

		tar_dumpdir(&t, names[i], "Ynone\0", 7);
		tar_end(&t);
		(void)run(&t, PFX_OPT_INCREMENTAL, 0, &s, &res);
		cr_expect_eq(s.npurged, 0, "%s", names[i]);
		cr_expect(exists(a), "%s: %s", names[i], a);
		cr_expect(exists(b), "%s: %s", names[i], b);
		free(t.buf);
	}
}

/* A dump directory reached through a symlink purges nothing there. */
Test(dumpdir, through_symlink_untouched)
{
	put("out/sentinel");
	put_dir("out/sub");
	put("out/sub/x");
	put_link("dest/l", "../out");
	put_link("dest/m", "../out/sub");
	purge_through_links_keeps("out/sentinel", "out/sub/x");
}

/*
 * --symlinks=root follows a link inside DEST for entries, but a dump
 * directory reached through one still purges nothing: l -> in (inside
 * DEST) had in/ emptied by l/'s list.
 */
Test(dumpdir, through_symlink_untouched_under_root)
{
	put_dir("dest/in");
	put("dest/in/sentinel");
	put_dir("dest/in/sub");
	put("dest/in/sub/x");
	put_link("dest/l", "in");
	put_link("dest/m", "/in/sub");
	run_symlinks = PFX_SYMLINKS_ROOT;
	purge_through_links_keeps("dest/in/sentinel", "dest/in/sub/x");
}

/* Listing gives the list to the hooks, and removes nothing. */
static void
list_with(unsigned int flags)
{
	struct tar t = { 0 };
	struct pfx_result res;
	struct seen s;

	populate();
	tar_dumpdir(&t, "d/", good_list, sizeof(good_list));
	tar_end(&t);
	cr_assert_eq(run(&t, PFX_OPT_INCREMENTAL | PFX_OPT_LIST | flags, 0,
	    &s, &res), PFX_OK, "%s", res.message);
	cr_expect_eq(s.list_len, sizeof(good_list) - 1);
	cr_expect(memcmp(s.list, good_list, sizeof(good_list) - 1) == 0);
	cr_expect(exists("dest/d/gone"));
	free(t.buf);
}

Test(dumpdir, listing_shows_the_list)
{
	list_with(0);
}

Test(dumpdir, listing_shows_the_list_sandboxed)
{
	list_with(PFX_OPT_SANDBOX_CHILD);
}

/* Is BASE/REL a directory holding the file NAME, itself holding TEXT? */
static bool
holds(const char *rel, const char *name, const char *text)
{
	char p[PATH_MAX], buf[64];
	ssize_t n;
	int fd;

	cr_assert(snprintf(p, sizeof(p), "%s/%s/%s", base, rel, name) <
	    (int)sizeof(p));
	fd = open(p, O_RDONLY);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return false;
	buf[n] = '\0';
	return strcmp(buf, text) == 0;
}

/* dest/d with the directories a, b, c, each holding its own file. */
static void
populate_abc(void)
{
	put_dir("dest/d");
	put_dir("dest/d/a");
	put_dir("dest/d/b");
	put_dir("dest/d/c");
	put("dest/d/a/fa");
	put("dest/d/b/fb");
	put("dest/d/c/fc");
	put_dir("out/d");
	put("out/sentinel");
}

/* Extract one dump directory "d/" listing REC (LEN bytes), with -G and
 * FLAGS. */
static enum pfx_status
run_list_with(const char *rec, size_t len, unsigned int flags,
    struct seen *s, struct pfx_result *res)
{
	struct tar t = { 0 };
	enum pfx_status st;

	tar_dumpdir(&t, "d/", rec, len);
	tar_end(&t);
	st = run(&t, PFX_OPT_INCREMENTAL | flags, 0, s, res);
	free(t.buf);
	return st;
}

static enum pfx_status
run_list(const char *rec, size_t len, struct seen *s,
    struct pfx_result *res)
{
	return run_list_with(rec, len, 0, s, res);
}

/* run_list(), which must succeed. */
static void
run_ok(const char *rec, size_t len, struct seen *s)
{
	struct pfx_result res;

	cr_assert_eq(run_list(rec, len, s, &res), PFX_OK, "%s", res.message);
}

/* 'R'/'T' move a directory, with what it holds, before the purge. */
Test(dumpdir, renames_move_directories)
{
	static const char rec[] = "Dz\0Db\0Dc\0Rd/a\0Td/z\0";
	struct seen s;

	populate_abc();
	run_ok(rec, sizeof(rec), &s);
	cr_expect(!exists("dest/d/a"));
	cr_expect(holds("dest/d/z", "fa", "dest/d/a/fa"));
	cr_expect(holds("dest/d/b", "fb", "dest/d/b/fb"));
	cr_expect_eq(s.npurged, 0);
}

/* As GNU tar: the new name's missing parents are made. */
Test(dumpdir, renames_make_missing_parents)
{
	static const char rec[] = "Db\0Dc\0Rd/a\0Tnew/deep/a\0";
	struct seen s;

	populate_abc();
	run_ok(rec, sizeof(rec), &s);
	cr_expect(holds("dest/new/deep/a", "fa", "dest/d/a/fa"));
	cr_expect(!exists("dest/d/a"));
}

/* a->b->c->a, as GNU tar 1.34 writes it: through a temporary in 'X'. */
Test(dumpdir, cyclic_renames_through_a_temporary)
{
	static const char rec[] = "Da\0Db\0Dc\0Xd\0Rd/c\0T\0Rd/b\0Td/c\0"
	    "Rd/a\0Td/b\0R\0Td/a\0";
	struct seen s;

	populate_abc();
	run_ok(rec, sizeof(rec), &s);
	cr_expect(holds("dest/d/a", "fc", "dest/d/c/fc"));
	cr_expect(holds("dest/d/b", "fa", "dest/d/a/fa"));
	cr_expect(holds("dest/d/c", "fb", "dest/d/b/fb"));
	/* The temporary is used up: nothing else is in d. */
	cr_expect_eq(s.npurged, 0);
	cr_expect(!exists("dest/d/.pfx-rename.0"));
}

/* The same, the archive read by the decoder process. */
Test(dumpdir, cyclic_renames_with_the_decoder_process)
{
	static const char rec[] = "Da\0Db\0Dc\0Xd\0Rd/c\0T\0Rd/b\0Td/c\0"
	    "Rd/a\0Td/b\0R\0Td/a\0";
	struct pfx_result res;
	struct seen s;

	populate_abc();
	cr_assert_eq(run_list_with(rec, sizeof(rec), PFX_OPT_SANDBOX_CHILD,
	    &s, &res), PFX_OK, "%s", res.message);
	cr_expect(holds("dest/d/a", "fc", "dest/d/c/fc"));
	cr_expect(holds("dest/d/b", "fa", "dest/d/a/fa"));
}

/* The temporary never replaces a name that is there: the next is tried. */
Test(dumpdir, temporary_name_taken_is_not_replaced)
{
	static const char rec[] = "Da\0Db\0Dc\0D.pfx-rename.0\0Xd\0Rd/c\0T\0"
	    "Rd/b\0Td/c\0Rd/a\0Td/b\0R\0Td/a\0";
	struct seen s;

	populate_abc();
	put_dir("dest/d/.pfx-rename.0");
	put("dest/d/.pfx-rename.0/mine");
	run_ok(rec, sizeof(rec), &s);
	cr_expect(holds("dest/d/a", "fc", "dest/d/c/fc"));
	cr_expect(holds("dest/d/.pfx-rename.0", "mine",
	    "dest/d/.pfx-rename.0/mine"));
}

/* As rename(2) in GNU tar: an empty directory is replaced, no other. */
Test(dumpdir, renames_over_an_empty_directory_only)
{
	static const char rec[] = "Db\0Dc\0De\0Rd/a\0Td/e\0";
	static const char onto_c[] = "Db\0Dc\0Rd/b\0Td/c\0";
	static const char missing[] = "Db\0Dc\0Rd/nothere\0Td/f\0";
	struct pfx_result res;
	struct seen s;

	populate_abc();
	put_dir("dest/d/e");
	run_ok(rec, sizeof(rec), &s);
	cr_expect(holds("dest/d/e", "fa", "dest/d/a/fa"));
	cr_expect_eq(run_list(onto_c, sizeof(onto_c), &s, &res),
	    PFX_REFUSED, "%s", res.message);
	cr_expect_str_eq(s.refused[0], "d/:dumpdir_rename_taken");
	cr_expect(holds("dest/d/b", "fb", "dest/d/b/fb"));
	cr_expect(holds("dest/d/c", "fc", "dest/d/c/fc"));
	cr_expect_eq(run_list(missing, sizeof(missing), &s, &res),
	    PFX_REFUSED, "%s", res.message);
	cr_expect_str_eq(s.refused[0], "d/:dumpdir_rename_missing");
	cr_expect(!exists("dest/d/f"));
}

/* A directory moved into itself is refused by name, and no parent of the
 * new path is made inside it first. */
Test(dumpdir, rename_into_itself_refused)
{
	static const char rec[] = "Db\0Dc\0Rd/a\0Td/a/x/y\0";
	struct pfx_result res;
	struct seen s;

	populate_abc();
	cr_expect_eq(run_list(rec, sizeof(rec), &s, &res), PFX_REFUSED, "%s",
	    res.message);
	cr_expect_str_eq(s.refused[0], "d/:dumpdir_rename_unsafe");
	cr_expect(!exists("dest/d/a/x"));
	cr_expect(holds("dest/d/b", "fb", "dest/d/b/fb"));
}

/* A row's records: the literal with its NUL (the empty record that ends). */
#define REC(lit) lit, sizeof(lit)

/*
 * Renames whose names the core refuses, or that are malformed, move
 * nothing at all (not even the good pairs before them); those that would
 * go through a symlink or move one fail; nothing outside DEST changes.
 */
Test(dumpdir, hostile_renames_refused)
{
	static const struct {
		const char *rec;
		size_t len;
		const char *reason;	/* NULL: fails, reason aside */
	} rows[] = {
		{ REC("Rd/a\0Td/z\0R../out/d\0Td/y\0"),
		    "dumpdir_rename_unsafe" },
		{ REC("Rd/a\0T../out/a\0"), "dumpdir_rename_unsafe" },
		{ REC("Rd/a\0Td/../../out/a\0"), "dumpdir_rename_unsafe" },
		{ REC("R/tmp\0Td/z\0"), "dumpdir_rename_unsafe" },
		{ REC("Rd/a\0T/tmp/pfx-x\0"), "dumpdir_rename_unsafe" },
		{ REC("Rd/a\0T.\0"), "dumpdir_rename_unsafe" },
		{ REC("R\0Td/z\0"), "dumpdir_rename_bad" },
		{ REC("Rd/a\0T\0"), "dumpdir_rename_bad" },
		{ REC("Xd\0Xd\0Rd/a\0T\0"), "dumpdir_rename_bad" },
		{ REC("Rd/a\0Rd/b\0Td/z\0"), "dumpdir_rename_bad" },
		{ REC("Rd/a\0Td/z\0Td/y\0"), "dumpdir_rename_bad" },
		{ REC("Rd/a\0Tl/a\0"), NULL },	/* into a link to out */
		{ REC("Rl/d\0Td/z\0"), NULL },	/* out of it */
		{ REC("Rl\0Td/z\0"), NULL },	/* the link itself */
	};
	size_t i;

	populate_abc();
	put_link("dest/l", "../out");
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct pfx_result res;
		struct seen s;
		char want[64];

		cr_expect_neq(run_list(rows[i].rec, rows[i].len, &s, &res),
		    PFX_OK, "row %zu", i);
		if (rows[i].reason != NULL) {
			snprintf(want, sizeof(want), "d/:%s", rows[i].reason);
			cr_expect_eq(s.nrefused, 1, "row %zu", i);
			cr_expect_str_eq(s.refused[0], want, "row %zu", i);
		}
		cr_expect(holds("dest/d/a", "fa", "dest/d/a/fa"), "row %zu", i);
		cr_expect(!exists("dest/d/z"), "row %zu", i);
		cr_expect(exists("dest/l"), "row %zu", i);
		cr_expect(exists("out/d"), "row %zu", i);
		cr_expect(!exists("out/a"), "row %zu", i);
		cr_expect(!exists("out/z"), "row %zu", i);
		cr_expect(exists("out/sentinel"), "row %zu", i);
		cr_expect_eq(s.npurged, 0, "row %zu", i);
	}
}

/* --symlinks=contain purges as the default does. */
Test(dumpdir, purges_under_contain)
{
	run_symlinks = PFX_SYMLINKS_CONTAIN;
	purge_with(0, gnu_archive);
}

/* d/'s list names y a directory, then d/y/ comes. */
static void
redirect_archive(struct tar *t)
{
	static const char list[] = "Dy\0Da\0Dout\0";

	tar_dumpdir(t, "d/", list, sizeof(list));
	tar_header(t, "d/y/", '5', 0);
	tar_file(t, "d/new", "new");
	tar_end(t);
}

/*
 * --symlinks=contain: the old link e -> d/y/../../../out/sentinel stays
 * in dest/ (dest/d/out/sentinel) through the old link d/y -> a/b/c.
 * d/'s list names y a directory, so the purge removed the link, d/y/
 * made a directory there, and e led to out/sentinel, beside dest/,
 * after a run that said nothing.  The purge now keeps y,
 * judged as a file replacing it is, and d/ is refused for it.
 */
Test(dumpdir, purge_keeps_a_link_an_old_link_passes_under_contain)
{
	struct tar t = { 0 };
	struct pfx_result res;
	struct seen s;
	char p[PATH_MAX], real[PATH_MAX];

	put_dir("dest/d");
	put_dir("dest/d/a");
	put_dir("dest/d/a/b");
	put_dir("dest/d/a/b/c");
	put_dir("dest/d/out");
	put("dest/d/out/sentinel");
	put_link("dest/d/y", "a/b/c");
	put_link("dest/e", "d/y/../../../out/sentinel");
	put("out/sentinel");
	redirect_archive(&t);
	run_symlinks = PFX_SYMLINKS_CONTAIN;
	cr_expect_eq(run(&t, PFX_OPT_INCREMENTAL, 0, &s, &res), PFX_REFUSED,
	    "%s", res.message);
	cr_expect_eq(s.npurged, 0, "purged %zu names", s.npurged);
	cr_assert_geq(s.nrefused, 1);
	cr_expect_str_eq(s.refused[0], "d/:symlink_redirects");
	at_base(p, "dest/d/y");
	cr_expect_eq(readlink(p, real, sizeof(real)), 5, "d/y is no link");
	cr_expect(exists("dest/d/new"));
	at_base(p, "dest/e");
	cr_assert_not_null(realpath(p, real));
	cr_expect(strncmp(real, dest, strlen(dest)) == 0 &&
	    real[strlen(dest)] == '/', "e leads to %s", real);
	free(t.buf);
}

/* --symlinks=contain: a move could make a link lead out; refused. */
Test(dumpdir, renames_refused_with_links_under_contain)
{
	static const char rec[] = "Dz\0Db\0Dc\0Rd/a\0Td/z\0";
	struct pfx_result res;
	struct seen s;

	populate_abc();
	put_link("dest/d/a/up", "..");
	run_symlinks = PFX_SYMLINKS_CONTAIN;
	cr_expect_eq(run_list(rec, sizeof(rec), &s, &res), PFX_REFUSED,
	    "%s", res.message);
	cr_expect_str_eq(s.refused[0], "d/:dumpdir_rename_links");
	cr_expect(exists("dest/d/a/up"));
	cr_expect(!exists("dest/d/z"));
}

/*
 * --symlinks=root: a move's parents are reached without symlinks too;
 * d/a was moved into dest/in through the link l -> in.
 */
Test(dumpdir, renames_not_through_links_under_root)
{
	static const char rec[] = "Db\0Dc\0Rd/a\0Tl/a\0";
	static const char back[] = "Db\0Dc\0Rd/l/b\0Td/z\0";
	struct pfx_result res;
	struct seen s;

	populate_abc();
	put_dir("dest/in");
	put_link("dest/l", "in");
	put_link("dest/d/l", "/d");
	run_symlinks = PFX_SYMLINKS_ROOT;
	cr_expect_neq(run_list(rec, sizeof(rec), &s, &res), PFX_OK);
	cr_expect(!exists("dest/in/a"));
	cr_expect(holds("dest/d/a", "fa", "dest/d/a/fa"));
	cr_expect_neq(run_list(back, sizeof(back), &s, &res), PFX_OK);
	cr_expect(!exists("dest/d/z"));
	cr_expect(holds("dest/d/b", "fb", "dest/d/b/fb"));
}

/* Without links in DEST, contain moves as the default does. */
Test(dumpdir, renames_under_contain_without_links)
{
	static const char rec[] = "Dz\0Db\0Dc\0Rd/a\0Td/z\0";
	struct seen s;

	populate_abc();
	run_symlinks = PFX_SYMLINKS_CONTAIN;
	run_ok(rec, sizeof(rec), &s);
	cr_expect(holds("dest/d/z", "fa", "dest/d/a/fa"));
}

/*
 * --max-depth holds for the paths a list renames, as for entries' names:
 * a new path's parents are made, so a list of one pair made a chain of
 * 1,000 directories past --max-depth=5.  The run stops, nothing moved.
 */
Test(dumpdir, renames_held_to_max_depth)
{
	static const struct {
		const char *rec;
		size_t len;
	} rows[] = {
		{ REC("Db\0Dc\0Rd/a\0Tn/x/y/z/a\0") },
		{ REC("Db\0Dc\0Rd/a\0Td/z\0Rd/b/c/d/e\0Td/y\0") },
		/* The temporary is one deeper than its 'X' directory. */
		{ REC("Db\0Dc\0Xn/x/y/z\0Rd/a\0T\0R\0Td/a\0") },
	};
	struct pfx_result res;
	struct seen s;
	size_t i;

	populate_abc();
	run_max_depth = 4;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		cr_expect_eq(run_list(rows[i].rec, rows[i].len, &s, &res),
		    PFX_FATAL, "row %zu: %s", i, res.message);
		cr_expect_eq(res.error, EFBIG, "row %zu", i);
		cr_expect(strstr(res.message, "max-depth=4") != NULL,
		    "row %zu: %s", i, res.message);
		cr_expect(holds("dest/d/a", "fa", "dest/d/a/fa"), "row %zu", i);
		cr_expect(!exists("dest/n"), "row %zu", i);
		cr_expect(!exists("dest/d/z"), "row %zu", i);
	}
	/* As deep as the limit: moved. */
	cr_expect_eq(run_list(REC("Db\0Dc\0Rd/a\0Tn/x/y/a\0"), &s, &res),
	    PFX_OK, "%s", res.message);
	cr_expect(holds("dest/n/x/y/a", "fa", "dest/d/a/fa"));
}

/* A transform that puts every entry beneath "p/" (--one-top-level=p). */
static int
under_p(void *arg, enum pfx_name_kind kind, const struct pfx_entry *e,
    const char *name, char *buf, size_t cap)
{
	(void)arg;
	(void)e;
	if (kind != PFX_NAME_ENTRY)
		return 0;
	return snprintf(buf, cap, "p/%s", name) < (int)cap ? 1 : 2;
}

/*
 * The paths a list renames are transformed as the entries' names are:
 * with every entry beneath p/, a list moves p/d/a, and cannot move (then
 * have the purge remove) a directory of DEST outside p/.
 */
Test(dumpdir, renames_transformed_as_entries)
{
	static const char moves[] = "Dz\0Db\0Dc\0Rd/a\0Td/z\0";
	static const char steals[] = "Db\0Dc\0Rkeep\0Tp/d/gone\0";
	struct pfx_result res;
	struct seen s;

	put_dir("dest/p");
	put_dir("dest/p/d");
	put_dir("dest/p/d/a");
	put_dir("dest/p/d/b");
	put_dir("dest/p/d/c");
	put("dest/p/d/a/fa");
	put_dir("dest/keep");
	put("dest/keep/f");
	run_transform = under_p;
	run_ok(moves, sizeof(moves), &s);
	cr_expect(holds("dest/p/d/z", "fa", "dest/p/d/a/fa"));
	cr_expect(!exists("dest/p/d/a"));
	cr_expect(!exists("dest/d"));
	cr_expect_eq(run_list(steals, sizeof(steals), &s, &res),
	    PFX_REFUSED, "%s", res.message);
	cr_expect_str_eq(s.refused[0], "d/:dumpdir_rename_missing");
	cr_expect(holds("dest/keep", "f", "dest/keep/f"));
	cr_expect(!exists("dest/p/d/gone"));
}

/* Many renames: linear, and each one made (a and z swap 20,000 times). */
Test(dumpdir, many_renames_linear)
{
	static const char pair[] = "Rd/a\0Td/z\0Rd/z\0Td/a\0";
	size_t n = 20000, i, len = n * (sizeof(pair) - 1) + 12;
	char *rec = malloc(len);
	struct pfx_result res;
	struct seen s;

	cr_assert_not_null(rec);
	memcpy(rec, "Da\0Db\0Dc\0", 9);
	for (i = 0; i < n; i++)
		memcpy(rec + 9 + i * (sizeof(pair) - 1), pair,
		    sizeof(pair) - 1);
	memset(rec + len - 3, 0, 3);
	populate_abc();
	cr_expect_eq(run_list(rec, len, &s, &res), PFX_OK, "%s", res.message);
	cr_expect(holds("dest/d/a", "fa", "dest/d/a/fa"));
	cr_expect(!exists("dest/d/z"));
	free(rec);
}

/* Listing shows the renames and moves nothing. */
Test(dumpdir, listing_renames_moves_nothing)
{
	static const char rec[] = "Dz\0Db\0Dc\0Rd/a\0Td/z\0";
	struct tar t = { 0 };
	struct pfx_result res;
	struct seen s;

	populate_abc();
	tar_dumpdir(&t, "d/", rec, sizeof(rec));
	tar_end(&t);
	cr_assert_eq(run(&t, PFX_OPT_INCREMENTAL | PFX_OPT_LIST, 0, &s, &res),
	    PFX_OK, "%s", res.message);
	cr_expect_eq(s.list_len, sizeof(rec) - 1);
	cr_expect(exists("dest/d/a"));
	cr_expect(!exists("dest/d/z"));
	free(t.buf);
}

/*
 * One run (concatenated levels): a directory the run made as a parent,
 * known by name alone, is moved away, and a directory that was there
 * before the run takes its name.  The end of the run must not give that
 * one the made directory's mode; the one it made by the entry keeps its
 * own, found under its new name.
 */
Test(dumpdir, moved_names_not_chmodded_at_the_end)
{
	static const char rec[] = "Dp\0Dp_old\0Rp\0Tp_old\0Rkeep\0Tp\0";
	struct tar t = { 0 };
	struct pfx_result res;
	struct seen s;
	struct stat st;
	char p[PATH_MAX];

	put_dir("dest/keep");
	at_base(p, "dest/keep");
	cr_assert_eq(chmod(p, 0711), 0);
	tar_file(&t, "p/q/f", "f");
	tar_dumpdir(&t, "./", rec, sizeof(rec));
	tar_end(&t);
	cr_assert_eq(run(&t, PFX_OPT_INCREMENTAL, 0, &s, &res), PFX_OK, "%s",
	    res.message);
	cr_expect(holds("dest/p_old/q", "f", "f"));
	at_base(p, "dest/p");
	cr_assert_eq(stat(p, &st), 0);
	cr_expect_eq(st.st_mode & 07777, 0711, "mode %o", st.st_mode & 07777);
	free(t.buf);
}

/* --- -H posix: the list in a GNU.dumpdir pax record (paxdump.c) ------- */

/* Append the pax record KEY=VALUE (VLEN bytes) to R at *LEN. */
static void
pax_record(char *r, size_t cap, size_t *len, const char *key,
    const char *value, size_t vlen)
{
	size_t body = strlen(key) + 1 + vlen + 1, n, digits = 1;

	for (n = body + 1; n >= 10; n /= 10)	/* LEN counts itself */
		digits++;
	n = body + 1 + digits;
	if (snprintf(NULL, 0, "%zu", n) != (int)digits)
		n++;
	cr_assert(*len + n < cap);
	*len += (size_t)snprintf(r + *len, cap - *len, "%zu %s=", n, key);
	memcpy(r + *len, value, vlen);
	*len += vlen;
	r[(*len)++] = '\n';
}

/* A POSIX header: as tar_header(), with the ustar magic "ustar\0" "00". */
static void
pax_header(struct tar *t, const char *name, char type, uint64_t size)
{
	unsigned char *h;
	unsigned int sum = 0;
	size_t i;

	tar_header(t, name, type, size);
	h = t->buf + t->len - 512;
	memcpy(h + 257, "ustar\0" "00", 8);
	memset(h + 148, ' ', 8);
	for (i = 0; i < 512; i++)
		sum += h[i];
	snprintf((char *)h + 148, 8, "%06o", sum);
}

/* The directory NAME with the pax records R (LEN bytes) before it. */
static void
pax_dir(struct tar *t, const char *name, const char *r, size_t len)
{
	pax_header(t, "PaxHeaders/d", 'x', len);
	tar_data(t, r, len);
	pax_header(t, name, '5', 0);
}

/* A pax archive of the good list for d/, then d/new. */
static void
pax_archive(struct tar *t)
{
	char r[512];
	size_t len = 0;

	pax_record(r, sizeof(r), &len, "mtime", "1700000000", 10);
	pax_record(r, sizeof(r), &len, "GNU.dumpdir", good_list,
	    sizeof(good_list));
	pax_dir(t, "d/", r, len);
	pax_header(t, "d/new", '0', 3);
	tar_data(t, "new", 3);
	tar_end(t);
}

Test(dumpdir, pax_list_purges)
{
	purge_with(0, pax_archive);
}

Test(dumpdir, pax_list_purges_with_the_decoder_process)
{
	purge_with(PFX_OPT_SANDBOX_CHILD, pax_archive);
}

/*
 * T compressed, in place, by libarchive's FILTER (written in the raw
 * format): a compression that libarchive decodes itself, which a -G run
 * reads through a stage of its own (extract/stage.c).
 */
static void
compress_with(struct tar *t, int (*filter)(struct archive *))
{
	struct archive *a = archive_write_new();
	struct archive_entry *e = archive_entry_new();
	size_t cap = t->len + (1u << 20), used = 0;
	unsigned char *z = malloc(cap);

	cr_assert(a != NULL && e != NULL && z != NULL);
	cr_assert_eq(filter(a), ARCHIVE_OK, "%s", archive_error_string(a));
	cr_assert_eq(archive_write_set_format_raw(a), ARCHIVE_OK);
	cr_assert_eq(archive_write_set_bytes_in_last_block(a, 1), ARCHIVE_OK);
	cr_assert_eq(archive_write_open_memory(a, z, cap, &used),
	    ARCHIVE_OK, "%s", archive_error_string(a));
	archive_entry_set_pathname(e, "tar");
	archive_entry_set_filetype(e, AE_IFREG);
	cr_assert_eq(archive_write_header(a, e), ARCHIVE_OK);
	cr_assert_eq(archive_write_data(a, t->buf, t->len), (la_ssize_t)t->len);
	cr_assert_eq(archive_write_close(a), ARCHIVE_OK, "%s",
	    archive_error_string(a));
	archive_write_free(a);
	archive_entry_free(e);
	free(t->buf);
	t->buf = z;
	t->len = used;
	t->cap = cap;
}

static void
pax_bzip2(struct tar *t)
{
	pax_archive(t);
	compress_with(t, archive_write_add_filter_bzip2);
}

static void
pax_lz4(struct tar *t)
{
	pax_archive(t);
	compress_with(t, archive_write_add_filter_lz4);
}

static void
pax_lzip(struct tar *t)
{
	pax_archive(t);
	compress_with(t, archive_write_add_filter_lzip);
}

Test(dumpdir, pax_list_purges_through_bzip2)
{
	purge_with(0, pax_bzip2);
}

Test(dumpdir, pax_list_purges_through_bzip2_with_the_decoder_process)
{
	purge_with(PFX_OPT_SANDBOX_CHILD, pax_bzip2);
}

Test(dumpdir, pax_list_purges_through_lz4)
{
	purge_with(0, pax_lz4);
}

Test(dumpdir, pax_list_purges_through_lz4_with_the_decoder_process)
{
	purge_with(PFX_OPT_SANDBOX_CHILD, pax_lz4);
}

Test(dumpdir, pax_list_purges_through_lzip)
{
	purge_with(0, pax_lzip);
}

Test(dumpdir, pax_list_purges_through_lzip_with_the_decoder_process)
{
	purge_with(PFX_OPT_SANDBOX_CHILD, pax_lzip);
}

/* The list comes out when listing, as a 'D' entry's does. */
Test(dumpdir, pax_list_listed)
{
	struct tar t = { 0 };
	struct pfx_result res;
	struct seen s;

	pax_archive(&t);
	cr_assert_eq(run(&t, PFX_OPT_INCREMENTAL | PFX_OPT_LIST, 0, &s,
	    &res), PFX_OK, "%s", res.message);
	cr_assert_eq(s.list_len, sizeof(good_list) - 1);
	cr_expect_eq(memcmp(s.list, good_list, sizeof(good_list) - 1), 0);
	free(t.buf);
}

/* A pax directory without the record is a directory: nothing goes. */
Test(dumpdir, pax_without_list_purges_nothing)
{
	struct tar t = { 0 };
	struct pfx_result res;
	struct seen s;
	char r[128];
	size_t len = 0;

	populate();
	pax_record(r, sizeof(r), &len, "mtime", "1700000000", 10);
	pax_dir(&t, "d/", r, len);
	tar_end(&t);
	cr_assert_eq(run(&t, PFX_OPT_INCREMENTAL, 0, &s, &res), PFX_OK,
	    "%s", res.message);
	cr_expect(exists("dest/d/gone"));
	cr_expect_eq(s.npurged, 0);
	free(t.buf);
}

/*
 * Records that libarchive reads one way and a second parser might read
 * another (a length that lies) stop the run: the list is never guessed,
 * and nothing is purged.
 */
static void
pax_malformed_with(unsigned int flags)
{
	struct tar t = { 0 };
	struct pfx_result res;
	struct seen s;
	char r[512];
	size_t len = 0;

	populate();
	pax_record(r, sizeof(r), &len, "GNU.dumpdir", good_list,
	    sizeof(good_list));
	len += (size_t)snprintf(r + len, sizeof(r) - len, "99 path=d/\n");
	pax_dir(&t, "d/", r, len);
	tar_end(&t);
	cr_assert_neq(run(&t, PFX_OPT_INCREMENTAL | flags, 0, &s, &res),
	    PFX_OK);
	cr_expect(strstr(res.message, "dump list") != NULL, "%s",
	    res.message);
	cr_expect(exists("dest/d/gone"));
	cr_expect_eq(s.npurged, 0);
	free(t.buf);
}

Test(dumpdir, pax_malformed_records_stop_the_run)
{
	pax_malformed_with(0);
}

Test(dumpdir, pax_malformed_records_stop_the_decoder_process)
{
	pax_malformed_with(PFX_OPT_SANDBOX_CHILD);
}
