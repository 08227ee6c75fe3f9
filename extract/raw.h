/*
 * raw.h -- the archive bytes read so far, whichever reads it (raw.c).
 */
#ifndef XTR_RAW_H
#define XTR_RAW_H

#include "extract.h"

/* The bytes of the archive read so far: by the decoder process, our
 * decoder thread, or libarchive's filters. */
int64_t xtr_source_raw(const struct xtr *x);

#endif /* XTR_RAW_H */
