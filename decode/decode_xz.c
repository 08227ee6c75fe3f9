/*
 * decode_xz.c -- xz for the decoder thread (decode.h): liblzma's threaded
 * decoder, over concatenated streams and their padding.  Blocks whose
 * headers hold their sizes (xz -T writes them) decode in parallel on up
 * to XTR_XZ_MAX_THREADS threads, as many as XTR_XZ_MEM_THREADING allows;
 * other streams decode on the decoder thread alone.  Every block's check
 * (CRC-32, CRC-64, SHA-256) is verified; a check liblzma cannot verify
 * is an error rather than a silent pass (libarchive let it pass).  A
 * stream that needs more than XTR_XZ_MEM_STOP is refused, with the
 * amount.  Errors are reported in stream order (no LZMA_FAIL_FAST), so a
 * damaged archive yields the same output every run.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lzma.h>

#include "decode.h"

struct xz {
	lzma_stream strm;
	bool ready;
};

static void
xz_destroy(void *state)
{
	struct xz *x = state;

	if (x->ready)
		lzma_end(&x->strm);
	free(x);
}

static void *
xz_create(unsigned int flags, char *msg, size_t cap)
{
	static const lzma_stream init = LZMA_STREAM_INIT;
	struct xz *x;
	lzma_mt mt;
	lzma_ret r;

	x = calloc(1, sizeof(*x));
	if (x == NULL) {
		(void)snprintf(msg, cap, "cannot start the xz decoder: %s",
		    strerror(ENOMEM));
		return NULL;
	}
	x->strm = init;
	memset(&mt, 0, sizeof(mt));
	mt.flags = LZMA_CONCATENATED | LZMA_TELL_UNSUPPORTED_CHECK;
	mt.threads = lzma_cputhreads();
	if (mt.threads == 0)
		mt.threads = 1;
	if (mt.threads > XTR_XZ_MAX_THREADS)
		mt.threads = XTR_XZ_MAX_THREADS;
	mt.timeout = 0;		/* block until there is output */
	mt.memlimit_threading = XTR_XZ_MEM_THREADING;
	mt.memlimit_stop = XTR_XZ_MEM_STOP;
	/* Inline (one CPU), no thread at all: liblzma's threaded decoder
	 * would start one even for one thread. */
	if ((flags & XTR_DEC_INLINE) != 0)
		r = lzma_stream_decoder(&x->strm, mt.memlimit_stop, mt.flags);
	else
		r = lzma_stream_decoder_mt(&x->strm, &mt);
	if (r != LZMA_OK) {
		(void)snprintf(msg, cap, "cannot start the xz decoder: "
		    "liblzma error %d", (int)r);
		free(x);
		return NULL;
	}
	x->ready = true;
	return x;
}

/* Fail S with liblzma's R. */
static enum xtr_step
xz_fail(struct xz *x, struct xtr_stream *s, lzma_ret r)
{
	switch (r) {
	case LZMA_MEMLIMIT_ERROR:
		return xtr_stream_fail(s, ENOMEM, "xz decompression failed: "
		    "the stream needs %llu MiB of memory to decode, more than "
		    "the %u MiB allowed (a hostile dictionary size?)",
		    (unsigned long long)(lzma_memusage(&x->strm) >> 20),
		    XTR_XZ_MEM_STOP >> 20);
	case LZMA_MEM_ERROR:
		return xtr_stream_fail(s, ENOMEM, "xz decompression failed: "
		    "%s", strerror(ENOMEM));
	case LZMA_UNSUPPORTED_CHECK:
		return xtr_stream_fail(s, EILSEQ, "xz decompression failed: "
		    "integrity check type %d is not supported, so the data "
		    "cannot be verified", (int)lzma_get_check(&x->strm));
	case LZMA_FORMAT_ERROR:
		return xtr_stream_fail(s, EILSEQ, "xz decompression failed: "
		    "not in xz format");
	case LZMA_OPTIONS_ERROR:
		return xtr_stream_fail(s, EILSEQ, "xz decompression failed: "
		    "unsupported options");
	case LZMA_DATA_ERROR:
		return xtr_stream_fail(s, EILSEQ, "xz decompression failed: "
		    "corrupt data (or an integrity check mismatch)");
	case LZMA_BUF_ERROR:
		if (s->in_end)
			return xtr_stream_fail(s, EIO, "truncated xz input");
		break;
	default:
		break;
	}
	return xtr_stream_fail(s, EIO, "xz decompression failed: liblzma "
	    "error %d", (int)r);
}

static enum xtr_step
xz_step(void *state, struct xtr_stream *s)
{
	struct xz *x = state;
	size_t used, made;
	lzma_ret r;

	x->strm.next_in = s->in;
	x->strm.avail_in = s->in_len;
	x->strm.next_out = s->out;
	x->strm.avail_out = s->out_len;
	/* With LZMA_CONCATENATED the end is only known once we say so. */
	r = lzma_code(&x->strm, s->in_end ? LZMA_FINISH : LZMA_RUN);
	used = s->in_len - x->strm.avail_in;
	made = s->out_len - x->strm.avail_out;
	s->in += used;
	s->in_len -= used;
	s->out += made;
	s->out_len -= made;
	if (r == LZMA_OK)
		return XTR_STEP_MORE;
	if (r == LZMA_STREAM_END)
		return XTR_STEP_END;
	return xz_fail(x, s, r);
}

const struct xtr_codec_ops xtr_codec_xz = {
	"xz", xz_create, xz_step, xz_destroy
};
