/*
 * test_faults.c -- what pfx_extract() leaves when a run cannot finish:
 * cancelled through pfx_options.cancel (before the first entry, between
 * entries, before a file's data, and while a read waits on a slow pipe
 * that a signal interrupts), the destination full (a small tmpfs in a
 * private mount namespace), out of descriptors (RLIMIT_NOFILE), or
 * removed while it is written to, and an archive cut short or corrupt;
 * and a durable run with PFX_OPT_FSYNC.
 *
 * Each case asserts what every failed run must keep: PFX_FATAL with the
 * errno of the cause and a message naming the entry and the cause, no
 * ".pfx-" temporary left in the destination, no file under its final
 * name with less than its whole content, and as many descriptors open
 * after the run as before it.  Each case works in its own directory:
 *
 *	$TMPDIR/pfx-faults.XXXXXX/	top
 *	`-- dest/			the destination
 *
 * The archives are built in memory; member I's content is SIZE bytes of
 * the letter 'a' + I, so a file cut short or mixed up shows.  Signal and
 * mount cases change only the test's own process: Criterion runs each
 * test in a process of its own.
 */
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <criterion/criterion.h>

#include "pfextract.h"
#include "fixture.h"

/* Room for one archive built in memory. */
#define CAP (4u << 20)

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* One member of a test archive: a directory when SIZE is negative. */
struct member {
	const char *name;
	long size;
};

struct tree {
	char top[PATH_MAX / 2];
	char dest[PATH_MAX];
	int nfds;
};

/* The cancellation flag of the case that runs; set by hooks or signals. */
static volatile sig_atomic_t stop;

static void
tree_begin(struct tree *t)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(t->top, sizeof(t->top), "%s/pfx-faults.XXXXXX",
	    tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
	cr_assert_not_null(mkdtemp(t->top), "mkdtemp: %s", strerror(errno));
	snprintf(t->dest, sizeof(t->dest), "%s/dest", t->top);
	cr_assert_eq(mkdir(t->dest, 0755), 0, "mkdir: %s", strerror(errno));
	stop = 0;
	t->nfds = tfx_count_fds();
}

static void
tree_end(struct tree *t)
{
	int n = tfx_count_fds();

	cr_expect_eq(n, t->nfds, "descriptors: %d open after, %d before",
	    n, t->nfds);
	(void)tfx_rm_tree(t->top);
}

/* The content byte of member I. */
static int
fill_of(size_t i)
{
	return 'a' + (int)(i % 26);
}

/* Build a pax archive of M (N members) in BUF.  Return: its length. */
static size_t
build(char *buf, const struct member *m, size_t n)
{
	struct archive *a = archive_write_new();
	struct archive_entry *e = archive_entry_new();
	static char data[2 << 20];
	size_t used = 0, i;

	cr_assert(a != NULL && e != NULL);
	cr_assert_eq(archive_write_set_format_pax_restricted(a), ARCHIVE_OK);
	cr_assert_eq(archive_write_open_memory(a, buf, CAP, &used),
	    ARCHIVE_OK);
	for (i = 0; i < n; i++) {
		archive_entry_clear(e);
		archive_entry_set_pathname(e, m[i].name);
		archive_entry_set_mtime(e, 1300000000, 0);
		if (m[i].size < 0) {
			archive_entry_set_filetype(e, AE_IFDIR);
			archive_entry_set_perm(e, 0755);
		} else {
			cr_assert((size_t)m[i].size <= sizeof(data));
			archive_entry_set_filetype(e, AE_IFREG);
			archive_entry_set_perm(e, 0644);
			archive_entry_set_size(e, m[i].size);
		}
		cr_assert_eq(archive_write_header(a, e), ARCHIVE_OK, "%s",
		    archive_error_string(a));
		if (m[i].size > 0) {
			memset(data, fill_of(i), (size_t)m[i].size);
			cr_assert_eq(archive_write_data(a, data,
			    (size_t)m[i].size), m[i].size);
		}
	}
	cr_assert_eq(archive_write_close(a), ARCHIVE_OK);
	archive_write_free(a);
	archive_entry_free(e);
	return used;
}

/* The member M names at PATH (relative to dest), or SIZE_MAX. */
static size_t
member_at(const struct member *m, size_t n, const char *path)
{
	size_t i, len;

	for (i = 0; i < n; i++) {
		len = strlen(m[i].name);
		if (strncmp(m[i].name, path, len) == 0 &&
		    (path[len] == '\0' || (path[len] == '/' &&
		    path[len + 1] == '\0')))
			return i;
	}
	return SIZE_MAX;
}

/* Is the file at PATH member I, whole? */
static bool
complete(const char *path, const struct member *m, size_t i)
{
	char buf[65536];
	long total = 0;
	ssize_t got, k;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool same = true;

	if (fd == -1)
		return false;
	while ((got = read(fd, buf, sizeof(buf))) > 0) {
		for (k = 0; k < got; k++)
			same = same && buf[k] == (char)fill_of(i);
		total += got;
	}
	(void)close(fd);
	return same && got == 0 && total == m[i].size;
}

/* What check_dest() walks with: nftw(3) passes no argument. */
static const struct member *walk_m;
static size_t walk_n;
static const char *walk_dest;

static int
walk_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	const char *rel = path + strlen(walk_dest);
	const char *base = path + ftw->base;
	size_t i;

	(void)flag;
	if (*rel == '/')
		rel++;
	cr_expect(strncmp(base, ".pfx-", 5) != 0, "temporary left: %s", rel);
	if (!S_ISREG(st->st_mode))
		return 0;
	i = member_at(walk_m, walk_n, rel);
	cr_expect(i != SIZE_MAX, "%s: in dest but not in the archive", rel);
	if (i != SIZE_MAX)
		cr_expect(complete(path, walk_m, i), "%s: under its final "
		    "name but not whole", rel);
	return 0;
}

/*
 * Every file in T's dest is a whole member of M, and nothing is a
 * temporary.  Return: the number of regular files there.
 */
static int
check_dest(const struct tree *t, const struct member *m, size_t n)
{
	char cmd[PATH_MAX + 64];
	FILE *p;
	int count = 0;

	walk_m = m;
	walk_n = n;
	walk_dest = t->dest;
	cr_assert_eq(nftw(t->dest, walk_one, 16, FTW_PHYS), 0);
	snprintf(cmd, sizeof(cmd), "find '%s' -type f | wc -l", t->dest);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	cr_assert_eq(fscanf(p, "%d", &count), 1);
	pclose(p);
	return count;
}

/* Is dest/REL there? */
static bool
exists(const struct tree *t, const char *rel)
{
	char path[PATH_MAX * 2];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", t->dest, rel);
	return lstat(path, &st) == 0;
}

/* Run the archive BUF (LEN bytes) into T's dest with OPT. */
static enum pfx_status
run(const struct tree *t, const char *buf, size_t len,
    const struct pfx_options *opt, struct pfx_result *res)
{
	struct pfx_input in;

	memset(&in, 0, sizeof(in));
	in.fd = -1;
	in.buf = buf;
	in.len = len;
	return pfx_extract(&in, AT_FDCWD, t->dest, opt, res);
}

/* A failed run's result says ERROR, and its message holds WORDS. */
static void
expect_fatal(const struct pfx_result *res, int error, const char *words)
{
	cr_expect_eq(res->status, PFX_FATAL, "status %d, want fatal",
	    res->status);
	cr_expect_eq(res->error, error, "error %d (%s), want %d (%s)",
	    res->error, strerror(res->error), error, strerror(error));
	cr_expect(strstr(res->message, words) != NULL,
	    "message '%s' lacks '%s'", res->message, words);
}

TestSuite(faults, .timeout = 60);

static const struct member three[] = {
	{ "d", -1 },
	{ "d/first", 5000 },
	{ "d/big", 300000 },
	{ "d/last", 7000 },
};

/* Already cancelled: nothing is read or made. */
Test(faults, cancel_before_start)
{
	static char buf[CAP];
	struct pfx_options opt;
	struct pfx_result res;
	struct tree t;
	size_t len = build(buf, three, NELEM(three));

	tree_begin(&t);
	pfx_options_init(&opt);
	opt.cancel = &stop;
	stop = 1;
	(void)run(&t, buf, len, &opt, &res);
	expect_fatal(&res, ECANCELED, "interrupted");
	cr_expect_str_eq(res.message, "interrupted");
	cr_expect_eq(res.stats.entries, 0);
	cr_expect_eq(check_dest(&t, three, NELEM(three)), 0);
	cr_expect(!exists(&t, "d"), "a directory was made");
	tree_end(&t);
}

/* Counts report() calls; cancels once WHEN was extracted. */
static const char *cancel_after;
static int reported;

static void
report_cancel(void *arg, const struct pfx_entry *e)
{
	(void)arg;
	reported++;
	if (cancel_after != NULL && strcmp(e->name, cancel_after) == 0)
		stop = 1;
}

/*
 * Cancelled from report() of the first file.  Files are finished by a
 * second thread (async.c; the run planned for three CPUs), so that
 * report may come when the next ones
 * are already written: the run stops at the next entry it reads, every
 * entry taken on is reported once, as extracted (and there, whole) or as
 * interrupted (and absent), and no temporary is left.
 */
Test(faults, cancel_between_entries)
{
	static char buf[CAP];
	struct pfx_options opt;
	struct pfx_result res;
	struct tree t;
	size_t len = build(buf, three, NELEM(three));

	tree_begin(&t);
	pfx_options_init(&opt);
	opt.cpus = TFX_WORKER_CPUS;
	opt.cancel = &stop;
	opt.hooks.report = report_cancel;
	cancel_after = "d/first";
	reported = 0;
	(void)run(&t, buf, len, &opt, &res);
	expect_fatal(&res, ECANCELED, "interrupted");
	cr_expect_eq((uint64_t)reported, res.stats.entries,
	    "every entry taken on is reported once");
	cr_expect_eq(res.stats.extracted + res.stats.failed,
	    res.stats.entries, "extracted %llu, failed %llu of %llu",
	    (unsigned long long)res.stats.extracted,
	    (unsigned long long)res.stats.failed,
	    (unsigned long long)res.stats.entries);
	/* The directory and the files reported extracted are there. */
	cr_expect_eq((uint64_t)check_dest(&t, three, NELEM(three)) + 1,
	    res.stats.extracted);
	cr_expect(exists(&t, "d/first"));
	tree_end(&t);
}

/*
 * Cancelled once the last entry is extracted: the pass that gives the
 * directories made their final modes at the end heeds it too, as it
 * heeds --timeout, and leaves them private (0700).  That pass costs
 * O(depth) a directory: an archive of 9,000 names of 255 new levels
 * makes it minutes long, which --timeout=5 once did not end (48 s).
 */
Test(faults, cancel_stops_the_directory_pass)
{
	static char buf[CAP];
	struct pfx_options opt;
	struct pfx_result res;
	struct tree t;
	struct stat st;
	char path[PATH_MAX + 8];
	size_t len = build(buf, three, NELEM(three));

	tree_begin(&t);
	pfx_options_init(&opt);
	opt.cancel = &stop;
	opt.hooks.report = report_cancel;
	cancel_after = "d/last";
	reported = 0;
	(void)run(&t, buf, len, &opt, &res);
	expect_fatal(&res, ECANCELED, "interrupted");
	cr_expect(exists(&t, "d/last"));
	(void)snprintf(path, sizeof(path), "%s/d", t.dest);
	cr_assert_eq(stat(path, &st), 0, "%s: %s", path, strerror(errno));
	cr_expect_eq(st.st_mode & 07777, 0700, "d: mode %o, want 0700 "
	    "(the pass at the end went on after the cancellation)",
	    (unsigned)(st.st_mode & 07777));
	tree_end(&t);
}

/* Records the outcome of the entry named in NAME. */
struct outcome {
	const char *name;
	enum pfx_entry_status status;
	char reason[32];
	int error;
	bool seen;
};

/* Cancels from decide() when the entry it watches comes, before its
 * data. */
static int
decide_cancel(void *arg, const struct pfx_entry *e, char *rename,
    size_t cap)
{
	const struct outcome *o = arg;

	(void)rename;
	(void)cap;
	if (strcmp(e->name, o->name) == 0)
		stop = 1;
	return PFX_HOOK_CONTINUE;
}

static void
report_outcome(void *arg, const struct pfx_entry *e)
{
	struct outcome *o = arg;

	if (strcmp(e->name, o->name) != 0)
		return;
	o->seen = true;
	o->status = e->status;
	o->error = e->error;
	snprintf(o->reason, sizeof(o->reason), "%s", e->reason);
}

/*
 * Cancelled after a file's temporary is made, before its first block is
 * written: the temporary goes, the entry is reported failed.
 */
Test(faults, cancel_before_data)
{
	static char buf[CAP];
	struct outcome o = { "d/big", 0, "", 0, false };
	struct pfx_options opt;
	struct pfx_result res;
	struct tree t;
	size_t len = build(buf, three, NELEM(three));

	tree_begin(&t);
	pfx_options_init(&opt);
	opt.cancel = &stop;
	opt.hooks.decide = decide_cancel;
	opt.hooks.report = report_outcome;
	opt.hooks.arg = &o;
	(void)run(&t, buf, len, &opt, &res);
	expect_fatal(&res, ECANCELED, "interrupted");
	cr_expect(o.seen, "d/big was not reported");
	cr_expect_eq(o.status, PFX_ENTRY_FAILED);
	cr_expect_str_eq(o.reason, "interrupted");
	cr_expect_eq(o.error, ECANCELED);
	cr_expect_eq(check_dest(&t, three, NELEM(three)), 1);
	cr_expect(!exists(&t, "d/big") && !exists(&t, "d/last"));
	tree_end(&t);
}

static void
on_usr1(int sig)
{
	(void)sig;
	stop = 1;
}

/* The slow writer of cancel_blocked_read. */
struct writer {
	int fd;			/* the pipe's write end */
	pthread_t reader;	/* the thread in pfx_extract() */
	const char *buf;
	size_t part;		/* bytes written before the pause */
	volatile bool done;	/* pfx_extract() returned */
	bool hung;		/* it did not within 5 s of the signal */
};

static void *
slow_writer(void *arg)
{
	struct writer *w = arg;
	struct timespec pause = { 0, 300 * 1000 * 1000 };
	size_t off = 0;
	ssize_t n;
	int i;

	while (off < w->part) {
		n = write(w->fd, w->buf + off, w->part - off);
		if (n <= 0)
			break;
		off += (size_t)n;
	}
	/* The reader now waits in read(2) for bytes that do not come. */
	nanosleep(&pause, NULL);
	pthread_kill(w->reader, SIGUSR1);
	for (i = 0; i < 500 && !w->done; i++) {
		pause.tv_nsec = 10 * 1000 * 1000;
		nanosleep(&pause, NULL);
	}
	w->hung = !w->done;
	(void)close(w->fd);	/* unblocks the reader if it hung */
	return NULL;
}

/*
 * A read blocked on a pipe whose writer is slow ends when a signal comes
 * and the run is cancelled: libarchive's own fd reader would retry it
 * and wait for the writer.  The message is "interrupted", not a corrupt
 * archive; the file half written goes with its temporary.  The run is
 * planned for CPUS (pfx_options.cpus).
 */
static void
cancel_blocked(const struct member *m, size_t n, unsigned int cpus)
{
	static char buf[CAP];
	struct outcome o = { "d/big", 0, "", 0, false };
	struct pfx_options opt;
	struct pfx_result res;
	struct pfx_input in;
	struct sigaction sa;
	struct writer w;
	pthread_t th;
	struct tree t;
	int p[2];
	size_t len = build(buf, m, n);

	tree_begin(&t);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;	/* no SA_RESTART */
	sigemptyset(&sa.sa_mask);
	cr_assert_eq(sigaction(SIGUSR1, &sa, NULL), 0);
	cr_assert_eq(pipe(p), 0);
	pfx_options_init(&opt);
	opt.cpus = cpus;
	opt.cancel = &stop;
	opt.hooks.report = report_outcome;
	opt.hooks.arg = &o;
	memset(&w, 0, sizeof(w));
	w.fd = p[1];
	w.reader = pthread_self();
	w.buf = buf;
	w.part = len / 2;	/* inside d/big's data */
	cr_assert_eq(pthread_create(&th, NULL, slow_writer, &w), 0);
	memset(&in, 0, sizeof(in));
	in.fd = p[0];
	(void)pfx_extract(&in, AT_FDCWD, t.dest, &opt, &res);
	w.done = true;
	pthread_join(th, NULL);
	(void)close(p[0]);
	cr_expect(!w.hung, "the run did not stop while its read waited");
	expect_fatal(&res, ECANCELED, "interrupted");
	cr_expect_str_eq(res.message, "interrupted");
	cr_expect(o.seen && o.status == PFX_ENTRY_FAILED &&
	    strcmp(o.reason, "interrupted") == 0, "d/big: %s", o.reason);
	cr_expect_eq(check_dest(&t, m, n), 1);
	cr_expect(exists(&t, "d/first") && !exists(&t, "d/big"));
	tree_end(&t);
}

Test(faults, cancel_blocked_read)
{
	cancel_blocked(three, NELEM(three), 0);
}

static const struct member three_streamed[] = {
	{ "d", -1 },
	{ "d/first", 5000 },
	{ "d/big", 2 << 20 },
	{ "d/last", 5000 },
};

/*
 * The same, in a file the worker thread writes as it comes
 * (extract/async.c, XTR_STREAM_MIN; planned for three CPUs, where the
 * worker runs): the segments handed over are
 * written or dropped before the file is given up.
 */
Test(faults, cancel_blocked_read_streamed)
{
	cancel_blocked(three_streamed, NELEM(three_streamed), TFX_WORKER_CPUS);
}

static const struct member nested[] = {
	{ "top", -1 },
	{ "top/a/b/c/deep", 12345 },
	{ "top/a/file", 100 },
	{ "top/z", 70000 },
	{ "flat", 1 },
};

/* PFX_OPT_FSYNC changes nothing but durability (its order: faults.sh). */
Test(faults, fsync_run)
{
	static char buf[CAP];
	struct pfx_options opt;
	struct pfx_result res;
	struct tree t;
	size_t len = build(buf, nested, NELEM(nested));

	tree_begin(&t);
	pfx_options_init(&opt);
	opt.flags |= PFX_OPT_FSYNC;
	cr_expect_eq(run(&t, buf, len, &opt, &res), PFX_OK, "%s",
	    res.message);
	cr_expect_eq(check_dest(&t, nested, NELEM(nested)), 4);
	tree_end(&t);
}

/* Removes the destination (held in ARG) when d/big comes. */
static int
decide_remove_dest(void *arg, const struct pfx_entry *e, char *rename,
    size_t cap)
{
	(void)rename;
	(void)cap;
	if (strcmp(e->name, "d/big") == 0)
		(void)tfx_rm_tree((const char *)arg);
	return PFX_HOOK_CONTINUE;
}

/* The destination removed mid-run: a fatal error, named, not a refusal
 * of each entry that follows. */
Test(faults, dest_removed)
{
	static const enum pfx_resolver hows[] = {
		PFX_RESOLVER_OPENAT2, PFX_RESOLVER_WALK
	};
	static char buf[CAP];
	struct pfx_options opt;
	struct pfx_result res;
	struct tree t;
	size_t len = build(buf, three, NELEM(three)), i;

	for (i = 0; i < NELEM(hows); i++) {
		tree_begin(&t);
		pfx_options_init(&opt);
		opt.resolver = hows[i];
		opt.hooks.decide = decide_remove_dest;
		opt.hooks.arg = t.dest;
		(void)run(&t, buf, len, &opt, &res);
		if (hows[i] == PFX_RESOLVER_OPENAT2 && res.error == ENOSYS) {
			tree_end(&t);
			continue;
		}
		expect_fatal(&res, ENOENT, "d/big: the destination directory "
		    "was removed");
		cr_expect_eq(res.stats.failed, 1);
		tree_end(&t);
	}
}

/*
 * Extract M (N files: small ones, then the one named FULL, then "after")
 * into a tmpfs of SIZE (mounted in a mount namespace of this test's
 * process only): ENOSPC, named FULL; every file before it is whole, the
 * file being written leaves nothing, and the run stops before "after".
 * The run is planned for CPUS (pfx_options.cpus).
 */
static void
fill_up(const struct member *m, size_t n, const char *size,
    const char *full, unsigned int cpus)
{
	static char buf[CAP];
	char opts[64], words[64];
	struct pfx_options opt;
	struct pfx_result res;
	struct tree t;
	size_t len = build(buf, m, n), i, before = 0;

	while (before < n && strcmp(m[before].name, full) != 0)
		before++;
	cr_assert_lt(before, n);
	tree_begin(&t);
	(void)snprintf(opts, sizeof(opts), "size=%s,mode=755", size);
	if (unshare(CLONE_NEWNS) == -1 ||
	    mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) == -1 ||
	    mount("pfx-faults", t.dest, "tmpfs", 0, opts) == -1) {
		tree_end(&t);
		cr_skip_test("cannot mount a small tmpfs here: %s",
		    strerror(errno));
	}
	t.nfds = tfx_count_fds();
	pfx_options_init(&opt);
	opt.cpus = cpus;
	(void)run(&t, buf, len, &opt, &res);
	(void)snprintf(words, sizeof(words), "%s: No space left on device",
	    full);
	expect_fatal(&res, ENOSPC, words);
	cr_expect_eq(check_dest(&t, m, n), (int)before);
	for (i = 0; i < before; i++)
		cr_expect(exists(&t, m[i].name), "%s is missing", m[i].name);
	cr_expect(!exists(&t, full) && !exists(&t, "after"));
	(void)umount2(t.dest, MNT_DETACH);
	tree_end(&t);
}

static const struct member big[] = {
	{ "small", 1000 },
	{ "big", 600000 },
	{ "after", 1000 },
};

/* The destination fills up: a 256 KiB tmpfs. */
Test(faults, disk_full)
{
	fill_up(big, NELEM(big), "256k", "big", 0);
}

static const struct member queued[] = {
	{ "s1", 3000 }, { "s2", 3000 }, { "s3", 3000 }, { "s4", 3000 },
	{ "s5", 3000 }, { "s6", 3000 }, { "s7", 3000 }, { "s8", 3000 },
	{ "big", 600000 },
	{ "after", 1000 },
};

/*
 * As disk_full, with small files the worker thread writes (their data
 * stashed, extract/async.c; planned for three CPUs) before a bigger one the reader writes
 * itself: the reader may fill the disk before the worker wrote them.
 * Each is still whole, as without the worker, and the full disk is
 * the big file's.  Run a few times, since the race is the scheduler's.
 */
Test(faults, disk_full_behind_queue)
{
	int i;

	for (i = 0; i < 8; i++)
		fill_up(queued, NELEM(queued), "256k", "big", TFX_WORKER_CPUS);
}

static const struct member huge[] = {
	{ "small", 1000 },
	{ "huge", 3 << 19 },
	{ "after", 1000 },
};

/*
 * As disk_full, with a file big enough to be written by the worker
 * thread as it comes (extract/async.c, XTR_STREAM_MIN; planned for three
 * CPUs), 1.5 MiB into a
 * 1.25 MiB tmpfs: the write that fails is one of its last, most often
 * after the reader has handed them all over; its ENOSPC is still this
 * file's, nothing is left of it, and the run stops before the next entry.
 */
Test(faults, disk_full_streamed)
{
	fill_up(huge, NELEM(huge), "1280k", "huge", TFX_WORKER_CPUS);
}

/* The highest descriptor open now. */
static int
max_fd(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int max = 2, fd;

	cr_assert_not_null(d);
	while ((de = readdir(d)) != NULL) {
		fd = (int)strtol(de->d_name, NULL, 10);
		if (fd > max && fd != dirfd(d))
			max = fd;
	}
	closedir(d);
	return max;
}

/*
 * Out of descriptors: RLIMIT_NOFILE with every slot below it taken but
 * FREE, for FREE = 1, 2, ... until the run succeeds, whatever holes the
 * test runner left among its own descriptors.  Each run that
 * fails fails with EMFILE, clean: no temporary, no partial file, every
 * descriptor it opened closed again; one names the entry it was on.
 */
Test(faults, emfile)
{
	static const struct member flat[] = {
		{ "one", 100 }, { "two", 200 },
	};
	enum { FILLERS = 4096 };
	static char buf[CAP];
	static int fill[FILLERS];
	struct pfx_options opt;
	struct pfx_result res;
	struct rlimit old, low;
	struct tree t;
	size_t len = build(buf, flat, NELEM(flat)), nfill, k, free_slots;
	bool named = false;

	cr_assert_eq(getrlimit(RLIMIT_NOFILE, &old), 0);
	for (free_slots = 1; free_slots < 16; free_slots++) {
		tree_begin(&t);
		/*
		 * Room for FREE above the highest descriptor: the fill
		 * takes the holes below it too, which a caller may or
		 * may not have left, and then FREE are given back.
		 */
		low = old;
		low.rlim_cur = (rlim_t)max_fd() + 1 + free_slots;
		cr_assert_eq(setrlimit(RLIMIT_NOFILE, &low), 0);
		nfill = 0;
		while (nfill < FILLERS && (fill[nfill] = open("/dev/null",
		    O_RDONLY | O_CLOEXEC)) != -1)
			nfill++;
		cr_assert(nfill >= free_slots && nfill < FILLERS);
		for (k = 0; k < free_slots; k++)
			(void)close(fill[--nfill]);
		pfx_options_init(&opt);
		(void)run(&t, buf, len, &opt, &res);
		while (nfill > 0)
			(void)close(fill[--nfill]);
		cr_assert_eq(setrlimit(RLIMIT_NOFILE, &old), 0);
		if (res.status == PFX_OK) {
			cr_expect_eq(check_dest(&t, flat, NELEM(flat)), 2);
			tree_end(&t);
			break;
		}
		expect_fatal(&res, EMFILE, "Too many open files");
		named = named || strncmp(res.message, "one: ", 5) == 0;
		cr_expect_eq(check_dest(&t, flat, NELEM(flat)), 0);
		tree_end(&t);
	}
	cr_expect(named, "no run failed on an entry, naming it");
	cr_expect_lt(free_slots, 16, "never succeeded");
}

/* An archive cut inside d/big's data: that entry fails, named. */
Test(faults, truncated)
{
	static char buf[CAP];
	struct outcome o = { "d/big", 0, "", 0, false };
	struct pfx_options opt;
	struct pfx_result res;
	struct tree t;
	size_t len = build(buf, three, NELEM(three));

	tree_begin(&t);
	pfx_options_init(&opt);
	opt.hooks.report = report_outcome;
	opt.hooks.arg = &o;
	(void)run(&t, buf, len / 2, &opt, &res);
	expect_fatal(&res, EIO, "d/big: archive data cannot be read");
	cr_expect(o.seen && strcmp(o.reason, "read_error") == 0, "%s",
	    o.reason);
	cr_expect_eq(check_dest(&t, three, NELEM(three)), 1);
	cr_expect(!exists(&t, "d/big"));
	tree_end(&t);
}

/* A header whose checksum fails, after a good entry: fatal, the good
 * entry kept, nothing else made. */
Test(faults, corrupt_header)
{
	static char buf[CAP];
	struct pfx_options opt;
	struct pfx_result res;
	struct tree t;
	size_t len = build(buf, three, NELEM(three));
	char *h;

	tree_begin(&t);
	/* The pax headers of d/big come after d/ and d/first (5000 bytes):
	 * damage every header block past the first file's data. */
	h = memmem(buf + 512 * 12, len - 512 * 12, "d/big", 5);
	cr_assert_not_null(h);
	h[0] = 'X';	/* the checksum no longer matches */
	pfx_options_init(&opt);
	(void)run(&t, buf, len, &opt, &res);
	cr_expect_eq(res.status, PFX_FATAL);
	cr_expect(strstr(res.message, "corrupt") != NULL, "%s",
	    res.message);
	cr_expect_eq(check_dest(&t, three, NELEM(three)), 1);
	cr_expect(exists(&t, "d/first") && !exists(&t, "d/big"));
	tree_end(&t);
}
