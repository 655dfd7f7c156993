/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sample - a series of intervals, each a set of pages, and the working
 * set over them: the intervals of a sampled trace ("1 sample=MS": the
 * pages each scan of the accessed bits found referenced since the one
 * before) or of an interval trace ("1 interval=MS": the pages that
 * faulted between two re-arms).
 *
 * Intervals are numbered t = 0, 1, ... in the order they close. W(t, tau)
 * is Denning's working set over intervals: the distinct pages referenced
 * in intervals t - tau + 1 .. t, but never before the first interval of
 * t's address space: smp_space() starts a new one (an exec, or a new
 * start after a stop), and the window starts over there, so it never
 * mixes the pages of two address spaces.
 *
 * How: each page's last interval (a page -> id map, pageid.h, whose val
 * is 1 + that interval), and cnt[i], the pages whose last interval is i,
 * in a Fenwick tree over the intervals. Pages referenced in interval t
 * move from their old last interval to t, and W(t, tau) is the sum of cnt
 * over max(t - tau + 1, first of the space) .. t: a page given costs a
 * hash lookup, and a tree update when its interval closes; an interval
 * O(log^2 n) for the window sizes 1, 2, 4, ... of smp_tau_mean(). The
 * open interval's pages wait in a list (16 bytes each) with their last
 * interval before, so that smp_drop() can forget them. Memory: about 24
 * bytes per distinct page and 100 per interval, and with keep_runs the
 * runs of every interval (16 bytes each; for the map and the set
 * comparisons).
 *
 *	struct smp s;
 *
 *	smp_init(&s, 4, false);			// W(t, 4) per interval
 *	for each scan:
 *		smp_pages(&s, first_page, pages);	// any order, repeats too
 *		smp_close(&s, &(struct smp_iv){ .t0 = .., .t1 = .. });
 *	at an exec: smp_space(&s);
 *	mean = smp_tau_mean(&s, 3);		// W(t, 8), over every t
 *	smp_free(&s);
 */
#ifndef PGFT_SAMPLE_H
#define PGFT_SAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "pageid.h"

/* Window sizes tau = 2^j, j < SMP_TAUS, then tau = all (SMP_TAUS). */
#define SMP_TAUS 63

/* smp_iv.flags, beside the scan's PGFT_SAMPLE_* (pgftrace.h) */
#define SMP_NEW_SPACE	0x100	/* the first interval of an address space */
#define SMP_LOST	0x200	/* records were lost in it: a lower bound */
#define SMP_CALLER	0x10000	/* this bit and those above: the caller's */

/* A run of consecutive pages (page numbers: address / page size). */
struct smp_run {
	uint64_t start, pages;
};

struct smp_iv {
	/* The caller's, given to smp_close(): */
	uint64_t t0, t1;		/* ns: it runs from t0 to t1 */
	uint64_t scanned, referenced, ns;	/* its scan (sampled trace) */
	uint32_t flags;			/* PGFT_SAMPLE_*, SMP_*, the caller's */
	/* Set by smp_close(): */
	uint64_t pages;			/* distinct pages given for it */
	uint64_t ws;			/* W(t, k) */
	size_t run0, nrun;		/* with keep_runs: runs[run0 ..] */
};

/* A page given for the interval being filled, and its last one before. */
struct smp_pending {
	uint64_t page;
	uint32_t prev;			/* 1 + its last interval, 0: none */
};

struct smp {
	unsigned long k;		/* the window of smp_iv.ws */
	bool keep_runs;
	struct smp_iv *iv;		/* the closed intervals */
	size_t n, cap;
	struct smp_run *runs;		/* with keep_runs: each interval's */
	size_t nruns, cap_runs;
	/* The interval being filled: its distinct pages so far. */
	struct smp_pending *cur;
	size_t ncur, cap_cur;
	size_t space;			/* the first interval of this space */
	bool new_space;			/* the next interval starts a space */
	struct pgid_map last;		/* page -> val: 1 + its last interval */
	int64_t *cnt, *tree;		/* cnt[i]; the Fenwick tree, 1-based */
	size_t cap_tree;
	/* Over every t: sum and max of W(t, 2^j), and of W(t, all). */
	uint64_t sum[SMP_TAUS + 1], max[SMP_TAUS + 1];
};

/* W(t, @k) in each closed interval's ws; keep each one's runs if @keep_runs. */
void smp_init(struct smp *s, unsigned long k, bool keep_runs);
void smp_free(struct smp *s);

/* Pages @start .. @start + @pages - 1 were referenced in the open interval. */
int smp_pages(struct smp *s, uint64_t start, uint64_t pages);

/* Forget the pages given for the open interval (an address space ended). */
void smp_drop(struct smp *s);

/* The next interval to close is the first of a new address space. */
void smp_space(struct smp *s);

/*
 * Close the open interval as @iv describes it (its times, its scan):
 * it becomes s->iv[s->n - 1], with its pages, W(t, k) and runs. 0, or
 * -1 out of memory.
 */
int smp_close(struct smp *s, const struct smp_iv *iv);

/*
 * Over every closed interval t, the mean and the max of W(t, 2^@j), and
 * for @j = SMP_TAUS of W(t, all): every interval of t's address space up
 * to t.
 */
double smp_tau_mean(const struct smp *s, unsigned int j);
uint64_t smp_tau_max(const struct smp *s, unsigned int j);

/* The median of @v[0 .. @n) (sorted in place); 0 if @n is 0. */
double smp_median(uint64_t *v, size_t n);

/*
 * The pages interval @i of @a and interval @j of @b (both keep_runs)
 * have in common, and in all.
 */
void smp_overlap(const struct smp *a, size_t i, const struct smp *b,
		 size_t j, uint64_t *both, uint64_t *either);

/*
 * The rows of the map of the pages every interval referenced, page-exact
 * by address: the referenced pages in address order, a row per page, or
 * per @per pages when there are more than max_rows of them; a row never
 * holds pages of two blocks (runs of consecutive referenced pages apart
 * from the others by a gap), unless there are more blocks than max_rows:
 * then a row takes @per referenced pages across gaps (spans_gap).
 */
struct smp_row {
	uint64_t first, end;		/* its pages' range: first .. end - 1 */
	uint64_t pages;			/* referenced pages in it */
	bool block;			/* it starts a block: a gap before it */
	bool spans_gap;			/* it holds pages of two blocks */
};

struct smp_map {
	struct smp_row *row;		/* by address */
	size_t nrows;
	uint64_t per;			/* referenced pages per row, at most */
	uint64_t pages, blocks;		/* referenced pages and blocks in all */
};

/* The rows of the pages of every interval of @s (keep_runs). 0 or -1. */
int smp_map_rows(const struct smp *s, size_t max_rows, struct smp_map *m);

/*
 * The referenced pages of interval @i in each row: @count[0 .. nrows),
 * which this fills (zeroed first).
 */
void smp_map_column(const struct smp *s, const struct smp_map *m, size_t i,
		    uint64_t *count);
void smp_map_free(struct smp_map *m);

#endif
