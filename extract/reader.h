/*
 * reader.h -- libarchive opened on the input, in this process (reader.c).
 */
#ifndef XTR_READER_H
#define XTR_READER_H

#include "extract.h"

/*
 * Make a reader for IN with the formats FORMATS (NULL: the default set)
 * and every built-in filter; open it.  A read from a pipe that a signal
 * interrupts fails when *CANCEL (if CANCEL is not NULL) is set.  An input
 * in gzip, zstd or xz is decoded by our own decoder thread (decode.h;
 * DEC_FLAGS: XTR_DEC_*), which the reader owns: *DEC is set to it,
 * borrowed until the reader is freed, or to NULL when libarchive decodes.
 * On failure writes a message to MSG (CAP bytes) and the cause to
 * *ERROR: the input's open(2) errno (ENOENT, EACCES, ...), EISDIR,
 * EILSEQ (no archive of a format read: empty, unknown), EIO (truncated
 * or corrupt), ENOMEM, ECANCELED, or EINVAL (FORMATS names none read).
 * Return: the reader, or NULL.
 */
struct xtr_cpio_walk;
struct xtr_decoder;
struct xtr_read_place;
struct xtr_volumes;

/*
 * Reader flags, given with the XTR_DEC_* bits (which they do not reach):
 * XTR_READ_DEB (PFX_OPT_DEB): IN is a Debian package, and the reader
 * returned reads its data.tar member; XTR_READ_CONCAT: read a tar archive
 * past its zero blocks, to the end (-i, PFX_OPT_IGNORE_ZEROS).
 */
#define XTR_READ_DEB 0x100u
#define XTR_READ_CONCAT 0x200u
#define XTR_READ_MULTIVOL 0x400u	/* PFX_OPT_MULTI_VOLUME (volumes.c) */
#define XTR_READ_FLAGS(opt) \
	((((opt)->flags & PFX_OPT_IGNORE_ZEROS) != 0 ? XTR_READ_CONCAT : 0u) | \
	(((opt)->flags & PFX_OPT_DEB) != 0 ? XTR_READ_DEB : 0u) | \
	(((opt)->flags & PFX_OPT_MULTI_VOLUME) != 0 ? XTR_READ_MULTIVOL : 0u))
/* Return: the bytes of the decompressed archive AR's format reader has
 * taken, what tar's --totals counts (0 when unknown). */
uint64_t xtr_reader_archive_bytes(struct archive *ar);

/*
 * The raw (compressed) bytes of the input read so far, the ratio limit's
 * denominator, for AR with our decoder DEC (or NULL) and the bytes kept
 * HEAD (or NULL): a -G run's stage counts there (stage.c).
 */
uint64_t xtr_reader_raw_bytes(struct archive *ar,
    const struct xtr_decoder *dec, const struct xtr_head *head);

/*
 * With XTR_READ_MULTIVOL, *VOLS is set to the joiner of the volumes
 * (volumes.c), for the caller to free after the reader, else NULL (VOLS
 * may be NULL only without XTR_READ_MULTIVOL).
 */
struct archive *xtr_reader_open(const struct pfx_input *in,
    const char *formats, const struct xtr_stop *stop,
    unsigned int dec_flags, struct xtr_decoder **dec,
    struct xtr_volumes **vols, char *msg, size_t cap, int *error);

/*
 * The errno for a read of A that failed once it was open: ENOMEM,
 * ECANCELED or ETIMEDOUT as said, else EIO -- the input ended early, is
 * corrupt, or could not be read: one value whatever the format and the
 * compression (libpfextract(3) ERRORS).
 */
int xtr_reader_errno(struct archive *a);

/*
 * As xtr_reader_open(), keeping the first bytes of the decompressed
 * archive (of volumes, joined) in *HEAD (not NULL) as they are read
 * (label.c), with what the xz decoder may take of the memory budget in
 * MEM (xtr_dec_mem_of()); xtr_reader_open() gives it the default
 * budget's.  A plain archive in a file that can seek is read into
 * PLACE's buffers, if PLACE is not NULL (placed.h).
 */
struct archive *xtr_reader_open_head(const struct pfx_input *in,
    const char *formats, const struct xtr_stop *stop,
    unsigned int dec_flags, const struct xtr_dec_mem *mem,
    struct xtr_decoder **dec, struct xtr_volumes **vols,
    struct xtr_head *head, const struct xtr_read_place *place, char *msg,
    size_t cap, int *error);

/*
 * Bytes after the archive read and dropped beyond as many as the
 * archive's own (ARCHIVE bytes): a pipe whose writer never ends
 * (`cat /dev/zero |`, an upload that goes on) is left at this, as GNU
 * tar leaves it at once, instead of being read for ever.
 */
#define XTR_DRAIN_SLACK	((uint64_t)64 << 20)

/*
 * The archive, ARCHIVE bytes of FD, has ended: stop our decoder DEC (if
 * not NULL; it stays the reader's), then read what is left of FD, a pipe,
 * FIFO or socket, to its end and drop it -- not decoded -- so that the
 * process writing it is never killed by SIGPIPE for bytes after the
 * archive (a zip's central directory, a tar's zero blocks).  SECURITY:
 * at most ARCHIVE + XTR_DRAIN_SLACK bytes: a stream without end is no
 * limit's otherwise.  FD of any other kind (a file, a device), or -1, is
 * left alone.  TICK, if not NULL, is called after each read(2); a read
 * that a signal interrupts fails when STOP's flag is set, and a wait past
 * its deadline fails (STOP may be NULL).
 * Return: 0 at the end or the bound, or -errno (-ECANCELED, -ETIMEDOUT).
 */
int xtr_input_drain(int fd, uint64_t archive, struct xtr_decoder *dec,
    const struct xtr_stop *stop, void (*tick)(void));

/* Is FD an input xtr_input_drain() reads to its end (a pipe, a FIFO, a
 * socket)? */
bool xtr_input_drained(int fd);

/*
 * libarchive's next header of AR into AE.  SECURITY: libarchive holds
 * what an entry's headers say (a sparse map) while it reads them, before
 * the entry is seen; the read callbacks count them in HEAD from here
 * (decode.h, xtr_header_begin()).  And its cpio reader walks a list of
 * every file of more than one link for each such entry: counted in WALK
 * (cpiowalk.h; NULL: not counted), and past its bound the read fails.
 * What is left of the last entry's data (*ENTRY: a header was read and
 * its data not skipped) is skipped first, as archive_read_next_header()
 * would (its failure, an archive cut, fatal too), but outside the header
 * read, where it would count as headers.  *ENTRY is set for the next
 * call.  Return: libarchive's status.
 */
int xtr_reader_next(struct archive *ar, struct xtr_head *head,
    struct xtr_cpio_walk *walk, bool *entry, struct archive_entry *ae);

/* What the ARCHIVE_WARN that AR's last header read returned was. */
enum xtr_header_warn xtr_reader_warning(struct archive *ar);

/* Begin SPAN for the data of AE, the entry just read. */
void xtr_span_begin(struct xtr_span *span, struct archive_entry *ae);

/*
 * archive_read_data_block() of AR, for the entry SPAN was begun for, held
 * to what an entry's data is whatever the format's reader lets through:
 * SECURITY: its blocks only go forward (a sparse map whose segments
 * overlap or go back gives blocks that go back), and a sparse entry's
 * data ends only once all its map holds was given (libarchive ends it
 * quietly at the bytes the entry stores, which would leave holes where
 * the map says there is data), and a sparse entry's data ends inside its
 * size (libarchive keeps a segment that runs past it).  Each is
 * ARCHIVE_WARN, with AR's error set: data that fails its check, which
 * ends its entry only.
 * Return: libarchive's status.
 */
int xtr_reader_data(struct archive *ar, struct xtr_span *span,
    const void **buf, size_t *size, int64_t *offset);

#endif /* XTR_READER_H */
