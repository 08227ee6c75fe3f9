/*
 * label.h -- GNU tar's volume label (label.c).
 */
#ifndef XTR_LABEL_H
#define XTR_LABEL_H

#include "extract.h"

/* A volume label as read from its header. */
struct xtr_label {
	char name[XTR_HEAD_MAX];	/* NUL-free, terminated */
	char uname[33], gname[33];
	int64_t mode, uid, gid, size, mtime;
	bool pax;			/* from a pax global header */
};

/*
 * Read the label from the first LEN bytes B of an archive: a 'V' header
 * or a pax global header ('g') with a GNU.volume.label record, either
 * with a good checksum.  Pure.  Return: 1 with *L set, else 0.
 */
int xtr_label_parse(const unsigned char *b, size_t len, struct xtr_label *l);

/*
 * Once, when the first entry (or the end) was read: tell hooks.label the
 * archive's label, and check opt->volume_label (-V); a mismatch fails X.
 */
void xtr_label_first(struct xtr *x);

#endif /* XTR_LABEL_H */
