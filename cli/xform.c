/*
 * xform.c -- tar's name transforms: GNU tar's --transform expressions
 * ("s/regex/repl/flags", sed's syntax), bsdtar's -s rules
 * ("/old/new/flags") and GNU tar's --one-top-level, applied to a name
 * before the library judges it (pfx_hooks.transform).
 *
 * The patterns are POSIX regular expressions (regcomp(3)): basic, or
 * extended with the 'x' flag.  GNU rules apply one after the other, each
 * to what the last one left; of bsdtar's rules, the first that matches
 * is the only one applied, as in bsdtar.
 *
 * Cost.  The patterns are the user's, the names the archive's.  A
 * pattern with a back-reference (\1 to \9 in the regex itself) is
 * refused: glibc's matcher then backtracks, in time exponential in the
 * name's length.  Without one, each regexec(3) is polynomial in the
 * name's length n and the pattern's size; a rule calls it at most n + 1
 * times per name (once per match, each match at least one byte further),
 * and the new name is bounded by the caller's buffer (PFX_PATH_MAX): a
 * longer one is refused.  So n itself is bounded: an archive's names
 * may be far longer (a GNU long name or a pax path, up to about 1 MiB),
 * and one of PFX_PATH_MAX bytes or more is refused before any rule sees
 * it: "s/a[^b]*b\|a//g" took over a minute on one 64 KiB name, and
 * grows with the square of the length.
 */
#include <ctype.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "xform.h"

/* Which names a rule applies to (GNU's and bsdtar's r, s and h flags). */
#define SCOPE_NAME	0x1u
#define SCOPE_SYMLINK	0x2u
#define SCOPE_HARDLINK	0x4u
#define SCOPE_ALL	(SCOPE_NAME | SCOPE_SYMLINK | SCOPE_HARDLINK)

/* Matches kept on the stack by apply_rule(): the whole match and \1 to
 * \9; a GNU replacement referring to a higher group takes memory. */
#define NGROUPS 10

struct rule {
	regex_t re;
	char *repl;		/* the replacement, delimiters unescaped */
	size_t nmatch;		/* matches regexec(3) fills: the highest
				   group REPL uses, plus one */
	unsigned int scope;
	unsigned int nth;	/* GNU's N flag: from the Nth match; 0 none */
	bool global;		/* g */
	bool bsd;		/* a bsdtar rule: '~' is the match */
	bool print;		/* bsdtar's p */
};

struct xtr_xforms {
	struct rule *v;
	size_t n, cap;
	unsigned int scope;	/* GNU's "flags=": new rules' scope */
	char *top_dir;		/* --one-top-level, or NULL */
	unsigned int top_strip;	/* --strip-components, which the library
				   applies after the transforms */
};

/* The output being built: OUT, CAP bytes, LEN used; FULL once over. */
struct buf {
	char *out;
	size_t cap, len;
	bool full;
	int upper_all;		/* \U: 1, \L: -1, else 0 */
	int upper_one;		/* \u: 1, \l: -1 for the next byte */
};

static int
errf(char *err, size_t cap, const char *msg, const char *expr)
{
	if (err != NULL && cap > 0)
		snprintf(err, cap, "invalid transform expression '%s': %s",
		    expr, msg);
	return -1;
}

/* Allocate *XS if need be.  Return: *XS, or NULL (no memory). */
static struct xtr_xforms *
get_xforms(struct xtr_xforms **xs)
{
	if (*xs == NULL) {
		*xs = calloc(1, sizeof(**xs));
		if (*xs != NULL)
			(*xs)->scope = SCOPE_ALL;
	}
	return *xs;
}

/* Allocate *XS if need be, and room for one more rule. */
static struct rule *
new_rule(struct xtr_xforms **xs)
{
	struct rule *grown;
	size_t ncap;

	if (get_xforms(xs) == NULL)
		return NULL;
	if ((*xs)->n == (*xs)->cap) {
		ncap = (*xs)->cap == 0 ? 4 : (*xs)->cap * 2;
		grown = realloc((*xs)->v, ncap * sizeof(*grown));
		if (grown == NULL)
			return NULL;
		(*xs)->v = grown;
		(*xs)->cap = ncap;
	}
	return &(*xs)->v[(*xs)->n];
}

/*
 * Copy the part of S up to the unescaped DELIM into new memory (*OUT), a
 * "\DELIM" becoming DELIM; other escapes are kept.  A '\\' DELIM (GNU
 * tar takes any byte) cannot be escaped: every backslash ends the part.
 * Return: the byte after DELIM, or NULL if it never comes (or no memory).
 */
static const char *
take_part(const char *s, char delim, char **out)
{
	size_t len = strlen(s), i, n = 0;
	char *p = malloc(len + 1);

	*out = p;
	if (p == NULL)
		return NULL;
	for (i = 0; s[i] != '\0'; i++) {
		if (s[i] == delim)
			break;
		if (s[i] == '\\' && s[i + 1] == delim) {
			p[n++] = delim;
			i++;
			continue;
		}
		if (s[i] == '\\' && s[i + 1] != '\0') {
			p[n++] = s[i++];
			p[n++] = s[i];
			continue;
		}
		p[n++] = s[i];
	}
	if (s[i] == delim) {
		p[n] = '\0';
		return s + i + 1;
	}
	free(p);
	*out = NULL;
	return NULL;
}

/* Does the regex RE hold a back-reference, \1 to \9? */
static bool
has_backref(const char *re)
{
	for (; *re != '\0'; re++) {
		if (*re != '\\' || re[1] == '\0')
			continue;
		re++;
		if (*re >= '1' && *re <= '9')
			return true;
	}
	return false;
}

/* Apply the scope flag C (r R s S h H) to *SCOPE.  Return: 0, or -1
 * if C is not one. */
static int
take_scope(char c, unsigned int *scope)
{
	switch (c) {
	case 'r': *scope |= SCOPE_NAME; return 0;
	case 'R': *scope &= ~SCOPE_NAME; return 0;
	case 's': *scope |= SCOPE_SYMLINK; return 0;
	case 'S': *scope &= ~SCOPE_SYMLINK; return 0;
	case 'h': *scope |= SCOPE_HARDLINK; return 0;
	case 'H': *scope &= ~SCOPE_HARDLINK; return 0;
	default: return -1;
	}
}

/*
 * Read the flags at S into R, up to the end or (GNU) a ';'.  *END is left
 * at the byte that ended them, or on an unknown flag at that flag.
 * Return: 0, or -1 on an unknown flag.
 */
static int
take_flags(const char *s, struct rule *r, int *cflags, const char **end)
{
	*end = s;
	for (; *s != '\0' && (r->bsd || *s != ';'); s++) {
		*end = s;
		if (take_scope(*s, &r->scope) == 0)
			continue;
		switch (*s) {
		case 'g':
			r->global = true;
			break;
		case 'p':
			if (!r->bsd)
				return -1;
			r->print = true;
			break;
		case 'i':
			if (r->bsd)
				return -1;
			*cflags |= REG_ICASE;
			break;
		case 'x':
			if (r->bsd)
				return -1;
			*cflags |= REG_EXTENDED;
			break;
		default:
			if (r->bsd || *s < '0' || *s > '9')
				return -1;
			if (r->nth > 100000)
				return -1;	/* no name has that many */
			r->nth = r->nth * 10 + (unsigned int)(*s - '0');
			break;
		}
	}
	*end = s;
	return 0;
}

/*
 * Check the groups R's replacement refers to against its regex's
 * (re_nsub), and set R->nmatch.  GNU's \N is all the digits that follow
 * (GNU tar's strtoul()), bsdtar's one digit; bsdtar's rules keep an \N
 * past the last group, which stays empty, as before.
 * Return: 0, or -1 if one of GNU's is past the regex's last group.
 */
static int
check_repl(struct rule *r)
{
	const char *p;
	size_t g, top = 0;

	for (p = r->repl; *p != '\0'; p++) {
		if (*p != '\\' || p[1] == '\0')
			continue;
		if (p[1] < '0' || p[1] > '9') {
			p++;		/* "\\", "\&", "\U"...: not a group */
			continue;
		}
		g = 0;
		while (p[1] >= '0' && p[1] <= '9') {
			if (g <= r->re.re_nsub)
				g = g * 10 + (size_t)(p[1] - '0');
			p++;
			if (r->bsd)
				break;
		}
		if (g > r->re.re_nsub && !r->bsd)
			return -1;
		if (g > top)
			top = g;
	}
	r->nmatch = top + 1;
	return 0;
}

/*
 * Parse one rule at S (GNU: "s/re/repl/flags"; BSD: "/re/repl/flags")
 * into R, of SCOPE unless its flags say otherwise.  *END is left after
 * it.  Return: 0, or -1 with ERR written.
 */
static int
parse_rule(const char *s, bool bsd, unsigned int scope, struct rule *r,
    const char **end, const char *expr, char *err, size_t cap)
{
	char *re = NULL;
	const char *p = s;
	char delim, msg[128];
	int cflags = 0, rc;

	memset(r, 0, sizeof(*r));
	r->bsd = bsd;
	r->scope = scope;
	if (!bsd && *p++ != 's')
		return errf(err, cap, "only s/regex/replacement/ is known",
		    expr);
	delim = *p++;
	/* GNU tar takes any byte; bsdtar's rules stay plainer. */
	if (delim == '\0' || (bsd && (delim == '\\' || delim == '\n')))
		return errf(err, cap, "missing delimiter", expr);
	p = take_part(p, delim, &re);
	if (p != NULL)
		p = take_part(p, delim, &r->repl);
	if (p == NULL) {
		free(re);
		return errf(err, cap, "unterminated", expr);
	}
	if (take_flags(p, r, &cflags, end) == -1) {
		snprintf(msg, sizeof(msg), "unknown flag '%c'", **end);
		rc = errf(err, cap, msg, expr);
		goto out;
	}
	if (has_backref(re)) {
		rc = errf(err, cap, "back-references in the pattern are "
		    "refused (their matching time can grow exponentially "
		    "with the length of the archive's names)", expr);
		goto out;
	}
	rc = regcomp(&r->re, re, cflags);
	if (rc != 0) {
		regerror(rc, NULL, msg, sizeof(msg));
		rc = errf(err, cap, msg, expr);
		goto out;
	}
	/* As GNU tar, at parsing: "s/.*\/\1/" would make every name
	 * empty, and so skip every entry. */
	if (check_repl(r) == -1) {
		regfree(&r->re);
		if (err != NULL && cap > 0)
			snprintf(err, cap, "Invalid transform replacement: "
			    "back reference out of range");
		rc = -1;
		goto out;
	}
	free(re);
	return 0;
out:
	free(re);
	free(r->repl);
	r->repl = NULL;
	return rc;
}

/*
 * GNU tar's "flags=F;" at S: the scope of the rules that follow, in this
 * expression and the next ones.  *END is left after it.
 * Return: 0, or -1 with ERR written.
 */
static int
take_default_flags(struct xtr_xforms *xs, const char *s, const char **end,
    const char *expr, char *err, size_t cap)
{
	unsigned int scope = 0;
	char msg[64];

	for (s += strlen("flags="); *s != '\0' && *s != ';'; s++) {
		if (take_scope(*s, &scope) == -1) {
			snprintf(msg, sizeof(msg), "unknown flag '%c'", *s);
			return errf(err, cap, msg, expr);
		}
	}
	xs->scope = scope;
	*end = *s == ';' ? s + 1 : s;
	return 0;
}

/* see xform.h */
int
xtr_xform_add(struct xtr_xforms **xs, const char *expr, bool bsd,
    char *err, size_t cap)
{
	const char *s = expr;
	struct rule *r;

	/* GNU: "s/a/b/;s/c/d/" is two rules, a ';' may end the last, and
	 * "" is none (GNU tar 1.34). */
	while (bsd || *s != '\0') {
		if (get_xforms(xs) == NULL)
			return errf(err, cap, "out of memory", expr);
		if (!bsd && strncmp(s, "flags=", strlen("flags=")) == 0) {
			if (take_default_flags(*xs, s, &s, expr, err,
			    cap) == -1)
				return -1;
			continue;
		}
		r = new_rule(xs);
		if (r == NULL)
			return errf(err, cap, "out of memory", expr);
		if (parse_rule(s, bsd, bsd ? SCOPE_ALL : (*xs)->scope, r, &s,
		    expr, err, cap) == -1)
			return -1;
		(*xs)->n++;
		if (bsd)
			break;
		if (*s == ';')
			s++;
	}
	return 0;
}

/* see xform.h */
bool
xtr_xform_is_bsd_rule(const char *s)
{
	struct rule r;
	const char *end;

	/* A letter or digit delimiter would take a name for a rule. */
	if (s[0] == '\0' || isalnum((unsigned char)s[0]) || s[0] == '-')
		return false;
	if (parse_rule(s, true, SCOPE_ALL, &r, &end, s, NULL, 0) == -1)
		return false;
	regfree(&r.re);
	free(r.repl);
	return true;
}

/* see xform.h */
int
xtr_xform_top_dir(struct xtr_xforms **xs, const char *dir,
    unsigned int strip)
{
	if (get_xforms(xs) == NULL)
		return -1;
	(*xs)->top_strip = strip;
	free((*xs)->top_dir);
	(*xs)->top_dir = strdup(dir);
	return (*xs)->top_dir == NULL ? -1 : 0;
}

/* Append byte C to B, after the case conversion in force. */
static void
put(struct buf *b, char c)
{
	int up = b->upper_one != 0 ? b->upper_one : b->upper_all;

	b->upper_one = 0;
	if (up > 0)
		c = (char)toupper((unsigned char)c);
	else if (up < 0)
		c = (char)tolower((unsigned char)c);
	if (b->len + 1 >= b->cap) {
		b->full = true;
		return;
	}
	b->out[b->len++] = c;
}

static void
put_n(struct buf *b, const char *s, size_t n)
{
	while (n-- > 0 && !b->full)
		put(b, *s++);
}

/* Append R's replacement for the match M of S. */
static void
put_repl(struct buf *b, const struct rule *r, const char *s,
    const regmatch_t *m)
{
	const char *p;
	size_t g;

	b->upper_all = 0;
	b->upper_one = 0;
	for (p = r->repl; *p != '\0' && !b->full; p++) {
		if ((!r->bsd && *p == '&') || (r->bsd && *p == '~')) {
			g = 0;
		} else if (*p == '\\' && p[1] >= '0' && p[1] <= '9') {
			/* All the digits (bsdtar: one), as check_repl()
			 * read them: a group below r->nmatch. */
			g = 0;
			while (p[1] >= '0' && p[1] <= '9') {
				g = g * 10 + (size_t)(*++p - '0');
				if (r->bsd)
					break;
			}
		} else {
			if (*p == '\\' && p[1] != '\0') {
				p++;
				switch (r->bsd ? '\0' : *p) {
				case 'U': b->upper_all = 1; continue;
				case 'L': b->upper_all = -1; continue;
				case 'E':
					b->upper_all = 0;
					b->upper_one = 0;
					continue;
				case 'u': b->upper_one = 1; continue;
				case 'l': b->upper_one = -1; continue;
				case 'n': put(b, '\n'); continue;
				default: break;
				}
			}
			put(b, *p);
			continue;
		}
		if (g < r->nmatch && m[g].rm_so >= 0 &&
		    m[g].rm_eo >= m[g].rm_so)
			put_n(b, s + m[g].rm_so,
			    (size_t)(m[g].rm_eo - m[g].rm_so));
	}
}

/*
 * Apply rule R to IN into B (emptied first).
 * Return: true if it matched at all.
 */
static bool
apply_rule(const struct rule *r, const char *in, struct buf *b)
{
	regmatch_t stack[NGROUPS], *m = stack;
	size_t pos = 0, len = strlen(in), so, eo;
	unsigned int count = 0;
	bool want, matched = false;

	b->len = 0;
	if (r->nmatch > NGROUPS) {
		m = malloc(r->nmatch * sizeof(*m));
		if (m == NULL) {
			b->full = true;		/* refused, never cut */
			return true;
		}
	}
	while (pos <= len && !b->full) {
		if (regexec(&r->re, in + pos, r->nmatch, m,
		    pos > 0 ? REG_NOTBOL : 0) != 0)
			break;
		matched = true;
		count++;
		so = (size_t)m[0].rm_so;
		eo = (size_t)m[0].rm_eo;
		want = r->nth == 0 ? (count == 1 || r->global) :
		    (count == r->nth || (r->global && count > r->nth));
		put_n(b, in + pos, so);
		if (want)
			put_repl(b, r, in + pos, m);
		else
			put_n(b, in + pos + so, eo - so);
		/* An empty match moves on by one byte, kept as it is. */
		if (eo == so && pos + eo < len)
			put_n(b, in + pos + eo, 1);
		pos += eo == so ? eo + 1 : eo;
		if (want && !r->global)
			break;
		if (r->nth != 0 && count >= r->nth && !r->global)
			break;
	}
	if (pos < len)
		put_n(b, in + pos, len - pos);
	if (b->len < b->cap)
		b->out[b->len] = '\0';
	if (m != stack)
		free(m);
	return matched;
}

/* Is NAME under DIR already, as GNU tar judges it (leading "./" and '/'
 * skipped)?  Sets *REST to the name past them. */
static bool
under_dir(const char *name, const char *dir, const char **rest)
{
	size_t n = strlen(dir);

	while (*name == '/' || *name == '.')
		name++;
	*rest = name;
	return strncmp(name, dir, n) == 0 &&
	    (name[n] == '/' || name[n] == '\0');
}

/*
 * Does NAME leave its own top: absolute, or a ".." that climbs above
 * where it starts?  "DIR/" in front would hide that ("DIR/../x" is "x",
 * beside DIR, and "DIR//etc/x" is relative), so such a name is left as
 * it is, for the library to refuse (absolute, escapes) as without
 * --one-top-level; GNU tar refuses or strips it too.
 */
static bool
leaves_top(const char *name)
{
	const char *p = name, *end;
	size_t depth = 0, n;

	if (*name == '/')
		return true;
	while (*p != '\0') {
		end = strchr(p, '/');
		n = end != NULL ? (size_t)(end - p) : strlen(p);
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			if (depth == 0)
				return true;
			depth--;
		} else if (n > 0 && !(n == 1 && p[0] == '.')) {
			depth++;
		}
		p += n;
		while (*p == '/')
			p++;
	}
	return false;
}

/*
 * NAME with "DIR/" (--one-top-level) where GNU tar puts it: GNU tar strips
 * --strip-components first, then prefixes, while the library strips
 * after this hook; so "DIR/" goes after the components it will strip
 * ("a/b" with 1: "a/DIR/b", which it makes "DIR/b"), never in front,
 * where it would be stripped and the entries land beside DIR.  Into OUT
 * (CAP bytes).  Return: the new length; 0 to leave NAME as it is
 * (nothing left once stripped, already under DIR, or leaving its own
 * top); -1 if it does not fit.
 */
static int
put_top_dir(const struct xtr_xforms *xs, const char *name, char *out,
    size_t cap)
{
	const char *p = name, *rest, *tail;
	unsigned int k;
	int n;

	/* As xtr_strip_components() counts them. */
	for (k = xs->top_strip; k > 0; k--) {
		while (*p == '/')
			p++;
		if (*p == '\0')
			return 0;
		while (*p != '\0' && *p != '/')
			p++;
	}
	if (xs->top_strip > 0) {
		while (*p == '/')
			p++;
		if (*p == '\0')
			return 0;
	}
	rest = p;
	if (leaves_top(rest) || under_dir(rest, xs->top_dir, &tail))
		return 0;
	n = *tail == '\0' ? snprintf(out, cap, "%.*s%s", (int)(rest - name),
	    name, xs->top_dir) : snprintf(out, cap, "%.*s%s/%s",
	    (int)(rest - name), name, xs->top_dir, rest);
	if (n < 0 || (size_t)n >= cap)
		return -1;
	return n;
}

/* see xform.h */
int
xtr_xform_apply(const struct xtr_xforms *xs, enum pfx_name_kind kind,
    const char *name, char *out, size_t cap, xtr_xform_say_fn *say,
    void *arg)
{
	static const unsigned int scopes[] = {
		[PFX_NAME_ENTRY] = SCOPE_NAME,
		[PFX_NAME_SYMLINK] = SCOPE_SYMLINK,
		[PFX_NAME_HARDLINK] = SCOPE_HARDLINK
	};
	char tmp[PFX_PATH_MAX];
	struct buf b;
	const char *cur = name;
	bool bsd_done = false, changed = false;
	size_t i;
	int n;

	if (xs == NULL || cap == 0 || (size_t)kind >= 3)
		return 0;
	/* SECURITY: the archive picks the length, the cost is polynomial
	 * in it (see the head comment); such a name is refused as too long. */
	if (strnlen(name, PFX_PATH_MAX) >= PFX_PATH_MAX)
		return 2;
	for (i = 0; i < xs->n; i++) {
		const struct rule *r = &xs->v[i];

		if ((r->scope & scopes[kind]) == 0 || (r->bsd && bsd_done))
			continue;
		memset(&b, 0, sizeof(b));
		b.out = tmp;
		b.cap = sizeof(tmp) < cap ? sizeof(tmp) : cap;
		if (!apply_rule(r, cur, &b))
			continue;
		if (b.full)
			return 2;
		if (r->print && say != NULL)
			say(arg, cur, tmp);
		bsd_done = bsd_done || r->bsd;
		memcpy(out, tmp, b.len + 1);
		cur = out;
		changed = true;
	}
	/* GNU tar's --one-top-level, after the transforms; hard-link
	 * targets too, so that the links still find their files. */
	if (xs->top_dir != NULL && kind != PFX_NAME_SYMLINK) {
		n = put_top_dir(xs, cur, tmp, sizeof(tmp));
		if (n < 0 || (size_t)n >= cap)
			return 2;
		if (n > 0) {
			memcpy(out, tmp, (size_t)n + 1);
			changed = true;
		}
	}
	return changed ? 1 : 0;
}

/* see xform.h */
void
xtr_xforms_free(struct xtr_xforms *xs)
{
	size_t i;

	if (xs == NULL)
		return;
	for (i = 0; i < xs->n; i++) {
		regfree(&xs->v[i].re);
		free(xs->v[i].repl);
	}
	free(xs->v);
	free(xs->top_dir);
	free(xs);
}
