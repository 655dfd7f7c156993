/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mrc - miss-ratio curves of simulated page-replacement policies: FIFO,
 * CLOCK (second chance) and OPT (Belady's MIN), each at a set of cache
 * sizes, fed one page number at a time. (LRU's exact curve comes from
 * the reuse distances: reuse.h.)
 *
 *	struct mrc *m = mrc_new(MRC_FIFO, NULL, 0);	// default sizes
 *
 *	for each referenced page:
 *		mrc_ref(m, page);
 *	mrc_end(m);
 *	for (i = 0; i < mrc_nr(m); i++)
 *		printf("%llu %llu\n", mrc_size(m, i), mrc_misses(m, i));
 *	mrc_free(m);
 *
 * Every size is a cache of that many pages that starts empty and loads
 * every page it misses (demand paging); misses include the cold ones.
 * The default sizes are the powers of two below the footprint (the
 * distinct pages referenced), then the footprint itself.
 *
 * FIFO evicts the page loaded longest ago. CLOCK keeps the pages in a
 * circle in the order they were loaded, each with a reference bit that a
 * hit sets and a load leaves clear (as libCacheSim's Clock does); a miss
 * moves the hand past the pages whose bit is set, clearing it, and
 * evicts the first one whose bit is clear. OPT evicts the page whose next
 * reference is farthest in the future (any of those never referenced
 * again).
 *
 * Cost: FIFO and CLOCK run in the same pass as the references, O(1) per
 * reference and per size at which it misses (a bit per page and size
 * says what each size holds, so hits cost nothing per size; a size is
 * set up only when the footprint first exceeds it, so the default sizes
 * need not be known in advance). OPT needs each reference's next use:
 * mrc_ref() writes the references (4 bytes each) to a temporary file,
 * and mrc_end() reads it backwards to find the next uses (written to a
 * second file, 8 bytes per reference), then forwards to simulate every
 * size, O(log size) per reference and size at which it misses, in
 * stages on threads (mrc_opt.c, mrc_set_threads()). The files are in
 * $TMPDIR (default /tmp), unlinked at once: the reference string is
 * never in memory. Memory is bounded by the footprint and the sizes
 * (per page of every size: 4 bytes of FIFO's or CLOCK's ring, 24 of
 * OPT's heap), whatever the number of references. mrc_ref_batch() is
 * the faster way in.
 */
#ifndef PGFT_MRC_H
#define PGFT_MRC_H

#include <stddef.h>
#include <stdint.h>

enum mrc_policy { MRC_FIFO, MRC_CLOCK, MRC_OPT };

struct mrc;

/*
 * A simulator of @policy at @nr sizes in pages, ascending, each at least
 * 1 (nr == 0: the default sizes). NULL with errno set: EINVAL for bad
 * sizes, ENOMEM.
 */
struct mrc *mrc_new(enum mrc_policy policy, const uint64_t *sizes, size_t nr);
void mrc_free(struct mrc *m);

/* Record a reference to @page (< UINT64_MAX); 0, or -1 with errno set. */
int mrc_ref(struct mrc *m, uint64_t page);

/*
 * Record @n references, in order: the same, faster (the memory
 * latencies of several references overlap). 0, or -1 with errno set:
 * EINVAL for a bad page, the references before it recorded; after
 * ENOMEM (or a write error of OPT's file) only mrc_free() is of use.
 */
int mrc_ref_batch(struct mrc *m, const uint64_t *pages, size_t n);

/*
 * Record @n references given as dense ids (0 for the first page seen, 1
 * for the second new one, ...: a new page's id is the number of pages
 * before it), as another analysis of the same string numbered them
 * (reuse_ref_batch_ids()): the policy runs without a page table of its
 * own. Not mixed with mrc_ref_batch() on one @m. 0, or -1 with errno set:
 * EINVAL for an id out of order, the references before it recorded.
 */
int mrc_ref_ids(struct mrc *m, const uint32_t *ids, size_t n);

/*
 * OPT simulates its sizes in up to @n threads (0, the default: one per
 * CPU this process may use), each a stage of the sizes; the same misses
 * whatever @n. Before mrc_end().
 */
void mrc_set_threads(struct mrc *m, unsigned int n);

/*
 * OPT's first stage takes the sizes below @pages (0, the default: 256),
 * the later stages the others: see opt_cuts() in mrc_opt.c. Where to cut
 * changes how the stages share the work, never the misses. Before
 * mrc_end().
 */
void mrc_set_first_stage(struct mrc *m, uint64_t pages);

/*
 * After the last reference: settle the sizes (the default ones need the
 * footprint) and, for OPT, simulate. 0, or -1 with errno set.
 */
int mrc_end(struct mrc *m);

/* After mrc_end(): the sizes and the misses at each (cold ones included). */
size_t mrc_nr(const struct mrc *m);
uint64_t mrc_size(const struct mrc *m, size_t i);
uint64_t mrc_misses(const struct mrc *m, size_t i);

/* References recorded; distinct pages among them. */
uint64_t mrc_refs(const struct mrc *m);
uint64_t mrc_footprint(const struct mrc *m);

const char *mrc_policy_name(enum mrc_policy policy);

#endif
