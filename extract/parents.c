/*
 * parents.c -- the parent directories an entry's name needs, made
 * private (0700) and remembered as made by this run, for dirs.c to give
 * their final modes at the end, made in the parent kept open (kept.c)
 * where there is one.  Below every writer that makes a name (file.c,
 * links.c, dirs.c, dumprename.c).
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "budget.h"
#include "extract.h"
#include "fdbudget.h"
#include "journal.h"
#include "kept.h"
#include "parents.h"
#include "platform.h"
#include "table.h"

/*
 * The identity of the parent REL this run has just made, for slot S:
 * SECURITY: known by its name alone, it could be any directory someone
 * moved to that name by the end, and get this run's mode, owner and
 * times (dirs.c).  Looked up as it was made; if it cannot be, S keeps
 * only its name.
 */
static void
note_id(struct xtr *x, const char *rel, struct xtr_slot *s)
{
	struct stat st;
	int fd;

	fd = pfx_root_open_dir(&x->root, rel);
	if (fd < 0)
		return;
	if (fstat(fd, &st) == 0) {
		s->dev = st.st_dev;
		s->ino = st.st_ino;
		s->has_id = true;
	}
	(void)close(fd);
}

/*
 * Remember that this run made the last CREATED components of DIR, with the
 * implicit mode unless an entry says otherwise later.  ST is DIR's
 * (fstat of it, open), or NULL: its identity is kept, so that DIR gets its
 * mode even when its name leads through a link (--symlinks=root); its
 * parents are named only.
 */
int
xtr_note_made(struct xtr *x, const char *dir, unsigned int created,
    const struct stat *st)
{
	char buf[PFX_PATH_MAX];
	size_t n = strlen(dir);
	struct xtr_slot *s;

	if (n >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, dir, n + 1);
	while (created > 0 && n > 0) {
		s = xtr_table_find(&x->dirs, buf);
		if (s == NULL) {
			s = xtr_table_add(&x->dirs, buf);
			if (s == NULL)
				return -ENOMEM;
			s->mode = XTR_IMPLICIT_DIR_MODE;
			if (n == strlen(dir) && st != NULL) {
				s->dev = st->st_dev;
				s->ino = st->st_ino;
				s->has_id = true;
			} else if (n < strlen(dir))
				note_id(x, buf, s);
		}
		created--;
		while (n > 0 && buf[n - 1] != '/')
			n--;
		if (n > 0)
			n--;	/* drop the '/' too */
		buf[n] = '\0';
	}
	return 0;
}

/* see parents.h */
int
xtr_make_parents(struct xtr *x, const char *rel)
{
	char parent[PFX_PATH_MAX];
	const char *slash = strrchr(rel, '/');
	unsigned int created = 0;
	struct stat st;
	size_t n;
	int fd, r;

	if (slash == NULL)
		return 0;
	n = (size_t)(slash - rel);
	if (n >= sizeof(parent))
		return -ENAMETOOLONG;
	memcpy(parent, rel, n);
	parent[n] = '\0';
	fd = xtr_journal_mkdir(x, parent);
	if (fd == 0) {
		fd = pfx_root_mkdirs_count(&x->root, parent,
		    XTR_PRIVATE_DIR_MODE, &created);
		if (xtr_fd_relieve(x, fd))
			fd = pfx_root_mkdirs_count(&x->root, parent,
			    XTR_PRIVATE_DIR_MODE, &created);
	}
	if (fd < 0)
		return fd;
	r = 0;
	if (created > 0 && xtr_count_inodes(x, created) != 0)
		r = -EFBIG;
	if (r == 0 && created > 0)
		r = xtr_note_made(x, parent, created,
		    fstat(fd, &st) == 0 ? &st : NULL);
	(void)close(fd);
	return r;
}

/* see parents.h */
int
xtr_mkdirs(struct xtr *x, const char *rel, unsigned int *created)
{
	int fd;

	fd = plat_mkdirs_kept(&x->root, xtr_parent_cache(x, rel), rel,
	    XTR_PRIVATE_DIR_MODE, created);
	if (xtr_fd_relieve(x, fd))
		fd = plat_mkdirs_kept(&x->root, xtr_parent_cache(x, rel), rel,
		    XTR_PRIVATE_DIR_MODE, created);
	return fd;
}
