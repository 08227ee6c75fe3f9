/*
 * plat_thread.h -- what the platform layer offers the threads the
 * library starts itself (never the caller's).  Internal: not installed,
 * not exported.
 */
#ifndef PLAT_THREAD_H
#define PLAT_THREAD_H

/*
 * Mark the calling thread as batch work: it gets its fair share of the
 * CPU as before, but waking up it no longer preempts the thread running
 * where it wakes (Linux: SCHED_BATCH, which needs no privilege).  Meant
 * for a helper thread that another wakes often: preempting its waker,
 * the thread the whole run waits on, only to find a little work, costs
 * the run more than the helper gains.
 * Return: 0, or -errno (-ENOTSUP where the system has no such policy).
 */
int plat_thread_batch(void);

#endif /* PLAT_THREAD_H */
