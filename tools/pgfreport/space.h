/* SPDX-License-Identifier: GPL-2.0 */
/*
 * space - what the map and the summary keep of an address space: each
 * region it had (by id, with its range, permissions and name as last
 * seen), every page that faulted, with how many times, and the faults
 * credited to each region. One address space is kept: --space N's (0 the
 * one tracing started in, 1 after the first exec, ...), or the last.
 *
 * A fault is credited to the region of the layout at the address space's
 * end that holds its address, whatever region held it when it happened
 * (a split, a partial munmap, a new mapping over an old one): the map's
 * marks and the summary's counts of a region are the same pages. A fault
 * at an address no region holds at the end counts for the last region
 * that held it when it faulted if that region was removed holding it
 * (its row is a removed one), and for none if that region shrank or
 * moved away from it.
 *
 *	struct spaces s = SPACES_INIT(want);	(want: --space, -1: the last)
 *
 *	before the pass:	spaces_begin(&s, ps);
 *	pass's rec:	space_rec(&s, r);
 *	pass's fault:	space_fault(&s, r, g);
 *	at the end:	sp = space_end(&s); (NULL: no such --space)
 *			space_count_in(&s, r, page): its faults, if region
 *			r is credited with them
 */
#ifndef PGFREPORT_SPACE_H
#define PGFREPORT_SPACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "../lib/pageid.h"
#include "../lib/pgftrace.h"

struct pass;

/*
 * What is kept of a page that faulted, in the pass's slot for it
 * (pass_reserve()): one cache line holds it, and the other reports' state
 * for the page. Its faults are credited to a region at the end.
 */
struct space_page {
	uint32_t gen;		/* the address space it counts for: index + 1 */
	uint32_t n;		/* its faults there (saturating) */
	uint32_t reg;		/* rstat.ord + 1 of the region that held it at
				 * its last fault in one; 0: none */
	uint32_t major, reref;	/* of its faults (saturating) */
	uint32_t first;		/* its first fault's time: space.first[first] */
};

/*
 * The pages that faulted in an address space that ended before the last
 * and is the one shown (--space N), and how many times (open addressing).
 */
struct pageslot {
	uint64_t key;		/* page + 1; 0 is empty */
	struct space_page p;
};

struct pageset {
	struct pageslot *slot;
	size_t cap, nr;
};

struct rstat {
	unsigned long long id, start, end;
	char perms[5];
	char *name;
	/*
	 * The faults credited to the region (see above), and the distinct
	 * pages they were on: set by space_end().
	 */
	unsigned long long faults, major, reref, first_ns, pages_touched;
	uint32_t ord;		/* in order of creation: space_page.reg - 1 */
	bool touched, alive;
};

/* rstat_of()'s memo: a region's index + 1 by the low bits of its id */
#define SPACE_MEMO	16

struct space {
	unsigned long long pages;	/* the pages that faulted */
	/*
	 * The time of each page's first fault, in the order they came:
	 * kept apart, so that a page's slot stays within 32 bytes.
	 */
	uint64_t *first;
	struct rstat *r;		/* every region seen, by id */
	size_t nr, cap;
	uint32_t memo[SPACE_MEMO];
	uint32_t ords;			/* rstat.ord handed out */
	size_t alive;			/* after space_end(): r[0 .. alive) */
	/* after space_end(): the pages credited to no region, their faults */
	unsigned long long pages_out, faults_out;
	unsigned long long faults, major, reref, failed;
	bool nomem;			/* out of room: it was said, it keeps no more */
};

struct spaces {
	long want;			/* --space N, or -1: the last */
	long index;			/* the current one's */
	long shown;			/* chosen's, or -1 */
	struct space cur, chosen;
	struct pass *ps;		/* whose slots hold the pages' */
	size_t off;			/* struct space_page, in them */
	/* chosen's pages, when it ended before the last (else in ps's slots) */
	struct pageset frozen;
	bool is_frozen;
	bool nomem;			/* an address space ran out of room */
};

#define SPACES_INIT(w) { .want = (w), .shown = -1 }

/* Before the pass: room in its slots; 0, or 1 after a message. */
int spaces_begin(struct spaces *s, struct pass *ps);
/*
 * Record @r, before the pass applies it; fault @r, in region @g (or
 * NULL), of the pass (its ps->slot). 0, or -1 after saying it ran out of
 * memory: the pass is to stop.
 */
int space_rec(struct spaces *s, const struct pgft_rec *r);
int space_fault(struct spaces *s, const struct pgft_rec *r,
		const struct pgft_region *g);
/*
 * The address space asked for, its regions by start (alive first), the
 * faults credited to each; NULL if there is no such --space. With
 * s->nomem (out of memory on the way, said on standard error), it is
 * not to be reported.
 */
struct space *space_end(struct spaces *s);
/*
 * After space_end(): how many times @page faulted in the address space,
 * if its faults are credited to region @r (0 if not, or if it never
 * faulted): the map's marks of @r.
 */
uint32_t space_count_in(const struct spaces *s, const struct rstat *r,
			uint64_t page);
void spaces_free(struct spaces *s);

/*
 * After the pass over the trace: the address space asked for, or NULL
 * after saying there is no such --space (or when --pid named no
 * process); *@status is set to PGF_EXIT_USAGE then, or to PGF_EXIT_FAIL
 * when the pass ran out of memory.
 */
struct space *spaces_result(struct pass *ps, struct spaces *s, int *status);

#endif
