/*
 * cases_resources.c -- archives that attack the extractor's resources
 * rather than its containment: compression bombs through every filter
 * (alone, nested, and in zip, Fifield's overlapping entries included),
 * a hundred thousand entries, 5000-deep directories, a sparse entry of
 * 1 TiB, sizes no archive can hold, and archives truncated or corrupted
 * at a header, in data and in the trailer or index.  The limits must stop
 * each bomb within a few MiB of where they say, with exit status 2, and
 * every truncated or corrupt archive must end in exit status 2 with
 * nothing half-written left under a final name.
 *
 * The bombs are cheap to make: the deflate bombs repeat one compressed
 * chunk of zeros (each chunk a fresh deflate stream ended by a full
 * flush, so the chunks chain into one valid stream), and the other
 * filters concatenate members (streams, frames) of one chunk, as pigz,
 * pbzip2, pixz and zstd -T write them.  lzma (alone) and compress have no
 * members, and get one stream of a smaller bomb.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <archive.h>
#include <archive_entry.h>
#include <zlib.h>

#include "gen.h"

#define KiB	1024u
#define MiB	(1024u * 1024u)
/* Zeros compressed once, repeated to make a bomb. */
#define CHUNK	(8 * MiB)
/* The apparent size of the bombs whose filter has members: 1 GiB. */
#define BOMB	(128ull * CHUNK)
/* ... and of the single-stream ones (lzma, compress), past 64 MiB. */
#define SMALL_BOMB	(10ull * CHUNK)

/* CHUNK zeros, allocated once. */
static const unsigned char *
zeros(void)
{
	static unsigned char *z;

	if (z == NULL && (z = calloc(1, CHUNK)) == NULL)
		gen_die("out of memory");
	return z;
}

/* libarchive's writer into a gen_buf. */
static la_ssize_t
to_buf(struct archive *a, void *arg, const void *data, size_t len)
{
	(void)a;
	gen_buf_add(arg, data, len);
	return (la_ssize_t)len;
}

/*
 * A stream of FILTER (at LEVEL, or the default if NULL) appended to OUT:
 * open it, feed it with pack_write, end it with pack_close.  libarchive's
 * raw format with no blocking, so that no padding follows the stream.
 */
static struct archive *
pack_open(struct gen_buf *out, const char *filter, const char *level,
    uint64_t size)
{
	struct archive *a = archive_write_new();
	struct archive_entry *e = archive_entry_new();

	if (a == NULL || e == NULL)
		gen_die("out of memory");
	if (archive_write_set_format_raw(a) != ARCHIVE_OK ||
	    archive_write_add_filter_by_name(a, filter) != ARCHIVE_OK ||
	    (level != NULL && archive_write_set_filter_option(a, NULL,
	    "compression-level", level) != ARCHIVE_OK) ||
	    archive_write_set_bytes_per_block(a, 0) != ARCHIVE_OK ||
	    archive_write_open(a, out, NULL, to_buf, NULL) != ARCHIVE_OK)
		gen_die("%s: %s", filter, archive_error_string(a));
	archive_entry_set_pathname(e, "raw");
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, 0644);
	archive_entry_set_size(e, (la_int64_t)size);
	if (archive_write_header(a, e) != ARCHIVE_OK)
		gen_die("%s: %s", filter, archive_error_string(a));
	archive_entry_free(e);
	return a;
}

static void
pack_write(struct archive *a, const void *data, size_t len)
{
	if (archive_write_data(a, data, len) != (la_ssize_t)len)
		gen_die("compress: %s", archive_error_string(a));
}

static void
pack_close(struct archive *a)
{
	if (archive_write_close(a) != ARCHIVE_OK)
		gen_die("compress: %s", archive_error_string(a));
	archive_write_free(a);
}

/* One whole member of FILTER holding DATA. */
static void
pack(struct gen_buf *out, const char *filter, const char *level,
    const void *data, size_t len)
{
	struct archive *a = pack_open(out, filter, level, len);

	pack_write(a, data, len);
	pack_close(a);
}

/*
 * The tar around a bomb: a good file, then the header of "zeros" of SIZE
 * bytes (HEAD); after the zeros, the end of the archive (TAIL).
 */
static void
bomb_tar(struct gen_buf *head, struct gen_buf *tail, uint64_t size)
{
	raw_tar_file(head, "good", "good");
	raw_tar_header(head, "ustar", "zeros", 5, '0', 0644, size, NULL, 0);
	raw_tar_end(tail);
}

/* A tar bomb of BOMB zeros in members of FILTER, one per chunk. */
static void
bomb_members(const char *name, const char *filter, const char *level)
{
	struct gen_buf out = { 0 }, head = { 0 }, tail = { 0 }, chunk = { 0 };
	uint64_t i;

	bomb_tar(&head, &tail, BOMB);
	pack(&out, filter, level, head.p, head.len);
	pack(&chunk, filter, level, zeros(), CHUNK);
	for (i = 0; i < BOMB / CHUNK; i++)
		gen_buf_add(&out, chunk.p, chunk.len);
	pack(&out, filter, level, tail.p, tail.len);
	gen_buf_save(&out, name, NULL);
	gen_buf_free(&out);
	gen_buf_free(&head);
	gen_buf_free(&tail);
	gen_buf_free(&chunk);
}

/* A tar bomb of SMALL_BOMB zeros in one stream of FILTER. */
static void
bomb_stream(const char *name, const char *filter, const char *level)
{
	struct gen_buf out = { 0 }, head = { 0 }, tail = { 0 };
	struct archive *a;
	uint64_t i;

	bomb_tar(&head, &tail, SMALL_BOMB);
	a = pack_open(&out, filter, level, head.len + SMALL_BOMB + tail.len);
	pack_write(a, head.p, head.len);
	for (i = 0; i < SMALL_BOMB / CHUNK; i++)
		pack_write(a, zeros(), CHUNK);
	pack_write(a, tail.p, tail.len);
	pack_close(a);
	gen_buf_save(&out, name, NULL);
	gen_buf_free(&out);
	gen_buf_free(&head);
	gen_buf_free(&tail);
}

/*
 * Raw deflate of LEN bytes of DATA from a fresh stream, appended to OUT.
 * With FINAL, the last block ends the stream; without, a full flush
 * leaves the output byte-aligned and free of references to anything
 * before it, so that such pieces chain into one stream, any number of
 * times.  Z_RLE: the best a deflate stream does on zeros, and fast.
 */
static void
deflate_piece(struct gen_buf *out, const void *data, size_t len, int final)
{
	unsigned char buf[64 * KiB];
	z_stream s;
	int r;

	memset(&s, 0, sizeof(s));
	if (deflateInit2(&s, 9, Z_DEFLATED, -15, 9, Z_RLE) != Z_OK)
		gen_die("deflateInit2 failed");
	s.next_in = (unsigned char *)(uintptr_t)data;
	s.avail_in = (uInt)len;
	do {
		s.next_out = buf;
		s.avail_out = sizeof(buf);
		r = deflate(&s, final ? Z_FINISH : Z_FULL_FLUSH);
		if (r == Z_STREAM_ERROR)
			gen_die("deflate failed");
		gen_buf_add(out, buf, sizeof(buf) - s.avail_out);
	} while (final ? r != Z_STREAM_END : s.avail_out == 0);
	deflateEnd(&s);
}

/* What a deflate bomb holds: PRE, COUNT chunks of zeros, POST. */
struct inflated {
	const struct gen_buf *pre, *post;
	uint64_t count;
};

/* The raw deflate stream of W into OUT; its CRC-32 and length. */
static void
deflate_bomb(struct gen_buf *out, const struct inflated *w, uint32_t *crc,
    uint64_t *len)
{
	struct gen_buf chunk = { 0 };
	uLong c = crc32(0L, Z_NULL, 0), cz = crc32(0L, zeros(), CHUNK);
	uint64_t i;

	if (w->pre->len > 0) {
		deflate_piece(out, w->pre->p, w->pre->len, 0);
		c = crc32(c, w->pre->p, (uInt)w->pre->len);
	}
	deflate_piece(&chunk, zeros(), CHUNK, 0);
	for (i = 0; i < w->count; i++) {
		gen_buf_add(out, chunk.p, chunk.len);
		c = crc32_combine(c, cz, CHUNK);
	}
	deflate_piece(out, w->post->p, w->post->len, 1);
	if (w->post->len > 0)
		c = crc32(c, w->post->p, (uInt)w->post->len);
	*crc = (uint32_t)c;
	*len = w->pre->len + w->count * CHUNK + w->post->len;
	gen_buf_free(&chunk);
}

static void
le32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

/* A gzip member (RFC 1952) holding the tar bomb of COUNT chunks. */
static void
gzip_bomb(struct gen_buf *out, uint64_t count)
{
	static const unsigned char header[10] = {
		0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3
	};
	struct gen_buf head = { 0 }, tail = { 0 };
	struct inflated w = { &head, &tail, count };
	unsigned char trailer[8];
	uint32_t crc;
	uint64_t len;

	bomb_tar(&head, &tail, count * CHUNK);
	gen_buf_add(out, header, sizeof(header));
	deflate_bomb(out, &w, &crc, &len);
	le32(trailer, crc);
	le32(trailer + 4, (uint32_t)len);
	gen_buf_add(out, trailer, sizeof(trailer));
	gen_buf_free(&head);
	gen_buf_free(&tail);
}

/* A 1 GiB tar.gz bomb, one gzip member (the classic 42.zip layer). */
static void
bomb_gzip(const char *name)
{
	struct gen_buf out = { 0 };

	gzip_bomb(&out, BOMB / CHUNK);
	gen_buf_save(&out, name, NULL);
	gen_buf_free(&out);
}

/* The same tar.gz, gzipped once more: a bomb inside a bomb. */
static void
bomb_nested(const char *name)
{
	struct gen_buf out = { 0 };

	gzip_bomb(&out, BOMB / CHUNK);
	gen_buf_save(&out, name, "gzip");
	gen_buf_free(&out);
}

/* A small tar.gz bomb (80 MiB), for the cases that raise or lift a limit. */
static void
bomb_gzip_small(const char *name)
{
	struct gen_buf out = { 0 };

	gzip_bomb(&out, SMALL_BOMB / CHUNK);
	gen_buf_save(&out, name, NULL);
	gen_buf_free(&out);
}

static void
bomb_bzip2(const char *name)
{
	bomb_members(name, "bzip2", NULL);
}

static void
bomb_xz(const char *name)
{
	bomb_members(name, "xz", "0");
}

static void
bomb_lzip(const char *name)
{
	bomb_members(name, "lzip", "0");
}

static void
bomb_zstd(const char *name)
{
	bomb_members(name, "zstd", NULL);
}

/* lz4 expands at most about 255 times: the ratio 200 still stops it. */
static void
bomb_lz4(const char *name)
{
	bomb_members(name, "lz4", NULL);
}

static void
bomb_lzma(const char *name)
{
	bomb_stream(name, "lzma", "0");
}

static void
bomb_compress(const char *name)
{
	bomb_stream(name, "compress", NULL);
}

/* A zip of one deflated entry of 1 GiB of zeros, beside a good one. */
static void
zip_one(const char *name)
{
	struct gen_zip z = { 0 };
	struct gen_buf none = { 0 }, data = { 0 };
	struct inflated w = { &none, &none, BOMB / CHUNK };
	uint32_t crc;
	uint64_t len;

	gen_zip_add(&z, "good", 4, 0, "good", 4, 4, gen_crc32("good", 4),
	    0100644u << 16);
	deflate_bomb(&data, &w, &crc, &len);
	gen_zip_add(&z, "zeros", 5, 8, data.p, data.len, (uint32_t)len, crc,
	    0100644u << 16);
	gen_zip_finish(&z, name);
	gen_buf_free(&data);
}

/* A zip local file header, its sizes and CRC given. */
static void
local_header(struct gen_buf *b, const char *entry, uint32_t crc,
    uint32_t csize, uint32_t usize)
{
	unsigned char h[30];
	size_t n = strlen(entry);

	memset(h, 0, sizeof(h));
	le32(h, 0x04034b50);
	h[4] = 20;			/* version needed */
	h[8] = 8;			/* deflate */
	h[12] = 0x21;			/* date: 2023-09-01 */
	h[13] = 0x57;
	le32(h + 14, crc);
	le32(h + 18, csize);
	le32(h + 22, usize);
	h[26] = (unsigned char)n;
	gen_buf_add(b, h, sizeof(h));
	gen_buf_add(b, entry, n);
}

/*
 * David Fifield's "better zip bomb" (2019): N local headers share one
 * deflate kernel.  Each header is followed by a non-final stored block
 * that quotes the next header, so entry i inflates to the headers after
 * it and then the kernel: N entries, N times the kernel's output, from
 * one copy of it.  The central directory lists all N, in order.
 */
#define FIFIELD_N	16
#define FIFIELD_KERNEL	(4 * CHUNK)	/* 32 MiB per entry */

static void
zip_fifield(const char *name)
{
	struct gen_zip z = { 0 };
	struct gen_buf kernel = { 0 }, none = { 0 }, hdr[FIFIELD_N];
	struct inflated w = { &none, &none, FIFIELD_KERNEL / CHUNK };
	char names[FIFIELD_N][32];
	uint32_t crc[FIFIELD_N], off[FIFIELD_N], csize[FIFIELD_N];
	uint64_t usize[FIFIELD_N], klen;
	uint32_t kcrc;
	size_t i, n;

	deflate_bomb(&kernel, &w, &kcrc, &klen);
	/* Sizes and CRCs from the last entry back: entry i is header i+1,
	 * then entry i+1's data; each quote adds a 5-byte stored block. */
	memset(hdr, 0, sizeof(hdr));
	for (n = FIFIELD_N; n-- > 0;) {
		snprintf(names[n], sizeof(names[n]), "bomb%02zu", n);
		if (n == FIFIELD_N - 1) {
			crc[n] = kcrc;
			usize[n] = klen;
			csize[n] = (uint32_t)kernel.len;
			continue;
		}
		local_header(&hdr[n + 1], names[n + 1], crc[n + 1],
		    csize[n + 1], (uint32_t)usize[n + 1]);
		crc[n] = (uint32_t)crc32_combine(crc32(crc32(0L, Z_NULL, 0),
		    hdr[n + 1].p, (uInt)hdr[n + 1].len), crc[n + 1],
		    (z_off_t)usize[n + 1]);
		usize[n] = hdr[n + 1].len + usize[n + 1];
		csize[n] = 5 + (uint32_t)hdr[n + 1].len + csize[n + 1];
	}
	for (i = 0; i < FIFIELD_N; i++) {
		unsigned char quote[5];
		uint16_t qlen;

		off[i] = (uint32_t)z.b.len;
		if (i == 0)
			local_header(&z.b, names[0], crc[0], csize[0],
			    (uint32_t)usize[0]);
		else
			gen_buf_add(&z.b, hdr[i].p, hdr[i].len);
		if (i == FIFIELD_N - 1)
			break;
		qlen = (uint16_t)hdr[i + 1].len;
		quote[0] = 0;		/* BFINAL 0, BTYPE 00: stored */
		quote[1] = (unsigned char)qlen;
		quote[2] = (unsigned char)(qlen >> 8);
		quote[3] = (unsigned char)~qlen;
		quote[4] = (unsigned char)(~qlen >> 8);
		gen_buf_add(&z.b, quote, sizeof(quote));
	}
	gen_buf_add(&z.b, kernel.p, kernel.len);
	for (i = 0; i < FIFIELD_N; i++)
		gen_zip_central(&z, names[i], strlen(names[i]), 8, csize[i],
		    (uint32_t)usize[i], crc[i], off[i], 0100644u << 16);
	gen_zip_finish(&z, name);
	for (i = 0; i < FIFIELD_N; i++)
		gen_buf_free(&hdr[i]);
	gen_buf_free(&kernel);
}

/* The same gzip bomb, for the cases that set or lift a limit. */
static void
bomb_gzip_again(const char *name)
{
	bomb_gzip(name);
}

/* Bytes that do not compress: a fixed xorshift sequence. */
static void
noise(unsigned char *p, size_t len, uint32_t seed)
{
	size_t i;

	for (i = 0; i < len; i++) {
		seed ^= seed << 13;
		seed ^= seed >> 17;
		seed ^= seed << 5;
		p[i] = (unsigned char)(seed >> 7);
	}
}

/* Read the archive FILE back from the output directory. */
static void
load(struct gen_buf *b, const char *file)
{
	const char *path = gen_out_path(file);
	unsigned char buf[64 * KiB];
	FILE *f = fopen(path, "rb");
	size_t n;

	if (f == NULL)
		gen_die("%s: cannot open", path);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		gen_buf_add(b, buf, n);
	if (ferror(f))
		gen_die("%s: read error", path);
	fclose(f);
}

/* Cut the archive NAME after its first KEEP bytes. */
static void
cut(const char *name, size_t keep)
{
	struct gen_buf b = { 0 };

	load(&b, name);
	if (keep >= b.len)
		gen_die("%s: cut at %zu of %zu", name, keep, b.len);
	b.len = keep;
	gen_buf_save(&b, name, NULL);
	gen_buf_free(&b);
}

/* Flip the bits of the byte at OFFSET in the archive NAME. */
static void
flip(const char *name, size_t offset)
{
	struct gen_buf b = { 0 };

	load(&b, name);
	if (offset >= b.len)
		gen_die("%s: flip at %zu of %zu", name, offset, b.len);
	b.p[offset] ^= 0xff;
	gen_buf_save(&b, name, NULL);
	gen_buf_free(&b);
}

/* Where NEEDLE last occurs in the archive NAME. */
static size_t
find_last(const char *name, const void *needle, size_t len)
{
	struct gen_buf b = { 0 };
	size_t i, at = 0;
	int found = 0;

	load(&b, name);
	for (i = 0; i + len <= b.len; i++) {
		if (memcmp(b.p + i, needle, len) == 0) {
			at = i;
			found = 1;
		}
	}
	gen_buf_free(&b);
	if (!found)
		gen_die("%s: pattern not found", name);
	return at;
}

#define SECOND_LEN	3000

/*
 * The archive the truncated and corrupt cases start from: "good", then
 * "second" of 3000 bytes of noise, then "third".  In ustar with 512-byte
 * blocks: good's header at 0, data at 512; second's header at 1024, data
 * at 1536 to 4608; third's header at 4608, data at 5120; the end at 5632.
 */
static void
base_archive(const char *name, const char *format, const char *filter)
{
	unsigned char data[SECOND_LEN];
	struct archive *a = gen_open(name, format, filter);

	noise(data, sizeof(data), 2463534242u);
	gen_file(a, "good", "good", 0644);
	gen_file_len(a, "second", data, sizeof(data), 0644);
	gen_file(a, "third", "third", 0644);
	gen_close(a);
}

/* tar cut inside the second header (GNU tar: "Unexpected EOF"). */
static void
trunc_tar_header(const char *name)
{
	base_archive(name, "ustar", NULL);
	cut(name, 1024 + 300);
}

/* tar cut inside the second entry's data. */
static void
trunc_tar_data(const char *name)
{
	base_archive(name, "ustar", NULL);
	cut(name, 1536 + 1000);
}

/* tar cut inside the first block of its end-of-archive marker. */
static void
trunc_tar_trailer(const char *name)
{
	base_archive(name, "ustar", NULL);
	cut(name, 5632 + 300);
}

/* tar.gz cut in the middle of the deflate data (the noise). */
static void
trunc_targz_data(const char *name)
{
	struct gen_buf b = { 0 };

	base_archive(name, "ustar", "gzip");
	load(&b, name);
	cut(name, b.len / 2);
	gen_buf_free(&b);
}

/* tar.gz without the last 4 bytes of its gzip trailer (ISIZE). */
static void
trunc_targz_trailer(const char *name)
{
	struct gen_buf b = { 0 };

	base_archive(name, "ustar", "gzip");
	load(&b, name);
	cut(name, b.len - 4);
	gen_buf_free(&b);
}

/* A raw zip of the base entries, all stored. */
static void
base_zip(struct gen_zip *z)
{
	unsigned char data[SECOND_LEN];

	noise(data, sizeof(data), 2463534242u);
	gen_zip_add(z, "good", 4, 0, "good", 4, 4, gen_crc32("good", 4),
	    0100644u << 16);
	gen_zip_add(z, "second", 6, 0, data, sizeof(data), sizeof(data),
	    gen_crc32(data, sizeof(data)), 0100644u << 16);
	gen_zip_add(z, "third", 5, 0, "third", 5, 5, gen_crc32("third", 5),
	    0100644u << 16);
}

/* Offsets in base_zip: good's header at 0 (30 + 4 + 4 bytes), second's
 * at 38, its data at 38 + 36 = 74 to 3074, third's header at 3074. */
#define ZIP_SECOND_DATA	74
#define ZIP_CD		(3074 + 30 + 5 + 5)

/* zip cut inside the second entry's data: no central directory. */
static void
trunc_zip_data(const char *name)
{
	struct gen_zip z = { 0 };

	base_zip(&z);
	gen_zip_finish(&z, name);
	cut(name, ZIP_SECOND_DATA + 1000);
}

/* zip cut inside its central directory. */
static void
trunc_zip_cd(const char *name)
{
	struct gen_zip z = { 0 };

	base_zip(&z);
	gen_zip_finish(&z, name);
	cut(name, ZIP_CD + 60);
}

/* 7z cut in half: its header, at the end, is gone. */
static void
trunc_7z(const char *name)
{
	struct gen_buf b = { 0 };

	base_archive(name, "7zip", NULL);
	load(&b, name);
	cut(name, b.len / 2);
	gen_buf_free(&b);
}

/* cpio cut inside the second entry's data. */
static void
trunc_newc_data(const char *name)
{
	size_t at;

	base_archive(name, "newc", NULL);
	at = find_last(name, "second", 6);
	cut(name, at + 8 + 1000);
}

/* cpio cut inside its TRAILER!!! header. */
static void
trunc_newc_trailer(const char *name)
{
	size_t at;

	base_archive(name, "newc", NULL);
	at = find_last(name, "TRAILER!!!", 10);
	cut(name, at - 50);
}

/* The second tar header's checksum field flipped. */
static void
corrupt_tar_sum(const char *name)
{
	base_archive(name, "ustar", NULL);
	flip(name, 1024 + 150);
}

/*
 * A flipped byte in a tar.gz's deflate data.  The second entry is text
 * here, so that the data is Huffman coded and the flip breaks the code.
 */
static void
corrupt_gzip_data(const char *name)
{
	struct archive *a = gen_open(name, "ustar", "gzip");
	char text[SECOND_LEN + 1];
	struct gen_buf b = { 0 };
	size_t i;

	for (i = 0; i < SECOND_LEN; i++)
		text[i] = "the quick brown fox jumps over a lazy dog\n"[
		    (i * 7 + i / 42) % 42];
	text[SECOND_LEN] = '\0';
	gen_file(a, "good", "good", 0644);
	gen_file(a, "second", text, 0644);
	gen_file(a, "third", "third", 0644);
	gen_close(a);
	load(&b, name);
	flip(name, b.len / 2);
	gen_buf_free(&b);
}

/*
 * A flipped byte in a tar.gz's stored deflate block (zlib level 0): the
 * stream still inflates, to wrong data, and only the gzip trailer's
 * CRC-32 tells.
 */
static void
corrupt_gzip_crc(const char *name)
{
	unsigned char buf[64 * KiB], data[SECOND_LEN];
	struct gen_buf tar = { 0 }, gz = { 0 };
	z_stream s;
	size_t i;

	base_archive(name, "ustar", NULL);
	load(&tar, name);
	memset(&s, 0, sizeof(s));
	if (deflateInit2(&s, 0, Z_DEFLATED, 31, 9, Z_DEFAULT_STRATEGY) !=
	    Z_OK)
		gen_die("deflateInit2 failed");
	s.next_in = tar.p;
	s.avail_in = (uInt)tar.len;
	do {
		s.next_out = buf;
		s.avail_out = sizeof(buf);
		if (deflate(&s, Z_FINISH) == Z_STREAM_ERROR)
			gen_die("deflate failed");
		gen_buf_add(&gz, buf, sizeof(buf) - s.avail_out);
	} while (s.avail_out == 0);
	deflateEnd(&s);
	noise(data, sizeof(data), 2463534242u);
	for (i = 0; i + 16 <= gz.len; i++) {
		if (memcmp(gz.p + i, data + 1000, 16) == 0)
			break;
	}
	if (i + 16 > gz.len)
		gen_die("%s: stored data not found", name);
	gz.p[i] ^= 0xff;
	gen_buf_save(&gz, name, NULL);
	gen_buf_free(&tar);
	gen_buf_free(&gz);
}

/* The second central directory record's signature broken. */
static void
corrupt_zip_cd(const char *name)
{
	struct gen_zip z = { 0 };

	base_zip(&z);
	gen_zip_finish(&z, name);
	flip(name, ZIP_CD + 46 + 4 + 2);
}

/* A byte of the second (stored) entry's data flipped: its CRC fails. */
static void
corrupt_zip_crc(const char *name)
{
	struct gen_zip z = { 0 };

	base_zip(&z);
	gen_zip_finish(&z, name);
	flip(name, ZIP_SECOND_DATA + 1500);
}

/* Three files of 1 MiB: --max-bytes=2M lets exactly two through. */
static void
three_mib(const char *name)
{
	struct archive *a = gen_open(name, "ustar", "gzip");

	gen_file_zeros(a, "one", MiB);
	gen_file_zeros(a, "two", MiB);
	gen_file_zeros(a, "three", MiB);
	gen_close(a);
}

/*
 * A hundred thousand empty files in one directory: raw ustar headers,
 * zstd-compressed.
 */
#define MANY	100000

static void
many_files(struct gen_buf *b, unsigned int n)
{
	char entry[32];
	unsigned int i;

	for (i = 0; i < n; i++) {
		snprintf(entry, sizeof(entry), "f%06u", i);
		raw_tar_header(b, "ustar", entry, strlen(entry), '0', 0644, 0,
		    NULL, 0);
	}
	raw_tar_end(b);
}

static void
many_100k(const char *name)
{
	struct gen_buf b = { 0 };

	many_files(&b, MANY);
	gen_buf_save(&b, name, "zstd");
	gen_buf_free(&b);
}

/* 5000 files, for --max-entries=1000. */
static void
many_5000(const char *name)
{
	struct gen_buf b = { 0 };

	many_files(&b, 5000);
	gen_buf_save(&b, name, "gzip");
	gen_buf_free(&b);
}

/*
 * LEVELS nested directories, each component COMP, beside a good file
 * (pax path records past 100 bytes).
 */
static void
deep_dirs(const char *name, const char *comp, size_t levels)
{
	struct archive *a = gen_open(name, "pax", "zstd");
	size_t clen = strlen(comp), i;
	char *path = malloc(clen * levels + 1);

	if (path == NULL)
		gen_die("out of memory");
	gen_file(a, "good", "good", 0644);
	for (i = 0; i < levels; i++) {
		memcpy(path + clen * i, comp, clen + 1);
		gen_dir(a, path, 0755);
	}
	gen_close(a);
	free(path);
}

/* 5000 levels of a/, a/a/, ...: the deepest name is 10000 bytes. */
static void
deep_a(const char *name)
{
	deep_dirs(name, "a/", 5000);
}

/*
 * 400 levels of 14-byte components: names pass PATH_MAX at depth 293,
 * past the depth limit of 256.  (2047 levels of "a/" would reach it
 * too, but cost pfextract a quadratic number of opens, 20 to 45 s.)
 */
static void
deep_wide(const char *name)
{
	deep_dirs(name, "aaaaaaaaaaaaa/", 400);
}

/*
 * One name of 100000 "a/" components and "x.c" (200 KB, in a pax path
 * record), beside a good file: run with --exclude='*.o', a matcher that
 * tries the pattern at every tail after a '/' makes 100000 tries of up to
 * 200000 bytes each (pfextract took 32 s on it); one linear pass takes
 * well under a millisecond.
 */
static void
exclude_tails(const char *name)
{
	struct archive *a = gen_open(name, "pax", "gzip");
	size_t reps = 100000, i;
	char *path = malloc(2 * reps + sizeof("x.c"));

	if (path == NULL)
		gen_die("out of memory");
	for (i = 0; i < reps; i++)
		memcpy(path + 2 * i, "a/", 2);
	memcpy(path + 2 * reps, "x.c", sizeof("x.c"));
	gen_file(a, "good", "good", 0644);
	gen_file(a, path, "x", 0644);
	gen_close(a);
	free(path);
}

/*
 * A pax sparse entry (GNU.sparse 1.0) of SIZE bytes apparent size holding
 * two 4 KiB data blocks, at its start and at its end, beside a good file.
 */
#define TIB	(1024ull * 1024 * 1024 * 1024)
#define GIB	(1024ull * 1024 * 1024)

static void
sparse_of(const char *name, uint64_t size)
{
	struct archive *a = gen_open(name, "pax", "gzip");
	struct archive_entry *e = archive_entry_new();
	unsigned char data[8 * KiB];

	if (e == NULL)
		gen_die("out of memory");
	gen_file(a, "good", "good", 0644);
	memset(data, 'x', sizeof(data));
	archive_entry_set_pathname(e, "sparse");
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, 0644);
	archive_entry_set_mtime(e, 1700000000, 0);
	archive_entry_set_size(e, (la_int64_t)size);
	archive_entry_sparse_add_entry(e, 0, 4 * KiB);
	archive_entry_sparse_add_entry(e, (la_int64_t)(size - 4 * KiB),
	    4 * KiB);
	if (archive_write_header(a, e) != ARCHIVE_OK ||
	    archive_write_data(a, data, sizeof(data)) != sizeof(data))
		gen_die("%s: %s", name, archive_error_string(a));
	archive_entry_free(e);
	gen_close(a);
}

/*
 * 400 symlinks in a chain, each with a 4 KB target that climbs in and out
 * of a directory 800 times before it names the previous link (l0 names a
 * file): judged component by component over the disk with 40 links
 * followed each, the review's 8.9 KB archive took 172 s.
 */
static void
link_chain(const char *name)
{
	struct archive *a = gen_open(name, "pax", "gzip");
	char target[4100], link[16];
	size_t i, n = 0;

	for (i = 0; i < 800; i++) {
		memcpy(target + n, "x/../", 5);
		n += 5;
	}
	gen_dir(a, "x", 0755);
	gen_file(a, "f", "f", 0644);
	for (i = 0; i < 400; i++) {
		snprintf(target + n, sizeof(target) - n, i == 0 ? "f" :
		    "l%zu", i - 1);
		snprintf(link, sizeof(link), "l%zu", i);
		gen_symlink(a, link, target);
	}
	gen_close(a);
}

static void
sparse_tib(const char *name)
{
	sparse_of(name, TIB);
}

/* Within every per-entry limit: only its holes' ratio stops it. */
static void
sparse_8gib(const char *name)
{
	sparse_of(name, 8 * GIB);
}

/*
 * A header whose size field claims 8 EiB (base-256, 2^63: more than any
 * signed 64-bit size), followed by 512 bytes and the end of the archive.
 */
static void
size_8eib(const char *name)
{
	struct gen_buf b = { 0 };

	raw_tar_file(&b, "good", "good");
	raw_tar_header(&b, "gnu", "huge", 4, '0', 0644, 1ull << 63, NULL, 0);
	raw_tar_data(&b, "data", 4);
	raw_tar_end(&b);
	gen_buf_save(&b, name, NULL);
	gen_buf_free(&b);
}

/* The largest octal size, 077777777777 (8 GiB - 1), and then nothing. */
static void
size_octal_cut(const char *name)
{
	struct gen_buf b = { 0 };

	raw_tar_file(&b, "good", "good");
	raw_tar_header(&b, "ustar", "big", 3, '0', 0644, 077777777777ull,
	    NULL, 0);
	gen_buf_save(&b, name, NULL);
	gen_buf_free(&b);
}

const struct gen_case gen_cases_resources[] = {
	{ "res-bomb-gzip", bomb_gzip },
	{ "res-bomb-nested", bomb_nested },
	{ "res-bomb-bzip2", bomb_bzip2 },
	{ "res-bomb-xz", bomb_xz },
	{ "res-bomb-lzip", bomb_lzip },
	{ "res-bomb-zstd", bomb_zstd },
	{ "res-bomb-lz4", bomb_lz4 },
	{ "res-bomb-lzma", bomb_lzma },
	{ "res-bomb-compress", bomb_compress },
	{ "res-zip-one", zip_one },
	{ "res-zip-fifield", zip_fifield },
	{ "res-bomb-maxbytes", bomb_gzip_again },
	{ "res-trunc-tar-header", trunc_tar_header },
	{ "res-trunc-tar-data", trunc_tar_data },
	{ "res-trunc-tar-trailer", trunc_tar_trailer },
	{ "res-trunc-targz-data", trunc_targz_data },
	{ "res-trunc-targz-trailer", trunc_targz_trailer },
	{ "res-trunc-zip-data", trunc_zip_data },
	{ "res-trunc-zip-cd", trunc_zip_cd },
	{ "res-trunc-7z", trunc_7z },
	{ "res-trunc-newc-data", trunc_newc_data },
	{ "res-trunc-newc-trailer", trunc_newc_trailer },
	{ "res-corrupt-tar-sum", corrupt_tar_sum },
	{ "res-corrupt-gzip-data", corrupt_gzip_data },
	{ "res-corrupt-gzip-crc", corrupt_gzip_crc },
	{ "res-corrupt-zip-cd", corrupt_zip_cd },
	{ "res-corrupt-zip-crc", corrupt_zip_crc },
	{ "res-bomb-lz4-maxbytes", bomb_lz4 },
	{ "res-ratio-raised", bomb_gzip_small },
	{ "res-nolimits", bomb_gzip_small },
	{ "res-maxbytes", three_mib },
	{ "res-many-100k", many_100k },
	{ "res-many-max-entries", many_5000 },
	{ "res-deep-5000", deep_a },
	{ "res-deep-nolimits", deep_wide },
	{ "res-exclude-tails", exclude_tails },
	{ "res-sparse-tib", sparse_tib },
	{ "res-sparse-tib-allowed", sparse_tib },
	{ "res-sparse-8g-ratio", sparse_8gib },
	{ "res-link-chain", link_chain },
	{ "res-size-8eib", size_8eib },
	{ "res-size-octal-cut", size_octal_cut },
	{ NULL, NULL },
};
