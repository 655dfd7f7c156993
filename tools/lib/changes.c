// SPDX-License-Identifier: GPL-2.0
/*
 * changes - the kernel's changes to the frames under a trace's pages
 * (changes.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "changes.h"

#define CHANGES_FIRST_INTERVAL	1000000ULL	/* 1 ms */

int changes_init(struct changes *c, unsigned int width)
{
	memset(c, 0, sizeof(*c));
	if (!width) {
		errno = EINVAL;
		return -1;
	}
	c->width = width;
	c->interval = CHANGES_FIRST_INTERVAL;
	return 0;
}

/* The counts of @r's kind, cause and size, made if new; NULL: no memory. */
static struct changes_cause *cause_of(struct changes *c, const struct pgft_rec *r)
{
	struct changes_cause *k;

	for (size_t i = 0; i < c->ncauses; i++) {
		k = &c->causes[i];
		if (k->change == r->change && !strcmp(k->cause, r->text) &&
		    k->sized == r->has_frame &&
		    (!r->has_frame || (k->order == r->order && k->level == r->level)))
			return k;
	}
	if (c->ncauses == c->cap_causes) {
		size_t n = c->cap_causes ? 2 * c->cap_causes : 16;

		k = realloc(c->causes, n * sizeof(*k));
		if (!k)
			return NULL;
		c->causes = k;
		c->cap_causes = n;
	}
	k = &c->causes[c->ncauses++];
	memset(k, 0, sizeof(*k));
	k->change = r->change;
	snprintf(k->cause, sizeof(k->cause), "%s", r->text);
	k->sized = r->has_frame;
	k->order = r->order;
	k->level = r->level;
	return k;
}

/* The counts of node @node (PGFT_NO_NODE included), grown to hold it. */
static struct changes_node *node_of(struct changes *c, int node)
{
	size_t i = (size_t)(node + 1);

	if (i >= c->nnode) {
		size_t n = i + 1 > 2 * c->nnode ? i + 1 : 2 * c->nnode;
		struct changes_node *v = realloc(c->node, n * sizeof(*v));

		if (!v)
			return NULL;
		memset(v + c->nnode, 0, (n - c->nnode) * sizeof(*v));
		c->node = v;
		c->nnode = n;
	}
	return &c->node[i];
}

/* Double the interval until @dt fits: columns merge in pairs. */
static void widen(struct changes *c, uint64_t dt)
{
	const size_t k = PGFT_NCHANGE;

	while (dt / c->interval >= c->width) {
		for (size_t r = 0; r < c->nrows; r++) {
			uint64_t *v = c->rows[r].cells;

			for (unsigned int col = 0; col < c->width; col++)
				for (size_t j = 0; j < k; j++) {
					unsigned int a = 2 * col, b = 2 * col + 1;

					v[col * k + j] = a < c->width ?
						v[a * k + j] + (b < c->width ? v[b * k + j] : 0) : 0;
				}
		}
		c->interval *= 2;
	}
}

/* The row of region @g of process @pid, made if new; NULL: no memory. */
static struct changes_row *row_of(struct changes *c, const struct pgft_region *g,
				  int pid)
{
	uint32_t nr = c->row_of.nr;
	int64_t i = pgid_get(&c->row_of, (uint64_t)(uint32_t)pid << 40 ^ g->id);
	struct changes_row *w;

	if (i < 0)
		return NULL;
	if (c->row_of.nr == nr)
		return &c->rows[i];
	if (c->nrows == c->cap_rows) {
		size_t n = c->cap_rows ? 2 * c->cap_rows : 16;

		w = realloc(c->rows, n * sizeof(*w));
		if (!w)
			return NULL;
		c->rows = w;
		c->cap_rows = n;
	}
	w = &c->rows[c->nrows];
	w->cells = calloc((size_t)c->width * PGFT_NCHANGE, sizeof(*w->cells));
	w->name = strdup(g->name ? g->name : "");
	if (!w->cells || !w->name) {
		free(w->cells);
		free(w->name);
		return NULL;
	}
	w->pid = pid;
	w->id = g->id;
	w->start = g->start;
	w->end = g->end;
	c->nrows++;
	return w;
}

int changes_rec(struct changes *c, const struct pgft_rec *r,
		const struct pgft_region *g, int pid)
{
	struct changes_cause *k;
	struct changes_node *from, *to;
	struct changes_row *w;
	uint64_t dt;

	if (r->type != PGFT_PAGES)
		return 0;
	k = cause_of(c, r);
	from = node_of(c, r->node);
	to = node_of(c, r->new_node);
	if (!k || !from || !to)
		return -1;
	/* node_of() may have moved the array */
	from = &c->node[r->node + 1];
	c->records++;
	c->pages += r->n[0];
	c->by_kind[r->change] += r->n[0];
	k->records++;
	k->pages += r->n[0];
	switch (r->change) {
	case PGFT_MOVE:
		if (r->node != r->new_node) {
			from->moved_out += r->n[0];
			to->moved_in += r->n[0];
		}
		break;
	case PGFT_EVICT:
		from->evicted += r->n[0];
		break;
	case PGFT_COLLAPSE:
		to->collapsed += r->n[0];
		break;
	default:
		break;
	}
	if (!g) {
		c->outside += r->n[0];
		return 0;
	}
	if (!c->timed++)
		c->t0 = r->time;
	dt = r->time > c->t0 ? r->time - c->t0 : 0;
	widen(c, dt);
	w = row_of(c, g, pid);
	if (!w)
		return -1;
	w->cells[dt / c->interval * PGFT_NCHANGE + r->change] += r->n[0];
	return 0;
}

unsigned int changes_cols(const struct changes *c)
{
	unsigned int n = 0;

	for (size_t r = 0; r < c->nrows; r++)
		for (unsigned int col = n; col < c->width; col++)
			for (int k = 0; k < PGFT_NCHANGE; k++)
				if (changes_cell(c, r, col, k))
					n = col + 1;
	return n;
}

void changes_free(struct changes *c)
{
	for (size_t r = 0; r < c->nrows; r++) {
		free(c->rows[r].cells);
		free(c->rows[r].name);
	}
	free(c->rows);
	free(c->causes);
	free(c->node);
	pgid_free(&c->row_of);
	memset(c, 0, sizeof(*c));
}
