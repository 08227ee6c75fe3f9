/*
 * file.c -- regular files: the data, streamed in blocks with holes kept
 * as holes, and the metadata, set through the new file's own descriptor.
 *
 * SECURITY: the file is written under a temporary name in a file that
 * did not exist before (pfx_root_begin), and only then renamed to its
 * name: an existing file, symlink or hard link at that name is replaced,
 * never opened, and no half-written file ever carries the final name.
 */
#include <errno.h>
#include <limits.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "budget.h"
#include "extract.h"
#include "fail.h"
#include "fdbudget.h"
#include "file.h"
#include "journal.h"
#include "kept.h"
#include "links.h"
#include "meta.h"
#include "parents.h"
#include "report.h"
#include "source.h"
#include "worker.h"

/* Write all of BUF to FD.  Return: 0, or -errno. */
static int
write_all(int fd, const char *buf, size_t len)
{
	ssize_t n;

	while (len > 0) {
		n = write(fd, buf, len);
		if (n == -1) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * Write all of BUF to FD, the caller's (PFX_OPT_TO_FD): a pipe whose
 * reader may go away.  That is EPIPE, never SIGPIPE, whose default
 * action would end the caller's process: SIGPIPE is blocked in this
 * thread for the write, and one that the write raised is taken back,
 * unless one was pending already.  Return: 0, or -errno.
 */
static int
write_out_fd(int fd, const char *buf, size_t len)
{
	const struct timespec now = { 0, 0 };
	sigset_t pipe, old, pending;
	bool was_pending;
	int r;

	(void)sigemptyset(&pipe);
	(void)sigaddset(&pipe, SIGPIPE);
	(void)pthread_sigmask(SIG_BLOCK, &pipe, &old);
	was_pending = sigpending(&pending) == 0 &&
	    sigismember(&pending, SIGPIPE) == 1;
	r = write_all(fd, buf, len);
	if (r == -EPIPE && !was_pending)
		while (sigtimedwait(&pipe, NULL, &now) == -1 &&
		    errno == EINTR)
			continue;
	(void)pthread_sigmask(SIG_SETMASK, &old, NULL);
	return r;
}

/* Write all of BUF to FD, X's file or out_fd.  Return: 0, or -errno. */
static int
write_to(const struct xtr *x, int fd, const char *buf, size_t len)
{
	if ((x->opt->flags & PFX_OPT_TO_FD) != 0)
		return write_out_fd(fd, buf, len);
	return write_all(fd, buf, len);
}

/*
 * Skip a hole of LEN bytes in FD, now at POS: a seek in a file, zeros
 * down a descriptor that cannot seek (PFX_OPT_TO_FD: a pipe, a
 * terminal).  Return: 0, or -errno.
 */
static int
put_hole(struct xtr *x, int fd, int64_t pos, uint64_t len)
{
	static const char zeros[4096];
	size_t n;
	int r;

	if ((x->opt->flags & PFX_OPT_TO_FD) == 0)
		return lseek(fd, (off_t)(pos + (int64_t)len), SEEK_SET) == -1 ?
		    -errno : 0;
	/* The hole was paid for (check_limits) before it is written. */
	while (len > 0) {
		n = len < sizeof(zeros) ? (size_t)len : sizeof(zeros);
		r = write_out_fd(fd, zeros, n);
		if (r < 0)
			return r;
		len -= n;
	}
	return 0;
}

/*
 * May entry E write ADD more bytes after a hole of HOLE bytes, its data
 * then ending at END?  Return: 0, or XTR_LIMIT with the run failed and the
 * limit named.
 */
static int
check_limits(struct xtr *x, const struct pfx_entry *e, uint64_t add,
    uint64_t hole, uint64_t end)
{
	const struct pfx_limits *lim = &x->opt->limits;
	char nb[XTR_SHORT_MAX];

	/* What this entry wrote is not in the totals yet. */
	if (xtr_check_bytes(x, e->name, e->bytes + add, hole) != 0)
		return XTR_LIMIT;
	if (lim->max_entry_bytes != 0 && end > lim->max_entry_bytes) {
		xtr_fail(x, EFBIG, "%s: limit max-entry-bytes=%" PRIu64
		    " reached (one entry, holes included; raise "
		    "limits.max_entry_bytes, or set it to 0)", xtr_short_name(e->name, nb),
		    lim->max_entry_bytes);
		return XTR_LIMIT;
	}
	return 0;
}

/*
 * Copy the entry's data to FD.  Blocks may skip ahead (sparse entries):
 * the gap is left as a hole.  Return: 0, -errno for a write error,
 * XTR_READ_FAILED with the run failed when the data cannot be read or
 * ends short of the entry's size, XTR_LIMIT, or XTR_CANCELLED.
 */
static int
copy_data(struct xtr *x, const struct xtr_meta *m, struct pfx_entry *e,
    int fd, struct xtr_stash *stash, bool stream)
{
	const void *buf;
	size_t size;
	int64_t offset, pos = 0;
	uint64_t hole;
	char nb[XTR_SHORT_MAX];
	int r;

	if (stash != NULL)
		stash->len = 0;

	for (;;) {
		r = xtr_source_data(x, &buf, &size, &offset);
		if (r == XTR_DATA_EOF)
			break;
		/* SECURITY: a cancellation is noticed before each block. */
		if (xtr_cancelled(x))
			return XTR_CANCELLED;
		/*
		 * SECURITY: a failed check of the data (a zip member's
		 * CRC-32): such bytes never get a final name.  The members
		 * of a zip are independent, so only this entry fails, as
		 * bsdtar and unzip go on; under PFX_OPT_STRICT the run.
		 */
		if (r == XTR_DATA_BAD &&
		    (x->opt->flags & PFX_OPT_STRICT) == 0)
			return XTR_BAD_DATA;
		if (r != XTR_DATA_OK || offset < pos) {
			xtr_fail_read(x, e->name);
			return XTR_READ_FAILED;
		}
		/* SECURITY: nor does data run past that size. */
		if (m->size_set && (offset > e->size ||
		    (uint64_t)size > (uint64_t)(e->size - offset))) {
			xtr_fail(x, EIO, "%s: archive data cannot be read: "
			    "the entry's data runs past its size (%" PRId64
			    " bytes)", xtr_short_name(e->name, nb), e->size);
			return XTR_READ_FAILED;
		}
		/* SECURITY: a hole costs what its bytes would. */
		hole = (uint64_t)(offset - pos);
		r = check_limits(x, e, size, hole, (uint64_t)offset + size);
		if (r != 0)
			return r;
		x->charged += hole;
		/* Kept for the worker while the bytes come in one piece and
		 * fit; from the first that do not, written here. */
		if (stash != NULL && offset == pos &&
		    size <= stash->cap - stash->len) {
			if (size > 0)	/* an empty block may have no buffer */
				memcpy(stash->buf + stash->len, buf, size);
			stash->len += size;
			pos += (int64_t)size;
			e->bytes += size;
			continue;
		}
		if (stash != NULL) {
			r = write_all(fd, stash->buf, stash->len);
			if (r < 0)
				return r;
			stash->len = 0;
			stash = NULL;
		}
		if (stream)
			r = xtr_async_segment(x, fd, buf, size,
			    (uint64_t)offset);
		else if (offset > pos &&
		    (r = put_hole(x, fd, pos, hole)) < 0)
			;	/* r is the error */
		else
			r = write_to(x, fd, buf, size);
		if (r < 0)
			return r;
		pos = offset + (int64_t)size;
		e->bytes += size;
	}
	/* A sparse entry may end in a hole. */
	if (m->sparse && e->size > pos) {
		hole = (uint64_t)(e->size - pos);
		r = check_limits(x, e, 0, hole,
		    (uint64_t)e->size);
		if (r != 0)
			return r;
		x->charged += hole;
		r = 0;
		if ((x->opt->flags & PFX_OPT_TO_FD) != 0)
			r = put_hole(x, fd, pos, hole);
		else if (ftruncate(fd, (off_t)e->size) == -1)
			r = -errno;
		if (r < 0)
			return r;
		pos = e->size;
	}
	/*
	 * SECURITY: data that ends short of the size its header gave is a
	 * read error too, whatever the reader said: a file cut short (a rar5
	 * volume's part, which libarchive ends without an error) never gets
	 * its name.  Formats that give no size are not judged.
	 */
	if (m->size_set && e->size > pos) {
		xtr_fail(x, EIO, "%s: archive data cannot be read: the "
		    "entry's data ends short of its size (%" PRId64 " of %"
		    PRId64 " bytes)", xtr_short_name(e->name, nb), pos,
		    e->size);
		return XTR_READ_FAILED;
	}
	return 0;
}

/*
 * The mode to create T's file with: its final permission bits, and with
 * PFX_OPT_XATTRS the owner's write bit too until xtr_seal_data() gives
 * the final mode, since fsetxattr(2) of a "user." attribute needs write
 * permission on the inode: an unprivileged run would fail a read-only
 * file that carries one, and the run with it.
 */
static mode_t
create_mode(const struct xtr *x, const struct xtr_tail *t)
{
	mode_t mode = t->mode & 0777;

	if ((x->opt->flags & PFX_OPT_XATTRS) != 0)
		mode |= S_IWUSR;
	return mode;
}

/* Create the file REL of T beneath the root, and its parents if need be. */
static int
begin_file(struct xtr *x, const char *rel, struct xtr_tail *t)
{
	int r;

	r = pfx_root_begin_cached(&x->root, xtr_parent_cache(x, rel), rel,
	    create_mode(x, t), &t->pend);
	if (r == -ENOENT) {
		r = xtr_make_parents(x, rel);
		if (r < 0)
			return r;
		r = pfx_root_begin_cached(&x->root, xtr_parent_cache(x, rel),
		    rel, create_mode(x, t), &t->pend);
	}
	return r;
}

/* see file.h */
int
xtr_write_data(struct xtr *x, const struct xtr_meta *m, struct pfx_entry *e,
    const char *rel, struct xtr_tail *t)
{
	unsigned int tries = 0;
	int r;

	if (rel[0] == '\0')
		return -EISDIR;	/* "." names the destination itself */
	/*
	 * Made with the mode it will have where the umask allows (checked
	 * when it is finished), never with setuid, setgid or sticky bits
	 * while it is written.  The parents are made only when missing.
	 */
	t->mode = xtr_entry_mode(x, e);
	r = begin_file(x, rel, t);
	/* Short of descriptors: those kept for speed go, and again. */
	while (xtr_fd_relieve(x, r, &tries))
		r = begin_file(x, rel, t);
	if (r < 0)
		return r;
	/* SECURITY: a stash only for a file without holes. */
	if (t->stash != NULL && m->sparse)
		t->stash = NULL;
	r = copy_data(x, m, e, t->pend.fd, t->stash, t->stream);
	/* Written whole, or failed, before the next entry is read: a full
	 * disk stops the run at this file, as without the worker. */
	if (r == 0 && t->stream)
		r = xtr_async_settle(x);
	if (r == 0)
		r = xtr_apply_owner_xattrs(x, e, m, t->pend.fd);
	if (r != 0) {
		/* No segment may be left to write to a closed descriptor. */
		if (t->stream)
			(void)xtr_async_settle(x);
		pfx_root_abort(&t->pend);
		return r;
	}
	t->set_times = (x->opt->flags & PFX_OPT_NO_MTIME) == 0;
	if (t->set_times)
		xtr_entry_times(e, m, t->ts);
	t->fsync = (x->opt->flags & PFX_OPT_FSYNC) != 0;
	t->flags = xtr_replaces(x->opt) ?
	    PFX_ROOT_REPLACE : PFX_ROOT_NOREPLACE;
	/* SECURITY: a symlink at the name may only go once judged. */
	if (t->flags == PFX_ROOT_REPLACE &&
	    x->opt->symlinks != PFX_SYMLINKS_REFUSE)
		t->flags = PFX_ROOT_REPLACE_FILE;
	t->rel = rel;
	t->mtime = e->mtime;
	return 0;
}

/* see file.h */
int
xtr_write_stash(struct xtr_tail *t, bool again)
{
	int r;

	if (t->stash == NULL || t->stash->len == 0)
		return 0;
	/* A retry starts over: what a short write left goes first. */
	if (again && (ftruncate(t->pend.fd, 0) == -1 ||
	    lseek(t->pend.fd, 0, SEEK_SET) == -1))
		return -errno;
	r = write_all(t->pend.fd, t->stash->buf, t->stash->len);
	if (r == 0)
		t->stash->len = 0;	/* written: xtr_seal_data() skips it */
	return r;
}

/* see file.h */
int
xtr_seal_data(struct xtr_tail *t)
{
	int r = 0;

	if (t->stash != NULL && t->stash->len > 0)
		r = write_all(t->pend.fd, t->stash->buf, t->stash->len);
	if (r == 0 && fstat(t->pend.fd, &t->st) == -1)
		r = -errno;
	/* After the owner (xtr_write_data): chown(2) may clear setuid and
	 * setgid bits. */
	if (r == 0 && (t->st.st_mode & 07777) != t->mode) {
		r = pfx_fd_chmod(t->pend.fd, t->mode);
		t->st.st_mode = (t->st.st_mode & ~(mode_t)07777) | t->mode;
	}
	if (r == 0 && t->set_times)
		r = pfx_fd_set_times(t->pend.fd, t->ts);
	/* Durable before it has its name: a crash then leaves the old file
	 * or the whole new one under it, never an empty one. */
	if (r == 0 && t->fsync && fsync(t->pend.fd) == -1)
		r = -errno;
	if (r < 0)
		pfx_root_abort(&t->pend);
	return r;
}

/*
 * --keep-newer-files, as GNU tar: is what T's name holds a non-directory
 * whose mtime is the entry's or later?  Asked of the name in the parent
 * already held beneath the root, just before the rename: a file made
 * newer between the two is replaced, as if it had been written just
 * before the rename.
 */
static bool
kept_newer(struct xtr *x, const struct xtr_tail *t)
{
	unsigned int tries = 0;
	struct stat st;
	int fd, r;

	if (x->opt->existing != PFX_EXISTING_KEEP_NEWER)
		return false;
	if (xtr_journal_lists(x, t->rel)) {
		/* --atomic over a populated DEST: an earlier entry of the
		 * name waits beside it, and is what the name will hold. */
		fd = xtr_open_made(x, t->rel);
		while (xtr_fd_nap(fd, &tries))
			fd = xtr_open_made(x, t->rel);
		if (fd < 0)
			return false;
		r = fstat(fd, &st);
		(void)close(fd);
		if (r == -1)
			return false;
	} else if (pfx_pending_existing(&t->pend, &st) != 0) {
		return false;
	}
	return !S_ISDIR(st.st_mode) && (int64_t)st.st_mtime >= t->mtime;
}

/* see file.h */
int
xtr_backup_how(const struct pfx_options *opt)
{
	switch (opt->backup) {
	case PFX_BACKUP_SIMPLE:
		return PFX_PENDING_BACKUP_SIMPLE;
	case PFX_BACKUP_NUMBERED:
		return PFX_PENDING_BACKUP_NUMBERED;
	case PFX_BACKUP_EXISTING:
		return PFX_PENDING_BACKUP_EXISTING;
	default:
		return 0;
	}
}

/* see file.h */
int
xtr_backup_judge(struct xtr *x, const char *rel, const char *bak,
    bool is_link)
{
	char path[PFX_PATH_MAX];
	const char *slash;
	int n;

	slash = strrchr(rel, '/');
	n = snprintf(path, sizeof(path), "%.*s%s",
	    slash != NULL ? (int)(slash - rel + 1) : 0, rel, bak);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	return xtr_backup_removable(x, rel, path, is_link);
}

/*
 * Before make_way() moves or removes what T's name holds: with links
 * allowed, a symlink there (moved aside to T->backup, the backup's name
 * worked out already) or a directory there (removed with what it holds)
 * is a link, or links, gone from the name, which can turn a link already
 * in the destination outwards (y -> a/b/c under e -> y/../../x) just as
 * a file put over the link can (xtr_commit); so can whatever the backup
 * puts over a symlink at its own name (y~): judged the same way.  One
 * lstat, and a judgement only when a backup is made or the name holds a
 * directory to remove.  Return: 0, XTR_REDIRECTS, or -errno.
 */
static int
way_removable(struct xtr *x, const struct xtr_tail *t, bool unlink_dir)
{
	struct stat st;

	/* Nothing moved nor removed: no look at the name (a file's cost). */
	if ((t->backup[0] == '\0' && !unlink_dir) ||
	    x->opt->symlinks == PFX_SYMLINKS_REFUSE ||
	    pfx_pending_existing(&t->pend, &st) != 0)
		return 0;
	if (t->backup[0] != '\0' && !S_ISDIR(st.st_mode))
		return xtr_backup_judge(x, t->rel, t->backup,
		    S_ISLNK(st.st_mode));
	if (unlink_dir && S_ISDIR(st.st_mode))
		return xtr_symlink_removable(x, t->rel);
	return 0;
}

/*
 * Before T replaces its name: a backup of what is there (--backup), and
 * with PFX_OPT_RECURSIVE_UNLINK a directory tree there removed.
 * Return: 0, XTR_REDIRECTS, or -errno.
 */
static int
make_way(struct xtr *x, struct xtr_tail *t)
{
	unsigned int tries = 0;
	struct stat st;
	bool unlink_dir = (x->opt->flags & PFX_OPT_RECURSIVE_UNLINK) != 0;
	int r;

	if (t->flags == PFX_ROOT_NOREPLACE)
		return 0;
	/*
	 * --atomic over a populated DEST changes no name until the end: a
	 * backup or a removal now would break that, so an entry that needs
	 * one fails instead.
	 */
	if (x->journal != NULL && (x->opt->backup != PFX_BACKUP_NONE ||
	    (x->opt->flags & PFX_OPT_RECURSIVE_UNLINK) != 0))
		return pfx_pending_existing(&t->pend, &st) == 0 ?
		    xtr_journal_no_backup(x, t->rel) : 0;
	/*
	 * The backup's name once: the one judged is the one moved to.
	 * Each step opens descriptors (the directory listed, the tree
	 * walked) and, short of them, waits for some: nothing is changed
	 * before it is through (xtr_fd_nap).
	 */
	if (xtr_backup_how(x->opt) != 0) {
		do
			r = pfx_pending_backup_name(&t->pend,
			    xtr_backup_how(x->opt), x->opt->backup_suffix,
			    t->backup, sizeof(t->backup));
		while (xtr_fd_nap(r, &tries));
		if (r < 0)
			return r;
	}
	do
		r = way_removable(x, t, unlink_dir);
	while (xtr_fd_nap(r, &tries));
	if (r == 0 && t->backup[0] != '\0')
		/* SECURITY: the parent, resolved before the data was
		 * written, is proved still beneath the root (replaced.c). */
		r = pfx_pending_backup_as_beneath(&x->root, &t->pend,
		    t->backup);
	if (r != 0) {
		t->backup[0] = '\0';	/* none made */
		return r;
	}
	if (unlink_dir) {
		/* SECURITY: proved beneath the root before each removal,
		 * the entry's parent too (remove.c).  What a shortage left
		 * of the tree goes on the next try. */
		do
			r = pfx_pending_remove_dir_beneath(&x->root,
			    &t->pend);
		while (xtr_fd_nap(r, &tries));
		if (r < 0 && r != -ENOENT && r != -ENOTDIR)
			return r;
	}
	return 0;
}

/* Name T's file: at its name, or beside it for X's journal. */
static int
commit_once(struct xtr *x, struct xtr_tail *t, unsigned int flags)
{
	if (x->journal != NULL)
		return xtr_journal_commit(x, &t->pend, t->rel, flags);
	return pfx_root_commit(&x->root, &t->pend, flags);
}

/* see file.h */
int
xtr_commit(struct xtr *x, struct xtr_tail *t)
{
	int r;

	t->backup[0] = '\0';
	if (kept_newer(x, t)) {
		pfx_root_abort(&t->pend);
		return XTR_KEPT_NEWER;
	}
	r = make_way(x, t);
	if (r != 0) {
		pfx_root_abort(&t->pend);
		return r;
	}
	r = commit_once(x, t, t->flags);
	if (r != PFX_ROOT_SYMLINK_HELD)
		return r;
	/*
	 * The name held a symlink when the commit looked: judge as if that
	 * link goes, whatever the rename replaces now -- it never reads or
	 * follows it.
	 */
	r = xtr_symlink_removable(x, t->rel);
	if (r != 0) {
		pfx_root_abort(&t->pend);
		return r;
	}
	return commit_once(x, t, PFX_ROOT_REPLACE);
}

/* see file.h */
int
xtr_finish_data(struct xtr *x, struct xtr_tail *t)
{
	int r = xtr_seal_data(t);

	if (r < 0)
		return r;
	return xtr_commit(x, t);
}

/* see file.h */
int
xtr_write_regular(struct xtr *x, const struct xtr_meta *m,
    struct pfx_entry *e, const char *rel, struct stat *st)
{
	struct xtr_tail t;
	int r;

	t.stash = NULL;
	t.stream = false;
	r = xtr_write_data(x, m, e, rel, &t);
	if (r != 0)
		return r;
	r = xtr_finish_data(x, &t);
	*st = t.st;
	/* The report comes after T is gone: the backup's name in X. */
	if (r == 0 && t.backup[0] != '\0') {
		memcpy(x->backup, t.backup, sizeof(x->backup));
		e->backup = x->backup;
	}
	return r;
}

/* see file.h */
void
xtr_finish_write_error(struct xtr *x, struct pfx_entry *e, int r)
{
	if (r == XTR_CANCELLED || (r == XTR_READ_FAILED &&
	    x->res->error == ECANCELED))
		xtr_finish_entry(x, e, PFX_ENTRY_FAILED, "interrupted",
		    ECANCELED);
	else if (r == XTR_READ_FAILED && x->res->error == EFBIG)
		/* The read stopped at a limit (the ratio, decode.c). */
		xtr_finish_entry(x, e, PFX_ENTRY_FAILED, "limit", EFBIG);
	else if (r == XTR_READ_FAILED)
		xtr_finish_entry(x, e, PFX_ENTRY_FAILED, "read_error", EIO);
	else if (r == XTR_LIMIT)
		xtr_finish_entry(x, e, PFX_ENTRY_FAILED, "limit", EFBIG);
	else if (r == -EEXIST && !xtr_replaces(x->opt))
		xtr_finish_existing(x, e);
	else if (r == XTR_REDIRECTS)
		xtr_finish_redirects(x, e);
	else if (r == XTR_KEPT_NEWER)
		xtr_finish_entry(x, e, PFX_ENTRY_SKIPPED, "newer_exists", 0);
	else if (r == XTR_BAD_DATA)
		xtr_finish_entry(x, e, PFX_ENTRY_FAILED, "bad_data", EBADMSG);
	else
		xtr_finish_error(x, e, r);
}

/* see file.h */
void
xtr_write_file(struct xtr *x, const struct xtr_meta *m, struct pfx_entry *e,
    const char *rel, const struct stat *relink, const char *relink_name)
{
	struct stat st;
	int r;

	/* Finished by the worker thread when nothing here depends on it. */
	if (relink == NULL && xtr_async_ready(x, rel)) {
		r = xtr_async_write(x, m, e, rel);
		if (r != 0)
			xtr_finish_write_error(x, e, r);
		return;
	}
	r = xtr_write_regular(x, m, e, rel, &st);
	if (r != 0) {
		xtr_finish_write_error(x, e, r);
		return;
	}
	xtr_note_file(x, rel, &st);
	xtr_forget_symlink(x, rel);
	if (relink != NULL)
		xtr_relink_all(x, relink, relink_name, rel, &st);
	xtr_finish_entry(x, e, PFX_ENTRY_EXTRACTED, "none", 0);
}

/* see file.h */
void
xtr_write_out(struct xtr *x, const struct xtr_meta *m, struct pfx_entry *e)
{
	int r;

	/* As tar's -O: only a regular file has data to give. */
	if (e->type != PFX_TYPE_FILE) {
		xtr_finish_entry(x, e, PFX_ENTRY_LISTED, "none", 0);
		return;
	}
	r = copy_data(x, m, e, x->opt->out_fd, NULL, false);
	if (r != 0) {
		xtr_finish_write_error(x, e, r);
		return;
	}
	xtr_finish_entry(x, e, PFX_ENTRY_EXTRACTED, "none", 0);
}
