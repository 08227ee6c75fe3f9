/*
 * zip.h -- pfextract's own zip reader, for the common case: a seekable
 * zip whose central directory lists only stored and deflated members,
 * unencrypted, on one disk (zipdir.c parses the directory and checks
 * each local header against it; zipinflate.c inflates; zip.c gives the
 * entries in archive order, the members decoded ahead on every CPU).
 * Anything else is libarchive's, for the whole archive, as before.
 * Internal: not installed, not exported.
 */
#ifndef XTR_ZIP_H
#define XTR_ZIP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* What zip_dir_read() and xtr_zip_open() say of an input. */
enum {
	ZIP_HOSTILE = -1,	/* a zip that lies about itself: refused */
	ZIP_NOT_OURS = 0,	/* libarchive reads it, as before */
	ZIP_OURS = 1
};

/* The bytes of a zip: a descriptor read with pread(2), or a buffer. */
struct zip_in {
	int fd;
	const unsigned char *buf;	/* wins over FD when not NULL */
	uint64_t size;
};

/* One member as the central directory gives it, with what libarchive
 * makes of its directory record (the mode, the times and owners the
 * record's extra fields give; the local header's override them). */
struct zip_member {
	uint64_t off;		/* its local header */
	uint64_t end;		/* the next member's, or the directory's */
	uint64_t csize, usize;
	uint32_t crc;
	uint32_t mode;		/* st_mode, libarchive's rules */
	uint32_t uid, gid;
	int64_t atime, ctime;
	uint32_t name;		/* its name: at this offset in NAMES */
	uint16_t name_len;
	uint16_t method;	/* 0 stored, 8 deflated */
	uint16_t flags;		/* general purpose bits */
};

/* A zip's central directory, parsed. */
struct zip_dir {
	unsigned char *names;	/* the members' names, packed end to end
				   (the directory's other bytes are let
				   go once parsed) */
	size_t names_len;
	uint64_t cd_off;
	struct zip_member *m;	/* in archive order: by local offset */
	size_t n;
};

/* What a member's local header adds: where its data starts, and the
 * times and owners libarchive takes from it.  Its MS-DOS time is kept
 * as written (DOS_TIME), for zip_dos_time() on the reading thread: the
 * pool's threads check local headers too, and mktime(3) keeps state. */
struct zip_local {
	uint64_t data;
	int64_t mtime, atime, ctime;
	bool mtime_set;		/* MTIME from an extra field, or DOS_TIME */
	uint32_t dos_time;
	uint32_t uid, gid;
};

/* An MS-DOS time and date (WHEN: the time in its low 16 bits) as
 * libarchive reads it: local time, by mktime(3). */
int64_t zip_dos_time(uint32_t when);

/* The longest a local header can be: fixed part, name, extra. */
#define ZIP_LOCAL_MAX (30u + 65535u + 65535u)

/* Read LEN bytes of IN at OFF into BUF.  Return: 0, or -errno (-EIO
 * for an input that ends first). */
int zip_pread(const struct zip_in *in, void *buf, size_t len, uint64_t off);

/*
 * Read the end record(s) and the central directory of IN into D, at most
 * MAX_MEMORY bytes of it (0: no bound).  Return: ZIP_OURS; ZIP_NOT_OURS
 * for a zip this reader leaves to libarchive (or no zip at all); or
 * ZIP_HOSTILE with MSG and *ERROR set (EILSEQ, or EFBIG for the budget).
 */
int zip_dir_read(const struct zip_in *in, uint64_t max_memory,
    struct zip_dir *d, char *msg, size_t cap, int *error);

void zip_dir_free(struct zip_dir *d);

/*
 * Check member M's local header, the LEN bytes at P (read from M->off),
 * against D's record for it; fill L.  Return: 0; the bytes needed when
 * LEN is too short; -1 with MSG set (a header that disagrees with the
 * directory, or runs into the next member: a hostile zip); -2 with MSG
 * set for an extra field that libarchive reads and this reader does not
 * (the first member's makes the zip libarchive's; a later one's is
 * refused as -1 is).
 */
long zip_local_check(const struct zip_dir *d, const struct zip_member *m,
    const unsigned char *p, size_t len, struct zip_local *l, char *msg,
    size_t cap);

/* Would libarchive give the name P (N bytes, FLAGS its record's general
 * purpose bits) as it is: no NUL, no backslash, and valid UTF-8 in a UTF-8
 * locale when FLAGS say UTF-8? */
bool zip_name_plain(const unsigned char *p, size_t n, uint16_t flags);

/* Raw inflate: ISA-L's igzip where built in, else (or when ZLIB) zlib. */
struct zip_inflate;

struct zip_inflate *zip_inflate_new(bool zlib);
void zip_inflate_free(struct zip_inflate *zi);
void zip_inflate_reset(struct zip_inflate *zi);

/*
 * Inflate from *IN (*IN_LEN bytes) into *OUT (*OUT_LEN bytes of room),
 * moving all four on by what was used; *DONE set at the end of the
 * deflate stream (the bytes after it are left in *IN).  The CRC-32 of
 * what was made is kept (zip_inflate_crc()).  Return: 0, or -1 for data
 * that is not deflate.
 */
int zip_inflate_run(struct zip_inflate *zi, const unsigned char **in,
    size_t *in_len, unsigned char **out, size_t *out_len, bool *done);

uint32_t zip_inflate_crc(const struct zip_inflate *zi);

/* The CRC-32 of LEN bytes at P, after CRC. */
uint32_t zip_crc32(uint32_t crc, const void *p, size_t len);

/* --- zip.c: the reader ------------------------------------------------ */

struct archive_entry;
struct pfx_input;
struct pfx_options;
struct xtr_zip;

/*
 * Open IN for this reader when it is ours: a regular file or a buffer,
 * read from its start, beginning as a zip does (and as no tar header
 * does), with "zip" among OPT's formats, not a package or volumes
 * (DEC_FLAGS: XTR_READ_*, XTR_DEC_ZLIB), whose directory zip_dir_read()
 * takes.  Its members are inflated ahead by CPUS threads (none for one
 * CPU, or a listing).  Return: ZIP_OURS with *OUT set; ZIP_NOT_OURS
 * (libarchive reads it); ZIP_HOSTILE with MSG and *ERROR set.
 */
int xtr_zip_open(const struct pfx_input *in, const struct pfx_options *opt,
    unsigned int dec_flags, unsigned int cpus, struct xtr_zip **out,
    char *msg, size_t cap, int *error);

/* The next entry into AE, as archive_read_next_header2() would give it.
 * Return: ARCHIVE_OK, ARCHIVE_EOF, or ARCHIVE_FATAL (xtr_zip_error()). */
int xtr_zip_next(struct xtr_zip *z, struct archive_entry *ae);

/* The entry's next data block, as archive_read_data_block().  Return:
 * ARCHIVE_OK; ARCHIVE_EOF; ARCHIVE_WARN for data that fails a check (the
 * entry failed; the next one may be read); ARCHIVE_FATAL. */
int xtr_zip_data(struct xtr_zip *z, const void **buf, size_t *size,
    int64_t *offset);

/* The input read so far (the ratio's denominator: up to the end of a
 * pooled member, as far as a streamed one was read); where the current
 * entry's local header is; the archive's size. */
uint64_t xtr_zip_raw(const struct xtr_zip *z);
int64_t xtr_zip_header_pos(const struct xtr_zip *z);
uint64_t xtr_zip_archive_bytes(const struct xtr_zip *z);

/* The last error's text, and its errno in *ERROR. */
const char *xtr_zip_error(const struct xtr_zip *z, int *error);

/* What the pool did: its threads, how many of them decoded a member,
 * the members they decoded; the most its buffers (the members' data and
 * the threads' reads) took at once, and the bytes it may hold. */
struct xtr_zip_stats {
	unsigned int threads, threads_used;
	uint64_t pooled;
	size_t buffers_peak, hold_max;
};

void xtr_zip_stats(const struct xtr_zip *z, struct xtr_zip_stats *s);

void xtr_zip_free(struct xtr_zip *z);

#endif /* XTR_ZIP_H */
