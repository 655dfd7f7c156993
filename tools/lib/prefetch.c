// SPDX-License-Identifier: GPL-2.0
/*
 * prefetch - sequentiality and the next-N-pages prefetch model, exact in
 * one pass over the faults. See prefetch.h.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "prefetch.h"

const unsigned int prefetch_grid[PF_GRID] = { 1, 2, 4, 8, 16, 32, 64 };

#define PF_ALL ((1U << PF_GRID) - 1)	/* every grid size: a mask */
#define PF_REC 8			/* times per page: 1 + PF_GRID */

_Static_assert(PF_REC == 1 + PF_GRID, "a page's times are two vectors");

/* Four times, compared at once (SSE2 on x86-64; GCC's generic vectors). */
typedef uint32_t pf_v4 __attribute__((vector_size(16)));

void prefetch_init(struct prefetch *pf)
{
	memset(pf, 0, sizeof(*pf));
	pf->tmax = UINT32_MAX;
}

void prefetch_free(struct prefetch *pf)
{
	for (size_t i = 0; i < pf->cap; i++)
		free(pf->blk[i].st);
	free(pf->blk);
	free(pf->reg);
	memset(pf, 0, sizeof(*pf));
}

/* ---- a block's arrays ---------------------------------------------------- */

/*
 * The pages a block of @n pages has room for: n up to 4, then steps of
 * 1.5 or 4/3 (6, 8, 12, 16, 24, 32, 48, 64), so that a block of a few
 * scattered pages stays small and a filling one is moved a dozen times.
 */
static unsigned int blk_room(unsigned int n)
{
	unsigned int p;

	if (n <= 4)
		return n;
	p = 1U << (31 - __builtin_clz(n - 1));	/* the power of two below n */
	return n <= p + p / 2 ? p + p / 2 : 2 * p;
}

/*
 * A block's arrays, for room for @c pages: a record of PF_REC times per
 * page, its last fault's then its last demand trigger's per grid size
 * (32 bytes: a look-back reads the records below the faulting page's
 * one after the other, two to a cache line); then a byte per page, its
 * region's end at its last fault in pages from the block's start: 0 if
 * at or before the start, at most 128 (the farthest page that looks
 * back into a block is 127 pages from its start).
 */
static inline uint32_t *st_rec(uint32_t *st, unsigned int r)
{
	return st + (size_t)r * PF_REC;
}

static inline uint8_t *st_end(uint32_t *st, unsigned int c)
{
	return (uint8_t *)(st + (size_t)c * PF_REC);
}

static size_t st_size(unsigned int c)
{
	return (size_t)c * (PF_REC * sizeof(uint32_t) + 1);
}

/*
 * Make room at index @r of block @b's arrays, which hold @n pages (0 ..
 * n - 1, by page), for a new one, zeroed: in place when the room is
 * there, else in bigger arrays. -1 when out of memory, @b unchanged.
 */
static int st_insert(struct pf_block *b, unsigned int n, unsigned int r)
{
	unsigned int c = blk_room(n), nc = blk_room(n + 1);
	/* The records, then the ends: bytes per page of room, per item. */
	static const size_t sz[2] = { PF_REC * sizeof(uint32_t), 1 };
	char *st, *old = (char *)b->st;

	if (!n) {
		b->st = calloc(1, st_size(nc));
		return b->st ? 0 : -1;
	}
	st = nc == c ? old : malloc(st_size(nc));
	if (!st)
		return -1;
	for (int j = 0; j < 2; j++) {
		char *to = st + j * sz[0] * nc, *from = old + j * sz[0] * c;

		memmove(to + (r + 1) * sz[j], from + r * sz[j], (n - r) * sz[j]);
		if (st != old)
			memcpy(to, from, r * sz[j]);
		memset(to + r * sz[j], 0, sz[j]);
	}
	if (st != old) {
		free(old);
		b->st = (uint32_t *)st;
	}
	return 0;
}

/* ---- the table of blocks ------------------------------------------------- */

/* Block @key's slot (key = page / 64 + 1), or NULL. */
static struct pf_block *blk_find(const struct prefetch *pf, uint64_t key)
{
	if (!pf->cap)
		return NULL;
	for (size_t i = pgid_hash(key, pf->shift); pf->blk[i].key;
	     i = (i + 1) & (pf->cap - 1))
		if (pf->blk[i].key == key)
			return &pf->blk[i];
	return NULL;
}

/* Double the table, rehashing every block. */
static int blk_grow(struct prefetch *pf)
{
	size_t cap = pf->cap ? 2 * pf->cap : 64, j;
	unsigned int shift = 64 - __builtin_ctzll(cap);
	struct pf_block *v = calloc(cap, sizeof(*v));

	if (!v)
		return -1;
	for (size_t i = 0; i < pf->cap; i++) {
		if (!pf->blk[i].key)
			continue;
		for (j = pgid_hash(pf->blk[i].key, shift); v[j].key;
		     j = (j + 1) & (cap - 1))
			;
		v[j] = pf->blk[i];
	}
	free(pf->blk);
	pf->blk = v;
	pf->cap = cap;
	pf->shift = shift;
	return 0;
}

/* A new, empty block @key (not in the table), or NULL when out of memory. */
static struct pf_block *blk_add(struct prefetch *pf, uint64_t key)
{
	size_t i;

	/* At most 3/4 full. */
	if (4 * (pf->nblk + 1) > 3 * pf->cap && blk_grow(pf))
		return NULL;
	for (i = pgid_hash(key, pf->shift); pf->blk[i].key;
	     i = (i + 1) & (pf->cap - 1))
		;
	pf->blk[i].key = key;
	pf->blk[i].mask = 0;
	pf->blk[i].st = NULL;
	pf->nblk++;
	return &pf->blk[i];
}

/* ---- the clock ----------------------------------------------------------- */

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Renumber the times when the 32-bit clock runs out, keeping every
 * comparison the look-back makes: time v > time L, L a page's last
 * fault (or 0), v a last fault or a demand trigger. With the n last
 * faults sorted, v != 0 becomes 1 + (the last faults before v): v > L
 * iff more of them are before v than before L (L itself is), and 0
 * stays below the rest. The clock goes on from n, the most. -1 when out
 * of memory, or when that leaves no room (2^32 - 2 pages), as pageid.h
 * runs out of ids.
 */
static int renumber(struct prefetch *pf)
{
	uint32_t *lasts, n = 0;

	if (pf->pages + 1 >= pf->tmax)
		return -1;
	lasts = malloc((pf->pages + 1) * sizeof(*lasts));
	if (!lasts)
		return -1;
	for (size_t i = 0; i < pf->cap; i++) {
		int r = __builtin_popcountll(pf->blk[i].mask);

		while (r--)
			lasts[n++] = st_rec(pf->blk[i].st, r)[0];
	}
	qsort(lasts, n, sizeof(*lasts), cmp_u32);
	for (size_t i = 0; i < pf->cap; i++) {
		uint32_t *v = pf->blk[i].st;

		for (int j = __builtin_popcountll(pf->blk[i].mask) * PF_REC - 1;
		     j >= 0; j--) {
			uint32_t lo = 0, hi = n;

			if (!v[j])
				continue;
			while (lo < hi) {
				uint32_t mid = lo + (hi - lo) / 2;

				if (lasts[mid] < v[j])
					lo = mid + 1;
				else
					hi = mid;
			}
			v[j] = 1 + lo;
		}
	}
	free(lasts);
	pf->now = n;
	return 0;
}

/* ---- the faults ---------------------------------------------------------- */

static unsigned int bin(uint64_t k)
{
	return k ? 64 - __builtin_clzll(k) : 0;
}

static void end_run(struct prefetch *pf)
{
	if (pf->run) {
		pf->runs[bin(pf->run)]++;
		pf->run_strides[bin(pf->run)] += pf->run;
	}
	pf->run = 0;
}

/*
 * The grid sizes a page at distance d is within: k with prefetch_grid[k]
 * >= d, as a mask (the grid is 2^k, k = 0 .. 6).
 */
static const uint8_t within[PF_MAX + 1] = {
	[1] = 0x7f, [2] = 0x7e, [3 ... 4] = 0x7c, [5 ... 8] = 0x78,
	[9 ... 16] = 0x70, [17 ... 32] = 0x60, [33 ... 64] = 0x40,
};

/* What the look-back found so far. */
struct pf_seen {
	uint32_t last;		/* the faulting page's last fault, 0: none */
	unsigned int every;	/* the nearest trigger's distance, 0: none */
	unsigned int demand;	/* grid sizes that had the page in: a mask */
};

/*
 * Look at the pages of block @b in @win, nearest first: the faulting
 * page is @top pages from the block's start, so page i of the block at
 * distance top - i, and the highest page of @win has index @r in the
 * block's arrays. False once nothing farther can change what was seen:
 * when every size the next page is within had the faulting page (64 is
 * within every distance, so the nearest trigger was found then).
 *
 * A page q counts when its region reached the faulting page (top below
 * q's end) and it triggered after the faulting page's last fault: its
 * last fault for "every" (the nearest such q), its last demand trigger
 * for "demand" (no later than its last fault). Its 8 times are compared
 * as two vectors, without branches: whether a page counts is as good as
 * random in a random trace, and so would a branch on it be. The loop
 * steps through the places, not the mask's bits, to keep a bit scan off
 * its critical path.
 */
static inline bool look(const struct pf_block *b, uint64_t win, unsigned int top,
			int r, struct pf_seen *s)
{
	static const pf_v4 lo_bits = { 0, 1, 2, 4 }, hi_bits = { 8, 16, 32, 64 };
	static const pf_v4 swap2 = { 2, 3, 0, 1 }, swap1 = { 1, 0, 3, 2 };
	unsigned int c = blk_room(__builtin_popcountll(b->mask));
	const uint8_t *end = st_end(b->st, c);
	const pf_v4 last = { s->last, s->last, s->last, s->last };
	int low = __builtin_ctzll(win);

	for (int i = 63 - __builtin_clzll(win); i >= low; i--) {
		unsigned int d = top - i, open, in, hit;
		pf_v4 lo, hi, m;

		if (!(win >> i & 1))
			continue;
		open = within[d] & ~s->demand;
		if (!open)
			return false;
		memcpy(&lo, st_rec(b->st, r), sizeof(lo));
		memcpy(&hi, st_rec(b->st, r) + 4, sizeof(hi));
		lo = lo > last;
		hi = hi > last;
		m = (lo & lo_bits) | (hi & hi_bits);
		m |= __builtin_shuffle(m, swap2);
		m |= __builtin_shuffle(m, swap1);
		in = -(unsigned int)(end[r] > top);	/* its region reached */
		s->demand |= m[0] & open & in;
		hit = lo[0] & in & -(unsigned int)!s->every;
		s->every |= d & hit;
		r--;
	}
	return true;
}

int prefetch_ref(struct prefetch *pf, uint64_t page, uint64_t tag, uint64_t end)
{
	uint64_t key = page / 64 + 1, bit = 1ULL << page % 64;
	uint64_t below = bit - 1;	/* the pages of the block below page */
	unsigned int o = page % 64, n = 0, r = 0;
	struct pf_seen s = { 0 };
	struct pf_block *b, *a;
	bool more = true;
	uint32_t *rec, t;

	if (page == UINT64_MAX)		/* as pageid.h: not a page */
		return -1;
	if (pf->now + 1 >= pf->tmax && renumber(pf))
		return -1;
	t = pf->now + 1;
	if (tag >= pf->nreg) {
		size_t m = tag + 1 > 2 * pf->nreg ? tag + 1 : 2 * pf->nreg;
		struct pf_region *v = realloc(pf->reg, m * sizeof(*v));

		if (!v)
			return -1;
		memset(v + pf->nreg, 0, (m - pf->nreg) * sizeof(*v));
		pf->reg = v;
		pf->nreg = m;
	}
	/*
	 * The 64 pages before: which triggered since this page's last
	 * fault? Those of its block below it, then, unless all is known,
	 * those of the block before at or above its place (the one there
	 * is 64 pages back). The records to read are on their way to the
	 * cache first.
	 */
	b = blk_find(pf, key);
	if (b) {
		n = __builtin_popcountll(b->mask);
		r = __builtin_popcountll(b->mask & below);
		for (unsigned int j = 0; j < 16 && j < r; j += 2)
			__builtin_prefetch(st_rec(b->st, r - 1 - j));
		if (b->mask & bit)
			s.last = st_rec(b->st, r)[0];
		if (b->mask & below)
			more = look(b, b->mask & below, o, (int)r - 1, &s);
	}
	if (more && key > 1 && (a = blk_find(pf, key - 1)) && (a->mask & ~below))
		look(a, a->mask & ~below, o + 64,
		     __builtin_popcountll(a->mask) - 1, &s);
	/* A new page: its block, and its place in the block's arrays. */
	if (!b || !(b->mask & bit)) {
		if (!b && !(b = blk_add(pf, key)))
			return -1;
		if (st_insert(b, n, r))
			return -1;
		b->mask |= bit;
		n++;
		pf->pages++;
	}
	/* Avoided faults, and this fault as a trigger (without branches). */
	if (s.every)
		pf->avoided_every[s.every]++;
	rec = st_rec(b->st, r);
	for (unsigned int k = 0; k < PF_GRID; k++) {
		unsigned int had = s.demand >> k & 1;

		pf->avoided_demand[k] += had;
		rec[1 + k] = had ? rec[1 + k] : t;
	}
	rec[0] = t;
	/* Its region's end, from the block's start (see st_end()). */
	st_end(b->st, blk_room(n))[r] = end <= page - o ? 0 :
		end - (page - o) > 128 ? 128 : end - (page - o);
	pf->now = t;
	/* Sequentiality. */
	if (pf->refs) {
		int64_t stride = (int64_t)(page - pf->prev);

		pf->next_page += page == pf->prev + 1;
		if (pf->run && stride != pf->stride)
			end_run(pf);
		pf->stride = stride;
		pf->run++;
	}
	pf->reg[tag].faults++;
	pf->reg[tag].next_page += pf->reg[tag].prev && page == pf->reg[tag].prev;
	pf->reg[tag].prev = page + 1;
	pf->prev = page;
	pf->refs++;
	return 0;
}

void prefetch_end(struct prefetch *pf)
{
	end_run(pf);
}
