/*
 * stage.c -- a staging tree beside a destination, published at the
 * destination's name in one rename, or removed whole: what makes an
 * extraction all-or-nothing.
 *
 * The layout, in DEST's parent P, or in G, the nearest directory above P
 * on P's mount that no one else can change (pick_stage_dir()):
 *
 *	G/.DEST.pfx-XXXXXXXX/		the private directory: 0700, ours
 *	G/.DEST.pfx-XXXXXXXX/tree/	the staging tree the run fills
 *
 * SECURITY: P is not ours.  Others may write to it (/srv/uploads, a
 * shared build directory, a temporary directory without the sticky bit),
 * and renameat2(RENAME_EXCHANGE) lets them swap any directory they can
 * move with any name in P between our look and our use.  So the private
 * directory goes where no one else can change a name: P itself if it is
 * closed to others (ours or root's and not writable by others, or
 * sticky), else the first such directory above it on the same mount
 * (/srv for /srv/uploads/1234), from which the tree is renamed into P as
 * it would be from P.  In P, every name is acted on at most once, by a
 * call whose effect on a swapped-in directory is nothing its swapper
 * could not have done alone:
 *
 *   - renameat2(RENAME_NOREPLACE) of the tree to DEST moves only our
 *     tree (its name is in the private directory, where no one else can
 *     rename) and makes a new name, or fails;
 *   - renameat2(RENAME_EXCHANGE) with an empty DEST moves our tree in,
 *     and whatever stood at DEST into the private directory, where it is
 *     judged by identity with no one able to swap it again; anything but
 *     the empty DEST we looked at is swapped straight back.
 *
 * The private directory's own name (mkdirat(), then opened and used only
 * if it is a directory of ours, private and empty; at the end, found by
 * identity and removed with rmdir(2)) is in a directory closed to others,
 * so no one can swap it.  Only where no directory up to the mount's top
 * is closed to others does it go in P itself; then a directory swapped
 * in between the look and the rmdir(2) would be removed if empty -- and
 * whoever swapped it in could have removed it (moving a directory out of
 * a place needs the rights that removing it from there needs).
 *
 * The tree is filled, emptied and removed only through descriptors and
 * names inside the private directory, which no one else can enter or
 * change: nothing is ever removed by walking a name in P.  DEST's parent
 * is opened once; every later step is relative to that descriptor, so
 * all of this acts in one directory even if the path that named it
 * changes meanwhile, and the tree is on DEST's filesystem by
 * construction, so the final rename cannot turn into a copy.
 */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "platform.h"

/* Fresh staging names to try before giving up with EEXIST. */
#define STAGE_TRIES 16

/* ".pfx-" and eight hex digits, after ".DEST". */
#define STAGE_SUFFIX_LEN 13

/* The staging tree's name in the private directory. */
#define TREE "tree"

/* What stood at DEST, moved into the private directory to be judged. */
#define OLD "old"

/*
 * A private directory that a killed run left (SIGKILL, a crash, a power
 * loss: nothing ran to remove it) is taken back by a later run for a
 * DEST of the same name, once no run holds it (flock(2): each holds its
 * own while it lives, and the kernel lets go at its death) and it is
 * this many seconds old (the moment between a run's mkdir and its
 * flock).  At most STAGE_REAP_MAX a run, so that one run never pays
 * for many: the next ones take the rest.
 */
#define STAGE_STALE_SEC 60
#define STAGE_REAP_MAX 4

/*
 * Split DEST into the path of its parent (PARENT, PFX_PATH_MAX bytes)
 * and its last component (LEAF, PFX_NAME_MAX + 1 bytes), trailing
 * slashes dropped.  Return: 0, -EINVAL (no last component of its own),
 * or -ENAMETOOLONG.
 */
static int
split_dest(const char *dest, char *parent, char *leaf)
{
	size_t n = strlen(dest), cut, plen;

	while (n > 0 && dest[n - 1] == '/')
		n--;
	cut = n;
	while (cut > 0 && dest[cut - 1] != '/')
		cut--;
	if (n == cut || n - cut > PFX_NAME_MAX)
		return n == cut ? -EINVAL : -ENAMETOOLONG;
	memcpy(leaf, dest + cut, n - cut);
	leaf[n - cut] = '\0';
	if (strcmp(leaf, ".") == 0 || strcmp(leaf, "..") == 0)
		return -EINVAL;
	plen = cut;
	while (plen > 1 && dest[plen - 1] == '/')
		plen--;		/* "a//b": parent "a"; "/b": parent "/" */
	if (plen == 0) {
		memcpy(parent, ".", 2);
		return 0;
	}
	if (plen >= PFX_PATH_MAX)
		return -ENAMETOOLONG;
	memcpy(parent, dest, plen);
	parent[plen] = '\0';
	return 0;
}

/*
 * Look at what stands at DEST in the parent open as PFD (identity
 * PARENT): nothing (ST->replace 0), or an empty directory on the same
 * mount (ST->replace 1, its identity and mode recorded).
 * Return: 0, or -ELOOP, -ENOTDIR, -ENOTEMPTY, -EXDEV, -errno.
 */
static int
check_dest(struct pfx_stage *st, const struct plat_id *parent)
{
	struct plat_id id;
	struct stat sb;
	int fd, r;

	if (fstatat(st->parentfd, st->dest, &sb, AT_SYMLINK_NOFOLLOW) == -1) {
		if (errno != ENOENT)
			return -errno;
		st->replace = 0;	/* its mode: make_tree()'s */
		return 0;
	}
	if (S_ISLNK(sb.st_mode))
		return -ELOOP;
	if (!S_ISDIR(sb.st_mode))
		return -ENOTDIR;
	fd = openat(st->parentfd, st->dest, O_RDONLY | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC);
	if (fd == -1)
		return errno == ENOTDIR ? -ELOOP : -errno;
	r = plat_os_identify(fd, &id);
	if (r == 0 && (id.dev != parent->dev || (id.mnt != 0 &&
	    parent->mnt != 0 && id.mnt != parent->mnt)))
		r = -EXDEV;	/* a mount point: it cannot be renamed */
	if (r == 0) {
		r = plat_dir_is_empty(fd);
		if (r == 0)
			r = -ENOTEMPTY;
		else if (r == 1)
			r = 0;
	}
	plat_close(fd);
	if (r < 0)
		return r;
	st->replace = 1;
	st->old_dev = id.dev;
	st->old_ino = id.ino;
	st->mode = id.mode & 07777;
	return 0;
}

/* DEST's part of a private directory's name (stage_name()): its length. */
static size_t
stage_dest_len(const struct pfx_stage *st)
{
	size_t n = strlen(st->dest);

	return n > PFX_NAME_MAX - 1 - STAGE_SUFFIX_LEN ?
	    PFX_NAME_MAX - 1 - STAGE_SUFFIX_LEN : n;
}

/* Could NAME be a private directory of a run for ST's DEST? */
static bool
is_stage_name(const struct pfx_stage *st, const char *name)
{
	size_t n = stage_dest_len(st), i;

	if (strlen(name) != 1 + n + STAGE_SUFFIX_LEN || name[0] != '.' ||
	    memcmp(name + 1, st->dest, n) != 0 ||
	    memcmp(name + 1 + n, ".pfx-", 5) != 0)
		return false;
	for (i = 1 + n + 5; name[i] != '\0'; i++)
		if (!((name[i] >= '0' && name[i] <= '9') ||
		    (name[i] >= 'a' && name[i] <= 'f')))
			return false;
	return true;
}

/*
 * Fill ST->name with ".DEST.pfx-XXXXXXXX", DEST cut to keep the whole
 * within PFX_NAME_MAX bytes.  Return: 0, or -errno.
 */
static int
stage_name(struct pfx_stage *st)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char rnd[4];
	size_t n = stage_dest_len(st), i;
	char *p;
	int r;

	r = plat_os_random(rnd, sizeof(rnd));
	if (r < 0)
		return r;
	p = st->name;
	*p++ = '.';
	memcpy(p, st->dest, n);
	p += n;
	memcpy(p, ".pfx-", 5);
	p += 5;
	for (i = 0; i < sizeof(rnd); i++) {
		*p++ = hex[rnd[i] >> 4];
		*p++ = hex[rnd[i] & 0xf];
	}
	*p = '\0';
	return 0;
}

/*
 * Is the entry NAME of DIRFD the directory DEV/INO?
 * Return: 1 yes, 0 no, or -errno.
 */
static int
is_same(int dirfd, const char *name, dev_t dev, ino_t ino)
{
	struct stat sb;

	if (fstatat(dirfd, name, &sb, AT_SYMLINK_NOFOLLOW) == -1)
		return -errno;
	return S_ISDIR(sb.st_mode) && sb.st_dev == dev && sb.st_ino == ino;
}

/*
 * Is the directory open as FD, identified as ID, a new one of ours: on
 * the parent's mount (PARENT), owned by us, with no rights for anyone
 * else, and empty?  Return: 0 yes, -ESTALE no, or -errno.
 */
static int
is_ours(int fd, const struct plat_id *id, const struct plat_id *parent)
{
	struct stat sb;
	int r;

	if (fstat(fd, &sb) == -1)
		return -errno;
	if (!S_ISDIR(id->mode) || id->dev != parent->dev ||
	    (id->mnt != 0 && parent->mnt != 0 && id->mnt != parent->mnt) ||
	    sb.st_uid != geteuid() || (sb.st_mode & 077) != 0)
		return -ESTALE;
	r = plat_dir_is_empty(fd);
	return r == 1 ? 0 : r == 0 ? -ESTALE : r;
}

/*
 * Remove the private directory from DEST's parent, once it is empty, if
 * it is still at its name (see the SECURITY note at the top).
 * Return: 0, -ESTALE (another directory stands at its name: left as it
 * is), or -errno.
 */
static int
remove_private(struct pfx_stage *st)
{
	int r;

	r = is_same(st->stagefd, st->name, st->priv_dev, st->priv_ino);
	if (r == 0 || r == -ENOENT)
		return -ESTALE;
	if (r < 0)
		return r;
	if (unlinkat(st->stagefd, st->name, AT_REMOVEDIR) == -1)
		return errno == EEXIST ? -ENOTEMPTY : -errno;
	return 0;
}

/*
 * Can no one but us (and root) rename or remove entries of the directory
 * SB?  Owned by us or root, and writable by no one else, or sticky (then
 * others may rename only their own entries, and exchange none of ours).
 * Group write stands for any ACL entry that grants writing, as the ACL
 * mask shows in the group bits.
 */
static bool
closed_to_others(const struct stat *sb)
{
	if (sb->st_uid != geteuid() && sb->st_uid != 0)
		return false;
	return (sb->st_mode & (S_IWGRP | S_IWOTH)) == 0 ||
	    (sb->st_mode & S_ISVTX) != 0;
}

/*
 * Choose where the private directory goes: DEST's parent if no one else
 * can change its entries, else the nearest directory above it, on the
 * same mount, that no one else can change; DEST's parent again if there
 * is none.  SECURITY: in a parent closed to others, no one can swap a
 * name of ours between a look and a use, so every step on the private
 * directory's name is proved; only in the last case is its final rmdir(2)
 * one that a swap could divert, and then only to an empty directory its
 * swapper could remove (see the head comment).  Sets ST->stagefd (which
 * may be ST->parentfd) and ST->up; a directory above that cannot be
 * looked at is passed over.  Return: 0.
 */
static int
pick_stage_dir(struct pfx_stage *st, const struct plat_id *parent)
{
	struct plat_id id, upid;
	struct stat sb;
	unsigned int up;
	int fd, next, r;

	st->stagefd = st->parentfd;
	st->up = 0;
	fd = st->parentfd;
	id = *parent;
	for (up = 0; up <= PLAT_MAX_DEPTH; up++) {
		if (fstat(fd, &sb) == -1)
			break;
		if (up == 0)
			st->parent_closed = closed_to_others(&sb);
		if (closed_to_others(&sb)) {
			st->stagefd = fd;
			st->up = up;
			return 0;
		}
		next = openat(fd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (next == -1)
			break;
		r = plat_os_identify(next, &upid);
		if (r < 0 || (upid.dev == id.dev && upid.ino == id.ino) ||
		    upid.dev != parent->dev || (upid.mnt != 0 &&
		    parent->mnt != 0 && upid.mnt != parent->mnt)) {
			plat_close(next);	/* the top, or another mount */
			break;
		}
		if (fd != st->parentfd)
			plat_close(fd);
		fd = next;
		id = upid;
	}
	if (fd != st->parentfd)
		plat_close(fd);
	return 0;	/* none closed: DEST's parent itself */
}

/*
 * Make the private directory in ST->stagefd and open it as ST->privfd:
 * a fresh name, and only a directory of ours at it is used.
 * Return: 0, or -errno: -ESTALE says that what stands at the name we
 * made is not ours, and is left as it is.  Once the name is made,
 * ST->name keeps it, unless we removed it again.
 */
static int
make_private(struct pfx_stage *st, const struct plat_id *parent)
{
	struct plat_id id;
	int i, r;

	for (i = 0; i < STAGE_TRIES; i++) {
		r = stage_name(st);
		if (r < 0)
			return r;
		if (mkdirat(st->stagefd, st->name, S_IRWXU) == 0)
			break;
		if (errno != EEXIST) {
			st->name[0] = '\0';
			return -errno;
		}
	}
	if (i == STAGE_TRIES) {
		st->name[0] = '\0';
		return -EEXIST;
	}
	/* From here on ST->name is a name we made, for the messages. */
	st->privfd = openat(st->stagefd, st->name, O_RDONLY | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC);
	if (st->privfd == -1)
		return errno == ENOENT || errno == ENOTDIR || errno == ELOOP ?
		    -ESTALE : -errno;
	r = plat_os_identify(st->privfd, &id);
	if (r == 0)
		r = is_ours(st->privfd, &id, parent);
	if (r < 0)
		return r;
	st->priv_dev = id.dev;
	st->priv_ino = id.ino;
	if (fchmod(st->privfd, S_IRWXU) == -1)
		return -errno;
	/*
	 * Held while this run lives: no later run takes it back.  Where the
	 * filesystem cannot lock a directory (NFS without local locks may
	 * refuse an exclusive lock on a descriptor open to read), the run
	 * goes on unlocked: a later run cannot lock it either, and takes
	 * back only what it could lock (is_left_over()).
	 */
	if (flock(st->privfd, LOCK_EX | LOCK_NB) == -1 && errno == EWOULDBLOCK)
		return -ESTALE;
	return 0;
}

/*
 * Is the directory open as FD, at NAME in ST->stagefd, a private one
 * that a killed run left: ours, private, on DEST's parent's mount
 * (PARENT), old, still at NAME, held by no run (FD then holds it), and
 * holding no directory that stood at DEST?  Return: true or false.
 */
static bool
is_left_over(const struct pfx_stage *st, int fd, const char *name,
    const struct plat_id *parent)
{
	struct plat_id id;
	struct stat sb;

	if (plat_os_identify(fd, &id) < 0 || fstat(fd, &sb) == -1 ||
	    !S_ISDIR(sb.st_mode) || sb.st_uid != geteuid() ||
	    (sb.st_mode & 077) != 0 || id.dev != parent->dev ||
	    (id.mnt != 0 && parent->mnt != 0 && id.mnt != parent->mnt) ||
	    sb.st_mtime > time(NULL) - STAGE_STALE_SEC)
		return false;
	if (flock(fd, LOCK_EX | LOCK_NB) == -1)
		return false;
	/* SECURITY: what stood at DEST, moved in by a publish that was
	 * killed before it could swap it back (OLD), may be the user's:
	 * such a directory is left for a person to look at. */
	if (fstatat(fd, OLD, &sb, AT_SYMLINK_NOFOLLOW) == 0 || errno != ENOENT)
		return false;
	return is_same(st->stagefd, name, id.dev, id.ino) == 1;
}

/*
 * Take back what killed runs left for DEST in ST->stagefd (see
 * STAGE_STALE_SEC), at most STAGE_REAP_MAX of them.  SECURITY: only in
 * a directory no one else can change names in (closed_to_others()), so
 * that the names looked at are the ones removed; each tree goes with
 * pfx_remove_tree(), never through a symlink nor into another mount.
 * Best effort: what cannot be taken back is left as it was.
 */
static void
reap_left_over(struct pfx_stage *st, const struct plat_id *parent)
{
	struct dirent *e;
	struct stat sb;
	size_t n = 0;
	DIR *d;
	int fd;

	if (fstat(st->stagefd, &sb) == -1 || !closed_to_others(&sb))
		return;
	fd = openat(st->stagefd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd == -1)
		return;
	d = fdopendir(fd);
	if (d == NULL) {
		plat_close(fd);
		return;
	}
	while (n < STAGE_REAP_MAX && (e = readdir(d)) != NULL) {
		if (!is_stage_name(st, e->d_name) ||
		    strcmp(e->d_name, st->name) == 0)
			continue;
		fd = openat(st->stagefd, e->d_name, O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC);
		if (fd == -1)
			continue;
		if (is_left_over(st, fd, e->d_name, parent) &&
		    pfx_remove_tree(st->stagefd, e->d_name) == 0)
			n++;
		plat_close(fd);
	}
	(void)closedir(d);
}

/*
 * Make the staging tree in the private directory, open it as ST->fd and
 * record its identity.  No one else can enter the private directory, so
 * the name made is the directory opened.  Return: 0, or -errno.
 */
static int
make_tree(struct pfx_stage *st)
{
	struct plat_id id;
	int r;

	/* 0777: the kernel takes away what the caller's umask (or a default
	 * ACL) says, which no one else can meet in the private directory;
	 * a new DEST gets that mode, as mkdir(2) would have given it.
	 * Nothing else reads the umask without changing it for every
	 * thread (umask(2)), where /proc is not mounted. */
	if (mkdirat(st->privfd, TREE, 0777) == -1)
		return -errno;
	st->fd = openat(st->privfd, TREE, O_RDONLY | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC);
	if (st->fd == -1)
		return -errno;
	r = plat_os_identify(st->fd, &id);
	if (r < 0)
		return r;
	st->dev = id.dev;
	st->ino = id.ino;
	if (!st->replace)
		st->mode = id.mode & 07777;
	/* Private while it fills, whatever the umask took away. */
	if (fchmod(st->fd, S_IRWXU) == -1)
		return -errno;
	return 0;
}

/* Release ST's descriptors. */
static void
release(struct pfx_stage *st)
{
	plat_close(st->fd);
	plat_close(st->privfd);
	if (st->stagefd != st->parentfd)
		plat_close(st->stagefd);
	plat_close(st->parentfd);
	st->fd = st->privfd = st->parentfd = st->stagefd = -1;
}

/* see pfx_root.h */
int
pfx_stage_open(struct pfx_stage *st, int dirfd, const char *dest)
{
	char parent[PFX_PATH_MAX];
	struct plat_id pid;
	int r;

	memset(st, 0, sizeof(*st));
	st->fd = st->privfd = st->parentfd = st->stagefd = -1;
	r = split_dest(dest, parent, st->dest);
	if (r < 0)
		return r;
	/* The caller's choice: followed like any but DEST's last part. */
	st->parentfd = openat(dirfd, parent, O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC);
	if (st->parentfd == -1)
		return -errno;
	r = plat_os_identify(st->parentfd, &pid);
	if (r == 0)
		r = check_dest(st, &pid);
	if (r == -ENOTEMPTY || r == -EXDEV) {
		/* The caller may unpack into it; only if no one can swap it. */
		struct stat sb;

		st->parent_closed = fstat(st->parentfd, &sb) == 0 &&
		    closed_to_others(&sb);
	}
	if (r == 0)
		r = pick_stage_dir(st, &pid);
	/*
	 * SECURITY: an exchange with the empty DEST is a step on a name
	 * others could swap meanwhile, so it is only taken in a parent
	 * closed to them; elsewhere only a new name is ever made there.
	 */
	if (r == 0 && st->replace && !st->parent_closed)
		r = -EPERM;
	if (r == 0) {
		r = make_private(st, &pid);
		if ((r == -EACCES || r == -EPERM || r == -EROFS) &&
		    st->stagefd != st->parentfd) {
			/* Not ours to write to after all: DEST's parent. */
			plat_close(st->stagefd);
			st->stagefd = st->parentfd;
			st->up = 0;
			r = make_private(st, &pid);
		}
	}
	if (r == 0)
		r = make_tree(st);
	if (r == 0)
		reap_left_over(st, &pid);
	if (r < 0 && st->priv_ino != 0) {
		/* Ours and checked: undo what we made, through it. */
		(void)unlinkat(st->privfd, TREE, AT_REMOVEDIR);
		if (remove_private(st) == 0)
			st->name[0] = '\0';
	}
	if (r < 0)
		release(st);
	return r;
}

/*
 * Undo an exchange: swap what is at DEST (our tree, unless it was moved
 * meanwhile) with what is at TREE in the private directory (what stood at
 * DEST), so that DEST holds its old directory again.  Return: R, or
 * -ESTALE if the tree did not come back (see pfx_stage_discard()): then
 * someone moved it away from DEST and put another directory there in
 * the instant between the two exchanges, and that one stays in the
 * private directory, where the message names it -- a move its mover had
 * the rights to make anywhere they can write.
 */
static int
swap_back(struct pfx_stage *st, int r)
{
	int back;

	(void)plat_os_rename_dir(st->privfd, TREE, st->parentfd, st->dest,
	    PLAT_RENAME_EXCHANGE);
	back = is_same(st->privfd, TREE, st->dev, st->ino);
	return back == 1 ? r : -ESTALE;
}

/*
 * Replace the empty directory DEST by the staging tree, where the system
 * cannot exchange: move what stands at DEST into the private directory,
 * judge it there, move the tree to DEST, and remove it; if it is not the
 * empty DEST we looked at, or the tree cannot follow, move it back.
 * Return: 0, or -errno (-ESTALE: something that is not ours was left in
 * the private directory).
 */
static int
replace_by_steps(struct pfx_stage *st)
{
	int r, same;

	r = plat_os_rename_dir(st->parentfd, st->dest, st->privfd, OLD,
	    PLAT_RENAME_NOREPLACE);
	if (r < 0)
		return r == -ENOENT ? -EEXIST : r;
	same = is_same(st->privfd, OLD, st->old_dev, st->old_ino);
	r = same == 1 ? 0 : same == 0 ? -EEXIST : same;
	if (r == 0)
		r = plat_os_rename_dir(st->privfd, TREE, st->parentfd,
		    st->dest, PLAT_RENAME_NOREPLACE);
	if (r == 0) {
		if (unlinkat(st->privfd, OLD, AT_REMOVEDIR) == 0)
			return 0;
		/* Filled meanwhile: the tree goes back, then DEST. */
		r = errno == EEXIST ? -ENOTEMPTY : -errno;
		if (plat_os_rename_dir(st->parentfd, st->dest, st->privfd,
		    TREE, PLAT_RENAME_NOREPLACE) < 0 ||
		    is_same(st->privfd, TREE, st->dev, st->ino) != 1)
			return -ESTALE;
	}
	if (plat_os_rename_dir(st->privfd, OLD, st->parentfd, st->dest,
	    PLAT_RENAME_NOREPLACE) < 0)
		return -ESTALE;
	return r;
}

/*
 * Swap the staging tree with the empty directory DEST.  What comes back
 * lands in the private directory, where no one else can swap it: only
 * the very empty DEST we looked at is removed (rmdir(2): only if still
 * empty); anything else is swapped back.  Return: 0, or -errno.
 */
static int
replace_by_exchange(struct pfx_stage *st)
{
	int r;

	r = is_same(st->parentfd, st->dest, st->old_dev, st->old_ino);
	if (r <= 0)
		return r == 0 || r == -ENOENT ? -EEXIST : r;
	r = plat_os_rename_dir(st->privfd, TREE, st->parentfd, st->dest,
	    PLAT_RENAME_EXCHANGE);
	if (r == -ENOTSUP)
		return replace_by_steps(st);
	if (r < 0)
		return r;
	r = is_same(st->privfd, TREE, st->old_dev, st->old_ino);
	if (r == 1 && unlinkat(st->privfd, TREE, AT_REMOVEDIR) == 0)
		return 0;
	if (r == 1)
		r = errno == EEXIST ? -ENOTEMPTY : -errno;
	else if (r == 0)
		r = -EEXIST;	/* swapped for another since we looked */
	return swap_back(st, r);
}

/* see pfx_root.h */
int
pfx_stage_publish(struct pfx_stage *st, unsigned int flags)
{
	int r;

	if (st->fd < 0)
		return -EBADF;
	if (fchmod(st->fd, st->mode) == -1)
		return -errno;
	if (st->replace)
		r = replace_by_exchange(st);
	else
		r = plat_os_rename_dir(st->privfd, TREE, st->parentfd,
		    st->dest, PLAT_RENAME_NOREPLACE);
	if (r < 0) {
		(void)fchmod(st->fd, S_IRWXU);
		return r;
	}
	/*
	 * Published: from here on a failure only leaves the (empty)
	 * private directory behind, or the new name not yet durable.
	 */
	plat_close(st->fd);
	st->fd = -1;
	r = remove_private(st);
	if (r == 0)
		st->name[0] = '\0';
	if ((flags & PFX_STAGE_SYNC) != 0 && fsync(st->parentfd) == -1 &&
	    r == 0)
		r = -errno;
	release(st);
	return r;
}

/* see pfx_root.h */
int
pfx_stage_discard(struct pfx_stage *st)
{
	int r;

	if (st->fd < 0) {
		release(st);	/* published, or never made */
		return 0;
	}
	/*
	 * SECURITY: only our own tree goes, found by identity at its name
	 * in the private directory, where no one else can put another.
	 * One that is not there (a publish undone by a swap we could not
	 * undo) is not chased: -ESTALE, and the name stays.
	 */
	r = is_same(st->privfd, TREE, st->dev, st->ino);
	if (r == 1)
		r = pfx_remove_tree(st->privfd, TREE);
	else if (r == 0 || r == -ENOENT)
		r = -ESTALE;
	if (r == 0)
		r = remove_private(st);
	release(st);
	if (r == 0)
		st->name[0] = '\0';
	return r;
}
