// SPDX-License-Identifier: GPL-2.0
/*
 * mrc - simulated miss-ratio curves: the sizes, the per-page state and the
 * interface. The policies are in mrc_ring.c (FIFO, CLOCK) and mrc_opt.c
 * (OPT). See mrc.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "mrc_impl.h"
#include "table.h"

/* Default sizes: 1, 2, 4, ... 2^32 (more pages than ids), the footprint. */
#define MRC_GRID_MAX 34

const char *mrc_policy_name(enum mrc_policy policy)
{
	static const char * const n[] = { "fifo", "clock", "opt" };

	return policy <= MRC_OPT ? n[policy] : "?";
}

struct mrc *mrc_new(enum mrc_policy policy, const uint64_t *sizes, size_t nr)
{
	struct mrc *m;
	size_t cap = nr ? nr : MRC_GRID_MAX;
	int err;

	if (policy > MRC_OPT || (nr && !sizes)) {
		errno = EINVAL;
		return NULL;
	}
	for (size_t i = 0; i < nr; i++) {
		if (!sizes[i] || (i && sizes[i] <= sizes[i - 1])) {
			errno = EINVAL;
			return NULL;
		}
	}
	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->policy = policy;
	m->grid = !nr;
	m->cap = cap;
	m->size = calloc(cap, sizeof(*m->size));
	m->misses = calloc(cap, sizeof(*m->misses));
	if (!m->size || !m->misses)
		goto out_free;
	if (nr) {
		memcpy(m->size, sizes, nr * sizeof(*sizes));
		m->nr = nr;
	} else {
		m->size[0] = 1;
		m->nr = 1;
	}
	/* The default sizes simulate at most 32: see mrc_impl.h. */
	m->words = nr ? (nr + 31) / 32 : 1;
	m->stride = policy == MRC_CLOCK ? 2 * m->words : m->words;
	if (policy == MRC_OPT) {
		m->ids_file = mrc_tmpfile();
		if (!m->ids_file)
			goto out_free;
	} else {
		m->ring = calloc(cap, sizeof(*m->ring));
		if (!m->ring)
			goto out_free;
		memset(m->small, 0xff, sizeof(m->small));	/* MRC_NO_PAGE */
	}
	return m;

out_free:
	err = errno;	/* from calloc() or mrc_tmpfile() */
	mrc_free(m);
	errno = err;
	return NULL;
}

void mrc_free(struct mrc *m)
{
	if (!m)
		return;
	mrc_ring_free(m);
	mrc_opt_free(m);
	pgid_free(&m->ids);
	table_free(m->mask, (size_t)m->ids_cap * m->stride, sizeof(*m->mask));
	free(m->again);
	free(m->size);
	free(m->misses);
	free(m);
}

int mrc_grow_pages(struct mrc *m, uint32_t n)
{
	size_t cap = m->ids_cap ? 2 * (size_t)m->ids_cap : 1024;
	uint64_t *again;
	uint32_t *mask;

	if (n <= m->ids_cap)
		return 0;
	if (cap < n)
		cap = n;
	if (cap > UINT32_MAX)
		cap = UINT32_MAX;
	/* again first: a larger one is harmless if mask cannot grow */
	if (m->policy == MRC_CLOCK) {
		again = realloc(m->again, (cap + 63) / 64 * sizeof(*again));
		if (!again)
			return -1;
		memset(again + (m->ids_cap + 63) / 64, 0,
		       ((cap + 63) / 64 - (m->ids_cap + 63) / 64) * sizeof(*again));
		m->again = again;
	}
	mask = table_grow(m->mask, (size_t)m->ids_cap * m->stride,
			  cap * m->stride, sizeof(*mask));
	if (!mask)
		return -1;
	m->mask = mask;
	m->ids_cap = cap;
	return 0;
}

/* Run the references to @ids (looked up already) through the policy. */
static int mrc_run(struct mrc *m, const uint32_t *ids, size_t n, uint32_t next_new)
{
	if (m->policy == MRC_OPT) {
		if (mrc_opt_ref(m, ids, n))
			return -1;
		m->refs += n;
		return 0;
	}
	if (mrc_grow_pages(m, m->npages))
		return -1;
	for (size_t j = 0; j < n; j++) {
		bool fresh = ids[j] == next_new;

		next_new += fresh;
		m->refs++;
		if (mrc_ring_ref(m, ids[j], fresh))
			return -1;
	}
	return 0;
}

/*
 * In batches: the hash slots are prefetched a few references ahead, and
 * all of a batch's pages are looked up before the policy runs, so that
 * the CPU overlaps the cache misses of several references.
 */
#define MRC_AHEAD 8
#define MRC_BATCH 64

int mrc_ref_batch(struct mrc *m, const uint64_t *pages, size_t n)
{
	uint32_t ids[MRC_BATCH];

	if (m->ended || m->npages != m->ids.nr) {
		errno = EINVAL;
		return -1;
	}
	for (size_t i = 0; i < n; i += MRC_BATCH) {
		size_t len = n - i < MRC_BATCH ? n - i : MRC_BATCH;
		uint32_t next_new = m->npages;

		for (size_t j = 0; j < len; j++) {
			int64_t id = -1;
			int err = EINVAL;

			if (i + j + MRC_AHEAD < n)
				pgid_prefetch(&m->ids, pages[i + j + MRC_AHEAD]);
			if (pages[i + j] <= PGID_PAGE_MAX) {
				id = pgid_get(&m->ids, pages[i + j]);
				err = ENOMEM;
			}
			if (id < 0) {
				/* Those before the bad one still count. */
				if (!mrc_run(m, ids, j, next_new))
					errno = err;
				return -1;
			}
			ids[j] = (uint32_t)id;
			m->npages = m->ids.nr;
			if (m->mask && id < m->ids_cap)
				__builtin_prefetch(&m->mask[(size_t)id * m->stride]);
		}
		if (mrc_run(m, ids, len, next_new))
			return -1;
	}
	return 0;
}

int mrc_ref_ids(struct mrc *m, const uint32_t *ids, size_t n)
{
	if (m->ended || m->ids.nr) {
		errno = EINVAL;
		return -1;
	}
	for (size_t i = 0; i < n; i += MRC_BATCH) {
		size_t len = n - i < MRC_BATCH ? n - i : MRC_BATCH;
		uint32_t next_new = m->npages;

		for (size_t j = 0; j < len; j++) {
			uint32_t id = ids[i + j];

			/* First references in order: a new id is the next one. */
			if (id > m->npages || (id == m->npages && id == UINT32_MAX)) {
				if (!mrc_run(m, ids + i, j, next_new))
					errno = EINVAL;
				return -1;
			}
			m->npages += id == m->npages;
			if (m->mask && id < m->ids_cap)
				__builtin_prefetch(&m->mask[(size_t)id * m->stride]);
		}
		if (mrc_run(m, ids + i, len, next_new))
			return -1;
	}
	return 0;
}

int mrc_ref(struct mrc *m, uint64_t page)
{
	return mrc_ref_batch(m, &page, 1);
}

int mrc_end(struct mrc *m)
{
	uint64_t pages = m->npages;
	size_t below = 0;

	if (m->ended)
		return 0;
	m->ended = true;
	while (below < m->nr && m->size[below] < pages)
		below++;
	if (m->grid) {
		/*
		 * The powers of two below the footprint, and the footprint
		 * (FIFO and CLOCK have added those below it as it grew).
		 */
		m->nr = 0;
		for (uint64_t s = 1; s < pages; s *= 2)
			m->size[m->nr++] = s;
		below = m->nr;
		if (pages)
			m->size[m->nr++] = pages;
	}
	/*
	 * A size no smaller than the footprint never evicts: its misses are
	 * the cold ones. The others are simulated.
	 */
	for (size_t i = below; i < m->nr; i++)
		m->misses[i] = pages;
	if (m->policy == MRC_OPT)
		return mrc_opt_end(m);
	return 0;
}

void mrc_set_threads(struct mrc *m, unsigned int n)
{
	m->threads = n;
}

void mrc_set_first_stage(struct mrc *m, uint64_t pages)
{
	m->first_stage = pages;
}

size_t mrc_nr(const struct mrc *m)
{
	return m->nr;
}

uint64_t mrc_size(const struct mrc *m, size_t i)
{
	return i < m->nr ? m->size[i] : 0;
}

uint64_t mrc_misses(const struct mrc *m, size_t i)
{
	return i < m->nr ? m->misses[i] : 0;
}

uint64_t mrc_refs(const struct mrc *m)
{
	return m->refs;
}

uint64_t mrc_footprint(const struct mrc *m)
{
	return m->npages;
}
