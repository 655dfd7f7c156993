// SPDX-License-Identifier: GPL-2.0
/*
 * plots - pgfreport's charts, from the analyses' results. See plots.h.
 */
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include "chart.h"
#include "plots.h"

const char *const plot_policy_color[PLOT_POLICIES] = {
	"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728",
};

const char *plot_title(const char *what, const char *fname)
{
	static char title[160];
	char *copy = strdup(fname);

	snprintf(title, sizeof(title), "%s: %s", what,
		 copy ? basename(copy) : fname);
	free(copy);
	return title;
}

void plot_mrc(FILE *f, const struct plot_text *t, const uint64_t *sizes,
	      size_t n, const uint64_t *const misses[PLOT_POLICIES],
	      uint64_t refs, uint64_t blind, bool sampled)
{
	static const char *const name[PLOT_POLICIES] = {
		"LRU (exact)", "FIFO", "CLOCK", "OPT (Belady's MIN)"
	};
	static const char *const sampled_name[PLOT_POLICIES] = {
		"LRU (sampled)", "FIFO (sampled)", "CLOCK (sampled)", "OPT (sampled)"
	};
	/*
	 * Widest first: where two policies miss alike, each stays visible
	 * as a ring around the next.
	 */
	static const double width[PLOT_POLICIES] = { 8, 5.5, 3.5, 1.5 };
	static const double marker[PLOT_POLICIES] = { 7, 5, 3.2, 1.6 };
	struct chart_series s[PLOT_POLICIES];
	size_t ns = 0;
	double *x = calloc(n ? n : 1, sizeof(*x));
	double *y = calloc((n ? n : 1) * PLOT_POLICIES, sizeof(*y));
	char label[96];
	struct chart c = {
		.title = t->title, .notes = t->notes, .nnotes = t->nnotes,
		.xlabel = "cache size (pages, and bytes below them)",
		.ylabel = "miss ratio (misses / references, cold ones included)",
		.xunit = SVG_PAGES, .yunit = SVG_SHARE, .xlog = true,
		.ylo = 0, .yhi = 1, .page_size = t->page_size, .s = s,
	};

	if (!x || !y) {
		free(x);
		free(y);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		x[i] = (double)sizes[i];
		for (int p = 0; p < PLOT_POLICIES; p++)
			if (misses[p])
				y[p * n + i] = refs ? (double)misses[p][i] / refs : 0;
	}
	/* a policy not estimated (NULL) is left out, legend and all */
	for (int p = 0; p < PLOT_POLICIES; p++)
		if (misses[p])
			s[ns++] = (struct chart_series){
				.name = sampled ? sampled_name[p] : name[p],
				.color = plot_policy_color[p], .x = x,
				.y = y + p * n, .n = n, .width = width[p],
				.marker = marker[p],
			};
	c.ns = ns;
	if (n) {
		c.xlo = x[0];
		c.xhi = x[n - 1];
	}
	if (blind > 1 && n && x[0] < blind) {
		c.shade_lo = x[0];
		c.shade_hi = blind < x[n - 1] ? blind : x[n - 1];
		snprintf(label, sizeof(label), "below %llu pages: not told by "
			 "this trace", (unsigned long long)blind);
		c.shade_label = label;
	}
	chart_lines(f, &c);
	free(x);
	free(y);
}

void plot_reuse(FILE *f, const struct plot_text *t, const struct reuse *r)
{
	static const char *const lname[] = { "reuse distance", "cold (first reference)" };
	static const char *const lcolor[] = { "#1f77b4", "#9a9a9a" };
	unsigned int top = r->refs > r->cold ? reuse_bin(r->max_dist) : 0;
	size_t n = r->refs > r->cold ? top + 2 : 1;
	struct chart_bar *b = calloc(n, sizeof(*b));
	char (*label)[48] = calloc(n, sizeof(*label));
	double cum = 0, all = r->refs ? (double)r->refs : 1;
	struct chart_bars c = {
		.title = t->title, .notes = t->notes, .nnotes = t->nnotes,
		.xlabel = "LRU stack distance (other pages referenced since the "
			  "page's previous reference), log2 bins",
		.ylabel = "share of references",
		.b = b, .n = n, .line_name = "cumulative share (right axis): the hit ratio of an LRU cache one page larger than the bin's top",
		.line_color = "#ff7f0e", .legend_name = lname,
		.legend_color = lcolor, .nlegend = 2,
	};

	if (!b || !label) {
		free(b);
		free(label);
		return;
	}
	for (size_t k = 0; k + 1 < n; k++) {
		reuse_bin_label(label[k], sizeof(label[k]), k);
		cum += r->bins[k];
		b[k] = (struct chart_bar){ label[k], r->bins[k] / all, lcolor[0],
					   cum / all };
	}
	b[n - 1] = (struct chart_bar){ "cold", r->cold / all, lcolor[1],
				       r->refs ? 1 : 0 };
	chart_bars(f, &c);
	free(b);
	free(label);
}

void plot_timeline(FILE *f, const struct plot_text *t, const double *t_ns,
		   const double *pages, const double *ws, const double *foot,
		   size_t n, const char *window_label)
{
	struct chart_series s[3] = {
		{ .name = "footprint (pages faulted so far)", .color = "#9a9a9a",
		  .x = t_ns, .y = foot, .n = n, .width = 2 },
		{ .name = window_label, .color = "#1f77b4", .x = t_ns, .y = ws,
		  .n = n, .width = 3 },
		{ .name = "pages faulted in the interval", .color = "#ff7f0e",
		  .x = t_ns, .y = pages, .n = n, .width = 1.5 },
	};
	struct chart c = {
		.title = t->title, .notes = t->notes, .nnotes = t->nnotes,
		.xlabel = "time since the trace's start (interval starts)",
		.ylabel = "pages", .xunit = SVG_NS, .yunit = SVG_PAGES,
		.page_size = t->page_size, .s = s, .ns = 3,
	};

	chart_lines(f, &c);
}

void plot_wss(FILE *f, const struct plot_text *t, const struct wss *w)
{
	uint64_t n = w->refs;
	double x[130], y[130];
	size_t k = 0;
	struct chart_series s = {
		.name = "s(tau): mean working-set size", .color = "#1f77b4",
		.x = x, .y = y, .width = 2.5, .marker = 3.5,
	};
	struct chart c = {
		.title = t->title, .notes = t->notes, .nnotes = t->nnotes,
		.xlabel = "window tau (references of the trace)",
		.ylabel = "mean working-set size", .xunit = SVG_PLAIN,
		.yunit = SVG_PAGES, .xlog = true, .ylog = true,
		.page_size = t->page_size, .s = &s, .ns = 1,
	};

	for (uint64_t tau = 1; n && k < 130; tau = tau < n && tau * 2 > n ? n : tau * 2) {
		x[k] = (double)tau;
		y[k++] = (double)wss_sum(w, tau) / n;
		if (tau >= n)
			break;
	}
	s.n = k;
	chart_lines(f, &c);
}
