/*
 * plat_thread.h -- what the platform layer offers the threads the
 * library starts itself (never the caller's).  Internal: not installed,
 * not exported.
 */
#ifndef PLAT_THREAD_H
#define PLAT_THREAD_H

#include <pthread.h>

/*
 * Mark the thread T (one this process just started) as batch work: it
 * gets its fair share of the CPU as before, but waking up it no longer
 * preempts the thread running where it wakes (Linux: SCHED_BATCH, which
 * needs no privilege).  Meant for a helper thread that another wakes
 * often: preempting its waker, the thread the whole run waits on, only
 * to find a little work, costs the run more than the helper gains.  Set
 * by its creator, it holds from the thread's start, whenever the thread
 * first runs.
 * Return: 0, or -errno (-ENOTSUP where the system has no such policy).
 */
int plat_thread_batch(pthread_t t);

/*
 * How many CPUs the calling process may really use: the CPUs of its
 * affinity mask, fewer where a CPU quota caps them (Linux: the cgroup
 * v2 cpu.max of its cgroup and every ancestor, rounded up; a quota of
 * 1.5 CPUs is 2).  A library thread pool sizes itself by this, never by
 * the CPUs the machine has: in a container given one CPU of 64, a pool
 * of 64 only adds handoffs.  Read before a sandbox confines the process
 * (the quota is under /sys); where it cannot be read, the affinity alone
 * counts.  Return: at least 1.
 */
unsigned int plat_thread_cpus(void);

#endif /* PLAT_THREAD_H */
