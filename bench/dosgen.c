/*
 * dosgen.c -- the hostile resource archives of `make dos` (bench/dos.sh),
 * at any size, through libarchive's writer as corpus/gen.c writes its
 * cases.
 *
 *	dosgen MECHANISM N OUTPUT
 *
 * MECHANISM and what N counts:
 *   chain       N symlinks l0 -> l1 -> ... -> l(N-1) -> f, f a file;
 *               pax, gzip
 *   links       N symlinks named in one directory 15 components of 255
 *               bytes deep (names of 3.9 KB) to a file; pax, gzip
 *   paths       N empty files with names of 3.9 KB, as links; pax, gzip
 *   exclude     one file named N "a/" components and "x.c" (a pax path
 *               record), beside a good file; pax, gzip
 *   skipdecode  one entry "zeros" of N MiB of zeros; pax, zstd
 *   hash        N empty files with random names of 24 bytes in one
 *               directory; ustar, gzip
 *   empty       N empty files f0000000 ... in one directory; ustar, gzip
 *   sparse      one sparse file of N GiB apparent size holding two 4 KiB
 *               blocks of data, at its start and end; pax, gzip
 *   small       N files of 8 bytes in 1000 directories (with their
 *               directory entries); ustar, xz
 *
 * The same arguments always write the same bytes (a fixed time, a fixed
 * seed).  Exit status: 0, or 1 with a message.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <archive.h>
#include <archive_entry.h>

#define MiB	(1024ull * 1024)
#define GiB	(1024ull * MiB)
/* A fixed time, so that two runs write the same bytes. */
#define DOS_MTIME	1700000000
/* The deep directory of links and paths: DEEP components of 255 bytes. */
#define DEEP	15
#define COMP	255
/* The directories of small. */
#define SMALL_DIRS	1000

static void
die(const char *fmt, ...)
{
	va_list ap;

	fputs("dosgen: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void
check(struct archive *a, int r, const char *what)
{
	if (r != ARCHIVE_OK)
		die("%s: %s", what, archive_error_string(a));
}

/* An archive of FORMAT ("pax" or "ustar") through FILTER at PATH. */
static struct archive *
out_open(const char *path, const char *format, const char *filter)
{
	struct archive *a = archive_write_new();

	if (a == NULL)
		die("out of memory");
	check(a, archive_write_set_format_by_name(a, format), format);
	check(a, archive_write_add_filter_by_name(a, filter), filter);
	/* No time in the gzip header: the same bytes on every run. */
	if (strcmp(filter, "gzip") == 0)
		check(a, archive_write_set_filter_option(a, "gzip",
		    "timestamp", NULL), "gzip");
	check(a, archive_write_open_filename(a, path), path);
	return a;
}

static void
out_close(struct archive *a)
{
	check(a, archive_write_close(a), "close");
	archive_write_free(a);
}

/*
 * One entry NAME of TYPE: LEN bytes of DATA for a file, TARGET for a
 * symlink (else NULL).  Size SIZE (LEN unless the caller writes the data
 * itself, as skipdecode does).  Returns with the header written.
 */
static void
put(struct archive *a, const char *name, mode_t type, const char *target,
    uint64_t size, const void *data, size_t len)
{
	struct archive_entry *e = archive_entry_new();

	if (e == NULL)
		die("out of memory");
	archive_entry_set_pathname(e, name);
	archive_entry_set_filetype(e, type);
	archive_entry_set_perm(e, type == AE_IFDIR ? 0755 :
	    type == AE_IFLNK ? 0777 : 0644);
	archive_entry_set_mtime(e, DOS_MTIME, 0);
	if (target != NULL)
		archive_entry_set_symlink(e, target);
	if (type == AE_IFREG)
		archive_entry_set_size(e, (la_int64_t)size);
	if (archive_write_header(a, e) != ARCHIVE_OK ||
	    (len > 0 && archive_write_data(a, data, len) != (la_ssize_t)len))
		die("%s: %s", name, archive_error_string(a));
	archive_entry_free(e);
}

static void
put_file(struct archive *a, const char *name, const void *data, size_t len)
{
	put(a, name, AE_IFREG, NULL, len, data, len);
}

/*
 * The deep directory of links and paths: DEEP components of COMP bytes,
 * each of one letter, with a '/' after each, into BUF (at least
 * DEEP * (COMP + 1) + 1 bytes).  Returns its length.
 */
static size_t
deep_dir(char *buf)
{
	size_t i, n = 0;

	for (i = 0; i < DEEP; i++) {
		memset(buf + n, 'a' + (int)(i % 26), COMP);
		n += COMP;
		buf[n++] = '/';
	}
	buf[n] = '\0';
	return n;
}

static void
gen_chain(struct archive *a, uint64_t n)
{
	char name[32], target[32];
	uint64_t i;

	put_file(a, "f", "f\n", 2);
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "l%llu", (unsigned long long)i);
		if (i + 1 < n)
			snprintf(target, sizeof(target), "l%llu",
			    (unsigned long long)(i + 1));
		else
			snprintf(target, sizeof(target), "f");
		put(a, name, AE_IFLNK, target, 0, NULL, 0);
	}
}

/* links (LINKS nonzero) or paths: N entries under the deep directory. */
static void
gen_deep(struct archive *a, uint64_t n, int links)
{
	char name[DEEP * (COMP + 1) + 32], target[DEEP * 3 + 2];
	size_t dlen = deep_dir(name), i;
	uint64_t k;

	/* From the deep directory back up to the top: f. */
	for (i = 0; i < DEEP; i++)
		memcpy(target + 3 * i, "../", 3);
	memcpy(target + 3 * DEEP, "f", 2);
	if (links)
		put_file(a, "f", "f\n", 2);
	for (k = 0; k < n; k++) {
		snprintf(name + dlen, sizeof(name) - dlen, "%c%07llu",
		    links ? 'l' : 'f', (unsigned long long)k);
		if (links)
			put(a, name, AE_IFLNK, target, 0, NULL, 0);
		else
			put_file(a, name, NULL, 0);
	}
}

static void
gen_links(struct archive *a, uint64_t n)
{
	gen_deep(a, n, 1);
}

static void
gen_paths(struct archive *a, uint64_t n)
{
	gen_deep(a, n, 0);
}

static void
gen_exclude(struct archive *a, uint64_t n)
{
	char *path;
	uint64_t i;

	if (n > (SIZE_MAX - 4) / 2)
		die("exclude: N too large");
	if ((path = malloc(2 * n + 4)) == NULL)
		die("out of memory");
	for (i = 0; i < n; i++)
		memcpy(path + 2 * i, "a/", 2);
	memcpy(path + 2 * n, "x.c", 4);
	put_file(a, "good", "good\n", 5);
	put_file(a, path, "x\n", 2);
	free(path);
}

static void
gen_skipdecode(struct archive *a, uint64_t n)
{
	static const char zeros[1 << 16];
	uint64_t left = n * MiB;

	put(a, "zeros", AE_IFREG, NULL, left, NULL, 0);
	while (left > 0) {
		if (archive_write_data(a, zeros, sizeof(zeros)) !=
		    (la_ssize_t)sizeof(zeros))
			die("zeros: %s", archive_error_string(a));
		left -= sizeof(zeros);
	}
}

/* xorshift64*: names that look random, the same on every run. */
static uint64_t
next_random(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

static void
gen_hash(struct archive *a, uint64_t n)
{
	static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	char name[32];
	uint64_t i, s = 0x9e3779b97f4a7c15ull;
	size_t j;

	for (i = 0; i < n; i++) {
		/* 24 characters of 36: collisions are out of reach. */
		for (j = 0; j < 24; j++)
			name[j] = alphabet[next_random(&s) % 36];
		name[24] = '\0';
		put_file(a, name, NULL, 0);
	}
}

static void
gen_empty(struct archive *a, uint64_t n)
{
	char name[32];
	uint64_t i;

	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "f%07llu", (unsigned long long)i);
		put_file(a, name, NULL, 0);
	}
}

static void
gen_sparse(struct archive *a, uint64_t n)
{
	struct archive_entry *e = archive_entry_new();
	unsigned char data[8192];
	uint64_t size = n * GiB;

	if (e == NULL)
		die("out of memory");
	memset(data, 'x', sizeof(data));
	put_file(a, "good", "good\n", 5);
	archive_entry_set_pathname(e, "sparse");
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, 0644);
	archive_entry_set_mtime(e, DOS_MTIME, 0);
	archive_entry_set_size(e, (la_int64_t)size);
	archive_entry_sparse_add_entry(e, 0, 4096);
	archive_entry_sparse_add_entry(e, (la_int64_t)(size - 4096), 4096);
	if (archive_write_header(a, e) != ARCHIVE_OK ||
	    archive_write_data(a, data, sizeof(data)) != sizeof(data))
		die("sparse: %s", archive_error_string(a));
	archive_entry_free(e);
}

static void
gen_small(struct archive *a, uint64_t n)
{
	char name[64], data[16];
	uint64_t i, dir, last = UINT64_MAX;

	for (i = 0; i < n; i++) {
		/* The files in order, N / SMALL_DIRS to a directory. */
		dir = i * SMALL_DIRS / n;
		if (dir != last) {
			snprintf(name, sizeof(name), "d%03llu",
			    (unsigned long long)dir);
			put(a, name, AE_IFDIR, NULL, 0, NULL, 0);
			last = dir;
		}
		snprintf(name, sizeof(name), "d%03llu/f%07llu",
		    (unsigned long long)dir, (unsigned long long)i);
		snprintf(data, sizeof(data), "%07llu\n",
		    (unsigned long long)(i % 10000000));
		put_file(a, name, data, 8);
	}
}

static const struct mechanism {
	const char *name;
	const char *format;
	const char *filter;
	uint64_t max;		/* the largest N it takes */
	void (*gen)(struct archive *, uint64_t);
} mechanisms[] = {
	{ "chain", "pax", "gzip", 10000000, gen_chain },
	{ "links", "pax", "gzip", 10000000, gen_links },
	{ "paths", "pax", "gzip", 10000000, gen_paths },
	{ "exclude", "pax", "gzip", 100000000, gen_exclude },
	{ "skipdecode", "pax", "zstd", 1024 * 1024, gen_skipdecode },
	{ "hash", "ustar", "gzip", 100000000, gen_hash },
	{ "empty", "ustar", "gzip", 10000000, gen_empty },
	{ "sparse", "pax", "gzip", 1024, gen_sparse },
	{ "small", "ustar", "xz", 10000000, gen_small },
};

int
main(int argc, char **argv)
{
	const struct mechanism *m = NULL;
	struct archive *a;
	char *end;
	uint64_t n;
	size_t i;

	if (argc != 4) {
		fprintf(stderr, "usage: dosgen mechanism n output\n");
		return 2;
	}
	for (i = 0; i < sizeof(mechanisms) / sizeof(mechanisms[0]); i++) {
		if (strcmp(mechanisms[i].name, argv[1]) == 0)
			m = &mechanisms[i];
	}
	if (m == NULL)
		die("unknown mechanism %s", argv[1]);
	n = strtoull(argv[2], &end, 10);
	if (argv[2][0] < '0' || argv[2][0] > '9' || *end != '\0' || n == 0 ||
	    n > m->max)
		die("%s: N must be 1 to %llu", m->name,
		    (unsigned long long)m->max);
	a = out_open(argv[3], m->format, m->filter);
	m->gen(a, n);
	out_close(a);
	return 0;
}
