/*
 * fixture.h -- helpers that the test files share for their fixtures:
 * removing a tree, counting open descriptors, and taking a recursive
 * snapshot of a tree to show that nothing in it changed, and the sorted
 * listing of a directory that the snapshot uses.
 *
 * Every function here fails the running test (cr_assert) when it cannot
 * do its job, except tfx_rm_tree(), which reports and goes on: it runs in
 * teardown, where a failure must not hide the test's own.
 */
#ifndef TESTS_FIXTURE_H
#define TESTS_FIXTURE_H

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* What tfx_snapshot() may leave out; by default it takes everything. */
#define TFX_SNAP_NO_NLINK	0x1	/* link counts */
#define TFX_SNAP_NO_TOP		0x2	/* the line of the directory itself */

int	 tfx_rm_tree(const char *);
int	 tfx_count_fds(void);
int	 tfx_count_threads(void);
int	 tfx_threads_settle(int);
int	 tfx_pin_one_cpu(cpu_set_t *);

/* The CPUs a run must plan for (pfx_options.cpus) to finish its files on
 * a second thread, as pfextract.h says: three. */
#define TFX_WORKER_CPUS 3u
char	 tfx_kind_of(mode_t);
ssize_t	 tfx_read_names(int, const char *, char ***);
uint64_t tfx_hash_at(int, const char *);
char	*tfx_snapshot(int, int);
void	 tfx_expect_same_snapshot(const char *, const char *, const char *,
	    const char *);
unsigned int tfx_race_trials(unsigned int, unsigned int);
int	 tfx_temp_dest(const char *, char *, size_t);
void	 tfx_temp_end(int *, const char *);

/*
 * Names recorded by a signal handler (the race tests' attack that runs
 * while the extractor is stopped): a buffer of CAP bytes filled with
 * NUL-terminated names, and functions that call nothing a handler may
 * not -- no malloc, no stdio.
 */
struct tfx_arena {
	char *buf;
	size_t len, cap;
};

void	 tfx_format_name(char *, const char *, unsigned int);
bool	 tfx_arena_list(struct tfx_arena *, int, char *, size_t, size_t *);

/*
 * A racer: each new name "nK" in a directory, as soon as inotify shows
 * it -- woken inside the mkdir(2) or symlink(2) that made it -- is
 * exchanged (RENAME_EXCHANGE) with OLD "K" ("oK", "oldK"), an old entry
 * moved in where a run just made its own.  With DIRS_ONLY, directories
 * only.  Start it with tfx_swapper_start() (DIRFD borrowed, PATH its
 * path for inotify), stop it with tfx_swapper_stop().
 */
struct tfx_swapper {
	int dirfd;
	int inotifyfd;
	pthread_t tid;
	bool started;
	bool dirs_only;
	const char *old;
	atomic_uint exchanges;
	atomic_uint seen;		/* names nK seen */
};

void	 tfx_swapper_start(struct tfx_swapper *, int, const char *,
	    const char *, bool);
void	 tfx_swapper_stop(struct tfx_swapper *);

#endif /* TESTS_FIXTURE_H */
