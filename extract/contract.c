/*
 * contract.c -- what pfx_extract() checks of its caller before it does
 * anything: the arguments a caller can get wrong cheaply (NULL where a
 * pointer is needed, a count without its array), the size of the
 * options struct the caller was built with, and every flag bit and
 * enumerator.  A value this library does not know is refused, never
 * ignored: a safety flag of a newer header must not be dropped silently
 * by an older library.  Messages name the library's fields, never the
 * command line's options.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "contract.h"

/*
 * Fill RES as a call refused before it began: EINVAL and the message.
 * With WHOLE false (the caller's struct sizes are not this release's)
 * only the fields up to MESSAGE are written, which every release has.
 */
static int __attribute__((format(printf, 3, 4)))
refuse(struct pfx_result *res, bool whole, const char *fmt, ...)
{
	va_list ap;

	memset(res, 0, whole ? sizeof(*res) :
	    offsetof(struct pfx_result, resolver));
	if (whole)
		res->resolver = "none";
	res->status = PFX_FATAL;
	res->error = EINVAL;
	va_start(ap, fmt);
	(void)vsnprintf(res->message, sizeof(res->message), fmt, ap);
	va_end(ap);
	return -1;
}

/* Is every byte of the N at P zero? */
static bool
all_zero(const unsigned char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (p[i] != 0)
			return false;
	}
	return true;
}

/*
 * Is the array of N strings at V usable: not NULL when N is not 0, and
 * no element NULL?
 */
static bool
strings_ok(const char *const *v, size_t n)
{
	size_t i;

	if (n == 0)
		return true;
	if (v == NULL)
		return false;
	for (i = 0; i < n; i++) {
		if (v[i] == NULL)
			return false;
	}
	return true;
}

/* Does every word of the N at V hold PFX_MATCH_* bits only? */
static bool
match_flags_ok(const unsigned int *v, size_t n)
{
	const unsigned int known = PFX_MATCH_ANCHORED | PFX_MATCH_CASEFOLD |
	    PFX_MATCH_NOSLASH;
	size_t i;

	if (v == NULL)
		return true;
	for (i = 0; i < n; i++) {
		if ((v[i] & ~known) != 0)
			return false;
	}
	return true;
}

/* The first array field of OPT that is not usable, or NULL. */
static const char *
bad_array(const struct pfx_options *opt)
{
	if (!strings_ok(opt->include, opt->ninclude))
		return "include";
	if (!strings_ok(opt->exclude, opt->nexclude))
		return "exclude";
	if (!strings_ok(opt->members, opt->nmembers))
		return "members";
	if (!strings_ok(opt->xattrs_include, opt->nxattrs_include))
		return "xattrs_include";
	if (!strings_ok(opt->xattrs_exclude, opt->nxattrs_exclude))
		return "xattrs_exclude";
	if (!match_flags_ok(opt->exclude_flags, opt->nexclude))
		return "exclude_flags";
	if (!match_flags_ok(opt->member_flags, opt->nmembers))
		return "member_flags";
	return NULL;
}

/* see contract.h */
int
xtr_contract_options(const struct pfx_options *opt, struct pfx_result *res)
{
	const char *bad;

	if (opt->size < sizeof(*opt))
		return refuse(res, false, "pfx_options.size is %zu, below "
		    "the %zu of this library (%s): fill the struct with "
		    "pfx_options_init()", opt->size, sizeof(*opt),
		    PFX_VERSION);
	if (opt->size > sizeof(*opt) && !all_zero((const unsigned char *)
	    opt + sizeof(*opt), opt->size - sizeof(*opt)))
		return refuse(res, false, "pfx_options: a field past the %zu "
		    "bytes this library (%s) knows is set", sizeof(*opt),
		    PFX_VERSION);
	if ((opt->flags & ~PFX_OPT_KNOWN) != 0)
		return refuse(res, true, "pfx_options.flags: unknown bits "
		    "%#x", opt->flags & ~PFX_OPT_KNOWN);
	if ((unsigned int)opt->symlinks > PFX_SYMLINKS_ROOT)
		return refuse(res, true, "pfx_options.symlinks: unknown "
		    "value %u", (unsigned int)opt->symlinks);
	if ((unsigned int)opt->existing > PFX_EXISTING_KEEP_NEWER)
		return refuse(res, true, "pfx_options.existing: unknown "
		    "value %u", (unsigned int)opt->existing);
	if ((unsigned int)opt->backup > PFX_BACKUP_EXISTING)
		return refuse(res, true, "pfx_options.backup: unknown "
		    "value %u", (unsigned int)opt->backup);
	if ((unsigned int)opt->resolver > PFX_RESOLVER_WALK)
		return refuse(res, true, "pfx_options.resolver: unknown "
		    "value %u", (unsigned int)opt->resolver);
	if (opt->cpus > PFX_MAX_CPUS)
		return refuse(res, true, "pfx_options.cpus is %u, above "
		    "PFX_MAX_CPUS (%u)", opt->cpus, PFX_MAX_CPUS);
	bad = bad_array(opt);
	if (bad != NULL)
		return refuse(res, true, "pfx_options.%s: NULL where a "
		    "pattern is needed, or an unknown PFX_MATCH_* bit", bad);
	if ((opt->flags & PFX_OPT_LABEL_ONLY) != 0 &&
	    (opt->flags & PFX_OPT_LIST) == 0)
		return refuse(res, true, "PFX_OPT_LABEL_ONLY reads the "
		    "label of a listing: PFX_OPT_LIST is not set");
	if ((opt->flags & PFX_OPT_TO_FD) != 0 && opt->out_fd < 0)
		return refuse(res, true, "pfx_options.out_fd is %d with "
		    "PFX_OPT_TO_FD", opt->out_fd);
	/* "" would read no format: every archive EILSEQ, not the
	 * caller's EINVAL. */
	if (opt->formats != NULL && opt->formats[0] == '\0')
		return refuse(res, true, "pfx_options.formats is \"\": it "
		    "names no format (NULL: the default set)");
	/* "" would name the backup as the file it backs up: replaced,
	 * not kept.  A '/' would make it a path. */
	if (opt->backup_suffix != NULL && (opt->backup_suffix[0] == '\0' ||
	    strchr(opt->backup_suffix, '/') != NULL))
		return refuse(res, true, "pfx_options.backup_suffix is "
		    "\"%.64s\": a tail of a file name, no '/', at least one "
		    "byte (NULL: \"~\")", opt->backup_suffix);
	return 0;
}

/*
 * What is wrong with IN's volumes under PFX_OPT_MULTI_VOLUME, or NULL.
 * Checked here, before anything is done: the decoder process's parent
 * sizes every volume it is given (remote.c), so a count past the array
 * would be read before the reader could refuse it, and a refusal there
 * came as a damaged archive's EIO, not the caller's EINVAL.
 */
static const char *
bad_volumes(const struct pfx_input *in)
{
	if (in->path == NULL && (in->buf != NULL || in->fd < 0))
		return "the first volume must be a file or a descriptor "
		    "(PATH or FD), never BUF";
	if (in->nvolumes >= PFX_MAX_VOLUMES)
		return "pfx_input.nvolumes: at most PFX_MAX_VOLUMES - 1 "
		    "volumes after the first";
	if (in->nvolumes > 0 && in->volumes == NULL)
		return "pfx_input.volumes is NULL with a count";
	return NULL;
}

/* see contract.h */
int
xtr_contract_check(const struct pfx_input *in, const char *dest,
    const struct pfx_options *opt, struct pfx_result *res)
{
	const char *why;
	unsigned int flags;

	if (opt != NULL && xtr_contract_options(opt, res) < 0)
		return -1;
	if (in == NULL)
		return refuse(res, true, "pfx_extract: IN is NULL");
	if (in->path == NULL && in->buf == NULL && in->fd < 0)
		return refuse(res, true, "pfx_input names no source: PATH "
		    "and BUF are NULL and FD is %d", in->fd);
	flags = opt != NULL ? opt->flags : 0;
	why = (flags & PFX_OPT_MULTI_VOLUME) != 0 ? bad_volumes(in) : NULL;
	if (why != NULL)
		return refuse(res, true, "PFX_OPT_MULTI_VOLUME: %s", why);
	if (dest == NULL && (flags & (PFX_OPT_LIST | PFX_OPT_TO_FD)) == 0)
		return refuse(res, true, "pfx_extract: DEST is NULL");
	return 0;
}
