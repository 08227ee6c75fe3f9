/*
 * labelparse.c -- a GNU tar volume label read from the archive's first
 * bytes (struct xtr_head): a pure parse of a bounded buffer, below both
 * the engine's label.c and the decoder process (child.c), which both
 * need to know whether a label can be read at all.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "extract.h"
#include "labelparse.h"
#include "tarhead.h"

#define BLOCK 512u

/* The number in the header field F of N bytes (xtr_tar_number()), or -1
 * when it is not a number or too large. */
static int64_t
field_num(const unsigned char *f, size_t n)
{
	uint64_t v;

	if (xtr_tar_number(f, n, &v) != 0 || v > (uint64_t)INT64_MAX)
		return -1;
	return (int64_t)v;
}

/* Copy the field F of at most N bytes, up to its first NUL, into OUT
 * (N + 1 bytes). */
static void
field_str(const unsigned char *f, size_t n, char *out)
{
	size_t len = 0;

	while (len < n && f[len] != '\0')
		len++;
	memcpy(out, f, len);
	out[len] = '\0';
}

/*
 * The GNU.volume.label record in the pax records P (N bytes): each is
 * "LEN KEY=VALUE\n", LEN counting the whole record.  Return: 1 with the
 * value in OUT (CAP bytes), 0 when there is none (or it holds a NUL or
 * does not fit), -1 when the records are malformed.
 */
static int
pax_label(const unsigned char *p, size_t n, char *out, size_t cap)
{
	static const char key[] = "GNU.volume.label=";
	size_t at = 0, len, i, klen = sizeof(key) - 1, vlen;
	int found = 0;

	while (at < n) {
		len = 0;
		for (i = at; i < n && p[i] >= '0' && p[i] <= '9'; i++) {
			if (len > n)
				return -1;
			len = len * 10 + (size_t)(p[i] - '0');
		}
		if (i == at || i >= n || p[i] != ' ' || len > n - at ||
		    at + len <= i + 1 || p[at + len - 1] != '\n')
			return -1;
		i++;
		if (at + len - 1 - i >= klen && memcmp(p + i, key, klen) == 0) {
			vlen = at + len - 1 - (i + klen);
			found = vlen < cap && memchr(p + i + klen, '\0', vlen) ==
			    NULL;
			if (found) {
				memcpy(out, p + i + klen, vlen);
				out[vlen] = '\0';
			}
		}
		at += len;
	}
	return found;
}

/* see labelparse.h */
int
xtr_label_parse(const unsigned char *b, size_t len, struct xtr_label *l)
{
	int64_t size;
	int r;

	memset(l, 0, sizeof(*l));
	if (len < BLOCK || !xtr_tar_header_ok(b))
		return 0;
	l->mtime = field_num(b + 136, 12);
	if (l->mtime < 0)
		l->mtime = 0;
	if (b[156] == 'g') {
		/* A pax global header: GNU tar shows its label with mode 0,
		 * owners 0/0, size 0 and this header's mtime. */
		size = field_num(b + 124, 12);
		if (size < 0 || (uint64_t)size > len - BLOCK)
			return 0;	/* beyond what was kept */
		r = pax_label(b + BLOCK, (size_t)size, l->name,
		    sizeof(l->name));
		l->pax = true;
		return r == 1;
	}
	if (b[156] != 'V')
		return 0;
	field_str(b, 100, l->name);
	l->mode = field_num(b + 100, 8);
	l->uid = field_num(b + 108, 8);
	l->gid = field_num(b + 116, 8);
	l->size = field_num(b + 124, 12);
	if (l->mode < 0 || l->uid < 0 || l->gid < 0 || l->size < 0)
		return 0;
	/* Owner names only in a ustar or GNU header, as GNU tar reads. */
	if (memcmp(b + 257, "ustar", 5) == 0) {
		field_str(b + 265, 32, l->uname);
		field_str(b + 297, 32, l->gname);
	}
	return 1;
}

/* see labelparse.h */
const char *
xtr_label_unseen(const struct pfx_options *opt)
{
	if ((opt->flags & PFX_OPT_LABEL_ONLY) != 0)
		return "cannot read the volume label: the archive is "
		    "decompressed by libarchive, whose output pfextract does "
		    "not see";
	if (opt->volume_label != NULL)
		return "cannot check the volume label: the archive is "
		    "decompressed by libarchive, whose output pfextract does "
		    "not see";
	return NULL;
}
