/*
 * listing_out.c -- pfextract(1)'s listing lines, byte for byte as GNU
 * tar 1.34 writes them (listing_out.h).
 *
 * -tv: "MODES OWNER/GROUP SIZE DATE NAME", where OWNER/GROUP and SIZE
 * share one right-aligned column that starts 19 wide and only grows
 * (tar's ugswidth), a device's SIZE is "MAJOR,MINOR", the date is
 * "YYYY-MM-DD HH:MM" in local time (--utc: UTC; --full-time: seconds and
 * the nanoseconds without trailing zeros), and a link ends with " ->
 * TARGET" (symbolic) or " link to TARGET" (hard).
 *
 * SECURITY: names, link targets, owners and groups come from the archive;
 * every one goes through quote_put(), and the owner and group are
 * escaped even though GNU tar writes them raw.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "listing_out.h"

/* tar's record: 20 blocks of 512 bytes. */
#define RECORD 10240u

/* see listing_out.h */
void
list_fmt_init(struct list_fmt *f, bool multibyte, bool utf8)
{
	memset(f, 0, sizeof(*f));
	quote_init(&f->q, multibyte, utf8);
	f->prog = "pfextract";
	f->ugswidth = LIST_UGS_WIDTH;
	f->datewidth = LIST_DATE_WIDTH;
	(void)clock_gettime(CLOCK_MONOTONIC, &f->start);
}

/* see listing_out.h */
void
list_put_quoted(FILE *out, const struct list_fmt *f, const char *name,
    bool colon)
{
	bool tty = out == stderr ? f->tty_err : f->tty_out;

	if (name != NULL)
		quote_put(out, &f->q, name, strlen(name), colon, tty);
}

/* Write E's "drwxr-xr-x" mode string, tar's letters, to BUF[11]. */
static void
mode_string(const struct pfx_entry *e, char *buf)
{
	static const char types[] = {
		[PFX_TYPE_FILE] = '-',
		[PFX_TYPE_DIR] = 'd',
		[PFX_TYPE_SYMLINK] = 'l',
		[PFX_TYPE_HARDLINK] = 'h',
		[PFX_TYPE_CHAR] = 'c',
		[PFX_TYPE_BLOCK] = 'b',
		[PFX_TYPE_FIFO] = 'p',
		[PFX_TYPE_SOCKET] = 's',
		[PFX_TYPE_OTHER] = '?'
	};
	mode_t m = e->mode;

	buf[0] = (size_t)e->type < sizeof(types) ? types[e->type] : '?';
	buf[1] = (m & 0400) ? 'r' : '-';
	buf[2] = (m & 0200) ? 'w' : '-';
	buf[3] = (m & 04000) ? ((m & 0100) ? 's' : 'S') :
	    ((m & 0100) ? 'x' : '-');
	buf[4] = (m & 040) ? 'r' : '-';
	buf[5] = (m & 020) ? 'w' : '-';
	buf[6] = (m & 02000) ? ((m & 010) ? 's' : 'S') :
	    ((m & 010) ? 'x' : '-');
	buf[7] = (m & 04) ? 'r' : '-';
	buf[8] = (m & 02) ? 'w' : '-';
	buf[9] = (m & 01000) ? ((m & 01) ? 't' : 'T') :
	    ((m & 01) ? 'x' : '-');
	buf[10] = '\0';
}

/* Write one of E's owners: NAME quoted, or ID (--numeric-owner, or no
 * name in the archive). */
static void
put_owner(FILE *o, const struct list_fmt *f, const char *name, int64_t id)
{
	struct quote esc = f->q;

	/* Escaped whatever the style: tar writes owners raw. */
	esc.style = QUOTE_ESCAPE;
	memset(esc.chars, 0, sizeof(esc.chars));
	if (!f->numeric && name != NULL && name[0] != '\0')
		quote_put(o, &esc, name, strlen(name), false, f->tty_out);
	else
		fprintf(o, "%" PRId64, id);
}

/*
 * "user/group" for E in new memory.  Return: it, with its length in
 * *LEN, or NULL.
 */
static char *
owner_string(const struct list_fmt *f, const struct pfx_entry *e,
    size_t *len)
{
	char *buf = NULL;
	FILE *o;

	o = open_memstream(&buf, len);
	if (o == NULL)
		return NULL;
	put_owner(o, f, e->uname, e->uid);
	putc('/', o);
	put_owner(o, f, e->gname, e->gid);
	if (fclose(o) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* E's date as tar writes it into BUF (CAP bytes). */
static void
date_string(const struct list_fmt *f, const struct pfx_entry *e, char *buf,
    size_t cap)
{
	time_t t = (time_t)e->mtime;
	struct tm tm, *ok;
	char frac[16];
	int n;
	size_t k;

	ok = f->utc ? gmtime_r(&t, &tm) : localtime_r(&t, &tm);
	if (ok == NULL || strftime(buf, cap, f->full_time ?
	    "%Y-%m-%d %H:%M:%S" : "%Y-%m-%d %H:%M", &tm) == 0) {
		/* As tar: the seconds, when no date can be made. */
		snprintf(buf, cap, "%" PRId64, e->mtime);
		return;
	}
	if (!f->full_time || e->mtime_nsec <= 0)
		return;
	/* tar's code_ns_fraction(): ".NNNNNNNNN" without trailing 0s. */
	n = snprintf(frac, sizeof(frac), ".%09ld", e->mtime_nsec);
	for (k = (size_t)n; k > 1 && frac[k - 1] == '0'; k--)
		frac[k - 1] = '\0';
	k = strlen(buf);
	if (k + strlen(frac) < cap)
		memcpy(buf + k, frac, strlen(frac) + 1);
}

/* Write GNU tar's long listing line for E, without the name; TYPE: its
 * mode string's first letter, or 0 for E's type's. */
static void
put_long_head(FILE *out, struct list_fmt *f, const struct pfx_entry *e,
    char type)
{
	char modes[11], size[48], stamp[64];
	char *owner;
	size_t olen = 0, slen, dlen;
	int pad;

	mode_string(e, modes);
	if (type != 0)
		modes[0] = type;
	owner = owner_string(f, e, &olen);
	if (e->type == PFX_TYPE_CHAR || e->type == PFX_TYPE_BLOCK)
		snprintf(size, sizeof(size), "%" PRId64 ",%" PRId64,
		    e->devmajor, e->devminor);
	else
		snprintf(size, sizeof(size), "%" PRId64, e->size);
	slen = strlen(size);
	date_string(f, e, stamp, sizeof(stamp));
	dlen = strlen(stamp);
	if (f->full_time && f->datewidth < 19)
		f->datewidth = 19;
	if (dlen > (size_t)f->datewidth && dlen < sizeof(stamp))
		f->datewidth = (int)dlen;
	/* As GNU tar: the owner and size column widens, never narrows. */
	if (olen + 1 + slen > (size_t)f->ugswidth && olen < 4096)
		f->ugswidth = (int)(olen + 1 + slen);
	pad = f->ugswidth - (int)(olen + 1 + slen) + (int)slen;
	fprintf(out, "%s %s %*s %-*s ", modes, owner != NULL ? owner : "?/?",
	    pad, size, f->datewidth, stamp);
	free(owner);
}

/* see listing_out.h */
void
list_put_entry(FILE *out, struct list_fmt *f, const struct pfx_entry *e,
    bool is_long)
{
	if (f->block_number)
		fprintf(out, "block %" PRId64 ": ",
		    e->offset >= 0 ? e->offset / 512 : 0);
	if (is_long)
		put_long_head(out, f, e, 0);
	list_put_quoted(out, f, e->name, false);
	if (is_long && e->link_target != NULL) {
		if (e->type == PFX_TYPE_SYMLINK) {
			fputs(" -> ", out);
			list_put_quoted(out, f, e->link_target, false);
		} else if (e->type == PFX_TYPE_HARDLINK) {
			fputs(" link to ", out);
			list_put_quoted(out, f, e->link_target, false);
		}
	}
	putc('\n', out);
}

/* see listing_out.h */
void
list_put_label(FILE *out, struct list_fmt *f, const struct pfx_entry *e,
    bool is_long)
{
	if (f->block_number)
		fputs("block 0: ", out);
	if (is_long)
		put_long_head(out, f, e, 'V');
	list_put_quoted(out, f, e->name, false);
	if (is_long)
		fputs("--Volume Header--", out);
	putc('\n', out);
}

/* see listing_out.h */
void
list_put_end_block(FILE *out, const struct list_fmt *f,
    uint64_t archive_bytes)
{
	/* libarchive has taken the two zero blocks that end the archive. */
	if (f->block_number && archive_bytes >= 1024)
		fprintf(out, "block %" PRIu64 ": ** Block of NULs **\n",
		    (archive_bytes - 1024) / 512);
}

/*
 * N bytes as gnulib's human_readable() with human_autoscale,
 * human_base_1024, human_SI and human_B, rounding up: "512B", "4.7GiB",
 * "10KiB".
 */
static void
human(uint64_t n, char *buf, size_t cap)
{
	static const char units[] = "KMGTPEZY";
	double v = (double)n;
	size_t u = 0;
	uint64_t whole;

	if (n < 1024) {
		snprintf(buf, cap, "%" PRIu64 "B", n);
		return;
	}
	v /= 1024;
	while (v >= 1024 && u + 1 < sizeof(units) - 1) {
		v /= 1024;
		u++;
	}
	if (v < 10) {
		whole = (uint64_t)(v * 10);
		if ((double)whole < v * 10)
			whole++;
		if (whole < 100) {
			snprintf(buf, cap, "%" PRIu64 ".%" PRIu64 "%ciB",
			    whole / 10, whole % 10, units[u]);
			return;
		}
		v = 10;
	}
	whole = (uint64_t)v;
	if ((double)whole < v)
		whole++;
	if (whole >= 1024 && u + 1 < sizeof(units) - 1) {
		snprintf(buf, cap, "1.0%ciB", units[u + 1]);
		return;
	}
	snprintf(buf, cap, "%" PRIu64 "%ciB", whole, units[u]);
}

/* "N (H, R/s)", as tar's print_stats(), to OUT. */
static void
put_stats(FILE *out, const struct list_fmt *f, uint64_t bytes)
{
	struct timespec now;
	char h[32], r[32];
	double secs;

	(void)clock_gettime(CLOCK_MONOTONIC, &now);
	secs = (double)(now.tv_sec - f->start.tv_sec) +
	    (double)(now.tv_nsec - f->start.tv_nsec) / 1e9;
	human(bytes, h, sizeof(h));
	if (secs > 0)
		human((uint64_t)((double)bytes / secs), r, sizeof(r));
	else
		snprintf(r, sizeof(r), "?");
	fprintf(out, "%" PRIu64 " (%s, %s/s)", bytes, h, r);
}

/* see listing_out.h */
void
list_put_totals(FILE *out, const struct list_fmt *f, uint64_t bytes,
    bool tar)
{
	/* tar reads whole records: the archive's last one too. */
	if (tar && bytes % RECORD != 0)
		bytes += RECORD - bytes % RECORD;
	fputs("Total bytes read: ", out);
	put_stats(out, f, bytes);
	putc('\n', out);
}

/* Expand TEXT of checkpoint N to OUT: %u the number, %s "read", %T the
 * totals ("R: N (H, R/s)"); anything else as it is. */
static void
expand(FILE *out, const struct list_fmt *f, const char *text, uint64_t n)
{
	const char *p;

	for (p = text; *p != '\0'; p++) {
		if (*p != '%' || p[1] == '\0') {
			putc(*p, out);
			continue;
		}
		switch (p[1]) {
		case 'u':
			fprintf(out, "%" PRIu64, n);
			break;
		case 's':
			fputs("read", out);
			break;
		case 'T':
			fputs("R: ", out);
			put_stats(out, f, n * RECORD);
			break;
		default:
			putc('%', out);
			putc(p[1], out);
			break;
		}
		p++;
	}
}

/* Run the actions of checkpoint N. */
static void
checkpoint(struct list_fmt *f, uint64_t n, FILE *listing)
{
	size_t i;
	unsigned int secs;

	if (f->nckpt == 0) {
		fprintf(stderr, "%s: Read checkpoint %" PRIu64 "\n", f->prog,
		    n);
		return;
	}
	for (i = 0; i < f->nckpt; i++) {
		const struct ckpt_action *a = &f->ckpt[i];

		switch (a->kind) {
		case CKPT_ECHO:
			fprintf(stderr, "%s: ", f->prog);
			expand(stderr, f, a->text != NULL ? a->text :
			    "Read checkpoint %u", n);
			putc('\n', stderr);
			break;
		case CKPT_DOT:
			putc('.', listing);
			(void)fflush(listing);
			f->dots = true;
			break;
		case CKPT_BELL:
			if (f->tty != NULL) {
				putc('\a', f->tty);
				(void)fflush(f->tty);
			}
			break;
		case CKPT_TTYOUT:
			if (f->tty != NULL) {
				expand(f->tty, f, a->text, n);
				(void)fflush(f->tty);
			}
			break;
		case CKPT_TOTALS:
			fputs("Total bytes read: ", stderr);
			put_stats(stderr, f, n * RECORD);
			putc('\n', stderr);
			break;
		case CKPT_SLEEP:
			secs = (unsigned int)strtoul(a->text, NULL, 10);
			while (secs > 0)
				secs = sleep(secs);
			break;
		}
	}
}

/* see listing_out.h */
void
list_checkpoints(struct list_fmt *f, uint64_t at, bool end, FILE *listing)
{
	uint64_t rec, next;

	if (f->ckpt_every == 0)
		return;
	/* The record holding byte AT has been read, and with END every
	 * record up to AT. */
	rec = end ? (at + RECORD - 1) / RECORD : at / RECORD + 1;
	for (;;) {
		next = (f->ckpt_done / f->ckpt_every + 1) * f->ckpt_every;
		if (next > rec)
			break;
		f->ckpt_done = next;
		checkpoint(f, next, listing);
	}
	if (end && f->dots) {
		putc('\n', listing);
		f->dots = false;
	}
}

/* see listing_out.h */
int
list_parse_ckpt_action(struct list_fmt *f, const char *v, char *err,
    size_t cap)
{
	struct ckpt_action *a;
	const char *arg = strchr(v, '=');
	size_t klen = arg != NULL ? (size_t)(arg - v) : strlen(v);
	char *end;

	if (f->nckpt == LIST_CKPT_MAX) {
		snprintf(err, cap, "more than %d --checkpoint-action options",
		    LIST_CKPT_MAX);
		return -1;
	}
	a = &f->ckpt[f->nckpt];
	a->text = arg != NULL ? arg + 1 : NULL;
#define IS(s) (klen == strlen(s) && strncmp(v, s, klen) == 0)
	if (IS("exec")) {
		snprintf(err, cap, "--checkpoint-action=exec is refused: it "
		    "runs a program");
		return -1;
	}
	if (IS("wait")) {
		snprintf(err, cap, "--checkpoint-action=wait is refused: "
		    "pfextract does not stop for a signal");
		return -1;
	}
	if (IS("echo")) {
		a->kind = CKPT_ECHO;
	} else if (IS("dot") || IS(".")) {
		a->kind = CKPT_DOT;
	} else if (IS("bell")) {
		a->kind = CKPT_BELL;
	} else if (IS("ttyout") && a->text != NULL) {
		a->kind = CKPT_TTYOUT;
	} else if (IS("totals")) {
		a->kind = CKPT_TOTALS;
	} else if (IS("sleep") && a->text != NULL &&
	    (strtoul(a->text, &end, 10), *end == '\0' && *a->text != '\0')) {
		a->kind = CKPT_SLEEP;
	} else {
		snprintf(err, cap, "invalid --checkpoint-action value '%s' "
		    "(echo[=text], dot, bell, ttyout=text, totals, sleep=N)",
		    v);
		return -1;
	}
#undef IS
	f->nckpt++;
	return 0;
}
