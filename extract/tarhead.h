/*
 * tarhead.h -- a raw tar header's fields, for label.c and volumes.c
 * (tarhead.c).
 */
#ifndef XTR_TARHEAD_H
#define XTR_TARHEAD_H

#include "extract.h"

#define XTR_TAR_BLOCK 512u

/*
 * The numeric header field F of W bytes: octal (spaces around it, a NUL
 * or space after), or GNU's base-256 when its first byte has 0x80 set
 * (positive only).  Return: 0 with *OUT, or -1 (not a number, too big).
 */
int xtr_tar_number(const unsigned char *f, size_t w, uint64_t *out);

/* Does the block B (XTR_TAR_BLOCK bytes) check as a tar header (its
 * checksum, summed unsigned, or signed as some old tars summed)? */
bool xtr_tar_header_ok(const unsigned char *b);

#endif /* XTR_TARHEAD_H */
