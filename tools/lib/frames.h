/* SPDX-License-Identifier: GPL-2.0 */
/*
 * frames - the physical side of a trace: the frames its faults mapped
 * (format version 8, a trace read with CAP_SYS_ADMIN), per NUMA node and
 * per page size, and memref's spatial view: physical memory in blocks
 * (64 MiB by default) over time, each block referenced or not in each
 * interval.
 *
 *	struct frames f;
 *
 *	frames_init(&f, page_size, 64 << 20, 64);
 *	for each counted fault r: frames_fault(&f, &r);
 *	... f.node[], f.size[][], f.rows[] ...
 *	frames_free(&f);
 *
 * A frame counts once, in the node and the size it was first seen with
 * (a frame freed and reused by a folio of another order is still one
 * frame). The spatial view has @width columns of one interval each: the
 * interval starts at 1 ms and doubles, the columns merging in pairs,
 * when a fault comes past the last; so the view of a trace is the same
 * as if it had been binned with the final interval from the start
 * (column = (time - t0) / interval, t0 the first fault's time).
 */
#ifndef PGFT_FRAMES_H
#define PGFT_FRAMES_H

#include <stdint.h>
#include "pageid.h"
#include "pgftrace.h"

/* Folio orders a size group tells apart: 0 to 63. */
#define FRAMES_ORDERS	64

struct frames_group {
	uint64_t faults;	/* faults that mapped a frame of the group */
	uint64_t frames;	/* distinct frames */
};

/* A block of physical memory the faults referenced. */
struct frames_row {
	uint64_t block;		/* its number: address / block bytes */
	int node;		/* the node of its first frame seen */
	uint64_t *cells;	/* faults per column, width of them */
};

struct frames {
	unsigned long page_size;
	uint64_t block_bytes;	/* a power of two, a page at least */
	unsigned int width;	/* columns of the spatial view */
	uint64_t faults;	/* counted faults */
	uint64_t with_frame;	/* of them, with a frame */
	/* per node: [node + 1], [0] for frames without one (PGFT_NO_NODE) */
	struct frames_group *node;
	size_t nnode;
	struct frames_group size[FRAMES_ORDERS][PGFT_NLEVEL];
	struct pgid_map seen;	/* frames: distinct */
	uint64_t t0, interval;	/* the first fault's time; ns a column */
	struct frames_row *rows;	/* in the order first referenced */
	size_t nrows, cap_rows;
	struct pgid_map row_of;	/* block -> row index */
};

/*
 * Empty, for pages of @page_size bytes, blocks of @block_bytes (a power
 * of two, not below the page size), @width columns; 0, or -1 (EINVAL).
 */
int frames_init(struct frames *f, unsigned long page_size,
		uint64_t block_bytes, unsigned int width);

/*
 * A record: a fault that /proc/<pid>/stat counts is taken, anything else
 * left. 0, or -1 with errno (ENOMEM).
 */
int frames_fault(struct frames *f, const struct pgft_rec *r);

/* Distinct frames seen. */
static inline uint64_t frames_distinct(const struct frames *f)
{
	return f->seen.nr;
}

/* The time at which column @col of the view starts. */
static inline uint64_t frames_col_start(const struct frames *f, unsigned int col)
{
	return f->t0 + (uint64_t)col * f->interval;
}

/* Columns in use: up to the last fault's. */
unsigned int frames_cols(const struct frames *f);

/* After the last fault: the rows sorted by block, for printing. */
void frames_sort_rows(struct frames *f);

void frames_free(struct frames *f);

#endif
