/*
 * replay.c -- run a harness over saved inputs without libFuzzer, so that
 * `make check` covers the fuzz corpora with the normal build (SQLite's
 * fuzzcheck does the same).
 *
 *	replay [-t seconds] dir|file ...
 *
 * Every regular file of each directory (names starting with '.' left
 * out), in sorted order, and every file named, is given to
 * LLVMFuzzerTestOneInput() in a child process of its own, so that one
 * crash is reported with its file name and the others still run.  A child
 * that dies of a signal (abort() included), exits non-zero, or runs past
 * the time guard (alarm(2), 20 seconds by default) is a crash.
 * Prints "replay: N inputs, C crashes"; exit status 0 only with no crash
 * and no unreadable input.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fuzz.h"

/* Inputs larger than this are not fuzz inputs: refuse them. */
#define REPLAY_MAX_INPUT (16u << 20)

static unsigned int timeout_s = 20;
static unsigned long ninputs, ncrashes, nerrors;

/*
 * Read PATH whole into a heap buffer of exactly its size, so that an
 * overread by the harness is one past the end, as under libFuzzer.
 * Return: the buffer (free it), or NULL with errno set.
 */
static uint8_t *
read_input(const char *path, size_t *len)
{
	struct stat st;
	uint8_t *buf;
	size_t got = 0;
	ssize_t n;
	int fd, saved;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd == -1)
		return NULL;
	if (fstat(fd, &st) == -1)
		goto fail;
	if (st.st_size < 0 || (uintmax_t)st.st_size > REPLAY_MAX_INPUT) {
		errno = EFBIG;
		goto fail;
	}
	buf = malloc(st.st_size > 0 ? (size_t)st.st_size : 1);
	if (buf == NULL)
		goto fail;
	while (got < (size_t)st.st_size) {
		n = read(fd, buf + got, (size_t)st.st_size - got);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0) {
			saved = n == 0 ? EIO : errno;
			free(buf);
			errno = saved;
			goto fail;
		}
		got += (size_t)n;
	}
	(void)close(fd);
	*len = got;
	return buf;
fail:
	saved = errno;
	(void)close(fd);
	errno = saved;
	return NULL;
}

/* Run one input in a child, under the time guard, and count it. */
static void
run_one(const char *path)
{
	uint8_t *buf;
	size_t len;
	pid_t pid;
	int status;

	buf = read_input(path, &len);
	if (buf == NULL) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		nerrors++;
		return;
	}
	ninputs++;
	fflush(NULL);
	pid = fork();
	if (pid == -1) {
		fprintf(stderr, "replay: fork: %s\n", strerror(errno));
		free(buf);
		nerrors++;
		return;
	}
	if (pid == 0) {
		/* SIGALRM's default action ends the child: a timeout. */
		alarm(timeout_s);
		(void)LLVMFuzzerTestOneInput(buf, len);
		free(buf);
		exit(0);
	}
	free(buf);
	while (waitpid(pid, &status, 0) == -1) {
		if (errno != EINTR) {
			fprintf(stderr, "replay: waitpid: %s\n",
			    strerror(errno));
			nerrors++;
			return;
		}
	}
	if (WIFSIGNALED(status)) {
		ncrashes++;
		if (WTERMSIG(status) == SIGALRM)
			fprintf(stderr, "replay: %s: timed out after %u s\n",
			    path, timeout_s);
		else
			fprintf(stderr, "replay: %s: killed by signal %d "
			    "(%s)\n", path, WTERMSIG(status),
			    strsignal(WTERMSIG(status)));
	} else if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
		ncrashes++;
		fprintf(stderr, "replay: %s: exit status %d\n", path,
		    WEXITSTATUS(status));
	}
}

static int
skip_dot(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

/* Run every regular file of directory DIR, in sorted order. */
static void
run_dir(const char *dir)
{
	char path[PATH_MAX];
	struct dirent **names;
	struct stat st;
	int i, n;

	n = scandir(dir, &names, skip_dot, alphasort);
	if (n == -1) {
		fprintf(stderr, "replay: %s: %s\n", dir, strerror(errno));
		nerrors++;
		return;
	}
	for (i = 0; i < n; i++) {
		if (snprintf(path, sizeof(path), "%s/%s", dir,
		    names[i]->d_name) >= (int)sizeof(path)) {
			fprintf(stderr, "replay: %s/%s: name too long\n", dir,
			    names[i]->d_name);
			nerrors++;
		} else if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			run_one(path);
		}
		free(names[i]);
	}
	free(names);
}

static void
usage(void)
{
	fprintf(stderr, "usage: replay [-t seconds] dir|file ...\n");
	exit(2);
}

int
main(int argc, char *argv[])
{
	struct stat st;
	char *end;
	long t;
	int c, i;

	while ((c = getopt(argc, argv, "t:")) != -1) {
		switch (c) {
		case 't':
			errno = 0;
			t = strtol(optarg, &end, 10);
			if (errno != 0 || *end != '\0' || t < 1 || t > 86400)
				usage();
			timeout_s = (unsigned int)t;
			break;
		default:
			usage();
		}
	}
	if (optind == argc)
		usage();
	for (i = optind; i < argc; i++) {
		if (stat(argv[i], &st) == -1) {
			fprintf(stderr, "replay: %s: %s\n", argv[i],
			    strerror(errno));
			nerrors++;
		} else if (S_ISDIR(st.st_mode)) {
			run_dir(argv[i]);
		} else {
			run_one(argv[i]);
		}
	}
	printf("replay: %lu inputs, %lu crashes\n", ninputs, ncrashes);
	return ncrashes == 0 && nerrors == 0 && ninputs > 0 ? 0 : 1;
}
