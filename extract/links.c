/*
 * links.c -- the files this run made, and symbolic links.
 *
 * Hard links (hardlink.c) go only to a regular file this run extracted,
 * whose identity is recorded here (xtr_note_file), and to that very inode.
 *
 * Symbolic links: refused by default (the output is symlink-free).  With
 * --symlinks=contain they are queued and made after every other entry, so
 * no later entry can be written through one; each is made only if its
 * target, resolved with real symlink semantics over the final tree (the
 * other queued links included), stays inside the destination
 * (linkcheck.c).  After all are made, each is checked once more against
 * what is really on disk, and removed if it now leads out.
 *
 * The promise is about the whole destination, not only this run's links:
 * after the run, every symlink in it leads inside, those that were there
 * before included (taking a missing component as spelled, as linkcheck
 * does).  A new link can change where an old one leads, so before any is
 * made the old ones are listed (pfx_root_list_links(): O(entries in the
 * destination), paid only by a run that queued a link into a destination
 * not empty when it began), and a new link
 * that would turn one of them outwards is refused ("symlink_redirects").
 * An old link that already led out is not the run's doing: it is left as
 * it is, and blocks nothing.  Removing an old link changes where others
 * lead too, so an entry that would replace one (a file, a hard link) is
 * refused the same way if an old link through it would lead out
 * (xtr_symlink_removable, at the end of this file).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


#include "budget.h"
#include "extract.h"
#include "fail.h"
#include "fdbudget.h"
#include "journal.h"
#include "linkcheck.h"
#include "links.h"
#include "meta.h"
#include "parents.h"
#include "platform.h"
#include "report.h"
#include "table.h"

/* see links.h */
void
xtr_note_file(struct xtr *x, const char *rel, const struct stat *st)
{
	/*
	 * No entry of a zip is a hard link, so none can name this file as
	 * its target: it is not remembered, which spares a slot and a name
	 * a file (20 MiB for Linux's tree).  A hard link that came all the
	 * same would be refused, as one to any file not remembered.
	 *
	 * A tar's file is noted, and added to the table only when a hard
	 * link comes to look (xtr_table_settle()): most archives have
	 * none, and the slots of a table of every file cost a cache miss
	 * each (3% of a one-CPU run on Linux's tree).  A note that finds
	 * no room is lost: a later hard link to it will be refused.
	 */
	if (x->no_hard_links)
		return;
	(void)xtr_table_note(&x->files, rel, st->st_dev, st->st_ino);
}

/*
 * Give the link L just made its owner and mtime, on the link itself.
 * SECURITY: by its name, made a moment ago; an old link someone moved
 * to the name since is left as it was (born before the run).
 */
static int
link_meta(struct xtr *x, const struct xtr_symlink *l)
{
	struct timespec ts[2];

	ts[0].tv_sec = 0;
	ts[0].tv_nsec = UTIME_OMIT;
	ts[1] = l->mtime;
	return plat_root_link_meta_since(&x->root, l->path, l->uid, l->gid,
	    ts, x->born_known ? &x->born_after : NULL);
}

/* Report queued link L with STATUS and REASON. */
static void
report_link(struct xtr *x, const struct xtr_symlink *l,
    enum pfx_entry_status status, const char *reason, int error)
{
	struct pfx_entry e;

	memset(&e, 0, sizeof(e));
	e.offset = -1;
	e.name = l->name;
	e.path = l->path;
	e.link_target = l->target;
	e.type = PFX_TYPE_SYMLINK;
	e.mode = 0777;
	/* What the archive said of it, as reported when it was read. */
	e.uname = l->uname;
	e.gname = l->gname;
	e.uid = l->e_uid;
	e.gid = l->e_gid;
	e.mtime = l->e_mtime;
	e.mtime_nsec = l->e_mtime_nsec;
	e.decision = status == PFX_ENTRY_EXTRACTED ||
	    status == PFX_ENTRY_SKIPPED ? PFX_ALLOW :
	    strcmp(reason, "symlink_escapes") == 0 ||
	    strcmp(reason, "symlink_redirects") == 0 ? PFX_REJECT : PFX_DENY;
	xtr_finish_entry(x, &e, status, reason, error);
}

/* The block holding queued link L's strings: its size in bytes. */
static size_t
link_block(const struct xtr_symlink *l)
{
	size_t n;

	n = strlen(l->path) + 1 + strlen(l->target) + 1;
	if (l->name != l->path)
		n += strlen(l->name) + 1;
	if (l->uname != NULL)
		n += strlen(l->uname) + 1;
	if (l->gname != NULL)
		n += strlen(l->gname) + 1;
	return n;
}

/*
 * Free the strings of queued link I and mark it gone, giving their bytes
 * back; its slots stay taken until xtr_free_symlinks().
 */
static void
drop_link(struct xtr *x, size_t i)
{
	struct xtr_symlink *l = &x->links[i];
	size_t n;

	if (l->path == NULL)
		return;
	n = link_block(l);
	free(l->path);
	l->path = l->target = l->name = l->uname = l->gname = NULL;
	xtr_mem_give(x, n);
	l->mem -= n;
}

/* see links.h */
void
xtr_free_symlinks(struct xtr *x)
{
	size_t i;

	for (i = 0; i < x->nlinks; i++) {
		drop_link(x, i);
		xtr_mem_give(x, x->links[i].mem);
	}
	free(x->links);
	x->links = NULL;
	x->nlinks = x->links_cap = 0;
}

/* see links.h */
void
xtr_forget_symlink(struct xtr *x, const char *rel)
{
	struct xtr_slot *s = xtr_table_find(&x->pending, rel);

	if (s == NULL || s->index == SIZE_MAX)
		return;
	/*
	 * SECURITY: all or nothing.  --symlinks=root made it at once; with
	 * a journal a failed run must still remove it, though no queue
	 * holds it any longer.
	 */
	if (x->journal != NULL && x->opt->symlinks == PFX_SYMLINKS_ROOT &&
	    x->links[s->index].why == NULL && !x->links[s->index].deferred)
		(void)xtr_journal_made_link(x, rel);
	/* Every entry is reported once: this one lost its name. */
	report_link(x, &x->links[s->index], PFX_ENTRY_SKIPPED, "replaced", 0);
	drop_link(x, s->index);
	s->index = SIZE_MAX;
}

/*
 * A relink of REL found the symlink PFX_ROOT_SYMLINK_HELD speaks of.
 * Without a journal, REL held the very inode recorded when it was looked
 * at: the link came since, by someone else's hand, and stays.  With one,
 * the inode checked is the run's own, staged beside REL's final name
 * (xtr_open_made), and the symlink is the one still at that name; the
 * entry that staged REL was judged to replace it (xtr_make_hardlink)
 * when the journal puts every name in place.  Staging the new inode
 * instead changes nothing at the final name, so it is judged as that
 * entry was (one judgement per name, as that entry paid) -- unless the
 * link is one this run queued since: a later entry of the name, which
 * wins.
 * Return: 0, XTR_REDIRECTS, or -errno (-ESTALE: left as it is).
 */
static int
relink_held(struct xtr *x, int fd, const char *rel)
{
	const struct xtr_slot *q;
	int r;

	if (x->journal == NULL)
		return -ESTALE;
	q = xtr_table_find(&x->pending, rel);
	if (q != NULL && q->index != SIZE_MAX)
		return -ESTALE;
	if (x->opt->symlinks != PFX_SYMLINKS_REFUSE) {
		r = xtr_symlink_removable(x, rel);
		if (r != 0)
			return r;
	}
	return xtr_link_file(x, fd, rel, PFX_ROOT_REPLACE);
}

/*
 * Link the file FD at REL, a name the table says holds the inode
 * (DEV, INO), over it -- only if REL holds that very inode still, which
 * sets *HELD.
 * Return: 0 when relinked, or -errno (-ESTALE: REL holds another file).
 */
static int
relink_one(struct xtr *x, int fd, const char *rel, dev_t dev, ino_t ino,
    bool *held)
{
	struct stat st;
	int cur, r;

	/*
	 * SECURITY: the last entry of a name wins, and the table is not
	 * told of every entry that takes one: a symlink (made at once
	 * with --symlinks=root), a directory, a file whose note was lost.
	 * So REL is asked, right before it is replaced, what it holds:
	 * opened beneath the root as the run made it (xtr_open_made: the
	 * staged file, with a journal), its last component never
	 * followed.  A symlink, FIFO or device gives -EINVAL, a directory
	 * -EISDIR, a name gone -ENOENT: none is touched.  One look and
	 * one link per name relinked.
	 */
	cur = xtr_open_made(x, rel);
	if (cur < 0)
		return cur;
	r = fstat(cur, &st) == -1 ? -errno : 0;
	(void)close(cur);
	if (r == 0 && (st.st_dev != dev || st.st_ino != ino))
		r = -ESTALE;
	if (r < 0)
		return r;
	*held = true;
	/*
	 * Only someone else can change REL between the look and the link;
	 * even then no symlink is replaced (PFX_ROOT_REPLACE_FILE), and no
	 * directory (rename(2) puts no file over one: -EISDIR).
	 */
	r = xtr_link_file(x, fd, rel, PFX_ROOT_REPLACE_FILE);
	if (r == PFX_ROOT_SYMLINK_HELD)
		r = relink_held(x, fd, rel);
	return r;
}

/*
 * Relink the name of slot S to the file FD (identity NEW) if the table
 * says it holds OLD.  A name that holds something else now keeps it: its
 * record is stale, and no hard link passes the check of its identity
 * (xtr_make_hardlink).  Return: 1 if the name held OLD, else 0 -- a
 * stale record is not one of OLD's st_nlink names, and counting it would
 * end the search before a name that is.
 */
static nlink_t
relink_slot(struct xtr *x, int fd, struct xtr_slot *s, const struct stat *old,
    const struct stat *new)
{
	bool held = false;

	if (s->key == NULL || !s->has_id || s->dev != old->st_dev ||
	    s->ino != old->st_ino)
		return 0;
	if (relink_one(x, fd, s->key, s->dev, s->ino, &held) == 0) {
		s->dev = new->st_dev;
		s->ino = new->st_ino;
	}
	return held ? 1 : 0;
}

/* see links.h */
void
xtr_relink_all(struct xtr *x, const struct stat *old, const char *old_name,
    const char *new_rel, const struct stat *new)
{
	struct xtr_slot *s;
	struct stat st;
	nlink_t found = 0;
	size_t i;
	int fd;

	fd = xtr_open_made(x, new_rel);
	if (fd < 0)
		return;
	xtr_table_settle(&x->files);
	if (fstat(fd, &st) == -1 || st.st_dev != new->st_dev ||
	    st.st_ino != new->st_ino) {
		(void)close(fd);
		return;
	}
	/* One name: that one, without a search. */
	if (old->st_nlink <= 1) {
		s = xtr_table_find(&x->files, old_name);
		if (s != NULL)
			relink_slot(x, fd, s, old, new);
		(void)close(fd);
		return;
	}
	for (i = 0; i < x->files.cap && found < old->st_nlink; i++)
		found += relink_slot(x, fd, &x->files.slots[i], old, new);
	(void)close(fd);
}

static void make_now(struct xtr *x, size_t i);
static void note_own(struct xtr *x, const char *rel);

/* see links.h */
void
xtr_queue_symlink(struct xtr *x, struct pfx_entry *e, const char *rel)
{
	struct xtr_symlink *l, *grown;
	struct xtr_slot *s;
	size_t cap, plen, tlen, nlen, ulen, glen, block, mem;

	if (x->opt->symlinks == PFX_SYMLINKS_REFUSE) {
		e->decision = PFX_DENY;
		xtr_finish_entry(x, e, PFX_ENTRY_REFUSED, "symlink", 0);
		return;
	}
	/* "." (or "x/..") names a directory that is already there. */
	if (rel[0] == '\0') {
		e->decision = PFX_DENY;
		xtr_finish_entry(x, e, PFX_ENTRY_REFUSED, "is_a_directory", 0);
		return;
	}
	if (e->link_target == NULL) {
		e->decision = PFX_REJECT;
		xtr_finish_entry(x, e, PFX_ENTRY_REFUSED, "symlink_escapes", 0);
		return;
	}
	/* A later entry of the same name wins, as in tar. */
	xtr_forget_symlink(x, rel);
	if (x->nlinks == x->links_cap) {
		cap = x->links_cap == 0 ? 64 : x->links_cap * 2;
		if (cap > SIZE_MAX / sizeof(*x->links))
			goto nomem;
		grown = realloc(x->links, cap * sizeof(*x->links));
		if (grown == NULL)
			goto nomem;
		x->links = grown;
		x->links_cap = cap;
	}
	/*
	 * One block for the three strings; the bytes and the array slot
	 * come from the budget (the table charges its own slot and key).
	 */
	plen = strlen(rel) + 1;
	tlen = strlen(e->link_target) + 1;
	nlen = strcmp(e->name, rel) == 0 ? 0 : strlen(e->name) + 1;
	ulen = e->uname != NULL ? strlen(e->uname) + 1 : 0;
	glen = e->gname != NULL ? strlen(e->gname) + 1 : 0;
	block = plen + tlen + nlen + ulen + glen;
	mem = block + sizeof(*l);
	if (xtr_mem_take(x, mem) < 0) {
		xtr_finish_entry(x, e, PFX_ENTRY_FAILED, "io_error", ENOMEM);
		return;
	}
	l = &x->links[x->nlinks];
	memset(l, 0, sizeof(*l));
	l->path = malloc(block);
	s = l->path != NULL ? xtr_table_add(&x->pending, rel) : NULL;
	if (s == NULL) {
		free(l->path);
		l->path = NULL;
		xtr_mem_give(x, mem);
		goto nomem;
	}
	memcpy(l->path, rel, plen);
	l->target = l->path + plen;
	memcpy(l->target, e->link_target, tlen);
	l->name = l->path;
	if (nlen > 0) {
		l->name = l->target + tlen;
		memcpy(l->name, e->name, nlen);
	}
	if (ulen > 0) {
		l->uname = l->target + tlen + nlen;
		memcpy(l->uname, e->uname, ulen);
	}
	if (glen > 0) {
		l->gname = l->target + tlen + nlen + ulen;
		memcpy(l->gname, e->gname, glen);
	}
	l->e_uid = e->uid;
	l->e_gid = e->gid;
	l->e_mtime = e->mtime;
	l->e_mtime_nsec = e->mtime_nsec;
	l->mem = mem;
	xtr_owner_ids(x, e, &l->uid, &l->gid);
	l->mtime.tv_sec = (time_t)e->mtime;
	l->mtime.tv_nsec = e->mtime_nsec;
	if ((x->opt->flags & PFX_OPT_NO_MTIME) != 0)
		l->mtime.tv_nsec = UTIME_OMIT;
	s->index = x->nlinks++;
	/* Told now, in archive order; reported at the end. */
	if (x->opt->queued != NULL)
		x->opt->queued(x->opt->hooks.arg, e);
	if (x->opt->symlinks == PFX_SYMLINKS_ROOT)
		make_now(x, s->index);
	return;
nomem:
	xtr_finish_entry(x, e, PFX_ENTRY_FAILED, "io_error", ENOMEM);
	xtr_fail(x, ENOMEM, "%s: %s", e->name, strerror(ENOMEM));
}

/*
 * The symbolic links that were in the destination before this run made
 * any, that stayed inside it then, and whose resolution over the tree as
 * planned meets a queued link: the ones the run could turn outwards.
 * Paths and targets are kept in one arena, "path\0target\0" per link,
 * and each link costs a record (struct old_link, 16 bytes on LP64) and
 * its two strings with their NULs -- up to twice that while the arrays
 * grow by doubling.  They are held only while the links are judged and
 * made.  Their number is bounded by what the destination holds, not by
 * the archive, so it has no limit: only running out of memory stops the
 * run.
 */
struct old_link {
	size_t off;		/* its path in the arena; the target follows */
	bool touched;		/* its last resolution followed a queued link
				   (or a queued link takes its name) */
	bool gone;		/* xtr_symlink_removable: replaced since */
	bool refused;		/* xtr_symlink_removable: its removal was
				   refused, and no link has gone since */
	bool nolink;		/* no link: a name (a directory) whose
				   removal was refused, kept for REFUSED */
	bool looped;		/* it did not lead inside when listed, nor
				   out: a loop, or beyond judging */
};

struct old_links {
	char *arena;
	size_t used, cap;
	struct old_link *v;
	size_t n, vcap;
	size_t charged;		/* taken from the budget: the NOLINK ones */
};

/*
 * The cost of judging.  Without care a resolution looks up every
 * component of every target it meets, and follows the same links again
 * for every link whose resolution passes through them: a target of 4 KB
 * like "x/../x/../..." is 800 lookups, each a readlinkat(2) on disk, and
 * a chain of 40 such links 32,000 of them per link judged, again in
 * every round.  So, while the links are judged, LINK_CACHE keeps
 *   - the disk's answers (is this path a symlink, and to what), and
 *   - the memo of linkcheck.h: each symlink's own resolution, so that a
 *     resolution meeting it takes it in one step,
 * both for one generation: GEN is bumped whenever the tree the lookup
 * describes changes (a queued link leaves the set, links are made or
 * removed), and an entry of an older generation is no answer.  Each
 * cache holds at most LCACHE_MAX bytes, taken from the memory budget
 * only as far as it allows (xtr_mem_try): when either is reached, it is
 * emptied and starts again.  The steps spent (paths looked up, links
 * followed) are counted in x->link_steps, and the run stops past
 * x->link_step_budget: XTR_LINK_STEPS_MIN, plus XTR_LINK_STEPS_PER_BYTE
 * for each byte of the queued links' paths and targets and of the
 * listed links' (a resolution looks up at most one component per two
 * bytes of its own target, and takes each link met in one step).
 */
#define LCACHE_MAX ((size_t)64 << 20)
#define XTR_LINK_STEPS_MIN ((uint64_t)1 << 20)
#define XTR_LINK_STEPS_PER_BYTE 16
/* Nested resolutions for the memo (linkcheck.h): about 12 KB each. */
#define LINK_FRAMES XTR_LINK_MAX_FOLLOW

struct lc_ent {
	char *key;		/* owned: "path\0value\0"; NULL when free */
	uint64_t hash, gen;
	size_t bytes;		/* taken from the budget */
	int r;			/* disk: read_disk_link()'s 0 or 1; memo:
				   xtr_link_res.r */
	unsigned follows;	/* memo */
	size_t peak;		/* memo */
	const char *val;	/* in KEY: the target (disk), or where it
				   leads (memo) */
};

struct lc_table {
	struct lc_ent *v;
	size_t cap, used;	/* CAP a power of two, or 0 */
	size_t bytes;		/* taken from the budget, V included */
	uint64_t key[2];	/* SipHash's, drawn when V is made */
	bool keyed;
};

struct link_cache {
	struct lc_table disk, memo;
	uint64_t gen;
	struct xtr_link_frame *frames;	/* LINK_FRAMES, or NULL */
};

/*
 * For tests: xtr_link_steps_last(), xtr_link_removal_judged().  Per
 * thread, as the library keeps no state of its own between calls that
 * another thread's call could see: each is the run's count, stored by
 * xtr_finish_symlinks() on the thread that runs the call.
 */
static _Thread_local uint64_t last_steps;
static _Thread_local uint64_t removal_judged;

/* SECURITY: keyed per run, so that an archive cannot choose link names
 * whose hashes collide (table.c). */
static uint64_t
lc_hash(const struct lc_table *t, const char *k)
{
	return xtr_siphash(t->key, k, strlen(k), 1, 3);
}

/* Empty T, giving its memory back. */
static void
lc_clear(struct xtr *x, struct lc_table *t)
{
	size_t i;

	for (i = 0; i < t->cap; i++)
		free(t->v[i].key);
	free(t->v);
	xtr_mem_give(x, t->bytes);
	memset(t, 0, sizeof(*t));
}

/* The entry for KEY in T, of generation GEN: it, or NULL. */
static struct lc_ent *
lc_get(const struct lc_table *t, uint64_t gen, const char *key)
{
	uint64_t h;
	size_t i, mask;

	if (t->cap == 0)
		return NULL;
	if (!t->keyed)
		return NULL;	/* nothing was ever put */
	h = lc_hash(t, key);
	mask = t->cap - 1;
	for (i = (size_t)h & mask; t->v[i].key != NULL; i = (i + 1) & mask) {
		if (t->v[i].hash == h && strcmp(t->v[i].key, key) == 0)
			return t->v[i].gen == gen ? &t->v[i] : NULL;
	}
	return NULL;
}

/*
 * Make room in T for one more entry, emptying it when full or over
 * LCACHE_MAX, and dropping older generations than GEN when it grows.
 * Return: 0, or -1 (nothing kept).
 */
static int
lc_room(struct xtr *x, struct lc_table *t, uint64_t gen, size_t more)
{
	struct lc_table n;
	size_t i, j, mask, sz;

	if (t->bytes + more > LCACHE_MAX)
		lc_clear(x, t);
	if (t->cap != 0 && (t->used + 1) * 4 <= t->cap * 3)
		return 0;
	memset(&n, 0, sizeof(n));
	n.cap = t->cap == 0 ? 256 : t->cap * 2;
	sz = n.cap * sizeof(*n.v);
	if (t->bytes + sz + more > LCACHE_MAX) {
		lc_clear(x, t);
		n.cap = 256;
		sz = n.cap * sizeof(*n.v);
	}
	if (xtr_mem_try(x, sz) < 0)
		return -1;
	n.v = calloc(n.cap, sizeof(*n.v));
	if (n.v == NULL) {
		xtr_mem_give(x, sz);
		return -1;
	}
	n.bytes = sz;
	/* The entries keep their hashes: the key goes with them. */
	memcpy(n.key, t->key, sizeof(n.key));
	n.keyed = t->keyed;
	mask = n.cap - 1;
	for (i = 0; i < t->cap; i++) {
		struct lc_ent *e = &t->v[i];

		if (e->key == NULL)
			continue;
		if (e->gen != gen) {
			free(e->key);
			xtr_mem_give(x, e->bytes);
			continue;
		}
		for (j = (size_t)e->hash & mask; n.v[j].key != NULL;
		    j = (j + 1) & mask)
			;
		n.v[j] = *e;
		n.bytes += e->bytes;
		n.used++;
	}
	free(t->v);
	xtr_mem_give(x, t->cap * sizeof(*t->v));
	*t = n;
	return 0;
}

/*
 * Keep KEY -> VAL in T, of generation GEN, with R, FOLLOWS and PEAK.
 * Return: the entry, or NULL if nothing was kept (no harm: a cache).
 */
static struct lc_ent *
lc_put(struct xtr *x, struct lc_table *t, uint64_t gen, const char *key,
    const char *val)
{
	size_t klen = strlen(key) + 1, vlen = strlen(val) + 1, i, mask;
	uint64_t h;
	struct lc_ent *e;
	char *k;

	if (lc_room(x, t, gen, klen + vlen) < 0)
		return NULL;
	if (!t->keyed) {
		xtr_hash_key(t->key);
		t->keyed = true;
	}
	h = lc_hash(t, key);
	mask = t->cap - 1;
	for (i = (size_t)h & mask; t->v[i].key != NULL; i = (i + 1) & mask)
		if (t->v[i].hash == h && strcmp(t->v[i].key, key) == 0)
			break;
	e = &t->v[i];
	if (xtr_mem_try(x, klen + vlen) < 0)
		return NULL;
	k = malloc(klen + vlen);
	if (k == NULL) {
		xtr_mem_give(x, klen + vlen);
		return NULL;
	}
	if (e->key != NULL) {
		free(e->key);
		xtr_mem_give(x, e->bytes);
		t->bytes -= e->bytes;
	} else {
		t->used++;
	}
	memcpy(k, key, klen);
	memcpy(k + klen, val, vlen);
	memset(e, 0, sizeof(*e));
	e->key = k;
	e->hash = h;
	e->gen = gen;
	e->bytes = klen + vlen;
	e->val = k + klen;
	t->bytes += e->bytes;
	return e;
}

/* The tree the lookups describe changed: forget every answer. */
static void
lc_changed(struct xtr *x)
{
	if (x->lcache != NULL)
		x->lcache->gen++;
}

/* linkcheck's memo: the resolution of the symlink REL, if kept. */
static int
memo_get(void *arg, const char *rel, struct xtr_link_res *res)
{
	struct xtr *x = arg;
	const struct lc_ent *e;

	e = lc_get(&x->lcache->memo, x->lcache->gen, rel);
	if (e == NULL)
		return 0;
	res->r = e->r;
	res->follows = e->follows;
	res->peak = e->peak;
	res->resolved = e->val;
	return 1;
}

/* linkcheck's memo: keep the resolution RES of the symlink REL. */
static void
memo_put(void *arg, const char *rel, const struct xtr_link_res *res)
{
	struct xtr *x = arg;
	struct lc_ent *e;

	e = lc_put(x, &x->lcache->memo, x->lcache->gen, rel,
	    res->r == 1 ? res->resolved : "");
	if (e == NULL)
		return;
	e->r = res->r;
	e->follows = res->follows;
	e->peak = res->peak;
}

/* Count STEPS more; stop the run past the budget.  Return: x->fatal. */
static bool
steps_over(struct xtr *x)
{
	if (x->link_steps <= x->link_step_budget)
		return x->fatal;
	xtr_fail(x, EFBIG, "limit symlink-steps=%" PRIu64 " reached: "
	    "judging where the archive's symbolic links lead takes more "
	    "(use PFX_SYMLINKS_REFUSE, or a lower limits.max_links)",
	    x->link_step_budget);
	return true;
}

/* The budget grows by the steps that LEN more bytes of links may take. */
static void
steps_allow(struct xtr *x, size_t len)
{
	uint64_t more = (uint64_t)len * XTR_LINK_STEPS_PER_BYTE;

	if (x->link_step_budget > UINT64_MAX - more)
		x->link_step_budget = UINT64_MAX;
	else
		x->link_step_budget += more;
}

/* see links.h */
uint64_t
xtr_link_steps_last(void)
{
	return last_steps;
}

/* see links.h */
uint64_t
xtr_link_removal_judged(void)
{
	return removal_judged;
}

struct lookup_ctx {
	struct xtr *x;
	int r;			/* out: xtr_link_contained()'s answer */
	bool with_pending;	/* queued links count as made */
	bool memo;		/* use linkcheck's memo (not with RECORD) */
	bool record;		/* note the queued links followed */
	bool symlink_on_disk;	/* the resolver met a symlink on a path */
	size_t nfollowed;
	/* Queued links followed, as indices into x->links: one at most per
	 * link followed, and a resolution follows XTR_LINK_MAX_FOLLOW. */
	size_t followed[XTR_LINK_MAX_FOLLOW];
};

/* The queued link at REL, still to be made or made: its index, or SIZE_MAX. */
static size_t
queued_at(const struct xtr *x, const char *rel)
{
	const struct xtr_slot *s = xtr_table_find(&x->pending, rel);

	return s != NULL ? s->index : SIZE_MAX;
}

/*
 * Note that C's resolution followed queued link I.
 * Return: 0, or -ELOOP if more were followed than a resolution can.
 */
static int
note_followed(struct lookup_ctx *c, size_t i)
{
	if (!c->record)
		return 0;
	if (c->nfollowed == XTR_LINK_MAX_FOLLOW)
		return -ELOOP;
	c->followed[c->nfollowed++] = i;
	return 0;
}

/*
 * Is REL a symlink on disk beneath ROOT?  Return: 1 with its target in
 * BUF (CAP bytes), 0 if not or if it does not exist, or -errno (-ELOOP:
 * a symlink on its way).
 */
static int
read_disk_link(const struct pfx_root *root, const char *rel, char *buf,
    size_t cap)
{
	int r;

	if (rel[0] == '\0')
		return 0;
	r = pfx_root_readlink(root, rel, buf, cap);
	if (r >= 0)
		return 1;
	if (r == -EINVAL || r == -ENOENT || r == -ENOTDIR)
		return 0;
	return r;
}

/*
 * read_disk_link(), through the cache of the disk's answers while links
 * are judged.  Errors are not kept: they are asked again.
 */
static int
disk_link(struct xtr *x, const char *rel, char *buf, size_t cap)
{
	struct link_cache *lc = x->lcache;
	const struct lc_ent *e;
	size_t n;
	int r;

	if (lc != NULL && (e = lc_get(&lc->disk, lc->gen, rel)) != NULL) {
		if (e->r == 0)
			return 0;
		n = strlen(e->val);
		if (n >= cap)
			return -ENAMETOOLONG;
		memcpy(buf, e->val, n + 1);
		return 1;
	}
	r = read_disk_link(&x->root, rel, buf, cap);
	if (lc != NULL && (r == 0 || r == 1)) {
		struct lc_ent *ne = lc_put(x, &lc->disk, lc->gen, rel,
		    r == 1 ? buf : "");

		if (ne != NULL)
			ne->r = r;
	}
	return r;
}

/* linkcheck's question: is REL a symlink, queued or on disk? */
static int
lookup_link(void *arg, const char *rel, char *buf, size_t cap)
{
	struct lookup_ctx *c = arg;
	size_t i, n;
	int r;

	i = queued_at(c->x, rel);
	if (c->with_pending && i != SIZE_MAX) {
		n = strlen(c->x->links[i].target);
		if (n >= cap)
			return -ENAMETOOLONG;
		memcpy(buf, c->x->links[i].target, n + 1);
		return note_followed(c, i) < 0 ? -ELOOP : 1;
	}
	r = disk_link(c->x, rel, buf, cap);
	if (r == 1) {
		/* On disk after the links are made: one of ours, if queued. */
		if (i != SIZE_MAX && note_followed(c, i) < 0)
			return -ELOOP;
		return 1;
	}
	if (r == -ELOOP)
		c->symlink_on_disk = true;
	return r;
}

/*
 * Is the link PATH -> TARGET contained, over the tree C describes?
 * Return: NULL if so, else a reason.
 */
static const char *
judge_path(const char *path, const char *target, struct lookup_ctx *c)
{
	struct xtr_link_lookup lk = { lookup_link, c, NULL, &c->x->link_steps,
	    c->x->opt->symlinks == PFX_SYMLINKS_ROOT };
	struct xtr_link_memo memo;
	struct link_cache *lc = c->x->lcache;
	int r;

	if (c->memo && !c->record && lc != NULL && lc->frames != NULL) {
		memo.get = memo_get;
		memo.put = memo_put;
		memo.arg = c->x;
		memo.frames = lc->frames;
		memo.nframes = LINK_FRAMES;
		lk.memo = &memo;
	}
	r = xtr_link_contained(path, target, &lk, NULL, 0);
	c->r = r;
	if (r == 1)
		return NULL;
	/* A symlink that was in dest before: never followed, as for files. */
	if (c->symlink_on_disk)
		return "symlink_in_path";
	if (r == -ELOOP)
		return "symlink_loop";
	return "symlink_escapes";
}

/*
 * --symlinks=root: where the link at PATH really is.  Its parents may be
 * links (bin -> usr/bin, or y -> /), and linkcheck takes the parents of
 * the link it judges to be directories: judged by its name, y/l ->
 * ../proc/1/root would read "y/proc/1/root" where the kernel reads
 * "proc/1/root".  So the parent is resolved first, by linkcheck itself,
 * as the absolute target of a link, and the link judged where it lands.
 * Return: 0 with the path in BUF (CAP bytes), or a reason.
 */
static const char *
real_place(struct xtr *x, const char *path, char *buf, size_t cap)
{
	struct lookup_ctx c;
	struct xtr_link_lookup lk = { lookup_link, &c, NULL, &x->link_steps,
	    true };
	const char *slash = strrchr(path, '/');
	char dir[PFX_PATH_MAX + 1];
	size_t n, d;
	int r;

	n = strlen(path);
	if (slash == NULL) {
		if (n >= cap)
			return "too_long";
		memcpy(buf, path, n + 1);
		return NULL;
	}
	d = (size_t)(slash - path);
	dir[0] = '/';
	memcpy(dir + 1, path, d);
	dir[d + 1] = '\0';
	memset(&c, 0, sizeof(c));
	c.x = x;
	r = xtr_link_contained(path, dir, &lk, buf, cap);
	if (r == -ELOOP)
		return "symlink_loop";
	if (r != 1)
		return "symlink_escapes";
	d = strlen(buf);
	if (d + 1 + (n - (size_t)(slash + 1 - path)) >= cap)
		return "too_long";
	if (d > 0)
		buf[d++] = '/';
	memcpy(buf + d, slash + 1, n - (size_t)(slash + 1 - path) + 1);
	return NULL;
}

/* Is queued link L contained?  Return: NULL if so, else a reason. */
static const char *
judge_link(struct xtr *x, const struct xtr_symlink *l, bool with_pending)
{
	struct lookup_ctx c;
	char buf[PFX_PATH_MAX], place[PFX_PATH_MAX];
	const char *why;

	if (x->opt->symlinks == PFX_SYMLINKS_ROOT) {
		why = real_place(x, l->path, place, sizeof(place));
		if (why != NULL)
			return why;
	}
	memset(&c, 0, sizeof(c));
	c.x = x;
	c.with_pending = with_pending;
	/*
	 * The memo needs the lookup to read L as the link it is judged as:
	 * so it does when L is queued; on disk, only if L is there as made.
	 */
	c.memo = with_pending ||
	    (disk_link(x, l->path, buf, sizeof(buf)) == 1 &&
	    strcmp(buf, l->target) == 0);
	return judge_path(x->opt->symlinks == PFX_SYMLINKS_ROOT ? place :
	    l->path, l->target, &c);
}

/* Take queued link I out of the set of links that will exist. */
static void
unqueue(struct xtr *x, size_t i)
{
	struct xtr_slot *s = xtr_table_find(&x->pending, x->links[i].path);

	if (s != NULL && s->index == i) {
		s->index = SIZE_MAX;
		lc_changed(x);
	}
}

static int make_link(struct xtr *x, const struct xtr_symlink *l,
    unsigned int flags);
static unsigned int replace_flags(const struct xtr *x);

/*
 * Why link L could not be made (error R): a refusal, or an I/O error
 * (a full disk), which stops the run as it does for a file
 * (xtr_finish_error()): with --atomic, a tree missing links it could not
 * write is not published.  Return: the reason.
 */
static const char *
not_made(struct xtr *x, const struct xtr_symlink *l, int r)
{
	bool io;
	const char *why = xtr_error_reason(x, -r, &io);

	if (io)
		xtr_fail(x, -r, "%s: %s", l->name, strerror(-r));
	return why;
}

/*
 * --symlinks=root: make queued link I at once, as tar does, so that the
 * entries after it reach their parents through it.  That is safe in a
 * root: parents are resolved in it (RESOLVE_IN_ROOT), where no link
 * leads out, and nothing is ever written through a final component.  It
 * is judged first over the tree as it is now (links on disk, this run's
 * among them), and all of this run's are judged again over the final
 * tree at the end (xtr_finish_symlinks()), since a later link can turn
 * an earlier one towards a magic link or into a loop.  Its report waits
 * for that.
 */
static void
make_now(struct xtr *x, size_t i)
{
	struct xtr_symlink *l = &x->links[i];
	const char *why;
	int r;

	if (x->link_step_budget == 0)
		x->link_step_budget = XTR_LINK_STEPS_MIN;
	steps_allow(x, strlen(l->path) + strlen(l->target) + 2);
	why = judge_link(x, l, false);
	if (why == NULL && steps_over(x))
		why = "stopped";
	if (why == NULL) {
		/*
		 * With a journal (--atomic over a populated DEST) no name
		 * that held something changes before the end: such a link
		 * waits for the journal to put every name in place.
		 */
		r = xtr_make_parents(x, l->path);
		if (r == 0)
			r = xtr_journal_touch_parent(x, l->path);
		/*
		 * A file of this run waiting beside the name holds it: made
		 * now, the link would stand in the file's way at the end.
		 */
		if (r == 0 && xtr_journal_lists(x, l->path))
			r = -EEXIST;
		if (r == 0)
			r = make_link(x, l, x->journal != NULL ?
			    PFX_ROOT_NOREPLACE : replace_flags(x));
		if (r == -EEXIST && x->journal != NULL &&
		    xtr_replaces(x->opt)) {
			l->deferred = true;
			l->why = NULL;
			return;
		}
		/* Owner and time are best effort, as in make_links(). */
		if (r == 0) {
			(void)link_meta(x, l);
			note_own(x, l->path);
		} else if (r == -EEXIST &&
		    x->opt->existing == PFX_EXISTING_SKIP)
			why = "skipped_existing";
		else
			why = not_made(x, l, r);
	}
	l->why = why;
	if (why != NULL)
		unqueue(x, i);
}

/*
 * Grow the array of OLD by one record and its arena by LEN bytes.
 * Return: 0, or -ENOMEM.
 */
static int
old_reserve(struct old_links *old, size_t len)
{
	struct old_link *v;
	size_t cap;
	char *a;

	if (old->n == old->vcap) {
		cap = old->vcap == 0 ? 64 : old->vcap * 2;
		if (cap < old->vcap || cap > SIZE_MAX / sizeof(*v))
			return -ENOMEM;
		v = realloc(old->v, cap * sizeof(*v));
		if (v == NULL)
			return -ENOMEM;
		old->v = v;
		old->vcap = cap;
	}
	if (len > SIZE_MAX - old->used)
		return -ENOMEM;
	if (old->used + len > old->cap) {
		cap = old->cap == 0 ? 4096 : old->cap;
		while (cap < old->used + len) {
			if (cap > SIZE_MAX / 2)
				return -ENOMEM;
			cap *= 2;
		}
		a = realloc(old->arena, cap);
		if (a == NULL)
			return -ENOMEM;
		old->arena = a;
		old->cap = cap;
	}
	return 0;
}

/*
 * Append the link REL -> TARGET to OLD, TOUCHED as given.
 * Return: 0, or -ENOMEM.
 */
static int
old_append(struct old_links *old, const char *rel, const char *target,
    bool touched)
{
	size_t plen = strlen(rel) + 1, tlen = strlen(target) + 1;
	struct old_link *o;
	int r;

	r = old_reserve(old, plen + tlen);
	if (r < 0)
		return r;
	o = &old->v[old->n++];
	memset(o, 0, sizeof(*o));
	o->off = old->used;
	o->touched = touched;
	memcpy(old->arena + old->used, rel, plen);
	memcpy(old->arena + old->used + plen, target, tlen);
	old->used += plen + tlen;
	return 0;
}

struct collect_ctx {
	struct xtr *x;
	struct old_links *old;
};

/*
 * pfx_root_list_links()'s call for each link already in the destination.
 * Keep it only if the run could turn it outwards: if its resolution over
 * the tree as planned meets a queued link (otherwise it reads nothing the
 * run changes, and leads where it led), and if it does not lead out as
 * things stand (one that already led out is not the run's doing).  One
 * that loops now (or cannot be judged) leads nowhere, but a new link can
 * open its loop outwards (l1 -> l2/.. with l2 -> l1, then l2 -> . comes):
 * it is kept too, marked LOOPED, and held only from leading out.  Most
 * links cost one resolution; kept ones two.  Return: 0, or -ENOMEM.
 */
static int
collect_link(void *arg, const char *rel, const char *target)
{
	struct collect_ctx *cc = arg;
	struct old_links *old = cc->old;
	struct lookup_ctx c;

	steps_allow(cc->x, strlen(rel) + strlen(target) + 2);
	if (steps_over(cc->x))
		return -EFBIG;
	if (queued_at(cc->x, rel) == SIZE_MAX) {
		memset(&c, 0, sizeof(c));
		c.x = cc->x;
		c.with_pending = true;
		c.record = true;
		(void)judge_path(rel, target, &c);
		if (c.nfollowed == 0)
			return 0;
	}
	memset(&c, 0, sizeof(c));
	c.x = cc->x;
	(void)judge_path(rel, target, &c);
	if (c.r == 0)
		return 0;
	if (old_append(old, rel, target, true) < 0)
		return -ENOMEM;
	old->v[old->n - 1].looped = c.r != 1;
	return 0;
}

static void
old_free(struct old_links *old)
{
	free(old->arena);
	free(old->v);
	memset(old, 0, sizeof(*old));
}

/*
 * Judge the link already in the destination O, over the tree as planned
 * (WITH_PENDING) or over the disk.  If it would lead out, refuse every
 * queued link its resolution followed: set their OUTCOME, and when
 * UNLINK, remove them (made already) and take them out of the set at
 * once.  Return: true if a link was refused.
 */
static bool
recheck_old(struct xtr *x, struct old_link *o, const char *arena,
    bool with_pending, const char **outcome, bool unlink)
{
	const char *path = arena + o->off;
	const char *target = path + strlen(path) + 1;
	struct lookup_ctx c;
	bool refused = false;
	size_t k, i;

	/* A queued link takes its name; it counts again if that one goes. */
	if (queued_at(x, path) != SIZE_MAX) {
		o->touched = true;
		return false;
	}
	memset(&c, 0, sizeof(c));
	c.x = x;
	c.with_pending = with_pending;
	c.record = true;
	/*
	 * SECURITY: contained before; escaping or looping now is ours.  One
	 * that looped before may loop still, but not lead out.
	 */
	if (judge_path(path, target, &c) == NULL ||
	    (o->looped && c.r != 0)) {
		o->touched = c.nfollowed > 0;
		return false;
	}
	o->touched = c.nfollowed > 0;
	for (k = 0; k < c.nfollowed; k++) {
		i = c.followed[k];
		if (outcome[i] != NULL)
			continue;
		outcome[i] = "symlink_redirects";
		if (unlink) {
			(void)pfx_root_unlink(&x->root, x->links[i].path);
			unqueue(x, i);
		}
		refused = true;
	}
	return refused;
}

/* Take every link refused so far out of the set of links to make. */
static void
unqueue_refused(struct xtr *x, const char **outcome)
{
	size_t i;

	for (i = 0; i < x->nlinks; i++) {
		if (x->links[i].path != NULL && outcome[i] != NULL)
			unqueue(x, i);
	}
}

/*
 * Decide which queued links to make, over the tree as it will be.  A
 * link is refused if it leads out, or if it would make a link already
 * in the destination lead out (OLD).  Each pass judges against the same
 * set, and its refusals leave the set together at its end, so that the
 * verdicts do not depend on the order of the archive (of loop1 -> loop2
 * and loop2 -> loop1, both loop).  A refusal can change the verdicts of
 * others, so judge again until a round refuses nothing.  Each round but
 * the last refuses one link at least: at most nlinks + 1 rounds.  Only
 * the old links whose last resolution met a queued link are judged
 * (again): the others read nothing that a refusal changes.
 */
static void
settle_links(struct xtr *x, struct old_links *old, const char **outcome)
{
	bool changed;
	size_t i;

	do {
		changed = false;
		for (i = 0; i < x->nlinks; i++) {
			if (x->links[i].path == NULL || outcome[i] != NULL)
				continue;
			outcome[i] = judge_link(x, &x->links[i], true);
			if (outcome[i] != NULL)
				changed = true;
			if (steps_over(x))
				return;
		}
		unqueue_refused(x, outcome);
		for (i = 0; i < old->n; i++) {
			if (!old->v[i].touched)
				continue;
			if (recheck_old(x, &old->v[i], old->arena, true,
			    outcome, false))
				changed = true;
			if (steps_over(x))
				return;
		}
		unqueue_refused(x, outcome);
	} while (changed);
}

/*
 * Make link L, replacing an existing non-directory if the policy says so.
 * Return: 0, or -errno.
 */
static unsigned int
replace_flags(const struct xtr *x)
{
	return xtr_replaces(x->opt) ? PFX_ROOT_REPLACE : PFX_ROOT_NOREPLACE;
}

static int
make_link(struct xtr *x, const struct xtr_symlink *l, unsigned int flags)
{
	unsigned int tries = 0;
	int r;

	r = xtr_make_parents(x, l->path);
	if (r < 0)
		return r;
	r = pfx_root_symlink_flags(&x->root, l->target, l->path, flags);
	/* Its parent could not be opened: nothing was made. */
	while (xtr_fd_relieve(x, r, &tries))
		r = pfx_root_symlink_flags(&x->root, l->target, l->path,
		    flags);
	return r;
}

/*
 * --symlinks=root with a journal: make the links that waited for every
 * name to be in place (make_now()), or, when the run failed, none.
 */
static void
make_deferred(struct xtr *x)
{
	struct xtr_symlink *l;
	size_t i;
	int r;

	for (i = 0; i < x->nlinks; i++) {
		l = &x->links[i];
		if (l->path == NULL || !l->deferred)
			continue;
		l->deferred = false;
		r = x->fatal ? -ECANCELED : make_link(x, l, PFX_ROOT_REPLACE);
		if (r == 0) {
			(void)link_meta(x, l);
			continue;
		}
		l->why = r == -ECANCELED ? "stopped" : not_made(x, l, r);
		unqueue(x, i);
	}
}

/* Make the links SETTLE_LINKS kept; those not made leave the set. */
static void
make_links(struct xtr *x, const char **outcome)
{
	size_t i;
	int r;

	for (i = 0; i < x->nlinks; i++) {
		if (x->links[i].path == NULL || outcome[i] != NULL)
			continue;
		/* After an I/O error the rest are not made: stopped, and not
		 * removed with the made ones (unmake_all()), since what
		 * stands at their names is not theirs. */
		if (x->fatal) {
			outcome[i] = "stopped";
			unqueue(x, i);
			continue;
		}
		r = make_link(x, &x->links[i], replace_flags(x));
		/* The link's own owner and time are best effort: the link is
		 * made and contained whatever happens to them. */
		if (r == 0)
			(void)link_meta(x, &x->links[i]);
		if (r == -EEXIST && x->opt->existing == PFX_EXISTING_SKIP)
			outcome[i] = "skipped_existing";
		else if (r < 0)
			outcome[i] = not_made(x, &x->links[i], r);
		if (outcome[i] != NULL)
			unqueue(x, i);
	}
}

/*
 * The run stopped while the links made were still being checked against
 * the disk: remove every one not refused yet (SECURITY: none is left
 * unchecked), as stopped.  Last made first: --symlinks=root makes a link
 * at once, and a later one may be made through it ("l -> sub", then
 * "l/k"), reached by its name only while the earlier one stands.
 */
static void
unmake_all(struct xtr *x, const char **outcome)
{
	size_t i;

	for (i = x->nlinks; i-- > 0;) {
		if (x->links[i].path == NULL || outcome[i] != NULL)
			continue;
		if (pfx_root_unlink(&x->root, x->links[i].path) == 0)
			xtr_journal_unmade_link(x, x->links[i].path);
		unqueue(x, i);
		outcome[i] = "stopped";
	}
}

/*
 * What is on disk is final: check each link made, and each old link
 * whose resolution met a queued one, against it alone.  A made link that
 * leads out, or that an old link now leads out through, is removed.
 * Removing one can change where another leads, so repeat until a pass
 * removes nothing; each pass removes one at least or ends, so there are
 * at most nlinks + 1 passes.
 */
static void
recheck_made(struct xtr *x, struct old_links *old, const char **outcome)
{
	bool removed;
	size_t i;

	do {
		removed = false;
		/* Each pass reads the disk afresh. */
		lc_changed(x);
		for (i = 0; i < x->nlinks; i++) {
			if (x->links[i].path == NULL || outcome[i] != NULL)
				continue;
			if (steps_over(x)) {
				unmake_all(x, outcome);
				return;
			}
			outcome[i] = judge_link(x, &x->links[i], false);
			if (outcome[i] != NULL) {
				(void)pfx_root_unlink(&x->root,
				    x->links[i].path);
				unqueue(x, i);
				removed = true;
			}
		}
		for (i = 0; i < old->n; i++) {
			if (!old->v[i].touched)
				continue;
			if (steps_over(x)) {
				unmake_all(x, outcome);
				return;
			}
			if (recheck_old(x, &old->v[i], old->arena, false,
			    outcome, true))
				removed = true;
		}
	} while (removed);
}

/*
 * List into OLD the links already in the destination that the run could
 * turn outwards (see collect_link); on failure the run is failed, since
 * what the new links would do to them cannot be judged.
 */
static void
collect_old_links(struct xtr *x, struct old_links *old)
{
	struct collect_ctx cc = { x, old };
	int r;

	/*
	 * An empty destination at the start: every link in it now is this
	 * run's (queued, not yet made) or was put there since by someone
	 * else, whose links are theirs to aim (the tree is not frozen: a
	 * listing would see them or not, by timing).  Nothing to list:
	 * the walk cost O(entries) -- 0.1 to 0.2 s on the Linux tree.
	 */
	if (x->dest_was_empty)
		return;
	r = pfx_root_list_links(&x->root, collect_link, &cc);
	if (r < 0 && !x->fatal)
		xtr_fail(x, -r, "symbolic links not made: listing the links "
		    "already in the destination: %s", strerror(-r));
}

/* see links.h */
void
xtr_finish_symlinks(struct xtr *x)
{
	struct old_links old;
	struct link_cache lc;
	const char **outcome;
	size_t i;

	if (x->nlinks == 0)
		return;
	memset(&old, 0, sizeof(old));
	memset(&lc, 0, sizeof(lc));
	outcome = calloc(x->nlinks, sizeof(*outcome));
	if (outcome == NULL) {
		xtr_fail(x, ENOMEM, "symbolic links not made: %s",
		    strerror(ENOMEM));
		return;
	}
	/* The budget of steps, and the caches that keep within it. */
	x->link_steps = 0;
	x->link_step_budget = XTR_LINK_STEPS_MIN;
	for (i = 0; i < x->nlinks; i++)
		if (x->links[i].path != NULL)
			steps_allow(x, strlen(x->links[i].path) +
			    strlen(x->links[i].target) + 2);
	if (xtr_mem_try(x, LINK_FRAMES * sizeof(*lc.frames)) == 0) {
		lc.frames = malloc(LINK_FRAMES * sizeof(*lc.frames));
		if (lc.frames == NULL)
			xtr_mem_give(x, LINK_FRAMES * sizeof(*lc.frames));
	}
	x->lcache = &lc;
	/* --symlinks=root: made already; what is on disk is final. */
	if (x->opt->symlinks == PFX_SYMLINKS_ROOT) {
		make_deferred(x);
		for (i = 0; i < x->nlinks; i++)
			outcome[i] = x->links[i].why;
		lc_changed(x);
		recheck_made(x, &old, outcome);
	}
	/*
	 * SECURITY: a new link can change where a link already here leads
	 * (sub/e -> c/../.. is inside until sub/c -> .. exists), so those
	 * are listed before any new one is made, and kept from leading out.
	 */
	if (!x->fatal && x->opt->symlinks == PFX_SYMLINKS_CONTAIN)
		collect_old_links(x, &old);
	if (!x->fatal && x->opt->symlinks == PFX_SYMLINKS_CONTAIN)
		settle_links(x, &old, outcome);
	if (!x->fatal && x->opt->symlinks == PFX_SYMLINKS_CONTAIN) {
		make_links(x, outcome);
		lc_changed(x);
		recheck_made(x, &old, outcome);
	}
	old_free(&old);
	x->lcache = NULL;
	lc_clear(x, &lc.disk);
	lc_clear(x, &lc.memo);
	if (lc.frames != NULL) {
		free(lc.frames);
		xtr_mem_give(x, LINK_FRAMES * sizeof(*lc.frames));
	}
	last_steps = x->link_steps;
	removal_judged = x->removals_judged;
	for (i = 0; i < x->nlinks; i++) {
		if (x->links[i].path == NULL)
			continue;
		if (x->fatal && outcome[i] == NULL)
			outcome[i] = "stopped";
		if (outcome[i] == NULL)
			report_link(x, &x->links[i], PFX_ENTRY_EXTRACTED, "none",
			    0);
		else if (strcmp(outcome[i], "skipped_existing") == 0 ||
		    strcmp(outcome[i], "stopped") == 0)
			report_link(x, &x->links[i], PFX_ENTRY_SKIPPED,
			    outcome[i], 0);
		else if (strcmp(outcome[i], "io_error") == 0)
			report_link(x, &x->links[i], PFX_ENTRY_FAILED,
			    outcome[i], 0);
		else
			report_link(x, &x->links[i], PFX_ENTRY_REFUSED,
			    outcome[i], 0);
	}
	free(outcome);
}

/*
 * Removing a symlink changes how the links that pass through it resolve.
 * With y -> a/b/c, e -> y/../../x is dest/a/x; once a file of the run
 * replaces y, e reads y/../.. from y's own depth: dest/'s parent, which a
 * later run that makes y a directory opens for real.  So before an entry
 * replaces a symlink, xtr_symlink_removable() judges the links already in
 * the destination with that one read as a symlink (as on disk) and as
 * not one.  The list is made at the first such replacement only
 * (pfx_root_list_links(): O(entries in the destination), paid only by a
 * run that replaces a symlink) and kept in one arena, as old_links; each
 * replacement then costs one resolution per listed link, two for those
 * whose resolution reads the replaced name.
 */

/* A lookup over the disk in which GONE may be read as no symlink. */
struct gone_ctx {
	const struct pfx_root *root;
	const char *gone;
	size_t gone_len;
	bool as_gone;		/* in: read GONE as replaced by a file */
	bool met;		/* out: the resolution read GONE */
};

/* linkcheck's question, over the disk, GONE read as GONE_CTX says. */
static int
lookup_gone(void *arg, const char *rel, char *buf, size_t cap)
{
	struct gone_ctx *g = arg;

	if (strncmp(rel, g->gone, g->gone_len) == 0 &&
	    (rel[g->gone_len] == '\0' || rel[g->gone_len] == '/')) {
		g->met = true;
		/* A file now: neither it nor a path beneath it is a link. */
		if (g->as_gone)
			return 0;
	}
	return read_disk_link(g->root, rel, buf, cap);
}

/*
 * Would the old link PATH -> TARGET, inside as things stand, lead out
 * (or loop, or be beyond judging) once the symlink REL is gone?  One
 * that leads out now is not the run's doing; one whose resolution never
 * reads REL leads where it led.  One that loops now (or is beyond
 * judging) leads nowhere, but REL gone can open its loop outwards
 * (l1 -> l2/../.. with l2 -> l1): it may go on looping, not lead out.
 */
static bool
turned_out(const struct xtr *x, const char *rel, const char *path,
    const char *target)
{
	struct gone_ctx g = { &x->root, rel, strlen(rel), false, false };
	struct xtr_link_lookup lk = { lookup_gone, &g, NULL, NULL,
	    x->opt->symlinks == PFX_SYMLINKS_ROOT };
	int before, after;

	before = xtr_link_contained(path, target, &lk, NULL, 0);
	if (before == 0 || !g.met)
		return false;
	g.as_gone = true;
	after = xtr_link_contained(path, target, &lk, NULL, 0);
	/* SECURITY: every answer but "contained" counts as leading out. */
	if (before == 1)
		return after != 1;
	return after == 0;
}

/*
 * --symlinks=root makes each link at once: remember REL, a link just
 * made, so that the listing of the destination's links (by the first
 * entry to replace a link) leaves it out, and its own replacement is not
 * judged (judge_removal()).  Listed, the run's own links were judged
 * again at every replacement: an archive of N links and then N files of
 * their names cost N^2 / 2 resolutions on disk; and every replacement of
 * one of its own judged every link of the destination: N links and files
 * of one name over a DEST of L links, N x L.  They need neither: all the
 * run's links are judged again over the final tree at the end
 * (recheck_made()), and one that goes gives back the tree as it was
 * without it.  A name that finds no room in the budget is judged as
 * before: a cost, not a hole.  The reading thread adds; the listing and
 * the judgements, under X->old_mu, may be the worker's.
 */
static void
note_own(struct xtr *x, const char *rel)
{
	(void)pthread_mutex_lock(&x->old_mu);
	(void)xtr_table_add(&x->own_links, rel);
	(void)pthread_mutex_unlock(&x->old_mu);
}

/*
 * pfx_root_list_links()'s call: keep every link but the run's own
 * (note_own()).  0, or -ENOMEM.
 */
static int
keep_link(void *arg, const char *rel, const char *target)
{
	struct collect_ctx *cc = arg;

	if (xtr_table_find(&cc->x->own_links, rel) != NULL)
		return 0;
	return old_append(cc->old, rel, target, false);
}

/*
 * List the links in the destination into X->old_listed, under X->old_mu.
 * An empty destination at the start held none of before the run: every
 * link in it is the run's own, or someone else's put there since (theirs
 * to aim, as collect_old_links() says), and none is listed.
 * Return: 0, or -errno.
 */
static int
list_old_links(struct xtr *x)
{
	struct collect_ctx cc = { x, NULL };
	struct old_links *old;
	int r = 0;

	old = calloc(1, sizeof(*old));
	if (old == NULL)
		return -ENOMEM;
	cc.old = old;
	if (!x->dest_was_empty)
		r = pfx_root_list_links(&x->root, keep_link, &cc);
	if (r < 0) {
		old_free(old);
		free(old);
		return r;
	}
	x->old_listed = old;
	return 0;
}

/*
 * Find the listed link at REL in OLD (NOLINK: the name kept for a
 * refusal instead): its index, or SIZE_MAX.
 */
static size_t
old_find(const struct old_links *old, const char *rel, bool nolink)
{
	size_t i;

	for (i = 0; i < old->n; i++)
		if (!old->v[i].gone && old->v[i].nolink == nolink &&
		    strcmp(old->arena + old->v[i].off, rel) == 0)
			return i;
	return SIZE_MAX;
}

/*
 * Keep REL, a name that is no listed link (a directory), as refused in
 * OLD, so that an archive naming it again and again pays a scan of the
 * list, not a judgement of every link, as for a link.  Its bytes come
 * from the budget as far as it allows: without room, nothing is kept,
 * and the name is judged again.  Return: its index, or SIZE_MAX.
 */
static size_t
keep_refused(struct xtr *x, struct old_links *old, const char *rel)
{
	size_t n = strlen(rel) + 2 + sizeof(struct old_link);

	if (xtr_mem_try(x, n) < 0)
		return SIZE_MAX;
	if (old_append(old, rel, "", false) < 0) {
		xtr_mem_give(x, n);
		return SIZE_MAX;
	}
	old->charged += n;
	old->v[old->n - 1].nolink = true;
	return old->n - 1;
}

/* Is PATH the name REL (LEN bytes), or beneath it? */
static bool
at_or_beneath(const char *path, const char *rel, size_t len)
{
	return strncmp(path, rel, len) == 0 &&
	    (path[len] == '\0' || path[len] == '/');
}

/*
 * Judge the removal of the symlink REL against OLD; if allowed, mark REL
 * gone, so that it is no longer judged as a link.  Only a link gone
 * changes a verdict (a file or directory made reads as a missing
 * component did), so a refusal holds until one goes: an archive that
 * names a refused link again and again pays a scan of the list for each,
 * not a judgement of every link.  REL goes with every name beneath it:
 * a directory removed whole (--recursive-unlink, a GNU dump directory's
 * purge) takes the links it holds along, so those are judged as gone
 * (lookup_gone reads no link at or beneath REL), not as links that stay.
 */
static int
judge_removal(struct xtr *x, struct old_links *old, const char *rel)
{
	const char *path;
	size_t i, self, len = strlen(rel);

	self = old_find(old, rel, false);
	if (self == SIZE_MAX)
		self = old_find(old, rel, true);
	/*
	 * A link this run made (--symlinks=root), at a name that held none
	 * of the listed ones: judged at the end with the run's others
	 * (note_own()).  The refusals remembered stay: a stale one only
	 * refuses.
	 */
	if (self == SIZE_MAX && xtr_table_find(&x->own_links, rel) != NULL)
		return 0;
	if (self != SIZE_MAX && old->v[self].refused)
		return XTR_REDIRECTS;
	for (i = 0; i < old->n; i++) {
		path = old->arena + old->v[i].off;
		if (old->v[i].gone || old->v[i].nolink ||
		    at_or_beneath(path, rel, len))
			continue;
		x->removals_judged++;	/* under X->old_mu */
		if (!turned_out(x, rel, path, path + strlen(path) + 1))
			continue;
		if (self == SIZE_MAX)
			self = keep_refused(x, old, rel);
		if (self != SIZE_MAX)
			old->v[self].refused = true;
		return XTR_REDIRECTS;
	}
	for (i = 0; i < old->n; i++) {
		if (at_or_beneath(old->arena + old->v[i].off, rel, len))
			old->v[i].gone = true;
		old->v[i].refused = false;
	}
	return 0;
}

/* see links.h */
int
xtr_symlink_removable(struct xtr *x, const char *rel)
{
	int r = 0;

	(void)pthread_mutex_lock(&x->old_mu);
	if (x->old_listed == NULL)
		r = list_old_links(x);
	if (r == 0)
		r = judge_removal(x, x->old_listed, rel);
	(void)pthread_mutex_unlock(&x->old_mu);
	return r;
}

/*
 * Would the old link PATH -> TARGET, not leading out as things stand
 * (inside, or a loop), read NAME (or a path beneath it) on its way?  If
 * so, a link put at NAME changes where it leads.
 */
static bool
reads_name(const struct xtr *x, const char *name, const char *path,
    const char *target)
{
	struct gone_ctx g = { &x->root, name, strlen(name), false, false };
	struct xtr_link_lookup lk = { lookup_gone, &g, NULL, NULL,
	    x->opt->symlinks == PFX_SYMLINKS_ROOT };

	return xtr_link_contained(path, target, &lk, NULL, 0) != 0 && g.met;
}

/*
 * May the symlink REL move to BAK, its backup in the same directory?
 * Its own name goes (judge_removal), and a link appears at BAK, over
 * what was there: every link that reads BAK would follow it from then
 * on -- e -> y~/.. leads out once y -> ../x is moved over y~ -- so none
 * that does not lead out may read BAK, the moved link included.  Then BAK
 * holds REL's target in the list.
 */
static int
judge_link_move(struct xtr *x, struct old_links *old, const char *rel,
    const char *bak)
{
	char target[PFX_PATH_MAX];
	const char *path;
	size_t i, self, blen = strlen(bak);
	int r;

	for (i = 0; i < old->n; i++) {
		path = old->arena + old->v[i].off;
		if (old->v[i].gone || old->v[i].nolink ||
		    at_or_beneath(path, bak, blen))
			continue;
		if (reads_name(x, bak, path, path + strlen(path) + 1))
			return XTR_REDIRECTS;
	}
	self = old_find(old, rel, false);
	target[0] = '\0';
	if (self != SIZE_MAX) {
		path = old->arena + old->v[self].off;
		(void)snprintf(target, sizeof(target), "%s",
		    path + strlen(path) + 1);
	}
	r = judge_removal(x, old, rel);
	if (r != 0)
		return r;
	for (i = 0; i < old->n; i++)
		if (at_or_beneath(old->arena + old->v[i].off, bak, blen))
			old->v[i].gone = true;
	return target[0] != '\0' ? old_append(old, bak, target, false) : 0;
}

/* see links.h */
int
xtr_backup_removable(struct xtr *x, const char *rel, const char *bak,
    bool is_link)
{
	char buf[PFX_PATH_MAX];
	int r = 0;

	/* A file moved over a file or a missing name changes no link. */
	if (!is_link && read_disk_link(&x->root, bak, buf, sizeof(buf)) != 1)
		return 0;
	(void)pthread_mutex_lock(&x->old_mu);
	if (x->old_listed == NULL)
		r = list_old_links(x);
	if (r == 0 && is_link)
		r = judge_link_move(x, x->old_listed, rel, bak);
	else if (r == 0)
		r = judge_removal(x, x->old_listed, bak);
	(void)pthread_mutex_unlock(&x->old_mu);
	return r;
}

/* see links.h */
void
xtr_free_old_links(struct xtr *x)
{
	if (x->old_listed == NULL)
		return;
	xtr_mem_give(x, x->old_listed->charged);
	old_free(x->old_listed);
	free(x->old_listed);
	x->old_listed = NULL;
}
