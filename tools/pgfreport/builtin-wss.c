// SPDX-License-Identifier: GPL-2.0
/*
 * pgfreport wss - Denning's working-set curve of the reference string,
 * exact from the gaps between a page's references.
 */
#include <stdio.h>
#include <stdlib.h>
#include "builtin.h"
#include "kind.h"
#include "pass.h"
#include "report.h"
#include "../lib/svg.h"
#include "../lib/wss.h"

static const char usage[] =
"Usage: pgfreport wss [OPTION...] [TRACE]\n"
"\n"
"Denning's working-set curve: for windows of tau = 1, 2, 4, ... references\n"
"(then all of them), the mean working-set size s(tau) = (1/n) sum over\n"
"references t of the distinct pages among the tau references ending at\n"
"t, in pages and bytes, and the working-set fault rate (the share of\n"
"references whose page is not among the tau before them); exact, from\n"
"the gaps between a page's references: n s(tau) = sum of min(tau, gap to\n"
"the page's next reference, or to the end of the trace + 1). pgfreport\n"
"timeline gives the working set per interval of time. It first says what\n"
"kind of trace it reads, as pgfreport mrc does.\n"
"\n"
"Options:\n"
"  --plot FILE   also draw the curve into FILE (SVG), on log2 axes\n";

/* The report's state (report.h) */
struct wss_state {
	struct wss wss;
	size_t off;		/* its struct wss_page in the pass's slot */
	const char *plot;	/* --plot */
};

static int wss_fault(struct pass *ps, void *st, const struct pgft_rec *r,
		     const struct pgft_region *g, long sp, unsigned long long addr)
{
	struct wss_state *W = st;

	(void)g;
	(void)sp;
	(void)addr;
	if (!pgft_counted(r->result))
		return 0;
	wss_ref_at(&W->wss, pass_state(ps, W->off));
	return 0;
}

static void table_rows(const struct pass *ps, const struct wss_state *W);
static void text_rows(const struct pass *ps, const struct wss_state *W);

static int report(const struct pass *ps, struct wss_state *W,
		  const struct notes *notes)
{
	struct pgid_slot *s;
	size_t i = 0;

	while ((s = pass_next_page(ps, &i)))
		wss_end_page(&W->wss, pgid_data(s, W->off));
	wss_end(&W->wss);
	if (ps->format != TABLE_TEXT)
		table_rows(ps, W);
	else
		text_rows(ps, W);
	if (W->plot) {
		FILE *f = svg_open(W->plot);
		struct plot_text t = kind_plot_text(notes, "Working-set curve",
						    ps->trace.fname, ps->trace.page_size);

		if (!f)
			return PGF_EXIT_FAIL;
		plot_wss(f, &t, &W->wss);
		return svg_close(f, W->plot) ? PGF_EXIT_FAIL : 0;
	}
	return 0;
}

/* The next tau of the curve after @tau, of @n references: 0 after n. */
static uint64_t next_tau(uint64_t tau, uint64_t n)
{
	if (tau >= n)
		return 0;
	return tau * 2 > n ? n : tau * 2;
}

/* --format csv|json */
static void table_rows(const struct pass *ps, const struct wss_state *W)
{
	static const char *const cols[] = {
		"tau_refs", "wss_pages", "wss_bytes", "fault_rate",
	};
	uint64_t n = W->wss.refs;
	struct table t;

	table_begin(&t, stdout, ps->format, cols, 4);
	for (uint64_t tau = n ? 1 : 0; tau; tau = next_tau(tau, n)) {
		double s = (double)wss_sum(&W->wss, tau) / n;

		table_u64(&t, tau);
		table_num(&t, s);
		table_num(&t, s * ps->trace.page_size);
		table_num(&t, (double)wss_faults(&W->wss, tau) / n);
	}
	table_end(&t);
}

static void text_rows(const struct pass *ps, const struct wss_state *W)
{
	uint64_t n = W->wss.refs;

	printf("# Denning's working-set curve: s(tau), the mean over every reference "
	       "t of the distinct pages among the tau references ending at t, exact "
	       "from the gaps between references to a page (Denning & Schwartz "
	       "1972); fault_rate: the share of references whose page is not "
	       "among the tau before them\n");
	printf("# tau counts this trace's references (its counted faults), not the "
	       "program's; the working set per interval of time is pgfreport "
	       "timeline's\n");
	printf("# %llu references to %zu pages\n", (unsigned long long)n,
	       W->wss.nr);
	printf("# %10s %12s %14s %10s\n", "tau_refs", "wss_pages", "wss_bytes",
	       "fault_rate");
	for (uint64_t tau = n ? 1 : 0; tau; tau = next_tau(tau, n)) {
		double s = (double)wss_sum(&W->wss, tau) / n;

		printf("%12llu %12.4f %14.0f %10.4f\n", (unsigned long long)tau, s,
		       s * ps->trace.page_size, (double)wss_faults(&W->wss, tau) / n);
	}
}

static const struct option wss_opts[] = {
	{ "plot", required_argument, NULL, 'p' },
	{ NULL, 0, NULL, 0 },
};

static int wss_option(struct pass *ps, void *st, int opt, const char *arg)
{
	struct wss_state *W = st;

	(void)ps;
	if (opt == 'p')
		W->plot = arg;
	return 0;
}

static int wss_begin(struct pass *ps, void *st)
{
	struct wss_state *W = st;

	wss_init(&W->wss);
	return pass_reserve(ps, sizeof(struct wss_page), &W->off);
}

static int wss_end_report(struct pass *ps, void *st, int status)
{
	struct wss_state *W = st;
	struct notes notes;

	if (!ps->pid || ps->replay.pid_seen) {
		kind_notes(&ps->replay.kind, &notes, AN_WSS);
		if (ps->format == TABLE_TEXT)
			notes_print(&notes);
		status = pass_status(status, report(ps, W, &notes));
	}
	wss_free(&W->wss);
	return status;
}

const struct report wss_report = {
	.name = "wss", .usage = usage, .takes = TAKES_PID | TAKES_FILTERS | TAKES_FORMAT |
		 TAKES_FILES | TAKES_PHYS,
	.size = sizeof(struct wss_state),
	.longopts = wss_opts, .option = wss_option, .begin = wss_begin,
	.fault = wss_fault, .end = wss_end_report,
};

int cmd_wss(int argc, char **argv)
{
	return report_main(&wss_report, argc, argv);
}
