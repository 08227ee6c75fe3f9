/*
 * async.c -- regular files finished by a second thread.
 *
 * The reading thread does everything an entry's decision or a later
 * entry depends on: it reads the archive, judges each name, makes the
 * parents and the temporary file, writes the data, and keeps every table.
 * What is left of a file once its data is written -- mode, times, the
 * commit under its name beneath the root, the closes -- touches only the
 * root and that file (and, when the name holds a symlink under
 * --symlinks=contain, the list of old links, under its own lock:
 * xtr_commit), so a worker thread does it while the reader goes on
 * (xtr_seal_data, then the commit).  A refusal met there is the job's
 * result, reported by the reader in archive order like any other.  On
 * two cores that is about a third of the system calls of a file off the
 * reading thread.
 *
 * Order is kept as if it were one thread:
 *  - files are committed under their names one at a time, in archive
 *    order: of two files with one name (or two names one file system
 *    folds into one) the later one wins;
 *  - results are taken back on the reading thread, in archive order, and
 *    only there are the tables updated and the entry reported;
 *  - a link waits for the queue to empty first (write_entry), and so
 *    does a directory or a file whose own name or parents include the
 *    name of a queued file: each is then made as if the files before it
 *    were finished;
 *  - any other report (a directory, a refusal) is queued behind the
 *    files as a job the worker only passes on (xtr_async_defer), so that
 *    it keeps its place without waiting for them; a failure waits;
 *  - with --strict, where the first failure must stop everything after
 *    it, there is no worker at all;
 *  - a full disk met by a stashed file's write may be a later file's
 *    doing (the reader writes the bigger ones itself): that job stops the
 *    commits behind it until the reader, which has given back the space
 *    of any file of its own that failed, writes it once more
 *    (retry_no_space), so that the full disk is reported for the file
 *    that filled it, as with one thread.
 * A failure the worker meets is reported as the same entry would have
 * been, a few entries later; the files queued behind it are finished and
 * reported too (they were complete).
 *
 * A reader that would wait for the worker helps it instead
 * (wait_done): it takes queued jobs from the front, as the worker does,
 * and does all of each but the commit, which the two do in queue order
 * (commit_ready).  Without that, a worker slower than the reader left one
 * CPU idle while the reader waited (0.46 s of 2.8 on linux.tar.zst).  It
 * stops at a big file's segments, which only the worker writes.  The
 * worker runs as batch work (plat_thread_batch), so that waking it does
 * not preempt the reader.
 *
 * A file of XTR_STREAM_MIN bytes or more has its data queued too, as it
 * comes, in segments of at most XTR_SEGMENT_MAX bytes
 * (xtr_async_segment), each written by the worker at its offset while
 * the reader reads the next.  At the end of the data the reader waits
 * for them (xtr_async_settle), so that a write error (a full disk) is
 * this file's and stops the run here, as without the worker; only then
 * is the file's own job queued.  A segment that fails stops the reader
 * sending more.  The reader keeps the file's descriptor until its job is
 * queued, and settles before it gives the file up (an error, a
 * cancellation), so that no segment is left for a closed descriptor.
 *
 * Bounded: XTR_ASYNC_SLOTS jobs at most are queued, each holding two
 * descriptors at most (its file's, and its parent's unless the files of
 * one directory share it: pfx_root_begin_cached); fewer when
 * RLIMIT_NOFILE leaves less room (fdbudget.c), and none, no worker, when
 * it leaves room for less than two.  When one cannot be opened for want
 * of descriptors, the queue is emptied and the open tried again
 * (xtr_fd_relieve), and fewer are queued from then on (async_fewer).
 * That needs the worker to finish the queue without a descriptor of its
 * own: a commit's check beneath the root, which opens the parents it
 * climbs, climbs without them when none is left (beneath.c).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>


#include "async.h"
#include "extract.h"
#include "fdbudget.h"
#include "file.h"
#include "links.h"
#include "plat_thread.h"
#include "platform.h"
#include "report.h"
#include "worker.h"

/* Files queued at most: enough to keep the worker busy, few fds. */
#define XTR_ASYNC_SLOTS 32

/*
 * A reader that finds the queue full waits until the worker has finished
 * this many, not one: else, with a worker slower than the reader, every
 * file would cost each thread a sleep and a wake-up (36,769 futex calls
 * on linux.tar.gz, 20,000 with half the queue).
 */
#define XTR_ASYNC_REFILL (XTR_ASYNC_SLOTS / 2)

/*
 * An idle worker is woken once this many files wait, not for each: a
 * wake-up is two system calls, as dear as a file's own.
 */
#define XTR_ASYNC_BATCH 8

/* How long and how often an idle worker naps before it sleeps. */
#define XTR_ASYNC_NAP_NS 1000000L	/* 1 ms */
#define XTR_ASYNC_NAPS 20

/* What the worker does while the queue is empty. */
enum { IDLE_NOT, IDLE_NAP, IDLE_SLEEP };

/*
 * A file this small has its data written by the worker too, from a
 * buffer of its slot: at most XTR_ASYNC_SLOTS of these are held.
 */
#define XTR_STASH_MAX (64u * 1024)

/*
 * A file this big has its data written by the worker as it comes, in
 * segments of at most XTR_SEGMENT_MAX: XTR_ASYNC_SLOTS of them, 8 MiB,
 * at most in memory.  Smaller ones (but stashed ones) are written by the
 * reader: the wait at the end of each streamed file would cost them more
 * than the worker's help brings.
 */
#define XTR_STREAM_MIN (1024u * 1024)
#define XTR_SEGMENT_MAX (256u * 1024)

/* What a job asks of the worker. */
enum job_kind {
	JOB_FILE,		/* seal the file (xtr_seal_data), commit */
	JOB_REPORT,		/* nothing: a report kept in its place */
	JOB_SEGMENT		/* write stash at seg_off of seg_fd */
};

struct xtr_job {
	struct xtr_tail tail;		/* what the job finishes */
	struct pfx_entry e;		/* the entry, for its report */
	char *rel;			/* into buf */
	char *buf;			/* owned: rel, name, uname, gname */
	size_t bufcap;
	struct xtr_stash stash;		/* a small file's data: its slot's
					   part of the arena */
	struct xtr_stash seg;		/* owned: a segment's data */
	int r;				/* the job's result */
	atomic_bool sealed;		/* all but the commit done */
	atomic_bool no_space;		/* sealed, but its stash met a full
					   disk: kept for the reader's retry
					   (retry_no_space), R unset */
	enum job_kind kind;
	int seg_fd;			/* JOB_SEGMENT: borrowed */
	uint64_t seg_off;
	/* JOB_REPORT: what xtr_finish_entry() was given. */
	enum pfx_entry_status status;
	const char *reason;		/* a static string */
	int error;
};

struct xtr_async {
	struct xtr *x;			/* for xtr_commit: its root and the
					   old links it may judge */
	pthread_t thread;
	/*
	 * Jobs [head, mid) are finished, [mid, next) taken by a thread
	 * that seals them (run_job), [next, tail) queued.  One producer
	 * (the reader: tail, and head, its own); the two threads take jobs
	 * with a compare-and-swap on next (take_job) and advance mid with
	 * the commits, one thread at a time (commit_ready).  The lock and
	 * the conditions are only for sleeping: a thread says it will sleep
	 * (idle, waiting) and looks again under the lock; the other
	 * publishes its counter, then looks whether to wake it.  Every
	 * atomic here is sequentially consistent, so one of the two always
	 * sees the other.
	 */
	_Atomic size_t mid, next, tail;
	size_t head;
	atomic_bool committing;		/* a thread is in commit_ready */
	atomic_int idle;		/* the worker sleeps on WORK: NAP, SLEEP */
	atomic_int seg_err;		/* -errno of a failed segment, or 0 */
	atomic_bool waiting;		/* the reader sleeps on DONE ... */
	_Atomic size_t want;		/* ... until mid reaches this */
	size_t cap;			/* jobs queued at most: as many as
					   RLIMIT_NOFILE leaves room for */
	bool stop;			/* under mu */
	bool taking;			/* the reader is reporting results */
	pthread_mutex_t mu;
	pthread_cond_t work;
	pthread_cond_t done;
	char *arena;			/* the stashes, XTR_STASH_MAX a slot */
	struct xtr_job jobs[XTR_ASYNC_SLOTS];
};

static struct xtr_job *
slot(struct xtr_async *a, size_t i)
{
	return &a->jobs[i % XTR_ASYNC_SLOTS];
}

/* Wait on WORK for XTR_ASYNC_NAP_NS at most.  Return: as timedwait. */
static int
nap(struct xtr_async *a)
{
	struct timespec at;

	if (clock_gettime(CLOCK_REALTIME, &at) != 0)
		return pthread_cond_wait(&a->work, &a->mu);
	at.tv_nsec += XTR_ASYNC_NAP_NS;
	if (at.tv_nsec >= 1000000000L) {
		at.tv_sec++;
		at.tv_nsec -= 1000000000L;
	}
	return pthread_cond_timedwait(&a->work, &a->mu, &at);
}

/*
 * Sleep until a job is queued that no thread took, or the stop.  Right
 * after work the worker only naps, looking again every XTR_ASYNC_NAP_NS,
 * so that the reader need not wake it for each file (it does at a
 * batch); after XTR_ASYNC_NAPS naps it sleeps, and the reader wakes it
 * for the next file at once -- a file is never left waiting on a stalled
 * input.
 * Return: stop.
 */
static bool
worker_sleep(struct xtr_async *a)
{
	int naps = 0;
	bool stop;

	(void)pthread_mutex_lock(&a->mu);
	while (!a->stop) {
		atomic_store(&a->idle, naps < XTR_ASYNC_NAPS ? IDLE_NAP :
		    IDLE_SLEEP);
		if (atomic_load(&a->tail) != atomic_load(&a->next))
			break;
		if (naps < XTR_ASYNC_NAPS) {
			(void)nap(a);
			naps++;
		} else {
			(void)pthread_cond_wait(&a->work, &a->mu);
		}
	}
	atomic_store(&a->idle, IDLE_NOT);
	stop = a->stop && atomic_load(&a->tail) == atomic_load(&a->next);
	(void)pthread_mutex_unlock(&a->mu);
	return stop;
}

/* Wake the thread sleeping on C. */
static void
wake(struct xtr_async *a, pthread_cond_t *c)
{
	(void)pthread_mutex_lock(&a->mu);
	(void)pthread_cond_signal(c);
	(void)pthread_mutex_unlock(&a->mu);
}

/* Write LEN bytes of BUF at OFF of FD.  0 or -errno. */
static int
pwrite_all(int fd, const char *buf, size_t len, uint64_t off)
{
	ssize_t n;

	while (len > 0) {
		n = pwrite(fd, buf, len, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		buf += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

/*
 * Take the first queued job before LIMIT into *I; not a segment unless
 * SEGMENTS.  Return: one was.
 */
static bool
take_job(struct xtr_async *a, size_t limit, bool segments, size_t *i)
{
	size_t n = atomic_load(&a->next);

	while (n < limit && n < atomic_load(&a->tail)) {
		if (!segments && slot(a, n)->kind == JOB_SEGMENT)
			return false;
		if (atomic_compare_exchange_weak(&a->next, &n, n + 1)) {
			*i = n;
			return true;
		}
	}
	return false;
}

/*
 * Commit the sealed jobs at the front of the queue, in order, if no other
 * thread does.  One that does looks again once it is out, so a job sealed
 * meanwhile is committed by one of the two: seq_cst orders this thread's
 * seal before its failed exchange, which is before the other's release
 * of COMMITTING, which is before its second look.
 */
static void
commit_ready(struct xtr_async *a)
{
	struct xtr_job *j;
	size_t m;

	do {
		if (atomic_exchange(&a->committing, true))
			return;
		for (m = atomic_load(&a->mid); m < atomic_load(&a->tail);
		    m++) {
			j = slot(a, m);
			if (!atomic_load(&j->sealed) ||
			    atomic_load(&j->no_space))
				break;
			if (j->kind == JOB_FILE && j->r == 0)
				j->r = xtr_commit(a->x, &j->tail);
			atomic_store(&a->mid, m + 1);
		}
		atomic_store(&a->committing, false);
		m = atomic_load(&a->mid);
	} while (m < atomic_load(&a->tail) &&
	    atomic_load(&slot(a, m)->sealed) &&
	    !atomic_load(&slot(a, m)->no_space));
}

/* Is the first job not committed one that waits for retry_no_space()? */
static bool
stalled(struct xtr_async *a)
{
	size_t m = atomic_load(&a->mid);

	return m < atomic_load(&a->tail) &&
	    atomic_load(&slot(a, m)->sealed) &&
	    atomic_load(&slot(a, m)->no_space);
}

/* Is the disk (or the user's quota) full? */
static bool
is_no_space(int r)
{
	return r == -ENOSPC || r == -EDQUOT;
}

/*
 * Do job I but its commit, then commit what can be.  After a segment
 * that failed, the rest of its file's are skipped: the reader learns of
 * it (xtr_async_settle) before the file's own job is queued.
 */
static void
run_job(struct xtr_async *a, size_t i)
{
	struct xtr_job *j = slot(a, i);
	int r;

	j->r = 0;
	switch (j->kind) {
	case JOB_SEGMENT:
		if (atomic_load(&a->seg_err) != 0)
			break;
		r = pwrite_all(j->seg_fd, j->seg.buf, j->seg.len,
		    j->seg_off);
		if (r < 0)
			atomic_store(&a->seg_err, r);
		break;
	case JOB_FILE:
		/*
		 * A full disk here may be a later file's doing: the reader
		 * writes some files itself, and may have filled the disk
		 * with one this file comes before.  The job waits for the
		 * reader, which retries it once (retry_no_space) in archive
		 * order, after it gave up the file it failed on.
		 */
		r = xtr_write_stash(&j->tail, false);
		if (is_no_space(r)) {
			atomic_store(&j->no_space, true);
			break;
		}
		if (r != 0) {
			pfx_root_abort(&j->tail.pend);
			j->r = r;
			break;
		}
		j->r = xtr_seal_data(&j->tail);
		break;
	case JOB_REPORT:
		break;
	}
	atomic_store(&j->sealed, true);
	commit_ready(a);
}

static void *
worker_main(void *arg)
{
	struct xtr_async *a = arg;
	size_t i;

	for (;;) {
		if (!take_job(a, SIZE_MAX, true, &i)) {
			if (worker_sleep(a))
				break;
			continue;
		}
		run_job(a, i);
		/* The reader waits only for jobs it could not take, and
		 * retries the one that met a full disk. */
		if (atomic_load(&a->waiting) &&
		    (atomic_load(&a->mid) >= atomic_load(&a->want) ||
		    stalled(a)))
			wake(a, &a->done);
	}
	return NULL;
}

/* The calls of the table below, defined further on. */
static bool async_ready(struct xtr *x, const char *rel);
static void async_dir_ready(struct xtr *x, const char *rel);
static bool async_defer(struct xtr *x, struct pfx_entry *e,
    enum pfx_entry_status status, const char *reason, int error);
static int async_write(struct xtr *x, const struct xtr_meta *m,
    struct pfx_entry *e, const char *rel);
static void async_drain(struct xtr *x);
static int async_segment(struct xtr *x, int fd, const void *buf, size_t len,
    uint64_t off);
static int async_settle(struct xtr *x);
static void async_fewer(struct xtr *x);

/*
 * The slots' stashes, one buffer of XTR_STASH_MAX a slot (2 MiB, one huge
 * page where the kernel gives them: plat_os_alloc_huge()): they cost one
 * fault where they cost one a 4 KiB page, and were grown by realloc(3),
 * a copy each.  Free with free(3); NULL without memory.
 */
static char *
stash_arena(void)
{
	return plat_os_alloc_huge(XTR_ASYNC_SLOTS * (size_t)XTR_STASH_MAX);
}

/* The worker's calls, as those below it make them (worker.c). */
static const struct xtr_worker worker_calls = {
	async_ready, async_dir_ready, async_defer, async_write, async_drain,
	async_segment, async_settle, async_fewer
};

/* see async.h */
int
xtr_async_start(struct xtr *x)
{
	struct xtr_async *a;
	sigset_t all, old;
	size_t cap, i;
	int r;

	if ((x->opt->flags & (PFX_OPT_STRICT | PFX_OPT_LIST)) != 0)
		return 0;
	/* Fewer than three CPUs: the worker would only take turns with the
	 * reader and the decoder process, and every file would pay the
	 * handoff (the stash's copy, the queue, the wake-ups, the two
	 * threads' changes of one directory); finished here, it is the
	 * one-thread path.  On two CPUs the worker cost every archive of
	 * make bench 2 to 25% more CPU and up to 15% more time
	 * (docs/performance.md). */
	if (x->cpus < XTR_WORKER_MIN_CPUS)
		return 0;
	/* Too few descriptors to queue files: each is finished here. */
	cap = xtr_fd_queue_slots(XTR_ASYNC_SLOTS);
	if (cap < 2)
		return 0;
	a = calloc(1, sizeof(*a));
	if (a == NULL)
		return -ENOMEM;
	a->arena = stash_arena();
	if (a->arena == NULL) {
		free(a);
		return -ENOMEM;
	}
	for (i = 0; i < XTR_ASYNC_SLOTS; i++) {
		a->jobs[i].stash.buf = a->arena + i * (size_t)XTR_STASH_MAX;
		a->jobs[i].stash.cap = XTR_STASH_MAX;
	}
	a->x = x;
	a->cap = cap;
	if (pthread_mutex_init(&a->mu, NULL) != 0) {
		free(a->arena);
		free(a);
		return -ENOMEM;
	}
	(void)pthread_cond_init(&a->work, NULL);
	(void)pthread_cond_init(&a->done, NULL);
	/* The worker takes no signal: a stop asked for by a signal must
	 * interrupt the reader, which is the one that can wait on input. */
	(void)sigfillset(&all);
	(void)pthread_sigmask(SIG_SETMASK, &all, &old);
	r = pthread_create(&a->thread, NULL, worker_main, a);
	(void)pthread_sigmask(SIG_SETMASK, &old, NULL);
	/*
	 * The reader wakes the worker for every batch of files; woken on
	 * the reader's CPU, the worker preempted it there, while the other
	 * CPU went idle (0.2 s of idle CPU on linux.tar.zst, the reader
	 * preempted 4,200 times).  As batch work it waits for a free CPU
	 * instead.  Set here, it holds however late the worker first runs.
	 * A hint: where it cannot be had, nothing changes.
	 */
	if (r == 0)
		(void)plat_thread_batch(a->thread);
	if (r != 0) {
		(void)pthread_cond_destroy(&a->work);
		(void)pthread_cond_destroy(&a->done);
		(void)pthread_mutex_destroy(&a->mu);
		free(a->arena);
		free(a);
		return -r;
	}
	x->async = a;
	x->worker = &worker_calls;
	return 0;
}

/* Report finished job J and release what it holds but its buffer. */
static void
take_result(struct xtr *x, struct xtr_job *j)
{
	if (j->kind == JOB_SEGMENT)
		return;
	if (j->kind == JOB_REPORT) {
		xtr_finish_entry(x, &j->e, j->status, j->reason, j->error);
		return;
	}
	x->queued_bytes -= j->e.bytes;
	if (j->r != 0) {
		xtr_finish_write_error(x, &j->e, j->r);
		return;
	}
	xtr_note_file(x, j->rel, &j->tail.st);
	xtr_forget_symlink(x, j->rel);
	if (j->tail.backup[0] != '\0')
		j->e.backup = j->tail.backup;
	xtr_finish_entry(x, &j->e, PFX_ENTRY_EXTRACTED, "none", 0);
}

/*
 * On the reader: the first job not committed met a full disk with its
 * stash; write it once more, then commit what can be.  A failure of the
 * reader's own (a file it wrote, that filled the disk) has given that
 * file's space back by now (xtr_write_data), so that a full disk is
 * reported for the file that filled it, as without the worker; a disk
 * still full is this file's failure.  Nothing after it was committed
 * meanwhile, so archive order holds.
 */
static void
retry_no_space(struct xtr_async *a)
{
	struct xtr_job *j = slot(a, atomic_load(&a->mid));
	int r;

	r = xtr_write_stash(&j->tail, true);
	if (r == 0)
		r = xtr_seal_data(&j->tail);
	else
		pfx_root_abort(&j->tail.pend);
	j->r = r;
	atomic_store(&j->no_space, false);
	commit_ready(a);
}

/* Are the jobs before WANT all sealed, but for their commits? */
static bool
all_sealed(struct xtr_async *a, size_t want)
{
	size_t m;

	for (m = atomic_load(&a->mid); m < want; m++)
		if (!atomic_load(&slot(a, m)->sealed))
			return false;
	return true;
}

/*
 * Is the wait for job WANT - 1 over?  It is finished; or, where a job
 * before it waits for a retry (stalled), RETRY is false and every job
 * before WANT is sealed: xtr_async_settle(), whose file may hold the space
 * the retry needs.
 */
static bool
waited(struct xtr_async *a, size_t want, bool retry)
{
	return atomic_load(&a->mid) >= want ||
	    (!retry && stalled(a) && all_sealed(a, want));
}

/*
 * Until job WANT - 1 is finished, do the jobs before it no thread took
 * yet, then wait for the worker's (one wake-up at most, unless a job
 * waits for a retry).  With RETRY, a job that met a full disk is written
 * again (retry_no_space); without, see waited().  Segments are left to
 * the worker: they are one file's, whose writes the kernel makes one at a
 * time, and a second thread writing them only spun on the file's lock (a
 * third of the CPU time on huge.tar).
 */
static void
wait_done(struct xtr_async *a, size_t want, bool retry)
{
	size_t i;

	for (;;) {
		while (atomic_load(&a->mid) < want &&
		    take_job(a, want, false, &i))
			run_job(a, i);
		if (waited(a, want, retry))
			return;
		if (retry && stalled(a)) {
			retry_no_space(a);
			continue;
		}
		(void)pthread_mutex_lock(&a->mu);
		atomic_store(&a->want, want);
		atomic_store(&a->waiting, true);
		while (!waited(a, want, retry) && !(retry && stalled(a)))
			(void)pthread_cond_wait(&a->done, &a->mu);
		atomic_store(&a->waiting, false);
		(void)pthread_mutex_unlock(&a->mu);
	}
}

/*
 * Report the finished jobs, after waiting, if WANT is beyond them, until
 * the worker finished job WANT - 1 (one wake-up, however many that is).
 */
static void
take_finished(struct xtr *x, size_t want)
{
	struct xtr_async *a = x->async;
	size_t mid;

	wait_done(a, want, true);
	mid = atomic_load(&a->mid);
	a->taking = true;
	for (; a->head < mid; a->head++)
		take_result(x, slot(a, a->head));
	a->taking = false;
}

/* xtr_async_drain(), worker.h */
static void
async_drain(struct xtr *x)
{
	struct xtr_async *a = x->async;

	if (a == NULL || a->taking)
		return;
	take_finished(x, atomic_load(&a->tail));
}

/* see async.h */
void
xtr_async_stop(struct xtr *x)
{
	struct xtr_async *a = x->async;
	size_t i;

	if (a == NULL)
		return;
	async_drain(x);
	(void)pthread_mutex_lock(&a->mu);
	a->stop = true;
	(void)pthread_cond_signal(&a->work);
	(void)pthread_mutex_unlock(&a->mu);
	(void)pthread_join(a->thread, NULL);
	for (i = 0; i < XTR_ASYNC_SLOTS; i++) {
		free(a->jobs[i].buf);
		free(a->jobs[i].seg.buf);
	}
	free(a->arena);
	(void)pthread_cond_destroy(&a->work);
	(void)pthread_cond_destroy(&a->done);
	(void)pthread_mutex_destroy(&a->mu);
	free(a);
	x->async = NULL;
	x->worker = NULL;
}

/* Is queued name Q a directory on the way to REL ("q/..." of it)? */
static bool
on_the_way(const char *q, const char *rel)
{
	size_t n = strlen(q);

	return strncmp(q, rel, n) == 0 && rel[n] == '/';
}

/*
 * Empty the queue if a queued file's name is on REL's way, or (SAME) is
 * REL itself.
 */
static void
clear_way(struct xtr *x, const char *rel, bool same)
{
	struct xtr_async *a = x->async;
	struct xtr_job *j;
	size_t i;

	take_finished(x, 0);
	for (i = a->head; i < atomic_load(&a->tail); i++) {
		j = slot(a, i);
		if (j->kind != JOB_FILE)
			continue;
		if (on_the_way(j->rel, rel) || (same &&
		    strcmp(j->rel, rel) == 0)) {
			async_drain(x);
			return;
		}
	}
}

/* xtr_async_ready(), worker.h */
static bool
async_ready(struct xtr *x, const char *rel)
{
	struct xtr_async *a = x->async;

	if (a == NULL || a->taking)
		return false;
	/* Two files of one name are committed in order: no wait. */
	clear_way(x, rel, false);
	return true;
}

/* xtr_async_dir_ready(), worker.h */
static void
async_dir_ready(struct xtr *x, const char *rel)
{
	struct xtr_async *a = x->async;

	if (a == NULL || a->taking)
		return;
	clear_way(x, rel, true);
}

/* Copy the strings J's report needs into its own buffer.  0 or -ENOMEM. */
static int
keep_strings(struct xtr_job *j, const char *rel)
{
	const char *src[5] = { rel, j->e.name, j->e.uname, j->e.gname,
	    j->e.link_target };
	size_t len[5], need = 0, i;
	char *p;

	for (i = 0; i < 5; i++) {
		len[i] = src[i] != NULL ? strlen(src[i]) + 1 : 0;
		need += len[i];
	}
	if (need > j->bufcap) {
		p = realloc(j->buf, need);
		if (p == NULL)
			return -ENOMEM;
		j->buf = p;
		j->bufcap = need;
	}
	p = j->buf;
	for (i = 0; i < 5; i++) {
		if (src[i] != NULL)
			memcpy(p, src[i], len[i]);
		src[i] = src[i] != NULL ? p : NULL;
		p += len[i];
	}
	j->rel = (char *)src[0];
	j->e.path = src[0];
	j->e.name = src[1];
	j->e.uname = src[2];
	j->e.gname = src[3];
	j->e.link_target = src[4];
	return 0;
}

/*
 * J's stash, big enough for E's data as its header gives the size, or
 * NULL when the file is too big (or memory short): then the data is
 * written by the reading thread, as it comes.
 */
static struct xtr_stash *
stash_for(struct xtr_job *j, const struct pfx_entry *e,
    const struct xtr_meta *m)
{
	int64_t size = e->size;

	if (!m->size_set || size <= 0 ||
	    (uint64_t)size > XTR_STASH_MAX)
		return NULL;
	return &j->stash;
}

/*
 * Hand the job in the tail's slot to the worker: wake it if it sleeps, or
 * if it naps and a batch is waiting.
 */
static void
publish(struct xtr_async *a)
{
	size_t t = atomic_load(&a->tail);
	int idle;

	atomic_store(&slot(a, t)->sealed, false);
	atomic_store(&slot(a, t)->no_space, false);
	atomic_store(&a->tail, t + 1);
	idle = atomic_load(&a->idle);
	if (idle == IDLE_SLEEP || (idle == IDLE_NAP &&
	    t + 1 - atomic_load(&a->next) >= XTR_ASYNC_BATCH))
		wake(a, &a->work);
}

/* The slot of the next job, once the queue has room for it. */
static struct xtr_job *
free_slot(struct xtr *x)
{
	struct xtr_async *a = x->async;
	size_t t = atomic_load(&a->tail);

	if (t - a->head >= a->cap)
		take_finished(x, a->head + (a->cap == XTR_ASYNC_SLOTS ?
		    XTR_ASYNC_REFILL : a->cap / 2));
	return slot(a, t);
}

/* Can stash S hold N bytes (N <= XTR_SEGMENT_MAX), grown if need be? */
static bool
stash_room(struct xtr_stash *s, size_t n)
{
	char *p;

	if (n <= s->cap)
		return true;
	p = realloc(s->buf, XTR_SEGMENT_MAX);
	if (p == NULL)
		return false;
	s->buf = p;
	s->cap = XTR_SEGMENT_MAX;
	return true;
}

/* xtr_async_segment(), worker.h */
static int
async_segment(struct xtr *x, int fd, const void *buf, size_t len,
    uint64_t off)
{
	struct xtr_async *a = x->async;
	const char *p = buf;
	struct xtr_job *j;
	size_t n;
	int r;

	for (; len > 0; p += n, off += n, len -= n) {
		r = atomic_load(&a->seg_err);
		if (r != 0)
			return r;
		n = len < XTR_SEGMENT_MAX ? len : XTR_SEGMENT_MAX;
		j = free_slot(x);
		if (!stash_room(&j->seg, n)) {
			/* Written here, then: any order will do. */
			r = pwrite_all(fd, p, n, off);
			if (r < 0)
				return r;
			continue;
		}
		memcpy(j->seg.buf, p, n);
		j->seg.len = n;
		j->seg_fd = fd;
		j->seg_off = off;
		j->kind = JOB_SEGMENT;
		publish(a);
	}
	return 0;
}

/* xtr_async_settle(), worker.h */
static int
async_settle(struct xtr *x)
{
	struct xtr_async *a = x->async;

	/* No retry here: this file may hold the space it needs, until its
	 * caller gives the file up on this function's failure. */
	wait_done(a, atomic_load(&a->tail), false);
	return atomic_exchange(&a->seg_err, 0);
}

/* xtr_async_write(), worker.h */
static int
async_write(struct xtr *x, const struct xtr_meta *m,
    struct pfx_entry *e, const char *rel)
{
	struct xtr_async *a = x->async;
	struct xtr_tail big, *t;
	struct xtr_job *j;
	int r;

	j = free_slot(x);
	j->tail.stash = stash_for(j, e, m);
	if (j->tail.stash != NULL) {
		t = &j->tail;
		t->stream = false;
	} else {
		/* Its segments take the next slots: its own comes after. */
		t = &big;
		t->stash = NULL;
		t->stream = m->size_set &&
		    e->size >= (int64_t)XTR_STREAM_MIN && !m->sparse;
	}
	/* Short of descriptors, it empties the queue (xtr_fd_relieve). */
	r = xtr_write_data(x, m, e, rel, t);
	if (r != 0)
		return r;
	if (t == &big) {
		j = free_slot(x);
		j->tail = big;
	}
	j->e = *e;
	j->e.link_target = NULL;
	r = keep_strings(j, rel);
	if (r < 0) {
		if (j->tail.stream)
			(void)async_settle(x);
		pfx_root_abort(&j->tail.pend);
		return r;
	}
	j->tail.rel = j->rel;	/* REL is the caller's: gone before the commit */
	j->kind = JOB_FILE;
	x->queued_bytes += j->e.bytes;
	publish(a);
	return 0;
}

/* xtr_async_defer(), worker.h */
static bool
async_defer(struct xtr *x, struct pfx_entry *e,
    enum pfx_entry_status status, const char *reason, int error)
{
	struct xtr_async *a = x->async;
	struct xtr_job *j;

	/* A failure is reported at once: a fatal one stops the run. */
	if (a == NULL || a->taking || status == PFX_ENTRY_FAILED)
		return false;
	take_finished(x, 0);
	if (atomic_load(&a->tail) == a->head)
		return false;	/* nothing ahead of it: report it now */
	j = free_slot(x);
	j->e = *e;
	if (keep_strings(j, e->path) < 0) {
		async_drain(x);
		return false;
	}
	/* X's copy of a backup's name is the next file's. */
	if (e->backup != NULL) {
		size_t n = strnlen(e->backup, sizeof(j->tail.backup) - 1);

		memcpy(j->tail.backup, e->backup, n);
		j->tail.backup[n] = '\0';
		j->e.backup = j->tail.backup;
	}
	j->kind = JOB_REPORT;
	j->status = status;
	j->reason = reason;
	j->error = error;
	publish(a);
	return true;
}

/* xtr_async_fewer(), worker.h */
static void
async_fewer(struct xtr *x)
{
	struct xtr_async *a = x->async;

	if (a != NULL && a->cap > 2)
		a->cap /= 2;
}
