/*
 * dirs.c -- directory entries: made private (0700) while extraction
 * runs, and given their final modes and times at the end, deepest first,
 * so that a read-only directory is still writable while its entries are
 * made and a parent's mtime is set after its children changed it.  The
 * parents an archive does not list are made with their final mode at
 * once (parents.c) and have nothing to wait for here.
 *
 * With PFX_OPT_FSYNC the directories whose entries changed are synced
 * after that pass, deepest first and the destination last, so that once
 * a directory's own entry is durable, so is everything beneath it.
 *
 * SECURITY: only directories this run made are ever changed; one that
 * existed before is used but never chmod'ed or touched (syncing one
 * changes nothing in it).  The final pass re-resolves each directory
 * beneath the root and, where we know it, checks it is still the inode
 * we made.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


#include "budget.h"
#include "dirs.h"
#include "dumprename.h"
#include "extract.h"
#include "fail.h"
#include "fdbudget.h"
#include "journal.h"
#include "kept.h"
#include "links.h"
#include "meta.h"
#include "parents.h"
#include "report.h"
#include "table.h"

/* The end passes look at the clock and the cancel flag every this many
 * directories: at most a few ms of work apart. */
#define FINISH_LOOK 64

/*
 * Is the directory ID, found at REL without making it, the one this run
 * made there (slot S)?  By its identity where S has one; else (a parent
 * noted by name) only if REL leads to it through no symlink, as the
 * final pass opens it (finish_one()).
 */
static bool
made_here(const struct xtr *x, const struct xtr_slot *s, const char *rel,
    const struct plat_id *id)
{
	struct pfx_root strict;
	struct plat_id cur;
	bool same;
	int fd;

	if (s->has_id)
		return id->dev == s->dev && id->ino == s->ino;
	if (xtr_dumpdir_moved(x, rel))
		return false;
	strict = x->root;
	strict.in_root = 0;
	fd = pfx_root_open_dir(&strict, rel);
	if (fd < 0)
		return false;
	same = plat_os_identify(fd, &cur) == 0 && cur.dev == id->dev &&
	    cur.ino == id->ino;
	(void)close(fd);
	return same;
}

/* see dirs.h */
void
xtr_make_dir(struct xtr *x, const struct xtr_meta *m, struct pfx_entry *e,
    const char *rel)
{
	unsigned int created = 0;
	struct xtr_slot *s;
	struct plat_id id;
	int fd, r;

	if (rel[0] == '\0') {
		/* The destination itself: used, never changed. */
		xtr_finish_entry(x, e, PFX_ENTRY_EXTRACTED, "none", 0);
		return;
	}
	/* One walk makes the parents too; the count says which are new. */
	fd = xtr_journal_mkdir(x, rel);
	if (fd == 0)
		fd = xtr_mkdirs(x, rel, &created);
	/*
	 * A later entry wins, as in tar: a file (never a symlink, which
	 * gives ELOOP) where this directory goes is removed -- its name
	 * only, nothing is written through it -- and the directory made.
	 * Not with a journal (--atomic over a populated destination): no
	 * name may change before the end, so a name never changes type.
	 */
	if (fd == -ENOTDIR && xtr_replaces(x->opt) &&
	    x->journal == NULL && pfx_root_unlink(&x->root, rel) == 0)
		fd = plat_mkdirs_modes(&x->root, rel, &xtr_dir_modes,
		    &created);
	if (fd < 0) {
		xtr_finish_error(x, e, fd);
		return;
	}
	/* The entry itself is counted already; its new parents are not. */
	if (created > 1 && xtr_count_inodes(x, created - 1) != 0) {
		(void)close(fd);
		xtr_finish_entry(x, e, PFX_ENTRY_FAILED, "limit", EFBIG);
		return;
	}
	/* Only directories this run made are ever changed at the end. */
	r = 0;
	if (created > 0)
		r = plat_os_identify(fd, &id);
	if (r == 0 && created > 0)
		r = xtr_note_made(x, rel, created, fd);
	s = r == 0 ? xtr_table_find(&x->dirs, rel) : NULL;
	if (s != NULL && created == 0) {
		r = plat_os_identify(fd, &id);
		/* SECURITY: the name may lead elsewhere by now (a link
		 * replaced under --symlinks=root): a directory that
		 * existed before is used, never changed. */
		if (r == 0 && !made_here(x, s, rel, &id))
			s = NULL;
	}
	/* SECURITY: a directory moved to the name since it was made, or
	 * reached through a link, that was there before the run: used,
	 * never changed (xtr_born_in_run()). */
	if (r == 0 && s != NULL && !xtr_born_in_run(x, &id))
		s = NULL;
	if (r == 0 && s != NULL) {
		r = xtr_apply_owner_xattrs(x, e, m, fd);
		if (r == 0) {
			s->mode = xtr_entry_mode(x, e);
			s->dev = id.dev;
			s->ino = id.ino;
			s->has_id = true;
			s->has_time = (x->opt->flags & PFX_OPT_NO_MTIME) == 0;
			s->mtime = e->mtime;
			s->mtime_nsec = (int32_t)e->mtime_nsec;
			s->at_end = true;
		}
	}
	if (r < 0) {
		(void)close(fd);
		xtr_finish_error(x, e, r);
		return;
	}
	/* Its entries most often follow: kept open for them. */
	xtr_keep_dir(x, rel, fd);
	xtr_forget_symlink(x, rel);
	xtr_finish_entry(x, e, PFX_ENTRY_EXTRACTED, "none", 0);
}

/* Give one directory its final mode and times, through its own fd. */
static void
finish_one(struct xtr *x, const struct xtr_slot *s)
{
	struct timespec ts[2];
	struct pfx_root strict;
	struct plat_id id;
	unsigned int tries = 0;
	int fd;

	/*
	 * SECURITY: a directory known by name alone is only changed if its
	 * name leads through no symlink: with --symlinks=root it could lead
	 * anywhere in the root by now.  (Made through a link, it keeps its
	 * private mode.)  The copy shares the root's descriptor.
	 */
	strict = x->root;
	strict.in_root = 0;
	/* SECURITY: where a GNU rename moved directories (dumprename.c),
	 * a name may hold another directory than the one this run made. */
	if (!s->has_id && xtr_dumpdir_moved(x, s->key))
		return;
	fd = pfx_root_open_dir(s->has_id ? &x->root : &strict, s->key);
	/* Another thread of the caller holds the descriptors: not gone,
	 * and it must not keep its private mode for that. */
	while (xtr_fd_relieve(x, fd, &tries))
		fd = pfx_root_open_dir(s->has_id ? &x->root : &strict,
		    s->key);
	if (fd < 0)
		return;		/* gone or replaced by a link: leave it */
	/* SECURITY: and never one that was there before the run, however
	 * it came to be noted (xtr_born_in_run()). */
	if (plat_os_identify(fd, &id) == 0 && (!s->has_id ||
	    (id.dev == s->dev && id.ino == s->ino)) &&
	    xtr_born_in_run(x, &id)) {
		(void)pfx_fd_chmod(fd, s->mode);
		if (s->has_time) {
			ts[0].tv_sec = 0;
			ts[0].tv_nsec = UTIME_NOW;
			ts[1].tv_sec = s->mtime;
			ts[1].tv_nsec = s->mtime_nsec;
			(void)pfx_fd_set_times(fd, ts);
		}
	}
	(void)close(fd);
}

/*
 * Sync the directory REL ("" the destination).  One that is gone or was
 * replaced is not ours to sync any more.  Return: 0, or -1 (run failed).
 */
static int
sync_one(struct xtr *x, const char *rel)
{
	unsigned int tries = 0;
	int fd, r;

	fd = pfx_root_open_dir(&x->root, rel);
	while (xtr_fd_relieve(x, fd, &tries))
		fd = pfx_root_open_dir(&x->root, rel);
	if (fd == -ENOENT || fd == -ELOOP || fd == -ENOTDIR)
		return 0;
	r = fd < 0 ? fd : fsync(fd) == -1 ? -errno : 0;
	if (fd >= 0)
		(void)close(fd);
	if (r < 0) {
		xtr_fail(x, -r, "%s: cannot be made durable (PFX_OPT_FSYNC): %s",
		    rel[0] != '\0' ? rel : ".", strerror(-r));
		return -1;
	}
	return 0;
}

/*
 * PFX_OPT_FSYNC: sync every directory made and every directory whose
 * entries changed, deepest first (a directory after everything in it),
 * then the destination.
 */
static void
sync_dirs(struct xtr *x)
{
	struct xtr_slot **order;
	size_t i, n = 0;

	for (i = 0; i < x->dirs.cap; i++) {
		if (x->dirs.slots[i].key == NULL)
			continue;
		if (xtr_table_add(&x->changed, x->dirs.slots[i].key) == NULL) {
			xtr_fail(x, ENOMEM, "PFX_OPT_FSYNC: %s", strerror(ENOMEM));
			return;
		}
		xtr_note_changed(x, x->dirs.slots[i].key);
	}
	if (xtr_table_by_depth(&x->changed, NULL, &order, &n) < 0) {
		xtr_fail(x, ENOMEM, "PFX_OPT_FSYNC: %s", strerror(ENOMEM));
		return;
	}
	for (i = 0; i < n && !x->fatal; i++) {
		if (i % FINISH_LOOK == 0 && xtr_out_of_time(x))
			break;
		(void)sync_one(x, order[i]->key);
	}
	free(order);
	if (!x->fatal)
		(void)sync_one(x, "");
}

/* Has directory S a mode and times to get at the end? */
static bool
set_at_end(const struct xtr_slot *s)
{
	return s->at_end;
}

/* see dirs.h */
void
xtr_finish_dirs(struct xtr *x)
{
	struct xtr_slot **order;
	size_t i, n;

	if (xtr_table_by_depth(&x->dirs, set_at_end, &order, &n) < 0) {
		xtr_fail(x, ENOMEM, "directory modes not set: %s",
		    strerror(ENOMEM));
		return;
	}
	for (i = 0; i < n; i++) {
		/*
		 * The caller's deadline and cancellation bound this pass
		 * too: each directory is resolved again from DEST, O(its
		 * depth), so an archive of deep names can make it take
		 * minutes (docs/security.md, the cost model).  What is left
		 * keeps its private mode, as after a crash.
		 */
		if (i % FINISH_LOOK == 0 && xtr_out_of_time(x))
			break;
		finish_one(x, order[i]);
	}
	free(order);
	/* Durability is for a run that succeeded; a stopped one is not
	 * held up by it. */
	if ((x->opt->flags & PFX_OPT_FSYNC) != 0 && !x->fatal)
		sync_dirs(x);
}
