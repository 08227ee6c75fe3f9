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
