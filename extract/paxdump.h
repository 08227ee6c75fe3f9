/*
 * paxdump.h -- the GNU.dumpdir record of a POSIX-format incremental
 * archive, read again from the stream's last bytes (paxdump.c).  Used by
 * the readers: source.c in this process, child.c in the decoder process.
 */
#ifndef XTR_PAXDUMP_H
#define XTR_PAXDUMP_H

#include <stddef.h>

#include "decode.h"
#include "pfextract.h"

struct archive;
struct archive_entry;

/* The bytes kept: the largest list, its header, and libarchive's reads
 * past it (a decoder's block is at most 1 MiB). */
#define XTR_PAXDUMP_WINDOW ((size_t)PFX_DUMPDIR_MAX + (2u << 20))

/* A window for struct xtr_head of a -G run (PFX_OPT_INCREMENTAL), or NULL
 * without memory.  Free it with xtr_window_free(). */
struct xtr_window *xtr_paxdump_window(void);

enum {
	XTR_PAXDUMP_NONE,	/* not a pax directory, or no GNU.dumpdir */
	XTR_PAXDUMP_FOUND,	/* *LIST, *LEN: the list; AE's size is LEN */
	XTR_PAXDUMP_BAD		/* *REASON: the headers cannot be trusted */
};

/*
 * For the entry AE that AR just read: its GNU.dumpdir, read again from
 * HEAD's window (NULL: none kept, XTR_PAXDUMP_NONE).  *LIST is the
 * caller's to free(3), and is given as AE's data in place of the none
 * libarchive has.  Return: XTR_PAXDUMP_*.
 */
int xtr_paxdump_take(struct archive *ar, struct archive_entry *ae,
    const struct xtr_head *head, char **list, size_t *len,
    const char **reason);

#endif /* XTR_PAXDUMP_H */
