/*
 * reader.c -- libarchive reads; pfextract writes.
 *
 * SECURITY: only libarchive's built-in decoders are registered.  A filter
 * that libarchive would run as an external program (when it was built
 * without the library) is never registered, and neither is any format
 * that reads other files (mtree reads the local files its entries name).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

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

/* Enable the comma-separated format NAMES.  0, or -1 with MSG set. */
static int
enable_formats(struct archive *a, const char *names, char *msg, size_t cap)
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
		if (formats[i].enable(a) != ARCHIVE_OK) {
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

/* see extract.h */
struct archive *
xtr_reader_open(const struct pfx_input *in, const char *names, char *msg,
    size_t cap)
{
	struct archive *a;
	int r;

	a = archive_read_new();
	if (a == NULL) {
		snprintf(msg, cap, "%s", strerror(ENOMEM));
		return NULL;
	}
	if (enable_filters(a, msg, cap) < 0 ||
	    enable_formats(a, names != NULL ? names : default_formats, msg,
	    cap) < 0)
		goto fail;
	/* A buffer wins over an fd, so a zeroed struct never reads fd 0. */
	if (in->path != NULL)
		r = archive_read_open_filename(a, in->path, XTR_BLOCK);
	else if (in->buf != NULL)
		r = archive_read_open_memory(a, in->buf, in->len);
	else if (in->fd >= 0)
		r = archive_read_open_fd(a, in->fd, XTR_BLOCK);
	else
		r = ARCHIVE_FATAL;
	if (r != ARCHIVE_OK) {
		snprintf(msg, cap, "cannot read archive: %s",
		    archive_error_string(a) != NULL ?
		    archive_error_string(a) : "no input");
		goto fail;
	}
	return a;
fail:
	archive_read_free(a);
	return NULL;
}
