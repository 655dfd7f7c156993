/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sample_report - pgfreport's reports of a sampled trace (tracepgfault
 * -s MS): samples (a line per interval, the pages it referenced, its
 * scan and W(K); the scans' cost; Denning's W(t,tau); with --plot, a
 * chart of them over time; with --map, an SVG of the pages every
 * interval referenced, page-exact address x interval) and compare (the
 * sampled trace against an interval trace of the same program,
 * interval by interval). The working set over intervals
 * is sample.h's; this reads the trace's records into intervals, checks
 * they add up, and prints and draws the reports, saying what went wrong
 * on standard error ("pgfreport: ...").
 *
 * The records go in as pgfreport reads them (a tree file's: those of
 * --pid's process alone); a bad one ends the reading, and what came
 * before it is still reported:
 *
 *	struct srep R;
 *
 *	srep_init(&R, &opts, page_size);
 *	for each record r of the trace:
 *		if (srep_rec(&R, &r, &rd)) -> rd.error says why; stop reading
 *	status = srep_report(&R, fname, t0, &as, execs);
 *	srep_free(&R);
 *
 * srep_rec() returns SREP_NOMEM out of memory; srep_report() says so and
 * returns 2, as for a file it cannot write.
 */
#ifndef PGFT_SAMPLE_REPORT_H
#define PGFT_SAMPLE_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include "pgftrace.h"
#include "rows.h"
#include "sample.h"

/* The options of the reports, from pgfreport's command line. */
struct srep_opts {
	unsigned long ws_intervals;	/* --ws-intervals K: the window of W(K) */
	const char *plot;		/* --plot FILE: samples's chart, or NULL */
	const char *map;		/* --map FILE, or NULL */
	const char *other;		/* compare: the interval trace, or NULL */
	bool samples;			/* samples's table is asked for */
	bool compare;			/* report compare, not samples */
	enum table_format format;	/* --format: rows for programs alone */
	size_t table;			/* and which: SREP_INTERVALS, SREP_WSS */
};

/* srep_rec(): out of memory (not a trace's fault) */
#define SREP_NOMEM	(-2)

/* The tables of both reports, for --format (--table) */
enum { SREP_INTERVALS, SREP_WSS };

/*
 * A trace read as intervals of pages: a sampled trace (the refs of each
 * scan, closed by its sample record; the first interval from the
 * baseline scan) or an interval trace (the counted faults from a start
 * or a re-arm to the next "rearm ... interval").
 */
struct srep_series {
	struct smp s;
	bool sampled;			/* read as a sampled trace */
	unsigned long ms;		/* the first start's MS, of that kind */
	bool ms_varies;
	char mode[40];			/* the first start's mode, of any kind */
	bool seen_sample, seen_interval;	/* start modes seen */
	unsigned long long start;	/* the last start record, ns */
	unsigned long long open;	/* the open interval's start, ns */
	bool is_open;
	uint32_t next_flags;		/* IV_* (sample_report.c) of the next one */
	bool lost;			/* records lost in the open interval */
	/* sampled */
	unsigned long long samples;	/* sample records, of any trace */
	unsigned long long scans, baselines, scan_ns, scan_max, scanned;
	unsigned long long run_pages;	/* in the refs since the last sample */
	/* interval */
	unsigned long long rearms;	/* "rearm ... interval" records */
	unsigned long long dropped;	/* faulted before an exec, left out */
	unsigned long long execs;
};

struct srep {
	struct srep_opts o;
	unsigned long page_size;	/* the trace's */
	unsigned long long t0;		/* the trace's start, ns (srep_report()) */
	struct srep_series S;		/* the sampled trace */
};

/* Before the first record: the options (copied) and the page size. */
void srep_init(struct srep *R, const struct srep_opts *o,
	       unsigned long page_size);

/*
 * Take record @r of the trace @rd reads: 0, or -1 with rd->error saying
 * why the trace cannot be read as a sampled one.
 */
int srep_rec(struct srep *R, const struct pgft_rec *r, struct pgft_reader *rd);

/*
 * After the last record: the report of pgfreport samples or of pgfreport compare
 * (reading OTHER; @as: the trace's regions at its end, @execs its
 * execs, to tell whether the two map the same addresses), then
 * samples --map's. @fname names the trace, @t0 its start (ns). 0; 1
 * when a trace is not of the kind asked for or is malformed, 2 when a
 * file could not be read or written (after saying why).
 */
int srep_report(struct srep *R, const char *fname, unsigned long long t0,
		struct pgft_space *as, long execs);

void srep_free(struct srep *R);

#endif
