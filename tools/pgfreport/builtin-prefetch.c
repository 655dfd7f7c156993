// SPDX-License-Identifier: GPL-2.0
/*
 * pgfreport prefetch - how sequential the faults are, and what a next-N
 * prefetch would have saved.
 */
#include <stdio.h>
#include <stdlib.h>
#include "builtin.h"
#include "kind.h"
#include "pass.h"
#include "report.h"
#include "regtag.h"
#include "../lib/prefetch.h"
#include "../lib/reuse.h"

static const char usage[] =
"Usage: pgfreport prefetch [OPTION...] [TRACE]\n"
"\n"
"How sequential the faults are, and what prefetching would have saved:\n"
"the share of faults on the previous fault's page + 1 (overall, and per\n"
"region after the region's previous fault), runs of faults with the same\n"
"stride by length, and for N = 1, 2, 4, ... 64 the faults a next-N\n"
"prefetch avoids. The model: a trigger on page p brings in p+1 .. p+N of\n"
"p's region; a brought-in page stays until its next fault, which is\n"
"avoided; \"demand\" counts with only the faults not avoided triggering\n"
"(fault-around), \"every\" with avoided ones triggering too (readahead).\n"
"It first says what kind of trace it reads, as pgfreport mrc does.\n"
"With --format, the next-N table's columns are n, avoided_demand,\n"
"demand_share, avoided_every and every_share; the runs' (--table runs)\n"
"run_strides, min_strides, max_strides, runs and of_faults; the regions'\n"
"(--table regions) region, faults, next_page and share.\n";

/* The report's state (report.h) */
struct pf_state {
	struct regtags tags;
	struct prefetch pf;
};

static int pf_fault(struct pass *ps, void *st, const struct pgft_rec *r,
		    const struct pgft_region *g, long sp, unsigned long long addr)
{
	struct pf_state *P = st;
	uint64_t page = pass_page(ps, addr);

	if (!pgft_counted(r->result))
		return 0;
	/* the region's end as @addr is tagged (a tree's process index) */
	if (prefetch_ref(&P->pf, page, regtag_of(&P->tags, sp, g),
			 g ? (g->end + (addr - r->addr)) / ps->trace.page_size : page + 1))
		return pass_oom(ps);
	return 0;
}

/* The last bin of run lengths that holds a run (0: none). */
static unsigned int runs_top(const struct prefetch *pf)
{
	unsigned int top = 0;

	for (unsigned int k = 1; k < PF_BINS; k++)
		if (pf->runs[k])
			top = k;
	return top;
}

/* --format: the table --table names */
static void report_table(const struct pass *ps, struct pf_state *P)
{
	static const char *const next_cols[] = {
		"n", "avoided_demand", "demand_share", "avoided_every",
		"every_share",
	};
	static const char *const run_cols[] = {
		"run_strides", "min_strides", "max_strides", "runs", "of_faults",
	};
	static const char *const reg_cols[] = {
		"region", "faults", "next_page", "share",
	};
	double n = P->pf.refs ? (double)P->pf.refs : 1;
	uint64_t avoided = 0;
	unsigned int top;
	struct table t;

	prefetch_end(&P->pf);
	switch (ps->table) {
	case 0:
		table_begin(&t, stdout, ps->format, next_cols, 5);
		for (unsigned int k = 0, pn = 1; pn <= PF_MAX; pn++) {
			avoided += P->pf.avoided_every[pn];
			if (pn != prefetch_grid[k])
				continue;
			table_u64(&t, pn);
			table_u64(&t, P->pf.avoided_demand[k]);
			table_num(&t, P->pf.avoided_demand[k] / n);
			table_u64(&t, avoided);
			table_num(&t, avoided / n);
			k++;
		}
		break;
	case 1:
		table_begin(&t, stdout, ps->format, run_cols, 5);
		top = runs_top(&P->pf);
		for (unsigned int k = 1; k <= top; k++) {
			char label[48];

			reuse_bin_label(label, sizeof(label), k);
			table_str(&t, label);
			table_u64(&t, reuse_bin_lo(k));
			table_u64(&t, reuse_bin_hi(k));
			table_u64(&t, P->pf.runs[k]);
			table_num(&t, P->pf.run_strides[k] / n);
		}
		break;
	default:
		table_begin(&t, stdout, ps->format, reg_cols, 4);
		for (size_t i = 0; i < P->pf.nreg; i++) {
			if (!P->pf.reg[i].faults)
				continue;
			table_str(&t, i ? regtag_name(&P->tags, i) : NULL);
			table_u64(&t, P->pf.reg[i].faults);
			table_u64(&t, P->pf.reg[i].next_page);
			table_num(&t, (double)P->pf.reg[i].next_page / P->pf.reg[i].faults);
		}
		break;
	}
	table_end(&t);
}

static void report(struct pf_state *P)
{
	double n = P->pf.refs ? (double)P->pf.refs : 1;
	uint64_t avoided = 0;
	unsigned int top;

	prefetch_end(&P->pf);
	printf("# %llu faults; next-page (the previous fault's page + 1): %llu "
	       "(%.4f)\n", (unsigned long long)P->pf.refs,
	       (unsigned long long)P->pf.next_page, P->pf.next_page / n);
	printf("# runs of faults with the same stride (page - the previous fault's "
	       "page), by length in strides (a run of k spans k + 1 faults)\n");
	printf("# %-20s %12s %12s\n", "run_strides", "runs", "of_faults");
	top = runs_top(&P->pf);
	for (unsigned int k = 1; k <= top; k++) {
		char label[48];

		reuse_bin_label(label, sizeof(label), k);
		printf("%-22s %12llu %12.4f\n", label, (unsigned long long)P->pf.runs[k],
		       P->pf.run_strides[k] / n);
	}
	printf("# per region (the region that held the address at the fault; "
	       "next-page: after the previous fault in the same region)\n");
	printf("# %10s %12s %10s  %s\n", "faults", "next_page", "share", "region");
	for (size_t t = 0; t < P->pf.nreg; t++)
		if (P->pf.reg[t].faults)
			printf("%12llu %12llu %10.4f  %s\n",
			       (unsigned long long)P->pf.reg[t].faults,
			       (unsigned long long)P->pf.reg[t].next_page,
			       (double)P->pf.reg[t].next_page / P->pf.reg[t].faults,
			       regtag_name(&P->tags, t));
	printf("# next-N prefetch: each trigger on page p brings in p+1 .. p+N of "
	       "its region, kept until used; \"demand\": only the faults not "
	       "avoided trigger (fault-around); \"every\": avoided ones too "
	       "(readahead)\n");
	printf("# %6s %14s %10s %14s %10s\n", "N", "avoided_demand", "share",
	       "avoided_every", "share");
	for (unsigned int k = 0, pn = 1; pn <= PF_MAX; pn++) {
		avoided += P->pf.avoided_every[pn];
		if (pn != prefetch_grid[k])
			continue;
		printf("%8u %14llu %10.4f %14llu %10.4f\n", pn,
		       (unsigned long long)P->pf.avoided_demand[k],
		       P->pf.avoided_demand[k] / n, (unsigned long long)avoided,
		       avoided / n);
		k++;
	}
}

static int pf_option(struct pass *ps, void *st, int opt, const char *arg)
{
	(void)ps;
	(void)st;
	(void)opt;
	(void)arg;
	return 0;
}

static int pf_begin(struct pass *ps, void *st)
{
	struct pf_state *P = st;

	(void)ps;
	prefetch_init(&P->pf);
	return 0;
}

static int pf_end(struct pass *ps, void *st, int status)
{
	struct pf_state *P = st;
	struct notes notes;

	if (P->tags.oom) {
		status = pass_status(status, pass_oom(ps));
	} else if (!ps->pid || ps->replay.pid_seen) {
		kind_notes(&ps->replay.kind, &notes, AN_PREFETCH);
		if (ps->format != TABLE_TEXT) {
			report_table(ps, P);
		} else {
			notes_print(&notes);
			report(P);
		}
	}
	prefetch_free(&P->pf);
	regtags_free(&P->tags);
	return status;
}

static const char *const pf_tables[] = { "next", "runs", "regions", NULL };

const struct report prefetch_report = {
	.name = "prefetch", .usage = usage, .tables = pf_tables,
	.size = sizeof(struct pf_state),
	.takes = TAKES_PID | TAKES_FILTERS | TAKES_FORMAT,
	.option = pf_option, .begin = pf_begin, .fault = pf_fault, .end = pf_end,
};

int cmd_prefetch(int argc, char **argv)
{
	return report_main(&prefetch_report, argc, argv);
}
