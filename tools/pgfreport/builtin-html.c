// SPDX-License-Identifier: GPL-2.0
/*
 * pgfreport html - one self-contained interactive page: the process
 * tree, the region table, a zoomable time x address heatmap with details
 * on hover, and the MRC, reuse-distance, working-set and timeline charts,
 * drawn by Apache ECharts (embedded at build time: html-assets.h).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "builtin.h"
#include "cache.h"
#include "html-assets.h"
#include "kind.h"
#include "pass.h"
#include "space.h"
#include "timeline.h"
#include "../lib/changes.h"
#include "../lib/frames.h"
#include "../lib/heatmap.h"
#include "../lib/pcache.h"
#include "../lib/wss.h"

static const char usage[] =
"Usage: pgfreport html -o FILE [OPTION...] [TRACE]\n"
"\n"
"Write one self-contained HTML page into FILE, to open in a browser (no\n"
"network needed): the process tree, the region table (pgfreport summary's\n"
"columns), the time x address heatmap (zoom with the wheel or the\n"
"sliders, pan by dragging; a cell's details on hover: its region, its\n"
"addresses and pages, its faults, its first and last fault), and the\n"
"charts of mrc, reuse, wss and timeline. The charts are Apache ECharts'\n"
"(Apache-2.0; its licence is in the page). The heatmap is binned as the\n"
"trace streams (512 columns, 32 rows per region), so the page's size\n"
"does not grow with the trace's length. With --files (a trace of\n"
"tracepgfault -c): a table of the files, a heatmap band per file (its\n"
"pages from 0 up), and the charts of the faults and the pages the page\n"
"cache served, with the kernel's own hits and misses beside the MRC. A\n"
"trace whose faults carry their frames (read with CAP_SYS_ADMIN) gets a\n"
"Frames view: pgfreport frames' tables per node and per page size, and\n"
"physical memory in 64 MiB blocks over time as a chart; a trace with\n"
"changes the kernel made to its frames (format version 9: moves,\n"
"evictions, splits, collapses) gets them there too, by cause and per\n"
"node, and a chart of them per region over time.\n"
"\n"
"Options:\n"
"  -o, --output FILE  the HTML file to write (needed)\n"
"  --interval MS  the timeline's interval (default 10)\n"
"  --window N    the timeline's working-set window, in intervals\n"
"                (default 10)\n";

/* The command's state: the pass's st */
struct html_state {
	struct cache cache;
	struct wss wss;
	size_t wss_off;		/* its struct wss_page in the pass's slots */
	struct heatmap heat;
	struct timeline tl;
	struct spaces spaces;
	struct ptree own;	/* a single process's, as a tree */
	struct space *shown;	/* the address space the region table shows */
	struct pcache files;	/* --files: the table of the files */
	struct frames frames;	/* the frames of the faults, if they have any */
	struct changes changes;	/* the kernel's changes to them, if any */
};

static int html_rec(struct pass *ps, void *st, const struct pgft_rec *r)
{
	struct html_state *H = st;

	if (!ps->replay.whole && space_rec(&H->spaces, r))
		return PGF_EXIT_FAIL;	/* said */
	if (!ps->trace.rd.tree && !ptree_rec(&H->own, r, ps->trace.page_size))
		return pass_error(ps, "out of memory");
	if (r->type == PGFT_PAGES &&
	    changes_rec(&H->changes, r, pass_region(ps, r->addr),
			ps->trace.rd.tree && r->pid ? r->pid : ps->trace.rd.pid))
		return pass_oom(ps);
	if (ps->files && (r->type == PGFT_FILE || r->type == PGFT_CACHE)) {
		int pid = ps->trace.rd.tree && r->pid ? r->pid : ps->trace.rd.pid;

		if (r->type == PGFT_FILE ? pcache_file(&H->files, pid, r) :
		    pcache_ref(&H->files, pid, r))
			return errno == ENOMEM ? pass_oom(ps) :
			       pass_bad_trace(ps, "%s:%llu: a cache record of file "
					      "%llu, which no file record named "
					      "before it", ps->trace.fname,
					      ps->trace.rd.line, r->id);
	}
	return 0;
}

static int html_fault(struct pass *ps, void *st, const struct pgft_rec *r,
		      const struct pgft_region *g, long sp,
		      unsigned long long addr)
{
	struct html_state *H = st;
	uint64_t page = pass_page(ps, addr), t;
	unsigned long long index;
	const char *path;
	bool file = sp < 0 && pass_file_page(ps, page, &path, &index);

	/*
	 * The region table counts the faults, a fault in a mapped file too
	 * (--files hands it over as the file's page, with no region).
	 */
	if (!ps->replay.whole && r->type == PGFT_FAULT &&
	    space_fault(&H->spaces, r, file ? pass_region(ps, r->addr) : g))
		return PGF_EXIT_FAIL;	/* said */
	if (!pgft_counted(r->result))
		return 0;
	if (frames_fault(&H->frames, r))
		return pass_oom(ps);
	cache_ref(&H->cache, ps, 0);
	tl_fault(&H->tl, r->time, page);
	if (H->tl.nomem)
		return PGF_EXIT_FAIL;	/* said */
	t = r->time > ps->replay.t0 ? r->time - ps->replay.t0 : 0;
	wss_ref_at(&H->wss, pass_state(ps, H->wss_off));
	if ((file && heat_file(&H->heat, HEAT_FILE_KEY(page >> 32 & PASS_FILE_MAX),
			       path, t, index)) ||
	    (g && heat_fault(&H->heat, ((uint64_t)sp << 32) ^ g->id, g->start,
			     g->end, g->name, t, r->addr)))
		return pass_error(ps, "out of memory");
	return 0;
}

/* ---- JSON ---------------------------------------------------------------- */

/* A JSON string, safe inside <script>: no "<" (so no "</script>"). */
static void jstr(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c == '<' || c == '>' || c == '&')
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void jnum(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.10g", v);
	else
		fputs("null", f);
}

static void jarr(FILE *f, const double *v, size_t n)
{
	fputc('[', f);
	for (size_t i = 0; i < n; i++) {
		if (i)
			fputc(',', f);
		jnum(f, v[i]);
	}
	fputc(']', f);
}

static void tree_json(FILE *f, const struct ptree *t, unsigned long long t0)
{
	fputs("\"tree\":[", f);
	for (size_t i = 0; i < t->nr; i++) {
		const struct ptree_proc *p = &t->v[i];
		char status[32];

		ptree_status(p, status, sizeof(status), "running");
		fprintf(f, "%s{\"pid\":%d,\"parent\":%d,\"start_ms\":", i ? "," : "",
			p->pid, p->parent);
		jnum(f, p->start > t0 ? (p->start - t0) / 1e6 : 0);
		fputs(",\"end_ms\":", f);
		jnum(f, p->end > t0 ? (p->end - t0) / 1e6 : 0);
		fprintf(f, ",\"faults\":%llu,\"major\":%llu,\"reref\":%llu,"
			"\"pages\":%llu,\"lost\":%llu,\"children\":%llu,\"status\":",
			p->faults, p->major, p->reref, p->pages, p->lost, p->children);
		jstr(f, status);
		fputs(",\"cmd\":", f);
		jstr(f, p->cmd ? p->cmd : "");
		fputc('}', f);
	}
	fputc(']', f);
}

static void regions_json(FILE *f, const struct pass *ps, struct html_state *H)
{
	struct space *sp = H->shown;
	bool first = true;

	fputs("\"regions\":[", f);
	for (size_t i = 0; sp && i < sp->nr; i++) {
		const struct rstat *r = &sp->r[i];

		if (!r->end || !pgft_filter_region_in(&ps->filt, r->id, r->start,
						      r->end, r->name))
			continue;
		fprintf(f, "%s{\"id\":%llu,\"start\":\"%llx\",\"end\":\"%llx\","
			"\"perms\":\"%s\",\"pages\":%llu,\"touched\":%llu,"
			"\"faults\":%llu,\"major\":%llu,\"reref\":%llu,\"first_ms\":",
			first ? "" : ",", r->id, r->start, r->end, r->perms,
			(r->end - r->start) / ps->trace.page_size, r->pages_touched,
			r->faults, r->major, r->reref);
		if (r->touched)
			jnum(f, (r->first_ns - ps->replay.t0) / 1e6);
		else
			fputs("null", f);
		fprintf(f, ",\"alive\":%s,\"name\":", r->alive ? "true" : "false");
		jstr(f, r->name && *r->name ? r->name : "[anon]");
		fputc('}', f);
		first = false;
	}
	fputc(']', f);
}

static void heat_json(FILE *f, struct html_state *H)
{
	uint64_t cols = H->heat.n ? H->heat.xmax / H->heat.per + 1 : 0;

	fprintf(f, "\"heat\":{\"by_time\":%s,\"per\":%llu,\"cols\":%llu,"
		"\"rows\":%d,\"bands\":[", H->heat.by_time ? "true" : "false",
		(unsigned long long)H->heat.per, (unsigned long long)cols, HEAT_ROWS);
	for (uint32_t i = 0; i < H->heat.keys.nr; i++) {
		const struct heat_band *b = &H->heat.b[i];
		bool first = true;

		fprintf(f, "%s{\"start\":\"%llx\",\"end\":\"%llx\",\"faults\":%llu,"
			"\"file\":%s,\"top\":%llu,\"name\":", i ? "," : "",
			(unsigned long long)b->start, (unsigned long long)b->end,
			(unsigned long long)b->faults, b->file ? "true" : "false",
			(unsigned long long)b->top);
		jstr(f, b->name);
		/* the cells that faulted: col, row, faults, first, last (ms) */
		fputs(",\"cells\":[", f);
		for (size_t c = 0; c < HEAT_COLS; c++)
			for (size_t r = 0; r < HEAT_ROWS; r++) {
				size_t k = c * HEAT_ROWS + r;

				if (!b->cell[k])
					continue;
				fprintf(f, "%s%zu,%zu,%u,", first ? "" : ",", c, r,
					b->cell[k]);
				jnum(f, (b->first[k] - 1) / 1e6);
				fputc(',', f);
				jnum(f, (b->last[k] - 1) / 1e6);
				first = false;
			}
		fputs("]}", f);
	}
	fputs("]}", f);
}

/*
 * The frames of the faults (pgfreport frames' tables): on if any fault has
 * one; per node, per size, and the blocks of 64 MiB over 128 columns.
 */
static void frames_json(FILE *f, struct html_state *H)
{
	struct frames *F = &H->frames;
	unsigned int cols = frames_cols(F);
	const char *sep = "";

	frames_sort_rows(F);
	fprintf(f, "\"frames\":{\"on\":%s,\"faults\":%llu,\"with\":%llu,"
		"\"distinct\":%llu,\"block\":%llu,\"interval_ns\":%llu,"
		"\"cols\":%u,\"nodes\":[", F->with_frame ? "true" : "false",
		(unsigned long long)F->faults, (unsigned long long)F->with_frame,
		(unsigned long long)frames_distinct(F),
		(unsigned long long)F->block_bytes,
		(unsigned long long)F->interval, cols);
	for (size_t i = 0; i < F->nnode; i++) {
		if (!F->node[i].faults)
			continue;
		fprintf(f, "%s{\"node\":%d,\"faults\":%llu,\"frames\":%llu}", sep,
			(int)i - 1, (unsigned long long)F->node[i].faults,
			(unsigned long long)F->node[i].frames);
		sep = ",";
	}
	fputs("],\"sizes\":[", f);
	sep = "";
	for (int o = 0; o < FRAMES_ORDERS; o++)
		for (int l = 0; l < PGFT_NLEVEL; l++) {
			if (!F->size[o][l].faults)
				continue;
			fprintf(f, "%s{\"order\":%d,\"page_size\":%llu,\"level\":\"%s\","
				"\"faults\":%llu,\"frames\":%llu}", sep, o,
				(unsigned long long)F->page_size << o,
				pgft_level_names[l],
				(unsigned long long)F->size[o][l].faults,
				(unsigned long long)F->size[o][l].frames);
			sep = ",";
		}
	fputs("],\"blocks\":[", f);
	for (size_t r = 0; r < F->nrows; r++) {
		fprintf(f, "%s{\"start\":\"%llx\",\"node\":%d,\"cells\":[", r ? "," : "",
			(unsigned long long)(F->rows[r].block * F->block_bytes),
			F->rows[r].node);
		for (unsigned int c = 0; c < cols; c++)
			fprintf(f, "%s%llu", c ? "," : "",
				(unsigned long long)F->rows[r].cells[c]);
		fputs("]}", f);
	}
	fputs("]}", f);
}

/*
 * The kernel's changes to the frames (pgfreport frames' changes, nodes
 * and timeline): on if the trace has any; the timeline's cells are
 * [moved, evicted, split, collapsed, mapped] pages over 128 columns.
 */
static void changes_json(FILE *f, struct html_state *H)
{
	const struct changes *c = &H->changes;
	unsigned int cols = changes_cols(c);
	const char *sep = "";

	fprintf(f, ",\"changes\":{\"on\":%s,\"records\":%llu,\"pages\":%llu,"
		"\"interval_ns\":%llu,\"cols\":%u,\"causes\":[",
		c->records ? "true" : "false", (unsigned long long)c->records,
		(unsigned long long)c->pages, (unsigned long long)c->interval, cols);
	for (size_t i = 0; i < c->ncauses; i++) {
		const struct changes_cause *k = &c->causes[i];

		fprintf(f, "%s{\"change\":\"%s\",\"cause\":", sep,
			pgft_change_names[k->change]);
		jstr(f, k->cause);
		if (k->sized)
			fprintf(f, ",\"page_size\":%llu,\"level\":\"%s\"",
				(unsigned long long)H->frames.page_size << k->order,
				pgft_level_names[k->level]);
		fprintf(f, ",\"records\":%llu,\"pages\":%llu}",
			(unsigned long long)k->records, (unsigned long long)k->pages);
		sep = ",";
	}
	fputs("],\"nodes\":[", f);
	sep = "";
	for (size_t i = 0; i < c->nnode; i++) {
		const struct changes_node *n = &c->node[i];

		if (!n->moved_in && !n->moved_out && !n->evicted && !n->collapsed)
			continue;
		fprintf(f, "%s{\"node\":%d,\"moved_in\":%llu,\"moved_out\":%llu,"
			"\"evicted\":%llu,\"collapsed\":%llu}", sep, (int)i - 1,
			(unsigned long long)n->moved_in,
			(unsigned long long)n->moved_out,
			(unsigned long long)n->evicted,
			(unsigned long long)n->collapsed);
		sep = ",";
	}
	fputs("],\"rows\":[", f);
	for (size_t r = 0; r < c->nrows; r++) {
		const struct changes_row *w = &c->rows[r];

		fprintf(f, "%s{\"start\":\"%llx\",\"end\":\"%llx\",\"name\":",
			r ? "," : "", w->start, w->end);
		jstr(f, *w->name ? w->name : "[anon]");
		fputs(",\"cells\":[", f);
		for (unsigned int col = 0; col < cols; col++) {
			fprintf(f, "%s[", col ? "," : "");
			for (int k = 0; k < PGFT_NCHANGE; k++)
				fprintf(f, "%s%llu", k ? "," : "",
					(unsigned long long)changes_cell(c, r, col, k));
			fputc(']', f);
		}
		fputs("]}", f);
	}
	fputs("]}", f);
}

/*
 * --files: the kernel's own hits, misses and readahead of the file
 * references, and a row per file (pgfreport files' columns).
 */
static void files_json(FILE *f, const struct pass *ps, struct html_state *H)
{
	fprintf(f, "\"files\":{\"on\":%s,\"hit\":%llu,\"miss\":%llu,"
		"\"readahead\":%llu,\"rows\":[", ps->files ? "true" : "false",
		ps->replay.file_hits, ps->replay.file_misses,
		ps->replay.file_readahead);
	for (size_t i = 0; i < H->files.nfiles; i++) {
		const struct pcache_file *p = &H->files.files[i];
		const struct pcache_stats *s = &p->st;

		fprintf(f, "%s{\"pid\":%d,\"id\":%llu,\"dev\":\"%02x:%02x\","
			"\"inode\":%llu,\"used\":%llu,\"distinct\":%llu,"
			"\"read\":%llu,\"write\":%llu,\"hit\":%llu,\"miss\":%llu,"
			"\"hole\":%llu,\"direct\":%llu,\"readahead\":%llu,"
			"\"seq\":%llu,\"random\":%llu,\"hit_ratio\":", i ? "," : "",
			p->pid, p->id, p->major, p->minor, p->inode,
			(unsigned long long)pcache_used(s),
			(unsigned long long)s->distinct,
			(unsigned long long)pcache_used_by(s, 0),
			(unsigned long long)pcache_used_by(s, 1),
			(unsigned long long)pcache_pages(s, PGFT_HIT),
			(unsigned long long)pcache_pages(s, PGFT_MISS),
			(unsigned long long)pcache_pages(s, PGFT_HOLE),
			(unsigned long long)pcache_pages(s, PGFT_DIRECT),
			(unsigned long long)pcache_pages(s, PGFT_READAHEAD),
			(unsigned long long)s->seq, (unsigned long long)s->random);
		if (pcache_pages(s, PGFT_HIT) + pcache_pages(s, PGFT_MISS))
			jnum(f, pcache_hit_ratio(s));
		else
			fputs("null", f);
		fputs(",\"path\":", f);
		jstr(f, p->path ? p->path : "");
		fputc('}', f);
	}
	fputs("]}", f);
}

static void mrc_json(FILE *f, const struct pass *ps, struct html_state *H)
{
	struct mrc *fifo = H->cache.sim[MRC_FIFO];
	size_t n = mrc_nr(fifo);
	uint64_t refs = H->cache.lru.refs;

	fprintf(f, "\"mrc\":{\"refs\":%llu,\"pages\":%llu,\"blind\":%llu,"
		"\"sizes\":[", (unsigned long long)refs,
		(unsigned long long)reuse_pages(&H->cache.lru),
		(unsigned long long)kind_blind(&ps->replay.kind));
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%llu", i ? "," : "",
			(unsigned long long)mrc_size(fifo, i));
	fputc(']', f);
	for (int p = -1; p <= MRC_OPT; p++) {
		static const char *const name[] = { "lru", "fifo", "clock", "opt" };

		fprintf(f, ",\"%s\":[", name[p + 1]);
		for (size_t i = 0; i < n; i++) {
			uint64_t m = p < 0 ? reuse_lru_misses(&H->cache.lru,
							      mrc_size(fifo, i)) :
					     mrc_misses(H->cache.sim[p], i);

			if (i)
				fputc(',', f);
			jnum(f, refs ? (double)m / refs : 0);
		}
		fputc(']', f);
	}
	fputc('}', f);
}

static void reuse_json(FILE *f, struct html_state *H)
{
	const struct reuse *r = &H->cache.lru;
	unsigned int top = r->refs > r->cold ? reuse_bin(r->max_dist) : 0;

	fprintf(f, "\"reuse\":{\"refs\":%llu,\"cold\":%llu,\"bins\":[",
		(unsigned long long)r->refs, (unsigned long long)r->cold);
	for (unsigned int k = 0; r->refs > r->cold && k <= top; k++) {
		char label[48];

		reuse_bin_label(label, sizeof(label), k);
		fprintf(f, "%s[", k ? "," : "");
		jstr(f, label);
		fprintf(f, ",%llu]", (unsigned long long)r->bins[k]);
	}
	fputs("]}", f);
}

static void wss_json(FILE *f, const struct pass *ps, struct html_state *H)
{
	uint64_t n = H->wss.refs;
	bool first = true;
	struct pgid_slot *s;
	size_t i = 0;

	while ((s = pass_next_page(ps, &i)))
		wss_end_page(&H->wss, pgid_data(s, H->wss_off));
	wss_end(&H->wss);
	fprintf(f, "\"wss\":{\"refs\":%llu,\"points\":[", (unsigned long long)n);
	for (uint64_t tau = 1; n; tau = tau < n && tau * 2 > n ? n : tau * 2) {
		fprintf(f, "%s[%llu,", first ? "" : ",", (unsigned long long)tau);
		jnum(f, (double)wss_sum(&H->wss, tau) / n);
		fputc(',', f);
		jnum(f, (double)wss_faults(&H->wss, tau) / n);
		fputc(']', f);
		first = false;
		if (tau >= n)
			break;
	}
	fputs("]}", f);
}

static void timeline_json(FILE *f, struct html_state *H)
{
	static const char *const name[] = { "t_ms", "faults", "pages", "ws",
					    "footprint" };

	fprintf(f, "\"timeline\":{\"interval_ms\":%ld,\"window\":%ld",
		H->tl.interval_ms, H->tl.window);
	for (int k = 0; k < TL_COLS; k++) {
		fprintf(f, ",\"%s\":", name[k]);
		jarr(f, H->tl.row[k], H->tl.nrow);
	}
	fputc('}', f);
}

static void data_json(FILE *f, const struct pass *ps, struct html_state *H)
{
	struct notes notes;

	fputs("{\"file\":", f);
	jstr(f, ps->trace.fname);
	fprintf(f, ",\"page_size\":%lu,\"tree_file\":%s,\"whole\":%s,"
		"\"pid\":%ld,\"lost\":%llu,\"filtered\":%s,\"notes\":[",
		ps->trace.page_size, ps->trace.rd.tree ? "true" : "false",
		ps->replay.whole ? "true" : "false", ps->pid ? ps->pid : ps->trace.rd.pid,
		ps->replay.lost, pgft_filter_any(&ps->filt) ? "true" : "false");
	kind_notes(&ps->replay.kind, &notes, AN_MRC);
	for (size_t i = 0; i < notes.n; i++) {
		if (i)
			fputc(',', f);
		jstr(f, notes.line[i]);
	}
	fputs("],", f);
	tree_json(f, ps->trace.rd.tree ? &ps->replay.pt : &H->own, ps->replay.t0);
	fputc(',', f);
	regions_json(f, ps, H);
	fputc(',', f);
	heat_json(f, H);
	fputc(',', f);
	files_json(f, ps, H);
	fputc(',', f);
	frames_json(f, H);
	changes_json(f, H);
	fputc(',', f);
	mrc_json(f, ps, H);
	fputc(',', f);
	reuse_json(f, H);
	fputc(',', f);
	wss_json(f, ps, H);
	fputc(',', f);
	timeline_json(f, H);
	fputs("}", f);
}

static int write_page(const struct pass *ps, struct html_state *H,
		      const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return pass_error(ps, "%s: %s", path, strerror(errno));
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"generator\" content=\"pgfreport html\">\n<title>", f);
	fputs("pgfreport: page faults</title>\n<style>\n", f);
	fputs(html_report_css, f);
	fputs("</style>\n<script type=\"text/plain\" id=\"pgf-licences\">\n", f);
	fputs(html_licences, f);
	fputs("</script>\n<script>\n", f);
	fputs(html_echarts_js, f);
	fputs("\n</script>\n</head>\n<body>\n", f);
	fputs(html_report_body, f);
	fputs("<script type=\"application/json\" id=\"pgf-data\">", f);
	data_json(f, ps, H);
	fputs("</script>\n<script>\n", f);
	fputs(html_report_js, f);
	fputs("\n</script>\n</body>\n</html>\n", f);
	if (ferror(f) | fclose(f))
		return pass_error(ps, "%s: %s", path, strerror(errno));
	return 0;
}

int cmd_html(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "interval", required_argument, NULL, 'i' },
		{ "window", required_argument, NULL, 'W' },
		{ NULL, 0, NULL, 0 },
	};
	struct pass ps = { .cmd = "html", .usage = usage,
			   .takes = TAKES_PID | TAKES_FILTERS | TAKES_FILES };
	struct html_state state = { .spaces = SPACES_INIT(-1) }, *H = &state;
	long interval_ms = 10, window = 10;
	const char *out = NULL;
	int opt, status;

	while ((opt = pass_getopt(&ps, argc, argv, "o:", longopts)) != -1) {
		switch (opt) {
		case PASS_QUIT:
			return ps.status;
		case 'o':
			out = optarg;
			break;
		case 'i':
			if (pass_number(&ps, "--interval", optarg, false, &interval_ms))
				return PGF_EXIT_USAGE;
			break;
		case 'W':
			if (pass_number(&ps, "--window", optarg, false, &window))
				return PGF_EXIT_USAGE;
			break;
		}
	}
	if (!out)
		return pass_usage(&ps, "which file? -o FILE names the page to write");
	ps.want_ids = true;	/* for the sims */
	status = pass_open(&ps, argc - optind, argv + optind);
	if (!status)
		status = cache_init(&H->cache, true, NULL, 0, false, 0);
	if (!status)
		status = cache_attach(&H->cache, &ps);
	if (!status)
		status = spaces_begin(&H->spaces, &ps);
	if (!status)
		status = pass_reserve(&ps, sizeof(struct wss_page), &H->wss_off);
	if (status)
		return status;
	heat_init(&H->heat, true);
	heat_times(&H->heat);
	pcache_init(&H->files);
	if (frames_init(&H->frames, ps.trace.page_size, 64ULL << 20, 128))
		return pass_bad_trace(&ps, "%s: page size %lu: above 64 MiB, or not "
				      "a power of two", ps.trace.fname, ps.trace.page_size);
	if (changes_init(&H->changes, 128))
		return pass_oom(&ps);
	wss_init(&H->wss);
	tl_init(&H->tl, interval_ms, window);
	ps.rec = html_rec;
	ps.fault = html_fault;
	ps.st = H;
	status = pass_run(&ps);
	tl_end(&H->tl);
	H->shown = ps.replay.whole ? NULL : space_end(&H->spaces);
	if (cache_end(&H->cache) || H->spaces.nomem || H->tl.nomem ||
	    status == PGF_EXIT_FAIL)
		status = pass_status(status, PGF_EXIT_FAIL);
	else if (!ps.pid || ps.replay.pid_seen)
		status = pass_status(status, write_page(&ps, H, out));
	cache_free(&H->cache);
	heat_free(&H->heat);
	wss_free(&H->wss);
	tl_free(&H->tl);
	spaces_free(&H->spaces);
	pcache_free(&H->files);
	frames_free(&H->frames);
	changes_free(&H->changes);
	ptree_free(&H->own);
	pass_close(&ps);
	return status;
}
