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
#include "../lib/changes.h"
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
"Then what the kernel did to the frames without the process faulting\n"
"(format version 9, a trace read by anyone): pages moved (migration by\n"
"NUMA balancing, move_pages, mbind, compaction, demotion; KSM merges),\n"
"evicted (reclaim, MADV_PAGEOUT), split and collapsed, mapped by a fault\n"
"(another task's: ptrace, process_vm_writev, KSM's unmerging; or the\n"
"process's own, beside the faulting page), by cause and page size; per\n"
"node, the pages moved in and out, evicted and collapsed into it; and a\n"
"timeline per region over --width columns: 'M' pages moved in that\n"
"interval, 'E' evicted, 'S' split, 'C' collapsed, 'R' mapped by a fault,\n"
"'*' more than one of them, '.' none.\n"
"\n"
"Options:\n"
"  --block MIB   the blocks' size in MiB, a power of two (default 64)\n"
"  --width N     columns of the blocks' view (default 64)\n"
"\n"
"Tables (--format csv|json, --table NAME): nodes (node, faults, frames,\n"
"mib: the frames' size, moved_in, moved_out, evicted, collapsed: pages),\n"
"sizes (order, page_size in bytes, level, faults, frames), blocks (start,\n"
"end: the block's physical addresses, node, column, start_ns, faults: a\n"
"row per block and column, 0 included), changes (change, cause, order,\n"
"page_size, level: empty without frames, records, pages), timeline (pid,\n"
"region: its id, start, end, name, column, start_ns, moved, evicted,\n"
"split, collapsed, mapped: a row per region and column, 0 included).\n"
"\n"
"Examples:\n"
"  sudo tracepgfault -o app.trace ./app\n"
"  pgfreport frames app.trace\n"
"  pgfreport frames --block 2 --table blocks --format csv app.trace\n";

static const char *const tables[] = { "nodes", "sizes", "blocks", "changes",
				      "timeline", NULL };

struct frames_state {
	struct frames f;
	struct changes ch;
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
	if (changes_init(&F->ch, (unsigned int)F->width))
		return pass_oom(ps);
	return 0;
}

/* A change record: in the region that holds its address now. */
static int frames_rec_cb(struct pass *ps, void *st, const struct pgft_rec *r)
{
	struct frames_state *F = st;
	int pid = ps->trace.rd.tree && r->pid ? r->pid : ps->trace.rd.pid;

	if (r->type != PGFT_PAGES)
		return 0;
	return changes_rec(&F->ch, r, pass_region(ps, r->addr), pid) ?
	       pass_oom(ps) : 0;
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

/* A node's number, or "-" */
static void node_name(int node, char *buf, size_t n)
{
	if (node == PGFT_NO_NODE)
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%d", node);
}

/* The timeline's letter for a cell: its one kind, '*' several, '.' none. */
static char cell_char(const struct changes *c, size_t row, unsigned int col)
{
	static const char letter[PGFT_NCHANGE] = {
		[PGFT_MOVE] = 'M', [PGFT_EVICT] = 'E', [PGFT_SPLIT] = 'S',
		[PGFT_COLLAPSE] = 'C', [PGFT_MAPPED] = 'R',
	};
	char ch = '.';

	for (int k = 0; k < PGFT_NCHANGE; k++)
		if (changes_cell(c, row, col, k))
			ch = ch == '.' ? letter[k] : '*';
	return ch;
}

static const char *size_name(uint64_t bytes, char *buf, size_t n);

/* What the kernel changed: the text part, after the frames' */
static void changes_text(const struct frames_state *F, unsigned long page_size)
{
	const struct changes *c = &F->ch;
	unsigned int cols = changes_cols(c);
	char a[32], b[32];

	printf("\n# %llu changes the kernel made to the frames of %llu pages: "
	       "%llu moved, %llu evicted, %llu split, %llu collapsed, %llu mapped "
	       "by a fault\n",
	       (unsigned long long)c->records, (unsigned long long)c->pages,
	       (unsigned long long)c->by_kind[PGFT_MOVE],
	       (unsigned long long)c->by_kind[PGFT_EVICT],
	       (unsigned long long)c->by_kind[PGFT_SPLIT],
	       (unsigned long long)c->by_kind[PGFT_COLLAPSE],
	       (unsigned long long)c->by_kind[PGFT_MAPPED]);
	if (!c->records)
		return;
	printf("\n%-9s %-15s %-10s %-6s %10s %10s\n", "change", "cause",
	       "page size", "level", "records", "pages");
	for (size_t i = 0; i < c->ncauses; i++) {
		const struct changes_cause *k = &c->causes[i];

		printf("%-9s %-15s %-10s %-6s %10llu %10llu\n",
		       pgft_change_names[k->change], k->cause,
		       k->sized ? size_name((uint64_t)page_size << k->order, a,
					    sizeof(a)) : "-",
		       k->sized ? pgft_level_names[k->level] : "-",
		       (unsigned long long)k->records, (unsigned long long)k->pages);
	}
	printf("\n%-6s %12s %12s %12s %12s\n", "node", "moved in", "moved out",
	       "evicted", "collapsed");
	for (size_t i = 0; i < c->nnode; i++) {
		const struct changes_node *n = &c->node[i];

		if (!n->moved_in && !n->moved_out && !n->evicted && !n->collapsed)
			continue;
		node_name((int)i - 1, b, sizeof(b));
		printf("%-6s %12llu %12llu %12llu %12llu\n", b,
		       (unsigned long long)n->moved_in,
		       (unsigned long long)n->moved_out,
		       (unsigned long long)n->evicted,
		       (unsigned long long)n->collapsed);
	}
	printf("\n# per region, over %u columns of %.3f ms from the first change: "
	       "'M' moved, 'E' evicted, 'S' split, 'C' collapsed, 'R' mapped by "
	       "a fault, '*' several, '.' none\n",
	       cols, c->interval / 1e6);
	for (size_t r = 0; r < c->nrows; r++) {
		const struct changes_row *w = &c->rows[r];

		printf("%12llx-%-12llx |", w->start, w->end);
		for (unsigned int col = 0; col < cols; col++)
			putchar(cell_char(c, r, col));
		printf("| %s\n", *w->name ? w->name : "[anon]");
	}
	if (c->outside)
		printf("# %llu pages changed outside any region the trace knew\n",
		       (unsigned long long)c->outside);
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
		changes_text(F, f->page_size);
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
	changes_text(F, f->page_size);
}

static const char *const node_cols[] = { "node", "faults", "frames", "mib",
					  "moved_in", "moved_out", "evicted",
					  "collapsed" };
static const char *const change_cols[] = { "change", "cause", "order",
					    "page_size", "level", "records",
					    "pages" };
static const char *const timeline_cols[] = { "pid", "region", "start", "end",
					      "name", "column", "start_ns",
					      "moved", "evicted", "split",
					      "collapsed", "mapped" };
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

	const struct changes *c = &F->ch;

	if (ps->table == 0) {
		size_t nn = f->nnode > c->nnode ? f->nnode : c->nnode;

		table_begin(&t, stdout, ps->format, node_cols, 8);
		for (size_t i = 0; i < nn; i++) {
			struct frames_group g = { 0 };
			struct changes_node n = { 0 };

			if (i < f->nnode)
				g = f->node[i];
			if (i < c->nnode)
				n = c->node[i];
			if (!g.faults && !n.moved_in && !n.moved_out &&
			    !n.evicted && !n.collapsed)
				continue;
			node_cell(&t, (int)i - 1);
			table_u64(&t, g.faults);
			table_u64(&t, g.frames);
			table_num(&t, mib(f, g.frames));
			table_u64(&t, n.moved_in);
			table_u64(&t, n.moved_out);
			table_u64(&t, n.evicted);
			table_u64(&t, n.collapsed);
		}
	} else if (ps->table == 3) {
		table_begin(&t, stdout, ps->format, change_cols, 7);
		for (size_t i = 0; i < c->ncauses; i++) {
			const struct changes_cause *k = &c->causes[i];

			table_str(&t, pgft_change_names[k->change]);
			table_str(&t, k->cause);
			if (k->sized) {
				table_u64(&t, k->order);
				table_u64(&t, (uint64_t)f->page_size << k->order);
				table_str(&t, pgft_level_names[k->level]);
			} else {
				table_none(&t);
				table_none(&t);
				table_none(&t);
			}
			table_u64(&t, k->records);
			table_u64(&t, k->pages);
		}
	} else if (ps->table == 4) {
		unsigned int cols = changes_cols(c);

		table_begin(&t, stdout, ps->format, timeline_cols, 12);
		for (size_t r = 0; r < c->nrows; r++)
			for (unsigned int col = 0; col < cols; col++) {
				const struct changes_row *w = &c->rows[r];

				table_u64(&t, w->pid);
				table_u64(&t, w->id);
				table_u64(&t, w->start);
				table_u64(&t, w->end);
				table_str(&t, w->name);
				table_u64(&t, col);
				table_u64(&t, c->t0 + (uint64_t)col * c->interval);
				for (int k = 0; k < PGFT_NCHANGE; k++)
					table_u64(&t, changes_cell(c, r, col, k));
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
	changes_free(&F->ch);
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
	.begin = frames_begin, .rec = frames_rec_cb, .fault = frames_fault_cb,
	.end = frames_end,
};

int cmd_frames(int argc, char **argv)
{
	return report_main(&frames_report, argc, argv);
}
