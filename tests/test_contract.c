/*
 * test_contract.c -- the library as a contract an installer relies on
 * (libpfextract(3)): one errno per cause, in-process and with the
 * decoder process alike; unknown flags, enumerators and struct sizes
 * refused (EINVAL) before anything is done; NULL arguments refused, not
 * crashed on; a decoder process killed while decide() runs still gives
 * that entry its report(); messages that name the library's fields, not
 * pfextract(1)'s options; the runtime version; and the reason codes of
 * the manual the very ones of the code's table.
 *
 * Each case runs in a fresh directory:
 *
 *	$TMPDIR/pfx-contract.XXXXXX/
 *	|-- dest/		the destination (must stay empty when refused)
 *	`-- in/			archives written by the case
 */
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <criterion/criterion.h>

#include "fixture.h"
#include "names.h"

#define CAP (20u << 20)

static char top[PATH_MAX / 2];
static int topfd = -1;

static void
setup(void)
{
	const char *tmp = getenv("TMPDIR");
	int r;

	r = snprintf(top, sizeof(top), "%s/pfx-contract.XXXXXX",
	    tmp != NULL && *tmp != '\0' ? tmp : "/tmp");
	cr_assert(r > 0 && (size_t)r < sizeof(top));
	cr_assert(mkdtemp(top) != NULL, "mkdtemp: %s", strerror(errno));
	topfd = open(top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert(topfd >= 0);
	cr_assert(mkdirat(topfd, "dest", 0755) == 0);
	cr_assert(mkdirat(topfd, "in", 0755) == 0);
}

static void
teardown(void)
{
	if (topfd >= 0)
		(void)close(topfd);
	topfd = -1;
	(void)tfx_rm_tree(top);
}

TestSuite(contract, .init = setup, .fini = teardown, .timeout = 60);

/*
 * A tar archive in BUF (CAP bytes) through FILTER (an
 * archive_write_add_filter_* code): NFILES files "fN" of SIZE bytes of
 * noise each.  Return: its length.
 */
static size_t
build(char *buf, int filter, int nfiles, size_t size)
{
	struct archive *a = archive_write_new();
	struct archive_entry *e;
	char name[32], *data = malloc(size + 1);
	size_t used = 0, i;
	int k;

	cr_assert(a != NULL && data != NULL);
	/* Noise compresses badly: a cut lands inside the data. */
	for (i = 0; i < size; i++)
		data[i] = (char)(((i * 2654435761u) >> 13) ^ (i >> 3));
	cr_assert(archive_write_set_format_pax_restricted(a) == ARCHIVE_OK);
	cr_assert(archive_write_add_filter(a, filter) == ARCHIVE_OK,
	    "filter %d: %s", filter, archive_error_string(a));
	cr_assert(archive_write_open_memory(a, buf, CAP, &used) ==
	    ARCHIVE_OK);
	for (k = 0; k < nfiles; k++) {
		(void)snprintf(name, sizeof(name), "f%d", k);
		e = archive_entry_new();
		archive_entry_set_pathname(e, name);
		archive_entry_set_filetype(e, AE_IFREG);
		archive_entry_set_perm(e, 0644);
		archive_entry_set_size(e, (la_int64_t)size);
		cr_assert(archive_write_header(a, e) == ARCHIVE_OK);
		cr_assert(archive_write_data(a, data, size) == (la_ssize_t)size);
		archive_entry_free(e);
	}
	cr_assert(archive_write_close(a) == ARCHIVE_OK);
	archive_write_free(a);
	free(data);
	return used;
}

/* Write LEN bytes of BUF to in/NAME; return its path (static). */
static const char *
put_file(const char *name, const char *buf, size_t len)
{
	static char path[PATH_MAX];
	char rel[64];
	int fd;

	(void)snprintf(rel, sizeof(rel), "in/%s", name);
	fd = openat(topfd, rel, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0644);
	cr_assert(fd >= 0 && write(fd, buf, len) == (ssize_t)len &&
	    close(fd) == 0);
	(void)snprintf(path, sizeof(path), "%s/%s", top, rel);
	return path;
}

/* Extract the archive at PATH with FLAGS into dest/.  Return: status. */
static enum pfx_status
run_path(const char *path, unsigned int flags, struct pfx_result *res)
{
	struct pfx_input in = { .path = path, .fd = -1 };
	struct pfx_options opt;

	pfx_options_init(&opt);
	opt.flags |= flags;
	return pfx_extract(&in, topfd, "dest", &opt, res);
}

/* Is dest/ still empty? */
static bool
dest_empty(void)
{
	char **names = NULL;
	ssize_t n = tfx_read_names(topfd, "dest", &names);
	ssize_t i;

	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return n == 0;
}

/* The two ways of reading: in this process, and in a decoder process. */
static const unsigned int modes[] = { 0, PFX_OPT_SANDBOX_CHILD };

/* --- one errno per cause ----------------------------------------------- */

/* A missing archive is ENOENT, a directory EISDIR, however it is read;
 * no message names a descriptor number. */
Test(contract, missing_input_enoent)
{
	struct pfx_result res;
	char path[PATH_MAX];
	size_t m;

	(void)snprintf(path, sizeof(path), "%s/in/none.tar", top);
	for (m = 0; m < 2; m++) {
		cr_expect_eq(run_path(path, modes[m], &res), PFX_FATAL);
		cr_expect_eq(res.error, ENOENT, "mode %#x: error %d: %s",
		    modes[m], res.error, res.message);
		cr_expect(strstr(res.message, "none.tar") != NULL,
		    "mode %#x: the path is not named: %s", modes[m],
		    res.message);
	}
	(void)snprintf(path, sizeof(path), "%s/in", top);
	for (m = 0; m < 2; m++) {
		cr_expect_eq(run_path(path, modes[m], &res), PFX_FATAL);
		cr_expect_eq(res.error, EISDIR, "mode %#x: error %d: %s",
		    modes[m], res.error, res.message);
		cr_expect(strstr(res.message, " fd ") == NULL,
		    "mode %#x: a descriptor is named: %s", modes[m],
		    res.message);
	}
}

/* A truncated archive is EIO, whatever its compression and wherever it
 * was cut: at its first block or in the middle of its data. */
Test(contract, truncated_eio)
{
	static const struct {
		const char *name;
		int filter;
	} kinds[] = {
		{ "a.tar", ARCHIVE_FILTER_NONE },
		{ "a.tgz", ARCHIVE_FILTER_GZIP },
		{ "a.txz", ARCHIVE_FILTER_XZ },
		{ "a.tzst", ARCHIVE_FILTER_ZSTD },
		{ "a.tbz2", ARCHIVE_FILTER_BZIP2 },
	};
	static const unsigned int cut_per_mille[] = { 500, 900 };
	char *buf = malloc(CAP);
	struct pfx_result res;
	const char *path;
	size_t k, c, m, len;

	cr_assert(buf != NULL);
	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		len = build(buf, kinds[k].filter, 3, 200000);
		for (c = 0; c < 2; c++) {
			path = put_file(kinds[k].name, buf,
			    len * cut_per_mille[c] / 1000);
			for (m = 0; m < 2; m++) {
				cr_expect_eq(run_path(path, modes[m], &res),
				    PFX_FATAL);
				cr_expect_eq(res.error, EIO, "%s cut at "
				    "%u/1000, mode %#x: error %d: %s",
				    kinds[k].name, cut_per_mille[c],
				    modes[m], res.error, res.message);
			}
		}
	}
	free(buf);
}

/*
 * The decoder process's RLIMIT_DATA bounds what decoding allocates, not
 * what it inherits: a host holding more than the budget and its headroom
 * (an installer's 1 GiB of heap, here mapped and never touched) still
 * gets its archive read in a decoder process.
 */
Test(contract, host_heap_not_the_decoders)
{
	size_t big = (size_t)1 << 30;
	char *buf = malloc(CAP);
	struct pfx_input in = { .fd = -1 };
	struct pfx_options opt;
	struct pfx_result res;
	void *heap;

	cr_assert(buf != NULL);
	heap = mmap(NULL, big, PROT_READ | PROT_WRITE, MAP_PRIVATE |
	    MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	cr_assert(heap != MAP_FAILED, "mmap: %s", strerror(errno));
	in.path = put_file("a.tgz", buf, build(buf, ARCHIVE_FILTER_GZIP, 3,
	    200000));
	pfx_options_init(&opt);
	opt.flags |= PFX_OPT_SANDBOX_CHILD;
	opt.limits.max_memory = 64u << 20;
	cr_expect_eq(pfx_extract(&in, topfd, "dest", &opt, &res), PFX_OK,
	    "status %d, error %d: %s", res.status, res.error, res.message);
	(void)munmap(heap, big);
	free(buf);
}

/*
 * A descriptor that cannot be read (one open for writing only, one not
 * open at all) is EIO, however it is read: the decoder process does not
 * open the file anew for reading where this process could not read it.
 */
Test(contract, unreadable_fd_eio)
{
	char *buf = malloc(CAP);
	struct pfx_input in = { .fd = -1 };
	struct pfx_options opt;
	struct pfx_result res;
	const char *path;
	size_t m, k;

	cr_assert(buf != NULL);
	path = put_file("a.tar", buf, build(buf, ARCHIVE_FILTER_NONE, 1,
	    1000));
	for (k = 0; k < 2; k++) {
		for (m = 0; m < 2; m++) {
			in.fd = k == 0 ? open(path, O_WRONLY | O_CLOEXEC) :
			    dup(topfd);
			cr_assert(in.fd >= 0);
			if (k == 1)
				(void)close(in.fd);	/* a number, no file */
			pfx_options_init(&opt);
			opt.flags |= PFX_OPT_LIST | modes[m];
			cr_expect_eq(pfx_extract(&in, topfd, NULL, &opt,
			    &res), PFX_FATAL, "%s, mode %#x: %" PRIu64
			    " listed", k == 0 ? "write-only" : "closed",
			    modes[m], res.stats.listed);
			cr_expect_eq(res.error, EIO, "%s, mode %#x: error "
			    "%d: %s", k == 0 ? "write-only" : "closed",
			    modes[m], res.error, res.message);
			if (k == 0)
				(void)close(in.fd);
		}
	}
	free(buf);
}

/*
 * PFX_OPT_TO_FD into a pipe whose reader went away, in a host that left
 * SIGPIPE at its default action: the call returns, EPIPE, and leaves no
 * SIGPIPE pending, however it reads.  (Killed by SIGPIPE, the case
 * crashes.)
 */
Test(contract, to_fd_reader_gone_epipe)
{
	char *buf = malloc(CAP);
	struct pfx_input in = { .fd = -1 };
	struct pfx_options opt;
	struct pfx_result res;
	sigset_t mask, pending;
	int p[2];
	size_t m;

	cr_assert(buf != NULL);
	cr_assert(signal(SIGPIPE, SIG_DFL) != SIG_ERR);
	in.buf = buf;
	in.len = build(buf, ARCHIVE_FILTER_NONE, 2, 200000);
	for (m = 0; m < 2; m++) {
		cr_assert(pipe(p) == 0);
		(void)close(p[0]);
		pfx_options_init(&opt);
		opt.flags |= PFX_OPT_TO_FD | modes[m];
		opt.out_fd = p[1];
		cr_expect_eq(pfx_extract(&in, topfd, NULL, &opt, &res),
		    PFX_FATAL, "mode %#x", modes[m]);
		cr_expect_eq(res.error, EPIPE, "mode %#x: error %d: %s",
		    modes[m], res.error, res.message);
		(void)close(p[1]);
		cr_assert(sigpending(&pending) == 0);
		cr_expect(!sigismember(&pending, SIGPIPE),
		    "mode %#x: SIGPIPE left pending", modes[m]);
		cr_assert(pthread_sigmask(SIG_SETMASK, NULL, &mask) == 0);
		cr_expect(!sigismember(&mask, SIGPIPE),
		    "mode %#x: SIGPIPE left blocked", modes[m]);
	}
	free(buf);
}

/* What is no archive of a format read is EILSEQ: noise, an empty input. */
Test(contract, not_an_archive_eilseq)
{
	static const char noise[] = "this is no archive at all\n";
	struct pfx_result res;
	const char *path;
	size_t m;

	for (m = 0; m < 2; m++) {
		path = put_file("noise", noise, sizeof(noise) - 1);
		cr_expect_eq(run_path(path, modes[m], &res), PFX_FATAL);
		cr_expect_eq(res.error, EILSEQ, "noise, mode %#x: error %d: "
		    "%s", modes[m], res.error, res.message);
		path = put_file("empty", noise, 0);
		cr_expect_eq(run_path(path, modes[m], &res), PFX_FATAL);
		cr_expect_eq(res.error, EILSEQ, "empty, mode %#x: error %d: "
		    "%s", modes[m], res.error, res.message);
	}
}

/* --- unknown values ------------------------------------------------------ */

struct seen {
	int reports;
};

static void
count_report(void *arg, const struct pfx_entry *e)
{
	(void)e;
	((struct seen *)arg)->reports++;
}

/*
 * Extract a good archive with opt changed by SPOIL; it must fail EINVAL
 * with FIELD in the message, before anything is read or written.
 */
static void
expect_refused(void (*spoil)(struct pfx_options *), const char *field)
{
	char *buf = malloc(CAP);
	struct pfx_input in = { .fd = -1 };
	struct pfx_options opt;
	struct pfx_result res;
	struct seen seen = { 0 };

	cr_assert(buf != NULL);
	in.buf = buf;
	in.len = build(buf, ARCHIVE_FILTER_NONE, 1, 10);
	pfx_options_init(&opt);
	opt.hooks.report = count_report;
	opt.hooks.arg = &seen;
	spoil(&opt);
	cr_expect_eq(pfx_extract(&in, topfd, "dest", &opt, &res), PFX_FATAL,
	    "%s: accepted", field);
	cr_expect_eq(res.error, EINVAL, "%s: error %d: %s", field, res.error,
	    res.message);
	cr_expect(strstr(res.message, field) != NULL, "%s not named: %s",
	    field, res.message);
	cr_expect_eq(seen.reports, 0, "%s: entries were read", field);
	cr_expect(dest_empty(), "%s: something was written", field);
	free(buf);
}

static void spoil_flags(struct pfx_options *o) { o->flags |= 0x80000000u; }
static void spoil_symlinks(struct pfx_options *o)
{ o->symlinks = (enum pfx_symlinks)7; }
static void spoil_existing(struct pfx_options *o)
{ o->existing = (enum pfx_existing)9; }
static void spoil_backup(struct pfx_options *o)
{ o->backup = (enum pfx_backup)5; }
static void spoil_resolver(struct pfx_options *o)
{ o->resolver = (enum pfx_resolver)3; }
static void spoil_size(struct pfx_options *o) { o->size = 0; }
static void spoil_include(struct pfx_options *o) { o->ninclude = 2; }
static void spoil_out_fd(struct pfx_options *o)
{ o->flags |= PFX_OPT_TO_FD; o->out_fd = -1; }
static void spoil_formats(struct pfx_options *o) { o->formats = ""; }
static void spoil_cpus(struct pfx_options *o) { o->cpus = PFX_MAX_CPUS + 1; }
/* "" backs a file up onto its own name: the file is lost, not kept. */
static void spoil_suffix_empty(struct pfx_options *o)
{
	o->backup = PFX_BACKUP_SIMPLE;
	o->backup_suffix = "";
}
static void spoil_suffix_path(struct pfx_options *o)
{
	o->backup = PFX_BACKUP_SIMPLE;
	o->backup_suffix = "/../x";
}

Test(contract, unknown_flag_bit) { expect_refused(spoil_flags, "flags"); }
Test(contract, unknown_symlinks) { expect_refused(spoil_symlinks, "symlinks"); }
Test(contract, unknown_existing) { expect_refused(spoil_existing, "existing"); }
Test(contract, unknown_backup) { expect_refused(spoil_backup, "backup"); }
Test(contract, unknown_resolver) { expect_refused(spoil_resolver, "resolver"); }
Test(contract, size_not_set) { expect_refused(spoil_size, "size"); }
Test(contract, count_without_array) { expect_refused(spoil_include, "include"); }
Test(contract, to_fd_without_fd) { expect_refused(spoil_out_fd, "out_fd"); }
Test(contract, formats_empty) { expect_refused(spoil_formats, "formats"); }
Test(contract, cpus_past_the_most) { expect_refused(spoil_cpus, "cpus"); }
Test(contract, backup_suffix_empty)
{
	expect_refused(spoil_suffix_empty, "backup_suffix");
}
Test(contract, backup_suffix_path)
{
	expect_refused(spoil_suffix_path, "backup_suffix");
}

/*
 * PFX_OPT_MULTI_VOLUME with volumes the call cannot take -- a buffer as
 * the first, a count without its array, PFX_MAX_VOLUMES or more -- is the
 * caller's EINVAL, in-process and with the decoder process alike, before
 * anything is read: never a damaged archive's EIO, and never a read of
 * the count's worth past an array of one (the decoder process's parent
 * sizes each volume before its reader could refuse them).
 */
Test(contract, multi_volume_arguments_einval)
{
	static const int one_volume[1] = { -EIO };
	char *buf = malloc(CAP);
	struct pfx_input cases[3];
	struct pfx_options opt;
	struct pfx_result res;
	struct seen seen = { 0 };
	const char *path;
	size_t len, c, m;

	cr_assert(buf != NULL);
	len = build(buf, ARCHIVE_FILTER_NONE, 1, 10);
	path = put_file("a.tar", buf, len);
	memset(cases, 0, sizeof(cases));
	cases[0].fd = -1;
	cases[0].buf = buf;
	cases[0].len = len;
	cases[1].path = path;
	cases[1].nvolumes = 2;
	cases[2].path = path;
	cases[2].volumes = one_volume;
	cases[2].nvolumes = PFX_MAX_VOLUMES;
	for (c = 0; c < 3; c++) {
		for (m = 0; m < 2; m++) {
			pfx_options_init(&opt);
			opt.flags |= PFX_OPT_MULTI_VOLUME | modes[m];
			opt.hooks.report = count_report;
			opt.hooks.arg = &seen;
			cr_expect_eq(pfx_extract(&cases[c], topfd, "dest", &opt,
			    &res), PFX_FATAL, "case %zu mode %#x: accepted",
			    c, modes[m]);
			cr_expect_eq(res.error, EINVAL, "case %zu mode %#x: "
			    "error %d: %s", c, modes[m], res.error,
			    res.message);
			cr_expect(strstr(res.message, "PFX_OPT_MULTI_VOLUME") !=
			    NULL, "case %zu: not named: %s", c, res.message);
		}
	}
	cr_expect_eq(seen.reports, 0, "entries were read");
	cr_expect(dest_empty(), "something was written");
	free(buf);
}

/* Every bit PFX_OPT_KNOWN names is taken (none is refused as unknown). */
Test(contract, known_flags_taken)
{
	unsigned int bit;

	for (bit = 1; bit != 0; bit <<= 1) {
		struct pfx_options opt;
		struct pfx_result res;
		struct pfx_input in = { .path = "/nonexistent", .fd = -1 };

		if ((bit & PFX_OPT_KNOWN) == 0)
			continue;
		pfx_options_init(&opt);
		/* SANDBOX would confine this test's own process. */
		opt.flags = bit == PFX_OPT_SANDBOX ? PFX_OPT_SANDBOX_CHILD :
		    bit;
		opt.out_fd = 1;
		(void)pfx_extract(&in, topfd, "dest", &opt, &res);
		cr_expect(strstr(res.message, "pfx_options.flags") == NULL,
		    "bit %#x refused: %s", bit, res.message);
	}
}

/* A caller built with a bigger struct (a newer header): taken while its
 * extra bytes are 0, refused once one is set. */
Test(contract, newer_caller_size)
{
	struct {
		struct pfx_options o;
		unsigned char extra[32];
	} big;
	char *buf = malloc(CAP);
	struct pfx_input in = { .fd = -1 };
	struct pfx_result res;

	cr_assert(buf != NULL);
	in.buf = buf;
	in.len = build(buf, ARCHIVE_FILTER_NONE, 1, 10);
	memset(&big, 0xa5, sizeof(big));
	cr_assert_eq(pfx_options_init_size(&big.o, sizeof(big)), 0);
	cr_expect_eq(big.o.size, sizeof(big));
	cr_expect_eq(big.extra[31], 0, "the caller's own fields not zeroed");
	cr_expect_eq(pfx_extract(&in, topfd, "dest", &big.o, &res), PFX_OK,
	    "%s", res.message);
	big.extra[7] = 1;
	cr_expect_eq(pfx_extract(&in, topfd, "dest", &big.o, &res),
	    PFX_FATAL);
	cr_expect_eq(res.error, EINVAL, "%s", res.message);
	/* An older caller's struct: refused, nothing written past it. */
	cr_expect_eq(pfx_options_init_size(&big.o, sizeof(big.o) - 8),
	    -EINVAL);
	free(buf);
}

/*
 * A caller built with 0.1.0's header: its pfx_options ends before the
 * fields added since, and what lies past it in its memory (here 0xa5,
 * which as a hook pointer would crash) is never read: pfx_options_init()
 * writes only its bytes, pfx_extract() and pfx_writer_open() serve it
 * with the new fields 0.
 */
Test(contract, earlier_release_caller)
{
	union {
		struct pfx_options o;
		unsigned char b[sizeof(struct pfx_options) + 16];
	} old;
	char *buf = malloc(CAP);
	struct pfx_input in = { .fd = -1 };
	struct pfx_result res;
	struct pfx_writer *w;
	size_t i;

	cr_assert(buf != NULL);
	in.buf = buf;
	in.len = build(buf, ARCHIVE_FILTER_NONE, 2, 10);
	memset(&old, 0xa5, sizeof(old));
	cr_assert_eq(pfx_options_init_size(&old.o, XTR_OPTIONS_SIZE_0_1), 0);
	cr_expect_eq(old.o.size, XTR_OPTIONS_SIZE_0_1);
	for (i = XTR_OPTIONS_SIZE_0_1; i < sizeof(old.b); i++)
		cr_assert_eq(old.b[i], 0xa5, "byte %zu past 0.1.0's struct "
		    "written", i);
	cr_expect_eq(old.o.limits.max_memory, PFX_DEFAULT_MAX_MEMORY);
	cr_expect_eq(pfx_extract(&in, topfd, "dest", &old.o, &res), PFX_OK,
	    "%s", res.message);
	cr_expect_eq(res.stats.extracted, 2);
	cr_expect_eq(faccessat(topfd, "dest/f1", F_OK, 0), 0);
	cr_assert_eq(pfx_writer_open(topfd, "dest", &old.o, &w), 0);
	cr_expect_eq(pfx_writer_finish(w, &res), PFX_OK, "%s", res.message);
	/* A size no release had is still refused. */
	cr_expect_eq(pfx_options_init_size(&old.o, XTR_OPTIONS_SIZE_0_1 + 8),
	    -EINVAL);
	free(buf);
}

/* --- NULL arguments ------------------------------------------------------ */

Test(contract, null_arguments)
{
	struct pfx_input in = { .path = "x", .fd = -1 };
	struct pfx_input none = { .fd = -1 };
	struct pfx_options opt;
	struct pfx_result res;

	cr_expect_eq(pfx_extract(NULL, topfd, "dest", NULL, &res), PFX_FATAL);
	cr_expect_eq(res.error, EINVAL, "%s", res.message);
	cr_expect_eq(pfx_extract(&in, topfd, NULL, NULL, &res), PFX_FATAL);
	cr_expect_eq(res.error, EINVAL, "%s", res.message);
	cr_expect(strstr(res.message, "DEST") != NULL, "%s", res.message);
	cr_expect_eq(pfx_extract(&none, topfd, "dest", NULL, &res),
	    PFX_FATAL);
	cr_expect_eq(res.error, EINVAL, "%s", res.message);
	cr_expect_eq(pfx_extract(&in, topfd, "dest", NULL, NULL), PFX_FATAL);
	cr_expect_eq(pfx_options_init_size(NULL, sizeof(opt)), -EINVAL);
	cr_expect_str_eq(pfx_reason_text(NULL), "");
	pfx_options_init(&opt);
	opt.include = NULL;
	opt.ninclude = 1;
	cr_expect_eq(pfx_extract(&in, topfd, "dest", &opt, &res), PFX_FATAL);
	cr_expect_eq(res.error, EINVAL, "%s", res.message);
}

/* --- versions ------------------------------------------------------------ */

Test(contract, version)
{
	unsigned int ma, mi, pa;
	char s[32];

	cr_expect_eq(pfx_version(), (unsigned long)PFX_VERSION_NUMBER);
	cr_assert(sscanf(PFX_VERSION, "%u.%u.%u", &ma, &mi, &pa) == 3);
	cr_expect_eq((unsigned long)(ma << 16 | mi << 8 | pa),
	    (unsigned long)PFX_VERSION_NUMBER, "PFX_VERSION %s is not %#x",
	    PFX_VERSION, PFX_VERSION_NUMBER);
	(void)snprintf(s, sizeof(s), "%u.%u.%u", ma, mi, pa);
	cr_expect_str_eq(s, PFX_VERSION);
}

/* --- decide() while the decoder process dies ----------------------------- */

struct killer {
	int decided, reported;
	char last[64];
	enum pfx_entry_status status;
	int error;
};

/* SIGKILL every child of this thread: the decoder process. */
static void
kill_children(void)
{
	char line[256], *p, *end;
	FILE *f = fopen("/proc/thread-self/children", "r");
	long pid;

	cr_assert(f != NULL, "/proc/thread-self/children: %s",
	    strerror(errno));
	if (fgets(line, sizeof(line), f) != NULL) {
		for (p = line; ; p = end) {
			pid = strtol(p, &end, 10);
			if (end == p)
				break;
			(void)kill((pid_t)pid, SIGKILL);
		}
	}
	(void)fclose(f);
}

static int
kill_decide(void *arg, const struct pfx_entry *e, char *rename, size_t cap)
{
	struct killer *k = arg;

	(void)rename;
	(void)cap;
	if (k->decided++ == 0) {
		kill_children();
		/* Dead, not only signalled, before the data is asked for. */
		(void)usleep(200000);
	}
	(void)snprintf(k->last, sizeof(k->last), "%s", e->name);
	return PFX_HOOK_CONTINUE;
}

static void
kill_report(void *arg, const struct pfx_entry *e)
{
	struct killer *k = arg;

	if (strcmp(e->name, "f0") == 0) {
		k->reported++;
		k->status = e->status;
		k->error = e->error;
	}
}

/*
 * Extract, in a decoder process, an archive larger than it can send
 * ahead (its 4 MiB ring), with DECIDE (which kills it) and the report
 * hook of K.  Return: pfx_extract()'s, with *RES.
 */
static int
extract_killing(int (*decide)(void *, const struct pfx_entry *, char *,
    size_t), struct killer *k, struct pfx_result *res)
{
	char *buf = malloc(CAP);
	struct pfx_input in = { .fd = -1 };
	struct pfx_options opt;
	int r;

	cr_assert(buf != NULL);
	memset(k, 0, sizeof(*k));
	in.buf = buf;
	in.len = build(buf, ARCHIVE_FILTER_NONE, 2, 8u << 20);
	pfx_options_init(&opt);
	opt.flags |= PFX_OPT_SANDBOX_CHILD;
	opt.hooks.decide = decide;
	opt.hooks.report = kill_report;
	opt.hooks.arg = k;
	r = pfx_extract(&in, topfd, "dest", &opt, res);
	free(buf);
	return r;
}

/* The decoder process killed while decide() runs for "f0": the call
 * fails, and "f0" is still reported, failed, with a reason. */
Test(contract, decoder_killed_during_decide)
{
	struct pfx_result res;
	struct killer k;

	cr_expect_eq(extract_killing(kill_decide, &k, &res), PFX_FATAL,
	    "%s", res.message);
	cr_expect_eq(k.reported, 1, "f0 reported %d times", k.reported);
	cr_expect_eq(k.status, PFX_ENTRY_FAILED, "f0: %s",
	    pfx_entry_status_name(k.status));
	cr_expect_neq(k.error, 0, "f0 failed without an error");
}

/* decide() that kills the decoder process and reaps it, as a host with
 * a SIGCHLD handler that waits for every child would. */
static int
kill_reap_decide(void *arg, const struct pfx_entry *e, char *rename,
    size_t cap)
{
	struct killer *k = arg;
	int status;

	(void)e;
	(void)rename;
	(void)cap;
	if (k->decided++ == 0) {
		kill_children();
		while (waitpid(-1, &status, 0) > 0)
			continue;
	}
	return PFX_HOOK_CONTINUE;
}

/* The decoder process reaped by its host: the call fails ECHILD and says
 * that the status is not known, not that the process exited 0. */
Test(contract, decoder_reaped_by_the_host)
{
	struct pfx_result res;
	struct killer k;

	cr_expect_eq(extract_killing(kill_reap_decide, &k, &res), PFX_FATAL,
	    "%s", res.message);
	cr_expect_eq(res.error, ECHILD, "error %d: %s", res.error,
	    res.message);
	cr_expect(strstr(res.message, "status 0") == NULL, "%s",
	    res.message);
	cr_expect(strstr(res.message, "reaped") != NULL, "%s", res.message);
}

/* --- messages ------------------------------------------------------------ */

/* The library's messages name its fields and flags, never an option of
 * pfextract(1): limits, atomic, strict. */
Test(contract, messages_name_fields)
{
	char *buf = malloc(CAP);
	struct pfx_input in = { .fd = -1 };
	struct pfx_options opt;
	struct pfx_result res;
	size_t i;

	cr_assert(buf != NULL);
	in.buf = buf;
	in.len = build(buf, ARCHIVE_FILTER_NONE, 3, 5000);
	pfx_options_init(&opt);
	opt.limits.max_bytes = 6000;
	cr_expect_eq(pfx_extract(&in, topfd, "dest", &opt, &res), PFX_FATAL);
	cr_expect(strstr(res.message, "limits.max_bytes") != NULL &&
	    strstr(res.message, "--") == NULL, "%s", res.message);
	pfx_options_init(&opt);
	opt.limits.max_entries = 1;
	cr_expect_eq(pfx_extract(&in, topfd, "dest", &opt, &res), PFX_FATAL);
	cr_expect(strstr(res.message, "limits.max_entries") != NULL &&
	    strstr(res.message, "--") == NULL, "%s", res.message);
	pfx_options_init(&opt);
	opt.flags |= PFX_OPT_ATOMIC;
	(void)put_file("file", "x", 1);
	cr_expect_eq(pfx_extract(&in, topfd, "in/file", &opt, &res),
	    PFX_FATAL);
	cr_expect(strstr(res.message, "PFX_OPT_ATOMIC") != NULL &&
	    strstr(res.message, "--") == NULL, "%s", res.message);
	for (i = 0; xtr_reason_at(i) != NULL; i++)
		cr_expect(strstr(pfx_reason_text(xtr_reason_at(i)), "--") ==
		    NULL, "%s: %s", xtr_reason_at(i),
		    pfx_reason_text(xtr_reason_at(i)));
	free(buf);
}

/* --- the reason codes of libpfextract(3) --------------------------------- */

/*
 * The codes listed in libpfextract(3)'s "Reason codes" list (".It Cm
 * CODE" lines between the ".Ss Reason codes" heading and the list's
 * end) are exactly the table's, in its order.
 */
Test(contract, reasons_documented)
{
	FILE *f = fopen("man/libpfextract.3", "r");
	char line[256], code[64];
	bool in_list = false;
	size_t i = 0;

	cr_assert(f != NULL, "man/libpfextract.3 (run from the top "
	    "directory): %s", strerror(errno));
	while (fgets(line, sizeof(line), f) != NULL) {
		if (strncmp(line, ".Ss Reason codes", 16) == 0) {
			in_list = true;
			continue;
		}
		if (!in_list)
			continue;
		if (strncmp(line, ".Ss ", 4) == 0 ||
		    strncmp(line, ".Sh ", 4) == 0)
			break;
		if (sscanf(line, ".It Cm %63s", code) != 1)
			continue;
		cr_expect(xtr_reason_at(i) != NULL, "%s: not in the table",
		    code);
		if (xtr_reason_at(i) == NULL)
			break;
		cr_expect_str_eq(code, xtr_reason_at(i), "entry %zu", i);
		i++;
	}
	(void)fclose(f);
	cr_expect(in_list, "no \"Reason codes\" section");
	cr_expect(xtr_reason_at(i) == NULL, "%s: not in the manual",
	    xtr_reason_at(i) != NULL ? xtr_reason_at(i) : "");
}
