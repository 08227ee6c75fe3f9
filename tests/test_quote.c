/*
 * test_quote.c -- cli/quote.c against GNU tar 1.34's own output for the
 * same names (quotearg's styles), and the rule that no control byte
 * reaches a terminal raw in any style.
 */
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "../cli/quote.h"

/* S quoted by Q into new memory. */
static char *
quoted(const struct quote *q, const char *s, bool colon, bool tty)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert(f != NULL);
	quote_put(f, q, s, strlen(s), colon, tty);
	cr_assert(fclose(f) == 0);
	return buf;
}

static void
expect(enum quote_style st, bool multibyte, const char *in,
    const char *want)
{
	struct quote q;
	char *got;

	quote_init(&q, multibyte, multibyte);
	q.style = st;
	got = quoted(&q, in, false, false);
	cr_expect_str_eq(got, want, "style %d, '%s'", (int)st, in);
	free(got);
}

/* The expected strings are what GNU tar 1.34 printed here for -tf with
 * --quoting-style (LC_ALL=C.UTF-8, and C for the unibyte rows). */
Test(quote, like_gnu_tar)
{
	const char *odd = "./t\tb\\c\177\200\377";

	/* The CLI's locale: the user's, or C.UTF-8 (cli/pfextract.c). */
	cr_assert(setlocale(LC_CTYPE, "C.UTF-8") != NULL);

	expect(QUOTE_ESCAPE, true, odd, "./t\\tb\\\\c\\177\\200\\377");
	expect(QUOTE_ESCAPE, true, "./nl\nx", "./nl\\nx");
	expect(QUOTE_ESCAPE, true, "./u\303\251", "./u\303\251");
	expect(QUOTE_ESCAPE, false, "./u\303\251", "./u\\303\\251");
	expect(QUOTE_ESCAPE, true, "a\302\200b", "a\\302\\200b");
	expect(QUOTE_C, true, "./nl\nx", "\"./nl\\nx\"");
	expect(QUOTE_C, true, "a\"b", "\"a\\\"b\"");
	expect(QUOTE_C_MAYBE, true, "./plain", "./plain");
	expect(QUOTE_C_MAYBE, true, "./nl\nx", "\"./nl\\nx\"");
	expect(QUOTE_SHELL, true, "./plain", "./plain");
	expect(QUOTE_SHELL, true, "a b", "'a b'");
	expect(QUOTE_SHELL, true, "it's", "\"it's\"");
	expect(QUOTE_SHELL_ALWAYS, true, "it's x", "\"it's x\"");
	expect(QUOTE_SHELL_ALWAYS, true, "it's!", "'it'\\''s!'");
	expect(QUOTE_SHELL_ALWAYS, true, "./plain", "'./plain'");
	expect(QUOTE_SHELL_ESCAPE, true, "./nl\nx", "'./nl'$'\\n''x'");
	expect(QUOTE_LOCALE, true, "a", "\342\200\230a\342\200\231");
	expect(QUOTE_CLOCALE, false, "a", "\"a\"");
	expect(QUOTE_LITERAL, true, "a\\b", "a\\b");
}

/* tar's messages quote ':' too ("x\:y"); --quote-chars adds bytes. */
Test(quote, colon_and_extra_chars)
{
	struct quote q;
	char *got;

	quote_init(&q, true, true);
	got = quoted(&q, "x:y", true, false);
	cr_expect_str_eq(got, "x\\:y");
	free(got);
	quote_set_chars(&q, "ai", true);
	got = quoted(&q, "abi", false, false);
	cr_expect_str_eq(got, "\\ab\\i");
	free(got);
	quote_set_chars(&q, "a", false);
	got = quoted(&q, "abi", false, false);
	cr_expect_str_eq(got, "ab\\i");
	free(got);
}

/* Every quoting style. */
static const enum quote_style all_styles[] = { QUOTE_LITERAL, QUOTE_SHELL,
    QUOTE_SHELL_ALWAYS, QUOTE_SHELL_ESCAPE, QUOTE_SHELL_ESCAPE_ALWAYS,
    QUOTE_C, QUOTE_C_MAYBE, QUOTE_ESCAPE, QUOTE_LOCALE, QUOTE_CLOCALE };

/* SECURITY: on a terminal no style writes a control byte raw. */
Test(quote, no_raw_control_on_a_tty)
{
	const char *evil = "a\033]0;owned\007\n\r\177\302\233b";
	struct quote q;
	size_t i, k;
	char *got;

	cr_assert(setlocale(LC_CTYPE, "C.UTF-8") != NULL);
	for (i = 0; i < sizeof(all_styles) / sizeof(all_styles[0]); i++) {
		quote_init(&q, true, true);
		q.style = all_styles[i];
		got = quoted(&q, evil, false, true);
		for (k = 0; got[k] != '\0'; k++) {
			unsigned char c = (unsigned char)got[k];

			cr_expect(c >= 0x20 && c != 0x7f &&
			    !(c == 0xc2 && (unsigned char)got[k + 1] < 0xa0),
			    "style %zu writes byte %#x raw: '%s'", i, c, got);
		}
		free(got);
	}
}

/*
 * SECURITY: on a terminal a bidi override or isolate (U+202E, U+2067...)
 * is escaped in every style, so that a name cannot turn the rest of its
 * line around; elsewhere the bytes are GNU tar's, raw.
 */
Test(quote, no_raw_bidi_control_on_a_tty)
{
	const char *evil = "x\342\200\256fdp.exe\342\201\247\342\200\217";
	struct quote q;
	size_t i;
	char *got;

	cr_assert(setlocale(LC_CTYPE, "C.UTF-8") != NULL);
	for (i = 0; i < sizeof(all_styles) / sizeof(all_styles[0]); i++) {
		quote_init(&q, true, true);
		q.style = all_styles[i];
		got = quoted(&q, evil, false, true);
		cr_expect(strstr(got, "\342\200\256") == NULL &&
		    strstr(got, "\342\201\247") == NULL &&
		    strstr(got, "\342\200\217") == NULL,
		    "style %zu writes a bidi control raw: '%s'", i, got);
		free(got);
	}
	expect(QUOTE_ESCAPE, true, "x\342\200\256y", "x\342\200\256y");
	quote_init(&q, true, true);
	got = quoted(&q, "x\342\200\256y", false, true);
	cr_expect_str_eq(got, "x\\342\\200\\256y");
	free(got);
}
