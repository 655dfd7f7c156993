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
 * triggers are every fault) and its region's end at its last fault, and
 * a fault looks at the 64 pages before it: "every" gives all N = 1 .. 64
 * at once (the nearest such q), "demand" the sizes of PF_GRID. (For
 * "demand" that end is the one at q's last fault, which is not its last
 * trigger's when q's last fault was avoided and its region's end moved
 * since: the model's end at the trigger is then not the one used.
 * Regions seldom move; it is how the counts have always been made.)
 *
 * Pages are kept in blocks of 64 consecutive ones (block = page / 64),
 * in a hash table of blocks, so that the look-back from p costs two
 * lookups (p's block and the one before), not 64. A block has a 64-bit
 * mask of the pages seen in it and the state of those pages only, in
 * page order (a page's index is the number of mask bits below its
 * own): a 32-byte record per page, its 8 times (the last fault, the
 * last demand trigger per grid size), then a byte per page, its region's
 * end at its last fault counted from the block's start (0 .. 128: only
 * whether it is past the faulting page matters, which is at most 127
 * pages from the start of the block before). The look-back walks the
 * places below p, nearest first, compares each present page's 8 times
 * with p's last fault at once (two 4-lane vectors, no branch), and
 * stops as soon as nothing more can change: every grid size the next
 * distance is within is settled (so the nearest trigger is known too).
 * The records it will read are prefetched into the cache first.
 *
 * Times are 32-bit: the look-back only asks whether a time is later than
 * a page's last fault, so when the clock runs out (after 2^32 - 1
 * faults) the times are renumbered in that order, 1 .. the pages, and
 * the counts come out the same. refs stays the true count.
 *
 * Memory: 33 bytes per distinct page in its block's arrays, which grow
 * by steps of 4/3 to 3/2 (1, 2, 3, 4, 6, 8, 12, ... 64 pages; a new
 * page moves the ones above it up by one), and a 24-byte hash slot per
 * block, the table 3/8 to 3/4 full. Dense pages cost about 40 bytes
 * each; the worst case, scattered pages each alone in its block, about
 * 110 (a 48-byte chunk from malloc, 32 to 64 of table), below the
 * page-by-page table this replaces (72 bytes per page, 16 per slot,
 * about 125 bytes a page). A fixed 64-page block would cost over 2 KiB
 * per scattered page (and random addresses over big mappings are
 * common), hence the packed arrays. A page number is below 2^64 - 1,
 * and there are fewer than 2^32 - 2 distinct pages (as for pageid.h).
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

/*
 * 64 consecutive pages: those seen, and their state (see above). st
 * has room for r(n) pages, n = the pages in mask: r(n) = n up to 4,
 * then 6, 8, 12, 16, 24, 32, 48, 64.
 */
struct pf_block {
	uint64_t key;			/* page / 64 + 1; 0: an empty slot */
	uint64_t mask;			/* bit i: page 64 (key - 1) + i seen */
	uint32_t *st;			/* the pages' times, then their ends */
};

struct pf_region {
	uint64_t faults, next_page, prev;	/* prev: page + 1, 0 none */
};

struct prefetch {
	struct pf_block *blk;		/* open addressing, linear probing */
	size_t cap;			/* slots: a power of two, or 0 */
	unsigned int shift;		/* 64 - log2(cap) */
	size_t nblk;			/* blocks in use */
	uint64_t pages;			/* distinct pages */
	uint32_t now;			/* the clock: the last fault's time */
	uint32_t tmax;			/* now + 1 there: renumber (tests lower it) */
	uint64_t refs;			/* faults */
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
