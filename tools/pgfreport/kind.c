// SPDX-License-Identifier: GPL-2.0
/*
 * kind - what kind of trace an analysis reads, and what that means
 * (kind.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "exit.h"
#include "kind.h"

int kind_rec(struct kind *k, const struct pgft_rec *r)
{
	const char *m;
	char **v;

	if (r->type != PGFT_START)
		return 0;
	m = *r->text ? r->text : "first";
	k->starts++;
	for (size_t i = 0; i < k->nmodes; i++)
		if (!strcmp(k->modes[i], m))
			return 0;
	v = realloc(k->modes, (k->nmodes + 1) * sizeof(*v));
	if (!v)
		return -1;
	k->modes = v;
	if (!(v[k->nmodes] = strdup(m)))
		return -1;
	k->nmodes++;
	return 0;
}

static void __attribute__((format(printf, 2, 3)))
note(struct notes *n, const char *fmt, ...)
{
	va_list ap;

	if (n->n == NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(n->line[n->n], sizeof(n->line[0]), fmt, ap);
	va_end(ap);
	n->ptr[n->n] = n->line[n->n];
	n->n++;
}

void kind_notes(const struct kind *k, struct notes *n, enum analysis an)
{
	n->n = 0;
	if (!k->starts)
		note(n, "mode first (the trace has no start record)");
	for (size_t i = 0; i < (k->starts ? k->nmodes : 1); i++) {
		const char *m = k->starts ? k->modes[i] : "first";

		if (n->n >= NOTES - 2) {
			note(n, "(and %zu more modes)", k->nmodes - i);
			break;
		}
		if (k->starts)
			note(n, "mode %s", m);
		if (!strcmp(m, "first") && !k->rerefs)
			note(n, "  first touches only (a page faults again only for a "
			     "write after a read): nearly every reference is a cold "
			     "miss, %s show no reuse (trace with -w or -i for that)",
			     an >= AN_MRC ? "so the curves sit at the footprint and" :
			     "the faults");
		else if (!strcmp(m, "first"))
			note(n, "  first touches, and re-references after the program's "
			     "rearm writes: reuse is seen only across a rearm");
		else if (!strncmp(m, "window=", 7))
			note(n, "  the references that missed a FIFO window of %s pages "
			     "(the hits are not in the trace): sizes below %s pages "
			     "cannot be told", m + 7, m + 7);
		else if (!strncmp(m, "interval=", 9))
			note(n, "  each page's first reference in each interval of %s ms: "
			     "reuse within an interval is not seen", m + 9);
	}
	if (an == AN_HOT)
		note(n, "a page's references are its faults in the trace: one or two "
		     "each in a first-touch trace, the returns after leaving the "
		     "window or the interval in the others");
	else if (an == AN_WSS)
		note(n, "the references are a subsequence of the program's: windows "
		     "count the trace's references, not the program's");
	else if (an == AN_PREFETCH)
		note(n, "every fault of the trace is a page the program needed and did "
		     "not have: the faults a prefetch would have avoided, of these");
	else if (an == AN_TIMELINE)
		note(n, "a page counts in an interval when it faults in it: the "
		     "working set holds the pages that faulted in the window, so a "
		     "first-touch trace shows new pages, not the pages in use");
	else if (an >= AN_MRC)
		note(n, "the references are a subsequence of the program's: LRU and "
		     "OPT misses%s are lower bounds of its own, FIFO and CLOCK have "
		     "no such bound", an == AN_TLB ? " (and every LRU TLB's)" : "");
}

void notes_print(const struct notes *n)
{
	for (size_t i = 0; i < n->n; i++)
		printf("# %s\n", n->line[i]);
}

uint64_t kind_blind(const struct kind *k)
{
	uint64_t w = 0;

	for (size_t i = 0; i < k->nmodes; i++)
		if (!strncmp(k->modes[i], "window=", 7) &&
		    strtoull(k->modes[i] + 7, NULL, 10) > w)
			w = strtoull(k->modes[i] + 7, NULL, 10);
	return w;
}

struct plot_text kind_plot_text(const struct notes *n, const char *what,
				const char *fname, unsigned long page_size)
{
	return (struct plot_text){ plot_title(what, fname), n->ptr, n->n,
				   page_size };
}

void kind_free(struct kind *k)
{
	for (size_t i = 0; i < k->nmodes; i++)
		free(k->modes[i]);
	free(k->modes);
	memset(k, 0, sizeof(*k));
}
