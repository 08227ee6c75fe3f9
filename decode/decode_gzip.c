/*
 * decode_gzip.c -- gzip (RFC 1952) for the decoder thread (decode.h).
 *
 * A gzip file is one member or more, each a header, raw deflate data and
 * an 8-byte trailer: the CRC-32 and the length (mod 2^32, ISIZE) of the
 * member's data, both checked here against what was inflated -- which
 * libarchive 3.6 never did, so a flipped byte in a stored block went
 * unnoticed.  The header's optional fields are skipped (FEXTRA, FNAME,
 * FCOMMENT), its CRC checked when it has one (FHCRC).  The framing is
 * parsed here, byte by byte where a field crosses two reads; the deflate
 * data is inflated by ISA-L's igzip, or by zlib's inflate where ISA-L is
 * missing at build time or XTR_DEC_ZLIB asks for it (the two give the
 * same bytes and the same verdicts).
 *
 * After a member, another member starts with its magic (1f 8b); anything
 * else ends the stream and is ignored, as gzip ignores trailing zeros
 * (tape padding) and libarchive 3.6 ignored any trailing bytes.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ZLIB_CONST
#include <zlib.h>

#include "decode.h"

#ifdef XTR_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif

/* Header flags (FLG). */
#define FHCRC		0x02
#define FEXTRA		0x04
#define FNAME		0x08
#define FCOMMENT	0x10

/* Where the parse is. */
enum gz_phase {
	GZ_HEADER,		/* a member's header */
	GZ_DATA,		/* its deflate data */
	GZ_TRAILER,		/* its CRC-32 and ISIZE */
	GZ_NEXT,		/* between members: 1f for the next one? */
	GZ_NEXT2		/* 1f seen: 8b? */
};

/* The header's fields, in their order. */
enum gz_field {
	F_FIXED,		/* ID1 ID2 CM FLG MTIME XFL OS */
	F_XLEN,
	F_EXTRA,
	F_NAME,
	F_COMMENT,
	F_HCRC,
	F_DONE
};

/* What one part of the parse returns. */
enum {
	R_FAIL = -1,		/* S's error is set */
	R_NEED = 0,		/* needs input (or output room) */
	R_AGAIN = 1,		/* progress: go on */
	R_END = 2		/* the stream is over */
};

struct gz {
	bool zlib;		/* inflate with zlib, else ISA-L */
	enum gz_phase phase;
	enum gz_field field;
	unsigned char fixed[10];
	unsigned char two[2];	/* XLEN or HCRC */
	unsigned char trailer[8];
	size_t got;		/* bytes of the field or trailer so far */
	size_t skip;		/* FEXTRA bytes left */
	uint32_t hcrc;		/* CRC-32 of the header so far */
	uint32_t crc;		/* CRC-32 of the member's data */
	uint32_t isize;		/* its length, mod 2^32 */
	/*
	 * Bytes ISA-L read past the end of the deflate data (at most 8, the
	 * bits it buffers): the trailer's first bytes, parsed before S's.
	 */
	unsigned char back[8];
	size_t back_len, back_pos;
	z_stream z;
	bool z_ready;
	void *isal;		/* struct inflate_state */
};

static uint32_t
le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24;
}

static size_t
min_size(size_t a, size_t b)
{
	return a < b ? a : b;
}

/* The bytes to parse next, the pushed-back ones first.  Return: how many
 * there are at *P. */
static size_t
peek(const struct gz *g, const struct xtr_stream *s, const unsigned char **p)
{
	if (g->back_pos < g->back_len) {
		*p = g->back + g->back_pos;
		return g->back_len - g->back_pos;
	}
	*p = s->in;
	return s->in_len;
}

/* Consume N of the bytes peek() gave. */
static void
take(struct gz *g, struct xtr_stream *s, size_t n)
{
	if (g->back_pos < g->back_len) {
		g->back_pos += n;
		return;
	}
	s->in += n;
	s->in_len -= n;
}

/* Has the input ended, nothing pushed back left? */
static bool
at_end(const struct gz *g, const struct xtr_stream *s)
{
	return g->back_pos == g->back_len && s->in_len == 0 && s->in_end;
}

static int
truncated(struct xtr_stream *s)
{
	(void)xtr_stream_fail(s, EIO, "truncated gzip input");
	return R_FAIL;
}

/* --- inflating: ISA-L ----------------------------------------------------- */

#ifdef XTR_HAVE_ISAL

static bool
isal_built_in(void)
{
	return true;
}

/* The deflate stream is raw; ISA-L keeps the CRC-32 of what it wrote. */
static int
isal_begin(struct gz *g)
{
	struct inflate_state *st = malloc(sizeof(*st));

	if (st == NULL)
		return -1;
	isal_inflate_init(st);
	st->crc_flag = ISAL_GZIP_NO_HDR;
	g->isal = st;
	return 0;
}

static const char *
isal_error_text(int r)
{
	switch (r) {
	case ISAL_INVALID_BLOCK:
		return "invalid block type or lengths";
	case ISAL_INVALID_SYMBOL:
		return "invalid code";
	case ISAL_INVALID_LOOKBACK:
		return "invalid distance too far back";
	}
	return "invalid deflate data";
}

/*
 * At the end of the deflate data: keep the CRC-32, push back the whole
 * bytes ISA-L read beyond it (its bit buffer holds them; the odd bits
 * below them are the last byte's padding), and ready ISA-L for the next
 * member.
 */
static void
isal_member_end(struct gz *g, struct inflate_state *st)
{
	size_t i, n = (size_t)st->read_in_length / 8;
	unsigned int shift = (unsigned int)st->read_in_length % 8;

	g->crc = st->crc;
	for (i = 0; i < n; i++)
		g->back[i] = (unsigned char)(st->read_in >> (shift + 8 * i));
	g->back_len = n;
	g->back_pos = 0;
	isal_inflate_reset(st);
	st->crc_flag = ISAL_GZIP_NO_HDR;
}

/* Inflate what S allows.  Return: R_AGAIN, R_NEED or R_FAIL. */
static int
isal_run(struct gz *g, struct xtr_stream *s)
{
	struct inflate_state *st = g->isal;
	uint32_t in_n = (uint32_t)min_size(s->in_len, UINT32_MAX);
	uint32_t out_n = (uint32_t)min_size(s->out_len, UINT32_MAX);
	size_t used, made;
	int r;

	/* ISA-L never writes through next_in. */
	st->next_in = (uint8_t *)(uintptr_t)s->in;
	st->avail_in = in_n;
	st->next_out = s->out;
	st->avail_out = out_n;
	r = isal_inflate(st);
	used = in_n - st->avail_in;
	made = out_n - st->avail_out;
	s->in += used;
	s->in_len -= used;
	s->out += made;
	s->out_len -= made;
	g->isize += (uint32_t)made;
	if (r < 0) {
		(void)xtr_stream_fail(s, EILSEQ, "gzip decompression failed: "
		    "%s", isal_error_text(r));
		return R_FAIL;
	}
	if (st->block_state == ISAL_BLOCK_FINISH) {
		isal_member_end(g, st);
		g->phase = GZ_TRAILER;
		return R_AGAIN;
	}
	if (s->out_len == 0)
		return R_NEED;
	if (s->in_len == 0)
		return s->in_end ? truncated(s) : R_NEED;
	return R_AGAIN;
}

static void
isal_end(struct gz *g)
{
	free(g->isal);
}

#else /* !XTR_HAVE_ISAL: zlib does it all */

static bool
isal_built_in(void)
{
	return false;
}

static int
isal_begin(struct gz *g)
{
	(void)g;
	return -1;
}

static int
isal_run(struct gz *g, struct xtr_stream *s)
{
	(void)g;
	(void)xtr_stream_fail(s, EIO, "gzip decompression failed: built "
	    "without ISA-L");
	return R_FAIL;
}

static void
isal_end(struct gz *g)
{
	(void)g;
}

#endif /* XTR_HAVE_ISAL */

/* --- inflating: zlib ------------------------------------------------------ */

/* Inflate what S allows.  Return: R_AGAIN, R_NEED or R_FAIL. */
static int
zlib_run(struct gz *g, struct xtr_stream *s)
{
	uInt in_n = (uInt)min_size(s->in_len, UINT_MAX);
	uInt out_n = (uInt)min_size(s->out_len, UINT_MAX);
	size_t used, made;
	int r;

	g->z.next_in = s->in;
	g->z.avail_in = in_n;
	g->z.next_out = s->out;
	g->z.avail_out = out_n;
	r = inflate(&g->z, Z_NO_FLUSH);
	used = in_n - g->z.avail_in;
	made = out_n - g->z.avail_out;
	g->crc = (uint32_t)crc32(g->crc, s->out, (uInt)made);
	g->isize += (uint32_t)made;
	s->in += used;
	s->in_len -= used;
	s->out += made;
	s->out_len -= made;
	switch (r) {
	case Z_STREAM_END:
		if (inflateReset(&g->z) != Z_OK) {
			(void)xtr_stream_fail(s, EIO, "gzip decompression "
			    "failed: cannot reset zlib");
			return R_FAIL;
		}
		g->phase = GZ_TRAILER;
		return R_AGAIN;
	case Z_OK:
	case Z_BUF_ERROR:
		if (s->out_len == 0)
			return R_NEED;
		if (s->in_len == 0)
			return s->in_end ? truncated(s) : R_NEED;
		return R_AGAIN;
	case Z_MEM_ERROR:
		(void)xtr_stream_fail(s, ENOMEM, "gzip decompression failed: "
		    "%s", strerror(ENOMEM));
		return R_FAIL;
	}
	(void)xtr_stream_fail(s, EILSEQ, "gzip decompression failed: %s",
	    g->z.msg != NULL ? g->z.msg : "invalid deflate data");
	return R_FAIL;
}

/* --- the framing ---------------------------------------------------------- */

/* The field after F that the header's flags hold. */
static enum gz_field
next_field(const struct gz *g, enum gz_field f)
{
	unsigned int flg = g->fixed[3];

	if (f < F_XLEN && (flg & FEXTRA) != 0)
		return F_XLEN;
	if (f < F_NAME && (flg & FNAME) != 0)
		return F_NAME;
	if (f < F_COMMENT && (flg & FCOMMENT) != 0)
		return F_COMMENT;
	if (f < F_HCRC && (flg & FHCRC) != 0)
		return F_HCRC;
	return F_DONE;
}

/* The field being read is complete: check it, go to the next one.
 * Return: R_AGAIN or R_FAIL. */
static int
field_done(struct gz *g, struct xtr_stream *s)
{
	enum gz_field f = g->field;

	g->got = 0;
	switch (f) {
	case F_FIXED:
		if (g->fixed[0] != 0x1f || g->fixed[1] != 0x8b) {
			(void)xtr_stream_fail(s, EILSEQ, "gzip decompression "
			    "failed: not in gzip format");
			return R_FAIL;
		}
		if (g->fixed[2] != 8) {
			(void)xtr_stream_fail(s, EILSEQ, "gzip decompression "
			    "failed: unknown compression method %u",
			    g->fixed[2]);
			return R_FAIL;
		}
		if ((g->fixed[3] & 0xe0) != 0) {
			(void)xtr_stream_fail(s, EILSEQ, "gzip decompression "
			    "failed: reserved header flags set");
			return R_FAIL;
		}
		break;
	case F_XLEN:
		g->skip = (size_t)g->two[0] | (size_t)g->two[1] << 8;
		if (g->skip > 0) {
			g->field = F_EXTRA;
			return R_AGAIN;
		}
		f = F_EXTRA;
		break;
	case F_HCRC:
		if ((g->hcrc & 0xffff) != ((unsigned int)g->two[0] |
		    (unsigned int)g->two[1] << 8)) {
			(void)xtr_stream_fail(s, EILSEQ, "gzip decompression "
			    "failed: header CRC mismatch");
			return R_FAIL;
		}
		break;
	default:
		break;
	}
	g->field = next_field(g, f);
	return R_AGAIN;
}

/* Read the member's header.  Return: R_AGAIN (read), R_NEED, R_FAIL. */
static int
read_header(struct gz *g, struct xtr_stream *s)
{
	const unsigned char *p, *nul = NULL;
	bool complete = false;
	size_t n, k = 0;

	while (g->field != F_DONE) {
		n = peek(g, s, &p);
		if (n == 0)
			return at_end(g, s) ? truncated(s) : R_NEED;
		switch (g->field) {
		case F_FIXED:
			k = min_size(n, sizeof(g->fixed) - g->got);
			memcpy(g->fixed + g->got, p, k);
			complete = g->got + k == sizeof(g->fixed);
			break;
		case F_XLEN:
		case F_HCRC:
			k = min_size(n, sizeof(g->two) - g->got);
			memcpy(g->two + g->got, p, k);
			complete = g->got + k == sizeof(g->two);
			break;
		case F_EXTRA:
			k = min_size(n, g->skip);
			complete = k == g->skip;
			break;
		case F_NAME:
		case F_COMMENT:
			nul = memchr(p, 0, n);
			k = nul != NULL ? (size_t)(nul - p) + 1 : n;
			complete = nul != NULL;
			break;
		case F_DONE:
			break;
		}
		/* FHCRC covers every header byte before it. */
		if (g->field != F_HCRC)
			g->hcrc = (uint32_t)crc32(g->hcrc, p, (uInt)k);
		take(g, s, k);
		g->got += k;
		if (g->field == F_EXTRA)
			g->skip -= k;
		if (complete && field_done(g, s) == R_FAIL)
			return R_FAIL;
	}
	g->phase = GZ_DATA;
	g->crc = 0;
	g->isize = 0;
	return R_AGAIN;
}

/* Read and check the member's trailer.  Return: R_AGAIN, R_NEED, R_FAIL. */
static int
read_trailer(struct gz *g, struct xtr_stream *s)
{
	const unsigned char *p;
	size_t n, k;

	while (g->got < sizeof(g->trailer)) {
		n = peek(g, s, &p);
		if (n == 0)
			return at_end(g, s) ? truncated(s) : R_NEED;
		k = min_size(n, sizeof(g->trailer) - g->got);
		memcpy(g->trailer + g->got, p, k);
		take(g, s, k);
		g->got += k;
	}
	if (le32(g->trailer) != g->crc) {
		(void)xtr_stream_fail(s, EILSEQ, "gzip decompression failed: "
		    "CRC-32 mismatch: the data is corrupt");
		return R_FAIL;
	}
	if (le32(g->trailer + 4) != g->isize) {
		(void)xtr_stream_fail(s, EILSEQ, "gzip decompression failed: "
		    "length mismatch (ISIZE): the data is corrupt");
		return R_FAIL;
	}
	g->got = 0;
	g->phase = GZ_NEXT;
	return R_AGAIN;
}

/*
 * Between members: 1f 8b starts the next one, anything else (or
 * nothing) ends the stream.  Return: R_AGAIN, R_NEED or R_END.
 */
static int
next_member(struct gz *g, struct xtr_stream *s)
{
	static const unsigned char magic[2] = { 0x1f, 0x8b };
	const unsigned char *p;
	size_t n;

	n = peek(g, s, &p);
	if (n == 0)
		return at_end(g, s) ? R_END : R_NEED;
	if (p[0] != magic[g->phase == GZ_NEXT ? 0 : 1])
		return R_END;
	take(g, s, 1);
	if (g->phase == GZ_NEXT) {
		g->phase = GZ_NEXT2;
		return R_AGAIN;
	}
	memcpy(g->fixed, magic, sizeof(magic));
	g->got = sizeof(magic);
	g->hcrc = (uint32_t)crc32(0, magic, sizeof(magic));
	g->field = F_FIXED;
	g->phase = GZ_HEADER;
	return R_AGAIN;
}

static enum xtr_step
gz_step(void *state, struct xtr_stream *s)
{
	struct gz *g = state;
	int r = R_AGAIN;

	for (;;) {
		switch (g->phase) {
		case GZ_HEADER:
			r = read_header(g, s);
			break;
		case GZ_DATA:
			if (s->out_len == 0)
				return XTR_STEP_MORE;
			r = g->zlib ? zlib_run(g, s) : isal_run(g, s);
			break;
		case GZ_TRAILER:
			r = read_trailer(g, s);
			break;
		case GZ_NEXT:
		case GZ_NEXT2:
			r = next_member(g, s);
			break;
		}
		if (r == R_FAIL)
			return XTR_STEP_ERROR;
		if (r == R_END)
			return XTR_STEP_END;
		if (r == R_NEED)
			return XTR_STEP_MORE;
	}
}

static void
gz_destroy(void *state)
{
	struct gz *g = state;

	if (g->z_ready)
		(void)inflateEnd(&g->z);
	if (g->isal != NULL)
		isal_end(g);
	free(g);
}

static void *
gz_create(unsigned int flags, const struct xtr_dec_mem *mem, char *msg,
    size_t cap)
{
	struct gz *g = calloc(1, sizeof(*g));

	(void)mem;	/* a fixed 32 KiB window */
	if (g == NULL)
		goto nomem;
	g->phase = GZ_HEADER;
	g->field = F_FIXED;
	g->zlib = (flags & XTR_DEC_ZLIB) != 0 || !isal_built_in();
	if (!g->zlib) {
		if (isal_begin(g) < 0)
			goto nomem;
		return g;
	}
	/* Raw deflate: the framing is parsed here, for both inflaters. */
	if (inflateInit2(&g->z, -MAX_WBITS) != Z_OK)
		goto nomem;
	g->z_ready = true;
	return g;
nomem:
	if (g != NULL)
		gz_destroy(g);
	(void)snprintf(msg, cap, "cannot start the gzip decoder: %s",
	    strerror(ENOMEM));
	return NULL;
}

const struct xtr_codec_ops xtr_codec_gzip = {
	"gzip", gz_create, gz_step, gz_destroy
};
