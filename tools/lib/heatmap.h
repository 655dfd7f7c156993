/* SPDX-License-Identifier: GPL-2.0 */
/*
 * heatmap - the time x address heatmap of a fault string, as SVG.
 *
 * Across: real time (ns since the trace's start) or fault order. Down:
 * one band per region that faulted, its height its share of the faults
 * (at least a few pixels), highest addresses at the top, and in a band
 * HEAT_ROWS rows over the region's address range, low addresses at its
 * bottom. A cell's colour is the number of faults in it, on a log scale
 * whose legend is drawn beside the plot.
 *
 * Faults are binned as they stream: HEAT_COLS columns of `per` x units
 * (ns or faults) each; when a fault falls past the last column, columns
 * merge in pairs and `per` doubles. Memory is HEAT_COLS x HEAT_ROWS
 * counters per region that faulted, whatever the trace's length.
 *
 * The pages of files (a page cache reference, a fault in a mapped file)
 * have bands of their own, below the regions', one per file: its pages
 * from 0 up, over a range that starts at HEAT_ROWS pages and doubles
 * (its rows merging in pairs) when a page falls past it, for a trace
 * does not say how long a file is. heat_phys() makes a heatmap of frames
 * instead (a trace read with CAP_SYS_ADMIN): one band, physical memory,
 * its frames from 0 up over a range that doubles alike.
 *
 *	struct heatmap h;
 *
 *	heat_init(&h, true);			// x: time
 *	for each fault:
 *		heat_fault(&h, region_key, start, end, name, t_ns, addr);
 *	for each page of a file:
 *		heat_file(&h, file_key, path, t_ns, index);
 *	heat_write(&h, f, title, notes, nnotes);
 *	heat_free(&h);
 */
#ifndef PGFT_HEATMAP_H
#define PGFT_HEATMAP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "pageid.h"

#define HEAT_COLS 512
#define HEAT_ROWS 32

struct heat_band {
	/*
	 * The region's range at its latest fault; a file's: 0 and the pages
	 * its rows span (HEAT_ROWS << k)
	 */
	uint64_t start, end;
	bool file;		/* a file's band */
	uint64_t top;		/* a file's: its highest page referenced + 1 */
	char *name;
	uint64_t faults;
	uint32_t *cell;		/* [HEAT_COLS][HEAT_ROWS] */
	/* with heat_times(): each cell's first and last fault, ns + 1 */
	uint64_t *first, *last;
};

struct heatmap {
	bool by_time;		/* x: ns since the start, or fault order */
	bool times;		/* keep each cell's first and last fault */
	uint64_t per;		/* x units per column */
	uint64_t xmax;		/* the largest x seen */
	uint64_t n;		/* faults, and pages of files */
	uint64_t file_refs;	/* of them: pages of files */
	size_t files;		/* file bands */
	unsigned long phys;	/* heat_phys(): the page size, bands of frames */
	struct pgid_map keys;	/* region key -> band */
	struct heat_band *b;
	size_t cap;
};

void heat_init(struct heatmap *h, bool by_time);
/* Keep each cell's first and last fault too (16 bytes more a cell). */
static inline void heat_times(struct heatmap *h)
{
	h->times = true;
}
void heat_free(struct heatmap *h);

/*
 * A fault on @addr in the region @key (the caller's: unique per region
 * and address space), which spans @start .. @end and is called @name,
 * @t ns after the trace's start. 0, or -1 when out of memory.
 */
int heat_fault(struct heatmap *h, uint64_t key, uint64_t start, uint64_t end,
	       const char *name, uint64_t t, uint64_t addr);

/*
 * A reference to page @index of the file @key (the caller's: unique per
 * file, and apart from every region key; HEAT_FILE_KEY()) called @path,
 * @t ns after the trace's start. 0, or -1 when out of memory.
 */
int heat_file(struct heatmap *h, uint64_t key, const char *path, uint64_t t,
	      uint64_t index);
/* A key for file @n that no region's key is: the top of the key space. */
#define HEAT_FILE_KEY(n)	(PGID_PAGE_MAX - (uint64_t)(n))

/* Before the first fault: draw frames (pages of @page_size bytes). */
static inline void heat_phys(struct heatmap *h, unsigned long page_size)
{
	h->phys = page_size;
}

/* A fault that mapped frame @pfn, @t ns after the trace's start. */
static inline int heat_frame(struct heatmap *h, uint64_t t, uint64_t pfn)
{
	return heat_file(h, HEAT_FILE_KEY(0), "physical memory", t, pfn);
}

/* Draw it, with @title and @nnotes note lines under it. */
void heat_write(struct heatmap *h, FILE *f, const char *title,
		const char *const *notes, size_t nnotes);

#endif
