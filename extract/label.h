/*
 * label.h -- GNU tar's volume label (label.c).
 */
#ifndef XTR_LABEL_H
#define XTR_LABEL_H

#include "extract.h"
#include "labelparse.h"

/*
 * Once, when the first entry (or the end) was read: tell hooks.label the
 * archive's label, and check opt->volume_label (-V); a mismatch fails X.
 */
void xtr_label_first(struct xtr *x);

/*
 * PFX_OPT_LABEL_ONLY, once the first header was read (READ_OK) or not:
 * tell hooks.label the label, check -V, and match the members against
 * it (stats.unmatched).  Return: false when there is no label and the
 * read failed (the read error is then the run's to report), else true.
 */
bool xtr_label_only(struct xtr *x, bool read_ok);

#endif /* XTR_LABEL_H */
