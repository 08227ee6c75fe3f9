/*
 * test_platform_race.c -- race tests of the pinned-root layer (pfx_root.h).
 *
 * Threat: an attacker who can write inside the destination races the
 * extractor.  It swaps directories the extractor is working in for
 * symlinks to a victim tree, moves them out of the root while calls are
 * working in them, and plants symlinks and hard links to victim files at
 * the names the extractor is about to create or replace.  The platform
 * layer promises, for both resolvers, that nothing is ever created or
 * changed outside the root: a name is never resolved through a symlink,
 * and a directory moved out of the root while a call works in it is
 * noticed after the effect, which is then undone (-EXDEV).
 *
 * Single calls may fail during the race; the test judges only the
 * filesystem afterwards.  One worker (the test's own thread) makes
 * directories, files, replacements, hard links and renames beneath the
 * root, writing WORKER_MARK into every file, while NATTACKERS threads race
 * it.  Each attacker owns the directories dK with K % NATTACKERS equal to
 * its id, so the attackers never race one another, and it reaches into
 * them only one component at a time without following symlinks: the
 * attacker itself must not write through its own symlinks.  A lock per
 * dK keeps the attacks on one directory apart.
 *
 * The fixture, made in a fresh mkdtemp(3) directory TOP in $TMPDIR (by
 * default /tmp):
 *
 *	TOP/
 *	|-- dest/			the root
 *	|   |-- d0/			rN, mN appear here
 *	|   |   `-- s/			fileJ, fN, lN, rN, mN, deeper/ here
 *	|   |-- ...
 *	|   `-- d7/s/
 *	|-- outside/			snapshotted before, compared after
 *	|   |-- keep			a sentinel file
 *	|   |-- victim/
 *	|   |   |-- keep		a sentinel file
 *	|   |   `-- s/			mirrors dK/s, so a followed symlink
 *	|   |       |-- file0 ... file3	    lands on a sentinel
 *	|   |       `-- deeper/
 *	|   |-- swap0 -> TOP/outside/victim
 *	|   |-- ...
 *	|   `-- swap7 -> TOP/outside/victim
 *	`-- attic/			directories the attacker moved out
 *	    |-- 0/
 *	    `-- ...
 *
 * The attacks, chosen at random until the worker is done:
 *  (a) exchange dest/dK with outside/swapK (renameat2 RENAME_EXCHANGE):
 *      the real dK is outside and dest/dK is a symlink to the victim for
 *      a few microseconds, then the two are exchanged back;
 *  (b) move dest/dK or dest/dK/s to attic/N, list attic/N at once, and
 *      make dK and dK/s again; when s was moved, dK/s is sometimes a
 *      symlink to TOP/outside/victim/s for a moment first;
 *  (c) replace fileJ by a symlink or a hard link to the victim's fileJ,
 *      plant symlinks into the victim at the names fN and rN the worker
 *      is about to create, or replace deeper by a symlink;
 *  (d) a timer armed for a random moment of the worker's round sends
 *      the worker a signal; the handler, in the worker's thread, does (b)
 *      to the directory the worker is in while the worker is stopped
 *      between two system calls of a platform call.  No effect is in
 *      flight while it lists attic/N, so the listing is exact and
 *      whatever the stopped call makes there afterwards must be undone.
 *      (b) alone rarely lands in the window between a call's resolution
 *      and its effect, and when it does the effect usually beats the
 *      listing.  The timer is the worker's own, not an attacker's: a
 *      signal sent right after an attacker's rename tends to land right
 *      after the worker's rename, which waited for the same lock.
 *
 * Afterwards, for each resolver: (1) TOP/outside is exactly as it was:
 * names, types, modes, sizes, owners, mtimes, link counts, content
 * hashes and symlink targets (tfx_snapshot()); (2) every attic/N holds
 * nothing that was not there right after its move; (3) no file outside
 * dest and the attic holds the worker's bytes; (4) no descriptor leaked;
 * (5) the race was real: attackers acted, worker calls both succeeded
 * and failed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/logging.h>

#include "../platform/pfx_root.h"
#include "fixture.h"

/* Directories d0..d7 the worker works in, and files file0..file3 in each. */
#define NDIRS 8
#define NFILES 4

/* Attacker threads; each owns the directories dK with K % NATTACKERS. */
#define NATTACKERS 2

/*
 * Rounds of the worker, one or two platform calls each: about 4500 calls
 * per resolver, well under a second each with ASan on two CPUs and tmpfs.
 * A slow filesystem stops the worker at WORKER_BUDGET seconds instead:
 * ext4 without a journal skips every inode freed in the last minute when
 * it allocates one, so a test that creates and removes thousands of
 * files slows down run after run.
 */
#define NROUNDS 3000
#define WORKER_BUDGET 2.5

/* The longest $TMPDIR the fixture accepts. */
#define TOP_MAX 256

/* Serial numbers name the worker's new files; one per round at most. */
#define MAX_SERIAL NROUNDS

/* Moves to the attic per run, each listed at once and checked at the end. */
#define MAX_MOVES 4000

/* Bytes of names the handler of (d) may record; it cannot malloc. */
#define ARENA_SIZE (16u << 20)

/* What the worker writes into every file it makes. */
#define WORKER_MARK "pfx-worker"

/* A rename the worker never tried, in race.rename_result[]. */
#define RENAME_NONE 1

/* Failures reported one by one before the test gives up. */
#define MAX_REPORTS 10

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
	unsigned long exchanges;
	unsigned long moves;
	unsigned long symlink_windows;
	unsigned long symlinks;
	unsigned long hardlinks;
	unsigned long stuck;	/* an exchange that could not be undone */
	int error;		/* first unexpected errno, or 0 */
	const char *error_what;
};

/*
 * Everything the worker and the attackers share, and everything
 * teardown() releases, whether the test passed or not.
 */
struct race {
	char top[TOP_MAX];	/* "$TMPDIR/pfx-race.XXXXXX" */
	char victim[TOP_MAX + 16];	/* TOP/outside/victim */
	int topfd;
	int destfd;
	int outfd;
	int atticfd;
	int victim_sfd;		/* TOP/outside/victim/s */
	struct pfx_root root;
	char *before;		/* the snapshot of TOP/outside */
	char *after;		/* and the one after the race */
	struct attacker att[NATTACKERS];
	unsigned int started;	/* attacker threads running */
	bool have_handler;
	struct sigaction old_sa;
	bool have_timer;
	timer_t timer;
	atomic_bool done;
	atomic_uint serial;	/* the worker's next serial number */
	atomic_uint nmoves;	/* attic slots handed out */
	atomic_uint worker_k;	/* the dK of the worker's current round */
	atomic_flag lock[NDIRS];	/* held while dK is being attacked */
	struct tfx_arena arena;	/* names recorded by (d) */
	unsigned long paused_moves;	/* (d) moves, by the handler */
	struct move moves[MAX_MOVES];
	int rename_result[MAX_SERIAL];
};

/* What the worker did. */
struct worker {
	unsigned long ok;
	unsigned long failed;
	unsigned long exdev;
	unsigned long unexpected;
	int first_unexpected;	/* its -errno */
	const char *first_unexpected_op;
};

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
 * their contents, never following a symlink.  The tree may be changing
 * under the walk: an entry that vanishes while we look is skipped.
 * Return: 0, or the first -errno.
 */
static int
walk_tree(int dirfd, const char *prefix, visit_fn *visit, void *arg)
{
	char rel[PATH_MAX];
	struct dirent *de;
	struct stat st;
	DIR *d;
	int fd, sub, r = 0;

	fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd == -1)
		return -errno;
	d = fdopendir(fd);
	if (d == NULL) {
		r = -errno;
		close(fd);
		return r;
	}
	while (r == 0) {
		errno = 0;
		de = readdir(d);
		if (de == NULL) {
			if (errno != 0)
				r = -errno;
			break;
		}
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) ==
		    -1) {
			if (errno != ENOENT)
				r = -errno;
			continue;
		}
		if (prefix[0] == '\0')
			snprintf(rel, sizeof(rel), "%s", de->d_name);
		else
			snprintf(rel, sizeof(rel), "%s/%s", prefix, de->d_name);
		r = visit(dirfd, de->d_name, rel, &st, arg);
		if (r != 0 || !S_ISDIR(st.st_mode)) {
			if (r == 1)
				r = 0;
			continue;
		}
		sub = open_dir_at(dirfd, de->d_name);
		if (sub == -1) {
			if (errno != ENOENT && errno != ENOTDIR &&
			    errno != ELOOP)
				r = -errno;
			continue;
		}
		r = walk_tree(sub, rel, visit, arg);
		close(sub);
	}
	closedir(d);
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

/*
 * Read up to CAP - 1 bytes of the file DIRFD/NAME into BUF, NUL-terminated.
 * Return: the length, or -errno.
 */
static ssize_t
read_small(int dirfd, const char *name, char *buf, size_t cap)
{
	ssize_t n, len = 0;
	int fd;

	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_NOCTTY | O_CLOEXEC);
	if (fd == -1)
		return -errno;
	while ((size_t)len < cap - 1) {
		n = read(fd, buf + len, cap - 1 - (size_t)len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			len = -errno;
			break;
		}
		if (n == 0)
			break;
		len += n;
	}
	close(fd);
	if (len >= 0)
		buf[len] = '\0';
	return len;
}

/*
 * Snapshot everything beneath TOP/outside.  TOP/outside itself is left
 * out: the attacker's exchanges rename entries in it, which changes its
 * own mtime, and only what lies beneath it can be a victim.
 * Return: the snapshot, which the caller frees.
 */
static char *
snapshot_outside(const struct race *r)
{
	return tfx_snapshot(r->outfd, TFX_SNAP_NO_TOP);
}

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
	snprintf(r->top, sizeof(r->top), "%s/pfx-race.XXXXXX", tmp);
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
		snprintf(name, sizeof(name), "d%u", k);
		mkdir_at(r->destfd, name);
		snprintf(name, sizeof(name), "d%u/s", k);
		mkdir_at(r->destfd, name);
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
	for (k = 0; k < NFILES; k++) {
		snprintf(name, sizeof(name), "file%u", k);
		snprintf(text, sizeof(text), "victim file%u\n", k);
		write_file_at(r->victim_sfd, name, text);
	}
}

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
 * Sleep a few microseconds or yield, so that the worker gets to run in
 * the window the attacker has opened.
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
 * never rest starve the worker and make the test slow, not sharper.
 */
static void
rest(unsigned int *seed)
{
	struct timespec ts;

	ts.tv_sec = 0;
	ts.tv_nsec = 5000 + rand_r(seed) % 20000;
	nanosleep(&ts, NULL);
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
	a->exchanges++;
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
	if (renameat(r->destfd, from, r->atticfd, to) == 0) {
		m->used = true;
		/* At once: what appears in attic/N later must not persist. */
		if (list_dir(r->atticfd, to, &m->seen) == 0)
			m->listed = true;
		else
			attacker_error(a, "list the attic");
		a->moves++;
	} else if (errno != ENOENT || !sub) {
		/*
		 * dK/s may be missing: a worker call that made it in a dK
		 * exchanged out at the time removed it again.
		 */
		attacker_error(a, "move to the attic");
		return;
	}

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
 * Attack (c): put a symlink or a hard link to the victim where the worker
 * is about to create or replace something.
 */
static void
attack_plant(struct attacker *a, unsigned int k)
{
	struct race *r = a->race;
	char name[32], target[TOP_MAX + 64];
	unsigned int choice, serial;
	int sfd;

	sfd = open_sub(r, k);
	if (sfd == -1)
		return;	/* the worker has not made dK/s again yet */
	choice = rand_r(&a->seed) % 5;
	serial = atomic_load(&r->serial) + 1 + rand_r(&a->seed) % 3;
	switch (choice) {
	case 0:
	case 1:
		snprintf(name, sizeof(name), "file%u",
		    rand_r(&a->seed) % NFILES);
		break;
	case 2:
		snprintf(name, sizeof(name), "f%u", serial);
		break;
	case 3:
		snprintf(name, sizeof(name), "r%u", serial);
		break;
	default:
		snprintf(name, sizeof(name), "deeper");
		break;
	}
	if (choice == 0) {
		(void)unlinkat(sfd, name, 0);
		/* Root ignores fs.protected_hardlinks. */
		if (linkat(r->victim_sfd, name, sfd, name, 0) == 0)
			a->hardlinks++;
	} else {
		(void)unlinkat(sfd, name, choice == 4 ? AT_REMOVEDIR : 0);
		snprintf(target, sizeof(target), "%s/s/%s", r->victim, name);
		if (symlinkat(target, sfd, name) == 0)
			a->symlinks++;
	}
	close(sfd);
}

/* The race the signal handler of (d) works on, while the worker runs. */
static struct race *paused_race;

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

/*
 * Attack (d), run by the signal handler in the worker's thread: move the
 * worker's dK or dK/s to the attic, list it exactly, and make it again.
 * The handler must not wait, so a dK whose attacker is at work is left
 * alone.
 */
static void
pause_move(struct race *r)
{
	char dname[16], nname[16], rel[PATH_MAX];
	unsigned int k = atomic_load(&r->worker_k), n;
	struct move *m;
	bool sub;
	int dfd, lfd, e;

	if (atomic_flag_test_and_set(&r->lock[k]))
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
	r->paused_moves++;
out:
	atomic_flag_clear(&r->lock[k]);
}

/* SIGUSR1, from the timer of (d): attack while the worker is stopped. */
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

/*
 * Arm TIMER to stop the worker for (d) at a random moment of the coming
 * round, which takes ROUND_NS on average.
 */
static void
arm_pause(timer_t timer, long round_ns, unsigned int *seed)
{
	struct itimerspec its;
	long ns;

	if (round_ns < 2000)
		round_ns = 2000;
	ns = 1000 + (long)((unsigned long)rand_r(seed) %
	    (unsigned long)round_ns);
	memset(&its, 0, sizeof(its));
	its.it_value.tv_sec = ns / 1000000000L;
	its.it_value.tv_nsec = ns % 1000000000L;
	(void)timer_settime(timer, 0, &its, NULL);
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
		what = rand_r(&a->seed) % 5;
		lock_dir(r, k);
		if (what < 2)
			attack_exchange(a, k);
		else if (what < 3 &&
		    atomic_load(&r->nmoves) < MAX_MOVES)
			attack_move(a, k);
		else
			attack_plant(a, k);
		unlock_dir(r, k);
		rest(&a->seed);
	}
	return NULL;
}

/* Count an error the race cannot explain; keep the first. */
static void
note_unexpected(struct worker *w, const char *op, int r)
{
	if (w->unexpected++ == 0) {
		w->first_unexpected = r;
		w->first_unexpected_op = op;
	}
}

/* Count the result R (a descriptor, 0 or -errno) of the platform call OP. */
static void
tally(struct worker *w, const char *op, int r)
{
	if (r >= 0) {
		w->ok++;
		return;
	}
	switch (-r) {
	case EXDEV:
		w->exdev++;
		/* FALLTHROUGH */
	case ELOOP:
	case ENOENT:
	case ENOTDIR:
	case EEXIST:
	case EAGAIN:
		w->failed++;
		return;
	}
	note_unexpected(w, op, r);
}

/* A write to a descriptor the worker holds never fails. */
static void
check_write(struct worker *w, const char *op, int r)
{
	if (r < 0)
		note_unexpected(w, op, r);
}

/* Write WORKER_MARK to FD.  0 or -errno. */
static int
write_mark(int fd)
{
	size_t len = sizeof(WORKER_MARK) - 1;
	ssize_t n;

	do {
		n = write(fd, WORKER_MARK, len);
	} while (n == -1 && errno == EINTR);
	if (n == -1)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

/* Create REL and write the mark.  The descriptor, or -errno. */
static int
worker_create(struct pfx_root *root, struct worker *w, const char *rel)
{
	int fd, e;

	fd = pfx_root_create(root, rel, 0644);
	tally(w, "create", fd);
	if (fd < 0)
		return fd;
	e = write_mark(fd);
	check_write(w, "write", e);
	return fd;
}

/* One round of the worker: one or two platform calls in dK. */
static void
work_round(struct race *r, struct pfx_root *root, struct worker *w,
    unsigned int *seed)
{
	struct pfx_pending pend;
	char rel[64], rel2[64];
	unsigned int k, op, j, s, flags;
	int fd, e;

	k = rand_r(seed) % NDIRS;
	atomic_store(&r->worker_k, k);
	op = rand_r(seed) % 12;
	j = rand_r(seed) % NFILES;
	switch (op) {
	case 0:
	case 1:
		snprintf(rel, sizeof(rel), "d%u/s/deeper", k);
		fd = pfx_root_mkdirs(root, rel, 0755);
		tally(w, "mkdirs", fd);
		if (fd >= 0)
			close(fd);
		break;
	case 2:
	case 3:
	case 4:
		s = atomic_fetch_add(&r->serial, 1);
		snprintf(rel, sizeof(rel), "d%u/s/f%u", k, s);
		fd = worker_create(root, w, rel);
		if (fd < 0)
			break;
		if (op == 3) {
			snprintf(rel2, sizeof(rel2), "d%u/s/l%u", k, s);
			e = pfx_root_link(root, fd, rel2, PFX_ROOT_NOREPLACE);
			tally(w, "link", e);
		} else if (op == 4) {
			snprintf(rel2, sizeof(rel2), "d%u/s/file%u", k, j);
			e = pfx_root_link(root, fd, rel2, PFX_ROOT_REPLACE);
			tally(w, "link replacing", e);
		}
		close(fd);
		break;
	case 5:
	case 6:
	case 7:
		snprintf(rel, sizeof(rel), "d%u/s/file%u", k, j);
		e = pfx_root_begin(root, rel, 0644, &pend);
		tally(w, "begin", e);
		if (e < 0)
			break;
		e = write_mark(pend.fd);
		check_write(w, "write pending", e);
		if (e < 0) {
			pfx_root_abort(&pend);
			break;
		}
		e = pfx_root_commit(root, &pend, PFX_ROOT_REPLACE);
		tally(w, "commit", e);
		break;
	default:
		/* Rename up, down, or within dK/s or dK. */
		s = atomic_fetch_add(&r->serial, 1);
		snprintf(rel, sizeof(rel), op % 2 == 0 ? "d%u/s/r%u" :
		    "d%u/r%u", k, s);
		fd = worker_create(root, w, rel);
		if (fd < 0)
			break;
		close(fd);
		snprintf(rel2, sizeof(rel2), op == 8 || op == 11 ? "d%u/m%u" :
		    "d%u/s/m%u", k, s);
		flags = rand_r(seed) % 2 == 0 ? PFX_ROOT_NOREPLACE :
		    PFX_ROOT_REPLACE;
		e = pfx_root_rename(root, rel, rel2, flags);
		r->rename_result[s] = e;
		tally(w, "rename", e);
		break;
	}
}

/*
 * If the last component of REL is "r<serial>", the worker's rename
 * source, return the serial; else -1.
 */
static long
rename_source_serial(const char *rel)
{
	const char *base = strrchr(rel, '/');
	char *end;
	unsigned long s;

	base = base != NULL ? base + 1 : rel;
	if (base[0] != 'r' || base[1] < '0' || base[1] > '9')
		return -1;
	s = strtoul(base + 1, &end, 10);
	if (*end != '\0' || s >= MAX_SERIAL)
		return -1;
	return (long)s;
}

/*
 * Check 2: what is in attic/N now must be a subset of what was there
 * right after the move.
 *
 * Not equality: a call may have been working in the directory when it
 * moved.  Its effect can land in attic/N before the listing -- just
 * before the attacker of (b) lists it, or before the handler of (d)
 * stopped the call between its effect and its check -- and the call's
 * check after the effect then sees the directory outside and removes the
 * effect again, so the listing holds a name the final tree rightly
 * lacks.  Anything made after the listing, on the other hand, must be
 * gone by the time the call returns.
 *
 * Two refinements, both keyed on the worker's unique rename names:
 *  - a rename undone with -EXDEV moves rN back from mN; if it ran in
 *    attic/N while the listing was taken, the listing holds mN and the
 *    final tree rN, which is the state from before the move;
 *  - rN seen in attic/N after the move, gone later, while the rename of
 *    rN reported success, means a rename took its source from a
 *    directory outside the root: a change outside that was not undone.
 * Return: the number of failures reported.
 */
static unsigned int
check_attic(const struct race *r, const char *resolver)
{
	struct names now;
	char name[16];
	unsigned int n, nmoves, bad = 0;
	size_t i;
	long s;
	int e;

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
				    resolver, n, strerror(-e));
			names_free(&now);
			continue;
		}
		for (i = 0; i < now.n; i++) {
			if (names_has(&m->seen, now.v[i]))
				continue;
			s = rename_source_serial(now.v[i]);
			if (s >= 0 && r->rename_result[s] == -EXDEV)
				continue;
			if (bad++ < MAX_REPORTS)
				cr_log_error("%s: attic/%u/%s appeared after "
				    "the directory was moved out of the root",
				    resolver, n, now.v[i]);
		}
		for (i = 0; i < m->seen.n; i++) {
			s = rename_source_serial(m->seen.v[i]);
			if (s < 0 || r->rename_result[s] != 0 ||
			    names_has(&now, m->seen.v[i]))
				continue;
			if (bad++ < MAX_REPORTS)
				cr_log_error("%s: attic/%u/%s was renamed into "
				    "the root from outside it, and the rename "
				    "succeeded", resolver, n, m->seen.v[i]);
		}
		names_free(&now);
	}
	return bad;
}

/* The victim's files, whose hard links the attacker plants. */
struct victims {
	dev_t dev;
	ino_t ino[NFILES];
};

/* Remove a hard link to a victim file, wherever the race left it. */
static int
unlink_victims_visit(int dirfd, const char *name, const char *rel,
    const struct stat *st, void *arg)
{
	struct victims *v = arg;
	unsigned int i;

	(void)rel;
	if (!S_ISREG(st->st_mode) || st->st_dev != v->dev)
		return 0;
	for (i = 0; i < NFILES; i++) {
		if (st->st_ino != v->ino[i])
			continue;
		if (unlinkat(dirfd, name, 0) == -1)
			return -errno;
	}
	return 0;
}

/*
 * Undo the attacker's own change to the victim: its hard links raised the
 * victim files' link counts, which the snapshot compares.
 */
static void
unlink_victim_links(const struct race *r)
{
	struct victims v;
	struct stat st;
	char name[16];
	unsigned int i;
	int e;

	memset(&v, 0, sizeof(v));
	for (i = 0; i < NFILES; i++) {
		snprintf(name, sizeof(name), "file%u", i);
		if (fstatat(r->victim_sfd, name, &st,
		    AT_SYMLINK_NOFOLLOW) == -1)
			continue;	/* the snapshot will tell */
		v.dev = st.st_dev;
		v.ino[i] = st.st_ino;
	}
	e = walk_tree(r->destfd, "", unlink_victims_visit, &v);
	cr_assert(e == 0, "walk dest: %s", strerror(-e));
	e = walk_tree(r->atticfd, "", unlink_victims_visit, &v);
	cr_assert(e == 0, "walk attic: %s", strerror(-e));
}

/* Where a file holding WORKER_MARK was found outside dest and the attic. */
struct mark_scan {
	unsigned long files;
	unsigned long marked;
	char first[PATH_MAX];
};

/* Look for WORKER_MARK in a file; dest and the attic are left out. */
static int
mark_visit(int dirfd, const char *name, const char *rel,
    const struct stat *st, void *arg)
{
	struct mark_scan *ms = arg;
	char buf[4096];
	ssize_t n;

	if (strcmp(rel, "dest") == 0 || strcmp(rel, "attic") == 0)
		return 1;	/* the root, and check 2's business */
	if (!S_ISREG(st->st_mode))
		return 0;
	ms->files++;
	n = read_small(dirfd, name, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	if (strstr(buf, WORKER_MARK) != NULL && ms->marked++ == 0)
		snprintf(ms->first, sizeof(ms->first), "%s", rel);
	return 0;
}

/* Check 1: TOP/outside is exactly as it was. */
static void
check_outside(struct race *r, const char *resolver)
{
	char name[16], target[PATH_MAX];
	unsigned int k;
	ssize_t n;

	/* The attacker always exchanges back: every swapK is a symlink. */
	for (k = 0; k < NDIRS; k++) {
		snprintf(name, sizeof(name), "swap%u", k);
		n = readlinkat(r->outfd, name, target, sizeof(target) - 1);
		cr_assert(n > 0, "%s: outside/%s is no longer a symlink",
		    resolver, name);
		target[n] = '\0';
		cr_assert_str_eq(target, r->victim,
		    "%s: outside/%s points elsewhere", resolver, name);
	}
	unlink_victim_links(r);
	r->after = snapshot_outside(r);
	tfx_expect_same_snapshot(resolver, "outside", r->before, r->after);
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

/* The race of the running test, for teardown(). */
static struct race *current;

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

	pfx_root_close(&r->root);
	for (i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}

/*
 * Release the race of the running test, even one an assertion left
 * half-done: stop it, remove the fixture, free everything.
 */
static void
teardown(void)
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

/*
 * Set up the race for resolver HOW: the fixture, its snapshot, the root,
 * the pause timer and its handler, and the attackers.
 * Return: the root's resolver name.
 */
static const char *
start_race(struct race *r, enum pfx_resolver how, unsigned int seed)
{
	struct sigaction sa;
	struct sigevent sev;
	unsigned int i;
	int e;

	make_fixture(r);
	r->before = snapshot_outside(r);
	e = pfx_root_open(&r->root, r->topfd, "dest", how);
	if (e == -ENOSYS)
		cr_skip_test("openat2 is not available here");
	cr_assert(e == 0, "pfx_root_open: %s", strerror(-e));

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
	return pfx_root_resolver_name(&r->root);
}

/*
 * The worker: NROUNDS rounds or WORKER_BUDGET seconds, each with a pause
 * armed for (d).  Return: the rounds done.
 */
static unsigned int
run_worker(struct race *r, struct worker *w, unsigned int *seed,
    double *elapsed)
{
	struct timespec t0;
	long round_ns = 50000;
	unsigned int rounds;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (rounds = 0; rounds < NROUNDS; rounds++) {
		if (rounds % 64 == 0) {
			*elapsed = seconds_since(&t0);
			if (*elapsed > WORKER_BUDGET)
				break;
			if (rounds > 0)
				round_ns = (long)(*elapsed * 1e9) / rounds;
		}
		arm_pause(r->timer, round_ns, seed);
		work_round(r, &r->root, w, seed);
	}
	*elapsed = seconds_since(&t0);
	return rounds;
}

/* Run the whole race with resolver HOW and judge the outcome. */
static void
run_race(enum pfx_resolver how)
{
	struct mark_scan ms;
	struct worker w;
	struct race *r;
	const char *resolver;
	unsigned long actions = 0, moved = 0;
	unsigned int i, seed, bad, rounds;
	double elapsed = 0;
	int fds, e;

	fds = tfx_count_fds();
	r = calloc(1, sizeof(*r));
	cr_assert(r != NULL);
	current = r;
	r->topfd = r->destfd = r->outfd = r->atticfd = r->victim_sfd = -1;
	r->root.fd = -1;
	r->arena.buf = malloc(ARENA_SIZE);
	r->arena.cap = ARENA_SIZE;
	cr_assert(r->arena.buf != NULL);
	atomic_init(&r->done, false);
	atomic_init(&r->serial, 0);
	atomic_init(&r->nmoves, 0);
	atomic_init(&r->worker_k, 0);
	for (i = 0; i < NDIRS; i++)
		atomic_flag_clear(&r->lock[i]);
	for (i = 0; i < MAX_SERIAL; i++)
		r->rename_result[i] = RENAME_NONE;

	seed = (unsigned int)time(NULL) ^ (unsigned int)getpid();
	resolver = start_race(r, how, seed);
	cr_log_info("%s: seed %u, top %s", resolver, seed, r->top);
	memset(&w, 0, sizeof(w));
	rounds = run_worker(r, &w, &seed, &elapsed);
	stop_race(r);
	pfx_root_close(&r->root);
	collect_paused(r);

	for (i = 0; i < NATTACKERS; i++) {
		const struct attacker *a = &r->att[i];

		cr_log_info("%s: attacker %u: %lu exchanges, %lu moves "
		    "(%lu with a symlink window), %lu symlinks, "
		    "%lu hard links planted", resolver, i, a->exchanges,
		    a->moves, a->symlink_windows, a->symlinks, a->hardlinks);
		cr_expect(a->error == 0, "%s: attacker %u failed to %s: %s",
		    resolver, i, a->error_what, strerror(a->error));
		cr_assert(a->stuck == 0, "%s: attacker %u could not exchange "
		    "back", resolver, i);
		actions += a->exchanges + a->moves;
		moved += a->moves;
	}
	cr_log_info("%s: %lu moves made with the worker stopped", resolver,
	    r->paused_moves);
	actions += r->paused_moves;
	cr_log_info("%s: worker: %u rounds, %lu calls in %.2f s, %lu ok, "
	    "%lu failed (%lu -EXDEV)", resolver, rounds,
	    w.ok + w.failed + w.unexpected, elapsed, w.ok, w.failed, w.exdev);
	cr_expect(w.unexpected == 0, "%s: %lu worker calls failed "
	    "unexpectedly, first %s: %s", resolver, w.unexpected,
	    w.first_unexpected_op, strerror(-w.first_unexpected));

	/* Check 2: nothing made in a moved-out directory persists. */
	bad = check_attic(r, resolver);
	cr_expect(bad == 0, "%s: %u changes outside the root in the attic",
	    resolver, bad);

	/* Check 1: the victim tree is untouched. */
	check_outside(r, resolver);

	/* Check 3: no worker bytes outside dest but in the attic. */
	memset(&ms, 0, sizeof(ms));
	e = walk_tree(r->topfd, "", mark_visit, &ms);
	cr_assert(e == 0, "scan for the mark: %s", strerror(-e));
	cr_assert(ms.files > 0, "the scan for the mark read no file");
	cr_expect(ms.marked == 0, "%s: %lu files outside dest hold the "
	    "worker's bytes, first %s", resolver, ms.marked, ms.first);

	/* Check 5: the race was real. */
	cr_expect(actions >= 100, "%s: only %lu attacker actions", resolver,
	    actions);
	cr_expect(moved > 0, "%s: the attackers never moved a directory",
	    resolver);
	cr_expect(r->paused_moves > 0, "%s: no move with the worker stopped",
	    resolver);
	cr_expect(w.ok >= 50, "%s: only %lu worker calls succeeded",
	    resolver, w.ok);
	cr_expect(w.failed > 0, "%s: no worker call ever failed: the race "
	    "never touched the worker", resolver);

	/* Check 4: no descriptor leaked, by the library or by this test. */
	close_race(r);
	e = tfx_count_fds();
	cr_expect(e == fds, "%s: %d descriptors before, %d after", resolver,
	    fds, e);
	teardown();
}

TestSuite(platform_race, .fini = teardown);

Test(platform_race, openat2, .timeout = 60.,
    .description = "moves, swaps and planted links race openat2")
{
	run_race(PFX_RESOLVER_OPENAT2);
}

Test(platform_race, walk, .timeout = 60.,
    .description = "moves, swaps and planted links race the walk")
{
	run_race(PFX_RESOLVER_WALK);
}

/* --- a tree removed while a directory in it is moved out ---------------- */

/*
 * pfx_pending_remove_dir() and pfx_pending_remove_dir_beneath(), as
 * --recursive-unlink calls them, with no kernel confinement (no Landlock:
 * --no-sandbox, an older kernel, a library caller without
 * PFX_OPT_SANDBOX).  A descriptor pins a directory, not its place: moved
 * out of the root halfway, the directory the walk empties went on being
 * emptied from its descriptor, outside (4,290 files in 143 directories in
 * the tester's run).  remove.c now proves the directory beneath before
 * each call; what no proof can close is a move that lands between the
 * proof and the call, so each move may cost at most one entry removed
 * outside, and that is what this test holds it to.
 *
 * Each trial makes dest/pN/xN/a/f0..f(RM_FILES - 1), begins a file at
 * pN/xN, and removes the tree at xN with a timer of the worker's own
 * firing after each RM_TICK_NS it runs.  The handler, in the worker's
 * thread, counts what is left in xN/a, and once the removal has brought
 * that down to a random number between 1 and RM_FILES - 1, moves a
 * directory out to
 * outside/mN -- xN/a, the directory the walk empties, or pN, the parent
 * the pending file was begun in -- and counts what the moved directory
 * holds right then, exactly: the worker is stopped between two system
 * calls, with no effect in flight.  After the removal what is left there
 * is counted again; the difference is what the removal removed outside.
 * Modes:
 *  - RM_DIR_PARENT: pfx_pending_remove_dir(), xN/a moved (the walk is
 *    proved beneath pN);
 *  - RM_DIR_ROOT: pfx_pending_remove_dir_beneath(), xN/a moved;
 *  - RM_PARENT_ROOT: pfx_pending_remove_dir_beneath(), pN moved (which
 *    pfx_pending_remove_dir(), proving beneath pN only, cannot see).
 */

/*
 * Files in each xN/a; trials per mode, or as many as RM_BUDGET seconds
 * allow where the filesystem is slow; the handler's period.
 */
#define RM_FILES 48
#define RM_TRIALS 100
#define RM_BUDGET 1.0
#define RM_TICK_NS 20000L

/* The handler's listing of a moved directory. */
#define RM_ARENA (64u << 10)

enum rm_mode {
	RM_DIR_PARENT,
	RM_DIR_ROOT,
	RM_PARENT_ROOT,
	RM_MODES
};

static const char *const rm_mode_name[RM_MODES] = {
	"pfx_pending_remove_dir, xN/a moved",
	"pfx_pending_remove_dir_beneath, xN/a moved",
	"pfx_pending_remove_dir_beneath, pN moved",
};

/* The fixture, the timer, and what the handler did in the trial. */
struct rm_race {
	char top[TOP_MAX];
	int topfd, destfd, outfd;
	struct pfx_root root;
	bool have_handler, have_timer;
	struct sigaction old_sa;
	timer_t timer;
	atomic_bool armed;	/* a removal is under way */
	int watchfd;		/* xN, whose "a" the handler counts */
	size_t threshold;	/* move once "a" holds this many or fewer */
	int movefd;		/* the directory that holds MOVE_NAME */
	char move_name[16];
	char out_name[16];	/* its name in outside */
	atomic_bool moved;
	atomic_bool listed;
	size_t at_move;		/* entries beneath it right after the move */
	struct tfx_arena arena;
	char rel[PATH_MAX];
};

/* What the trials of one mode saw. */
struct rm_tally {
	unsigned int moves;	/* moves the handler made */
	unsigned int midway;	/* with entries left, and the walk stopped */
	unsigned long outside;	/* entries removed outside, all moves */
	unsigned long worst;	/* the most for one move */
	unsigned int bad;	/* moves that cost more than one */
};

/* The race of the running test, for the handler and rm_teardown(). */
static struct rm_race *rm_current;

/*
 * Count what lies beneath DIRFD/NAME into *COUNT, with R's arena and
 * nothing a signal handler may not call.
 */
static bool
rm_count(struct rm_race *r, int dirfd, const char *name, size_t *count)
{
	bool ok;
	int fd;

	*count = 0;
	r->arena.len = 0;
	r->rel[0] = '\0';
	fd = open_dir_at(dirfd, name);
	if (fd == -1)
		return false;
	ok = tfx_arena_list(&r->arena, fd, r->rel, 0, count);
	close(fd);
	return ok;
}

/*
 * Make R's timer fire once, NS from now; 0 stops it.  The handler sets it
 * again from its own end, so that the worker always runs NS in between.
 */
static void
rm_tick(struct rm_race *r, long ns)
{
	struct itimerspec its;

	memset(&its, 0, sizeof(its));
	its.it_value.tv_nsec = ns;
	(void)timer_settime(r->timer, 0, &its, NULL);
}

/* SIGUSR1, from the worker's timer: move, once, while it is stopped. */
static void
on_rm_signal(int sig)
{
	struct rm_race *r = rm_current;
	size_t left;
	int saved = errno;

	(void)sig;
	if (r == NULL || !atomic_load(&r->armed) || atomic_load(&r->moved))
		goto out;
	/* Not yet: look again in RM_TICK_NS of the worker's running time. */
	if (rm_count(r, r->watchfd, "a", &left) && left > r->threshold) {
		rm_tick(r, RM_TICK_NS);
		goto out;
	}
	if (renameat(r->movefd, r->move_name, r->outfd, r->out_name) == -1)
		goto out;
	atomic_store(&r->moved, true);
	atomic_store(&r->listed, rm_count(r, r->outfd, r->out_name,
	    &r->at_move));
out:
	errno = saved;
}

/* Release the running test's race, even one an assertion left. */
static void
rm_teardown(void)
{
	struct rm_race *r = rm_current;
	int e;

	if (r == NULL)
		return;
	atomic_store(&r->armed, false);
	if (r->have_timer)
		(void)timer_delete(r->timer);
	if (r->have_handler)
		(void)sigaction(SIGUSR1, &r->old_sa, NULL);
	pfx_root_close(&r->root);
	if (r->outfd >= 0)
		close(r->outfd);
	if (r->destfd >= 0)
		close(r->destfd);
	if (r->topfd >= 0)
		close(r->topfd);
	if (r->top[0] != '\0') {
		e = tfx_rm_tree(r->top);
		if (e < 0)
			cr_log_warn("remove %s: %s", r->top, strerror(-e));
	}
	free(r->arena.buf);
	free(r);
	rm_current = NULL;
}

/* The fixture's top, dest, outside and root; the handler and timer. */
static struct rm_race *
rm_start(void)
{
	const char *tmp = getenv("TMPDIR");
	struct sigaction sa;
	struct sigevent sev;
	struct rm_race *r;

	r = calloc(1, sizeof(*r));
	cr_assert(r != NULL);
	rm_current = r;
	r->topfd = r->destfd = r->outfd = -1;
	r->root.fd = -1;
	r->arena.buf = malloc(RM_ARENA);
	r->arena.cap = RM_ARENA;
	cr_assert(r->arena.buf != NULL);
	atomic_init(&r->armed, false);
	atomic_init(&r->moved, false);
	atomic_init(&r->listed, false);
	if (tmp == NULL || tmp[0] == '\0')
		tmp = "/tmp";
	cr_assert(strlen(tmp) < TOP_MAX - 32, "TMPDIR is too long");
	snprintf(r->top, sizeof(r->top), "%s/pfx-rmrace.XXXXXX", tmp);
	cr_assert(mkdtemp(r->top) != NULL, "mkdtemp: %s", strerror(errno));
	r->topfd = open_dir_at(AT_FDCWD, r->top);
	cr_assert(r->topfd >= 0);
	mkdir_at(r->topfd, "dest");
	mkdir_at(r->topfd, "outside");
	r->destfd = open_dir_at(r->topfd, "dest");
	r->outfd = open_dir_at(r->topfd, "outside");
	cr_assert(r->destfd >= 0 && r->outfd >= 0);
	/* No pfx_root_confined(): the race is the unconfined one. */
	cr_assert(pfx_root_open(&r->root, r->topfd, "dest",
	    PFX_RESOLVER_AUTO) == 0);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_rm_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	cr_assert(sigaction(SIGUSR1, &sa, &r->old_sa) == 0);
	r->have_handler = true;
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = SIGUSR1;
	sev._sigev_un._tid = gettid();
	cr_assert(timer_create(CLOCK_MONOTONIC, &sev, &r->timer) == 0,
	    "timer_create: %s", strerror(errno));
	r->have_timer = true;
	return r;
}

/* Trial N of MODE: make the tree, remove it with a move, and judge. */
static void
rm_trial(struct rm_race *r, enum rm_mode mode, unsigned int n,
    unsigned int *seed, struct rm_tally *t)
{
	char p[16], x[16], f[16], rel[40];
	struct pfx_pending pend;
	size_t left = 0;
	unsigned int j;
	int pfd, xfd, afd, e;

	tfx_format_name(p, "p", n);
	tfx_format_name(x, "x", n);
	mkdir_at(r->destfd, p);
	pfd = open_dir_at(r->destfd, p);
	cr_assert(pfd >= 0);
	mkdir_at(pfd, x);
	xfd = open_dir_at(pfd, x);
	cr_assert(xfd >= 0);
	mkdir_at(xfd, "a");
	afd = open_dir_at(xfd, "a");
	cr_assert(afd >= 0);
	for (j = 0; j < RM_FILES; j++) {
		tfx_format_name(f, "f", j);
		write_file_at(afd, f, "in dest\n");
	}
	close(afd);
	snprintf(rel, sizeof(rel), "%s/%s", p, x);
	e = pfx_root_begin(&r->root, rel, 0644, &pend);
	cr_assert(e == 0, "pfx_root_begin %s: %s", rel, strerror(-e));

	r->watchfd = xfd;
	r->threshold = 1 + (size_t)rand_r(seed) % (RM_FILES - 1);
	if (mode == RM_PARENT_ROOT) {
		r->movefd = r->destfd;
		memcpy(r->move_name, p, sizeof(p));
	} else {
		r->movefd = xfd;
		memcpy(r->move_name, "a", 2);
	}
	tfx_format_name(r->out_name, "m", n);
	atomic_store(&r->moved, false);
	atomic_store(&r->listed, false);
	atomic_store(&r->armed, true);
	rm_tick(r, RM_TICK_NS);
	if (mode == RM_DIR_PARENT)
		e = pfx_pending_remove_dir(&pend);
	else
		e = pfx_pending_remove_dir_beneath(&r->root, &pend);
	atomic_store(&r->armed, false);
	rm_tick(r, 0);

	if (!atomic_load(&r->moved)) {
		/* The removal outran the timer: nothing to judge. */
		cr_expect(e == 0, "%s, trial %u, nothing moved: %s",
		    rm_mode_name[mode], n, strerror(-e));
	} else {
		/* Counted before the abort, which may unlink a temporary. */
		cr_assert(atomic_load(&r->listed), "the handler could not "
		    "list outside/%s", r->out_name);
		cr_assert(rm_count(r, r->outfd, r->out_name, &left),
		    "list outside/%s", r->out_name);
		cr_assert(left <= r->at_move, "outside/%s grew: %zu, then %zu",
		    r->out_name, r->at_move, left);
		/* -ENOENT: moved away right before the walk entered it. */
		cr_expect(e == 0 || e == -EXDEV || e == -ENOENT,
		    "%s, trial %u, moved: %s", rm_mode_name[mode], n,
		    strerror(-e));
		t->moves++;
		t->outside += r->at_move - left;
		if (r->at_move - left > t->worst)
			t->worst = r->at_move - left;
		if (r->at_move - left > 1 && t->bad++ < MAX_REPORTS)
			cr_log_error("%s, trial %u: %zu entries removed from "
			    "outside/%s after its move (%zu were there)",
			    rm_mode_name[mode], n, r->at_move - left,
			    r->out_name, r->at_move);
		if (e == -EXDEV && r->at_move > 0)
			t->midway++;
	}
	pfx_root_abort(&pend);
	close(xfd);
	close(pfd);
}

/* All the trials of MODE, numbered from *N on, and what they show. */
static void
rm_run_mode(struct rm_race *r, enum rm_mode mode, unsigned int *n,
    unsigned int *seed)
{
	struct timespec t0;
	struct rm_tally t;
	unsigned int i;

	memset(&t, 0, sizeof(t));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < RM_TRIALS && seconds_since(&t0) < RM_BUDGET; i++)
		rm_trial(r, mode, (*n)++, seed, &t);
	cr_log_info("%s: %u trials, %u moves, %u halfway, %lu entries "
	    "removed outside (at most %lu for one move)", rm_mode_name[mode],
	    i, t.moves, t.midway, t.outside, t.worst);
	cr_expect(t.bad == 0, "%s: %u of %u moves cost more than one entry "
	    "removed outside the root (%lu in all, at most %lu for one)",
	    rm_mode_name[mode], t.bad, t.moves, t.outside, t.worst);
	cr_expect(t.outside <= t.moves, "%s: %lu entries removed outside "
	    "for %u moves", rm_mode_name[mode], t.outside, t.moves);
	/* The race was real: moves landed while the walk had work left. */
	cr_expect(t.midway >= 10, "%s: only %u of %u moves landed halfway",
	    rm_mode_name[mode], t.midway, t.moves);
}

TestSuite(platform_race_remove, .fini = rm_teardown);

Test(platform_race_remove, move_out, .timeout = 120.,
    .description = "a directory moved out halfway through a tree's "
    "removal costs at most one entry removed outside")
{
	struct rm_race *r;
	unsigned int n = 0, seed;
	int fds, e;
	enum rm_mode m;

	fds = tfx_count_fds();
	r = rm_start();
	seed = (unsigned int)time(NULL) ^ (unsigned int)getpid();
	cr_log_info("seed %u, top %s", seed, r->top);
	for (m = 0; m < RM_MODES; m++)
		rm_run_mode(r, m, &n, &seed);
	pfx_root_close(&r->root);
	close(r->outfd);
	close(r->destfd);
	close(r->topfd);
	r->outfd = r->destfd = r->topfd = -1;
	e = tfx_count_fds();
	cr_expect(e == fds, "%d descriptors before, %d after", fds, e);
	rm_teardown();
}

/*
 * A directory swapped in right after mkdir(2).
 *
 * Threat: mkdirat(2) gives no descriptor, so the directory made is
 * opened again by its name; an attacker who watches the parent with
 * inotify(7) exchanges (renameat2 RENAME_EXCHANGE) the new name with an
 * old directory of the destination at once.  The caller then held the
 * old directory, told it was new (*created), and the extractor gave it
 * the archive's owner, mode and times: before, 400 to 990 of 1,000 here
 * (both resolvers; the attacker is woken inside the mkdirat and wins the
 * instant before the look nearly always).  Now a directory counted as
 * made is the one made, born since its parent last changed (step.c):
 * the call fails (-ENOENT, ours vanished from its name) or uses what is
 * there as a directory that was there, and counts nothing.
 *
 *	TOP/dest/
 *	|-- oldK/		made before the run, one per trial
 *	`-- nK/			made by pfx_root_mkdirs_count()
 */
#define SWAP_TRIALS 1000

struct swap_race {
	char top[TOP_MAX];
	int destfd;
	struct tfx_swapper sw;	/* the attacker: nK with oldK */
};

static struct swap_race *swap_current;

/*
 * Wait, a little, for the attacker to have seen N names: on a busy
 * machine it may fall behind, and a race it never joins proves nothing.
 */
static void
swap_pace(struct swap_race *r, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < 2000 && atomic_load(&r->sw.seen) < n; i++)
		(void)usleep(10);
}

static void
swap_teardown(void)
{
	struct swap_race *r = swap_current;

	if (r == NULL)
		return;
	tfx_swapper_stop(&r->sw);
	tfx_temp_end(&r->destfd, r->top);
	free(r);
	swap_current = NULL;
}

static void
run_swap_race(enum pfx_resolver how)
{
	struct stat olds[SWAP_TRIALS], st;
	struct swap_race *r;
	struct pfx_root root;
	unsigned int k, created, counted = 0, wrong = 0;
	char name[32], dest[TOP_MAX + 8];
	int fd, e;

	r = calloc(1, sizeof(*r));
	cr_assert(r != NULL);
	swap_current = r;
	r->sw.inotifyfd = -1;
	r->destfd = tfx_temp_dest("swap", r->top, sizeof(r->top));
	for (k = 0; k < SWAP_TRIALS; k++) {
		(void)snprintf(name, sizeof(name), "old%u", k);
		cr_assert(mkdirat(r->destfd, name, 0700) == 0);
		cr_assert(fstatat(r->destfd, name, &olds[k], 0) == 0);
	}
	/* A tick or more of the clock older than the race. */
	(void)usleep(100000);
	e = pfx_root_open(&root, r->destfd, ".", how);
	cr_assert(e == 0, "pfx_root_open: %s", strerror(-e));
	(void)snprintf(dest, sizeof(dest), "%s/dest", r->top);
	tfx_swapper_start(&r->sw, r->destfd, dest, "old", true);
	for (k = 0; k < SWAP_TRIALS; k++) {
		(void)snprintf(name, sizeof(name), "n%u", k);
		fd = pfx_root_mkdirs_count(&root, name, 0700, &created);
		swap_pace(r, k + 1);
		if (fd < 0)
			continue;
		cr_assert(fstat(fd, &st) == 0);
		(void)close(fd);
		if (created == 0)
			continue;
		counted++;
		if (st.st_ino == olds[k].st_ino && st.st_dev == olds[k].st_dev)
			wrong++;
	}
	tfx_swapper_stop(&r->sw);
	pfx_root_close(&root);
	cr_log_info("%u exchanges, %u made", atomic_load(&r->sw.exchanges),
	    counted);
	cr_expect(atomic_load(&r->sw.exchanges) >= SWAP_TRIALS / 2,
	    "the race was not real: %u exchanges",
	    atomic_load(&r->sw.exchanges));
	cr_expect(wrong == 0, "%u old directories of %u were counted as "
	    "made", wrong, SWAP_TRIALS);
	swap_teardown();
}

TestSuite(platform_race_mkdir, .fini = swap_teardown);

Test(platform_race_mkdir, swapped_walk, .timeout = 60.,
    .description = "a directory swapped in after mkdir is not counted "
    "as made (walk)")
{
	run_swap_race(PFX_RESOLVER_WALK);
}

Test(platform_race_mkdir, swapped_openat2, .timeout = 60.,
    .description = "a directory swapped in after mkdir is not counted "
    "as made (openat2)")
{
	run_swap_race(PFX_RESOLVER_OPENAT2);
}
