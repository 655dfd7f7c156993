/* SPDX-License-Identifier: GPL-2.0 */
/*
 * changes - what the kernel did to the frames under a trace's pages
 * without the process faulting (format version 9: "move", "evict",
 * "split", "collapse"): the changes by kind and cause, the pages each
 * node gained and lost, and a timeline per region.
 *
 *	struct changes c;
 *
 *	changes_init(&c, page_size, 64);
 *	for each change record r, in the region g: changes_rec(&c, &r, g);
 *	... c.causes[], c.node[], c.rows[] ...
 *	changes_free(&c);
 *
 * The timeline has @width columns of one interval each, as frames.h's
 * view: the interval starts at 1 ms and doubles, the columns merging in
 * pairs, when a change comes past the last; column = (time - t0) /
 * interval, t0 the first change's time. A row is a region (by its id in
 * its process), a cell the pages of each kind changed in it then.
 */
#ifndef PGFT_CHANGES_H
#define PGFT_CHANGES_H

#include <stdbool.h>
#include <stdint.h>
#include "pageid.h"
#include "pgftrace.h"

/* The changes of one kind and cause, and of one page size if known. */
struct changes_cause {
	enum pgft_change change;
	char cause[24];
	bool sized;			/* the trace had frames: order, level */
	unsigned int order, level;
	uint64_t records, pages;
};

/* What a node gained and lost, in pages. */
struct changes_node {
	uint64_t moved_in, moved_out, evicted, collapsed;
};

/* A region of the timeline. */
struct changes_row {
	int pid;
	unsigned long long id, start, end;	/* as first seen */
	char *name;				/* "" for none */
	uint64_t *cells;	/* pages: width columns × PGFT_NCHANGE kinds */
};

struct changes {
	unsigned int width;
	uint64_t records, pages;
	uint64_t by_kind[PGFT_NCHANGE];		/* pages */
	struct changes_cause *causes;
	size_t ncauses, cap_causes;
	/* per node: [node + 1], [0] for none (PGFT_NO_NODE) */
	struct changes_node *node;
	size_t nnode;
	uint64_t t0, interval;
	uint64_t timed;				/* changes in a region */
	struct changes_row *rows;		/* in the order first changed */
	size_t nrows, cap_rows;
	struct pgid_map row_of;			/* (pid, region id) -> row */
	uint64_t outside;			/* pages in no known region */
};

/* Empty, with @width columns (1 at least); 0, or -1 (EINVAL). */
int changes_init(struct changes *c, unsigned int width);

/*
 * A record: a change record is taken (@g its region, NULL if none, @pid
 * its process), anything else left. 0, or -1 with errno (ENOMEM).
 */
int changes_rec(struct changes *c, const struct pgft_rec *r,
		const struct pgft_region *g, int pid);

/* Columns in use: up to the last change's. */
unsigned int changes_cols(const struct changes *c);

/* The pages of kind @k in column @col of row @row. */
static inline uint64_t changes_cell(const struct changes *c, size_t row,
				    unsigned int col, enum pgft_change k)
{
	return c->rows[row].cells[(size_t)col * PGFT_NCHANGE + k];
}

void changes_free(struct changes *c);

#endif
