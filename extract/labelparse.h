/*
 * labelparse.h -- a GNU tar volume label parsed from the archive's first
 * bytes (labelparse.c).
 */
#ifndef XTR_LABELPARSE_H
#define XTR_LABELPARSE_H

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
 * Why OPT's run cannot go on when the archive's first bytes are unseen
 * (struct xtr_head): it must read the label (--test-label, -V).  Return:
 * the message, or NULL when the label is not needed.
 */
const char *xtr_label_unseen(const struct pfx_options *opt);

#endif /* XTR_LABELPARSE_H */
