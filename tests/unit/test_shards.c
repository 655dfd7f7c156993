// SPDX-License-Identifier: GPL-2.0
/*
 * test_shards - the sampled miss-ratio curves of tools/lib/shards.c:
 * at rate 1 they are the exact ones (reuse.c, mrc*.c) at every size; a
 * sampled page keeps all its references (the hash is the page's); the
 * rate holds; and on a skewed string of 4 M references to 400,000 pages,
 * at sizes whose sample caches hold 160 pages or more, the curves are
 * within 1% of the exact ones on average at a rate of 1% (4,000 sampled
 * pages: the error is the sample's variance; SHARDS's 0.1% is on traces
 * of millions of blocks) and within 0.25% at 10%.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include "ktap.h"
#include "lib/mrc.h"
#include "lib/reuse.h"
#include "lib/shards.h"

static uint64_t rng = 88172645463325252ULL;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/*
 * A skewed string: Zipf-like with exponent 0.6 over @pages pages (rank
 * pages x u^2.5 for u uniform, the continuous inverse of its CDF), the
 * ranks scattered over the page numbers.
 */
static uint64_t *skewed(size_t n, uint64_t pages)
{
	uint64_t *v = malloc(n * sizeof(*v));

	ASSERT_TRUE(v != NULL);
	for (size_t i = 0; i < n; i++) {
		double u = (double)(next() >> 11) / (1ULL << 53);
		uint64_t rank = (uint64_t)((double)pages * pow(u, 2.5));

		v[i] = (rank < pages ? rank : pages - 1) * 7919 % pages;
	}
	return v;
}

/* The exact misses of @policy (-1: LRU) of @v at @size. */
static uint64_t exact(int policy, const uint64_t *v, size_t n, uint64_t size)
{
	uint64_t miss;

	if (policy < 0) {
		struct reuse r;

		reuse_init(&r, 0);
		ASSERT_EQ(reuse_ref_batch(&r, v, n), 0);
		miss = reuse_lru_misses(&r, size);
		reuse_free(&r);
	} else {
		struct mrc *m = mrc_new(policy, &size, 1);

		ASSERT_TRUE(m != NULL);
		ASSERT_EQ(mrc_ref_batch(m, v, n), 0);
		ASSERT_EQ(mrc_end(m), 0);
		miss = mrc_misses(m, 0);
		mrc_free(m);
	}
	return miss;
}

TEST(at_rate_1_the_curves_are_the_exact_ones)
{
	size_t n = 20000;
	uint64_t *v = skewed(n, 3000);
	struct shards s;

	ASSERT_EQ(shards_init(&s, 1.0, 0, true, NULL, 0), 0);
	for (size_t i = 0; i < n; i++)
		shards_ref(&s, v[i]);
	ASSERT_EQ(shards_end(&s), 0);
	ASSERT_EQ(s.lru.refs, n);
	ASSERT_GT(shards_nr(&s), 5);
	for (size_t i = 0; i < shards_nr(&s); i++) {
		uint64_t size = shards_size(&s, i);

		ASSERT_EQ(size, shards_sample_size(&s, i));
		for (int p = -1; p <= MRC_OPT; p++)
			EXPECT_EQ((uint64_t)llround(shards_ratio(&s, p, i) * n),
				  exact(p, v, n, size));
	}
	shards_free(&s);
	free(v);
}

TEST(a_sampled_page_keeps_every_reference_and_the_rate_holds)
{
	struct shards s;
	size_t kept = 0, pages = 200000;

	ASSERT_EQ(shards_init(&s, 0.05, 3, false, NULL, 0), 0);
	for (uint64_t p = 0; p < pages; p++) {
		bool k = shards_keep(&s, p);

		for (int r = 0; r < 3; r++)
			ASSERT_EQ(shards_keep(&s, p), k);
		kept += k;
	}
	ktap_diag("%zu of %zu pages kept at rate 0.05", kept, pages);
	/* 10,000 expected; 5 standard deviations is 487 */
	EXPECT_LE(labs((long)kept - 10000), 487);
	shards_free(&s);
}

/*
 * The mean absolute error of the LRU, FIFO and CLOCK curves at @rate, at
 * sizes whose sample caches hold at least 160 pages.
 */
static void accuracy(double rate, double bound)
{
	size_t n = 4000000;
	uint64_t pages = 400000, sizes[] = { 16000, 32000, 64000, 128000, 256000 };
	uint64_t *v = skewed(n, pages);
	double err[MRC_OPT + 2] = { 0 };
	struct shards s;

	ASSERT_EQ(shards_init(&s, rate, 0, true, sizes, 5), 0);
	for (size_t i = 0; i < n; i++)
		shards_ref(&s, v[i]);
	ASSERT_EQ(shards_end(&s), 0);
	ASSERT_EQ(shards_nr(&s), 5);
	for (size_t i = 0; i < 5; i++) {
		ASSERT_EQ(shards_size(&s, i), sizes[i]);
		for (int p = -1; p <= MRC_CLOCK; p++) {
			double e = fabs(shards_ratio(&s, p, i) -
					(double)exact(p, v, n, sizes[i]) / n);

			err[p + 1] += e / 5;
		}
	}
	ktap_diag("mean absolute error at rate %g: LRU %.4f FIFO %.4f CLOCK %.4f "
		  "(%llu references sampled)", rate, err[0], err[1], err[2],
		  (unsigned long long)s.lru.refs);
	for (int p = 0; p <= 2; p++)
		EXPECT_TRUE(err[p] <= bound);
	shards_free(&s);
	free(v);
}

TEST(at_1_percent_of_4m_references_the_mean_error_is_under_1_percent)
{
	accuracy(0.01, 0.01);
}

TEST(at_10_percent_the_mean_error_is_under_a_quarter_percent)
{
	accuracy(0.1, 0.0025);
}

KTAP_MAIN()
