/*
 * volumes.h -- GNU tar's multi-volume archives, joined (volumes.c).
 */
#ifndef XTR_VOLUMES_H
#define XTR_VOLUMES_H

#include "extract.h"

/*
 * Open A on the N volumes FDS (the caller's, read from where they are;
 * but OWN, if not -1, which is closed with the reader) as one archive;
 * *OUT is the joiner, to free with xtr_volumes_free() once A is freed
 * (whether or not the open worked).  Return: libarchive's status.
 */
int xtr_volumes_open(struct archive *a, const int *fds, size_t n, int own,
    const struct xtr_stop *stop, struct xtr_head *tap,
    struct xtr_volumes **out);

/*
 * The offset in the volumes, as GNU tar counts blocks (-R), of the byte
 * at JOINED in the joined stream; JOINED itself when V is NULL.
 */
uint64_t xtr_volumes_physical(const struct xtr_volumes *v, uint64_t joined);

/*
 * Why the join failed (and *ERROR, if not NULL, its errno), or NULL when
 * V is NULL or has not failed.  libarchive may have put its own words
 * ("Truncated input file") on the archive since: these are the cause.
 */
const char *xtr_volumes_error(const struct xtr_volumes *v, int *error);

/* The volume V reads now (the last, once the archive ended): what is
 * left of it is drained as a pipe's (xtr_input_drain()).  -1: none. */
int xtr_volumes_fd(const struct xtr_volumes *v);

/* Free V (NULL: nothing), after its reader. */
void xtr_volumes_free(struct xtr_volumes *v);

/*
 * The oldest warning that did not stop the join, not yet taken, and its
 * *KIND (notes.h): the member (its full name) that a later volume's 'M'
 * header continues by the 100 bytes it holds of the name (GNU tar's
 * "possibly continued on this volume: header contains truncated name"),
 * or whose continuation a volume skipped did not hold (it continues
 * another member: "is not continued on this volume"; or this one from
 * another offset: "This volume is out of sequence"); valid until V's
 * next read.  NULL: V NULL, or none left.
 */
const char *xtr_volumes_note(struct xtr_volumes *v, int *kind);

#endif /* XTR_VOLUMES_H */
