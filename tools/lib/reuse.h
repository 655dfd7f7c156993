/* SPDX-License-Identifier: GPL-2.0 */
/*
 * reuse - exact LRU stack (reuse) distances at page granularity, their
 * histogram, and the exact LRU miss-ratio curve derived from it.
 *
 * The reuse distance of a reference is the number of distinct other
 * pages referenced since the previous reference to the same page; the
 * first reference to a page has none (a cold miss, counted apart). An
 * LRU cache of C pages hits exactly the references at distance < C
 * (Mattson et al., 1970), so the whole LRU curve comes from one pass:
 * misses(C) = cold + references at distance >= C.
 *
 *	struct reuse r;
 *
 *	reuse_init(&r, 0);
 *	for each referenced page:
 *		d = reuse_ref(&r, page);	// >= 0, REUSE_COLD, REUSE_NOMEM
 *	misses = reuse_lru_misses(&r, 64);	// an LRU cache of 64 pages
 *	reuse_free(&r);
 *
 * Method (after Bennett and Kruskal, 1975): every reference takes the
 * next time slot, and a bitmap over the slots has a 1 at the slot of
 * each page's most recent reference. The distance of a reference whose
 * page was last referenced at slot s is the number of 1s after s,
 * which counters per word and per group of words give with a few
 * independent loads (slots.h), so a reference costs O(log64(T)) for T
 * slots, plus a hash lookup; the bitmap and the counters take about 1/5
 * byte per slot and stay in the CPU's cache. When the slots run out
 * they are renumbered (the live ones become 0 .. pages - 1, in order),
 * and the bitmap grows if fewer than half would be free: T stays within
 * 4 x the distinct pages (or the 65,536 it starts with). With the hash
 * table (16 bytes a slot, at most 3/4 full; the slot also holds the
 * page's latest time slot) and the histogram (8 bytes per distance up
 * to the footprint; none after reuse_binned()), memory is about 30 bytes
 * per distinct page, never more with the trace's length.
 *
 * reuse_ref_batch() takes references in batches, to overlap the cache
 * misses of the hash table, the bitmap and the histogram: the pages of a
 * batch are looked up and given their slots first, in order, with the
 * table's slots prefetched a few references ahead and the bitmap's words
 * of their previous slots as they are found; then the distances, in
 * order.
 */
#ifndef PGFT_REUSE_H
#define PGFT_REUSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "pageid.h"
#include "slots.h"

#define REUSE_COLD	(-1)	/* reuse_ref(): the page's first reference */
#define REUSE_NOMEM	(-2)	/* reuse_ref(): out of memory */

/* Log2 bins: bin 0 is distance 0, bin k >= 1 distances 2^(k-1) .. 2^k - 1. */
#define REUSE_BINS 65
#define REUSE_PEND 64

struct reuse {
	/*
	 * page -> id, in order of first reference, and in the same hash
	 * slot (val) the time slot of its most recent reference, + 1
	 */
	struct pgid_map ids;
	/* where the pages' time slots are: &ids, or reuse_attach()'s */
	struct pgid_map *map;
	size_t off;
	uint64_t *hist;		/* hist[d]: references at distance d */
	uint32_t ids_cap;	/* length of hist[] */
	struct slots sl;	/* the time slots and their counters: slots.h */
	uint32_t now;		/* slots used */
	uint32_t min_cap;
	uint64_t bins[REUSE_BINS];
	uint64_t refs, cold;	/* references; first references */
	uint64_t max_dist;	/* the largest distance seen */
	uint64_t compactions;	/* times the slots were renumbered */
	/* reuse_ref_at()'s distances not yet in hist[] (reuse_sync()) */
	uint32_t pend[REUSE_PEND];
	uint32_t npend;
	bool binned;		/* reuse_binned(): no hist[] */
};

/*
 * Start empty. @min_slots: the slots to start with (0: a default); the
 * tests make it tiny to force renumbering.
 */
void reuse_init(struct reuse *r, uint32_t min_slots);
void reuse_free(struct reuse *r);

/*
 * Keep the log2 bins only, not a count per distance (hist[]): before the
 * first reference. reuse_lru_misses() then answers at sizes that are
 * powers of two and at the footprint and above (what the bins tell
 * exactly), and the pass saves a random access to an array as large as
 * the footprint at every reference.
 */
void reuse_binned(struct reuse *r);

/* Record a reference to @page: its distance, REUSE_COLD or REUSE_NOMEM. */
int64_t reuse_ref(struct reuse *r, uint64_t page);

/*
 * Record @n references, in order: the same, faster (the memory
 * latencies of several references overlap). 0 or REUSE_NOMEM (the
 * references before the one that failed are recorded).
 */
int reuse_ref_batch(struct reuse *r, const uint64_t *pages, size_t n);

/* The same, with each reference's distance (or REUSE_COLD) in @dist[]. */
/*
 * The same, giving each page's dense id too (0 for the first page, then
 * in order of first reference) in @ids (if not NULL): what mrc_ref_ids()
 * takes, so that the simulations share this page table.
 */
int reuse_ref_batch_ids(struct reuse *r, const uint64_t *pages, size_t n,
			int64_t *dist, uint32_t *ids);
int reuse_ref_batch_dist(struct reuse *r, const uint64_t *pages, size_t n,
			 int64_t *dist);

/*
 * For a caller that looks its pages up in a map of its own (pgfreport's
 * pass, which numbers the pages for every report): the time slot of each
 * page's latest reference, + 1, is the uint32_t at @off of the page's
 * slot in @m (pgid_data(); 0 for a new page), and reuse_ref_at() takes
 * it. Before the first reference.
 */
void reuse_attach(struct reuse *r, struct pgid_map *m, size_t off);

/* reuse_ref_at()'s rare work: room in hist[], renumbering; 0 or -1. */
int reuse_ref_room(struct reuse *r);
void reuse_sync(struct reuse *r);

/*
 * reuse_sync(): after reuse_ref_at()s, the histogram per distance brought
 * up to date, before it is read (reuse_lru_misses()); the log2 bins
 * always are.
 */

/* Distinct pages referenced so far (the footprint): one cold miss each. */
static inline uint64_t reuse_pages(const struct reuse *r)
{
	return r->cold;
}

/* The log2 bin of distance @d. */
static inline unsigned int reuse_bin(uint64_t d)
{
	return d ? 64 - __builtin_clzll(d) : 0;
}

/* The smallest and largest distance of bin @k. */
static inline uint64_t reuse_bin_lo(unsigned int k)
{
	return k ? 1ULL << (k - 1) : 0;
}

static inline uint64_t reuse_bin_hi(unsigned int k)
{
	return k ? (k == 64 ? UINT64_MAX : (1ULL << k) - 1) : 0;
}

/* The label of bin @k: "0", "1", "2-3", "4-7", ... */
void reuse_bin_label(char *buf, size_t n, unsigned int k);

/*
 * Misses of an LRU cache of @size pages over the references so far,
 * cold misses included: exact. O(footprint). After reuse_binned(): at a
 * power of two or the footprint and above, O(1); UINT64_MAX at any other
 * size.
 */
uint64_t reuse_lru_misses(const struct reuse *r, uint64_t size);

/*
 * After reuse_attach(): record a reference to the page whose time slot
 * is *@t (in the map): its distance, REUSE_COLD or REUSE_NOMEM. Every
 * page's slot may be renumbered. Inline: a pass that does little else
 * a reference spends a fifth of its instructions on the calls.
 */
static inline int64_t reuse_ref_at(struct reuse *r, uint32_t *t)
{
	uint32_t prev;
	uint64_t d;

	if (__builtin_expect(r->cold == r->ids_cap || r->now == r->sl.cap, 0) &&
	    reuse_ref_room(r))
		return REUSE_NOMEM;
	r->refs++;
	if (!*t) {
		slots_set(&r->sl, r->now);
		*t = ++r->now;
		r->cold++;
		return REUSE_COLD;
	}
	/*
	 * Of the 1s (one per page), those after the page's previous slot are
	 * the other pages referenced since.
	 */
	prev = *t - 1;
	d = slots_after(&r->sl, prev);
	slots_move(&r->sl, prev, r->now);
	*t = ++r->now;
	r->bins[reuse_bin(d)]++;
	if (d > r->max_dist)
		r->max_dist = d;
	/* hist[] is large: its increments wait, to overlap their misses */
	if (!r->binned) {
		r->pend[r->npend++] = (uint32_t)d;
		if (r->npend == REUSE_PEND)
			reuse_sync(r);
	}
	return (int64_t)d;
}

#endif
