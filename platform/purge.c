/*
 * purge.c -- remove from one directory beneath the root the names a
 * caller says must go: GNU tar's incremental restore, where an archive's
 * dump directory lists what the directory held when it was dumped, and
 * whatever else is there now goes.
 *
 * The list comes from a hostile archive, but it only ever answers "keep"
 * or "remove" for a name this listing found: nothing here is named by
 * the archive.  The directory is reached without symlinks (as every name
 * beneath the root), each name is removed with pfx_remove_tree() from
 * the directory's descriptor (never followed, never off its mount), and
 * the directory is seen to be beneath the root before each removal.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#include "platform.h"

/*
 * Is the entry DE of the directory DFD a directory (not a symlink)?
 * Return: 1, 0, or -errno (it vanished: -ENOENT).
 */
static int
is_dir(int dfd, const struct dirent *de)
{
	struct stat st;
	mode_t type = plat_os_dirent_type(de);

	if (type != 0)
		return S_ISDIR(type) ? 1 : 0;
	if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == -1)
		return -errno;
	return S_ISDIR(st.st_mode) ? 1 : 0;
}

/* see pfx_root.h */
int
pfx_root_purge(const struct pfx_root *root, const char *rel,
    bool (*keep)(void *arg, const char *name, bool is_dir),
    void (*gone)(void *arg, const char *name), void *arg)
{
	struct pfx_root strict;
	struct plat_path p;
	struct dirent *de;
	DIR *d = NULL;
	int dfd, r, dir;

	r = plat_path_parse(rel, &p);
	if (r < 0)
		return r;
	/*
	 * SECURITY: never through a symlink, in a root used as a root
	 * filesystem too (pfx_root_in_root(), --symlinks=root): a dump
	 * directory reached through one removes nothing.  The copy shares
	 * the root's descriptor.
	 */
	strict = *root;
	strict.in_root = 0;
	root = &strict;
	dfd = plat_resolve_dir(root, p.full, PLAT_DIR_READ);
	if (dfd < 0)
		return dfd;
	r = plat_listing_open(dfd, -1, &d);
	while (r == 0) {
		errno = 0;
		de = readdir(d);
		if (de == NULL) {
			r = errno != 0 ? -errno : 0;
			break;
		}
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		dir = is_dir(dfd, de);
		if (dir == -ENOENT)
			continue;	/* gone already */
		if (dir < 0) {
			r = dir;
			break;
		}
		if (keep(arg, de->d_name, dir == 1))
			continue;
		/* SECURITY: moved out meanwhile?  Then touch nothing. */
		r = plat_check_beneath_at(root, dfd, p.full);
		if (r < 0)
			break;
		r = pfx_remove_tree_beneath(root, dfd, p.full, de->d_name);
		if (r == -ENOENT)
			r = 0;
		else if (r == 0 && gone != NULL)
			gone(arg, de->d_name);
	}
	if (d != NULL)
		(void)closedir(d);
	plat_close(dfd);
	return r;
}
