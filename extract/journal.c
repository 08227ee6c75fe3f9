/*
 * journal.c -- all or nothing over a populated destination (--atomic
 * where DEST holds something already), the way dpkg unpacks.
 *
 * While the archive is read, every regular file and hard link is named
 * beside its final name, under a fresh temporary name in the same
 * directory (pfx_root_commit_beside, pfx_root_link_beside), and listed
 * here; directories are made (dirs.c lists them in x->dirs).  No final
 * name changes.  At the end, once the whole archive was read and
 * judged, every limit checked and the decoder process gone:
 *
 *  - a run that did not fail puts every name in place (xtr_journal_put),
 *    one directory at a time, deepest first, through a descriptor of
 *    that directory opened beneath the root then and checked to be the
 *    one the name was made in: a new name by rename(NOREPLACE), an
 *    existing one by exchange, so that the old one waits at our
 *    temporary name until every name is in place (then it is removed),
 *    or is put back if any step fails or a stop is asked for;
 *  - a failed run removes every temporary name and every directory it
 *    made, and gives back to each directory that existed the mtime it
 *    had before the run wrote in it (xtr_journal_undo_early, then
 *    xtr_journal_end once the run's links are gone): DEST is as it
 *    was.
 *
 * Symbolic links are made after that, as in every run (links.c), and the
 * directories' modes and times last (dirs.c).
 *
 * With PFX_OPT_FSYNC: each file was synced when written (file.c); the
 * directories holding temporary names are synced before the first
 * rename, and again after the last.
 *
 * Cost: the list is archive-controlled: one record and the final name per
 * file or hard link of the archive (at most max-entries), paid from the
 * memory budget (xtr_mem_take); a name given twice keeps one record.
 * Each directory written in is kept twice (by path and by identity), in
 * tables paid from the same budget.  The commit sorts the list twice:
 * O(n log n).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "budget.h"
#include "extract.h"
#include "fail.h"
#include "journal.h"
#include "platform.h"
#include "table.h"

/* Where a listed name stands. */
enum {
	ST_BESIDE = 0,		/* at its temporary name */
	ST_NEW,			/* put in place: a new name */
	ST_SWAPPED,		/* put in place: the old one at the tmp */
	ST_GONE			/* removed, or replaced by a later entry */
};

struct xtr_staged {
	char *rel;		/* the final name (owned) */
	size_t cut;		/* rel[0, cut) is its directory */
	struct pfx_beside b;
	int state;
	uint64_t seq;		/* when B was listed: the latest wins */
	bool keep;		/* PFX_ROOT_NOREPLACE: replaces nothing */
};

struct xtr_journal {
	struct xtr_staged *v;
	size_t n, cap;
	struct xtr_table names;		/* final name -> index into v */
	struct xtr_table touched;	/* directories that existed, written
					   in: their identity and mtime */
	struct xtr_table touched_ids;	/* the same, by identity ("dev:ino"):
					   one directory reached by two
					   paths (--symlinks=root) keeps the
					   mtime of the first look */
	struct xtr_table links;		/* --symlinks=root: links made at a
					   new name and since forgotten by
					   the queue (a later entry of the
					   name): removed if the run fails */
	uint64_t seq;			/* records listed so far */
	bool placed;			/* every name was put in place */
};

/* The directory of S: "" for the root. */
static const char *
dir_of(const struct xtr_staged *s, char *buf)
{
	memcpy(buf, s->rel, s->cut);
	buf[s->cut] = '\0';
	return buf;
}

/* The last component of S's name. */
static const char *
leaf_of(const struct xtr_staged *s)
{
	return s->rel + s->cut + (s->cut > 0);
}

/*
 * Open the directory DIR beneath the root, as it is now, and check that
 * it is the directory (DEV, INO).  Return: a descriptor, -ESTALE for
 * another directory, or -errno (-ELOOP: a symlink stands there now).
 */
static int
open_dir_as(struct xtr *x, const char *dir, dev_t dev, ino_t ino)
{
	struct stat st;
	int fd;

	fd = pfx_root_open_dir(&x->root, dir);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) == -1 || st.st_dev != dev || st.st_ino != ino) {
		(void)close(fd);
		return -ESTALE;
	}
	return fd;
}

/*
 * The directory S was made in, opened beneath the root again and checked
 * to be that one.  Return: its descriptor, or -errno as open_dir_as().
 */
static int
open_dir_of(struct xtr *x, const struct xtr_staged *s)
{
	char dir[PFX_PATH_MAX];

	return open_dir_as(x, dir_of(s, dir), s->b.dir_dev, s->b.dir_ino);
}

/* see journal.h */
int
xtr_journal_start(struct xtr *x)
{
	if (xtr_mem_take(x, sizeof(*x->journal)) != 0)
		return -ENOMEM;
	x->journal = calloc(1, sizeof(*x->journal));
	if (x->journal == NULL) {
		xtr_mem_give(x, sizeof(*x->journal));
		return -ENOMEM;
	}
	xtr_table_init(&x->journal->names, x);
	xtr_table_init(&x->journal->touched, x);
	xtr_table_init(&x->journal->touched_ids, x);
	xtr_table_init(&x->journal->links, x);
	return 0;
}

/* see journal.h */
void
xtr_journal_free(struct xtr *x)
{
	struct xtr_journal *j = x->journal;
	size_t i;

	if (j == NULL)
		return;
	for (i = 0; i < j->n; i++) {
		xtr_mem_give(x, strlen(j->v[i].rel) + 1);
		free(j->v[i].rel);
	}
	xtr_mem_give(x, j->cap * sizeof(*j->v) + sizeof(*j));
	free(j->v);
	xtr_table_free(&j->names);
	xtr_table_free(&j->touched);
	xtr_table_free(&j->touched_ids);
	xtr_table_free(&j->links);
	free(j);
	x->journal = NULL;
}

/*
 * Remember the mtime DIR (identity DEV, INO) had before this run first
 * wrote in it, to give it back if the run fails.  Return: 0, or -ENOMEM.
 */
static int
touch(struct xtr *x, const char *dir, dev_t dev, ino_t ino,
    const struct timespec *mtime)
{
	struct xtr_journal *j = x->journal;
	struct xtr_slot *s = xtr_table_find(&j->touched, dir);
	char id[48];

	if (s != NULL)
		return 0;
	/* Written in already, by another path: its mtime then is later. */
	snprintf(id, sizeof(id), "%jx:%jx", (uintmax_t)dev, (uintmax_t)ino);
	if (xtr_table_find(&j->touched_ids, id) != NULL)
		return 0;
	if (xtr_table_add(&j->touched_ids, id) == NULL)
		return -ENOMEM;
	s = xtr_table_add(&j->touched, dir);
	if (s == NULL)
		return -ENOMEM;
	s->dev = dev;
	s->ino = ino;
	s->has_id = true;
	s->mtime = mtime->tv_sec;
	s->mtime_nsec = (int32_t)mtime->tv_nsec;
	s->has_time = true;
	return 0;
}

/* Remove S's temporary name.  Return: 0, or -errno. */
static int
drop(struct xtr *x, struct xtr_staged *s)
{
	int fd, r;

	fd = open_dir_of(x, s);
	if (fd < 0)
		return fd;
	r = pfx_beside_drop(fd, s->b.tmp, s->b.dev, s->b.ino);
	(void)close(fd);
	if (r == 0 || r == -ENOENT)
		s->state = ST_GONE;
	return r == -ENOENT ? 0 : r;
}

/* Make room for one more record.  Return: 0, or -ENOMEM. */
static int
grow(struct xtr *x)
{
	struct xtr_journal *j = x->journal;
	size_t cap = j->cap == 0 ? 64 : j->cap * 2;
	struct xtr_staged *v;

	if (j->n < j->cap)
		return 0;
	if (xtr_mem_take(x, (cap - j->cap) * sizeof(*v)) != 0)
		return -ENOMEM;
	v = realloc(j->v, cap * sizeof(*v));
	if (v == NULL) {
		xtr_mem_give(x, (cap - j->cap) * sizeof(*v));
		return -ENOMEM;
	}
	j->v = v;
	j->cap = cap;
	return 0;
}

/*
 * List REL, made beside its name as B (with FLAGS, PFX_ROOT_*).  A name
 * listed already loses its earlier file, as the later entry wins in tar.
 * Return: 0, or -errno (and B's temporary name is removed).
 */
static int
record(struct xtr *x, const char *rel, const struct pfx_beside *b,
    unsigned int flags)
{
	struct xtr_journal *j = x->journal;
	const char *slash = strrchr(rel, '/');
	char dir[PFX_PATH_MAX];
	struct xtr_staged *s = NULL;
	struct xtr_slot *slot;
	size_t len = strlen(rel);
	int r;

	slot = xtr_table_add(&j->names, rel);
	r = slot == NULL ? -ENOMEM : 0;
	if (r == 0 && slot->has_id) {
		s = &j->v[slot->index];
		if (s->state == ST_BESIDE)
			r = drop(x, s);
		if (r == 0) {
			s->b = *b;
			s->state = ST_BESIDE;
			s->seq = j->seq++;
			s->keep = flags == PFX_ROOT_NOREPLACE;
		}
	} else if (r == 0) {
		r = grow(x);
		if (r == 0 && xtr_mem_take(x, len + 1) != 0)
			r = -ENOMEM;
		if (r == 0) {
			s = &j->v[j->n];
			s->rel = malloc(len + 1);
			if (s->rel == NULL) {
				xtr_mem_give(x, len + 1);
				r = -ENOMEM;
			}
		}
		if (r == 0) {
			memcpy(s->rel, rel, len + 1);
			s->cut = slash == NULL ? 0 : (size_t)(slash - rel);
			s->b = *b;
			s->state = ST_BESIDE;
			s->seq = j->seq++;
			s->keep = flags == PFX_ROOT_NOREPLACE;
			slot->index = j->n++;
			slot->has_id = true;
		}
	}
	if (r == 0)
		r = touch(x, dir_of(s, dir), b->dir_dev, b->dir_ino,
		    &b->dir_mtime);
	if (r < 0 && (slot == NULL || !slot->has_id)) {
		/* Not listed: nothing else would ever remove it. */
		struct xtr_staged tmp = { (char *)rel, 0, *b, ST_BESIDE, 0,
		    false };

		tmp.cut = slash == NULL ? 0 : (size_t)(slash - rel);
		(void)drop(x, &tmp);
	}
	if (r == -ENOMEM)
		xtr_fail(x, ENOMEM, "%s: %s", rel, strerror(ENOMEM));
	return r;
}

/* Is REL listed, beside its name?  Return: its record, or NULL. */
static struct xtr_staged *
find(const struct xtr *x, const char *rel)
{
	const struct xtr_slot *slot;
	struct xtr_staged *s;

	slot = xtr_table_find(&x->journal->names, rel);
	if (slot == NULL || !slot->has_id)
		return NULL;
	s = &x->journal->v[slot->index];
	return s->state == ST_BESIDE ? s : NULL;
}

/* see journal.h */
bool
xtr_journal_lists(const struct xtr *x, const char *rel)
{
	return x->journal != NULL && find(x, rel) != NULL;
}

/* see journal.h */
int
xtr_journal_made_link(struct xtr *x, const char *rel)
{
	if (x->journal == NULL)
		return 0;
	if (xtr_table_find(&x->journal->links, rel) != NULL)
		return 0;
	if (xtr_table_add(&x->journal->links, rel) == NULL) {
		xtr_fail(x, ENOMEM, "%s: %s", rel, strerror(ENOMEM));
		return -ENOMEM;
	}
	return 0;
}

/*
 * A failed run: remove the links it made at once whose entries were
 * forgotten since (xtr_journal_made_link()).  Each was made at a name
 * that held nothing (PFX_ROOT_NOREPLACE), and no later entry of the
 * run changed that name before the end (files wait beside it, links
 * are deferred, a directory entry went through the link), so the link
 * is still there, as unmake_all() in links.c finds the queued ones.
 */
static void
unmake_links(struct xtr *x)
{
	const struct xtr_table *t = &x->journal->links;
	size_t i;

	for (i = 0; i < t->cap; i++)
		if (t->slots[i].key != NULL &&
		    pfx_root_unlink(&x->root, t->slots[i].key) == 0)
			xtr_journal_unmade_link(x, t->slots[i].key);
}

/* see journal.h */
int
xtr_journal_no_backup(struct xtr *x, const char *rel)
{
	xtr_fail(x, ENOTSUP, "%s: exists, and PFX_OPT_ATOMIC over a "
	    "populated destination changes no name before the end: it "
	    "cannot be backed up (pfx_options.backup) or its tree removed "
	    "(PFX_OPT_RECURSIVE_UNLINK) now; nothing was changed (extract "
	    "into a new destination, or without them)", rel);
	return -ENOTSUP;
}

/* see journal.h */
int
xtr_journal_commit(struct xtr *x, struct pfx_pending *pend, const char *rel,
    unsigned int flags)
{
	struct pfx_beside b;
	int r;

	/* The name is taken already, by an earlier entry of this run. */
	if (flags == PFX_ROOT_NOREPLACE && find(x, rel) != NULL) {
		pfx_root_abort(pend);
		return -EEXIST;
	}
	r = pfx_root_commit_beside(&x->root, pend, flags, &b);
	if (r != 0)
		return r;
	return record(x, rel, &b, flags);
}

/* see journal.h */
int
xtr_link_file(struct xtr *x, int fd, const char *rel, unsigned int flags)
{
	struct pfx_beside b;
	int r;

	if (x->journal == NULL)
		return pfx_root_link(&x->root, fd, rel, flags);
	if (flags == PFX_ROOT_NOREPLACE && find(x, rel) != NULL)
		return -EEXIST;
	r = pfx_root_link_beside(&x->root, fd, rel, flags, &b);
	if (r != 0)
		return r;
	return record(x, rel, &b, flags);
}

/* see journal.h */
int
xtr_open_made(struct xtr *x, const char *rel)
{
	char path[PFX_PATH_MAX + 40];
	struct xtr_staged *s;

	if (x->journal == NULL || (s = find(x, rel)) == NULL)
		return pfx_root_open_file(&x->root, rel);
	/* Made in this run, not yet at its name: the very inode, at its
	 * temporary name (the caller checks its identity). */
	memcpy(path, s->rel, s->cut);
	path[s->cut] = '/';
	memcpy(path + s->cut + 1, s->b.tmp, strlen(s->b.tmp) + 1);
	return pfx_root_open_file(&x->root, s->cut == 0 ? s->b.tmp : path);
}

/* see journal.h */
int
xtr_journal_mkdir(struct xtr *x, const char *dir)
{
	char buf[PFX_PATH_MAX];
	size_t n = strlen(dir);
	struct stat st;
	int fd, r = 0;

	if (x->journal == NULL)
		return 0;
	if (n >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, dir, n + 1);
	/* A name listed as a file stays one: no directory made there. */
	for (;;) {
		if (find(x, buf) != NULL)
			return -ENOTDIR;
		while (n > 0 && buf[n - 1] != '/')
			n--;
		if (n == 0)
			break;
		buf[--n] = '\0';
	}
	/* The deepest directory that exists gets a new entry: keep its
	 * mtime. */
	memcpy(buf, dir, strlen(dir) + 1);
	n = strlen(buf);
	for (;;) {
		fd = pfx_root_open_dir(&x->root, buf);
		if (fd >= 0)
			break;
		if (fd != -ENOENT)
			return 0;	/* the making says why */
		if (n == 0)
			return 0;
		while (n > 0 && buf[n - 1] != '/')
			n--;
		buf[n > 0 ? --n : 0] = '\0';
	}
	if (strcmp(buf, dir) != 0 && fstat(fd, &st) == 0)
		r = touch(x, buf, st.st_dev, st.st_ino, &st.st_mtim);
	(void)close(fd);
	return r;
}

/* see journal.h */
int
xtr_journal_touch_parent(struct xtr *x, const char *rel)
{
	char dir[PFX_PATH_MAX];
	const char *slash = strrchr(rel, '/');
	size_t n = slash == NULL ? 0 : (size_t)(slash - rel);
	struct stat st;
	int fd, r = 0;

	if (x->journal == NULL)
		return 0;
	if (n >= sizeof(dir))
		return -ENAMETOOLONG;
	memcpy(dir, rel, n);
	dir[n] = '\0';
	if (xtr_table_find(&x->journal->touched, dir) != NULL)
		return 0;	/* its mtime is kept already */
	fd = pfx_root_open_dir(&x->root, n == 0 ? "." : dir);
	if (fd < 0)
		return fd == -ENOENT ? 0 : fd;	/* made new: removed whole */
	if (fstat(fd, &st) == 0)
		r = touch(x, dir, st.st_dev, st.st_ino, &st.st_mtim);
	(void)close(fd);
	return r;
}

/*
 * Order of records: by directory, a directory before the ones its path
 * passes through, then as listed.  A name made through a link the run
 * made at once (--symlinks=root: "l -> sub", "l/x") is put in place
 * before a later file of the link's name replaces it ("l").
 */
static int
by_dir(const void *a, const void *b)
{
	const struct xtr_staged *sa = *(const struct xtr_staged *const *)a;
	const struct xtr_staged *sb = *(const struct xtr_staged *const *)b;
	size_t n = sa->cut < sb->cut ? sa->cut : sb->cut;
	int c = memcmp(sa->rel, sb->rel, n);

	if (c != 0)
		return -c;
	if (sa->cut != sb->cut)
		return sa->cut > sb->cut ? -1 : 1;
	return sa < sb ? -1 : sa > sb;
}

/*
 * Order of records: by the name they will have on disk (the identity of
 * the directory they were made in, and the last component), then as
 * listed.
 */
static int
by_place(const void *a, const void *b)
{
	const struct xtr_staged *sa = *(const struct xtr_staged *const *)a;
	const struct xtr_staged *sb = *(const struct xtr_staged *const *)b;
	int c;

	if (sa->b.dir_dev != sb->b.dir_dev)
		return sa->b.dir_dev < sb->b.dir_dev ? -1 : 1;
	if (sa->b.dir_ino != sb->b.dir_ino)
		return sa->b.dir_ino < sb->b.dir_ino ? -1 : 1;
	c = strcmp(leaf_of(sa), leaf_of(sb));
	if (c != 0)
		return c;
	return sa->seq < sb->seq ? -1 : sa->seq > sb->seq;
}

/* Will A and B have one name on disk? */
static bool
same_place(const struct xtr_staged *a, const struct xtr_staged *b)
{
	return a->b.dir_dev == b->b.dir_dev && a->b.dir_ino == b->b.dir_ino &&
	    strcmp(leaf_of(a), leaf_of(b)) == 0;
}

/* Same directory? */
static bool
same_dir(const struct xtr_staged *a, const struct xtr_staged *b)
{
	return a->cut == b->cut && memcmp(a->rel, b->rel, a->cut) == 0 &&
	    a->b.dir_ino == b->b.dir_ino && a->b.dir_dev == b->b.dir_dev;
}

/*
 * The records beside their names, by directory, in *ORDER (freed by the
 * caller), their number in *N.  Two archive names of one name on disk
 * (--symlinks=root: "sub/s", then "l/s" through "l -> sub") are one name
 * given twice: the later wins, and the earlier's file is removed -- but
 * not over a name it was to keep (-k: both stay, and the second put
 * fails, taking every name back).  Return: 0, or -errno (*ORDER freed).
 */
static int
sorted(struct xtr *x, struct xtr_staged ***order, size_t *n)
{
	struct xtr_journal *j = x->journal;
	struct xtr_staged **v;
	size_t i, k;
	int r;

	*n = 0;
	*order = v = malloc((j->n + 1) * sizeof(*v));
	if (v == NULL)
		return -ENOMEM;
	for (i = 0; i < j->n; i++)
		if (j->v[i].state == ST_BESIDE)
			v[(*n)++] = &j->v[i];
	qsort(v, *n, sizeof(*v), by_place);
	for (i = k = 0; i < *n; i++) {
		if (i + 1 < *n && same_place(v[i], v[i + 1]) &&
		    !v[i + 1]->keep) {
			r = drop(x, v[i]);
			if (r < 0) {
				free(v);
				*order = NULL;
				return r;
			}
			continue;
		}
		v[k++] = v[i];
	}
	*n = k;
	qsort(v, *n, sizeof(*v), by_dir);
	return 0;
}

/* Sync each directory of ORDER[0, N).  Return: 0, or -errno. */
static int
sync_dirs(struct xtr *x, struct xtr_staged **order, size_t n)
{
	size_t i;
	int fd, r = 0;

	for (i = 0; i < n && r == 0; i++) {
		if (i > 0 && same_dir(order[i - 1], order[i]))
			continue;
		fd = open_dir_of(x, order[i]);
		if (fd < 0)
			return fd;
		r = fsync(fd) == -1 ? -errno : 0;
		(void)close(fd);
	}
	return r;
}

/* Put S in place in FD.  Return: 0, or -errno. */
static int
put(int fd, struct xtr_staged *s)
{
	int r;

	if (s->b.had != 0) {
		r = pfx_beside_put(fd, s->b.tmp, leaf_of(s),
		    PFX_BESIDE_EXCHANGE);
		if (r == 0)
			s->state = ST_SWAPPED;
		if (r != -ENOENT)
			return r;
		s->b.had = 0;	/* gone since it was judged */
	}
	r = pfx_beside_put(fd, s->b.tmp, leaf_of(s), 0);
	if (r == 0)
		s->state = ST_NEW;
	return r;
}

/*
 * Take S out of its place again: a new name is removed, an exchange is
 * undone (the old file at its name, ours at the temporary one, removed
 * with the rest).  Return: 0, or -errno.
 */
static int
unput(struct xtr *x, struct xtr_staged *s)
{
	int fd, r;

	fd = open_dir_of(x, s);
	if (fd < 0)
		return fd;
	if (s->state == ST_NEW) {
		r = pfx_beside_drop(fd, leaf_of(s), s->b.dev, s->b.ino);
		if (r == 0)
			s->state = ST_GONE;
	} else {
		r = pfx_beside_put(fd, s->b.tmp, leaf_of(s),
		    PFX_BESIDE_EXCHANGE);
		if (r == 0)
			s->state = ST_BESIDE;
	}
	(void)close(fd);
	return r;
}

/*
 * Put ORDER[0, N) in place, one directory at a time.  On failure, undo
 * what was put.  Return: 0, or -errno with *BAD the record that failed
 * and *UNDONE the number of records that could not be taken back.
 */
static int
put_all(struct xtr *x, struct xtr_staged **order, size_t n,
    struct xtr_staged **bad, size_t *undone)
{
	char dir[PFX_PATH_MAX];
	size_t i, k, first = 0;
	int fd = -1, r = 0;

	*bad = NULL;
	*undone = 0;
	for (i = 0; i < n && r == 0; i++) {
		if (i == 0 || !same_dir(order[i - 1], order[i])) {
			/*
			 * A stop asked for (a signal, the deadline) while
			 * names are put is still all or nothing: what was
			 * put goes back, as after a failed step.
			 */
			if (i > 0 && xtr_out_of_time(x)) {
				r = -ECANCELED;
				break;
			}
			if (fd >= 0) {
				r = pfx_root_still_beneath(&x->root, fd,
				    dir_of(order[first], dir));
				(void)close(fd);
				fd = -1;
				if (r < 0)
					break;
			}
			first = i;
			fd = open_dir_of(x, order[i]);
			if (fd < 0) {
				r = fd;
				*bad = order[i];
				break;
			}
		}
		r = put(fd, order[i]);
		if (r < 0)
			*bad = order[i];
	}
	if (fd >= 0) {
		if (r == 0)
			r = pfx_root_still_beneath(&x->root, fd,
			    dir_of(order[first], dir));
		(void)close(fd);
	}
	/* The last moment a stop can still take every name back. */
	if (r == 0 && xtr_out_of_time(x))
		r = -ECANCELED;
	if (r == 0)
		return 0;
	/* SECURITY: all or nothing: every name put goes back. */
	for (k = n; k-- > 0;) {
		if (order[k]->state != ST_NEW && order[k]->state !=
		    ST_SWAPPED)
			continue;
		if (unput(x, order[k]) < 0)
			(*undone)++;
	}
	return r;
}

/*
 * Remove what the exchanges left at the temporary names: the files and
 * links the run replaced.  Return: how many could not be removed.
 */
static size_t
drop_replaced(struct xtr *x, struct xtr_staged **order, size_t n)
{
	const struct xtr_staged *at = NULL;	/* FD is its directory */
	size_t i, left = 0;
	int fd = -1;

	for (i = 0; i < n; i++) {
		if (order[i]->state != ST_SWAPPED)
			continue;
		if (at == NULL || !same_dir(at, order[i])) {
			if (fd >= 0)
				(void)close(fd);
			at = order[i];
			fd = open_dir_of(x, order[i]);
		}
		if (fd < 0 || pfx_beside_drop(fd, order[i]->b.tmp,
		    order[i]->b.had_dev, order[i]->b.had_ino) < 0)
			left++;
	}
	if (fd >= 0)
		(void)close(fd);
	return left;
}

/* Tell that N names were left, S (in directory DIR) among them. */
static void
tell_left(struct xtr *x, size_t n, const struct xtr_staged *s,
    const char *what, int r)
{
	char notice[sizeof(x->res->message)];
	char dir[PFX_PATH_MAX];

	snprintf(notice, sizeof(notice), "%zu %s left under temporary names "
	    "(.pfx-*.tmp), such as %.200s%s%s: %s", n, what,
	    dir_of(s, dir), s->cut > 0 ? "/" : "", s->b.tmp, strerror(-r));
	xtr_append_notice(x->res, notice);
}

/*
 * Put every listed name in place.  Return: 0, or -1 with the run failed
 * and every name put taken back (as far as it could be).
 */
static int
commit(struct xtr *x)
{
	struct xtr_staged **order, *bad;
	size_t n, undone, left;
	int r;

	r = sorted(x, &order, &n);
	if (r < 0) {
		xtr_fail(x, -r, "PFX_OPT_ATOMIC: %s; nothing was changed",
		    strerror(-r));
		return -1;
	}
	r = 0;
	/* Durable at their temporary names before any name changes. */
	if ((x->opt->flags & PFX_OPT_FSYNC) != 0)
		r = sync_dirs(x, order, n);
	if (r < 0) {
		xtr_fail(x, -r, "PFX_OPT_ATOMIC: cannot be made durable (PFX_OPT_FSYNC): "
		    "%s; nothing was changed", strerror(-r));
		free(order);
		return -1;
	}
	r = put_all(x, order, n, &bad, &undone);
	x->journal->placed = r == 0;
	if (r < 0) {
		xtr_fail(x, -r, "%s: cannot be put in place: %s; %s", bad !=
		    NULL ? bad->rel : "PFX_OPT_ATOMIC", strerror(-r), undone == 0 ?
		    "every name put was taken back" : "some names could not "
		    "be taken back: the destination is partly changed");
		free(order);
		return -1;
	}
	left = drop_replaced(x, order, n);
	if ((x->opt->flags & PFX_OPT_FSYNC) != 0)
		r = sync_dirs(x, order, n);
	if (r < 0)
		xtr_fail(x, -r, "PFX_OPT_ATOMIC: in place, but not durable "
		    "(PFX_OPT_FSYNC): %s", strerror(-r));
	if (left > 0) {
		xtr_fail(x, EIO, "PFX_OPT_ATOMIC: every name is in place");
		tell_left(x, left, order[0], "replaced files were", -EIO);
	}
	free(order);
	return 0;
}

/* Give the directory DIR, if it existed and was written in, its mtime. */
static void
restore_time(struct xtr *x, const char *dir)
{
	const struct xtr_slot *s = xtr_table_find(&x->journal->touched, dir);
	struct timespec ts[2];
	int fd;

	if (s == NULL)
		return;
	fd = open_dir_as(x, dir, s->dev, s->ino);
	if (fd < 0)
		return;		/* gone or replaced: not ours */
	ts[0].tv_sec = 0;
	ts[0].tv_nsec = UTIME_OMIT;
	ts[1].tv_sec = s->mtime;
	ts[1].tv_nsec = s->mtime_nsec;
	(void)pfx_fd_set_times(fd, ts);
	(void)close(fd);
}

/* Give each directory that existed the mtime it had before the run. */
static void
restore_times(struct xtr *x)
{
	const struct xtr_table *t = &x->journal->touched;
	size_t i;

	for (i = 0; i < t->cap; i++)
		if (t->slots[i].key != NULL)
			restore_time(x, t->slots[i].key);
}

/*
 * xtr_unmake_dirs() where the kernel confines the run to the root: from
 * the parents a chain holds (platform.h), each directory after the ones
 * beneath it, O(1) steps a directory where a removal by name resolves
 * O(its depth) components: a rollback of names of d new directories each
 * cost O(d^2) (docs/security.md, the cost model).  Return: 0, or -ENOMEM
 * (nothing done: remove by name).
 */
static int
unmake_by_chain(struct xtr *x, bool known_only)
{
	struct plat_chain *c = plat_chain_new(&x->root);
	struct xtr_slot **order;
	struct plat_id id;
	size_t i, n;

	if (c == NULL)
		return -ENOMEM;
	if (xtr_table_by_branch(&x->dirs, &order, &n) < 0) {
		plat_chain_free(c);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		/* Only the very directory made, where it is known. */
		if (known_only && !order[i]->has_id)
			continue;
		id.dev = order[i]->dev;
		id.ino = order[i]->ino;
		(void)plat_chain_rmdir(c, order[i]->key,
		    order[i]->has_id ? &id : NULL);
	}
	free(order);
	plat_chain_free(c);
	return 0;
}

/*
 * xtr_unmake_dirs() by name, deepest first: each resolved from the root;
 * with KNOWN_ONLY, only those known by their identity.
 */
static void
unmake_by_name(struct xtr *x, bool known_only)
{
	struct xtr_slot **order;
	struct stat st;
	size_t i, n;
	int fd;

	if (xtr_table_by_depth(&x->dirs, NULL, &order, &n) < 0)
		return;
	for (i = 0; i < n; i++) {
		const struct xtr_slot *s = order[i];

		/* Only the very directory made, where it is known. */
		if (known_only && !s->has_id)
			continue;
		if (s->has_id) {
			fd = pfx_root_open_dir(&x->root, s->key);
			if (fd < 0)
				continue;
			if (fstat(fd, &st) == -1 || st.st_dev != s->dev ||
			    st.st_ino != s->ino) {
				(void)close(fd);
				continue;
			}
			(void)close(fd);
		}
		(void)pfx_root_rmdir(&x->root, s->key);
	}
	free(order);
}

/*
 * Remove every directory X made, known by its identity, that is empty
 * now, each after the ones beneath it, and keep them listed: one that
 * still holds a link of the run is removed by xtr_unmake_dirs() once the
 * link is gone.
 */
static void
unmake_empty_dirs(struct xtr *x)
{
	if (unmake_by_chain(x, true) != 0)
		unmake_by_name(x, true);
}

/* see journal.h */
void
xtr_journal_unmade_link(struct xtr *x, const char *rel)
{
	char dir[PFX_PATH_MAX];
	const struct xtr_slot *s;
	struct stat st;
	size_t n = strlen(rel);
	int fd;

	if (x->journal == NULL || n >= sizeof(dir))
		return;
	memcpy(dir, rel, n + 1);
	for (;;) {
		while (n > 0 && dir[n - 1] != '/')
			n--;
		dir[n > 0 ? --n : 0] = '\0';
		/* A directory the run made, the very one, goes if empty. */
		s = xtr_table_find(&x->dirs, dir);
		if (n == 0 || s == NULL || !s->has_id)
			break;
		fd = pfx_root_open_dir(&x->root, dir);
		if (fd < 0)
			return;
		if (fstat(fd, &st) == -1 || st.st_dev != s->dev ||
		    st.st_ino != s->ino) {
			(void)close(fd);
			return;
		}
		(void)close(fd);
		if (pfx_root_rmdir(&x->root, dir) < 0)
			return;
	}
	restore_time(x, dir);
}

/* see journal.h */
void
xtr_journal_undo_early(struct xtr *x)
{
	struct xtr_journal *j = x->journal;
	size_t i;

	if (j == NULL)
		return;
	/*
	 * SECURITY: all or nothing.  A name made through a link of the run
	 * (--symlinks=root: "l -> sub", then "l/x") is found only through
	 * it: once the link is gone, its temporary name, its directory and
	 * the old directory's mtime would stay.  What cannot go now (a
	 * directory holding a link) goes in rollback(), after the links.
	 */
	for (i = 0; i < j->n; i++)
		if (j->v[i].state == ST_BESIDE)
			(void)drop(x, &j->v[i]);
	unmake_empty_dirs(x);
	restore_times(x);
}

/*
 * Undo a failed run: every temporary name, every directory made, and
 * the mtimes of the directories written in.
 */
static void
rollback(struct xtr *x)
{
	struct xtr_journal *j = x->journal;
	struct xtr_staged *first = NULL;
	size_t i, left = 0;
	int r, why = 0;

	for (i = 0; i < j->n; i++) {
		if (j->v[i].state != ST_BESIDE)
			continue;
		r = drop(x, &j->v[i]);
		if (r < 0 && left++ == 0) {
			first = &j->v[i];
			why = r;
		}
	}
	if (left > 0)
		tell_left(x, left, first, "new files were", why);
	/* While the links made at once still lead where names were made
	 * through them (see xtr_journal_undo_early()). */
	unmake_empty_dirs(x);
	restore_times(x);
	unmake_links(x);
	xtr_unmake_dirs(x);
	restore_times(x);
}

/* see journal.h */
bool
xtr_journal_put(struct xtr *x)
{
	if (x->journal == NULL || x->fatal)
		return false;
	(void)commit(x);
	return x->journal->placed;
}

/* see journal.h */
void
xtr_journal_end(struct xtr *x)
{
	if (x->journal != NULL && x->fatal && !x->journal->placed)
		rollback(x);
}

/* see journal.h */
void
xtr_unmake_dirs(struct xtr *x)
{
	if (unmake_by_chain(x, false) != 0)
		unmake_by_name(x, false);
	/* Nothing left to finish at the end. */
	xtr_table_free(&x->dirs);
	xtr_table_init(&x->dirs, x);
	xtr_table_free(&x->changed);
	xtr_table_init(&x->changed, x);
}
