/*
 * cases_links.c -- symbolic links, hard links and what already lies in the
 * destination: links that lead out and a later entry written through them
 * (node-tar's CVE-2021-32803/37701/37712, cpio's CVE-2015-1197), chains
 * that fool a lexical check, hard links to files outside or to files that
 * were there before the run (CVE-2018-20834), cpio's data on the last
 * link; in tar, cpio, zip and 7z.  The manifest runs most archives twice,
 * by default and with --symlinks=contain, and gives some a destination
 * prepared with setup lines.
 */
#include <stdio.h>
#include <string.h>

#include <archive.h>
#include <archive_entry.h>

#include "gen.h"

/* From dest, seven ".." reach the tree's root, beside outside/. */
#define UP7	"../../../../../../.."
#define OUT7	UP7 "/outside"

/* The absolute path of the runner's outside directory. */
static const char *
abs_outside(void)
{
	static char buf[4096];

	return gen_abs(buf, sizeof(buf), "outside");
}

/* A link to the absolute outside/, then a file written through it. */
static void
sym_abs(const char *name)
{
	struct archive *a = gen_open(name, "ustar", NULL);

	gen_file(a, "good", "good", 0644);
	gen_symlink(a, "l", abs_outside());
	gen_file(a, "l/x", "evil", 0644);
	gen_close(a);
}

/* A relative link climbing to outside/, then a file through it. */
static void
sym_rel(const char *name)
{
	struct archive *a = gen_open(name, "pax", "gzip");

	gen_file(a, "good", "good", 0644);
	gen_symlink(a, "l", OUT7);
	gen_symlink(a, "short", "../../outside");
	gen_file(a, "l/x", "evil", 0644);
	gen_file(a, "short/x", "evil", 0644);
	gen_close(a);
}

/* d/l -> .. is inside, d/l2 -> l/.. is not: ".." after a link. */
static void
sym_chain(const char *name)
{
	struct archive *a = gen_open(name, "gnutar", NULL);

	gen_dir(a, "d", 0755);
	gen_file(a, "d/good", "good", 0644);
	gen_symlink(a, "d/l", "..");
	gen_symlink(a, "d/l2", "l/..");
	gen_close(a);
}

/* The same chain, then files beneath d/l2 and beneath d/l3 -> l. */
static void
sym_chain_write(const char *name)
{
	struct archive *a = gen_open(name, "gnutar", NULL);

	gen_dir(a, "d", 0755);
	gen_symlink(a, "d/l", "..");
	gen_symlink(a, "d/l2", "l/..");
	gen_file(a, "d/l2/x", "evil", 0644);
	gen_symlink(a, "d/l3", "l");
	gen_file(a, "d/l3/y", "good", 0644);
	gen_file(a, "good", "good", 0644);
	gen_close(a);
}

/* a/b/c/up -> ../.. is a, a/b/esc -> c/up/../.. is dest/..: out. */
static void
sym_updir(const char *name)
{
	struct archive *a = gen_open(name, "ustar", NULL);

	gen_dir(a, "a/b/c", 0755);
	gen_symlink(a, "a/b/c/up", "../..");
	gen_symlink(a, "a/b/esc", "c/up/../..");
	gen_file(a, "a/good", "good", 0644);
	gen_close(a);
}

/* The same, then files written beneath esc. */
static void
sym_updir_write(const char *name)
{
	struct archive *a = gen_open(name, "ustar", NULL);

	gen_dir(a, "a/b/c", 0755);
	gen_symlink(a, "a/b/c/up", "../..");
	gen_symlink(a, "a/b/esc", "c/up/../..");
	gen_file(a, "a/b/esc/x", "evil", 0644);
	gen_file(a, "a/b/esc/outside/y", "evil", 0644);
	gen_file(a, "a/good", "good", 0644);
	gen_close(a);
}

/* A directory, a link of the same name, a file beneath (CVE-2021-32803). */
static void
sym_dircache(const char *name)
{
	struct archive *a = gen_open(name, "pax", NULL);

	gen_dir(a, "d", 0755);
	gen_file(a, "d/a", "good", 0644);
	gen_symlink(a, "d", OUT7);
	gen_file(a, "d/x", "evil", 0644);
	gen_close(a);
}

/* Foo/ and foo -> outside: one name on a case-folding cache. */
static void
sym_case(const char *name)
{
	struct archive *a = gen_open(name, "pax", NULL);

	gen_dir(a, "Foo", 0755);
	gen_file(a, "Foo/a", "good", 0644);
	gen_symlink(a, "foo", OUT7);
	gen_file(a, "foo/x", "evil", 0644);
	gen_file(a, "Foo/b", "good", 0644);
	gen_close(a);
}

/* NFC caf\u00e9/ and NFD cafe\u0301 -> outside (CVE-2021-37712). */
static void
sym_nfd(const char *name)
{
	struct archive *a = gen_open(name, "pax", NULL);

	gen_dir(a, "caf\xc3\xa9", 0755);
	gen_file(a, "caf\xc3\xa9/a", "good", 0644);
	gen_symlink(a, "cafe\xcc\x81", OUT7);
	gen_file(a, "cafe\xcc\x81/x", "evil", 0644);
	gen_file(a, "caf\xc3\xa9/b", "good", 0644);
	gen_close(a);
}

/*
 * Links named "." and "x/.": the destination itself, and a directory of
 * the archive; their targets stay inside, so only the name is at fault.
 */
static void
sym_dot(const char *name)
{
	struct gen_buf b = { 0 };

	/* Raw headers: the names exactly as written here. */
	raw_tar_file(&b, "good", "good");
	raw_tar_header(&b, "ustar", ".", 1, '2', 0777, 0, "good", 4);
	raw_tar_header(&b, "ustar", "x/", 2, '5', 0755, 0, "", 0);
	raw_tar_header(&b, "ustar", "x/.", 3, '2', 0777, 0, "z", 1);
	raw_tar_header(&b, "ustar", "./", 2, '2', 0777, 0, "x", 1);
	raw_tar_file(&b, "x/y", "good");
	raw_tar_file(&b, "z", "good");
	raw_tar_end(&b);
	gen_buf_save(&b, name, NULL);
	gen_buf_free(&b);
}

/* f -> outside/secret, then a file f: it replaces the link. */
static void
sym_then_file(const char *name)
{
	char buf[4096];
	struct archive *a = gen_open(name, "gnutar", NULL);

	gen_symlink(a, "f", gen_abs(buf, sizeof(buf), "outside/secret"));
	gen_symlink(a, "g", UP7 "/outside/secret");
	gen_file(a, "f", "new", 0644);
	gen_file(a, "g", "new", 0644);
	gen_close(a);
}

/* a -> b, b -> a, s -> s, and a file beneath the loop. */
static void
sym_loop(const char *name)
{
	struct archive *a = gen_open(name, "ustar", NULL);

	gen_symlink(a, "a", "b");
	gen_symlink(a, "b", "a");
	gen_symlink(a, "s", "s");
	gen_symlink(a, "n", "n/../n");
	gen_file(a, "good", "good", 0644);
	gen_close(a);
}

/* Two links of one name: the later wins, whichever leads out. */
static void
sym_twice(const char *name)
{
	struct archive *a = gen_open(name, "ustar", NULL);

	gen_file(a, "good", "good", 0644);
	gen_symlink(a, "a", OUT7);
	gen_symlink(a, "a", "good");
	gen_symlink(a, "b", "good");
	gen_symlink(a, "b", OUT7);
	gen_symlink(a, "c", "b");
	gen_close(a);
}

/* Links judged after --strip-components=1 moved them up a level. */
static void
sym_strip(const char *name)
{
	struct archive *a = gen_open(name, "pax", NULL);

	gen_dir(a, "top", 0755);
	gen_file(a, "top/good", "good", 0644);
	gen_symlink(a, "top/sub/l", "..");
	gen_symlink(a, "top/up", "..");
	gen_hardlink(a, "top/h", "top/good", NULL);
	gen_hardlink(a, "top/h2", "good", NULL);
	gen_close(a);
}

/* An absolute target that names a place inside dest; "/", ".", "". */
static void
sym_abs_inside(const char *name)
{
	char buf[4096];
	struct archive *a = gen_open(name, "pax", NULL);

	gen_file(a, "good", "good", 0644);
	gen_symlink(a, "l", gen_abs(buf, sizeof(buf),
	    "a/b/c/d/e/f/dest/good"));
	gen_symlink(a, "rel", "good");
	gen_symlink(a, "root", "/");
	gen_symlink(a, "here", ".");
	gen_symlink(a, "empty", "");
	gen_close(a);
}

/* Targets of ~4000 bytes: one climbs out at its end, one stays in. */
static void
sym_long(const char *name)
{
	static char out[4096], in[4096];
	struct archive *a = gen_open(name, "pax", "xz");
	size_t n = 0;

	while (n + 5 + sizeof(OUT7) < 4000) {
		memcpy(out + n, "x/../", 5);
		memcpy(in + n, "x/../", 5);
		n += 5;
	}
	memcpy(out + n, OUT7, sizeof(OUT7));
	memcpy(in + n, "good", sizeof("good"));
	gen_file(a, "good", "good", 0644);
	gen_symlink(a, "l", out);
	gen_file(a, "l/x", "evil", 0644);
	gen_symlink(a, "in", in);
	gen_close(a);
}

/* A hard link to the absolute outside/secret (CVE-2018-20834 kind). */
static void
hard_abs(const char *name)
{
	char buf[4096];
	struct archive *a = gen_open(name, "ustar", NULL);

	gen_file(a, "good", "good", 0644);
	gen_hardlink(a, "h", gen_abs(buf, sizeof(buf), "outside/secret"),
	    NULL);
	gen_close(a);
}

/* Hard links to ../outside/secret, short, at the right depth, and
 * through a name of this run; one climbs and stays inside. */
static void
hard_dotdot(const char *name)
{
	struct archive *a = gen_open(name, "gnutar", NULL);

	gen_file(a, "good", "good", 0644);
	gen_hardlink(a, "h", "../outside/secret", NULL);
	gen_hardlink(a, "h7", OUT7 "/secret", NULL);
	gen_hardlink(a, "hg", "good/../../outside/secret", NULL);
	gen_hardlink(a, "ok", "sub/.././good", NULL);
	gen_close(a);
}

/* l -> outside, then a hard link h -> l/secret. */
static void
hard_via_symlink(const char *name)
{
	struct archive *a = gen_open(name, "ustar", NULL);

	gen_file(a, "good", "good", 0644);
	gen_symlink(a, "l", OUT7);
	gen_hardlink(a, "h", "l/secret", NULL);
	gen_close(a);
}

/* s -> good, a symlink of this archive, then h -> s. */
static void
hard_to_symlink(const char *name)
{
	struct archive *a = gen_open(name, "pax", NULL);

	gen_file(a, "good", "good", 0644);
	gen_symlink(a, "s", "good");
	gen_hardlink(a, "h", "s", NULL);
	gen_symlink(a, "o", OUT7 "/secret");
	gen_hardlink(a, "ho", "o", NULL);
	gen_close(a);
}

/*
 * A raw hard link entry carrying DATA: a pax header first, since only a
 * pax archive's hard links may have a body that readers honour.
 */
static void
raw_link_data(struct gen_buf *b, const char *name, const char *target,
    const char *data)
{
	char rec[512];
	const char *recs[2] = { rec, NULL };

	snprintf(rec, sizeof(rec), "linkpath=%s", target);
	raw_tar_pax(b, 'x', recs);
	raw_tar_header(b, "ustar", name, strlen(name), '1', 0644,
	    strlen(data), target, strlen(target));
	raw_tar_data(b, data, strlen(data));
}

/* A hard link carrying data to "pre", a file that was in dest. */
static void
hard_payload_pre(const char *name)
{
	struct gen_buf b = { 0 };

	raw_tar_file(&b, "good", "good");
	raw_link_data(&b, "h", "pre", "evil");
	raw_tar_end(&b);
	gen_buf_save(&b, name, NULL);
	gen_buf_free(&b);
}

/* Payloads on links to this run's files: one with content, one empty. */
static void
hard_payload_own(const char *name)
{
	struct gen_buf b = { 0 };

	raw_tar_file(&b, "full", "orig");
	raw_link_data(&b, "h1", "full", "evil");
	raw_tar_file(&b, "empty", "");
	raw_link_data(&b, "h2", "empty", "data");
	raw_link_data(&b, "h3", "h2", "evil");
	raw_tar_end(&b);
	gen_buf_save(&b, name, NULL);
	gen_buf_free(&b);
}

/* A plain hard link to "pre", which the setup put in dest. */
static void
hard_pre(const char *name)
{
	struct archive *a = gen_open(name, "ustar", NULL);

	gen_file(a, "good", "good", 0644);
	gen_hardlink(a, "h", "pre", NULL);
	gen_hardlink(a, "sub/h", "sub/pre", NULL);
	gen_close(a);
}

/* Hard links to a directory entry, and to a file a directory replaced. */
static void
hard_to_dir(const char *name)
{
	struct archive *a = gen_open(name, "ustar", NULL);

	gen_dir(a, "d", 0755);
	gen_file(a, "d/good", "good", 0644);
	gen_hardlink(a, "h", "d", NULL);
	gen_hardlink(a, "h2", "d/", NULL);
	gen_file(a, "f", "good", 0644);
	gen_dir(a, "f", 0755);
	gen_hardlink(a, "hf", "f", NULL);
	gen_close(a);
}

/* A hard link to itself, before and after a file of its name. */
static void
hard_self(const char *name)
{
	struct gen_buf b = { 0 };

	raw_tar_header(&b, "ustar", "h", 1, '1', 0644, 0, "h", 1);
	raw_tar_file(&b, "f", "good");
	raw_tar_header(&b, "ustar", "f", 1, '1', 0644, 0, "f", 1);
	raw_link_data(&b, "g", "./g", "evil");
	raw_tar_end(&b);
	gen_buf_save(&b, name, NULL);
	gen_buf_free(&b);
}

/* A hard link before its target appears; a file over a linked name. */
static void
hard_before(const char *name)
{
	struct archive *a = gen_open(name, "gnutar", NULL);

	gen_hardlink(a, "h", "t", NULL);
	gen_file(a, "t", "good", 0644);
	gen_hardlink(a, "h2", "t", NULL);
	gen_file(a, "h2", "new", 0644);
	gen_close(a);
}

/* One cpio entry with an inode number and a link count of its own;
 * TARGET for a symlink, DATA for a file (either may be NULL). */
static void
cpio_entry(struct archive *a, const char *name, mode_t type,
    unsigned int ino, unsigned int nlink, const char *target,
    const char *data)
{
	struct archive_entry *e = archive_entry_new();
	size_t len = data != NULL ? strlen(data) : 0;

	if (e == NULL)
		gen_die("out of memory");
	archive_entry_set_pathname(e, name);
	archive_entry_set_filetype(e, type);
	archive_entry_set_perm(e, type == AE_IFLNK ? 0777 : 0644);
	archive_entry_set_mtime(e, 1700000000, 0);
	archive_entry_set_dev(e, 1);
	archive_entry_set_ino(e, ino);
	archive_entry_set_nlink(e, nlink);
	if (target != NULL) {
		archive_entry_set_symlink(e, target);
		len = 0;
	}
	archive_entry_set_size(e, (la_int64_t)len);
	if (archive_write_header(a, e) < ARCHIVE_WARN)
		gen_die("%s: %s", name, archive_error_string(a));
	if (len > 0 && archive_write_data(a, data, len) != (la_ssize_t)len)
		gen_die("%s: %s", name, archive_error_string(a));
	archive_entry_free(e);
}

/* newc: three names of one inode, the data on the last (cpio's way). */
static void
cpio_links(const char *name)
{
	struct archive *a = gen_open(name, "newc", NULL);

	cpio_entry(a, "good", AE_IFREG, 10, 1, NULL, "good");
	cpio_entry(a, "a", AE_IFREG, 11, 3, NULL, NULL);
	cpio_entry(a, "b", AE_IFREG, 11, 3, NULL, NULL);
	cpio_entry(a, "c", AE_IFREG, 11, 3, NULL, "data");
	gen_close(a);
}

/* newc: a link group whose first name escapes, data on a later name. */
static void
cpio_link_escape(const char *name)
{
	struct archive *a = gen_open(name, "newc", NULL);

	cpio_entry(a, "good", AE_IFREG, 10, 1, NULL, "good");
	cpio_entry(a, OUT7 "/secret", AE_IFREG, 11, 2, NULL, NULL);
	cpio_entry(a, "h", AE_IFREG, 11, 2, NULL, "evil");
	gen_close(a);
}

/* newc under -k: the group's first name is refused (it exists), so the
 * data on its last name must not go into the old file. */
static void
cpio_link_keep(const char *name)
{
	struct archive *a = gen_open(name, "newc", NULL);

	cpio_entry(a, "good", AE_IFREG, 10, 1, NULL, "good");
	cpio_entry(a, "pre", AE_IFREG, 12, 2, NULL, NULL);
	cpio_entry(a, "h", AE_IFREG, 12, 2, NULL, "evil");
	gen_close(a);
}

/* newc: a symlink to outside/, then a file through it (CVE-2015-1197). */
static void
cpio_symlink(const char *name)
{
	struct archive *a = gen_open(name, "newc", "gzip");

	cpio_entry(a, "good", AE_IFREG, 10, 1, NULL, "good");
	cpio_entry(a, "l", AE_IFLNK, 11, 1, OUT7, NULL);
	cpio_entry(a, "l/x", AE_IFREG, 12, 1, NULL, "evil");
	cpio_entry(a, "in", AE_IFLNK, 13, 1, "good", NULL);
	gen_close(a);
}

/* Writes through names the setup made links: d/x, d/, f. */
static void
pre_dir(const char *name)
{
	struct archive *a = gen_open(name, "ustar", NULL);

	gen_file(a, "good", "good", 0644);
	gen_file(a, "d/x", "evil", 0644);
	gen_dir(a, "d", 0755);
	gen_file(a, "d/sub/y", "evil", 0644);
	gen_close(a);
}

/* A file entry f over a pre-existing f (a link, or a hard link). */
static void
pre_file(const char *name)
{
	struct archive *a = gen_open(name, "gnutar", NULL);

	gen_file(a, "good", "good", 0644);
	gen_file(a, "f", "new", 0644);
	gen_close(a);
}

/* Hard links to f, a name the setup linked to outside/secret. */
static void
pre_hardlink(const char *name)
{
	struct archive *a = gen_open(name, "gnutar", NULL);

	gen_file(a, "good", "good", 0644);
	gen_hardlink(a, "g", "f", NULL);
	gen_file(a, "f", "new", 0644);
	gen_hardlink(a, "g2", "f", NULL);
	gen_close(a);
}

/* Contain over a prepared dest: writes through links, and links
 * resolved through links that were already there. */
static void
pre_contain(const char *name)
{
	struct archive *a = gen_open(name, "pax", NULL);

	gen_file(a, "good", "good", 0644);
	gen_file(a, "d/x", "evil", 0644);
	gen_file(a, "in/x", "evil", 0644);
	gen_symlink(a, "e", "in/..");
	gen_symlink(a, "e2", "d/..");
	gen_symlink(a, "e3", "d/secret");
	gen_symlink(a, "d/l", "x");
	gen_symlink(a, "in/l", "x");
	gen_symlink(a, "f", "good");
	gen_close(a);
}

/*
 * Over a prepared dest holding sub/e -> c/../.. (inside while sub/c is
 * missing): sub/c -> .. is inside on its own, but would send sub/e out.
 */
static void
pre_redirect(const char *name)
{
	struct archive *a = gen_open(name, "pax", NULL);

	gen_symlink(a, "sub/c", "..");
	gen_symlink(a, "ok", "sub");
	gen_close(a);
}

/* zip: a symlink entry (mode in the external attributes) to outside. */
static void
zip_symlink(const char *name)
{
	struct archive *a = gen_open(name, "zip", NULL);

	gen_file(a, "good", "good", 0644);
	gen_symlink(a, "l", OUT7);
	gen_file(a, "l/x", "evil", 0644);
	gen_symlink(a, "in", "good");
	gen_close(a);
}

/* zip by hand: an absolute-target link, then a file beneath it. */
static void
zip_raw_symlink(const char *name)
{
	struct gen_zip z = { 0 };
	const char *t = abs_outside();
	const uint32_t lnk = (uint32_t)(AE_IFLNK | 0777) << 16;
	const uint32_t reg = (uint32_t)(AE_IFREG | 0644) << 16;

	/* gen_zip_add() writes each member's central record too: the
	 * directory lists each once (twice, it would be two records of one
	 * local header, which pfextract's zip reader refuses). */
	(void)gen_zip_add(&z, "good", 4, 0, "good", 4, 4,
	    gen_crc32("good", 4), reg);
	(void)gen_zip_add(&z, "l", 1, 0, t, strlen(t), (uint32_t)strlen(t),
	    gen_crc32(t, strlen(t)), lnk);
	(void)gen_zip_add(&z, "l/x", 3, 0, "evil", 4, 4,
	    gen_crc32("evil", 4), reg);
	gen_zip_finish(&z, name);
}

/* 7z: libarchive's writer stores a symlink's target as its data. */
static void
sz_symlink(const char *name)
{
	struct archive *a = gen_open(name, "7zip", NULL);

	gen_file(a, "good", "good", 0644);
	gen_symlink(a, "l", OUT7);
	gen_symlink(a, "in", "good");
	gen_file(a, "l/x", "evil", 0644);
	gen_close(a);
}

/*
 * --symlinks=root: links into /proc that a consumer mounting /proc in the
 * tree would jump through (magic links), one made harmless and turned
 * magic by a later link, Debian's /etc/mtab (a file of /proc: made), and
 * an absolute link a later file is written through (in the root).
 */
static void
sym_root_magic(const char *name)
{
	struct archive *a = gen_open(name, "pax", NULL);

	gen_file(a, "good", "good", 0644);
	gen_dir(a, "etc", 0755);
	gen_symlink(a, "etc/mtab", "../proc/self/mounts");
	gen_symlink(a, "etc/root", "/proc/1/root");
	gen_symlink(a, "etc/stdin", "../../../proc/self/fd/0");
	gen_symlink(a, "a", "p/cwd");
	gen_symlink(a, "p", "/proc/thread-self");
	gen_symlink(a, "abs", "/etc");
	gen_file(a, "abs/passwd", "root", 0644);
	gen_close(a);
}

const struct gen_case gen_cases_links[] = {
	{ "links-sym-abs", sym_abs },
	{ "links-sym-abs-contain", sym_abs },
	{ "links-sym-rel", sym_rel },
	{ "links-sym-rel-contain", sym_rel },
	{ "links-sym-chain", sym_chain },
	{ "links-sym-chain-contain", sym_chain },
	{ "links-sym-chain-write", sym_chain_write },
	{ "links-sym-chain-write-contain", sym_chain_write },
	{ "links-sym-updir", sym_updir },
	{ "links-sym-updir-contain", sym_updir },
	{ "links-sym-updir-write", sym_updir_write },
	{ "links-sym-updir-write-contain", sym_updir_write },
	{ "links-sym-dircache", sym_dircache },
	{ "links-sym-dircache-contain", sym_dircache },
	{ "links-sym-case", sym_case },
	{ "links-sym-case-contain", sym_case },
	{ "links-sym-nfd", sym_nfd },
	{ "links-sym-nfd-contain", sym_nfd },
	{ "links-sym-dot", sym_dot },
	{ "links-sym-dot-contain", sym_dot },
	{ "links-sym-then-file", sym_then_file },
	{ "links-sym-then-file-contain", sym_then_file },
	{ "links-sym-loop", sym_loop },
	{ "links-sym-loop-contain", sym_loop },
	{ "links-sym-twice", sym_twice },
	{ "links-sym-twice-contain", sym_twice },
	{ "links-sym-strip-contain", sym_strip },
	{ "links-sym-abs-inside", sym_abs_inside },
	{ "links-sym-abs-inside-contain", sym_abs_inside },
	{ "links-sym-long", sym_long },
	{ "links-sym-long-contain", sym_long },
	{ "links-hard-abs", hard_abs },
	{ "links-hard-dotdot", hard_dotdot },
	{ "links-hard-via-symlink", hard_via_symlink },
	{ "links-hard-via-symlink-contain", hard_via_symlink },
	{ "links-hard-to-symlink", hard_to_symlink },
	{ "links-hard-to-symlink-contain", hard_to_symlink },
	{ "links-hard-payload-pre", hard_payload_pre },
	{ "links-hard-payload-own", hard_payload_own },
	{ "links-hard-pre", hard_pre },
	{ "links-hard-to-dir", hard_to_dir },
	{ "links-hard-self", hard_self },
	{ "links-hard-before", hard_before },
	{ "links-cpio-links", cpio_links },
	{ "links-cpio-link-escape", cpio_link_escape },
	{ "links-cpio-link-keep", cpio_link_keep },
	{ "links-cpio-link-skip", cpio_link_keep },
	{ "links-cpio-symlink", cpio_symlink },
	{ "links-cpio-symlink-contain", cpio_symlink },
	{ "links-pre-dirsym", pre_dir },
	{ "links-pre-filesym", pre_file },
	{ "links-pre-filesym-keep", pre_file },
	{ "links-pre-filesym-skip", pre_file },
	{ "links-pre-dirsym-contain", pre_dir },
	{ "links-pre-hardlink", pre_hardlink },
	{ "links-pre-hardlink-keep", pre_hardlink },
	{ "links-pre-hardlink-skip", pre_hardlink },
	{ "links-pre-contain", pre_contain },
	{ "links-pre-redirect-contain", pre_redirect },
	{ "links-zip-symlink", zip_symlink },
	{ "links-zip-symlink-contain", zip_symlink },
	{ "links-zip-raw-symlink", zip_raw_symlink },
	{ "links-zip-raw-symlink-contain", zip_raw_symlink },
	{ "links-7z-symlink", sz_symlink },
	{ "links-7z-symlink-contain", sz_symlink },
	/* --symlinks=root: "/" is dest; nothing leads out, nor to /proc. */
	{ "links-sym-abs-root", sym_abs },
	{ "links-sym-rel-root", sym_rel },
	{ "links-sym-chain-write-root", sym_chain_write },
	{ "links-sym-updir-write-root", sym_updir_write },
	{ "links-sym-loop-root", sym_loop },
	{ "links-sym-long-root", sym_long },
	{ "links-pre-dirsym-root", pre_dir },
	{ "links-hard-via-symlink-root", hard_via_symlink },
	{ "links-root-magic", sym_root_magic },
	{ NULL, NULL },
};
