/* SPDX-License-Identifier: GPL-2.0 */
/*
 * prefetch - how sequential a fault string is, and how many of its
 * faults a next-N-pages prefetch (readahead, fault-around) would have
 * avoided, for N = 1 .. 64.
 *
 * Sequentiality: a fault is "next-page" when its page is the previous
 * fault's page + 1 (the previous fault of the whole string, and apart
 * the previous fault in the same region). The stride of a fault is its
 * page minus the previous fault's; a run is a maximal series of
 * consecutive faults with the same stride, its length the number of
 * those strides (a run of length k spans k + 1 faults); runs are
 * counted in log2 bins of their length (1, 2-3, 4-7, ...).
 *
 * The prefetch model: every fault string is replayed with a prefetcher
 * that, when triggered by a reference to page p in a region ending
 * before page e, brings in pages p + 1 .. min(p + N, e - 1). A
 * prefetched page stays present until it is referenced: a fault on a
 * present page is avoided, and from then on the page is the trace's own
 * (if it faults again, the trace saw it leave, and only a new prefetch
 * brings it back). Nothing is evicted for the prefetched pages. Two
 * triggers are modelled:
 *   - "demand": only a fault that was not avoided triggers (fault-around
 *     on a real fault; a prefetched page's first use does not re-arm);
 *   - "every": an avoided fault triggers as well, as readahead's marker
 *     on a prefetched page starts the next readahead.
 * The region's end is the one at the trigger (the region of page p's
 * fault), so a prefetch never crosses into the next mapping.
 *
 * Exact, in one pass, with memory per distinct page, not per prefetched
 * page: a fault on page p at time t is avoided with N iff some trigger
 * on a page q, p - N <= q < p, whose region reached p, happened after
 * p's previous fault. So each page keeps the time of its last fault,
 * the time of its last trigger (one per demand grid size; the "every"
 * triggers are every fault) and its region's end, and a fault looks at
 * the 64 pages before it: "every" gives all N = 1 .. 64 at once (the
 * nearest such q), "demand" the sizes of PF_GRID. About 100 bytes per
 * distinct page.
 *
 *	struct prefetch pf;
 *
 *	prefetch_init(&pf);
 *	for each fault:
 *		prefetch_ref(&pf, page, region, region_end_page);
 *	pf.avoided_every[N], pf.avoided_demand[k] (N = prefetch_grid[k])
 *	prefetch_free(&pf);
 */
#ifndef PGFT_PREFETCH_H
#define PGFT_PREFETCH_H

#include <stddef.h>
#include <stdint.h>
#include "pageid.h"

#define PF_MAX 64	/* the largest N */
#define PF_GRID 7	/* N = 1, 2, 4, ... 64 for the "demand" trigger */
#define PF_BINS 65

extern const unsigned int prefetch_grid[PF_GRID];

struct pf_page {
	uint64_t last;			/* time of its last fault; 0: none */
	uint64_t end;			/* its region's end page, at that fault */
	uint64_t demand[PF_GRID];	/* time of its last demand trigger */
};

struct pf_region {
	uint64_t faults, next_page, prev;	/* prev: page + 1, 0 none */
};

struct prefetch {
	struct pgid_map ids;
	struct pf_page *pg;
	uint32_t cap;
	uint64_t refs;			/* faults, the time: 1, 2, ... */
	uint64_t next_page;		/* faults on the previous fault's page + 1 */
	uint64_t prev;			/* the previous fault's page */
	int64_t stride;			/* the current run's stride */
	uint64_t run;			/* its length so far (strides) */
	uint64_t runs[PF_BINS];		/* runs by log2 bin of length */
	uint64_t run_strides[PF_BINS];	/* and their strides, summed */
	/* avoided_every[N]: faults avoided by next-N, every trigger */
	uint64_t avoided_every[PF_MAX + 1];
	uint64_t avoided_demand[PF_GRID];
	struct pf_region *reg;		/* by tag */
	size_t nreg;
};

void prefetch_init(struct prefetch *pf);
void prefetch_free(struct prefetch *pf);

/*
 * A fault on @page in the region tagged @tag (small numbers, 0: none)
 * that ends before page @end (@page + 1 without a region). 0, or -1
 * when out of memory.
 */
int prefetch_ref(struct prefetch *pf, uint64_t page, uint64_t tag, uint64_t end);

/* After the last fault: close the run in progress. */
void prefetch_end(struct prefetch *pf);

#endif
