/*
 * hardlink.c -- a hard-link entry: only to a regular file this run
 * extracted, and to that very inode -- the target is opened beneath the
 * root and its identity compared with the one recorded when we made it
 * -- so a link can never reach a file that existed before the run, or
 * one outside.  A cpio-style link, which carries the data, becomes a new
 * file (file.c), to which the target's names are linked.  Above the
 * regular files and the symlink queue (links.c), which it calls.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>

#include "extract.h"
#include "fail.h"
#include "fdbudget.h"
#include "file.h"
#include "hardlink.h"
#include "journal.h"
#include "links.h"
#include "parents.h"
#include "report.h"
#include "table.h"

/*
 * The slots of the files' table that cpio-style links may look at in all,
 * per entry read, and before any count.  A link to a target of one name
 * finds it by name; one whose target has other names (hard links made
 * before) looks through the table for them (links.c xtr_relink_all()):
 * an archive of N empty files, each given a hard link and then a link
 * with data, would cost N times the table, N^2.  A real one has a few
 * such groups; 1,024 slots an entry, about 10 us, at most doubles a run.
 */
#define RELINK_SLOTS_PER_ENTRY 1024
#define RELINK_SLOTS_FREE ((uint64_t)1 << 22)

/*
 * SECURITY: may one more cpio-style link (E, at REL) look at every slot
 * of the table?  If not, the run is stopped with a limit, E reported, and
 * false returned: what that costs stays linear in the archive.
 */
static bool
relink_affordable(struct xtr *x, struct pfx_entry *e)
{
	char nb[XTR_SHORT_MAX];
	uint64_t allowed = RELINK_SLOTS_FREE +
	    RELINK_SLOTS_PER_ENTRY * x->res->stats.entries;

	x->relink_slots += x->files.cap;
	if (x->relink_slots <= allowed)
		return true;
	xtr_finish_entry(x, e, PFX_ENTRY_FAILED, "limit", EFBIG);
	xtr_fail(x, EFBIG, "%s: limit: hard links that carry data (cpio's "
	    "way) have looked through the %zu names of the files made %"
	    PRIu64 " times; more than %u per entry of the archive would be "
	    "quadratic", xtr_short_name(e->name, nb), x->files.used,
	    x->relink_slots / (x->files.cap != 0 ? x->files.cap : 1),
	    RELINK_SLOTS_PER_ENTRY);
	return false;
}

/*
 * --backup: move what REL holds aside before the link is put over it, as
 * GNU tar does for every entry but a directory, and as file.c does for a
 * file (make_way()); the backup's name goes in X->backup.  A symlink
 * there is judged first (--symlinks=contain, root), as its replacement
 * would be: moved aside, it is no longer where links through it lead;
 * and so is what the move puts at the backup's name.
 * With a journal no name may change before the end: an entry that would
 * need a backup fails (-ENOTSUP), as a file does.
 * Return: 0, XTR_REDIRECTS, or -errno.
 */
static int
backup_link(struct xtr *x, const char *rel)
{
	struct stat st;
	int r;

	x->backup[0] = '\0';
	if (!xtr_replaces(x->opt) || xtr_backup_how(x->opt) == 0)
		return 0;
	r = pfx_root_existing(&x->root, rel, &st);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	if (S_ISDIR(st.st_mode))
		return 0;	/* never backed up; the link fails (EISDIR) */
	if (x->journal != NULL)
		return xtr_journal_no_backup(x, rel);
	/* The backup's name once: the one judged is the one moved to. */
	r = pfx_root_backup_name(&x->root, rel, xtr_backup_how(x->opt),
	    x->opt->backup_suffix, x->backup, sizeof(x->backup));
	if (r < 0 || x->backup[0] == '\0')
		return r;
	/* SECURITY: judged as file.c judges a file's backup
	 * (way_removable()): the name's link going, and what appears at
	 * the backup's name. */
	if (x->opt->symlinks != PFX_SYMLINKS_REFUSE)
		r = xtr_backup_judge(x, rel, x->backup, S_ISLNK(st.st_mode));
	if (r == 0)
		r = pfx_root_backup_as(&x->root, rel, x->backup);
	if (r != 0)
		x->backup[0] = '\0';	/* none made */
	return r;
}

/* see hardlink.h */
void
xtr_make_hardlink(struct xtr *x, const struct xtr_meta *m,
    struct pfx_entry *e, const char *rel, const char *target_rel)
{
	const struct xtr_slot *s;
	struct stat st;
	unsigned int flags, tries = 0;
	int fd, r;

	xtr_table_settle(&x->files);
	s = xtr_table_find(&x->files, target_rel);

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
	/* Short of descriptors: those kept for speed go, and again. */
	fd = xtr_open_made(x, target_rel);
	while (xtr_fd_relieve(x, fd, &tries))
		fd = xtr_open_made(x, target_rel);
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
		if (st.st_nlink <= 1 || relink_affordable(x, e))
			xtr_write_file(x, m, e, rel, &st, target_rel);
		return;
	}
	r = xtr_make_parents(x, rel);
	if (r == 0)
		r = backup_link(x, rel);
	flags = xtr_replaces(x->opt) ? PFX_ROOT_REPLACE :
	    PFX_ROOT_NOREPLACE;
	/* SECURITY: a symlink at the name may only go once judged. */
	if (flags == PFX_ROOT_REPLACE &&
	    x->opt->symlinks != PFX_SYMLINKS_REFUSE)
		flags = PFX_ROOT_REPLACE_FILE;
	if (r == 0) {
		r = xtr_link_file(x, fd, rel, flags);
		/* Its parent could not be opened: nothing was linked. */
		tries = 0;
		while (xtr_fd_relieve(x, r, &tries))
			r = xtr_link_file(x, fd, rel, flags);
	}
	if (r == PFX_ROOT_SYMLINK_HELD) {
		r = xtr_symlink_removable(x, rel);
		if (r == 0)
			r = xtr_link_file(x, fd, rel, PFX_ROOT_REPLACE);
	}
	(void)close(fd);
	if (r == -EEXIST && !xtr_replaces(x->opt)) {
		xtr_finish_existing(x, e);
		return;
	}
	if (r == XTR_REDIRECTS) {
		xtr_finish_redirects(x, e);
		return;
	}
	if (r < 0) {
		xtr_finish_error(x, e, r);
		return;
	}
	xtr_note_file(x, rel, &st);
	xtr_forget_symlink(x, rel);
	if (x->backup[0] != '\0')
		e->backup = x->backup;
	xtr_finish_entry(x, e, PFX_ENTRY_EXTRACTED, "none", 0);
}
