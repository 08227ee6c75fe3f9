/*
 * dumprename.c -- the renames of a GNU dump directory (-G/-g): each
 * 'R'/'T' pair moves the directory at the 'R' path to the 'T' path, both
 * from the archive's top, before the directory is purged (GNU tar's
 * try_purge_directory()).  Cyclic renames (a->b, b->a) go through a
 * temporary: an 'X' record names the directory that holds it, and an
 * empty 'T' (then 'R') name stands for it.
 *
 * SECURITY: the names are the archive's.  All of them are judged first,
 * as entry names are (xtr_judge_rel(): the transform, no absolute name,
 * no "..", the core's every rule; and --max-depth, the temporary's
 * component counted), so that a list with one refused name moves
 * nothing; then each move is pfx_root_rename_dir(): both parents reached
 * beneath the root without symlinks, a directory only (a symlink moved
 * would resolve elsewhere), over nothing but an empty directory, as
 * rename(2) has it in GNU tar (and never over anything for the
 * temporary: a name taken is passed over for the next).  With
 * --symlinks=contain a move could make a link that stays inside lead out
 * (moved shallower, or moved into another link's path): the renames are
 * then refused if the destination holds a link or the run queued one.
 * Cost: the judging pass and the moving pass are O(records); each move
 * is two resolutions beneath the root, three when the new name's parents
 * are made first, as GNU tar makes them.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../core/pfx_path.h"
#include "budget.h"
#include "dumprename.h"
#include "extract.h"
#include "fail.h"
#include "judge.h"
#include "parents.h"
#include "table.h"

/* Temporary names tried in the 'X' directory before giving up. */
#define TEMP_TRIES 64

/* The state of the moving pass. */
struct renames {
	struct xtr *x;
	const struct pfx_entry *e;	/* the dump directory */
	char xdir[PFX_PATH_MAX];	/* the open 'X' directory */
	char temp[PFX_PATH_MAX];	/* its temporary, "" until used */
	char from[PFX_PATH_MAX];	/* the 'R' of the pair */
	bool from_temp;			/* the 'R' was empty */
};

/* The next record after REC. */
static const char *
next_rec(const char *rec)
{
	return rec + strlen(rec) + 1;
}

/*
 * Is the path REL, and EXTRA components more, deeper than --max-depth?
 * If so the run is stopped, as an entry's name that deep stops it.
 */
static bool
too_deep(struct xtr *x, const struct pfx_entry *e, const char *rel,
    unsigned int extra)
{
	char nb[XTR_SHORT_MAX];

	if (!xtr_past_max_depth(x, rel, extra))
		return false;
	xtr_fail(x, EFBIG, "%s: limit max-depth=%u reached by a rename of "
	    "its dump directory (raise limits.max_depth, or set it to 0)",
	    xtr_short_name(e->name, nb), x->opt->limits.max_depth);
	return true;
}

/*
 * Judge the rename record REC of E's list; its path into OUT
 * (PFX_PATH_MAX bytes).  Return: NULL, "limit" (the run stopped), or
 * the refusal.
 */
static const char *
judge(struct xtr *x, const struct pfx_entry *e, const char *rec, char *out)
{
	struct pfx_verdict v;
	const char *rel;

	if (xtr_judge_rel(x, e, rec + 1, &v) != NULL)
		return "dumpdir_rename_unsafe";
	rel = v.path + v.rel_off;
	/* The destination itself can be neither moved nor replaced. */
	if (rel[0] == '\0' && rec[0] != 'X')
		return "dumpdir_rename_unsafe";
	/* Room for "/.pfx-rename.NN" after an 'X' directory. */
	if (strlen(rel) + (rec[0] == 'X' ? 32 : 0) >= PFX_PATH_MAX)
		return "dumpdir_rename_unsafe";
	/* SECURITY: a new path's parents are made (move()): as deep as an
	 * entry's may be, the temporary inside an 'X' directory too. */
	if (too_deep(x, e, rel, rec[0] == 'X' ? 1 : 0))
		return "limit";
	memcpy(out, rel, strlen(rel) + 1);
	return NULL;
}

/* Judge every rename name of E's list D.  Return: NULL, "limit", or
 * the refusal. */
static const char *
judge_all(struct xtr *x, const struct pfx_entry *e,
    const struct xtr_dumpdir *d)
{
	char rel[PFX_PATH_MAX];
	const char *rec, *why;

	for (rec = d->buf; rec < d->buf + d->len; rec = next_rec(rec)) {
		if (strchr("RTX", rec[0]) == NULL || rec[1] == '\0')
			continue;
		why = judge(x, e, rec, rel);
		if (why != NULL)
			return why;
	}
	return NULL;
}

/* pfx_root_list_links()'s call: one link is enough to know. */
static int
any_link(void *arg, const char *rel, const char *target)
{
	(void)arg;
	(void)rel;
	(void)target;
	return 1;
}

/*
 * --symlinks=contain: may directories move?  Only with no link in the
 * destination (listed once a run: O(entries in it)) and none queued.
 * Return: 0, 1 (refuse), or -errno.
 */
static int
links_forbid(struct xtr *x)
{
	int r;

	if (x->opt->symlinks != PFX_SYMLINKS_CONTAIN)
		return 0;
	if (x->nlinks > 0)
		return 1;
	if (x->dest_links == 0) {
		r = pfx_root_list_links(&x->root, any_link, NULL);
		if (r < 0)
			return r;
		x->dest_links = r == 1 ? 2 : 1;
	}
	return x->dest_links == 2 ? 1 : 0;
}

/* Remember that a move took or gave the path REL.  0, or -ENOMEM. */
static int
note_path(struct xtr *x, const char *rel)
{
	if (xtr_table_find(&x->moved, rel) != NULL ||
	    xtr_table_add(&x->moved, rel) != NULL)
		return 0;
	return -ENOMEM;
}

/* see dumprename.h */
bool
xtr_dumpdir_moved(const struct xtr *x, const char *rel)
{
	char buf[PFX_PATH_MAX];
	size_t n = strlen(rel);

	if (x->moved.used == 0)
		return false;
	if (n >= sizeof(buf))
		return true;	/* cannot say: as moved */
	memcpy(buf, rel, n + 1);
	for (;;) {
		if (xtr_table_find(&x->moved, buf) != NULL)
			return true;
		while (n > 0 && buf[n - 1] != '/')
			n--;
		if (n == 0)
			return false;
		buf[--n] = '\0';
	}
}

/*
 * The directory FROM moved to TO: dirs.c knows the directories this run
 * made by name, so the one moved is known by its new name too (its
 * identity is checked at the end, so the old name can stay).  Those
 * beneath it keep their old names: dirs.c then trusts only an identity,
 * and sets no mode on one known by name alone at or beneath FROM or TO.
 * Cost: O(1) table work per move; at the end, one lookup per component
 * of each directory known by name alone.
 * Return: 0, or -ENOMEM.
 */
static int
note_moved(struct xtr *x, const char *from, const char *to)
{
	struct xtr_slot *s, *t, copy;

	if (note_path(x, from) != 0 || note_path(x, to) != 0)
		return -ENOMEM;
	s = xtr_table_find(&x->dirs, from);
	if (s == NULL || !s->has_id)
		return 0;
	copy = *s;
	t = xtr_table_find(&x->dirs, to);
	if (t == NULL)
		t = xtr_table_add(&x->dirs, to);
	if (t == NULL)
		return -ENOMEM;
	t->dev = copy.dev;
	t->ino = copy.ino;
	t->mode = copy.mode;
	t->mtime = copy.mtime;
	t->mtime_nsec = copy.mtime_nsec;
	t->has_time = copy.has_time;
	t->has_id = true;
	t->at_end = copy.at_end;
	return 0;
}

/*
 * Move the directory FROM to TO; if TO's parents are missing, make them
 * first, as GNU tar does.  Return: 0, or -errno.
 */
static int
move(struct xtr *x, const char *from, const char *to)
{
	size_t n = strlen(from);
	int r;

	/* Into itself: rename(2) refuses it, and no parent is made in it
	 * first. */
	if (strncmp(to, from, n) == 0 && to[n] == '/')
		return -EINVAL;
	/* As rename(2) in GNU tar: an empty directory at TO is replaced. */
	r = pfx_root_rename_dir(&x->root, from, to, PFX_ROOT_REPLACE);
	if (r == -ENOENT && xtr_make_parents(x, to) == 0)
		r = pfx_root_rename_dir(&x->root, from, to, PFX_ROOT_REPLACE);
	if (r < 0)
		return r;
	return note_moved(x, from, to);
}

/* Move FROM to a new temporary in the 'X' directory.  0, or -errno. */
static int
move_to_temp(struct renames *st, const char *from)
{
	unsigned int k;
	int n, r = -EEXIST;

	for (k = 0; k < TEMP_TRIES && r == -EEXIST; k++) {
		n = snprintf(st->temp, sizeof(st->temp), "%s%s.pfx-rename.%u",
		    st->xdir, st->xdir[0] != '\0' ? "/" : "", k);
		if (n < 0 || (size_t)n >= sizeof(st->temp))
			r = -ENAMETOOLONG;	/* judge() left room */
		else
			r = pfx_root_rename_dir(&st->x->root, from, st->temp,
			    PFX_ROOT_NOREPLACE);
	}
	if (r < 0) {
		st->temp[0] = '\0';
		return r;
	}
	return note_moved(st->x, from, st->temp);
}

/* Act on the rename record REC (judged already).  0, or -errno. */
static int
one_record(struct renames *st, const char *rec)
{
	char to[PFX_PATH_MAX];

	switch (rec[0]) {
	case 'X':
		(void)judge(st->x, st->e, rec, st->xdir);
		st->temp[0] = '\0';
		return 0;
	case 'R':
		st->from_temp = rec[1] == '\0';
		if (!st->from_temp)
			(void)judge(st->x, st->e, rec, st->from);
		return 0;
	case 'T':
		break;
	default:
		return 0;
	}
	if (st->from_temp) {
		/* Nothing was moved to the temporary: nothing to move on. */
		if (st->temp[0] == '\0')
			return -ENOENT;
		memcpy(st->from, st->temp, sizeof(st->from));
	}
	if (rec[1] == '\0')
		return move_to_temp(st, st->from);
	(void)judge(st->x, st->e, rec, to);
	return move(st->x, st->from, to);
}

/*
 * A move failed with R: the entry's refusal for what the list got wrong
 * (1 with *REASON), or R to report as any failure is.
 */
static int
failed_move(int r, const char **reason)
{
	if (r == -ENOENT) {
		*reason = "dumpdir_rename_missing";
		return 1;
	}
	if (r == -EEXIST || r == -ENOTEMPTY) {
		*reason = "dumpdir_rename_taken";
		return 1;
	}
	if (r == -EINVAL) {	/* a directory into itself */
		*reason = "dumpdir_rename_unsafe";
		return 1;
	}
	return r;
}

/* see dumprename.h */
int
xtr_dumpdir_rename(struct xtr *x, const struct pfx_entry *e,
    const struct xtr_dumpdir *d, const char *rel, const char **reason)
{
	struct renames st;
	const char *rec;
	int fd, r;

	/* As GNU tar: a directory that is not there yet renames nothing. */
	fd = pfx_root_open_dir(&x->root, rel);
	if (fd < 0)
		return 0;
	(void)close(fd);
	*reason = judge_all(x, e, d);
	if (*reason != NULL)
		return strcmp(*reason, "limit") == 0 ? -EFBIG : 1;
	r = links_forbid(x);
	if (r != 0) {
		*reason = "dumpdir_rename_links";
		return r;
	}
	memset(&st, 0, sizeof(st));
	st.x = x;
	st.e = e;
	for (rec = d->buf; rec < d->buf + d->len; rec = next_rec(rec)) {
		if (xtr_cancelled(x))
			return -ECANCELED;
		r = one_record(&st, rec);
		if (r < 0)
			return failed_move(r, reason);
	}
	return 0;
}
