// SPDX-License-Identifier: GPL-2.0
/*
 * sample_report - pgfreport's reports of sampled traces: pgfreport samples,
 * samples --map and pgfreport compare. See sample_report.h.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "chart.h"
#include "plots.h"
#include "sample_report.h"
#include "zfile.h"
#include "svg.h"

/* smp_iv.flags of ours: what began the interval's address space */
#define IV_EXEC		SMP_CALLER		/* an exec */
#define IV_RESTART	(SMP_CALLER << 1)	/* a new start (after a stop) */

/* samples --map: rows at most; more pages share rows */
#define MAP_ROWS 2000

static void series_init(const struct srep *R, struct srep_series *S,
			bool sampled, bool keep_runs)
{
	memset(S, 0, sizeof(*S));
	S->sampled = sampled;
	smp_init(&S->s, R->o.ws_intervals, keep_runs);
}

/* Say so; the status srep_report() gives pgfreport's own failure. */
static int out_of_memory(void)
{
	fprintf(stderr, "%s: out of memory\n", pgft_prog);
	return 2;
}

/*
 * Close the open interval at @t; @r: its sample record (sampled trace).
 * 0, or -1 out of memory.
 */
static int series_close(struct srep_series *S, unsigned long long t,
			const struct pgft_rec *r)
{
	struct smp_iv iv = {
		.t0 = S->is_open ? S->open : S->start, .t1 = t,
		.flags = S->next_flags | (S->lost ? SMP_LOST : 0),
	};

	if (r) {
		iv.scanned = r->n[0];
		iv.referenced = r->n[1];
		iv.ns = r->n[2];
		iv.flags |= r->flags;
		if (r->flags & PGFT_SAMPLE_INCOMPLETE)
			iv.flags |= SMP_LOST;
	} else {
		iv.referenced = S->s.ncur;
	}
	if (smp_close(&S->s, &iv))
		return -1;
	S->next_flags = 0;
	S->lost = false;
	S->open = t;
	S->is_open = true;
	return 0;
}

/*
 * Take record @r of the trace @rd reads into @S: 0, or -1 with rd->error
 * saying why the trace cannot be read as intervals, or SREP_NOMEM.
 */
static int series_rec(const struct srep *R, struct srep_series *S,
		      const struct pgft_rec *r, struct pgft_reader *rd)
{
	const unsigned long page_size = R->page_size;
	unsigned long long a, n;
	const char *p;

	switch (r->type) {
	case PGFT_START:
		if (!S->mode[0])
			snprintf(S->mode, sizeof(S->mode), "%s",
				 *r->text ? r->text : "first");
		S->seen_sample |= !strncmp(r->text, "sample=", 7);
		S->seen_interval |= !strncmp(r->text, "interval=", 9);
		smp_drop(&S->s);
		S->is_open = false;
		S->start = r->time;
		S->run_pages = 0;
		S->lost = false;
		if (strncmp(r->text, S->sampled ? "sample=" : "interval=",
			    S->sampled ? 7 : 9))
			break;
		n = strtoull(r->text + (S->sampled ? 7 : 9), NULL, 10);
		if (S->ms && n != S->ms)
			S->ms_varies = true;
		if (!S->ms)
			S->ms = n;
		if (!S->sampled) {
			/* An interval trace's first interval runs from its start. */
			if (S->s.n)
				S->next_flags |= IV_RESTART;
			smp_space(&S->s);
			S->is_open = true;
			S->open = r->time;
		}
		break;
	case PGFT_EXEC:
		/* The old address space ended: the window starts over. */
		S->execs++;
		if (!S->sampled) {
			S->dropped += S->s.ncur;
			smp_drop(&S->s);
		} else {
			/* A scan the exec ended: no interval, no sample. */
			smp_drop(&S->s);
			S->run_pages = 0;
		}
		smp_space(&S->s);
		S->next_flags |= IV_EXEC;
		break;
	case PGFT_STOP:
	case PGFT_EXIT:
		/* What came after the last scan or re-arm is not an interval. */
		smp_drop(&S->s);
		S->is_open = false;
		S->run_pages = 0;
		break;
	case PGFT_LOST:
		if (S->is_open && r->n[0])
			S->lost = true;
		break;
	case PGFT_FAULT:
		if (!S->sampled && S->is_open && pgft_counted(r->result) &&
		    smp_pages(&S->s, r->addr / page_size, 1))
			return SREP_NOMEM;
		break;
	case PGFT_REARM:
		if (!S->sampled && S->is_open && !strcmp(r->text, "interval")) {
			S->rearms++;
			if (series_close(S, r->time, NULL))
				return SREP_NOMEM;
		}
		break;
	case PGFT_REFS:
		if (!S->sampled)
			break;
		for (p = r->text; pgft_run(&p, &a, &n);) {
			if (smp_pages(&S->s, a / page_size, n))
				return SREP_NOMEM;
			S->run_pages += n;
		}
		break;
	case PGFT_SAMPLE:
		S->samples++;
		if (!S->sampled)
			break;
		if (!(r->flags & PGFT_SAMPLE_BASELINE) && S->run_pages != r->n[1] &&
		    !(r->flags & PGFT_SAMPLE_INCOMPLETE && S->run_pages < r->n[1])) {
			snprintf(rd->error, sizeof(rd->error),
				 "%s:%llu: the scan found %llu pages referenced, but "
				 "the refs records before it hold %llu%s", rd->fname,
				 rd->line, r->n[1], S->run_pages,
				 r->flags & PGFT_SAMPLE_INCOMPLETE ? "" :
				 " (and it is not marked incomplete)");
			return -1;
		}
		S->scans++;
		S->scan_ns += r->n[2];
		S->scanned += r->n[0];
		if (r->n[2] > S->scan_max)
			S->scan_max = r->n[2];
		if (r->flags & PGFT_SAMPLE_BASELINE) {
			/* A start's scan: the intervals count from it. */
			smp_drop(&S->s);
			if (S->baselines++) {
				smp_space(&S->s);
				S->next_flags |= IV_RESTART;
			}
			S->is_open = true;
			S->open = r->time;
			S->run_pages = 0;
			break;
		}
		if (series_close(S, r->time, r))
			return SREP_NOMEM;
		S->run_pages = 0;
		break;
	default:
		break;
	}
	return 0;
}

/* The window sizes the working-set tables show: 1, 2, 4, ... then @n. */
static unsigned int tau_rows(uint64_t n, uint64_t *tau, unsigned int *j)
{
	unsigned int k = 0;

	for (unsigned int b = 0; b < SMP_TAUS && (1ULL << b) <= n; b++) {
		tau[k] = 1ULL << b;
		j[k++] = b;
	}
	if (n && tau[k - 1] != n) {
		tau[k] = n;
		j[k++] = SMP_TAUS;	/* every t: tau >= t, the whole space */
	}
	return k;
}

/* "incomplete,exec" or "-": an interval's flags, for the tables. */
static const char *iv_flags(const struct smp_iv *iv, char *buf, size_t len)
{
	static const struct {
		uint32_t bit;
		const char *name;
	} f[] = {
		{ PGFT_SAMPLE_INCOMPLETE, "incomplete" },
		{ PGFT_SAMPLE_STOPPED, "stopped" },
		{ SMP_LOST, "lost" },
		{ IV_EXEC, "exec" },
		{ IV_RESTART, "restart" },
	};
	size_t k = 0;

	buf[0] = 0;
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		/* A sample's "incomplete" says it: no "lost" beside it. */
		if (!(iv->flags & f[i].bit) || (f[i].bit == SMP_LOST &&
						iv->flags & PGFT_SAMPLE_INCOMPLETE))
			continue;
		k += snprintf(buf + k, len - k, "%s%s", k ? "," : "", f[i].name);
		if (k >= len)
			break;
	}
	return buf[0] ? buf : "-";
}

/* The number of intervals flagged @bit. */
static size_t count_flag(const struct smp *s, uint32_t bit)
{
	size_t n = 0;

	for (size_t i = 0; i < s->n; i++)
		n += !!(s->iv[i].flags & bit);
	return n;
}

/* Mean, median and max of the intervals' referenced pages. */
static int ref_stats(const struct smp *s, double *mean, double *median,
		     uint64_t *max)
{
	uint64_t *v = malloc((s->n ? s->n : 1) * sizeof(*v)), sum = 0;

	if (!v)
		return out_of_memory();
	*max = 0;
	for (size_t i = 0; i < s->n; i++) {
		v[i] = s->iv[i].referenced;
		sum += v[i];
		if (v[i] > *max)
			*max = v[i];
	}
	*mean = s->n ? (double)sum / s->n : 0;
	*median = smp_median(v, s->n);
	free(v);
	return 0;
}

/* Is @S a trace of the kind it is read as? If not, say so: -1. */
static int series_kind(const struct srep *R, const struct srep_series *S,
		       const char *fname, const char *what)
{
	if (S->sampled && !S->samples) {
		if (S->seen_interval)
			fprintf(stderr, "%s: %s is an interval trace (%s), not "
				"a sampled one: %s needs a trace made with "
				"tracepgfault -s MS%s\n", pgft_prog, fname, S->mode, what,
				R->o.other ? " (pgfreport compare takes the sampled "
				"trace first, then the interval one)" : "");
		else
			fprintf(stderr, "%s: %s has no sample records: trace "
				"with tracepgfault -s MS (%s reads the scans of "
				"sampling mode; this trace's mode: %s)\n", pgft_prog, fname, what,
				S->mode[0] ? S->mode : "none, it has no start record");
		return -1;
	}
	if (!S->sampled && !S->seen_interval) {
		fprintf(stderr, "pgfreport compare: %s is not an interval "
			"trace (its mode: %s%s): give one made with tracepgfault -i "
			"MS second\n", fname, S->mode[0] ? S->mode : "none",
			S->samples ? "; a sampled trace goes first" : "");
		return -1;
	}
	if (!S->sampled && !S->s.n) {
		fprintf(stderr, "pgfreport compare: %s has no complete "
			"interval (no \"rearm ... interval\" record ends one)\n", fname);
		return -1;
	}
	return 0;
}

/* The working-set table of the sampled trace, after what it is. */
static void ws_table(const struct srep *R)
{
	const struct srep_series *S = &R->S;
	const struct smp *s = &S->s;
	uint64_t tau[SMP_TAUS + 2];
	unsigned int j[SMP_TAUS + 2], k = tau_rows(s->n, tau, j);

	printf("# working set W(t,tau) over the %zu intervals t: its mean and "
	       "max in pages, and the mean in bytes\n", s->n);
	printf("# %12s %10s %12s %10s %14s\n", "tau_intervals", "tau_ms",
	       "mean_pages", "max_pages", "mean_bytes");
	for (unsigned int i = 0; i < k; i++) {
		char ms[24] = "-";

		/* In ms only if every start sampled at the same interval. */
		if (!S->ms_varies)
			snprintf(ms, sizeof(ms), "%llu",
				 (unsigned long long)tau[i] * S->ms);
		printf("%14llu %10s %12.4f %10llu %14.0f\n",
		       (unsigned long long)tau[i], ms, smp_tau_mean(s, j[i]),
		       (unsigned long long)smp_tau_max(s, j[i]),
		       smp_tau_mean(s, j[i]) * R->page_size);
	}
}

/* The first lines of pgfreport samples and pgfreport compare: what W(t,tau) is. */
static void ws_method(const struct srep_series *S)
{
	printf("# working set W(t,tau): distinct pages referenced in the last tau "
	       "intervals (Denning), from the accessed bits sampled every %lu ms%s; "
	       "the window starts over at an exec (a new address space) and at a "
	       "new start, and reaches back no further than the trace\n", S->ms,
	       S->ms_varies ? " (the first start's interval; others differ)" : "");
}

/* --format: the table of the intervals, or of W(t,tau), for programs */
static void samples_rows(const struct srep *R)
{
	static const char *const iv_cols[] = {
		"interval", "end_ms", "length_ms", "referenced", "scanned",
		"scan_us", "ws_k", "flags",
	};
	static const char *const ws_cols[] = {
		"tau_intervals", "tau_ms", "mean_pages", "max_pages", "mean_bytes",
	};
	const struct srep_series *S = &R->S;
	const struct smp *s = &S->s;
	uint64_t tau[SMP_TAUS + 2];
	unsigned int j[SMP_TAUS + 2], k;
	struct table t;
	char buf[64];

	if (R->o.table == SREP_WSS) {
		k = tau_rows(s->n, tau, j);
		table_begin(&t, stdout, R->o.format, ws_cols, 5);
		for (unsigned int i = 0; i < k; i++) {
			table_u64(&t, tau[i]);
			if (S->ms_varies)
				table_none(&t);
			else
				table_u64(&t, tau[i] * S->ms);
			table_num(&t, smp_tau_mean(s, j[i]));
			table_u64(&t, smp_tau_max(s, j[i]));
			table_num(&t, smp_tau_mean(s, j[i]) * R->page_size);
		}
		table_end(&t);
		return;
	}
	table_begin(&t, stdout, R->o.format, iv_cols, 8);
	for (size_t i = 0; i < s->n; i++) {
		const struct smp_iv *iv = &s->iv[i];
		const char *flags = iv_flags(iv, buf, sizeof(buf));

		table_u64(&t, i + 1);
		table_num(&t, iv->t1 > R->t0 ? (iv->t1 - R->t0) / 1e6 : 0.0);
		table_num(&t, iv->t1 > iv->t0 ? (iv->t1 - iv->t0) / 1e6 : 0.0);
		table_u64(&t, iv->referenced);
		table_u64(&t, iv->scanned);
		table_num(&t, iv->ns / 1e3);
		table_u64(&t, iv->ws);
		table_str(&t, strcmp(flags, "-") ? flags : NULL);
	}
	table_end(&t);
}

static int samples_plot(const struct srep *R, const char *fname);

static int samples_report(const struct srep *R, const char *fname)
{
	const struct srep_series *S = &R->S;
	const struct smp *s = &S->s;
	const unsigned long long t0 = R->t0;
	uint64_t max, lost_pages = 0, lost_refs = 0;
	double mean, median;
	size_t incomplete = count_flag(s, PGFT_SAMPLE_INCOMPLETE);
	char wk[32], buf[64];

	if (R->o.format != TABLE_TEXT) {
		samples_rows(R);
		return R->o.plot ? samples_plot(R, fname) : 0;
	}
	printf("# sampled trace (%s): every %lu ms a scan of the accessed bits of "
	       "every present page; an interval runs from one scan's end to the "
	       "next one's, the first from the baseline scan at the start\n",
	       S->mode, S->ms);
	ws_method(S);
	snprintf(wk, sizeof(wk), "W(%lu)", s->k);
	printf("# %8s %12s %10s %10s %10s %10s %8s  %s\n", "interval", "end_ms",
	       "length_ms", "referenced", "scanned", "scan_us", wk, "flags");
	for (size_t i = 0; i < s->n; i++) {
		const struct smp_iv *iv = &s->iv[i];

		printf("%10zu %12.3f %10.3f %10llu %10llu %10.3f %8llu  %s\n", i + 1,
		       iv->t1 > t0 ? (iv->t1 - t0) / 1e6 : 0.0,
		       iv->t1 > iv->t0 ? (iv->t1 - iv->t0) / 1e6 : 0.0,
		       (unsigned long long)iv->referenced,
		       (unsigned long long)iv->scanned, iv->ns / 1e3,
		       (unsigned long long)iv->ws, iv_flags(iv, buf, sizeof(buf)));
		if (iv->flags & PGFT_SAMPLE_INCOMPLETE) {
			lost_refs += iv->referenced;
			lost_pages += iv->referenced - iv->pages;
		}
	}
	if (!s->n)
		printf("# no interval: the trace has no scan after its baseline "
		       "(it ended within %lu ms of its start)\n", S->ms);
	if (ref_stats(s, &mean, &median, &max))
		return 2;
	printf("# %zu interval%s; %zu incomplete", s->n, s->n == 1 ? "" : "s",
	       incomplete);
	if (incomplete)
		printf(" (refs records lost: %llu of their %llu referenced pages are "
		       "not in the trace, so W(k) and W(t,tau) over them are lower "
		       "bounds)", (unsigned long long)lost_pages,
		       (unsigned long long)lost_refs);
	printf("; %zu stopped (a fatal signal cut the scan short); %llu exec%s and "
	       "%zu restart%s (the window starts over at each)\n",
	       count_flag(s, PGFT_SAMPLE_STOPPED), S->execs,
	       S->execs == 1 ? "" : "s", count_flag(s, IV_RESTART),
	       count_flag(s, IV_RESTART) == 1 ? "" : "s");
	printf("# referenced pages per interval: mean %.4f, median %.1f, max %llu\n",
	       mean, median, (unsigned long long)max);
	printf("# scan time, over the %llu scans (the baseline%s included): mean "
	       "%.3f us, max %.3f us; %.2f ns per page scanned (%llu pages)\n",
	       S->scans, S->baselines == 1 ? "" : "s",
	       S->scans ? S->scan_ns / 1e3 / S->scans : 0.0, S->scan_max / 1e3,
	       S->scanned ? (double)S->scan_ns / S->scanned : 0.0, S->scanned);
	ws_table(R);
	return R->o.plot ? samples_plot(R, fname) : 0;
}

/* pgfreport samples --plot: pages referenced and W(t,k) per interval, over time. */
static int samples_plot(const struct srep *R, const char *fname)
{
	const struct srep_series *S = &R->S;
	const struct smp *s = &S->s;
	const unsigned long long t0 = R->t0;
	double *x = calloc(s->n ? s->n : 1, sizeof(*x));
	double *ref = calloc(s->n ? s->n : 1, sizeof(*ref));
	double *ws = calloc(s->n ? s->n : 1, sizeof(*ws));
	char wname[128], note1[200];
	const char *nt[2] = { note1, NULL };
	struct chart_series cs[2];
	struct chart c;
	FILE *f;

	if (!x || !ref || !ws) {
		free(x);
		free(ref);
		free(ws);
		return out_of_memory();
	}
	for (size_t i = 0; i < s->n; i++) {
		x[i] = s->iv[i].t1 > t0 ? (s->iv[i].t1 - t0) / 1e6 : 0;
		ref[i] = (double)s->iv[i].referenced;
		ws[i] = (double)s->iv[i].ws;
	}
	snprintf(wname, sizeof(wname), "W(t,%lu): distinct pages referenced in "
		 "the last %lu intervals", s->k, s->k);
	snprintf(note1, sizeof(note1), "sampled trace (%s): the accessed bits "
		 "scanned every %lu ms; %zu intervals; the window starts over at "
		 "an exec", S->mode, S->ms, s->n);
	cs[0] = (struct chart_series){ .name = wname, .color = "#1f77b4",
				       .x = x, .y = ws, .n = s->n, .width = 3,
				       .marker = 3 };
	cs[1] = (struct chart_series){ .name = "pages referenced in the interval",
				       .color = "#ff7f0e", .x = x, .y = ref,
				       .n = s->n, .width = 1.5, .marker = 2 };
	c = (struct chart){
		.title = plot_title("Pages referenced per interval", fname),
		.notes = nt, .nnotes = 1,
		.xlabel = "time since the trace's start (ms, each interval's end)",
		.ylabel = "pages", .xunit = SVG_PLAIN, .yunit = SVG_PAGES,
		.page_size = R->page_size, .s = cs, .ns = 2,
		/* From the start; the last interval's end at the right. */
		.xlo = 0, .xhi = s->n ? x[s->n - 1] : 0,
	};
	f = svg_open(R->o.plot);
	if (f)
		chart_lines(f, &c);
	free(x);
	free(ref);
	free(ws);
	return !f || svg_close(f, R->o.plot) ? 2 : 0;
}

/* samples --map: columns of intervals at most; more intervals share columns */
#define MAP_COLS 800

/*
 * The share of row @r's cells (its pages in @k intervals) that @count
 * says were referenced, in quarters, rounded up: 0 none, 4 all.
 */
static unsigned int quarters(const struct smp_map *m, const uint64_t *count,
			     size_t r, size_t k)
{
	uint64_t cells = m->row[r].pages * k;

	return count[r] ? (unsigned int)((4 * count[r] + cells - 1) / cells) : 0;
}

/* samples --map: a column per interval, a row per referenced page. */
static int sample_map(const struct srep *R, const char *fname)
{
	const struct srep_series *S = &R->S;
	const struct smp *s = &S->s;
	const unsigned long long t0 = R->t0;
	const unsigned long page_size = R->page_size;
	const double left = 170, width = 800;
	double top, plot_h, rowh, colw, bottom, last_label = -1;
	size_t per = s->n > MAP_COLS ? (s->n + MAP_COLS - 1) / MAP_COLS : 1;
	size_t cols = (s->n + per - 1) / per, step = cols > 20 ? (cols + 19) / 20 : 1;
	struct smp_map m;
	struct svg_plot p;
	uint64_t *count, *one;
	char title[400], note[720];
	FILE *f;

	if (smp_map_rows(s, MAP_ROWS, &m))
		return out_of_memory();
	count = calloc(m.nrows ? m.nrows : 1, sizeof(*count));
	one = calloc(m.nrows ? m.nrows : 1, sizeof(*one));
	if (!count || !one) {
		free(count);
		free(one);
		smp_map_free(&m);
		return out_of_memory();
	}
	f = svg_open(R->o.map);
	if (!f) {
		smp_map_free(&m);
		free(count);
		free(one);
		return 2;
	}
	snprintf(title, sizeof(title), "%s",
		 plot_title(m.per > 1 || per > 1 ? "Pages referenced per interval, "
			    "address x time" : "Pages referenced per interval, "
			    "page-exact address x time", fname));
	if (m.per > 1)
		snprintf(title + strlen(title), sizeof(title) - strlen(title),
			 " (a row per %llu pages: %llu pages, more than %d rows)",
			 (unsigned long long)m.per, (unsigned long long)m.pages,
			 MAP_ROWS);
	if (per > 1)
		snprintf(title + strlen(title), sizeof(title) - strlen(title),
			 " (a column per %zu intervals: %zu, more than %d columns)",
			 per, s->n, MAP_COLS);
	snprintf(note, sizeof(note), "sampled trace (%s): a column per interval "
		 "(%zu, the accessed bits scanned every %lu ms), a row per page "
		 "(%llu pages ever referenced, in %llu blocks of consecutive "
		 "pages), lowest address at the bottom; the gaps between blocks "
		 "are collapsed: a red line and the block's first address mark "
		 "each; %s; a green line: an exec (or a new start), where the "
		 "address space is new", S->mode, s->n, S->ms,
		 (unsigned long long)m.pages, (unsigned long long)m.blocks,
		 m.per > 1 || per > 1 ? "the rows or columns are shared (see the "
		 "title): a cell's shade is the share of its pages and intervals "
		 "referenced, in quarters" :
		 "a filled cell: the page was referenced in the interval");
	/* Under the notes, room for the exec marks' labels. */
	top = 46 + svg_wrap(NULL, 0, 0, 0, 140, NULL, note) * 15 + 24;
	plot_h = m.nrows <= 50 ? m.nrows * 12.0 : m.nrows < 600 ? 600 : m.nrows;
	if (!m.nrows)
		plot_h = 12;
	bottom = top + plot_h;
	rowh = plot_h / (m.nrows ? m.nrows : 1);
	colw = width / (cols ? cols : 1);
	svg_begin(f, (int)(left + width + 40), (int)(bottom + 80), title);
	svg_text(f, 20, 26, "class=\"title\" font-size=\"16\" font-weight=\"bold\"",
		 "%s", title);
	svg_wrap(f, 20, 46, 15, 140, "class=\"note\" fill=\"#555\"", note);
	/* x: column c spans [c, c + 1]; y: row r spans [r, r + 1]. */
	svg_plot_init(&p, left, top, width, plot_h);
	svg_axis(&p.xa, 0, cols ? (double)cols : 1, false);
	svg_axis(&p.ya, 0, m.nrows ? (double)m.nrows : 1, false);
	fprintf(f, "<g class=\"map\" data-intervals=\"%zu\" data-columns=\"%zu\" "
		"data-intervals-per-column=\"%zu\" data-rows=\"%zu\" "
		"data-pages-per-row=\"%llu\" data-pages=\"%llu\" "
		"data-blocks=\"%llu\">\n", s->n, cols, per, m.nrows,
		(unsigned long long)m.per, (unsigned long long)m.pages,
		(unsigned long long)m.blocks);
	svg_frame(f, &p, "", SVG_NONE, "", SVG_NONE, 0);
	/*
	 * The columns, their intervals' counts added up; rows alike in a
	 * block are one rect.
	 */
	for (size_t c = 0; c < cols; c++) {
		size_t i0 = c * per, i1 = i0 + per < s->n ? i0 + per : s->n;
		const struct smp_iv *iv = &s->iv[i1 - 1];
		double x = left + c * colw;
		uint64_t referenced = 0, pages = 0;
		uint32_t flags = 0;
		char buf[64];

		memset(count, 0, m.nrows * sizeof(*count));
		for (size_t i = i0; i < i1; i++) {
			smp_map_column(s, &m, i, one);
			for (size_t r = 0; r < m.nrows; r++)
				count[r] += one[r];
			referenced += s->iv[i].referenced;
			pages += s->iv[i].pages;
			flags |= s->iv[i].flags;
		}
		fprintf(f, "<g class=\"column\" data-first=\"%zu\" data-last=\"%zu\" "
			"data-end-ms=\"%.3f\" data-referenced=\"%llu\" "
			"data-pages=\"%llu\" data-flags=\"%s\" fill=\"#1f77b4\">\n",
			i0 + 1, i1, iv->t1 > t0 ? (iv->t1 - t0) / 1e6 : 0.0,
			(unsigned long long)referenced, (unsigned long long)pages,
			iv_flags(&(struct smp_iv){ .flags = flags }, buf, sizeof(buf)));
		for (size_t r = 0; r < m.nrows;) {
			unsigned int q = quarters(&m, count, r, i1 - i0);
			size_t e = r + 1;

			if (!q) {
				r++;
				continue;
			}
			while (e < m.nrows && !m.row[e].block &&
			       quarters(&m, count, e, i1 - i0) == q)
				e++;
			fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
				"height=\"%.2f\"%s%s/>\n", x, bottom - e * rowh, colw,
				(e - r) * rowh, q < 4 ? " fill-opacity=\"" : "",
				q == 1 ? "0.25\"" : q == 2 ? "0.5\"" : q == 3 ? "0.75\"" : "");
			r = e;
		}
		fputs("</g>\n", f);
		if (c && flags & (IV_EXEC | IV_RESTART)) {
			fprintf(f, "<g class=\"space\"><line x1=\"%.2f\" y1=\"%.1f\" "
				"x2=\"%.2f\" y2=\"%.1f\" stroke=\"#2ca02c\" "
				"stroke-width=\"2\"/>\n", x, top - 14, x, bottom);
			svg_text(f, x + 3, top - 4, "fill=\"#2ca02c\"", "%s",
				 flags & IV_EXEC ? "exec" : "start");
			fputs("</g>\n", f);
		}
		/* Interval numbers under their columns, and their ends in ms. */
		if (c % step == 0) {
			svg_text(f, x + colw / 2, bottom + 16,
				 "class=\"tick\" text-anchor=\"middle\"", "%zu", i0 + 1);
			svg_text(f, x + colw / 2, bottom + 30, "class=\"tick\" "
				 "text-anchor=\"middle\" fill=\"#777\"", "%.0f",
				 iv->t1 > t0 ? (iv->t1 - t0) / 1e6 : 0.0);
		}
	}
	svg_text(f, left + width / 2, bottom + 50,
		 "class=\"axis-label\" text-anchor=\"middle\"", "interval (numbered "
		 "from 1; under the number, the column's end in ms since the "
		 "trace's start)");
	/* The blocks, over the cells: a separator and their first address. */
	for (size_t r = 0; r < m.nrows; r++) {
		double y = bottom - r * rowh;
		uint64_t pages = m.row[r].pages;
		size_t e = r + 1;

		if (!m.row[r].block)
			continue;
		while (e < m.nrows && !m.row[e].block)
			pages += m.row[e++].pages;
		fprintf(f, "<g class=\"block\" data-start=\"%llx\" data-row=\"%zu\" "
			"data-rows=\"%zu\" data-pages=\"%llu\">\n",
			(unsigned long long)(m.row[r].first * page_size), r, e - r,
			(unsigned long long)pages);
		if (r)
			fprintf(f, "<line class=\"gap\" x1=\"%.1f\" y1=\"%.2f\" "
				"x2=\"%.1f\" y2=\"%.2f\" stroke=\"#d62728\" "
				"stroke-width=\"1\"/>\n", left - 6, y, left + width, y);
		/* Labels a line apart at least; data-start has every one. */
		if (last_label < 0 || y <= last_label - 12) {
			svg_text(f, left - 8, y - 2, "class=\"addr\" text-anchor=\"end\"",
				 "%llx", (unsigned long long)(m.row[r].first * page_size));
			last_label = y;
		}
		fputs("</g>\n", f);
	}
	fputs("</g>\n", f);
	svg_end(f);
	smp_map_free(&m);
	free(count);
	free(one);
	return svg_close(f, R->o.map) ? 2 : 0;
}

/*
 * Do the two traces map the same addresses: as many execs, and the same
 * region starts at the end? If not, @why says where they differ.
 */
static bool same_layout(struct pgft_space *a, unsigned long long ea,
			struct pgft_space *b, unsigned long long eb, char *why,
			size_t len)
{
	size_t na = a->nr, nb = b->nr, i;
	bool same = ea == eb && na == nb;

	pgft_sort(a);
	pgft_sort(b);
	for (i = 0; same && i < na; i++)
		same = a->v[i].start == b->v[i].start;
	if (ea != eb)
		snprintf(why, len, "%llu execs and %llu", ea, eb);
	else if (!same && i && i <= na && i <= nb)
		snprintf(why, len, "a region starts at %llx in one, %llx in the "
			 "other", a->v[i - 1].start, b->v[i - 1].start);
	else if (!same)
		snprintf(why, len, "%zu regions and %zu", na, nb);
	return same;
}

/* Read OTHER, an interval trace, into @O: 0, or 1 after saying why not. */
static int read_other(const struct srep *R, struct srep_series *O,
		      struct pgft_space *as)
{
	const char *other = R->o.other;
	struct pgft_reader rd;
	struct pgft_rec r;
	FILE *f = zfile_read(fopen(other, "r"));
	int ret;

	if (!f) {
		fprintf(stderr, "pgfreport compare: %s: %s\n", other,
			strerror(errno));
		return 2;
	}
	if (pgft_open(&rd, f, other)) {
		fprintf(stderr, "pgfreport compare: %s\n", rd.error);
		fclose(f);
		return 1;
	}
	if (rd.tree) {
		fprintf(stderr, "pgfreport compare: %s is a tree file "
			"(tracepgfault -f): give the interval trace of one process\n",
			other);
		pgft_close(&rd);
		fclose(f);
		return 1;
	}
	while ((ret = pgft_next(&rd, &r)) > 0) {
		if (pgft_apply(as, &r) || (ret = series_rec(R, O, &r, &rd)) == SREP_NOMEM) {
			pgft_close(&rd);
			fclose(f);
			return out_of_memory();
		}
		if (ret) {
			ret = -1;
			break;
		}
	}
	if (ret < 0)
		fprintf(stderr, "pgfreport compare: %s\n", rd.error);
	pgft_close(&rd);
	fclose(f);
	if (series_kind(R, O, other, "pgfreport compare"))
		return 1;
	return ret < 0;
}

/*
 * compare --format: per interval, sampled @a's referenced pages against
 * interval trace @b's faulted ones (and with @same addresses, the pages
 * in both and either, and their Jaccard similarity); or W(t,tau) of both.
 */
static void compare_rows(const struct srep *R, const struct smp *a,
			 const struct smp *b, bool same)
{
	static const char *const iv_cols[] = {
		"interval", "sampled", "faulted", "both", "either", "jaccard",
		"sampled_flags", "interval_flags",
	};
	static const char *const ws_cols[] = {
		"tau_intervals", "sampled_mean", "sampled_max", "interval_mean",
		"interval_max",
	};
	size_t n = a->n > b->n ? a->n : b->n;
	uint64_t tau[SMP_TAUS + 2];
	unsigned int j[SMP_TAUS + 2], k;
	struct table t;

	if (R->o.table == SREP_WSS) {
		k = tau_rows(n, tau, j);
		table_begin(&t, stdout, R->o.format, ws_cols, 5);
		for (unsigned int i = 0; i < k; i++) {
			table_u64(&t, tau[i]);
			table_num(&t, smp_tau_mean(a, j[i]));
			table_u64(&t, smp_tau_max(a, j[i]));
			table_num(&t, smp_tau_mean(b, j[i]));
			table_u64(&t, smp_tau_max(b, j[i]));
		}
		table_end(&t);
		return;
	}
	table_begin(&t, stdout, R->o.format, iv_cols, 8);
	for (size_t i = 0; i < n; i++) {
		const struct smp_iv *x = i < a->n ? &a->iv[i] : NULL;
		const struct smp_iv *y = i < b->n ? &b->iv[i] : NULL;
		uint64_t both, either;
		char fa[64], fb[64];
		const char *f;

		table_u64(&t, i + 1);
		if (x)
			table_u64(&t, x->referenced);
		else
			table_none(&t);
		if (y)
			table_u64(&t, y->pages);
		else
			table_none(&t);
		if (same && x && y) {
			smp_overlap(a, i, b, i, &both, &either);
			table_u64(&t, both);
			table_u64(&t, either);
			table_num(&t, either ? (double)both / either : NAN);
		} else {
			table_none(&t);
			table_none(&t);
			table_none(&t);
		}
		f = x ? iv_flags(x, fa, sizeof(fa)) : "-";
		table_str(&t, strcmp(f, "-") ? f : NULL);
		f = y ? iv_flags(y, fb, sizeof(fb)) : "-";
		table_str(&t, strcmp(f, "-") ? f : NULL);
	}
	table_end(&t);
}

/* pgfreport compare: the sampled trace @S against the interval trace. */
static int compare_report(const struct srep *R, struct pgft_space *as,
			  long execs, const char *fname)
{
	const struct srep_series *S = &R->S;
	struct srep_series O;
	struct pgft_space oas = { 0 };
	const struct smp *a = &S->s, *b;
	size_t n, common, jn = 0, empty = 0;
	uint64_t tau[SMP_TAUS + 2], amax, bmax;
	unsigned int j[SMP_TAUS + 2], k;
	double amean, amed, bmean, bmed, jsum = 0;
	char why[160];
	bool same;
	int status;

	series_init(R, &O, false, true);
	status = read_other(R, &O, &oas);
	if (!O.s.n) {
		smp_free(&O.s);
		pgft_space_free(&oas);
		return status ? status : 1;
	}
	b = &O.s;
	same = same_layout(as, execs, &oas, O.execs, why, sizeof(why));
	n = a->n > b->n ? a->n : b->n;
	common = a->n < b->n ? a->n : b->n;
	if (R->o.format != TABLE_TEXT) {
		compare_rows(R, a, b, same);
		smp_free(&O.s);
		pgft_space_free(&oas);
		return status;
	}
	printf("# sampled:  %s (%s): the pages each scan of the accessed bits found "
	       "referenced since the one before, every %lu ms: %zu intervals\n",
	       fname, S->mode, S->ms, a->n);
	printf("# interval: %s (%s): the pages of the counted faults (minor, major, "
	       "reref) from one re-arm to the next, every %lu ms: %zu intervals; "
	       "the first runs from the start, faults after the last re-arm are "
	       "left out%s\n", R->o.other, O.mode, O.ms, b->n,
	       O.dropped ? ", and so are those before an exec in its interval" : "");
	if (S->ms != O.ms)
		printf("# the intervals differ in length (%lu ms and %lu ms): "
		       "interval i of one is not interval i of the other\n",
		       S->ms, O.ms);
	if (same)
		printf("# the same addresses (both traces end with the same region "
		       "starts): jaccard is |sampled & faulted| / |sampled | faulted| "
		       "of each interval's page sets, \"-\" if both are empty%s\n",
		       count_flag(a, PGFT_SAMPLE_INCOMPLETE) ?
		       " (an incomplete scan's set lacks its lost refs)" : "");
	else
		printf("# addresses differ (ASLR? %s): the page sets are not compared; "
		       "trace both with ASLR off (kernel.randomize_va_space=0, or "
		       "util-linux's setarch -R) for that\n", why);
	ws_method(S);
	printf("# %8s %10s %10s", "interval", "sampled", "faulted");
	if (same)
		printf(" %10s %10s %8s", "both", "either", "jaccard");
	printf("  %s\n", "flags");
	for (size_t i = 0; i < n; i++) {
		char fa[64], fb[64], flags[140];

		printf("%10zu", i + 1);
		if (i < a->n)
			printf(" %10llu", (unsigned long long)a->iv[i].referenced);
		else
			printf(" %10s", "-");
		if (i < b->n)
			printf(" %10llu", (unsigned long long)b->iv[i].pages);
		else
			printf(" %10s", "-");
		if (same && i < common) {
			uint64_t both, either;

			smp_overlap(a, i, b, i, &both, &either);
			printf(" %10llu %10llu", (unsigned long long)both,
			       (unsigned long long)either);
			if (either) {
				printf(" %8.4f", (double)both / either);
				jsum += (double)both / either;
				jn++;
			} else {
				printf(" %8s", "-");
				empty++;
			}
		} else if (same) {
			printf(" %10s %10s %8s", "-", "-", "-");
		}
		snprintf(flags, sizeof(flags), "%s/%s",
			 i < a->n ? iv_flags(&a->iv[i], fa, sizeof(fa)) : "-",
			 i < b->n ? iv_flags(&b->iv[i], fb, sizeof(fb)) : "-");
		printf("  %s\n", strcmp(flags, "-/-") ? flags : "-");
	}
	/* The interval trace's pages: smp_iv.referenced is its distinct pages. */
	if (ref_stats(a, &amean, &amed, &amax) || ref_stats(b, &bmean, &bmed, &bmax)) {
		smp_free(&O.s);
		pgft_space_free(&oas);
		return 2;
	}
	printf("# pages per interval (flags: sampled/interval trace):\n");
	printf("# %-22s %12s %10s %10s %10s\n", "trace", "intervals", "mean",
	       "median", "max");
	printf("  %-22s %12zu %10.4f %10.1f %10llu\n", "sampled (referenced)", a->n,
	       amean, amed, (unsigned long long)amax);
	printf("  %-22s %12zu %10.4f %10.1f %10llu\n", "interval (faulted)", b->n,
	       bmean, bmed, (unsigned long long)bmax);
	printf("# working set W(t,tau) over each trace's intervals t: mean and max "
	       "in pages\n");
	printf("# %12s %14s %12s %14s %12s\n", "tau_intervals", "sampled_mean",
	       "sampled_max", "interval_mean", "interval_max");
	k = tau_rows(n, tau, j);
	for (unsigned int i = 0; i < k; i++)
		printf("%14llu %14.4f %12llu %14.4f %12llu\n",
		       (unsigned long long)tau[i], smp_tau_mean(a, j[i]),
		       (unsigned long long)smp_tau_max(a, j[i]),
		       smp_tau_mean(b, j[i]), (unsigned long long)smp_tau_max(b, j[i]));
	if (same)
		printf("# jaccard: mean %.4f over %zu intervals (%zu with both sets "
		       "empty left out)\n", jn ? jsum / jn : 0.0, jn, empty);
	smp_free(&O.s);
	pgft_space_free(&oas);
	return status;
}

void srep_init(struct srep *R, const struct srep_opts *o,
	       unsigned long page_size)
{
	memset(R, 0, sizeof(*R));
	R->o = *o;
	R->page_size = page_size;
	series_init(R, &R->S, true, o->map || o->compare);
}

int srep_rec(struct srep *R, const struct pgft_rec *r, struct pgft_reader *rd)
{
	return series_rec(R, &R->S, r, rd);
}

int srep_report(struct srep *R, const char *fname, unsigned long long t0,
		struct pgft_space *as, long execs)
{
	/* The option the trace is read for, in what is said of its kind. */
	const char *what = R->o.compare ? "pgfreport compare" :
			   "pgfreport samples";
	int status;

	R->t0 = t0;
	if (series_kind(R, &R->S, fname, what))
		return 1;
	if (R->o.compare)
		status = compare_report(R, as, execs, fname);
	else
		status = samples_report(R, fname);
	if (R->o.map) {
		int map = sample_map(R, fname);

		status = status ? status : map;
	}
	return status;
}

void srep_free(struct srep *R)
{
	smp_free(&R->S.s);
}
