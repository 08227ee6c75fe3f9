/*
 * meta.h -- an entry's metadata as the writers apply it (meta.c).
 */
#ifndef XTR_META_H
#define XTR_META_H

#include "extract.h"

/* E's access (M's) and modification times, for futimens(2). */
void xtr_entry_times(const struct pfx_entry *e, const struct xtr_meta *m,
    struct timespec ts[2]);

/*
 * The permission bits to give an entry with archive mode MODE, after the
 * safety rules of OPT (setuid/setgid/sticky and group/other write).
 */
mode_t xtr_safe_mode(const struct pfx_options *opt, mode_t mode);

/*
 * The permission bits to give entry E: xtr_safe_mode(), less a setuid
 * (setgid) bit whose owner (group) the run cannot give: one the archive
 * names by a number no id can hold.
 */
mode_t xtr_entry_mode(const struct xtr *x, const struct pfx_entry *e);

/*
 * Apply the ownership (PFX_OPT_SAME_OWNER, as root) of E and the xattrs
 * (PFX_OPT_XATTRS) of M to the file open as FD; an attribute the
 * filesystem will not store (too long, no room) is a warning unless
 * PFX_OPT_STRICT (apply_xattrs()).  Return: 0, or -errno.
 */
int xtr_apply_owner_xattrs(struct xtr *x, const struct pfx_entry *e,
    const struct xtr_meta *m, int fd);

/*
 * The owner E should get under PFX_OPT_SAME_OWNER (by name unless
 * PFX_OPT_NUMERIC_OWNER), or -1 and -1 when ownership is not restored.
 */
void xtr_owner_ids(const struct xtr *x, const struct pfx_entry *e,
    uid_t *uid, gid_t *gid);

#endif /* XTR_META_H */
