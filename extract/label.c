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
#include "fail.h"
#include "label.h"
#include "labelparse.h"
#include "match.h"
#include "pattern.h"
#include "source.h"
#include "tarhead.h"

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

static size_t unsuffixed_len(const char *label);

/*
 * GNU tar's check_label_pattern() past its first fnmatch: with -M, the
 * label NAME without its " Volume N" is matched, as GNU tar matches it
 * (the label the pattern, -V's value the name: "tar -M -V L" writes "L
 * Volume 1", which "-M -V L" reads).  Cost: as xtr_glob()'s.
 */
static bool
volume_matches(const struct pfx_options *opt, const char *name)
{
	char buf[XTR_HEAD_MAX];
	size_t len;

	if ((opt->flags & PFX_OPT_MULTI_VOLUME) == 0)
		return false;
	len = unsuffixed_len(name);
	if (len == 0 || len >= sizeof(buf))
		return false;
	memcpy(buf, name, len);
	buf[len] = '\0';
	return xtr_glob(buf, opt->volume_label, XTR_GLOB_WHOLE |
	    xtr_glob_posix(opt), NULL);
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
	else if (!xtr_glob(pattern, l->name, XTR_GLOB_WHOLE |
	    xtr_glob_posix(x->opt), NULL) && !volume_matches(x->opt, l->name))
		xtr_fail(x, EINVAL, "Volume '%s' does not match '%s'", l->name,
		    pattern);
}

/* see label.h */
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

/* see label.h */
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
