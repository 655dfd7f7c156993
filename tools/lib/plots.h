/* SPDX-License-Identifier: GPL-2.0 */
/*
 * plots - pgfreport's charts: each analysis's results drawn with
 * chart.h. @notes are the lines under the title: what kind of trace the
 * data came from, and what that means.
 */
#ifndef PGFT_PLOTS_H
#define PGFT_PLOTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "reuse.h"
#include "wss.h"

struct plot_text {
	const char *title;
	const char *const *notes;
	size_t nnotes;
	unsigned long page_size;
};

/*
 * A chart's title: "@what: " and the base name of @fname, in a buffer of
 * its own that the next call overwrites.
 */
const char *plot_title(const char *what, const char *fname);

/* The policies of plot_mrc(), in its order: LRU, FIFO, CLOCK, OPT. */
#define PLOT_POLICIES 4
extern const char *const plot_policy_color[PLOT_POLICIES];

/*
 * Miss-ratio curves: @misses[p][i] the misses of policy p at a cache of
 * @sizes[i] pages (sizes ascending), of @refs references, or
 * @misses[p] NULL for a policy not drawn; log2 size axis in pages and
 * bytes. Sizes below @blind (0: none) are shaded as ones the trace
 * cannot tell. @sampled: the curves are estimates (SHARDS), not exact.
 */
void plot_mrc(FILE *f, const struct plot_text *t, const uint64_t *sizes,
	      size_t n, const uint64_t *const misses[PLOT_POLICIES],
	      uint64_t refs, uint64_t blind, bool sampled);

/*
 * The reuse-distance histogram: the share of references per log2 bin
 * and the cold ones apart, with the cumulative share (the hit ratio of
 * LRU) on a second axis.
 */
void plot_reuse(FILE *f, const struct plot_text *t, const struct reuse *r);

/*
 * The working set over time: per interval (@t_ns its start), the pages
 * faulted in it, the working set (@window_label says of which window)
 * and the footprint.
 */
void plot_timeline(FILE *f, const struct plot_text *t, const double *t_ns,
		   const double *pages, const double *ws, const double *foot,
		   size_t n, const char *window_label);

/* Denning's working-set curve s(tau), on log2 axes; wss_end() was called. */
void plot_wss(FILE *f, const struct plot_text *t, const struct wss *w);

#endif
