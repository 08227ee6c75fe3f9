/*
 * kept.h -- the directories kept open, one a depth, for the names made in
 * them next (kept.c).
 */
#ifndef XTR_KEPT_H
#define XTR_KEPT_H

#include "extract.h"

/* Empty X's kept directories: none kept yet, at most SLOTS depths kept. */
void xtr_parents_init(struct xtr *x, unsigned int slots);

/*
 * The cache for REL's parent: the kept directory of its depth (the
 * deepest for deeper names), made on first use; NULL when none may be
 * kept or memory is short, which costs a lookup, nothing else.
 */
struct pfx_parent_cache *xtr_parent_cache(struct xtr *x, const char *rel);

/*
 * Keep FD (owned), open on directory DIR, for the names made in it next;
 * or close it, where none may be kept.
 */
void xtr_keep_dir(struct xtr *x, const char *dir, int fd);

/*
 * Let go of every kept directory: whenever the tree may change other than
 * by files and directories made through them.
 */
void xtr_parents_drop(struct xtr *x);

/* xtr_parents_drop(), and free what held them. */
void xtr_parents_free(struct xtr *x);

#endif /* XTR_KEPT_H */
