// SPDX-License-Identifier: GPL-2.0
/*
 * shards - approximate miss-ratio curves by spatial sampling (shards.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "shards.h"

int shards_init(struct shards *s, double rate, uint64_t seed, bool sims,
		const uint64_t *sizes, size_t nsizes)
{
	memset(s, 0, sizeof(*s));
	if (!(rate > 0 && rate <= 1)) {
		errno = EINVAL;
		return -1;
	}
	s->threshold = (uint64_t)llround(rate * SHARDS_MOD);
	if (!s->threshold)
		s->threshold = 1;
	s->seed = shards_key(seed);
	reuse_init(&s->lru, 0);
	if (sizes) {
		/* the whole's sizes as the sample's: C x R, at least 1, once each */
		s->sizes = malloc(nsizes * sizeof(*s->sizes));
		if (!s->sizes)
			return -1;
		for (size_t i = 0; i < nsizes; i++) {
			uint64_t v = (uint64_t)llround((double)sizes[i] * shards_rate(s));

			v = v ? v : 1;
			if (!s->nsizes || v > s->sizes[s->nsizes - 1])
				s->sizes[s->nsizes++] = v;
		}
	}
	for (int p = MRC_FIFO; sims && p <= MRC_OPT; p++) {
		s->sim[p] = mrc_new(p, s->sizes, s->nsizes);
		if (!s->sim[p])
			return -1;
	}
	return 0;
}

void shards_flush(struct shards *s)
{
	if (!s->nbatch || s->failed)
		return;
	if (reuse_ref_batch(&s->lru, s->batch, s->nbatch))
		s->failed = true;
	for (int p = MRC_FIFO; p <= MRC_OPT && s->sim[p] && !s->failed; p++)
		if (mrc_ref_batch(s->sim[p], s->batch, s->nbatch))
			s->failed = true;
	s->nbatch = 0;
}

int shards_end(struct shards *s)
{
	shards_flush(s);
	for (int p = MRC_FIFO; p <= MRC_OPT && s->sim[p] && !s->failed; p++)
		if (mrc_end(s->sim[p]))
			s->failed = true;
	if (s->failed && !errno)
		errno = ENOMEM;
	if (!s->failed && !s->sim[MRC_FIFO] && !s->sizes) {
		/* LRU alone: the default sizes of the sample, as mrc.h's */
		uint64_t foot = reuse_pages(&s->lru), k = 0;

		s->sizes = malloc(66 * sizeof(*s->sizes));
		if (!s->sizes)
			return -1;
		for (uint64_t v = 1; v < foot; v *= 2)
			s->sizes[k++] = v;
		if (foot)
			s->sizes[k++] = foot;
		s->nsizes = k;
	}
	return s->failed ? -1 : 0;
}

size_t shards_nr(const struct shards *s)
{
	return s->sim[MRC_FIFO] ? mrc_nr(s->sim[MRC_FIFO]) : s->nsizes;
}

uint64_t shards_sample_size(const struct shards *s, size_t i)
{
	return s->sim[MRC_FIFO] ? mrc_size(s->sim[MRC_FIFO], i) : s->sizes[i];
}

uint64_t shards_size(const struct shards *s, size_t i)
{
	return (uint64_t)llround(shards_sample_size(s, i) / shards_rate(s));
}

double shards_ratio(const struct shards *s, int policy, size_t i)
{
	/*
	 * SHARDS-adj: the misses over the references the rate expects, not
	 * over those sampled (the difference counted as hits at distance 0)
	 */
	double expect = shards_rate(s) * (double)s->refs;
	uint64_t miss = policy < 0 ?
		reuse_lru_misses(&s->lru, shards_sample_size(s, i)) :
		mrc_misses(s->sim[policy], i);
	double r = expect > 0 ? miss / expect : 0;

	return r > 1 ? 1 : r;
}

void shards_free(struct shards *s)
{
	for (int p = MRC_FIFO; p <= MRC_OPT; p++)
		mrc_free(s->sim[p]);
	reuse_free(&s->lru);
	free(s->sizes);
	memset(s, 0, sizeof(*s));
}
