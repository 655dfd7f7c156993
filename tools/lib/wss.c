// SPDX-License-Identifier: GPL-2.0
/*
 * wss - the working-set curve from the binned forward gaps. See wss.h.
 */
#include <stdlib.h>
#include <string.h>
#include "wss.h"
#include "table.h"

void wss_init(struct wss *w)
{
	memset(w, 0, sizeof(*w));
}

void wss_free(struct wss *w)
{
	table_free(w->slot, w->cap, sizeof(*w->slot));
	memset(w, 0, sizeof(*w));
}

/* The bin of gap @g >= 1: the smallest j with g <= 2^j. */
static inline unsigned int gap_bin(uint64_t g)
{
	return g <= 1 ? 0 : 64 - __builtin_clzll(g - 1);
}

static struct wss_slot *wss_slot(struct wss_slot *v, size_t cap, uint64_t key)
{
	size_t i = pgid_hash(key, 64 - __builtin_ctzll(cap));

	while (v[i].key && v[i].key != key)
		i = (i + 1) & (cap - 1);
	return &v[i];
}

static int wss_grow(struct wss *w)
{
	size_t cap = w->cap ? 2 * w->cap : 1024;
	struct wss_slot *v = table_calloc(cap, sizeof(*v));

	if (!v)
		return -1;
	for (size_t i = 0; i < w->cap; i++)
		if (w->slot[i].key)
			*wss_slot(v, cap, w->slot[i].key) = w->slot[i];
	table_free(w->slot, w->cap, sizeof(*w->slot));
	w->slot = v;
	w->cap = cap;
	return 0;
}

int wss_ref(struct wss *w, uint64_t page)
{
	struct wss_slot *s;
	uint64_t g;

	if (4 * (w->nr + 1) > 3 * w->cap && wss_grow(w))
		return -1;
	s = wss_slot(w->slot, w->cap, page + 1);
	w->refs++;
	if (!s->key) {
		s->key = page + 1;
		w->nr++;
		w->cold++;
	} else {
		g = w->refs - s->last;
		w->cnt[gap_bin(g)]++;
		w->sum[gap_bin(g)] += g;
		w->total += g;
	}
	s->last = w->refs;
	return 0;
}

void wss_end(struct wss *w)
{
	if (w->ended)
		return;
	for (size_t i = 0; i < w->cap; i++) {
		uint64_t g;

		if (!w->slot[i].key)
			continue;
		g = w->refs - w->slot[i].last + 1;
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
