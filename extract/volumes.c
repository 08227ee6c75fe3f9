/*
 * volumes.c -- GNU tar's multi-volume archives (tar -M), joined at the
 * input.  libarchive reads one stream: the volumes one after the other,
 * each later volume without what it begins with -- an optional label
 * ('V'), and the continuation of the member cut at the end of the volume
 * before: an 'M' header (GNU format), or for POSIX a global header ('g')
 * with GNU.volume.filename, .size and .offset and the part's own 'x' and
 * ustar headers -- so that the cut member's data runs on.
 *
 * To check each continuation as GNU tar does (try_new_volume(): the name
 * of the member cut, its size and the offset reached), the blocks are
 * followed as they pass: each header's size says how many data blocks
 * follow it; GNU long names ('L'), pax records (path, size, the sparse
 * names and sizes) and old GNU sparse extension blocks are read on the
 * way.  A volume that does not continue the member cut (another member's
 * continuation or none, another size, another offset) is skipped with
 * GNU tar's warning when a volume follows it, as GNU tar goes on with
 * the next; the last volume fails the run instead, naming the volume:
 * GNU tar would ask for another, and nothing here prompts.
 *
 * SECURITY: the walk only decides whether two volumes join.  What the
 * joined stream holds is libarchive's to read and the engine's to judge,
 * entry by entry, as for any archive; so a walk that an archive fools
 * can make a join fail, or splice where GNU tar would not, but never let
 * an entry escape -- the same bytes could have come as one archive.
 *
 * Bounded: one read buffer of XTR_BLOCK bytes and four names of
 * PFX_PATH_MAX per run, whatever the volumes hold (a longer name is not
 * compared, its size and offset still are), and the warnings not yet
 * told (notes.h: one per volume at most, taken after each read); at most
 * PFX_MAX_VOLUMES descriptors, the caller's.  Time is O(input): a volume
 * skipped is read once, never gone back to.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <archive.h>

#include "extract.h"
#include "notes.h"
#include "readfd.h"
#include "tarhead.h"
#include "volumes.h"

#define BLK 512
#define NAME_CAP (PFX_PATH_MAX + 1)
#define KEY_CAP 32

/* What the bytes being passed are. */
enum body {
	B_NONE,		/* at a header */
	B_FILE,		/* a member's data: a cut here is checked */
	B_PAX,		/* an 'x' or 'g' header's records */
	B_LONGNAME,	/* a GNU 'L' name */
	B_OTHER,	/* any other header's data ('K', ...) */
	B_SPARSE_EXT	/* old GNU sparse extension blocks */
};

/* A pax record being read (records span blocks). */
struct pax {
	uint64_t len;		/* the record's length, as its digits say */
	uint64_t at;		/* its bytes passed */
	int phase;		/* 0 length, 1 keyword, 2 value, 3 broken */
	char key[KEY_CAP];
	size_t klen;
	char val[NAME_CAP];
	size_t vlen;
	bool long_key;		/* KEY was cut: none of ours */
	bool long_val;		/* VAL was cut */
};

/* The next member, as the headers before it describe it. */
struct pending {
	char name[NAME_CAP];	/* "" unless set */
	size_t name_len;
	bool name_done;		/* an 'L' name's NUL was met */
	int name_rank;		/* 0 none, 1 'L' or path, 2 GNU.sparse.name */
	bool name_long;		/* cut: not compared */
	bool size_set, total_set;
	uint64_t size, total;
};

/* A later volume's continuation, as its head says. */
struct cont {
	bool set;
	bool name_set, name_long, gnu;	/* GNU: an 'M' header's 100 bytes */
	char name[NAME_CAP];
	uint64_t size, offset;
	bool size_set, offset_set;
};

/* Where the bytes dropped so far put a joined offset: from JOINED on,
 * add DROPPED. */
struct span {
	uint64_t joined, dropped;
};

struct xtr_volumes {
	char err[256];		/* the join's error, once it failed */
	int err_no;
	int *fds;		/* a copy; the caller's (but OWN) */
	size_t n, cur;
	int own;		/* a descriptor closed with the reader, or -1 */
	const struct xtr_stop *stop;
	struct xtr_head *tap;	/* the joined stream's first bytes, or NULL */
	unsigned char buf[XTR_BLOCK];
	size_t part;		/* bytes at BUF not yet given */
	size_t given, rest;	/* last call: bytes given, bytes after */
	uint64_t joined, dropped;
	struct span *spans;	/* one per volume */
	size_t nspans;
	/* The walk. */
	enum body body;
	uint64_t left;		/* bytes of BODY still to pass */
	bool lost;		/* a header did not check */
	bool at_end;		/* the last header block was zeros */
	bool member_seen;	/* a member header, in volume 1 */
	bool global;		/* the pax records are a 'g' header's */
	uint64_t file_size;	/* B_FILE after B_SPARSE_EXT */
	struct pax pax;
	struct pending next;
	struct cont cont;	/* what a 'g' at a volume's head says */
	char name[NAME_CAP];	/* the member whose data passes */
	bool name_long;
	uint64_t total;		/* its size, as GNU tar counts it */
	struct xtr_notes notes;	/* warnings, until told */
};

static int fail(struct archive *a, struct xtr_volumes *v, int e,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/*
 * The join failed: keep the words (libarchive's skip would word over
 * them) and give them to A.  Return: -1.
 */
static int
fail(struct archive *a, struct xtr_volumes *v, int e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(v->err, sizeof(v->err), fmt, ap);
	va_end(ap);
	v->err_no = e;
	archive_set_error(a, e, "%s", v->err);
	return -1;
}

static bool
all_zero(const unsigned char *b)
{
	size_t i;

	for (i = 0; i < BLK; i++)
		if (b[i] != 0)
			return false;
	return true;
}

/* Decimal digits S (LEN bytes) into *OUT.  Return: 0, or -1. */
static int
dec_num(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (len == 0)
		return -1;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9' || v > (UINT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	*out = v;
	return 0;
}

/* Set P's name to S (LEN bytes; CUT: S is cut short) at RANK. */
static void
pend_name(struct pending *p, const char *s, size_t len, bool cut, int rank)
{
	if (rank < p->name_rank)
		return;
	if (len >= NAME_CAP) {
		len = NAME_CAP - 1;
		cut = true;
	}
	memcpy(p->name, s, len);
	p->name[len] = '\0';
	p->name_len = len;
	p->name_long = cut;
	p->name_rank = rank;
}

/* One whole pax record of V: what it says of the next member, or of the
 * volume (GNU.volume.*). */
static void
pax_record(struct xtr_volumes *v)
{
	struct pax *x = &v->pax;
	uint64_t n = 0;
	bool num = dec_num(x->val, x->vlen, &n) == 0;

	if (v->global) {
		if (strcmp(x->key, "GNU.volume.filename") == 0) {
			v->cont.set = v->cont.name_set = true;
			v->cont.name_long = x->long_val;
			memcpy(v->cont.name, x->val, x->vlen);
			v->cont.name[x->vlen] = '\0';
		} else if (strcmp(x->key, "GNU.volume.size") == 0 && num) {
			v->cont.size = n;
			v->cont.size_set = true;
		} else if (strcmp(x->key, "GNU.volume.offset") == 0 && num) {
			v->cont.offset = n;
			v->cont.offset_set = true;
		}
		return;
	}
	if (strcmp(x->key, "path") == 0)
		pend_name(&v->next, x->val, x->vlen, x->long_val, 1);
	else if (strcmp(x->key, "GNU.sparse.name") == 0)
		pend_name(&v->next, x->val, x->vlen, x->long_val, 2);
	else if (strcmp(x->key, "size") == 0 && num) {
		v->next.size = n;
		v->next.size_set = true;
	} else if ((strcmp(x->key, "GNU.sparse.size") == 0 ||
	    strcmp(x->key, "GNU.sparse.realsize") == 0) && num) {
		v->next.total = n;
		v->next.total_set = true;
	}
}

/* Ready X for the next record. */
static void
pax_reset(struct pax *x)
{
	x->len = x->at = 0;
	x->phase = 0;
	x->klen = x->vlen = 0;
	x->long_key = x->long_val = false;
}

/* Pass N bytes S of pax records ("LEN KEY=VALUE\n", LEN counting the
 * whole record); a malformed record ends the reading of the rest. */
static void
pax_bytes(struct xtr_volumes *v, const unsigned char *s, size_t n)
{
	struct pax *x = &v->pax;
	size_t i;
	char c;

	for (i = 0; i < n && x->phase != 3; i++) {
		c = (char)s[i];
		x->at++;
		if (x->phase == 0 && c >= '0' && c <= '9' &&
		    x->len < UINT32_MAX)
			x->len = x->len * 10 + (uint64_t)(c - '0');
		else if (x->phase == 0)
			x->phase = c == ' ' && x->len > x->at ? 1 : 3;
		else if (x->phase == 1 && c == '=')
			x->phase = 2;
		else if (x->phase == 1 && x->klen < KEY_CAP - 1)
			x->key[x->klen++] = c;
		else if (x->phase == 1)
			x->long_key = true;
		else if (x->at < x->len && x->vlen < NAME_CAP - 1)
			x->val[x->vlen++] = c;
		else if (x->at < x->len)
			x->long_val = true;
		if ((x->phase == 1 || x->phase == 2) && x->at == x->len) {
			if (x->phase != 2 || c != '\n') {
				x->phase = 3;
				break;
			}
			x->key[x->long_key ? 0 : x->klen] = '\0';
			x->val[x->vlen] = '\0';
			pax_record(v);
			pax_reset(x);
		}
	}
}

/* The name of the ustar or GNU header H, into V's NAME. */
static void
header_name(struct xtr_volumes *v, const unsigned char *h)
{
	char name[101], prefix[156];

	memcpy(name, h, 100);
	name[100] = '\0';
	prefix[0] = '\0';
	if (memcmp(h + 257, "ustar\0", 6) == 0) {
		memcpy(prefix, h + 345, 155);
		prefix[155] = '\0';
	}
	if (prefix[0] != '\0')
		(void)snprintf(v->name, sizeof(v->name), "%s/%s", prefix,
		    name);
	else
		(void)snprintf(v->name, sizeof(v->name), "%s", name);
	v->name_long = false;
}

/* Start passing LEFT bytes of BODY. */
static void
begin_body(struct xtr_volumes *v, enum body body, uint64_t left)
{
	v->body = left > 0 ? body : B_NONE;
	v->left = left;
	if (body == B_PAX)
		pax_reset(&v->pax);
}

/*
 * The header block H: what follows it.  Return: 0, or -1 with A's error
 * set (volume 1 that begins with the rest of a member).
 */
static int
walk_header(struct archive *a, struct xtr_volumes *v, const unsigned char *h)
{
	unsigned char type = h[156];
	uint64_t size, n;

	if (all_zero(h)) {
		v->at_end = true;
		return 0;
	}
	v->at_end = false;
	if (!xtr_tar_header_ok(h) || xtr_tar_number(h + 124, 12, &size) != 0) {
		v->lost = true;	/* libarchive says what it makes of it */
		return 0;
	}
	switch (type) {
	case 'x': case 'X': case 'g':
		v->global = type == 'g';
		if (v->global)
			memset(&v->cont, 0, sizeof(v->cont));
		begin_body(v, B_PAX, size);
		return 0;
	case 'L':
		pend_name(&v->next, "", 0, false, 1);
		v->next.name_done = false;
		begin_body(v, B_LONGNAME, size);
		return 0;
	case 'K': case 'V': case 'A': case 'N':
		begin_body(v, B_OTHER, size);
		return 0;
	case 'M':
		if (v->cur == 0 && !v->member_seen) {
			char name[101];

			memcpy(name, h, 100);
			name[100] = '\0';
			(void)fail(a, v, EINVAL, "volume 1 begins with the "
			    "rest of '%s', from an earlier volume: the volumes "
			    "are out of order, or the first is missing", name);
			return -1;
		}
		break;
	default:
		break;
	}
	v->member_seen = true;
	/* The member: its name, size and whole size as GNU tar counts. */
	if (v->next.name_rank > 0) {
		memcpy(v->name, v->next.name, sizeof(v->name));
		v->name_long = v->next.name_long;
	} else {
		header_name(v, h);
	}
	if (v->next.size_set)
		size = v->next.size;
	v->total = size;
	if (v->next.total_set)
		v->total = v->next.total;
	else if (type == 'S' && xtr_tar_number(h + 483, 12, &n) == 0)
		v->total = n;
	memset(&v->next, 0, sizeof(v->next));
	if (type == '5')
		size = 0;	/* as GNU tar skips a directory */
	if (type == 'S' && h[482] != 0) {
		v->file_size = size;
		v->body = B_SPARSE_EXT;
		v->left = 0;
		return 0;
	}
	begin_body(v, B_FILE, size);
	return 0;
}

/* Follow one block B of the stream.  Return: 0, or -1 with A's error. */
static int
walk(struct archive *a, struct xtr_volumes *v, const unsigned char *b)
{
	uint64_t n;

	if (v->lost)
		return 0;
	if (v->body == B_SPARSE_EXT) {
		if (b[504] == 0)
			begin_body(v, B_FILE, v->file_size);
		return 0;
	}
	if (v->body == B_NONE)
		return walk_header(a, v, b);
	n = v->left < BLK ? v->left : BLK;
	if (v->body == B_PAX) {
		pax_bytes(v, b, (size_t)n);
	} else if (v->body == B_LONGNAME && !v->next.name_done) {
		struct pending *p = &v->next;
		size_t len = strnlen((const char *)b, (size_t)n);

		p->name_done = len < n;
		if (p->name_len + len >= NAME_CAP) {
			p->name_long = true;
			len = NAME_CAP - 1 - p->name_len;
		}
		memcpy(p->name + p->name_len, b, len);
		p->name_len += len;
		p->name[p->name_len] = '\0';
	}
	v->left -= n;
	if (v->left == 0) {
		if (v->body == B_PAX && v->cur == 0 && !v->member_seen &&
		    v->global && v->cont.name_set) {
			(void)fail(a, v, EINVAL, "volume 1 begins with the "
			    "rest of '%s', from an earlier volume: the volumes "
			    "are out of order, or the first is missing",
			    v->cont.name);
			return -1;
		}
		v->body = B_NONE;
	}
	return 0;
}

/* A read of volume V->cur failed with R (-errno).  Return: -1. */
static int
read_failed(struct archive *a, struct xtr_volumes *v, ssize_t r)
{
	if (r == -ECANCELED || r == -ETIMEDOUT)
		return fail(a, v, (int)-r, "%s", XTR_STOP_TEXT(-r));
	return fail(a, v, (int)-r, "volume %zu: %s", v->cur + 1,
	    strerror((int)-r));
}

/*
 * Read BLK bytes of volume V->cur into B.  Return: BLK, 0 at its end, or
 * -1 with A's error set (a read error, or a partial block).
 */
static int
read_block(struct archive *a, struct xtr_volumes *v, unsigned char *b)
{
	size_t got = 0;
	ssize_t r;

	while (got < BLK) {
		r = xtr_read_cancellable(v->fds[v->cur], b + got, BLK - got,
		    v->stop);
		if (r < 0)
			return read_failed(a, v, r);
		if (r == 0)
			break;
		got += (size_t)r;
	}
	if (got != 0 && got != BLK) {
		(void)fail(a, v, EINVAL, "volume %zu ends inside a "
		    "512-byte block: it is no tar volume, or was cut",
		    v->cur + 1);
		return -1;
	}
	return (int)got;
}

/*
 * Read and drop a header block B and the data its size gives (parsed as
 * pax records if PAX).  Return: 0, or -1 with A's error set.
 */
static int
drop_member(struct archive *a, struct xtr_volumes *v, unsigned char *b,
    bool pax)
{
	struct pax saved;
	bool global = v->global;
	uint64_t size, n;
	int r;

	if (xtr_tar_number(b + 124, 12, &size) != 0)
		size = 0;
	v->dropped += BLK;
	/* The walk may be inside an 'x' header's records cut at the end of
	 * the volume before (multiv07): they go on after this head. */
	saved = v->pax;
	if (pax) {
		v->global = true;
		memset(&v->cont, 0, sizeof(v->cont));
		pax_reset(&v->pax);
	}
	while (size > 0) {
		r = read_block(a, v, b);
		if (r <= 0) {
			if (r == 0)
				(void)fail(a, v, EINVAL, "volume %zu ends "
				    "inside its own head", v->cur + 1);
			return -1;
		}
		n = size < BLK ? size : BLK;
		if (pax)
			pax_bytes(v, b, (size_t)n);
		size -= n;
		v->dropped += BLK;
	}
	v->pax = saved;
	v->global = global;
	return 0;
}

/*
 * The head of volume V->cur (a later one): its label, and the
 * continuation, taken out; the first block that stays is put at BUF.
 * Return: 0, or -1 with A's error set.
 */
static int
read_head(struct archive *a, struct xtr_volumes *v)
{
	unsigned char *b = v->buf;
	int r;

	memset(&v->cont, 0, sizeof(v->cont));
	r = read_block(a, v, b);
	if (r > 0 && xtr_tar_header_ok(b) && b[156] == 'V') {
		v->dropped += BLK;
		r = read_block(a, v, b);
	}
	if (r < 0)
		return -1;
	if (r == 0) {
		(void)fail(a, v, EINVAL, "volume %zu is empty", v->cur + 1);
		return -1;
	}
	/* Zeros: the end of an archive that filled the volume before.
	 * Data where a member was cut: check_cont() says it is not its
	 * continuation, as GNU tar does. */
	if (!xtr_tar_header_ok(b) && !all_zero(b) && v->body == B_NONE) {
		(void)fail(a, v, EINVAL, "volume %zu does not look like a "
		    "tar volume (of an uncompressed archive)", v->cur + 1);
		return -1;
	}
	if (b[156] == 'M') {
		v->cont.set = v->cont.name_set = v->cont.gnu = true;
		memcpy(v->cont.name, b, 100);
		v->cont.name[100] = '\0';
		v->cont.size_set = xtr_tar_number(b + 124, 12, &v->cont.size) == 0;
		v->cont.offset_set = xtr_tar_number(b + 369, 12,
		    &v->cont.offset) == 0;
		v->dropped += BLK;
		r = read_block(a, v, b);
	} else if (b[156] == 'g') {
		/* As GNU tar: the global header, then the part's headers
		 * ('x' and ustar) if they check (multiv07: a volume may
		 * begin inside an extended header's records). */
		if (drop_member(a, v, b, true) < 0)
			return -1;
		r = read_block(a, v, b);
		if (r > 0 && xtr_tar_header_ok(b) && (b[156] == 'x' || b[156] == 'X')) {
			if (drop_member(a, v, b, false) < 0)
				return -1;
			r = read_block(a, v, b);
		}
		if (r > 0 && xtr_tar_header_ok(b)) {
			v->dropped += BLK;
			r = read_block(a, v, b);
		}
	}
	if (r < 0)
		return -1;
	v->part = (size_t)r;
	return 0;
}

/* Note KIND on V's member (xtr_volumes_note()).  Return: 0, or -1 with
 * A's error set (no memory). */
static int
note(struct archive *a, struct xtr_volumes *v, int kind)
{
	int r = xtr_notes_add(&v->notes, kind, v->name);

	return r < 0 ? fail(a, v, -r, "%s", strerror(-r)) : 0;
}

/*
 * The continuation of V->cur against the member cut (GNU tar's checks).
 * GNU tar skips a volume that does not continue this member (another
 * one's continuation, or none), or continues it with another size or
 * from another offset, with a warning, and asks for the next one: so
 * here too when SKIP (a volume follows it).  Return: 0, 1 to skip the
 * volume (noted), or -1 with A's error set.
 */
static int
check_cont(struct archive *a, struct xtr_volumes *v, bool skip)
{
	const struct cont *c = &v->cont;
	size_t no = v->cur + 1;
	uint64_t s = c->size + c->offset;

	if (!c->set || !c->name_set) {
		if (skip)
			return note(a, v, XTR_NOTE_NOT_CONTINUED) < 0 ? -1 : 1;
		return fail(a, v, EINVAL, "'%s' is not continued on volume "
		    "%zu (it begins with no continuation): the volumes are "
		    "out of order, or one is missing", v->name, no);
	}
	if (!v->name_long && !c->name_long && strcmp(c->name, v->name) != 0) {
		if (!(c->gnu && strlen(v->name) >= 100 &&
		    strncmp(c->name, v->name, 100) == 0)) {
			if (skip)
				return note(a, v, XTR_NOTE_NOT_CONTINUED) < 0 ?
				    -1 : 1;
			(void)fail(a, v, EINVAL, "'%s' is not continued on "
			    "volume %zu (it continues '%s'): the volumes are "
			    "out of order, or one is missing", v->name, no,
			    c->name);
			return -1;
		}
		/* GNU tar takes it too, and warns (xtr_volumes_note()). */
		if (note(a, v, XTR_NOTE_TRUNCATED) < 0)
			return -1;
	}
	if (!c->size_set || !c->offset_set || s < c->offset ||
	    s != v->total) {
		if (skip)
			return note(a, v, XTR_NOTE_WRONG_SIZE) < 0 ? -1 : 1;
		(void)fail(a, v, EINVAL, "'%s' is the wrong size on volume "
		    "%zu (%" PRIu64 " != %" PRIu64 " + %" PRIu64 ")", c->name,
		    no, v->total, c->size, c->offset);
		return -1;
	}
	if (v->total - v->left != c->offset) {
		if (skip)
			return note(a, v, XTR_NOTE_OUT_OF_SEQUENCE) < 0 ? -1 : 1;
		(void)fail(a, v, EINVAL, "volume %zu is out of sequence "
		    "(%" PRIu64 " - %" PRIu64 " != %" PRIu64 ")", no,
		    v->total, v->left, c->offset);
		return -1;
	}
	return 0;
}

/*
 * Volume V->cur is skipped: pass what is left of it (a pipe is read to
 * its end, so that its writer never dies of SIGPIPE; a file is only
 * sought past).  Return: 0, or -1 with A's error set.
 */
static int
skip_rest(struct archive *a, struct xtr_volumes *v)
{
	int fd = v->fds[v->cur];
	ssize_t r;

	v->part = 0;
	if (lseek(fd, 0, SEEK_END) >= 0)
		return 0;
	do {
		r = xtr_read_cancellable(fd, v->buf, sizeof(v->buf),
		    v->stop);
	} while (r > 0);
	return r < 0 ? read_failed(a, v, r) : 0;
}

/*
 * Volume V->cur has ended whole: on to the next, past the volumes that
 * are out of sequence (check_cont()).  Return: 0, or -1 with A's error
 * set.
 */
static int
next_volume(struct archive *a, struct xtr_volumes *v)
{
	bool cut = v->body != B_NONE && !v->lost;
	uint64_t dropped = v->dropped;
	int r;

	if (v->lost) {
		(void)fail(a, v, EINVAL, "volume %zu cannot be joined: a "
		    "header before the end of volume %zu does not check",
		    v->cur + 2, v->cur + 1);
		return -1;
	}
	do {
		v->cur++;
		if (v->fds[v->cur] < 0)
			return fail(a, v, -v->fds[v->cur], "volume %zu cannot "
			    "be read: it could not be opened (%s)", v->cur + 1,
			    strerror(-v->fds[v->cur]));
		/* A volume skipped counts for nothing (GNU tar's -R). */
		v->dropped = dropped;
		if (read_head(a, v) < 0)
			return -1;
		/* GNU tar checks a member's data only; a cut inside headers
		 * (a long name, pax records) is taken as it comes. */
		r = cut && v->body == B_FILE ?
		    check_cont(a, v, v->cur + 1 < v->n) : 0;
		if (r < 0)
			return -1;
		if (r > 0 && skip_rest(a, v) < 0)
			return -1;
	} while (r > 0);
	v->spans[v->nspans].joined = v->joined;
	v->spans[v->nspans++].dropped = v->dropped;
	/*
	 * Between members GNU tar reads past whatever continuation the
	 * volume has (it writes stale ones), but the next block must then
	 * be a header: data there is a volume out of sequence.
	 */
	if (!cut && v->cont.set && v->cont.offset_set &&
	    v->cont.offset != 0 && v->part == BLK && !xtr_tar_header_ok(v->buf) &&
	    !all_zero(v->buf))
		return fail(a, v, EINVAL, "volume %zu is out of sequence: it "
		    "continues '%s' from byte %" PRIu64 ", but volume %zu "
		    "ended between members", v->cur + 1, v->cont.name,
		    v->cont.offset, v->cur);
	return 0;
}

/* The last volume has ended: is the archive whole?  Return: 0, or -1
 * with A's error set. */
static int
last_volume(struct archive *a, struct xtr_volumes *v)
{
	if (v->lost || (v->body == B_NONE && v->at_end))
		return 0;
	if (v->body == B_FILE)
		(void)fail(a, v, EINVAL, "'%s' continues past volume %zu, "
		    "the last one given: no more volumes", v->name, v->n);
	else
		(void)fail(a, v, EINVAL, "the archive continues past "
		    "volume %zu, the last one given: no more volumes", v->n);
	return -1;
}

/* Does B (N bytes, the first of volume 1) begin as a compressed
 * stream does (gzip, bzip2, xz, zstd, lz4, lzip, compress)? */
static bool
compressed(const unsigned char *b, size_t n)
{
	static const struct {
		const char *magic;
		size_t len;
	} m[] = {
		{ "\x1f\x8b\x08", 3 }, { "BZh", 3 }, { "\xfd" "7zXZ", 5 },
		{ "\x28\xb5\x2f\xfd", 4 }, { "\x04\x22\x4d\x18", 4 },
		{ "LZIP\x01", 5 }, { "\x1f\x9d", 2 },
	};
	size_t i;

	/* A tar header that checks is a tar header, whatever its name. */
	if (n >= BLK && xtr_tar_header_ok(b))
		return false;
	for (i = 0; i < sizeof(m) / sizeof(m[0]); i++)
		if (n >= m[i].len && memcmp(b, m[i].magic, m[i].len) == 0)
			return true;
	return false;
}

/* libarchive's read callback: whole blocks of the joined stream. */
static la_ssize_t
vol_read(struct archive *a, void *arg, const void **out)
{
	struct xtr_volumes *v = arg;
	size_t whole, i;
	ssize_t r;

	if (v->rest > 0)	/* libarchive is done with the last bytes */
		memmove(v->buf, v->buf + v->given, v->rest);
	v->part = v->rest;
	v->given = v->rest = 0;
	for (;;) {
		r = 0;
		if (v->part < sizeof(v->buf)) {
			r = xtr_read_cancellable(v->fds[v->cur],
			    v->buf + v->part, sizeof(v->buf) - v->part,
			    v->stop);
			if (r < 0) {
				return read_failed(a, v, r);
			}
		}
		if (v->joined == 0 && v->cur == 0 && v->part == 0 && r > 0 &&
		    compressed(v->buf, (size_t)r))
			return fail(a, v, EINVAL, "volume 1 is compressed: GNU "
			    "tar writes no compressed multi-volume archive, "
			    "and reads none");
		whole = (v->part + (size_t)r) / BLK * BLK;
		if (r > 0 && whole == 0) {
			v->part += (size_t)r;
			continue;
		}
		if (whole > 0) {
			for (i = 0; i < whole; i += BLK)
				if (walk(a, v, v->buf + i) < 0)
					return -1;
			v->given = whole;
			v->rest = v->part + (size_t)r - whole;
			v->joined += whole;
			/* The first volume's label is at its head (label.c). */
			xtr_head_add(v->tap, v->buf, whole);
			*out = v->buf;
			return (la_ssize_t)whole;
		}
		/* The end of this volume. */
		if (v->joined == 0 && v->part == 0) {
			(void)fail(a, v, EINVAL, "volume 1 is empty");
			return -1;
		}
		if (v->part > 0) {
			if (v->cur + 1 < v->n) {
				(void)fail(a, v, EINVAL, "volume %zu ends "
				    "inside a 512-byte block", v->cur + 1);
				return -1;
			}
			/* libarchive says what it makes of a short end. */
			v->given = v->part;
			v->part = 0;
			*out = v->buf;
			return (la_ssize_t)v->given;
		}
		if (v->cur + 1 >= v->n)
			return last_volume(a, v) < 0 ? -1 : 0;
		if (next_volume(a, v) < 0)
			return -1;
	}
}

/* libarchive's close callback: the joiner stays, for its error and
 * offsets, until xtr_volumes_free(). */
static int
vol_close(struct archive *a, void *arg)
{
	struct xtr_volumes *v = arg;

	(void)a;
	if (v->own >= 0)
		(void)close(v->own);
	v->own = -1;
	return ARCHIVE_OK;
}

/* see volumes.h */
void
xtr_volumes_free(struct xtr_volumes *v)
{
	if (v == NULL)
		return;
	if (v->own >= 0)
		(void)close(v->own);
	xtr_notes_free(&v->notes);
	free(v->spans);
	free(v->fds);
	free(v);
}

/* see volumes.h */
int
xtr_volumes_open(struct archive *a, const int *fds, size_t n, int own,
    const struct xtr_stop *stop, struct xtr_head *tap,
    struct xtr_volumes **out)
{
	struct xtr_volumes *v;

	*out = NULL;
	v = calloc(1, sizeof(*v));
	if (v != NULL) {
		v->spans = calloc(n, sizeof(v->spans[0]));
		v->fds = calloc(n, sizeof(v->fds[0]));
	}
	if (v == NULL || v->spans == NULL || v->fds == NULL) {
		if (own >= 0)
			(void)close(own);
		if (v != NULL) {
			free(v->spans);
			free(v->fds);
		}
		free(v);
		archive_set_error(a, ENOMEM, "%s", strerror(ENOMEM));
		return ARCHIVE_FATAL;
	}
	memcpy(v->fds, fds, n * sizeof(fds[0]));
	v->n = n;
	v->own = own;
	v->stop = stop;
	v->tap = tap;
	*out = v;
	/* libarchive calls vol_close() whether or not the open works;
	 * V is the caller's to free. */
	return archive_read_open(a, v, NULL, vol_read, vol_close);
}

/* see volumes.h */
uint64_t
xtr_volumes_physical(const struct xtr_volumes *v, uint64_t joined)
{
	size_t lo = 0, hi, mid;

	if (v == NULL || v->nspans == 0 || joined < v->spans[0].joined)
		return joined;
	hi = v->nspans;		/* the last span at or before JOINED */
	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (v->spans[mid].joined <= joined)
			lo = mid;
		else
			hi = mid;
	}
	return joined + v->spans[lo].dropped;
}

/* see volumes.h */
const char *
xtr_volumes_error(const struct xtr_volumes *v, int *error)
{
	if (v == NULL || v->err[0] == '\0')
		return NULL;
	if (error != NULL)
		*error = v->err_no > 0 ? v->err_no : EIO;
	return v->err;
}

/* see volumes.h */
const char *
xtr_volumes_note(struct xtr_volumes *v, int *kind)
{
	return v != NULL ? xtr_notes_take(&v->notes, kind) : NULL;
}

/* see volumes.h */
int
xtr_volumes_fd(const struct xtr_volumes *v)
{
	return v != NULL && v->fds[v->cur] >= 0 ? v->fds[v->cur] : -1;
}
