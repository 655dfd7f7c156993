/* SPDX-License-Identifier: GPL-2.0 */
/*
 * timeline - per interval of time: the counted faults, the distinct pages
 * faulted, the working set (distinct pages faulted in the last `window`
 * intervals) and the footprint (distinct pages faulted so far). Intervals
 * without a fault are rows too. timeline and html report it.
 *
 *	struct timeline tl;
 *
 *	tl_init(&tl, interval_ms, window);
 *	for each counted fault: tl_fault(&tl, time_ns, page);
 *	tl_end(&tl);		(then tl.nomem: it ran out of memory)
 *	tl.nrow rows: tl.row[TL_T][i] (ms since the first fault), ...
 *	tl_free(&tl);
 */
#ifndef PGFREPORT_TIMELINE_H
#define PGFREPORT_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* page -> last interval it faulted in (open addressing, 0 = empty key) */
struct lastmap {
	uint64_t *key;
	long long *val;
	size_t cap, nr;
};

/* the columns of a row */
enum { TL_T, TL_FAULTS, TL_PAGES, TL_WS, TL_FOOTPRINT, TL_COLS };

struct timeline {
	long interval_ms, window;
	struct lastmap last;
	long long cur;			/* current interval, -1 before any */
	unsigned long long faults, distinct, ws, t0;
	unsigned long long *ring;	/* pages whose last fault is interval i */
	double *row[TL_COLS];
	size_t nrow, caprow;
	bool nomem;			/* out of memory (said): not to be reported */
};

void tl_init(struct timeline *tl, long interval_ms, long window);
void tl_fault(struct timeline *tl, unsigned long long t, uint64_t page);
/* The last interval ends. */
void tl_end(struct timeline *tl);
void tl_free(struct timeline *tl);

#endif
