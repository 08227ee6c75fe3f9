/*
 * decode_zstd.c -- zstd (RFC 8878) for the decoder thread (decode.h):
 * libzstd's streaming decoder, over any number of frames, skippable
 * frames skipped, each frame's checksum verified when it has one (the
 * library's default).  A frame may not ask for a window larger than
 * XTR_ZSTD_WINDOW_LOG_MAX, which bounds the memory a hostile header can
 * make us take.  Bytes after the last frame that are no frame are an
 * error, as they were with libarchive.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>
#include <zstd_errors.h>

#include "decode.h"

struct zs {
	ZSTD_DStream *ds;
	/*
	 * libzstd's last answer that made progress: 0 when a frame ended
	 * and was flushed (between frames), else more is to come.
	 */
	size_t last;
};

static void
zs_destroy(void *state)
{
	struct zs *z = state;

	(void)ZSTD_freeDStream(z->ds);
	free(z);
}

static void *
zs_create(unsigned int flags, char *msg, size_t cap)
{
	struct zs *z;
	size_t r;

	(void)flags;
	z = calloc(1, sizeof(*z));
	if (z == NULL)
		goto nomem;
	z->last = 1;		/* no frame yet */
	z->ds = ZSTD_createDStream();
	if (z->ds == NULL)
		goto nomem;
	r = ZSTD_DCtx_setParameter(z->ds, ZSTD_d_windowLogMax,
	    XTR_ZSTD_WINDOW_LOG_MAX);
	if (ZSTD_isError(r)) {
		(void)snprintf(msg, cap, "cannot start the zstd decoder: %s",
		    ZSTD_getErrorName(r));
		zs_destroy(z);
		return NULL;
	}
	return z;
nomem:
	if (z != NULL)
		zs_destroy(z);
	(void)snprintf(msg, cap, "cannot start the zstd decoder: %s",
	    strerror(ENOMEM));
	return NULL;
}

/* Fail S with libzstd's error R. */
static enum xtr_step
zs_fail(struct xtr_stream *s, size_t r)
{
	switch (ZSTD_getErrorCode(r)) {
	case ZSTD_error_frameParameter_windowTooLarge:
		return xtr_stream_fail(s, ENOMEM, "zstd decompression failed: "
		    "a frame needs a window larger than %u MiB",
		    (1u << XTR_ZSTD_WINDOW_LOG_MAX) >> 20);
	case ZSTD_error_memory_allocation:
		return xtr_stream_fail(s, ENOMEM, "zstd decompression failed: "
		    "%s", ZSTD_getErrorName(r));
	default:
		break;
	}
	return xtr_stream_fail(s, EILSEQ, "zstd decompression failed: %s",
	    ZSTD_getErrorName(r));
}

static enum xtr_step
zs_step(void *state, struct xtr_stream *s)
{
	struct zs *z = state;
	ZSTD_inBuffer in = { s->in, s->in_len, 0 };
	ZSTD_outBuffer out = { s->out, s->out_len, 0 };
	size_t r, pin, pout;

	while (out.pos < out.size) {
		/* Between frames with no input: nothing is pending. */
		if (in.pos == in.size && z->last == 0)
			break;
		pin = in.pos;
		pout = out.pos;
		r = ZSTD_decompressStream(z->ds, &out, &in);
		if (ZSTD_isError(r))
			return zs_fail(s, r);
		if (in.pos == pin && out.pos == pout)
			break;
		z->last = r;
	}
	s->in += in.pos;
	s->in_len -= in.pos;
	s->out += out.pos;
	s->out_len -= out.pos;
	if (s->in_len > 0 || !s->in_end || s->out_len == 0)
		return XTR_STEP_MORE;
	/* The input is over and there was room: a frame cut short? */
	if (z->last != 0)
		return xtr_stream_fail(s, EIO, "truncated zstd input");
	return XTR_STEP_END;
}

const struct xtr_codec_ops xtr_codec_zstd = {
	"zstd", zs_create, zs_step, zs_destroy
};
