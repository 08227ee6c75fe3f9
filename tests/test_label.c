/*
 * test_label.c -- GNU tar's volume labels (extract/label.c): the parse of
 * a 'V' header and of a pax global header's GNU.volume.label record from
 * the archive's first bytes; hooks.label and pfx_options.volume_label (-V)
 * through pfx_extract(), in this process and with the decoder process,
 * plain and gzip; and the LABEL message's place in the decoder process's
 * stream (remote.c), played through xtr_extract_wire().
 *
 * Archives are written byte by byte here (libarchive writes no label):
 *
 *	$TMPDIR/pfx-label.XXXXXX/
 *	`-- dest/		the destination
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <archive_entry.h>
#include <criterion/criterion.h>
#include <zlib.h>

#include "engine.h"
#include "fixture.h"
#include "label.h"
#include "wire.h"

static char top[PATH_MAX / 2];
static int destfd = -1;

static void
fx_init(void)
{
	destfd = tfx_temp_dest("label", top, sizeof(top));
}

static void
fx_fini(void)
{
	tfx_temp_end(&destfd, top);
}

TestSuite(label, .init = fx_init, .fini = fx_fini, .timeout = 30);

/* A tar being written. */
struct tarbuf {
	unsigned char b[16 * 512];
	size_t len;
};

/* V in octal in the field F of N bytes, NUL-terminated. */
static void
octal(unsigned char *f, size_t n, unsigned long v)
{
	char tmp[32];

	(void)snprintf(tmp, sizeof(tmp), "%0*lo", (int)n - 1, v);
	cr_assert(strlen(tmp) == n - 1);
	memcpy(f, tmp, n);
}

/* Append a header of TYPE for NAME, SIZE bytes, MTIME, as GNU tar writes
 * one ("ustar  " magic), its checksum set. */
static unsigned char *
header(struct tarbuf *t, char type, const char *name, size_t size,
    long mtime)
{
	unsigned char *h = t->b + t->len;
	unsigned int sum = 0;
	size_t i;

	cr_assert(t->len + 512 <= sizeof(t->b));
	memset(h, 0, 512);
	memcpy(h, name, strlen(name) < 100 ? strlen(name) : 100);
	octal(h + 100, 8, type == 'V' ? 0 : 0644);
	octal(h + 108, 8, 0);
	octal(h + 116, 8, 0);
	octal(h + 124, 12, (unsigned long)size);
	octal(h + 136, 12, (unsigned long)mtime);
	h[156] = (unsigned char)type;
	memcpy(h + 257, "ustar  ", 8);
	memset(h + 148, ' ', 8);
	for (i = 0; i < 512; i++)
		sum += h[i];
	octal(h + 148, 7, sum);
	t->len += 512;
	return h;
}

/* Append SIZE bytes of DATA, padded to a block. */
static void
data(struct tarbuf *t, const void *d, size_t size)
{
	size_t pad = (size + 511) / 512 * 512;

	cr_assert(t->len + pad <= sizeof(t->b));
	memset(t->b + t->len, 0, pad);
	memcpy(t->b + t->len, d, size);
	t->len += pad;
}

/* A tar: LABEL ('V', 'g' for a pax one, 0 for none), then the file "f"
 * holding "hi\n", then the two zero blocks. */
static void
make_tar(struct tarbuf *t, char kind, const char *label)
{
	char rec[256];
	int n, k;

	t->len = 0;
	if (kind == 'V')
		(void)header(t, 'V', label, 0, 1700000000L);
	if (kind == 'g') {
		/* "LEN GNU.volume.label=LABEL\n", LEN counting itself. */
		n = (int)strlen(label) + (int)sizeof(" GNU.volume.label=\n") -
		    1;
		k = snprintf(NULL, 0, "%d", n);
		k = snprintf(NULL, 0, "%d", n + k) + n;
		(void)snprintf(rec, sizeof(rec), "%d GNU.volume.label=%s\n",
		    k, label);
		(void)header(t, 'g', "/tmp/GlobalHead.1", strlen(rec),
		    1700000001L);
		data(t, rec, strlen(rec));
	}
	(void)header(t, '0', "f", 3, 1700000002L);
	data(t, "hi\n", 3);
	cr_assert(t->len + 1024 <= sizeof(t->b));
	memset(t->b + t->len, 0, 1024);
	t->len += 1024;
}

Test(label, parse_v_header)
{
	struct tarbuf t;
	struct xtr_label l;

	make_tar(&t, 'V', "Vol 1");
	cr_assert_eq(xtr_label_parse(t.b, t.len, &l), 1);
	cr_assert_str_eq(l.name, "Vol 1");
	cr_assert(l.mode == 0 && l.uid == 0 && l.gid == 0 && l.size == 0);
	cr_assert_eq(l.mtime, 1700000000L);
	/* A block short, or a checksum off by one: no label. */
	cr_assert_eq(xtr_label_parse(t.b, 511, &l), 0);
	t.b[0] ^= 1;
	cr_assert_eq(xtr_label_parse(t.b, t.len, &l), 0);
}

Test(label, parse_pax_global_header)
{
	struct tarbuf t;
	struct xtr_label l;

	make_tar(&t, 'g', "/label/");
	cr_assert_eq(xtr_label_parse(t.b, t.len, &l), 1);
	cr_assert_str_eq(l.name, "/label/");
	cr_assert_eq(l.mtime, 1700000001L);
	/* The records cut short of their header's size: none read. */
	cr_assert_eq(xtr_label_parse(t.b, 512 + 10, &l), 0);
	/* No label first: a plain tar, or the file's header. */
	make_tar(&t, 0, NULL);
	cr_assert_eq(xtr_label_parse(t.b, t.len, &l), 0);
}

Test(label, parse_bad_pax_records)
{
	static const char *const bad[] = {
		"99 GNU.volume.label=x\n",	/* longer than the data */
		"5 GNU.volume.label=x\n",	/* shorter than its text */
		"x GNU.volume.label=x\n",	/* no length */
		"23 GNU.volume.label=xyz",	/* no newline at its end */
	};
	struct tarbuf t;
	struct xtr_label l;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		t.len = 0;
		(void)header(&t, 'g', "g", strlen(bad[i]), 1);
		data(&t, bad[i], strlen(bad[i]));
		cr_assert_eq(xtr_label_parse(t.b, t.len, &l), 0, "%s",
		    bad[i]);
	}
}

/* What the label hook saw. */
struct seen {
	int calls;
	char name[128];
	int64_t mtime;
	enum pfx_entry_type type;
	int64_t offset;
	int entries_before;	/* reports before the label */
	int reports;
};

static void
on_label(void *arg, const struct pfx_entry *e)
{
	struct seen *s = arg;

	s->calls++;
	(void)snprintf(s->name, sizeof(s->name), "%s", e->name);
	s->mtime = e->mtime;
	s->type = e->type;
	s->offset = e->offset;
	s->entries_before = s->reports;
}

static void
on_report(void *arg, const struct pfx_entry *e)
{
	struct seen *s = arg;

	(void)e;
	s->reports++;
}

/* OPT's defaults, with FLAGS and the hooks that fill S (cleared). */
static void
hooked_options(struct pfx_options *opt, unsigned int flags, struct seen *s)
{
	memset(s, 0, sizeof(*s));
	pfx_options_init(opt);
	opt->flags |= flags;
	opt->hooks.label = on_label;
	opt->hooks.report = on_report;
	opt->hooks.arg = s;
	opt->timeout = 20;
}

/* Extract BUF (LEN bytes) into dest with FLAGS and -V PATTERN (or
 * NULL). */
static enum pfx_status
run(const void *buf, size_t len, unsigned int flags, const char *pattern,
    struct seen *s, struct pfx_result *res)
{
	struct pfx_input in = { .fd = -1, .buf = buf, .len = len };
	struct pfx_options opt;

	hooked_options(&opt, flags, s);
	opt.volume_label = pattern;
	return pfx_extract(&in, destfd, ".", &opt, res);
}

static bool
extracted(void)
{
	struct stat st;

	return fstatat(destfd, "f", &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/* gzip LEN bytes of BUF into OUT (CAP bytes).  Return: its length. */
static size_t
gz(const void *buf, size_t len, unsigned char *out, size_t cap)
{
	z_stream z;

	memset(&z, 0, sizeof(z));
	cr_assert(deflateInit2(&z, 6, Z_DEFLATED, 31, 8,
	    Z_DEFAULT_STRATEGY) == Z_OK);
	z.next_in = (unsigned char *)(uintptr_t)buf;
	z.avail_in = (unsigned int)len;
	z.next_out = out;
	z.avail_out = (unsigned int)cap;
	cr_assert(deflate(&z, Z_FINISH) == Z_STREAM_END);
	(void)deflateEnd(&z);
	return cap - z.avail_out;
}

/* Each kind of label, in this process and with the decoder process,
 * plain and gzip: the hook sees it once, before the first entry, and
 * a matching -V extracts. */
Test(label, hook_and_match)
{
	static const unsigned int modes[] = { 0, PFX_OPT_SANDBOX_CHILD };
	static const char kinds[] = { 'V', 'g' };
	unsigned char z[16 * 512];
	struct pfx_result res;
	struct tarbuf t;
	struct seen s;
	size_t m, k, zlen;
	int comp;

	for (m = 0; m < 2; m++)
		for (k = 0; k < 2; k++)
			for (comp = 0; comp < 2; comp++) {
				make_tar(&t, kinds[k], "Vol 1");
				zlen = comp ? gz(t.b, t.len, z, sizeof(z)) : 0;
				(void)unlinkat(destfd, "f", 0);
				cr_assert_eq(run(comp ? (void *)z : t.b,
				    comp ? zlen : t.len, modes[m], "V*l ?", &s,
				    &res), PFX_OK, "%c %zu %d: %s", kinds[k],
				    m, comp, res.message);
				cr_assert_eq(s.calls, 1);
				cr_assert_str_eq(s.name, "Vol 1");
				cr_assert_eq(s.type, PFX_TYPE_OTHER);
				/* A pax record has no header of its own. */
				cr_assert_eq(s.offset, kinds[k] == 'V' ? 0 : -1);
				cr_assert_eq(s.entries_before, 0);
				cr_assert_eq(s.reports, 1);
				cr_assert_eq(res.stats.entries, 1);
				cr_assert(extracted());
			}
}

/* -V that does not match, or an archive without a label: fatal before
 * the first entry, nothing extracted; no hook call without a label. */
Test(label, mismatch_and_unlabelled_are_fatal)
{
	static const unsigned int modes[] = { 0, PFX_OPT_SANDBOX_CHILD };
	struct pfx_result res;
	struct tarbuf t;
	struct seen s;
	size_t m;

	for (m = 0; m < 2; m++) {
		make_tar(&t, 'V', "label");
		cr_assert_eq(run(t.b, t.len, modes[m], "lab", &s, &res),
		    PFX_FATAL);
		cr_assert_str_eq(res.message,
		    "Volume 'label' does not match 'lab'");
		cr_assert_eq(res.error, EINVAL);
		cr_assert(s.reports == 0 && !extracted());
		make_tar(&t, 0, NULL);
		cr_assert_eq(run(t.b, t.len, modes[m], "label", &s, &res),
		    PFX_FATAL);
		cr_assert_str_eq(res.message,
		    "Archive not labeled to match 'label'");
		cr_assert(s.calls == 0 && s.reports == 0 && !extracted());
		/* Without -V an unlabelled archive is as ever. */
		cr_assert_eq(run(t.b, t.len, modes[m], NULL, &s, &res),
		    PFX_OK);
		cr_assert(s.calls == 0 && extracted());
		(void)unlinkat(destfd, "f", 0);
	}
}

/* A label alone (GNU tar -cf a.tar -V l -T /dev/null): told at the end. */
Test(label, label_alone)
{
	struct pfx_result res;
	struct tarbuf t;
	struct seen s;

	t.len = 0;
	(void)header(&t, 'V', "label", 0, 5);
	memset(t.b + t.len, 0, 1024);
	t.len += 1024;
	cr_assert_eq(run(t.b, t.len, PFX_OPT_LIST, "l*l", &s, &res), PFX_OK,
	    "%s", res.message);
	cr_assert(s.calls == 1 && s.reports == 0);
	cr_assert_eq(run(t.b, t.len, PFX_OPT_SANDBOX_CHILD | PFX_OPT_LIST,
	    "bel", &s, &res), PFX_FATAL);
}

/* Read in this process, and by the decoder process. */
static const unsigned int sandbox_modes[] = { 0, PFX_OPT_SANDBOX_CHILD };

/* --test-label (PFX_OPT_LABEL_ONLY): BUF (LEN bytes) with MEMBERS (N)
 * and FLAGS. */
static enum pfx_status
run_label_only(const void *buf, size_t len, unsigned int flags,
    const char *const *members, size_t n, struct seen *s,
    struct pfx_result *res)
{
	struct pfx_input in = { .fd = -1, .buf = buf, .len = len };
	struct pfx_options opt;

	hooked_options(&opt, flags | PFX_OPT_LIST | PFX_OPT_LABEL_ONLY, s);
	opt.members = members;
	opt.nmembers = n;
	return pfx_extract(&in, -1, NULL, &opt, res);
}

/* As GNU tar, which reads the first header alone: with MODE, a damaged
 * block after a label read whole is no error; without a label it is. */
static void
reads_no_further(unsigned int mode)
{
	struct pfx_result res;
	struct tarbuf t;
	struct seen s;

	make_tar(&t, 'V', "Vol 1");
	memset(t.b + 512, 'x', 512);	/* the file's header */
	cr_assert_eq(run_label_only(t.b, t.len, mode, NULL, 0, &s, &res),
	    PFX_OK, "%s", res.message);
	cr_assert(s.calls == 1 && s.reports == 0);
	/* Cut in the block after the label, too. */
	cr_assert_eq(run_label_only(t.b, 700, mode, NULL, 0, &s, &res),
	    PFX_OK, "%s", res.message);
	cr_assert_eq(s.calls, 1);
	/* Without PFX_OPT_LABEL_ONLY, listing the same fails. */
	cr_assert_eq(run(t.b, t.len, mode | PFX_OPT_LIST, NULL, &s, &res),
	    PFX_FATAL);
	memset(t.b, 'x', 512);		/* no label left */
	cr_assert_eq(run_label_only(t.b, t.len, mode, NULL, 0, &s, &res),
	    PFX_FATAL);
	cr_assert(s.calls == 0 && res.message[0] != '\0');
}

/* Only the label is read: it is told, no entry is reported or counted,
 * and the members are matched against it (literally escaped, or as a
 * leading directory, as an entry's name), in this process and with the
 * decoder process, 'V' and pax labels; nothing after it is read. */
Test(label, label_only_matches_members)
{
	static const char kinds[] = { 'V', 'g' };
	static const char *const hit[] = { "nope", "Vol\\ 1" };
	static const char *const glob[] = { "V*" };
	static const char *const dir[] = { "Vol" };
	static const char *const miss[] = { "Vol 2", "V" };
	struct pfx_result res;
	struct tarbuf t;
	struct seen s;
	size_t m, k;

	for (m = 0; m < 2; m++)
		for (k = 0; k < 2; k++) {
			make_tar(&t, kinds[k], "Vol 1");
			cr_assert_eq(run_label_only(t.b, t.len, sandbox_modes[m], NULL,
			    0, &s, &res), PFX_OK, "%s", res.message);
			cr_assert(s.calls == 1 && s.reports == 0);
			cr_assert_str_eq(s.name, "Vol 1");
			cr_assert(res.stats.entries == 0 &&
			    res.stats.listed == 0 && res.stats.unmatched == 0);
			cr_assert_eq(run_label_only(t.b, t.len, sandbox_modes[m], hit,
			    2, &s, &res), PFX_OK, "%s", res.message);
			cr_assert(s.calls == 1 && res.stats.unmatched == 0);
			cr_assert_eq(run_label_only(t.b, t.len, sandbox_modes[m], glob,
			    1, &s, &res), PFX_OK);
			cr_assert_eq(run_label_only(t.b, t.len, sandbox_modes[m], miss,
			    2, &s, &res), PFX_REFUSED);
			cr_assert(s.calls == 1 && res.stats.unmatched == 1);
			/* "a" selects "a/b"; "Vol" is no directory of it. */
			cr_assert_eq(run_label_only(t.b, t.len, sandbox_modes[m], dir,
			    1, &s, &res), PFX_REFUSED);
			make_tar(&t, 'V', "Vol/1");
			cr_assert_eq(run_label_only(t.b, t.len, sandbox_modes[m], dir,
			    1, &s, &res), PFX_OK);
			/* No label: nothing told, no member matches. */
			make_tar(&t, 0, NULL);
			cr_assert_eq(run_label_only(t.b, t.len, sandbox_modes[m], NULL,
			    0, &s, &res), PFX_OK);
			cr_assert(s.calls == 0 && s.reports == 0);
			cr_assert_eq(run_label_only(t.b, t.len, sandbox_modes[m], glob,
			    1, &s, &res), PFX_REFUSED);
			cr_assert_eq(res.stats.unmatched, 1);
			if (k == 0)
				reads_no_further(sandbox_modes[m]);
		}
}

/* PFX_OPT_LABEL_ONLY reads, it never extracts: without PFX_OPT_LIST the
 * call is refused. */
Test(label, label_only_needs_list)
{
	struct tarbuf t;
	struct pfx_input in = { .fd = -1, .buf = t.b };
	struct pfx_result res;
	struct pfx_options opt;

	make_tar(&t, 'V', "Vol 1");
	in.len = t.len;
	pfx_options_init(&opt);
	opt.flags |= PFX_OPT_LABEL_ONLY;
	cr_assert_eq(pfx_extract(&in, destfd, ".", &opt, &res), PFX_FATAL);
	cr_assert_eq(res.error, EINVAL);
	cr_assert(strstr(res.message, "PFX_OPT_LABEL_ONLY") != NULL);
	cr_assert(!extracted());
}

/* --- the LABEL message (wire.h) ------------------------------------------ */

struct stream {
	unsigned char buf[16384];
	size_t len;
};

static void
put_confined(struct stream *s)
{
	struct pfx_sandbox_info info;

	memset(&info, 0, sizeof(info));
	(void)snprintf(info.text, sizeof(info.text), "test");
	s->len += wire_put_confined(s->buf + s->len, 0, &info);
}

static void
put_file(struct stream *s)
{
	struct wire_header h;

	memset(&h, 0, sizeof(h));
	h.format = 0x30002;
	h.filetype = AE_IFREG;
	h.perm = 0644;
	h.flags = WIRE_SIZE_SET;
	h.str[WIRE_NAME] = "f";
	h.len[WIRE_NAME] = 1;
	s->len += wire_put_header(s->buf + s->len, sizeof(s->buf) - s->len,
	    &h, NULL);
	s->len += wire_put_end(s->buf + s->len, WIRE_DATA_END, WIRE_OK, 0,
	    NULL);
}

static void
put_label(struct stream *s, const char *label)
{
	struct tarbuf t;

	make_tar(&t, 'V', label);
	s->len += wire_put_label(s->buf + s->len, t.b, 512);
}

static enum pfx_status
play(const struct stream *s, struct seen *seen, struct pfx_result *res)
{
	struct pfx_options opt;
	int p[2];

	cr_assert(pipe(p) == 0);
	cr_assert(write(p[1], s->buf, s->len) == (ssize_t)s->len);
	cr_assert(close(p[1]) == 0);
	memset(seen, 0, sizeof(*seen));
	pfx_options_init(&opt);
	opt.flags |= PFX_OPT_LIST;
	opt.hooks.label = on_label;
	opt.hooks.report = on_report;
	opt.hooks.arg = seen;
	opt.idle_timeout = 5;
	opt.timeout = 20;
	return xtr_extract_wire(p[0], destfd, ".", &opt, res);
}

/* LABEL before the first HEADER is read as the archive's first bytes;
 * after one, or twice, or empty, it breaks the contract. */
Test(label, wire_label_place)
{
	struct pfx_result res;
	struct stream s;
	struct seen seen;

	s.len = 0;
	put_confined(&s);
	put_label(&s, "wired");
	put_file(&s);
	s.len += wire_put_end(s.buf + s.len, WIRE_END, WIRE_OK, 0, NULL);
	cr_assert_eq(play(&s, &seen, &res), PFX_OK, "%s", res.message);
	cr_assert(seen.calls == 1 && seen.entries_before == 0);
	cr_assert_str_eq(seen.name, "wired");

	s.len = 0;
	put_confined(&s);
	put_file(&s);
	put_label(&s, "late");
	s.len += wire_put_end(s.buf + s.len, WIRE_END, WIRE_OK, 0, NULL);
	cr_assert_eq(play(&s, &seen, &res), PFX_FATAL);
	cr_assert(strstr(res.message, "label message") != NULL, "%s",
	    res.message);

	s.len = 0;
	put_confined(&s);
	put_label(&s, "one");
	put_label(&s, "two");
	s.len += wire_put_end(s.buf + s.len, WIRE_END, WIRE_OK, 0, NULL);
	cr_assert_eq(play(&s, &seen, &res), PFX_FATAL);
	cr_assert_eq(res.error, EPROTO);
}
