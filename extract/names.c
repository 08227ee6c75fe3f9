/*
 * names.c -- the extractor's defaults and stable strings.  Reason codes
 * are an interface (--report=json, pfx_entry.reason): never rename one.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "names.h"

/* Is SIZE that of an earlier release's struct pfx_options? */
static bool
earlier_size(size_t size)
{
	return size == XTR_OPTIONS_SIZE_0_1;
}

/* see names.h */
bool
xtr_options_adopt(const struct pfx_options *opt, struct pfx_options *out)
{
	if (opt == NULL || !earlier_size(opt->size))
		return false;
	memset(out, 0, sizeof(*out));
	memcpy(out, opt, opt->size);
	out->size = sizeof(*out);
	return true;
}

/* see pfextract.h */
int
pfx_options_init_size(struct pfx_options *opt, size_t size)
{
	struct pfx_options full;

	if (opt == NULL || (size < sizeof(*opt) && !earlier_size(size)))
		return -EINVAL;
	/* An earlier release's caller: the fields it has, as ours. */
	if (size < sizeof(*opt)) {
		(void)pfx_options_init_size(&full, sizeof(full));
		memcpy(opt, &full, size);
		opt->size = size;
		return 0;
	}
	/* A newer caller's fields past ours: 0, their safe value. */
	memset(opt, 0, size);
	opt->size = size;
	opt->symlinks = PFX_SYMLINKS_REFUSE;
	opt->existing = PFX_EXISTING_REPLACE;
	opt->resolver = PFX_RESOLVER_AUTO;
	opt->out_fd = -1;
	opt->limits.max_bytes = PFX_DEFAULT_MAX_BYTES;
	opt->limits.max_entry_bytes = PFX_DEFAULT_MAX_BYTES;
	opt->limits.max_entries = PFX_DEFAULT_MAX_ENTRIES;
	opt->limits.max_depth = PFX_DEFAULT_MAX_DEPTH;
	opt->limits.max_links = PFX_DEFAULT_MAX_LINKS;
	opt->limits.max_ratio = PFX_DEFAULT_MAX_RATIO;
	opt->limits.ratio_after = PFX_DEFAULT_RATIO_AFTER;
	opt->limits.max_memory = PFX_DEFAULT_MAX_MEMORY;
	opt->idle_timeout = PFX_DEFAULT_IDLE_TIMEOUT;
	opt->stall_timeout = PFX_DEFAULT_STALL_TIMEOUT;
	return 0;
}

/* see pfextract.h */
unsigned long
pfx_version(void)
{
	return PFX_VERSION_NUMBER;
}

/* see pfextract.h */
const char *
pfx_entry_type_name(enum pfx_entry_type type)
{
	switch (type) {
	case PFX_TYPE_FILE:
		return "file";
	case PFX_TYPE_DIR:
		return "dir";
	case PFX_TYPE_SYMLINK:
		return "symlink";
	case PFX_TYPE_HARDLINK:
		return "hardlink";
	case PFX_TYPE_CHAR:
		return "char";
	case PFX_TYPE_BLOCK:
		return "block";
	case PFX_TYPE_FIFO:
		return "fifo";
	case PFX_TYPE_SOCKET:
		return "socket";
	case PFX_TYPE_OTHER:
		break;
	}
	return "other";
}

/* see pfextract.h */
const char *
pfx_entry_status_name(enum pfx_entry_status status)
{
	switch (status) {
	case PFX_ENTRY_EXTRACTED:
		return "extracted";
	case PFX_ENTRY_LISTED:
		return "listed";
	case PFX_ENTRY_REFUSED:
		return "refused";
	case PFX_ENTRY_SKIPPED:
		return "skipped";
	case PFX_ENTRY_FAILED:
		return "failed";
	}
	return "unknown";
}

static const struct {
	const char *code;
	const char *text;
} reasons[] = {
	{ "none", "extracted" },
	{ "outside", "name is outside the destination" },
	{ "absolute", "absolute name refused (never written outside the "
	  "destination)" },
	{ "denied", "name is in a denied directory" },
	{ "empty", "empty name" },
	{ "nul", "name contains a NUL byte" },
	{ "too_long", "name too long (over PATH_MAX, or a component over "
	  "NAME_MAX)" },
	{ "escapes", "name climbs out of the destination with '..'" },
	{ "relative", "relative name with no destination" },
	{ "backslash", "name contains '\\', a separator on Windows" },
	{ "drive", "name starts with a Windows drive letter" },
	{ "unc", "name is a Windows UNC path" },
	{ "device_path", "name is a Windows device path" },
	{ "reserved_name", "name is a reserved Windows device name" },
	{ "trailing_dot_space", "name ends in a dot or space (aliases "
	  "another name on Windows)" },
	{ "stream", "name contains ':' (a Windows alternate data stream)" },
	{ "invalid_char", "name contains a character Windows forbids" },
	{ "bad_name", "name cannot be read in this locale" },
	{ "symlink", "symbolic link not created (the output is symlink-free "
	  "by default; PFX_SYMLINKS_CONTAIN creates links that stay inside the "
	  "destination)" },
	{ "symlink_escapes", "symbolic link points outside the destination" },
	{ "symlink_loop", "symbolic link resolves through too many links" },
	{ "symlink_redirects", "it would make a symbolic link already in the "
	  "destination lead outside it" },
	{ "hardlink_target", "hard link to a file not extracted by this run" },
	{ "hardlink_escapes", "hard link target is outside the destination" },
	{ "special_file", "device nodes, FIFOs and sockets are not extracted" },
	{ "unsupported", "entry type not supported" },
	{ "exists", "already exists and PFX_EXISTING_KEEP was set" },
	{ "skipped_existing", "already exists (PFX_EXISTING_SKIP)" },
	{ "newer_exists", "an existing file is newer or the same age "
	  "(PFX_EXISTING_KEEP_NEWER)" },
	{ "symlink_in_path", "a symbolic link on its path already exists in "
	  "the destination and is never followed (remove it, or extract "
	  "elsewhere)" },
	{ "not_a_directory", "a file on its path is not a directory" },
	{ "is_a_directory", "a directory of that name already exists" },
	{ "escapes_root", "its directory left the destination, or crosses a "
	  "mount point" },
	{ "too_many_links", "the file system allows no more links: its "
	  "hard-link target has all the names it may have, or its directory "
	  "all the subdirectories" },
	{ "permission_denied", "the file system refused it (permission "
	  "denied): a directory on its path may not be written, or the name "
	  "there may not be replaced (read-only, immutable, another user's "
	  "in a sticky directory)" },
	{ "excluded", "excluded" },
	{ "not_selected", "not among the requested members" },
	{ "stripped", "nothing left after strip_components" },
	{ "transform_empty", "the name transformed to nothing (the transform hook)" },
	{ "vetoed", "skipped by the caller" },
	{ "vanished", "a directory on its path, or its hard-link target, "
	  "was removed by someone else during extraction" },
	{ "ar_index", "an ar archive's own symbol or name table" },
	{ "dumpdir_bad", "malformed GNU dump directory (PFX_OPT_INCREMENTAL): a record "
	  "with no known code, or a name that is empty, \".\", \"..\" or "
	  "holds a '/'" },
	{ "dumpdir_rename_bad", "malformed GNU dump directory "
	  "(PFX_OPT_INCREMENTAL): an "
	  "'R' without its 'T', a 'T' without its 'R', an 'X' twice, or an "
	  "empty name with no 'X'" },
	{ "dumpdir_rename_unsafe", "GNU dump directory renames a path that "
	  "is refused as an entry's name would be (absolute, \"..\", too "
	  "long, ...), the destination itself, or a directory into "
	  "itself" },
	{ "dumpdir_rename_missing", "GNU dump directory renames a "
	  "directory that is not there (the renames before it were made)" },
	{ "dumpdir_rename_taken", "GNU dump directory renames a directory "
	  "to a name that holds something other than an empty directory "
	  "(the renames before it were made)" },
	{ "dumpdir_rename_links", "GNU dump directory renames directories "
	  "while the destination holds symlinks (PFX_SYMLINKS_CONTAIN): a "
	  "move could make one lead outside" },
	{ "dumpdir_too_large", "GNU dump directory larger than 16 MiB" },
	{ "replaced", "replaced by a later entry of the same name" },
	{ "stopped", "not made: extraction stopped at an earlier fatal "
	  "error" },
	{ "limit", "a resource limit was reached (see pfx_options.limits)" },
	{ "io_error", "I/O error" },
	{ "read_error", "archive data could not be read" },
	{ "bad_data", "its data fails the archive's check or cannot be "
	  "decoded" },
	{ "interrupted", "not finished: extraction was interrupted, and "
	  "nothing was left under its name" },
};

/* see names.h */
const char *
xtr_reason_at(size_t i)
{
	return i < sizeof(reasons) / sizeof(reasons[0]) ? reasons[i].code :
	    NULL;
}

/* see pfextract.h */
const char *
pfx_reason_text(const char *reason)
{
	size_t i;

	if (reason == NULL)
		return "";
	for (i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++) {
		if (strcmp(reasons[i].code, reason) == 0)
			return reasons[i].text;
	}
	return reason;
}
