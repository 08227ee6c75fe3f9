/*
 * parents.h -- the parents an entry's name needs, made and remembered
 * (parents.c).
 */
#ifndef XTR_PARENTS_H
#define XTR_PARENTS_H

#include "extract.h"

/*
 * Remember that this run made the last CREATED components of DIR (FD,
 * open; its parents are named only).  Return: 0, or -errno.
 */
int xtr_note_made(struct xtr *x, const char *dir, unsigned int created,
    int fd);

/* Make the parent directories of REL; remember the ones made. 0/-errno */
int xtr_make_parents(struct xtr *x, const char *rel);

#endif /* XTR_PARENTS_H */
