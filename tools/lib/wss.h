/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wss - Denning's working-set curve: the mean working-set size s(tau)
 * against the window tau, in references, exact, in one pass.
 *
 * W(t, tau) is the set of distinct pages among references t - tau + 1
 * .. t (fewer at the start), and s(tau) = (1/n) sum_{t=1..n} |W(t, tau)|
 * for n references. A page is in W(t, tau) once for every window that
 * holds at least one of its references; count each window for the
 * page's last reference in it, the reference at u: u lies in it (t - tau
 * < u <= t) and the page's next reference, at u + g (the forward gap g;
 * infinite after its last reference), does not (t < u + g). So reference
 * u counts in the windows ending at t = u .. u + min(tau, g, n - u + 1) - 1:
 *
 *   n s(tau) = sum_{u: finite g} min(tau, g_u)
 *            + sum_{u: a page's last reference} min(tau, n - u + 1)
 *
 * (as Denning and Schwartz, "Properties of the working-set model",
 * CACM 15(3), 1972, derive s(tau) from the interreference intervals; this
 * is the exact finite-trace form, with the end of the trace as above).
 * For tau on a grid of powers of two, min(tau, g) needs only, per grid
 * interval (2^(j-1), 2^j], the count and the sum of the gaps in it:
 * n s(2^k) = sum_{j <= k} sum_j + 2^k sum_{j > k} count_j. The end terms
 * are binned the same way when the trace ends (wss_end()), and tau >= n
 * takes every gap whole. The same bins give the working-set fault rate
 * m(tau): the share of references whose page is not in the window of
 * the tau references before it (first references, and backward gaps
 * greater than tau).
 *
 * Memory: 8 bytes per distinct page, the time of its last reference
 * (struct wss_page), never more with the trace's length; a reference
 * costs one lookup of its page. wss_ref() keeps them in a page -> id map
 * of its own (pageid.h: 32 bytes a slot, at most 3/4 full); a caller that
 * looks its pages up anyway keeps them itself, and gives them to
 * wss_ref_at() (pgfreport's pass, where several reports share a lookup).
 *
 *	struct wss w;
 *
 *	wss_init(&w);
 *	for each referenced page:
 *		wss_ref(&w, page);
 *	wss_end(&w);
 *	s = (double)wss_sum(&w, 64) / w.refs;	// s(64)
 *	wss_free(&w);
 */
#ifndef PGFT_WSS_H
#define PGFT_WSS_H

#include <stdint.h>
#include "pageid.h"

/* Gap bins: 0 holds gap 1, j >= 1 the gaps 2^(j-1) + 1 .. 2^j. */
#define WSS_BINS 65

/* What wss keeps of a page: 4-byte aligned, to pack into a slot. */
struct wss_page {
	uint64_t last;		/* its last reference's time (1, 2, ...); 0: none */
} __attribute__((packed, aligned(4)));

struct wss {
	struct pgid_map ids;	/* wss_ref()'s pages, their struct wss_page */
	size_t nr;		/* pages */
	uint64_t refs, cold;
	uint64_t cnt[WSS_BINS], sum[WSS_BINS];	/* finite gaps */
	uint64_t ecnt[WSS_BINS], esum[WSS_BINS];	/* end terms (wss_end()) */
	uint64_t total;		/* the sum of every gap and end term */
	int ended;
};

void wss_init(struct wss *w);
void wss_free(struct wss *w);

/* Record a reference to @page; 0, or -1 when out of memory. */
int wss_ref(struct wss *w, uint64_t page);
/* A hint: @page will be referenced soon. */
static inline __attribute__((always_inline)) void wss_prefetch(const struct wss *w, uint64_t page)
{
	pgid_prefetch(&w->ids, page);
}

/* The bin of gap @g >= 1: the smallest j with g <= 2^j. */
static inline unsigned int wss_gap_bin(uint64_t g)
{
	return g <= 1 ? 0 : 64 - __builtin_clzll(g - 1);
}

/*
 * The same, for a caller that keeps each page's struct wss_page (zero
 * before its first reference) and gives @p.
 */
static inline void wss_ref_at(struct wss *w, struct wss_page *p)
{
	uint64_t g;
	unsigned int b;

	w->refs++;
	if (!p->last) {
		w->nr++;
		w->cold++;
	} else {
		g = w->refs - p->last;
		b = wss_gap_bin(g);
		w->cnt[b]++;
		w->sum[b] += g;
		w->total += g;
	}
	p->last = w->refs;
}

/* Such a caller's, before wss_end(): its pages, each once (any order). */
void wss_end_page(struct wss *w, const struct wss_page *p);

/* After the last reference: add the pages' end terms. */
void wss_end(struct wss *w);

/*
 * After wss_end(): n s(tau), the sum over every reference t of the
 * distinct pages in the window of @tau references ending at t. Exact
 * for @tau a power of two or >= the references; UINT64_MAX otherwise.
 */
uint64_t wss_sum(const struct wss *w, uint64_t tau);

/*
 * The references whose page was not referenced in the @tau references
 * before them (first references included): n m(tau). Same @tau rule.
 */
uint64_t wss_faults(const struct wss *w, uint64_t tau);

#endif
