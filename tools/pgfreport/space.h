/* SPDX-License-Identifier: GPL-2.0 */
/*
 * space - what the map and the summary keep of an address space: each
 * region it had (by id, with its range, permissions and name as last
 * seen), the faults that happened while the region held the address, and
 * every page that faulted, with how many times. One address space is
 * kept: --space N's (0 the one tracing started in, 1 after the first
 * exec, ...), or the last.
 *
 *	struct spaces s = SPACES_INIT(want);	(want: --space, -1: the last)
 *
 *	pass's rec:	space_rec(&s, r);
 *	pass's fault:	space_fault(&s, r, g, pass_page(ps, r->addr));
 *	at the end:	sp = space_end(&s); (NULL: no such --space; s.seen)
 */
#ifndef PGFREPORT_SPACE_H
#define PGFREPORT_SPACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "../lib/pgftrace.h"

/*
 * Every page that faulted: how many times, and the region it last faulted
 * in (open addressing, one 16-byte slot a page, so that a fault touches
 * one cache line).
 */
struct pageslot {
	uint64_t key;		/* page + 1; 0 is empty */
	uint32_t n;		/* its faults (saturating) */
	uint32_t reg;		/* the region's rstat.ord + 1; 0: none */
};

struct pageset {
	struct pageslot *slot;
	size_t cap, nr;
};

/* How many times @page faulted; 0 if never. */
uint32_t ps_count(const struct pageset *s, uint64_t page);

struct rstat {
	unsigned long long id, start, end;
	char perms[5];
	char *name;
	/*
	 * All of them count what happened while the region held the
	 * address: its faults, and the distinct pages that faulted in it.
	 */
	unsigned long long faults, major, reref, first_ns, pages_touched;
	uint32_t ord;		/* in order of creation: pageslot.reg - 1 */
	bool touched, alive;
};

/* rstat_of()'s memo: a region's index + 1 by the low bits of its id */
#define SPACE_MEMO	16

struct space {
	struct pageset pages;		/* pages that faulted, and where */
	struct rstat *r;		/* every region seen, by id */
	size_t nr, cap;
	uint32_t memo[SPACE_MEMO];
	uint32_t ords;			/* rstat.ord handed out */
	unsigned long long faults, major, reref, failed;
};

struct spaces {
	long want;			/* --space N, or -1: the last */
	long index;			/* the current one's */
	long shown;			/* chosen's, or -1 */
	struct space cur, chosen;
};

#define SPACES_INIT(w) { .want = (w), .shown = -1 }

void space_rec(struct spaces *s, const struct pgft_rec *r);
/* A hint: @page will fault soon (pass.prefetch). */
void space_prefetch(struct spaces *s, uint64_t page);
/* Fault @r, at @page (its address's page number), in region @g (or NULL). */
void space_fault(struct spaces *s, const struct pgft_rec *r,
		 const struct pgft_region *g, unsigned long long page);
/* The address space asked for, its regions by start (alive first). */
struct space *space_end(struct spaces *s);
void spaces_free(struct spaces *s);

struct pass;

/*
 * After the pass over the trace: the address space asked for, or NULL
 * after saying there is no such --space (or when --pid named no
 * process); *@status is set to 1 then.
 */
struct space *spaces_result(struct pass *ps, struct spaces *s, int *status);

#endif
