// SPDX-License-Identifier: GPL-2.0
/*
 * chart - line and bar charts as SVG documents. See chart.h.
 */
#include <math.h>
#include "chart.h"

#define WIDTH	1000
#define LEFT	150	/* room for tick labels in pages and bytes */
#define PLOT_W	770
#define PLOT_H	400
#define NOTE_H	15

#define NOTE_W	150	/* characters in a line of notes */

/* The lines the notes take. */
static size_t note_lines(const char *const *notes, size_t nnotes)
{
	size_t n = 0;

	for (size_t i = 0; i < nnotes; i++)
		n += svg_wrap(NULL, 0, 0, 0, NOTE_W, NULL, notes[i]);
	return n;
}

/* The document, its title and notes; the plot area's top. */
static double header(FILE *f, const char *title, const char *const *notes,
		     size_t nnotes, int below)
{
	size_t lines = note_lines(notes, nnotes), k = 0;

	svg_begin(f, WIDTH, (int)(66 + lines * NOTE_H) + below, title);
	svg_text(f, 20, 26, "class=\"title\" font-size=\"16\" font-weight=\"bold\"",
		 "%s", title);
	for (size_t i = 0; i < nnotes; i++)
		k += svg_wrap(f, 20, 46 + k * NOTE_H, NOTE_H, NOTE_W,
			      "class=\"note\" fill=\"#555\"", notes[i]);
	return 66 + lines * NOTE_H;	/* the plot area's top */
}

static void range(double *lo, double *hi, bool log2, const double *v, size_t n,
		  bool from_zero)
{
	if (*hi > *lo)
		return;
	*lo = from_zero && !log2 ? 0 : INFINITY;
	*hi = -INFINITY;
	for (size_t i = 0; i < n; i++) {
		if (log2 && v[i] <= 0)
			continue;
		*lo = v[i] < *lo ? v[i] : *lo;
		*hi = v[i] > *hi ? v[i] : *hi;
	}
	if (*hi < *lo) {
		*lo = log2 ? 1 : 0;
		*hi = *lo + 1;
	}
}

void chart_lines(FILE *f, const struct chart *c)
{
	double xlo = c->xlo, xhi = c->xhi, ylo = c->ylo, yhi = c->yhi, top;
	struct svg_plot p;

	/* Ranges left open are the data's, over every series. */
	for (size_t k = 0; k < c->ns; k++) {
		double a = 0, b = 0, e = 0, g = 0;

		range(&a, &b, c->xlog, c->s[k].x, c->s[k].n, false);
		range(&e, &g, c->ylog, c->s[k].y, c->s[k].n, true);
		if (c->xhi <= c->xlo) {
			xlo = k ? fmin(xlo, a) : a;
			xhi = k ? fmax(xhi, b) : b;
		}
		if (c->yhi <= c->ylo) {
			ylo = k ? fmin(ylo, e) : e;
			yhi = k ? fmax(yhi, g) : g;
		}
	}
	top = header(f, c->title, c->notes, c->nnotes,
		     PLOT_H + 80 + (int)c->ns * 20);
	svg_plot_init(&p, LEFT, top, PLOT_W, PLOT_H);
	svg_axis(&p.xa, xlo, xhi, c->xlog);
	svg_axis(&p.ya, ylo, yhi, c->ylog);
	svg_frame(f, &p, c->xlabel, c->xunit, c->ylabel, c->yunit, c->page_size);
	if (c->shade_hi > c->shade_lo) {
		double a = svg_map(&p.xa, c->shade_lo), b = svg_map(&p.xa, c->shade_hi);

		fprintf(f, "<rect class=\"shade\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			"height=\"%.1f\" fill=\"#000\" fill-opacity=\"0.09\"/>\n",
			a, p.y, b - a, p.h);
		if (c->shade_label)
			svg_text(f, a + 4, p.y + p.h - 8,
				 "class=\"shade-label\" fill=\"#555\"",
				 "%s", c->shade_label);
	}
	for (size_t k = 0; k < c->ns; k++) {
		const struct chart_series *s = &c->s[k];

		fprintf(f, "<g class=\"series\" data-name=\"");
		svg_escape(f, s->name, 0);
		fprintf(f, "\">\n<polyline fill=\"none\" stroke=\"%s\" "
			"stroke-width=\"%.1f\" stroke-linejoin=\"round\"%s%s%s points=\"",
			s->color, s->width, s->dash ? " stroke-dasharray=\"" : "",
			s->dash ? s->dash : "", s->dash ? "\"" : "");
		for (size_t i = 0; i < s->n; i++)
			fprintf(f, "%s%.1f,%.1f", i ? " " : "", svg_map(&p.xa, s->x[i]),
				svg_map(&p.ya, s->y[i]));
		fputs("\"/>\n", f);
		for (size_t i = 0; s->marker > 0 && i < s->n; i++)
			fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" "
				"fill=\"%s\"/>\n", svg_map(&p.xa, s->x[i]),
				svg_map(&p.ya, s->y[i]), s->marker, s->color);
		fputs("</g>\n", f);
	}
	/* The legend under the axis's label, an entry a line. */
	for (size_t k = 0; k < c->ns; k++)
		svg_legend_line(f, LEFT, top + PLOT_H + 80 + k * 20, c->s[k].color,
				c->s[k].width, c->s[k].dash, c->s[k].name);
	svg_end(f);
}

void chart_bars(FILE *f, const struct chart_bars *c)
{
	double top, max = 0, bw;
	struct svg_plot p;
	struct svg_axis right;

	for (size_t i = 0; i < c->n; i++)
		max = c->b[i].v > max ? c->b[i].v : max;
	top = header(f, c->title, c->notes, c->nnotes,
		     PLOT_H + 125 + (int)(c->nlegend + 1) * 20);
	svg_plot_init(&p, LEFT, top, PLOT_W, PLOT_H);
	/* x: bar i spans [i, i + 1]; the frame draws no x ticks of its own. */
	svg_axis(&p.xa, 0, c->n ? (double)c->n : 1, false);
	svg_axis(&p.ya, 0, max > 0 ? max * 1.05 : 1, false);
	svg_frame(f, &p, "", SVG_NONE, c->ylabel, SVG_SHARE, 0);
	svg_text(f, p.x + p.w / 2, p.y + p.h + 95,
		 "class=\"axis-label\" text-anchor=\"middle\"", "%s", c->xlabel);
	bw = p.w / (c->n ? (double)c->n : 1);
	for (size_t i = 0; i < c->n; i++) {
		double x = p.x + i * bw, y = svg_map(&p.ya, c->b[i].v);

		fprintf(f, "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			"height=\"%.1f\" fill=\"%s\"/>\n", x + bw * 0.1, y, bw * 0.8,
			p.y + p.h - y, c->b[i].color);
		fprintf(f, "<text class=\"tick\" text-anchor=\"end\" "
			"transform=\"translate(%.1f %.1f) rotate(-45)\">",
			x + bw / 2 + 4, p.y + p.h + 14);
		svg_escape(f, c->b[i].label, 0);
		fputs("</text>\n", f);
	}
	if (c->line_name && c->n) {
		right = p.ya;
		svg_axis(&right, 0, 1, false);
		fprintf(f, "<g class=\"series\" data-name=\"");
		svg_escape(f, c->line_name, 0);
		fprintf(f, "\">\n<polyline fill=\"none\" stroke=\"%s\" "
			"stroke-width=\"2\" points=\"", c->line_color);
		for (size_t i = 0; i < c->n; i++)
			fprintf(f, "%s%.1f,%.1f", i ? " " : "", p.x + (i + 0.5) * bw,
				svg_map(&right, c->b[i].line));
		fputs("\"/>\n", f);
		for (size_t i = 0; i < c->n; i++)
			fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n",
				p.x + (i + 0.5) * bw, svg_map(&right, c->b[i].line),
				c->line_color);
		fputs("</g>\n<g class=\"y2-ticks\">\n", f);
		for (int k = 0; k <= 4; k++) {
			double y = svg_map(&right, k / 4.0);

			fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
				"stroke=\"%s\"/>\n", p.x + p.w, y, p.x + p.w + 5, y,
				c->line_color);
			svg_text(f, p.x + p.w + 8, y + 4, "class=\"tick\"", "%.2g",
				 k / 4.0);
		}
		fputs("</g>\n", f);
	}
	for (size_t k = 0; k < c->nlegend; k++)
		svg_legend_box(f, LEFT, top + PLOT_H + 125 + k * 20,
			       c->legend_color[k], c->legend_name[k]);
	if (c->line_name)
		svg_legend_line(f, LEFT, top + PLOT_H + 125 + c->nlegend * 20,
				c->line_color, 2, NULL, c->line_name);
	svg_end(f);
}
