/*
 * dumpdir.c -- GNU tar's incremental restore (-G/-g, PFX_OPT_INCREMENTAL):
 * a dump directory ('D' entry) lists, in its data, the names its
 * directory held when it was dumped; at extraction whatever else is in
 * that directory now is removed, as GNU tar's purge_directory() does.
 *
 * The list is the archive's, hostile: it is read whole only up to
 * PFX_DUMPDIR_MAX bytes and charged to the memory budget, and its 'Y',
 * 'N' and 'D' records only ever answer "keep" for a name the
 * directory's own listing found (pfx_root_purge()): each names one of
 * the directory's direct children or the list is refused, and nothing
 * is ever looked up by a name from them.
 *
 * Its 'R'/'T' pairs move directories first, by paths from the
 * archive's top ('X' names the directory that holds a temporary for
 * cyclic renames, and an empty 'R' or 'T' stands for it).  Every such
 * name is judged as an entry's name is, all of them before the first
 * move, so that a list with one refused name moves nothing; each move
 * is pfx_root_rename_dir(): both parents reached beneath the root
 * without symlinks, a directory only, never over an existing name.
 * Cost: two resolutions per pair, O(records).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <archive.h>
#include <archive_entry.h>

#include "budget.h"
#include "dumpdir.h"
#include "dumprename.h"
#include "extract.h"
#include "fail.h"
#include "kept.h"
#include "links.h"
#include "source.h"
#include "worker.h"

/* see dumpdir.h */
bool
xtr_is_dumpdir(const struct xtr *x, struct archive_entry *ae)
{
	/*
	 * libarchive gives a directory data only for GNU's 'D' type (a '5'
	 * is read with size 0), which only GNU tar archives have; in a pax
	 * archive the list is a GNU.dumpdir record, given as the data
	 * (paxdump.c).
	 */
	return (x->opt->flags & PFX_OPT_INCREMENTAL) != 0 &&
	    archive_entry_filetype(ae) == AE_IFDIR &&
	    archive_entry_size(ae) > 0 &&
	    (xtr_source_format(x) & ARCHIVE_FORMAT_BASE_MASK) ==
	    ARCHIVE_FORMAT_TAR;
}

/* For bsearch(3): the name KEY against a record's name. */
static int
key_name(const void *key, const void *b)
{
	const char *const *pb = b;

	return strcmp(key, *pb + 1);
}

/* For qsort(3): the names after their codes. */
static int
by_name(const void *a, const void *b)
{
	const char *const *pa = a, *const *pb = b;

	return strcmp(*pa + 1, *pb + 1);
}

/* Is REC a rename record ('R', 'T', 'X')? */
static bool
is_rename(const char *rec)
{
	return rec[0] == 'R' || rec[0] == 'T' || rec[0] == 'X';
}

/*
 * The order of the rename records, as GNU tar's dumpdir_ok() wants it:
 * each 'R' followed by its 'T'; an empty name in either only while an
 * 'X' is open, which an empty 'R' closes; no 'X' while one is open.
 * *EXPECT_T and *OPEN_X carry the state.  Return: NULL, or the refusal.
 */
static const char *
check_rename(const char *rec, bool *expect_t, bool *open_x)
{
	if (*expect_t != (rec[0] == 'T'))
		return "dumpdir_rename_bad";
	switch (rec[0]) {
	case 'X':
		if (*open_x || rec[1] == '\0')
			return "dumpdir_rename_bad";
		*open_x = true;
		break;
	case 'R':
		if (rec[1] == '\0') {
			if (!*open_x)
				return "dumpdir_rename_bad";
			*open_x = false;
		}
		*expect_t = true;
		break;
	default:	/* 'T' */
		if (rec[1] == '\0' && !*open_x)
			return "dumpdir_rename_bad";
		*expect_t = false;
		break;
	}
	return NULL;
}

/*
 * Check the records of D->buf, "Cname\0" each, up to an empty one or
 * the end; count the kept ones in D->n, the renames in D->renames.
 * Return: NULL, or the refusal.
 */
static const char *
check_records(struct xtr_dumpdir *d)
{
	size_t i = 0, l;
	const char *rec, *why;
	bool expect_t = false, open_x = false;

	d->n = 0;
	d->renames = 0;
	while (i < d->len && d->buf[i] != '\0') {
		rec = d->buf + i;
		l = strnlen(rec, d->len - i);
		if (l == d->len - i)
			return "dumpdir_bad";	/* unterminated */
		i += l + 1;
		if (is_rename(rec)) {
			why = check_rename(rec, &expect_t, &open_x);
			if (why != NULL)
				return why;
			d->renames += rec[0] == 'T';
			continue;
		}
		/* SECURITY: only a direct child's own name means anything. */
		if (strchr("YND", rec[0]) == NULL || l < 2 ||
		    memchr(rec + 1, '/', l - 1) != NULL ||
		    strcmp(rec + 1, ".") == 0 || strcmp(rec + 1, "..") == 0)
			return "dumpdir_bad";
		d->n++;
	}
	if (expect_t)
		return "dumpdir_rename_bad";	/* an 'R' without its 'T' */
	d->len = i;	/* what follows the end is padding */
	return NULL;
}

/* Index D's records by name, for keep().  Return: 0, or -1 (memory). */
static int
index_records(struct xtr *x, struct xtr_dumpdir *d)
{
	size_t i = 0, k = 0, bytes;

	if (d->n == 0)
		return 0;
	bytes = d->n * sizeof(d->names[0]);
	if (xtr_mem_take(x, bytes) != 0)
		return -1;
	d->mem += bytes;
	d->names = malloc(bytes);
	if (d->names == NULL)
		return -1;
	while (k < d->n) {
		if (!is_rename(d->buf + i))
			d->names[k++] = d->buf + i;
		i += strlen(d->buf + i) + 1;
	}
	qsort(d->names, d->n, sizeof(d->names[0]), by_name);
	return 0;
}

/* see dumpdir.h */
int
xtr_dumpdir_read(struct xtr *x, struct archive_entry *ae,
    struct xtr_dumpdir *d, const char **reason)
{
	int64_t size = archive_entry_size(ae), offset;
	const void *buf;
	size_t n;
	int r;

	memset(d, 0, sizeof(*d));
	if (size > (int64_t)PFX_DUMPDIR_MAX) {
		*reason = "dumpdir_too_large";
		return 1;
	}
	if (xtr_mem_take(x, (size_t)size + 1) != 0)
		goto nomem;
	d->mem = (size_t)size + 1;
	d->buf = malloc((size_t)size + 1);
	if (d->buf == NULL)
		goto nomem;
	for (;;) {
		r = xtr_source_data(x, &buf, &n, &offset);
		if (r == XTR_DATA_EOF)
			break;
		if (r != XTR_DATA_OK) {
			xtr_fail_read(x, archive_entry_pathname(ae));
			return -1;
		}
		/* The source gives at most the header's size; a decoder
		 * process that does not is stopped here all the same. */
		if (offset < 0 || offset > size || n > (size_t)(size - offset))
		{
			xtr_fail(x, EPROTO, "%s: dump directory data beyond "
			    "its size", archive_entry_pathname(ae));
			return -1;
		}
		/*
		 * SECURITY: a list is no sparse file.  A block past the last
		 * (a hole: a decoder process's, or a sparse map on a 'D')
		 * would leave bytes of this process's heap in the list,
		 * handed to the hooks and judged as names.
		 */
		if ((size_t)offset != d->len) {
			*reason = "dumpdir_bad";
			return 1;
		}
		memcpy(d->buf + offset, buf, n);
		d->len += n;
		if (xtr_cancelled(x) || xtr_check_bytes(x,
		    archive_entry_pathname(ae), 0, 0) != 0)
			return -1;
	}
	d->buf[d->len] = '\0';
	*reason = check_records(d);
	if (*reason != NULL)
		return 1;
	if (index_records(x, d) != 0)
		goto nomem;
	return 0;
nomem:
	xtr_fail(x, ENOMEM, "%s: dump directory: %s",
	    archive_entry_pathname(ae), strerror(ENOMEM));
	return -1;
}

/* see dumpdir.h */
void
xtr_dumpdir_free(struct xtr *x, struct xtr_dumpdir *d)
{
	free(d->names);
	free(d->buf);
	xtr_mem_give(x, d->mem);
	memset(d, 0, sizeof(*d));
}

/* What pfx_root_purge() calls back with. */
struct purge {
	struct xtr *x;
	const struct xtr_dumpdir *d;
	const struct pfx_entry *e;
	const char *rel;	/* the directory purged */
	bool redirects;		/* out: a name kept, as its removal would
				   turn a link outwards */
	int error;		/* out: a removal that could not be judged */
};

/*
 * Does the list keep NAME?  As GNU tar: if it names it, and a 'D' is a
 * directory now and a 'Y' or 'N' is not.
 */
static bool
listed(const struct purge *p, const char *name, bool is_dir)
{
	const char *const *hit;

	if (p->d->n == 0)
		return false;
	hit = bsearch(name, p->d->names, p->d->n, sizeof(p->d->names[0]),
	    key_name);
	if (hit == NULL)
		return false;
	return (**hit == 'D') == is_dir;
}

/*
 * SECURITY: with links allowed, a name purged may be a symlink, or a
 * directory holding some, through which a link already in the
 * destination stays inside (e -> sub/y/../../../x with sub/y -> a/b/c):
 * gone, or made a directory by a later entry, it would lead out.  So a
 * removal is judged as an entry's replacing a link is
 * (xtr_symlink_removable), and a name whose removal would turn one out
 * is kept, the dump directory refused for it.  A judgement that fails
 * keeps the name too.  A name that is no link nor directory is not
 * judged (one readlink tells): it reads as a missing name does.
 * Without links (--symlinks=refuse) nothing is judged: no promise is
 * made of the links already there.
 */
static bool
removable(struct purge *p, const char *name, bool is_dir)
{
	char path[PFX_PATH_MAX], target[PFX_PATH_MAX];
	int n, r;

	if (p->x->opt->symlinks == PFX_SYMLINKS_REFUSE)
		return true;
	n = p->rel[0] == '\0' ?
	    snprintf(path, sizeof(path), "%s", name) :
	    snprintf(path, sizeof(path), "%s/%s", p->rel, name);
	if (n < 0 || (size_t)n >= sizeof(path)) {
		if (p->error == 0)
			p->error = -ENAMETOOLONG;
		return false;
	}
	if (!is_dir && pfx_root_readlink(&p->x->root, path, target,
	    sizeof(target)) == -EINVAL)
		return true;
	r = xtr_symlink_removable(p->x, path);
	if (r == XTR_REDIRECTS)
		p->redirects = true;
	else if (r < 0 && p->error == 0)
		p->error = r;
	return r == 0;
}

/* pfx_root_purge()'s question: does NAME stay? */
static bool
keep(void *arg, const char *name, bool is_dir)
{
	struct purge *p = arg;

	return listed(p, name, is_dir) || !removable(p, name, is_dir);
}

static void
gone(void *arg, const char *name)
{
	const struct purge *p = arg;
	const struct pfx_hooks *h = &p->x->opt->hooks;

	if (h->purged != NULL)
		h->purged(h->arg, p->e, name);
}

/* see dumpdir.h */
int
xtr_dumpdir_purge(struct xtr *x, const struct pfx_entry *e, const char *rel,
    const struct xtr_dumpdir *d, const char **reason)
{
	struct purge p = { x, d, e, rel, false, 0 };
	int r;

	/* What was queued may be in it: on disk first, as GNU tar has it. */
	xtr_async_drain(x);
	xtr_parents_drop(x);
	if (d->renames > 0) {
		r = xtr_dumpdir_rename(x, e, d, rel, reason);
		xtr_parents_drop(x);
		if (r != 0)
			return r;
	}
	r = pfx_root_purge(&x->root, rel, keep, gone, &p);
	/* Not there as a directory: nothing to purge; the entry's own
	 * making judges (and reports) what is there instead. */
	if (r == -ENOENT || r == -ENOTDIR || r == -ELOOP)
		return 0;
	if (r == 0)
		r = p.error;
	if (r == 0 && p.redirects) {
		*reason = "symlink_redirects";
		return 1;
	}
	return r;
}
