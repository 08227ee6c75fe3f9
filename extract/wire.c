/*
 * wire.c -- encode and check the decoder process's messages (wire.h).
 *
 * Fields are copied with memcpy, never read through a cast of the
 * message: a body has no alignment, and a boolean or an enum is never
 * loaded from bytes the child chose before it is checked.
 */
#include <errno.h>
#include <string.h>

#include "wire.h"

/* The fixed part of a HEADER body. */
#define HEADER_FIXED (4 * 4 + 11 * 8 + 4 * WIRE_NSTR + 4)

#define CONFINED_BODY (WIRE_CONFINED_LEN - WIRE_HEAD)

/* The largest errno a child may name (the kernel's own bound). */
#define ERRNO_MAX 4095

#define S_TYPE_BITS 0170000u

/* A cursor over bytes being written or read. */
struct cur {
	unsigned char *w;
	const unsigned char *r;
	size_t left;		/* reading: bytes still unread */
};

static void
put(struct cur *c, const void *p, size_t n)
{
	if (n > 0)
		memcpy(c->w, p, n);
	c->w += n;
}

static void
put_u32(struct cur *c, uint32_t v)
{
	put(c, &v, 4);
}

static void
put_i64(struct cur *c, int64_t v)
{
	put(c, &v, 8);
}

/* Read N bytes into P.  Return: 0, or -1 when fewer are left. */
static int
get(struct cur *c, void *p, size_t n)
{
	if (n > c->left)
		return -1;
	if (n > 0)
		memcpy(p, c->r, n);
	c->r += n;
	c->left -= n;
	return 0;
}

static void
put_head(unsigned char *out, int type, size_t body)
{
	uint32_t n = (uint32_t)body;

	memcpy(out, &n, 4);
	out[4] = (unsigned char)type;
}

/* see wire.h */
long
wire_body_len(const unsigned char head[WIRE_HEAD], int *type)
{
	uint32_t n;

	memcpy(&n, head, 4);
	*type = head[4];
	return n > WIRE_MSG_MAX ? -1 : (long)n;
}

/* see wire.h */
size_t
wire_put_confined(unsigned char *out, int r,
    const struct pfx_sandbox_info *info)
{
	struct cur c = { out + WIRE_HEAD, NULL, 0 };
	unsigned char b[5] = { info->fs, info->net, info->scope,
		info->no_new_privs, info->seccomp };

	put_head(out, WIRE_CONFINED, CONFINED_BODY);
	put_u32(&c, (uint32_t)r);
	put_u32(&c, (uint32_t)info->landlock_abi);
	put(&c, b, sizeof(b));
	put(&c, info->text, sizeof(info->text));
	return WIRE_HEAD + CONFINED_BODY;
}

/* Is every byte of S (N bytes) printable ASCII? */
static bool
printable(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] < 0x20 || s[i] > 0x7e)
			return false;
	return true;
}

/* see wire.h */
int
wire_get_confined(const unsigned char *body, size_t len, int *r,
    struct pfx_sandbox_info *info)
{
	struct cur c = { NULL, body, len };
	char text[sizeof(info->text)];
	unsigned char b[5];
	int32_t res, abi;
	size_t i, n;

	/*
	 * SECURITY: *INFO is the caller's result (pfx_result.sandbox); it is
	 * written only once the message is found good, so that a rejected
	 * one leaves it zeroed, not holding the child's unterminated text.
	 */
	memset(info, 0, sizeof(*info));
	if (len != CONFINED_BODY)
		return -1;
	(void)get(&c, &res, 4);
	(void)get(&c, &abi, 4);
	(void)get(&c, b, sizeof(b));
	(void)get(&c, text, sizeof(text));
	if (res > 0 || res < -ERRNO_MAX || abi < 0 || abi > 255)
		return -1;
	for (i = 0; i < sizeof(b); i++)
		if (b[i] > 1)
			return -1;
	n = strnlen(text, sizeof(text));
	if (n == sizeof(text) || !printable(text, n))
		return -1;
	/* The text's tail stays ours (zero), not the child's. */
	memcpy(info->text, text, n);
	*r = res;
	info->landlock_abi = abi;
	info->fs = b[0] == 1;
	info->net = b[1] == 1;
	info->scope = b[2] == 1;
	info->no_new_privs = b[3] == 1;
	info->seccomp = b[4] == 1;
	return 0;
}

/* see wire.h */
void
wire_set_str(struct wire_header *h, enum wire_str i, const char *s)
{
	h->str[i] = s;
	h->len[i] = s != NULL ? (uint32_t)strnlen(s, WIRE_MSG_MAX + 1) : 0;
}

/* see wire.h */
size_t
wire_put_header(unsigned char *out, size_t cap, const struct wire_header *h,
    const struct wire_xattr *xattrs)
{
	struct cur c = { out + WIRE_HEAD, NULL, 0 };
	size_t body = HEADER_FIXED, i;

	for (i = 0; i < WIRE_NSTR; i++)
		if (h->str[i] != NULL)
			body += h->len[i];
	for (i = 0; i < h->nxattr; i++) {
		if (xattrs[i].name_len > WIRE_MSG_MAX ||
		    xattrs[i].value_len > WIRE_MSG_MAX)
			return 0;
		body += 8 + xattrs[i].name_len + xattrs[i].value_len;
		if (body > WIRE_MSG_MAX)
			return 0;
	}
	if (body > WIRE_MSG_MAX || body > cap - WIRE_HEAD || cap < WIRE_HEAD)
		return 0;
	put_head(out, WIRE_HEADER, body);
	put_u32(&c, (uint32_t)h->format);
	put_u32(&c, h->filetype);
	put_u32(&c, h->perm);
	put_u32(&c, h->flags);
	put_i64(&c, h->size);
	put_i64(&c, h->mtime);
	put_i64(&c, h->mtime_nsec);
	put_i64(&c, h->atime);
	put_i64(&c, h->atime_nsec);
	put_i64(&c, h->uid);
	put_i64(&c, h->gid);
	put_i64(&c, (int64_t)h->raw);
	put_i64(&c, h->devmajor);
	put_i64(&c, h->devminor);
	put_i64(&c, h->pos);
	for (i = 0; i < WIRE_NSTR; i++)
		put_u32(&c, h->str[i] != NULL ? h->len[i] : UINT32_MAX);
	put_u32(&c, h->nxattr);
	for (i = 0; i < WIRE_NSTR; i++)
		if (h->str[i] != NULL)
			put(&c, h->str[i], h->len[i]);
	for (i = 0; i < h->nxattr; i++) {
		put_u32(&c, (uint32_t)xattrs[i].name_len);
		put_u32(&c, (uint32_t)xattrs[i].value_len);
		put(&c, xattrs[i].name, xattrs[i].name_len);
		put(&c, xattrs[i].value, xattrs[i].value_len);
	}
	return WIRE_HEAD + body;
}

/* Check the xattr records of H: count, lengths, names.  Return: 0 or -1. */
static int
check_xattrs(const struct wire_header *h)
{
	struct cur c = { NULL, h->xattrs, h->xattrs_len };
	uint32_t i, n, v;

	for (i = 0; i < h->nxattr; i++) {
		if (get(&c, &n, 4) < 0 || get(&c, &v, 4) < 0)
			return -1;
		if (n == 0 || n > c.left || v > c.left - n ||
		    memchr(c.r, '\0', n) != NULL)
			return -1;
		c.r += n + v;
		c.left -= (size_t)n + v;
	}
	return c.left == 0 ? 0 : -1;
}

/* Are H's device numbers 32-bit, and 0 unless H is a device? */
static bool
device_numbers_ok(const struct wire_header *h)
{
	bool dev = h->filetype == 0020000u || h->filetype == 0060000u;

	if (h->devmajor < 0 || h->devmajor > UINT32_MAX ||
	    h->devminor < 0 || h->devminor > UINT32_MAX)
		return false;
	return dev || (h->devmajor == 0 && h->devminor == 0);
}

/* see wire.h */
int
wire_get_header(const unsigned char *body, size_t len,
    struct wire_header *h)
{
	struct cur c = { NULL, body, len };
	int64_t raw;
	size_t i;

	memset(h, 0, sizeof(*h));
	if (get(&c, &h->format, 4) < 0 || get(&c, &h->filetype, 4) < 0 ||
	    get(&c, &h->perm, 4) < 0 || get(&c, &h->flags, 4) < 0 ||
	    get(&c, &h->size, 8) < 0 || get(&c, &h->mtime, 8) < 0 ||
	    get(&c, &h->mtime_nsec, 8) < 0 || get(&c, &h->atime, 8) < 0 ||
	    get(&c, &h->atime_nsec, 8) < 0 || get(&c, &h->uid, 8) < 0 ||
	    get(&c, &h->gid, 8) < 0 || get(&c, &raw, 8) < 0 ||
	    get(&c, &h->devmajor, 8) < 0 || get(&c, &h->devminor, 8) < 0 ||
	    get(&c, &h->pos, 8) < 0)
		return -1;
	h->raw = (uint64_t)raw;
	for (i = 0; i < WIRE_NSTR; i++)
		if (get(&c, &h->len[i], 4) < 0)
			return -1;
	if (get(&c, &h->nxattr, 4) < 0)
		return -1;
	if ((h->filetype & ~S_TYPE_BITS) != 0 || (h->perm & ~07777u) != 0 ||
	    (h->flags & ~WIRE_FLAGS) != 0 || h->size < 0 ||
	    ((h->flags & WIRE_SIZE_SET) == 0 && h->size != 0) ||
	    h->mtime_nsec < 0 || h->mtime_nsec > 999999999 ||
	    h->atime_nsec < 0 || h->atime_nsec > 999999999 ||
	    h->pos < -1 || !device_numbers_ok(h))
		return -1;
	for (i = 0; i < WIRE_NSTR; i++) {
		if (h->len[i] == UINT32_MAX) {
			h->len[i] = 0;
			continue;
		}
		/* SECURITY: a string with a NUL in it would be judged as
		 * one name and reported as another. */
		if (h->len[i] > c.left || memchr(c.r, '\0', h->len[i]) != NULL)
			return -1;
		h->str[i] = (const char *)c.r;
		c.r += h->len[i];
		c.left -= h->len[i];
	}
	h->xattrs = c.r;
	h->xattrs_len = c.left;
	return check_xattrs(h);
}

/* see wire.h */
int
wire_next_xattr(const struct wire_header *h, size_t *at,
    struct wire_xattr *x)
{
	uint32_t n, v;

	if (*at >= h->xattrs_len)
		return 0;
	/* check_xattrs() has bounded every record. */
	memcpy(&n, h->xattrs + *at, 4);
	memcpy(&v, h->xattrs + *at + 4, 4);
	x->name = (const char *)h->xattrs + *at + 8;
	x->name_len = n;
	x->value = h->xattrs + *at + 8 + n;
	x->value_len = v;
	*at += 8 + (size_t)n + v;
	return 1;
}

/* see wire.h */
size_t
wire_put_data_head(unsigned char *out, int64_t offset, uint64_t raw,
    size_t len)
{
	struct cur c = { out + WIRE_HEAD, NULL, 0 };

	put_head(out, WIRE_DATA, 16 + len);
	put_i64(&c, offset);
	put_i64(&c, (int64_t)raw);
	return WIRE_HEAD + 16;
}

/* see wire.h */
int
wire_get_data(const unsigned char *body, size_t len, struct wire_data *d)
{
	struct cur c = { NULL, body, len };
	int64_t raw;

	if (get(&c, &d->offset, 8) < 0 || get(&c, &raw, 8) < 0)
		return -1;
	d->raw = (uint64_t)raw;
	d->buf = c.r;
	d->len = c.left;
	if (d->offset < 0 || d->len > WIRE_DATA_MAX ||
	    (uint64_t)d->offset > (uint64_t)INT64_MAX - d->len)
		return -1;
	return 0;
}

/* see wire.h */
size_t
wire_put_data_ring(unsigned char *out, int64_t offset, uint64_t raw,
    uint32_t at, size_t len)
{
	struct cur c = { out + WIRE_HEAD, NULL, 0 };

	put_head(out, WIRE_DATA_RING, 24);
	put_i64(&c, offset);
	put_i64(&c, (int64_t)raw);
	put_u32(&c, at);
	put_u32(&c, (uint32_t)len);
	return WIRE_HEAD + 24;
}

/* see wire.h */
int
wire_get_data_ring(const unsigned char *body, size_t len,
    const struct wire_ring *ring, struct wire_data *d)
{
	struct cur c = { NULL, body, len };
	uint32_t n;
	int64_t raw;
	size_t pos;

	if (len != 24 || get(&c, &d->offset, 8) < 0 || get(&c, &raw, 8) < 0 ||
	    get(&c, &d->at, 4) < 0 || get(&c, &n, 4) < 0)
		return -1;
	d->raw = (uint64_t)raw;
	d->len = n;
	pos = d->at & (WIRE_RING_SIZE - 1);
	/* SECURITY: the block lies whole inside the ring. */
	if (d->offset < 0 || d->len > WIRE_DATA_MAX ||
	    d->len > WIRE_RING_SIZE - pos ||
	    (uint64_t)d->offset > (uint64_t)INT64_MAX - d->len)
		return -1;
	d->buf = ring->data + pos;
	return 0;
}

/* see wire.h */
size_t
wire_put_total(unsigned char *out, uint64_t bytes)
{
	struct cur c = { out + WIRE_HEAD, NULL, 0 };

	put_head(out, WIRE_TOTAL, 8);
	put_i64(&c, (int64_t)bytes);
	return WIRE_HEAD + 8;
}

/* see wire.h */
int
wire_get_total(const unsigned char *body, size_t len, uint64_t *bytes)
{
	int64_t n;

	if (len != 8)
		return -1;
	memcpy(&n, body, 8);
	if (n < 0)
		return -1;
	*bytes = (uint64_t)n;
	return 0;
}

/* see wire.h */
size_t
wire_put_label(unsigned char *out, const unsigned char *bytes, size_t len)
{
	if (len > WIRE_LABEL_MAX)
		len = WIRE_LABEL_MAX;
	put_head(out, WIRE_LABEL, len);
	memcpy(out + WIRE_HEAD, bytes, len);
	return WIRE_HEAD + len;
}

/* see wire.h */
int
wire_get_label(const unsigned char *body, size_t len)
{
	(void)body;
	return len > 0 && len <= WIRE_LABEL_MAX ? 0 : -1;
}

/* see wire.h */
size_t
wire_put_note(unsigned char *out, const char *name, size_t len)
{
	if (len == 0 || len > PFX_PATH_MAX)
		return 0;
	put_head(out, WIRE_NOTE, len);
	memcpy(out + WIRE_HEAD, name, len);
	return WIRE_HEAD + len;
}

/* see wire.h */
int
wire_get_note(const unsigned char *body, size_t len, char *name)
{
	if (len == 0 || len > PFX_PATH_MAX || memchr(body, '\0', len) != NULL)
		return -1;
	memcpy(name, body, len);
	name[len] = '\0';
	return 0;
}

/* Is WHY a reason a SKIP message may give? */
static bool
skip_why_ok(int why)
{
	return why == WIRE_SKIP_OTHER || why == WIRE_SKIP_OFFSET ||
	    why == WIRE_SKIP_SIZE;
}

/* see wire.h */
size_t
wire_put_skip(unsigned char *out, int why, const char *name, size_t len)
{
	if (!skip_why_ok(why) || len == 0 || len > PFX_PATH_MAX)
		return 0;
	put_head(out, WIRE_SKIP, 1 + len);
	out[WIRE_HEAD] = (unsigned char)why;
	memcpy(out + WIRE_HEAD + 1, name, len);
	return WIRE_HEAD + 1 + len;
}

/* see wire.h */
int
wire_get_skip(const unsigned char *body, size_t len, int *why, char *name)
{
	if (len < 1 || !skip_why_ok(body[0]))
		return -1;
	*why = body[0];
	return wire_get_note(body + 1, len - 1, name);
}

/* see wire.h */
size_t
wire_put_end(unsigned char *out, int type, int status, int error,
    const char *text)
{
	struct cur c = { out + WIRE_HEAD, NULL, 0 };
	size_t n = text != NULL ? strnlen(text, WIRE_TEXT_MAX) : 0;

	put_head(out, type, 8 + n);
	put_u32(&c, (uint32_t)status);
	put_u32(&c, (uint32_t)error);
	put(&c, text, n);
	return WIRE_HEAD + 8 + n;
}

/* see wire.h */
int
wire_get_end(const unsigned char *body, size_t len, struct wire_end *e,
    char *text, size_t cap)
{
	struct cur c = { NULL, body, len };
	size_t n, i;

	if (get(&c, &e->status, 4) < 0 || get(&c, &e->error, 4) < 0)
		return -1;
	if (e->status < WIRE_OK || e->status > WIRE_FATAL ||
	    e->error < 0 || e->error > ERRNO_MAX ||
	    (e->status == WIRE_OK) != (e->error == 0) ||
	    c.left > WIRE_TEXT_MAX || cap == 0)
		return -1;
	n = c.left < cap - 1 ? c.left : cap - 1;
	for (i = 0; i < n; i++) {
		char ch = (char)c.r[i];

		/* SECURITY: the text reaches a terminal and JSON; no
		 * control byte of the child's does. */
		text[i] = ch >= 0x20 && ch <= 0x7e ? ch : '?';
	}
	text[n] = '\0';
	return 0;
}
