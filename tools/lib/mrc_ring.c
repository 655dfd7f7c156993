// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_ring - FIFO and CLOCK (second chance) at many sizes in one pass.
 *
 * Each size is a ring of page ids in the order they were loaded, the
 * oldest at the hand. Which pages a size holds is one bit per page and
 * size (m->mask), so one load tells at which sizes a reference hits, and
 * only the sizes it misses at do any work: FIFO evicts the page at the
 * hand and loads the new one in its place; CLOCK first moves the hand
 * past the pages whose reference bit is set, clearing it (each hit sets
 * at most one bit, so the sweeps are O(1) per reference, amortized).
 *
 * A size of C pages does nothing until the footprint first goes past C:
 * until then it held every page, loaded in the order of their first
 * references, which are the ids (pageid.h) 0 .. C - 1, with CLOCK's
 * reference bit set on those referenced again since (m->again). So it is
 * set up then, in O(C), and the default sizes can grow with the
 * footprint, in a single pass.
 *
 * The smallest sizes (mrc_impl.h) have no bits in m->mask: their rings
 * share 32 slots, and a reference is compared with all of them at once.
 * At those sizes nearly every reference misses, and a miss there costs
 * neither the loop over the missed sizes nor a write to the evicted
 * page's bits; on the generated random trace that is 5 of 20 sizes and
 * about a third of the misses.
 */
#include <errno.h>
#include <stdlib.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include "mrc_impl.h"

static inline bool again(const struct mrc *m, uint32_t id)
{
	return m->policy == MRC_CLOCK && (m->again[id / 64] >> (id % 64) & 1);
}

/* Size @i starts: it holds pages 0 .. size - 1, the hand at page 0. */
static int ring_spawn(struct mrc *m, size_t i)
{
	struct mrc_ring *r = &m->ring[i];
	uint32_t c = (uint32_t)m->size[i];
	uint32_t b = 1U << (i % 32);
	size_t k = i / 32;

	if (i == m->nsmall && c <= MRC_SMALL - m->small_used) {
		/* A small one (all those before it are). */
		uint32_t at = m->small_used;

		for (uint32_t id = 0; id < c; id++) {
			m->small[at + id] = id;
			if (again(m, id))
				m->small_ref |= 1U << (at + id);
		}
		m->small_at[i] = (uint8_t)at;
		m->small_used += c;
		m->nsmall++;
		goto spawned;
	}
	r->slot = malloc((size_t)c * sizeof(*r->slot));
	if (!r->slot)
		return -1;
	for (uint32_t id = 0; id < c; id++) {
		uint32_t *w = &m->mask[(size_t)id * m->stride];

		r->slot[id] = id;
		w[k] |= b;
		if (again(m, id))
			w[m->words + k] |= b;
	}
spawned:
	r->size = c;
	r->hand = 0;
	m->misses[i] = c;	/* its cold misses so far */
	m->spawned = i + 1;
	return 0;
}

/* Bits 0 .. n - 1 of a word (n up to 32). */
static inline uint32_t low_bits(size_t n)
{
	return n >= 32 ? ~0U : (1U << n) - 1;
}

/* The bits of word @k that stand for simulated sizes, small ones not. */
static inline uint32_t live_bits(const struct mrc *m, size_t k)
{
	size_t lo = k * 32;
	uint32_t live;

	if (m->spawned <= lo)
		return 0;
	live = low_bits(m->spawned - lo);
	return k ? live : live & ~low_bits(m->nsmall);
}

/* Bit j set where small[j] is @id: the slots compared all at once. */
static inline uint32_t small_find(const uint32_t *small, uint32_t id)
{
	uint32_t hit = 0;
#ifdef __SSE2__
	__m128i v = _mm_set1_epi32((int)id);

	for (int j = 0; j < MRC_SMALL; j += 4) {
		__m128i e = _mm_loadu_si128((const __m128i *)(small + j));

		hit |= (uint32_t)_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(e, v))) << j;
	}
#else
	for (int j = 0; j < MRC_SMALL; j++)
		hit |= (uint32_t)(small[j] == id) << j;
#endif
	return hit;
}

/* A reference to @id at the small sizes. */
static void small_ref(struct mrc *m, uint32_t id)
{
	uint32_t hit = small_find(m->small, id);

	for (size_t i = 0; i < m->nsmall; i++) {
		struct mrc_ring *r = &m->ring[i];
		uint32_t at = m->small_at[i];

		if (hit & low_bits(r->size) << at) {
			/* CLOCK: the slot's reference bit (FIFO has no use for it) */
			m->small_ref |= hit & low_bits(r->size) << at;
			continue;
		}
		m->misses[i]++;
		if (m->policy == MRC_CLOCK) {
			while (m->small_ref >> (at + r->hand) & 1) {
				m->small_ref &= ~(1U << (at + r->hand));
				if (++r->hand == r->size)
					r->hand = 0;
			}
		}
		/* the new page's reference bit stays clear, as the evicted one's */
		m->small[at + r->hand] = id;
		if (++r->hand == r->size)
			r->hand = 0;
	}
}

/*
 * The page at the hand is the next one a miss looks at: start loading
 * its bits now, so that they are in the CPU's cache by then (they are
 * anywhere in a large array; the ring itself is read in order).
 */
static inline __attribute__((always_inline)) void prefetch_hand(const struct mrc *m, const struct mrc_ring *r)
{
	__builtin_prefetch(&m->mask[(size_t)r->slot[r->hand] * m->stride], 1);
}

static inline void fifo_miss(struct mrc *m, struct mrc_ring *r, uint32_t *w,
			     size_t k, uint32_t b, uint32_t id)
{
	uint32_t v = r->slot[r->hand];

	m->mask[(size_t)v * m->stride + k] &= ~b;
	r->slot[r->hand] = id;
	if (++r->hand == r->size)
		r->hand = 0;
	w[k] |= b;
	prefetch_hand(m, r);
}

static inline void clock_miss(struct mrc *m, struct mrc_ring *r, uint32_t *w,
			      size_t k, uint32_t b, uint32_t id)
{
	size_t ref = m->words + k;
	uint32_t v;

	for (;;) {
		uint32_t *vw;

		v = r->slot[r->hand];
		vw = &m->mask[(size_t)v * m->stride];
		if (!(vw[ref] & b)) {
			vw[k] &= ~b;
			break;
		}
		vw[ref] &= ~b;		/* a second chance */
		if (++r->hand == r->size)
			r->hand = 0;
		prefetch_hand(m, r);
	}
	/* The new page's reference bit stays clear: it was evicted clear. */
	r->slot[r->hand] = id;
	if (++r->hand == r->size)
		r->hand = 0;
	w[k] |= b;
	prefetch_hand(m, r);
}

int mrc_ring_ref(struct mrc *m, uint32_t id, bool fresh)
{
	uint32_t *w;

	if (fresh) {
		/* The footprint goes past id: the sizes equal to it start. */
		while (m->spawned < m->nr && m->size[m->spawned] == id)
			if (ring_spawn(m, m->spawned)) {
				errno = ENOMEM;
				return -1;
			}
		if (m->grid && m->size[m->nr - 1] <= id && m->nr < m->cap) {
			m->size[m->nr] = 2 * m->size[m->nr - 1];
			m->nr++;
		}
	} else if (m->policy == MRC_CLOCK) {
		m->again[id / 64] |= 1ULL << (id % 64);
	}
	if (m->nsmall)
		small_ref(m, id);
	w = &m->mask[(size_t)id * m->stride];
	for (size_t k = 0; k < m->words && k * 32 < m->spawned; k++) {
		uint32_t live = live_bits(m, k), miss;

		miss = live & ~w[k];
		if (m->policy == MRC_CLOCK) {
			w[m->words + k] |= live & w[k];
			while (miss) {
				size_t i = k * 32 + __builtin_ctz(miss);

				miss &= miss - 1;
				m->misses[i]++;
				clock_miss(m, &m->ring[i], w, k, 1U << (i % 32), id);
			}
		} else {
			while (miss) {
				size_t i = k * 32 + __builtin_ctz(miss);

				miss &= miss - 1;
				m->misses[i]++;
				fifo_miss(m, &m->ring[i], w, k, 1U << (i % 32), id);
			}
		}
	}
	return 0;
}

void mrc_ring_free(struct mrc *m)
{
	if (!m->ring)
		return;
	for (size_t i = 0; i < m->cap; i++)
		free(m->ring[i].slot);
	free(m->ring);
	m->ring = NULL;
}
