/*
 * placed.h -- a plain archive file read into buffers its caller places
 * (placed.c).
 *
 * The decoder process (child.c) reads a plain tar into the ring of memory
 * it shares with the parent, so that the data libarchive hands back, which
 * lies in the block read, goes to the parent with no copy at all.
 */
#ifndef XTR_PLACED_H
#define XTR_PLACED_H

#include <stdbool.h>
#include <stddef.h>

struct archive;
struct xtr_head;
struct xtr_stop;

/* Where each read goes. */
struct xtr_read_place {
	/*
	 * A buffer for the next read, of *CAP bytes (at most the CAP
	 * given, XTR_READ_BLOCK), or NULL for the reader's own.  The last
	 * one given is libarchive's until the next call: only then may
	 * the caller use it again.
	 */
	void *(*get)(void *ctx, size_t *cap);
	/* N bytes were read into the buffer GET gave last. */
	void (*got)(void *ctx, size_t n);
	void *ctx;
};

/*
 * Open A on FD, a regular file or a block device (closed with the reader
 * when OWN_FD), as archive_read_open_fd() does: blocks of XTR_READ_BLOCK,
 * skips and seeks with lseek(2); each read into PLACE's buffer when it
 * gives one (PLACE may be NULL), and counted in TAP (or NULL) against
 * one entry's headers' limit (decode.h, xtr_header_take()).  Each read
 * fails once STOP (or NULL) says so.
 * Return: libarchive's status.
 */
int xtr_placed_open(struct archive *a, int fd, bool own_fd,
    const struct xtr_read_place *place, struct xtr_head *tap,
    const struct xtr_stop *stop);

#endif /* XTR_PLACED_H */
