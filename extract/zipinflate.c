/*
 * zipinflate.c -- a zip member's raw deflate data, inflated by ISA-L's
 * igzip where it is built in (decode.h's XTR_HAVE_ISAL), by zlib
 * otherwise or when asked; the CRC-32 of what was made kept as it goes.
 * The two give the same bytes and the same verdicts (tests/test_zip.c).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define ZLIB_CONST
#include <zlib.h>

#include "decode.h"
#include "zip.h"

#ifdef XTR_HAVE_ISAL
#include <isa-l/crc.h>
#include <isa-l/igzip_lib.h>
#endif

struct zip_inflate {
	bool zlib;
	uint32_t crc;		/* zlib's; ISA-L keeps its own */
	z_stream z;
#ifdef XTR_HAVE_ISAL
	struct inflate_state st;
#endif
};

/* see zip.h */
uint32_t
zip_crc32(uint32_t crc, const void *p, size_t len)
{
#ifdef XTR_HAVE_ISAL
	return crc32_gzip_refl(crc, p, (uint64_t)len);
#else
	while (len > 0) {
		uInt n = len > (1u << 30) ? 1u << 30 : (uInt)len;

		crc = (uint32_t)crc32(crc, p, n);
		p = (const unsigned char *)p + n;
		len -= n;
	}
	return crc;
#endif
}

/* see zip.h */
struct zip_inflate *
zip_inflate_new(bool zlib)
{
	struct zip_inflate *zi = calloc(1, sizeof(*zi));

	if (zi == NULL)
		return NULL;
#ifdef XTR_HAVE_ISAL
	zi->zlib = zlib;
#else
	(void)zlib;
	zi->zlib = true;
#endif
	if (zi->zlib && inflateInit2(&zi->z, -MAX_WBITS) != Z_OK) {
		free(zi);
		return NULL;
	}
	zip_inflate_reset(zi);
	return zi;
}

/* see zip.h */
void
zip_inflate_free(struct zip_inflate *zi)
{
	if (zi == NULL)
		return;
	if (zi->zlib)
		(void)inflateEnd(&zi->z);
	free(zi);
}

/* see zip.h */
void
zip_inflate_reset(struct zip_inflate *zi)
{
	zi->crc = 0;
	if (zi->zlib) {
		(void)inflateReset(&zi->z);
		return;
	}
#ifdef XTR_HAVE_ISAL
	isal_inflate_init(&zi->st);
	zi->st.crc_flag = ISAL_GZIP_NO_HDR;
#endif
}

/* see zip.h */
uint32_t
zip_inflate_crc(const struct zip_inflate *zi)
{
#ifdef XTR_HAVE_ISAL
	if (!zi->zlib)
		return zi->st.crc;
#endif
	return zi->crc;
}

static int
run_zlib(struct zip_inflate *zi, const unsigned char **in, size_t *in_len,
    unsigned char **out, size_t *out_len, bool *done)
{
	uInt ni = *in_len > UINT32_MAX ? UINT32_MAX : (uInt)*in_len;
	uInt no = *out_len > UINT32_MAX ? UINT32_MAX : (uInt)*out_len;
	size_t used, made;
	int r;

	zi->z.next_in = *in;
	zi->z.avail_in = ni;
	zi->z.next_out = *out;
	zi->z.avail_out = no;
	r = inflate(&zi->z, Z_NO_FLUSH);
	used = ni - zi->z.avail_in;
	made = no - zi->z.avail_out;
	zi->crc = (uint32_t)crc32(zi->crc, *out, (uInt)made);
	*in += used;
	*in_len -= used;
	*out += made;
	*out_len -= made;
	*done = r == Z_STREAM_END;
	return r == Z_OK || r == Z_STREAM_END || r == Z_BUF_ERROR ? 0 : -1;
}

/* see zip.h */
int
zip_inflate_run(struct zip_inflate *zi, const unsigned char **in,
    size_t *in_len, unsigned char **out, size_t *out_len, bool *done)
{
#ifdef XTR_HAVE_ISAL
	struct inflate_state *st = &zi->st;
	uint32_t ni, no;
	size_t used, made, back;
	int r;

	if (zi->zlib)
		return run_zlib(zi, in, in_len, out, out_len, done);
	ni = *in_len > UINT32_MAX ? UINT32_MAX : (uint32_t)*in_len;
	no = *out_len > UINT32_MAX ? UINT32_MAX : (uint32_t)*out_len;
	/* ISA-L never writes through next_in. */
	st->next_in = (uint8_t *)(uintptr_t)*in;
	st->avail_in = ni;
	st->next_out = *out;
	st->avail_out = no;
	r = isal_inflate(st);
	used = ni - st->avail_in;
	made = no - st->avail_out;
	*done = r >= 0 && st->block_state == ISAL_BLOCK_FINISH;
	/* The whole bytes past the end that ISA-L holds in its bit
	 * buffer are not the stream's: given back. */
	back = *done ? (size_t)st->read_in_length / 8 : 0;
	if (back > used)
		back = used;
	*in += used - back;
	*in_len -= used - back;
	*out += made;
	*out_len -= made;
	return r < 0 ? -1 : 0;
#else
	return run_zlib(zi, in, in_len, out, out_len, done);
#endif
}
