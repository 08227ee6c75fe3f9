/*
 * progress_out.c -- the progress line (progress_out.h).  It is drawn
 * from the report hook: between entries, never in the middle of one.
 */
#include <inttypes.h>
#include <string.h>

#include "progress_out.h"

/* see progress_out.h */
void
progress_init(struct progress *p, bool on, FILE *out, uint64_t size)
{
	memset(p, 0, sizeof(*p));
	p->on = on;
	p->out = out;
	p->size = size;
	(void)clock_gettime(CLOCK_MONOTONIC, &p->start);
	p->last = p->start;
}

/* Seconds from A to B. */
static double
secs(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) +
	    (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

/* N as "123", "4.5K", "67M", "8.9G"... for a narrow line. */
static void
brief(double n, char *buf, size_t cap)
{
	static const char units[] = " KMGTPE";
	size_t u = 0;

	while (n >= 1000 && u + 1 < sizeof(units) - 1) {
		n /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, cap, "%.0f", n);
	else
		snprintf(buf, cap, n < 10 ? "%.1f%c" : "%.0f%c", n, units[u]);
}

/* Draw the line for the counts at NOW. */
static void
draw(struct progress *p, const struct timespec *now)
{
	char line[160], e[16], er[16], b[16], br[16];
	double t = secs(&p->start, now);
	int n;

	if (t <= 0)
		t = 1e-9;
	brief((double)p->entries, e, sizeof(e));
	brief((double)p->entries / t, er, sizeof(er));
	brief((double)p->read, b, sizeof(b));
	brief((double)p->read / t, br, sizeof(br));
	n = snprintf(line, sizeof(line), "pfextract: %s entries (%s/s), "
	    "%sB read (%sB/s)", e, er, b, br);
	if (n > 0 && p->size > 0 && (size_t)n < sizeof(line))
		n += snprintf(line + n, sizeof(line) - (size_t)n, ", %3u%%",
		    (unsigned int)(p->read >= p->size ? 100 :
		    p->read * 100 / p->size));
	if (n <= 0 || (size_t)n >= sizeof(line))
		return;
	fputc('\r', p->out);
	fputs(line, p->out);
	/* A shorter line than the last leaves no tail of it. */
	for (; p->drawn > (size_t)n; p->drawn--)
		fputc(' ', p->out);
	p->drawn = (size_t)n;
	(void)fflush(p->out);
}

/* see progress_out.h */
void
progress_entry(struct progress *p, const struct pfx_entry *e)
{
	struct timespec now;

	if (!p->on)
		return;
	p->entries++;
	if (e->input_read > p->read)
		p->read = e->input_read;
	(void)clock_gettime(CLOCK_MONOTONIC, &now);
	if (secs(&p->last, &now) < 1.0 / PROGRESS_HZ)
		return;
	p->last = now;
	draw(p, &now);
}

/* see progress_out.h */
void
progress_clear(struct progress *p)
{
	size_t i;

	if (!p->on || p->drawn == 0)
		return;
	fputc('\r', p->out);
	for (i = 0; i < p->drawn; i++)
		fputc(' ', p->out);
	fputc('\r', p->out);
	(void)fflush(p->out);
	p->drawn = 0;
}
