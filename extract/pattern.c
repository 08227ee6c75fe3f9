/*
 * pattern.c -- the patterns of member selection, matched in O(n * m) time
 * for a name of n bytes and a pattern of m bytes, with no recursion.
 *
 * The language is fnmatch(3)'s with FNM_LEADING_DIR alone, as glibc's
 * matcher reads it in its single-byte path: '*' and '?' match any byte,
 * '/' included; '\' escapes the next byte; a bracket expression takes
 * '!' (or '^', unless XTR_GLOB_POSIX) for negation, ranges in
 * byte order, [:class:] (wctype(3)), and [=c=] and [.c.] of one byte;
 * an unterminated '[' is an ordinary byte; and a name matches if the
 * whole pattern matches it or a part of it that a '/' follows.  On
 * request (GNU tar's --ignore-case, --no-wildcards-match-slash) also
 * FNM_CASEFOLD, ASCII only, and FNM_PATHNAME, with glibc's quirks: [=c=]
 * and a lone [.c.] compare the byte unfolded, and "\/" right after a
 * star never matches.
 *
 * The algorithm is glibc's own order of trying (tests/test_match.c
 * compares the two on random patterns and names): a '*' first tries to
 * match nothing, and on a mismatch the last '*' seen takes one byte more.
 * No earlier '*' is ever tried again: the part between two stars is a
 * fixed run of single-byte elements, so its leftmost match leaves the
 * most name for what follows, and a later match could only leave less.
 * Each try compares at most m elements before it fails, and there are at
 * most n + 1 tries per star, each starting further right than the last:
 * at most (n + 1) * (m + 1) element comparisons in all.
 */
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <wctype.h>

#include "pattern.h"

/* glibc's bound on a class name ([:name:]) in a bracket expression. */
#define CLASS_MAX 256

/* How to compare: xtr_glob()'s flags, read once. */
struct how {
	bool caret;	/* '^' negates a bracket expression, as '!' */
	bool fold;	/* XTR_GLOB_FOLD: ASCII case does not count */
	bool noslash;	/* XTR_GLOB_NOSLASH: only '/' matches '/' */
};

/* C as H compares it: folded to lower case under XTR_GLOB_FOLD. */
static unsigned int
fold(const struct how *h, unsigned int c)
{
	return h->fold && c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

/* Scan a "[." ... ".]" symbol whose '.' is at *PP; return its length, or
 * -1 if it never ends.  *PP is left just past the ".]". */
static long
coll_symbol(const unsigned char **pp)
{
	const unsigned char *p = *pp;
	long len = 0;

	for (;;) {
		p++;
		if (p[0] == '.' && p[1] == ']')
			break;
		if (p[0] == '\0')
			return -1;
		len++;
	}
	*pp = p + 2;
	return len;
}

/*
 * Skip the rest of a bracket expression whose member matched, from P.
 * Return: the pattern after its ']', or NULL if it does not end well
 * (glibc's matcher then fails the match at this byte).
 */
static const unsigned char *
skip_bracket(const unsigned char *p)
{
	const unsigned char *start;
	unsigned int c;
	int len;

	while ((c = *p++) != ']') {
		if (c == '\0')
			return NULL;
		if (c == '\\') {
			if (*p == '\0')
				return NULL;
			p++;
		} else if (c == '[' && *p == ':') {
			start = p;
			for (len = 1;; len++) {
				c = *++p;
				if (len == CLASS_MAX)
					return NULL;
				if (c == ':' && p[1] == ']') {
					p += 2;
					break;
				}
				if (c < 'a' || c >= 'z') {
					p = start;
					break;
				}
			}
		} else if (c == '[' && *p == '=') {
			if (p[1] == '\0' || p[2] != '=' || p[3] != ']')
				return NULL;
			p += 4;
		} else if (c == '[' && *p == '.') {
			if (coll_symbol(&p) < 0)
				return NULL;
		}
	}
	return p;
}

/*
 * Match the bracket expression at P (its '[') against the byte RAW, FN
 * once folded as H says: glibc folds the members and ranges too, but
 * compares [=c=] and a lone [.c.] with the byte as it is.
 * Return: the pattern after the expression if it matches, else NULL.
 * An unterminated expression is the ordinary byte '['.
 */
static const char *
bracket(const char *pat, unsigned int fn, unsigned int raw,
    const struct how *h)
{
	const unsigned char *p = (const unsigned char *)pat + 1, *start;
	char name[CLASS_MAX + 1];
	unsigned int c, lo, hi;
	bool neg, range, class;
	wctype_t wt;
	long len;

	neg = *p == '!' || (h->caret && *p == '^');
	if (neg)
		p++;
	c = *p++;
	for (;;) {
		if (c == '\0')
			return fn == '[' ? pat + 1 : NULL;
		if (c == '[' && *p == ':') {
			start = p;
			class = false;
			for (len = 0;; len++) {
				if (len == CLASS_MAX)
					return NULL;
				c = *++p;
				class = c == ':' && p[1] == ']';
				if (class || c < 'a' || c >= 'z')
					break;
				name[len] = (char)c;
			}
			if (class) {
				p += 2;
				name[len] = '\0';
				wt = wctype(name);
				if (wt == 0)
					return NULL;
				if (iswctype(btowc((int)fn), wt))
					goto matched;
				c = *p++;
				goto next;
			}
			p = start;	/* not a class: '[' is a member */
			c = '[';
		} else if (c == '[' && *p == '=' && p[1] != '\0' &&
		    p[2] == '=' && p[3] == ']') {
			p += 4;
			if (raw == p[-3])
				goto matched;
			c = *p++;
			goto next;
		}
		if (c == '[' && *p == '.') {
			/* A collating symbol: one byte, then maybe a range. */
			start = p;
			len = coll_symbol(&p);
			if (len != 1)
				return NULL;
			range = p[0] == '-' && p[1] != '\0';
			lo = range ? fold(h, start[1]) : start[1];
			if (!range && raw == lo)
				goto matched;
		} else {
			if (c == '\\') {
				if (*p == '\0')
					return NULL;
				c = *p++;
			}
			range = p[0] == '-' && p[1] != '\0' && p[1] != ']';
			lo = fold(h, c);
			if (!range && fn == lo)
				goto matched;
		}
		c = *p++;
		if (c == '-' && *p != ']') {
			hi = *p++;
			if (hi == '[' && *p == '.') {
				start = p;
				if (coll_symbol(&p) != 1)
					return NULL;
				hi = start[1];
			} else {
				if (hi == '\\')
					hi = *p++;
				if (hi == '\0')
					return NULL;
			}
			hi = fold(h, hi);
			if (lo <= fn && fn <= hi)
				goto matched;
			c = *p++;
		}
next:
		if (c == ']')
			break;
	}
	return neg ? (const char *)p : NULL;
matched:
	if (neg)
		return NULL;
	return (const char *)skip_bracket(p);
}

/*
 * Match the element at P (not '*', not the end) against the byte C.
 * Return: the pattern after the element if it matches, else NULL.
 */
static const char *
element(const char *p, unsigned char c, const struct how *h)
{
	if (c == '/' && h->noslash)	/* FNM_PATHNAME: '/' matches '/' */
		return *p == '/' ? p + 1 :
		    p[0] == '\\' && p[1] == '/' ? p + 2 : NULL;
	switch (*p) {
	case '?':
		return p + 1;
	case '\\':
		return p[1] != '\0' && fold(h, (unsigned char)p[1]) ==
		    fold(h, c) ? p + 2 : NULL;
	case '[':
		return bracket(p, fold(h, c), c, h);
	default:
		return fold(h, (unsigned char)*p) == fold(h, c) ? p + 1 : NULL;
	}
}

/* Where the run of '/'s that ends [NAME, END) starts (END if none). */
static const char *
trailing_slashes(const char *name, const char *end)
{
	while (end > name && end[-1] == '/')
		end--;
	return end;
}

/* The last '/' in [NAME, END), or NULL. */
static const char *
last_slash(const char *name, const char *end)
{
	while (end > name)
		if (*--end == '/')
			return end;
	return NULL;
}

/* see pattern.h */
unsigned int
xtr_glob_posix(const struct pfx_options *opt)
{
	return (opt->flags & PFX_OPT_POSIX_GLOB) != 0 ? XTR_GLOB_POSIX : 0;
}

/* see pattern.h */
bool
xtr_glob(const char *pat, const char *name, unsigned int flags,
    uint64_t *work)
{
	struct how h = { (flags & XTR_GLOB_POSIX) == 0,
	    (flags & XTR_GLOB_FOLD) != 0, (flags & XTR_GLOB_NOSLASH) != 0 };
	bool whole = (flags & XTR_GLOB_WHOLE) != 0;
	const char *p = pat, *n = name, *end = name + strlen(name), *next;
	const char *sp = NULL, *sn = NULL;	/* the last '*': resume here */
	const char *tn = NULL;	/* XTR_GLOB_TAIL: the tail being tried */
	const char *trail = NULL, *inner = NULL, *slash;
	uint64_t count = 0;
	bool ok;

	if (flags & XTR_GLOB_TRIM)
		while (end > name + 1 && end[-1] == '/')
			end--;
	/*
	 * XTR_GLOB_WHOLE asks, wherever PAT may end, whether only '/'s
	 * follow (TRAIL: where they start) and, at the end of a star under
	 * XTR_GLOB_NOSLASH, whether a '/' comes before them (INNER: the
	 * last one that does).  Found once here: a scan at each place,
	 * each try, made a long run of '/'s quadratic.
	 */
	if (whole) {
		trail = trailing_slashes(name, end);
		inner = last_slash(name, trail);
	}
	/*
	 * XTR_GLOB_TAIL: PAT matches a tail of NAME after a '/' iff
	 * "*" "/" PAT matches NAME, since '*' matches '/' too.  That
	 * leading star is kept implicit: it resumes only where a tail
	 * starts, and like any star it is given up for good once PAT's own
	 * first '*' is reached -- the leftmost tail to get there leaves the
	 * most name to the rest (see the head comment).  Under
	 * XTR_GLOB_NOSLASH no star crosses a '/', so that argument fails
	 * and the tails are kept: a try from one tail ends within s + 1
	 * segments of NAME for a PAT of s slashes, so each byte of NAME is
	 * compared by at most s + 1 tries.
	 */
	if (flags & XTR_GLOB_TAIL)
		tn = name;
	for (;;) {
		if (*p == '*') {
			while (*p == '*' || *p == '?') {
				if (*p == '?') {
					if (n == end) {
						ok = false;
						goto out;
					}
					if (h.noslash && *n == '/')
						goto mismatch;
					n++;
				}
				p++;
			}
			if (!h.noslash)
				tn = NULL;
			if (*p == '\0') {
				/* FNM_LEADING_DIR, with FNM_PATHNAME: the
				 * star must not reach past a '/' that more
				 * than '/'s follow. */
				if (!h.noslash || !whole || inner == NULL ||
				    n > inner) {
					ok = true;
					goto out;
				}
				goto mismatch;
			}
			/* glibc under FNM_PATHNAME: what follows a star is
			 * tried before the next '/' only, and "\/" fails. */
			if (h.noslash && p[0] == '\\' && p[1] == '/') {
				sp = NULL;
				goto mismatch;
			}
			sp = p;
			sn = n;
			continue;
		}
		if (*p == '\0') {
			/* FNM_LEADING_DIR: "a*" matches "ab/c". */
			if (n == end || (*n == '/' && (!whole || n >= trail))) {
				ok = true;
				goto out;
			}
		} else if (n != end) {
			count++;
			next = element(p, (unsigned char)*n, &h);
			if (next != NULL) {
				p = next;
				n++;
				continue;
			}
		}
mismatch:
		/* The last star takes one byte more, if it can. */
		if (sp != NULL && sn != end && !(h.noslash && *sn == '/')) {
			p = sp;
			n = ++sn;
			continue;
		}
		/* Else the next tail, if tails are tried. */
		slash = tn == NULL ? NULL : memchr(tn, '/', (size_t)(end - tn));
		if (slash == NULL) {
			ok = false;
			goto out;
		}
		tn = slash + 1;
		p = pat;
		n = tn;
		sp = NULL;
	}
out:
	if (work != NULL)
		*work += count;
	return ok;
}
