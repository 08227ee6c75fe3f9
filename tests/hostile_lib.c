/*
 * hostile_lib.c -- the library under a hostile decoder process, for
 * tests/hostile.sh: a caller that holds descriptors worth stealing.
 *
 *	hostile_lib child|atomic ARCHIVE DEST HELD_FILE HELD_DIR
 *
 * extracts ARCHIVE into DEST with PFX_OPT_SANDBOX_CHILD (given by its
 * path), or PFX_OPT_ATOMIC | PFX_OPT_SANDBOX_CHILD (as a read-only
 * descriptor), and
 * idle_timeout 2 s and stall_timeout 1 s (PFX_HOSTILE_IDLE and
 * PFX_HOSTILE_STALL change them), timeout 20 s, while holding HELD_FILE open O_RDWR,
 * HELD_DIR open as a directory, and one end of a socket pair with unread
 * bytes queued for it (none close-on-exec).  The decoder process runs
 * whatever PFX_HOSTILE says (tests/hostile.c); HELD_FILE is also mapped
 * MAP_SHARED, read-only, at the address PFX_HOSTILE_MAP tells it.  It
 * prints
 *
 *	entry STATUS TYPE PATH		for each report()
 *	status S error E ms MS		the call's outcome and duration
 *	message TEXT
 *	FAIL: WHAT			for each broken expectation here
 *
 * and exits 1 if there was a FAIL line.  What it checks itself: the
 * socket still holds its unread bytes and its peer received nothing;
 * every hook value is in the contract (enums in range, a path relative
 * without "..", a mode of permission bits only).  The files are judged
 * by the script.
 *
 *	hostile_lib xattrs PATH...
 *
 * prints each PATH's extended attributes, names and values in hex (the
 * script's snapshot; no getfattr needed).
 *
 *	hostile_lib shm ID
 *
 * prints the first bytes of System V shared memory segment ID, in hex
 * (what the ipc case may not have written).
 */
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/xattr.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pfextract.h"

#define UNREAD "unread bytes of the caller"

static int fails;

static void
fail(const char *what, const char *detail)
{
	printf("FAIL: %s%s%s\n", what, detail != NULL ? ": " : "",
	    detail != NULL ? detail : "");
	fails++;
}

/* Is PATH, a hook's path, relative and free of ".." components? */
static int
path_ok(const char *path)
{
	const char *p = path;

	if (path[0] == '\0' || path[0] == '/')
		return 0;
	while (*p != '\0') {
		if (p[0] == '.' && p[1] == '.' && (p[2] == '/' || p[2] == '\0'))
			return 0;
		p = strchr(p, '/');
		if (p == NULL)
			break;
		p++;
	}
	return 1;
}

/* Every value a hook sees, against pfextract.h. */
static void
check_entry(const struct pfx_entry *e, int reported)
{
	if (e->name == NULL)
		fail("hook: name NULL", NULL);
	if (e->path != NULL && !path_ok(e->path))
		fail("hook: path not beneath DEST", e->path);
	if ((unsigned int)e->type > PFX_TYPE_OTHER)
		fail("hook: type out of range", NULL);
	if ((e->mode & ~(mode_t)07777) != 0)
		fail("hook: mode has more than permission bits", NULL);
	if ((unsigned int)e->decision > PFX_REJECT)
		fail("hook: decision out of range", NULL);
	if (e->reason == NULL)
		fail("hook: reason NULL", NULL);
	if (reported && (unsigned int)e->status > PFX_ENTRY_FAILED)
		fail("hook: status out of range", NULL);
	if (e->error < 0 || e->error > 4095)
		fail("hook: error out of range", NULL);
}

static int
decide(void *arg, const struct pfx_entry *e, char *rename, size_t cap)
{
	(void)arg;
	(void)rename;
	(void)cap;
	check_entry(e, 0);
	return PFX_HOOK_CONTINUE;
}

static void
report(void *arg, const struct pfx_entry *e)
{
	(void)arg;
	check_entry(e, 1);
	printf("entry %s %s %s\n", pfx_entry_status_name(e->status),
	    pfx_entry_type_name(e->type), e->path != NULL ? e->path : "-");
}

static void
confined(void *arg, const struct pfx_sandbox_info *info)
{
	(void)arg;
	if (memchr(info->text, '\0', sizeof(info->text)) == NULL)
		fail("hook: sandbox text not terminated", NULL);
}

static long
ms_since(const struct timespec *t0)
{
	struct timespec t;

	(void)clock_gettime(CLOCK_MONOTONIC, &t);
	return (long)(t.tv_sec - t0->tv_sec) * 1000 +
	    (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/* SV[0] must hold exactly UNREAD, and SV[1] nothing. */
static void
check_socket(const int sv[2])
{
	char buf[256];
	ssize_t n;

	n = recv(sv[0], buf, sizeof(buf), MSG_DONTWAIT);
	if (n != (ssize_t)strlen(UNREAD) || memcmp(buf, UNREAD, (size_t)n) != 0)
		fail("the held socket lost its unread bytes", NULL);
	n = recv(sv[1], buf, sizeof(buf), MSG_DONTWAIT);
	if (n >= 0 || errno != EAGAIN)
		fail("the held socket's peer received bytes", NULL);
}

static int
extract(char **argv)
{
	struct pfx_options opt;
	struct pfx_result res;
	struct pfx_input in;
	struct timespec t0;
	const char *idle, *stall;
	char where[32];
	void *map;
	int held, dir, sv[2];

	held = open(argv[4], O_RDWR);
	dir = open(argv[5], O_RDONLY | O_DIRECTORY);
	if (held < 0 || dir < 0 ||
	    socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == -1 ||
	    send(sv[1], UNREAD, strlen(UNREAD), 0) != (ssize_t)strlen(UNREAD)) {
		perror("hostile_lib: setup");
		return 2;
	}
	/* HELD_FILE mapped shared, read-only (an mprotect(2) away from
	 * writable), as a database's pages are: where, for the attacker. */
	map = mmap(NULL, 4096, PROT_READ, MAP_SHARED, held, 0);
	if (map == MAP_FAILED) {
		perror("hostile_lib: mmap");
		return 2;
	}
	(void)snprintf(where, sizeof(where), "%lx", (unsigned long)map);
	(void)setenv("PFX_HOSTILE_MAP", where, 1);
	memset(&in, 0, sizeof(in));
	/* Both ways a caller names its archive: what the decoder process
	 * says it read must not count for more than either holds. */
	in.fd = -1;
	if (strcmp(argv[1], "atomic") == 0)
		in.fd = open(argv[2], O_RDONLY);
	else
		in.path = argv[2];
	if (in.path == NULL && in.fd < 0) {
		perror(argv[2]);
		return 2;
	}
	pfx_options_init(&opt);
	opt.flags |= PFX_OPT_SANDBOX_CHILD;
	if (strcmp(argv[1], "atomic") == 0)
		opt.flags |= PFX_OPT_ATOMIC;
	/* hostile.sh keeps it out of a spinning decoder's way. */
	idle = getenv("PFX_HOSTILE_IDLE");
	opt.idle_timeout = idle != NULL ? (unsigned int)strtoul(idle, NULL, 10) : 2;
	stall = getenv("PFX_HOSTILE_STALL");
	opt.stall_timeout = stall != NULL ?
	    (unsigned int)strtoul(stall, NULL, 10) : 1;
	opt.limits.max_memory = 64u << 20;
	opt.timeout = 20;
	opt.hooks.decide = decide;
	opt.hooks.report = report;
	opt.hooks.confined = confined;
	(void)clock_gettime(CLOCK_MONOTONIC, &t0);
	(void)pfx_extract(&in, AT_FDCWD, argv[3], &opt, &res);
	printf("status %d error %d ms %ld\nmessage %s\n", (int)res.status,
	    res.error, ms_since(&t0), res.message);
	if ((unsigned int)res.status > PFX_FATAL)
		fail("status out of range", NULL);
	if (res.status == PFX_FATAL && res.error <= 0)
		fail("a fatal status without an errno", NULL);
	check_socket(sv);
	return fails != 0;
}

static void
print_xattrs(const char *path)
{
	char names[4096], value[4096];
	ssize_t n, v, i;
	char *p;

	n = llistxattr(path, names, sizeof(names));
	printf("%s:", path);
	for (p = names; n > 0 && p < names + n; p += strlen(p) + 1) {
		v = lgetxattr(path, p, value, sizeof(value));
		printf(" %s=", p);
		for (i = 0; i < v; i++)
			printf("%02x", (unsigned char)value[i]);
	}
	printf("\n");
}

/* Print the first 16 bytes of segment ID in hex.  Return: 0, or 1. */
static int
print_shm(const char *id)
{
	const unsigned char *p;
	int i;

	p = shmat(atoi(id), NULL, SHM_RDONLY);
	if (p == (const void *)-1) {
		perror("hostile_lib: shmat");
		return 1;
	}
	for (i = 0; i < 16; i++)
		printf("%02x", p[i]);
	printf("\n");
	(void)shmdt(p);
	return 0;
}

int
main(int argc, char **argv)
{
	int i;

	if (argc == 3 && strcmp(argv[1], "shm") == 0)
		return print_shm(argv[2]);

	if (argc >= 2 && strcmp(argv[1], "xattrs") == 0) {
		for (i = 2; i < argc; i++)
			print_xattrs(argv[i]);
		return 0;
	}
	if (argc != 6 || (strcmp(argv[1], "child") != 0 &&
	    strcmp(argv[1], "atomic") != 0)) {
		fprintf(stderr, "usage: hostile_lib child|atomic ARCHIVE DEST "
		    "HELD_FILE HELD_DIR\n       hostile_lib xattrs PATH...\n"
		    "       hostile_lib shm ID\n");
		return 2;
	}
	return extract(argv);
}
