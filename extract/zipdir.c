/*
 * zipdir.c -- a zip's end record and central directory, and each local
 * header checked against its directory record (zip.h).
 *
 * SECURITY: this is a second zip parser beside libarchive's, so two
 * readings of one archive could differ.  It closes that in three ways:
 *
 *	- It takes only what it understands whole: one disk, the directory
 *	  right before the end record (and the zip64 end record), the first
 *	  member at offset 0, methods stored and deflate, no encryption,
 *	  names that libarchive would give as they are (no NUL, no '\',
 *	  UTF-8 only where the locale is), no extra field that libarchive
 *	  would read a name, mode or time from and this reader does not.
 *	  Anything else is ZIP_NOT_OURS: libarchive reads the whole archive,
 *	  exactly as before.
 *	- Where the archive contradicts itself it is refused, never read one
 *	  way: a directory that points past its end or holds more entries
 *	  than its end record says, zip64 records that disagree with the end
 *	  record, members that overlap or share a header (the overlapping
 *	  "zip bomb"), a local header whose name, method, flags, CRC or sizes
 *	  differ from its directory record.  libarchive took the local
 *	  header's name over the directory's; here the two must agree.
 *	- What it gives libarchive would give too (the metadata rules below
 *	  are libarchive 3.6's), which tests/test_zip.c checks entry by entry
 *	  on real zips.
 */
#include <errno.h>
#include <langinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "zip.h"

#define EOCD_LEN	22u
#define LOC64_LEN	20u
#define EOCD64_LEN	56u
#define CEN_LEN		46u
#define LOC_LEN		30u
#define COMMENT_MAX	65535u

#define F_ENCRYPTED	0x0001u
#define F_DESCRIPTOR	0x0008u
#define F_STRONG	0x0040u
#define F_UTF8		0x0800u
#define F_MASKED	0x2000u
/* The flags a local header must repeat from its directory record. */
#define F_MUST_AGREE	(F_ENCRYPTED | F_DESCRIPTOR | F_STRONG | F_UTF8 | \
			 F_MASKED)

#define SAT32		0xffffffffu
#define SAT16		0xffffu

/* The file type bits of st_mode, as libarchive's AE_IF*. */
#define M_IFMT		0170000u
#define M_IFDIR		0040000u
#define M_IFREG		0100000u
#define M_IFIFO		0010000u

static uint16_t
le16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t
le32(const unsigned char *p)
{
	return (uint32_t)le16(p) | (uint32_t)le16(p + 2) << 16;
}

static uint64_t
le64(const unsigned char *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* see zip.h */
int
zip_pread(const struct zip_in *in, void *buf, size_t len, uint64_t off)
{
	size_t got = 0;
	ssize_t n;

	if (off > in->size || len > in->size - off)
		return -EIO;
	if (in->buf != NULL) {
		memcpy(buf, in->buf + off, len);
		return 0;
	}
	while (got < len) {
		n = pread(in->fd, (char *)buf + got, len - got,
		    (off_t)(off + got));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		got += (size_t)n;
	}
	return 0;
}

static int
hostile(char *msg, size_t cap, int *error, const char *what)
{
	snprintf(msg, cap, "a zip that contradicts itself: %s", what);
	*error = EILSEQ;
	return ZIP_HOSTILE;
}

/*
 * Where the end record is: the last "PK\5\6" of the input, whose comment
 * must end the input exactly.  Return: its offset, or -1 (none: not
 * ours).
 *
 * SECURITY: libarchive's seekable reader, and unzip, take the last
 * "PK\5\6" as the end record whatever its comment length says.  One
 * hidden in the real end record's comment (with a directory of its own
 * before it, in the comment too) would be their end record, and another
 * directory theirs than ours: a later signature that does not end the
 * input is not ours to read (libarchive reads the zip, as before).
 */
static int64_t
find_eocd(const struct zip_in *in, unsigned char *tail, size_t *tail_len,
    uint64_t *tail_off)
{
	size_t n = in->size < EOCD_LEN + COMMENT_MAX ? (size_t)in->size :
	    EOCD_LEN + COMMENT_MAX;
	size_t i;

	*tail_len = n;
	*tail_off = in->size - n;
	if (n < EOCD_LEN || zip_pread(in, tail, n, *tail_off) < 0)
		return -1;
	for (i = n - EOCD_LEN + 1; i-- > 0;)
		if (memcmp(tail + i, "PK\5\6", 4) == 0)
			return i + EOCD_LEN + le16(tail + i + 20) == n ?
			    (int64_t)(*tail_off + i) : -1;
	return -1;
}

/* What the end records say. */
struct end {
	uint64_t entries, cd_size, cd_off;
	uint64_t cd_end;	/* where the directory must end */
};

/*
 * Read the zip64 end record that the locator before the end record at
 * EOCD names, over what the end record E says.  Return: ZIP_OURS,
 * ZIP_NOT_OURS, ZIP_HOSTILE (MSG set).
 */
static int
read_zip64(const struct zip_in *in, uint64_t eocd, struct end *e,
    const unsigned char *rec, char *msg, size_t cap, int *error)
{
	unsigned char loc[LOC64_LEN], r[EOCD64_LEN];
	uint64_t at;

	if (eocd < LOC64_LEN || zip_pread(in, loc, LOC64_LEN,
	    eocd - LOC64_LEN) < 0 || memcmp(loc, "PK\6\7", 4) != 0)
		return ZIP_OURS;	/* no zip64 */
	if (le32(loc + 4) != 0 || le32(loc + 16) != 1)
		return ZIP_NOT_OURS;	/* more than one disk */
	at = le64(loc + 8);
	if (at > eocd - LOC64_LEN || eocd - LOC64_LEN - at < EOCD64_LEN ||
	    zip_pread(in, r, EOCD64_LEN, at) < 0 ||
	    memcmp(r, "PK\6\6", 4) != 0)
		return hostile(msg, cap, error, "its zip64 end locator points "
		    "at no zip64 end record");
	if (le64(r + 4) != eocd - LOC64_LEN - at - 12)
		return ZIP_NOT_OURS;	/* an extensible data sector */
	if (le32(r + 16) != 0 || le32(r + 20) != 0 ||
	    le64(r + 24) != le64(r + 32))
		return ZIP_NOT_OURS;
	/* SECURITY: a 32-bit field not saturated must say the same. */
	if ((le16(rec + 10) != SAT16 && le16(rec + 10) != le64(r + 32)) ||
	    (le32(rec + 12) != SAT32 && le32(rec + 12) != le64(r + 40)) ||
	    (le32(rec + 16) != SAT32 && le32(rec + 16) != le64(r + 48)))
		return hostile(msg, cap, error, "its zip64 end record and its "
		    "end record disagree");
	e->entries = le64(r + 32);
	e->cd_size = le64(r + 40);
	e->cd_off = le64(r + 48);
	e->cd_end = at;
	return ZIP_OURS;
}

/* Read the end record(s) of IN into E.  Return: as read_zip64(). */
static int
read_end(const struct zip_in *in, struct end *e, char *msg, size_t cap,
    int *error)
{
	unsigned char *tail = malloc(EOCD_LEN + COMMENT_MAX);
	unsigned char rec[EOCD_LEN];
	uint64_t tail_off;
	size_t tail_len;
	int64_t at;
	int r;

	/* No memory to look: libarchive's, which will say so. */
	if (tail == NULL)
		return ZIP_NOT_OURS;
	at = find_eocd(in, tail, &tail_len, &tail_off);
	if (at >= 0)
		memcpy(rec, tail + ((uint64_t)at - tail_off), EOCD_LEN);
	free(tail);
	if (at < 0)
		return ZIP_NOT_OURS;
	/* One disk, every entry on it. */
	if (le16(rec + 4) != 0 || le16(rec + 6) != 0 ||
	    le16(rec + 8) != le16(rec + 10))
		return ZIP_NOT_OURS;
	e->entries = le16(rec + 10);
	e->cd_size = le32(rec + 12);
	e->cd_off = le32(rec + 16);
	e->cd_end = (uint64_t)at;
	r = read_zip64(in, (uint64_t)at, e, rec, msg, cap, error);
	if (r != ZIP_OURS)
		return r;
	if (e->cd_off > e->cd_end || e->cd_size > e->cd_end - e->cd_off)
		return hostile(msg, cap, error, "its central directory points "
		    "past its end record");
	/* Data before the first member (a self-extractor), or between the
	 * directory and the end record: libarchive's. */
	if (e->cd_off + e->cd_size != e->cd_end)
		return ZIP_NOT_OURS;
	if (e->entries > e->cd_size / CEN_LEN)
		return hostile(msg, cap, error, "its end record counts more "
		    "entries than its central directory can hold");
	return ZIP_OURS;
}

/* Is the locale's charset UTF-8 (libarchive's conversion from UTF-8 is
 * then a copy, for valid UTF-8)? */
static bool
locale_utf8(void)
{
	const char *cs = nl_langinfo(CODESET);

	return cs != NULL && (strcmp(cs, "UTF-8") == 0 ||
	    strcmp(cs, "utf8") == 0);
}

/* Is P (N bytes) valid UTF-8: shortest forms, no surrogates, at most
 * U+10FFFF? */
static bool
valid_utf8(const unsigned char *p, size_t n)
{
	size_t i = 0, k, len;
	uint32_t c, min;

	while (i < n) {
		c = p[i];
		if (c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf) {
			len = 2;
			c &= 0x1f;
			min = 0x80;
		} else if (c >= 0xe0 && c <= 0xef) {
			len = 3;
			c &= 0x0f;
			min = 0x800;
		} else if (c >= 0xf0 && c <= 0xf4) {
			len = 4;
			c &= 0x07;
			min = 0x10000;
		} else {
			return false;
		}
		if (n - i < len)
			return false;
		for (k = 1; k < len; k++) {
			if ((p[i + k] & 0xc0) != 0x80)
				return false;
			c = c << 6 | (p[i + k] & 0x3fu);
		}
		if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
			return false;
		i += len;
	}
	return true;
}

/* see zip.h */
bool
zip_name_plain(const unsigned char *p, size_t n, uint16_t flags)
{
	size_t i;
	bool high = false;

	for (i = 0; i < n; i++) {
		if (p[i] == '\0' || p[i] == '\\')
			return false;
		high |= p[i] >= 0x80;
	}
	/* Without the UTF-8 flag libarchive copies the bytes (on POSIX
	 * it converts from no charset); with it, to the locale's. */
	return !high || (flags & F_UTF8) == 0 || (locale_utf8() &&
	    valid_utf8(p, n));
}

/* What the extra fields of a record or header give. */
struct extra {
	bool central;
	uint64_t *usize, *csize, *off;	/* zip64: the fields saturated */
	int64_t mtime, atime, ctime;
	bool mtime_set;
	uint32_t uid, gid;
	/* a local header's zip64 sizes */
	bool z64;
	uint64_t z64_usize, z64_csize;
	uint32_t l_usize, l_csize;
};

/* Take the zip64 field P (N bytes): the saturated sizes, in their
 * order.  Return: 0, or -1 (short, or past INT64_MAX). */
static int
take_zip64(struct extra *x, const unsigned char *p, size_t n)
{
	uint64_t *f[3] = { x->usize, x->csize, x->off };
	size_t i, at = 0;

	if (!x->central) {
		/* A local header's: its sizes, when it says 0xffffffff. */
		x->z64 = true;
		if (x->l_usize == SAT32) {
			if (n < 8)
				return -1;
			x->z64_usize = le64(p);
			at = 8;
		}
		if (x->l_csize == SAT32) {
			if (n - at < 8)
				return -1;
			x->z64_csize = le64(p + at);
		}
		return 0;
	}
	for (i = 0; i < 3; i++) {
		if (f[i] == NULL || *f[i] != SAT32)
			continue;
		if (n - at < 8 || le64(p + at) > INT64_MAX)
			return -1;
		*f[i] = le64(p + at);
		at += 8;
	}
	return 0;
}

/* The extended timestamp "UT", as libarchive 3.6 reads it. */
static int
take_ut(struct extra *x, const unsigned char *p, size_t n)
{
	unsigned int fl;
	size_t at = 1;
	int64_t *t[3] = { &x->mtime, &x->atime, &x->ctime };
	int i;

	if (n == 0)
		return -1;
	fl = p[0];
	for (i = 0; i < 3; i++) {
		if ((fl & (1u << i)) == 0)
			continue;
		if (n - at < 4)
			break;
		/* libarchive 3.6 reads it unsigned, later ones signed:
		 * a time past 2038 or before 1970 is left to libarchive. */
		if (le32(p + at) > INT32_MAX)
			return 1;
		*t[i] = (int64_t)le32(p + at);
		if (i == 0)
			x->mtime_set = true;
		at += 4;
	}
	return 0;
}

/* Info-ZIP's Unix owners "ux", as libarchive reads it. */
static void
take_ux(struct extra *x, const unsigned char *p, size_t n)
{
	size_t us = 0;

	if (n < 1 || p[0] != 1)
		return;
	if (n >= 4) {
		us = p[1];
		if (us == 2)
			x->uid = le16(p + 2);
		else if (us == 4 && n >= 6)
			x->uid = le32(p + 2);
	}
	if (n >= 2 + us + 3) {
		if (p[2 + us] == 2)
			x->gid = le16(p + 3 + us);
		else if (p[2 + us] == 4 && n >= 2 + us + 5)
			x->gid = le32(p + 3 + us);
	}
}

/* Info-ZIP's older Unix owners "Ux", as libarchive reads it: 16 bits
 * each (a directory record's is empty). */
static void
take_ux_old(struct extra *x, const unsigned char *p, size_t n)
{
	if (n >= 2)
		x->uid = le16(p);
	if (n >= 4)
		x->gid = le16(p + 2);
}

/*
 * Walk the extra fields P (N bytes) into X, as libarchive does (a tail
 * of fewer than 4 bytes is ignored).  Return: 0; 1 for a field that
 * libarchive reads and this reader does not (a Unicode name, a mode, a
 * time, encryption); -1 when malformed.
 */
static int
walk_extra(struct extra *x, const unsigned char *p, size_t n)
{
	size_t at = 0, len;
	unsigned int id;
	int r = 0;

	if (n > 0 && n < 4) {
		while (n-- > 0)
			if (p[n] != 0)
				return -1;
		return 0;
	}
	while (n >= 4 && at <= n - 4) {
		id = le16(p + at);
		len = le16(p + at + 2);
		at += 4;
		if (len > n - at)
			return -1;
		switch (id) {
		case 0x0001:
			r = take_zip64(x, p + at, len);
			break;
		case 0x5455:
			r = take_ut(x, p + at, len);
			break;
		case 0x7875:
			take_ux(x, p + at, len);
			break;
		/* SECURITY: libarchive takes owners from it too; left
		 * out, a set-id file of 1234 was root's here (-p
		 * --same-owner), 1234's for bsdtar. */
		case 0x7855:
			take_ux_old(x, p + at, len);
			break;
		case 0x000a:	/* NTFS times (later libarchives) */
		case 0x000d:	/* PKWARE Unix */
		case 0x0017:	/* strong encryption */
		case 0x5855:	/* Info-ZIP Unix, old */
		case 0x6c78:	/* libarchive's "xl": a mode */
		case 0x7075:	/* Info-ZIP Unicode path */
		case 0x9901:	/* WinZip AES */
			return 1;
		}
		if (r != 0)
			return r;
		at += len;
	}
	return 0;
}

/* The mode libarchive gives a member its directory record describes. */
static uint32_t
central_mode(unsigned int made_by, uint32_t attrs)
{
	uint32_t mode;

	switch (made_by >> 8) {
	case 3:		/* Unix: the mode in the high half */
		return attrs >> 16;
	case 0:		/* MS-DOS: the directory and read-only bits */
		mode = (attrs & 0x10) != 0 ? M_IFDIR | 0775 : M_IFREG | 0664;
		if ((attrs & 0x01) != 0)
			mode &= 0555;
		return mode;
	}
	return 0;
}

/* Parse the directory record at P (LEN bytes left) into M.  Return:
 * its length; 0 not ours; -1 malformed (MSG set). */
static long
parse_record(const unsigned char *p, size_t len, size_t at,
    struct zip_member *m, char *msg, size_t cap)
{
	struct extra x;
	size_t nlen, elen, clen;
	uint16_t disk;
	int r;

	if (len < CEN_LEN || memcmp(p, "PK\1\2", 4) != 0) {
		snprintf(msg, cap, "its central directory has a bad record "
		    "at byte %zu of it", at);
		return -1;
	}
	nlen = le16(p + 28);
	elen = le16(p + 30);
	clen = le16(p + 32);
	if (len - CEN_LEN < nlen + elen + clen) {
		snprintf(msg, cap, "a record runs past its central "
		    "directory's end");
		return -1;
	}
	memset(m, 0, sizeof(*m));
	m->flags = le16(p + 8);
	m->method = le16(p + 10);
	m->crc = le32(p + 16);
	m->csize = le32(p + 20);
	m->usize = le32(p + 24);
	m->name_len = (uint16_t)nlen;
	m->name = (uint32_t)(at + CEN_LEN);
	m->off = le32(p + 42);
	disk = le16(p + 34);
	if ((m->flags & (F_ENCRYPTED | F_STRONG | F_MASKED)) != 0 ||
	    (m->method != 0 && m->method != 8) || (disk != 0 &&
	    disk != SAT16) || !zip_name_plain(p + CEN_LEN, nlen, m->flags))
		return 0;
	memset(&x, 0, sizeof(x));
	x.central = true;
	x.usize = &m->usize;
	x.csize = &m->csize;
	x.off = &m->off;
	r = walk_extra(&x, p + CEN_LEN + nlen, elen);
	if (r != 0)
		return 0;	/* libarchive's to read or refuse */
	/* SECURITY: a zip64 size still saturated has no value. */
	if (m->csize == SAT32 || m->usize == SAT32 || m->off == SAT32) {
		snprintf(msg, cap, "a record's zip64 sizes are missing");
		return -1;
	}
	m->mode = central_mode(le16(p + 4), le32(p + 38));
	m->uid = x.uid;
	m->gid = x.gid;
	m->atime = x.atime;
	m->ctime = x.ctime;
	return (long)(CEN_LEN + nlen + elen + clen);
}

static int
by_offset(const void *a, const void *b)
{
	const struct zip_member *x = a, *y = b;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name;
}

/* Refuse any two of D's members, in archive order (by local offset, as
 * libarchive gives them), that overlap.  Return: 0, or ZIP_HOSTILE. */
static int
order_members(struct zip_dir *d, char *msg, size_t cap, int *error)
{
	struct zip_member *m;
	size_t i;

	for (i = 0; i < d->n; i++) {
		m = &d->m[i];
		m->end = i + 1 < d->n ? d->m[i + 1].off : d->cd_off;
		/* SECURITY: the smallest a member can be (its local header
		 * repeats the name) must fit before the next one. */
		if (m->off > m->end || m->end - m->off < LOC_LEN ||
		    m->end - m->off - LOC_LEN < m->name_len ||
		    m->end - m->off - LOC_LEN - m->name_len < m->csize) {
			snprintf(msg, cap, "a zip that contradicts itself: "
			    "member %zu of its central directory overlaps "
			    "the next member or the directory (overlapping "
			    "members, a zip bomb's trick)", i + 1);
			*error = EILSEQ;
			return ZIP_HOSTILE;
		}
	}
	return 0;
}

/* What parse_dir() finds, besides 0 (all well) and -errno. */
#define PARSE_DAMAGED	(-1000)	/* a record: WHAT says */
#define PARSE_LONG	(-1001)	/* more than the end record counts */
#define PARSE_NOT_OURS	(-1002)	/* a record this reader does not take */

/*
 * Read the central directory that E locates into CD and parse its records
 * into D's members.  Return: 0, PARSE_NOT_OURS, PARSE_DAMAGED (WHAT says
 * why), PARSE_LONG, or -errno of the read.
 */
static long
parse_dir(const struct zip_in *in, const struct end *e, unsigned char *cd,
    struct zip_dir *d, char *what, size_t cap)
{
	size_t at = 0, i, len = (size_t)e->cd_size;
	long r;

	r = zip_pread(in, cd, len, e->cd_off);
	if (r < 0)
		return r;
	for (i = 0; i < e->entries; i++) {
		r = parse_record(cd + at, len - at, at, &d->m[i], what, cap);
		if (r < 0)
			return PARSE_DAMAGED;
		if (r == 0)
			return PARSE_NOT_OURS;
		at += (size_t)r;
	}
	d->n = (size_t)e->entries;
	return at == len ? 0 : PARSE_LONG;
}

/*
 * Keep only the names of D's members, packed in directory order (so that
 * their offsets keep their order), in place of the directory's bytes
 * CD, which D then owns: of Linux's tree in a zip, 4 MiB of 9.9.
 *
 * SECURITY: packed in place, never copied: a copy would be a second
 * buffer as big as the names while CD is still held, up to twice what
 * zip_dir_read() counted against the memory budget (a directory of
 * long names: 190 MB at --max-memory=100M).  Each name moves down, to
 * where the names before it end, never over one not yet moved.
 */
static void
keep_names(struct zip_dir *d, unsigned char *cd)
{
	unsigned char *shrunk;
	size_t at = 0, i;

	for (i = 0; i < d->n; i++) {
		memmove(cd + at, cd + d->m[i].name, d->m[i].name_len);
		d->m[i].name = (uint32_t)at;
		at += d->m[i].name_len;
	}
	/* A directory whose records were all parsed holds more than
	 * their names: a smaller block, or the same one kept. */
	shrunk = realloc(cd, at + 1);
	d->names = shrunk != NULL ? shrunk : cd;
	d->names_len = at;
}

/*
 * What R, of parse_dir(), makes of the zip: ZIP_OURS,
 * ZIP_NOT_OURS, or ZIP_HOSTILE with MSG and *ERROR set.
 */
static int
dir_verdict(long r, const char *what, char *msg, size_t cap, int *error)
{
	switch (r) {
	case 0:
		return ZIP_OURS;
	case PARSE_NOT_OURS:
		return ZIP_NOT_OURS;
	case PARSE_DAMAGED:
		snprintf(msg, cap, "a zip whose central directory is "
		    "damaged: %s", what);
		*error = EILSEQ;
		return ZIP_HOSTILE;
	case PARSE_LONG:
		return hostile(msg, cap, error, "its central directory holds "
		    "more than the entries its end record counts");
	default:
		snprintf(msg, cap, "%s%s", r == -ENOMEM ? "" :
		    "cannot read the central directory: ", strerror((int)-r));
		*error = (int)-r;
		return ZIP_HOSTILE;
	}
}

/* see zip.h */
int
zip_dir_read(const struct zip_in *in, uint64_t max_memory,
    struct zip_dir *d, char *msg, size_t cap, int *error)
{
	char what[160];
	unsigned char *cd;
	struct end e;
	long r;

	memset(d, 0, sizeof(*d));
	r = read_end(in, &e, msg, cap, error);
	if (r != ZIP_OURS)
		return (int)r;
	if (e.cd_size > SIZE_MAX / 2 || (max_memory != 0 && e.cd_size +
	    e.entries * sizeof(*d->m) > max_memory)) {
		snprintf(msg, cap, "a zip whose central directory (%llu "
		    "bytes, %llu entries) is more than the memory budget "
		    "allows (limit max-memory=%llu; raise limits.max_memory)",
		    (unsigned long long)e.cd_size,
		    (unsigned long long)e.entries,
		    (unsigned long long)max_memory);
		*error = EFBIG;
		return ZIP_HOSTILE;
	}
	d->cd_off = e.cd_off;
	cd = malloc((size_t)e.cd_size + 1);
	d->m = calloc(e.entries + 1, sizeof(*d->m));
	if (cd == NULL || d->m == NULL) {
		free(cd);
		zip_dir_free(d);
		snprintf(msg, cap, "%s", strerror(ENOMEM));
		*error = ENOMEM;
		return ZIP_HOSTILE;
	}
	r = parse_dir(in, &e, cd, d, what, sizeof(what));
	if (r == 0)
		keep_names(d, cd);
	else
		free(cd);
	r = dir_verdict(r, what, msg, cap, error);
	if (r != ZIP_OURS) {
		zip_dir_free(d);
		return (int)r;
	}
	qsort(d->m, d->n, sizeof(*d->m), by_offset);
	/* A self-extractor's stub, or what precedes the first member:
	 * libarchive's. */
	if (d->n > 0 && d->m[0].off != 0) {
		zip_dir_free(d);
		return ZIP_NOT_OURS;
	}
	if (order_members(d, msg, cap, error) != 0) {
		zip_dir_free(d);
		return ZIP_HOSTILE;
	}
	return ZIP_OURS;
}

/* see zip.h */
void
zip_dir_free(struct zip_dir *d)
{
	free(d->names);
	free(d->m);
	d->names = NULL;
	d->m = NULL;
	d->n = 0;
}

/* see zip.h */
int64_t
zip_dos_time(uint32_t when)
{
	unsigned int t = when & 0xffffu, dt = when >> 16;
	struct tm tm;

	memset(&tm, 0, sizeof(tm));
	tm.tm_year = (int)((dt >> 9) & 0x7f) + 80;
	tm.tm_mon = (int)((dt >> 5) & 0x0f) - 1;
	tm.tm_mday = (int)(dt & 0x1f);
	tm.tm_hour = (int)((t >> 11) & 0x1f);
	tm.tm_min = (int)((t >> 5) & 0x3f);
	tm.tm_sec = (int)((t << 1) & 0x3e);
	tm.tm_isdst = -1;
	return (int64_t)mktime(&tm);
}

static long
refuse(char *msg, size_t cap, const char *what)
{
	snprintf(msg, cap, "a zip that contradicts itself: %s", what);
	return -1;
}

/* Does the local size field L (with its zip64 value Z, if any) say what
 * the directory's C does?  0 is "in the data descriptor" with it. */
static bool
size_agrees(uint32_t l, bool z64, uint64_t z, uint64_t c, bool desc)
{
	if (desc && l == 0)
		return true;
	if (l == SAT32)
		return z64 && z == c;
	return c < SAT32 && l == c;
}

/* see zip.h */
long
zip_local_check(const struct zip_dir *d, const struct zip_member *m,
    const unsigned char *p, size_t len, struct zip_local *l, char *msg,
    size_t cap)
{
	struct extra x;
	size_t nlen, elen;
	uint16_t flags;
	bool desc;

	if (len < LOC_LEN)
		return LOC_LEN;
	if (memcmp(p, "PK\3\4", 4) != 0)
		return refuse(msg, cap, "no local header where its central "
		    "directory says a member starts");
	nlen = le16(p + 26);
	elen = le16(p + 28);
	if (len < LOC_LEN + nlen + elen)
		return (long)(LOC_LEN + nlen + elen);
	flags = le16(p + 6);
	desc = (flags & F_DESCRIPTOR) != 0;
	if (((flags ^ m->flags) & F_MUST_AGREE) != 0 ||
	    le16(p + 8) != m->method)
		return refuse(msg, cap, "a local header's flags or method "
		    "differ from its central directory record's");
	/* SECURITY: the name judged is the one whose bytes are written. */
	if (nlen != m->name_len || memcmp(p + LOC_LEN, d->names + m->name,
	    nlen) != 0)
		return refuse(msg, cap, "a local header names another file "
		    "than its central directory record");
	memset(&x, 0, sizeof(x));
	x.uid = m->uid;
	x.gid = m->gid;
	x.atime = m->atime;
	x.ctime = m->ctime;
	x.l_usize = le32(p + 22);
	x.l_csize = le32(p + 18);
	switch (walk_extra(&x, p + LOC_LEN + nlen, elen)) {
	case 0:
		break;
	case 1:
		(void)refuse(msg, cap, "a local header has an extra field "
		    "(a Unicode name, a mode, a time) that this reader does "
		    "not take");
		return -2;
	default:
		return refuse(msg, cap, "a local header's extra fields are "
		    "malformed");
	}
	if (!(le32(p + 14) == m->crc || (desc && le32(p + 14) == 0)) ||
	    !size_agrees(x.l_csize, x.z64, x.z64_csize, m->csize, desc) ||
	    !size_agrees(x.l_usize, x.z64, x.z64_usize, m->usize, desc))
		return refuse(msg, cap, "a local header's CRC or sizes differ "
		    "from its central directory record's");
	l->data = m->off + LOC_LEN + nlen + elen;
	if (l->data > m->end || m->end - l->data < m->csize)
		return refuse(msg, cap, "a member's data runs into the next "
		    "member (overlapping members)");
	l->mtime = x.mtime;
	l->mtime_set = x.mtime_set;
	l->dos_time = le32(p + 10);
	l->atime = x.atime;
	l->ctime = x.ctime;
	l->uid = x.uid;
	l->gid = x.gid;
	return 0;
}
