/*
 * tsan_caller.c -- a program built with ThreadSanitizer that uses the
 * library built without it (obj/libpfextract.so), as an installer under
 * test does: two threads each extract the archive ARGV[1] in this
 * process into DIR/a and DIR/b (ARGV[2]).  tests/tsan.sh runs it with
 * the suppressions `make install` ships (tests/tsan.supp): no report may
 * remain.  Exit: 0 when both runs extracted every entry, else 1.
 *
 * Linked with the library built with ThreadSanitizer too
 * (obj/tsan/tests/tsan_calls), with THREADS and NOFILE after DIR: that
 * many threads at once (DIR/a, DIR/b ...; every other one with a
 * plain destination, made here, the others PFX_OPT_ATOMIC) under
 * RLIMIT_NOFILE NOFILE, too low for what they keep open for speed
 * together: each call meets EMFILE, gives back and waits (fdbudget.c),
 * while its worker finishes its queue.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "pfextract.h"

/* Threads at most. */
#define JOBS 16

struct job {
	const char *archive;
	char dest[4096];
	unsigned int flags;
	enum pfx_status status;
	int reports;
};

static void
count(void *arg, const struct pfx_entry *e)
{
	(void)e;
	((struct job *)arg)->reports++;
}

static void *
run(void *arg)
{
	struct job *j = arg;
	struct pfx_input in = { .path = j->archive, .fd = -1 };
	struct pfx_options opt;
	struct pfx_result res;

	pfx_options_init(&opt);
	/* Planned for three CPUs: the worker runs, whatever the machine. */
	opt.cpus = 3;
	opt.flags |= j->flags;
	opt.hooks.report = count;
	opt.hooks.arg = j;
	j->status = pfx_extract(&in, AT_FDCWD, j->dest, &opt, &res);
	if (j->status != PFX_OK)
		fprintf(stderr, "tsan_caller: %s: %s\n", j->dest, res.message);
	return NULL;
}

int
main(int argc, char **argv)
{
	static struct job jobs[JOBS];
	pthread_t t[JOBS];
	struct rlimit rl;
	int i, n = 2;

	if (argc != 3 && argc != 5) {
		fputs("usage: tsan_caller archive dir [threads nofile]\n",
		    stderr);
		return 2;
	}
	if (argc == 5) {
		n = atoi(argv[3]);
		if (n < 1 || n > JOBS || getrlimit(RLIMIT_NOFILE, &rl) != 0)
			return 2;
		rl.rlim_cur = strtoul(argv[4], NULL, 10);
		if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
			return 2;
	}
	for (i = 0; i < n; i++) {
		memset(&jobs[i], 0, sizeof(jobs[i]));
		jobs[i].archive = argv[1];
		(void)snprintf(jobs[i].dest, sizeof(jobs[i].dest), "%s/%c",
		    argv[2], 'a' + i);
		jobs[i].flags = PFX_OPT_ATOMIC;
		if (argc == 5 && i % 2 == 1) {
			jobs[i].flags = 0;
			if (mkdir(jobs[i].dest, 0755) != 0)
				return 2;
		}
	}
	for (i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, run, &jobs[i]) != 0)
			return 1;
	for (i = 0; i < n; i++)
		(void)pthread_join(t[i], NULL);
	for (i = 0; i < n; i++) {
		if (jobs[i].status != PFX_OK || jobs[i].reports == 0)
			return 1;
	}
	return 0;
}
