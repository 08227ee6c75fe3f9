/*
 * fuzz_wire.c -- libFuzzer harness for the calling process's side of the
 * decoder process: remote.c's checks of every message (wire.h) and the
 * engine that judges and writes what passes them.  The decoder process is
 * assumed compromised, so the input is the bytes it would send, any
 * bytes; they are played through xtr_extract_wire() from an unlinked
 * regular file (its end is the channel's end), with no child.
 *
 * The input is one options byte, then the stream.  Each input runs in a
 * fresh tree (mkdtemp under $TMPDIR, else /dev/shm, else /tmp):
 *
 *	pfx-wire.XXXXXX/
 *	    dest/		the destination, empty
 *	    outside/file	an outside directory and a file in it
 *	    sentinel.txt	an outside file
 *
 * Options byte:
 *	bit 0	--symlinks=contain (else refuse, the default)
 *	bit 1	the walk resolver (else auto)
 *	bit 2	PFX_OPT_LIST
 *	bit 3	-p and --xattrs
 *	bit 4	--same-owner (as root: the archive's owners, and with -p its
 *		setuid/setgid bits)
 *	bit 5	two include patterns, "a*" and "no-such-member"
 *	bit 6	decide() answers in turn: rename to "ren/N", skip, rename to
 *		"../outN" (which must be refused), continue
 *	bit 7	-k, -m and --strict
 * Limits are low: max-bytes and max-entry-bytes 8 MiB, max-entries 2000;
 * deadlines 2 s idle, 10 s in all.
 *
 * After the call, abort() if:
 *   - a hook saw what pfextract.h does not allow: a type, status or
 *     decision outside its enum; a reason not among the stable codes
 *     (pfx_reason_text() knows each); an extracted entry that is not
 *     "none"/allow or whose path is absolute, has an empty, "." or ".."
 *     component, or is too long; a refusal with "none"; a negative error;
 *     mode bits beyond 07777; device numbers past 32 bits or on an entry
 *     that is not a device; a header position below -1; a nanosecond
 *     out of range; a string not terminated within the largest
 *     message; an extracted entry in a listing; confined() or the
 *     result's sandbox with a boolean byte that is not 0 or 1 (read as a
 *     byte, never as a bool), an ABI out of range, or a text not
 *     terminated within its array or not printable; an unmatched pattern
 *     that is not one of ours;
 *   - the result is off: a status outside its enum or not the one
 *     returned; an error or message where there is no fatal error, a
 *     fatal one without them, a message not terminated; counters that do
 *     not sum to the reports, entries that are not the reports, past
 *     max-entries or max-bytes, unmatched not the hook's calls; PFX_OK
 *     with refusals; a resolver other than "openat2", "walk" or "none"
 *     ("none" when listing); error EPROTO with a message that does not
 *     begin "protocol error from the decoder process: ";
 *   - a descriptor leaked (those below 1024, counted before and after);
 *   - anything beside dest changed (type, mode, owner, size, links,
 *     mtime, ctime, content, names), or dest is no longer the same
 *     directory;
 *   - dest holds a device, FIFO or socket; a symlink not reported
 *     extracted (any symlink under the refuse policy, or when listing);
 *     anything at all when listing; a setuid/setgid file unless -p and
 *     --same-owner; a sticky or group/other-writable one without -p; a
 *     regular file with a link outside dest; with --xattrs, a security.*,
 *     trusted.* or system.* attribute.
 * Then the tree is removed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "engine.h"
#include "fuzz.h"
#include "wire.h"

#define MAX_BYTES (8u << 20)
#define MAX_ENTRIES 2000

/* The longest string a hook may be given: a whole message's. */
#define STR_BOUND (WIRE_MSG_MAX + 1)

#define EPROTO_PREFIX "protocol error from the decoder process: "

static const char *const patterns[] = { "a*", "no-such-member" };

/* The files beside dest, compared before and after. */
static const char *const outside[] = { "", "outside", "outside/file",
	"sentinel.txt", "dest" };
#define NOUTSIDE (sizeof(outside) / sizeof(outside[0]))
static const char sentinel_data[] = "outside: must never change\n";

/* One regular file's inode in dest, and the names it was found under. */
struct inode {
	dev_t dev;
	ino_t ino;
	nlink_t nlink, names;
};

/* The state of one run, for the hooks and the walk. */
static struct {
	char top[4096];
	size_t dest_len;	/* of top + "/dest" */
	unsigned char opts;
	unsigned int decides;
	uint64_t reports, unmatched, confined;
	char **symlinks;	/* paths reported extracted as symlinks */
	size_t nsymlinks;
	struct inode *inodes;
	size_t ninodes;
	bool walk_again;	/* a directory could not be read: chmodded */
} run;

static void die(const char *fmt, ...)
    __attribute__((format(printf, 1, 2), noreturn));

static void
die(const char *fmt, ...)
{
	va_list ap;

	fputs("fuzz_wire: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (run.top[0] != '\0')
		fprintf(stderr, " (tree left in %s)", run.top);
	fputc('\n', stderr);
	abort();
}

static void *
grow(void *p, size_t n, size_t size)
{
	/* Doubling at each power of two: N is the count before adding. */
	if (n != 0 && (n & (n - 1)) != 0)
		return p;
	p = realloc(p, (n == 0 ? 1 : 2 * n) * size);
	if (p == NULL)
		die("out of memory");
	return p;
}

/* --- what the hooks and the result may hold ------------------------------ */

/* Is S a string terminated within STR_BOUND bytes (NULL if MAY_NULL)? */
static void
check_str(const char *what, const char *s, bool may_null)
{
	if (s == NULL) {
		if (!may_null)
			die("%s is NULL", what);
		return;
	}
	if (strnlen(s, STR_BOUND) == STR_BOUND)
		die("%s not terminated", what);
}

/* Is REASON one of the stable codes?  pfx_reason_text() gives back
 * what it does not know. */
static bool
reason_known(const char *reason)
{
	return pfx_reason_text(reason) != reason;
}

/* Check what every hook sees of an entry. */
static void
check_entry(const struct pfx_entry *e)
{
	check_str("name", e->name, false);
	check_str("path", e->path, true);
	check_str("link target", e->link_target, true);
	check_str("uname", e->uname, true);
	check_str("gname", e->gname, true);
	check_str("reason", e->reason, false);
	if ((unsigned int)e->type > PFX_TYPE_OTHER)
		die("\"%s\": type %d", e->name, (int)e->type);
	if ((unsigned int)e->decision > PFX_REJECT)
		die("\"%s\": decision %d", e->name, (int)e->decision);
	if (!reason_known(e->reason))
		die("\"%s\": reason \"%s\" is no stable code", e->name,
		    e->reason);
	if ((e->mode & ~(mode_t)07777) != 0)
		die("\"%s\": mode %o", e->name, (unsigned int)e->mode);
	if (e->size < 0)
		die("\"%s\": size %jd", e->name, (intmax_t)e->size);
	if (e->error < 0)
		die("\"%s\": error %d", e->name, e->error);
	/* The wire's bounds: 32-bit device numbers, on devices only; a
	 * header position of -1 or more; a nanosecond. */
	if (e->devmajor < 0 || e->devmajor > UINT32_MAX ||
	    e->devminor < 0 || e->devminor > UINT32_MAX ||
	    (e->type != PFX_TYPE_CHAR && e->type != PFX_TYPE_BLOCK &&
	    (e->devmajor != 0 || e->devminor != 0)))
		die("\"%s\": device %jd,%jd", e->name,
		    (intmax_t)e->devmajor, (intmax_t)e->devminor);
	if (e->offset < -1 || e->mtime_nsec < 0 || e->mtime_nsec > 999999999)
		die("\"%s\": offset %jd, nanoseconds %ld", e->name,
		    (intmax_t)e->offset, e->mtime_nsec);
	if (e->path != NULL && !fuzz_rel_ok(e->path))
		die("\"%s\": path \"%s\"", e->name, e->path);
}

static int
on_decide(void *arg, const struct pfx_entry *e, char *rename, size_t cap)
{
	unsigned int n = run.decides++;

	(void)arg;
	check_entry(e);
	if (e->path == NULL || e->decision != PFX_ALLOW ||
	    strcmp(e->reason, "none") != 0)
		die("\"%s\": decide() for an entry not allowed", e->name);
	if ((run.opts & 0x40) == 0)
		return PFX_HOOK_CONTINUE;
	switch (n % 4) {
	case 0:
		(void)snprintf(rename, cap, "ren/%u", n);
		return PFX_HOOK_RENAME;
	case 1:
		return PFX_HOOK_SKIP;
	case 2:
		(void)snprintf(rename, cap, "../out%u", n);
		return PFX_HOOK_RENAME;
	}
	return PFX_HOOK_CONTINUE;
}

static void
on_report(void *arg, const struct pfx_entry *e)
{
	(void)arg;
	run.reports++;
	check_entry(e);
	if ((unsigned int)e->status > PFX_ENTRY_FAILED)
		die("\"%s\": status %d", e->name, (int)e->status);
	if (e->status == PFX_ENTRY_REFUSED && strcmp(e->reason, "none") == 0)
		die("\"%s\" refused with the reason \"none\"", e->name);
	if (e->bytes > MAX_BYTES)
		die("\"%s\": %ju bytes", e->name, (uintmax_t)e->bytes);
	if (e->status != PFX_ENTRY_EXTRACTED)
		return;
	if ((run.opts & 0x04) != 0)
		die("\"%s\" extracted by a listing", e->name);
	if (e->path == NULL || strcmp(e->reason, "none") != 0 ||
	    e->decision != PFX_ALLOW || e->error != 0)
		die("\"%s\" extracted at \"%s\" with %s/%s, error %d", e->name,
		    e->path != NULL ? e->path : "(null)",
		    pfx_decision_name(e->decision), e->reason, e->error);
	if (e->type != PFX_TYPE_SYMLINK)
		return;
	run.symlinks = grow(run.symlinks, run.nsymlinks,
	    sizeof(*run.symlinks));
	run.symlinks[run.nsymlinks] = strdup(e->path);
	if (run.symlinks[run.nsymlinks++] == NULL)
		die("out of memory");
}

static void
on_unmatched(void *arg, const char *pattern)
{
	(void)arg;
	run.unmatched++;
	if ((run.opts & 0x20) == 0 ||
	    (pattern != patterns[0] && pattern != patterns[1]))
		die("unmatched() with a pattern not ours");
}

/* A warning told: its code one of those pfextract.h lists, its name the
 * archive's bytes as an entry's (empty, or past PFX_PATH_MAX, where the
 * header's is), terminated. */
static void
on_warning(void *arg, const char *what, const char *name)
{
	static const char *const codes[] = { "xattr_not_stored",
		"header_damaged", "name_not_converted", "truncated_name",
		"not_continued", "out_of_sequence", "wrong_size" };
	size_t i;

	(void)arg;
	for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
		if (strcmp(what, codes[i]) == 0)
			break;
	if (i == sizeof(codes) / sizeof(codes[0]))
		die("warning() with a code not ours: %s", what);
	check_str("warning's name", name, false);
}

/* Check a sandbox report byte by byte: the child chose these bytes. */
static void
check_sandbox(const char *what, const struct pfx_sandbox_info *info)
{
	const bool *flags[] = { &info->fs, &info->net, &info->scope,
		&info->no_new_privs, &info->seccomp };
	unsigned char b;
	size_t i, n;

	for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		memcpy(&b, flags[i], 1);
		if (b > 1)
			die("%s: boolean %zu is %u", what, i, b);
	}
	if (info->landlock_abi < 0 || info->landlock_abi > 255)
		die("%s: landlock ABI %d", what, info->landlock_abi);
	n = strnlen(info->text, sizeof(info->text));
	if (n == sizeof(info->text))
		die("%s: text not terminated", what);
	for (i = 0; i < n; i++)
		if (info->text[i] < 0x20 || info->text[i] > 0x7e)
			die("%s: text byte %zu is %#x", what, i,
			    (unsigned char)info->text[i]);
}

static void
on_confined(void *arg, const struct pfx_sandbox_info *info)
{
	(void)arg;
	if (run.confined++ > 0)
		die("confined() called twice");
	check_sandbox("confined()", info);
}

static void
check_result(enum pfx_status status, const struct pfx_result *res)
{
	const struct pfx_stats *st = &res->stats;
	uint64_t sum = st->extracted + st->listed + st->refused +
	    st->skipped + st->failed;
	bool fatal = res->status == PFX_FATAL;

	if ((unsigned int)res->status > PFX_FATAL || status != res->status)
		die("returned %d, result says %d", (int)status,
		    (int)res->status);
	if (memchr(res->message, '\0', sizeof(res->message)) == NULL)
		die("message not terminated");
	if (res->error < 0 || fatal != (res->error != 0) ||
	    fatal != (res->message[0] != '\0'))
		die("status %d with error %d and message \"%s\"",
		    (int)res->status, res->error, res->message);
	if (res->error == EPROTO && strncmp(res->message, EPROTO_PREFIX,
	    strlen(EPROTO_PREFIX)) != 0)
		die("EPROTO with the message \"%s\"", res->message);
	if (sum != run.reports || st->entries != run.reports)
		die("%ju reports, %ju entries, counters sum to %ju",
		    (uintmax_t)run.reports, (uintmax_t)st->entries,
		    (uintmax_t)sum);
	if (st->entries > MAX_ENTRIES || st->bytes > MAX_BYTES)
		die("%ju entries, %ju bytes: past the limits",
		    (uintmax_t)st->entries, (uintmax_t)st->bytes);
	if (st->unmatched != run.unmatched)
		die("%ju unmatched, %ju calls", (uintmax_t)st->unmatched,
		    (uintmax_t)run.unmatched);
	if (res->status == PFX_OK && (st->refused > 0 || st->failed > 0 ||
	    st->unmatched > 0))
		die("PFX_OK with refused, failed or unmatched");
	if (res->resolver == NULL || (strcmp(res->resolver, "openat2") != 0 &&
	    strcmp(res->resolver, "walk") != 0 &&
	    strcmp(res->resolver, "none") != 0))
		die("resolver %s", res->resolver != NULL ? res->resolver :
		    "(null)");
	if ((run.opts & 0x04) != 0 && strcmp(res->resolver, "none") != 0)
		die("a listing with the resolver %s", res->resolver);
	check_sandbox("result", &res->sandbox);
	if (run.confined == 0 && !fatal)
		die("finished without confined()");
}

/* --- the tree ------------------------------------------------------------ */

static const char *
tmp_base(void)
{
	const char *t = getenv("TMPDIR");

	return t != NULL && t[0] != '\0' ? t : "/dev/shm";
}

/* TOP + "/" + NAME into BUF ("" names TOP). */
static const char *
at_top(char *buf, size_t cap, const char *name)
{
	if (snprintf(buf, cap, "%s%s%s", run.top, name[0] != '\0' ? "/" : "",
	    name) >= (int)cap)
		die("path too long");
	return buf;
}

/* Write the sentinel file NAME beneath the top. */
static void
write_sentinel(const char *name)
{
	char p[4200];
	int fd;

	fd = open(at_top(p, sizeof(p), name), O_WRONLY | O_CREAT | O_EXCL |
	    O_CLOEXEC, 0644);
	if (fd == -1 || write(fd, sentinel_data, sizeof(sentinel_data)) !=
	    (ssize_t)sizeof(sentinel_data) || close(fd) == -1)
		die("cannot write %s: %s", p, strerror(errno));
}

static void
make_tree(void)
{
	char p[4200];

	if (snprintf(run.top, sizeof(run.top), "%s/pfx-wire.XXXXXX",
	    tmp_base()) >= (int)sizeof(run.top) || mkdtemp(run.top) == NULL)
		die("mkdtemp %s: %s", run.top, strerror(errno));
	if (mkdir(at_top(p, sizeof(p), "dest"), 0700) == -1 ||
	    mkdir(at_top(p, sizeof(p), "outside"), 0755) == -1)
		die("mkdir %s: %s", p, strerror(errno));
	run.dest_len = strlen(run.top) + 5;
	write_sentinel("outside/file");
	write_sentinel("sentinel.txt");
}

/* The stream, in an unlinked file of the tree.  Return: its fd, at 0. */
static int
input_fd(const uint8_t *data, size_t size)
{
	char p[4200];
	ssize_t n;
	int fd;

	(void)at_top(p, sizeof(p), "in.XXXXXX");
	fd = mkstemp(p);
	if (fd == -1 || unlink(p) == -1)
		die("mkstemp %s: %s", p, strerror(errno));
	while (size > 0) {
		n = write(fd, data, size);
		if (n <= 0)
			die("write: %s", strerror(errno));
		data += n;
		size -= (size_t)n;
	}
	if (lseek(fd, 0, SEEK_SET) != 0)
		die("lseek: %s", strerror(errno));
	return fd;
}

/* Is the outside as it was: the stats in BEFORE, the sentinels'
 * content, and no name more or less at the top or in outside/? */
static void
check_outside(const struct stat *before)
{
	static const char *const top_names[] = { ".", "..", "dest",
		"outside", "sentinel.txt" };
	static const char *const outside_names[] = { ".", "..", "file" };
	char p[4200], buf[sizeof(sentinel_data) + 1];
	struct stat st;
	size_t i;
	int fd;

	for (i = 0; i < NOUTSIDE; i++) {
		if (lstat(at_top(p, sizeof(p), outside[i]), &st) == -1)
			die("lstat %s: %s", p, strerror(errno));
		if (st.st_dev != before[i].st_dev ||
		    st.st_ino != before[i].st_ino ||
		    (st.st_mode & S_IFMT) != (before[i].st_mode & S_IFMT))
			die("\"%s\" was replaced", outside[i]);
		/* dest: its identity only, it is written in. */
		if (strcmp(outside[i], "dest") == 0)
			continue;
		if (st.st_mode != before[i].st_mode ||
		    st.st_uid != before[i].st_uid ||
		    st.st_gid != before[i].st_gid ||
		    st.st_nlink != before[i].st_nlink ||
		    st.st_size != before[i].st_size ||
		    st.st_mtim.tv_sec != before[i].st_mtim.tv_sec ||
		    st.st_mtim.tv_nsec != before[i].st_mtim.tv_nsec ||
		    st.st_ctim.tv_sec != before[i].st_ctim.tv_sec ||
		    st.st_ctim.tv_nsec != before[i].st_ctim.tv_nsec)
			die("\"%s\" changed", outside[i]);
		if (!S_ISREG(st.st_mode))
			continue;
		fd = open(p, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd == -1 || read(fd, buf, sizeof(buf)) !=
		    (ssize_t)sizeof(sentinel_data) || close(fd) == -1 ||
		    memcmp(buf, sentinel_data, sizeof(sentinel_data)) != 0)
			die("\"%s\": content changed", outside[i]);
	}
	/* Every name where it was: the count of each listing and the
	 * stat of every name above show nothing was added or removed. */
	for (i = 0; i < 2; i++) {
		const char *const *want = i == 0 ? top_names : outside_names;
		size_t nwant = i == 0 ? 5 : 3, n = 0, j;
		struct dirent *de;
		DIR *d;

		d = opendir(at_top(p, sizeof(p), i == 0 ? "" : "outside"));
		if (d == NULL)
			die("opendir %s: %s", p, strerror(errno));
		while ((de = readdir(d)) != NULL) {
			for (j = 0; j < nwant; j++)
				if (strcmp(de->d_name, want[j]) == 0)
					break;
			if (j == nwant)
				die("\"%s\" appeared in %s", de->d_name, p);
			n++;
		}
		(void)closedir(d);
		if (n != nwant)
			die("a name vanished from %s", p);
	}
}

/* --- the walk of dest ---------------------------------------------------- */

static bool
reported_symlink(const char *rel)
{
	size_t i;

	for (i = 0; i < run.nsymlinks; i++)
		if (strcmp(run.symlinks[i], rel) == 0)
			return true;
	return false;
}

static void
note_inode(const struct stat *st)
{
	size_t i;

	for (i = 0; i < run.ninodes; i++) {
		if (run.inodes[i].dev == st->st_dev &&
		    run.inodes[i].ino == st->st_ino) {
			run.inodes[i].names++;
			return;
		}
	}
	run.inodes = grow(run.inodes, run.ninodes, sizeof(*run.inodes));
	run.inodes[run.ninodes].dev = st->st_dev;
	run.inodes[run.ninodes].ino = st->st_ino;
	run.inodes[run.ninodes].nlink = st->st_nlink;
	run.inodes[run.ninodes++].names = 1;
}

/* With --xattrs: none that an archive may never set. */
static void
check_xattrs(const char *path, const char *rel)
{
	char list[4096];
	ssize_t n, i;

	n = llistxattr(path, list, sizeof(list));
	for (i = 0; i < n; i += (ssize_t)strlen(list + i) + 1) {
		if (strncmp(list + i, "security.", 9) == 0 ||
		    strncmp(list + i, "trusted.", 8) == 0 ||
		    strncmp(list + i, "system.", 7) == 0)
			die("\"%s\": xattr %s", rel, list + i);
	}
}

static int
walk_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	const char *rel = path + run.dest_len + (ftw->level > 0);
	mode_t bad = 0;

	if (type == FTW_DNR) {
		/* So that the walk and the removal can go in: again. */
		if (chmod(path, 0700) == -1)
			die("chmod \"%s\": %s", rel, strerror(errno));
		run.walk_again = true;
		return 0;
	}
	if (ftw->level == 0)
		return 0;
	if ((run.opts & 0x04) != 0)
		die("\"%s\" made by a listing", rel);
	switch (st->st_mode & S_IFMT) {
	case S_IFLNK:
		if (!reported_symlink(rel))
			die("\"%s\": a symlink never reported extracted", rel);
		return 0;
	case S_IFREG:
		note_inode(st);
		break;
	case S_IFDIR:
		/* So that the removal can go in. */
		if ((st->st_mode & S_IRWXU) != S_IRWXU &&
		    chmod(path, (st->st_mode & 07777) | S_IRWXU) == -1)
			die("chmod \"%s\": %s", rel, strerror(errno));
		break;
	default:
		die("\"%s\": a device, FIFO or socket (mode %o)", rel,
		    (unsigned int)st->st_mode);
	}
	if ((run.opts & 0x18) != 0x18)
		bad |= S_ISUID | S_ISGID;
	if ((run.opts & 0x08) == 0)
		bad |= S_ISVTX | S_IWGRP | S_IWOTH;
	if ((st->st_mode & bad) != 0)
		die("\"%s\": mode %o", rel, (unsigned int)st->st_mode);
	if ((run.opts & 0x08) != 0)
		check_xattrs(path, rel);
	return 0;
}

static void
check_dest(void)
{
	char p[4200];
	size_t i;

	do {
		run.walk_again = false;
		run.ninodes = 0;
		if (nftw(at_top(p, sizeof(p), "dest"), walk_one, 16,
		    FTW_PHYS) != 0)
			die("walk %s: %s", p, strerror(errno));
	} while (run.walk_again);
	for (i = 0; i < run.ninodes; i++)
		if (run.inodes[i].nlink != run.inodes[i].names)
			die("inode %ju: %ju links, %ju of them in dest",
			    (uintmax_t)run.inodes[i].ino,
			    (uintmax_t)run.inodes[i].nlink,
			    (uintmax_t)run.inodes[i].names);
}

static int
remove_one(const char *path, const struct stat *st, int type,
    struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (remove(path) == -1)
		die("cannot remove %s (%d): %s", path, type, strerror(errno));
	return 0;
}

/* --- the harness --------------------------------------------------------- */

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct stat before[NOUTSIDE];
	struct pfx_options opt;
	struct pfx_result res;
	enum pfx_status status;
	char p[4200];
	int destfd, infd, fds;
	size_t i;

	if (size < 1)
		return 0;
	memset(&run, 0, sizeof(run));
	run.opts = data[0];
	make_tree();

	pfx_options_init(&opt);
	opt.limits.max_bytes = MAX_BYTES;
	opt.limits.max_entry_bytes = MAX_BYTES;
	opt.limits.max_entries = MAX_ENTRIES;
	opt.idle_timeout = 2;
	opt.timeout = 10;
	if ((run.opts & 0x01) != 0)
		opt.symlinks = PFX_SYMLINKS_CONTAIN;
	if ((run.opts & 0x02) != 0)
		opt.resolver = PFX_RESOLVER_WALK;
	if ((run.opts & 0x04) != 0)
		opt.flags |= PFX_OPT_LIST;
	if ((run.opts & 0x08) != 0)
		opt.flags |= PFX_OPT_PRESERVE_PERMS | PFX_OPT_XATTRS;
	if ((run.opts & 0x10) != 0)
		opt.flags |= PFX_OPT_SAME_OWNER;
	if ((run.opts & 0x20) != 0) {
		opt.include = patterns;
		opt.ninclude = 2;
	}
	if ((run.opts & 0x80) != 0) {
		opt.flags |= PFX_OPT_NO_MTIME | PFX_OPT_STRICT;
		opt.existing = PFX_EXISTING_KEEP;
	}
	opt.hooks.decide = on_decide;
	opt.hooks.report = on_report;
	opt.hooks.unmatched = on_unmatched;
	opt.hooks.confined = on_confined;
	opt.warning = on_warning;

	fds = fuzz_count_fds();
	infd = input_fd(data + 1, size - 1);
	destfd = open(at_top(p, sizeof(p), "dest"), O_RDONLY | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC);
	if (destfd == -1)
		die("open dest: %s", strerror(errno));
	/* After the input's file came and went at the top. */
	for (i = 0; i < NOUTSIDE; i++)
		if (lstat(at_top(p, sizeof(p), outside[i]), &before[i]) == -1)
			die("lstat %s: %s", p, strerror(errno));
	status = xtr_extract_wire(infd, destfd, ".", &opt, &res);
	(void)close(destfd);
	if (fuzz_count_fds() != fds)
		die("descriptors: %d before, %d after", fds, fuzz_count_fds());
	check_result(status, &res);
	check_outside(before);
	check_dest();

	if (nftw(run.top, remove_one, 16, FTW_DEPTH | FTW_PHYS) != 0)
		die("cannot remove %s: %s", run.top, strerror(errno));
	for (i = 0; i < run.nsymlinks; i++)
		free(run.symlinks[i]);
	free(run.symlinks);
	free(run.inodes);
	return 0;
}
