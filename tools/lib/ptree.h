/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ptree - the processes of a tree file (tracepgfault -f): who created
 * whom and when, what each ran, its faults, pages and losses, and each
 * one's address space as its region records describe it.
 *
 *	struct ptree pt = { 0 };
 *
 *	while (pgft_next(&rd, &r) > 0) {
 *		struct ptree_proc *p = ptree_rec(&pt, &r, page_size);
 *		... pgft_find(&p->as, r.addr) ...
 *	}
 *	ptree_print(&pt, stdout);
 */
#ifndef PTREE_H
#define PTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "pgftrace.h"

struct ptree_proc {
	int pid;
	int parent;			/* its creator's pid; 0 for the root */
	size_t index;			/* in the order first seen, from 0 */
	unsigned long long created;	/* the creator's child record, ns */
	unsigned long long start, end;	/* first and last record, ns */
	unsigned long long faults, major, reref, lost, children, untraced;
	unsigned long long pages;	/* distinct pages faulted, all spaces */
	long space;			/* address spaces so far (execs) */
	bool exited, stopped;
	struct pgft_tally tally;	/* its end, checked (pgftrace.h) */
	unsigned long long status;	/* wait status, if exited */
	char *cmd;			/* the last exec's path, or NULL */
	struct pgft_space as;		/* its regions now */
	/* distinct (space, page) keys: open addressing, 0 empty */
	uint64_t *seen;
	size_t nseen, cap;
};

struct ptree {
	struct ptree_proc *v;
	size_t nr, cap;
	/* pid -> index + 1, open addressing, at most half full (0: empty) */
	uint32_t *slot;
	size_t nslots;
	size_t last;		/* the last one found: records come in blocks */
};

/* The process of @pid, or NULL. O(1). */
const struct ptree_proc *ptree_find(const struct ptree *t, int pid);
/* The process of @pid, made if new; NULL if out of memory. O(1). */
struct ptree_proc *ptree_get(struct ptree *t, int pid);
/*
 * Account record @r to its process (r->pid), whose address space (as,
 * space) it leaves as it was; returns the process, NULL if out of
 * memory. A caller that looks at the address space before a record
 * changes it (pgfreport's pass) applies the record after, with
 * ptree_apply().
 */
struct ptree_proc *ptree_count(struct ptree *t, const struct pgft_rec *r,
			       unsigned long page_size);
/* Record @r's change to @p's address space: its regions, an exec; 0, or -1 out of memory. */
int ptree_apply(struct ptree_proc *p, const struct pgft_rec *r);
/* ptree_count(), then ptree_apply(). */
struct ptree_proc *ptree_rec(struct ptree *t, const struct pgft_rec *r,
			     unsigned long page_size);
/*
 * How @p ended, as wait(2) tells it: "exit N", "signal N", "stopped"
 * (tracing stopped), or @going if neither.
 */
void ptree_status(const struct ptree_proc *p, char *buf, size_t size,
		  const char *going);
/* The tree, indented by depth, then the totals. */
void ptree_print(const struct ptree *t, FILE *out, unsigned long long t0);
void ptree_free(struct ptree *t);

#endif
