/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hot - the most referenced pages: a count per (page, tag), and the top
 * N of them.
 *
 * The tag is the caller's: pgfreport passes the region that held the
 * page's address when the reference happened, so a page whose address
 * belonged to two mappings over the run (unmapped, then mapped again to
 * another file) is two entries, each counted for its own region. The aux
 * value is kept from an entry's first reference (pgfreport: the page's
 * offset in the region's file).
 *
 *	struct hot h = { 0 };
 *	struct hot_entry top[20];
 *
 *	for each reference:
 *		hot_ref(&h, page, region, offset);
 *	n = hot_top(&h, top, 20);	// most referenced first
 *	hot_free(&h);
 *
 * Memory: 32 bytes a slot of an open-addressing table at most 3/4 full,
 * per distinct (page, tag); hot_top() takes O(entries log N) time with a
 * heap of N entries. A page's latest tag is found by the page alone (one
 * table, prefetched), its earlier ones in a second table by (page, tag):
 * a page under many tags (a heap that mremap() moves and grows gets a
 * new region each time) then costs no longer lookups.
 */
#ifndef PGFT_HOT_H
#define PGFT_HOT_H

#include <stddef.h>
#include <stdint.h>

struct hot_entry {
	uint64_t page, tag, aux;
	uint64_t refs;		/* 0: an empty slot */
};

/* Open addressing, at most 3/4 full: slots a power of two (or 0). */
struct hot_table {
	struct hot_entry *v;
	size_t cap, nr;
};

struct hot {
	struct hot_table now;	/* by page: its latest tag */
	struct hot_table old;	/* by (page, tag): its earlier ones */
	size_t nr;		/* entries, in both */
	uint64_t refs;		/* references counted */
};

/* Count a reference to @page under @tag; 0, or -1 when out of memory. */
int hot_ref(struct hot *h, uint64_t page, uint64_t tag, uint64_t aux);
/* A hint: @page will be referenced soon. */
void hot_prefetch(const struct hot *h, uint64_t page);

/*
 * The @n entries with the most references, most first; ties by page,
 * then tag, ascending. Returns how many were written (fewer than @n when
 * there are fewer entries).
 */
long hot_top(const struct hot *h, struct hot_entry *out, size_t n);

void hot_free(struct hot *h);

#endif
