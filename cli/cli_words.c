/*
 * cli_words.c -- the library's messages in pfextract(1)'s words (see
 * cli_words.h).  Each row maps a phrase the library writes to what the
 * command line calls it; a phrase is replaced only where it stands whole,
 * never inside a longer identifier (PFX_EXISTING_KEEP is not
 * PFX_EXISTING_KEEP_NEWER).
 */
#include <stdbool.h>
#include <string.h>

#include "cli_words.h"

static const struct {
	const char *lib;
	const char *cli;
} words[] = {
	{ "raise limits.max_memory, or set it to 0",
	  "use --max-memory or --no-limits" },
	{ "raise limits.max_bytes, or set it to 0",
	  "use --max-bytes or --no-limits" },
	{ "raise limits.max_entry_bytes, or set it to 0",
	  "use --max-bytes or --no-limits" },
	{ "raise limits.max_ratio, or set it to 0",
	  "use --max-ratio or --no-limits" },
	{ "raise limits.max_entries, or set it to 0",
	  "use --max-entries or --no-limits" },
	{ "raise limits.max_depth, or set it to 0",
	  "use --max-depth or --no-limits" },
	{ "raise limits.max_links, or set it to 0",
	  "use --max-links or --no-limits" },
	{ "use PFX_SYMLINKS_REFUSE, or a lower limits.max_links",
	  "use --symlinks=refuse, or a lower --max-links" },
	{ "see pfx_options.limits", "see --max-bytes, --max-entries, "
	  "--max-depth, --max-links, --max-ratio, --max-memory and "
	  "--no-limits" },
	{ "pfx_options.timeout", "--timeout" },
	{ "pfx_options.idle_timeout", "--idle-timeout" },
	{ "pfx_options.stall_timeout", "--stall-timeout" },
	{ "pfx_options.cpus", "--cpus" },
	{ "PFX_OPT_STRICT", "--strict" },
	{ "PFX_OPT_ATOMIC", "--atomic" },
	{ "PFX_OPT_FSYNC", "--fsync" },
	{ "pfx_options.backup", "--backup" },
	{ "PFX_OPT_RECURSIVE_UNLINK", "--recursive-unlink" },
	{ "PFX_SYMLINKS_CONTAIN", "--symlinks=contain" },
	{ "PFX_EXISTING_KEEP was set", "--keep-old-files was given" },
	{ "PFX_EXISTING_SKIP", "--skip-old-files" },
	{ "PFX_EXISTING_KEEP_NEWER", "--keep-newer-files" },
	{ "strip_components", "--strip-components" },
	{ "the transform hook", "--transform" },
	{ "(never written outside the destination)", "(pfextract never "
	  "writes outside the destination; -P is not supported)" },
	{ "PFX_OPT_INCREMENTAL", "-G/-g" },
	{ "RLIMIT_NOFILE", "ulimit -n" },
};

/* Can an identifier go on with C? */
static bool
ident(char c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9');
}

/* The row whose phrase stands whole at TEXT + I, or -1. */
static int
word_at(const char *text, size_t i)
{
	size_t k, n;

	if (i > 0 && ident(text[i - 1]))
		return -1;
	for (k = 0; k < sizeof(words) / sizeof(words[0]); k++) {
		n = strlen(words[k].lib);
		if (strncmp(text + i, words[k].lib, n) == 0 &&
		    !ident(text[i + n]))
			return (int)k;
	}
	return -1;
}

/* see cli_words.h */
const char *
xtr_cli_words(const char *text, char *out, size_t cap)
{
	size_t i = 0, o = 0, n;
	const char *put;
	int k;

	while (text[i] != '\0' && o + 1 < cap) {
		k = word_at(text, i);
		if (k < 0) {
			out[o++] = text[i++];
			continue;
		}
		put = words[k].cli;
		n = strlen(put);
		if (n > cap - 1 - o)
			n = cap - 1 - o;
		memcpy(out + o, put, n);
		o += n;
		i += strlen(words[k].lib);
	}
	out[o] = '\0';
	return out;
}
