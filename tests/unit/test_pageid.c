// SPDX-License-Identifier: GPL-2.0
/*
 * test_pageid - tools/lib/pageid.c: dense ids in order of first sight,
 * and the caller's bytes in a page's slot, kept through the table's
 * growth, in slots of every size.
 */
#include <stdint.h>
#include <string.h>
#include "ktap.h"
#include "lib/pageid.h"
#include "naive.h"

TEST(ids_are_dense_in_order_of_first_sight)
{
	struct pgid_map m = { 0 };
	uint64_t x = 5;

	for (uint64_t i = 0; i < 100000; i++)
		ASSERT_EQ(pgid_get(&m, i * 0x1001 + 7), (int64_t)i);
	for (int k = 0; k < 100000; k++) {
		uint64_t i = naive_rand(&x) % 100000;

		ASSERT_EQ(pgid_get(&m, i * 0x1001 + 7), (int64_t)i);
		ASSERT_EQ(pgid_lookup(&m, i * 0x1001 + 7)->id, i);
	}
	EXPECT_EQ(m.nr, 100000);
	EXPECT_EQ(pgid_lookup(&m, 3) == NULL, 1);
	/* the largest page a map takes */
	EXPECT_EQ(pgid_get(&m, PGID_PAGE_MAX), 100000);
	EXPECT_EQ(pgid_lookup(&m, PGID_PAGE_MAX)->id, 100000);
	pgid_free(&m);
}

/*
 * Each size of the caller's data: a new page's bytes are zero, and what
 * the caller wrote stays with the page as the table doubles under it.
 */
TEST(the_callers_bytes_follow_the_page)
{
	static const size_t sizes[] = { 0, 4, 5, 20, 52, 116, PGID_DATA_MAX };

	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		struct pgid_map m = { 0 };
		size_t n = sizes[k] < 4 ? 4 : sizes[k];
		unsigned char want[PGID_DATA_MAX];

		ASSERT_EQ(pgid_set_data(&m, sizes[k]), 0);
		EXPECT_GE((size_t)16 << m.order, PGID_DATA_OFF + sizes[k]);
		for (uint64_t p = 0; p < 20000; p++) {
			struct pgid_slot *s = pgid_slot(&m, p * 977);
			unsigned char *d = pgid_data(s, 0);

			for (size_t b = 0; b < n; b++)
				ASSERT_EQ(d[b], 0);
			memset(d, (int)(p % 251) + 1, n);
		}
		for (uint64_t p = 0; p < 20000; p++) {
			struct pgid_slot *s = pgid_lookup(&m, p * 977);

			ASSERT_EQ(s != NULL, 1);
			ASSERT_EQ(s->id, p);
			memset(want, (int)(p % 251) + 1, n);
			ASSERT_EQ(memcmp(pgid_data(s, 0), want, n), 0);
		}
		/* too late once a page is in */
		EXPECT_EQ(pgid_set_data(&m, 4), -1);
		pgid_free(&m);
	}
}

TEST(too_much_data_is_refused)
{
	struct pgid_map m = { 0 };

	EXPECT_EQ(pgid_set_data(&m, PGID_DATA_MAX + 1), -1);
	EXPECT_EQ(pgid_set_data(&m, PGID_DATA_MAX), 0);
	EXPECT_EQ(16 << m.order, 256);
}

KTAP_MAIN()
