/*
 * xform.h -- tar's name transforms for pfextract(1): GNU tar's
 * --transform (--xform) expressions, bsdtar's -s rules and GNU tar's
 * --one-top-level.  Only the CLI uses this; the library sees the result
 * through pfx_hooks.transform and judges it like any archive name.
 */
#ifndef XTR_XFORM_H
#define XTR_XFORM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "pfextract.h"

struct xtr_xforms;

/*
 * Add the GNU tar expression EXPR (one "s/regex/repl/flags", or several
 * separated by ';', each maybe a "flags=SCOPE" for the rules after it;
 * "" is none) to *XS (allocated on first use).  With BSD, EXPR is one
 * bsdtar rule ("/old/new/flags").  What GNU tar 1.34 refuses is refused,
 * a replacement's \N past the regex's groups included.  On error writes
 * a message to ERR (CAP bytes).  Return: 0, or -1.
 */
int xtr_xform_add(struct xtr_xforms **xs, const char *expr, bool bsd,
    char *err, size_t cap);

/* Does S parse as one bsdtar -s rule (used to tell -s RULE from GNU's -s)? */
bool xtr_xform_is_bsd_rule(const char *s);

/*
 * Prefix every entry name not already under DIR with "DIR/" (copied), as
 * GNU tar does once it has taken STRIP components off (--strip-components,
 * which the library takes off after the transforms).
 */
int xtr_xform_top_dir(struct xtr_xforms **xs, const char *dir,
    unsigned int strip);

/*
 * Told FROM and TO, the name before and after a rule flagged 'p'
 * (bsdtar's "FROM >> TO"): both are the archive's, to be quoted.
 */
typedef void xtr_xform_say_fn(void *arg, const char *from, const char *to);

/*
 * Apply *XS to NAME, of KIND, into OUT (CAP bytes).  Rules flagged 'p'
 * (bsdtar) call SAY(ARG, NAME, NEW) when SAY is not NULL.  --one-top-level
 * leaves an absolute name, or one whose ".." climbs above it, as it is.
 * A NAME of PFX_PATH_MAX bytes or more is not given to the rules (their
 * cost grows faster than its length): it "does not fit".
 * Return: 0 NAME unchanged, 1 OUT holds the new name, 2 it does not fit.
 */
int xtr_xform_apply(const struct xtr_xforms *xs, enum pfx_name_kind kind,
    const char *name, char *out, size_t cap, xtr_xform_say_fn *say,
    void *arg);

void xtr_xforms_free(struct xtr_xforms *xs);

#endif /* XTR_XFORM_H */
