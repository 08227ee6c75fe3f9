/*
 * decode_zstd.c -- zstd (RFC 8878) for the decoder thread (decode.h),
 * over any number of frames, skippable frames skipped, each frame's
 * checksum verified when it has one (the library's default).  A frame
 * decoded outside the ring (below) may not need more memory for its
 * window than the run's memory budget (struct xtr_dec_mem), which
 * bounds what a hostile header can make us take; it is refused before
 * anything is allocated, naming the budget.  Bytes after the last frame
 * that are no frame are an error, as they were with libarchive.
 *
 * A frame whose window fits in the decoder's ring (XTR_DEC_RING: windows
 * up to 4 MiB, zstd -1 to -16 without --long) is decoded block by block
 * straight into the ring, its window the ring's bytes behind the output
 * (libzstd's buffer-less API; decode.h says why they stay in place).
 * libzstd's streaming decoder would decode into a window of its own and
 * copy out of it: a copy of every byte, 13% of the decoder thread's time
 * on the Linux tree.  A frame with a larger window still gets the
 * streaming decoder, and its window is what the budget is asked for.
 *
 * The buffer-less API is in libzstd's "static linking only" section:
 * stable in practice, exported by the shared library, and checked at
 * build time against the libzstd it is built with.
 */
#define ZSTD_STATIC_LINKING_ONLY
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>
#include <zstd_errors.h>

#include "decode.h"

/* The largest piece the buffer-less decoder asks for: a whole block. */
#define ZS_STAGE ZSTD_BLOCKSIZE_MAX

_Static_assert(ZSTD_BLOCKSIZE_MAX <= XTR_DEC_NEED_MAX,
    "a zstd block must fit in the room a codec may ask for");

/* Where the decoder is in the input. */
enum zs_mode {
	ZS_HEAD,	/* between frames: gathering the next header */
	ZS_SKIP,	/* in a skippable frame's content */
	ZS_BLOCKS,	/* in a frame decoded in the ring */
	ZS_STREAM	/* in a frame decoded by the streaming decoder */
};

/* What a part of a step did. */
enum zs_go {
	ZS_GO,		/* went on: look again */
	ZS_WAIT,	/* needs input, or room (OUT_NEED) */
	ZS_DONE,	/* the input ended between two frames */
	ZS_FAIL		/* the stream's ERROR and MSG say why */
};

struct zs {
	ZSTD_DCtx *dc;		/* buffer-less, in the ring */
	ZSTD_DStream *ds;	/* streaming, made for the first frame
				   that needs it */
	enum zs_mode mode;
	ZSTD_frameHeader fh;	/* the frame's, from ZS_HEAD on */
	unsigned char *stage;	/* ZS_STAGE bytes: a header or a block
				   gathered across steps */
	size_t staged;		/* bytes in STAGE */
	size_t fed;		/* ZS_STREAM: of them, given to DS */
	size_t want;		/* ZS_HEAD: bytes the header needs so
				   far; ZS_SKIP: bytes left to skip */
	/*
	 * ZS_BLOCKS: where the frame's last block ended, NULL before the
	 * first.  A piece with no output (a header, the checksum) is given
	 * this as its output, so that libzstd never takes it for a break
	 * in the output, whose history it would then drop.
	 */
	unsigned char *out_end;
	uint64_t budget;	/* the memory budget, 0 for none */
};

static void
zs_destroy(void *state)
{
	struct zs *z = state;

	(void)ZSTD_freeDCtx(z->dc);
	(void)ZSTD_freeDStream(z->ds);
	free(z->stage);
	free(z);
}

static void *
zs_create(unsigned int flags, const struct xtr_dec_mem *mem, char *msg,
    size_t cap)
{
	struct zs *z;

	(void)flags;
	z = calloc(1, sizeof(*z));
	if (z == NULL)
		goto nomem;
	z->budget = mem->budget;
	z->mode = ZS_HEAD;
	z->want = 1;
	z->stage = malloc(ZS_STAGE);
	z->dc = ZSTD_createDCtx();
	if (z->stage == NULL || z->dc == NULL)
		goto nomem;
	return z;
nomem:
	if (z != NULL)
		zs_destroy(z);
	(void)snprintf(msg, cap, "cannot start the zstd decoder: %s",
	    strerror(ENOMEM));
	return NULL;
}

/* Fail S with libzstd's error R. */
static enum zs_go
zs_fail(struct xtr_stream *s, size_t r)
{
	switch (ZSTD_getErrorCode(r)) {
	case ZSTD_error_frameParameter_windowTooLarge:
		(void)xtr_stream_fail(s, ENOMEM, "zstd decompression failed: "
		    "a frame needs a window larger than libzstd decodes "
		    "(%u MiB)", (1u << (ZSTD_WINDOWLOG_MAX - 10)) >> 10);
		break;
	case ZSTD_error_memory_allocation:
		(void)xtr_stream_fail(s, ENOMEM, "zstd decompression failed: "
		    "%s", ZSTD_getErrorName(r));
		break;
	default:
		(void)xtr_stream_fail(s, EILSEQ, "zstd decompression failed: "
		    "%s", ZSTD_getErrorName(r));
		break;
	}
	return ZS_FAIL;
}

static enum zs_go
zs_truncated(struct xtr_stream *s)
{
	(void)xtr_stream_fail(s, EIO, "truncated zstd input");
	return ZS_FAIL;
}

/* Move up to N bytes of S's input to the end of the stage. */
static void
stage_input(struct zs *z, struct xtr_stream *s, size_t n)
{
	size_t k = n - z->staged;

	if (k > s->in_len)
		k = s->in_len;
	memcpy(z->stage + z->staged, s->in, k);
	z->staged += k;
	s->in += k;
	s->in_len -= k;
}

/*
 * The N bytes the buffer-less decoder wants next, in one piece: straight
 * from S's input when they are all there, else gathered in the stage
 * across steps.  Return: them (consumed), or NULL while more input is
 * needed (S's input is then used up).
 */
static const unsigned char *
take_input(struct zs *z, struct xtr_stream *s, size_t n)
{
	const unsigned char *p;

	if (z->staged == 0 && s->in_len >= n) {
		p = s->in;
		s->in += n;
		s->in_len -= n;
		return p;
	}
	stage_input(z, s, n);
	if (z->staged < n)
		return NULL;
	z->staged = 0;
	return z->stage;
}

/* Start the frame whose header (Z->fh) is staged, in the ring. */
static enum zs_go
begin_blocks(struct zs *z, struct xtr_stream *s)
{
	size_t off = 0, n, r;

	r = ZSTD_decompressBegin(z->dc);
	if (ZSTD_isError(r))
		return zs_fail(s, r);
	/* The header goes in the pieces libzstd asks for; no output. */
	while (off < z->staged) {
		n = ZSTD_nextSrcSizeToDecompress(z->dc);
		if (n == 0 || n > z->staged - off)
			return zs_fail(s, (size_t)-ZSTD_error_GENERIC);
		r = ZSTD_decompressContinue(z->dc, NULL, 0, z->stage + off,
		    n);
		if (ZSTD_isError(r))
			return zs_fail(s, r);
		off += n;
	}
	z->staged = 0;
	z->out_end = NULL;
	z->mode = ZS_BLOCKS;
	return ZS_GO;
}

/* Start the frame whose header is staged with the streaming decoder. */
static enum zs_go
begin_stream(struct zs *z, struct xtr_stream *s)
{
	size_t r;

	if (z->ds == NULL) {
		z->ds = ZSTD_createDStream();
		if (z->ds == NULL)
			return zs_fail(s,
			    (size_t)-ZSTD_error_memory_allocation);
		/* The budget was asked first (window_fits()). */
		r = ZSTD_DCtx_setParameter(z->ds, ZSTD_d_windowLogMax,
		    ZSTD_WINDOWLOG_MAX);
		if (ZSTD_isError(r))
			return zs_fail(s, r);
	}
	r = ZSTD_DCtx_reset(z->ds, ZSTD_reset_session_only);
	if (ZSTD_isError(r))
		return zs_fail(s, r);
	z->fed = 0;
	z->mode = ZS_STREAM;
	return ZS_GO;
}

/*
 * Whether the streaming decoder may take the memory the frame whose
 * header is Z->fh needs, its window mostly (what libzstd says it would
 * allocate, ZSTD_estimateDStreamSize()), from the budget; if not, fail S
 * naming the budget.  One frame at a time: the decoder is reused.
 */
static bool
window_fits(struct zs *z, struct xtr_stream *s)
{
	uint64_t need;

	if (z->fh.windowSize > (1ull << ZSTD_WINDOWLOG_MAX)) {
		(void)zs_fail(s,
		    (size_t)-ZSTD_error_frameParameter_windowTooLarge);
		return false;
	}
	need = ZSTD_estimateDStreamSize((size_t)z->fh.windowSize);
	if (z->budget == 0 || need <= z->budget)
		return true;
	(void)xtr_stream_fail(s, ENOMEM, "zstd decompression failed: a "
	    "frame's window of %" PRIu64 " MiB needs %" PRIu64 " MiB to "
	    "decode, more than the memory budget: limit max-memory=%" PRIu64
	    " (raise limits.max_memory, or set it to 0)",
	    (uint64_t)(z->fh.windowSize >> 20), (need + (1u << 20) - 1) >> 20,
	    z->budget);
	return false;
}

/*
 * Between frames: gather the next frame's header (libzstd says how many
 * bytes it needs, and refuses a wrong magic number from its first bytes
 * on), then choose how the frame is decoded.
 */
static enum zs_go
head_step(struct zs *z, struct xtr_stream *s)
{
	size_t r;

	if (z->staged == 0 && s->in_len == 0)
		return s->in_end ? ZS_DONE : ZS_WAIT;
	stage_input(z, s, z->want);
	r = ZSTD_getFrameHeader(&z->fh, z->stage, z->staged);
	if (ZSTD_isError(r))
		return zs_fail(s, r);
	if (r > 0) {
		if (r > ZS_STAGE)
			return zs_fail(s, (size_t)-ZSTD_error_GENERIC);
		if (z->staged < r && s->in_len == 0)
			return s->in_end ? zs_truncated(s) : ZS_WAIT;
		z->want = r;
		return ZS_GO;
	}
	z->want = 1;
	if (z->fh.frameType == ZSTD_skippableFrame) {
		z->staged = 0;
		z->want = (size_t)z->fh.frameContentSize;
		z->mode = ZS_SKIP;
		return ZS_GO;
	}
	/* Its window and a block being written must fit in the ring, with
	 * the slack its end may waste (decode.h): no memory of its own. */
	if (z->fh.windowSize + 2ull * z->fh.blockSizeMax <= XTR_DEC_RING)
		return begin_blocks(z, s);
	if (!window_fits(z, s))
		return ZS_FAIL;
	return begin_stream(z, s);
}

/* In a skippable frame: pass its content by. */
static enum zs_go
skip_step(struct zs *z, struct xtr_stream *s)
{
	size_t k;

	if (z->want > 0 && s->in_len == 0)
		return s->in_end ? zs_truncated(s) : ZS_WAIT;
	k = z->want < s->in_len ? z->want : s->in_len;
	s->in += k;
	s->in_len -= k;
	z->want -= k;
	if (z->want == 0)
		z->mode = ZS_HEAD;
	return ZS_GO;
}

/*
 * In a frame decoded in the ring: the next piece (a block header, a
 * block, the checksum), a block only with room for the largest one the
 * frame may hold, and never more: what it writes stays within what
 * decode.h keeps in place.
 */
static enum zs_go
block_step(struct zs *z, struct xtr_stream *s)
{
	const unsigned char *p;
	ZSTD_nextInputType_e type;
	unsigned char *out;
	size_t n, room = 0, r;

	n = ZSTD_nextSrcSizeToDecompress(z->dc);
	if (n == 0) {
		z->mode = ZS_HEAD;	/* the frame ended, verified */
		return ZS_GO;
	}
	if (n > ZS_STAGE)
		return zs_fail(s, (size_t)-ZSTD_error_corruption_detected);
	type = ZSTD_nextInputType(z->dc);
	out = z->out_end;
	if (type == ZSTDnit_block || type == ZSTDnit_lastBlock) {
		room = z->fh.blockSizeMax;
		if (s->out_len < room) {
			s->out_need = room;
			return ZS_WAIT;
		}
		out = s->out;
	}
	p = take_input(z, s, n);
	if (p == NULL)
		return s->in_end ? zs_truncated(s) : ZS_WAIT;
	r = ZSTD_decompressContinue(z->dc, out, room, p, n);
	if (ZSTD_isError(r))
		return zs_fail(s, r);
	if (room > 0) {
		s->out += r;
		s->out_len -= r;
		z->out_end = s->out;
	}
	return ZS_GO;
}

/*
 * In a frame too big for the ring: the streaming decoder, fed the staged
 * header first, until it says the frame ended and is flushed (it reads
 * nothing past a frame's end).
 */
static enum zs_go
stream_step(struct zs *z, struct xtr_stream *s)
{
	bool from_stage = z->fed < z->staged;
	ZSTD_inBuffer in;
	ZSTD_outBuffer out = { s->out, s->out_len, 0 };
	size_t r, in0;

	if (from_stage) {
		in.src = z->stage;
		in.size = z->staged;
		in.pos = z->fed;
	} else {
		in.src = s->in;
		in.size = s->in_len;
		in.pos = 0;
	}
	if (out.size == 0)
		return ZS_WAIT;
	/* Even with no input: what it decoded may wait to be flushed. */
	in0 = in.pos;
	r = ZSTD_decompressStream(z->ds, &out, &in);
	if (ZSTD_isError(r))
		return zs_fail(s, r);
	s->out += out.pos;
	s->out_len -= out.pos;
	if (from_stage) {
		z->fed = in.pos;
	} else {
		s->in += in.pos;
		s->in_len -= in.pos;
	}
	if (r == 0) {
		z->staged = z->fed = 0;
		z->mode = ZS_HEAD;
		return ZS_GO;
	}
	if (out.pos > 0 || in.pos > in0)
		return ZS_GO;
	if (in.pos == in.size && s->in_end)
		return zs_truncated(s);
	return ZS_WAIT;		/* input, or no progress: the decoder judges */
}

static enum xtr_step
zs_step(void *state, struct xtr_stream *s)
{
	struct zs *z = state;
	enum zs_go g;

	do {
		switch (z->mode) {
		case ZS_HEAD:
			g = head_step(z, s);
			break;
		case ZS_SKIP:
			g = skip_step(z, s);
			break;
		case ZS_BLOCKS:
			g = block_step(z, s);
			break;
		case ZS_STREAM:
		default:
			g = stream_step(z, s);
			break;
		}
	} while (g == ZS_GO);
	if (g == ZS_FAIL)
		return XTR_STEP_ERROR;
	return g == ZS_DONE ? XTR_STEP_END : XTR_STEP_MORE;
}

const struct xtr_codec_ops xtr_codec_zstd = {
	"zstd", zs_create, zs_step, zs_destroy
};
