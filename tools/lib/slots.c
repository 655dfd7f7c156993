// SPDX-License-Identifier: GPL-2.0
/*
 * slots - the time slots of an LRU stack and their counters: allocation
 * and renumbering. See slots.h.
 */
#include <stdlib.h>
#include <string.h>
#include "slots.h"

#ifdef __SSE2__
#define LANES(x) \
	x(0), x(1), x(2), x(3), x(4), x(5), x(6), x(7), x(8), x(9), x(10), \
	x(11), x(12), x(13), x(14), x(15), x(16), x(17), x(18), x(19), x(20), \
	x(21), x(22), x(23), x(24), x(25), x(26), x(27), x(28), x(29), x(30), \
	x(31), x(32), x(33), x(34), x(35), x(36), x(37), x(38), x(39), x(40), \
	x(41), x(42), x(43), x(44), x(45), x(46), x(47), x(48), x(49), x(50), \
	x(51), x(52), x(53), x(54), x(55), x(56), x(57), x(58), x(59), x(60), \
	x(61), x(62), x(63)
#define SAME(n) (n)

/* Lane j holds j: the lanes after i are those greater than i. */
const int8_t slots_lane8[64] __attribute__((aligned(64))) = { LANES(SAME) };
const int16_t slots_lane16[64] __attribute__((aligned(64))) = { LANES(SAME) };
const int32_t slots_lane32[64] __attribute__((aligned(64))) = { LANES(SAME) };
#endif

/* The counters of level @k over @words words, whole groups of 64. */
static size_t level_len(uint32_t words, uint32_t k)
{
	uint64_t n = words;

	for (uint32_t j = 0; j < k; j++)
		n = (n + SLOTS_FAN - 1) / SLOTS_FAN;
	return (size_t)((n + SLOTS_FAN - 1) / SLOTS_FAN * SLOTS_FAN);
}

static size_t round64(size_t n)
{
	return (n + 63) & ~(size_t)63;
}

/* Lay out @cap slots in one new block, zeroed. */
static int slots_alloc(struct slots *sl, uint32_t cap)
{
	uint32_t words = slots_words(cap), top = 0;
	size_t off[SLOTS_LEVELS + 2], size = 0;
	uint64_t n = words;
	char *b;

	memset(sl, 0, sizeof(*sl));
	while (n > SLOTS_FAN) {
		n = (n + SLOTS_FAN - 1) / SLOTS_FAN;
		top++;
	}
	/* live, the levels 0 .. top, rank */
	off[0] = 0;
	size = round64((size_t)words * sizeof(uint64_t));
	for (uint32_t k = 0; k <= top; k++) {
		size_t unit = k == 0 ? 1 : k == 1 ? 2 : 4;

		off[k + 1] = size;
		size += round64(level_len(words, k) * unit);
	}
	off[top + 2] = size;
	size += round64((size_t)words * sizeof(uint32_t));
	b = aligned_alloc(64, size);
	if (!b)
		return -1;
	memset(b, 0, size);
	sl->block = b;
	sl->bytes = size;
	sl->live = (uint64_t *)(void *)b;
	sl->c0 = (uint8_t *)(b + off[1]);
	if (top >= 1)
		sl->c1 = (uint16_t *)(void *)(b + off[2]);
	for (uint32_t k = 2; k <= top; k++)
		sl->cn[k - 2] = (uint32_t *)(void *)(b + off[k + 1]);
	sl->rank = (uint32_t *)(void *)(b + off[top + 2]);
	sl->cap = cap;
	sl->top = top;
	sl->ntop = (uint32_t)n;
	sl->vtop = (uint32_t)((n * (top == 0 ? 1 : top == 1 ? 2 : 4) + 15) / 16);
	return 0;
}

int slots_renumber_begin(struct slots *sl, uint32_t cap, uint32_t used)
{
	uint32_t sum = 0;

	if (cap != sl->cap) {
		struct slots *next = malloc(sizeof(*next));

		if (!next)
			return -1;
		if (slots_alloc(next, cap)) {
			free(next);
			return -1;
		}
		sl->next = next;
	}
	for (uint32_t w = 0; w < slots_words(used); w++) {
		sl->rank[w] = sum;
		sum += slots_popcount(sl->live[w]);
	}
	return 0;
}

void slots_renumber_end(struct slots *sl, uint32_t n)
{
	uint32_t i;

	if (sl->next) {
		struct slots *next = sl->next;

		free(sl->block);
		*sl = *next;
		free(next);
	} else {
		memset(sl->block, 0, sl->bytes);
	}
	for (i = 0; i < n / 64; i++)
		sl->live[i] = ~0ULL;
	if (n % 64)
		sl->live[n / 64] = (1ULL << (n % 64)) - 1;
	/* each word's 1s, counted at every level: O(words) */
	for (i = 0; i < slots_words(n); i++)
		slots_count(sl, i, (int)slots_popcount(sl->live[i]));
}

void slots_free(struct slots *sl)
{
	if (sl->next) {
		free(sl->next->block);
		free(sl->next);
	}
	free(sl->block);
	memset(sl, 0, sizeof(*sl));
}
