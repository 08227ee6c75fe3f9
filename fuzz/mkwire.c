/*
 * mkwire.c -- write the seeds of fuzz/corpus/wire/: message streams of a
 * decoder process (wire.h), made with wire.c's own encoders, each behind
 * the options byte fuzz_wire.c reads first.  Well-formed streams (files,
 * directories, links, a sparse file, xattrs, a listing, hostile names,
 * special files) and broken ones (each breaks one rule of the contract).
 * Run by hand; the output is committed, so `make check` needs nothing:
 *
 *	obj/fuzz/mkwire fuzz/corpus/wire
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>

#include "wire.h"

#define SEED_MAX (64u << 10)

/* A stream being written: the options byte, then messages. */
struct seed {
	unsigned char buf[SEED_MAX];
	size_t len;
	uint64_t raw;		/* archive bytes "read" so far */
};

static const char *outdir;

static void
fail(const char *what)
{
	fprintf(stderr, "mkwire: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* Room for N more bytes.  Return: where they go. */
static unsigned char *
room(struct seed *s, size_t n)
{
	if (n > SEED_MAX - s->len) {
		errno = E2BIG;
		fail("seed too large");
	}
	return s->buf + s->len;
}

static void
begin(struct seed *s, unsigned char opts)
{
	memset(s, 0, sizeof(*s));
	s->buf[s->len++] = opts;
}

/* CONFINED: R, and every boolean FLAG (0 or 1). */
static void
confined(struct seed *s, int r, bool flag, const char *text)
{
	struct pfx_sandbox_info info;

	memset(&info, 0, sizeof(info));
	info.landlock_abi = flag ? 4 : 0;
	info.fs = info.net = info.scope = info.seccomp = flag;
	info.no_new_privs = true;
	(void)snprintf(info.text, sizeof(info.text), "%s", text);
	s->len += wire_put_confined(room(s, WIRE_CONFINED_LEN), r, &info);
}

/* The header of an entry; the strings that are NULL are absent. */
struct hdr {
	uint32_t type, perm;
	const char *name, *hardlink, *symlink;
	int64_t size;
	bool sparse;
	int32_t format;
	int64_t uid, gid;
	const struct wire_xattr *xattrs;
	uint32_t nxattr;
	uint32_t name_len;	/* 0: strlen(name) */
	int64_t devmajor, devminor;
	uint32_t flags;		/* WIRE_DAMAGED, WIRE_UNCONVERTED */
};

static void
header(struct seed *s, const struct hdr *e)
{
	struct wire_header h;
	size_t n;

	memset(&h, 0, sizeof(h));
	h.format = e->format != 0 ? e->format :
	    ARCHIVE_FORMAT_TAR_PAX_RESTRICTED;
	h.filetype = e->type;
	h.perm = e->perm;
	h.flags = WIRE_SIZE_SET | (e->sparse ? WIRE_SPARSE : 0) | e->flags;
	h.size = e->size;
	h.mtime = 1700000000;
	h.uid = e->uid;
	h.gid = e->gid;
	h.raw = s->raw += 512;
	h.pos = (int64_t)s->raw - 512;
	h.devmajor = e->devmajor;
	h.devminor = e->devminor;
	h.str[WIRE_NAME] = e->name;
	h.len[WIRE_NAME] = e->name_len != 0 ? e->name_len :
	    (uint32_t)strlen(e->name);
	h.str[WIRE_HARDLINK] = e->hardlink;
	h.len[WIRE_HARDLINK] = e->hardlink != NULL ?
	    (uint32_t)strlen(e->hardlink) : 0;
	h.str[WIRE_SYMLINK] = e->symlink;
	h.len[WIRE_SYMLINK] = e->symlink != NULL ?
	    (uint32_t)strlen(e->symlink) : 0;
	h.str[WIRE_UNAME] = "root";
	h.len[WIRE_UNAME] = 4;
	h.nxattr = e->nxattr;
	n = wire_put_header(room(s, 0), SEED_MAX - s->len, &h, e->xattrs);
	if (n == 0) {
		errno = E2BIG;
		fail(e->name);
	}
	s->len += n;
}

static void
data(struct seed *s, int64_t offset, const char *bytes)
{
	size_t n = strlen(bytes), head;

	head = wire_put_data_head(room(s, WIRE_HEAD + 16 + n), offset,
	    s->raw += n, n);
	memcpy(s->buf + s->len + head, bytes, n);
	s->len += head + n;
}

static void
end(struct seed *s, int type, int status, int error, const char *text)
{
	s->len += wire_put_end(room(s, WIRE_HEAD + 8 + WIRE_TEXT_MAX), type,
	    status, error, text);
}

/* A whole entry: header, data at 0 (if any), DATA_END. */
static void
entry(struct seed *s, const struct hdr *e, const char *bytes)
{
	header(s, e);
	if (bytes != NULL)
		data(s, 0, bytes);
	end(s, WIRE_DATA_END, WIRE_OK, 0, NULL);
}

static void
file(struct seed *s, const char *name, const char *bytes)
{
	struct hdr e = { .type = AE_IFREG, .perm = 0644, .name = name,
		.size = (int64_t)strlen(bytes) };

	entry(s, &e, bytes);
}

static void
put(const struct seed *s, const char *name)
{
	char path[4096];
	int fd;

	if (snprintf(path, sizeof(path), "%s/%s", outdir, name) >=
	    (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		fail(name);
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd == -1 || write(fd, s->buf, s->len) != (ssize_t)s->len ||
	    close(fd) == -1)
		fail(path);
}

/* A benign tree: a directory, two files, an empty one. */
static void
tree(struct seed *s, unsigned char opts)
{
	struct hdr d = { .type = AE_IFDIR, .perm = 0755, .name = "d" };

	begin(s, opts);
	confined(s, 0, true, "landlock ABI 4 (fs, net, scope), seccomp");
	entry(s, &d, NULL);
	file(s, "d/f", "hello\n");
	file(s, "top", "");
	file(s, "d/g", "second\n");
	end(s, WIRE_END, WIRE_OK, 0, NULL);
}

static void
links(struct seed *s, unsigned char opts)
{
	static const char *const sym[][2] = { { "l", "d/f" },
		{ "up", "../outside/file" }, { "abs", "/etc/passwd" },
		{ "d/dot", ".." }, { "d/loop", "loop" } };
	static const char *const hard[][2] = { { "h", "d/f" },
		{ "h2", "../sentinel.txt" }, { "h3", "/etc/passwd" },
		{ "h4", "missing" } };
	struct hdr e = { .type = AE_IFLNK, .perm = 0777 };
	size_t i;

	begin(s, opts);
	confined(s, 0, false, "none: no landlock");
	file(s, "d/f", "target\n");
	for (i = 0; i < sizeof(sym) / sizeof(sym[0]); i++) {
		e.name = sym[i][0];
		e.symlink = sym[i][1];
		entry(s, &e, NULL);
	}
	e.type = AE_IFREG;
	e.perm = 0644;
	e.symlink = NULL;
	for (i = 0; i < sizeof(hard) / sizeof(hard[0]); i++) {
		e.name = hard[i][0];
		e.hardlink = hard[i][1];
		entry(s, &e, NULL);
	}
	/* Through the link "l" once it is made: must not write d/f. */
	file(s, "l", "over the link\n");
	end(s, WIRE_END, WIRE_OK, 0, NULL);
}

/* Headers libarchive read with a warning: one damaged (a malformed pax
 * record ignored), one whose name was not converted; each told on the
 * warning hook, the first fatal under opts 0x80 (PFX_OPT_STRICT). */
static void
warned(struct seed *s, unsigned char opts)
{
	struct hdr e = { .type = AE_IFREG, .perm = 0644, .size = 2 };

	begin(s, opts);
	confined(s, 0, true, "x");
	e.name = "damaged";
	e.flags = WIRE_DAMAGED;
	entry(s, &e, "d\n");
	e.name = "n\xe9";
	e.flags = WIRE_UNCONVERTED;
	entry(s, &e, "n\n");
	e.name = "";
	e.flags = WIRE_DAMAGED;
	entry(s, &e, "e\n");
	file(s, "after", "a\n");
	end(s, WIRE_END, WIRE_OK, 0, NULL);
}

static void
sparse(struct seed *s)
{
	struct hdr e = { .type = AE_IFREG, .perm = 0644, .name = "sparse",
		.size = 200000, .sparse = true };

	begin(s, 0x00);
	confined(s, 0, true, "landlock ABI 4 (fs), seccomp");
	header(s, &e);
	data(s, 0, "head");
	data(s, 65536, "middle");
	data(s, 131072, "tail");
	end(s, WIRE_DATA_END, WIRE_OK, 0, NULL);
	end(s, WIRE_END, WIRE_OK, 0, NULL);
}

static void
xattrs(struct seed *s)
{
	static const struct wire_xattr xs[] = {
		{ "user.a", 6, "1", 1 },
		{ "trusted.t", 9, "evil", 4 },
		{ "security.capability", 19, "\1\0\0\2", 4 },
		{ "system.posix_acl_access", 23, "\2\0\0\0", 4 },
		{ "user.empty", 10, "", 0 },
	};
	struct hdr e = { .type = AE_IFREG, .perm = 0644, .name = "x",
		.size = 3, .xattrs = xs, .nxattr = 5 };

	begin(s, 0x08);
	confined(s, 0, true, "landlock ABI 4 (fs), seccomp");
	entry(s, &e, "xa\n");
	end(s, WIRE_END, WIRE_OK, 0, NULL);
}

/* A listing: the child sends DATA_END right after each header. */
static void
listing(struct seed *s)
{
	static const char *const names[] = { "a1", "d/b", "../up", "a2" };
	struct hdr e = { .type = AE_IFREG, .perm = 0644 };
	size_t i;

	begin(s, 0x04);
	confined(s, 0, true, "landlock ABI 4 (fs), seccomp");
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		e.name = names[i];
		e.size = 5;
		entry(s, &e, NULL);
	}
	end(s, WIRE_END, WIRE_OK, 0, NULL);
}

/* Members for include patterns and decide()'s answers. */
static void
members(struct seed *s, unsigned char opts)
{
	static const char *const names[] = { "a1", "a2", "b1", "a3", "a4",
		"a5" };
	size_t i;

	begin(s, opts);
	confined(s, 0, true, "landlock ABI 4 (fs), seccomp");
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		file(s, names[i], names[i]);
	/* -k: a second "a1" is refused; with --strict the run stops. */
	file(s, "a1", "again");
	end(s, WIRE_END, WIRE_OK, 0, NULL);
}

static void
special(struct seed *s, unsigned char opts)
{
	static const struct { uint32_t type, perm; const char *name; } sp[] = {
		{ AE_IFREG, 04755, "suid" }, { AE_IFREG, 02755, "sgid" },
		{ AE_IFREG, 0666, "ww" }, { AE_IFDIR, 01777, "sticky" },
		{ AE_IFCHR, 0644, "null" }, { AE_IFBLK, 0644, "blk" },
		{ AE_IFIFO, 0644, "fifo" }, { AE_IFSOCK, 0644, "sock" },
		{ 0, 0644, "typeless" }, { AE_IFDIR, 0, "closed" },
		{ AE_IFREG, 0, "closed/f" },
	};
	struct hdr e = { .uid = 0, .gid = 0 };
	size_t i;

	begin(s, opts);
	confined(s, 0, true, "landlock ABI 4 (fs), seccomp");
	for (i = 0; i < sizeof(sp) / sizeof(sp[0]); i++) {
		e.type = sp[i].type;
		e.perm = sp[i].perm;
		e.name = sp[i].name;
		e.size = e.type == AE_IFREG ? 2 : 0;
		entry(s, &e, e.type == AE_IFREG ? "x\n" : NULL);
	}
	e.type = AE_IFREG;
	e.perm = 04755;
	e.name = "owned";
	e.uid = 1234;
	e.gid = 5678;
	e.size = 2;
	entry(s, &e, "o\n");
	end(s, WIRE_END, WIRE_OK, 0, NULL);
}

static void
names(struct seed *s)
{
	static const char *const bad[] = { "../evil", "/abs", "a/./b",
		"a/../../b", "", ".", "./", "d//e", "C:\\x\\..\\..\\evil",
		"CON.txt" };
	struct hdr e = { .type = AE_IFREG, .perm = 0644 };
	size_t i;

	begin(s, 0x00);
	confined(s, 0, true, "landlock ABI 4 (fs), seccomp");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		e.name = bad[i];
		e.size = 1;
		/* The Windows forms from a zip: judged as such. */
		e.format = i >= 8 ? ARCHIVE_FORMAT_ZIP : 0;
		entry(s, &e, "z");
	}
	/* An ar archive's symbol table, and a member without type bits. */
	e.format = ARCHIVE_FORMAT_AR_GNU;
	e.name = "/";
	entry(s, &e, "z");
	e.type = 0;
	e.name = "member";
	entry(s, &e, "z");
	end(s, WIRE_END, WIRE_OK, 0, NULL);
}

/* The stream of a child whose archive failed: data, then the end. */
static void
read_errors(struct seed *s)
{
	struct hdr e = { .type = AE_IFREG, .perm = 0644, .name = "crc",
		.size = 4 };

	begin(s, 0x00);
	confined(s, 0, true, "landlock ABI 4 (fs), seccomp");
	header(s, &e);
	data(s, 0, "bad!");
	end(s, WIRE_DATA_END, WIRE_BAD_DATA, EILSEQ, "ZIP bad CRC");
	e.name = "cut";
	header(s, &e);
	data(s, 0, "cu");
	end(s, WIRE_DATA_END, WIRE_FATAL, EIO, "Truncated input file");
	end(s, WIRE_END, WIRE_FATAL, EIO, "Truncated input file");
	put(s, "read-error");
}

static void
broken(struct seed *s)
{
	struct hdr e = { .type = AE_IFREG, .perm = 0644, .name = "f",
		.size = 10 };
	size_t at;

	/* A listing of a device, then the archive's total, then END. */
	begin(s, 0x04);
	confined(s, 0, true, "x");
	{
		struct hdr d = { .type = AE_IFCHR, .perm = 0600,
			.name = "dev", .devmajor = 8, .devminor = 17 };

		header(s, &d);
	}
	end(s, WIRE_DATA_END, WIRE_OK, 0, NULL);
	s->len += wire_put_total(room(s, WIRE_HEAD + 8), 10240);
	end(s, WIRE_END, WIRE_OK, 0, NULL);
	put(s, "list-device-total");

	/* A boolean of 66 in CONFINED. */
	begin(s, 0x00);
	confined(s, 0, true, "x");
	s->buf[1 + WIRE_HEAD + 8] = 66;
	end(s, WIRE_END, WIRE_OK, 0, NULL);
	put(s, "broken-confined-bool");

	/* CONFINED's text not terminated, with a control byte. */
	begin(s, 0x00);
	confined(s, 0, true, "x");
	memset(s->buf + 1 + WIRE_HEAD + 13, '\a',
	    sizeof(((struct pfx_sandbox_info *)0)->text));
	end(s, WIRE_END, WIRE_OK, 0, NULL);
	put(s, "broken-confined-text");

	/* The child could not confine itself. */
	begin(s, 0x00);
	confined(s, -ENOSYS, false, "none: kernel without landlock");
	put(s, "confine-failed");

	/* A NUL inside a name: "ok\0../../evil". */
	begin(s, 0x00);
	confined(s, 0, true, "x");
	e.name = "ok\0../../evil";
	e.name_len = 13;
	entry(s, &e, NULL);
	end(s, WIRE_END, WIRE_OK, 0, NULL);
	put(s, "broken-nul-name");
	e.name_len = 0;
	e.name = "f";

	/* A data block before the previous one. */
	begin(s, 0x00);
	confined(s, 0, true, "x");
	header(s, &e);
	data(s, 5, "later");
	data(s, 0, "first");
	end(s, WIRE_DATA_END, WIRE_OK, 0, NULL);
	end(s, WIRE_END, WIRE_OK, 0, NULL);
	put(s, "broken-data-backwards");

	/* The raw count goes back. */
	begin(s, 0x00);
	confined(s, 0, true, "x");
	file(s, "a", "a");
	s->raw = 0;
	file(s, "b", "b");
	end(s, WIRE_END, WIRE_OK, 0, NULL);
	put(s, "broken-raw-back");

	/* The channel ends inside an entry's data. */
	begin(s, 0x00);
	confined(s, 0, true, "x");
	header(s, &e);
	data(s, 0, "half");
	put(s, "broken-no-end");

	/* A length past the contract's 4 MiB. */
	begin(s, 0x00);
	confined(s, 0, true, "x");
	at = s->len;
	file(s, "a", "a");
	memset(s->buf + at, 0xff, 4);
	put(s, "broken-too-long");

	/* Data before any header; an unknown type. */
	begin(s, 0x00);
	confined(s, 0, true, "x");
	data(s, 0, "orphan");
	put(s, "broken-order");
	begin(s, 0x00);
	confined(s, 0, true, "x");
	end(s, 'Q', WIRE_OK, 0, NULL);
	put(s, "broken-type");

	/* The archive's error named as EPROTO; END with a data check. */
	begin(s, 0x00);
	confined(s, 0, true, "x");
	file(s, "a", "a");
	end(s, WIRE_END, WIRE_FATAL, EPROTO, "not a protocol error");
	put(s, "end-eproto");
	begin(s, 0x00);
	confined(s, 0, true, "x");
	end(s, WIRE_END, WIRE_BAD_DATA, EILSEQ, "bad");
	put(s, "broken-end-bad-data");

	/* A NOTE (a member continued by its name's first 100 bytes) in
	 * an entry's data and between entries; one holding a NUL. */
	begin(s, 0x04);
	confined(s, 0, true, "x");
	header(s, &e);
	s->len += wire_put_note(room(s, WIRE_HEAD + 1), "f", 1);
	data(s, 0, "0123456789");
	end(s, WIRE_DATA_END, WIRE_OK, 0, NULL);
	s->len += wire_put_note(room(s, WIRE_HEAD + 3), "g/h", 3);
	end(s, WIRE_END, WIRE_OK, 0, NULL);
	put(s, "note");
	begin(s, 0x00);
	confined(s, 0, true, "x");
	s->len += wire_put_note(room(s, WIRE_HEAD + 3), "a\0b", 3);
	end(s, WIRE_END, WIRE_OK, 0, NULL);
	put(s, "broken-note-nul");

	/* SKIPs (a volume out of sequence skipped), each why, in a row
	 * with a NOTE; one whose why is none. */
	begin(s, 0x04);
	confined(s, 0, true, "x");
	header(s, &e);
	s->len += wire_put_skip(room(s, WIRE_HEAD + 2), WIRE_SKIP_OTHER,
	    "f", 1);
	s->len += wire_put_skip(room(s, WIRE_HEAD + 2), WIRE_SKIP_OFFSET,
	    "f", 1);
	s->len += wire_put_skip(room(s, WIRE_HEAD + 2), WIRE_SKIP_SIZE,
	    "f", 1);
	s->len += wire_put_note(room(s, WIRE_HEAD + 1), "f", 1);
	data(s, 0, "0123456789");
	end(s, WIRE_DATA_END, WIRE_OK, 0, NULL);
	end(s, WIRE_END, WIRE_OK, 0, NULL);
	put(s, "skip");
	begin(s, 0x00);
	confined(s, 0, true, "x");
	s->len += wire_put_skip(room(s, WIRE_HEAD + 2), WIRE_SKIP_OTHER,
	    "f", 1);
	s->buf[s->len - 2] = 'x';
	end(s, WIRE_END, WIRE_OK, 0, NULL);
	put(s, "broken-skip-why");

	/* A header whose size is not set but is not 0. */
	begin(s, 0x00);
	confined(s, 0, true, "x");
	at = s->len;
	file(s, "a", "a");
	s->buf[at + WIRE_HEAD + 12] = 0;
	end(s, WIRE_END, WIRE_OK, 0, NULL);
	put(s, "broken-size-unset");
}

int
main(int argc, char *argv[])
{
	static struct seed s;

	if (argc != 2) {
		fprintf(stderr, "usage: mkwire outdir\n");
		return 2;
	}
	outdir = argv[1];
	tree(&s, 0x00);
	put(&s, "tree");
	tree(&s, 0x02);
	put(&s, "tree-walk");
	links(&s, 0x00);
	put(&s, "links");
	links(&s, 0x01);
	put(&s, "links-contain");
	sparse(&s);
	put(&s, "sparse");
	xattrs(&s);
	put(&s, "xattrs");
	listing(&s);
	put(&s, "listing");
	members(&s, 0x60);
	put(&s, "include-decide");
	members(&s, 0x80);
	put(&s, "keep-strict");
	special(&s, 0x00);
	put(&s, "special");
	special(&s, 0x18);
	put(&s, "special-same-owner-p");
	names(&s);
	put(&s, "names");
	warned(&s, 0x00);
	put(&s, "warned");
	warned(&s, 0x80);
	put(&s, "warned-strict");
	read_errors(&s);
	broken(&s);
	return 0;
}
