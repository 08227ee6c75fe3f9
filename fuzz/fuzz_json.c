/*
 * fuzz_json.c -- libFuzzer harness for json_put_string() (cli/json.c),
 * which writes every name pathfence(1) and pfextract --report=json print.
 *
 * The input is any bytes: a file name as an archive or a caller hands it
 * over.  They are written into a memory stream, and the output must be
 * one JSON string token and nothing else, by a strict validator written
 * here (RFC 8259 section 7, and section 8.1's "MUST be UTF-8"):
 *
 *   - it opens and closes with '"', and no other raw '"' is inside;
 *   - escapes are \" \\ \/ \b \f \n \r \t or \u and four hex digits, and
 *     a \u escape of a surrogate is a high one followed by a low one;
 *   - no raw byte below 0x20; the bytes are well-formed UTF-8 (no
 *     overlong forms, no surrogates, nothing past U+10FFFF).
 *
 * Beyond validity, json.h's own promises: DEL, the C1 controls, U+2028
 * and U+2029 never appear raw, and the string decodes back to the input
 * with each byte that is not part of a well-formed UTF-8 sequence replaced
 * by U+FFFD.
 * Any failure is an abort().
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "fuzz.h"

/* A code point, or the sign that none could be decoded. */
#define NO_CP 0xffffffffu

static void die(const char *fmt, ...)
    __attribute__((format(printf, 1, 2), noreturn));

static void
die(const char *fmt, ...)
{
	va_list ap;

	fputs("fuzz_json: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

/*
 * Decode one well-formed UTF-8 sequence at S (LEN bytes available), by
 * the table of Unicode 15 section 3.9 (D92), written out here rather than
 * taken from json.c.  Return: the code point with *N its length, or NO_CP.
 */
static unsigned int
utf8_decode(const unsigned char *s, size_t len, size_t *n)
{
	unsigned int cp, min;
	size_t need, i;

	if (s[0] < 0x80) {
		*n = 1;
		return s[0];
	}
	if ((s[0] & 0xe0) == 0xc0) {
		need = 2;
		cp = s[0] & 0x1fu;
		min = 0x80;
	} else if ((s[0] & 0xf0) == 0xe0) {
		need = 3;
		cp = s[0] & 0x0fu;
		min = 0x800;
	} else if ((s[0] & 0xf8) == 0xf0) {
		need = 4;
		cp = s[0] & 0x07u;
		min = 0x10000;
	} else {
		return NO_CP;
	}
	if (len < need)
		return NO_CP;
	for (i = 1; i < need; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return NO_CP;
		cp = cp << 6 | (s[i] & 0x3fu);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return NO_CP;
	*n = need;
	return cp;
}

static int
hex_value(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Read the four hex digits after "\u" at S (LEN bytes).  NO_CP if bad. */
static unsigned int
read_u4(const unsigned char *s, size_t len)
{
	unsigned int v = 0;
	size_t i;
	int h;

	if (len < 4)
		return NO_CP;
	for (i = 0; i < 4; i++) {
		h = hex_value(s[i]);
		if (h < 0)
			return NO_CP;
		v = v << 4 | (unsigned int)h;
	}
	return v;
}

/*
 * Validate OUT (LEN bytes) as one JSON string token and decode it into
 * CPS (room for LEN code points).  Return: the number of code points.
 */
static size_t
validate(const unsigned char *out, size_t len, unsigned int *cps)
{
	size_t i, n, ncp = 0;
	unsigned int cp, lo;

	if (len < 2 || out[0] != '"' || out[len - 1] != '"')
		die("not enclosed in quotes");
	for (i = 1; i < len - 1; i += n) {
		if (out[i] == '"')
			die("raw '\"' at %zu", i);
		if (out[i] < 0x20)
			die("raw control byte 0x%02x at %zu", out[i], i);
		if (out[i] == 0x7f)
			die("raw DEL at %zu", i);
		if (out[i] != '\\') {
			cp = utf8_decode(out + i, len - 1 - i, &n);
			if (cp == NO_CP)
				die("bad UTF-8 at %zu", i);
			if ((cp >= 0x80 && cp <= 0x9f) || cp == 0x2028 ||
			    cp == 0x2029)
				die("raw U+%04X at %zu", cp, i);
			cps[ncp++] = cp;
			continue;
		}
		if (i + 1 >= len - 1)
			die("'\\' at the end");
		n = 2;
		switch (out[i + 1]) {
		case '"':
			cp = '"';
			break;
		case '\\':
			cp = '\\';
			break;
		case '/':
			cp = '/';
			break;
		case 'b':
			cp = '\b';
			break;
		case 'f':
			cp = '\f';
			break;
		case 'n':
			cp = '\n';
			break;
		case 'r':
			cp = '\r';
			break;
		case 't':
			cp = '\t';
			break;
		case 'u':
			cp = read_u4(out + i + 2, len - 1 - (i + 2));
			if (cp == NO_CP)
				die("bad \\u escape at %zu", i);
			n = 6;
			if (cp >= 0xdc00 && cp <= 0xdfff)
				die("lone low surrogate at %zu", i);
			if (cp >= 0xd800 && cp <= 0xdbff) {
				if (i + 12 > len - 1 || out[i + 6] != '\\' ||
				    out[i + 7] != 'u')
					die("lone high surrogate at %zu", i);
				lo = read_u4(out + i + 8, len - 1 - (i + 8));
				if (lo == NO_CP || lo < 0xdc00 || lo > 0xdfff)
					die("lone high surrogate at %zu", i);
				cp = 0x10000 + ((cp - 0xd800) << 10) +
				    (lo - 0xdc00);
				n = 12;
			}
			break;
		default:
			die("bad escape \\%c at %zu", out[i + 1], i);
		}
		cps[ncp++] = cp;
	}
	return ncp;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned int *cps, cp;
	char *out = NULL;
	size_t outlen = 0, ncp, i, j, n;
	FILE *f;

	f = open_memstream(&out, &outlen);
	if (f == NULL)
		die("open_memstream failed");
	json_put_string(f, (const char *)data, size);
	if (ferror(f))
		die("stream error");
	if (fclose(f) != 0)
		die("fclose failed");
	if (memchr(out, '\0', outlen) != NULL)
		die("NUL byte in the output");

	cps = malloc((outlen > 0 ? outlen : 1) * sizeof(*cps));
	if (cps == NULL)
		die("out of memory");
	ncp = validate((const unsigned char *)out, outlen, cps);

	/* It decodes back to the input, ill-formed bytes as U+FFFD. */
	for (i = j = 0; i < size; i += n, j++) {
		cp = utf8_decode(data + i, size - i, &n);
		if (cp == NO_CP) {
			cp = 0xfffd;
			n = 1;
		}
		if (j >= ncp || cps[j] != cp)
			die("code point %zu: 0x%X in, 0x%X out", j, cp,
			    j < ncp ? cps[j] : NO_CP);
	}
	if (j != ncp)
		die("%zu code points in, %zu out", j, ncp);
	free(cps);
	free(out);
	return 0;
}
