/*
 * parents.h -- the parents an entry's name needs, made and remembered
 * (parents.c).
 */
#ifndef XTR_PARENTS_H
#define XTR_PARENTS_H

#include <stdbool.h>
#include <sys/stat.h>

#include "extract.h"
#include "platform.h"

/*
 * Remember that this run made the last CREATED components of DIR, open
 * as FD (the caller's), each with its identity.  Return: 0, or -errno.
 */
int xtr_note_made(struct xtr *x, const char *dir, unsigned int created,
    int fd);

/*
 * May the directory of identity ID (plat_os_identify()) be one this run
 * made, by its birth time?  False for one that existed before the run;
 * true where the filesystem keeps no birth time (its identity is all
 * there is to go by).
 */
bool xtr_born_in_run(const struct xtr *x, const struct plat_id *id);

/* Make the parent directories of REL; remember the ones made. 0/-errno */
int xtr_make_parents(struct xtr *x, const char *rel);

/* The modes a directory entry is made with: REL private (0700), its
 * missing parents 0755 less the umask. */
extern const struct plat_mkmode xtr_dir_modes;

/*
 * Make directory REL with xtr_dir_modes, in REL's parent as X keeps it
 * (kept.h).  Return: REL open, or -errno.
 */
int xtr_mkdirs(struct xtr *x, const char *rel, unsigned int *created);

#endif /* XTR_PARENTS_H */
