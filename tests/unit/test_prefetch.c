// SPDX-License-Identifier: GPL-2.0
/*
 * test_prefetch - tools/lib/prefetch.c: next-page shares and same-stride
 * runs on a hand-worked string, and the next-N prefetch model against a
 * brute-force replay (a present bit per page, N pages set on each
 * trigger) for every N = 1 .. 64 and both triggers, on random strings.
 */
#include <stdbool.h>
#include <stdint.h>
#include "ktap.h"
#include "lib/prefetch.h"
#include "naive.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Sum of avoided_every[1 .. n]: the faults next-n avoids, every trigger. */
static uint64_t every(const struct prefetch *pf, unsigned int n)
{
	uint64_t s = 0;

	for (unsigned int d = 1; d <= n; d++)
		s += pf->avoided_every[d];
	return s;
}

/*
 * Pages 10 11 12 13 20 22 24 5 6, one region [0, 100):
 *   strides       1  1  1  7  2  2 -19  1
 *   runs: 1 1 1 (3) | 7 (1) | 2 2 (2) | -19 (1) | 1 (1)
 *   next-page: 11 12 13 6: 4 of 9
 * Prefetch next-1, demand trigger: 10 real, brings 11: 11 avoided (no
 * trigger), 12 real, brings 13: avoided; 20, 22, 24, 5 real, 6 avoided:
 * 3. Every trigger: 11 brings 12, 12 brings 13: 10 real, 11 12 13
 * avoided, 20 22 24 5 real, 6 avoided: 4. Next-2, every trigger: 22
 * (from 20) and 24 (from 22) too: 6.
 */
TEST(hand_worked_string)
{
	static const uint64_t pages[] = { 10, 11, 12, 13, 20, 22, 24, 5, 6 };
	struct prefetch pf;

	prefetch_init(&pf);
	for (size_t i = 0; i < N(pages); i++)
		ASSERT_EQ(prefetch_ref(&pf, pages[i], 1, 100), 0);
	prefetch_end(&pf);
	EXPECT_EQ(pf.refs, 9);
	EXPECT_EQ(pf.next_page, 4);
	EXPECT_EQ(pf.reg[1].faults, 9);
	EXPECT_EQ(pf.reg[1].next_page, 4);
	EXPECT_EQ(pf.runs[1], 3);		/* length 1 */
	EXPECT_EQ(pf.runs[2], 2);		/* 2-3: the 3 and the 2 */
	EXPECT_EQ(pf.run_strides[2], 5);
	EXPECT_EQ(pf.avoided_demand[0], 3);	/* N = 1 */
	EXPECT_EQ(every(&pf, 1), 4);
	EXPECT_EQ(every(&pf, 2), 6);
	/* A region's end stops the prefetch: 11 is past [0, 11). */
	prefetch_free(&pf);
	prefetch_init(&pf);
	ASSERT_EQ(prefetch_ref(&pf, 10, 1, 11), 0);
	ASSERT_EQ(prefetch_ref(&pf, 11, 2, 20), 0);
	EXPECT_EQ(every(&pf, 64), 0);
	EXPECT_EQ(pf.reg[2].next_page, 0);	/* another region's */
	EXPECT_EQ(pf.next_page, 1);
	prefetch_free(&pf);
}

/* The end of the region that holds page @p: regions of 1 to 40 pages. */
static uint64_t region_end(uint64_t p, uint64_t *tag)
{
	static const uint64_t ends[] = { 3, 40, 41, 60, 100, 140, 150, 220, 260, 300 };

	for (size_t i = 0; i < N(ends); i++)
		if (p < ends[i]) {
			*tag = i + 1;
			return ends[i];
		}
	*tag = 0;
	return p + 1;
}

static uint64_t brute(const uint64_t *pages, size_t n, unsigned int pn, bool all)
{
	static bool present[400];
	uint64_t avoided = 0, tag;

	memset(present, 0, sizeof(present));
	for (size_t t = 0; t < n; t++) {
		uint64_t p = pages[t], e = region_end(p, &tag);
		bool hit = present[p];

		avoided += hit;
		present[p] = false;
		if (hit && !all)
			continue;
		for (uint64_t k = 1; k <= pn && p + k < e; k++)
			present[p + k] = true;
	}
	return avoided;
}

TEST(random_strings_match_a_replay)
{
	static uint64_t pages[1500];
	uint64_t x = 0x1234567887654321ULL;

	for (int round = 0; round < 150; round++) {
		size_t n = naive_rand(&x) % N(pages);
		uint64_t p = naive_rand(&x) % 300, next_page = 0, runs[PF_BINS] = { 0 };
		uint64_t run = 0, tag;
		int64_t stride = 0;
		struct prefetch pf;

		/* Sequential stretches, strided ones, jumps and repeats. */
		for (size_t t = 0; t < n; t++) {
			uint64_t r = naive_rand(&x) % 10;

			p = r < 5 ? p + 1 : r < 7 ? p + 1 + naive_rand(&x) % 4 :
			    r < 8 ? p : naive_rand(&x) % 300;
			pages[t] = p % 300;
			p = pages[t];
		}
		prefetch_init(&pf);
		for (size_t t = 0; t < n; t++) {
			uint64_t e = region_end(pages[t], &tag);

			ASSERT_EQ(prefetch_ref(&pf, pages[t], tag, e), 0);
		}
		prefetch_end(&pf);
		for (unsigned int pn = 1; pn <= PF_MAX; pn++)
			ASSERT_EQ(every(&pf, pn), brute(pages, n, pn, true));
		for (unsigned int k = 0; k < PF_GRID; k++)
			ASSERT_EQ(pf.avoided_demand[k],
				  brute(pages, n, prefetch_grid[k], false));
		/* Next-page and runs, counted plainly. */
		for (size_t t = 1; t < n; t++) {
			int64_t s = (int64_t)(pages[t] - pages[t - 1]);

			next_page += pages[t] == pages[t - 1] + 1;
			if (run && s != stride) {
				runs[64 - __builtin_clzll(run)]++;
				run = 0;
			}
			stride = s;
			run++;
		}
		if (run)
			runs[64 - __builtin_clzll(run)]++;
		EXPECT_EQ(pf.next_page, next_page);
		for (int b = 0; b < PF_BINS; b++)
			ASSERT_EQ(pf.runs[b], runs[b]);
		prefetch_free(&pf);
	}
}

/* Memory follows the distinct pages: a million faults on 2,000 pages. */
TEST(memory_is_bounded_by_the_pages)
{
	struct prefetch pf;
	uint64_t x = 7;

	prefetch_init(&pf);
	for (int t = 0; t < 1000000; t++)
		ASSERT_EQ(prefetch_ref(&pf, naive_rand(&x) % 2000, 0, 1 << 20), 0);
	EXPECT_EQ(pf.ids.nr, 2000);
	EXPECT_LE(pf.cap, 2048);
	prefetch_free(&pf);
}

KTAP_MAIN()
