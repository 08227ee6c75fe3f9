/*
 * quote.c -- gnulib quotearg's quoting, as GNU tar 1.34 writes names in
 * listings and messages (quote.h).  The rules follow gnulib's
 * quotearg_buffer_restyled(): a style says whether bytes are escaped
 * with '\' (c, escape, locale, clocale, shell-escape*), whether the name
 * is put between quotes, and whether those quotes are left out when
 * nothing needs them (shell, shell-escape, c-maybe).  Printable means:
 * printable ASCII in a unibyte locale, iswprint() of a whole character
 * in a multibyte one.  Not done: C trigraphs, NUL bytes (a name has
 * none).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <wctype.h>

#include "quote.h"

/* Output, grown as needed; a failed allocation writes nothing more. */
struct obuf {
	char *p;
	size_t len, cap;
	bool failed;
};

static void
out(struct obuf *o, char c)
{
	char *np;
	size_t ncap;

	if (o->failed)
		return;
	if (o->len == o->cap) {
		ncap = o->cap == 0 ? 256 : o->cap * 2;
		np = realloc(o->p, ncap);
		if (np == NULL) {
			o->failed = true;
			return;
		}
		o->p = np;
		o->cap = ncap;
	}
	o->p[o->len++] = c;
}

static void
outs(struct obuf *o, const char *s)
{
	for (; *s != '\0'; s++)
		out(o, *s);
}

static const struct {
	const char *name;
	enum quote_style style;
} styles[] = {
	{ "literal", QUOTE_LITERAL },
	{ "shell", QUOTE_SHELL },
	{ "shell-always", QUOTE_SHELL_ALWAYS },
	{ "shell-escape", QUOTE_SHELL_ESCAPE },
	{ "shell-escape-always", QUOTE_SHELL_ESCAPE_ALWAYS },
	{ "c", QUOTE_C },
	{ "c-maybe", QUOTE_C_MAYBE },
	{ "escape", QUOTE_ESCAPE },
	{ "locale", QUOTE_LOCALE },
	{ "clocale", QUOTE_CLOCALE },
};

/* see quote.h */
int
quote_style_parse(const char *name, enum quote_style *style)
{
	size_t i;

	for (i = 0; i < sizeof(styles) / sizeof(styles[0]); i++) {
		if (strcmp(styles[i].name, name) == 0) {
			*style = styles[i].style;
			return 0;
		}
	}
	return -1;
}

/* see quote.h */
void
quote_init(struct quote *q, bool multibyte, bool utf8)
{
	memset(q, 0, sizeof(*q));
	q->style = QUOTE_ESCAPE;
	q->multibyte = multibyte;
	q->utf8_quotes = utf8;
}

/* see quote.h */
void
quote_set_chars(struct quote *q, const char *chars, bool on)
{
	const unsigned char *u = (const unsigned char *)chars;

	for (; *u != '\0'; u++) {
		if (on)
			q->chars[*u / 32] |= 1u << (*u % 32);
		else
			q->chars[*u / 32] &= ~(1u << (*u % 32));
	}
}

/* What one pass needs; a pass that finds the quotes it elided needed
 * returns FORCE and is run again without eliding. */
struct pass {
	const struct quote *q;
	enum quote_style style;	/* after gnulib's folding */
	bool backslash;		/* escapes with '\' */
	bool elide;		/* leave the outer quotes out if possible */
	bool extra;		/* the --quote-chars set applies */
	bool colon;
	bool tty;
	const char *rquote;	/* the closing quote, or "" */
	bool pending_end;	/* shell-escape: inside a $'...' part */
	bool escaping;
	bool single_quote;	/* a '\'' was met */
	bool all_compat;	/* every character reads the same between
				   C's double quotes as in the shell's */
};

#define FORCE (-1)
#define USE_C (-2)

/*
 * gnulib's c_and_shell_quote_compat for the ASCII byte C at I of a name
 * of LEN bytes: false for what the shell and C read differently, or
 * what needs an escape.
 */
static bool
compat_ascii(unsigned char c, size_t i, size_t len)
{
	if (c < 0x20 || c == 0x7f || c == '?' || c == '\\')
		return false;
	if (strchr("!\"$&()*;<=>[^`|", c) != NULL)
		return false;
	if (c == '#' || c == '~')
		return i == 0;
	if (c == '{' || c == '}')
		return len == 1;
	return true;
}

/* Is byte C in the extra set (--quote-chars, or the colon)? */
static bool
extra_char(const struct pass *p, unsigned char c)
{
	if (!p->extra)
		return false;
	if (c == ':' && p->colon)
		return true;
	return (p->q->chars[c / 32] >> (c % 32) & 1) != 0;
}

/* gnulib's START_ESC: Return 0, or FORCE. */
static int
start_esc(struct pass *p, struct obuf *o)
{
	if (p->elide)
		return FORCE;
	p->escaping = true;
	if (p->style == QUOTE_SHELL_ALWAYS && !p->pending_end) {
		outs(o, "'$'");
		p->pending_end = true;
	}
	out(o, '\\');
	return 0;
}

/* gnulib's END_ESC. */
static void
end_esc(struct pass *p, struct obuf *o)
{
	if (p->pending_end && !p->escaping) {
		outs(o, "''");
		p->pending_end = false;
	}
}

/*
 * Is W one of Unicode's bidirectional controls (the embeddings,
 * overrides and isolates, the marks)?  glibc calls them printable, and
 * GNU tar writes them raw; on a terminal that renders bidi text, U+202E
 * shows the rest of the line backwards ("x<U+202E>fdp.exe" reads as
 * "xexe.pdf"), and can turn a refusal's reason around.
 */
static bool
bidi_control(wchar_t w)
{
	return w == 0x061c || w == 0x200e || w == 0x200f ||
	    (w >= 0x202a && w <= 0x202e) || (w >= 0x2066 && w <= 0x2069);
}

/*
 * The length of the character at S (LEFT bytes) and whether it is
 * printable in the user's locale; on a terminal, a bidi control is not.
 */
static size_t
char_at(const struct pass *p, const unsigned char *s, size_t left,
    bool *printable)
{
	mbstate_t st;
	wchar_t w;
	size_t n;

	if (!p->q->multibyte || s[0] < 0x80) {
		*printable = s[0] >= 0x20 && s[0] < 0x7f;
		return 1;
	}
	memset(&st, 0, sizeof(st));
	n = mbrtowc(&w, (const char *)s, left, &st);
	if (n == (size_t)-1 || n == (size_t)-2 || n == 0) {
		*printable = false;
		return 1;
	}
	*printable = iswprint((wint_t)w) != 0 &&
	    !(p->tty && bidi_control(w));
	return n;
}

/* One pass over S.  Return: 0, or FORCE. */
static int
quote_pass(struct pass *p, const char *s, size_t len, struct obuf *o)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i, m, k, rlen = strlen(p->rquote);
	bool printable, is_rquote;
	unsigned char c;
	char esc;

	p->all_compat = true;
	for (i = 0; i < len; i++) {
		c = u[i];
		if (c < 0x80 && !compat_ascii(c, i, len))
			p->all_compat = false;
		if (c == '\'')
			p->single_quote = true;
		p->escaping = false;
		is_rquote = false;
		esc = 0;
		if (p->backslash && p->style != QUOTE_SHELL_ALWAYS &&
		    rlen > 0 && i + rlen <= len &&
		    memcmp(s + i, p->rquote, rlen) == 0) {
			if (p->elide)
				return FORCE;
			is_rquote = true;
		}
		switch (c) {
		case '\a': esc = 'a'; break;
		case '\b': esc = 'b'; break;
		case '\f': esc = 'f'; break;
		case '\n': esc = 'n'; break;
		case '\r': esc = 'r'; break;
		case '\t': esc = 't'; break;
		case '\v': esc = 'v'; break;
		case '\\': esc = '\\'; break;
		default: break;
		}
		if (esc == '\\') {
			if (p->style == QUOTE_SHELL_ALWAYS) {
				if (p->elide)
					return FORCE;
				goto store_c;
			}
			if (p->backslash && p->elide && rlen > 0)
				goto store_c;
		}
		if (esc != 0) {
			if ((esc == 'n' || esc == 'r' || esc == 't' ||
			    esc == '\\') && p->style == QUOTE_SHELL_ALWAYS &&
			    p->elide)
				return FORCE;
			if (p->backslash) {
				c = (unsigned char)esc;
				goto store_escape;
			}
			if (p->tty)
				goto octal;
			goto check_extra;
		}
		if (c == '?' && p->style == QUOTE_SHELL_ALWAYS && p->elide)
			return FORCE;
		if (strchr(" !\"$&()*;<=>[^`|", c) != NULL ||
		    ((c == '#' || c == '~') && i == 0) ||
		    ((c == '{' || c == '}') && len == 1)) {
			if (p->style == QUOTE_SHELL_ALWAYS && p->elide)
				return FORCE;
			goto check_extra;
		}
		if (c == '\'') {
			if (p->style == QUOTE_SHELL_ALWAYS) {
				if (p->elide)
					return FORCE;
				outs(o, "'\\''");
				p->pending_end = false;
				continue;
			}
			goto check_extra;
		}
		if (c >= 0x20 && c < 0x7f)
			goto check_extra;
		m = char_at(p, u + i, len - i, &printable);
		if (!printable)
			p->all_compat = false;
		if (m > 1 || ((p->backslash || p->tty) && !printable)) {
			for (k = 0; k < m; k++) {
				c = u[i + k];
				if (!printable) {
					if (p->backslash) {
						if (start_esc(p, o) == FORCE)
							return FORCE;
					} else {
						/* SECURITY: see quote.h. */
						out(o, '\\');
					}
					out(o, (char)('0' + (c >> 6)));
					out(o, (char)('0' + ((c >> 3) & 7)));
					out(o, (char)('0' + (c & 7)));
					continue;
				}
				if (is_rquote) {
					out(o, '\\');
					is_rquote = false;
				}
				end_esc(p, o);
				out(o, (char)c);
			}
			i += m - 1;
			continue;
		}
		goto check_extra;
octal:
		/* SECURITY: a control byte never reaches a terminal raw. */
		out(o, '\\');
		out(o, (char)('0' + (c >> 6)));
		out(o, (char)('0' + ((c >> 3) & 7)));
		out(o, (char)('0' + (c & 7)));
		continue;
check_extra:
		if (!(((p->backslash && p->style != QUOTE_SHELL_ALWAYS) ||
		    p->elide) && extra_char(p, c)) && !is_rquote)
			goto store_c;
store_escape:
		if (start_esc(p, o) == FORCE)
			return FORCE;
store_c:
		end_esc(p, o);
		out(o, (char)c);
	}
	if (len == 0 && p->style == QUOTE_SHELL_ALWAYS && p->elide)
		return FORCE;
	/* gnulib: a name whose only trouble is a single quote is
	 * written between C's double quotes instead. */
	if (p->style == QUOTE_SHELL_ALWAYS && !p->elide && p->single_quote &&
	    p->all_compat)
		return USE_C;
	if (!p->elide)
		outs(o, p->rquote);
	return 0;
}

/* Set up P for STYLE as gnulib folds it, the opening quote written to
 * O. */
static void
begin(struct pass *p, enum quote_style style, bool elide, struct obuf *o)
{
	const char *lq, *rq;

	p->backslash = false;
	p->elide = elide;
	p->rquote = "";
	p->pending_end = false;
	switch (style) {
	case QUOTE_C_MAYBE:
		p->elide = true;
		/* FALLTHROUGH */
	case QUOTE_C:
		p->style = QUOTE_C;
		if (!p->elide)
			out(o, '"');
		p->backslash = true;
		p->rquote = "\"";
		break;
	case QUOTE_ESCAPE:
		p->style = QUOTE_ESCAPE;
		p->backslash = true;
		p->elide = false;
		break;
	case QUOTE_LOCALE:
	case QUOTE_CLOCALE:
		p->style = style;
		if (p->q->utf8_quotes) {
			lq = "\xe2\x80\x98";
			rq = "\xe2\x80\x99";
		} else {
			lq = rq = style == QUOTE_CLOCALE ? "\"" : "'";
		}
		p->backslash = true;
		p->elide = false;
		outs(o, lq);
		p->rquote = rq;
		break;
	case QUOTE_SHELL_ESCAPE:
	case QUOTE_SHELL:
	case QUOTE_SHELL_ESCAPE_ALWAYS:
	case QUOTE_SHELL_ALWAYS:
		/* shell and shell-escape leave the quotes out if they can;
		 * the -escape styles write $'\ooo' parts. */
		p->elide = elide && (style == QUOTE_SHELL ||
		    style == QUOTE_SHELL_ESCAPE);
		p->backslash = style == QUOTE_SHELL_ESCAPE ||
		    style == QUOTE_SHELL_ESCAPE_ALWAYS;
		p->style = QUOTE_SHELL_ALWAYS;
		if (!p->elide)
			out(o, '\'');
		p->rquote = "'";
		break;
	case QUOTE_LITERAL:
		p->style = QUOTE_LITERAL;
		p->elide = false;
		break;
	}
}

/* A fresh pass P over Q's settings; EXTRA: the extra set applies. */
static void
start(struct pass *p, const struct quote *q, bool colon, bool tty,
    bool extra)
{
	memset(p, 0, sizeof(*p));
	p->q = q;
	p->colon = colon;
	p->tty = tty;
	p->extra = extra;
}

/* see quote.h */
void
quote_put(FILE *f, const struct quote *q, const char *s, size_t len,
    bool colon, bool tty)
{
	struct obuf o = { NULL, 0, 0, false };
	struct pass p;
	enum quote_style style = q->style;
	bool elide = style == QUOTE_SHELL || style == QUOTE_SHELL_ESCAPE ||
	    style == QUOTE_C_MAYBE;
	bool extra = true;
	int r;

	start(&p, q, colon, tty, true);
	begin(&p, style, elide, &o);
	r = quote_pass(&p, s, len, &o);
	if (r == FORCE) {
		/* gnulib's force_outer_quoting_style: the outer quotes are
		 * needed after all; without the extra set. */
		if (p.style == QUOTE_SHELL_ALWAYS && p.backslash)
			style = QUOTE_SHELL_ESCAPE_ALWAYS;
		else if (p.style == QUOTE_SHELL_ALWAYS)
			style = QUOTE_SHELL_ALWAYS;
		else
			style = p.style;
		o.len = 0;
		start(&p, q, colon, tty, false);
		begin(&p, style, false, &o);
		r = quote_pass(&p, s, len, &o);
		extra = false;
	}
	if (r == USE_C) {
		o.len = 0;
		start(&p, q, colon, tty, extra);
		begin(&p, QUOTE_C, false, &o);
		(void)quote_pass(&p, s, len, &o);
	}
	if (!o.failed && o.len > 0)
		fwrite(o.p, 1, o.len, f);
	free(o.p);
}
