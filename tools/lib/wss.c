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
}

void wss_free(struct wss *w)
{
	pgid_free(&w->ids);
	free(w->last);
	memset(w, 0, sizeof(*w));
}

/* The bin of gap @g >= 1: the smallest j with g <= 2^j. */
static inline unsigned int gap_bin(uint64_t g)
{
	return g <= 1 ? 0 : 64 - __builtin_clzll(g - 1);
}

int wss_ref(struct wss *w, uint64_t page)
{
	uint32_t seen = w->ids.nr;
	int64_t id = pgid_get(&w->ids, page);
	uint64_t g;

	if (id < 0)
		return -1;
	if (id >= w->last_cap) {
		uint32_t cap = w->last_cap ? 2 * w->last_cap : 1024;
		uint64_t *v = realloc(w->last, (size_t)cap * sizeof(*v));

		if (!v)
			return -1;	/* the page has an id and no time: 0 */
		memset(v + w->last_cap, 0, (size_t)(cap - w->last_cap) * sizeof(*v));
		w->last = v;
		w->last_cap = cap;
	}
	w->refs++;
	if (w->ids.nr != seen || !w->last[id]) {
		w->cold++;
	} else {
		g = w->refs - w->last[id];
		w->cnt[gap_bin(g)]++;
		w->sum[gap_bin(g)] += g;
		w->total += g;
	}
	w->last[id] = w->refs;
	return 0;
}

void wss_end(struct wss *w)
{
	if (w->ended)
		return;
	for (uint32_t id = 0; id < w->ids.nr; id++) {
		uint64_t g = w->refs - w->last[id] + 1;

		w->ecnt[gap_bin(g)]++;
		w->esum[gap_bin(g)] += g;
		w->total += g;
	}
	w->ended = 1;
}

/* The grid index of @tau, or -1 if @tau is not a power of two. */
static int tau_bin(uint64_t tau)
{
	return tau && !(tau & (tau - 1)) ? (int)gap_bin(tau) : -1;
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
