/*
 * readfd.h -- one read(2) that a cancellation may cut short (readfd.c).
 */
#ifndef XTR_READFD_H
#define XTR_READFD_H

#include "extract.h"

/*
 * One read(2) of FD into BUF (CAP bytes).  Return: the bytes read (0 at
 * the end), -ECANCELED when a signal cut the read short and STOP's flag
 * is set (any other interruption is retried), -ETIMEDOUT when STOP's
 * deadline passed before FD had a byte (STOP may be NULL: neither), or
 * -errno.
 */
ssize_t xtr_read_cancellable(int fd, void *buf, size_t cap,
    const struct xtr_stop *stop);

#endif /* XTR_READFD_H */
