/*
 * test_decode.c -- pfextract's own decompression (decode/decode*.c):
 * gzip (ISA-L, and the zlib fallback forced with XTR_DEC_ZLIB), zstd and
 * xz, single and multiple members, frames, streams and blocks, from a
 * buffer, a seekable descriptor, a path and a pipe; every check each
 * format carries (gzip's CRC-32 and ISIZE, zstd's checksum, xz's block
 * check) failing as a read error that leaves no file under its final
 * name; truncation, trailing bytes, the memory bounds against hostile
 * headers, the ratio limit counted on the raw bytes (nested compression
 * too), a cancel that stops a decoder waiting on a stalled pipe, and no
 * thread or descriptor left behind.
 *
 * Each case runs in a fresh directory:
 *
 *	$TMPDIR/pfx-decode.XXXXXX/
 *	|-- dest/		the destination
 *	`-- in.bin		the archive, when read from a file
 *
 * The archive is one tar, made in memory: d/, d/small, d/text (200 KiB
 * of text), d/noise (2.5 MiB of noise, so that the plain stream spans
 * three of the decoder's 1 MiB blocks and d/noise ends in the third) and
 * last.  Compressed, it is checked byte for byte after extraction.
 */
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/syscall.h>

#include <linux/perf_event.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <criterion/criterion.h>
#include <lzma.h>
#include <zlib.h>
#define ZSTD_STATIC_LINKING_ONLY	/* ZSTD_getFrameHeader() */
#include <zstd.h>

#include "decmem.h"
#include "decode.h"
#include "fixture.h"
#include "reader.h"
#include "plat_thread.h"
#include "platform.h"

#define KiB 1024u
#define MiB (1024u * 1024u)
#define TEXT_LEN (200 * KiB)
#define NOISE_LEN (2 * MiB + 512 * KiB)

/* A growable byte buffer. */
struct buf {
	unsigned char *p;
	size_t len, cap;
};

/* The files of the test tar, in its order. */
struct file {
	const char *name;
	unsigned char *data;
	size_t len;
};

struct fx {
	char top[PATH_MAX / 2];
	int topfd;
	int destfd;
	int nfds;
	int nthreads;
	struct file files[3 + 1];
	size_t nfiles;
	struct buf tar;
	struct pfx_options opt;
	struct pfx_result res;
};

static struct fx the_fx;

/* --- buffers and the tar -------------------------------------------------- */

static void
buf_add(struct buf *b, const void *p, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2;
		b->p = realloc(b->p, b->cap);
		cr_assert(b->p != NULL, "realloc");
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

static void
buf_free(struct buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

/* N bytes of noise from SEED (xorshift32). */
static unsigned char *
noise(size_t n, uint32_t seed)
{
	unsigned char *p = malloc(n);
	size_t i;

	cr_assert(p != NULL, "malloc");
	for (i = 0; i < n; i++) {
		seed ^= seed << 13;
		seed ^= seed >> 17;
		seed ^= seed << 5;
		p[i] = (unsigned char)seed;
	}
	return p;
}

/* N bytes of text. */
static unsigned char *
text(size_t n)
{
	static const char words[] = "the quick brown fox jumps over a lazy "
	    "dog 0123456789\n";
	unsigned char *p = malloc(n);
	size_t i;

	cr_assert(p != NULL, "malloc");
	for (i = 0; i < n; i++)
		p[i] = (unsigned char)words[(i * 7 + i / 51) %
		    (sizeof(words) - 1)];
	return p;
}

static la_ssize_t
tar_write(struct archive *a, void *arg, const void *p, size_t n)
{
	(void)a;
	buf_add(arg, p, n);
	return (la_ssize_t)n;
}

static void
tar_entry(struct archive *a, const char *name, mode_t type,
    const unsigned char *data, size_t len)
{
	struct archive_entry *e = archive_entry_new();

	cr_assert(e != NULL);
	archive_entry_set_pathname(e, name);
	archive_entry_set_filetype(e, type);
	archive_entry_set_perm(e, type == AE_IFDIR ? 0755 : 0644);
	archive_entry_set_size(e, (la_int64_t)len);
	archive_entry_set_mtime(e, 1700000000, 0);
	cr_assert(archive_write_header(a, e) == ARCHIVE_OK, "header %s: %s",
	    name, archive_error_string(a));
	if (len > 0)
		cr_assert(archive_write_data(a, data, len) == (la_ssize_t)len,
		    "data %s: %s", name, archive_error_string(a));
	archive_entry_free(e);
}

/* Write the tar of FILES (after a directory d/) into OUT. */
static void
make_tar(struct buf *out, const struct file *files, size_t n)
{
	struct archive *a = archive_write_new();
	size_t i;

	cr_assert(a != NULL);
	cr_assert(archive_write_set_format_pax_restricted(a) == ARCHIVE_OK);
	cr_assert(archive_write_open(a, out, NULL, tar_write, NULL) ==
	    ARCHIVE_OK, "open: %s", archive_error_string(a));
	tar_entry(a, "d", AE_IFDIR, NULL, 0);
	for (i = 0; i < n; i++)
		tar_entry(a, files[i].name, AE_IFREG, files[i].data,
		    files[i].len);
	cr_assert(archive_write_close(a) == ARCHIVE_OK);
	archive_write_free(a);
}

/* --- compressors ---------------------------------------------------------- */

/*
 * gzip of IN in NPARTS members; with FIELDS, each header carries FEXTRA,
 * FNAME, FCOMMENT and FHCRC.
 */
static void
gzip_members(struct buf *out, const struct buf *in, size_t nparts,
    bool fields)
{
	static unsigned char extra[] = "AP\004\000abcd";
	static unsigned char name[] = "a name.tar";
	static unsigned char comment[] = "a comment";
	unsigned char chunk[64 * KiB];
	size_t part, at = 0, n;
	gz_header hd;
	z_stream z;
	int r;

	for (part = 0; part < nparts; part++) {
		n = part + 1 == nparts ? in->len - at : in->len / nparts;
		memset(&z, 0, sizeof(z));
		cr_assert(deflateInit2(&z, 6, Z_DEFLATED, 31, 8,
		    Z_DEFAULT_STRATEGY) == Z_OK);
		if (fields) {
			memset(&hd, 0, sizeof(hd));
			hd.extra = extra;
			hd.extra_len = sizeof(extra) - 1;
			hd.name = name;
			hd.comment = comment;
			hd.hcrc = 1;
			cr_assert(deflateSetHeader(&z, &hd) == Z_OK);
		}
		z.next_in = in->p + at;
		z.avail_in = (uInt)n;
		do {
			z.next_out = chunk;
			z.avail_out = sizeof(chunk);
			r = deflate(&z, Z_FINISH);
			cr_assert(r == Z_OK || r == Z_STREAM_END);
			buf_add(out, chunk, sizeof(chunk) - z.avail_out);
		} while (r != Z_STREAM_END);
		(void)deflateEnd(&z);
		at += n;
	}
}

/*
 * zstd of IN in NPARTS frames, each with a checksum when CHECKSUM, a
 * skippable frame between two when SKIPPABLE.
 */
static void
zstd_frames(struct buf *out, const struct buf *in, size_t nparts,
    bool checksum, bool skippable)
{
	static const unsigned char skip[] = { 0x50, 0x2a, 0x4d, 0x18, 5, 0,
		0, 0, 's', 'k', 'i', 'p', '!' };
	ZSTD_CCtx *c = ZSTD_createCCtx();
	size_t part, at = 0, n, bound, r;
	unsigned char *tmp;

	cr_assert(c != NULL);
	cr_assert(!ZSTD_isError(ZSTD_CCtx_setParameter(c,
	    ZSTD_c_checksumFlag, checksum ? 1 : 0)));
	for (part = 0; part < nparts; part++) {
		n = part + 1 == nparts ? in->len - at : in->len / nparts;
		bound = ZSTD_compressBound(n);
		tmp = malloc(bound);
		cr_assert(tmp != NULL);
		r = ZSTD_compress2(c, tmp, bound, in->p + at, n);
		cr_assert(!ZSTD_isError(r), "%s", ZSTD_getErrorName(r));
		if (part > 0 && skippable)
			buf_add(out, skip, sizeof(skip));
		buf_add(out, tmp, r);
		free(tmp);
		at += n;
	}
	ZSTD_freeCCtx(c);
}

/*
 * An xz stream of IN: one block, or blocks of BLOCK bytes that carry
 * their sizes (xz -T's layout, which the threaded decoder splits), with
 * the check CHECK.
 */
static void
xz_stream(struct buf *out, const unsigned char *in, size_t len,
    size_t block, lzma_check check)
{
	lzma_stream s = LZMA_STREAM_INIT;
	unsigned char chunk[64 * KiB];
	lzma_mt mt;
	lzma_ret r;

	if (block == 0) {
		cr_assert(lzma_easy_encoder(&s, 1, check) == LZMA_OK);
	} else {
		memset(&mt, 0, sizeof(mt));
		mt.threads = 2;
		mt.block_size = block;
		mt.preset = 1;
		mt.check = check;
		cr_assert(lzma_stream_encoder_mt(&s, &mt) == LZMA_OK);
	}
	s.next_in = in;
	s.avail_in = len;
	do {
		s.next_out = chunk;
		s.avail_out = sizeof(chunk);
		r = lzma_code(&s, LZMA_FINISH);
		cr_assert(r == LZMA_OK || r == LZMA_STREAM_END, "lzma %d", r);
		buf_add(out, chunk, sizeof(chunk) - s.avail_out);
	} while (r != LZMA_STREAM_END);
	lzma_end(&s);
}

/* --- the fixture ---------------------------------------------------------- */

static void
fx_init(void)
{
	struct fx *fx = &the_fx;
	const char *tmp = getenv("TMPDIR");
	int r;

	memset(fx, 0, sizeof(*fx));
	r = snprintf(fx->top, sizeof(fx->top), "%s/pfx-decode.XXXXXX",
	    tmp != NULL && *tmp != '\0' ? tmp : "/tmp");
	cr_assert(r > 0 && (size_t)r < sizeof(fx->top));
	cr_assert(mkdtemp(fx->top) != NULL, "mkdtemp: %s", strerror(errno));
	fx->topfd = open(fx->top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert(fx->topfd >= 0);
	cr_assert(mkdirat(fx->topfd, "dest", 0755) == 0);
	fx->destfd = openat(fx->topfd, "dest", O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC);
	cr_assert(fx->destfd >= 0);
	fx->files[0] = (struct file){ "d/small", text(6), 6 };
	fx->files[1] = (struct file){ "d/text", text(TEXT_LEN), TEXT_LEN };
	fx->files[2] = (struct file){ "d/noise", noise(NOISE_LEN, 2463534242u),
	    NOISE_LEN };
	fx->files[3] = (struct file){ "last", text(5), 5 };
	fx->nfiles = 4;
	make_tar(&fx->tar, fx->files, fx->nfiles);
	cr_assert(fx->tar.len > 2 * XTR_DEC_BLOCK + 64 * KiB &&
	    fx->tar.len < 3 * XTR_DEC_BLOCK, "the tar must span three "
	    "decoder blocks (%zu bytes)", fx->tar.len);
	pfx_options_init(&fx->opt);
	fx->nfds = tfx_count_fds();
	fx->nthreads = tfx_count_threads();
}

/* What every case must keep: no descriptor and no thread left. */
static void
fx_fini(void)
{
	struct fx *fx = &the_fx;
	size_t i;

	cr_expect(tfx_count_fds() == fx->nfds, "descriptors leaked: %d "
	    "before, %d after", fx->nfds, tfx_count_fds());
	cr_expect(tfx_threads_settle(fx->nthreads) == fx->nthreads, "threads "
	    "left: %d before, %d after", fx->nthreads, tfx_count_threads());
	for (i = 0; i < fx->nfiles; i++)
		free(fx->files[i].data);
	buf_free(&fx->tar);
	(void)close(fx->destfd);
	(void)close(fx->topfd);
	(void)tfx_rm_tree(fx->top);
}

TestSuite(decode, .init = fx_init, .fini = fx_fini, .timeout = 120);

/* Empty dest/. */
static void
clear_dest(struct fx *fx)
{
	char path[PATH_MAX];

	(void)close(fx->destfd);
	(void)snprintf(path, sizeof(path), "%s/dest", fx->top);
	cr_assert(tfx_rm_tree(path) == 0, "cannot remove dest/");
	cr_assert(mkdirat(fx->topfd, "dest", 0755) == 0);
	fx->destfd = openat(fx->topfd, "dest", O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC);
	cr_assert(fx->destfd >= 0);
}

/* Does dest/NAME hold exactly LEN bytes of DATA? */
static bool
holds(struct fx *fx, const char *name, const unsigned char *data,
    size_t len)
{
	unsigned char *got = malloc(len + 1);
	size_t have = 0;
	ssize_t n;
	bool same;
	int fd;

	cr_assert(got != NULL);
	fd = openat(fx->destfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		free(got);
		return false;
	}
	while ((n = read(fd, got + have, len + 1 - have)) > 0)
		have += (size_t)n;
	(void)close(fd);
	same = have == len && memcmp(got, data, len) == 0;
	free(got);
	return same;
}

static bool
exists(struct fx *fx, const char *name)
{
	struct stat st;

	return fstatat(fx->destfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/* No temporary of a file being written is left in dest/ or dest/d/. */
static void
expect_no_temporaries(struct fx *fx, const char *what)
{
	static const char *const dirs[] = { ".", "d" };
	char **names;
	ssize_t n, i;
	size_t k;

	for (k = 0; k < 2; k++) {
		if (!exists(fx, dirs[k]))
			continue;
		n = tfx_read_names(fx->destfd, dirs[k], &names);
		for (i = 0; i < n; i++) {
			cr_expect(strncmp(names[i], ".pfx-", 5) != 0,
			    "%s: temporary %s/%s left", what, dirs[k],
			    names[i]);
			free(names[i]);
		}
		free(names);
	}
}

/* dest/ holds the N FILES, byte for byte. */
static void
expect_files(struct fx *fx, const struct file *files, size_t n,
    const char *what)
{
	size_t i;

	for (i = 0; i < n; i++)
		cr_expect(holds(fx, files[i].name, files[i].data,
		    files[i].len), "%s: %s missing or not whole", what,
		    files[i].name);
	expect_no_temporaries(fx, what);
}

/* dest/ holds the whole tree, byte for byte. */
static void
expect_tree(struct fx *fx, const char *what)
{
	expect_files(fx, fx->files, fx->nfiles, what);
}

/*
 * dest/ after a read error in the third decoder block: the files whose
 * data ended in the first two are whole, d/noise (whose end was in the
 * third) and last are not there at all.
 */
static void
expect_cut_in_third_block(struct fx *fx, const char *what)
{
	cr_expect(holds(fx, "d/small", fx->files[0].data, fx->files[0].len),
	    "%s: d/small", what);
	cr_expect(holds(fx, "d/text", fx->files[1].data, fx->files[1].len),
	    "%s: d/text", what);
	cr_expect(!exists(fx, "d/noise"), "%s: d/noise, whose data failed, "
	    "has its final name", what);
	cr_expect(!exists(fx, "last"), "%s: last exists", what);
	expect_no_temporaries(fx, what);
}

/* --- feeding an archive to pfx_extract() ---------------------------------- */

enum feed { FEED_BUF, FEED_FD, FEED_PATH, FEED_PIPE };

static const char *const feed_names[] = { "buffer", "fd", "path", "pipe" };

struct writer {
	int fd;
	const unsigned char *p;
	size_t len;
};

/* A thread that writes a whole buffer into a pipe and closes it. */
static void *
write_pipe(void *arg)
{
	struct writer *w = arg;
	sigset_t pipe_sig;
	size_t at = 0;
	ssize_t n;

	/* The reader may stop early: EPIPE, not a signal. */
	(void)sigemptyset(&pipe_sig);
	(void)sigaddset(&pipe_sig, SIGPIPE);
	(void)pthread_sigmask(SIG_BLOCK, &pipe_sig, NULL);
	while (at < w->len) {
		n = write(w->fd, w->p + at, w->len - at);
		if (n <= 0)
			break;
		at += (size_t)n;
	}
	(void)close(w->fd);
	return NULL;
}

/* Save A as in.bin in the fixture.  Return: its path (static). */
static const char *
save(struct fx *fx, const struct buf *a)
{
	static char path[PATH_MAX];
	int fd;

	fd = openat(fx->topfd, "in.bin", O_WRONLY | O_CREAT | O_TRUNC |
	    O_CLOEXEC, 0644);
	cr_assert(fd >= 0);
	cr_assert(write(fd, a->p, a->len) == (ssize_t)a->len);
	(void)close(fd);
	(void)snprintf(path, sizeof(path), "%s/in.bin", fx->top);
	return path;
}

/* Extract the archive A fed as HOW into a fresh dest/.  Return: status. */
static enum pfx_status
extract(struct fx *fx, const struct buf *a, enum feed how)
{
	struct pfx_input in = { .fd = -1, .buf = NULL, .len = 0 };
	struct writer w;
	enum pfx_status st;
	pthread_t t;
	int p[2];

	clear_dest(fx);
	switch (how) {
	case FEED_BUF:
		in.buf = a->p;
		in.len = a->len;
		break;
	case FEED_FD:
		(void)save(fx, a);
		in.fd = openat(fx->topfd, "in.bin", O_RDONLY | O_CLOEXEC);
		cr_assert(in.fd >= 0);
		break;
	case FEED_PATH:
		in.path = save(fx, a);
		break;
	case FEED_PIPE:
		cr_assert(pipe2(p, O_CLOEXEC) == 0);
		w.fd = p[1];
		w.p = a->p;
		w.len = a->len;
		cr_assert(pthread_create(&t, NULL, write_pipe, &w) == 0);
		in.fd = p[0];
		break;
	}
	st = pfx_extract(&in, fx->destfd, ".", &fx->opt, &fx->res);
	if (in.fd >= 0) {
		cr_expect(fcntl(in.fd, F_GETFD) != -1, "the caller's "
		    "descriptor was closed");
		(void)close(in.fd);
	}
	if (how == FEED_PIPE)
		cr_assert(pthread_join(t, NULL) == 0);
	return st;
}

/* Extract A every way; each must give exactly the N FILES. */
static void
expect_files_every_feed(struct fx *fx, const struct buf *a,
    const struct file *files, size_t n, const char *what)
{
	char label[128];
	enum pfx_status st;
	int how;

	for (how = FEED_BUF; how <= FEED_PIPE; how++) {
		(void)snprintf(label, sizeof(label), "%s from a %s", what,
		    feed_names[how]);
		st = extract(fx, a, (enum feed)how);
		cr_expect(st == PFX_OK, "%s: status %d: %s", label, st,
		    fx->res.message);
		expect_files(fx, files, n, label);
	}
}

/* Extract A every way; each must give the whole tree. */
static void
expect_every_feed(struct fx *fx, const struct buf *a, const char *what)
{
	expect_files_every_feed(fx, a, fx->files, fx->nfiles, what);
}

/* Extract A every way; each must fail with a message holding WANT and
 * leave the tree of a read error in the third block. */
static void
expect_failure_every_feed(struct fx *fx, const struct buf *a,
    const char *want, const char *what)
{
	char label[128];
	enum pfx_status st;
	int how;

	for (how = FEED_BUF; how <= FEED_PIPE; how++) {
		(void)snprintf(label, sizeof(label), "%s from a %s", what,
		    feed_names[how]);
		st = extract(fx, a, (enum feed)how);
		cr_expect(st == PFX_FATAL, "%s: status %d, want fatal", label,
		    st);
		cr_expect(strstr(fx->res.message, want) != NULL,
		    "%s: message \"%s\" lacks \"%s\"", label, fx->res.message,
		    want);
		expect_cut_in_third_block(fx, label);
	}
}

/* --- reading through xtr_reader_open() directly --------------------------- */

/*
 * Read every entry of the buffer A through the reader with decoder FLAGS
 * and, with CHECK, compare its data with the fixture's files.  Return:
 * the status of the first failing libarchive call (ARCHIVE_OK at a clean
 * end), with its message in MSG; *RAW: the decoder's raw byte count at
 * the end; *GOT: the bytes of entry data read.
 */
static int
read_counting(struct fx *fx, const struct buf *a, unsigned int flags,
    bool check, char *msg, size_t cap, uint64_t *raw, size_t *got)
{
	struct pfx_input in = { .fd = -1, .buf = a->p, .len = a->len };
	struct xtr_decoder *dec;
	struct archive_entry *e;
	struct archive *ar;
	unsigned char *data;
	size_t i, len;
	la_ssize_t n;
	int r, error;

	msg[0] = '\0';
	*raw = 0;
	*got = 0;
	ar = xtr_reader_open(&in, NULL, NULL, flags, &dec, NULL, msg, cap,
	    &error);
	if (ar == NULL)
		return ARCHIVE_FATAL;
	cr_assert(dec != NULL, "not decoded by our decoder");
	data = malloc(NOISE_LEN + 1);
	cr_assert(data != NULL);
	for (;;) {
		r = archive_read_next_header(ar, &e);
		if (r != ARCHIVE_OK)
			break;
		if (archive_entry_filetype(e) != AE_IFREG)
			continue;
		len = 0;
		while ((n = archive_read_data(ar, data + len,
		    NOISE_LEN + 1 - len)) > 0)
			len += (size_t)n;
		*got += len;
		if (n < 0) {
			r = (int)n;
			break;
		}
		for (i = 0; check && i < fx->nfiles; i++) {
			if (strcmp(fx->files[i].name,
			    archive_entry_pathname(e)) != 0)
				continue;
			cr_expect(len == fx->files[i].len && memcmp(data,
			    fx->files[i].data, len) == 0, "%s: wrong data",
			    fx->files[i].name);
		}
	}
	if (r == ARCHIVE_EOF)
		r = ARCHIVE_OK;
	else
		(void)snprintf(msg, cap, "%s", archive_error_string(ar) !=
		    NULL ? archive_error_string(ar) : "(no message)");
	*raw = xtr_decoder_raw_bytes(dec);
	free(data);
	archive_read_free(ar);
	return r;
}

static int
read_through(struct fx *fx, const struct buf *a, unsigned int flags,
    char *msg, size_t cap, uint64_t *raw)
{
	size_t got;

	return read_counting(fx, a, flags, true, msg, cap, raw, &got);
}

/* The gzip inflaters to try: ISA-L (where built in) and zlib. */
static const unsigned int gzip_flags[] = { 0, XTR_DEC_ZLIB };
static const char *const gzip_names[] = { "default inflater", "zlib" };

/* --- the cases ------------------------------------------------------------ */

Test(decode, detect_by_magic_only)
{
	static const struct {
		const char *what;
		unsigned char head[6];
		size_t len;
		enum xtr_codec want;
	} rows[] = {
		{ "gzip", { 0x1f, 0x8b, 8, 0 }, 4, XTR_CODEC_GZIP },
		{ "gzip, every known flag", { 0x1f, 0x8b, 8, 0x1f }, 4,
		    XTR_CODEC_GZIP },
		{ "gzip, reserved flag: libarchive's", { 0x1f, 0x8b, 8,
		    0x20 }, 4, XTR_CODEC_NONE },
		{ "gzip, method 7: libarchive's", { 0x1f, 0x8b, 7, 0 }, 4,
		    XTR_CODEC_NONE },
		{ "gzip cut to 3 bytes", { 0x1f, 0x8b, 8 }, 3,
		    XTR_CODEC_NONE },
		{ "zstd frame", { 0x28, 0xb5, 0x2f, 0xfd }, 4,
		    XTR_CODEC_ZSTD },
		{ "zstd skippable first", { 0x50, 0x2a, 0x4d, 0x18 }, 4,
		    XTR_CODEC_ZSTD },
		{ "zstd skippable first, last magic", { 0x5f, 0x2a, 0x4d,
		    0x18 }, 4, XTR_CODEC_ZSTD },
		{ "lz4's magic next to the skippable ones", { 0x60, 0x2a,
		    0x4d, 0x18 }, 4, XTR_CODEC_NONE },
		{ "xz", { 0xfd, '7', 'z', 'X', 'Z', 0 }, 6, XTR_CODEC_XZ },
		{ "xz cut to 5 bytes", { 0xfd, '7', 'z', 'X', 'Z' }, 5,
		    XTR_CODEC_NONE },
		{ "bzip2", { 'B', 'Z', 'h', '9', 0x31, 0x41 }, 6,
		    XTR_CODEC_NONE },
		{ "lzip", { 'L', 'Z', 'I', 'P', 1, 0x0c }, 6,
		    XTR_CODEC_NONE },
		{ "lz4", { 0x04, 0x22, 0x4d, 0x18 }, 4, XTR_CODEC_NONE },
		{ "zip", { 'P', 'K', 3, 4 }, 4, XTR_CODEC_NONE },
		{ "ustar data", { 'h', 'e', 'l', 'l', 'o' }, 5,
		    XTR_CODEC_NONE },
		{ "empty", { 0 }, 0, XTR_CODEC_NONE },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		cr_expect(xtr_codec_detect(rows[i].head, rows[i].len) ==
		    rows[i].want, "%s: codec %d, want %d", rows[i].what,
		    xtr_codec_detect(rows[i].head, rows[i].len),
		    rows[i].want);
}

Test(decode, gzip_every_feed)
{
	struct fx *fx = &the_fx;
	struct buf one = { 0 }, many = { 0 };

	gzip_members(&one, &fx->tar, 1, false);
	expect_every_feed(fx, &one, "gzip, one member");
	/* Members of every header field, FHCRC checked. */
	gzip_members(&many, &fx->tar, 7, true);
	expect_every_feed(fx, &many, "gzip, 7 members with FEXTRA, FNAME, "
	    "FCOMMENT, FHCRC");
	buf_free(&one);
	buf_free(&many);
}

/*
 * The first block goes to libarchive before the rest is decoded: with a
 * tar that compresses little (d/noise) the raw bytes consumed when the
 * first header is read are about XTR_DEC_FIRST, not a whole 1 MiB block,
 * on a thread and inline; the blocks after it grow, and the data is whole.
 */
Test(decode, first_block_small)
{
	static const unsigned int flags[] = { 0, XTR_DEC_INLINE };
	struct fx *fx = &the_fx;
	struct buf gz = { 0 };
	struct pfx_input in = { .fd = -1 };
	struct xtr_decoder *dec;
	struct archive_entry *e;
	struct archive *ar;
	char msg[256];
	uint64_t raw;
	size_t i, got;
	int error;

	gzip_members(&gz, &fx->tar, 1, false);
	in.buf = gz.p;
	in.len = gz.len;
	for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		ar = xtr_reader_open(&in, NULL, NULL, flags[i], &dec, NULL,
		    msg, sizeof(msg), &error);
		cr_assert(ar != NULL && dec != NULL, "flags %#x: %s", flags[i],
		    msg);
		cr_assert(archive_read_next_header(ar, &e) == ARCHIVE_OK);
		raw = xtr_decoder_raw_bytes(dec);
		cr_expect(raw > 0 && raw <= XTR_DEC_FIRST + 32 * KiB,
		    "flags %#x: %llu raw bytes taken for the first header",
		    flags[i], (unsigned long long)raw);
		archive_read_free(ar);
		cr_expect(read_counting(fx, &gz, flags[i], true, msg,
		    sizeof(msg), &raw, &got) == ARCHIVE_OK, "flags %#x: %s",
		    flags[i], msg);
		cr_expect(raw == gz.len, "flags %#x: %llu of %zu raw bytes",
		    flags[i], (unsigned long long)raw, gz.len);
	}
	buf_free(&gz);
}

Test(decode, gzip_both_inflaters)
{
	struct fx *fx = &the_fx;
	struct buf one = { 0 }, many = { 0 };
	char msg[256];
	uint64_t raw;
	size_t k;

	gzip_members(&one, &fx->tar, 1, false);
	gzip_members(&many, &fx->tar, 5, true);
	for (k = 0; k < 2; k++) {
		cr_expect(read_through(fx, &one, gzip_flags[k], msg,
		    sizeof(msg), &raw) == ARCHIVE_OK, "%s: %s", gzip_names[k],
		    msg);
		/* The ratio's denominator: every raw byte, no more. */
		cr_expect(raw == one.len, "%s: %llu raw bytes counted, the "
		    "stream has %zu", gzip_names[k], (unsigned long long)raw,
		    one.len);
		cr_expect(read_through(fx, &many, gzip_flags[k], msg,
		    sizeof(msg), &raw) == ARCHIVE_OK, "%s, members: %s",
		    gzip_names[k], msg);
	}
	buf_free(&one);
	buf_free(&many);
}

/*
 * The same verdict and the same bytes from both inflaters for damage
 * anywhere in a small multi-member gzip (the zlib fallback must keep
 * working where ISA-L is missing).
 */
Test(decode, gzip_inflaters_agree_on_damage)
{
	struct fx *fx = &the_fx;
	struct buf gz = { 0 }, bad = { 0 };
	char msg[2][256];
	uint64_t raw[2];
	size_t at, k, got[2];
	int r[2];

	/* A small tar: the first two files only. */
	buf_free(&fx->tar);
	make_tar(&fx->tar, fx->files, 2);
	gzip_members(&gz, &fx->tar, 3, true);
	for (at = 0; at < gz.len; at += gz.len / 97 + 1) {
		bad.len = 0;
		buf_add(&bad, gz.p, gz.len);
		bad.p[at] ^= 0x55;
		for (k = 0; k < 2; k++)
			r[k] = read_counting(fx, &bad, gzip_flags[k], false,
			    msg[k], sizeof(msg[k]), &raw[k], &got[k]);
		cr_expect(r[0] == r[1] && got[0] == got[1], "byte %zu "
		    "flipped: %s says %d after %zu bytes (%s), zlib %d after "
		    "%zu (%s)", at, gzip_names[0], r[0], got[0], msg[0], r[1],
		    got[1], msg[1]);
		cr_expect(r[0] != ARCHIVE_OK, "byte %zu flipped: no error",
		    at);
	}
	buf_free(&gz);
	buf_free(&bad);
}

Test(decode, gzip_bad_crc_or_length)
{
	struct fx *fx = &the_fx;
	struct buf gz = { 0 };
	char msg[256];
	uint64_t raw;
	size_t k;

	gzip_members(&gz, &fx->tar, 1, false);
	gz.p[gz.len - 8] ^= 1;		/* CRC-32 */
	expect_failure_every_feed(fx, &gz, "CRC-32 mismatch",
	    "gzip, bad CRC-32");
	for (k = 0; k < 2; k++) {
		cr_expect(read_through(fx, &gz, gzip_flags[k], msg,
		    sizeof(msg), &raw) != ARCHIVE_OK &&
		    strstr(msg, "CRC-32 mismatch") != NULL,
		    "%s: bad CRC-32 read as \"%s\"", gzip_names[k], msg);
	}
	gz.p[gz.len - 8] ^= 1;
	gz.p[gz.len - 1] ^= 1;		/* ISIZE */
	expect_failure_every_feed(fx, &gz, "length mismatch",
	    "gzip, bad ISIZE");
	gz.p[gz.len - 1] ^= 1;
	cr_expect(extract(fx, &gz, FEED_BUF) == PFX_OK, "restored: %s",
	    fx->res.message);
	buf_free(&gz);
}

Test(decode, gzip_bad_header_crc)
{
	struct fx *fx = &the_fx;
	struct buf gz = { 0 };
	char msg[256];
	uint64_t raw;
	size_t k, at;

	gzip_members(&gz, &fx->tar, 1, true);
	/* FHCRC: the two bytes after the comment's NUL. */
	at = (size_t)((unsigned char *)memmem(gz.p, 64, "a comment", 10) -
	    gz.p) + 10;
	gz.p[at] ^= 1;
	for (k = 0; k < 2; k++)
		cr_expect(read_through(fx, &gz, gzip_flags[k], msg,
		    sizeof(msg), &raw) != ARCHIVE_OK &&
		    strstr(msg, "header CRC mismatch") != NULL,
		    "%s: bad FHCRC read as \"%s\"", gzip_names[k], msg);
	buf_free(&gz);
}

/* A stream cut anywhere fails, and no file is left half-written. */
Test(decode, truncated_streams)
{
	static const char *const want[] = { "truncated gzip input",
		"truncated zstd input", "truncated xz input" };
	struct fx *fx = &the_fx;
	struct buf c[3] = { { 0 } }, cut = { 0 };
	static const size_t frac[] = { 10, 50, 90, 99 };
	char label[128];
	enum pfx_status st;
	size_t k, f;
	int how;

	gzip_members(&c[0], &fx->tar, 1, false);
	zstd_frames(&c[1], &fx->tar, 1, true, false);
	xz_stream(&c[2], fx->tar.p, fx->tar.len, 0, LZMA_CHECK_CRC64);
	for (k = 0; k < 3; k++) {
		for (f = 0; f < 4; f++) {
			cut.len = 0;
			buf_add(&cut, c[k].p, c[k].len * frac[f] / 100);
			for (how = FEED_BUF; how <= FEED_PIPE; how++) {
				(void)snprintf(label, sizeof(label), "%s cut "
				    "at %zu%% from a %s", want[k], frac[f],
				    feed_names[how]);
				st = extract(fx, &cut, (enum feed)how);
				cr_expect(st == PFX_FATAL, "%s: status %d",
				    label, st);
				cr_expect(strstr(fx->res.message, want[k]) !=
				    NULL || strstr(fx->res.message, "corrupt")
				    != NULL, "%s: message \"%s\"", label,
				    fx->res.message);
				cr_expect(!exists(fx, "last"), "%s: last",
				    label);
				expect_no_temporaries(fx, label);
			}
		}
	}
	/* Cut inside the gzip trailer: the data is whole, unverified. */
	cut.len = 0;
	buf_add(&cut, c[0].p, c[0].len - 3);
	cr_expect(extract(fx, &cut, FEED_BUF) == PFX_FATAL &&
	    strstr(fx->res.message, "truncated gzip input") != NULL,
	    "gzip without its ISIZE: \"%s\"", fx->res.message);
	expect_cut_in_third_block(fx, "gzip without its ISIZE");
	for (k = 0; k < 3; k++)
		buf_free(&c[k]);
	buf_free(&cut);
}

/* After the last gzip member: zeros (tape padding) and other bytes are
 * ignored, as gzip and libarchive 3.6 did. */
Test(decode, gzip_trailing_bytes)
{
	struct fx *fx = &the_fx;
	static const unsigned char zeros[1024];
	struct buf gz = { 0 };
	size_t base;

	gzip_members(&gz, &fx->tar, 2, false);
	base = gz.len;
	buf_add(&gz, zeros, sizeof(zeros));
	expect_every_feed(fx, &gz, "gzip and 1 KiB of zeros");
	gz.len = base;
	buf_add(&gz, "junk after the members", 22);
	expect_every_feed(fx, &gz, "gzip and junk");
	gz.len = base;
	buf_add(&gz, "\037", 1);
	expect_every_feed(fx, &gz, "gzip and a lone 1f");
	buf_free(&gz);
}

Test(decode, zstd_frames_every_feed)
{
	struct fx *fx = &the_fx;
	struct buf one = { 0 }, many = { 0 };

	zstd_frames(&one, &fx->tar, 1, false, false);
	expect_every_feed(fx, &one, "zstd, one frame");
	zstd_frames(&many, &fx->tar, 6, true, true);
	expect_every_feed(fx, &many, "zstd, 6 frames with checksums and "
	    "skippable frames between");
	buf_free(&one);
	buf_free(&many);
}

Test(decode, zstd_bad_checksum_and_trailing_junk)
{
	struct fx *fx = &the_fx;
	struct buf z = { 0 };

	zstd_frames(&z, &fx->tar, 1, true, false);
	z.p[z.len - 1] ^= 1;		/* the frame's checksum */
	expect_failure_every_feed(fx, &z, "zstd decompression failed",
	    "zstd, bad checksum");
	z.p[z.len - 1] ^= 1;
	buf_add(&z, "junk", 4);	/* an error, as with libarchive */
	expect_failure_every_feed(fx, &z, "zstd decompression failed",
	    "zstd and junk");
	buf_free(&z);
}

/*
 * The tree as one zstd frame, streamed with no size given so that it has
 * a window descriptor, the window it declares set to 2^WLOG (the data
 * needs less: any larger window decodes it), into Z.
 */
static void
zstd_declaring(struct fx *fx, struct buf *z, int wlog)
{
	ZSTD_CCtx *c = ZSTD_createCCtx();
	size_t bound = ZSTD_compressBound(fx->tar.len) + 64, r;
	unsigned char *tmp = malloc(bound);
	ZSTD_outBuffer out = { tmp, bound, 0 };
	ZSTD_inBuffer in = { fx->tar.p, fx->tar.len, 0 };

	cr_assert(c != NULL && tmp != NULL);
	/* Not ZSTD_e_end at once: that would give the frame its size. */
	r = ZSTD_compressStream2(c, &out, &in, ZSTD_e_continue);
	cr_assert(!ZSTD_isError(r) && in.pos == in.size);
	do {
		r = ZSTD_compressStream2(c, &out, &in, ZSTD_e_end);
		cr_assert(!ZSTD_isError(r));
	} while (r != 0);
	ZSTD_freeCCtx(c);
	cr_assert((tmp[4] & 0x20) == 0, "single-segment frame");
	tmp[5] = (unsigned char)((wlog - 10) << 3);
	z->len = 0;
	buf_add(z, tmp, out.pos);
	free(tmp);
}

/*
 * A frame's window comes from the memory budget: one that needs more is
 * refused up front, naming the budget, with a sandbox too (the decoder
 * process says it); the same frame decodes within a larger budget, and
 * within none.  A window past what libzstd decodes at all (2 GiB) is
 * refused without a budget.
 */
Test(decode, zstd_window_within_the_budget)
{
	struct fx *fx = &the_fx;
	unsigned int flags[] = { 0, PFX_OPT_SANDBOX_CHILD };
	struct buf z = { 0 };
	size_t i;

	zstd_declaring(fx, &z, 28);	/* 256 MiB */
	for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		fx->opt.flags = flags[i];
		fx->opt.limits.max_memory = 128 * MiB;
		cr_expect(extract(fx, &z, FEED_BUF) == PFX_FATAL &&
		    fx->res.error == ENOMEM && strstr(fx->res.message,
		    "window of 256 MiB needs 257 MiB to decode, more than "
		    "the memory budget: limit max-memory=134217728 (raise "
		    "limits.max_memory, or set it to 0)") != NULL,
		    "flags %#x, 128 MiB: \"%s\"", flags[i], fx->res.message);
		cr_expect(!exists(fx, "d/small"), "flags %#x: d/small was "
		    "written", flags[i]);
		fx->opt.limits.max_memory = 257 * MiB;
		cr_expect(extract(fx, &z, FEED_BUF) == PFX_OK,
		    "flags %#x, 257 MiB: \"%s\"", flags[i], fx->res.message);
		expect_tree(fx, "zstd, 256 MiB window, 257 MiB budget");
		fx->opt.limits.max_memory = 0;
		cr_expect(extract(fx, &z, FEED_BUF) == PFX_OK,
		    "flags %#x, no budget: \"%s\"", flags[i],
		    fx->res.message);
		expect_tree(fx, "zstd, 256 MiB window, no budget");
	}
	fx->opt.flags = 0;
	zstd_declaring(fx, &z, 32);	/* 4 GiB */
	cr_expect(extract(fx, &z, FEED_BUF) == PFX_FATAL &&
	    fx->res.error == ENOMEM && strstr(fx->res.message,
	    "a frame needs a window larger than libzstd decodes (2048 MiB)")
	    != NULL, "a 4 GiB window, no budget: \"%s\"", fx->res.message);
	buf_free(&z);
}

/*
 * An lzma (.lzma, "alone") stream of IN, made with a 64 KiB dictionary
 * and its header then made to declare DICT: the decoder allocates what
 * the header says, whatever the data needs.
 */
static void
lzma_alone_declaring(struct buf *out, const struct buf *in, uint32_t dict)
{
	lzma_stream s = LZMA_STREAM_INIT;
	lzma_options_lzma opt;
	unsigned char chunk[64 * KiB];
	size_t start = out->len;
	lzma_ret r;
	int i;

	cr_assert(lzma_lzma_preset(&opt, 1) == 0);
	opt.dict_size = 64 * KiB;
	cr_assert(lzma_alone_encoder(&s, &opt) == LZMA_OK);
	s.next_in = in->p;
	s.avail_in = in->len;
	do {
		s.next_out = chunk;
		s.avail_out = sizeof(chunk);
		r = lzma_code(&s, LZMA_FINISH);
		cr_assert(r == LZMA_OK || r == LZMA_STREAM_END);
		buf_add(out, chunk, sizeof(chunk) - s.avail_out);
	} while (r != LZMA_STREAM_END);
	lzma_end(&s);
	for (i = 0; i < 4; i++)
		out->p[start + 1 + i] = (unsigned char)(dict >> (8 * i));
}

/*
 * lzma and lzip are libarchive's to decode, and it gives liblzma no
 * memory limit: the dictionary a header declares is asked of the budget
 * before libarchive reads on (reader.c, dict_fits()), as for xz and zstd.
 * A .lzma declaring 64 MiB is refused under 16 MiB, naming the budget,
 * plain and inside gzip, and decodes without a budget.
 */
Test(decode, lzma_dictionary_within_the_budget)
{
	struct fx *fx = &the_fx;
	struct buf z = { 0 }, gz = { 0 };

	static const unsigned char lzip[][6] = {
		{ 'L', 'Z', 'I', 'P', 1, 0x1d },	/* 2^29 */
		{ 'L', 'Z', 'I', 'P', 1, 0xd7 },	/* 2^23 less 6/16 */
		{ 'L', 'Z', 'I', 'P', 1, 0x6c },	/* 2^12, whole */
	};

	cr_expect(xtr_filter_dict(ARCHIVE_FILTER_LZIP, lzip[0], 6) ==
	    512 * MiB);
	cr_expect(xtr_filter_dict(ARCHIVE_FILTER_LZIP, lzip[1], 6) ==
	    5 * MiB);
	cr_expect(xtr_filter_dict(ARCHIVE_FILTER_LZIP, lzip[2], 6) ==
	    4 * KiB);
	cr_expect(xtr_filter_dict(ARCHIVE_FILTER_LZIP, lzip[0], 5) == 0);
	cr_expect(xtr_filter_dict(ARCHIVE_FILTER_BZIP2, lzip[0], 6) == 0);
	lzma_alone_declaring(&z, &fx->tar, 64u << 20);
	gzip_members(&gz, &z, 1, false);
	fx->opt.limits.max_memory = 16 * MiB;
	cr_expect(extract(fx, &z, FEED_BUF) == PFX_FATAL &&
	    fx->res.error == ENOMEM && strstr(fx->res.message,
	    "lzma decompression failed: a dictionary of 64 MiB, more than "
	    "the memory budget: limit max-memory=16777216") != NULL,
	    "16 MiB: \"%s\"", fx->res.message);
	cr_expect(!exists(fx, "d/small"), "d/small was written");
	cr_expect(extract(fx, &z, FEED_PIPE) == PFX_FATAL &&
	    fx->res.error == ENOMEM, "16 MiB, a pipe: \"%s\"",
	    fx->res.message);
	cr_expect(extract(fx, &gz, FEED_BUF) == PFX_FATAL &&
	    fx->res.error == ENOMEM, "16 MiB, inside gzip: \"%s\"",
	    fx->res.message);
	fx->opt.limits.max_memory = 65 * MiB;
	cr_expect(extract(fx, &z, FEED_BUF) == PFX_OK, "65 MiB: \"%s\"",
	    fx->res.message);
	expect_tree(fx, "lzma, 64 MiB dictionary, 65 MiB budget");
	fx->opt.limits.max_memory = 0;
	cr_expect(extract(fx, &gz, FEED_PIPE) == PFX_OK, "no budget, inside "
	    "gzip: \"%s\"", fx->res.message);
	expect_tree(fx, "lzma in gzip, no budget");
	buf_free(&z);
	buf_free(&gz);
}

/*
 * A stream that opens with a skippable frame (pzstd writes one before
 * each frame) is ours too, its frames' windows asked of the budget: given
 * to libarchive's filter, a 64 MiB window behind it decoded within a
 * budget of 16 MiB (libzstd's own limit there is 128 MiB).  The same
 * stream decodes without a budget, from a buffer and from a pipe.
 */
Test(decode, zstd_skippable_first_within_the_budget)
{
	static const unsigned char skip[] = { 0x5a, 0x2a, 0x4d, 0x18, 4, 0,
		0, 0, 'p', 'z', 's', 't' };
	struct fx *fx = &the_fx;
	struct buf frame = { 0 }, z = { 0 };

	zstd_declaring(fx, &frame, 26);	/* 64 MiB */
	buf_add(&z, skip, sizeof(skip));
	buf_add(&z, frame.p, frame.len);
	fx->opt.limits.max_memory = 16 * MiB;
	cr_expect(extract(fx, &z, FEED_BUF) == PFX_FATAL &&
	    fx->res.error == ENOMEM && strstr(fx->res.message,
	    "window of 64 MiB needs 65 MiB to decode, more than the memory "
	    "budget: limit max-memory=16777216") != NULL,
	    "16 MiB: \"%s\"", fx->res.message);
	cr_expect(!exists(fx, "d/small"), "d/small was written");
	cr_expect(extract(fx, &z, FEED_PIPE) == PFX_FATAL &&
	    fx->res.error == ENOMEM, "16 MiB, a pipe: \"%s\"",
	    fx->res.message);
	fx->opt.limits.max_memory = 0;
	cr_expect(extract(fx, &z, FEED_BUF) == PFX_OK, "no budget: \"%s\"",
	    fx->res.message);
	expect_tree(fx, "skippable, then a 64 MiB window, no budget");
	cr_expect(extract(fx, &z, FEED_PIPE) == PFX_OK, "no budget, a pipe: "
	    "\"%s\"", fx->res.message);
	expect_tree(fx, "skippable, then a 64 MiB window, a pipe");
	buf_free(&frame);
	buf_free(&z);
}

/*
 * One zstd frame of IN[0, LEN) with window log WLOG, long-distance
 * matching (so that a repeat far back is found) and a checksum, added to
 * OUT; with UNSIZED, streamed without its size, so that its header
 * declares the whole window however little data it holds, and with no
 * checksum, so that its last block is its last byte.  Return:
 * whether its window fits in the decoder's ring, so that it is decoded
 * there (decode_zstd.c), and not by libzstd's streaming decoder.
 */
static bool
zstd_frame_of(struct buf *out, const unsigned char *in, size_t len,
    int wlog, bool unsized)
{
	ZSTD_CCtx *c = ZSTD_createCCtx();
	ZSTD_frameHeader fh;
	size_t bound = ZSTD_compressBound(len) + 64, r;
	unsigned char *tmp = malloc(bound);
	ZSTD_outBuffer ob = { tmp, bound, 0 };
	ZSTD_inBuffer ib = { in, len, 0 };

	cr_assert(c != NULL && tmp != NULL);
	cr_assert(!ZSTD_isError(ZSTD_CCtx_setParameter(c,
	    ZSTD_c_windowLog, wlog)));
	cr_assert(!ZSTD_isError(ZSTD_CCtx_setParameter(c,
	    ZSTD_c_enableLongDistanceMatching, 1)));
	cr_assert(!ZSTD_isError(ZSTD_CCtx_setParameter(c,
	    ZSTD_c_checksumFlag, unsized ? 0 : 1)));
	if (unsized) {
		r = ZSTD_compressStream2(c, &ob, &ib, ZSTD_e_continue);
		cr_assert(!ZSTD_isError(r) && ib.pos == ib.size);
		r = ZSTD_compressStream2(c, &ob, &ib, ZSTD_e_end);
		cr_assert(r == 0, "one call ends the frame");
		r = ob.pos;
	} else {
		r = ZSTD_compress2(c, tmp, bound, in, len);
		cr_assert(!ZSTD_isError(r), "%s", ZSTD_getErrorName(r));
	}
	cr_assert(ZSTD_getFrameHeader(&fh, tmp, r) == 0);
	buf_add(out, tmp, r);
	free(tmp);
	ZSTD_freeCCtx(c);
	return fh.windowSize + 2ull * fh.blockSizeMax <= XTR_DEC_RING;
}

static bool
zstd_far_frame(struct buf *out, const unsigned char *in, size_t len,
    int wlog)
{
	return zstd_frame_of(out, in, len, wlog, false);
}

/*
 * zstd decoded in the ring keeps its window in place behind the output,
 * through the ring's wraps: a 12 MiB file of one 3 MiB run of noise four
 * times over, so that three quarters of it are matches 3 MiB back, in
 * frames with a 4 MiB window (the largest decoded in the ring) and with a
 * window too big for it (libzstd's streaming decoder), alone and one
 * after the other both ways, read as it is written.  (With a history cut
 * short, the data or its checksum would be wrong.)  gzip through the
 * same ring, for its wraps.
 */
Test(decode, zstd_far_matches_in_the_ring)
{
	struct fx *fx = &the_fx;
	struct file f = { "d/echo", NULL, 12 * MiB };
	struct buf tar = { 0 }, z = { 0 };
	unsigned char *run;
	size_t half, i;

	run = noise(3 * MiB, 88172645u);
	f.data = malloc(f.len);
	cr_assert(f.data != NULL);
	for (i = 0; i < 4; i++)
		memcpy(f.data + i * 3 * MiB, run, 3 * MiB);
	make_tar(&tar, &f, 1);
	half = tar.len / 2;

	cr_assert(zstd_far_frame(&z, tar.p, tar.len, 22), "window 4 MiB");
	cr_assert(z.len < 5 * MiB, "the repeats were not found (%zu bytes)",
	    z.len);
	expect_files_every_feed(fx, &z, &f, 1,
	    "zstd, 4 MiB window, in the ring");
	z.len = 0;
	cr_assert(!zstd_far_frame(&z, tar.p, tar.len, 24), "window 16 MiB");
	expect_files_every_feed(fx, &z, &f, 1,
	    "zstd, 16 MiB window, streamed");
	z.len = 0;
	cr_assert(!zstd_far_frame(&z, tar.p, half, 23));
	cr_assert(zstd_far_frame(&z, tar.p + half, tar.len - half, 22));
	expect_files_every_feed(fx, &z, &f, 1,
	    "zstd, streamed then in the ring");
	z.len = 0;
	cr_assert(zstd_far_frame(&z, tar.p, half, 22));
	cr_assert(!zstd_far_frame(&z, tar.p + half, tar.len - half, 23));
	cr_assert(z.len < 8 * MiB, "the repeats were not found (%zu bytes)",
	    z.len);
	expect_files_every_feed(fx, &z, &f, 1,
	    "zstd, in the ring then streamed");
	z.len = 0;
	gzip_members(&z, &tar, 3, false);
	expect_files_every_feed(fx, &z, &f, 1,
	    "gzip, 12 MiB");
	buf_free(&z);
	buf_free(&tar);
	free(run);
	free(f.data);
}

/*
 * A frame for libzstd's streaming decoder, after one decoded in the ring,
 * whose only block is written out across the end of a ring block: the
 * ring's frame ends 20 KiB before the first block's end, and a 70 KiB
 * frame with an 8 MiB window and no checksum follows.
 */
Test(decode, zstd_streamed_frame_flushes_at_the_end)
{
	struct fx *fx = &the_fx;
	struct file f = { "d/tail", NULL, 1 * MiB + 40 * KiB };
	struct buf tar = { 0 }, z = { 0 };
	size_t cut = XTR_DEC_BLOCK - 20 * KiB;

	f.data = text(f.len);
	make_tar(&tar, &f, 1);
	cr_assert(tar.len > XTR_DEC_BLOCK + 30 * KiB &&
	    tar.len - cut < 128 * KiB, "%zu bytes", tar.len);
	cr_assert(zstd_far_frame(&z, tar.p, cut, 22));
	cr_assert(!zstd_frame_of(&z, tar.p + cut, tar.len - cut, 23, true));
	expect_files_every_feed(fx, &z, &f, 1,
	    "zstd, streamed across blocks");
	buf_free(&z);
	buf_free(&tar);
	free(f.data);
}

Test(decode, xz_streams_and_blocks)
{
	struct fx *fx = &the_fx;
	struct buf x = { 0 };
	size_t half = fx->tar.len / 2;

	xz_stream(&x, fx->tar.p, fx->tar.len, 0, LZMA_CHECK_CRC64);
	expect_every_feed(fx, &x, "xz, one block");
	/* Blocks with their sizes: decoded by several threads. */
	x.len = 0;
	xz_stream(&x, fx->tar.p, fx->tar.len, 256 * KiB, LZMA_CHECK_CRC32);
	expect_every_feed(fx, &x, "xz, blocks of 256 KiB");
	/* Two streams, stream padding between and after. */
	x.len = 0;
	xz_stream(&x, fx->tar.p, half, 128 * KiB, LZMA_CHECK_SHA256);
	buf_add(&x, "\0\0\0\0", 4);
	xz_stream(&x, fx->tar.p + half, fx->tar.len - half, 0,
	    LZMA_CHECK_NONE);
	buf_add(&x, "\0\0\0\0\0\0\0\0", 8);
	expect_every_feed(fx, &x, "xz, two streams and padding");
	buf_free(&x);
}

static uint32_t
le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24;
}

Test(decode, xz_bad_check)
{
	struct fx *fx = &the_fx;
	struct buf x = { 0 };
	size_t index_size;

	/* The last block's CRC-64 ends where the index starts: the stream
	 * footer gives the index's size. */
	xz_stream(&x, fx->tar.p, fx->tar.len, 0, LZMA_CHECK_CRC64);
	index_size = ((size_t)le32(x.p + x.len - 8) + 1) * 4;
	x.p[x.len - 12 - index_size - 1] ^= 1;
	expect_failure_every_feed(fx, &x, "xz decompression failed",
	    "xz, bad CRC-64");
	/* The same in a threaded stream: a block in the middle. */
	x.len = 0;
	xz_stream(&x, fx->tar.p, fx->tar.len, 512 * KiB, LZMA_CHECK_CRC64);
	x.p[x.len / 2] ^= 0x10;
	cr_expect(extract(fx, &x, FEED_BUF) == PFX_FATAL &&
	    strstr(fx->res.message, "xz decompression failed") != NULL,
	    "xz -T, damaged: \"%s\"", fx->res.message);
	expect_no_temporaries(fx, "xz -T, damaged");
	cr_expect(!exists(fx, "last"), "xz -T, damaged: last exists");
	buf_free(&x);
}

/* A block header asking for a 4 GiB dictionary is refused, saying so. */
Test(decode, xz_memory_limit)
{
	struct fx *fx = &the_fx;
	struct buf x = { 0 };
	uLong crc;

	xz_stream(&x, fx->tar.p, 4096, 0, LZMA_CHECK_CRC64);
	/* Stream header (12), then the block header: size, flags, LZMA2's
	 * id and property size, its dictionary byte, padding, CRC-32. */
	cr_assert(x.p[12] == 2 && x.p[13] == 0 && x.p[14] == 0x21 &&
	    x.p[15] == 1, "the block header is not as expected");
	x.p[16] = 40;		/* 4 GiB - 1 */
	crc = crc32(0, x.p + 12, 8);
	x.p[20] = (unsigned char)crc;
	x.p[21] = (unsigned char)(crc >> 8);
	x.p[22] = (unsigned char)(crc >> 16);
	x.p[23] = (unsigned char)(crc >> 24);
	cr_expect(extract(fx, &x, FEED_BUF) == PFX_FATAL &&
	    fx->res.error == ENOMEM &&
	    strstr(fx->res.message, "limit max-memory=1073741824 (") !=
	    NULL && strstr(fx->res.message, "raise limits.max_memory, or set "
	    "it to 0)") != NULL, "a 4 GiB dictionary: \"%s\"",
	    fx->res.message);
	buf_free(&x);
}

/* --- xz within the memory budget ------------------------------------------ */

/*
 * Read the buffer A through the reader, with MEM for xz, checking every
 * file's data.  Return: the threads liblzma ran (this process's threads
 * at their most while reading, less the case's own and the decoder
 * thread).
 */
static int
xz_threads(struct fx *fx, const struct buf *a, const struct file *f,
    const struct xtr_dec_mem *mem, const char *what)
{
	struct pfx_input in = { .fd = -1, .buf = a->p, .len = a->len };
	unsigned char *data = malloc(f->len + 1);
	struct xtr_decoder *dec;
	struct archive_entry *e;
	struct archive *ar;
	int most = 0, seen = 0, error, r;
	char msg[256];
	size_t len;
	la_ssize_t n;

	cr_assert(data != NULL);
	ar = xtr_reader_open_head(&in, NULL, NULL, 0, mem, &dec, NULL, NULL,
	    NULL, msg, sizeof(msg), &error);
	cr_assert(ar != NULL && dec != NULL, "%s: %s", what, msg);
	while ((r = archive_read_next_header(ar, &e)) == ARCHIVE_OK) {
		len = 0;
		do {
			if (tfx_count_threads() > most)
				most = tfx_count_threads();
			n = archive_read_data(ar, data + len, f->len + 1 -
			    len);
			len += n > 0 ? (size_t)n : 0;
		} while (n > 0);
		cr_assert(n == 0, "%s: %s", what, archive_error_string(ar));
		if (strcmp(f->name, archive_entry_pathname(e)) == 0)
			cr_expect(len == f->len && memcmp(data, f->data,
			    len) == 0, "%s: %s: wrong data", what, f->name);
		seen += strcmp(f->name, archive_entry_pathname(e)) == 0;
	}
	cr_expect(seen == 1, "%s: %s not read", what, f->name);
	cr_expect(r == ARCHIVE_EOF, "%s: %s", what, archive_error_string(ar));
	archive_read_free(ar);
	free(data);
	return most - fx->nthreads - 1;
}

/*
 * 8 MiB of a 16-letter alphabet, as a tar, and as an xz stream of 1 MiB
 * blocks that carry their sizes (xz -T -1: 1 MiB dictionaries, about 3
 * MiB a thread), or of one block: slow enough to decode that liblzma
 * starts a thread for the next block before the last one is done.
 */
static void
letters_xz(struct buf *tar, struct buf *x, struct file *f, size_t block)
{
	unsigned char *p = noise(8 * MiB, 88172645u);
	size_t i;

	for (i = 0; i < 8 * MiB; i++)
		p[i] = (unsigned char)('a' + (p[i] & 15));
	*f = (struct file){ "d/letters", p, 8 * MiB };
	tar->len = 0;
	make_tar(tar, f, 1);
	x->len = 0;
	xz_stream(x, tar->p, tar->len, block, LZMA_CHECK_CRC64);
}

/*
 * A stream of blocks that carry their sizes decodes on every CPU at the
 * default budget's share; on fewer threads where the share holds fewer
 * (liblzma waits for one to finish before it starts the next block); on
 * the decoder thread alone where it holds none, as a stream of one block
 * always does.
 */
Test(decode, xz_threads_within_the_budget)
{
	struct pfx_limits lim = { .max_memory = PFX_DEFAULT_MAX_MEMORY };
	struct fx *fx = &the_fx;
	struct buf tar = { 0 }, x = { 0 };
	struct xtr_dec_mem m;
	struct file f;
	int n;

	letters_xz(&tar, &x, &f, 1 * MiB);
	xtr_dec_mem_of(&lim, 2, &m);
	n = xz_threads(fx, &x, &f, &m, "default budget, 2 CPUs");
	cr_expect(n == 2, "xz -T at the default budget, 2 CPUs: %d threads",
	    n);
	xtr_dec_mem_of(&lim, 4, &m);
	n = xz_threads(fx, &x, &f, &m, "default budget, 4 CPUs");
	cr_expect(n == 4, "xz -T at the default budget, 4 CPUs: %d threads",
	    n);
	/* Room for one block of 1 MiB, not for it and the last, small
	 * block (its dictionary and a little). */
	m.threading = 3 * MiB;
	n = xz_threads(fx, &x, &f, &m, "3 MiB for threads");
	cr_expect(n == 1, "xz -T with 3 MiB for threads: %d threads", n);
	/* An eighth of 8 MiB holds no dictionary of 1 MiB. */
	lim.max_memory = 8 * MiB;
	xtr_dec_mem_of(&lim, 2, &m);
	n = xz_threads(fx, &x, &f, &m, "8 MiB budget");
	cr_expect(n == 0, "xz -T in an 8 MiB budget: %d threads", n);
	/* The whole run in that budget: the tree, whole. */
	fx->opt.limits.max_memory = 8 * MiB;
	cr_expect(extract(fx, &x, FEED_BUF) == PFX_OK, "8 MiB budget: %s",
	    fx->res.message);
	expect_files(fx, &f, 1, "xz -T, 8 MiB budget");
	/* One block: nothing to decode in parallel. */
	free(f.data);
	letters_xz(&tar, &x, &f, 0);
	lim.max_memory = PFX_DEFAULT_MAX_MEMORY;
	xtr_dec_mem_of(&lim, 2, &m);
	n = xz_threads(fx, &x, &f, &m, "one block");
	cr_expect(n == 0, "xz, one block: %d threads", n);
	free(f.data);
	buf_free(&x);
	buf_free(&tar);
}

/*
 * Whether Linux gives huge pages to a mapping that asks for them
 * (transparent huge pages in "always" or "madvise" mode).
 */
static bool
thp_on_request(void)
{
	char line[128] = "";
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");

	if (f == NULL)
		return false;
	if (fgets(line, sizeof(line), f) == NULL)
		line[0] = '\0';
	fclose(f);
	return strstr(line, "[always]") != NULL ||
	    strstr(line, "[madvise]") != NULL;
}

/* Page faults of this process (all its threads, ended ones too). */
static long
minor_faults(void)
{
	struct rusage ru;

	cr_assert(getrusage(RUSAGE_SELF, &ru) == 0);
	return ru.ru_minflt;
}

/*
 * Read the buffer A through the reader with MEM (for xz), into DATA (CAP
 * bytes, already touched), and return the page faults it took.
 */
static long
read_faults(const struct buf *a, const struct xtr_dec_mem *mem,
    unsigned char *data, size_t cap)
{
	struct pfx_input in = { .fd = -1, .buf = a->p, .len = a->len };
	struct xtr_decoder *dec;
	struct archive_entry *e;
	struct archive *ar;
	long before = minor_faults();
	int error, r;
	char msg[256];
	la_ssize_t n;

	ar = xtr_reader_open_head(&in, NULL, NULL, 0, mem, &dec, NULL, NULL,
	    NULL, msg, sizeof(msg), &error);
	cr_assert(ar != NULL && dec != NULL, "%s", msg);
	while ((r = archive_read_next_header(ar, &e)) == ARCHIVE_OK)
		while ((n = archive_read_data(ar, data, cap)) > 0)
			continue;
	cr_assert(r == ARCHIVE_EOF, "%s", archive_error_string(ar));
	archive_read_free(ar);
	return minor_faults() - before;
}

/*
 * liblzma's threads map each block's buffers and unmap them after it:
 * on small pages that is a page fault every 4 KiB of every block (96,700
 * on linux.tar.xz against 4,900 on one thread; 20% of the CPU time),
 * with huge pages one every 2 MiB.  8 MiB of letters in 4 MiB blocks:
 * 4,700 faults on small pages, 1,500 with huge pages (most of them the
 * ring's and the dictionaries', whose 1 MiB is too small for one).
 */
Test(decode, xz_block_buffers_on_huge_pages)
{
	struct pfx_limits lim = { .max_memory = PFX_DEFAULT_MAX_MEMORY };
	struct buf tar = { 0 }, x = { 0 };
	unsigned char *data = malloc(XTR_DEC_BLOCK);
	struct xtr_dec_mem m;
	struct file f;
	long faults;

	if (!thp_on_request())
		cr_skip_test("no transparent huge pages on request here");
	cr_assert(data != NULL);
	memset(data, 1, XTR_DEC_BLOCK);
	letters_xz(&tar, &x, &f, 4 * MiB);
	xtr_dec_mem_of(&lim, 2, &m);
	(void)read_faults(&x, &m, data, XTR_DEC_BLOCK);	/* warm */
	faults = read_faults(&x, &m, data, XTR_DEC_BLOCK);
	cr_expect(faults < 3000, "xz -T, 4 MiB blocks: %ld page faults",
	    faults);
	free(f.data);
	free(data);
	buf_free(&x);
	buf_free(&tar);
}

/*
 * A counter of this thread's page faults as the processor takes them
 * (perf's software event: MADV_POPULATE_WRITE's are not counted there,
 * where getrusage(2) counts both), or -1 where perf events are refused.
 */
static int
fault_counter(void)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.size = sizeof(a);
	a.config = PERF_COUNT_SW_PAGE_FAULTS;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1,
	    PERF_FLAG_FD_CLOEXEC);
}

/* Does the kernel take MADV_POPULATE_WRITE (23, Linux 5.14)? */
static bool
populate_write(void)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE |
	    MAP_ANONYMOUS, -1, 0);
	bool ok;

	cr_assert(p != MAP_FAILED);
	ok = madvise(p, 4096, 23) == 0;
	(void)munmap(p, 4096);
	return ok;
}

/*
 * The decoder's ring gets its pages a block at a time (prefault() in
 * decode.c), not a fault every 4 KiB as the codec first writes it: the
 * test tar, 2.7 MiB, is 690 pages of the ring.  Inline, so that the
 * faults are this thread's.  Measured: 710 faults without, 15 with.
 */
Test(decode, ring_pages_given_a_block_at_a_time)
{
	struct fx *fx = &the_fx;
	struct pfx_input in = { .fd = -1 };
	unsigned char *data = malloc(XTR_DEC_BLOCK);
	struct xtr_decoder *dec;
	struct archive_entry *e;
	struct buf gz = { 0 };
	struct archive *ar;
	uint64_t faults = 0;
	char msg[256];
	int error, fd, r;

	if (!populate_write())
		cr_skip_test("no MADV_POPULATE_WRITE here (Linux < 5.14)");
	fd = fault_counter();
	if (fd < 0)
		cr_skip_test("no perf event to count page faults: %s",
		    strerror(errno));
	cr_assert(data != NULL);
	memset(data, 1, XTR_DEC_BLOCK);
	gzip_members(&gz, &fx->tar, 1, false);
	in.buf = gz.p;
	in.len = gz.len;
	cr_assert(ioctl(fd, PERF_EVENT_IOC_RESET, 0) == 0);
	ar = xtr_reader_open(&in, NULL, NULL, XTR_DEC_INLINE, &dec, NULL,
	    msg, sizeof(msg), &error);
	cr_assert(ar != NULL && dec != NULL, "%s", msg);
	while ((r = archive_read_next_header(ar, &e)) == ARCHIVE_OK)
		while (archive_read_data(ar, data, XTR_DEC_BLOCK) > 0)
			continue;
	cr_assert(r == ARCHIVE_EOF, "%s", archive_error_string(ar));
	cr_assert(read(fd, &faults, sizeof(faults)) == sizeof(faults));
	archive_read_free(ar);
	/* A sanitizer adds the faults of the ring's shadow memory and of
	 * its allocator's own (350 with, 1,040 without, under ASan). */
	cr_expect(faults < (plat_sanitized() ? 600u : 300u), "gzip of %zu "
	    "bytes: %llu page faults", fx->tar.len,
	    (unsigned long long)faults);
	(void)close(fd);
	free(data);
	buf_free(&gz);
}

/*
 * A budget smaller than one thread's need (xz -1's 1 MiB dictionary) is
 * refused before the block is decoded, with the budget named; with a
 * sandbox too, where the decoder process says it.
 */
Test(decode, xz_budget_below_one_thread)
{
	struct fx *fx = &the_fx;
	struct buf x = { 0 };
	unsigned int flags[] = { 0, PFX_OPT_SANDBOX_CHILD };
	size_t i;

	xz_stream(&x, fx->tar.p, fx->tar.len, 256 * KiB, LZMA_CHECK_CRC64);
	fx->opt.limits.max_memory = 512 * KiB;
	for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		fx->opt.flags = flags[i];
		cr_expect(extract(fx, &x, FEED_BUF) == PFX_FATAL &&
		    fx->res.error == ENOMEM && strstr(fx->res.message,
		    "needs more memory to decode on one thread than the "
		    "memory budget: limit max-memory=524288 (") != NULL,
		    "flags %#x: \"%s\"", flags[i], fx->res.message);
		cr_expect(!exists(fx, "d/small"), "flags %#x: d/small was "
		    "written", flags[i]);
	}
	/* Just enough for one: decoded whole, in the decoder process. */
	fx->opt.limits.max_memory = 4 * MiB;
	for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		fx->opt.flags = flags[i];
		cr_expect(extract(fx, &x, FEED_BUF) == PFX_OK,
		    "flags %#x, 4 MiB: \"%s\"", flags[i], fx->res.message);
		expect_tree(fx, "xz -T, 4 MiB budget");
	}
	buf_free(&x);
}

/*
 * The decoders' part of the budget (budget.c): an eighth for xz's threads
 * (the default's eighth without a budget), the whole for one thread, and
 * a decoder process limit that holds the budget and every thread's stack.
 */
Test(decode, xz_share_of_the_budget)
{
	struct pfx_limits lim = { .max_memory = PFX_DEFAULT_MAX_MEMORY };
	struct xtr_dec_mem m;

	xtr_dec_mem_of(&lim, 2, &m);
	cr_expect(m.threading == 128 * MiB && m.budget == lim.max_memory &&
	    m.threads == 2, "default: %llu, %u threads",
	    (unsigned long long)m.threading, m.threads);
	cr_expect(xtr_decoder_rlimit(&lim, &m) >= lim.max_memory + 3 * MiB *
	    2, "the decoder process's limit");
	lim.max_memory = 4ull << 30;
	xtr_dec_mem_of(&lim, 1000, &m);
	cr_expect(m.threading == 512 * MiB && m.threads == XTR_XZ_MAX_THREADS,
	    "4 GiB on 1000 CPUs: %llu, %u threads",
	    (unsigned long long)m.threading, m.threads);
	lim.max_memory = 0;
	xtr_dec_mem_of(&lim, 0, &m);
	cr_expect(m.threading == 128 * MiB && m.budget == 0 && m.threads == 1,
	    "no budget: %llu, %u threads", (unsigned long long)m.threading,
	    m.threads);
	cr_expect(xtr_decoder_rlimit(&lim, &m) == 0, "no budget, no limit");
}

/* A tar of one file of LEN zeros, named "zeros". */
static void
zeros_tar(struct buf *out, size_t len)
{
	struct file f = { "zeros", calloc(1, len), len };

	cr_assert(f.data != NULL);
	make_tar(out, &f, 1);
	free(f.data);
}

/*
 * A bomb through our decoder stops on the ratio, counted on the raw
 * bytes read: those of the outer layer when compression is nested
 * (gzip in gzip, the inner one libarchive's).
 */
Test(decode, ratio_counts_raw_bytes)
{
	struct fx *fx = &the_fx;
	struct buf tar = { 0 }, in[4] = { { 0 } }, nested = { 0 };
	static const char *const what[] = { "gzip", "zstd", "xz",
		"gzip in gzip" };
	size_t k;

	zeros_tar(&tar, 24 * MiB);
	gzip_members(&in[0], &tar, 1, false);
	zstd_frames(&in[1], &tar, 1, true, false);
	xz_stream(&in[2], tar.p, tar.len, 0, LZMA_CHECK_CRC64);
	gzip_members(&nested, &tar, 1, false);
	gzip_members(&in[3], &nested, 1, false);
	fx->opt.limits.ratio_after = 1 * MiB;
	fx->opt.limits.max_ratio = 50;
	for (k = 0; k < 4; k++) {
		cr_expect(extract(fx, &in[k], FEED_PIPE) == PFX_FATAL &&
		    strstr(fx->res.message, "max-ratio=50") != NULL,
		    "%s bomb: \"%s\"", what[k], fx->res.message);
		cr_expect(fx->res.stats.bytes <= 2 * MiB, "%s bomb: %llu "
		    "bytes written", what[k],
		    (unsigned long long)fx->res.stats.bytes);
		cr_expect(!exists(fx, "zeros"), "%s bomb: zeros exists",
		    what[k]);
		expect_no_temporaries(fx, what[k]);
	}
	/* Without the limit, the same archives extract. */
	fx->opt.limits.max_ratio = 0;
	for (k = 0; k < 4; k++)
		cr_expect(extract(fx, &in[k], FEED_BUF) == PFX_OK, "%s, no "
		    "ratio limit: \"%s\"", what[k], fx->res.message);
	for (k = 0; k < 4; k++)
		buf_free(&in[k]);
	buf_free(&nested);
	buf_free(&tar);
}

struct canceller {
	volatile sig_atomic_t *flag;
	unsigned int ms;
};

static void *
cancel_later(void *arg)
{
	struct canceller *c = arg;
	struct timespec ts = { 0, (long)c->ms * 1000000L };

	(void)nanosleep(&ts, NULL);
	*c->flag = 1;
	return NULL;
}

static double
now(void)
{
	struct timespec ts;

	cr_assert(clock_gettime(CLOCK_MONOTONIC, &ts) == 0);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * A call stopped on a stalled pipe (WHAT) that began at T0: within
 * seconds, no thread of its left, no temporary name.
 */
static void
expect_prompt_clean_stop(struct fx *fx, const char *what, double t0)
{
	cr_expect(now() - t0 < 5.0, "%s: the stop took %.1f s", what,
	    now() - t0);
	cr_expect(tfx_threads_settle(fx->nthreads) == fx->nthreads, "%s: %d "
	    "threads left", what, tfx_count_threads() - fx->nthreads);
	expect_no_temporaries(fx, what);
}

/*
 * A pipe that stalls mid-stream (its writer neither writes nor closes):
 * setting the cancel flag, with no signal at all, stops the run within
 * a few ticks, and the decoder thread blocked on the pipe is joined.
 */
static void
cancel_stalled_pipes(struct fx *fx)
{
	static volatile sig_atomic_t flag;
	static const char *const what[] = { "gzip", "zstd", "xz" };
	struct pfx_input in = { .fd = -1, .buf = NULL, .len = 0 };
	struct buf c[3] = { { 0 } };
	struct canceller cc = { &flag, 300 };
	enum pfx_status st;
	pthread_t t;
	double t0;
	size_t k;
	int p[2];

	gzip_members(&c[0], &fx->tar, 1, false);
	zstd_frames(&c[1], &fx->tar, 1, true, false);
	xz_stream(&c[2], fx->tar.p, fx->tar.len, 0, LZMA_CHECK_CRC64);
	fx->opt.cancel = &flag;
	for (k = 0; k < 3; k++) {
		clear_dest(fx);
		flag = 0;
		cr_assert(pipe2(p, O_CLOEXEC) == 0);
		/* Half the stream: less than a pipe holds, so the write
		 * returns, and the decoder then waits for more. */
		cr_assert(fcntl(p[1], F_SETPIPE_SZ, 1 << 20) > 0);
		cr_assert(write(p[1], c[k].p, 600 * KiB) == 600 * KiB);
		cr_assert(pthread_create(&t, NULL, cancel_later, &cc) == 0);
		in.fd = p[0];
		t0 = now();
		st = pfx_extract(&in, fx->destfd, ".", &fx->opt, &fx->res);
		cr_assert(pthread_join(t, NULL) == 0);
		cr_expect(st == PFX_FATAL && fx->res.error == ECANCELED,
		    "%s: status %d, error %d: %s", what[k], st,
		    fx->res.error, fx->res.message);
		expect_prompt_clean_stop(fx, what[k], t0);
		(void)close(p[0]);
		(void)close(p[1]);
	}
	for (k = 0; k < 3; k++)
		buf_free(&c[k]);
}

Test(decode, cancel_stops_a_stalled_pipe)
{
	cancel_stalled_pipes(&the_fx);
}

/*
 * pfx_options.timeout bounds the whole call, a read of a pipe whose
 * writer stalled too -- before its first byte, in the middle of a plain
 * tar, and under each of our decoders -- with no signal and no cancel
 * flag: the call returns ETIMEDOUT about when the time is up.  It waited
 * for the writer for ever.
 */
static void
timeout_stalled_pipes(struct fx *fx)
{
	static const char *const what[] = { "nothing", "tar", "gzip", "zstd",
	    "xz" };
	struct pfx_input in = { .fd = -1, .buf = NULL, .len = 0 };
	struct buf c[5] = { { 0 } };
	enum pfx_status st;
	double t0;
	size_t k, half;
	int p[2];

	buf_add(&c[1], fx->tar.p, fx->tar.len);
	gzip_members(&c[2], &fx->tar, 1, false);
	zstd_frames(&c[3], &fx->tar, 1, true, false);
	xz_stream(&c[4], fx->tar.p, fx->tar.len, 0, LZMA_CHECK_CRC64);
	fx->opt.cancel = NULL;
	fx->opt.timeout = 1;
	for (k = 0; k < 5; k++) {
		clear_dest(fx);
		cr_assert(pipe2(p, O_CLOEXEC) == 0);
		cr_assert(fcntl(p[1], F_SETPIPE_SZ, 1 << 20) > 0);
		half = k == 0 ? 0 : c[k].len / 2 < 600 * KiB ? c[k].len / 2 :
		    600 * KiB;
		cr_assert(write(p[1], c[k].p, half) == (ssize_t)half);
		in.fd = p[0];
		t0 = now();
		st = pfx_extract(&in, fx->destfd, ".", &fx->opt, &fx->res);
		cr_expect(st == PFX_FATAL && fx->res.error == ETIMEDOUT,
		    "%s: status %d, error %d: %s", what[k], st,
		    fx->res.error, fx->res.message);
		cr_expect(strstr(fx->res.message, "pfx_options.timeout") !=
		    NULL, "%s: %s", what[k], fx->res.message);
		expect_prompt_clean_stop(fx, what[k], t0);
		(void)close(p[0]);
		(void)close(p[1]);
	}
	fx->opt.timeout = 0;
	for (k = 1; k < 5; k++)
		buf_free(&c[k]);
}

Test(decode, timeout_stops_a_stalled_pipe)
{
	timeout_stalled_pipes(&the_fx);
}

/* --- one CPU: no decoder thread ------------------------------------------- */

/* Inline, a stalled pipe is waited on by the reading thread itself: the
 * flag still stops it within a few ticks. */
Test(decode, cancel_stops_a_stalled_pipe_inline)
{
	cpu_set_t old;

	(void)tfx_pin_one_cpu(&old);
	cancel_stalled_pipes(&the_fx);
}

/* Inline too: the wait for input is bounded by the deadline. */
Test(decode, timeout_stops_a_stalled_pipe_inline)
{
	cpu_set_t old;

	(void)tfx_pin_one_cpu(&old);
	timeout_stalled_pipes(&the_fx);
}

/* Through the reader with XTR_DEC_INLINE: the same bytes, the same raw
 * count and the same verdict on damage as with the decoder thread. */
Test(decode, inline_reads_the_same)
{
	struct fx *fx = &the_fx;
	struct buf c[4] = { { 0 } };
	static const char *const what[] = { "gzip", "zstd", "xz", "xz -T" };
	char msg[256];
	uint64_t raw;
	size_t k;

	gzip_members(&c[0], &fx->tar, 3, true);
	zstd_frames(&c[1], &fx->tar, 2, true, false);
	xz_stream(&c[2], fx->tar.p, fx->tar.len, 0, LZMA_CHECK_CRC64);
	xz_stream(&c[3], fx->tar.p, fx->tar.len, 256 * KiB,
	    LZMA_CHECK_CRC32);
	for (k = 0; k < 4; k++) {
		cr_expect(read_through(fx, &c[k], XTR_DEC_INLINE, msg,
		    sizeof(msg), &raw) == ARCHIVE_OK, "%s inline: %s",
		    what[k], msg);
		cr_expect(raw == c[k].len, "%s inline: %llu raw bytes, the "
		    "stream has %zu", what[k], (unsigned long long)raw,
		    c[k].len);
	}
	cr_expect(read_through(fx, &c[0], XTR_DEC_INLINE | XTR_DEC_ZLIB, msg,
	    sizeof(msg), &raw) == ARCHIVE_OK, "gzip, zlib, inline: %s", msg);
	/* Damage: the same message as on the thread. */
	c[0].p[c[0].len - 8] ^= 1;
	cr_expect(read_through(fx, &c[0], XTR_DEC_INLINE, msg, sizeof(msg),
	    &raw) != ARCHIVE_OK && strstr(msg, "CRC-32 mismatch") != NULL,
	    "gzip inline, bad CRC-32 read as \"%s\"", msg);
	c[1].p[c[1].len - 2] ^= 1;
	cr_expect(read_through(fx, &c[1], XTR_DEC_INLINE, msg, sizeof(msg),
	    &raw) != ARCHIVE_OK, "zstd inline, bad checksum read as OK");
	c[3].len /= 2;
	cr_expect(read_through(fx, &c[3], XTR_DEC_INLINE, msg, sizeof(msg),
	    &raw) != ARCHIVE_OK && strstr(msg, "truncated xz input") != NULL,
	    "xz -T inline, cut in half, read as \"%s\"", msg);
	for (k = 0; k < 4; k++)
		buf_free(&c[k]);
}

/* The most threads the process had at a report. */
static int threads_seen;

static void
threads_report(void *arg, const struct pfx_entry *e)
{
	int n = tfx_count_threads();

	(void)arg;
	(void)e;
	if (n > threads_seen)
		threads_seen = n;
}

/*
 * pfx_extract() on one CPU: no decoder thread (and no worker, async.c),
 * for every codec and every feed, the tree the same; damage reported as
 * on the thread.  With two CPUs the same run shows a thread more, so the
 * count means something.
 */
Test(decode, one_cpu_decodes_inline)
{
	struct fx *fx = &the_fx;
	struct buf c[4] = { { 0 } };
	static const char *const what[] = { "gzip", "zstd", "xz", "xz -T" };
	char label[128];
	size_t k;
	cpu_set_t old;
	int how, cpus, want;

	gzip_members(&c[0], &fx->tar, 2, false);
	zstd_frames(&c[1], &fx->tar, 2, true, false);
	xz_stream(&c[2], fx->tar.p, fx->tar.len, 0, LZMA_CHECK_CRC64);
	xz_stream(&c[3], fx->tar.p, fx->tar.len, 256 * KiB,
	    LZMA_CHECK_CRC64);
	fx->opt.hooks.report = threads_report;
	threads_seen = 0;
	cr_expect(extract(fx, &c[3], FEED_FD) == PFX_OK, "%s",
	    fx->res.message);
	cpus = tfx_pin_one_cpu(&old);
	if (cpus > 1)
		cr_expect(threads_seen > fx->nthreads, "%d CPUs: %d threads, "
		    "as many as before the run", cpus, threads_seen);
	for (k = 0; k < 4; k++) {
		for (how = FEED_BUF; how <= FEED_PIPE; how++) {
			(void)snprintf(label, sizeof(label), "%s on one CPU "
			    "from a %s", what[k], feed_names[how]);
			threads_seen = 0;
			cr_expect(extract(fx, &c[k], (enum feed)how) == PFX_OK,
			    "%s: %s", label, fx->res.message);
			expect_tree(fx, label);
			/* A pipe's writer is the test's own thread. */
			want = fx->nthreads + (how == FEED_PIPE);
			cr_expect(threads_seen == want, "%s: %d threads at a "
			    "report, want %d", label, threads_seen, want);
		}
	}
	c[0].p[c[0].len - 8] ^= 1;
	expect_failure_every_feed(fx, &c[0], "CRC-32 mismatch",
	    "gzip on one CPU, bad CRC-32");
	for (k = 0; k < 4; k++)
		buf_free(&c[k]);
}

/* Read /proc/PID/WHAT into TEXT (CAP bytes, NUL-terminated).  Return:
 * the bytes read, or -1. */
static ssize_t
read_proc(const char *pid, const char *what, char *text, size_t cap)
{
	char path[300];
	ssize_t len;
	int fd;

	(void)snprintf(path, sizeof(path), "/proc/%s/%s", pid, what);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	len = read(fd, text, cap - 1);
	(void)close(fd);
	text[len > 0 ? len : 0] = '\0';
	return len;
}

/* The threads of this process's children, the most of any, or 0. */
static int
child_threads(void)
{
	char text[4096], *p;
	struct dirent *de;
	int most = 0, n;
	DIR *d;

	d = opendir("/proc");
	cr_assert(d != NULL);
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9' ||
		    read_proc(de->d_name, "stat", text, sizeof(text)) <= 0)
			continue;
		/* "pid (comm) state ppid ...": the name may hold ')'. */
		p = strrchr(text, ')');
		if (p == NULL || strtol(p + 4, NULL, 10) != (long)getpid() ||
		    read_proc(de->d_name, "status", text, sizeof(text)) <= 0)
			continue;
		p = strstr(text, "\nThreads:");
		n = p != NULL ? (int)strtol(p + 9, NULL, 10) : 0;
		if (n > most)
			most = n;
	}
	(void)closedir(d);
	return most;
}

/* The first report's count of the decoder process's threads. */
static int child_seen;

static void
child_report(void *arg, const struct pfx_entry *e)
{
	(void)arg;
	(void)e;
	if (child_seen == 0)
		child_seen = child_threads();
}

/*
 * The decoder process (PFX_OPT_SANDBOX_CHILD) decodes inline too: the
 * parent counted the CPUs before any confinement and told it.  Counted
 * at the first report, while the child is still held back by the 24 MiB
 * it has not sent yet: one thread, two with two CPUs.
 */
Test(decode, one_cpu_in_the_decoder_process)
{
	struct fx *fx = &the_fx;
	struct file files[12];
	struct buf tar = { 0 }, gz = { 0 };
	char name[12][16];
	cpu_set_t old;
	int cpus;
	size_t k;

	for (k = 0; k < 12; k++) {
		(void)snprintf(name[k], sizeof(name[k]), "n%zu", k);
		files[k] = (struct file){ name[k], noise(2 * MiB,
		    (uint32_t)k + 7u), 2 * MiB };
	}
	make_tar(&tar, files, 12);
	gzip_members(&gz, &tar, 1, false);
	/* --strict: no worker, so each file is reported once written,
	 * not when a queue is emptied (at the end, for these 12). */
	fx->opt.flags |= PFX_OPT_SANDBOX_CHILD | PFX_OPT_STRICT;
	fx->opt.hooks.report = child_report;
	child_seen = 0;
	cr_expect(extract(fx, &gz, FEED_FD) == PFX_OK, "%s", fx->res.message);
	cpus = tfx_pin_one_cpu(&old);
	if (cpus > 1)
		cr_expect(child_seen == 2, "%d CPUs: the decoder process had "
		    "%d threads, want 2", cpus, child_seen);
	child_seen = 0;
	cr_expect(extract(fx, &gz, FEED_FD) == PFX_OK, "%s", fx->res.message);
	cr_expect(child_seen == 1, "one CPU: the decoder process had %d "
	    "threads, want 1", child_seen);
	expect_files(fx, files, 12, "gzip on one CPU, decoder process");
	for (k = 0; k < 12; k++)
		free(files[k].data);
	buf_free(&tar);
	buf_free(&gz);
}

/*
 * The decoder's threads (liblzma's too) start in a process that is
 * already confined: Landlock and the seccomp filter, where clone3 says
 * ENOSYS and glibc falls back to clone.
 */
Test(decode, threads_in_a_confined_child)
{
	struct fx *fx = &the_fx;
	struct buf x = { 0 }, gz = { 0 };

	xz_stream(&x, fx->tar.p, fx->tar.len, 256 * KiB, LZMA_CHECK_CRC64);
	gzip_members(&gz, &fx->tar, 2, false);
	fx->opt.flags |= PFX_OPT_SANDBOX_CHILD;
	cr_expect(extract(fx, &x, FEED_FD) == PFX_OK, "xz -T: %s",
	    fx->res.message);
	expect_tree(fx, "xz -T in a confined child");
	/* Not from a pipe: the child would hold its write end open. */
	cr_expect(extract(fx, &gz, FEED_BUF) == PFX_OK, "gzip: %s",
	    fx->res.message);
	expect_tree(fx, "gzip in a confined child");
	buf_free(&x);
	buf_free(&gz);
}
