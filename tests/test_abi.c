/*
 * test_abi.c -- the binary interface of this release, held to the
 * reference file committed for it (tests/abi/VERSION, VERSION being
 * PFX_VERSION): the size and alignment of every public structure, the
 * offset of every field of the extractor's, and the values of the flags
 * and enumerators.  A change that moves a field, grows a structure
 * anywhere but at its end, or renumbers a value fails here.  A release
 * that grows the interface on purpose commits a new reference file:
 * run with PFX_ABI_WRITE=FILE to write the current one, and review the
 * difference (libpfextract(3), "Versions").  Every earlier release's
 * file of this major number (EARLIER) is held too: its values and
 * offsets unchanged, its struct sizes grown only where fields may be
 * added at the end (pfx_options, pfx_result), and a caller built with
 * its pfx_options served as it was (test_contract.c).
 */
#include <errno.h>
#include <stdalign.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "pfextract.h"

struct abi_row {
	const char *name;
	unsigned long long value;
};

#define SIZE(t) { "sizeof " #t, sizeof(t) }, { "alignof " #t, alignof(t) }
#define OFF(t, f) { "offsetof " #t "." #f, offsetof(t, f) }
#define VAL(v) { #v, (unsigned long long)(v) }

static const struct abi_row rows[] = {
	VAL(PFX_VERSION_NUMBER),
	SIZE(struct pfx_span), SIZE(struct pfx_policy),
	SIZE(struct pfx_verdict), SIZE(struct pfx_root),
	SIZE(struct pfx_pending), SIZE(struct pfx_parent_cache),
	SIZE(struct pfx_beside), SIZE(struct pfx_stage),
	SIZE(struct pfx_sandbox_info), SIZE(struct pfx_entry),
	SIZE(struct pfx_hooks), SIZE(struct pfx_limits),
	SIZE(struct pfx_options), SIZE(struct pfx_stats),
	SIZE(struct pfx_result), SIZE(struct pfx_input),
	SIZE(struct pfx_xattr),

	OFF(struct pfx_span, len),
	OFF(struct pfx_policy, deny), OFF(struct pfx_policy, flags),
	OFF(struct pfx_verdict, reason), OFF(struct pfx_verdict, root),
	OFF(struct pfx_verdict, path),
	OFF(struct pfx_sandbox_info, fs), OFF(struct pfx_sandbox_info, seccomp),
	OFF(struct pfx_sandbox_info, text),

	OFF(struct pfx_entry, name), OFF(struct pfx_entry, path),
	OFF(struct pfx_entry, link_target), OFF(struct pfx_entry, type),
	OFF(struct pfx_entry, mode), OFF(struct pfx_entry, size),
	OFF(struct pfx_entry, mtime), OFF(struct pfx_entry, uname),
	OFF(struct pfx_entry, gname), OFF(struct pfx_entry, uid),
	OFF(struct pfx_entry, gid), OFF(struct pfx_entry, decision),
	OFF(struct pfx_entry, reason), OFF(struct pfx_entry, status),
	OFF(struct pfx_entry, error), OFF(struct pfx_entry, bytes),
	OFF(struct pfx_entry, dumpdir), OFF(struct pfx_entry, dumpdir_len),
	OFF(struct pfx_entry, devmajor), OFF(struct pfx_entry, devminor),
	OFF(struct pfx_entry, mtime_nsec), OFF(struct pfx_entry, offset),
	OFF(struct pfx_entry, input_read), OFF(struct pfx_entry, backup),

	OFF(struct pfx_hooks, decide), OFF(struct pfx_hooks, transform),
	OFF(struct pfx_hooks, report), OFF(struct pfx_hooks, arg),
	OFF(struct pfx_hooks, unmatched), OFF(struct pfx_hooks, confined),
	OFF(struct pfx_hooks, purged), OFF(struct pfx_hooks, label),

	OFF(struct pfx_limits, max_bytes), OFF(struct pfx_limits, max_entry_bytes),
	OFF(struct pfx_limits, max_entries), OFF(struct pfx_limits, max_depth),
	OFF(struct pfx_limits, max_links), OFF(struct pfx_limits, max_ratio),
	OFF(struct pfx_limits, ratio_after), OFF(struct pfx_limits, max_memory),

	OFF(struct pfx_options, size), OFF(struct pfx_options, flags),
	OFF(struct pfx_options, limits), OFF(struct pfx_options, symlinks),
	OFF(struct pfx_options, existing),
	OFF(struct pfx_options, strip_components),
	OFF(struct pfx_options, include), OFF(struct pfx_options, ninclude),
	OFF(struct pfx_options, exclude), OFF(struct pfx_options, nexclude),
	OFF(struct pfx_options, members), OFF(struct pfx_options, nmembers),
	OFF(struct pfx_options, member_whole),
	OFF(struct pfx_options, exclude_flags),
	OFF(struct pfx_options, member_flags),
	OFF(struct pfx_options, occurrence), OFF(struct pfx_options, formats),
	OFF(struct pfx_options, out_fd), OFF(struct pfx_options, resolver),
	OFF(struct pfx_options, hooks), OFF(struct pfx_options, cancel),
	OFF(struct pfx_options, timeout), OFF(struct pfx_options, idle_timeout),
	OFF(struct pfx_options, stall_timeout), OFF(struct pfx_options, backup),
	OFF(struct pfx_options, backup_suffix),
	OFF(struct pfx_options, xattrs_include),
	OFF(struct pfx_options, nxattrs_include),
	OFF(struct pfx_options, xattrs_exclude),
	OFF(struct pfx_options, nxattrs_exclude),
	OFF(struct pfx_options, volume_label),
	OFF(struct pfx_options, member_group), OFF(struct pfx_options, group),
	OFF(struct pfx_options, queued), OFF(struct pfx_options, warning),
	OFF(struct pfx_options, cpus),

	OFF(struct pfx_stats, entries), OFF(struct pfx_stats, unmatched),
	OFF(struct pfx_stats, bytes),
	OFF(struct pfx_result, status), OFF(struct pfx_result, stats),
	OFF(struct pfx_result, error), OFF(struct pfx_result, message),
	OFF(struct pfx_result, resolver), OFF(struct pfx_result, sandbox),
	OFF(struct pfx_result, archive_bytes), OFF(struct pfx_result, tar),
	OFF(struct pfx_input, path), OFF(struct pfx_input, fd),
	OFF(struct pfx_input, buf), OFF(struct pfx_input, len),
	OFF(struct pfx_input, volumes), OFF(struct pfx_input, nvolumes),

	VAL(PFX_OPT_STRICT), VAL(PFX_OPT_SAME_OWNER),
	VAL(PFX_OPT_PRESERVE_PERMS), VAL(PFX_OPT_NO_MTIME),
	VAL(PFX_OPT_XATTRS), VAL(PFX_OPT_NUMERIC_OWNER),
	VAL(PFX_OPT_WINDOWS_NAMES), VAL(PFX_OPT_LIST), VAL(PFX_OPT_ATOMIC),
	VAL(PFX_OPT_IGNORE_ZEROS), VAL(PFX_OPT_RECURSIVE_UNLINK),
	VAL(PFX_OPT_FSYNC), VAL(PFX_OPT_INCREMENTAL), VAL(PFX_OPT_TO_FD),
	VAL(PFX_OPT_SANDBOX), VAL(PFX_OPT_SANDBOX_CHILD),
	VAL(PFX_OPT_SANDBOX_REQUIRE), VAL(PFX_OPT_DEB),
	VAL(PFX_OPT_MULTI_VOLUME), VAL(PFX_OPT_LABEL_ONLY),
	VAL(PFX_OPT_POSIX_GLOB),
	VAL(PFX_WRITER_SPARSE),
	VAL(PFX_MAX_VOLUMES), VAL(PFX_ENOTARCHIVE), VAL(PFX_MAX_CPUS),
	VAL(PFX_MATCH_ANCHORED), VAL(PFX_MATCH_CASEFOLD),
	VAL(PFX_MATCH_NOSLASH),
	VAL(PFX_SANDBOX_REQUIRE), VAL(PFX_SANDBOX_SYMLINKS),
	VAL(PFX_SANDBOX_NO_DEST), VAL(PFX_SANDBOX_SETID),
	VAL(PFX_HOOK_CONTINUE), VAL(PFX_HOOK_SKIP), VAL(PFX_HOOK_RENAME),
	VAL(PFX_HOOK_ABORT),
	VAL(PFX_FATAL), VAL(PFX_ENTRY_FAILED), VAL(PFX_TYPE_OTHER),
	VAL(PFX_SYMLINKS_ROOT), VAL(PFX_EXISTING_KEEP_NEWER),
	VAL(PFX_BACKUP_EXISTING), VAL(PFX_NAME_HARDLINK),
	VAL(PFX_RESOLVER_WALK), VAL(PFX_REJECT), VAL(PFX_PATH_MAX),
};

#define NROWS (sizeof(rows) / sizeof(rows[0]))

/* The machine the reference files describe. */
#if defined(__x86_64__) && defined(__LP64__)
#define ABI_REFERENCED 1
#else
#define ABI_REFERENCED 0
#endif

/* Write the current rows to PATH, the reference of a new release. */
static void
write_rows(const char *path)
{
	FILE *f = fopen(path, "w");
	size_t i;

	cr_assert(f != NULL, "%s: %s", path, strerror(errno));
	fprintf(f, "# pfextract %s ABI, x86_64 LP64 (tests/test_abi.c)\n",
	    PFX_VERSION);
	for (i = 0; i < NROWS; i++)
		fprintf(f, "%s %llu\n", rows[i].name, rows[i].value);
	cr_assert(fclose(f) == 0);
}

/* The reference value of NAME in F's lines, or -1 if absent. */
static long long
reference(FILE *f, const char *name)
{
	char line[256];
	size_t n = strlen(name);

	rewind(f);
	while (fgets(line, sizeof(line), f) != NULL) {
		if (strncmp(line, name, n) == 0 && line[n] == ' ')
			return strtoll(line + n + 1, NULL, 10);
	}
	return -1;
}

/* Every row of the reference file holds, and every row is in it. */
Test(abi, matches_reference)
{
	char path[256];
	const char *out = getenv("PFX_ABI_WRITE");
	FILE *f;
	size_t i;

	if (out != NULL && *out != '\0')
		write_rows(out);
	if (!ABI_REFERENCED)
		cr_skip_test("the reference is of x86_64 LP64");
	(void)snprintf(path, sizeof(path), "tests/abi/%s", PFX_VERSION);
	f = fopen(path, "r");
	cr_assert(f != NULL, "%s (run from the top directory): %s", path,
	    strerror(errno));
	for (i = 0; i < NROWS; i++)
		cr_expect_eq(reference(f, rows[i].name),
		    (long long)rows[i].value, "%s: %llu, the reference has "
		    "%lld", rows[i].name, rows[i].value,
		    reference(f, rows[i].name));
	(void)fclose(f);
}

/* The releases before this one, of this major number. */
static const char *const earlier[] = { "0.1.0" };

/* May the row NAME grow from one release to the next? */
static bool
may_grow(const char *name)
{
	return strcmp(name, "PFX_VERSION_NUMBER") == 0 ||
	    strcmp(name, "sizeof struct pfx_options") == 0 ||
	    strcmp(name, "sizeof struct pfx_result") == 0;
}

/* The current value of NAME, or -1 if this release has no such row. */
static long long
current(const char *name)
{
	size_t i;

	for (i = 0; i < NROWS; i++)
		if (strcmp(rows[i].name, name) == 0)
			return (long long)rows[i].value;
	return -1;
}

/* Every row of an earlier release still holds, or grew where it may. */
Test(abi, keeps_earlier_releases)
{
	char path[256], line[256], *sp;
	long long was, now;
	size_t k, n;
	FILE *f;

	if (!ABI_REFERENCED)
		cr_skip_test("the reference is of x86_64 LP64");
	for (k = 0; k < sizeof(earlier) / sizeof(earlier[0]); k++) {
		(void)snprintf(path, sizeof(path), "tests/abi/%s", earlier[k]);
		f = fopen(path, "r");
		cr_assert(f != NULL, "%s: %s", path, strerror(errno));
		n = 0;
		while (fgets(line, sizeof(line), f) != NULL) {
			if (line[0] == '#' || (sp = strrchr(line, ' ')) == NULL)
				continue;
			*sp = '\0';
			was = strtoll(sp + 1, NULL, 10);
			now = current(line);
			n++;
			if (may_grow(line))
				cr_expect(now >= was, "%s: %s had %lld, now %lld",
				    line, earlier[k], was, now);
			else
				cr_expect_eq(now, was, "%s: %s had %lld, now "
				    "%lld", line, earlier[k], was, now);
		}
		(void)fclose(f);
		cr_expect_gt(n, 100, "%s: %zu rows", path, n);
	}
}
