// SPDX-License-Identifier: GPL-2.0
/*
 * pgfreport - render and analyse a pgfault_history trace. A thin front
 * end: each command is a builtin-*.c of its own over pass.c (the trace,
 * the common options, the pass over the records) and tools/lib.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "builtin.h"
#include "exit.h"
#include "report.h"
#include "../lib/pgftrace.h"
#include "../lib/version.h"

struct cmd {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *what;
};

static const struct cmd cmds[] = {
	{ "map", cmd_map, "the fault map of each region: |XX..|" },
	{ "summary", cmd_summary, "per region: pages, faults by kind, first touch" },
	{ "tree", cmd_tree, "the processes of a tree file (tracepgfault -f)" },
	{ "timeline", cmd_timeline, "faults, pages and working set per interval" },
	{ "heatmap", cmd_heatmap, "the time x address heatmap, as SVG" },
	{ "mrc", cmd_mrc, "miss-ratio curves: LRU, FIFO, CLOCK, OPT" },
	{ "reuse", cmd_reuse, "the reuse-distance histogram, whole and per region" },
	{ "tlb", cmd_tlb, "TLB misses, per TLB geometry" },
	{ "hot", cmd_hot, "the most referenced pages" },
	{ "symbols", cmd_symbols, "faults per function, or per symbol touched" },
	{ "wss", cmd_wss, "Denning's working-set curve" },
	{ "prefetch", cmd_prefetch, "sequential runs, and what prefetching saves" },
	{ "samples", cmd_samples, "the intervals of a sampled trace (-s MS)" },
	{ "files", cmd_files, "file I/O (-c): pages, hits, misses per file" },
	{ "frames", cmd_frames, "frames per node and page size, blocks x time" },
	{ "compare", cmd_compare, "a sampled trace against an interval trace" },
	{ "export", cmd_export, "csv, json, refs, lcs, lcs-csv, perfetto" },
	{ "html", cmd_html, "an interactive page: tree, regions, heatmap, charts" },
	{ "convert", cmd_convert, "the trace in binary form, or back to text" },
};

#define NCMDS (sizeof(cmds) / sizeof(cmds[0]))

/* The commands that can share a pass: pgfreport mrc+reuse+hot TRACE. */
static const struct report *const shared[] = {
	&map_report, &summary_report, &timeline_report, &mrc_report,
	&reuse_report, &tlb_report, &hot_report, &symbols_report, &wss_report,
	&prefetch_report, &files_report, &frames_report,
};

#define NSHARED (sizeof(shared) / sizeof(shared[0]))

/* "mrc+hot+wss": those reports on one pass. */
static int combined(int argc, char **argv)
{
	const struct report *r[NSHARED];
	char *names, *name, *save = NULL;
	size_t n = 0;

	names = strdup(argv[0]);
	if (!names) {
		fprintf(stderr, "pgfreport: %s: out of memory\n", argv[0]);
		return PGF_EXIT_FAIL;
	}
	for (name = strtok_r(names, "+", &save); name;
	     name = strtok_r(NULL, "+", &save)) {
		size_t i;

		for (i = 0; i < NSHARED && strcmp(name, shared[i]->name); i++)
			;
		for (size_t k = 0; i < NSHARED && k < n; k++)
			if (r[k] == shared[i]) {
				fprintf(stderr, "pgfreport: %s: %s twice\n", argv[0], name);
				free(names);
				return PGF_EXIT_USAGE;
			}
		if (i == NSHARED) {
			fprintf(stderr, "pgfreport: %s: '%s' cannot share a pass; these "
				"can:", argv[0], name);
			for (i = 0; i < NSHARED; i++)
				fprintf(stderr, " %s", shared[i]->name);
			fputc('\n', stderr);
			free(names);
			return PGF_EXIT_USAGE;
		}
		r[n++] = shared[i];
	}
	free(names);
	if (n < 2) {
		fprintf(stderr, "pgfreport: %s: name two commands or more, such as "
			"mrc+reuse\n", argv[0]);
		return PGF_EXIT_USAGE;
	}
	return reports_main(r, n, argc, argv);
}

static void usage(FILE *out)
{
	fprintf(out,
"Usage: pgfreport COMMAND [OPTION...] [TRACE]\n"
"       pgfreport --help | --version\n"
"\n"
"Read a pgfault_history trace (from tracepgfault, or\n"
"/proc/<pid>/pgfault_history; TRACE '-' or absent: standard input) and\n"
"report on it. The commands:\n"
"\n");
	for (size_t i = 0; i < NCMDS; i++)
		fprintf(out, "  %-9s %s\n", cmds[i].name, cmds[i].what);
	fprintf(out,
"\n"
"pgfreport COMMAND --help tells what a command prints and its options.\n"
"Several of map, summary, timeline, mrc, reuse, tlb, hot, symbols, wss,\n"
"prefetch, files and frames share one pass over the trace when joined by\n"
"'+', as in pgfreport mrc+reuse+hot TRACE: each report in turn, under a\n"
"line \"# ==== COMMAND\"; an option goes to each of them that has it.\n"
"In a tree file (tracepgfault -f), --pid PID chooses one process; a\n"
"command that reports on one process needs it when the tree has several\n"
"(it names them) and takes the only one otherwise. The commands that\n"
"read faults take the filters --tid, --time, --addr, --region.\n"
"\n"
"Options:\n"
"  -h, --help    this help\n"
"  --version     the tools' version and the newest trace format they read\n"
"\n"
"Exit status: 0; 1 for a trace that is bad (the report of everything\n"
"before the bad line is still printed) or incomplete: no exit or stop\n"
"record at its end, or an exit whose totals are not what it holds (a\n"
"warning, and the reports of what it holds); 2 for a command line that\n"
"is wrong (a command, option or argument, a --pid or --space the trace\n"
"does not have); 125 when pgfreport fails (out of memory, a file it\n"
"cannot open or write).\n"
"\n"
"Examples:\n"
"  tracepgfault -o ps.trace ps && pgfreport map ps.trace\n"
"  pgfreport map --width 64 big.trace\n"
"  tracepgfault -w 64 -o w.trace ./myprog && pgfreport mrc w.trace\n"
"  pgfreport hot -n 50 --region libc.so.6 w.trace\n"
"  pgfreport map --time 0.5,1 --addr 7f0000000000+1g ps.trace\n"
"  tracepgfault -f -o make.trace make -j2 && pgfreport tree make.trace\n"
"  pgfreport summary --pid 1234 make.trace\n"
"  pgfreport mrc+reuse+wss --plot all.svg big.trace   (one pass; --plot\n"
"      goes to each: name them apart in separate runs if you want all)\n");
}

/* A report that could not be written all is a failure (/dev/full, EPIPE). */
static int written(int status)
{
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "pgfreport: standard output: %s\n", strerror(errno));
		return PGF_EXIT_FAIL;
	}
	return status;
}

int main(int argc, char **argv)
{
	const char *c = argc > 1 ? argv[1] : NULL;

	if (!c) {
		fprintf(stderr, "Usage: pgfreport COMMAND [OPTION...] [TRACE]\n"
			"The commands:");
		for (size_t i = 0; i < NCMDS; i++)
			fprintf(stderr, " %s", cmds[i].name);
		fprintf(stderr, "\npgfreport --help says what each does.\n");
		return PGF_EXIT_USAGE;
	}
	if (!strcmp(c, "-h") || !strcmp(c, "--help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(c, "--version")) {
		printf("pgfreport %s (pgfault_history tools; trace format up to %d)\n",
		       PGF_TOOLS_VERSION, PGFT_VERSION);
		return 0;
	}
	for (size_t i = 0; i < NCMDS; i++)
		if (!strcmp(c, cmds[i].name))
			return written(cmds[i].run(argc - 1, argv + 1));
	if (strchr(c, '+'))
		return written(combined(argc - 1, argv + 1));
	if (*c == '-')
		fprintf(stderr, "pgfreport: '%s': a command comes first, its options "
			"after it (pgfreport --help lists the commands)\n", c);
	else
		fprintf(stderr, "pgfreport: '%s' is not a command (pgfreport --help "
			"lists them; the fault map of a trace: pgfreport map %s)\n",
			c, c);
	return PGF_EXIT_USAGE;
}
