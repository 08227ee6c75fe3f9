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
 * If R is -EMFILE or -ENFILE, give back every descriptor held only for
 * speed (the worker's queue is emptied, the kept directories let go) and
 * return true: the caller tries once more.  Else false.
 */
bool xtr_fd_relieve(struct xtr *x, int r);

#endif /* XTR_FDBUDGET_H */
