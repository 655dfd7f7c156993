// SPDX-License-Identifier: GPL-2.0
/*
 * test_changes - tools/lib/changes.c: the kernel's changes to a trace's
 * frames by kind and cause, per node, and the timeline per region,
 * against a brute-force replay on random change records: the causes
 * found by a linear search, the nodes' pages summed by hand, each record
 * binned by hand with the final interval into its region's cell. A
 * hand-worked trace checks the interval's doubling and the records
 * outside any region.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "ktap.h"
#include "lib/changes.h"

static unsigned long long rnd(unsigned long long *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static const char *const causes[] = { "numa", "syscall", "kswapd", "-" };

static struct pgft_rec change(unsigned long long t, enum pgft_change k,
			      const char *cause, unsigned long long pages,
			      int node, int new_node)
{
	struct pgft_rec r;

	memset(&r, 0, sizeof(r));
	r.type = PGFT_PAGES;
	r.change = k;
	r.text = cause;
	r.time = t;
	r.addr = 0x10000;
	r.n[0] = pages;
	r.node = node;
	r.new_node = new_node;
	r.pfn = r.new_pfn = PGFT_NO_PFN;
	return r;
}

TEST(a_hand_worked_trace)
{
	struct pgft_region a = { .id = 1, .start = 0x10000, .end = 0x20000, .name = "" };
	struct pgft_region b = { .id = 2, .start = 0x40000, .end = 0x50000, .name = "/lib" };
	struct changes c;
	struct pgft_rec r;

	ASSERT_EQ(changes_init(&c, 4), 0);
	r = change(1000000000, PGFT_MOVE, "numa", 1, 0, 1);
	ASSERT_EQ(changes_rec(&c, &r, &a, 7), 0);
	r = change(1000500000, PGFT_EVICT, "kswapd", 2, 1, PGFT_NO_NODE);
	ASSERT_EQ(changes_rec(&c, &r, &b, 7), 0);		/* column 0 */
	r = change(1003000000, PGFT_MOVE, "numa", 1, 0, 1);	/* column 3 */
	ASSERT_EQ(changes_rec(&c, &r, &a, 7), 0);
	EXPECT_EQ(c.interval, 1000000);
	/* 9 ms: the interval doubles twice, to 4 ms; columns 0, 0 and 0, 2 */
	r = change(1009000000, PGFT_SPLIT, "-", 512, 0, 0);
	ASSERT_EQ(changes_rec(&c, &r, &a, 7), 0);
	EXPECT_EQ(c.interval, 4000000);
	r = change(1009000000, PGFT_EVICT, "kswapd", 3, 0, PGFT_NO_NODE);
	ASSERT_EQ(changes_rec(&c, &r, NULL, 7), 0);		/* no region */
	r.type = PGFT_FAULT;					/* not a change */
	ASSERT_EQ(changes_rec(&c, &r, &a, 7), 0);
	EXPECT_EQ(c.records, 5);
	EXPECT_EQ(c.pages, 519);
	EXPECT_EQ(c.outside, 3);
	EXPECT_EQ(c.by_kind[PGFT_MOVE], 2);
	EXPECT_EQ(c.by_kind[PGFT_EVICT], 5);
	EXPECT_EQ(c.by_kind[PGFT_SPLIT], 512);
	EXPECT_EQ(c.ncauses, 3);
	EXPECT_EQ(c.node[1].moved_out, 2);	/* node 0 */
	EXPECT_EQ(c.node[2].moved_in, 2);	/* node 1 */
	EXPECT_EQ(c.node[2].evicted, 2);
	EXPECT_EQ(c.node[1].evicted, 3);
	EXPECT_EQ(c.nrows, 2);
	EXPECT_EQ(changes_cols(&c), 3);
	EXPECT_EQ(changes_cell(&c, 0, 0, PGFT_MOVE), 2);	/* 0 and 3 ms */
	EXPECT_EQ(changes_cell(&c, 0, 2, PGFT_SPLIT), 512);
	EXPECT_EQ(changes_cell(&c, 1, 0, PGFT_EVICT), 2);
	EXPECT_TRUE(!strcmp(c.rows[1].name, "/lib"));
	changes_free(&c);
	EXPECT_TRUE(changes_init(&c, 0) == -1 && errno == EINVAL);
}

#define NREC	5000
#define NREG	6

static struct pgft_rec recs[NREC];
static int reg_of[NREC];

static void random_trace(unsigned long long seed, unsigned int width)
{
	struct pgft_region regs[NREG];
	unsigned long long s = seed, t = 1000, interval = 1000000, *want_cells;
	unsigned long long in[8] = { 0 }, out[8] = { 0 }, ev[8] = { 0 };
	unsigned long long pages[PGFT_NCHANGE][4] = { { 0 } };
	struct changes c;
	size_t wrong = 0;

	for (int i = 0; i < NREG; i++)
		regs[i] = (struct pgft_region){ .id = 10 + i, .start = 0x1000 * i,
						.end = 0x1000 * (i + 1), .name = "" };
	ASSERT_EQ(changes_init(&c, width), 0);
	for (size_t i = 0; i < NREC; i++) {
		int k = rnd(&s) % PGFT_NCHANGE, cz = rnd(&s) % 4;
		int node = (int)(rnd(&s) % 4) - 1, to = (int)(rnd(&s) % 4) - 1;

		t += rnd(&s) % (1 + i / 50) * 1000;
		recs[i] = change(t, k, causes[cz], 1 + rnd(&s) % 600, node, to);
		reg_of[i] = (int)(rnd(&s) % (NREG + 1)) - 1;
		ASSERT_EQ(changes_rec(&c, &recs[i], reg_of[i] < 0 ? NULL :
				      &regs[reg_of[i]], 3), 0);
		pages[k][cz] += recs[i].n[0];
		if (k == PGFT_MOVE && node != to) {
			out[node + 1] += recs[i].n[0];
			in[to + 1] += recs[i].n[0];
		} else if (k == PGFT_EVICT) {
			ev[node + 1] += recs[i].n[0];
		}
	}
	/* the causes */
	for (size_t i = 0; i < c.ncauses; i++) {
		const struct changes_cause *k = &c.causes[i];
		int cz = 0;

		while (cz < 4 && strcmp(causes[cz], k->cause))
			cz++;
		ASSERT_TRUE(cz < 4);
		wrong += k->pages != pages[k->change][cz];
		pages[k->change][cz] = 0;
	}
	for (int k = 0; k < PGFT_NCHANGE; k++)
		for (int cz = 0; cz < 4; cz++)
			wrong += pages[k][cz] != 0;	/* a cause not found */
	/* the nodes */
	for (size_t i = 0; i < 8; i++) {
		struct changes_node n = { 0 };

		if (i < c.nnode)
			n = c.node[i];
		wrong += n.moved_in != in[i] || n.moved_out != out[i] ||
			 n.evicted != ev[i];
	}
	/*
	 * The timeline, binned by hand with the final interval, from the
	 * first record in a region.
	 */
	{
		unsigned long long t0 = 0;
		bool any = false;

		for (size_t i = 0; i < NREC && !any; i++)
			if (reg_of[i] >= 0) {
				t0 = recs[i].time;
				any = true;
			}
		interval = 1000000;
		while ((t - t0) / interval >= width)
			interval *= 2;
		EXPECT_EQ(c.interval, interval);
		want_cells = calloc((size_t)NREG * width * PGFT_NCHANGE,
				    sizeof(*want_cells));
		ASSERT_TRUE(want_cells != NULL);
		for (size_t i = 0; i < NREC; i++)
			if (reg_of[i] >= 0)
				want_cells[((size_t)reg_of[i] * width +
					    (recs[i].time - t0) / interval) *
					   PGFT_NCHANGE + recs[i].change] += recs[i].n[0];
	}
	for (size_t r = 0; r < c.nrows; r++) {
		size_t g = c.rows[r].id - 10;

		for (unsigned int col = 0; col < width; col++)
			for (int k = 0; k < PGFT_NCHANGE; k++)
				wrong += changes_cell(&c, r, col, k) !=
					 want_cells[(g * width + col) * PGFT_NCHANGE + k];
	}
	ktap_diag("seed %llu: %zu changes, %zu causes, %zu regions, interval %llu ns, %zu wrong",
		  seed, (size_t)c.records, c.ncauses, c.nrows,
		  (unsigned long long)c.interval, wrong);
	EXPECT_EQ(wrong, 0);
	EXPECT_EQ(c.nrows, NREG);
	free(want_cells);
	changes_free(&c);
}

TEST(random_traces_against_brute_force)
{
	random_trace(1, 64);
	random_trace(42, 7);
	random_trace(2026, 1);
}

KTAP_MAIN()
