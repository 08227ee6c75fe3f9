/*
 * args.h -- pfextract's command line, parsed the way tar parses it.
 * Only the CLI (pfextract.c) uses this; the library never sees argv.
 */
#ifndef XTR_ARGS_H
#define XTR_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pfextract.h"
#include "xform.h"

/* Exit status for a usage error (sysexits' EX_USAGE, as the issue says). */
#define XTR_EXIT_USAGE 64

/* The CLI's self-confinement (pfextract.c turns it into PFX_OPT_SANDBOX*). */
enum xtr_sandbox {
	XTR_SANDBOX_ON = 0,	/* the default: whatever the kernel offers */
	XTR_SANDBOX_OFF,	/* --no-sandbox */
	XTR_SANDBOX_REQUIRE	/* --sandbox=require: fail unless enforced */
};

/* How many --checkpoint-action options may be given. */
#define XTR_CKPT_ACTIONS_MAX 16

struct xtr_args {
	char mode;		/* 'x' extract (default), 't' list, 'l'
				   --test-label */
	const char *archive;	/* -f; NULL or "-": standard input */
	const char *dir;	/* -C; NULL: the current directory.  With
				   several groups (below): NULL */
	/*
	 * GNU tar's positional -C: DIRS are the -C directories, each
	 * relative to the one before unless absolute (composed: "a/b"
	 * for -C a -C b); MEMBER_DIR[i] is the -C member i binds to, the
	 * last before it (k: DIRS[k - 1]; 0: none, the current
	 * directory).  NGROUPS: how many different directories the
	 * members bind to (main.c runs once per group when above 1).
	 */
	char **dirs;
	size_t ndirs;
	size_t *member_dir;
	size_t ngroups;
	int verbose;		/* -v count */
	bool quiet;		/* -q: no messages for refused entries */
	bool report_json;	/* --report=json */
	bool help;		/* --help: print usage, exit 0 */
	bool version;		/* --version */
	enum xtr_sandbox sandbox;
	struct pfx_options opt;	/* everything the library needs */
	char **members;		/* operands (then the names of -T files):
				   member names or patterns */
	size_t nmembers;
	char **member_pat;	/* the members as the library's patterns
				   (opt.members): no trailing '/', and
				   escaped unless --wildcards */
	size_t nmember_pat;
	bool *member_whole;	/* per member_pat: --no-recursion */
	unsigned int *member_flags; /* per member_pat: PFX_MATCH_* */
	unsigned int *exclude_flags; /* per exclude: PFX_MATCH_* */
	bool wildcards_given;	/* --wildcards or --no-wildcards given */
	char **include;		/* --include */
	size_t ninclude;
	char **exclude;		/* --exclude and the lines of -X files */
	size_t nexclude;
	bool to_stdout;		/* -O: file data to standard output */
	bool show_transformed;	/* --show-transformed-names */
	struct xtr_xforms *xforms; /* --transform, -s, --one-top-level */
	char *top_dir;		/* --one-top-level's directory, or NULL */
	/* opts2: what the CLI's decide hook selects (select.c) */
	bool exclude_vcs;	/* --exclude-vcs */
	bool exclude_backups;	/* --exclude-backups */
	bool newer_set;		/* -N: only entries of mtime >= newer */
	bool older_set;		/* --older: only entries of mtime < older */
	int64_t newer, older;	/* seconds since the epoch */
	const char *starting_file;	/* -K: skip entries until this one */
	bool show_defaults;	/* --show-defaults: print them, exit 0 */
	char **xattrs_include;	/* --xattrs-include */
	size_t nxattrs_include;
	char **xattrs_exclude;	/* --xattrs-exclude */
	size_t nxattrs_exclude;
	/* Listing and terminal output (listing_out.c, progress_out.c). */
	const char *quoting_style;	/* --quoting-style, or NULL */
	uint32_t quote_chars[8];	/* --quote-chars minus --no-... */
	bool full_time;			/* --full-time */
	bool utc;			/* --utc */
	bool block_number;		/* -R */
	bool totals;			/* --totals */
	int totals_signal;		/* --totals=SIGNAL, or 0 */
	uint64_t checkpoint;		/* --checkpoint=N, or 0 */
	const char *ckpt_actions[XTR_CKPT_ACTIONS_MAX];
	size_t nckpt_actions;
	const char *index_file;		/* --index-file */
	int progress;			/* -1 auto, 0 --no-progress,
					   1 --progress */
	/* tarout: the usage error is a conflict GNU tar finds once the
	 * command line is read (its USAGE_ERROR, exit 2), not a malformed
	 * one (exit 64 in both). */
	bool conflict;
	char **volumes;			/* -M: the -f after the first */
	size_t nvolumes;
};

/*
 * Parse ARGV into *A (which it initialises).  On a usage error, writes a
 * one-line message without the "pfextract: " prefix to ERR (ERRCAP bytes).
 * -X files are read here.  Return: 0, or -1 on a usage error.
 */
int xtr_parse_args(int argc, char **argv, struct xtr_args *a, char *err,
    size_t errcap);

/* Release what *A owns.  Safe on a partly filled *A. */
void xtr_args_free(struct xtr_args *a);

/*
 * opts2: should the CLI skip entry E (-N, --older, -K, --exclude-vcs,
 * --exclude-backups)?  *STARTED is the -K state, false before the first
 * entry.  Return: true to skip it.
 */
bool xtr_select_skip(const struct xtr_args *a, bool *started,
    const struct pfx_entry *e);

/* Does A need xtr_select_skip() at all? */
bool xtr_select_needed(const struct xtr_args *a);

/* The usage text, matching the SYNOPSIS of pfextract(1). */
extern const char xtr_usage[];

#endif /* XTR_ARGS_H */
