/*
 * pfextract.c -- pfextract(1): extract an untrusted archive beneath one
 * directory, as a drop-in for `tar -xf`.  The only file of pfextract that
 * prints or exits; everything else is the library (pfextract.h).
 *
 * Output.  -v names each extracted member on standard output, as GNU tar
 * does (-vv: a long listing line), or on standard error with -O, whose
 * file data is standard output; -t lists.  Refused and failed entries
 * go to standard error as "pfextract: NAME: REASON".  --report=json
 * replaces everything on standard output by one JSON object per entry and
 * a closing summary.
 *
 * SECURITY: names come from the archive and are hostile.  Before they
 * reach a terminal, control bytes, C1 controls and bytes that are not
 * UTF-8 are written as \ooo octal escapes, and a backslash as "\\", so an
 * entry cannot move the cursor, retitle the window or forge a line.
 *
 * Signals.  SIGINT, SIGTERM, SIGHUP and SIGPIPE only set a flag, which
 * the library reads as its cancellation (pfx_options.cancel): the run
 * stops before the next entry or block, the file being written goes with
 * its temporary name, and pfextract says "interrupted by SIGINT" and
 * exits 128 + the signal's number, as a shell reports a killed command.
 * SIGPIPE (the reader of the listing went away: `pfextract -tvf a.tar |
 * head -1`) says nothing: pfextract then ends killed by it, as tar does.
 * The handlers are installed without SA_RESTART, so a read blocked on a
 * slow pipe returns.  A signal ignored when pfextract starts (nohup, a
 * background job) stays ignored.
 *
 * Sandbox.  Unless --no-sandbox, the library confines this whole process
 * (PFX_OPT_SANDBOX) once the archive and the destination are open and
 * before the first archive byte is decoded; everything pfextract needs
 * afterwards -- locale, time zone -- is loaded before.  -vvv says what was
 * enforced on standard error (-v and -vv write only what tar writes),
 * --report=json in the summary's "sandbox".
 *
 * Its name.  Messages begin with "pfextract:".  Installed or run under
 * another name (as tar), pfextract speaks as GNU tar does: messages begin
 * with argv[0] as given ("tar:", "/bin/tar:"); a usage error ends with
 * tar's "Try 'tar --help' ..." line instead of the usage, and a conflict
 * tar finds after parsing exits 2 as in tar (a malformed command line
 * still 64, as tar's); an input in no known format is "This does not look
 * like a tar archive"; a fatal error ends with "Error is not recoverable:
 * exiting now", and exit status 2 otherwise with "Exiting with failure
 * status due to previous errors".  --report=json is the same under any
 * name.
 *
 * Exit status: 0 every entry extracted, 1 some refused or failed, 2 fatal,
 * a member operand not found or -k over an existing file (as GNU tar), 64
 * usage error, 128 + N stopped by signal N.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <langinfo.h>
#include <limits.h>
#include <locale.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__has_include) && __has_include(<sys/prctl.h>)
#include <sys/prctl.h>
#endif
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "json.h"
#include "resolver_env.h"
#include "args.h"
#include "cli_words.h"
#include "listing_out.h"
#include "pfextract.h"
#include "platform.h"
#include "progress_out.h"

/*
 * The push API's test build (obj/tests/pfextract-push, never installed):
 * the same command, with archives read by the tests' own tar reader and
 * given to pfx_writer_*() (tests/push_tar.h).
 */
#ifdef PFX_PUSH_TEST
#include "push_tar.h"
#define pfx_extract push_tar_extract
#endif

/* The signal that stopped the run, or 0; the library's cancellation. */
static volatile sig_atomic_t caught;

/* --totals=SIGNAL came: print the totals at the next entry. */
static volatile sig_atomic_t totals_wanted;

/* The signals that stop a run, and their names for the message. */
static const struct {
	int sig;
	const char *name;
} stop_signals[] = {
	{ SIGINT, "SIGINT" },
	{ SIGTERM, "SIGTERM" },
	{ SIGHUP, "SIGHUP" },
	{ SIGPIPE, "SIGPIPE" },
};

/* Only remember the signal: everything else happens in the run's own
 * time, where it is safe. */
static void
on_signal(int sig)
{
	if (caught == 0)
		caught = sig;
}

/*
 * Catch the stop signals, except those ignored on entry.  No SA_RESTART:
 * a read blocked on a slow pipe must give up when one comes.
 */
static void
catch_signals(void)
{
	struct sigaction sa, old;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++) {
		if (sigaction(stop_signals[i].sig, NULL, &old) == 0 &&
		    old.sa_handler == SIG_IGN)
			continue;
		(void)sigaction(stop_signals[i].sig, &sa, NULL);
	}
}

/* Return: the name of the stop signal SIG ("SIGINT"). */
static const char *
signal_name(int sig)
{
	size_t i;

	for (i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++) {
		if (stop_signals[i].sig == sig)
			return stop_signals[i].name;
	}
	return "a signal";
}

/* What messages begin with: "pfextract", or argv[0] (program_name()). */
static const char *progname = "pfextract";

/* Speaking as GNU tar: run under a name other than pfextract's. */
static bool
as_tar(void)
{
	return strcmp(progname, "pfextract") != 0;
}

/*
 * The name messages begin with: argv[0] as given, as GNU tar names
 * itself (glibc's error() prints program_invocation_name: "/bin/tar:"),
 * unless its last component is "pfextract".
 */
static const char *
program_name(const char *argv0)
{
	const char *base;

	if (argv0 == NULL || argv0[0] == '\0')
		return "pfextract";
	base = strrchr(argv0, '/');
	base = base != NULL ? base + 1 : argv0;
	return strcmp(base, "pfextract") == 0 ? "pfextract" : argv0;
}

/* Write "NAME: " to F, NAME what messages begin with. */
static void
put_prog(FILE *f)
{
	fputs(progname, f);
	fputs(": ", f);
}

/* The test seam of pfextract(1)'s ENVIRONMENT: see probe_sandbox(). */
#define PROBE_ENV "PFEXTRACT_SANDBOX_PROBE"

/* What the report hook needs. */
struct cli {
	const struct xtr_args *a;
	struct list_fmt fmt;	/* how names and lines are written */
	FILE *listing;		/* stdout, or --index-file */
	struct progress prog;
	const char *probe;	/* $PFEXTRACT_SANDBOX_PROBE, or NULL */
	int archive_fd;		/* the archive's descriptor, or -1 */
	const int *volumes;	/* -M: the other volumes' (NVOLUMES) */
	size_t nvolumes;
	struct stat archive_st;	/* the probe's: the archive, where it is a
				   file (ARCHIVE_FILE) */
	bool archive_file;
	size_t not_found;	/* member operands that selected nothing */
	size_t kept_old;	/* -k: entries refused as they exist */
	size_t warnings;	/* the library's (report_warning()) */
	size_t damaged;		/* of them, headers read with a part ignored */
	bool warned;		/* the wildcards warning was given */
	bool started;		/* -K: the starting member was seen */
	const struct pfx_entry *said;	/* -v: a dump directory whose line
					   was written before its purge */
	struct pfx_entry label;	/* a pax volume label, written with the
				   first line (LABEL.name owned), or
				   name NULL */
	char failure[PFX_PATH_MAX + 128];	/* "NAME: strerror" of the
						   last failed entry told */
};

/*
 * Write S (LEN bytes, hostile) to F so that no byte can act on a terminal:
 * control bytes (< 0x20, DEL), C1 controls (U+0080 to U+009F) and bytes
 * outside well-formed UTF-8 become \ooo; with BACKSLASH, '\' becomes "\\"
 * (as GNU tar writes names, so that an escape and a name cannot be
 * confused).  Other UTF-8 is copied as is.
 */
static void
put_safe(FILE *f, const char *s, size_t len, bool backslash)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, n, k;

	while (i < len) {
		if (u[i] == '\\' && backslash) {
			fputs("\\\\", f);
			i++;
			continue;
		}
		if (u[i] < 0x20 || u[i] == 0x7f) {
			fprintf(f, "\\%03o", (unsigned int)u[i]);
			i++;
			continue;
		}
		if (u[i] < 0x80) {
			putc(u[i], f);
			i++;
			continue;
		}
		n = json_utf8_seq_len(u + i, len - i);
		if (n == 0 || (n == 2 && u[i] == 0xc2 && u[i + 1] < 0xa0)) {
			/* Not UTF-8, or a C1 control: escape every byte. */
			if (n == 0)
				n = 1;
			for (k = 0; k < n; k++)
				fprintf(f, "\\%03o", (unsigned int)u[i + k]);
			i += n;
			continue;
		}
		fwrite(u + i, 1, n, f);
		i += n;
	}
}

/*
 * Write "pfextract: MSG" and the usage to standard error; as tar, GNU
 * tar's pointer to its help instead of the usage.  CONFLICT: the error
 * is one tar finds after parsing (xtr_args.conflict).
 */
static void
usage_error(const char *msg, bool conflict)
{
	/* GNU tar's own usage errors name it as argv[0] does; its option
	 * parser's (argp) by argv[0]'s last component. */
	const char *tar_name = strrchr(progname, '/');

	tar_name = conflict || tar_name == NULL ? progname : tar_name + 1;
	put_prog(stderr);
	put_safe(stderr, msg, strlen(msg), false);
	fputc('\n', stderr);
	if (as_tar())
		fprintf(stderr, "Try '%s --help' or '%s --usage' for more "
		    "information.\n", tar_name, tar_name);
	else
		fputs(xtr_usage, stderr);
}

/* Write S to F as a JSON string, or null when S is NULL. */
static void
put_json_or_null(FILE *f, const char *s)
{
	if (s == NULL)
		fputs("null", f);
	else
		json_put_string(f, s, strlen(s));
}

/*
 * The name to show for E: as stored, or with --show-transformed-names as
 * --transform made it (made again into BUF, PFX_PATH_MAX bytes).
 */
static const char *
shown_name(const struct cli *c, const struct pfx_entry *e, char *buf)
{
	if (!c->a->show_transformed || e->name == NULL ||
	    xtr_xform_apply(c->a->xforms, PFX_NAME_ENTRY, e->name, buf,
	    PFX_PATH_MAX, NULL, NULL) != 1)
		return e->name;
	return buf;
}

/* Write E's --report=json line to standard output. */
static void
put_json_entry(const struct pfx_entry *e)
{
	FILE *f = stdout;

	fputs("{\"input\":", f);
	json_put_string(f, e->name != NULL ? e->name : "",
	    e->name != NULL ? strlen(e->name) : 0);
	fputs(",\"decision\":", f);
	put_json_or_null(f, pfx_decision_name(e->decision));
	fputs(",\"reason\":", f);
	put_json_or_null(f, e->reason != NULL ? e->reason : "none");
	fputs(",\"status\":", f);
	put_json_or_null(f, pfx_entry_status_name(e->status));
	fputs(",\"path\":", f);
	put_json_or_null(f, e->path);
	fputs(",\"type\":", f);
	put_json_or_null(f, pfx_entry_type_name(e->type));
	fprintf(f, ",\"bytes\":%" PRIu64 "}\n", e->bytes);
}

/* Is E refused by -k as it exists (GNU tar's "Cannot open: File
 * exists")? */
static bool
kept_old(const struct cli *c, const struct pfx_entry *e)
{
	return e->status == PFX_ENTRY_REFUSED &&
	    c->a->opt.existing == PFX_EXISTING_KEEP && e->reason != NULL &&
	    strcmp(e->reason, "exists") == 0;
}

/* Write "pfextract: NAME: TEXT[: strerror]" to standard error. */
static void
put_problem(const struct cli *c, const struct pfx_entry *e)
{
	bool failed = e->status == PFX_ENTRY_FAILED && e->error != 0;
	const char *text = NULL;
	char words[512];

	/* A failure that no policy caused is told by its errno alone. */
	if (e->reason != NULL && !(failed && strcmp(e->reason, "none") == 0))
		text = xtr_cli_words(pfx_reason_text(e->reason), words,
		    sizeof(words));
	if (text == NULL && !failed)
		text = e->status == PFX_ENTRY_FAILED ? "failed" : "refused";
	/* -k: in GNU tar's words, which scripts match. */
	if (kept_old(c, e))
		text = "Cannot open: File exists";
	put_prog(stderr);
	list_put_quoted(stderr, &c->fmt, e->name, true);
	fputs(": ", stderr);
	if (text != NULL)
		put_safe(stderr, text, strlen(text), false);
	/* Several -C directories are runs of their own (run_groups()). */
	if (c->a->opt.member_group != NULL && e->reason != NULL &&
	    strcmp(e->reason, "hardlink_target") == 0)
		fputs(" (the run of its own -C directory: a hard link reaches "
		    "only files extracted beneath it)", stderr);
	if (failed)
		fprintf(stderr, "%s%s", text != NULL ? ": " : "",
		    strerror(e->error));
	fputc('\n', stderr);
}

/* -v's line for E on F: the name, or with -vv the long listing line;
 * a pax volume label held back goes first, as GNU tar writes it. */
static void
put_verbose(FILE *f, struct cli *c, const struct pfx_entry *e, bool lng)
{
	char nbuf[PFX_PATH_MAX];
	struct pfx_entry shown = *e;

	if (c->label.name != NULL) {
		list_put_label(f, &c->fmt, &c->label, lng);
		free((char *)(uintptr_t)c->label.name);
		c->label.name = NULL;
	}

	shown.name = shown_name(c, e, nbuf);
	list_put_entry(f, &c->fmt, &shown, lng);
}

/*
 * bsdtar's -s rule flagged 'p': "FROM >> TO" on standard error, both
 * names quoted as every name is, since the archive chose them.
 */
static void
say_transformed(void *arg, const char *from, const char *to)
{
	const struct cli *c = arg;

	list_put_quoted(stderr, &c->fmt, from, false);
	fputs(" >> ", stderr);
	list_put_quoted(stderr, &c->fmt, to, false);
	fputc('\n', stderr);
}

/* The library's transform hook: --transform, -s, --one-top-level. */
static int
transform_name(void *arg, enum pfx_name_kind kind,
    const struct pfx_entry *e, const char *name, char *out, size_t cap)
{
	struct cli *c = arg;

	(void)e;
	return xtr_xform_apply(c->a->xforms, kind, name, out, cap,
	    say_transformed, c);
}

/*
 * Write NAME (LEN bytes, hostile) to F as GNU tar's quote() does in its
 * messages: 'name', or with U+2018 and U+2019 in a UTF-8 locale, and
 * what is not printable escaped.
 */
static void
put_tar_quoted(const struct cli *c, FILE *f, const char *name, size_t len)
{
	struct quote q = c->fmt.q;

	q.style = QUOTE_LOCALE;
	memset(q.chars, 0, sizeof(q.chars));
	quote_put(f, &q, name, len, false,
	    f == stderr ? c->fmt.tty_err : c->fmt.tty_out);
}

/*
 * -v with --backup: "Renaming 'dir/f' to 'dir/f~'" after E's line, as
 * GNU tar says it, on F.
 */
static void
say_backup(struct cli *c, FILE *f, const struct pfx_entry *e)
{
	const char *slash;
	size_t dlen, blen;
	char *bak;

	if (e->backup == NULL || e->path == NULL)
		return;
	slash = strrchr(e->path, '/');
	dlen = slash != NULL ? (size_t)(slash - e->path) + 1 : 0;
	blen = strlen(e->backup);
	bak = malloc(dlen + blen + 1);
	if (bak == NULL)
		return;
	memcpy(bak, e->path, dlen);
	memcpy(bak + dlen, e->backup, blen);
	fputs("Renaming ", f);
	put_tar_quoted(c, f, e->path, strlen(e->path));
	fputs(" to ", f);
	put_tar_quoted(c, f, bak, dlen + blen);
	putc('\n', f);
	free(bak);
}

/* -v: the line of the entry E extracted (on stderr with -O). */
static void
say_extracted(struct cli *c, const struct pfx_entry *e)
{
	bool to_fd = (c->a->opt.flags & PFX_OPT_TO_FD) != 0;
	FILE *f = to_fd ? stderr : c->listing;

	put_verbose(f, c, e, c->a->verbose >= 2);
	say_backup(c, f, e);
}

/*
 * -G/-g with -tvv: a dump directory's list below its line, as GNU tar
 * shows it: each record's code, a space, its name; an empty line last.
 */
static void
put_dumpdir(FILE *out, const struct pfx_entry *e)
{
	const char *p = e->dumpdir, *end = e->dumpdir + e->dumpdir_len;
	size_t len;

	for (; p < end; p += len + 1) {
		len = strlen(p);
		fprintf(out, "%c ", p[0]);
		put_safe(out, p + 1, len - 1, true);
		putc('\n', out);
	}
	putc('\n', out);
}

/*
 * The library's purged hook (-G/-g): with -v, say what went, as GNU tar
 * says it ("Deleting 'dir/name'"), after the directory's line.
 */
static void
report_purged(void *arg, const struct pfx_entry *dir, const char *name)
{
	struct cli *c = arg;
	size_t len = strlen(dir->name), nlen;
	char *full;

	if (c->a->verbose == 0 || c->a->report_json)
		return;
	if (c->said != dir) {
		say_extracted(c, dir);
		c->said = dir;
	}
	while (len > 1 && dir->name[len - 1] == '/')
		len--;
	nlen = strlen(name);
	full = malloc(len + nlen + 1);
	if (full == NULL)
		return;
	memcpy(full, dir->name, len);
	full[len] = '/';
	memcpy(full + len + 1, name, nlen);
	put_prog(c->listing);
	fputs("Deleting ", c->listing);
	put_tar_quoted(c, c->listing, full, len + 1 + nlen);
	putc('\n', c->listing);
	free(full);
}

/* The wait for an archive's writer ran out (open_archive()). */
static volatile sig_atomic_t open_expired;

static void
on_open_alarm(int sig)
{
	(void)sig;
	open_expired = 1;
}

/*
 * Open the archive PATH as tar opens -f, waiting at most A's deadline:
 * open(2) of a FIFO blocks until a writer opens it, before the library's
 * --timeout and --idle-timeout (which watch the decoder process) start,
 * and an uploader that never connects would hold the run for ever.  The
 * wait is taken from --timeout, and bounded by --idle-timeout where the
 * sandbox is on (nothing was read: the input stalled).  A stop signal
 * interrupts it too (no SA_RESTART).  Return: the descriptor, or -errno:
 * -ETIMEDOUT at the deadline, of *SECS seconds (*IDLE: --idle-timeout's).
 */
static int
open_archive(struct xtr_args *a, const char *path, unsigned int *secs,
    bool *idle)
{
	struct itimerval t, old_t;
	struct sigaction sa, old_sa;
	struct timespec t0, t1;
	unsigned int s = a->opt.timeout, waited;
	int fd, e;

	*idle = false;
	if (a->sandbox != XTR_SANDBOX_OFF && a->opt.idle_timeout != 0 &&
	    (s == 0 || a->opt.idle_timeout < s)) {
		s = a->opt.idle_timeout;
		*idle = true;
	}
	*secs = s;
	if (s == 0) {
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
		return fd >= 0 ? fd : -errno;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_open_alarm;
	sigemptyset(&sa.sa_mask);
	memset(&t, 0, sizeof(t));
	t.it_value.tv_sec = (time_t)s;
	open_expired = 0;
	(void)clock_gettime(CLOCK_MONOTONIC, &t0);
	(void)sigaction(SIGALRM, &sa, &old_sa);
	(void)setitimer(ITIMER_REAL, &t, &old_t);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	e = errno;
	memset(&t, 0, sizeof(t));
	(void)setitimer(ITIMER_REAL, &t, NULL);
	(void)sigaction(SIGALRM, &old_sa, NULL);
	(void)setitimer(ITIMER_REAL, &old_t, NULL);
	if (fd == -1)
		return e == EINTR && open_expired ? -ETIMEDOUT : -e;
	/* The run's --timeout counts the wait: the library's starts now. */
	(void)clock_gettime(CLOCK_MONOTONIC, &t1);
	waited = (unsigned int)(t1.tv_sec - t0.tv_sec);
	if (a->opt.timeout != 0)
		a->opt.timeout = waited < a->opt.timeout ?
		    a->opt.timeout - waited : 1;
	return fd;
}

/*
 * The archive PATH could not be opened (errno E; SECS and IDLE as
 * open_archive() gives them): RES says why, a fatal end.
 */
static void
open_failed(const char *path, int e, unsigned int secs, bool idle,
    struct pfx_result *res)
{
	res->status = PFX_FATAL;
	res->error = e;
	res->resolver = "none";
	if (e == EINTR && caught != 0) {
		/* Said as any run a signal stopped. */
		res->error = ECANCELED;
		snprintf(res->message, sizeof(res->message), "interrupted");
	} else if (e == ETIMEDOUT)
		snprintf(res->message, sizeof(res->message),
		    "%s: no writer opened it within %u s (%s)", path,
		    secs, idle ? "--idle-timeout" : "--timeout");
	else
		snprintf(res->message, sizeof(res->message),
		    as_tar() ? "%s: Cannot open: %s" :
		    "%s: cannot open archive: %s", path, strerror(e));
}

/*
 * -M: open the volumes after the first (A's VOLUMES; "-" is standard
 * input) into FDS, as tar opens -f, before the library confines anything.
 * One that cannot be opened is -errno: GNU tar opens a volume only when
 * the archive reaches it, and so it fails only then.
 */
static void
open_volumes(struct xtr_args *a, int *fds, struct pfx_result *res)
{
	unsigned int secs = 0;
	bool idle = false;
	size_t i;

	for (i = 0; i < a->nvolumes; i++) {
		fds[i] = strcmp(a->volumes[i], "-") == 0 ? STDIN_FILENO :
		    open_archive(a, a->volumes[i], &secs, &idle);
		/* A wait for a writer that ran out, or a stop, ends the
		 * run now: the later volumes would wait as long. */
		if (fds[i] == -ETIMEDOUT || (fds[i] == -EINTR && caught)) {
			open_failed(a->volumes[i], -fds[i], secs, idle, res);
			return;
		}
	}
}

/* Close what open_volumes() opened of A's volumes (< 0: not opened). */
static void
close_volumes(const struct xtr_args *a, int *fds)
{
	size_t i;

	for (i = 0; i < a->nvolumes; i++)
		if (fds[i] > STDIN_FILENO)
			(void)close(fds[i]);
}

/*
 * The library's queued hook, with -xv: a symbolic link whose outcome
 * waits for the end of the run is named now, at its place in the
 * archive, as GNU tar names it; a refusal is said when it comes.
 */
static void
report_queued(void *arg, const struct pfx_entry *e)
{
	struct cli *c = arg;

	progress_clear(&c->prog);
	if (e->offset >= 0)
		list_checkpoints(&c->fmt, (uint64_t)e->offset, false,
		    c->listing);
	say_extracted(c, e);
}

/* The library's warning hook: in GNU tar's words, on standard error. */
static void
report_warning(void *arg, const char *what, const char *name)
{
	struct cli *c = arg;

	c->warnings++;
	if (strcmp(what, "header_damaged") == 0)
		c->damaged++;
	progress_clear(&c->prog);
	put_prog(stderr);
	/* GNU tar's numbers are not in the library's words: the name is. */
	if (strcmp(what, "out_of_sequence") == 0)
		fputs("This volume is out of sequence (", stderr);
	put_tar_quoted(c, stderr, name, strlen(name));
	if (strcmp(what, "truncated_name") == 0)
		fputs(" is possibly continued on this volume: header contains "
		    "truncated name\n", stderr);
	else if (strcmp(what, "not_continued") == 0)
		fputs(" is not continued on this volume\n", stderr);
	else if (strcmp(what, "wrong_size") == 0)
		fputs(" is the wrong size (volume skipped)\n", stderr);
	else if (strcmp(what, "out_of_sequence") == 0)
		fputs(")\n", stderr);
	else if (strcmp(what, "xattr_not_stored") == 0)
		fputs(": Cannot set extended attributes: the filesystem "
		    "refused one (name or value too long, or no room); the "
		    "file is extracted without it\n", stderr);
	else if (strcmp(what, "header_damaged") == 0)
		fputs(": Damaged header: a malformed part of it was "
		    "ignored\n", stderr);
	else if (strcmp(what, "name_not_converted") == 0)
		fputs(": Name not in its header's character set: taken as "
		    "its bytes\n", stderr);
	else
		fprintf(stderr, ": warning: %s\n", what);
}

/* Was E's -v line written when it was read (report_queued())? */
static bool
named_when_queued(const struct cli *c, const struct pfx_entry *e)
{
	return c->a->opt.queued != NULL && e->type == PFX_TYPE_SYMLINK;
}

/* The library's report hook: one call per entry, with its outcome. */
static void
report_entry(void *arg, const struct pfx_entry *e)
{
	struct cli *c = arg;
	const struct xtr_args *a = c->a;
	/* -O: the data is on standard output, so -v goes to stderr, and
	 * every entry is named, as GNU tar does. */
	bool to_fd = (a->opt.flags & PFX_OPT_TO_FD) != 0;
	bool said = c->said == e;

	/* The purge's lines come right before the entry's report. */
	c->said = NULL;
	progress_clear(&c->prog);
	/* As tar: checkpoints up to the record of this header first. */
	if (e->offset >= 0)
		list_checkpoints(&c->fmt, (uint64_t)e->offset, false,
		    c->listing);
	if (totals_wanted) {
		totals_wanted = 0;
		list_put_totals(stderr, &c->fmt, e->offset >= 0 ?
		    (uint64_t)e->offset + 512 : 0, true);
	}
	if (a->report_json)
		put_json_entry(e);
	switch (e->status) {
	case PFX_ENTRY_EXTRACTED:
		if (a->report_json || a->verbose == 0 || said ||
		    named_when_queued(c, e))
			break;
		say_extracted(c, e);
		break;
	case PFX_ENTRY_LISTED:
		if (a->report_json)
			break;
		if (to_fd) {
			if (a->verbose > 0)
				put_verbose(stderr, c, e, a->verbose >= 2);
			break;
		}
		put_verbose(c->listing, c, e, a->verbose >= 1);
		if (a->verbose >= 2 && e->dumpdir != NULL)
			put_dumpdir(c->listing, e);
		break;
	case PFX_ENTRY_REFUSED:
		/* -k over an existing name fails the run, as in GNU tar,
		 * which names it with -v before it says so. */
		if (kept_old(c, e)) {
			c->kept_old++;
			if (a->verbose > 0 && !a->report_json &&
			    !named_when_queued(c, e))
				say_extracted(c, e);
		}
		/* -q silences refusals; they still count and are in JSON. */
		if (!a->quiet)
			put_problem(c, e);
		break;
	case PFX_ENTRY_FAILED:
		/* The reader of -O's data went away: the library says
		 * EPIPE and raises no SIGPIPE, which tar dies of unless it
		 * was ignored on entry; so it comes to on_signal() here. */
		if ((a->opt.flags & PFX_OPT_TO_FD) != 0 && e->error == EPIPE)
			(void)raise(SIGPIPE);
		/* An I/O error is never silenced, not even by -q; but to a
		 * reader of -O that went away, tar says nothing. */
		if (caught != SIGPIPE) {
			put_problem(c, e);
			(void)snprintf(c->failure, sizeof(c->failure),
			    "%s: %s", e->name, strerror(e->error));
		}
		break;
	case PFX_ENTRY_SKIPPED:
		/* --keep-newer-files: GNU tar's warning, exit status 0. */
		if (e->reason != NULL && strcmp(e->reason, "newer_exists") == 0
		    && !a->quiet) {
			put_prog(stderr);
			fputs("Current ", stderr);
			put_tar_quoted(c, stderr, e->name, strlen(e->name));
			fputs(" is newer or same age\n", stderr);
		}
		break;
	}
	progress_entry(&c->prog, e);
}

/*
 * --test-label's -v: GNU tar's, one more without member operands (it
 * then says the label, and is silent with them).
 */
static int
test_label_verbose(const struct xtr_args *a)
{
	return a->verbose + (a->nmembers == 0 ? 1 : 0);
}

/*
 * --test-label: the label E as GNU tar's print_volume_label() writes it,
 * its name, or with -v a long line of a header made up for it: mode,
 * owners and size 0, the pax global header's mtime or 0.
 */
static void
test_label_put(struct cli *c, const struct pfx_entry *e)
{
	struct pfx_entry shown;
	int v = test_label_verbose(c->a);

	if (v == 0)
		return;
	memset(&shown, 0, sizeof(shown));
	shown.name = e->name;
	shown.type = e->type;
	shown.mtime = e->offset < 0 ? e->mtime : 0;
	shown.offset = e->offset;
	list_put_label(c->listing, &c->fmt, &shown, v >= 2);
}

/*
 * The library's label hook: a GNU volume label is listed by -t, and said
 * by -x -v, as GNU tar does (never extracted).
 */
static void
report_label(void *arg, const struct pfx_entry *e)
{
	struct cli *c = arg;
	const struct xtr_args *a = c->a;
	bool list = (a->opt.flags & PFX_OPT_LIST) != 0;

	if (a->report_json || (!list && a->verbose == 0))
		return;
	if (a->mode == 'l') {
		test_label_put(c, e);
		return;
	}
	/* GNU tar writes a pax label with the first line it writes. */
	if (e->offset < 0) {
		c->label = *e;
		c->label.uname = c->label.gname = NULL;
		c->label.name = strdup(e->name);
		return;
	}
	progress_clear(&c->prog);
	list_put_label((a->opt.flags & PFX_OPT_TO_FD) != 0 ? stderr :
	    c->listing, &c->fmt, e, list ? a->verbose >= 1 :
	    a->verbose >= 2);
}

/* The library's decide hook: the CLI's own selection (select.c). */
static int
decide_entry(void *arg, const struct pfx_entry *e, char *rename,
    size_t rename_cap)
{
	struct cli *c = arg;

	(void)rename;
	(void)rename_cap;
	return xtr_select_skip(c->a, &c->started, e) ? PFX_HOOK_SKIP :
	    PFX_HOOK_CONTINUE;
}

/* Write what the sandbox enforced as a JSON object, or null. */
static void
put_json_sandbox(FILE *f, const struct pfx_sandbox_info *sb)
{
	if (sb->text[0] == '\0') {
		fputs("null", f);	/* off, or never reached */
		return;
	}
	fprintf(f, "{\"landlock_abi\":%d,\"fs\":%s,\"net\":%s,"
	    "\"scope\":%s,\"no_new_privs\":%s,\"seccomp\":%s,\"text\":",
	    sb->landlock_abi, sb->fs ? "true" : "false",
	    sb->net ? "true" : "false", sb->scope ? "true" : "false",
	    sb->no_new_privs ? "true" : "false",
	    sb->seccomp ? "true" : "false");
	json_put_string(f, sb->text, strlen(sb->text));
	putc('}', f);
}

/* Write the closing --report=json line. */
static void
put_json_summary(const struct pfx_result *r, enum pfx_status status,
    const char *error, size_t warnings)
{
	static const char *const names[] = { "ok", "refused", "fatal" };
	FILE *f = stdout;

	fprintf(f, "{\"summary\":true,\"status\":\"%s\"",
	    (size_t)status < 3 ? names[status] : "fatal");
	fprintf(f, ",\"entries\":%" PRIu64 ",\"extracted\":%" PRIu64
	    ",\"listed\":%" PRIu64 ",\"refused\":%" PRIu64
	    ",\"skipped\":%" PRIu64 ",\"failed\":%" PRIu64
	    ",\"unmatched\":%" PRIu64 ",\"bytes\":%" PRIu64,
	    r->stats.entries, r->stats.extracted, r->stats.listed,
	    r->stats.refused, r->stats.skipped, r->stats.failed,
	    r->stats.unmatched, r->stats.bytes);
	fprintf(f, ",\"warnings\":%zu", warnings);
	fputs(",\"resolver\":", f);
	put_json_or_null(f, r->resolver);
	fputs(",\"sandbox\":", f);
	put_json_sandbox(f, &r->sandbox);
	fputs(",\"error\":", f);
	put_json_or_null(f, error);
	fputs("}\n", f);
}

/* The symbolic name of the errno values the probe expects, else NULL. */
static const char *
errno_name(int e)
{
	switch (e) {
	case 0:
		return "OK";
	case EACCES:
		return "EACCES";
	case EPERM:
		return "EPERM";
	case EXDEV:
		return "EXDEV";
	case ENOENT:
		return "ENOENT";
	case EEXIST:
		return "EEXIST";
	case ENOSYS:
		return "ENOSYS";
	case EROFS:
		return "EROFS";
	case EAFNOSUPPORT:
		return "EAFNOSUPPORT";
	}
	return NULL;
}

/* Write "probe: WHAT ENAME" to standard error. */
static void
probe_say(const char *what, int e)
{
	const char *name = errno_name(e);

	if (name != NULL)
		fprintf(stderr, "probe: %s %s\n", what, name);
	else
		fprintf(stderr, "probe: %s errno %d\n", what, e);
}

/*
 * Set the mode of PATH's directory to the one it has: a change outside
 * DEST that Landlock does not see, which read-only mounts refuse.
 * Return: 0, or errno.
 */
static int
probe_chmod_dir(const char *path)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	struct stat st;

	if (slash == NULL)
		(void)snprintf(dir, sizeof(dir), ".");
	else if ((size_t)(slash - path) >= sizeof(dir))
		return ENAMETOOLONG;
	else
		(void)snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 :
		    (int)(slash - path), path);
	if (stat(dir, &st) == -1 || chmod(dir, st.st_mode & 07777) == -1)
		return errno;
	return 0;
}

/* Does this process hold a descriptor of C's archive (its identity)
 * among its first 1,024? */
static bool
holds_archive(const struct cli *c)
{
	struct stat st;
	int fd;

	for (fd = 0; fd < 1024; fd++)
		if (fstat(fd, &st) == 0 && st.st_dev == c->archive_st.st_dev &&
		    st.st_ino == c->archive_st.st_ino)
			return true;
	return false;
}

/*
 * Give standard error's file a file capability (security.capability:
 * CAP_SETUID), through the descriptor held from before the confinement,
 * as a writer taken over would give one to a program it wrote there.
 * Return: 0, or errno.
 */
static int
probe_setfcap(void)
{
	/* struct vfs_cap_data, revision 2, effective: CAP_SETUID. */
	static const uint32_t cap[5] = { 0x02000001u, 1u << 7, 0, 0, 0 };

	return -plat_os_fsetxattr(STDERR_FILENO, "security.capability", cap,
	    sizeof(cap));
}

/*
 * Make FD's file writable by others, through FD, as a writer taken over
 * would: a change outside DEST when FD is standard output or error, held
 * from before the confinement.  Tests look at the file's mode after.
 * Return: 0, or errno.
 */
static int
probe_fchmod(int fd)
{
	struct stat st;

	if (fstat(fd, &st) == -1 ||
	    fchmod(fd, (st.st_mode & 07777) | S_IWOTH) == -1)
		return errno;
	return 0;
}

/*
 * The test seam PFEXTRACT_SANDBOX_PROBE=PATH: try what the sandbox
 * forbids -- create PATH for writing, set the mode PATH's directory has
 * (probe_chmod_dir()), make standard output's and error's files
 * writable by others through them (probe_fchmod()), give standard
 * error's file a file capability (probe_setfcap()), make an AF_INET
 * socket, fork, and
 * in the child (if there is one) execute /bin/true -- and say on
 * standard error how each went, "probe: open EACCES", so that tests
 * watch the kernel refuse from outside.  What succeeds is left as it is
 * (PATH stays created).  Where the archive is a file, it also says
 * whether this process still holds a descriptor of it ("probe: archive
 * held", or "gone": let_archive_go()).
 */
static void
probe_sandbox(const struct cli *c, const char *path)
{
	char *const argv[] = { "true", NULL };
	char *const envp[] = { NULL };
	int fd, e, p[2];
	ssize_t n;
	pid_t pid;

	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY,
	    0600);
	probe_say("open", fd == -1 ? errno : 0);
	if (fd != -1)
		(void)close(fd);
	probe_say("chmod", probe_chmod_dir(path));
	probe_say("fchmod stdout", probe_fchmod(STDOUT_FILENO));
	probe_say("fchmod stderr", probe_fchmod(STDERR_FILENO));
	probe_say("setfcap", probe_setfcap());
	if (c->archive_file)
		fputs(holds_archive(c) ? "probe: archive held\n" :
		    "probe: archive gone\n", stderr);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	probe_say("socket", fd == -1 ? errno : 0);
	if (fd != -1)
		(void)close(fd);
	/* The child's exec errno comes back through a close-on-exec pipe:
	 * nothing read means the exec succeeded. */
	if (pipe(p) == -1) {
		probe_say("execve", errno);
		return;
	}
	(void)fcntl(p[0], F_SETFD, FD_CLOEXEC);
	(void)fcntl(p[1], F_SETFD, FD_CLOEXEC);
	(void)fflush(stderr);
	pid = fork();
	probe_say("fork", pid == -1 ? errno : 0);
	if (pid == 0) {
		(void)close(p[0]);
		(void)execve("/bin/true", argv, envp);
		e = errno;
		(void)write(p[1], &e, sizeof(e));
		_exit(127);
	}
	(void)close(p[1]);
	if (pid != -1) {
		do {
			n = read(p[0], &e, sizeof(e));
		} while (n == -1 && errno == EINTR);
		if (n != (ssize_t)sizeof(e))
			e = 0;
		while (waitpid(pid, NULL, 0) == -1 && errno == EINTR)
			continue;
		probe_say("execve", e);
	}
	(void)close(p[0]);
}

/*
 * Replace FD, where it is a regular file, by the read end of an empty
 * pipe: the number stays open (main() closes it), the file is no longer
 * held.
 */
static void
let_go(int fd)
{
	struct stat st;
	int p[2];

	/* FD is open: the pipe's ends are other numbers. */
	if (fd < 0 || fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    pipe(p) == -1)
		return;
	(void)close(p[1]);
	if (dup2(p[0], fd) == fd)
		(void)fcntl(fd, F_SETFD, FD_CLOEXEC);
	(void)close(p[0]);
}

/*
 * SECURITY: once confined, the writer needs no descriptor of the archive
 * or its volumes: the decoder process reads them through its own.  Held,
 * they kept the archive's own writable mount, which the read-only mounts
 * cannot reach: a writer taken over could change the archive's mode and
 * times through them, set-id bits too under -p (a polyglot archive that
 * is also a program, made set-user-ID).  Each that is a file is let go.
 */
static void
let_archive_go(const struct cli *c)
{
	size_t i;

	let_go(c->archive_fd);
	for (i = 0; i < c->nvolumes; i++)
		let_go(c->volumes[i]);
}

/* The relay of outputs redirected to files, when there is one. */
static struct plat_out_relay out_relay = { -1, -1, false };

/*
 * SECURITY: standard output or error redirected to a regular file
 * (`2>>/var/log/x`) keeps its own writable mount in the confined
 * writer: the read-only view reaches a terminal, /dev/null or a pipe
 * (opened again through it), not a file open for writing, and the
 * filter cannot tell its descriptor from those of the files pfextract
 * makes.  Through it a writer taken over could make the file
 * world-writable, change its times or ACL, and under -p make it
 * set-user-ID.  Such an output is written by a relay process that
 * parses nothing; this one writes into a pipe (plat_output_relay()).
 * Only where the writer is confined: not under --atomic or
 * --no-sandbox.  Return: 0, or -errno (nothing changed).
 */
static int
relay_outputs(const struct xtr_args *a)
{
	static const int fds[2] = { STDOUT_FILENO, STDERR_FILENO };

	if ((a->opt.flags & PFX_OPT_SANDBOX) == 0 ||
	    (a->opt.flags & PFX_OPT_ATOMIC) != 0)
		return 0;
	/* What is buffered goes into the files, before the pipes. */
	(void)fflush(NULL);
	return plat_output_relay(fds, 2, &out_relay);
}

/*
 * At the end: let the relay write all, and say if standard output's
 * file could not take it (as flush_stdout() would have).  Closes
 * standard output and error.  Return: 0, or -1 (output lost).
 */
static int
end_relay(void)
{
	int e = 0, w;

	if (out_relay.pid < 0)
		return 0;
	(void)fflush(NULL);
	(void)close(STDOUT_FILENO);
	if (out_relay.first_alone) {
		/* Its end alone: the relay says how its file took it while
		 * standard error still reaches the user. */
		e = plat_output_relay_first(&out_relay);
		if (e > 0 && caught != SIGPIPE) {
			put_prog(stderr);
			fprintf(stderr, "standard output: %s\n", strerror(e));
			(void)fflush(stderr);
		}
	}
	(void)close(STDERR_FILENO);
	w = plat_output_relay_wait(&out_relay);
	return e != 0 || w != 0 ? -1 : 0;
}

/*
 * The library's confined hook: the process has just been confined, no
 * archive byte is read yet.  Say what holds (-vv), let the archive go
 * (let_archive_go()), and run the probe.
 */
static void
on_confined(void *arg, const struct pfx_sandbox_info *info)
{
	struct cli *c = arg;
	/* --atomic: only the decoder process is confined (the publish
	 * needs rights in DEST's parent); this hook then runs here, in the
	 * unconfined writer, where a probe proves nothing. */
	bool child = (c->a->opt.flags & PFX_OPT_ATOMIC) != 0;

	if (c->a->verbose >= 3) {
		put_prog(stderr);
		fputs("sandbox: ", stderr);
		put_safe(stderr, info->text, strlen(info->text), false);
		fputs(child ? " (the decoder process; this one publishes)\n" :
		    "\n", stderr);
	}
	if (!child)
		let_archive_go(c);
	if (c->probe != NULL && child)
		fputs("probe: skipped (--atomic confines the decoder "
		    "process only)\n", stderr);
	else if (c->probe != NULL)
		probe_sandbox(c, c->probe);
}

/*
 * Flush standard output and say so if anything written to it was lost.
 * Return: 0, or -1.
 */
static int
flush_stdout(void)
{
	if (fflush(stdout) != 0) {
		/* The reader went away: SIGPIPE tells it (die_of_sigpipe). */
		if (caught == SIGPIPE)
			return -1;
		fprintf(stderr, "%s: standard output: %s\n", progname,
		    strerror(errno));
		return -1;
	}
	if (ferror(stdout)) {
		put_prog(stderr);
		fputs("standard output: write error\n", stderr);
		return -1;
	}
	return 0;
}

/*
 * End killed by SIGPIPE, silently, as tar does when the reader of its
 * output goes away: a shell reports 141, and a caller sees the signal.
 * Returns only if the signal cannot be raised.
 */
static void
die_of_sigpipe(void)
{
	struct sigaction sa;
	sigset_t set;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	(void)sigemptyset(&sa.sa_mask);
	(void)sigaction(SIGPIPE, &sa, NULL);
	(void)sigemptyset(&set);
	(void)sigaddset(&set, SIGPIPE);
	(void)sigprocmask(SIG_UNBLOCK, &set, NULL);
	(void)raise(SIGPIPE);
}

/* Does the literal operand S hold a pattern character that no '\'
 * escapes (GNU tar's test for its wildcards warning)? */
static bool
has_wildcards(const char *s)
{
	for (; *s != '\0'; s++) {
		if (*s == '\\' && s[1] != '\0')
			s++;
		else if (*s == '*' || *s == '?' || *s == '[')
			return true;
	}
	return false;
}

/*
 * GNU tar's warning, once, for the operand NAME that found nothing: it
 * looks like a pattern, and neither --wildcards nor --no-wildcards was
 * given.
 */
static void
warn_wildcards(struct cli *c, const char *name)
{
	if (c->a->wildcards_given || c->warned || !has_wildcards(name))
		return;
	put_prog(stderr);
	fputs("Pattern matching characters used in file names\n", stderr);
	put_prog(stderr);
	fputs("Use --wildcards to enable pattern matching, or "
	    "--no-wildcards to suppress this warning\n", stderr);
	c->warned = true;
}

/*
 * --test-label with member operands, whose label none matched (or there
 * is none): with -v GNU tar's "Archive label mismatch", then its
 * wildcards warning for the first operand that calls for it.  The exit
 * status is 1, as GNU tar's (the library's PFX_REFUSED).
 */
static void
test_label_mismatch(struct cli *c)
{
	const struct xtr_args *a = c->a;
	size_t i;

	if (test_label_verbose(a) > 0) {
		/* After the label's line, as GNU tar writes them. */
		(void)fflush(c->listing);
		put_prog(stderr);
		fputs("Archive label mismatch\n", stderr);
	}
	for (i = 0; i < a->nmembers && !c->warned; i++)
		warn_wildcards(c, a->members[i]);
}

/*
 * A member operand or --include pattern that selected nothing, as GNU
 * tar says it: an operand by its name without trailing '/'s, after a
 * warning (once) if it looks like a pattern and neither --wildcards nor
 * --no-wildcards was given.
 */
static void
report_unmatched(void *arg, const char *pattern)
{
	struct cli *c = arg;
	const struct xtr_args *a = c->a;
	const char *name = pattern;
	size_t i, len;

	for (i = 0; i < a->nmember_pat; i++) {
		if (a->member_pat[i] == pattern)
			break;
	}
	if (i < a->nmember_pat) {
		c->not_found++;
		name = a->members[i];
		warn_wildcards(c, name);
	}
	len = strlen(name);
	while (len > 1 && name[len - 1] == '/')
		len--;
	progress_clear(&c->prog);
	put_prog(stderr);
	quote_put(stderr, &c->fmt.q, name, len, true, c->fmt.tty_err);
	fputs(": Not found in archive\n", stderr);
}

/*
 * Names in zip and 7z archives are Unicode, and libarchive turns them into
 * the locale's bytes: in the "C" locale it cannot, and every such entry
 * would be refused.  Take the user's locale, and C.UTF-8 when that is
 * plain C, as file names on Linux are UTF-8 in practice.  Names are still
 * quoted for the user's own locale, as tar quotes them: *MULTIBYTE says
 * whether it is multibyte, *UTF8 whether it is UTF-8.
 */
static void
use_utf8_names(bool *multibyte, bool *utf8)
{
	const char *loc = setlocale(LC_CTYPE, "");
	const char *cs = nl_langinfo(CODESET);

	*multibyte = loc != NULL && MB_CUR_MAX > 1;
	*utf8 = *multibyte && cs != NULL && (strcmp(cs, "UTF-8") == 0 ||
	    strcmp(cs, "utf8") == 0);
	if (loc == NULL || strcmp(loc, "C") == 0 || strcmp(loc, "POSIX") == 0)
		(void)setlocale(LC_CTYPE, "C.UTF-8");
}

/*
 * GNU tar's positional -C, with member operands bound to more than one
 * directory: one run per directory, each in a process of its own (the
 * library confines the process that writes to its destination, for the
 * rest of its life), one after the other over the same archive, read
 * again from its start.  Each run takes the entries whose first matching
 * member is bound to its directory (pfx_options.member_group), as GNU
 * tar extracts each entry for the first member that matches it.  The
 * archive must be a file.  In a child, STATUS_FD is where it writes its
 * library status.
 */
static int group_status_fd = -1;
static bool group_later;	/* a run after the first */

/* In a child: make A's run the one for the members bound to DIR (an
 * index of A->member_dir). */
static void
select_group(struct xtr_args *a, size_t dir)
{
	a->opt.member_group = a->member_dir;
	a->opt.group = dir;
	a->dir = dir > 0 ? a->dirs[dir - 1] : NULL;
}

/* Wait for the child PID; a stop signal this process caught is passed
 * on.  Return: its wait status. */
static int
wait_group(pid_t pid)
{
	bool passed = false;
	int ws;

	while (waitpid(pid, &ws, 0) == -1) {
		if (errno != EINTR)
			return 2 << 8;
		if (caught != 0 && caught != SIGPIPE && !passed) {
			(void)kill(pid, caught);
			passed = true;
		}
	}
	return ws;
}

/*
 * Run each group of A's members in a child, in the order of their -C,
 * over the archive IN_FD.  Return: in a child, -1 with A set for its
 * group (go on as a single run); in this process, the exit status: the
 * highest of the children's, the first that a signal stopped, or after a
 * fatal run (the archive unreadable) that one's, with no further run.
 */
static int
run_groups(struct xtr_args *a, int in_fd)
{
	int rc = 0, ws, st, p[2];
	off_t start = lseek(in_fd, 0, SEEK_CUR);
	pid_t parent = getpid();
	unsigned char fatal;
	size_t i, k;
	pid_t pid;

	for (i = 0; i < a->nmember_pat; i++) {
		for (k = 0; k < i; k++)
			if (a->member_dir[k] == a->member_dir[i])
				break;
		if (k < i)
			continue;	/* that group ran */
		if (pipe(p) == -1 || lseek(in_fd, start, SEEK_SET) != start) {
			fprintf(stderr, "pfextract: -C: %s\n", strerror(errno));
			return PFX_FATAL;
		}
		(void)fflush(NULL);
		pid = fork();
		if (pid == -1) {
			fprintf(stderr, "pfextract: -C: fork: %s\n",
			    strerror(errno));
			(void)close(p[0]);
			(void)close(p[1]);
			return PFX_FATAL;
		}
		if (pid == 0) {
			(void)close(p[0]);
#ifdef PR_SET_PDEATHSIG
			/* Killed with pfextract (SIGKILL, which no handler
			 * passes on): a run no one waits for writes no more. */
			(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
			if (getppid() != parent)
				_exit(PFX_FATAL);
			group_status_fd = p[1];
			group_later = i > 0;
			select_group(a, a->member_dir[i]);
			return -1;
		}
		(void)close(p[1]);
		ws = wait_group(pid);
		fatal = 0;
		while (read(p[0], &fatal, 1) == -1 && errno == EINTR)
			continue;
		(void)close(p[0]);
		if (WIFSIGNALED(ws)) {
			if (WTERMSIG(ws) == SIGPIPE)
				die_of_sigpipe();
			return 128 + WTERMSIG(ws);
		}
		st = WIFEXITED(ws) ? WEXITSTATUS(ws) : PFX_FATAL;
		if (st >= 128)
			return st;
		if (st > rc)
			rc = st;
		if (fatal == PFX_FATAL)
			break;
	}
	return rc;
}

/*
 * Positional -C: members bound to -C directories that are one directory
 * ("-C d f -C e g -C d link", "-C d f -C d/. link") become one group,
 * extracted by one run, as GNU tar extracts them all into that
 * directory: a hard link then reaches a file extracted there for another
 * member.  One directory: the same inode, by lstat(2), so that a
 * symlink -C is never taken for its target (its own run refuses it); a
 * -C that cannot be looked at stays a group of its own, whose run says
 * why.  Then A->ngroups is counted again, and with one group left A->dir
 * is its directory.
 */
static void
merge_same_dirs(struct xtr_args *a)
{
	struct stat *st;
	size_t *canon, i, k, n = a->ndirs + 1, groups = 0;
	bool *used;

	/* Index 0: no -C, the current directory. */
	st = calloc(n, sizeof(*st));
	canon = calloc(n, sizeof(*canon));
	used = calloc(n, sizeof(*used));
	if (st == NULL || canon == NULL || used == NULL)
		goto out;	/* the groups stay as they are */
	for (i = 0; i < n; i++) {
		canon[i] = i;
		if (lstat(i > 0 ? a->dirs[i - 1] : ".", &st[i]) == -1 ||
		    !S_ISDIR(st[i].st_mode))
			continue;
		for (k = 0; k < i; k++)
			if (canon[k] == k && S_ISDIR(st[k].st_mode) &&
			    st[k].st_dev == st[i].st_dev &&
			    st[k].st_ino == st[i].st_ino) {
				canon[i] = k;
				break;
			}
	}
	for (i = 0; i < a->nmember_pat; i++) {
		a->member_dir[i] = canon[a->member_dir[i]];
		if (!used[a->member_dir[i]])
			groups++;
		used[a->member_dir[i]] = true;
	}
	a->ngroups = groups;
	if (groups == 1 && a->member_dir[0] > 0)
		a->dir = a->dirs[a->member_dir[0] - 1];
out:
	free(st);
	free(canon);
	free(used);
}

/*
 * Several -C directories: check that they can be run one after the
 * other (ERR, CAP bytes, says why not).  Return: 0, or -1.
 */
static int
groups_possible(const struct xtr_args *a, int in_fd, char *err, size_t cap)
{
	struct stat st;

	if (a->report_json) {
		snprintf(err, cap, "--report=json takes one -C directory "
		    "(member operands bound to %zu)", a->ngroups);
		return -1;
	}
	if ((a->opt.flags & PFX_OPT_ATOMIC) != 0) {
		snprintf(err, cap, "--atomic takes one -C directory (member "
		    "operands bound to %zu): all or nothing across several "
		    "is not offered", a->ngroups);
		return -1;
	}
	if (fstat(in_fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    lseek(in_fd, 0, SEEK_CUR) == -1) {
		snprintf(err, cap, "member operands bound to %zu -C "
		    "directories need an archive that can be read again, a "
		    "file: it is read once per directory", a->ngroups);
		return -1;
	}
	return 0;
}

/* Only note that --totals=SIGNAL came; the totals are printed in the
 * run's own time. */
static void
on_totals_signal(int sig)
{
	(void)sig;
	totals_wanted = 1;
}

/*
 * Set up what the listing and the terminal output need: the quoting,
 * the columns' options, --index-file, --checkpoint-action's terminal,
 * --totals=SIGNAL's handler (SA_RESTART: it must stop no read), the
 * progress line.  Everything is opened now, before the sandbox.
 * Return: 0, or -1 with a message in ERR (CAP bytes).
 */
static int
setup_output(struct cli *c, const struct xtr_args *a, bool multibyte,
    bool utf8, int input_fd, char *err, size_t cap)
{
	struct list_fmt *f = &c->fmt;
	struct sigaction sa;
	struct stat st;
	size_t i;
	bool on;
	int fd;

	list_fmt_init(f, multibyte, utf8);
	f->prog = progname;
	if (a->quoting_style != NULL)
		(void)quote_style_parse(a->quoting_style, &f->q.style);
	memcpy(f->q.chars, a->quote_chars, sizeof(f->q.chars));
	f->numeric = (a->opt.flags & PFX_OPT_NUMERIC_OWNER) != 0;
	f->full_time = a->full_time;
	f->utc = a->utc;
	f->block_number = a->block_number;
	f->ckpt_every = a->checkpoint;
	for (i = 0; i < a->nckpt_actions; i++)
		if (list_parse_ckpt_action(f, a->ckpt_actions[i], err,
		    cap) == -1)
			return -1;
	for (i = 0; i < f->nckpt; i++)
		if ((f->ckpt[i].kind == CKPT_BELL ||
		    f->ckpt[i].kind == CKPT_TTYOUT) && f->tty == NULL)
			f->tty = fopen("/dev/tty", "we");
	c->listing = stdout;
	if (a->index_file != NULL) {
		/* A later -C directory's run adds to the first's. */
		fd = open(a->index_file, O_WRONLY | O_CREAT |
		    (group_later ? O_APPEND : O_TRUNC) |
		    O_CLOEXEC | O_NOCTTY, 0666);
		c->listing = fd >= 0 ? fdopen(fd, "w") : NULL;
		if (c->listing == NULL) {
			snprintf(err, cap, "%s: cannot open index file: %s",
			    a->index_file, strerror(errno));
			if (fd >= 0)
				(void)close(fd);
			c->listing = stdout;
			return -1;
		}
	}
	f->tty_out = isatty(fileno(c->listing)) == 1;
	f->tty_err = isatty(STDERR_FILENO) == 1;
	if (a->totals_signal != 0 && a->totals_signal != SIGINT &&
	    a->totals_signal != SIGHUP) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_totals_signal;
		sa.sa_flags = SA_RESTART;
		sigemptyset(&sa.sa_mask);
		(void)sigaction(a->totals_signal, &sa, NULL);
	}
	/* -v names on the same terminal would be torn by the line. */
	on = a->progress == 1 || (a->progress == -1 && f->tty_err &&
	    !a->report_json && !(a->verbose > 0 && f->tty_out));
	progress_init(&c->prog, on && !a->quiet, stderr, progname,
	    input_fd >= 0 && fstat(input_fd, &st) == 0 && S_ISREG(st.st_mode) ?
	    (uint64_t)st.st_size : 0);
	return 0;
}

/* The end of the run's listing and terminal output: the progress line
 * wiped, -R's last line, the last checkpoints, --totals. */
static void
finish_output(struct cli *c, const struct pfx_result *res,
    enum pfx_status status)
{
	const struct xtr_args *a = c->a;
	uint64_t n = res->archive_bytes;

	progress_clear(&c->prog);
	if (status != PFX_FATAL && !a->report_json && res->tar)
		list_put_end_block(c->listing, &c->fmt, n);
	if (n % 10240 != 0)
		n += 10240 - n % 10240;
	list_checkpoints(&c->fmt, n, true, c->listing);
	if ((a->totals && a->totals_signal == 0) ||
	    (a->totals_signal != 0 && caught == a->totals_signal))
		list_put_totals(stderr, &c->fmt, res->archive_bytes,
		    res->tar != 0);
	if (c->listing != stdout && fclose(c->listing) != 0)
		fprintf(stderr, "%s: %s: %s\n", progname, a->index_file,
		    strerror(errno));
	if (c->fmt.tty != NULL)
		(void)fclose(c->fmt.tty);
}

/*
 * No archive named and standard input a terminal: a usage error, or as
 * tar GNU tar's fatal error, in its words and with its exit status 2
 * (scripts test for it).  Return: the exit status.
 */
static int
refuse_terminal(void)
{
	if (!as_tar()) {
		usage_error("refusing to read an archive from a terminal",
		    false);
		return XTR_EXIT_USAGE;
	}
	put_prog(stderr);
	fputs("Refusing to read archive contents from terminal (missing -f "
	    "option?)\n", stderr);
	put_prog(stderr);
	fputs("Error is not recoverable: exiting now\n", stderr);
	return PFX_FATAL;
}

/*
 * Say the fatal error ERROR (errno E), unless TOLD (an entry's failure,
 * said as the entry's already): as tar, an input in no known format is
 * GNU tar's "This does not look like a tar archive", and any other is
 * followed by its "Error is not recoverable: exiting now".
 */
static void
say_fatal(const char *error, int e, bool told)
{
	if (as_tar() && e == PFX_ENOTARCHIVE) {
		put_prog(stderr);
		fputs("This does not look like a tar archive\n", stderr);
		return;
	}
	if (!told) {
		put_prog(stderr);
		put_safe(stderr, error, strlen(error), false);
		fputc('\n', stderr);
	}
	if (as_tar()) {
		put_prog(stderr);
		fputs("Error is not recoverable: exiting now\n", stderr);
	}
}

/*
 * Standard input, output or error closed when pfextract starts (a
 * daemon's child, `>&-`): the lowest free number goes to the next
 * descriptor opened, and what was meant for the closed stream reaches it
 * instead -- the listing and messages went into the decoder process's
 * socket (the run then died of SIGPIPE, silently), standard input was
 * read from the destination directory.  Each closed one is held by
 * /dev/null opened the other way (as gnulib's stdopen()), so that using
 * it still fails with EBADF, as a closed one would.
 */
static void
hold_std_fds(void)
{
	int fd, got;

	for (fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++) {
		if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
			continue;
		/* open(2) gives the lowest free number: FD, unless a lower
		 * one could not be held either (no /dev/null). */
		got = open("/dev/null", fd == STDIN_FILENO ? O_WRONLY :
		    O_RDONLY);
		if (got > fd)
			(void)close(got);
	}
}

int
main(int argc, char **argv)
{
	struct xtr_args a;
	struct pfx_input in;
	struct pfx_result res;
	int volumes[PFX_MAX_VOLUMES];
	struct cli c;
	enum pfx_status status;
	const char *env, *error = NULL;
	char err[1024], stopped[64], words[1024];
	unsigned char fatal_byte;
	bool multibyte, utf8;
	int rc;

	hold_std_fds();
	progname = program_name(argc > 0 ? argv[0] : NULL);
	use_utf8_names(&multibyte, &utf8);
	/* Read the time zone now (-tv): /etc/localtime may be out of the
	 * sandbox's reach later. */
	tzset();
	if (xtr_parse_args(argc, argv, &a, err, sizeof(err)) == -1) {
		usage_error(err[0] != '\0' ? err : "invalid arguments",
		    a.conflict);
		rc = as_tar() && a.conflict ? PFX_FATAL : XTR_EXIT_USAGE;
		xtr_args_free(&a);
		return rc;
	}
	if (a.help) {
		fputs(xtr_usage, stdout);
		xtr_args_free(&a);
		return flush_stdout() == 0 ? 0 : PFX_FATAL;
	}
	if (a.show_defaults) {
		/* As GNU tar's --show-defaults: what -x assumes. */
		puts("-f- -b20 --quoting-style=escape");
		xtr_args_free(&a);
		return flush_stdout() == 0 ? 0 : PFX_FATAL;
	}
	if (a.version) {
		puts("pfextract " PFX_VERSION);
		xtr_args_free(&a);
		return flush_stdout() == 0 ? 0 : PFX_FATAL;
	}
	/* As GNU tar's fnmatch: '^' negates a bracket unless POSIXLY_CORRECT
	 * is set.  The library reads no environment; it is told. */
	if (getenv("POSIXLY_CORRECT") != NULL)
		a.opt.flags |= PFX_OPT_POSIX_GLOB;
	env = getenv(RESOLVER_ENV);
	if (cli_resolver_parse(env, &a.opt.resolver) == -1) {
		snprintf(err, sizeof(err), "invalid %s value '%s' "
		    "(auto, openat2 or walk)", RESOLVER_ENV, env);
		usage_error(err, false);
		xtr_args_free(&a);
		return XTR_EXIT_USAGE;
	}

	catch_signals();
	a.opt.cancel = &caught;
	memset(&in, 0, sizeof(in));
	in.fd = -1;
	memset(&res, 0, sizeof(res));
	if (a.archive != NULL && strcmp(a.archive, "-") != 0) {
		/* Opened here, so that the library gets a descriptor it can
		 * seek (a zip is then read from its central directory). */
		unsigned int secs;
		bool idle;

		in.fd = open_archive(&a, a.archive, &secs, &idle);
		if (in.fd < 0) {
			open_failed(a.archive, -in.fd, secs, idle, &res);
			in.fd = -1;
		}
	} else {
		if (a.archive == NULL && isatty(STDIN_FILENO)) {
			xtr_args_free(&a);
			return refuse_terminal();
		}
		in.fd = STDIN_FILENO;
	}
	memset(volumes, -1, sizeof(volumes));
	in.volumes = volumes;
	in.nvolumes = a.nvolumes;
	if (res.status != PFX_FATAL && a.nvolumes > 0)
		open_volumes(&a, volumes, &res);

	/* Positional -C: one run per directory the members bind to. */
	if (a.ngroups > 1 && a.mode == 'x')
		merge_same_dirs(&a);
	if (a.ngroups > 1 && a.mode == 'x' &&
	    (a.opt.flags & PFX_OPT_TO_FD) == 0 && in.fd >= 0 &&
	    res.status != PFX_FATAL) {
		if (groups_possible(&a, in.fd, err, sizeof(err)) == -1) {
			usage_error(err, false);
			if (in.fd > STDIN_FILENO)
				(void)close(in.fd);
			xtr_args_free(&a);
			return XTR_EXIT_USAGE;
		}
		rc = run_groups(&a, in.fd);
		if (rc >= 0) {
			if (in.fd > STDIN_FILENO)
				(void)close(in.fd);
			xtr_args_free(&a);
			return rc;
		}
	}
	memset(&c, 0, sizeof(c));
	c.a = &a;
	if (setup_output(&c, &a, multibyte, utf8, in.fd, err,
	    sizeof(err)) == -1) {
		usage_error(err, false);
		if (in.fd > STDIN_FILENO)
			(void)close(in.fd);
		close_volumes(&a, volumes);
		xtr_args_free(&a);
		return XTR_EXIT_USAGE;
	}
	a.opt.hooks.decide = xtr_select_needed(&a) ? decide_entry : NULL;
	a.opt.hooks.report = report_entry;
	a.opt.hooks.unmatched = report_unmatched;
	if (a.xforms != NULL)
		a.opt.hooks.transform = transform_name;
	a.opt.hooks.confined = on_confined;
	a.opt.hooks.purged = report_purged;
	a.opt.hooks.label = report_label;
	a.opt.warning = report_warning;
	/* -xv names links in archive order, not when they are made. */
	if (a.mode == 'x' && a.verbose > 0 && !a.report_json)
		a.opt.queued = report_queued;
	a.opt.hooks.arg = &c;
	c.archive_fd = in.fd;
	c.volumes = volumes;
	c.nvolumes = a.nvolumes;
	c.probe = getenv(PROBE_ENV);
	if (c.probe != NULL && c.probe[0] == '\0')
		c.probe = NULL;
	c.archive_file = c.probe != NULL && in.fd >= 0 &&
	    fstat(in.fd, &c.archive_st) == 0 && S_ISREG(c.archive_st.st_mode);
	if (a.sandbox != XTR_SANDBOX_OFF)
		a.opt.flags |= PFX_OPT_SANDBOX;
	if (a.sandbox == XTR_SANDBOX_REQUIRE)
		a.opt.flags |= PFX_OPT_SANDBOX_REQUIRE;
	if (a.sandbox == XTR_SANDBOX_OFF && res.status != PFX_FATAL) {
		if (a.verbose >= 3) {
			put_prog(stderr);
			fputs("sandbox: off (--no-sandbox)\n", stderr);
		}
		if (c.probe != NULL)
			probe_sandbox(&c, c.probe);
	}
	if (res.status != PFX_FATAL && (rc = relay_outputs(&a)) < 0) {
		put_prog(stderr);
		fprintf(stderr, "standard output and error: cannot relay: "
		    "%s\n", strerror(-rc));
		/* Not relayed, they stay changeable by a writer taken
		 * over: a gap in the sandbox, fatal only if required. */
		if (a.sandbox == XTR_SANDBOX_REQUIRE)
			res.status = PFX_FATAL;
	}
	if (res.status == PFX_FATAL)
		status = PFX_FATAL;
	else
		status = pfx_extract(&in, AT_FDCWD, a.dir != NULL ? a.dir :
		    ".", &a.opt, &res);
	if (in.fd > STDIN_FILENO)
		(void)close(in.fd);
	close_volumes(&a, volumes);
	if ((int)status < PFX_OK || status > PFX_FATAL)
		status = PFX_FATAL;
	if (a.mode == 'l' && status != PFX_FATAL && res.stats.unmatched > 0 &&
	    !a.report_json)
		test_label_mismatch(&c);
	finish_output(&c, &res, status);

	/* A stop by signal says only that, unless the library had more to
	 * say (--atomic: every file was in place already). */
	if (status == PFX_FATAL && !(caught != 0 &&
	    res.error == ECANCELED && strcmp(res.message, "interrupted") ==
	    0)) {
		/* The library names its fields; the user knows options. */
		error = res.message[0] != '\0' ? xtr_cli_words(res.message,
		    words, sizeof(words)) : res.error != 0 ?
		    strerror(res.error) : "fatal error";
		/* An entry's failure that ended the run was told as the
		 * entry's: not twice. */
		say_fatal(error, res.error, c.failure[0] != '\0' &&
		    strcmp(res.message, c.failure) == 0);
	}
	/* A run a signal stopped says so, however far it got; but to a
	 * reader that went away, tar says nothing. */
	if (caught != 0) {
		snprintf(stopped, sizeof(stopped), "interrupted by %s",
		    signal_name(caught));
		if (caught != SIGPIPE)
			fprintf(stderr, "%s: %s\n", progname, stopped);
		if (error == NULL)
			error = stopped;
		status = PFX_FATAL;
	}
	/* No summary down the pipe whose reader is gone. */
	if (a.report_json && !(caught == SIGPIPE && ferror(stdout)))
		put_json_summary(&res, status, error, c.warnings);

	/* Listing and -v are output: losing them is an error too. */
	rc = (int)status;
	/* As GNU tar: a member operand not found, -k over an existing
	 * file, or a damaged header, is a failure once the rest is
	 * extracted. */
	if (c.not_found > 0 || c.kept_old > 0 || c.damaged > 0)
		rc = PFX_FATAL;
	/* As tar: a failure it went on after is named at the end. */
	if (as_tar() && rc == PFX_FATAL && (status != PFX_FATAL ||
	    res.error == PFX_ENOTARCHIVE) && caught == 0) {
		put_prog(stderr);
		fputs("Exiting with failure status due to previous errors\n",
		    stderr);
	}
	if (caught == SIGPIPE)
		(void)fflush(stdout);	/* the reader is gone: no message */
	else if (flush_stdout() == -1)
		rc = PFX_FATAL;
	if (end_relay() == -1)
		rc = PFX_FATAL;
	if (caught != 0)
		rc = 128 + caught;
	free((char *)(uintptr_t)c.label.name);	/* a label never written */
	xtr_args_free(&a);
	if (group_status_fd >= 0) {
		/* A group's run (run_groups): tell whether it was fatal. */
		fatal_byte = (unsigned char)status;
		if (write(group_status_fd, &fatal_byte, 1) != 1)
			rc = PFX_FATAL;
	}
	if (caught == SIGPIPE)
		die_of_sigpipe();
	return rc;
}
