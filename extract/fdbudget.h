/*
 * fdbudget.h -- the descriptors a run needs, and those held for speed
 * (fdbudget.c).
 */
#ifndef XTR_FDBUDGET_H
#define XTR_FDBUDGET_H

#include "extract.h"

/*
 * The descriptors a run cannot do without: 0-2, the root, the input, the
 * decoder process's socket and pidfd (or the decoder thread's pipe), and
 * what one entry needs at once: a walk's two and the check's climb, a
 * file and its parent.  A run under a lower RLIMIT_NOFILE stops at once,
 * saying so (cli/pfextract.c, the CLI; the library fails with EMFILE as it meets
 * it).
 */
#define XTR_FD_MIN 10

/* ... one more without a decoder process (the input is decoded here),
 * and with PFX_OPT_ATOMIC, the staging directories held besides. */
#define XTR_FD_INPROC 1
#define XTR_FD_ATOMIC 4

/* Kept free beyond XTR_FD_MIN before any is kept for speed. */
#define XTR_FD_SPARE 4

/* A limit this high is as good as none. */
#define XTR_FD_PLENTY 4096

/* RLIMIT_NOFILE's soft limit, at most XTR_FD_PLENTY. */
int xtr_fd_limit(void);

/*
 * How many directories may be kept open, one a depth (parents.c): up to
 * XTR_PARENT_DEPTHS, and no more than half of what the run does not need.
 */
unsigned int xtr_fd_parent_slots(void);

/*
 * How many files the worker's queue may hold (at most MOST), so that
 * their descriptors fit beside the ones the run needs and the kept
 * directories.
 */
size_t xtr_fd_queue_slots(size_t most);

/*
 * Can a run with OPT, and VOLUMES later volumes held open (tar -M), have
 * the descriptors it needs?  Return: 0, or -1 with RES filled as a failed
 * run (PFX_FATAL, EMFILE, the numbers said).
 */
int xtr_fd_check(const struct pfx_options *opt, size_t volumes,
    struct pfx_result *res);

/*
 * How long a step short of descriptors waits for them, in all, before
 * it fails with EMFILE or ENFILE: another thread of a library caller
 * may hold them for a moment.
 */
#define XTR_FD_WAIT_MS 1000

/*
 * On the reading thread, a step that needs no more than the descriptors
 * a run cannot do without (a file and its parent, a walk) met R, with
 * nothing done.  If R is -EMFILE or -ENFILE: the first time (*TRIES 0),
 * give back every descriptor held only for speed (the worker's queue is
 * emptied, the kept directories let go) and keep half as many from then
 * on, so that the caller's other calls have room; after that, wait a
 * little, longer each time, while other threads hold what is left.
 * Return: true (*TRIES counted) while the caller should try again;
 * false for any other R, or once XTR_FD_WAIT_MS went by.
 */
bool xtr_fd_relieve(struct xtr *x, int r, unsigned int *tries);

/*
 * On either thread, a step met R with nothing done.  If R is -EMFILE or
 * -ENFILE, wait a little, longer each time, and return true (*TRIES
 * counted): the caller tries again.  False for any other R, or once
 * XTR_FD_WAIT_MS went by.  For the worker's steps (a commit's backup or
 * removal), which cannot give back what the reading thread keeps; the
 * caller's other threads and calls give back theirs.
 */
bool xtr_fd_nap(int r, unsigned int *tries);

#endif /* XTR_FDBUDGET_H */
