/*
 * test_wire.c -- the checks the calling process makes of a decoder
 * process's messages (extract/wire.c, extract/remote.c), one broken rule
 * each: a NUL inside a header's name, a boolean of 66 in CONFINED (which
 * must leave the result's sandbox report zeroed), a data block that goes
 * back (a protocol error, EPROTO, with no file left under any name), and
 * an archive error the child names EPROTO (told as EIO: EPROTO is the
 * parent's word for a broken contract; ECANCELED too: the caller's stop).
 * The streams are made with
 * wire.c's own encoders and played through xtr_extract_wire() from a
 * pipe, with no child.  Data that ends short of its header's size is a
 * read error (file.c), and one of its size is extracted.  A GNU dump
 * directory whose data has a hole is refused (dumpdir.c), never handed
 * on with the heap's bytes in the hole.
 *
 * The extraction cases run in a fresh directory:
 *
 *	$TMPDIR/pfx-wire.XXXXXX/
 *	`-- dest/		the destination
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <malloc.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <archive_entry.h>
#include <criterion/criterion.h>

#include "engine.h"
#include "fixture.h"
#include "wire.h"

#define EPROTO_PREFIX "protocol error from the decoder process: "

/* A stream being written. */
struct stream {
	unsigned char buf[16384];
	size_t len;
};

static char top[PATH_MAX / 2];
static int destfd = -1;
static int nfds;

static void
fx_init(void)
{
	nfds = tfx_count_fds();
	destfd = tfx_temp_dest("wire", top, sizeof(top));
}

static void
fx_fini(void)
{
	tfx_temp_end(&destfd, top);
}

TestSuite(wire, .init = fx_init, .fini = fx_fini, .timeout = 30);

static void
put_confined(struct stream *s)
{
	struct pfx_sandbox_info info;

	memset(&info, 0, sizeof(info));
	info.fs = info.seccomp = true;
	(void)snprintf(info.text, sizeof(info.text), "test");
	s->len += wire_put_confined(s->buf + s->len, 0, &info);
}

/* A regular file's header, NAME of LEN bytes (NUL bytes and all), with
 * FLAGS besides WIRE_SIZE_SET. */
static void
put_file_flags(struct stream *s, const char *name, uint32_t len,
    int64_t size, uint32_t flags)
{
	struct wire_header h;
	size_t n;

	memset(&h, 0, sizeof(h));
	h.format = 0x30002;	/* pax */
	h.filetype = AE_IFREG;
	h.perm = 0644;
	h.flags = WIRE_SIZE_SET | flags;
	h.size = size;
	h.str[WIRE_NAME] = name;
	h.len[WIRE_NAME] = len;
	n = wire_put_header(s->buf + s->len, sizeof(s->buf) - s->len, &h,
	    NULL);
	cr_assert(n > 0);
	s->len += n;
}

/* The same with no other flag. */
static void
put_file(struct stream *s, const char *name, uint32_t len, int64_t size)
{
	put_file_flags(s, name, len, size, 0);
}

static void
put_data(struct stream *s, int64_t offset, const char *bytes)
{
	size_t n = strlen(bytes), head;

	head = wire_put_data_head(s->buf + s->len, offset, 0, n);
	memcpy(s->buf + s->len + head, bytes, n);
	s->len += head + n;
}

static void
put_end(struct stream *s, int type, int status, int error)
{
	s->len += wire_put_end(s->buf + s->len, type, status, error,
	    status == WIRE_OK ? NULL : "the archive's own error");
}

/* Play S through the engine into dest with the defaults and FLAGS, and
 * REPORT as the report hook.  Return: the status. */
static enum pfx_status
play_with(const struct stream *s, unsigned int flags,
    void (*report)(void *, const struct pfx_entry *), struct pfx_result *res)
{
	struct pfx_options opt;
	int p[2];

	cr_assert(pipe(p) == 0);
	cr_assert(write(p[1], s->buf, s->len) == (ssize_t)s->len);
	cr_assert(close(p[1]) == 0);
	pfx_options_init(&opt);
	opt.flags |= flags;
	opt.hooks.report = report;
	opt.idle_timeout = 5;
	opt.timeout = 20;
	return xtr_extract_wire(p[0], destfd, ".", &opt, res);
}

/* Play S through the engine into dest.  Return: the status. */
static enum pfx_status
play(const struct stream *s, struct pfx_result *res)
{
	return play_with(s, 0, NULL, res);
}

/* Is dest empty: no file, no temporary? */
static bool
dest_empty(void)
{
	char **names = NULL;
	ssize_t n, i;

	n = tfx_read_names(destfd, ".", &names);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return n == 0;
}

Test(wire, header_refuses_nul_in_name)
{
	struct stream s = { .len = 0 };
	struct wire_header h;

	/* The same header with "a/b" passes: only the NUL breaks it. */
	put_file(&s, "a/b", 3, 0);
	cr_assert_eq(wire_get_header(s.buf + WIRE_HEAD, s.len - WIRE_HEAD,
	    &h), 0);
	cr_assert(h.len[WIRE_NAME] == 3 && memcmp(h.str[WIRE_NAME], "a/b",
	    3) == 0);
	s.len = 0;
	put_file(&s, "a\0b", 3, 0);
	cr_assert_eq(wire_get_header(s.buf + WIRE_HEAD, s.len - WIRE_HEAD,
	    &h), -1, "a NUL inside a name must break the contract");
}

Test(wire, confined_refuses_boolean_66)
{
	struct stream s = { .len = 0 };
	struct pfx_sandbox_info info;
	unsigned char b;
	int r = 1;

	put_confined(&s);
	cr_assert_eq(wire_get_confined(s.buf + WIRE_HEAD, s.len - WIRE_HEAD,
	    &r, &info), 0);
	cr_assert(r == 0 && info.fs && info.seccomp &&
	    strcmp(info.text, "test") == 0);
	/* Body: result, ABI, then the booleans, fs first. */
	s.buf[WIRE_HEAD + 8] = 66;
	memset(&info, 0xaa, sizeof(info));
	cr_assert_eq(wire_get_confined(s.buf + WIRE_HEAD, s.len - WIRE_HEAD,
	    &r, &info), -1, "a boolean of 66 must break the contract");
	/* Nothing of the child's is left in the caller's report. */
	memcpy(&b, &info.fs, 1);
	cr_assert(b == 0 && info.text[0] == '\0');
}

Test(wire, data_going_back_is_a_protocol_error)
{
	struct stream s = { .len = 0 };
	struct pfx_result res;

	put_confined(&s);
	put_file(&s, "f", 1, 10);
	put_data(&s, 5, "later");
	put_data(&s, 0, "first");
	put_end(&s, WIRE_DATA_END, WIRE_OK, 0);
	put_end(&s, WIRE_END, WIRE_OK, 0);
	cr_assert_eq(play(&s, &res), PFX_FATAL);
	cr_assert_eq(res.error, EPROTO, "error %d: %s", res.error,
	    res.message);
	cr_assert(strncmp(res.message, EPROTO_PREFIX,
	    strlen(EPROTO_PREFIX)) == 0, "%s", res.message);
	cr_assert(strstr(res.message, "before the previous one") != NULL,
	    "%s", res.message);
	cr_assert_eq(res.stats.failed, 1);
	cr_assert(dest_empty(), "the file, or its temporary, was left");
	cr_assert_eq(tfx_count_fds(), nfds + 1);	/* destfd alone */
}

Test(wire, archive_error_named_eproto_is_eio)
{
	struct stream s = { .len = 0 };
	struct pfx_result res;

	put_confined(&s);
	put_end(&s, WIRE_END, WIRE_FATAL, EPROTO);
	cr_assert_eq(play(&s, &res), PFX_FATAL);
	cr_assert_eq(res.error, EIO, "error %d: %s", res.error, res.message);
	cr_assert(strncmp(res.message, EPROTO_PREFIX,
	    strlen(EPROTO_PREFIX)) != 0, "%s", res.message);
}

/* The report hook of the test below: the last entry's reason. */
static char last_reason[64];

static void
keep_reason(void *arg, const struct pfx_entry *e)
{
	(void)arg;
	(void)snprintf(last_reason, sizeof(last_reason), "%s",
	    e->reason != NULL ? e->reason : "");
}

/* ECANCELED is the caller's stop: a child that names it, for the archive
 * or for an entry's data, is told as EIO, and the entry failed as a read
 * error, not "interrupted". */
Test(wire, archive_error_named_ecanceled_is_eio)
{
	struct stream s = { .len = 0 };
	struct pfx_result res;

	put_confined(&s);
	s.len += wire_put_end(s.buf + s.len, WIRE_END, WIRE_FATAL, ECANCELED,
	    "interrupted");
	cr_assert_eq(play(&s, &res), PFX_FATAL);
	cr_assert_eq(res.error, EIO, "error %d: %s", res.error, res.message);
	cr_assert_str_neq(res.message, "interrupted");

	s.len = 0;
	put_confined(&s);
	put_file(&s, "f", 1, 10);
	put_data(&s, 0, "first");
	s.len += wire_put_end(s.buf + s.len, WIRE_DATA_END, WIRE_FATAL,
	    ECANCELED, "interrupted");
	put_end(&s, WIRE_END, WIRE_FATAL, EIO);
	last_reason[0] = '\0';
	cr_assert_eq(play_with(&s, 0, keep_reason, &res), PFX_FATAL);
	cr_assert_eq(res.error, EIO, "error %d: %s", res.error, res.message);
	cr_assert_str_eq(last_reason, "read_error");
	cr_assert(dest_empty(), "the file, or its temporary, was left");
}

/* A whole stream of one file F, its header saying SIZE, its data BYTES
 * at offset 0, and ends that say all is well. */
static void
put_one_file(struct stream *s, int64_t size, const char *bytes)
{
	put_confined(s);
	put_file(s, "f", 1, size);
	put_data(s, 0, bytes);
	put_end(s, WIRE_DATA_END, WIRE_OK, 0);
	put_end(s, WIRE_END, WIRE_OK, 0);
}

Test(wire, data_short_of_its_size_is_a_read_error)
{
	struct stream s = { .len = 0 };
	struct pfx_result res;
	char bytes[101];

	/* A header of 1000 bytes, then 100 and an end that says all is
	 * well (libarchive's rar5 ends a volume's part so): a read error,
	 * and no file under any name. */
	memset(bytes, 'x', 100);
	bytes[100] = '\0';
	put_one_file(&s, 1000, bytes);
	cr_assert_eq(play(&s, &res), PFX_FATAL);
	cr_assert_eq(res.error, EIO, "error %d: %s", res.error, res.message);
	cr_assert_str_eq(res.message, "f: archive data cannot be read: the "
	    "entry's data ends short of its size (100 of 1000 bytes)");
	cr_assert_eq(res.stats.failed, 1);
	cr_assert(dest_empty(), "the short file, or its temporary, was left");
	cr_assert_eq(tfx_count_fds(), nfds + 1);	/* destfd alone */
}

Test(wire, data_of_its_size_is_extracted)
{
	struct stream s = { .len = 0 };
	struct pfx_result res;

	/* The same stream with the size the data has extracts. */
	put_one_file(&s, 5, "hello");
	cr_assert_eq(play(&s, &res), PFX_OK, "%s", res.message);
	cr_assert_eq(res.stats.extracted, 1);
	cr_assert(!dest_empty());
}

/* *H: a character device "dev" of a pax archive, MAJOR,MINOR, whose
 * header starts at POS. */
static void
dev_header(struct wire_header *h, int64_t major, int64_t minor, int64_t pos)
{
	memset(h, 0, sizeof(*h));
	h->format = 0x30002;	/* pax: a tar */
	h->filetype = AE_IFCHR;
	h->perm = 0600;
	h->devmajor = major;
	h->devminor = minor;
	h->pos = pos;
	h->str[WIRE_NAME] = "dev";
	h->len[WIRE_NAME] = 3;
}

/* A device's numbers and the header's position travel; a regular file
 * with device numbers, numbers past 32 bits or a position below -1
 * break the contract. */
Test(wire, header_device_numbers_and_position)
{
	struct stream s = { .len = 0 };
	struct wire_header h, got;

	dev_header(&h, 4, 5, 1536);
	s.len = wire_put_header(s.buf, sizeof(s.buf), &h, NULL);
	cr_assert(s.len > 0);
	cr_assert_eq(wire_get_header(s.buf + WIRE_HEAD, s.len - WIRE_HEAD,
	    &got), 0);
	cr_assert(got.devmajor == 4 && got.devminor == 5 && got.pos == 1536);

	h.filetype = AE_IFREG;
	s.len = wire_put_header(s.buf, sizeof(s.buf), &h, NULL);
	cr_assert_eq(wire_get_header(s.buf + WIRE_HEAD, s.len - WIRE_HEAD,
	    &got), -1, "device numbers on a regular file");
	h.filetype = AE_IFBLK;
	h.devminor = (int64_t)UINT32_MAX + 1;
	s.len = wire_put_header(s.buf, sizeof(s.buf), &h, NULL);
	cr_assert_eq(wire_get_header(s.buf + WIRE_HEAD, s.len - WIRE_HEAD,
	    &got), -1, "a minor past 32 bits");
	h.devminor = 5;
	h.pos = -2;
	s.len = wire_put_header(s.buf, sizeof(s.buf), &h, NULL);
	cr_assert_eq(wire_get_header(s.buf + WIRE_HEAD, s.len - WIRE_HEAD,
	    &got), -1, "a position below -1");
}

/* The report hook of the listing test: the last entry seen. */
static struct pfx_entry seen;

static void
keep_entry(void *arg, const struct pfx_entry *e)
{
	(void)arg;
	seen = *e;
	seen.name = seen.path = seen.link_target = NULL;
	seen.uname = seen.gname = seen.reason = NULL;
}

/* Play S as a listing, with keep_entry() as the report hook. */
static enum pfx_status
play_list(const struct stream *s, struct pfx_result *res)
{
	return play_with(s, PFX_OPT_LIST, keep_entry, res);
}

/* TOTAL gives the result's archive_bytes; the entry its device numbers
 * and header position. */
Test(wire, total_and_entry_fields_reach_the_caller)
{
	struct stream s = { .len = 0 };
	struct wire_header h;
	struct pfx_result res;

	put_confined(&s);
	dev_header(&h, 8, 17, 3072);
	s.len += wire_put_header(s.buf + s.len, sizeof(s.buf) - s.len, &h,
	    NULL);
	put_end(&s, WIRE_DATA_END, WIRE_OK, 0);
	s.len += wire_put_total(s.buf + s.len, 10240);
	put_end(&s, WIRE_END, WIRE_OK, 0);
	memset(&seen, 0, sizeof(seen));
	cr_assert_eq(play_list(&s, &res), PFX_OK, "%s", res.message);
	cr_assert_eq(res.archive_bytes, 10240);
	cr_assert_eq(res.tar, 1);
	cr_assert(seen.type == PFX_TYPE_CHAR && seen.devmajor == 8 &&
	    seen.devminor == 17 && seen.offset == 3072);
}

/* TOTAL twice, or before a fatal END, breaks the contract. */
Test(wire, total_out_of_place_is_a_protocol_error)
{
	struct stream s = { .len = 0 };
	struct pfx_result res;

	put_confined(&s);
	s.len += wire_put_total(s.buf + s.len, 512);
	s.len += wire_put_total(s.buf + s.len, 512);
	put_end(&s, WIRE_END, WIRE_OK, 0);
	cr_assert_eq(play_list(&s, &res), PFX_FATAL);
	cr_assert_eq(res.error, EPROTO);
	cr_assert(strncmp(res.message, EPROTO_PREFIX,
	    strlen(EPROTO_PREFIX)) == 0, "%s", res.message);

	s.len = 0;
	put_confined(&s);
	s.len += wire_put_total(s.buf + s.len, 512);
	put_end(&s, WIRE_END, WIRE_FATAL, EIO);
	cr_assert_eq(play_list(&s, &res), PFX_FATAL);
	cr_assert_eq(res.error, EPROTO, "%s", res.message);
}

/* What pfx_options.warning was told: "WHAT NAME\n" per call. */
static char warned[4096];

static void
on_warning(void *arg, const char *what, const char *name)
{
	size_t n = strlen(warned);

	(void)arg;
	(void)snprintf(warned + n, sizeof(warned) - n, "%s %s\n", what, name);
}

/* Play S as a listing with on_warning() as the warning hook. */
static enum pfx_status
play_warned(const struct stream *s, struct pfx_result *res)
{
	struct pfx_options opt;
	int p[2];

	warned[0] = '\0';
	cr_assert(pipe(p) == 0);
	cr_assert(write(p[1], s->buf, s->len) == (ssize_t)s->len);
	cr_assert(close(p[1]) == 0);
	pfx_options_init(&opt);
	opt.flags |= PFX_OPT_LIST;
	opt.warning = on_warning;
	opt.idle_timeout = 5;
	opt.timeout = 20;
	return xtr_extract_wire(p[0], destfd, ".", &opt, res);
}

/* A NOTE (a member a later volume continues by its name's first 100
 * bytes) reaches the warning hook wherever it comes after CONFINED: in
 * an entry's data, or between entries. */
Test(wire, note_reaches_the_warning_hook)
{
	struct stream s = { .len = 0 };
	struct pfx_result res;

	put_confined(&s);
	put_file(&s, "f", 1, 3);
	s.len += wire_put_note(s.buf + s.len, "f", 1);
	put_data(&s, 0, "abc");
	put_end(&s, WIRE_DATA_END, WIRE_OK, 0);
	s.len += wire_put_note(s.buf + s.len, "long/name", 9);
	put_end(&s, WIRE_END, WIRE_OK, 0);
	cr_assert_eq(play_warned(&s, &res), PFX_OK, "%s", res.message);
	cr_assert_str_eq(warned, "truncated_name f\n"
	    "truncated_name long/name\n");
}

/* A HEADER that says WIRE_DAMAGED or WIRE_UNCONVERTED (libarchive read
 * it whole but warned) reaches the warning hook as "header_damaged" or
 * "name_not_converted" with its name; a flag bit past WIRE_FLAGS is a
 * protocol error, never ignored. */
Test(wire, warned_header_reaches_the_warning_hook)
{
	struct stream s = { .len = 0 };
	struct pfx_result res;

	put_confined(&s);
	put_file_flags(&s, "f", 1, 3, WIRE_DAMAGED);
	put_data(&s, 0, "abc");
	put_end(&s, WIRE_DATA_END, WIRE_OK, 0);
	put_file(&s, "g", 1, 0);
	put_end(&s, WIRE_DATA_END, WIRE_OK, 0);
	put_file_flags(&s, "h", 1, 0, WIRE_UNCONVERTED);
	put_end(&s, WIRE_DATA_END, WIRE_OK, 0);
	put_end(&s, WIRE_END, WIRE_OK, 0);
	cr_assert_eq(play_warned(&s, &res), PFX_OK, "%s", res.message);
	cr_assert_str_eq(warned, "header_damaged f\nname_not_converted h\n");

	s.len = 0;
	put_confined(&s);
	put_file_flags(&s, "f", 1, 0, (WIRE_FLAGS + 1) & ~WIRE_FLAGS);
	put_end(&s, WIRE_DATA_END, WIRE_OK, 0);
	put_end(&s, WIRE_END, WIRE_OK, 0);
	cr_assert_eq(play_warned(&s, &res), PFX_FATAL);
	cr_assert_eq(res.error, EPROTO, "%s", res.message);
}

/* SKIPs (a volume out of sequence skipped: another member's, from
 * another offset, or with another size) reach the warning hook with their code, and several
 * NOTEs and SKIPs in a row, before the next message, are all told, in
 * order (volumes skipped, then the next one's name cut). */
Test(wire, skips_reach_the_warning_hook_in_order)
{
	struct stream s = { .len = 0 };
	struct pfx_result res;

	put_confined(&s);
	put_file(&s, "f", 1, 3);
	s.len += wire_put_skip(s.buf + s.len, WIRE_SKIP_OTHER, "f", 1);
	s.len += wire_put_skip(s.buf + s.len, WIRE_SKIP_OFFSET, "f", 1);
	s.len += wire_put_skip(s.buf + s.len, WIRE_SKIP_SIZE, "f", 1);
	s.len += wire_put_note(s.buf + s.len, "f", 1);
	put_data(&s, 0, "abc");
	put_end(&s, WIRE_DATA_END, WIRE_OK, 0);
	s.len += wire_put_skip(s.buf + s.len, WIRE_SKIP_OTHER, "g", 1);
	put_end(&s, WIRE_END, WIRE_OK, 0);
	cr_assert_eq(play_warned(&s, &res), PFX_OK, "%s", res.message);
	cr_assert_str_eq(warned, "not_continued f\nout_of_sequence f\n"
	    "wrong_size f\ntruncated_name f\nnot_continued g\n");
}

/* A NOTE (KIND 0) or SKIP (1, 2: each why) of NAME (LEN bytes) onto S. */
static void
put_told(struct stream *s, int kind, const char *name, size_t len)
{
	s->len += kind == 0 ? wire_put_note(s->buf + s->len, name, len) :
	    wire_put_skip(s->buf + s->len, kind == 1 ? WIRE_SKIP_OTHER :
	    WIRE_SKIP_OFFSET, name, len);
}

/* A NOTE or SKIP before CONFINED, holding a NUL, or one more than there
 * can be volumes (NOTEs and SKIPs together), or a SKIP of an unknown why
 * breaks the contract; none is told then. */
Test(wire, note_out_of_contract_is_a_protocol_error)
{
	struct stream s = { .len = 0 };
	struct pfx_result res;
	size_t i;
	int round, kind;

	cr_assert_eq(wire_put_note(s.buf, "", 0), 0);
	cr_assert_eq(wire_put_skip(s.buf, WIRE_SKIP_OTHER, "", 0), 0);
	cr_assert_eq(wire_put_skip(s.buf, 'x', "f", 1), 0);
	for (kind = 0; kind < 2; kind++)
	for (round = 0; round < 4; round++) {
		s.len = 0;
		if (round == 0)
			put_told(&s, kind, "f", 1);
		put_confined(&s);
		if (round == 1)
			put_told(&s, kind, "a\0b", 3);
		for (i = 0; round == 2 && i <= PFX_MAX_VOLUMES; i++)
			put_told(&s, (int)(i % 3), "f", 1);
		if (round == 3) {	/* a SKIP's why byte, unknown */
			put_told(&s, 1, "f", 1);
			s.buf[s.len - 2] = kind == 0 ? 'x' : 0;
		}
		put_end(&s, WIRE_END, WIRE_OK, 0);
		cr_assert_eq(play_warned(&s, &res), PFX_FATAL, "round %d",
		    round);
		cr_assert_eq(res.error, EPROTO, "round %d: %s", round,
		    res.message);
		if (round != 2)
			cr_assert_str_eq(warned, "");
	}
}

/* What the report hook of play_dumpdir() was told: the dump list, and
 * the entry's reason. */
static char dumped[8192];
static size_t dumped_len;
static char dumped_reason[64];

static void
keep_dumpdir(void *arg, const struct pfx_entry *e)
{
	(void)arg;
	dumped_len = 0;
	if (e->dumpdir != NULL && e->dumpdir_len <= sizeof(dumped)) {
		memcpy(dumped, e->dumpdir, e->dumpdir_len);
		dumped_len = e->dumpdir_len;
	}
	(void)snprintf(dumped_reason, sizeof(dumped_reason), "%s",
	    e->reason != NULL ? e->reason : "");
}

/*
 * A GNU dump directory "d" of 4096 bytes whose one block is its last two
 * (a hole before them) must not hand the hooks the bytes of the heap the
 * list was read into: malloc(3) fills them with 'Y' here (M_PERTURB,
 * which a sanitizer's malloc does not take: the refusal is checked all
 * the same), a list of one name "YYY..." that check_records() found
 * good.  Refused as a malformed list.
 */
Test(wire, dumpdir_with_a_hole_is_refused)
{
	struct stream s = { .len = 0 };
	struct wire_header h;
	struct pfx_result res;
	size_t n;

	(void)mallopt(M_PERTURB, 'Y' ^ 0xff);
	put_confined(&s);
	memset(&h, 0, sizeof(h));
	h.format = 0x30004;	/* GNU tar */
	h.filetype = AE_IFDIR;
	h.perm = 0755;
	h.flags = WIRE_SIZE_SET;
	h.size = 4096;
	h.str[WIRE_NAME] = "d";
	h.len[WIRE_NAME] = 1;
	n = wire_put_header(s.buf + s.len, sizeof(s.buf) - s.len, &h, NULL);
	cr_assert(n > 0);
	s.len += n;
	s.len += wire_put_data_head(s.buf + s.len, 4094, 0, 2);
	memcpy(s.buf + s.len, "\0\0", 2);
	s.len += 2;
	put_end(&s, WIRE_DATA_END, WIRE_OK, 0);
	put_end(&s, WIRE_END, WIRE_OK, 0);
	dumped_len = 0;
	dumped_reason[0] = '\0';
	(void)play_with(&s, PFX_OPT_LIST | PFX_OPT_INCREMENTAL, keep_dumpdir,
	    &res);
	cr_assert(dumped_len == 0 || memchr(dumped, 'Y', dumped_len) == NULL,
	    "the heap's bytes were handed over as the dump list (%zu bytes)",
	    dumped_len);
	cr_assert_str_eq(dumped_reason, "dumpdir_bad");
}
