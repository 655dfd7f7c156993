// SPDX-License-Identifier: GPL-2.0
/*
 * pgfreport frames - the physical side of a trace: the frames its faults
 * mapped, per NUMA node and per page size, and physical memory in blocks
 * over time (tools/lib/frames.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "builtin.h"
#include "pass.h"
#include "report.h"
#include "../lib/frames.h"

static const char usage[] =
"Usage: pgfreport frames [OPTION...] [TRACE]\n"
"\n"
"The frames the faults mapped, in a trace read with CAP_SYS_ADMIN (as\n"
"root: the fault records then carry PFN NODE ORDER LEVEL, format version\n"
"8): how many faults carry one; the faults and distinct frames per NUMA\n"
"node and per page size (the folio's size and the level that maps it:\n"
"pte, pmd, pud); and physical memory as blocks over time, as memref's\n"
"spatial plots draw it: a row per block the faults referenced (its\n"
"physical addresses and the node of its first frame), a column per\n"
"interval ('#' referenced in it, '.' not). The interval is the trace's\n"
"length over the columns, from its first fault with a frame. A frame\n"
"counts once, in the node and size it was first seen with. Faults that\n"
"failed are left out; so are, with their count said, those without a\n"
"frame (read without the capability, or a fault that installed nothing).\n"
"\n"
"Options:\n"
"  --block MIB   the blocks' size in MiB, a power of two (default 64)\n"
"  --width N     columns of the blocks' view (default 64)\n"
"\n"
"Tables (--format csv|json, --table NAME): nodes (node, faults, frames,\n"
"mib: the frames' size), sizes (order, page_size in bytes, level, faults,\n"
"frames), blocks (start, end: the block's physical addresses, node,\n"
"column, start_ns, faults: a row per block and column, 0 included).\n"
"\n"
"Examples:\n"
"  sudo tracepgfault -o app.trace ./app\n"
"  pgfreport frames app.trace\n"
"  pgfreport frames --block 2 --table blocks --format csv app.trace\n";

static const char *const tables[] = { "nodes", "sizes", "blocks", NULL };

struct frames_state {
	struct frames f;
	long block_mib, width;
};

static void frames_init_st(void *st)
{
	struct frames_state *F = st;

	F->block_mib = 64;
	F->width = 64;
}

static int frames_option(struct pass *ps, void *st, int opt, const char *arg)
{
	struct frames_state *F = st;

	if (opt == 'B') {
		if (pass_number(ps, "--block", arg, false, &F->block_mib))
			return 1;
		if (F->block_mib & (F->block_mib - 1) || F->block_mib > 1L << 20)
			return pass_usage(ps, "--block %s: a power of two of MiB, "
					  "1 to 1048576", arg) != 0;
		return 0;
	}
	if (opt == 'W') {
		if (pass_number(ps, "--width", arg, false, &F->width))
			return 1;
		if (F->width > 4096)
			return pass_usage(ps, "--width %s: 4096 columns at most", arg) != 0;
	}
	return 0;
}

static int frames_begin(struct pass *ps, void *st)
{
	struct frames_state *F = st;

	if (frames_init(&F->f, ps->trace.page_size, (uint64_t)F->block_mib << 20,
			(unsigned int)F->width))
		return pass_bad_trace(ps, "%s: page size %lu: above the blocks' "
				      "%ld MiB, or not a power of two", ps->trace.fname,
				      ps->trace.page_size, F->block_mib);
	return 0;
}

static int frames_fault_cb(struct pass *ps, void *st, const struct pgft_rec *r,
			   const struct pgft_region *g, long sp,
			   unsigned long long addr)
{
	struct frames_state *F = st;

	(void)g;
	(void)sp;
	(void)addr;
	return frames_fault(&F->f, r) ? pass_oom(ps) : 0;
}

/* "4 KiB", "2 MiB": @bytes as a size. */
static const char *size_name(uint64_t bytes, char *buf, size_t n)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int u = 0;

	while (bytes >= 1024 && !(bytes % 1024) && u < 4) {
		bytes /= 1024;
		u++;
	}
	snprintf(buf, n, "%llu %s", (unsigned long long)bytes, unit[u]);
	return buf;
}

static double mib(const struct frames *f, uint64_t frames)
{
	return (double)frames * f->page_size / (1 << 20);
}

static void text(const struct frames_state *F)
{
	const struct frames *f = &F->f;
	unsigned int cols = frames_cols(f);
	char a[32];

	printf("# %llu faults, %llu with the frame they mapped (%.1f%%), %llu "
	       "without\n", (unsigned long long)f->faults,
	       (unsigned long long)f->with_frame,
	       f->faults ? 100.0 * f->with_frame / f->faults : 0.0,
	       (unsigned long long)(f->faults - f->with_frame));
	if (!f->with_frame) {
		printf("# no fault carries a frame: the trace was read without "
		       "CAP_SYS_ADMIN (trace as root), or by a kernel without them "
		       "(format version 8)\n");
		return;
	}
	printf("# %llu distinct frames, %.1f MiB\n",
	       (unsigned long long)frames_distinct(f), mib(f, frames_distinct(f)));
	printf("\n%-6s %12s %12s %10s\n", "node", "faults", "frames", "MiB");
	for (size_t i = 0; i < f->nnode; i++)
		if (f->node[i].faults) {
			if (i)
				printf("%-6zu", i - 1);
			else
				printf("%-6s", "-");
			printf(" %12llu %12llu %10.1f\n",
			       (unsigned long long)f->node[i].faults,
			       (unsigned long long)f->node[i].frames,
			       mib(f, f->node[i].frames));
		}
	printf("\n%-10s %-6s %12s %12s\n", "page size", "level", "faults", "frames");
	for (int o = 0; o < FRAMES_ORDERS; o++)
		for (int l = 0; l < PGFT_NLEVEL; l++)
			if (f->size[o][l].faults)
				printf("%-10s %-6s %12llu %12llu\n",
				       size_name((uint64_t)f->page_size << o, a, sizeof(a)),
				       pgft_level_names[l],
				       (unsigned long long)f->size[o][l].faults,
				       (unsigned long long)f->size[o][l].frames);
	printf("\n# physical memory in blocks of %s, %zu referenced, over %u "
	       "columns of %.3f ms from the first fault: '#' referenced, '.' not\n",
	       size_name(f->block_bytes, a, sizeof(a)), f->nrows, cols,
	       f->interval / 1e6);
	for (size_t r = 0; r < f->nrows; r++) {
		const struct frames_row *w = &f->rows[r];

		printf("%010llx-%010llx ", (unsigned long long)(w->block * f->block_bytes),
		       (unsigned long long)((w->block + 1) * f->block_bytes - 1));
		if (w->node == PGFT_NO_NODE)
			printf("%-4s |", "-");
		else
			printf("%-4d |", w->node);
		for (unsigned int c = 0; c < cols; c++)
			putchar(w->cells[c] ? '#' : '.');
		printf("|\n");
	}
}

static const char *const node_cols[] = { "node", "faults", "frames", "mib" };
static const char *const size_cols[] = { "order", "page_size", "level", "faults",
					  "frames" };
static const char *const block_cols[] = { "start", "end", "node", "column",
					   "start_ns", "faults" };

static void node_cell(struct table *t, int node)
{
	if (node == PGFT_NO_NODE)
		table_none(t);
	else
		table_u64(t, node);
}

static void tables_out(const struct pass *ps, const struct frames_state *F)
{
	const struct frames *f = &F->f;
	struct table t;

	if (ps->table == 0) {
		table_begin(&t, stdout, ps->format, node_cols, 4);
		for (size_t i = 0; i < f->nnode; i++) {
			if (!f->node[i].faults)
				continue;
			node_cell(&t, (int)i - 1);
			table_u64(&t, f->node[i].faults);
			table_u64(&t, f->node[i].frames);
			table_num(&t, mib(f, f->node[i].frames));
		}
	} else if (ps->table == 1) {
		table_begin(&t, stdout, ps->format, size_cols, 5);
		for (int o = 0; o < FRAMES_ORDERS; o++)
			for (int l = 0; l < PGFT_NLEVEL; l++) {
				if (!f->size[o][l].faults)
					continue;
				table_u64(&t, o);
				table_u64(&t, (uint64_t)f->page_size << o);
				table_str(&t, pgft_level_names[l]);
				table_u64(&t, f->size[o][l].faults);
				table_u64(&t, f->size[o][l].frames);
			}
	} else {
		unsigned int cols = frames_cols(f);

		table_begin(&t, stdout, ps->format, block_cols, 6);
		for (size_t r = 0; r < f->nrows; r++)
			for (unsigned int c = 0; c < cols; c++) {
				table_u64(&t, f->rows[r].block * f->block_bytes);
				table_u64(&t, (f->rows[r].block + 1) * f->block_bytes - 1);
				node_cell(&t, f->rows[r].node);
				table_u64(&t, c);
				table_u64(&t, frames_col_start(f, c));
				table_u64(&t, f->rows[r].cells[c]);
			}
	}
	table_end(&t);
}

static int frames_end(struct pass *ps, void *st, int status)
{
	struct frames_state *F = st;

	if (!ps->pid || ps->replay.pid_seen) {
		frames_sort_rows(&F->f);
		if (ps->format == TABLE_TEXT)
			text(F);
		else
			tables_out(ps, F);
	}
	frames_free(&F->f);
	return status;
}

static const struct option frames_opts[] = {
	{ "block", required_argument, NULL, 'B' },
	{ "width", required_argument, NULL, 'W' },
	{ NULL, 0, NULL, 0 },
};

const struct report frames_report = {
	.name = "frames", .usage = usage,
	.takes = TAKES_PID | TAKES_FILTERS | TAKES_FORMAT,
	.tables = tables, .size = sizeof(struct frames_state),
	.init = frames_init_st, .longopts = frames_opts, .option = frames_option,
	.begin = frames_begin, .fault = frames_fault_cb, .end = frames_end,
};

int cmd_frames(int argc, char **argv)
{
	return report_main(&frames_report, argc, argv);
}
