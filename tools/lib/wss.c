// SPDX-License-Identifier: GPL-2.0
/*
 * wss - the working-set curve from the binned forward gaps. See wss.h.
 */
#include <stdlib.h>
#include <string.h>
#include "wss.h"

void wss_init(struct wss *w)
{
	memset(w, 0, sizeof(*w));
	pgid_set_data(&w->ids, sizeof(struct wss_page), false);
}

void wss_free(struct wss *w)
{
	pgid_free(&w->ids);
	memset(w, 0, sizeof(*w));
}

int wss_ref(struct wss *w, uint64_t page)
{
	struct pgid_slot *s = pgid_slot(&w->ids, page);

	if (!s)
		return -1;
	wss_ref_at(w, pgid_data(s, PGID_NOID_OFF));
	return 0;
}

void wss_end_page(struct wss *w, const struct wss_page *p)
{
	uint64_t g;

	if (!p->last)
		return;
	g = w->refs - p->last + 1;
	w->ecnt[wss_gap_bin(g)]++;
	w->esum[wss_gap_bin(g)] += g;
	w->total += g;
}

void wss_end(struct wss *w)
{
	if (w->ended)
		return;
	for (size_t i = 0; i < w->ids.cap; i++) {
		struct pgid_slot *s = pgid_at(&w->ids, i);

		if (s->key)
			wss_end_page(w, pgid_data(s, PGID_NOID_OFF));
	}
	w->ended = 1;
}

/* The grid index of @tau, or -1 if @tau is not a power of two. */
static int tau_bin(uint64_t tau)
{
	return tau && !(tau & (tau - 1)) ? (int)wss_gap_bin(tau) : -1;
}

uint64_t wss_sum(const struct wss *w, uint64_t tau)
{
	uint64_t s = 0;
	int k;

	if (tau >= w->refs)
		return w->total;
	k = tau_bin(tau);
	if (k < 0)
		return UINT64_MAX;
	for (int j = 0; j < WSS_BINS; j++)
		if (j <= k)
			s += w->sum[j] + w->esum[j];
		else
			s += tau * (w->cnt[j] + w->ecnt[j]);
	return s;
}

uint64_t wss_faults(const struct wss *w, uint64_t tau)
{
	uint64_t f = w->cold;
	int k;

	if (tau >= w->refs)
		return f;
	k = tau_bin(tau);
	if (k < 0)
		return UINT64_MAX;
	for (int j = k + 1; j < WSS_BINS; j++)
		f += w->cnt[j];
	return f;
}
