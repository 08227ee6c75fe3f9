/*
 * sevenzip.c -- what libarchive's 7z reader will hold for an archive's
 * header, read from the header itself before libarchive reads it
 * (sevenzip.h).
 *
 * libarchive (3.6) decodes a 7z's header whole and, before it gives the
 * first entry, allocates a record for every file (about 90 bytes), folder
 * and stream the header lists and fills it in.  A file takes as little as
 * one bit of the header (its "empty stream" flag), and LZMA shrinks such
 * a header a thousandfold: a 505-byte archive listing 20 million files
 * held 1.7 GB.  So the counts are read here, as libarchive's
 * read_StreamsInfo() and read_Header() read them, as far as the number
 * of files; a header this parser does not follow is costed as if every
 * bit of it were a file.  A pure parse of bounded buffers.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "sevenzip.h"

/* libarchive's bound on any count in a header (UMAX_ENTRY). */
#define MAX_COUNT 100000000u

/* What libarchive allocates for one file, folder, stream and packed
 * stream it reads of a header, rounded up (a record, its arrays, the
 * allocator's headers). */
#define COST_FILE 128u
#define COST_FOLDER 256u
#define COST_STREAM 16u
#define COST_PACK 16u
/* The most in or out streams of one folder's coders together: 7-Zip's
 * largest folder, BCJ2's, has 7 in and 4 out. */
#define FOLDER_STREAMS_MAX 32u

enum {
	K_END = 0x00, K_HEADER = 0x01, K_ARCHIVE_PROPERTIES = 0x02,
	K_ADDITIONAL_STREAMS = 0x03, K_MAIN_STREAMS = 0x04,
	K_FILES_INFO = 0x05, K_PACK_INFO = 0x06, K_UNPACK_INFO = 0x07,
	K_SUBSTREAMS_INFO = 0x08, K_SIZE = 0x09, K_CRC = 0x0a,
	K_FOLDER = 0x0b, K_CODERS_UNPACK_SIZE = 0x0c,
	K_NUM_UNPACK_STREAM = 0x0d, K_ENCODED_HEADER = 0x17
};

/* A read of a header; BAD once it ran out or met what it does not
 * follow, and from then on every read gives 0. */
struct cur {
	const unsigned char *p;
	size_t n;
	bool bad;
};

/* The counts libarchive allocates by, and what an encoded header needs. */
struct counts {
	uint64_t files, folders, streams, packs;
	bool absurd;	/* a folder no coder makes: refused at any cost */
	struct xtr_7z_coding *coding;	/* or NULL: a plain header */
};

/* see sevenzip.h */
bool
xtr_7z_magic(const unsigned char *p)
{
	static const unsigned char magic[6] = { '7', 'z', 0xbc, 0xaf, 0x27,
	    0x1c };

	return memcmp(p, magic, sizeof(magic)) == 0;
}

/* see sevenzip.h */
bool
xtr_7z_signature(const unsigned char *p, uint64_t *off, uint64_t *len)
{
	uint32_t crc;
	int i;

	/* SECURITY: no version is asked: libarchive reads a header whatever
	 * its version bytes say, and a fitter that passed over a version
	 * it did not know let libarchive list the header unchecked. */
	if (!xtr_7z_magic(p))
		return false;
	crc = (uint32_t)p[8] | (uint32_t)p[9] << 8 | (uint32_t)p[10] << 16 |
	    (uint32_t)p[11] << 24;
	if ((uint32_t)crc32(0, p + 12, 20) != crc)
		return false;
	*off = *len = 0;
	for (i = 7; i >= 0; i--) {
		*off = *off << 8 | p[12 + i];
		*len = *len << 8 | p[20 + i];
	}
	return true;
}

static unsigned char
byte(struct cur *c)
{
	if (c->bad || c->n == 0) {
		c->bad = true;
		return 0;
	}
	c->n--;
	return *c->p++;
}

static void
skip(struct cur *c, uint64_t k)
{
	if (c->bad || k > c->n) {
		c->bad = true;
		return;
	}
	c->p += k;
	c->n -= (size_t)k;
}

/* A 7z NUMBER: the first byte's leading ones say how many bytes follow. */
static uint64_t
number(struct cur *c)
{
	unsigned char first = byte(c), mask = 0x80;
	uint64_t v = 0;
	int i;

	for (i = 0; i < 8; i++) {
		if ((first & mask) == 0)
			return v | (uint64_t)(first & (mask - 1)) << (8 * i);
		v |= (uint64_t)byte(c) << (8 * i);
		mask >>= 1;
	}
	return v;
}

/* A count, held to libarchive's bound (past it, libarchive refuses). */
static uint64_t
count(struct cur *c)
{
	uint64_t v = number(c);

	if (v > MAX_COUNT)
		c->bad = true;
	return c->bad ? 0 : v;
}

/* COUNT digests: a vector of which are given (or all), then 4 bytes each. */
static void
digests(struct cur *c, uint64_t n)
{
	uint64_t given = n, i;
	unsigned char b = 0;

	if (byte(c) == 0) {
		given = 0;
		for (i = 0; i < n && !c->bad; i++) {
			if (i % 8 == 0)
				b = byte(c);
			given += (b >> (7 - i % 8)) & 1;
		}
	}
	skip(c, given * 4);
}

static void
pack_info(struct cur *c, struct counts *k)
{
	uint64_t pos, n, i, size;
	unsigned char t;

	pos = number(c);
	n = count(c);
	if (n == 0)
		c->bad = true;
	k->packs += n;
	if (k->coding != NULL)
		k->coding->packed_at = pos;
	t = byte(c);
	if (t == K_END || c->bad)
		return;
	if (t != K_SIZE) {
		c->bad = true;
		return;
	}
	for (i = 0; i < n && !c->bad; i++) {
		size = number(c);
		if (i == 0 && k->coding != NULL)
			k->coding->packed_len = size;
	}
	/* libarchive marks the digests kSize; the format, kCRC. */
	t = byte(c);
	if (t == K_END)
		return;
	if (t != K_CRC && t != K_SIZE)
		c->bad = true;
	digests(c, n);
	if (byte(c) != K_END)
		c->bad = true;
}

/* One folder; *OUTS: its out streams.  The first one's coder is kept in
 * K's coding when it is the folder's only one. */
static void
folder(struct cur *c, struct counts *k, bool first, uint64_t *outs)
{
	uint64_t coders, i, in = 0, out = 0, ni, no, len, packed;
	unsigned char flags;
	const unsigned char *id, *props = NULL;
	size_t id_len, props_len = 0;

	coders = number(c);
	if (coders > 4)
		c->bad = true;
	for (i = 0; i < coders && !c->bad; i++) {
		flags = byte(c);
		if ((flags & 0x80) != 0)
			c->bad = true;
		id = c->p;
		id_len = flags & 0x0f;
		skip(c, id_len);
		ni = no = 1;
		props = NULL;
		props_len = 0;
		if ((flags & 0x10) != 0) {
			ni = count(c);
			no = count(c);
		}
		if ((flags & 0x20) != 0) {
			len = count(c);
			props = c->p;
			props_len = len < 8 ? (size_t)len : 8;
			skip(c, len);
		}
		in += ni;
		out += no;
		if (first && k->coding != NULL && coders == 1 && ni == 1 &&
		    no == 1 && id_len <= sizeof(k->coding->method) &&
		    !c->bad) {
			memcpy(k->coding->method, id, id_len);
			k->coding->method_len = id_len;
			if (props != NULL)
				memcpy(k->coding->props, props, props_len);
			k->coding->props_len = props_len;
			k->coding->one_coder = true;
		}
	}
	if (out == 0 || in + 1 < out)
		c->bad = true;
	/*
	 * SECURITY: libarchive looks through every bind pair (OUT - 1) for
	 * each in stream, O(IN * OUT) from O(IN + OUT) bytes of header: 50 s
	 * of CPU for 2 MB.  No real coder comes near the bound.
	 */
	if (in > FOLDER_STREAMS_MAX || out > FOLDER_STREAMS_MAX) {
		k->absurd = true;
		c->bad = true;
	}
	for (i = 0; i + 1 < out && !c->bad; i++) {
		(void)count(c);
		(void)count(c);
	}
	packed = c->bad ? 0 : in - (out - 1);
	if (packed > MAX_COUNT)
		c->bad = true;
	for (i = 0; packed != 1 && i < packed && !c->bad; i++)
		(void)count(c);
	*outs = c->bad ? 0 : out;
}

/* Add B to *A, saturating. */
static void
add(uint64_t *a, uint64_t b)
{
	*a = *a > UINT64_MAX - b ? UINT64_MAX : *a + b;
}

/*
 * The coders' info: NF folders (*NF), each folder's count of unpack
 * streams 1 and whether it has a digest in *DIGESTED (NF bytes, at most
 * C's length: each folder takes a byte or more), allocated here.
 */
static void
unpack_info(struct cur *c, struct counts *k, uint64_t *nf,
    unsigned char **digested)
{
	uint64_t i, j, outs, total = 0, size;
	unsigned char t;

	*nf = 0;
	if (byte(c) != K_FOLDER)
		c->bad = true;
	*nf = count(c);
	if (byte(c) != 0)	/* external */
		c->bad = true;
	if (c->bad || *nf > c->n) {
		c->bad = true;
		*nf = 0;
		return;
	}
	k->folders += *nf;
	*digested = calloc(*nf + 1, 1);
	if (*digested == NULL) {
		c->bad = true;
		return;
	}
	for (i = 0; i < *nf && !c->bad; i++) {
		folder(c, k, i == 0, &outs);
		add(&total, outs);
	}
	if (byte(c) != K_CODERS_UNPACK_SIZE)
		c->bad = true;
	for (j = 0; j < total && !c->bad; j++) {
		size = number(c);
		if (k->coding != NULL)
			add(&k->coding->size, size);
	}
	if (k->coding != NULL && *nf != 1)
		k->coding->one_coder = false;
	t = byte(c);
	if (t == K_CRC) {
		uint64_t given = *nf;
		unsigned char b = 0;

		if (byte(c) == 0)
			for (i = 0, given = 0; i < *nf && !c->bad; i++) {
				if (i % 8 == 0)
					b = byte(c);
				(*digested)[i] = (b >> (7 - i % 8)) & 1;
				given += (*digested)[i];
			}
		else
			memset(*digested, 1, *nf);
		skip(c, given * 4);
		t = byte(c);
	}
	if (t != K_END)
		c->bad = true;
}

static void
substreams_info(struct cur *c, struct counts *k, uint64_t nf,
    const unsigned char *digested)
{
	uint64_t *per, i, j, streams = 0, ndig = 0;
	unsigned char t;

	per = calloc(nf + 1, sizeof(*per));
	if (per == NULL) {
		c->bad = true;
		return;
	}
	for (i = 0; i < nf; i++)
		per[i] = 1;
	t = byte(c);
	if (t == K_NUM_UNPACK_STREAM) {
		for (i = 0; i < nf && !c->bad; i++) {
			per[i] = count(c);
			add(&streams, per[i]);
		}
		t = byte(c);
	} else {
		streams = nf;
	}
	add(&k->streams, streams);
	if (t == K_SIZE) {
		for (i = 0; i < nf && !c->bad; i++)
			for (j = 1; j < per[i] && !c->bad; j++)
				(void)number(c);
		t = byte(c);
	}
	/* libarchive counts them in 32 bits, and reads that many. */
	for (i = 0; i < nf; i++)
		if (per[i] != 1 || digested == NULL || !digested[i])
			ndig = (uint32_t)(ndig + per[i]);
	if (t == K_CRC) {
		digests(c, ndig);
		t = byte(c);
	}
	if (t != K_END)
		c->bad = true;
	free(per);
}

/* A StreamsInfo, as libarchive's read_StreamsInfo() reads it. */
static void
streams_info(struct cur *c, struct counts *k)
{
	unsigned char *digested = NULL;
	uint64_t nf = 0;
	unsigned char t;

	t = byte(c);
	if (t == K_PACK_INFO) {
		pack_info(c, k);
		t = byte(c);
	}
	if (t == K_UNPACK_INFO) {
		unpack_info(c, k, &nf, &digested);
		t = byte(c);
	}
	if (t == K_SUBSTREAMS_INFO) {
		substreams_info(c, k, nf, digested);
		t = byte(c);
	}
	free(digested);
	if (t != K_END)
		c->bad = true;
}

/* see sevenzip.h */
uint64_t
xtr_7z_cost_bound(uint64_t n)
{
	uint64_t files = n > UINT64_MAX / 8 - 8 ? UINT64_MAX : n * 8 + 8;

	if (files > MAX_COUNT)
		files = MAX_COUNT;
	return n > (UINT64_MAX - files * COST_FILE) / 3 ? UINT64_MAX :
	    3 * n + files * COST_FILE;
}

/*
 * What K's counts make libarchive allocate for a header of N bytes: the
 * header, its names copied, and room, and a record for each file, folder,
 * stream and packed stream.  Where the parse went BAD, no less than
 * every bit of the header a file, and no less than the counts read
 * before: libarchive allocates as it reads.
 */
static uint64_t
cost_of(size_t n, const struct counts *k, bool bad)
{
	uint64_t bytes = 0, bound;

	if (k->absurd)
		return UINT64_MAX;	/* refused past any budget */
	/* Each count at most MAX_COUNT (streams, folders of them): no
	 * product overflows. */
	add(&bytes, n > UINT64_MAX / 3 ? UINT64_MAX : 3 * (uint64_t)n);
	add(&bytes, k->files * COST_FILE);
	add(&bytes, k->folders * COST_FOLDER);
	add(&bytes, k->streams > UINT64_MAX / COST_STREAM ? UINT64_MAX :
	    k->streams * COST_STREAM);
	add(&bytes, k->packs * COST_PACK);
	bound = xtr_7z_cost_bound(n);
	return bad && bound > bytes ? bound : bytes;
}

/* see sevenzip.h */
int
xtr_7z_encoding(const unsigned char *p, size_t n, struct xtr_7z_coding *c)
{
	struct cur cur = { p, n, false };
	struct counts k;

	memset(c, 0, sizeof(*c));
	memset(&k, 0, sizeof(k));
	if (n == 0 || p[0] != K_ENCODED_HEADER) {
		c->cost = xtr_7z_cost_bound(n);
		return -EILSEQ;
	}
	k.coding = c;
	skip(&cur, 1);
	streams_info(&cur, &k);
	if (k.folders == 0)
		cur.bad = true;
	c->cost = cost_of(n, &k, cur.bad);
	return cur.bad ? -EILSEQ : 0;
}

/* see sevenzip.h */
uint64_t
xtr_7z_header_cost(const unsigned char *p, size_t n)
{
	struct cur c = { p, n, false };
	struct counts k;
	unsigned char t;

	memset(&k, 0, sizeof(k));
	if (byte(&c) != K_HEADER)
		return cost_of(n, &k, true);
	t = byte(&c);
	/* Each property's size read, not what follows it: as libarchive
	 * reads them. */
	if (t == K_ARCHIVE_PROPERTIES) {
		while (!c.bad && byte(&c) != 0)
			(void)number(&c);
		t = byte(&c);
	}
	if (t == K_ADDITIONAL_STREAMS) {
		streams_info(&c, &k);
		t = byte(&c);
	}
	if (t == K_MAIN_STREAMS) {
		streams_info(&c, &k);
		t = byte(&c);
	}
	if (t == K_FILES_INFO)
		k.files = count(&c);
	else if (t != K_END)
		c.bad = true;
	return cost_of(n, &k, c.bad);
}
