/*
 * test_atomic_race.c -- race tests of all-or-nothing extraction
 * (PFX_OPT_ATOMIC): the staging directory made beside DEST, removed after
 * a failed run and published after a good one, raced by a local attacker
 * who can write DEST's parent.
 *
 * Threat: DEST's parent P is often writable by others (mode 0777, no
 * sticky bit).  Such an attacker, unprivileged, can exchange any two
 * entries of P (renameat2(RENAME_EXCHANGE) needs no rights on a
 * directory that stays in the same parent), so a name in P never stays
 * what root last saw there.  If the extractor, running as root, checks
 * the staging directory by its name and then removes or renames it by
 * that name, the attacker puts a root-owned victim directory V of P at
 * the name between the two: root then empties or removes V, or publishes
 * V at DEST.  The same goes for the old, empty DEST that a publication by
 * exchange removes.  The extractor promises that, whatever the attacker
 * does in P, no directory of P but its own staging tree and DEST ever
 * changes: a staging entry it cannot prove is its own it leaves, and says
 * so in pfx_result.message.
 *
 * The test knows the staging directory only as it shows in P: an entry
 * whose name begins ".dest.pfx-" that appears there during the run.  The
 * tree being filled may be that entry or lie inside it.
 *
 * The attacker is a forked child that drops to uid and gid 65534 and, in
 * a loop, lists P, and exchanges an entry named ".dest.pfx-*" (or, one
 * time in four, DEST, when it exists) with a victim, for a staging entry
 * half the time the empty one (rmdir(2) removes only an empty directory),
 * keeps it there for a random moment -- mostly a few microseconds of
 * spinning, now and then up to HOLD_LONG_NS -- and exchanges it back.  It
 * always finishes the pair it began before it looks at its stop flag, so
 * when it has stopped every victim is at its own name again, unless the
 * extractor removed or renamed what stood at the attacked name meanwhile;
 * the exchange back then fails, and that is counted as "stuck".  The
 * extractor's decide() hook keeps the attacker's pace (it waits for an
 * attacker that is behind), and tells it when the last entries come, so
 * that it exchanges as fast as it can, and is surely running, when the
 * staging tree is published or removed: a well-informed attacker, which
 * a test may assume, since a real one has all the tries it wants.
 *
 * The fixture, made in a fresh mkdtemp(3) directory TOP in $TMPDIR (by
 * default /tmp) for each trial:
 *
 *	TOP/
 *	|-- p/				DEST's parent: 0777, no sticky bit
 *	|   |-- v0/			root's, 0755, empty
 *	|   |-- v1/ v2/ v3/		root's, 0755, 0700, 0555: keep,
 *	|   |   |-- keep		    secret (0600) and sub/keep
 *	|   |   |-- secret
 *	|   |   `-- sub/keep
 *	|   |-- dest/			in the *_empty tests: empty, 0750
 *	|   `-- .dest.pfx-XXXXXXXX	made by the extractor
 *	`-- outside/			keep, dir/keep
 *
 * The extractor is this process, as root: pfx_extract() of an archive of
 * some 150 entries (eight directories, three of them read-only, with
 * files and a private subdirectory each) with PFX_OPT_ATOMIC into p/dest,
 * the resolver alternating between openat2 and the walk from trial to
 * trial.  The archive is whole in the good_* tests (publication: a new
 * DEST by rename, an empty one by exchange, the old one removed) and cut
 * short in the truncated_* tests (the run fails and the staging tree is
 * removed).  One test runs the extraction in the confined child
 * (PFX_OPT_SANDBOX_CHILD), where this process still publishes and
 * removes; one, the control, has no extractor at all, and shows that the
 * attacker alone changes nothing the checks look at.
 *
 * After each trial, with the attacker stopped: (1) the attacker could
 * always exchange back and met no unexpected error; (2) everything in TOP
 * but p/dest and P's ".dest.pfx-*" entries is exactly as it was: names,
 * types, modes, owners, inode numbers, sizes, link counts, mtimes, content
 * hashes (victims included: same inode, same files, same bytes); (3) a
 * ".dest.pfx-*" entry is left in P if and only if the run's message names
 * it; (4) a run that did not fail left DEST holding exactly the archive's
 * tree, in a directory that is neither a victim nor the old empty DEST,
 * with the old DEST's mode (0755 for a new one), and a run that failed
 * left DEST as it was, absent or the same empty directory; (5) the race
 * was real: at least MIN_ACTIONS exchanges of the staging entry while
 * pfx_extract() ran, in every run that got to its first entry, and at
 * most half the runs stopped before it.  After every test: (6) no
 * descriptor leaked.
 */
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
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

/* DEST's name in P, and what the staging entry's name begins with. */
#define DEST "dest"
#define STAGE_PREFIX ".dest.pfx-"

/* The attacker's user and group. */
#define NOBODY 65534

/* Victim directories v0..v3 in P; v0 is the empty one. */
#define NVICTIMS 4
#define EMPTY_VICTIM 0

/* The mode of the empty DEST of the *_empty tests, kept by publishing. */
#define DEST_MODE 0750

/* The archive: NDIRS directories of NFILES files and a subdirectory s/
 * of NSUB files; every third directory is read-only. */
#define NDIRS 8
#define NFILES 12
#define NSUB 4

/* Room for the archive built in memory. */
#define ARCHIVE_CAP (4u << 20)

/* The mtime of the archive's entries. */
#define ENTRY_SEC 1300000000

/*
 * Trials per test.  One trial is a single extraction of some 150
 * entries, a few milliseconds (tens under ASan, and more on a busy
 * machine), and one chance at the windows that matter, which it takes
 * about one time in ten to twenty on today's code (measured on two
 * CPUs, see the commit): NTRIALS makes a miss of a whole test rare, and
 * a miss of the whole suite, whose five tests race by-name calls of the
 * same stage.c, practically impossible.  Fewer under ASan, where a trial
 * costs three times as much, to keep make check brief.
 * $PFX_RACE_TRIALS (make soak) counts trials as test_extract_race.c
 * does, each of which extracts thousands of entries, so each of them is
 * SOAK_SCALE of ours.
 */
#ifdef __SANITIZE_ADDRESS__
#define NTRIALS 36
#else
#define NTRIALS 50
#endif
#define SOAK_SCALE 10
#define MAX_TRIALS 1000

/* Exchanges of the staging entry that must happen while pfx_extract()
 * runs, per trial. */
#define MIN_ACTIONS 20

/* Exchange pairs between two listings of P. */
#define PAIRS_PER_SCAN 64

/* How long a victim stays at the attacked name: mostly a spin of up to
 * HOLD_SHORT_NS, one time in HOLD_LONG_EVERY a sleep of up to
 * HOLD_LONG_NS; near the end of a run only spins of up to HOLD_HOT_NS. */
#define HOLD_SHORT_NS 20000L
#define HOLD_LONG_NS 300000L
#define HOLD_LONG_EVERY 8
#define HOLD_HOT_NS 4000L

/* The last entries of a run, when the attacker holds only briefly. */
#define HOT_ENTRIES 16

/* The longest $TMPDIR the fixture accepts. */
#define TOP_MAX 256

/* What the attacker, in its own process, and this one share. */
struct shared {
	atomic_bool ready;	/* the attacker dropped its privileges */
	atomic_bool stop;	/* finish the pair and exit */
	atomic_bool running;	/* pfx_extract() is running */
	atomic_bool hot;	/* it is at its last entries */
	atomic_ulong scans;	/* listings of P */
	atomic_ulong pairs;	/* exchanged and exchanged back */
	atomic_ulong staged;	/* of those, of a staging entry, while
				   pfx_extract() ran */
	atomic_ulong dests;	/* of those, of DEST */
	atomic_ulong stuck;	/* exchanged, but could not exchange back */
	atomic_int error;	/* the first unexpected errno, or 0 */
	char error_what[128];
	char stuck_what[256];
};

/* What one test does. */
struct variant {
	const char *name;
	bool truncated;		/* the archive is cut short: the run fails */
	bool empty_dest;	/* DEST is an empty directory at the start */
	bool control;		/* no extraction: the attacker alone */
	unsigned int flags;	/* more PFX_OPT_* */
};

/* The archive of the running test. */
struct plan {
	char *buf;
	size_t len;		/* used, or the cut of a truncated one */
	size_t entries;		/* decide() calls of a run without a race */
	char *tree;		/* what DEST holds after a good run */
};

/* One trial, and everything end_trial() releases. */
struct trial {
	const struct variant *v;
	const struct plan *plan;
	char top[TOP_MAX];	/* "$TMPDIR/pfx-arace.XXXXXX" */
	int topfd;
	int pfd;		/* TOP/p */
	pid_t pid;		/* the attacker */
	struct shared *sh;
	char *before;		/* of TOP, DEST and staging aside */
	char *after;
	ino_t vino[NVICTIMS];	/* the victims' inodes */
	ino_t dest_ino;		/* the empty DEST, if any */
	unsigned long decided;	/* decide() calls */
};

/* What all the trials of one test did, for its last word. */
struct totals {
	unsigned long published;
	unsigned long failed;
	unsigned long leftovers;
	unsigned long early;	/* failed before the first entry */
	unsigned long pairs;
	unsigned long staged;
	unsigned long dests;
	double seconds;
};

static const char *const victims[NVICTIMS] = { "v0", "v1", "v2", "v3" };
static const mode_t victim_modes[NVICTIMS] = { 0755, 0755, 0700, 0555 };

/* The trial and the archive of the running test, for teardown(). */
static struct trial *current;
static struct plan the_plan;
static mode_t old_umask;

/* --- time ------------------------------------------------------------- */

static long long
now_ns(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void
nap_ns(long ns)
{
	struct timespec ts;

	ts.tv_sec = ns / 1000000000L;
	ts.tv_nsec = ns % 1000000000L;
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		continue;
}

/* --- the archive ------------------------------------------------------ */

/* Add an entry to the archive A being written. */
static void
add_entry(struct archive *a, const char *name, mode_t type, mode_t perm,
    const char *data)
{
	struct archive_entry *e = archive_entry_new();
	size_t len = data != NULL ? strlen(data) : 0;

	cr_assert(e != NULL);
	archive_entry_set_pathname(e, name);
	archive_entry_set_filetype(e, type);
	archive_entry_set_perm(e, perm);
	archive_entry_set_mtime(e, ENTRY_SEC, 0);
	archive_entry_set_size(e, (la_int64_t)len);
	cr_assert(archive_write_header(a, e) == ARCHIVE_OK, "%s: %s", name,
	    archive_error_string(a));
	if (len > 0)
		cr_assert(archive_write_data(a, data, len) == (la_ssize_t)len);
	archive_entry_free(e);
}

/*
 * Build the archive in P: dK/ (0555 for every third K, read-only, so
 * that removing the tree must chmod it first), dK/fJ, dK/s/ (0700) and
 * dK/s/gJ.  A truncated one is cut inside an entry some nine tenths in,
 * not at a block boundary, where a tar reader may take the end for a
 * missing end marker.
 */
static void
build_plan(struct plan *p, bool truncated)
{
	struct archive *a;
	char name[64], data[64];
	size_t used = 0, entries = 0;
	unsigned int k, j;

	memset(p, 0, sizeof(*p));
	p->buf = malloc(ARCHIVE_CAP);
	cr_assert(p->buf != NULL);
	a = archive_write_new();
	cr_assert(a != NULL);
	cr_assert(archive_write_set_format_pax(a) == ARCHIVE_OK);
	cr_assert(archive_write_set_bytes_in_last_block(a, 1) == ARCHIVE_OK);
	cr_assert(archive_write_open_memory(a, p->buf, ARCHIVE_CAP, &used) ==
	    ARCHIVE_OK);
	for (k = 0; k < NDIRS; k++) {
		snprintf(name, sizeof(name), "d%u/", k);
		add_entry(a, name, AE_IFDIR, k % 3 == 0 ? 0555 : 0755, NULL);
		entries++;
		for (j = 0; j < NFILES; j++) {
			snprintf(name, sizeof(name), "d%u/f%u", k, j);
			snprintf(data, sizeof(data), "pfx-archive %u %u\n", k,
			    j);
			add_entry(a, name, AE_IFREG, j % 2 ? 0444 : 0644,
			    data);
			entries++;
		}
		snprintf(name, sizeof(name), "d%u/s/", k);
		add_entry(a, name, AE_IFDIR, 0700, NULL);
		entries++;
		for (j = 0; j < NSUB; j++) {
			snprintf(name, sizeof(name), "d%u/s/g%u", k, j);
			snprintf(data, sizeof(data), "pfx-sub %u %u\n", k, j);
			add_entry(a, name, AE_IFREG, 0600, data);
			entries++;
		}
	}
	cr_assert(archive_write_close(a) == ARCHIVE_OK);
	archive_write_free(a);
	p->len = used;
	p->entries = entries;
	if (truncated)
		p->len = (used * 9 / 10) / 512 * 512 + 100;
}

static void
free_plan(struct plan *p)
{
	free(p->buf);
	free(p->tree);
	memset(p, 0, sizeof(*p));
}

/* --- snapshots -------------------------------------------------------- */

/* What a snapshot line holds beyond the path, type, mode and owner. */
#define SNAP_INO	0x1	/* the inode number */
#define SNAP_CONTENT	0x2	/* size, link count, mtime, content hash */
#define SNAP_ALL	(SNAP_INO | SNAP_CONTENT)

static void snap_dir(FILE *, int, const char *, int);

/*
 * Write to OUT the line of DIRFD/NAME, shown as PATH, with what FLAGS
 * asks for, and with DEEP the lines of everything beneath it, never
 * following a symlink.
 */
static void
snap_entry(FILE *out, int dirfd, const char *name, const char *path,
    int flags, bool deep)
{
	char target[PATH_MAX];
	struct stat st;
	ssize_t n;
	int fd;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == -1) {
		fprintf(out, "%s: %s\n", path, strerror(errno));
		return;
	}
	fprintf(out, "%s %c %04o uid=%u gid=%u", path,
	    tfx_kind_of(st.st_mode), (unsigned int)(st.st_mode & 07777),
	    (unsigned int)st.st_uid, (unsigned int)st.st_gid);
	if ((flags & SNAP_INO) != 0)
		fprintf(out, " ino=%llu", (unsigned long long)st.st_ino);
	if ((flags & SNAP_CONTENT) != 0) {
		fprintf(out, " size=%lld nlink=%lu mtime=%lld.%09ld",
		    (long long)st.st_size, (unsigned long)st.st_nlink,
		    (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
		if (S_ISREG(st.st_mode))
			fprintf(out, " fnv=%016llx",
			    (unsigned long long)tfx_hash_at(dirfd, name));
	}
	if (S_ISLNK(st.st_mode)) {
		n = readlinkat(dirfd, name, target, sizeof(target) - 1);
		target[n >= 0 ? n : 0] = '\0';
		fprintf(out, " -> %s", target);
	}
	fputc('\n', out);
	if (!deep || !S_ISDIR(st.st_mode))
		return;
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (fd == -1) {
		fprintf(out, "%s/: %s\n", path, strerror(errno));
		return;
	}
	snap_dir(out, fd, path, flags);
	(void)close(fd);
}

/* Write to OUT the lines of everything beneath the directory DIRFD. */
static void
snap_dir(FILE *out, int dirfd, const char *prefix, int flags)
{
	char path[PATH_MAX], **names;
	ssize_t n, i;

	n = tfx_read_names(dirfd, ".", &names);
	if (n < 0) {
		fprintf(out, "%s/: %s\n", prefix, strerror((int)-n));
		return;
	}
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", prefix, names[i]);
		snap_entry(out, dirfd, names[i], path, flags, true);
		free(names[i]);
	}
	free(names);
}

/* Is NAME, an entry of P, one the extractor may make: DEST or staging? */
static bool
is_extractors(const char *name)
{
	return strcmp(name, DEST) == 0 ||
	    strncmp(name, STAGE_PREFIX, strlen(STAGE_PREFIX)) == 0;
}

/*
 * Snapshot everything in TOP that the extractor must not change: all of
 * it but p/dest and p/.dest.pfx-*, each line with its inode number.  TOP
 * and P get no times, sizes or link counts (renames in P change them),
 * everything beneath them gets everything.
 * Return: the snapshot, which the caller frees.
 */
static char *
snap_fixture(const struct trial *t)
{
	char path[PATH_MAX], **names, **pnames;
	char *buf = NULL;
	size_t len = 0;
	ssize_t n, pn, i, j;
	FILE *out;

	out = open_memstream(&buf, &len);
	cr_assert(out != NULL, "open_memstream: %s", strerror(errno));
	snap_entry(out, t->topfd, ".", ".", SNAP_INO, false);
	n = tfx_read_names(t->topfd, ".", &names);
	cr_assert(n >= 0, "list TOP: %s", strerror((int)-n));
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "./%s", names[i]);
		if (strcmp(names[i], "p") != 0) {
			snap_entry(out, t->topfd, names[i], path, SNAP_ALL,
			    true);
			free(names[i]);
			continue;
		}
		snap_entry(out, t->topfd, "p", path, SNAP_INO, false);
		pn = tfx_read_names(t->pfd, ".", &pnames);
		cr_assert(pn >= 0, "list P: %s", strerror((int)-pn));
		for (j = 0; j < pn; j++) {
			snprintf(path, sizeof(path), "./p/%s", pnames[j]);
			if (!is_extractors(pnames[j]))
				snap_entry(out, t->pfd, pnames[j], path,
				    SNAP_ALL, true);
			free(pnames[j]);
		}
		free(pnames);
		free(names[i]);
	}
	free(names);
	cr_assert(fclose(out) == 0, "snapshot: %s", strerror(errno));
	return buf;
}

/* Snapshot what is beneath the directory NAME in DIRFD, inodes aside. */
static char *
snap_tree(int dirfd, const char *name)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out;
	int fd;

	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	cr_assert(fd >= 0, "open %s: %s", name, strerror(errno));
	out = open_memstream(&buf, &len);
	cr_assert(out != NULL, "open_memstream: %s", strerror(errno));
	snap_dir(out, fd, ".", SNAP_CONTENT);
	cr_assert(fclose(out) == 0, "snapshot: %s", strerror(errno));
	(void)close(fd);
	return buf;
}

/* The decide() hook of reference(): count the entries. */
static int
count_decide(void *arg, const struct pfx_entry *entry, char *rename,
    size_t cap)
{
	(void)entry;
	(void)rename;
	(void)cap;
	(*(size_t *)arg)++;
	return PFX_HOOK_CONTINUE;
}

/*
 * Extract the archive without PFX_OPT_ATOMIC and without a race into a
 * directory of its own: count the decide() calls of a run, for the
 * attacker's pace and its last entries, and keep the tree a good run
 * publishes.
 */
static void
reference(struct plan *p, bool truncated)
{
	const char *tmp = getenv("TMPDIR");
	struct pfx_options opt;
	struct pfx_result res;
	struct pfx_input in;
	char ref[TOP_MAX + 32];
	enum pfx_status st;
	int e;

	snprintf(ref, sizeof(ref), "%s/pfx-aref.XXXXXX",
	    tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
	cr_assert(mkdtemp(ref) != NULL, "mkdtemp: %s", strerror(errno));
	memset(&in, 0, sizeof(in));
	in.fd = -1;
	in.buf = p->buf;
	in.len = p->len;
	pfx_options_init(&opt);
	p->entries = 0;
	opt.hooks.decide = count_decide;
	opt.hooks.arg = &p->entries;
	st = pfx_extract(&in, AT_FDCWD, ref, &opt, &res);
	cr_assert(st == (truncated ? PFX_FATAL : PFX_OK), "the reference "
	    "extraction: %d: %s", (int)st, res.message);
	cr_assert(p->entries > HOT_ENTRIES, "the reference extraction: "
	    "only %zu entries", p->entries);
	if (!truncated)
		p->tree = snap_tree(AT_FDCWD, ref);
	e = tfx_rm_tree(ref);
	cr_assert(e == 0, "remove %s: %s", ref, strerror(-e));
}

/* --- the fixture ------------------------------------------------------ */

static void
put_file(int dirfd, const char *name, const char *data, mode_t mode)
{
	size_t len = strlen(data);
	int fd;

	fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, mode);
	cr_assert(fd >= 0, "create %s: %s", name, strerror(errno));
	cr_assert(write(fd, data, len) == (ssize_t)len, "write %s", name);
	cr_assert(fchmod(fd, mode) == 0);
	cr_assert(close(fd) == 0);
}

/* Make the directory NAME in DIRFD with exactly MODE; return it open. */
static int
make_dir(int dirfd, const char *name, mode_t mode)
{
	int fd;

	cr_assert(mkdirat(dirfd, name, 0700) == 0, "mkdir %s: %s", name,
	    strerror(errno));
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	cr_assert(fd >= 0, "open %s: %s", name, strerror(errno));
	cr_assert(fchmod(fd, mode) == 0, "chmod %s: %s", name,
	    strerror(errno));
	return fd;
}

/* Make the fixture drawn at the top of this file in a fresh TOP. */
static void
make_fixture(struct trial *t)
{
	const char *tmp = getenv("TMPDIR");
	struct stat st;
	unsigned int k;
	int fd, sub;

	snprintf(t->top, sizeof(t->top), "%s/pfx-arace.XXXXXX",
	    tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
	cr_assert(mkdtemp(t->top) != NULL, "mkdtemp: %s", strerror(errno));
	t->topfd = open(t->top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert(t->topfd >= 0, "open %s: %s", t->top, strerror(errno));
	/* Writable by all, and no sticky bit: anyone may rename in it. */
	t->pfd = make_dir(t->topfd, "p", 0777);
	for (k = 0; k < NVICTIMS; k++) {
		fd = make_dir(t->pfd, victims[k], 0700);
		if (k != EMPTY_VICTIM) {
			put_file(fd, "keep", "victim keep\n", 0644);
			put_file(fd, "secret", "victim secret\n", 0600);
			sub = make_dir(fd, "sub", 0755);
			put_file(sub, "keep", "victim sub keep\n", 0644);
			cr_assert(close(sub) == 0);
		}
		cr_assert(fchmod(fd, victim_modes[k]) == 0);
		cr_assert(fstat(fd, &st) == 0);
		t->vino[k] = st.st_ino;
		cr_assert(close(fd) == 0);
	}
	fd = make_dir(t->topfd, "outside", 0755);
	put_file(fd, "keep", "outside keep\n", 0644);
	sub = make_dir(fd, "dir", 0755);
	put_file(sub, "keep", "outside dir keep\n", 0644);
	cr_assert(close(sub) == 0);
	cr_assert(close(fd) == 0);
	if (t->v->empty_dest) {
		fd = make_dir(t->pfd, DEST, DEST_MODE);
		cr_assert(fstat(fd, &st) == 0);
		t->dest_ino = st.st_ino;
		cr_assert(close(fd) == 0);
	}
}

/* --- the attacker ----------------------------------------------------- */

/* Note the first unexpected failure of the attacker: WHAT, and errno E. */
static void
attacker_error(struct shared *sh, const char *what, int e)
{
	int zero = 0;

	if (atomic_compare_exchange_strong(&sh->error, &zero, e))
		snprintf(sh->error_what, sizeof(sh->error_what), "%s", what);
}

/*
 * Keep a victim at the attacked name, or the name as it is, a random
 * moment: mostly a spin of up to HOLD_SHORT_NS, which hits the short
 * windows between a check and a use, now and then a sleep of up to
 * HOLD_LONG_NS, which outlasts longer steps.  Near the end of the run,
 * when the staging tree is published or removed, only spins of up to
 * HOLD_HOT_NS: the windows there last microseconds, and the more often
 * the names change, the likelier one of them holds a change.
 */
static void
hold(struct shared *sh, unsigned int *seed)
{
	long long until;
	long ns, most = HOLD_SHORT_NS;

	if (atomic_load(&sh->hot))
		most = HOLD_HOT_NS;
	else if (rand_r(seed) % HOLD_LONG_EVERY == 0) {
		nap_ns((long)((unsigned long)rand_r(seed) %
		    (unsigned long)HOLD_LONG_NS));
		return;
	}
	ns = (long)((unsigned long)rand_r(seed) % (unsigned long)most);
	until = now_ns() + ns;
	while (now_ns() < until)
		continue;
}

/*
 * One pair: exchange the entry NAME of P (PFD) with a victim, hold, and
 * exchange back.  A staging entry gets the empty victim half the time.
 * DEST never does: an empty directory at DEST when the run looks is, to
 * the extractor, the empty DEST it was asked to replace, and nothing can
 * tell the two apart (the attacker could remove an empty directory of P
 * itself, anyway); a full one there must make the run fail.
 * Return: 0, or -errno of the first exchange (-ENOENT: NAME is gone), or
 * -EIO when the exchange back failed (counted as stuck).
 */
static int
attack(struct shared *sh, int dirfd, int pfd, const char *name,
    unsigned int *seed)
{
	const char *v;
	unsigned int r = (unsigned int)rand_r(seed);
	bool dest = strcmp(name, DEST) == 0;
	unsigned long n;
	int e;

	if (r % 2 == 0 && !dest)
		v = victims[EMPTY_VICTIM];
	else
		v = victims[1 + (r / 2) % (NVICTIMS - 1)];
	if (renameat2(dirfd, name, pfd, v, RENAME_EXCHANGE) == -1) {
		e = errno;
		/*
		 * A staging entry in a directory closed to the attacker
		 * (TOP): the kernel refuses, which is the point; it still
		 * counts as a try at the staging entry.
		 */
		if ((e == EACCES || e == EPERM) && dirfd != pfd) {
			if (atomic_load(&sh->running))
				atomic_fetch_add(&sh->staged, 1);
			return -e;
		}
		if (e != ENOENT)
			attacker_error(sh, "exchange an entry of P with a "
			    "victim", e);
		return -e;
	}
	hold(sh, seed);
	if (renameat2(dirfd, name, pfd, v, RENAME_EXCHANGE) == -1) {
		e = errno;
		n = atomic_fetch_add(&sh->stuck, 1);
		if (n == 0)
			snprintf(sh->stuck_what, sizeof(sh->stuck_what),
			    "%s stood at %s, and could not be put back: %s "
			    "(the extractor removed or renamed it)", v, name,
			    strerror(e));
		return -EIO;
	}
	atomic_fetch_add(&sh->pairs, 1);
	if (dest)
		atomic_fetch_add(&sh->dests, 1);
	else if (atomic_load(&sh->running))
		atomic_fetch_add(&sh->staged, 1);
	hold(sh, seed);
	return 0;
}

/*
 * List P from the start into NAMES (up to CAP names of NAME_MAX + 1
 * bytes): the entries named STAGE_PREFIX*, and DEST.
 * Return: how many, or -errno.
 */
static int
scan(int pfd, char (*names)[NAME_MAX + 1], int cap)
{
	_Alignas(struct dirent64) char buf[4096];
	struct dirent64 *de;
	ssize_t n, off;
	int found = 0;

	if (lseek(pfd, 0, SEEK_SET) == -1)
		return -errno;
	for (;;) {
		n = getdents64(pfd, buf, sizeof(buf));
		if (n == -1)
			return -errno;
		if (n == 0)
			return found;
		for (off = 0; off < n; off += de->d_reclen) {
			de = (struct dirent64 *)(void *)(buf + off);
			if (found == cap)
				continue;
			if (strncmp(de->d_name, STAGE_PREFIX,
			    strlen(STAGE_PREFIX)) == 0 ||
			    strcmp(de->d_name, DEST) == 0)
				snprintf(names[found++], NAME_MAX + 1, "%s",
				    de->d_name);
		}
	}
}

/*
 * Pick one of the N names found: DEST only one time in four, since every
 * run has a staging entry to remove or publish and DEST matters only to
 * a publication over an empty one, and before the staging entry exists a
 * full victim at DEST merely stops the run before its first entry.
 * Return: its index, or -1 to list P again.
 */
static int
pick(char (*names)[NAME_MAX + 1], int n, unsigned int *seed)
{
	int i = (int)((unsigned int)rand_r(seed) % (unsigned int)n);

	if (strcmp(names[i], DEST) != 0 || rand_r(seed) % 4 == 0)
		return i;
	return n > 1 ? (i + 1) % n : -1;
}

/* Become nobody: no supplementary groups, gid and uid 65534. */
static int
drop_privileges(struct shared *sh)
{
	if (setgroups(0, NULL) == -1) {
		attacker_error(sh, "setgroups", errno);
		return -1;
	}
	if (setgid(NOBODY) == -1) {
		attacker_error(sh, "setgid", errno);
		return -1;
	}
	if (setuid(NOBODY) == -1) {
		attacker_error(sh, "setuid", errno);
		return -1;
	}
	if (geteuid() != NOBODY || getegid() != NOBODY) {
		attacker_error(sh, "drop privileges", EPERM);
		return -1;
	}
	return 0;
}

/*
 * The attacker's process: as nobody, until told to stop, list P and
 * attack what it finds.  PFD is P, reopened here so that listing it does
 * not move the parent's offset.  It never returns.
 */
static void __attribute__((noreturn))
attacker_main(struct shared *sh, int pfd, int topfd, unsigned int seed)
{
	char names[4][NAME_MAX + 1];
	int fd, tfd, n, i, k, e;

	/* Gone with the test, should it be killed at its timeout. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1 || getppid() == 1)
		_exit(2);
	/* Spins and short sleeps, not the default 50 us of slack. */
	(void)prctl(PR_SET_TIMERSLACK, 1UL);
	fd = openat(pfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd == -1) {
		attacker_error(sh, "open P", errno);
		_exit(1);
	}
	/* TOP too, where a staging entry may go: listed, never writable. */
	tfd = openat(topfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (tfd == -1) {
		attacker_error(sh, "open TOP", errno);
		_exit(1);
	}
	if (drop_privileges(sh) == -1)
		_exit(1);
	atomic_store(&sh->ready, true);
	while (!atomic_load(&sh->stop)) {
		n = scan(tfd, names, 4);
		for (i = 0; i < n; i++)
			if (strcmp(names[i], DEST) != 0)
				(void)attack(sh, tfd, fd, names[i], &seed);
		n = scan(fd, names, 4);
		atomic_fetch_add(&sh->scans, 1);
		if (n < 0) {
			attacker_error(sh, "list P", -n);
			_exit(1);
		}
		if (n == 0) {
			sched_yield();
			continue;
		}
		for (i = 0; i < PAIRS_PER_SCAN && !atomic_load(&sh->stop);
		    i++) {
			k = pick(names, n, &seed);
			if (k < 0)
				break;
			e = attack(sh, fd, fd, names[k], &seed);
			if (e == -ENOENT)
				break;	/* gone: list P again */
		}
	}
	_exit(0);
}

/* Start the attacker, and wait until it is nobody. */
static void
start_attacker(struct trial *t, unsigned int seed)
{
	long long deadline;
	int status;

	t->sh = mmap(NULL, sizeof(*t->sh), PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	cr_assert(t->sh != MAP_FAILED, "mmap: %s", strerror(errno));
	memset(t->sh, 0, sizeof(*t->sh));
	t->pid = fork();
	cr_assert(t->pid != -1, "fork: %s", strerror(errno));
	if (t->pid == 0)
		attacker_main(t->sh, t->pfd, t->topfd, seed);
	deadline = now_ns() + 10000000000LL;
	while (!atomic_load(&t->sh->ready)) {
		if (waitpid(t->pid, &status, WNOHANG) == t->pid) {
			t->pid = -1;
			cr_assert_fail("the attacker died before it began: "
			    "%s: %s", t->sh->error_what,
			    strerror(t->sh->error));
		}
		cr_assert(now_ns() < deadline, "the attacker never began");
		nap_ns(100000);
	}
}

/*
 * Stop the attacker: it finishes the pair it is in, so that every victim
 * it moved is back, and exits.  Safe to call twice.
 * Return: its exit status as waitpid() gives it, or -1 if there was none.
 */
static int
stop_attacker(struct trial *t)
{
	long long deadline = now_ns() + 10000000000LL;
	pid_t w;
	int status = -1;

	if (t->pid <= 0)
		return -1;
	atomic_store(&t->sh->stop, true);
	for (;;) {
		w = waitpid(t->pid, &status, WNOHANG);
		if (w == t->pid || (w == -1 && errno != EINTR))
			break;
		if (now_ns() > deadline) {
			(void)kill(t->pid, SIGKILL);
			(void)waitpid(t->pid, &status, 0);
			status = -1;
			break;
		}
		nap_ns(100000);
	}
	t->pid = -1;
	return status;
}

/* --- running a trial -------------------------------------------------- */

/* Release the running trial: stop the attacker, remove the fixture. */
static void
end_trial(void)
{
	struct trial *t = current;
	int e;

	if (t == NULL)
		return;
	(void)stop_attacker(t);
	if (t->sh != NULL && t->sh != MAP_FAILED)
		(void)munmap(t->sh, sizeof(*t->sh));
	if (t->pfd >= 0)
		(void)close(t->pfd);
	if (t->topfd >= 0)
		(void)close(t->topfd);
	if (t->top[0] != '\0') {
		e = tfx_rm_tree(t->top);
		if (e < 0)
			cr_log_warn("remove %s: %s", t->top, strerror(-e));
	}
	free(t->before);
	free(t->after);
	free(t);
	current = NULL;
}

/* The suite's fini: whatever an assertion left half-done. */
static void
teardown(void)
{
	end_trial();
	free_plan(&the_plan);
	(void)umask(old_umask);
}

static void
setup(void)
{
	/* A new DEST is published 0777 less the umask: make it known. */
	old_umask = umask(022);
}

/*
 * The decide() hook, in this process.  Keep the race real however fast
 * the extractor is: when the attacker is behind the pace that gives
 * MIN_ACTIONS exchanges of the staging entry over the archive (it may get
 * no CPU for a while: the tests run two at a time on two CPUs), the
 * extractor waits for it, 100 us at a time, 100 ms at most, at this
 * entry.  Fewer than MIN_ACTIONS fails check 5.  At the last HOT_ENTRIES
 * the attacker is told to exchange as fast as it can, and at the very
 * last the extractor waits until it has seen it exchange twice more, so
 * that it is running, not waiting for a CPU, when the run ends and the
 * staging tree is published or removed.
 */
static int
on_decide(void *arg, const struct pfx_entry *entry, char *rename, size_t cap)
{
	struct trial *t = arg;
	unsigned long want, pairs;
	int i;

	(void)entry;
	(void)rename;
	(void)cap;
	t->decided++;
	want = MIN_ACTIONS * t->decided / t->plan->entries + 1;
	if (want > MIN_ACTIONS)
		want = MIN_ACTIONS;
	for (i = 0; i < 1000 && atomic_load(&t->sh->staged) < want; i++)
		nap_ns(100000);
	if (t->decided + HOT_ENTRIES >= t->plan->entries)
		atomic_store(&t->sh->hot, true);
	if (t->decided == t->plan->entries) {
		pairs = atomic_load(&t->sh->pairs);
		for (i = 0; i < 1000 && atomic_load(&t->sh->pairs) < pairs + 2;
		    i++)
			nap_ns(10000);
	}
	return PFX_HOOK_CONTINUE;
}

/* The control's own ".dest.pfx-" entry. */
#define CONTROL_NAME STAGE_PREFIX "control"

/*
 * The control: no extraction, the attacker alone at our own staging
 * entry until it has made MIN_ACTIONS exchanges of it, or a second.
 */
static void
run_control(struct trial *t, struct pfx_result *res)
{
	int i;

	memset(res, 0, sizeof(*res));
	res->status = PFX_FATAL;
	cr_assert(mkdirat(t->pfd, CONTROL_NAME, 0700) == 0, "mkdir %s: %s",
	    CONTROL_NAME, strerror(errno));
	atomic_store(&t->sh->running, true);
	for (i = 0; i < 10000 &&
	    atomic_load(&t->sh->staged) < MIN_ACTIONS; i++)
		nap_ns(100000);
	atomic_store(&t->sh->running, false);
}

/*
 * Check 3: every ".dest.pfx-" entry left in P is named in MESSAGE, and
 * MESSAGE names one only if one is left.
 * Return: how many were left.
 */
static unsigned long
check_leftovers(const struct trial *t, const char *who, const char *message)
{
	char **names;
	ssize_t n, i;
	unsigned long left = 0;

	n = tfx_read_names(t->pfd, ".", &names);
	cr_assert(n >= 0, "%s: list P: %s", who, strerror((int)-n));
	for (i = 0; i < n; i++) {
		if (strncmp(names[i], STAGE_PREFIX, strlen(STAGE_PREFIX)) ==
		    0) {
			left++;
			cr_expect(strstr(message, names[i]) != NULL, "%s: the "
			    "staging entry %s was left in DEST's parent, and "
			    "the run did not say so (its message: \"%s\")",
			    who, names[i], message);
		}
		free(names[i]);
	}
	free(names);
	cr_expect(left > 0 || strstr(message, STAGE_PREFIX) == NULL, "%s: the "
	    "run says it left a staging entry, and none is there (its "
	    "message: \"%s\")", who, message);
	return left;
}

/* Check 4: DEST, after a run that ended with RES. */
static void
check_dest(struct trial *t, const char *who, const struct pfx_result *res)
{
	struct stat st;
	unsigned int k;
	char **names, *tree;
	ssize_t n, i;
	int e;

	e = fstatat(t->pfd, DEST, &st, AT_SYMLINK_NOFOLLOW) == 0 ? 0 : errno;
	/*
	 * A run that published and then found its private directory's name
	 * taken by another (or could not remove it) is fatal, and says so
	 * with "published": DEST is then judged as after a success.
	 */
	if (res->status == PFX_FATAL && strncmp(res->message, "p/" DEST
	    ": published", strlen("p/" DEST ": published")) != 0) {
		if (!t->v->empty_dest) {
			cr_assert(e == ENOENT, "%s: the run failed (%s), and "
			    "DEST, absent before, is there now: %s", who,
			    res->message, e == 0 ? "exists" : strerror(e));
			return;
		}
		cr_assert(e == 0, "%s: the run failed (%s), and the empty "
		    "DEST is gone: %s", who, res->message, strerror(e));
		cr_assert(S_ISDIR(st.st_mode) && st.st_ino == t->dest_ino &&
		    (st.st_mode & 07777) == DEST_MODE, "%s: the run failed "
		    "(%s), and DEST is not the empty directory it was "
		    "(ino %llu mode %04o, was ino %llu mode %04o)", who,
		    res->message, (unsigned long long)st.st_ino,
		    (unsigned int)(st.st_mode & 07777),
		    (unsigned long long)t->dest_ino, DEST_MODE);
		n = tfx_read_names(t->pfd, DEST, &names);
		cr_assert(n >= 0, "%s: list DEST: %s", who,
		    strerror((int)-n));
		for (i = 0; i < n; i++)
			free(names[i]);
		free(names);
		cr_assert(n == 0, "%s: the run failed (%s), and the empty "
		    "DEST holds %zd names now", who, res->message, n);
		return;
	}
	cr_assert(!t->v->truncated, "%s: a truncated archive was published",
	    who);
	cr_assert(e == 0 && S_ISDIR(st.st_mode), "%s: the run reported "
	    "success, and DEST is not a directory: %s", who,
	    e != 0 ? strerror(e) : "another type");
	for (k = 0; k < NVICTIMS; k++)
		cr_assert(st.st_ino != t->vino[k], "%s: the victim %s was "
		    "published as DEST", who, victims[k]);
	cr_assert(!t->v->empty_dest || st.st_ino != t->dest_ino, "%s: the "
	    "run reported success, and DEST is still the old empty one",
	    who);
	cr_assert((st.st_mode & 07777) == (t->v->empty_dest ? DEST_MODE :
	    0755), "%s: DEST has mode %04o", who,
	    (unsigned int)(st.st_mode & 07777));
	tree = snap_tree(t->pfd, DEST);
	cr_assert(strcmp(tree, t->plan->tree) == 0, "%s: DEST does not hold "
	    "the archive's tree.\nwant:\n%s\ngot:\n%s", who, t->plan->tree,
	    tree);
	free(tree);
}

/* Run trial TRIAL of the test V, and judge it. */
static void
run_trial(const struct variant *v, unsigned int trial, struct totals *tot)
{
	struct pfx_options opt;
	struct pfx_result res;
	struct pfx_input in;
	struct trial *t;
	char who[96];
	unsigned int seed;
	long long t0;
	int status;

	t = calloc(1, sizeof(*t));
	cr_assert(t != NULL);
	current = t;
	t->v = v;
	t->plan = &the_plan;
	t->topfd = t->pfd = -1;
	t->pid = -1;
	seed = (unsigned int)time(NULL) ^ (unsigned int)getpid() ^
	    (trial * 7919u);
	make_fixture(t);
	t->before = snap_fixture(t);
	start_attacker(t, seed);
	snprintf(who, sizeof(who), "%s trial %u (%s)", v->name, trial,
	    trial % 2 == 0 ? "openat2" : "walk");

	pfx_options_init(&opt);
	opt.flags |= PFX_OPT_ATOMIC | v->flags;
	opt.resolver = trial % 2 == 0 ? PFX_RESOLVER_OPENAT2 :
	    PFX_RESOLVER_WALK;
	opt.hooks.decide = on_decide;
	opt.hooks.arg = t;
	memset(&in, 0, sizeof(in));
	in.fd = -1;
	in.buf = the_plan.buf;
	in.len = the_plan.len;
	t0 = now_ns();
	if (v->control) {
		run_control(t, &res);
	} else {
		atomic_store(&t->sh->running, true);
		(void)pfx_extract(&in, t->topfd, "p/" DEST, &opt, &res);
		atomic_store(&t->sh->running, false);
		atomic_store(&t->sh->hot, false);
	}
	tot->seconds += (double)(now_ns() - t0) / 1e9;
	status = stop_attacker(t);
	/* Ours, and the attacker is gone: removing it by name is safe. */
	if (v->control)
		cr_assert(unlinkat(t->pfd, CONTROL_NAME, AT_REMOVEDIR) == 0,
		    "rmdir %s: %s", CONTROL_NAME, strerror(errno));

	if (res.status == PFX_FATAL && res.error == ENOSYS &&
	    opt.resolver == PFX_RESOLVER_OPENAT2 && res.stats.entries == 0)
		cr_skip_test("openat2 is not available here");
	/* Check 1: the attacker did what it was to do, and nothing else. */
	if (t->sh->error == EINVAL || t->sh->error == ENOSYS)
		cr_skip_test("renameat2(RENAME_EXCHANGE) is not available in "
		    "%s", t->top);
	cr_assert(t->sh->error == 0, "%s: the attacker failed to %s: %s", who,
	    t->sh->error_what, strerror(t->sh->error));
	cr_assert(status != -1 && WIFEXITED(status) &&
	    WEXITSTATUS(status) == 0, "%s: the attacker did not exit well "
	    "(%d)", who, status);

	/* Check 2: nothing outside DEST changed, the victims above all. */
	t->after = snap_fixture(t);
	cr_assert(strcmp(t->before, t->after) == 0 &&
	    atomic_load(&t->sh->stuck) == 0, "%s: a victim or another entry "
	    "beside DEST changed (the run: %s; %lu exchanges could not be "
	    "undone%s%s).\nbefore:\n%s\nafter:\n%s", who, res.message,
	    atomic_load(&t->sh->stuck),
	    atomic_load(&t->sh->stuck) > 0 ? ": " : "",
	    t->sh->stuck_what, t->before, t->after);

	/* Checks 3 and 4: what is left in P, and DEST. */
	tot->leftovers += check_leftovers(t, who, res.message);
	if (!v->control)
		check_dest(t, who, &res);
	if (v->truncated)
		cr_assert(res.status == PFX_FATAL, "%s: a truncated archive "
		    "did not fail", who);
	if (res.status == PFX_FATAL)
		tot->failed++;
	else
		tot->published++;

	/*
	 * Check 5: the race was real.  A run that stopped before its first
	 * entry (the attacker had a full victim at DEST when it looked) may
	 * have made no staging entry at all; run_race() counts those.
	 */
	if (v->control || t->decided > 0)
		cr_assert(atomic_load(&t->sh->staged) >= MIN_ACTIONS, "%s: "
		    "only %lu exchanges of the staging entry while "
		    "pfx_extract() ran", who, atomic_load(&t->sh->staged));
	else
		tot->early++;
	tot->pairs += atomic_load(&t->sh->pairs);
	tot->staged += atomic_load(&t->sh->staged);
	tot->dests += atomic_load(&t->sh->dests);
	end_trial();
}

/* How many trials: NTRIALS, or SOAK_SCALE times $PFX_RACE_TRIALS. */
static unsigned int
ntrials(void)
{
	const char *s = getenv("PFX_RACE_TRIALS");

	if (s == NULL || *s == '\0')
		return NTRIALS;
	return tfx_race_trials(NTRIALS, MAX_TRIALS) * SOAK_SCALE;
}

/* Run ntrials() trials of the test V. */
static void
run_race(const struct variant *v)
{
	struct totals tot;
	unsigned int i, n = ntrials();
	int fds, e;

	if (geteuid() != 0)
		cr_skip_test("the attacker must be another user: run as root");
	fds = tfx_count_fds();
	build_plan(&the_plan, v->truncated);
	reference(&the_plan, v->truncated);
	memset(&tot, 0, sizeof(tot));
	for (i = 0; i < n; i++)
		run_trial(v, i, &tot);
	/* Check 6: no descriptor leaked, by the library or by us. */
	e = tfx_count_fds();
	cr_expect(e == fds, "%s: %d descriptors before, %d after", v->name,
	    fds, e);
	cr_log_info("%s: %u trials in %.2f s of extraction: %lu published, "
	    "%lu failed (%lu before the first entry), %lu staging entries "
	    "left and reported; the "
	    "attacker made %lu exchange pairs, %lu of the staging entry "
	    "while pfx_extract() ran, %lu of DEST", v->name, n, tot.seconds,
	    tot.published, tot.failed, tot.early, tot.leftovers, tot.pairs,
	    tot.staged, tot.dests);
	/*
	 * An empty DEST in P, which the attacker can write, is never
	 * exchanged: every such run is refused before its first entry, and
	 * check 4 saw DEST untouched.
	 */
	if (v->empty_dest) {
		cr_expect(tot.early == n && tot.published == 0, "%s: %lu of "
		    "%u runs went past the refusal of an empty DEST in a "
		    "parent others can write", v->name, n - tot.early, n);
		free_plan(&the_plan);
		return;
	}
	if (!v->truncated && !v->control)
		cr_expect(tot.published > 0, "%s: no run was ever published",
		    v->name);
	cr_expect(tot.early <= n / 2, "%s: %lu of %u runs failed before "
	    "their first entry: the race was hardly run", v->name, tot.early,
	    n);
	free_plan(&the_plan);
}

TestSuite(atomic_race, .init = setup, .fini = teardown, .timeout = 120.);

Test(atomic_race, truncated_absent, .description = "a failed run's "
    "staging tree is removed while victims are swapped in at its name")
{
	static const struct variant v = {
		"truncated_absent", true, false, false, 0
	};

	run_race(&v);
}

Test(atomic_race, truncated_empty, .description = "a failed run over an "
    "empty DEST, staging entry and DEST swapped with victims")
{
	static const struct variant v = {
		"truncated_empty", true, true, false, 0
	};

	run_race(&v);
}

Test(atomic_race, truncated_child, .description = "a failed run in the "
    "confined child; the caller removes the staging tree")
{
	static const struct variant v = {
		"truncated_child", true, false, false, PFX_OPT_SANDBOX_CHILD
	};

	run_race(&v);
}

Test(atomic_race, good_absent, .description = "a good run published at "
    "a new DEST while victims are swapped in at the staging name")
{
	static const struct variant v = {
		"good_absent", false, false, false, 0
	};

	run_race(&v);
}

Test(atomic_race, good_empty, .description = "a good run published over "
    "an empty DEST, the old one removed, both names attacked")
{
	static const struct variant v = {
		"good_empty", false, true, false, 0
	};

	run_race(&v);
}

Test(atomic_race, control, .description = "the attacker alone changes "
    "nothing the checks look at")
{
	static const struct variant v = {
		"control", false, false, true, 0
	};

	run_race(&v);
}
