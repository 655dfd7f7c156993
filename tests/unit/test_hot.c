// SPDX-License-Identifier: GPL-2.0
/*
 * test_hot - tools/lib/hot.c: counts per (page, tag), the order of the
 * top N and its ties, and a sort of every entry on random strings.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include "ktap.h"
#include "lib/hot.h"
#include "naive.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Pages 7 7 3 7 3 9 5 under tag 1, and page 3 once under tag 2 (its
 * address in another region):
 *
 *   page 7 tag 1: 3    page 3 tag 1: 2    page 3 tag 2: 1
 *   page 5 tag 1: 1    page 9 tag 1: 1
 *
 * Top 4: 7, 3/1, then the ties at 1 by page, then tag: 3/2, 5 (9 is 5th).
 */
TEST(hand_worked_top)
{
	static const uint64_t pages[] = { 7, 7, 3, 7, 3, 9, 5, 3 };
	static const uint64_t tags[] = { 1, 1, 1, 1, 1, 1, 1, 2 };
	struct hot h = { 0 };
	struct hot_entry top[10];

	for (size_t i = 0; i < N(pages); i++)
		ASSERT_EQ(hot_ref(&h, pages[i], tags[i], 100 + i), 0);
	EXPECT_EQ(h.refs, 8);
	EXPECT_EQ(h.nr, 5);
	ASSERT_EQ(hot_top(&h, top, 4), 4);
	EXPECT_EQ(top[0].page, 7);
	EXPECT_EQ(top[0].refs, 3);
	EXPECT_EQ(top[0].aux, 100);		/* from the first reference */
	EXPECT_EQ(top[1].page, 3);
	EXPECT_EQ(top[1].tag, 1);
	EXPECT_EQ(top[1].refs, 2);
	EXPECT_EQ(top[1].aux, 102);
	EXPECT_EQ(top[2].page, 3);
	EXPECT_EQ(top[2].tag, 2);
	EXPECT_EQ(top[2].aux, 107);
	EXPECT_EQ(top[3].page, 5);
	/* Asking for more than there are. */
	ASSERT_EQ(hot_top(&h, top, 10), 5);
	EXPECT_EQ(top[4].page, 9);
	EXPECT_EQ(hot_top(&h, top, 0), 0);
	hot_free(&h);
	EXPECT_EQ(hot_top(&h, top, 3), 0);
}

static int cmp_rank(const void *a, const void *b)
{
	const struct hot_entry *x = a, *y = b;

	if (x->refs != y->refs)
		return x->refs > y->refs ? -1 : 1;
	if (x->page != y->page)
		return x->page < y->page ? -1 : 1;
	return (x->tag > y->tag) - (x->tag < y->tag);
}

/*
 * Random strings: the top N is the head of every entry counted and
 * sorted. Every other round keeps the pages' latest tags itself, as
 * pgfreport's pass does (hot_ref_at(), hot_top_add()).
 */
TEST(random_strings_match_a_full_sort)
{
	uint64_t x = 0x2545f4914f6cdd1dULL;
	static struct hot_entry all[4096], top[4096];
	static struct hot_page mine[200];

	for (int round = 0; round < 300; round++) {
		size_t alpha = 1 + naive_rand(&x) % 200, tags = 1 + naive_rand(&x) % 3;
		size_t n = naive_rand(&x) % 5000, want_n = naive_rand(&x) % 300, nall = 0;
		struct hot_top t = { .out = top, .n = want_n };
		struct hot h = { 0 };
		bool own = round & 1;
		long got;

		memset(mine, 0, sizeof(mine));

		for (size_t t = 0; t < n; t++) {
			/* Skewed: low pages more often. */
			uint64_t p = naive_rand(&x) % (1 + naive_rand(&x) % alpha);
			uint64_t g = naive_rand(&x) % tags;
			size_t i;

			if (own)
				ASSERT_EQ(hot_ref_at(&h, &mine[p], p * 0x10001, g, p + g), 0);
			else
				ASSERT_EQ(hot_ref(&h, p * 0x10001, g, p + g), 0);
			for (i = 0; i < nall && (all[i].page != p * 0x10001 || all[i].tag != g); i++)
				;
			if (i == nall)
				all[nall++] = (struct hot_entry){ p * 0x10001, g, p + g, 0 };
			all[i].refs++;
		}
		qsort(all, nall, sizeof(*all), cmp_rank);
		for (size_t p = 0; own && p < alpha; p++)
			hot_top_add(&t, p * 0x10001, &mine[p]);
		got = own ? hot_top_end(&h, &t) : hot_top(&h, top, want_n);
		ASSERT_EQ(got, (long)(want_n < nall ? want_n : nall));
		ASSERT_EQ(h.nr, nall);
		ASSERT_EQ(h.refs, n);
		for (long i = 0; i < got; i++) {
			ASSERT_EQ(top[i].page, all[i].page);
			ASSERT_EQ(top[i].tag, all[i].tag);
			ASSERT_EQ(top[i].refs, all[i].refs);
			ASSERT_EQ(top[i].aux, all[i].aux);
		}
		hot_free(&h);
	}
}

/* Memory follows the distinct pages: a million references to 1,000. */
TEST(memory_is_bounded_by_the_pages)
{
	struct hot h = { 0 };
	uint64_t x = 3;

	for (int t = 0; t < 1000000; t++)
		ASSERT_EQ(hot_ref(&h, naive_rand(&x) % 1000, 0, 0), 0);
	EXPECT_EQ(h.nr, 1000);
	EXPECT_LE(h.ids.cap, 2048);
	EXPECT_EQ(h.old.cap, 0);
	hot_free(&h);
}

/*
 * A page under many tags, as a heap that mremap() moves and grows gets a
 * new region each time: 1,000 pages under 50 tags in turn, then the
 * first tags again. Each (page, tag) counts apart; the table by page keeps
 * a slot a page, the earlier tags go to the other one.
 */
TEST(pages_under_many_tags)
{
	struct hot_entry top[3];
	struct hot h = { 0 };

	for (uint64_t tag = 1; tag <= 50; tag++)
		for (uint64_t p = 0; p < 1000; p++)
			for (int k = 0; k < 3; k++)
				ASSERT_EQ(hot_ref(&h, p, tag, tag), 0);
	/* back to tag 1 for page 7, and to tag 2 for page 9: parked ones */
	for (int k = 0; k < 10; k++)
		ASSERT_EQ(hot_ref(&h, 7, 1, 99), 0);
	ASSERT_EQ(hot_ref(&h, 9, 2, 99), 0);
	EXPECT_EQ(h.nr, 50000);
	EXPECT_EQ(h.refs, 150011);
	EXPECT_LE(h.ids.cap, 2048);
	EXPECT_EQ(h.ids.nr, 1000);
	EXPECT_EQ(h.old.nr, 49000);
	ASSERT_EQ(hot_top(&h, top, 3), 3);
	/* page 7 under tag 1: 3 + 10, its aux from its first reference */
	EXPECT_EQ(top[0].page, 7);
	EXPECT_EQ(top[0].tag, 1);
	EXPECT_EQ(top[0].refs, 13);
	EXPECT_EQ(top[0].aux, 1);
	EXPECT_EQ(top[1].page, 9);
	EXPECT_EQ(top[1].tag, 2);
	EXPECT_EQ(top[1].refs, 4);
	/* then the ties at 3 references: the lowest page, the lowest tag */
	EXPECT_EQ(top[2].page, 0);
	EXPECT_EQ(top[2].tag, 1);
	hot_free(&h);
}

KTAP_MAIN()
