/*
 * confine_probe.c -- what the kernel refuses a confined process, tried
 * call by call (make check runs it).
 *
 *	confine_probe [decoder|writer]		(no argument: both)
 *
 * decoder: a child confines itself exactly as the decoder process does
 * (child.c): plat_child_fds() keeping its socket and a read-only
 * descriptor of an outside file (the archive's place), then
 * pfx_sandbox_confine(-1, PFX_SANDBOX_NO_DEST | PFX_SANDBOX_REQUIRE).
 * It then tries: fchmod with set-id bits and fchown on both kept
 * descriptors; opening for writing, writing, truncating, chmod and chown
 * of a hard link in DEST to an outside file; fork, vfork and clone
 * without CLONE_THREAD; kill(getppid(), 0); and fchmod, write and
 * ftruncate on the numbers of a file held O_RDWR and of a directory
 * before plat_child_fds(), and fcntl(F_GETFD) on them, which no filter
 * refuses: EBADF is its only right answer.
 *
 * writer: a child confines itself with write rights beneath DEST (flags
 * 0, as the sandboxed writer does) and makes a file there, then tries
 * fchmod 04755 and fchown on it, and fork.
 *
 * Every attempt must fail.  The child sends one line per call over its
 * socket ("NAME OK" or "NAME ERRNO"); this process prints them and exits
 * 1 listing every call that succeeded, or when something outside DEST
 * changed.  Exits 0 with "skipped" when the kernel cannot enforce the
 * sandbox (PFX_SANDBOX_REQUIRE fails with ENOSYS).
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "platform.h"
#include "pfx_sandbox.h"

#define NOBODY 65534
#define SKIPPED 77

/* The held descriptors' numbers: high, so no kept one moves onto them. */
#define HELD_RW 100
#define HELD_DIR 101

static char base[256];
static int out = -1;

/* Send "NAME OK" or "NAME ERRNO" for R (a call's return, -1 failed). */
static void
said(const char *name, long r, int e)
{
	char line[160];
	int n;

	n = snprintf(line, sizeof(line), "%s %s\n", name, r >= 0 ? "OK" :
	    strerrorname_np(e) != NULL ? strerrorname_np(e) : "?");
	(void)!write(out, line, (size_t)n);
}

#define TRY(name, call) do {						\
	long r_ = (long)(call);						\
	said(name, r_, errno);						\
} while (0)

static void
path_of(char *buf, size_t cap, const char *name)
{
	(void)snprintf(buf, cap, "%s/%s", base, name);
}

/* A child made by a call that should have been refused ends at once. */
static void
try_fork(void)
{
	pid_t pid;

	pid = fork();
	if (pid == 0)
		_exit(0);
	said("fork", pid, errno);
	if (pid > 0)
		(void)waitpid(pid, NULL, 0);
	pid = vfork();
	if (pid == 0)
		_exit(0);
	said("vfork", pid, errno);
	if (pid > 0)
		(void)waitpid(pid, NULL, 0);
	pid = (pid_t)syscall(SYS_clone, SIGCHLD, NULL, NULL, NULL, NULL);
	if (pid == 0)
		_exit(0);
	said("clone", pid, errno);
	if (pid > 0)
		(void)waitpid(pid, NULL, 0);
}

static void __attribute__((noreturn))
decoder(int sock)
{
	struct pfx_sandbox_info info;
	char hl[300];
	int keep[2], ro, r, fd;

	path_of(hl, sizeof(hl), "archive");
	fd = open(hl, O_RDONLY | O_CLOEXEC);
	ro = fd >= 0 ? plat_input_readonly(fd) : -1;
	keep[0] = sock;
	keep[1] = ro;
	if (ro < 0 || plat_child_fds(keep, 2) < 0)
		_exit(3);
	out = keep[0];
	ro = keep[1];
	r = pfx_sandbox_confine(-1, PFX_SANDBOX_NO_DEST | PFX_SANDBOX_REQUIRE,
	    &info);
	if (r == -ENOSYS)
		_exit(SKIPPED);
	if (r < 0)
		_exit(4);
	TRY("fchmod(archive, 04755)", fchmod(ro, 04755));
	TRY("fchown(archive)", fchown(ro, NOBODY, NOBODY));
	TRY("fchmod(socket, 04755)", fchmod(out, 04755));
	TRY("fchown(socket)", fchown(out, NOBODY, NOBODY));
	path_of(hl, sizeof(hl), "dest/hl");
	fd = open(hl, O_WRONLY | O_APPEND | O_CLOEXEC);
	said("open(dest/hl, O_WRONLY)", fd, errno);
	if (fd >= 0)
		TRY("write(dest/hl)", write(fd, "FORGED\n", 7));
	TRY("truncate(dest/hl)", truncate(hl, 0));
	TRY("chmod(dest/hl, 04755)", chmod(hl, 04755));
	TRY("chown(dest/hl)", chown(hl, NOBODY, NOBODY));
	try_fork();
	TRY("kill(getppid(), 0)", kill(getppid(), 0));
	TRY("fchmod(held rw)", fchmod(HELD_RW, 04755));
	TRY("write(held rw)", write(HELD_RW, "FORGED\n", 7));
	TRY("ftruncate(held rw)", ftruncate(HELD_RW, 0));
	TRY("fchmod(held dir)", fchmod(HELD_DIR, 04755));
	TRY("fcntl(held rw)", fcntl(HELD_RW, F_GETFD));
	TRY("fcntl(held dir)", fcntl(HELD_DIR, F_GETFD));
	_exit(0);
}

static void __attribute__((noreturn))
writer(int sock)
{
	struct pfx_sandbox_info info;
	char dest[300];
	int dfd, fd, r;

	out = sock;
	path_of(dest, sizeof(dest), "dest");
	dfd = open(dest, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		_exit(3);
	r = pfx_sandbox_confine(dfd, PFX_SANDBOX_REQUIRE, &info);
	if (r == -ENOSYS)
		_exit(SKIPPED);
	if (r < 0)
		_exit(4);
	fd = openat(dfd, "made", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
	    0644);
	if (fd < 0)
		_exit(5);	/* the writer must be able to write */
	TRY("fchmod(made, 04755)", fchmod(fd, 04755));
	TRY("fchmod(made, 02755)", fchmod(fd, 02755));
	TRY("fchown(made)", fchown(fd, NOBODY, NOBODY));
	TRY("fchownat(dest, made)", fchownat(dfd, "made", NOBODY, NOBODY, 0));
	try_fork();
	_exit(0);
}

/* What must not change: "mode uid gid nlink size content". */
static void
state_of(const char *name, char *buf, size_t cap)
{
	char p[300], data[64] = "";
	struct stat st;
	ssize_t n = 0;
	int fd;

	path_of(p, sizeof(p), name);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		n = read(fd, data, sizeof(data) - 1);
	if (fd >= 0)
		(void)close(fd);
	data[n > 0 ? n : 0] = '\0';
	data[strcspn(data, "\n")] = '\0';
	if (stat(p, &st) == -1)
		(void)snprintf(buf, cap, "%s: %s", name, strerror(errno));
	else
		(void)snprintf(buf, cap, "%s: %o %d %d %lu %lld %s", name,
		    (unsigned int)st.st_mode, (int)st.st_uid, (int)st.st_gid,
		    (unsigned long)st.st_nlink, (long long)st.st_size, data);
}

static void
make_file(const char *name, const char *text)
{
	char p[300];
	FILE *f;

	path_of(p, sizeof(p), name);
	f = fopen(p, "w");
	if (f == NULL || fputs(text, f) == EOF || fclose(f) == EOF) {
		perror(p);
		exit(2);
	}
}

/* Run MODE in a child; print its lines.  Return: calls that succeeded,
 * -1 when skipped. */
static int
probe(const char *mode, void (*fn)(int) __attribute__((noreturn)))
{
	static const char *names[] = { "archive", "outside", "held", "." };
	char before[4][400], after[400], buf[4096];
	char *p, *nl;
	int sv[2], st, i, done = 0, bad = 0;
	size_t len = 0;
	ssize_t n;
	pid_t pid;

	for (i = 0; i < 4; i++)
		state_of(names[i], before[i], sizeof(before[i]));
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == -1)
		return perror("socketpair"), 1;
	pid = fork();
	if (pid == 0) {
		(void)close(sv[0]);
		fn(sv[1]);
	}
	(void)close(sv[1]);
	while (len < sizeof(buf) - 1 &&
	    (n = read(sv[0], buf + len, sizeof(buf) - 1 - len)) > 0)
		len += (size_t)n;
	buf[len] = '\0';
	(void)close(sv[0]);
	(void)waitpid(pid, &st, 0);
	if (WIFEXITED(st) && WEXITSTATUS(st) == SKIPPED) {
		printf("confine_probe: %s: skipped: the kernel cannot enforce "
		    "the sandbox\n", mode);
		return -1;
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		printf("confine_probe: %s: FAIL: the probe ended with %#x\n",
		    mode, st);
		bad++;
	}
	for (p = buf; (nl = strchr(p, '\n')) != NULL; p = nl + 1) {
		*nl = '\0';
		done++;
		if (strlen(p) > 3 && strcmp(p + strlen(p) - 3, " OK") == 0) {
			printf("confine_probe: %s: FAIL: not refused: %s\n",
			    mode, p);
			bad++;
		} else if (strncmp(p, "fcntl(held", 10) == 0 &&
		    strstr(p, " EBADF") == NULL) {
			printf("confine_probe: %s: FAIL: a held descriptor "
			    "is still open: %s\n", mode, p);
			bad++;
		} else {
			printf("confine_probe: %s: refused: %s\n", mode, p);
		}
	}
	if (done == 0) {
		printf("confine_probe: %s: FAIL: no call was tried\n", mode);
		bad++;
	}
	for (i = 0; i < 4; i++) {
		state_of(names[i], after, sizeof(after));
		if (strcmp(before[i], after) != 0) {
			printf("confine_probe: %s: FAIL: changed: %s, was %s\n",
			    mode, after, before[i]);
			bad++;
		}
	}
	return bad;
}

int
main(int argc, char **argv)
{
	const char *tmp = getenv("TMPDIR");
	char p[300], q[300];
	int bad = 0, r, rw, dir;

	if (argc > 2 || (argc == 2 && strcmp(argv[1], "decoder") != 0 &&
	    strcmp(argv[1], "writer") != 0)) {
		fprintf(stderr, "usage: confine_probe [decoder|writer]\n");
		return 2;
	}
	(void)snprintf(base, sizeof(base), "%s/confine_probe.XXXXXX",
	    tmp != NULL && *tmp != '\0' ? tmp : "/tmp");
	if (mkdtemp(base) == NULL)
		return perror("mkdtemp"), 2;
	make_file("archive", "archive\n");
	make_file("outside", "outside\n");
	make_file("held", "held\n");
	path_of(p, sizeof(p), "dest");
	path_of(q, sizeof(q), "outside");
	if (mkdir(p, 0755) == -1)
		return perror(p), 2;
	path_of(p, sizeof(p), "dest/hl");
	if (link(q, p) == -1)
		return perror(p), 2;
	path_of(p, sizeof(p), "held");
	rw = open(p, O_RDWR);
	dir = open(base, O_RDONLY | O_DIRECTORY);
	if (rw < 0 || dir < 0 || dup2(rw, HELD_RW) == -1 ||
	    dup2(dir, HELD_DIR) == -1)
		return perror("held descriptors"), 2;
	if (argc == 1 || strcmp(argv[1], "decoder") == 0) {
		r = probe("decoder", decoder);
		bad += r > 0 ? r : 0;
	}
	if (argc == 1 || strcmp(argv[1], "writer") == 0) {
		r = probe("writer", writer);
		bad += r > 0 ? r : 0;
	}
	(void)snprintf(p, sizeof(p), "rm -rf '%s'", base);
	if (system(p) != 0)
		fprintf(stderr, "confine_probe: cannot remove %s\n", base);
	printf("confine_probe: %s\n", bad == 0 ? "ok" : "FAILED");
	return bad != 0;
}
