/*
 * hostile.c -- a decoder process taken over, for the hostile test build
 * (obj/hostile/, built with -DPFX_HOSTILE_TEST; tests/hostile.sh).
 *
 * child.c calls xtr_hostile() right after the decoder process confined
 * itself and sent CONFINED: from there on this file is the attacker,
 * with the rights an exploit of libarchive or a decompressor would have.
 * The environment variable PFX_HOSTILE names what it does, with an
 * argument after ':':
 *
 *	fds		chmod, chown, write, truncate, set xattrs, file
 *			flags (chattr) and status flags (O_NONBLOCK) on,
 *			send on, push keys (TIOCSTI) into and read from every
 *			descriptor 0..1023 but its socket, and the
 *			controlling terminal; write into the caller's
 *			shared mapping of a file (PFX_HOSTILE_MAP); return
 *	setid:N[,E...]	create N set-id (open, mkdir), chmod and chown
 *			each existing E by absolute path; return
 *	hardlink:P	open P (a hard link to an outside file) for
 *			appending and write, truncate it; return
 *	fork:P		fork, vfork and clone; each child made leaves the
 *			process group, ignores SIGTERM, sleeps 2 s, then
 *			appends to P, chmods it 04755 and chowns it; return
 *	signal		kill(getppid(), 0) and SIGSTOP; return
 *	sched		lower its parent's CPU and I/O priority, move it
 *			to SCHED_IDLE, pin it to one CPU; if any of it
 *			works, send a FORGED entry; return
 *	rt		raise its own priority over its user's other
 *			processes: real-time scheduling (SCHED_FIFO),
 *			nice -20, the real-time I/O class; if any of it
 *			works, send a FORGED entry; back to its own; return
 *	silent		ignore SIGTERM, sleep forever
 *	orphan		untie itself from its parent's death (PDEATHSIG),
 *			leave its process group (setpgid, setsid), ignore
 *			SIGTERM, sleep forever: with a relay (a socket on
 *			stdin) its parent is the relay, which SIGTERM ends
 *			(tests/hostile_stdio.py)
 *	spin		ignore SIGTERM, loop on the CPU sending nothing
 *	threads		start threads (32 KiB stacks) until refused, up to
 *			2,000; if more than 1,000 came, send a THREADED
 *			entry; let them go; return
 *	hog		raise its memory limit, then allocate 4 GiB; if that
 *			works, send a FORGED entry; free it all; return
 *	hoard:HOW	hold 1 GiB that RLIMIT_DATA does not count: HOW is
 *			shared (an anonymous MAP_SHARED mapping), memfd,
 *			sysv (a System V segment), sockets (bytes queued in
 *			socket pairs) or pipes (bytes queued in pipes); if
 *			it all came, send a FORGED entry; let it all go;
 *			return
 *	hold		take an exclusive flock(2) on every descriptor but
 *			its socket (the archive: others who lock it wait),
 *			and reserve the system's asynchronous I/O events
 *			(io_setup: others' fail); if any of it works, send a
 *			FORGED entry; return
 *	ipc		write FORGED into every System V shared memory
 *			segment it can attach (another process's memory:
 *			the script's), and leave a segment, a message queue,
 *			a semaphore set and a POSIX message queue behind;
 *			return
 *	linger		ignore SIGTERM, send a valid END, sleep forever
 *	urgent		ignore SIGTERM, send one byte out of band (MSG_OOB:
 *			the stream's reader skips it), sleep forever
 *	lies:N		send message N of lie(), then sleep forever
 *			(SIGTERM ignored); 8 and 9 are archive names,
 *			not lies: a valid entry, END, exit
 *	empty		disarm the stall timer, then a file's header and
 *			empty DATA blocks without end, each well-formed
 *			(SIGTERM ignored)
 *	raw		a file's header and 96 MiB of zeros, each
 *			message claiming 2^62 archive bytes read (a
 *			bomb that says its input is huge); END, exit
 *
 * Nothing here may report what happened: the process can write nothing
 * (its stdio is /dev/null).  tests/hostile.sh judges the outcome from
 * outside: what changed, what the parent said, how long it took.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sys/ioctl.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <sys/xattr.h>

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <linux/fs.h>
#include <mqueue.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "child.h"
#include "wire.h"

/* What the spin case counts, so that its loop is not optimised away. */
static volatile unsigned long spun;

#define FORGED "FORGED\n"
#define FORGED_LEN 7

/* An outside user: what a chown would give a file. */
#define NOBODY 65534

static void
ignore_term(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	(void)sigaction(SIGTERM, &sa, NULL);
}

static void __attribute__((noreturn))
sleep_forever(void)
{
	for (;;)
		(void)pause();
}

/* Push FORGED into the terminal FD's input, as if typed: the user's
 * shell would run it once pfextract exits. */
static void
push_keys(int fd)
{
	const char *k;

	for (k = FORGED; *k != '\0'; k++)
		(void)ioctl(fd, TIOCSTI, k);
}

/*
 * The memory the caller shares with a file (hostile_lib maps the file
 * it holds, MAP_SHARED, and says where in PFX_HOSTILE_MAP: an exploit
 * finds it in its copy of the caller's memory): made writable again if
 * need be, and FORGED written into it, which writes the file.  Probed
 * first (madvise says ENOMEM where nothing is mapped), not faulted on.
 */
static void
harm_shared(void)
{
	const char *v = getenv("PFX_HOSTILE_MAP");
	unsigned long addr;
	void *p;

	if (v == NULL || sscanf(v, "%lx", &addr) != 1)
		return;
	p = (void *)addr;
	if (madvise(p, 4096, MADV_NORMAL) != 0)
		return;
	(void)mprotect(p, 4096, PROT_READ | PROT_WRITE);
	memcpy(p, FORGED, FORGED_LEN);
}

/*
 * The file's attribute flags (chattr(1)) and its fsxattr flags, set
 * through FD, which may be open read-only: the kernel asks only that the
 * caller own the file.  No-dump and no-atime here; append-only and
 * immutable are as open to root.
 */
static void
set_file_flags(int fd)
{
	struct fsxattr fa;
	int fl = 0;

	if (ioctl(fd, FS_IOC_GETFLAGS, &fl) == 0) {
		fl |= FS_NODUMP_FL | FS_NOATIME_FL;
		(void)ioctl(fd, FS_IOC_SETFLAGS, &fl);
	}
	memset(&fa, 0, sizeof(fa));
	if (ioctl(fd, FS_IOC_FSGETXATTR, &fa) == 0) {
		fa.fsx_xflags |= FS_XFLAG_NODUMP | FS_XFLAG_NOATIME;
		(void)ioctl(fd, FS_IOC_FSSETXATTR, &fa);
	}
}

/* Every harm that can be done through a descriptor, on 0..1023, and
 * through the controlling terminal, if there still is one; and through
 * memory shared with the caller. */
static void
harm_fds(int self)
{
	char buf[4096];
	int fd;

	harm_shared();

	fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fd >= 0) {
		push_keys(fd);
		(void)!write(fd, FORGED, FORGED_LEN);
		(void)close(fd);
	}
	for (fd = 0; fd < 1024; fd++) {
		if (fd == self)
			continue;
		push_keys(fd);
		(void)fchmod(fd, 04777);
		(void)fchown(fd, NOBODY, NOBODY);
		(void)!write(fd, FORGED, FORGED_LEN);
		(void)ftruncate(fd, 0);
		(void)fsetxattr(fd, "user.pwn", FORGED, FORGED_LEN, 0);
		set_file_flags(fd);
		/* Status flags belong to the open file description, which a
		 * pipe's read end shares with whoever gave it. */
		(void)fcntl(fd, F_SETFL, O_NONBLOCK | O_APPEND);
		(void)send(fd, FORGED, FORGED_LEN, MSG_DONTWAIT |
		    MSG_NOSIGNAL);
		(void)recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
	}
}

/* Set-id, by path: the first name is made, the others changed.  A name
 * may be a glob(3) pattern (a staging directory's random name). */
static void
harm_setid(char *list)
{
	char *name, *save = NULL;
	glob_t g;
	size_t i;
	bool first = true;
	int fd;

	for (name = strtok_r(list, ",", &save); name != NULL;
	    name = strtok_r(NULL, ",", &save), first = false) {
		if (glob(name, GLOB_NOCHECK, NULL, &g) != 0)
			continue;
		for (i = 0; i < g.gl_pathc; i++) {
			const char *p = g.gl_pathv[i];

			if (first) {
				fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC,
				    04755);
				if (fd >= 0) {
					(void)fchmod(fd, 04755);
					(void)close(fd);
				}
				(void)mkdir(p, 02755);
			}
			(void)chmod(p, 04755);
			(void)chown(p, NOBODY, NOBODY);
			(void)lchown(p, NOBODY, NOBODY);
		}
		globfree(&g);
	}
}

/* Through a hard link to an outside file. */
static void
harm_hardlink(const char *path)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);

	if (fd >= 0) {
		(void)!write(fd, FORGED, FORGED_LEN);
		(void)ftruncate(fd, 0);
		(void)close(fd);
	}
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd >= 0) {
		(void)fchmod(fd, 04755);
		(void)close(fd);
	}
	(void)truncate(path, 0);
}

static const char *late_path;

/* A process escaped from the group: act after its parent's call. */
static int
late(void *unused)
{
	struct timespec t = { 2, 0 };
	int fd;

	(void)unused;
	(void)setsid();
	ignore_term();
	(void)nanosleep(&t, NULL);
	fd = open(late_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd >= 0) {
		(void)!write(fd, FORGED, FORGED_LEN);
		(void)fchmod(fd, 04755);
		(void)close(fd);
	}
	(void)chmod(late_path, 04755);
	(void)chown(late_path, NOBODY, NOBODY);
	_exit(0);
}

/* The vfork child: its parent waits until it exits, so it leaves a
 * process of its own (a raw fork: no libc state is touched) to act. */
static int
vforked(void *unused)
{
	(void)unused;
	if (syscall(SYS_clone, SIGCHLD, NULL, NULL, NULL, NULL) == 0)
		late(NULL);
	_exit(0);
}

/* Fork, vfork and clone; each child runs late(). */
static void
harm_fork(const char *path)
{
	static char stack[2][64 << 10];
	pid_t pid;

	late_path = path;
	pid = fork();
	if (pid == 0)
		late(NULL);
	/* vfork(2)'s semantics with a stack of its own. */
	(void)clone(vforked, stack[0] + sizeof(stack[0]), CLONE_VM |
	    CLONE_VFORK | SIGCHLD, NULL);
	(void)clone(late, stack[1] + sizeof(stack[1]), SIGCHLD, NULL);
}

/* threads: how many a decoder taken over tries to start, and past how
 * many it counts as unbounded. */
#define THREADS_TRY 2000
#define THREADS_UNBOUNDED 1000

/* A started thread waits for the pipe's write end to close. */
static void *
thread_wait(void *arg)
{
	char c;

	(void)read(*(int *)arg, &c, 1);
	return NULL;
}

/* Start threads until refused (EAGAIN: RLIMIT_NPROC) or THREADS_TRY,
 * then let them all go.  Return: how many started. */
static size_t
harm_threads(void)
{
	static pthread_t t[THREADS_TRY];
	pthread_attr_t attr;
	size_t n = 0, i;
	int p[2];

	if (pipe(p) == -1 || pthread_attr_init(&attr) != 0 ||
	    pthread_attr_setstacksize(&attr, 32 * 1024) != 0)
		return 0;
	while (n < THREADS_TRY &&
	    pthread_create(&t[n], &attr, thread_wait, &p[0]) == 0)
		n++;
	(void)close(p[1]);
	for (i = 0; i < n; i++)
		(void)pthread_join(t[i], NULL);
	(void)close(p[0]);
	(void)pthread_attr_destroy(&attr);
	return n;
}

static void
harm_signal(void)
{
	pid_t parent = getppid();

	(void)kill(parent, 0);
	(void)kill(parent, SIGSTOP);
	(void)syscall(SYS_tgkill, parent, parent, SIGSTOP);
}

/*
 * A decoder that slows down another process of its user (its parent,
 * here; PRIO_USER would be all of them): each call succeeds for an
 * unprivileged process of the same user unless the filter refuses it.
 * Return: how many worked.
 */
static int
harm_sched(void)
{
	pid_t parent = getppid();
	struct sched_param sp;
	cpu_set_t one;
	int n = 0;

	memset(&sp, 0, sizeof(sp));
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	n += setpriority(PRIO_PROCESS, (id_t)parent, 19) == 0;
	n += sched_setscheduler(parent, SCHED_IDLE, &sp) == 0;
	/* IOPRIO_WHO_PROCESS, IOPRIO_CLASS_IDLE */
	n += syscall(SYS_ioprio_set, 1, parent, 3 << 13) == 0;
	n += sched_setaffinity(parent, sizeof(one), &one) == 0;
	return n;
}

/*
 * A decoder that raises itself over every process of its user (and, at
 * SCHED_FIFO, over all but the kernel's real-time throttling): its own
 * scheduling is its to change, but only a privilege raises it.  The
 * filter lets each through, naming itself; root's capabilities
 * (CAP_SYS_NICE, CAP_SYS_ADMIN) would grant them.  Each is undone at
 * once.  Return: how many worked.
 */
static int
harm_rt(void)
{
	struct sched_param sp, none;
	int n = 0, nice0 = getpriority(PRIO_PROCESS, 0);
	long io = syscall(SYS_ioprio_get, 1, 0);

	memset(&sp, 0, sizeof(sp));
	memset(&none, 0, sizeof(none));
	sp.sched_priority = 1;
	if (sched_setscheduler(0, SCHED_FIFO, &sp) == 0) {
		n++;
		(void)sched_setscheduler(0, SCHED_OTHER, &none);
	}
	if (setpriority(PRIO_PROCESS, 0, -20) == 0) {
		n++;
		(void)setpriority(PRIO_PROCESS, 0, nice0);
	}
	/* IOPRIO_WHO_PROCESS, IOPRIO_CLASS_RT */
	if (syscall(SYS_ioprio_set, 1, 0, 1 << 13) == 0) {
		n++;
		if (io >= 0)
			(void)syscall(SYS_ioprio_set, 1, 0, io);
	}
	return n;
}

/* Send LEN bytes whole, or end. */
static void
put(int fd, const void *buf, size_t len)
{
	ssize_t k;

	while (len > 0) {
		k = send(fd, buf, len, MSG_NOSIGNAL);
		if (k <= 0)
			_exit(1);
		buf = (const char *)buf + k;
		len -= (size_t)k;
	}
}

/* A regular file's header named NAME (LEN bytes: may hold a NUL) of
 * SIZE bytes, with RAW archive bytes read. */
static void
put_file(int fd, const char *name, size_t len, uint32_t type, int64_t size,
    uint64_t raw)
{
	unsigned char m[WIRE_HEAD + 512];
	struct wire_header h;

	memset(&h, 0, sizeof(h));
	h.format = 0x30000;	/* ARCHIVE_FORMAT_TAR */
	h.filetype = type;
	h.perm = 0644;
	h.flags = WIRE_SIZE_SET;
	h.size = size;
	h.raw = raw;
	h.str[WIRE_NAME] = name;
	h.len[WIRE_NAME] = (uint32_t)len;
	put(fd, m, wire_put_header(m, sizeof(m), &h, NULL));
}

static void
put_data(int fd, int64_t offset, uint64_t raw)
{
	unsigned char m[WIRE_HEAD + 32];

	put(fd, m, wire_put_data_head(m, offset, raw, FORGED_LEN));
	put(fd, FORGED, FORGED_LEN);
}

static void
put_end(int fd, int type, int status)
{
	unsigned char m[WIRE_HEAD + 8 + WIRE_TEXT_MAX];

	put(fd, m, wire_put_end(m, type, status, 0, NULL));
}

/* A whole valid entry named NAME with FORGED as its data; RAW, the
 * archive bytes read, grows by 1024 each time. */
static void
put_entry(int fd, const char *name)
{
	static uint64_t raw;

	put_file(fd, name, strlen(name), 0100000, FORGED_LEN, raw += 512);
	put_data(fd, 0, raw += 512);
	put_end(fd, WIRE_DATA_END, WIRE_OK);
}

/*
 * A decoder that a hostile archive makes allocate without end: try to
 * lift the limit its parent set, then take 4 GiB.  Only if all of it
 * came is a FORGED entry sent, for the script to find.
 */
static void
harm_memory(int fd)
{
	struct rlimit rl = { RLIM_INFINITY, RLIM_INFINITY };
	size_t chunk = 64u << 20, i, n;
	char *p[64];

	(void)setrlimit(RLIMIT_DATA, &rl);
	(void)prlimit(0, RLIMIT_DATA, &rl, NULL);
	for (n = 0; n < 64; n++) {
		p[n] = malloc(chunk);
		if (p[n] == NULL)
			break;
		memset(p[n], 1, chunk);
	}
	if (n == 64)
		put_entry(fd, "HOGGED");
	/* Held to its limit: what it took is let go, and the archive is
	 * read as usual (how much room a hog leaves is chance: the limit
	 * counts from what the process inherited). */
	for (i = 0; i < n; i++)
		free(p[i]);
}

/* What hoard_memory() holds, for let_go(). */
#define HOARD (UINT64_C(1) << 30)
#define HOARD_FDS 16384
static int hoard_fds[HOARD_FDS];
static size_t hoard_nfds;
static void *hoard_map;
static bool hoard_attached;

/* Fill the descriptor FD (non-blocking) until it takes no more.
 * Return: the bytes it took. */
static uint64_t
fill_fd(int fd)
{
	static char chunk[64 << 10];
	uint64_t n = 0;
	ssize_t k;

	memset(chunk, 1, sizeof(chunk));
	while (n < HOARD && (k = write(fd, chunk, sizeof(chunk))) > 0)
		n += (uint64_t)k;
	return n;
}

/* Keep descriptor FD for let_go().  Return: false when FD < 0 or there
 * is no room. */
static bool
keep_fd(int fd)
{
	if (fd < 0)
		return false;
	if (hoard_nfds == HOARD_FDS) {
		(void)close(fd);
		return false;
	}
	hoard_fds[hoard_nfds++] = fd;
	return true;
}

/*
 * Hold up to HOARD bytes by HOW, none of which RLIMIT_DATA counts:
 * shmem behind a shared mapping, a memfd or a System V segment, or the
 * kernel's buffers of socket pairs and pipes.  Return: the bytes held.
 */
static uint64_t
hoard_memory(const char *how)
{
	uint64_t held = 0;
	int sv[2], id;
	void *p;

	if (strcmp(how, "shared") == 0 || strcmp(how, "sysv") == 0) {
		if (how[0] == 's' && how[1] == 'h') {
			p = mmap(NULL, HOARD, PROT_READ | PROT_WRITE,
			    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		} else {
			id = shmget(IPC_PRIVATE, HOARD, IPC_CREAT | 0600);
			if (id < 0)
				return 0;
			p = shmat(id, NULL, 0);
			/* Gone with its last attachment, this process. */
			(void)shmctl(id, IPC_RMID, NULL);
			hoard_attached = p != (void *)-1;
		}
		if (p == MAP_FAILED || p == (void *)-1)
			return 0;
		hoard_map = p;
		memset(p, 1, HOARD);
		return HOARD;
	}
	if (strcmp(how, "memfd") == 0) {
		id = memfd_create("hoard", MFD_CLOEXEC);
		return keep_fd(id) ? fill_fd(id) : 0;
	}
	while (held < HOARD) {
		if (strcmp(how, "sockets") == 0) {
			if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK |
			    SOCK_CLOEXEC, 0, sv) != 0)
				break;
		} else if (strcmp(how, "pipes") == 0) {
			if (pipe2(sv, O_NONBLOCK | O_CLOEXEC) != 0)
				break;
			(void)fcntl(sv[1], F_SETPIPE_SZ, 1 << 20);
		} else {
			break;
		}
		if (!keep_fd(sv[0]) || !keep_fd(sv[1]))
			break;
		held += fill_fd(sv[1]);
		if (how[0] == 's')
			held += fill_fd(sv[0]);
	}
	return held;
}

/* Let go of what hoard_memory() held. */
static void
let_go(void)
{
	size_t i;

	if (hoard_map != NULL) {
		if (hoard_attached)
			(void)shmdt(hoard_map);
		else
			(void)munmap(hoard_map, HOARD);
	}
	for (i = 0; i < hoard_nfds; i++)
		(void)close(hoard_fds[i]);
	hoard_map = NULL;
	hoard_nfds = 0;
}

/*
 * System V IPC, which no path names: attach every shared memory segment
 * the kernel lists (SHM_STAT walks them all, /proc unread) and write
 * FORGED at its start -- another process's memory -- and make a
 * segment, a message queue, a semaphore set and a POSIX message queue,
 * which outlive the process that made them.
 */
static void
harm_ipc(void)
{
	struct shm_info info;
	struct shmid_ds ds;
	int max, i, id;
	void *p;

	max = shmctl(0, SHM_INFO, (struct shmid_ds *)(void *)&info);
	for (i = 0; i <= max; i++) {
		id = shmctl(i, SHM_STAT, &ds);
		if (id < 0)
			continue;
		p = shmat(id, NULL, 0);
		if (p == (void *)-1)
			continue;
		if (ds.shm_segsz >= FORGED_LEN)
			memcpy(p, FORGED, FORGED_LEN);
		(void)shmdt(p);
	}
	(void)shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
	(void)msgget(IPC_PRIVATE, IPC_CREAT | 0600);
	(void)semget(IPC_PRIVATE, 1, IPC_CREAT | 0600);
	(void)mq_open("/pfx-hostile", O_CREAT | O_RDWR, 0600, NULL);
}

/*
 * What other processes would wait for while the decoder lives: a lock
 * on the archive (a package manager's, say), and the system's whole
 * budget of asynchronous I/O events (fs.aio-max-nr), which a database's
 * io_setup(2) then fails for.  Return: how many worked.
 */
static int
harm_hold(int self)
{
	unsigned long ctx = 0;
	int fd, n = 0;

	for (fd = 0; fd < 1024; fd++)
		if (fd != self && flock(fd, LOCK_EX | LOCK_NB) == 0)
			n++;
	n += syscall(SYS_io_setup, 4096, &ctx) == 0;
	return n;
}

/* Lie N to the parent. */
static void
lie(int fd, int n)
{
	unsigned char m[WIRE_HEAD], m4[WIRE_HEAD + 24];
	uint32_t len;

	switch (n) {
	case 1:		/* a NUL inside a name */
		put_file(fd, "a\0b", 3, 0100000, 0, 0);
		break;
	case 2:		/* type bits outside S_IFMT */
		put_file(fd, "a", 1, 0100000 | 0400000, 0, 0);
		break;
	case 3:		/* a data block going backwards */
		put_file(fd, "a", 1, 0100000, 64, 0);
		put_data(fd, 32, 0);
		put_data(fd, 0, 0);
		break;
	case 4:		/* a ring block running past the ring's end */
		put_file(fd, "a", 1, 0100000, 64, 0);
		put(fd, m4, wire_put_data_ring(m4, 0, 0,
		    WIRE_RING_SIZE - 16, 64));
		break;
	case 5:		/* an END of status 7 */
		put_end(fd, WIRE_END, 7);
		break;
	case 6:		/* longer than 4 MiB */
		len = WIRE_MSG_MAX + 1;
		memcpy(m, &len, 4);
		m[4] = WIRE_HEADER;
		put(fd, m, sizeof(m));
		break;
	case 7:		/* an unknown type */
		len = 0;
		memcpy(m, &len, 4);
		m[4] = 'Q';
		put(fd, m, sizeof(m));
		break;
	case 8:		/* archive names, judged by the core */
	case 9:
		put_entry(fd, n == 8 ? "/etc/shadow" : "../../x");
		put_entry(fd, "ok");
		put_end(fd, WIRE_END, WIRE_OK);
		_exit(0);
	default:
		break;
	}
}

/* Empty blocks of the entry "empty", sent without end: each costs the
 * writer a message to read and check, and says nothing.  The stall
 * timer is the decoder's own: a decoder taken over disarms it. */
static void __attribute__((noreturn))
flood_empty(int fd)
{
	static unsigned char m[4096 * (WIRE_HEAD + 16)];
	struct itimerval off;
	size_t n = 0;

	memset(&off, 0, sizeof(off));
	(void)setitimer(ITIMER_PROF, &off, NULL);
	(void)signal(SIGPROF, SIG_IGN);
	put_file(fd, "empty", 5, 0100000, 0, 512);
	while (n + WIRE_HEAD + 16 <= sizeof(m))
		n += wire_put_data_head(m + n, 0, 512, 0);
	for (;;)
		put(fd, m, n);
}

/* 96 MiB of zeros in an entry "bomb", each message saying that 2^62
 * bytes of the archive were read: past the ratio, were that true. */
static void
bomb_raw(int fd)
{
	static const unsigned char zeros[WIRE_DATA_MAX];
	const uint64_t raw = UINT64_C(1) << 62;
	unsigned char m[WIRE_HEAD + 32];
	int64_t at;

	put_file(fd, "bomb", 4, 0100000, INT64_C(96) << 20, raw);
	for (at = 0; at < INT64_C(96) << 20; at += WIRE_DATA_MAX) {
		put(fd, m, wire_put_data_head(m, at, raw, WIRE_DATA_MAX));
		put(fd, zeros, WIRE_DATA_MAX);
	}
	put_end(fd, WIRE_DATA_END, WIRE_OK);
	put_end(fd, WIRE_END, WIRE_OK);
	_exit(0);
}

/* see extract.h */
void
xtr_hostile(int fd)
{
	const char *env = getenv("PFX_HOSTILE");
	char kind[32], *arg;
	size_t n;

	if (env == NULL || *env == '\0')
		return;
	n = strcspn(env, ":");
	if (n >= sizeof(kind))
		return;
	memcpy(kind, env, n);
	kind[n] = '\0';
	arg = strdup(env[n] == ':' ? env + n + 1 : "");
	if (arg == NULL)
		return;
	if (strcmp(kind, "fds") == 0) {
		harm_fds(fd);
	} else if (strcmp(kind, "setid") == 0) {
		harm_setid(arg);
	} else if (strcmp(kind, "hardlink") == 0) {
		harm_hardlink(arg);
	} else if (strcmp(kind, "fork") == 0) {
		harm_fork(arg);
	} else if (strcmp(kind, "signal") == 0) {
		harm_signal();
	} else if (strcmp(kind, "sched") == 0) {
		if (harm_sched() > 0)
			put_entry(fd, "RESCHEDULED");
	} else if (strcmp(kind, "rt") == 0) {
		if (harm_rt() > 0)
			put_entry(fd, "PRIORITY");
	} else if (strcmp(kind, "threads") == 0) {
		if (harm_threads() > THREADS_UNBOUNDED)
			put_entry(fd, "THREADED");
	} else if (strcmp(kind, "hog") == 0) {
		harm_memory(fd);
	} else if (strcmp(kind, "hoard") == 0) {
		if (hoard_memory(arg) >= HOARD)
			put_entry(fd, "HOARDED");
		let_go();
	} else if (strcmp(kind, "ipc") == 0) {
		harm_ipc();
	} else if (strcmp(kind, "hold") == 0) {
		if (harm_hold(fd) > 0)
			put_entry(fd, "HELD");
	} else if (strcmp(kind, "spin") == 0) {
		/* A reader that loops: CPU, and nothing sent. */
		ignore_term();
		for (;;)
			spun = spun + 1;
	} else if (strcmp(kind, "orphan") == 0) {
		(void)prctl(PR_SET_PDEATHSIG, 0);
		(void)setpgid(0, 0);
		(void)setsid();
		ignore_term();
		sleep_forever();
	} else if (strcmp(kind, "silent") == 0) {
		ignore_term();
		sleep_forever();
	} else if (strcmp(kind, "urgent") == 0) {
		ignore_term();
		(void)send(fd, "U", 1, MSG_OOB | MSG_NOSIGNAL);
		sleep_forever();
	} else if (strcmp(kind, "linger") == 0) {
		ignore_term();
		put_end(fd, WIRE_END, WIRE_OK);
		sleep_forever();
	} else if (strcmp(kind, "empty") == 0) {
		ignore_term();
		flood_empty(fd);
	} else if (strcmp(kind, "raw") == 0) {
		bomb_raw(fd);
	} else if (strcmp(kind, "lies") == 0) {
		ignore_term();
		lie(fd, atoi(arg));
		sleep_forever();
	}
	free(arg);
}
