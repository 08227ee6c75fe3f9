/*
 * cpiowalk.h -- what libarchive's cpio reader spends on its list of files
 * with more than one link, counted and bounded (cpiowalk.c).
 */
#ifndef XTR_CPIOWALK_H
#define XTR_CPIOWALK_H

#include "extract.h"

/*
 * Bytes of the list that libarchive may walk in all: this much for each
 * entry read and each link limits.max_links allows.  A step through the
 * list costs about 1.3 to 2 ns per 64 bytes of it, so 1 MiB is 20 to 30
 * us, about what making a small file costs.
 */
#define XTR_CPIO_WALK_PER (1024u * 1024u)

/* What a group costs in libarchive's list besides its name: its record
 * and the allocator's headers of the two blocks. */
#define XTR_CPIO_NODE 64u

/*
 * Count what libarchive's cpio reader did for the entry it just read (of
 * NLINK links, device DEV, inode INO, named NAME), as its
 * record_hardlink() does it; every entry of the archive is given.
 * Return: 0, or -EFBIG past the bound (-ENOMEM: no memory to count),
 * with what to say in MSG (CAP bytes).
 */
int xtr_cpio_walk_count(struct xtr_cpio_walk *w, unsigned int nlink,
    uint64_t dev, uint64_t ino, const char *name, char *msg, size_t cap);

/* Release what W holds; it may count again from zero. */
void xtr_cpio_walk_free(struct xtr_cpio_walk *w);

#endif /* XTR_CPIOWALK_H */
