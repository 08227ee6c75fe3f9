/*
 * floor.c -- decoding alone, for the efficiency bound of bench/run.sh:
 * how fast the best libraries turn a compressed archive back into its
 * tar stream on the CPUs available, with the output thrown away, and
 * what CPU time that takes.  An extractor cannot take less time than
 * the first, nor less CPU than the second.
 *
 * usage: floor [-j cpus] [-r rounds] file ...
 *
 * Every FILE must have the same format, found by its magic bytes: gzip,
 * zstd, xz or zip.  Each library that reads that format decodes all the files,
 * one after the other, ROUNDS times (default 1), on as many threads as
 * the format allows:
 *   gzip  isal (ISA-L's igzip, isal_inflate) and zlib (inflate): one
 *         thread, as a deflate stream cannot be split
 *   zstd  zstd (libzstd streaming): one thread, likewise
 *   xz    xz-mt (liblzma's threaded decoder, CPUS threads, with a
 *         generous memory limit: blocks decode in parallel where the
 *         stream has several and their sizes are in the headers) and
 *         xz-1 (its single-threaded one)
 *   zip   isal and zlib again, raw deflate, on CPUS threads: the members
 *         are compressed one by one and the central directory says where
 *         each starts, so the threads take the next member in turn; a
 *         stored member costs its CRC-32
 * CPUS is the -j argument, or the CPUs this process may run on (its
 * affinity, as nproc(1) counts them).  Multi-member gzip and
 * concatenated zstd frames and xz streams are read to the end.
 * Integrity checks are those of the libraries: the gzip CRC-32 and
 * length, the zstd frame checksum when present, the xz check; a zip
 * member's CRC-32 and size are checked against the central directory.  The files
 * are mapped and their pages touched before the clock starts; the output
 * goes to one reused buffer.
 *
 * Output, on standard output:
 *   format F files N in BYTES out BYTES cpus N
 *   LIB WALL CPU         one line per library: the medians over the rounds
 *                        of the wall time and of the CPU time (user + sys
 *                        of every thread), in seconds
 *   best LIB WALL CPU    the library with the least wall time
 *
 * Exit status: 0, 1 a file is corrupt or truncated or the libraries
 * disagree on its length, 2 usage, 3 a system error.
 */
/* sched_getaffinity(2) and CPU_COUNT are GNU's. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <isa-l/igzip_lib.h>
#include <lzma.h>
#include <zlib.h>
#include <zstd.h>

/* One output buffer, reused: large enough that each call does real work,
 * small enough to stay in cache. */
#define OUT_SIZE (1u << 20)

/* The most input handed to one call: ISA-L and zlib count in 32 bits. */
#define IN_CHUNK ((size_t)1 << 30)

/* A bound on -r, so the per-round times fit on the stack. */
#define MAX_ROUNDS 99

/* A bound on -j, far below liblzma's own (LZMA_THREADS_MAX). */
#define MAX_CPUS 1024

enum format { FMT_GZIP, FMT_ZSTD, FMT_XZ, FMT_ZIP, FMT_UNKNOWN };

static const char *const format_names[] = { "gzip", "zstd", "xz", "zip",
	"?" };

/* A mapped input file. */
struct input {
	const char *path;
	const unsigned char *p;
	size_t len;
};

/* A decoder: returns 0 and the decoded length, or -1 after a message. */
typedef int (*decode_fn)(const struct input *, unsigned char *, uint64_t *);

struct lib {
	const char *name;
	enum format fmt;
	decode_fn decode;
};

/* The threads a decoder that can use several may start: -j, or the CPUs
 * of this process's affinity. */
static unsigned int cpus;

static void
usage(void)
{
	fprintf(stderr, "usage: floor [-j cpus] [-r rounds] file ...\n");
	exit(2);
}

/* Print "floor: WHAT: strerror(ERR)" and exit 3. */
static void
die(const char *what, int err)
{
	fprintf(stderr, "floor: %s: %s\n", what, strerror(err));
	exit(3);
}

/* Say that library LIB failed on IN because of WHY; return -1. */
static int
bad(const struct input *in, const char *lib, const char *why)
{
	fprintf(stderr, "floor: %s: %s: %s\n", in->path, lib, why);
	return -1;
}

/* The number of input bytes to offer from POS on, at most IN_CHUNK. */
static size_t
chunk(const struct input *in, const unsigned char *pos)
{
	size_t left = in->len - (size_t)(pos - in->p);

	return left < IN_CHUNK ? left : IN_CHUNK;
}

/* True when POS starts another gzip member. */
static int
gzip_magic_at(const struct input *in, const unsigned char *pos)
{
	return chunk(in, pos) >= 2 && pos[0] == 0x1f && pos[1] == 0x8b;
}

/*
 * One gzip member at *POS with ISA-L, header and trailer checked
 * (ISAL_GZIP); *POS moves past it.  Return: 0, or -1 after a message.
 */
static int
isal_member(const struct input *in, const unsigned char **pos,
    unsigned char *out, uint64_t *total, struct inflate_state *st)
{
	int ret;

	isal_inflate_reset(st);
	st->crc_flag = ISAL_GZIP;
	st->next_in = (uint8_t *)(uintptr_t)*pos;
	while (st->block_state != ISAL_BLOCK_FINISH) {
		st->avail_in = (uint32_t)chunk(in, st->next_in);
		st->next_out = out;
		st->avail_out = OUT_SIZE;
		ret = isal_inflate(st);
		if (ret != ISAL_DECOMP_OK)
			return bad(in, "isal", ret == ISAL_INCORRECT_CHECKSUM ?
			    "checksum mismatch" : "corrupt data");
		*total += (uint64_t)(st->next_out - out);
		if (st->block_state != ISAL_BLOCK_FINISH &&
		    st->avail_in == 0 && st->avail_out == OUT_SIZE &&
		    chunk(in, st->next_in) == 0)
			return bad(in, "isal", "truncated");
	}
	*pos = st->next_in;
	return 0;
}

/* see "decode_fn" */
static int
dec_isal(const struct input *in, unsigned char *out, uint64_t *total)
{
	static struct inflate_state st;	/* 40 KiB: not on the stack */
	const unsigned char *pos = in->p;

	isal_inflate_init(&st);
	*total = 0;
	do {
		if (isal_member(in, &pos, out, total, &st) == -1)
			return -1;
	} while (gzip_magic_at(in, pos));
	if (chunk(in, pos) != 0)
		return bad(in, "isal", "trailing garbage");
	return 0;
}

/*
 * The rest of a zlib gzip stream from Z->next_in, member after member.
 * Return: 0, or -1 after a message.
 */
static int
zlib_members(const struct input *in, z_stream *z, unsigned char *out,
    uint64_t *total)
{
	int ret;

	for (;;) {
		z->avail_in = (uInt)chunk(in, z->next_in);
		z->next_out = out;
		z->avail_out = OUT_SIZE;
		ret = inflate(z, Z_NO_FLUSH);
		*total += OUT_SIZE - z->avail_out;
		if (ret == Z_STREAM_END) {
			if (!gzip_magic_at(in, z->next_in))
				break;
			if (inflateReset(z) != Z_OK)
				return bad(in, "zlib", "inflateReset failed");
		} else if (ret == Z_BUF_ERROR) {
			/* No progress with room for output: no more input. */
			return bad(in, "zlib", "truncated");
		} else if (ret != Z_OK) {
			return bad(in, "zlib", z->msg != NULL ? z->msg :
			    "corrupt data");
		}
	}
	if (chunk(in, z->next_in) != 0)
		return bad(in, "zlib", "trailing garbage");
	return 0;
}

/* see "decode_fn" */
static int
dec_zlib(const struct input *in, unsigned char *out, uint64_t *total)
{
	z_stream z;
	int ret;

	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
		return bad(in, "zlib", "inflateInit2 failed");
	z.next_in = (Bytef *)(uintptr_t)in->p;
	*total = 0;
	ret = zlib_members(in, &z, out, total);
	if (inflateEnd(&z) != Z_OK && ret == 0)
		return bad(in, "zlib", "inflateEnd failed");
	return ret;
}

/* The loop of dec_zstd.  Return: 0, or -1 after a message. */
static int
zstd_loop(const struct input *in, ZSTD_DCtx *dc, unsigned char *out,
    uint64_t *total)
{
	ZSTD_inBuffer ib = { in->p, in->len, 0 };
	ZSTD_outBuffer ob;
	size_t ret = 1;

	/* Stop when the input is used up and the last frame is flushed. */
	for (;;) {
		ob.dst = out;
		ob.size = OUT_SIZE;
		ob.pos = 0;
		ret = ZSTD_decompressStream(dc, &ob, &ib);
		if (ZSTD_isError(ret))
			return bad(in, "zstd", ZSTD_getErrorName(ret));
		*total += ob.pos;
		if (ib.pos == ib.size && ob.pos < ob.size)
			break;
	}
	if (ret != 0)
		return bad(in, "zstd", "truncated");
	return 0;
}

/* see "decode_fn" */
static int
dec_zstd(const struct input *in, unsigned char *out, uint64_t *total)
{
	ZSTD_DCtx *dc;
	int ret;

	dc = ZSTD_createDCtx();
	if (dc == NULL)
		return bad(in, "zstd", "ZSTD_createDCtx failed");
	*total = 0;
	ret = zstd_loop(in, dc, out, total);
	ZSTD_freeDCtx(dc);
	return ret;
}

/* The loop of both xz decoders.  Return: 0, or -1 after a message. */
static int
xz_loop(const struct input *in, const char *lib, lzma_stream *s,
    unsigned char *out, uint64_t *total)
{
	lzma_action action = LZMA_RUN;
	lzma_ret ret;

	s->next_in = in->p;
	s->avail_in = in->len;
	*total = 0;
	do {
		if (s->avail_in == 0)
			action = LZMA_FINISH;
		s->next_out = out;
		s->avail_out = OUT_SIZE;
		ret = lzma_code(s, action);
		*total += OUT_SIZE - s->avail_out;
	} while (ret == LZMA_OK);
	if (ret == LZMA_STREAM_END)
		return 0;
	if (ret == LZMA_DATA_ERROR || ret == LZMA_FORMAT_ERROR)
		return bad(in, lib, "corrupt data");
	if (ret == LZMA_BUF_ERROR)
		return bad(in, lib, "truncated");
	return bad(in, lib, ret == LZMA_MEMLIMIT_ERROR ? "memory limit" :
	    "decoder error");
}

/* see "decode_fn" */
static int
dec_xz_mt(const struct input *in, unsigned char *out, uint64_t *total)
{
	lzma_stream s = LZMA_STREAM_INIT;
	lzma_mt mt;
	int ret;

	memset(&mt, 0, sizeof(mt));
	mt.flags = LZMA_CONCATENATED;
	mt.threads = cpus;
	/* Generous: a quarter of the RAM before it falls back to one
	 * thread, and no limit at which it would stop. */
	mt.memlimit_threading = lzma_physmem() / 4;
	mt.memlimit_stop = UINT64_MAX;
	if (lzma_stream_decoder_mt(&s, &mt) != LZMA_OK)
		return bad(in, "xz-mt", "lzma_stream_decoder_mt failed");
	ret = xz_loop(in, "xz-mt", &s, out, total);
	lzma_end(&s);
	return ret;
}

/* see "decode_fn" */
static int
dec_xz_1(const struct input *in, unsigned char *out, uint64_t *total)
{
	lzma_stream s = LZMA_STREAM_INIT;
	int ret;

	if (lzma_stream_decoder(&s, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK)
		return bad(in, "xz-1", "lzma_stream_decoder failed");
	ret = xz_loop(in, "xz-1", &s, out, total);
	lzma_end(&s);
	return ret;
}

/*
 * zip: every member is compressed on its own and the central directory
 * gives where each starts, so the members are inflated in parallel: CPUS
 * threads take the next member in turn.  Each member's CRC-32 and size
 * are checked against the central directory.
 */

/* The signatures of the zip records this reads. */
#define ZIP_LOCAL "PK\3\4"
#define ZIP_CENTRAL "PK\1\2"
#define ZIP_END "PK\5\6"
#define ZIP64_LOCATOR "PK\6\7"
#define ZIP64_END "PK\6\6"

/* The fixed sizes of those records, and how far from the end of the file
 * the end record may be (a comment of up to 65535 bytes follows it). */
#define ZIP_LOCAL_SIZE 30
#define ZIP_CENTRAL_SIZE 46
#define ZIP_END_SIZE 22
#define ZIP64_LOCATOR_SIZE 20
#define ZIP64_END_SIZE 56
#define ZIP_END_SEARCH (ZIP_END_SIZE + 65535)

/* A field of the central directory that says "see the zip64 extra". */
#define ZIP_SATURATED 0xffffffffu

/* One member, as the central directory describes it. */
struct member {
	const unsigned char *data;	/* its compressed bytes */
	uint64_t csize;
	uint64_t usize;
	uint32_t crc;
	uint16_t method;		/* 0 stored, 8 deflate */
};

/* Which library a zip decode uses. */
enum zip_lib { ZIP_ISAL, ZIP_ZLIB };

/* The work the threads share: the members, the next to take, the sum of
 * what they decoded, and whether one failed. */
struct zip_job {
	const struct input *in;
	const struct member *m;
	size_t n;
	enum zip_lib lib;
	atomic_size_t next;
	atomic_uint_fast64_t total;
	atomic_int failed;
};

static uint16_t
le16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t
le32(const unsigned char *p)
{
	return (uint32_t)le16(p) | (uint32_t)le16(p + 2) << 16;
}

static uint64_t
le64(const unsigned char *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* True when the 4 bytes at offset OFF of IN exist and are SIG. */
static int
sig_at(const struct input *in, uint64_t off, const char *sig)
{
	return off <= in->len && in->len - off >= 4 &&
	    memcmp(in->p + off, sig, 4) == 0;
}

/* The offset of IN's end of central directory record, or -1. */
static int64_t
zip_find_end(const struct input *in)
{
	size_t i, low;

	if (in->len < ZIP_END_SIZE)
		return -1;
	low = in->len > ZIP_END_SEARCH ? in->len - ZIP_END_SEARCH : 0;
	for (i = in->len - ZIP_END_SIZE;; i--) {
		if (memcmp(in->p + i, ZIP_END, 4) == 0)
			return (int64_t)i;
		if (i == low)
			return -1;
	}
}

/*
 * Where IN's central directory starts (*OFF), its size (*SIZE) and its
 * number of entries (*COUNT), from the end record or, where that is
 * saturated, the zip64 one.  Return: 0, or -1 after a message.
 */
static int
zip_directory(const struct input *in, uint64_t *off, uint64_t *size,
    uint64_t *count)
{
	const unsigned char *e, *z;
	int64_t end;
	uint64_t z64;

	end = zip_find_end(in);
	if (end == -1)
		return bad(in, "zip", "no end of central directory record");
	e = in->p + end;
	*count = le16(e + 10);
	*size = le32(e + 12);
	*off = le32(e + 16);
	if (*count == 0xffff || *size == ZIP_SATURATED ||
	    *off == ZIP_SATURATED) {
		if (end < ZIP64_LOCATOR_SIZE ||
		    !sig_at(in, (uint64_t)end - ZIP64_LOCATOR_SIZE,
			ZIP64_LOCATOR))
			return bad(in, "zip", "no zip64 end locator");
		z64 = le64(e - ZIP64_LOCATOR_SIZE + 8);
		if (!sig_at(in, z64, ZIP64_END) ||
		    in->len - z64 < ZIP64_END_SIZE)
			return bad(in, "zip", "no zip64 end record");
		z = in->p + z64;
		*count = le64(z + 32);
		*size = le64(z + 40);
		*off = le64(z + 48);
	}
	if (*off > in->len || *size > in->len - *off ||
	    *count > *size / ZIP_CENTRAL_SIZE)
		return bad(in, "zip", "central directory out of the file");
	return 0;
}

/*
 * Replace the saturated fields of a central header, *USIZE, *CSIZE and
 * *OFF in that order, with the values of its zip64 extra field (id 1),
 * found in the LEN bytes of extra fields at X.  Return: 0, or -1 when a
 * saturated field has no value there.
 */
static int
zip64_extra(const unsigned char *x, size_t len, uint64_t *usize,
    uint64_t *csize, uint64_t *off)
{
	uint64_t *field[3] = { usize, csize, off };
	size_t size, i;

	while (len >= 4) {
		size = le16(x + 2);
		if (size > len - 4)
			return -1;
		if (le16(x) == 1)
			break;
		x += 4 + size;
		len -= 4 + size;
	}
	if (len < 4)
		size = 0;
	x += 4;
	for (i = 0; i < 3; i++) {
		if (*field[i] != ZIP_SATURATED)
			continue;
		if (size < 8)
			return -1;
		*field[i] = le64(x);
		x += 8;
		size -= 8;
	}
	return 0;
}

/*
 * The central header at P (LEFT bytes of the directory from there on) into
 * *M, its data found through its local header; *NEXT is the header after
 * it.  Return: 0, or -1 after a message.
 */
static int
zip_member(const struct input *in, const unsigned char *p, size_t left,
    struct member *m, const unsigned char **next)
{
	uint64_t off, data;
	size_t vlen;

	if (left < ZIP_CENTRAL_SIZE || memcmp(p, ZIP_CENTRAL, 4) != 0)
		return bad(in, "zip", "bad central directory header");
	vlen = (size_t)le16(p + 28) + le16(p + 30) + le16(p + 32);
	if (vlen > left - ZIP_CENTRAL_SIZE)
		return bad(in, "zip", "central header past the directory");
	m->method = le16(p + 10);
	m->crc = le32(p + 16);
	m->csize = le32(p + 20);
	m->usize = le32(p + 24);
	off = le32(p + 42);
	if (zip64_extra(p + ZIP_CENTRAL_SIZE + le16(p + 28), le16(p + 30),
		&m->usize, &m->csize, &off) == -1)
		return bad(in, "zip", "bad zip64 extra field");
	if (!sig_at(in, off, ZIP_LOCAL) || in->len - off < ZIP_LOCAL_SIZE)
		return bad(in, "zip", "no local header where the directory "
		    "says");
	data = off + ZIP_LOCAL_SIZE + le16(in->p + off + 26) +
	    le16(in->p + off + 28);
	if (data > in->len || m->csize > in->len - data)
		return bad(in, "zip", "member data past the end of the file");
	if (m->method != 0 && m->method != 8)
		return bad(in, "zip", "a member neither stored nor deflated");
	m->data = in->p + data;
	*next = p + ZIP_CENTRAL_SIZE + vlen;
	return 0;
}

/* The members of IN into *M (allocated), *N of them.  Return: 0, or -1
 * after a message. */
static int
zip_members(const struct input *in, struct member **m, size_t *n)
{
	uint64_t off, size, count, i;
	const unsigned char *p, *end;

	if (zip_directory(in, &off, &size, &count) == -1)
		return -1;
	*m = calloc(count > 0 ? (size_t)count : 1, sizeof(**m));
	if (*m == NULL)
		die("calloc", errno);
	p = in->p + off;
	end = p + size;
	for (i = 0; i < count; i++) {
		if (zip_member(in, p, (size_t)(end - p), &(*m)[i], &p) == -1) {
			free(*m);
			return -1;
		}
	}
	*n = (size_t)count;
	return 0;
}

/* Inflate member M with ISA-L (state ST) into OUT, again and again; *CRC
 * and *LEN get the CRC-32 and length of what came out.  Return: 0, or -1
 * when the data is corrupt or ends early. */
static int
zip_isal(const struct member *m, struct inflate_state *st,
    unsigned char *out, uint32_t *crc, uint64_t *len)
{
	const unsigned char *end = m->data + m->csize;
	size_t left;

	isal_inflate_init(st);
	st->crc_flag = ISAL_GZIP_NO_HDR;
	st->next_in = (uint8_t *)(uintptr_t)m->data;
	*len = 0;
	while (st->block_state != ISAL_BLOCK_FINISH) {
		left = (size_t)(end - st->next_in);
		st->avail_in = (uint32_t)(left < IN_CHUNK ? left : IN_CHUNK);
		st->next_out = out;
		st->avail_out = OUT_SIZE;
		if (isal_inflate(st) != ISAL_DECOMP_OK)
			return -1;
		*len += (uint64_t)(st->next_out - out);
		if (st->block_state != ISAL_BLOCK_FINISH &&
		    st->avail_out == OUT_SIZE && st->next_in == end)
			return -1;
	}
	*crc = st->crc;
	return 0;
}

/* As zip_isal, with zlib (stream Z, set up for raw deflate). */
static int
zip_zlib(const struct member *m, z_stream *z, unsigned char *out,
    uint32_t *crc, uint64_t *len)
{
	const unsigned char *end = m->data + m->csize;
	uLong c = crc32(0L, Z_NULL, 0);
	size_t left;
	int ret;

	if (inflateReset(z) != Z_OK)
		return -1;
	z->next_in = (Bytef *)(uintptr_t)m->data;
	*len = 0;
	do {
		left = (size_t)(end - z->next_in);
		z->avail_in = (uInt)(left < IN_CHUNK ? left : IN_CHUNK);
		z->next_out = out;
		z->avail_out = OUT_SIZE;
		ret = inflate(z, Z_NO_FLUSH);
		if (ret != Z_OK && ret != Z_STREAM_END)
			return -1;	/* Z_BUF_ERROR: it ends early */
		c = crc32_z(c, out, OUT_SIZE - z->avail_out);
		*len += OUT_SIZE - z->avail_out;
	} while (ret != Z_STREAM_END);
	*crc = (uint32_t)c;
	return 0;
}

/* The scratch of one thread. */
struct zip_scratch {
	unsigned char *out;
	struct inflate_state *st;
	z_stream z;
};

/* Decode member M of job J with scratch S.  Return: 0, or -1 after a
 * message. */
static int
zip_one(const struct zip_job *j, const struct member *m,
    struct zip_scratch *s, uint64_t *len)
{
	const char *lib = j->lib == ZIP_ISAL ? "isal" : "zlib";
	uint32_t crc;
	int ret;

	if (m->method == 0) {
		/* Stored: nothing to decode, only the check. */
		crc = (uint32_t)crc32_z(crc32(0L, Z_NULL, 0), m->data,
		    (size_t)m->csize);
		*len = m->csize;
		ret = 0;
	} else if (j->lib == ZIP_ISAL) {
		ret = zip_isal(m, s->st, s->out, &crc, len);
	} else {
		ret = zip_zlib(m, &s->z, s->out, &crc, len);
	}
	if (ret == -1)
		return bad(j->in, lib, "corrupt member");
	if (crc != m->crc || *len != m->usize)
		return bad(j->in, lib, "a member's CRC-32 or size is not "
		    "the central directory's");
	return 0;
}

/* A thread: members in turn, until none is left or one failed. */
static void *
zip_thread(void *arg)
{
	struct zip_job *j = arg;
	struct zip_scratch s;
	uint64_t len;
	size_t i;

	memset(&s, 0, sizeof(s));
	s.out = malloc(OUT_SIZE);
	s.st = malloc(sizeof(*s.st));
	if (s.out == NULL || s.st == NULL)
		die("malloc", errno);
	if (inflateInit2(&s.z, -MAX_WBITS) != Z_OK)
		die("inflateInit2", ENOMEM);
	for (;;) {
		i = atomic_fetch_add(&j->next, 1);
		if (i >= j->n || atomic_load(&j->failed))
			break;
		if (zip_one(j, &j->m[i], &s, &len) == -1) {
			atomic_store(&j->failed, 1);
			break;
		}
		atomic_fetch_add(&j->total, len);
	}
	(void)inflateEnd(&s.z);
	free(s.st);
	free(s.out);
	return NULL;
}

/* Inflate the members of IN with LIB on CPUS threads.  Return: 0 and
 * *TOTAL, or -1 after a message. */
static int
zip_decode(const struct input *in, enum zip_lib lib, uint64_t *total)
{
	struct zip_job j;
	struct member *m;
	pthread_t *t;
	unsigned int k;
	size_t n;
	int err;

	if (zip_members(in, &m, &n) == -1)
		return -1;
	j.in = in;
	j.m = m;
	j.n = n;
	j.lib = lib;
	atomic_init(&j.next, 0);
	atomic_init(&j.total, 0);
	atomic_init(&j.failed, 0);
	t = calloc(cpus, sizeof(*t));
	if (t == NULL)
		die("calloc", errno);
	for (k = 0; k < cpus; k++) {
		err = pthread_create(&t[k], NULL, zip_thread, &j);
		if (err != 0)
			die("pthread_create", err);
	}
	for (k = 0; k < cpus; k++) {
		err = pthread_join(t[k], NULL);
		if (err != 0)
			die("pthread_join", err);
	}
	free(t);
	free(m);
	*total = atomic_load(&j.total);
	return atomic_load(&j.failed) ? -1 : 0;
}

/* see "decode_fn" */
static int
dec_zip_isal(const struct input *in, unsigned char *out, uint64_t *total)
{
	(void)out;	/* each thread has its own */
	return zip_decode(in, ZIP_ISAL, total);
}

/* see "decode_fn" */
static int
dec_zip_zlib(const struct input *in, unsigned char *out, uint64_t *total)
{
	(void)out;
	return zip_decode(in, ZIP_ZLIB, total);
}

static const struct lib libs[] = {
	{ "isal", FMT_GZIP, dec_isal },
	{ "zlib", FMT_GZIP, dec_zlib },
	{ "zstd", FMT_ZSTD, dec_zstd },
	{ "xz-mt", FMT_XZ, dec_xz_mt },
	{ "xz-1", FMT_XZ, dec_xz_1 },
	{ "isal", FMT_ZIP, dec_zip_isal },
	{ "zlib", FMT_ZIP, dec_zip_zlib },
};

/* The format of the LEN bytes at P, by magic. */
static enum format
detect(const unsigned char *p, size_t len)
{
	static const unsigned char xz[6] = { 0xfd, '7', 'z', 'X', 'Z', 0 };
	static const unsigned char zst[4] = { 0x28, 0xb5, 0x2f, 0xfd };

	if (len >= 2 && p[0] == 0x1f && p[1] == 0x8b)
		return FMT_GZIP;
	if (len >= sizeof(zst) && memcmp(p, zst, sizeof(zst)) == 0)
		return FMT_ZSTD;
	if (len >= sizeof(xz) && memcmp(p, xz, sizeof(xz)) == 0)
		return FMT_XZ;
	if (len >= 4 && memcmp(p, ZIP_LOCAL, 4) == 0)
		return FMT_ZIP;
	return FMT_UNKNOWN;
}

/* Map PATH into IN, its pages read in now; exit(3) on error. */
static void
map_input(const char *path, struct input *in)
{
	struct stat sb;
	void *p;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd == -1)
		die(path, errno);
	if (fstat(fd, &sb) == -1)
		die(path, errno);
	if (!S_ISREG(sb.st_mode) || sb.st_size == 0) {
		fprintf(stderr, "floor: %s: not a non-empty file\n", path);
		exit(3);
	}
	p = mmap(NULL, (size_t)sb.st_size, PROT_READ,
	    MAP_PRIVATE | MAP_POPULATE, fd, 0);
	if (p == MAP_FAILED)
		die(path, errno);
	if (close(fd) == -1)
		die(path, errno);
	in->path = path;
	in->p = p;
	in->len = (size_t)sb.st_size;
}

/* Seconds on the monotonic clock. */
static double
now(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) == -1)
		die("clock_gettime", errno);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of the N values at V (sorted in place). */
static double
median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* User + sys seconds of every thread of this process, so far. */
static double
cpu_now(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) == -1)
		die("getrusage", errno);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	    (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

/* A library's medians over the rounds. */
struct timing {
	double wall;	/* seconds */
	double cpu;	/* seconds, user + sys */
};

/*
 * Decode the N inputs with LIB, ROUNDS times; *TM gets the medians of a
 * round, *OUT the decoded bytes.  Return: 0, or -1 after a message.
 */
static int
time_lib(const struct lib *lib, const struct input *in, int n, int rounds,
    unsigned char *buf, struct timing *tm, uint64_t *out)
{
	double wall[MAX_ROUNDS], cpu[MAX_ROUNDS], start, start_cpu;
	uint64_t one;
	int r, i;

	for (r = 0; r < rounds; r++) {
		*out = 0;
		start_cpu = cpu_now();
		start = now();
		for (i = 0; i < n; i++) {
			if (lib->decode(&in[i], buf, &one) == -1)
				return -1;
			*out += one;
		}
		wall[r] = now() - start;
		cpu[r] = cpu_now() - start_cpu;
	}
	tm->wall = median(wall, rounds);
	tm->cpu = median(cpu, rounds);
	return 0;
}

/* Parse the argument S of an option; usage() unless 1..MAX. */
static int
parse_count(const char *s, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < 1 || v > max)
		usage();
	return (int)v;
}

/* The CPUs this process may run on, at least 1. */
static unsigned int
affinity_cpus(void)
{
	cpu_set_t set;
	int n;

	if (sched_getaffinity(0, sizeof(set), &set) == -1)
		die("sched_getaffinity", errno);
	n = CPU_COUNT(&set);
	return n > 0 ? (unsigned int)n : 1;
}

/* Map the N files at PATHS into IN; all must share one known format.
 * Return: the format and *BYTES their size; exit(1) otherwise. */
static enum format
map_all(char **paths, int n, struct input *in, uint64_t *bytes)
{
	enum format fmt = FMT_UNKNOWN, f;
	int i;

	*bytes = 0;
	for (i = 0; i < n; i++) {
		map_input(paths[i], &in[i]);
		f = detect(in[i].p, in[i].len);
		if (f == FMT_UNKNOWN) {
			fprintf(stderr, "floor: %s: not gzip, zstd, xz or zip\n",
			    paths[i]);
			exit(1);
		}
		if (i > 0 && f != fmt) {
			fprintf(stderr, "floor: %s: not in the format of %s\n",
			    paths[i], paths[0]);
			exit(1);
		}
		fmt = f;
		*bytes += in[i].len;
	}
	return fmt;
}

/* Time every library of FMT over the N inputs and print the lines.
 * Return: 0, or 1 when a library failed or the libraries disagree. */
static int
run_all(enum format fmt, const struct input *in, int n, int rounds,
    uint64_t in_bytes, unsigned char *buf)
{
	const struct lib *best = NULL;
	struct timing tm, best_tm = { 0, 0 };
	uint64_t out, first_out = 0;
	size_t k;

	for (k = 0; k < sizeof(libs) / sizeof(libs[0]); k++) {
		if (libs[k].fmt != fmt)
			continue;
		if (time_lib(&libs[k], in, n, rounds, buf, &tm, &out) == -1)
			return 1;
		if (best == NULL) {
			printf("format %s files %d in %" PRIu64 " out %" PRIu64
			       " cpus %u\n", format_names[fmt], n, in_bytes,
			    out, cpus);
			first_out = out;
		} else if (out != first_out) {
			fprintf(stderr, "floor: %s and %s disagree on the "
					"length\n", best->name, libs[k].name);
			return 1;
		}
		printf("%s %.6f %.6f\n", libs[k].name, tm.wall, tm.cpu);
		if (best == NULL || tm.wall < best_tm.wall) {
			best_tm = tm;
			best = &libs[k];
		}
	}
	printf("best %s %.6f %.6f\n", best->name, best_tm.wall, best_tm.cpu);
	return 0;
}

int
main(int argc, char **argv)
{
	struct input *in;
	unsigned char *buf;
	uint64_t in_bytes;
	enum format fmt;
	int c, rounds = 1, ret;

	cpus = affinity_cpus();
	for (;;) {
		c = getopt(argc, argv, "j:r:");
		if (c == -1)
			break;
		switch (c) {
		case 'j':
			cpus = (unsigned int)parse_count(optarg, MAX_CPUS);
			break;
		case 'r':
			rounds = parse_count(optarg, MAX_ROUNDS);
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1)
		usage();
	in = calloc((size_t)argc, sizeof(*in));
	buf = malloc(OUT_SIZE);
	if (in == NULL || buf == NULL)
		die("malloc", errno);
	fmt = map_all(argv, argc, in, &in_bytes);
	ret = run_all(fmt, in, argc, rounds, in_bytes, buf);
	if (fflush(stdout) == EOF)
		die("stdout", errno);
	return ret;
}
