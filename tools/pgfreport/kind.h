/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kind - what kind of trace an analysis reads (its start records'
 * modes: first touches, re-references, a window, intervals) and what
 * that means for the analysis: the "# " lines the analyses print first
 * and their charts carry under the title.
 *
 *	struct kind k = { 0 };
 *	struct notes n;
 *
 *	pass's rec:	kind_rec(&k, r);
 *	pass's fault:	kind_fault(&k, r);
 *	at the end:	kind_notes(&k, &n, AN_MRC); notes_print(&n);
 */
#ifndef PGFREPORT_KIND_H
#define PGFREPORT_KIND_H

#include <stddef.h>
#include <stdint.h>
#include "../lib/pgftrace.h"
#include "../lib/plots.h"

/* What the notes are for. */
enum analysis {
	AN_MAP, AN_TIMELINE,
	/* analyses of the reference string */
	AN_MRC, AN_REUSE, AN_TLB, AN_HOT, AN_WSS, AN_PREFETCH,
};

struct kind {
	char **modes;			/* the start records' modes, each once */
	size_t nmodes, starts;
	unsigned long long rerefs;	/* reref faults */
};

#define NOTES 12

struct notes {
	char line[NOTES][360];
	const char *ptr[NOTES];
	size_t n;
};

/* 0, or -1 out of memory. */
int kind_rec(struct kind *k, const struct pgft_rec *r);
static inline void kind_fault(struct kind *k, const struct pgft_rec *r)
{
	k->rerefs += r->result == PGFT_REREF;
}

/* The notes of analysis @an of a trace of kind @k. */
void kind_notes(const struct kind *k, struct notes *n, enum analysis an);
void notes_print(const struct notes *n);
/* The largest K of the trace's window=K modes: sizes below it are blind. */
uint64_t kind_blind(const struct kind *k);
/* A chart's title ("@what: " and @fname's base name) and @n's notes. */
struct plot_text kind_plot_text(const struct notes *n, const char *what,
				const char *fname, unsigned long page_size);
void kind_free(struct kind *k);

#endif
