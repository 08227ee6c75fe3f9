/*
 * names.h -- the stable strings of reasons, for the tests (names.c).
 */
#ifndef XTR_NAMES_H
#define XTR_NAMES_H

#include "extract.h"

/* The Ith reason code of the table pfx_reason_text() reads, or NULL past
 * its end: how a test holds libpfextract(3)'s list to it. */
const char *xtr_reason_at(size_t i);

/*
 * The size of struct pfx_options in each earlier release of this major
 * number: 0.1.0's ended before queued.  A caller built with one of them
 * is served as if every field added since were 0 (xtr_options_adopt()).
 */
#define XTR_OPTIONS_SIZE_0_1 offsetof(struct pfx_options, queued)

/*
 * Is SIZE that of an earlier release's struct pfx_options?  Then copy
 * the SIZE bytes of OPT into *OUT, the fields added since 0, and say so;
 * else leave *OUT alone.  Return: whether OPT was adopted.
 */
bool xtr_options_adopt(const struct pfx_options *opt, struct pfx_options *out);

#endif /* XTR_NAMES_H */
