/*
 * test_cpus.c -- plat_thread_cpus() (plat_thread.h): the CPUs a process
 * may really use, by its affinity mask and its cgroup's CPU quota.
 *
 * Each case runs in a forked child, so the affinity and cgroup it sets
 * end with it.  The quota cases make a cgroup of their own under the v1
 * cpu hierarchy (/sys/fs/cgroup/cpu) or the v2 one, move the child into
 * it and remove it after; they need root and a writable cgroup mount,
 * and are skipped, saying so, where neither exists.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "../platform/plat_thread.h"

/* The CPUs of the calling process's affinity mask. */
static int
affinity_cpus(void)
{
	cpu_set_t set;

	cr_assert_eq(sched_getaffinity(0, sizeof(set), &set), 0);
	return CPU_COUNT(&set);
}

/* Write TEXT to DIR/NAME.  0 or -errno. */
static int
put(const char *dir, const char *name, const char *text)
{
	char path[512];
	ssize_t n;
	int fd, e;

	(void)snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd == -1)
		return -errno;
	n = write(fd, text, strlen(text));
	e = n == (ssize_t)strlen(text) ? 0 : -errno;
	(void)close(fd);
	return e;
}

/* Run plat_thread_cpus() in a child that joined the cgroup DIR. */
static unsigned int
cpus_in(const char *dir)
{
	char pid[32];
	int status, fd[2];
	unsigned int got = 0;
	pid_t child;

	cr_assert_eq(pipe(fd), 0);
	child = fork();
	cr_assert_neq(child, -1);
	if (child == 0) {
		(void)snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
		if (put(dir, "cgroup.procs", pid) != 0)
			_exit(2);
		got = plat_thread_cpus();
		_exit(write(fd[1], &got, sizeof(got)) == sizeof(got) ? 0 : 3);
	}
	(void)close(fd[1]);
	cr_assert_eq(read(fd[0], &got, sizeof(got)), (ssize_t)sizeof(got));
	(void)close(fd[0]);
	cr_assert_eq(waitpid(child, &status, 0), child);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	return got;
}

Test(cpus, affinity_bounds_the_count)
{
	int status;
	pid_t child;

	cr_assert_geq(plat_thread_cpus(), 1u);
	cr_assert_leq(plat_thread_cpus(), (unsigned int)affinity_cpus());
	child = fork();
	cr_assert_neq(child, -1);
	if (child == 0) {
		cpu_set_t one;

		CPU_ZERO(&one);
		CPU_SET(0, &one);
		if (sched_setaffinity(0, sizeof(one), &one) != 0)
			_exit(2);
		_exit(plat_thread_cpus() == 1 ? 0 : 1);
	}
	cr_assert_eq(waitpid(child, &status, 0), child);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "taskset to one CPU must count one");
}

/*
 * Make a cgroup under the v1 cpu hierarchy or the v2 one with the quota
 * QUOTA_US per 100 ms, into DIR.  false where no hierarchy lets us.
 */
static bool
make_cgroup(char *dir, size_t cap, long quota_us)
{
	char text[64];

	(void)snprintf(dir, cap, "/sys/fs/cgroup/cpu/pfx-cpus-%d",
	    (int)getpid());
	if (mkdir(dir, 0755) == 0) {
		(void)snprintf(text, sizeof(text), "%ld", quota_us);
		cr_assert_eq(put(dir, "cpu.cfs_period_us", "100000"), 0);
		cr_assert_eq(put(dir, "cpu.cfs_quota_us", text), 0);
		return true;
	}
	(void)snprintf(dir, cap, "/sys/fs/cgroup/pfx-cpus-%d", (int)getpid());
	if (put("/sys/fs/cgroup", "cgroup.subtree_control", "+cpu") != 0 ||
	    mkdir(dir, 0755) != 0)
		return false;
	(void)snprintf(text, sizeof(text), "%ld 100000", quota_us);
	cr_assert_eq(put(dir, "cpu.max", text), 0);
	return true;
}

Test(cpus, cgroup_quota_caps_the_count)
{
	char dir[256];

	if (affinity_cpus() < 2)
		cr_skip_test("one CPU: a quota cannot lower the count");
	if (!make_cgroup(dir, sizeof(dir), 100000))
		cr_skip_test("no writable cgroup cpu hierarchy here");
	cr_expect_eq(cpus_in(dir), 1u, "a quota of one CPU counts one");
	(void)rmdir(dir);
	/* 1.5 CPUs of quota round up: two threads can use them. */
	cr_assert(make_cgroup(dir, sizeof(dir), 150000));
	cr_expect_eq(cpus_in(dir), 2u, "a quota of 1.5 CPUs counts two");
	(void)rmdir(dir);
	/* A quota above the affinity leaves the affinity. */
	cr_assert(make_cgroup(dir, sizeof(dir), 100000L * 4096));
	cr_expect_eq(cpus_in(dir), (unsigned int)affinity_cpus());
	(void)rmdir(dir);
}
