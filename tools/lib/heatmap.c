// SPDX-License-Identifier: GPL-2.0
/*
 * heatmap - the time x address heatmap of the faults. See heatmap.h.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "heatmap.h"
#include "svg.h"

#define NLEV	12	/* colours of the scale */
#define LEFT	330	/* the bands' labels */
#define PLOT_W	820
#define PLOT_H	520	/* the bands share it, gaps apart */
#define GAP	4
#define MIN_BAND 14

void heat_init(struct heatmap *h, bool by_time)
{
	memset(h, 0, sizeof(*h));
	h->by_time = by_time;
	h->per = 1;
}

/*
 * The bands made: a key numbered when there was no room for its band
 * (heat_fault() failed) has none.
 */
static size_t bands(const struct heatmap *h)
{
	return h->keys.nr < h->cap ? h->keys.nr : h->cap;
}

void heat_free(struct heatmap *h)
{
	for (size_t i = 0; i < bands(h); i++) {
		free(h->b[i].cell);
		free(h->b[i].first);
		free(h->b[i].last);
		free(h->b[i].name);
	}
	free(h->b);
	pgid_free(&h->keys);
	memset(h, 0, sizeof(*h));
}

/* Cell @from of @b into cell @to: its faults, its first and last. */
static void move_cell(struct heat_band *b, size_t from, size_t to)
{
	uint32_t v = b->cell[from];

	if (from == to)
		return;
	b->cell[from] = 0;
	b->cell[to] += v;
	if (!b->first)
		return;
	if (b->first[from] && (!b->first[to] || b->first[from] < b->first[to]))
		b->first[to] = b->first[from];
	if (b->last[from] > b->last[to])
		b->last[to] = b->last[from];
	b->first[from] = 0;
	b->last[from] = 0;
}

/* Columns in pairs: the binning halves. */
static void merge(struct heatmap *h)
{
	for (size_t i = 0; i < bands(h); i++) {
		struct heat_band *b = &h->b[i];

		if (!b->cell)
			continue;	/* made when there was no room */
		for (size_t c = 0; c < HEAT_COLS; c++)
			for (size_t r = 0; r < HEAT_ROWS; r++)
				move_cell(b, c * HEAT_ROWS + r, c / 2 * HEAT_ROWS + r);
	}
	h->per *= 2;
}

/* The band of @key, its cells made; NULL when out of memory. */
static struct heat_band *band_of(struct heatmap *h, uint64_t key)
{
	struct heat_band *b;
	int64_t id;

	id = pgid_get(&h->keys, key);
	if (id < 0)
		return NULL;
	if ((size_t)id >= h->cap) {
		size_t cap = h->cap ? 2 * h->cap : 16;
		struct heat_band *v = realloc(h->b, cap * sizeof(*v));

		if (!v)
			return NULL;
		memset(v + h->cap, 0, (cap - h->cap) * sizeof(*v));
		h->b = v;
		h->cap = cap;
	}
	b = &h->b[id];
	if (!b->cell) {
		b->cell = calloc(HEAT_COLS * HEAT_ROWS, sizeof(*b->cell));
		if (!b->cell)
			return NULL;
		if (h->times) {
			b->first = calloc(HEAT_COLS * HEAT_ROWS, sizeof(*b->first));
			b->last = calloc(HEAT_COLS * HEAT_ROWS, sizeof(*b->last));
			if (!b->first || !b->last)
				return NULL;
		}
	}
	return b;
}

/* A file's rows in pairs: its range doubles. */
static void fold(struct heat_band *b)
{
	for (size_t c = 0; c < HEAT_COLS; c++)
		for (size_t r = 1; r < HEAT_ROWS; r++)
			move_cell(b, c * HEAT_ROWS + r, c * HEAT_ROWS + r / 2);
	b->end *= 2;
}

/* Count a reference at @x (ns or order), @t ns, in @row of @b. */
static void count(struct heatmap *h, struct heat_band *b, uint64_t x,
		  uint64_t t, uint64_t row)
{
	size_t i;

	while (x / h->per >= HEAT_COLS)
		merge(h);
	i = x / h->per * HEAT_ROWS + row;
	b->cell[i]++;
	if (b->first) {
		if (!b->first[i] || t + 1 < b->first[i])
			b->first[i] = t + 1;
		if (t + 1 > b->last[i])
			b->last[i] = t + 1;
	}
	b->faults++;
	h->n++;
	if (x > h->xmax)
		h->xmax = x;
}

int heat_file(struct heatmap *h, uint64_t key, const char *path, uint64_t t,
	      uint64_t index)
{
	uint64_t x = h->by_time ? t : h->n;
	struct heat_band *b = band_of(h, key);

	if (!b)
		return -1;
	if (!b->name) {
		b->name = strdup(*path ? path : "[a file with no name]");
		if (!b->name)
			return -1;
		b->file = true;
		b->start = 0;
		b->end = HEAT_ROWS;
		h->files++;
	}
	while (index >= b->end && b->end <= UINT64_MAX / 2)
		fold(b);
	if (index + 1 > b->top)
		b->top = index + 1;
	h->file_refs++;
	count(h, b, x, t, index / (b->end / HEAT_ROWS));
	return 0;
}

int heat_fault(struct heatmap *h, uint64_t key, uint64_t start, uint64_t end,
	       const char *name, uint64_t t, uint64_t addr)
{
	uint64_t x = h->by_time ? t : h->n, row;
	struct heat_band *b = band_of(h, key);

	if (!b)
		return -1;
	if (!b->name || b->start != start || b->end != end) {
		char *n = strdup(*name ? name : "[anon]");

		if (!n)
			return -1;
		free(b->name);
		b->name = n;
		b->start = start;
		b->end = end;
	}
	row = end > start && addr >= start ?
		(addr - start) / ((end - start + HEAT_ROWS - 1) / HEAT_ROWS) : 0;
	if (row >= HEAT_ROWS)
		row = HEAT_ROWS - 1;
	count(h, b, x, t, row);
	return 0;
}

/* The colour of level @k of 0 .. NLEV - 1: pale yellow to dark purple. */
static void level_color(int k, char *buf, size_t n)
{
	static const unsigned char stop[5][3] = {
		{ 0xfd, 0xe7, 0x25 }, { 0x5e, 0xc9, 0x62 }, { 0x21, 0x91, 0x8c },
		{ 0x3b, 0x52, 0x8b }, { 0x44, 0x01, 0x54 },
	};
	double u = (double)k / (NLEV - 1) * 4;
	int s = u >= 4 ? 3 : (int)u;
	double w = u - s;
	int c[3];

	for (int i = 0; i < 3; i++)
		c[i] = (int)(stop[s][i] * (1 - w) + stop[s + 1][i] * w + 0.5);
	snprintf(buf, n, "#%02x%02x%02x", c[0], c[1], c[2]);
}

/* The level of a cell of @v faults, the densest cell having @max. */
static int level(uint64_t v, uint64_t max)
{
	int k;

	if (max <= 1)
		return NLEV - 1;
	k = (int)((NLEV - 1) * log((double)v) / log((double)max) + 0.5);
	return k < 0 ? 0 : k >= NLEV ? NLEV - 1 : k;
}

struct drawn {
	struct heat_band *b;
	double y, h;		/* pixels */
	unsigned int rows;	/* rows drawn: HEAT_ROWS / a power of 2 */
};

/* The regions, highest addresses first; then the files, as they came. */
static int by_start_down(const void *a, const void *b)
{
	const struct drawn *x = a, *y = b;

	if (x->b->file != y->b->file)
		return x->b->file ? 1 : -1;
	if (x->b->file)
		return x->b < y->b ? -1 : x->b > y->b;
	return x->b->start < y->b->start ? 1 : x->b->start > y->b->start ? -1 : 0;
}

/* Faults in drawn row @r of column @c of @d. */
static uint64_t cell(const struct drawn *d, size_t c, unsigned int r)
{
	unsigned int g = HEAT_ROWS / d->rows;
	uint64_t v = 0;

	for (unsigned int k = r * g; k < (r + 1) * g; k++)
		v += d->b->cell[c * HEAT_ROWS + k];
	return v;
}

static void band(FILE *f, const struct drawn *d, const struct svg_plot *p,
		 size_t used, uint64_t n, uint64_t max, unsigned long phys)
{
	const struct heat_band *b = d->b;
	double colw = p->w / used, rowh = d->h / d->rows;
	char color[NLEV][8], buf[64];

	for (int k = 0; k < NLEV; k++)
		level_color(k, color[k], sizeof(color[k]));
	fprintf(f, "<g class=\"%s\" data-name=\"", b->file ? "file" : "region");
	svg_escape(f, b->name, 0);
	fprintf(f, "\" data-faults=\"%llu\">\n<rect class=\"band\" x=\"%.1f\" "
		"y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#ececec\"/>\n",
		(unsigned long long)b->faults, p->x, d->y, p->w, d->h);
	/* Runs of cells of one colour in a row are one rectangle. */
	for (unsigned int r = 0; r < d->rows; r++) {
		double y = d->y + d->h - (r + 1) * rowh;

		for (size_t c = 0; c < used;) {
			uint64_t v = cell(d, c, r);
			size_t e = c + 1;
			int k;

			if (!v) {
				c++;
				continue;
			}
			k = level(v, max);
			while (e < used && cell(d, e, r) && level(cell(d, e, r), max) == k)
				e++;
			fprintf(f, "<rect class=\"cell\" x=\"%.2f\" y=\"%.2f\" "
				"width=\"%.2f\" height=\"%.2f\" fill=\"%s\"/>\n",
				p->x + c * colw, y, (e - c) * colw, rowh, color[k]);
			c = e;
		}
	}
	fputs("<g class=\"label\" text-anchor=\"end\">\n", f);
	snprintf(buf, sizeof(buf), "%.1f%%", 100.0 * b->faults / n);
	if (d->h >= 30) {
		svg_text(f, p->x - 8, d->y + d->h / 2 - 2, NULL, "%.40s  %s", b->name,
			 buf);
		if (b->file && phys)
			svg_text(f, p->x - 8, d->y + d->h / 2 + 12, "fill=\"#666\"",
				 "0-%llx (used: up to %llx)",
				 (unsigned long long)b->end * phys - 1,
				 (unsigned long long)b->top * phys - 1);
		else if (b->file)
			svg_text(f, p->x - 8, d->y + d->h / 2 + 12, "fill=\"#666\"",
				 "file pages 0-%llu (used: up to %llu)",
				 (unsigned long long)b->end - 1,
				 (unsigned long long)b->top - 1);
		else
			svg_text(f, p->x - 8, d->y + d->h / 2 + 12, "fill=\"#666\"",
				 "%llx-%llx", (unsigned long long)b->start,
				 (unsigned long long)b->end);
	} else {
		svg_text(f, p->x - 8, d->y + d->h / 2 + 4, NULL, "%.40s  %s", b->name,
			 buf);
	}
	fputs("</g>\n</g>\n", f);
}

static void legend(FILE *f, double x, double y, uint64_t max, bool files)
{
	char color[8];

	fprintf(f, "<g class=\"scale\" data-max=\"%llu\">\n",
		(unsigned long long)max);
	svg_text(f, x, y - 10, NULL, files ? "references per cell" : "faults per cell");
	for (int k = NLEV - 1; k >= 0; k--) {
		double yy = y + (NLEV - 1 - k) * 16;

		level_color(k, color, sizeof(color));
		fprintf(f, "<rect class=\"scale-step\" x=\"%.1f\" y=\"%.1f\" "
			"width=\"18\" height=\"16\" fill=\"%s\"/>\n", x, yy, color);
		/* A level's lowest count: max^((k - 0.5) / (NLEV - 1)). */
		if (k == NLEV - 1)
			svg_text(f, x + 24, yy + 12, "class=\"tick\"",
				 "%.0f-%llu (max)", fmin(ceil(pow((double)max, (k - 0.5) /
							       (NLEV - 1))), max),
				 (unsigned long long)max);
		else if (k == 0 || k == (NLEV - 1) / 2)
			svg_text(f, x + 24, yy + 12, "class=\"tick\"", "%s%.0f",
				 k ? "\xe2\x89\xa5 " : "", k ?
				 ceil(pow((double)max, (k - 0.5) / (NLEV - 1))) : 1.0);
	}
	svg_text(f, x, y + NLEV * 16 + 16, "fill=\"#666\"", "log scale");
	fputs("</g>\n", f);
}

void heat_write(struct heatmap *h, FILE *f, const char *title,
		const char *const *notes, size_t nnotes)
{
	size_t nb = bands(h), used = h->n ? h->xmax / h->per + 1 : 1;
	struct drawn *d = calloc(nb ? nb : 1, sizeof(*d));
	double top, y, avail;
	size_t lines = 0;
	uint64_t max = 1;
	struct svg_plot p;
	char buf[64];

	if (!d) {
		fputs("out of memory\n", f);
		return;
	}
	for (size_t i = 0; i < nnotes; i++)
		lines += svg_wrap(NULL, 0, 0, 0, 170, NULL, notes[i]);
	top = 70 + lines * 15;
	avail = PLOT_H - (nb > 1 ? (nb - 1) * GAP : 0);
	for (size_t i = 0; i < nb; i++) {
		d[i].b = &h->b[i];
		d[i].h = fmax(MIN_BAND, avail * h->b[i].faults / (h->n ? h->n : 1));
		d[i].rows = HEAT_ROWS;
		while (d[i].rows > 1 && d[i].h / d[i].rows < 2)
			d[i].rows /= 2;
	}
	qsort(d, nb, sizeof(*d), by_start_down);
	y = top;
	for (size_t i = 0; i < nb; i++) {
		d[i].y = y;
		y += d[i].h + GAP;
		for (size_t c = 0; c < used; c++)
			for (unsigned int r = 0; r < d[i].rows; r++) {
				uint64_t v = cell(&d[i], c, r);

				max = v > max ? v : max;
			}
	}
	y = nb ? y - GAP : top + MIN_BAND;
	svg_begin(f, LEFT + PLOT_W + 160, (int)y + 70, title);
	svg_text(f, 20, 26, "class=\"title\" font-size=\"16\" font-weight=\"bold\"",
		 "%s", title);
	lines = 0;
	for (size_t i = 0; i < nnotes; i++)
		lines += svg_wrap(f, 20, 46 + lines * 15, 15, 170,
				  "class=\"note\" fill=\"#555\"", notes[i]);
	svg_plot_init(&p, LEFT, top, PLOT_W, y - top);
	svg_axis(&p.xa, 0, (double)used * h->per, false);
	if (h->by_time) {
		svg_ns(buf, sizeof(buf), (double)h->per);
		svg_frame(f, &p, "time since the trace's start", SVG_NS, "", SVG_NONE,
			  0);
	} else {
		snprintf(buf, sizeof(buf), "%llu %s%s", (unsigned long long)h->per,
			 h->files ? "reference" : "fault", h->per == 1 ? "" : "s");
		svg_frame(f, &p, h->files ? "references in order (virtual time)" :
			  "faults in order (virtual time)", SVG_PLAIN, "", SVG_NONE, 0);
	}
	if (h->phys)
		svg_text(f, 20, y + 62, "class=\"note\" fill=\"#555\"",
			 "%llu faults at the frames they mapped, physical addresses "
			 "from 0 up; a cell: %s across, 1/%u of the physical range "
			 "down, which doubles as the frames reach further",
			 (unsigned long long)h->n, buf, HEAT_ROWS);
	else if (h->files)
		svg_text(f, 20, y + 62, "class=\"note\" fill=\"#555\"",
			 "%llu references: %llu faults in %zu regions, %llu to the "
			 "pages of %zu file%s (the page cache's, and faults in their "
			 "mappings); a cell: %s across, 1/%u of its region or of its "
			 "file's pages down (fewer rows in thin bands); a band's "
			 "height: its share of the references",
			 (unsigned long long)h->n,
			 (unsigned long long)(h->n - h->file_refs), nb - h->files,
			 (unsigned long long)h->file_refs, h->files,
			 h->files == 1 ? "" : "s", buf, HEAT_ROWS);
	else
		svg_text(f, 20, y + 62, "class=\"note\" fill=\"#555\"",
			 "%llu faults in %zu regions; a cell: %s across, 1/%u of its "
			 "region down (fewer rows in thin bands); a band's height: its "
			 "share of the faults", (unsigned long long)h->n, nb, buf,
			 HEAT_ROWS);
	for (size_t i = 0; i < nb; i++)
		band(f, &d[i], &p, used, h->n, max, h->phys);
	legend(f, LEFT + PLOT_W + 24, top + 24, max, h->files);
	svg_end(f);
	free(d);
}
