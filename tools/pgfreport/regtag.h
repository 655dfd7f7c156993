/* SPDX-License-Identifier: GPL-2.0 */
/*
 * regtag - a small number for each region a reference string touched
 * (a region id names a region within its address space): 1, 2, ... in
 * order of first sight, 0 for an address outside every region; with the
 * region's name and whether it maps a file. hot, prefetch and reuse count
 * per region by it.
 */
#ifndef PGFREPORT_REGTAG_H
#define PGFREPORT_REGTAG_H

#include <stdbool.h>
#include <stdint.h>
#include "../lib/pageid.h"
#include "../lib/pgftrace.h"

#define REGTAG_MEMO	16

struct regtags {
	struct pgid_map spaces;		/* address space key -> a small number */
	struct pgid_map ids;		/* (that number, region id) -> tag - 1 */
	uint32_t nv;			/* the entries of v[] made */
	struct regtag {
		char *name;
		bool file;
		/*
		 * Its range and file offset as last seen (at its removal, for
		 * one removed), and whether it is in its address space's
		 * final layout: credit.h keeps them.
		 */
		bool alive;
		unsigned long long start, end, offset;
	} *v;
	/*
	 * The tags found last, by region id: faults spread over a few
	 * regions find theirs here without the two lookups (tag 0: empty).
	 */
	struct regtag_memo {
		long space;
		unsigned long long id;
		uint64_t tag;
	} memo[REGTAG_MEMO];
	/*
	 * Out of memory once: every tag since is 0 (no region), and the
	 * report says it failed instead of reporting.
	 */
	bool oom;
};

/* regtag_of() past its memo: the lookups, a new tag. */
uint64_t regtag_find(struct regtags *t, long space, const struct pgft_region *g);

/* The tag of region @g of address space @space; 0 for NULL (or t->oom). */
static inline uint64_t regtag_of(struct regtags *t, long space,
				 const struct pgft_region *g)
{
	const struct regtag_memo *m;

	if (!g)
		return 0;
	m = &t->memo[g->id % REGTAG_MEMO];
	if (m->tag && m->space == space && m->id == g->id)
		return m->tag;
	return regtag_find(t, space, g);
}

/* The tag of region @id of address space @space, or 0 if it has none. */
uint64_t regtag_peek(const struct regtags *t, long space, unsigned long long id);

static inline const char *regtag_name(const struct regtags *t, uint64_t tag)
{
	return tag ? t->v[tag - 1].name : "-";
}

static inline bool regtag_file(const struct regtags *t, uint64_t tag)
{
	return tag && t->v[tag - 1].file;
}

void regtags_free(struct regtags *t);

#endif
