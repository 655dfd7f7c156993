// SPDX-License-Identifier: GPL-2.0
/*
 * timeline - faults, pages, working set and footprint per interval of
 * time (timeline.h).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "exit.h"
#include "timeline.h"
#include "../lib/pgftrace.h"

/* Out of memory: say so, once; the timeline keeps no more. */
static void oom(struct timeline *tl)
{
	if (!tl->nomem)
		fprintf(stderr, "%s: out of memory\n", pgft_prog);
	tl->nomem = true;
}

/* @page's last interval, a new slot if *@fresh; NULL out of memory. */
static long long *lm_slot(struct lastmap *m, uint64_t page, bool *fresh)
{
	size_t i;

	if (2 * (m->nr + 1) > m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 1024;
		struct lastmap n = { calloc(cap, 8), calloc(cap, 8), cap, 0 };
		bool f;

		if (!n.key || !n.val) {
			free(n.key);
			free(n.val);
			return NULL;
		}
		for (i = 0; i < m->cap; i++)
			if (m->key[i])
				*lm_slot(&n, m->key[i] - 1, &f) = m->val[i];
		free(m->key);
		free(m->val);
		*m = n;
	}
	for (i = (page * 0x9e3779b97f4a7c15ULL) & (m->cap - 1); m->key[i];
	     i = (i + 1) & (m->cap - 1))
		if (m->key[i] == page + 1) {
			*fresh = false;
			return &m->val[i];
		}
	m->key[i] = page + 1;
	m->nr++;
	*fresh = true;
	return &m->val[i];
}

void tl_init(struct timeline *tl, long interval_ms, long window)
{
	memset(tl, 0, sizeof(*tl));
	tl->interval_ms = interval_ms;
	tl->window = window;
	tl->cur = -1;
}

/* The current interval ends: its row. */
static void tl_row(struct timeline *tl)
{
	if (tl->nomem)
		return;
	if (tl->nrow == tl->caprow) {
		size_t cap = tl->caprow ? 2 * tl->caprow : 256;

		for (int k = 0; k < TL_COLS; k++) {
			double *v = realloc(tl->row[k], cap * sizeof(double));

			if (!v) {
				oom(tl);
				return;
			}
			tl->row[k] = v;
		}
		tl->caprow = cap;
	}
	tl->row[TL_T][tl->nrow] = (double)tl->cur * tl->interval_ms;
	tl->row[TL_FAULTS][tl->nrow] = (double)tl->faults;
	tl->row[TL_PAGES][tl->nrow] = (double)tl->distinct;
	tl->row[TL_WS][tl->nrow] = (double)tl->ws;
	tl->row[TL_FOOTPRINT][tl->nrow] = (double)tl->last.nr;
	tl->nrow++;
}

/* Move to interval @iv, ending the ones before (empty ones too). */
static void tl_advance(struct timeline *tl, long long iv)
{
	while (tl->cur < iv) {
		if (tl->cur >= 0)
			tl_row(tl);
		tl->cur++;
		/* The interval leaving the window takes its pages with it. */
		tl->ws -= tl->ring[tl->cur % tl->window];
		tl->ring[tl->cur % tl->window] = 0;
		tl->faults = 0;
		tl->distinct = 0;
	}
}

void tl_fault(struct timeline *tl, unsigned long long t, uint64_t page)
{
	long long iv, *last;
	bool fresh;

	if (tl->nomem)
		return;
	if (!tl->ring) {
		tl->ring = calloc(tl->window, sizeof(*tl->ring));
		if (!tl->ring) {
			oom(tl);
			return;
		}
		tl->t0 = t;
	}
	iv = t > tl->t0 ?
	     (long long)((t - tl->t0) / (tl->interval_ms * 1000000ULL)) : 0;
	if (iv > tl->cur)
		tl_advance(tl, iv);
	tl->faults++;
	last = lm_slot(&tl->last, page, &fresh);
	if (!last) {
		oom(tl);
		return;
	}
	if (fresh || *last != tl->cur) {
		tl->distinct++;
		if (!fresh && *last > tl->cur - tl->window) {
			tl->ring[*last % tl->window]--;	/* still in the window */
			tl->ws--;
		}
		tl->ring[tl->cur % tl->window]++;
		tl->ws++;
		*last = tl->cur;
	}
}

void tl_end(struct timeline *tl)
{
	if (tl->ring)
		tl_row(tl);
}

void tl_free(struct timeline *tl)
{
	free(tl->ring);
	free(tl->last.key);
	free(tl->last.val);
	for (int k = 0; k < TL_COLS; k++)
		free(tl->row[k]);
	memset(tl, 0, sizeof(*tl));
}
