// SPDX-License-Identifier: GPL-2.0
/*
 * pgfreport hot - the most referenced pages, each with its region and
 * its offset in the region's file.
 */
#include <stdio.h>
#include <stdlib.h>
#include "builtin.h"
#include "kind.h"
#include "pass.h"
#include "report.h"
#include "credit.h"
#include "regtag.h"
#include "../lib/hot.h"
#include "../lib/symbols.h"

static const char usage[] =
"Usage: pgfreport hot [OPTION...] [TRACE]\n"
"\n"
"The pages with the most references (counted faults), each with its\n"
"share of all references, its region and, in a file-backed region, its\n"
"offset in the file (region offset + address - start). A page's\n"
"references count for the region that holds it at the end of its\n"
"address space (an exec or the end of the trace), or if none does, for\n"
"the region that held it at its last reference if that region was\n"
"removed holding it (marked 'removed'), as in pgfreport map and summary;\n"
"a page of two address spaces (an exec between) is two pages. It first\n"
"says what kind of trace it reads, as pgfreport mrc does. With --format,\n"
"the columns are rank, page, refs, share, cumulative, file_offset, region,\n"
"region_start, region_end, removed (true or false), space (the execs before the\n"
"page's address space) and, with --sym, symbol.\n"
"\n"
"Options:\n"
"  -n, --top N   the N most referenced pages (default 20)\n"
"  --sym         add the symbol at the page's start in its file (a\n"
"                function or an object, +0xDELTA into it), from the file's\n"
"                ELF symbols as pgfreport symbols finds them; '-' where\n"
"                there is none (no file, stripped)\n";

/* The report's state (report.h) */
struct hot_state {
	struct regtags tags;
	struct credits credits;
	struct hot hot;
	size_t off;		/* its struct hot_page in the pass's slot */
	long last_sp;		/* the last fault's address space */
	int64_t last_space;	/* and its small number */
	long top_n;		/* --top */
	struct syms *syms;	/* --sym */
};

static void hot_init(void *st)
{
	struct hot_state *h = st;

	h->hot.aux_latest = true;
	h->credits.tags = &h->tags;
	h->last_sp = -1;
	h->top_n = 20;
}

/*
 * A page's entry: its address space's small number as the tag, the tag
 * of the region of its latest reference as the aux; its region is
 * credited at the end (credit.h).
 */
static int hot_fault(struct pass *ps, void *st, const struct pgft_rec *r,
		     const struct pgft_region *g, long sp, unsigned long long addr)
{
	struct hot_state *h = st;
	uint64_t page = pass_page(ps, addr);

	if (!pgft_counted(r->result))
		return 0;
	if (sp != h->last_sp) {
		h->last_space = credit_space(&h->credits, sp);
		if (h->last_space < 0)
			return pass_error(ps, "out of memory");
		h->last_sp = sp;
	}
	if (hot_ref_at(&h->hot, pass_state(ps, h->off), page, (uint32_t)h->last_space,
		       regtag_of(&h->tags, sp, g)))
		return pass_error(ps, "out of memory");
	return 0;
}

static int hot_rec(struct pass *ps, void *st, const struct pgft_rec *r)
{
	struct hot_state *h = st;

	return credit_rec(&h->credits, ps, r) ? pass_oom(ps) : 0;
}

/* What a row shows of its entry's region. */
struct hot_row {
	uint64_t tag;			/* the region credited, 0: none */
	unsigned long long offset;	/* in its file, or ~0ULL */
	const char *file;		/* --files: a file's page, of this file */
	bool phys;			/* --phys: a frame, at physical address addr */
	unsigned long long addr;	/* the page's address, or the frame's */
};

static struct hot_row row_of(const struct pass *ps, struct hot_state *h,
			     const struct hot_entry *e)
{
	/* the address itself: a whole tree's has the process in bits 56 up */
	unsigned long long addr = (e->page * ps->trace.page_size) & ((1ULL << 56) - 1);
	struct hot_row w = { .offset = ~0ULL, .addr = addr };
	unsigned long long index;
	const struct regtag *t;

	if (pass_phys_page(ps, e->page, &index)) {
		w.phys = true;
		w.addr = index * ps->trace.page_size;
		return w;
	}
	if (pass_file_page(ps, e->page, &w.file, &index)) {
		w.offset = index * ps->trace.page_size;
		return w;
	}
	w.tag = credit_region(&h->credits, e->tag, addr, e->aux);
	if (!w.tag || !regtag_file(&h->tags, w.tag))
		return w;
	t = &h->tags.v[w.tag - 1];
	w.offset = t->offset + (addr - t->start);
	return w;
}

/* The symbol at the row's page, into @buf; false if none. */
static bool row_sym(struct hot_state *h, const struct hot_row *w, char *buf,
		    size_t size)
{
	struct sym_hit hit;

	if (w->offset == ~0ULL ||
	    syms_at(h->syms, regtag_name(&h->tags, w->tag), w->offset, &hit) <= 0)
		return false;
	snprintf(buf, size, "%s+0x%llx", hit.name, (unsigned long long)hit.delta);
	return true;
}

/* --format csv|json: the rows, the page and the offset as numbers */
static void report_table(const struct pass *ps, struct hot_state *h,
			 const struct hot_entry *top, long n)
{
	static const char *const cols[] = {
		"rank", "page", "refs", "share", "cumulative", "file_offset",
		"region", "region_start", "region_end", "removed", "space",
		"symbol",
	};
	unsigned long long cum = 0;
	struct table t;

	table_begin(&t, stdout, ps->format, cols, h->syms ? 12 : 11);
	for (long i = 0; i < n; i++) {
		const struct hot_entry *e = &top[i];
		struct hot_row w = row_of(ps, h, e);
		const struct regtag *g = w.tag ? &h->tags.v[w.tag - 1] : NULL;
		char sym[512];

		cum += e->refs;
		table_u64(&t, i + 1);
		if (w.file)
			table_none(&t);		/* a file's page has no address */
		else
			table_u64(&t, w.phys ? w.addr : e->page * ps->trace.page_size);
		table_u64(&t, e->refs);
		table_num(&t, (double)e->refs / h->hot.refs);
		table_num(&t, (double)cum / h->hot.refs);
		if (w.offset != ~0ULL)
			table_u64(&t, w.offset);
		else
			table_none(&t);
		table_str(&t, w.file ? w.file : g ? g->name : NULL);
		if (g) {
			table_u64(&t, g->start);
			table_u64(&t, g->end);
			table_bool(&t, !g->alive);
		} else {
			table_none(&t);
			table_none(&t);
			table_none(&t);
		}
		if (w.file || w.phys)
			table_none(&t);
		else
			table_u64(&t, credit_execs(&h->credits, e->tag));
		if (!h->syms)
			continue;
		if (row_sym(h, &w, sym, sizeof(sym)))
			table_str(&t, sym);
		else
			table_none(&t);
	}
	table_end(&t);
}

static int report(const struct pass *ps, struct hot_state *h)
{
	size_t want = (size_t)h->top_n < h->hot.nr ? (size_t)h->top_n : h->hot.nr;
	struct hot_entry *top = malloc((want ? want : 1) * sizeof(*top));
	unsigned long long cum = 0;
	struct pgid_slot *s;
	struct hot_top t;
	size_t i = 0;
	long n;

	if (!top)
		return pass_error(ps, "out of memory");
	t = (struct hot_top){ .out = top, .n = want };
	while ((s = pass_next_page(ps, &i)))
		hot_top_add(&t, s->key - 1, pgid_data(s, h->off));
	n = hot_top_end(&h->hot, &t);
	if (ps->format != TABLE_TEXT) {
		report_table(ps, h, top, n);
		free(top);
		return 0;
	}
	if (ps->phys)
		printf("# %llu references to %zu frames (--phys: a page is the "
		       "frame a fault mapped, at its physical address); the %ld "
		       "most referenced\n", (unsigned long long)h->hot.refs,
		       h->hot.nr, n);
	else
		printf("# %llu references to %zu pages (a page of two address "
		       "spaces is two); the %ld most referenced, each with the "
		       "region credited with its references (as pgfreport summary "
		       "credits them); file_offset: the page's offset in the "
		       "region's file\n", (unsigned long long)h->hot.refs,
		       h->hot.nr, n);
	printf("# %4s %16s %10s %7s %10s %12s  %s%s\n", "rank", "page", "refs",
	       "share", "cumulative", "file_offset", h->syms ? "symbol  " : "",
	       "region");
	for (long i = 0; i < n; i++) {
		const struct hot_entry *e = &top[i];
		struct hot_row w = row_of(ps, h, e);
		char off[24] = "-", sym[512];

		if (w.offset != ~0ULL)
			snprintf(off, sizeof(off), "0x%llx", w.offset);
		cum += e->refs;
		if (w.file)
			printf("%6ld %16s %10llu %7.4f %10.4f %12s  ", i + 1, "file",
			       (unsigned long long)e->refs, (double)e->refs / h->hot.refs,
			       (double)cum / h->hot.refs, off);
		else
			printf("%6ld %16llx %10llu %7.4f %10.4f %12s  ", i + 1,
			       w.phys ? w.addr : (unsigned long long)e->page * ps->trace.page_size,
			       (unsigned long long)e->refs, (double)e->refs / h->hot.refs,
			       (double)cum / h->hot.refs, off);
		if (h->syms)
			printf("%s  ", !w.file && !w.phys && row_sym(h, &w, sym, sizeof(sym)) ?
			       sym : "-");
		if (w.phys) {
			printf("(physical)\n");
			continue;
		}
		if (w.file) {
			printf("%s\n", *w.file ? w.file : "(a file)");
			continue;
		}
		printf("%s%s\n", regtag_name(&h->tags, w.tag),
		       w.tag && !h->tags.v[w.tag - 1].alive ? " (removed)" : "");
	}
	free(top);
	return 0;
}

static int hot_begin(struct pass *ps, void *st)
{
	struct hot_state *h = st;

	return pass_reserve(ps, sizeof(struct hot_page), &h->off);
}

static const struct option hot_opts[] = {
	{ "top", required_argument, NULL, 'n' },
	{ "sym", no_argument, NULL, 'y' },
	{ NULL, 0, NULL, 0 },
};

static int hot_option(struct pass *ps, void *st, int opt, const char *arg)
{
	struct hot_state *h = st;

	if (opt == 'n')
		return pass_number(ps, "--top", arg, false, &h->top_n);
	if (opt == 'y' && !h->syms && !(h->syms = syms_new()))
		return pass_error(ps, "libelf cannot start");
	return 0;
}

static int hot_end(struct pass *ps, void *st, int status)
{
	struct hot_state *h = st;
	struct notes notes;

	if (!ps->pid || ps->replay.pid_seen) {
		kind_notes(&ps->replay.kind, &notes, AN_HOT);
		if (ps->format == TABLE_TEXT)
			notes_print(&notes);
		if (h->tags.oom || credit_end(&h->credits, ps))
			status = pass_status(status, pass_error(ps, "out of memory"));
		else
			status = pass_status(status, report(ps, h));
	}
	syms_free(h->syms);
	hot_free(&h->hot);
	credits_free(&h->credits);
	regtags_free(&h->tags);
	return status;
}

const struct report hot_report = {
	.name = "hot", .usage = usage, .takes = TAKES_PID | TAKES_FILTERS | TAKES_FORMAT |
		 TAKES_FILES | TAKES_PHYS,
	.size = sizeof(struct hot_state), .init = hot_init,
	.longopts = hot_opts, .shorts = "n:", .option = hot_option,
	.begin = hot_begin, .rec = hot_rec, .fault = hot_fault, .end = hot_end,
};

int cmd_hot(int argc, char **argv)
{
	return report_main(&hot_report, argc, argv);
}
