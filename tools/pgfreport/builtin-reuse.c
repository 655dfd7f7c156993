// SPDX-License-Identifier: GPL-2.0
/*
 * pgfreport reuse - the histogram of the references' LRU stack (reuse)
 * distances, whole and per region.
 */
#include <stdio.h>
#include <stdlib.h>
#include "builtin.h"
#include "cache.h"
#include "kind.h"
#include "pass.h"
#include "report.h"
#include "regtag.h"
#include "../lib/svg.h"

static const char usage[] =
"Usage: pgfreport reuse [OPTION...] [TRACE]\n"
"\n"
"The histogram of the references' LRU stack (reuse) distances, the other\n"
"pages referenced since the page's previous reference, in log2 bins (0,\n"
"1, 2-3, 4-7, ...), first references (cold) apart; \"cumulative\" is the\n"
"share of references at that distance or less: the hit ratio of an LRU\n"
"cache one page larger than the bin's top. Then per region (the one that\n"
"held the address at the reference): references, cold ones, and the\n"
"references in each bin. It first says what kind of trace it reads, as\n"
"pgfreport mrc does. With --format, the histogram's columns are distance,\n"
"min_distance, max_distance, references, share and cumulative; the\n"
"regions' (--table regions) region, references, cold and a column per\n"
"bin, named as the text names it.\n"
"\n"
"Options:\n"
"  --plot FILE   also draw the histogram with the LRU hit ratio into FILE\n"
"                (SVG)\n";

/* The report's state (report.h) */
struct reuse_state {
	struct cache cache;
	struct regtags tags;
	const char *plot;	/* --plot */
};

static int reuse_fault(struct pass *ps, void *st, const struct pgft_rec *r,
		       const struct pgft_region *g, long sp,
		       unsigned long long addr)
{
	struct reuse_state *u = st;

	(void)addr;
	if (pgft_counted(r->result))
		cache_ref(&u->cache, ps, regtag_of(&u->tags, sp, g));
	return 0;
}

static int histogram(const struct pass *ps, struct reuse_state *u,
		     const struct notes *notes, const char *plot)
{
	const struct reuse *r = &u->cache.lru;
	unsigned long long cum = 0;
	unsigned int top = r->refs > r->cold ? reuse_bin(r->max_dist) : 0;

	if (ps->format != TABLE_TEXT) {
		/* a row per bin, the cold references first (no distance) */
		static const char *const cols[] = {
			"distance", "min_distance", "max_distance", "references",
			"share", "cumulative",
		};
		struct table t;

		table_begin(&t, stdout, ps->format, cols, 6);
		table_str(&t, "cold");
		table_none(&t);
		table_none(&t);
		table_u64(&t, r->cold);
		table_num(&t, r->refs ? (double)r->cold / r->refs : 0.0);
		table_none(&t);
		for (unsigned int k = 0; r->refs > r->cold && k <= top; k++) {
			char label[48];

			reuse_bin_label(label, sizeof(label), k);
			cum += r->bins[k];
			table_str(&t, label);
			table_u64(&t, reuse_bin_lo(k));
			table_u64(&t, reuse_bin_hi(k));
			table_u64(&t, r->bins[k]);
			table_num(&t, (double)r->bins[k] / r->refs);
			table_num(&t, (double)cum / r->refs);
		}
		table_end(&t);
		goto plot;
	}
	printf("# %llu references to %llu pages; %llu first references (cold misses)\n",
	       (unsigned long long)r->refs, (unsigned long long)reuse_pages(r),
	       (unsigned long long)r->cold);
	printf("# %-20s %12s %7s %10s\n", "distance", "references", "share",
	       "cumulative");
	printf("%-22s %12llu %7.4f\n", "cold", (unsigned long long)r->cold,
	       r->refs ? (double)r->cold / r->refs : 0.0);
	for (unsigned int k = 0; r->refs > r->cold && k <= top; k++) {
		char label[48];

		reuse_bin_label(label, sizeof(label), k);
		cum += r->bins[k];
		printf("%-22s %12llu %7.4f %10.4f\n", label,
		       (unsigned long long)r->bins[k], (double)r->bins[k] / r->refs,
		       (double)cum / r->refs);
	}
plot:
	if (plot) {
		FILE *f = svg_open(plot);
		struct plot_text t = kind_plot_text(notes, "Reuse distances",
						    ps->trace.fname, ps->trace.page_size);

		if (!f)
			return PGF_EXIT_FAIL;
		plot_reuse(f, &t, r);
		return svg_close(f, plot) ? PGF_EXIT_FAIL : 0;
	}
	return 0;
}

/* --format's per-region table: region, references, cold, a column per bin */
static int per_region_table(const struct pass *ps, struct reuse_state *u,
			    unsigned int top)
{
	const char **cols = calloc(top + 4, sizeof(*cols));
	char (*labels)[48] = calloc(top + 1, sizeof(*labels));
	struct table t;

	if (!cols || !labels) {
		free(cols);
		free(labels);
		return pass_error(ps, "out of memory");
	}
	cols[0] = "region";
	cols[1] = "references";
	cols[2] = "cold";
	for (unsigned int k = 0; k <= top; k++) {
		reuse_bin_label(labels[k], sizeof(labels[k]), k);
		cols[3 + k] = labels[k];
	}
	table_begin(&t, stdout, ps->format, cols, top + 4);
	for (size_t i = 1; u->cache.lru.refs && i <= u->cache.nreg; i++) {
		size_t tag = i % u->cache.nreg;
		const struct reuse_reg *g = &u->cache.reg[tag];

		if (!g->refs)
			continue;
		table_str(&t, tag ? regtag_name(&u->tags, tag) : NULL);
		table_u64(&t, g->refs);
		table_u64(&t, g->cold);
		for (unsigned int k = 0; k <= top; k++)
			table_u64(&t, g->bins[k]);
	}
	table_end(&t);
	free(cols);
	free(labels);
	return 0;
}

static int per_region(const struct pass *ps, struct reuse_state *u)
{
	unsigned int top = 0;

	for (size_t t = 0; t < u->cache.nreg; t++)
		for (unsigned int k = 0; k < REUSE_BINS; k++)
			if (u->cache.reg[t].bins[k] && k > top)
				top = k;
	if (ps->format != TABLE_TEXT)
		return per_region_table(ps, u, top);
	if (!u->cache.lru.refs)
		return 0;
	printf("# per region (the region that held the address at the reference): "
	       "references, cold ones, then the references per distance bin; the "
	       "distances are the whole string's (other pages of every region)\n");
	printf("# %10s %10s", "references", "cold");
	for (unsigned int k = 0; k <= top; k++) {
		char label[48];

		reuse_bin_label(label, sizeof(label), k);
		printf(" %10s", label);
	}
	printf("  region\n");
	/* Tag 0, the references outside any region, last. */
	for (size_t i = 1; i <= u->cache.nreg; i++) {
		size_t t = i % u->cache.nreg;
		const struct reuse_reg *g = &u->cache.reg[t];

		if (!g->refs)
			continue;
		printf("%12llu %10llu", (unsigned long long)g->refs,
		       (unsigned long long)g->cold);
		for (unsigned int k = 0; k <= top; k++)
			printf(" %10llu", (unsigned long long)g->bins[k]);
		printf("  %s\n", regtag_name(&u->tags, t));
	}
	return 0;
}

static const struct option reuse_opts[] = {
	{ "plot", required_argument, NULL, 'p' },
	{ NULL, 0, NULL, 0 },
};

static int reuse_option(struct pass *ps, void *st, int opt, const char *arg)
{
	struct reuse_state *u = st;

	(void)ps;
	if (opt == 'p')
		u->plot = arg;
	return 0;
}

static int reuse_begin(struct pass *ps, void *st)
{
	struct reuse_state *u = st;

	(void)ps;
	return cache_init(&u->cache, false, NULL, 0, true, 1) ?:
	       cache_attach(&u->cache, ps);
}

static int reuse_end(struct pass *ps, void *st, int status)
{
	struct reuse_state *u = st;
	struct notes notes;

	if (u->tags.oom) {
		status = pass_status(status, pass_oom(ps));
	} else if (cache_end(&u->cache)) {
		status = pass_status(status, PGF_EXIT_FAIL);
	} else if (!ps->pid || ps->replay.pid_seen) {
		kind_notes(&ps->replay.kind, &notes, AN_REUSE);
		if (ps->format == TABLE_TEXT)
			notes_print(&notes);
		if (ps->format == TABLE_TEXT || ps->table == 0)
			status = pass_status(status, histogram(ps, u, &notes, u->plot));
		if (ps->format == TABLE_TEXT || ps->table == 1)
			status = pass_status(status, per_region(ps, u));
	}
	cache_free(&u->cache);
	regtags_free(&u->tags);
	return status;
}

static const char *const reuse_tables[] = { "histogram", "regions", NULL };

const struct report reuse_report = {
	.name = "reuse", .usage = usage, .tables = reuse_tables,
	.size = sizeof(struct reuse_state),
	.takes = TAKES_PID | TAKES_FILTERS | TAKES_FORMAT | TAKES_FILES | TAKES_PHYS,
	.longopts = reuse_opts, .option = reuse_option, .begin = reuse_begin,
	.fault = reuse_fault, .end = reuse_end,
};

int cmd_reuse(int argc, char **argv)
{
	return report_main(&reuse_report, argc, argv);
}
