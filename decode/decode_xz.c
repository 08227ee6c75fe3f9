/*
 * decode_xz.c -- xz for the decoder thread (decode.h): liblzma's threaded
 * decoder, over concatenated streams and their padding, within the
 * memory the caller gives it (struct xtr_dec_mem, decode.h).  Blocks
 * whose headers hold their sizes (xz -T writes them) decode in parallel
 * on as many threads as the budget's share for threads allows, the CPUs
 * permitting; liblzma takes fewer where blocks are large, down to the
 * decoder thread alone, and a stream of one block (xz without -T) has
 * nothing to decode in parallel.  Only a stream whose one thread needs
 * more than the whole budget is refused, naming the budget.  Every
 * block's check (CRC-32, CRC-64, SHA-256) is verified; a check liblzma
 * cannot verify is an error rather than a silent pass (libarchive let it
 * pass).  Errors are reported in stream order (no LZMA_FAIL_FAST), so a
 * damaged archive yields the same output every run.
 */
#define _DEFAULT_SOURCE	/* MAP_ANONYMOUS */
#include <sys/mman.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lzma.h>

#include "decode.h"

struct xz {
	lzma_stream strm;
	bool ready;
	uint64_t budget;	/* named when a stream needs more */
};

/*
 * liblzma's large buffers (a block's input and output, a dictionary)
 * come from mmap(2) and go back with munmap(2).  From malloc(3), the
 * freed ones stayed in the allocator's heaps (glibc raises its mmap
 * threshold to the size of the first one freed), and the decoder
 * process held 159 MiB with the threads' 128 MiB in use.  Each
 * allocation starts with its header: its length, and whether it was
 * mapped.
 */
#define XZ_MAP_MIN (256u * 1024)

/* Mappings given huge pages: those that can hold one (xz_huge()). */
#define XZ_HUGE_MIN (2u * 1024 * 1024)

struct xz_chunk {
	size_t len;
	size_t mapped;
};

/*
 * Back a mapping of N bytes at P with huge pages where it holds one (2
 * MiB on x86-64; Linux's "madvise" mode of transparent huge pages, the
 * common default, gives them only to mappings that ask).  Each block's
 * buffers are mapped, filled and unmapped again: one page fault per 4
 * KiB page, 104,000 more on linux.tar.xz threaded than on one thread.
 * Pages are faulted in as they are touched, a huge one whole, so a
 * buffer holds at most 2 MiB more than it touched.  Advice only: a
 * kernel without it, or a refusal, leaves the small pages.
 */
static void
xz_huge(void *p, size_t n)
{
#ifdef MADV_HUGEPAGE
	if (n >= XZ_HUGE_MIN)
		(void)madvise(p, n, MADV_HUGEPAGE);
#else
	(void)p;
	(void)n;
#endif
}

static void *
xz_alloc(void *opaque, size_t nmemb, size_t size)
{
	struct xz_chunk *c;
	size_t n;

	(void)opaque;
	if (size != 0 && nmemb > (SIZE_MAX - sizeof(*c)) / size)
		return NULL;
	n = nmemb * size + sizeof(*c);
#ifdef MAP_ANONYMOUS
	if (n >= XZ_MAP_MIN) {
		void *p;

		/* Whole huge pages: Linux then places the mapping on a
		 * huge page's boundary, and none of it is left to small
		 * pages at its ends. */
		if (n >= XZ_HUGE_MIN && n <= SIZE_MAX - XZ_HUGE_MIN)
			n = (n + XZ_HUGE_MIN - 1) & ~(size_t)(XZ_HUGE_MIN - 1);
		p = mmap(NULL, n, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return NULL;
		xz_huge(p, n);
		c = p;
		c->len = n;
		c->mapped = 1;
		return c + 1;
	}
#endif
	c = malloc(n);
	if (c == NULL)
		return NULL;
	c->len = n;
	c->mapped = 0;
	return c + 1;
}

static void
xz_free(void *opaque, void *p)
{
	struct xz_chunk *c;

	(void)opaque;
	if (p == NULL)
		return;
	c = (struct xz_chunk *)p - 1;
	if (c->mapped)
		(void)munmap(c, c->len);
	else
		free(c);
}

static const lzma_allocator xz_allocator = { xz_alloc, xz_free, NULL };

static void
xz_destroy(void *state)
{
	struct xz *x = state;

	if (x->ready)
		lzma_end(&x->strm);
	free(x);
}

static void *
xz_create(unsigned int flags, const struct xtr_dec_mem *mem, char *msg,
    size_t cap)
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
	x->strm.allocator = &xz_allocator;
	memset(&mt, 0, sizeof(mt));
	mt.flags = LZMA_CONCATENATED | LZMA_TELL_UNSUPPORTED_CHECK;
	/* The caller counted the CPUs (affinity, cgroup quota), which
	 * lzma_cputhreads() does not. */
	mt.threads = mem->threads < 1 ? 1 : mem->threads;
	mt.timeout = 0;		/* block until there is output */
	/* Past THREADING liblzma waits for a thread to finish before it
	 * starts the next block, and a block that needs more than all of
	 * it decodes on this thread alone; only past the stop does it
	 * refuse (LZMA_MEMLIMIT_ERROR). */
	mt.memlimit_threading = mem->threading;
	mt.memlimit_stop = mem->budget != 0 ? mem->budget : UINT64_MAX;
	x->budget = mem->budget;
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
		/* The threaded decoder does not say what the refused block
		 * needs (lzma_memusage() gives its base then). */
		return xtr_stream_fail(s, ENOMEM, "xz decompression failed: "
		    "the stream needs more memory to decode on one thread "
		    "than the memory budget: limit max-memory=%" PRIu64
		    " (a hostile dictionary size?  raise limits.max_memory, "
		    "or set it to 0)", x->budget);
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
