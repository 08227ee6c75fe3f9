/*
 * reader.c -- libarchive reads; pfextract writes.
 *
 * SECURITY: only libarchive's built-in decoders are registered.  A filter
 * that libarchive would run as an external program (when it was built
 * without the library) is never registered, and neither is any format
 * that reads other files (mtree reads the local files its entries name).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include <archive.h>

#include "extract.h"

/* The formats read when the caller names none. */
static const char default_formats[] = "tar,zip,cpio,7zip,ar";

struct format {
	const char *name;
	int (*enable)(struct archive *);
};

static const struct format formats[] = {
	{ "tar", archive_read_support_format_tar },
	{ "gnutar", archive_read_support_format_gnutar },
	{ "zip", archive_read_support_format_zip },
	{ "cpio", archive_read_support_format_cpio },
	{ "7zip", archive_read_support_format_7zip },
	{ "ar", archive_read_support_format_ar },
	{ "iso9660", archive_read_support_format_iso9660 },
	{ "rar", archive_read_support_format_rar },
	{ "rar5", archive_read_support_format_rar5 },
	{ "xar", archive_read_support_format_xar },
	{ "lha", archive_read_support_format_lha },
	{ "cab", archive_read_support_format_cab },
	{ "warc", archive_read_support_format_warc },
	{ "raw", archive_read_support_format_raw },
	{ "empty", archive_read_support_format_empty },
};

/*
 * Each filter with the test that libarchive was built with its library:
 * without one, libarchive would fall back to running a program.
 */
struct filter {
	int (*enable)(struct archive *);
	const char *(*library)(void);
};

static const char *
builtin(void)
{
	return "built in";
}

static const struct filter filters[] = {
	{ archive_read_support_filter_gzip, archive_zlib_version },
	{ archive_read_support_filter_bzip2, archive_bzlib_version },
	{ archive_read_support_filter_xz, archive_liblzma_version },
	{ archive_read_support_filter_lzma, archive_liblzma_version },
	{ archive_read_support_filter_lzip, archive_liblzma_version },
	{ archive_read_support_filter_zstd, archive_libzstd_version },
	{ archive_read_support_filter_lz4, archive_liblz4_version },
	{ archive_read_support_filter_compress, builtin },
};

static int
enable_filters(struct archive *a, char *msg, size_t cap)
{
	size_t i;

	for (i = 0; i < sizeof(filters) / sizeof(filters[0]); i++) {
		if (filters[i].library() == NULL)
			continue;	/* never an external program */
		if (filters[i].enable(a) != ARCHIVE_OK) {
			snprintf(msg, cap, "cannot enable a decompressor: %s",
			    archive_error_string(a));
			return -1;
		}
	}
	return 0;
}

/*
 * A zip is read from its central directory when the input can seek, and
 * from its local headers only when it cannot (a pipe).  SECURITY: a zip
 * file whose central directory is missing or cut is then refused whole,
 * as unzip does, instead of being read a second way -- by local headers,
 * which may name other entries than the directory does.
 */
static int
enable_zip(struct archive *a, bool seekable)
{
	return seekable ? archive_read_support_format_zip_seekable(a) :
	    archive_read_support_format_zip_streamable(a);
}

/*
 * Enable the comma-separated format NAMES; SEEKABLE tells how a zip is
 * read.  0, or -1 with MSG set.
 */
static int
enable_formats(struct archive *a, const char *names, bool seekable,
    char *msg, size_t cap)
{
	const char *p = names, *end;
	size_t i, len;

	while (*p != '\0') {
		end = strchr(p, ',');
		len = end != NULL ? (size_t)(end - p) : strlen(p);
		for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
			if (strlen(formats[i].name) == len &&
			    strncmp(formats[i].name, p, len) == 0)
				break;
		}
		if (len == 5 && strncmp(p, "mtree", 5) == 0) {
			snprintf(msg, cap, "format mtree is never read: it "
			    "opens the local files its entries name");
			return -1;
		}
		if (i == sizeof(formats) / sizeof(formats[0])) {
			snprintf(msg, cap, "unknown format '%.*s'", (int)len,
			    p);
			return -1;
		}
		if ((formats[i].enable == archive_read_support_format_zip ?
		    enable_zip(a, seekable) : formats[i].enable(a)) !=
		    ARCHIVE_OK) {
			snprintf(msg, cap, "cannot enable format %s: %s",
			    formats[i].name, archive_error_string(a));
			return -1;
		}
		p += len;
		if (*p == ',')
			p++;
	}
	return 0;
}

/*
 * Does the input start as a zip does (a local file header)?  Then a
 * failure to open it is a zip without a readable central directory.
 */
static bool
looks_like_zip(const struct pfx_input *in)
{
	static const unsigned char magic[4] = { 'P', 'K', 3, 4 };
	unsigned char head[4];

	if (in->buf != NULL)
		return in->len >= 4 && memcmp(in->buf, magic, 4) == 0;
	if (in->path != NULL || in->fd < 0)
		return false;
	return pread(in->fd, head, 4, 0) == 4 && memcmp(head, magic, 4) == 0;
}

/*
 * A pipe or FIFO is read here rather than by libarchive's fd reader,
 * which retries a read that a signal interrupted: a stop asked for while
 * the writer is slow would wait for its next byte, or forever.
 */
struct pipe_in {
	int fd;
	const volatile sig_atomic_t *cancel;
	char buf[XTR_BLOCK];
};

/*
 * libarchive's read callback: one read(2) into the block buffer.
 * Return: the bytes read (0 at the end), or -1 with the archive's error
 * set -- ECANCELED "interrupted" when a signal cut the read short and
 * the caller has cancelled; any other interruption is retried.
 */
static la_ssize_t
pipe_read(struct archive *a, void *arg, const void **buf)
{
	struct pipe_in *p = arg;
	ssize_t n;

	*buf = p->buf;
	for (;;) {
		n = read(p->fd, p->buf, sizeof(p->buf));
		if (n >= 0)
			return n;
		if (errno != EINTR) {
			archive_set_error(a, errno, "Error reading fd %d",
			    p->fd);
			return -1;
		}
		if (p->cancel != NULL && *p->cancel != 0) {
			archive_set_error(a, ECANCELED, "interrupted");
			return -1;
		}
	}
}

/* libarchive's close callback: free the reader.  Return: ARCHIVE_OK. */
static int
pipe_close(struct archive *a, void *arg)
{
	(void)a;
	free(arg);
	return ARCHIVE_OK;
}

/* Open A on the pipe FD.  Return: libarchive's status. */
static int
open_pipe(struct archive *a, int fd, const volatile sig_atomic_t *cancel)
{
	struct pipe_in *p;

	p = malloc(sizeof(*p));
	if (p == NULL) {
		archive_set_error(a, ENOMEM, "%s", strerror(ENOMEM));
		return ARCHIVE_FATAL;
	}
	p->fd = fd;
	p->cancel = cancel;
	/* libarchive calls pipe_close() whether or not the open works. */
	return archive_read_open(a, p, NULL, pipe_read, pipe_close);
}

/* see extract.h */
struct archive *
xtr_reader_open(const struct pfx_input *in, const char *names,
    const volatile sig_atomic_t *cancel, char *msg, size_t cap)
{
	struct archive *a;
	bool seekable;
	int r;

	/* A path is read as a file (libarchive seeks a regular file); an
	 * fd only if it can seek. */
	seekable = in->path != NULL || in->buf != NULL ||
	    (in->fd >= 0 && lseek(in->fd, 0, SEEK_CUR) != -1);
	a = archive_read_new();
	if (a == NULL) {
		snprintf(msg, cap, "%s", strerror(ENOMEM));
		return NULL;
	}
	if (enable_filters(a, msg, cap) < 0 ||
	    enable_formats(a, names != NULL ? names : default_formats,
	    seekable, msg, cap) < 0)
		goto fail;
	/* A buffer wins over an fd, so a zeroed struct never reads fd 0. */
	if (in->path != NULL)
		r = archive_read_open_filename(a, in->path, XTR_BLOCK);
	else if (in->buf != NULL)
		r = archive_read_open_memory(a, in->buf, in->len);
	else if (in->fd >= 0 && seekable)
		r = archive_read_open_fd(a, in->fd, XTR_BLOCK);
	else if (in->fd >= 0)
		r = open_pipe(a, in->fd, cancel);
	else
		r = ARCHIVE_FATAL;
	if (r != ARCHIVE_OK && seekable && looks_like_zip(in)) {
		snprintf(msg, cap, "cannot read archive: a zip archive whose "
		    "central directory is missing or damaged (truncated?)");
		goto fail;
	}
	if (r != ARCHIVE_OK) {
		snprintf(msg, cap, "cannot read archive: %s",
		    archive_error_string(a) != NULL ?
		    archive_error_string(a) : r == ARCHIVE_FATAL &&
		    in->path == NULL && in->buf == NULL && in->fd < 0 ?
		    "no input" : "not an archive of an enabled format, or "
		    "truncated or corrupt");
		goto fail;
	}
	return a;
fail:
	archive_read_free(a);
	return NULL;
}
