/*
 * mkdemo.c -- write the sample archive `make demo` extracts: an ordinary
 * project tree with a few hostile entries mixed in, the way an upload
 * pipeline meets them.  Usage: mkdemo OUT.tar.gz
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <archive.h>
#include <archive_entry.h>

struct item {
	const char *name;
	mode_t type;
	mode_t perm;
	const char *data;	/* file contents, or link target */
	int hardlink;		/* DATA is a hard-link target */
};

static const struct item items[] = {
	{ "project/", AE_IFDIR, 0755, NULL, 0 },
	{ "project/README.txt", AE_IFREG, 0644, "A sample project.\n", 0 },
	{ "project/src/", AE_IFDIR, 0755, NULL, 0 },
	{ "project/src/main.c", AE_IFREG, 0644,
	  "int main(void) { return 0; }\n", 0 },
	{ "project/bin/", AE_IFDIR, 0755, NULL, 0 },
	{ "project/bin/run", AE_IFREG, 0755, "#!/bin/sh\necho run\n", 0 },
	{ "project/docs/", AE_IFDIR, 0755, NULL, 0 },
	{ "project/docs/guide.md", AE_IFREG, 0644, "# Guide\n", 0 },
	{ "project/docs/guide-copy.md", AE_IFREG, 0644,
	  "project/docs/guide.md", 1 },
	{ "project/latest", AE_IFLNK, 0777, "docs/guide.md", 0 },
	/* The hostile ones. */
	{ "project/../../evil.txt", AE_IFREG, 0644, "zip-slip\n", 0 },
	{ "/etc/cron.d/evil", AE_IFREG, 0644, "* * * * * root sh\n", 0 },
	{ "project/etc-link", AE_IFLNK, 0777, "/etc", 0 },
	{ "project/up", AE_IFLNK, 0777, "../..", 0 },
	{ "project/shadow", AE_IFREG, 0644, "/etc/shadow", 1 },
	{ "project/bin/suid-shell", AE_IFREG, 04755, "#!/bin/sh\n", 0 },
	{ "project/dev-sda", AE_IFCHR, 0600, NULL, 0 },
	{ "project/world-writable", AE_IFDIR, 0777, NULL, 0 },
};

int
main(int argc, char **argv)
{
	struct archive *a;
	struct archive_entry *e;
	size_t i, len;

	if (argc != 2) {
		fprintf(stderr, "usage: mkdemo out.tar.gz\n");
		return 2;
	}
	a = archive_write_new();
	if (a == NULL || archive_write_set_format_pax_restricted(a) !=
	    ARCHIVE_OK || archive_write_add_filter_gzip(a) != ARCHIVE_OK ||
	    archive_write_open_filename(a, argv[1]) != ARCHIVE_OK) {
		fprintf(stderr, "mkdemo: %s\n", archive_error_string(a));
		return 1;
	}
	for (i = 0; i < sizeof(items) / sizeof(items[0]); i++) {
		const struct item *it = &items[i];

		e = archive_entry_new();
		archive_entry_set_pathname(e, it->name);
		archive_entry_set_filetype(e, it->type);
		archive_entry_set_perm(e, it->perm);
		archive_entry_set_mtime(e, 1700000000, 0);
		archive_entry_set_uname(e, "demo");
		archive_entry_set_gname(e, "demo");
		len = 0;
		if (it->hardlink) {
			archive_entry_set_hardlink(e, it->data);
		} else if (it->type == AE_IFLNK) {
			archive_entry_set_symlink(e, it->data);
		} else if (it->type == AE_IFREG) {
			len = strlen(it->data);
		} else if (it->type == AE_IFCHR) {
			archive_entry_set_rdevmajor(e, 8);
		}
		archive_entry_set_size(e, (la_int64_t)len);
		if (archive_write_header(a, e) != ARCHIVE_OK ||
		    (len > 0 && archive_write_data(a, it->data, len) !=
		    (la_ssize_t)len)) {
			fprintf(stderr, "mkdemo: %s\n", archive_error_string(a));
			return 1;
		}
		archive_entry_free(e);
	}
	if (archive_write_close(a) != ARCHIVE_OK) {
		fprintf(stderr, "mkdemo: %s\n", archive_error_string(a));
		return 1;
	}
	archive_write_free(a);
	return 0;
}
