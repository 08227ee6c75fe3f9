/*
 * test_zip.c -- pfextract's own zip reader (extract/zip.h) against
 * libarchive's seekable one, on real zips (Info-ZIP's zip -r and -y,
 * Python's zipfile with data descriptors, zip64 and DOS attributes, jar,
 * more than 65535 members): entry by entry, the same names, modes, sizes,
 * times, owners, link targets and data.  Then hostile zips, each a clear
 * refusal; the pool, which must really decode on more than one thread,
 * and none with one CPU.
 *
 * The zips are made by tests/zip_make.py, once per version of it, under
 * $TMPDIR; a tool it needs that is missing (python3, zip, jar) skips
 * what it would have made, saying so.
 */
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <criterion/criterion.h>
#include <zlib.h>

#include "../decode/decode.h"
#include "../extract/pfextract.h"
#include "../extract/zip.h"
#include "../platform/plat_thread.h"
#include "../platform/platform.h"
#include "fixture.h"

/* The directory of the zips, made once per version of the script. */
static const char *
zips(void)
{
	static char dir[512];
	const char *tmp = getenv("TMPDIR");
	char cmd[2600], part[600];
	struct stat st;

	cr_assert_eq(stat("tests/zip_make.py", &st), 0);
	(void)snprintf(dir, sizeof(dir), "%s/pfx-zip-%lld-%lld",
	    tmp != NULL ? tmp : "/tmp", (long long)st.st_mtime,
	    (long long)st.st_size);
	if (stat(dir, &st) == 0)
		return dir;
	if (system("command -v python3 >/dev/null") != 0)
		cr_skip_test("python3 is missing: no zips to read");
	(void)snprintf(part, sizeof(part), "%s.%ld", dir, (long)getpid());
	(void)snprintf(cmd, sizeof(cmd), "rm -rf '%s' && mkdir -p '%s' && "
	    "python3 tests/zip_make.py '%s' && rm -rf '%s/src'", part, part,
	    part, part);
	cr_assert_eq(system(cmd), 0, "tests/zip_make.py failed");
	/* Another test may have made it first: then this copy goes. */
	if (rename(part, dir) != 0) {
		(void)snprintf(cmd, sizeof(cmd), "rm -rf '%s'", part);
		(void)system(cmd);
	}
	return dir;
}

/* The zip NAME of the set, or skip the test when it was not made. */
static const char *
zip_path(const char *name, char *buf, size_t cap)
{
	(void)snprintf(buf, cap, "%s/%s", zips(), name);
	if (access(buf, R_OK) != 0)
		cr_skip_test("%s was not made (its tool is missing)", name);
	return buf;
}

/* One entry as a reader gave it. */
struct seen {
	char name[1024];
	char link[1024];
	unsigned int mode;
	int64_t size, mtime, atime, ctime;
	bool size_set, atime_set;
	int64_t uid, gid;
	uint64_t len;
	uint32_t crc;
	int data;		/* ARCHIVE_EOF: read whole; else its status */
};

static void
take_header(struct seen *s, struct archive_entry *ae)
{
	const char *p = archive_entry_pathname(ae);

	memset(s, 0, sizeof(*s));
	(void)snprintf(s->name, sizeof(s->name), "%s", p != NULL ? p : "");
	p = archive_entry_symlink(ae);
	(void)snprintf(s->link, sizeof(s->link), "%s", p != NULL ? p : "");
	s->mode = (unsigned int)archive_entry_mode(ae);
	s->size_set = archive_entry_size_is_set(ae) != 0;
	s->size = archive_entry_size(ae);
	s->mtime = archive_entry_mtime(ae);
	s->atime_set = archive_entry_atime_is_set(ae) != 0;
	s->atime = archive_entry_atime(ae);
	s->ctime = archive_entry_ctime(ae);
	s->uid = archive_entry_uid(ae);
	s->gid = archive_entry_gid(ae);
	s->crc = (uint32_t)crc32(0, NULL, 0);
}

static void
take_block(struct seen *s, const void *buf, size_t size)
{
	if (size == 0)
		return;	/* libarchive's last block may be NULL */
	s->crc = (uint32_t)crc32(s->crc, buf, (uInt)size);
	s->len += size;
}

/* Every entry of PATH as libarchive's seekable zip reader gives it. */
static size_t
read_libarchive(const char *path, struct seen *out, size_t cap)
{
	struct archive *a = archive_read_new();
	struct archive_entry *ae;
	const void *buf;
	size_t n = 0, size;
	la_int64_t off;
	int r;

	cr_assert_not_null(a);
	cr_assert_eq(archive_read_support_format_zip_seekable(a), ARCHIVE_OK);
	cr_assert_eq(archive_read_open_filename(a, path, 65536), ARCHIVE_OK,
	    "%s: %s", path, archive_error_string(a));
	while ((r = archive_read_next_header(a, &ae)) == ARCHIVE_OK ||
	    r == ARCHIVE_WARN) {
		cr_assert_lt(n, cap);
		take_header(&out[n], ae);
		while ((r = archive_read_data_block(a, &buf, &size, &off)) ==
		    ARCHIVE_OK)
			take_block(&out[n], buf, size);
		out[n++].data = r;
	}
	cr_assert_eq(r, ARCHIVE_EOF, "%s: %s", path, archive_error_string(a));
	archive_read_free(a);
	return n;
}

/* Open PATH with our reader on CPUS threads (DEC: XTR_DEC_ZLIB or 0);
 * it must be ours. */
static struct xtr_zip *
open_ours_within(const char *path, unsigned int cpus, unsigned int dec,
    uint64_t max_memory)
{
	struct pfx_options opt;
	struct pfx_input in;
	struct xtr_zip *z = NULL;
	char msg[300] = "";
	int e = 0, r;

	pfx_options_init(&opt);
	if (max_memory != 0)
		opt.limits.max_memory = max_memory;
	memset(&in, 0, sizeof(in));
	in.fd = -1;
	in.path = path;
	r = xtr_zip_open(&in, &opt, dec, cpus, &z, msg, sizeof(msg), &e);
	cr_assert_eq(r, ZIP_OURS, "%s: not read by our reader (%d): %s",
	    path, r, msg);
	return z;
}

/* The same, at the default memory budget. */
static struct xtr_zip *
open_ours(const char *path, unsigned int cpus, unsigned int dec)
{
	return open_ours_within(path, cpus, dec, 0);
}

/* The N entries GOT have WANT's names and data. */
static void
same_names_and_data(const struct seen *got, const struct seen *want,
    size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		cr_assert_str_eq(got[i].name, want[i].name);
		cr_assert_eq(got[i].crc, want[i].crc);
	}
}

/* Every entry of Z; the pool's work in *ST. */
static size_t
read_ours(struct xtr_zip *z, struct seen *out, size_t cap,
    struct xtr_zip_stats *st)
{
	struct archive_entry *ae = archive_entry_new();
	const void *buf;
	size_t n = 0, size;
	int64_t off;
	int r, e;

	cr_assert_not_null(ae);
	while ((r = xtr_zip_next(z, ae)) == ARCHIVE_OK) {
		cr_assert_lt(n, cap);
		take_header(&out[n], ae);
		while ((r = xtr_zip_data(z, &buf, &size, &off)) == ARCHIVE_OK)
			take_block(&out[n], buf, size);
		out[n++].data = r;
	}
	cr_assert_eq(r, ARCHIVE_EOF, "%s", xtr_zip_error(z, &e));
	if (st != NULL)
		xtr_zip_stats(z, st);
	archive_entry_free(ae);
	return n;
}

/* The zip NAME read both ways, on CPUS threads (DEC: inflated by zlib
 * or not): entry by entry alike. */
static void
same_as(const char *name, unsigned int cpus, unsigned int dec)
{
	/* On the heap (340 MB): a test binary's static data counts against
	 * the RLIMIT_DATA of the decoder processes the other tests fork. */
	struct seen *want = calloc(80000, sizeof(*want));
	struct seen *got = calloc(80000, sizeof(*got));
	char path[600];
	struct xtr_zip *z;
	size_t n, m, i;

	cr_assert(want != NULL && got != NULL);
	(void)zip_path(name, path, sizeof(path));
	n = read_libarchive(path, want, 80000);
	z = open_ours(path, cpus, dec);
	m = read_ours(z, got, 80000, NULL);
	xtr_zip_free(z);
	cr_assert_eq(m, n, "%s: %zu entries, libarchive %zu", name, m, n);
	for (i = 0; i < n; i++) {
		const struct seen *w = &want[i], *g = &got[i];

		cr_assert_str_eq(g->name, w->name, "%s: entry %zu", name, i);
		cr_assert_str_eq(g->link, w->link, "%s: %s", name, w->name);
		cr_assert_eq(g->mode, w->mode, "%s: %s: mode %o, libarchive %o",
		    name, w->name, g->mode, w->mode);
		cr_assert_eq(g->size_set, w->size_set, "%s: %s", name, w->name);
		cr_assert_eq(g->size, w->size, "%s: %s", name, w->name);
		cr_assert_eq(g->mtime, w->mtime, "%s: %s: mtime %lld, "
		    "libarchive %lld", name, w->name, (long long)g->mtime,
		    (long long)w->mtime);
		cr_assert_eq(g->atime_set, w->atime_set, "%s: %s", name,
		    w->name);
		cr_assert_eq(g->atime, w->atime, "%s: %s", name, w->name);
		cr_assert_eq(g->ctime, w->ctime, "%s: %s", name, w->name);
		cr_assert_eq(g->uid, w->uid, "%s: %s", name, w->name);
		cr_assert_eq(g->gid, w->gid, "%s: %s", name, w->name);
		cr_assert_eq(g->len, w->len, "%s: %s", name, w->name);
		cr_assert_eq(g->crc, w->crc, "%s: %s", name, w->name);
		cr_assert_eq(g->data, ARCHIVE_EOF, "%s: %s", name, w->name);
		cr_assert_eq(w->data, ARCHIVE_EOF, "%s: %s: libarchive %d", name,
		    w->name, w->data);
	}
	free(want);
	free(got);
}

static void
same_as_libarchive(const char *name, unsigned int cpus)
{
	same_as(name, cpus, 0);
}

Test(zip, info_zip_ry_as_libarchive)
{
	same_as_libarchive("real-zip-ry.zip", 2);
	same_as_libarchive("real-zip-ry.zip", 1);
}

/* zlib's inflate, where ISA-L is missing: the same. */
Test(zip, zlib_as_libarchive)
{
	same_as("real-zip-ry.zip", 2, XTR_DEC_ZLIB);
	same_as("real-zip-ry.zip", 1, XTR_DEC_ZLIB);
}

Test(zip, info_zip_no_extras_as_libarchive)
{
	same_as_libarchive("real-zip-X.zip", 2);
}

Test(zip, info_zip_stored_as_libarchive)
{
	same_as_libarchive("real-zip-0.zip", 2);
}

/* Its UTF-8 names are copied as they are in a UTF-8 locale, as
 * pfextract(1) runs in (and libarchive converts them to). */
Test(zip, python_as_libarchive)
{
	cr_assert_not_null(setlocale(LC_CTYPE, "C.UTF-8"));
	same_as_libarchive("real-python.zip", 2);
	same_as_libarchive("real-python.zip", 1);
}

/* In the "C" locale libarchive would convert a UTF-8 name otherwise:
 * the zip is libarchive's, whole. */
/* Owners in Info-ZIP's older Unix field ("Ux"), which libarchive reads:
 * they were 0 here (root's, with -p --same-owner), 1234 for bsdtar. */
Test(zip, unix_owners_ux_as_libarchive)
{
	same_as_libarchive("hostile-unix-owners-Ux.zip", 2);
}

Test(zip, utf8_names_in_c_locale_not_ours)
{
	struct pfx_options opt;
	struct pfx_input in;
	struct xtr_zip *z = NULL;
	char path[600], msg[200];
	int e;

	(void)zip_path("real-python.zip", path, sizeof(path));
	cr_assert_not_null(setlocale(LC_CTYPE, "C"));
	pfx_options_init(&opt);
	memset(&in, 0, sizeof(in));
	in.fd = -1;
	in.path = path;
	cr_assert_eq(xtr_zip_open(&in, &opt, 0, 2, &z, msg, sizeof(msg), &e),
	    ZIP_NOT_OURS);
	cr_assert_null(z);
}

Test(zip, python_descriptors_as_libarchive)
{
	same_as_libarchive("real-python-stream.zip", 2);
}

Test(zip, jar_as_libarchive)
{
	same_as_libarchive("real-jar.zip", 2);
}

Test(zip, zip64_many_members_as_libarchive, .timeout = 120)
{
	same_as_libarchive("real-python-many.zip", 2);
}

/* A hostile zip NAME: refused at opening, or at an entry, or its data
 * failing (the kind KIND: 'o' opening, 'e' entry, 'd' data), with a
 * message that has WHAT in it. */
static void
refused(const char *name, char kind, const char *what)
{
	struct archive_entry *ae = archive_entry_new();
	struct pfx_options opt;
	struct pfx_input in;
	struct xtr_zip *z = NULL;
	char path[600], msg[300] = "";
	const void *buf;
	size_t size;
	int64_t off;
	int e = 0, r;

	(void)zip_path(name, path, sizeof(path));
	pfx_options_init(&opt);
	memset(&in, 0, sizeof(in));
	in.fd = -1;
	in.path = path;
	r = xtr_zip_open(&in, &opt, 0, 2, &z, msg, sizeof(msg), &e);
	if (kind == 'o') {
		cr_assert_eq(r, ZIP_HOSTILE, "%s: opened", name);
		cr_assert(strstr(msg, what) != NULL, "%s: %s", name, msg);
		cr_assert_eq(e, EILSEQ);
		archive_entry_free(ae);
		return;
	}
	cr_assert_eq(r, ZIP_OURS, "%s: %s", name, msg);
	for (;;) {
		r = xtr_zip_next(z, ae);
		if (r != ARCHIVE_OK)
			break;
		while ((r = xtr_zip_data(z, &buf, &size, &off)) == ARCHIVE_OK)
			;
		if (r != ARCHIVE_EOF)
			break;
	}
	cr_assert_eq(r, kind == 'e' ? ARCHIVE_FATAL : ARCHIVE_WARN,
	    "%s: %d", name, r);
	cr_assert(strstr(xtr_zip_error(z, &e), what) != NULL, "%s: %s", name,
	    xtr_zip_error(z, &e));
	xtr_zip_free(z);
	archive_entry_free(ae);
}

/* The hostile zips of tests/zip_make.py, and how each is refused. */
static const struct {
	const char *name;
	char kind;
	const char *what;
} hostile[] = {
	{ "hostile-name-mismatch.zip", 'e', "names another file" },
	{ "hostile-csize-mismatch.zip", 'e', "sizes differ" },
	{ "hostile-usize-lies.zip", 'd', "its central directory says" },
	{ "hostile-crc-lies.zip", 'd', "bad CRC-32" },
	{ "hostile-shared-header.zip", 'o', "overlaps" },
	{ "hostile-overlap-bomb.zip", 'o', "overlapping members" },
	{ "hostile-cd-past-end.zip", 'o', "points past" },
	{ "hostile-more-entries.zip", 'o', "more than the entries" },
	{ "hostile-zip64-count-lies.zip", 'o', "disagree" },
	{ "hostile-zip64-size-lies.zip", 'o', "zip64" },
	{ "hostile-local-upath-later.zip", 'e', "extra field" },
	{ "hostile-stored-link-overruns.zip", 'd', "more than the 1 bytes" },
	{ "hostile-stored-link-overruns-later.zip", 'd',
	    "more than the 1 bytes" },
	{ "hostile-stored-overruns.zip", 'd', "more than the 4000 bytes" },
	{ "hostile-link-crc-lies.zip", 'd', "bad CRC-32" },
};

#define NHOSTILE (sizeof(hostile) / sizeof(hostile[0]))

Test(zip_hostile, each_refused_by_the_reader)
{
	size_t i;

	for (i = 0; i < NHOSTILE; i++)
		refused(hostile[i].name, hostile[i].kind, hostile[i].what);
}

/* A local header with a field libarchive would take a name from: in the
 * first member, the zip is libarchive's, which reads it as before. */
Test(zip_hostile, first_local_extra_not_ours)
{
	struct pfx_options opt;
	struct pfx_input in;
	struct xtr_zip *z = NULL;
	char path[600], msg[200];
	int e;

	(void)zip_path("hostile-local-upath-first.zip", path, sizeof(path));
	pfx_options_init(&opt);
	memset(&in, 0, sizeof(in));
	in.fd = -1;
	in.path = path;
	cr_assert_eq(xtr_zip_open(&in, &opt, 0, 2, &z, msg, sizeof(msg), &e),
	    ZIP_NOT_OURS);
	cr_assert_null(z);
}

/* Extract the zip at PATH into FD with OPT, into RES. */
static void
extract_path(const char *path, int fd, const struct pfx_options *opt,
    struct pfx_result *res)
{
	struct pfx_input in;

	memset(&in, 0, sizeof(in));
	in.fd = -1;
	in.path = path;
	(void)pfx_extract(&in, fd, ".", opt, res);
}

/*
 * A second end record hidden in the first's comment (its own comment
 * does not end the file), after a directory and a member of its own:
 * libarchive and unzip take the last "PK\5\6", and read evil.txt where
 * our reader read good.txt.  The zip is libarchive's, so pfextract
 * extracts what libarchive lists.
 */
Test(zip_hostile, end_record_in_comment_not_ours)
{
	static struct seen want[4];
	struct pfx_options opt;
	struct pfx_result res;
	struct pfx_input in;
	struct xtr_zip *z = NULL;
	struct stat st;
	char path[600], msg[200], dest[512];
	int e, fd, sandbox;

	(void)zip_path("hostile-end-in-comment.zip", path, sizeof(path));
	pfx_options_init(&opt);
	memset(&in, 0, sizeof(in));
	in.fd = -1;
	in.path = path;
	cr_assert_eq(xtr_zip_open(&in, &opt, 0, 2, &z, msg, sizeof(msg), &e),
	    ZIP_NOT_OURS);
	cr_assert_null(z);
	cr_assert_eq(read_libarchive(path, want, 4), 1);
	cr_assert_str_eq(want[0].name, "evil.txt");
	for (sandbox = 0; sandbox < 2; sandbox++) {
		fd = tfx_temp_dest("zip", dest, sizeof(dest));
		pfx_options_init(&opt);
		if (sandbox)
			opt.flags |= PFX_OPT_SANDBOX_CHILD;
		extract_path(path, fd, &opt, &res);
		cr_assert_eq(res.status, PFX_OK, "sandbox %d: %s", sandbox,
		    res.message);
		cr_assert_eq(fstatat(fd, "evil.txt", &st, 0), 0);
		cr_assert_neq(fstatat(fd, "good.txt", &st, 0), 0);
		tfx_temp_end(&fd, dest);
	}
}

/* Each hostile zip through pfx_extract(), in this process and in the
 * decoder process: a refusal (not an extraction), a message. */
Test(zip_hostile, refused_by_the_library)
{
	struct pfx_options opt;
	struct pfx_result res;
	char path[600], dest[512];
	size_t i;
	int sandbox, fd;

	for (sandbox = 0; sandbox < 2; sandbox++) {
		for (i = 0; i < NHOSTILE; i++) {
			(void)zip_path(hostile[i].name, path, sizeof(path));
			fd = tfx_temp_dest("zip", dest, sizeof(dest));
			pfx_options_init(&opt);
			/* The decoder process only: this one goes on. */
			if (sandbox)
				opt.flags |= PFX_OPT_SANDBOX_CHILD;
			extract_path(path, fd, &opt, &res);
			cr_assert_neq(res.status, PFX_OK, "%s",
			    hostile[i].name);
			cr_assert(res.status == PFX_FATAL ||
			    res.stats.failed > 0, "%s", hostile[i].name);
			tfx_temp_end(&fd, dest);
		}
	}
}

/*
 * PATH extracts, in the decoder process and without it, with one member
 * refused and EXTRACTED extracted, GOOD the last (holding WANT, if not
 * NULL).
 */
static void
one_refused_both_ways(const char *path, unsigned int extracted,
    const char *good, const char *want)
{
	struct pfx_options opt;
	struct pfx_result res;
	char dest[512], got[16] = "";
	int sandbox, fd, f;

	for (sandbox = 0; sandbox < 2; sandbox++) {
		fd = tfx_temp_dest("zip", dest, sizeof(dest));
		pfx_options_init(&opt);
		if (sandbox)
			opt.flags |= PFX_OPT_SANDBOX_CHILD;
		extract_path(path, fd, &opt, &res);
		cr_assert_eq(res.status, PFX_REFUSED, "sandbox %d: %d %s",
		    sandbox, (int)res.status, res.message);
		cr_assert_eq(res.stats.refused, 1);
		cr_assert_eq(res.stats.extracted, extracted);
		f = openat(fd, good, O_RDONLY | O_CLOEXEC);
		cr_assert(f >= 0, "%s: %s", good, strerror(errno));
		if (want != NULL) {
			cr_assert_eq(read(f, got, sizeof(got) - 1),
			    (ssize_t)strlen(want));
			cr_assert_str_eq(got, want);
		}
		(void)close(f);
		tfx_temp_end(&fd, dest);
	}
}

/* A refused member whose data fails its CRC-32 is drained, not written:
 * the member after it is extracted (the run used to end at it, exit 2). */
Test(zip_hostile, refused_bad_data_drained)
{
	char path[600];

	(void)zip_path("hostile-refused-crc-lies.zip", path, sizeof(path));
	one_refused_both_ways(path, 1, "good.txt", "good\n");
}

/* The same in a zip libarchive reads: a refused member whose data fails
 * its CRC-32 was the end of the run in the decoder process (exit 2, and
 * good.txt lost), and drained without it. */
Test(zip_hostile, refused_bad_data_drained_by_libarchive)
{
	struct pfx_options opt;
	struct pfx_input in;
	struct xtr_zip *z = NULL;
	char path[600], msg[200];
	int e;

	(void)zip_path("hostile-refused-crc-lies-libarchive.zip", path,
	    sizeof(path));
	pfx_options_init(&opt);
	memset(&in, 0, sizeof(in));
	in.fd = -1;
	in.path = path;
	cr_assert_eq(xtr_zip_open(&in, &opt, 0, 2, &z, msg, sizeof(msg), &e),
	    ZIP_NOT_OURS);
	one_refused_both_ways(path, 2, "good.txt", NULL);
}

/*
 * An encrypted member, refused by its name, in a zip libarchive reads
 * (which cannot decode it: ARCHIVE_FAILED, the archive going on): it is
 * passed over and the next member extracted, as bsdtar does, in the
 * decoder process and without it; and a listing without the decoder
 * process lists the two others.  Both ended the run (exit 2, good2.txt
 * lost).
 */
Test(zip_hostile, refused_encrypted_passed_over)
{
	struct pfx_options opt;
	struct pfx_result res;
	char path[600], dest[512];
	int fd;

	(void)zip_path("hostile-refused-encrypted.zip", path, sizeof(path));
	one_refused_both_ways(path, 2, "good2.txt", NULL);
	fd = tfx_temp_dest("zip", dest, sizeof(dest));
	pfx_options_init(&opt);
	opt.flags |= PFX_OPT_LIST;
	extract_path(path, fd, &opt, &res);
	cr_assert_eq(res.status, PFX_REFUSED, "%d %s", (int)res.status,
	    res.message);
	cr_assert_eq(res.stats.listed, 2);
	tfx_temp_end(&fd, dest);
}

/* Little-endian fields at P. */
static void
put16(unsigned char *p, unsigned int v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
}

static void
put32(unsigned char *p, uint32_t v)
{
	put16(p, v & 0xffffu);
	put16(p + 2, v >> 16);
}

/* Write to FD a zip of N empty stored members whose names are NLEN
 * bytes each (their number, then 'a's): local headers, then the
 * central directory, then the end record. */
static void
write_long_names(int fd, unsigned int n, size_t nlen)
{
	unsigned char *h = calloc(1, 46 + nlen), *name;
	uint32_t off = 0, cd_size = 0;
	unsigned int i;
	bool cd;

	cr_assert_not_null(h);
	for (cd = false; ; cd = true) {
		size_t fixed = cd ? 46 : 30;

		for (i = 0; i < n; i++) {
			memset(h, 0, 46);
			name = h + fixed;
			memset(name, 'a', nlen);
			(void)snprintf((char *)name, 11, "%010u", i);
			name[10] = 'a';
			if (cd) {
				put32(h, 0x02014b50u);
				put16(h + 4, 0x031e);	/* made by Unix */
				put16(h + 6, 10);
				put32(h + 12, 0x21u << 16);
				put16(h + 28, (unsigned int)nlen);
				put32(h + 38, 0100644u << 16);
				put32(h + 42, (uint32_t)(i * (30 + nlen)));
				cd_size += (uint32_t)(46 + nlen);
			} else {
				put32(h, 0x04034b50u);
				put16(h + 4, 10);
				put32(h + 10, 0x21u << 16);
				put16(h + 26, (unsigned int)nlen);
				off += (uint32_t)(30 + nlen);
			}
			cr_assert_eq(write(fd, h, fixed + nlen),
			    (ssize_t)(fixed + nlen));
		}
		if (cd)
			break;
	}
	memset(h, 0, 22);
	put32(h, 0x06054b50u);
	put16(h + 8, n);
	put16(h + 10, n);
	put32(h + 12, cd_size);
	put32(h + 16, off);
	cr_assert_eq(write(fd, h, 22), 22);
	free(h);
}

/*
 * The central directory is held within the memory budget, its names
 * too.  They were copied out of it while it was held, so that a
 * directory of long names took twice what was counted against the
 * budget: 400 names of 60,000 bytes (24 MB) took 48 MB at a budget of
 * 32 MiB.  Now they are packed in place.
 */
Test(zip_hostile, long_names_within_the_budget, .timeout = 60)
{
	struct archive_entry *ae = archive_entry_new();
	struct pfx_options opt;
	struct pfx_input in;
	struct xtr_zip *z = NULL;
	struct rusage ru;
	char path[600], msg[300] = "";
	uint64_t before, after;
	unsigned int n = 0;
	int e = 0, fd;

	if (plat_sanitized())
		cr_skip_test("a sanitizer's allocator costs more a block");
	(void)snprintf(path, sizeof(path), "%s/pfx-zip-names-%ld.zip",
	    getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp",
	    (long)getpid());
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	cr_assert(fd >= 0, "%s: %s", path, strerror(errno));
	write_long_names(fd, 400, 60000);
	(void)close(fd);
	pfx_options_init(&opt);
	opt.limits.max_memory = 32u << 20;
	opt.flags |= PFX_OPT_LIST;
	memset(&in, 0, sizeof(in));
	in.fd = -1;
	in.path = path;
	cr_assert_eq(getrusage(RUSAGE_SELF, &ru), 0);
	before = (uint64_t)ru.ru_maxrss * 1024;
	cr_assert_eq(xtr_zip_open(&in, &opt, 0, 1, &z, msg, sizeof(msg), &e),
	    ZIP_OURS, "%s", msg);
	cr_assert_eq(getrusage(RUSAGE_SELF, &ru), 0);
	after = (uint64_t)ru.ru_maxrss * 1024;
	while (xtr_zip_next(z, ae) == ARCHIVE_OK)
		n++;
	xtr_zip_free(z);
	archive_entry_free(ae);
	(void)unlink(path);
	cr_assert_eq(n, 400);
	cr_assert_lt(after - before, opt.limits.max_memory, "opening took "
	    "%llu MB", (unsigned long long)((after - before) >> 20));
}

/* What refused members inflate counts toward --max-ratio even when their
 * data fails its CRC-32: held by the pool (the default budget) or
 * streamed (1 MiB: none is held). */
Test(zip_hostile, bad_data_counted_in_ratio)
{
	static const uint64_t mem[] = { 0, 1u << 20 };
	struct pfx_options opt;
	struct pfx_result res;
	char path[600], dest[512];
	int sandbox, fd;
	size_t i;

	(void)zip_path("hostile-refused-crc-bomb.zip", path, sizeof(path));
	for (sandbox = 0; sandbox < 2; sandbox++) {
		for (i = 0; i < sizeof(mem) / sizeof(mem[0]); i++) {
			fd = tfx_temp_dest("zip", dest, sizeof(dest));
			pfx_options_init(&opt);
			if (sandbox)
				opt.flags |= PFX_OPT_SANDBOX_CHILD;
			if (mem[i] != 0)
				opt.limits.max_memory = mem[i];
			opt.limits.ratio_after = 1u << 20;
			extract_path(path, fd, &opt, &res);
			cr_assert_eq(res.status, PFX_FATAL, "sandbox %d, "
			    "memory %ju: %d", sandbox, (uintmax_t)mem[i],
			    (int)res.status);
			cr_assert_eq(res.error, EFBIG, "%s", res.message);
			cr_assert(strstr(res.message, "max-ratio") != NULL,
			    "%s", res.message);
			tfx_temp_end(&fd, dest);
		}
	}
}

/* The pool decodes on more than one thread, in archive order. */
Test(zip_pool, decodes_on_every_cpu)
{
	static struct seen want[700], got[700];
	struct xtr_zip_stats st;
	struct xtr_zip *z;
	char path[600];
	size_t n, m;

	(void)zip_path("real-python-pool.zip", path, sizeof(path));
	n = read_libarchive(path, want, 700);
	z = open_ours(path, 2, 0);
	m = read_ours(z, got, 700, &st);
	xtr_zip_free(z);
	cr_assert_eq(m, n);
	same_names_and_data(got, want, n);
	cr_assert_eq(st.threads, 2);
	cr_assert_gt(st.threads_used, 1, "only %u thread decoded",
	    st.threads_used);
	cr_assert_eq(st.pooled, n);
}

/*
 * The pool's buffers stay within the bytes it may hold: each thread's
 * read buffer, kept from one member to the next, is counted with the
 * members' data.  Sixteen members of 240 KiB, then 400 of 8 KiB, on 8
 * threads holding 2 MiB: when the reading thread comes late, the small
 * members fill what may be held while each thread still has its big
 * read buffer.  They were not counted (4 MiB in all, here).
 */
Test(zip_pool, thread_buffers_within_what_is_held)
{
	struct seen *want = calloc(420, sizeof(*want));
	struct seen *got = calloc(420, sizeof(*got));
	struct xtr_zip_stats st;
	struct xtr_zip *z;
	char path[600];
	size_t n, m;

	cr_assert(want != NULL && got != NULL);
	(void)zip_path("real-python-spans.zip", path, sizeof(path));
	n = read_libarchive(path, want, 420);
	cr_assert_eq(n, 416);
	z = open_ours_within(path, 8, 0, 16u << 20);
	/* The reader comes late: the pool fills what it may hold first. */
	(void)usleep(100000);
	m = read_ours(z, got, 420, &st);
	xtr_zip_free(z);
	cr_assert_eq(m, n);
	same_names_and_data(got, want, n);
	cr_assert_eq(st.threads, 8);
	cr_assert_eq(st.pooled, n);
	cr_assert_eq(st.hold_max, 2u << 20);
	cr_assert_leq(st.buffers_peak, st.hold_max,
	    "the pool's buffers took %zu bytes, it may hold %zu",
	    st.buffers_peak, st.hold_max);
	free(want);
	free(got);
}

/* With one CPU, as plat_thread_cpus() counts them: no pool at all. */
Test(zip_pool, one_cpu_no_pool)
{
	static struct seen got[700];
	struct xtr_zip_stats st;
	struct xtr_zip *z;
	cpu_set_t one;
	char path[600];
	int status;
	pid_t pid;

	(void)zip_path("real-python-pool.zip", path, sizeof(path));
	pid = fork();
	cr_assert_neq(pid, -1);
	if (pid == 0) {
		CPU_ZERO(&one);
		CPU_SET(sched_getcpu() >= 0 ? sched_getcpu() : 0, &one);
		if (sched_setaffinity(0, sizeof(one), &one) != 0)
			_exit(3);
		if (plat_thread_cpus() != 1)
			_exit(4);
		z = open_ours(path, plat_thread_cpus(), 0);
		(void)read_ours(z, got, 700, &st);
		xtr_zip_free(z);
		_exit(st.threads == 0 && st.pooled == 0 ? 0 : 5);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "status %d", status);
}

/* A budget too small for any member: every one is streamed, none held,
 * and the data is the same. */
Test(zip_pool, small_budget_streams)
{
	static struct seen want[700], got[700];
	struct xtr_zip_stats st;
	struct pfx_options opt;
	struct pfx_input in;
	struct xtr_zip *z = NULL;
	char path[600], msg[200];
	size_t n, m, i;
	int e;

	(void)zip_path("real-python-pool.zip", path, sizeof(path));
	n = read_libarchive(path, want, 700);
	pfx_options_init(&opt);
	opt.limits.max_memory = 16u << 10;
	memset(&in, 0, sizeof(in));
	in.fd = -1;
	in.path = path;
	/* The directory alone is more than 16 KiB: refused, naming it. */
	cr_assert_eq(xtr_zip_open(&in, &opt, 0, 2, &z, msg, sizeof(msg), &e),
	    ZIP_HOSTILE);
	cr_assert_eq(e, EFBIG);
	cr_assert(strstr(msg, "max-memory") != NULL, "%s", msg);
	opt.limits.max_memory = 1u << 20;
	cr_assert_eq(xtr_zip_open(&in, &opt, 0, 2, &z, msg, sizeof(msg), &e),
	    ZIP_OURS, "%s", msg);
	m = read_ours(z, got, 700, &st);
	xtr_zip_free(z);
	cr_assert_eq(m, n);
	for (i = 0; i < n; i++)
		cr_assert_eq(got[i].crc, want[i].crc);
	cr_assert_eq(st.pooled, 0);
}
