/*
 * quote.h -- names written as GNU tar writes them: gnulib quotearg's
 * quoting styles (tar's --quoting-style, default "escape"), its
 * --quote-chars and --no-quote-chars.  Used by pfextract(1) only.
 */
#ifndef CLI_QUOTE_H
#define CLI_QUOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum quote_style {
	QUOTE_LITERAL = 0,
	QUOTE_SHELL,
	QUOTE_SHELL_ALWAYS,
	QUOTE_SHELL_ESCAPE,
	QUOTE_SHELL_ESCAPE_ALWAYS,
	QUOTE_C,
	QUOTE_C_MAYBE,
	QUOTE_ESCAPE,		/* GNU tar's default */
	QUOTE_LOCALE,
	QUOTE_CLOCALE
};

struct quote {
	enum quote_style style;
	uint32_t chars[256 / 32];	/* --quote-chars: also escaped */
	bool multibyte;		/* the user's locale is multibyte (UTF-8):
				   printable characters are kept */
	bool utf8_quotes;	/* locale styles use U+2018/U+2019 */
};

/* Set *Q to GNU tar's defaults: escape, no extra characters.  MULTIBYTE:
 * the user's own locale (before pfextract changed it) is multibyte;
 * UTF8: it is UTF-8. */
void quote_init(struct quote *q, bool multibyte, bool utf8);

/* Parse a --quoting-style NAME.  Return: 0 and *STYLE, or -1. */
int quote_style_parse(const char *name, enum quote_style *style);

/* Add (ON) or remove the bytes of CHARS from the extra quoted set. */
void quote_set_chars(struct quote *q, const char *chars, bool on);

/*
 * Write S (LEN bytes, hostile) to F as Q says; with COLON, ':' is
 * quoted too (tar's messages: quotearg_colon).  SECURITY: whatever the
 * style, when F is a terminal (TTY) a control byte (C0, DEL, C1, or a
 * byte outside the locale's encoding) is never written raw: the styles
 * that would (literal, shell, shell-always) write it as \ooo there.
 */
void quote_put(FILE *f, const struct quote *q, const char *s, size_t len,
    bool colon, bool tty);

#endif /* CLI_QUOTE_H */
