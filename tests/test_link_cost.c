/*
 * test_link_cost.c -- what judging --symlinks=contain links costs: the
 * resolution steps (paths looked up, links followed; x->link_steps,
 * read through xtr_link_steps_last()) grow with the links and their
 * targets' length, not with the depth of the chains they form times each
 * settle round; queued links count against --max-memory.  Counted, not
 * timed.
 *
 * Each case runs in a fresh mkdtemp() directory:
 *
 *	$TMPDIR/pfx-cost.XXXXXX/	the destination
 */
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <criterion/criterion.h>

#include "pfextract.h"
#include "fixture.h"

uint64_t xtr_link_steps_last(void);	/* links.h, for tests */
uint64_t xtr_link_removal_judged(void);	/* links.h, for tests */

#define PAD_TARGET 4000		/* bytes of each chain link's target */
#define XTR_MADE 40u		/* l0 .. l39: l<i> follows i + 1 links */

/* An archive written to memory by libarchive, gzip'ed. */
struct mab {
	struct archive *a;
	char *buf;
	size_t cap, used;
};

static void
mab_open(struct mab *ab, size_t cap)
{
	memset(ab, 0, sizeof(*ab));
	ab->cap = cap;
	ab->buf = malloc(cap);
	cr_assert(ab->buf != NULL, "malloc");
	ab->a = archive_write_new();
	cr_assert(ab->a != NULL, "archive_write_new");
	cr_assert(archive_write_set_format_pax(ab->a) == ARCHIVE_OK, "pax");
	cr_assert(archive_write_add_filter_gzip(ab->a) == ARCHIVE_OK, "gz");
	cr_assert(archive_write_open_memory(ab->a, ab->buf, cap,
	    &ab->used) == ARCHIVE_OK, "open memory");
}

/* A directory, as mab_add()'s TARGET. */
static const char dir_entry[] = "";

/*
 * Add NAME: a symlink to TARGET, a directory (TARGET dir_entry), or
 * (TARGET NULL) a file holding "x".
 */
static void
mab_add(struct mab *ab, const char *name, const char *target)
{
	struct archive_entry *e = archive_entry_new();
	int r;

	cr_assert(e != NULL, "archive_entry_new");
	archive_entry_set_pathname(e, name);
	if (target == dir_entry) {
		archive_entry_set_filetype(e, AE_IFDIR);
		archive_entry_set_perm(e, 0755);
		r = archive_write_header(ab->a, e);
		cr_assert(r == ARCHIVE_OK, "header %s", name);
		archive_entry_free(e);
		return;
	}
	archive_entry_set_filetype(e, target != NULL ? AE_IFLNK : AE_IFREG);
	archive_entry_set_perm(e, target != NULL ? 0777 : 0644);
	archive_entry_set_mtime(e, 1300000000, 0);
	archive_entry_set_size(e, target != NULL ? 0 : 1);
	if (target != NULL)
		archive_entry_set_symlink(e, target);
	r = archive_write_header(ab->a, e);
	cr_assert(r == ARCHIVE_OK || r == ARCHIVE_WARN, "header %s", name);
	if (target == NULL)
		cr_assert(archive_write_data(ab->a, "x", 1) == 1, "data");
	archive_entry_free(e);
}

static void
mab_close(struct mab *ab)
{
	cr_assert(archive_write_close(ab->a) == ARCHIVE_OK, "close");
	archive_write_free(ab->a);
	ab->a = NULL;
}

/*
 * The chain of N links: f a file, x a directory, l0 -> "x/../x/../...f",
 * and each
 * l<i> -> "x/../.../l<i-1>", each target PAD_TARGET bytes: every
 * component "x" is a path to look up, and l<i> follows i + 1 links.
 */
static void
chain_archive(struct mab *ab, unsigned n)
{
	char target[PAD_TARGET + 32], name[32], prev[32];
	size_t len;
	unsigned i;

	mab_open(ab, (size_t)1 << 24);
	mab_add(ab, "f", NULL);
	mab_add(ab, "x", dir_entry);
	(void)snprintf(prev, sizeof(prev), "f");
	for (i = 0; i < n; i++) {
		(void)snprintf(name, sizeof(name), "l%u", i);
		len = 0;
		while (len + 5 + strlen(prev) <= PAD_TARGET) {
			memcpy(target + len, "x/../", 5);
			len += 5;
		}
		(void)snprintf(target + len, sizeof(target) - len, "%s",
		    prev);
		mab_add(ab, name, target);
		(void)snprintf(prev, sizeof(prev), "%s", name);
	}
	mab_close(ab);
}

static void
make_top(char *top, size_t cap)
{
	const char *tmp = getenv("TMPDIR");

	if (tmp == NULL || tmp[0] == '\0')
		tmp = "/tmp";
	(void)snprintf(top, cap, "%s/pfx-cost.XXXXXX", tmp);
	cr_assert(mkdtemp(top) != NULL, "mkdtemp: %s", strerror(errno));
}

/* Open REL beneath DIRFD as the kernel would: fd, or -errno. */
static int
open_beneath(int dirfd, const char *rel)
{
	struct open_how how;
	long fd;

	memset(&how, 0, sizeof(how));
	how.flags = O_RDONLY | O_CLOEXEC;
	how.resolve = RESOLVE_BENEATH;
	/* EAGAIN: a rename anywhere (another test) raced the lookup. */
	do
		fd = syscall(SYS_openat2, dirfd, rel, &how, sizeof(how));
	while (fd < 0 && errno == EAGAIN);
	return fd < 0 ? -errno : (int)fd;
}

struct counts {
	unsigned made, loop, other;
};

static void
on_report(void *arg, const struct pfx_entry *e)
{
	struct counts *c = arg;

	if (e->type != PFX_TYPE_SYMLINK)
		return;
	if (e->status == PFX_ENTRY_EXTRACTED)
		c->made++;
	else if (strcmp(e->reason, "symlink_loop") == 0)
		c->loop++;
	else
		c->other++;
}

/*
 * Extract the chain of N links with --symlinks=contain; check the tree
 * (c): l0 .. l39 made (l<i> follows i + 1 links), each leading to f
 * beneath the destination, and l40 on refused as loops.
 * Return: the steps spent.
 */
static uint64_t
run_chain(unsigned n)
{
	struct pfx_options opt;
	struct pfx_result res;
	struct counts c;
	struct mab ab;
	char top[PATH_MAX], name[32], buf[8];
	struct pfx_input in;
	enum pfx_status st;
	unsigned i;
	int dfd, fd;

	chain_archive(&ab, n);
	make_top(top, sizeof(top));
	pfx_options_init(&opt);
	opt.symlinks = PFX_SYMLINKS_CONTAIN;
	memset(&c, 0, sizeof(c));
	opt.hooks.report = on_report;
	opt.hooks.arg = &c;
	in = (struct pfx_input){ .fd = -1, .buf = ab.buf, .len = ab.used };
	st = pfx_extract(&in, AT_FDCWD, top, &opt, &res);
	cr_assert(st == PFX_REFUSED, "chain %u: status %d: %s", n, (int)st,
	    res.message);
	cr_assert(c.made == XTR_MADE && c.loop == n - XTR_MADE &&
	    c.other == 0, "chain %u: %u made, %u loops, %u other", n, c.made,
	    c.loop, c.other);
	dfd = open(top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert(dfd >= 0);
	for (i = 0; i < n; i++) {
		(void)snprintf(name, sizeof(name), "l%u", i);
		fd = open_beneath(dfd, name);
		if (i < XTR_MADE) {
			cr_assert(fd >= 0, "chain %u: %s: %s", n, name,
			    strerror(-fd));
			cr_assert(read(fd, buf, sizeof(buf)) == 1 &&
			    buf[0] == 'x', "chain %u: %s is not f", n, name);
			(void)close(fd);
		} else {
			cr_assert(fd == -ENOENT, "chain %u: %s made", n,
			    name);
		}
	}
	(void)close(dfd);
	(void)tfx_rm_tree(top);
	free(ab.buf);
	return xtr_link_steps_last();
}

/*
 * (a) Linear: each link costs the components of its own target, about
 * PAD_TARGET / 5 lookups, a few times over (a settle round, the round
 * after the loops leave, the check on disk), not once more for every
 * link of the chain it follows (up to 40).  Without the memo a chain of
 * 100 costs 2.6 million steps, one of 400 12.4 million.
 */
Test(link_cost, chain_steps_are_linear, .timeout = 120.)
{
	uint64_t s1, s4, per;

	s1 = run_chain(100);
	s4 = run_chain(400);
	per = PAD_TARGET / 5;
	cr_log_info("chain steps: N=100 %llu, N=400 %llu",
	    (unsigned long long)s1, (unsigned long long)s4);
	cr_assert(s1 > 0, "no steps counted");
	cr_assert(s4 <= 5 * s1, "steps at 4N %llu > 5 x steps at N %llu",
	    (unsigned long long)s4, (unsigned long long)s1);
	cr_assert(s1 <= 4 * 100 * per, "N=100: %llu steps > %llu",
	    (unsigned long long)s1, (unsigned long long)(4 * 100 * per));
	cr_assert(s4 <= 4 * 400 * per, "N=400: %llu steps > %llu",
	    (unsigned long long)s4, (unsigned long long)(4 * 400 * per));
}

/* Another thread's call, between this thread's call and its read. */
static void *
chain_on_another_thread(void *arg)
{
	*(uint64_t *)arg = run_chain(100);
	return NULL;
}

/*
 * The library keeps no state between calls that another thread's call
 * could change: the steps this thread's call spent are still what it
 * reads after a call of another thread spent others.  They were one
 * variable of the process, which the other call overwrote.
 */
Test(link_cost, steps_not_shared_between_threads, .timeout = 120.)
{
	uint64_t mine, theirs = 0;
	pthread_t t;

	mine = run_chain(60);
	cr_assert(pthread_create(&t, NULL, chain_on_another_thread,
	    &theirs) == 0);
	cr_assert(pthread_join(t, NULL) == 0);
	cr_assert(theirs != 0 && theirs != mine, "the two runs spent the "
	    "same steps (%llu): the test tells nothing",
	    (unsigned long long)mine);
	cr_assert_eq(xtr_link_steps_last(), mine, "this thread's run spent "
	    "%llu steps, it reads %llu (the other thread's: %llu)",
	    (unsigned long long)mine,
	    (unsigned long long)xtr_link_steps_last(),
	    (unsigned long long)theirs);
}

/*
 * (b) 20,000 queued links with paths of about 2 KB (the name, path and
 * target about 2 KB more than a table slot each): about 80 MB kept.
 * Under --max-memory=16M the run stops (EFBIG, "max-memory"); with the
 * default it makes them all.
 */
#define MANY 20000u

static void
many_archive(struct mab *ab)
{
	char name[2200], comp[251];
	size_t len;
	unsigned i, k;

	memset(comp, 'd', 250);
	comp[250] = '\0';
	mab_open(ab, (size_t)1 << 26);
	for (i = 0; i < MANY; i++) {
		len = 0;
		for (k = 0; k < 8; k++)
			len += (size_t)snprintf(name + len, sizeof(name) - len,
			    "%s/", comp);
		(void)snprintf(name + len, sizeof(name) - len, "l%u", i);
		mab_add(ab, name, "x");
	}
	mab_close(ab);
}

Test(link_cost, queued_links_count_against_max_memory, .timeout = 300.)
{
	struct pfx_options opt;
	struct pfx_result res;
	struct counts c;
	struct pfx_input in;
	struct mab ab;
	char top[PATH_MAX];
	enum pfx_status st;

	many_archive(&ab);
	in = (struct pfx_input){ .fd = -1, .buf = ab.buf, .len = ab.used };

	make_top(top, sizeof(top));
	pfx_options_init(&opt);
	opt.symlinks = PFX_SYMLINKS_CONTAIN;
	opt.limits.max_memory = (uint64_t)16 << 20;
	st = pfx_extract(&in, AT_FDCWD, top, &opt, &res);
	cr_assert(st == PFX_FATAL && res.error == EFBIG,
	    "16 MiB: status %d, error %d: %s", (int)st, res.error,
	    res.message);
	cr_assert(strstr(res.message, "max-memory") != NULL, "message: %s",
	    res.message);
	(void)tfx_rm_tree(top);

	make_top(top, sizeof(top));
	pfx_options_init(&opt);
	opt.symlinks = PFX_SYMLINKS_CONTAIN;
	memset(&c, 0, sizeof(c));
	opt.hooks.report = on_report;
	opt.hooks.arg = &c;
	st = pfx_extract(&in, AT_FDCWD, top, &opt, &res);
	cr_assert(st == PFX_OK, "default: status %d: %s", (int)st,
	    res.message);
	cr_assert(c.made == MANY, "default: %u made", c.made);
	(void)tfx_rm_tree(top);
	free(ab.buf);
}

/*
 * (c) --symlinks=root makes each link at once.  When an entry replaces a
 * symlink, the links already in the destination are judged again
 * (xtr_symlink_removable), listed at the first replacement, but not the
 * run's own (its own are judged over the final tree at the end); nor is
 * the replacement of one of its own judged.  With them, an archive of N
 * links and then N files of their names judged each link made before,
 * N^2 / 2 resolutions on disk: 8 million for 4,000 links, 20 s; and one
 * of N links and files of one name over a destination of L links judged
 * N x L: 2,000 over 4,000 links, 18 s.  Here none is judged, whether the
 * destination was empty (nothing listed), held a file (listed, none of
 * its links), or held L links.
 */
#define REPLACED 300u

static void
replaced_archive(struct mab *ab)
{
	char name[32], target[32];
	unsigned i;

	mab_open(ab, (size_t)1 << 22);
	for (i = 0; i < REPLACED; i++) {
		(void)snprintf(name, sizeof(name), "s%u", i);
		(void)snprintf(target, sizeof(target), "t%u", i);
		mab_add(ab, name, target);
	}
	for (i = 0; i < REPLACED; i++) {
		(void)snprintf(name, sizeof(name), "s%u", i);
		mab_add(ab, name, NULL);
	}
	mab_close(ab);
}

/* N links s -> t and files s, one after the other. */
static void
alternating_archive(struct mab *ab)
{
	unsigned i;

	mab_open(ab, (size_t)1 << 22);
	for (i = 0; i < REPLACED; i++) {
		mab_add(ab, "s", "t");
		mab_add(ab, "s", NULL);
	}
	mab_close(ab);
}

/* Put N symlinks held/l<i> -> x<i> in TOP. */
static void
plant_links(const char *top, unsigned n)
{
	char path[PATH_MAX + 32], target[32];
	unsigned i;

	(void)snprintf(path, sizeof(path), "%s/held", top);
	cr_assert(mkdir(path, 0755) == 0, "%s: %s", path, strerror(errno));
	for (i = 0; i < n; i++) {
		(void)snprintf(path, sizeof(path), "%s/held/l%u", top, i);
		(void)snprintf(target, sizeof(target), "x%u", i);
		cr_assert(symlink(target, path) == 0, "%s: %s", path,
		    strerror(errno));
	}
}

/* Extract the archive of (c) into a fresh destination, holding one file
 * first if POPULATED (and LINKS symlinks); check every name is a file.
 * Return: the listed links judged. */
static uint64_t
run_replaced(const struct mab *ab, bool populated, unsigned links)
{
	struct pfx_options opt;
	struct pfx_result res;
	struct pfx_input in;
	struct stat st;
	char top[PATH_MAX], path[PATH_MAX + 32];
	enum pfx_status s;
	uint64_t before;
	unsigned i;
	int fd;

	make_top(top, sizeof(top));
	if (populated) {
		(void)snprintf(path, sizeof(path), "%s/there", top);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		cr_assert(fd >= 0, "%s: %s", path, strerror(errno));
		(void)close(fd);
		plant_links(top, links);
	}
	pfx_options_init(&opt);
	opt.symlinks = PFX_SYMLINKS_ROOT;
	in = (struct pfx_input){ .fd = -1, .buf = ab->buf, .len = ab->used };
	before = xtr_link_removal_judged();
	s = pfx_extract(&in, AT_FDCWD, top, &opt, &res);
	cr_assert(s == PFX_OK, "populated %d: status %d: %s", populated,
	    (int)s, res.message);
	for (i = 0; i < (links > 0 ? 1 : REPLACED); i++) {
		(void)snprintf(path, sizeof(path), "%s/s%u", top, i);
		if (links > 0)
			(void)snprintf(path, sizeof(path), "%s/s", top);
		cr_assert(lstat(path, &st) == 0 && S_ISREG(st.st_mode),
		    "%s is not a file", path);
	}
	(void)tfx_rm_tree(top);
	return xtr_link_removal_judged() - before;
}

Test(link_cost, root_links_replaced_are_not_judged_again, .timeout = 120.)
{
	uint64_t empty, populated, held;
	struct mab ab;

	replaced_archive(&ab);
	empty = run_replaced(&ab, false, 0);
	populated = run_replaced(&ab, true, 0);
	free(ab.buf);
	alternating_archive(&ab);
	held = run_replaced(&ab, true, REPLACED);
	free(ab.buf);
	cr_log_info("links judged: empty %llu, populated %llu, held %llu",
	    (unsigned long long)empty, (unsigned long long)populated,
	    (unsigned long long)held);
	cr_assert(held == 0, "%u links in the destination: %llu judged "
	    "(N x L is %u)", REPLACED, (unsigned long long)held,
	    REPLACED * REPLACED);
	cr_assert(empty == 0, "empty destination: %llu links judged "
	    "(N^2 / 2 is %u)", (unsigned long long)empty,
	    REPLACED * REPLACED / 2);
	cr_assert(populated == 0, "populated destination: %llu links judged "
	    "(N^2 / 2 is %u)", (unsigned long long)populated,
	    REPLACED * REPLACED / 2);
}
