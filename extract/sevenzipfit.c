/*
 * sevenzipfit.c -- whether what libarchive's 7z reader would hold for a
 * 7z input's header fits in the memory budget (sevenzipfit.h).
 *
 * SECURITY: libarchive decodes a 7z's header and allocates a record for
 * every file, folder and stream it lists before it gives the first entry,
 * inside archive_read_next_header(), where no budget of ours is asked:
 * a 505-byte archive listing 20 million files held 1.7 GB, and 100
 * million, libarchive's most, would hold 9 GB.  The decoder process's
 * RLIMIT_DATA stops that; in a process of its own (no sandbox) nothing
 * did.  So the signature is looked for where libarchive's bidder looks
 * (at the start, or in a self-extractor's range), the next header read,
 * an encoded one decoded (stored, LZMA, LZMA2: what 7-Zip and libarchive
 * write), and the counts read from it (sevenzip.c); a header that cannot
 * be read so is costed as if every bit of it listed a file.  Read through
 * the descriptor or buffer libarchive is given, never by name again; only
 * a regular file or a buffer, and the caller enables libarchive's 7z
 * reader for such an input alone (reader.c, fits_7z()): libarchive lists
 * a header it finds in a pipe or behind a compression too, before it
 * finds it cannot seek to the data.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lzma.h>

#include "sevenzip.h"
#include "sevenzipfit.h"

/* The input, read at offsets from BASE: a buffer, or FD; LEN bytes. */
struct src {
	const unsigned char *buf;
	uint64_t len;
	int fd;
	off_t base;
};

/* Read LEN bytes at OFF into OUT.  Return: whether all were read. */
static bool
src_read(const struct src *s, uint64_t off, void *out, size_t len)
{
	size_t got = 0;
	ssize_t n;

	if (off > s->len || len > s->len - off)
		return false;
	if (s->buf != NULL) {
		memcpy(out, s->buf + off, len);
		return true;
	}
	while (got < len) {
		n = pread(s->fd, (char *)out + got, len - got,
		    s->base + (off_t)(off + got));
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		got += (size_t)n;
	}
	return true;
}

/*
 * Decode the LEN packed bytes IN of coding C into OUT (C->size bytes, at
 * most BUDGET), liblzma's own memory within BUDGET too.
 * Return: whether all of OUT was.
 */
static bool
decode(const struct xtr_7z_coding *c, const unsigned char *in, size_t len,
    unsigned char *out, uint64_t budget)
{
	static const unsigned char lzma1[3] = { 3, 1, 1 };
	lzma_stream s = LZMA_STREAM_INIT;
	lzma_options_lzma *opts;
	lzma_filter f[2];
	lzma_ret r;
	size_t size = (size_t)c->size, left;
	bool ok;

	if (c->method_len == 1 && c->method[0] == 0) {	/* stored */
		if (len < size)
			return false;
		memcpy(out, in, size);
		return true;
	}
	memset(f, 0, sizeof(f));
	if (c->method_len == 3 && memcmp(c->method, lzma1, 3) == 0)
		f[0].id = LZMA_FILTER_LZMA1;
	else if (c->method_len == 1 && c->method[0] == 0x21)
		f[0].id = LZMA_FILTER_LZMA2;
	else
		return false;
	f[1].id = LZMA_VLI_UNKNOWN;
	if (lzma_properties_decode(&f[0], NULL, c->props, c->props_len) !=
	    LZMA_OK)
		return false;
	/* A dictionary larger than all the output is never reached back
	 * into: the decoder needs no more than the header's size. */
	opts = f[0].options;
	if (opts->dict_size > size)
		opts->dict_size = size < LZMA_DICT_SIZE_MIN ?
		    LZMA_DICT_SIZE_MIN : (uint32_t)size;
	if (budget != 0 && lzma_raw_decoder_memusage(f) > budget) {
		free(f[0].options);
		return false;
	}
	r = lzma_raw_decoder(&s, f);
	free(f[0].options);
	if (r != LZMA_OK)
		return false;
	s.next_in = in;
	s.avail_in = len;
	s.next_out = out;
	s.avail_out = size;
	do {
		left = s.avail_out;
		r = lzma_code(&s, LZMA_FINISH);
	} while (r == LZMA_OK && s.avail_out > 0 && s.avail_out < left);
	ok = s.avail_out == 0;
	lzma_end(&s);
	return ok;
}

/*
 * What libarchive would hold for the encoded header P (N bytes) of the
 * 7z whose signature header ends at SIG_END: what the description of its
 * storage takes, or the header it decodes to.  Return: the bytes.
 */
static uint64_t
encoded_cost(const struct src *s, uint64_t sig_end, const unsigned char *p,
    size_t n, uint64_t budget)
{
	struct xtr_7z_coding c;
	unsigned char *packed = NULL, *out = NULL;
	uint64_t cost;

	if (xtr_7z_encoding(p, n, &c) != 0 || c.cost > budget ||
	    c.size == 0)
		return c.cost;
	/* SECURITY: libarchive holds no less than three times the decoded
	 * header (xtr_7z_header_cost()).  A header past a third of the
	 * budget is refused undecoded: decoding it here, into a buffer as
	 * large and with a dictionary as large, would itself hold up to
	 * twice the budget (8.6 KB of 7z held 120 MB under 64M). */
	if (c.size > budget / 3)
		return c.size > UINT64_MAX / 3 ? UINT64_MAX : 3 * c.size;
	cost = xtr_7z_cost_bound(c.size);
	if (c.one_coder && c.packed_len <= budget &&
	    sig_end <= UINT64_MAX - c.packed_at) {
		packed = malloc(c.packed_len + 1);
		out = malloc(c.size);
		if (packed != NULL && out != NULL &&
		    src_read(s, sig_end + c.packed_at, packed, c.packed_len) &&
		    decode(&c, packed, c.packed_len, out, budget))
			cost = xtr_7z_header_cost(out, c.size);
		free(packed);
		free(out);
	}
	return cost > c.cost ? cost : c.cost;
}

/*
 * What libarchive would hold for the header of the 7z whose signature
 * header S holds at AT.  SECURITY: libarchive reads a plain header as it
 * parses it, and allocates for each count as it meets it: a header cut
 * short by the end of the input (its length in the signature header
 * past it) is listed as far as it goes before libarchive finds it short.
 * So what the input holds of the header is costed, a header cut short
 * as one this parser does not follow whole.  Return: the bytes (0:
 * nothing to hold, or a header that starts past the input's end, which
 * libarchive cannot read either).
 */
static uint64_t
header_cost(const struct src *s, uint64_t at, uint64_t budget)
{
	unsigned char sig[XTR_7Z_SIG_LEN], *p;
	uint64_t off, len, end = at + XTR_7Z_SIG_LEN, cost, n;

	if (!src_read(s, at, sig, sizeof(sig)) ||
	    !xtr_7z_signature(sig, &off, &len) || len == 0)
		return 0;
	if (len > budget)
		return len;	/* held whole */
	if (off > UINT64_MAX - end || end + off >= s->len)
		return 0;
	n = s->len - (end + off) < len ? s->len - (end + off) : len;
	p = malloc(n);
	if (p == NULL)
		return len;
	if (!src_read(s, end + off, p, n))
		cost = xtr_7z_cost_bound(n);
	else if (p[0] == 0x01)
		cost = xtr_7z_header_cost(p, n);
	else
		cost = encoded_cost(s, end, p, n, budget);
	free(p);
	return cost;
}

/* Do the 4 bytes at P start a PE or ELF program (a self-extractor)? */
static bool
is_program(const unsigned char *p)
{
	return memcmp(p, "MZ", 2) == 0 || memcmp(p, "\177ELF", 4) == 0;
}

/*
 * What libarchive would hold for the 7z its bidder finds in S, whose
 * first bytes are HEAD: at the start, or in a self-extractor (one that
 * starts as a PE or ELF program) the first signature of its range whose
 * CRC holds, as the bidder and the reader look for it (a later one is
 * never read: costing each would cost O(signatures x header)).
 */
static uint64_t
first_cost(const struct src *s, const unsigned char *head, uint64_t budget)
{
	enum { SPAN = XTR_7Z_SFX_MAX - XTR_7Z_SFX_MIN + XTR_7Z_SIG_LEN };
	unsigned char *w;
	uint64_t cost = 0, off, len;
	size_t i, n;

	if (!is_program(head))
		return header_cost(s, 0, budget);
	w = malloc(SPAN);
	if (w == NULL)
		return 0;
	/* A shorter input: as much of the range as it holds. */
	n = s->len <= XTR_7Z_SFX_MIN ? 0 : s->len - XTR_7Z_SFX_MIN < SPAN ?
	    (size_t)(s->len - XTR_7Z_SFX_MIN) : SPAN;
	if (!src_read(s, XTR_7Z_SFX_MIN, w, n))
		n = 0;
	for (i = 0; i + XTR_7Z_SIG_LEN <= n; i++)
		if (xtr_7z_signature(w + i, &off, &len)) {
			cost = header_cost(s, XTR_7Z_SFX_MIN + i, budget);
			break;
		}
	free(w);
	return cost;
}

/* see sevenzipfit.h */
int
xtr_7z_fits(const void *buf, size_t len, int fd, off_t base,
    uint64_t budget, char *msg, size_t cap)
{
	struct src s = { buf, len, fd, base < 0 ? 0 : base };
	unsigned char head[XTR_7Z_MAGIC_LEN];
	struct stat st;
	uint64_t cost;

	/* A FIFO read twice would lose what was read; a device's size is
	 * not its st_size. */
	if (buf == NULL) {
		if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
		    st.st_size < s.base)
			return 0;
		s.len = (uint64_t)(st.st_size - s.base);
	}
	if (!src_read(&s, 0, head, sizeof(head)) ||
	    (!xtr_7z_magic(head) && !is_program(head)))
		return 0;
	cost = budget == 0 ? 0 : first_cost(&s, head, budget);
	if (cost <= budget)
		return 1;
	/* sevenzip.c's word for a folder no coder makes. */
	if (cost == UINT64_MAX) {
		(void)snprintf(msg, cap, "limit max-memory=%llu reached: this "
		    "7z archive's header lists a folder of more streams than "
		    "any coder makes, on which libarchive's time grows as "
		    "their square (raise limits.max_memory, or set it to 0)",
		    (unsigned long long)budget);
		return -EFBIG;
	}
	(void)snprintf(msg, cap, "limit max-memory=%llu reached: libarchive "
	    "would hold about %llu MiB for this 7z archive's header (a "
	    "record for each file, folder and stream it lists) before its "
	    "first entry (raise limits.max_memory, or set it to 0)",
	    (unsigned long long)budget, (unsigned long long)(cost >> 20));
	return -EFBIG;
}
