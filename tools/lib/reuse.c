// SPDX-License-Identifier: GPL-2.0
/*
 * reuse - exact LRU stack distances: a bitmap of time slots with
 * counters over its words (slots.h), renumbered when full. See reuse.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdbool.h>
#include "reuse.h"
#include "table.h"

#define REUSE_MIN_CAP (1U << 16)

void reuse_init(struct reuse *r, uint32_t min_slots)
{
	memset(r, 0, sizeof(*r));
	r->min_cap = min_slots ? min_slots : REUSE_MIN_CAP;
	r->map = &r->ids;
	r->off = PGID_DATA_OFF;		/* val */
}

void reuse_attach(struct reuse *r, struct pgid_map *m, size_t off)
{
	r->map = m;
	r->off = off;
}

void reuse_binned(struct reuse *r)
{
	r->binned = true;
}

void reuse_free(struct reuse *r)
{
	pgid_free(&r->ids);
	table_free(r->hist, r->ids_cap, sizeof(*r->hist));
	slots_free(&r->sl);
	memset(r, 0, sizeof(*r));
}

/*
 * Renumber the slots in use to 0 .. live - 1, keeping their order, and
 * make sure at least as many are free again (growing the slots if not),
 * so that renumbering costs O(1) per reference, amortized. Every page
 * seen holds exactly one slot: live is the footprint. On failure
 * nothing has changed.
 */
static int reuse_compact(struct reuse *r)
{
	uint32_t live = reuse_pages(r), cap = slots_cap(r->sl.cap, r->min_cap, live);

	if (!cap || slots_renumber_begin(&r->sl, cap, r->now))
		return -1;
	for (size_t i = 0; i < r->map->cap; i++) {
		struct pgid_slot *p = pgid_at(r->map, i);
		uint32_t *t = pgid_data(p, r->off);

		if (p->key && *t)
			*t = slots_rank(&r->sl, *t - 1) + 1;
	}
	slots_renumber_end(&r->sl, live);
	r->now = live;
	if (r->refs)
		r->compactions++;
	return 0;
}

/* Room for one more page in hist[]. */
static int reuse_grow_ids(struct reuse *r)
{
	uint32_t n = r->ids_cap ? 2 * r->ids_cap : 1024;
	uint64_t *hist;

	if (r->ids_cap > UINT32_MAX / 2)
		n = UINT32_MAX;
	if (r->binned) {
		r->ids_cap = n;
		return 0;
	}
	hist = table_grow(r->hist, r->ids_cap, n, sizeof(*hist));
	if (!hist)
		return -1;
	r->hist = hist;
	r->ids_cap = n;
	return 0;
}

static inline void reuse_count(struct reuse *r, uint64_t d)
{
	if (!r->binned)
		r->hist[d]++;
	r->bins[reuse_bin(d)]++;
	if (d > r->max_dist)
		r->max_dist = d;
}

int64_t reuse_ref(struct reuse *r, uint64_t page)
{
	int64_t d = REUSE_NOMEM;

	reuse_ref_batch_dist(r, &page, 1, &d);
	return d;
}

int reuse_ref_room(struct reuse *r)
{
	if (reuse_pages(r) == r->ids_cap && reuse_grow_ids(r))
		return -1;
	if (r->now == r->sl.cap && reuse_compact(r))
		return -1;
	return 0;
}

void reuse_sync(struct reuse *r)
{
	for (uint32_t i = 0; i < r->npend; i++)
		r->hist[r->pend[i]]++;
	r->npend = 0;
}

/*
 * In batches (reuse.h): the page of each reference looked up and given
 * its slot, the hash slots prefetched a few references ahead and the
 * words of the previous slots as they are found; then the distances;
 * then the histogram's increments (random, in a large array), together,
 * so that the CPU overlaps their cache misses.
 */
#define REUSE_AHEAD 12
#define REUSE_BATCH 64
#define REUSE_NEW UINT32_MAX	/* prev[]: a first reference */

int reuse_ref_batch(struct reuse *r, const uint64_t *pages, size_t n)
{
	return reuse_ref_batch_dist(r, pages, n, NULL);
}

int reuse_ref_batch_dist(struct reuse *r, const uint64_t *pages, size_t n,
			 int64_t *dist)
{
	return reuse_ref_batch_ids(r, pages, n, dist, NULL);
}

/*
 * The pages of up to @n references looked up, in order, each given the
 * next slot, its previous one in @prev (REUSE_NEW: none): how many, up
 * to a renumbering (done between batches, when every slot is counted) or
 * a failure (*@err set). Whatever can fail comes first, so that a
 * failure changes nothing. A page's val is its slot + 1.
 */
static size_t reuse_lookup(struct reuse *r, const uint64_t *pages, size_t n,
			   size_t ahead, uint32_t *prev, uint32_t *ids, bool *err)
{
	size_t m;

	for (m = 0; m < n; m++) {
		struct pgid_slot *slot;

		if (m + REUSE_AHEAD < ahead)
			pgid_prefetch(&r->ids, pages[m + REUSE_AHEAD]);
		if (reuse_pages(r) == r->ids_cap && reuse_grow_ids(r))
			break;
		if (r->now == r->sl.cap) {
			if (m)
				return m;
			if (reuse_compact(r))
				break;
		}
		slot = pgid_slot(&r->ids, pages[m]);
		if (!slot)
			break;
		if (ids)
			ids[m] = slot->id;
		if (!slot->val) {
			prev[m] = REUSE_NEW;
			r->cold++;	/* the page counts from here (reuse_pages()) */
		} else {
			prev[m] = slot->val - 1;
			slots_prefetch(&r->sl, prev[m]);
		}
		slot->val = ++r->now;
	}
	*err = m < n;
	return m;
}

int reuse_ref_batch_ids(struct reuse *r, const uint64_t *pages, size_t n,
			int64_t *dist, uint32_t *ids)
{
	uint32_t prev[REUSE_BATCH];
	uint64_t d[REUSE_BATCH];

	for (size_t i = 0; i < n;) {
		size_t len = n - i < REUSE_BATCH ? n - i : REUSE_BATCH, k = 0, m;
		bool err = false;
		uint32_t s;

		m = reuse_lookup(r, pages + i, len, n - i, prev, ids ? ids + i : NULL,
				 &err);
		/*
		 * Of the 1s (one per page), those after the page's previous
		 * slot are the other pages referenced since.
		 */
		s = r->now - (uint32_t)m;
		for (size_t j = 0; j < m; j++, s++) {
			r->refs++;
			if (prev[j] == REUSE_NEW) {
				slots_set(&r->sl, s);
				if (dist)
					dist[i + j] = REUSE_COLD;
				continue;
			}
			d[k] = slots_after(&r->sl, prev[j]);
			slots_move(&r->sl, prev[j], s);
			if (dist)
				dist[i + j] = (int64_t)d[k];
			k++;
		}
		for (size_t j = 0; j < k; j++)
			reuse_count(r, d[j]);
		i += m;
		if (err) {
			if (dist && i < n)
				dist[i] = REUSE_NOMEM;
			return REUSE_NOMEM;
		}
	}
	return 0;
}

uint64_t reuse_lru_misses(const struct reuse *r, uint64_t size)
{
	uint64_t misses = r->cold;

	if (r->binned) {
		/* Every distance is below the footprint. */
		if (size >= reuse_pages(r))
			return misses;
		if (!size || (size & (size - 1)))
			return UINT64_MAX;
		/* d >= 2^j: the bins from j + 1 up */
		for (unsigned int k = reuse_bin(size); k < REUSE_BINS; k++)
			misses += r->bins[k];
		return misses;
	}
	for (uint64_t d = size; d <= r->max_dist && d < reuse_pages(r); d++)
		misses += r->hist[d];
	return misses;
}

void reuse_bin_label(char *buf, size_t n, unsigned int k)
{
	if (reuse_bin_lo(k) == reuse_bin_hi(k))
		snprintf(buf, n, "%llu", (unsigned long long)reuse_bin_lo(k));
	else
		snprintf(buf, n, "%llu-%llu", (unsigned long long)reuse_bin_lo(k),
			 (unsigned long long)reuse_bin_hi(k));
}
