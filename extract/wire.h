/*
 * wire.h -- what the decoder process sends the process that writes.
 *
 * With a sandbox, libarchive and the compression libraries run in a child
 * process that can write nothing anywhere (child.c); it sends each entry's
 * header and data over a socket, and the calling process judges and
 * writes them as it would judge and write what libarchive read in its own
 * process (remote.c).  The child is assumed compromised: every message is
 * bounded and checked here before anything else sees it, and a message
 * that breaks this contract ends the run as a protocol error.
 *
 * A message is a 4-byte length (host order: both ends are one machine),
 * a type byte, then that many bytes of body.  The child sends, in order:
 *
 *	CONFINED		once, before it reads a byte of the archive
 *	[LABEL]			the archive's first bytes, for its GNU
 *				volume label (label.c): once, before the
 *				first HEADER (or TOTAL, or END)
 *	{ HEADER DATA* DATA_END }*
 *				with a NOTE between any two messages after
 *				CONFINED and before END: a warning that did
 *				not stop the read (a member name), or a
 *				SKIP: a volume out of sequence was skipped
 *				(why, and the member name); at most
 *				PFX_MAX_VOLUMES of the two
 *	[TOTAL]			the archive ended well: how many bytes of
 *				it (decompressed) were read
 *	END			the end of the archive, or why it stopped
 *
 * A DATA message carries its bytes, or (DATA_RING) says where they lie in
 * a ring of memory that both processes map (struct wire_ring), which
 * saves the copies through the socket (a plain tar is read into the ring
 * itself, and its data told of where it lies: child.c ring_block()).
 * The child writes the ring; the parent only reads it, and tells how far
 * it is done with it in a word of its own that the child waits on.  The
 * ring's bytes are file data and nothing else: no length, offset or
 * decision is ever read from it, so a child that changes them under the
 * parent's eyes changes only the content it chose anyway.
 *
 * The decoding here is pure (no I/O, no allocation), so that a fuzzer
 * can drive it (fuzz/fuzz_wire.c).
 */
#ifndef XTR_WIRE_H
#define XTR_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pfx_path.h"
#include "pfx_sandbox.h"

#define WIRE_CONFINED	'C'
#define WIRE_HEADER	'H'
#define WIRE_DATA	'D'
#define WIRE_DATA_RING	'R'
#define WIRE_DATA_END	'E'
#define WIRE_END	'Z'
#define WIRE_TOTAL	'T'
#define WIRE_LABEL	'V'
#define WIRE_NOTE	'W'
#define WIRE_SKIP	'K'

/* Why a volume was skipped (SKIP): it continues another member (or
 * none), or the member named from another offset or with another size. */
#define WIRE_SKIP_OTHER		'n'
#define WIRE_SKIP_OFFSET	's'
#define WIRE_SKIP_SIZE		'w'

/* The length and type before each body. */
#define WIRE_HEAD	5

/* The largest body of any message, and of a DATA message's bytes. */
#define WIRE_MSG_MAX	(4u << 20)
#define WIRE_DATA_MAX	(256u << 10)

/* The ring: a power of two, far above two blocks (see child.c). */
#define WIRE_RING_SIZE	(4u << 20)

struct wire_ring {
	unsigned char data[WIRE_RING_SIZE];
	/* Written by the parent: ring bytes before this count (of all the
	 * bytes the child ever placed, modulo 2^32) may be written over. */
	_Atomic uint32_t done;
	/* Set by the child before it waits until DONE reaches WANT: a
	 * quarter of the ring at a time, not a wake-up per block. */
	_Atomic uint32_t waiting;
	_Atomic uint32_t want;
};

/* The most bytes a LABEL message carries (extract.h's XTR_HEAD_MAX). */
#define WIRE_LABEL_MAX	4096u

/* The longest text of DATA_END and END (a libarchive message). */
#define WIRE_TEXT_MAX	1024u

/* A header's strings, in this order on the wire. */
enum wire_str {
	WIRE_NAME, WIRE_HARDLINK, WIRE_SYMLINK, WIRE_UNAME, WIRE_GNAME,
	WIRE_NSTR
};

/* Header flags. */
#define WIRE_SIZE_SET	0x1u
#define WIRE_ATIME_SET	0x2u
#define WIRE_SPARSE	0x4u
#define WIRE_DAMAGED	0x8u	/* libarchive read it whole, but a part of
				   it malformed and ignored */
#define WIRE_UNCONVERTED 0x10u	/* ... or a name not in its character set,
				   kept as its bytes */
#define WIRE_FLAGS	0x1fu

/* Outcomes of DATA_END and END. */
#define WIRE_OK		0	/* the data, or the archive, ended well */
#define WIRE_BAD_DATA	1	/* a failed check of the data (a CRC) */
#define WIRE_FATAL	2	/* the archive cannot be read further */

/* An entry's header, decoded; strings point into the message. */
struct wire_header {
	int32_t format;		/* libarchive's archive_format() */
	uint32_t filetype;	/* AE_IF* bits, or 0 */
	uint32_t perm;		/* 07777 bits */
	uint32_t flags;		/* WIRE_SIZE_SET ... */
	int64_t size, mtime, mtime_nsec, atime, atime_nsec, uid, gid;
	uint64_t raw;		/* archive bytes the child had read */
	int64_t devmajor, devminor;	/* a device's numbers, 0 to
					   UINT32_MAX; 0 for other types */
	int64_t pos;		/* the header's first byte in the
				   decompressed archive, or -1 */
	const char *str[WIRE_NSTR];	/* NUL-free; NULL when absent */
	uint32_t len[WIRE_NSTR];
	uint32_t nxattr;
	const unsigned char *xattrs;	/* nxattr records, see wire_xattr */
	size_t xattrs_len;
};

/* One extended attribute of a header. */
struct wire_xattr {
	const char *name;	/* not terminated: NAME_LEN bytes */
	size_t name_len;
	const void *value;
	size_t value_len;
};

/* A block of an entry's data, decoded. */
struct wire_data {
	int64_t offset;
	uint64_t raw;
	const unsigned char *buf;	/* DATA: in the message */
	size_t len;
	uint32_t at;		/* DATA_RING: the ring count of its start */
};

/* DATA_END or END, decoded; TEXT is NUL-terminated in the caller's
 * buffer. */
struct wire_end {
	int32_t status;		/* WIRE_OK ... */
	int32_t error;		/* errno, 0 when WIRE_OK */
};

/* --- the child's side: encode ---------------------------------------- */

/* A CONFINED message's length, head included: result, ABI, five
 * booleans, the text. */
#define WIRE_CONFINED_LEN (WIRE_HEAD + 4 + 4 + 5 + \
    sizeof(((struct pfx_sandbox_info *)0)->text))

/*
 * Encode the CONFINED message for R (pfx_sandbox_confine()'s return) and
 * INFO into OUT (WIRE_CONFINED_LEN bytes).  Return: its length.
 */
size_t wire_put_confined(unsigned char *out, int r,
    const struct pfx_sandbox_info *info);

/* Set string I of H to S (NULL: absent), its length counted up to one
 * past WIRE_MSG_MAX, so that wire_put_header() refuses one too long. */
void wire_set_str(struct wire_header *h, enum wire_str i, const char *s);

/*
 * Encode H (strings from H->str, xattrs from XATTRS) as a HEADER message
 * into OUT of CAP bytes.  Return: its length, or 0 if it does not fit
 * WIRE_MSG_MAX or CAP.
 */
size_t wire_put_header(unsigned char *out, size_t cap,
    const struct wire_header *h, const struct wire_xattr *xattrs);

/* The head of a DATA message for LEN bytes at OFFSET; the bytes follow.
 * Return: the head's length. */
size_t wire_put_data_head(unsigned char *out, int64_t offset, uint64_t raw,
    size_t len);

/* A DATA_RING message for LEN bytes at OFFSET, placed in the ring at
 * count AT, into OUT (WIRE_HEAD + 24 bytes).  Return: its length. */
size_t wire_put_data_ring(unsigned char *out, int64_t offset, uint64_t raw,
    uint32_t at, size_t len);

/* A LABEL message of the LEN bytes BYTES (at most WIRE_LABEL_MAX are
 * sent) into OUT (WIRE_HEAD + WIRE_LABEL_MAX bytes).  Return: its
 * length. */
size_t wire_put_label(unsigned char *out, const unsigned char *bytes,
    size_t len);

/* A NOTE message (xtr_volumes_note()) naming the member NAME of LEN
 * bytes, at most PFX_PATH_MAX, into OUT (WIRE_HEAD + PFX_PATH_MAX
 * bytes).  Return: its length, or 0 when NAME is too long. */
size_t wire_put_note(unsigned char *out, const char *name, size_t len);

/* A SKIP message: volume skipped for WHY (WIRE_SKIP_OTHER, _OFFSET, _SIZE),
 * NAME (LEN bytes, at most PFX_PATH_MAX) the member it did not continue,
 * into OUT (WIRE_HEAD + 1 + PFX_PATH_MAX bytes).  Return: its length, or
 * 0 when WHY is none of these or NAME is empty or too long. */
size_t wire_put_skip(unsigned char *out, int why, const char *name,
    size_t len);

/* Encode DATA_END or END (TYPE) with STATUS, ERROR and TEXT (cut at
 * WIRE_TEXT_MAX) into OUT (WIRE_HEAD + 8 + WIRE_TEXT_MAX bytes).
 * Return: its length. */
size_t wire_put_end(unsigned char *out, int type, int status, int error,
    const char *text);

/* A TOTAL message: BYTES of the decompressed archive were read, into OUT
 * (WIRE_HEAD + 8 bytes).  Return: its length. */
size_t wire_put_total(unsigned char *out, uint64_t bytes);

/* --- the parent's side: decode and check ------------------------------ */

/* Split a message's head.  Return: the body's length, or -1 when it is
 * longer than WIRE_MSG_MAX. */
long wire_body_len(const unsigned char head[WIRE_HEAD], int *type);

/*
 * Decode a CONFINED body.  Return: 0 with *R and *INFO set, or -1 when
 * it breaks the contract (a size, a boolean that is not 0 or 1, a text
 * not terminated or not printable, an error that is not an errno), with
 * *INFO zeroed.
 */
int wire_get_confined(const unsigned char *body, size_t len, int *r,
    struct pfx_sandbox_info *info);

/* Decode a HEADER body.  Return: 0, or -1 when it breaks the contract
 * (lengths, NUL bytes in strings, type or mode bits, a negative size, a
 * nanosecond out of range, unknown flags, device numbers beyond 32 bits
 * or on an entry that is not a device, a position below -1). */
int wire_get_header(const unsigned char *body, size_t len,
    struct wire_header *h);

/* The next extended attribute at *AT of H (start with *AT = 0).
 * Return: 1 with *X set, 0 at the end. */
int wire_next_xattr(const struct wire_header *h, size_t *at,
    struct wire_xattr *x);

/* Decode a DATA body.  Return: 0, or -1 (a negative offset, one that
 * overflows with its length, or more than WIRE_DATA_MAX bytes). */
int wire_get_data(const unsigned char *body, size_t len,
    struct wire_data *d);

/* Decode a DATA_RING body into D (BUF set to where the bytes lie in
 * RING).  Return: 0, or -1 (as wire_get_data(), or bytes that would run
 * past the ring's end). */
int wire_get_data_ring(const unsigned char *body, size_t len,
    const struct wire_ring *ring, struct wire_data *d);

/* Check a LABEL body of LEN bytes: they are the archive's first bytes,
 * parsed by label.c as any archive's bytes are.  Return: 0, or -1 (empty,
 * or more than WIRE_LABEL_MAX). */
int wire_get_label(const unsigned char *body, size_t len);

/* Check a NOTE body and copy its name into NAME (PFX_PATH_MAX + 1 bytes),
 * terminated.  Return: 0, or -1 (empty, longer than PFX_PATH_MAX, or
 * holding a NUL). */
int wire_get_note(const unsigned char *body, size_t len, char *name);

/* Check a SKIP body: *WHY, and its name into NAME as wire_get_note().
 * Return: 0, or -1 (no known WHY, or a name wire_get_note() refuses). */
int wire_get_skip(const unsigned char *body, size_t len, int *why,
    char *name);

/* Decode a TOTAL body.  Return: 0, or -1 (not 8 bytes, or a count past
 * INT64_MAX). */
int wire_get_total(const unsigned char *body, size_t len, uint64_t *bytes);

/*
 * Decode a DATA_END or END body; its text goes to TEXT (CAP bytes), with
 * every byte that is not printable ASCII shown as '?'.  Return: 0, or -1
 * (an unknown status, an error out of errno's range, or WIRE_OK with an
 * error).
 */
int wire_get_end(const unsigned char *body, size_t len, struct wire_end *e,
    char *text, size_t cap);

#endif /* XTR_WIRE_H */
