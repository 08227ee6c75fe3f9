/*
 * cases_special.c -- entries an extractor running as root must not make
 * as they are: device nodes, FIFOs and sockets (tar, cpio, zip, 7z), and
 * the modes and owners it must not honour: setuid, setgid and sticky
 * bits, group and other write, foreign owners, and the mode 0000 of a
 * directory the archive then writes into.  tar has no type for a socket,
 * so sockets come in cpio (whose mode carries the type) and in zip
 * (whose external attributes carry a Unix mode, written here raw since
 * libarchive's zip writer refuses anything but files, dirs and links).
 */
#include <string.h>
#include <sys/stat.h>

#include <archive.h>
#include <archive_entry.h>

#include "gen.h"

/* A uid and gid that exist nowhere: an owner the archive chose. */
#define FOREIGN	1234

/*
 * One header: a device node, FIFO, socket or directory, with its size set
 * to 0, which the cpio writers require (gen_special and gen_dir leave it
 * unset).
 */
static void
node(struct archive *a, const char *entry, mode_t type, mode_t perm,
    int64_t owner, unsigned int major, unsigned int minor)
{
	struct archive_entry *e = archive_entry_new();

	if (e == NULL)
		gen_die("out of memory");
	archive_entry_set_pathname(e, entry);
	archive_entry_set_filetype(e, type);
	archive_entry_set_perm(e, perm);
	archive_entry_set_size(e, 0);
	archive_entry_set_uid(e, owner);
	archive_entry_set_gid(e, owner);
	archive_entry_set_rdevmajor(e, major);
	archive_entry_set_rdevminor(e, minor);
	archive_entry_set_mtime(e, 1700000000, 0);
	if (archive_write_header(a, e) < ARCHIVE_WARN)
		gen_die("%s: %s", entry, archive_error_string(a));
	archive_entry_free(e);
}

static void
special(struct archive *a, const char *entry, mode_t type,
    unsigned int major, unsigned int minor)
{
	node(a, entry, type, 0666, 0, major, minor);
}

static void
dir(struct archive *a, const char *entry, mode_t perm, int64_t owner)
{
	node(a, entry, AE_IFDIR, perm, owner, 0, 0);
}

/* A device node under dev/, beside good files (mknod as root). */
static void
dev_ustar(const char *name)
{
	struct archive *a = gen_open(name, "ustar", NULL);

	gen_file(a, "good", "good", 0644);
	dir(a, "dev", 0755, 0);
	special(a, "dev/mem", AE_IFCHR, 1, 1);
	special(a, "dev/sda", AE_IFBLK, 8, 0);
	gen_file(a, "dev/README", "readme", 0644);
	gen_close(a);
}

/* The same in GNU format, gzipped, with a FIFO and a tty. */
static void
dev_gnutar(const char *name)
{
	struct archive *a = gen_open(name, "gnutar", "gzip");

	special(a, "tty0", AE_IFCHR, 4, 0);
	special(a, "pipe", AE_IFIFO, 0, 0);
	gen_file(a, "good", "good", 0644);
	gen_close(a);
}

/* Every special type in cpio newc: cpio -i as root makes them all. */
static void
dev_newc(const char *name)
{
	struct archive *a = gen_open(name, "newc", NULL);

	gen_file(a, "good", "good", 0644);
	special(a, "kmem", AE_IFCHR, 1, 2);
	special(a, "loop0", AE_IFBLK, 7, 0);
	special(a, "fifo", AE_IFIFO, 0, 0);
	special(a, "sock", AE_IFSOCK, 0, 0);
	gen_file(a, "after", "after", 0644);
	gen_close(a);
}

/* A socket in old (odc) cpio, which tar cannot carry. */
static void
sock_odc(const char *name)
{
	struct archive *a = gen_open(name, "odc", "xz");

	dir(a, "run", 0755, 0);
	special(a, "run/docker.sock", AE_IFSOCK, 0, 0);
	gen_file(a, "run/good", "good", 0644);
	gen_close(a);
}

/* Old binary cpio: devices (it has no FIFOs or sockets). */
static void
dev_bin(const char *name)
{
	struct archive *a = gen_open(name, "bin", NULL);

	special(a, "null", AE_IFCHR, 1, 3);
	special(a, "hda", AE_IFBLK, 3, 0);
	gen_file(a, "good", "good", 0644);
	gen_close(a);
}

/* One stored zip entry whose external attributes hold MODE. */
static void
zip_mode(struct gen_zip *z, const char *entry, const char *data,
    mode_t mode)
{
	size_t len = strlen(data);

	gen_zip_add(z, entry, strlen(entry), 0, data, len, (uint32_t)len,
	    gen_crc32(data, len), (uint32_t)mode << 16);
}

/*
 * Device, FIFO and socket modes in zip external attributes.  A FIFO mode
 * is what Info-ZIP's -FI stores for the data it read from a pipe, and
 * libarchive reads it as a regular file with that data: not a FIFO.
 */
static void
dev_zip(const char *name)
{
	struct gen_zip z = { 0 };

	zip_mode(&z, "good", "good", S_IFREG | 0644);
	zip_mode(&z, "mem", "", S_IFCHR | 0666);
	zip_mode(&z, "sda", "", S_IFBLK | 0666);
	zip_mode(&z, "fifo", "piped", S_IFIFO | 0666);
	zip_mode(&z, "sock", "", S_IFSOCK | 0666);
	zip_mode(&z, "after", "after", S_IFREG | 0644);
	gen_zip_finish(&z, name);
}

/* 7z stores the Unix mode in its attributes: every special type. */
static void
dev_7z(const char *name)
{
	struct archive *a = gen_open(name, "7zip", NULL);

	gen_file(a, "good", "good", 0644);
	special(a, "mem", AE_IFCHR, 1, 1);
	special(a, "sdb", AE_IFBLK, 8, 16);
	special(a, "fifo", AE_IFIFO, 0, 0);
	special(a, "sock", AE_IFSOCK, 0, 0);
	gen_close(a);
}

/* A FIFO, then a file of the same name: the FIFO must not block it. */
static void
fifo_then_file(const char *name)
{
	struct archive *a = gen_open(name, "pax", NULL);

	special(a, "log", AE_IFIFO, 0, 0);
	gen_file(a, "log", "log", 0644);
	dir(a, "d", 0755, 0);
	special(a, "d/fifo", AE_IFIFO, 0, 0);
	gen_file(a, "d/good", "good", 0644);
	gen_close(a);
}

/* A hard link to a refused device node must not make the node. */
static void
hardlink_dev(const char *name)
{
	struct archive *a = gen_open(name, "ustar", NULL);

	gen_file(a, "good", "good", 0644);
	special(a, "null", AE_IFCHR, 1, 3);
	gen_hardlink(a, "alias", "null", NULL);
	gen_close(a);
}

/*
 * The setid and write bits: a setuid root binary, a setgid one, a sticky
 * file, a setgid and a sticky world-writable directory, world-writable
 * files.  Owned by root in the archive, as a package would be.
 */
static void
setid_entries(struct archive *a)
{
	dir(a, "bin", 02775, 0);
	gen_file_owned(a, "bin/su", "#!/bin/sh\n", 04755, 0, 0);
	gen_file_owned(a, "bin/wall", "#!/bin/sh\n", 02755, 0, 0);
	gen_file_owned(a, "bin/both", "#!/bin/sh\n", 06777, 0, 0);
	dir(a, "tmp", 01777, 0);
	gen_file_owned(a, "tmp/sticky", "t", 01644, 0, 0);
	gen_file_owned(a, "world", "w", 0666, 0, 0);
	dir(a, "shared", 0777, 0);
	gen_file_owned(a, "shared/group", "g", 0664, 0, 0);
}

static void
setid_ustar(const char *name)
{
	struct archive *a = gen_open(name, "ustar", NULL);

	setid_entries(a);
	gen_close(a);
}

/* The same with -p: write and sticky bits kept, setid still cleared. */
static void
setid_p_pax(const char *name)
{
	struct archive *a = gen_open(name, "pax", "bzip2");

	setid_entries(a);
	gen_close(a);
}

static void
setid_newc(const char *name)
{
	struct archive *a = gen_open(name, "newc", "gzip");

	setid_entries(a);
	gen_close(a);
}

static void
setid_zip(const char *name)
{
	struct archive *a = gen_open(name, "zip", NULL);

	setid_entries(a);
	gen_close(a);
}

static void
setid_7z(const char *name)
{
	struct archive *a = gen_open(name, "7zip", NULL);

	setid_entries(a);
	gen_close(a);
}

/* Entries owned by a uid and gid of the archive's choosing. */
static void
foreign_entries(struct archive *a)
{
	dir(a, "home", 0755, FOREIGN);
	gen_file_owned(a, "home/profile", "export PATH\n", 0644, FOREIGN,
	    FOREIGN);
	gen_file_owned(a, "home/suid", "#!/bin/sh\n", 06755, FOREIGN,
	    FOREIGN);
	gen_file_owned(a, "rootfile", "root\n", 0644, 0, 0);
}

static void
owner_ustar(const char *name)
{
	struct archive *a = gen_open(name, "ustar", NULL);

	foreign_entries(a);
	gen_close(a);
}

/* The same with --same-owner: the owner is kept, setid still is not. */
static void
owner_same_ustar(const char *name)
{
	struct archive *a = gen_open(name, "ustar", NULL);

	foreign_entries(a);
	gen_close(a);
}

static void
owner_odc(const char *name)
{
	struct archive *a = gen_open(name, "odc", NULL);

	foreign_entries(a);
	gen_close(a);
}

/*
 * A directory of mode 0000, then files and a directory written into it,
 * and a file of mode 0000: the modes must be set last, not first.
 */
static void
locked_entries(struct archive *a)
{
	dir(a, "locked", 0, 0);
	gen_file(a, "locked/inner", "inner", 0644);
	dir(a, "locked/sub", 0755, 0);
	gen_file(a, "locked/sub/deep", "deep", 0600);
	gen_file(a, "none", "none", 0);
}

static void
mode0_ustar(const char *name)
{
	struct archive *a = gen_open(name, "ustar", NULL);

	locked_entries(a);
	gen_close(a);
}

static void
mode0_newc(const char *name)
{
	struct archive *a = gen_open(name, "newc", NULL);

	locked_entries(a);
	gen_close(a);
}

static void
mode0_zip(const char *name)
{
	struct archive *a = gen_open(name, "zip", NULL);

	locked_entries(a);
	gen_close(a);
}

const struct gen_case gen_cases_special[] = {
	{ "special-dev-ustar", dev_ustar },
	{ "special-dev-gnutar", dev_gnutar },
	{ "special-dev-newc", dev_newc },
	{ "special-sock-odc", sock_odc },
	{ "special-dev-bin", dev_bin },
	{ "special-dev-zip", dev_zip },
	{ "special-dev-7z", dev_7z },
	{ "special-fifo-then-file", fifo_then_file },
	{ "special-hardlink-dev", hardlink_dev },
	{ "special-setid-ustar", setid_ustar },
	{ "special-setid-p-pax", setid_p_pax },
	{ "special-setid-newc", setid_newc },
	{ "special-setid-zip", setid_zip },
	{ "special-setid-7z", setid_7z },
	{ "special-owner-ustar", owner_ustar },
	{ "special-owner-same-owner", owner_same_ustar },
	{ "special-owner-odc", owner_odc },
	{ "special-mode0-ustar", mode0_ustar },
	{ "special-mode0-newc", mode0_newc },
	{ "special-mode0-zip", mode0_zip },
	{ NULL, NULL },
};
