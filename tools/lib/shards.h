/* SPDX-License-Identifier: GPL-2.0 */
/*
 * shards - approximate miss-ratio curves of reference strings too large
 * for exact ones, by spatial sampling (Waldspurger et al., "Efficient MRC
 * Construction with SHARDS", FAST'15): a page is kept when a hash of it
 * falls below a threshold, so every reference to a kept page is kept and
 * a rate R of the pages (and about R of the references) is. The sampled
 * string is a smaller cache's: a cache of C pages of the whole behaves as
 * one of C x R pages of the sample.
 *
 * - LRU: the sample's exact reuse distances (reuse.h), each standing for
 *   distance / R; misses(C) = the sampled misses at C x R, over the
 *   references the rate expects (R x all of them: SHARDS-adj, which
 *   corrects the sample's count of references).
 * - FIFO, CLOCK, OPT: the policy simulated on the sample at C x R pages
 *   (mrc.h), its misses over the references the rate expects taken as
 *   the whole's miss ratio (as MINISIM does, with SHARDS-adj).
 *
 *	struct shards s;
 *
 *	shards_init(&s, 0.01, seed, true, NULL, 0);	(default sizes)
 *	for each reference: shards_ref(&s, page);
 *	shards_end(&s);
 *	for (i = 0; i < shards_nr(&s); i++)
 *		shards_size(&s, i), shards_ratio(&s, MRC_FIFO, i), ...
 *	shards_free(&s);
 *
 * Sizes are the sample's (1, 2, 4, ... below its footprint, then the
 * footprint, or those asked for, each C x R rounded): shards_size() gives
 * the whole's, sample size / R. Memory: the exact analyses' for the
 * sample, R of theirs.
 */
#ifndef PGFT_SHARDS_H
#define PGFT_SHARDS_H

#include <stdbool.h>
#include <stdint.h>
#include "mrc.h"
#include "reuse.h"

#define SHARDS_MOD	(1ULL << 24)	/* the hash is compared mod this */
#define SHARDS_BATCH	256
/* A sample cache smaller is biased: sizes below this / rate are. */
#define SHARDS_MIN_CACHE 128

struct shards {
	uint64_t threshold;		/* keep hash mod SHARDS_MOD < threshold */
	uint64_t seed;			/* the hash's key, mixed from the seed */
	uint64_t refs;			/* every reference seen */
	struct reuse lru;		/* the sampled ones' distances */
	struct mrc *sim[MRC_OPT + 1];	/* FIFO, CLOCK, OPT on the sample */
	uint64_t *sizes;		/* the sample's sizes asked for, or NULL */
	size_t nsizes;
	uint64_t batch[SHARDS_BATCH];
	size_t nbatch;
	bool failed;
};

/* The rate the threshold gives. */
static inline double shards_rate(const struct shards *s)
{
	return (double)s->threshold / SHARDS_MOD;
}

/*
 * Sample at @rate (0 < rate <= 1) with hash seed @seed; with @sims, FIFO,
 * CLOCK and OPT too; at the whole's @sizes (NULL: the default). 0, or -1
 * with errno set.
 */
int shards_init(struct shards *s, double rate, uint64_t seed, bool sims,
		const uint64_t *sizes, size_t nsizes);

/*
 * The hash key of @seed: the seed through splitmix64, so that two seeds
 * sample unrelated pages (page + seed would shift one sample by a page).
 */
static inline uint64_t shards_key(uint64_t seed)
{
	seed += 0x9e3779b97f4a7c15ULL;
	seed = (seed ^ (seed >> 30)) * 0xbf58476d1ce4e5b9ULL;
	seed = (seed ^ (seed >> 27)) * 0x94d049bb133111ebULL;
	return seed ^ (seed >> 31);
}

/* The hash of @page under @key, mod SHARDS_MOD: splitmix64's finaliser. */
static inline uint64_t shards_hash(uint64_t key, uint64_t page)
{
	uint64_t z = page ^ key;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return z & (SHARDS_MOD - 1);
}

/* Whether @page is sampled. */
static inline bool shards_keep(const struct shards *s, uint64_t page)
{
	return shards_hash(s->seed, page) < s->threshold;
}

void shards_flush(struct shards *s);

/* A reference to @page. */
static inline void shards_ref(struct shards *s, uint64_t page)
{
	s->refs++;
	if (!shards_keep(s, page))
		return;
	s->batch[s->nbatch++] = page;
	if (s->nbatch == SHARDS_BATCH)
		shards_flush(s);
}

/* After the last reference: 0, or -1 with errno set. */
int shards_end(struct shards *s);

/* The sizes, in the whole's pages, and each one's miss ratio. */
size_t shards_nr(const struct shards *s);
uint64_t shards_size(const struct shards *s, size_t i);
/* The sample's size of row @i. */
uint64_t shards_sample_size(const struct shards *s, size_t i);
/* @policy: -1 for LRU, else an mrc_policy (with sims). */
double shards_ratio(const struct shards *s, int policy, size_t i);

void shards_free(struct shards *s);

#endif
