/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mrc_impl.h - what mrc.c (sizes, the interface), mrc_ring.c (FIFO and
 * CLOCK) and mrc_opt.c (OPT) share. Not for the tools: they use mrc.h.
 */
#ifndef PGFT_MRC_IMPL_H
#define PGFT_MRC_IMPL_H

#include <stdbool.h>
#include <stdio.h>
#include "mrc.h"
#include "pageid.h"

#define MRC_SMALL 32		/* slots of the small sizes: a bit each in a word */
#define MRC_NO_PAGE UINT32_MAX	/* never an id: mrc_ref_ids() refuses it */

/* FIFO and CLOCK at one size: the pages in the order they were loaded. */
struct mrc_ring {
	uint32_t *slot;		/* ids; the oldest at hand */
	uint32_t size, hand;
};

struct mrc {
	enum mrc_policy policy;
	bool grid;		/* default sizes: powers of two, then the footprint */
	bool ended;
	uint64_t *size, *misses;	/* ascending */
	size_t nr, cap;
	struct pgid_map ids;	/* page -> id, in order of first reference */
	uint32_t npages;	/* ids seen: 0 .. npages - 1 (mrc_ref_ids()'s too) */
	uint64_t refs;

	/*
	 * FIFO, CLOCK: one bit per size and page, words words per page:
	 * bit i of page id's words is set while size i holds it. CLOCK
	 * follows them with as many words of reference bits. (OPT keeps a
	 * byte per page instead: mrc_opt.c.) The words are 32 bits: the
	 * default sizes simulate 32 at most (1 .. 2^31: the ids are 32-bit),
	 * so a page's state is 4 bytes (8 for CLOCK), which keeps the
	 * random accesses of the evictions in less of the CPU's cache.
	 */
	uint32_t *mask;
	size_t words, stride;	/* stride: words, or 2 * words for CLOCK */
	uint32_t ids_cap;	/* pages the per-page arrays have room for */

	/*
	 * FIFO, CLOCK: sizes 0 .. spawned - 1 are simulated; each larger
	 * one has held every page so far (it never had to evict), and is
	 * set up as that when the footprint first goes past it.
	 */
	struct mrc_ring *ring;
	size_t spawned;
	uint64_t *again;	/* bitmap: pages referenced more than once */

	/*
	 * FIFO, CLOCK: the smallest sizes, those whose pages fit in
	 * MRC_SMALL slots together (1, 2, 4, 8 and 16 by default), keep
	 * their rings side by side in small[] instead (size i's from
	 * small_at[i]; ring[i] has its size and hand), and no bits in mask:
	 * a reference is compared with every slot at once. Nearly every
	 * reference misses at them, and so costs no access to the per-page
	 * bits of the page a miss evicts.
	 */
	uint32_t small[MRC_SMALL];	/* ids; MRC_NO_PAGE in slots not in use */
	uint32_t small_ref;		/* CLOCK: the slots' reference bits */
	uint8_t small_at[MRC_SMALL];
	size_t nsmall;			/* sizes 0 .. nsmall - 1 are small */
	uint32_t small_used;		/* slots taken */

	/* OPT: the references as ids, on their way to a temporary file. */
	FILE *ids_file;
	unsigned int threads;	/* mrc_set_threads(), 0: one per CPU */
	uint64_t first_stage;	/* mrc_set_first_stage(), 0: the default */
};

/* Room for page ids below @n in the per-page arrays; 0 or -1. */
int mrc_grow_pages(struct mrc *m, uint32_t n);

int mrc_ring_ref(struct mrc *m, uint32_t id, bool fresh);
void mrc_ring_free(struct mrc *m);

/* An unlinked temporary file in $TMPDIR (default /tmp); NULL, errno. */
FILE *mrc_tmpfile(void);

/* References to @ids[0 .. n - 1], in order; 0 or -1, errno. */
int mrc_opt_ref(struct mrc *m, const uint32_t *ids, size_t n);
int mrc_opt_end(struct mrc *m);
void mrc_opt_free(struct mrc *m);

#endif
