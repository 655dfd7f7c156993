// SPDX-License-Identifier: GPL-2.0
/*
 * pgfreport samples, pgfreport compare - the reports of a sampled trace
 * (tracepgfault -s MS): its intervals, and it against an interval trace
 * of the same program. The work is tools/lib/sample_report.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "builtin.h"
#include "pass.h"
#include "../lib/sample_report.h"

static const char samples_usage[] =
"Usage: pgfreport samples [OPTION...] [TRACE]\n"
"\n"
"For a sampled trace (tracepgfault -s MS: every MS ms a scan of the\n"
"accessed bits of every present page), per interval (from one scan to\n"
"the next, the first from the baseline scan at the start): its number,\n"
"its end and length (ms since the start), the pages referenced, the\n"
"pages scanned, the scan's time (us), W(K) (the distinct pages referenced\n"
"in the last K intervals) and its flags (incomplete: refs records were\n"
"lost, so its pages are a lower bound; stopped: a fatal signal cut the\n"
"scan short; exec: the first interval of a new address space: every\n"
"window starts over there). Then the referenced pages per interval\n"
"(mean, median, max), the scans' time (mean, max, ns per page scanned)\n"
"and Denning's working set W(t,tau), the distinct pages referenced in the\n"
"last tau intervals, for tau = 1, 2, 4, ... intervals: its mean and max\n"
"over the intervals t. With --format, the intervals' columns are\n"
"interval, end_ms, length_ms, referenced, scanned, scan_us, ws_k (W(K))\n"
"and flags; W(t,tau)'s (--table wss) tau_intervals, tau_ms, mean_pages,\n"
"max_pages and mean_bytes.\n"
"\n"
"Options:\n"
"  --ws-intervals K  the window of the W(K) column and of the --plot chart\n"
"                (default 4)\n"
"  --plot FILE   also draw the pages referenced and W(t,K) per interval\n"
"                into FILE (SVG; x: ms since the start)\n"
"  --map FILE    also draw the pages each interval referenced into FILE\n"
"                (SVG), page-exact: a column per interval, a row per page\n"
"                ever referenced, by address, the gaps between pages apart\n"
"                collapsed (a line and the address mark each), a cell\n"
"                filled where the page was referenced in the interval.\n"
"                Over 2000 pages, a row holds a few; over 800 intervals, a\n"
"                column holds a few (the title says so, a cell is shaded\n"
"                by the share referenced)\n";

static const char compare_usage[] =
"Usage: pgfreport compare [OPTION...] SAMPLED INTERVAL\n"
"\n"
"SAMPLED is a sampled trace (tracepgfault -s MS), INTERVAL an interval\n"
"trace of the same program (tracepgfault -i MS), whose intervals are the\n"
"pages of its counted faults (minor, major, reref) from one \"rearm ...\n"
"interval\" record to the next (the first from its start): side by side\n"
"per interval, both from their start, the pages referenced and the pages\n"
"faulted, and if the two map the same addresses (the same region starts\n"
"at the end, as with ASLR off) the pages in both, in either, and their\n"
"Jaccard similarity; then each one's mean, median and max pages per\n"
"interval and its W(t,tau) for tau = 1, 2, 4, ... --pid chooses the\n"
"process of SAMPLED. With --format, the intervals' columns are interval,\n"
"sampled, faulted, both, either, jaccard (empty where the addresses\n"
"differ), sampled_flags and interval_flags; W(t,tau)'s (--table wss)\n"
"tau_intervals, sampled_mean, sampled_max, interval_mean and\n"
"interval_max.\n"
"\n"
"Options:\n"
"  --map FILE    also draw the pages each interval of SAMPLED referenced\n"
"                into FILE (SVG), as pgfreport samples --map does\n";

/* --table: as sample_report.h's SREP_* */
static const char *const srep_tables[] = { "intervals", "wss", NULL };

/* @st: the command's struct srep */
static int samp_rec(struct pass *ps, void *st, const struct pgft_rec *r)
{
	int ret = srep_rec(st, r, &ps->trace.rd);

	if (ret == SREP_NOMEM)
		return pass_error(ps, "out of memory");
	if (ret)
		return pass_bad_trace(ps, "%s", ps->trace.rd.error);
	return 0;
}

static int run(struct pass *ps, struct srep_opts *o, int argc, char **argv)
{
	struct srep samp;
	int status;

	status = pass_open(ps, argc, argv);
	if (status)
		return status;
	o->format = ps->format;
	o->table = ps->table;
	srep_init(&samp, o, ps->trace.page_size);
	ps->rec = samp_rec;
	ps->st = &samp;
	status = pass_run(ps);
	if (!ps->pid || ps->replay.pid_seen) {
		int bad = srep_report(&samp, ps->trace.fname, ps->replay.t0, &ps->replay.as, ps->replay.index);

		/* 1: a trace not of the kind asked for; 2: a file */
		if (bad)
			status = pass_status(status, bad == 1 ? PGF_EXIT_TRACE :
						     PGF_EXIT_FAIL);
	}
	srep_free(&samp);
	pass_close(ps);
	return status;
}

int cmd_samples(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "ws-intervals", required_argument, NULL, 'K' },
		{ "plot", required_argument, NULL, 'p' },
		{ "map", required_argument, NULL, 'M' },
		{ NULL, 0, NULL, 0 },
	};
	struct pass ps = { .cmd = "samples", .usage = samples_usage,
			   .takes = TAKES_PID | ONE_PROCESS | TAKES_FORMAT,
			   .tables = srep_tables };
	struct srep_opts o = { .ws_intervals = 4, .samples = true };
	long k;
	int opt;

	while ((opt = pass_getopt(&ps, argc, argv, "", longopts)) != -1) {
		switch (opt) {
		case PASS_QUIT:
			return ps.status;
		case 'K':
			if (pass_number(&ps, "--ws-intervals", optarg, false, &k))
				return PGF_EXIT_USAGE;
			if (k > 1L << 30)
				return pass_bad_arg(&ps, "--ws-intervals", optarg,
						    "a number of intervals up to 2^30");
			o.ws_intervals = k;
			break;
		case 'p':
			o.plot = optarg;
			break;
		case 'M':
			o.map = optarg;
			break;
		}
	}
	return run(&ps, &o, argc - optind, argv + optind);
}

int cmd_compare(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "map", required_argument, NULL, 'M' },
		{ NULL, 0, NULL, 0 },
	};
	struct pass ps = { .cmd = "compare", .usage = compare_usage,
			   .takes = TAKES_PID | ONE_PROCESS | TAKES_FORMAT,
			   .tables = srep_tables };
	struct srep_opts o = { .ws_intervals = 4, .compare = true };
	int opt;

	while ((opt = pass_getopt(&ps, argc, argv, "", longopts)) != -1) {
		if (opt == PASS_QUIT)
			return ps.status;
		if (opt == 'M')
			o.map = optarg;
	}
	if (argc - optind != 2)
		return pass_usage(&ps, "two traces: the sampled one, then the "
				  "interval one (pgfreport compare --help)");
	o.other = argv[optind + 1];
	return run(&ps, &o, 1, argv + optind);
}
