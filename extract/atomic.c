/*
 * atomic.c -- all-or-nothing extraction (PFX_OPT_ATOMIC): the archive is
 * extracted into a private staging directory beside DEST, and only a run
 * that did not end PFX_FATAL is published at DEST, in one rename; any
 * other run's staging tree is removed whole, and DEST is left exactly as
 * it was.
 *
 * Refusals without PFX_OPT_STRICT do not stop a run, so such a tree is
 * published, without the refused entries: the caller asked for the
 * entries that are safe.  With PFX_OPT_STRICT the first refusal is fatal
 * and nothing is published.  The staging directory, its publication and
 * its removal are the platform layer's (pfx_stage_* in pfx_root.h); the
 * run inside is the ordinary one, pinned at the staging directory, so
 * every directory's final mode and times are set before the rename.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "atomic.h"
#include "engine.h"
#include "extract.h"
#include "fail.h"

/* Fail RES with ERROR and "DEST: WHAT: strerror" as its message. */
static void
fail(struct pfx_result *res, int error, const char *dest, const char *what)
{
	res->status = PFX_FATAL;
	res->error = error;
	snprintf(res->message, sizeof(res->message), "%s: %s%s%s", dest,
	    what, what[0] != '\0' ? ": " : "", strerror(error));
}

/*
 * Say in BUF (CAP bytes) where the staging directory NAME is: beside the
 * destination, or UP levels above its parent (pfx_stage.up), where no
 * one else can write.
 */
static const char *
where(char *buf, size_t cap, const char *name, unsigned int up)
{
	if (up == 0)
		snprintf(buf, cap, "%s beside the destination", name);
	else
		snprintf(buf, cap, "%s, %u level%s above the destination's "
		    "parent,", name, up, up == 1 ? "" : "s");
	return buf;
}

/*
 * Fail RES: the staging directory NAME, UP levels above DEST's parent,
 * was not found at its name again (someone swapped it), so it was left
 * as it is.
 */
static void
fail_stale(struct pfx_result *res, const char *dest, const char *name,
    unsigned int up)
{
	char at[sizeof(((struct pfx_stage *)0)->name) + 64];
	char notice[sizeof(res->message)];

	res->status = PFX_FATAL;
	res->error = ESTALE;
	snprintf(notice, sizeof(notice), "%s%sthe staging directory %s was "
	    "replaced by another directory during the run (someone else can "
	    "write there); the other directory was left untouched",
	    res->message[0] == '\0' ? dest : "",
	    res->message[0] == '\0' ? ": " : "",
	    where(at, sizeof(at), name, up));
	xtr_append_notice(res, notice);
}

/* Say why DEST cannot be staged, from pfx_stage_open()'s error R. */
static void
fail_open(struct pfx_result *res, const struct pfx_stage *st,
    const char *dest, int r)
{
	const char *why;

	switch (r) {
	case -EINVAL:
		why = "PFX_OPT_ATOMIC needs a destination with a name of its own, "
		    "not '.' or '..'";
		break;
	case -ENOTDIR:
	case -ELOOP:
		why = r == -ELOOP ? "a symbolic link" : "not a directory";
		res->status = PFX_FATAL;
		res->error = -r;
		snprintf(res->message, sizeof(res->message), "%s: exists and "
		    "is %s; PFX_OPT_ATOMIC needs a directory or no destination",
		    dest, why);
		return;
	case -ENOTEMPTY:
		why = "a directory that is not empty, in a parent directory "
		    "that others can write to; PFX_OPT_ATOMIC unpacks into a "
		    "populated destination only where no one else can swap "
		    "it meanwhile";
		break;
	case -EXDEV:
		why = "PFX_OPT_ATOMIC cannot replace a mount point";
		break;
	case -EPERM:
		why = "an empty directory, in a parent directory that others "
		    "can write to; PFX_OPT_ATOMIC replaces an existing DEST only "
		    "where no one else can swap it meanwhile: remove it, and "
		    "PFX_OPT_ATOMIC makes it anew";
		break;
	case -ESTALE:
		fail_stale(res, dest, st->name, st->up);
		return;
	default:
		fail(res, -r, dest, "cannot stage the destination beside it");
		return;
	}
	res->status = PFX_FATAL;
	res->error = -r;
	snprintf(res->message, sizeof(res->message), "%s: %s", dest, why);
}

/*
 * Add to RES's message that the staging directory NAME, UP levels above
 * DEST's parent, could not be removed (error R), so the caller knows
 * where the tree was left.
 */
static void
tell_leftover(struct pfx_result *res, const char *name, unsigned int up,
    int r)
{
	char at[sizeof(((struct pfx_stage *)0)->name) + 64];
	char notice[sizeof(res->message)];

	snprintf(notice, sizeof(notice), "the staging directory %s could not "
	    "be removed: %s", where(at, sizeof(at), name, up), strerror(-r));
	xtr_append_notice(res, notice);
}

/* see atomic.h */
enum pfx_status
xtr_extract_atomic(const struct xtr_in *src, int dirfd, const char *dest,
    const struct pfx_options *opt, struct pfx_result *result)
{
	struct pfx_options inner = *opt;
	struct pfx_stage st;
	char name[sizeof(st.name)];
	int r;

	memset(result, 0, sizeof(*result));
	result->resolver = "none";
	r = pfx_stage_open(&st, dirfd, dest);
	/*
	 * A destination that holds something, or that cannot be replaced
	 * in one rename ('.', a mount point): every name goes beside its
	 * own, and all are put in place at the end (journal.c).  All
	 * beneath DEST, so the writer may be confined as in any run.
	 * SECURITY: journal.c opens DEST by its name again.  In a parent
	 * others can write, they could swap DEST for a directory of theirs
	 * or a victim between the look and that open (a mount point cannot
	 * be renamed, '.' has no name): refused there, as before.
	 */
	if (r == -EINVAL || r == -EXDEV || (r == -ENOTEMPTY &&
	    st.parent_closed)) {
		inner.flags &= ~PFX_OPT_ATOMIC;
		return xtr_extract_journaled(src, dirfd, dest, &inner, result);
	}
	if (r < 0) {
		fail_open(result, &st, dest, r);
		return result->status;
	}
	memcpy(name, st.name, sizeof(name));
	inner.flags &= ~PFX_OPT_ATOMIC;
	/*
	 * SECURITY: publishing and discarding need rights in DEST's parent
	 * that must never be given away: this process keeps them and is not
	 * confined.  With a sandbox the archive is parsed in the decoder
	 * process (child.c), which can write nothing, and this process
	 * writes the staging tree from what it sends.
	 */
	if ((inner.flags & PFX_OPT_SANDBOX) != 0)
		inner.flags = (inner.flags & ~PFX_OPT_SANDBOX) |
		    PFX_OPT_SANDBOX_CHILD;
	(void)xtr_extract(src, st.fd, ".", &inner, result);
	/* A stop asked for after the last entry still publishes nothing. */
	if (result->status != PFX_FATAL && opt->cancel != NULL &&
	    *opt->cancel != 0) {
		result->status = PFX_FATAL;
		result->error = ECANCELED;
		snprintf(result->message, sizeof(result->message),
		    "interrupted");
	}
	if (result->status != PFX_FATAL) {
		r = pfx_stage_publish(&st, (opt->flags & PFX_OPT_FSYNC) != 0 ?
		    PFX_STAGE_SYNC : 0);
		if (r == 0)
			return result->status;
		if (st.fd < 0) {
			/* Published; only a step after the rename failed. */
			if (st.name[0] == '\0') {
				fail(result, -r, dest, "published, but not "
				    "synced");
				return result->status;
			}
			snprintf(result->message, sizeof(result->message),
			    "%s: published", dest);
			if (r == -ESTALE)
				fail_stale(result, dest, name, st.up);
			else
				tell_leftover(result, name, st.up, r);
			result->status = PFX_FATAL;
			result->error = -r;
			return result->status;
		}
		if (r == -ESTALE) {
			fail_stale(result, dest, name, st.up);
			return result->status;
		}
		fail(result, -r, dest, r == -EEXIST || r == -ENOTEMPTY ?
		    "changed during extraction; not replaced" :
		    "cannot publish the extracted tree");
	}
	/* SECURITY: nothing of a failed run stays, and DEST is untouched. */
	r = pfx_stage_discard(&st);
	if (r == -ESTALE)
		fail_stale(result, dest, name, st.up);
	else if (r < 0)
		tell_leftover(result, name, st.up, r);
	return result->status;
}
