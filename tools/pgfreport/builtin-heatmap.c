// SPDX-License-Identifier: GPL-2.0
/*
 * pgfreport heatmap - the time x address heatmap of the faults, as SVG.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "builtin.h"
#include "kind.h"
#include "pass.h"
#include "../lib/heatmap.h"
#include "../lib/svg.h"

static const char usage[] =
"Usage: pgfreport heatmap -o FILE [OPTION...] [TRACE]\n"
"\n"
"Draw the time x address heatmap of the faults into FILE (SVG): time since\n"
"the trace's start across (--x order: the faults in order), and down a\n"
"band per region that faulted, highest addresses at the top, its height\n"
"its share of the faults, labelled with its name, range and share; a\n"
"cell's colour is its faults on a log scale, whose legend is beside the\n"
"plot. A fault counts for the region that held its address then. With\n"
"--files, each file has a band below the regions': its pages from 0 up\n"
"(the range doubles as the trace reaches further into it), the pages the\n"
"page cache served and the faults in its mappings. With --phys, one band:\n"
"physical memory, the frames the faults mapped from 0 up, as memref's\n"
"spatial plots draw it (pgfreport frames gives it in blocks as text).\n"
"\n"
"Options:\n"
"  -o, --output FILE  the SVG file to write (needed)\n"
"  --x time|order  the x axis (default: time)\n";

/* @st: the command's heatmap */
static int heat_fault_cb(struct pass *ps, void *st, const struct pgft_rec *r,
			 const struct pgft_region *g, long sp,
			 unsigned long long addr)
{
	unsigned long long index;
	const char *path;

	if (!pgft_counted(r->result))
		return 0;
	if (sp < 0 && pass_phys_page(ps, pass_page(ps, addr), &index)) {
		if (heat_frame(st, r->time > ps->replay.t0 ? r->time - ps->replay.t0 : 0,
			       index))
			return pass_oom(ps);
		return 0;
	}
	if (sp < 0 && pass_file_page(ps, pass_page(ps, addr), &path, &index)) {
		if (heat_file(st, HEAT_FILE_KEY(pass_page(ps, addr) >> 32 & PASS_FILE_MAX),
			      path, r->time > ps->replay.t0 ? r->time - ps->replay.t0 : 0,
			      index))
			return pass_oom(ps);
		return 0;
	}
	if (g && heat_fault(st, ((uint64_t)sp << 32) ^ g->id, g->start, g->end,
			    g->name, r->time > ps->replay.t0 ? r->time - ps->replay.t0 : 0,
			    r->addr))
		return pass_oom(ps);
	return 0;
}

int cmd_heatmap(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "x", required_argument, NULL, 'X' },
		{ NULL, 0, NULL, 0 },
	};
	struct pass ps = { .cmd = "heatmap", .usage = usage,
			   .takes = TAKES_PID | TAKES_FILTERS | TAKES_FILES | TAKES_PHYS };
	const char *out = NULL;
	struct heatmap heat;
	bool by_order = false;
	struct notes notes;
	int opt, status;
	FILE *f;

	while ((opt = pass_getopt(&ps, argc, argv, "o:", longopts)) != -1) {
		switch (opt) {
		case PASS_QUIT:
			return ps.status;
		case 'o':
			out = optarg;
			break;
		case 'X':
			if (strcmp(optarg, "time") && strcmp(optarg, "order"))
				return pass_bad_arg(&ps, "--x", optarg,
						    "'time' or 'order'");
			by_order = !strcmp(optarg, "order");
			break;
		}
	}
	if (!out)
		return pass_usage(&ps, "which file? -o FILE names the SVG to write");
	status = pass_open(&ps, argc - optind, argv + optind);
	if (status)
		return status;
	heat_init(&heat, !by_order);
	if (ps.phys)
		heat_phys(&heat, ps.trace.page_size);
	ps.fault = heat_fault_cb;
	ps.st = &heat;
	status = pass_run(&ps);
	if (status != PGF_EXIT_FAIL && (!ps.pid || ps.replay.pid_seen)) {
		f = svg_open(out);
		if (f) {
			kind_notes(&ps.replay.kind, &notes, AN_MAP);
			heat_write(&heat, f, plot_title(ps.phys ?
							"Page faults, time x physical address" :
							ps.files ?
							"Page faults and file pages, time x address" :
							"Page faults, time x address",
							ps.trace.fname),
				   notes.ptr, notes.n);
			if (svg_close(f, out))
				status = pass_status(status, PGF_EXIT_FAIL);
		} else {
			status = pass_status(status, PGF_EXIT_FAIL);
		}
	}
	heat_free(&heat);
	pass_close(&ps);
	return status;
}
