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
 * Judge NAME, a path as an archive stores it (a GNU rename's), as an
 * entry's name is judged: --strip-components, then the decision core.
 * Return: NULL with the relative path at V->path + V->rel_off, or the
 * reason code.
 */
struct pfx_verdict;
const char *xtr_judge_rel(struct xtr *x, const char *name,
    struct pfx_verdict *v);

#endif /* XTR_JUDGE_H */
