/*
 * label.c -- GNU tar's volume label: the first header of a tar that GNU
 * tar made with -V.  libarchive skips it (a 'V' header, or the
 * GNU.volume.label record of a pax global header), so the reader keeps
 * the first XTR_HEAD_MAX bytes of the decompressed archive as they go by
 * (reader.c, decode.c; child.c sends them over), and the label is read
 * here from those bytes: a pure parse of a bounded buffer.  The engine
 * then tells hooks.label and checks pfx_options.volume_label (-V), before
 * the first entry.  With PFX_OPT_LABEL_ONLY (--test-label) the run ends
 * there, the members matched against the label.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "extract.h"

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

/* see extract.h */
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

/* see extract.h */
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

/*
 * The archive's label into *L.  Return: 1 found, 0 none, -1 when its
 * first bytes are not seen (decompressed by libarchive).
 */
static int
find_label(struct xtr *x, struct xtr_label *l)
{
	const struct xtr_head *h = xtr_source_head(x);

	if (h != NULL && h->unseen)
		return -1;
	return h != NULL && xtr_label_parse(h->buf, h->len, l) == 1;
}

/* Tell hooks.label of the label L. */
static void
tell_label(struct xtr *x, const struct xtr_label *l)
{
	const struct pfx_options *opt = x->opt;
	struct pfx_entry e;

	if (opt->hooks.label == NULL)
		return;
	memset(&e, 0, sizeof(e));
	e.name = l->name;
	e.type = PFX_TYPE_OTHER;
	e.mode = (mode_t)(l->mode & 07777);
	e.size = l->size;
	e.mtime = l->mtime;
	e.uid = l->uid;
	e.gid = l->gid;
	e.uname = l->uname[0] != '\0' ? l->uname : NULL;
	e.gname = l->gname[0] != '\0' ? l->gname : NULL;
	e.reason = "none";
	e.status = PFX_ENTRY_LISTED;
	/* A record of a global header is no header of its own. */
	e.offset = l->pax ? -1 : 0;
	opt->hooks.label(opt->hooks.arg, &e);
}

/* -V: fail X unless the label L (FOUND: there is one) matches. */
static void
check_volume(struct xtr *x, const struct xtr_label *l, int found)
{
	const char *pattern = x->opt->volume_label;

	if (pattern == NULL)
		return;
	if (found < 0)
		xtr_fail(x, EINVAL, "%s", xtr_label_unseen(x->opt));
	else if (found == 0)
		xtr_fail(x, EINVAL, "Archive not labeled to match '%s'",
		    pattern);
	/* GNU tar: fnmatch(PATTERN, LABEL, 0); xtr_glob's cost is bound. */
	else if (!xtr_glob(pattern, l->name, XTR_GLOB_WHOLE, NULL))
		xtr_fail(x, EINVAL, "Volume '%s' does not match '%s'", l->name,
		    pattern);
}

/* see extract.h */
void
xtr_label_first(struct xtr *x)
{
	const struct pfx_options *opt = x->opt;
	struct xtr_label l;
	int found;

	if (x->label_done)
		return;
	x->label_done = true;
	if (opt->hooks.label == NULL && opt->volume_label == NULL)
		return;
	found = find_label(x, &l);
	if (found == 1)
		tell_label(x, &l);
	check_volume(x, &l, found);
}

/*
 * GNU tar's drop_volume_label_suffix(): the length of LABEL without a
 * trailing " Volume " and digits, or 0 when it has none.
 */
static size_t
unsuffixed_len(const char *label)
{
	static const char text[] = " Volume ";
	size_t len = strlen(label), n = sizeof(text) - 1, p;

	if (len == 0)
		return 0;
	p = len - 1;
	while (p > 0 && label[p] >= '0' && label[p] <= '9')
		p--;
	/* As GNU tar: P then points at the text's last byte, a space. */
	if (p == 0 || p < n)
		return 0;
	p -= n - 1;
	return memcmp(label + p, text, n) == 0 ? p : 0;
}

/* Does a member of OPT match the label NAME (with -M, also without its
 * " Volume N")? */
static bool
label_selected(const struct pfx_options *opt, char *name)
{
	size_t len;

	if (xtr_member_matches(opt, name))
		return true;
	if ((opt->flags & PFX_OPT_MULTI_VOLUME) == 0)
		return false;
	len = unsuffixed_len(name);
	if (len == 0)
		return false;
	name[len] = '\0';
	return xtr_member_matches(opt, name);
}

/* see extract.h */
bool
xtr_label_only(struct xtr *x, bool read_ok)
{
	const struct pfx_options *opt = x->opt;
	struct xtr_label l;
	int found;

	x->label_done = true;
	found = find_label(x, &l);
	if (found < 0) {
		xtr_fail(x, EINVAL, "%s", xtr_label_unseen(opt));
		return true;
	}
	if (found == 0 && !read_ok)
		return false;
	if (found == 1)
		tell_label(x, &l);
	check_volume(x, &l, found);
	if (!x->fatal && opt->nmembers > 0 &&
	    (found == 0 || !label_selected(opt, l.name)))
		x->res->stats.unmatched = 1;
	return true;
}
