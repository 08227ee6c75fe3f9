/*
 * child.c -- extraction in a confined child process, for library callers
 * that must not confine their own process (PFX_OPT_SANDBOX_CHILD).
 *
 * The caller's process forks.  The child runs pfx_extract() with
 * PFX_OPT_SANDBOX: it opens the destination and the input, confines
 * itself (pfx_sandbox.h) before the first archive byte is decoded, and
 * extracts.  Every hook call is sent to the parent over a socket pair
 * and made there, in the caller's process, with the caller's ARG; a
 * decide() answer goes back the same way.  The result comes last.  So
 * the decoders (libarchive and the compression libraries, which parse
 * the attacker's bytes) never run in the caller's process, and if one is
 * exploited the kernel confines what it can reach.
 *
 * The parent trusts nothing the child sends: every message is bounded
 * and checked, and a child that dies, lies or goes silent gives a
 * PFX_FATAL result, never a crash of the caller.
 *
 * SECURITY: the child is made by fork(2).  In a multithreaded caller the
 * child holds only the forking thread: it runs the library and libc's
 * fork-safe parts (malloc), never the caller's code, and ends with
 * _exit(2).
 */
#if defined(__has_include) && __has_include(<sys/prctl.h>)
#include <sys/prctl.h>
#endif
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "extract.h"

/* Message types. */
#define MSG_REPORT	'r'	/* child: an entry's outcome */
#define MSG_DECIDE	'd'	/* child: an entry to decide; waits */
#define MSG_ANSWER	'a'	/* parent: decide()'s answer */
#define MSG_UNMATCHED	'u'	/* child: an include pattern unmatched */
#define MSG_CONFINED	'c'	/* child: what the sandbox enforced */
#define MSG_RESULT	'R'	/* child: the result; the last message */

/* The largest message; a longer string is cut (names are bounded well
 * below by the core's PATH_MAX check, but the archive's raw name is not). */
#define MSG_MAX		(256u << 10)
#define STR_MAX		(64u << 10)

/* How often the parent looks at the caller's cancel flag. */
#define POLL_MS		100

/* The entry's six strings, in this order on the wire. */
#define NSTRINGS	6

struct wire_entry {
	int32_t type, status, decision, error;
	uint32_t mode;
	int64_t size, mtime, uid, gid;
	uint64_t bytes;
	uint32_t len[NSTRINGS];	/* UINT32_MAX: NULL */
};

struct wire_result {
	int32_t status, error;
	struct pfx_stats stats;
	struct pfx_sandbox_info sandbox;
	char message[512];
	char resolver[16];
};

/* A message being built or read. */
struct msg {
	unsigned char *p;
	size_t len;
};

/* Set by the child's own signal handler: the child is a process of
 * its own, so this flag is never shared with the caller's. */
static volatile sig_atomic_t child_stop;

static void
on_stop(int sig)
{
	(void)sig;
	child_stop = 1;
}

/* Write all of BUF.  Return: 0, or -errno. */
static int
put_all(int fd, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	ssize_t n;

	while (len > 0) {
		n = send(fd, p, len, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Read exactly LEN bytes.  Return: 0, -EPIPE at the end, or -errno. */
static int
get_all(int fd, void *buf, size_t len)
{
	unsigned char *p = buf;
	ssize_t n;

	while (len > 0) {
		n = recv(fd, p, len, 0);
		if (n == 0)
			return -EPIPE;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Send a message: a 4-byte length, a type byte, then BODY. */
static int
send_msg(int fd, int type, const void *body, size_t len)
{
	unsigned char head[5];
	uint32_t n = (uint32_t)len;
	int r;

	memcpy(head, &n, 4);
	head[4] = (unsigned char)type;
	r = put_all(fd, head, sizeof(head));
	if (r == 0 && len > 0)
		r = put_all(fd, body, len);
	return r;
}

/* Receive a message into M (grown as needed, at most MSG_MAX).
 * Return: its type, or -errno (-EPIPE at the end, -EPROTO if bad). */
static int
recv_msg(int fd, struct msg *m, size_t *cap)
{
	unsigned char head[5];
	uint32_t n;
	int r;

	r = get_all(fd, head, sizeof(head));
	if (r < 0)
		return r;
	memcpy(&n, head, 4);
	if (n > MSG_MAX)
		return -EPROTO;
	if (n + 1 > *cap) {
		unsigned char *p = realloc(m->p, n + 1);

		if (p == NULL)
			return -ENOMEM;
		m->p = p;
		*cap = n + 1;
	}
	r = get_all(fd, m->p, n);
	if (r < 0)
		return r == -EPIPE ? -EPROTO : r;
	m->p[n] = '\0';
	m->len = n;
	return head[4];
}

/* --- the child's side ------------------------------------------------ */

struct child {
	int fd;
	bool broken;	/* the parent is gone: stop */
};

/* Add string S (NULL allowed) to the body at *OFF; set its length. */
static void
add_string(unsigned char *body, size_t *off, uint32_t *len, const char *s)
{
	size_t n;

	if (s == NULL) {
		*len = UINT32_MAX;
		return;
	}
	n = strlen(s);
	if (n > STR_MAX)
		n = STR_MAX;
	memcpy(body + *off, s, n);
	*off += n;
	*len = (uint32_t)n;
}

/* Send entry E as a message of TYPE.  Return: 0, or -errno. */
static int
send_entry(struct child *c, int type, const struct pfx_entry *e)
{
	const char *s[NSTRINGS] = { e->name, e->path, e->link_target,
		e->uname, e->gname, e->reason };
	struct wire_entry w;
	unsigned char *body;
	size_t off = sizeof(w), need = sizeof(w), n;
	int i, r;

	for (i = 0; i < NSTRINGS; i++) {
		n = s[i] != NULL ? strlen(s[i]) : 0;
		need += n > STR_MAX ? STR_MAX : n;
	}
	body = malloc(need);
	if (body == NULL)
		return -ENOMEM;
	memset(&w, 0, sizeof(w));
	w.type = e->type;
	w.status = e->status;
	w.decision = e->decision;
	w.error = e->error;
	w.mode = (uint32_t)e->mode;
	w.size = e->size;
	w.mtime = e->mtime;
	w.uid = e->uid;
	w.gid = e->gid;
	w.bytes = e->bytes;
	for (i = 0; i < NSTRINGS; i++)
		add_string(body, &off, &w.len[i], s[i]);
	memcpy(body, &w, sizeof(w));
	r = send_msg(c->fd, type, body, off);
	free(body);
	return r;
}

static void
child_report(void *arg, const struct pfx_entry *e)
{
	struct child *c = arg;

	if (!c->broken && send_entry(c, MSG_REPORT, e) < 0)
		c->broken = true;
}

static int
child_decide(void *arg, const struct pfx_entry *e, char *rename,
    size_t cap)
{
	struct child *c = arg;
	struct msg m = { NULL, 0 };
	size_t mcap = 0;
	int32_t answer;
	int type;

	if (c->broken || send_entry(c, MSG_DECIDE, e) < 0)
		goto broken;
	type = recv_msg(c->fd, &m, &mcap);
	if (type != MSG_ANSWER || m.len < sizeof(answer) ||
	    m.len - sizeof(answer) >= cap)
		goto broken;
	memcpy(&answer, m.p, sizeof(answer));
	memcpy(rename, m.p + sizeof(answer), m.len - sizeof(answer));
	rename[m.len - sizeof(answer)] = '\0';
	free(m.p);
	return answer;
broken:
	free(m.p);
	c->broken = true;
	return PFX_HOOK_ABORT;
}

static void
child_unmatched(void *arg, const char *pattern)
{
	struct child *c = arg;
	size_t n = strlen(pattern);

	if (!c->broken && send_msg(c->fd, MSG_UNMATCHED, pattern,
	    n > STR_MAX ? STR_MAX : n) < 0)
		c->broken = true;
}

static void
child_confined(void *arg, const struct pfx_sandbox_info *info)
{
	struct child *c = arg;

	if (!c->broken && send_msg(c->fd, MSG_CONFINED, info,
	    sizeof(*info)) < 0)
		c->broken = true;
}

/* The child: extract confined, send the result, end.  Never returns. */
static void __attribute__((noreturn))
run_child(int fd, const struct pfx_input *in, int dirfd, const char *dest,
    const struct pfx_options *opt, const sigset_t *old)
{
	struct child c = { fd, false };
	struct pfx_options o = *opt;
	struct pfx_input input = *in;
	struct pfx_result res;
	struct wire_result w;
	struct sigaction sa;
	int r;

	/* Stop cleanly when the parent asks or goes away. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	(void)sigemptyset(&sa.sa_mask);
	(void)sigaction(SIGTERM, &sa, NULL);
	(void)sigaction(SIGINT, &sa, NULL);
	(void)sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	(void)sigaction(SIGPIPE, &sa, NULL);
	(void)pthread_sigmask(SIG_SETMASK, old, NULL);
#ifdef PR_SET_PDEATHSIG
	/* Where the kernel can, the child stops when the caller dies. */
	(void)prctl(PR_SET_PDEATHSIG, SIGTERM);
#endif
	if (getppid() == 1)
		_exit(1);

	o.flags = (o.flags & ~PFX_OPT_SANDBOX_CHILD) | PFX_OPT_SANDBOX;
	o.cancel = &child_stop;
	o.hooks.arg = &c;
	o.hooks.report = opt->hooks.report != NULL ? child_report : NULL;
	o.hooks.decide = opt->hooks.decide != NULL ? child_decide : NULL;
	o.hooks.unmatched = opt->hooks.unmatched != NULL ? child_unmatched :
	    NULL;
	o.hooks.confined = opt->hooks.confined != NULL ? child_confined :
	    NULL;
	/* A path is opened now, while the child may still open it. */
	memset(&res, 0, sizeof(res));
	res.resolver = "none";
	if (in->path != NULL) {
		r = pfx_input_open(in->path);
		if (r < 0) {
			res.status = PFX_FATAL;
			res.error = -r;
			snprintf(res.message, sizeof(res.message), "%s: cannot "
			    "open archive: %s", in->path, strerror(-r));
		}
		input.path = NULL;
		input.buf = NULL;
		input.fd = r;
	}
	if (res.status != PFX_FATAL)
		(void)pfx_extract(&input, dirfd, dest, &o, &res);

	memset(&w, 0, sizeof(w));
	w.status = res.status;
	w.error = res.error;
	w.stats = res.stats;
	w.sandbox = res.sandbox;
	memcpy(w.message, res.message, sizeof(w.message));
	snprintf(w.resolver, sizeof(w.resolver), "%s",
	    res.resolver != NULL ? res.resolver : "none");
	(void)send_msg(fd, MSG_RESULT, &w, sizeof(w));
	_exit(0);
}

/* --- the parent's side ----------------------------------------------- */

/* An entry decoded from a message, with the strings it owns. */
struct parsed {
	struct pfx_entry e;
	char *own[NSTRINGS];
};

/* Decode entry message M into P.  Return: 0, -EPROTO or -ENOMEM. */
static int
parse_entry(const struct msg *m, struct parsed *p)
{
	const char **s[NSTRINGS] = { &p->e.name, &p->e.path,
		&p->e.link_target, &p->e.uname, &p->e.gname, &p->e.reason };
	struct wire_entry w;
	size_t off = sizeof(w);
	int i;

	memset(p, 0, sizeof(*p));
	if (m->len < sizeof(w))
		return -EPROTO;
	memcpy(&w, m->p, sizeof(w));
	for (i = 0; i < NSTRINGS; i++) {
		if (w.len[i] == UINT32_MAX)
			continue;
		if (w.len[i] > m->len - off)
			return -EPROTO;
		/* The strings lie end to end: each gets its own copy. */
		p->own[i] = strndup((const char *)m->p + off, w.len[i]);
		if (p->own[i] == NULL)
			return -ENOMEM;
		*s[i] = p->own[i];
		off += w.len[i];
	}
	if (off != m->len)
		return -EPROTO;
	if (p->e.name == NULL)
		p->e.name = "";
	if (p->e.reason == NULL)
		p->e.reason = "none";
	p->e.type = (enum pfx_entry_type)w.type;
	p->e.status = (enum pfx_entry_status)w.status;
	p->e.decision = (enum pfx_decision)w.decision;
	p->e.error = w.error;
	p->e.mode = (mode_t)w.mode;
	p->e.size = w.size;
	p->e.mtime = w.mtime;
	p->e.uid = w.uid;
	p->e.gid = w.gid;
	p->e.bytes = w.bytes;
	return 0;
}

static void
free_parsed(struct parsed *p)
{
	int i;

	for (i = 0; i < NSTRINGS; i++)
		free(p->own[i]);
}

/* The stable resolver name the child named, as a static string. */
static const char *
resolver_name(const char *s)
{
	if (strcmp(s, "openat2") == 0)
		return "openat2";
	if (strcmp(s, "walk") == 0)
		return "walk";
	return "none";
}

/* Answer a decide message about E with the caller's hook. */
static int
answer(int fd, const struct pfx_options *opt, const struct pfx_entry *e)
{
	char buf[sizeof(int32_t) + PFX_PATH_MAX];
	int32_t a;
	size_t n;

	buf[sizeof(a)] = '\0';
	a = opt->hooks.decide(opt->hooks.arg, e, buf + sizeof(a),
	    PFX_PATH_MAX);
	n = a == PFX_HOOK_RENAME ? strnlen(buf + sizeof(a), PFX_PATH_MAX) : 0;
	if (n == PFX_PATH_MAX)
		a = PFX_HOOK_ABORT;	/* not terminated: a caller bug */
	memcpy(buf, &a, sizeof(a));
	return send_msg(fd, MSG_ANSWER, buf, sizeof(a) + (a ==
	    PFX_HOOK_RENAME ? n : 0));
}

/* Wait until FD is readable, asking the child to stop once the caller's
 * cancel flag is set.  Return: 0 when readable, or -errno. */
static int
wait_readable(int fd, pid_t pid, const struct pfx_options *opt,
    bool *asked)
{
	struct pollfd p = { fd, POLLIN, 0 };
	int n;

	for (;;) {
		if (opt->cancel != NULL && *opt->cancel && !*asked) {
			(void)kill(pid, SIGTERM);
			*asked = true;
		}
		n = poll(&p, 1, POLL_MS);
		if (n > 0)
			return 0;
		if (n < 0 && errno != EINTR)
			return -errno;
	}
}

/* Fill RES from result message M.  Return: 0, or -EPROTO. */
static int
take_result(const struct msg *m, struct pfx_result *res)
{
	struct wire_result w;

	if (m->len != sizeof(w))
		return -EPROTO;
	memcpy(&w, m->p, sizeof(w));
	if (w.status < PFX_OK || w.status > PFX_FATAL)
		return -EPROTO;
	res->status = (enum pfx_status)w.status;
	res->error = w.error;
	res->stats = w.stats;
	res->sandbox = w.sandbox;
	res->sandbox.text[sizeof(res->sandbox.text) - 1] = '\0';
	memcpy(res->message, w.message, sizeof(res->message));
	res->message[sizeof(res->message) - 1] = '\0';
	w.resolver[sizeof(w.resolver) - 1] = '\0';
	res->resolver = resolver_name(w.resolver);
	return 0;
}

/* Serve the child's messages until its result.  Return: 0, or -errno. */
static int
serve(int fd, pid_t pid, const struct pfx_options *opt,
    struct pfx_result *res)
{
	struct msg m = { NULL, 0 };
	struct parsed pe;
	struct pfx_sandbox_info info;
	bool asked = false;
	size_t cap = 0;
	int type, r = 0;

	for (;;) {
		r = wait_readable(fd, pid, opt, &asked);
		if (r < 0)
			break;
		type = recv_msg(fd, &m, &cap);
		if (type < 0) {
			r = type;
			break;
		}
		if (type == MSG_RESULT) {
			r = take_result(&m, res);
			break;
		}
		if (type == MSG_UNMATCHED && opt->hooks.unmatched != NULL) {
			opt->hooks.unmatched(opt->hooks.arg, (char *)m.p);
			continue;
		}
		if (type == MSG_CONFINED && m.len == sizeof(info) &&
		    opt->hooks.confined != NULL) {
			memcpy(&info, m.p, sizeof(info));
			info.text[sizeof(info.text) - 1] = '\0';
			opt->hooks.confined(opt->hooks.arg, &info);
			continue;
		}
		if (type != MSG_REPORT && type != MSG_DECIDE) {
			r = -EPROTO;
			break;
		}
		r = parse_entry(&m, &pe);
		if (r == 0 && type == MSG_REPORT &&
		    opt->hooks.report != NULL)
			opt->hooks.report(opt->hooks.arg, &pe.e);
		else if (r == 0 && type == MSG_DECIDE &&
		    opt->hooks.decide != NULL)
			r = answer(fd, opt, &pe.e);
		else if (r == 0 && type == MSG_DECIDE)
			r = -EPROTO;
		free_parsed(&pe);
		if (r < 0)
			break;
	}
	free(m.p);
	return r;
}

/* Why the child ended without a result, in RES. */
static void
child_failed(struct pfx_result *res, int r, int status)
{
	res->status = PFX_FATAL;
	if (WIFSIGNALED(status)) {
		res->error = ECHILD;
		snprintf(res->message, sizeof(res->message), "the confined "
		    "extraction process was killed by signal %d (%s)",
		    WTERMSIG(status), strsignal(WTERMSIG(status)));
	} else {
		res->error = r < 0 ? -r : ECHILD;
		snprintf(res->message, sizeof(res->message), "the confined "
		    "extraction process ended without a result: %s",
		    strerror(res->error));
	}
}

/* see extract.h */
enum pfx_status
xtr_extract_in_child(const struct pfx_input *in, int dirfd,
    const char *dest, const struct pfx_options *opt,
    struct pfx_result *res)
{
	sigset_t stops, old;
	int sv[2], r, status = 0;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == -1) {
		res->status = PFX_FATAL;
		res->error = errno;
		snprintf(res->message, sizeof(res->message), "cannot start "
		    "the confined extraction process: %s", strerror(errno));
		return res->status;
	}
	/* Held until the child has its own handlers, so that a stop asked
	 * for at once still ends the run cleanly. */
	(void)sigemptyset(&stops);
	(void)sigaddset(&stops, SIGTERM);
	(void)sigaddset(&stops, SIGINT);
	(void)sigaddset(&stops, SIGHUP);
	(void)pthread_sigmask(SIG_BLOCK, &stops, &old);
	pid = fork();
	if (pid != 0)
		(void)pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (pid == -1) {
		res->status = PFX_FATAL;
		res->error = errno;
		snprintf(res->message, sizeof(res->message), "cannot start "
		    "the confined extraction process: %s", strerror(errno));
		(void)close(sv[0]);
		(void)close(sv[1]);
		return res->status;
	}
	if (pid == 0) {
		(void)close(sv[0]);
		run_child(sv[1], in, dirfd, dest, opt, &old);
	}
	(void)close(sv[1]);
	r = serve(sv[0], pid, opt, res);
	(void)close(sv[0]);
	if (r < 0)
		(void)kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		continue;
	if (r < 0 || (WIFSIGNALED(status) && res->status != PFX_FATAL))
		child_failed(res, r, status);
	return res->status;
}
