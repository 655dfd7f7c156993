// SPDX-License-Identifier: GPL-2.0
/*
 * pgfreport summary - per region of an address space: its pages, the
 * pages that faulted, its faults by kind and its first touch; totals.
 */
#include <stdio.h>
#include "builtin.h"
#include "pass.h"
#include "report.h"
#include "space.h"

static const char usage[] =
"Usage: pgfreport summary [OPTION...] [TRACE]\n"
"\n"
"Per region of the address space: start, end, permissions, pages, pages\n"
"touched, faults, major faults, re-references (faults on re-armed pages:\n"
"\"reref\"), first touch (ms after the start, '-' if none), name; then\n"
"the totals. A fault counts for the region of the layout shown that\n"
"holds its address, whatever region held it when it happened (a split, a\n"
"partial munmap, a mapping over another), so that the touched pages of a\n"
"region are the marks of pgfreport map; a fault at an address no region\n"
"holds at the end counts for the last region that held it then, in its\n"
"removed row, or, if that region shrank or moved away from it, in none\n"
"(the totals say how many). With --addr or --region, the regions they\n"
"choose.\n"
"\n"
"Options:\n"
"  --space N     the address space to show: 0 is the one tracing started\n"
"                in, 1 the one after the first exec, ...; default: the last\n";

/* --format csv|json: the regions' rows, the addresses as numbers */
static void summary_table(const struct pass *ps, const struct space *sp)
{
	static const char *const cols[] = {
		"start", "end", "perms", "pages", "touched", "faults", "major",
		"rerefs", "first_ms", "region", "removed",
	};
	struct table t;

	table_begin(&t, stdout, ps->format, cols, 11);
	for (size_t i = 0; i < sp->nr; i++) {
		const struct rstat *r = &sp->r[i];

		if (!r->end || !pgft_filter_region_in(&ps->filt, r->id, r->start,
						      r->end, r->name))
			continue;
		table_u64(&t, r->start);
		table_u64(&t, r->end);
		table_str(&t, r->perms);
		table_u64(&t, (r->end - r->start) / ps->trace.page_size);
		table_u64(&t, r->pages_touched);
		table_u64(&t, r->faults);
		table_u64(&t, r->major);
		table_u64(&t, r->reref);
		if (r->touched)
			table_num(&t, (r->first_ns - ps->replay.t0) / 1e6);
		else
			table_none(&t);
		table_str(&t, r->name && *r->name ? r->name : "[anon]");
		table_bool(&t, !r->alive);
	}
	table_end(&t);
}

static void summary(const struct pass *ps, const struct space *sp, long index)
{
	unsigned long long mapped = 0, alive = 0, shown = 0;

	printf("%-8s %-8s %5s %9s %9s %9s %7s %9s %12s  %s\n", "# start",
	       "end", "perms", "pages", "touched", "faults", "major",
	       "rerefs", "first_ms", "region");
	for (size_t i = 0; i < sp->nr; i++) {
		const struct rstat *r = &sp->r[i];
		unsigned long long pages = (r->end - r->start) / ps->trace.page_size;

		if (!pgft_filter_region_in(&ps->filt, r->id, r->start, r->end,
					   r->name))
			continue;
		shown++;
		if (!r->end)
			continue;
		if (r->alive) {
			mapped += pages;
			alive++;
		}
		printf("%08llx %08llx %5s %9llu %9llu %9llu %7llu %9llu ", r->start,
		       r->end, r->perms, pages, r->pages_touched, r->faults,
		       r->major, r->reref);
		if (r->touched)
			printf("%12.3f", (r->first_ns - ps->replay.t0) / 1e6);
		else
			printf("%12s", "-");
		printf("  %s%s\n", r->name && *r->name ? r->name : "[anon]",
		       r->alive ? "" : " (removed)");
	}
	printf("# address space %ld: %llu regions at the end (%llu removed), "
	       "%llu pages mapped, %llu touched, %llu faults (%llu major, ",
	       index, alive, shown - alive, mapped,
	       sp->pages, sp->faults, sp->major);
	if (sp->reref)
		printf("%llu re-references, ", sp->reref);
	printf("%llu failed)\n", sp->failed);
	if (sp->pages_out)
		printf("# %llu pages touched (%llu faults) lie in no region: the "
		       "region that held them shrank or moved away\n",
		       sp->pages_out, sp->faults_out);
	if (pgft_filter_any(&ps->filt))
		printf("# the faults and regions the filters chose\n");
}

static const struct option sum_opts[] = {
	{ "space", required_argument, NULL, 's' },
	{ NULL, 0, NULL, 0 },
};

/* The report's state (report.h): the address spaces */
static void sum_init(void *st)
{
	*(struct spaces *)st = (struct spaces)SPACES_INIT(-1);
}

static int sum_option(struct pass *ps, void *st, int opt, const char *arg)
{
	struct spaces *spaces = st;

	if (opt == 's')
		return pass_number(ps, "--space", arg, true, &spaces->want);
	return 0;
}

static int sum_rec(struct pass *ps, void *st, const struct pgft_rec *r)
{
	(void)ps;
	return space_rec(st, r) ? PGF_EXIT_FAIL : 0;
}

static int sum_fault(struct pass *ps, void *st, const struct pgft_rec *r,
		     const struct pgft_region *g, long sp, unsigned long long addr)
{
	(void)ps;
	(void)sp;
	(void)addr;
	return space_fault(st, r, g) ? PGF_EXIT_FAIL : 0;
}

static int sum_begin(struct pass *ps, void *st)
{
	return spaces_begin(st, ps);
}

static int sum_end(struct pass *ps, void *st, int status)
{
	struct spaces *spaces = st;
	struct space *sp = spaces_result(ps, spaces, &status);

	if (sp && ps->format != TABLE_TEXT) {
		summary_table(ps, sp);
	} else if (sp) {
		summary(ps, sp, spaces->shown);
		if (ps->replay.lost)
			printf("# %llu records were lost: the trace is incomplete\n",
			       ps->replay.lost);
	}
	spaces_free(spaces);
	return status;
}

const struct report summary_report = {
	.name = "summary", .usage = usage,
	.takes = TAKES_PID | TAKES_FILTERS | ONE_PROCESS | TAKES_FORMAT,
	.size = sizeof(struct spaces), .init = sum_init,
	.longopts = sum_opts, .option = sum_option, .rec = sum_rec,
	.begin = sum_begin, .fault = sum_fault, .end = sum_end,
};

int cmd_summary(int argc, char **argv)
{
	return report_main(&summary_report, argc, argv);
}
