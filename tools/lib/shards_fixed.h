/* SPDX-License-Identifier: GPL-2.0 */
/*
 * shards_fixed - approximate LRU miss-ratio curves in memory bounded by a
 * number of sampled pages, whatever the trace's footprint: fixed-size
 * SHARDS ("SHARDS_max", Waldspurger et al., FAST'15, section 4.2).
 *
 * As shards.h, a page is sampled when its hash falls below a threshold,
 * but the threshold starts at rate 1 and falls as needed: when a new
 * sampled page would make more than S_max, the sampled page(s) of the
 * largest hash go (a max-heap by hash), and the threshold drops to that
 * hash, so that no page of a hash as large is sampled again. The rate
 * only falls; the set never holds more than S_max pages.
 *
 * Distances: the LRU stack holds the sampled pages alone (slots.h, whose
 * 1s an evicted page gives up), so a re-reference's distance d counts
 * the sampled pages referenced since, at the rate R_t of the moment, and
 * stands for d / R_t pages of the whole. Each sampled reference adds
 * 1 / R_t (the references it stands for) to the histogram at d / R_t, or
 * to the cold misses: a fall of the rate rescales nothing, and the miss
 * ratio at C is (cold + weight at distances >= C) / all references,
 * which is SHARDS-adj's sampled misses at the final rate R over R x all
 * references. No page comes back once evicted, so each distinct page is
 * cold at most once.
 *
 * Histogram: a bin per whole distance below SHFX_EXACT (exact there: a
 * distance x hits a cache of C pages iff floor(x) < C), then
 * SHFX_PER_OCTAVE bins an octave (each 1/256 to 1/512 of its distance
 * wide). The bin holding C is split linearly: the value at C is between
 * the sample's curve at the bin's two ends (within 1/256 of C), and off
 * it by at most that bin's share of the references.
 *
 *	struct shards_fixed s;
 *
 *	shards_fixed_init(&s, 65536, seed, NULL, 0);	(default sizes)
 *	for each reference: shards_fixed_ref(&s, page);
 *	shards_fixed_end(&s);
 *	for (i = 0; i < shards_fixed_nr(&s); i++)
 *		shards_fixed_size(&s, i), shards_fixed_ratio(&s, i)
 *	shards_fixed_free(&s);
 *
 * Memory: at most about 60 bytes a sampled page (hash table 16 bytes a
 * slot at most 3/4 full and at least 3/8 once grown, heap 16, time slots
 * 3/16 a slot with at most 4 slots a page), plus the histogram's 136 KiB.
 */
#ifndef PGFT_SHARDS_FIXED_H
#define PGFT_SHARDS_FIXED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "shards.h"
#include "slots.h"

#define SHFX_EXACT	4096		/* a bin per distance below this */
#define SHFX_EXACT_LOG	12		/* its log2 */
#define SHFX_PER_OCTAVE	256		/* above: bins per octave */
/* Distances go up to 2^32 sampled pages x 2^24 (the lowest rate's scale). */
#define SHFX_BINS	(SHFX_EXACT + (64 - SHFX_EXACT_LOG) * SHFX_PER_OCTAVE)
/* The most pages a sample takes: its slots are counted in a uint32_t. */
#define SHFX_MAX_PAGES	(1U << 30)

/* A sampled page: its hash-table slot (empty: slot SHFX_FREE). */
struct shfx_page {
	uint64_t page;
	uint32_t slot;		/* the time slot of its latest reference */
};

/* The heap's entry: the page, and its hash (the key). */
struct shfx_heap {
	uint64_t page;
	uint32_t hash;
};

struct shards_fixed {
	uint64_t threshold;	/* sample hash < threshold; only falls */
	uint64_t seed;		/* the hash's key (shards_key()) */
	uint64_t refs;		/* every reference seen */
	uint64_t sampled;	/* those sampled */
	double scale;		/* 1 / the rate: each sampled reference's weight */
	uint32_t max_pages;	/* S_max */
	/* The sampled pages: open addressing, linear probing. */
	struct shfx_page *map;
	uint32_t map_cap;	/* a power of two, or 0 */
	unsigned int shift;	/* 64 - log2(map_cap) */
	uint32_t pages;		/* sampled pages now: the map's and heap's */
	struct shfx_heap *heap;	/* a max-heap by hash of the same pages */
	uint32_t heap_cap;
	struct slots sl;	/* slots.h: the LRU stack of the sampled pages */
	uint32_t now;		/* slots used */
	double *hist;		/* SHFX_BINS: weight per distance bin */
	double cold;		/* weight of first references */
	uint64_t *sizes;	/* the whole's sizes */
	size_t nsizes;
	uint64_t evicted;	/* pages evicted */
	uint64_t compactions;	/* times the slots were renumbered */
	bool failed;
};

/*
 * Sample at most @max_pages pages (1 .. SHFX_MAX_PAGES) with hash seed
 * @seed, the curve at the whole's @sizes (NULL: the default, at the
 * end). 0, or -1 with errno set (EINVAL, ENOMEM).
 */
int shards_fixed_init(struct shards_fixed *s, uint64_t max_pages, uint64_t seed,
		      const uint64_t *sizes, size_t nsizes);

/* A reference to a sampled page of hash @hash. */
void shards_fixed_sampled(struct shards_fixed *s, uint64_t page, uint32_t hash);

/* A reference to @page: most are rejected here, by the hash. */
static inline void shards_fixed_ref(struct shards_fixed *s, uint64_t page)
{
	uint64_t h = shards_hash(s->seed, page);

	s->refs++;
	if (h < s->threshold)
		shards_fixed_sampled(s, page, (uint32_t)h);
}

/* After the last reference: 0, or -1 with errno set (references were lost). */
int shards_fixed_end(struct shards_fixed *s);

/* The rate the threshold gives now. */
static inline double shards_fixed_rate(const struct shards_fixed *s)
{
	return (double)s->threshold / SHARDS_MOD;
}

/* The whole's footprint the sample estimates: sampled pages / rate. */
uint64_t shards_fixed_footprint(const struct shards_fixed *s);

/* The sizes, in the whole's pages, and each one's LRU miss ratio. */
size_t shards_fixed_nr(const struct shards_fixed *s);
uint64_t shards_fixed_size(const struct shards_fixed *s, size_t i);
double shards_fixed_ratio(const struct shards_fixed *s, size_t i);
/* The LRU miss ratio at any @size (pages of the whole). */
double shards_fixed_ratio_at(const struct shards_fixed *s, uint64_t size);

/*
 * The histogram's bin of distance @x (in the whole's pages, >= 0): x's
 * whole part below SHFX_EXACT, else its octave and the top 8 bits of its
 * mantissa (a double's bits: no log to compute).
 */
static inline size_t shards_fixed_bin(double x)
{
	uint64_t bits;
	int e;

	if (x < SHFX_EXACT)
		return (size_t)x;
	memcpy(&bits, &x, sizeof(bits));
	e = (int)(bits >> 52) - 1023;
	if (e >= 64)
		return SHFX_BINS - 1;
	return SHFX_EXACT + (size_t)(e - SHFX_EXACT_LOG) * SHFX_PER_OCTAVE +
	       ((bits >> 44) & (SHFX_PER_OCTAVE - 1));
}

/* The smallest distance of bin @b; bin b holds lo(b) .. lo(b + 1) (excluded). */
double shards_fixed_bin_lo(size_t b);

/* The bytes it holds now (not the histogram): bounded by S_max. */
size_t shards_fixed_bytes(const struct shards_fixed *s);

void shards_fixed_free(struct shards_fixed *s);

#endif
