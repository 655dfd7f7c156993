// SPDX-License-Identifier: GPL-2.0
/*
 * reuse - exact LRU stack distances: a bitmap of time slots with a
 * Fenwick tree over its words, renumbered when full. See reuse.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "reuse.h"

#define REUSE_MIN_CAP (1U << 16)

/*
 * The 1s in @x, without a call into libgcc where the compiler may not
 * use the CPU's instruction (a baseline x86-64 build).
 */
static inline uint32_t popcount(uint64_t x)
{
#ifdef __POPCNT__
	return __builtin_popcountll(x);
#else
	x = x - ((x >> 1) & 0x5555555555555555ULL);
	x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
	return (uint32_t)((x * 0x0101010101010101ULL) >> 56);
#endif
}

static inline uint32_t words_of(uint32_t slots)
{
	return (uint32_t)(((uint64_t)slots + 63) / 64);
}

void reuse_init(struct reuse *r, uint32_t min_slots)
{
	memset(r, 0, sizeof(*r));
	r->min_cap = min_slots ? min_slots : REUSE_MIN_CAP;
}

void reuse_free(struct reuse *r)
{
	pgid_free(&r->ids);
	free(r->hist);
	free(r->live);
	free(r->fw);
	memset(r, 0, sizeof(*r));
}

/* The 1s in words 0 .. w - 1 (Fenwick indices 1 .. w). */
static inline uint32_t fw_prefix(const uint32_t *fw, uint32_t w)
{
	uint32_t n = 0;

	for (; w; w &= w - 1)
		n += fw[w];
	return n;
}

/* Add @delta (1 or -1) to the count of word @w. */
static inline void fw_add(uint32_t *fw, uint32_t words, uint32_t w, uint32_t delta)
{
	for (w++; w <= words; w += w & -w)
		fw[w] += delta;
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
	uint32_t live = r->ids.nr, cap = r->cap ? r->cap : r->min_cap;
	uint32_t old_words = words_of(r->now), words, sum = 0;

	while ((uint64_t)cap < 2 * ((uint64_t)live + 1)) {
		if (cap > UINT32_MAX / 2)
			return -1;
		cap *= 2;
	}
	words = words_of(cap);
	if (cap != r->cap) {
		uint64_t *bits = realloc(r->live, (size_t)words * sizeof(*bits));
		uint32_t *fw;

		if (!bits)
			return -1;
		r->live = bits;
		fw = realloc(r->fw, ((size_t)words + 1) * sizeof(*fw));
		if (!fw)
			return -1;
		r->fw = fw;
	}
	/* fw[w]: the 1s before word w, to rank each page's slot. */
	for (uint32_t w = 0; w < old_words; w++) {
		r->fw[w] = sum;
		sum += popcount(r->live[w]);
	}
	for (size_t i = 0; i < r->ids.cap; i++) {
		struct pgid_slot *p = &r->ids.slot[i];

		if (p->key)
			p->val = r->fw[p->val / 64] +
				 popcount(r->live[p->val / 64] & ((1ULL << (p->val % 64)) - 1));
	}
	/* Slots 0 .. live - 1 are the 1s now; count them per word. */
	memset(r->live, 0, (size_t)words * sizeof(*r->live));
	memset(r->fw, 0, ((size_t)words + 1) * sizeof(*r->fw));
	for (uint32_t w = 0; w < live / 64; w++)
		r->live[w] = ~0ULL;
	if (live % 64)
		r->live[live / 64] = (1ULL << (live % 64)) - 1;
	for (uint32_t w = 1; w <= words; w++) {
		uint32_t up = w + (w & -w);

		r->fw[w] += popcount(r->live[w - 1]);
		if (up <= words)
			r->fw[up] += r->fw[w];
	}
	r->cap = cap;
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
	hist = realloc(r->hist, (size_t)n * sizeof(*hist));
	if (!hist)
		return -1;
	memset(hist + r->ids_cap, 0, (size_t)(n - r->ids_cap) * sizeof(*hist));
	r->hist = hist;
	r->ids_cap = n;
	return 0;
}

/* The distance of a reference to @page, or REUSE_COLD, REUSE_NOMEM. */
static inline int64_t reuse_dist(struct reuse *r, uint64_t page, uint32_t *id)
{
	uint32_t before = r->ids.nr, words, s, prev, pw, sw;
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
	words = words_of(r->cap);
	s = r->now++;
	sw = s / 64;
	r->refs++;
	r->live[sw] |= 1ULL << (s % 64);
	prev = slot->val;
	slot->val = s;
	if (r->ids.nr != before) {
		fw_add(r->fw, words, sw, 1);
		r->cold++;
		return REUSE_COLD;
	}
	/*
	 * Of the before 1s (one per page), those after the page's previous
	 * slot are the other pages referenced since; those up to it (its
	 * own included) are the words before its word, in the tree, and a
	 * popcount in its word (the new 1 at s is after it).
	 */
	pw = prev / 64;
	d = before - fw_prefix(r->fw, pw) -
	    popcount(r->live[pw] & (~0ULL >> (63 - prev % 64)));
	/* The 1 moves from prev to s; the tree only if the word changes. */
	if (sw != pw) {
		fw_add(r->fw, words, pw, -1);
		fw_add(r->fw, words, sw, 1);
	}
	r->live[pw] &= ~(1ULL << (prev % 64));
	return (int64_t)d;
}

static inline void reuse_count(struct reuse *r, uint64_t d)
{
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
