/* SPDX-License-Identifier: GPL-2.0 */
/*
 * status.h - tracepgfault's live status line: on a terminal, one line on
 * stderr, redrawn at most twice a second (elapsed time, faults/s, records
 * written, lost so far, processes followed), and a warning on a line of
 * its own the moment records are lost, as perf record does.
 */
#ifndef PGF_STATUS_H
#define PGF_STATUS_H

#include <stdbool.h>
#include <stdio.h>

/* How often the line is redrawn, and how often a quiet reader wakes for it. */
#define STATUS_PERIOD_MS	500

struct status {
	FILE *f;
	bool on;
	bool shown;			/* a line is on the screen */
	double t0, last;		/* start, last redraw */
	double rate_t;			/* when the rate was last taken */
	unsigned long long rate_faults;	/* faults then */
	double rate;			/* faults/s over the last period */
	unsigned long long warned;	/* lost records already warned of */
};

/* What the line shows. processes < 0: not following children. */
struct status_counts {
	unsigned long long records, faults, lost;
	long long processes;
};

/* @on: draw at all (stderr a terminal, no -q). @now: seconds, monotonic. */
void status_init(struct status *s, FILE *f, bool on, double now);
/*
 * Redraw the line if STATUS_PERIOD_MS passed since the last time (or
 * @force), and warn at once of records lost since the last warning.
 */
void status_update(struct status *s, const struct status_counts *c,
		   double now, bool force);
/* Take the line away (before the summary, or an error message). */
void status_clear(struct status *s);

#endif
