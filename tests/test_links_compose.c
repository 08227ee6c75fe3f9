/*
 * test_links_compose.c -- --symlinks=contain over a destination that
 * already holds symbolic links: a new link must never make a link that
 * was already there lead outside (issue: "contain judges a new link only
 * against this run's tree").
 *
 * Each case runs in a fresh mkdtemp() directory, once per resolver:
 *
 *	$TMPDIR/pfx-compose.XXXXXX/
 *	|-- dest/		the destination; links planted or made by a
 *	|			first run
 *	`-- outside/
 *	    `-- sentinel	"sentinel\n": must end as it began
 *
 * The property checked after every run is the one --symlinks=contain
 * promises: each symlink in dest/, followed by the kernel with
 * openat2(RESOLVE_BENEATH) from dest/, stays beneath it (a missing
 * component, ENOENT, or a file used as a directory, ENOTDIR, is not an
 * escape).  Links the case planted escaping on purpose are named and
 * left out.
 */
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <criterion/criterion.h>

#include "pfextract.h"
#include "fixture.h"

#define SENTINEL "sentinel\n"
#define ARCHIVE_CAP (16u << 20)
#define MAX_REPORTS 64

/* One report() callback, copied. */
struct crec {
	char name[256];
	char reason[64];
	enum pfx_entry_status status;
	enum pfx_decision decision;
};

/* One case: its tree and the reports of its last run. */
struct cfx {
	const char *rname;
	enum pfx_resolver how;
	char top[PATH_MAX / 2];
	char dest[PATH_MAX];
	int destfd;
	int outfd;
	struct pfx_options opt;
	struct pfx_result res;
	struct crec rep[MAX_REPORTS];
	size_t nrep;
};

/* An archive written to memory by libarchive. */
struct cab {
	struct archive *a;
	char *buf;
	size_t used;
};

static void
on_report(void *arg, const struct pfx_entry *e)
{
	struct cfx *fx = arg;
	struct crec *r;

	cr_assert(fx->nrep < MAX_REPORTS, "too many reports");
	r = &fx->rep[fx->nrep++];
	(void)snprintf(r->name, sizeof(r->name), "%s", e->name);
	(void)snprintf(r->reason, sizeof(r->reason), "%s", e->reason);
	r->status = e->status;
	r->decision = e->decision;
}

static void
cfx_begin(struct cfx *fx, enum pfx_resolver how, const char *rname)
{
	const char *tmp = getenv("TMPDIR");
	int topfd, fd;

	memset(fx, 0, sizeof(*fx));
	fx->how = how;
	fx->rname = rname;
	(void)snprintf(fx->top, sizeof(fx->top), "%s/pfx-compose.XXXXXX",
	    tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
	cr_assert(mkdtemp(fx->top) != NULL, "mkdtemp: %s", strerror(errno));
	topfd = open(fx->top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert(topfd >= 0, "open top");
	cr_assert(mkdirat(topfd, "dest", 0755) == 0, "mkdir dest");
	cr_assert(mkdirat(topfd, "outside", 0755) == 0, "mkdir outside");
	fx->destfd = openat(topfd, "dest", O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC);
	fx->outfd = openat(topfd, "outside", O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC);
	cr_assert(fx->destfd >= 0 && fx->outfd >= 0, "open dest, outside");
	fd = openat(fx->outfd, "sentinel", O_WRONLY | O_CREAT | O_EXCL |
	    O_CLOEXEC, 0644);
	cr_assert(fd >= 0, "create sentinel");
	cr_assert(write(fd, SENTINEL, strlen(SENTINEL)) ==
	    (ssize_t)strlen(SENTINEL), "write sentinel");
	(void)close(fd);
	(void)close(topfd);
	(void)snprintf(fx->dest, sizeof(fx->dest), "%s/dest", fx->top);
	pfx_options_init(&fx->opt);
	fx->opt.symlinks = PFX_SYMLINKS_CONTAIN;
	fx->opt.resolver = how;
	fx->opt.hooks.report = on_report;
	fx->opt.hooks.arg = fx;
}

static void
cfx_end(struct cfx *fx)
{
	char buf[64];
	ssize_t n;
	int fd;

	fd = openat(fx->outfd, "sentinel", O_RDONLY | O_NOFOLLOW |
	    O_CLOEXEC);
	cr_assert(fd >= 0, "[%s] sentinel gone", fx->rname);
	n = read(fd, buf, sizeof(buf));
	(void)close(fd);
	cr_assert(n == (ssize_t)strlen(SENTINEL) &&
	    memcmp(buf, SENTINEL, (size_t)n) == 0, "[%s] sentinel changed",
	    fx->rname);
	(void)close(fx->destfd);
	(void)close(fx->outfd);
	(void)tfx_rm_tree(fx->top);
}

/* --- archives ---------------------------------------------------------- */

static void
cab_open(struct cab *ab)
{
	memset(ab, 0, sizeof(*ab));
	ab->buf = malloc(ARCHIVE_CAP);
	cr_assert(ab->buf != NULL, "malloc");
	ab->a = archive_write_new();
	cr_assert(ab->a != NULL, "archive_write_new");
	cr_assert(archive_write_set_format_pax(ab->a) == ARCHIVE_OK, "pax");
	cr_assert(archive_write_open_memory(ab->a, ab->buf, ARCHIVE_CAP,
	    &ab->used) == ARCHIVE_OK, "open memory");
}

static void
cab_add(struct cab *ab, const char *name, mode_t type, const char *target)
{
	struct archive_entry *e = archive_entry_new();
	int r;

	cr_assert(e != NULL, "archive_entry_new");
	archive_entry_set_pathname(e, name);
	archive_entry_set_filetype(e, type);
	archive_entry_set_perm(e, type == AE_IFLNK ? 0777 : 0755);
	archive_entry_set_mtime(e, 1300000000, 0);
	archive_entry_set_size(e, 0);
	if (target != NULL)
		archive_entry_set_symlink(e, target);
	r = archive_write_header(ab->a, e);
	cr_assert(r == ARCHIVE_OK || r == ARCHIVE_WARN, "header %s", name);
	archive_entry_free(e);
}

static void
cab_link(struct cab *ab, const char *name, const char *target)
{
	cab_add(ab, name, AE_IFLNK, target);
}

static void
cab_dir(struct cab *ab, const char *name)
{
	cab_add(ab, name, AE_IFDIR, NULL);
}

static void
cab_close(struct cab *ab)
{
	cr_assert(archive_write_close(ab->a) == ARCHIVE_OK, "close");
	archive_write_free(ab->a);
	ab->a = NULL;
}

static void
cab_free(struct cab *ab)
{
	if (ab->a != NULL)
		archive_write_free(ab->a);
	free(ab->buf);
}

/* Extract AB into dest/ with the case's options. */
static enum pfx_status
cfx_run(struct cfx *fx, const struct cab *ab)
{
	struct pfx_input in = { .fd = -1, .buf = ab->buf, .len = ab->used };
	enum pfx_status st;

	fx->nrep = 0;
	st = pfx_extract(&in, AT_FDCWD, fx->dest, &fx->opt, &fx->res);
	cr_assert(st != PFX_FATAL, "[%s] fatal: %s", fx->rname,
	    fx->res.message);
	return st;
}

/* --- expectations ------------------------------------------------------ */

static const struct crec *
report_of(const struct cfx *fx, const char *name)
{
	size_t i;

	for (i = 0; i < fx->nrep; i++) {
		if (strcmp(fx->rep[i].name, name) == 0)
			return &fx->rep[i];
	}
	cr_assert_fail("[%s] no report for %s", fx->rname, name);
	return NULL;
}

static void
expect_made(const struct cfx *fx, const char *name, const char *target)
{
	const struct crec *r = report_of(fx, name);
	char buf[PATH_MAX];
	ssize_t n;

	cr_assert(r->status == PFX_ENTRY_EXTRACTED, "[%s] %s not made: %s",
	    fx->rname, name, r->reason);
	n = readlinkat(fx->destfd, name, buf, sizeof(buf) - 1);
	cr_assert(n >= 0, "[%s] %s is not a link", fx->rname, name);
	buf[n] = '\0';
	cr_assert_str_eq(buf, target, "[%s] %s -> %s", fx->rname, name, buf);
}

static void
expect_refused(const struct cfx *fx, const char *name, const char *reason)
{
	const struct crec *r = report_of(fx, name);
	struct stat st;

	cr_assert(r->status == PFX_ENTRY_REFUSED &&
	    strcmp(r->reason, reason) == 0 && r->decision == PFX_REJECT,
	    "[%s] %s: %s %s, expected refused %s", fx->rname, name,
	    pfx_entry_status_name(r->status), r->reason, reason);
	cr_assert(fstatat(fx->destfd, name, &st, AT_SYMLINK_NOFOLLOW) == -1 ||
	    !S_ISLNK(st.st_mode), "[%s] refused %s is on disk", fx->rname,
	    name);
}

/*
 * NAME was refused as symlink_redirects, whatever stands at its name
 * now (an old link kept there, say).
 */
static void
expect_redirects_kept(const struct cfx *fx, const char *name)
{
	const struct crec *r = report_of(fx, name);

	cr_assert(r->status == PFX_ENTRY_REFUSED &&
	    strcmp(r->reason, "symlink_redirects") == 0,
	    "[%s] %s: %s %s, expected refused symlink_redirects", fx->rname,
	    name, pfx_entry_status_name(r->status), r->reason);
}

/* Is NAME one of the NUL-separated names in SKIP ("a\0b\0")? */
static bool
skipped(const char *skip, const char *name)
{
	for (; skip != NULL && *skip != '\0'; skip += strlen(skip) + 1) {
		if (strcmp(skip, name) == 0)
			return true;
	}
	return false;
}

/*
 * The property: every symlink beneath DIRFD/REL (REL "" for dest/
 * itself), but those in SKIP, resolves beneath dest/ as the kernel
 * follows it.
 */
static void
expect_contained_below(const struct cfx *fx, const char *rel,
    const char *skip)
{
	struct open_how how;
	char path[PATH_MAX];
	struct dirent *de;
	struct stat st;
	DIR *d;
	int fd, r, tries;

	fd = openat(fx->destfd, rel[0] != '\0' ? rel : ".", O_RDONLY |
	    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	cr_assert(fd >= 0, "[%s] open %s", fx->rname, rel);
	d = fdopendir(fd);
	cr_assert(d != NULL, "fdopendir");
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		(void)snprintf(path, sizeof(path), "%s%s%s", rel,
		    rel[0] != '\0' ? "/" : "", de->d_name);
		cr_assert(fstatat(fx->destfd, path, &st,
		    AT_SYMLINK_NOFOLLOW) == 0, "stat %s", path);
		if (S_ISDIR(st.st_mode)) {
			expect_contained_below(fx, path, skip);
			continue;
		}
		if (!S_ISLNK(st.st_mode) || skipped(skip, path))
			continue;
		memset(&how, 0, sizeof(how));
		how.flags = O_PATH | O_CLOEXEC;
		how.resolve = RESOLVE_BENEATH;
		/* EAGAIN: a rename anywhere on the system (another test)
		 * raced a ".." of the walk; the kernel asks to retry. */
		tries = 0;
		do {
			r = (int)syscall(SYS_openat2, fx->destfd, path, &how,
			    sizeof(how));
		} while (r == -1 && errno == EAGAIN && ++tries < 1000);
		if (r >= 0) {
			(void)close(r);
			continue;
		}
		cr_assert(errno == ENOENT || errno == ENOTDIR,
		    "[%s] the link %s leads outside dest/ (%s)", fx->rname,
		    path, strerror(errno));
	}
	(void)closedir(d);
}

static void
expect_contained(const struct cfx *fx, const char *skip)
{
	expect_contained_below(fx, "", skip);
}

static void
plant_link(const struct cfx *fx, const char *name, const char *target)
{
	cr_assert(symlinkat(target, fx->destfd, name) == 0, "plant %s: %s",
	    name, strerror(errno));
}

static void
plant_dir(const struct cfx *fx, const char *name)
{
	cr_assert(mkdirat(fx->destfd, name, 0755) == 0, "mkdir %s: %s", name,
	    strerror(errno));
}

/* Run CASE once per resolver. */
static void
each_resolver(void (*fn)(struct cfx *))
{
	static const struct {
		enum pfx_resolver how;
		const char *name;
	} rs[] = {
		{ PFX_RESOLVER_OPENAT2, "openat2" },
		{ PFX_RESOLVER_WALK, "walk" },
	};
	struct cfx fx;
	size_t i;

	for (i = 0; i < sizeof(rs) / sizeof(rs[0]); i++) {
		cfx_begin(&fx, rs[i].how, rs[i].name);
		fn(&fx);
		cfx_end(&fx);
	}
}

/* --- cases ------------------------------------------------------------- */

/*
 * The issue's example over two runs.  Run 1 makes sub/e -> c/../..,
 * contained while sub/c is missing (sub/c/.. is sub, and .. is dest/).
 * Run 2 brings sub/c -> .., contained on its own (dest/); but with it
 * sub/e would resolve to dest/'s parent, so it is refused.
 */
static void
case_two_runs(struct cfx *fx)
{
	struct cab ab;

	cab_open(&ab);
	cab_dir(&ab, "sub/");
	cab_link(&ab, "sub/e", "c/../..");
	cab_close(&ab);
	cr_assert_eq(cfx_run(fx, &ab), PFX_OK, "[%s] run 1", fx->rname);
	expect_made(fx, "sub/e", "c/../..");
	cab_free(&ab);

	cab_open(&ab);
	cab_link(&ab, "sub/c", "..");
	cab_link(&ab, "fine", "sub");
	cab_close(&ab);
	cr_assert_eq(cfx_run(fx, &ab), PFX_REFUSED, "[%s] run 2", fx->rname);
	expect_refused(fx, "sub/c", "symlink_redirects");
	expect_made(fx, "fine", "sub");
	expect_contained(fx, NULL);
	cab_free(&ab);
}

Test(links_compose, two_runs)
{
	each_resolver(case_two_runs);
}

/* The same with sub/e planted by hand before a single run. */
static void
case_planted(struct cfx *fx)
{
	struct cab ab;

	plant_dir(fx, "sub");
	plant_link(fx, "sub/e", "c/../..");
	cab_open(&ab);
	cab_link(&ab, "sub/c", "..");
	cab_close(&ab);
	cr_assert_eq(cfx_run(fx, &ab), PFX_REFUSED, "[%s]", fx->rname);
	expect_refused(fx, "sub/c", "symlink_redirects");
	expect_contained(fx, NULL);
	cab_free(&ab);
}

Test(links_compose, planted)
{
	each_resolver(case_planted);
}

/*
 * A chain: s -> t/u/../.. and w -> k/.. are in dest/ (t missing: s is
 * dest/).  The new t -> w is contained (dest/), but puts itself in the
 * middle of s's chain: s would be dest/u/../.., outside.
 */
static void
case_chain(struct cfx *fx)
{
	struct cab ab;

	plant_link(fx, "s", "t/u/../..");
	plant_link(fx, "w", "k/..");
	cab_open(&ab);
	cab_link(&ab, "t", "w");
	cab_close(&ab);
	cr_assert_eq(cfx_run(fx, &ab), PFX_REFUSED, "[%s]", fx->rname);
	expect_refused(fx, "t", "symlink_redirects");
	expect_contained(fx, NULL);
	cab_free(&ab);
}

Test(links_compose, chain)
{
	each_resolver(case_chain);
}

/*
 * The end of an existing chain: s -> t/u/../.. and t -> w are in dest/;
 * the new w -> k/.. makes t dest/ itself, and s leads out.  Both new
 * links on s's way are refused; an unrelated one is made.
 */
static void
case_chain_end(struct cfx *fx)
{
	struct cab ab;

	plant_link(fx, "s", "t/u/../..");
	plant_link(fx, "t", "w");
	cab_open(&ab);
	cab_link(&ab, "w", "k/..");
	cab_link(&ab, "k", "m");
	cab_link(&ab, "other", "w");
	cab_close(&ab);
	cr_assert_eq(cfx_run(fx, &ab), PFX_REFUSED, "[%s]", fx->rname);
	expect_refused(fx, "w", "symlink_redirects");
	expect_refused(fx, "k", "symlink_redirects");
	expect_made(fx, "other", "w");
	expect_contained(fx, NULL);
	cab_free(&ab);
}

Test(links_compose, chain_end)
{
	each_resolver(case_chain_end);
}

/*
 * A link that becomes an alias of a directory at another depth:
 * a/b/l -> al/../../.. is dest/ while a/b/al is missing; the new
 * a/b/al -> ../../x (dest/x, a real directory) would make it
 * dest/x/../../.., outside.
 */
static void
case_alias(struct cfx *fx)
{
	struct cab ab;

	cab_open(&ab);
	cab_dir(&ab, "a/b/");
	cab_link(&ab, "a/b/l", "al/../../..");
	cab_close(&ab);
	cr_assert_eq(cfx_run(fx, &ab), PFX_OK, "[%s] run 1", fx->rname);
	cab_free(&ab);

	cab_open(&ab);
	cab_dir(&ab, "x/");
	cab_link(&ab, "a/b/al", "../../x");
	cab_close(&ab);
	cr_assert_eq(cfx_run(fx, &ab), PFX_REFUSED, "[%s] run 2", fx->rname);
	expect_refused(fx, "a/b/al", "symlink_redirects");
	expect_contained(fx, NULL);
	cab_free(&ab);
}

Test(links_compose, alias)
{
	each_resolver(case_alias);
}

/*
 * Under --skip-old-files a queued link that names an existing link is
 * not made, so the existing one stays; the check made once the links
 * exist sees it lead out through a link this run made, and removes
 * that one.
 */
static void
case_skip_existing(struct cfx *fx)
{
	struct cab ab;

	fx->opt.existing = PFX_EXISTING_SKIP;
	plant_dir(fx, "sub");
	plant_link(fx, "sub/e", "c/../..");
	cab_open(&ab);
	cab_link(&ab, "sub/e", "c");
	cab_link(&ab, "sub/c", "..");
	cab_close(&ab);
	cr_assert_eq(cfx_run(fx, &ab), PFX_REFUSED, "[%s]", fx->rname);
	expect_refused(fx, "sub/c", "symlink_redirects");
	expect_contained(fx, NULL);
	cab_free(&ab);
}

Test(links_compose, skip_existing)
{
	each_resolver(case_skip_existing);
}

/*
 * Negative control: sub/e passes through the new sub/c, which keeps it
 * inside (sub/c is dest/sub/deeper, so sub/e is dest/): it is made.
 */
static void
case_passes_inside(struct cfx *fx)
{
	struct cab ab;

	plant_dir(fx, "sub");
	plant_link(fx, "sub/e", "c/../..");
	cab_open(&ab);
	cab_dir(&ab, "sub/deeper/");
	cab_link(&ab, "sub/c", "../sub/deeper");
	cab_close(&ab);
	cr_assert_eq(cfx_run(fx, &ab), PFX_OK, "[%s]", fx->rname);
	expect_made(fx, "sub/c", "../sub/deeper");
	expect_contained(fx, NULL);
	cab_free(&ab);
}

Test(links_compose, passes_inside)
{
	each_resolver(case_passes_inside);
}

/*
 * Negative control: a link that led out before the run (x, planted) is
 * not the run's doing and blocks nothing, not even the new q it passes
 * through; it is left as it was.
 */
static void
case_already_escaping(struct cfx *fx)
{
	char buf[64];
	ssize_t n;
	struct cab ab;

	plant_link(fx, "x", "../../etc");
	plant_link(fx, "y", "q/../../etc");
	cab_open(&ab);
	cab_dir(&ab, "sub/");
	cab_link(&ab, "q", "sub");
	cab_link(&ab, "n", "sub/f");
	cab_close(&ab);
	cr_assert_eq(cfx_run(fx, &ab), PFX_OK, "[%s]", fx->rname);
	expect_made(fx, "q", "sub");
	expect_made(fx, "n", "sub/f");
	n = readlinkat(fx->destfd, "x", buf, sizeof(buf) - 1);
	cr_assert(n == 9 && memcmp(buf, "../../etc", 9) == 0,
	    "[%s] x changed", fx->rname);
	expect_contained(fx, "x\0y\0");
	cab_free(&ab);
}

Test(links_compose, already_escaping)
{
	each_resolver(case_already_escaping);
}

/* Is NAME in dest/ still the symlink -> TARGET? */
static void
expect_link_kept(const struct cfx *fx, const char *name, const char *target)
{
	char buf[PATH_MAX];
	ssize_t n;

	n = readlinkat(fx->destfd, name, buf, sizeof(buf) - 1);
	cr_assert(n >= 0, "[%s] %s is no longer a link", fx->rname, name);
	buf[n] = '\0';
	cr_assert_str_eq(buf, target, "[%s] %s -> %s", fx->rname, name, buf);
}

/* Add the regular file NAME, empty, to AB. */
static void
cab_file(struct cab *ab, const char *name)
{
	cab_add(ab, name, AE_IFREG, NULL);
}

/* Add the hard link NAME to TARGET, an earlier entry of AB. */
static void
cab_hardlink(struct cab *ab, const char *name, const char *target)
{
	struct archive_entry *e = archive_entry_new();
	int r;

	cr_assert(e != NULL, "archive_entry_new");
	archive_entry_set_pathname(e, name);
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, 0644);
	archive_entry_set_size(e, 0);
	archive_entry_set_hardlink(e, target);
	r = archive_write_header(ab->a, e);
	cr_assert(r == ARCHIVE_OK || r == ARCHIVE_WARN, "header %s", name);
	archive_entry_free(e);
}

/*
 * Plant y -> a/b/c (a real directory) and e -> y/../../x, which climbs
 * out of y's target: dest/a/x, inside.  With y a plain name at its own
 * depth, e reads y/../.. -- dest/'s parent.  A file that replaced the
 * link y would leave e pointing out as soon as a later run makes y a
 * directory.
 */
static void
plant_deep_y(struct cfx *fx)
{
	plant_dir(fx, "a");
	plant_dir(fx, "a/b");
	plant_dir(fx, "a/b/c");
	plant_link(fx, "y", "a/b/c");
	plant_link(fx, "e", "y/../../x");
}

/* A later run makes y a directory: e must still lead inside. */
static void
then_dir_y(struct cfx *fx)
{
	struct cab ab;

	cab_open(&ab);
	cab_dir(&ab, "y/");
	cab_close(&ab);
	(void)cfx_run(fx, &ab);
	expect_contained(fx, NULL);
	cab_free(&ab);
}

/*
 * A file of a contain run may not replace the old link y that the old
 * link e passes through: removing y would send e out.  It is refused,
 * and y stays.
 */
static void
case_file_replaces_link(struct cfx *fx)
{
	struct cab ab;

	plant_deep_y(fx);
	cab_open(&ab);
	cab_file(&ab, "y");
	cab_file(&ab, "z");
	cab_close(&ab);
	cr_assert_eq(cfx_run(fx, &ab), PFX_REFUSED, "[%s]", fx->rname);
	cr_assert(report_of(fx, "y")->status == PFX_ENTRY_REFUSED &&
	    strcmp(report_of(fx, "y")->reason, "symlink_redirects") == 0 &&
	    report_of(fx, "y")->decision == PFX_REJECT,
	    "[%s] y: %s %s, expected refused symlink_redirects", fx->rname,
	    pfx_entry_status_name(report_of(fx, "y")->status),
	    report_of(fx, "y")->reason);
	cr_assert(report_of(fx, "z")->status == PFX_ENTRY_EXTRACTED,
	    "[%s] z not extracted", fx->rname);
	expect_link_kept(fx, "y", "a/b/c");
	expect_contained(fx, NULL);
	cab_free(&ab);
	then_dir_y(fx);
}

Test(links_compose, file_replaces_link)
{
	each_resolver(case_file_replaces_link);
}

/*
 * The same name again and again: each entry is refused, and y stays (the
 * later ones take the refusal remembered, not a new judgement).
 */
static void
case_file_replaces_link_again(struct cfx *fx)
{
	struct cab ab;
	size_t i, refused = 0;

	plant_deep_y(fx);
	cab_open(&ab);
	for (i = 0; i < 3; i++)
		cab_file(&ab, "y");
	cab_close(&ab);
	cr_assert_eq(cfx_run(fx, &ab), PFX_REFUSED, "[%s]", fx->rname);
	for (i = 0; i < fx->nrep; i++)
		if (strcmp(fx->rep[i].name, "y") == 0 &&
		    fx->rep[i].status == PFX_ENTRY_REFUSED &&
		    strcmp(fx->rep[i].reason, "symlink_redirects") == 0)
			refused++;
	cr_assert(refused == 3, "[%s] %zu of 3 entries y refused",
	    fx->rname, refused);
	expect_link_kept(fx, "y", "a/b/c");
	expect_contained(fx, NULL);
	cab_free(&ab);
}

Test(links_compose, file_replaces_link_again)
{
	each_resolver(case_file_replaces_link_again);
}

/* The same with a hard link of the run at y's name. */
static void
case_hardlink_replaces_link(struct cfx *fx)
{
	struct cab ab;

	plant_deep_y(fx);
	cab_open(&ab);
	cab_file(&ab, "f");
	cab_hardlink(&ab, "y", "f");
	cab_close(&ab);
	cr_assert_eq(cfx_run(fx, &ab), PFX_REFUSED, "[%s]", fx->rname);
	expect_redirects_kept(fx, "y");
	expect_link_kept(fx, "y", "a/b/c");
	expect_contained(fx, NULL);
	cab_free(&ab);
	then_dir_y(fx);
}

Test(links_compose, hardlink_replaces_link)
{
	each_resolver(case_hardlink_replaces_link);
}

/*
 * --backup: y moved aside to y~ leaves its name as surely as y replaced,
 * so a file or a hard link that would take it is judged, and refused,
 * before the backup is made (it was made unjudged, and the file put at
 * y, so that then_dir_y() sent e out).
 */
static void
case_backup_replaces_link(struct cfx *fx)
{
	static const char *const names[] = { "y", "y" };
	struct stat st;
	struct cab ab;
	size_t i;

	plant_deep_y(fx);
	fx->opt.backup = PFX_BACKUP_SIMPLE;
	cab_open(&ab);
	cab_file(&ab, "f");
	cab_file(&ab, names[0]);
	cab_hardlink(&ab, names[1], "f");
	cab_close(&ab);
	cr_assert_eq(cfx_run(fx, &ab), PFX_REFUSED, "[%s]", fx->rname);
	for (i = 0; i < fx->nrep; i++)
		if (strcmp(fx->rep[i].name, "y") == 0)
			cr_assert(fx->rep[i].status == PFX_ENTRY_REFUSED &&
			    strcmp(fx->rep[i].reason, "symlink_redirects") ==
			    0, "[%s] y: %s %s, expected refused "
			    "symlink_redirects", fx->rname,
			    pfx_entry_status_name(fx->rep[i].status),
			    fx->rep[i].reason);
	expect_link_kept(fx, "y", "a/b/c");
	cr_assert(fstatat(fx->destfd, "y~", &st, AT_SYMLINK_NOFOLLOW) == -1 &&
	    errno == ENOENT, "[%s] y~ made", fx->rname);
	expect_contained(fx, NULL);
	cab_free(&ab);
	then_dir_y(fx);
}

Test(links_compose, backup_replaces_link)
{
	each_resolver(case_backup_replaces_link);
}

/*
 * --backup moves the old link y aside (to y~) before the file takes its
 * name: y is gone from its name all the same, so the entry is judged as
 * one replacing it.  It was not: y went to y~, the file took y, and a
 * directory y/ later in the same archive (a file gives way to one) sent
 * e -> y/../../x out of dest/ for real.
 */
static void
case_backup_moves_link(struct cfx *fx)
{
	struct stat st;
	struct cab ab;

	plant_deep_y(fx);
	fx->opt.backup = PFX_BACKUP_SIMPLE;
	cab_open(&ab);
	cab_file(&ab, "y");
	cab_dir(&ab, "y/");
	cab_file(&ab, "z");
	cab_close(&ab);
	cr_assert_eq(cfx_run(fx, &ab), PFX_REFUSED, "[%s]", fx->rname);
	expect_redirects_kept(fx, "y");
	cr_assert(report_of(fx, "z")->status == PFX_ENTRY_EXTRACTED,
	    "[%s] z not extracted", fx->rname);
	cr_assert(fstatat(fx->destfd, "y~", &st, AT_SYMLINK_NOFOLLOW) == -1,
	    "[%s] y was moved to y~", fx->rname);
	expect_link_kept(fx, "y", "a/b/c");
	expect_contained(fx, NULL);
	cab_free(&ab);
	then_dir_y(fx);
}

Test(links_compose, backup_moves_link)
{
	each_resolver(case_backup_moves_link);
}

/*
 * --backup moves what is at y over y~: an old link y~ the old link e
 * passes through is replaced as a file over it would be, and a link
 * moved there is read by e in its place.  Both refused; before, e ->
 * y~/../../q led out after the first run, e -> y~/.. after the second.
 */
static void
case_backup_over_link(struct cfx *fx)
{
	struct cab ab;
	int fd;

	plant_dir(fx, "a");
	plant_dir(fx, "a/b");
	plant_dir(fx, "a/b/c");
	fd = openat(fx->destfd, "y", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
	    0644);
	cr_assert(fd >= 0, "create y");
	(void)close(fd);
	plant_link(fx, "y~", "a/b/c");
	plant_link(fx, "e", "y~/../../q");
	fx->opt.backup = PFX_BACKUP_SIMPLE;
	cab_open(&ab);
	cab_file(&ab, "y");
	cab_close(&ab);
	cr_assert_eq(cfx_run(fx, &ab), PFX_REFUSED, "[%s] file", fx->rname);
	expect_refused(fx, "y", "symlink_redirects");
	expect_link_kept(fx, "y~", "a/b/c");
	expect_contained(fx, NULL);

	cr_assert(unlinkat(fx->destfd, "y", 0) == 0, "unlink y");
	cr_assert(unlinkat(fx->destfd, "y~", 0) == 0, "unlink y~");
	cr_assert(unlinkat(fx->destfd, "e", 0) == 0, "unlink e");
	plant_link(fx, "y", "../x");
	plant_link(fx, "e", "y~/..");
	cr_assert_eq(cfx_run(fx, &ab), PFX_REFUSED, "[%s] link", fx->rname);
	expect_redirects_kept(fx, "y");
	expect_link_kept(fx, "y", "../x");
	expect_contained(fx, "y\0");
	cab_free(&ab);
}

Test(links_compose, backup_over_link)
{
	each_resolver(case_backup_over_link);
}

/*
 * NAME, a link of a loop planted in dest/, still loops: openat2 beneath
 * dest/ fails with ELOOP (leading out would be EXDEV).
 */
static void
expect_loops(const struct cfx *fx, const char *name)
{
	struct open_how how;
	int r;

	memset(&how, 0, sizeof(how));
	how.flags = O_PATH | O_CLOEXEC;
	how.resolve = RESOLVE_BENEATH;
	r = (int)syscall(SYS_openat2, fx->destfd, name, &how, sizeof(how));
	if (r >= 0)
		(void)close(r);
	cr_assert(r == -1 && errno == ELOOP, "[%s] %s: %s, expected a loop",
	    fx->rname, name, r >= 0 ? "opened" : strerror(errno));
}

/*
 * A loop already in dest/ (l1 -> l2/.. and l2 -> l1) leads nowhere; a
 * new link l2 -> . over l2 opened it outwards: l1 led to dest/'s
 * parent, after a run that said nothing, since only the links that led
 * inside were held.  A loop may go on looping, not lead out.
 */
static void
case_link_opens_loop(struct cfx *fx)
{
	struct cab ab;

	plant_link(fx, "l1", "l2/..");
	plant_link(fx, "l2", "l1");
	cab_open(&ab);
	cab_link(&ab, "l2", ".");
	cab_link(&ab, "ok", "l2");
	cab_close(&ab);
	cr_assert_eq(cfx_run(fx, &ab), PFX_REFUSED, "[%s]", fx->rname);
	expect_redirects_kept(fx, "l2");
	expect_link_kept(fx, "l2", "l1");
	expect_loops(fx, "l1");
	expect_contained(fx, "l1\0l2\0");
	cab_free(&ab);
}

Test(links_compose, link_opens_loop)
{
	each_resolver(case_link_opens_loop);
}

/*
 * The same loop opened by a file over l2 (l1 -> l2/../..), then made a
 * directory by the next entry: l1 led to dest/'s parent.
 */
static void
case_file_opens_loop(struct cfx *fx)
{
	struct cab ab;

	plant_link(fx, "l1", "l2/../..");
	plant_link(fx, "l2", "l1");
	cab_open(&ab);
	cab_file(&ab, "l2");
	cab_dir(&ab, "l2/");
	cab_close(&ab);
	cr_assert_eq(cfx_run(fx, &ab), PFX_REFUSED, "[%s]", fx->rname);
	expect_redirects_kept(fx, "l2");
	expect_link_kept(fx, "l2", "l1");
	expect_loops(fx, "l1");
	expect_contained(fx, "l1\0l2\0");
	cab_free(&ab);
}

Test(links_compose, file_opens_loop)
{
	each_resolver(case_file_opens_loop);
}

/*
 * --recursive-unlink removes a directory where a file goes, and the
 * links in it with it: d/y, through which e2 -> d/y/../../../x stays in
 * dest/.  Refused as a file over d/y itself would be; before, d went,
 * and the directories d/ and d/y/ later in the archive sent e2 out.
 */
static void
case_unlink_takes_dir_of_link(struct cfx *fx)
{
	struct stat st;
	struct cab ab;

	plant_dir(fx, "d");
	plant_link(fx, "d/y", "a/b/c");
	plant_link(fx, "e2", "d/y/../../../x");
	fx->opt.flags |= PFX_OPT_RECURSIVE_UNLINK;
	cab_open(&ab);
	cab_file(&ab, "d");
	cab_dir(&ab, "d/");
	cab_dir(&ab, "d/y/");
	cab_file(&ab, "z");
	cab_close(&ab);
	cr_assert_eq(cfx_run(fx, &ab), PFX_REFUSED, "[%s]", fx->rname);
	expect_redirects_kept(fx, "d");
	cr_assert(report_of(fx, "z")->status == PFX_ENTRY_EXTRACTED,
	    "[%s] z not extracted", fx->rname);
	cr_assert(fstatat(fx->destfd, "d", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISDIR(st.st_mode), "[%s] d is no longer the directory",
	    fx->rname);
	expect_link_kept(fx, "d/y", "a/b/c");
	expect_contained(fx, NULL);
	cab_free(&ab);
}

Test(links_compose, unlink_takes_dir_of_link)
{
	each_resolver(case_unlink_takes_dir_of_link);
}

/*
 * The same directory again and again: each entry is refused (the later
 * ones take the refusal kept for the name, not a judgement of every
 * link: 20,000 such entries over 5,000 links took more than 10 minutes
 * without it, 0.7 s with it), and d stays.
 */
static void
case_unlink_takes_dir_again(struct cfx *fx)
{
	struct stat st;
	struct cab ab;
	size_t i, refused = 0;

	plant_dir(fx, "d");
	plant_link(fx, "d/y", "a/b/c");
	plant_link(fx, "e2", "d/y/../../../x");
	fx->opt.flags |= PFX_OPT_RECURSIVE_UNLINK;
	cab_open(&ab);
	for (i = 0; i < 3; i++)
		cab_file(&ab, "d");
	cab_close(&ab);
	cr_assert_eq(cfx_run(fx, &ab), PFX_REFUSED, "[%s]", fx->rname);
	for (i = 0; i < fx->nrep; i++)
		if (strcmp(fx->rep[i].name, "d") == 0 &&
		    fx->rep[i].status == PFX_ENTRY_REFUSED &&
		    strcmp(fx->rep[i].reason, "symlink_redirects") == 0)
			refused++;
	cr_assert(refused == 3, "[%s] %zu of 3 entries d refused",
	    fx->rname, refused);
	cr_assert(fstatat(fx->destfd, "d", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISDIR(st.st_mode), "[%s] d is no longer the directory",
	    fx->rname);
	expect_link_kept(fx, "d/y", "a/b/c");
	expect_contained(fx, NULL);
	cab_free(&ab);
}

Test(links_compose, unlink_takes_dir_again)
{
	each_resolver(case_unlink_takes_dir_again);
}

/*
 * Negative control: --recursive-unlink of a directory whose links no
 * old link passes through goes on as before.
 */
static void
case_unlink_takes_lone_dir(struct cfx *fx)
{
	struct stat st;
	struct cab ab;

	plant_dir(fx, "d");
	plant_link(fx, "d/y", "a/b/c");
	plant_link(fx, "w", "d/y/../b");
	fx->opt.flags |= PFX_OPT_RECURSIVE_UNLINK;
	cab_open(&ab);
	cab_file(&ab, "d");
	cab_close(&ab);
	cr_assert_eq(cfx_run(fx, &ab), PFX_OK, "[%s]", fx->rname);
	cr_assert(fstatat(fx->destfd, "d", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISREG(st.st_mode), "[%s] d is not the new file", fx->rname);
	cab_free(&ab);
}

Test(links_compose, unlink_takes_lone_dir)
{
	each_resolver(case_unlink_takes_lone_dir);
}

/*
 * Negative control: no old link passes through y (w -> a/b only looks
 * like it might), so a file replaces it as before.
 */
static void
case_file_replaces_lone_link(struct cfx *fx)
{
	struct stat st;
	struct cab ab;

	plant_dir(fx, "a");
	plant_dir(fx, "a/b");
	plant_link(fx, "y", "a/b");
	plant_link(fx, "w", "a/b/../b");
	cab_open(&ab);
	cab_file(&ab, "y");
	cab_close(&ab);
	cr_assert_eq(cfx_run(fx, &ab), PFX_OK, "[%s]", fx->rname);
	cr_assert(report_of(fx, "y")->status == PFX_ENTRY_EXTRACTED,
	    "[%s] y: %s", fx->rname, report_of(fx, "y")->reason);
	cr_assert(fstatat(fx->destfd, "y", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISREG(st.st_mode), "[%s] y is not the new file", fx->rname);
	expect_contained(fx, NULL);
	cab_free(&ab);
}

Test(links_compose, file_replaces_lone_link)
{
	each_resolver(case_file_replaces_lone_link);
}

/* --- pfx_options.queued: links named in archive order ------------------ */

/* "Q name" per queued() call and "R name status" per report, in order. */
struct order_log {
	char text[1024];
	size_t len;
};

static void
log_line(struct order_log *l, const char *kind, const struct pfx_entry *e,
    const char *what)
{
	int n = snprintf(l->text + l->len, sizeof(l->text) - l->len,
	    "%s %s%s%s\n", kind, e->name, what != NULL ? " " : "",
	    what != NULL ? what : "");

	cr_assert(n > 0 && (size_t)n < sizeof(l->text) - l->len, "log");
	l->len += (size_t)n;
}

static void
on_queued_log(void *arg, const struct pfx_entry *e)
{
	cr_assert(e->path != NULL && e->type == PFX_TYPE_SYMLINK,
	    "%s queued without a path, or not a link", e->name);
	log_line(arg, "Q", e, NULL);
}

static void
on_report_log(void *arg, const struct pfx_entry *e)
{
	log_line(arg, "R", e, e->reason);
}

/*
 * Links wait for the end to be judged, but each is told to queued() at
 * its place among the reports: after every entry before it, before any
 * after it.  One that a later entry replaces is reported then; one that
 * leads out is refused at the end; both were told when read.
 */
static void
case_queued_in_order(struct cfx *fx)
{
	static const char want[] =
	    "R d/ none\n"
	    "Q l1\n"
	    "R e/ none\n"
	    "Q out\n"
	    "Q gone\n"
	    "R gone replaced\n"
	    "R gone/ none\n"
	    "R l1 none\n"
	    "R out symlink_escapes\n";
	struct order_log log;
	struct cab ab;

	memset(&log, 0, sizeof(log));
	fx->opt.hooks.report = on_report_log;
	fx->opt.queued = on_queued_log;
	fx->opt.hooks.arg = &log;
	cab_open(&ab);
	cab_dir(&ab, "d");
	cab_link(&ab, "l1", "d");
	cab_dir(&ab, "e");
	cab_link(&ab, "out", "../outside/sentinel");
	cab_link(&ab, "gone", "d");
	cab_dir(&ab, "gone");
	cab_close(&ab);
	cr_assert_eq(cfx_run(fx, &ab), PFX_REFUSED, "[%s]", fx->rname);
	cr_assert_str_eq(log.text, want, "[%s] got:\n%s", fx->rname,
	    log.text);
	expect_contained(fx, NULL);
	cab_free(&ab);
}

Test(links_compose, queued_in_order)
{
	each_resolver(case_queued_in_order);
}

/* --- pfx_root_list_links() --------------------------------------------- */

struct listed {
	char text[8192];	/* "path>target\n" per link, in walk order */
	size_t len;
	unsigned int n;
	unsigned int stop_at;	/* answer -ECANCELED at this call; 0: never */
};

static int
on_link(void *arg, const char *rel, const char *target)
{
	struct listed *l = arg;
	int n;

	n = snprintf(l->text + l->len, sizeof(l->text) - l->len, "%s>%s\n",
	    rel, target);
	cr_assert(n > 0 && (size_t)n < sizeof(l->text) - l->len, "listing");
	l->len += (size_t)n;
	l->n++;
	return l->n == l->stop_at ? -ECANCELED : 0;
}

/* Does the listing hold the line "REL>TARGET" exactly once? */
static bool
listed_once(const struct listed *l, const char *rel, const char *target)
{
	char line[512];
	const char *p, *q;

	(void)snprintf(line, sizeof(line), "%s>%s\n", rel, target);
	p = strstr(l->text, line);
	if (p == NULL || (p != l->text && p[-1] != '\n'))
		return false;
	q = strstr(p + 1, line);
	return q == NULL;
}

/*
 * Every link is listed once, at every depth (past the levels whose
 * listing stays open), in a wide directory too, and no link is followed:
 * dl -> a names a directory full of links, listed only as themselves.
 */
static void
case_list_links(struct cfx *fx)
{
	static const char *const deep = "a/b/c/d/e/f/g/h/i/j/k";
	struct pfx_root root;
	struct listed l;
	char path[256], name[32];
	unsigned int i;
	size_t n;
	int fds;

	memset(&l, 0, sizeof(l));
	for (n = 1; n <= strlen(deep); n += 2) {
		memcpy(path, deep, n);
		path[n] = '\0';
		plant_dir(fx, path);
		(void)snprintf(path + n, sizeof(path) - n, "/l");
		plant_link(fx, path, "../x");
	}
	plant_dir(fx, "wide");
	for (i = 0; i < 300; i++) {
		(void)snprintf(name, sizeof(name), "wide/%u", i);
		if (i == 150)
			plant_link(fx, name, "w");
		else
			plant_dir(fx, name);
	}
	plant_link(fx, "wide/299/after", "z");
	plant_link(fx, "dl", "a");
	plant_link(fx, "abs", "/etc/passwd");
	fds = tfx_count_fds();
	cr_assert(pfx_root_open(&root, AT_FDCWD, fx->dest, fx->how) == 0,
	    "root");
	cr_assert_eq(pfx_root_list_links(&root, on_link, &l), 0,
	    "[%s] list", fx->rname);
	cr_assert_eq(l.n, 11 + 4, "[%s] %u links:\n%s", fx->rname, l.n,
	    l.text);
	for (n = 1; n <= strlen(deep); n += 2) {
		memcpy(path, deep, n);
		path[n] = '\0';
		(void)snprintf(path + n, sizeof(path) - n, "/l");
		cr_assert(listed_once(&l, path, "../x"), "[%s] %s:\n%s",
		    fx->rname, path, l.text);
	}
	cr_assert(listed_once(&l, "wide/150", "w"), "[%s] wide/150", fx->rname);
	cr_assert(listed_once(&l, "wide/299/after", "z"), "[%s] after",
	    fx->rname);
	cr_assert(listed_once(&l, "dl", "a"), "[%s] dl", fx->rname);
	cr_assert(listed_once(&l, "abs", "/etc/passwd"), "[%s] abs",
	    fx->rname);

	/* FN's answer stops the walk and comes back as it is. */
	memset(&l, 0, sizeof(l));
	l.stop_at = 3;
	cr_assert_eq(pfx_root_list_links(&root, on_link, &l), -ECANCELED,
	    "[%s] stop", fx->rname);
	cr_assert_eq(l.n, 3, "[%s] went on after the stop", fx->rname);
	pfx_root_close(&root);
	cr_assert_eq(tfx_count_fds(), fds, "[%s] descriptors leaked",
	    fx->rname);
}

Test(links_compose, list_links)
{
	each_resolver(case_list_links);
}

/* decide(): when "late" comes, plant sub/e -> c/../.. (sub/ is made). */
static int
plant_mid_run(void *arg, const struct pfx_entry *e, char *rename,
    size_t cap)
{
	(void)rename;
	(void)cap;
	if (strcmp(e->name, "late") == 0)
		plant_link(arg, "sub/e", "c/../..");
	return PFX_HOOK_CONTINUE;
}

/*
 * An empty DEST at the start holds no link from before the run, so none
 * is listed at the end: one someone else plants while the run goes on
 * is theirs, not the run's to keep inside (they could as well aim it
 * outside), as it was only by timing before.  Here the decide() hook
 * plants sub/e mid-run: sub/c -> .. is made.  The same sub/e there
 * before the run refuses it (case_planted).
 */
static void
case_planted_mid_run(struct cfx *fx)
{
	struct cab ab;

	cab_open(&ab);
	cab_dir(&ab, "sub/");
	cab_file(&ab, "late");
	cab_link(&ab, "sub/c", "..");
	cab_close(&ab);
	fx->opt.hooks.decide = plant_mid_run;
	cr_assert_eq(cfx_run(fx, &ab), PFX_OK, "[%s]", fx->rname);
	expect_made(fx, "sub/c", "..");
	expect_link_kept(fx, "sub/e", "c/../..");
	cab_free(&ab);
}

Test(links_compose, planted_mid_run_in_empty_dest)
{
	each_resolver(case_planted_mid_run);
}

/* --- relinking a cpio-style link's names (links.c xtr_relink_all) ------ */

/*
 * A hard-link entry that carries data, to an empty file of the run, is
 * cpio's "data on the last link": the data becomes a new file, and every
 * name the run gave the target is linked to it.  Only a name that still
 * holds the target may be: the last entry of a name wins, as in GNU tar
 * and bsdtar, and a symlink, directory or file that a later entry put
 * there stays.  (The tester's case: with --symlinks=root, b -> target
 * became a third name of the data.)
 *
 * libarchive's writer drops the data of a hard-link entry, so these
 * archives are written byte by byte, each entry with a pax header (a
 * pax hard link may carry data; a ustar one never does).
 */

#define RELINK_DATA "DATA\n"

/* Start AB as an archive written by hand (AB->a stays NULL). */
static void
rab_open(struct cab *ab)
{
	memset(ab, 0, sizeof(*ab));
	ab->buf = malloc(ARCHIVE_CAP);
	cr_assert(ab->buf != NULL, "malloc");
}

/* Append a zeroed 512-byte block to AB.  Return: it. */
static unsigned char *
rab_block(struct cab *ab)
{
	unsigned char *b;

	cr_assert(ab->used + 512 <= ARCHIVE_CAP, "archive too big");
	b = (unsigned char *)ab->buf + ab->used;
	memset(b, 0, 512);
	ab->used += 512;
	return b;
}

/* Write V in octal into the WIDTH-byte field at F, NUL-terminated. */
static void
rab_octal(unsigned char *f, size_t width, unsigned long long v)
{
	char tmp[32];

	(void)snprintf(tmp, sizeof(tmp), "%0*llo", (int)(width - 1), v);
	memcpy(f, tmp, width);
}

/* Append a ustar header for NAME of TYPE, SIZE bytes, hard link LINK. */
static void
rab_header(struct cab *ab, const char *name, char type, size_t size,
    const char *link)
{
	unsigned char *h = rab_block(ab);
	unsigned int sum = 0;
	size_t i;

	cr_assert(strlen(name) < 100 && strlen(link) < 100, "name too long");
	memcpy(h, name, strlen(name));
	rab_octal(h + 100, 8, type == '5' || type == '2' ? 0755 : 0644);
	rab_octal(h + 108, 8, 0);
	rab_octal(h + 116, 8, 0);
	rab_octal(h + 124, 12, size);
	rab_octal(h + 136, 12, 1300000000);
	h[156] = (unsigned char)type;
	memcpy(h + 157, link, strlen(link));
	memcpy(h + 257, "ustar", 6);
	memcpy(h + 263, "00", 2);
	memset(h + 148, ' ', 8);
	for (i = 0; i < 512; i++)
		sum += h[i];
	rab_octal(h + 148, 7, sum);
	h[155] = ' ';
}

/* Append LEN bytes of DATA, padded to whole blocks. */
static void
rab_data(struct cab *ab, const char *data, size_t len)
{
	size_t n;

	while (len > 0) {
		n = len < 512 ? len : 512;
		memcpy(rab_block(ab), data, n);
		data += n;
		len -= n;
	}
}

/*
 * Append the entry NAME of TYPE ('0' file, '1' hard link to LINK, '2'
 * symlink to LINK, '5' directory) with DATA, behind a pax header that
 * gives its path.
 */
static void
rab_entry(struct cab *ab, const char *name, char type, const char *data,
    const char *link)
{
	char rec[256];
	size_t base = strlen(" path=\n") + strlen(name), n = base + 1;

	/* A pax record counts its own length's digits. */
	while ((size_t)snprintf(rec, sizeof(rec), "%zu", n) + base != n)
		n = (size_t)snprintf(rec, sizeof(rec), "%zu", n) + base;
	cr_assert(n < sizeof(rec), "pax record too long");
	(void)snprintf(rec, sizeof(rec), "%zu path=%s\n", n, name);
	cr_assert(strlen(rec) == n, "pax record length");
	rab_header(ab, "PaxHeaders/x", 'x', n, "");
	rab_data(ab, rec, n);
	rab_header(ab, name, type, strlen(data), link);
	rab_data(ab, data, strlen(data));
}

static void
rab_close(struct cab *ab)
{
	(void)rab_block(ab);
	(void)rab_block(ab);
}

/* NAME in dest/ is a regular file (no symlink followed) holding DATA. */
static void
expect_regular(const struct cfx *fx, const char *name, const char *data)
{
	char buf[64];
	struct stat st;
	ssize_t n;
	int fd;

	fd = openat(fx->destfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	cr_assert(fd >= 0, "[%s] %s: %s", fx->rname, name, strerror(errno));
	cr_assert(fstat(fd, &st) == 0 && S_ISREG(st.st_mode),
	    "[%s] %s is not a regular file", fx->rname, name);
	n = read(fd, buf, sizeof(buf) - 1);
	(void)close(fd);
	cr_assert(n >= 0, "[%s] read %s", fx->rname, name);
	buf[n] = '\0';
	cr_assert_str_eq(buf, data, "[%s] %s holds \"%s\"", fx->rname, name,
	    buf);
}

/* Are the names A and B in dest/ (not followed) one inode? */
static bool
same_inode(const struct cfx *fx, const char *a, const char *b)
{
	struct stat sa, sb;

	cr_assert(fstatat(fx->destfd, a, &sa, AT_SYMLINK_NOFOLLOW) == 0,
	    "[%s] stat %s", fx->rname, a);
	cr_assert(fstatat(fx->destfd, b, &sb, AT_SYMLINK_NOFOLLOW) == 0,
	    "[%s] stat %s", fx->rname, b);
	return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* a and c are one file, holding the data c carried, with LINKS names. */
static void
expect_relinked(const struct cfx *fx, nlink_t links)
{
	struct stat st;

	expect_regular(fx, "a", RELINK_DATA);
	expect_regular(fx, "c", RELINK_DATA);
	cr_assert(same_inode(fx, "a", "c"), "[%s] a and c not linked",
	    fx->rname);
	cr_assert(fstatat(fx->destfd, "c", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    st.st_nlink == links, "[%s] c has %ju names, expected %ju",
	    fx->rname, (uintmax_t)st.st_nlink, (uintmax_t)links);
}

/* Run CASE once per --symlinks mode and resolver, each in a fresh tree. */
static void
each_mode(void (*fn)(struct cfx *))
{
	static const struct {
		enum pfx_symlinks mode;
		const char *name;
	} ms[] = {
		{ PFX_SYMLINKS_ROOT, "root" },
		{ PFX_SYMLINKS_CONTAIN, "contain" },
		{ PFX_SYMLINKS_REFUSE, "refuse" },
	};
	static const struct {
		enum pfx_resolver how;
		const char *name;
	} rs[] = {
		{ PFX_RESOLVER_OPENAT2, "openat2" },
		{ PFX_RESOLVER_WALK, "walk" },
	};
	static char label[64];
	struct cfx fx;
	size_t i, j;

	for (i = 0; i < sizeof(ms) / sizeof(ms[0]); i++) {
		for (j = 0; j < sizeof(rs) / sizeof(rs[0]); j++) {
			(void)snprintf(label, sizeof(label), "%s, %s",
			    rs[j].name, ms[i].name);
			cfx_begin(&fx, rs[j].how, label);
			fx.opt.symlinks = ms[i].mode;
			fn(&fx);
			cfx_end(&fx);
		}
	}
}

/*
 * a, its hard links b and s, then symlinks at both names (b -> target,
 * missing; s -> a, the very file relinked), then c, a hard link to a
 * with data.  Made symlinks stay what they are; refused ones leave the
 * hard link, which is then a name of a still, and is relinked.
 */
static void
case_symlink_takes_name(struct cfx *fx)
{
	bool made = fx->opt.symlinks != PFX_SYMLINKS_REFUSE;
	struct cab ab;

	rab_open(&ab);
	rab_entry(&ab, "a", '0', "", "");
	rab_entry(&ab, "b", '1', "", "a");
	rab_entry(&ab, "s", '1', "", "a");
	rab_entry(&ab, "b", '2', "", "target");
	rab_entry(&ab, "s", '2', "", "a");
	rab_entry(&ab, "c", '1', RELINK_DATA, "a");
	rab_close(&ab);
	cr_assert_eq(cfx_run(fx, &ab), made ? PFX_OK : PFX_REFUSED, "[%s]",
	    fx->rname);
	cr_assert(report_of(fx, "c")->status == PFX_ENTRY_EXTRACTED,
	    "[%s] c: %s", fx->rname, report_of(fx, "c")->reason);
	if (made) {
		expect_link_kept(fx, "b", "target");
		expect_link_kept(fx, "s", "a");
		expect_relinked(fx, 2);
	} else {
		expect_relinked(fx, 4);
		cr_assert(same_inode(fx, "a", "b") && same_inode(fx, "a", "s"),
		    "[%s] b and s not relinked", fx->rname);
	}
	expect_contained(fx, NULL);
	cab_free(&ab);
}

Test(links_compose_relink, symlink_takes_name)
{
	each_mode(case_symlink_takes_name);
}

/*
 * A directory (with a file in it) takes b: it stays, and the relink
 * does not try it.
 */
static void
case_dir_takes_name(struct cfx *fx)
{
	struct stat st;
	struct cab ab;

	rab_open(&ab);
	rab_entry(&ab, "a", '0', "", "");
	rab_entry(&ab, "b", '1', "", "a");
	rab_entry(&ab, "b/", '5', "", "");
	rab_entry(&ab, "b/in", '0', "IN\n", "");
	rab_entry(&ab, "c", '1', RELINK_DATA, "a");
	rab_close(&ab);
	cr_assert_eq(cfx_run(fx, &ab), PFX_OK, "[%s]", fx->rname);
	cr_assert(fstatat(fx->destfd, "b", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISDIR(st.st_mode), "[%s] b is no longer a directory",
	    fx->rname);
	expect_regular(fx, "b/in", "IN\n");
	expect_relinked(fx, 2);
	cab_free(&ab);
}

Test(links_compose_relink, dir_takes_name)
{
	each_mode(case_dir_takes_name);
}

/*
 * Directories take eight of a's ten names (a, b0..b7, s): a and s still
 * hold it (st_nlink 2), and both are relinked.  The eight records left
 * in the table are not names of a: the search for a's names, in the
 * table's random order, ended after any two records it found, leaving
 * one of a and s empty about 44 times in 45.
 */
static void
case_dirs_take_names(struct cfx *fx)
{
	char name[16];
	struct cab ab;
	int i;

	rab_open(&ab);
	rab_entry(&ab, "a", '0', "", "");
	for (i = 0; i < 8; i++) {
		(void)snprintf(name, sizeof(name), "b%d", i);
		rab_entry(&ab, name, '1', "", "a");
	}
	rab_entry(&ab, "s", '1', "", "a");
	for (i = 0; i < 8; i++) {
		(void)snprintf(name, sizeof(name), "b%d/", i);
		rab_entry(&ab, name, '5', "", "");
	}
	rab_entry(&ab, "c", '1', RELINK_DATA, "a");
	rab_close(&ab);
	cr_assert_eq(cfx_run(fx, &ab), PFX_OK, "[%s]", fx->rname);
	expect_relinked(fx, 3);
	expect_regular(fx, "s", RELINK_DATA);
	cr_assert(same_inode(fx, "a", "s"), "[%s] s not relinked",
	    fx->rname);
	cab_free(&ab);
}

Test(links_compose_relink, dirs_take_names)
{
	each_mode(case_dirs_take_names);
}

/* A file of its own takes b: it keeps its content and its inode. */
static void
case_file_takes_name(struct cfx *fx)
{
	struct cab ab;

	rab_open(&ab);
	rab_entry(&ab, "a", '0', "", "");
	rab_entry(&ab, "b", '1', "", "a");
	rab_entry(&ab, "b", '0', "OWN\n", "");
	rab_entry(&ab, "c", '1', RELINK_DATA, "a");
	rab_close(&ab);
	cr_assert_eq(cfx_run(fx, &ab), PFX_OK, "[%s]", fx->rname);
	expect_regular(fx, "b", "OWN\n");
	cr_assert(!same_inode(fx, "a", "b"), "[%s] b relinked", fx->rname);
	expect_relinked(fx, 2);
	cab_free(&ab);
}

Test(links_compose_relink, file_takes_name)
{
	each_mode(case_file_takes_name);
}

/*
 * --atomic over a populated destination: b, staged beside its final
 * name, which holds an old symlink (b -> x, replaceable: no link passes
 * through it), is relinked as staged, so that b ends a name of the data.
 */
static void
case_atomic_over_old_link(struct cfx *fx)
{
	struct cab ab;

	plant_link(fx, "b", "x");
	fx->opt.flags |= PFX_OPT_ATOMIC;
	rab_open(&ab);
	rab_entry(&ab, "a", '0', "", "");
	rab_entry(&ab, "b", '1', "", "a");
	rab_entry(&ab, "c", '1', RELINK_DATA, "a");
	rab_close(&ab);
	cr_assert_eq(cfx_run(fx, &ab), PFX_OK, "[%s] %s", fx->rname,
	    fx->res.message);
	expect_relinked(fx, 3);
	cr_assert(same_inode(fx, "a", "b"), "[%s] b not relinked",
	    fx->rname);
	expect_contained(fx, NULL);
	cab_free(&ab);
}

Test(links_compose_relink, atomic_over_old_link)
{
	each_mode(case_atomic_over_old_link);
}

/*
 * --atomic, --symlinks=root, the tester's archive: the run's own symlink
 * b -> target is a later entry than the staged hard link b, and must
 * never become a name of the data.  (Whatever else becomes of b: the
 * journal may give the whole run up.)
 */
static void
case_atomic_own_link(struct cfx *fx)
{
	struct pfx_input in = { .fd = -1 };
	struct stat st;
	struct cab ab;

	plant_dir(fx, "pre");
	fx->opt.flags |= PFX_OPT_ATOMIC;
	fx->opt.symlinks = PFX_SYMLINKS_ROOT;
	rab_open(&ab);
	rab_entry(&ab, "a", '0', "", "");
	rab_entry(&ab, "b", '1', "", "a");
	rab_entry(&ab, "b", '2', "", "target");
	rab_entry(&ab, "c", '1', RELINK_DATA, "a");
	rab_close(&ab);
	in.buf = ab.buf;
	in.len = ab.used;
	(void)pfx_extract(&in, AT_FDCWD, fx->dest, &fx->opt, &fx->res);
	if (fstatat(fx->destfd, "b", &st, AT_SYMLINK_NOFOLLOW) == 0)
		expect_link_kept(fx, "b", "target");
	expect_contained(fx, NULL);
	cab_free(&ab);
}

Test(links_compose_relink, atomic_own_link)
{
	each_resolver(case_atomic_own_link);
}

/*
 * N groups of an empty file e<i>, HARD hard links h<i> to it, then l<i>,
 * a hard link to it with data, into AB.
 */
static void
cpio_groups(struct cab *ab, int n, int hard)
{
	char name[32], target[32];
	int i;

	rab_open(ab);
	for (i = 0; i < n; i++) {
		(void)snprintf(name, sizeof(name), "e%d", i);
		rab_header(ab, name, '0', 0, "");
	}
	for (i = 0; i < n && hard; i++) {
		(void)snprintf(name, sizeof(name), "h%d", i);
		(void)snprintf(target, sizeof(target), "e%d", i);
		rab_header(ab, name, '1', 0, target);
	}
	for (i = 0; i < n; i++) {
		(void)snprintf(name, sizeof(name), "l%d", i);
		(void)snprintf(target, sizeof(target), "e%d", i);
		rab_entry(ab, name, '1', RELINK_DATA, target);
	}
	rab_close(ab);
}

/*
 * Many cpio-style links to targets of one name each: every target is
 * found by its name (no search of the table), relinked, and no limit is
 * reached.
 */
static void
case_many_single_name(struct cfx *fx)
{
	struct cab ab;

	fx->opt.hooks.report = NULL;	/* more than MAX_REPORTS */
	cpio_groups(&ab, 6000, 0);
	cr_assert_eq(cfx_run(fx, &ab), PFX_OK, "[%s] %s", fx->rname,
	    fx->res.message);
	expect_regular(fx, "e0", RELINK_DATA);
	expect_regular(fx, "e5999", RELINK_DATA);
	cr_assert(same_inode(fx, "e5999", "l5999"), "[%s] not relinked",
	    fx->rname);
	cab_free(&ab);
}

Test(links_compose_relink, many_single_name, .timeout = 60)
{
	each_resolver(case_many_single_name);
}

/*
 * Targets with a second name each: every cpio-style link searches the
 * table of all the files made for the target's names, N times a table
 * of 2N: quadratic.  The run stops at the limit that keeps it linear,
 * saying so, with the first groups relinked.
 */
static void
case_quadratic_stops(struct cfx *fx)
{
	struct pfx_input in = { .fd = -1 };
	struct cab ab;

	fx->opt.hooks.report = NULL;	/* more than MAX_REPORTS */
	cpio_groups(&ab, 4000, 1);
	in.buf = ab.buf;
	in.len = ab.used;
	(void)pfx_extract(&in, AT_FDCWD, fx->dest, &fx->opt, &fx->res);
	cr_assert_eq(fx->res.status, PFX_FATAL, "[%s] %d: %s", fx->rname,
	    fx->res.status, fx->res.message);
	cr_assert_eq(fx->res.error, EFBIG, "[%s] %s", fx->rname,
	    fx->res.message);
	cr_assert(strstr(fx->res.message, "hard links that carry data") !=
	    NULL, "[%s] %s", fx->rname, fx->res.message);
	expect_regular(fx, "e0", RELINK_DATA);
	cr_assert(same_inode(fx, "e0", "h0") && same_inode(fx, "e0", "l0"),
	    "[%s] the first group not relinked", fx->rname);
	expect_contained(fx, NULL);
	cab_free(&ab);
}

Test(links_compose_relink, quadratic_stops, .timeout = 60)
{
	each_resolver(case_quadratic_stops);
}
