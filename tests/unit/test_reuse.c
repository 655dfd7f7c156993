// SPDX-License-Identifier: GPL-2.0
/*
 * test_reuse - tools/lib/reuse.c: LRU stack distances on textbook
 * strings, the log2 histogram, the renumbering of time slots, and a
 * naive LRU stack on many random strings.
 */
#include <stdint.h>
#include "ktap.h"
#include "lib/reuse.h"
#include "naive.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/*
 * a b c b a d a c: the stack (most recent first) after each reference,
 * and each reference's distance (its depth in the stack before it):
 *
 *   a  [a]          cold
 *   b  [b a]        cold
 *   c  [c b a]      cold
 *   b  [b c a]      1   (c since the last b)
 *   a  [a b c]      2   (c, b)
 *   d  [d a b c]    cold
 *   a  [a d b c]    1   (d)
 *   c  [c a d b]    3   (b, a, d: a twice, counted once)
 */
TEST(textbook_distances)
{
	static const uint64_t refs[] = { 'a', 'b', 'c', 'b', 'a', 'd', 'a', 'c' };
	static const int64_t want[] = { REUSE_COLD, REUSE_COLD, REUSE_COLD, 1, 2,
					REUSE_COLD, 1, 3 };
	struct reuse r;

	reuse_init(&r, 0);
	for (size_t t = 0; t < N(refs); t++)
		EXPECT_EQ(reuse_ref(&r, refs[t]), want[t]);
	EXPECT_EQ(r.refs, 8);
	EXPECT_EQ(r.cold, 4);
	EXPECT_EQ(reuse_pages(&r), 4);
	/* LRU of C pages: the 4 cold misses and the distances >= C. */
	EXPECT_EQ(reuse_lru_misses(&r, 1), 8);
	EXPECT_EQ(reuse_lru_misses(&r, 2), 6);	/* hits: the two at 1 */
	EXPECT_EQ(reuse_lru_misses(&r, 3), 5);	/* and the one at 2 */
	EXPECT_EQ(reuse_lru_misses(&r, 4), 4);	/* and the one at 3: cold only */
	EXPECT_EQ(reuse_lru_misses(&r, 1000), 4);
	reuse_free(&r);
}

/* A page referenced twice in a row is at distance 0: a hit in one page. */
TEST(repeat_is_distance_zero)
{
	struct reuse r;

	reuse_init(&r, 0);
	EXPECT_EQ(reuse_ref(&r, 5), REUSE_COLD);
	EXPECT_EQ(reuse_ref(&r, 5), 0);
	EXPECT_EQ(reuse_ref(&r, 5), 0);
	EXPECT_EQ(reuse_lru_misses(&r, 1), 1);
	EXPECT_EQ(r.bins[0], 2);
	reuse_free(&r);
}

/*
 * A cyclic loop over k pages: every reference after the first k is at
 * distance k - 1. Log2 bins: 0 | 1 | 2-3 | 4-7 | 8-15 ...
 */
TEST(loop_distances_and_log2_bins)
{
	struct reuse r;

	EXPECT_EQ(reuse_bin(0), 0);
	EXPECT_EQ(reuse_bin(1), 1);
	EXPECT_EQ(reuse_bin(2), 2);
	EXPECT_EQ(reuse_bin(3), 2);
	EXPECT_EQ(reuse_bin(4), 3);
	EXPECT_EQ(reuse_bin(7), 3);
	EXPECT_EQ(reuse_bin(8), 4);
	EXPECT_EQ(reuse_bin(UINT64_MAX), 64);
	EXPECT_EQ(reuse_bin_lo(0), 0);
	EXPECT_EQ(reuse_bin_hi(0), 0);
	EXPECT_EQ(reuse_bin_lo(3), 4);
	EXPECT_EQ(reuse_bin_hi(3), 7);
	EXPECT_TRUE(reuse_bin_hi(64) == UINT64_MAX);
	reuse_init(&r, 0);
	for (int t = 0; t < 100; t++) {
		int64_t d = reuse_ref(&r, t % 10);

		EXPECT_EQ(d, t < 10 ? REUSE_COLD : 9);
	}
	EXPECT_EQ(r.cold, 10);
	EXPECT_EQ(r.bins[4], 90);	/* 9 is in 8-15 */
	for (unsigned int k = 0; k < REUSE_BINS; k++)
		if (k != 4)
			EXPECT_EQ(r.bins[k], 0);
	EXPECT_EQ(r.hist[9], 90);
	EXPECT_EQ(r.max_dist, 9);
	/* LRU on a loop bigger than the cache: every reference misses. */
	EXPECT_EQ(reuse_lru_misses(&r, 9), 100);
	EXPECT_EQ(reuse_lru_misses(&r, 10), 10);
	reuse_free(&r);
}

/*
 * Renumbering: with 4 slots to start with, the slots run out every few
 * references and are renumbered; the distances stay exact (checked
 * against the naive stack), and the tree grows only with the pages.
 */
TEST(renumbering_keeps_distances_exact)
{
	uint64_t x = 99, refs[5000];
	int64_t want[N(refs)];
	struct reuse r;

	for (size_t t = 0; t < N(refs); t++)
		refs[t] = naive_rand(&x) % (t < 2500 ? 3 : 40);
	naive_lru_dist(refs, N(refs), want);
	reuse_init(&r, 4);
	for (size_t t = 0; t < N(refs); t++) {
		int64_t d = reuse_ref(&r, refs[t]);

		if (d != want[t])
			ktap_diag("t=%zu page %llu: %lld, want %lld", t,
				  (unsigned long long)refs[t], (long long)d,
				  (long long)want[t]);
		ASSERT_EQ(d, want[t]);
	}
	ktap_diag("%llu renumberings, %u slots for %llu pages",
		  (unsigned long long)r.compactions, r.sl.cap,
		  (unsigned long long)reuse_pages(&r));
	EXPECT_GT(r.compactions, 100);
	EXPECT_LE(r.sl.cap, 4 * (reuse_pages(&r) + 1));
	reuse_free(&r);
}

/* Memory follows the distinct pages, not the references. */
TEST(memory_is_bounded_by_the_pages)
{
	uint64_t x = 5;
	struct reuse r;

	reuse_init(&r, 0);
	for (int t = 0; t < 3000000; t++)
		ASSERT_GE(reuse_ref(&r, naive_rand(&x) % 1000), REUSE_COLD);
	EXPECT_EQ(reuse_pages(&r), 1000);
	EXPECT_EQ(r.sl.cap, 1 << 16);		/* the default, never grown */
	EXPECT_LE(r.ids_cap, 2048);
	EXPECT_GT(r.compactions, 40);
	/* 3,000,000 references over 65,536 slots, 1,000 live each time. */
	EXPECT_LE(r.compactions, 3000000 / (65536 - 1000) + 1);
	reuse_free(&r);
	/* Growth: a footprint larger than the default slots. */
	reuse_init(&r, 0);
	for (uint64_t t = 0; t < 300000; t++)
		ASSERT_EQ(reuse_ref(&r, t % 100000), t < 100000 ? REUSE_COLD : 99999);
	EXPECT_LE(r.sl.cap, 4 * (100000 + 1));
	reuse_free(&r);
}

/* Random strings: every distance equals the naive stack's. */
TEST(random_strings_match_the_naive_stack)
{
	uint64_t x = 0x853c49e6748fea9bULL, refs[2000];
	int64_t want[N(refs)];
	unsigned int runs = 0;

	for (int round = 0; round < 1500; round++) {
		size_t alpha = 1 + naive_rand(&x) % 64;
		size_t n = naive_rand(&x) % (N(refs) + 1);
		uint32_t slots = naive_rand(&x) & 1 ? 1 + naive_rand(&x) % 16 : 0;
		struct reuse r;
		uint64_t hist_sum = 0;

		for (size_t t = 0; t < n; t++)
			refs[t] = (naive_rand(&x) >> 3) % alpha * 0x1000003ULL;
		naive_lru_dist(refs, n, want);
		reuse_init(&r, slots);
		for (size_t t = 0; t < n; t++)
			ASSERT_EQ(reuse_ref(&r, refs[t]), want[t]);
		for (unsigned int k = 0; k < REUSE_BINS; k++)
			hist_sum += r.bins[k];
		EXPECT_EQ(hist_sum + r.cold, n);
		reuse_free(&r);
		runs++;
	}
	ktap_diag("%u random strings", runs);
}

/*
 * A caller that keeps the time slots in a map of its own, with data of
 * other users around them (pgfreport's pass): reuse_ref_at() gives the
 * naive stack's distances, through renumberings and the map's growth,
 * and the histogram per distance after reuse_sync().
 */
TEST(time_slots_in_the_callers_map)
{
	uint64_t x = 0x9e3779b97f4a7c15ULL, refs[3000];
	int64_t want[N(refs)];

	for (int round = 0; round < 300; round++) {
		size_t alpha = 1 + naive_rand(&x) % 2000, n = naive_rand(&x) % (N(refs) + 1);
		uint32_t slots = naive_rand(&x) & 1 ? 1 + naive_rand(&x) % 16 : 0;
		bool ids = naive_rand(&x) & 1;
		size_t at = ids ? PGID_DATA_OFF : PGID_NOID_OFF;
		struct pgid_map m = { 0 };
		struct reuse r, one;

		for (size_t t = 0; t < n; t++)
			refs[t] = (naive_rand(&x) >> 3) % alpha * 0x1000003ULL;
		naive_lru_dist(refs, n, want);
		ASSERT_EQ(pgid_set_data(&m, 12, ids), 0);
		reuse_init(&r, slots);
		reuse_init(&one, 0);
		reuse_attach(&r, &m, at + 4);
		for (size_t t = 0; t < n; t++) {
			struct pgid_slot *s = pgid_slot(&m, refs[t]);
			uint32_t *other = pgid_data(s, at);

			ASSERT_TRUE(s != NULL);
			ASSERT_EQ(other[0], other[2]);	/* untouched by reuse */
			other[0] = other[2] = (uint32_t)t + 1;
			ASSERT_EQ(reuse_ref_at(&r, pgid_data(s, at + 4)), want[t]);
			ASSERT_EQ(reuse_ref(&one, refs[t]), want[t]);
		}
		reuse_sync(&r);
		EXPECT_EQ(reuse_pages(&r), reuse_pages(&one));
		EXPECT_EQ(r.ids.nr, 0);		/* its own map is unused */
		for (uint64_t d = 0; d < reuse_pages(&one); d++)
			ASSERT_EQ(r.hist[d], one.hist[d]);
		for (uint64_t c = 0; c <= reuse_pages(&one) + 1; c++)
			ASSERT_EQ(reuse_lru_misses(&r, c), reuse_lru_misses(&one, c));
		reuse_free(&r);
		reuse_free(&one);
		pgid_free(&m);
	}
}

/* The batch interface gives what one reference at a time gives. */
TEST(batches_match_single_references)
{
	uint64_t x = 17, *refs;
	size_t n = 200000;
	struct reuse one, many;

	refs = malloc(n * sizeof(*refs));
	ASSERT_TRUE(refs != NULL);
	for (size_t t = 0; t < n; t++)
		refs[t] = naive_rand(&x) % (t < n / 2 ? 5000 : 70000);
	reuse_init(&one, 0);
	reuse_init(&many, 100);
	for (size_t t = 0; t < n; t++)
		ASSERT_NE(reuse_ref(&one, refs[t]), REUSE_NOMEM);
	/* Batches of every length from 0 to 299. */
	for (size_t t = 0, len = 0; t < n; t += len, len = (len + 1) % 300) {
		if (len > n - t)
			len = n - t;
		ASSERT_EQ(reuse_ref_batch(&many, refs + t, len), 0);
	}
	EXPECT_EQ(many.refs, one.refs);
	EXPECT_EQ(many.cold, one.cold);
	EXPECT_EQ(many.max_dist, one.max_dist);
	for (unsigned int k = 0; k < REUSE_BINS; k++)
		EXPECT_EQ(many.bins[k], one.bins[k]);
	for (uint64_t d = 0; d < reuse_pages(&one); d++)
		ASSERT_EQ(many.hist[d], one.hist[d]);
	reuse_free(&one);
	reuse_free(&many);
	free(refs);
}

/* reuse_ref_batch_dist() gives each reference's distance, as reuse_ref(). */
TEST(batch_distances_are_each_references)
{
	uint64_t x = 5, *refs;
	int64_t *dist;
	size_t n = 50000;
	struct reuse one, many;

	refs = malloc(n * sizeof(*refs));
	dist = malloc(n * sizeof(*dist));
	ASSERT_TRUE(refs != NULL && dist != NULL);
	for (size_t t = 0; t < n; t++)
		refs[t] = naive_rand(&x) % 3000;
	reuse_init(&one, 0);
	reuse_init(&many, 64);
	for (size_t t = 0, len = 1; t < n; t += len, len = len % 257 + 1) {
		if (len > n - t)
			len = n - t;
		ASSERT_EQ(reuse_ref_batch_dist(&many, refs + t, len, dist + t), 0);
	}
	for (size_t t = 0; t < n; t++)
		ASSERT_EQ(dist[t], reuse_ref(&one, refs[t]));
	EXPECT_EQ(many.cold, one.cold);
	reuse_free(&one);
	reuse_free(&many);
	free(refs);
	free(dist);
}

/*
 * reuse_binned(): no count per distance, and the same LRU misses as the
 * exact histogram at every power of two and at the footprint and above;
 * UINT64_MAX at any other size. Random strings, batches and single
 * references, slots renumbered.
 */
TEST(binned_misses_at_powers_of_two_and_the_footprint)
{
	uint64_t x = 77, refs[3000];
	unsigned int checked = 0;

	for (int round = 0; round < 200; round++) {
		size_t alpha = 1 + naive_rand(&x) % 1500, n = naive_rand(&x) % 3001;
		struct reuse exact, binned;

		for (size_t t = 0; t < n; t++)
			refs[t] = (naive_rand(&x) >> 5) % alpha;
		reuse_init(&exact, 0);
		reuse_init(&binned, round & 1 ? 16 : 0);
		reuse_binned(&binned);
		ASSERT_EQ(reuse_ref_batch(&exact, refs, n), 0);
		if (round & 2) {
			ASSERT_EQ(reuse_ref_batch(&binned, refs, n), 0);
		} else {
			for (size_t t = 0; t < n; t++)
				ASSERT_NE(reuse_ref(&binned, refs[t]), REUSE_NOMEM);
		}
		ASSERT_TRUE(binned.hist == NULL);
		for (uint64_t size = 1; size <= reuse_pages(&exact) + 2; size++) {
			uint64_t m = reuse_lru_misses(&binned, size);

			if ((size & (size - 1)) && size < reuse_pages(&exact)) {
				ASSERT_EQ(m, UINT64_MAX);
				continue;
			}
			ASSERT_EQ(m, reuse_lru_misses(&exact, size));
			checked++;
		}
		reuse_free(&exact);
		reuse_free(&binned);
	}
	ktap_diag("%u sizes checked against the exact histogram", checked);
}

KTAP_MAIN()
