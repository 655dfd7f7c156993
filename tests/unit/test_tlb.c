// SPDX-License-Identifier: GPL-2.0
/*
 * test_tlb - tools/lib/tlb.c: the ENTRIES:WAYS parser, a hand-worked
 * 4-entry 2-way TLB, and on random strings: each set against a naive LRU
 * of its own references, and one set of N ways against the exact LRU
 * curve of reuse.c (a fully associative TLB of N entries).
 */
#include <errno.h>
#include <stdint.h>
#include "ktap.h"
#include "lib/reuse.h"
#include "lib/tlb.h"
#include "naive.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

TEST(parse_lists)
{
	static const char * const bad[] = {
		"", "0", "4:0", "4:3", "4:8", "x", "4,", ",4", "4:", ":4", "4:2:1",
		"4k", " 4", "-4", "99999999999", "4;2",
	};
	struct tlb_spec *s;
	size_t nr;

	ASSERT_EQ(tlb_parse(TLB_DEFAULT_SPECS, &s, &nr), 0);
	ASSERT_EQ(nr, 4);
	EXPECT_EQ(s[0].entries, 64);
	EXPECT_EQ(s[0].ways, 0);
	EXPECT_EQ(s[1].entries, 64);
	EXPECT_EQ(s[1].ways, 4);
	EXPECT_EQ(s[3].entries, 1536);
	EXPECT_EQ(s[3].ways, 12);
	free(s);
	ASSERT_EQ(tlb_parse("8:8", &s, &nr), 0);
	EXPECT_EQ(nr, 1);
	EXPECT_EQ(s[0].ways, 8);
	free(s);
	for (size_t i = 0; i < N(bad); i++) {
		errno = 0;
		if (tlb_parse(bad[i], &s, &nr) != -1 || errno != EINVAL)
			ktap_diag("accepted '%s'", bad[i]);
		EXPECT_EQ(errno, EINVAL);
	}
}

/*
 * 4 entries, 2 ways: 2 sets, even pages in set 0, odd in set 1.
 *
 *   page  set  set after (MRU first)  hit?
 *   0     0    [0]                    miss
 *   2     0    [2 0]                  miss
 *   1     1    [1]                    miss
 *   0     0    [0 2]                  hit
 *   4     0    [4 0]   (2 goes)       miss
 *   2     0    [2 4]   (0 goes)       miss
 *   1     1    [1]                    hit
 *   0     0    [0 2]                  miss
 *
 * 6 misses; a fully associative TLB of 4 would miss only the 4 cold.
 */
TEST(hand_worked_two_way)
{
	static const uint64_t refs[] = { 0, 2, 1, 0, 4, 2, 1, 0 };
	static const int hit[] = { 0, 0, 0, 1, 0, 0, 1, 0 };
	struct tlb t;

	ASSERT_EQ(tlb_init(&t, 4, 2), 0);
	EXPECT_EQ(t.sets, 2);
	for (size_t i = 0; i < N(refs); i++)
		EXPECT_EQ(tlb_ref(&t, refs[i]), hit[i]);
	EXPECT_EQ(t.misses, 6);
	EXPECT_EQ(t.refs, 8);
	tlb_free(&t);
	EXPECT_EQ(tlb_init(&t, 6, 4), -1);
}

TEST(random_strings_match_naive_sets)
{
	static uint64_t refs[3000], sub[3000];
	uint64_t x = 0x9e3779b97f4a7c15ULL;

	for (int round = 0; round < 400; round++) {
		uint64_t ways = 1 + naive_rand(&x) % 8, sets = 1 + naive_rand(&x) % 9;
		size_t n = naive_rand(&x) % N(refs), alpha = 1 + naive_rand(&x) % 100;
		uint64_t want = 0;
		struct tlb t;

		for (size_t i = 0; i < n; i++)
			refs[i] = naive_rand(&x) % alpha * 7 + 3;
		ASSERT_EQ(tlb_init(&t, sets * ways, (uint32_t)ways), 0);
		for (size_t i = 0; i < n; i++)
			tlb_ref(&t, refs[i]);
		for (uint64_t s = 0; s < sets; s++) {
			size_t m = 0;

			for (size_t i = 0; i < n; i++)
				if (refs[i] % sets == s)
					sub[m++] = refs[i];
			want += naive_lru(sub, m, ways);
		}
		ASSERT_EQ(t.misses, want);
		tlb_free(&t);
	}
}

/* One set of N ways is the fully associative TLB: the LRU curve at N. */
TEST(one_set_is_the_lru_curve)
{
	uint64_t x = 42;
	struct reuse r;
	struct tlb t[5];
	static const uint32_t ways[] = { 1, 4, 16, 64, 256 };

	reuse_init(&r, 0);
	for (size_t k = 0; k < N(ways); k++)
		ASSERT_EQ(tlb_init(&t[k], ways[k], ways[k]), 0);
	for (int i = 0; i < 200000; i++) {
		uint64_t p = naive_rand(&x) % (naive_rand(&x) & 1 ? 50 : 600);

		ASSERT_GE(reuse_ref(&r, p), REUSE_COLD);
		for (size_t k = 0; k < N(ways); k++)
			tlb_ref(&t[k], p);
	}
	for (size_t k = 0; k < N(ways); k++) {
		EXPECT_EQ(t[k].misses, reuse_lru_misses(&r, ways[k]));
		tlb_free(&t[k]);
	}
	reuse_free(&r);
}

KTAP_MAIN()
