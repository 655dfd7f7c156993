// SPDX-License-Identifier: GPL-2.0
/*
 * frames - the frames a trace's faults mapped (frames.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "frames.h"

#define FRAMES_FIRST_INTERVAL	1000000ULL	/* 1 ms */

int frames_init(struct frames *f, unsigned long page_size,
		uint64_t block_bytes, unsigned int width)
{
	memset(f, 0, sizeof(*f));
	if (!page_size || !width || !block_bytes || block_bytes < page_size ||
	    (block_bytes & (block_bytes - 1))) {
		errno = EINVAL;
		return -1;
	}
	f->page_size = page_size;
	f->block_bytes = block_bytes;
	f->width = width;
	f->interval = FRAMES_FIRST_INTERVAL;
	return 0;
}

/* The group of node @node (PGFT_NO_NODE included), grown to hold it. */
static struct frames_group *node_group(struct frames *f, int node)
{
	size_t i = (size_t)(node + 1);

	if (i >= f->nnode) {
		size_t n = i + 1 > 2 * f->nnode ? i + 1 : 2 * f->nnode;
		struct frames_group *g = realloc(f->node, n * sizeof(*g));

		if (!g)
			return NULL;
		memset(g + f->nnode, 0, (n - f->nnode) * sizeof(*g));
		f->node = g;
		f->nnode = n;
	}
	return &f->node[i];
}

/* Double the interval until @col fits: columns merge in pairs. */
static void widen(struct frames *f, uint64_t dt)
{
	while (dt / f->interval >= f->width) {
		for (size_t r = 0; r < f->nrows; r++) {
			uint64_t *c = f->rows[r].cells;

			for (unsigned int k = 0; k < f->width; k++)
				c[k] = k < (f->width + 1) / 2 ?
				       c[2 * k] + (2 * k + 1 < f->width ? c[2 * k + 1] : 0) : 0;
		}
		f->interval *= 2;
	}
}

/* The row of block @block, made if new (node @node); NULL: no memory. */
static struct frames_row *row_of(struct frames *f, uint64_t block, int node)
{
	uint32_t nr = f->row_of.nr;
	int64_t i = pgid_get(&f->row_of, block);
	struct frames_row *r;

	if (i < 0)
		return NULL;
	if (f->row_of.nr == nr)
		return &f->rows[i];
	if (f->nrows == f->cap_rows) {
		size_t n = f->cap_rows ? 2 * f->cap_rows : 64;

		r = realloc(f->rows, n * sizeof(*r));
		if (!r)
			return NULL;
		f->rows = r;
		f->cap_rows = n;
	}
	r = &f->rows[f->nrows];
	r->cells = calloc(f->width, sizeof(*r->cells));
	if (!r->cells)
		return NULL;
	r->block = block;
	r->node = node;
	f->nrows++;
	return r;
}

int frames_fault(struct frames *f, const struct pgft_rec *r)
{
	struct frames_group *ng, *sg;
	struct frames_row *row;
	uint32_t nr;
	uint64_t dt;

	if (r->type != PGFT_FAULT || !pgft_counted(r->result))
		return 0;
	f->faults++;
	if (!r->has_frame)
		return 0;
	if (!f->with_frame++)
		f->t0 = r->time;
	ng = node_group(f, r->node);
	if (!ng)
		return -1;
	sg = &f->size[r->order % FRAMES_ORDERS][r->level % PGFT_NLEVEL];
	ng->faults++;
	sg->faults++;
	nr = f->seen.nr;
	if (pgid_get(&f->seen, r->pfn) < 0)
		return -1;
	if (f->seen.nr != nr) {
		ng->frames++;
		sg->frames++;
	}
	/* A fault out of time order (a tree's processes interleave): its own. */
	dt = r->time > f->t0 ? r->time - f->t0 : 0;
	widen(f, dt);
	row = row_of(f, r->pfn * f->page_size / f->block_bytes, r->node);
	if (!row)
		return -1;
	row->cells[dt / f->interval]++;
	return 0;
}

unsigned int frames_cols(const struct frames *f)
{
	unsigned int n = 0;

	for (size_t r = 0; r < f->nrows; r++)
		for (unsigned int k = n; k < f->width; k++)
			if (f->rows[r].cells[k])
				n = k + 1;
	return n;
}

static int by_block(const void *a, const void *b)
{
	const struct frames_row *x = a, *y = b;

	return x->block < y->block ? -1 : x->block > y->block;
}

void frames_sort_rows(struct frames *f)
{
	qsort(f->rows, f->nrows, sizeof(*f->rows), by_block);
}

void frames_free(struct frames *f)
{
	for (size_t r = 0; r < f->nrows; r++)
		free(f->rows[r].cells);
	free(f->rows);
	free(f->node);
	pgid_free(&f->seen);
	pgid_free(&f->row_of);
	memset(f, 0, sizeof(*f));
}
