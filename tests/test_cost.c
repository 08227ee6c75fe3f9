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
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <criterion/criterion.h>

#include "pfextract.h"
#include "fixture.h"

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
