// SPDX-License-Identifier: GPL-2.0
/*
 * test_pcache - tools/lib/pcache.c: the per-file tallies of "cache"
 * records, on a hand-worked trace, and against a brute-force replay
 * (every page of every run counted by hand, a set of (file, page) pairs
 * for the distinct pages, the previous run's end kept per file) on random
 * traces of several processes and files; and the errors: a record of a
 * file no "file" record named.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "ktap.h"
#include "lib/pcache.h"

static struct pgft_rec file(unsigned long long id, const char *path)
{
	struct pgft_rec r;

	memset(&r, 0, sizeof(r));
	r.type = PGFT_FILE;
	r.id = id;
	r.major = 8;
	r.minor = 1;
	r.inode = 1000 + id;
	r.name = path;
	return r;
}

static struct pgft_rec ref(unsigned long long id, unsigned long long index,
			   unsigned long long pages, char access, int how)
{
	struct pgft_rec r;

	memset(&r, 0, sizeof(r));
	r.type = PGFT_CACHE;
	r.id = id;
	r.start = index;
	r.n[0] = pages;
	r.access = access;
	r.cache = how;
	r.name = r.text = "";
	return r;
}

/*
 * File 0, /a:  r 0+4 miss | r 4+12 readahead | r 4+4 hit | r 6+1 hit
 *              | w 100+2 miss | r 3+1 hit
 *   used: 4 + 4 + 1 + 2 + 1 = 12 pages; distinct 0-7, 100, 101: 10
 *   runs (not readahead): 5: 0+4 seq (page 0, first), 4+4 seq (4 ends
 *   the first), 6+1 random (the last ended at 8), 100+2 random, 3+1
 *   random; hit 4+1+1 = 6, miss 4+2 = 6, readahead 12
 * File 1, /b:  r 7+1 hole (random: not page 0), r 7+1 hole (seq: in the
 *   last page of the one before)
 */
TEST(hand_worked)
{
	struct pcache c;
	struct pgft_rec r;
	const struct pcache_file *a, *b;

	pcache_init(&c);
	r = file(0, "/a");
	ASSERT_EQ(pcache_file(&c, 7, &r), 0);
	r = file(1, "/b");
	ASSERT_EQ(pcache_file(&c, 7, &r), 0);
	struct pgft_rec refs[] = {
		ref(0, 0, 4, 'r', PGFT_MISS), ref(0, 4, 12, 'r', PGFT_READAHEAD),
		ref(0, 4, 4, 'r', PGFT_HIT), ref(0, 6, 1, 'r', PGFT_HIT),
		ref(0, 100, 2, 'w', PGFT_MISS), ref(0, 3, 1, 'r', PGFT_HIT),
		ref(1, 7, 1, 'r', PGFT_HOLE), ref(1, 7, 1, 'r', PGFT_HOLE),
	};
	for (size_t i = 0; i < sizeof(refs) / sizeof(refs[0]); i++)
		ASSERT_EQ(pcache_ref(&c, 7, &refs[i]), 0);
	a = pcache_find(&c, 7, 0);
	b = pcache_find(&c, 7, 1);
	ASSERT_TRUE(a && b && !pcache_find(&c, 8, 0));
	EXPECT_TRUE(!strcmp(a->path, "/a"));
	EXPECT_EQ(a->inode, 1000);
	EXPECT_EQ(pcache_used(&a->st), 12);
	EXPECT_EQ(a->st.distinct, 10);
	EXPECT_EQ(a->st.runs, 5);
	EXPECT_EQ(a->st.seq, 2);
	EXPECT_EQ(a->st.random, 3);
	EXPECT_EQ(a->st.pages[PGFT_HIT][0], 6);
	EXPECT_EQ(a->st.pages[PGFT_MISS][0], 4);
	EXPECT_EQ(a->st.pages[PGFT_MISS][1], 2);
	EXPECT_EQ(a->st.pages[PGFT_READAHEAD][0], 12);
	EXPECT_EQ(a->st.readahead_runs, 1);
	EXPECT_TRUE(pcache_hit_ratio(&a->st) == 0.5);
	EXPECT_EQ(b->st.pages[PGFT_HOLE][0], 2);
	EXPECT_EQ(b->st.seq, 1);
	EXPECT_EQ(b->st.random, 1);
	EXPECT_EQ(b->st.distinct, 1);
	EXPECT_EQ(pcache_used(&c.total), 14);
	EXPECT_EQ(c.total.distinct, 11);
	pcache_free(&c);
}

/* Pages far in a file (past the bitmap: a hash table's) count once too. */
TEST(far_pages)
{
	struct pcache c;
	struct pgft_rec r = file(0, "/big");
	unsigned long long far = PCACHE_BITMAP_PAGES - 2;

	pcache_init(&c);
	ASSERT_EQ(pcache_file(&c, 1, &r), 0);
	/* pages far .. far+3: two in the bitmap, two in the table */
	r = ref(0, far, 4, 'r', PGFT_MISS);
	ASSERT_EQ(pcache_ref(&c, 1, &r), 0);
	EXPECT_EQ(pcache_find(&c, 1, 0)->st.distinct, 4);
	/* far+3 .. far+5: in the last's last page (sequential), two new */
	r = ref(0, far + 3, 3, 'r', PGFT_HIT);
	ASSERT_EQ(pcache_ref(&c, 1, &r), 0);
	EXPECT_EQ(pcache_find(&c, 1, 0)->st.distinct, 6);
	EXPECT_EQ(pcache_find(&c, 1, 0)->st.seq, 1);
	EXPECT_EQ(pcache_find(&c, 1, 0)->st.random, 1);
	pcache_free(&c);
}

TEST(unnamed_file_is_an_error)
{
	struct pcache c;
	struct pgft_rec r = ref(3, 0, 1, 'r', PGFT_HIT);

	pcache_init(&c);
	errno = 0;
	EXPECT_EQ(pcache_ref(&c, 1, &r), -1);
	EXPECT_EQ(errno, EINVAL);
	r = file(3, "/x");
	ASSERT_EQ(pcache_file(&c, 2, &r), 0);
	/* the same id in another process is another file */
	r = ref(3, 0, 1, 'r', PGFT_HIT);
	EXPECT_EQ(pcache_ref(&c, 1, &r), -1);
	EXPECT_EQ(pcache_ref(&c, 2, &r), 0);
	pcache_free(&c);
}

/* The brute force: every page counted by hand. */
#define NP	3
#define NF	5
#define PAGES	300

struct naive {
	unsigned long long pages[NP][NF][PGFT_NCACHE][2];
	unsigned long long runs[NP][NF], seq[NP][NF], rnd[NP][NF];
	unsigned char used[NP][NF][PAGES];
	unsigned long long next[NP][NF];
	bool any[NP][NF];
};

TEST(against_brute_force)
{
	static struct naive nv;

	srand(48);
	for (int round = 0; round < 20; round++) {
		struct pcache c;

		memset(&nv, 0, sizeof(nv));
		pcache_init(&c);
		for (int p = 0; p < NP; p++)
			for (int f = 0; f < NF; f++) {
				struct pgft_rec r = file(f, "/f");

				ASSERT_EQ(pcache_file(&c, 100 + p, &r), 0);
			}
		for (int i = 0; i < 2000; i++) {
			int p = rand() % NP, f = rand() % NF, how = rand() % PGFT_NCACHE;
			char acc = rand() % 3 ? 'r' : 'w';
			unsigned long long n = 1 + rand() % 16, start;
			struct pgft_rec r;

			/* often where the last ended, or in its last page */
			start = nv.any[p][f] && rand() % 2 &&
				nv.next[p][f] + 16 < PAGES ?
				nv.next[p][f] - (rand() % 2) :
				(unsigned long long)(rand() % (PAGES - 16));
			r = ref(f, start, n, acc, how);
			ASSERT_EQ(pcache_ref(&c, 100 + p, &r), 0);
			nv.pages[p][f][how][acc == 'w'] += n;
			if (how == PGFT_READAHEAD)
				continue;
			nv.runs[p][f]++;
			if (nv.any[p][f] ? start == nv.next[p][f] ||
			    start + 1 == nv.next[p][f] : start == 0)
				nv.seq[p][f]++;
			else
				nv.rnd[p][f]++;
			nv.any[p][f] = true;
			nv.next[p][f] = start + n;
			for (unsigned long long k = start; k < start + n; k++)
				nv.used[p][f][k] = 1;
		}
		for (int p = 0; p < NP; p++)
			for (int f = 0; f < NF; f++) {
				const struct pcache_file *x = pcache_find(&c, 100 + p, f);
				unsigned long long d = 0;

				ASSERT_TRUE(x != NULL);
				for (int k = 0; k < PAGES; k++)
					d += nv.used[p][f][k];
				EXPECT_EQ(x->st.distinct, d);
				EXPECT_EQ(x->st.runs, nv.runs[p][f]);
				EXPECT_EQ(x->st.seq, nv.seq[p][f]);
				EXPECT_EQ(x->st.random, nv.rnd[p][f]);
				for (int h = 0; h < PGFT_NCACHE; h++)
					for (int w = 0; w < 2; w++)
						EXPECT_EQ(x->st.pages[h][w],
							  nv.pages[p][f][h][w]);
			}
		pcache_free(&c);
	}
}

KTAP_MAIN()
