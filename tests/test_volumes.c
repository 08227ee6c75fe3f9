/*
 * test_volumes.c -- the library's multi-volume reading (PFX_OPT_MULTI_VOLUME,
 * extract/volumes.c) through pfx_extract(), in this process and in the
 * decoder process: a GNU tar archive of three members ("a" 1000 bytes,
 * "b" 3000, "c" 200; blocks: a's header at 0, its data 1-2, b's header
 * at 3) cut into two volumes, as GNU tar would cut it or not:
 *  - between members (after a's data, at block 3), with no continuation:
 *    joined;
 *  - inside a's data (after block 2), with the 'M' header GNU tar writes
 *    (name "a", 488 bytes left, offset 512): joined, a's bytes whole;
 *  - the same without the 'M' header, or with another offset, or a
 *    volume that could not be opened (-ENOENT): a clear error, nothing
 *    of a left;
 *  - an unopened volume the archive never reaches: no error;
 *  - without the flag, VOLUMES is never read (a pointer that is none).
 * Volumes are memfds, listed or extracted into $TMPDIR/pfx-vol.XXXXXX/.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <criterion/criterion.h>

#include "pfextract.h"
#include "fixture.h"

#define BLK 512

static unsigned char tarbuf[16384];
static size_t tarlen;
static char dir[256];

/* Write the three members to TARBUF (GNU format, no padding past the
 * two zero blocks' record). */
static void
make_tar(void)
{
	static const struct {
		const char *name;
		size_t size;
	} m[] = { { "a", 1000 }, { "b", 3000 }, { "c", 200 } };
	struct archive *w = archive_write_new();
	struct archive_entry *e;
	char data[3000];
	size_t i;

	cr_assert(w != NULL);
	cr_assert(archive_write_set_format_gnutar(w) == ARCHIVE_OK);
	cr_assert(archive_write_set_bytes_per_block(w, BLK) == ARCHIVE_OK);
	cr_assert(archive_write_open_memory(w, tarbuf, sizeof(tarbuf),
	    &tarlen) == ARCHIVE_OK);
	for (i = 0; i < 3; i++) {
		e = archive_entry_new();
		archive_entry_set_pathname(e, m[i].name);
		archive_entry_set_filetype(e, AE_IFREG);
		archive_entry_set_perm(e, 0644);
		archive_entry_set_size(e, (la_int64_t)m[i].size);
		cr_assert(archive_write_header(w, e) == ARCHIVE_OK);
		memset(data, 'a' + (int)i, sizeof(data));
		data[0] = (char)('0' + i);
		cr_assert(archive_write_data(w, data, m[i].size) ==
		    (la_ssize_t)m[i].size);
		archive_entry_free(e);
	}
	cr_assert(archive_write_close(w) == ARCHIVE_OK);
	archive_write_free(w);
}

/* A memfd holding the LEN bytes at P, then the LEN2 at P2. */
static int
volume(const void *p, size_t len, const void *p2, size_t len2)
{
	int fd = memfd_create("vol", MFD_CLOEXEC);

	cr_assert(fd >= 0);
	cr_assert(write(fd, p, len) == (ssize_t)len);
	if (len2 > 0)
		cr_assert(write(fd, p2, len2) == (ssize_t)len2);
	cr_assert(lseek(fd, 0, SEEK_SET) == 0);
	return fd;
}

/* GNU tar's 'M' header: NAME continued, SIZE bytes left, from OFFSET. */
static void
m_header(unsigned char *h, const char *name, unsigned size,
    unsigned offset)
{
	unsigned sum = 0;
	size_t i;

	memset(h, 0, BLK);
	memcpy(h, name, strlen(name));
	memcpy(h + 100, "0000644", 8);
	memcpy(h + 108, "0000000", 8);
	memcpy(h + 116, "0000000", 8);
	(void)snprintf((char *)h + 124, 12, "%011o", size);
	memcpy(h + 136, "00000000000", 12);
	h[156] = 'M';
	memcpy(h + 257, "ustar  ", 8);
	(void)snprintf((char *)h + 369, 12, "%011o", offset);
	memset(h + 148, ' ', 8);
	for (i = 0; i < BLK; i++)
		sum += h[i];
	(void)snprintf((char *)h + 148, 8, "%06o", sum);
}

static void
setup(void)
{
	const char *tmp = getenv("TMPDIR");

	make_tar();
	(void)snprintf(dir, sizeof(dir), "%s/pfx-vol.XXXXXX",
	    tmp != NULL ? tmp : "/tmp");
	cr_assert(mkdtemp(dir) != NULL);
}

static void
teardown(void)
{
	(void)tfx_rm_tree(dir);
}

TestSuite(volumes, .init = setup, .fini = teardown);

/* Extract FIRST then the volumes VOLS (N) into DIR with FLAGS. */
static enum pfx_status
run(int first, const int *vols, size_t n, unsigned int flags,
    struct pfx_result *res)
{
	struct pfx_input in = { .fd = first, .volumes = vols, .nvolumes = n };
	struct pfx_options opt;

	pfx_options_init(&opt);
	opt.flags |= flags;
	return pfx_extract(&in, AT_FDCWD, dir, &opt, res);
}

/* The file NAME in DIR has N bytes, its first FIRST and the rest REST. */
static void
expect_file(const char *name, size_t n, char first, char rest)
{
	char path[512], buf[4096];
	size_t i;
	ssize_t got;
	int fd;

	(void)snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	cr_assert(fd >= 0, "%s was not extracted", name);
	got = read(fd, buf, sizeof(buf));
	(void)close(fd);
	cr_assert(got == (ssize_t)n, "%s: %zd bytes, want %zu", name, got, n);
	cr_expect(buf[0] == first);
	for (i = 1; i < n; i++)
		cr_assert(buf[i] == rest, "%s: byte %zu", name, i);
}

static const unsigned int ways[] = { 0, PFX_OPT_SANDBOX_CHILD };

Test(volumes, split_between_members)
{
	struct pfx_result res;
	size_t w;
	int v1, v2;

	for (w = 0; w < 2; w++) {
		v1 = volume(tarbuf, 3 * BLK, NULL, 0);
		v2 = volume(tarbuf + 3 * BLK, tarlen - 3 * BLK, NULL, 0);
		cr_assert(run(v1, &v2, 1, PFX_OPT_MULTI_VOLUME | ways[w],
		    &res) == PFX_OK, "%s", res.message);
		cr_expect(res.stats.extracted == 3);
		expect_file("a", 1000, '0', 'a');
		expect_file("b", 3000, '1', 'b');
		expect_file("c", 200, '2', 'c');
		(void)close(v1);
		(void)close(v2);
		cr_assert(tfx_rm_tree(dir) == 0 && mkdir(dir, 0700) == 0);
	}
}

Test(volumes, split_in_data_with_continuation)
{
	unsigned char m[BLK];
	struct pfx_result res;
	size_t w;
	int v1, v2;

	m_header(m, "a", 488, 512);
	for (w = 0; w < 2; w++) {
		v1 = volume(tarbuf, 2 * BLK, NULL, 0);
		v2 = volume(m, BLK, tarbuf + 2 * BLK, tarlen - 2 * BLK);
		cr_assert(run(v1, &v2, 1, PFX_OPT_MULTI_VOLUME | ways[w],
		    &res) == PFX_OK, "%s", res.message);
		expect_file("a", 1000, '0', 'a');
		expect_file("c", 200, '2', 'c');
		(void)close(v1);
		(void)close(v2);
		cr_assert(tfx_rm_tree(dir) == 0 && mkdir(dir, 0700) == 0);
	}
}

/* A cut inside a's data that the next volume does not continue so. */
static void
expect_broken(const unsigned char *head, size_t headlen, const char *why)
{
	struct pfx_result res;
	struct stat st;
	char path[512];
	size_t w;
	int v1, v2;

	for (w = 0; w < 2; w++) {
		v1 = volume(tarbuf, 2 * BLK, NULL, 0);
		v2 = volume(head, headlen, tarbuf + 2 * BLK,
		    tarlen - 2 * BLK);
		cr_assert(run(v1, &v2, 1, PFX_OPT_MULTI_VOLUME | ways[w],
		    &res) == PFX_FATAL);
		cr_expect(strstr(res.message, why) != NULL,
		    "message '%s', want '%s'", res.message, why);
		(void)snprintf(path, sizeof(path), "%s/a", dir);
		cr_expect(lstat(path, &st) == -1 && errno == ENOENT,
		    "a, cut short, was left");
		(void)close(v1);
		(void)close(v2);
	}
}

Test(volumes, no_continuation)
{
	expect_broken(tarbuf, 0, "'a' is not continued on volume 2");
}

Test(volumes, continuation_of_another_member)
{
	unsigned char m[BLK];

	m_header(m, "b", 488, 512);
	expect_broken(m, BLK, "'a' is not continued on volume 2");
}

Test(volumes, continuation_from_another_offset)
{
	unsigned char m[BLK];

	m_header(m, "a", 976, 24);
	expect_broken(m, BLK, "volume 2 is out of sequence");
}

Test(volumes, unopened_volume)
{
	struct pfx_result res;
	int v1, vols[2];

	/* Needed: the error it was opened with. */
	v1 = volume(tarbuf, 2 * BLK, NULL, 0);
	vols[0] = -ENOENT;
	cr_assert(run(v1, vols, 1, PFX_OPT_MULTI_VOLUME | PFX_OPT_LIST,
	    &res) == PFX_FATAL);
	cr_expect(res.error == ENOENT);
	cr_expect(strstr(res.message, "volume 2 cannot be read") != NULL,
	    "%s", res.message);
	(void)close(v1);
	/* Never reached: no error. */
	v1 = volume(tarbuf, tarlen, NULL, 0);
	cr_assert(run(v1, vols, 1, PFX_OPT_MULTI_VOLUME | PFX_OPT_LIST,
	    &res) == PFX_OK, "%s", res.message);
	cr_expect(res.stats.listed == 3);
	(void)close(v1);
}

Test(volumes, last_volume_ends_inside_a_member)
{
	struct pfx_result res;
	int v1;

	v1 = volume(tarbuf, 2 * BLK, NULL, 0);
	cr_assert(run(v1, NULL, 0, PFX_OPT_MULTI_VOLUME, &res) == PFX_FATAL);
	cr_expect(strstr(res.message, "no more volumes") != NULL, "%s",
	    res.message);
	(void)close(v1);
}

Test(volumes, fields_unread_without_the_flag)
{
	struct pfx_result res;
	int v1;

	/* A pointer that is none, and a count: read, they would crash. */
	v1 = volume(tarbuf, tarlen, NULL, 0);
	cr_assert(run(v1, (const int *)8, 5, PFX_OPT_LIST, &res) == PFX_OK,
	    "%s", res.message);
	cr_expect(res.stats.listed == 3);
	(void)close(v1);
}

Test(volumes, buffer_refused)
{
	struct pfx_input in = { .fd = -1, .buf = tarbuf, .len = tarlen };
	struct pfx_options opt;
	struct pfx_result res;

	pfx_options_init(&opt);
	opt.flags |= PFX_OPT_MULTI_VOLUME | PFX_OPT_LIST;
	cr_assert(pfx_extract(&in, AT_FDCWD, dir, &opt, &res) == PFX_FATAL);
	cr_expect(strstr(res.message, "first volume must be a file") !=
	    NULL, "%s", res.message);
}

Test(volumes, volume_that_is_no_tar)
{
	unsigned char junk[2 * BLK];
	struct pfx_result res;
	int v1, v2;

	memset(junk, 'j', sizeof(junk));
	v1 = volume(tarbuf, 3 * BLK, NULL, 0);
	v2 = volume(junk, sizeof(junk), NULL, 0);
	cr_assert(run(v1, &v2, 1, PFX_OPT_MULTI_VOLUME | PFX_OPT_LIST,
	    &res) == PFX_FATAL);
	cr_expect(strstr(res.message, "volume 2 does not look like a tar "
	    "volume") != NULL, "%s", res.message);
	(void)close(v1);
	(void)close(v2);
}
