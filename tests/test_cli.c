/*
 * test_cli.c -- the tools' shared helpers: JSON strings from untrusted
 * bytes, and the PFEXTRACT_RESOLVER setting.
 */
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cli/json.h"
#include "../cli/resolver_env.h"
#include "../cli/xform.h"

/* Return JSON for S (LEN bytes) in a malloc'd string. */
static char *
json_of(const char *s, size_t len)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f;

	f = open_memstream(&buf, &size);
	cr_assert_not_null(f);
	json_put_string(f, s, len);
	cr_assert_eq(fclose(f), 0);
	return buf;
}

struct json_row {
	const char *name;
	const char *in;
	size_t len;
	const char *want;
};

static const struct json_row json_rows[] = {
	{ "plain", "abc", 3, "\"abc\"" },
	{ "empty", "", 0, "\"\"" },
	{ "quote and backslash", "a\"b\\c", 5, "\"a\\\"b\\\\c\"" },
	{ "short escapes", "\b\f\n\r\t", 5, "\"\\b\\f\\n\\r\\t\"" },
	{ "other control", "\x01\x1f", 2, "\"\\u0001\\u001f\"" },
	{ "NUL inside", "a\0b", 3, "\"a\\u0000b\"" },
	{ "DEL", "\x7f", 1, "\"\\u007f\"" },
	{ "valid UTF-8 kept", "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 9,
	  "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"" },
	{ "invalid byte", "a\xff" "b", 3, "\"a\\ufffdb\"" },
	{ "lone continuation", "\x80", 1, "\"\\ufffd\"" },
	{ "overlong slash", "\xc0\xaf", 2, "\"\\ufffd\\ufffd\"" },
	{ "overlong 3-byte", "\xe0\x80\xaf", 3, "\"\\ufffd\\ufffd\\ufffd\"" },
	{ "surrogate", "\xed\xa0\x80", 3, "\"\\ufffd\\ufffd\\ufffd\"" },
	{ "above U+10FFFF", "\xf4\x90\x80\x80", 4,
	  "\"\\ufffd\\ufffd\\ufffd\\ufffd\"" },
	{ "truncated sequence", "\xe2\x82", 2, "\"\\ufffd\\ufffd\"" },
	{ "line separators", "\xe2\x80\xa8\xe2\x80\xa9", 6,
	  "\"\\u2028\\u2029\"" },
	{ "C1 controls", "\xc2\x80\xc2\x85\xc2\x9b\xc2\x9f\xc2\xa0", 10,
	  "\"\\u0080\\u0085\\u009b\\u009f\xc2\xa0\"" },
};

Test(cli_json, rows)
{
	size_t i;

	for (i = 0; i < sizeof(json_rows) / sizeof(json_rows[0]); i++) {
		const struct json_row *r = &json_rows[i];
		char *got = json_of(r->in, r->len);

		cr_expect_str_eq(got, r->want, "%s: got %s want %s", r->name,
		    got, r->want);
		free(got);
	}
}

/* Every byte value alone gives valid output: no raw control, one token. */
Test(cli_json, every_byte)
{
	unsigned int b;

	for (b = 0; b < 256; b++) {
		char c = (char)b;
		char *got = json_of(&c, 1);
		size_t i;

		for (i = 0; got[i] != '\0'; i++)
			cr_expect((unsigned char)got[i] >= 0x20,
			    "byte %u left a raw control byte", b);
		free(got);
	}
}

Test(cli_json, utf8_lengths)
{
	cr_expect_eq(json_utf8_seq_len((const unsigned char *)"a", 1), 1);
	cr_expect_eq(json_utf8_seq_len((const unsigned char *)"\xc2\x80",
	    2), 2);
	cr_expect_eq(json_utf8_seq_len((const unsigned char *)"\xc1\xbf",
	    2), 0);
	cr_expect_eq(json_utf8_seq_len((const unsigned char *)"\xef\xbf\xbf",
	    3), 3);
	cr_expect_eq(json_utf8_seq_len(
	    (const unsigned char *)"\xf4\x8f\xbf\xbf", 4), 4);
	cr_expect_eq(json_utf8_seq_len((const unsigned char *)"\xf5\x80\x80"
	    "\x80", 4), 0);
}

Test(cli_resolver_env, values)
{
	enum pfx_resolver r;

	cr_expect_eq(cli_resolver_parse(NULL, &r), 0);
	cr_expect_eq(r, PFX_RESOLVER_AUTO);
	cr_expect_eq(cli_resolver_parse("", &r), 0);
	cr_expect_eq(r, PFX_RESOLVER_AUTO);
	cr_expect_eq(cli_resolver_parse("auto", &r), 0);
	cr_expect_eq(r, PFX_RESOLVER_AUTO);
	cr_expect_eq(cli_resolver_parse("walk", &r), 0);
	cr_expect_eq(r, PFX_RESOLVER_WALK);
	cr_expect_eq(cli_resolver_parse("openat2", &r), 0);
	cr_expect_eq(r, PFX_RESOLVER_OPENAT2);
	cr_expect_eq(cli_resolver_parse("Walk", &r), -1);
	cr_expect_eq(cli_resolver_parse("openat", &r), -1);
}

/* --- name transforms (cli/xform.c, issue 19) ----------------------- */

/* Apply the rules RULES (GNU's, or bsdtar's with BSD) to NAME of KIND;
 * expect WANT (NULL: unchanged). */
static void
expect_xform(const char *const *rules, bool bsd, const char *top,
    enum pfx_name_kind kind, const char *name, const char *want)
{
	struct xtr_xforms *xs = NULL;
	char out[PFX_PATH_MAX], err[256];
	size_t i;
	int r;

	for (i = 0; rules[i] != NULL; i++)
		cr_assert_eq(xtr_xform_add(&xs, rules[i], bsd, err,
		    sizeof(err)), 0, "%s: %s", rules[i], err);
	if (top != NULL)
		cr_assert_eq(xtr_xform_top_dir(&xs, top, 0), 0);
	r = xtr_xform_apply(xs, kind, name, out, sizeof(out), NULL, NULL);
	if (want == NULL)
		cr_expect_eq(r, 0, "%s: %s: changed to \"%s\"", rules[0],
		    name, r == 1 ? out : "");
	else
		cr_expect(r == 1 && strcmp(out, want) == 0,
		    "%s: %s: \"%s\" (%d), want \"%s\"", rules[0], name,
		    r == 1 ? out : "", r, want);
	xtr_xforms_free(xs);
}

#define R(...) ((const char *const[]){ __VA_ARGS__, NULL })

Test(cli_xform, gnu_rules)
{
	expect_xform(R("s/b/B/"), false, NULL, PFX_NAME_ENTRY, "abcb",
	    "aBcb");
	expect_xform(R("s/b/B/g"), false, NULL, PFX_NAME_ENTRY, "abcb",
	    "aBcB");
	expect_xform(R("s/[a-z]/X/2"), false, NULL, PFX_NAME_ENTRY, "abcd",
	    "aXcd");
	expect_xform(R("s/[a-z]/X/2g"), false, NULL, PFX_NAME_ENTRY, "abcd",
	    "aXXX");
	expect_xform(R("s,\\(a\\)\\(b\\),<\\2\\1&>,"), false, NULL,
	    PFX_NAME_ENTRY, "xaby", "x<baab>y");
	expect_xform(R("s/(a)(b)/\\2\\1/x"), false, NULL, PFX_NAME_ENTRY,
	    "ab", "ba");
	expect_xform(R("s/B/x/i"), false, NULL, PFX_NAME_ENTRY, "abc", "axc");
	expect_xform(R("s/.*/\\U&/"), false, NULL, PFX_NAME_ENTRY, "ab/c",
	    "AB/C");
	expect_xform(R("s/\\(.\\)\\(.*\\)/\\u\\1\\L\\2X\\EY/"), false, NULL,
	    PFX_NAME_ENTRY, "aBC", "AbcxY");
	expect_xform(R("s/x*/-/g"), false, NULL, PFX_NAME_ENTRY, "abc",
	    "-a-b-c-");
	expect_xform(R("s/a/b/;s/b/c/"), false, NULL, PFX_NAME_ENTRY, "a",
	    "c");
	expect_xform(R("s/a/b/", "s/b/c/"), false, NULL, PFX_NAME_ENTRY, "a",
	    "c");
	expect_xform(R("s/^\\.\\/d.*//"), false, NULL, PFX_NAME_ENTRY, "./d/a",
	    "");
	expect_xform(R("s|/|\\/x|"), false, NULL, PFX_NAME_ENTRY, "a/b",
	    "a/xb");
	/* Scope: r, s, h on by default; upper case turns one off. */
	expect_xform(R("s/a/b/"), false, NULL, PFX_NAME_SYMLINK, "a", "b");
	expect_xform(R("s/a/b/S"), false, NULL, PFX_NAME_SYMLINK, "a", NULL);
	expect_xform(R("s/a/b/S"), false, NULL, PFX_NAME_ENTRY, "a", "b");
	expect_xform(R("s/a/b/H"), false, NULL, PFX_NAME_HARDLINK, "a", NULL);
	expect_xform(R("s/a/b/R"), false, NULL, PFX_NAME_ENTRY, "a", NULL);
	expect_xform(R("s/a/b/Rr"), false, NULL, PFX_NAME_ENTRY, "a", "b");
	expect_xform(R("s/z/y/"), false, NULL, PFX_NAME_ENTRY, "a", NULL);
}

Test(cli_xform, bsd_rules_and_top_dir)
{
	expect_xform(R("/b/B/"), true, NULL, PFX_NAME_ENTRY, "abcb", "aBcb");
	expect_xform(R(",\\(h\\)\\(l\\),\\2~&\\1,"), true, NULL,
	    PFX_NAME_ENTRY, "hl", "lhl&h");
	/* Of bsdtar's rules, the first that matches is the only one. */
	expect_xform(R("/b/B/", "/B/C/", "/h/H/"), true, NULL,
	    PFX_NAME_ENTRY, "b", "B");
	expect_xform(R("/b/B/", "/B/C/", "/h/H/"), true, NULL,
	    PFX_NAME_ENTRY, "h", "H");
	cr_expect(xtr_xform_is_bsd_rule("/a/b/"));
	cr_expect(xtr_xform_is_bsd_rule(",a,b,gpS"));
	cr_expect(!xtr_xform_is_bsd_rule("a.tar"));
	cr_expect(!xtr_xform_is_bsd_rule("-xf"));
	cr_expect(!xtr_xform_is_bsd_rule("/a/b"));
	cr_expect(!xtr_xform_is_bsd_rule("/a/b/i"));
	cr_expect(!xtr_xform_is_bsd_rule("/etc/passwd"));
	/* --one-top-level, after the rules; not for symlink targets. */
	expect_xform(R("s/z/y/"), false, "top", PFX_NAME_ENTRY, "./x/g",
	    "top/./x/g");
	expect_xform(R("s/z/y/"), false, "top", PFX_NAME_ENTRY, "./top/f",
	    NULL);
	expect_xform(R("s/z/y/"), false, "top", PFX_NAME_ENTRY, "topx",
	    "top/topx");
	expect_xform(R("s/z/y/"), false, "top", PFX_NAME_ENTRY, "./", "top");
	expect_xform(R("s/z/y/"), false, "top", PFX_NAME_HARDLINK, "a",
	    "top/a");
	expect_xform(R("s/z/y/"), false, "top", PFX_NAME_SYMLINK, "a", NULL);
	/* A name that leaves its own top keeps it: "top/../z" would be
	 * "z", beside top, and "top//etc/x" relative; the library refuses
	 * them as it does without --one-top-level. */
	expect_xform(R("s/z/y/"), false, "top", PFX_NAME_ENTRY, "../x", NULL);
	expect_xform(R("s/z/y/"), false, "top", PFX_NAME_ENTRY, "a/../../x",
	    NULL);
	expect_xform(R("s/z/y/"), false, "top", PFX_NAME_ENTRY, "/etc/x",
	    NULL);
	expect_xform(R("s/z/y/"), false, "top", PFX_NAME_HARDLINK, "./../x",
	    NULL);
	expect_xform(R("s/z/y/"), false, "top", PFX_NAME_ENTRY, "a/../b",
	    "top/a/../b");
	expect_xform(R("s,^,../,"), false, "top", PFX_NAME_ENTRY, "a",
	    "../a");
}

/* --one-top-level with --strip-components: GNU tar strips, then
 * prefixes; the library strips after the hook, so "DIR/" goes after the
 * components it takes off, and what is left lands under DIR. */
static void
expect_top_strip(unsigned int strip, enum pfx_name_kind kind,
    const char *name, const char *want)
{
	struct xtr_xforms *xs = NULL;
	char out[PFX_PATH_MAX];
	int r;

	cr_assert_eq(xtr_xform_top_dir(&xs, "top", strip), 0);
	r = xtr_xform_apply(xs, kind, name, out, sizeof(out), NULL, NULL);
	if (want == NULL)
		cr_expect_eq(r, 0, "%u: %s: changed to \"%s\"", strip, name,
		    r == 1 ? out : "");
	else
		cr_expect(r == 1 && strcmp(out, want) == 0,
		    "%u: %s: \"%s\" (%d), want \"%s\"", strip, name,
		    r == 1 ? out : "", r, want);
	xtr_xforms_free(xs);
}

Test(cli_xform, one_top_level_after_strip)
{
	expect_top_strip(1, PFX_NAME_ENTRY, "a/b/c", "a/top/b/c");
	expect_top_strip(2, PFX_NAME_ENTRY, "/a//b/c", "/a//b/top/c");
	expect_top_strip(1, PFX_NAME_HARDLINK, "a/x", "a/top/x");
	expect_top_strip(1, PFX_NAME_ENTRY, "a/top/x", NULL);
	/* Nothing left: the library skips it, as GNU tar. */
	expect_top_strip(1, PFX_NAME_ENTRY, "a", NULL);
	expect_top_strip(1, PFX_NAME_ENTRY, "a/", NULL);
	/* What is left climbs: refused, not hidden behind "top/". */
	expect_top_strip(1, PFX_NAME_ENTRY, "a/../../x", NULL);
	expect_top_strip(1, PFX_NAME_ENTRY, "../x", "../top/x");
}

/* A new name past the buffer is "does not fit" (2), never cut short. */
Test(cli_xform, too_long)
{
	struct xtr_xforms *xs = NULL;
	char out[PFX_PATH_MAX], err[256];
	char *name = malloc(3000);

	cr_assert_not_null(name);
	memset(name, 'a', 2999);
	name[2999] = '\0';
	cr_assert_eq(xtr_xform_add(&xs, "s/a/&&/g", false, err,
	    sizeof(err)), 0);
	cr_expect_eq(xtr_xform_apply(xs, PFX_NAME_ENTRY, name, out,
	    sizeof(out), NULL, NULL), 2);
	cr_expect_eq(xtr_xform_apply(xs, PFX_NAME_ENTRY, "a", out, 2, NULL,
	    NULL),
	    2);
	xtr_xforms_free(xs);
	free(name);
}

/*
 * An archive's name may be far longer than PFX_PATH_MAX (a GNU long name
 * or a pax path, up to about 1 MiB), and a rule's cost grows faster than
 * the name: such a name is refused before any rule runs.  This rule took
 * over a minute on one 64 KiB name, hours on a 1 MiB one.
 */
Test(cli_xform, name_past_path_max, .timeout = 20)
{
	struct xtr_xforms *xs = NULL;
	char out[PFX_PATH_MAX], err[256];
	size_t len = 1u << 20;
	char *name = malloc(len + 1);

	cr_assert_not_null(name);
	memset(name, 'a', len);
	name[len] = '\0';
	cr_assert_eq(xtr_xform_add(&xs, "s/a[^b]*b\\|a//g", false, err,
	    sizeof(err)), 0, "%s", err);
	cr_expect_eq(xtr_xform_apply(xs, PFX_NAME_ENTRY, name, out,
	    sizeof(out), NULL, NULL), 2);
	/* The longest name a path may be is still transformed. */
	name[PFX_PATH_MAX - 1] = '\0';
	cr_expect_eq(xtr_xform_apply(xs, PFX_NAME_ENTRY, name, out,
	    sizeof(out), NULL, NULL), 1);
	cr_expect_str_empty(out);
	xtr_xforms_free(xs);
	free(name);
}

/*
 * What GNU tar 1.34 refuses when it parses --transform (exit 2 there,
 * before any archive is read), refused here at xtr_xform_add() too.
 * WANT is in the message; BACKREF rows must say GNU tar's words.
 */
struct xform_bad {
	const char *expr;
	const char *want;
};

#define OUT_OF_RANGE "Invalid transform replacement: back reference out of " \
	"range"

static const struct xform_bad xform_bad_rows[] = {
	/* \N past the regex's groups: every name would become "", every
	 * entry be skipped, and the exit status 0. */
	{ "s/.*/\\1/", OUT_OF_RANGE },
	{ "s/a/\\9/", OUT_OF_RANGE },
	{ "s/\\(a\\)/\\2/", OUT_OF_RANGE },
	{ "s/(a)/\\1/", OUT_OF_RANGE },		/* basic: no group */
	{ "s/\\(a\\)/\\10/", OUT_OF_RANGE },	/* \10, not \1 and 0 */
	{ "s/a/b/;s/b/\\1/", OUT_OF_RANGE },
	{ "s/a/\\1/;s/b/c/q", OUT_OF_RANGE },	/* the first error first */
	{ "s/a/b/q", "unknown flag 'q'" },
	{ "s/a/b/ ", "unknown flag ' '" },
	{ "s/a/b/p", "unknown flag 'p'" },
	{ "s\\a\\\\b\\", "unknown flag 'b'" },	/* '\' delimits, always */
	{ "flags=q;s/a/b/", "unknown flag 'q'" },
	{ "s/a/b", "unterminated" },
	{ "s/", "unterminated" },
	{ "s", "missing delimiter" },
	{ "y/a/b/", "only s/regex/replacement/" },
	{ "s/a/b/;;s/c/d/", "only s/regex/replacement/" },
	{ ";", "only s/regex/replacement/" },
	{ "s/a\\{1/b/", "invalid transform expression" },
};

Test(cli_xform, refused_as_gnu_tar)
{
	struct xtr_xforms *xs;
	char err[256];
	size_t i;

	for (i = 0; i < sizeof(xform_bad_rows) / sizeof(xform_bad_rows[0]);
	    i++) {
		const struct xform_bad *r = &xform_bad_rows[i];

		xs = NULL;
		err[0] = '\0';
		cr_expect_eq(xtr_xform_add(&xs, r->expr, false, err,
		    sizeof(err)), -1, "%s: accepted", r->expr);
		if (strcmp(r->want, OUT_OF_RANGE) == 0)
			cr_expect_str_eq(err, OUT_OF_RANGE, "%s", r->expr);
		else
			cr_expect(strstr(err, r->want) != NULL,
			    "%s: \"%s\", want \"%s\"", r->expr, err, r->want);
		xtr_xforms_free(xs);
	}
	/* bsdtar's -s rules keep theirs: an \N past the groups is empty. */
	expect_xform(R("/a/<\\1>/"), true, NULL, PFX_NAME_ENTRY, "abc",
	    "<>bc");
	cr_expect(xtr_xform_is_bsd_rule("/a/\\1/"));
}

/* What GNU tar 1.34 accepts that looks odd, accepted the same way. */
Test(cli_xform, accepted_as_gnu_tar)
{
	struct xtr_xforms *xs = NULL;
	char err[256];

	/* An empty expression is none; an empty regex matches "". */
	cr_expect_eq(xtr_xform_add(&xs, "", false, err, sizeof(err)), 0,
	    "%s", err);
	xtr_xforms_free(xs);
	expect_xform(R("s//b/"), false, NULL, PFX_NAME_ENTRY, "abc", "babc");
	expect_xform(R("s/a/b/;"), false, NULL, PFX_NAME_ENTRY, "abc", "bbc");
	/* Any delimiter: a backslash (never an escape then), a newline. */
	expect_xform(R("s\\a\\b\\"), false, NULL, PFX_NAME_ENTRY, "abc",
	    "bbc");
	expect_xform(R("s\na\nb\n"), false, NULL, PFX_NAME_ENTRY, "abc",
	    "bbc");
	/* \N is all its digits: \10 is the tenth group, \01 the first. */
	expect_xform(R("s/\\(a\\)\\(b\\)\\(c\\)\\(d\\)\\(e\\)\\(f\\)\\(g\\)"
	    "\\(h\\)\\(i\\)\\(j\\)/<\\10\\1>/"), false, NULL, PFX_NAME_ENTRY,
	    "abcdefghijk", "<ja>k");
	expect_xform(R("s/\\(a\\)/<\\01>/"), false, NULL, PFX_NAME_ENTRY,
	    "abc", "<a>bc");
	expect_xform(R("s/(a)(b)/\\2\\1/x"), false, NULL, PFX_NAME_ENTRY,
	    "ab", "ba");
	/* "flags=" sets the scope of the rules after it, from none, in
	 * later expressions too; a rule's own flags still change it. */
	expect_xform(R("flags=r;s/a/b/"), false, NULL, PFX_NAME_ENTRY, "a",
	    "b");
	expect_xform(R("flags=r;s/a/b/"), false, NULL, PFX_NAME_SYMLINK, "a",
	    NULL);
	expect_xform(R("flags=R;s/a/b/"), false, NULL, PFX_NAME_ENTRY, "a",
	    NULL);
	expect_xform(R("flags=;s/a/b/h"), false, NULL, PFX_NAME_HARDLINK,
	    "a", "b");
	expect_xform(R("flags=;s/a/b/h"), false, NULL, PFX_NAME_ENTRY, "a",
	    NULL);
	expect_xform(R("flags=S", "s/a/b/"), false, NULL, PFX_NAME_ENTRY,
	    "a", NULL);
	expect_xform(R("flags=rS", "s/a/b/"), false, NULL, PFX_NAME_ENTRY,
	    "a", "b");
	expect_xform(R("flags=rS", "s/a/b/"), false, NULL, PFX_NAME_SYMLINK,
	    "a", NULL);
}
