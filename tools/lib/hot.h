/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hot - the most referenced pages: a count per (page, tag), and the top
 * N of them.
 *
 * The tag is the caller's: pgfreport passes the region that held the
 * page's address when the reference happened, so a page whose address
 * belonged to two mappings over the run (unmapped, then mapped again to
 * another file) is two entries, each counted for its own region. The aux
 * value is kept from an entry's first reference, or with aux_latest from
 * its latest that gave one not 0 (pgfreport: the tag is the page's address
 * space, the aux the region of its latest reference in a region).
 *
 *	struct hot h = { 0 };
 *	struct hot_entry top[20];
 *
 *	for each reference:
 *		hot_ref(&h, page, region, offset);
 *	n = hot_top(&h, top, 20);	// most referenced first
 *	hot_free(&h);
 *
 * Memory: a page's latest tag is kept with the page (struct hot_page, 20
 * bytes): hot_ref() keeps it in a page -> id map of its own (pageid.h, 32
 * bytes a slot, at most 3/4 full); a caller that looks its pages up
 * anyway keeps it itself and gives it to hot_ref_at() (pgfreport's pass,
 * where several reports share a lookup). A page's earlier tags go to a
 * table by (page, tag), 32 bytes a slot: a page under many tags (a heap
 * that mremap() moves and grows gets a new region each time) then costs
 * no longer lookups. hot_top() takes O(entries log N) time with a heap of
 * N entries.
 */
#ifndef PGFT_HOT_H
#define PGFT_HOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "pageid.h"

struct hot_entry {
	uint64_t page, tag, aux;
	uint64_t refs;		/* 0: an empty slot */
};

/* A page's latest tag and its count: 4-byte aligned, to pack into a slot. */
struct hot_page {
	uint64_t refs;		/* 0: the page has none yet */
	uint64_t aux;
	uint32_t tag;
} __attribute__((packed, aligned(4)));

/* Open addressing, at most 3/4 full: slots a power of two (or 0). */
struct hot_table {
	struct hot_entry *v;
	size_t cap, nr;
};

struct hot {
	struct pgid_map ids;	/* hot_ref()'s pages, their struct hot_page */
	struct hot_table old;	/* by (page, tag): the pages' earlier tags */
	size_t nr;		/* entries: (page, tag) pairs */
	uint64_t refs;		/* references counted */
	bool aux_latest;	/* an entry's aux is its latest non-0 one */
};

/*
 * Count a reference to @page under @tag (tags are 32-bit); 0, or -1 when
 * out of memory. hot_free() frees what it took; a struct hot starts zero.
 */
int hot_ref(struct hot *h, uint64_t page, uint32_t tag, uint64_t aux);
/* A hint: @page will be referenced soon. */
static inline __attribute__((always_inline)) void hot_prefetch(const struct hot *h, uint64_t page)
{
	pgid_prefetch(&h->ids, page);
}

/*
 * The same, for a caller that keeps each page's struct hot_page (zero
 * before its first reference) and gives @p.
 */
int hot_ref_at(struct hot *h, struct hot_page *p, uint64_t page, uint32_t tag,
	       uint64_t aux);

/*
 * The top N: out[] is a heap of the best entries seen so far, as
 *	struct hot_top t = { .out = out, .n = N };
 *	hot_top_add(&t, page, p);	such a caller's pages, in any order
 *	n = hot_top_end(h, &t);		hot's own, and out[] in order
 */
struct hot_top {
	struct hot_entry *out;
	size_t n, nr;
};

void hot_top_add(struct hot_top *t, uint64_t page, const struct hot_page *p);

/*
 * With hot's own entries, out[]'s first entries are the @t->n with the
 * most references, most first; ties by page, then tag, ascending.
 * Returns how many (fewer than n when there are fewer entries).
 */
long hot_top_end(const struct hot *h, struct hot_top *t);

/* hot_top_end() of hot's own entries alone, into @out of @n. */
long hot_top(const struct hot *h, struct hot_entry *out, size_t n);

void hot_free(struct hot *h);

#endif
