/*
 * links.c -- hard links and symbolic links.
 *
 * Hard links: only to a regular file this run extracted, and to that very
 * inode -- the target is opened beneath the root and its identity compared
 * with the one recorded when we made it -- so a link can never reach a
 * file that existed before the run, or one outside.
 *
 * Symbolic links: refused by default (the output is symlink-free).  With
 * --symlinks=contain they are queued and made after every other entry, so
 * no later entry can be written through one; each is made only if its
 * target, resolved with real symlink semantics over the final tree (the
 * other queued links included), stays inside the destination
 * (linkcheck.c).  After all are made, each is checked once more against
 * what is really on disk, and removed if it now leads out.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <archive_entry.h>

#include "extract.h"
#include "linkcheck.h"

/* see extract.h */
void
xtr_note_file(struct xtr *x, const char *rel, const struct stat *st)
{
	struct xtr_slot *s = xtr_table_add(&x->files, rel);

	if (s == NULL)
		return;		/* a later hard link to it will be refused */
	s->dev = st->st_dev;
	s->ino = st->st_ino;
	s->has_id = true;
}

/* Give the link L just made its owner and mtime, on the link itself. */
static int
link_meta(struct xtr *x, const struct xtr_symlink *l)
{
	struct timespec ts[2];

	ts[0].tv_sec = 0;
	ts[0].tv_nsec = UTIME_OMIT;
	ts[1] = l->mtime;
	return pfx_root_link_meta(&x->root, l->path, l->uid, l->gid, ts);
}

/* Report queued link L with STATUS and REASON. */
static void
report_link(struct xtr *x, const struct xtr_symlink *l,
    enum pfx_entry_status status, const char *reason, int error)
{
	struct pfx_entry e;

	memset(&e, 0, sizeof(e));
	e.name = l->name;
	e.path = l->path;
	e.link_target = l->target;
	e.type = PFX_TYPE_SYMLINK;
	e.mode = 0777;
	e.decision = status == PFX_ENTRY_EXTRACTED ||
	    status == PFX_ENTRY_SKIPPED ? PFX_ALLOW :
	    strcmp(reason, "symlink_escapes") == 0 ? PFX_REJECT : PFX_DENY;
	xtr_finish_entry(x, &e, status, reason, error);
}

/* Free the strings of queued link I and mark it gone. */
static void
drop_link(struct xtr *x, size_t i)
{
	free(x->links[i].path);
	free(x->links[i].target);
	free(x->links[i].name);
	x->links[i].path = x->links[i].target = x->links[i].name = NULL;
}

/* see extract.h */
void
xtr_forget_symlink(struct xtr *x, const char *rel)
{
	struct xtr_slot *s = xtr_table_find(&x->pending, rel);

	if (s == NULL || s->index == SIZE_MAX)
		return;
	/* Every entry is reported once: this one lost its name. */
	report_link(x, &x->links[s->index], PFX_ENTRY_SKIPPED, "replaced", 0);
	drop_link(x, s->index);
	s->index = SIZE_MAX;
}

/* see extract.h */
void
xtr_relink_all(struct xtr *x, const struct stat *old, const char *new_rel,
    const struct stat *new)
{
	struct stat st;
	size_t i;
	int fd;

	fd = pfx_root_open_read(&x->root, new_rel);
	if (fd < 0)
		return;
	if (fstat(fd, &st) == 0 && st.st_dev == new->st_dev &&
	    st.st_ino == new->st_ino) {
		for (i = 0; i < x->files.cap; i++) {
			struct xtr_slot *s = &x->files.slots[i];

			if (s->key == NULL || !s->has_id ||
			    s->dev != old->st_dev || s->ino != old->st_ino)
				continue;
			if (pfx_root_link(&x->root, fd, s->key,
			    PFX_ROOT_REPLACE) == 0) {
				s->dev = new->st_dev;
				s->ino = new->st_ino;
			}
		}
	}
	(void)close(fd);
}

/* see extract.h */
void
xtr_make_hardlink(struct xtr *x, struct archive_entry *ae,
    struct pfx_entry *e, const char *rel, const char *target_rel)
{
	const struct xtr_slot *s = xtr_table_find(&x->files, target_rel);
	struct stat st;
	unsigned int flags;
	int fd, r;

	if (rel[0] == '\0') {
		e->decision = PFX_DENY;
		xtr_finish_entry(x, e, PFX_ENTRY_REFUSED, "is_a_directory", 0);
		return;
	}
	if (s == NULL || !s->has_id) {
		e->decision = PFX_DENY;
		xtr_finish_entry(x, e, PFX_ENTRY_REFUSED, "hardlink_target", 0);
		return;
	}
	fd = pfx_root_open_read(&x->root, target_rel);
	/* A later entry made a directory where the file was: not ours. */
	if (fd == -EISDIR) {
		e->decision = PFX_DENY;
		xtr_finish_entry(x, e, PFX_ENTRY_REFUSED, "hardlink_target", 0);
		return;
	}
	if (fd < 0) {
		xtr_finish_error(x, e, fd);
		return;
	}
	/* SECURITY: the very inode we made, not whatever has that name now. */
	if (fstat(fd, &st) == -1 || st.st_dev != s->dev ||
	    st.st_ino != s->ino) {
		(void)close(fd);
		e->decision = PFX_DENY;
		xtr_finish_entry(x, e, PFX_ENTRY_REFUSED, "hardlink_target", 0);
		return;
	}
	/*
	 * SECURITY: the payload of a hard-link entry never goes into its
	 * target.  Only when the target is an empty file of this run and
	 * the entry has data is it a cpio-style link (cpio stores a file's
	 * data on its last link): the data becomes a new file at REL, and
	 * the target's names are linked to it.
	 */
	if (e->size > 0 && st.st_size == 0) {
		(void)close(fd);
		xtr_write_file(x, ae, e, rel, &st);
		return;
	}
	r = xtr_make_parents(x, rel);
	flags = x->opt->existing == PFX_EXISTING_REPLACE ? PFX_ROOT_REPLACE :
	    PFX_ROOT_NOREPLACE;
	if (r == 0)
		r = pfx_root_link(&x->root, fd, rel, flags);
	(void)close(fd);
	if (r == -EEXIST && x->opt->existing != PFX_EXISTING_REPLACE) {
		xtr_finish_existing(x, e);
		return;
	}
	if (r < 0) {
		xtr_finish_error(x, e, r);
		return;
	}
	xtr_note_file(x, rel, &st);
	xtr_forget_symlink(x, rel);
	xtr_finish_entry(x, e, PFX_ENTRY_EXTRACTED, "none", 0);
}

/* see extract.h */
void
xtr_queue_symlink(struct xtr *x, struct archive_entry *ae,
    struct pfx_entry *e, const char *rel)
{
	struct xtr_symlink *l, *grown;
	struct xtr_slot *s;
	size_t cap;

	if (x->opt->symlinks != PFX_SYMLINKS_CONTAIN) {
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
	l = &x->links[x->nlinks];
	l->path = strdup(rel);
	l->target = strdup(e->link_target);
	l->name = strdup(e->name);
	s = xtr_table_add(&x->pending, rel);
	if (l->path == NULL || l->target == NULL || l->name == NULL ||
	    s == NULL) {
		drop_link(x, x->nlinks);
		goto nomem;
	}
	xtr_owner_ids(x, ae, &l->uid, &l->gid);
	l->mtime.tv_sec = archive_entry_mtime(ae);
	l->mtime.tv_nsec = archive_entry_mtime_nsec(ae);
	if ((x->opt->flags & PFX_OPT_NO_MTIME) != 0)
		l->mtime.tv_nsec = UTIME_OMIT;
	s->index = x->nlinks++;
	return;
nomem:
	xtr_finish_entry(x, e, PFX_ENTRY_FAILED, "io_error", ENOMEM);
	xtr_fail(x, ENOMEM, "%s: %s", e->name, strerror(ENOMEM));
}

struct lookup_ctx {
	struct xtr *x;
	bool with_pending;
	bool symlink_on_disk;	/* the resolver met a symlink on a path */
};

/* linkcheck's question: is REL a symlink, queued or on disk? */
static int
lookup_link(void *arg, const char *rel, char *buf, size_t cap)
{
	struct lookup_ctx *c = arg;
	const struct xtr_slot *s;
	size_t n;
	int r;

	if (c->with_pending) {
		s = xtr_table_find(&c->x->pending, rel);
		if (s != NULL && s->index != SIZE_MAX) {
			n = strlen(c->x->links[s->index].target);
			if (n >= cap)
				return -ENAMETOOLONG;
			memcpy(buf, c->x->links[s->index].target, n + 1);
			return 1;
		}
	}
	if (rel[0] == '\0')
		return 0;
	r = pfx_root_readlink(&c->x->root, rel, buf, cap);
	if (r >= 0)
		return 1;
	if (r == -EINVAL || r == -ENOENT || r == -ENOTDIR)
		return 0;
	if (r == -ELOOP)
		c->symlink_on_disk = true;
	return r;
}

/* Is queued link L contained?  Return: NULL if so, else a reason. */
static const char *
judge_link(struct xtr *x, const struct xtr_symlink *l, bool with_pending)
{
	struct lookup_ctx c = { x, with_pending, false };
	struct xtr_link_lookup lk = { lookup_link, &c };
	int r;

	r = xtr_link_contained(l->path, l->target, &lk, NULL, 0);
	if (r == 1)
		return NULL;
	/* A symlink that was in dest before: never followed, as for files. */
	if (c.symlink_on_disk)
		return "symlink_in_path";
	if (r == -ELOOP)
		return "symlink_loop";
	return "symlink_escapes";
}

/*
 * Make link L, replacing an existing non-directory if the policy says so.
 * Return: 0, or -errno.
 */
static int
make_link(struct xtr *x, const struct xtr_symlink *l)
{
	int r;

	r = xtr_make_parents(x, l->path);
	if (r < 0)
		return r;
	return pfx_root_symlink_flags(&x->root, l->target, l->path,
	    x->opt->existing == PFX_EXISTING_REPLACE ? PFX_ROOT_REPLACE :
	    PFX_ROOT_NOREPLACE);
}

/* see extract.h */
void
xtr_finish_symlinks(struct xtr *x)
{
	const char **outcome;
	bool io, removed;
	size_t i;
	int r;

	if (x->nlinks == 0)
		return;
	outcome = calloc(x->nlinks, sizeof(*outcome));
	if (outcome == NULL) {
		xtr_fail(x, ENOMEM, "symbolic links not made: %s",
		    strerror(ENOMEM));
		return;
	}
	/* First pass: judge over the final tree, make the contained ones. */
	for (i = 0; i < x->nlinks; i++) {
		if (x->links[i].path == NULL)
			continue;
		if (x->fatal) {
			outcome[i] = "stopped";
			continue;
		}
		outcome[i] = judge_link(x, &x->links[i], true);
		if (outcome[i] != NULL)
			continue;
		r = make_link(x, &x->links[i]);
		/* The link's own owner and time are best effort: the link is
		 * made and contained whatever happens to them. */
		if (r == 0)
			(void)link_meta(x, &x->links[i]);
		if (r == -EEXIST && x->opt->existing == PFX_EXISTING_SKIP)
			outcome[i] = "skipped_existing";
		else if (r < 0)
			outcome[i] = xtr_errno_reason(-r, &io);
	}
	/*
	 * Then what is on disk is final: check each link made against it
	 * alone.  Removing one can change where another leads, so repeat
	 * until a pass removes nothing; each pass removes one at least or
	 * ends, so there are at most nlinks + 1 passes.
	 */
	do {
		removed = false;
		for (i = 0; i < x->nlinks; i++) {
			if (x->links[i].path == NULL || outcome[i] != NULL)
				continue;
			outcome[i] = judge_link(x, &x->links[i], false);
			if (outcome[i] != NULL) {
				(void)pfx_root_unlink(&x->root,
				    x->links[i].path);
				removed = true;
			}
		}
	} while (removed);
	for (i = 0; i < x->nlinks; i++) {
		if (x->links[i].path == NULL)
			continue;
		if (outcome[i] == NULL)
			report_link(x, &x->links[i], PFX_ENTRY_EXTRACTED, "none",
			    0);
		else if (strcmp(outcome[i], "skipped_existing") == 0 ||
		    strcmp(outcome[i], "stopped") == 0)
			report_link(x, &x->links[i], PFX_ENTRY_SKIPPED,
			    outcome[i], 0);
		else
			report_link(x, &x->links[i], PFX_ENTRY_REFUSED,
			    outcome[i], 0);
	}
	free(outcome);
}
