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
 *  - without the flag, VOLUMES is never read (a pointer that is none);
 *  - a volume out of sequence (another member, another offset) before
 *    the right one: skipped and told to pfx_options.warning, as GNU tar
 *    warns and goes on (suite test 157), also with volumes GNU tar
 *    wrote; after it a volume wrong in another way still fails.
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

/* A cut inside a's data that the next volume does not continue so:
 * the volume whose head is HEAD (HEADLEN bytes), after one SKIPPED (its
 * 'M' header) unless NULL. */
static void
expect_broken_after(const unsigned char *skipped, const unsigned char *head,
    size_t headlen, const char *why)
{
	struct pfx_result res;
	struct stat st;
	char path[512];
	size_t w, n, i;
	int v1, vols[2];

	for (w = 0; w < 2; w++) {
		v1 = volume(tarbuf, 2 * BLK, NULL, 0);
		n = 0;
		if (skipped != NULL)
			vols[n++] = volume(skipped, BLK, tarbuf + 2 * BLK,
			    tarlen - 2 * BLK);
		vols[n++] = volume(head, headlen, tarbuf + 2 * BLK,
		    tarlen - 2 * BLK);
		cr_assert(run(v1, vols, n, PFX_OPT_MULTI_VOLUME | ways[w],
		    &res) == PFX_FATAL);
		cr_expect(strstr(res.message, why) != NULL,
		    "message '%s', want '%s'", res.message, why);
		(void)snprintf(path, sizeof(path), "%s/a", dir);
		cr_expect(lstat(path, &st) == -1 && errno == ENOENT,
		    "a, cut short, was left");
		(void)close(v1);
		for (i = 0; i < n; i++)
			(void)close(vols[i]);
	}
}

static void
expect_broken(const unsigned char *head, size_t headlen, const char *why)
{
	expect_broken_after(NULL, head, headlen, why);
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

/*
 * A volume out of sequence, followed by another: GNU tar warns and goes
 * on with the next volume (multiv05), and so does the library, telling
 * pfx_options.warning; a volume wrong in any other way still fails.
 */

/* What pfx_options.warning was told. */
struct told {
	int n;
	char what[64], name[256];
};

static void
on_warning(void *arg, const char *what, const char *name)
{
	struct told *t = arg;

	t->n++;
	(void)snprintf(t->what, sizeof(t->what), "%s", what);
	(void)snprintf(t->name, sizeof(t->name), "%s", name);
}

/* run(), with the warnings told to T. */
static enum pfx_status
run_told(int first, const int *vols, size_t n, unsigned int flags,
    struct told *t, struct pfx_result *res)
{
	struct pfx_input in = { .fd = first, .volumes = vols, .nvolumes = n };
	struct pfx_options opt;

	memset(t, 0, sizeof(*t));
	pfx_options_init(&opt);
	opt.flags |= flags;
	opt.hooks.arg = t;
	opt.warning = on_warning;
	return pfx_extract(&in, AT_FDCWD, dir, &opt, res);
}

/* Volume 1 cut inside a's data, then a volume whose head is HEAD, then
 * a's right continuation: joined past the middle one, told WHAT on "a". */
static void
expect_skipped(const unsigned char *head, const char *what)
{
	unsigned char m[BLK];
	struct pfx_result res;
	struct told t;
	size_t w;
	int v1, vols[2];

	m_header(m, "a", 488, 512);
	for (w = 0; w < 2; w++) {
		v1 = volume(tarbuf, 2 * BLK, NULL, 0);
		vols[0] = volume(head, BLK, tarbuf + 2 * BLK,
		    tarlen - 2 * BLK);
		vols[1] = volume(m, BLK, tarbuf + 2 * BLK, tarlen - 2 * BLK);
		cr_assert(run_told(v1, vols, 2, PFX_OPT_MULTI_VOLUME | ways[w],
		    &t, &res) == PFX_OK, "%s", res.message);
		cr_expect(t.n == 1 && strcmp(t.what, what) == 0 &&
		    strcmp(t.name, "a") == 0, "told %d: %s %s", t.n, t.what,
		    t.name);
		cr_expect(res.stats.extracted == 3);
		expect_file("a", 1000, '0', 'a');
		expect_file("b", 3000, '1', 'b');
		expect_file("c", 200, '2', 'c');
		(void)close(v1);
		(void)close(vols[0]);
		(void)close(vols[1]);
		cr_assert(tfx_rm_tree(dir) == 0 && mkdir(dir, 0700) == 0);
	}
}

Test(volumes, continuation_of_another_member_skipped)
{
	unsigned char m[BLK];

	m_header(m, "b", 488, 512);
	expect_skipped(m, "not_continued");
}

Test(volumes, continuation_from_another_offset_skipped)
{
	unsigned char m[BLK];

	m_header(m, "a", 976, 24);
	expect_skipped(m, "out_of_sequence");
}

/* After a volume skipped, one that begins with no continuation. */
Test(volumes, no_continuation_after_a_skip)
{
	unsigned char m[BLK];

	m_header(m, "b", 488, 512);
	expect_broken_after(m, tarbuf, 0, "'a' is not continued on volume "
	    "3 (it begins with no continuation)");
}

/* The name and offset right, the size not: skipped, as GNU tar skips
 * it ("is the wrong size"). */
Test(volumes, wrong_size_skipped)
{
	unsigned char m[BLK];

	m_header(m, "a", 400, 512);
	expect_skipped(m, "wrong_size");
}

/* A volume that begins with a plain header, no continuation: skipped
 * too, as GNU tar skips it ("is not continued on this volume"). */
Test(volumes, no_continuation_skipped)
{
	expect_skipped(tarbuf, "not_continued");
}

/* The wrong size on the last volume given: nothing follows to read in
 * its place, so the run fails, naming it. */
Test(volumes, last_volume_wrong_size_fails)
{
	unsigned char m[BLK];
	struct pfx_result res;
	struct told t;
	int v1, vols[1];

	m_header(m, "a", 400, 512);
	v1 = volume(tarbuf, 2 * BLK, NULL, 0);
	vols[0] = volume(m, BLK, tarbuf + 2 * BLK, tarlen - 2 * BLK);
	cr_assert(run_told(v1, vols, 1, PFX_OPT_MULTI_VOLUME, &t, &res) ==
	    PFX_FATAL);
	cr_expect(strstr(res.message, "'a' is the wrong size on volume 2") !=
	    NULL, "%s", res.message);
	cr_expect(t.n == 0);
	(void)close(v1);
	(void)close(vols[0]);
}

Test(volumes, last_volume_out_of_sequence_fails)
{
	unsigned char m[BLK];

	/* Skipped, with nothing after it: GNU tar would prompt. */
	m_header(m, "b", 488, 512);
	expect_broken_after(m, m, BLK, "'a' is not continued on volume 3 "
	    "(it continues 'b')");
}

/* Run the shell command CMD in DIR; skip the test without GNU tar. */
static void
in_dir(const char *cmd)
{
	char buf[1024];

	if (system("tar --version 2>/dev/null | grep -q 'GNU tar'") != 0)
		cr_skip_test("no GNU tar");
	(void)snprintf(buf, sizeof(buf), "cd '%s' && %s", dir, cmd);
	cr_assert(system(buf) == 0, "%s failed", buf);
}

/* Open DIR/NAME. */
static int
open_in(const char *name)
{
	char path[512];
	int fd;

	(void)snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	cr_assert(fd >= 0, "%s", path);
	return fd;
}

/*
 * GNU tar's own volumes (tar -cM -L 10 -f a -f b -f c), given as
 * ORDER (volume names), extracted into DIR/out with and without the
 * decoder process: the tree is the source's (MEMBERS, under src/), and
 * the one warning is WHAT on NAME.
 */
static void
gnu_volumes(const char *order, const char *members, const char *what,
    const char *name)
{
	struct pfx_input in = { .fd = -1 };
	struct pfx_options opt;
	struct pfx_result res;
	int fds[8], vols[8];
	char cmd[512], out[512];
	struct told t;
	size_t n, i, w;

	(void)snprintf(out, sizeof(out), "%s/out", dir);
	for (w = 0; w < 2; w++) {
		n = strlen(order);
		cr_assert(n > 1 && n <= 8);
		for (i = 0; i < n; i++)
			fds[i] = open_in((char[]){ order[i], '\0' });
		memcpy(vols, fds + 1, (n - 1) * sizeof(vols[0]));
		cr_assert(mkdir(out, 0700) == 0);
		memset(&t, 0, sizeof(t));
		pfx_options_init(&opt);
		opt.flags |= PFX_OPT_MULTI_VOLUME | ways[w];
		opt.hooks.arg = &t;
		opt.warning = on_warning;
		in.fd = fds[0];
		in.volumes = vols;
		in.nvolumes = n - 1;
		cr_assert(pfx_extract(&in, AT_FDCWD, out, &opt, &res) ==
		    PFX_OK, "%s: %s", order, res.message);
		cr_expect(t.n == 1 && strcmp(t.what, what) == 0 &&
		    strcmp(t.name, name) == 0, "%s: told %d: %s %s", order,
		    t.n, t.what, t.name);
		(void)snprintf(cmd, sizeof(cmd), "for f in %s; do cmp src/$f "
		    "out/$f || exit 1; done && rm -rf out", members);
		in_dir(cmd);
		for (i = 0; i < n; i++)
			(void)close(fds[i]);
	}
}

Test(volumes, gnu_tar_volume_of_another_member_skipped)
{
	/* f2 is cut at the end of a; c continues f3 (as GNU tar says). */
	in_dir("mkdir src && cd src && for f in f1 f2 f3; do "
	    "head -c 8000 /dev/urandom > $f; done && "
	    "tar -c -M -L 10 -f ../a -f ../b -f ../c f1 f2 f3 </dev/null && "
	    "cd .. && tar -tM -f a -f c -f b -f c </dev/null 2>err >/dev/null "
	    "&& grep -q \"f2.* is not continued on this volume\" err");
	gnu_volumes("acbc", "f1 f2 f3", "not_continued", "f2");
}

Test(volumes, gnu_tar_volume_out_of_sequence_skipped)
{
	/* One member across all three: c continues it from further on. */
	in_dir("mkdir src && cd src && head -c 25000 /dev/urandom > big && "
	    "tar -c -M -L 10 -f ../a -f ../b -f ../c big </dev/null && "
	    "cd .. && tar -tM -f a -f c -f b -f c </dev/null 2>err >/dev/null "
	    "&& grep -q 'This volume is out of sequence' err");
	gnu_volumes("acbc", "big", "out_of_sequence", "big");
}

/*
 * The ratio divides by what every volume holds: one member across twelve
 * volumes of GNU tar's, with a ratio of 2 past 64 KiB, extracts in this
 * process and in the decoder process alike (whose count of bytes read
 * was held to the first volume's size: 6 times over and more).
 */
Test(volumes, ratio_counts_every_volume)
{
	struct pfx_input in = { .fd = -1 };
	struct pfx_options opt;
	struct pfx_result res;
	char name[2] = "b";
	int vols[11];
	size_t w, i;

	in_dir("mkdir src && cd src && head -c 110000 /dev/urandom > big && "
	    "tar -c -M -L 10 -f ../a -f ../b -f ../c -f ../d -f ../e -f ../f "
	    "-f ../g -f ../h -f ../i -f ../j -f ../k -f ../l big </dev/null");
	for (w = 0; w < 2; w++) {
		in.fd = open_in("a");
		for (i = 0; i < 11; i++) {
			name[0] = (char)('b' + i);
			vols[i] = open_in(name);
		}
		in.volumes = vols;
		in.nvolumes = 11;
		pfx_options_init(&opt);
		opt.flags |= PFX_OPT_MULTI_VOLUME | ways[w];
		opt.limits.max_ratio = 2;
		opt.limits.ratio_after = 64 << 10;
		cr_expect(pfx_extract(&in, AT_FDCWD, dir, &opt, &res) ==
		    PFX_OK, "way %zu: %s", w, res.message);
		in_dir("cmp src/big big && rm big");
		(void)close(in.fd);
		for (i = 0; i < 11; i++)
			(void)close(vols[i]);
	}
}
