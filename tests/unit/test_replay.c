// SPDX-License-Identifier: GPL-2.0
/*
 * test_replay - tools/lib/pgftrace.c's replay of region records
 * (pgft_apply()): its table of regions by id, against a naive model that
 * keeps every region in an array indexed by id, on random map, change
 * and unmap records mixed with lookups by address (which sort) and
 * layouts, at up to 100,000 regions.
 */
#include <stdlib.h>
#include "ktap.h"
#include "lib/pgftrace.h"

#define MAXID 200000

/* The model: region id -> its start (0: none). Regions never overlap. */
static unsigned long long model_start[MAXID];
static size_t model_nr;

static unsigned long long rnd(unsigned long long *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void rec(struct pgft_rec *r, enum pgft_type type, unsigned long long id)
{
	memset(r, 0, sizeof(*r));
	r->type = type;
	r->id = id;
	/* Id i lives at page 2 * i: one page, never overlapping another. */
	r->start = (2 * id) << 12;
	r->end = r->start + 4096;
	memcpy(r->perms, "rw-p", 5);
	r->name = "";
}

/* Every region of the model is found by address and by nothing else. */
static int same(struct pgft_space *s)
{
	size_t found = 0;

	for (unsigned long long id = 1; id < MAXID; id++) {
		const struct pgft_region *g = pgft_find(s, (2 * id) << 12);

		if (!model_start[id] != !g)
			return -1;
		if (g && (g->id != id || g->start != model_start[id]))
			return -1;
		found += !!g;
	}
	return found == model_nr && s->nr == model_nr ? 0 : -1;
}

static void run(unsigned long long seed, unsigned long long ids, int steps)
{
	struct pgft_space s = { 0 };
	unsigned long long id;
	struct pgft_rec r;
	int bad = 0;

	memset(model_start, 0, sizeof(model_start));
	model_nr = 0;
	for (int i = 0; i < steps; i++) {
		unsigned long long x = rnd(&seed);

		id = 1 + x % ids;
		switch (x >> 32 & 7) {
		case 0: case 1: case 2:		/* map (a new id, or again) */
		case 3:				/* change */
			rec(&r, (x >> 32 & 7) == 3 ? PGFT_CHANGE : PGFT_MAP, id);
			pgft_apply(&s, &r);
			model_nr += !model_start[id];
			model_start[id] = r.start;
			break;
		case 4: case 5: case 6:		/* unmap, known or not */
			rec(&r, PGFT_UNMAP, id);
			pgft_apply(&s, &r);
			model_nr -= !!model_start[id];
			model_start[id] = 0;
			break;
		default:			/* a lookup by address: sorts */
			if (!!pgft_find(&s, r.start) != !!model_start[r.id])
				bad++;
			break;
		}
		if (x % 997 == 0) {		/* a layout forgets everything */
			rec(&r, PGFT_LAYOUT, 0);
			pgft_apply(&s, &r);
			memset(model_start, 0, sizeof(model_start));
			model_nr = 0;
		}
	}
	EXPECT_EQ(bad, 0);
	EXPECT_EQ(same(&s), 0);
	EXPECT_EQ(s.nr, model_nr);
	pgft_space_free(&s);
}

TEST(random_small) { run(1, 50, 20000); }
TEST(random_medium) { run(7, 5000, 200000); }

/* 100,000 regions mapped, then unmapped in another order: linear time. */
TEST(hundred_thousand_regions)
{
	struct pgft_space s = { 0 };
	unsigned long long seed = 3;
	struct pgft_rec r;

	memset(model_start, 0, sizeof(model_start));
	model_nr = 0;
	for (unsigned long long id = 1; id <= 100000; id++) {
		rec(&r, PGFT_MAP, id);
		pgft_apply(&s, &r);
		model_start[id] = r.start;
		model_nr++;
	}
	EXPECT_EQ(same(&s), 0);
	for (int i = 0; i < 60000; i++) {
		unsigned long long id = 1 + rnd(&seed) % 100000;

		rec(&r, PGFT_UNMAP, id);
		pgft_apply(&s, &r);
		model_nr -= !!model_start[id];
		model_start[id] = 0;
	}
	EXPECT_EQ(same(&s), 0);
	pgft_space_free(&s);
}

KTAP_MAIN()
