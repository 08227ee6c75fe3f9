/*
 * test_cost.c -- what an archive costs that the run does not write: data
 * decoded for an entry that is refused, excluded or only listed counts
 * toward --max-ratio as written data does (issue 18), in this process and
 * through the decoder process alike.
 *
 * Each case extracts, in memory, a gzip'd tar whose one big entry is 96
 * MiB of zeros (about 1030:1, past the ratio's 64 MiB grace) and that the
 * run does not write; the run must stop with max-ratio, not read the
 * whole bomb for nothing.
 */
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <criterion/criterion.h>
#include <lzma.h>
#include <zlib.h>

#include "pfextract.h"
#include "fixture.h"
#include "platform.h"

#define BOMB_SIZE (96u << 20)
#define OUT_CAP (1u << 20)

/* A fresh directory under $TMPDIR into DIR (CAP bytes).  Return: its
 * descriptor. */
static int
fresh_dest(char *dir, size_t cap)
{
	const char *tmp = getenv("TMPDIR");
	int fd;

	snprintf(dir, cap, "%s/pfx-cost.XXXXXX",
	    tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
	cr_assert(mkdtemp(dir) != NULL);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert(fd >= 0);
	return fd;
}

/* A .tar.gz in memory: "good", then NAME holding BOMB_SIZE zeros. */
static size_t
bomb_archive(unsigned char *out, size_t cap, const char *name)
{
	static char zeros[1 << 20];
	struct archive *a = archive_write_new();
	struct archive_entry *e = archive_entry_new();
	size_t used = 0, i;

	cr_assert(a != NULL && e != NULL);
	cr_assert(archive_write_set_format_pax_restricted(a) == ARCHIVE_OK);
	cr_assert(archive_write_add_filter_gzip(a) == ARCHIVE_OK);
	cr_assert(archive_write_open_memory(a, out, cap, &used) ==
	    ARCHIVE_OK);
	archive_entry_set_pathname(e, "good");
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, 0644);
	archive_entry_set_size(e, 5);
	cr_assert(archive_write_header(a, e) == ARCHIVE_OK);
	cr_assert(archive_write_data(a, "good\n", 5) == 5);
	archive_entry_clear(e);
	archive_entry_set_pathname(e, name);
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, 0644);
	archive_entry_set_size(e, BOMB_SIZE);
	cr_assert(archive_write_header(a, e) == ARCHIVE_OK);
	for (i = 0; i < BOMB_SIZE / sizeof(zeros); i++)
		cr_assert(archive_write_data(a, zeros, sizeof(zeros)) ==
		    (la_ssize_t)sizeof(zeros));
	cr_assert(archive_write_close(a) == ARCHIVE_OK);
	archive_entry_free(e);
	archive_write_free(a);
	return used;
}

/* Extract the bomb named NAME with FLAGS (and EXCLUDE, if not NULL):
 * it must stop at max-ratio with nothing of it written. */
static void
expect_ratio_stop(const char *name, unsigned int flags, const char *exclude)
{
	static unsigned char buf[OUT_CAP];
	const char *ex[1] = { exclude };
	struct pfx_options opt;
	struct pfx_result res;
	struct pfx_input in;
	char dir[256];
	int fd = fresh_dest(dir, sizeof(dir));

	memset(&in, 0, sizeof(in));
	in.fd = -1;
	in.buf = buf;
	in.len = bomb_archive(buf, sizeof(buf), name);
	cr_assert(in.len < BOMB_SIZE / 500, "the bomb is %zu bytes", in.len);
	pfx_options_init(&opt);
	opt.flags |= flags;
	if (exclude != NULL) {
		opt.exclude = ex;
		opt.nexclude = 1;
	}
	(void)pfx_extract(&in, fd, ".", &opt, &res);
	cr_expect_eq(res.status, PFX_FATAL, "%s %#x: status %d: %s", name,
	    flags, res.status, res.message);
	cr_expect_eq(res.error, EFBIG, "%s %#x: %s", name, flags,
	    res.message);
	cr_expect(strstr(res.message, "max-ratio=200") != NULL, "%s %#x: %s",
	    name, flags, res.message);
	cr_expect(faccessat(fd, "zeros", F_OK, AT_SYMLINK_NOFOLLOW) == -1,
	    "the bomb was written");
	(void)close(fd);
	(void)tfx_rm_tree(dir);
}

/* A refused entry (its name climbs out): decoded, never written. */
Test(cost, refused_entry_counts)
{
	expect_ratio_stop("../zeros", 0, NULL);
	expect_ratio_stop("../zeros", PFX_OPT_SANDBOX_CHILD, NULL);
}

/* An excluded entry. */
Test(cost, excluded_entry_counts)
{
	expect_ratio_stop("zeros", 0, "zeros");
	expect_ratio_stop("zeros", PFX_OPT_SANDBOX_CHILD, "zeros");
}

/* A listing writes nothing, and decodes the whole stream all the same. */
Test(cost, listed_entry_counts)
{
	expect_ratio_stop("zeros", PFX_OPT_LIST, NULL);
	expect_ratio_stop("zeros", PFX_OPT_LIST | PFX_OPT_SANDBOX_CHILD, NULL);
}

/* A tar in memory of one empty file NAME.  Return: its length. */
static size_t
one_file(unsigned char *out, size_t cap, const char *name)
{
	struct archive *a = archive_write_new();
	struct archive_entry *e = archive_entry_new();
	size_t used = 0;

	cr_assert(a != NULL && e != NULL);
	cr_assert(archive_write_set_format_pax_restricted(a) == ARCHIVE_OK);
	cr_assert(archive_write_open_memory(a, out, cap, &used) ==
	    ARCHIVE_OK);
	archive_entry_set_pathname(e, name);
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, 0644);
	archive_entry_set_size(e, 0);
	cr_assert(archive_write_header(a, e) == ARCHIVE_OK);
	cr_assert(archive_write_close(a) == ARCHIVE_OK);
	archive_entry_free(e);
	archive_write_free(a);
	return used;
}

/* Extract one entry NAME with --max-entries=MAX.  Return: the status. */
static enum pfx_status
extract_with_max(const char *name, uint64_t max, struct pfx_result *res)
{
	static unsigned char buf[64 << 10];
	struct pfx_options opt;
	struct pfx_input in;
	char dir[256];
	int fd = fresh_dest(dir, sizeof(dir));

	memset(&in, 0, sizeof(in));
	in.fd = -1;
	in.buf = buf;
	in.len = one_file(buf, sizeof(buf), name);
	pfx_options_init(&opt);
	opt.limits.max_entries = max;
	(void)pfx_extract(&in, fd, ".", &opt, res);
	(void)close(fd);
	(void)tfx_rm_tree(dir);
	return res->status;
}

/*
 * The directories made for an entry's name are inodes as entries are:
 * one entry of five new components is five inodes against --max-entries.
 */
Test(cost, implicit_dirs_count_as_entries)
{
	struct pfx_result res;

	cr_expect_eq(extract_with_max("a/b/c/d/f", 4, &res), PFX_FATAL,
	    "%s", res.message);
	cr_expect_eq(res.error, EFBIG);
	cr_expect(strstr(res.message, "max-entries=4") != NULL, "%s",
	    res.message);
	cr_expect_eq(extract_with_max("a/b/c/d/f", 5, &res), PFX_OK, "%s",
	    res.message);
}

/* --- bytes in no entry's data -------------------------------------------- */

#define PAX_RECORD (1000u * 1000u)	/* a pax header libarchive reads */
#define HEADER_BOMB_ENTRIES 100		/* 100 MB of headers in all */

/* A ustar header at OUT: NAME, TYPE, SIZE, its checksum. */
static void
ustar_header(unsigned char *out, const char *name, char type, size_t size)
{
	unsigned int sum = 0;
	size_t i;

	memset(out, 0, 512);
	memcpy(out, name, strlen(name));
	memcpy(out + 100, "0000644", 7);
	memcpy(out + 108, "0000000", 7);
	memcpy(out + 116, "0000000", 7);
	(void)snprintf((char *)out + 124, 12, "%011zo", size);
	memcpy(out + 136, "00000000000", 11);
	out[156] = (unsigned char)type;
	memcpy(out + 257, "ustar", 6);
	memcpy(out + 263, "00", 2);
	memset(out + 148, ' ', 8);
	for (i = 0; i < 512; i++)
		sum += out[i];
	(void)snprintf((char *)out + 148, 8, "%06o", sum);
}

/*
 * A tar whose entries are empty files, each behind a pax header of
 * PAX_RECORD bytes (a comment of 'a's), with FILTER (libarchive's:
 * gzip, which our decoder reads, or bzip2, which libarchive decodes
 * itself), into OUT.  Return: its length.
 */
static size_t
header_bomb(unsigned char *out, size_t cap, int filter)
{
	static unsigned char rec[PAX_RECORD];
	unsigned char h[512];
	struct archive *a = archive_write_new();
	struct archive_entry *e = archive_entry_new();
	size_t used = 0, n, pad;
	char name[32];
	int i;

	/* "NNNNNNN comment=aaa...\n", NNNNNNN the record's own length. */
	memset(rec, 'a', sizeof(rec));
	n = (size_t)snprintf((char *)rec, 32, "%07u comment=", PAX_RECORD);
	rec[n] = 'a';
	rec[PAX_RECORD - 1] = '\n';
	pad = (512 - PAX_RECORD % 512) % 512;
	cr_assert(a != NULL && e != NULL);
	cr_assert(archive_write_set_format_raw(a) == ARCHIVE_OK);
	cr_assert(archive_write_add_filter(a, filter) == ARCHIVE_OK);
	cr_assert(archive_write_open_memory(a, out, cap, &used) ==
	    ARCHIVE_OK);
	archive_entry_set_filetype(e, AE_IFREG);
	cr_assert(archive_write_header(a, e) == ARCHIVE_OK);
	memset(h, 0, sizeof(h));
	for (i = 0; i < HEADER_BOMB_ENTRIES; i++) {
		ustar_header(h, "pax", 'x', PAX_RECORD);
		cr_assert(archive_write_data(a, h, 512) == 512);
		cr_assert(archive_write_data(a, rec, PAX_RECORD) ==
		    (la_ssize_t)PAX_RECORD);
		memset(h, 0, sizeof(h));
		cr_assert(archive_write_data(a, h, pad) == (la_ssize_t)pad);
		(void)snprintf(name, sizeof(name), "f%d", i);
		ustar_header(h, name, '0', 0);
		cr_assert(archive_write_data(a, h, 512) == 512);
	}
	memset(h, 0, sizeof(h));
	cr_assert(archive_write_data(a, h, 512) == 512);
	cr_assert(archive_write_data(a, h, 512) == 512);
	cr_assert(archive_write_close(a) == ARCHIVE_OK);
	archive_entry_free(e);
	archive_write_free(a);
	return used;
}

/*
 * Headers count toward --max-ratio as data does: 100 MB of pax headers,
 * with no byte of entry data, stop at the limit, whoever decodes the
 * stream (our gzip decoder, or libarchive's bzip2), in this process and
 * in the decoder process.  Before, every header was decoded and nothing
 * counted.
 */
Test(cost, headers_count, .timeout = 120)
{
	static unsigned char buf[OUT_CAP];
	static const int filters[] = { ARCHIVE_FILTER_GZIP,
	    ARCHIVE_FILTER_BZIP2 };
	struct pfx_options opt;
	struct pfx_result res;
	struct pfx_input in;
	char dir[256];
	size_t f;
	int fd, sandbox;

	for (f = 0; f < 2; f++) {
		for (sandbox = 0; sandbox < 2; sandbox++) {
			fd = fresh_dest(dir, sizeof(dir));
			memset(&in, 0, sizeof(in));
			in.fd = -1;
			in.buf = buf;
			in.len = header_bomb(buf, sizeof(buf), filters[f]);
			cr_assert(in.len < 256u << 10, "%zu bytes", in.len);
			pfx_options_init(&opt);
			if (sandbox)
				opt.flags |= PFX_OPT_SANDBOX_CHILD;
			(void)pfx_extract(&in, fd, ".", &opt, &res);
			cr_expect_eq(res.status, PFX_FATAL, "filter %d, %d: "
			    "status %d: %s", filters[f], sandbox, res.status,
			    res.message);
			cr_expect_eq(res.error, EFBIG, "%s", res.message);
			cr_expect(strstr(res.message, "max-ratio=200") !=
			    NULL, "filter %d, %d: %s", filters[f], sandbox,
			    res.message);
			(void)close(fd);
			(void)tfx_rm_tree(dir);
		}
	}
}

/* --- one entry's headers: what libarchive holds before we see it ------ */

#define SPARSE_SEGMENTS 2000000u	/* 95,239 extension blocks, 48.8 MB */
#define SPARSE_CAP (16u << 20)
#define PAX_MAX (1024u * 1024u - 512u)	/* a pax header libarchive reads */
#define ZERO_RUN (20u << 20)		/* -i: zero blocks in one header read */

/* The checksum of the tar header at H. */
static void
tar_checksum(unsigned char *h)
{
	unsigned int sum = 0;
	size_t i;

	memset(h + 148, ' ', 8);
	for (i = 0; i < 512; i++)
		sum += h[i];
	(void)snprintf((char *)h + 148, 8, "%06o", sum);
}

/* Segment I of a sparse map, at offset 2I and 1 byte long: the 24 bytes
 * at P (two 12-byte octal fields). */
static void
segment(unsigned char *p, uint64_t i)
{
	(void)snprintf((char *)p, 12, "%011llo", (unsigned long long)(2 * i));
	(void)snprintf((char *)p + 12, 12, "%011llo", 1ull);
}

/* Write LEN bytes of zeros to A. */
static void
write_zeros(struct archive *a, size_t len)
{
	static const unsigned char zeros[64 << 10];
	size_t n;

	while (len > 0) {
		n = len < sizeof(zeros) ? len : sizeof(zeros);
		cr_assert(archive_write_data(a, zeros, n) == (la_ssize_t)n);
		len -= n;
	}
}

/*
 * Write to A (format raw) an old GNU sparse file NAME ('S') whose map has
 * SEGMENTS segments: 4 in its header, 21 in each 512-byte extension block
 * after it, which libarchive reads, and lists, all inside
 * archive_read_next_header(); then its data, a byte a segment.
 */
static void
write_sparse(struct archive *a, const char *name, uint64_t segments)
{
	unsigned char h[512];
	uint64_t i = 0, k;

	memset(h, 0, sizeof(h));
	memcpy(h, name, strlen(name));
	memcpy(h + 100, "0000644", 7);
	memcpy(h + 108, "0000000", 7);
	memcpy(h + 116, "0000000", 7);
	(void)snprintf((char *)h + 124, 12, "%011llo",
	    (unsigned long long)segments);
	memcpy(h + 136, "00000000000", 11);
	h[156] = 'S';
	memcpy(h + 257, "ustar  ", 8);		/* old GNU: "ustar  \0" */
	for (; i < 4 && i < segments; i++)
		segment(h + 386 + 24 * i, i);
	h[482] = segments > 4;			/* isextended */
	(void)snprintf((char *)h + 483, 12, "%011llo",
	    (unsigned long long)(2 * segments));	/* realsize */
	tar_checksum(h);
	cr_assert(archive_write_data(a, h, 512) == 512);
	while (i < segments) {
		memset(h, 0, sizeof(h));
		for (k = 0; k < 21 && i < segments; k++, i++)
			segment(h + 24 * k, i);
		h[504] = i < segments;		/* isextended */
		cr_assert(archive_write_data(a, h, 512) == 512);
	}
	memset(h, 'x', sizeof(h));
	for (i = segments; i >= 512; i -= 512)
		cr_assert(archive_write_data(a, h, 512) == 512);
	if (i > 0) {
		cr_assert(archive_write_data(a, h, i) == (la_ssize_t)i);
		write_zeros(a, 512 - i);
	}
}

/* A writer of a tar, block by block (format raw), through FILTER into
 * OUT (CAP bytes); *USED its length. */
static struct archive *
raw_writer(unsigned char *out, size_t cap, int filter, size_t *used)
{
	struct archive *a = archive_write_new();
	struct archive_entry *e = archive_entry_new();

	cr_assert(a != NULL && e != NULL);
	cr_assert(archive_write_set_format_raw(a) == ARCHIVE_OK);
	cr_assert(archive_write_add_filter(a, filter) == ARCHIVE_OK);
	cr_assert(archive_write_open_memory(a, out, cap, used) ==
	    ARCHIVE_OK);
	archive_entry_set_filetype(e, AE_IFREG);
	cr_assert(archive_write_header(a, e) == ARCHIVE_OK);
	archive_entry_free(e);
	return a;
}

/* End the tar that A writes (two zero blocks) and free A. */
static void
raw_end(struct archive *a)
{
	write_zeros(a, 1024);
	cr_assert(archive_write_close(a) == ARCHIVE_OK);
	archive_write_free(a);
}

/* The highest RSS, in bytes, of this process or (RUSAGE_CHILDREN) of
 * its children that ended. */
static uint64_t
peak_rss(int who)
{
	struct rusage ru;

	cr_assert(getrusage(who, &ru) == 0);
	return (uint64_t)ru.ru_maxrss * 1024;
}

/*
 * An old GNU sparse map of 2,000,000 segments (48.8 MB of extension
 * blocks, 5.1 MB gzip'd) made libarchive hold 160 MB of lists while it
 * read the one header, before pfextract saw the entry: unbounded, 1.6 GB
 * from a .tar.xz of 8 MB.  The header read now stops once it has taken
 * 16 MiB of the archive (1/64 of the default budget), with the limit
 * named, in this process and in the decoder process, whoever decodes
 * (our gzip decoder, or libarchive's bzip2), and the memory stays under
 * 100 MB.  The decoder process runs first, forked from a test process
 * that holds little; its RSS counts what it inherits, the archive too.
 */
static void
expect_sparse_stop(int filter)
{
	static unsigned char buf[SPARSE_CAP];
	struct pfx_options opt;
	struct pfx_result res;
	struct pfx_input in;
	struct archive *a;
	uint64_t before, after;
	char dir[256];
	size_t used = 0;
	int fd, sandbox;

	a = raw_writer(buf, sizeof(buf), filter, &used);
	write_sparse(a, "sparse", SPARSE_SEGMENTS);
	raw_end(a);
	cr_assert(used < 8u << 20, "%zu bytes", used);
	for (sandbox = 1; sandbox >= 0; sandbox--) {
		fd = fresh_dest(dir, sizeof(dir));
		memset(&in, 0, sizeof(in));
		in.fd = -1;
		in.buf = buf;
		in.len = used;
		pfx_options_init(&opt);
		if (sandbox)
			opt.flags |= PFX_OPT_SANDBOX_CHILD;
		before = peak_rss(sandbox ? RUSAGE_CHILDREN : RUSAGE_SELF);
		(void)pfx_extract(&in, fd, ".", &opt, &res);
		after = peak_rss(sandbox ? RUSAGE_CHILDREN : RUSAGE_SELF);
		cr_expect_eq(res.status, PFX_FATAL, "filter %d, %d: status %d: "
		    "%s", filter, sandbox, res.status, res.message);
		cr_expect_eq(res.error, EFBIG, "%s", res.message);
		cr_expect(strstr(res.message, "limit max-memory=1073741824 "
		    "reached: one entry's headers take more than 16 MiB") !=
		    NULL, "filter %d, %d: %s", filter, sandbox, res.message);
		/* A sanitizer's allocator costs more a block, and keeps
		 * what is freed: only the plain build is measured. */
		if (!plat_sanitized() && sandbox)
			cr_expect(after < 100u << 20, "filter %d: the decoder "
			    "process's peak RSS is %llu MB", filter,
			    (unsigned long long)(after >> 20));
		if (!plat_sanitized() && !sandbox)
			cr_expect(after - before < 100u << 20, "filter %d: the "
			    "peak RSS grew by %llu MB", filter,
			    (unsigned long long)((after - before) >> 20));
		cr_expect(faccessat(fd, "sparse", F_OK, AT_SYMLINK_NOFOLLOW) ==
		    -1, "the sparse file was made");
		(void)close(fd);
		(void)tfx_rm_tree(dir);
	}
}

Test(cost, sparse_map_gzip, .timeout = 120)
{
	expect_sparse_stop(ARCHIVE_FILTER_GZIP);
}

Test(cost, sparse_map_bzip2, .timeout = 120)
{
	expect_sparse_stop(ARCHIVE_FILTER_BZIP2);
}

/*
 * What is within the limit reads as before, in this process and in the
 * decoder process, plain and gzip'd: a pax header of libarchive's own
 * largest size (1 MiB) before a file; a sparse file of 10,000 segments;
 * and, with -i, 20 MiB of zero blocks read in one header read, before
 * the last file (zero blocks hold nothing, and are not counted).
 */
Test(cost, big_headers_within_limit, .timeout = 120)
{
	static unsigned char buf[ZERO_RUN + (4u << 20)];
	static unsigned char rec[PAX_MAX];
	static const int filters[] = { ARCHIVE_FILTER_NONE,
	    ARCHIVE_FILTER_GZIP };
	unsigned char h[512];
	struct pfx_options opt;
	struct pfx_result res;
	struct pfx_input in;
	struct archive *a;
	struct stat st;
	char dir[256];
	size_t used, n, f;
	int fd, sandbox;

	/* Two records "NNNNNN comment=aaa...\n", NNNNNN each one's own
	 * length: libarchive rejects one over 999,999 bytes, and the
	 * entry's header is then read in part (a warning, status 1). */
	memset(rec, 'a', sizeof(rec));
	n = (size_t)snprintf((char *)rec, 32, "%06u comment=", PAX_MAX / 2);
	rec[n] = 'a';
	rec[PAX_MAX / 2 - 1] = '\n';
	n = (size_t)snprintf((char *)rec + PAX_MAX / 2, 32, "%06u comment=",
	    PAX_MAX - PAX_MAX / 2);
	rec[PAX_MAX / 2 + n] = 'a';
	rec[PAX_MAX - 1] = '\n';
	for (f = 0; f < 2; f++) {
		used = 0;
		a = raw_writer(buf, sizeof(buf), filters[f], &used);
		ustar_header(h, "pax", 'x', PAX_MAX);
		cr_assert(archive_write_data(a, h, 512) == 512);
		cr_assert(archive_write_data(a, rec, PAX_MAX) == PAX_MAX);
		ustar_header(h, "a", '0', 5);
		cr_assert(archive_write_data(a, h, 512) == 512);
		memset(h, 0, sizeof(h));
		memcpy(h, "good\n", 5);
		cr_assert(archive_write_data(a, h, 512) == 512);
		write_sparse(a, "sparse", 10000);
		write_zeros(a, ZERO_RUN);
		ustar_header(h, "b", '0', 0);
		cr_assert(archive_write_data(a, h, 512) == 512);
		raw_end(a);
		for (sandbox = 0; sandbox < 2; sandbox++) {
			fd = fresh_dest(dir, sizeof(dir));
			memset(&in, 0, sizeof(in));
			in.fd = -1;
			in.buf = buf;
			in.len = used;
			pfx_options_init(&opt);
			opt.flags |= PFX_OPT_IGNORE_ZEROS;
			if (sandbox)
				opt.flags |= PFX_OPT_SANDBOX_CHILD;
			(void)pfx_extract(&in, fd, ".", &opt, &res);
			cr_expect_eq(res.status, PFX_OK, "filter %d, %d: "
			    "status %d: %s", filters[f], sandbox, res.status,
			    res.message);
			cr_expect_eq(res.stats.extracted, 3, "filter %d, %d: "
			    "%llu extracted", filters[f], sandbox,
			    (unsigned long long)res.stats.extracted);
			cr_expect(fstatat(fd, "sparse", &st,
			    AT_SYMLINK_NOFOLLOW) == 0 && st.st_size == 20000,
			    "filter %d, %d: the sparse file", filters[f],
			    sandbox);
			cr_expect(faccessat(fd, "b", F_OK,
			    AT_SYMLINK_NOFOLLOW) == 0, "filter %d, %d: b, "
			    "after the zeros", filters[f], sandbox);
			(void)close(fd);
			(void)tfx_rm_tree(dir);
		}
	}
}

/* --- libarchive's cpio list of files with more than one link ----------- */

#define CPIO_FILES 12000u	/* about 8,000 stop at max_links 100, where
				   all pairs of links once counted would
				   not */
#define CPIO_LINKS 100u		/* as in the message below */

/* Append to OUT (CAP bytes) at *USED the newc header and name of an
 * empty entry NAME: inode INO, MODE, NLINK links. */
static void
newc_entry(unsigned char *out, size_t cap, size_t *used, const char *name,
    unsigned int ino, unsigned int mode, unsigned int nlink)
{
	size_t n = strlen(name) + 1;
	int len;

	cr_assert(*used + 110 + n + 4 <= cap);
	len = snprintf((char *)out + *used, cap - *used, "070701%08x%08x"
	    "%08x%08x%08x%08x%08x%08x%08x%08x%08x%08zx%08x", ino, mode, 0u,
	    0u, nlink, 0u, 0u, 0u, 0u, 0u, 0u, n, 0u);
	cr_assert_eq(len, 110);
	memcpy(out + *used + 110, name, n);
	*used += 110 + n;
	while (*used % 4 != 0)
		out[(*used)++] = 0;
}

/*
 * A newc cpio of CPIO_FILES empty files, each claiming two links: with
 * SECOND, the second comes right after (a real link group, which
 * libarchive then forgets), else never (its list only grows).
 */
static size_t
cpio_links(unsigned char *out, size_t cap, bool second)
{
	char name[256];
	size_t used = 0;
	unsigned int i;

	/* Names of 201 bytes: libarchive's list is then 266 bytes a file,
	 * and the bound is crossed within fewer files. */
	for (i = 0; i < CPIO_FILES; i++) {
		(void)snprintf(name, sizeof(name), "f%0200u", i);
		newc_entry(out, cap, &used, name, i + 1, 0100644, 2);
		if (!second)
			continue;
		(void)snprintf(name, sizeof(name), "g%0200u", i);
		newc_entry(out, cap, &used, name, i + 1, 0100644, 2);
	}
	newc_entry(out, cap, &used, "TRAILER!!!", 0, 0, 1);
	return used;
}

/*
 * libarchive's cpio reader walks its list of files of more than one link
 * for each such entry: files that never give their second link make that
 * quadratic (40,000 of them 1.6 s of CPU, 160,000 32 s).  The walk is
 * counted, and past 1 MiB for each entry and each link allowed the run
 * stops, in this process and in the decoder process; link groups that
 * end, as real ones do, cost next to nothing and extract whole.
 */
Test(cost, cpio_link_list, .timeout = 120)
{
	/* On the heap: the test binary's static data counts against the
	 * decoder process's RLIMIT_DATA, which it inherits. */
	size_t cap = 2 * CPIO_FILES * 320 + 256;
	unsigned char *buf = malloc(cap);
	struct pfx_options opt;
	struct pfx_result res;
	struct pfx_input in;
	char dir[256];
	int fd, sandbox, second;

	cr_assert_not_null(buf);

	for (second = 0; second < 2; second++) {
		for (sandbox = 0; sandbox < 2; sandbox++) {
			fd = fresh_dest(dir, sizeof(dir));
			memset(&in, 0, sizeof(in));
			in.fd = -1;
			in.buf = buf;
			in.len = cpio_links(buf, cap, second);
			pfx_options_init(&opt);
			/* The pairs' second names are hard links, each
			 * one against max_links. */
			opt.limits.max_links = second ? CPIO_FILES :
			    CPIO_LINKS;
			if (sandbox)
				opt.flags |= PFX_OPT_SANDBOX_CHILD;
			(void)pfx_extract(&in, fd, ".", &opt, &res);
			if (second) {
				cr_expect_eq(res.status, PFX_OK, "%d: status "
				    "%d: %s", sandbox, res.status,
				    res.message);
				cr_expect_eq(res.stats.extracted,
				    2 * CPIO_FILES, "%d: %llu extracted",
				    sandbox, (unsigned long long)
				    res.stats.extracted);
			} else {
				cr_expect_eq(res.status, PFX_FATAL, "%d: "
				    "status %d: %s", sandbox, res.status,
				    res.message);
				cr_expect_eq(res.error, EFBIG, "%d: %s",
				    sandbox, res.message);
				cr_expect(strstr(res.message,
				    "max-links=100 ") != NULL, "%d: %s",
				    sandbox, res.message);
				cr_expect(res.stats.entries < CPIO_FILES,
				    "%d: %llu entries read", sandbox,
				    (unsigned long long)res.stats.entries);
			}
			(void)close(fd);
			(void)tfx_rm_tree(dir);
		}
	}
	free(buf);
}

/* --- a 7z's header ------------------------------------------------------ */

/* A 7z NUMBER of V into P.  Return: its length. */
static size_t
put_7z_number(unsigned char *p, uint64_t v)
{
	size_t k;

	if (v < 0x80) {
		p[0] = (unsigned char)v;
		return 1;
	}
	for (k = 1; k < 8; k++)
		if (v < (uint64_t)1 << (7 * (k + 1)))
			break;
	if (k == 8) {
		p[0] = 0xff;
		for (k = 0; k < 8; k++)
			p[1 + k] = (unsigned char)(v >> (8 * k));
		return 9;
	}
	p[0] = (unsigned char)((0xff00u >> k) & 0xff) |
	    (unsigned char)(v >> (8 * k));
	for (size_t i = 0; i < k; i++)
		p[1 + i] = (unsigned char)(v >> (8 * i));
	return 1 + k;
}

/* Little-endian V in 4 or 8 bytes at P. */
static void
put_le(unsigned char *p, uint64_t v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* A 7z LZMA coder (lc 3, lp 0, pb 2) of dictionary DICT at P: its bytes
 * (10). */
static size_t
put_lzma_coder(unsigned char *p, uint32_t dict)
{
	p[0] = 0x23;
	memcpy(p + 1, "\x03\x01\x01\x05\x5d", 5);
	put_le(p + 6, dict, 4);
	return 10;
}

/*
 * A 7z (heap, *LEN bytes) whose header lists FILES empty files and
 * nothing more: a bit each (their "empty stream" flags), no name.  Plain
 * (kHeader) for ENCODED 0; behind a kEncodedHeader, stored for 1, LZMA'd
 * for 2, as 7-Zip writes one.
 */
static unsigned char *
hollow_7z(uint64_t files, int encoded, size_t *len)
{
	size_t bits = (size_t)((files + 7) / 8), h = 0, e = 0, at, p = 0;
	unsigned char *hdr = malloc(bits + 64), *enc = malloc(64), *out;
	unsigned char *packed = NULL;
	lzma_options_lzma lz;
	lzma_filter f[2];

	cr_assert(hdr != NULL && enc != NULL);
	hdr[h++] = 0x01;	/* kHeader */
	hdr[h++] = 0x05;	/* kFilesInfo */
	h += put_7z_number(hdr + h, files);
	hdr[h++] = 0x0e;	/* kEmptyStream */
	h += put_7z_number(hdr + h, bits);
	memset(hdr + h, 0xff, bits);
	h += bits;
	hdr[h++] = 0x00;
	hdr[h++] = 0x00;
	packed = hdr;
	p = h;
	if (encoded == 2) {
		packed = malloc(h + 4096);
		cr_assert(packed != NULL);
		cr_assert(lzma_lzma_preset(&lz, 6) == 0);
		lz.dict_size = 1u << 20;
		f[0].id = LZMA_FILTER_LZMA1;
		f[0].options = &lz;
		f[1].id = LZMA_VLI_UNKNOWN;
		p = 0;
		cr_assert(lzma_raw_buffer_encode(f, NULL, hdr, h, packed, &p,
		    h + 4096) == LZMA_OK);
	}
	if (encoded) {
		enc[e++] = 0x17;	/* kEncodedHeader */
		enc[e++] = 0x06;	/* kPackInfo: at 0, one stream */
		enc[e++] = 0;
		enc[e++] = 1;
		enc[e++] = 0x09;
		e += put_7z_number(enc + e, p);
		enc[e++] = 0x00;
		enc[e++] = 0x07;	/* kUnPackInfo: one folder */
		enc[e++] = 0x0b;
		enc[e++] = 1;
		enc[e++] = 0;
		enc[e++] = 1;		/* one coder */
		if (encoded == 1) {	/* copy */
			enc[e++] = 0x01;
			enc[e++] = 0x00;
		} else {		/* LZMA: lc 3, lp 0, pb 2 */
			e += put_lzma_coder(enc + e, lz.dict_size);
		}
		enc[e++] = 0x0c;
		e += put_7z_number(enc + e, h);
		enc[e++] = 0x00;
		enc[e++] = 0x00;
	}
	*len = 32 + p + e;
	out = malloc(*len);
	cr_assert(out != NULL);
	memcpy(out, "7z\xbc\xaf\x27\x1c\x00\x04", 8);
	memcpy(out + 32, packed, p);
	at = encoded ? 32 + p : 32;
	if (encoded)
		memcpy(out + at, enc, e);
	put_le(out + 12, encoded ? p : 0, 8);
	put_le(out + 20, encoded ? e : p, 8);
	put_le(out + 28, crc32(0, out + at, (uInt)(encoded ? e : p)), 4);
	put_le(out + 8, crc32(0, out + 12, 20), 4);
	if (packed != hdr)
		free(packed);
	free(hdr);
	free(enc);
	return out;
}

/* Put the start header of a 7z before its plain header of N bytes at
 * OUT + 32.  Return: the archive's size. */
static size_t
seal_7z(unsigned char *out, size_t n)
{
	memcpy(out, "7z\xbc\xaf\x27\x1c\x00\x04", 8);
	put_le(out + 12, 0, 8);
	put_le(out + 20, n, 8);
	put_le(out + 28, crc32(0, out + 32, (uInt)n), 4);
	put_le(out + 8, crc32(0, out + 12, 20), 4);
	return 32 + n;
}

/*
 * A 7z (heap, *LEN bytes) whose plain header lists FOLDERS stored folders
 * of STREAMS streams each, and one file: libarchive allocates 13 bytes
 * for each stream and writes them all, from a few bytes of header.
 */
static unsigned char *
streams_7z(unsigned int folders, uint64_t streams, size_t *len)
{
	unsigned char *out = malloc(64 + 16 * (size_t)folders), *h;
	size_t n = 0;
	unsigned int i;

	cr_assert(out != NULL);
	h = out + 32;
	h[n++] = 0x01;		/* kHeader */
	h[n++] = 0x04;		/* kMainStreamsInfo */
	h[n++] = 0x06;		/* kPackInfo: a stream for each folder */
	h[n++] = 0;
	n += put_7z_number(h + n, folders);
	h[n++] = 0x09;
	for (i = 0; i < folders; i++)
		h[n++] = 0;
	h[n++] = 0x00;
	h[n++] = 0x07;		/* kUnPackInfo */
	h[n++] = 0x0b;
	n += put_7z_number(h + n, folders);
	h[n++] = 0;
	for (i = 0; i < folders; i++) {
		h[n++] = 1;	/* one coder: copy */
		h[n++] = 0x01;
		h[n++] = 0x00;
	}
	h[n++] = 0x0c;
	for (i = 0; i < folders; i++)
		h[n++] = 0;
	h[n++] = 0x00;
	h[n++] = 0x08;		/* kSubStreamsInfo */
	h[n++] = 0x0d;
	for (i = 0; i < folders; i++)
		n += put_7z_number(h + n, streams);
	h[n++] = 0x00;
	h[n++] = 0x00;
	h[n++] = 0x05;		/* kFilesInfo: one */
	h[n++] = 1;
	h[n++] = 0x00;
	*len = seal_7z(out, n);
	return out;
}

/*
 * A 7z (heap, *LEN bytes) whose one folder is one coder of PAIRS + 1 in
 * and out streams, bound in PAIRS pairs: libarchive looks through every
 * pair for each stream, O(PAIRS^2) from O(PAIRS) bytes.
 */
static unsigned char *
pairs_7z(uint64_t pairs, size_t *len)
{
	unsigned char *out = malloc(64 + 24 * (size_t)pairs), *h;
	size_t n = 0;
	uint64_t j;

	cr_assert(out != NULL);
	h = out + 32;
	memcpy(h, "\x01\x04\x06\x00\x01\x09\x00\x00", 8);
	n = 8;			/* kHeader, kMainStreamsInfo, one stream */
	memcpy(h + n, "\x07\x0b\x01\x00\x01\x11\x00", 7);
	n += 7;			/* one folder, one coder: copy, complex */
	n += put_7z_number(h + n, pairs + 1);
	n += put_7z_number(h + n, pairs + 1);
	for (j = 0; j < pairs; j++) {
		n += put_7z_number(h + n, pairs - 1 - j);
		n += put_7z_number(h + n, 0);
	}
	h[n++] = 0x0c;
	memset(h + n, 0, (size_t)pairs + 1);
	n += (size_t)pairs + 1;
	memcpy(h + n, "\x00\x00\x05\x00\x00\x00", 6);
	n += 6;			/* kEnd, kEnd, no file, kEnd */
	*len = seal_7z(out, n);
	return out;
}


/* Extract the 7z of LEN bytes at BUF into a fresh directory, removed
 * after, with a 16 MiB budget, in the decoder process if SANDBOX. */
static void
run_7z(const void *buf, size_t len, int sandbox, struct pfx_result *res)
{
	struct pfx_options opt;
	struct pfx_input in;
	char dir[256];
	int fd;

	fd = fresh_dest(dir, sizeof(dir));
	memset(&in, 0, sizeof(in));
	in.fd = -1;
	in.buf = buf;
	in.len = len;
	pfx_options_init(&opt);
	opt.limits.max_memory = 16u << 20;
	if (sandbox)
		opt.flags |= PFX_OPT_SANDBOX_CHILD;
	(void)pfx_extract(&in, fd, ".", &opt, res);
	(void)close(fd);
	(void)tfx_rm_tree(dir);
}

/*
 * A 7z folder of more streams than any coder has (7-Zip's largest,
 * BCJ2's, takes 7) is refused from its header, past any budget: libarchive
 * would spend O(streams^2) on it (50 s of CPU for a 2 MB header).
 */
Test(cost, sevenzip_folder_streams_bounded, .timeout = 120)
{
	struct pfx_result res;
	unsigned char *buf;
	size_t len;
	int sandbox;

	buf = pairs_7z(20000, &len);
	for (sandbox = 1; sandbox >= 0; sandbox--) {
		run_7z(buf, len, sandbox, &res);
		cr_expect_eq(res.status, PFX_FATAL, "%d: status %d: %s",
		    sandbox, res.status, res.message);
		cr_expect_eq(res.error, EFBIG, "%d: %s", sandbox,
		    res.message);
	}
	free(buf);
}
/*
 * libarchive's 7z reader decodes the header and fills a record of some 90
 * bytes for every file it lists before it gives the first entry, and a
 * file takes one bit of the header: 20 million files in a 505-byte .7z
 * (LZMA) held 1.7 GB, with no budget asked.  In this process (no decoder
 * process, whose RLIMIT_DATA stopped it as "Couldn't allocate memory")
 * nothing bounded it.  Now the counts are read from the header before
 * libarchive reads it, and the run stops with the limit named, in this
 * process and in the decoder process, the header plain, stored or LZMA'd
 * (a million files, 1 KB); so for the streams a few bytes may list (40
 * million: 520 MB allocated, 200 MB of it written, from 92 bytes).
 */
Test(cost, sevenzip_header_counts, .timeout = 120)
{
	struct pfx_result res;
	unsigned char *buf;
	size_t len;
	int sandbox, encoded;

	for (encoded = 0; encoded <= 3; encoded++) {
		/* 3: 4 folders of 10 million streams, in 80 bytes. */
		buf = encoded == 3 ? streams_7z(4, 10000000, &len) :
		    hollow_7z(1000000, encoded, &len);
		if (encoded >= 2)
			cr_expect(len < 2048, "%zu bytes", len);
		for (sandbox = 1; sandbox >= 0; sandbox--) {
			run_7z(buf, len, sandbox, &res);
			cr_expect_eq(res.status, PFX_FATAL, "%d %d: status "
			    "%d: %s", encoded, sandbox, res.status,
			    res.message);
			cr_expect_eq(res.error, EFBIG, "%d %d: %s", encoded,
			    sandbox, res.message);
			cr_expect(strstr(res.message, "limit max-memory="
			    "16777216 reached: libarchive would hold about") !=
			    NULL, "%d %d: %s", encoded, sandbox, res.message);
			cr_expect_eq(res.stats.entries, 0, "%d %d: %llu "
			    "entries", encoded, sandbox,
			    (unsigned long long)res.stats.entries);
		}
		free(buf);
	}
}

/*
 * libarchive's 7z reader asks no version of the signature header, and
 * reads a plain header as it parses it, allocating for each count as it
 * meets it, before it finds the header cut short.  The fitter passed over
 * a signature whose version byte was not 0, and a header whose length
 * ran past the input's end (it read nothing of it): 5 million nameless
 * files in 625 KB held 438 MB under --max-memory=64M, and the streams'
 * 88 bytes 198 MB.  Now each is costed as the others.
 */
Test(cost, sevenzip_header_any_version_or_cut, .timeout = 120)
{
	struct pfx_result res;
	unsigned char *buf;
	uint64_t hlen;
	size_t len;
	int sandbox, encoded, how;

	for (encoded = 0; encoded <= 3; encoded++)
		for (how = 0; how < 2; how++) {
			buf = encoded == 3 ? streams_7z(4, 10000000, &len) :
			    hollow_7z(1000000, encoded, &len);
			if (how == 0) {
				buf[6] = 1;	/* a major version 1 */
			} else {	/* a header one byte past the end */
				hlen = 0;
				for (int i = 7; i >= 0; i--)
					hlen = hlen << 8 | buf[20 + i];
				put_le(buf + 20, hlen + 1, 8);
				put_le(buf + 8, crc32(0, buf + 12, 20), 4);
			}
			for (sandbox = 1; sandbox >= 0; sandbox--) {
				run_7z(buf, len, sandbox, &res);
				cr_expect_eq(res.error, EFBIG, "%d %d %d: %d "
				    "%s", encoded, how, sandbox, res.status,
				    res.message);
				cr_expect_eq(res.stats.entries, 0, "%d %d %d",
				    encoded, how, sandbox);
			}
			free(buf);
		}
}

/*
 * A 7z (heap, *LEN bytes) whose header, behind a kEncodedHeader, is N
 * bytes LZMA'd ("kHeader kEnd" and zeros), encoded a piece at a time so
 * that this process never holds N bytes.
 */
static unsigned char *
long_header_7z(size_t n, size_t *len)
{
	static unsigned char zero[65536];
	size_t cap = 1u << 20, e = 0, fed = 0, piece;
	unsigned char *out = malloc(cap), enc[64], head[2] = { 0x01, 0x00 };
	lzma_stream s = LZMA_STREAM_INIT;
	lzma_options_lzma lz;
	lzma_filter f[2];
	lzma_ret r;

	cr_assert(out != NULL);
	cr_assert(lzma_lzma_preset(&lz, 0) == 0);
	lz.dict_size = 1u << 16;	/* little for the encoder to hold */
	f[0].id = LZMA_FILTER_LZMA1;
	f[0].options = &lz;
	f[1].id = LZMA_VLI_UNKNOWN;
	cr_assert(lzma_raw_encoder(&s, f) == LZMA_OK);
	s.next_out = out + 32;
	s.avail_out = cap - 32 - sizeof(enc);
	do {
		piece = n - fed < sizeof(zero) ? n - fed : sizeof(zero);
		s.next_in = fed == 0 ? head : zero;
		s.avail_in = fed == 0 ? sizeof(head) : piece;
		fed += s.avail_in;
		r = lzma_code(&s, fed == n ? LZMA_FINISH : LZMA_RUN);
		while (r == LZMA_OK && fed == n)
			r = lzma_code(&s, LZMA_FINISH);
		cr_assert(r == LZMA_OK || r == LZMA_STREAM_END, "%d", r);
		cr_assert(s.avail_in == 0 || r == LZMA_STREAM_END);
	} while (fed < n);
	lzma_end(&s);
	enc[e++] = 0x17;	/* kEncodedHeader */
	enc[e++] = 0x06;	/* kPackInfo: at 0, one stream */
	enc[e++] = 0;
	enc[e++] = 1;
	enc[e++] = 0x09;
	e += put_7z_number(enc + e, s.total_out);
	enc[e++] = 0x00;
	enc[e++] = 0x07;	/* kUnPackInfo: one folder, one LZMA coder */
	enc[e++] = 0x0b;
	enc[e++] = 1;
	enc[e++] = 0;
	enc[e++] = 1;
	e += put_lzma_coder(enc + e, lz.dict_size);
	enc[e++] = 0x0c;
	e += put_7z_number(enc + e, n);
	enc[e++] = 0x00;
	enc[e++] = 0x00;
	memcpy(out + 32 + s.total_out, enc, e);
	memcpy(out, "7z\xbc\xaf\x27\x1c\x00\x04", 8);
	put_le(out + 12, s.total_out, 8);
	put_le(out + 20, e, 8);
	put_le(out + 28, crc32(0, enc, (uInt)e), 4);
	put_le(out + 8, crc32(0, out + 12, 20), 4);
	*len = 32 + s.total_out + e;
	return out;
}

/*
 * The fitter decoded an encoded header of up to the budget, into a
 * buffer as large and with a dictionary as large, before it found that
 * libarchive would hold three times it: 8.6 KB of 7z made it hold 120 MB
 * under --max-memory=64M (here, 15 MiB under a 16 MiB budget: 15 MB).
 * Now a header whose decoded size alone puts libarchive past the budget
 * is refused undecoded, and this process grows by little (72 KB).
 */
Test(cost, sevenzip_fitter_within_budget, .timeout = 120)
{
	struct pfx_result res;
	struct rusage before, after;
	unsigned char *buf;
	size_t len;

	buf = long_header_7z(15u << 20, &len);
	cr_assert(len < 65536, "%zu bytes", len);
	cr_assert(getrusage(RUSAGE_SELF, &before) == 0);
	run_7z(buf, len, 0, &res);
	cr_assert(getrusage(RUSAGE_SELF, &after) == 0);
	cr_expect_eq(res.error, EFBIG, "%d %s", res.status, res.message);
	cr_expect(after.ru_maxrss - before.ru_maxrss < 4 * 1024, "grew by "
	    "%ld KB", after.ru_maxrss - before.ru_maxrss);
	free(buf);
}

/* BUF (LEN bytes) through libarchive's FILTER (heap, *OUT_LEN bytes). */
static unsigned char *
filtered(const void *buf, size_t len, int (*filter)(struct archive *),
    size_t *out_len)
{
	size_t cap = len + 65536;
	unsigned char *out = malloc(cap);
	struct archive *a = archive_write_new();
	struct archive_entry *e = archive_entry_new();

	cr_assert(out != NULL && a != NULL && e != NULL);
	cr_assert(archive_write_set_format_raw(a) == ARCHIVE_OK);
	cr_assert(filter(a) == ARCHIVE_OK);
	cr_assert(archive_write_open_memory(a, out, cap, out_len) ==
	    ARCHIVE_OK);
	archive_entry_set_pathname(e, "x");
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_size(e, (la_int64_t)len);
	cr_assert(archive_write_header(a, e) == ARCHIVE_OK);
	cr_assert(archive_write_data(a, buf, len) == (la_ssize_t)len);
	cr_assert(archive_write_close(a) == ARCHIVE_OK);
	archive_write_free(a);
	archive_entry_free(e);
	return out;
}

/*
 * Extract the 7z BUF (LEN bytes) from a pipe (HOW 0), or gzip'd (1) or
 * bzip2'd (2), under a 16 MiB budget, in a child process of its own (a
 * peak of memory is a process's once).  Return: what it grew by, in KB
 * (-1: it failed to run), and *STATUS the run's.
 */
static long
unlooked_growth(const unsigned char *buf, size_t len, int how, int *status)
{
	struct pfx_options opt;
	struct pfx_input in;
	struct pfx_result res;
	struct rusage before, after;
	unsigned char *wrapped = NULL;
	size_t wlen = 0;
	long out[2] = { -1, -1 };
	char dir[256];
	int fd, p[2], r[2];
	pid_t pid;

	if (how != 0)
		wrapped = filtered(buf, len, how == 1 ?
		    archive_write_add_filter_gzip :
		    archive_write_add_filter_bzip2, &wlen);
	cr_assert(pipe(r) == 0);
	pid = fork();
	cr_assert(pid != -1);
	if (pid == 0) {
		memset(&in, 0, sizeof(in));
		in.fd = -1;
		if (how == 0) {
			if (pipe(p) != 0 || write(p[1], buf, len) !=
			    (ssize_t)len)
				_exit(1);
			(void)close(p[1]);
			in.fd = p[0];
		} else {
			in.buf = wrapped;
			in.len = wlen;
		}
		fd = fresh_dest(dir, sizeof(dir));
		pfx_options_init(&opt);
		opt.limits.max_memory = 16u << 20;
		(void)getrusage(RUSAGE_SELF, &before);
		(void)pfx_extract(&in, fd, ".", &opt, &res);
		(void)getrusage(RUSAGE_SELF, &after);
		(void)tfx_rm_tree(dir);
		out[0] = after.ru_maxrss - before.ru_maxrss;
		out[1] = res.status;
		_exit(write(r[1], out, sizeof(out)) == sizeof(out) ? 0 : 1);
	}
	(void)close(r[1]);
	if (read(r[0], out, sizeof(out)) != sizeof(out))
		out[0] = -1;
	(void)close(r[0]);
	(void)waitpid(pid, NULL, 0);
	free(wrapped);
	*status = (int)out[1];
	return out[0];
}

/*
 * The fitter looks at a raw file or buffer only, but libarchive's 7z
 * reader lists a header it finds in a pipe, or behind a compression
 * (ours, gzip, or libarchive's filters, bzip2), before it finds it
 * cannot seek to the data: the streams' 88 bytes held 198 MB under
 * --max-memory=64M so.  Now the 7z reader is enabled only where the
 * fitter looked: none of them is read, and the run grows by little.
 */
Test(cost, sevenzip_unlooked_inputs, .timeout = 120)
{
	unsigned char *buf;
	size_t len;
	long grew;
	int how, status;

	buf = streams_7z(4, 10000000, &len);
	for (how = 0; how < 3; how++) {
		grew = unlooked_growth(buf, len, how, &status);
		cr_expect(grew >= 0 && grew < 8 * 1024, "%d: grew by %ld KB",
		    how, grew);
		cr_expect_eq(status, PFX_FATAL, "%d", how);
	}
	free(buf);
}

/*
 * A 7z as libarchive writes one (its header LZMA'd, a file's data too)
 * reads as before under the same budget.
 */
Test(cost, sevenzip_header_within_limit, .timeout = 120)
{
	struct pfx_result res;
	struct archive *a;
	struct archive_entry *e;
	unsigned char *buf;
	char name[32];
	size_t used = 0, cap = 1u << 20;
	int sandbox, i;

	buf = malloc(cap);
	cr_assert(buf != NULL);
	a = archive_write_new();
	cr_assert(a != NULL);
	cr_assert(archive_write_set_format_7zip(a) == ARCHIVE_OK);
	cr_assert(archive_write_open_memory(a, buf, cap, &used) ==
	    ARCHIVE_OK);
	for (i = 0; i < 100; i++) {
		e = archive_entry_new();
		snprintf(name, sizeof(name), "f%d", i);
		archive_entry_set_pathname(e, name);
		archive_entry_set_filetype(e, AE_IFREG);
		archive_entry_set_perm(e, 0644);
		archive_entry_set_size(e, 5);
		cr_assert(archive_write_header(a, e) == ARCHIVE_OK);
		cr_assert(archive_write_data(a, "hello", 5) == 5);
		archive_entry_free(e);
	}
	cr_assert(archive_write_close(a) == ARCHIVE_OK);
	archive_write_free(a);
	for (sandbox = 1; sandbox >= 0; sandbox--) {
		run_7z(buf, used, sandbox, &res);
		cr_expect_eq(res.status, PFX_OK, "%d: status %d: %s", sandbox,
		    res.status, res.message);
		cr_expect_eq(res.stats.extracted, 100, "%d: %llu extracted",
		    sandbox, (unsigned long long)res.stats.extracted);
	}
	free(buf);
}

/*
 * An entry's extended attributes cost libarchive's entry about 112 bytes
 * each (three allocations), past the 25 bytes a pax record spends on one:
 * 40,000 one-byte attributes behind one 1 MB pax header.  They are
 * charged to the budget while the entry is at hand: under 4 MiB the run
 * stops with the limit named, before the entry is made; under 16 MiB it
 * is made.  In this process and in the decoder process (whose writer
 * builds its own entry from the message).
 */
Test(cost, xattrs_counted, .timeout = 120)
{
	static unsigned char buf[(1u << 20) + 8192];
	static const char rec[] = "25 SCHILY.xattr.user.a=v\n";
	static char pax[40000 * (sizeof(rec) - 1)];
	struct pfx_options opt;
	struct pfx_result res;
	struct pfx_input in;
	unsigned char h[512];
	struct archive *a;
	struct stat st;
	char dir[256];
	size_t used = 0, i;
	int fd, sandbox, big;

	for (i = 0; i < sizeof(pax); i += sizeof(rec) - 1)
		memcpy(pax + i, rec, sizeof(rec) - 1);
	a = raw_writer(buf, sizeof(buf), ARCHIVE_FILTER_NONE, &used);
	ustar_header(h, "pax", 'x', sizeof(pax));
	cr_assert(archive_write_data(a, h, 512) == 512);
	cr_assert(archive_write_data(a, pax, sizeof(pax)) ==
	    (la_ssize_t)sizeof(pax));
	write_zeros(a, (512 - sizeof(pax) % 512) % 512);
	ustar_header(h, "f", '0', 0);
	cr_assert(archive_write_data(a, h, 512) == 512);
	raw_end(a);
	for (sandbox = 1; sandbox >= 0; sandbox--)
		for (big = 0; big <= 1; big++) {
			fd = fresh_dest(dir, sizeof(dir));
			memset(&in, 0, sizeof(in));
			in.fd = -1;
			in.buf = buf;
			in.len = used;
			pfx_options_init(&opt);
			opt.limits.max_memory = big ? 16u << 20 : 4u << 20;
			if (sandbox)
				opt.flags |= PFX_OPT_SANDBOX_CHILD;
			(void)pfx_extract(&in, fd, ".", &opt, &res);
			cr_expect_eq(res.status, big ? PFX_OK : PFX_FATAL,
			    "%d %d: status %d: %s", sandbox, big, res.status,
			    res.message);
			if (!big) {
				cr_expect_eq(res.error, EFBIG, "%d: %s",
				    sandbox, res.message);
				cr_expect(strstr(res.message, "max-memory") !=
				    NULL, "%d: %s", sandbox, res.message);
			}
			cr_expect_eq(fstatat(fd, "f", &st,
			    AT_SYMLINK_NOFOLLOW) == 0, big, "%d %d: f %s",
			    sandbox, big, big ? "missing" : "made");
			(void)close(fd);
			(void)tfx_rm_tree(dir);
		}
}
