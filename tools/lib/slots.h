/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slots - the time slots of an LRU stack, as reuse.c (every page) and
 * shards_fixed.c (a sample that forgets pages) count stack distances:
 * every reference takes the next slot, and a bitmap over the slots has a
 * 1 at the slot of each page's latest reference. A Fenwick tree over the
 * bitmap's 64-bit words counts the 1s before a word, a popcount those in
 * it, so the 1s after a slot (the distinct pages referenced since) cost
 * O(log(slots / 64)). When the slots run out, the caller renumbers them:
 * slots_rank_begin(), then each page's new slot is slots_rank() of its
 * old one, then slots_fill() makes slots 0 .. live - 1 the 1s.
 *
 * The caller owns the arrays: live[words], fw[words + 1] (fw[1 .. words]
 * the tree, Fenwick indices being word + 1).
 */
#ifndef PGFT_SLOTS_H
#define PGFT_SLOTS_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

/* The 1s in words 0 .. w - 1 (Fenwick indices 1 .. w). */
static inline uint32_t slots_fw_prefix(const uint32_t *fw, uint32_t w)
{
	uint32_t n = 0;

	for (; w; w &= w - 1)
		n += fw[w];
	return n;
}

/* Add @delta (1 or -1) to the count of word @w. */
static inline void slots_fw_add(uint32_t *fw, uint32_t words, uint32_t w,
				uint32_t delta)
{
	for (w++; w <= words; w += w & -w)
		fw[w] += delta;
}

/* The 1s at slots 0 .. @s, @s's own included. */
static inline uint32_t slots_upto(const uint64_t *live, const uint32_t *fw,
				  uint32_t s)
{
	return slots_fw_prefix(fw, s / 64) +
	       slots_popcount(live[s / 64] & (~0ULL >> (63 - s % 64)));
}

/* Set the 1 of slot @s, counted in the tree. */
static inline void slots_set(uint64_t *live, uint32_t *fw, uint32_t words,
			     uint32_t s)
{
	live[s / 64] |= 1ULL << (s % 64);
	slots_fw_add(fw, words, s / 64, 1);
}

/* Clear the 1 of slot @s. */
static inline void slots_clear(uint64_t *live, uint32_t *fw, uint32_t words,
			       uint32_t s)
{
	live[s / 64] &= ~(1ULL << (s % 64));
	slots_fw_add(fw, words, s / 64, -1);
}

/* Move a 1 from slot @from to the later @to: the tree only if the word changes. */
static inline void slots_move(uint64_t *live, uint32_t *fw, uint32_t words,
			      uint32_t from, uint32_t to)
{
	live[to / 64] |= 1ULL << (to % 64);
	if (to / 64 != from / 64) {
		slots_fw_add(fw, words, from / 64, -1);
		slots_fw_add(fw, words, to / 64, 1);
	}
	live[from / 64] &= ~(1ULL << (from % 64));
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

/* Make @live and @fw hold @words words; on failure, -1 and both still valid. */
static inline int slots_resize(uint64_t **live, uint32_t **fw, uint32_t words)
{
	uint64_t *bits = realloc(*live, (size_t)words * sizeof(*bits));
	uint32_t *tree;

	if (!bits)
		return -1;
	*live = bits;
	tree = realloc(*fw, ((size_t)words + 1) * sizeof(*tree));
	if (!tree)
		return -1;
	*fw = tree;
	return 0;
}

/*
 * Before renumbering the slots 0 .. @used - 1: fw[w] becomes the 1s
 * before word w, for slots_rank() (the tree is gone until slots_fill()).
 */
static inline void slots_rank_begin(const uint64_t *live, uint32_t *fw,
				    uint32_t used)
{
	uint32_t sum = 0;

	for (uint32_t w = 0; w < slots_words(used); w++) {
		fw[w] = sum;
		sum += slots_popcount(live[w]);
	}
}

/* The new number of the 1 at slot @s: the 1s before it. */
static inline uint32_t slots_rank(const uint64_t *live, const uint32_t *fw,
				  uint32_t s)
{
	return fw[s / 64] + slots_popcount(live[s / 64] & ((1ULL << (s % 64)) - 1));
}

/* After renumbering: slots 0 .. @n - 1 are the 1s, and the tree counts them. */
static inline void slots_fill(uint64_t *live, uint32_t *fw, uint32_t words,
			      uint32_t n)
{
	memset(live, 0, (size_t)words * sizeof(*live));
	memset(fw, 0, ((size_t)words + 1) * sizeof(*fw));
	for (uint32_t w = 0; w < n / 64; w++)
		live[w] = ~0ULL;
	if (n % 64)
		live[n / 64] = (1ULL << (n % 64)) - 1;
	/* each node's count, added to its parent's: O(words) */
	for (uint32_t w = 1; w <= words; w++) {
		uint32_t up = w + (w & -w);

		fw[w] += slots_popcount(live[w - 1]);
		if (up <= words)
			fw[up] += fw[w];
	}
}

#endif
