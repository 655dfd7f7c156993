/* SPDX-License-Identifier: GPL-2.0 */
/*
 * credit - which region a page's references count for, in a report that
 * counts per page over every address space of a trace (hot): the rule
 * the map and the summary follow (space.h), for each address space at
 * its end (an exec, the end of the trace). A page's references count for
 * the region of that final layout that holds the page; if none does, for
 * the last region that held it at one of its references, if that region
 * was removed holding it (a removed region); else for none.
 *
 *	struct credits c = { .tags = &tags };	(the report's regtags)
 *
 *	pass's rec:	credit_rec(&c, ps, r);
 *	pass's fault:	the page's space, credit_space(&c, sp), and the
 *			tag of the region of its latest reference,
 *			regtag_of(c.tags, sp, g), kept with the page
 *	after the pass:	credit_end(&c, ps);
 *			tag = credit_region(&c, space, addr, latest);
 */
#ifndef PGFREPORT_CREDIT_H
#define PGFREPORT_CREDIT_H

#include <stdint.h>
#include "regtag.h"

struct pass;

struct credits {
	struct regtags *tags;
	/* by a space's small number: its final layout, tags by start */
	struct credit_layout {
		uint32_t *tag;
		size_t nr;
	} *final;
	size_t nfinal;
	long *key;		/* by small number: the space's key */
	size_t nkey;
};

/*
 * The small number of address space @sp (pass_fault_fn's): 0, 1, ... in
 * order of first sight; -1 when out of memory.
 */
int64_t credit_space(struct credits *c, long sp);
/* Address space @space's execs before it in its process, or -1. */
static inline long credit_execs(const struct credits *c, int64_t space)
{
	if (space < 0 || (size_t)space >= c->nkey || c->key[space] < 0)
		return -1;
	return c->key[space] & 0xfffff;
}
/* Every record but faults, before the pass applies it; 0, or -1 (memory). */
int credit_rec(struct credits *c, struct pass *ps, const struct pgft_rec *r);
/* The address spaces the trace ends with; 0, or -1 (memory). */
int credit_end(struct credits *c, struct pass *ps);
/*
 * After credit_end(): the tag of the region that @addr's references in
 * address space @space (credit_space()'s) count for, @latest the tag of
 * the region of the page's latest reference; 0 for none.
 */
uint64_t credit_region(const struct credits *c, int64_t space,
		       unsigned long long addr, uint64_t latest);
void credits_free(struct credits *c);

#endif
