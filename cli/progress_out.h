/*
 * progress_out.h -- pfextract(1)'s progress line on a terminal: entries
 * and bytes read, their rates, and the share of the input read when its
 * size is known; redrawn with '\r' at most PROGRESS_HZ times a second and
 * cleared at the end.  Only the CLI (pfextract.c) uses this.
 */
#ifndef XTR_PROGRESS_OUT_H
#define XTR_PROGRESS_OUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "pfextract.h"

#define PROGRESS_HZ 4

struct progress {
	bool on;
	FILE *out;
	uint64_t size;		/* the input's size, or 0: unknown */
	uint64_t entries, read;
	struct timespec start, last;	/* CLOCK_MONOTONIC */
	size_t drawn;		/* columns on screen now, 0: none */
};

/* Start *P: drawn on OUT when ON; SIZE the input's, or 0. */
void progress_init(struct progress *p, bool on, FILE *out, uint64_t size);

/* Count E; redraw if the last drawing is old enough. */
void progress_entry(struct progress *p, const struct pfx_entry *e);

/* Wipe the line, so that other output starts on a clean line. */
void progress_clear(struct progress *p);

#endif /* XTR_PROGRESS_OUT_H */
