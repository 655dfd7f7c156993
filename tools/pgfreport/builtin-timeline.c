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

static long interval_ms = 10, window = 10;
static struct timeline tl;

static int tl_fault_cb(struct pass *ps, const struct pgft_rec *r,
		       const struct pgft_region *g, long sp,
		       unsigned long long addr)
{
	(void)g;
	(void)sp;
	if (!pgft_counted(r->result))
		return 0;
	tl_fault(&tl, r->time, pass_page(ps, addr));
	return tl.nomem ? PGF_EXIT_FAIL : 0;	/* said */
}

static void print(const struct pass *ps)
{
	if (ps->format != TABLE_TEXT) {
		static const char *const cols[] = {
			"t_ms", "faults", "pages", "working_set", "footprint",
		};
		struct table t;

		table_begin(&t, stdout, ps->format, cols, 5);
		for (size_t i = 0; i < tl.nrow; i++) {
			table_num(&t, tl.row[TL_T][i]);
			table_num(&t, tl.row[TL_FAULTS][i]);
			table_num(&t, tl.row[TL_PAGES][i]);
			table_num(&t, tl.row[TL_WS][i]);
			table_num(&t, tl.row[TL_FOOTPRINT][i]);
		}
		table_end(&t);
		return;
	}
	printf("# interval %ld ms, working-set window %ld intervals\n",
	       interval_ms, window);
	printf("# %8s %10s %10s %12s %12s\n", "t_ms", "faults", "pages",
	       "working_set", "footprint");
	for (size_t i = 0; i < tl.nrow; i++)
		printf("%10.1f %10.0f %10.0f %12.0f %12.0f\n", tl.row[TL_T][i],
		       tl.row[TL_FAULTS][i], tl.row[TL_PAGES][i], tl.row[TL_WS][i],
		       tl.row[TL_FOOTPRINT][i]);
}

static int plot(const struct pass *ps, const char *path)
{
	FILE *f = svg_open(path);
	struct plot_text t;
	struct notes notes;
	char label[96];

	if (!f)
		return PGF_EXIT_FAIL;
	kind_notes(&ps->kind, &notes, AN_TIMELINE);
	snprintf(label, sizeof(label), "working set (pages faulted in the last "
		 "%ld intervals)", window);
	t = kind_plot_text(&notes, "Working set over time", ps->fname,
			   ps->page_size);
	for (size_t i = 0; i < tl.nrow; i++)
		tl.row[TL_T][i] *= 1e6;		/* the chart's x: ns */
	plot_timeline(f, &t, tl.row[TL_T], tl.row[TL_PAGES], tl.row[TL_WS],
		      tl.row[TL_FOOTPRINT], tl.nrow, label);
	return svg_close(f, path) ? PGF_EXIT_FAIL : 0;
}

static const struct option tl_opts[] = {
	{ "interval", required_argument, NULL, 'i' },
	{ "window", required_argument, NULL, 'W' },
	{ "plot", required_argument, NULL, 'p' },
	{ NULL, 0, NULL, 0 },
};

static const char *plot_path;

static int tl_option(struct pass *ps, int opt, const char *arg)
{
	if (opt == 'i')
		return pass_number(ps, "--interval", arg, false, &interval_ms);
	if (opt == 'W')
		return pass_number(ps, "--window", arg, false, &window);
	if (opt == 'p')
		plot_path = arg;
	return 0;
}

static int tl_begin(struct pass *ps)
{
	(void)ps;
	tl_init(&tl, interval_ms, window);
	return 0;
}

static int tl_end_report(struct pass *ps, int status)
{
	tl_end(&tl);
	if (tl.nomem) {
		tl_free(&tl);
		return pass_status(status, PGF_EXIT_FAIL);	/* said */
	}
	if (tl.nrow || ps->format != TABLE_TEXT)
		print(ps);
	if (plot_path && (!ps->pid || ps->pid_seen))
		status = pass_status(status, plot(ps, plot_path));
	tl_free(&tl);
	return status;
}

const struct report timeline_report = {
	.name = "timeline", .usage = usage, .takes = TAKES_PID | TAKES_FILTERS | TAKES_FORMAT,
	.longopts = tl_opts, .option = tl_option, .begin = tl_begin,
	.fault = tl_fault_cb, .end = tl_end_report,
};

int cmd_timeline(int argc, char **argv)
{
	return report_main(&timeline_report, argc, argv);
}
