/*
 * tsan_caller.c -- a program built with ThreadSanitizer that uses the
 * library built without it (obj/libpfextract.so), as an installer under
 * test does: two threads each extract the archive ARGV[1] in this
 * process into DIR/a and DIR/b (ARGV[2]).  tests/tsan.sh runs it with
 * the suppressions `make install` ships (tests/tsan.supp): no report may
 * remain.  Exit: 0 when both runs extracted every entry, else 1.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "pfextract.h"

struct job {
	const char *archive;
	char dest[4096];
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
	opt.flags |= PFX_OPT_ATOMIC;
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
	struct job jobs[2];
	pthread_t t[2];
	int i;

	if (argc != 3) {
		fputs("usage: tsan_caller archive dir\n", stderr);
		return 2;
	}
	for (i = 0; i < 2; i++) {
		memset(&jobs[i], 0, sizeof(jobs[i]));
		jobs[i].archive = argv[1];
		(void)snprintf(jobs[i].dest, sizeof(jobs[i].dest), "%s/%c",
		    argv[2], 'a' + i);
		if (pthread_create(&t[i], NULL, run, &jobs[i]) != 0)
			return 1;
	}
	for (i = 0; i < 2; i++)
		(void)pthread_join(t[i], NULL);
	for (i = 0; i < 2; i++) {
		if (jobs[i].status != PFX_OK || jobs[i].reports == 0)
			return 1;
	}
	return 0;
}
