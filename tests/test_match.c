/*
 * test_match.c -- tests of member selection (match.c) and its matcher
 * (pattern.c).
 *
 * First a differential test: the fnmatch(3)-based selection that pattern.c
 * replaced is kept here as the reference, and the two must agree on
 * every one of many random patterns and names drawn from the bytes that
 * matter to a glob ('/', '.', '*', '?', '[', ']', '!', '^', '-', '\',
 * ':', '=') and the tokens of bracket expressions ([:alpha:], [=a=],
 * [.a.]).  The seed is fixed, so a failure names its pattern and name.
 * The runner does not call setlocale(3): both sides match bytes.
 *
 * Then the cost: the number of pattern elements compared with a name's
 * bytes is counted, not timed, for names of n and 4n bytes with many
 * '/': it must grow as n (at most 4x, plus a little), where the
 * reference's one fnmatch per tail grew as n * n.
 */
/* FNM_LEADING_DIR: the tests are built with -D_GNU_SOURCE. */
#include <fnmatch.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "match.h"
#include "pattern.h"

/* --- the reference: selection as it was, with glibc's fnmatch ------- */

static bool
ref_include_matches(const char *pat, const char *name)
{
	size_t n;

	while (pat[0] == '.' && pat[1] == '/')
		pat += 2;
	n = strlen(pat);
	while (n > 1 && pat[n - 1] == '/')
		n--;
	if (fnmatch(pat, name, FNM_LEADING_DIR) == 0)
		return true;
	return strncmp(pat, name, n) == 0 &&
	    (name[n] == '\0' || name[n] == '/');
}

static bool
ref_exclude_matches(const char *pat, const char *name)
{
	const char *p = name;

	for (;;) {
		if (fnmatch(pat, p, FNM_LEADING_DIR) == 0)
			return true;
		p = strchr(p, '/');
		if (p == NULL)
			return false;
		p++;
	}
}

/*
 * An exclude pattern as GNU tar matches it against a name stored with a
 * leading "./": "./a" is anchored (no tail starts with "./"), and "*" "/a"
 * can match the stored "./a" as well as its tails.
 */
static bool
ref_excluded(const char *pat, const char *stored, const char *name)
{
	if (pat[0] == '.' && pat[1] == '/') {
		while (pat[0] == '.' && pat[1] == '/')
			pat += 2;
		return fnmatch(pat, name, FNM_LEADING_DIR) == 0;
	}
	return ref_exclude_matches(pat, name) ||
	    fnmatch(pat, stored, FNM_LEADING_DIR) == 0;
}

/* Copy NAME to BUF (of 64) without its trailing '/'s, as GNU tar sees
 * an entry's name: "d/" is "d" (but "/" stays "/"). */
static const char *
ref_trim(char *buf, const char *name)
{
	size_t len = strlen(name);

	while (len > 1 && name[len - 1] == '/')
		len--;
	memcpy(buf, name, len);
	buf[len] = '\0';
	return buf;
}

static const char *
ref_unselected(const struct pfx_options *opt, const char *name, bool *hits)
{
	const char *stored = name;
	char tn[64], ts[64];
	size_t i;
	bool in = opt->ninclude == 0;

	while (name[0] == '.' && name[1] == '/')
		name += 2;
	for (i = 0; i < opt->nexclude; i++) {
		if (ref_excluded(opt->exclude[i], ref_trim(ts, stored),
		    ref_trim(tn, name)))
			return "excluded";
	}
	for (i = 0; i < opt->ninclude; i++) {
		if (ref_include_matches(opt->include[i], name)) {
			in = true;
			if (hits != NULL)
				hits[i] = true;
		}
	}
	return in ? NULL : "not_selected";
}

/* --- random patterns and names ---------------------------------------- */

static uint64_t rng = 0x9e3779b97f4a7c15u;

static unsigned int
rnd(unsigned int n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned int)(rng % n);
}

static const char *const pat_tokens[] = {
	"a", "b", "/", ".", "*", "?", "[", "]", "!", "^", "-", "\\", ":",
	"=", "a", "b", "/", "*", "[", "]", "[:alpha:]", "[:digit:]",
	"[:bogus:]", "[=a=]", "[.a.]", "[.-.]", "[a-b]", "[!a]", "./",
	"\xe9",
};
static const char name_bytes[] = "ab/./ab-[]!*?\\:=^1\xe9";

static void
random_pattern(char *buf, size_t cap)
{
	unsigned int i, len = rnd(9);
	size_t used = 0, t;
	const char *tok;

	buf[0] = '\0';
	for (i = 0; i < len; i++) {
		tok = pat_tokens[rnd(sizeof(pat_tokens) /
		    sizeof(pat_tokens[0]))];
		t = strlen(tok);
		if (used + t + 1 > cap)
			break;
		memcpy(buf + used, tok, t + 1);
		used += t;
	}
}

static void
random_name(char *buf, size_t cap)
{
	unsigned int i, len = rnd((unsigned int)cap - 1);

	for (i = 0; i < len; i++)
		buf[i] = name_bytes[rnd(sizeof(name_bytes) - 1)];
	buf[len] = '\0';
}

/* --- the differential test -------------------------------------------- */

/* XTR_GLOB_WHOLE's reference: PAT matches NAME less some trailing '/'s. */
static bool
ref_whole(const char *pat, const char *name)
{
	char buf[64];
	size_t len = strlen(name);

	for (;;) {
		memcpy(buf, name, len);
		buf[len] = '\0';
		if (fnmatch(pat, buf, 0) == 0)
			return true;
		if (len == 0 || name[len - 1] != '/')
			return false;
		len--;
	}
}

Test(match, glob_agrees_with_fnmatch)
{
	char pat[64], name[16];
	unsigned int i, bad = 0;
	bool want, got;

	for (i = 0; i < 400000 && bad < 10; i++) {
		random_pattern(pat, sizeof(pat));
		random_name(name, sizeof(name));
		want = fnmatch(pat, name, FNM_LEADING_DIR) == 0;
		got = xtr_glob(pat, name, 0, NULL);
		if (want != got) {
			cr_log_error("fnmatch(\"%s\", \"%s\") %d, xtr_glob %d",
			    pat, name, want, got);
			bad++;
		}
		want = ref_exclude_matches(pat, name);
		got = xtr_glob(pat, name, XTR_GLOB_TAIL, NULL);
		if (want != got) {
			cr_log_error("tails: \"%s\" \"%s\": was %d, is %d",
			    pat, name, want, got);
			bad++;
		}
		/* --occurrence's and --no-recursion's whole name. */
		want = ref_whole(pat, name);
		got = xtr_glob(pat, name, XTR_GLOB_WHOLE, NULL);
		if (want != got) {
			cr_log_error("whole: \"%s\" \"%s\": fnmatch %d, "
			    "xtr_glob %d", pat, name, want, got);
			bad++;
		}
	}
	cr_assert_eq(bad, 0, "%u disagreements (first ones logged)", bad);
}

/*
 * GNU tar's --ignore-case and --no-wildcards-match-slash (issue 19): the
 * reference is fnmatch with FNM_CASEFOLD and FNM_PATHNAME, and GNU's
 * exclude_fnmatch() for the tails; names get upper-case letters too.
 */
static bool
ref_flags(const char *pat, const char *name, unsigned int flags)
{
	int fl = FNM_LEADING_DIR |
	    ((flags & XTR_GLOB_FOLD) != 0 ? FNM_CASEFOLD : 0) |
	    ((flags & XTR_GLOB_NOSLASH) != 0 ? FNM_PATHNAME : 0);
	const char *p = name;

	if (fnmatch(pat, name, fl) == 0)
		return true;
	while ((flags & XTR_GLOB_TAIL) != 0 && (p = strchr(p, '/')) != NULL)
		if (fnmatch(pat, ++p, fl) == 0)
			return true;
	return false;
}

Test(match, glob_flags_agree_with_fnmatch)
{
	static const unsigned int flags[] = { XTR_GLOB_FOLD,
	    XTR_GLOB_NOSLASH, XTR_GLOB_NOSLASH | XTR_GLOB_TAIL,
	    XTR_GLOB_FOLD | XTR_GLOB_NOSLASH | XTR_GLOB_TAIL };
	char pat[64], name[16];
	unsigned int i, f, k, bad = 0;
	bool want, got;

	for (i = 0; i < 200000 && bad < 10; i++) {
		random_pattern(pat, sizeof(pat));
		random_name(name, sizeof(name));
		for (k = 0; name[k] != '\0'; k++)
			if ((name[k] == 'a' || name[k] == 'b') && rnd(2))
				name[k] = (char)(name[k] - 'a' + 'A');
		for (f = 0; f < sizeof(flags) / sizeof(flags[0]); f++) {
			want = ref_flags(pat, name, flags[f]);
			got = xtr_glob(pat, name, flags[f], NULL);
			if (want != got) {
				cr_log_error("flags %#x: \"%s\" \"%s\": "
				    "fnmatch %d, xtr_glob %d", flags[f], pat,
				    name, want, got);
				bad++;
			}
		}
	}
	cr_assert_eq(bad, 0, "%u disagreements (first ones logged)", bad);
}

/* The flags spelled out, as GNU tar 1.34 matches (issue 19). */
Test(match, glob_flags_semantics)
{
	cr_expect(xtr_glob("*.C", "x/y/z.c", XTR_GLOB_TAIL | XTR_GLOB_FOLD,
	    NULL));
	cr_expect(!xtr_glob("*.C", "x/y/z.c", XTR_GLOB_TAIL, NULL));
	cr_expect(xtr_glob("[A-C]", "b", XTR_GLOB_FOLD, NULL));
	cr_expect(xtr_glob("TestDir", "testdir/dir1", XTR_GLOB_FOLD, NULL));
	cr_expect(xtr_glob("x*c", "x/y/z.c", 0, NULL));
	cr_expect(!xtr_glob("x*c", "x/y/z.c", XTR_GLOB_NOSLASH, NULL));
	cr_expect(!xtr_glob("x?y", "x/y", XTR_GLOB_NOSLASH, NULL));
	cr_expect(!xtr_glob("x[/]y", "x/y", XTR_GLOB_NOSLASH, NULL));
	cr_expect(xtr_glob("*/a", "d/a", XTR_GLOB_NOSLASH, NULL));
	cr_expect(!xtr_glob("*/a", "t/d/a", XTR_GLOB_NOSLASH, NULL));
	cr_expect(xtr_glob("t/*", "t/d/a", XTR_GLOB_NOSLASH, NULL));
	/* Tails are kept: "a*b" fails on "ac/..." but matches "ab". */
	cr_expect(xtr_glob("a*b", "x/ac/ab", XTR_GLOB_NOSLASH |
	    XTR_GLOB_TAIL, NULL));
	cr_expect(!xtr_glob("t/*", "t/", XTR_GLOB_TRIM, NULL));
	cr_expect(xtr_glob("t/*", "t/", 0, NULL));
	cr_expect(xtr_glob("t", "t//", XTR_GLOB_TRIM, NULL));
	cr_expect(!xtr_glob("t/", "t/", XTR_GLOB_TRIM, NULL));
	/* glibc compares [=c=] and a lone [.c.] unfolded. */
	cr_expect(!xtr_glob("[[=a=]]", "A", XTR_GLOB_FOLD, NULL));
	cr_expect(!xtr_glob("[[.a.]]", "A", XTR_GLOB_FOLD, NULL));
	cr_expect(xtr_glob("[[.a.]-b]", "A", XTR_GLOB_FOLD, NULL));
}

/*
 * '^' after '[' negates unless PFX_OPT_POSIX_GLOB: the option decides, not
 * the environment the library runs in (the command sets the option from
 * POSIXLY_CORRECT, as GNU tar's fnmatch reads it).
 */
Test(match, posix_glob_from_the_option_not_the_environment)
{
	const char *pat[] = { "[^x]*" };
	struct pfx_options opt;

	cr_assert_eq(setenv("POSIXLY_CORRECT", "1", 1), 0);
	memset(&opt, 0, sizeof(opt));
	opt.exclude = pat;
	opt.nexclude = 1;
	cr_expect_str_eq(xtr_unselected(&opt, "a1", NULL), "excluded");
	cr_expect_null(xtr_unselected(&opt, "x1", NULL));
	opt.flags = PFX_OPT_POSIX_GLOB;
	cr_expect_null(xtr_unselected(&opt, "a1", NULL));
	cr_expect_str_eq(xtr_unselected(&opt, "x1", NULL), "excluded");
	cr_expect_str_eq(xtr_unselected(&opt, "^1", NULL), "excluded");
	memset(&opt, 0, sizeof(opt));
	opt.members = pat;
	opt.nmembers = 1;
	cr_expect_null(xtr_unselected(&opt, "a1", NULL));
	opt.flags = PFX_OPT_POSIX_GLOB;
	cr_expect_str_eq(xtr_unselected(&opt, "a1", NULL), "not_selected");
	memset(&opt, 0, sizeof(opt));
	opt.include = pat;
	opt.ninclude = 1;
	cr_expect_null(xtr_unselected(&opt, "a1", NULL));
	opt.flags = PFX_OPT_POSIX_GLOB;
	cr_expect_str_eq(xtr_unselected(&opt, "a1", NULL), "not_selected");
	cr_expect(xtr_glob("[^x]", "^", XTR_GLOB_POSIX, NULL));
	cr_expect(!xtr_glob("[^x]", "a", XTR_GLOB_POSIX, NULL));
	cr_expect(xtr_glob("[!x]", "a", XTR_GLOB_POSIX, NULL));
}

/* --occurrence's and --no-recursion's whole name (issue 19). */
Test(match, glob_whole)
{
	cr_expect(xtr_glob("d", "d/", XTR_GLOB_WHOLE, NULL));
	cr_expect(xtr_glob("d", "d//", XTR_GLOB_WHOLE, NULL));
	cr_expect(!xtr_glob("d", "d/x", XTR_GLOB_WHOLE, NULL));
	cr_expect(xtr_glob("d", "d/x", 0, NULL));
	cr_expect(xtr_glob("d*", "d/x", XTR_GLOB_WHOLE, NULL));
}

Test(match, unselected_agrees_with_reference)
{
	char pats[4][64], name[16];
	const char *inc[2], *exc[2];
	struct pfx_options opt;
	bool hw[2], hg[2];
	const char *want, *got;
	unsigned int i, j, bad = 0;

	for (i = 0; i < 100000 && bad < 10; i++) {
		for (j = 0; j < 4; j++)
			random_pattern(pats[j], sizeof(pats[j]));
		inc[0] = pats[0];
		inc[1] = pats[1];
		exc[0] = pats[2];
		exc[1] = pats[3];
		memset(&opt, 0, sizeof(opt));
		opt.include = inc;
		opt.ninclude = rnd(3);
		opt.exclude = exc;
		opt.nexclude = rnd(3);
		random_name(name, sizeof(name));
		memset(hw, 0, sizeof(hw));
		memset(hg, 0, sizeof(hg));
		want = ref_unselected(&opt, name, hw);
		got = xtr_unselected(&opt, name, hg);
		if ((want == NULL) != (got == NULL) ||
		    (want != NULL && strcmp(want, got) != 0) ||
		    memcmp(hw, hg, sizeof(hw)) != 0) {
			cr_log_error("\"%s\": inc %zu [%s|%s] exc %zu [%s|%s]: "
			    "was %s, is %s", name, opt.ninclude, pats[0],
			    pats[1], opt.nexclude, pats[2], pats[3],
			    want != NULL ? want : "selected",
			    got != NULL ? got : "selected");
			bad++;
		}
	}
	cr_assert_eq(bad, 0, "%u disagreements (first ones logged)", bad);
}

/* Semantics the CLI tests and tar rely on, spelled out. */
Test(match, tar_semantics)
{
	static const char *const exc[] = { "*.o" };
	static const char *const inc[] = { "dir/", "./src/*.c" };
	struct pfx_options opt;

	cr_expect(xtr_glob("*.o", "a/b/c.o", XTR_GLOB_TAIL, NULL));
	cr_expect(xtr_glob("b", "a/b/c.o", XTR_GLOB_TAIL, NULL));
	cr_expect(!xtr_glob("b", "a/b/c.o", 0, NULL));
	cr_expect(xtr_glob("a", "a/b/c.o", 0, NULL));
	cr_expect(xtr_glob("a/*", "a/b/c.o", 0, NULL));
	cr_expect(xtr_glob("*", "", 0, NULL));
	cr_expect(!xtr_glob("?", "", 0, NULL));
	cr_expect(xtr_glob("", "a/", XTR_GLOB_TAIL, NULL));
	cr_expect(xtr_glob("[a-c]", "b", 0, NULL));
	cr_expect(!xtr_glob("[!a-c]", "b", 0, NULL));
	cr_expect(xtr_glob("[[:digit:]]x", "7x", 0, NULL));
	cr_expect(xtr_glob("\\*", "*", 0, NULL));
	cr_expect(!xtr_glob("\\*", "a", 0, NULL));
	cr_expect(!xtr_glob("a\\", "a", 0, NULL));
	cr_expect(xtr_glob("[a", "[a", 0, NULL));
	memset(&opt, 0, sizeof(opt));
	opt.exclude = exc;
	opt.nexclude = 1;
	opt.include = inc;
	opt.ninclude = 2;
	cr_expect_str_eq(xtr_unselected(&opt, "./dir/x.o", NULL), "excluded");
	cr_expect_null(xtr_unselected(&opt, "./dir/x.c", NULL));
	cr_expect_null(xtr_unselected(&opt, "dir", NULL));
	cr_expect_null(xtr_unselected(&opt, "src/a.c", NULL));
	cr_expect_str_eq(xtr_unselected(&opt, "dirt", NULL), "not_selected");
}

/* --exclude with a leading "./", as GNU tar on names stored with one. */
Test(match, exclude_dot_slash)
{
	const char *exc[] = { "./*1", "./f2", "./d" };
	struct pfx_options opt;

	memset(&opt, 0, sizeof(opt));
	opt.exclude = exc;
	opt.nexclude = 3;
	cr_expect_str_eq(xtr_unselected(&opt, "./file1", NULL), "excluded");
	cr_expect_str_eq(xtr_unselected(&opt, "./x/file1", NULL),
	    "excluded");
	cr_expect_str_eq(xtr_unselected(&opt, "./f2", NULL), "excluded");
	cr_expect_str_eq(xtr_unselected(&opt, "f2", NULL), "excluded");
	cr_expect_null(xtr_unselected(&opt, "./x/f2", NULL));
	cr_expect_str_eq(xtr_unselected(&opt, "./d/", NULL), "excluded");
	cr_expect_str_eq(xtr_unselected(&opt, "./d/f", NULL), "excluded");
	cr_expect_null(xtr_unselected(&opt, "./x/d/f", NULL));
	cr_expect_null(xtr_unselected(&opt, "./file2", NULL));
	/* Without "./", a pattern sees the stored name and its tails. */
	exc[0] = "*/f";
	opt.nexclude = 1;
	cr_expect_str_eq(xtr_unselected(&opt, "./f", NULL), "excluded");
	cr_expect_str_eq(xtr_unselected(&opt, "./x/f", NULL), "excluded");
	cr_expect_null(xtr_unselected(&opt, "f", NULL));
}

/* Members (tar's operands) see the name as stored, as GNU tar's do. */
Test(match, members_as_gnu_tar)
{
	static const char *const mem[] = { "pkg/a\\*b", "./doc" };
	struct pfx_options opt;
	bool hits[2];

	memset(&opt, 0, sizeof(opt));
	opt.members = mem;
	opt.nmembers = 2;
	memset(hits, 0, sizeof(hits));
	cr_expect_null(xtr_unselected(&opt, "pkg/a*b", hits));
	cr_expect(hits[0] && !hits[1]);
	cr_expect_null(xtr_unselected(&opt, "pkg/a*b/c", NULL));
	cr_expect_str_eq(xtr_unselected(&opt, "pkg/axb", NULL),
	    "not_selected");
	cr_expect_str_eq(xtr_unselected(&opt, "./pkg/a*b", NULL),
	    "not_selected");
	cr_expect_null(xtr_unselected(&opt, "./doc/", NULL));
	cr_expect_null(xtr_unselected(&opt, "./doc/x", NULL));
	cr_expect_str_eq(xtr_unselected(&opt, "doc/x", NULL),
	    "not_selected");
	cr_expect_str_eq(xtr_unselected(&opt, "./docs", NULL),
	    "not_selected");
}

/*
 * Positional -C (pfx_options.member_group): an entry belongs to the run
 * of the first member that matches it, as GNU tar extracts it for that
 * member's directory; only that member counts it.
 */
Test(match, member_groups)
{
	static const char *const mem[] = { "d/s", "d", "e" };
	static const size_t group[] = { 1, 2, 2 };
	struct pfx_options opt;
	bool hits[3];

	memset(&opt, 0, sizeof(opt));
	opt.members = mem;
	opt.nmembers = 3;
	opt.member_group = group;
	opt.group = 1;
	memset(hits, 0, sizeof(hits));
	cr_expect_null(xtr_unselected(&opt, "d/s/f", hits));
	cr_expect(hits[0] && !hits[1], "d/s/f: the first member only");
	cr_expect_str_eq(xtr_unselected(&opt, "d/t", NULL), "not_selected");
	cr_expect_str_eq(xtr_unselected(&opt, "e", NULL), "not_selected");
	opt.group = 2;
	memset(hits, 0, sizeof(hits));
	cr_expect_str_eq(xtr_unselected(&opt, "d/s/f", hits),
	    "not_selected");
	cr_expect(!hits[0] && !hits[1], "d/s/f is group 1's");
	cr_expect_null(xtr_unselected(&opt, "d/t", hits));
	cr_expect_null(xtr_unselected(&opt, "e", hits));
	cr_expect(hits[1] && hits[2]);
}

/* pfx_options' per-pattern flags (issue 19), as GNU tar 1.34 matches. */
Test(match, per_pattern_flags)
{
	const char *exc[] = { "dir1", "*.C" };
	const char *mem[] = { "dir1", "testdir/dir1/*" };
	unsigned int xf[] = { PFX_MATCH_ANCHORED, PFX_MATCH_CASEFOLD };
	unsigned int mf[] = { 0, PFX_MATCH_ANCHORED | PFX_MATCH_NOSLASH };
	struct pfx_options opt;

	memset(&opt, 0, sizeof(opt));
	opt.exclude = exc;
	opt.nexclude = 2;
	/* Defaults: not anchored, case counts. */
	cr_expect_str_eq(xtr_unselected(&opt, "t/dir1/a", NULL), "excluded");
	cr_expect_null(xtr_unselected(&opt, "t/a.c", NULL));
	opt.exclude_flags = xf;
	cr_expect_null(xtr_unselected(&opt, "t/dir1/a", NULL));
	cr_expect_str_eq(xtr_unselected(&opt, "dir1/a", NULL), "excluded");
	cr_expect_str_eq(xtr_unselected(&opt, "t/a.c", NULL), "excluded");
	/* Anchored, an exclude pattern sees the name as stored. */
	cr_expect_null(xtr_unselected(&opt, "./dir1/a", NULL));
	memset(&opt, 0, sizeof(opt));
	opt.members = mem;
	opt.nmembers = 2;
	/* Members: anchored by default; "d/" then '*' not the entry "d/". */
	cr_expect_str_eq(xtr_unselected(&opt, "testdir/dir1/", NULL),
	    "not_selected");
	cr_expect_null(xtr_unselected(&opt, "testdir/dir1/a/b", NULL));
	opt.member_flags = mf;
	cr_expect_null(xtr_unselected(&opt, "testdir/dir1/", NULL));
	/* Not anchored: "dir1" selects every dir1 and what it holds. */
	cr_expect_null(xtr_unselected(&opt, "x/dir1/b", NULL));
}

/* --- the cost, counted ------------------------------------------------ */

/* "a/" REPS times, then LAST. */
static char *
many_slashes(size_t reps, const char *last)
{
	size_t i, t = strlen(last);
	char *s = malloc(2 * reps + t + 1);

	cr_assert_not_null(s);
	for (i = 0; i < reps; i++)
		memcpy(s + 2 * i, "a/", 2);
	memcpy(s + 2 * reps, last, t + 1);
	return s;
}

static uint64_t
work(const char *pat, const char *name, unsigned int flags)
{
	uint64_t w = 0;

	(void)xtr_glob(pat, name, flags, &w);
	return w;
}

Test(match, work_is_linear_in_the_name)
{
	static const char *const pats[] = {
		"*.o", "*a*a*a*a*b", "a/*.o", "[a]*[a]*[a]*b", "*/x.o",
		"a*a*a*a*a*x.o", "?*?*?*x.o", "x", "*/*/*/*/x", "a/a/a/a/x",
	};
	static const unsigned int flags[] = { 0, XTR_GLOB_TAIL,
	    XTR_GLOB_FOLD | XTR_GLOB_TAIL, XTR_GLOB_NOSLASH,
	    XTR_GLOB_NOSLASH | XTR_GLOB_TAIL };
	size_t n = 2000, i, f, k, slashes;
	char *s1 = many_slashes(n, "x.c"), *s4 = many_slashes(4 * n, "x.c");
	uint64_t w1, w4, bound;

	for (i = 0; i < sizeof(pats) / sizeof(pats[0]); i++) {
		for (slashes = 0, k = 0; pats[i][k] != '\0'; k++)
			slashes += pats[i][k] == '/';
		for (f = 0; f < sizeof(flags) / sizeof(flags[0]); f++) {
			w1 = work(pats[i], s1, flags[f]);
			w4 = work(pats[i], s4, flags[f]);
			bound = (uint64_t)(strlen(s4) + 1) *
			    (strlen(pats[i]) + 1);
			/* Tails kept under NOSLASH: s + 1 tries a byte. */
			if (flags[f] == (XTR_GLOB_NOSLASH | XTR_GLOB_TAIL))
				bound *= slashes + 1;
			cr_log_info("%-16s %#x: %llu at n, %llu at 4n",
			    pats[i], flags[f],
			    (unsigned long long)w1, (unsigned long long)w4);
			cr_expect(w4 <= bound, "%s: %llu over (n+1)(m+1)",
			    pats[i], (unsigned long long)w4);
			cr_expect(w4 <= 4 * w1 + 64, "%s (%#x): %llu at n, "
			    "%llu at 4n", pats[i], flags[f],
			    (unsigned long long)w1,
			    (unsigned long long)w4);
		}
	}
	free(s1);
	free(s4);
}

/* A name of one repeated byte, the worst case of backtracking stars. */
Test(match, work_is_linear_without_slashes)
{
	size_t n = 8000;
	char *s1 = malloc(n + 1), *s4 = malloc(4 * n + 1);
	uint64_t w1, w4;

	cr_assert(s1 != NULL && s4 != NULL);
	memset(s1, 'a', n);
	s1[n] = '\0';
	memset(s4, 'a', 4 * n);
	s4[4 * n] = '\0';
	w1 = work("*a*a*a*a*b", s1, XTR_GLOB_TAIL);
	w4 = work("*a*a*a*a*b", s4, XTR_GLOB_TAIL);
	cr_expect(w4 <= 4 * w1 + 64, "%llu at n, %llu at 4n",
	    (unsigned long long)w1, (unsigned long long)w4);
	/* The same under --ignore-case and --no-wildcards-match-slash. */
	w1 = work("*A*A*A*A*B", s1, XTR_GLOB_TAIL | XTR_GLOB_FOLD |
	    XTR_GLOB_NOSLASH);
	w4 = work("*A*A*A*A*B", s4, XTR_GLOB_TAIL | XTR_GLOB_FOLD |
	    XTR_GLOB_NOSLASH);
	cr_expect(w4 <= 4 * w1 + 64, "folded: %llu at n, %llu at 4n",
	    (unsigned long long)w1, (unsigned long long)w4);
	cr_expect(w4 <= (uint64_t)(4 * n + 1) * 11, "folded: %llu",
	    (unsigned long long)w4);
	free(s1);
	free(s4);
}

/*
 * A whole name (--no-recursion, --occurrence) asks wherever the pattern
 * may end whether only '/'s follow, and under --no-wildcards-match-slash
 * whether a star reached past a '/': asked by a scan at each try, a long
 * run of '/'s or a long name before one made it quadratic (a 300 KiB
 * name took 20 s).  The work counter does not see those scans: the time
 * limit does.
 */
Test(match, whole_is_linear_in_the_name, .timeout = 20)
{
	size_t n = 1u << 20;
	char *slashes = malloc(n + 3), *names = malloc(n + 5);

	cr_assert(slashes != NULL && names != NULL);
	slashes[0] = 'x';
	memset(slashes + 1, '/', n);
	memcpy(slashes + 1 + n, "y", 2);
	memset(names, 'a', n);
	memcpy(names + n, "/x/y", 5);
	cr_expect(!xtr_glob("*/", slashes, XTR_GLOB_WHOLE | XTR_GLOB_TRIM,
	    NULL));
	cr_expect(!xtr_glob("*/", slashes, XTR_GLOB_WHOLE | XTR_GLOB_TRIM |
	    XTR_GLOB_TAIL, NULL));
	cr_expect(!xtr_glob("*a*", names, XTR_GLOB_WHOLE | XTR_GLOB_NOSLASH,
	    NULL));
	cr_expect(!xtr_glob("*a*", names, XTR_GLOB_WHOLE | XTR_GLOB_NOSLASH |
	    XTR_GLOB_TAIL, NULL));
	/* The answers themselves, on what follows the last '/'. */
	cr_expect(xtr_glob("*a*", "x/ab//", XTR_GLOB_WHOLE | XTR_GLOB_NOSLASH |
	    XTR_GLOB_TAIL, NULL));
	cr_expect(!xtr_glob("x*", "x/ab//", XTR_GLOB_WHOLE | XTR_GLOB_NOSLASH,
	    NULL));
	cr_expect(xtr_glob("x/*", "x/ab//", XTR_GLOB_WHOLE | XTR_GLOB_NOSLASH,
	    NULL));
	cr_expect(xtr_glob("x/", "x//", XTR_GLOB_WHOLE, NULL));
	free(slashes);
	free(names);
}
