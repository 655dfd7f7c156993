/* SPDX-License-Identifier: GPL-2.0 */
/*
 * chart - the two kinds of chart pgfreport draws as SVG, on svg.h: lines
 * (miss-ratio curves, the working set over time, Denning's curve) and
 * bars (histograms).
 *
 * Both write a title, note lines under it (what kind of trace the data
 * came from, and what that means), the plot area of svg.h with its
 * axes, and a legend. Series are drawn in order, so a wide line drawn
 * first stays visible around a narrower one drawn over it where two
 * series are equal; markers are drawn in the same order.
 */
#ifndef PGFT_CHART_H
#define PGFT_CHART_H

#include <stdio.h>
#include "svg.h"

struct chart_series {
	const char *name, *color;
	const char *dash;		/* stroke-dasharray, NULL: solid */
	const double *x, *y;
	size_t n;
	double width;			/* line width, pixels */
	double marker;			/* marker radius, 0: none */
};

struct chart {
	const char *title;
	const char *const *notes;	/* lines under the title */
	size_t nnotes;
	const char *xlabel, *ylabel;
	enum svg_unit xunit, yunit;
	bool xlog, ylog;
	/* The axes' ranges; hi <= lo: the data's, from 0 for a linear axis. */
	double xlo, xhi, ylo, yhi;
	unsigned long page_size;	/* for SVG_PAGES */
	/* An x range shaded grey, with its label: data that cannot be told. */
	double shade_lo, shade_hi;
	const char *shade_label;
	const struct chart_series *s;
	size_t ns;
};

/* Write @c as an SVG document to @f. */
void chart_lines(FILE *f, const struct chart *c);

struct chart_bar {
	const char *label;		/* under the bar */
	double v;			/* its height */
	const char *color;
	double line;			/* the line's value at this bar, 0 .. 1 */
};

struct chart_bars {
	const char *title;
	const char *const *notes;
	size_t nnotes;
	const char *xlabel, *ylabel;
	const struct chart_bar *b;
	size_t n;
	/* A line over the bars on a right axis of 0 .. 1 (NULL: none). */
	const char *line_name, *line_color;
	/* The legend's boxes (the line's entry is added). */
	const char *const *legend_name, *const *legend_color;
	size_t nlegend;
};

void chart_bars(FILE *f, const struct chart_bars *c);

#endif
