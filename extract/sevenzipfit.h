/*
 * sevenzipfit.h -- whether what libarchive's 7z reader would hold for a
 * 7z input's header fits in the memory budget, looked at before
 * libarchive reads it (sevenzipfit.c).
 */
#ifndef XTR_SEVENZIPFIT_H
#define XTR_SEVENZIPFIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Does the input (the LEN bytes at BUF, or else the regular file FD from
 * offset BASE) start as libarchive's 7z bidder looks for, raw: a 7z's
 * magic, or a PE or ELF program (a self-extractor)?  Only such an input
 * is read with libarchive's 7z reader: any other may be one of
 * libarchive's filters (bzip2, lz4, ...), behind which a 7z's header is
 * not looked at.  And does what that reader allocates for its header fit
 * in BUDGET bytes (0: no budget)?  A header that cannot be read fits:
 * libarchive says what it makes of it.
 * Return: 0 for no such input, 1 for one that fits, or -EFBIG with what
 * to say in MSG (CAP bytes).
 */
int xtr_7z_fits(const void *buf, size_t len, int fd, off_t base,
    uint64_t budget, char *msg, size_t cap);

#endif
