/*
 * links.h -- the files this run made, and symbolic links (links.c).
 */
#ifndef XTR_LINKS_H
#define XTR_LINKS_H

#include "extract.h"

/* Remember the regular file at REL, with identity ST, as made this run. */
void xtr_note_file(struct xtr *x, const char *rel, const struct stat *st);

/* Forget any pending symlink at REL: a later entry took the name. */
void xtr_forget_symlink(struct xtr *x, const char *rel);

/*
 * --symlinks=contain: may the symlink at REL, which an entry is about to
 * replace, go?  Not if a link already in the destination that leads
 * inside now would lead out, or loop, once REL is not a symlink.  REL
 * may also be a directory about to be removed or a name about to be
 * purged: then every link beneath it is judged gone with it.  Judged
 * over the disk as it is; the links this run queued are judged with the
 * old ones at the end (xtr_finish_symlinks).  The links in the
 * destination are listed once, at the first call, and kept until
 * xtr_free_old_links().  Thread-safe (X->old_mu).
 * Return: 0, XTR_REDIRECTS, or -errno (listing failed).
 */
int xtr_symlink_removable(struct xtr *x, const char *rel);

/*
 * With links allowed: may what is at REL (a symlink if IS_LINK) move
 * to BAK, its backup's name in the same directory, over what BAK holds?
 * Judged as xtr_symlink_removable() judges: REL's link going, BAK's link
 * replaced, and a link appearing at BAK that links already in the
 * destination would then read.  Thread-safe (X->old_mu).
 * Return: 0, XTR_REDIRECTS, or -errno.
 */
int xtr_backup_removable(struct xtr *x, const char *rel, const char *bak,
    bool is_link);

/* Free what xtr_symlink_removable() listed. */
void xtr_free_old_links(struct xtr *x);

/*
 * Point every name this run gave the inode OLD at the new file NEW_REL
 * (identity NEW), by linking over them: what cpio's "data on the last
 * link" means, done without writing into the old inode.  Only a name
 * that still holds OLD, looked at right before it is replaced, is
 * relinked: one a later entry took (a symlink, a directory, a file of
 * its own) keeps what that entry made, as the last entry of a name wins.
 * OLD_NAME is one name of OLD (the link's target): when OLD has no other
 * (st_nlink 1), it alone is relinked, found in the table by its name;
 * else the table is searched for OLD's names, and left once all its
 * st_nlink are found (hardlink.c bounds how often).
 */
void xtr_relink_all(struct xtr *x, const struct stat *old,
    const char *old_name, const char *new_rel, const struct stat *new);

/* Refuse, or queue for the end, the symlink entry ENTRY at REL. */
void xtr_queue_symlink(struct xtr *x, struct pfx_entry *entry,
    const char *rel);

/* Make the queued symlinks that stay inside.  Reports each. */
void xtr_finish_symlinks(struct xtr *x);

/* Free the queued symlinks, giving their memory back. */
void xtr_free_symlinks(struct xtr *x);

/*
 * For tests: the resolution steps the last xtr_finish_symlinks() on this
 * thread spent.
 */
uint64_t xtr_link_steps_last(void);

/*
 * For tests: the listed links judged, in all, by replacements of a
 * symlink (xtr_symlink_removable) in this process.
 */
uint64_t xtr_link_removal_judged(void);

#endif /* XTR_LINKS_H */
