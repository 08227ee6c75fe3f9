/*
 * test_child.c -- extraction with the decoder process alone
 * (PFX_OPT_SANDBOX_CHILD): the caller's process stays free, the hooks run
 * in it, in order, with its ARG, decide() answers take effect, a cancel
 * flag stops the run and its decoder process, and nothing leaks
 * (descriptors, child processes).  What a hostile decoder process cannot
 * do is tests/hostile.sh's and tests/hostile_lib.c's.
 *
 * Each case runs in a fresh directory:
 *
 *	$TMPDIR/pfx-child.XXXXXX/
 *	|-- dest/		the destination
 *	`-- outside/keep	must be unchanged afterwards
 */
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <criterion/criterion.h>

#include "pfextract.h"
#include "fixture.h"
#include "platform.h"

#define ARCHIVE_CAP (1u << 20)
#define MAX_SEEN 64

struct fx {
	char top[PATH_MAX / 2];
	int topfd;
	char *outside;
	int nfds;
	/* What the hooks saw, in order. */
	char seen[MAX_SEEN][64];
	int nseen;
	pid_t hook_pid;		/* the process the hooks ran in */
	bool confined_called;
	volatile sig_atomic_t stop;
	int unmatched;
};

static struct fx the_fx;

static char *snap_outside(struct fx *);

static void
fx_begin(struct fx *fx)
{
	const char *tmp = getenv("TMPDIR");
	int r;

	memset(fx, 0, sizeof(*fx));
	r = snprintf(fx->top, sizeof(fx->top), "%s/pfx-child.XXXXXX",
	    tmp != NULL && *tmp != '\0' ? tmp : "/tmp");
	cr_assert(r > 0 && (size_t)r < sizeof(fx->top));
	cr_assert(mkdtemp(fx->top) != NULL, "mkdtemp: %s", strerror(errno));
	fx->topfd = open(fx->top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert(fx->topfd >= 0);
	cr_assert(mkdirat(fx->topfd, "dest", 0755) == 0);
	cr_assert(mkdirat(fx->topfd, "outside", 0755) == 0);
	r = openat(fx->topfd, "outside/keep", O_WRONLY | O_CREAT | O_EXCL |
	    O_CLOEXEC, 0644);
	cr_assert(r >= 0 && write(r, "keep\n", 5) == 5 && close(r) == 0);
	fx->outside = snap_outside(fx);
	fx->nfds = tfx_count_fds();
}

/* A snapshot of outside/. */
static char *
snap_outside(struct fx *fx)
{
	int fd = openat(fx->topfd, "outside", O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC);
	char *snap;

	cr_assert(fd >= 0, "outside/: %s", strerror(errno));
	snap = tfx_snapshot(fd, 0);
	(void)close(fd);
	return snap;
}

/* What every case must keep: outside/ unchanged, no child process left,
 * no descriptor leaked. */
static void
fx_end(struct fx *fx)
{
	char *now = snap_outside(fx);
	int status;

	tfx_expect_same_snapshot("child", "outside/", fx->outside, now);
	free(now);
	cr_expect(waitpid(-1, &status, WNOHANG) == -1 && errno == ECHILD,
	    "a child process is left");
	cr_expect(tfx_count_fds() == fx->nfds, "descriptors leaked: %d "
	    "before, %d after", fx->nfds, tfx_count_fds());
	free(fx->outside);
	(void)close(fx->topfd);
	(void)tfx_rm_tree(fx->top);
}

/* A pax archive in memory: the files of NAMES (data "x"), a symlink
 * "out" -> "../outside", and "../evil". */
static size_t
build(char *buf, const char *const *names)
{
	struct archive *a = archive_write_new();
	struct archive_entry *e;
	size_t used = 0;
	int i;

	cr_assert(a != NULL);
	cr_assert(archive_write_set_format_pax_restricted(a) == ARCHIVE_OK);
	cr_assert(archive_write_open_memory(a, buf, ARCHIVE_CAP, &used) ==
	    ARCHIVE_OK);
	for (i = 0; names[i] != NULL; i++) {
		e = archive_entry_new();
		archive_entry_set_pathname(e, names[i]);
		archive_entry_set_filetype(e, AE_IFREG);
		archive_entry_set_perm(e, 0644);
		archive_entry_set_size(e, 1);
		cr_assert(archive_write_header(a, e) == ARCHIVE_OK);
		cr_assert(archive_write_data(a, "x", 1) == 1);
		archive_entry_free(e);
	}
	e = archive_entry_new();
	archive_entry_set_pathname(e, "out");
	archive_entry_set_filetype(e, AE_IFLNK);
	archive_entry_set_perm(e, 0777);
	archive_entry_set_symlink(e, "../outside");
	cr_assert(archive_write_header(a, e) == ARCHIVE_OK);
	archive_entry_free(e);
	cr_assert(archive_write_close(a) == ARCHIVE_OK);
	archive_write_free(a);
	return used;
}

static void
on_report(void *arg, const struct pfx_entry *e)
{
	struct fx *fx = arg;

	fx->hook_pid = getpid();
	if (fx->nseen < MAX_SEEN)
		(void)snprintf(fx->seen[fx->nseen++], sizeof(fx->seen[0]),
		    "%s %s %s", e->name, pfx_entry_status_name(e->status),
		    e->reason);
}

/* Rename "b" to "renamed/b"; veto "c"; stop the run at "stop". */
static int
on_decide(void *arg, const struct pfx_entry *e, char *rename, size_t cap)
{
	(void)arg;
	if (strcmp(e->name, "b") == 0) {
		(void)snprintf(rename, cap, "renamed/b");
		return PFX_HOOK_RENAME;
	}
	if (strcmp(e->name, "c") == 0)
		return PFX_HOOK_SKIP;
	if (strcmp(e->name, "stop") == 0)
		return PFX_HOOK_ABORT;
	return PFX_HOOK_CONTINUE;
}

static void
on_unmatched(void *arg, const char *pattern)
{
	struct fx *fx = arg;

	fx->unmatched += strcmp(pattern, "nothing*") == 0;
}

static void
on_confined(void *arg, const struct pfx_sandbox_info *info)
{
	struct fx *fx = arg;

	fx->confined_called = info->fs || info->seccomp;
}

/* Extract BUF in a child with the hooks above. */
static enum pfx_status
run(struct fx *fx, const char *buf, size_t len, unsigned int flags,
    struct pfx_result *res)
{
	static const char *const include[] = { "a", "b", "c", "../evil",
		"out", "stop", "late", "nothing*" };
	struct pfx_options opt;
	struct pfx_input in;

	pfx_options_init(&opt);
	opt.flags |= PFX_OPT_SANDBOX_CHILD | flags;
	opt.hooks.report = on_report;
	opt.hooks.decide = on_decide;
	opt.hooks.unmatched = on_unmatched;
	opt.hooks.confined = on_confined;
	opt.hooks.arg = fx;
	opt.include = include;
	opt.ninclude = sizeof(include) / sizeof(include[0]);
	opt.cancel = &fx->stop;
	memset(&in, 0, sizeof(in));
	in.fd = -1;
	in.buf = buf;
	in.len = len;
	return pfx_extract(&in, fx->topfd, "dest", &opt, res);
}

TestSuite(child, .timeout = 60);

/* The hooks run in the caller, in order; the tree is the expected one. */
Test(child, hooks_cross_the_boundary)
{
	static const char *const names[] = { "a", "b", "c", "../evil",
		NULL };
	struct fx *fx = &the_fx;
	struct pfx_result res;
	char *buf = malloc(ARCHIVE_CAP);
	struct stat st;
	size_t len;

	cr_assert(buf != NULL);
	fx_begin(fx);
	len = build(buf, names);
	cr_expect_eq(run(fx, buf, len, 0, &res), PFX_REFUSED, "status %d: "
	    "%s", res.status, res.message);
	cr_expect_eq(fx->hook_pid, getpid(), "hooks ran in another process");
	cr_expect_eq(fx->nseen, 5);
	cr_expect_str_eq(fx->seen[0], "a extracted none");
	cr_expect_str_eq(fx->seen[1], "b extracted none");
	cr_expect_str_eq(fx->seen[2], "c skipped vetoed");
	cr_expect_str_eq(fx->seen[3], "../evil refused escapes");
	cr_expect_str_eq(fx->seen[4], "out refused symlink");
	cr_expect_eq(fx->unmatched, 1, "unmatched() not called once");
	cr_expect(fx->confined_called, "confined() not called");
	cr_expect(res.sandbox.fs && res.sandbox.seccomp, "sandbox: %s",
	    res.sandbox.text);
	cr_expect_str_eq(res.resolver, "openat2");
	cr_expect_eq(res.stats.extracted, 2);
	cr_expect(fstatat(fx->topfd, "dest/a", &st, AT_SYMLINK_NOFOLLOW) ==
	    0 && S_ISREG(st.st_mode), "dest/a missing");
	cr_expect(fstatat(fx->topfd, "dest/renamed/b", &st,
	    AT_SYMLINK_NOFOLLOW) == 0, "dest/renamed/b missing");
	cr_expect(fstatat(fx->topfd, "dest/c", &st, AT_SYMLINK_NOFOLLOW) ==
	    -1, "vetoed dest/c exists");
	fx_end(fx);
	free(buf);
}

/* The caller's own process is not confined: it can still write outside
 * the destination and open a network socket. */
Test(child, caller_stays_free)
{
	static const char *const names[] = { "a", NULL };
	struct fx *fx = &the_fx;
	struct pfx_result res;
	char *buf = malloc(ARCHIVE_CAP);
	int fd, s;

	cr_assert(buf != NULL);
	fx_begin(fx);
	(void)run(fx, buf, build(buf, names), 0, &res);
	cr_expect(res.sandbox.fs, "the child was not confined: %s",
	    res.sandbox.text);
	fd = openat(fx->topfd, "free", O_WRONLY | O_CREAT | O_EXCL |
	    O_CLOEXEC, 0644);
	cr_expect(fd >= 0, "the caller cannot write outside: %s",
	    strerror(errno));
	if (fd >= 0)
		(void)close(fd);
	(void)unlinkat(fx->topfd, "free", 0);
	s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	cr_expect(s >= 0, "the caller cannot make a socket: %s",
	    strerror(errno));
	if (s >= 0)
		(void)close(s);
	fx_end(fx);
	free(buf);
}

/* decide()'s abort crosses over: the run stops there, PFX_FATAL. */
Test(child, abort_from_the_caller)
{
	static const char *const names[] = { "a", "stop", "late", NULL };
	struct fx *fx = &the_fx;
	struct pfx_result res;
	char *buf = malloc(ARCHIVE_CAP);
	struct stat st;

	cr_assert(buf != NULL);
	fx_begin(fx);
	cr_expect_eq(run(fx, buf, build(buf, names), 0, &res), PFX_FATAL);
	cr_expect(strstr(res.message, "stop") != NULL, "message: %s",
	    res.message);
	cr_expect(fstatat(fx->topfd, "dest/late", &st, 0) == -1,
	    "an entry after the abort was made");
	fx_end(fx);
	free(buf);
}

/* A cancel flag set before the run reaches the child: it stops at once,
 * cleanly, and says so. */
Test(child, cancel_reaches_the_child)
{
	static const char *const names[] = { "a", "b", NULL };
	struct fx *fx = &the_fx;
	struct pfx_result res;
	char *buf = malloc(ARCHIVE_CAP);

	cr_assert(buf != NULL);
	fx_begin(fx);
	fx->stop = 1;
	cr_expect_eq(run(fx, buf, build(buf, names), 0, &res), PFX_FATAL);
	cr_expect_eq(res.error, ECANCELED, "error %d: %s", res.error,
	    res.message);
	fx_end(fx);
	free(buf);
}

/* An archive named by path is opened by the child before confinement. */
Test(child, input_by_path)
{
	static const char *const names[] = { "a", NULL };
	struct fx *fx = &the_fx;
	struct pfx_options opt;
	struct pfx_result res;
	struct pfx_input in;
	char *buf = malloc(ARCHIVE_CAP);
	char path[2 * PATH_MAX];
	size_t len;
	int fd;

	cr_assert(buf != NULL);
	fx_begin(fx);
	len = build(buf, names);
	fd = openat(fx->topfd, "outside/a.tar", O_WRONLY | O_CREAT | O_EXCL |
	    O_CLOEXEC, 0644);
	cr_assert(fd >= 0 && write(fd, buf, len) == (ssize_t)len &&
	    close(fd) == 0);
	free(fx->outside);
	fx->outside = snap_outside(fx);
	(void)snprintf(path, sizeof(path), "%s/outside/a.tar", fx->top);
	pfx_options_init(&opt);
	opt.flags |= PFX_OPT_SANDBOX_CHILD;
	memset(&in, 0, sizeof(in));
	in.fd = -1;
	in.path = path;
	cr_expect_eq(pfx_extract(&in, fx->topfd, "dest", &opt, &res),
	    PFX_REFUSED, "%s", res.message);
	cr_expect_eq(res.stats.extracted, 1);
	fx_end(fx);
	free(buf);
}

/*
 * The decoder process gives up the memory it shares writable with a file
 * (platform.h, plat_os_unmap_shared()).  An archive buffer in such memory
 * is refused with a message that says so, nothing made, not a decoder
 * killed by the signal of a read through what it unmapped; mapped
 * privately, the same file's bytes extract.
 */
Test(child, buffer_in_shared_writable_memory)
{
	static const char *const names[] = { "a", NULL };
	static const int how[] = { MAP_SHARED, MAP_PRIVATE };
	struct fx *fx = &the_fx;
	struct pfx_result res;
	char *buf = malloc(ARCHIVE_CAP), *map;
	size_t len, i;
	int fd;

	cr_assert(buf != NULL);
	fx_begin(fx);
	len = build(buf, names);
	fd = openat(fx->topfd, "outside/a.tar", O_RDWR | O_CREAT | O_EXCL |
	    O_CLOEXEC, 0644);
	cr_assert(fd >= 0 && write(fd, buf, len) == (ssize_t)len);
	free(fx->outside);
	fx->outside = snap_outside(fx);
	for (i = 0; i < sizeof(how) / sizeof(how[0]); i++) {
		map = mmap(NULL, len, PROT_READ, how[i], fd, 0);
		cr_assert(map != MAP_FAILED);
		if (how[i] == MAP_SHARED) {
			cr_expect_eq(run(fx, map, len, 0, &res), PFX_FATAL);
			cr_expect_eq(res.error, EBUSY, "%s", res.message);
			cr_expect(strstr(res.message, "MAP_SHARED") != NULL,
			    "%s", res.message);
			cr_expect_eq(res.stats.extracted, 0);
		} else {
			/* REFUSED: run()'s patterns that match nothing. */
			cr_expect_eq(run(fx, map, len, 0, &res), PFX_REFUSED,
			    "%s", res.message);
			cr_expect_eq(res.stats.extracted, 1);
		}
		cr_assert(munmap(map, len) == 0);
	}
	cr_assert(close(fd) == 0);
	fx_end(fx);
	free(buf);
}

/*
 * An ar.bz2 of 271 bytes whose long-name table "//" is 200 MiB: libarchive
 * reads the table whole inside archive_read_next_header(), and where an
 * allocation fails there it ends the process, exit status 1, its "Out of
 * memory" on a standard error nobody sees.  The decoder process, held to
 * 64 MiB and 512 MiB, ends so: the message says why, not a bare status.
 */
static const unsigned char ar_oom[] = {
	0x42, 0x5a, 0x68, 0x39, 0x31, 0x41, 0x59, 0x26, 0x53, 0x59, 0x37, 0x5b,
	0x0d, 0xc0, 0x00, 0x00, 0x0c, 0xd9, 0x80, 0xa0, 0x90, 0x60, 0x00, 0xf7,
	0xa5, 0x68, 0x40, 0x10, 0x00, 0x00, 0x08, 0x20, 0x00, 0x68, 0x32, 0x12,
	0x1e, 0x53, 0x23, 0xca, 0x64, 0x04, 0xd5, 0x51, 0x34, 0x69, 0x90, 0x68,
	0x69, 0x8c, 0x65, 0x29, 0x00, 0x2e, 0x5e, 0xec, 0xdf, 0x5a, 0x22, 0x17,
	0x6c, 0x61, 0x56, 0xd3, 0xdf, 0x37, 0x97, 0x7a, 0x4a, 0xf7, 0x89, 0x20,
	0x02, 0x00, 0x24, 0x25, 0xeb, 0x7a, 0x52, 0xa0, 0x25, 0xbe, 0x12, 0x95,
	0x01, 0x2e, 0x38, 0xc4, 0xa5, 0x40, 0x4b, 0x93, 0x14, 0x15, 0x92, 0x65,
	0x35, 0x9c, 0x26, 0xd2, 0xaf, 0x30, 0x15, 0xf8, 0xe0, 0x10, 0x0a, 0x00,
	0x00, 0x00, 0x82, 0x00, 0x03, 0x08, 0x04, 0xd4, 0x64, 0x2a, 0x02, 0x5a,
	0x90, 0xa8, 0x09, 0x73, 0x14, 0x15, 0x92, 0x65, 0x35, 0x9c, 0x26, 0xd2,
	0xaf, 0x30, 0x15, 0xf8, 0xe0, 0x10, 0x0a, 0x00, 0x00, 0x00, 0x82, 0x00,
	0x03, 0x08, 0x04, 0xd4, 0x64, 0x2a, 0x02, 0x5a, 0x90, 0xa8, 0x09, 0x73,
	0x14, 0x15, 0x92, 0x65, 0x35, 0x9c, 0x26, 0xd2, 0xaf, 0x30, 0x15, 0xf8,
	0xe0, 0x10, 0x0a, 0x00, 0x00, 0x00, 0x82, 0x00, 0x03, 0x08, 0x04, 0xd4,
	0x64, 0x2a, 0x02, 0x5a, 0x90, 0xa8, 0x09, 0x73, 0x14, 0x15, 0x92, 0x65,
	0x35, 0x92, 0x9e, 0x81, 0x4f, 0xe0, 0x0c, 0x82, 0x7d, 0x94, 0x0a, 0x29,
	0x04, 0x00, 0x0e, 0x50, 0x06, 0x20, 0x18, 0x10, 0x00, 0x00, 0x82, 0x00,
	0x04, 0x84, 0x91, 0x4f, 0x50, 0xf1, 0x34, 0x80, 0x29, 0x55, 0x18, 0x00,
	0x08, 0x0e, 0x5b, 0x34, 0xe9, 0x29, 0x2d, 0x86, 0x7f, 0x6e, 0xe9, 0xeb,
	0x53, 0x1d, 0xce, 0x46, 0x7c, 0x90, 0x08, 0x00, 0x10, 0x2a, 0xec, 0xa5,
	0x02, 0x91, 0xe7, 0xb8, 0x60, 0x44, 0x04, 0x5f, 0x0b, 0xb9, 0x22, 0x9c,
	0x28, 0x48, 0x61, 0x2f, 0xb0, 0xa5, 0x80
};

Test(child, decoder_out_of_memory_said)
{
	struct fx *fx = &the_fx;
	struct pfx_options opt;
	struct pfx_result res;
	struct pfx_input in;

	if (plat_sanitized())
		cr_skip_test("no RLIMIT_DATA under a sanitizer (child.c)");
	fx_begin(fx);
	pfx_options_init(&opt);
	opt.flags |= PFX_OPT_SANDBOX_CHILD;
	opt.limits.max_memory = 64u << 20;
	memset(&in, 0, sizeof(in));
	in.fd = -1;
	in.buf = ar_oom;
	in.len = sizeof(ar_oom);
	cr_expect_eq(pfx_extract(&in, fx->topfd, "dest", &opt, &res),
	    PFX_FATAL);
	cr_expect(strstr(res.message, "runs out of memory") != NULL,
	    "message: %s", res.message);
	cr_expect_eq(res.error, ENOMEM, "error %d: %s", res.error,
	    res.message);
	fx_end(fx);
}
