// SPDX-License-Identifier: GPL-2.0
/*
 * shards_fixed - fixed-size SHARDS: LRU miss-ratio curves from at most
 * S_max sampled pages, the rate falling as the pages come
 * (shards_fixed.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "pageid.h"
#include "shards_fixed.h"
#include "slots.h"

#define SHFX_FREE	UINT32_MAX	/* the .slot of an empty hash-table slot */
#define SHFX_MIN_MAP	1024		/* hash-table slots to start with */
#define SHFX_MIN_SLOTS	4096		/* time slots to start with */

int shards_fixed_init(struct shards_fixed *s, uint64_t max_pages, uint64_t seed,
		      const uint64_t *sizes, size_t nsizes)
{
	memset(s, 0, sizeof(*s));
	if (!max_pages || max_pages > SHFX_MAX_PAGES || (nsizes && !sizes)) {
		errno = EINVAL;
		return -1;
	}
	s->max_pages = (uint32_t)max_pages;
	s->threshold = SHARDS_MOD;
	s->scale = 1;
	s->seed = shards_key(seed);
	s->hist = calloc(SHFX_BINS, sizeof(*s->hist));
	if (!s->hist)
		return -1;
	if (sizes) {
		s->sizes = malloc((nsizes ? nsizes : 1) * sizeof(*s->sizes));
		if (!s->sizes) {
			shards_fixed_free(s);
			return -1;
		}
		memcpy(s->sizes, sizes, nsizes * sizeof(*s->sizes));
		s->nsizes = nsizes;
	}
	return 0;
}

/* @page's hash-table slot, or NULL if it is not sampled now. */
static struct shfx_page *shfx_find(const struct shards_fixed *s, uint64_t page)
{
	size_t mask = (size_t)s->map_cap - 1;

	if (!s->map_cap)
		return NULL;
	for (size_t i = pgid_hash(page, s->shift); s->map[i].slot != SHFX_FREE;
	     i = (i + 1) & mask)
		if (s->map[i].page == page)
			return &s->map[i];
	return NULL;
}

/* A slot for @page, not in the table and with room for it. */
static struct shfx_page *shfx_insert(struct shards_fixed *s, uint64_t page)
{
	size_t mask = (size_t)s->map_cap - 1, i = pgid_hash(page, s->shift);

	while (s->map[i].slot != SHFX_FREE)
		i = (i + 1) & mask;
	s->map[i].page = page;
	return &s->map[i];
}

/* Whether @k is in the cyclic range (@i, @j]. */
static inline bool shfx_within(size_t i, size_t k, size_t j)
{
	return i <= j ? i < k && k <= j : i < k || k <= j;
}

/*
 * Empty @p, moving back the pages after it in its run whose home slot
 * allows (backward-shift deletion: no tombstones, so that lookups stay
 * as short as the table's load says however many pages came and went).
 */
static void shfx_delete(struct shards_fixed *s, struct shfx_page *p)
{
	size_t mask = (size_t)s->map_cap - 1, hole = (size_t)(p - s->map);

	for (size_t j = (hole + 1) & mask; s->map[j].slot != SHFX_FREE;
	     j = (j + 1) & mask)
		if (!shfx_within(hole, pgid_hash(s->map[j].page, s->shift), j)) {
			s->map[hole] = s->map[j];
			hole = j;
		}
	s->map[hole].slot = SHFX_FREE;
}

/* Room in the hash table and the heap for one more page; on failure, -1. */
static int shfx_room(struct shards_fixed *s)
{
	uint64_t want = (uint64_t)s->pages + 1;

	if (want > s->heap_cap) {
		/* doubled, but never past S_max + 1 (the most before an eviction) */
		uint64_t n = s->heap_cap ? 2 * (uint64_t)s->heap_cap : SHFX_MIN_MAP;
		struct shfx_heap *h;

		if (n > (uint64_t)s->max_pages + 1)
			n = (uint64_t)s->max_pages + 1;
		h = realloc(s->heap, n * sizeof(*h));
		if (!h)
			return -1;
		s->heap = h;
		s->heap_cap = (uint32_t)n;
	}
	if (4 * want > 3 * (uint64_t)s->map_cap) {
		/* at most 3/4 full: linear probing's runs stay short */
		struct shards_fixed t = *s;
		uint32_t cap = s->map_cap ? 2 * s->map_cap : SHFX_MIN_MAP;

		t.map = malloc((size_t)cap * sizeof(*t.map));
		if (!t.map)
			return -1;
		memset(t.map, 0xff, (size_t)cap * sizeof(*t.map));
		t.map_cap = cap;
		t.shift = 64 - __builtin_ctz(cap);
		for (size_t i = 0; i < s->map_cap; i++)
			if (s->map[i].slot != SHFX_FREE)
				*shfx_insert(&t, s->map[i].page) = s->map[i];
		free(s->map);
		s->map = t.map;
		s->map_cap = t.map_cap;
		s->shift = t.shift;
	}
	return 0;
}

/* Add @page of @hash to the max-heap of @n entries. */
static void shfx_push(struct shards_fixed *s, uint32_t n, uint64_t page,
		      uint32_t hash)
{
	uint32_t i = n;

	for (; i && s->heap[(i - 1) / 2].hash < hash; i = (i - 1) / 2)
		s->heap[i] = s->heap[(i - 1) / 2];
	s->heap[i] = (struct shfx_heap){ page, hash };
}

/* Take the top off the max-heap of @n (> 0) entries. */
static void shfx_pop(struct shards_fixed *s, uint32_t n)
{
	struct shfx_heap last = s->heap[--n];
	uint32_t i = 0;

	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && s->heap[c + 1].hash > s->heap[c].hash)
			c++;
		if (s->heap[c].hash <= last.hash)
			break;
		s->heap[i] = s->heap[c];
		i = c;
	}
	s->heap[i] = last;
}

/*
 * One page too many: the page(s) of the largest hash go, and the
 * threshold falls to it, so that no page of that hash is sampled again
 * (a page evicted would come back with no history: a false cold miss).
 */
static void shfx_evict(struct shards_fixed *s)
{
	uint32_t top = s->heap[0].hash;

	s->threshold = top;
	s->scale = top ? (double)SHARDS_MOD / top : 0;
	while (s->pages && s->heap[0].hash >= top) {
		struct shfx_page *p = shfx_find(s, s->heap[0].page);

		slots_clear(&s->sl, p->slot);
		shfx_delete(s, p);
		shfx_pop(s, s->pages--);
		s->evicted++;
	}
}

/*
 * Renumber the time slots of the sampled pages (slots.h); the slots
 * grow only while fewer than half would be free, so that there are at
 * most 4 x (S_max + 1) of them. On failure nothing has changed.
 */
static int shfx_compact(struct shards_fixed *s)
{
	uint32_t cap = slots_cap(s->sl.cap, SHFX_MIN_SLOTS, s->pages);
	bool first = !s->sl.cap;

	if (!cap || slots_renumber_begin(&s->sl, cap, s->now))
		return -1;
	for (size_t i = 0; i < s->map_cap; i++)
		if (s->map[i].slot != SHFX_FREE)
			s->map[i].slot = slots_rank(&s->sl, s->map[i].slot);
	slots_renumber_end(&s->sl, s->pages);
	if (!first)
		s->compactions++;
	s->now = s->pages;
	return 0;
}

void shards_fixed_sampled(struct shards_fixed *s, uint64_t page, uint32_t hash)
{
	struct shfx_page *p;
	uint32_t t;

	if (s->failed)
		return;
	/* Whatever can fail comes first, so that a failure changes nothing. */
	if (s->now == s->sl.cap && shfx_compact(s))
		goto fail;
	p = shfx_find(s, page);
	if (!p && shfx_room(s))
		goto fail;
	s->sampled++;
	t = s->now++;
	if (p) {
		/* the sampled pages referenced since, each 1 / rate of the whole */
		uint64_t d = slots_after(&s->sl, p->slot);

		slots_move(&s->sl, p->slot, t);
		p->slot = t;
		s->hist[shards_fixed_bin((double)d * s->scale)] += s->scale;
		return;
	}
	shfx_insert(s, page)->slot = t;
	slots_set(&s->sl, t);
	shfx_push(s, s->pages++, page, hash);
	s->cold += s->scale;
	if (s->pages > s->max_pages)
		shfx_evict(s);
	return;
fail:
	/* a lost reference would bias the curve: the end reports it */
	s->failed = true;
}

uint64_t shards_fixed_footprint(const struct shards_fixed *s)
{
	return s->threshold ? (uint64_t)llround(s->pages * s->scale) : 0;
}

int shards_fixed_end(struct shards_fixed *s)
{
	uint64_t foot = shards_fixed_footprint(s);

	if (s->failed) {
		errno = ENOMEM;
		return -1;
	}
	if (!s->sizes) {
		/* 1, 2, 4, ... below the footprint, then the footprint */
		s->sizes = malloc(66 * sizeof(*s->sizes));
		if (!s->sizes)
			return -1;
		for (uint64_t v = 1; v < foot; v *= 2)
			s->sizes[s->nsizes++] = v;
		if (foot)
			s->sizes[s->nsizes++] = foot;
	}
	return 0;
}

size_t shards_fixed_nr(const struct shards_fixed *s)
{
	return s->nsizes;
}

uint64_t shards_fixed_size(const struct shards_fixed *s, size_t i)
{
	return s->sizes[i];
}

double shards_fixed_bin_lo(size_t b)
{
	if (b < SHFX_EXACT)
		return (double)b;
	b -= SHFX_EXACT;
	return ldexp(1 + (double)(b % SHFX_PER_OCTAVE) / SHFX_PER_OCTAVE,
		     SHFX_EXACT_LOG + (int)(b / SHFX_PER_OCTAVE));
}

double shards_fixed_ratio_at(const struct shards_fixed *s, uint64_t size)
{
	double x = (double)size, miss = s->cold, lo, hi, r;
	size_t b = shards_fixed_bin(x);

	if (!s->refs)
		return 0;
	/*
	 * Distances >= size miss. Of size's bin, the part from size up, as
	 * if its weight were spread evenly: all of it below SHFX_EXACT,
	 * where size is the bin's one distance.
	 */
	lo = shards_fixed_bin_lo(b);
	hi = shards_fixed_bin_lo(b + 1);
	miss += s->hist[b] * (hi - x) / (hi - lo);
	for (size_t k = b + 1; k < SHFX_BINS; k++)
		miss += s->hist[k];
	/* SHARDS-adj: each weight is the references it stands for */
	r = miss / (double)s->refs;
	return r > 1 ? 1 : r;
}

double shards_fixed_ratio(const struct shards_fixed *s, size_t i)
{
	return shards_fixed_ratio_at(s, s->sizes[i]);
}

size_t shards_fixed_bytes(const struct shards_fixed *s)
{
	return (size_t)s->map_cap * sizeof(*s->map) +
	       (size_t)s->heap_cap * sizeof(*s->heap) + slots_bytes(&s->sl);
}

void shards_fixed_free(struct shards_fixed *s)
{
	free(s->map);
	free(s->heap);
	slots_free(&s->sl);
	free(s->hist);
	free(s->sizes);
	memset(s, 0, sizeof(*s));
}
