/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cache - the reference string through an LRU stack (reuse distances,
 * the exact LRU curve; tools/lib/reuse.h) and, for mrc, the FIFO, CLOCK
 * and OPT simulations (tools/lib/mrc.h), in batches (tools/lib does them
 * faster so), CLOCK and OPT's file of ids on a second CPU where there is
 * one (simthread.h); for reuse, the histogram of each region's references
 * too.
 * Memory is bounded by the distinct pages.
 *
 *	struct cache c = { 0 };
 *
 *	cache_init(&c, sims, sizes, nsizes, per_region, jobs);	(0 or 1)
 *	cache_attach(&c, ps);	(before the pass; 0 or 1)
 *	for each reference (the pass's fault): cache_ref(&c, ps, tag);
 *	if (cache_end(&c)) -> failed, said why
 *	... c.lru, c.sim[], c.reg ...
 *	cache_free(&c);
 */
#ifndef PGFREPORT_CACHE_H
#define PGFREPORT_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "../lib/mrc.h"
#include "../lib/reuse.h"
#include "pass.h"

#define CACHE_BATCH 256

/* reuse per region: the histogram of the references to each. */
struct reuse_reg {
	uint64_t refs, cold, bins[REUSE_BINS];
};

struct cache {
	struct reuse lru;	/* its time slots in the pass's page slots, */
	size_t off;		/* at this offset (cache_attach()) */
	struct mrc *sim[MRC_OPT + 1];	/* mrc: FIFO, CLOCK, OPT */
	struct simthread *thread;	/* runs CLOCK and OPT's ids, or NULL */
	bool per_region;		/* reuse: c.reg */
	uint32_t ids[CACHE_BATCH];	/* the pages' ids, for the sims */
	size_t nbatch;
	struct reuse_reg *reg;		/* by tag */
	size_t nreg;
	bool failed;
};

/*
 * With @sims, the FIFO, CLOCK and OPT simulations at @sizes (NULL: the
 * default sizes), on up to @jobs CPUs (0: all this process may use; 1:
 * this thread alone); with @per_region, c.reg. 0, or 1 after a message.
 */
int cache_init(struct cache *c, bool sims, const uint64_t *sizes,
	       size_t nsizes, bool per_region, unsigned int jobs);

/*
 * Before the pass: the LRU stack's time slot of each page in the pass's
 * page slots, whose ids (pass.want_ids) number the pages for the sims.
 * 0, or 1 after a message.
 */
int cache_attach(struct cache *c, struct pass *ps);

/* The ids so far to the sims. */
void cache_flush(struct cache *c);

/* Room in c.reg for the region tagged @tag; 0, or -1 (cache_nomem()). */
int cache_region_grow(struct cache *c, uint64_t tag);
/* Say the LRU stack ran out of memory; c->failed. */
void cache_nomem(struct cache *c);

/*
 * The pass's fault @ps (a reference: pgft_counted()), in the region
 * tagged @tag (per_region). Inline, with the LRU stack's step.
 */
static inline void cache_ref(struct cache *c, struct pass *ps, uint64_t tag)
{
	int64_t d;

	if (c->failed)
		return;
	d = reuse_ref_at(&c->lru, pass_state(ps, c->off));
	if (d == REUSE_NOMEM) {
		cache_nomem(c);
		return;
	}
	if (c->per_region) {
		struct reuse_reg *g;

		if (tag >= c->nreg && cache_region_grow(c, tag))
			return;
		g = &c->reg[tag];
		g->refs++;
		if (d == REUSE_COLD)
			g->cold++;
		else
			g->bins[reuse_bin(d)]++;
	}
	if (c->sim[MRC_FIFO]) {
		c->ids[c->nbatch++] = ps->id;
		if (c->nbatch == CACHE_BATCH)
			cache_flush(c);
	}
}

/* After the last reference: 0, or 1 after a message. */
int cache_end(struct cache *c);
void cache_free(struct cache *c);

#endif
