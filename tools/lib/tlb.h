/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tlb - TLB misses of a page reference string: set-associative LRU TLBs
 * described as ENTRIES:WAYS, simulated; a fully associative LRU TLB of N
 * entries is an LRU cache of N pages, read off the exact LRU curve of
 * reuse.h (reuse_lru_misses()).
 *
 *	struct tlb_spec *s;
 *	size_t nr;
 *	struct tlb t;
 *
 *	tlb_parse("64,64:4,1536:12", &s, &nr);	// 64 fully associative, ...
 *	tlb_init(&t, 1536, 12);			// 128 sets of 12 ways
 *	for each referenced page:
 *		tlb_ref(&t, page);
 *	t.misses ...
 *	tlb_free(&t);
 *
 * A set-associative TLB of E entries and W ways has E / W sets; page p
 * goes to set p mod (E / W), and each set is an LRU cache of W pages
 * (a set is a small array, most recently used first). It starts empty,
 * so misses include the cold ones. Pages are the trace's pages (4 KiB on
 * the machines we trace); a TLB entry for a huge page, the page walk's
 * own caches and anything at cache-line granularity are beyond a page
 * trace. Memory: 8 bytes per entry, whatever the trace's length.
 */
#ifndef PGFT_TLB_H
#define PGFT_TLB_H

#include <stddef.h>
#include <stdint.h>

/* A TLB: @ways 0 is fully associative (LRU over all @entries). */
struct tlb_spec {
	uint64_t entries;
	uint32_t ways;
};

/* The TLBs pgfreport tlb models without a list: L1 dTLB and STLB. */
#define TLB_DEFAULT_SPECS "64,64:4,1536,1536:12"

/*
 * Parse "N" (fully associative) and "N:W" items, comma-separated, into a
 * new array (free() it). W must divide N. 0, or -1 for a bad list
 * (errno EINVAL) or no memory.
 */
int tlb_parse(const char *list, struct tlb_spec **specs, size_t *nr);

struct tlb {
	uint64_t sets;
	uint32_t ways;
	uint64_t *way;		/* sets * ways: page + 1, MRU first; 0 empty */
	uint64_t refs, misses;
};

/* A set-associative TLB, empty; 0, or -1 when out of memory. */
int tlb_init(struct tlb *t, uint64_t entries, uint32_t ways);

/* Look @page (< UINT64_MAX) up, loading it on a miss; 1 on a hit, 0 a miss. */
static inline int tlb_ref(struct tlb *t, uint64_t page)
{
	uint64_t *w = t->way + (page % t->sets) * t->ways, key = page + 1;
	uint32_t i;
	int hit;

	t->refs++;
	for (i = 0; i < t->ways && w[i] != key; i++)
		;
	hit = i < t->ways;
	if (!hit) {
		t->misses++;
		i = t->ways - 1;	/* the least recently used goes */
	}
	/* To the front, the others one place back. */
	for (; i; i--)
		w[i] = w[i - 1];
	w[0] = key;
	return hit;
}

void tlb_free(struct tlb *t);

#endif
