// SPDX-License-Identifier: GPL-2.0
/*
 * test_shards_fixed - fixed-size SHARDS (tools/lib/shards_fixed.c):
 * with room for every page the rate stays 1 and the LRU curve is the
 * exact one (reuse.c) at every size below SHFX_EXACT, and between the
 * exact curve at the ends of the size's bin above; with fewer, the
 * distances and weights are those of a naive model (an LRU stack of the
 * sampled pages searched linearly, evicting by the largest hash); the
 * sample never holds more than S_max pages, the rate only falls, memory
 * stays within its bound, and the pages kept are exactly those below the
 * final threshold; accuracy against the exact curve; seeds; bad
 * arguments.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include "ktap.h"
#include "naive.h"
#include "lib/reuse.h"
#include "lib/shards_fixed.h"

static uint64_t rng = 88172645463325252ULL;

/*
 * A skewed string: Zipf-like with exponent 0.6 over @pages pages (rank
 * pages x u^2.5 for u uniform, the continuous inverse of its CDF), the
 * ranks scattered over the page numbers (as test_shards.c's).
 */
static uint64_t *skewed(size_t n, uint64_t pages)
{
	uint64_t *v = malloc(n * sizeof(*v));

	ASSERT_TRUE(v != NULL);
	for (size_t i = 0; i < n; i++) {
		double u = (double)(naive_rand(&rng) >> 11) / (1ULL << 53);
		uint64_t rank = (uint64_t)((double)pages * pow(u, 2.5));

		v[i] = (rank < pages ? rank : pages - 1) * 7919 % pages;
	}
	return v;
}

/* Uniformly random pages: no locality at all. */
static uint64_t *uniform(size_t n, uint64_t pages)
{
	uint64_t *v = malloc(n * sizeof(*v));

	ASSERT_TRUE(v != NULL);
	for (size_t i = 0; i < n; i++)
		v[i] = naive_rand(&rng) % pages;
	return v;
}

static void run(struct shards_fixed *s, uint64_t max_pages, uint64_t seed,
		const uint64_t *v, size_t n)
{
	ASSERT_EQ(shards_fixed_init(s, max_pages, seed, NULL, 0), 0);
	for (size_t i = 0; i < n; i++)
		shards_fixed_ref(s, v[i]);
	ASSERT_EQ(shards_fixed_end(s), 0);
}

/* The exact misses at @size of @r, through @size's bin's ends. */
static void bin_bounds(const struct reuse *r, uint64_t size, uint64_t *lo,
		       uint64_t *hi)
{
	size_t b = shards_fixed_bin((double)size);

	*lo = reuse_lru_misses(r, (uint64_t)shards_fixed_bin_lo(b));
	*hi = reuse_lru_misses(r, (uint64_t)shards_fixed_bin_lo(b + 1));
}

TEST(with_room_for_every_page_the_curve_is_the_exact_one)
{
	size_t n = 300000;
	uint64_t pages = 20000, *v = skewed(n, pages), lo, hi;
	struct shards_fixed s;
	struct reuse r;
	size_t checked = 0;

	reuse_init(&r, 0);
	ASSERT_EQ(reuse_ref_batch(&r, v, n), 0);
	run(&s, reuse_pages(&r), 0, v, n);
	ASSERT_EQ(s.threshold, SHARDS_MOD);
	ASSERT_EQ(s.evicted, 0);
	ASSERT_EQ(s.sampled, n);
	ASSERT_EQ(shards_fixed_footprint(&s), reuse_pages(&r));
	ASSERT_GT(s.compactions, 0);		/* the slots were renumbered */
	ASSERT_GT(r.max_dist, 3 * SHFX_EXACT);	/* the log bins are used */
	/* default sizes: 1, 2, 4, ... then the footprint */
	ASSERT_EQ(shards_fixed_nr(&s), 16);
	ASSERT_EQ(shards_fixed_size(&s, 15), reuse_pages(&r));
	for (uint64_t c = 1; c < SHFX_EXACT; c++)
		EXPECT_EQ((uint64_t)llround(shards_fixed_ratio_at(&s, c) * n),
			  reuse_lru_misses(&r, c));
	/* above: within the exact curve at the ends of the bin */
	for (uint64_t c = SHFX_EXACT; c <= reuse_pages(&r) + 10; c += 37, checked++) {
		double m = shards_fixed_ratio_at(&s, c) * n;

		bin_bounds(&r, c, &lo, &hi);
		EXPECT_TRUE(m >= hi - 1e-6 && m <= lo + 1e-6);
	}
	ktap_diag("%zu sizes from %d up within their bins' ends", checked, SHFX_EXACT);
	reuse_free(&r);
	shards_fixed_free(&s);
	free(v);
}

/*
 * The naive model of fixed-size SHARDS: the sampled pages in an LRU
 * stack searched linearly, the largest hash evicted; the weight of
 * references at real distance >= each of @c[] (cold ones included).
 */
static void naive_fixed(const uint64_t *v, size_t n, uint64_t max_pages,
			uint64_t key, const uint64_t *c, size_t nc, double *miss,
			uint64_t *threshold)
{
	uint64_t *stack = malloc((max_pages + 1) * sizeof(*stack));
	uint64_t t = SHARDS_MOD;
	size_t depth = 0;

	ASSERT_TRUE(stack != NULL);
	for (size_t k = 0; k < nc; k++)
		miss[k] = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t h = shards_hash(key, v[i]), top = 0;
		double w = (double)SHARDS_MOD / t;
		size_t pos = 0, keep = 0;

		if (h >= t)
			continue;
		while (pos < depth && stack[pos] != v[i])
			pos++;
		for (size_t k = 0; k < nc; k++)
			if (pos == depth || (double)pos * w >= (double)c[k])
				miss[k] += w;
		if (pos == depth)
			depth++;
		memmove(&stack[1], &stack[0], pos * sizeof(*stack));
		stack[0] = v[i];
		if (depth <= max_pages)
			continue;
		for (size_t j = 0; j < depth; j++)
			if (shards_hash(key, stack[j]) > top)
				top = shards_hash(key, stack[j]);
		t = top;
		for (size_t j = 0; j < depth; j++)
			if (shards_hash(key, stack[j]) < t)
				stack[keep++] = stack[j];
		depth = keep;
	}
	*threshold = t;
	free(stack);
}

TEST(distances_and_weights_are_the_naive_models)
{
	size_t n = 200000;
	uint64_t *v = skewed(n, 5000), c[64], threshold;
	double want[64];
	struct shards_fixed s;
	size_t nc = 0;

	/* a working set that drifts: new pages, and evictions, all along */
	for (size_t i = 0; i < n; i++)
		v[i] += i / 200;
	for (uint64_t x = 1; x < SHFX_EXACT; x = x * 3 / 2 + 1)
		c[nc++] = x;
	run(&s, 300, 7, v, n);
	naive_fixed(v, n, 300, s.seed, c, nc, want, &threshold);
	ktap_diag("rate %.5f (naive %.5f), %llu pages evicted, %llu sampled "
		  "references", shards_fixed_rate(&s), (double)threshold / SHARDS_MOD,
		  (unsigned long long)s.evicted, (unsigned long long)s.sampled);
	ASSERT_EQ(s.threshold, threshold);
	ASSERT_GT(s.evicted, 500);
	ASSERT_GT(s.compactions, 0);
	for (size_t k = 0; k < nc; k++) {
		double got = s.cold;

		/* the weights themselves: the ratio cuts an excess over 1 */
		for (size_t b = c[k]; b < SHFX_BINS; b++)
			got += s.hist[b];
		EXPECT_LE(fabs(got - want[k]), 1e-9 * n);
		EXPECT_LE(fabs(shards_fixed_ratio_at(&s, c[k]) * n - fmin(want[k], n)),
			  1e-9 * n);
	}
	ktap_diag("the naive model's miss ratios: %.4f at %llu pages, %.4f at %llu",
		  want[0] / n, (unsigned long long)c[0], want[nc - 1] / n,
		  (unsigned long long)c[nc - 1]);
	shards_fixed_free(&s);
	free(v);
}

TEST(the_sample_stays_within_s_max_and_the_rate_only_falls)
{
	size_t n = 2000000, peak = 0;
	uint64_t pages = 100000, max_pages = 1000, *v = uniform(n, pages);
	uint64_t last = SHARDS_MOD, below = 0;
	struct shards_fixed s;

	ASSERT_EQ(shards_fixed_init(&s, max_pages, 1, NULL, 0), 0);
	for (size_t i = 0; i < n; i++) {
		shards_fixed_ref(&s, v[i]);
		ASSERT_LE(s.pages, max_pages);
		ASSERT_LE(s.threshold, last);
		last = s.threshold;
		if (shards_fixed_bytes(&s) > peak)
			peak = shards_fixed_bytes(&s);
	}
	ASSERT_EQ(shards_fixed_end(&s), 0);
	/*
	 * Hash table (at most 2 x 4/3 x 16 bytes a page), heap (16), time
	 * slots (at most 4 a page, 3/16 byte each): about 60 bytes a page,
	 * and the tables' minimum sizes
	 */
	ktap_diag("S_max %llu: peak %zu bytes without the histogram, %llu "
		  "compactions, rate %.5f", (unsigned long long)max_pages, peak,
		  (unsigned long long)s.compactions, shards_fixed_rate(&s));
	EXPECT_LE(peak, 64 * (max_pages + 1) + 2 * 16 * 1024 + 4096);
	EXPECT_LE(s.sl.cap, 4 * (max_pages + 1) + 4096);	/* or the 4096 it starts with */
	/* the pages kept: every page referenced whose hash is below the threshold */
	for (uint64_t p = 0; p < pages; p++)
		below += shards_hash(s.seed, p) < s.threshold;
	EXPECT_EQ(below, s.pages);
	EXPECT_GE(s.pages, max_pages * 9 / 10);
	shards_fixed_free(&s);
	free(v);
}

/*
 * The mean absolute error of the curve of @v at S_max @max_pages, over
 * the default sizes from SHARDS_MIN_CACHE sample pages up (those
 * pgfreport prints), under @bound.
 */
static void accuracy(const char *what, const uint64_t *v, size_t n,
		     uint64_t max_pages, double bound)
{
	struct shards_fixed s;
	struct reuse r;
	double err = 0;
	size_t m = 0;

	reuse_init(&r, 0);
	ASSERT_EQ(reuse_ref_batch(&r, v, n), 0);
	run(&s, max_pages, 0, v, n);
	for (size_t i = 0; i < shards_fixed_nr(&s); i++) {
		uint64_t c = shards_fixed_size(&s, i);

		if (c * shards_fixed_rate(&s) < SHARDS_MIN_CACHE)
			continue;
		err += fabs(shards_fixed_ratio(&s, i) -
			    (double)reuse_lru_misses(&r, c) / n);
		m++;
	}
	ASSERT_GT(m, 3);
	err /= m;
	ktap_diag("%s, S_max %llu: rate %.4f, mean absolute error %.4f over %zu "
		  "sizes (bound %.4f)", what, (unsigned long long)max_pages,
		  shards_fixed_rate(&s), err, m, bound);
	EXPECT_LE(err, bound);
	reuse_free(&r);
	shards_fixed_free(&s);
}

/*
 * The bounds: the mean errors measured at hash seeds 0 .. 7 were, at
 * S_max 8192 (rate about 2%), 0.33 .. 1.05% (mean 0.64%) on the skewed
 * string and 0.07 .. 1.17% (0.66%) on the uniform one; at 32768 (8%),
 * 0.09 .. 0.64% (0.33%) and 0.06 .. 0.66% (0.27%): as fixed-rate SHARDS
 * at the same rates (0.74, 0.37, 0.70, 0.30% on average). The error is
 * mostly the sample's share of the references (a shift of the whole
 * curve), and shrinks as S_max grows. Seed 0 is run: 0.43 and 0.09% on
 * the skewed string, 0.14 and 0.28% on the uniform one.
 */
/* Both S_max on @v, 4 M references to 400,000 pages, which it frees. */
static void accuracy_both(const char *what, uint64_t *v)
{
	accuracy(what, v, 4000000, 8192, 0.015);
	accuracy(what, v, 4000000, 32768, 0.008);
	free(v);
}

TEST(accuracy_on_a_skewed_string)
{
	accuracy_both("zipf(0.6), 4 M references to 400,000 pages",
		      skewed(4000000, 400000));
}

TEST(accuracy_on_random_pages)
{
	accuracy_both("uniform, 4 M references to 400,000 pages",
		      uniform(4000000, 400000));
}

TEST(two_seeds_sample_different_pages)
{
	size_t n = 500000, both = 0;
	uint64_t *v = uniform(n, 50000);
	struct shards_fixed a, b;

	run(&a, 2000, 0, v, n);
	run(&b, 2000, 1, v, n);
	ASSERT_NE(a.seed, b.seed);
	for (size_t i = 0; i < b.map_cap; i++)
		if (b.map[i].slot != UINT32_MAX)
			both += shards_hash(a.seed, b.map[i].page) < a.threshold;
	/* independent samples of 2000 of 50,000 pages share about 80 */
	ktap_diag("%zu of %u pages sampled by both seeds", both, b.pages);
	EXPECT_LT(both, b.pages / 5);
	shards_fixed_free(&a);
	shards_fixed_free(&b);
	free(v);
}

TEST(bad_arguments_are_refused)
{
	struct shards_fixed s;
	uint64_t size = 64;

	ASSERT_ERRNO(shards_fixed_init(&s, 0, 0, NULL, 0), EINVAL);
	ASSERT_ERRNO(shards_fixed_init(&s, (uint64_t)SHFX_MAX_PAGES + 1, 0, NULL, 0),
		     EINVAL);
	ASSERT_ERRNO(shards_fixed_init(&s, 100, 0, NULL, 1), EINVAL);
	/* the sizes asked for are the ones given */
	ASSERT_EQ(shards_fixed_init(&s, 100, 0, &size, 1), 0);
	shards_fixed_ref(&s, 1);
	ASSERT_EQ(shards_fixed_end(&s), 0);
	ASSERT_EQ(shards_fixed_nr(&s), 1);
	ASSERT_EQ(shards_fixed_size(&s, 0), 64);
	EXPECT_EQ(shards_fixed_ratio(&s, 0), 1.0);
	shards_fixed_free(&s);
}

KTAP_MAIN()
