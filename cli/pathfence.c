/*
 * pathfence.c -- pathfence(1): the decision core as a command, so that any
 * language can ask the question pfextract asks of every archive entry.
 *
 * One JSON object per input, one per line, in input order.  Exit status:
 * 0 every input allowed, 1 any denied or rejected, 2 usage or I/O error.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/pfx_path.h"
#include "json.h"

#define EXIT_ALLOWED 0
#define EXIT_REFUSED 1
#define EXIT_USAGE 2

/*
 * The longest line kept from standard input.  Anything longer is far past
 * PFX_PATH_MAX, so it is rejected as too_long whatever follows; the rest of
 * the line is read and dropped so that memory stays bounded.
 */
#define LINE_MAX_KEPT 65536

#define VERSION "0.2.0"

static const char usage_line[] =
    "usage: pathfence check [--windows] [--allow dir] [--deny dir]\n"
    "                       [--stdin [-0]] [--] [path ...]\n";

struct options {
	struct pfx_span *allow;
	size_t nallow;
	struct pfx_span *deny;
	size_t ndeny;
	unsigned int flags;
	bool from_stdin;
	bool nul_separated;
	char **paths;
	size_t npaths;
};

static void usage_error(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

static void
usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("pathfence: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fputs(usage_line, stderr);
}

/*
 * Turn DIR into a normalised absolute root in new memory: relative to BASE
 * if given (a ".." may not climb above it, as in a path), else to the
 * current directory (a ".." may climb up to "/": "../x" from /a/b is
 * /a/x, as pathfence(1) says).
 * Return: the span, with ptr NULL on failure (a message is printed).
 */
static struct pfx_span
make_root(const char *dir, const struct pfx_span *base)
{
	struct pfx_span out = { NULL, 0 };
	char cwd[PFX_PATH_MAX], joined[2 * PFX_PATH_MAX];
	const char *b = "", *in = dir;
	size_t blen = 0;
	enum pfx_reason r;
	char *buf;
	int n;

	if (dir[0] != '/' && base != NULL) {
		b = base->ptr;
		blen = base->len;
	} else if (dir[0] != '/' && dir[0] != '\0') {
		if (getcwd(cwd, sizeof(cwd)) == NULL) {
			fprintf(stderr, "pathfence: getcwd: %s\n",
			    strerror(errno));
			return out;
		}
		/* Joined, not taken as a base: a base is a floor. */
		n = snprintf(joined, sizeof(joined), "%s/%s", cwd, dir);
		if (n < 0 || (size_t)n >= sizeof(joined)) {
			fprintf(stderr, "pathfence: bad directory '%s': %s\n",
			    dir, pfx_reason_name(PFX_R_TOO_LONG));
			return out;
		}
		in = joined;
	}
	buf = malloc(PFX_PATH_MAX);
	if (buf == NULL) {
		fprintf(stderr, "pathfence: %s\n", strerror(errno));
		return out;
	}
	r = pfx_path_normalize(in, strlen(in), b, blen, 0, buf,
	    PFX_PATH_MAX, &out.len);
	if (r != PFX_R_NONE) {
		fprintf(stderr, "pathfence: bad directory '%s': %s\n", dir,
		    pfx_reason_name(r));
		free(buf);
		return out;
	}
	out.ptr = buf;
	return out;
}

/* Does ARG name long option NAME, as "--name" or "--name=value"? */
static const char *
long_value(const char *arg, const char *name, int *argi, int argc,
    char **argv)
{
	size_t n = strlen(name);

	if (strncmp(arg, name, n) != 0)
		return NULL;
	if (arg[n] == '=')
		return arg + n + 1;
	if (arg[n] != '\0')
		return NULL;
	if (*argi + 1 >= argc)
		return NULL;
	return argv[++*argi];
}

/*
 * Parse ARGV after "check" into *O; directories are kept as given and
 * normalised by make_roots().  Return: 0, or EXIT_USAGE (printed).
 */
static int
parse_args(int argc, char **argv, struct options *o, char **dirs_allow,
    char **dirs_deny)
{
	const char *v;
	int i;

	for (i = 2; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--") == 0) {
			i++;
			break;
		}
		if (a[0] != '-' || a[1] == '\0')
			break;
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			fputs(usage_line, stdout);
			exit(EXIT_ALLOWED);
		} else if (strcmp(a, "--version") == 0) {
			puts("pathfence " VERSION);
			exit(EXIT_ALLOWED);
		} else if (strcmp(a, "--windows") == 0) {
			o->flags |= PFX_POLICY_WINDOWS;
		} else if (strcmp(a, "--stdin") == 0) {
			o->from_stdin = true;
		} else if (strcmp(a, "-0") == 0 || strcmp(a, "--null") == 0) {
			o->nul_separated = true;
		} else if (strncmp(a, "--allow", 7) == 0 &&
		    (a[7] == '\0' || a[7] == '=')) {
			v = long_value(a, "--allow", &i, argc, argv);
			if (v == NULL) {
				usage_error("%s needs a directory", a);
				return EXIT_USAGE;
			}
			dirs_allow[o->nallow++] = (char *)v;
		} else if (strncmp(a, "--deny", 6) == 0 &&
		    (a[6] == '\0' || a[6] == '=')) {
			v = long_value(a, "--deny", &i, argc, argv);
			if (v == NULL) {
				usage_error("%s needs a directory", a);
				return EXIT_USAGE;
			}
			dirs_deny[o->ndeny++] = (char *)v;
		} else {
			usage_error("unknown option '%s'", a);
			return EXIT_USAGE;
		}
	}
	o->paths = argv + i;
	o->npaths = (size_t)(argc - i);
	if (o->nallow == 0) {
		usage_error("at least one --allow dir is required");
		return EXIT_USAGE;
	}
	if (o->nul_separated && !o->from_stdin) {
		usage_error("-0 only applies to --stdin");
		return EXIT_USAGE;
	}
	if (o->from_stdin && o->npaths > 0) {
		usage_error("paths and --stdin are exclusive");
		return EXIT_USAGE;
	}
	if (!o->from_stdin && o->npaths == 0) {
		usage_error("no paths to check (give some, or --stdin)");
		return EXIT_USAGE;
	}
	return 0;
}

/* Normalise the --allow and --deny directories.  0 or EXIT_USAGE. */
static int
make_roots(struct options *o, char **dirs_allow, char **dirs_deny)
{
	size_t i;

	for (i = 0; i < o->nallow; i++) {
		o->allow[i] = make_root(dirs_allow[i], NULL);
		if (o->allow[i].ptr == NULL)
			return EXIT_USAGE;
	}
	/* Relative denied directories are taken like paths: in allow[0]. */
	for (i = 0; i < o->ndeny; i++) {
		o->deny[i] = make_root(dirs_deny[i], &o->allow[0]);
		if (o->deny[i].ptr == NULL)
			return EXIT_USAGE;
	}
	return 0;
}

/* Write the verdict on IN as one JSON line.  Return: true if allowed. */
static bool
report(const struct options *o, const char *in, size_t len, bool truncated)
{
	struct pfx_policy pol = { o->allow, o->nallow, o->deny, o->ndeny,
		o->flags };
	struct pfx_verdict v;
	const struct pfx_span *root;

	pfx_path_check(&pol, in, len, &v);
	fputs("{\"input\":", stdout);
	json_put_string(stdout, in, len);
	if (truncated)
		fputs(",\"input_truncated\":true", stdout);
	printf(",\"decision\":\"%s\"", pfx_decision_name(v.decision));
	if (v.decision == PFX_REJECT) {
		printf(",\"reason\":\"%s\"}\n", pfx_reason_name(v.reason));
		return false;
	}
	fputs(",\"path\":", stdout);
	json_put_string(stdout, v.path, v.path_len);
	if (v.decision == PFX_DENY) {
		if (v.reason == PFX_R_DENIED) {
			printf(",\"reason\":\"%s\",\"denied_by\":",
			    pfx_reason_name(v.reason));
			json_put_string(stdout, o->deny[v.root].ptr,
			    o->deny[v.root].len);
		}
		fputs("}\n", stdout);
		return false;
	}
	root = &o->allow[v.root];
	fputs(",\"root\":", stdout);
	json_put_string(stdout, root->ptr, root->len);
	fputs(",\"rel\":", stdout);
	if (v.rel_len == 0)
		fputs("\".\"", stdout);
	else
		json_put_string(stdout, v.path + v.rel_off, v.rel_len);
	fputs("}\n", stdout);
	return true;
}

/*
 * Check every record of standard input, separated by newlines or NULs.
 * A final record without a separator counts; an empty input has none.
 * A write error ends the reading, left in stdout's error indicator.
 * Return: true if every record was allowed.
 */
static bool
check_stdin(const struct options *o, char *line)
{
	int sep = o->nul_separated ? '\0' : '\n';
	bool all = true, truncated = false, any = false;
	size_t n = 0;
	int c;

	for (;;) {
		c = getchar();
		if (c == EOF && !any)
			break;
		if (c == EOF || c == sep) {
			all &= report(o, line, n, truncated);
			/* A co-process waits for each answer.  Once one cannot
			 * be written, none can: stop, however long the input
			 * (the caller reports the error). */
			if (fflush(stdout) == EOF || ferror(stdout))
				return false;
			n = 0;
			truncated = false;
			any = false;
			if (c == EOF)
				break;
			continue;
		}
		any = true;
		if (n < LINE_MAX_KEPT)
			line[n++] = (char)c;
		else
			truncated = true;
	}
	return all;
}

static int
run_check(int argc, char **argv)
{
	struct options o;
	char **dirs_allow = NULL, **dirs_deny = NULL, *line = NULL;
	size_t i, n = (size_t)argc;
	bool all = true;
	int status = EXIT_USAGE;

	memset(&o, 0, sizeof(o));
	dirs_allow = calloc(n, sizeof(*dirs_allow));
	dirs_deny = calloc(n, sizeof(*dirs_deny));
	o.allow = calloc(n, sizeof(*o.allow));
	o.deny = calloc(n, sizeof(*o.deny));
	if (dirs_allow == NULL || dirs_deny == NULL || o.allow == NULL ||
	    o.deny == NULL) {
		fprintf(stderr, "pathfence: %s\n", strerror(errno));
		goto out;
	}
	if (parse_args(argc, argv, &o, dirs_allow, dirs_deny) != 0 ||
	    make_roots(&o, dirs_allow, dirs_deny) != 0)
		goto out;
	if (o.from_stdin) {
		line = malloc(LINE_MAX_KEPT);
		if (line == NULL) {
			fprintf(stderr, "pathfence: %s\n", strerror(errno));
			goto out;
		}
		all = check_stdin(&o, line);
		if (ferror(stdin)) {
			fprintf(stderr, "pathfence: reading stdin: %s\n",
			    strerror(errno));
			goto out;
		}
	} else {
		for (i = 0; i < o.npaths; i++)
			all &= report(&o, o.paths[i], strlen(o.paths[i]),
			    false);
	}
	if (fflush(stdout) == EOF || ferror(stdout)) {
		fprintf(stderr, "pathfence: write error: %s\n",
		    strerror(errno));
		goto out;
	}
	status = all ? EXIT_ALLOWED : EXIT_REFUSED;
out:
	for (i = 0; o.allow != NULL && i < o.nallow; i++)
		free((void *)o.allow[i].ptr);
	for (i = 0; o.deny != NULL && i < o.ndeny; i++)
		free((void *)o.deny[i].ptr);
	free(o.allow);
	free(o.deny);
	free(dirs_allow);
	free(dirs_deny);
	free(line);
	return status;
}

int
main(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "check") == 0)
		return run_check(argc, argv);
	if (argc == 2 && (strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "-h") == 0)) {
		fputs(usage_line, stdout);
		return EXIT_ALLOWED;
	}
	if (argc == 2 && strcmp(argv[1], "--version") == 0) {
		puts("pathfence " VERSION);
		return EXIT_ALLOWED;
	}
	if (argc < 2)
		usage_error("missing command");
	else
		usage_error("unknown command '%s'", argv[1]);
	return EXIT_USAGE;
}
