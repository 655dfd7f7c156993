// SPDX-License-Identifier: GPL-2.0
/*
 * test_mrc - the miss-ratio curves of tools/lib: LRU (from reuse.c's
 * distances), FIFO, CLOCK and OPT (mrc*.c), against textbook answers and
 * against the naive simulators of naive.h on many random strings.
 */
#include <errno.h>
#include <stdint.h>
#include "ktap.h"
#include "lib/mrc.h"
#include "lib/reuse.h"
#include "naive.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Belady, Nelson and Shedler (1969): FIFO faults more with more frames. */
static const uint64_t belady[] = { 1, 2, 3, 4, 1, 2, 5, 1, 2, 3, 4, 5 };

/* mrc_set_threads() of the runs below (0: one per CPU). */
static unsigned int run_threads;
/* mrc_set_first_stage() of the runs below (0: the default). */
static uint64_t run_first_stage;

/* Run @policy at @sizes (nr 0: the default ones) over @refs. */
static struct mrc *run(enum mrc_policy policy, const uint64_t *refs, size_t n,
		       const uint64_t *sizes, size_t nr)
{
	struct mrc *m = mrc_new(policy, sizes, nr);

	ASSERT_TRUE(m != NULL);
	mrc_set_threads(m, run_threads);
	mrc_set_first_stage(m, run_first_stage);
	for (size_t t = 0; t < n; t++)
		ASSERT_EQ(mrc_ref(m, refs[t]), 0);
	ASSERT_EQ(mrc_end(m), 0);
	ASSERT_EQ(mrc_refs(m), n);
	return m;
}

/* Misses of @policy at one size. */
static uint64_t misses_at(enum mrc_policy policy, const uint64_t *refs,
			  size_t n, uint64_t size)
{
	struct mrc *m = run(policy, refs, n, &size, 1);
	uint64_t r;

	ASSERT_EQ(mrc_nr(m), 1);
	ASSERT_EQ(mrc_size(m, 0), size);
	r = mrc_misses(m, 0);
	mrc_free(m);
	return r;
}

static uint64_t lru_at(const uint64_t *refs, size_t n, uint64_t size)
{
	struct reuse r;
	uint64_t misses;

	reuse_init(&r, 0);
	for (size_t t = 0; t < n; t++)
		ASSERT_NE(reuse_ref(&r, refs[t]), REUSE_NOMEM);
	misses = reuse_lru_misses(&r, size);
	reuse_free(&r);
	return misses;
}

TEST(belady_fifo_9_faults_with_3_frames_10_with_4)
{
	EXPECT_EQ(misses_at(MRC_FIFO, belady, N(belady), 3), 9);
	EXPECT_EQ(misses_at(MRC_FIFO, belady, N(belady), 4), 10);
}

TEST(belady_lru_10_and_8)
{
	EXPECT_EQ(lru_at(belady, N(belady), 3), 10);
	EXPECT_EQ(lru_at(belady, N(belady), 4), 8);
}

TEST(belady_opt_7_and_6)
{
	EXPECT_EQ(misses_at(MRC_OPT, belady, N(belady), 3), 7);
	EXPECT_EQ(misses_at(MRC_OPT, belady, N(belady), 4), 6);
}

/*
 * CLOCK, by hand. Frames in load order, the hand at the oldest; a load
 * leaves the reference bit clear (0), a hit sets it (1). "x" marks the
 * frame the hand stops at, (..) what it passed, clearing the bit.
 *
 * 3 frames:
 *   1 2 3   miss miss miss      [1:0 2:0 3:0] hand at 1         3
 *   4       miss, evicts 1      [4:0 2:0 3:0] hand at 2         4
 *   1       miss, evicts 2      [4:0 1:0 3:0] hand at 3         5
 *   2       miss, evicts 3      [4:0 1:0 2:0] hand at 4         6
 *   5       miss, evicts 4      [5:0 1:0 2:0] hand at 1         7
 *   1 2     hits                [5:0 1:1 2:1]
 *   3       miss: passes 1, 2 (clearing), evicts 5
 *                               [3:0 1:0 2:0] hand at 1         8
 *   4       miss, evicts 1      [3:0 4:0 2:0] hand at 2         9
 *   5       miss, evicts 2      [3:0 4:0 5:0]                  10
 *
 * 4 frames:
 *   1 2 3 4 misses              [1:0 2:0 3:0 4:0] hand at 1     4
 *   1 2     hits                [1:1 2:1 3:0 4:0]
 *   5       miss: passes 1, 2, evicts 3
 *                               [1:0 2:0 5:0 4:0] hand at 4     5
 *   1 2     hits                [1:1 2:1 5:0 4:0]
 *   3       miss, evicts 4      [1:1 2:1 5:0 3:0] hand at 1     6
 *   4       miss: passes 1, 2, evicts 5
 *                               [1:0 2:0 4:0 3:0] hand at 3     7
 *   5       miss, evicts 3      [1:0 2:0 4:0 5:0]               8
 *
 * So 10 and 8: no anomaly on this string (CLOCK can have one; see
 * clock_can_fault_more_with_more_frames below).
 */
TEST(belady_clock_10_and_8_by_hand)
{
	EXPECT_EQ(misses_at(MRC_CLOCK, belady, N(belady), 3), 10);
	EXPECT_EQ(misses_at(MRC_CLOCK, belady, N(belady), 4), 8);
}

/*
 * CLOCK is not a stack algorithm either: on Belady's string with every
 * reference doubled (1 1 2 2 ...) the doubled references set the bits
 * of everything loaded, so CLOCK evicts as FIFO does and has FIFO's
 * anomaly (checked against the naive simulator too).
 */
TEST(clock_can_fault_more_with_more_frames)
{
	uint64_t twice[2 * N(belady)];

	for (size_t i = 0; i < N(belady); i++)
		twice[2 * i] = twice[2 * i + 1] = belady[i];
	EXPECT_EQ(misses_at(MRC_CLOCK, twice, N(twice), 3),
		  naive_clock(twice, N(twice), 3));
	EXPECT_EQ(misses_at(MRC_CLOCK, twice, N(twice), 4),
		  naive_clock(twice, N(twice), 4));
	EXPECT_EQ(misses_at(MRC_CLOCK, twice, N(twice), 3), 9);
	EXPECT_EQ(misses_at(MRC_CLOCK, twice, N(twice), 4), 10);
}

/* All sizes in one run give what one run per size gives. */
TEST(many_sizes_in_one_run)
{
	static const uint64_t sizes[] = { 1, 2, 3, 4, 5, 6, 100 };
	static const uint64_t want[][N(sizes)] = {
		[MRC_FIFO] = { 12, 12, 9, 10, 5, 5, 5 },
		[MRC_CLOCK] = { 12, 12, 10, 8, 5, 5, 5 },
		[MRC_OPT] = { 12, 9, 7, 6, 5, 5, 5 },
	};

	for (int p = MRC_FIFO; p <= MRC_OPT; p++) {
		struct mrc *m = run(p, belady, N(belady), sizes, N(sizes));

		ASSERT_EQ(mrc_nr(m), N(sizes));
		ASSERT_EQ(mrc_footprint(m), 5);
		for (size_t i = 0; i < N(sizes); i++) {
			EXPECT_EQ(mrc_size(m, i), sizes[i]);
			if (mrc_misses(m, i) != want[p][i])
				ktap_diag("%s at %llu pages: %llu misses, want %llu",
					  mrc_policy_name(p),
					  (unsigned long long)sizes[i],
					  (unsigned long long)mrc_misses(m, i),
					  (unsigned long long)want[p][i]);
			EXPECT_EQ(mrc_misses(m, i), want[p][i]);
		}
		mrc_free(m);
	}
}

/* Default sizes: the powers of two below the footprint, then it. */
TEST(default_sizes_are_powers_of_two_then_the_footprint)
{
	static const uint64_t want_sizes[] = { 1, 2, 4, 5 };
	static const uint64_t want[][N(want_sizes)] = {
		[MRC_FIFO] = { 12, 12, 10, 5 },
		[MRC_CLOCK] = { 12, 12, 8, 5 },
		[MRC_OPT] = { 12, 9, 6, 5 },
	};
	uint64_t seq[64];

	for (int p = MRC_FIFO; p <= MRC_OPT; p++) {
		struct mrc *m = run(p, belady, N(belady), NULL, 0);

		ASSERT_EQ(mrc_nr(m), N(want_sizes));
		for (size_t i = 0; i < N(want_sizes); i++) {
			EXPECT_EQ(mrc_size(m, i), want_sizes[i]);
			EXPECT_EQ(mrc_misses(m, i), want[p][i]);
		}
		mrc_free(m);
	}
	/* A footprint that is a power of two is not listed twice. */
	for (size_t i = 0; i < 64; i++)
		seq[i] = i % 8;
	for (int p = MRC_FIFO; p <= MRC_OPT; p++) {
		struct mrc *m = run(p, seq, 64, NULL, 0);

		ASSERT_EQ(mrc_nr(m), 4);
		EXPECT_EQ(mrc_size(m, 3), 8);
		EXPECT_EQ(mrc_misses(m, 3), 8);
		/* A loop of 8 pages in 4 frames: FIFO and CLOCK miss every
		 * time, OPT keeps some of the loop. */
		EXPECT_EQ(mrc_misses(m, 2), p == MRC_OPT ? naive_opt(seq, 64, 4) : 64);
		mrc_free(m);
	}
}

TEST(no_references_and_sizes_past_the_footprint)
{
	static const uint64_t sizes[] = { 1, 7, 1000000 };
	static const uint64_t one[] = { 42, 42, 42 };

	for (int p = MRC_FIFO; p <= MRC_OPT; p++) {
		struct mrc *m = run(p, NULL, 0, NULL, 0);

		EXPECT_EQ(mrc_nr(m), 0);
		EXPECT_EQ(mrc_footprint(m), 0);
		mrc_free(m);
		m = run(p, NULL, 0, sizes, N(sizes));
		ASSERT_EQ(mrc_nr(m), 3);
		EXPECT_EQ(mrc_misses(m, 0) + mrc_misses(m, 1) + mrc_misses(m, 2), 0);
		mrc_free(m);
		m = run(p, one, N(one), sizes, N(sizes));
		EXPECT_EQ(mrc_misses(m, 0), 1);
		EXPECT_EQ(mrc_misses(m, 2), 1);
		mrc_free(m);
		m = run(p, one, N(one), NULL, 0);
		ASSERT_EQ(mrc_nr(m), 1);
		EXPECT_EQ(mrc_size(m, 0), 1);
		EXPECT_EQ(mrc_misses(m, 0), 1);
		mrc_free(m);
	}
}

TEST(bad_sizes_are_refused)
{
	static const uint64_t zero[] = { 0, 4 }, down[] = { 4, 2 }, twice[] = { 2, 2 };

	for (int p = MRC_FIFO; p <= MRC_OPT; p++) {
		errno = 0;
		EXPECT_TRUE(mrc_new(p, zero, 2) == NULL && errno == EINVAL);
		errno = 0;
		EXPECT_TRUE(mrc_new(p, down, 2) == NULL && errno == EINVAL);
		errno = 0;
		EXPECT_TRUE(mrc_new(p, twice, 2) == NULL && errno == EINVAL);
	}
	errno = 0;
	EXPECT_TRUE(mrc_new(MRC_OPT + 1, NULL, 0) == NULL && errno == EINVAL);
}

TEST(opt_names_its_temporary_directory_when_it_cannot_use_it)
{
	struct mrc *m;

	setenv("TMPDIR", "/nonexistent-pgft-test-dir", 1);
	errno = 0;
	m = mrc_new(MRC_OPT, NULL, 0);
	EXPECT_TRUE(m == NULL);
	EXPECT_EQ(errno, ENOENT);
	/* FIFO and CLOCK need no file. */
	m = mrc_new(MRC_FIFO, NULL, 0);
	EXPECT_TRUE(m != NULL);
	mrc_free(m);
}

/* Page numbers anywhere in 0 .. UINT64_MAX - 1, not only small ones. */
TEST(any_page_numbers)
{
	uint64_t refs[N(belady)];
	static const uint64_t map[] = { 0, 0, 0x7ffffffffULL, UINT64_MAX - 1,
					1ULL << 63, 12345 };
	uint64_t s = 3;
	struct mrc *m;

	for (size_t i = 0; i < N(belady); i++)
		refs[i] = map[belady[i]];
	EXPECT_EQ(misses_at(MRC_FIFO, refs, N(refs), 3), 9);
	EXPECT_EQ(misses_at(MRC_OPT, refs, N(refs), 4), 6);
	EXPECT_EQ(lru_at(refs, N(refs), 4), 8);
	m = run(MRC_CLOCK, refs, N(refs), &s, 1);
	EXPECT_EQ(mrc_misses(m, 0), 10);
	errno = 0;
	EXPECT_EQ(mrc_ref(m, 1), -1);		/* after mrc_end() */
	EXPECT_EQ(errno, EINVAL);
	mrc_free(m);
	m = mrc_new(MRC_FIFO, NULL, 0);
	errno = 0;
	EXPECT_EQ(mrc_ref(m, UINT64_MAX), -1);
	EXPECT_EQ(errno, EINVAL);
	mrc_free(m);
}

/* Distinct pages in @refs. */
static uint64_t alpha_used(const uint64_t *refs, size_t n)
{
	uint64_t k = 0;

	for (size_t t = 0; t < n; t++) {
		size_t u = 0;

		while (u < t && refs[u] != refs[t])
			u++;
		k += u == t;
	}
	return k;
}

/*
 * The oracle: on thousands of random strings (alphabets of 1 to 12
 * pages, lengths 0 to 400, some with a hot subset), every size from 1 to
 * past the footprint, in one run with every size and with the default
 * sizes, must give exactly what the naive simulators give, for all four
 * policies.
 */
TEST(random_strings_match_the_naive_simulators)
{
	uint64_t x = 0x2545f4914f6cdd1dULL, refs[400], sizes[16];
	unsigned int runs = 0;

	for (int round = 0; round < 3000; round++) {
		size_t alpha = 1 + naive_rand(&x) % 12;
		size_t n = naive_rand(&x) % 401;
		size_t nsizes = alpha + 2;
		bool hot = naive_rand(&x) & 1;
		struct reuse r;

		for (size_t t = 0; t < n; t++) {
			uint64_t v = naive_rand(&x);

			/* Half the strings favour the first few pages. */
			refs[t] = hot && (v & 3) ? (v >> 8) % (alpha / 3 + 1)
						 : (v >> 8) % alpha;
			refs[t] = refs[t] * 4096 + 77;	/* sparse page numbers */
		}
		for (size_t i = 0; i < nsizes; i++)
			sizes[i] = i + 1;
		/* OPT's sizes shared among 1 to 5 threads, whatever the CPUs */
		run_threads = 1 + round % 5;
		reuse_init(&r, 1 + naive_rand(&x) % 8);
		for (size_t t = 0; t < n; t++)
			ASSERT_NE(reuse_ref(&r, refs[t]), REUSE_NOMEM);
		for (int p = MRC_FIFO; p <= MRC_OPT; p++) {
			struct mrc *m = run(p, refs, n, sizes, nsizes);
			struct mrc *d = run(p, refs, n, NULL, 0);

			ASSERT_EQ(mrc_nr(m), nsizes);
			for (size_t i = 0; i < nsizes; i++) {
				uint64_t want = p == MRC_FIFO ? naive_fifo(refs, n, sizes[i]) :
						p == MRC_CLOCK ? naive_clock(refs, n, sizes[i]) :
						naive_opt(refs, n, sizes[i]);

				if (mrc_misses(m, i) != want)
					ktap_diag("round %d: %s at %llu pages over %zu refs: %llu, want %llu",
						  round, mrc_policy_name(p),
						  (unsigned long long)sizes[i], n,
						  (unsigned long long)mrc_misses(m, i),
						  (unsigned long long)want);
				ASSERT_EQ(mrc_misses(m, i), want);
			}
			/* The default sizes give the same counts at their sizes. */
			ASSERT_EQ(mrc_nr(d), n ? 1 + (alpha_used(refs, n) > 1 ?
					      64 - __builtin_clzll(alpha_used(refs, n) - 1) : 0) : 0);
			for (size_t i = 0; i < mrc_nr(d); i++) {
				uint64_t s = mrc_size(d, i);

				ASSERT_EQ(mrc_misses(d, i), mrc_misses(m, s - 1));
				ASSERT_TRUE(i + 1 == mrc_nr(d) ? s == mrc_footprint(d) :
					    s == 1ULL << i);
			}
			mrc_free(m);
			mrc_free(d);
		}
		for (size_t i = 0; i < nsizes; i++)
			ASSERT_EQ(reuse_lru_misses(&r, sizes[i]), naive_lru(refs, n, sizes[i]));
		reuse_free(&r);
		runs++;
	}
	run_threads = 0;
	ktap_diag("%u random strings, 4 policies, every size", runs);
}

/*
 * More sizes than a word of the per-page bits has (32, mrc_impl.h): FIFO
 * and CLOCK keep each size's bit in the right word, whichever word a
 * miss and the eviction it causes are in.
 */
TEST(sizes_past_one_word_of_bits_match_the_naive_simulators)
{
	uint64_t x = 0x9e3779b97f4a7c15ULL, refs[3000], sizes[70];

	for (size_t i = 0; i < N(sizes); i++)
		sizes[i] = i + 1;
	for (int round = 0; round < 6; round++) {
		size_t alpha = 40 + naive_rand(&x) % 60;

		for (size_t t = 0; t < N(refs); t++) {
			uint64_t v = naive_rand(&x);

			refs[t] = (v & 1 ? (v >> 8) % (alpha / 4 + 1) : (v >> 8) % alpha) + 5;
		}
		for (int p = MRC_FIFO; p <= MRC_CLOCK; p++) {
			struct mrc *m = run(p, refs, N(refs), sizes, N(sizes));

			for (size_t i = 0; i < N(sizes); i++)
				ASSERT_EQ(mrc_misses(m, i), p == MRC_FIFO ?
					  naive_fifo(refs, N(refs), sizes[i]) :
					  naive_clock(refs, N(refs), sizes[i]));
			mrc_free(m);
		}
	}
}

/*
 * The small sizes' slots (mrc_impl.h: 32 in all, compared at once) at
 * their edges: a size of all 32, sizes that fill them exactly, one that
 * would overflow them by one, each beside larger sizes that use the
 * per-page bits; FIFO and CLOCK against the naive simulators.
 */
TEST(small_sizes_at_the_edges_of_their_slots)
{
	static const uint64_t sets[][4] = {
		{ 32, 33, 40, 0 }, { 1, 31, 32, 0 }, { 16, 17, 18, 0 },
		{ 1, 2, 29, 64 }, { 3, 5, 7, 0 },
	};
	uint64_t x = 0x853c49e6748fea9bULL, refs[4000];

	for (size_t s = 0; s < N(sets); s++) {
		size_t nr = sets[s][3] ? 4 : 3;
		size_t alpha = sets[s][nr - 1] + 12;

		for (size_t t = 0; t < N(refs); t++) {
			uint64_t v = naive_rand(&x);

			/* runs over a few pages, and jumps over all of them */
			refs[t] = v & 3 ? (t / 7 + (v >> 8) % 9) % alpha : (v >> 8) % alpha;
		}
		for (int p = MRC_FIFO; p <= MRC_CLOCK; p++) {
			struct mrc *m = run(p, refs, N(refs), sets[s], nr);

			for (size_t i = 0; i < nr; i++)
				ASSERT_EQ(mrc_misses(m, i), p == MRC_FIFO ?
					  naive_fifo(refs, N(refs), sets[s][i]) :
					  naive_clock(refs, N(refs), sets[s][i]));
			mrc_free(m);
		}
	}
}

/*
 * OPT's layers (mrc_opt.c) at sizes far apart, long enough for their
 * heaps to fill with stale entries and be swept many times: every size
 * against the naive simulator, in one, two and three stages.
 */
TEST(opt_layers_match_the_naive_simulator_over_long_strings)
{
	/* 260 and 290: past the first stage's sizes (mrc_opt.c, opt_cuts()) */
	static const uint64_t sizes[] = { 1, 3, 7, 20, 50, 120, 200, 260, 290 };
	size_t n = 4000;
	uint64_t x = 0x5851f42d4c957f2dULL, *refs = malloc(n * sizeof(*refs));

	ASSERT_TRUE(refs != NULL);
	for (int round = 0; round < 4; round++) {
		struct mrc *m;

		for (size_t t = 0; t < n; t++) {
			uint64_t v = naive_rand(&x);

			/* a hot set, and phases that move over 300 pages */
			refs[t] = v & 1 ? (v >> 8) % 16 : (t / 500 * 37 + (v >> 8) % 90) % 300;
		}
		run_threads = 1 + round % 3;	/* stages: 1, 2, 3 */
		m = run(MRC_OPT, refs, n, sizes, sizeof(sizes) / sizeof(sizes[0]));

		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
			ASSERT_EQ(mrc_misses(m, i), naive_opt(refs, n, sizes[i]));
		mrc_free(m);
	}
	run_threads = 0;
	free(refs);
}

/*
 * OPT's sizes in threads: 1 to 9 of them (more than the sizes, too) give
 * the same misses at each of 20 sizes over 200,000 references.
 */
TEST(opt_threads_do_not_change_the_misses)
{
	size_t n = 200000;
	uint64_t x = 0x9e3779b97f4a7c15ULL, *refs = malloc(n * sizeof(*refs));
	uint64_t want[64];
	size_t nr = 0;

	ASSERT_TRUE(refs != NULL);
	for (size_t t = 0; t < n; t++) {
		uint64_t v = naive_rand(&x);

		/* a hot set of 64 pages, and 40,000 others */
		refs[t] = v & 1 ? (v >> 8) % 64 : (v >> 8) % 40000;
	}
	for (unsigned int k = 1; k <= 9; k++) {
		struct mrc *m;

		run_threads = k == 9 ? 0 : k;
		m = run(MRC_OPT, refs, n, NULL, 0);
		if (k == 1) {
			nr = mrc_nr(m);
			ASSERT_TRUE(nr > 10 && nr <= 64);
			for (size_t i = 0; i < nr; i++)
				want[i] = mrc_misses(m, i);
		}
		ASSERT_EQ(mrc_nr(m), nr);
		for (size_t i = 0; i < nr; i++)
			ASSERT_EQ(mrc_misses(m, i), want[i]);
		mrc_free(m);
	}
	run_threads = 0;
	free(refs);
	ktap_diag("%zu sizes, the same misses in 1 to 8 threads", nr);
}

/*
 * Wherever OPT's first stage ends (mrc_set_first_stage()), in two or
 * three stages: the misses of one thread.
 */
TEST(opt_first_stage_anywhere_the_same_misses)
{
	static const uint64_t cuts[] = { 0, 1, 2, 5, 64, 300, 1ULL << 40 };
	size_t n = 60000;
	uint64_t x = 0x2545f4914f6cdd1dULL, *refs = malloc(n * sizeof(*refs));
	uint64_t want[64];
	struct mrc *m;
	size_t nr;

	ASSERT_TRUE(refs != NULL);
	for (size_t t = 0; t < n; t++) {
		uint64_t v = naive_rand(&x);

		refs[t] = v & 3 ? (v >> 8) % 40 : (v >> 8) % 5000;
	}
	run_threads = 1;
	m = run(MRC_OPT, refs, n, NULL, 0);
	nr = mrc_nr(m);
	ASSERT_TRUE(nr > 8 && nr <= 64);
	for (size_t i = 0; i < nr; i++)
		want[i] = mrc_misses(m, i);
	mrc_free(m);
	for (size_t c = 0; c < N(cuts); c++) {
		for (unsigned int k = 2; k <= 3; k++) {
			run_threads = k;
			run_first_stage = cuts[c];
			m = run(MRC_OPT, refs, n, NULL, 0);
			ASSERT_EQ(mrc_nr(m), nr);
			for (size_t i = 0; i < nr; i++)
				ASSERT_EQ(mrc_misses(m, i), want[i]);
			mrc_free(m);
		}
	}
	run_threads = 0;
	run_first_stage = 0;
	free(refs);
}

/*
 * OPT is optimal: on short random strings, no choice of evictions at all
 * does better (every possible one tried), and it equals that minimum.
 */
TEST(opt_equals_the_exhaustive_minimum)
{
	uint64_t x = 0x9e3779b97f4a7c15ULL, refs[12];

	for (int round = 0; round < 400; round++) {
		size_t alpha = 2 + naive_rand(&x) % 5;
		size_t n = 1 + naive_rand(&x) % N(refs);

		for (size_t t = 0; t < n; t++)
			refs[t] = naive_rand(&x) % alpha;
		for (uint64_t s = 1; s <= 4; s++) {
			uint64_t opt = misses_at(MRC_OPT, refs, n, s);

			ASSERT_EQ(opt, naive_min(refs, n, s));
			EXPECT_LE(opt, misses_at(MRC_FIFO, refs, n, s));
			EXPECT_LE(opt, misses_at(MRC_CLOCK, refs, n, s));
			EXPECT_LE(opt, lru_at(refs, n, s));
		}
	}
}

/*
 * Long strings go through the chunked passes over OPT's files (64 Ki
 * references a chunk), and the stale heap entries are swept many times;
 * LRU and OPT are stack algorithms, so their misses never grow with the
 * size, and OPT never misses more than LRU.
 */
TEST(long_strings_opt_below_lru_and_inclusion)
{
	static const uint64_t sizes[] = { 1, 3, 10, 30, 100, 300, 1000 };
	uint64_t x = 7, *refs;
	size_t n = 300000;
	struct reuse r;
	struct mrc *opt, *fifo;

	refs = malloc(n * sizeof(*refs));
	ASSERT_TRUE(refs != NULL);
	/* Phases of loops and random references over 2,000 pages. */
	for (size_t t = 0; t < n; t++)
		refs[t] = (t / 50000) % 2 ? naive_rand(&x) % 2000 : (t % 700) + (t / 100000);
	opt = run(MRC_OPT, refs, n, sizes, N(sizes));
	fifo = run(MRC_FIFO, refs, n, sizes, N(sizes));
	reuse_init(&r, 0);
	for (size_t t = 0; t < n; t++)
		ASSERT_NE(reuse_ref(&r, refs[t]), REUSE_NOMEM);
	for (size_t i = 0; i < N(sizes); i++) {
		EXPECT_LE(mrc_misses(opt, i), reuse_lru_misses(&r, sizes[i]));
		EXPECT_LE(mrc_misses(opt, i), mrc_misses(fifo, i));
		if (i) {
			EXPECT_LE(mrc_misses(opt, i), mrc_misses(opt, i - 1));
			EXPECT_LE(reuse_lru_misses(&r, sizes[i]),
				  reuse_lru_misses(&r, sizes[i - 1]));
		}
	}
	/* A loop of 700 pages in 300 frames: LRU and FIFO always miss. */
	EXPECT_GT(reuse_lru_misses(&r, 300), n / 2);
	/* The naive OPT agrees at one size, on a prefix it can afford. */
	{
		struct mrc *o = run(MRC_OPT, refs, 20000, &sizes[4], 1);

		EXPECT_EQ(mrc_misses(o, 0), naive_opt(refs, 20000, sizes[4]));
		mrc_free(o);
	}
	mrc_free(opt);
	mrc_free(fifo);
	reuse_free(&r);
	free(refs);
}

/* The batch interface gives what one reference at a time gives. */
TEST(batches_match_single_references)
{
	uint64_t x = 23, refs[20000];

	for (size_t t = 0; t < N(refs); t++)
		refs[t] = naive_rand(&x) % (t < N(refs) / 2 ? 300 : 3000);
	for (int p = MRC_FIFO; p <= MRC_OPT; p++) {
		struct mrc *one = run(p, refs, N(refs), NULL, 0);
		struct mrc *many = mrc_new(p, NULL, 0);

		ASSERT_TRUE(many != NULL);
		for (size_t t = 0, len = 0; t < N(refs); t += len, len = (len + 7) % 200) {
			if (len > N(refs) - t)
				len = N(refs) - t;
			ASSERT_EQ(mrc_ref_batch(many, refs + t, len), 0);
		}
		ASSERT_EQ(mrc_end(many), 0);
		ASSERT_EQ(mrc_nr(many), mrc_nr(one));
		for (size_t i = 0; i < mrc_nr(one); i++) {
			EXPECT_EQ(mrc_size(many, i), mrc_size(one, i));
			EXPECT_EQ(mrc_misses(many, i), mrc_misses(one, i));
		}
		mrc_free(one);
		mrc_free(many);
	}
}

/* A bad page in a batch: the references before it count, then -1. */
TEST(a_batch_stops_at_a_bad_page)
{
	uint64_t refs[] = { 1, 2, 3, UINT64_MAX, 4 }, s = 2;

	for (int p = MRC_FIFO; p <= MRC_OPT; p++) {
		struct mrc *m = mrc_new(p, &s, 1);

		errno = 0;
		EXPECT_EQ(mrc_ref_batch(m, refs, N(refs)), -1);
		EXPECT_EQ(errno, EINVAL);
		EXPECT_EQ(mrc_refs(m), 3);
		EXPECT_EQ(mrc_end(m), 0);
		EXPECT_EQ(mrc_misses(m, 0), 3);
		mrc_free(m);
	}
}

/*
 * The ids LRU's page table gives (reuse_ref_batch_ids()) run each policy
 * as its own page table does, misses for misses; an id out of order is
 * refused, the references before it counted; the two ways do not mix.
 */
TEST(ids_from_reuse_match_the_pages)
{
	static uint32_t ids[30000];
	uint64_t x = 41, refs[30000];
	struct reuse r;

	for (size_t t = 0; t < N(refs); t++)
		refs[t] = naive_rand(&x) % (t < N(refs) / 3 ? 500 : 5000) * 4096;
	reuse_init(&r, 0);
	ASSERT_EQ(reuse_ref_batch_ids(&r, refs, N(refs), NULL, ids), 0);
	for (int p = MRC_FIFO; p <= MRC_OPT; p++) {
		struct mrc *one = run(p, refs, N(refs), NULL, 0);
		struct mrc *by_id = mrc_new(p, NULL, 0);

		ASSERT_TRUE(by_id != NULL);
		for (size_t t = 0, len = 0; t < N(refs); t += len, len = (len + 13) % 300) {
			if (len > N(refs) - t)
				len = N(refs) - t;
			ASSERT_EQ(mrc_ref_ids(by_id, ids + t, len), 0);
		}
		ASSERT_EQ(mrc_end(by_id), 0);
		ASSERT_EQ(mrc_footprint(by_id), mrc_footprint(one));
		ASSERT_EQ(mrc_nr(by_id), mrc_nr(one));
		for (size_t i = 0; i < mrc_nr(one); i++) {
			EXPECT_EQ(mrc_size(by_id, i), mrc_size(one, i));
			EXPECT_EQ(mrc_misses(by_id, i), mrc_misses(one, i));
		}
		mrc_free(one);
		mrc_free(by_id);
	}
	reuse_free(&r);
	for (int p = MRC_FIFO; p <= MRC_OPT; p++) {
		uint32_t bad[] = { 0, 1, 0, 3, 2 };
		uint64_t s = 2, page = 7;
		struct mrc *m = mrc_new(p, &s, 1);

		errno = 0;
		EXPECT_EQ(mrc_ref_ids(m, bad, N(bad)), -1);
		EXPECT_EQ(errno, EINVAL);
		EXPECT_EQ(mrc_refs(m), 3);
		errno = 0;
		EXPECT_EQ(mrc_ref_batch(m, &page, 1), -1);
		EXPECT_EQ(errno, EINVAL);
		EXPECT_EQ(mrc_end(m), 0);
		EXPECT_EQ(mrc_misses(m, 0), 2);
		mrc_free(m);
	}
}

KTAP_MAIN()
