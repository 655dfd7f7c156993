// SPDX-License-Identifier: GPL-2.0
/*
 * cache - the reference string through LRU, FIFO, CLOCK and OPT
 * (cache.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cache.h"
#include "pass.h"
#include "simthread.h"
#include "../lib/pgftrace.h"

int cache_init(struct cache *c, bool sims, const uint64_t *sizes,
	       size_t nsizes, bool per_region, unsigned int jobs)
{
	reuse_init(&c->lru, 0);
	/*
	 * The histogram per distance is for LRU at any size (tlb's, or
	 * --sizes): at mrc's default sizes (powers of two, the footprint)
	 * and for reuse's histogram, the log2 bins say as much.
	 */
	if (!sizes && (sims || per_region))
		reuse_binned(&c->lru);
	c->per_region = per_region;
	for (int p = MRC_FIFO; sims && p <= MRC_OPT; p++) {
		c->sim[p] = mrc_new(p, sizes, nsizes);
		if (!c->sim[p]) {
			fprintf(stderr, "%s: %s%s: %s\n", pgft_prog, mrc_policy_name(p),
				p == MRC_OPT ? ": its temporary file" : "",
				strerror(errno));
			return PGF_EXIT_FAIL;
		}
		mrc_set_threads(c->sim[p], jobs);
	}
	/*
	 * CLOCK (the slowest of the three in the pass) and OPT's writes
	 * beside LRU and FIFO, which keep this CPU as busy.
	 */
	if (sims)
		c->thread = simthread_start(&c->sim[MRC_CLOCK], 2, jobs);
	return 0;
}

/* End the simulations' thread, and say why it failed if it did. */
static void cache_thread_end(struct cache *c)
{
	struct mrc *failed = NULL;

	if (!c->thread)
		return;
	if (simthread_stop(c->thread, &failed)) {
		int err = errno;

		for (int p = MRC_CLOCK; p <= MRC_OPT; p++)
			if (c->sim[p] == failed)
				fprintf(stderr, "%s: %s: %s\n", pgft_prog,
					mrc_policy_name(p), strerror(err));
		c->failed = true;
	}
	c->thread = NULL;
}

int cache_attach(struct cache *c, struct pass *ps)
{
	/* the sims number the pages by the pass's ids */
	if (c->sim[MRC_FIFO] && !ps->want_ids)
		return pass_error(ps, "the simulations need the pages' ids");
	if (pass_reserve(ps, sizeof(uint32_t), &c->off))
		return PGF_EXIT_USAGE;
	reuse_attach(&c->lru, &ps->pages, c->off);
	return 0;
}

void cache_flush(struct cache *c)
{
	if (!c->nbatch || c->failed)
		return;
	for (int p = MRC_FIFO; p <= MRC_OPT && c->sim[p]; p++) {
		if (c->failed || (c->thread && p > MRC_FIFO))
			break;
		if (mrc_ref_ids(c->sim[p], c->ids, c->nbatch)) {
			fprintf(stderr, "%s: %s: %s\n", pgft_prog, mrc_policy_name(p),
				strerror(errno));
			c->failed = true;
		}
	}
	if (c->thread && !c->failed && simthread_give(c->thread, c->ids, c->nbatch))
		cache_thread_end(c);	/* it says why */
	c->nbatch = 0;
}

int cache_region_grow(struct cache *c, uint64_t tag)
{
	size_t n = tag + 1 > 2 * c->nreg ? tag + 1 : 2 * c->nreg;
	struct reuse_reg *g = realloc(c->reg, n * sizeof(*g));

	if (!g) {
		cache_nomem(c);
		return -1;
	}
	memset(g + c->nreg, 0, (n - c->nreg) * sizeof(*g));
	c->reg = g;
	c->nreg = n;
	return 0;
}

void cache_nomem(struct cache *c)
{
	fprintf(stderr, "%s: out of memory for the reuse distances\n", pgft_prog);
	c->failed = true;
}

/*
 * Where OPT's first stage ends (mrc_opt.c, opt_cuts()): at the size where
 * LRU's miss ratio falls below 0.85. At the sizes below it nearly every
 * reference misses, and the first stage, which reads them all, takes
 * those; measured to balance the two stages best on the generated
 * random trace (256 pages) and on one of a hot set of 48 pages (16).
 */
static uint64_t opt_first_stage(const struct reuse *lru)
{
	uint64_t s = 1, pages = reuse_pages(lru);

	while (s < pages && reuse_lru_misses(lru, s) * 100 >= 85 * lru->refs)
		s *= 2;
	return s;
}

int cache_end(struct cache *c)
{
	reuse_sync(&c->lru);
	cache_flush(c);
	cache_thread_end(c);
	if (c->sim[MRC_OPT] && !c->failed)
		mrc_set_first_stage(c->sim[MRC_OPT], opt_first_stage(&c->lru));
	for (int p = MRC_FIFO; p <= MRC_OPT && c->sim[p] && !c->failed; p++)
		if (mrc_end(c->sim[p])) {
			fprintf(stderr, "%s: %s: %s\n", pgft_prog, mrc_policy_name(p),
				strerror(errno));
			c->failed = true;
		}
	return c->failed;
}

void cache_free(struct cache *c)
{
	struct mrc *failed;

	if (c->thread)
		simthread_stop(c->thread, &failed);
	for (int p = MRC_FIFO; p <= MRC_OPT; p++)
		mrc_free(c->sim[p]);
	free(c->reg);
	reuse_free(&c->lru);
	memset(c, 0, sizeof(*c));
}
