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
 *   wall S cpu S user S sys S rss_kib K status N runs N
 * wall is CLOCK_MONOTONIC from just before fork(2) to the return of
 * wait4(2).  cpu is user + sys of every descendant that was waited for
 * (getrusage(RUSAGE_CHILDREN)): GNU tar's gzip, xz or zstd is its child and
 * is counted.  rss_kib is the largest peak resident set among them
 * (ru_maxrss of RUSAGE_CHILDREN); it cannot be less than the 1.5 MiB or so
 * of this program that a child holds between fork(2) and execvp(3).
 * status is 0, or the first nonzero exit status, 128 + N for signal N; a
 * list goes on to its end after a failure.
 *
 * Exit status: 0 every run exited 0, 1 a run failed (the line is printed
 * all the same), 2 usage, 3 an error of measure itself.  In the child, a
 * command that cannot be executed exits 127 (not found) or 126.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* A list line is two paths and a tab: PATH_MAX each is plenty. */
#define LINE_MAX_BYTES 8192

/* The sum over the runs so far. */
struct total {
	double wall;	/* seconds */
	int status;	/* first nonzero status, or 0 */
	long runs;
};

/* Where the child's standard input and output come from: -1 inherited. */
struct redirect {
	int in;
	int out;
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

/* Run ARGV once and wait for it; add its wall time and status to T.  Exit(3)
 * when fork or wait fails. */
static void
run_once(const struct redirect *r, char **argv, struct total *t)
{
	double start;
	pid_t pid, got;
	int ws, status;

	start = now();
	pid = fork();
	if (pid == -1)
		die("fork", errno);
	if (pid == 0)
		child(r, argv);
	do
		got = wait4(pid, &ws, 0, NULL);
	while (got == -1 && errno == EINTR);
	if (got == -1)
		die("wait4", errno);
	t->wall += now() - start;
	t->runs++;
	if (WIFEXITED(ws))
		status = WEXITSTATUS(ws);
	else if (WIFSIGNALED(ws))
		status = 128 + WTERMSIG(ws);
	else
		status = 255;
	if (t->status == 0)
		t->status = status;
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

/* Run TMPL (N arguments) once per line of the list file LIST, adding to T.
 * Exit(3) on a read error, a malformed line or an empty list. */
static void
run_list(const char *list, const struct redirect *r, char **tmpl, int n,
    struct total *t)
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
		run_once(r, argv, t);
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

/* Print the line for T and the children's usage; exit(3) on error. */
static void
report(const struct total *t)
{
	struct rusage ru;
	double user, sys;

	if (getrusage(RUSAGE_CHILDREN, &ru) == -1)
		die("getrusage", errno);
	user = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
	sys = (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	if (printf("wall %.6f cpu %.6f user %.6f sys %.6f rss_kib %ld "
		   "status %d runs %ld\n",
		t->wall, user + sys, user, sys, ru.ru_maxrss, t->status,
		t->runs) < 0 ||
	    fflush(stdout) == EOF)
		die("stdout", errno);
}

int
main(int argc, char **argv)
{
	struct redirect r = { -1, -1 };
	struct total t = { 0, 0, 0 };
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
	if (list != NULL)
		run_list(list, &r, argv, argc, &t);
	else
		run_once(&r, argv, &t);
	report(&t);
	return t.status == 0 ? 0 : 1;
}
