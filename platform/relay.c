/*
 * relay.c -- inputs that untrusted code must not hold, read for it.
 *
 * A decoder process taken over by a hostile archive may use every
 * descriptor it holds, and the sandbox cannot narrow one already open.
 * A regular file is reopened read-only (plat_input_readonly()), and the
 * read end of a pipe can only be read.  Anything else cannot be made
 * read-only: a socket is read and written through one descriptor (an
 * inetd or socat service's stdin is its stdout), and a terminal or other
 * device takes ioctls on a descriptor opened for reading (TIOCSTI, a
 * tape's rewind).  Such an input is read by a relay, which parses
 * nothing: the process forks, the child goes on with a pipe in the
 * input's place, and the parent copies the input into the pipe, waits
 * for the child and ends as it ended, so that whoever waits for it sees
 * the child's status.  Killing the relay's process group kills both.
 */
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include "platform.h"

/* What the relay holds of one input at a time: an input's buffer is
 * made when it is first read, so all of them cost PLAT_RELAY_MAX times
 * this at most (8 MiB), and one socket 32 KiB. */
#define RELAY_BUF (32 * 1024)

struct relay_pair {
	int in, out;		/* the input; the pipe's write end, or -1 */
	size_t off, len;	/* BUF[OFF, LEN) is still to be written */
	unsigned char *buf;
};

/* see platform.h */
bool
plat_input_needs_relay(int fd)
{
	struct stat st;
	int fl;

	if (fd < 0 || fstat(fd, &st) == -1)
		return false;
	fl = fcntl(fd, F_GETFL);
	if (fl == -1)
		return false;
	/* plat_input_readonly() made a regular file's own description, and
	 * a pipe's read end cannot write; anything else can, or takes
	 * ioctls that act on the world. */
	if (S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode))
		return (fl & O_ACCMODE) != O_RDONLY;
	return true;
}

/* Close P's pipe (the child reads to its end) and its input. */
static void
pair_close(struct relay_pair *p)
{
	if (p->out >= 0)
		(void)close(p->out);
	if (p->in >= 0)
		(void)close(p->in);
	p->out = p->in = -1;
	free(p->buf);
	p->buf = NULL;
}

/*
 * One step of pair P, which poll() said something of (REVENTS of the
 * descriptor it waited on).  Return: true while P goes on.
 */
static bool
pair_step(struct relay_pair *p, short revents)
{
	ssize_t k;

	if (p->off < p->len) {
		/* The child stopped reading (POLLERR), or room came. */
		k = write(p->out, p->buf + p->off, p->len - p->off);
		if (k < 0 && errno != EAGAIN && errno != EINTR)
			return false;
		if (k > 0)
			p->off += (size_t)k;
		return true;
	}
	if ((revents & (POLLIN | POLLHUP | POLLERR)) == 0)
		return true;
	if (p->buf == NULL && (p->buf = malloc(RELAY_BUF)) == NULL)
		return false;	/* the child sees the input end here */
	k = read(p->in, p->buf, RELAY_BUF);
	if (k < 0)
		return errno == EAGAIN || errno == EINTR;
	/* The end, or a read error: the child sees the input end there. */
	if (k == 0)
		return false;
	p->off = 0;
	p->len = (size_t)k;
	return true;
}

/* Copy each pair's input into its pipe until every one has ended. */
static void
relay_all(struct relay_pair *pairs, size_t n)
{
	struct pollfd pfd[PLAT_RELAY_MAX];
	size_t i, live;

	for (;;) {
		live = 0;
		for (i = 0; i < n; i++) {
			struct relay_pair *p = &pairs[i];

			pfd[i].fd = -1;
			pfd[i].events = 0;
			if (p->out < 0)
				continue;
			live++;
			/* A pipe whose reader left says POLLERR whatever
			 * was asked: waiting on the input alone would miss
			 * it, so a full buffer waits on the pipe. */
			if (p->off < p->len) {
				pfd[i].fd = p->out;
				pfd[i].events = POLLOUT;
			} else {
				pfd[i].fd = p->in;
				pfd[i].events = POLLIN;
			}
		}
		if (live == 0)
			return;
		if (poll(pfd, (nfds_t)n, -1) < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		for (i = 0; i < n; i++)
			if (pfd[i].fd >= 0 && pfd[i].revents != 0 &&
			    !pair_step(&pairs[i], pfd[i].revents))
				pair_close(&pairs[i]);
	}
}

/* Wait for CHILD and end as it ended.  Never returns. */
static void
end_as(pid_t child)
{
	struct rlimit none = { 0, 0 };
	sigset_t set;
	int status, sig;

	while (waitpid(child, &status, 0) == -1)
		if (errno != EINTR)
			_exit(1);
	if (WIFEXITED(status))
		_exit(WEXITSTATUS(status));
	sig = WIFSIGNALED(status) ? WTERMSIG(status) : SIGKILL;
	/* The child's core, if any, is the one worth having. */
	(void)setrlimit(RLIMIT_CORE, &none);
	(void)signal(sig, SIG_DFL);
	(void)sigemptyset(&set);
	(void)sigaddset(&set, sig);
	(void)sigprocmask(SIG_UNBLOCK, &set, NULL);
	(void)raise(sig);
	_exit(128 + sig);
}

/* The relay: copy, then end as CHILD.  Never returns. */
static void
relay_main(struct relay_pair *pairs, size_t n, pid_t child)
{
	int keep[2 * PLAT_RELAY_MAX];
	size_t i;

	/* Nothing but the inputs and the pipes: the child's socket and
	 * other descriptors are the child's; 0, 1 and 2 are /dev/null. */
	for (i = 0; i < n; i++) {
		keep[2 * i] = pairs[i].in;
		keep[2 * i + 1] = pairs[i].out;
	}
	if (plat_child_fds(keep, (int)(2 * n)) < 0) {
		(void)kill(child, SIGKILL);
		end_as(child);
	}
	for (i = 0; i < n; i++) {
		pairs[i].in = keep[2 * i];
		pairs[i].out = keep[2 * i + 1];
		/* Nonblocking on the relay's side only (its own open file
		 * description): a full pipe never stops another input. */
		(void)fcntl(pairs[i].out, F_SETFL, O_NONBLOCK);
	}
	(void)signal(SIGPIPE, SIG_IGN);
	relay_all(pairs, n);
	end_as(child);
}

/* see platform.h */
int
plat_input_relay(int *fds, size_t n)
{
	struct relay_pair pairs[PLAT_RELAY_MAX];
	int pipes[PLAT_RELAY_MAX][2];
	size_t which[PLAT_RELAY_MAX], i, m = 0;
	pid_t pid = -1;
	int r = 0;

	for (i = 0; i < n; i++) {
		if (!plat_input_needs_relay(fds[i]))
			continue;
		if (m == PLAT_RELAY_MAX) {
			r = -EMFILE;
			break;
		}
		if (pipe(pipes[m]) == -1) {
			r = -errno;
			break;
		}
		which[m] = i;
		pairs[m].in = fds[i];
		pairs[m].out = pipes[m][1];
		pairs[m].off = pairs[m].len = 0;
		pairs[m].buf = NULL;
		m++;
	}
	if (r == 0 && m == 0)
		return 0;
	if (r == 0) {
		pid = fork();
		if (pid == -1)
			r = -errno;
	}
	if (r < 0) {
		for (i = 0; i < m; i++) {
			(void)close(pipes[i][0]);
			(void)close(pipes[i][1]);
		}
		return r;
	}
	if (pid > 0)
		relay_main(pairs, m, pid);
	/* The child: each relayed input becomes its pipe's read end. */
	for (i = 0; i < m; i++) {
		(void)close(pipes[i][1]);
		(void)close(fds[which[i]]);
		fds[which[i]] = pipes[i][0];
	}
	return 0;
}

/*
 * Outputs.  A regular file that standard output or error is redirected
 * to keeps, in a confined writer, the mount it was opened on: the
 * read-only view cannot reach a descriptor of it, nor reopen it for
 * writing, and the filter cannot tell it from the writer's own files.
 * A writer taken over could make it world-writable, change its times
 * or its ACL through the descriptor (set-id bits too under -p).  So it
 * is written by a relay that parses nothing: this process forks, the
 * child holds the files and copies into them what comes down a pipe,
 * and this process goes on with the pipes' write ends in their places.
 * The caller waits for it before it ends (plat_output_relay_wait()), so
 * that the files are whole when whoever waits for the caller goes on.
 */

struct out_pair {
	int in, out;	/* the pipe's read end; the file */
	int err;	/* the first write that failed, or 0 */
	bool copy;	/* read(2) and write(2): no splice(2) into OUT */
};

/* see platform.h */
bool
plat_output_needs_relay(int fd)
{
	struct stat st;
	int fl;

	if (fd < 0 || fstat(fd, &st) == -1 || !S_ISREG(st.st_mode))
		return false;
	fl = fcntl(fd, F_GETFL);
	return fl != -1 && (fl & O_ACCMODE) != O_RDONLY;
}

/* Write all of BUF[0, LEN) to P's file, unless a write failed before.
 * A failure is kept, and what follows is read and dropped: the writer
 * must never wait on a full pipe. */
static void
out_put(struct out_pair *p, const unsigned char *buf, size_t len)
{
	ssize_t k;

	while (p->err == 0 && len > 0) {
		k = write(p->out, buf, len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			p->err = k < 0 ? errno : EIO;
			break;
		}
		buf += k;
		len -= (size_t)k;
	}
}

/* Move what pipe P holds into its file with no copy, while that works
 * (not into an O_APPEND file, nor after a failed write).  Return: the
 * bytes moved, 0 at the pipe's end, or -1: read(2) it. */
static ssize_t
out_splice(struct out_pair *p)
{
	ssize_t k;

	if (p->copy || p->err != 0)
		return -1;
	k = plat_os_splice_out(p->in, p->out, 1 << 20);
	if (k >= 0 || k == -EAGAIN)
		return k < 0 ? 1 : k;
	if (k == -EINVAL || k == -ENOSYS)
		p->copy = true;
	else
		p->err = (int)-k;
	return -1;
}

/* Tell RESULT (then closed) the first failed write of P as one byte:
 * its errno, 0 for none, EIO for one past a byte. */
static void
out_tell(int *result, const struct out_pair *p)
{
	unsigned char e = (unsigned char)(p->err > 0 && p->err < 256 ?
	    p->err : p->err != 0 ? EIO : 0);

	if (*result < 0)
		return;
	while (write(*result, &e, 1) == -1 && errno == EINTR)
		continue;
	(void)close(*result);
	*result = -1;
}

/* The relay: copy each of the N pipes into its file until every one has
 * ended, and tell RESULT how pipe FIRST went (n: none was the first
 * output's) as soon as it has.  Never returns. */
static void
out_relay_main(struct out_pair *pairs, size_t n, size_t first, int result)
{
	const struct out_pair none = { -1, -1, 0, true };
	static const int calm[] = { SIGINT, SIGQUIT, SIGTERM, SIGHUP,
	    SIGPIPE };
	static unsigned char buf[64 * 1024];
	struct pollfd pfd[PLAT_OUT_RELAY_MAX];
	int keep[2 * PLAT_OUT_RELAY_MAX + 1];
	size_t i, live;
	ssize_t k;

	for (i = 0; i < n; i++) {
		keep[2 * i] = pairs[i].in;
		keep[2 * i + 1] = pairs[i].out;
	}
	keep[2 * n] = result;
	if (plat_child_fds(keep, (int)(2 * n + 1)) < 0)
		_exit(1);
	/* A signal meant for the run stops the writer, which then closes
	 * its ends: what it wrote till then is still written here. */
	for (i = 0; i < sizeof(calm) / sizeof(calm[0]); i++)
		(void)signal(calm[i], SIG_IGN);
	for (i = 0; i < n; i++) {
		pairs[i].in = keep[2 * i];
		pairs[i].out = keep[2 * i + 1];
	}
	result = keep[2 * n];
	for (;;) {
		for (i = live = 0; i < n; i++) {
			pfd[i].fd = pairs[i].in;
			pfd[i].events = POLLIN;
			live += pairs[i].in >= 0;
		}
		if (live == 0)
			break;
		if (poll(pfd, (nfds_t)n, -1) < 0) {
			if (errno == EINTR)
				continue;
			_exit(1);
		}
		for (i = 0; i < n; i++) {
			if (pfd[i].fd < 0 || pfd[i].revents == 0)
				continue;
			k = out_splice(&pairs[i]);
			if (k > 0)
				continue;
			if (k < 0)
				k = read(pairs[i].in, buf, sizeof(buf));
			if (k < 0 && errno == EINTR)
				continue;
			if (k > 0) {
				out_put(&pairs[i], buf, (size_t)k);
				continue;
			}
			(void)close(pairs[i].in);
			pairs[i].in = -1;
			if (i == first)
				out_tell(&result, &pairs[i]);
		}
	}
	out_tell(&result, first < n ? &pairs[first] : &none);
	_exit(0);
}

/* Does FD name the same file as one of the N PAIRS' (identity)?  Its
 * index, or N. */
static size_t
same_file(const struct out_pair *pairs, size_t n, int fd)
{
	struct stat a, b;
	size_t i;

	if (fstat(fd, &a) == -1)
		return n;
	for (i = 0; i < n; i++)
		if (fstat(pairs[i].out, &b) == 0 && a.st_dev == b.st_dev &&
		    a.st_ino == b.st_ino)
			return i;
	return n;
}

/* Close the ends of M pipes PIPES and RESULT's two (-1: none). */
static void
close_pipes(int (*pipes)[2], size_t m, const int *result)
{
	size_t i;

	for (i = 0; i < m; i++) {
		(void)close(pipes[i][0]);
		(void)close(pipes[i][1]);
	}
	if (result[0] >= 0) {
		(void)close(result[0]);
		(void)close(result[1]);
	}
}

/* see platform.h */
int
plat_output_relay(const int *fds, size_t n, struct plat_out_relay *rl)
{
	struct out_pair pairs[PLAT_OUT_RELAY_MAX];
	int pipes[PLAT_OUT_RELAY_MAX][2];
	int result[2] = { -1, -1 };
	size_t pipe_of[PLAT_OUT_RELAY_MAX], i, j, m = 0;
	int r = 0;

	rl->pid = -1;
	rl->result = -1;
	rl->first_alone = false;
	if (n > PLAT_OUT_RELAY_MAX)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		pipe_of[i] = PLAT_OUT_RELAY_MAX;
		if (!plat_output_needs_relay(fds[i]))
			continue;
		/* One file twice (2>&1, or >>log 2>>log): one pipe, so
		 * that the two keep their order in it. */
		j = same_file(pairs, m, fds[i]);
		if (j < m) {
			pipe_of[i] = j;
			continue;
		}
		if (pipe(pipes[m]) == -1) {
			r = -errno;
			break;
		}
		plat_os_pipe_grow(pipes[m][1]);
		pairs[m].in = pipes[m][0];
		pairs[m].out = fds[i];
		pairs[m].err = 0;
		pairs[m].copy = false;
		pipe_of[i] = m++;
	}
	if (r == 0 && m == 0)
		return 0;
	if (r == 0 && pipe(result) == -1)
		r = -errno;
	if (r == 0) {
		rl->pid = fork();
		if (rl->pid == -1)
			r = -errno;
	}
	if (r < 0) {
		close_pipes(pipes, m, result);
		rl->pid = -1;
		return r;
	}
	if (rl->pid == 0)
		out_relay_main(pairs, m, pipe_of[0] < m ? pipe_of[0] : m,
		    result[1]);
	/* Here: each output becomes its pipe's write end, same number. */
	for (i = 0; i < n; i++)
		if (pipe_of[i] < m && dup2(pipes[pipe_of[i]][1], fds[i]) == -1)
			r = -errno;
	/* The first output's pipe ends when its number is closed, unless
	 * another number writes into it too. */
	rl->first_alone = n > 0 && pipe_of[0] < m;
	for (i = 1; i < n; i++)
		if (pipe_of[i] == pipe_of[0])
			rl->first_alone = false;
	rl->result = result[0];
	(void)fcntl(rl->result, F_SETFD, FD_CLOEXEC);
	(void)close(result[1]);
	result[0] = result[1] = -1;	/* RESULT[0] is RL's now */
	close_pipes(pipes, m, result);
	return r;
}

/* see platform.h */
int
plat_output_relay_first(struct plat_out_relay *rl)
{
	unsigned char e = 0;
	ssize_t k;

	if (rl->result < 0)
		return 0;
	do
		k = read(rl->result, &e, 1);
	while (k == -1 && errno == EINTR);
	(void)close(rl->result);
	rl->result = -1;
	return k == 1 ? (int)e : EIO;
}

/* see platform.h */
int
plat_output_relay_wait(struct plat_out_relay *rl)
{
	int status, r = 0;

	if (rl->result >= 0)
		r = plat_output_relay_first(rl);
	if (rl->pid <= 0)
		return r;
	while (waitpid(rl->pid, &status, 0) == -1)
		if (errno != EINTR) {
			rl->pid = -1;
			return r != 0 ? r : -errno;
		}
	rl->pid = -1;
	return r != 0 ? r : WIFEXITED(status) && WEXITSTATUS(status) == 0 ?
	    0 : EIO;
}
