/*
 * readfd.c -- one read(2) of the input that the caller's cancellation,
 * or the call's deadline, may cut short: below both the reader
 * (reader.c) and the joiner of volumes (volumes.c), which read through
 * it.
 */
#include <errno.h>
#include <poll.h>
#include <unistd.h>

#include "readfd.h"

/*
 * Wait until FD can be read, or STOP's deadline passes: a pipe whose
 * writer stalled would hold read(2) past it, and no signal comes to
 * interrupt it.  Looked at every XTR_DEC_TICK_MS, for the cancel flag
 * too.  Return: 0, or -ECANCELED or -ETIMEDOUT.
 */
static int
wait_readable(int fd, const struct xtr_stop *stop)
{
	struct pollfd p;
	int why, n;

	for (;;) {
		why = xtr_stop_why(stop);
		if (why != 0)
			return -why;
		p.fd = fd;
		p.events = POLLIN;
		p.revents = 0;
		n = poll(&p, 1, xtr_stop_ms(stop, XTR_DEC_TICK_MS));
		/* A poll(2) that fails leaves the error to read(2). */
		if (n > 0 || (n < 0 && errno != EINTR && errno != EAGAIN))
			return 0;
	}
}

/* see readfd.h */
ssize_t
xtr_read_cancellable(int fd, void *buf, size_t cap,
    const struct xtr_stop *stop)
{
	ssize_t n;
	int r;

	for (;;) {
		/* SECURITY: an input that never blocks (`cat /dev/zero`
		 * under -i) gives no read(2) for a signal to cut short: the
		 * flag and the deadline are looked at before each, and
		 * after a read a signal interrupted. */
		r = xtr_stop_why(stop);
		if (r != 0)
			return -r;
		/* Only a call with a deadline pays for the poll(2). */
		if (stop != NULL && stop->deadline.tv_sec != 0) {
			r = wait_readable(fd, stop);
			if (r < 0)
				return r;
		}
		n = read(fd, buf, cap);
		if (n >= 0)
			return n;
		if (errno != EINTR)
			return -errno;
	}
}
