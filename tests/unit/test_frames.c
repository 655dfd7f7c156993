// SPDX-License-Identifier: GPL-2.0
/*
 * test_frames - tools/lib/frames.c: the frames of a trace's faults per
 * node and per page size, and the spatial view (blocks x time), against a
 * brute-force replay on random traces: every fault kept, the distinct
 * frames found by a linear search of the frames seen (with the node and
 * size of their first fault), each fault binned by hand with the final
 * interval into the cell of its block. A hand-worked trace checks the
 * interval's doubling and the faults that carry no frame.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "ktap.h"
#include "lib/frames.h"

static unsigned long long rnd(unsigned long long *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static struct pgft_rec fault(unsigned long long t, unsigned long long pfn,
			     int node, unsigned int order, int level)
{
	struct pgft_rec r;

	memset(&r, 0, sizeof(r));
	r.type = PGFT_FAULT;
	r.time = t;
	r.result = PGFT_MINOR;
	r.has_frame = true;
	r.pfn = pfn;
	r.node = node;
	r.order = order;
	r.level = level;
	return r;
}

TEST(a_hand_worked_trace)
{
	struct frames f;
	struct pgft_rec r;

	ASSERT_EQ(frames_init(&f, 4096, 1 << 20, 4), 0);	/* 256 pages a block */
	r = fault(1000000000, 10, 0, 0, PGFT_PTE);
	ASSERT_EQ(frames_fault(&f, &r), 0);
	r = fault(1000500000, 300, 1, 9, PGFT_PMD);		/* block 1, column 0 */
	ASSERT_EQ(frames_fault(&f, &r), 0);
	r = fault(1003000000, 10, 0, 0, PGFT_PTE);		/* column 3 */
	ASSERT_EQ(frames_fault(&f, &r), 0);
	EXPECT_EQ(f.interval, 1000000);
	/* 9 ms: the interval doubles twice, to 4 ms; columns 0, 0 and 0, 2 */
	r = fault(1009000000, 600, PGFT_NO_NODE, 0, PGFT_PTE);
	ASSERT_EQ(frames_fault(&f, &r), 0);
	EXPECT_EQ(f.interval, 4000000);
	r.has_frame = false;					/* no frame */
	ASSERT_EQ(frames_fault(&f, &r), 0);
	r.result = PGFT_SIGSEGV;				/* not counted */
	ASSERT_EQ(frames_fault(&f, &r), 0);
	EXPECT_EQ(f.faults, 5);
	EXPECT_EQ(f.with_frame, 4);
	EXPECT_EQ(frames_distinct(&f), 3);
	EXPECT_EQ(f.node[1].faults, 2);
	EXPECT_EQ(f.node[1].frames, 1);
	EXPECT_EQ(f.node[2].faults, 1);
	EXPECT_EQ(f.node[0].faults, 1);			/* no node */
	EXPECT_EQ(f.size[9][PGFT_PMD].faults, 1);
	EXPECT_EQ(f.size[0][PGFT_PTE].frames, 2);
	frames_sort_rows(&f);
	ASSERT_EQ(f.nrows, 3);
	EXPECT_EQ(f.rows[0].block, 0);
	EXPECT_EQ(f.rows[0].cells[0], 2);			/* 0 and 3 ms */
	EXPECT_EQ(f.rows[1].block, 1);
	EXPECT_EQ(f.rows[1].cells[0], 1);
	EXPECT_EQ(f.rows[2].block, 2);
	EXPECT_EQ(f.rows[2].node, PGFT_NO_NODE);
	EXPECT_EQ(f.rows[2].cells[2], 1);			/* 9 ms: 8-12 */
	EXPECT_EQ(frames_cols(&f), 3);
	frames_free(&f);
	errno = 0;
	EXPECT_EQ(frames_init(&f, 4096, 3 << 20, 4), -1);	/* not a power of 2 */
	EXPECT_EQ(errno, EINVAL);
	EXPECT_EQ(frames_init(&f, 4096, 2048, 4), -1);	/* below a page */
}

struct seen {
	unsigned long long pfn;
	int node;
	unsigned int order, level;
};

static void random_trace(unsigned long long seed, size_t n, unsigned int width)
{
	unsigned long long x = seed, t = 5000;
	struct pgft_rec *v = calloc(n, sizeof(*v));
	struct seen *s = calloc(n, sizeof(*s));
	uint64_t node_f[9] = { 0 }, node_d[9] = { 0 };
	uint64_t size_f[10][3] = { { 0 } }, size_d[10][3] = { { 0 } };
	size_t ns = 0, with = 0, wrong = 0;
	struct frames f;

	ASSERT_TRUE(v && s);
	ASSERT_EQ(frames_init(&f, 4096, 1 << 22, width), 0);	/* 1024 pages */
	for (size_t i = 0; i < n; i++) {
		unsigned long long pfn = rnd(&x) % (i % 3 ? 5000 : 400000);
		int node = (int)(pfn / 50000 % 9) - 1;

		t += rnd(&x) % (i < n / 2 ? 20000 : 3000000);
		v[i] = fault(t, pfn, node, pfn % 10, pfn % 3);
		v[i].has_frame = rnd(&x) % 17 != 0;
		ASSERT_EQ(frames_fault(&f, &v[i]), 0);
	}
	for (size_t i = 0; i < n; i++) {
		size_t k;

		if (!v[i].has_frame)
			continue;
		with++;
		node_f[v[i].node + 1]++;
		size_f[v[i].order][v[i].level]++;
		for (k = 0; k < ns && s[k].pfn != v[i].pfn; k++)
			;
		if (k == ns) {
			s[ns++] = (struct seen){ v[i].pfn, v[i].node, v[i].order,
						 v[i].level };
			node_d[v[i].node + 1]++;
			size_d[v[i].order][v[i].level]++;
		}
	}
	EXPECT_EQ(f.faults, n);
	EXPECT_EQ(f.with_frame, with);
	EXPECT_EQ(frames_distinct(&f), ns);
	for (int i = 0; i < 9; i++)
		if ((size_t)i < f.nnode)
			wrong += f.node[i].faults != node_f[i] ||
				 f.node[i].frames != node_d[i];
		else
			wrong += node_f[i] != 0;
	for (int o = 0; o < 10; o++)
		for (int l = 0; l < 3; l++)
			wrong += f.size[o][l].faults != size_f[o][l] ||
				 f.size[o][l].frames != size_d[o][l];
	EXPECT_EQ(wrong, 0);
	/* every cell: the faults in its block and its column, binned by hand */
	frames_sort_rows(&f);
	ktap_diag("%zu faults, %zu frames, %zu blocks, %u columns of %llu ns",
		  n, ns, f.nrows, frames_cols(&f), (unsigned long long)f.interval);
	{
		uint64_t t0 = 0, total = 0;
		bool first = true;

		for (size_t i = 0; i < n; i++)
			if (v[i].has_frame && first) {
				t0 = v[i].time;
				first = false;
			}
		for (size_t r = 0; r < f.nrows; r++)
			for (unsigned int c = 0; c < width; c++) {
				uint64_t want = 0;

				for (size_t i = 0; i < n; i++)
					want += v[i].has_frame &&
						v[i].pfn * 4096 / (1 << 22) == f.rows[r].block &&
						(v[i].time - t0) / f.interval == c;
				wrong += f.rows[r].cells[c] != want;
				total += f.rows[r].cells[c];
			}
		EXPECT_EQ(total, with);
		EXPECT_EQ(wrong, 0);
		for (size_t r = 1; r < f.nrows; r++)
			EXPECT_TRUE(f.rows[r - 1].block < f.rows[r].block);
	}
	frames_free(&f);
	free(v);
	free(s);
}

TEST(random_traces_against_brute_force)
{
	random_trace(1, 2000, 64);
	random_trace(7, 5000, 13);
	random_trace(99, 3000, 1);
}

KTAP_MAIN()
