/*
 * journal.h -- --atomic over a populated destination (journal.c).
 */
#ifndef XTR_JOURNAL_H
#define XTR_JOURNAL_H

#include <stdbool.h>

#include "extract.h"

struct xtr_journal;

/* Make X keep every name beside its final one until the end.  0/-ENOMEM. */
int xtr_journal_start(struct xtr *x);

/* Release X's journal (what it lists stays where it is). */
void xtr_journal_free(struct xtr *x);

/*
 * pfx_root_commit() for X: with a journal, the file goes beside REL and
 * is listed.  Return: as pfx_root_commit().
 */
int xtr_journal_commit(struct xtr *x, struct pfx_pending *pend,
    const char *rel, unsigned int flags);

/* pfx_root_link() for X, likewise.  Return: as pfx_root_link(). */
int xtr_link_file(struct xtr *x, int fd, const char *rel, unsigned int flags);

/* Is REL listed by X's journal, waiting beside its final name? */
bool xtr_journal_lists(const struct xtr *x, const char *rel);

/*
 * --symlinks=root: the link REL, made at once at a new name, is no
 * longer queued (a later entry of the name took it over): remember it,
 * to remove it if the run fails.  Return: 0, or -ENOMEM (run failed).
 */
int xtr_journal_made_link(struct xtr *x, const char *rel);

/*
 * pfx_root_open_file() of a file this run made as REL, to know and link
 * it (the archive may have left its owner no right to read it): with a
 * journal, the very file listed for REL, at its temporary name, if any.
 */
int xtr_open_made(struct xtr *x, const char *rel);

/*
 * Before directory DIR (and its missing parents) is made: refuse one at
 * a name listed as a file (-ENOTDIR), and keep the mtime of the
 * directory that gets the first new entry.  Return: 0, or -errno.
 */
int xtr_journal_mkdir(struct xtr *x, const char *dir);

/*
 * Before a name is made at once in REL's directory (a link under
 * --symlinks=root): keep that directory's mtime, to give it back if the
 * run fails.  Return: 0, or -errno.
 */
int xtr_journal_touch_parent(struct xtr *x, const char *rel);

/*
 * REL exists, and the run asks for its backup or its tree's removal
 * before it is replaced, which a journal cannot take back: fail the run,
 * saying so.  Return: -ENOTSUP.
 */
int xtr_journal_no_backup(struct xtr *x, const char *rel);

/*
 * Once X's archive was read whole and the run did not fail (engine.c):
 * put every listed name in place.  Return: true if every name is in
 * place (the run may still have failed after: a file replaced not
 * removed, PFX_OPT_FSYNC), false if not (the run failed, every name put
 * taken back).
 */
bool xtr_journal_put(struct xtr *x);

/*
 * The end of X's run: if it failed before every name was in place,
 * undo it all (xtr_unmake_dirs() included), after its links are gone.
 */
void xtr_journal_end(struct xtr *x);

/*
 * A failed run, before its links go (xtr_finish_symlinks()): remove the
 * temporary names and the directories made, and give back the old
 * directories' mtimes, while every path still leads where they were
 * made (--symlinks=root makes links at once, and later entries may be
 * made through them).  xtr_journal_end() finishes the undoing.
 */
void xtr_journal_undo_early(struct xtr *x);

/*
 * A failed run removed its link REL: remove the directories the run made
 * that it left empty, upwards, and give the first old directory its
 * mtime back, while REL's path still leads there (links are removed
 * last made first).
 */
void xtr_journal_unmade_link(struct xtr *x, const char *rel);

/* dirs.c: remove every directory X made, deepest first, and forget them. */
void xtr_unmake_dirs(struct xtr *x);

#endif /* XTR_JOURNAL_H */
