/* SPDX-License-Identifier: GPL-2.0 */
/*
 * filter - which faults of a trace a report takes: those of one thread
 * (--tid), in a window of time (--time), in an address range (--addr),
 * in some regions (--region), all of them at once when several are given.
 * Every pgfreport command that reads faults shares it, as perf's
 * --pid/--tid/--time and damo's --address_range.
 *
 *	struct pgft_filter f = { 0 };
 *	char err[160];
 *
 *	if (pgft_filter_time(&f, "1.5,3", err, sizeof(err))) -> err says why
 *	...
 *	pgft_filter_begin(&f, t0);		(the trace's first record, ns)
 *	for each fault r, g the region that held its address (or NULL):
 *		if (pgft_filter_fault(&f, &r, g)) ... take it
 *	pgft_filter_free(&f);
 *
 * Times are "FROM,TO" in seconds, either end may be left out; a plain
 * number counts from the trace's start, one prefixed '@' is the trace's
 * own clock (a record's time in ns / 1e9): FROM <= time < TO. Addresses
 * are "START-END" in hex (0x optional), or "START+SIZE", a SIZE in bytes
 * with an optional k, m or g: START <= address < END. A region is its
 * id (all digits: the id of its map records) or its name: the whole
 * name, the last part of a path ("libc.so.6"), or "[anon]" for a region
 * without one. --region may be given more than once: a fault in any of
 * them is taken.
 */
#ifndef PGFT_FILTER_H
#define PGFT_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include "pgftrace.h"

struct pgft_filter {
	int tid;			/* 0: every thread */
	bool has_time;
	unsigned long long from_ns, to_ns;	/* as given, in ns */
	bool from_abs, to_abs;		/* '@': the trace's clock */
	bool has_from, has_to;
	unsigned long long from, to;	/* ns, after pgft_filter_begin() */
	bool has_addr;
	unsigned long long lo, hi;
	char **regions;			/* names and ids, as given */
	size_t nregions;
};

/* Parse one option's argument into @f; 0, or -1 with @err saying why. */
int pgft_filter_tid(struct pgft_filter *f, const char *arg, char *err, size_t n);
int pgft_filter_time(struct pgft_filter *f, const char *arg, char *err, size_t n);
int pgft_filter_addr(struct pgft_filter *f, const char *arg, char *err, size_t n);
int pgft_filter_region(struct pgft_filter *f, const char *arg, char *err,
		       size_t n);

/* Whether any filter was given. */
bool pgft_filter_any(const struct pgft_filter *f);

/* Fix the times counted from the start, @t0 (ns). */
void pgft_filter_begin(struct pgft_filter *f, unsigned long long t0);

/* Whether fault (or refs, sample) record @r, in region @g, is taken. */
bool pgft_filter_fault(const struct pgft_filter *f, const struct pgft_rec *r,
		       const struct pgft_region *g);

/*
 * Whether a region (@id, [@start, @end), @name) is one the filters
 * choose: it matches --region and overlaps --addr.
 */
bool pgft_filter_region_in(const struct pgft_filter *f, unsigned long long id,
			   unsigned long long start, unsigned long long end,
			   const char *name);

void pgft_filter_free(struct pgft_filter *f);

#endif
