// SPDX-License-Identifier: GPL-2.0
/*
 * svg - a document, text, labels and a plot area with axes, for the
 * charts of pgfreport. See svg.h.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include "pgftrace.h"
#include "svg.h"

FILE *svg_open(const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f)
		fprintf(stderr, "%s: %s: %s\n", pgft_prog, path, strerror(errno));
	return f;
}

int svg_close(FILE *f, const char *path)
{
	bool bad = ferror(f);

	if (fclose(f) || bad) {
		fprintf(stderr, "%s: %s: %s\n", pgft_prog, path,
			errno ? strerror(errno) : "write error");
		return 1;
	}
	return 0;
}

void svg_begin(FILE *f, int width, int height, const char *title)
{
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" "
		"font-size=\"12\">\n<title>", width, height, width, height);
	svg_escape(f, title, 0);
	fputs("</title>\n<rect class=\"background\" width=\"100%\" "
	      "height=\"100%\" fill=\"white\"/>\n", f);
}

void svg_end(FILE *f)
{
	fputs("</svg>\n", f);
}

void svg_escape(FILE *f, const char *s, size_t max)
{
	for (size_t i = 0; s[i] && (!max || i < max); i++) {
		switch (s[i]) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		default:
			/* Control characters are not allowed in XML 1.0. */
			fputc((unsigned char)s[i] < 0x20 ? '?' : s[i], f);
		}
	}
}

void svg_text(FILE *f, double x, double y, const char *attrs,
	      const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\"%s%s>", x, y, attrs ? " " : "",
		attrs ? attrs : "");
	svg_escape(f, buf, 0);
	fputs("</text>\n", f);
}

size_t svg_wrap(FILE *f, double x, double y, double step, size_t width,
		const char *attrs, const char *s)
{
	size_t lines = 0;

	while (*s) {
		size_t len = strlen(s), cut = len;

		if (len > width) {
			/* The last space that leaves a line of at most width. */
			for (cut = width; cut && s[cut] != ' '; cut--)
				;
			if (!cut)
				cut = strcspn(s, " ");
		}
		if (f)
			svg_text(f, x, y + lines * step, attrs, "%.*s", (int)cut, s);
		lines++;
		s += cut;
		while (*s == ' ')
			s++;
	}
	return lines;
}

/* @v / 1024^k with prefix @pre[k], as few digits as tell it. */
static void scaled(char *buf, size_t n, double v, double base,
		   const char *const *pre, int npre, const char *unit,
		   double plain_below)
{
	int k = 0;

	if (v == 0) {
		snprintf(buf, n, "0");
		return;
	}
	while (k + 1 < npre && fabs(v) >= (k ? base : plain_below)) {
		v /= base;
		k++;
	}
	if (v == floor(v) || fabs(v) >= 100)
		snprintf(buf, n, "%.0f%s%s", v, pre[k], unit);
	else if (fabs(v) >= 10)
		snprintf(buf, n, "%.3g%s%s", v, pre[k], unit);
	else
		snprintf(buf, n, "%.2g%s%s", v, pre[k], unit);
}

void svg_count(char *buf, size_t n, double v)
{
	static const char *const pre[] = { "", "Ki", "Mi", "Gi", "Ti", "Pi" };

	scaled(buf, n, v, 1024, pre, 6, "", 100 * 1024);
}

void svg_bytes(char *buf, size_t n, double v)
{
	static const char *const pre[] = { " B", " KiB", " MiB", " GiB",
					   " TiB", " PiB", " EiB" };

	scaled(buf, n, v, 1024, pre, 7, "", 1024);
}

void svg_ns(char *buf, size_t n, double ns)
{
	static const char *const pre[] = { " ns", " \xc2\xb5s", " ms", " s" };

	scaled(buf, n, ns, 1000, pre, 4, "", 1000);
}

void svg_plot_init(struct svg_plot *p, double x, double y, double w, double h)
{
	memset(p, 0, sizeof(*p));
	p->x = x;
	p->y = y;
	p->w = w;
	p->h = h;
	p->xa.p0 = x;
	p->xa.p1 = x + w;
	p->ya.p0 = y + h;
	p->ya.p1 = y;
	svg_axis(&p->xa, 0, 1, false);
	svg_axis(&p->ya, 0, 1, false);
}

void svg_axis(struct svg_axis *a, double lo, double hi, bool log2)
{
	a->log2 = log2;
	if (log2 && lo <= 0)
		lo = 1;
	if (hi <= lo)
		hi = log2 ? lo * 2 : lo + 1;
	a->lo = lo;
	a->hi = hi;
}

double svg_map(const struct svg_axis *a, double v)
{
	double u;

	if (a->log2)
		u = v <= 0 ? 0 : (log2(v) - log2(a->lo)) / (log2(a->hi) - log2(a->lo));
	else
		u = (v - a->lo) / (a->hi - a->lo);
	u = u < 0 ? 0 : u > 1 ? 1 : u;
	return a->p0 + u * (a->p1 - a->p0);
}

void svg_label(char *buf, size_t n, double v, enum svg_unit unit)
{
	switch (unit) {
	case SVG_PAGES:
		svg_count(buf, n, v);
		break;
	case SVG_NS:
		svg_ns(buf, n, v);
		break;
	case SVG_SHARE:
		snprintf(buf, n, "%.2g", v);
		break;
	default:
		if (fabs(v) >= 100 * 1024)
			svg_count(buf, n, v);
		else
			snprintf(buf, n, "%.6g", v);
	}
}

/* The ticks of @a into @t (at most @max); their number. */
static size_t ticks(const struct svg_axis *a, double *t, size_t max)
{
	size_t n = 0;

	if (a->log2) {
		int k0 = (int)ceil(log2(a->lo) - 1e-9);
		int k1 = (int)floor(log2(a->hi) + 1e-9);
		int stride = 1;

		while ((k1 - k0) / stride + 1 > 12)
			stride *= 2;
		for (int k = k0; k <= k1 && n < max; k += stride)
			t[n++] = ldexp(1, k);
	} else {
		double raw = (a->hi - a->lo) / 6, mag = pow(10, floor(log10(raw)));
		double norm = raw / mag, step;

		step = (norm < 1.5 ? 1 : norm < 3.5 ? 2 : norm < 7.5 ? 5 : 10) * mag;
		for (double v = ceil(a->lo / step - 1e-9) * step;
		     v <= a->hi + step * 1e-9 && n < max; v += step)
			t[n++] = fabs(v) < step * 1e-9 ? 0 : v;
	}
	return n;
}

/*
 * A grid line across the plot area from (@x0, @y0) to (@x1, @y1), and the
 * tick from there out to (@tx, @ty).
 */
static void grid_tick(FILE *f, double x0, double y0, double x1, double y1,
		      double tx, double ty)
{
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		"stroke=\"#e2e2e2\"/><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
		"y2=\"%.1f\" stroke=\"#444\"/>\n", x0, y0, x1, y1, x1, y1, tx, ty);
}

void svg_frame(FILE *f, const struct svg_plot *p, const char *xlabel,
	       enum svg_unit xunit, const char *ylabel, enum svg_unit yunit,
	       unsigned long page_size)
{
	double t[64];
	size_t n;
	char buf[64];

	fprintf(f, "<rect class=\"plot-area\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
		"height=\"%.1f\" fill=\"#fbfbfb\" stroke=\"#444\" "
		"data-x-lo=\"%.17g\" data-x-hi=\"%.17g\" data-x-scale=\"%s\" "
		"data-y-lo=\"%.17g\" data-y-hi=\"%.17g\" data-y-scale=\"%s\"/>\n",
		p->x, p->y, p->w, p->h, p->xa.lo, p->xa.hi,
		p->xa.log2 ? "log2" : "linear", p->ya.lo, p->ya.hi,
		p->ya.log2 ? "log2" : "linear");
	fputs("<g class=\"x-ticks\" text-anchor=\"middle\">\n", f);
	n = xunit == SVG_NONE ? 0 : ticks(&p->xa, t, 64);
	for (size_t i = 0; i < n; i++) {
		double x = svg_map(&p->xa, t[i]);

		grid_tick(f, x, p->y, x, p->y + p->h, x, p->y + p->h + 5);
		svg_label(buf, sizeof(buf), t[i], xunit);
		svg_text(f, x, p->y + p->h + 18, "class=\"tick\"", "%s", buf);
		if (xunit == SVG_PAGES) {
			svg_bytes(buf, sizeof(buf), t[i] * page_size);
			svg_text(f, x, p->y + p->h + 31, "class=\"tick\" fill=\"#777\"",
				 "%s", buf);
		}
	}
	fputs("</g>\n<g class=\"y-ticks\" text-anchor=\"end\">\n", f);
	n = yunit == SVG_NONE ? 0 : ticks(&p->ya, t, 64);
	for (size_t i = 0; i < n; i++) {
		double y = svg_map(&p->ya, t[i]);

		grid_tick(f, p->x + p->w, y, p->x, y, p->x - 5, y);
		svg_label(buf, sizeof(buf), t[i], yunit);
		if (yunit == SVG_PAGES) {
			size_t l = strlen(buf);

			buf[l] = ' ';
			buf[l + 1] = '(';
			svg_bytes(buf + l + 2, sizeof(buf) - l - 3, t[i] * page_size);
			strcat(buf, ")");
		}
		svg_text(f, p->x - 8, y + 4, "class=\"tick\"", "%s", buf);
	}
	fputs("</g>\n", f);
	if (xunit != SVG_NONE)
		svg_text(f, p->x + p->w / 2,
			 p->y + p->h + (xunit == SVG_PAGES ? 50 : 38),
			 "class=\"axis-label\" text-anchor=\"middle\"", "%s", xlabel);
	if (yunit == SVG_NONE)
		return;
	fprintf(f, "<g transform=\"translate(%.1f %.1f) rotate(-90)\">\n",
		p->x - (yunit == SVG_PAGES ? 110 : 58), p->y + p->h / 2);
	svg_text(f, 0, 0, "class=\"axis-label\" text-anchor=\"middle\"", "%s",
		 ylabel);
	fputs("</g>\n", f);
}

void svg_legend_line(FILE *f, double x, double y, const char *color,
		     double width, const char *dash, const char *name)
{
	fprintf(f, "<g class=\"legend\"><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
		"y2=\"%.1f\" stroke=\"%s\" stroke-width=\"%.1f\"%s%s%s/>\n",
		x, y - 4, x + 28, y - 4, color, width, dash ? " stroke-dasharray=\"" : "",
		dash ? dash : "", dash ? "\"" : "");
	svg_text(f, x + 34, y, NULL, "%s", name);
	fputs("</g>\n", f);
}

void svg_legend_box(FILE *f, double x, double y, const char *color,
		    const char *name)
{
	fprintf(f, "<g class=\"legend\"><rect x=\"%.1f\" y=\"%.1f\" width=\"14\" "
		"height=\"14\" fill=\"%s\"/>\n", x, y - 11, color);
	svg_text(f, x + 20, y, NULL, "%s", name);
	fputs("</g>\n", f);
}
