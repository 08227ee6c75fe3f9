/*
 * source.h -- where the engine's entries come from: libarchive or the
 * decoder process (source.c).
 */
#ifndef XTR_SOURCE_H
#define XTR_SOURCE_H

#include "extract.h"

/* xtr_source_data(): a block; the entry's end; no block: the entry's data
 * failed a check or cannot be decoded (a zip member's CRC-32, an
 * encrypted member: the next entry may be read), or a read failed. */
#define XTR_DATA_OK 0
#define XTR_DATA_EOF 1
#define XTR_DATA_FAILED (-1)
#define XTR_DATA_BAD (-2)

/*
 * Each wraps libarchive (no sandbox) or the decoder process (remote.c):
 * the next header into AE (ARCHIVE_OK, _EOF or _FATAL; what was left of
 * the current entry's data drained first, and counted against the
 * limits), the next data block of the current entry (XTR_DATA_*: the
 * writers need no libarchive to read it), the archive's format
 * (archive_format()), whether the entry is sparse.
 */
int xtr_source_next(struct xtr *x, struct archive_entry *ae);
int xtr_source_data(struct xtr *x, const void **buf, size_t *size,
    int64_t *offset);
int xtr_source_format(const struct xtr *x);
/* Where the current entry's header begins in the decompressed archive
 * (-1: unknown), and, once it ended well, the archive's bytes read. */
int64_t xtr_source_header_pos(const struct xtr *x);
uint64_t xtr_source_archive_bytes(const struct xtr *x);
bool xtr_source_sparse(const struct xtr *x, struct archive_entry *ae);
/* The archive's first bytes as kept (label.c), or NULL. */
const struct xtr_head *xtr_source_head(const struct xtr *x);

/*
 * The last error of the source: its text, *ERROR its errno, *CHANNEL
 * whether the decoder process failed (a protocol error, a deadline, its
 * death) rather than the archive being unreadable.
 */
const char *xtr_source_error(const struct xtr *x, int *error, bool *channel);

/*
 * Stop the run because the source failed while reading entry NAME's data
 * (NULL: a header): the archive is unreadable, or the decoder process
 * failed.
 */
void xtr_fail_read(struct xtr *x, const char *name);

/*
 * Tell pfx_options.warning of the warnings of the volumes' join that
 * the last read brought, in order (xtr_volumes_note(), through the decoder process or
 * not), on this thread, as it comes.  After each read of the source.
 */
void xtr_source_note(struct xtr *x);

#endif /* XTR_SOURCE_H */
