/*
 * test_atomic.c -- all-or-nothing extraction (PFX_OPT_ATOMIC) and the
 * platform pieces behind it: pfx_stage_open/publish/discard and
 * pfx_remove_tree.
 *
 * Each case runs in a fresh directory made by fx_begin():
 *
 *	$TMPDIR/pfx-atomic.XXXXXX/	top: DEST is made or looked for here
 *	`-- outside/			watched: must end exactly as it began
 *	    |-- sentinel		"sentinel\n"
 *	    `-- dir/keep		"keep\n"
 *
 * and fx_end() checks what every case must keep: outside/ unchanged, no
 * staging directory (".NAME.pfx-") left in top, and no descriptor
 * leaked.  The extraction cases run once per resolver.  Archives are
 * built in memory with libarchive's writer.
 */
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <criterion/criterion.h>

#include "pfextract.h"
#include "fixture.h"

#define ARCHIVE_CAP (1u << 20)
#define NOBODY 65534
#define STAGE_MARK ".pfx-"

struct fx {
	char top[PATH_MAX / 2];
	int topfd;
	char *outside;		/* snapshot of outside/ */
	int nfds;
	enum pfx_resolver how;
	/* For the hooks. */
	int decide_calls;
	bool dest_seen;		/* DEST existed during a decide() call */
	bool stage_seen;	/* a staging directory existed then */
	const char *dest;	/* the DEST of the run, for the hooks */
	const char *abort_at;	/* decide() aborts at this entry */
	int plant;		/* what decide() does at abort_at */
	char stage[NAME_MAX + 1];	/* the staging name PLANT_SWAP used */
};

/* What decide() plants in the run's way before aborting or going on. */
enum {
	PLANT_NONE = 0,
	PLANT_LINKS,		/* symlinks inside the staging tree to outside */
	PLANT_DEST,		/* make DEST (it was absent) */
	PLANT_FILL,		/* put a file into the empty DEST */
	PLANT_SWAP,		/* exchange the staging name with outside/ */
	PLANT_SWAP_ABORT,	/* the same, then abort the run */
};

static const enum pfx_resolver resolvers[] = {
	PFX_RESOLVER_OPENAT2, PFX_RESOLVER_WALK
};

/* --- archives ---------------------------------------------------------- */

struct ab {
	struct archive *a;
	char *buf;
	size_t used;
};

static void
ab_open(struct ab *ab)
{
	ab->buf = malloc(ARCHIVE_CAP);
	cr_assert(ab->buf != NULL);
	ab->used = 0;
	ab->a = archive_write_new();
	cr_assert(ab->a != NULL);
	cr_assert(archive_write_set_format_pax(ab->a) == ARCHIVE_OK);
	/* No padding after the end marker: a cut lands in the entries. */
	cr_assert(archive_write_set_bytes_in_last_block(ab->a, 1) ==
	    ARCHIVE_OK);
	cr_assert(archive_write_open_memory(ab->a, ab->buf, ARCHIVE_CAP,
	    &ab->used) == ARCHIVE_OK);
}

static void
ab_add(struct ab *ab, const char *name, mode_t type, mode_t perm,
    const char *data, const char *link)
{
	struct archive_entry *e = archive_entry_new();
	size_t len = data != NULL ? strlen(data) : 0;

	cr_assert(e != NULL);
	archive_entry_set_pathname(e, name);
	archive_entry_set_filetype(e, type);
	archive_entry_set_perm(e, perm);
	archive_entry_set_mtime(e, 1300000000, 0);
	archive_entry_set_size(e, (la_int64_t)len);
	if (link != NULL)
		archive_entry_set_symlink(e, link);
	cr_assert(archive_write_header(ab->a, e) == ARCHIVE_OK, "%s: %s",
	    name, archive_error_string(ab->a));
	if (len > 0)
		cr_assert(archive_write_data(ab->a, data, len) ==
		    (la_ssize_t)len);
	archive_entry_free(e);
}

static void
ab_close(struct ab *ab)
{
	cr_assert(archive_write_close(ab->a) == ARCHIVE_OK);
	archive_write_free(ab->a);
	ab->a = NULL;
}

/*
 * The tree most cases extract: a read-only directory, a private one,
 * files, and a symlink that stays inside (created only with
 * --symlinks=contain, refused otherwise).
 */
static void
ab_tree(struct ab *ab, bool with_link)
{
	ab_open(ab);
	ab_add(ab, "top/", AE_IFDIR, 0755, NULL, NULL);
	ab_add(ab, "top/a.txt", AE_IFREG, 0644, "alpha\n", NULL);
	ab_add(ab, "top/ro/", AE_IFDIR, 0555, NULL, NULL);
	ab_add(ab, "top/ro/b.txt", AE_IFREG, 0400, "beta\n", NULL);
	ab_add(ab, "top/ro/deep/er/c.txt", AE_IFREG, 0644, "gamma\n", NULL);
	ab_add(ab, "top/closed/", AE_IFDIR, 0000, NULL, NULL);
	ab_add(ab, "top/closed/d.txt", AE_IFREG, 0600, "delta\n", NULL);
	if (with_link)
		ab_add(ab, "top/link", AE_IFLNK, 0777, NULL, "a.txt");
	ab_add(ab, "top/z.txt", AE_IFREG, 0644, "zeta\n", NULL);
	ab_close(ab);
}

/* --- the fixture -------------------------------------------------------- */

static void
put_file(int dirfd, const char *name, const char *data)
{
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
	    0644);

	cr_assert(fd >= 0, "create %s: %s", name, strerror(errno));
	cr_assert(write(fd, data, strlen(data)) == (ssize_t)strlen(data));
	cr_assert(close(fd) == 0);
}

static void
fx_begin(struct fx *fx, enum pfx_resolver how)
{
	const char *tmp = getenv("TMPDIR");
	int ofd;

	memset(fx, 0, sizeof(*fx));
	fx->how = how;
	fx->nfds = tfx_count_fds();
	snprintf(fx->top, sizeof(fx->top), "%s/pfx-atomic.XXXXXX",
	    tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
	cr_assert(mkdtemp(fx->top) != NULL, "mkdtemp: %s", strerror(errno));
	fx->topfd = open(fx->top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert(fx->topfd >= 0);
	cr_assert(mkdirat(fx->topfd, "outside", 0755) == 0);
	ofd = openat(fx->topfd, "outside", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert(ofd >= 0);
	put_file(ofd, "sentinel", "sentinel\n");
	cr_assert(mkdirat(ofd, "dir", 0755) == 0);
	put_file(ofd, "dir/keep", "keep\n");
	fx->outside = tfx_snapshot(ofd, 0);
	cr_assert(close(ofd) == 0);
}

/* Names in top beginning with "." and holding STAGE_MARK: staging. */
static int
staging_count(const struct fx *fx)
{
	char **names;
	ssize_t n, i;
	int found = 0;

	n = tfx_read_names(fx->topfd, ".", &names);
	cr_assert(n >= 0);
	for (i = 0; i < n; i++) {
		if (names[i][0] == '.' && strstr(names[i], STAGE_MARK) != NULL)
			found++;
		free(names[i]);
	}
	free(names);
	return found;
}

/* The names in top, joined by spaces. */
static char *
top_names(const struct fx *fx)
{
	static char buf[1024];
	char **names;
	ssize_t n, i;

	buf[0] = '\0';
	n = tfx_read_names(fx->topfd, ".", &names);
	cr_assert(n >= 0);
	for (i = 0; i < n; i++) {
		if (i > 0)
			strncat(buf, " ", sizeof(buf) - strlen(buf) - 1);
		strncat(buf, names[i], sizeof(buf) - strlen(buf) - 1);
		free(names[i]);
	}
	free(names);
	return buf;
}

static void
fx_end(struct fx *fx)
{
	char *now;
	int ofd;

	ofd = openat(fx->topfd, "outside", O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC);
	cr_assert(ofd >= 0);
	now = tfx_snapshot(ofd, 0);
	(void)close(ofd);
	tfx_expect_same_snapshot("atomic", "outside", fx->outside, now);
	free(now);
	free(fx->outside);
	cr_expect(staging_count(fx) == 0, "a staging directory was left: %s",
	    top_names(fx));
	(void)close(fx->topfd);
	cr_expect(tfx_rm_tree(fx->top) == 0);
	cr_expect(tfx_count_fds() == fx->nfds, "descriptors: %d, were %d",
	    tfx_count_fds(), fx->nfds);
}

static bool
have_resolver(enum pfx_resolver how)
{
	struct pfx_root root;

	if (pfx_root_open(&root, AT_FDCWD, "/", how) < 0)
		return false;
	pfx_root_close(&root);
	return true;
}

/* decide(): look at what the rest of the world sees during the run. */
static int
watch(void *arg, const struct pfx_entry *e, char *rename, size_t cap)
{
	struct fx *fx = arg;
	struct stat st;
	char **names;
	ssize_t n, i;
	int sfd;

	(void)rename;
	(void)cap;
	fx->decide_calls++;
	if (fstatat(fx->topfd, fx->dest, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (!S_ISDIR(st.st_mode) || st.st_nlink != 2)
			fx->dest_seen = true;	/* more than an empty dir */
		else {
			int dfd = openat(fx->topfd, fx->dest, O_RDONLY |
			    O_DIRECTORY | O_CLOEXEC);
			char **dn;
			ssize_t k = dfd >= 0 ? tfx_read_names(dfd, ".", &dn) :
			    -1;

			if (k != 0)
				fx->dest_seen = true;
			for (i = 0; i < k; i++)
				free(dn[i]);
			if (k > 0)
				free(dn);
			if (dfd >= 0)
				(void)close(dfd);
		}
	}
	n = tfx_read_names(fx->topfd, ".", &names);
	cr_assert(n >= 0);
	sfd = -1;
	for (i = 0; i < n; i++) {
		if (names[i][0] == '.' && strstr(names[i], STAGE_MARK) !=
		    NULL) {
			fx->stage_seen = true;
			if (sfd < 0)
				snprintf(fx->stage, sizeof(fx->stage), "%s",
				    names[i]);
			if (sfd < 0)
				sfd = openat(fx->topfd, names[i], O_RDONLY |
				    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		}
		free(names[i]);
	}
	free(names);
	if (fx->abort_at == NULL || strcmp(e->name, fx->abort_at) != 0) {
		if (sfd >= 0)
			(void)close(sfd);
		return PFX_HOOK_CONTINUE;
	}
	switch (fx->plant) {
	case PLANT_LINKS: {
		char abs[PATH_MAX];

		cr_assert(sfd >= 0);
		/* Links a careless rm -rf would follow out of the tree. */
		snprintf(abs, sizeof(abs), "%s/outside", fx->top);
		cr_assert(symlinkat(abs, sfd, "tree/top/ro/to-outside") == 0,
		    "%s", strerror(errno));
		cr_assert(symlinkat("../../../outside/dir", sfd,
		    "tree/top/rel") == 0);
		cr_assert(symlinkat(abs, sfd, "tree/top/closed/deep") == 0 ||
		    errno == EACCES);
		break;
	}
	case PLANT_DEST:
		cr_assert(mkdirat(fx->topfd, fx->dest, 0755) == 0);
		break;
	case PLANT_SWAP:
	case PLANT_SWAP_ABORT:
		/* As someone who can write top would, between two calls. */
		cr_assert(renameat2(fx->topfd, fx->stage, fx->topfd,
		    "outside", RENAME_EXCHANGE) == 0, "%s", strerror(errno));
		break;
	case PLANT_FILL: {
		int dfd = openat(fx->topfd, fx->dest, O_RDONLY | O_DIRECTORY |
		    O_CLOEXEC);

		cr_assert(dfd >= 0);
		put_file(dfd, "theirs", "theirs\n");
		(void)close(dfd);
		break;
	}
	}
	if (sfd >= 0)
		(void)close(sfd);
	return fx->plant == PLANT_LINKS || fx->plant == PLANT_SWAP_ABORT ?
	    PFX_HOOK_ABORT : PFX_HOOK_CONTINUE;
}

/* Run ARCHIVE into DEST (from top) with FLAGS and OPT's other settings. */
static enum pfx_status
fx_run(struct fx *fx, const struct ab *ab, size_t len, const char *dest,
    struct pfx_options *opt, struct pfx_result *res)
{
	struct pfx_input in;

	memset(&in, 0, sizeof(in));
	in.buf = ab->buf;
	in.len = len;
	in.fd = -1;
	opt->flags |= PFX_OPT_ATOMIC;
	opt->resolver = fx->how;
	opt->hooks.decide = watch;
	opt->hooks.arg = fx;
	fx->dest = dest;
	return pfx_extract(&in, fx->topfd, dest, opt, res);
}

/* Is DEST/REL a file holding DATA with mode MODE? */
static void
expect_file(const struct fx *fx, const char *rel, const char *data,
    mode_t mode)
{
	char buf[256];
	struct stat st;
	ssize_t n;
	int fd;

	fd = openat(fx->topfd, rel, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	cr_assert(fd >= 0, "%s: %s", rel, strerror(errno));
	cr_assert(fstat(fd, &st) == 0);
	n = read(fd, buf, sizeof(buf) - 1);
	(void)close(fd);
	cr_assert(n >= 0);
	buf[n] = '\0';
	cr_expect_str_eq(buf, data, "%s", rel);
	cr_expect((st.st_mode & 07777) == mode, "%s: mode %o, not %o", rel,
	    (unsigned)(st.st_mode & 07777), (unsigned)mode);
}

static void
expect_mode(const struct fx *fx, const char *rel, mode_t type, mode_t mode)
{
	struct stat st;

	cr_assert(fstatat(fx->topfd, rel, &st, AT_SYMLINK_NOFOLLOW) == 0,
	    "%s: %s", rel, strerror(errno));
	cr_expect((st.st_mode & S_IFMT) == type, "%s: type", rel);
	cr_expect((st.st_mode & 07777) == mode, "%s: mode %o, not %o", rel,
	    (unsigned)(st.st_mode & 07777), (unsigned)mode);
}

/* The extracted tree of ab_tree() is all there beneath DEST. */
static void
expect_tree(const struct fx *fx, const char *dest, bool with_link)
{
	char p[PATH_MAX];

#define AT(rel) (snprintf(p, sizeof(p), "%s/%s", dest, rel), p)
	expect_file(fx, AT("top/a.txt"), "alpha\n", 0644);
	expect_file(fx, AT("top/ro/b.txt"), "beta\n", 0400);
	expect_file(fx, AT("top/ro/deep/er/c.txt"), "gamma\n", 0644);
	expect_file(fx, AT("top/closed/d.txt"), "delta\n", 0600);
	expect_file(fx, AT("top/z.txt"), "zeta\n", 0644);
	expect_mode(fx, AT("top/ro"), S_IFDIR, 0555);
	expect_mode(fx, AT("top/closed"), S_IFDIR, 0000);
	expect_mode(fx, AT("top"), S_IFDIR, 0755);
	if (with_link)
		expect_mode(fx, AT("top/link"), S_IFLNK, 0777);
#undef AT
}

TestSuite(atomic, .timeout = 60);

/* --- success ------------------------------------------------------------ */

static void
case_new_dest(enum pfx_resolver how)
{
	struct pfx_options opt;
	struct pfx_result res;
	struct ab ab;
	struct fx fx;

	fx_begin(&fx, how);
	ab_tree(&ab, true);
	pfx_options_init(&opt);
	opt.symlinks = PFX_SYMLINKS_CONTAIN;
	(void)umask(022);
	cr_expect(fx_run(&fx, &ab, ab.used, "new", &opt, &res) == PFX_OK,
	    "%s", res.message);
	/* Nothing at DEST while entries were written; a staging tree was. */
	cr_expect(fx.decide_calls > 0);
	cr_expect(!fx.dest_seen, "DEST was visible during the run");
	cr_expect(fx.stage_seen, "no staging directory during the run");
	expect_tree(&fx, "new", true);
	expect_mode(&fx, "new", S_IFDIR, 0755);	/* 0777 less the umask */
	cr_expect_str_eq(top_names(&fx), "new outside");
	cr_expect_str_eq(res.resolver, how == PFX_RESOLVER_WALK ? "walk" :
	    "openat2");
	free(ab.buf);
	fx_end(&fx);
}

Test(atomic, new_dest)
{
	size_t i;

	for (i = 0; i < sizeof(resolvers) / sizeof(resolvers[0]); i++)
		if (have_resolver(resolvers[i]))
			case_new_dest(resolvers[i]);
}

/* DEST named through a parent path, and from a directory descriptor. */
Test(atomic, nested_dest)
{
	struct pfx_options opt;
	struct pfx_result res;
	struct ab ab;
	struct fx fx;

	fx_begin(&fx, PFX_RESOLVER_AUTO);
	ab_tree(&ab, false);
	pfx_options_init(&opt);
	cr_assert(mkdirat(fx.topfd, "p", 0755) == 0);
	cr_expect(fx_run(&fx, &ab, ab.used, "p//new//", &opt, &res) ==
	    PFX_OK, "%s", res.message);
	expect_tree(&fx, "p/new", false);
	cr_expect_str_eq(top_names(&fx), "outside p");
	free(ab.buf);
	fx_end(&fx);
}

static void
case_empty_dest(enum pfx_resolver how)
{
	struct pfx_options opt;
	struct pfx_result res;
	struct stat before, after;
	struct ab ab;
	struct fx fx;

	fx_begin(&fx, how);
	ab_tree(&ab, false);
	pfx_options_init(&opt);
	cr_assert(mkdirat(fx.topfd, "empty", 0750) == 0);
	cr_assert(fchmodat(fx.topfd, "empty", 0750, 0) == 0);
	cr_assert(fstatat(fx.topfd, "empty", &before, 0) == 0);
	cr_expect(fx_run(&fx, &ab, ab.used, "empty", &opt, &res) == PFX_OK,
	    "%s", res.message);
	cr_expect(!fx.dest_seen, "DEST was filled during the run");
	expect_tree(&fx, "empty", false);
	/* A new tree in its place, with the old directory's mode. */
	cr_assert(fstatat(fx.topfd, "empty", &after, 0) == 0);
	cr_expect(after.st_ino != before.st_ino);
	expect_mode(&fx, "empty", S_IFDIR, 0750);
	cr_expect_str_eq(top_names(&fx), "empty outside");
	free(ab.buf);
	fx_end(&fx);
}

Test(atomic, empty_dest)
{
	size_t i;

	for (i = 0; i < sizeof(resolvers) / sizeof(resolvers[0]); i++)
		if (have_resolver(resolvers[i]))
			case_empty_dest(resolvers[i]);
}

/* --- DEST that may not be replaced: refused before anything is read --- */

static void
case_refused_dest(enum pfx_resolver how)
{
	struct pfx_options opt;
	struct pfx_result res;
	struct { const char *dest; int error; const char *text; } c[] = {
		/* Populated, in a parent others can write: swappable. */
		{ "full", ENOTEMPTY, "only where no one else can swap it" },
		{ "file", ENOTDIR, "needs a directory or no destination" },
		{ "link", ELOOP, "a symbolic link" },
		{ "nowhere/new", ENOENT, "cannot stage" },
	};
	char *snap, *now;
	struct ab ab;
	struct fx fx;
	size_t i;
	int dfd;

	fx_begin(&fx, how);
	ab_tree(&ab, false);
	cr_assert(mkdirat(fx.topfd, "full", 0755) == 0);
	dfd = openat(fx.topfd, "full", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert(dfd >= 0);
	put_file(dfd, "mine", "mine\n");
	(void)close(dfd);
	put_file(fx.topfd, "file", "file\n");
	cr_assert(mkdirat(fx.topfd, "emptyout", 0755) == 0);
	cr_assert(symlinkat("emptyout", fx.topfd, "link") == 0);
	cr_assert(fchmod(fx.topfd, 0777) == 0);
	snap = tfx_snapshot(fx.topfd, 0);
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		pfx_options_init(&opt);
		cr_expect(fx_run(&fx, &ab, ab.used, c[i].dest, &opt, &res) ==
		    PFX_FATAL, "%s", c[i].dest);
		cr_expect(res.error == c[i].error, "%s: error %d (%s)",
		    c[i].dest, res.error, res.message);
		cr_expect(strstr(res.message, c[i].text) != NULL,
		    "%s: message '%s'", c[i].dest, res.message);
		cr_expect(fx.decide_calls == 0 && res.stats.entries == 0,
		    "%s: the archive was read", c[i].dest);
		now = tfx_snapshot(fx.topfd, 0);
		tfx_expect_same_snapshot("refused_dest", c[i].dest, snap, now);
		free(now);
	}
	free(snap);
	free(ab.buf);
	fx_end(&fx);
}

Test(atomic, refused_dest)
{
	size_t i;

	for (i = 0; i < sizeof(resolvers) / sizeof(resolvers[0]); i++)
		if (have_resolver(resolvers[i]))
			case_refused_dest(resolvers[i]);
}

/* --- failures mid-archive leave DEST as it was --------------------------- */

enum failure { F_TRUNCATED, F_LIMIT, F_STRICT, F_ABORT, F_NFAILURES };

static const char *const failure_names[] = {
	"truncated", "max_bytes", "strict", "abort"
};

/* Run ab_tree() into DEST so that it fails as F says. */
static void
run_failing(struct fx *fx, struct ab *ab, const char *dest, enum failure f)
{
	struct pfx_options opt;
	struct pfx_result res;
	size_t len = ab->used;

	pfx_options_init(&opt);
	fx->abort_at = NULL;
	fx->plant = PLANT_NONE;
	switch (f) {
	case F_TRUNCATED:
		/* In the last entry's data, before the end marker. */
		len = ab->used - 1024 - 300;
		break;
	case F_LIMIT:
		opt.limits.max_bytes = 20;
		break;
	case F_STRICT:
		opt.flags |= PFX_OPT_STRICT;	/* the symlink is refused */
		break;
	case F_ABORT:
		fx->abort_at = "top/z.txt";
		fx->plant = PLANT_LINKS;
		break;
	case F_NFAILURES:
		break;
	}
	cr_expect(fx_run(fx, ab, len, dest, &opt, &res) == PFX_FATAL,
	    "%s: %s", failure_names[f], res.message);
	cr_expect(res.stats.entries > 2, "%s: stopped too early: %s",
	    failure_names[f], res.message);
	cr_expect(strstr(res.message, "staging") == NULL, "%s: %s",
	    failure_names[f], res.message);
}

static void
case_failures(enum pfx_resolver how)
{
	struct stat before, after;
	struct ab ab;
	struct fx fx;
	char **names;
	int f;

	fx_begin(&fx, how);
	ab_tree(&ab, true);
	cr_assert(mkdirat(fx.topfd, "empty", 0700) == 0);
	cr_assert(fstatat(fx.topfd, "empty", &before, 0) == 0);
	for (f = 0; f < F_NFAILURES; f++) {
		run_failing(&fx, &ab, "absent", (enum failure)f);
		run_failing(&fx, &ab, "empty", (enum failure)f);
		cr_expect_str_eq(top_names(&fx), "empty outside", "%s",
		    failure_names[f]);
		cr_assert(fstatat(fx.topfd, "empty", &after, 0) == 0);
		cr_expect(after.st_ino == before.st_ino &&
		    (after.st_mode & 07777) == 0700, "%s: DEST changed",
		    failure_names[f]);
		cr_expect(tfx_read_names(fx.topfd, "empty", &names) == 0);
		free(names);
	}
	free(ab.buf);
	fx_end(&fx);
}

Test(atomic, failures)
{
	size_t i;

	for (i = 0; i < sizeof(resolvers) / sizeof(resolvers[0]); i++)
		if (have_resolver(resolvers[i]))
			case_failures(resolvers[i]);
}

/* Refusals without --strict still publish, without the refused. */
Test(atomic, refusal_publishes)
{
	struct pfx_options opt;
	struct pfx_result res;
	struct ab ab;
	struct fx fx;

	fx_begin(&fx, PFX_RESOLVER_AUTO);
	ab_tree(&ab, true);
	pfx_options_init(&opt);
	cr_expect(fx_run(&fx, &ab, ab.used, "new", &opt, &res) ==
	    PFX_REFUSED, "%s", res.message);
	cr_expect(res.stats.refused == 1);
	expect_tree(&fx, "new", false);
	cr_expect(faccessat(fx.topfd, "new/top/link", F_OK,
	    AT_SYMLINK_NOFOLLOW) == -1);
	free(ab.buf);
	fx_end(&fx);
}

/* DEST appears, or the empty DEST is filled, during the run. */
Test(atomic, dest_changed)
{
	struct pfx_options opt;
	struct pfx_result res;
	struct stat before, after;
	char **names;
	struct ab ab;
	struct fx fx;

	fx_begin(&fx, PFX_RESOLVER_AUTO);
	ab_tree(&ab, false);
	pfx_options_init(&opt);
	fx.abort_at = "top/z.txt";
	fx.plant = PLANT_DEST;
	cr_expect(fx_run(&fx, &ab, ab.used, "new", &opt, &res) == PFX_FATAL);
	cr_expect(res.error == EEXIST, "%d %s", res.error, res.message);
	cr_expect(strstr(res.message, "not replaced") != NULL, "%s",
	    res.message);
	cr_expect(tfx_read_names(fx.topfd, "new", &names) == 0);
	free(names);

	cr_assert(mkdirat(fx.topfd, "empty", 0755) == 0);
	cr_assert(fstatat(fx.topfd, "empty", &before, 0) == 0);
	pfx_options_init(&opt);
	fx.plant = PLANT_FILL;
	cr_expect(fx_run(&fx, &ab, ab.used, "empty", &opt, &res) ==
	    PFX_FATAL);
	cr_expect(res.error == ENOTEMPTY, "%d %s", res.error, res.message);
	cr_assert(fstatat(fx.topfd, "empty", &after, 0) == 0);
	cr_expect(after.st_ino == before.st_ino, "DEST was swapped");
	expect_file(&fx, "empty/theirs", "theirs\n", 0644);
	cr_expect(tfx_read_names(fx.topfd, "empty", &names) == 1);
	free(names[0]);
	free(names);
	free(ab.buf);
	fx_end(&fx);
}

/*
 * Someone who can write DEST's parent exchanges the staging name with a
 * directory of theirs (here outside/, which fx_end() checks) during the
 * run.  Whether the run then fails or publishes, nothing is removed
 * from, or written into, the directory swapped in; the run says so and
 * is fatal.  Then the "attacker" swaps back, and what is left at the
 * staging name is the run's own private directory, empty.
 */
static void
case_stage_swapped(enum pfx_resolver how, int plant)
{
	struct pfx_options opt;
	struct pfx_result res;
	struct ab ab;
	struct fx fx;
	char **names;

	fx_begin(&fx, how);
	ab_tree(&ab, false);
	pfx_options_init(&opt);
	fx.abort_at = "top/z.txt";
	fx.plant = plant;
	cr_expect(fx_run(&fx, &ab, ab.used, "new", &opt, &res) == PFX_FATAL);
	cr_expect(res.error == ESTALE, "%d %s", res.error, res.message);
	cr_expect(strstr(res.message, "was left untouched") != NULL, "%s",
	    res.message);
	cr_expect(strstr(res.message, fx.stage) != NULL, "%s", res.message);
	if (plant == PLANT_SWAP) {
		/* The tree itself came from the private directory. */
		cr_expect(strstr(res.message, "published") != NULL, "%s",
		    res.message);
		expect_tree(&fx, "new", false);
	} else {
		cr_expect(faccessat(fx.topfd, "new", F_OK,
		    AT_SYMLINK_NOFOLLOW) == -1 && errno == ENOENT);
	}
	cr_assert(renameat2(fx.topfd, fx.stage, fx.topfd, "outside",
	    RENAME_EXCHANGE) == 0, "%s", strerror(errno));
	cr_expect(tfx_read_names(fx.topfd, fx.stage, &names) == 0,
	    "the private directory is not empty");
	free(names);
	cr_expect(unlinkat(fx.topfd, fx.stage, AT_REMOVEDIR) == 0);
	free(ab.buf);
	fx_end(&fx);
}

Test(atomic, stage_swapped)
{
	size_t i;

	for (i = 0; i < sizeof(resolvers) / sizeof(resolvers[0]); i++) {
		if (!have_resolver(resolvers[i]))
			continue;
		case_stage_swapped(resolvers[i], PLANT_SWAP);
		case_stage_swapped(resolvers[i], PLANT_SWAP_ABORT);
	}
}

/*
 * As a user without privileges the read-only and closed (0000)
 * directories of a failed run really stop an unlink: the removal has to
 * open them up first.
 */
Test(atomic, unprivileged_failure)
{
	struct ab ab;
	struct fx fx;

	if (geteuid() == 0) {
		cr_assert(setgroups(0, NULL) == 0);
		cr_assert(setresgid(NOBODY, NOBODY, NOBODY) == 0);
		cr_assert(setresuid(NOBODY, NOBODY, NOBODY) == 0);
		(void)prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
	}
	fx_begin(&fx, PFX_RESOLVER_AUTO);
	ab_tree(&ab, true);
	run_failing(&fx, &ab, "new", F_STRICT);
	run_failing(&fx, &ab, "new", F_ABORT);
	cr_expect_str_eq(top_names(&fx), "outside");
	free(ab.buf);
	fx_end(&fx);
}

/* --- pfx_remove_tree ----------------------------------------------------- */

/* Make a hostile tree at top/victim: see the comment of remove_tree. */
static void
make_victim(struct fx *fx, unsigned int depth)
{
	char abs[PATH_MAX];
	unsigned int i;
	int fd, next;

	cr_assert(mkdirat(fx->topfd, "victim", 0755) == 0);
	fd = openat(fx->topfd, "victim", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert(fd >= 0);
	snprintf(abs, sizeof(abs), "%s/outside", fx->top);
	cr_assert(symlinkat(abs, fd, "abs") == 0);
	cr_assert(symlinkat("../outside/sentinel", fd, "rel") == 0);
	cr_assert(symlinkat("../outside/dir", fd, "reldir") == 0);
	put_file(fd, "f", "f\n");
	cr_assert(mkfifoat(fd, "fifo", 0600) == 0);
	for (i = 0; i < depth; i++) {
		cr_assert(mkdirat(fd, "d", 0755) == 0);
		put_file(fd, "g", "g\n");
		cr_assert(symlinkat(abs, fd, "out") == 0);
		next = openat(fd, "d", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		cr_assert(next >= 0);
		/* Every third level read-only, every fifth closed. */
		if (i % 3 == 1)
			cr_assert(fchmod(fd, 0555) == 0);
		if (i % 5 == 4)
			cr_assert(fchmod(fd, 0000) == 0);
		(void)close(fd);
		fd = next;
	}
	(void)close(fd);
}

static void
case_remove_tree(unsigned int depth)
{
	struct fx fx;

	fx_begin(&fx, PFX_RESOLVER_AUTO);
	make_victim(&fx, depth);
	cr_expect(pfx_remove_tree(fx.topfd, "victim") == 0);
	cr_expect_str_eq(top_names(&fx), "outside");
	fx_end(&fx);
}

/*
 * A tree of files, a FIFO, symlinks to outside (absolute and relative,
 * to a file and to a directory) at every level, read-only and closed
 * directories, 600 levels deep: all of it goes, nothing outside does.
 */
Test(atomic, remove_tree)
{
	case_remove_tree(0);
	case_remove_tree(1);
	case_remove_tree(600);
}

Test(atomic, remove_tree_unprivileged)
{
	if (geteuid() == 0) {
		cr_assert(setgroups(0, NULL) == 0);
		cr_assert(setresgid(NOBODY, NOBODY, NOBODY) == 0);
		cr_assert(setresuid(NOBODY, NOBODY, NOBODY) == 0);
		(void)prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
	}
	case_remove_tree(40);
}

Test(atomic, remove_tree_args)
{
	struct fx fx;

	fx_begin(&fx, PFX_RESOLVER_AUTO);
	cr_expect(pfx_remove_tree(fx.topfd, "") == -EINVAL);
	cr_expect(pfx_remove_tree(fx.topfd, ".") == -EINVAL);
	cr_expect(pfx_remove_tree(fx.topfd, "..") == -EINVAL);
	cr_expect(pfx_remove_tree(fx.topfd, "outside/dir") == -EINVAL);
	cr_expect(pfx_remove_tree(fx.topfd, "missing") == -ENOENT);
	/* A symlink NAME is removed itself, its target kept. */
	cr_assert(symlinkat("outside", fx.topfd, "l") == 0);
	cr_expect(pfx_remove_tree(fx.topfd, "l") == 0);
	cr_expect_str_eq(top_names(&fx), "outside");
	fx_end(&fx);
}

/* --- the staging calls directly ----------------------------------------- */

Test(atomic, stage_calls)
{
	struct pfx_stage st;
	struct fx fx;
	struct stat sb;

	fx_begin(&fx, PFX_RESOLVER_AUTO);
	cr_assert(pfx_stage_open(&st, fx.topfd, "d") == 0);
	cr_expect(strncmp(st.name, ".d.pfx-", 7) == 0 &&
	    strlen(st.name) == 15, "%s", st.name);
	cr_assert(fstat(st.fd, &sb) == 0);
	cr_expect((sb.st_mode & 07777) == 0700);
	put_file(st.fd, "x", "x\n");
	cr_expect(pfx_stage_discard(&st) == 0);
	cr_expect(pfx_stage_discard(&st) == 0);	/* twice: no-op */
	cr_expect_str_eq(top_names(&fx), "outside");

	cr_assert(pfx_stage_open(&st, fx.topfd, "d") == 0);
	put_file(st.fd, "x", "x\n");
	cr_expect(pfx_stage_publish(&st, PFX_STAGE_SYNC) == 0);
	cr_expect(pfx_stage_discard(&st) == 0);	/* after publish: no-op */
	expect_file(&fx, "d/x", "x\n", 0644);
	cr_expect_str_eq(top_names(&fx), "d outside");
	fx_end(&fx);
}

/* A long DEST name is cut in the staging name, which still fits. */
Test(atomic, long_name)
{
	struct pfx_options opt;
	struct pfx_result res;
	char name[256];
	struct ab ab;
	struct fx fx;

	memset(name, 'n', 255);
	name[255] = '\0';
	fx_begin(&fx, PFX_RESOLVER_AUTO);
	ab_tree(&ab, false);
	pfx_options_init(&opt);
	cr_expect(fx_run(&fx, &ab, ab.used, name, &opt, &res) == PFX_OK,
	    "%s", res.message);
	cr_expect(faccessat(fx.topfd, name, F_OK, AT_SYMLINK_NOFOLLOW) == 0);
	free(ab.buf);
	fx_end(&fx);
}

/* Fill the directory FD with N subdirectories, each holding a file. */
static void
make_wide(int fd, unsigned int n)
{
	char name[32];
	unsigned int i;
	int sub;

	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "w%u", i);
		cr_assert(mkdirat(fd, name, 0755) == 0);
		sub = openat(fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		cr_assert(sub >= 0);
		put_file(sub, "f", "f\n");
		(void)close(sub);
	}
}

/*
 * Wide directories, at the top (whose listing stays open) and twelve
 * levels down (where only a position is kept): every entry goes.
 */
Test(atomic, remove_tree_wide)
{
	struct fx fx;
	unsigned int i;
	int fd, next;

	fx_begin(&fx, PFX_RESOLVER_AUTO);
	cr_assert(mkdirat(fx.topfd, "victim", 0755) == 0);
	fd = openat(fx.topfd, "victim", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert(fd >= 0);
	make_wide(fd, 500);
	for (i = 0; i < 12; i++) {
		cr_assert(mkdirat(fd, "n", 0755) == 0);
		next = openat(fd, "n", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		cr_assert(next >= 0);
		(void)close(fd);
		fd = next;
	}
	make_wide(fd, 500);
	(void)close(fd);
	cr_expect(pfx_remove_tree(fx.topfd, "victim") == 0);
	cr_expect_str_eq(top_names(&fx), "outside");
	fx_end(&fx);
}

/* --- a stop once every name is in place --------------------------------- */

static volatile sig_atomic_t stop_flag;

/* report(): ask the run to stop once a link is made (after the commit). */
static void
stop_at_link(void *arg, const struct pfx_entry *e)
{
	(void)arg;
	if (e->type == PFX_TYPE_SYMLINK && e->status == PFX_ENTRY_EXTRACTED)
		stop_flag = 1;
}

/*
 * Into a populated DEST, a stop after the journal put every name in
 * place (links and the directories' modes come last) cannot take them
 * back: the run is fatal, and its message must say that DEST changed
 * rather than read as a failure that left it as it was.
 */
Test(atomic, populated_stopped_after_commit)
{
	struct pfx_options opt;
	struct pfx_result res;
	struct ab ab;
	struct fx fx;
	int dfd;

	fx_begin(&fx, PFX_RESOLVER_AUTO);
	cr_assert(mkdirat(fx.topfd, "pop", 0755) == 0);
	dfd = openat(fx.topfd, "pop", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert(dfd >= 0);
	put_file(dfd, "old", "old\n");
	(void)close(dfd);
	ab_open(&ab);
	ab_add(&ab, "new/", AE_IFDIR, 0755, NULL, NULL);
	ab_add(&ab, "new/f", AE_IFREG, 0644, "f\n", NULL);
	ab_add(&ab, "new/link", AE_IFLNK, 0777, NULL, "f");
	ab_close(&ab);
	pfx_options_init(&opt);
	opt.flags &= ~PFX_OPT_SANDBOX;
	opt.symlinks = PFX_SYMLINKS_CONTAIN;
	stop_flag = 0;
	opt.cancel = &stop_flag;
	opt.hooks.report = stop_at_link;
	cr_assert(fx_run(&fx, &ab, ab.used, "pop", &opt, &res) == PFX_FATAL,
	    "%s", res.message);
	cr_expect(stop_flag == 1);
	expect_file(&fx, "pop/new/f", "f\n", 0644);
	cr_expect(strstr(res.message, "every file of the archive was in "
	    "place") != NULL, "%s", res.message);
	free(ab.buf);
	fx_end(&fx);
}
