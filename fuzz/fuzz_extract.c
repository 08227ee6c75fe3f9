/*
 * fuzz_extract.c -- libFuzzer harness for whole extractions (pfextract.h).
 *
 * The input is one flags byte, then an archive, any bytes.  Each input is
 * extracted from memory with pfx_extract() into a fresh temporary tree
 * (mkdtemp under $TMPDIR, else /dev/shm, else /tmp):
 *
 *	pfx-fuzz.XXXXXX/
 *	    dest/		the destination, empty
 *	    sentinel/file	an outside directory and a file in it
 *	    sentinel.txt	an outside file
 *
 * Flags byte:
 *	bit 0	--symlinks=contain (else refuse, the default)
 *	bit 1	the walk resolver (else auto: openat2 where the kernel has it)
 *	bit 2	--windows-names
 *	bit 3	--strip-components=1
 *	bits 4-5 existing names: 0 replace, 1 keep (-k), 2 skip, 3 replace
 *		with -G (PFX_OPT_INCREMENTAL: dump lists purge and move,
 *		and pax directories' headers are read again, paxdump.c)
 *	bit 6	-m (no mtimes)
 *	bit 7	-p (keep group/other write and sticky; never setuid/setgid,
 *		as there is no --same-owner)
 * Limits are low, so that each input is quick: max-bytes and
 * max-entry-bytes 8 MiB, max-entries 2000; the ratio is the default.
 * An input of odd length is extracted planned for three CPUs
 * (pfx_options.cpus), where a second thread finishes the files; one of
 * even length with the CPUs counted, which on two CPUs or fewer finishes
 * them on the calling thread: both ways on any machine.
 *
 * After the call, abort() if:
 *   - anything beside dest changed: the sentinel directory, file or the
 *     tree's top (type, mode, owner, size, link count, mtime, ctime,
 *     content), or a name appeared or vanished there; dest is no longer
 *     the directory it was;
 *   - dest holds a device, FIFO or socket; a setuid or setgid file; a
 *     sticky or group/other-writable one without -p; a file not owned by
 *     us; a regular file with more links than its names in dest (a hard
 *     link to or from outside); a leftover ".pfx-" temporary (a name that
 *     no entry of the archive has, nor is beneath);
 *   - dest holds a symlink under the refuse policy, or under contain one
 *     that the run did not report as extracted, or one whose target,
 *     resolved here component by component with lstat and readlink over
 *     the final tree, is absolute or climbs above dest at any point;
 *   - more data is in dest than max-bytes, or a file is longer than
 *     max-entry-bytes;
 *   - a descriptor leaked, or the result and the report hook disagree
 *     (every entry reported once, each extracted one with a normalised
 *     relative path and the reason "none").
 * Then the whole tree is removed (nftw).
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
#include <unistd.h>

#include "pfextract.h"
#include "fuzz.h"

#define MAX_BYTES (8u << 20)
#define MAX_ENTRIES 2000

/* The most symlinks followed in one resolution, as Linux. */
#define MAX_FOLLOW 40

/* The remaining path while resolving: a target may be pushed in front of
 * the rest once per link followed. */
#define REM_CAP ((MAX_FOLLOW + 2) * PFX_PATH_MAX)

static const char sentinel_data[] = "outside: must never change\n";
static const char sentinel_file_data[] = "outside, in a directory\n";

/* What is known of a file beside dest before the run. */
struct snap {
	const char *name;	/* beneath the top */
	struct stat st;
};

/* What the report hook saw. */
struct seen {
	char **paths;		/* the entries' paths, owned */
	enum pfx_entry_type *types;
	bool *extracted;
	size_t npaths, cap;
	uint64_t calls;
};

/* One inode of dest, with the names found for it. */
struct inode {
	dev_t dev;
	ino_t ino;
	nlink_t nlink;
	nlink_t names;
	off_t size;
	blkcnt_t blocks;
};

/* The state of one run. */
struct run {
	char top[4096];
	int destfd;
	unsigned char flags;
	struct seen seen;
	struct inode *inodes;
	size_t ninodes, inodes_cap;
	uid_t uid;
	gid_t gid;
};

/* The tree of the run in progress, named when a check fails: it is left
 * in place for a look. */
static const char *current_top;

static char relbuf[2 * PFX_PATH_MAX];
static char rem[REM_CAP];
static char cur[2 * PFX_PATH_MAX];
static char target[PFX_PATH_MAX + 1];	/* links followed on the way */
static char link_target[PFX_PATH_MAX + 1];	/* the link being checked */

static void die(const char *fmt, ...)
    __attribute__((format(printf, 1, 2), noreturn));

static void
die(const char *fmt, ...)
{
	va_list ap;

	fputs("fuzz_extract: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (current_top != NULL)
		fprintf(stderr, " (tree left in %s)", current_top);
	fputc('\n', stderr);
	abort();
}

/* --- the temporary tree -------------------------------------------------- */

static const char *
tmp_base(void)
{
	const char *t = getenv("TMPDIR");
	struct stat st;

	if (t != NULL && t[0] != '\0')
		return t;
	if (stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode))
		return "/dev/shm";
	return "/tmp";
}

static void
write_file(int dirfd, const char *name, const char *data, mode_t mode)
{
	/* An old mtime, so that a write within the same tick shows too. */
	struct timespec ts[2] = { { 978307200, 0 }, { 978307200, 0 } };
	size_t len = strlen(data);
	int fd;

	fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
	    mode);
	if (fd == -1 || write(fd, data, len) != (ssize_t)len ||
	    futimens(fd, ts) == -1 || close(fd) == -1)
		die("cannot write sentinel %s: %s", name, strerror(errno));
}

static void
make_tree(struct run *r)
{
	int topfd, sfd;

	if (snprintf(r->top, sizeof(r->top), "%s/pfx-fuzz.XXXXXX",
	    tmp_base()) >= (int)sizeof(r->top))
		die("temporary directory name too long");
	if (mkdtemp(r->top) == NULL)
		die("mkdtemp %s: %s", r->top, strerror(errno));
	topfd = open(r->top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (topfd == -1 || mkdirat(topfd, "dest", 0700) == -1 ||
	    mkdirat(topfd, "sentinel", 0755) == -1)
		die("cannot make the tree in %s: %s", r->top,
		    strerror(errno));
	sfd = openat(topfd, "sentinel", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sfd == -1)
		die("cannot open sentinel: %s", strerror(errno));
	write_file(sfd, "file", sentinel_file_data, 0644);
	write_file(topfd, "sentinel.txt", sentinel_data, 0600);
	(void)close(sfd);
	r->destfd = openat(topfd, "dest", O_RDONLY | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC);
	if (r->destfd == -1)
		die("cannot open dest: %s", strerror(errno));
	(void)close(topfd);
}

static void
snap_take(const struct run *r, struct snap *s, const char *name)
{
	char path[4200];

	(void)snprintf(path, sizeof(path), "%s%s%s", r->top,
	    name[0] != '\0' ? "/" : "", name);
	s->name = name;
	if (lstat(path, &s->st) == -1)
		die("lstat %s: %s", path, strerror(errno));
}

static bool
same_time(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

/* Did the file S was taken of change?  DEST_ONLY: only its identity. */
static void
snap_compare(const struct run *r, const struct snap *s, bool dest_only)
{
	struct snap now;

	snap_take(r, &now, s->name);
	if (now.st.st_ino != s->st.st_ino || now.st.st_dev != s->st.st_dev ||
	    (now.st.st_mode & S_IFMT) != (s->st.st_mode & S_IFMT))
		die("\"%s\" was replaced", s->name);
	if (dest_only)
		return;
	if (now.st.st_mode != s->st.st_mode)
		die("\"%s\" mode %o, was %o", s->name,
		    (unsigned int)now.st.st_mode, (unsigned int)s->st.st_mode);
	if (now.st.st_uid != s->st.st_uid || now.st.st_gid != s->st.st_gid)
		die("\"%s\" owner changed", s->name);
	if (now.st.st_nlink != s->st.st_nlink)
		die("\"%s\" has %lu links, had %lu", s->name,
		    (unsigned long)now.st.st_nlink,
		    (unsigned long)s->st.st_nlink);
	if (now.st.st_size != s->st.st_size)
		die("\"%s\" size changed", s->name);
	if (!same_time(&now.st.st_mtim, &s->st.st_mtim))
		die("\"%s\" mtime changed", s->name);
	if (!same_time(&now.st.st_ctim, &s->st.st_ctim))
		die("\"%s\" ctime changed", s->name);
}

/* Is the content of file NAME beneath the top exactly DATA? */
static void
content_compare(const struct run *r, const char *name, const char *data)
{
	char path[4200], buf[256];
	size_t len = strlen(data);
	ssize_t n;
	int fd;

	(void)snprintf(path, sizeof(path), "%s/%s", r->top, name);
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd == -1)
		die("open %s: %s", path, strerror(errno));
	n = read(fd, buf, sizeof(buf));
	(void)close(fd);
	if (n != (ssize_t)len || memcmp(buf, data, len) != 0)
		die("\"%s\" content changed", name);
}

/* Are the names in directory NAME beneath the top exactly WANT? */
static void
listing_compare(const struct run *r, const char *name,
    const char *const *want, size_t nwant)
{
	char path[4200];
	struct dirent *de;
	size_t n = 0, i;
	DIR *d;

	(void)snprintf(path, sizeof(path), "%s%s%s", r->top,
	    name[0] != '\0' ? "/" : "", name);
	d = opendir(path);
	if (d == NULL)
		die("opendir %s: %s", path, strerror(errno));
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		for (i = 0; i < nwant; i++) {
			if (strcmp(de->d_name, want[i]) == 0)
				break;
		}
		if (i == nwant)
			die("\"%s\" appeared in \"%s\"", de->d_name, path);
		n++;
	}
	(void)closedir(d);
	if (n != nwant)
		die("a name vanished from \"%s\"", path);
}

static int
rm_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if ((type == FTW_DP ? rmdir(path) : unlink(path)) == -1)
		die("cannot remove %s: %s", path, strerror(errno));
	return 0;
}

static void
remove_tree(const struct run *r)
{
	if (nftw(r->top, rm_one, 32, FTW_DEPTH | FTW_PHYS) != 0)
		die("cannot remove %s: %s", r->top, strerror(errno));
}

/* --- what the run reported ------------------------------------------------ */

static void
on_report(void *arg, const struct pfx_entry *e)
{
	struct seen *s = arg;
	char **paths;
	enum pfx_entry_type *types;
	bool *extracted;
	size_t cap;

	s->calls++;
	if (e->reason == NULL || e->name == NULL)
		die("entry reported without a name or a reason");
	if (e->status == PFX_ENTRY_REFUSED && strcmp(e->reason, "none") == 0)
		die("\"%s\" refused with the reason \"none\"", e->name);
	if (e->status == PFX_ENTRY_EXTRACTED) {
		if (e->path == NULL || !fuzz_rel_ok(e->path))
			die("\"%s\" extracted at \"%s\"", e->name,
			    e->path != NULL ? e->path : "(null)");
		if (strcmp(e->reason, "none") != 0 ||
		    e->decision != PFX_ALLOW)
			die("\"%s\" extracted with %s/%s", e->name,
			    pfx_decision_name(e->decision), e->reason);
	}
	if (e->path == NULL)
		return;
	if (s->npaths == s->cap) {
		cap = s->cap == 0 ? 64 : 2 * s->cap;
		paths = realloc(s->paths, cap * sizeof(*paths));
		if (paths == NULL)
			die("out of memory");
		s->paths = paths;
		types = realloc(s->types, cap * sizeof(*types));
		if (types == NULL)
			die("out of memory");
		s->types = types;
		extracted = realloc(s->extracted, cap * sizeof(*extracted));
		if (extracted == NULL)
			die("out of memory");
		s->extracted = extracted;
		s->cap = cap;
	}
	s->paths[s->npaths] = strdup(e->path);
	if (s->paths[s->npaths] == NULL)
		die("out of memory");
	s->types[s->npaths] = e->type;
	s->extracted[s->npaths++] = e->status == PFX_ENTRY_EXTRACTED;
}

static void
seen_free(struct seen *s)
{
	size_t i;

	for (i = 0; i < s->npaths; i++)
		free(s->paths[i]);
	free(s->paths);
	free(s->types);
	free(s->extracted);
}

/* Was REL extracted as TYPE? */
static bool
was_extracted(const struct seen *s, const char *rel, enum pfx_entry_type type)
{
	size_t i;

	for (i = 0; i < s->npaths; i++) {
		if (s->extracted[i] && s->types[i] == type &&
		    strcmp(s->paths[i], rel) == 0)
			return true;
	}
	return false;
}

/*
 * Is REL the path of an entry (whatever became of it), or a directory
 * above one?  An archive may name its own ".pfx-" files and directories.
 */
static bool
was_named(const struct seen *s, const char *rel)
{
	size_t i, n = strlen(rel);

	for (i = 0; i < s->npaths; i++) {
		if (strncmp(s->paths[i], rel, n) == 0 &&
		    (s->paths[i][n] == '\0' || s->paths[i][n] == '/'))
			return true;
	}
	return false;
}

/* --- symlinks: resolved here, independently of extract/linkcheck.c -------- */

/*
 * Resolve the symlink at LINK (relative to dest) with target TGT the way
 * the kernel does with RESOLVE_BENEATH from dest: from the link's
 * directory, each component looked up with lstat; a symlink's target
 * replaces it; ".." climbs from where we are.  A component that does not
 * exist, or is not a directory, is taken as spelled (pfextract judges
 * dangling links by where they would point).
 * Return: NULL if it stays beneath dest (or loops, or is too long to
 * follow: the kernel would fail, not escape), else how it escapes.
 */
static const char *
link_escapes(int destfd, const char *link, const char *tgt)
{
	size_t off, start, clen, curlen, saved, tlen;
	const char *slash;
	struct stat st;
	ssize_t n;
	int follows = 1;

	if (tgt[0] == '/')
		return "absolute target";
	slash = strrchr(link, '/');
	curlen = slash != NULL ? (size_t)(slash - link) : 0;
	memcpy(cur, link, curlen);
	cur[curlen] = '\0';
	tlen = strlen(tgt);
	off = REM_CAP - 1 - tlen;
	memcpy(rem + off, tgt, tlen + 1);
	for (;;) {
		while (rem[off] == '/')
			off++;
		if (rem[off] == '\0')
			return NULL;
		start = off;
		while (rem[off] != '\0' && rem[off] != '/')
			off++;
		clen = off - start;
		if (clen == 1 && rem[start] == '.')
			continue;
		if (clen == 2 && rem[start] == '.' && rem[start + 1] == '.') {
			if (curlen == 0)
				return "\"..\" above dest";
			while (curlen > 0 && cur[curlen - 1] != '/')
				curlen--;
			if (curlen > 0)
				curlen--;
			cur[curlen] = '\0';
			continue;
		}
		if (curlen + 1 + clen + 1 > sizeof(cur))
			return NULL;
		saved = curlen;
		if (curlen > 0)
			cur[curlen++] = '/';
		memcpy(cur + curlen, rem + start, clen);
		curlen += clen;
		cur[curlen] = '\0';
		if (fstatat(destfd, cur, &st, AT_SYMLINK_NOFOLLOW) == -1 ||
		    !S_ISLNK(st.st_mode))
			continue;
		if (++follows > MAX_FOLLOW)
			return NULL;
		n = readlinkat(destfd, cur, target, sizeof(target));
		if (n <= 0 || (size_t)n >= sizeof(target))
			return NULL;
		if (target[0] == '/')
			return "absolute target on the way";
		curlen = saved;
		cur[curlen] = '\0';
		if ((size_t)n + 1 > off)
			return NULL;
		rem[--off] = '/';
		off -= (size_t)n;
		memcpy(rem + off, target, (size_t)n);
	}
}

/* --- the walk of dest ---------------------------------------------------- */

static void
note_inode(struct run *r, const struct stat *st)
{
	struct inode *grown;
	size_t i, cap;

	for (i = 0; i < r->ninodes; i++) {
		if (r->inodes[i].dev == st->st_dev &&
		    r->inodes[i].ino == st->st_ino) {
			r->inodes[i].names++;
			return;
		}
	}
	if (r->ninodes == r->inodes_cap) {
		cap = r->inodes_cap == 0 ? 64 : 2 * r->inodes_cap;
		grown = realloc(r->inodes, cap * sizeof(*grown));
		if (grown == NULL)
			die("out of memory");
		r->inodes = grown;
		r->inodes_cap = cap;
	}
	r->inodes[r->ninodes].dev = st->st_dev;
	r->inodes[r->ninodes].ino = st->st_ino;
	r->inodes[r->ninodes].nlink = st->st_nlink;
	r->inodes[r->ninodes].names = 1;
	r->inodes[r->ninodes].size = st->st_size;
	r->inodes[r->ninodes].blocks = st->st_blocks;
	r->ninodes++;
}

/* Check one thing found in dest at REL (the last component NAME). */
static void
check_entry(struct run *r, const char *rel, const char *name,
    const struct stat *st)
{
	mode_t bad;
	ssize_t n;
	const char *why;

	if (st->st_uid != r->uid || st->st_gid != r->gid)
		die("\"%s\" owned by %lu:%lu", rel, (unsigned long)st->st_uid,
		    (unsigned long)st->st_gid);
	if (strncmp(name, ".pfx-", 5) == 0 &&
	    !was_named(&r->seen, rel))
		die("\"%s\": a temporary left behind", rel);
	switch (st->st_mode & S_IFMT) {
	case S_IFDIR:
	case S_IFREG:
		break;
	case S_IFLNK:
		if ((r->flags & 1) == 0)
			die("\"%s\": a symlink under the refuse policy", rel);
		if (!was_extracted(&r->seen, rel, PFX_TYPE_SYMLINK))
			die("\"%s\": a symlink never reported extracted", rel);
		n = readlinkat(r->destfd, rel, link_target,
		    sizeof(link_target));
		if (n <= 0 || (size_t)n >= sizeof(link_target))
			die("\"%s\": readlink: %s", rel, strerror(errno));
		link_target[n] = '\0';
		why = link_escapes(r->destfd, rel, link_target);
		if (why != NULL)
			die("\"%s\" -> \"%s\" escapes dest: %s", rel,
			    link_target, why);
		note_inode(r, st);
		return;
	default:
		die("\"%s\": a device, FIFO or socket (mode %o)", rel,
		    (unsigned int)st->st_mode);
	}
	bad = S_ISUID | S_ISGID;
	if ((r->flags & 0x80) == 0)
		bad |= S_ISVTX | S_IWGRP | S_IWOTH;
	if ((st->st_mode & bad) != 0)
		die("\"%s\": mode %o", rel, (unsigned int)st->st_mode);
	if (S_ISREG(st->st_mode)) {
		if ((uint64_t)st->st_size > MAX_BYTES)
			die("\"%s\": %jd bytes, past max-entry-bytes", rel,
			    (intmax_t)st->st_size);
		note_inode(r, st);
	}
}

/* Walk the directory FD (owned) at REL (RLEN bytes in relbuf). */
static void
walk(struct run *r, int fd, size_t rlen, int depth)
{
	struct dirent *de;
	struct stat st;
	size_t nlen;
	DIR *d;
	int sub;

	if (depth > (int)PFX_DEFAULT_MAX_DEPTH + 1)
		die("\"%s\": deeper than max-depth", relbuf);
	d = fdopendir(fd);
	if (d == NULL)
		die("fdopendir \"%s\": %s", relbuf, strerror(errno));
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		nlen = strlen(de->d_name);
		if (rlen + 1 + nlen + 1 > sizeof(relbuf))
			die("\"%s/%s\": path too long", relbuf, de->d_name);
		if (rlen > 0)
			relbuf[rlen] = '/';
		memcpy(relbuf + rlen + (rlen > 0), de->d_name, nlen + 1);
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) ==
		    -1)
			die("lstat \"%s\": %s", relbuf, strerror(errno));
		check_entry(r, relbuf, de->d_name, &st);
		if (S_ISDIR(st.st_mode)) {
			/* So that the walk and the removal can go in. */
			if ((st.st_mode & S_IRWXU) != S_IRWXU &&
			    fchmodat(dirfd(d), de->d_name, 0700, 0) == -1)
				die("chmod \"%s\": %s", relbuf,
				    strerror(errno));
			sub = openat(dirfd(d), de->d_name, O_RDONLY |
			    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub == -1)
				die("open \"%s\": %s", relbuf,
				    strerror(errno));
			walk(r, sub, rlen + (rlen > 0) + nlen, depth + 1);
		}
		relbuf[rlen] = '\0';
	}
	(void)closedir(d);
}

/* Every link of every file in dest must be in dest; data within limits. */
static void
check_inodes(const struct run *r)
{
	uint64_t data = 0, slack = 0;
	size_t i;
	uint64_t on_disk;

	for (i = 0; i < r->ninodes; i++) {
		if (r->inodes[i].nlink != r->inodes[i].names)
			die("inode %ju has %lu links, %lu of them in dest",
			    (uintmax_t)r->inodes[i].ino,
			    (unsigned long)r->inodes[i].nlink,
			    (unsigned long)r->inodes[i].names);
		/* Data is what the blocks hold, holes left out; a block
		 * partly written counts whole, hence the slack. */
		on_disk = (uint64_t)r->inodes[i].blocks * 512;
		data += on_disk < (uint64_t)r->inodes[i].size ? on_disk :
		    (uint64_t)r->inodes[i].size;
		slack += 4096;
	}
	if (data > MAX_BYTES + slack)
		die("%ju bytes of data in dest, past max-bytes",
		    (uintmax_t)data);
}

/* --- the harness ---------------------------------------------------------- */

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const top_names[] = { "dest", "sentinel",
		"sentinel.txt" };
	static const char *const sentinel_names[] = { "file" };
	static const uint8_t nothing[1];
	struct snap snaps[5];
	struct pfx_options opt;
	struct pfx_result res;
	struct pfx_input in;
	struct stat st;
	struct run r;
	enum pfx_status status;
	int fds, fd;
	size_t i;

	if (size < 1)
		return 0;
	memset(&r, 0, sizeof(r));
	r.flags = data[0];
	r.uid = geteuid();
	r.gid = getegid();
	make_tree(&r);
	current_top = r.top;
	snap_take(&r, &snaps[0], "");
	snap_take(&r, &snaps[1], "sentinel");
	snap_take(&r, &snaps[2], "sentinel/file");
	snap_take(&r, &snaps[3], "sentinel.txt");
	snap_take(&r, &snaps[4], "dest");

	pfx_options_init(&opt);
	opt.limits.max_bytes = MAX_BYTES;
	opt.limits.max_entry_bytes = MAX_BYTES;
	opt.limits.max_entries = MAX_ENTRIES;
	if ((r.flags & 0x01) != 0)
		opt.symlinks = PFX_SYMLINKS_CONTAIN;
	if ((r.flags & 0x02) != 0)
		opt.resolver = PFX_RESOLVER_WALK;
	if ((r.flags & 0x04) != 0)
		opt.flags |= PFX_OPT_WINDOWS_NAMES;
	if ((r.flags & 0x08) != 0)
		opt.strip_components = 1;
	if (((r.flags >> 4) & 3) == 1)
		opt.existing = PFX_EXISTING_KEEP;
	else if (((r.flags >> 4) & 3) == 2)
		opt.existing = PFX_EXISTING_SKIP;
	else if (((r.flags >> 4) & 3) == 3)
		opt.flags |= PFX_OPT_INCREMENTAL;
	if ((r.flags & 0x40) != 0)
		opt.flags |= PFX_OPT_NO_MTIME;
	if ((r.flags & 0x80) != 0)
		opt.flags |= PFX_OPT_PRESERVE_PERMS;
	opt.cpus = size % 2 != 0 ? 3 : 0;
	opt.hooks.report = on_report;
	opt.hooks.arg = &r.seen;

	memset(&in, 0, sizeof(in));
	in.fd = -1;
	in.buf = size > 1 ? data + 1 : nothing;
	in.len = size - 1;

	fds = fuzz_count_fds();
	status = pfx_extract(&in, r.destfd, ".", &opt, &res);
	if (fuzz_count_fds() != fds)
		die("descriptors: %d before, %d after", fds, fuzz_count_fds());

	/* The result and the reports agree. */
	if (status != res.status)
		die("returned %d, result says %d", (int)status,
		    (int)res.status);
	if (res.stats.extracted + res.stats.listed + res.stats.refused +
	    res.stats.skipped + res.stats.failed != r.seen.calls)
		die("%ju reports, counters sum to %ju",
		    (uintmax_t)r.seen.calls, (uintmax_t)(res.stats.extracted +
		    res.stats.listed + res.stats.refused + res.stats.skipped +
		    res.stats.failed));
	if (res.stats.entries != r.seen.calls)
		die("%ju entries read, %ju reported",
		    (uintmax_t)res.stats.entries, (uintmax_t)r.seen.calls);
	if (status == PFX_OK && (res.stats.refused > 0 ||
	    res.stats.failed > 0))
		die("status ok with refused or failed entries");
	if (status == PFX_FATAL && res.message[0] == '\0')
		die("fatal without a message");
	if (res.stats.bytes > MAX_BYTES)
		die("%ju bytes written, past max-bytes",
		    (uintmax_t)res.stats.bytes);
	if (res.stats.entries > MAX_ENTRIES)
		die("%ju entries, past max-entries",
		    (uintmax_t)res.stats.entries);

	/* Nothing beside dest changed. */
	for (i = 0; i < 5; i++)
		snap_compare(&r, &snaps[i], i == 4);
	content_compare(&r, "sentinel.txt", sentinel_data);
	content_compare(&r, "sentinel/file", sentinel_file_data);
	listing_compare(&r, "", top_names, 3);
	listing_compare(&r, "sentinel", sentinel_names, 1);

	/* What is in dest is safe. */
	if (fstat(r.destfd, &st) == -1)
		die("fstat dest: %s", strerror(errno));
	if ((st.st_mode & (S_ISUID | S_ISGID)) != 0)
		die("dest: mode %o", (unsigned int)st.st_mode);
	if ((st.st_mode & S_IRWXU) != S_IRWXU && fchmod(r.destfd, 0700) == -1)
		die("chmod dest: %s", strerror(errno));
	fd = dup(r.destfd);
	if (fd == -1)
		die("dup: %s", strerror(errno));
	relbuf[0] = '\0';
	walk(&r, fd, 0, 0);
	check_inodes(&r);

	(void)close(r.destfd);
	remove_tree(&r);
	current_top = NULL;
	seen_free(&r.seen);
	free(r.inodes);
	return 0;
}
