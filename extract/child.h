/*
 * child.h -- the decoder process's whole life (child.c).
 */
#ifndef XTR_CHILD_H
#define XTR_CHILD_H

#include "extract.h"

/*
 * How long the child may wait for glibc's iconv lock as it starts: a
 * lock that another thread of the caller held at the fork is never
 * released, and that child is ended (SIGALRM) and forked again.
 */
#define XTR_CHILD_PROBE_MS 250

/*
 * The child's whole life (never returns): write a byte to READY and
 * close it once it holds no lock copied held from the caller (child.c),
 * keep FD (the socket to PARENT)
 * and a read-only descriptor of IN, confine, read the archive, send it
 * (wire.h; the data through RING, mapped shared before the fork), _exit.
 * DEC_FLAGS: XTR_DEC_* the parent chose for the decoders (XTR_DEC_INLINE
 * on one CPU), added to the reader's own flags; CPUS: the CPUs the
 * parent counted (plat_thread_cpus(), before any confinement), for the
 * zip pool and the xz threads.
 */
struct wire_ring;
void xtr_child_main(int fd, int ready, pid_t parent, struct wire_ring *ring,
    const struct pfx_input *in, const struct pfx_options *opt,
    unsigned int dec_flags, unsigned int cpus) __attribute__((noreturn));

#ifdef PFX_HOSTILE_TEST
/* The hostile-child test build (tests/hostile.c): what a decoder taken
 * over does right after it confined itself; FD is its socket. */
void xtr_hostile(int fd);
#endif

#endif /* XTR_CHILD_H */
