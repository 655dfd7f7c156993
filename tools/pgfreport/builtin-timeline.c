// SPDX-License-Identifier: GPL-2.0
/*
 * pgfreport timeline - per interval of time: the faults, the distinct
 * pages faulted, the working set of the last intervals, the footprint.
 */
#include <stdio.h>
#include <stdlib.h>
#include "builtin.h"
#include "kind.h"
#include "pass.h"
#include "report.h"
#include "timeline.h"
#include "../lib/svg.h"

static const char usage[] =
"Usage: pgfreport timeline [OPTION...] [TRACE]\n"
"\n"
"Per interval of time: faults (counted ones), distinct pages faulted, the\n"
"working set (distinct pages faulted in the last --window intervals) and\n"
"the footprint (distinct pages faulted so far).\n"
"\n"
"Options:\n"
"  --interval MS  the interval (default 10)\n"
"  --window N    the working set's window, in intervals (default 10)\n"
"  --plot FILE   also draw the working set, pages per interval and\n"
"                footprint over time into FILE (SVG; x: ms since the start)\n";

/* The report's state (report.h) */
struct tl_state {
	long interval_ms, window;	/* --interval, --window */
	struct timeline tl;
	const char *plot_path;		/* --plot */
};

static void tl_state_init(void *st)
{
	struct tl_state *L = st;

	L->interval_ms = 10;
	L->window = 10;
}

static int tl_fault_cb(struct pass *ps, void *st, const struct pgft_rec *r,
		       const struct pgft_region *g, long sp,
		       unsigned long long addr)
{
	struct tl_state *L = st;

	(void)g;
	(void)sp;
	if (!pgft_counted(r->result))
		return 0;
	tl_fault(&L->tl, r->time, pass_page(ps, addr));
	return L->tl.nomem ? PGF_EXIT_FAIL : 0;	/* said */
}

static void print(const struct pass *ps, struct tl_state *L)
{
	if (ps->format != TABLE_TEXT) {
		static const char *const cols[] = {
			"t_ms", "faults", "pages", "working_set", "footprint",
		};
		struct table t;

		table_begin(&t, stdout, ps->format, cols, 5);
		for (size_t i = 0; i < L->tl.nrow; i++) {
			table_num(&t, L->tl.row[TL_T][i]);
			table_num(&t, L->tl.row[TL_FAULTS][i]);
			table_num(&t, L->tl.row[TL_PAGES][i]);
			table_num(&t, L->tl.row[TL_WS][i]);
			table_num(&t, L->tl.row[TL_FOOTPRINT][i]);
		}
		table_end(&t);
		return;
	}
	printf("# interval %ld ms, working-set window %ld intervals\n",
	       L->interval_ms, L->window);
	printf("# %8s %10s %10s %12s %12s\n", "t_ms", "faults", "pages",
	       "working_set", "footprint");
	for (size_t i = 0; i < L->tl.nrow; i++)
		printf("%10.1f %10.0f %10.0f %12.0f %12.0f\n", L->tl.row[TL_T][i],
		       L->tl.row[TL_FAULTS][i], L->tl.row[TL_PAGES][i], L->tl.row[TL_WS][i],
		       L->tl.row[TL_FOOTPRINT][i]);
}

static int plot(const struct pass *ps, struct tl_state *L, const char *path)
{
	FILE *f = svg_open(path);
	struct plot_text t;
	struct notes notes;
	char label[96];

	if (!f)
		return PGF_EXIT_FAIL;
	kind_notes(&ps->replay.kind, &notes, AN_TIMELINE);
	snprintf(label, sizeof(label), "working set (pages faulted in the last "
		 "%ld intervals)", L->window);
	t = kind_plot_text(&notes, "Working set over time", ps->trace.fname,
			   ps->trace.page_size);
	for (size_t i = 0; i < L->tl.nrow; i++)
		L->tl.row[TL_T][i] *= 1e6;		/* the chart's x: ns */
	plot_timeline(f, &t, L->tl.row[TL_T], L->tl.row[TL_PAGES], L->tl.row[TL_WS],
		      L->tl.row[TL_FOOTPRINT], L->tl.nrow, label);
	return svg_close(f, path) ? PGF_EXIT_FAIL : 0;
}

static const struct option tl_opts[] = {
	{ "interval", required_argument, NULL, 'i' },
	{ "window", required_argument, NULL, 'W' },
	{ "plot", required_argument, NULL, 'p' },
	{ NULL, 0, NULL, 0 },
};

static int tl_option(struct pass *ps, void *st, int opt, const char *arg)
{
	struct tl_state *L = st;

	if (opt == 'i')
		return pass_number(ps, "--interval", arg, false, &L->interval_ms);
	if (opt == 'W')
		return pass_number(ps, "--window", arg, false, &L->window);
	if (opt == 'p')
		L->plot_path = arg;
	return 0;
}

static int tl_begin(struct pass *ps, void *st)
{
	struct tl_state *L = st;

	(void)ps;
	tl_init(&L->tl, L->interval_ms, L->window);
	return 0;
}

static int tl_end_report(struct pass *ps, void *st, int status)
{
	struct tl_state *L = st;

	tl_end(&L->tl);
	if (L->tl.nomem) {
		tl_free(&L->tl);
		return pass_status(status, PGF_EXIT_FAIL);	/* said */
	}
	if (L->tl.nrow || ps->format != TABLE_TEXT)
		print(ps, L);
	if (L->plot_path && (!ps->pid || ps->replay.pid_seen))
		status = pass_status(status, plot(ps, L, L->plot_path));
	tl_free(&L->tl);
	return status;
}

const struct report timeline_report = {
	.name = "timeline", .usage = usage, .takes = TAKES_PID | TAKES_FILTERS | TAKES_FORMAT |
		 TAKES_FILES | TAKES_PHYS,
	.size = sizeof(struct tl_state), .init = tl_state_init,
	.longopts = tl_opts, .option = tl_option, .begin = tl_begin,
	.fault = tl_fault_cb, .end = tl_end_report,
};

int cmd_timeline(int argc, char **argv)
{
	return report_main(&timeline_report, argc, argv);
}
