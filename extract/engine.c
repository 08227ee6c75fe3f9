/*
 * engine.c -- the extraction loop: read each entry, decide on it, hand it
 * to the writer for its type, and report it exactly once.
 *
 * Threat model: every byte of the archive is the attacker's.  The name an
 * entry is written at is the relative path the decision core returned,
 * nothing else: the check and the use are the same string, and the use is
 * made beneath the pinned destination fd by the platform layer, which
 * refuses symlinks, mount crossings and escapes on its own.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>

#include "async.h"
#include "budget.h"
#include "cpiowalk.h"
#include "decmem.h"
#include "decode.h"
#include "dirs.h"
#include "dumpdir.h"
#include "engine.h"
#include "extract.h"
#include "fail.h"
#include "fdbudget.h"
#include "file.h"
#include "hardlink.h"
#include "journal.h"
#include "kept.h"
#include "judge.h"
#include "label.h"
#include "links.h"
#include "match.h"
#include "paxdump.h"
#include "plat_thread.h"
#include "platform.h"
#include "raw.h"
#include "reader.h"
#include "remote.h"
#include "report.h"
#include "source.h"
#include "table.h"
#include "volumes.h"
#include "worker.h"
#include "zip.h"


static enum pfx_entry_type
entry_type(struct archive_entry *ae)
{
	if (archive_entry_hardlink(ae) != NULL)
		return PFX_TYPE_HARDLINK;
	switch (archive_entry_filetype(ae)) {
	case AE_IFREG:
		return PFX_TYPE_FILE;
	case AE_IFDIR:
		return PFX_TYPE_DIR;
	case AE_IFLNK:
		return PFX_TYPE_SYMLINK;
	case AE_IFCHR:
		return PFX_TYPE_CHAR;
	case AE_IFBLK:
		return PFX_TYPE_BLOCK;
	case AE_IFIFO:
		return PFX_TYPE_FIFO;
	case AE_IFSOCK:
		return PFX_TYPE_SOCKET;
	}
	return PFX_TYPE_OTHER;
}

/* The archive's name for AE, in the locale or else as UTF-8. */
static const char *
entry_name(struct archive_entry *ae)
{
	const char *name = archive_entry_pathname(ae);

	if (name == NULL)
		name = archive_entry_pathname_utf8(ae);
	return name;
}

static void
fill_entry(struct pfx_entry *e, struct archive_entry *ae, const char *name)
{
	memset(e, 0, sizeof(*e));
	e->name = name;
	e->type = entry_type(ae);
	e->mode = archive_entry_perm(ae);
	e->size = archive_entry_size_is_set(ae) ? archive_entry_size(ae) : 0;
	/*
	 * A cpio symlink that shares an inode is given as a hard link whose
	 * size is its target's, which libarchive has read as the target:
	 * no data is left.  Taken as data, its absence stopped the run.
	 */
	if (e->type == PFX_TYPE_HARDLINK &&
	    archive_entry_filetype(ae) == AE_IFLNK)
		e->size = 0;
	e->mtime = archive_entry_mtime(ae);
	e->mtime_nsec = archive_entry_mtime_nsec(ae);
	if (e->mtime_nsec < 0 || e->mtime_nsec > 999999999)
		e->mtime_nsec = 0;
	e->uname = archive_entry_uname(ae);
	e->gname = archive_entry_gname(ae);
	e->uid = archive_entry_uid(ae);
	e->gid = archive_entry_gid(ae);
	if (e->type == PFX_TYPE_CHAR || e->type == PFX_TYPE_BLOCK) {
		e->devmajor = (int64_t)archive_entry_rdevmajor(ae);
		e->devminor = (int64_t)archive_entry_rdevminor(ae);
	}
	if (e->type == PFX_TYPE_HARDLINK)
		e->link_target = archive_entry_hardlink(ae);
	else if (e->type == PFX_TYPE_SYMLINK)
		e->link_target = archive_entry_symlink(ae);
	e->decision = PFX_ALLOW;
	e->reason = "none";
}

/* xtr_meta.xattrs over libarchive's entry ARG. */
static int
entry_xattrs(void *arg, int (*fn)(void *fnarg, const char *name,
    const void *value, size_t size), void *fnarg)
{
	struct archive_entry *ae = arg;
	const char *name;
	const void *value;
	size_t size;
	int r;

	archive_entry_xattr_reset(ae);
	while (archive_entry_xattr_next(ae, &name, &value, &size) ==
	    ARCHIVE_OK) {
		/* No name ("LIBARCHIVE.xattr.%00"): skipped, as the decoder
		 * process skips it (child.c), not an I/O error (ERANGE). */
		if (name == NULL || name[0] == '\0')
			continue;
		r = fn(fnarg, name, value, size);
		if (r != 0)
			return r;
	}
	return 0;
}

/*
 * What the writers need of AE beyond its struct pfx_entry: the one place
 * where libarchive's entry becomes theirs.  M borrows AE, for the
 * entry's time.
 */
static void
fill_meta(struct xtr *x, struct xtr_meta *m, struct archive_entry *ae)
{
	long nsec;

	memset(m, 0, sizeof(*m));
	m->size_set = archive_entry_size_is_set(ae) != 0;
	m->sparse = xtr_source_sparse(x, ae);
	if (archive_entry_atime_is_set(ae)) {
		m->atime_set = true;
		m->atime.tv_sec = (time_t)archive_entry_atime(ae);
		nsec = archive_entry_atime_nsec(ae);
		m->atime.tv_nsec = nsec >= 0 && nsec <= 999999999 ? nsec : 0;
	}
	m->xattrs = entry_xattrs;
	m->xattrs_arg = ae;
}

/* The relative path of an allowed verdict ("" for the root itself). */
static const char *
verdict_rel(const struct pfx_verdict *v)
{
	return v->path + v->rel_off;
}

/* Ask the caller's decide hook.  Return: the PFX_HOOK_* answer. */
static int
ask_caller(struct xtr *x, struct pfx_entry *e, char *rename, size_t cap)
{
	int r;

	if (x->opt->hooks.decide == NULL)
		return PFX_HOOK_CONTINUE;
	/* The caller sees every earlier entry finished and reported. */
	xtr_async_drain(x);
	rename[0] = '\0';
	r = x->opt->hooks.decide(x->opt->hooks.arg, e, rename, cap);
	if (r == PFX_HOOK_RENAME && memchr(rename, '\0', cap) == NULL)
		return PFX_HOOK_ABORT;	/* not terminated: a caller bug */
	return r;
}

/* Resolve a hard link's target name like an entry name. */
static const char *
judge_link_target(struct xtr *x, struct pfx_entry *e, char *buf, size_t cap,
    struct pfx_verdict *tv)
{
	const char *reason;

	if (x->opt->strip_components > 0) {
		if (xtr_strip_components(e->link_target,
		    x->opt->strip_components, buf, cap) < 0) {
			e->decision = PFX_DENY;
			return "hardlink_target";
		}
	} else if (strlen(e->link_target) >= cap) {
		e->decision = PFX_REJECT;
		return "too_long";
	} else {
		memcpy(buf, e->link_target, strlen(e->link_target) + 1);
	}
	reason = xtr_judge_name(x, e, buf, tv);
	if (reason != NULL) {
		e->decision = PFX_REJECT;
		return "hardlink_escapes";
	}
	return NULL;
}

/* Hand an allowed entry at REL to the writer for its type. */
static void
write_entry(struct xtr *x, const struct xtr_meta *m, struct pfx_entry *e,
    const char *rel)
{
	char tbuf[PFX_PATH_MAX];
	struct pfx_verdict tv;
	const char *reason;

	/*
	 * The directories kept open are only good while nothing but files
	 * and directories is made through them: whatever else this entry
	 * makes or removes, they are let go.  So too before a file that
	 * may move or remove a directory where it goes (--backup,
	 * --recursive-unlink): one of them may be it.
	 */
	if ((e->type != PFX_TYPE_FILE && e->type != PFX_TYPE_DIR) ||
	    (e->type == PFX_TYPE_FILE && (x->opt->backup != PFX_BACKUP_NONE ||
	    (x->opt->flags & PFX_OPT_RECURSIVE_UNLINK) != 0)))
		xtr_parents_drop(x);
	/*
	 * A link may depend on the files before it; a directory only on one
	 * named where it or its parents go.
	 */
	if (e->type == PFX_TYPE_DIR)
		xtr_async_dir_ready(x, rel);
	else if (e->type != PFX_TYPE_FILE)
		xtr_async_drain(x);
	switch (e->type) {
	case PFX_TYPE_FILE:
		xtr_write_file(x, m, e, rel, NULL, NULL);
		return;
	case PFX_TYPE_DIR:
		xtr_make_dir(x, m, e, rel);
		return;
	case PFX_TYPE_HARDLINK:
		reason = judge_link_target(x, e, tbuf, sizeof(tbuf), &tv);
		if (reason != NULL) {
			xtr_finish_entry(x, e, PFX_ENTRY_REFUSED, reason, 0);
			return;
		}
		xtr_make_hardlink(x, m, e, rel, verdict_rel(&tv));
		return;
	case PFX_TYPE_SYMLINK:
		xtr_queue_symlink(x, e, rel);
		return;
	case PFX_TYPE_CHAR:
	case PFX_TYPE_BLOCK:
	case PFX_TYPE_FIFO:
	case PFX_TYPE_SOCKET:
		e->decision = PFX_DENY;
		xtr_finish_entry(x, e, PFX_ENTRY_REFUSED, "special_file", 0);
		return;
	case PFX_TYPE_OTHER:
		break;
	}
	e->decision = PFX_DENY;
	xtr_finish_entry(x, e, PFX_ENTRY_REFUSED, "unsupported", 0);
}

/*
 * Does REL have more components than the depth limit?  If so the run is
 * stopped, the entry reported, and true returned.
 */
static bool
too_deep(struct xtr *x, struct pfx_entry *e, const char *rel)
{
	char nb[XTR_SHORT_MAX];

	if (!xtr_past_max_depth(x, rel, 0))
		return false;
	xtr_finish_entry(x, e, PFX_ENTRY_FAILED, "limit", EFBIG);
	xtr_fail(x, EFBIG, "%s: limit max-depth=%u reached (raise "
	    "limits.max_depth, or set it to 0)", xtr_short_name(e->name, nb),
	    x->opt->limits.max_depth);
	return true;
}

/*
 * Is E one link more than the limit allows?  Links are counted apart from
 * other entries: each one costs memory until the end of the run (the
 * symlinks made last, the hard-link bookkeeping), so their number is
 * bounded more tightly.  If so the run is stopped, E reported, and true
 * returned.
 */
static bool
too_many_links(struct xtr *x, struct pfx_entry *e)
{
	uint64_t max = x->opt->limits.max_links;
	char nb[XTR_SHORT_MAX];

	if (e->type != PFX_TYPE_SYMLINK && e->type != PFX_TYPE_HARDLINK)
		return false;
	if (max == 0 || ++x->link_entries <= max)
		return false;
	xtr_finish_entry(x, e, PFX_ENTRY_FAILED, "limit", EFBIG);
	xtr_fail(x, EFBIG, "%s: limit max-links=%" PRIu64 " reached (raise "
	    "limits.max_links, or set it to 0)", xtr_short_name(e->name, nb), max);
	return true;
}

/*
 * Is NAME one of an ar archive's own tables, "/" (symbols), "/SYM64/"
 * (GNU ar's 64-bit symbols, for an archive past 4 GiB) or "//" (long
 * names), which libarchive passes through as entries?
 */
static bool
is_ar_index(const struct xtr *x, const char *name)
{
	int fmt = xtr_source_format(x) & ARCHIVE_FORMAT_BASE_MASK;

	return fmt == ARCHIVE_FORMAT_AR && name != NULL &&
	    (strcmp(name, "/") == 0 || strcmp(name, "//") == 0 ||
	    strcmp(name, "/SYM64/") == 0);
}

/*
 * The GNU dump directory E at REL (PFX_OPT_INCREMENTAL): read its list;
 * listing, give it to the hooks; extracting, purge the directory of what
 * the list lacks, then make it.
 */
static void
do_dumpdir(struct xtr *x, struct archive_entry *ae,
    const struct xtr_meta *m, struct pfx_entry *e, const char *rel)
{
	struct xtr_dumpdir d;
	const char *reason = NULL;
	int r;

	r = xtr_dumpdir_read(x, ae, &d, &reason);
	if (r == 1) {
		e->decision = PFX_REJECT;
		xtr_finish_entry(x, e, PFX_ENTRY_REFUSED, reason, 0);
	} else if (r == 0) {
		e->dumpdir = d.buf;
		e->dumpdir_len = d.len;
		if ((x->opt->flags & PFX_OPT_LIST) != 0) {
			xtr_finish_entry(x, e, PFX_ENTRY_LISTED, "none", 0);
		} else {
			r = xtr_dumpdir_purge(x, e, rel, &d, &reason);
			if (r == -EFBIG) {
				xtr_finish_entry(x, e, PFX_ENTRY_FAILED,
				    "limit", EFBIG);
			} else if (r < 0) {
				xtr_finish_error(x, e, r);
			} else if (r == 1) {
				e->decision = PFX_REJECT;
				xtr_finish_entry(x, e, PFX_ENTRY_REFUSED,
				    reason, 0);
			} else {
				write_entry(x, m, e, rel);
			}
		}
	} else {
		r = x->res->error;
		xtr_finish_entry(x, e, PFX_ENTRY_FAILED, r == ECANCELED ?
		    "interrupted" : r == EFBIG ? "limit" : "read_error",
		    r != 0 ? r : EIO);
	}
	xtr_dumpdir_free(x, &d);
}

/*
 * tar's --transform: the caller's new name for E, and for its link
 * target (E->link_target then points into TBUF), before anything is
 * judged.  Return: the name to judge, "" to skip the entry quietly (its
 * name or its link target transformed to nothing), xtr_too_long, or
 * NULL with the run failed.
 */
static const char *
transform_names(struct xtr *x, struct pfx_entry *e, const char *name,
    char *nbuf, char *tbuf, size_t cap)
{
	enum pfx_name_kind kind = e->type == PFX_TYPE_SYMLINK ?
	    PFX_NAME_SYMLINK : PFX_NAME_HARDLINK;
	const char *t;

	if (x->opt->hooks.transform == NULL)
		return name;
	name = xtr_transform_name(x, e, PFX_NAME_ENTRY, name, nbuf, cap);
	if (name == NULL || name[0] == '\0' || e->link_target == NULL)
		return name;
	t = xtr_transform_name(x, e, kind, e->link_target, tbuf, cap);
	if (t == NULL || t == xtr_too_long)
		return t;
	/* A link to nothing is skipped as a name made nothing is, not
	 * judged as one that leads outside. */
	if (t[0] == '\0' && e->link_target[0] != '\0')
		return "";
	e->link_target = t;
	return name;
}

/* Decide on one entry and act on it. */
static void
do_entry(struct xtr *x, struct archive_entry *ae)
{
	char stripped[PFX_PATH_MAX], rename[PFX_PATH_MAX];
	char xname[PFX_PATH_MAX], xtarget[PFX_PATH_MAX];
	struct pfx_verdict v;
	struct pfx_entry e;
	struct xtr_meta m;
	const char *name, *stored, *reason;
	int hook;

	name = entry_name(ae);
	fill_entry(&e, ae, name != NULL ? name : "");
	fill_meta(x, &m, ae);
	e.offset = xtr_source_header_pos(x);
	e.input_read = (uint64_t)xtr_source_raw(x);
	if (is_ar_index(x, name)) {
		xtr_finish_entry(x, &e, PFX_ENTRY_SKIPPED, "ar_index", 0);
		return;
	}
	/* ar members are files; GNU ar's deterministic mode (-D, its
	 * default) stores their modes without the file-type bits. */
	if (e.type == PFX_TYPE_OTHER && archive_entry_filetype(ae) == 0 &&
	    (xtr_source_format(x) & ARCHIVE_FORMAT_BASE_MASK) ==
	    ARCHIVE_FORMAT_AR) {
		archive_entry_set_filetype(ae, AE_IFREG);
		e.type = PFX_TYPE_FILE;
	}
	if (name == NULL) {
		e.decision = PFX_REJECT;
		xtr_finish_entry(x, &e, PFX_ENTRY_REFUSED, "bad_name", 0);
		return;
	}
	reason = xtr_unselected(x->opt, name, x->include_hit);
	if (reason == NULL && x->member_seen != NULL &&
	    xtr_occurrence_skips(x->opt, name, x->member_seen))
		reason = "not_selected";
	if (reason != NULL) {
		e.decision = PFX_DENY;
		xtr_finish_entry(x, &e, PFX_ENTRY_SKIPPED, reason, 0);
		return;
	}
	/* SECURITY: the transformed names are the ones judged below. */
	stored = name;
	name = transform_names(x, &e, name, xname, xtarget, sizeof(xname));
	if (name == NULL)
		return;
	if (name == xtr_too_long) {
		e.decision = PFX_REJECT;
		xtr_finish_entry(x, &e, PFX_ENTRY_REFUSED, "too_long", 0);
		return;
	}
	/* Only a transform makes a name empty; an empty name as stored is
	 * the decision core's to refuse. */
	if (name[0] == '\0' && stored[0] != '\0') {
		xtr_finish_entry(x, &e, PFX_ENTRY_SKIPPED, "transform_empty",
		    0);
		return;
	}
	if (x->opt->strip_components > 0) {
		if (xtr_strip_components(name, x->opt->strip_components,
		    stripped, sizeof(stripped)) < 0) {
			xtr_finish_entry(x, &e, PFX_ENTRY_SKIPPED, "stripped",
			    0);
			return;
		}
		name = stripped;
	}
	reason = xtr_judge_name(x, &e, name, &v);
	if (reason != NULL) {
		xtr_finish_entry(x, &e, PFX_ENTRY_REFUSED, reason, 0);
		return;
	}
	e.path = verdict_rel(&v);
	if (too_deep(x, &e, e.path) || too_many_links(x, &e))
		return;
	hook = ask_caller(x, &e, rename, sizeof(rename));
	if (hook == PFX_HOOK_RENAME) {
		reason = xtr_judge_name(x, &e, rename, &v);
		if (reason != NULL) {
			e.path = NULL;
			xtr_finish_entry(x, &e, PFX_ENTRY_REFUSED, reason, 0);
			return;
		}
		e.path = verdict_rel(&v);
	} else if (hook == PFX_HOOK_SKIP) {
		xtr_finish_entry(x, &e, PFX_ENTRY_SKIPPED, "vetoed", 0);
		return;
	} else if (hook != PFX_HOOK_CONTINUE) {
		xtr_finish_entry(x, &e, PFX_ENTRY_SKIPPED, "vetoed", 0);
		xtr_fail(x, ECANCELED, "%s: stopped by the caller", e.name);
		return;
	}
	/* -O makes nothing, so it purges nothing either. */
	if ((x->opt->flags & PFX_OPT_TO_FD) != 0) {
		xtr_write_out(x, &m, &e);
		return;
	}
	if (xtr_is_dumpdir(x, ae)) {
		do_dumpdir(x, ae, &m, &e, verdict_rel(&v));
		return;
	}
	if ((x->opt->flags & PFX_OPT_LIST) != 0) {
		xtr_finish_entry(x, &e, PFX_ENTRY_LISTED, "none", 0);
		return;
	}
	write_entry(x, &m, &e, verdict_rel(&v));
}

/* The core's policy flags for the archive being read. */
static unsigned int
policy_flags(const struct xtr *x)
{
	int fmt = xtr_source_format(x) & ARCHIVE_FORMAT_BASE_MASK;

	/* SECURITY: zip archives come from Windows often; judge as such. */
	if ((x->opt->flags & PFX_OPT_WINDOWS_NAMES) != 0 ||
	    fmt == ARCHIVE_FORMAT_ZIP)
		return PFX_POLICY_WINDOWS;
	return 0;
}

/*
 * The archive ended well: read what follows it in a pipe to its end, so
 * that its writer is not killed by SIGPIPE (the decoder process does it
 * with a sandbox).  A signal that stops the run interrupts the wait;
 * any other failure is left unsaid: the archive was read whole.
 */
static void
drain_input(struct xtr *x)
{
	if (x->remote != NULL)
		return;
	if (xtr_input_drain(x->vols != NULL ? xtr_volumes_fd(x->vols) :
	    x->drain_fd, xtr_source_archive_bytes(x), x->dec, &x->stop,
	    NULL) < 0)
		(void)xtr_cancelled(x);
}

/*
 * PFX_OPT_LABEL_ONLY: the first header was read, R its outcome.  The
 * label is told and matched, and nothing further is read; a pipe is
 * drained as after a whole archive.  A damaged archive after a label
 * read whole is no error (GNU tar reads no further either), but a
 * broken decoder process or a stopped run is.
 */
static void
read_label(struct xtr *x, int r)
{
	bool ok = r == ARCHIVE_OK || r == ARCHIVE_EOF, channel = false;
	int error;

	if (xtr_cancelled(x))
		return;
	if (!ok)
		(void)xtr_source_error(x, &error, &channel);
	if (channel || !xtr_label_only(x, ok)) {
		xtr_fail_read(x, NULL);
		return;
	}
	if (!x->fatal)
		drain_input(x);
}

/* Read every header; stop at the end, or at the first fatal error. */
static void
read_all(struct xtr *x)
{
	struct archive_entry *ae;
	int r;

	ae = archive_entry_new();
	if (ae == NULL) {
		xtr_fail(x, ENOMEM, "%s", strerror(ENOMEM));
		return;
	}
	/* SECURITY: a cancellation is noticed before each entry. */
	while (!x->fatal && !xtr_cancelled(x)) {
		r = xtr_source_next(x, ae);
		if ((x->opt->flags & PFX_OPT_LABEL_ONLY) != 0) {
			read_label(x, r);
			break;
		}
		/* A volume label is told before the first entry, and -V
		 * stops the run before it is taken on. */
		if (r == ARCHIVE_OK || r == ARCHIVE_EOF) {
			xtr_label_first(x);
			if (x->fatal)
				break;
		}
		if (r == ARCHIVE_EOF) {
			x->res->archive_bytes = xtr_source_archive_bytes(x);
			x->res->tar = (xtr_source_format(x) &
			    ARCHIVE_FORMAT_BASE_MASK) == ARCHIVE_FORMAT_TAR;
			drain_input(x);
			break;
		}
		if (r != ARCHIVE_OK) {
			xtr_fail_read(x, NULL);
			break;
		}
		/* One more entry than allowed: stop before taking it on. */
		if (xtr_count_inodes(x, 1) != 0)
			break;
		/* The header may have taken long to arrive. */
		if (xtr_cancelled(x))
			break;
		x->res->stats.entries++;
		x->policy_flags = policy_flags(x);
		x->no_hard_links = (xtr_source_format(x) &
		    ARCHIVE_FORMAT_BASE_MASK) == ARCHIVE_FORMAT_ZIP;
		do_entry(x, ae);
	}
	archive_entry_free(ae);
}

/* Tell the caller of each include pattern or member that selected
 * nothing. */
static void
report_unmatched(struct xtr *x)
{
	const struct pfx_options *opt = x->opt;
	size_t i;

	for (i = 0; i < opt->ninclude + opt->nmembers; i++) {
		/* Positional -C: another run tells of another group's. */
		if (i >= opt->ninclude && opt->member_group != NULL &&
		    opt->member_group[i - opt->ninclude] != opt->group)
			continue;
		/* --occurrence=N: a member seen fewer times is not found. */
		if (x->member_seen != NULL && i >= opt->ninclude ?
		    x->member_seen[i - opt->ninclude] >= opt->occurrence :
		    x->include_hit[i])
			continue;
		x->res->stats.unmatched++;
		if (opt->hooks.unmatched != NULL)
			opt->hooks.unmatched(opt->hooks.arg,
			    i < opt->ninclude ? opt->include[i] :
			    opt->members[i - opt->ninclude]);
	}
}

static void
free_state(struct xtr *x)
{
	xtr_async_stop(x);
	xtr_free_symlinks(x);
	xtr_free_old_links(x);
	free(x->include_hit);
	free(x->member_seen);
	x->member_seen = NULL;
	xtr_table_free(&x->files);
	xtr_table_free(&x->dirs);
	xtr_table_free(&x->pending);
	xtr_table_free(&x->changed);
	xtr_table_free(&x->moved);
	xtr_table_free(&x->own_links);
	xtr_journal_free(x);
	/* Its close callback also stops and joins our decoder thread. */
	if (x->ar != NULL)
		archive_read_free(x->ar);
	x->ar = NULL;
	xtr_cpio_walk_free(&x->cpio_walk);
	xtr_window_free(x->head.window);
	x->head.window = NULL;
	free(x->pax_list);
	x->pax_list = NULL;
	x->dec = NULL;
	xtr_zip_free(x->zip);
	x->zip = NULL;
	xtr_volumes_free(x->vols);
	x->vols = NULL;
	xtr_remote_free(x->remote);
	x->remote = NULL;
	xtr_parents_free(x);
	pfx_root_close(&x->root);
}

/* see engine.h */
int
xtr_confine(const struct pfx_options *opt, int destfd,
    struct pfx_sandbox_info *info, struct pfx_result *res)
{
	unsigned int flags = 0;
	int r;

	memset(info, 0, sizeof(*info));
	if ((opt->flags & PFX_OPT_SANDBOX) == 0)
		return 0;
	if ((opt->flags & PFX_OPT_SANDBOX_REQUIRE) != 0)
		flags |= PFX_SANDBOX_REQUIRE;
	/* SECURITY: symlinks only when the run may make them at all. */
	if (opt->symlinks == PFX_SYMLINKS_CONTAIN ||
	    opt->symlinks == PFX_SYMLINKS_ROOT)
		flags |= PFX_SANDBOX_SYMLINKS;
	if (destfd < 0)
		flags |= PFX_SANDBOX_NO_DEST;
	/* SECURITY: set-id and sticky modes and owners only when the run
	 * restores them (-p; --same-owner as root, see xtr_safe_mode). */
	if ((opt->flags & PFX_OPT_PRESERVE_PERMS) != 0 ||
	    ((opt->flags & PFX_OPT_SAME_OWNER) != 0 && geteuid() == 0))
		flags |= PFX_SANDBOX_SETID;
	/* This process must still be able to end its decoder process. */
	r = plat_sandbox_confine(destfd, flags, PLAT_SANDBOX_SIGNAL_OUT, info);
	if (r < 0) {
		res->status = PFX_FATAL;
		res->error = -r;
		if (r == -ENOSYS)
			snprintf(res->message, sizeof(res->message), "sandbox "
			    "required, but the kernel cannot enforce it: %s",
			    info->text);
		else if (r == -ESTALE)
			snprintf(res->message, sizeof(res->message), "cannot "
			    "confine the process: the destination was renamed "
			    "while its read-only mounts were made");
		else
			snprintf(res->message, sizeof(res->message), "cannot "
			    "confine the process: %s", strerror(-r));
		return -1;
	}
	return 0;
}

/*
 * Add what THIS process's own confinement enforced to the text of the
 * decoder process's, in RES->sandbox.
 */
static void
tell_writer(struct pfx_result *res, const struct pfx_sandbox_info *self)
{
	size_t n = strlen(res->sandbox.text);

	snprintf(res->sandbox.text + n, sizeof(res->sandbox.text) - n,
	    "; writer: %s", self->text);
}

/*
 * Read entries from SRC's socket, as from a decoder process, through a
 * descriptor of the run's own: the sender's stays the sender's.  Return:
 * 0, or -1 with the run failed.
 */
static int
open_wire(struct xtr *x, const struct xtr_in *src)
{
	int fd = fcntl(src->wire, F_DUPFD_CLOEXEC, 3);

	if (fd < 0) {
		xtr_fail(x, errno, "cannot read the entries: %s",
		    strerror(errno));
		return -1;
	}
	if (xtr_remote_open_fd(&x->remote, fd, src->who, x->opt,
	    x->res) < 0) {
		if (x->remote == NULL)
			(void)close(fd);
		x->fatal = true;
		return -1;
	}
	/* As below: the caller is told what the sender said it
	 * enforced, so that a fuzzer sees that report too. */
	if (x->opt->hooks.confined != NULL)
		x->opt->hooks.confined(x->opt->hooks.arg, &x->res->sandbox);
	return 0;
}

/* The decoders' flags (decode.h) for X's run: none of their threads on
 * one CPU. */
static unsigned int
dec_flags(const struct xtr *x)
{
	return x->cpus < 2 ? XTR_DEC_INLINE : 0;
}

/*
 * Open the source of entries: libarchive here, or with a sandbox the
 * decoder process, and this process confined too with PFX_OPT_SANDBOX;
 * or SRC's socket.  Return: 0, or -1 with the run failed.
 */
static int
open_source(struct xtr *x, const struct xtr_in *src)
{
	const struct pfx_options *opt = x->opt;
	const struct pfx_input *in = src->in;
	struct pfx_sandbox_info self;
	struct xtr_dec_mem mem;
	int error, r;

	if (in == NULL)
		return open_wire(x, src);
	if ((opt->flags & (PFX_OPT_SANDBOX | PFX_OPT_SANDBOX_CHILD)) == 0) {
		/* A zip of the common kind: our reader, on every CPU. */
		r = xtr_zip_open(in, opt, XTR_READ_FLAGS(opt),
		    x->cpus, &x->zip, x->res->message,
		    sizeof(x->res->message), &error);
		if (r == ZIP_OURS)
			return 0;
		if (r == ZIP_HOSTILE) {
			x->fatal = true;
			x->res->status = PFX_FATAL;
			x->res->error = error;
			return -1;
		}
		/* -G: the stream's last bytes, for pax dump lists. */
		if ((opt->flags & PFX_OPT_INCREMENTAL) != 0 &&
		    (x->head.window = xtr_paxdump_window()) == NULL) {
			x->fatal = true;
			x->res->status = PFX_FATAL;
			x->res->error = ENOMEM;
			(void)snprintf(x->res->message,
			    sizeof(x->res->message), "cannot keep the "
			    "stream's last bytes for -G: %s", strerror(ENOMEM));
			return -1;
		}
		xtr_dec_mem_of(&opt->limits, x->cpus, &mem);
		x->ar = xtr_reader_open_head(in, opt->formats, &x->stop,
		    XTR_READ_FLAGS(opt) | dec_flags(x), &mem, &x->dec,
		    &x->vols, &x->head, NULL,
		    x->res->message, sizeof(x->res->message), &error);
		/* A path is opened by the reader, and not drained. */
		if (in->path == NULL && in->buf == NULL)
			x->drain_fd = in->fd;
		if (x->ar != NULL)
			return 0;
		/* A stop asked for while the first bytes were awaited. */
		if (!xtr_cancelled(x)) {
			x->fatal = true;
			x->res->status = PFX_FATAL;
			x->res->error = error;
		}
		return -1;
	}
	/* SECURITY: the archive is parsed in a process that can write
	 * nothing, from its first byte (child.c). */
	if (xtr_remote_start(&x->remote, in, opt, dec_flags(x), x->cpus,
	    x->res) < 0) {
		x->fatal = true;
		return -1;
	}
	/* Forked first: a confined process cannot fork.  This process
	 * confines itself while the decoder process starts and confines
	 * itself (a millisecond each); when both fail, the decoder
	 * process's failure is the one reported, as it was when it came
	 * first. */
	r = xtr_confine(opt, x->root.fd, &self, x->res);
	if (xtr_remote_confined(x->remote, opt, x->res) < 0 || r < 0) {
		x->fatal = true;
		return -1;
	}
	if ((opt->flags & PFX_OPT_SANDBOX) != 0)
		tell_writer(x->res, &self);
	/* The kernel now refuses any change outside the root itself. */
	if (self.fs && x->root.fd >= 0)
		pfx_root_confined(&x->root);
	if (opt->hooks.confined != NULL)
		opt->hooks.confined(opt->hooks.arg, &x->res->sandbox);
	return 0;
}

/* End the decoder process, if any; a misbehaving one fails the run. */
static void
end_source(struct xtr *x)
{
	char msg[200];
	int r;

	if (x->remote == NULL)
		return;
	r = xtr_remote_stop(x->remote, msg, sizeof(msg));
	if (r < 0)
		xtr_fail(x, -r, "%s", msg);
}

/* Does X hold a symbolic link entry of the archive? */
static bool
has_links(const struct xtr *x)
{
	size_t i;

	for (i = 0; i < x->nlinks; i++)
		if (x->links[i].path != NULL)
			return true;
	return false;
}

/* Run the engine on X's source, opened.  Return: X->res->status. */
static enum pfx_status
run(struct xtr *x)
{
	const struct pfx_options *opt = x->opt;
	bool placed = false;	/* a journal put every name in place */

	if (opt->ninclude + opt->nmembers > 0) {
		x->include_hit = calloc(opt->ninclude + opt->nmembers,
		    sizeof(*x->include_hit));
		if (x->include_hit == NULL) {
			xtr_fail(x, ENOMEM, "%s", strerror(ENOMEM));
			free_state(x);
			return x->res->status;
		}
	}
	if (opt->occurrence > 0 && opt->nmembers > 0) {
		x->member_seen = calloc(opt->nmembers,
		    sizeof(*x->member_seen));
		if (x->member_seen == NULL) {
			xtr_fail(x, ENOMEM, "%s", strerror(ENOMEM));
			free_state(x);
			return x->res->status;
		}
	}
	/* A run without the worker thread is only slower; a journal
	 * lists files on the reading thread alone. */
	if (x->journal == NULL)
		(void)xtr_async_start(x);
	read_all(x);
	xtr_async_stop(x);
	/* SECURITY: no decoder process outlives the reading, nor anything
	 * it started; a hostile one is a failed run. */
	end_source(x);
	/* --test-label matches its members against the label alone. */
	if (!x->fatal && (x->opt->flags & PFX_OPT_LABEL_ONLY) == 0)
		report_unmatched(x);
	/* Links last, so no later entry can be written through one; none
	 * after a cancellation (they are reported as stopped). */
	(void)xtr_cancelled(x);
	/*
	 * SECURITY: all or nothing.  Links are judged (and those refused
	 * reported) only after the journal has put every name in place,
	 * where nothing can be taken back: under PFX_OPT_STRICT a refusal
	 * there would end the run fatal over a changed destination.  So
	 * such a run that holds links stops here, with nothing changed.
	 */
	if (!x->fatal && x->journal != NULL &&
	    (opt->flags & PFX_OPT_STRICT) != 0 && has_links(x))
		xtr_fail(x, ENOTSUP, "PFX_OPT_ATOMIC over a populated "
		    "destination with PFX_OPT_STRICT: the archive's symbolic "
		    "links are judged only after every name is put in place, "
		    "where a refusal could not be taken back; nothing was "
		    "changed (extract into a new destination, or without "
		    "PFX_OPT_STRICT)");
	/*
	 * All or nothing over a populated destination: the names now, then
	 * the links.  A failed run removes its temporary names first, while
	 * the links it made at once (--symlinks=root) still lead where
	 * later entries were made through them, then its links, so that
	 * the journal finds the directories it made empty, and gives back
	 * mtimes last.
	 */
	placed = xtr_journal_put(x);
	if (x->fatal && !placed) {
		xtr_journal_undo_early(x);
		xtr_finish_symlinks(x);
		xtr_journal_end(x);
	} else {
		/* A failure after every name is in place says so itself. */
		placed = placed && !x->fatal;
		xtr_finish_symlinks(x);
	}
	/* Directories' own modes and times last of all, deepest first. */
	xtr_finish_dirs(x);
	/*
	 * SECURITY: all or nothing is over once every name is in place: a
	 * stop after that (a deadline or a cancellation in the passes
	 * above, a limit while the links are judged) cannot take them back,
	 * and must not read as a failure that left DEST as it was.
	 */
	if (placed && x->fatal)
		xtr_append_notice(x->res, "PFX_OPT_ATOMIC: every file of the "
		    "archive was in place in the destination before this: it "
		    "is changed (symbolic links, or directories' modes and "
		    "times, may be missing)");
	if (!x->fatal && (x->res->stats.refused > 0 ||
	    x->res->stats.failed > 0 || x->res->stats.unmatched > 0 ||
	    x->unstored))
		x->res->status = PFX_REFUSED;
	free_state(x);
	return x->res->status;
}

/*
 * Begin X for a run: zeroed state, RESULT cleared, the deadline set, and
 * the destination opened (unless listing).  Return: 0, or -1 with the
 * run failed.
 */
static int
begin(struct xtr *x, int dirfd, const char *dest,
    const struct pfx_options *opt, struct pfx_result *result)
{
	unsigned int tries = 0;
	int r;

	memset(result, 0, sizeof(*result));
	result->resolver = "none";
	memset(x, 0, sizeof(*x));
	x->old_mu = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
	x->opt = opt;
	x->res = result;
	x->root.fd = -1;
	x->drain_fd = -1;
	x->cpio_walk.max_links = opt->limits.max_links;
	/* What the tables keep for the archive is paid from the budget. */
	xtr_table_init(&x->files, x);
	xtr_table_init(&x->dirs, x);
	xtr_table_init(&x->pending, x);
	xtr_table_init(&x->changed, x);
	xtr_table_init(&x->moved, x);
	xtr_table_init(&x->own_links, x);
	xtr_parents_init(x, xtr_fd_parent_slots());
	/* Counted before this process, or its decoder process, confines
	 * itself: Landlock may deny the cgroup's files under /sys. */
	x->cpus = opt->cpus != 0 ? opt->cpus : plat_thread_cpus();
	if (opt->timeout != 0) {
		(void)clock_gettime(CLOCK_MONOTONIC, &x->deadline);
		x->deadline.tv_sec += (time_t)opt->timeout;
	}
	/* A read of a stalled pipe stops at the deadline too (readfd.c). */
	x->stop.cancel = opt->cancel;
	x->stop.deadline = x->deadline;
	/* Listing, and -O, write nothing there: no destination. */
	if ((opt->flags & (PFX_OPT_LIST | PFX_OPT_TO_FD)) != 0)
		return 0;
	r = pfx_root_open(&x->root, dirfd, dest, opt->resolver);
	/* Another thread of the caller holds every descriptor for a
	 * moment: this run waits for one, as it would later on. */
	while (xtr_fd_relieve(x, r, &tries))
		r = pfx_root_open(&x->root, dirfd, dest, opt->resolver);
	/* Before the first directory this run makes, by DEST's own clock
	 * (xtr_born_in_run()); none: identities only. */
	x->born_known = r == 0 &&
	    plat_os_fs_now(x->root.fd, &x->born_after) == 0;
	if (r < 0) {
		xtr_fail(x, -r, "%s: cannot use as destination: %s%s",
		    dest, strerror(-r), r == -ELOOP ? " (it is a "
		    "symbolic link: give the directory it points to)" : "");
		return -1;
	}
	/* A root filesystem: its links lead to parents, in the root. */
	if (opt->symlinks == PFX_SYMLINKS_ROOT)
		pfx_root_in_root(&x->root);
	/* Queued links are made at the end, after the ones already there
	 * are listed: none can be there if DEST is empty now.  With
	 * --symlinks=root, none is listed when an entry replaces a link
	 * (links.c, list_old_links()). */
	if (opt->symlinks != PFX_SYMLINKS_REFUSE)
		x->dest_was_empty = plat_root_is_empty(&x->root) == 1;
	result->resolver = pfx_root_resolver_name(&x->root);
	return 0;
}

/* xtr_extract(), with a journal (journal.c) when JOURNAL. */
static enum pfx_status
extract(const struct xtr_in *src, int dirfd, const char *dest,
    const struct pfx_options *opt, struct pfx_result *result, bool journal)
{
	struct pfx_options defaults;
	struct xtr x;

	if (opt == NULL) {
		pfx_options_init(&defaults);
		opt = &defaults;
	}
	/* SECURITY: the source is opened, and the process confined,
	 * before libarchive reads a byte. */
	if (begin(&x, dirfd, dest, opt, result) < 0) {
		free_state(&x);
		return result->status;
	}
	if (journal && xtr_journal_start(&x) < 0)
		xtr_fail(&x, ENOMEM, "PFX_OPT_ATOMIC: %s", strerror(ENOMEM));
	if (x.fatal || open_source(&x, src) < 0) {
		free_state(&x);
		return result->status;
	}
	return run(&x);
}

/* see engine.h */
enum pfx_status
xtr_extract(const struct xtr_in *src, int dirfd, const char *dest,
    const struct pfx_options *opt, struct pfx_result *result)
{
	return extract(src, dirfd, dest, opt, result, false);
}

/* see engine.h */
enum pfx_status
xtr_extract_journaled(const struct xtr_in *src, int dirfd,
    const char *dest, const struct pfx_options *opt,
    struct pfx_result *result)
{
	/*
	 * An incremental restore removes names and moves directories at
	 * once (dumpdir.c, dumprename.c): no journal could take that back,
	 * so not over a populated DEST.
	 */
	if ((opt->flags & PFX_OPT_INCREMENTAL) != 0 &&
	    (opt->flags & PFX_OPT_LIST) == 0) {
		memset(result, 0, sizeof(*result));
		result->resolver = "none";
		result->status = PFX_FATAL;
		result->error = EINVAL;
		snprintf(result->message, sizeof(result->message), "%s: an "
		    "incremental restore removes names, which all or nothing "
		    "over a populated destination cannot take back", dest);
		return result->status;
	}
	return extract(src, dirfd, dest, opt, result, true);
}

/* see engine.h */
enum pfx_status
xtr_extract_wire(int fd, int dirfd, const char *dest,
    const struct pfx_options *opt, struct pfx_result *result)
{
	struct xtr_in src = { NULL, fd, NULL };
	enum pfx_status status;

	status = xtr_extract(&src, dirfd, dest, opt, result);
	(void)close(fd);
	return status;
}
