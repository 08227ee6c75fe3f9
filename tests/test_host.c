/*
 * test_host.c -- the library inside a host process that does other
 * things at the same time (libpfextract(3), Conventions): a package
 * installer's other threads using the C library while a call forks its
 * decoder process.
 *
 * fork(2) copies the locks of the caller's other threads as they stand;
 * a child that waits for one of them waits for ever.  Each case hammers
 * one such lock from a second thread while the calling thread extracts,
 * again and again, an archive whose names need converting, with a short
 * idle_timeout: a decoder process stuck on a lock is a failed run.
 *
 * And the host's umask, which a new --atomic destination takes as
 * mkdir(2) would, /proc or not.
 *
 * Each case runs in a fresh directory that mkdtemp(3) makes:
 *
 *	$TMPDIR/pfx-host.<random>/
 *	`-- dest/		one directory per run beneath it
 */
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <iconv.h>
#include <inttypes.h>
#include <limits.h>
#include <locale.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "fixture.h"
#include "pfextract.h"

#define BLOCK 512
#define RUNS 40
#define NFILES 3

static char top[PATH_MAX / 2];
static int destfd = -1;

static void
setup(void)
{
	destfd = tfx_temp_dest("host", top, sizeof(top));
}

static void
teardown(void)
{
	tfx_temp_end(&destfd, top);
}

TestSuite(host, .init = setup, .fini = teardown, .timeout = 120);

/* A ustar header at H: NAME, TYPE, SIZE, its checksum. */
static void
tar_header(unsigned char *h, const char *name, char type, size_t size)
{
	unsigned int sum = 0;
	size_t i;

	memset(h, 0, BLOCK);
	(void)snprintf((char *)h, 100, "%s", name);
	memcpy(h + 100, "0000644", 8);
	memcpy(h + 108, "0000000", 8);
	memcpy(h + 116, "0000000", 8);
	(void)snprintf((char *)h + 124, 12, "%011zo", size);
	memcpy(h + 136, "00000000000", 12);
	memset(h + 148, ' ', 8);
	h[156] = (unsigned char)type;
	memcpy(h + 257, "ustar", 6);
	memcpy(h + 263, "00", 2);
	for (i = 0; i < BLOCK; i++)
		sum += h[i];
	(void)snprintf((char *)h + 148, 8, "%06o", sum);
	h[155] = ' ';
}

/*
 * A pax archive at BUF (room for NFILES * 4 + 2 blocks) of NFILES files
 * whose names, in pax "path" records, are UTF-8 and not ASCII: libarchive
 * converts them into the locale's charset.  Return: its length.
 */
static size_t
utf8_pax(unsigned char *buf)
{
	unsigned char *p = buf;
	char rec[64], path[32];
	int k, n;

	for (k = 0; k < NFILES; k++) {
		(void)snprintf(path, sizeof(path), "d\xc3\xafr/f\xc3\xa9%d", k);
		/* The record's length counts its own digits. */
		n = (int)strlen(" path=\n") + (int)strlen(path) + 2;
		(void)snprintf(rec, sizeof(rec), "%d path=%s\n", n, path);
		cr_assert_eq(strlen(rec), (size_t)n);
		tar_header(p, "PaxHeaders/f", 'x', (size_t)n);
		memset(p + BLOCK, 0, BLOCK);
		memcpy(p + BLOCK, rec, (size_t)n);
		tar_header(p + 2 * BLOCK, "f", '0', 3);
		memset(p + 3 * BLOCK, 0, BLOCK);
		memcpy(p + 3 * BLOCK, "hi\n", 3);
		p += 4 * BLOCK;
	}
	memset(p, 0, 2 * BLOCK);
	return (size_t)(p + 2 * BLOCK - buf);
}

static atomic_bool stop;

/* A host thread that converts text: iconv_open(3) and iconv_close(3),
 * which hold glibc's lock of its conversion tables. */
static void *
convert_loop(void *arg)
{
	iconv_t cd;

	(void)arg;
	while (!atomic_load(&stop)) {
		cd = iconv_open("UTF-16", "UTF-8");
		if (cd != (iconv_t)-1)
			(void)iconv_close(cd);
	}
	return NULL;
}

/*
 * In the locale LOC, extract the archive RUNS times with a decoder
 * process while another thread calls iconv_open(3): every run ends well,
 * none waits out its idle_timeout on a lock the fork copied held.
 */
static void
extract_while_converting(const char *loc)
{
	unsigned char *buf = malloc((NFILES * 4 + 2) * BLOCK);
	struct pfx_input in = { .fd = -1 };
	struct pfx_options opt;
	struct pfx_result res;
	pthread_t th;
	char dest[16];
	int i;

	cr_assert(buf != NULL);
	cr_assert(setlocale(LC_CTYPE, loc) != NULL, "no locale %s", loc);
	in.buf = buf;
	in.len = utf8_pax(buf);
	pfx_options_init(&opt);
	opt.flags |= PFX_OPT_SANDBOX_CHILD;
	opt.idle_timeout = 3;
	atomic_store(&stop, false);
	cr_assert(pthread_create(&th, NULL, convert_loop, NULL) == 0);
	for (i = 0; i < RUNS; i++) {
		(void)snprintf(dest, sizeof(dest), "%d", i);
		cr_assert(mkdirat(destfd, dest, 0755) == 0);
		(void)pfx_extract(&in, destfd, dest, &opt, &res);
		if (res.status != PFX_OK || res.stats.extracted != NFILES)
			break;
	}
	atomic_store(&stop, true);
	(void)pthread_join(th, NULL);
	free(buf);
	(void)setlocale(LC_CTYPE, "C");
	cr_assert(i == RUNS, "run %d of %d, %s: status %d, %" PRIu64
	    " extracted, error %d: %s", i + 1, RUNS, loc, res.status,
	    res.stats.extracted, res.error, res.message);
}

/* Names converted by iconv_open(3) in the child: the "C" locale, where a
 * program that never calls setlocale(3) runs. */
Test(host, iconv_busy_c_locale)
{
	extract_while_converting("C");
}

/* Names converted without iconv_open(3), but the locale's conversions
 * loaded on their first use under the same lock. */
Test(host, iconv_busy_utf8_locale)
{
	extract_while_converting("C.UTF-8");
}

/*
 * PFX_OPT_ATOMIC makes an absent DEST with the mode mkdir(2) would give
 * it, 0777 less the host's umask, even where /proc, where Linux tells
 * the umask without changing it, is not mounted (a chroot, a container):
 * not 0755 under a umask of 077.  In a child with a mount namespace of
 * its own, whose /proc is an empty tmpfs; skipped where one cannot be
 * made (not root).
 */
Test(host, atomic_dest_mode_without_proc)
{
	unsigned char *buf = malloc((NFILES * 4 + 2) * BLOCK);
	struct pfx_input in = { .fd = -1 };
	struct pfx_options opt;
	struct pfx_result res;
	struct stat sb;
	int status, p[2], mode = -1;
	pid_t pid;

	cr_assert(buf != NULL);
	in.buf = buf;
	in.len = utf8_pax(buf);
	pfx_options_init(&opt);
	opt.flags |= PFX_OPT_ATOMIC;
	cr_assert(pipe(p) == 0);
	pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		/* Private first: the tmpfs must not reach the host's /proc. */
		if (unshare(CLONE_NEWNS) != 0 ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
		    mount("none", "/proc", "tmpfs", 0, NULL) != 0)
			_exit(77);
		(void)umask(077);
		(void)pfx_extract(&in, destfd, "new", &opt, &res);
		if (res.status == PFX_OK && fstatat(destfd, "new", &sb, 0) == 0)
			mode = (int)(sb.st_mode & 07777);
		(void)write(p[1], &mode, sizeof(mode));
		_exit(res.status == PFX_OK ? 0 : 1);
	}
	(void)close(p[1]);
	cr_assert(waitpid(pid, &status, 0) == pid);
	free(buf);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 77) {
		(void)close(p[0]);
		cr_skip_test("no mount namespace of its own here");
	}
	cr_assert(read(p[0], &mode, sizeof(mode)) == (ssize_t)sizeof(mode));
	(void)close(p[0]);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "the run failed (status %#x)", status);
	cr_assert_eq(mode, 0700, "DEST made %04o under umask 077", mode);
}
