/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slots - the time slots of an LRU stack, as reuse.c (every page) and
 * shards_fixed.c (a sample that forgets pages) count stack distances:
 * every reference takes the next slot, and a bitmap over the slots has a
 * 1 at the slot of each page's latest reference. The distance of a
 * reference is the number of 1s after its page's previous slot.
 *
 * Counting them: counters of the 1s per 64-bit word (8 bits each), per
 * 64 words (16 bits), per 64^2 words and up (32 bits), level over level,
 * up to the first level of at most 64 counters (the top). The 1s after
 * slot s are the popcount of the rest of its word, then at each level
 * the counters after s's own within its group of 64 (a sum of one to
 * four cache lines, masked, in SSE2 where there is SSE2), then the top
 * level's counters after s's. Setting or clearing a 1 adds to one
 * counter per level. A query is a handful of independent loads and
 * about 15 vector operations, with no data-dependent branch, where the
 * Fenwick tree over the words this replaced (2026-11-27) chained about
 * 15 dependent loads, and as many read-modify-writes an update. At 2 M
 * slots (32 K words) the levels are 32 K, 512 and 8 counters: 33 KiB.
 * tests/unit/test_slots.c checks every count against a plain bitmap.
 *
 * When the slots run out, the caller renumbers them:
 * slots_renumber_begin() (which may allocate the new slots, and is the
 * only step that can fail), then each page's new slot is slots_rank() of
 * its old one, then slots_renumber_end() makes slots 0 .. live - 1 the
 * 1s.
 *
 *	struct slots sl = { 0 };
 *
 *	slots_renumber_begin(&sl, slots_cap(0, min, 0), 0);
 *	slots_renumber_end(&sl, 0);
 *	slots_set(&sl, t);			// a new page at slot t
 *	d = slots_after(&sl, prev);		// a page seen at slot prev
 *	slots_move(&sl, prev, t);
 *	slots_free(&sl);
 */
#ifndef PGFT_SLOTS_H
#define PGFT_SLOTS_H

#include <stddef.h>
#include <stdint.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define SLOTS_FAN	64	/* counters a group, at every level */
/* 2^32 slots are 2^26 words: the levels 0 .. 4 (64^4 < 2^26 <= 64^5). */
#define SLOTS_LEVELS	5

struct slots {
	void *block;		/* one allocation: everything below */
	uint64_t *live;		/* the bitmap: words */
	uint8_t *c0;		/* level 0: the 1s of each word */
	uint16_t *c1;		/* level 1: of each 64 words */
	uint32_t *cn[SLOTS_LEVELS - 2];	/* level k >= 2: of each 64^k words */
	uint32_t *rank;		/* renumbering: the 1s before each word */
	size_t bytes;		/* of block */
	uint32_t cap;		/* slots */
	uint32_t top;		/* the first level of at most 64 counters */
	uint32_t ntop;		/* its counters */
	uint32_t vtop;		/* the 16-byte vectors they fill */
	/* slots_renumber_begin() .. _end(): the new slots, if they grow */
	struct slots *next;
};

/*
 * The 1s in @x, without a call into libgcc where the compiler may not
 * use the CPU's instruction (a baseline x86-64 build).
 */
static inline uint32_t slots_popcount(uint64_t x)
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

static inline uint32_t slots_words(uint32_t slots)
{
	return (uint32_t)(((uint64_t)slots + 63) / 64);
}

/*
 * The sums of the counters after @i in the first @nv 16-byte vectors of
 * a group (@g, aligned to 64 bytes; 4, 8 or 16 vectors are a group of
 * 64): the lanes whose index exceeds @i are kept.
 */
#ifdef __SSE2__
extern const int8_t slots_lane8[64];
extern const int16_t slots_lane16[64];
extern const int32_t slots_lane32[64];

static inline uint32_t slots_sum8_after(const uint8_t *g, uint32_t i, uint32_t nv)
{
	__m128i vi = _mm_set1_epi8((char)i), z = _mm_setzero_si128(), acc = z;

#pragma GCC unroll 16
	for (uint32_t q = 0; q < nv; q++) {
		__m128i m = _mm_cmpgt_epi8(_mm_load_si128((const __m128i *)slots_lane8 + q), vi);
		__m128i v = _mm_and_si128(_mm_load_si128((const __m128i *)g + q), m);

		acc = _mm_add_epi64(acc, _mm_sad_epu8(v, z));
	}
	return (uint32_t)_mm_cvtsi128_si32(acc) +
	       (uint32_t)_mm_cvtsi128_si32(_mm_srli_si128(acc, 8));
}

static inline uint32_t slots_hsum32(__m128i acc)
{
	acc = _mm_add_epi32(acc, _mm_srli_si128(acc, 8));
	acc = _mm_add_epi32(acc, _mm_srli_si128(acc, 4));
	return (uint32_t)_mm_cvtsi128_si32(acc);
}

static inline uint32_t slots_sum16_after(const uint16_t *g, uint32_t i, uint32_t nv)
{
	__m128i vi = _mm_set1_epi16((short)i), one = _mm_set1_epi16(1);
	__m128i acc = _mm_setzero_si128();

	/* the counters are at most 4,096: madd's signed products hold them */
#pragma GCC unroll 16
	for (uint32_t q = 0; q < nv; q++) {
		__m128i m = _mm_cmpgt_epi16(_mm_load_si128((const __m128i *)slots_lane16 + q), vi);
		__m128i v = _mm_and_si128(_mm_load_si128((const __m128i *)g + q), m);

		acc = _mm_add_epi32(acc, _mm_madd_epi16(v, one));
	}
	return slots_hsum32(acc);
}

static inline uint32_t slots_sum32_after(const uint32_t *g, uint32_t i, uint32_t nv)
{
	__m128i vi = _mm_set1_epi32((int)i), acc = _mm_setzero_si128();

#pragma GCC unroll 16
	for (uint32_t q = 0; q < nv; q++) {
		__m128i m = _mm_cmpgt_epi32(_mm_load_si128((const __m128i *)slots_lane32 + q), vi);

		acc = _mm_add_epi32(acc, _mm_and_si128(_mm_load_si128((const __m128i *)g + q), m));
	}
	return slots_hsum32(acc);
}
#else
static inline uint32_t slots_sum8_after(const uint8_t *g, uint32_t i, uint32_t nv)
{
	uint32_t n = 0;

	for (uint32_t j = i + 1; j < nv * 16; j++)
		n += g[j];
	return n;
}

static inline uint32_t slots_sum16_after(const uint16_t *g, uint32_t i, uint32_t nv)
{
	uint32_t n = 0;

	for (uint32_t j = i + 1; j < nv * 8; j++)
		n += g[j];
	return n;
}

static inline uint32_t slots_sum32_after(const uint32_t *g, uint32_t i, uint32_t nv)
{
	uint32_t n = 0;

	for (uint32_t j = i + 1; j < nv * 4; j++)
		n += g[j];
	return n;
}
#endif

/*
 * The 1s after slot @s (not counting its own). The top level's counters
 * are summed as a group too, over whole vectors: every loop has as many
 * rounds at every query, and the branches are predicted.
 */
static inline uint32_t slots_after(const struct slots *sl, uint32_t s)
{
	uint32_t i = s / 64, n, k;

	n = slots_popcount(sl->live[i] >> (s % 64) >> 1);
	if (!sl->top)
		return n + slots_sum8_after(sl->c0, i, sl->vtop);
	n += slots_sum8_after(sl->c0 + (i & ~63U), i % 64, 4);
	i /= 64;
	if (sl->top == 1)
		return n + slots_sum16_after(sl->c1, i, sl->vtop);
	n += slots_sum16_after(sl->c1 + (i & ~63U), i % 64, 8);
	i /= 64;
	for (k = 2; k < sl->top; k++, i /= 64)
		n += slots_sum32_after(sl->cn[k - 2] + (i & ~63U), i % 64, 16);
	return n + slots_sum32_after(sl->cn[k - 2], i, sl->vtop);
}

/*
 * Add @delta to the counters of word @i, at every level: 1 or -1 for a
 * slot, a whole word's 1s when renumbering.
 */
static inline void slots_count(struct slots *sl, uint32_t i, int delta)
{
	sl->c0[i] += delta;
	if (!sl->top)
		return;
	i /= 64;
	sl->c1[i] += delta;
	for (uint32_t k = 2; k <= sl->top; k++) {
		i /= 64;
		sl->cn[k - 2][i] += delta;
	}
}

/* Set the 1 of slot @s. */
static inline void slots_set(struct slots *sl, uint32_t s)
{
	sl->live[s / 64] |= 1ULL << (s % 64);
	slots_count(sl, s / 64, 1);
}

/* Clear the 1 of slot @s. */
static inline void slots_clear(struct slots *sl, uint32_t s)
{
	sl->live[s / 64] &= ~(1ULL << (s % 64));
	slots_count(sl, s / 64, -1);
}

/* Move a 1 from slot @from to the later @to. */
static inline void slots_move(struct slots *sl, uint32_t from, uint32_t to)
{
	slots_clear(sl, from);
	slots_set(sl, to);
}

/*
 * Start loading what slots_after() and slots_clear() of @s touch at the
 * lowest level (its word and its group of word counters), for a query a
 * few references later. Always inlined, as pgid_prefetch() (pageid.h).
 */
static inline __attribute__((always_inline)) void slots_prefetch(const struct slots *sl, uint32_t s)
{
	__builtin_prefetch(&sl->live[s / 64]);
	__builtin_prefetch(&sl->c0[s / 64]);
}

/*
 * The slots to renumber @live 1s into, from @cap (0: @min): doubled until
 * at least as many stay free, so that renumbering costs O(1) a reference,
 * amortized. 0 if that is more than a uint32_t counts.
 */
static inline uint32_t slots_cap(uint32_t cap, uint32_t min, uint32_t live)
{
	cap = cap ? cap : min;
	while ((uint64_t)cap < 2 * ((uint64_t)live + 1)) {
		if (cap > UINT32_MAX / 2)
			return 0;
		cap *= 2;
	}
	return cap;
}

/*
 * Renumbering the slots 0 .. @used - 1 into @cap slots (the first time:
 * @sl zeroed, @used 0): allocates the new slots if @cap is not the
 * current one, and counts the 1s before each word for slots_rank().
 * 0, or -1 (out of memory) with nothing changed.
 */
int slots_renumber_begin(struct slots *sl, uint32_t cap, uint32_t used);

/* The new number of the 1 at slot @s: the 1s before it. */
static inline uint32_t slots_rank(const struct slots *sl, uint32_t s)
{
	return sl->rank[s / 64] +
	       slots_popcount(sl->live[s / 64] & ((1ULL << (s % 64)) - 1));
}

/* After renumbering: slots 0 .. @n - 1 are the 1s, and counted. */
void slots_renumber_end(struct slots *sl, uint32_t n);

/* The bytes the slots take. */
static inline size_t slots_bytes(const struct slots *sl)
{
	return sl->bytes;
}

void slots_free(struct slots *sl);

#endif
