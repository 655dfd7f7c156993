// SPDX-License-Identifier: GPL-2.0
/*
 * pgfreport map - the fault map of each region of an address space, the
 * seed's "Region: a - b (N pages): |XX..|" lines.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "builtin.h"
#include "pass.h"
#include "report.h"
#include "space.h"

static const char usage[] =
"Usage: pgfreport map [OPTION...] [TRACE]\n"
"\n"
"The fault map of each region of the address space:\n"
"\n"
"  Region: 08048000 - 0805a000 (  18 pages): |XXXXXXXXXXXXXXXX..| /bin/ps\n"
"\n"
"one line per region, 'X' for a page that faulted, '.' for one that did\n"
"not, then the region's name. Regions removed during the run follow,\n"
"marked 'removed'. A page counts in the region of this layout that holds\n"
"its address, whatever region held it when it faulted (as in pgfreport\n"
"summary); a page no region holds at the end, in the last region that\n"
"held it when it faulted. With --addr or --region, the regions they\n"
"choose. With --format, the columns are start, end, pages, touched (the\n"
"pages that faulted), marks (as the text's), region and removed.\n"
"\n"
"Options:\n"
"  --space N     the address space to show: 0 is the one tracing started\n"
"                in, 1 the one after the first exec, ...; default: the last\n"
"  --width N     fold a region of more than N pages into N characters, each\n"
"                standing for several pages, shaded by how many of them\n"
"                faulted: '.' none, ':' '-' '=' '+' '*' '#' more, 'X' all\n"
"  --counts      shade the map by how many times each page faulted (its\n"
"                references in a re-reference trace): '.' never, '1' to\n"
"                '9' that many times, '+' ten or more; a folded column\n"
"                shows the faults per page of its pages, rounded up\n";

/* The report's state (report.h) */
struct map_state {
	struct spaces spaces;
	long width;		/* --width, or 0 */
	bool counts;		/* --counts */
};

static void map_init(void *st)
{
	*(struct map_state *)st = (struct map_state){ .spaces = SPACES_INIT(-1) };
}

/*
 * The marks of region @r into @out (one per column, NUL-terminated: room
 * for its pages, or --width, + 1); returns the pages that faulted.
 */
static unsigned long long map_marks(const struct map_state *m,
				    const struct rstat *r,
				    unsigned long page_size, char *out)
{
	long width = m->width;
	unsigned long long pages = (r->end - r->start) / page_size;
	unsigned long long first = r->start / page_size, touched = 0;
	long cols = width && (long long)pages > width ? width : (long)pages;
	static const char shade[] = ".:-=+*#X";

	for (long c = 0; c < cols; c++) {
		unsigned long long a = first + pages * c / cols;
		unsigned long long b = first + pages * (c + 1) / cols;
		unsigned long long hit = 0, refs = 0;

		for (unsigned long long p = a; p < b; p++) {
			uint32_t n = space_count_in(&m->spaces, r, p);

			hit += n != 0;
			refs += n;
		}
		touched += hit;
		if (m->counts) {
			/* Faults per page of the column, rounded up. */
			refs = (refs + (b - a) - 1) / (b - a);
			out[c] = !refs ? '.' : refs > 9 ? '+' : '0' + (int)refs;
		} else if (b - a == 1 || !hit || hit == b - a) {
			out[c] = !hit ? '.' : 'X';
		} else {
			out[c] = shade[1 + (hit * 6 - 1) / (b - a)];
		}
	}
	out[cols] = 0;
	return touched;
}

static int map_line(const struct pass *ps, const struct map_state *m,
		    struct table *t, const struct rstat *r)
{
	unsigned long long pages = (r->end - r->start) / ps->trace.page_size;
	size_t cols = m->width && (long long)pages > m->width ? (size_t)m->width : pages;
	char *marks = malloc(cols + 1);
	unsigned long long touched;

	if (!marks)
		return pass_error(ps, "out of memory");
	touched = map_marks(m, r, ps->trace.page_size, marks);
	if (ps->format == TABLE_TEXT) {
		printf("Region: %08llx - %08llx (%4llu pages): |%s|%s%s%s\n",
		       r->start, r->end, pages, marks,
		       r->name && *r->name ? " " : "", r->name ? r->name : "",
		       r->alive ? "" : " (removed)");
	} else {
		table_u64(t, r->start);
		table_u64(t, r->end);
		table_u64(t, pages);
		table_u64(t, touched);
		table_str(t, marks);
		table_str(t, r->name && *r->name ? r->name : NULL);
		table_bool(t, !r->alive);
	}
	free(marks);
	return 0;
}

static const struct option map_opts[] = {
	{ "space", required_argument, NULL, 's' },
	{ "width", required_argument, NULL, 'w' },
	{ "counts", no_argument, NULL, 'n' },
	{ NULL, 0, NULL, 0 },
};

static int map_option(struct pass *ps, void *st, int opt, const char *arg)
{
	struct map_state *m = st;

	if (opt == 's')
		return pass_number(ps, "--space", arg, true, &m->spaces.want);
	if (opt == 'w')
		return pass_number(ps, "--width", arg, false, &m->width);
	if (opt == 'n')
		m->counts = true;
	return 0;
}

static int map_rec(struct pass *ps, void *st, const struct pgft_rec *r)
{
	struct map_state *m = st;

	(void)ps;
	return space_rec(&m->spaces, r) ? PGF_EXIT_FAIL : 0;
}

static int map_fault(struct pass *ps, void *st, const struct pgft_rec *r,
		     const struct pgft_region *g, long sp, unsigned long long addr)
{
	struct map_state *m = st;

	(void)ps;
	(void)sp;
	(void)addr;
	return space_fault(&m->spaces, r, g) ? PGF_EXIT_FAIL : 0;
}

static int map_begin(struct pass *ps, void *st)
{
	struct map_state *m = st;

	return spaces_begin(&m->spaces, ps);
}

static int map_end(struct pass *ps, void *st, int status)
{
	struct map_state *m = st;
	struct space *sp = spaces_result(ps, &m->spaces, &status);
	int err = 0;

	if (sp) {
		static const char *const cols[] = {
			"start", "end", "pages", "touched", "marks", "region",
			"removed",
		};
		struct table t;

		if (ps->format != TABLE_TEXT)
			table_begin(&t, stdout, ps->format, cols, 7);
		/* a bad trace's end (status): what was read is still shown */
		for (size_t i = 0; i < sp->nr && !err; i++)
			if (sp->r[i].end &&
			    pgft_filter_region_in(&ps->filt, sp->r[i].id,
						  sp->r[i].start, sp->r[i].end,
						  sp->r[i].name))
				err = map_line(ps, m, &t, &sp->r[i]);
		status = pass_status(status, err);
		if (ps->format != TABLE_TEXT)
			table_end(&t);
		else if (ps->replay.lost)
			printf("# %llu records were lost: the trace is incomplete\n",
			       ps->replay.lost);
	}
	spaces_free(&m->spaces);
	return status;
}

const struct report map_report = {
	.name = "map", .usage = usage,
	.takes = TAKES_PID | TAKES_FILTERS | ONE_PROCESS | TAKES_FORMAT,
	.size = sizeof(struct map_state), .init = map_init,
	.longopts = map_opts, .option = map_option, .rec = map_rec,
	.begin = map_begin, .fault = map_fault, .end = map_end,
};

int cmd_map(int argc, char **argv)
{
	return report_main(&map_report, argc, argv);
}
