/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pageid - number pages densely in the order they are first seen.
 *
 * The cache analyses (reuse.c, mrc.c) keep per-page state in arrays
 * indexed by these ids: id 0 is the first page referenced, id 1 the
 * second new one, ..., so ids < N are the first N distinct pages, and
 * the arrays grow with the footprint, never with the trace.
 *
 *	struct pgid_map m = { 0 };
 *	int64_t id = pgid_get(&m, page);	// m.nr grows when new
 *	...
 *	pgid_free(&m);
 *
 * A page's slot also holds the caller's state for it: 4 bytes (val) by
 * default, or as many as pgid_set_data() asks for, after the key and the
 * id, so that one lookup finds the page's id and state in one cache line
 * (pgfreport's pass keeps every report's state there). A caller that
 * needs no ids has the id's 4 bytes too.
 */
#ifndef PGFT_PAGEID_H
#define PGFT_PAGEID_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

struct pgid_slot {
	uint64_t key;		/* page + 1; 0 is an empty slot */
	uint32_t id;		/* unless pgid_set_data() said no ids */
	uint32_t val;		/* the caller's, 0 for a new page */
	/* with pgid_set_data(): the caller's further bytes, zero when new */
};

/* Where the caller's bytes of a slot start: with ids (val), without. */
#define PGID_DATA_OFF	12
#define PGID_NOID_OFF	8
/* The most pgid_set_data() takes: a slot is 256 bytes at most. */
#define PGID_DATA_MAX	(256 - PGID_DATA_OFF)

struct pgid_map {
	struct pgid_slot *slot;	/* open addressing, linear probing */
	size_t cap;		/* a power of two, or 0 */
	unsigned int shift;	/* 64 - log2(cap) */
	unsigned int order;	/* a slot is 16 << order bytes */
	bool noid;		/* slots hold no id (pgid_set_data()) */
	uint32_t nr;		/* ids handed out: 0 .. nr - 1 */
};

/*
 * Before the first page: @bytes of the caller's in each slot, from
 * PGID_DATA_OFF on (val's 4 included), or, without @ids, from
 * PGID_NOID_OFF on, where the id would be (pgid_get() and slot->id are
 * then not to be used; m->nr still counts the pages). The slot is the
 * next power of two, so that it never straddles two cache lines. 0, or
 * -1 when pages are in already or @bytes is over PGID_DATA_MAX.
 */
int pgid_set_data(struct pgid_map *m, size_t bytes, bool ids);

/* Slot @i of the table. */
static inline struct pgid_slot *pgid_at(const struct pgid_map *m, size_t i)
{
	return (struct pgid_slot *)((char *)m->slot + (i << (4 + m->order)));
}

/* The caller's bytes of slot @s at @off from its start (PGID_*_OFF on). */
static inline void *pgid_data(struct pgid_slot *s, size_t off)
{
	return (char *)s + off;
}

/* Fibonacci hashing: the top log2(cap) bits of the product. */
static inline size_t pgid_hash(uint64_t key, unsigned int shift)
{
	return (size_t)((key * 0x9e3779b97f4a7c15ULL) >> shift);
}

/*
 * Start loading @page's slot into the CPU's cache, for a lookup a few
 * references later: batches of references hide the table's latency.
 * Always inlined: GCC takes a function that only prefetches for one
 * without side effects and drops the calls to it before inlining them
 * (seen with GCC 12: no prefetch was left in reuse.c).
 */
static inline __attribute__((always_inline)) void pgid_prefetch(const struct pgid_map *m, uint64_t page)
{
	if (m->cap)
		__builtin_prefetch(pgid_at(m, pgid_hash(page + 1, m->shift)));
}

/* The largest page number a map takes (its key is page + 1). */
#define PGID_PAGE_MAX (UINT64_MAX - 1)

/*
 * The id of @page: a new one (the old m->nr) if it was never seen.
 * -1 when out of memory or out of ids (2^32 - 1 distinct pages), or in
 * a map without ids.
 */
int64_t pgid_get(struct pgid_map *m, uint64_t page);

/* pgid_slot() past its first probe: the probe sequence, an insertion. */
struct pgid_slot *pgid_slot_probe(struct pgid_map *m, uint64_t page);

/*
 * The same, as its slot, whose val the caller may use (a page's state
 * found by the same lookup); valid until the next call. NULL when out of
 * memory or ids. Inline, the first probe: most lookups end there.
 */
static inline struct pgid_slot *pgid_slot(struct pgid_map *m, uint64_t page)
{
	if (m->cap) {
		struct pgid_slot *s = pgid_at(m, pgid_hash(page + 1, m->shift));

		if (s->key == page + 1)
			return s;
	}
	return pgid_slot_probe(m, page);
}

/* The slot of @page, or NULL if it has none: a lookup that adds nothing. */
struct pgid_slot *pgid_lookup(const struct pgid_map *m, uint64_t page);

void pgid_free(struct pgid_map *m);

#endif
