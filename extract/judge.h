/*
 * judge.h -- an archive name judged: --strip-components, then the core
 * (judge.c).
 */
#ifndef XTR_JUDGE_H
#define XTR_JUDGE_H

#include "extract.h"

/*
 * Remove the first N components of NAME into OUT (CAP bytes), as tar's
 * --strip-components: empty components do not count, "." does.
 * Return: 0, or -1 if nothing is left or OUT is too small.
 */
int xtr_strip_components(const char *name, unsigned int n, char *out,
    size_t cap);

/*
 * Judge the archive name NAME: absolute names are refused outright, the
 * rest go to the decision core beneath a root of "/", which gives back
 * the normalised relative path in *V.  Return: NULL if allowed, else the
 * reason code, with E->decision set.
 */
struct pfx_verdict;
const char *xtr_judge_name(struct xtr *x, struct pfx_entry *e,
    const char *name, struct pfx_verdict *v);

/*
 * Is the relative path REL ("" for DEST), and EXTRA components more,
 * deeper than --max-depth (limits.max_depth; 0: no limit)?
 */
bool xtr_past_max_depth(const struct xtr *x, const char *rel,
    unsigned int extra);

/* xtr_transform_name()'s answer for a new name that does not fit. */
extern const char xtr_too_long[];

/*
 * Ask the caller's transform hook (set) about NAME (of KIND, for the
 * entry E) into BUF (CAP bytes).  Return: the name to go on with (NAME
 * or BUF, "" to skip quietly), xtr_too_long, or NULL with the run failed.
 */
const char *xtr_transform_name(struct xtr *x, const struct pfx_entry *e,
    enum pfx_name_kind kind, const char *name, char *buf, size_t cap);

/*
 * Judge NAME, a path as an archive stores it (a rename of the GNU dump
 * directory E), as an entry's name is judged: the caller's transform
 * (--transform, --one-top-level) as for E's own name, --strip-components,
 * then the decision core.  Return: NULL with the relative path at
 * V->path + V->rel_off, or the reason code (a transform that stops the
 * run has failed it).
 */
struct pfx_verdict;
const char *xtr_judge_rel(struct xtr *x, const struct pfx_entry *e,
    const char *name, struct pfx_verdict *v);

#endif /* XTR_JUDGE_H */
