/*
 * test_extract_race.c -- race tests of the extractor (pfextract.h): a
 * whole pfx_extract() of an archive of thousands of entries, raced by an
 * attacker who can write inside the destination.
 *
 * Threat: while the archive is extracted, the attacker swaps the
 * directories being written for symlinks to a victim tree outside, moves
 * them out of the destination, and plants symlinks and hard links to
 * victim files at the names the extractor is about to write.  The
 * extractor promises, for both resolvers and both symlink policies, that
 * nothing outside the destination is ever created, written, chmod'ed,
 * linked to or left behind; entries may be refused (symlink_in_path,
 * escapes_root, ...) and the run may even stop, so the status is not
 * judged, only the filesystem afterwards.  A run the race stopped is
 * followed by another into the same dest that skips (decide() answers
 * PFX_HOOK_SKIP) every entry up to where the last one stopped, so the
 * whole archive is extracted under attack however often a run stops.
 *
 * The attacks follow tests/test_platform_race.c, one level up.  NATTACKERS
 * threads each own the directories dK with K % NATTACKERS equal to their
 * id, so they never race one another, and reach into them one component
 * at a time without following symlinks; a lock per dK keeps the attacks
 * on one directory apart.  They start before pfx_extract() and stop after
 * it returns.  The extractor's decide() hook tells them which entry it is
 * about to write.  The attacks, chosen at random:
 *  (a) exchange dest/dK with outside/swapK (renameat2 RENAME_EXCHANGE):
 *      dest/dK is a symlink to the victim for a few microseconds, then
 *      the two are exchanged back;
 *  (b) move dest/dK or dest/dK/s to attic/N, list attic/N recursively at
 *      once, and make dK and dK/s again; when s was moved, dK/s is
 *      sometimes a symlink to the victim's s for a moment first.  Only
 *      d0..d5 are ever moved, so that d6 and d7 keep what the archive
 *      wrote for check 3;
 *  (c) at one of the next entries the extractor will write -- a file
 *      dK/s/fJ, new or a duplicate that replaces an earlier one, or a
 *      symlink, which are all made at the end -- put a symlink or a hard
 *      link to a victim file; at the directory nJ of a coming dK/s/nJ/gJ
 *      put a symlink to a victim directory;
 *  (d) a timer armed by decide() for a random moment of the next entry
 *      stops the extractor's own thread; the signal handler does (b) to
 *      the directory of that entry while the extractor is stopped between
 *      two system calls, so its listing of attic/N is exact.
 *
 * The fixture, made in a fresh mkdtemp(3) directory TOP in $TMPDIR (by
 * default /tmp) for each trial:
 *
 *	TOP/
 *	|-- dest/			the destination, empty at the start
 *	|   `-- d0/ ... d7/		made by the archive: s/, s/fJ, ...
 *	|-- outside/			snapshotted before, compared after
 *	|   |-- keep			a sentinel file
 *	|   |-- victim/
 *	|   |   |-- keep		a sentinel file
 *	|   |   `-- s/			mirrors dK/s, so a followed symlink
 *	|   |       |-- v0 ... v7	    lands on a sentinel
 *	|   |       `-- deeper/
 *	|   |-- swap0 -> TOP/outside/victim
 *	|   |-- ...
 *	|   `-- swap7 -> TOP/outside/victim
 *	`-- attic/			directories the attacker moved out
 *	    |-- 0/
 *	    `-- ...
 *
 * The archive (pax, built in memory once per test with libarchive's
 * writer), in this order: dK/ and dK/s/ for every K; round robin over the
 * eight directories so that every one is busy all the time, the files
 * dK/s/fJ holding ARCHIVE_MARK, a hard link dK/s/hJ to the file before it
 * every tenth file, a file dK/s/nJ/gJ in a new directory now and then;
 * a second copy of every third file, and dK/s/ again; last the symlinks
 * (with --symlinks=contain made after everything else, and only by a run
 * that was not stopped): for every twentieth file two that stay inside
 * (lJ -> fJ, uJ -> ../../dL/s/f0) and three that do not (eJ ->
 * ../../../outside/victim/s/v0, cJ -> ../up/.., aJ -> /etc/hostname),
 * dK/up -> "..", dK/sl -> "s", and a few over earlier files (fJ -> fJ+1).
 *
 * Afterwards, for each trial: (1) TOP/outside is exactly as it was --
 * names, types, modes, sizes, link counts, owners, mtimes, content hashes
 * and symlink targets (tfx_snapshot()) -- once the attacker's own hard
 * links to victim files are removed again, and TOP holds nothing new;
 * (2) every attic/N holds nothing that was not there right after its
 * move, a rename undone aside (undone_rename()); (3) dest holds no device, FIFO, socket or ".pfx-" temporary, and,
 * the attacker's own plants aside, no symlink with PFX_SYMLINKS_REFUSE,
 * and with PFX_SYMLINKS_CONTAIN only symlinks with relative targets that
 * openat2(RESOLVE_BENEATH) from dest resolves without leaving it; (4) no
 * victim inode is linked at a name only the extractor writes (hJ, gJ),
 * and the attacker's own links are removed before checks 1 and 3; (5) the
 * race was real: at least MIN_ACTIONS exchanges and moves while
 * pfx_extract() ran.  After every trial: (6) no descriptor leaked.
 */
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <criterion/criterion.h>
#include <criterion/logging.h>

#include "pfextract.h"
#include "fixture.h"

/* Directories d0..d7 of the archive. */
#define NDIRS 8

/*
 * Files dK/s/fJ per directory in the first pass: with the links and the
 * second pass about 4,500 entries, which take about half a second under
 * ASan on tmpfs with the attackers at work (more with the walk).
 */
#define NFILES 320

/*
 * Directories d0..d5 are moved out now and then; d6 and d7 only ever
 * swapped and planted in, so that dest keeps a part that the archive
 * wrote whole, for check 3 to look at.
 */
#define NMOVED 6

/* Victim files v0..v7 that planted links point at. */
#define NVICTIMS 8

/* Attacker threads; each owns the directories dK with K % NATTACKERS. */
#define NATTACKERS 2

/* Trials per resolver and symlink policy; $PFX_RACE_TRIALS (make soak)
 * asks for more, up to MAX_TRIALS. */
#define NTRIALS 3
#define MAX_TRIALS 1000

/* Exchanges and moves that must happen while pfx_extract() runs. */
#define MIN_ACTIONS 100

/* Moves to the attic per trial, each listed at once and checked later. */
#define MAX_MOVES 3000

/* Bytes of names the handler of (d) may record; it cannot malloc. */
#define ARENA_SIZE (16u << 20)

/* Room for the archive built in memory. */
#define ARCHIVE_CAP (32u << 20)

/* The longest $TMPDIR the fixture accepts. */
#define TOP_MAX 256

/* What every file of the archive holds. */
#define ARCHIVE_MARK "pfx-archive"

/* The mtime of the archive's entries. */
#define ENTRY_SEC 1300000000

/* Temporaries of the platform layer and of links.c start with this. */
#define TEMP_PREFIX ".pfx-"

/*
 * Entries per pause of (d).  Moves are rare next to exchanges and plants:
 * a directory moved out takes everything made in it along, and too many
 * leave dest nearly empty at the end, with nothing left to check.
 */
#define PAUSE_EVERY 16

/* How far ahead of the extractor the attacker of (c) plants. */
#define PLANT_AHEAD 8

/* Failures reported one by one before a check gives up reporting. */
#define MAX_REPORTS 10

/* pfx_extract() calls per trial at most: a stopped run is resumed. */
#define MAX_RUNS 400

/* What one entry of the archive is. */
enum step_kind {
	STEP_DIR,		/* dK/ or dK/s/ */
	STEP_FILE,		/* dK/s/fJ, first or second copy */
	STEP_NESTED,		/* dK/s/nJ/gJ: a file in a new directory */
	STEP_HARDLINK,		/* dK/s/hJ */
	STEP_SYMLINK		/* anything that is a symlink */
};

/* One entry of the archive, as the attacker of (c) needs to know it. */
struct step {
	char name[48];		/* the archive's name */
	char leaf[16];		/* what (c) plants at, in dK/s; "" if none */
	enum step_kind kind;
	unsigned int k;		/* it lies in dK */
	unsigned int j;
};

/* The archive and its steps, built once per test. */
struct plan {
	struct step *v;
	size_t n, cap;
	size_t tail;		/* the first of the symlinks at the end */
	char *buf;		/* the archive */
	size_t len;
};

/* A growable list of strings, sorted before it is searched. */
struct names {
	char **v;
	size_t n;
	size_t cap;
};

/* One move of a directory to the attic. */
struct move {
	bool used;		/* the move happened */
	bool listed;		/* SEEN is complete */
	bool paused;		/* by (d): SEEN is in the arena until the end */
	size_t off;		/* (d): the first name in the arena */
	size_t count;		/* (d): how many names */
	struct names seen;	/* attic/N right after the move */
};

/* One attacker thread and what it did. */
struct attacker {
	struct race *race;
	pthread_t tid;
	unsigned int id;
	unsigned int seed;
	unsigned long exchanges;	/* while pfx_extract() ran */
	unsigned long moves;		/* while pfx_extract() ran */
	unsigned long idle;		/* exchanges and moves outside it */
	unsigned long missed;		/* dK was not there (yet) */
	unsigned long symlink_windows;
	unsigned long symlinks;
	unsigned long dirlinks;
	unsigned long hardlinks;
	unsigned long stuck;	/* an exchange that could not be undone */
	int error;		/* first unexpected errno, or 0 */
	const char *error_what;
};

/*
 * Everything the extractor's hooks, the attackers and the signal handler
 * share, and everything teardown() releases, whether the test passed or
 * not.
 */
struct race {
	const struct plan *plan;
	char top[TOP_MAX];	/* "$TMPDIR/pfx-xrace.XXXXXX" */
	char victim[TOP_MAX + 16];	/* TOP/outside/victim */
	int topfd;
	int destfd;
	int outfd;
	int atticfd;
	int victim_sfd;		/* TOP/outside/victim/s */
	char *before;		/* the snapshot of TOP/outside */
	char *after;		/* and the one after the race */
	struct attacker att[NATTACKERS];
	unsigned int started;	/* attacker threads running */
	bool have_handler;
	struct sigaction old_sa;
	bool have_timer;
	timer_t timer;
	unsigned int timer_seed;	/* the extractor thread's own */
	struct timespec t0;	/* when pfx_extract() began */
	unsigned long decided;	/* decide() calls so far */
	atomic_bool done;
	atomic_bool extracting;	/* pfx_extract() is running */
	atomic_ulong during;	/* exchanges and moves while it runs */
	atomic_size_t cursor;	/* the step decide() saw last */
	size_t resume;		/* decide() skips the steps before it */
	unsigned long lost;	/* decide() calls not found in the plan */
	atomic_uint nmoves;	/* attic slots handed out */
	atomic_flag lock[NDIRS];	/* held while dK is being attacked */
	struct tfx_arena arena;	/* names recorded by (d) */
	unsigned long paused_moves;	/* (d) moves, by the handler */
	unsigned long paused_idle;	/* (d) moves after pfx_extract() */
	struct move moves[MAX_MOVES];
};

/* What one trial's checks of dest found. */
struct dest_scan {
	struct race *race;
	enum pfx_symlinks symlinks;
	const char *who;
	unsigned long plants;	/* the attacker's links, removed */
	unsigned long files;
	unsigned long links;	/* the archive's symlinks */
	unsigned long dangling;	/* of those, leading nowhere now */
	unsigned long bad;
	dev_t vdev;
	ino_t vino[NVICTIMS];
};

/* --- lists of names --------------------------------------------------- */

/* Append a copy of S to L.  0 or -ENOMEM. */
static int
names_add(struct names *l, const char *s)
{
	char **v;
	size_t cap;

	if (l->n == l->cap) {
		cap = l->cap == 0 ? 16 : 2 * l->cap;
		v = realloc(l->v, cap * sizeof(*v));
		if (v == NULL)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n] = strdup(s);
	if (l->v[l->n] == NULL)
		return -ENOMEM;
	l->n++;
	return 0;
}

static int
names_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
names_sort(struct names *l)
{
	if (l->n > 1)
		qsort(l->v, l->n, sizeof(*l->v), names_cmp);
}

/* Is S in L, which is sorted? */
static bool
names_has(const struct names *l, const char *s)
{
	if (l->n == 0)
		return false;
	return bsearch(&s, l->v, l->n, sizeof(*l->v), names_cmp) != NULL;
}

/* Free L's strings and array; L is empty afterwards. */
static void
names_free(struct names *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}

/* --- walking trees ---------------------------------------------------- */

/* Open the directory NAME in DIRFD for reading, never through a symlink. */
static int
open_dir_at(int dirfd, const char *name)
{
	return openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
}

/*
 * The visitor of walk_tree(): DIRFD/NAME is an entry, REL its name below
 * the top of the walk and ST its lstat.
 * Return: 0 to go on (into it, if a directory), 1 to skip it, or -errno
 * to stop the walk.
 */
typedef int visit_fn(int dirfd, const char *name, const char *rel,
    const struct stat *st, void *arg);

/*
 * Visit everything beneath the directory DIRFD (borrowed), parents before
 * their contents, in the order of tfx_read_names(), never following a
 * symlink.  The tree may be changing under the walk: an entry that
 * vanishes while we look is skipped.
 * Return: 0, or the first -errno.
 */
static int
walk_tree(int dirfd, const char *prefix, visit_fn *visit, void *arg)
{
	char rel[PATH_MAX], **v;
	struct stat st;
	ssize_t n, i;
	int sub, r = 0;

	n = tfx_read_names(dirfd, ".", &v);
	if (n < 0)
		return (int)n;
	for (i = 0; i < n && r == 0; i++) {
		if (fstatat(dirfd, v[i], &st, AT_SYMLINK_NOFOLLOW) == -1) {
			if (errno != ENOENT)
				r = -errno;
			continue;
		}
		if (prefix[0] == '\0')
			snprintf(rel, sizeof(rel), "%s", v[i]);
		else
			snprintf(rel, sizeof(rel), "%s/%s", prefix, v[i]);
		r = visit(dirfd, v[i], rel, &st, arg);
		if (r != 0 || !S_ISDIR(st.st_mode)) {
			if (r == 1)
				r = 0;
			continue;
		}
		sub = open_dir_at(dirfd, v[i]);
		if (sub == -1) {
			if (errno != ENOENT && errno != ENOTDIR &&
			    errno != ELOOP)
				r = -errno;
			continue;
		}
		r = walk_tree(sub, rel, visit, arg);
		close(sub);
	}
	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
	return r;
}

/* Collect every name below the top of the walk into the names ARG. */
static int
collect_visit(int dirfd, const char *name, const char *rel,
    const struct stat *st, void *arg)
{
	(void)dirfd;
	(void)name;
	(void)st;
	return names_add(arg, rel);
}

/* List the directory NAME in DIRFD recursively into *OUT, sorted. */
static int
list_dir(int dirfd, const char *name, struct names *out)
{
	int fd, r;

	fd = open_dir_at(dirfd, name);
	if (fd == -1)
		return -errno;
	r = walk_tree(fd, "", collect_visit, out);
	close(fd);
	names_sort(out);
	return r;
}

/* --- the archive ------------------------------------------------------ */

/* Note the next entry of the archive in P. */
static struct step *
plan_add(struct plan *p, enum step_kind kind, unsigned int k, unsigned int j)
{
	struct step *v;
	size_t cap;

	if (p->n == p->cap) {
		cap = p->cap == 0 ? 1024 : 2 * p->cap;
		v = realloc(p->v, cap * sizeof(*v));
		cr_assert(v != NULL, "plan: realloc");
		p->v = v;
		p->cap = cap;
	}
	v = &p->v[p->n++];
	memset(v, 0, sizeof(*v));
	v->kind = kind;
	v->k = k;
	v->j = j;
	return v;
}

/* Write the entry E with LEN bytes of DATA to A, and free E. */
static void
write_entry(struct archive *a, struct archive_entry *e, const char *data,
    size_t len)
{
	int r;

	r = archive_write_header(a, e);
	cr_assert(r == ARCHIVE_OK || r == ARCHIVE_WARN, "write header %s: %s",
	    archive_entry_pathname(e), archive_error_string(a));
	if (len > 0)
		cr_assert(archive_write_data(a, data, len) == (la_ssize_t)len,
		    "write data %s: %s", archive_entry_pathname(e),
		    archive_error_string(a));
	archive_entry_free(e);
}

/* A new entry NAME of TYPE with PERM. */
static struct archive_entry *
new_entry(const char *name, mode_t type, mode_t perm)
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

/* Add the directory dK/ (SUB false) or dK/s/ to the archive. */
static void
add_dir(struct archive *a, struct plan *p, unsigned int k, bool sub)
{
	struct step *s = plan_add(p, STEP_DIR, k, 0);

	snprintf(s->name, sizeof(s->name), sub ? "d%u/s/" : "d%u/", k);
	write_entry(a, new_entry(s->name, AE_IFDIR, 0755), NULL, 0);
}

/* Add dK/s/fJ, or dK/s/nJ/gJ if NESTED, copy PASS, to the archive. */
static void
add_file(struct archive *a, struct plan *p, unsigned int k, unsigned int j,
    bool nested, unsigned int pass)
{
	struct archive_entry *e;
	struct step *s;
	char data[128];
	int len;

	s = plan_add(p, nested ? STEP_NESTED : STEP_FILE, k, j);
	if (nested) {
		snprintf(s->name, sizeof(s->name), "d%u/s/n%u/g%u", k, j, j);
		snprintf(s->leaf, sizeof(s->leaf), "n%u", j);
	} else {
		snprintf(s->name, sizeof(s->name), "d%u/s/f%u", k, j);
		snprintf(s->leaf, sizeof(s->leaf), "f%u", j);
	}
	len = snprintf(data, sizeof(data), "%s %s copy %u\n", ARCHIVE_MARK,
	    s->name, pass);
	e = new_entry(s->name, AE_IFREG, 0644);
	archive_entry_set_size(e, len);
	write_entry(a, e, data, (size_t)len);
}

/* Add the hard link dK/s/hJ to dK/s/f(J-1). */
static void
add_hardlink(struct archive *a, struct plan *p, unsigned int k,
    unsigned int j)
{
	struct archive_entry *e;
	struct step *s;
	char target[48];

	s = plan_add(p, STEP_HARDLINK, k, j);
	snprintf(s->name, sizeof(s->name), "d%u/s/h%u", k, j);
	snprintf(target, sizeof(target), "d%u/s/f%u", k, j - 1);
	e = new_entry(s->name, AE_IFREG, 0644);
	archive_entry_set_hardlink(e, target);
	write_entry(a, e, NULL, 0);
}

/* Add the symlink NAME -> TARGET, in dK. */
static void
add_symlink(struct archive *a, struct plan *p, unsigned int k,
    const char *name, const char *target)
{
	struct archive_entry *e;
	struct step *s;

	s = plan_add(p, STEP_SYMLINK, k, 0);
	snprintf(s->name, sizeof(s->name), "%s", name);
	if (strchr(name, '/') != strrchr(name, '/'))
		snprintf(s->leaf, sizeof(s->leaf), "%s",
		    strrchr(name, '/') + 1);	/* in dK/s: (c) plants there */
	e = new_entry(name, AE_IFLNK, 0777);
	archive_entry_set_symlink(e, target);
	write_entry(a, e, NULL, 0);
}

/* The five symlinks of file J in dK: two inside, three leading out. */
static void
add_symlinks(struct archive *a, struct plan *p, unsigned int k,
    unsigned int j)
{
	char name[48], target[64];

	snprintf(name, sizeof(name), "d%u/s/l%u", k, j);
	snprintf(target, sizeof(target), "f%u", j);
	add_symlink(a, p, k, name, target);
	snprintf(name, sizeof(name), "d%u/s/u%u", k, j);
	snprintf(target, sizeof(target), "../../d%u/s/f0", (k + 1) % NDIRS);
	add_symlink(a, p, k, name, target);
	snprintf(name, sizeof(name), "d%u/s/e%u", k, j);
	add_symlink(a, p, k, name, "../../../outside/victim/s/v0");
	snprintf(name, sizeof(name), "d%u/s/c%u", k, j);
	add_symlink(a, p, k, name, "../up/..");
	snprintf(name, sizeof(name), "d%u/s/a%u", k, j);
	add_symlink(a, p, k, name, "/etc/hostname");
}

/* Build the archive drawn at the top of this file into P. */
static void
build_plan(struct plan *p)
{
	struct archive *a;
	char name[48], target[48];
	size_t used = 0;
	unsigned int j, k;

	memset(p, 0, sizeof(*p));
	p->buf = malloc(ARCHIVE_CAP);
	cr_assert(p->buf != NULL, "malloc");
	a = archive_write_new();
	cr_assert(a != NULL, "archive_write_new");
	cr_assert(archive_write_set_format_pax(a) == ARCHIVE_OK);
	cr_assert(archive_write_open_memory(a, p->buf, ARCHIVE_CAP, &used) ==
	    ARCHIVE_OK, "open memory: %s", archive_error_string(a));
	for (k = 0; k < NDIRS; k++) {
		add_dir(a, p, k, false);
		add_dir(a, p, k, true);
	}
	for (j = 0; j < NFILES; j++) {
		for (k = 0; k < NDIRS; k++) {
			add_file(a, p, k, j, false, 1);
			if (j % 10 == 9)
				add_hardlink(a, p, k, j);
			if (j % 25 == 12)
				add_file(a, p, k, j, true, 1);
		}
	}
	/* Duplicates: each replaces an earlier entry of the same name. */
	for (j = 0; j < NFILES; j += 3) {
		for (k = 0; k < NDIRS; k++)
			add_file(a, p, k, j, false, 2);
	}
	for (k = 0; k < NDIRS; k++)
		add_dir(a, p, k, true);
	/*
	 * The symlinks last: with --symlinks=contain they are made only by a
	 * run that reads them all and ends without a fatal error, and
	 * run_trial() resumes a stopped run where it stopped.
	 */
	p->tail = p->n;
	for (j = 5; j < NFILES; j += 20) {
		for (k = 0; k < NDIRS; k++)
			add_symlinks(a, p, k, j);
	}
	for (k = 0; k < NDIRS; k++) {
		snprintf(name, sizeof(name), "d%u/up", k);
		add_symlink(a, p, k, name, "..");
		snprintf(name, sizeof(name), "d%u/sl", k);
		add_symlink(a, p, k, name, "s");
		for (j = 1; j < NFILES; j += 97) {
			snprintf(name, sizeof(name), "d%u/s/f%u", k, j);
			snprintf(target, sizeof(target), "f%u", j + 1);
			add_symlink(a, p, k, name, target);
		}
	}
	cr_assert(archive_write_close(a) == ARCHIVE_OK, "close: %s",
	    archive_error_string(a));
	archive_write_free(a);
	p->len = used;
}

static void
free_plan(struct plan *p)
{
	free(p->v);
	free(p->buf);
	memset(p, 0, sizeof(*p));
}

/* --- the fixture ------------------------------------------------------ */

/* Make the new file NAME in DIRFD holding TEXT, or fail the test. */
static void
write_file_at(int dirfd, const char *name, const char *text)
{
	int fd;

	fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
	    0644);
	cr_assert(fd >= 0, "create %s: %s", name, strerror(errno));
	cr_assert(write(fd, text, strlen(text)) == (ssize_t)strlen(text),
	    "write %s", name);
	close(fd);
}

/* Make the directory NAME in DIRFD, or fail the test. */
static void
mkdir_at(int dirfd, const char *name)
{
	cr_assert(mkdirat(dirfd, name, 0755) == 0, "mkdir %s: %s", name,
	    strerror(errno));
}

/* Build the fixture drawn at the top of this file. */
static void
make_fixture(struct race *r)
{
	const char *tmp = getenv("TMPDIR");
	char name[32], text[64];
	unsigned int k;
	int fd;

	if (tmp == NULL || tmp[0] == '\0')
		tmp = "/tmp";
	cr_assert(strlen(tmp) < TOP_MAX - 32, "TMPDIR is too long");
	snprintf(r->top, sizeof(r->top), "%s/pfx-xrace.XXXXXX", tmp);
	cr_assert(mkdtemp(r->top) != NULL, "mkdtemp: %s", strerror(errno));
	snprintf(r->victim, sizeof(r->victim), "%s/outside/victim", r->top);
	r->topfd = open_dir_at(AT_FDCWD, r->top);
	cr_assert(r->topfd >= 0);
	mkdir_at(r->topfd, "dest");
	mkdir_at(r->topfd, "outside");
	mkdir_at(r->topfd, "attic");
	r->destfd = open_dir_at(r->topfd, "dest");
	r->outfd = open_dir_at(r->topfd, "outside");
	r->atticfd = open_dir_at(r->topfd, "attic");
	cr_assert(r->destfd >= 0 && r->outfd >= 0 && r->atticfd >= 0);
	for (k = 0; k < NDIRS; k++) {
		snprintf(name, sizeof(name), "swap%u", k);
		cr_assert(symlinkat(r->victim, r->outfd, name) == 0);
	}
	write_file_at(r->outfd, "keep", "outside sentinel\n");
	mkdir_at(r->outfd, "victim");
	fd = open_dir_at(r->outfd, "victim");
	cr_assert(fd >= 0);
	write_file_at(fd, "keep", "victim sentinel\n");
	mkdir_at(fd, "s");
	r->victim_sfd = open_dir_at(fd, "s");
	close(fd);
	cr_assert(r->victim_sfd >= 0);
	mkdir_at(r->victim_sfd, "deeper");
	for (k = 0; k < NVICTIMS; k++) {
		snprintf(name, sizeof(name), "v%u", k);
		snprintf(text, sizeof(text), "victim v%u\n", k);
		write_file_at(r->victim_sfd, name, text);
	}
}

/* --- the attackers ---------------------------------------------------- */

/* Note the first thing that went wrong in an attacker, with errno. */
static void
attacker_error(struct attacker *a, const char *what)
{
	if (a->error == 0) {
		a->error = errno != 0 ? errno : EIO;
		a->error_what = what;
	}
}

/*
 * Sleep a few microseconds or yield, so that the extractor gets to run
 * in the window the attacker has opened.
 */
static void
pause_briefly(unsigned int *seed)
{
	struct timespec ts;

	switch (rand_r(seed) % 4) {
	case 0:
		break;
	case 1:
		sched_yield();
		break;
	default:
		ts.tv_sec = 0;
		ts.tv_nsec = 1000 + rand_r(seed) % 4000;
		nanosleep(&ts, NULL);
		break;
	}
}

/*
 * Rest between attacks for some microseconds: on two CPUs, attackers that
 * never rest starve the extractor and make the test slow, not sharper.
 */
static void
rest(unsigned int *seed)
{
	struct timespec ts;

	ts.tv_sec = 0;
	ts.tv_nsec = 5000 + rand_r(seed) % 20000;
	nanosleep(&ts, NULL);
}

/* Count an exchange or a move, by whether pfx_extract() was running. */
static void
count_action(struct attacker *a, unsigned long *during)
{
	if (atomic_load(&a->race->extracting)) {
		(*during)++;
		atomic_fetch_add(&a->race->during, 1);
	} else {
		a->idle++;
	}
}

/*
 * Keep the race real however fast the extractor is: when the attackers
 * are behind the pace that gives MIN_ACTIONS over the archive (they may
 * get no CPU for a while: the tests run two at a time on two CPUs), the
 * extractor waits for them, 100 us at a time, 100 ms at most, at this
 * entry.  A race of fewer than MIN_ACTIONS still fails check 5.
 */
static void
keep_pace(struct race *r, size_t at)
{
	struct timespec ts = { 0, 100000L };
	unsigned long want = MIN_ACTIONS * (unsigned long)(at + 1) /
	    (unsigned long)r->plan->n + 1;
	int i;

	for (i = 0; i < 1000 && atomic_load(&r->during) < want; i++)
		(void)nanosleep(&ts, NULL);
}

/* Open dest/dK/s one component at a time, without following symlinks. */
static int
open_sub(const struct race *r, unsigned int k)
{
	char name[16];
	int dfd, sfd;

	snprintf(name, sizeof(name), "d%u", k);
	dfd = open_dir_at(r->destfd, name);
	if (dfd == -1)
		return -1;
	sfd = open_dir_at(dfd, "s");
	close(dfd);
	return sfd;
}

/* Attack (a): dest/dK is a symlink to the victim for a moment. */
static void
attack_exchange(struct attacker *a, unsigned int k)
{
	struct race *r = a->race;
	char dname[16], sname[16];
	int tries;

	snprintf(dname, sizeof(dname), "d%u", k);
	snprintf(sname, sizeof(sname), "swap%u", k);
	if (renameat2(r->destfd, dname, r->outfd, sname,
	    RENAME_EXCHANGE) == -1) {
		if (errno == ENOENT)
			a->missed++;	/* the archive has not made dK yet */
		else
			attacker_error(a, "exchange");
		return;
	}
	pause_briefly(&a->seed);
	for (tries = 0; tries < 1000; tries++) {
		if (renameat2(r->destfd, dname, r->outfd, sname,
		    RENAME_EXCHANGE) == 0)
			break;
		attacker_error(a, "exchange back");
	}
	if (tries == 1000)
		a->stuck++;
	count_action(a, &a->exchanges);
}

/* Attack (b): move dK or dK/s to the attic, list it, then make it again. */
static void
attack_move(struct attacker *a, unsigned int k)
{
	struct race *r = a->race;
	struct move *m;
	char from[32], to[16], target[TOP_MAX + 64];
	unsigned int n;
	bool sub = rand_r(&a->seed) % 2 == 0;
	int dfd;

	n = atomic_fetch_add(&r->nmoves, 1);
	if (n >= MAX_MOVES)
		return;
	m = &r->moves[n];
	snprintf(from, sizeof(from), sub ? "d%u/s" : "d%u", k);
	snprintf(to, sizeof(to), "%u", n);
	if (renameat(r->destfd, from, r->atticfd, to) == -1) {
		if (errno == ENOENT || errno == ENOTDIR)
			a->missed++;	/* dK or dK/s not made yet */
		else
			attacker_error(a, "move to the attic");
		return;
	}
	m->used = true;
	/* At once: what appears in attic/N later must not persist. */
	if (list_dir(r->atticfd, to, &m->seen) == 0)
		m->listed = true;
	else
		attacker_error(a, "list the attic");
	count_action(a, &a->moves);

	snprintf(from, sizeof(from), "d%u", k);
	if (mkdirat(r->destfd, from, 0755) == -1 && errno != EEXIST)
		attacker_error(a, "mkdir dK");
	dfd = open_dir_at(r->destfd, from);
	if (dfd == -1) {
		attacker_error(a, "open dK");
		return;
	}
	if (sub && rand_r(&a->seed) % 2 == 0) {
		snprintf(target, sizeof(target), "%s/s", r->victim);
		if (symlinkat(target, dfd, "s") == 0) {
			pause_briefly(&a->seed);
			if (unlinkat(dfd, "s", 0) == -1)
				attacker_error(a, "unlink the s symlink");
			a->symlink_windows++;
		}
	}
	if (mkdirat(dfd, "s", 0755) == -1 && errno != EEXIST)
		attacker_error(a, "mkdir dK/s");
	close(dfd);
}

/*
 * Attack (c): at one of the next entries in dK the extractor will write,
 * put a symlink or a hard link to a victim file (a file entry) or a
 * symlink to a victim directory (the new directory of a nested file).
 */
static void
attack_plant(struct attacker *a, unsigned int k)
{
	struct race *r = a->race;
	const struct plan *p = r->plan;
	const struct step *s = NULL;
	char target[TOP_MAX + 64];
	size_t i, at = atomic_load(&r->cursor);
	unsigned int v;
	int sfd;

	/*
	 * In the symlinks at the end, which are all made at once after the
	 * last is read, any of them is about to be written.
	 */
	if (at >= p->tail && p->tail < p->n)
		at = p->tail + (size_t)rand_r(&a->seed) % (p->n - p->tail);
	for (i = at + rand_r(&a->seed) % 3; i < at + PLANT_AHEAD &&
	    i < p->n; i++) {
		if (p->v[i].k == k && p->v[i].leaf[0] != '\0') {
			s = &p->v[i];
			break;
		}
	}
	if (s == NULL)
		return;
	sfd = open_sub(r, k);
	if (sfd == -1)
		return;	/* not made yet, or being made again */
	v = s->j % NVICTIMS;
	if (s->kind == STEP_NESTED) {
		(void)unlinkat(sfd, s->leaf, AT_REMOVEDIR);
		snprintf(target, sizeof(target), "%s/s/deeper", r->victim);
		if (symlinkat(target, sfd, s->leaf) == 0)
			a->dirlinks++;
	} else if (rand_r(&a->seed) % 2 == 0) {
		(void)unlinkat(sfd, s->leaf, 0);
		snprintf(target, sizeof(target), "v%u", v);
		/* Root ignores fs.protected_hardlinks. */
		if (linkat(r->victim_sfd, target, sfd, s->leaf, 0) == 0)
			a->hardlinks++;
	} else {
		(void)unlinkat(sfd, s->leaf, 0);
		snprintf(target, sizeof(target), "%s/s/v%u", r->victim, v);
		if (symlinkat(target, sfd, s->leaf) == 0)
			a->symlinks++;
	}
	close(sfd);
}

/* Take the lock of dK, waiting for it. */
static void
lock_dir(struct race *r, unsigned int k)
{
	while (atomic_flag_test_and_set(&r->lock[k]))
		sched_yield();
}

/* Release the lock of dK. */
static void
unlock_dir(struct race *r, unsigned int k)
{
	atomic_flag_clear(&r->lock[k]);
}

/* An attacker thread: attacks (a) to (c) on its own dK until DONE. */
static void *
attacker_main(void *arg)
{
	struct attacker *a = arg;
	struct race *r = a->race;
	unsigned int k, what;

	/* Sleep for microseconds, not for the default 50 us of slack. */
	(void)prctl(PR_SET_TIMERSLACK, 1UL);
	while (!atomic_load(&r->done)) {
		k = a->id + NATTACKERS * (rand_r(&a->seed) %
		    (NDIRS / NATTACKERS));
		what = rand_r(&a->seed) % 32;
		lock_dir(r, k);
		if (what < 12)
			attack_exchange(a, k);
		else if (what < 13 && k < NMOVED &&
		    atomic_load(&r->nmoves) < MAX_MOVES)
			attack_move(a, k);
		else
			attack_plant(a, k);
		unlock_dir(r, k);
		rest(&a->seed);
	}
	return NULL;
}

/* --- (d): moves while the extractor is stopped ------------------------ */

/* The race the signal handler of (d) works on, while pfx_extract() runs. */
static struct race *paused_race;

/*
 * Attack (d), run by the signal handler in the extractor's thread: move
 * the dK (or dK/s) of the entry being extracted to the attic, list it
 * exactly, and make it again.  The handler must not wait, so a dK whose
 * attacker is at work is left alone.
 */
static void
pause_move(struct race *r)
{
	char dname[16], nname[16], rel[PATH_MAX];
	size_t at = atomic_load(&r->cursor);
	unsigned int k, n;
	struct move *m;
	bool sub;
	int dfd, lfd, e;

	if (at >= r->plan->n)
		return;
	k = r->plan->v[at].k;
	if (k >= NMOVED || atomic_flag_test_and_set(&r->lock[k]))
		return;
	n = atomic_fetch_add(&r->nmoves, 1);
	if (n >= MAX_MOVES)
		goto out;
	m = &r->moves[n];
	tfx_format_name(dname, "d", k);
	tfx_format_name(nname, "", n);
	sub = n % 2 == 0;
	dfd = open_dir_at(r->destfd, dname);
	if (dfd == -1)
		goto out;
	if (sub)
		e = renameat(dfd, "s", r->atticfd, nname);
	else
		e = renameat(r->destfd, dname, r->atticfd, nname);
	if (e == -1) {
		close(dfd);
		goto out;
	}
	m->used = true;
	m->paused = true;
	m->off = r->arena.len;
	rel[0] = '\0';
	lfd = open_dir_at(r->atticfd, nname);
	m->listed = lfd >= 0 &&
	    tfx_arena_list(&r->arena, lfd, rel, 0, &m->count);
	if (lfd >= 0)
		close(lfd);
	if (!sub) {
		close(dfd);
		(void)mkdirat(r->destfd, dname, 0755);
		dfd = open_dir_at(r->destfd, dname);
	}
	if (dfd >= 0) {
		(void)mkdirat(dfd, "s", 0755);
		close(dfd);
	}
	if (atomic_load(&r->extracting))
		r->paused_moves++;
	else
		r->paused_idle++;
out:
	atomic_flag_clear(&r->lock[k]);
}

/* SIGUSR1, from the timer of (d): attack while the extractor is stopped. */
static void
on_pause_signal(int sig)
{
	struct race *r = paused_race;
	int saved = errno;

	(void)sig;
	if (r != NULL && !atomic_load(&r->done))
		pause_move(r);
	errno = saved;
}

/* Seconds since *T0 on the monotonic clock. */
static double
seconds_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) +
	    (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

/*
 * The decide() hook, in the extractor's thread: tell the attackers which
 * entry is about to be written, and arm the timer of (d) for a random
 * moment of it, judged by the average time an entry has taken so far.
 */
static int
on_decide(void *arg, const struct pfx_entry *entry, char *rename,
    size_t cap)
{
	struct race *r = arg;
	const struct plan *p = r->plan;
	struct itimerspec its;
	size_t i, at = atomic_load(&r->cursor);
	long avg_ns, ns;

	(void)rename;
	(void)cap;
	for (i = at; i < p->n && i < at + 64; i++) {
		if (strcmp(p->v[i].name, entry->name) == 0) {
			atomic_store(&r->cursor, i);
			break;
		}
	}
	if (i == p->n || i == at + 64)
		r->lost++;
	else if (i < r->resume)
		return PFX_HOOK_SKIP;	/* a stopped run got this far */
	r->decided++;
	if (r->decided % PAUSE_EVERY != 0)
		return PFX_HOOK_CONTINUE;
	keep_pace(r, atomic_load(&r->cursor));
	if (!r->have_timer)
		return PFX_HOOK_CONTINUE;
	avg_ns = (long)(seconds_since(&r->t0) * 1e9 / (double)r->decided);
	if (avg_ns < 2000)
		avg_ns = 2000;
	ns = 1000 + (long)((unsigned long)rand_r(&r->timer_seed) %
	    (unsigned long)avg_ns);
	memset(&its, 0, sizeof(its));
	its.it_value.tv_sec = ns / 1000000000L;
	its.it_value.tv_nsec = ns % 1000000000L;
	(void)timer_settime(r->timer, 0, &its, NULL);
	return PFX_HOOK_CONTINUE;
}

/* --- the checks ------------------------------------------------------- */

/*
 * Is the name NOW[I], a temporary that appeared in a directory after it
 * was moved out, the source of a rename that was undone?  pfx_root_rename()
 * renames a temporary symlink over its final name (links.c make_link()),
 * sees the directory outside and renames it back: the listing may hold
 * the final name, gone now, and the temporary is back as it was before
 * the move.  So SEEN must hold a name beside it that NOW lacks.
 */
static bool
undone_rename(const struct names *seen, const struct names *now, size_t i)
{
	const char *slash = strrchr(now->v[i], '/');
	const char *leaf = slash != NULL ? slash + 1 : now->v[i];
	size_t plen = slash != NULL ? (size_t)(slash - now->v[i]) + 1 : 0;
	size_t j;

	if (strncmp(leaf, TEMP_PREFIX, strlen(TEMP_PREFIX)) != 0)
		return false;
	for (j = 0; j < seen->n; j++) {
		const char *s = seen->v[j];

		if (strncmp(s, now->v[i], plen) != 0 ||
		    strchr(s + plen, '/') != NULL)
			continue;	/* not beside it */
		if (!names_has(now, s))
			return true;
	}
	return false;
}

/*
 * Check 2: what is in attic/N now must be a subset of what was there
 * right after the move.  Not equality: the extractor may have been
 * working in the directory when it moved, and what it made there before
 * the listing is removed again when its check sees the directory outside.
 * Anything made after the listing must be gone by the time the call that
 * made it returns; the one exception is a rename undone (undone_rename()),
 * which puts back the state from before the move.  *UNDONE counts those.
 * Return: the number of failures.
 */
static unsigned int
check_attic(const struct race *r, const char *who, unsigned long *undone)
{
	struct names now;
	char name[16];
	unsigned int n, nmoves, bad = 0;
	size_t i;
	int e;

	*undone = 0;
	nmoves = atomic_load(&r->nmoves);
	if (nmoves > MAX_MOVES)
		nmoves = MAX_MOVES;
	for (n = 0; n < nmoves; n++) {
		const struct move *m = &r->moves[n];

		if (!m->used || !m->listed)
			continue;
		memset(&now, 0, sizeof(now));
		snprintf(name, sizeof(name), "%u", n);
		e = list_dir(r->atticfd, name, &now);
		if (e < 0) {
			if (bad++ < MAX_REPORTS)
				cr_log_error("%s: attic/%u: cannot list: %s",
				    who, n, strerror(-e));
			names_free(&now);
			continue;
		}
		for (i = 0; i < now.n; i++) {
			if (names_has(&m->seen, now.v[i]))
				continue;
			if (undone_rename(&m->seen, &now, i)) {
				(*undone)++;
				continue;
			}
			if (bad++ < MAX_REPORTS)
				cr_log_error("%s: attic/%u/%s appeared after "
				    "the directory (%s) was moved out of dest",
				    who, n, now.v[i], m->paused ?
				    "extractor stopped" : "extractor running");
		}
		names_free(&now);
	}
	return bad;
}

/* Is ST one of the victim files v0..v7?  Its number, or -1. */
static int
victim_of(const struct dest_scan *ds, const struct stat *st)
{
	unsigned int i;

	if (!S_ISREG(st->st_mode) || st->st_dev != ds->vdev)
		return -1;
	for (i = 0; i < NVICTIMS; i++) {
		if (st->st_ino == ds->vino[i])
			return (int)i;
	}
	return -1;
}

/* Is the leaf NAME one that only the extractor writes (hJ, gJ)? */
static bool
extractor_only(const char *name)
{
	return (name[0] == 'h' || name[0] == 'g') && name[1] >= '0' &&
	    name[1] <= '9';
}

/* Report one failure of a dest or attic scan. */
static void
scan_fail(struct dest_scan *ds, const char *rel, const char *what)
{
	if (ds->bad++ < MAX_REPORTS)
		cr_log_error("%s: %s: %s", ds->who, rel, what);
}

/*
 * Remove what the attacker planted and left: symlinks into the victim
 * (no archive symlink has an absolute target beneath TOP) and hard links
 * to victim files, which raised their link counts.  A victim inode at a
 * name the attacker never plants at was linked by the extractor.
 */
static int
unplant_visit(int dirfd, const char *name, const char *rel,
    const struct stat *st, void *arg)
{
	struct dest_scan *ds = arg;
	char target[PATH_MAX];
	size_t vlen = strlen(ds->race->victim);
	ssize_t n;

	if (S_ISLNK(st->st_mode)) {
		n = readlinkat(dirfd, name, target, sizeof(target) - 1);
		if (n < 0)
			return -errno;
		target[n] = '\0';
		if (strncmp(target, ds->race->victim, vlen) != 0)
			return 0;
		if (unlinkat(dirfd, name, 0) == -1)
			return -errno;
		ds->plants++;
		return 0;
	}
	if (victim_of(ds, st) < 0)
		return 0;
	if (extractor_only(name))
		scan_fail(ds, rel, "a victim file is linked here, at a name "
		    "the attacker never plants at");
	if (unlinkat(dirfd, name, 0) == -1)
		return -errno;
	ds->plants++;
	return 0;
}

/*
 * Resolve the symlink REL from dest as the kernel would, beneath dest.
 * Return: 0 if it stays inside, else -errno (-EXDEV: it leads out).
 */
static int
resolve_beneath(int destfd, const char *rel, bool in_root)
{
	struct open_how how;
	long fd;
	int tries;

	memset(&how, 0, sizeof(how));
	how.flags = O_PATH | O_CLOEXEC;
	how.resolve = (in_root ? RESOLVE_IN_ROOT : RESOLVE_BENEATH) |
	    RESOLVE_NO_MAGICLINKS;
	for (tries = 0; tries < 16; tries++) {
		fd = syscall(SYS_openat2, destfd, rel, &how, sizeof(how));
		if (fd >= 0) {
			close((int)fd);
			return 0;
		}
		if (errno != EAGAIN)
			break;
	}
	return -errno;
}

/* Check 3: what dest may hold, by the symlink policy. */
static int
dest_visit(int dirfd, const char *name, const char *rel,
    const struct stat *st, void *arg)
{
	struct dest_scan *ds = arg;
	char target[PATH_MAX], msg[PATH_MAX + 64];
	ssize_t n;
	int e;

	if (strncmp(name, TEMP_PREFIX, strlen(TEMP_PREFIX)) == 0) {
		n = S_ISLNK(st->st_mode) ? readlinkat(dirfd, name, target,
		    sizeof(target) - 1) : -1;
		target[n > 0 ? n : 0] = '\0';
		snprintf(msg, sizeof(msg), "a temporary (%c%s%s) was left "
		    "behind", tfx_kind_of(st->st_mode), n > 0 ? " -> " : "",
		    target);
		scan_fail(ds, rel, msg);
	}
	if (S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode) ||
	    S_ISFIFO(st->st_mode) || S_ISSOCK(st->st_mode))
		scan_fail(ds, rel, "a device, FIFO or socket");
	if (S_ISREG(st->st_mode))
		ds->files++;
	if (!S_ISLNK(st->st_mode))
		return 0;
	ds->links++;
	if (ds->symlinks == PFX_SYMLINKS_REFUSE) {
		scan_fail(ds, rel, "a symlink, with PFX_SYMLINKS_REFUSE");
		return 0;
	}
	n = readlinkat(dirfd, name, target, sizeof(target) - 1);
	if (n < 0)
		return -errno;
	target[n] = '\0';
	/* --symlinks=root: "/" is dest, as in a chroot. */
	if (target[0] == '/' && ds->symlinks != PFX_SYMLINKS_ROOT) {
		snprintf(msg, sizeof(msg), "a symlink to the absolute %s",
		    target);
		scan_fail(ds, rel, msg);
		return 0;
	}
	e = resolve_beneath(ds->race->destfd, rel,
	    ds->symlinks == PFX_SYMLINKS_ROOT);
	if (e == -ENOENT || e == -ENOTDIR) {
		ds->dangling++;	/* what it led to was moved out */
		return 0;
	}
	if (e < 0) {
		snprintf(msg, sizeof(msg), "the symlink -> %s does not "
		    "resolve beneath dest: %s", target, strerror(-e));
		scan_fail(ds, rel, msg);
	}
	return 0;
}

/* Checks 3 and 4 on dest, and the attacker's plants removed everywhere. */
static unsigned long
check_dest(struct race *r, enum pfx_symlinks symlinks, const char *who,
    struct dest_scan *ds)
{
	struct stat st;
	char name[16];
	unsigned int i;
	int e;

	memset(ds, 0, sizeof(*ds));
	ds->race = r;
	ds->symlinks = symlinks;
	ds->who = who;
	for (i = 0; i < NVICTIMS; i++) {
		snprintf(name, sizeof(name), "v%u", i);
		if (fstatat(r->victim_sfd, name, &st,
		    AT_SYMLINK_NOFOLLOW) == -1)
			continue;	/* the snapshot will tell */
		ds->vdev = st.st_dev;
		ds->vino[i] = st.st_ino;
	}
	e = walk_tree(r->destfd, "", unplant_visit, ds);
	cr_assert(e == 0, "%s: walk dest: %s", who, strerror(-e));
	e = walk_tree(r->atticfd, "", unplant_visit, ds);
	cr_assert(e == 0, "%s: walk the attic: %s", who, strerror(-e));
	e = walk_tree(r->destfd, "", dest_visit, ds);
	cr_assert(e == 0, "%s: walk dest: %s", who, strerror(-e));
	return ds->bad;
}

/* Check 1: TOP/outside is exactly as it was, and TOP holds nothing new. */
static void
check_outside(struct race *r, const char *who)
{
	static const char *const top_names[] = { "attic", "dest", "outside" };
	char name[16], target[PATH_MAX], **v;
	unsigned int k;
	ssize_t n, i;

	/* The attacker always exchanges back: every swapK is a symlink. */
	for (k = 0; k < NDIRS; k++) {
		snprintf(name, sizeof(name), "swap%u", k);
		n = readlinkat(r->outfd, name, target, sizeof(target) - 1);
		cr_assert(n > 0, "%s: outside/%s is no longer a symlink", who,
		    name);
		target[n] = '\0';
		cr_assert_str_eq(target, r->victim,
		    "%s: outside/%s points elsewhere", who, name);
	}
	r->after = tfx_snapshot(r->outfd, TFX_SNAP_NO_TOP);
	tfx_expect_same_snapshot(who, "outside", r->before, r->after);

	n = tfx_read_names(r->topfd, ".", &v);
	cr_assert(n >= 0, "%s: list TOP: %s", who, strerror((int)-n));
	cr_expect(n == 3, "%s: TOP holds %zd names, not 3", who, n);
	for (i = 0; i < n; i++) {
		if (i < 3)
			cr_expect_str_eq(v[i], top_names[i],
			    "%s: TOP/%s appeared", who, v[i]);
		free(v[i]);
	}
	free(v);
}

/* --- running the race ------------------------------------------------- */

/* The race of the running trial, for teardown(). */
static struct race *current;

/* The archive of the running test, for teardown(). */
static struct plan the_plan;

/* Turn the names (d) recorded in the arena into each move's SEEN. */
static void
collect_paused(struct race *r)
{
	const char *p;
	size_t i, j;

	for (i = 0; i < MAX_MOVES; i++) {
		struct move *m = &r->moves[i];

		if (!m->paused || !m->listed)
			continue;
		p = r->arena.buf + m->off;
		for (j = 0; j < m->count; j++) {
			cr_assert(names_add(&m->seen, p) == 0);
			p += strlen(p) + 1;
		}
		names_sort(&m->seen);
	}
}

/*
 * Stop the race: no more pauses, every attacker joined, the signal
 * disposition restored.  Safe to call twice.
 */
static void
stop_race(struct race *r)
{
	struct itimerspec off;
	unsigned int i;

	/* A signal still pending finds DONE and does nothing. */
	atomic_store(&r->done, true);
	if (r->have_timer) {
		memset(&off, 0, sizeof(off));
		(void)timer_settime(r->timer, 0, &off, NULL);
		(void)timer_delete(r->timer);
		r->have_timer = false;
	}
	for (i = 0; i < r->started; i++)
		(void)pthread_join(r->att[i].tid, NULL);
	r->started = 0;
	if (r->have_handler) {
		(void)sigaction(SIGUSR1, &r->old_sa, NULL);
		r->have_handler = false;
	}
	paused_race = NULL;
}

/* Close every descriptor the race holds.  Safe to call twice. */
static void
close_race(struct race *r)
{
	int *fds[] = {
		&r->victim_sfd, &r->atticfd, &r->outfd, &r->destfd, &r->topfd
	};
	size_t i;

	for (i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}

/* Release the race of the running trial: stop it, remove it, free it. */
static void
end_trial(void)
{
	struct race *r = current;
	size_t i;
	int e;

	if (r == NULL)
		return;
	stop_race(r);
	close_race(r);
	if (r->top[0] != '\0') {
		e = tfx_rm_tree(r->top);
		if (e < 0)
			cr_log_warn("remove %s: %s", r->top, strerror(-e));
	}
	for (i = 0; i < MAX_MOVES; i++)
		names_free(&r->moves[i].seen);
	free(r->before);
	free(r->after);
	free(r->arena.buf);
	free(r);
	current = NULL;
}

/* The suite's fini: whatever an assertion left half-done. */
static void
teardown(void)
{
	end_trial();
	free_plan(&the_plan);
}

/* Set up a trial: the fixture, its snapshot, the timer, the attackers. */
static struct race *
start_trial(unsigned int seed)
{
	struct sigaction sa;
	struct sigevent sev;
	struct race *r;
	unsigned int i;

	r = calloc(1, sizeof(*r));
	cr_assert(r != NULL);
	current = r;
	r->plan = &the_plan;
	r->topfd = r->destfd = r->outfd = r->atticfd = r->victim_sfd = -1;
	r->arena.buf = malloc(ARENA_SIZE);
	r->arena.cap = ARENA_SIZE;
	cr_assert(r->arena.buf != NULL);
	atomic_init(&r->done, false);
	atomic_init(&r->extracting, false);
	atomic_init(&r->cursor, 0);
	atomic_init(&r->nmoves, 0);
	for (i = 0; i < NDIRS; i++)
		atomic_flag_clear(&r->lock[i]);
	r->timer_seed = seed;

	make_fixture(r);
	r->before = tfx_snapshot(r->outfd, TFX_SNAP_NO_TOP);

	paused_race = r;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_pause_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	cr_assert(sigaction(SIGUSR1, &sa, &r->old_sa) == 0);
	r->have_handler = true;
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = SIGUSR1;
	/* glibc 2.36 names no sigev_notify_thread_id. */
	sev._sigev_un._tid = gettid();
	cr_assert(timer_create(CLOCK_MONOTONIC, &sev, &r->timer) == 0,
	    "timer_create: %s", strerror(errno));
	r->have_timer = true;

	for (i = 0; i < NATTACKERS; i++) {
		r->att[i].race = r;
		r->att[i].id = i;
		r->att[i].seed = seed + 1 + i;
		cr_assert(pthread_create(&r->att[i].tid, NULL, attacker_main,
		    &r->att[i]) == 0);
		r->started++;
	}
	return r;
}

/* What all the trials of one test did, for its last word. */
struct totals {
	unsigned long actions;
	unsigned long runs;
	unsigned long fatal;
	unsigned long refused;
	unsigned long extracted;
	double seconds;
};

/* Add the counters of one run, IN, to *SUM. */
static void
add_stats(struct pfx_stats *sum, const struct pfx_stats *in)
{
	sum->entries += in->entries;
	sum->extracted += in->extracted;
	sum->refused += in->refused;
	sum->skipped += in->skipped;
	sum->failed += in->failed;
}

/*
 * Extract the archive into dest while the attackers race.  A run that
 * the race stopped (PFX_FATAL) is followed by another into the same
 * dest, whose decide() skips every entry up to the one the last run
 * stopped at, so that the whole archive is extracted under attack, the
 * symlinks at its end included, however often a run stops.
 * Return: the status of the last run; *RES is the last run's result,
 * *SUM the counters of all runs, *RUNS and *FATAL how many ran and
 * stopped.
 */
static enum pfx_status
extract_all(struct race *r, const struct pfx_options *opt,
    struct pfx_result *res, struct pfx_stats *sum, unsigned int *runs,
    unsigned int *fatal, char *first, size_t cap)
{
	struct pfx_input in;
	enum pfx_status st = PFX_FATAL;
	size_t next;

	memset(&in, 0, sizeof(in));
	in.fd = -1;
	in.buf = r->plan->buf;
	in.len = r->plan->len;
	memset(sum, 0, sizeof(*sum));
	*fatal = 0;
	first[0] = '\0';
	r->resume = 0;
	for (*runs = 0; *runs < MAX_RUNS;) {
		atomic_store(&r->cursor, 0);
		st = pfx_extract(&in, r->topfd, "dest", opt, res);
		(*runs)++;
		add_stats(sum, &res->stats);
		if (st != PFX_FATAL || res->stats.entries == 0)
			break;
		if ((*fatal)++ == 0)
			snprintf(first, cap, "%s", res->message);
		next = atomic_load(&r->cursor) + 1;
		if (next <= r->resume)
			next = r->resume + 1;
		if (next >= r->plan->n)
			break;
		r->resume = next;
	}
	return st;
}

/* Run one trial with resolver HOW and policy SYMLINKS, and judge it. */
static void
run_trial(enum pfx_resolver how, enum pfx_symlinks symlinks,
    unsigned int trial, struct totals *tot)
{
	struct pfx_options opt;
	struct pfx_result res;
	struct pfx_stats sum;
	struct dest_scan ds;
	struct timespec nap;
	struct race *r;
	char who[64], first[sizeof(res.message)];
	unsigned long actions = 0, undone;
	unsigned int i, seed, bad, runs, fatal;
	enum pfx_status st;
	double elapsed;

	seed = (unsigned int)time(NULL) ^ (unsigned int)getpid() ^
	    (trial * 7919u);
	r = start_trial(seed);
	snprintf(who, sizeof(who), "%s/%s trial %u",
	    how == PFX_RESOLVER_OPENAT2 ? "openat2" : "walk",
	    symlinks == PFX_SYMLINKS_REFUSE ? "refuse" :
	    symlinks == PFX_SYMLINKS_ROOT ? "root" : "contain", trial);
	cr_log_info("%s: seed %u, top %s", who, seed, r->top);

	/* Let the attackers get going before the extractor starts. */
	nap.tv_sec = 0;
	nap.tv_nsec = 2000000;
	nanosleep(&nap, NULL);

	pfx_options_init(&opt);
	opt.resolver = how;
	opt.symlinks = symlinks;
	opt.hooks.decide = on_decide;
	opt.hooks.arg = r;
	clock_gettime(CLOCK_MONOTONIC, &r->t0);
	atomic_store(&r->during, 0);
	atomic_store(&r->extracting, true);
	st = extract_all(r, &opt, &res, &sum, &runs, &fatal, first,
	    sizeof(first));
	atomic_store(&r->extracting, false);
	elapsed = seconds_since(&r->t0);
	stop_race(r);
	collect_paused(r);

	if (st == PFX_FATAL && res.error == ENOSYS &&
	    res.stats.entries == 0 && how == PFX_RESOLVER_OPENAT2)
		cr_skip_test("openat2 is not available here");
	cr_log_info("%s: %u runs (%u stopped by the race, first: %s) in "
	    "%.2f s, the last %d (%s): %llu entries, %llu extracted, %llu "
	    "refused, %llu skipped, %llu failed", who, runs, fatal,
	    fatal > 0 ? first : "none", elapsed, (int)st, res.resolver,
	    (unsigned long long)sum.entries,
	    (unsigned long long)sum.extracted,
	    (unsigned long long)sum.refused,
	    (unsigned long long)sum.skipped,
	    (unsigned long long)sum.failed);
	cr_expect_str_eq(res.resolver, how == PFX_RESOLVER_OPENAT2 ?
	    "openat2" : "walk", "%s: the wrong resolver ran", who);
	cr_expect(r->lost == 0, "%s: decide() saw %lu entries not in the "
	    "archive", who, r->lost);
	cr_expect(atomic_load(&r->cursor) + 1 == r->plan->n, "%s: the "
	    "archive was not read to its end in %u runs", who, runs);

	for (i = 0; i < NATTACKERS; i++) {
		const struct attacker *a = &r->att[i];

		cr_log_info("%s: attacker %u: %lu exchanges, %lu moves during "
		    "the extraction (%lu before or after, %lu missed), %lu "
		    "symlink windows, planted %lu symlinks, %lu directory "
		    "symlinks, %lu hard links", who, i, a->exchanges,
		    a->moves, a->idle, a->missed, a->symlink_windows,
		    a->symlinks, a->dirlinks, a->hardlinks);
		cr_expect(a->error == 0, "%s: attacker %u failed to %s: %s",
		    who, i, a->error_what, strerror(a->error));
		cr_assert(a->stuck == 0, "%s: attacker %u could not exchange "
		    "back", who, i);
		actions += a->exchanges + a->moves;
	}
	actions += r->paused_moves;
	cr_log_info("%s: %lu moves with the extractor stopped (%lu after); "
	    "%lu exchanges and moves in all while pfx_extract() ran", who,
	    r->paused_moves, r->paused_idle, actions);

	/* Check 2: nothing made in a moved-out directory persists. */
	bad = check_attic(r, who, &undone);
	cr_expect(bad == 0, "%s: %u names appeared in the attic after the "
	    "moves", who, bad);
	cr_log_info("%s: attic: %u moves, %lu renames undone there", who,
	    atomic_load(&r->nmoves), undone);

	/* Checks 3 and 4: what dest holds; the plants go. */
	bad = (unsigned int)check_dest(r, symlinks, who, &ds);
	cr_log_info("%s: dest: %lu files, %lu symlinks (%lu dangling); %lu "
	    "of the attacker's links removed", who, ds.files, ds.links,
	    ds.dangling, ds.plants);
	cr_expect(bad == 0, "%s: %u bad things in dest", who, bad);

	/* Check 1: the victim tree is untouched. */
	check_outside(r, who);

	/* Check 5: the race was real. */
	cr_expect(actions >= MIN_ACTIONS, "%s: only %lu exchanges and moves "
	    "while pfx_extract() ran", who, actions);
	cr_expect(sum.entries > 0, "%s: no entry was read", who);

	tot->actions += actions;
	tot->refused += sum.refused + sum.failed;
	tot->extracted += sum.extracted;
	tot->runs += runs;
	tot->fatal += fatal;
	tot->seconds += elapsed;
	end_trial();
}

/* How many trials: NTRIALS, or $PFX_RACE_TRIALS within 1..MAX_TRIALS. */
static unsigned int
ntrials(void)
{
	return tfx_race_trials(NTRIALS, MAX_TRIALS);
}

/* Run ntrials() trials with resolver HOW and policy SYMLINKS. */
static void
run_race(enum pfx_resolver how, enum pfx_symlinks symlinks)
{
	struct totals tot;
	unsigned int t, n = ntrials();
	int fds, e;

	fds = tfx_count_fds();
	build_plan(&the_plan);
	cr_log_info("archive: %zu entries, %zu bytes", the_plan.n,
	    the_plan.len);
	memset(&tot, 0, sizeof(tot));
	for (t = 0; t < n; t++) {
		run_trial(how, symlinks, t, &tot);
		/* Check 6: no descriptor leaked, by the library or by us. */
		e = tfx_count_fds();
		cr_expect(e == fds, "trial %u: %d descriptors before, %d after",
		    t, fds, e);
	}
	cr_log_info("%u trials in %.2f s of extraction, %lu runs of which "
	    "%lu stopped: %lu exchanges and moves during it, %lu entries "
	    "extracted, %lu refused or failed", n, tot.seconds,
	    tot.runs, tot.fatal, tot.actions, tot.extracted, tot.refused);
	cr_expect(tot.extracted > 0, "no entry was ever extracted");
	cr_expect(tot.refused > 0, "no entry was ever refused: the race "
	    "never touched the extractor");
	free_plan(&the_plan);
}

TestSuite(extract_race, .fini = teardown);

Test(extract_race, openat2_refuse, .timeout = 120.,
    .description = "swaps, moves and planted links race pfx_extract(), "
    "openat2, no symlinks")
{
	run_race(PFX_RESOLVER_OPENAT2, PFX_SYMLINKS_REFUSE);
}

Test(extract_race, openat2_contain, .timeout = 120.,
    .description = "swaps, moves and planted links race pfx_extract(), "
    "openat2, contained symlinks")
{
	run_race(PFX_RESOLVER_OPENAT2, PFX_SYMLINKS_CONTAIN);
}

Test(extract_race, walk_refuse, .timeout = 120.,
    .description = "swaps, moves and planted links race pfx_extract(), "
    "walk, no symlinks")
{
	run_race(PFX_RESOLVER_WALK, PFX_SYMLINKS_REFUSE);
}

Test(extract_race, walk_contain, .timeout = 120.,
    .description = "swaps, moves and planted links race pfx_extract(), "
    "walk, contained symlinks")
{
	run_race(PFX_RESOLVER_WALK, PFX_SYMLINKS_CONTAIN);
}

/*
 * --symlinks=root: links made at once and followed to parents, in dest:
 * a directory swapped for a symlink to the victim, absolute, must lead
 * nowhere but into dest.
 */
Test(extract_race, openat2_root, .timeout = 120.,
    .description = "race: openat2, a root filesystem (RESOLVE_IN_ROOT)")
{
	run_race(PFX_RESOLVER_OPENAT2, PFX_SYMLINKS_ROOT);
}

Test(extract_race, walk_root, .timeout = 120.,
    .description = "race: walk, a root filesystem (in-root by hand)")
{
	run_race(PFX_RESOLVER_WALK, PFX_SYMLINKS_ROOT);
}

/*
 * Old inodes exchanged for new ones the moment they are made.
 *
 * Threat: the extractor makes a directory (mkdir(2)) or a symlink and
 * then gives it the entry's owner, mode and times by its name, or by a
 * descriptor opened by its name; an attacker who watches dest with
 * inotify(7) exchanges (renameat2 RENAME_EXCHANGE) each new name with an
 * old directory or link of dest at once.  Invariant 2 of
 * docs/security.md: neither old one may be changed.  Before, a run with
 * the sandbox or without it gave 900 to 1,300 of 2,000 old directories
 * the entries' mode and mtime, and up to a quarter of the old links the
 * entries' mtime.  Judged: no old inode has the entries' mtime or mode.
 *
 *	TOP/dest/
 *	|-- oK			old: a directory (mode 0700) or a symlink
 *	`-- nK			an entry: a directory (0751) or a symlink
 */
#define SWAP_ENTRIES 1000
#define SWAP_MODE 0751

struct swap {
	char top[TOP_MAX];
	int destfd;
	struct tfx_swapper sw;	/* the attacker: nK with oK */
};

static struct swap *swap_current;

static void
swap_teardown(void)
{
	struct swap *s = swap_current;

	if (s == NULL)
		return;
	tfx_swapper_stop(&s->sw);
	tfx_temp_end(&s->destfd, s->top);
	free(s);
	swap_current = NULL;
}

/* The archive: SWAP_ENTRIES directories nK/, or symlinks nK -> t. */
static void
swap_archive(bool links, char **buf, size_t *len)
{
	struct archive_entry *e;
	struct archive *a;
	char name[32];
	unsigned int k;

	*buf = malloc(ARCHIVE_CAP);
	cr_assert(*buf != NULL);
	a = archive_write_new();
	cr_assert(a != NULL);
	cr_assert(archive_write_set_format_pax(a) == ARCHIVE_OK);
	cr_assert(archive_write_open_memory(a, *buf, ARCHIVE_CAP, len) ==
	    ARCHIVE_OK);
	for (k = 0; k < SWAP_ENTRIES; k++) {
		(void)snprintf(name, sizeof(name), "n%u", k);
		e = new_entry(name, links ? AE_IFLNK : AE_IFDIR,
		    links ? 0777 : SWAP_MODE);
		if (links)
			archive_entry_set_symlink(e, "t");
		write_entry(a, e, NULL, 0);
	}
	cr_assert(archive_write_close(a) == ARCHIVE_OK);
	archive_write_free(a);
}

static void
run_swap(enum pfx_resolver how, bool links, bool sandbox)
{
	struct stat olds[SWAP_ENTRIES], st;
	struct pfx_options opt;
	struct pfx_result res;
	struct pfx_input in;
	struct swap *s;
	unsigned int k, changed = 0;
	char name[32], dest[TOP_MAX + 8], *buf;
	size_t len = 0;
	pid_t pid;
	int go[2], wst;
	char byte;

	s = calloc(1, sizeof(*s));
	cr_assert(s != NULL);
	swap_current = s;
	s->sw.inotifyfd = -1;
	s->destfd = tfx_temp_dest("xswap", s->top, sizeof(s->top));
	for (k = 0; k < SWAP_ENTRIES; k++) {
		(void)snprintf(name, sizeof(name), "o%u", k);
		if (links)
			cr_assert(symlinkat("old", s->destfd, name) == 0);
		else
			cr_assert(mkdirat(s->destfd, name, 0700) == 0);
		cr_assert(fstatat(s->destfd, name, &olds[k],
		    AT_SYMLINK_NOFOLLOW) == 0);
	}
	swap_archive(links, &buf, &len);
	/* A tick or more older than the run (xtr_born_in_run()). */
	(void)usleep(100000);
	pfx_options_init(&opt);
	opt.resolver = how;
	opt.symlinks = links ? PFX_SYMLINKS_CONTAIN : PFX_SYMLINKS_REFUSE;
	memset(&in, 0, sizeof(in));
	in.fd = -1;
	in.buf = buf;
	in.len = len;
	res.message[0] = '\0';
	pid = -1;
	if (sandbox) {
		/*
		 * Confined, the writer keeps its parents (create.c): run in
		 * a child, which the confinement does not outlive, forked
		 * before the attacker's thread (a lock it held would stay
		 * held in the child), and let go once the attacker runs.
		 */
		opt.flags |= PFX_OPT_SANDBOX;
		cr_assert(pipe(go) == 0);
		pid = fork();
		cr_assert(pid >= 0);
		if (pid == 0) {
			(void)close(go[1]);
			if (read(go[0], &byte, 1) != 1)
				_exit(2);
			_exit(pfx_extract(&in, s->destfd, ".", &opt, &res) ==
			    PFX_FATAL ? 1 : 0);
		}
		(void)close(go[0]);
	}
	(void)snprintf(dest, sizeof(dest), "%s/dest", s->top);
	tfx_swapper_start(&s->sw, s->destfd, dest, "o", false);
	if (pid > 0) {
		cr_assert(write(go[1], "g", 1) == 1);
		(void)close(go[1]);
		cr_assert(waitpid(pid, &wst, 0) == pid);
		cr_expect(WIFEXITED(wst) && WEXITSTATUS(wst) == 0,
		    "the confined run failed");
	} else {
		(void)pfx_extract(&in, s->destfd, ".", &opt, &res);
	}
	tfx_swapper_stop(&s->sw);
	free(buf);

	/* Each old inode, wherever the exchanges left it. */
	for (k = 0; k < SWAP_ENTRIES; k++) {
		(void)snprintf(name, sizeof(name), "o%u", k);
		if (fstatat(s->destfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		    st.st_ino != olds[k].st_ino) {
			(void)snprintf(name, sizeof(name), "n%u", k);
			if (fstatat(s->destfd, name, &st,
			    AT_SYMLINK_NOFOLLOW) != 0 ||
			    st.st_ino != olds[k].st_ino)
				continue;
		}
		if (st.st_mtime == ENTRY_SEC ||
		    (st.st_mode & 07777) != (olds[k].st_mode & 07777))
			changed++;
	}
	cr_log_info("%s %s%s: %u exchanges, status %s", links ? "links" :
	    "directories", how == PFX_RESOLVER_WALK ? "walk" : "openat2",
	    sandbox ? ", sandbox" : "", atomic_load(&s->sw.exchanges),
	    res.message);
	cr_expect(atomic_load(&s->sw.exchanges) >= SWAP_ENTRIES / 2,
	    "the race was not real: %u exchanges",
	    atomic_load(&s->sw.exchanges));
	cr_expect(changed == 0, "%u old %s of %u were changed", changed,
	    links ? "links" : "directories", SWAP_ENTRIES);
	swap_teardown();
}

TestSuite(extract_race_swap, .fini = swap_teardown);

Test(extract_race_swap, directories, .timeout = 120.,
    .description = "an old directory exchanged for a new one is never "
    "given an entry's mode or times")
{
	run_swap(PFX_RESOLVER_WALK, false, false);
	run_swap(PFX_RESOLVER_OPENAT2, false, false);
	run_swap(PFX_RESOLVER_WALK, false, true);
}

Test(extract_race_swap, links, .timeout = 120.,
    .description = "an old link exchanged for a new one is never given "
    "an entry's owner or times")
{
	run_swap(PFX_RESOLVER_WALK, true, false);
	run_swap(PFX_RESOLVER_OPENAT2, true, false);
}
