/*
 * file.h -- regular files: their data, their temporary, their commit
 * (file.c).
 */
#ifndef XTR_FILE_H
#define XTR_FILE_H

#include "extract.h"

/*
 * The first bytes of a file, held in memory to be written by the thread
 * that finishes it: contiguous from offset 0, LEN of CAP bytes used.
 */
struct xtr_stash {
	char *buf;
	size_t len, cap;
};

/*
 * A regular file whose data is written under a temporary name, with what
 * finishing it needs -- no archive, so that another thread may do it.
 */
struct xtr_tail {
	struct pfx_pending pend;	/* owned until finished */
	struct xtr_stash *stash;	/* borrowed, or NULL: data to write
					   first, when finishing */
	bool stream;			/* in: the data goes to the worker
					   as it comes (xtr_async_segment) */
	mode_t mode;			/* its final permission bits */
	bool set_times;
	bool fsync;
	struct timespec ts[2];		/* atime, mtime */
	unsigned int flags;		/* PFX_ROOT_REPLACE, _REPLACE_FILE
					   or _NOREPLACE */
	const char *rel;		/* borrowed: its name, for the check
					   of a symlink it replaces */
	struct stat st;			/* out: the new file's identity */
	int64_t mtime;			/* the entry's, for
					   PFX_EXISTING_KEEP_NEWER */
	char backup[NAME_MAX + 1];	/* out: --backup's new name (one
					   component) of the file that was
					   at its name, or "" */
};

/*
 * The pfx_pending_backup() HOW (PFX_PENDING_BACKUP_*) for OPT's --backup,
 * or 0 when there is none to make.
 */
int xtr_backup_how(const struct pfx_options *opt);

/*
 * With links allowed, before what REL holds (a symlink if IS_LINK) is
 * moved to BAK, its backup's name (one component, in REL's directory):
 * may it go there?  xtr_backup_removable() on BAK's path.
 * Return: 0, XTR_REDIRECTS, or -errno.
 */
int xtr_backup_judge(struct xtr *x, const char *rel, const char *bak,
    bool is_link);

/*
 * The first half of xtr_write_regular(): make the temporary file (and any
 * missing parent), write ENTRY's data (or keep it in T->stash, if not
 * NULL, as far as it fits) and owner to it, and fill *T.
 * Return: 0 (finish *T with xtr_finish_data()), -errno, or
 * XTR_READ_FAILED, XTR_LIMIT, XTR_CANCELLED or XTR_BAD_DATA; on failure
 * nothing is left.
 */
int xtr_write_data(struct xtr *x, const struct xtr_meta *m,
    struct pfx_entry *entry, const char *rel, struct xtr_tail *t);

/*
 * The second half: xtr_seal_data(), then xtr_commit().  Safe on any
 * thread, as xtr_commit().
 * Return: 0 with T->st filled, XTR_REDIRECTS, or -errno (the temporary
 * removed).
 */
int xtr_finish_data(struct xtr *x, struct xtr_tail *t);

/*
 * Commit the sealed file *T under its name beneath X's root.  Where the
 * name holds a symlink (PFX_ROOT_REPLACE_FILE), it is replaced only if
 * xtr_symlink_removable() says so.  Touches nothing but the root, *T and
 * X's old-link list (under its lock): safe on any thread.
 * Return: 0, XTR_REDIRECTS, or -errno; the temporary is removed but on 0.
 */
int xtr_commit(struct xtr *x, struct xtr_tail *t);

/*
 * All of xtr_finish_data() but the commit: the stashed data, mode,
 * times, --fsync, on the file that has no name yet.  Touches nothing but
 * *T: safe on any thread, and in any order with other files.
 * Return: 0 with T->st filled (commit T->pend next), or -errno (the
 * temporary removed).
 */
int xtr_seal_data(struct xtr_tail *t);

/*
 * The stashed part of xtr_seal_data(): write T's stash, if any, to its
 * file; AGAIN, from the start over what an earlier try left.  The
 * temporary is kept, failed or not, for a retry or xtr_seal_data().
 * Return: 0 or -errno.
 */
int xtr_write_stash(struct xtr_tail *t, bool again);

/*
 * Write the regular file ENTRY at REL from the archive's data, with its
 * metadata, under the existing-name policy, without reporting it.
 * Return: 0 with *ST the new file's identity, -errno, or XTR_READ_FAILED,
 * XTR_LIMIT or XTR_CANCELLED (the run is already failed).
 */
int xtr_write_regular(struct xtr *x, const struct xtr_meta *m,
    struct pfx_entry *entry, const char *rel, struct stat *st);

/* Report ENTRY after xtr_write_regular() returned R (not 0). */
void xtr_finish_write_error(struct xtr *x, struct pfx_entry *entry, int r);

/*
 * PFX_OPT_TO_FD: write a regular file's data to opt->out_fd, or report
 * any other entry as listed (file.c).
 */
void xtr_write_out(struct xtr *x, const struct xtr_meta *m,
    struct pfx_entry *e);

/*
 * Write the regular file ENTRY at REL from the archive's data, with its
 * metadata, under the existing-name policy.  With RELINK, every name this
 * run gave that inode (RELINK_NAME one of them) is then linked to the new
 * file.  Reports the entry.
 */
void xtr_write_file(struct xtr *x, const struct xtr_meta *m,
    struct pfx_entry *entry, const char *rel, const struct stat *relink,
    const char *relink_name);

#endif /* XTR_FILE_H */
