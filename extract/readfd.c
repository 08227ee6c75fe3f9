/*
 * readfd.c -- one read(2) of the input that the caller's cancellation
 * may cut short: below both the reader (reader.c) and the joiner of
 * volumes (volumes.c), which read through it.
 */
#include <errno.h>
#include <unistd.h>

#include "readfd.h"

/* see readfd.h */
ssize_t
xtr_read_cancellable(int fd, void *buf, size_t cap,
    const volatile sig_atomic_t *cancel)
{
	ssize_t n;

	for (;;) {
		n = read(fd, buf, cap);
		if (n >= 0)
			return n;
		if (errno != EINTR)
			return -errno;
		if (cancel != NULL && *cancel != 0)
			return -ECANCELED;
	}
}
