/*
 * test_cli.c -- the tools' shared helpers: JSON strings from untrusted
 * bytes, and the PFEXTRACT_RESOLVER setting.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cli/json.h"
#include "../cli/resolver_env.h"

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
