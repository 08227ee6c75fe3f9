/*
 * names.h -- the stable strings of reasons, for the tests (names.c).
 */
#ifndef XTR_NAMES_H
#define XTR_NAMES_H

#include "extract.h"

/* The Ith reason code of the table pfx_reason_text() reads, or NULL past
 * its end: how a test holds libpfextract(3)'s list to it. */
const char *xtr_reason_at(size_t i);

#endif /* XTR_NAMES_H */
