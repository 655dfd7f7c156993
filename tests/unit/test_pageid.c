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
 * Each size of the caller's data, with ids and without: a new page's
 * bytes are zero, and what the caller wrote stays with the page as the
 * table doubles under it; with ids, they stay too.
 */
TEST(the_callers_bytes_follow_the_page)
{
	static const size_t sizes[] = { 0, 4, 5, 8, 20, 52, 116, PGID_DATA_MAX };

	for (size_t k = 0; k < 2 * sizeof(sizes) / sizeof(sizes[0]); k++) {
		bool ids = k & 1;
		size_t bytes = sizes[k / 2], at = ids ? PGID_DATA_OFF : PGID_NOID_OFF;
		size_t n = bytes < 4 && ids ? 4 : bytes;
		struct pgid_map m = { 0 };
		unsigned char want[PGID_DATA_MAX];

		ASSERT_EQ(pgid_set_data(&m, bytes, ids), 0);
		EXPECT_GE((size_t)16 << m.order, at + bytes);
		EXPECT_LE((size_t)8 << m.order, at + bytes);
		for (uint64_t p = 0; p < 20000; p++) {
			struct pgid_slot *s = pgid_slot(&m, p * 977);
			unsigned char *d = pgid_data(s, at);

			for (size_t b = 0; b < n; b++)
				ASSERT_EQ(d[b], 0);
			memset(d, (int)(p % 251) + 1, n);
		}
		EXPECT_EQ(m.nr, 20000);
		for (uint64_t p = 0; p < 20000; p++) {
			struct pgid_slot *s = pgid_lookup(&m, p * 977);

			ASSERT_TRUE(s != NULL);
			if (ids)
				ASSERT_EQ(s->id, p);
			memset(want, (int)(p % 251) + 1, n);
			ASSERT_EQ(memcmp(pgid_data(s, at), want, n), 0);
		}
		EXPECT_EQ(pgid_get(&m, 977), ids ? 1 : -1);
		/* too late once a page is in */
		EXPECT_EQ(pgid_set_data(&m, 4, true), -1);
		pgid_free(&m);
	}
}

TEST(too_much_data_is_refused)
{
	struct pgid_map m = { 0 };

	EXPECT_EQ(pgid_set_data(&m, PGID_DATA_MAX + 1, true), -1);
	EXPECT_EQ(pgid_set_data(&m, PGID_DATA_MAX, true), 0);
	EXPECT_EQ(16 << m.order, 256);
}

KTAP_MAIN()
