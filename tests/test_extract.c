/*
 * test_extract.c -- tests of the extractor through its library API
 * (pfextract.h): every entry type, hostile names, hard and symbolic
 * links, what already exists in the destination, metadata, member
 * selection, the caller's hooks, --strict, every format and filter
 * libarchive writes, sparse files, bad input, every kind of input and
 * destination, and two threads at once.
 *
 * Archives are built in memory at test time with libarchive's writer
 * (struct ab); the few that the writer will not make (a hard link that
 * carries data, an old GNU sparse header) are written byte by byte
 * (struct raw).  Each case runs in a fresh fixture, made by fx_begin() in
 * a mkdtemp() directory and removed by fx_end():
 *
 *	$TMPDIR/pfx-extract.XXXXXX/	top (not watched)
 *	|-- dest/			the destination, empty at the start
 *	`-- outside/			watched: must end exactly as it began
 *	    |-- secret			"outside secret\n", 0600
 *	    |-- victim			"victim\n", 0644
 *	    `-- sub/			0755
 *	        `-- inner		"inner\n", 0644
 *
 * fx_extract() runs pfx_extract() from memory into dest/, collects the
 * report() callbacks, and checks what every run must keep: one report per
 * entry, counters that add up, a status that matches them, a message and
 * an errno exactly when the run was fatal, a sentence for every reason
 * code.  fx_end() asserts that outside/ is unchanged (a recursive snapshot
 * of names, types, modes, sizes, link counts, mtimes and content hashes),
 * that no descriptor leaked, and that dest/ holds no temporary (".pfx-")
 * and, unless the case allows them, no symlink; built with
 * AddressSanitizer, each test ends by asking LeakSanitizer whether memory
 * leaked.  Most cases run once per resolver, openat2 and walk; every
 * failure message names the case and the resolver.  The cases run as
 * whoever runs the tests: a few need root (ownership) and are skipped
 * without it, one drops root to mean something (a read-only directory).
 */
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <sys/xattr.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pthread.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/landlock.h>

#include <archive.h>
#include <archive_entry.h>
#include <criterion/criterion.h>

#include "pfextract.h"
#include "fixture.h"

#define SECRET	"outside secret\n"
#define VICTIM	"victim\n"
#define INNER	"inner\n"

/* The mtime given to everything watched: far from "now", so writes show. */
#define OLD_SEC	1000000000

/* The mtime of archive entries unless a case says otherwise. */
#define ENTRY_SEC 1300000000

/* Temporaries of the platform layer and of links.c start with this. */
#define TEMP_PREFIX ".pfx-"

/* Room for one archive built in memory. */
#define ARCHIVE_CAP (4u << 20)

/* The user and group the read-only case runs as when started as root. */
#define NOBODY 65534

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* One report() callback (or one decide() call), copied. */
struct rec {
	char *name;
	char *path;		/* NULL when the entry had none */
	char *target;		/* link target, or NULL */
	char *reason;
	enum pfx_entry_type type;
	enum pfx_decision decision;
	enum pfx_entry_status status;
	mode_t mode;
	int64_t size;
	int64_t mtime;
	int error;
	uint64_t bytes;
	char *backup;		/* pfx_entry.backup, or NULL */
};

struct reports {
	struct rec *v;
	size_t n, cap;
	bool oom;		/* a copy failed: the list is incomplete */
};

/* What decide() answers for the entry called NAME. */
struct rule {
	const char *name;
	int answer;		/* PFX_HOOK_* */
	const char *rename;	/* with PFX_HOOK_RENAME; NULL: fill the
				   buffer with no NUL, a caller's bug */
};

/* One fixture: the tree above and what one case learns from its runs. */
struct fx {
	const char *cname;	/* the case, for messages */
	const char *rname;	/* the resolver, for messages */
	enum pfx_resolver how;
	char top[PATH_MAX / 2];
	char dest[PATH_MAX];
	int topfd;
	int destfd;
	int outfd;
	char *before;		/* snapshot of outside/ */
	bool snap_nlink;	/* compare link counts in snapshots */
	bool links_ok;		/* dest/ may hold symlinks at the end */
	int nfds;		/* descriptors open when the case began */
	time_t started;
	struct pfx_options opt;
	struct pfx_result res;
	struct reports rep;	/* report() calls of the last run */
	struct reports seen;	/* decide() calls of the last run */
	const struct rule *rules;
	size_t nrules;
};

/* An archive being written to memory by libarchive. */
struct ab {
	struct archive *a;
	char *buf;
	size_t cap;
	size_t used;
};

/* An archive written byte by byte. */
struct raw {
	unsigned char *buf;
	size_t len;
	size_t cap;
};

/* A list of names, for directory listings. */
struct names {
	char **v;
	size_t n, cap;
};

static const enum pfx_resolver resolvers[] = {
	PFX_RESOLVER_OPENAT2,
	PFX_RESOLVER_WALK
};

/* The top of the fixture in use, so that the suite's fini can remove it. */
static char live_top[PATH_MAX / 2];

/* --- messages ---------------------------------------------------------- */

static void check(const struct fx *, int, bool, const char *, ...)
    __attribute__((format(printf, 4, 5)));

/* Fail the test, naming the case, the resolver and the line, unless OK. */
static void
check(const struct fx *fx, int line, bool ok, const char *fmt, ...)
{
	char msg[4096];
	va_list ap;

	if (ok)
		return;
	va_start(ap, fmt);
	(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	cr_assert_fail("%s [%s] line %d: %s", fx->cname, fx->rname, line,
	    msg);
}

#define CHECK(cond, ...) check(fx, __LINE__, (cond), __VA_ARGS__)

static const char *
status_name(enum pfx_status s)
{
	switch (s) {
	case PFX_OK:
		return "PFX_OK";
	case PFX_REFUSED:
		return "PFX_REFUSED";
	case PFX_FATAL:
		return "PFX_FATAL";
	}
	return "?";
}

static const char *
str_or_null(const char *s)
{
	return s != NULL ? s : "(null)";
}

/* --- small filesystem helpers ------------------------------------------ */

/* Write all of DATA (LEN bytes) to FD. */
static void
write_all(int fd, const void *data, size_t len)
{
	const char *p = data;
	ssize_t n;

	while (len > 0) {
		n = write(fd, p, len);
		if (n == -1 && errno == EINTR)
			continue;
		cr_assert(n > 0, "write: %s", strerror(errno));
		p += n;
		len -= (size_t)n;
	}
}

/* Make the regular file DIRFD/NAME holding the string DATA. */
static void
put_file(int dirfd, const char *name, const char *data, mode_t mode)
{
	int fd;

	fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, mode);
	cr_assert(fd >= 0, "fixture: create %s: %s", name, strerror(errno));
	write_all(fd, data, strlen(data));
	cr_assert(fchmod(fd, mode) == 0, "fixture: chmod %s", name);
	(void)close(fd);
}

static void
put_dir(int dirfd, const char *name, mode_t mode)
{
	cr_assert(mkdirat(dirfd, name, mode) == 0, "fixture: mkdir %s: %s",
	    name, strerror(errno));
	cr_assert(fchmodat(dirfd, name, mode, 0) == 0, "fixture: chmod %s",
	    name);
}

static void
put_link(int dirfd, const char *name, const char *target)
{
	cr_assert(symlinkat(target, dirfd, name) == 0,
	    "fixture: symlink %s: %s", name, strerror(errno));
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

/*
 * Read the names in the directory DIRFD/REL, sorted, without . and ..,
 * into *OUT, which names_free() frees.  Return: 0, or -errno.
 */
static int
names_read(int dirfd, const char *rel, struct names *out)
{
	ssize_t n;

	memset(out, 0, sizeof(*out));
	n = tfx_read_names(dirfd, rel, &out->v);
	if (n < 0)
		return (int)n;
	out->n = out->cap = (size_t)n;
	return 0;
}

static void
names_free(struct names *ns)
{
	size_t i;

	for (i = 0; i < ns->n; i++)
		free(ns->v[i]);
	free(ns->v);
	memset(ns, 0, sizeof(*ns));
}

/*
 * Walk the tree beneath DIRFD (shown as PREFIX) and append to OUT the
 * paths of temporaries and, unless LINKS_OK, of symlinks.
 */
static void
scan_tree(FILE *out, int dirfd, const char *prefix, bool links_ok)
{
	char path[PATH_MAX];
	struct names ns;
	struct stat st;
	size_t i;
	int fd;

	if (names_read(dirfd, ".", &ns) < 0)
		return;
	for (i = 0; i < ns.n; i++) {
		(void)snprintf(path, sizeof(path), "%s%s%s", prefix,
		    prefix[0] != '\0' ? "/" : "", ns.v[i]);
		if (strncmp(ns.v[i], TEMP_PREFIX, strlen(TEMP_PREFIX)) == 0)
			fprintf(out, " %s (temporary)", path);
		if (fstatat(dirfd, ns.v[i], &st, AT_SYMLINK_NOFOLLOW) == -1)
			continue;
		if (S_ISLNK(st.st_mode) && !links_ok)
			fprintf(out, " %s (symlink)", path);
		if (!S_ISDIR(st.st_mode))
			continue;
		fd = openat(dirfd, ns.v[i], O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC);
		if (fd == -1)
			continue;
		scan_tree(out, fd, path, links_ok);
		(void)close(fd);
	}
	names_free(&ns);
}

/* --- reports ----------------------------------------------------------- */

static char *
dup_or_null(const char *s, bool *oom)
{
	char *p;

	if (s == NULL)
		return NULL;
	p = strdup(s);
	if (p == NULL)
		*oom = true;
	return p;
}

/* Append a copy of E to RP.  Safe in any thread: it never asserts. */
static void
reports_add(struct reports *rp, const struct pfx_entry *e)
{
	struct rec *grown, *r;
	size_t cap;

	if (rp->n == rp->cap) {
		cap = rp->cap == 0 ? 32 : rp->cap * 2;
		grown = realloc(rp->v, cap * sizeof(*rp->v));
		if (grown == NULL) {
			rp->oom = true;
			return;
		}
		rp->v = grown;
		rp->cap = cap;
	}
	r = &rp->v[rp->n++];
	memset(r, 0, sizeof(*r));
	r->name = dup_or_null(e->name, &rp->oom);
	r->path = dup_or_null(e->path, &rp->oom);
	r->target = dup_or_null(e->link_target, &rp->oom);
	r->reason = dup_or_null(e->reason, &rp->oom);
	r->backup = dup_or_null(e->backup, &rp->oom);
	r->type = e->type;
	r->decision = e->decision;
	r->status = e->status;
	r->mode = e->mode;
	r->size = e->size;
	r->mtime = e->mtime;
	r->error = e->error;
	r->bytes = e->bytes;
}

static void
reports_free(struct reports *rp)
{
	size_t i;

	for (i = 0; i < rp->n; i++) {
		free(rp->v[i].name);
		free(rp->v[i].path);
		free(rp->v[i].target);
		free(rp->v[i].reason);
		free(rp->v[i].backup);
	}
	free(rp->v);
	memset(rp, 0, sizeof(*rp));
}

/* The report() hook of struct reports. */
static void
collect(void *arg, const struct pfx_entry *e)
{
	reports_add(arg, e);
}

/* The report() hook of a fixture. */
static void
fx_report(void *arg, const struct pfx_entry *e)
{
	struct fx *fx = arg;

	reports_add(&fx->rep, e);
}

/* The decide() hook of a fixture: its rules, else continue. */
static int
fx_decide(void *arg, const struct pfx_entry *e, char *rename,
    size_t rename_cap)
{
	struct fx *fx = arg;
	size_t i;

	reports_add(&fx->seen, e);
	for (i = 0; i < fx->nrules; i++) {
		if (strcmp(fx->rules[i].name, e->name) != 0)
			continue;
		if (fx->rules[i].answer == PFX_HOOK_RENAME &&
		    fx->rules[i].rename == NULL)
			memset(rename, 'x', rename_cap);	/* no NUL */
		else if (fx->rules[i].answer == PFX_HOOK_RENAME)
			(void)snprintf(rename, rename_cap, "%s",
			    fx->rules[i].rename);
		return fx->rules[i].answer;
	}
	return PFX_HOOK_CONTINUE;
}

/* The Kth (from 0) record called NAME in RP, or NULL. */
static const struct rec *
rec_find(const struct reports *rp, const char *name, size_t k)
{
	size_t i;

	for (i = 0; i < rp->n; i++) {
		if (rp->v[i].name != NULL && strcmp(rp->v[i].name, name) == 0 &&
		    k-- == 0)
			return &rp->v[i];
	}
	return NULL;
}

/* --- the fixture ------------------------------------------------------- */

static const char *
tmp_base(void)
{
	const char *t = getenv("TMPDIR");

	return t != NULL && t[0] != '\0' ? t : "/tmp";
}

static const char *
resolver_name(enum pfx_resolver how)
{
	switch (how) {
	case PFX_RESOLVER_OPENAT2:
		return "openat2";
	case PFX_RESOLVER_WALK:
		return "walk";
	case PFX_RESOLVER_AUTO:
		break;
	}
	return "auto";
}

static int
open_dir(int dirfd, const char *name)
{
	int fd;

	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	cr_assert(fd >= 0, "fixture: open %s: %s", name, strerror(errno));
	return fd;
}

/* The tfx_snapshot() flags for outside/ in the fixture FX. */
static int
snap_flags(const struct fx *fx)
{
	return fx->snap_nlink ? 0 : TFX_SNAP_NO_NLINK;
}

/* Make the fixture for the case CNAME with the resolver HOW. */
static void
fx_begin(struct fx *fx, const char *cname, enum pfx_resolver how)
{
	memset(fx, 0, sizeof(*fx));
	fx->cname = cname;
	fx->how = how;
	fx->rname = resolver_name(how);
	fx->snap_nlink = true;
	fx->topfd = fx->destfd = fx->outfd = -1;
	(void)snprintf(fx->top, sizeof(fx->top), "%s/pfx-extract.XXXXXX",
	    tmp_base());
	cr_assert(mkdtemp(fx->top) != NULL, "%s: mkdtemp %s: %s", cname,
	    fx->top, strerror(errno));
	memcpy(live_top, fx->top, sizeof(live_top));
	(void)snprintf(fx->dest, sizeof(fx->dest), "%s/dest", fx->top);
	fx->topfd = open_dir(AT_FDCWD, fx->top);
	put_dir(fx->topfd, "dest", 0755);
	put_dir(fx->topfd, "outside", 0755);
	fx->destfd = open_dir(fx->topfd, "dest");
	fx->outfd = open_dir(fx->topfd, "outside");
	put_file(fx->outfd, "secret", SECRET, 0600);
	put_file(fx->outfd, "victim", VICTIM, 0644);
	put_dir(fx->outfd, "sub", 0755);
	put_file(fx->outfd, "sub/inner", INNER, 0644);
	set_old_times(fx->outfd, "secret");
	set_old_times(fx->outfd, "victim");
	set_old_times(fx->outfd, "sub/inner");
	set_old_times(fx->outfd, "sub");
	set_old_times(fx->outfd, ".");
	fx->before = tfx_snapshot(fx->outfd, snap_flags(fx));
	pfx_options_init(&fx->opt);
	fx->opt.resolver = how;
	fx->opt.hooks.report = fx_report;
	fx->opt.hooks.arg = fx;
	fx->started = time(NULL);
	fx->nfds = tfx_count_fds();
}

/*
 * Take the snapshot of outside/ again, after a case planted something
 * that legitimately changes it (a hard link raises a link count).
 */
static void
fx_rebase(struct fx *fx, bool nlink)
{
	free(fx->before);
	fx->snap_nlink = nlink;
	fx->before = tfx_snapshot(fx->outfd, snap_flags(fx));
}

/*
 * What dest/ must not hold: temporaries, and symlinks unless LINKS_OK.
 * Return: a description (" path (why)" each), "" if none.  Free it.
 */
static char *
dest_leftovers(struct fx *fx, bool links_ok)
{
	char *bad = NULL;
	size_t badlen = 0;
	FILE *out;

	out = open_memstream(&bad, &badlen);
	cr_assert(out != NULL, "open_memstream");
	scan_tree(out, fx->destfd, "", links_ok);
	cr_assert(fclose(out) == 0, "scan");
	return bad;
}

#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/lsan_interface.h>

/* Has memory leaked so far?  (LeakSanitizer tells, when it runs.) */
static bool
leaks_found(void)
{
	return __lsan_do_recoverable_leak_check() != 0;
}
#else
static bool
leaks_found(void)
{
	return false;
}
#endif

/*
 * After the case CNAME has freed all it holds: nothing leaked.  Checked
 * once per test, not per fixture: each check scans the whole process.
 */
static void
expect_no_leaks(const char *cname)
{
	cr_assert(!leaks_found(), "%s: memory leaked (see the LeakSanitizer "
	    "report)", cname);
}

/* Check what every case must leave behind, and remove the fixture. */
static void
fx_end(struct fx *fx)
{
	char *after, *bad;
	bool same;
	int nfds;

	after = tfx_snapshot(fx->outfd, snap_flags(fx));
	same = strcmp(fx->before, after) == 0;
	bad = dest_leftovers(fx, fx->links_ok);
	nfds = tfx_count_fds();
	CHECK(same, "outside/ changed.\nbefore:\n%s\nafter:\n%s", fx->before,
	    after);
	CHECK(nfds == fx->nfds, "descriptors leaked: %d open before, %d "
	    "after", fx->nfds, nfds);
	CHECK(bad[0] == '\0', "dest/ holds what it must not:%s", bad);
	free(after);
	free(bad);
	free(fx->before);
	fx->before = NULL;
	reports_free(&fx->rep);
	reports_free(&fx->seen);
	(void)close(fx->destfd);
	(void)close(fx->outfd);
	(void)close(fx->topfd);
	(void)tfx_rm_tree(fx->top);
	live_top[0] = '\0';
}

/* The suite's fini: remove a fixture a failed assertion left behind. */
static void
fx_cleanup(void)
{
	if (live_top[0] != '\0')
		(void)tfx_rm_tree(live_top);
	live_top[0] = '\0';
}

/* Empty dest/ between two runs of one case.  Return: 0, or -errno. */
static int
rm_tree_dest(struct fx *fx)
{
	char path[2 * PATH_MAX];
	struct names ns;
	size_t i;
	int r;

	r = names_read(fx->destfd, ".", &ns);
	if (r < 0)
		return r;
	for (i = 0; i < ns.n; i++) {
		(void)snprintf(path, sizeof(path), "%s/%s", fx->dest, ns.v[i]);
		(void)tfx_rm_tree(path);
	}
	names_free(&ns);
	return 0;
}

TestSuite(extract, .fini = fx_cleanup, .timeout = 60);
TestSuite(extract_formats, .fini = fx_cleanup, .timeout = 60);

/* Is the resolver HOW usable here? */
static bool
have_resolver(enum pfx_resolver how)
{
	struct pfx_root root;
	int r;

	r = pfx_root_open(&root, AT_FDCWD, tmp_base(), how);
	if (r == 0)
		pfx_root_close(&root);
	return r != -ENOSYS;
}

/* Run BODY in a fresh fixture once per resolver. */
static void
each_resolver(const char *cname, void (*body)(struct fx *))
{
	struct fx fx;
	size_t i;

	for (i = 0; i < NELEM(resolvers); i++) {
		if (!have_resolver(resolvers[i]))
			continue;
		fx_begin(&fx, cname, resolvers[i]);
		body(&fx);
		fx_end(&fx);
	}
	expect_no_leaks(cname);
}

/*
 * Check the invariants of one finished run: one report per entry read,
 * counters that add up, a status that matches them, a message and an
 * errno exactly when fatal, the resolver asked for, and for every report
 * a decision and reason consistent with its status.
 */
static void
check_run(struct fx *fx, enum pfx_status st)
{
	const struct pfx_stats *s = &fx->res.stats;
	const struct rec *r;
	uint64_t sum, bytes = 0;
	size_t i;

	CHECK(st == fx->res.status, "returned %s but result says %s",
	    status_name(st), status_name(fx->res.status));
	CHECK(!fx->rep.oom && !fx->seen.oom, "out of memory in a hook");
	CHECK(fx->rep.n == s->entries, "%zu reports for %llu entries",
	    fx->rep.n, (unsigned long long)s->entries);
	sum = s->extracted + s->listed + s->refused + s->skipped + s->failed;
	CHECK(sum == s->entries, "counters: %llu entries but "
	    "extracted+listed+refused+skipped+failed = %llu",
	    (unsigned long long)s->entries, (unsigned long long)sum);
	if (st == PFX_FATAL) {
		CHECK(fx->res.message[0] != '\0' && fx->res.error != 0,
		    "fatal without a message or an errno");
	} else {
		CHECK(fx->res.message[0] == '\0' && fx->res.error == 0,
		    "message \"%s\", errno %d without a fatal error",
		    fx->res.message, fx->res.error);
		CHECK(fx->how == PFX_RESOLVER_AUTO ||
		    (fx->opt.flags & (PFX_OPT_LIST | PFX_OPT_TO_FD)) != 0 ||
		    strcmp(str_or_null(fx->res.resolver), fx->rname) == 0,
		    "resolver \"%s\", asked for %s",
		    str_or_null(fx->res.resolver), fx->rname);
		CHECK((st == PFX_OK) == (s->refused == 0 && s->failed == 0 &&
		    s->unmatched == 0),
		    "status %s with %llu refused, %llu failed, %llu unmatched",
		    status_name(st), (unsigned long long)s->refused,
		    (unsigned long long)s->failed,
		    (unsigned long long)s->unmatched);
	}
	for (i = 0; i < fx->rep.n; i++) {
		r = &fx->rep.v[i];
		bytes += r->bytes;
		/* An unknown code is given back as it is. */
		CHECK(r->reason != NULL &&
		    pfx_reason_text(r->reason) != r->reason,
		    "entry \"%s\": reason \"%s\" has no sentence",
		    str_or_null(r->name), str_or_null(r->reason));
		if (r->status == PFX_ENTRY_EXTRACTED) {
			CHECK(r->decision == PFX_ALLOW &&
			    strcmp(r->reason, "none") == 0 && r->path != NULL,
			    "entry \"%s\" extracted with decision %s, reason "
			    "%s, path %s", str_or_null(r->name),
			    pfx_decision_name(r->decision), r->reason,
			    str_or_null(r->path));
		} else if (r->status == PFX_ENTRY_REFUSED) {
			CHECK(r->decision != PFX_ALLOW &&
			    strcmp(r->reason, "none") != 0,
			    "entry \"%s\" refused with decision %s, reason %s",
			    str_or_null(r->name),
			    pfx_decision_name(r->decision), r->reason);
		}
	}
	CHECK(bytes == s->bytes, "reports add up to %llu bytes, counter "
	    "says %llu", (unsigned long long)bytes,
	    (unsigned long long)s->bytes);
}

/* Extract IN into dest/ with the fixture's options; check the run. */
static enum pfx_status
fx_run(struct fx *fx, const struct pfx_input *in, int dirfd,
    const char *dest)
{
	enum pfx_status st;

	reports_free(&fx->rep);
	reports_free(&fx->seen);
	memset(&fx->res, 0x5a, sizeof(fx->res));
	st = pfx_extract(in, dirfd, dest, &fx->opt, &fx->res);
	check_run(fx, st);
	return st;
}

/* Extract the archive in AB from memory into dest/. */
static enum pfx_status
fx_extract(struct fx *fx, const struct ab *ab)
{
	struct pfx_input in = { .fd = -1, .buf = ab->buf, .len = ab->used };

	return fx_run(fx, &in, AT_FDCWD, fx->dest);
}

/* Extract the LEN bytes at BUF from memory into dest/. */
static enum pfx_status
fx_extract_bytes(struct fx *fx, const void *buf, size_t len)
{
	struct pfx_input in = { .fd = -1, .buf = buf, .len = len };

	return fx_run(fx, &in, AT_FDCWD, fx->dest);
}

/* --- expectations on dest/ and on the reports ------------------------- */

/* The reports of the last run, one per line, for failure messages. */
static char *
dump_reports(const struct fx *fx)
{
	const struct rec *r;
	char *buf = NULL;
	size_t len = 0, i;
	FILE *out;

	out = open_memstream(&buf, &len);
	cr_assert(out != NULL, "open_memstream");
	for (i = 0; i < fx->rep.n; i++) {
		r = &fx->rep.v[i];
		fprintf(out, "\n  \"%s\" -> %s: %s %s %s", str_or_null(r->name),
		    str_or_null(r->path), pfx_entry_status_name(r->status),
		    pfx_decision_name(r->decision), str_or_null(r->reason));
	}
	cr_assert(fclose(out) == 0, "dump");
	return buf;
}

static void
expect_status(struct fx *fx, int line, enum pfx_status got,
    enum pfx_status want)
{
	char *dump;

	if (got == want)
		return;
	dump = dump_reports(fx);
	check(fx, line, false, "status %s, want %s (message \"%s\"); "
	    "reports:%s", status_name(got), status_name(want),
	    fx->res.message, dump);
	free(dump);
}

static void
expect_stats(struct fx *fx, int line, uint64_t entries, uint64_t extracted,
    uint64_t refused, uint64_t skipped)
{
	const struct pfx_stats *s = &fx->res.stats;

	check(fx, line, s->entries == entries && s->extracted == extracted &&
	    s->refused == refused && s->skipped == skipped,
	    "stats entries/extracted/refused/skipped = %llu/%llu/%llu/%llu, "
	    "want %llu/%llu/%llu/%llu", (unsigned long long)s->entries,
	    (unsigned long long)s->extracted, (unsigned long long)s->refused,
	    (unsigned long long)s->skipped, (unsigned long long)entries,
	    (unsigned long long)extracted, (unsigned long long)refused,
	    (unsigned long long)skipped);
}

/* The lstat(2) of dest/REL, which must exist. */
static struct stat
stat_dest(struct fx *fx, int line, const char *rel)
{
	struct stat st;

	check(fx, line, fstatat(fx->destfd, rel, &st, AT_SYMLINK_NOFOLLOW) ==
	    0, "dest/%s: %s", rel, strerror(errno));
	return st;
}

/*
 * dest/REL is a regular file holding exactly LEN bytes DATA, with the
 * permission bits MODE (unless MODE is -1).
 */
static void
expect_bytes(struct fx *fx, int line, const char *rel, const void *data,
    size_t len, int mode)
{
	struct stat st;
	char *buf;
	ssize_t n;
	int fd;

	st = stat_dest(fx, line, rel);
	check(fx, line, S_ISREG(st.st_mode), "dest/%s is a '%c', want a "
	    "regular file", rel, tfx_kind_of(st.st_mode));
	check(fx, line, mode < 0 || (st.st_mode & 07777) == (mode_t)mode,
	    "dest/%s has mode %04o, want %04o", rel,
	    (unsigned int)(st.st_mode & 07777), (unsigned int)mode);
	check(fx, line, (size_t)st.st_size == len, "dest/%s has %lld bytes, "
	    "want %zu", rel, (long long)st.st_size, len);
	buf = malloc(len + 1);
	cr_assert(buf != NULL, "malloc");
	fd = openat(fx->destfd, rel, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	check(fx, line, fd >= 0, "open dest/%s: %s", rel, strerror(errno));
	n = pread(fd, buf, len + 1, 0);
	(void)close(fd);
	check(fx, line, n == (ssize_t)len && memcmp(buf, data, len) == 0,
	    "dest/%s holds \"%.*s\", want \"%.*s\"", rel,
	    n > 0 ? (int)n : 0, buf, (int)len, (const char *)data);
	free(buf);
}

static void
expect_dir(struct fx *fx, int line, const char *rel, int mode)
{
	struct stat st;

	st = stat_dest(fx, line, rel);
	check(fx, line, S_ISDIR(st.st_mode), "dest/%s is a '%c', want a "
	    "directory", rel, tfx_kind_of(st.st_mode));
	check(fx, line, mode < 0 || (st.st_mode & 07777) == (mode_t)mode,
	    "dest/%s has mode %04o, want %04o", rel,
	    (unsigned int)(st.st_mode & 07777), (unsigned int)mode);
}

static void
expect_link(struct fx *fx, int line, const char *rel, const char *target)
{
	char buf[PATH_MAX];
	struct stat st;
	ssize_t n;

	st = stat_dest(fx, line, rel);
	check(fx, line, S_ISLNK(st.st_mode), "dest/%s is a '%c', want a "
	    "symlink", rel, tfx_kind_of(st.st_mode));
	n = readlinkat(fx->destfd, rel, buf, sizeof(buf) - 1);
	buf[n >= 0 ? n : 0] = '\0';
	check(fx, line, strcmp(buf, target) == 0, "dest/%s -> \"%s\", want "
	    "\"%s\"", rel, buf, target);
}

static void
expect_absent(struct fx *fx, int line, int dirfd, const char *what,
    const char *rel)
{
	struct stat st;

	memset(&st, 0, sizeof(st));
	check(fx, line, fstatat(dirfd, rel, &st, AT_SYMLINK_NOFOLLOW) == -1 &&
	    errno == ENOENT, "%s%s exists and must not (a '%c')", what, rel,
	    tfx_kind_of(st.st_mode));
}

static void
expect_same_inode(struct fx *fx, int line, const char *a, const char *b)
{
	struct stat sa, sb;

	sa = stat_dest(fx, line, a);
	sb = stat_dest(fx, line, b);
	check(fx, line, sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino,
	    "dest/%s and dest/%s are not one inode", a, b);
}

static void
expect_nlink(struct fx *fx, int line, const char *rel, unsigned long n)
{
	struct stat st;

	st = stat_dest(fx, line, rel);
	check(fx, line, (unsigned long)st.st_nlink == n, "dest/%s has %lu "
	    "links, want %lu", rel, (unsigned long)st.st_nlink, n);
}

static void
expect_mtime(struct fx *fx, int line, const char *rel, time_t sec,
    long nsec)
{
	struct stat st;

	st = stat_dest(fx, line, rel);
	check(fx, line, st.st_mtim.tv_sec == sec && st.st_mtim.tv_nsec == nsec,
	    "dest/%s has mtime %lld.%09ld, want %lld.%09ld", rel,
	    (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec, (long long)sec,
	    nsec);
}

/* The sorted names in dest/REL, separated by spaces, are WANT. */
static void
expect_list(struct fx *fx, int line, const char *rel, const char *want)
{
	char got[4096];
	struct names ns;
	size_t i, off = 0;
	int r;

	r = names_read(fx->destfd, rel[0] != '\0' ? rel : ".", &ns);
	check(fx, line, r == 0, "list dest/%s: %s", rel, strerror(-r));
	got[0] = '\0';
	for (i = 0; i < ns.n; i++) {
		r = snprintf(got + off, sizeof(got) - off, "%s%s",
		    i > 0 ? " " : "", ns.v[i]);
		if (r < 0 || (size_t)r >= sizeof(got) - off)
			break;
		off += (size_t)r;
	}
	names_free(&ns);
	check(fx, line, strcmp(got, want) == 0, "dest/%s holds \"%s\", want "
	    "\"%s\"", rel[0] != '\0' ? rel : ".", got, want);
}

/*
 * The entry NAME (its Kth report) has STATUS and REASON.
 * Return: its record.
 */
static const struct rec *
expect_entry(struct fx *fx, int line, const char *name, size_t k,
    enum pfx_entry_status status, const char *reason)
{
	const struct rec *r = rec_find(&fx->rep, name, k);

	check(fx, line, r != NULL, "no report for entry \"%s\" (#%zu)", name,
	    k);
	check(fx, line, r->status == status && strcmp(r->reason, reason) == 0,
	    "entry \"%s\": %s \"%s\", want %s \"%s\"", name,
	    pfx_entry_status_name(r->status), r->reason,
	    pfx_entry_status_name(status), reason);
	return r;
}

/* The entry NAME was refused for REASON with DECISION, and has no path. */
static void
expect_refused(struct fx *fx, int line, const char *name, const char *reason,
    enum pfx_decision decision)
{
	const struct rec *r;

	r = expect_entry(fx, line, name, 0, PFX_ENTRY_REFUSED, reason);
	check(fx, line, r->decision == decision, "entry \"%s\": decision %s, "
	    "want %s", name, pfx_decision_name(r->decision),
	    pfx_decision_name(decision));
}

#define EXPECT_STATUS(got, want) expect_status(fx, __LINE__, (got), (want))
#define EXPECT_STATS(n, x, r, s) expect_stats(fx, __LINE__, (n), (x), (r), (s))
#define EXPECT_FILE(rel, data, mode) \
	expect_bytes(fx, __LINE__, (rel), (data), strlen(data), (mode))
#define EXPECT_BYTES(rel, data, len, mode) \
	expect_bytes(fx, __LINE__, (rel), (data), (len), (mode))
#define EXPECT_DIR(rel, mode) expect_dir(fx, __LINE__, (rel), (mode))
#define EXPECT_LINK(rel, target) expect_link(fx, __LINE__, (rel), (target))
#define EXPECT_ABSENT(rel) \
	expect_absent(fx, __LINE__, fx->destfd, "dest/", (rel))
#define EXPECT_ABSENT_TOP(rel) \
	expect_absent(fx, __LINE__, fx->topfd, "top/", (rel))
#define EXPECT_SAME_INODE(a, b) expect_same_inode(fx, __LINE__, (a), (b))
#define EXPECT_NLINK(rel, n) expect_nlink(fx, __LINE__, (rel), (n))
#define EXPECT_MTIME(rel, s, ns) expect_mtime(fx, __LINE__, (rel), (s), (ns))
#define EXPECT_LIST(rel, want) expect_list(fx, __LINE__, (rel), (want))
#define EXPECT_ENTRY(name, status, reason) \
	expect_entry(fx, __LINE__, (name), 0, (status), (reason))
#define EXPECT_NTH(name, k, status, reason) \
	expect_entry(fx, __LINE__, (name), (k), (status), (reason))
#define EXPECT_OK(name) \
	expect_entry(fx, __LINE__, (name), 0, PFX_ENTRY_EXTRACTED, "none")
#define EXPECT_REFUSED(name, reason, decision) \
	expect_refused(fx, __LINE__, (name), (reason), (decision))

/* --- archives built with libarchive's writer -------------------------- */

/* Begin an archive in FORMAT, through FILTER (NULL: none). */
static void
ab_open(struct ab *ab, int (*format)(struct archive *),
    int (*filter)(struct archive *))
{
	int r;

	memset(ab, 0, sizeof(*ab));
	ab->cap = ARCHIVE_CAP;
	ab->buf = malloc(ab->cap);
	cr_assert(ab->buf != NULL, "malloc");
	ab->a = archive_write_new();
	cr_assert(ab->a != NULL, "archive_write_new");
	cr_assert(format(ab->a) == ARCHIVE_OK, "set format: %s",
	    archive_error_string(ab->a));
	if (filter != NULL) {
		r = filter(ab->a);
		cr_assert(r == ARCHIVE_OK || r == ARCHIVE_WARN,
		    "add filter: %s", archive_error_string(ab->a));
	}
	cr_assert(archive_write_open_memory(ab->a, ab->buf, ab->cap,
	    &ab->used) == ARCHIVE_OK, "open memory: %s",
	    archive_error_string(ab->a));
}

/* A pax archive, the format that keeps everything. */
static void
ab_pax(struct ab *ab)
{
	ab_open(ab, archive_write_set_format_pax, NULL);
}

/* A new entry NAME of TYPE with PERM and the usual mtime. */
static struct archive_entry *
ent_new(const char *name, mode_t type, mode_t perm)
{
	struct archive_entry *e = archive_entry_new();

	cr_assert(e != NULL, "archive_entry_new");
	archive_entry_set_pathname(e, name);
	archive_entry_set_filetype(e, type);
	archive_entry_set_perm(e, perm);
	archive_entry_set_mtime(e, ENTRY_SEC, 0);
	archive_entry_set_uid(e, 0);
	archive_entry_set_gid(e, 0);
	archive_entry_set_size(e, 0);
	return e;
}

/* Write E with LEN bytes of DATA, and free E. */
static void
ab_write(struct ab *ab, struct archive_entry *e, const void *data,
    size_t len)
{
	la_ssize_t n;
	int r;

	r = archive_write_header(ab->a, e);
	cr_assert(r == ARCHIVE_OK || r == ARCHIVE_WARN, "write header %s: %s",
	    archive_entry_pathname(e), archive_error_string(ab->a));
	if (len > 0) {
		n = archive_write_data(ab->a, data, len);
		cr_assert(n == (la_ssize_t)len, "write data %s: %s",
		    archive_entry_pathname(e), archive_error_string(ab->a));
	}
	archive_entry_free(e);
}

static void
ab_file(struct ab *ab, const char *name, const char *data, mode_t perm)
{
	struct archive_entry *e = ent_new(name, AE_IFREG, perm);

	archive_entry_set_size(e, (la_int64_t)strlen(data));
	ab_write(ab, e, data, strlen(data));
}

static void
ab_dir(struct ab *ab, const char *name, mode_t perm)
{
	ab_write(ab, ent_new(name, AE_IFDIR, perm), NULL, 0);
}

static void
ab_symlink(struct ab *ab, const char *name, const char *target)
{
	struct archive_entry *e = ent_new(name, AE_IFLNK, 0777);

	archive_entry_set_symlink(e, target);
	ab_write(ab, e, NULL, 0);
}

static void
ab_hardlink(struct ab *ab, const char *name, const char *target)
{
	struct archive_entry *e = ent_new(name, AE_IFREG, 0644);

	archive_entry_set_hardlink(e, target);
	archive_entry_set_size(e, 0);
	ab_write(ab, e, NULL, 0);
}

/* A device node, FIFO or socket. */
static void
ab_node(struct ab *ab, const char *name, mode_t type)
{
	struct archive_entry *e = ent_new(name, type, 0644);

	archive_entry_set_rdev(e, makedev(1, 3));
	ab_write(ab, e, NULL, 0);
}

static void
ab_close(struct ab *ab)
{
	cr_assert(archive_write_close(ab->a) == ARCHIVE_OK, "close: %s",
	    archive_error_string(ab->a));
	archive_write_free(ab->a);
	ab->a = NULL;
}

static void
ab_free(struct ab *ab)
{
	if (ab->a != NULL)
		archive_write_free(ab->a);
	free(ab->buf);
	memset(ab, 0, sizeof(*ab));
}

/* --- archives written byte by byte ------------------------------------ */

/* Append a zeroed 512-byte block to R.  Return: it. */
static unsigned char *
raw_block(struct raw *r)
{
	unsigned char *grown;

	if (r->len + 512 > r->cap) {
		r->cap = r->cap == 0 ? 8192 : r->cap * 2;
		grown = realloc(r->buf, r->cap);
		cr_assert(grown != NULL, "realloc");
		r->buf = grown;
	}
	memset(r->buf + r->len, 0, 512);
	r->len += 512;
	return r->buf + r->len - 512;
}

/* Write V in octal into the WIDTH-byte field at F, NUL-terminated. */
static void
tar_octal(unsigned char *f, size_t width, uint64_t v)
{
	char tmp[32];

	(void)snprintf(tmp, sizeof(tmp), "%0*llo", (int)(width - 1),
	    (unsigned long long)v);
	memcpy(f, tmp, width);
}

/* Fill in the checksum of the header H. */
static void
tar_checksum(unsigned char *h)
{
	unsigned int sum = 0;
	size_t i;

	memset(h + 148, ' ', 8);
	for (i = 0; i < 512; i++)
		sum += h[i];
	tar_octal(h + 148, 7, sum);
	h[155] = ' ';
}

/*
 * Append a ustar header (GNU's magic if GNU) for NAME of TYPE with SIZE
 * and LINK.  The checksum is left for tar_checksum().  Return: it.
 */
static unsigned char *
raw_header(struct raw *r, const char *name, char type, uint64_t size,
    const char *link, bool gnu)
{
	unsigned char *h = raw_block(r);

	cr_assert(strlen(name) < 100 && strlen(link) < 100, "name too long");
	memcpy(h, name, strlen(name));
	tar_octal(h + 100, 8, 0644);
	tar_octal(h + 108, 8, 0);
	tar_octal(h + 116, 8, 0);
	tar_octal(h + 124, 12, size);
	tar_octal(h + 136, 12, ENTRY_SEC);
	h[156] = (unsigned char)type;
	memcpy(h + 157, link, strlen(link));
	if (gnu) {
		memcpy(h + 257, "ustar  ", 8);
	} else {
		memcpy(h + 257, "ustar", 6);
		memcpy(h + 263, "00", 2);
	}
	return h;
}

/* Append LEN bytes of DATA, padded to whole blocks. */
static void
raw_data(struct raw *r, const void *data, size_t len)
{
	const unsigned char *p = data;
	size_t n;

	while (len > 0) {
		n = len < 512 ? len : 512;
		memcpy(raw_block(r), p, n);
		p += n;
		len -= n;
	}
}

/* A complete entry: header and data. */
static void
raw_entry(struct raw *r, const char *name, char type, const char *data,
    const char *link)
{
	tar_checksum(raw_header(r, name, type, strlen(data), link, false));
	raw_data(r, data, strlen(data));
}

/* --- every entry type -------------------------------------------------- */

/* The default options make files, directories and hard links only. */
static void
case_entry_types(struct fx *fx)
{
	struct ab ab;

	ab_pax(&ab);
	ab_dir(&ab, "d/", 0755);
	ab_file(&ab, "d/f", "file data\n", 0644);
	ab_hardlink(&ab, "d/h", "d/f");
	ab_symlink(&ab, "d/s", "f");
	ab_node(&ab, "dev/c", AE_IFCHR);
	ab_node(&ab, "dev/b", AE_IFBLK);
	ab_node(&ab, "fifo", AE_IFIFO);
	ab_file(&ab, "after", "after\n", 0600);
	ab_close(&ab);

	EXPECT_STATUS(fx_extract(fx, &ab), PFX_REFUSED);
	EXPECT_STATS(8, 4, 4, 0);
	EXPECT_LIST("", "after d");
	EXPECT_LIST("d", "f h");
	EXPECT_DIR("d", 0755);
	EXPECT_FILE("d/f", "file data\n", 0644);
	EXPECT_SAME_INODE("d/h", "d/f");
	EXPECT_NLINK("d/f", 2);
	EXPECT_FILE("after", "after\n", 0600);
	CHECK(fx->res.stats.bytes == 16, "%llu bytes counted, want 16",
	    (unsigned long long)fx->res.stats.bytes);
	CHECK(EXPECT_OK("d/h")->type == PFX_TYPE_HARDLINK,
	    "d/h reported as a %s", pfx_entry_type_name(
	    rec_find(&fx->rep, "d/h", 0)->type));
	EXPECT_OK("d/");
	EXPECT_OK("d/f");
	EXPECT_REFUSED("d/s", "symlink", PFX_DENY);
	EXPECT_REFUSED("dev/c", "special_file", PFX_DENY);
	EXPECT_REFUSED("dev/b", "special_file", PFX_DENY);
	EXPECT_REFUSED("fifo", "special_file", PFX_DENY);
	CHECK(rec_find(&fx->rep, "dev/c", 0)->type == PFX_TYPE_CHAR &&
	    rec_find(&fx->rep, "dev/b", 0)->type == PFX_TYPE_BLOCK &&
	    rec_find(&fx->rep, "fifo", 0)->type == PFX_TYPE_FIFO,
	    "device types misreported");
	CHECK(strstr(pfx_reason_text("symlink"), "PFX_SYMLINKS_CONTAIN") !=
	    NULL, "the refusal of a symlink does not name the flag: \"%s\"",
	    pfx_reason_text("symlink"));
	ab_free(&ab);
}

Test(extract, entry_types)
{
	each_resolver("entry_types", case_entry_types);
}

/* A socket (cpio can hold one) is refused like the other specials. */
static void
case_socket(struct fx *fx)
{
	struct ab ab;

	ab_open(&ab, archive_write_set_format_cpio_newc, NULL);
	ab_file(&ab, "before", "before\n", 0644);
	ab_node(&ab, "sock", AE_IFSOCK);
	ab_close(&ab);

	EXPECT_STATUS(fx_extract(fx, &ab), PFX_REFUSED);
	EXPECT_REFUSED("sock", "special_file", PFX_DENY);
	CHECK(rec_find(&fx->rep, "sock", 0)->type == PFX_TYPE_SOCKET,
	    "sock reported as a %s",
	    pfx_entry_type_name(rec_find(&fx->rep, "sock", 0)->type));
	EXPECT_LIST("", "before");
	ab_free(&ab);
}

Test(extract, socket)
{
	each_resolver("socket", case_socket);
}

/* --- symbolic links ---------------------------------------------------- */

/*
 * With PFX_SYMLINKS_CONTAIN, links that stay inside are made exactly as
 * the archive says, after every other entry: an entry that comes after a
 * link and lies beneath its name is not written through it.
 */
static void
case_symlink_contain(struct fx *fx)
{
	struct ab ab;

	fx->links_ok = true;
	fx->opt.symlinks = PFX_SYMLINKS_CONTAIN;
	ab_pax(&ab);
	ab_dir(&ab, "d/", 0755);
	ab_file(&ab, "d/f", "f\n", 0644);
	ab_symlink(&ab, "d/s", "f");
	ab_symlink(&ab, "top", "d/f");
	ab_symlink(&ab, "dl", "d");
	ab_symlink(&ab, "dangling", "d/nothing");
	ab_symlink(&ab, "self", ".");
	ab_file(&ab, "node_modules/p/bin/t.js", "#!/usr/bin/env node\n",
	    0755);
	ab_symlink(&ab, "node_modules/.bin/t", "../p/bin/t.js");
	/* "w" is a link to d, then an entry beneath "w". */
	ab_symlink(&ab, "w", "d");
	ab_file(&ab, "w/x", "not through the link\n", 0644);
	ab_close(&ab);

	EXPECT_STATUS(fx_extract(fx, &ab), PFX_REFUSED);
	EXPECT_LINK("d/s", "f");
	EXPECT_LINK("top", "d/f");
	EXPECT_LINK("dl", "d");
	EXPECT_LINK("dangling", "d/nothing");
	EXPECT_LINK("self", ".");
	EXPECT_LINK("node_modules/.bin/t", "../p/bin/t.js");
	EXPECT_FILE("node_modules/p/bin/t.js", "#!/usr/bin/env node\n", 0755);
	EXPECT_DIR("node_modules/.bin", 0755);
	EXPECT_OK("d/s");
	EXPECT_OK("node_modules/.bin/t");
	CHECK(rec_find(&fx->rep, "d/s", 0)->type == PFX_TYPE_SYMLINK,
	    "d/s reported as a %s",
	    pfx_entry_type_name(rec_find(&fx->rep, "d/s", 0)->type));
	/* The file beneath "w" made w a directory; the link lost. */
	EXPECT_DIR("w", 0755);
	EXPECT_FILE("w/x", "not through the link\n", 0644);
	EXPECT_LIST("d", "f s");
	/* The link made in d at the end did not change d's mtime. */
	EXPECT_MTIME("d", ENTRY_SEC, 0);
	EXPECT_REFUSED("w", "is_a_directory", PFX_DENY);
	EXPECT_STATS(11, 10, 1, 0);
	ab_free(&ab);
}

Test(extract, symlink_contain)
{
	each_resolver("symlink_contain", case_symlink_contain);
}

/*
 * Links that lead out, directly or by a chain that only real symlink
 * semantics sees, are refused; the harmless halves of the chains are
 * made.  A link already in dest/ that leads out counts too.
 */
static void
case_symlink_escapes(struct fx *fx)
{
	struct ab ab;

	fx->links_ok = true;
	fx->opt.symlinks = PFX_SYMLINKS_CONTAIN;
	put_link(fx->destfd, "planted", "../outside");
	ab_pax(&ab);
	ab_symlink(&ab, "l1", "../x");
	ab_symlink(&ab, "l2", "/etc");
	ab_symlink(&ab, "l3", "d/../../outside/victim");
	ab_symlink(&ab, "d/l", "..");
	ab_symlink(&ab, "d/l2", "l/..");
	ab_symlink(&ab, "a/b/c/up", "../..");
	ab_symlink(&ab, "a/b/esc", "c/up/../..");
	ab_symlink(&ab, "via", "planted/secret");
	ab_symlink(&ab, "loop1", "loop2");
	ab_symlink(&ab, "loop2", "loop1");
	ab_symlink(&ab, "empty", "");
	ab_file(&ab, "ok", "ok\n", 0644);
	ab_close(&ab);

	EXPECT_STATUS(fx_extract(fx, &ab), PFX_REFUSED);
	EXPECT_REFUSED("l1", "symlink_escapes", PFX_REJECT);
	EXPECT_REFUSED("l2", "symlink_escapes", PFX_REJECT);
	EXPECT_REFUSED("l3", "symlink_escapes", PFX_REJECT);
	EXPECT_REFUSED("d/l2", "symlink_escapes", PFX_REJECT);
	EXPECT_REFUSED("a/b/esc", "symlink_escapes", PFX_REJECT);
	EXPECT_REFUSED("via", "symlink_escapes", PFX_REJECT);
	EXPECT_REFUSED("loop1", "symlink_loop", PFX_DENY);
	EXPECT_REFUSED("loop2", "symlink_loop", PFX_DENY);
	EXPECT_REFUSED("empty", "symlink_escapes", PFX_REJECT);
	EXPECT_OK("d/l");
	EXPECT_OK("a/b/c/up");
	EXPECT_LINK("d/l", "..");
	EXPECT_LINK("a/b/c/up", "../..");
	EXPECT_LIST("", "a d ok planted");
	EXPECT_LIST("d", "l");
	EXPECT_LIST("a/b", "c");
	EXPECT_LINK("planted", "../outside");
	EXPECT_STATS(12, 3, 9, 0);
	ab_free(&ab);
}

Test(extract, symlink_escapes)
{
	each_resolver("symlink_escapes", case_symlink_escapes);
}

/* --- names ------------------------------------------------------------- */

/* Names that climb out or are absolute are refused; odd spellings work. */
static void
case_names(struct fx *fx)
{
	char huge[PFX_NAME_MAX + 2];
	struct ab ab;

	ab_pax(&ab);
	ab_file(&ab, "../x", "escape\n", 0644);
	ab_file(&ab, "a/../../x", "escape\n", 0644);
	ab_file(&ab, "d/../../outside/victim", "escape\n", 0644);
	ab_file(&ab, "/etc/x", "absolute\n", 0644);
	ab_file(&ab, "//x", "absolute\n", 0644);
	ab_file(&ab, "./a/./b", "dots\n", 0644);
	ab_file(&ab, "c//d", "slashes\n", 0644);
	ab_file(&ab, "e/../f", "lexical\n", 0644);
	memset(huge, 'n', sizeof(huge) - 1);
	huge[sizeof(huge) - 1] = '\0';
	ab_file(&ab, huge, "too long\n", 0644);
	/* Bytes that are no UTF-8, and a newline: names like any other. */
	ab_file(&ab, "caf\xe9", "latin-1\n", 0644);
	ab_file(&ab, "new\nline", "newline\n", 0644);
	ab_close(&ab);

	EXPECT_STATUS(fx_extract(fx, &ab), PFX_REFUSED);
	EXPECT_REFUSED(huge, "too_long", PFX_REJECT);
	EXPECT_REFUSED("../x", "escapes", PFX_REJECT);
	EXPECT_REFUSED("a/../../x", "escapes", PFX_REJECT);
	EXPECT_REFUSED("d/../../outside/victim", "escapes", PFX_REJECT);
	EXPECT_REFUSED("/etc/x", "absolute", PFX_DENY);
	EXPECT_REFUSED("//x", "absolute", PFX_DENY);
	CHECK(rec_find(&fx->rep, "../x", 0)->path == NULL,
	    "a refused name has a path");
	CHECK(strcmp(str_or_null(EXPECT_OK("./a/./b")->path), "a/b") == 0,
	    "./a/./b reported at %s",
	    str_or_null(rec_find(&fx->rep, "./a/./b", 0)->path));
	CHECK(strcmp(str_or_null(EXPECT_OK("e/../f")->path), "f") == 0,
	    "e/../f reported at %s",
	    str_or_null(rec_find(&fx->rep, "e/../f", 0)->path));
	EXPECT_FILE("a/b", "dots\n", 0644);
	EXPECT_FILE("c/d", "slashes\n", 0644);
	EXPECT_FILE("f", "lexical\n", 0644);
	EXPECT_FILE("caf\xe9", "latin-1\n", 0644);
	EXPECT_FILE("new\nline", "newline\n", 0644);
	EXPECT_LIST("", "a c caf\xe9 f new\nline");
	EXPECT_LIST("a", "b");
	EXPECT_ABSENT_TOP("x");
	EXPECT_STATS(11, 5, 6, 0);
	ab_free(&ab);
}

Test(extract, names)
{
	each_resolver("names", case_names);
}

/*
 * Long names and long link targets, as pax records, GNU long-name
 * entries and the ustar prefix field carry them.
 */
static void
case_long_names(struct fx *fx)
{
	static const struct {
		const char *name;
		int (*set)(struct archive *);
		bool links;
	} fmts[] = {
		{ "pax", archive_write_set_format_pax, true },
		{ "gnutar", archive_write_set_format_gnutar, true },
		{ "ustar", archive_write_set_format_ustar, false },
	};
	char name[300], target[600], cname[64];
	const char *saved;
	struct ab ab;
	size_t i;

	/* 155 bytes of directory and a 100-byte file name: ustar's limit. */
	(void)snprintf(name, sizeof(name), "long/%0150d/%0100d", 0, 0);
	/* From long/sl: down the long directory, up, and to the file. */
	(void)snprintf(target, sizeof(target), "%.150s/../%s", name + 5,
	    name + 5);
	cr_assert(strlen(target) == 405, "target of %zu bytes",
	    strlen(target));
	saved = fx->cname;
	fx->links_ok = true;
	fx->opt.symlinks = PFX_SYMLINKS_CONTAIN;
	for (i = 0; i < NELEM(fmts); i++) {
		(void)snprintf(cname, sizeof(cname), "long_names %s",
		    fmts[i].name);
		fx->cname = cname;
		cr_assert(rm_tree_dest(fx) == 0, "cannot empty dest/");
		ab_open(&ab, fmts[i].set, NULL);
		ab_file(&ab, name, "long\n", 0644);
		if (fmts[i].links) {
			ab_hardlink(&ab, "hl", name);
			ab_symlink(&ab, "long/sl", target);
		}
		ab_close(&ab);
		EXPECT_STATUS(fx_extract(fx, &ab), PFX_OK);
		EXPECT_FILE(name, "long\n", 0644);
		if (fmts[i].links) {
			EXPECT_SAME_INODE("hl", name);
			EXPECT_LINK("long/sl", target);
		}
		ab_free(&ab);
	}
	fx->cname = saved;
}

Test(extract, long_names)
{
	each_resolver("long_names", case_long_names);
}

/*
 * Entries whose name is the destination itself: a directory entry is
 * accepted and leaves it alone; nothing else can be made there.
 */
static void
case_root_names(struct fx *fx)
{
	struct stat before;
	struct ab ab;
	size_t i;

	fx->opt.symlinks = PFX_SYMLINKS_CONTAIN;
	before = stat_dest(fx, __LINE__, ".");
	ab_pax(&ab);
	ab_file(&ab, "f", "f\n", 0644);
	ab_file(&ab, ".", "dot\n", 0644);
	ab_hardlink(&ab, "./.", "f");
	ab_symlink(&ab, "././", "f");
	/* The writer ends a directory's name with '/'. */
	ab_dir(&ab, ".//", 0700);
	ab_close(&ab);
	EXPECT_STATUS(fx_extract(fx, &ab), PFX_REFUSED);
	for (i = 0; i < fx->rep.n; i++)
		CHECK(fx->rep.v[i].status == (strcmp(fx->rep.v[i].name, "f") ==
		    0 || strcmp(fx->rep.v[i].name, ".//") == 0 ?
		    PFX_ENTRY_EXTRACTED : PFX_ENTRY_REFUSED),
		    "entry \"%s\": %s \"%s\"", fx->rep.v[i].name,
		    pfx_entry_status_name(fx->rep.v[i].status),
		    fx->rep.v[i].reason);
	EXPECT_LIST("", "f");
	EXPECT_NLINK("f", 1);
	EXPECT_DIR(".", (int)(before.st_mode & 07777));
	ab_free(&ab);
}

Test(extract, root_names)
{
	each_resolver("root_names", case_root_names);
}

/* The names dangerous on Windows, one per reason. */
static const struct {
	const char *name;
	const char *reason;	/* in zip, or with PFX_OPT_WINDOWS_NAMES */
	const char *tar_path;	/* where tar puts it by default */
} win_names[] = {
	{ "a/b\\c", "backslash", "a/b\\c" },
	{ "C:/x.txt", "drive", "C:/x.txt" },
	{ "C:y.txt", "drive", "C:y.txt" },
	{ "CON", "reserved_name", "CON" },
	{ "aux.txt", "reserved_name", "aux.txt" },
	{ "dot.", "trailing_dot_space", "dot." },
	{ "space ", "trailing_dot_space", "space " },
	{ "ab:stream", "stream", "ab:stream" },
	{ "q?.txt", "invalid_char", "q?.txt" },
};

static void
win_archive(struct ab *ab, int (*format)(struct archive *))
{
	size_t i;

	ab_open(ab, format, NULL);
	for (i = 0; i < NELEM(win_names); i++)
		ab_file(ab, win_names[i].name, "w\n", 0644);
	ab_file(ab, "ok.txt", "ok\n", 0644);
	ab_close(ab);
}

/* Zip archives are always judged as Windows names. */
static void
case_windows_zip(struct fx *fx)
{
	struct ab ab;
	size_t i;

	win_archive(&ab, archive_write_set_format_zip);
	EXPECT_STATUS(fx_extract(fx, &ab), PFX_REFUSED);
	for (i = 0; i < NELEM(win_names); i++)
		EXPECT_REFUSED(win_names[i].name, win_names[i].reason,
		    PFX_REJECT);
	EXPECT_LIST("", "ok.txt");
	EXPECT_FILE("ok.txt", "ok\n", 0644);
	ab_free(&ab);

	/* libarchive turns "..\\x" into "../x"; it still cannot climb. */
	ab_open(&ab, archive_write_set_format_zip, NULL);
	ab_file(&ab, "..\\evil", "evil\n", 0644);
	ab_close(&ab);
	EXPECT_STATUS(fx_extract(fx, &ab), PFX_REFUSED);
	CHECK(fx->rep.n == 1 && fx->rep.v[0].status == PFX_ENTRY_REFUSED &&
	    (strcmp(fx->rep.v[0].reason, "escapes") == 0 ||
	    strcmp(fx->rep.v[0].reason, "backslash") == 0),
	    "zip ..\\evil: not refused as escapes or backslash");
	EXPECT_LIST("", "ok.txt");
	EXPECT_ABSENT_TOP("evil");
	ab_free(&ab);
}

Test(extract, windows_names_zip)
{
	each_resolver("windows_names_zip", case_windows_zip);
}

/* In tar the same names are ordinary, unless PFX_OPT_WINDOWS_NAMES. */
static void
case_windows_tar(struct fx *fx)
{
	struct ab ab;
	size_t i;

	win_archive(&ab, archive_write_set_format_pax);
	EXPECT_STATUS(fx_extract(fx, &ab), PFX_OK);
	for (i = 0; i < NELEM(win_names); i++) {
		EXPECT_OK(win_names[i].name);
		EXPECT_FILE(win_names[i].tar_path, "w\n", 0644);
	}
	EXPECT_LIST("", "C: C:y.txt CON a ab:stream aux.txt dot. ok.txt "
	    "q?.txt space ");
	EXPECT_STATS(NELEM(win_names) + 1, NELEM(win_names) + 1, 0, 0);

	fx->opt.flags |= PFX_OPT_WINDOWS_NAMES;
	ab_free(&ab);
	win_archive(&ab, archive_write_set_format_pax);
	EXPECT_STATUS(fx_extract(fx, &ab), PFX_REFUSED);
	for (i = 0; i < NELEM(win_names); i++)
		EXPECT_REFUSED(win_names[i].name, win_names[i].reason,
		    PFX_REJECT);
	EXPECT_OK("ok.txt");
	ab_free(&ab);
}

Test(extract, windows_names_tar)
{
	each_resolver("windows_names_tar", case_windows_tar);
}

/* --- hard links -------------------------------------------------------- */

/*
 * A hard link is made only to a file this run extracted: not to one that
 * was there before, not to a missing one, not to a directory, not
 * outside.
 */
static void
case_hardlink_targets(struct fx *fx)
{
	char abs[PATH_MAX];
	struct ab ab;

	(void)snprintf(abs, sizeof(abs), "%s/outside/secret", fx->top);
	put_file(fx->destfd, "old", "old content\n", 0644);
	ab_pax(&ab);
	ab_dir(&ab, "d/", 0755);
	ab_file(&ab, "f", "new file\n", 0644);
	ab_hardlink(&ab, "l_old", "old");
	ab_hardlink(&ab, "l_missing", "missing");
	ab_hardlink(&ab, "l_dir", "d");
	ab_hardlink(&ab, "l_out", "../outside/secret");
	ab_hardlink(&ab, "l_abs", abs);
	ab_hardlink(&ab, "l_dots", "./d/../f");
	ab_hardlink(&ab, "l_chain", "l_dots");
	ab_symlink(&ab, "s", "f");
	ab_hardlink(&ab, "l_sym", "s");
	ab_hardlink(&ab, "../l_up", "f");
	ab_close(&ab);

	EXPECT_STATUS(fx_extract(fx, &ab), PFX_REFUSED);
	EXPECT_REFUSED("l_old", "hardlink_target", PFX_DENY);
	EXPECT_REFUSED("l_missing", "hardlink_target", PFX_DENY);
	EXPECT_REFUSED("l_dir", "hardlink_target", PFX_DENY);
	EXPECT_REFUSED("l_out", "hardlink_escapes", PFX_REJECT);
	EXPECT_REFUSED("l_abs", "hardlink_escapes", PFX_REJECT);
	EXPECT_REFUSED("../l_up", "escapes", PFX_REJECT);
	EXPECT_REFUSED("s", "symlink", PFX_DENY);
	EXPECT_REFUSED("l_sym", "hardlink_target", PFX_DENY);
	EXPECT_OK("l_dots");
	EXPECT_OK("l_chain");
	EXPECT_SAME_INODE("l_dots", "f");
	EXPECT_SAME_INODE("l_chain", "f");
	EXPECT_FILE("old", "old content\n", 0644);
	EXPECT_NLINK("old", 1);
	EXPECT_NLINK("f", 3);
	EXPECT_LIST("", "d f l_chain l_dots old");
	EXPECT_ABSENT_TOP("l_up");
	EXPECT_STATS(12, 4, 8, 0);
	ab_free(&ab);
}

Test(extract, hardlink_targets)
{
	each_resolver("hardlink_targets", case_hardlink_targets);
}

/*
 * A hard-link entry that carries data (pax allows it) is linked to its
 * target; the data is never written into the target.  The archive is
 * written by hand: libarchive's writer drops such data.
 */
static void
case_hardlink_data(struct fx *fx)
{
	struct raw r = { NULL, 0, 0 };
	static const char rec[] = "10 path=h\n";

	raw_entry(&r, "f", '0', "orig\n", "");
	tar_checksum(raw_header(&r, "PaxHeaders/h", 'x', strlen(rec), "",
	    false));
	raw_data(&r, rec, strlen(rec));
	raw_entry(&r, "h", '1', "EVIL\n", "f");
	raw_entry(&r, "after", '0', "after\n", "");
	(void)raw_block(&r);
	(void)raw_block(&r);

	EXPECT_STATUS(fx_extract_bytes(fx, r.buf, r.len), PFX_OK);
	EXPECT_FILE("f", "orig\n", 0644);
	EXPECT_SAME_INODE("h", "f");
	EXPECT_FILE("after", "after\n", 0644);
	EXPECT_OK("h");
	EXPECT_LIST("", "after f h");
	free(r.buf);
}

Test(extract, hardlink_with_data)
{
	each_resolver("hardlink_with_data", case_hardlink_data);
}

/* What the warning hook was told: "WHAT NAME\n" per call. */
static char warned[1024];

static void
record_warning(void *arg, const char *what, const char *name)
{
	size_t n = strlen(warned);

	(void)arg;
	(void)snprintf(warned + n, sizeof(warned) - n, "%s %s\n", what, name);
}

/*
 * An entry behind a pax header of the record REC, extracted in both
 * processes: the warning hook is told TOLD, the entry is NAME, the entry
 * after it, g, is extracted too, and the status is STATUS.  NAME NULL:
 * nothing is made.
 */
static void
expect_pax_told(struct fx *fx, const char *rec, const char *told,
    const char *name, enum pfx_status status)
{
	static const unsigned int flags[] = { 0, PFX_OPT_SANDBOX_CHILD };
	struct raw r = { NULL, 0, 0 };
	char list[64];
	size_t k;

	tar_checksum(raw_header(&r, "PaxHeaders/f", 'x', strlen(rec), "",
	    false));
	raw_data(&r, rec, strlen(rec));
	raw_entry(&r, "f", '0', "hi\n", "");
	raw_entry(&r, "g", '0', "ok\n", "");
	(void)raw_block(&r);
	(void)raw_block(&r);
	(void)snprintf(list, sizeof(list), "%s g", name != NULL ? name : "");
	fx->opt.warning = record_warning;
	for (k = 0; k < NELEM(flags); k++) {
		fx->opt.flags = (fx->opt.flags & ~PFX_OPT_SANDBOX_CHILD) |
		    flags[k];
		warned[0] = '\0';
		EXPECT_STATUS(fx_extract_bytes(fx, r.buf, r.len), status);
		CHECK(strcmp(warned, told) == 0, "flags %#x: told \"%s\", "
		    "want \"%s\"", flags[k], warned, told);
		if (name == NULL) {
			EXPECT_LIST("", "");
			continue;
		}
		EXPECT_FILE(name, "hi\n", 0644);
		EXPECT_FILE("g", "ok\n", 0644);
		EXPECT_LIST("", list);
	}
	free(r.buf);
}

/*
 * A header libarchive reads whole but with a part ignored (a pax record
 * longer than the header's data) is told on the warning hook, parsed here
 * or in the decoder process, and its entry extracted as the rest of it
 * says: never a silent success (GNU tar exits 2, bsdtar 1, on it).  Under
 * PFX_OPT_STRICT it stops the run.
 */
static void
case_header_damaged(struct fx *fx)
{
	expect_pax_told(fx, "99 path=zzz\ngarbage record\n",
	    "header_damaged f\n", "f", PFX_OK);
}

Test(extract, header_damaged)
{
	each_resolver("header_damaged", case_header_damaged);
}

static void
case_header_damaged_strict(struct fx *fx)
{
	fx->opt.flags |= PFX_OPT_STRICT;
	expect_pax_told(fx, "99 path=zzz\ngarbage record\n", "", NULL,
	    PFX_FATAL);
	CHECK(strstr(fx->res.message, "f: a damaged header") != NULL,
	    "strict: %s", fx->res.message);
}

Test(extract, header_damaged_strict)
{
	each_resolver("header_damaged_strict", case_header_damaged_strict);
}

/*
 * A pax path that is not UTF-8, as pax says it is, is taken as its bytes
 * (GNU tar's way) and told as such, not as damage, in both processes.
 */
static void
case_name_not_converted(struct fx *fx)
{
	expect_pax_told(fx, "13 path=a-\xff\xfe\n",
	    "name_not_converted a-\xff\xfe\n", "a-\xff\xfe", PFX_OK);
}

Test(extract, name_not_converted)
{
	each_resolver("name_not_converted", case_name_not_converted);
}

/* Append the entry NAME as raw_entry() does, with mode MODE; behind a
 * pax header when PAX, so that a hard link's data is read as data. */
static void
raw_entry_mode(struct raw *r, const char *name, char type, const char *data,
    const char *link, mode_t mode, bool pax)
{
	char rec[128];
	unsigned char *h;

	if (pax) {
		/* "NN path=NAME\n": NN counts its own two digits. */
		(void)snprintf(rec, sizeof(rec), "%zu path=%s\n",
		    strlen(name) + 9, name);
		cr_assert(strlen(rec) == strlen(name) + 9, "pax record");
		tar_checksum(raw_header(r, "PaxHeaders/x", 'x', strlen(rec),
		    "", false));
		raw_data(r, rec, strlen(rec));
	}
	h = raw_header(r, name, type, strlen(data), link, false);
	tar_octal(h + 100, 8, mode);
	tar_checksum(h);
	raw_data(r, data, strlen(data));
}

/* dest/REL is a regular file of SIZE bytes, not read: it may be 0000. */
static void
expect_size(struct fx *fx, int line, const char *rel, off_t size)
{
	struct stat st;

	check(fx, line, fstatat(fx->destfd, rel, &st, AT_SYMLINK_NOFOLLOW) ==
	    0 && S_ISREG(st.st_mode) && st.st_size == size,
	    "dest/%s: not a file of %jd bytes", rel, (intmax_t)size);
}

/*
 * Run as nobody when root, so that the owner's rights are checked (this
 * test's process only: Criterion forks one per test).
 */
static void
become_nobody_if_root(void)
{
	if (geteuid() != 0)
		return;
	cr_assert(setgroups(0, NULL) == 0, "setgroups: %s",
	    strerror(errno));
	cr_assert(setresgid(NOBODY, NOBODY, NOBODY) == 0,
	    "setresgid: %s", strerror(errno));
	cr_assert(setresuid(NOBODY, NOBODY, NOBODY) == 0,
	    "setresuid: %s", strerror(errno));
	/* Keep /proc/self readable, for the descriptor count. */
	(void)prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
}

/*
 * Hard links to files the archive leaves its owner no right to read
 * (0000, 0200) are made, as link(2) and GNU tar make them: the target is
 * opened only to be known and linked, never read.  So too the cpio-style
 * links: the data of z goes to a new file that e, an unreadable empty
 * file, names too; w's data, in a file the link leaves unreadable, is
 * linked at y and y2.  Unprivileged, each of these stopped the run
 * ("Permission denied", exit 2, "after" lost), or left y and y2 empty.
 */
static void
case_hardlink_unreadable(struct fx *fx)
{
	struct raw r = { NULL, 0, 0 };

	raw_entry_mode(&r, "f0", '0', "zero\n", "", 0000, false);
	raw_entry_mode(&r, "l0", '1', "", "f0", 0644, false);
	raw_entry_mode(&r, "f2", '0', "two\n", "", 0200, false);
	raw_entry_mode(&r, "l2", '1', "", "f2", 0644, false);
	raw_entry_mode(&r, "e", '0', "", "", 0000, false);
	raw_entry_mode(&r, "z", '1', "DATA\n", "e", 0644, true);
	raw_entry_mode(&r, "y", '0', "", "", 0644, false);
	raw_entry_mode(&r, "y2", '1', "", "y", 0644, false);
	raw_entry_mode(&r, "w", '1', "DATA\n", "y", 0000, true);
	raw_entry_mode(&r, "after", '0', "after\n", "", 0644, false);
	(void)raw_block(&r);
	(void)raw_block(&r);

	EXPECT_STATUS(fx_extract_bytes(fx, r.buf, r.len), PFX_OK);
	EXPECT_SAME_INODE("l0", "f0");
	EXPECT_SAME_INODE("l2", "f2");
	EXPECT_SAME_INODE("z", "e");
	expect_size(fx, __LINE__, "e", 5);
	EXPECT_SAME_INODE("y", "w");
	EXPECT_SAME_INODE("y2", "w");
	EXPECT_NLINK("w", 3);
	expect_size(fx, __LINE__, "y", 5);
	EXPECT_OK("l0");
	EXPECT_OK("l2");
	EXPECT_OK("z");
	EXPECT_OK("w");
	EXPECT_FILE("after", "after\n", 0644);
	free(r.buf);
}

Test(extract, hardlink_unreadable)
{
	become_nobody_if_root();
	each_resolver("hardlink_unreadable", case_hardlink_unreadable);
}

/*
 * Add to AB the empty entry NAME of TYPE (a symlink to /etc) as one of
 * the two names of inode INO.
 */
static void
cpio_twice_linked(struct ab *ab, const char *name, mode_t type,
    int64_t ino)
{
	struct archive_entry *e = ent_new(name, type,
	    type == AE_IFLNK ? 0777 : 0644);

	if (type == AE_IFLNK)
		archive_entry_set_symlink(e, "/etc");
	archive_entry_set_ino(e, ino);
	archive_entry_set_nlink(e, 2);
	ab_write(ab, e, NULL, 0);
}

/*
 * cpio: a symlink that shares an inode with a file (or another symlink)
 * is read by libarchive as a hard link whose size is its target's, the
 * target read already.  Taken as a link that carries data, it stopped
 * the run ("the entry's data ends short of its size", exit 2): "after"
 * was lost.  It is a link to the file without data now, and refused
 * where the first name is no file this run made.
 */
static void
case_cpio_symlink_shares_inode(struct fx *fx)
{
	struct ab ab;

	ab_open(&ab, archive_write_set_format_cpio_newc, NULL);
	cpio_twice_linked(&ab, "a", AE_IFREG, 7);
	cpio_twice_linked(&ab, "l", AE_IFLNK, 7);
	cpio_twice_linked(&ab, "s", AE_IFLNK, 8);
	cpio_twice_linked(&ab, "s2", AE_IFLNK, 8);
	ab_file(&ab, "after", "after\n", 0644);
	ab_close(&ab);

	EXPECT_STATUS(fx_extract(fx, &ab), PFX_REFUSED);
	EXPECT_OK("l");
	EXPECT_SAME_INODE("l", "a");
	expect_size(fx, __LINE__, "a", 0);
	EXPECT_REFUSED("s", "symlink", PFX_DENY);
	EXPECT_REFUSED("s2", "hardlink_target", PFX_DENY);
	EXPECT_FILE("after", "after\n", 0644);
	ab_free(&ab);
}

Test(extract, cpio_symlink_shares_inode)
{
	each_resolver("cpio_symlink_shares_inode",
	    case_cpio_symlink_shares_inode);
}

/* --- what already exists in the destination ---------------------------- */

/*
 * An existing file, a hard link to a file outside and a symlink to a
 * file outside are all replaced by new files; what they pointed at is
 * untouched.  A hard-link entry replaces a name linked outside the same
 * way.
 */
static void
case_existing_replaced(struct fx *fx)
{
	char abs[PATH_MAX];
	struct stat old;
	struct ab ab;

	fx->links_ok = false;
	put_file(fx->destfd, "f", "old\n", 0644);
	old = stat_dest(fx, __LINE__, "f");
	cr_assert(linkat(fx->outfd, "victim", fx->destfd, "g", 0) == 0,
	    "fixture: link: %s", strerror(errno));
	cr_assert(linkat(fx->outfd, "secret", fx->destfd, "h", 0) == 0,
	    "fixture: link: %s", strerror(errno));
	put_link(fx->destfd, "s", "../outside/secret");
	(void)snprintf(abs, sizeof(abs), "%s/outside/sub/inner", fx->top);
	put_link(fx->destfd, "abs", abs);
	fx_rebase(fx, false);

	ab_pax(&ab);
	ab_file(&ab, "f", "new f\n", 0644);
	ab_file(&ab, "g", "new g\n", 0644);
	ab_file(&ab, "s", "new s\n", 0600);
	ab_file(&ab, "abs", "new abs\n", 0644);
	ab_hardlink(&ab, "h", "f");
	ab_close(&ab);

	EXPECT_STATUS(fx_extract(fx, &ab), PFX_OK);
	EXPECT_FILE("f", "new f\n", 0644);
	CHECK(stat_dest(fx, __LINE__, "f").st_ino != old.st_ino,
	    "f was written in place, not replaced");
	EXPECT_FILE("g", "new g\n", 0644);
	EXPECT_FILE("s", "new s\n", 0600);
	EXPECT_FILE("abs", "new abs\n", 0644);
	EXPECT_SAME_INODE("h", "f");
	EXPECT_LIST("", "abs f g h s");
	ab_free(&ab);
}

Test(extract, existing_replaced)
{
	each_resolver("existing_replaced", case_existing_replaced);
}

/* The report of FX's entry NAME, or NULL. */
static const struct rec *
report_of(const struct fx *fx, const char *name)
{
	size_t i;

	for (i = 0; i < fx->rep.n; i++)
		if (fx->rep.v[i].name != NULL &&
		    strcmp(fx->rep.v[i].name, name) == 0)
			return &fx->rep.v[i];
	return NULL;
}

/*
 * --backup: each file's report names the backup made of what was at its
 * path (tar -v's "Renaming"), and only such a file's: through the worker
 * thread and the reports it defers alike, several files in a row.
 */
static void
case_backup_reported(struct fx *fx)
{
	static const char *const names[] = { "a", "d/b", "c", "d/e", "f" };
	const struct rec *r;
	char want[16];
	struct ab ab;
	size_t i;

	put_file(fx->destfd, "a", "old a\n", 0644);
	cr_assert(mkdirat(fx->destfd, "d", 0755) == 0, "fixture: mkdir");
	put_file(fx->destfd, "d/b", "old b\n", 0644);
	put_file(fx->destfd, "d/e", "old e\n", 0644);
	fx_rebase(fx, false);
	fx->opt.backup = PFX_BACKUP_SIMPLE;

	ab_pax(&ab);
	ab_dir(&ab, "d", 0755);
	for (i = 0; i < NELEM(names); i++)
		ab_file(&ab, names[i], "new\n", 0644);
	ab_close(&ab);

	EXPECT_STATUS(fx_extract(fx, &ab), PFX_OK);
	EXPECT_FILE("a~", "old a\n", 0644);
	EXPECT_FILE("d/b~", "old b\n", 0644);
	for (i = 0; i < NELEM(names); i++) {
		r = report_of(fx, names[i]);
		CHECK(r != NULL, "no report for %s", names[i]);
		(void)snprintf(want, sizeof(want), "%s~",
		    strrchr(names[i], '/') != NULL ?
		    strrchr(names[i], '/') + 1 : names[i]);
		if (strcmp(names[i], "c") == 0 || strcmp(names[i], "f") == 0)
			CHECK(r->backup == NULL, "%s: backup \"%s\", none "
			    "made", names[i], r->backup);
		else
			CHECK(r->backup != NULL && strcmp(r->backup,
			    want) == 0, "%s: backup %s, want %s", names[i],
			    str_or_null(r->backup), want);
	}
	r = report_of(fx, "d");
	if (r == NULL)
		r = report_of(fx, "d/");
	CHECK(r != NULL && r->backup == NULL, "d: a directory has no backup");
	ab_free(&ab);
}

Test(extract, backup_reported)
{
	each_resolver("backup_reported", case_backup_reported);
}

/*
 * --backup before a hard link too, as GNU tar: the file that was at its
 * name is moved aside (numbered: old.~1~, then old.~2~, the first link),
 * and the report names the backup.  The old file was replaced unbacked.
 */
static void
case_backup_hardlink(struct fx *fx)
{
	const struct rec *r;
	struct ab ab;

	put_file(fx->destfd, "old", "old\n", 0644);
	fx_rebase(fx, false);
	fx->opt.backup = PFX_BACKUP_NUMBERED;

	ab_pax(&ab);
	ab_file(&ab, "f", "new\n", 0644);
	ab_hardlink(&ab, "old", "f");
	ab_hardlink(&ab, "old", "f");
	ab_close(&ab);

	EXPECT_STATUS(fx_extract(fx, &ab), PFX_OK);
	EXPECT_FILE("old.~1~", "old\n", 0644);
	EXPECT_NLINK("old.~1~", 1);
	EXPECT_SAME_INODE("old", "f");
	EXPECT_SAME_INODE("old.~2~", "f");
	EXPECT_LIST("", "f old old.~1~ old.~2~");
	r = report_of(fx, "old");
	CHECK(r != NULL && r->backup != NULL &&
	    strcmp(r->backup, "old.~1~") == 0, "old: backup %s, want old.~1~",
	    r != NULL ? str_or_null(r->backup) : "(no report)");
	ab_free(&ab);
}

Test(extract, backup_hardlink)
{
	each_resolver("backup_hardlink", case_backup_hardlink);
}

/*
 * An input in no known format, or empty, fails with PFX_ENOTARCHIVE
 * (tar's "This does not look like a tar archive"), parsed here or in the
 * decoder process; a tar archive cut short is another error.
 */
static void
case_not_archive(struct fx *fx)
{
	static const unsigned int flags[] = { 0, PFX_OPT_SANDBOX_CHILD };
	char junk[511];
	struct ab ab;
	size_t i, k;

	for (i = 0; i < sizeof(junk); i++)
		junk[i] = (char)('a' + i % 23);
	ab_pax(&ab);
	ab_file(&ab, "f", "some data that the cut leaves out\n", 0644);
	ab_close(&ab);
	for (k = 0; k < NELEM(flags); k++) {
		fx->opt.flags = (fx->opt.flags & ~PFX_OPT_SANDBOX_CHILD) |
		    flags[k];
		EXPECT_STATUS(fx_extract_bytes(fx, junk, sizeof(junk)),
		    PFX_FATAL);
		CHECK(fx->res.error == PFX_ENOTARCHIVE, "junk (flags %#x): "
		    "error %d (%s)", flags[k], fx->res.error,
		    fx->res.message);
		EXPECT_STATUS(fx_extract_bytes(fx, junk, 0), PFX_FATAL);
		CHECK(fx->res.error == PFX_ENOTARCHIVE, "empty (flags %#x): "
		    "error %d (%s)", flags[k], fx->res.error,
		    fx->res.message);
		EXPECT_STATUS(fx_extract_bytes(fx, ab.buf, 600), PFX_FATAL);
		CHECK(fx->res.error != PFX_ENOTARCHIVE, "a cut tar (flags "
		    "%#x) is no junk: %s", flags[k], fx->res.message);
	}
	ab_free(&ab);
}

Test(extract, not_archive)
{
	each_resolver("not_archive", case_not_archive);
}

/*
 * A symlink already on an entry's path is never followed: the entry is
 * refused, nothing lands where the link points, the link stays.
 */
static void
case_symlink_in_path(struct fx *fx)
{
	char abs[PATH_MAX];
	struct ab ab;

	fx->links_ok = true;
	(void)snprintf(abs, sizeof(abs), "%s/outside", fx->top);
	put_link(fx->destfd, "d", "../outside");
	put_link(fx->destfd, "e", abs);
	put_dir(fx->destfd, "real", 0755);
	put_link(fx->destfd, "real/l", "../../outside/sub");
	ab_pax(&ab);
	ab_file(&ab, "d/x", "through d\n", 0644);
	ab_dir(&ab, "d/", 0777);
	ab_file(&ab, "d/new/y", "through d\n", 0644);
	ab_file(&ab, "e/x", "through e\n", 0644);
	ab_file(&ab, "real/l/x", "through real/l\n", 0644);
	ab_hardlink(&ab, "d/h", "ok");
	ab_file(&ab, "ok", "ok\n", 0644);
	ab_hardlink(&ab, "e/h", "ok");
	ab_close(&ab);

	EXPECT_STATUS(fx_extract(fx, &ab), PFX_REFUSED);
	EXPECT_REFUSED("d/x", "symlink_in_path", PFX_DENY);
	EXPECT_REFUSED("d/", "symlink_in_path", PFX_DENY);
	EXPECT_REFUSED("d/new/y", "symlink_in_path", PFX_DENY);
	EXPECT_REFUSED("e/x", "symlink_in_path", PFX_DENY);
	EXPECT_REFUSED("real/l/x", "symlink_in_path", PFX_DENY);
	EXPECT_REFUSED("e/h", "symlink_in_path", PFX_DENY);
	EXPECT_LINK("d", "../outside");
	EXPECT_LINK("e", abs);
	EXPECT_LINK("real/l", "../../outside/sub");
	EXPECT_LIST("", "d e ok real");
	CHECK(strstr(pfx_reason_text("symlink_in_path"), "remove") != NULL,
	    "the reason does not say how to fix it: \"%s\"",
	    pfx_reason_text("symlink_in_path"));
	ab_free(&ab);
}

Test(extract, symlink_in_path)
{
	each_resolver("symlink_in_path", case_symlink_in_path);
}

/* An existing directory is reused; one where a file goes is kept. */
static void
case_existing_dir(struct fx *fx)
{
	struct ab ab;

	put_dir(fx->destfd, "keep", 0700);
	set_old_times(fx->destfd, "keep");
	put_dir(fx->destfd, "isdir", 0755);
	put_file(fx->destfd, "isdir/inside", "inside\n", 0644);
	put_file(fx->destfd, "notdir", "file\n", 0644);
	ab_pax(&ab);
	ab_dir(&ab, "keep/", 0777);
	ab_file(&ab, "keep/new", "new\n", 0644);
	ab_file(&ab, "isdir", "a file\n", 0644);
	ab_file(&ab, "notdir/x", "x\n", 0644);
	ab_close(&ab);

	EXPECT_STATUS(fx_extract(fx, &ab), PFX_REFUSED);
	EXPECT_OK("keep/");
	EXPECT_FILE("keep/new", "new\n", 0644);
	/* A directory that existed before is never chmod'ed. */
	EXPECT_DIR("keep", 0700);
	EXPECT_REFUSED("isdir", "is_a_directory", PFX_DENY);
	EXPECT_FILE("isdir/inside", "inside\n", 0644);
	EXPECT_REFUSED("notdir/x", "not_a_directory", PFX_DENY);
	EXPECT_FILE("notdir", "file\n", 0644);
	EXPECT_LIST("", "isdir keep notdir");
	ab_free(&ab);
}

Test(extract, existing_dir)
{
	each_resolver("existing_dir", case_existing_dir);
}

/* The archive for the existing-name policies: f and h exist already. */
static void
existing_archive(struct fx *fx, struct ab *ab)
{
	put_file(fx->destfd, "f", "old f\n", 0644);
	put_file(fx->destfd, "h", "old h\n", 0644);
	put_file(fx->destfd, "s", "old s\n", 0644);
	ab_pax(ab);
	ab_file(ab, "f", "new f\n", 0644);
	ab_file(ab, "g", "new g\n", 0644);
	ab_hardlink(ab, "h", "g");
	ab_symlink(ab, "s", "g");
	ab_close(ab);
}

/* PFX_EXISTING_KEEP refuses and keeps the old content. */
static void
case_existing_keep(struct fx *fx)
{
	struct ab ab;

	fx->opt.existing = PFX_EXISTING_KEEP;
	fx->opt.symlinks = PFX_SYMLINKS_CONTAIN;
	existing_archive(fx, &ab);
	EXPECT_STATUS(fx_extract(fx, &ab), PFX_REFUSED);
	EXPECT_REFUSED("f", "exists", PFX_DENY);
	EXPECT_REFUSED("h", "exists", PFX_DENY);
	EXPECT_REFUSED("s", "exists", PFX_DENY);
	EXPECT_OK("g");
	EXPECT_FILE("f", "old f\n", 0644);
	EXPECT_FILE("h", "old h\n", 0644);
	EXPECT_FILE("s", "old s\n", 0644);
	EXPECT_FILE("g", "new g\n", 0644);
	EXPECT_NLINK("g", 1);
	EXPECT_STATS(4, 1, 3, 0);
	EXPECT_LIST("", "f g h s");
	ab_free(&ab);

	/* f was kept, not made by this run: no hard link may reach it. */
	ab_pax(&ab);
	ab_file(&ab, "f", "newer f\n", 0644);
	ab_hardlink(&ab, "h2", "f");
	ab_close(&ab);
	EXPECT_STATUS(fx_extract(fx, &ab), PFX_REFUSED);
	EXPECT_REFUSED("f", "exists", PFX_DENY);
	EXPECT_REFUSED("h2", "hardlink_target", PFX_DENY);
	EXPECT_FILE("f", "old f\n", 0644);
	EXPECT_NLINK("f", 1);
	EXPECT_LIST("", "f g h s");
	ab_free(&ab);
}

Test(extract, existing_keep)
{
	each_resolver("existing_keep", case_existing_keep);
}

/* PFX_EXISTING_SKIP skips quietly: the run is still PFX_OK. */
static void
case_existing_skip(struct fx *fx)
{
	struct ab ab;

	fx->opt.existing = PFX_EXISTING_SKIP;
	fx->opt.symlinks = PFX_SYMLINKS_CONTAIN;
	existing_archive(fx, &ab);
	EXPECT_STATUS(fx_extract(fx, &ab), PFX_OK);
	EXPECT_ENTRY("f", PFX_ENTRY_SKIPPED, "skipped_existing");
	EXPECT_ENTRY("h", PFX_ENTRY_SKIPPED, "skipped_existing");
	EXPECT_ENTRY("s", PFX_ENTRY_SKIPPED, "skipped_existing");
	EXPECT_OK("g");
	EXPECT_FILE("f", "old f\n", 0644);
	EXPECT_FILE("h", "old h\n", 0644);
	EXPECT_FILE("s", "old s\n", 0644);
	EXPECT_STATS(4, 1, 0, 3);
	ab_free(&ab);
}

Test(extract, existing_skip)
{
	each_resolver("existing_skip", case_existing_skip);
}

/* The later of two entries of one name wins, whatever their types. */
static void
case_duplicates(struct fx *fx)
{
	struct ab ab;

	fx->links_ok = true;
	fx->opt.symlinks = PFX_SYMLINKS_CONTAIN;
	ab_pax(&ab);
	ab_file(&ab, "dup", "first\n", 0644);
	ab_file(&ab, "dup", "second\n", 0600);
	ab_file(&ab, "x", "one\n", 0644);
	ab_hardlink(&ab, "y", "x");
	ab_file(&ab, "x", "two\n", 0644);
	ab_symlink(&ab, "ls", "dup");
	ab_file(&ab, "ls", "file wins\n", 0644);
	ab_file(&ab, "sl", "link wins\n", 0644);
	ab_symlink(&ab, "sl", "dup");
	ab_symlink(&ab, "ll", "x");
	ab_symlink(&ab, "ll", "dup");
	ab_close(&ab);

	EXPECT_STATUS(fx_extract(fx, &ab), PFX_OK);
	EXPECT_FILE("dup", "second\n", 0600);
	EXPECT_FILE("x", "two\n", 0644);
	EXPECT_FILE("y", "one\n", 0644);
	EXPECT_FILE("ls", "file wins\n", 0644);
	EXPECT_LINK("sl", "dup");
	EXPECT_LINK("ll", "dup");
	EXPECT_LIST("", "dup ll ls sl x y");
	EXPECT_NTH("dup", 1, PFX_ENTRY_EXTRACTED, "none");
	ab_free(&ab);
}

Test(extract, duplicates)
{
	each_resolver("duplicates", case_duplicates);
}

/*
 * Files are finished by a second thread (async.c) while the archive is
 * read on; nothing of that may show.  Many more files than the queue
 * holds, mixed with what must wait for them: refusals, directories, hard
 * links to files just written, names written twice, a file or a
 * directory whose parent is the name of a file just queued, a directory
 * named as one.  Every report comes in archive
 * order, and the tree is what one thread would have made.
 */
static void
case_queue_order(struct fx *fx)
{
	static char order[600][64];
	char name[64], other[64], data[64];
	struct ab ab;
	size_t n = 0, i;
	int k;

	ab_pax(&ab);
	for (k = 0; k < 300; k++) {
		snprintf(name, sizeof(name), "d/f%d", k);
		snprintf(data, sizeof(data), "%d\n", k);
		ab_file(&ab, name, data, 0644);
		snprintf(order[n++], sizeof(order[0]), "%s", name);
		if (k % 7 == 3) {
			snprintf(other, sizeof(other), "../evil%d", k);
			ab_file(&ab, other, "evil\n", 0644);
			snprintf(order[n++], sizeof(order[0]), "%s", other);
		}
		if (k % 11 == 5) {
			snprintf(other, sizeof(other), "d/s%d/", k);
			ab_dir(&ab, other, 0755);
			snprintf(order[n++], sizeof(order[0]), "%s", other);
		}
		if (k % 13 == 6) {
			snprintf(data, sizeof(data), "again %d\n", k);
			ab_file(&ab, name, data, 0644);
			snprintf(order[n++], sizeof(order[0]), "%s", name);
		}
		if (k % 17 == 8) {
			snprintf(other, sizeof(other), "d/h%d", k);
			ab_hardlink(&ab, other, name);
			snprintf(order[n++], sizeof(order[0]), "%s", other);
		}
		if (k % 19 == 9) {
			snprintf(other, sizeof(other), "d/f%d/under", k);
			ab_file(&ab, other, "under\n", 0644);
			snprintf(order[n++], sizeof(order[0]), "%s", other);
		}
		if (k % 23 == 10) {
			/* A directory where a queued file goes: it wins. */
			snprintf(other, sizeof(other), "d/f%d/", k);
			ab_dir(&ab, other, 0755);
			snprintf(order[n++], sizeof(order[0]), "%s", other);
		}
		if (k % 29 == 12) {
			snprintf(other, sizeof(other), "d/f%d/sub/", k);
			ab_dir(&ab, other, 0755);
			snprintf(order[n++], sizeof(order[0]), "%s", other);
		}
	}
	ab_close(&ab);

	(void)fx_extract(fx, &ab);
	CHECK(fx->rep.n == n, "%zu reports for %zu entries", fx->rep.n, n);
	/* Reports in archive order, every one. */
	for (i = 0; i < fx->rep.n && i < n; i++)
		CHECK(strcmp(fx->rep.v[i].name, order[i]) == 0,
		    "report %zu is %s, entry %zu is %s", i, fx->rep.v[i].name,
		    i, order[i]);
	for (k = 0; k < 300; k++) {
		snprintf(name, sizeof(name), "d/f%d", k);
		if (k % 23 == 10) {
			EXPECT_DIR(name, 0755);
			continue;
		}
		if (k % 29 == 12) {
			snprintf(other, sizeof(other), "d/f%d/sub/", k);
			EXPECT_ENTRY(other, PFX_ENTRY_REFUSED,
			    "not_a_directory");
		}
		if (k % 13 == 6)
			snprintf(data, sizeof(data), "again %d\n", k);
		else
			snprintf(data, sizeof(data), "%d\n", k);
		EXPECT_FILE(name, data, 0644);
		if (k % 17 == 8) {
			snprintf(other, sizeof(other), "d/h%d", k);
			EXPECT_SAME_INODE(other, name);
		}
		if (k % 19 == 9) {
			snprintf(other, sizeof(other), "d/f%d/under", k);
			EXPECT_ENTRY(other, PFX_ENTRY_REFUSED, "not_a_directory");
		}
	}
	ab_free(&ab);
}

/* The queue's cases planned for three CPUs, where the worker runs. */
static void
case_queue_order_worker(struct fx *fx)
{
	fx->opt.cpus = TFX_WORKER_CPUS;
	case_queue_order(fx);
}

Test(extract, queue_order)
{
	each_resolver("queue_order", case_queue_order_worker);
}

/*
 * When the queue is full the reader finishes queued files too (async.c,
 * wait_done), alongside the worker, but the two commit them under their
 * names in archive order: of a name written two or three times in a row,
 * the last one wins.  Hundreds of such runs, the queue full most of the
 * time.  (With the commits left to each thread as it seals, this failed
 * on every run.)
 */
static void
case_queue_same_names(struct fx *fx)
{
	char name[32], data[32];
	struct ab ab;
	int k, v;

	ab_pax(&ab);
	for (k = 0; k < 600; k++) {
		snprintf(name, sizeof(name), "n%d", k);
		for (v = 0; v < 2 + k % 2; v++) {
			snprintf(data, sizeof(data), "%d.%d\n", k, v);
			ab_file(&ab, name, data, 0644);
		}
	}
	ab_close(&ab);
	EXPECT_STATUS(fx_extract(fx, &ab), PFX_OK);
	for (k = 0; k < 600; k++) {
		snprintf(name, sizeof(name), "n%d", k);
		snprintf(data, sizeof(data), "%d.%d\n", k, 1 + k % 2);
		EXPECT_FILE(name, data, 0644);
	}
	ab_free(&ab);
}

static void
case_queue_same_names_worker(struct fx *fx)
{
	fx->opt.cpus = TFX_WORKER_CPUS;
	case_queue_same_names(fx);
}

Test(extract, queue_same_names)
{
	each_resolver("queue_same_names", case_queue_same_names_worker);
}

/*
 * The worker runs as batch work (SCHED_BATCH: woken, it does not preempt
 * the reader), and the calling thread keeps its own policy.  Seen from
 * the report hook, which runs on the calling thread while the worker
 * lives: another thread of the process is SCHED_BATCH.
 */
static int batch_seen, caller_changed;

static void
batch_report(void *arg, const struct pfx_entry *e)
{
	struct dirent *de;
	DIR *d;
	long tid;

	fx_report(arg, e);
	if (sched_getscheduler(0) != SCHED_OTHER)
		caller_changed++;
	d = opendir("/proc/self/task");
	cr_assert(d != NULL, "opendir /proc/self/task: %s", strerror(errno));
	while ((de = readdir(d)) != NULL) {
		tid = strtol(de->d_name, NULL, 10);
		if (tid <= 0 || tid == (long)syscall(SYS_gettid))
			continue;
		if (sched_getscheduler((pid_t)tid) == SCHED_BATCH)
			batch_seen++;
	}
	(void)closedir(d);
}

static void
case_worker_batch(struct fx *fx)
{
	char name[32];
	struct ab ab;
	int k;

	batch_seen = caller_changed = 0;
	fx->opt.hooks.report = batch_report;
	fx->opt.cpus = TFX_WORKER_CPUS;
	ab_pax(&ab);
	for (k = 0; k < 300; k++) {
		snprintf(name, sizeof(name), "f%d", k);
		ab_file(&ab, name, "x\n", 0644);
	}
	ab_close(&ab);
	EXPECT_STATUS(fx_extract(fx, &ab), PFX_OK);
	EXPECT_FILE("f299", "x\n", 0644);
	CHECK(batch_seen > 0, "no thread ran as SCHED_BATCH during the run");
	CHECK(caller_changed == 0, "the calling thread's policy changed "
	    "(%d reports)", caller_changed);
	CHECK(sched_getscheduler(0) == SCHED_OTHER, "the calling thread's "
	    "policy changed");
	ab_free(&ab);
}

Test(extract, worker_batch)
{
	each_resolver("worker_batch", case_worker_batch);
}

/*
 * The worker thread runs only where the run plans for three CPUs or more
 * (pfx_options.cpus, or plat_thread_cpus(): the affinity mask, or a
 * cgroup quota); with fewer every file is finished on the calling
 * thread, as with --strict, and the tree and the reports are the same.
 * Seen from the report hook, which runs on the calling thread while a
 * worker would live: the process has a thread more than before the run
 * with three CPUs planned for, none with two, none on one CPU counted (the
 * case pins its own process to one CPU -- Criterion runs each test in a
 * process of its own -- and puts the mask back after).
 */
static int threads_seen;

static void
threads_report(void *arg, const struct pfx_entry *e)
{
	int n = tfx_count_threads();

	fx_report(arg, e);
	if (n > threads_seen)
		threads_seen = n;
}

/* An archive of what the queue handles: small files, a name given
 * three times, files of 1 MiB and more (written in segments), hard
 * links, a refusal, a directory where a file was. */
static void
one_cpu_archive(struct ab *ab, char *big)
{
	char name[32], data[32];
	int k;

	ab_pax(ab);
	ab_dir(ab, "d/", 0755);
	for (k = 0; k < 200; k++) {
		snprintf(name, sizeof(name), "d/f%d", k);
		snprintf(data, sizeof(data), "%d\n", k);
		ab_file(ab, name, data, 0644);
		if (k % 9 == 4)
			ab_file(ab, name, "again\n", 0600);
		if (k % 97 == 7) {
			big[k] = 'B';
			ab_file(ab, name, big, 0644);
		}
		if (k % 17 == 8) {
			snprintf(data, sizeof(data), "d/h%d", k);
			ab_hardlink(ab, data, name);
		}
		if (k % 23 == 10)
			ab_file(ab, "../evil", "evil\n", 0644);
		if (k % 29 == 12) {
			snprintf(data, sizeof(data), "d/f%d/", k);
			ab_dir(ab, data, 0755);
		}
	}
	ab_close(ab);
}

/* Extract AB again into an emptied dest/, planned for CPUS (0: counted),
 * and expect no thread more than BASE, and the reports and the tree of
 * the worker's run (THREADED, SNAP).  WHAT names the run. */
static void
same_as_worker(struct fx *fx, struct ab *ab, unsigned int cpus, int base,
    const struct reports *threaded, const char *snap, const char *what)
{
	char *again;
	size_t i;

	CHECK(rm_tree_dest(fx) == 0, "cannot empty dest/");
	reports_free(&fx->rep);
	memset(&fx->rep, 0, sizeof(fx->rep));
	fx->opt.cpus = cpus;
	threads_seen = 0;
	(void)fx_extract(fx, ab);
	CHECK(threads_seen == base, "%d threads %s, %d before the "
	    "run", threads_seen, what, base);
	CHECK(fx->rep.n == threaded->n, "%zu reports %s, %zu with the "
	    "worker", fx->rep.n, what, threaded->n);
	for (i = 0; i < fx->rep.n && i < threaded->n; i++)
		CHECK(strcmp(fx->rep.v[i].name, threaded->v[i].name) == 0 &&
		    fx->rep.v[i].status == threaded->v[i].status &&
		    strcmp(fx->rep.v[i].reason, threaded->v[i].reason) == 0,
		    "report %zu: %s %s %s, %s %s with the worker", i,
		    fx->rep.v[i].name, fx->rep.v[i].reason, what,
		    threaded->v[i].name, threaded->v[i].reason);
	again = tfx_snapshot(fx->destfd, TFX_SNAP_NO_TOP);
	tfx_expect_same_snapshot(fx->cname, what, snap, again);
	free(again);
}

static void
case_one_cpu(struct fx *fx)
{
	struct reports threaded;
	char *big, *snap;
	cpu_set_t old;
	size_t len = (1u << 20) + 4096;
	struct ab ab;
	int base;

	big = malloc(len + 1);
	cr_assert(big != NULL);
	memset(big, 'x', len);
	big[len] = '\0';
	one_cpu_archive(&ab, big);
	fx->opt.hooks.report = threads_report;
	base = tfx_count_threads();
	threads_seen = 0;
	fx->opt.cpus = TFX_WORKER_CPUS;
	(void)fx_extract(fx, &ab);
	CHECK(threads_seen > base, "%d thread(s) planned for %u CPUs, "
	    "%d before the run: no worker", threads_seen,
	    TFX_WORKER_CPUS, base);
	threaded = fx->rep;
	memset(&fx->rep, 0, sizeof(fx->rep));
	snap = tfx_snapshot(fx->destfd, TFX_SNAP_NO_TOP);

	same_as_worker(fx, &ab, TFX_WORKER_CPUS - 1, base, &threaded,
	    snap, "planned for two CPUs");
	(void)tfx_pin_one_cpu(&old);
	same_as_worker(fx, &ab, 0, base, &threaded, snap,
	    "on one CPU counted");
	cr_assert(sched_setaffinity(0, sizeof(old), &old) == 0);
	reports_free(&threaded);
	free(snap);
	free(big);
	ab_free(&ab);
}

Test(extract, one_cpu_same_tree_and_reports)
{
	each_resolver("one_cpu", case_one_cpu);
}

/* The queue's cases on one CPU, where the files never queue. */
Test(extract, one_cpu_queue_cases)
{
	cpu_set_t old;

	(void)tfx_pin_one_cpu(&old);
	each_resolver("queue_order, one CPU", case_queue_order);
	each_resolver("queue_same_names, one CPU", case_queue_same_names);
	cr_assert(sched_setaffinity(0, sizeof(old), &old) == 0);
}

/* --- metadata ---------------------------------------------------------- */

/* The archive of the mode cases. */
static void
mode_archive(struct ab *ab)
{
	ab_pax(ab);
	ab_file(ab, "suid", "s\n", 06777);
	ab_file(ab, "setuid", "s\n", 04755);
	ab_file(ab, "setgid", "s\n", 02755);
	ab_file(ab, "gw", "g\n", 0666);
	ab_file(ab, "private", "p\n", 0600);
	ab_dir(ab, "sticky/", 01777);
	ab_dir(ab, "sgid/", 02775);
	ab_file(ab, "imp/a/b/f", "f\n", 0644);
	ab_dir(ab, "./", 01777);
	ab_close(ab);
}

/*
 * By default setuid, setgid, sticky and group/other write go; implicit
 * directories get 0755; the entry "./" leaves the destination alone.
 */
static void
case_modes_default(struct fx *fx)
{
	struct stat before;
	struct ab ab;

	before = stat_dest(fx, __LINE__, ".");
	mode_archive(&ab);
	EXPECT_STATUS(fx_extract(fx, &ab), PFX_OK);
	EXPECT_FILE("suid", "s\n", 0755);
	EXPECT_FILE("setuid", "s\n", 0755);
	EXPECT_FILE("setgid", "s\n", 0755);
	EXPECT_FILE("gw", "g\n", 0644);
	EXPECT_FILE("private", "p\n", 0600);
	EXPECT_DIR("sticky", 0755);
	EXPECT_DIR("sgid", 0755);
	EXPECT_DIR("imp", 0755);
	EXPECT_DIR("imp/a", 0755);
	EXPECT_DIR("imp/a/b", 0755);
	EXPECT_DIR(".", (int)(before.st_mode & 07777));
	CHECK(stat_dest(fx, __LINE__, ".").st_mtim.tv_sec != ENTRY_SEC,
	    "the destination took the mtime of the entry \"./\"");
	ab_free(&ab);
}

Test(extract, modes_default)
{
	each_resolver("modes_default", case_modes_default);
}

/*
 * -p keeps sticky and group/other write; setuid and setgid only with
 * PFX_OPT_SAME_OWNER too, as root.
 */
static void
case_modes_preserve(struct fx *fx)
{
	struct ab ab;

	fx->opt.flags |= PFX_OPT_PRESERVE_PERMS;
	mode_archive(&ab);
	EXPECT_STATUS(fx_extract(fx, &ab), PFX_OK);
	EXPECT_FILE("suid", "s\n", 0777);
	EXPECT_FILE("setuid", "s\n", 0755);
	EXPECT_FILE("setgid", "s\n", 0755);
	EXPECT_FILE("gw", "g\n", 0666);
	EXPECT_DIR("sticky", 01777);
	EXPECT_DIR("sgid", 0775);
	EXPECT_DIR("imp", 0755);
	ab_free(&ab);
	if (geteuid() != 0)
		return;

	/* Directories made before this run are never changed: start over. */
	cr_assert(rm_tree_dest(fx) == 0, "cannot empty dest/");
	fx->opt.flags |= PFX_OPT_SAME_OWNER;
	mode_archive(&ab);
	EXPECT_STATUS(fx_extract(fx, &ab), PFX_OK);
	EXPECT_FILE("suid", "s\n", 06777);
	EXPECT_FILE("setuid", "s\n", 04755);
	EXPECT_FILE("setgid", "s\n", 02755);
	EXPECT_DIR("sticky", 01777);
	EXPECT_DIR("sgid", 02775);
	ab_free(&ab);
}

Test(extract, modes_preserve)
{
	each_resolver("modes_preserve", case_modes_preserve);
}

/* An entry with seconds and nanoseconds of mtime. */
static void
ab_timed(struct ab *ab, const char *name, mode_t type, time_t sec, long nsec)
{
	struct archive_entry *e = ent_new(name, type, type == AE_IFDIR ?
	    0755 : 0644);

	archive_entry_set_mtime(e, sec, nsec);
	if (type == AE_IFREG) {
		archive_entry_set_size(e, 2);
		ab_write(ab, e, "t\n", 2);
	} else {
		ab_write(ab, e, NULL, 0);
	}
}

static void
mtime_archive(struct ab *ab)
{
	ab_pax(ab);
	ab_timed(ab, "d/", AE_IFDIR, 1111111111, 222222222);
	ab_timed(ab, "d/e/", AE_IFDIR, 1222222222, 333333333);
	ab_timed(ab, "d/e/f", AE_IFREG, 1234567890, 123456789);
	ab_timed(ab, "d/g", AE_IFREG, 1333333333, 0);
	ab_timed(ab, "imp/x", AE_IFREG, 1444444444, 444444444);
	/* A directory entry after its children. */
	ab_timed(ab, "late/y", AE_IFREG, 1444444444, 5);
	ab_timed(ab, "late/", AE_IFDIR, 1555555555, 555555555);
	ab_timed(ab, "before1970", AE_IFREG, -86400, 1);
	ab_close(ab);
}

/* Mtimes are restored to the nanosecond, directories after children. */
static void
case_mtimes(struct fx *fx)
{
	struct ab ab;

	mtime_archive(&ab);
	EXPECT_STATUS(fx_extract(fx, &ab), PFX_OK);
	EXPECT_MTIME("d", 1111111111, 222222222);
	EXPECT_MTIME("d/e", 1222222222, 333333333);
	EXPECT_MTIME("d/e/f", 1234567890, 123456789);
	EXPECT_MTIME("d/g", 1333333333, 0);
	EXPECT_MTIME("imp/x", 1444444444, 444444444);
	EXPECT_MTIME("late/y", 1444444444, 5);
	EXPECT_MTIME("late", 1555555555, 555555555);
	EXPECT_MTIME("before1970", -86400, 1);
	EXPECT_DIR("imp", 0755);
	CHECK(rec_find(&fx->rep, "d/e/f", 0)->mtime == 1234567890,
	    "the report's mtime is %lld",
	    (long long)rec_find(&fx->rep, "d/e/f", 0)->mtime);
	ab_free(&ab);
}

Test(extract, mtimes)
{
	each_resolver("mtimes", case_mtimes);
}

/* dest/REL has an mtime from this run, not from the archive. */
static void
expect_recent(struct fx *fx, int line, const char *rel)
{
	struct stat st;

	st = stat_dest(fx, line, rel);
	check(fx, line, st.st_mtim.tv_sec >= fx->started - 2 &&
	    st.st_mtim.tv_sec <= time(NULL) + 2, "dest/%s has mtime %lld, "
	    "not the time of the run", rel, (long long)st.st_mtim.tv_sec);
}

/* PFX_OPT_NO_MTIME leaves every mtime recent. */
static void
case_no_mtime(struct fx *fx)
{
	static const char *const paths[] = {
		"d", "d/e", "d/e/f", "d/g", "imp", "imp/x", "late", "late/y"
	};
	struct ab ab;
	size_t i;

	fx->opt.flags |= PFX_OPT_NO_MTIME;
	mtime_archive(&ab);
	EXPECT_STATUS(fx_extract(fx, &ab), PFX_OK);
	for (i = 0; i < NELEM(paths); i++)
		expect_recent(fx, __LINE__, paths[i]);
	ab_free(&ab);
}

Test(extract, no_mtime)
{
	each_resolver("no_mtime", case_no_mtime);
}

/*
 * A read-only directory entry followed by its files: the files are made
 * and the directory ends read-only.  As root this proves little, so the
 * case drops to an unprivileged user first when it can.
 */
static void
case_readonly_dir(struct fx *fx)
{
	struct ab ab;

	ab_pax(&ab);
	ab_dir(&ab, "ro/", 0555);
	ab_file(&ab, "ro/f", "f\n", 0644);
	ab_file(&ab, "ro/sub/g", "g\n", 0644);
	ab_dir(&ab, "ro/rosub/", 0500);
	ab_file(&ab, "ro/rosub/h", "h\n", 0400);
	ab_close(&ab);

	EXPECT_STATUS(fx_extract(fx, &ab), PFX_OK);
	EXPECT_FILE("ro/f", "f\n", 0644);
	EXPECT_FILE("ro/sub/g", "g\n", 0644);
	EXPECT_FILE("ro/rosub/h", "h\n", 0400);
	EXPECT_DIR("ro/sub", 0755);
	EXPECT_DIR("ro/rosub", 0500);
	EXPECT_DIR("ro", 0555);
	ab_free(&ab);
}

Test(extract, readonly_dir)
{
	become_nobody_if_root();
	each_resolver("readonly_dir", case_readonly_dir);
}

/*
 * A read-only directory already in the destination (the one an earlier
 * archive leaves, as case_readonly_dir shows): each entry that would go
 * in it is refused alone (permission_denied), a file, a directory, a
 * hard link and a name whose parents it would make there, and the run
 * goes on.  Before, the first of them stopped the run ("Permission
 * denied", exit 2): b and every entry after it lost, unsaid.  A
 * destination that may not be written at all still stops the run (the
 * CLI's "permission denied" case in tests/faults.sh).
 */
static void
case_readonly_dir_in_dest(struct fx *fx)
{
	struct ab ab;

	put_dir(fx->destfd, "ro", 0555);
	ab_pax(&ab);
	ab_file(&ab, "a", "a\n", 0644);
	ab_file(&ab, "ro/x", "x\n", 0644);
	ab_dir(&ab, "ro/d/", 0755);
	ab_file(&ab, "ro/new/y", "y\n", 0644);
	ab_hardlink(&ab, "ro/h", "a");
	ab_file(&ab, "b", "b\n", 0644);
	ab_close(&ab);

	EXPECT_STATUS(fx_extract(fx, &ab), PFX_REFUSED);
	EXPECT_FILE("a", "a\n", 0644);
	EXPECT_REFUSED("ro/x", "permission_denied", PFX_DENY);
	EXPECT_REFUSED("ro/d/", "permission_denied", PFX_DENY);
	EXPECT_REFUSED("ro/new/y", "permission_denied", PFX_DENY);
	EXPECT_REFUSED("ro/h", "permission_denied", PFX_DENY);
	EXPECT_FILE("b", "b\n", 0644);
	EXPECT_DIR("ro", 0555);
	EXPECT_LIST("ro", "");
	ab_free(&ab);
}

Test(extract, readonly_dir_in_dest)
{
	/* As root nothing is read-only to us. */
	become_nobody_if_root();
	each_resolver("readonly_dir_in_dest", case_readonly_dir_in_dest);
}

/*
 * A destination that no write reaches though its mode says one may: a
 * Landlock domain of the caller's own (as a path-based LSM, AppArmor,
 * would refuse it) that faccessat(2) does not consult.  It may not be
 * written at all, so the first entry stops the run (EACCES), as where
 * its mode forbids it; not every entry refused alone, the run "refused"
 * with nothing written (pfextract's exit status 1, not 2).
 */
Test(extract, dest_denied_by_callers_landlock, .timeout = 60)
{
	struct landlock_ruleset_attr attr;
	struct pfx_options opt;
	struct pfx_result res;
	struct pfx_input in;
	struct ab ab;
	char top[PATH_MAX];
	int destfd, p[2], rfd, got[2] = { -1, -1 }, status;
	pid_t pid;

	if (syscall(SYS_landlock_create_ruleset, NULL, 0,
	    LANDLOCK_CREATE_RULESET_VERSION) < 1)
		cr_skip_test("no Landlock");
	destfd = tfx_temp_dest("landlocked", top, sizeof(top));
	ab_pax(&ab);
	ab_file(&ab, "a", "a\n", 0644);
	ab_file(&ab, "b", "b\n", 0644);
	ab_close(&ab);
	cr_assert(pipe(p) == 0);
	pid = fork();
	cr_assert(pid != -1);
	if (pid == 0) {
		memset(&attr, 0, sizeof(attr));
		attr.handled_access_fs = LANDLOCK_ACCESS_FS_WRITE_FILE |
		    LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_DIR |
		    LANDLOCK_ACCESS_FS_REMOVE_FILE |
		    LANDLOCK_ACCESS_FS_REMOVE_DIR;
		rfd = (int)syscall(SYS_landlock_create_ruleset, &attr,
		    sizeof(attr), 0);
		if (rfd < 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
		    syscall(SYS_landlock_restrict_self, rfd, 0) != 0)
			_exit(3);
		memset(&in, 0, sizeof(in));
		in.fd = -1;
		in.buf = ab.buf;
		in.len = ab.used;
		pfx_options_init(&opt);
		(void)pfx_extract(&in, destfd, ".", &opt, &res);
		got[0] = (int)res.status;
		got[1] = res.error;
		_exit(write(p[1], got, sizeof(got)) == (ssize_t)sizeof(got) ?
		    0 : 4);
	}
	(void)close(p[1]);
	cr_assert(read(p[0], got, sizeof(got)) == (ssize_t)sizeof(got));
	(void)close(p[0]);
	cr_assert(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	    WEXITSTATUS(status) == 0, "child status %#x", status);
	cr_expect_eq(got[0], PFX_FATAL, "status %d, expected PFX_FATAL",
	    got[0]);
	cr_expect_eq(got[1], EACCES, "error %d, expected EACCES", got[1]);
	ab_free(&ab);
	tfx_temp_end(&destfd, top);
}

/*
 * Can this filesystem hold "user." xattrs?  Return: true, or false if
 * it says ENOTSUP (or EPERM, as some do for the namespace).
 */
static bool
have_user_xattrs(struct fx *fx)
{
	int fd, r;

	fd = openat(fx->topfd, "xattr-probe", O_WRONLY | O_CREAT | O_EXCL |
	    O_CLOEXEC, 0644);
	cr_assert(fd >= 0, "xattr probe: %s", strerror(errno));
	r = fsetxattr(fd, "user.probe", "1", 1, 0);
	(void)close(fd);
	(void)unlinkat(fx->topfd, "xattr-probe", 0);
	return r == 0 || (errno != ENOTSUP && errno != EPERM);
}

/* The value of the xattr NAME of dest/REL, or "" with errno. */
static const char *
xattr_of(struct fx *fx, const char *rel, const char *name, char *buf,
    size_t cap)
{
	ssize_t n;
	int fd;

	fd = openat(fx->destfd, rel, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	cr_assert(fd >= 0, "open dest/%s: %s", rel, strerror(errno));
	n = fgetxattr(fd, name, buf, cap - 1);
	(void)close(fd);
	buf[n >= 0 ? n : 0] = '\0';
	return buf;
}

static void
xattr_entry(struct ab *ab, const char *name, mode_t type)
{
	struct archive_entry *e = ent_new(name, type, type == AE_IFDIR ?
	    0755 : 0644);

	archive_entry_xattr_add_entry(e, "user.x", "user value", 10);
	archive_entry_xattr_add_entry(e, "trusted.t", "trusted value", 13);
	archive_entry_xattr_add_entry(e, "security.s", "security value", 14);
	if (type == AE_IFREG) {
		archive_entry_set_size(e, 2);
		ab_write(ab, e, "x\n", 2);
	} else {
		ab_write(ab, e, NULL, 0);
	}
}

/* Assert the xattrs of dest/REL: "user.x" iff USER, the others never. */
static void
expect_xattrs(struct fx *fx, int line, const char *rel, bool user)
{
	char buf[64];

	if (user)
		check(fx, line, strcmp(xattr_of(fx, rel, "user.x", buf,
		    sizeof(buf)), "user value") == 0, "dest/%s: user.x is "
		    "\"%s\", want \"user value\"", rel, buf);
	else
		check(fx, line, xattr_of(fx, rel, "user.x", buf,
		    sizeof(buf))[0] == '\0', "dest/%s: user.x restored "
		    "without PFX_OPT_XATTRS", rel);
	check(fx, line, xattr_of(fx, rel, "trusted.t", buf,
	    sizeof(buf))[0] == '\0', "dest/%s: trusted.t was restored", rel);
	check(fx, line, xattr_of(fx, rel, "security.s", buf,
	    sizeof(buf))[0] == '\0', "dest/%s: security.s was restored", rel);
}

/* Xattrs of files: "user." only with PFX_OPT_XATTRS, never the others. */
static void
case_xattrs(struct fx *fx)
{
	struct ab ab;

	if (!have_user_xattrs(fx))
		cr_skip_test("no user xattrs on %s", tmp_base());
	ab_pax(&ab);
	xattr_entry(&ab, "f", AE_IFREG);
	ab_close(&ab);

	EXPECT_STATUS(fx_extract(fx, &ab), PFX_OK);
	expect_xattrs(fx, __LINE__, "f", false);
	fx->opt.flags |= PFX_OPT_XATTRS;
	EXPECT_STATUS(fx_extract(fx, &ab), PFX_OK);
	EXPECT_FILE("f", "x\n", 0644);
	expect_xattrs(fx, __LINE__, "f", true);
	ab_free(&ab);
}

Test(extract, xattrs)
{
	each_resolver("xattrs", case_xattrs);
}

/* Directories get their xattrs too, under the same rules. */
static void
case_xattrs_dir(struct fx *fx)
{
	struct ab ab;

	if (!have_user_xattrs(fx))
		cr_skip_test("no user xattrs on %s", tmp_base());
	fx->opt.flags |= PFX_OPT_XATTRS;
	ab_pax(&ab);
	xattr_entry(&ab, "d/", AE_IFDIR);
	ab_close(&ab);
	EXPECT_STATUS(fx_extract(fx, &ab), PFX_OK);
	EXPECT_DIR("d", 0755);
	expect_xattrs(fx, __LINE__, "d", true);
	ab_free(&ab);
}

Test(extract, xattrs_dir)
{
	each_resolver("xattrs_dir", case_xattrs_dir);
}

/*
 * --xattrs-include/--xattrs-exclude match as GNU tar's fnmatch(PAT, NAME,
 * 0), with '^' a negation unless PFX_OPT_POSIX_GLOB: the environment the
 * library runs in (POSIXLY_CORRECT, which fnmatch(3) reads) changes nothing.
 */
static void
case_xattrs_patterns(struct fx *fx)
{
	const char *neg[] = { "user.[^y]" }, *all[] = { "user.*" };
	struct ab ab;

	if (!have_user_xattrs(fx))
		cr_skip_test("no user xattrs on %s", tmp_base());
	cr_assert_eq(setenv("POSIXLY_CORRECT", "1", 1), 0);
	ab_pax(&ab);
	xattr_entry(&ab, "f", AE_IFREG);
	ab_close(&ab);
	fx->opt.flags |= PFX_OPT_XATTRS;
	fx->opt.xattrs_include = neg;
	fx->opt.nxattrs_include = 1;
	EXPECT_STATUS(fx_extract(fx, &ab), PFX_OK);
	expect_xattrs(fx, __LINE__, "f", true);
	fx->opt.flags |= PFX_OPT_POSIX_GLOB;
	EXPECT_STATUS(fx_extract(fx, &ab), PFX_OK);
	expect_xattrs(fx, __LINE__, "f", false);
	fx->opt.flags &= ~PFX_OPT_POSIX_GLOB;
	fx->opt.xattrs_exclude = all;
	fx->opt.nxattrs_exclude = 1;
	EXPECT_STATUS(fx_extract(fx, &ab), PFX_OK);
	expect_xattrs(fx, __LINE__, "f", false);
	ab_free(&ab);
	(void)unsetenv("POSIXLY_CORRECT");
}

Test(extract, xattrs_patterns)
{
	each_resolver("xattrs_patterns", case_xattrs_patterns);
}

/* An entry owned by UID/GID, with the names UNAME/GNAME (may be NULL). */
static void
ab_owned(struct ab *ab, const char *name, mode_t type, int64_t uid,
    int64_t gid, const char *uname, const char *gname)
{
	struct archive_entry *e = ent_new(name, type, type == AE_IFDIR ?
	    0755 : 0644);

	archive_entry_set_uid(e, uid);
	archive_entry_set_gid(e, gid);
	if (uname != NULL)
		archive_entry_set_uname(e, uname);
	if (gname != NULL)
		archive_entry_set_gname(e, gname);
	if (type == AE_IFREG) {
		archive_entry_set_size(e, 2);
		ab_write(ab, e, "o\n", 2);
	} else {
		ab_write(ab, e, NULL, 0);
	}
}

static void
expect_owner(struct fx *fx, int line, const char *rel, uid_t uid, gid_t gid)
{
	struct stat st;

	st = stat_dest(fx, line, rel);
	check(fx, line, st.st_uid == uid && st.st_gid == gid, "dest/%s is "
	    "owned by %u:%u, want %u:%u", rel, (unsigned int)st.st_uid,
	    (unsigned int)st.st_gid, (unsigned int)uid, (unsigned int)gid);
}

static void
owner_archive(struct ab *ab)
{
	ab_pax(ab);
	ab_owned(ab, "d/", AE_IFDIR, 1234, 5678, "pfx-no-such-user",
	    "pfx-no-such-group");
	ab_owned(ab, "d/f", AE_IFREG, 1234, 5678, "pfx-no-such-user",
	    "pfx-no-such-group");
	ab_owned(ab, "n", AE_IFREG, 2345, 6789, NULL, NULL);
	ab_close(ab);
}

/* No ownership change by default, even as root. */
static void
case_owner_default(struct fx *fx)
{
	struct ab ab;

	owner_archive(&ab);
	EXPECT_STATUS(fx_extract(fx, &ab), PFX_OK);
	expect_owner(fx, __LINE__, "d", geteuid(), getegid());
	expect_owner(fx, __LINE__, "d/f", geteuid(), getegid());
	expect_owner(fx, __LINE__, "n", geteuid(), getegid());
	ab_free(&ab);
}

Test(extract, owner_default)
{
	each_resolver("owner_default", case_owner_default);
}

/* PFX_OPT_SAME_OWNER as root gives the archive's ids. */
static void
case_owner_same(struct fx *fx)
{
	struct ab ab;

	fx->opt.flags |= PFX_OPT_SAME_OWNER;
	owner_archive(&ab);
	EXPECT_STATUS(fx_extract(fx, &ab), PFX_OK);
	expect_owner(fx, __LINE__, "d", 1234, 5678);
	expect_owner(fx, __LINE__, "d/f", 1234, 5678);
	expect_owner(fx, __LINE__, "n", 2345, 6789);
	ab_free(&ab);
}

Test(extract, owner_same)
{
	if (geteuid() != 0)
		cr_skip_test("PFX_OPT_SAME_OWNER needs root");
	each_resolver("owner_same", case_owner_same);
}

/*
 * Names win over numbers, as in tar, for files and directories alike,
 * unless PFX_OPT_NUMERIC_OWNER.
 */
static void
case_owner_names(struct fx *fx)
{
	struct passwd *pw = getpwnam("daemon");
	struct group *gr = getgrnam("daemon");
	struct ab ab;

	if (pw == NULL || gr == NULL)
		cr_skip_test("no user and group \"daemon\"");
	fx->opt.flags |= PFX_OPT_SAME_OWNER;
	ab_pax(&ab);
	ab_owned(&ab, "d/", AE_IFDIR, 1234, 5678, "daemon", "daemon");
	ab_owned(&ab, "f", AE_IFREG, 1234, 5678, "daemon", "daemon");
	ab_close(&ab);
	EXPECT_STATUS(fx_extract(fx, &ab), PFX_OK);
	expect_owner(fx, __LINE__, "f", pw->pw_uid, gr->gr_gid);
	expect_owner(fx, __LINE__, "d", pw->pw_uid, gr->gr_gid);

	cr_assert(rm_tree_dest(fx) == 0, "cannot empty dest/");
	fx->opt.flags |= PFX_OPT_NUMERIC_OWNER;
	EXPECT_STATUS(fx_extract(fx, &ab), PFX_OK);
	expect_owner(fx, __LINE__, "f", 1234, 5678);
	expect_owner(fx, __LINE__, "d", 1234, 5678);
	ab_free(&ab);
}

Test(extract, owner_names)
{
	if (geteuid() != 0)
		cr_skip_test("PFX_OPT_SAME_OWNER needs root");
	each_resolver("owner_names", case_owner_names);
}

/* --- member selection -------------------------------------------------- */

static void
strip_archive(struct ab *ab)
{
	ab_pax(ab);
	ab_dir(ab, "top/", 0755);
	ab_dir(ab, "top/a/", 0755);
	ab_file(ab, "top/a/f", "f\n", 0644);
	ab_hardlink(ab, "top/a/h", "top/a/f");
	ab_file(ab, "top/g", "g\n", 0644);
	ab_hardlink(ab, "top/h2", "top/a/f");
	ab_file(ab, "single", "s\n", 0644);
	ab_file(ab, "top/../../x", "escape\n", 0644);
	ab_close(ab);
}

/* --strip-components 1 and 2; hard link targets are stripped too. */
static void
case_strip(struct fx *fx)
{
	struct ab ab;

	fx->opt.strip_components = 1;
	strip_archive(&ab);
	EXPECT_STATUS(fx_extract(fx, &ab), PFX_REFUSED);
	EXPECT_ENTRY("top/", PFX_ENTRY_SKIPPED, "stripped");
	EXPECT_ENTRY("single", PFX_ENTRY_SKIPPED, "stripped");
	EXPECT_REFUSED("top/../../x", "escapes", PFX_REJECT);
	EXPECT_LIST("", "a g h2");
	EXPECT_LIST("a", "f h");
	EXPECT_FILE("a/f", "f\n", 0644);
	EXPECT_SAME_INODE("a/h", "a/f");
	EXPECT_SAME_INODE("h2", "a/f");
	EXPECT_FILE("g", "g\n", 0644);
	EXPECT_STATS(8, 5, 1, 2);
	EXPECT_ABSENT_TOP("x");
	ab_free(&ab);

	CHECK(rm_tree_dest(fx) == 0, "cannot empty dest/");
	fx->opt.strip_components = 2;
	strip_archive(&ab);
	EXPECT_STATUS(fx_extract(fx, &ab), PFX_REFUSED);
	EXPECT_LIST("", "f h");
	EXPECT_SAME_INODE("h", "f");
	EXPECT_ENTRY("top/a/", PFX_ENTRY_SKIPPED, "stripped");
	EXPECT_ENTRY("top/g", PFX_ENTRY_SKIPPED, "stripped");
	/* Its target is stripped to nothing: no file to link to. */
	EXPECT_ENTRY("top/h2", PFX_ENTRY_SKIPPED, "stripped");
	/* Two components off leave "../x". */
	EXPECT_REFUSED("top/../../x", "escapes", PFX_REJECT);
	EXPECT_STATS(8, 2, 1, 5);
	ab_free(&ab);
}

Test(extract, strip_components)
{
	each_resolver("strip_components", case_strip);
}

static void
select_archive(struct ab *ab)
{
	ab_pax(ab);
	ab_dir(ab, "a/", 0755);
	ab_file(ab, "a/b", "ab\n", 0644);
	ab_file(ab, "ab", "not a/\n", 0644);
	ab_file(ab, "c/a", "c/a\n", 0644);
	ab_file(ab, "x/y.o", "object\n", 0644);
	ab_file(ab, "x/y.c", "source\n", 0644);
	ab_file(ab, "z.o", "object\n", 0644);
	ab_close(ab);
}

/* Include patterns select members and whole directories. */
static void
case_include(struct fx *fx)
{
	static const char *const inc[] = { "a", "./x/*.c" };
	struct ab ab;

	fx->opt.include = inc;
	fx->opt.ninclude = NELEM(inc);
	select_archive(&ab);
	EXPECT_STATUS(fx_extract(fx, &ab), PFX_OK);
	EXPECT_LIST("", "a x");
	EXPECT_LIST("x", "y.c");
	EXPECT_FILE("a/b", "ab\n", 0644);
	EXPECT_ENTRY("ab", PFX_ENTRY_SKIPPED, "not_selected");
	EXPECT_ENTRY("c/a", PFX_ENTRY_SKIPPED, "not_selected");
	EXPECT_ENTRY("x/y.o", PFX_ENTRY_SKIPPED, "not_selected");
	EXPECT_STATS(7, 3, 0, 4);
	ab_free(&ab);
}

Test(extract, include)
{
	each_resolver("include", case_include);
}

/* Exclude patterns match any tail of the name. */
static void
case_exclude(struct fx *fx)
{
	static const char *const exc[] = { "*.o" };
	struct ab ab;

	fx->opt.exclude = exc;
	fx->opt.nexclude = NELEM(exc);
	select_archive(&ab);
	EXPECT_STATUS(fx_extract(fx, &ab), PFX_OK);
	EXPECT_LIST("", "a ab c x");
	EXPECT_LIST("x", "y.c");
	EXPECT_ENTRY("x/y.o", PFX_ENTRY_SKIPPED, "excluded");
	EXPECT_ENTRY("z.o", PFX_ENTRY_SKIPPED, "excluded");
	EXPECT_STATS(7, 5, 0, 2);
	ab_free(&ab);
}

Test(extract, exclude)
{
	each_resolver("exclude", case_exclude);
}

/* An entry both included and excluded is excluded, and says so. */
static void
case_exclude_wins(struct fx *fx)
{
	static const char *const inc[] = { "x" };
	static const char *const exc[] = { "*.o" };
	struct ab ab;

	fx->opt.include = inc;
	fx->opt.ninclude = NELEM(inc);
	fx->opt.exclude = exc;
	fx->opt.nexclude = NELEM(exc);
	select_archive(&ab);
	EXPECT_STATUS(fx_extract(fx, &ab), PFX_OK);
	EXPECT_LIST("", "x");
	EXPECT_LIST("x", "y.c");
	EXPECT_ENTRY("a/b", PFX_ENTRY_SKIPPED, "not_selected");
	EXPECT_ENTRY("x/y.o", PFX_ENTRY_SKIPPED, "excluded");
	ab_free(&ab);
}

Test(extract, exclude_wins)
{
	each_resolver("exclude_wins", case_exclude_wins);
}

/* --- hooks, listing, --strict ----------------------------------------- */

static void
hook_archive(struct ab *ab)
{
	struct archive_entry *e;

	ab_pax(ab);
	e = ent_new("f", AE_IFREG, 0640);
	archive_entry_set_size(e, 6);
	archive_entry_set_mtime(e, 1400000000, 0);
	ab_write(ab, e, "hello\n", 6);
	ab_file(ab, "veto", "vetoed\n", 0644);
	ab_file(ab, "ren", "renamed\n", 0644);
	ab_file(ab, "bad", "bad\n", 0644);
	ab_file(ab, "abs", "abs\n", 0644);
	ab_file(ab, "dot", "dot\n", 0644);
	ab_file(ab, "last", "last\n", 0644);
	ab_close(ab);
}

/* decide() sees each allowed entry, and may veto or rename it. */
static void
case_hooks(struct fx *fx)
{
	static const struct rule rules[] = {
		{ "veto", PFX_HOOK_SKIP, NULL },
		{ "ren", PFX_HOOK_RENAME, "renamed/here.txt" },
		{ "bad", PFX_HOOK_RENAME, "../bad" },
		{ "abs", PFX_HOOK_RENAME, "/tmp/abs" },
		{ "dot", PFX_HOOK_RENAME, "./x/../dotted" },
	};
	const struct rec *r;
	struct ab ab;

	fx->rules = rules;
	fx->nrules = NELEM(rules);
	fx->opt.hooks.decide = fx_decide;
	hook_archive(&ab);
	EXPECT_STATUS(fx_extract(fx, &ab), PFX_REFUSED);
	CHECK(fx->seen.n == 7, "decide() called %zu times for 7 entries",
	    fx->seen.n);
	r = rec_find(&fx->seen, "f", 0);
	CHECK(r != NULL && r->type == PFX_TYPE_FILE && r->size == 6 &&
	    r->mode == 0640 && r->mtime == 1400000000 &&
	    r->decision == PFX_ALLOW && strcmp(r->reason, "none") == 0 &&
	    strcmp(str_or_null(r->path), "f") == 0,
	    "decide() saw f wrongly");
	EXPECT_ENTRY("veto", PFX_ENTRY_SKIPPED, "vetoed");
	CHECK(strcmp(str_or_null(EXPECT_OK("ren")->path),
	    "renamed/here.txt") == 0, "ren reported at %s",
	    str_or_null(rec_find(&fx->rep, "ren", 0)->path));
	EXPECT_REFUSED("bad", "escapes", PFX_REJECT);
	EXPECT_REFUSED("abs", "absolute", PFX_DENY);
	EXPECT_OK("dot");
	EXPECT_FILE("renamed/here.txt", "renamed\n", 0644);
	EXPECT_FILE("dotted", "dot\n", 0644);
	EXPECT_FILE("f", "hello\n", 0640);
	EXPECT_LIST("", "dotted f last renamed");
	EXPECT_ABSENT_TOP("bad");
	EXPECT_STATS(7, 4, 2, 1);
	ab_free(&ab);
}

Test(extract, hooks)
{
	each_resolver("hooks", case_hooks);
}

/*
 * The decide() hook of case_parent_swapped: before the entry "p/", move
 * the directory the run made for p/q/f aside and the old directory
 * "old" to its name, as someone who can write dest may.
 */
static int
swap_decide(void *arg, const struct pfx_entry *e, char *rename,
    size_t rename_cap)
{
	struct fx *fx = arg;

	if (strcmp(e->name, "p/") == 0) {
		cr_assert(renameat(fx->destfd, "p", fx->destfd, "p_gone") == 0);
		cr_assert(renameat(fx->destfd, "old", fx->destfd, "p") == 0);
	}
	return fx_decide(arg, e, rename, rename_cap);
}

/*
 * A parent the run made (p, for p/q/f) is known by its identity, not its
 * name: a directory that was in dest before, moved to that name during
 * the run, gets neither the later entry's mode and times nor the
 * implicit mode at the end.
 */
static void
case_parent_swapped(struct fx *fx)
{
	struct timespec ts[2] = { { 5, 0 }, { 5, 0 } };
	struct stat st;
	struct ab ab;

	cr_assert(mkdirat(fx->destfd, "old", 0700) == 0);
	cr_assert(fchmodat(fx->destfd, "old", 0700, 0) == 0);
	cr_assert(utimensat(fx->destfd, "old", ts, 0) == 0);
	fx->opt.hooks.decide = swap_decide;
	ab_pax(&ab);
	ab_file(&ab, "p/q/f", "f\n", 0644);
	ab_dir(&ab, "p/", 0755);
	ab_close(&ab);
	EXPECT_STATUS(fx_extract(fx, &ab), PFX_OK);
	EXPECT_FILE("p_gone/q/f", "f\n", 0644);
	cr_assert(fstatat(fx->destfd, "p", &st, AT_SYMLINK_NOFOLLOW) == 0);
	CHECK((st.st_mode & 07777) == 0700, "the old directory's mode "
	    "went from 0700 to %o", (unsigned)(st.st_mode & 07777));
	CHECK(st.st_mtime == 5, "the old directory's mtime went from 5 "
	    "to %lld", (long long)st.st_mtime);
	ab_free(&ab);
}

Test(extract, parent_swapped)
{
	each_resolver("parent_swapped", case_parent_swapped);
}

/* The modes of a/, a/b/ and a/b/c/ when the entry "x/" comes, or -1. */
static int mid_run_mode[3];

static int
mode_decide(void *arg, const struct pfx_entry *e, char *rename,
    size_t rename_cap)
{
	static const char *const dirs[] = { "a", "a/b", "a/b/c" };
	struct fx *fx = arg;
	struct stat st;
	size_t i;

	for (i = 0; strcmp(e->name, "x/") == 0 && i < 3; i++)
		mid_run_mode[i] = fstatat(fx->destfd, dirs[i], &st,
		    AT_SYMLINK_NOFOLLOW) == 0 ? (int)(st.st_mode & 07777) : -1;
	return fx_decide(arg, e, rename, rename_cap);
}

/*
 * Parents the archive does not list are made with their final mode at
 * once (0755, less the umask, as mkdir(2) and GNU tar make them), not
 * private and changed at the end: the end pass resolves each directory it
 * changes from the root again, so a name of d missing components cost
 * O(d^2) there from d bytes of the archive.  A directory entry still
 * waits for the end (r/s/ 0555 stays writable while its entries come),
 * and a parent that an entry lists later gets that entry's mode and time.
 */
static void
case_implicit_parents_final(struct fx *fx)
{
	struct archive_entry *e;
	mode_t old = umask(022);
	struct stat st;
	struct ab ab;

	memset(mid_run_mode, 0xff, sizeof(mid_run_mode));
	fx->opt.hooks.decide = mode_decide;
	ab_pax(&ab);
	ab_file(&ab, "a/b/c/f", "f\n", 0644);
	ab_dir(&ab, "x/", 0755);
	ab_dir(&ab, "r/s/", 0555);
	ab_file(&ab, "r/s/g", "g\n", 0644);
	e = ent_new("a/", AE_IFDIR, 0750);
	archive_entry_set_mtime(e, 1000, 0);
	ab_write(&ab, e, NULL, 0);
	ab_close(&ab);
	EXPECT_STATUS(fx_extract(fx, &ab), PFX_OK);
	CHECK(mid_run_mode[0] == 0755 && mid_run_mode[1] == 0755 &&
	    mid_run_mode[2] == 0755, "during the run a/ a/b/ a/b/c/ had "
	    "modes %o %o %o, want 755", mid_run_mode[0], mid_run_mode[1],
	    mid_run_mode[2]);
	EXPECT_DIR("a", 0750);
	EXPECT_DIR("a/b", 0755);
	EXPECT_DIR("a/b/c", 0755);
	EXPECT_FILE("a/b/c/f", "f\n", 0644);
	EXPECT_DIR("r", 0755);
	EXPECT_DIR("r/s", 0555);
	EXPECT_FILE("r/s/g", "g\n", 0644);
	cr_assert(fstatat(fx->destfd, "a", &st, AT_SYMLINK_NOFOLLOW) == 0);
	CHECK(st.st_mtime == 1000, "a/ has mtime %lld, want 1000 (its "
	    "entry's)", (long long)st.st_mtime);
	ab_free(&ab);
	/* A stricter umask is kept: GNU tar's 0777 less it would be 0700
	 * too. */
	(void)umask(077);
	ab_pax(&ab);
	ab_file(&ab, "u/v/f", "f\n", 0644);
	ab_close(&ab);
	EXPECT_STATUS(fx_extract(fx, &ab), PFX_OK);
	EXPECT_DIR("u", 0700);
	EXPECT_DIR("u/v", 0700);
	ab_free(&ab);
	(void)umask(old);
}

Test(extract, implicit_parents_final)
{
	each_resolver("implicit_parents_final", case_implicit_parents_final);
}

/* PFX_HOOK_ABORT stops the run: fatal, nothing after it. */
static void
case_hook_abort(struct fx *fx)
{
	static const struct rule rules[] = {
		{ "ren", PFX_HOOK_ABORT, NULL },
	};
	static const struct rule odd[] = {
		{ "ren", 42, NULL },
		{ "ren", PFX_HOOK_RENAME, NULL },
	};
	struct ab ab;

	fx->rules = rules;
	fx->nrules = NELEM(rules);
	fx->opt.hooks.decide = fx_decide;
	hook_archive(&ab);
	EXPECT_STATUS(fx_extract(fx, &ab), PFX_FATAL);
	EXPECT_LIST("", "f veto");
	EXPECT_FILE("f", "hello\n", 0640);
	CHECK(rec_find(&fx->rep, "bad", 0) == NULL &&
	    rec_find(&fx->seen, "bad", 0) == NULL,
	    "an entry after the abort was looked at");
	CHECK(rec_find(&fx->rep, "ren", 0) != NULL &&
	    rec_find(&fx->rep, "ren", 0)->status != PFX_ENTRY_EXTRACTED,
	    "the entry the caller stopped at is not reported, or extracted");
	CHECK(fx->res.error == ECANCELED, "errno %d, want ECANCELED",
	    fx->res.error);

	/* An answer outside PFX_HOOK_*, or a rename with no NUL, stops too. */
	cr_assert(rm_tree_dest(fx) == 0, "cannot empty dest/");
	fx->rules = odd;
	fx->nrules = 1;
	EXPECT_STATUS(fx_extract(fx, &ab), PFX_FATAL);
	EXPECT_LIST("", "f veto");
	cr_assert(rm_tree_dest(fx) == 0, "cannot empty dest/");
	fx->rules = odd + 1;
	EXPECT_STATUS(fx_extract(fx, &ab), PFX_FATAL);
	EXPECT_LIST("", "f veto");
	ab_free(&ab);
}

Test(extract, hook_abort)
{
	each_resolver("hook_abort", case_hook_abort);
}

/*
 * PFX_OPT_TO_FD (tar's -O): file data down the descriptor in archive
 * order, nothing made in DEST (nor DEST needed), names still judged,
 * limits still counted.
 */
static void
case_to_fd(struct fx *fx)
{
	struct pfx_input in = { .fd = -1, .buf = NULL, .len = 0 };
	char out[256];
	struct ab ab;
	ssize_t n;
	int p[2];

	cr_assert(pipe(p) == 0, "pipe");
	fx->opt.flags |= PFX_OPT_TO_FD;
	fx->opt.out_fd = p[1];
	ab_pax(&ab);
	ab_dir(&ab, "d/", 0755);
	ab_file(&ab, "d/f", "one\n", 0644);
	ab_hardlink(&ab, "h", "d/f");
	ab_symlink(&ab, "s", "d/f");
	ab_node(&ab, "c", AE_IFCHR);
	ab_file(&ab, "../x", "evil\n", 0644);
	ab_file(&ab, "g", "two\n", 0600);
	ab_close(&ab);

	EXPECT_STATUS(fx_extract(fx, &ab), PFX_REFUSED);
	EXPECT_LIST("", "");
	EXPECT_OK("d/f");
	EXPECT_OK("g");
	EXPECT_ENTRY("h", PFX_ENTRY_LISTED, "none");
	EXPECT_ENTRY("s", PFX_ENTRY_LISTED, "none");
	EXPECT_ENTRY("c", PFX_ENTRY_LISTED, "none");
	EXPECT_REFUSED("../x", "escapes", PFX_REJECT);
	CHECK(fx->res.stats.bytes == 8, "%llu bytes",
	    (unsigned long long)fx->res.stats.bytes);
	n = read(p[0], out, sizeof(out));
	CHECK(n == 8 && memcmp(out, "one\ntwo\n", 8) == 0,
	    "read %zd bytes \"%.*s\"", n, n > 0 ? (int)n : 0, out);

	/* No destination needed; and a limit stops it as when writing. */
	in.buf = ab.buf;
	in.len = ab.used;
	fx->opt.limits.max_bytes = 6;
	fx->opt.limits.max_entry_bytes = 6;
	EXPECT_STATUS(fx_run(fx, &in, fx->topfd, "missing"), PFX_FATAL);
	CHECK(fx->res.error == EFBIG && strstr(fx->res.message,
	    "max-bytes") != NULL, "message \"%s\"", fx->res.message);
	EXPECT_ABSENT_TOP("missing");
	n = read(p[0], out, sizeof(out));
	CHECK(n == 4 && memcmp(out, "one\n", 4) == 0, "read %zd bytes", n);

	/* A reader gone: the run fails with EPIPE, it does not hang. */
	fx->opt.limits.max_bytes = 0;
	fx->opt.limits.max_entry_bytes = 0;
	close(p[0]);
	signal(SIGPIPE, SIG_IGN);
	EXPECT_STATUS(fx_extract(fx, &ab), PFX_FATAL);
	CHECK(rec_find(&fx->rep, "d/f", 0) != NULL &&
	    rec_find(&fx->rep, "d/f", 0)->error == EPIPE,
	    "d/f not failed with EPIPE");
	signal(SIGPIPE, SIG_DFL);
	close(p[1]);
	ab_free(&ab);
}

Test(extract, to_fd)
{
	each_resolver("to_fd", case_to_fd);
}

/* A sparse file goes down -O with its holes as zeros. */
static void
case_to_fd_holes(struct fx *fx)
{
	static const char data[] = "ab";
	struct archive_entry *e;
	static unsigned char out[70000], file[70000];
	size_t got = 0, i;
	struct ab ab;
	ssize_t n;
	int p[2], fl;

	cr_assert(pipe(p) == 0, "pipe");
	fl = fcntl(p[1], F_GETPIPE_SZ);
	if (fl < 70000)
		(void)fcntl(p[1], F_SETPIPE_SZ, 1 << 17);
	fx->opt.flags |= PFX_OPT_TO_FD;
	fx->opt.out_fd = p[1];
	ab_pax(&ab);
	e = ent_new("sp", AE_IFREG, 0644);
	archive_entry_set_size(e, 65536 + 2 + 100);
	archive_entry_sparse_add_entry(e, 65536, 2);
	/* The writer takes the whole file and stores only the run. */
	memset(file, 0, sizeof(file));
	memcpy(file + 65536, data, 2);
	ab_write(&ab, e, file, 65536 + 2 + 100);
	memset(file, 0, sizeof(file));
	ab_close(&ab);
	EXPECT_STATUS(fx_extract(fx, &ab), PFX_OK);
	close(p[1]);
	while ((n = read(p[0], out + got, sizeof(out) - got)) > 0)
		got += (size_t)n;
	close(p[0]);
	EXPECT_LIST("", "");
	/* The same bytes as the file extracted with its hole. */
	fx->opt.flags &= ~PFX_OPT_TO_FD;
	EXPECT_STATUS(fx_extract(fx, &ab), PFX_OK);
	fl = openat(fx->destfd, "sp", O_RDONLY);
	cr_assert(fl >= 0, "open sp");
	for (i = 0; i < got; i++) {
		n = read(fl, file + i, 1);
		if (n != 1 || file[i] != out[i])
			break;
	}
	close(fl);
	CHECK(got == 65536 + 2 + 100 && i == got, "%zu bytes, differ at %zu",
	    got, i);
	CHECK(memchr(out, 'a', got) != NULL, "the data is not there");
	ab_free(&ab);
}

Test(extract, to_fd_holes)
{
	each_resolver("to_fd_holes", case_to_fd_holes);
}

/* One answer of fx_transform(): NAME of KIND becomes TO (NULL: 2). */
struct xrule {
	enum pfx_name_kind kind;
	const char *name;
	const char *to;
};

static const struct xrule xrules[] = {
	{ PFX_NAME_ENTRY, "a", "top/a" },
	{ PFX_NAME_ENTRY, "s", "top/s" },
	{ PFX_NAME_SYMLINK, "a", "../top/a" },
	{ PFX_NAME_SYMLINK, "../../x", "a" },
	{ PFX_NAME_ENTRY, "h", "top/h" },
	{ PFX_NAME_HARDLINK, "a", "top/a" },
	{ PFX_NAME_ENTRY, "up", "../up" },
	{ PFX_NAME_ENTRY, "gone", "" },
	{ PFX_NAME_ENTRY, "long", NULL },
	{ PFX_NAME_ENTRY, "ok/../../x", "fine" },
	{ PFX_NAME_ENTRY, "s2", "top/s2" },
	{ PFX_NAME_SYMLINK, "a2", "../../../etc/passwd" },
	{ PFX_NAME_HARDLINK, "e", "" },
	{ PFX_NAME_SYMLINK, "e", "" },
};

static int
fx_transform(void *arg, enum pfx_name_kind kind, const struct pfx_entry *e,
    const char *name, char *out, size_t cap)
{
	size_t i;

	(void)arg;
	(void)e;
	for (i = 0; i < NELEM(xrules); i++) {
		if (xrules[i].kind != kind || strcmp(xrules[i].name, name) != 0)
			continue;
		if (xrules[i].to == NULL)
			return 2;
		(void)snprintf(out, cap, "%s", xrules[i].to);
		return 1;
	}
	return 0;
}

/*
 * hooks.transform renames before anything is judged: the new names and
 * link targets are judged, an empty one skips the entry (a link target
 * too: h2 and s3 were refused as leading outside), one too long is
 * refused.
 */
static void
case_transform(struct fx *fx)
{
	struct ab ab;

	fx->opt.hooks.transform = fx_transform;
	fx->opt.symlinks = PFX_SYMLINKS_CONTAIN;
	fx->links_ok = true;
	ab_pax(&ab);
	ab_file(&ab, "a", "A\n", 0644);
	ab_symlink(&ab, "s", "a");
	ab_hardlink(&ab, "h", "a");
	ab_file(&ab, "up", "up\n", 0644);
	ab_file(&ab, "gone", "gone\n", 0644);
	ab_file(&ab, "long", "long\n", 0644);
	ab_file(&ab, "ok/../../x", "x\n", 0644);
	ab_symlink(&ab, "s2", "a2");
	ab_hardlink(&ab, "h2", "e");
	ab_symlink(&ab, "s3", "e");
	ab_close(&ab);
	EXPECT_STATUS(fx_extract(fx, &ab), PFX_REFUSED);
	EXPECT_FILE("top/a", "A\n", 0644);
	EXPECT_LINK("top/s", "../top/a");
	EXPECT_SAME_INODE("top/a", "top/h");
	EXPECT_FILE("fine", "x\n", 0644);
	EXPECT_REFUSED("up", "escapes", PFX_REJECT);
	EXPECT_ENTRY("gone", PFX_ENTRY_SKIPPED, "transform_empty");
	EXPECT_ENTRY("h2", PFX_ENTRY_SKIPPED, "transform_empty");
	EXPECT_ENTRY("s3", PFX_ENTRY_SKIPPED, "transform_empty");
	EXPECT_REFUSED("long", "too_long", PFX_REJECT);
	EXPECT_REFUSED("s2", "symlink_escapes", PFX_REJECT);
	EXPECT_LIST("", "fine top");
	EXPECT_LIST("top", "a h s");
	EXPECT_ABSENT_TOP("up");
	/* The report names the entry as stored; its path is the new one. */
	CHECK(strcmp(str_or_null(EXPECT_OK("a")->path), "top/a") == 0,
	    "a reported at %s", str_or_null(rec_find(&fx->rep, "a",
	    0)->path));
	ab_free(&ab);
}

Test(extract, transform)
{
	each_resolver("transform", case_transform);
}

/* pfx_options.occurrence: the Nth entry of each member only. */
static void
case_occurrence(struct fx *fx)
{
	static const char *const members[] = { "f", "d", "g" };
	struct ab ab;

	fx->opt.members = members;
	fx->opt.nmembers = NELEM(members);
	fx->opt.occurrence = 2;
	ab_pax(&ab);
	ab_file(&ab, "f", "one\n", 0644);
	ab_dir(&ab, "d/", 0755);
	ab_file(&ab, "d/x", "x1\n", 0644);
	ab_file(&ab, "f", "two\n", 0644);
	ab_dir(&ab, "d/", 0755);
	ab_file(&ab, "d/y", "y\n", 0644);
	ab_file(&ab, "f", "three\n", 0644);
	ab_file(&ab, "g", "g\n", 0644);
	ab_close(&ab);
	EXPECT_STATUS(fx_extract(fx, &ab), PFX_REFUSED);
	EXPECT_FILE("f", "two\n", 0644);
	EXPECT_FILE("d/y", "y\n", 0644);
	EXPECT_LIST("", "d f");
	EXPECT_LIST("d", "y");
	CHECK(fx->res.stats.unmatched == 1, "%llu unmatched (g)",
	    (unsigned long long)fx->res.stats.unmatched);
	ab_free(&ab);
}

Test(extract, occurrence)
{
	each_resolver("occurrence", case_occurrence);
}

/* PFX_OPT_LIST reads every entry and writes nothing. */
static void
case_list(struct fx *fx)
{
	struct pfx_input in = { .fd = -1, .buf = NULL, .len = 0 };
	struct ab ab;
	size_t i;

	fx->opt.flags |= PFX_OPT_LIST;
	ab_pax(&ab);
	ab_dir(&ab, "d/", 0755);
	ab_file(&ab, "d/f", "f\n", 0644);
	ab_hardlink(&ab, "h", "d/f");
	ab_symlink(&ab, "s", "d/f");
	ab_node(&ab, "c", AE_IFCHR);
	ab_file(&ab, "big", "0123456789", 0644);
	ab_close(&ab);

	EXPECT_STATUS(fx_extract(fx, &ab), PFX_OK);
	EXPECT_LIST("", "");
	CHECK(fx->res.stats.listed == 6 && fx->res.stats.bytes == 0,
	    "%llu listed, %llu bytes",
	    (unsigned long long)fx->res.stats.listed,
	    (unsigned long long)fx->res.stats.bytes);
	for (i = 0; i < fx->rep.n; i++)
		CHECK(fx->rep.v[i].status == PFX_ENTRY_LISTED,
		    "entry \"%s\" %s, not listed", fx->rep.v[i].name,
		    pfx_entry_status_name(fx->rep.v[i].status));
	CHECK(strcmp(str_or_null(rec_find(&fx->rep, "d/f", 0)->path),
	    "d/f") == 0, "a listed entry has no path");

	/* Listing needs no destination. */
	in.buf = ab.buf;
	in.len = ab.used;
	EXPECT_STATUS(fx_run(fx, &in, fx->topfd, "missing"), PFX_OK);
	CHECK(fx->res.stats.listed == 6, "%llu listed without a destination",
	    (unsigned long long)fx->res.stats.listed);
	EXPECT_ABSENT_TOP("missing");
	ab_free(&ab);

	/* A hostile name is still judged when listing. */
	ab_pax(&ab);
	ab_file(&ab, "../x", "x\n", 0644);
	ab_close(&ab);
	EXPECT_STATUS(fx_extract(fx, &ab), PFX_REFUSED);
	EXPECT_REFUSED("../x", "escapes", PFX_REJECT);
	EXPECT_LIST("", "");
	ab_free(&ab);
}

Test(extract, list)
{
	each_resolver("list", case_list);
}

/* PFX_OPT_STRICT: the first refusal is fatal; what came before stays. */
static void
case_strict(struct fx *fx)
{
	static const char *const exc[] = { "*.skip" };
	struct ab ab;

	fx->opt.flags |= PFX_OPT_STRICT;
	fx->opt.exclude = exc;
	fx->opt.nexclude = NELEM(exc);
	ab_pax(&ab);
	ab_file(&ab, "a", "a\n", 0644);
	ab_file(&ab, "x.skip", "skipped, not refused\n", 0644);
	ab_dir(&ab, "b/", 0700);
	ab_file(&ab, "../evil", "evil\n", 0644);
	ab_file(&ab, "c", "c\n", 0644);
	ab_close(&ab);
	EXPECT_STATUS(fx_extract(fx, &ab), PFX_FATAL);
	EXPECT_FILE("a", "a\n", 0644);
	EXPECT_DIR("b", 0700);
	EXPECT_LIST("", "a b");
	EXPECT_REFUSED("../evil", "escapes", PFX_REJECT);
	EXPECT_ENTRY("x.skip", PFX_ENTRY_SKIPPED, "excluded");
	CHECK(rec_find(&fx->rep, "c", 0) == NULL, "c was looked at");
	EXPECT_ABSENT_TOP("evil");
	ab_free(&ab);

	/* A refused symlink is a refusal like any other. */
	ab_pax(&ab);
	ab_symlink(&ab, "s", "a");
	ab_file(&ab, "d", "d\n", 0644);
	ab_close(&ab);
	EXPECT_STATUS(fx_extract(fx, &ab), PFX_FATAL);
	EXPECT_REFUSED("s", "symlink", PFX_DENY);
	EXPECT_LIST("", "a b");
	ab_free(&ab);
}

Test(extract, strict)
{
	each_resolver("strict", case_strict);
}

/* A gzip archive holding one file of LEN zero bytes, named NAME. */
static void
ab_zeros(struct ab *ab, const char *name, size_t len)
{
	struct archive_entry *e;
	char *zeros;

	zeros = calloc(1, len);
	cr_assert(zeros != NULL, "calloc");
	ab_open(ab, archive_write_set_format_pax_restricted,
	    archive_write_add_filter_gzip);
	e = ent_new(name, AE_IFREG, 0644);
	archive_entry_set_size(e, (la_int64_t)len);
	ab_write(ab, e, zeros, len);
	ab_close(ab);
	free(zeros);
}

/*
 * Resource limits, counted on what is written and read: a bomb (8 MiB of
 * zeros in a few KiB of gzip) stops on the ratio within a block of the
 * threshold, leaving no partial file; each other limit names itself.
 */
static void
case_limits(struct fx *fx)
{
	struct pfx_options def;
	struct ab ab;

	ab_zeros(&ab, "bomb", 8u << 20);
	fx->opt.limits.ratio_after = 1u << 20;
	fx->opt.limits.max_ratio = 50;
	EXPECT_STATUS(fx_extract(fx, &ab), PFX_FATAL);
	CHECK(strstr(fx->res.message, "max-ratio=50") != NULL,
	    "no max-ratio in \"%s\"", fx->res.message);
	CHECK(fx->res.error == EFBIG, "error %d, want EFBIG", fx->res.error);
	EXPECT_ENTRY("bomb", PFX_ENTRY_FAILED, "limit");
	EXPECT_LIST("", "");

	/* Within the limits, the same archive extracts. */
	fx->opt.limits.max_ratio = 0;
	EXPECT_STATUS(fx_extract(fx, &ab), PFX_OK);
	EXPECT_LIST("", "bomb");

	/* max_bytes counts every byte written, whatever the header says. */
	fx->opt.limits.max_bytes = 1u << 20;
	EXPECT_STATUS(fx_extract(fx, &ab), PFX_FATAL);
	CHECK(strstr(fx->res.message, "max-bytes=1048576") != NULL,
	    "no max-bytes in \"%s\"", fx->res.message);
	ab_free(&ab);
	pfx_options_init(&def);
	fx->opt.limits = def.limits;

	ab_pax(&ab);
	ab_file(&ab, "a/b/c", "c\n", 0644);
	ab_file(&ab, "d", "d\n", 0644);
	ab_close(&ab);
	fx->opt.limits.max_depth = 2;
	EXPECT_STATUS(fx_extract(fx, &ab), PFX_FATAL);
	CHECK(strstr(fx->res.message, "max-depth=2") != NULL,
	    "no max-depth in \"%s\"", fx->res.message);
	fx->opt.limits.max_depth = 0;
	fx->opt.limits.max_entries = 1;
	EXPECT_STATUS(fx_extract(fx, &ab), PFX_FATAL);
	CHECK(strstr(fx->res.message, "max-entries=1") != NULL,
	    "no max-entries in \"%s\"", fx->res.message);
	ab_free(&ab);

	/* Links count apart: the second of them stops the run, and only
	 * the entries before it were made. */
	CHECK(rm_tree_dest(fx) == 0, "cannot empty dest");
	ab_pax(&ab);
	ab_file(&ab, "f", "f\n", 0644);
	ab_hardlink(&ab, "h1", "f");
	ab_file(&ab, "g", "g\n", 0644);
	ab_hardlink(&ab, "h2", "f");
	ab_file(&ab, "late", "late\n", 0644);
	ab_close(&ab);
	fx->opt.limits.max_entries = 0;
	fx->opt.limits.max_links = 1;
	EXPECT_STATUS(fx_extract(fx, &ab), PFX_FATAL);
	CHECK(strstr(fx->res.message, "max-links=1") != NULL,
	    "no max-links in \"%s\"", fx->res.message);
	EXPECT_ENTRY("h2", PFX_ENTRY_FAILED, "limit");
	EXPECT_LIST("", "f g h1");
	ab_free(&ab);
}

Test(extract, limits)
{
	each_resolver("limits", case_limits);
}

/* The stable names. */
Test(extract, names_of_things)
{
	cr_assert(strcmp(pfx_entry_type_name(PFX_TYPE_FILE), "file") == 0);
	cr_assert(strcmp(pfx_entry_type_name(PFX_TYPE_HARDLINK),
	    "hardlink") == 0);
	cr_assert(strcmp(pfx_entry_type_name(PFX_TYPE_SOCKET), "socket") ==
	    0);
	cr_assert(strcmp(pfx_entry_status_name(PFX_ENTRY_EXTRACTED),
	    "extracted") == 0);
	cr_assert(strcmp(pfx_entry_status_name(PFX_ENTRY_REFUSED),
	    "refused") == 0);
	cr_assert(strcmp(pfx_entry_status_name(PFX_ENTRY_LISTED), "listed") ==
	    0);
	cr_assert(strcmp(pfx_reason_text("no-such-reason"),
	    "no-such-reason") == 0);
}


/* --- every format and filter ------------------------------------------ */

/* Nanoseconds of the round-trip mtimes: 100 ns steps, which 7-Zip keeps. */
#define RT_NSEC 123456700L

/* What a format can hold, as libarchive writes and reads it. */
struct format {
	const char *name;
	int (*set)(struct archive *);
	bool flat;		/* ar: regular files, no directories */
	bool links;		/* hard links (else two copies) */
	bool symlinks;
	bool nsec;		/* sub-second mtimes */
	bool filtered;		/* readable inside a compression filter */
};

/*
 * zip and 7-Zip compress their own members.  Wrapped in a filter, zip is
 * read by streaming, without the central directory (so without modes or
 * symlinks), and 7-Zip cannot be read at all: libarchive's limits, not
 * pfextract's, so they are tried unfiltered only.
 */
static const struct format formats[] = {
	{ "pax", archive_write_set_format_pax, false, true, true, true,
	  true },
	{ "pax_restricted", archive_write_set_format_pax_restricted, false,
	  true, true, false, true },
	{ "ustar", archive_write_set_format_ustar, false, true, true, false,
	  true },
	{ "gnutar", archive_write_set_format_gnutar, false, true, true, false,
	  true },
	{ "v7tar", archive_write_set_format_v7tar, false, true, true, false,
	  true },
	{ "zip", archive_write_set_format_zip, false, false, true, false,
	  false },
	{ "cpio_odc", archive_write_set_format_cpio_odc, false, true, true,
	  false, true },
	{ "cpio_newc", archive_write_set_format_cpio_newc, false, true, true,
	  false, true },
	{ "7zip", archive_write_set_format_7zip, false, false, true, true,
	  false },
	{ "ar_bsd", archive_write_set_format_ar_bsd, true, false, false,
	  false, true },
	{ "ar_svr4", archive_write_set_format_ar_svr4, true, false, false,
	  false, true },
};

static const struct {
	const char *name;
	int (*add)(struct archive *);
} filters[] = {
	{ "none", NULL },
	{ "gzip", archive_write_add_filter_gzip },
	{ "bzip2", archive_write_add_filter_bzip2 },
	{ "xz", archive_write_add_filter_xz },
	{ "lzma", archive_write_add_filter_lzma },
	{ "zstd", archive_write_add_filter_zstd },
	{ "lz4", archive_write_add_filter_lz4 },
	{ "lzip", archive_write_add_filter_lzip },
	{ "compress", archive_write_add_filter_compress },
};

/* The content of the binary file of the round trip: no NUL in it. */
static const char *
rt_binary(void)
{
	static char buf[301];
	size_t i;

	for (i = 0; i < sizeof(buf) - 1; i++)
		buf[i] = (char)(i % 255 + 1);
	buf[sizeof(buf) - 1] = '\0';
	return buf;
}

/* Inode numbers of the round trip, and the content of each. */
#define RT_ALPHA 1
#define RT_RUN 2
#define RT_BIN 3
#define RT_DIR 4
#define RT_SUB 5
#define RT_LINK 6

static const char *
rt_data(ino_t ino)
{
	switch (ino) {
	case RT_ALPHA:
		return "alpha\n";
	case RT_RUN:
		return "#!/bin/sh\necho hi\n";
	case RT_BIN:
		return rt_binary();
	}
	return "";
}

/* Write E, a regular file, with the data of its inode. */
static void
rt_write(struct ab *ab, struct archive_entry *e)
{
	const char *data = rt_data(archive_entry_ino(e));
	size_t len = archive_entry_size(e) > 0 ? strlen(data) : 0;

	ab_write(ab, e, data, len);
}

/* Hand E to the link resolver as bsdtar does, and write what it gives. */
static void
rt_add(struct ab *ab, struct archive_entry_linkresolver *lr,
    struct archive_entry *e)
{
	struct archive_entry *spare = NULL;

	archive_entry_linkify(lr, &e, &spare);
	if (e != NULL)
		rt_write(ab, e);
	if (spare != NULL)
		rt_write(ab, spare);
}

/* A new round-trip entry: inode INO of NLINK links, mtime SEC.RT_NSEC. */
static struct archive_entry *
rt_entry(const char *name, mode_t type, mode_t perm, ino_t ino,
    unsigned int nlink, time_t sec)
{
	struct archive_entry *e = ent_new(name, type, perm);

	archive_entry_set_dev(e, 1);
	archive_entry_set_ino(e, ino);
	archive_entry_set_nlink(e, nlink);
	archive_entry_set_mtime(e, sec, RT_NSEC);
	if (type == AE_IFREG)
		archive_entry_set_size(e, (la_int64_t)strlen(rt_data(ino)));
	return e;
}

/*
 * The small ordinary tree, written in format F through filter FILT:
 *
 *	t/		0755, mtime 1100000000.RT_NSEC
 *	|-- a.txt	"alpha\n", 0644
 *	|-- h		hard link to a.txt
 *	|-- l -> a.txt
 *	|-- run.sh	0755
 *	`-- sub/	implicit
 *	    `-- b.bin	300 bytes, 0640
 *
 * ar keeps no directories and no links: a.txt, b.bin, h (a copy) and
 * run.sh side by side.
 */
static void
rt_archive(struct ab *ab, const struct format *f,
    int (*filt)(struct archive *))
{
	struct archive_entry_linkresolver *lr;
	struct archive_entry *e = NULL, *spare = NULL;
	const char *pre = f->flat ? "" : "t/";
	char name[64];

	ab_open(ab, f->set, filt);
	lr = archive_entry_linkresolver_new();
	cr_assert(lr != NULL, "linkresolver");
	archive_entry_linkresolver_set_strategy(lr, archive_format(ab->a));
	if (!f->flat)
		rt_add(ab, lr, rt_entry("t/", AE_IFDIR, 0755, RT_DIR, 2,
		    1100000000));
	(void)snprintf(name, sizeof(name), "%sa.txt", pre);
	rt_add(ab, lr, rt_entry(name, AE_IFREG, 0644, RT_ALPHA, 2,
	    1200000000));
	(void)snprintf(name, sizeof(name), "%srun.sh", pre);
	rt_add(ab, lr, rt_entry(name, AE_IFREG, 0755, RT_RUN, 1,
	    1200000001));
	(void)snprintf(name, sizeof(name), "%s%sb.bin", pre,
	    f->flat ? "" : "sub/");
	rt_add(ab, lr, rt_entry(name, AE_IFREG, 0640, RT_BIN, 1,
	    1200000002));
	(void)snprintf(name, sizeof(name), "%sh", pre);
	rt_add(ab, lr, rt_entry(name, AE_IFREG, 0644, RT_ALPHA, 2,
	    1200000000));
	if (f->symlinks) {
		e = rt_entry("t/l", AE_IFLNK, 0777, RT_LINK, 1, 1200000003);
		archive_entry_set_symlink(e, "a.txt");
		rt_add(ab, lr, e);
	}
	/* Entries the resolver held back (cpio newc puts data last). */
	for (;;) {
		e = NULL;
		archive_entry_linkify(lr, &e, &spare);
		if (e == NULL)
			break;
		rt_write(ab, e);
	}
	archive_entry_linkresolver_free(lr);
	ab_close(ab);
}

/* Check the tree of rt_archive() in dest/. */
static void
rt_check(struct fx *fx, const struct format *f)
{
	const char *bin = rt_binary();
	long ns = f->nsec ? RT_NSEC : 0;

	if (f->flat) {
		EXPECT_LIST("", "a.txt b.bin h run.sh");
		EXPECT_FILE("a.txt", "alpha\n", 0644);
		EXPECT_FILE("h", "alpha\n", 0644);
		EXPECT_FILE("run.sh", "#!/bin/sh\necho hi\n", 0755);
		EXPECT_FILE("b.bin", bin, 0640);
		EXPECT_MTIME("a.txt", 1200000000, 0);
		EXPECT_MTIME("b.bin", 1200000002, 0);
		return;
	}
	EXPECT_LIST("", "t");
	EXPECT_LIST("t", f->symlinks ? "a.txt h l run.sh sub" :
	    "a.txt h run.sh sub");
	EXPECT_DIR("t", 0755);
	EXPECT_DIR("t/sub", 0755);
	EXPECT_FILE("t/a.txt", "alpha\n", 0644);
	EXPECT_FILE("t/h", "alpha\n", 0644);
	EXPECT_FILE("t/run.sh", "#!/bin/sh\necho hi\n", 0755);
	EXPECT_FILE("t/sub/b.bin", bin, 0640);
	if (f->links)
		EXPECT_SAME_INODE("t/h", "t/a.txt");
	else
		EXPECT_NLINK("t/h", 1);
	if (f->symlinks)
		EXPECT_LINK("t/l", "a.txt");
	EXPECT_MTIME("t", 1100000000, ns);
	EXPECT_MTIME("t/a.txt", 1200000000, ns);
	EXPECT_MTIME("t/run.sh", 1200000001, ns);
	EXPECT_MTIME("t/sub/b.bin", 1200000002, ns);
}

/*
 * The round trip of format number I through every filter it can go
 * through, the resolvers taking turns.
 */
static void
round_trip(size_t i)
{
	const struct format *f = &formats[i];
	char cname[64];
	struct fx fxs, *fx = &fxs;
	struct ab ab;
	size_t j;

	for (j = 0; j < NELEM(filters); j++) {
		if (j > 0 && !f->filtered)
			break;
		(void)snprintf(cname, sizeof(cname), "round trip %s/%s",
		    f->name, filters[j].name);
		fx_begin(fx, cname, resolvers[j % NELEM(resolvers)]);
		fx->links_ok = true;
		fx->opt.symlinks = PFX_SYMLINKS_CONTAIN;
		rt_archive(&ab, f, filters[j].add);
		EXPECT_STATUS(fx_extract(fx, &ab), PFX_OK);
		rt_check(fx, f);
		ab_free(&ab);
		fx_end(fx);
	}
	expect_no_leaks(f->name);
}

Test(extract_formats, pax)
{
	round_trip(0);
}

Test(extract_formats, pax_restricted)
{
	round_trip(1);
}

Test(extract_formats, ustar)
{
	round_trip(2);
}

Test(extract_formats, gnutar)
{
	round_trip(3);
}

Test(extract_formats, v7tar)
{
	round_trip(4);
}

Test(extract_formats, zip)
{
	round_trip(5);
}

Test(extract_formats, cpio_odc)
{
	round_trip(6);
}

Test(extract_formats, cpio_newc)
{
	round_trip(7);
}

Test(extract_formats, sevenzip)
{
	round_trip(8);
}

Test(extract_formats, ar_bsd)
{
	round_trip(9);
}

Test(extract_formats, ar_svr4)
{
	round_trip(10);
}

/*
 * The tables of an SVR4/GNU ar, as libarchive passes them through: the
 * symbol table "/", its 64-bit form "/SYM64/" (GNU ar's for an archive
 * past 4 GiB) and the long-name table "//" are no members.  "/SYM64/"
 * was refused as an absolute name: a good archive exited 1.
 */
static const char ar_tables[] =
    "!<arch>\n"
    "/               0           0     0     100644  4         `\n"
    "\0\0\0\0"
    "/SYM64/         0           0     0     100644  8         `\n"
    "\0\0\0\0\0\0\0\0"
    "//              0           0     0     100644  18        `\n"
    "long_member.name/\n"
    "/0              0           0     0     100644  5         `\n"
    "long\n\n"
    "short/          0           0     0     100644  6         `\n"
    "short\n";

static void
case_ar_tables(struct fx *fx)
{
	EXPECT_STATUS(fx_extract_bytes(fx, ar_tables, sizeof(ar_tables) - 1),
	    PFX_OK);
	EXPECT_ENTRY("/SYM64/", PFX_ENTRY_SKIPPED, "ar_index");
	EXPECT_FILE("long_member.name", "long\n", 0644);
	EXPECT_FILE("short", "short\n", 0644);
	EXPECT_ABSENT("SYM64");
}

Test(extract_formats, ar_tables)
{
	each_resolver("ar_tables", case_ar_tables);
}

/* --- sparse files ------------------------------------------------------ */

/* Below the ratio's 64 MiB grace: holes count as bytes (issue 18). */
#define SPARSE_SIZE (48 << 20)
#define SPARSE_MID (24 << 20)
#define SPARSE_RUN 4096

/* dest/REL: SPARSE_SIZE bytes, 'A's at 0 and 'B's at SPARSE_MID, holes. */
static void
expect_sparse(struct fx *fx, int line, const char *rel)
{
	char buf[SPARSE_RUN], want[SPARSE_RUN];
	struct stat st;
	int fd;

	st = stat_dest(fx, line, rel);
	check(fx, line, S_ISREG(st.st_mode) && st.st_size == SPARSE_SIZE,
	    "dest/%s: %lld bytes, want %d", rel, (long long)st.st_size,
	    SPARSE_SIZE);
	check(fx, line, (long long)st.st_blocks * 512 <= 1 << 20,
	    "dest/%s: %lld blocks allocated: the holes were filled", rel,
	    (long long)st.st_blocks);
	fd = openat(fx->destfd, rel, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	check(fx, line, fd >= 0, "open dest/%s: %s", rel, strerror(errno));
	memset(want, 'A', sizeof(want));
	check(fx, line, pread(fd, buf, sizeof(buf), 0) == SPARSE_RUN &&
	    memcmp(buf, want, sizeof(buf)) == 0, "dest/%s: bad data at 0",
	    rel);
	memset(want, 'B', sizeof(want));
	check(fx, line, pread(fd, buf, sizeof(buf), SPARSE_MID) ==
	    SPARSE_RUN && memcmp(buf, want, sizeof(buf)) == 0,
	    "dest/%s: bad data at %d", rel, SPARSE_MID);
	memset(want, 0, sizeof(want));
	check(fx, line, pread(fd, buf, sizeof(buf), SPARSE_MID / 2) ==
	    SPARSE_RUN && memcmp(buf, want, sizeof(buf)) == 0,
	    "dest/%s: a hole holds data", rel);
	check(fx, line, pread(fd, buf, sizeof(buf), SPARSE_SIZE - SPARSE_RUN)
	    == SPARSE_RUN && memcmp(buf, want, sizeof(buf)) == 0,
	    "dest/%s: the trailing hole holds data", rel);
	(void)close(fd);
}

/* dest/REL: a 1 MiB hole, then SPARSE_RUN bytes 'T'. */
static void
expect_tail(struct fx *fx, int line, const char *rel)
{
	char buf[SPARSE_RUN], want[SPARSE_RUN];
	struct stat st;
	int fd;

	st = stat_dest(fx, line, rel);
	check(fx, line, st.st_size == (1 << 20) + SPARSE_RUN &&
	    (long long)st.st_blocks * 512 < 1 << 20, "dest/%s: %lld bytes in "
	    "%lld blocks", rel, (long long)st.st_size,
	    (long long)st.st_blocks);
	fd = openat(fx->destfd, rel, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	check(fx, line, fd >= 0, "open dest/%s: %s", rel, strerror(errno));
	memset(want, 'T', sizeof(want));
	check(fx, line, pread(fd, buf, sizeof(buf), 1 << 20) == SPARSE_RUN &&
	    memcmp(buf, want, sizeof(buf)) == 0, "dest/%s: bad data", rel);
	memset(want, 0, sizeof(want));
	check(fx, line, pread(fd, buf, sizeof(buf), 0) == SPARSE_RUN &&
	    memcmp(buf, want, sizeof(buf)) == 0, "dest/%s: a hole holds data",
	    rel);
	(void)close(fd);
}

/* A 64 MiB pax sparse entry: two runs of data, the rest holes. */
static void
case_sparse_pax(struct fx *fx)
{
	struct archive_entry *e;
	struct ab ab;
	char *mib;
	size_t i;

	mib = calloc(1, 1 << 20);
	cr_assert(mib != NULL, "calloc");
	ab_pax(&ab);
	e = ent_new("sparse", AE_IFREG, 0644);
	archive_entry_set_size(e, SPARSE_SIZE);
	archive_entry_sparse_add_entry(e, 0, SPARSE_RUN);
	archive_entry_sparse_add_entry(e, SPARSE_MID, SPARSE_RUN);
	cr_assert(archive_write_header(ab.a, e) == ARCHIVE_OK, "header: %s",
	    archive_error_string(ab.a));
	archive_entry_free(e);
	/* The writer takes the whole file and stores only the runs. */
	for (i = 0; i < SPARSE_SIZE >> 20; i++) {
		memset(mib, 0, SPARSE_RUN);
		if (i == 0)
			memset(mib, 'A', SPARSE_RUN);
		if (i == SPARSE_MID >> 20)
			memset(mib, 'B', SPARSE_RUN);
		cr_assert(archive_write_data(ab.a, mib, 1 << 20) == 1 << 20,
		    "data: %s", archive_error_string(ab.a));
	}
	/* A hole first, data last. */
	e = ent_new("tail", AE_IFREG, 0644);
	archive_entry_set_size(e, (1 << 20) + SPARSE_RUN);
	archive_entry_sparse_add_entry(e, 1 << 20, SPARSE_RUN);
	cr_assert(archive_write_header(ab.a, e) == ARCHIVE_OK, "header: %s",
	    archive_error_string(ab.a));
	archive_entry_free(e);
	memset(mib, 0, 1 << 20);
	cr_assert(archive_write_data(ab.a, mib, 1 << 20) == 1 << 20, "data");
	memset(mib, 'T', SPARSE_RUN);
	cr_assert(archive_write_data(ab.a, mib, SPARSE_RUN) == SPARSE_RUN,
	    "data");
	ab_file(&ab, "after", "after\n", 0644);
	ab_close(&ab);
	free(mib);
	cr_assert(ab.used < 1 << 20, "the archive holds the holes");

	EXPECT_STATUS(fx_extract(fx, &ab), PFX_OK);
	expect_sparse(fx, __LINE__, "sparse");
	EXPECT_FILE("after", "after\n", 0644);
	expect_tail(fx, __LINE__, "tail");
	CHECK(EXPECT_OK("sparse")->bytes == 2 * SPARSE_RUN,
	    "sparse: %llu bytes reported, want %d",
	    (unsigned long long)rec_find(&fx->rep, "sparse", 0)->bytes,
	    2 * SPARSE_RUN);
	ab_free(&ab);
}

Test(extract_formats, sparse_pax)
{
	each_resolver("sparse_pax", case_sparse_pax);
}

/* The same file as an old GNU sparse entry ('S'), written by hand. */
static void
case_sparse_gnu(struct fx *fx)
{
	struct raw r = { NULL, 0, 0 };
	char run[SPARSE_RUN];
	unsigned char *h;

	h = raw_header(&r, "gsparse", 'S', 2 * SPARSE_RUN, "", true);
	tar_octal(h + 386, 12, 0);
	tar_octal(h + 398, 12, SPARSE_RUN);
	tar_octal(h + 410, 12, SPARSE_MID);
	tar_octal(h + 422, 12, SPARSE_RUN);
	tar_octal(h + 483, 12, SPARSE_SIZE);
	tar_checksum(h);
	memset(run, 'A', sizeof(run));
	raw_data(&r, run, sizeof(run));
	memset(run, 'B', sizeof(run));
	raw_data(&r, run, sizeof(run));
	raw_entry(&r, "after", '0', "after\n", "");
	(void)raw_block(&r);
	(void)raw_block(&r);

	EXPECT_STATUS(fx_extract_bytes(fx, r.buf, r.len), PFX_OK);
	expect_sparse(fx, __LINE__, "gsparse");
	EXPECT_FILE("after", "after\n", 0644);
	free(r.buf);
}

Test(extract_formats, sparse_gnutar)
{
	each_resolver("sparse_gnutar", case_sparse_gnu);
}

/* --- bad input --------------------------------------------------------- */

#define FIRST_LEN 1000
#define SECOND_LEN 100000

/* A string of LEN bytes of the letter C and a counter, no NUL. */
static char *
pattern(char c, size_t len)
{
	char *p = malloc(len + 1);
	size_t i;

	cr_assert(p != NULL, "malloc");
	for (i = 0; i < len; i++)
		p[i] = i % 64 == 63 ? '\n' : (char)(c + i % 7);
	p[len] = '\0';
	return p;
}

/*
 * The archive bad input is made from, in ustar: "first" (header at 0,
 * data at 512), "second" (header at 1536, data at 2048..102048), "third"
 * (header at 102400).
 */
static void
bad_archive(struct ab *ab, int (*filt)(struct archive *), char *first,
    char *second)
{
	ab_open(ab, archive_write_set_format_ustar, filt);
	ab_file(ab, "first", first, 0644);
	ab_file(ab, "second", second, 0644);
	ab_file(ab, "third", "third\n", 0644);
	ab_close(ab);
}

/*
 * After a failed run: fatal with a message, no temporary, and every
 * file that exists is whole.
 */
static void
expect_failed_cleanly(struct fx *fx, int line, enum pfx_status st,
    const char *first, const char *second)
{
	char *bad;

	if (st != PFX_FATAL || fx->res.message[0] == '\0') {
		bad = dump_reports(fx);
		check(fx, line, false, "status %s, message \"%s\": want "
		    "PFX_FATAL with a message; %zu reports:%.600s",
		    status_name(st), fx->res.message, fx->rep.n, bad);
	}
	bad = dest_leftovers(fx, false);
	check(fx, line, bad[0] == '\0', "left behind:%s", bad);
	free(bad);
	if (faccessat(fx->destfd, "first", F_OK, AT_SYMLINK_NOFOLLOW) == 0)
		expect_bytes(fx, line, "first", first, FIRST_LEN, 0644);
	if (faccessat(fx->destfd, "second", F_OK, AT_SYMLINK_NOFOLLOW) == 0)
		expect_bytes(fx, line, "second", second, SECOND_LEN, 0644);
}

/* An archive cut anywhere is fatal and leaves no partial file. */
static void
case_truncated(struct fx *fx)
{
	static const size_t cuts[] = {
		1, 100, 511, 700, 1535, 1600, 2047, 2100, 50000, 102047
	};
	char *first = pattern('a', FIRST_LEN);
	char *second = pattern('A', SECOND_LEN);
	enum pfx_status st;
	struct ab ab;
	size_t i;

	bad_archive(&ab, NULL, first, second);
	cr_assert(ab.used > 102400 + 512, "unexpected layout");
	for (i = 0; i < NELEM(cuts); i++) {
		cr_assert(rm_tree_dest(fx) == 0, "cannot empty dest/");
		st = fx_extract_bytes(fx, ab.buf, cuts[i]);
		expect_failed_cleanly(fx, __LINE__, st, first, second);
		CHECK(cuts[i] < 1536 ||
		    faccessat(fx->destfd, "first", F_OK, 0) == 0,
		    "cut at %zu: first, whole before the cut, is missing",
		    cuts[i]);
		CHECK(faccessat(fx->destfd, "second", F_OK, 0) == -1 &&
		    faccessat(fx->destfd, "third", F_OK, 0) == -1,
		    "cut at %zu: an entry after the cut exists", cuts[i]);
		if (cuts[i] > 2048)
			EXPECT_ENTRY("second", PFX_ENTRY_FAILED, "read_error");
	}
	ab_free(&ab);

	/* The same, compressed, cut in the middle of the stream. */
	bad_archive(&ab, archive_write_add_filter_gzip, first, second);
	cr_assert(rm_tree_dest(fx) == 0, "cannot empty dest/");
	st = fx_extract_bytes(fx, ab.buf, ab.used / 2);
	expect_failed_cleanly(fx, __LINE__, st, first, second);
	ab_free(&ab);
	free(first);
	free(second);
}

Test(extract_formats, truncated)
{
	each_resolver("truncated", case_truncated);
}

/* Garbage, an empty buffer and a damaged header are fatal. */
static void
case_garbage(struct fx *fx)
{
	char *first = pattern('a', FIRST_LEN);
	char *second = pattern('A', SECOND_LEN);
	unsigned char junk[4096];
	uint32_t seed = 12345;
	enum pfx_status st;
	struct ab ab;
	size_t i;

	for (i = 0; i < sizeof(junk); i++) {
		seed = seed * 1103515245u + 12345u;
		junk[i] = (unsigned char)(seed >> 16);
	}
	st = fx_extract_bytes(fx, junk, sizeof(junk));
	expect_failed_cleanly(fx, __LINE__, st, first, second);
	EXPECT_LIST("", "");
	st = fx_extract_bytes(fx, "", 0);
	expect_failed_cleanly(fx, __LINE__, st, first, second);
	st = fx_extract_bytes(fx, NULL, 0);
	expect_failed_cleanly(fx, __LINE__, st, first, second);
	EXPECT_LIST("", "");

	/* A byte of the name of "second" changed: its checksum fails. */
	bad_archive(&ab, NULL, first, second);
	ab.buf[1536] ^= 0x20;
	st = fx_extract_bytes(fx, ab.buf, ab.used);
	expect_failed_cleanly(fx, __LINE__, st, first, second);
	EXPECT_FILE("first", first, 0644);
	CHECK(fx->res.stats.entries <= 2, "%llu entries read from a damaged "
	    "archive of three", (unsigned long long)fx->res.stats.entries);
	ab_free(&ab);
	free(first);
	free(second);
}

Test(extract_formats, garbage)
{
	each_resolver("garbage", case_garbage);
}

/* --- kinds of input and destination ----------------------------------- */

/* A small archive for the input cases, compressed by FILT. */
static void
small_archive(struct ab *ab, int (*filt)(struct archive *))
{
	ab_open(ab, archive_write_set_format_gnutar, filt);
	ab_dir(ab, "d/", 0755);
	ab_file(ab, "d/f", "from input\n", 0644);
	ab_hardlink(ab, "d/h", "d/f");
	ab_close(ab);
}

static void
expect_small(struct fx *fx, int line)
{
	expect_list(fx, line, "", "d");
	expect_list(fx, line, "d", "f h");
	expect_bytes(fx, line, "d/f", "from input\n", 11, 0644);
	expect_same_inode(fx, line, "d/h", "d/f");
}

/* Write AB to top/NAME, after PREFIX bytes of junk. */
static void
save_archive(struct fx *fx, const char *name, const struct ab *ab,
    size_t prefix)
{
	char junk[512];
	int fd;

	fd = openat(fx->topfd, name, O_WRONLY | O_CREAT | O_EXCL |
	    O_CLOEXEC, 0644);
	cr_assert(fd >= 0, "create %s: %s", name, strerror(errno));
	cr_assert(prefix <= sizeof(junk), "prefix too long");
	memset(junk, 'j', sizeof(junk));
	write_all(fd, junk, prefix);
	write_all(fd, ab->buf, ab->used);
	(void)close(fd);
}

/* From a path, and from a descriptor, borrowed and read from where it is. */
static void
case_input_file(struct fx *fx)
{
	char path[PATH_MAX];
	struct pfx_input in = { .fd = -1, .buf = NULL, .len = 0 };
	struct ab ab;
	int fd;

	small_archive(&ab, archive_write_add_filter_xz);
	save_archive(fx, "in.tar.xz", &ab, 0);
	save_archive(fx, "junk+in.tar.xz", &ab, 512);
	(void)snprintf(path, sizeof(path), "%s/in.tar.xz", fx->top);

	in.path = path;
	EXPECT_STATUS(fx_run(fx, &in, AT_FDCWD, fx->dest), PFX_OK);
	expect_small(fx, __LINE__);

	cr_assert(rm_tree_dest(fx) == 0, "cannot empty dest/");
	in.path = NULL;
	in.fd = openat(fx->topfd, "in.tar.xz", O_RDONLY | O_CLOEXEC);
	cr_assert(in.fd >= 0, "open: %s", strerror(errno));
	EXPECT_STATUS(fx_run(fx, &in, AT_FDCWD, fx->dest), PFX_OK);
	expect_small(fx, __LINE__);
	CHECK(fcntl(in.fd, F_GETFD) != -1, "the input descriptor was closed");
	(void)close(in.fd);

	cr_assert(rm_tree_dest(fx) == 0, "cannot empty dest/");
	fd = openat(fx->topfd, "junk+in.tar.xz", O_RDONLY | O_CLOEXEC);
	cr_assert(fd >= 0, "open: %s", strerror(errno));
	cr_assert(lseek(fd, 512, SEEK_SET) == 512, "lseek");
	in.fd = fd;
	EXPECT_STATUS(fx_run(fx, &in, AT_FDCWD, fx->dest), PFX_OK);
	expect_small(fx, __LINE__);
	(void)close(fd);

	/* A path that does not exist. */
	(void)snprintf(path, sizeof(path), "%s/missing.tar", fx->top);
	in.path = path;
	in.fd = -1;
	EXPECT_STATUS(fx_run(fx, &in, AT_FDCWD, fx->dest), PFX_FATAL);
	ab_free(&ab);
}

Test(extract_formats, input_file)
{
	each_resolver("input_file", case_input_file);
}

struct feeder {
	int fd;
	const char *buf;
	size_t len;
};

/* Write the whole archive into the pipe, then close it. */
static void *
feed(void *arg)
{
	struct feeder *f = arg;
	size_t off = 0;
	ssize_t n;

	while (off < f->len) {
		n = write(f->fd, f->buf + off, f->len - off);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;	/* the reader stopped: EPIPE */
		off += (size_t)n;
	}
	(void)close(f->fd);
	return NULL;
}

/* From a pipe fed by a thread, compressed, detected from the bytes. */
static void
case_input_pipe(struct fx *fx)
{
	struct pfx_input in = { .fd = -1, .buf = NULL, .len = 0 };
	struct feeder f;
	char cname[64];
	const char *saved;
	pthread_t t;
	int p[2];
	struct ab ab;
	size_t i;

	saved = fx->cname;
	for (i = 0; i < NELEM(filters); i++) {
		(void)snprintf(cname, sizeof(cname), "input_pipe %s",
		    filters[i].name);
		fx->cname = cname;
		small_archive(&ab, filters[i].add);
		cr_assert(rm_tree_dest(fx) == 0, "cannot empty dest/");
		cr_assert(pipe2(p, O_CLOEXEC) == 0, "pipe: %s",
		    strerror(errno));
		f.fd = p[1];
		f.buf = ab.buf;
		f.len = ab.used;
		cr_assert(pthread_create(&t, NULL, feed, &f) == 0, "thread");
		in.fd = p[0];
		EXPECT_STATUS(fx_run(fx, &in, AT_FDCWD, fx->dest), PFX_OK);
		(void)close(p[0]);
		cr_assert(pthread_join(t, NULL) == 0, "join");
		expect_small(fx, __LINE__);
		ab_free(&ab);
	}
	fx->cname = saved;
}

Test(extract_formats, input_pipe)
{
	signal(SIGPIPE, SIG_IGN);
	each_resolver("input_pipe", case_input_pipe);
}

#define BIG_LEN (3u << 20)

/*
 * A file of several blocks, compressed, from a pipe: streamed whole,
 * byte for byte.
 */
static void
case_big_file(struct fx *fx)
{
	struct pfx_input in = { .fd = -1, .buf = NULL, .len = 0 };
	struct archive_entry *e;
	struct feeder f;
	pthread_t t;
	struct ab ab;
	char *big;
	int p[2];

	big = pattern('b', BIG_LEN);
	ab_open(&ab, archive_write_set_format_pax,
	    archive_write_add_filter_zstd);
	e = ent_new("big", AE_IFREG, 0644);
	archive_entry_set_size(e, BIG_LEN);
	ab_write(&ab, e, big, BIG_LEN);
	ab_file(&ab, "after", "after\n", 0644);
	ab_close(&ab);
	cr_assert(pipe2(p, O_CLOEXEC) == 0, "pipe: %s", strerror(errno));
	f.fd = p[1];
	f.buf = ab.buf;
	f.len = ab.used;
	cr_assert(pthread_create(&t, NULL, feed, &f) == 0, "thread");
	in.fd = p[0];
	EXPECT_STATUS(fx_run(fx, &in, AT_FDCWD, fx->dest), PFX_OK);
	(void)close(p[0]);
	cr_assert(pthread_join(t, NULL) == 0, "join");
	EXPECT_BYTES("big", big, BIG_LEN, 0644);
	EXPECT_FILE("after", "after\n", 0644);
	CHECK(fx->res.stats.bytes == BIG_LEN + 6, "%llu bytes counted",
	    (unsigned long long)fx->res.stats.bytes);
	ab_free(&ab);
	free(big);
}

Test(extract_formats, big_file)
{
	signal(SIGPIPE, SIG_IGN);
	each_resolver("big_file", case_big_file);
}

/* Into a destination given as a directory fd, and relative to one. */
static void
case_dest_kinds(struct fx *fx)
{
	struct pfx_input in = { .fd = -1, .buf = NULL, .len = 0 };
	struct ab ab;

	small_archive(&ab, NULL);
	in.buf = ab.buf;
	in.len = ab.used;
	EXPECT_STATUS(fx_run(fx, &in, fx->destfd, "."), PFX_OK);
	expect_small(fx, __LINE__);
	CHECK(fcntl(fx->destfd, F_GETFD) != -1, "dirfd was closed");

	cr_assert(rm_tree_dest(fx) == 0, "cannot empty dest/");
	EXPECT_STATUS(fx_run(fx, &in, fx->topfd, "dest"), PFX_OK);
	expect_small(fx, __LINE__);

	/* A buffer wins over a descriptor: fd 0 is never read. */
	cr_assert(rm_tree_dest(fx) == 0, "cannot empty dest/");
	in.fd = 0;
	EXPECT_STATUS(fx_run(fx, &in, fx->topfd, "dest"), PFX_OK);
	expect_small(fx, __LINE__);
	in.fd = -1;

	/* Unusable destinations: missing, a symlink, a file. */
	cr_assert(rm_tree_dest(fx) == 0, "cannot empty dest/");
	put_link(fx->topfd, "dlink", "dest");
	put_file(fx->topfd, "dfile", "f\n", 0644);
	EXPECT_STATUS(fx_run(fx, &in, fx->topfd, "missing"), PFX_FATAL);
	EXPECT_STATUS(fx_run(fx, &in, fx->topfd, "dlink"), PFX_FATAL);
	EXPECT_STATUS(fx_run(fx, &in, fx->topfd, "dfile"), PFX_FATAL);
	EXPECT_LIST("", "");
	EXPECT_ABSENT_TOP("missing");
	ab_free(&ab);
}

Test(extract_formats, dest_kinds)
{
	each_resolver("dest_kinds", case_dest_kinds);
}

/* The formats option: a named set, and mtree never. */
static void
case_formats_option(struct fx *fx)
{
	struct ab ab;

	small_archive(&ab, archive_write_add_filter_gzip);
	fx->opt.formats = "zip,tar";
	EXPECT_STATUS(fx_extract(fx, &ab), PFX_OK);
	expect_small(fx, __LINE__);
	cr_assert(rm_tree_dest(fx) == 0, "cannot empty dest/");
	fx->opt.formats = "zip";
	EXPECT_STATUS(fx_extract(fx, &ab), PFX_FATAL);
	fx->opt.formats = "mtree";
	EXPECT_STATUS(fx_extract(fx, &ab), PFX_FATAL);
	CHECK(strstr(fx->res.message, "mtree") != NULL,
	    "message \"%s\" does not name mtree", fx->res.message);
	fx->opt.formats = "tar,mtree";
	EXPECT_STATUS(fx_extract(fx, &ab), PFX_FATAL);
	fx->opt.formats = "no-such-format";
	EXPECT_STATUS(fx_extract(fx, &ab), PFX_FATAL);
	EXPECT_LIST("", "");
	ab_free(&ab);
	/* xar, referenced weakly (reader.c): here, linked with the shared
	 * libarchive, it is read when named, and only then. */
	ab_open(&ab, archive_write_set_format_xar, NULL);
	ab_file(&ab, "x.txt", "xar\n", 0644);
	ab_close(&ab);
	fx->opt.formats = NULL;
	EXPECT_STATUS(fx_extract(fx, &ab), PFX_FATAL);
	EXPECT_LIST("", "");
	fx->opt.formats = "tar,xar";
	EXPECT_STATUS(fx_extract(fx, &ab), PFX_OK);
	EXPECT_FILE("x.txt", "xar\n", 0644);
	ab_free(&ab);
}

Test(extract_formats, formats_option)
{
	each_resolver("formats_option", case_formats_option);
}

/* --- two threads ------------------------------------------------------- */

#define THREAD_FILES 200

struct job {
	struct pfx_input in;
	int dirfd;
	const char *dest;
	struct pfx_options opt;
	struct pfx_result res;
	struct reports rep;
	pthread_barrier_t *start;
	enum pfx_status st;
};

static void *
job_run(void *arg)
{
	struct job *j = arg;

	(void)pthread_barrier_wait(j->start);
	j->st = pfx_extract(&j->in, j->dirfd, j->dest, &j->opt, &j->res);
	return NULL;
}

/* An archive of THREAD_FILES files "TAG/NNN" holding "TAG NNN\n". */
static void
thread_archive(struct ab *ab, const char *tag, int (*format)(struct archive *),
    int (*filt)(struct archive *))
{
	char name[64], data[64];
	int i;

	ab_open(ab, format, filt);
	for (i = 0; i < THREAD_FILES; i++) {
		(void)snprintf(name, sizeof(name), "%s/%03d", tag, i);
		(void)snprintf(data, sizeof(data), "%s %03d\n", tag, i);
		ab_file(ab, name, data, 0644);
	}
	(void)snprintf(name, sizeof(name), "%s/link", tag);
	(void)snprintf(data, sizeof(data), "%s/000", tag);
	ab_hardlink(ab, name, data);
	ab_close(ab);
}

/* Check the result of job J, which extracted TAG into DIRFD. */
static void
thread_check(struct fx *fx, struct job *j, int dirfd, const char *tag)
{
	char name[64], data[64], buf[64];
	struct names ns;
	ssize_t n;
	int i, fd;

	CHECK(j->st == PFX_OK, "%s: status %s: %s", tag, status_name(j->st),
	    j->res.message);
	CHECK(!j->rep.oom && j->rep.n == THREAD_FILES + 1 &&
	    j->res.stats.extracted == THREAD_FILES + 1, "%s: %zu reports, "
	    "%llu extracted", tag, j->rep.n,
	    (unsigned long long)j->res.stats.extracted);
	cr_assert(names_read(dirfd, ".", &ns) == 0, "list");
	CHECK(ns.n == 1 && strcmp(ns.v[0], tag) == 0, "%s: the destination "
	    "holds %zu names, the first \"%s\"", tag, ns.n,
	    ns.n > 0 ? ns.v[0] : "");
	names_free(&ns);
	for (i = 0; i < THREAD_FILES; i++) {
		(void)snprintf(name, sizeof(name), "%s/%03d", tag, i);
		(void)snprintf(data, sizeof(data), "%s %03d\n", tag, i);
		fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		CHECK(fd >= 0, "%s: open %s: %s", tag, name, strerror(errno));
		n = pread(fd, buf, sizeof(buf) - 1, 0);
		(void)close(fd);
		buf[n > 0 ? n : 0] = '\0';
		CHECK(strcmp(buf, data) == 0, "%s holds \"%s\"", name, buf);
	}
	reports_free(&j->rep);
}

/* Two threads extract two archives into two destinations at once. */
static void
case_threads(struct fx *fx)
{
	pthread_barrier_t start;
	struct job jobs[2];
	struct ab abs[2];
	pthread_t t[2];
	int dirs[2], round;
	size_t i;

	put_dir(fx->topfd, "dest2", 0755);
	dirs[0] = fx->destfd;
	dirs[1] = open_dir(fx->topfd, "dest2");
	thread_archive(&abs[0], "one", archive_write_set_format_pax, NULL);
	thread_archive(&abs[1], "two", archive_write_set_format_gnutar,
	    archive_write_add_filter_gzip);
	for (round = 0; round < 2; round++) {
		cr_assert(pthread_barrier_init(&start, NULL, 2) == 0,
		    "barrier");
		for (i = 0; i < 2; i++) {
			memset(&jobs[i], 0, sizeof(jobs[i]));
			jobs[i].in.fd = -1;
			jobs[i].in.buf = abs[i].buf;
			jobs[i].in.len = abs[i].used;
			jobs[i].dirfd = dirs[i];
			jobs[i].dest = ".";
			pfx_options_init(&jobs[i].opt);
			jobs[i].opt.resolver = resolvers[(i + round) % 2];
			jobs[i].opt.hooks.report = collect;
			jobs[i].opt.hooks.arg = &jobs[i].rep;
			jobs[i].start = &start;
			cr_assert(pthread_create(&t[i], NULL, job_run,
			    &jobs[i]) == 0, "pthread_create");
		}
		for (i = 0; i < 2; i++)
			cr_assert(pthread_join(t[i], NULL) == 0, "join");
		(void)pthread_barrier_destroy(&start);
		thread_check(fx, &jobs[0], dirs[0], "one");
		thread_check(fx, &jobs[1], dirs[1], "two");
	}
	(void)close(dirs[1]);
	ab_free(&abs[0]);
	ab_free(&abs[1]);
}

Test(extract_formats, two_threads)
{
	struct fx fx;

	fx_begin(&fx, "two_threads", PFX_RESOLVER_AUTO);
	case_threads(&fx);
	fx_end(&fx);
	expect_no_leaks("two_threads");
}

/*
 * Many calls at once under a low RLIMIT_NOFILE, which each sizes what it
 * keeps open for speed from (kept directories, queued files): together
 * they want more than the limit, and each call's threads meet EMFILE
 * while the others hold the descriptors.  That slows a call, never fails
 * it: every call extracts its whole tree, every directory entry with its
 * own mode (not left private for a directory made, then not opened).
 * Each archive: FEW_DIRS directory entries of mode 0751, each with a
 * subdirectory of FEW_FILES files, a hard link, and one file of 1.5 MiB
 * (written by the worker in segments).
 */
#define FEW_THREADS 8
#define FEW_DIRS 24
#define FEW_FILES 30
#define FEW_LIMIT 128
#define FEW_BIG (3u << 19)

struct few_job {
	struct ab ab;
	int dirfd;
	struct pfx_result res;
	pthread_barrier_t *start;
	enum pfx_status st;
};

static void *
few_run(void *arg)
{
	struct few_job *j = arg;
	struct pfx_options opt;
	struct pfx_input in;

	memset(&in, 0, sizeof(in));
	in.fd = -1;
	in.buf = j->ab.buf;
	in.len = j->ab.used;
	pfx_options_init(&opt);
	(void)pthread_barrier_wait(j->start);
	j->st = pfx_extract(&in, j->dirfd, ".", &opt, &j->res);
	return NULL;
}

/* The archive of one call: see above. */
static void
few_archive(struct ab *ab, const char *big)
{
	char name[64], data[64];
	struct archive_entry *e;
	int d, i;

	ab_pax(ab);
	for (d = 0; d < FEW_DIRS; d++) {
		(void)snprintf(name, sizeof(name), "d%02d/", d);
		ab_dir(ab, name, 0751);
		for (i = 0; i < FEW_FILES; i++) {
			(void)snprintf(name, sizeof(name), "d%02d/s/f%02d", d,
			    i);
			(void)snprintf(data, sizeof(data), "%d %d\n", d, i);
			ab_file(ab, name, data, 0640);
		}
		(void)snprintf(name, sizeof(name), "d%02d/s/link", d);
		(void)snprintf(data, sizeof(data), "d%02d/s/f00", d);
		ab_hardlink(ab, name, data);
	}
	e = ent_new("big", AE_IFREG, 0644);
	archive_entry_set_size(e, (la_int64_t)FEW_BIG);
	ab_write(ab, e, big, FEW_BIG);
	ab_close(ab);
}

/* Did job J extract its whole tree into J->dirfd? */
static void
few_check(struct fx *fx, struct few_job *j, int n)
{
	char name[64], data[64], buf[64];
	struct stat st;
	ssize_t got;
	int d, i, fd;

	CHECK(j->st == PFX_OK, "call %d: status %s: %s", n,
	    status_name(j->st), j->res.message);
	for (d = 0; d < FEW_DIRS; d++) {
		(void)snprintf(name, sizeof(name), "d%02d", d);
		CHECK(fstatat(j->dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISDIR(st.st_mode) && (st.st_mode & 07777) == 0751,
		    "call %d: %s: mode %04o, want 0751", n, name,
		    (unsigned int)st.st_mode & 07777);
		for (i = 0; i < FEW_FILES; i++) {
			(void)snprintf(name, sizeof(name), "d%02d/s/f%02d", d,
			    i);
			(void)snprintf(data, sizeof(data), "%d %d\n", d, i);
			fd = openat(j->dirfd, name, O_RDONLY | O_NOFOLLOW |
			    O_CLOEXEC);
			CHECK(fd >= 0, "call %d: open %s: %s", n, name,
			    strerror(errno));
			got = pread(fd, buf, sizeof(buf) - 1, 0);
			(void)close(fd);
			buf[got > 0 ? got : 0] = '\0';
			CHECK(strcmp(buf, data) == 0, "call %d: %s holds "
			    "\"%s\"", n, name, buf);
		}
		(void)snprintf(name, sizeof(name), "d%02d/s/link", d);
		CHECK(fstatat(j->dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    st.st_nlink == 2, "call %d: %s: not a second link", n,
		    name);
	}
	CHECK(fstatat(j->dirfd, "big", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    st.st_size == (off_t)FEW_BIG, "call %d: big: %lld bytes", n,
	    (long long)st.st_size);
}

static void
case_few_descriptors(struct fx *fx)
{
	static struct few_job jobs[FEW_THREADS];
	pthread_barrier_t start;
	pthread_t t[FEW_THREADS];
	struct rlimit old, low;
	char name[16], *big;
	int i;

	big = malloc(FEW_BIG);
	cr_assert(big != NULL, "malloc");
	memset(big, 'b', FEW_BIG);
	cr_assert(pthread_barrier_init(&start, NULL, FEW_THREADS) == 0,
	    "barrier");
	for (i = 0; i < FEW_THREADS; i++) {
		memset(&jobs[i], 0, sizeof(jobs[i]));
		(void)snprintf(name, sizeof(name), "dest%d", i);
		put_dir(fx->topfd, name, 0755);
		jobs[i].dirfd = open_dir(fx->topfd, name);
		jobs[i].start = &start;
		few_archive(&jobs[i].ab, big);
	}
	free(big);
	cr_assert(getrlimit(RLIMIT_NOFILE, &old) == 0, "getrlimit");
	low = old;
	if (low.rlim_cur > FEW_LIMIT)
		low.rlim_cur = FEW_LIMIT;
	cr_assert(setrlimit(RLIMIT_NOFILE, &low) == 0, "setrlimit");
	for (i = 0; i < FEW_THREADS; i++)
		cr_assert(pthread_create(&t[i], NULL, few_run, &jobs[i]) == 0,
		    "pthread_create");
	for (i = 0; i < FEW_THREADS; i++)
		cr_assert(pthread_join(t[i], NULL) == 0, "join");
	cr_assert(setrlimit(RLIMIT_NOFILE, &old) == 0, "setrlimit");
	(void)pthread_barrier_destroy(&start);
	for (i = 0; i < FEW_THREADS; i++) {
		few_check(fx, &jobs[i], i);
		(void)close(jobs[i].dirfd);
		ab_free(&jobs[i].ab);
	}
}

Test(extract_formats, many_calls_few_descriptors)
{
	struct fx fx;

	fx_begin(&fx, "many_calls_few_descriptors", PFX_RESOLVER_AUTO);
	case_few_descriptors(&fx);
	fx_end(&fx);
	expect_no_leaks("many_calls_few_descriptors");
}
