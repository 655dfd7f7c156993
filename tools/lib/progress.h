/* SPDX-License-Identifier: GPL-2.0 */
/*
 * progress.h - pgfreport's progress line: on a terminal, once a pass has
 * run for PROGRESS_AFTER_MS, one line on stderr, redrawn at most every
 * PROGRESS_PERIOD_MS: the bytes of the input read (of its size, with the
 * share and the time left, where the input is a file), the records read
 * and the records/s; taken away before the report is printed. Nothing
 * when stderr is not a terminal.
 *
 *	progress_init(&p, stderr, isatty(2), "pgfreport mrc", size, now);
 *	every few thousand records:
 *		progress_update(&p, bytes_read, records, now);
 *	progress_clear(&p);
 */
#ifndef PGFT_PROGRESS_H
#define PGFT_PROGRESS_H

#include <stdbool.h>
#include <stdio.h>

#define PROGRESS_AFTER_MS	1000
#define PROGRESS_PERIOD_MS	500

struct progress {
	FILE *f;
	bool on;
	bool shown;			/* a line is on the screen */
	const char *who;		/* "pgfreport mrc" */
	unsigned long long size;	/* bytes of the input, 0: unknown */
	double t0, last;		/* start, last redraw */
};

/* @on: draw at all (stderr a terminal). @now: seconds, monotonic. */
void progress_init(struct progress *p, FILE *f, bool on, const char *who,
		   unsigned long long size, double now);
/*
 * Redraw the line if PROGRESS_AFTER_MS passed since the start and
 * PROGRESS_PERIOD_MS since the last redraw. @bytes: of the input read so
 * far, or ~0ULL if not known (a pipe).
 */
void progress_update(struct progress *p, unsigned long long bytes,
		     unsigned long long records, double now);
/* Take the line away. */
void progress_clear(struct progress *p);

#endif
