/*
 * test_table.c -- the path tables (extract/table.c) against names chosen
 * to hurt them, and under the memory budget.
 *
 * Work is counted, not timed: a table counts the slots its adds look at
 * (xtr_table.probes), so a quadratic blow-up shows on a loaded machine
 * as well as on an idle one.  The hostile names are those that collided
 * under the table's old hash, unkeyed FNV-1a: all their hashes share the
 * low 16 bits, which alone placed a name in a table of up to 65,536
 * slots.  Memory is what the tables took from the budget
 * (xtr.mem_used), and for the whole extractor, where a small
 * --max-memory makes a run of many long names fail.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <criterion/criterion.h>

#include "extract.h"
#include "table.h"

#define FNV_OFFSET 1469598103934665603ull
#define FNV_PRIME 1099511628211ull

/* The old hash, FNV-1a, from state H over S. */
static uint64_t
fnv1a(uint64_t h, const char *s)
{
	while (*s != '\0') {
		h ^= (unsigned char)*s++;
		h *= FNV_PRIME;
	}
	return h;
}

static const char alnum[] =
    "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

/*
 * Write to NAME (CAP bytes) "dir/file-I-" and three letters that make
 * its FNV-1a hash end in the 16 bits TARGET.  The low 16 bits of FNV-1a
 * depend only on the low 16 bits of its state, so a search of 62^3
 * suffixes finds one (almost) always.  Return: 0, or -1 if none does.
 */
static int
colliding_name(char *name, size_t cap, unsigned int i, uint16_t target)
{
	size_t n = (size_t)snprintf(name, cap, "usr/share/dir/file-%u-", i);
	uint64_t h = fnv1a(FNV_OFFSET, name), h1, h2, h3;
	size_t a, b, c;

	for (a = 0; a < sizeof(alnum) - 1; a++) {
		h1 = (h ^ (unsigned char)alnum[a]) * FNV_PRIME;
		for (b = 0; b < sizeof(alnum) - 1; b++) {
			h2 = (h1 ^ (unsigned char)alnum[b]) * FNV_PRIME;
			for (c = 0; c < sizeof(alnum) - 1; c++) {
				h3 = (h2 ^ (unsigned char)alnum[c]) *
				    FNV_PRIME;
				if ((uint16_t)h3 != target)
					continue;
				name[n] = alnum[a];
				name[n + 1] = alnum[b];
				name[n + 2] = alnum[c];
				name[n + 3] = '\0';
				return 0;
			}
		}
	}
	return -1;
}

/* N names whose FNV-1a hashes share their low 16 bits, one string each. */
static char **
colliding_names(size_t n)
{
	char **v = calloc(n, sizeof(*v));
	char name[64];
	size_t i;
	unsigned int k = 0;

	cr_assert(v != NULL, "calloc");
	for (i = 0; i < n; i++) {
		while (colliding_name(name, sizeof(name), k, 0x5a5a) < 0)
			k++;
		k++;
		cr_assert((uint16_t)fnv1a(FNV_OFFSET, name) == 0x5a5a,
		    "%s does not collide", name);
		v[i] = strdup(name);
		cr_assert(v[i] != NULL, "strdup");
	}
	return v;
}

static void
free_names(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* Add the N names V to a new table.  Return: the slots looked at. */
static uint64_t
probes_for(char **v, size_t n)
{
	struct xtr_table t;
	uint64_t probes;
	size_t i;

	xtr_table_init(&t, NULL);
	for (i = 0; i < n; i++)
		cr_assert(xtr_table_add(&t, v[i]) != NULL, "add %s", v[i]);
	cr_assert(t.used == n, "%zu names, %zu kept", n, t.used);
	for (i = 0; i < n; i++)
		cr_assert(xtr_table_find(&t, v[i]) != NULL, "%s lost", v[i]);
	probes = t.probes;
	xtr_table_free(&t);
	return probes;
}

/*
 * Notes are found only once settled, in the order noted: a name made
 * again is found with its last identity, and a settled table takes more
 * notes.  No slot is used before a settle.
 */
Test(table, notes_settle_in_order)
{
	struct xtr_table t;
	const struct xtr_slot *s;

	xtr_table_init(&t, NULL);
	cr_assert(xtr_table_note(&t, "a/b", 1, 10) == 0);
	cr_assert(xtr_table_note(&t, "c", 1, 11) == 0);
	cr_assert(xtr_table_note(&t, "a/b", 1, 12) == 0);
	cr_expect(t.used == 0 && xtr_table_find(&t, "c") == NULL,
	    "a note is not a slot before a settle");
	xtr_table_settle(&t);
	cr_expect(t.used == 2 && t.nnotes == 0, "%zu used", t.used);
	s = xtr_table_find(&t, "a/b");
	cr_assert(s != NULL && s->has_id && s->ino == 12,
	    "the last note of a name wins");
	s = xtr_table_find(&t, "c");
	cr_assert(s != NULL && s->has_id && s->dev == 1 && s->ino == 11);
	cr_assert(xtr_table_note(&t, "c", 2, 13) == 0);
	cr_assert(xtr_table_note(&t, "d", 2, 14) == 0);
	xtr_table_settle(&t);
	s = xtr_table_find(&t, "c");
	cr_expect(t.used == 3 && s != NULL && s->dev == 2 && s->ino == 13);
	xtr_table_free(&t);
}

/* The paper's test vector: SipHash-2-4, key 00..0f, message 00..0e. */
Test(table, siphash_vector)
{
	unsigned char msg[15];
	uint64_t key[2] = { 0x0706050403020100ull, 0x0f0e0d0c0b0a0908ull };
	size_t i;

	for (i = 0; i < sizeof(msg); i++)
		msg[i] = (unsigned char)i;
	cr_expect(xtr_siphash(key, msg, sizeof(msg), 2, 4) ==
	    0xa129ca6149be45e5ull, "SipHash-2-4 gave %#llx",
	    (unsigned long long)xtr_siphash(key, msg, sizeof(msg), 2, 4));
}

/*
 * Names that all collided under the old hash cost the keyed one no more
 * than any names: the work grows with their number, not its square.
 * (Under FNV-1a, 4,096 of them took 14.7 million probes and 16,384 took
 * 235 million: 16 times as many for 4 times the names.)
 */
Test(table, colliding_names_cost_linear_work, .timeout = 120)
{
	size_t n = 4096;
	char **v = colliding_names(4 * n);
	uint64_t small = probes_for(v, n), big = probes_for(v, 4 * n);

	cr_log_info("probes: %llu for %zu names, %llu for %zu",
	    (unsigned long long)small, n, (unsigned long long)big, 4 * n);
	cr_expect(big < 5 * small, "4 times the names took %.1f times the "
	    "probes (%llu, %llu)", (double)big / (double)small,
	    (unsigned long long)small, (unsigned long long)big);
	/*
	 * Linear probing at a load of 3/8 to 3/4 looks at 3.4 slots per
	 * new name on average, and each doubling moves every name again:
	 * about 5 in all.
	 */
	cr_expect(small < 6 * n && big < 6 * 4 * n, "%.2f and %.2f probes "
	    "per name", (double)small / (double)n,
	    (double)big / (double)(4 * n));
	free_names(v, 4 * n);
}

/* A fake run with budget MAX (0: none), enough for xtr_mem_take(). */
static void
fake_run(struct xtr *x, struct pfx_options *opt, uint64_t max)
{
	memset(x, 0, sizeof(*x));
	pfx_options_init(opt);
	opt->limits.max_memory = max;
	x->opt = opt;
}

/* A path of about 100 bytes, the Ith. */
static void
path_100(char *buf, size_t cap, size_t i)
{
	snprintf(buf, cap, "usr/share/doc/some-package-name-%06zu/examples/"
	    "subdirectory/another-level/file-%06zu.txt", i, i * 7);
}

/* Add N paths of 100 bytes to T.  Return: how many were added. */
static size_t
add_paths(struct xtr_table *t, size_t n)
{
	char name[256];
	size_t i;

	for (i = 0; i < n; i++) {
		path_100(name, sizeof(name), i);
		if (xtr_table_add(t, name) == NULL)
			break;
	}
	return i;
}

/*
 * What a table holds is what it took from the budget, and it grows in
 * step with its names: 4 times the names take 3 to 5 times the bytes, all
 * given back when the table is freed.  Also the bytes per name that the
 * heap says (mallinfo2), logged for the record.
 */
Test(table, memory_taken_is_linear_and_given_back)
{
	struct pfx_options opt;
	struct mallinfo2 m0, m1;
	struct xtr x;
	struct xtr_table t;
	uint64_t small, big;
	size_t n = 25000;

	fake_run(&x, &opt, 0);
	xtr_table_init(&t, &x);
	cr_assert(add_paths(&t, n) == n);
	small = x.mem_used;
	xtr_table_free(&t);
	cr_expect(x.mem_used == 0, "%llu bytes not given back",
	    (unsigned long long)x.mem_used);

	m0 = mallinfo2();
	cr_assert(add_paths(&t, 4 * n) == 4 * n);
	m1 = mallinfo2();
	big = x.mem_used;
	cr_log_info("budget: %.1f bytes per name at %zu, %.1f at %zu; "
	    "heap: %.1f bytes per name (sizeof slot %zu)",
	    (double)small / (double)n, n, (double)big / (double)(4 * n),
	    4 * n, (double)(m1.uordblks + m1.hblkhd - m0.uordblks -
	    m0.hblkhd) / (double)(4 * n), sizeof(struct xtr_slot));
	cr_expect(big >= 3 * small && big <= 5 * small, "%llu bytes for %zu "
	    "names, %llu for %zu", (unsigned long long)small, n,
	    (unsigned long long)big, 4 * n);
	/* The key and its NUL, 8/3 slots at most, chunk waste. */
	cr_expect(big / (4 * n) <= 91 + 8 * sizeof(struct xtr_slot) / 3 + 16,
	    "%.1f bytes per name", (double)big / (double)(4 * n));
	xtr_table_free(&t);
	cr_expect(x.mem_used == 0, "%llu bytes not given back",
	    (unsigned long long)x.mem_used);
}

/* Under a budget, adds fail once it is spent, and never overspend it. */
Test(table, budget_caps_a_table)
{
	struct pfx_options opt;
	struct xtr x;
	struct xtr_table t;
	size_t added;

	fake_run(&x, &opt, 1u << 20);
	xtr_table_init(&t, &x);
	added = add_paths(&t, 100000);
	cr_expect(added > 1000 && added < 100000, "%zu names in 1 MiB",
	    added);
	cr_expect(x.mem_used <= opt.limits.max_memory, "%llu bytes taken",
	    (unsigned long long)x.mem_used);
	cr_expect(x.mem_over, "the budget was crossed unnoticed");
	cr_expect(xtr_table_find(&t, "usr/share/doc") == NULL);
	xtr_table_free(&t);
	cr_expect(x.mem_used == 0, "%llu bytes not given back",
	    (unsigned long long)x.mem_used);
}

/* --- the whole extractor ---------------------------------------------- */

#define MANY 50000

/*
 * An in-memory ustar archive of MANY empty files with names of about 210
 * bytes, all in one directory.  Return: the archive; *LEN its size.
 */
static void *
many_long_names(size_t *len)
{
	size_t cap = (size_t)(MANY + 16) * 1024;
	struct archive_entry *e;
	struct archive *a;
	char name[300];
	void *buf;
	size_t i;

	buf = malloc(cap);
	a = archive_write_new();
	cr_assert(buf != NULL && a != NULL, "malloc");
	cr_assert(archive_write_set_format_ustar(a) == ARCHIVE_OK);
	cr_assert(archive_write_open_memory(a, buf, cap, len) == ARCHIVE_OK);
	for (i = 0; i < MANY; i++) {
		snprintf(name, sizeof(name), "%s/%070zu-long-file-name-%zu",
		    "a-directory-whose-name-is-long-enough-to-matter/"
		    "and-a-second-level-for-good-measure/"
		    "and-a-third-one-for-more-bytes", i, i);
		e = archive_entry_new();
		cr_assert(e != NULL);
		archive_entry_set_pathname(e, name);
		archive_entry_set_filetype(e, AE_IFREG);
		archive_entry_set_perm(e, 0644);
		archive_entry_set_size(e, 0);
		cr_assert(archive_write_header(a, e) == ARCHIVE_OK, "%s: %s",
		    name, archive_error_string(a));
		archive_entry_free(e);
	}
	cr_assert(archive_write_close(a) == ARCHIVE_OK);
	archive_write_free(a);
	return buf;
}

static int
rm_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)flag;
	(void)f;
	return remove(path);
}

/* Extract BUF (LEN bytes) into a new directory under $TMPDIR with OPT. */
static enum pfx_status
extract_into_tmp(const void *buf, size_t len, const struct pfx_options *opt,
    struct pfx_result *res)
{
	struct pfx_input in = { .fd = -1, .buf = buf, .len = len };
	const char *tmp = getenv("TMPDIR");
	enum pfx_status st;
	char dir[4096];

	snprintf(dir, sizeof(dir), "%s/pfx-table-XXXXXX",
	    tmp != NULL ? tmp : "/tmp");
	cr_assert(mkdtemp(dir) != NULL, "mkdtemp: %s", strerror(errno));
	st = pfx_extract(&in, AT_FDCWD, dir, opt, res);
	cr_assert(nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS) == 0,
	    "remove %s: %s", dir, strerror(errno));
	return st;
}

/*
 * 50,000 names of 210 bytes need about 12 MB of tables: over a 2 MiB
 * budget the run fails, naming the limit (and well before its end: the
 * names that fit are those 2 MiB pays for); within the default (1 GiB)
 * the same archive extracts.
 */
Test(table, max_memory_stops_many_long_names, .timeout = 300)
{
	struct pfx_options opt;
	struct pfx_result res;
	size_t len;
	void *buf = many_long_names(&len);

	pfx_options_init(&opt);
	opt.limits.max_memory = 2u << 20;
	cr_expect(extract_into_tmp(buf, len, &opt, &res) == PFX_FATAL,
	    "over the budget: %s", res.message);
	cr_expect(res.error == EFBIG, "error %d", res.error);
	cr_expect(strstr(res.message, "max-memory") != NULL, "message: %s",
	    res.message);
	cr_log_info("2 MiB: failed after %llu of %d entries: %s",
	    (unsigned long long)res.stats.extracted, MANY, res.message);
	/* At least 210 + 24 bytes per name (its key and the note of the
	 * file made, xtr_table_note()); at most about three times that. */
	cr_expect(res.stats.extracted < (2u << 20) / 234 &&
	    res.stats.extracted > (2u << 20) / 700, "%llu extracted",
	    (unsigned long long)res.stats.extracted);

	pfx_options_init(&opt);
	cr_expect(extract_into_tmp(buf, len, &opt, &res) == PFX_OK,
	    "with the default budget: %s", res.message);
	cr_expect(res.stats.extracted == MANY, "%llu extracted",
	    (unsigned long long)res.stats.extracted);
	free(buf);
}
