/*
 * push_tar.c -- a small tar reader that drives the push API (see
 * push_tar.h).  Written for the tests, from the POSIX ustar and pax
 * formats and GNU tar's long names: a second reader, so that the corpus
 * shows the push API judging what a reader other than libarchive gives.
 *
 * Two passes.  The first walks the headers only (seeking over the data)
 * and takes the archive only if every header is sound and of a kind read
 * here; a damaged, truncated or sparse archive goes to pfx_extract(),
 * whose libarchive has its own word on those.  The second pass reads
 * each entry and its data and gives them to pfx_writer_*().
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "push_tar.h"

#define BLOCK 512
#define NAME_MAX_LEN (64u * 1024)	/* a long name, a pax record */

/* The archive: a descriptor (read, and seek in the first pass) or a
 * buffer. */
struct src {
	int fd;
	const unsigned char *buf;
	size_t len;
	uint64_t at;
};

/* Read N bytes into P.  Return: N, fewer at the end, or -1. */
static ssize_t
src_read(struct src *s, void *p, size_t n)
{
	size_t got = 0;
	ssize_t r;

	if (s->buf != NULL) {
		if (s->at >= s->len)
			return 0;
		if (n > s->len - s->at)
			n = (size_t)(s->len - s->at);
		memcpy(p, s->buf + s->at, n);
		s->at += n;
		return (ssize_t)n;
	}
	while (got < n) {
		r = read(s->fd, (char *)p + got, n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			break;
		got += (size_t)r;
	}
	s->at += got;
	return (ssize_t)got;
}

/* Go to offset AT.  Return: 0, or -1. */
static int
src_seek(struct src *s, uint64_t at)
{
	if (s->buf == NULL && lseek(s->fd, (off_t)at, SEEK_SET) == -1)
		return -1;
	s->at = at;
	return 0;
}

/* The archive's size, or UINT64_MAX when it cannot be known. */
static uint64_t
src_size(const struct src *s)
{
	struct stat st;

	if (s->buf != NULL)
		return s->len;
	if (fstat(s->fd, &st) == -1 || !S_ISREG(st.st_mode))
		return UINT64_MAX;
	return (uint64_t)st.st_size;
}

/* A numeric field: octal, or GNU's base-256.  Return: 0, or -1. */
static int
number(const unsigned char *f, size_t w, int64_t *out)
{
	uint64_t v = 0;
	size_t i = 0;

	if (f[0] & 0x80) {
		if (f[0] != 0x80)
			return -1;	/* negative: not here */
		for (i = 1; i < w; i++) {
			if (v >> 55)
				return -1;
			v = v << 8 | f[i];
		}
		*out = (int64_t)v;
		return 0;
	}
	while (i < w && f[i] == ' ')
		i++;
	for (; i < w && f[i] >= '0' && f[i] <= '7'; i++) {
		if (v >> 60)
			return -1;
		v = v << 3 | (uint64_t)(f[i] - '0');
	}
	if (i < w && f[i] != ' ' && f[i] != '\0')
		return -1;
	*out = (int64_t)v;
	return 0;
}

/* Is H's checksum right (unsigned, or the signed sum old tars wrote)? */
static bool
checksum_ok(const unsigned char *h)
{
	int64_t want;
	long u = 0, sg = 0;
	size_t i;

	if (number(h + 148, 8, &want) < 0)
		return false;
	for (i = 0; i < BLOCK; i++) {
		unsigned char c = (i >= 148 && i < 156) ? ' ' : h[i];

		u += c;
		sg += (signed char)c;
	}
	return want == u || want == sg;
}

static bool
all_zero(const unsigned char *h)
{
	size_t i;

	for (i = 0; i < BLOCK; i++)
		if (h[i] != 0)
			return false;
	return true;
}

/* A field of W bytes as a string, terminated, into OUT (W + 1). */
static void
field(const unsigned char *f, size_t w, char *out)
{
	size_t n = strnlen((const char *)f, w);

	memcpy(out, f, n);
	out[n] = '\0';
}

/* What one entry's headers (long names, pax records, then its own) say. */
struct hdr {
	char type;
	char *name, *link;	/* owned */
	char uname[33], gname[33];
	int64_t mode, uid, gid, size, mtime, devmajor, devminor;
	long mtime_nsec;
	bool ustar;		/* POSIX magic: the prefix field counts */
	bool long_name, long_link;	/* from GNU 'L' and 'K' headers */
};

static void
hdr_free(struct hdr *h)
{
	free(h->name);
	free(h->link);
	memset(h, 0, sizeof(*h));
}

/* Replace *DST by the first N bytes of P, terminated.  Return: 0, -1. */
static int
set_string(char **dst, const char *p, size_t n)
{
	char *s = malloc(n + 1);

	if (s == NULL)
		return -1;
	memcpy(s, p, n);
	s[n] = '\0';
	free(*dst);
	*dst = s;
	return 0;
}

/*
 * Take the pax records of BODY (N bytes) into H.  Return: 0, 1 for a
 * record this reader does not take (a sparse file, xattrs: the archive
 * goes to pfx_extract()), or -1 for a malformed one.
 */
static int
pax_records(struct hdr *h, const char *body, size_t n)
{
	const char *rec, *key, *eq, *val;
	size_t at = 0, avail, i, len, klen, vlen;
	char num[32], *end;
	int64_t v;

	while (at < n) {
		rec = body + at;
		avail = n - at;
		for (i = 0, len = 0; i < avail && i < 10 &&
		    rec[i] >= '0' && rec[i] <= '9'; i++)
			len = len * 10 + (size_t)(rec[i] - '0');
		if (i == 0 || i >= avail || rec[i] != ' ' || len <= i + 2 ||
		    len > avail || rec[len - 1] != '\n')
			return -1;
		key = rec + i + 1;
		eq = memchr(key, '=', (size_t)(rec + len - 1 - key));
		if (eq == NULL)
			return -1;
		klen = (size_t)(eq - key);
		val = eq + 1;
		vlen = (size_t)(rec + len - 1 - val);
		at += len;
#define KEY(k) (klen == sizeof(k) - 1 && memcmp(key, k, klen) == 0)
		/* As libarchive reads them: a name ends at a NUL, an
		 * empty one overrides nothing, and a GNU long name ('L',
		 * 'K', already in H) wins over pax's. */
		if (KEY("path") || KEY("linkpath"))
			vlen = strnlen(val, vlen);
		if (KEY("path")) {
			if (vlen > 0 && h->long_name)
				;
			else if (vlen > 0 &&
			    set_string(&h->name, val, vlen) < 0)
				return -1;
		} else if (KEY("linkpath")) {
			if (vlen > 0 && h->long_link)
				;
			else if (vlen > 0 &&
			    set_string(&h->link, val, vlen) < 0)
				return -1;
		} else if (KEY("size") || KEY("uid") || KEY("gid") ||
		    KEY("mtime")) {
			if (vlen == 0 || vlen >= sizeof(num))
				return -1;
			memcpy(num, val, vlen);
			num[vlen] = '\0';
			errno = 0;
			v = strtoll(num, &end, 10);
			if (errno != 0 || end == num || v < 0)
				return -1;
			if (KEY("mtime") && *end == '.') {
				/* Nanoseconds: nine digits at most. */
				char ns[10] = "000000000";
				size_t d = strspn(end + 1, "0123456789");

				memcpy(ns, end + 1, d < 9 ? d : 9);
				h->mtime_nsec = strtol(ns, NULL, 10);
				end += 1 + d;
			}
			if (*end != '\0')
				return -1;
			if (KEY("size"))
				h->size = v;
			else if (KEY("uid"))
				h->uid = v;
			else if (KEY("gid"))
				h->gid = v;
			else
				h->mtime = v;
		} else if (KEY("uname") || KEY("gname")) {
			char *d = KEY("uname") ? h->uname : h->gname;

			if (vlen > 32)
				return 1;
			memcpy(d, val, vlen);
			d[vlen] = '\0';
		} else if (!KEY("atime") && !KEY("ctime") &&
		    !KEY("comment") && !KEY("charset")) {
			/* Sparse maps, xattrs, hdrcharset, ...: libarchive's
			 * to read, not this reader's. */
			return 1;
		}
#undef KEY
	}
	return 0;
}

/* The data of an 'L', 'K' or 'x' header (SIZE bytes) into *OUT. */
static int
read_body(struct src *s, int64_t size, char **out)
{
	uint64_t pad = ((uint64_t)size + BLOCK - 1) / BLOCK * BLOCK;
	char *b;

	if (size < 0 || (uint64_t)size > NAME_MAX_LEN)
		return -1;
	b = malloc(pad + 1);
	if (b == NULL || src_read(s, b, pad) != (ssize_t)pad) {
		free(b);
		return -1;
	}
	b[size] = '\0';
	*out = b;
	return 0;
}

/*
 * Read the next entry's headers into H.  Return: 1 with H filled, 0 at
 * the archive's end, 2 for something this reader does not take, or -1
 * for a damaged or truncated archive.
 */
static int
next_header(struct src *s, struct hdr *h)
{
	unsigned char b[BLOCK];
	char name[101], prefix[156], link[101], *body;
	int64_t v;
	ssize_t n;
	int r;
	bool pax_seen = false;

	memset(h, 0, sizeof(*h));
	h->size = -1;
	for (;;) {
		n = src_read(s, b, BLOCK);
		if (n == 0)
			return h->name == NULL && h->link == NULL ? 0 : -1;
		if (n != BLOCK)
			return -1;
		if (all_zero(b))
			return h->name == NULL && h->link == NULL ? 0 : -1;
		if (!checksum_ok(b))
			return -1;
		if (number(b + 124, 12, &v) < 0)
			return -1;
		h->type = (char)b[156];
		/* Global pax records: libarchive's to apply, not this
		 * reader's. */
		if (h->type == 'g')
			return 2;
		if (h->type != 'L' && h->type != 'K' && h->type != 'x')
			break;
		/* Two 'x' headers for one entry: libarchive's to judge (a
		 * damaged header, pfextract.1). */
		if (h->type == 'x' && pax_seen)
			return 2;
		pax_seen = pax_seen || h->type == 'x';
		if (read_body(s, v, &body) < 0)
			return -1;
		r = 0;
		if (h->type == 'L') {
			r = set_string(&h->name, body, strlen(body));
			h->long_name = true;
		} else if (h->type == 'K') {
			r = set_string(&h->link, body, strlen(body));
			h->long_link = true;
		}
		else if (h->type == 'x')
			r = pax_records(h, body, (size_t)v);
		free(body);
		if (r != 0)
			return r < 0 ? -1 : 2;
	}
	if (strchr("01234567", h->type) == NULL && h->type != '\0')
		return 2;
	h->ustar = memcmp(b + 257, "ustar\0", 6) == 0;
	if (number(b + 100, 8, &h->mode) < 0 ||
	    (h->uid == 0 && number(b + 108, 8, &h->uid) < 0) ||
	    (h->gid == 0 && number(b + 116, 8, &h->gid) < 0) ||
	    (h->mtime == 0 && number(b + 136, 12, &h->mtime) < 0))
		return -1;
	if (h->size < 0 && number(b + 124, 12, &h->size) < 0)
		return -1;
	if (h->type == '3' || h->type == '4') {
		if (number(b + 329, 8, &h->devmajor) < 0 ||
		    number(b + 337, 8, &h->devminor) < 0)
			return -1;
	}
	if (h->uname[0] == '\0')
		field(b + 265, 32, h->uname);
	if (h->gname[0] == '\0')
		field(b + 297, 32, h->gname);
	if (h->name == NULL) {
		field(b, 100, name);
		prefix[0] = '\0';
		if (h->ustar)
			field(b + 345, 155, prefix);
		if (prefix[0] != '\0') {
			char whole[260];

			snprintf(whole, sizeof(whole), "%s/%s", prefix, name);
			r = set_string(&h->name, whole, strlen(whole));
		} else {
			r = set_string(&h->name, name, strlen(name));
		}
		if (r < 0)
			return -1;
	}
	if (h->link == NULL) {
		field(b + 157, 100, link);
		if (set_string(&h->link, link, strlen(link)) < 0)
			return -1;
	}
	return 1;
}

/* The bytes of data that follow H's header in the archive. */
static uint64_t
data_len(const struct hdr *h)
{
	/* Links, directories and devices carry none, whatever they say,
	 * but a hard link of pax's with data. */
	if (h->type == '2' || h->type == '3' || h->type == '4' ||
	    h->type == '5' || h->type == '6')
		return 0;
	return (uint64_t)h->size;
}

/* The first pass: is S a sound tar archive of what this reader takes? */
static bool
takes(struct src *s)
{
	uint64_t size = src_size(s), pad;
	struct hdr h;
	int r;

	if (size == UINT64_MAX)
		return false;
	while ((r = next_header(s, &h)) == 1) {
		pad = (data_len(&h) + BLOCK - 1) / BLOCK * BLOCK;
		hdr_free(&h);
		if (pad > size - s->at || src_seek(s, s->at + pad) < 0)
			return false;
	}
	hdr_free(&h);
	return r == 0;
}

/* H as the push API's entry. */
static void
to_entry(const struct hdr *h, struct pfx_entry *e)
{
	size_t n = strlen(h->name);

	memset(e, 0, sizeof(*e));
	e->name = h->name;
	switch (h->type) {
	case '1':
		e->type = PFX_TYPE_HARDLINK;
		break;
	case '2':
		e->type = PFX_TYPE_SYMLINK;
		break;
	case '3':
		e->type = PFX_TYPE_CHAR;
		break;
	case '4':
		e->type = PFX_TYPE_BLOCK;
		break;
	case '5':
		e->type = PFX_TYPE_DIR;
		break;
	case '6':
		e->type = PFX_TYPE_FIFO;
		break;
	default:
		/* Old tars marked a directory by its trailing slash. */
		e->type = n > 0 && h->name[n - 1] == '/' ? PFX_TYPE_DIR :
		    PFX_TYPE_FILE;
		break;
	}
	if (e->type == PFX_TYPE_HARDLINK || e->type == PFX_TYPE_SYMLINK)
		e->link_target = h->link;
	e->mode = (mode_t)(h->mode & 07777);
	e->size = e->type == PFX_TYPE_FILE || e->type == PFX_TYPE_HARDLINK ?
	    h->size : 0;
	e->mtime = h->mtime;
	e->mtime_nsec = h->mtime_nsec;
	e->uname = h->uname[0] != '\0' ? h->uname : NULL;
	e->gname = h->gname[0] != '\0' ? h->gname : NULL;
	e->uid = h->uid;
	e->gid = h->gid;
	e->devmajor = h->devmajor;
	e->devminor = h->devminor;
}

/* Give H's data (LEN bytes, then the padding skipped) to W. */
static int
push_data(struct src *s, struct pfx_writer *w, uint64_t len)
{
	static const size_t chunk = 65536;
	unsigned char *buf = malloc(chunk);
	uint64_t pad = (BLOCK - len % BLOCK) % BLOCK;
	size_t n;
	int r = 0;

	if (buf == NULL)
		return ENOMEM;
	while (len > 0 && r == 0) {
		n = len < chunk ? (size_t)len : chunk;
		if (src_read(s, buf, n) != (ssize_t)n)
			r = EIO;
		else
			r = pfx_writer_data(w, buf, n);
		len -= n;
	}
	free(buf);
	if (r == 0 && pad > 0 && src_seek(s, s->at + pad) < 0)
		r = EIO;
	return r;
}

/* The second pass: every entry of S to W.  Return: 0 or an errno. */
static int
push_all(struct src *s, struct pfx_writer *w)
{
	struct pfx_entry e;
	struct hdr h;
	int r;

	while ((r = next_header(s, &h)) == 1) {
		to_entry(&h, &e);
		r = pfx_writer_entry(w, &e);
		if (r == 0)
			r = push_data(s, w, data_len(&h));
		hdr_free(&h);
		if (r != 0)
			return r;
	}
	hdr_free(&h);
	return r == 0 ? 0 : EIO;
}

/* Note what was done with the archive, when PFX_PUSH_LOG names a file. */
static void
note(const char *what)
{
	const char *log = getenv("PFX_PUSH_LOG");
	FILE *f;

	if (log == NULL || (f = fopen(log, "a")) == NULL)
		return;
	fprintf(f, "%s\n", what);
	fclose(f);
}

/* see push_tar.h */
enum pfx_status
push_tar_extract(const struct pfx_input *in, int dirfd, const char *dest,
    const struct pfx_options *opt, struct pfx_result *result)
{
	struct pfx_options o;
	struct pfx_writer *w;
	struct src s;
	int r;

	memset(&s, 0, sizeof(s));
	s.fd = -1;
	if (in->path != NULL)
		s.fd = open(in->path, O_RDONLY | O_CLOEXEC);
	else if (in->buf == NULL)
		s.fd = dup(in->fd);
	else {
		s.buf = in->buf;
		s.len = in->len;
	}
	/* A descriptor's offset is its owner's too (a dup shares it):
	 * read only one at the start, and leave it there for
	 * pfx_extract(). */
	if ((s.buf == NULL && (s.fd < 0 ||
	    lseek(s.fd, 0, SEEK_CUR) != 0)) || !takes(&s) ||
	    src_seek(&s, 0) < 0) {
		if (s.fd >= 0) {
			(void)lseek(s.fd, 0, SEEK_SET);
			(void)close(s.fd);
		}
		note("pfx_extract");
		return pfx_extract(in, dirfd, dest, opt, result);
	}
	note("push");
	pfx_options_init(&o);
	if (opt != NULL)
		o = *opt;
	/* The sandbox confines a parser; here the parser is this one. */
	o.flags &= ~(PFX_OPT_SANDBOX | PFX_OPT_SANDBOX_CHILD |
	    PFX_OPT_SANDBOX_REQUIRE);
	r = pfx_writer_open(dirfd, dest, &o, &w);
	if (r != 0) {
		memset(result, 0, sizeof(*result));
		result->status = PFX_FATAL;
		result->error = r;
		snprintf(result->message, sizeof(result->message),
		    "pfx_writer_open: %s", strerror(r));
		if (s.fd >= 0)
			(void)close(s.fd);
		return result->status;
	}
	r = push_all(&s, w);
	if (r != 0 && r != EPIPE)
		(void)pfx_writer_fail(w, "the archive changed under the "
		    "reader");
	if (s.fd >= 0)
		(void)close(s.fd);
	return pfx_writer_finish(w, result);
}
