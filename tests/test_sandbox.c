/*
 * test_sandbox.c -- the kernel backstop (pfx_sandbox.h), proved from the
 * outside: a process confines itself, then attempts what the sandbox
 * forbids and what an extractor needs, and the kernel's answers are
 * asserted.
 *
 * Confinement is irreversible, so it never happens in the test runner's
 * process: each test forks a child that confines itself and reports
 * each attempt's errno (0: it worked) through a pipe, then leaves with
 * _exit(); the parent asserts, and checks that nothing outside the
 * destination changed.  The fixture, made fresh by fx_init():
 *
 *	$TMPDIR/pfx-sandbox.XXXXXX/	top (not watched)
 *	|-- dest/			the destination
 *	|   |-- old			"old\n"
 *	|   |-- dl -> old
 *	|   `-- sub/
 *	|-- sibling/			watched: a sibling of dest
 *	`-- outside/			watched
 *	    |-- secret			"secret\n", 0600
 *	    `-- victim			"victim\n", 0644
 *
 * The tests are skipped only when the kernel has no Landlock at all.
 * Under a sanitizer, ptrace stays allowed (LeakSanitizer needs it; see
 * sandbox_linux.c), so that attempt is not asserted there.  Each test
 * has a timeout: a child stopped by a mistake must fail the test, not
 * hang the run.
 */
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/file.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/shm.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <sys/xattr.h>

#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/fs.h>
#include <linux/seccomp.h>
#include <linux/sockios.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <time.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <criterion/criterion.h>

#include "../extract/pfextract.h"
#include "../platform/pfx_root.h"
#include "../platform/platform.h"
#include "../platform/pfx_sandbox.h"
#include "fixture.h"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_SANITIZER 1
#else
#define UNDER_SANITIZER 0
#endif

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* What a child attempts; each reports an errno, 0 when it worked. */
enum attempt {
	/* Forbidden. */
	A_WRITE_OUTSIDE,	/* open outside/victim for writing */
	A_CREATE_SIBLING,	/* create sibling/new */
	A_READ_SECRET,		/* open outside/secret for reading */
	A_RENAME_OUT,		/* rename dest/moving to outside/moved */
	A_LINK_OUT,		/* hard-link dest/old as outside/hl */
	A_LINK_IN,		/* hard-link outside/victim as dest/hl */
	A_TRUNCATE_OUTSIDE,	/* truncate outside/victim */
	A_UNLINK_OUTSIDE,	/* unlink outside/victim */
	A_MKDIR_OUTSIDE,	/* mkdir outside/d */
	A_FIFO,			/* mkfifo dest/fifo */
	A_SYMLINK,		/* symlink dest/sl (without the flag) */
	A_SOCKET_INET,
	A_SOCKET_UNIX,
	A_CONNECT,		/* connect a socket made before confining */
	A_EXEC,			/* execve /bin/true */
	A_PTRACE,		/* PTRACE_PEEKUSER on the parent */
	A_UNSHARE,		/* unshare(CLONE_NEWUSER) */
	A_CLONE_NEW,		/* clone(CLONE_NEWUSER) */
	A_CLONE3,		/* ENOSYS, so that libc falls back to clone */
	A_SETUID,
	A_MOUNT,
	A_SIGNAL_PARENT,	/* kill(getppid(), 0) */
	A_FORK,			/* fork, child exits 7 */
	A_TIOCSTI,		/* push a key into a pty opened before */
	/* Allowed. */
	A_CREATE,		/* create dest/new and write to it */
	A_RENAME,		/* dest/new to dest/renamed */
	A_RENAME_SUB,		/* dest/renamed to dest/sub/renamed */
	A_LINK_SUB,		/* hard-link dest/sub/renamed as dest/hl2 */
	A_REMOVE,		/* unlink dest/hl2 */
	A_MKDIR,		/* mkdir dest/made, then rmdir it */
	A_TRUNCATE,		/* truncate dest/old through a new open */
	A_READLINK,		/* readlink dest/dl */
	A_READ_USR,		/* list /usr */
	A_READ_PASSWD,		/* read /etc/passwd */
	A_THREAD,		/* pthread_create and join */
	A_MOVE_SYMLINK,		/* rename dest/dl (a backup's move) */
	A_MOVE_FIFO,		/* rename dest/pipe, a FIFO made before */
	A_SYMLINK_WITH,		/* (PFX_SANDBOX_SYMLINKS only) */
	N_ATTEMPTS
};

static const char *const attempt_names[N_ATTEMPTS] = {
	"write outside", "create in sibling", "read secret",
	"rename out of dest", "hard link out of dest", "hard link into dest",
	"truncate outside", "unlink outside", "mkdir outside", "mkfifo",
	"symlink without the flag", "socket(AF_INET)", "socket(AF_UNIX)",
	"connect", "execve", "ptrace", "unshare", "clone(CLONE_NEWUSER)",
	"clone3", "setuid", "mount", "signal the parent", "fork",
	"TIOCSTI", "create", "rename", "rename into a subdirectory",
	"hard link across directories", "remove", "mkdir and rmdir",
	"truncate", "readlink", "read /usr", "read /etc/passwd",
	"pthread_create", "move a symlink", "move a FIFO",
	"symlink with the flag"
};

/* What the child sends back. */
struct outcome {
	int confine;			/* pfx_sandbox_confine()'s return */
	struct pfx_sandbox_info info;
	int err[N_ATTEMPTS];
};

struct fx {
	char path[1024];
	int top, dest, outside, sibling;
	char *snap_outside, *snap_sibling;
};

/* Write LEN bytes of DATA to DIRFD/NAME, made with MODE. */
static void
put_file(int dirfd, const char *name, const char *data, mode_t mode)
{
	int fd;

	fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
	    mode);
	cr_assert(fd >= 0, "create %s: %s", name, strerror(errno));
	cr_assert(write(fd, data, strlen(data)) == (ssize_t)strlen(data));
	cr_assert(close(fd) == 0);
}

static int
open_dir(int dirfd, const char *name)
{
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	cr_assert(fd >= 0, "open %s: %s", name, strerror(errno));
	return fd;
}

/* Skip the test unless the kernel has Landlock. */
static void
need_landlock(void)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, 1u);

	if (abi < 1)
		cr_skip_test("no Landlock in this kernel: %s",
		    strerror(errno));
}

static void
fx_init(struct fx *fx)
{
	const char *tmp = getenv("TMPDIR");

	need_landlock();
	memset(fx, 0, sizeof(*fx));
	snprintf(fx->path, sizeof(fx->path), "%s/pfx-sandbox.XXXXXX",
	    tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
	cr_assert(mkdtemp(fx->path) != NULL, "mkdtemp: %s", strerror(errno));
	fx->top = open(fx->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert(fx->top >= 0);
	cr_assert(mkdirat(fx->top, "dest", 0755) == 0);
	cr_assert(mkdirat(fx->top, "sibling", 0755) == 0);
	cr_assert(mkdirat(fx->top, "outside", 0755) == 0);
	fx->dest = open_dir(fx->top, "dest");
	fx->sibling = open_dir(fx->top, "sibling");
	fx->outside = open_dir(fx->top, "outside");
	put_file(fx->outside, "secret", "secret\n", 0600);
	put_file(fx->outside, "victim", "victim\n", 0644);
	put_file(fx->dest, "old", "old\n", 0644);
	put_file(fx->dest, "moving", "moving\n", 0644);
	cr_assert(symlinkat("old", fx->dest, "dl") == 0);
	cr_assert(mkfifoat(fx->dest, "pipe", 0600) == 0);
	cr_assert(mkdirat(fx->dest, "sub", 0755) == 0);
	fx->snap_outside = tfx_snapshot(fx->outside, 0);
	fx->snap_sibling = tfx_snapshot(fx->sibling, 0);
}

/* Assert nothing outside dest changed, and remove the fixture. */
static void
fx_end(struct fx *fx)
{
	char *now;

	now = tfx_snapshot(fx->outside, 0);
	tfx_expect_same_snapshot("sandbox", "outside", fx->snap_outside, now);
	free(now);
	now = tfx_snapshot(fx->sibling, 0);
	tfx_expect_same_snapshot("sandbox", "sibling", fx->snap_sibling, now);
	free(now);
	free(fx->snap_outside);
	free(fx->snap_sibling);
	(void)close(fx->top);
	(void)close(fx->dest);
	(void)close(fx->outside);
	(void)close(fx->sibling);
	(void)tfx_rm_tree(fx->path);
}

/* Return: 0 if R is not -1, else errno. */
static int
ok(long r)
{
	return r == -1 ? errno : 0;
}

/* Return: 0 if FD opened (and close it), else errno. */
static int
ok_fd(int fd)
{
	if (fd == -1)
		return errno;
	(void)close(fd);
	return 0;
}

static void *
thread_main(void *arg)
{
	return arg;
}

/* Fork (through a raw clone with FLAGS); the child leaves at once. */
static int
try_clone(unsigned long flags)
{
	long pid = syscall(SYS_clone, flags | SIGCHLD, 0, 0, 0, 0);

	if (pid == 0)
		_exit(0);
	if (pid == -1)
		return errno;
	(void)waitpid((pid_t)pid, NULL, 0);
	return 0;
}

static int
try_clone3(void)
{
	uint64_t args[11];	/* struct clone_args, version 2 */
	long pid;

	memset(args, 0, sizeof(args));
	args[4] = SIGCHLD;	/* exit_signal */
	pid = syscall(435 /* SYS_clone3 */, args, sizeof(args));
	if (pid == 0)
		_exit(0);
	if (pid == -1)
		return errno;
	(void)waitpid((pid_t)pid, NULL, 0);
	return 0;
}

static int
try_exec(void)
{
	char *const argv[] = { "true", NULL };
	char *const envp[] = { NULL };

	(void)execve("/bin/true", argv, envp);
	return errno;
}

static int
try_fork(void)
{
	int status;
	pid_t pid = fork();

	if (pid == 0)
		_exit(7);
	if (pid == -1)
		return errno;
	if (waitpid(pid, &status, 0) == -1)
		return errno;
	return WIFEXITED(status) && WEXITSTATUS(status) == 7 ? 0 : EIO;
}

static int
try_thread(void)
{
	pthread_t t;
	int r;

	r = pthread_create(&t, NULL, thread_main, NULL);
	if (r != 0)
		return r;
	return pthread_join(t, NULL);
}

static int
try_read_usr(void)
{
	DIR *d = opendir("/usr");
	int n = 0;

	if (d == NULL)
		return errno;
	while (readdir(d) != NULL)
		n++;
	(void)closedir(d);
	return n > 2 ? 0 : ENOENT;
}

static int
try_read_passwd(void)
{
	char buf[16];
	int fd = open("/etc/passwd", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd == -1)
		return errno;
	n = read(fd, buf, sizeof(buf));
	(void)close(fd);
	return n > 0 ? 0 : EIO;
}

static int
try_readlink(int dest)
{
	char buf[16];
	ssize_t n = readlinkat(dest, "dl", buf, sizeof(buf));

	if (n == -1)
		return errno;
	return n == 3 && memcmp(buf, "old", 3) == 0 ? 0 : EIO;
}

static int
try_create(int dest)
{
	int fd = openat(dest, "new", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
	    0644);
	int e = 0;

	if (fd == -1)
		return errno;
	if (write(fd, "new\n", 4) != 4)
		e = errno;
	(void)close(fd);
	return e;
}

static int
try_mkdir(int dest)
{
	if (mkdirat(dest, "made", 0755) == -1)
		return errno;
	return ok(unlinkat(dest, "made", AT_REMOVEDIR));
}

/* Connect the socket FD (made before confinement) to 127.0.0.1:9. */
static int
try_connect(int fd)
{
	struct sockaddr_in sin;

	if (fd == -1)
		return EBADF;
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(9);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return ok(connect(fd, (struct sockaddr *)&sin, sizeof(sin)));
}

/*
 * A pseudo-terminal's follower, opened read-only and not as the
 * controlling terminal, or -1 (then TIOCSTI is not tried).  Its leader
 * stays open for the child's life, so that the follower is not hung up:
 * as root (make check), the kernel itself would take the key.
 */
static int
open_pty(void)
{
	int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);

	if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0)
		return -1;
	return open(ptsname(master), O_RDONLY | O_NOCTTY | O_CLOEXEC);
}

/*
 * In the child: confine to FX's dest with FLAGS, attempt everything, in
 * an order where each allowed step prepares the next.
 */
static void
attempt_all(struct fx *fx, unsigned int flags, struct outcome *o)
{
	char mnt[PATH_MAX + 32];
	int sock, tty, *e = o->err;

	sock = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	tty = open_pty();
	o->confine = pfx_sandbox_confine(fx->dest, flags, &o->info);

	e[A_WRITE_OUTSIDE] = ok_fd(openat(fx->outside, "victim",
	    O_WRONLY | O_CLOEXEC));
	e[A_CREATE_SIBLING] = ok_fd(openat(fx->sibling, "new",
	    O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
	e[A_READ_SECRET] = ok_fd(openat(fx->outside, "secret",
	    O_RDONLY | O_CLOEXEC));
	e[A_RENAME_OUT] = ok(renameat(fx->dest, "moving", fx->outside,
	    "moved"));
	e[A_LINK_OUT] = ok(linkat(fx->dest, "old", fx->outside, "hl", 0));
	e[A_LINK_IN] = ok(linkat(fx->outside, "victim", fx->dest, "hl", 0));
	snprintf(mnt, sizeof(mnt), "%s/outside/victim", fx->path);
	e[A_TRUNCATE_OUTSIDE] = ok(truncate(mnt, 0));
	e[A_UNLINK_OUTSIDE] = ok(unlinkat(fx->outside, "victim", 0));
	e[A_MKDIR_OUTSIDE] = ok(mkdirat(fx->outside, "d", 0755));
	e[A_FIFO] = ok(mkfifoat(fx->dest, "fifo", 0600));
	e[A_SYMLINK] = ok(symlinkat("old", fx->dest, "sl"));
	e[A_SOCKET_INET] = ok_fd(socket(AF_INET, SOCK_STREAM, 0));
	e[A_SOCKET_UNIX] = ok_fd(socket(AF_UNIX, SOCK_STREAM, 0));
	e[A_CONNECT] = try_connect(sock);
	e[A_EXEC] = try_exec();
	/* Harmless either way: the parent is not our tracee, so an
	 * unfiltered ptrace says ESRCH; the filter says EPERM first.
	 * (Not PTRACE_TRACEME: where ptrace stays allowed, under a
	 * sanitizer, it would stop this child for a tracer that never
	 * waits.) */
	e[A_PTRACE] = ok(ptrace(PTRACE_PEEKUSER, getppid(), NULL, NULL));
	e[A_UNSHARE] = ok(unshare(CLONE_NEWUSER));
	e[A_CLONE_NEW] = try_clone(CLONE_NEWUSER);
	e[A_CLONE3] = try_clone3();
	e[A_SETUID] = ok(setuid(getuid()));
	snprintf(mnt, sizeof(mnt), "%s/dest/sub", fx->path);
	e[A_MOUNT] = ok(mount("none", mnt, "tmpfs", 0, NULL));
	e[A_SIGNAL_PARENT] = ok(kill(getppid(), 0));
	e[A_FORK] = try_fork();
	e[A_TIOCSTI] = tty >= 0 ? ok(ioctl(tty, TIOCSTI, "x")) : 0;

	e[A_CREATE] = try_create(fx->dest);
	e[A_RENAME] = ok(renameat(fx->dest, "new", fx->dest, "renamed"));
	e[A_RENAME_SUB] = ok(renameat(fx->dest, "renamed", fx->dest,
	    "sub/renamed"));
	e[A_LINK_SUB] = ok(linkat(fx->dest, "sub/renamed", fx->dest, "hl2",
	    0));
	e[A_REMOVE] = ok(unlinkat(fx->dest, "hl2", 0));
	e[A_MKDIR] = try_mkdir(fx->dest);
	e[A_TRUNCATE] = ok_fd(openat(fx->dest, "old",
	    O_WRONLY | O_TRUNC | O_CLOEXEC));
	e[A_READLINK] = try_readlink(fx->dest);
	e[A_READ_USR] = try_read_usr();
	e[A_READ_PASSWD] = try_read_passwd();
	e[A_THREAD] = try_thread();
	e[A_MOVE_SYMLINK] = ok(renameat(fx->dest, "dl", fx->dest, "dl~"));
	e[A_MOVE_FIFO] = ok(renameat(fx->dest, "pipe", fx->dest, "sub/p~"));
	e[A_SYMLINK_WITH] = ok(symlinkat("old", fx->dest, "sl2"));
	if (sock != -1)
		(void)close(sock);
	if (tty != -1)
		(void)close(tty);
}

/*
 * Run FN(FX, FLAGS, OUT) in a child and bring *OUT back.
 * Return: the child's wait status.
 */
static int
in_child(void (*fn)(struct fx *, unsigned int, struct outcome *),
    struct fx *fx, unsigned int flags, struct outcome *out)
{
	struct outcome o;
	int p[2], status;
	size_t got = 0;
	ssize_t n;
	pid_t pid;

	cr_assert(pipe(p) == 0);
	pid = fork();
	cr_assert(pid != -1, "fork: %s", strerror(errno));
	if (pid == 0) {
		(void)close(p[0]);
		memset(&o, 0, sizeof(o));
		for (n = 0; n < N_ATTEMPTS; n++)
			o.err[n] = -1;	/* not attempted */
		fn(fx, flags, &o);
		if (write(p[1], &o, sizeof(o)) != (ssize_t)sizeof(o))
			_exit(3);
		_exit(0);
	}
	(void)close(p[1]);
	memset(out, 0, sizeof(*out));
	while (got < sizeof(*out)) {
		n = read(p[0], (char *)out + got, sizeof(*out) - got);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	(void)close(p[0]);
	cr_assert(waitpid(pid, &status, 0) == pid);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		cr_assert_eq(got, sizeof(*out), "short report from the child");
	return status;
}

/* in_child(), asserting that the child ended well and was confined. */
static void
in_confined_child(void (*fn)(struct fx *, unsigned int, struct outcome *),
    struct fx *fx, unsigned int flags, struct outcome *out)
{
	int status = in_child(fn, fx, flags, out);

	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "child status %#x", status);
	cr_assert_eq(out->confine, 0, "confine: %s",
	    strerror(-out->confine));
}

/* Was the process confined with read-only mounts around its destination
 * (platform/view_linux.c: root, or root of a container)?  A change
 * outside then fails with EROFS before Landlock is asked. */
static bool
readonly_mounts(const struct pfx_sandbox_info *info)
{
	return strstr(info->text, "read-only mounts") != NULL;
}

/* Expect attempt A to have failed with one of E1, E2 (0: unused), or
 * with EROFS where O's mounts outside the destination are read-only. */
static void
expect_refused(const struct outcome *o, enum attempt a, int e1, int e2)
{
	int e = o->err[a];

	cr_expect(e == e1 || (e2 != 0 && e == e2) ||
	    (e == EROFS && readonly_mounts(&o->info)),
	    "%s: %s, expected %s%s%s", attempt_names[a],
	    e == 0 ? "it worked" : strerror(e), strerror(e1),
	    e2 != 0 ? " or " : "", e2 != 0 ? strerror(e2) : "");
}

static void
expect_allowed(const struct outcome *o, enum attempt a)
{
	cr_expect_eq(o->err[a], 0, "%s: refused: %s", attempt_names[a],
	    strerror(o->err[a]));
}

static void
expect_forbidden_refused(const struct outcome *o)
{
	expect_refused(o, A_WRITE_OUTSIDE, EACCES, 0);
	expect_refused(o, A_CREATE_SIBLING, EACCES, 0);
	expect_refused(o, A_READ_SECRET, EACCES, 0);
	expect_refused(o, A_RENAME_OUT, EXDEV, EACCES);
	expect_refused(o, A_LINK_OUT, EXDEV, EACCES);
	expect_refused(o, A_LINK_IN, EXDEV, EACCES);
	expect_refused(o, A_TRUNCATE_OUTSIDE, EACCES, 0);
	expect_refused(o, A_UNLINK_OUTSIDE, EACCES, 0);
	expect_refused(o, A_MKDIR_OUTSIDE, EACCES, 0);
	expect_refused(o, A_FIFO, EPERM, EACCES);
	expect_refused(o, A_SOCKET_INET, EPERM, 0);
	expect_refused(o, A_SOCKET_UNIX, EPERM, 0);
	expect_refused(o, A_CONNECT, EPERM, EACCES);
	expect_refused(o, A_EXEC, EPERM, EACCES);
	if (!UNDER_SANITIZER)
		expect_refused(o, A_PTRACE, EPERM, 0);
	expect_refused(o, A_UNSHARE, EPERM, 0);
	expect_refused(o, A_CLONE_NEW, EPERM, 0);
	expect_refused(o, A_CLONE3, ENOSYS, 0);
	expect_refused(o, A_SETUID, EPERM, 0);
	expect_refused(o, A_MOUNT, EPERM, 0);
	expect_refused(o, A_SIGNAL_PARENT, EPERM, 0);
	expect_refused(o, A_FORK, EPERM, 0);
	/* EPERM is the filter's: the kernel says EIO where it refuses
	 * TIOCSTI itself (dev.tty.legacy_tiocsti=0). */
	expect_refused(o, A_TIOCSTI, EPERM, 0);
}

static void
expect_needs_allowed(const struct outcome *o)
{
	expect_allowed(o, A_CREATE);
	expect_allowed(o, A_RENAME);
	expect_allowed(o, A_RENAME_SUB);
	expect_allowed(o, A_LINK_SUB);
	expect_allowed(o, A_REMOVE);
	expect_allowed(o, A_MKDIR);
	expect_allowed(o, A_TRUNCATE);
	expect_allowed(o, A_READLINK);
	expect_allowed(o, A_READ_USR);
	expect_allowed(o, A_READ_PASSWD);
	expect_allowed(o, A_THREAD);
	expect_allowed(o, A_MOVE_SYMLINK);
	expect_allowed(o, A_MOVE_FIFO);
}

Test(sandbox, forbidden_refused_needed_allowed, .timeout = 30)
{
	struct outcome o;
	struct fx fx;
	int status;

	fx_init(&fx);
	status = in_child(attempt_all, &fx, 0, &o);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "child status %#x", status);
	cr_assert_eq(o.confine, 0, "confine: %s", strerror(-o.confine));
	expect_forbidden_refused(&o);
	expect_refused(&o, A_SYMLINK, EPERM, 0);
	expect_refused(&o, A_SYMLINK_WITH, EPERM, 0);
	expect_needs_allowed(&o);
	fx_end(&fx);
}

Test(sandbox, symlinks_flag, .timeout = 30)
{
	struct outcome o;
	struct fx fx;
	char buf[8];
	int status;

	fx_init(&fx);
	status = in_child(attempt_all, &fx, PFX_SANDBOX_SYMLINKS, &o);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	cr_assert_eq(o.confine, 0, "confine: %s", strerror(-o.confine));
	expect_forbidden_refused(&o);
	expect_allowed(&o, A_SYMLINK);
	expect_allowed(&o, A_SYMLINK_WITH);
	expect_needs_allowed(&o);
	cr_expect_eq(readlinkat(fx.dest, "sl2", buf, sizeof(buf)), 3);
	fx_end(&fx);
}

Test(sandbox, info_filled, .timeout = 30)
{
	struct outcome o;
	struct fx fx;
	int status;

	fx_init(&fx);
	status = in_child(attempt_all, &fx, PFX_SANDBOX_REQUIRE, &o);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	cr_assert_eq(o.confine, 0, "REQUIRE refused: %s (%s)",
	    strerror(-o.confine), o.info.text);
	cr_expect_gt(o.info.landlock_abi, 0);
	cr_expect(o.info.fs, "fs: %s", o.info.text);
	cr_expect(o.info.no_new_privs);
	cr_expect(o.info.seccomp, "seccomp: %s", o.info.text);
	if (o.info.landlock_abi >= 4)
		cr_expect(o.info.net, "net: %s", o.info.text);
	if (o.info.landlock_abi >= 6)
		cr_expect(o.info.scope, "scope: %s", o.info.text);
	cr_expect(strstr(o.info.text, "landlock ABI") != NULL, "text: %s",
	    o.info.text);
	cr_expect(strstr(o.info.text, "seccomp") != NULL, "text: %s",
	    o.info.text);
	fx_end(&fx);
}

/* With no destination (a listing): nothing may be written anywhere. */
static void
attempt_no_dest(struct fx *fx, unsigned int flags, struct outcome *o)
{
	o->confine = pfx_sandbox_confine(-1, flags | PFX_SANDBOX_NO_DEST,
	    &o->info);
	o->err[A_CREATE] = try_create(fx->dest);
	o->err[A_MKDIR] = try_mkdir(fx->dest);
	o->err[A_WRITE_OUTSIDE] = ok_fd(openat(fx->outside, "victim",
	    O_WRONLY | O_CLOEXEC));
	o->err[A_READ_USR] = try_read_usr();
	o->err[A_EXEC] = try_exec();
}

Test(sandbox, no_destination, .timeout = 30)
{
	struct outcome o;
	struct fx fx;
	int status;

	fx_init(&fx);
	status = in_child(attempt_no_dest, &fx, 0, &o);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	cr_assert_eq(o.confine, 0, "confine: %s", strerror(-o.confine));
	cr_expect(o.info.fs);
	/* The filter answers first: EPERM. */
	expect_refused(&o, A_CREATE, EPERM, 0);
	expect_refused(&o, A_MKDIR, EPERM, 0);
	expect_refused(&o, A_WRITE_OUTSIDE, EPERM, 0);
	expect_refused(&o, A_EXEC, EPERM, 0);
	expect_allowed(&o, A_READ_USR);
	cr_expect_eq(faccessat(fx.dest, "new", F_OK, AT_SYMLINK_NOFOLLOW),
	    -1);
	fx_end(&fx);
}

/* Return: 0 if no_new_privs is not set, else 1. */
static int
prctl_nnp(void)
{
	return prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 0 ? 0 : 1;
}

/* Bad arguments are refused before anything is applied. */
static void
attempt_bad(struct fx *fx, unsigned int flags, struct outcome *o)
{
	struct pfx_sandbox_info info;
	int fd, closed;

	(void)flags;
	o->err[0] = -pfx_sandbox_confine(-1, 0, &info);
	closed = dup(fx->dest);
	(void)close(closed);
	o->err[1] = -pfx_sandbox_confine(closed, 0, &info);
	fd = openat(fx->outside, "victim", O_RDONLY | O_CLOEXEC);
	o->err[2] = -pfx_sandbox_confine(fd, 0, &info);
	(void)close(fd);
	o->err[3] = -pfx_sandbox_confine(fx->dest, 0x80, &info);
	/* Still free: nothing was applied. */
	o->err[4] = ok_fd(openat(fx->outside, "secret",
	    O_RDONLY | O_CLOEXEC));
	o->err[5] = prctl_nnp();
}

Test(sandbox, bad_arguments, .timeout = 30)
{
	struct outcome o;
	struct fx fx;
	int status;

	fx_init(&fx);
	status = in_child(attempt_bad, &fx, 0, &o);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	cr_expect_eq(o.err[0], EBADF, "fd -1: %s", strerror(o.err[0]));
	cr_expect_eq(o.err[1], EBADF, "closed fd: %s", strerror(o.err[1]));
	cr_expect_eq(o.err[2], ENOTDIR, "a file: %s", strerror(o.err[2]));
	cr_expect_eq(o.err[3], EINVAL, "unknown flag: %s",
	    strerror(o.err[3]));
	cr_expect_eq(o.err[4], 0, "confined after a refusal");
	cr_expect_eq(o.err[5], 0, "no_new_privs set after a refusal");
	fx_end(&fx);
}

/* Run FN in a child (flags 0), which signal SIG must kill. */
static void
expect_killed(void (*fn)(struct fx *, unsigned int, struct outcome *),
    int sig)
{
	struct outcome o;
	struct fx fx;
	int status;

	fx_init(&fx);
	status = in_child(fn, &fx, 0, &o);
	cr_expect(WIFSIGNALED(status) && WTERMSIG(status) == sig,
	    "child status %#x, expected killed by %s", status,
	    strsignal(sig));
	fx_end(&fx);
}

#if defined(__x86_64__) && !defined(__ILP32__)
/* An x32 system call number dodges a filter written for x86_64 numbers;
 * the filter kills the process instead. */
static void
attempt_x32(struct fx *fx, unsigned int flags, struct outcome *o)
{
	o->confine = pfx_sandbox_confine(fx->dest, flags, &o->info);
	if (o->confine == 0 && o->info.seccomp)
		(void)syscall(0x40000000L | SYS_getpid);
}

Test(sandbox, x32_killed, .timeout = 30)
{
	expect_killed(attempt_x32, SIGSYS);
}
#endif

/* --- set-id modes and owners ------------------------------------------- */

/* A uid and gid that are not the fixture's owner (root's, as tests run). */
#define OTHER_ID 1

/* Return: "DIR/NAME" beneath FX's top, in BUF. */
static const char *
fx_path(const struct fx *fx, const char *name, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s/%s", fx->path, name);
	return buf;
}

/*
 * Confine with FLAGS, then try to make dest/old set-id, give it away,
 * and create set-id files: err[0..10], see setid_refused.
 */
static void
attempt_setid(struct fx *fx, unsigned int flags, struct outcome *o)
{
	char path[PATH_MAX];
	int fd, *e = o->err;

	o->confine = pfx_sandbox_confine(fx->dest, flags, &o->info);
	fd = openat(fx->dest, "old", O_RDWR | O_CLOEXEC);
	if (fd == -1) {
		e[0] = errno;
		return;
	}
	e[1] = ok(fchmod(fd, 04755));
	e[2] = ok(fchmodat(fx->dest, "old", 02755, 0));
	e[3] = ok(chmod(fx_path(fx, "dest/old", path, sizeof(path)), 01777));
	e[4] = ok(fchown(fd, OTHER_ID, OTHER_ID));
	e[5] = ok(fchownat(fx->dest, "old", OTHER_ID, OTHER_ID, 0));
	e[6] = ok(lchown(fx_path(fx, "dest/dl", path, sizeof(path)),
	    OTHER_ID, OTHER_ID));
	e[7] = ok_fd(open(fx_path(fx, "dest/suid", path, sizeof(path)),
	    O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 04755));
	e[8] = ok_fd(openat(fx->dest, "sgid", O_WRONLY | O_CREAT | O_EXCL |
	    O_CLOEXEC, 02755));
	e[9] = ok_fd(openat(fx->dest, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC,
	    04755));
	/* Allowed: a plain mode, a plain new file. */
	e[10] = ok(fchmod(fd, 0640));
	e[11] = ok_fd(openat(fx->dest, "plain", O_WRONLY | O_CREAT | O_EXCL |
	    O_CLOEXEC, 0644));
	(void)close(fd);
}

Test(sandbox, setid_refused, .timeout = 30)
{
	static const char *const what[] = {
		"open dest/old", "fchmod 04755", "fchmodat 02755",
		"chmod 01777", "fchown", "fchownat", "lchown",
		"open(O_CREAT, 04755)", "openat(O_CREAT, 02755)",
		"openat(O_TMPFILE, 04755)"
	};
	struct outcome o;
	struct fx fx;
	struct stat st;
	int i;

	fx_init(&fx);
	in_confined_child(attempt_setid, &fx, 0, &o);
	cr_assert_eq(o.err[0], -1, "%s: %s", what[0], strerror(o.err[0]));
	for (i = 1; i < (int)NELEM(what); i++)
		cr_expect_eq(o.err[i], EPERM, "%s: %s, expected EPERM",
		    what[i], o.err[i] == 0 ? "it worked" :
		    strerror(o.err[i]));
	cr_expect_eq(o.err[10], 0, "fchmod 0640: %s", strerror(o.err[10]));
	cr_expect_eq(o.err[11], 0, "create 0644: %s", strerror(o.err[11]));
	cr_assert_eq(fstatat(fx.dest, "old", &st, AT_SYMLINK_NOFOLLOW), 0);
	cr_expect_eq(st.st_mode & 07777, 0640, "dest/old is %04o",
	    (unsigned int)(st.st_mode & 07777));
	cr_expect_neq(st.st_uid, OTHER_ID, "dest/old was given away");
	cr_assert_eq(fstatat(fx.dest, "dl", &st, AT_SYMLINK_NOFOLLOW), 0);
	cr_expect_neq(st.st_uid, OTHER_ID, "dest/dl was given away");
	cr_expect_eq(faccessat(fx.dest, "suid", F_OK, AT_SYMLINK_NOFOLLOW),
	    -1, "dest/suid was made");
	cr_expect_eq(faccessat(fx.dest, "sgid", F_OK, AT_SYMLINK_NOFOLLOW),
	    -1, "dest/sgid was made");
	fx_end(&fx);
}

Test(sandbox, setid_flag, .timeout = 30)
{
	struct outcome o;
	struct fx fx;
	struct stat st;

	fx_init(&fx);
	in_confined_child(attempt_setid, &fx, PFX_SANDBOX_SETID, &o);
	cr_expect_eq(o.err[1], 0, "fchmod 04755: %s", strerror(o.err[1]));
	cr_expect_eq(o.err[8], 0, "openat(O_CREAT, 02755): %s",
	    strerror(o.err[8]));
	if (geteuid() == 0)
		cr_expect_eq(o.err[4], 0, "fchown: %s", strerror(o.err[4]));
	cr_assert_eq(fstatat(fx.dest, "sgid", &st, AT_SYMLINK_NOFOLLOW), 0);
	if (geteuid() == 0) {
		cr_assert_eq(fstatat(fx.dest, "old", &st,
		    AT_SYMLINK_NOFOLLOW), 0);
		cr_expect_eq(st.st_uid, OTHER_ID, "dest/old kept its owner");
	}
	fx_end(&fx);
}

/* --- new processes ---------------------------------------------------- */

#if defined(__x86_64__) && !defined(__ILP32__)
/*
 * vfork(2) through the raw system call: the child shares our stack, so
 * it must leave without touching it (exit at once, in the same asm).
 * Return: the child's pid, or -errno.
 */
static long
raw_vfork_exit(void)
{
	long r;

	__asm__ volatile ("syscall\n\t"
	    "test %%rax, %%rax\n\t"
	    "jnz 1f\n\t"
	    "mov $60, %%eax\n\t"	/* SYS_exit */
	    "xor %%edi, %%edi\n\t"
	    "syscall\n"
	    "1:"
	    : "=a" (r) : "0" (58L /* SYS_vfork */) : "rcx", "r11", "rdi",
	    "memory");
	return r;
}

static int
try_vfork(void)
{
	long pid = raw_vfork_exit();

	if (pid < 0)
		return (int)-pid;
	(void)waitpid((pid_t)pid, NULL, 0);
	return 0;
}
#else
static int
try_vfork(void)
{
	return EPERM;	/* no vfork system call here: clone covers it */
}
#endif

/* err[0] fork, [1] vfork, [2] clone(SIGCHLD), [3] pthread_create. */
static void
attempt_processes(struct fx *fx, unsigned int flags, struct outcome *o)
{
	o->confine = pfx_sandbox_confine(fx->dest, flags, &o->info);
	o->err[0] = try_fork();
	o->err[1] = try_vfork();
	o->err[2] = try_clone(0);
	o->err[3] = try_thread();
}

Test(sandbox, no_new_process, .timeout = 30)
{
	struct outcome o;
	struct fx fx;

	fx_init(&fx);
	in_confined_child(attempt_processes, &fx, 0, &o);
	cr_expect_eq(o.err[0], EPERM, "fork: %s", strerror(o.err[0]));
	cr_expect_eq(o.err[1], EPERM, "vfork: %s", strerror(o.err[1]));
	cr_expect_eq(o.err[2], EPERM, "clone(SIGCHLD): %s",
	    strerror(o.err[2]));
	cr_expect_eq(o.err[3], 0, "pthread_create: %s", strerror(o.err[3]));
	fx_end(&fx);
}

/* --- signals ----------------------------------------------------------- */

static volatile sig_atomic_t caught;

static void
on_usr1(int sig)
{
	(void)sig;
	caught++;
}

/*
 * Confine (INTERNAL: the flags of plat_sandbox_confine(), in FLAGS'
 * place), then signal: err[0] kill(getppid()), [1] kill(1), [2]
 * tgkill(getppid(), getppid()), [3] kill(0) (the process group: on a
 * kernel with Landlock's signal scoping, the filter alone refuses it),
 * [4] kill(getpid()), [5] raise(SIGUSR1) caught, [6] tgkill(getpid(),
 * gettid()), [7] sigqueue(getpid()), [8] tkill(gettid()); [9] first, an
 * unknown internal flag, refused (EINVAL) before anything is applied.
 */
static void
attempt_signals(struct fx *fx, unsigned int internal, struct outcome *o)
{
	struct pfx_sandbox_info info;
	union sigval v;

	(void)signal(SIGUSR1, on_usr1);
	o->err[9] = -plat_sandbox_confine(fx->dest, 0, 0x80, &info);
	o->confine = plat_sandbox_confine(fx->dest, 0, internal, &o->info);
	o->err[0] = ok(kill(getppid(), 0));
	o->err[1] = ok(kill(1, 0));
	o->err[2] = ok(syscall(SYS_tgkill, getppid(), getppid(), 0));
	o->err[3] = ok(kill(0, 0));
	o->err[4] = ok(kill(getpid(), 0));
	o->err[5] = raise(SIGUSR1) == 0 && caught == 1 ? 0 : EIO;
	o->err[6] = ok(syscall(SYS_tgkill, getpid(), gettid(), 0));
	memset(&v, 0, sizeof(v));
	o->err[7] = ok(sigqueue(getpid(), SIGUSR1, v));
	o->err[8] = ok(syscall(SYS_tkill, gettid(), 0));
}

/* Each attempt WHAT[i] of O ended as WANT[i] (an errno, 0: it worked). */
static void
expect_outcomes(const struct outcome *o, const char *const *what,
    const int *want, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		cr_expect_eq(o->err[i], want[i], "%s: %s, expected %s",
		    what[i], o->err[i] == 0 ? "it worked" :
		    strerror(o->err[i]), want[i] == 0 ? "success" :
		    strerror(want[i]));
}

Test(sandbox, signals_to_self_only, .timeout = 30)
{
	static const char *const what[] = {
		"kill(getppid())", "kill(1)", "tgkill(getppid())", "kill(0)",
		"kill(getpid())", "raise(SIGUSR1)", "tgkill(getpid())",
		"sigqueue(getpid())", "tkill"
	};
	static const int want[] = {
		EPERM, EPERM, EPERM, EPERM, 0, 0, 0, 0, EPERM
	};
	struct outcome o;
	struct fx fx;

	fx_init(&fx);
	in_confined_child(attempt_signals, &fx, 0, &o);
	expect_outcomes(&o, what, want, NELEM(want));
	fx_end(&fx);
}

Test(sandbox, signals_out, .timeout = 30)
{
	struct outcome o;
	struct fx fx;

	fx_init(&fx);
	in_confined_child(attempt_signals, &fx, PLAT_SANDBOX_SIGNAL_OUT, &o);
	cr_expect_eq(o.err[9], EINVAL, "an unknown internal flag: %s",
	    strerror(o.err[9]));
	cr_expect_eq(o.err[0], 0, "kill(getppid()): %s", strerror(o.err[0]));
	cr_expect_eq(o.err[3], 0, "kill(0): %s", strerror(o.err[3]));
	cr_expect_eq(o.err[5], 0, "raise: %s", strerror(o.err[5]));
	if (o.info.landlock_abi >= 6)
		cr_expect(strstr(o.info.text, "socket scope") != NULL, "%s",
		    o.info.text);
	fx_end(&fx);
}

/* --- other processes: scheduling, process group ------------------------ */

/*
 * A process of the same user that the confined one must not slow down
 * (a decoder taken over, its writer): made before confining, it ends
 * when the confined process does (which can no longer signal it): it
 * reads a pipe whose only writer that is.  Return: its pid.
 */
static pid_t
victim(void)
{
	char c;
	int fd[2];
	pid_t pid;

	if (pipe(fd) == -1)
		return -1;
	pid = fork();
	if (pid == 0) {
		(void)close(fd[1]);
		(void)read(fd[0], &c, 1);
		_exit(0);
	}
	(void)close(fd[0]);
	return pid;
}

/*
 * Confine (INTERNAL as attempt_signals()), then change the scheduling
 * of V, another process of the user: err[0] setpriority, [1]
 * sched_setscheduler(SCHED_IDLE), [2] ioprio_set (idle class), [3]
 * sched_setaffinity (one CPU), [4] sched_setparam; then its own:
 * [5] setpriority(0), [6] setpriority(getpid()), [7]
 * sched_setaffinity(0) as it is, [8] ioprio_set(0) as it is; then out
 * of its parent's reach: [9] setpgid(0, 0), [10] setsid(), [11]
 * prctl(PR_SET_PDEATHSIG, 0), [12] prctl(PR_SET_PDEATHSIG, SIGTERM);
 * [13] prctl(PR_SET_PDEATHSIG, SIGKILL), which only makes it surer.
 */
static void
attempt_sched(struct fx *fx, unsigned int internal, struct outcome *o)
{
	struct sched_param sp;
	cpu_set_t mine, one;
	pid_t v = victim();
	long io;

	memset(&sp, 0, sizeof(sp));
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	(void)sched_getaffinity(0, sizeof(mine), &mine);
	io = syscall(SYS_ioprio_get, 1, 0);
	o->confine = plat_sandbox_confine(fx->dest, 0, internal, &o->info);
	o->err[0] = ok(setpriority(PRIO_PROCESS, (id_t)v, 19));
	o->err[1] = ok(sched_setscheduler(v, SCHED_IDLE, &sp));
	o->err[2] = ok(syscall(SYS_ioprio_set, 1, v, 3 << 13));
	o->err[3] = ok(sched_setaffinity(v, sizeof(one), &one));
	o->err[4] = ok(sched_setparam(v, &sp));
	o->err[5] = ok(setpriority(PRIO_PROCESS, 0, 1));
	o->err[6] = ok(setpriority(PRIO_PROCESS, (id_t)getpid(), 2));
	o->err[7] = ok(sched_setaffinity(0, sizeof(mine), &mine));
	o->err[8] = io < 0 ? 0 : ok(syscall(SYS_ioprio_set, 1, 0, io));
	o->err[9] = ok(setpgid(0, 0));
	o->err[10] = ok(setsid());
	o->err[11] = ok(prctl(PR_SET_PDEATHSIG, 0));
	o->err[12] = ok(prctl(PR_SET_PDEATHSIG, SIGTERM));
	o->err[13] = ok(prctl(PR_SET_PDEATHSIG, SIGKILL));
}

Test(sandbox, other_processes_untouched, .timeout = 30)
{
	static const char *const what[] = {
		"setpriority(other)", "sched_setscheduler(other)",
		"ioprio_set(other)", "sched_setaffinity(other)",
		"sched_setparam(other)", "setpriority(0)",
		"setpriority(getpid())", "sched_setaffinity(0)",
		"ioprio_set(0)", "setpgid(0, 0)", "setsid()",
		"prctl(PR_SET_PDEATHSIG, 0)", "prctl(PR_SET_PDEATHSIG, SIGTERM)",
		"prctl(PR_SET_PDEATHSIG, SIGKILL)"
	};
	static const int want[] = {
		EPERM, EPERM, EPERM, EPERM, EPERM, 0, 0, 0, 0, EPERM, EPERM,
		EPERM, EPERM, 0
	};
	struct outcome o;
	struct fx fx;

	fx_init(&fx);
	in_confined_child(attempt_sched, &fx, 0, &o);
	expect_outcomes(&o, what, want, NELEM(want));
	fx_end(&fx);
}

/* --- signals through a descriptor's owner (SIGIO) --------------------- */

/*
 * Make this process what it would be on a kernel without Landlock (before
 * 5.13, or with Landlock off): landlock_create_ruleset says ENOSYS, so
 * that only the filter stands, as it does there.  Return: 0 or errno.
 */
static int
without_landlock(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, nr)),
		/* landlock_create_ruleset: 444 on every architecture */
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 444, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { NELEM(f), f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == -1)
		return errno;
	return 0;
}

static volatile sig_atomic_t usr2;

static void
on_usr2(int sig)
{
	(void)sig;
	usr2 = 1;
}

/*
 * A process of the user that counts SIGUSR2: it reads a pipe whose only
 * writer the caller is, and exits 1 if the signal came, 0 if not, once
 * the caller closes *WR.  Return: its pid.
 */
static pid_t
counter(int *wr)
{
	char c;
	int fd[2];
	pid_t pid;

	if (pipe(fd) == -1)
		return -1;
	(void)signal(SIGUSR2, on_usr2);
	pid = fork();
	if (pid == 0) {
		(void)close(fd[1]);
		while (read(fd[0], &c, 1) != 0 && !usr2)
			continue;
		_exit(usr2 ? 1 : 0);
	}
	(void)signal(SIGUSR2, SIG_DFL);
	(void)close(fd[0]);
	*wr = fd[1];
	return pid;
}

/*
 * Without Landlock (only the filter), confine, then try to signal V, a
 * counter(): err[0] fcntl(F_SETOWN, V), [1] F_SETOWN_EX on a pipe, [2]
 * ioctl FIOSETOWN, [3] SIOCSPGRP on a socket pair; [4] F_SETOWN to
 * itself; [5] with whatever owner the pipe got, F_SETSIG SIGUSR2,
 * O_ASYNC and a byte written: 1 if V was signalled; [9] the Landlock
 * refusal, 0 when it held.
 */
static void
attempt_sigio(struct fx *fx, unsigned int flags, struct outcome *o)
{
	struct f_owner_ex ex;
	int p[2], sv[2], wr = -1, st = 0, v;

	(void)flags;
	o->err[9] = without_landlock();
	v = (int)counter(&wr);
	o->confine = pfx_sandbox_confine(fx->dest, 0, &o->info);
	if (pipe(p) == -1 || socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == -1)
		return;
	o->err[0] = ok(fcntl(p[0], F_SETOWN, v));
	ex.type = F_OWNER_PID;
	ex.pid = v;
	o->err[1] = ok(fcntl(p[0], F_SETOWN_EX, &ex));
	o->err[2] = ok(ioctl(sv[0], FIOSETOWN, &v));
	o->err[3] = ok(ioctl(sv[1], SIOCSPGRP, &v));
	o->err[4] = ok(fcntl(p[1], F_SETOWN, getpid()));
	(void)fcntl(p[0], F_SETSIG, SIGUSR2);
	(void)fcntl(p[0], F_SETFL, O_ASYNC | O_NONBLOCK);
	(void)write(p[1], "x", 1);
	(void)close(wr);
	(void)waitpid(v, &st, 0);
	o->err[5] = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

Test(sandbox, sigio_to_self_only, .timeout = 30)
{
	struct outcome o;
	struct fx fx;
	int i;

	fx_init(&fx);
	in_confined_child(attempt_sigio, &fx, 0, &o);
	cr_assert_eq(o.err[9], 0, "no Landlock: %s", strerror(o.err[9]));
	cr_expect(strstr(o.info.text, "no landlock") != NULL, "%s",
	    o.info.text);
	for (i = 0; i < 4; i++)
		cr_expect_eq(o.err[i], EPERM, "owner %d: %s, expected EPERM",
		    i, o.err[i] == 0 ? "set" : strerror(o.err[i]));
	cr_expect_eq(o.err[4], 0, "F_SETOWN to itself: %s",
	    strerror(o.err[4]));
	cr_expect_eq(o.err[5], 0, "the other process was signalled (%d)",
	    o.err[5]);
	fx_end(&fx);
}

/*
 * Confine as the decoder process does (PFX_SANDBOX_NO_DEST,
 * PLAT_SANDBOX_DECODER), holding dest/old read-only and a pipe made
 * before, then try what would act beyond its descriptors or hold memory
 * its RLIMIT_DATA does not count: err[0] FS_IOC_SETFLAGS (no-dump) on
 * dest/old, [1] F_SETFL O_NONBLOCK on the pipe, [2] flock(LOCK_EX) on
 * dest/old, [3] shmget, [4] msgget, [5] memfd_create, [6] a shared
 * anonymous mmap, [7] socketpair, [8] io_setup; and what it needs:
 * [9] isatty on the pipe (ENOTTY, the kernel's answer), [10] F_GETFL,
 * [11] F_SETFD, [12] a private anonymous mmap, [13] pipe, [14]
 * FIONREAD.
 */
static void
attempt_decoder(struct fx *fx, unsigned int internal, struct outcome *o)
{
	unsigned long ctx = 0;
	int fd, p[2], q[2], sv[2], fl = 0, n = 0, id;
	void *m;

	fd = openat(fx->dest, "old", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || pipe(p) != 0)
		_exit(4);
	o->confine = plat_sandbox_confine(-1, PFX_SANDBOX_NO_DEST, internal,
	    &o->info);
	(void)ioctl(fd, FS_IOC_GETFLAGS, &fl);
	fl |= FS_NODUMP_FL;
	o->err[0] = ok(ioctl(fd, FS_IOC_SETFLAGS, &fl));
	o->err[1] = ok(fcntl(p[0], F_SETFL, O_NONBLOCK));
	o->err[2] = ok(flock(fd, LOCK_EX | LOCK_NB));
	id = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
	o->err[3] = ok(id);
	if (id >= 0)	/* made: gone with the test, not left behind */
		(void)shmctl(id, IPC_RMID, NULL);
	id = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
	o->err[4] = ok(id);
	if (id >= 0)
		(void)msgctl(id, IPC_RMID, NULL);
	o->err[5] = ok(syscall(SYS_memfd_create, "m", 0));
	m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED |
	    MAP_ANONYMOUS, -1, 0);
	o->err[6] = m == MAP_FAILED ? errno : 0;
	o->err[7] = ok(socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	o->err[8] = ok(syscall(SYS_io_setup, 1, &ctx));
	o->err[9] = isatty(p[0]) ? 0 : errno;
	o->err[10] = ok(fcntl(p[0], F_GETFL));
	o->err[11] = ok(fcntl(p[0], F_SETFD, FD_CLOEXEC));
	m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE |
	    MAP_ANONYMOUS, -1, 0);
	o->err[12] = m == MAP_FAILED ? errno : 0;
	o->err[13] = ok(pipe(q));
	o->err[14] = ok(ioctl(p[0], FIONREAD, &n));
}

Test(sandbox, decoder_rules, .timeout = 30)
{
	static const char *const what[] = {
		"FS_IOC_SETFLAGS", "F_SETFL", "flock", "shmget", "msgget",
		"memfd_create", "mmap(MAP_SHARED|MAP_ANONYMOUS)",
		"socketpair", "io_setup", "isatty", "F_GETFL", "F_SETFD",
		"mmap(MAP_PRIVATE|MAP_ANONYMOUS)", "pipe", "FIONREAD"
	};
	struct outcome o;
	struct fx fx;
	int i;

	fx_init(&fx);
	in_confined_child(attempt_decoder, &fx, PLAT_SANDBOX_DECODER, &o);
	for (i = 0; i <= 8; i++) {
		/* Sanitizer builds keep shared mappings (no RLIMIT_DATA). */
		if (i == 6 && UNDER_SANITIZER)
			continue;
		cr_expect_eq(o.err[i], EPERM, "%s: %s, expected EPERM",
		    what[i], o.err[i] == 0 ? "it worked" :
		    strerror(o.err[i]));
	}
	cr_expect_eq(o.err[9], ENOTTY, "isatty: %s, expected ENOTTY",
	    strerror(o.err[9]));
	for (i = 10; i <= 14; i++)
		cr_expect_eq(o.err[i], 0, "%s: refused: %s", what[i],
		    strerror(o.err[i]));
	fx_end(&fx);
}

/*
 * Confine as the decoder process does (INTERNAL), then ask for inotify:
 * err[0] inotify_init1, err[1] inotify_add_watch on /usr through an
 * instance made before.
 */
static void
attempt_decoder_inotify(struct fx *fx, unsigned int internal,
    struct outcome *o)
{
	int before = inotify_init1(IN_CLOEXEC);

	(void)fx;
	if (before < 0)
		_exit(4);
	o->confine = plat_sandbox_confine(-1, PFX_SANDBOX_NO_DEST, internal,
	    &o->info);
	o->err[0] = ok_fd(inotify_init1(IN_CLOEXEC));
	o->err[1] = ok(inotify_add_watch(before, "/usr", IN_ACCESS));
}

/*
 * SECURITY: the decoder process has no inotify.  Its watches come from
 * its user's whole budget (fs.inotify.max_user_watches) and pin their
 * inodes: a decoder taken over watched 200,000 files beneath /usr, and
 * another process of its user could add none (ENOSPC) while it ran.
 * Other confined processes keep it.
 */
Test(sandbox, decoder_no_inotify, .timeout = 30)
{
	struct outcome o;
	struct fx fx;
	int i;

	fx_init(&fx);
	in_confined_child(attempt_decoder_inotify, &fx, PLAT_SANDBOX_DECODER,
	    &o);
	for (i = 0; i < 2; i++)
		cr_expect_eq(o.err[i], EPERM, "decoder: %s: %s, expected "
		    "EPERM", i == 0 ? "inotify_init1" : "inotify_add_watch",
		    o.err[i] == 0 ? "it worked" : strerror(o.err[i]));
	in_confined_child(attempt_decoder_inotify, &fx, 0, &o);
	for (i = 0; i < 2; i++)
		cr_expect_eq(o.err[i], 0, "NO_DEST alone: %s refused: %s",
		    i == 0 ? "inotify_init1" : "inotify_add_watch",
		    strerror(o.err[i]));
	fx_end(&fx);
}

/*
 * SECURITY: a process just forked to run untrusted code queues no
 * real-time signal and makes no POSIX timer (plat_os_drop_privileges()):
 * both are paid from its user's whole budget (RLIMIT_SIGPENDING, counted
 * per user), and a confined decoder made 96,367 timers, after which no
 * other process of its user (any root daemon, as root) could make one or
 * queue a real-time signal while it ran.  Its own interval timers
 * (SIGALRM, SIGPROF) are the kernel's and still come.
 */
Test(sandbox, untrusted_child_no_signal_budget, .timeout = 30)
{
	struct sigevent sev;
	union sigval v = { 0 };
	struct itimerval it;
	sigset_t rt, alrm;
	timer_t t;
	int p[2], err[3] = { -1, -1, -1 }, status, sig = 0;
	pid_t pid;

	cr_assert(pipe(p) == 0);
	pid = fork();
	cr_assert(pid != -1);
	if (pid == 0) {
		if (plat_os_drop_privileges() != 0)
			_exit(4);
		memset(&sev, 0, sizeof(sev));
		sev.sigev_notify = SIGEV_SIGNAL;
		sev.sigev_signo = SIGRTMIN;
		err[0] = timer_create(CLOCK_MONOTONIC, &sev, &t) == 0 ? 0 :
		    errno;
		(void)sigemptyset(&rt);
		(void)sigaddset(&rt, SIGRTMIN);
		(void)sigaddset(&rt, SIGALRM);
		(void)sigprocmask(SIG_BLOCK, &rt, NULL);
		err[1] = sigqueue(getpid(), SIGRTMIN, v) == 0 ? 0 : errno;
		memset(&it, 0, sizeof(it));
		it.it_value.tv_usec = 1000;
		(void)setitimer(ITIMER_REAL, &it, NULL);
		(void)sigemptyset(&alrm);
		(void)sigaddset(&alrm, SIGALRM);
		err[2] = sigwait(&alrm, &sig) == 0 && sig == SIGALRM ? 0 :
		    EINVAL;
		_exit(write(p[1], err, sizeof(err)) == (ssize_t)sizeof(err) ?
		    0 : 3);
	}
	(void)close(p[1]);
	cr_assert(read(p[0], err, sizeof(err)) == (ssize_t)sizeof(err));
	(void)close(p[0]);
	cr_assert(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	    WEXITSTATUS(status) == 0, "child status %#x", status);
	cr_expect_eq(err[0], EAGAIN, "timer_create: %s, expected EAGAIN",
	    err[0] == 0 ? "made" : strerror(err[0]));
	cr_expect_eq(err[1], EAGAIN, "sigqueue(SIGRTMIN): %s, expected "
	    "EAGAIN", err[1] == 0 ? "queued" : strerror(err[1]));
	cr_expect_eq(err[2], 0, "its own SIGALRM did not come");
}

/* abort(3) still kills the confined process with SIGABRT. */
static void
attempt_abort(struct fx *fx, unsigned int flags, struct outcome *o)
{
	o->confine = pfx_sandbox_confine(fx->dest, flags, &o->info);
	if (o->confine == 0)
		abort();
}

Test(sandbox, abort_works, .timeout = 30)
{
	expect_killed(attempt_abort, SIGABRT);
}

/* --- PFX_SANDBOX_NO_DEST without Landlock's help ----------------------- */

/* Read a byte of the first regular file in /usr/bin.  0 or errno. */
static int
try_read_usr_file(void)
{
	struct dirent *de;
	struct stat st;
	char c;
	DIR *d = opendir("/usr/bin");
	int fd, e = ENOENT;

	if (d == NULL)
		return errno;
	while (e == ENOENT && (de = readdir(d)) != NULL) {
		if (fstatat(dirfd(d), de->d_name, &st,
		    AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) ||
		    st.st_size == 0)
			continue;
		fd = openat(dirfd(d), de->d_name, O_RDONLY | O_CLOEXEC);
		if (fd == -1)
			e = errno;
		else
			e = read(fd, &c, 1) == 1 ? 0 : EIO;
		if (fd != -1)
			(void)close(fd);
	}
	(void)closedir(d);
	return e;
}

#ifndef SYS_openat2
#define SYS_openat2 437
#endif

/* openat2(2) of DIRFD/NAME for reading.  0 or errno. */
static int
try_openat2(int dirfd, const char *name)
{
	uint64_t how[3] = { O_RDONLY | O_CLOEXEC, 0, 0 };

	return ok_fd((int)syscall(SYS_openat2, dirfd, name, how,
	    sizeof(how)));
}

static const char *const no_dest_what[] = {
	"open(O_WRONLY)", "open(O_RDWR)", "openat(O_CREAT)",
	"open(O_CREAT) by the old call", "openat2", "mkdir", "unlink",
	"rename", "link", "symlink", "truncate", "ftruncate",
	"fchmod 0600", "fchown", "utimensat", "fsetxattr", "fallocate",
	"read a file beneath /usr"
};

/* The answers: EPERM, but ENOSYS for openat2; the last one works. */
static int
no_dest_want(size_t i)
{
	if (i == 4)
		return ENOSYS;
	return i + 1 == NELEM(no_dest_what) ? 0 : EPERM;
}

/*
 * Confine with NO_DEST, holding dest/old open O_RDWR from before, then
 * try every kind of write: err[i] answers no_dest_what[i].
 */
static void
attempt_no_dest_writes(struct fx *fx, unsigned int flags, struct outcome *o)
{
	char path[PATH_MAX];
	int fd, *e = o->err;

	fd = openat(fx->dest, "old", O_RDWR | O_CLOEXEC);
	o->confine = pfx_sandbox_confine(-1, flags | PFX_SANDBOX_NO_DEST,
	    &o->info);
	e[0] = ok_fd(openat(fx->dest, "old", O_WRONLY | O_CLOEXEC));
	e[1] = ok_fd(openat(fx->dest, "old", O_RDWR | O_CLOEXEC));
	e[2] = ok_fd(openat(fx->dest, "new", O_RDONLY | O_CREAT | O_CLOEXEC,
	    0644));
#ifdef SYS_open
	e[3] = ok_fd((int)syscall(SYS_open, fx_path(fx, "dest/new2", path,
	    sizeof(path)), O_RDONLY | O_CREAT | O_CLOEXEC, 0644));
#else
	e[3] = EPERM;	/* no such call here */
#endif
	e[4] = try_openat2(fx->dest, "old");
	e[5] = ok(mkdirat(fx->dest, "made", 0755));
	e[6] = ok(unlinkat(fx->dest, "old", 0));
	e[7] = ok(renameat(fx->dest, "old", fx->dest, "renamed"));
	e[8] = ok(linkat(fx->dest, "old", fx->dest, "hl", 0));
	e[9] = ok(symlinkat("old", fx->dest, "sl"));
	e[10] = ok(truncate(fx_path(fx, "dest/old", path, sizeof(path)), 0));
	e[11] = ok(ftruncate(fd, 0));
	e[12] = ok(fchmod(fd, 0600));
	e[13] = ok(fchown(fd, OTHER_ID, OTHER_ID));
	e[14] = ok(utimensat(fx->dest, "old", NULL, 0));
	e[15] = ok(fsetxattr(fd, "user.pfx", "x", 1, 0));
	e[16] = ok(fallocate(fd, 0, 0, 8192));
	e[17] = try_read_usr_file();
	(void)close(fd);
}

Test(sandbox, no_dest_writes_refused, .timeout = 30)
{
	struct outcome o;
	struct fx fx;
	char *before, *after;
	size_t i;

	fx_init(&fx);
	before = tfx_snapshot(fx.dest, 0);
	in_confined_child(attempt_no_dest_writes, &fx, 0, &o);
	for (i = 0; i < NELEM(no_dest_what); i++)
		cr_expect_eq(o.err[i], no_dest_want(i), "%s: %s, expected %s",
		    no_dest_what[i], o.err[i] == 0 ? "it worked" :
		    strerror(o.err[i]), no_dest_want(i) == 0 ? "success" :
		    strerror(no_dest_want(i)));
	after = tfx_snapshot(fx.dest, 0);
	tfx_expect_same_snapshot("sandbox", "dest", before, after);
	free(before);
	free(after);
	fx_end(&fx);
}

/* The *at calls of extended attributes (Linux 6.13) and of attribute
 * flags (6.17), where the headers are older: the same on every arch. */
#define T_SYS_setxattrat 463
#define T_SYS_getxattrat 464
#define T_SYS_removexattrat 466
#define T_SYS_file_getattr 468
#define T_SYS_file_setattr 469
#define T_SYS_fchmodat2 452
#define T_XFLAG_NOATIME 0x40u

/* struct xattr_args and struct file_attr (version 0) of linux/fs.h. */
struct t_xattr_args {
	uint64_t value;
	uint32_t size;
	uint32_t flags;
};
struct t_file_attr {
	uint64_t xflags;
	uint32_t extsize, nextents, projid, cowextsize;
};

static const char *const new_attr_what[] = {
	"setxattrat(dest/old's descriptor)", "setxattrat(outside/victim)",
	"removexattrat(dest/old's descriptor)",
	"file_setattr(dest/old's descriptor, NOATIME)",
	"file_setattr(outside/victim, NOATIME)"
};

/*
 * Confine with NO_DEST (and INTERNAL), holding dest/old read-only, whose
 * user.keep was set before, then change extended attributes and
 * attribute flags with the calls that name a file by a descriptor and a
 * path, as the older ones do: err[i] answers new_attr_what[i]; -1 where
 * the kernel or file system has no such call or attribute.
 */
static void
attempt_new_attr_calls(struct fx *fx, unsigned int internal,
    struct outcome *o)
{
	struct t_xattr_args xa = { (uintptr_t)"x", 1, 0 };
	struct t_file_attr fa;
	char victim[PATH_MAX], v;
	bool xattrs, flags;
	int fd;

	fd = openat(fx->dest, "old", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		_exit(4);
	(void)fx_path(fx, "outside/victim", victim, sizeof(victim));
	xattrs = fsetxattr(fd, "user.keep", "k", 1, 0) == 0 &&
	    syscall(T_SYS_getxattrat, fd, "", AT_EMPTY_PATH, "user.keep",
	    &(struct t_xattr_args){ (uintptr_t)&v, 1, 0 },
	    sizeof(struct t_xattr_args)) == 1;
	memset(&fa, 0, sizeof(fa));
	flags = syscall(T_SYS_file_getattr, fd, "", &fa, sizeof(fa),
	    AT_EMPTY_PATH) == 0;
	o->confine = plat_sandbox_confine(-1, PFX_SANDBOX_NO_DEST, internal,
	    &o->info);
	if (xattrs) {
		o->err[0] = ok(syscall(T_SYS_setxattrat, fd, "",
		    AT_EMPTY_PATH, "user.pfx", &xa, sizeof(xa)));
		o->err[1] = ok(syscall(T_SYS_setxattrat, AT_FDCWD, victim, 0,
		    "user.pfx", &xa, sizeof(xa)));
		o->err[2] = ok(syscall(T_SYS_removexattrat, fd, "",
		    AT_EMPTY_PATH, "user.keep"));
	}
	if (flags) {
		fa.xflags |= T_XFLAG_NOATIME;
		o->err[3] = ok(syscall(T_SYS_file_setattr, fd, "", &fa,
		    sizeof(fa), AT_EMPTY_PATH));
		o->err[4] = ok(syscall(T_SYS_file_setattr, AT_FDCWD, victim,
		    &fa, sizeof(fa), 0));
	}
	(void)close(fd);
}

/*
 * SECURITY: NO_DEST writes nothing, extended attributes and attribute
 * flags included, whatever call names the file: setxattrat(2) and
 * removexattrat(2) (Linux 6.13), file_setattr(2) (6.17), which Landlock
 * does not see.  A decoder taken over set a user.* attribute on its
 * archive and on any file of its user (any file, as root) by path.
 */
Test(sandbox, no_dest_new_attribute_calls, .timeout = 30)
{
	static const unsigned int internal[] = { 0, PLAT_SANDBOX_DECODER };
	struct outcome o;
	struct fx fx;
	char v[8];
	size_t i, k;
	int fd;

	for (k = 0; k < NELEM(internal); k++) {
		fx_init(&fx);
		in_confined_child(attempt_new_attr_calls, &fx, internal[k],
		    &o);
		for (i = 0; i < NELEM(new_attr_what); i++)
			if (o.err[i] != -1)
				cr_expect_eq(o.err[i], EPERM, "%#x: %s: %s, "
				    "expected EPERM", internal[k],
				    new_attr_what[i], o.err[i] == 0 ?
				    "it worked" : strerror(o.err[i]));
		if (o.err[2] != -1) {
			fd = openat(fx.dest, "old", O_RDONLY | O_CLOEXEC);
			cr_expect_eq(fgetxattr(fd, "user.keep", v, sizeof(v)),
			    1, "%#x: dest/old lost user.keep", internal[k]);
			(void)close(fd);
			fd = openat(fx.outside, "victim", O_RDONLY |
			    O_CLOEXEC);
			cr_expect_eq(fgetxattr(fd, "user.pfx", v, sizeof(v)),
			    -1, "%#x: outside/victim has user.pfx",
			    internal[k]);
			(void)close(fd);
		}
		fx_end(&fx);
	}
}

static const char *const path_attr_what[] = {
	"setxattr(outside/victim)", "lsetxattr(outside/victim)",
	"removexattr(outside/victim)", "setxattrat(outside/victim)",
	"fsetxattr(a file made in dest)"
};

/*
 * Confine with a destination, then change extended attributes of a file
 * outside by its path, by every call that names one; and of a file made
 * in dest, through its descriptor, as the writer does (--xattrs): err[i]
 * answers path_attr_what[i]; -1 where the kernel has no such call.
 */
static void
attempt_path_attr_calls(struct fx *fx, unsigned int internal,
    struct outcome *o)
{
	struct t_xattr_args xa = { (uintptr_t)"x", 1, 0 };
	char victim[PATH_MAX];
	int fd;

	(void)fx_path(fx, "outside/victim", victim, sizeof(victim));
	o->confine = plat_sandbox_confine(fx->dest, 0, internal, &o->info);
	o->err[0] = ok(setxattr(victim, "user.pfx", "x", 1, 0));
	o->err[1] = ok(lsetxattr(victim, "user.pfx", "x", 1, 0));
	o->err[2] = ok(removexattr(victim, "user.keep"));
	o->err[3] = ok(syscall(T_SYS_setxattrat, AT_FDCWD, victim, 0,
	    "user.pfx", &xa, sizeof(xa)));
	if (o->err[3] == ENOSYS)
		o->err[3] = -1;
	fd = openat(fx->dest, "made", O_WRONLY | O_CREAT | O_EXCL |
	    O_CLOEXEC, 0600);
	o->err[4] = fd < 0 ? errno : ok(fsetxattr(fd, "user.pfx", "x", 1,
	    0));
	if (fd >= 0)
		(void)close(fd);
}

/*
 * SECURITY: Landlock has no right for extended attributes, and setting
 * one by path needs no descriptor of the file: a confined writer taken
 * over, as root, set security.capability on any program.  Every call
 * that names the file by path is refused in every confined process;
 * fsetxattr(2) on a file the run made is not.
 */
Test(sandbox, no_attribute_by_path, .timeout = 30)
{
	struct outcome o;
	struct fx fx;
	char v[8];
	size_t i;
	int fd;

	fx_init(&fx);
	fd = openat(fx.outside, "victim", O_RDONLY | O_CLOEXEC);
	cr_assert(fd >= 0);
	if (fsetxattr(fd, "user.keep", "k", 1, 0) != 0) {
		(void)close(fd);
		fx_end(&fx);
		cr_skip_test("no user.* attributes here");
	}
	(void)close(fd);
	in_confined_child(attempt_path_attr_calls, &fx, 0, &o);
	cr_assert_eq(o.confine, 0, "confine: %s", strerror(-o.confine));
	for (i = 0; i + 1 < NELEM(path_attr_what); i++)
		if (o.err[i] != -1)
			cr_expect_eq(o.err[i], EPERM, "%s: %s, expected EPERM",
			    path_attr_what[i], o.err[i] == 0 ? "it worked" :
			    strerror(o.err[i]));
	cr_expect_eq(o.err[i], 0, "%s: %s", path_attr_what[i],
	    strerror(o.err[i]));
	fd = openat(fx.outside, "victim", O_RDONLY | O_CLOEXEC);
	cr_expect_eq(fgetxattr(fd, "user.pfx", v, sizeof(v)), -1,
	    "outside/victim has user.pfx");
	cr_expect_eq(fgetxattr(fd, "user.keep", v, sizeof(v)), 1,
	    "outside/victim lost user.keep");
	(void)close(fd);
	fx_end(&fx);
}

/*
 * A directory elsewhere than the fixture's (beside it, in TMPDIR), with a
 * file "victim" 0600: what the view of read-only mounts must keep
 * unchanged, however it is named.  Set before the child is forked.
 */
static char elsewhere[PATH_MAX];

static const char *const outside_meta_what[] = {
	"chmod(elsewhere/victim)", "utimensat(elsewhere/victim)",
	"fchmodat2(O_PATH of elsewhere/victim)",
	"fchownat(O_PATH of elsewhere/victim)",
	"fchmod(/etc/passwd opened to read), its own mode",
	"fchmodat(dest, ../../<elsewhere>/victim)",
	"fchmodat(dest, old)", "utimensat(dest, old)"
};

/*
 * Confine with a destination (and the right to change owners, so that
 * only the mount can refuse the owner call), then change the mode, times
 * or owner of a file outside: by its path, through an O_PATH descriptor
 * (Landlock does not see those opens), through a descriptor of a file it
 * may read, and by a path that climbs out of the destination's
 * descriptor.  O->err[i] answers outside_meta_what[i] (-1: no such call
 * in this kernel).
 */
static void
attempt_outside_meta(struct fx *fx, unsigned int internal, struct outcome *o)
{
	struct timespec t[2] = { { 1, 0 }, { 1, 0 } };
	char victim[PATH_MAX + 8], climb[PATH_MAX + 16];
	struct stat st;
	int fd;

	(void)snprintf(victim, sizeof(victim), "%s/victim", elsewhere);
	(void)snprintf(climb, sizeof(climb), "../../%s/victim",
	    strrchr(elsewhere, '/') + 1);
	o->confine = plat_sandbox_confine(fx->dest, PFX_SANDBOX_SETID,
	    internal, &o->info);
	o->err[0] = ok(chmod(victim, 0666));
	o->err[1] = ok(utimensat(AT_FDCWD, victim, t, 0));
	fd = open(victim, O_PATH | O_CLOEXEC);
	o->err[2] = fd < 0 ? errno : ok(syscall(T_SYS_fchmodat2, fd, "",
	    0666, AT_EMPTY_PATH));
	if (o->err[2] == ENOSYS)
		o->err[2] = -1;
	o->err[3] = fd < 0 ? errno : ok(fchownat(fd, "", 65534, 65534,
	    AT_EMPTY_PATH));
	if (fd >= 0)
		(void)close(fd);
	fd = open("/etc/passwd", O_RDONLY | O_CLOEXEC);
	o->err[4] = fd < 0 || fstat(fd, &st) != 0 ? errno :
	    ok(fchmod(fd, st.st_mode & 07777));
	if (fd >= 0)
		(void)close(fd);
	o->err[5] = ok(fchmodat(fx->dest, climb, 0666, 0));
	o->err[6] = ok(fchmodat(fx->dest, "old", 0600, 0));
	o->err[7] = ok(utimensat(fx->dest, "old", t, AT_SYMLINK_NOFOLLOW));
}

/* May this process make a mount namespace (CAP_SYS_ADMIN)?  Asked in a
 * child, which is left in it. */
static bool
can_unshare_mounts(void)
{
	int status;
	pid_t pid = fork();

	cr_assert(pid != -1);
	if (pid == 0)
		_exit(unshare(CLONE_NEWNS) == 0 ? 0 : 1);
	cr_assert(waitpid(pid, &status, 0) == pid);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* Make ELSEWHERE (beside the fixture, in TMPDIR) and its file "victim",
 * 0600, owned by OWNER, named into VICTIM; its state into *BEFORE. */
static void
make_elsewhere(uid_t owner, char *victim, size_t cap, struct stat *before)
{
	const char *tmp = getenv("TMPDIR");
	int fd;

	(void)snprintf(elsewhere, sizeof(elsewhere), "%s/pfx-elsewhere.XXXXXX",
	    tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
	cr_assert(mkdtemp(elsewhere) != NULL);
	cr_assert(chmod(elsewhere, 0755) == 0);
	(void)snprintf(victim, cap, "%s/victim", elsewhere);
	fd = open(victim, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	cr_assert(fd >= 0 && fchown(fd, owner, (gid_t)owner) == 0 &&
	    close(fd) == 0);
	cr_assert(stat(victim, before) == 0);
}

/* Expect attempt_outside_meta()'s outcome O under read-only mounts. */
static void
expect_outside_meta_refused(const struct outcome *o)
{
	size_t i;

	cr_expect(readonly_mounts(&o->info), "%s", o->info.text);
	for (i = 0; i < 5; i++)
		if (o->err[i] != -1)
			cr_expect_eq(o->err[i], EROFS, "%s: %s, expected EROFS",
			    outside_meta_what[i], o->err[i] == 0 ?
			    "it worked" : strerror(o->err[i]));
	/* Climbing out of the destination's tree finds nothing. */
	cr_expect_eq(o->err[5], ENOENT, "%s: %s", outside_meta_what[5],
	    o->err[5] == 0 ? "it worked" : strerror(o->err[5]));
	cr_expect_eq(o->err[6], 0, "%s: %s", outside_meta_what[6],
	    strerror(o->err[6]));
	cr_expect_eq(o->err[7], 0, "%s: %s", outside_meta_what[7],
	    strerror(o->err[7]));
}

/* Expect VICTIM as *BEFORE, then remove it and ELSEWHERE. */
static void
expect_victim_unchanged(const char *victim, const struct stat *before)
{
	struct stat after;

	cr_assert(stat(victim, &after) == 0);
	cr_expect(after.st_mode == before->st_mode &&
	    after.st_uid == before->st_uid &&
	    after.st_mtim.tv_sec == before->st_mtim.tv_sec &&
	    after.st_ctim.tv_sec == before->st_ctim.tv_sec &&
	    after.st_ctim.tv_nsec == before->st_ctim.tv_nsec,
	    "elsewhere/victim changed: mode %o owner %d", after.st_mode,
	    (int)after.st_uid);
	cr_expect_eq(unlink(victim), 0);
	cr_expect_eq(rmdir(elsewhere), 0);
}

/*
 * SECURITY: Landlock has no right for a file's mode, owner, times or
 * attributes, nor sees O_PATH opens, and the filter cannot tell a name
 * outside the destination from one beneath it: a writer taken over, as
 * root, made a file in /var/tmp 0666 by its name.  With CAP_SYS_ADMIN
 * the confinement puts every mount but the destination's read-only in a
 * mount namespace of its own (platform/view_linux.c): each of these is
 * refused with EROFS, however the file is reached, and the destination
 * stays as changeable as before.
 */
Test(sandbox, outside_meta_read_only, .timeout = 30)
{
	struct stat before, pw, pw_after;
	struct outcome o;
	struct fx fx;
	char victim[PATH_MAX + 8];

	if (geteuid() != 0 || !can_unshare_mounts())
		cr_skip_test("no CAP_SYS_ADMIN: no read-only mounts");
	fx_init(&fx);
	make_elsewhere(0, victim, sizeof(victim), &before);
	cr_assert(stat("/etc/passwd", &pw) == 0);
	in_confined_child(attempt_outside_meta, &fx, 0, &o);
	expect_outside_meta_refused(&o);
	expect_victim_unchanged(victim, &before);
	cr_assert(stat("/etc/passwd", &pw_after) == 0);
	cr_expect(pw_after.st_ctim.tv_sec == pw.st_ctim.tv_sec &&
	    pw_after.st_ctim.tv_nsec == pw.st_ctim.tv_nsec,
	    "/etc/passwd was changed");
	fx_end(&fx);
}

/* A file capability that would give its program CAP_SETUID (struct
 * vfs_cap_data, revision 2: magic and flags, then permitted and
 * inheritable words). */
static const uint32_t setuid_cap[5] = {
	0x02000000u | 0x1u,	/* VFS_CAP_REVISION_2, VFS_CAP_FLAGS_EFFECTIVE */
	1u << 7, 0, 0, 0,	/* CAP_SETUID permitted */
};

/*
 * Hold a descriptor of ELSEWHERE/victim open to write, as pfextract holds
 * its standard error redirected to a file, then confine with a
 * destination and, through that descriptor: O->err[0] set
 * security.capability, [1] set a trusted.* attribute; and [2] whether
 * CAP_SETFCAP is still effective (0: no, EEXIST: yes).
 */
static void
attempt_preopened_caps(struct fx *fx, unsigned int internal,
    struct outcome *o)
{
	struct __user_cap_header_struct hdr;
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	char victim[PATH_MAX + 8];
	int fd;

	(void)snprintf(victim, sizeof(victim), "%s/victim", elsewhere);
	fd = open(victim, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		o->confine = -errno;
		return;
	}
	o->confine = plat_sandbox_confine(fx->dest, 0, internal, &o->info);
	o->err[0] = ok(fsetxattr(fd, "security.capability", setuid_cap,
	    sizeof(setuid_cap), 0));
	o->err[1] = ok(fsetxattr(fd, "trusted.pfx", "x", 1, 0));
	memset(&hdr, 0, sizeof(hdr));
	hdr.version = _LINUX_CAPABILITY_VERSION_3;
	o->err[2] = syscall(SYS_capget, &hdr, data) == -1 ? errno :
	    (data[CAP_SETFCAP / 32].effective &
	    (1u << (CAP_SETFCAP % 32))) != 0 ? EEXIST : 0;
	(void)close(fd);
}

/*
 * SECURITY: read-only mounts cannot reach a descriptor opened before the
 * confinement (pfextract's standard output or error redirected to a
 * file outside DEST): its file stays on its writable mount.  As root, a
 * writer taken over wrote a program there and gave it a file
 * capability (security.capability: CAP_SETUID), which any user who ran
 * it then had.  The confined writer keeps only the capabilities that
 * writing files needs (plat_os_keep_file_caps()): no CAP_SETFCAP, no
 * CAP_SYS_ADMIN (trusted.*), so both are refused, and the file outside
 * has no such attribute after.
 */
Test(sandbox, preopened_outside_file_no_capability, .timeout = 30)
{
	struct stat before;
	struct outcome o;
	struct fx fx;
	char victim[PATH_MAX + 8], buf[64];

	if (geteuid() != 0)
		cr_skip_test("not root: no CAP_SETFCAP to take away");
	fx_init(&fx);
	make_elsewhere(0, victim, sizeof(victim), &before);
	in_confined_child(attempt_preopened_caps, &fx, 0, &o);
	cr_expect_eq(o.err[0], EPERM, "security.capability through a "
	    "descriptor of a file outside: %s", o.err[0] == 0 ?
	    "it worked" : strerror(o.err[0]));
	cr_expect_eq(o.err[1], EPERM, "trusted.* through a descriptor of a "
	    "file outside: %s", o.err[1] == 0 ? "it worked" :
	    strerror(o.err[1]));
	cr_expect_eq(o.err[2], 0, "CAP_SETFCAP still effective");
	cr_expect(getxattr(victim, "security.capability", buf,
	    sizeof(buf)) == -1 && errno == ENODATA,
	    "elsewhere/victim has a file capability");
	cr_expect(getxattr(victim, "trusted.pfx", buf, sizeof(buf)) == -1,
	    "elsewhere/victim has a trusted.* attribute");
	cr_expect_eq(unlink(victim), 0);
	cr_expect_eq(rmdir(elsewhere), 0);
	fx_end(&fx);
}

/* Expect NODE to have kept its status BEFORE (mode, owner, change
 * time), then remove it. */
static void
expect_node_unchanged(const char *node, const struct stat *before)
{
	struct stat after;

	cr_assert(stat(node, &after) == 0);
	cr_expect(after.st_mode == before->st_mode &&
	    after.st_uid == before->st_uid &&
	    after.st_ctim.tv_sec == before->st_ctim.tv_sec &&
	    after.st_ctim.tv_nsec == before->st_ctim.tv_nsec,
	    "%s changed: mode %o owner %d", node, after.st_mode,
	    (int)after.st_uid);
	cr_expect_eq(unlink(node), 0);
}

/*
 * Hold ELSEWHERE/null (a null device of the test's own) open to write
 * and ELSEWHERE/fifo open to read and write without blocking, as
 * pfextract holds its standard output and error on a device or a named
 * pipe; confine; then through each: O->err[0], [1] fchmod; [2], [3]
 * futimens; [4], [5] a user.* attribute; [6] a write to the device, [7]
 * a write to the pipe read back through it (0: the bytes came back);
 * [8] whether the pipe kept O_NONBLOCK and close-on-exec (0: both).
 */
static void
attempt_preopened_nodes(struct fx *fx, unsigned int internal,
    struct outcome *o)
{
	char path[PATH_MAX + 8], buf[4];
	int fd[2], i, fl;

	(void)snprintf(path, sizeof(path), "%s/null", elsewhere);
	fd[0] = open(path, O_WRONLY | O_NOCTTY);
	(void)snprintf(path, sizeof(path), "%s/fifo", elsewhere);
	fd[1] = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd[0] < 0 || fd[1] < 0) {
		o->confine = -errno;
		return;
	}
	o->confine = plat_sandbox_confine(fx->dest, 0, internal, &o->info);
	for (i = 0; i < 2; i++) {
		o->err[i] = ok(fchmod(fd[i], 0666));
		o->err[2 + i] = ok(futimens(fd[i], NULL));
		o->err[4 + i] = ok(fsetxattr(fd[i], "user.pfx", "x", 1, 0));
	}
	o->err[6] = write(fd[0], "abc", 3) == 3 ? 0 : errno;
	o->err[7] = write(fd[1], "abc", 3) == 3 && read(fd[1], buf, 3) == 3 &&
	    memcmp(buf, "abc", 3) == 0 ? 0 : EIO;
	fl = fcntl(fd[1], F_GETFL);
	o->err[8] = fl != -1 && (fl & O_NONBLOCK) != 0 &&
	    fcntl(fd[1], F_GETFD) == FD_CLOEXEC ? 0 : EINVAL;
	(void)close(fd[0]);
	(void)close(fd[1]);
}

/*
 * SECURITY: a device or named pipe held from before the confinement
 * (pfextract's standard output on /dev/null or a terminal, standard
 * error on a FIFO) kept its writable mount, like a file: as root, a
 * writer taken over made it world-writable, or changed its times or
 * attributes, through the descriptor.  The view opens each again
 * through a read-only mount of its own (view_linux.c, step 1b): every
 * such change meets EROFS, and the device and the pipe work as before,
 * with the same flags.
 */
Test(sandbox, preopened_nodes_read_only, .timeout = 30)
{
	struct stat before, null_st, fifo_st;
	struct outcome o;
	struct fx fx;
	char victim[PATH_MAX + 8], node[PATH_MAX + 8];
	size_t i;

	if (geteuid() != 0 || !can_unshare_mounts())
		cr_skip_test("no CAP_SYS_ADMIN: no read-only mounts");
	fx_init(&fx);
	make_elsewhere(0, victim, sizeof(victim), &before);
	(void)snprintf(node, sizeof(node), "%s/null", elsewhere);
	cr_assert(mknod(node, S_IFCHR | 0640, makedev(1, 3)) == 0,
	    "mknod: %s", strerror(errno));
	cr_assert(stat(node, &null_st) == 0);
	(void)snprintf(node, sizeof(node), "%s/fifo", elsewhere);
	cr_assert(mkfifo(node, 0640) == 0 && stat(node, &fifo_st) == 0);
	in_confined_child(attempt_preopened_nodes, &fx, 0, &o);
	cr_expect(readonly_mounts(&o.info), "%s", o.info.text);
	for (i = 0; i < 6; i++)
		cr_expect_eq(o.err[i], EROFS, "%s through the %s: %s, "
		    "expected EROFS", i < 2 ? "fchmod" : i < 4 ? "futimens" :
		    "fsetxattr", i % 2 == 0 ? "device" : "pipe",
		    o.err[i] == 0 ? "it worked" : strerror(o.err[i]));
	cr_expect_eq(o.err[6], 0, "write to the device: %s",
	    strerror(o.err[6]));
	cr_expect_eq(o.err[7], 0, "the pipe does not work as before");
	cr_expect_eq(o.err[8], 0, "the pipe lost O_NONBLOCK or close-on-exec");
	expect_node_unchanged(node, &fifo_st);
	(void)snprintf(node, sizeof(node), "%s/null", elsewhere);
	expect_node_unchanged(node, &null_st);
	expect_victim_unchanged(victim, &before);
	fx_end(&fx);
}

/* An ordinary user's ids: nobody's, with no supplementary group. */
#define T_NOBODY 65534

/*
 * attempt_outside_meta() as nobody (setresuid in the child, before it
 * confines itself; dumpable again, as after the execve(2) of a program
 * run as nobody: else its /proc/self files stay root's), then: O->err[8] a file made in DEST's "ro", a
 * directory of nobody's with mode 0555, which an ordinary user may not
 * write (a capability kept in a user namespace would let it).
 */
static void
attempt_outside_meta_user(struct fx *fx, unsigned int internal,
    struct outcome *o)
{
	int fd;

	if (setgroups(0, NULL) == -1 ||
	    setresgid(T_NOBODY, T_NOBODY, T_NOBODY) == -1 ||
	    setresuid(T_NOBODY, T_NOBODY, T_NOBODY) == -1 ||
	    prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) == -1) {
		o->confine = -errno;
		return;
	}
	attempt_outside_meta(fx, internal, o);
	fd = openat(fx->dest, "ro/new", O_WRONLY | O_CREAT | O_EXCL |
	    O_CLOEXEC, 0600);
	o->err[8] = fd < 0 ? errno : 0;
	if (fd >= 0)
		(void)close(fd);
}

/* May nobody make a user and a mount namespace here?  Asked in a
 * child, which is left in them. */
static bool
nobody_can_unshare(void)
{
	int status;
	pid_t pid = fork();

	cr_assert(pid != -1);
	if (pid == 0)
		_exit(setgroups(0, NULL) == 0 &&
		    setresgid(T_NOBODY, T_NOBODY, T_NOBODY) == 0 &&
		    setresuid(T_NOBODY, T_NOBODY, T_NOBODY) == 0 &&
		    prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) == 0 &&
		    unshare(CLONE_NEWUSER | CLONE_NEWNS) == 0 ? 0 : 1);
	cr_assert(waitpid(pid, &status, 0) == pid);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/*
 * SECURITY: run as an ordinary user, a writer taken over changed the
 * mode and times of any file of that user, by its name or through an
 * O_PATH descriptor (Landlock sees neither): unshare(CLONE_NEWNS) says
 * EPERM without CAP_SYS_ADMIN, and no view was made ("mounts writable
 * (not root)").  The view is now made in a user namespace of the
 * process's own (view_linux.c): each of these fails with EROFS, the
 * destination stays as changeable as before, and no capability of that
 * namespace is kept (a directory of its own, 0555, still cannot be
 * written, EACCES).
 */
Test(sandbox, outside_meta_read_only_user, .timeout = 30)
{
	struct stat before;
	struct outcome o;
	struct fx fx;
	char victim[PATH_MAX + 8];

	if (geteuid() != 0)
		cr_skip_test("needs root, to become nobody");
	if (!nobody_can_unshare())
		cr_skip_test("no user namespace for nobody here");
	fx_init(&fx);
	/* nobody must reach the destination by its path, and own what it
	 * may change there. */
	cr_assert(fchmod(fx.top, 0755) == 0);
	cr_assert(fchown(fx.dest, T_NOBODY, T_NOBODY) == 0);
	cr_assert(fchownat(fx.dest, "old", T_NOBODY, T_NOBODY, 0) == 0);
	cr_assert(mkdirat(fx.dest, "ro", 0555) == 0);
	cr_assert(fchownat(fx.dest, "ro", T_NOBODY, T_NOBODY, 0) == 0);
	make_elsewhere(T_NOBODY, victim, sizeof(victim), &before);
	in_confined_child(attempt_outside_meta_user, &fx, 0, &o);
	expect_outside_meta_refused(&o);
	cr_expect_eq(o.err[8], EACCES, "a file in dest/ro (0555): %s",
	    o.err[8] == 0 ? "it worked" : strerror(o.err[8]));
	expect_victim_unchanged(victim, &before);
	fx_end(&fx);
}

/*
 * As nobody, holding a descriptor of a directory removed since (handed
 * down by a caller), confine to the fixture's dest.
 */
static void
attempt_held_gone_user(struct fx *fx, unsigned int internal,
    struct outcome *o)
{
	char path[sizeof(fx->path) + 8];
	int fd;

	(void)snprintf(path, sizeof(path), "%s/gone", fx->path);
	if (mkdir(path, 0755) == -1 ||
	    (fd = open(path, O_RDONLY | O_DIRECTORY)) == -1 ||
	    rmdir(path) == -1 || setgroups(0, NULL) == -1 ||
	    setresgid(T_NOBODY, T_NOBODY, T_NOBODY) == -1 ||
	    setresuid(T_NOBODY, T_NOBODY, T_NOBODY) == -1 ||
	    prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) == -1) {
		o->err[0] = errno;
		return;
	}
	o->err[0] = 0;
	o->confine = plat_sandbox_confine(fx->dest, 0, internal, &o->info);
	(void)close(fd);
}

/*
 * A user's view re-opens each directory descriptor held by its path
 * (here()); one that has none (a directory removed since, which a caller
 * handed down) made every run fail "the destination was renamed while
 * its read-only mounts were made" (ESTALE, meant for the destination
 * taken away).  Now: no view, and why, as for a directory whose mount
 * cannot be cloned.
 */
Test(sandbox, view_held_dir_gone_user, .timeout = 30)
{
	struct outcome o;
	struct fx fx;
	int status;

	if (geteuid() != 0)
		cr_skip_test("needs root, to become nobody");
	if (!nobody_can_unshare())
		cr_skip_test("no user namespace for nobody here");
	fx_init(&fx);
	cr_assert(fchmod(fx.top, 0755) == 0);
	status = in_child(attempt_held_gone_user, &fx, 0, &o);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	cr_assert_eq(o.err[0], 0, "%s", strerror(o.err[0]));
	cr_expect_eq(o.confine, 0, "confine: %s (%s)", strerror(-o.confine),
	    o.info.text);
	cr_expect(strstr(o.info.text, "mounts writable") != NULL, "%s",
	    o.info.text);
	fx_end(&fx);
}

static const char *const proc_links_what[] = {
	"chmod(/proc/self/exe), its own mode",
	"utimensat(/proc/self/exe), its own times",
	"chmod(/proc/self/map_files/<libc>), its own mode",
	"fchmodat2(O_PATH of /proc/self/exe), its own mode"
};

/*
 * Confine with a destination, then set the mode and times the program
 * and the libc it maps already have, through the magic links of /proc,
 * which lead to the files on the mounts the process was started on.
 * O->err[i] answers proc_links_what[i] (-1: not tried).
 */
static void
attempt_proc_links(struct fx *fx, unsigned int internal, struct outcome *o)
{
	char range[64] = "", line[512], path[128];
	struct timespec t[2];
	struct stat exe, lib;
	FILE *m;
	int fd;

	/* Found before the confinement: after it, /proc may not be read. */
	m = fopen("/proc/self/maps", "re");
	while (m != NULL && range[0] == '\0' &&
	    fgets(line, sizeof(line), m) != NULL)
		if (strstr(line, "/libc.so") != NULL)
			(void)sscanf(line, "%63[0-9a-f-]", range);
	if (m != NULL)
		(void)fclose(m);
	if (stat("/proc/self/exe", &exe) != 0)
		return;		/* not confined: the parent says so */
	t[0] = exe.st_atim;
	t[1] = exe.st_mtim;
	o->confine = plat_sandbox_confine(fx->dest, 0, internal, &o->info);
	o->err[0] = ok(chmod("/proc/self/exe", exe.st_mode & 0777));
	o->err[1] = ok(utimensat(AT_FDCWD, "/proc/self/exe", t, 0));
	if (range[0] != '\0') {
		(void)snprintf(path, sizeof(path), "/proc/self/map_files/%s",
		    range);
		o->err[2] = stat(path, &lib) != 0 ? errno :
		    ok(chmod(path, lib.st_mode & 0777));
	}
	fd = open("/proc/self/exe", O_PATH | O_CLOEXEC);
	o->err[3] = fd < 0 ? errno : ok(syscall(T_SYS_fchmodat2, fd, "",
	    exe.st_mode & 0777, AT_EMPTY_PATH));
	if (o->err[3] == ENOSYS)
		o->err[3] = -1;
	if (fd >= 0)
		(void)close(fd);
}

/*
 * SECURITY: /proc/self/exe and /proc/self/map_files/ are magic links to
 * the program and the libraries the process maps, on the mounts it was
 * started on, outside its own read-only copy: a writer taken over, as
 * root, made its own program and libc 0666 through them (Landlock does
 * not check a chmod, nor the walk through a magic link).  The view
 * detaches /proc: each is refused.  The files are given the mode and
 * times they have, so a failure of this test changes nothing but their
 * ctime.  Sanitizer builds keep /proc (their leak check reads it).
 */
Test(sandbox, outside_meta_proc_links, .timeout = 30)
{
	struct outcome o;
	struct fx fx;
	size_t i;

#if defined(__SANITIZE_ADDRESS__)
	cr_skip_test("sanitizer build: /proc is kept for the leak check");
#endif
	if (geteuid() != 0 || !can_unshare_mounts())
		cr_skip_test("no CAP_SYS_ADMIN: no read-only mounts");
	fx_init(&fx);
	in_confined_child(attempt_proc_links, &fx, 0, &o);
	cr_expect(readonly_mounts(&o.info), "%s", o.info.text);
	for (i = 0; i < NELEM(proc_links_what); i++)
		if (o.err[i] != -1)
			cr_expect_neq(o.err[i], 0, "%s: it worked",
			    proc_links_what[i]);
	fx_end(&fx);
}

/*
 * Confine with a destination, then clone the mount of the fixture's
 * parent directory with open_tree_attr(2) (Linux 6.15), its read-only
 * flag cleared, and give outside/victim the mode it has through the
 * clone.  O->err[0]: the clone, err[1]: the chmod (-1: not tried).
 */
static void
attempt_open_tree_attr(struct fx *fx, unsigned int internal,
    struct outcome *o)
{
	struct mount_attr_t {
		uint64_t attr_set, attr_clr, propagation, userns_fd;
	} attr = { 0, 0x00000001 /* MOUNT_ATTR_RDONLY */, 0, 0 };
	char up[sizeof(fx->path)], rel[sizeof(fx->path) + 32];
	char *slash;
	long tree;

	(void)snprintf(up, sizeof(up), "%s", fx->path);
	slash = strrchr(up, '/');
	if (slash == NULL || slash == up)
		return;
	*slash = '\0';
	(void)snprintf(rel, sizeof(rel), "%s/outside/victim", slash + 1);
	o->confine = plat_sandbox_confine(fx->dest, 0, internal, &o->info);
	tree = syscall(467 /* open_tree_attr */, AT_FDCWD, up,
	    1 /* OPEN_TREE_CLONE */ | O_CLOEXEC, &attr, sizeof(attr));
	o->err[0] = ok(tree);
	if (tree >= 0)
		o->err[1] = ok(fchmodat((int)tree, rel, 0644, 0));
}

/*
 * SECURITY: the filter refused every mount call but open_tree_attr(2)
 * (Linux 6.15), which clones a mount and sets its attributes in one
 * call: a writer taken over cloned any mount writable and changed the
 * mode of any file through it, the read-only mounts undone.  Refused
 * (EPERM), or unknown to the kernel (ENOSYS).
 */
Test(sandbox, open_tree_attr_refused, .timeout = 30)
{
	struct outcome o;
	struct fx fx;

	fx_init(&fx);
	in_confined_child(attempt_open_tree_attr, &fx, 0, &o);
	cr_expect(o.err[0] == EPERM || o.err[0] == ENOSYS,
	    "open_tree_attr: %s, expected EPERM", o.err[0] == 0 ?
	    "it worked" : strerror(o.err[0]));
	cr_expect(o.err[1] == -1, "chmod through the clone: %s",
	    o.err[1] == 0 ? "it worked" : strerror(o.err[1]));
	fx_end(&fx);
}

/*
 * In a mount namespace of the child's own, open the fixture's dest, mount
 * a tmpfs over it, then confine to the descriptor beneath: its name in
 * its parent now leads to another directory, as after a rename by
 * another process.  The fixture's descriptors, on mounts of the old
 * namespace (which cannot be cloned from the new one), are closed.
 */
static void
attempt_dest_hidden(struct fx *fx, unsigned int internal, struct outcome *o)
{
	char path[sizeof(fx->path) + 8];
	int fd = -1;

	(void)close(fx->top);
	(void)close(fx->dest);
	(void)close(fx->sibling);
	(void)close(fx->outside);
	(void)snprintf(path, sizeof(path), "%s/dest", fx->path);
	o->err[0] = unshare(CLONE_NEWNS) == -1 ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == -1 ||
	    (fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1 ||
	    mount("pfx", path, "tmpfs", 0, "size=64k") == -1 ? errno : 0;
	if (o->err[0] != 0)
		return;
	o->confine = plat_sandbox_confine(fd, 0, internal, &o->info);
}

/*
 * SECURITY: the view finds the destination in the clone of its parent
 * by name, and proves it by identity.  Another process renaming it in a
 * loop (or anything that puts another directory under its name) made
 * the proof fail one run in four, and the confinement went on without
 * read-only mounts, "mounts writable (Stale file handle)": an attacker
 * who may rename the destination took the view away from a writer it
 * could then take over.  The confinement now fails (-ESTALE).
 */
Test(sandbox, view_dest_not_found_refused, .timeout = 30)
{
	struct outcome o;
	struct fx fx;
	int status;

	if (geteuid() != 0 || !can_unshare_mounts())
		cr_skip_test("no CAP_SYS_ADMIN: no read-only mounts");
	fx_init(&fx);
	status = in_child(attempt_dest_hidden, &fx, 0, &o);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "child status %#x", status);
	cr_assert_eq(o.err[0], 0, "mount over dest: %s", strerror(o.err[0]));
	cr_expect_eq(o.confine, -ESTALE, "confine: %s (%s), expected ESTALE",
	    o.confine == 0 ? "confined" : strerror(-o.confine), o.info.text);
	fx_end(&fx);
}

/*
 * As attempt_dest_hidden(), but an unbindable tmpfs mounted first, at
 * dest itself (DEEPER false) or at dest/sub (true), and the descriptor
 * opened after.  err[1]: dest/unb looked up as the writer does (EXDEV:
 * the mount is there, and refused; 0: the directory it hides).
 */
static void
unbindable_view(struct fx *fx, struct outcome *o, bool deeper)
{
	char path[sizeof(fx->path) + 16], sub[sizeof(path) + 8];
	int fd = -1, f;

	(void)close(fx->top);
	(void)close(fx->dest);
	(void)close(fx->sibling);
	(void)close(fx->outside);
	(void)snprintf(path, sizeof(path), "%s/dest", fx->path);
	(void)snprintf(sub, sizeof(sub), "%s/unb", path);
	o->err[0] = unshare(CLONE_NEWNS) == -1 ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == -1 ||
	    (deeper && mkdir(sub, 0755) == -1) ||
	    mount("pfx", deeper ? sub : path, "tmpfs", 0, "size=64k") == -1 ||
	    mount(NULL, deeper ? sub : path, NULL, MS_UNBINDABLE, NULL) ==
	    -1 || (fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1 ?
	    errno : 0;
	if (o->err[0] != 0)
		return;
	o->confine = plat_sandbox_confine(fd, 0, 0, &o->info);
	if (o->confine < 0 || !deeper)
		return;
	/* As the writer resolves: never across a mount. */
	f = plat_os_openat2(fd, "unb", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	o->err[1] = f < 0 ? -f : 0;
	if (f >= 0)
		(void)close(f);
}

static void
attempt_dest_unbindable(struct fx *fx, unsigned int internal,
    struct outcome *o)
{
	(void)internal;
	unbindable_view(fx, o, false);
}

static void
attempt_sub_unbindable(struct fx *fx, unsigned int internal,
    struct outcome *o)
{
	(void)internal;
	unbindable_view(fx, o, true);
}

/*
 * A mount that is unbindable (mount --make-unbindable, which only
 * CAP_SYS_ADMIN does) is left out of the view's clone without a word:
 * a destination that is one was refused as "renamed while its
 * read-only mounts were made" (ESTALE), and with one beneath it the
 * writer's sub/f went into the directory that mount hides, where
 * without a view it is refused (crosses a mount).  Now: no view.
 */
Test(sandbox, view_unbindable_mount, .timeout = 30)
{
	struct outcome o;
	struct fx fx;
	int status;

	if (geteuid() != 0 || !can_unshare_mounts())
		cr_skip_test("no CAP_SYS_ADMIN: no read-only mounts");
	fx_init(&fx);
	status = in_child(attempt_dest_unbindable, &fx, 0, &o);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	cr_assert_eq(o.err[0], 0, "mount: %s", strerror(o.err[0]));
	cr_expect_eq(o.confine, 0, "dest unbindable: %s (%s)",
	    strerror(-o.confine), o.info.text);
	status = in_child(attempt_sub_unbindable, &fx, 0, &o);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	cr_assert_eq(o.err[0], 0, "mount: %s", strerror(o.err[0]));
	cr_expect_eq(o.confine, 0, "sub unbindable: %s (%s)",
	    strerror(-o.confine), o.info.text);
	cr_expect_eq(o.err[1], EXDEV, "dest/unb: %s, expected EXDEV",
	    o.err[1] == 0 ? "the directory under the mount" :
	    strerror(o.err[1]));
	fx_end(&fx);
}

/* The directory the view is made for, when not the fixture's dest. */
static int deep_dest = -1;

static void
attempt_deep_view(struct fx *fx, unsigned int internal, struct outcome *o)
{
	(void)fx;
	o->confine = plat_sandbox_confine(deep_dest, 0, internal, &o->info);
}

/* The same as nobody, whose view re-opens each directory by its path. */
static void
attempt_deep_view_user(struct fx *fx, unsigned int internal,
    struct outcome *o)
{
	if (setgroups(0, NULL) == -1 ||
	    setresgid(T_NOBODY, T_NOBODY, T_NOBODY) == -1 ||
	    setresuid(T_NOBODY, T_NOBODY, T_NOBODY) == -1 ||
	    prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) == -1) {
		o->confine = -errno;
		return;
	}
	attempt_deep_view(fx, internal, o);
}

#define DEEP_LEVELS 18

/*
 * SECURITY: the view reads the destination's name from /proc/self/fd,
 * which cannot give a path longer than a page: a destination deeper than
 * that (symlinks in the path given, which a user who owns a directory on
 * it may place, reach one) was confined with "mounts writable (File name
 * too long)".  Its name is now found among its parent's entries.
 */
Test(sandbox, view_dest_path_too_long, .timeout = 30)
{
	const char *tmp = getenv("TMPDIR");
	char top[PATH_MAX], name[256];
	int fd[DEEP_LEVELS + 1], i, status;
	struct outcome o;
	struct fx fx;

	if (geteuid() != 0 || !can_unshare_mounts())
		cr_skip_test("no CAP_SYS_ADMIN: no read-only mounts");
	fx_init(&fx);
	(void)snprintf(top, sizeof(top), "%s/pfx-deep.XXXXXX",
	    tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
	cr_assert(mkdtemp(top) != NULL);
	memset(name, 'L', 250);
	name[250] = '\0';
	fd[0] = open(top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert(fd[0] >= 0);
	/* 18 levels of 251 bytes: past the 4096 of a page. */
	for (i = 1; i <= DEEP_LEVELS; i++) {
		cr_assert(mkdirat(fd[i - 1], i == DEEP_LEVELS ? "dest" : name,
		    0755) == 0);
		fd[i] = openat(fd[i - 1], i == DEEP_LEVELS ? "dest" : name,
		    O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		cr_assert(fd[i] >= 0);
	}
	for (i = 0; i < DEEP_LEVELS; i++)
		(void)close(fd[i]);
	deep_dest = fd[DEEP_LEVELS];
	status = in_child(attempt_deep_view, &fx, 0, &o);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	cr_expect_eq(o.confine, 0, "confine: %s", strerror(-o.confine));
	cr_expect(readonly_mounts(&o.info), "%s", o.info.text);
	/* SECURITY: and for a user, whose view opens each directory again
	 * by its path, which /proc cannot give: it had none ("user
	 * namespace: File name too long"). */
	if (nobody_can_unshare()) {
		cr_assert(chmod(top, 0755) == 0 && fchmod(fx.top, 0755) == 0);
		status = in_child(attempt_deep_view_user, &fx, 0, &o);
		cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
		cr_expect_eq(o.confine, 0, "as nobody: %s",
		    strerror(-o.confine));
		cr_expect(readonly_mounts(&o.info), "as nobody: %s",
		    o.info.text);
	}
	(void)close(deep_dest);
	deep_dest = -1;
	/* Remove the chain from the top down, by descriptor. */
	fd[0] = open(top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	for (i = 1; i < DEEP_LEVELS; i++)
		fd[i] = openat(fd[i - 1], name, O_RDONLY | O_DIRECTORY |
		    O_CLOEXEC);
	cr_expect_eq(unlinkat(fd[DEEP_LEVELS - 1], "dest", AT_REMOVEDIR), 0);
	for (i = DEEP_LEVELS - 1; i > 0; i--) {
		(void)close(fd[i]);
		cr_expect_eq(unlinkat(fd[i - 1], name, AT_REMOVEDIR), 0);
	}
	(void)close(fd[0]);
	cr_expect_eq(rmdir(top), 0);
	fx_end(&fx);
}

/* --- pfx_extract() with PFX_OPT_SANDBOX -------------------------------- */

#define ARCHIVE_CAP (64 * 1024)

/* An archive in memory: a/f, a hard link c/hl to it, a symlink a/l -> f. */
static size_t
small_archive(void *buf, size_t cap)
{
	struct archive *a = archive_write_new();
	struct archive_entry *e;
	size_t used = 0;

	cr_assert(a != NULL);
	cr_assert(archive_write_set_format_pax_restricted(a) == ARCHIVE_OK);
	cr_assert(archive_write_open_memory(a, buf, cap, &used) ==
	    ARCHIVE_OK);
	e = archive_entry_new();
	archive_entry_set_pathname(e, "a/f");
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, 0644);
	archive_entry_set_size(e, 6);
	cr_assert(archive_write_header(a, e) == ARCHIVE_OK);
	cr_assert(archive_write_data(a, "hello\n", 6) == 6);
	archive_entry_clear(e);
	archive_entry_set_pathname(e, "c/hl");
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, 0644);
	archive_entry_set_hardlink(e, "a/f");
	archive_entry_set_size(e, 0);
	cr_assert(archive_write_header(a, e) == ARCHIVE_OK);
	archive_entry_clear(e);
	archive_entry_set_pathname(e, "a/l");
	archive_entry_set_filetype(e, AE_IFLNK);
	archive_entry_set_perm(e, 0777);
	archive_entry_set_symlink(e, "f");
	cr_assert(archive_write_header(a, e) == ARCHIVE_OK);
	archive_entry_free(e);
	cr_assert(archive_write_close(a) == ARCHIVE_OK);
	archive_write_free(a);
	return used;
}

static void
count_confined(void *arg, const struct pfx_sandbox_info *info)
{
	int *n = arg;

	(*n)++;
	if (!info->fs)
		*n += 100;
}

/*
 * Extract (FLAGS has PFX_OPT_LIST: list) the small archive with
 * PFX_OPT_SANDBOX in a confined child: err[0] status, err[1] error,
 * err[2] calls of the confined hook, err[3] a write outside afterwards.
 * With FLAGS holding the high bit, the input is given by path instead.
 */
static void
attempt_extract(struct fx *fx, unsigned int flags, struct outcome *o)
{
	static unsigned char buf[ARCHIVE_CAP];
	struct pfx_options opt;
	struct pfx_result res;
	struct pfx_input in;
	int calls = 0;

	memset(&in, 0, sizeof(in));
	in.fd = -1;
	if ((flags & 0x80000000u) != 0) {
		in.path = "/nonexistent.tar";
	} else {
		in.buf = buf;
		in.len = small_archive(buf, sizeof(buf));
	}
	pfx_options_init(&opt);
	opt.flags |= (flags & ~0x80000000u) | PFX_OPT_SANDBOX |
	    PFX_OPT_SANDBOX_REQUIRE;
	opt.symlinks = PFX_SYMLINKS_CONTAIN;
	opt.hooks.confined = count_confined;
	opt.hooks.arg = &calls;
	o->err[0] = (int)pfx_extract(&in, fx->dest, ".", &opt, &res);
	o->err[1] = res.error;
	o->err[2] = calls;
	o->err[3] = ok_fd(openat(fx->outside, "victim",
	    O_WRONLY | O_CLOEXEC));
	o->err[4] = try_create(fx->dest);
	o->info = res.sandbox;
}

Test(sandbox, extract_confined, .timeout = 30)
{
	struct outcome o;
	struct fx fx;
	struct stat a, b;
	char buf[8];
	int status;

	fx_init(&fx);
	status = in_child(attempt_extract, &fx, 0, &o);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	cr_expect_eq(o.err[0], PFX_OK, "status %d, error %s", o.err[0],
	    strerror(o.err[1]));
	cr_expect_eq(o.err[2], 1, "confined hook: %d", o.err[2]);
	cr_expect(o.err[3] == EACCES || (o.err[3] == EROFS &&
	    readonly_mounts(&o.info)), "write outside after the run: %s",
	    strerror(o.err[3]));
	cr_expect_eq(o.err[4], 0, "create in dest after the run: %s",
	    strerror(o.err[4]));
	cr_expect(o.info.fs && o.info.seccomp, "sandbox: %s", o.info.text);
	cr_assert_eq(fstatat(fx.dest, "a/f", &a, AT_SYMLINK_NOFOLLOW), 0);
	cr_assert_eq(fstatat(fx.dest, "c/hl", &b, AT_SYMLINK_NOFOLLOW), 0,
	    "the hard link across directories is missing");
	cr_expect(a.st_ino == b.st_ino && a.st_dev == b.st_dev);
	cr_expect_eq(readlinkat(fx.dest, "a/l", buf, sizeof(buf)), 1,
	    "the contained symlink is missing");
	fx_end(&fx);
}

Test(sandbox, list_confined, .timeout = 30)
{
	struct outcome o;
	struct fx fx;
	int status;

	fx_init(&fx);
	status = in_child(attempt_extract, &fx, PFX_OPT_LIST, &o);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	cr_expect_eq(o.err[0], PFX_OK, "status %d, error %s", o.err[0],
	    strerror(o.err[1]));
	cr_expect_eq(o.err[2], 1);
	cr_expect_eq(o.err[4], EPERM, "create in dest while listing: %s",
	    strerror(o.err[4]));
	cr_expect(strstr(o.info.text, "read-only") != NULL, "%s",
	    o.info.text);
	cr_expect_eq(faccessat(fx.dest, "a", F_OK, AT_SYMLINK_NOFOLLOW), -1);
	fx_end(&fx);
}

/*
 * An input by path is opened by the decoder process before it confines
 * itself: a missing one is that process's error, after both processes
 * were confined.
 */
Test(sandbox, extract_path_input, .timeout = 30)
{
	struct outcome o;
	struct fx fx;
	int status;

	fx_init(&fx);
	status = in_child(attempt_extract, &fx, 0x80000000u, &o);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	cr_expect_eq(o.err[0], PFX_FATAL);
	cr_expect_eq(o.err[1], ENOENT, "error %s", strerror(o.err[1]));
	cr_expect_eq(o.err[2], 1, "confined hook: %d", o.err[2]);
	cr_expect(o.err[3] == EACCES || (o.err[3] == EROFS &&
	    readonly_mounts(&o.info)), "write outside after the run: %s",
	    strerror(o.err[3]));
	cr_expect(strstr(o.info.text, "read-only") != NULL, "%s",
	    o.info.text);
	fx_end(&fx);
}

/*
 * pfx_root_confined(): with the kernel confining the process to the root,
 * the platform layer leaves the "still beneath?" check after each effect
 * to the kernel.  Proved here with the race that check exists for: a
 * directory moved out of the destination between the moment a file is
 * begun in it and the moment it gets its name, and one moved out before
 * anything is made in it.  The mover is a process forked before the
 * confinement, so the kernel lets it move things out; the confined
 * extractor must then make nothing under its final name outside, and say
 * so as an unconfined root does: -EXDEV.
 */
#define MOVED_OUT "moved"

/* Where the mover moves dest/d: outside/ (in dest's parent) unless this
 * is a directory descriptor. */
static int moved_to = -1;

/* Fork a process that renames dest/d to outside/moved (or to moved_to's
 * moved) when told. */
static pid_t
start_mover(struct fx *fx, int *go, int *done)
{
	int a[2], b[2];
	char c;
	pid_t pid;

	if (pipe(a) != 0 || pipe(b) != 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		(void)close(a[1]);
		(void)close(b[0]);
		if (read(a[0], &c, 1) != 1)
			_exit(1);
		c = renameat(fx->dest, "d", moved_to >= 0 ? moved_to :
		    fx->outside, MOVED_OUT) == 0 ? 0 : (char)errno;
		_exit(write(b[1], &c, 1) == 1 ? 0 : 1);
	}
	(void)close(a[0]);
	(void)close(b[1]);
	*go = a[1];
	*done = b[0];
	return pid;
}

/* Ask the mover to move dest/d out; return its errno (0: moved). */
static int
move_out(int go, int done)
{
	char c = 'm';

	if (write(go, &c, 1) != 1 || read(done, &c, 1) != 1)
		return EIO;
	return c;
}

static void
attempt_confined_root(struct fx *fx, unsigned int flags, struct outcome *o)
{
	struct pfx_pending pend;
	struct pfx_root root;
	int go = -1, done = -1, fd;
	pid_t mover;

	(void)flags;
	o->err[0] = -pfx_root_open(&root, fx->dest, ".",
	    PFX_RESOLVER_AUTO);
	fd = pfx_root_mkdirs(&root, "d/e", 0755);
	o->err[1] = fd < 0 ? -fd : 0;
	(void)close(fd);
	mover = start_mover(fx, &go, &done);
	if (mover < 0 || o->err[0] != 0)
		return;
	o->confine = pfx_sandbox_confine(root.fd, 0, &o->info);
	if (o->info.fs)
		pfx_root_confined(&root);
	/* A file begun in d, its directory moved out before it is named. */
	o->err[2] = -pfx_root_begin(&root, "d/f1", 0644, &pend);
	if (o->err[2] == 0) {
		o->err[3] = write(pend.fd, "x\n", 2) == 2 ? 0 : errno;
		o->err[4] = move_out(go, done);
		o->err[5] = -pfx_root_commit(&root, &pend, PFX_ROOT_REPLACE);
	}
	/* Then effects in the moved directory through a descriptor held
	 * from before: the kernel, not our check, refuses them. */
	fd = openat(moved_to >= 0 ? moved_to : fx->outside, MOVED_OUT,
	    O_RDONLY | O_DIRECTORY);
	o->err[6] = fd >= 0 ? ok_fd(openat(fd, "f2", O_WRONLY | O_CREAT |
	    O_EXCL | O_CLOEXEC, 0644)) : errno;
	o->err[7] = fd >= 0 ? ok(mkdirat(fd, "g", 0755)) : errno;
	(void)close(fd);
	/* And the same names through the root: d is gone from it now. */
	o->err[8] = -pfx_root_begin(&root, "d/f3", 0644, &pend);
	if (o->err[8] == 0)
		pfx_root_abort(&pend);
	(void)close(go);
	(void)close(done);
	(void)waitpid(mover, NULL, 0);
	pfx_root_close(&root);
}

/* Return: 1 if DIRFD/NAME holds an entry not named ".pfx-*.tmp". */
static int
holds_non_temporary(int dirfd, const char *name)
{
	char **names = NULL;
	ssize_t n, i;
	int found = 0;

	n = tfx_read_names(dirfd, name, &names);
	cr_assert(n >= 0, "list %s: %s", name, strerror(errno));
	for (i = 0; i < n; i++) {
		if (strcmp(names[i], "e") != 0 &&
		    strncmp(names[i], ".pfx-", 5) != 0)
			found = 1;
		free(names[i]);
	}
	free(names);
	return found;
}

Test(sandbox, confined_root_moved_out, .timeout = 30)
{
	char moved[1100], *now;
	struct outcome o;
	struct fx fx;
	int status;

	fx_init(&fx);
	status = in_child(attempt_confined_root, &fx, 0, &o);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	cr_assert_eq(o.err[0], 0, "root: %s", strerror(o.err[0]));
	cr_assert_eq(o.err[1], 0, "mkdirs: %s", strerror(o.err[1]));
	cr_assert_eq(o.confine, 0, "confine: %s", strerror(-o.confine));
	cr_assert(o.info.fs, "%s", o.info.text);
	cr_assert_eq(o.err[2], 0, "begin: %s", strerror(o.err[2]));
	cr_assert_eq(o.err[3], 0, "write: %s", strerror(o.err[3]));
	cr_assert_eq(o.err[4], 0, "move out: %s", strerror(o.err[4]));
	/* Refused by the kernel (EACCES), reported as the escape it is. */
	cr_expect_eq(o.err[5], EXDEV, "commit in a moved-out directory: %s",
	    o.err[5] == 0 ? "it worked" : strerror(o.err[5]));
	cr_expect_eq(o.err[6], EACCES, "create there: %s",
	    o.err[6] == 0 ? "it worked" : strerror(o.err[6]));
	cr_expect_eq(o.err[7], EACCES, "mkdir there: %s",
	    o.err[7] == 0 ? "it worked" : strerror(o.err[7]));
	cr_expect_eq(o.err[8], ENOENT, "begin after the move: %s",
	    o.err[8] == 0 ? "it worked" : strerror(o.err[8]));
	/* Nothing got a name outside; the temporary begun before the move
	 * is all there is (the kernel refuses its removal too). */
	cr_expect(!holds_non_temporary(fx.outside, MOVED_OUT),
	    "a file was named outside the destination");
	cr_expect_eq(faccessat(fx.dest, "d", F_OK, AT_SYMLINK_NOFOLLOW), -1);
	snprintf(moved, sizeof(moved), "%s/outside/" MOVED_OUT, fx.path);
	cr_assert(tfx_rm_tree(moved) == 0);
	/* outside/ itself changed (the mover went through it): compare
	 * what it holds, then let fx_end() compare the rest. */
	now = tfx_snapshot(fx.outside, 0);
	tfx_expect_same_snapshot("sandbox", "outside's files",
	    strchr(fx.snap_outside, '\n'), strchr(now, '\n'));
	free(fx.snap_outside);
	fx.snap_outside = now;
	fx_end(&fx);
}

/*
 * The same, the directory moved farther: out of the tree of dest's parent,
 * where the confined writer's writable mount is rooted (view_linux.c).
 * Its ".." then says ENOENT, and the check that tells an escape from a
 * refusal took that for an error: d/f1 was reported as "permission
 * denied" where an unconfined run, or a move beside dest, says it
 * escaped the root.
 */
Test(sandbox, confined_root_moved_out_of_parent, .timeout = 30)
{
	char far[PATH_MAX], moved[PATH_MAX + 16];
	const char *tmp = getenv("TMPDIR");
	struct outcome o;
	struct fx fx;
	int status;

	fx_init(&fx);
	(void)snprintf(far, sizeof(far), "%s/pfx-far.XXXXXX",
	    tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
	cr_assert(mkdtemp(far) != NULL);
	moved_to = open(far, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert(moved_to >= 0);
	status = in_child(attempt_confined_root, &fx, 0, &o);
	(void)close(moved_to);
	moved_to = -1;
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	cr_assert_eq(o.confine, 0, "confine: %s", strerror(-o.confine));
	cr_assert_eq(o.err[2], 0, "begin: %s", strerror(o.err[2]));
	cr_assert_eq(o.err[4], 0, "move out: %s", strerror(o.err[4]));
	cr_expect_eq(o.err[5], EXDEV, "commit in a directory moved out of "
	    "dest's parent: %s (%s)", o.err[5] == 0 ? "it worked" :
	    strerror(o.err[5]), o.info.text);
	cr_expect(o.err[6] == EACCES || o.err[6] == EROFS, "create there: %s",
	    o.err[6] == 0 ? "it worked" : strerror(o.err[6]));
	cr_expect(o.err[7] == EACCES || o.err[7] == EROFS, "mkdir there: %s",
	    o.err[7] == 0 ? "it worked" : strerror(o.err[7]));
	(void)snprintf(moved, sizeof(moved), "%s/" MOVED_OUT, far);
	cr_expect(!holds_non_temporary(AT_FDCWD, moved),
	    "a file was named outside the destination");
	cr_assert(tfx_rm_tree(far) == 0);
	fx_end(&fx);
}

/*
 * Confined, a directory moved out of the root and one the process may not
 * write to both give EACCES; only the first is an escape (-EXDEV).  The
 * second, proved here, stays -EACCES, and an extraction into it stays a
 * fatal I/O error: a user without the right to write in dest/sub (the
 * child drops to nobody, which can write only in dest/w, its own) meets
 * it directly, and through a parent kept from an earlier file once
 * dest/w is made read-only.
 *
 *	dest/
 *	|-- sub/		root's, 0755
 *	`-- w/			nobody's; 0555 after w/f1
 */
#define NOBODY 65534

/* Extract an archive of sub/f with PFX_OPT_SANDBOX: status, error. */
static void
extract_into_sub(struct fx *fx, struct outcome *o, int at)
{
	static char buf[ARCHIVE_CAP];
	struct archive *a = archive_write_new();
	struct archive_entry *e = archive_entry_new();
	struct pfx_options opt;
	struct pfx_result res;
	struct pfx_input in;
	size_t used = 0;

	if (a == NULL || e == NULL ||
	    archive_write_set_format_ustar(a) != ARCHIVE_OK ||
	    archive_write_open_memory(a, buf, sizeof(buf), &used) !=
	    ARCHIVE_OK)
		return;
	archive_entry_set_pathname(e, "sub/f");
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, 0644);
	archive_entry_set_size(e, 2);
	if (archive_write_header(a, e) != ARCHIVE_OK ||
	    archive_write_data(a, "x\n", 2) != 2 ||
	    archive_write_close(a) != ARCHIVE_OK)
		return;
	archive_entry_free(e);
	archive_write_free(a);
	memset(&in, 0, sizeof(in));
	in.fd = -1;
	in.buf = buf;
	in.len = used;
	pfx_options_init(&opt);
	opt.flags |= PFX_OPT_SANDBOX | PFX_OPT_SANDBOX_REQUIRE;
	o->err[at] = (int)pfx_extract(&in, fx->dest, ".", &opt, &res);
	o->err[at + 1] = res.error;
}

static void
attempt_read_only(struct fx *fx, unsigned int flags, struct outcome *o)
{
	struct pfx_parent_cache cache;
	struct pfx_pending pend;
	struct pfx_root root;
	int fd, r;

	(void)flags;
	if (setresgid(NOBODY, NOBODY, NOBODY) != 0 ||
	    setresuid(NOBODY, NOBODY, NOBODY) != 0)
		return;
	/* In-process confinement first: the extraction adds its own. */
	extract_into_sub(fx, o, 6);
	o->err[0] = -pfx_root_open(&root, fx->dest, ".", PFX_RESOLVER_AUTO);
	if (o->err[0] != 0)
		return;
	pfx_root_confined(&root);	/* the extraction confined us */
	o->err[1] = -pfx_root_begin(&root, "sub/f", 0644, &pend);
	fd = pfx_root_create(&root, "sub/g", 0644);
	o->err[2] = fd < 0 ? -fd : 0;
	fd = pfx_root_mkdirs(&root, "sub/h", 0755);
	o->err[3] = fd < 0 ? -fd : 0;
	pfx_parent_cache_init(&cache);
	r = pfx_root_begin_cached(&root, &cache, "w/f1", 0644, &pend);
	o->err[4] = r < 0 ? -r : -pfx_root_commit(&root, &pend, 0);
	if (o->err[4] == 0 && fchmodat(fx->dest, "w", 0555, 0) == 0)
		o->err[5] = -pfx_root_begin_cached(&root, &cache, "w/f2",
		    0644, &pend);
	pfx_parent_cache_drop(&cache);
	pfx_root_close(&root);
}

Test(sandbox, confined_read_only_stays_eacces, .timeout = 30)
{
	struct outcome o;
	struct fx fx;
	int status, i;

	fx_init(&fx);
	cr_assert(mkdirat(fx.dest, "w", 0755) == 0);
	cr_assert(fchownat(fx.dest, "w", NOBODY, NOBODY, 0) == 0,
	    "chown: %s", strerror(errno));
	status = in_child(attempt_read_only, &fx, 0, &o);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	cr_expect_eq(o.err[6], PFX_FATAL, "extract into sub/: status %d",
	    o.err[6]);
	cr_expect_eq(o.err[7], EACCES, "extract into sub/: %s",
	    strerror(o.err[7]));
	cr_assert_eq(o.err[0], 0, "root: %s", strerror(o.err[0]));
	for (i = 1; i <= 3; i++)
		cr_expect_eq(o.err[i], EACCES, "attempt %d in sub/: %s", i,
		    o.err[i] == 0 ? "it worked" : strerror(o.err[i]));
	cr_expect_eq(o.err[4], 0, "w/f1: %s", strerror(o.err[4]));
	cr_expect_eq(o.err[5], EACCES, "w/f2 through the kept w/: %s",
	    o.err[5] == 0 ? "it worked" : strerror(o.err[5]));
	cr_expect_eq(faccessat(fx.dest, "sub/f", F_OK, AT_SYMLINK_NOFOLLOW),
	    -1);
	fx_end(&fx);
}

/* --- a directory moved out of the destination mid-run ----------------- */

/*
 * pfx_extract() when a directory it works in is moved out of the
 * destination, in every configuration: both resolvers, unconfined, with
 * PFX_OPT_SANDBOX and with PFX_OPT_SANDBOX_CHILD.  Confined, the kernel
 * refuses what is made in the moved directory (EACCES) where unconfined
 * the platform layer makes it and takes it back (EXDEV); the run must not
 * tell the two apart.  The extraction runs in a forked process (its
 * confinement must not reach the test runner), reading the archive from
 * a pipe that this process fills; this process moves dest/d to
 * outside/moved at one of two moments, and the outcome must be the same
 * in all six configurations:
 *
 *  - while d/big is being written: d/big was begun in d and is named
 *    after d left, so it is refused (escapes_root) and the run goes on,
 *    PFX_REFUSED; d/after, later, finds no d and makes a new one;
 *  - at decide() for d/f2, after d/f1 was made in d: d/f2 finds no d and
 *    makes a new one (a descriptor of d kept from d/f1 changes nothing),
 *    PFX_OK.
 *
 * Either way nothing appears in the moved directory once it is out.
 *
 *	$TMPDIR/pfx-sandbox.XXXXXX/
 *	|-- dest/		the destination
 *	|   |-- d/		moved to outside/moved, then made again
 *	|   `-- ...
 *	`-- outside/
 *	    `-- moved/		watched from the moment it arrives
 */
#define BIG_SIZE 400000		/* more than one pipe's worth */
#define BIG_CUT 150000		/* the bytes of d/big sent before the move */
#define MAX_REPORTS 16

enum move_when {
	MOVE_WHILE_WRITING,	/* while d/big's data is awaited */
	MOVE_AT_DECIDE		/* when decide() is asked about d/f2 */
};

struct mv_config {
	const char *name;
	enum pfx_resolver resolver;
	unsigned int flags;	/* 0, PFX_OPT_SANDBOX or _SANDBOX_CHILD */
};

/* What the extracting process sends back. */
struct mv_outcome {
	int status, error, sandbox_fs;
	char message[512];
	int nreports;
	struct {
		char name[32];
		char reason[32];
		int status;
	} reports[MAX_REPORTS];
};

/* The extracting process's side: where decide() signals. */
struct mv_run {
	struct mv_outcome out;
	int go, done;		/* decide() asks the move, waits for it */
	const char *trigger;	/* the entry decide() moves at, or NULL */
};

static void
mv_report(void *arg, const struct pfx_entry *e)
{
	struct mv_run *run = arg;
	int i = run->out.nreports;

	if (i >= MAX_REPORTS)
		return;
	snprintf(run->out.reports[i].name, sizeof(run->out.reports[i].name),
	    "%s", e->name);
	snprintf(run->out.reports[i].reason,
	    sizeof(run->out.reports[i].reason), "%s", e->reason);
	run->out.reports[i].status = (int)e->status;
	run->out.nreports++;
}

static int
mv_decide(void *arg, const struct pfx_entry *e, char *rename, size_t cap)
{
	struct mv_run *run = arg;
	char c = 'm';

	(void)rename;
	(void)cap;
	if (run->trigger != NULL && strcmp(e->name, run->trigger) == 0 &&
	    (write(run->go, &c, 1) != 1 || read(run->done, &c, 1) != 1))
		return PFX_HOOK_ABORT;
	return PFX_HOOK_CONTINUE;
}

/* Append a file entry NAME of SIZE bytes (a pattern) to archive A. */
static void
mv_add_file(struct archive *a, const char *name, size_t size)
{
	static char data[BIG_SIZE];
	struct archive_entry *e = archive_entry_new();
	size_t i;

	for (i = 0; i < size; i++)
		data[i] = (char)('a' + i % 26);
	archive_entry_set_pathname(e, name);
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, 0644);
	archive_entry_set_size(e, (la_int64_t)size);
	cr_assert(archive_write_header(a, e) == ARCHIVE_OK);
	cr_assert(archive_write_data(a, data, size) == (la_ssize_t)size);
	archive_entry_free(e);
}

/*
 * The archive for WHEN in BUF (CAP bytes); *CUT is where d/big's data
 * is cut in two (MOVE_WHILE_WRITING), else the whole length.
 * Return: its length.
 */
static size_t
mv_archive(enum move_when when, char *buf, size_t cap, size_t *cut)
{
	struct archive *a = archive_write_new();
	struct archive_entry *e;
	size_t used = 0, off;

	cr_assert(a != NULL);
	cr_assert(archive_write_set_format_ustar(a) == ARCHIVE_OK);
	cr_assert(archive_write_open_memory(a, buf, cap, &used) ==
	    ARCHIVE_OK);
	if (when == MOVE_WHILE_WRITING) {
		mv_add_file(a, "a/first", 6);
		e = archive_entry_new();
		archive_entry_set_pathname(e, "d/");
		archive_entry_set_filetype(e, AE_IFDIR);
		archive_entry_set_perm(e, 0755);
		cr_assert(archive_write_header(a, e) == ARCHIVE_OK);
		archive_entry_free(e);
		mv_add_file(a, "d/big", BIG_SIZE);
		mv_add_file(a, "d/after", 6);
		mv_add_file(a, "e/g", 6);
	} else {
		mv_add_file(a, "d/f1", 3);
		mv_add_file(a, "d/f2", 3);
		mv_add_file(a, "d/f3", 3);
		mv_add_file(a, "g", 2);
	}
	cr_assert(archive_write_close(a) == ARCHIVE_OK);
	archive_write_free(a);
	*cut = used;
	for (off = 0; when == MOVE_WHILE_WRITING && off < used; off += 512)
		if (memcmp(buf + off, "d/big", 6) == 0)
			*cut = off + 512 + BIG_CUT;
	cr_assert(*cut < used || when == MOVE_AT_DECIDE);
	return used;
}

/* The extracting process: extract from IN, send the outcome to OUT. */
static void
mv_extract(struct fx *fx, const struct mv_config *cf, int in, int out,
    struct mv_run *run)
{
	struct pfx_options opt;
	struct pfx_result res;
	struct pfx_input input;

	pfx_options_init(&opt);
	opt.flags |= cf->flags;
	if (cf->flags != 0)
		opt.flags |= PFX_OPT_SANDBOX_REQUIRE;
	opt.resolver = cf->resolver;
	opt.hooks.report = mv_report;
	opt.hooks.decide = mv_decide;
	opt.hooks.arg = run;
	memset(&input, 0, sizeof(input));
	input.fd = in;
	(void)pfx_extract(&input, fx->dest, ".", &opt, &res);
	run->out.status = (int)res.status;
	run->out.error = res.error;
	run->out.sandbox_fs = res.sandbox.fs;
	snprintf(run->out.message, sizeof(run->out.message), "%s",
	    res.message);
	_exit(write(out, &run->out, sizeof(run->out)) ==
	    (ssize_t)sizeof(run->out) ? 0 : 3);
}

/* Does process PID hold a file made beneath DIR (a path), unnamed or
 * under a temporary name, that is, one being written? */
static bool
mv_pid_writing(pid_t pid, const char *dir)
{
	char path[64], link[2048];
	struct dirent *de;
	size_t n = strlen(dir);
	const char *tail = dir + n;
	ssize_t len;
	bool found = false;
	DIR *d;

	/* "/DEST/d" of ".../DEST/d". */
	while (tail > dir && *--tail != '/')
		continue;
	while (tail > dir && *--tail != '/')
		continue;
	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	d = opendir(path);
	if (d == NULL)
		return false;
	while (!found && (de = readdir(d)) != NULL) {
		snprintf(path, sizeof(path), "/proc/%d/fd/%.20s", (int)pid,
		    de->d_name);
		len = readlink(path, link, sizeof(link) - 1);
		if (len <= (ssize_t)strlen(tail))
			continue;
		link[len] = '\0';
		/* With read-only mounts around it, the writer's files are on
		 * a mount tree of its own, rooted at DEST's parent: their
		 * paths, seen from here, start at DEST's name. */
		found = ((strncmp(link, dir, n) == 0 && link[n] == '/') ||
		    (strncmp(link, tail, strlen(tail)) == 0 &&
		    link[strlen(tail)] == '/')) &&
		    (strstr(link, " (deleted)") != NULL ||
		    strstr(link, "/.pfx-") != NULL);
	}
	(void)closedir(d);
	return found;
}

/* Is PID, or a child of it (PFX_OPT_SANDBOX_CHILD's), writing in DIR? */
static bool
mv_writing(pid_t pid, const char *dir)
{
	char path[64];
	bool found;
	FILE *f;
	int kid;

	if (mv_pid_writing(pid, dir))
		return true;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid,
	    (int)pid);
	f = fopen(path, "r");
	if (f == NULL)
		return false;
	found = false;
	while (!found && fscanf(f, "%d", &kid) == 1)
		found = mv_pid_writing((pid_t)kid, dir);
	(void)fclose(f);
	return found;
}

static void
mv_write_all(int fd, const char *buf, size_t len)
{
	ssize_t n;

	while (len > 0) {
		n = write(fd, buf, len);
		cr_assert(n > 0, "write the archive: %s", strerror(errno));
		buf += n;
		len -= (size_t)n;
	}
}

/*
 * Move dest/d to outside/moved, and take a snapshot of what it holds
 * then.  Not of the directory itself: unconfined, the platform layer
 * makes d/big there and takes it back, which changes its times.
 */
static char *
mv_move(struct fx *fx, const struct mv_config *cf)
{
	char *snap;
	int fd;

	cr_assert(renameat(fx->dest, "d", fx->outside, MOVED_OUT) == 0,
	    "[%s] move d out: %s", cf->name, strerror(errno));
	fd = open_dir(fx->outside, MOVED_OUT);
	snap = tfx_snapshot(fd, TFX_SNAP_NO_TOP);
	(void)close(fd);
	return snap;
}

/*
 * Extract WHEN's archive with CF, moving dest/d out as WHEN says, into
 * *OUT; *SNAP is what the moved directory held right after the move.
 */
static void
mv_run(struct fx *fx, const struct mv_config *cf, enum move_when when,
    struct mv_outcome *out, char **snap)
{
	static char buf[2 * BIG_SIZE];
	struct mv_run run;
	char dest[1024], proc[64], c;
	int in[2], res[2], go[2], done[2], i;
	size_t len, cut, got = 0;
	ssize_t n;
	pid_t pid;
	int status;

	len = mv_archive(when, buf, sizeof(buf), &cut);
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fx->dest);
	n = readlink(proc, dest, sizeof(dest) - 1);
	cr_assert(n > 0);
	dest[n] = '\0';
	/* What is watched for: d/big begun, in d, not a/first in a. */
	strncat(dest, "/d", sizeof(dest) - strlen(dest) - 1);
	cr_assert(pipe2(in, O_CLOEXEC) == 0 && pipe2(res, O_CLOEXEC) == 0 &&
	    pipe2(go, O_CLOEXEC) == 0 && pipe2(done, O_CLOEXEC) == 0);
	pid = fork();
	cr_assert(pid != -1, "fork: %s", strerror(errno));
	if (pid == 0) {
		(void)close(in[1]);
		(void)close(res[0]);
		(void)close(go[0]);
		(void)close(done[1]);
		memset(&run, 0, sizeof(run));
		run.go = go[1];
		run.done = done[0];
		run.trigger = when == MOVE_AT_DECIDE ? "d/f2" : NULL;
		mv_extract(fx, cf, in[0], res[1], &run);
	}
	(void)close(in[0]);
	(void)close(res[1]);
	(void)close(go[1]);
	(void)close(done[0]);
	*snap = NULL;
	if (when == MOVE_WHILE_WRITING) {
		mv_write_all(in[1], buf, cut);
		/* Polled, but for a state, not a time: d/big begun in d. */
		for (i = 0; i < 2000 && !mv_writing(pid, dest); i++)
			(void)usleep(5000);
		cr_assert(i < 2000, "[%s] d/big never began", cf->name);
		*snap = mv_move(fx, cf);
		mv_write_all(in[1], buf + cut, len - cut);
	} else {
		mv_write_all(in[1], buf, len);	/* fits in the pipe */
		if (read(go[0], &c, 1) == 1) {
			*snap = mv_move(fx, cf);
			cr_assert(write(done[1], &c, 1) == 1);
		}
	}
	(void)close(in[1]);
	memset(out, 0, sizeof(*out));
	while (got < sizeof(*out) && (n = read(res[0], (char *)out + got,
	    sizeof(*out) - got)) > 0)
		got += (size_t)n;
	(void)close(res[0]);
	(void)close(go[0]);
	(void)close(done[1]);
	cr_assert(waitpid(pid, &status, 0) == pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
	    got == sizeof(*out), "[%s] the extracting process failed: %#x",
	    cf->name, status);
	cr_assert(*snap != NULL, "[%s] decide() never asked for the move",
	    cf->name);
}

/* Expect the report of NAME to say STATUS and REASON. */
static void
mv_expect(const struct mv_config *cf, const struct mv_outcome *o,
    const char *name, enum pfx_entry_status status, const char *reason)
{
	int i;

	for (i = 0; i < o->nreports; i++)
		if (strcmp(o->reports[i].name, name) == 0)
			break;
	cr_assert(i < o->nreports, "[%s] no report of %s", cf->name, name);
	cr_expect(o->reports[i].status == (int)status &&
	    strcmp(o->reports[i].reason, reason) == 0,
	    "[%s] %s: %s %s, expected %s %s", cf->name, name,
	    pfx_entry_status_name((enum pfx_entry_status)
	    o->reports[i].status), o->reports[i].reason,
	    pfx_entry_status_name(status), reason);
}

/* Expect dest/NAME to be a regular file of SIZE bytes. */
static void
mv_expect_file(struct fx *fx, const struct mv_config *cf, const char *name,
    off_t size)
{
	struct stat st;

	cr_expect(fstatat(fx->dest, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISREG(st.st_mode) && st.st_size == size,
	    "[%s] dest/%s missing or not %lld bytes", cf->name, name,
	    (long long)size);
}

/*
 * After the run: the moved directory holds what it held right after the
 * move (SNAP); then it is removed, and outside/ must hold what it held
 * before (fx_end() compares sibling/ too).
 */
static void
mv_end(struct fx *fx, const struct mv_config *cf, char *snap)
{
	char moved[1100], *now;
	int fd;

	fd = open_dir(fx->outside, MOVED_OUT);
	now = tfx_snapshot(fd, TFX_SNAP_NO_TOP);
	(void)close(fd);
	tfx_expect_same_snapshot(cf->name, "the moved directory", snap, now);
	free(now);
	free(snap);
	snprintf(moved, sizeof(moved), "%s/outside/" MOVED_OUT, fx->path);
	cr_assert(tfx_rm_tree(moved) == 0);
	now = tfx_snapshot(fx->outside, 0);
	tfx_expect_same_snapshot(cf->name, "outside's files",
	    strchr(fx->snap_outside, '\n'), strchr(now, '\n'));
	free(fx->snap_outside);
	fx->snap_outside = now;
	fx_end(fx);
}

static void
mv_expect_sandbox(const struct mv_config *cf, const struct mv_outcome *o)
{
	cr_expect_eq(o->sandbox_fs, cf->flags != 0, "[%s] sandbox fs %d",
	    cf->name, o->sandbox_fs);
}

/* A file whose directory leaves the destination while it is written. */
static void
moved_while_writing(const struct mv_config *cf)
{
	struct mv_outcome o;
	struct fx fx;
	char *snap;

	fx_init(&fx);
	mv_run(&fx, cf, MOVE_WHILE_WRITING, &o, &snap);
	cr_expect_eq(o.status, PFX_REFUSED, "[%s] status %d, error %s: %s",
	    cf->name, o.status, strerror(o.error), o.message);
	mv_expect_sandbox(cf, &o);
	cr_expect_eq(o.nreports, 5, "[%s] %d reports", cf->name, o.nreports);
	mv_expect(cf, &o, "a/first", PFX_ENTRY_EXTRACTED, "none");
	mv_expect(cf, &o, "d/", PFX_ENTRY_EXTRACTED, "none");
	mv_expect(cf, &o, "d/big", PFX_ENTRY_REFUSED, "escapes_root");
	mv_expect(cf, &o, "d/after", PFX_ENTRY_EXTRACTED, "none");
	mv_expect(cf, &o, "e/g", PFX_ENTRY_EXTRACTED, "none");
	mv_expect_file(&fx, cf, "a/first", 6);
	mv_expect_file(&fx, cf, "d/after", 6);
	mv_expect_file(&fx, cf, "e/g", 6);
	cr_expect(faccessat(fx.dest, "d/big", F_OK, AT_SYMLINK_NOFOLLOW) ==
	    -1, "[%s] d/big made in the new d", cf->name);
	mv_end(&fx, cf, snap);
}

/* The directory of the last file leaves between two files. */
static void
moved_at_decide(const struct mv_config *cf)
{
	struct mv_outcome o;
	struct fx fx;
	char *snap;

	fx_init(&fx);
	mv_run(&fx, cf, MOVE_AT_DECIDE, &o, &snap);
	cr_expect_eq(o.status, PFX_OK, "[%s] status %d, error %s: %s",
	    cf->name, o.status, strerror(o.error), o.message);
	mv_expect_sandbox(cf, &o);
	cr_expect_eq(o.nreports, 4, "[%s] %d reports", cf->name, o.nreports);
	mv_expect(cf, &o, "d/f1", PFX_ENTRY_EXTRACTED, "none");
	mv_expect(cf, &o, "d/f2", PFX_ENTRY_EXTRACTED, "none");
	mv_expect(cf, &o, "d/f3", PFX_ENTRY_EXTRACTED, "none");
	mv_expect(cf, &o, "g", PFX_ENTRY_EXTRACTED, "none");
	mv_expect_file(&fx, cf, "d/f2", 3);
	mv_expect_file(&fx, cf, "d/f3", 3);
	mv_expect_file(&fx, cf, "g", 2);
	mv_end(&fx, cf, snap);
}

#define MOVED_TESTS(id, resolver, flags)				\
	Test(sandbox, moved_while_writing_##id, .timeout = 60)		\
	{								\
		static const struct mv_config cf = { #id, resolver,	\
		    flags };						\
		moved_while_writing(&cf);				\
	}								\
	Test(sandbox, moved_at_decide_##id, .timeout = 60)		\
	{								\
		static const struct mv_config cf = { #id, resolver,	\
		    flags };						\
		moved_at_decide(&cf);					\
	}

MOVED_TESTS(walk_unconfined, PFX_RESOLVER_WALK, 0)
MOVED_TESTS(openat2_unconfined, PFX_RESOLVER_OPENAT2, 0)
MOVED_TESTS(walk_sandbox, PFX_RESOLVER_WALK, PFX_OPT_SANDBOX)
MOVED_TESTS(openat2_sandbox, PFX_RESOLVER_OPENAT2, PFX_OPT_SANDBOX)
MOVED_TESTS(walk_sandbox_child, PFX_RESOLVER_WALK, PFX_OPT_SANDBOX_CHILD)
MOVED_TESTS(openat2_sandbox_child, PFX_RESOLVER_OPENAT2,
    PFX_OPT_SANDBOX_CHILD)
