// SPDX-License-Identifier: GPL-2.0
/*
 * reuse - exact LRU stack distances: a bitmap of time slots with a
 * Fenwick tree over its words, renumbered when full. See reuse.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "reuse.h"
#include "slots.h"
#include "table.h"

#define REUSE_MIN_CAP (1U << 16)

void reuse_init(struct reuse *r, uint32_t min_slots)
{
	memset(r, 0, sizeof(*r));
	r->min_cap = min_slots ? min_slots : REUSE_MIN_CAP;
}

void reuse_binned(struct reuse *r)
{
	r->binned = true;
}

void reuse_free(struct reuse *r)
{
	pgid_free(&r->ids);
	table_free(r->hist, r->ids_cap, sizeof(*r->hist));
	free(r->live);
	free(r->fw);
	memset(r, 0, sizeof(*r));
}

/*
 * Renumber the slots in use to 0 .. live - 1, keeping their order, and
 * make sure at least as many are free again (growing the bitmap if not),
 * so that renumbering costs O(1) per reference, amortized. Every page
 * seen holds exactly one slot: live is the footprint. On failure
 * nothing has changed.
 */
static int reuse_compact(struct reuse *r)
{
	uint32_t live = r->ids.nr, cap = slots_cap(r->cap, r->min_cap, live);

	if (!cap)
		return -1;
	if (cap != r->cap && slots_resize(&r->live, &r->fw, slots_words(cap)))
		return -1;
	slots_rank_begin(r->live, r->fw, r->now);
	for (size_t i = 0; i < r->ids.cap; i++) {
		struct pgid_slot *p = &r->ids.slot[i];

		if (p->key)
			p->val = slots_rank(r->live, r->fw, p->val);
	}
	slots_fill(r->live, r->fw, slots_words(cap), live);
	r->cap = cap;
	r->now = live;
	/* The tree counts every word again, the newest too. */
	r->open = live / 64;
	r->pend = 0;
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

/* The distance of a reference to @page, or REUSE_COLD, REUSE_NOMEM. */
static inline int64_t reuse_dist(struct reuse *r, uint64_t page, uint32_t *id)
{
	uint32_t before = r->ids.nr, words, s, prev;
	struct pgid_slot *slot;
	uint64_t d;

	/* Whatever can fail comes first, so that a failure changes nothing. */
	if (r->ids.nr == r->ids_cap && reuse_grow_ids(r))
		return REUSE_NOMEM;
	if (r->now == r->cap && reuse_compact(r))
		return REUSE_NOMEM;
	slot = pgid_slot(&r->ids, page);
	if (!slot)
		return REUSE_NOMEM;
	if (id)
		*id = slot->id;
	words = slots_words(r->cap);
	s = r->now++;
	r->refs++;
	prev = slot->val;
	slot->val = s;
	if (s / 64 != r->open) {
		/* The newest word closes: its count goes into the tree. */
		if (r->pend)
			slots_fw_add(r->fw, words, r->open, (uint32_t)r->pend);
		r->pend = 0;
		r->open = s / 64;
	}
	r->live[s / 64] |= 1ULL << (s % 64);
	r->pend++;
	if (r->ids.nr != before) {
		r->cold++;
		return REUSE_COLD;
	}
	/*
	 * Of the before 1s (one per page), those after the page's previous
	 * slot are the other pages referenced since. The tree counts the
	 * words before prev's, all closed.
	 */
	d = before - slots_upto(r->live, r->fw, prev);
	r->live[prev / 64] &= ~(1ULL << (prev % 64));
	if (prev / 64 == r->open)
		r->pend--;
	else
		slots_fw_add(r->fw, words, prev / 64, -1);
	return (int64_t)d;
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
	int64_t d = reuse_dist(r, page, NULL);

	if (d >= 0)
		reuse_count(r, d);
	return d;
}

/*
 * In batches: the hash slots are prefetched a few references ahead, and
 * the histogram's increments (random, in a large array) are made
 * together, so that the CPU overlaps their cache misses.
 */
#define REUSE_AHEAD 8
#define REUSE_BATCH 64

int reuse_ref_batch(struct reuse *r, const uint64_t *pages, size_t n)
{
	return reuse_ref_batch_dist(r, pages, n, NULL);
}

int reuse_ref_batch_dist(struct reuse *r, const uint64_t *pages, size_t n,
			 int64_t *dist)
{
	return reuse_ref_batch_ids(r, pages, n, dist, NULL);
}

int reuse_ref_batch_ids(struct reuse *r, const uint64_t *pages, size_t n,
			int64_t *dist, uint32_t *ids)
{
	uint64_t d[REUSE_BATCH];

	for (size_t i = 0; i < n; i += REUSE_BATCH) {
		size_t len = n - i < REUSE_BATCH ? n - i : REUSE_BATCH, k = 0;

		for (size_t j = 0; j < len; j++) {
			int64_t v;

			if (i + j + REUSE_AHEAD < n)
				pgid_prefetch(&r->ids, pages[i + j + REUSE_AHEAD]);
			v = reuse_dist(r, pages[i + j], ids ? &ids[i + j] : NULL);
			if (dist)
				dist[i + j] = v;
			if (v == REUSE_NOMEM) {
				while (k)
					reuse_count(r, d[--k]);
				return REUSE_NOMEM;
			}
			if (v >= 0)
				d[k++] = v;
		}
		for (size_t j = 0; j < k; j++)
			reuse_count(r, d[j]);
	}
	return 0;
}

uint64_t reuse_lru_misses(const struct reuse *r, uint64_t size)
{
	uint64_t misses = r->cold;

	if (r->binned) {
		/* Every distance is below the footprint. */
		if (size >= r->ids.nr)
			return misses;
		if (!size || (size & (size - 1)))
			return UINT64_MAX;
		/* d >= 2^j: the bins from j + 1 up */
		for (unsigned int k = reuse_bin(size); k < REUSE_BINS; k++)
			misses += r->bins[k];
		return misses;
	}
	for (uint64_t d = size; d <= r->max_dist && d < r->ids.nr; d++)
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
