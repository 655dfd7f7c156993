/* SPDX-License-Identifier: GPL-2.0 */
/*
 * svg - what pgfreport's charts share: a document, escaped text, number
 * and byte labels, and a plot area with its axes (linear or log2, ticks,
 * grid lines, labels).
 *
 * A plot area is written as
 *
 *	<rect class="plot-area" x=.. y=.. width=.. height=..
 *	      data-x-lo=.. data-x-hi=.. data-x-scale="linear|log2"
 *	      data-y-lo=.. data-y-hi=.. data-y-scale=../>
 *
 * so a reader (the host tests) can find where a value is drawn: x from
 * lo at the left edge to hi at the right one, y from lo at the bottom
 * to hi at the top, log2 scales by log2 of the value.
 *
 *	FILE *f = fopen(path, "w");
 *	struct svg_plot p;
 *
 *	svg_begin(f, 900, 560, "miss-ratio curves");
 *	svg_plot_init(&p, 90, 60, 700, 400);
 *	svg_axis(&p.xa, 1, 4096, true);
 *	svg_axis(&p.ya, 0, 1, false);
 *	svg_frame(f, &p, "cache size", SVG_PAGES, "miss ratio", SVG_SHARE,
 *		  page_size);
 *	... svg_map(&p.xa, v), svg_map(&p.ya, v) ...
 *	svg_end(f);
 */
#ifndef PGFT_SVG_H
#define PGFT_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct svg_axis {
	double lo, hi;		/* the values at the two ends */
	double p0, p1;		/* their pixels (p1 < p0 for a y axis) */
	bool log2;
};

struct svg_plot {
	double x, y, w, h;	/* the plot area, in pixels */
	struct svg_axis xa, ya;
};

/*
 * @path opened for writing a document: the stream, or NULL after saying
 * why not on standard error ("pgfreport: PATH: reason").
 */
FILE *svg_open(const char *path);

/*
 * Close what svg_open() opened: 0, or 1 after saying why it could not be
 * written.
 */
int svg_close(FILE *f, const char *path);

/* The XML header, a white background and the document's <title>. */
void svg_begin(FILE *f, int width, int height, const char *title);
void svg_end(FILE *f);

/* @s with &, <, > and " escaped, at most @max bytes of it (0: all). */
void svg_escape(FILE *f, const char *s, size_t max);

/*
 * <text> at @x, @y; @attrs (may be NULL) is added to the element as it
 * is, the text made by @fmt is escaped.
 */
void svg_text(FILE *f, double x, double y, const char *attrs,
	      const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/*
 * Text of many words as lines of at most @width characters (a word
 * longer than that has a line of its own): the lines it takes, and with
 * @f not NULL they are drawn from baseline @y, @step apart.
 */
size_t svg_wrap(FILE *f, double x, double y, double step, size_t width,
		const char *attrs, const char *s);

/* "512", "16Ki", "3Mi": a count, short (binary prefixes from 100 Ki). */
void svg_count(char *buf, size_t n, double v);

/* "4 KiB", "1.5 MiB": bytes. */
void svg_bytes(char *buf, size_t n, double v);

/* "250 ns", "1.5 ms", "2 s": a duration in ns. */
void svg_ns(char *buf, size_t n, double ns);

void svg_plot_init(struct svg_plot *p, double x, double y, double w, double h);

/*
 * Set an axis's range (a log2 one: @lo > 0; a range of one value is
 * widened). svg_plot_init() has set its pixels.
 */
void svg_axis(struct svg_axis *a, double lo, double hi, bool log2);

/* The pixel of value @v on @a (clamped to the axis). */
double svg_map(const struct svg_axis *a, double v);

/* How svg_frame() labels ticks of an axis. */
enum svg_unit {
	SVG_PLAIN,	/* the number */
	SVG_PAGES,	/* pages, and below them their bytes */
	SVG_NS,		/* a duration in ns */
	SVG_SHARE,	/* 0 .. 1 */
	SVG_NONE,	/* no ticks, no label (categories, or bands) */
};

/*
 * The plot area with its data attributes, grid lines, ticks and tick
 * labels, and the axes' labels. Linear ticks step by 1, 2 or 5 x 10^k
 * (about 6 of them); log2 ones are powers of 2, every 2^k-th power so
 * that at most 12 are drawn. @page_size: the bytes of a page, for
 * SVG_PAGES.
 */
void svg_frame(FILE *f, const struct svg_plot *p, const char *xlabel,
	       enum svg_unit xunit, const char *ylabel, enum svg_unit yunit,
	       unsigned long page_size);

/* The tick label of @v in @unit (the first line only for SVG_PAGES). */
void svg_label(char *buf, size_t n, double v, enum svg_unit unit);

/* A legend entry at @x, @y: a line (@dash may be NULL) and its name. */
void svg_legend_line(FILE *f, double x, double y, const char *color,
		     double width, const char *dash, const char *name);

/* A legend entry: a filled box and its name. */
void svg_legend_box(FILE *f, double x, double y, const char *color,
		    const char *name);

#endif
