// SPDX-License-Identifier: GPL-2.0
/*
 * test_prefetch - tools/lib/prefetch.c: next-page shares and same-stride
 * runs on a hand-worked string, and the next-N prefetch model against a
 * brute-force replay (a present bit per page, N pages set on each
 * trigger) for every N = 1 .. 64 and both triggers, on random strings:
 * small pages, pages around 64-page block boundaries anywhere up to
 * 2^64 - 2 with regions ending mid-block, and sparse pages scattered
 * over 2^52 mixed with dense clusters; and, where regions move, against
 * a replay of the per-page look-back the counts are defined by; each
 * also with the 32-bit clock running out (the times renumbered) often.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <stdint.h>
#include "ktap.h"
#include "lib/prefetch.h"
#include "naive.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Sum of avoided_every[1 .. n]: the faults next-n avoids, every trigger. */
static uint64_t every(const struct prefetch *pf, unsigned int n)
{
	uint64_t s = 0;

	for (unsigned int d = 1; d <= n; d++)
		s += pf->avoided_every[d];
	return s;
}

/*
 * Pages 10 11 12 13 20 22 24 5 6, one region [0, 100):
 *   strides       1  1  1  7  2  2 -19  1
 *   runs: 1 1 1 (3) | 7 (1) | 2 2 (2) | -19 (1) | 1 (1)
 *   next-page: 11 12 13 6: 4 of 9
 * Prefetch next-1, demand trigger: 10 real, brings 11: 11 avoided (no
 * trigger), 12 real, brings 13: avoided; 20, 22, 24, 5 real, 6 avoided:
 * 3. Every trigger: 11 brings 12, 12 brings 13: 10 real, 11 12 13
 * avoided, 20 22 24 5 real, 6 avoided: 4. Next-2, every trigger: 22
 * (from 20) and 24 (from 22) too: 6.
 */
TEST(hand_worked_string)
{
	static const uint64_t pages[] = { 10, 11, 12, 13, 20, 22, 24, 5, 6 };
	struct prefetch pf;

	prefetch_init(&pf);
	for (size_t i = 0; i < N(pages); i++)
		ASSERT_EQ(prefetch_ref(&pf, pages[i], 1, 100), 0);
	prefetch_end(&pf);
	EXPECT_EQ(pf.refs, 9);
	EXPECT_EQ(pf.next_page, 4);
	EXPECT_EQ(pf.reg[1].faults, 9);
	EXPECT_EQ(pf.reg[1].next_page, 4);
	EXPECT_EQ(pf.runs[1], 3);		/* length 1 */
	EXPECT_EQ(pf.runs[2], 2);		/* 2-3: the 3 and the 2 */
	EXPECT_EQ(pf.run_strides[2], 5);
	EXPECT_EQ(pf.avoided_demand[0], 3);	/* N = 1 */
	EXPECT_EQ(every(&pf, 1), 4);
	EXPECT_EQ(every(&pf, 2), 6);
	/* A region's end stops the prefetch: 11 is past [0, 11). */
	prefetch_free(&pf);
	prefetch_init(&pf);
	ASSERT_EQ(prefetch_ref(&pf, 10, 1, 11), 0);
	ASSERT_EQ(prefetch_ref(&pf, 11, 2, 20), 0);
	EXPECT_EQ(every(&pf, 64), 0);
	EXPECT_EQ(pf.reg[2].next_page, 0);	/* another region's */
	EXPECT_EQ(pf.next_page, 1);
	prefetch_free(&pf);
}

/* The end of the region that holds page @p: regions of 1 to 40 pages. */
static uint64_t region_end(uint64_t p, uint64_t *tag)
{
	static const uint64_t ends[] = { 3, 40, 41, 60, 100, 140, 150, 220, 260, 300 };

	for (size_t i = 0; i < N(ends); i++)
		if (p < ends[i]) {
			*tag = i + 1;
			return ends[i];
		}
	*tag = 0;
	return p + 1;
}

static uint64_t brute(const uint64_t *pages, size_t n, unsigned int pn, bool all)
{
	static bool present[400];
	uint64_t avoided = 0, tag;

	memset(present, 0, sizeof(present));
	for (size_t t = 0; t < n; t++) {
		uint64_t p = pages[t], e = region_end(p, &tag);
		bool hit = present[p];

		avoided += hit;
		present[p] = false;
		if (hit && !all)
			continue;
		for (uint64_t k = 1; k <= pn && p + k < e; k++)
			present[p + k] = true;
	}
	return avoided;
}

TEST(random_strings_match_a_replay)
{
	static uint64_t pages[1500];
	uint64_t x = 0x1234567887654321ULL;

	for (int round = 0; round < 150; round++) {
		size_t n = naive_rand(&x) % N(pages);
		uint64_t p = naive_rand(&x) % 300, next_page = 0, runs[PF_BINS] = { 0 };
		uint64_t run = 0, tag;
		int64_t stride = 0;
		struct prefetch pf;

		/* Sequential stretches, strided ones, jumps and repeats. */
		for (size_t t = 0; t < n; t++) {
			uint64_t r = naive_rand(&x) % 10;

			p = r < 5 ? p + 1 : r < 7 ? p + 1 + naive_rand(&x) % 4 :
			    r < 8 ? p : naive_rand(&x) % 300;
			pages[t] = p % 300;
			p = pages[t];
		}
		prefetch_init(&pf);
		for (size_t t = 0; t < n; t++) {
			uint64_t e = region_end(pages[t], &tag);

			ASSERT_EQ(prefetch_ref(&pf, pages[t], tag, e), 0);
		}
		prefetch_end(&pf);
		for (unsigned int pn = 1; pn <= PF_MAX; pn++)
			ASSERT_EQ(every(&pf, pn), brute(pages, n, pn, true));
		for (unsigned int k = 0; k < PF_GRID; k++)
			ASSERT_EQ(pf.avoided_demand[k],
				  brute(pages, n, prefetch_grid[k], false));
		/* Next-page and runs, counted plainly. */
		for (size_t t = 1; t < n; t++) {
			int64_t s = (int64_t)(pages[t] - pages[t - 1]);

			next_page += pages[t] == pages[t - 1] + 1;
			if (run && s != stride) {
				runs[64 - __builtin_clzll(run)]++;
				run = 0;
			}
			stride = s;
			run++;
		}
		if (run)
			runs[64 - __builtin_clzll(run)]++;
		EXPECT_EQ(pf.next_page, next_page);
		for (int b = 0; b < PF_BINS; b++)
			ASSERT_EQ(pf.runs[b], runs[b]);
		prefetch_free(&pf);
	}
}

/*
 * The pages of a string and the 64 after each, sorted, without repeats:
 * per-page state for the replays below at any page numbers, found by
 * binary search; the pages p + 1 .. p + 64 sit right after p.
 */
struct universe {
	uint64_t *v;
	size_t n;
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void universe_init(struct universe *u, const uint64_t *pages, size_t n)
{
	size_t j = 0;

	u->v = malloc((n * (PF_MAX + 1) + 1) * sizeof(*u->v));
	u->n = 0;
	for (size_t t = 0; t < n; t++)
		for (uint64_t k = 0; k <= PF_MAX && pages[t] + k >= pages[t]; k++)
			u->v[u->n++] = pages[t] + k;
	qsort(u->v, u->n, sizeof(*u->v), cmp_u64);
	for (size_t i = 0; i < u->n; i++)
		if (!j || u->v[i] != u->v[j - 1])
			u->v[j++] = u->v[i];
	u->n = j;
}

/* @p's index, or -1 when it is not in @u. */
static int64_t universe_find(const struct universe *u, uint64_t p)
{
	size_t lo = 0, hi = u->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (u->v[mid] < p)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < u->n && u->v[lo] == p ? (int64_t)lo : -1;
}

/* The distinct pages of @pages. */
static uint64_t distinct(const uint64_t *pages, size_t n)
{
	uint64_t *v = malloc((n + 1) * sizeof(*v)), d = 0;

	memcpy(v, pages, n * sizeof(*v));
	qsort(v, n, sizeof(*v), cmp_u64);
	for (size_t i = 0; i < n; i++)
		d += !i || v[i] != v[i - 1];
	free(v);
	return d;
}

/*
 * The model, replayed: a present bit per page; a trigger on p at time t
 * sets p + 1 .. p + N below the end of p's region at t (@ends[t]).
 */
static uint64_t replay(const struct universe *u, const uint64_t *pages,
		       const uint64_t *ends, size_t n, unsigned int pn, bool all)
{
	bool *present = calloc(u->n, sizeof(*present));
	uint64_t avoided = 0;

	for (size_t t = 0; t < n; t++) {
		uint64_t p = pages[t];
		size_t i = universe_find(u, p);
		bool hit = present[i];

		avoided += hit;
		present[i] = false;
		if (hit && !all)
			continue;
		for (uint64_t k = 1; k <= pn && p + k > p && p + k < ends[t]; k++)
			present[i + k] = true;
	}
	free(present);
	return avoided;
}

/*
 * The counts as the look-back of prefetch.h defines them, page by page:
 * each page's last fault time, its region's end then, and its last
 * demand trigger per grid size; a fault looks up each of the 64 pages
 * before it. The model's replay gives the same where regions stay put;
 * this also where they move.
 */
static void lookback(const struct universe *u, const uint64_t *pages,
		     const uint64_t *ends, size_t n, uint64_t *every,
		     uint64_t *demand)
{
	uint64_t (*st)[2 + PF_GRID] = calloc(u->n, sizeof(*st));

	memset(every, 0, (PF_MAX + 1) * sizeof(*every));
	memset(demand, 0, PF_GRID * sizeof(*demand));
	for (size_t t = 0; t < n; t++) {
		uint64_t p = pages[t], last;
		size_t i = universe_find(u, p);
		unsigned int e = 0, dm = 0;

		last = st[i][0];
		for (unsigned int d = 1; d <= PF_MAX && d <= p; d++) {
			int64_t q = universe_find(u, p - d);

			if (q < 0 || !st[q][0] || st[q][0] <= last ||
			    p >= st[q][1])
				continue;
			if (!e)
				e = d;
			for (unsigned int k = 0; k < PF_GRID; k++)
				if (d <= prefetch_grid[k] && st[q][2 + k] > last)
					dm |= 1U << k;
		}
		every[e] += e != 0;
		for (unsigned int k = 0; k < PF_GRID; k++) {
			if (dm & (1U << k))
				demand[k]++;
			else
				st[i][2 + k] = t + 1;
		}
		st[i][0] = t + 1;
		st[i][1] = ends[t];
	}
	free(st);
}

/*
 * Run @pages (in regions @tags ending at @ends) through prefetch.c and
 * hold every count to the look-back's, and, if @model (the regions stay
 * put), to the replay's; next-page, runs and regions counted plainly.
 * Then again with a clock that runs out every 50 to 66 faults: the
 * times renumbered (as after 2^32 faults) change nothing.
 */
static void check(const uint64_t *pages, const uint64_t *tags,
		  const uint64_t *ends, size_t n, bool model)
{
	uint64_t every_lb[PF_MAX + 1], demand_lb[PF_GRID];
	uint64_t next_page = 0, runs[PF_BINS] = { 0 }, strides[PF_BINS] = { 0 };
	uint64_t run = 0, ntag = 0, *faults, *next, *prev;
	uint64_t every_rn[PF_MAX + 1], demand_rn[PF_GRID];
	int64_t stride = 0;
	struct universe u;
	struct prefetch pf;

	prefetch_init(&pf);
	pf.tmax = distinct(pages, n) + 2 + 50 + n % 17;
	for (size_t t = 0; t < n; t++)
		ASSERT_EQ(prefetch_ref(&pf, pages[t], tags[t], ends[t]), 0);
	EXPECT_LT(pf.now, pf.tmax);
	memcpy(every_rn, pf.avoided_every, sizeof(every_rn));
	memcpy(demand_rn, pf.avoided_demand, sizeof(demand_rn));
	prefetch_free(&pf);

	prefetch_init(&pf);
	for (size_t t = 0; t < n; t++)
		ASSERT_EQ(prefetch_ref(&pf, pages[t], tags[t], ends[t]), 0);
	prefetch_end(&pf);
	EXPECT_EQ(pf.refs, n);
	universe_init(&u, pages, n);
	EXPECT_EQ(pf.pages, distinct(pages, n));
	lookback(&u, pages, ends, n, every_lb, demand_lb);
	for (unsigned int d = 0; d <= PF_MAX; d++) {
		ASSERT_EQ(pf.avoided_every[d], every_lb[d]);
		ASSERT_EQ(every_rn[d], every_lb[d]);
	}
	for (unsigned int k = 0; k < PF_GRID; k++) {
		ASSERT_EQ(pf.avoided_demand[k], demand_lb[k]);
		ASSERT_EQ(demand_rn[k], demand_lb[k]);
	}
	if (model) {
		for (unsigned int pn = 1; pn <= PF_MAX; pn++)
			ASSERT_EQ(every(&pf, pn),
				  replay(&u, pages, ends, n, pn, true));
		for (unsigned int k = 0; k < PF_GRID; k++)
			ASSERT_EQ(pf.avoided_demand[k], replay(&u, pages, ends, n,
							       prefetch_grid[k], false));
	}
	for (size_t t = 1; t < n; t++) {
		int64_t st = (int64_t)(pages[t] - pages[t - 1]);

		next_page += pages[t] == pages[t - 1] + 1;
		if (run && st != stride) {
			runs[64 - __builtin_clzll(run)]++;
			strides[64 - __builtin_clzll(run)] += run;
			run = 0;
		}
		stride = st;
		run++;
	}
	if (run) {
		runs[64 - __builtin_clzll(run)]++;
		strides[64 - __builtin_clzll(run)] += run;
	}
	EXPECT_EQ(pf.next_page, next_page);
	for (int b = 0; b < PF_BINS; b++) {
		ASSERT_EQ(pf.runs[b], runs[b]);
		ASSERT_EQ(pf.run_strides[b], strides[b]);
	}
	for (size_t t = 0; t < n; t++)
		ntag = tags[t] >= ntag ? tags[t] + 1 : ntag;
	faults = calloc(3 * ntag + 1, sizeof(*faults));
	next = faults + ntag;
	prev = next + ntag;
	for (size_t t = 0; t < n; t++) {
		faults[tags[t]]++;
		next[tags[t]] += prev[tags[t]] && pages[t] == prev[tags[t]];
		prev[tags[t]] = pages[t] + 1;
	}
	ASSERT_GE(pf.nreg, ntag);
	for (size_t g = 0; g < pf.nreg; g++) {
		ASSERT_EQ(pf.reg[g].faults, g < ntag ? faults[g] : 0);
		ASSERT_EQ(pf.reg[g].next_page, g < ntag ? next[g] : 0);
	}
	free(faults);
	free(u.v);
	prefetch_free(&pf);
}

/*
 * Pages around 64-page block boundaries: 0 .. 319 from a base, in
 * regions ending on, just before and just after multiples of 64 of the
 * base, and elsewhere, or in one region over it all; bases of 0 (pages
 * 0 .. 63 have no block before), off a multiple of 64, near 2^52 (4 KiB
 * pages of a 64-bit address space) and near 2^64. Ascending and
 * descending sweeps (new pages above and below those of their block),
 * strides of 63, 64 and 65, and random walks.
 */
TEST(block_boundaries_match_a_replay)
{
	static const uint64_t bases[] = {
		0, 1, 37, 63, 64, 1000, (1ULL << 52) - 320, (1ULL << 52) - 37,
		(1ULL << 52) + 5, UINT64_MAX - 400, UINT64_MAX - 365,
	};
	static const uint64_t rends[] = {
		3, 40, 63, 64, 65, 100, 127, 128, 129, 150, 191, 192, 193, 255,
		256, 300, 330,
	};
	static uint64_t pages[1200], tags[1200], ends[1200];
	uint64_t x = 0x5eed5eed5eed5eedULL;

	for (size_t bi = 0; bi < N(bases); bi++)
		for (int shape = 0; shape < 16; shape++) {
			uint64_t base = bases[bi], o = naive_rand(&x) % 320;
			bool coarse = shape >= 8;	/* one region, or many */
			size_t n = 200 + naive_rand(&x) % 1000;

			for (size_t t = 0; t < n; t++) {
				uint64_t r = naive_rand(&x) % 10;

				switch (shape % 8) {
				case 0:		/* up */
					o = t % 320;
					break;
				case 1:		/* down */
					o = 319 - t % 320;
					break;
				case 2:
				case 3:
				case 4:		/* strides 63, 64, 65 */
					o = (o + 61 + shape % 8) % 320;
					break;
				case 5:		/* down by 2 .. 4, and jumps */
					o = r ? (o + 320 - 2 - r % 3) % 320 :
					    naive_rand(&x) % 320;
					break;
				default:	/* runs, strides, repeats, jumps */
					o = r < 5 ? o + 1 :
					    r < 7 ? o + 1 + naive_rand(&x) % 4 :
					    r < 8 ? o : naive_rand(&x) % 320;
					o %= 320;
					break;
				}
				pages[t] = base + o;
				tags[t] = 0;
				ends[t] = pages[t] + 1;
				for (size_t i = 0; i < N(rends); i++)
					if (o < rends[i] && base + rends[i] > base &&
					    (!coarse || rends[i] == 330)) {
						tags[t] = i + 1;
						ends[t] = base + rends[i];
						break;
					}
			}
			check(pages, tags, ends, n, true);
		}
}

/*
 * Sparse and dense together: clusters of nearby pages (each a region of
 * its own, ending mid-block or beyond) at random places below 2^52,
 * lone pages anywhere below 2^52 (a block each), and revisits of both.
 */
TEST(sparse_and_dense_pages_match_a_replay)
{
	static uint64_t pages[3000], tags[3000], ends[3000];
	uint64_t x = 0xfeedfacecafebeefULL;

	for (int round = 0; round < 40; round++) {
		uint64_t start[8], len[8], lone[64];
		size_t n = 500 + naive_rand(&x) % 2500;

		for (int c = 0; c < 8; c++) {
			start[c] = naive_rand(&x) % (1ULL << 52);
			len[c] = 1 + naive_rand(&x) % 300;
		}
		for (int i = 0; i < 64; i++)
			lone[i] = naive_rand(&x) % (1ULL << 52);
		for (size_t t = 0; t < n; t++) {
			uint64_t r = naive_rand(&x) % 16, c = naive_rand(&x) % 8;

			if (r < 3) {		/* a lone page */
				pages[t] = lone[naive_rand(&x) % 64];
				tags[t] = 0;
				ends[t] = pages[t] + 1;
				continue;
			}
			if (r < 9 && t && tags[t - 1])	/* on in the cluster */
				c = tags[t - 1] - 1;
			pages[t] = r < 9 && t && tags[t - 1] ?
				   pages[t - 1] + 1 + naive_rand(&x) % 3 :
				   start[c] + naive_rand(&x) % len[c];
			if (pages[t] >= start[c] + len[c])
				pages[t] = start[c];
			tags[t] = c + 1;
			ends[t] = start[c] + len[c];
		}
		check(pages, tags, ends, n, true);
	}
}

/*
 * Regions that move: a page's region end changes between its faults
 * (mremap, a region replaced). The "demand" look-back takes the reach a
 * page's region had at its last fault, not at its last trigger, which
 * tells apart from the model only here: 10 triggers (end 100), 9 brings
 * 10 in, 10's fault is avoided under end 11 (no trigger), and 11 counts
 * as not brought in. Then random strings with random ends, against the
 * look-back.
 */
TEST(moving_regions_match_the_lookback)
{
	static uint64_t pages[1500], tags[1500], ends[1500];
	static const uint64_t hp[] = { 10, 9, 10, 11 };
	static const uint64_t he[] = { 100, 100, 11, 100 };
	uint64_t x = 0xabcdef0123456789ULL, one[4] = { 1, 1, 1, 1 };
	struct prefetch pf;

	prefetch_init(&pf);
	for (size_t t = 0; t < N(hp); t++)
		ASSERT_EQ(prefetch_ref(&pf, hp[t], 1, he[t]), 0);
	EXPECT_EQ(pf.avoided_demand[0], 1);	/* the model: 2 */
	EXPECT_EQ(pf.avoided_every[1], 1);
	prefetch_free(&pf);
	check(hp, one, he, N(hp), false);
	for (int round = 0; round < 60; round++) {
		uint64_t base = round % 3 ? naive_rand(&x) % (1ULL << 52) : 0;
		uint64_t p = 0;
		size_t n = naive_rand(&x) % N(pages);

		for (size_t t = 0; t < n; t++) {
			uint64_t r = naive_rand(&x) % 10;

			p = r < 5 ? p + 1 : r < 7 ? p + 1 + naive_rand(&x) % 4 :
			    r < 8 ? p : naive_rand(&x) % 300;
			p %= 300;
			pages[t] = base + p;
			tags[t] = 1 + naive_rand(&x) % 5;
			/* Mostly ahead, by 0 .. 99 pages; sometimes at or before. */
			ends[t] = naive_rand(&x) % 8 ?
				  pages[t] + naive_rand(&x) % 100 :
				  base + naive_rand(&x) % 300;
		}
		check(pages, tags, ends, n, false);
	}
}

/* Memory follows the distinct pages: a million faults on 2,000 pages. */
TEST(memory_is_bounded_by_the_pages)
{
	struct prefetch pf;
	uint64_t x = 7;

	prefetch_init(&pf);
	for (int t = 0; t < 1000000; t++)
		ASSERT_EQ(prefetch_ref(&pf, naive_rand(&x) % 2000, 0, 1 << 20), 0);
	EXPECT_EQ(pf.pages, 2000);
	EXPECT_EQ(pf.nblk, 32);			/* 2000 / 64, rounded up */
	EXPECT_LE(pf.cap, 64);
	prefetch_free(&pf);
	/* Scattered pages: a block each, and a table of about that size. */
	prefetch_init(&pf);
	for (int t = 0; t < 100000; t++)
		ASSERT_EQ(prefetch_ref(&pf, naive_rand(&x) % (1ULL << 52), 0,
				       1ULL << 53), 0);
	EXPECT_GE(pf.pages, 99990);
	EXPECT_LE(pf.pages, pf.nblk + 10);
	EXPECT_LE(pf.cap, 2 * 4 * pf.nblk / 3);
	prefetch_free(&pf);
	/*
	 * Renumbering needs room for a time per page and one more: 5 pages
	 * and a clock that runs out at 6 cannot go on; 4 can (renumbered at
	 * each fault).
	 */
	prefetch_init(&pf);
	pf.tmax = 6;
	for (int t = 0; t < 5; t++)
		ASSERT_EQ(prefetch_ref(&pf, 100 * t, 0, 1), 0);
	EXPECT_EQ(prefetch_ref(&pf, 0, 0, 1), -1);
	prefetch_free(&pf);
	prefetch_init(&pf);
	pf.tmax = 6;
	for (int t = 0; t < 100; t++)
		ASSERT_EQ(prefetch_ref(&pf, 100 * (t % 4), 0, 1), 0);
	prefetch_free(&pf);
	/* Not a page, as for pageid.h. */
	prefetch_init(&pf);
	EXPECT_EQ(prefetch_ref(&pf, UINT64_MAX, 0, UINT64_MAX), -1);
	EXPECT_EQ(prefetch_ref(&pf, UINT64_MAX - 1, 0, UINT64_MAX), 0);
	prefetch_free(&pf);
}

KTAP_MAIN()
