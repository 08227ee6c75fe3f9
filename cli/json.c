/*
 * json.c -- JSON strings from untrusted bytes.  File names are bytes, not
 * text: the output must stay valid JSON whatever they hold, and one line
 * per record, so nothing raw below 0x20 ever reaches it.
 */
#include "json.h"

static int
is_cont(unsigned char c)
{
	return c >= 0x80 && c <= 0xbf;
}

/* see json.h */
size_t
json_utf8_seq_len(const unsigned char *s, size_t len)
{
	unsigned char c = s[0];
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	/* The second byte's range excludes overlongs and surrogates. */
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (len < n || s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < n; i++) {
		if (!is_cont(s[i]))
			return 0;
	}
	return n;
}

static void
put_escape(FILE *f, unsigned int code)
{
	static const char hex[] = "0123456789abcdef";

	fputs("\\u", f);
	putc(hex[(code >> 12) & 0xf], f);
	putc(hex[(code >> 8) & 0xf], f);
	putc(hex[(code >> 4) & 0xf], f);
	putc(hex[code & 0xf], f);
}

/* Write the ASCII byte C, escaped as JSON requires or as we prefer. */
static void
put_ascii(FILE *f, unsigned char c)
{
	switch (c) {
	case '"':
		fputs("\\\"", f);
		return;
	case '\\':
		fputs("\\\\", f);
		return;
	case '\b':
		fputs("\\b", f);
		return;
	case '\f':
		fputs("\\f", f);
		return;
	case '\n':
		fputs("\\n", f);
		return;
	case '\r':
		fputs("\\r", f);
		return;
	case '\t':
		fputs("\\t", f);
		return;
	}
	if (c < 0x20 || c == 0x7f)
		put_escape(f, c);
	else
		putc(c, f);
}

/* see json.h */
void
json_put_string(FILE *f, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, n;

	putc('"', f);
	while (i < len) {
		n = json_utf8_seq_len(p + i, len - i);
		if (n == 0) {
			put_escape(f, 0xfffd);
			i++;
		} else if (n == 1) {
			put_ascii(f, p[i]);
			i++;
		} else if (n == 2 && p[i] == 0xc2 && p[i + 1] <= 0x9f) {
			/* C1 controls: U+0085 (NEL) ends lines for Python's
			 * str.splitlines(), and U+009B is a CSI. */
			put_escape(f, p[i + 1]);
			i += n;
		} else if (n == 3 && p[i] == 0xe2 && p[i + 1] == 0x80 &&
		    (p[i + 2] == 0xa8 || p[i + 2] == 0xa9)) {
			/* U+2028 and U+2029 end lines in JavaScript. */
			put_escape(f, p[i + 2] == 0xa8 ? 0x2028 : 0x2029);
			i += n;
		} else {
			fwrite(p + i, 1, n, f);
			i += n;
		}
	}
	putc('"', f);
}
