// SPDX-License-Identifier: GPL-2.0
/*
 * test_wss - tools/lib/wss.c: Denning's mean working-set size s(tau) and
 * the working-set fault rate, on a hand-worked string and against the
 * definition (every window counted) on random strings.
 */
#include <stdint.h>
#include <string.h>
#include "ktap.h"
#include "lib/wss.h"
#include "naive.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* sum_t |W(t, tau)| and the references not in the tau before them. */
static void brute(const uint64_t *refs, size_t n, uint64_t tau,
		  uint64_t *sum, uint64_t *faults)
{
	*sum = *faults = 0;
	for (size_t t = 0; t < n; t++) {
		size_t lo = t + 1 > tau ? t + 1 - tau : 0;
		int in_prev = 0;

		for (size_t u = lo; u <= t; u++) {
			size_t v;

			for (v = lo; v < u && refs[v] != refs[u]; v++)
				;
			*sum += v == u;		/* first of its page in the window */
		}
		for (size_t u = t > tau ? t - tau : 0; u < t; u++)
			in_prev |= refs[u] == refs[t];
		*faults += !in_prev;
	}
}

/*
 * a b a c a b, n = 6. Windows of 2: {a} {a,b} {a,b} {a,c} {a,c} {a,b}:
 * sizes 1 2 2 2 2 2, sum 11. From the gaps: forward gaps of a (t=1,3)
 * 2 and 2, of b (t=2) 4, of c none; end terms a at 5: 2, b at 6: 1, c
 * at 4: 3. min(2, .): 2 + 2 + 2 + 2 + 1 + 2 = 11.
 * Windows of 4: 1 2 2 3 3 3 = 14; gaps whole: 2+2+4+2+1+3 = 14 = s(6).
 * Fault rate at 2: a, b, c first; b at 6 (gap 4 > 2): 4 of 6.
 */
TEST(hand_worked_string)
{
	static const uint64_t refs[] = { 'a', 'b', 'a', 'c', 'a', 'b' };
	struct wss w;

	wss_init(&w);
	for (size_t i = 0; i < N(refs); i++)
		ASSERT_EQ(wss_ref(&w, refs[i]), 0);
	wss_end(&w);
	EXPECT_EQ(w.refs, 6);
	EXPECT_EQ(w.cold, 3);
	EXPECT_EQ(wss_sum(&w, 1), 6);		/* one page per window */
	EXPECT_EQ(wss_sum(&w, 2), 11);
	EXPECT_EQ(wss_sum(&w, 4), 14);
	EXPECT_EQ(wss_sum(&w, 6), 14);
	EXPECT_EQ(wss_sum(&w, 1000), 14);
	EXPECT_EQ(wss_sum(&w, 3), UINT64_MAX);	/* off the grid */
	EXPECT_EQ(wss_faults(&w, 1), 6);
	EXPECT_EQ(wss_faults(&w, 2), 4);
	EXPECT_EQ(wss_faults(&w, 4), 3);
	wss_free(&w);
	/* No references. */
	wss_init(&w);
	wss_end(&w);
	EXPECT_EQ(wss_sum(&w, 1), 0);
	wss_free(&w);
}

/*
 * Every other round keeps the pages' struct wss_page itself, as
 * pgfreport's pass does (wss_ref_at(), wss_end_page()).
 */
TEST(random_strings_match_the_definition)
{
	static uint64_t refs[600];
	static struct wss_page mine[40];
	uint64_t x = 0xdeadbeef12345ULL;

	for (int round = 0; round < 400; round++) {
		size_t n = naive_rand(&x) % N(refs), alpha = 1 + naive_rand(&x) % 40;
		struct wss w;

		for (size_t i = 0; i < n; i++)
			refs[i] = naive_rand(&x) % alpha * 0x1001;
		wss_init(&w);
		memset(mine, 0, sizeof(mine));
		for (size_t i = 0; i < n; i++)
			if (round & 1)
				wss_ref_at(&w, &mine[refs[i] / 0x1001]);
			else
				ASSERT_EQ(wss_ref(&w, refs[i]), 0);
		for (size_t p = 0; (round & 1) && p < alpha; p++)
			wss_end_page(&w, &mine[p]);
		wss_end(&w);
		for (uint64_t tau = 1; tau <= 2 * n + 2; tau = tau * 2) {
			uint64_t sum, faults;

			brute(refs, n, tau, &sum, &faults);
			ASSERT_EQ(wss_sum(&w, tau), sum);
			ASSERT_EQ(wss_faults(&w, tau), faults);
		}
		if (n) {
			uint64_t sum, faults;

			brute(refs, n, n, &sum, &faults);
			ASSERT_EQ(wss_sum(&w, n), sum);
			ASSERT_EQ(wss_faults(&w, n), faults);
		}
		wss_free(&w);
	}
}

/* Memory follows the distinct pages, not the references. */
TEST(memory_is_bounded_by_the_pages)
{
	struct wss w;
	uint64_t x = 11;

	wss_init(&w);
	for (int t = 0; t < 2000000; t++)
		ASSERT_EQ(wss_ref(&w, naive_rand(&x) % 3000), 0);
	wss_end(&w);
	EXPECT_EQ(w.nr, 3000);
	EXPECT_LE(w.ids.cap, 4096);
	/* A window of the whole trace holds every page at the end. */
	EXPECT_GE(wss_sum(&w, 1 << 21), 3000);
	wss_free(&w);
}

KTAP_MAIN()
