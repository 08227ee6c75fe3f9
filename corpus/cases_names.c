/*
 * cases_names.c -- hostile entry names: zip-slip and its variants ("..",
 * absolute names, empty and "."-only names), names cut by a NUL byte,
 * control bytes and invalid UTF-8, over-long names and components, the
 * records that override a header's name (GNU 'L'/'K', pax path, linkpath,
 * global headers, duplicates, a pax size that hides or reveals an entry),
 * the same climb in every format and through every filter, the names that
 * are dangerous on Windows in zip archives, backslashes in tar, and
 * --strip-components exposing a "..".  Most archives put a good entry
 * beside the hostile one, so that the cases also show good entries
 * survive.
 */
#include <stdio.h>
#include <string.h>

#include "gen.h"

/* From dest, seven ".." reach the tree's root, beside outside/. */
#define UP7	"../../../../../../.."

/* A good file and a hostile one, in FORMAT through FILTER. */
static void
dotdot_in(const char *name, const char *format, const char *filter)
{
	struct archive *a = gen_open(name, format, filter);

	gen_file(a, "good", "good", 0644);
	gen_file(a, "../evil", "evil", 0644);
	gen_close(a);
}

/* A pax extended header whose records may hold any bytes (a NUL). */
static void
pax_bytes(struct gen_buf *b, char type, const char *rec, size_t len)
{
	struct gen_buf body = { 0 };
	char num[24];
	size_t digits = 1, total;

	for (;;) {
		total = len + 2 + digits;
		if ((size_t)snprintf(num, sizeof(num), "%zu", total) == digits)
			break;
		digits++;
	}
	gen_buf_add(&body, num, digits);
	gen_buf_add(&body, " ", 1);
	gen_buf_add(&body, rec, len);
	gen_buf_add(&body, "\n", 1);
	raw_tar_header(b, "ustar", "PaxHeaders/x", 12, type, 0644, body.len,
	    NULL, 0);
	raw_tar_data(b, body.p, body.len);
	gen_buf_free(&body);
}

/* A raw file entry "good" holding "good". */
static void
raw_good(struct gen_buf *b)
{
	raw_tar_file(b, "good", "good");
}

/* "../x" beside a good file (Snyk's zip-slip, 2018). */
static void
dotdot_ustar(const char *name)
{
	dotdot_in(name, "ustar", NULL);
}

/* "a/../../x": a ".." that climbs only after a step down. */
static void
dotdot_inner(const char *name)
{
	struct archive *a = gen_open(name, "ustar", NULL);

	gen_file(a, "a/good", "good", 0644);
	gen_file(a, "a/../../evil", "evil", 0644);
	gen_file(a, "a/b/../../../evil", "evil", 0644);
	gen_close(a);
}

/* "./../x": a "." in front of the climb. */
static void
dotdot_dotslash(const char *name)
{
	struct archive *a = gen_open(name, "ustar", NULL);

	gen_file(a, "good", "good", 0644);
	gen_file(a, "./../evil", "evil", 0644);
	gen_file(a, "././../evil", "evil", 0644);
	gen_close(a);
}

/* Seven ".." from dest, into the tree's outside/ directory. */
static void
dotdot_outside(const char *name)
{
	struct archive *a = gen_open(name, "pax", NULL);

	gen_file(a, "good", "good", 0644);
	gen_dir(a, UP7 "/outside/newdir", 0755);
	gen_file(a, UP7 "/outside/secret", "evil", 0644);
	gen_file(a, UP7 "/outside/dir/keep", "evil", 0644);
	gen_close(a);
}

/* Names whose ".." stays inside: normalised, not refused. */
static void
dotdot_contained(const char *name)
{
	struct archive *a = gen_open(name, "ustar", NULL);

	gen_file(a, "a/./b//c/../d", "d", 0644);
	gen_file(a, "./x/../y", "y", 0644);
	gen_file(a, "a/b/..", "x", 0644);	/* the directory a itself */
	gen_close(a);
}

/* "...", "....", ".. " and ".x": ordinary names on Linux, not climbs. */
static void
dots_literal(const char *name)
{
	struct archive *a = gen_open(name, "ustar", NULL);

	gen_file(a, "...", "3", 0644);
	gen_file(a, "d/..../x", "4", 0644);
	gen_file(a, ".. ", "sp", 0644);
	gen_file(a, "..x", "x", 0644);
	gen_close(a);
}

/* Absolute names into the tree's outside/: two files, a directory. */
static void
abs_plain(const char *name)
{
	struct archive *a = gen_open(name, "pax", NULL);
	char buf[4096];

	gen_file(a, "good", "good", 0644);
	gen_file(a, gen_abs(buf, sizeof(buf), "outside/x"), "evil", 0644);
	gen_file(a, gen_abs(buf, sizeof(buf), "outside/secret"), "evil",
	    0644);
	gen_dir(a, gen_abs(buf, sizeof(buf), "outside/newdir"), 0755);
	gen_close(a);
}

/* "////" + absolute, "/./" and "/../": still absolute. */
static void
abs_slashes(const char *name)
{
	struct archive *a = gen_open(name, "pax", NULL);
	char buf[4096], n[4200];

	gen_file(a, "good", "good", 0644);
	snprintf(n, sizeof(n), "////%s", gen_abs(buf, sizeof(buf),
	    "outside/x"));
	gen_file(a, n, "evil", 0644);
	snprintf(n, sizeof(n), "/./%s", gen_abs(buf, sizeof(buf),
	    "outside/y"));
	gen_file(a, n, "evil", 0644);
	snprintf(n, sizeof(n), "/../../%s", gen_abs(buf, sizeof(buf),
	    "outside/z"));
	gen_file(a, n, "evil", 0644);
	gen_close(a);
}

/* An absolute name in cpio, which GNU cpio honours by default. */
static void
abs_cpio(const char *name)
{
	struct archive *a = gen_open(name, "newc", NULL);
	char buf[4096];

	gen_file(a, "good", "good", 0644);
	gen_file(a, gen_abs(buf, sizeof(buf), "outside/x"), "evil", 0644);
	gen_close(a);
}

/* An absolute name in zip (Snyk's zip-slip list). */
static void
abs_zip(const char *name)
{
	struct gen_zip z = { 0 };
	char buf[4096];
	const char *abs = gen_abs(buf, sizeof(buf), "outside/x");

	gen_zip_add(&z, "good", 4, 0, "good", 4, 4, gen_crc32("good", 4),
	    0100644u << 16);
	gen_zip_add(&z, abs, strlen(abs), 0, "evil", 4, 4,
	    gen_crc32("evil", 4), 0100644u << 16);
	gen_zip_finish(&z, name);
}

/* A raw tar header with an empty name field. */
static void
empty_tar(const char *name)
{
	struct gen_buf b = { 0 };

	raw_good(&b);
	raw_tar_header(&b, "ustar", "", 0, '0', 0644, 4, NULL, 0);
	raw_tar_data(&b, "evil", 4);
	raw_tar_end(&b);
	gen_buf_save(&b, name, NULL);
	gen_buf_free(&b);
}

/* A zip entry whose name is empty. */
static void
empty_zip(const char *name)
{
	struct gen_zip z = { 0 };

	gen_zip_add(&z, "good", 4, 0, "good", 4, 4, gen_crc32("good", 4),
	    0100644u << 16);
	gen_zip_add(&z, "", 0, 0, "evil", 4, 4, gen_crc32("evil", 4),
	    0100644u << 16);
	gen_zip_finish(&z, name);
}

/* ".", "./" and "./." as directories (dest itself), and as a file. */
static void
dot_only(const char *name)
{
	struct archive *a = gen_open(name, "ustar", NULL);

	gen_dir(a, ".", 0777);
	gen_dir(a, "./", 0700);
	gen_dir(a, "./.", 0777);
	gen_file(a, "./good", "good", 0644);
	gen_file(a, ".", "evil", 0644);
	gen_file(a, "./.", "evil", 0644);
	gen_close(a);
}

/* A NUL inside the raw name field: the field ends at the NUL. */
static void
nul_ustar(const char *name)
{
	static const char n[] = "nul-a\0../../../evil";
	struct gen_buf b = { 0 };

	raw_good(&b);
	raw_tar_header(&b, "ustar", n, sizeof(n) - 1, '0', 0644, 4, NULL, 0);
	raw_tar_data(&b, "cut!", 4);
	raw_tar_end(&b);
	gen_buf_save(&b, name, NULL);
	gen_buf_free(&b);
}

/* A pax path record holding a NUL before "../evil". */
static void
nul_pax(const char *name)
{
	static const char r[] = "path=nul-p\0../../../evil";
	static const char r2[] = "path=\0../../../evil2";
	struct gen_buf b = { 0 };

	raw_good(&b);
	pax_bytes(&b, 'x', r, sizeof(r) - 1);
	raw_tar_file(&b, "benign", "cut!");
	/* Nothing before the NUL: an empty override. */
	pax_bytes(&b, 'x', r2, sizeof(r2) - 1);
	raw_tar_file(&b, "benign2", "cut2");
	raw_tar_end(&b);
	gen_buf_save(&b, name, NULL);
	gen_buf_free(&b);
}

/* A GNU long name holding a NUL before "../evil". */
static void
nul_gnulong(const char *name)
{
	static const char n[] = "nul-l\0../../../evil";
	struct gen_buf b = { 0 };

	raw_good(&b);
	raw_tar_gnu_long(&b, 'L', n, sizeof(n) - 1);
	raw_tar_header(&b, "gnu", "benign", 6, '0', 0644, 4, NULL, 0);
	raw_tar_data(&b, "cut!", 4);
	raw_tar_end(&b);
	gen_buf_save(&b, name, NULL);
	gen_buf_free(&b);
}

/* A zip name holding a NUL: the length field counts past it. */
static void
nul_zip(const char *name)
{
	static const char n[] = "nul-z\0../../../evil";
	struct gen_zip z = { 0 };

	gen_zip_add(&z, "good", 4, 0, "good", 4, 4, gen_crc32("good", 4),
	    0100644u << 16);
	gen_zip_add(&z, n, sizeof(n) - 1, 0, "cut!", 4, 4,
	    gen_crc32("cut!", 4), 0100644u << 16);
	gen_zip_finish(&z, name);
}

/* Newline, carriage return and an ANSI escape in tar names. */
static void
ctrl_tar(const char *name)
{
	struct archive *a = gen_open(name, "pax", NULL);

	gen_file(a, "good", "good", 0644);
	gen_file(a, "nl\nforged: line", "nl", 0644);
	gen_file(a, "cr\rx", "cr", 0644);
	gen_file(a, "esc\033[2J\033]0;title\007x", "esc", 0644);
	gen_close(a);
}

/* Invalid UTF-8 in raw tar names, and an overlong "../" (C0 AE C0 AF). */
static void
utf8_tar(const char *name)
{
	struct gen_buf b = { 0 };

	raw_good(&b);
	raw_tar_file(&b, "bad-\xff\xfe", "ff");
	raw_tar_file(&b, "\xc0\xae\xc0\xae\xc0\xaf" "evil", "overlong");
	raw_tar_file(&b, "cut-\xe2\x82", "cut");
	raw_tar_end(&b);
	gen_buf_save(&b, name, NULL);
	gen_buf_free(&b);
}

/* Invalid UTF-8 in a pax path record, which POSIX says is UTF-8. */
static void
utf8_pax(const char *name)
{
	static const char *const r[] = { "path=pax-\xff\xfe", NULL };
	struct gen_buf b = { 0 };

	raw_good(&b);
	raw_tar_pax(&b, 'x', r);
	raw_tar_file(&b, "benign", "ff");
	raw_tar_end(&b);
	gen_buf_save(&b, name, NULL);
	gen_buf_free(&b);
}

/* Invalid UTF-8 in a zip name (no UTF-8 flag: read in the locale). */
static void
utf8_zip(const char *name)
{
	static const char n[] = "zip-\xff\xfe";
	struct gen_zip z = { 0 };

	gen_zip_add(&z, "good", 4, 0, "good", 4, 4, gen_crc32("good", 4),
	    0100644u << 16);
	gen_zip_add(&z, n, sizeof(n) - 1, 0, "ff", 2, 2, gen_crc32("ff", 2),
	    0100644u << 16);
	gen_zip_finish(&z, name);
}

/* A relative path of LEN bytes: components of up to 200 'a's. */
static void
long_path(char *out, size_t len)
{
	size_t i = 0;

	while (i < len) {
		size_t k;

		for (k = 0; k < 200 && i < len; k++)
			out[i++] = 'a';
		if (i + 1 < len)	/* never a trailing '/' */
			out[i++] = '/';
	}
	out[len] = '\0';
}

/*
 * pax path records of 4094 bytes (the longest pfextract takes: a name is
 * judged beneath the destination's "/", which takes one byte of the 4095
 * that PATH_MAX leaves) and 4095 (one over).
 */
static void
long_pax(const char *name)
{
	static char p[4200], rec[4300];
	const char *r[] = { rec, NULL };
	struct gen_buf b = { 0 };

	raw_good(&b);
	long_path(p, 4094);
	snprintf(rec, sizeof(rec), "path=%s", p);
	raw_tar_pax(&b, 'x', r);
	raw_tar_file(&b, "benign", "4094");
	p[0] = 'b';	/* another tree: the parents must not help */
	long_path(p + 1, 4094);
	p[1] = 'b';
	snprintf(rec, sizeof(rec), "path=%s", p);
	raw_tar_pax(&b, 'x', r);
	raw_tar_file(&b, "benign2", "4095");
	raw_tar_end(&b);
	gen_buf_save(&b, name, NULL);
	gen_buf_free(&b);
}

/* A GNU long name of 5000 bytes, over PATH_MAX. */
static void
long_gnu(const char *name)
{
	static char p[5100];
	struct gen_buf b = { 0 };

	raw_good(&b);
	long_path(p, 5000);
	raw_tar_gnu_long(&b, 'L', p, strlen(p));
	raw_tar_header(&b, "gnu", "benign", 6, '0', 0644, 4, NULL, 0);
	raw_tar_data(&b, "long", 4);
	raw_tar_end(&b);
	gen_buf_save(&b, name, NULL);
	gen_buf_free(&b);
}

/* One component of 255 bytes (allowed) and one of 256 (over NAME_MAX). */
static void
long_component(const char *name)
{
	static char p[300];
	struct archive *a = gen_open(name, "pax", NULL);

	gen_file(a, "good", "good", 0644);
	memcpy(p, "d/", 2);
	memset(p + 2, 'c', 255);
	p[257] = '\0';
	gen_file(a, p, "255", 0644);
	memset(p + 2, 'e', 256);
	p[258] = '\0';
	gen_file(a, p, "256", 0644);
	gen_close(a);
}

/* A GNU 'L' record replacing a benign header name by "../evil". */
static void
gnu_longname(const char *name)
{
	static const char n[] = "../evil";
	struct gen_buf b = { 0 };

	raw_good(&b);
	raw_tar_gnu_long(&b, 'L', n, sizeof(n) - 1);
	raw_tar_header(&b, "gnu", "benign", 6, '0', 0644, 4, NULL, 0);
	raw_tar_data(&b, "evil", 4);
	raw_tar_end(&b);
	gen_buf_save(&b, name, NULL);
	gen_buf_free(&b);
}

/*
 * GNU 'K' records: one turns a hard link to "good" into a link to
 * outside/secret, the other turns a link to "../evil" into one to "good".
 */
static void
gnu_longlink(const char *name)
{
	static const char out[] = UP7 "/outside/secret";
	struct gen_buf b = { 0 };

	raw_good(&b);
	raw_tar_gnu_long(&b, 'K', out, sizeof(out) - 1);
	raw_tar_header(&b, "gnu", "hl-out", 6, '1', 0644, 0, "good", 4);
	raw_tar_gnu_long(&b, 'K', "good", 4);
	raw_tar_header(&b, "gnu", "hl-good", 7, '1', 0644, 0, "../evil", 7);
	raw_tar_end(&b);
	gen_buf_save(&b, name, NULL);
	gen_buf_free(&b);
}

/* A pax path record replacing a benign header name by "../evil". */
static void
pax_path(const char *name)
{
	static const char *const r[] = { "path=../evil", NULL };
	static const char *const r2[] = { "path=renamed", NULL };
	struct gen_buf b = { 0 };

	raw_good(&b);
	raw_tar_pax(&b, 'x', r);
	raw_tar_file(&b, "benign", "evil");
	/* And the other way round: a hostile header name, a benign path. */
	raw_tar_pax(&b, 'x', r2);
	raw_tar_file(&b, "../evil2", "renamed");
	raw_tar_end(&b);
	gen_buf_save(&b, name, NULL);
	gen_buf_free(&b);
}

/* A pax linkpath record turning a hard link to "good" into one outside. */
static void
pax_linkpath(const char *name)
{
	static const char *const r[] = {
		"linkpath=" UP7 "/outside/secret", NULL
	};
	static const char *const r2[] = { "linkpath=good", NULL };
	struct gen_buf b = { 0 };

	raw_good(&b);
	raw_tar_pax(&b, 'x', r);
	raw_tar_header(&b, "ustar", "hl-out", 6, '1', 0644, 0, "good", 4);
	raw_tar_pax(&b, 'x', r2);
	raw_tar_header(&b, "ustar", "hl-good", 7, '1', 0644, 0, "../evil",
	    7);
	raw_tar_end(&b);
	gen_buf_save(&b, name, NULL);
	gen_buf_free(&b);
}

/* The same with symbolic links, under --symlinks=contain. */
static void
pax_linkpath_sym(const char *name)
{
	static const char *const r[] = {
		"linkpath=" UP7 "/outside/secret", NULL
	};
	static const char *const r2[] = { "linkpath=good", NULL };
	struct gen_buf b = { 0 };

	raw_good(&b);
	raw_tar_pax(&b, 'x', r);
	raw_tar_header(&b, "ustar", "sl-out", 6, '2', 0777, 0, "good", 4);
	raw_tar_pax(&b, 'x', r2);
	raw_tar_header(&b, "ustar", "sl-good", 7, '2', 0777, 0, "../evil",
	    7);
	raw_tar_end(&b);
	gen_buf_save(&b, name, NULL);
	gen_buf_free(&b);
}

/* A global pax header ('g') carrying path=../evil before two files. */
static void
pax_global(const char *name)
{
	static const char *const r[] = { "path=../evil", NULL };
	struct gen_buf b = { 0 };

	raw_tar_pax(&b, 'g', r);
	raw_good(&b);
	raw_tar_file(&b, "benign", "benign");
	raw_tar_end(&b);
	gen_buf_save(&b, name, NULL);
	gen_buf_free(&b);
}

/* Two path records in one header, in both orders: the last one counts. */
static void
pax_dup_path(const char *name)
{
	static const char *const r1[] = {
		"path=../evil", "path=dup-ok", NULL
	};
	static const char *const r2[] = {
		"path=dup-ok2", "path=../evil2", NULL
	};
	struct gen_buf b = { 0 };

	raw_good(&b);
	raw_tar_pax(&b, 'x', r1);
	raw_tar_file(&b, "benign", "one");
	raw_tar_pax(&b, 'x', r2);
	raw_tar_file(&b, "benign2", "two");
	raw_tar_end(&b);
	gen_buf_save(&b, name, NULL);
	gen_buf_free(&b);
}

/* Two 'x' headers before one entry, in both orders. */
static void
pax_x_after_x(const char *name)
{
	static const char *const evil[] = { "path=../evil", NULL };
	static const char *const ok[] = { "path=xx-ok", NULL };
	static const char *const evil2[] = { "path=../evil2", NULL };
	static const char *const ok2[] = { "path=xx-ok2", NULL };
	struct gen_buf b = { 0 };

	raw_good(&b);
	raw_tar_pax(&b, 'x', evil);
	raw_tar_pax(&b, 'x', ok);
	raw_tar_file(&b, "benign", "one");
	raw_tar_pax(&b, 'x', ok2);
	raw_tar_pax(&b, 'x', evil2);
	raw_tar_file(&b, "benign2", "two");
	raw_tar_end(&b);
	gen_buf_save(&b, name, NULL);
	gen_buf_free(&b);
}

/* A GNU long name and a pax path for one entry, disagreeing. */
static void
gnu_pax_conflict(const char *name)
{
	static const char *const ok[] = { "path=px-ok", NULL };
	static const char *const evil[] = { "path=../evil2", NULL };
	static const char l1[] = "../evil";
	struct gen_buf b = { 0 };

	raw_good(&b);
	raw_tar_gnu_long(&b, 'L', l1, sizeof(l1) - 1);
	raw_tar_pax(&b, 'x', ok);
	raw_tar_header(&b, "gnu", "benign", 6, '0', 0644, 3, NULL, 0);
	raw_tar_data(&b, "one", 3);
	raw_tar_gnu_long(&b, 'L', "ln-ok", 5);
	raw_tar_pax(&b, 'x', evil);
	raw_tar_header(&b, "gnu", "benign2", 7, '0', 0644, 3, NULL, 0);
	raw_tar_data(&b, "two", 3);
	raw_tar_end(&b);
	gen_buf_save(&b, name, NULL);
	gen_buf_free(&b);
}

/* A header for "../evil" and its data block: what one reader hides. */
static void
hidden_entry(struct gen_buf *h)
{
	raw_tar_header(h, "ustar", "../evil", 7, '0', 0644, 4, NULL, 0);
	raw_tar_data(h, "evil", 4);
}

/*
 * Entry smuggling (CVE-2025-62518, TARmageddon): the header says size 0,
 * pax size=1024; a reader that ignores the pax size sees "../evil".
 */
static void
pax_size_hide(const char *name)
{
	static const char *const r[] = { "size=1024", NULL };
	struct gen_buf b = { 0 }, h = { 0 };

	hidden_entry(&h);
	raw_tar_pax(&b, 'x', r);
	raw_tar_header(&b, "ustar", "carrier", 7, '0', 0644, 0, NULL, 0);
	gen_buf_add(&b, h.p, h.len);
	raw_good(&b);
	raw_tar_end(&b);
	gen_buf_save(&b, name, NULL);
	gen_buf_free(&b);
	gen_buf_free(&h);
}

/* The reverse: header size 1024, pax size=0 reveals the inner header. */
static void
pax_size_reveal(const char *name)
{
	static const char *const r[] = { "size=0", NULL };
	struct gen_buf b = { 0 }, h = { 0 };

	hidden_entry(&h);
	raw_tar_pax(&b, 'x', r);
	raw_tar_header(&b, "ustar", "carrier", 7, '0', 0644, 1024, NULL, 0);
	gen_buf_add(&b, h.p, h.len);
	raw_good(&b);
	raw_tar_end(&b);
	gen_buf_save(&b, name, NULL);
	gen_buf_free(&b);
	gen_buf_free(&h);
}

/* A ustar header with PREFIX in its prefix field, checksum redone. */
static void
prefix_header(struct gen_buf *b, const char *prefix, const char *n,
    const char *data)
{
	unsigned char *h;
	unsigned int sum = 0;
	size_t i, at = b->len;

	raw_tar_header(b, "ustar", n, strlen(n), '0', 0644, strlen(data),
	    NULL, 0);
	h = b->p + at;
	memcpy(h + 345, prefix, strlen(prefix));
	memset(h + 148, ' ', 8);
	for (i = 0; i < 512; i++)
		sum += h[i];
	snprintf((char *)h + 148, 8, "%06o", sum);
	h[155] = ' ';
	raw_tar_data(b, data, strlen(data));
}

/* The ustar prefix field holding "..": the joined name climbs. */
static void
ustar_prefix(const char *name)
{
	struct gen_buf b = { 0 };

	prefix_header(&b, "pre", "good", "good");
	prefix_header(&b, "..", "evil", "evil");
	prefix_header(&b, "a/../..", "evil2", "evil");
	raw_tar_end(&b);
	gen_buf_save(&b, name, NULL);
	gen_buf_free(&b);
}

/* The same "../" in every format libarchive writes. */
static void
dotdot_pax(const char *name)
{
	dotdot_in(name, "pax", NULL);
}

static void
dotdot_gnutar(const char *name)
{
	dotdot_in(name, "gnutar", NULL);
}

static void
dotdot_v7(const char *name)
{
	dotdot_in(name, "v7", NULL);
}

static void
dotdot_zip(const char *name)
{
	struct archive *a = gen_open(name, "zip", NULL);

	gen_file(a, "good", "good", 0644);
	gen_file(a, "../evil", "evil", 0644);
	gen_file(a, "a/../../evil2", "evil", 0644);
	gen_dir(a, "../evildir/", 0755);
	gen_close(a);
}

static void
dotdot_newc(const char *name)
{
	dotdot_in(name, "newc", NULL);
}

static void
dotdot_odc(const char *name)
{
	dotdot_in(name, "odc", NULL);
}

static void
dotdot_bin(const char *name)
{
	dotdot_in(name, "bin", NULL);
}

static void
dotdot_7zip(const char *name)
{
	dotdot_in(name, "7zip", NULL);
}

/* One ar member header: NAME (16 bytes, space padded) and SIZE. */
static void
ar_member(struct gen_buf *b, const char *n, const char *data, size_t size)
{
	char h[61];

	snprintf(h, sizeof(h), "%-16s%-12s%-6s%-6s%-8s%-10zu`\n", n,
	    "1700000000", "0", "0", "100644", size);
	gen_buf_add(b, h, 60);
	gen_buf_add(b, data, strlen(data));
	if (size % 2 != 0)
		gen_buf_add(b, "\n", 1);
}

/* "../" in ar: a GNU short name and a BSD "#1/" long name. */
static void
dotdot_ar(const char *name)
{
	struct gen_buf b = { 0 };

	gen_buf_add(&b, "!<arch>\n", 8);
	ar_member(&b, "good/", "good", 4);
	ar_member(&b, "../evil/", "evil", 4);
	/* BSD: the name is the first 8 bytes of the data. */
	ar_member(&b, "#1/8", "../evil2evil", 12);
	gen_buf_save(&b, name, NULL);
	gen_buf_free(&b);
}

/* The same "../" through every filter. */
static void
filter_gzip(const char *name)
{
	dotdot_in(name, "ustar", "gzip");
}

static void
filter_bzip2(const char *name)
{
	dotdot_in(name, "ustar", "bzip2");
}

static void
filter_xz(const char *name)
{
	dotdot_in(name, "pax", "xz");
}

static void
filter_lzma(const char *name)
{
	dotdot_in(name, "ustar", "lzma");
}

static void
filter_lzip(const char *name)
{
	dotdot_in(name, "gnutar", "lzip");
}

static void
filter_zstd(const char *name)
{
	dotdot_in(name, "pax", "zstd");
}

static void
filter_lz4(const char *name)
{
	dotdot_in(name, "newc", "lz4");
}

static void
filter_compress(const char *name)
{
	dotdot_in(name, "ustar", "compress");
}

/* Zip entries named by NAMES (a NULL-terminated list), and "good". */
static void
zip_names(const char *name, const char *const *names)
{
	struct archive *a = gen_open(name, "zip", NULL);
	size_t i;

	gen_file(a, "good", "good", 0644);
	for (i = 0; names[i] != NULL; i++)
		gen_file(a, names[i], "evil", 0644);
	gen_close(a);
}

/* Backslash separators: "a\..\..\evil" climbs on Windows. */
static void
zip_backslash(const char *name)
{
	static const char *const n[] = {
		"a\\..\\..\\evil", "..\\evil", NULL
	};

	zip_names(name, n);
}

/*
 * The same with the zip UTF-8 flag (a non-ASCII name makes libarchive's
 * writer set it): the reader keeps the backslashes as they are.
 */
static void
zip_backslash_utf8(const char *name)
{
	static const char *const n[] = {
		"\xc3\xa9\\..\\..\\evil", "\\\\server\\share\\\xc3\xa9",
		"\\\\?\\C:\\\xc3\xa9", "C:\\\xc3\xa9", NULL
	};

	zip_names(name, n);
}

/* Drive-relative and drive-absolute names. */
static void
zip_drive(const char *name)
{
	static const char *const n[] = {
		"C:\\evil", "C:..\\evil", "c:evil", "C:/evil", NULL
	};

	zip_names(name, n);
}

/* A UNC path with backslashes. */
static void
zip_unc(const char *name)
{
	static const char *const n[] = {
		"\\\\server\\share\\evil", NULL
	};

	zip_names(name, n);
}

/* Win32 device paths: "\\?\" and "\\.\" skip all normalisation. */
static void
zip_devpath(const char *name)
{
	static const char *const n[] = {
		"\\\\?\\C:\\evil", "\\\\.\\C:\\evil", NULL
	};

	zip_names(name, n);
}

/* Reserved device names, bare, with an extension, in a directory. */
static void
zip_reserved(const char *name)
{
	static const char *const n[] = {
		"CON", "aux.txt", "dir/NUL", "com1.log", "Lpt9", NULL
	};

	zip_names(name, n);
}

/* Trailing dots and spaces, which Windows drops ("evil." is "evil"). */
static void
zip_trailing(const char *name)
{
	static const char *const n[] = {
		"evil.", "evil ", "dir./x", NULL
	};

	zip_names(name, n);
}

/* An alternate data stream: "file:stream". */
static void
zip_stream(const char *name)
{
	static const char *const n[] = {
		"file:stream", "good:$DATA", NULL
	};

	zip_names(name, n);
}

/* Characters Windows forbids, a control byte among them. */
static void
zip_invalid_char(const char *name)
{
	static const char *const n[] = {
		"a<b", "q?", "x|y", "ctl\001x", "nl\nx", NULL
	};

	zip_names(name, n);
}

/* A stored zip local header alone (no central record). */
static uint32_t
zip_local(struct gen_zip *z, const char *n, const char *data)
{
	struct gen_zip tmp = { 0 };
	uint32_t off = (uint32_t)z->b.len;

	gen_zip_add(&tmp, n, strlen(n), 0, data, strlen(data),
	    (uint32_t)strlen(data), gen_crc32(data, strlen(data)),
	    0100644u << 16);
	gen_buf_add(&z->b, tmp.b.p, tmp.b.len);
	gen_buf_free(&tmp.b);
	gen_buf_free(&tmp.cd);
	return off;
}

/* The central directory says "benign", the local header "../evil". */
static void
zip_cd_mismatch(const char *name)
{
	struct gen_zip z = { 0 };
	uint32_t off;

	gen_zip_add(&z, "good", 4, 0, "good", 4, 4, gen_crc32("good", 4),
	    0100644u << 16);
	off = zip_local(&z, "../evil", "evil");
	gen_zip_central(&z, "benign!", 7, 0, 4, 4, gen_crc32("evil", 4), off,
	    0100644u << 16);
	gen_zip_finish(&z, name);
}

/*
 * Backslashes in tar names: an ordinary byte on POSIX, a separator under
 * --windows-names (the manifest runs the archive both ways).
 */
static void
tar_backslash(const char *name)
{
	struct archive *a = gen_open(name, "ustar", NULL);

	gen_file(a, "good", "good", 0644);
	gen_file(a, "a\\b", "ab", 0644);
	gen_file(a, "..\\..\\evil", "bs", 0644);
	gen_file(a, "\\\\server\\share\\x", "unc", 0644);
	gen_file(a, "\\\\?\\C:\\x", "dev", 0644);
	gen_close(a);
}

/* "x/../../evil" under --strip-components=1 becomes "../../evil". */
static void
strip1(const char *name)
{
	struct archive *a = gen_open(name, "ustar", NULL);

	gen_file(a, "x/good", "good", 0644);
	gen_file(a, "x/../../evil", "evil", 0644);
	gen_file(a, "../evil2", "inside", 0644);	/* ".." stripped */
	gen_close(a);
}

/* Under --strip-components=2, "top/sub/.." becomes "..". */
static void
strip2(const char *name)
{
	struct archive *a = gen_open(name, "ustar", NULL);

	gen_dir(a, "top/sub/..", 0755);
	gen_file(a, "top/sub/good", "good", 0644);
	gen_file(a, "top/sub/../evil", "evil", 0644);
	gen_file(a, "top/..", "gone", 0644);
	gen_close(a);
}

const struct gen_case gen_cases_names[] = {
	{ "names-dotdot-ustar", dotdot_ustar },
	{ "names-dotdot-inner", dotdot_inner },
	{ "names-dotdot-dotslash", dotdot_dotslash },
	{ "names-dotdot-outside", dotdot_outside },
	{ "names-dotdot-contained", dotdot_contained },
	{ "names-dots-literal", dots_literal },
	{ "names-abs", abs_plain },
	{ "names-abs-slashes", abs_slashes },
	{ "names-abs-cpio", abs_cpio },
	{ "names-abs-zip", abs_zip },
	{ "names-empty-tar", empty_tar },
	{ "names-empty-zip", empty_zip },
	{ "names-dot-only", dot_only },
	{ "names-nul-ustar", nul_ustar },
	{ "names-nul-pax", nul_pax },
	{ "names-nul-gnulong", nul_gnulong },
	{ "names-nul-zip", nul_zip },
	{ "names-ctrl-tar", ctrl_tar },
	{ "names-utf8-tar", utf8_tar },
	{ "names-utf8-pax", utf8_pax },
	{ "names-utf8-zip", utf8_zip },
	{ "names-long-pax", long_pax },
	{ "names-long-gnu", long_gnu },
	{ "names-long-component", long_component },
	{ "names-gnu-longname", gnu_longname },
	{ "names-gnu-longlink", gnu_longlink },
	{ "names-pax-path", pax_path },
	{ "names-pax-linkpath", pax_linkpath },
	{ "names-pax-linkpath-sym", pax_linkpath_sym },
	{ "names-pax-global", pax_global },
	{ "names-pax-dup-path", pax_dup_path },
	{ "names-pax-x-after-x", pax_x_after_x },
	{ "names-gnu-pax-conflict", gnu_pax_conflict },
	{ "names-pax-size-hide", pax_size_hide },
	{ "names-pax-size-reveal", pax_size_reveal },
	{ "names-ustar-prefix", ustar_prefix },
	{ "names-dotdot-pax", dotdot_pax },
	{ "names-dotdot-gnutar", dotdot_gnutar },
	{ "names-dotdot-v7", dotdot_v7 },
	{ "names-dotdot-zip", dotdot_zip },
	{ "names-dotdot-newc", dotdot_newc },
	{ "names-dotdot-odc", dotdot_odc },
	{ "names-dotdot-bin", dotdot_bin },
	{ "names-dotdot-7zip", dotdot_7zip },
	{ "names-dotdot-ar", dotdot_ar },
	{ "names-filter-gzip", filter_gzip },
	{ "names-filter-bzip2", filter_bzip2 },
	{ "names-filter-xz", filter_xz },
	{ "names-filter-lzma", filter_lzma },
	{ "names-filter-lzip", filter_lzip },
	{ "names-filter-zstd", filter_zstd },
	{ "names-filter-lz4", filter_lz4 },
	{ "names-filter-compress", filter_compress },
	{ "names-zip-backslash", zip_backslash },
	{ "names-zip-backslash-utf8", zip_backslash_utf8 },
	{ "names-zip-drive", zip_drive },
	{ "names-zip-unc", zip_unc },
	{ "names-zip-devpath", zip_devpath },
	{ "names-zip-reserved", zip_reserved },
	{ "names-zip-trailing", zip_trailing },
	{ "names-zip-stream", zip_stream },
	{ "names-zip-invalid-char", zip_invalid_char },
	{ "names-zip-cd-mismatch", zip_cd_mismatch },
	{ "names-tar-backslash", tar_backslash },
	{ "names-tar-backslash-win", tar_backslash },
	{ "names-strip1", strip1 },
	{ "names-strip2", strip2 },
	{ NULL, NULL },
};
