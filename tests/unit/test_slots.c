// SPDX-License-Identifier: GPL-2.0
/*
 * test_slots - tools/lib/slots.h, the time slots of an LRU stack and
 * their counters: every count of the 1s after a slot against a plain
 * bitmap counted bit by bit, at every number of levels up to 3 (a top of
 * 4 takes 2^30 slots: 176 MiB), across renumberings.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "ktap.h"
#include "lib/slots.h"
#include "naive.h"

/* The 1s after @s in a plain bitmap of @cap bits. */
static uint32_t naive_after(const uint8_t *bit, uint32_t cap, uint32_t s)
{
	uint32_t n = 0;

	for (uint32_t i = s + 1; i < cap; i++)
		n += bit[i];
	return n;
}

/*
 * @ones 1s moved about @cap slots at random (each to the newest slot,
 * as a reference does), each move's count checked, then renumbered,
 * @rounds times; @checks counts are checked against the plain bitmap
 * (every one: O(cap) each).
 */
static void run(uint32_t cap, uint32_t ones, int rounds, uint64_t seed)
{
	struct slots sl = { 0 };
	uint8_t *bit = calloc(cap, 1);
	uint32_t *at = malloc(ones * sizeof(*at)), now = 0;
	uint64_t x = seed, checked = 0;

	ASSERT_TRUE(bit && at);
	ASSERT_EQ(slots_renumber_begin(&sl, cap, 0), 0);
	slots_renumber_end(&sl, 0);
	for (uint32_t i = 0; i < ones; i++) {
		at[i] = now;
		slots_set(&sl, now);
		bit[now++] = 1;
	}
	for (int r = 0; r < rounds; r++) {
		uint32_t *rank = malloc(ones * sizeof(*rank));

		ASSERT_TRUE(rank != NULL);
		while (now < cap) {
			uint32_t i = naive_rand(&x) % ones, s = at[i];
			uint32_t want = naive_after(bit, now, s);

			ASSERT_EQ(slots_after(&sl, s), want);
			slots_move(&sl, s, now);
			bit[s] = 0;
			bit[now] = 1;
			at[i] = now++;
			checked++;
		}
		/* Renumbering: each 1's rank among the 1s, in order. */
		ASSERT_EQ(slots_renumber_begin(&sl, cap, now), 0);
		for (uint32_t i = 0; i < ones; i++) {
			uint32_t want = ones - 1 - naive_after(bit, cap, at[i]);

			rank[i] = slots_rank(&sl, at[i]);
			ASSERT_EQ(rank[i], want);
		}
		slots_renumber_end(&sl, ones);
		memset(bit, 0, cap);
		for (uint32_t i = 0; i < ones; i++) {
			at[i] = rank[i];
			bit[at[i]] = 1;
		}
		now = ones;
		free(rank);
	}
	ktap_diag("%u slots, %u ones: %u levels above the words, %llu counts",
		  cap, ones, sl.top, (unsigned long long)checked);
	slots_free(&sl);
	free(bit);
	free(at);
}

/* One group of word counters: a top of level 0. */
TEST(one_level)
{
	run(64 * 64, 100, 3, 1);
	run(130, 3, 20, 2);
}

/* Level 1 on top (65 .. 4,096 words). */
TEST(two_levels)
{
	run(200 * 64, 500, 2, 3);
	run(65 * 64, 64 * 64, 30, 4);
}

/*
 * Level 2 on top, and level 3: the counts are spot-checked, O(cap)
 * each.
 */
static void run_sparse(uint32_t cap, uint32_t ones, uint32_t moves, uint64_t seed)
{
	struct slots sl = { 0 };
	uint32_t *at = malloc(ones * sizeof(*at)), now = 0;
	uint64_t x = seed;

	ASSERT_TRUE(at != NULL);
	ASSERT_EQ(slots_renumber_begin(&sl, cap, 0), 0);
	slots_renumber_end(&sl, 0);
	/* spread the 1s over the whole range, as after many references */
	for (uint32_t i = 0; i < ones; i++) {
		now = (uint32_t)((uint64_t)i * (cap - moves) / ones);
		at[i] = now;
		slots_set(&sl, now);
	}
	now++;
	for (uint32_t m = 0; m < moves; m++) {
		uint32_t i = naive_rand(&x) % ones, s = at[i], want = 0;

		/* the 1s after s: those of the others later than it */
		for (uint32_t j = 0; j < ones; j++)
			want += at[j] > s;
		ASSERT_EQ(slots_after(&sl, s), want);
		slots_move(&sl, s, now);
		at[i] = now++;
	}
	ktap_diag("%u slots, %u ones: %u levels above the words, %u counts",
		  cap, ones, sl.top, moves);
	slots_free(&sl);
	free(at);
}

TEST(three_and_four_levels)
{
	run_sparse(1U << 22, 5000, 20000, 5);	/* 65,536 words: level 2 on top */
	run_sparse(1U << 25, 3000, 10000, 6);	/* 524,288 words: level 3 */
}

KTAP_MAIN()
