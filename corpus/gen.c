/*
 * gen.c -- the corpus generator: writes every case's archive into an
 * output directory, for corpus/run.sh to extract and judge against the
 * manifest.  The cases themselves live in the cases_*.c family files.
 *
 *	mkcorpus OUTDIR ABSROOT [CASE...]
 *
 * ABSROOT is the absolute path of the test tree the runner builds for
 * each case: absolute names in the archives point into it, so that an
 * extractor that honoured one would be caught by the runner's snapshot
 * instead of writing to the real /etc.  With CASE names, only those.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <zlib.h>

#include "gen.h"

/* A fixed time, so that two runs write the same bytes. */
#define GEN_MTIME 1700000000

static const char *out_dir;
static const char *abs_root;

void
gen_die(const char *fmt, ...)
{
	va_list ap;

	fputs("mkcorpus: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

const char *
gen_abs_root(void)
{
	return abs_root;
}

const char *
gen_abs(char *buf, size_t cap, const char *rel)
{
	int n = snprintf(buf, cap, "%s/%s", abs_root, rel);

	if (n < 0 || (size_t)n >= cap)
		gen_die("absolute name too long: %s", rel);
	return buf;
}

const char *
gen_out_path(const char *file)
{
	static char path[PATH_MAX];
	int n = snprintf(path, sizeof(path), "%s/%s", out_dir, file);

	if (n < 0 || (size_t)n >= sizeof(path))
		gen_die("output path too long: %s", file);
	return path;
}

static void
check(struct archive *a, int r, const char *what)
{
	if (r != ARCHIVE_OK)
		gen_die("%s: %s", what, archive_error_string(a));
}

static void
set_format(struct archive *a, const char *format)
{
	static const struct {
		const char *name;
		int (*set)(struct archive *);
	} formats[] = {
		{ "ustar", archive_write_set_format_ustar },
		{ "pax", archive_write_set_format_pax },
		{ "gnutar", archive_write_set_format_gnutar },
		{ "v7", archive_write_set_format_v7tar },
		{ "zip", archive_write_set_format_zip },
		{ "newc", archive_write_set_format_cpio_newc },
		{ "odc", archive_write_set_format_cpio_odc },
		{ "bin", archive_write_set_format_cpio_bin },
		{ "7zip", archive_write_set_format_7zip },
		{ "raw", archive_write_set_format_raw },
	};
	size_t i;

	for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		if (strcmp(formats[i].name, format) == 0) {
			check(a, formats[i].set(a), format);
			return;
		}
	}
	gen_die("unknown format %s", format);
}

static void
set_filter(struct archive *a, const char *filter)
{
	static const struct {
		const char *name;
		int (*add)(struct archive *);
	} filters[] = {
		{ "gzip", archive_write_add_filter_gzip },
		{ "bzip2", archive_write_add_filter_bzip2 },
		{ "xz", archive_write_add_filter_xz },
		{ "lzma", archive_write_add_filter_lzma },
		{ "lzip", archive_write_add_filter_lzip },
		{ "zstd", archive_write_add_filter_zstd },
		{ "lz4", archive_write_add_filter_lz4 },
		{ "compress", archive_write_add_filter_compress },
	};
	size_t i;

	if (filter == NULL || strcmp(filter, "none") == 0)
		return;
	for (i = 0; i < sizeof(filters) / sizeof(filters[0]); i++) {
		if (strcmp(filters[i].name, filter) == 0) {
			check(a, filters[i].add(a), filter);
			return;
		}
	}
	gen_die("unknown filter %s", filter);
}

struct archive *
gen_open(const char *file, const char *format, const char *filter)
{
	struct archive *a = archive_write_new();

	if (a == NULL)
		gen_die("out of memory");
	set_format(a, format);
	set_filter(a, filter);
	/* Small archives: one record per block, no padding to 10 KiB. */
	if (strcmp(format, "zip") != 0 && strcmp(format, "7zip") != 0)
		check(a, archive_write_set_bytes_per_block(a, 512), file);
	check(a, archive_write_open_filename(a, gen_out_path(file)), file);
	return a;
}

void
gen_close(struct archive *a)
{
	check(a, archive_write_close(a), "close");
	archive_write_free(a);
}

static struct archive_entry *
new_entry(const char *name, mode_t type, mode_t perm)
{
	struct archive_entry *e = archive_entry_new();

	if (e == NULL)
		gen_die("out of memory");
	archive_entry_set_pathname(e, name);
	archive_entry_set_filetype(e, type);
	archive_entry_set_perm(e, perm);
	archive_entry_set_mtime(e, GEN_MTIME, 0);
	return e;
}

/* Write E's header and LEN bytes of DATA; frees E. */
static void
put(struct archive *a, struct archive_entry *e, const void *data,
    size_t len)
{
	int r = archive_write_header(a, e);

	/* A warning (a name cut for the format) still writes the entry. */
	if (r < ARCHIVE_WARN)
		gen_die("%s: %s", archive_entry_pathname(e),
		    archive_error_string(a));
	if (len > 0 && archive_write_data(a, data, len) != (la_ssize_t)len)
		gen_die("%s: %s", archive_entry_pathname(e),
		    archive_error_string(a));
	archive_entry_free(e);
}

void
gen_file_len(struct archive *a, const char *name, const void *data,
    size_t len, mode_t perm)
{
	struct archive_entry *e = new_entry(name, AE_IFREG, perm);

	archive_entry_set_size(e, (la_int64_t)len);
	put(a, e, data, len);
}

void
gen_file(struct archive *a, const char *name, const char *data, mode_t perm)
{
	gen_file_len(a, name, data, strlen(data), perm);
}

void
gen_file_zeros(struct archive *a, const char *name, uint64_t size)
{
	static const char zeros[1 << 16];
	struct archive_entry *e = new_entry(name, AE_IFREG, 0644);
	int r;

	archive_entry_set_size(e, (la_int64_t)size);
	r = archive_write_header(a, e);
	if (r < ARCHIVE_WARN)
		gen_die("%s: %s", name, archive_error_string(a));
	while (size > 0) {
		size_t n = size < sizeof(zeros) ? (size_t)size : sizeof(zeros);

		if (archive_write_data(a, zeros, n) != (la_ssize_t)n)
			gen_die("%s: %s", name, archive_error_string(a));
		size -= n;
	}
	archive_entry_free(e);
}

void
gen_dir(struct archive *a, const char *name, mode_t perm)
{
	put(a, new_entry(name, AE_IFDIR, perm), NULL, 0);
}

void
gen_symlink(struct archive *a, const char *name, const char *target)
{
	struct archive_entry *e = new_entry(name, AE_IFLNK, 0777);

	archive_entry_set_symlink(e, target);
	put(a, e, NULL, 0);
}

void
gen_hardlink(struct archive *a, const char *name, const char *target,
    const char *data)
{
	struct archive_entry *e = new_entry(name, AE_IFREG, 0644);
	size_t len = data != NULL ? strlen(data) : 0;

	archive_entry_set_hardlink(e, target);
	archive_entry_set_size(e, (la_int64_t)len);
	put(a, e, data, len);
}

void
gen_special(struct archive *a, const char *name, mode_t type,
    unsigned int major, unsigned int minor)
{
	struct archive_entry *e = new_entry(name, type, 0666);

	archive_entry_set_rdevmajor(e, major);
	archive_entry_set_rdevminor(e, minor);
	put(a, e, NULL, 0);
}

void
gen_file_owned(struct archive *a, const char *name, const char *data,
    mode_t perm, int64_t uid, int64_t gid)
{
	struct archive_entry *e = new_entry(name, AE_IFREG, perm);
	size_t len = strlen(data);

	archive_entry_set_uid(e, uid);
	archive_entry_set_gid(e, gid);
	archive_entry_set_size(e, (la_int64_t)len);
	put(a, e, data, len);
}

void
gen_dir_owned(struct archive *a, const char *name, mode_t perm, int64_t uid,
    int64_t gid)
{
	struct archive_entry *e = new_entry(name, AE_IFDIR, perm);

	archive_entry_set_uid(e, uid);
	archive_entry_set_gid(e, gid);
	put(a, e, NULL, 0);
}

/* Buffers. */

void
gen_buf_add(struct gen_buf *b, const void *data, size_t len)
{
	if (len > SIZE_MAX / 2 - b->len)
		gen_die("buffer too large");
	if (b->len + len > b->cap) {
		size_t cap = b->cap != 0 ? b->cap : 4096;
		unsigned char *p;

		while (cap < b->len + len)
			cap *= 2;
		p = realloc(b->p, cap);
		if (p == NULL)
			gen_die("out of memory");
		b->p = p;
		b->cap = cap;
	}
	if (len > 0) {
		if (data != NULL)
			memcpy(b->p + b->len, data, len);
		else
			memset(b->p + b->len, 0, len);
	}
	b->len += len;
}

void
gen_buf_zeros(struct gen_buf *b, size_t len)
{
	gen_buf_add(b, NULL, len);
}

void
gen_buf_free(struct gen_buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

static void
save_plain(const struct gen_buf *b, const char *file)
{
	const char *path = gen_out_path(file);
	FILE *f = fopen(path, "wb");

	if (f == NULL)
		gen_die("%s: %s", path, strerror(errno));
	if ((b->len > 0 && fwrite(b->p, 1, b->len, f) != b->len) ||
	    fclose(f) != 0)
		gen_die("%s: write error", path);
}

void
gen_buf_save(const struct gen_buf *b, const char *file, const char *filter)
{
	struct archive *a;
	struct archive_entry *e;

	if (filter == NULL || strcmp(filter, "none") == 0) {
		save_plain(b, file);
		return;
	}
	/* libarchive's raw format: the bytes themselves, compressed. */
	a = archive_write_new();
	if (a == NULL)
		gen_die("out of memory");
	set_format(a, "raw");
	set_filter(a, filter);
	check(a, archive_write_open_filename(a, gen_out_path(file)), file);
	e = new_entry("raw", AE_IFREG, 0644);
	archive_entry_set_size(e, (la_int64_t)b->len);
	put(a, e, b->p, b->len);
	gen_close(a);
}

/* Raw tar. */

static void
octal(char *field, size_t width, uint64_t value)
{
	/* WIDTH - 1 digits and a NUL, as ustar writes them. */
	size_t i = width - 1;

	field[i] = '\0';
	while (i > 0) {
		field[--i] = (char)('0' + (value & 7));
		value >>= 3;
	}
}

void
raw_tar_header(struct gen_buf *b, const char *magic, const char *name,
    size_t namelen, char type, mode_t perm, uint64_t size, const char *link,
    size_t linklen)
{
	char h[512];
	unsigned int sum = 0;
	size_t i;

	memset(h, 0, sizeof(h));
	memcpy(h, name, namelen < 100 ? namelen : 100);
	octal(h + 100, 8, perm & 07777);
	octal(h + 108, 8, 0);
	octal(h + 116, 8, 0);
	if (size > 077777777777ull) {
		/* Base-256, as GNU and libarchive write large sizes. */
		h[124] = (char)0x80;
		for (i = 0; i < 8; i++)
			h[135 - i] = (char)(size >> (8 * i));
	} else {
		octal(h + 124, 12, size);
	}
	octal(h + 136, 12, GEN_MTIME);
	h[156] = type;
	if (link != NULL)
		memcpy(h + 157, link, linklen < 100 ? linklen : 100);
	if (strcmp(magic, "ustar") == 0)
		memcpy(h + 257, "ustar\0" "00", 8);
	else if (strcmp(magic, "gnu") == 0)
		memcpy(h + 257, "ustar  \0", 8);
	else if (strcmp(magic, "v7") != 0)
		gen_die("unknown tar magic %s", magic);
	memset(h + 148, ' ', 8);
	for (i = 0; i < sizeof(h); i++)
		sum += (unsigned char)h[i];
	octal(h + 148, 7, sum);
	h[155] = ' ';
	gen_buf_add(b, h, sizeof(h));
}

void
raw_tar_data(struct gen_buf *b, const void *data, size_t len)
{
	gen_buf_add(b, data, len);
	if (len % 512 != 0)
		gen_buf_zeros(b, 512 - len % 512);
}

void
raw_tar_file(struct gen_buf *b, const char *name, const char *data)
{
	size_t len = strlen(data);

	raw_tar_header(b, "ustar", name, strlen(name), '0', 0644, len, NULL,
	    0);
	raw_tar_data(b, data, len);
}

void
raw_tar_pax(struct gen_buf *b, char type, const char *const *records)
{
	struct gen_buf body = { 0 };
	size_t i;

	for (i = 0; records[i] != NULL; i++) {
		size_t kv = strlen(records[i]) + 2;	/* ' ' and '\n' */
		size_t digits = 1, total;
		char len[24];

		/* The length counts its own digits. */
		for (;;) {
			total = kv + digits;
			if ((size_t)snprintf(len, sizeof(len), "%zu", total) ==
			    digits)
				break;
			digits++;
		}
		gen_buf_add(&body, len, digits);
		gen_buf_add(&body, " ", 1);
		gen_buf_add(&body, records[i], strlen(records[i]));
		gen_buf_add(&body, "\n", 1);
	}
	raw_tar_header(b, "ustar", "PaxHeaders/x", 12, type, 0644, body.len,
	    NULL, 0);
	raw_tar_data(b, body.p, body.len);
	gen_buf_free(&body);
}

void
raw_tar_gnu_long(struct gen_buf *b, char type, const char *name,
    size_t len)
{
	raw_tar_header(b, "gnu", "././@LongLink", 13, type, 0644, len + 1,
	    NULL, 0);
	gen_buf_add(b, name, len);
	gen_buf_zeros(b, 1);
	if ((len + 1) % 512 != 0)
		gen_buf_zeros(b, 512 - (len + 1) % 512);
}

void
raw_tar_end(struct gen_buf *b)
{
	gen_buf_zeros(b, 1024);
}

/* Raw zip. */

static void
le16(struct gen_buf *b, unsigned int v)
{
	unsigned char c[2] = { (unsigned char)v, (unsigned char)(v >> 8) };

	gen_buf_add(b, c, 2);
}

static void
le32(struct gen_buf *b, uint32_t v)
{
	le16(b, v & 0xffff);
	le16(b, v >> 16);
}

uint32_t
gen_zip_add(struct gen_zip *z, const char *name, size_t namelen,
    unsigned int method, const void *data, size_t len, uint32_t usize,
    uint32_t crc, uint32_t ext_attr)
{
	uint32_t offset = (uint32_t)z->b.len;

	le32(&z->b, 0x04034b50);
	le16(&z->b, 20);		/* version needed */
	le16(&z->b, 0);			/* flags */
	le16(&z->b, method);
	le16(&z->b, 0);			/* time */
	le16(&z->b, 0x5721);		/* date: 2023-09-01 */
	le32(&z->b, crc);
	le32(&z->b, (uint32_t)len);
	le32(&z->b, usize);
	le16(&z->b, (unsigned int)namelen);
	le16(&z->b, 0);			/* extra */
	gen_buf_add(&z->b, name, namelen);
	gen_buf_add(&z->b, data, len);
	gen_zip_central(z, name, namelen, method, (uint32_t)len, usize, crc,
	    offset, ext_attr);
	return offset;
}

void
gen_zip_central(struct gen_zip *z, const char *name, size_t namelen,
    unsigned int method, uint32_t csize, uint32_t usize, uint32_t crc,
    uint32_t offset, uint32_t ext_attr)
{
	le32(&z->cd, 0x02014b50);
	le16(&z->cd, 0x031e);		/* made by: Unix, 3.0 */
	le16(&z->cd, 20);
	le16(&z->cd, 0);
	le16(&z->cd, method);
	le16(&z->cd, 0);
	le16(&z->cd, 0x5721);
	le32(&z->cd, crc);
	le32(&z->cd, csize);
	le32(&z->cd, usize);
	le16(&z->cd, (unsigned int)namelen);
	le16(&z->cd, 0);		/* extra */
	le16(&z->cd, 0);		/* comment */
	le16(&z->cd, 0);		/* disk */
	le16(&z->cd, 0);		/* internal attributes */
	le32(&z->cd, ext_attr);
	le32(&z->cd, offset);
	gen_buf_add(&z->cd, name, namelen);
	z->n++;
}

void
gen_zip_finish(struct gen_zip *z, const char *file)
{
	uint32_t cd_offset = (uint32_t)z->b.len;

	gen_buf_add(&z->b, z->cd.p, z->cd.len);
	le32(&z->b, 0x06054b50);
	le16(&z->b, 0);
	le16(&z->b, 0);
	le16(&z->b, z->n);
	le16(&z->b, z->n);
	le32(&z->b, (uint32_t)z->cd.len);
	le32(&z->b, cd_offset);
	le16(&z->b, 0);
	gen_buf_save(&z->b, file, NULL);
	gen_buf_free(&z->b);
	gen_buf_free(&z->cd);
	z->n = 0;
}

void
gen_deflate(struct gen_buf *out, const void *data, size_t len)
{
	z_stream s;
	unsigned char chunk[1 << 16];
	int r;

	memset(&s, 0, sizeof(s));
	/* Negative window bits: a raw deflate stream, as zip stores it. */
	if (deflateInit2(&s, 9, Z_DEFLATED, -15, 9, Z_DEFAULT_STRATEGY) !=
	    Z_OK)
		gen_die("deflateInit2 failed");
	s.next_in = (unsigned char *)(uintptr_t)data;
	s.avail_in = (uInt)len;
	if ((size_t)s.avail_in != len)
		gen_die("deflate input too large");
	do {
		s.next_out = chunk;
		s.avail_out = sizeof(chunk);
		r = deflate(&s, Z_FINISH);
		if (r == Z_STREAM_ERROR)
			gen_die("deflate failed");
		gen_buf_add(out, chunk, sizeof(chunk) - s.avail_out);
	} while (r != Z_STREAM_END);
	deflateEnd(&s);
}

uint32_t
gen_crc32(const void *data, size_t len)
{
	uLong c = crc32(0L, Z_NULL, 0);

	if (data != NULL)
		return (uint32_t)crc32(c, data, (uInt)len);
	{
		static const unsigned char zeros[1 << 16];

		while (len > 0) {
			size_t n = len < sizeof(zeros) ? len : sizeof(zeros);

			c = crc32(c, zeros, (uInt)n);
			len -= n;
		}
	}
	return (uint32_t)c;
}

/* The registry. */

static const struct gen_case *const families[] = {
	gen_cases_names,
	gen_cases_links,
	gen_cases_special,
	gen_cases_resources,
};

static int
wanted(const char *name, int argc, char **argv)
{
	int i;

	if (argc == 0)
		return 1;
	for (i = 0; i < argc; i++) {
		if (strcmp(argv[i], name) == 0)
			return 1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	size_t f, i, n = 0;

	if (argc < 3 || argv[2][0] != '/') {
		fprintf(stderr, "usage: mkcorpus outdir /absroot [case ...]\n");
		return 2;
	}
	out_dir = argv[1];
	abs_root = argv[2];
	for (f = 0; f < sizeof(families) / sizeof(families[0]); f++) {
		for (i = 0; families[f][i].name != NULL; i++) {
			const struct gen_case *c = &families[f][i];

			if (!wanted(c->name, argc - 3, argv + 3))
				continue;
			c->build(c->name);
			n++;
		}
	}
	if (n == 0)
		gen_die("no case matched");
	return 0;
}
