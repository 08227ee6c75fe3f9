/*
 * measure.c -- run a command and say what it cost, for bench/run.sh.
 *
 * usage: measure [-n] [-i file] command [arg ...]
 *        measure [-n] -l list command [arg ...]
 *
 * -i file  the command reads FILE on its standard input.
 * -n       the command's standard output goes to /dev/null (its standard
 *          error stays, so a failing tool still says why).
 * -l list  run the command once per line of LIST, each "ARCHIVE<TAB>DEST":
 *          an argument that is exactly "{a}" becomes ARCHIVE, one that is
 *          exactly "{d}" becomes DEST.  The runs go one after the other;
 *          their wall times are summed.
 *
 * One line on standard output:
 *   wall S cpu S user S sys S rss_kib K status N runs N tree_kib K
 * wall is CLOCK_MONOTONIC from just before fork(2) to the return of
 * wait4(2) for the command.  This program is the subreaper of the tree it
 * starts (PR_SET_CHILD_SUBREAPER), so every process of the tree is waited
 * for, by its parent or, orphaned, by this program after the command
 * exits: cpu is user + sys of them all (getrusage(RUSAGE_CHILDREN): GNU
 * tar's gzip, xz or zstd, pfextract's decoder process), and rss_kib is
 * the largest peak resident set of any one process of the tree
 * (ru_maxrss), exact; it cannot be less than the 1.5 MiB or so of this
 * program that a child holds between fork(2) and execvp(3).  tree_kib is
 * the peak of the sum over the tree: every SAMPLE_MS while the command
 * runs, the resident sets of the tree's live processes (/proc/PID/statm)
 * are added up; the largest sum, or rss_kib if that is larger, is
 * tree_kib.  It is sampled, so a peak shorter than SAMPLE_MS can be
 * missed, and a page mapped by two processes of the tree counts in each:
 * pfextract's ring, shared with its decoder process, and the pages that
 * process still shares with pfextract since fork(2).  status is 0,
 * or the first nonzero exit status, 128 + N for signal N; a list goes on
 * to its end after a failure.
 *
 * Exit status: 0 every run exited 0, 1 a run failed (the line is printed
 * all the same), 2 usage, 3 an error of measure itself.  In the child, a
 * command that cannot be executed exits 127 (not found) or 126.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* A list line is two paths and a tab: PATH_MAX each is plenty. */
#define LINE_MAX_BYTES 8192

/* How often the tree's resident sets are added up: often enough for the
 * peaks of a run of seconds, rarely enough to cost next to nothing (a
 * read of /proc and one small file per process of the tree). */
#define SAMPLE_MS 10

/* The sum over the runs so far. */
struct total {
	double wall;	/* seconds */
	int status;	/* first nonzero status, or 0 */
	long runs;
};

/* What the child starts with: its standard input and output (-1:
 * inherited), and the signal mask this program had before it blocked
 * SIGCHLD. */
struct redirect {
	int in;
	int out;
	sigset_t mask;
};

/* A set of pids, sorted. */
struct pidset {
	pid_t *v;
	size_t n;
	size_t cap;
};

/* A process found new by a sample, and its parent. */
struct fresh {
	pid_t pid;
	pid_t ppid;
	int taken;	/* found to be in the tree */
};

/* The process tree below this program, as the samples see it. */
struct tree {
	DIR *proc;		/* /proc, read again by every sample */
	struct pidset seen;	/* every pid looked at, in the tree or not */
	struct pidset live;	/* the tree's processes that were alive */
	struct fresh *fresh;	/* scratch: the pids new to one sample */
	size_t nfresh;
	size_t capfresh;
	pid_t self;
	long last_pid;		/* /proc/loadavg's, at the last scan */
	long page_kib;
	long peak_kib;		/* the largest sum so far */
};

static void
usage(void)
{
	fprintf(stderr, "usage: measure [-n] [-i file] command [arg ...]\n"
			"       measure [-n] -l list command [arg ...]\n");
	exit(2);
}

/* Print "measure: WHAT: strerror(ERR)" and exit 3. */
static void
die(const char *what, int err)
{
	fprintf(stderr, "measure: %s: %s\n", what, strerror(err));
	exit(3);
}

/*
 * In the child, say that CALL failed and leave with CODE.  Only write(2):
 * nothing that the parent's stdio buffers could duplicate.
 */
static void
child_fail(const char *call, const char *arg, int err, int code)
{
	const char *msg = strerror(err);

	(void)!write(2, "measure: ", 9);
	(void)!write(2, call, strlen(call));
	(void)!write(2, " ", 1);
	(void)!write(2, arg, strlen(arg));
	(void)!write(2, ": ", 2);
	(void)!write(2, msg, strlen(msg));
	(void)!write(2, "\n", 1);
	_exit(code);
}

/* The child: take the redirections, become ARGV.  Never returns. */
static void
child(const struct redirect *r, char **argv)
{
	int err;

	if (sigprocmask(SIG_SETMASK, &r->mask, NULL) == -1)
		child_fail("sigprocmask", "", errno, 126);
	if (r->in >= 0 && dup2(r->in, 0) == -1)
		child_fail("dup2", "stdin", errno, 126);
	if (r->out >= 0 && dup2(r->out, 1) == -1)
		child_fail("dup2", "stdout", errno, 126);
	execvp(argv[0], argv);
	err = errno;
	child_fail("exec", argv[0], err, err == ENOENT ? 127 : 126);
}

/* Seconds on the monotonic clock. */
static double
now(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) == -1)
		die("clock_gettime", errno);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Room in S for one more pid; exit(3) when there is no memory. */
static void
set_grow(struct pidset *s)
{
	pid_t *v;

	if (s->n < s->cap)
		return;
	s->cap = s->cap == 0 ? 256 : 2 * s->cap;
	v = realloc(s->v, s->cap * sizeof(*v));
	if (v == NULL)
		die("realloc", errno);
	s->v = v;
}

/* The index in S where PID is or would go. */
static size_t
set_find(const struct pidset *s, pid_t pid)
{
	size_t lo = 0, hi = s->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (s->v[mid] < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int
set_has(const struct pidset *s, pid_t pid)
{
	size_t i = set_find(s, pid);

	return i < s->n && s->v[i] == pid;
}

/* Add PID to S, where it is not yet. */
static void
set_add(struct pidset *s, pid_t pid)
{
	size_t i = set_find(s, pid);

	set_grow(s);
	memmove(&s->v[i + 1], &s->v[i], (s->n - i) * sizeof(*s->v));
	s->v[i] = pid;
	s->n++;
}

/* Remove the pid at index I of S. */
static void
set_del(struct pidset *s, size_t i)
{
	memmove(&s->v[i], &s->v[i + 1], (s->n - i - 1) * sizeof(*s->v));
	s->n--;
}

/*
 * Read up to SIZE - 1 bytes of the /proc file of PID named NAME into BUF,
 * NUL-terminated.  Return: 0, or -1 when the process is gone (or the file
 * cannot be read, which for this program is the same).
 */
static int
read_proc(pid_t pid, const char *name, char *buf, size_t size)
{
	char path[64];
	ssize_t n;
	int fd;

	(void)snprintf(path, sizeof(path), "/proc/%ld/%s", (long)pid, name);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd == -1)
		return -1;
	do
		n = read(fd, buf, size - 1);
	while (n == -1 && errno == EINTR);
	(void)close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

/* The parent of PID, or -1 when it is gone.  The command name in
 * /proc/PID/stat is in parentheses and may hold any byte but NUL, so the
 * fields are read after its last ')'. */
static pid_t
parent_of(pid_t pid)
{
	char buf[128], *p;
	long ppid;

	if (read_proc(pid, "stat", buf, sizeof(buf)) == -1)
		return -1;
	p = strrchr(buf, ')');
	if (p == NULL || sscanf(p + 1, " %*c %ld", &ppid) != 1)
		return -1;
	return (pid_t)ppid;
}

/* Remember PID and its parent PPID as new to this sample. */
static void
fresh_add(struct tree *t, pid_t pid, pid_t ppid)
{
	struct fresh *f;

	if (t->nfresh == t->capfresh) {
		t->capfresh = t->capfresh == 0 ? 256 : 2 * t->capfresh;
		f = realloc(t->fresh, t->capfresh * sizeof(*f));
		if (f == NULL)
			die("realloc", errno);
		t->fresh = f;
	}
	t->fresh[t->nfresh].pid = pid;
	t->fresh[t->nfresh].ppid = ppid;
	t->fresh[t->nfresh].taken = 0;
	t->nfresh++;
}

/* The last pid the kernel handed out (the last field of /proc/loadavg),
 * or -1 when it cannot be read. */
static long
last_pid(void)
{
	char buf[128], *p;
	ssize_t n;
	int fd;

	fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd == -1)
		return -1;
	do
		n = read(fd, buf, sizeof(buf) - 1);
	while (n == -1 && errno == EINTR);
	(void)close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	p = strrchr(buf, ' ');
	return p == NULL ? -1 : strtol(p + 1, NULL, 10);
}

/*
 * Put the processes of /proc not seen before into T->fresh.  Reading all
 * of /proc is most of what a sample costs, so it is skipped when no pid
 * has been handed out since the last scan (no process or thread made
 * anywhere): then nothing can be new.
 */
static void
scan_new(struct tree *t)
{
	struct dirent *d;
	char *end;
	long v, last;

	t->nfresh = 0;
	last = last_pid();
	if (last != -1 && last == t->last_pid)
		return;
	t->last_pid = last;
	rewinddir(t->proc);
	for (;;) {
		errno = 0;
		d = readdir(t->proc);
		if (d == NULL)
			break;
		v = strtol(d->d_name, &end, 10);
		if (end == d->d_name || *end != '\0' || v <= 0 ||
		    set_has(&t->seen, (pid_t)v))
			continue;
		set_add(&t->seen, (pid_t)v);
		fresh_add(t, (pid_t)v, parent_of((pid_t)v));
	}
	if (errno != 0)
		die("/proc", errno);
}

/* Add to T->live the fresh processes whose parent is this program or a
 * process of the tree.  A parent may come after its child in /proc (the
 * pids wrapped), so the list is gone through until nothing changes. */
static void
adopt_fresh(struct tree *t)
{
	size_t i;
	int changed;

	do {
		changed = 0;
		for (i = 0; i < t->nfresh; i++) {
			if (t->fresh[i].taken ||
			    (t->fresh[i].ppid != t->self &&
				!set_has(&t->live, t->fresh[i].ppid)))
				continue;
			set_add(&t->live, t->fresh[i].pid);
			t->fresh[i].taken = 1;
			changed = 1;
		}
	} while (changed);
}

/* One sample: the tree's processes, their resident sets added up. */
static void
tree_sample(struct tree *t)
{
	char buf[128];
	long size, resident, kib = 0;
	size_t i = 0;

	scan_new(t);
	adopt_fresh(t);
	while (i < t->live.n) {
		if (read_proc(t->live.v[i], "statm", buf, sizeof(buf)) == -1 ||
		    sscanf(buf, "%ld %ld", &size, &resident) != 2) {
			set_del(&t->live, i);	/* gone */
			continue;
		}
		kib += resident * t->page_kib;
		i++;
	}
	if (kib > t->peak_kib)
		t->peak_kib = kib;
}

/* Wait for PID, sampling T every SAMPLE_MS until it exits; *WS gets its
 * status.  SIGCHLD is blocked, so its arrival ends a wait at once.  Exit(3)
 * when wait4 fails. */
static void
wait_sampling(pid_t pid, int *ws, struct tree *t)
{
	struct timespec ts = { 0, SAMPLE_MS * 1000000L };
	sigset_t chld;
	pid_t got;

	(void)sigemptyset(&chld);
	(void)sigaddset(&chld, SIGCHLD);
	for (;;) {
		got = wait4(pid, ws, WNOHANG, NULL);
		if (got == pid)
			return;
		if (got == -1 && errno != EINTR)
			die("wait4", errno);
		if (sigtimedwait(&chld, NULL, &ts) == -1 && errno == EAGAIN)
			tree_sample(t);
	}
}

/* Wait for what is left of the tree: the orphans this program, as their
 * subreaper, inherited.  Their usage then counts in RUSAGE_CHILDREN. */
static void
reap_orphans(void)
{
	int ws;

	for (;;) {
		if (wait4(-1, &ws, 0, NULL) != -1)
			continue;
		if (errno == ECHILD)
			return;
		if (errno != EINTR)
			die("wait4", errno);
	}
}

/* Run ARGV once and wait for it, sampling T; add its wall time and status
 * to TOT.  Exit(3) when fork or wait fails. */
static void
run_once(const struct redirect *r, char **argv, struct tree *t,
    struct total *tot)
{
	double start;
	pid_t pid;
	int ws, status;

	start = now();
	pid = fork();
	if (pid == -1)
		die("fork", errno);
	if (pid == 0)
		child(r, argv);
	wait_sampling(pid, &ws, t);
	tot->wall += now() - start;
	reap_orphans();
	tot->runs++;
	if (WIFEXITED(ws))
		status = WEXITSTATUS(ws);
	else if (WIFSIGNALED(ws))
		status = 128 + WTERMSIG(ws);
	else
		status = 255;
	if (tot->status == 0)
		tot->status = status;
}

/*
 * Split LINE ("ARCHIVE<TAB>DEST\n") in place into *ARCHIVE and *DEST.
 * Return: 0, or -1 when the line has no tab or an empty field.
 */
static int
split_line(char *line, char **archive, char **dest)
{
	size_t len = strlen(line);
	char *tab;

	if (len > 0 && line[len - 1] == '\n')
		line[--len] = '\0';
	tab = strchr(line, '\t');
	if (tab == NULL || tab == line || tab[1] == '\0')
		return -1;
	*tab = '\0';
	*archive = line;
	*dest = tab + 1;
	return 0;
}

/* Fill ARGV from TMPL, "{a}" and "{d}" replaced. */
static void
fill_argv(char **argv, char **tmpl, int n, char *archive, char *dest)
{
	int i;

	for (i = 0; i < n; i++) {
		if (strcmp(tmpl[i], "{a}") == 0)
			argv[i] = archive;
		else if (strcmp(tmpl[i], "{d}") == 0)
			argv[i] = dest;
		else
			argv[i] = tmpl[i];
	}
	argv[n] = NULL;
}

/* Say what is wrong with line LINENO of LIST and exit(3). */
static void
bad_line(const char *list, long lineno, const char *why)
{
	fprintf(stderr, "measure: %s:%ld: %s\n", list, lineno, why);
	exit(3);
}

/* Run TMPL (N arguments) once per line of the list file LIST, sampling
 * TR, adding to T.  Exit(3) on a read error, a malformed line or an empty
 * list. */
static void
run_list(const char *list, const struct redirect *r, char **tmpl, int n,
    struct tree *tr, struct total *t)
{
	char line[LINE_MAX_BYTES], *archive, *dest;
	char **argv;
	long lineno = 0;
	FILE *f;

	argv = calloc((size_t)n + 1, sizeof(*argv));
	if (argv == NULL)
		die("calloc", errno);
	f = fopen(list, "r");
	if (f == NULL)
		die(list, errno);
	while (fgets(line, sizeof(line), f) != NULL) {
		lineno++;
		if (strchr(line, '\n') == NULL && !feof(f))
			bad_line(list, lineno, "line too long");
		if (split_line(line, &archive, &dest) == -1)
			bad_line(list, lineno, "not ARCHIVE<TAB>DEST");
		fill_argv(argv, tmpl, n, archive, dest);
		run_once(r, argv, tr, t);
	}
	if (ferror(f))
		die(list, errno);
	if (fclose(f) == EOF)
		die(list, errno);
	free(argv);
	if (lineno == 0)
		bad_line(list, 0, "empty list");
}

/* Open PATH read-only, or write-only if WR, close-on-exec; exit(3) on
 * error. */
static int
open_or_die(const char *path, int wr)
{
	int fd;

	fd = open(path, (wr ? O_WRONLY : O_RDONLY) | O_CLOEXEC | O_NOCTTY);
	if (fd == -1)
		die(path, errno);
	return fd;
}

/* Print the line for T, TR's peak and the children's usage; exit(3) on
 * error. */
static void
report(const struct total *t, const struct tree *tr)
{
	struct rusage ru;
	double user, sys;

	if (getrusage(RUSAGE_CHILDREN, &ru) == -1)
		die("getrusage", errno);
	user = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
	sys = (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	if (printf("wall %.6f cpu %.6f user %.6f sys %.6f rss_kib %ld "
		   "status %d runs %ld tree_kib %ld\n",
		t->wall, user + sys, user, sys, ru.ru_maxrss, t->status,
		t->runs, tr->peak_kib > ru.ru_maxrss ? tr->peak_kib :
		ru.ru_maxrss) < 0 ||
	    fflush(stdout) == EOF)
		die("stdout", errno);
}

/*
 * Make this program the subreaper of what it starts, block SIGCHLD (its
 * arrival ends a wait between samples; R->mask keeps the mask the
 * commands get back) and open /proc for the samples.  Exit(3) on error.
 */
static void
setup(struct redirect *r, struct tree *tr)
{
	sigset_t chld;
	long page;

	if (prctl(PR_SET_CHILD_SUBREAPER, 1L, 0L, 0L, 0L) == -1)
		die("prctl(PR_SET_CHILD_SUBREAPER)", errno);
	(void)sigemptyset(&chld);
	(void)sigaddset(&chld, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &chld, &r->mask) == -1)
		die("sigprocmask", errno);
	memset(tr, 0, sizeof(*tr));
	tr->proc = opendir("/proc");
	if (tr->proc == NULL)
		die("/proc", errno);
	tr->self = getpid();
	tr->last_pid = -1;
	page = sysconf(_SC_PAGESIZE);
	tr->page_kib = page > 0 ? page / 1024 : 4;
}

/* Let go of what setup() and the samples took. */
static void
teardown(struct tree *tr)
{
	(void)closedir(tr->proc);
	free(tr->seen.v);
	free(tr->live.v);
	free(tr->fresh);
}

int
main(int argc, char **argv)
{
	struct redirect r = { -1, -1, { { 0 } } };
	struct total t = { 0, 0, 0 };
	struct tree tr;
	const char *list = NULL;
	int c;

	for (;;) {
		c = getopt(argc, argv, "+i:l:n");
		if (c == -1)
			break;
		switch (c) {
		case 'i':
			r.in = open_or_die(optarg, 0);
			break;
		case 'l':
			list = optarg;
			break;
		case 'n':
			r.out = open_or_die("/dev/null", 1);
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1 || (list != NULL && r.in >= 0))
		usage();
	setup(&r, &tr);
	if (list != NULL)
		run_list(list, &r, argv, argc, &tr, &t);
	else
		run_once(&r, argv, &tr, &t);
	report(&t, &tr);
	teardown(&tr);
	return t.status == 0 ? 0 : 1;
}
