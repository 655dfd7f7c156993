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
#include "regtag.h"
#include "../lib/hot.h"
#include "../lib/symbols.h"

static const char usage[] =
"Usage: pgfreport hot [OPTION...] [TRACE]\n"
"\n"
"The pages with the most references (counted faults), each with its\n"
"share of all references, its region and, in a file-backed region, its\n"
"offset in the file (region offset + address - start). A reference\n"
"counts for the region that held its address when it happened. It\n"
"first says what kind of trace it reads, as pgfreport mrc does.\n"
"\n"
"Options:\n"
"  -n, --top N   the N most referenced pages (default 20)\n"
"  --sym         add the symbol at the page's start in its file (a\n"
"                function or an object, +0xDELTA into it), from the file's\n"
"                ELF symbols as pgfreport symbols finds them; '-' where\n"
"                there is none (no file, stripped)\n";

static struct regtags tags;
static struct hot hot;
static size_t hot_off;		/* its struct hot_page in the pass's slot */

static int hot_fault(struct pass *ps, const struct pgft_rec *r,
		     const struct pgft_region *g, long sp, unsigned long long addr)
{
	uint64_t page = pass_page(ps, addr), tag, off = UINT64_MAX;

	if (!pgft_counted(r->result))
		return 0;
	tag = regtag_of(&tags, sp, g);
	/* the offset from the address itself (@addr is a tree's tagged one) */
	if (regtag_file(&tags, tag))
		off = g->offset + (pass_page(ps, r->addr) * ps->page_size - g->start);
	if (hot_ref_at(&hot, pass_state(ps, hot_off), page, (uint32_t)tag, off)) {
		pass_error(ps, "out of memory");
		exit(PGF_EXIT_FAIL);
	}
	return 0;
}

/* --format csv|json: the rows, the page and the offset as numbers */
static void report_table(const struct pass *ps, const struct hot_entry *top,
			 long n, struct syms *syms)
{
	static const char *const cols[] = {
		"rank", "page", "refs", "share", "cumulative", "file_offset",
		"region", "symbol",
	};
	unsigned long long cum = 0;
	struct table t;

	table_begin(&t, stdout, ps->format, cols, syms ? 8 : 7);
	for (long i = 0; i < n; i++) {
		const struct hot_entry *e = &top[i];
		struct sym_hit h;

		cum += e->refs;
		table_u64(&t, i + 1);
		table_u64(&t, e->page * ps->page_size);
		table_u64(&t, e->refs);
		table_num(&t, (double)e->refs / hot.refs);
		table_num(&t, (double)cum / hot.refs);
		if (e->aux != UINT64_MAX)
			table_u64(&t, e->aux);
		else
			table_none(&t);
		table_str(&t, e->tag ? regtag_name(&tags, e->tag) : NULL);
		if (!syms)
			continue;
		if (e->aux != UINT64_MAX &&
		    syms_at(syms, regtag_name(&tags, e->tag), e->aux, &h) > 0) {
			char sym[512];

			snprintf(sym, sizeof(sym), "%s+0x%llx", h.name,
				 (unsigned long long)h.delta);
			table_str(&t, sym);
		} else {
			table_none(&t);
		}
	}
	table_end(&t);
}

static void report(const struct pass *ps, long top_n, struct syms *syms)
{
	size_t want = (size_t)top_n < hot.nr ? (size_t)top_n : hot.nr;
	struct hot_entry *top = malloc((want ? want : 1) * sizeof(*top));
	unsigned long long cum = 0;
	struct pgid_slot *s;
	struct hot_top t;
	size_t i = 0;
	long n;

	if (!top) {
		pass_error(ps, "out of memory");
		exit(PGF_EXIT_FAIL);
	}
	t = (struct hot_top){ .out = top, .n = want };
	while ((s = pass_next_page(ps, &i)))
		hot_top_add(&t, s->key - 1, pgid_data(s, hot_off));
	n = hot_top_end(&hot, &t);
	if (ps->format != TABLE_TEXT) {
		report_table(ps, top, n, syms);
		free(top);
		return;
	}
	printf("# %llu references to %zu pages in regions (a page whose address "
	       "two regions held over the run is two); the %ld most referenced, "
	       "each reference counted for the region that held its address then; "
	       "file_offset: the page's offset in the region's file\n",
	       (unsigned long long)hot.refs, hot.nr, n);
	printf("# %4s %16s %10s %7s %10s %12s  %s%s\n", "rank", "page", "refs",
	       "share", "cumulative", "file_offset", syms ? "symbol  " : "",
	       "region");
	for (long i = 0; i < n; i++) {
		const struct hot_entry *e = &top[i];
		char off[24] = "-";

		if (e->aux != UINT64_MAX)
			snprintf(off, sizeof(off), "0x%llx", (unsigned long long)e->aux);
		cum += e->refs;
		printf("%6ld %16llx %10llu %7.4f %10.4f %12s  ", i + 1,
		       (unsigned long long)e->page * ps->page_size,
		       (unsigned long long)e->refs, (double)e->refs / hot.refs,
		       (double)cum / hot.refs, off);
		if (syms) {
			struct sym_hit h;

			if (e->aux != UINT64_MAX &&
			    syms_at(syms, regtag_name(&tags, e->tag), e->aux, &h) > 0)
				printf("%s+0x%llx  ", h.name, (unsigned long long)h.delta);
			else
				printf("-  ");
		}
		printf("%s\n", regtag_name(&tags, e->tag));
	}
	free(top);
}

static int hot_begin(struct pass *ps)
{
	return pass_reserve(ps, sizeof(struct hot_page), &hot_off);
}

static const struct option hot_opts[] = {
	{ "top", required_argument, NULL, 'n' },
	{ "sym", no_argument, NULL, 'y' },
	{ NULL, 0, NULL, 0 },
};

static long top_n = 20;
static struct syms *syms;

static int hot_option(struct pass *ps, int opt, const char *arg)
{
	if (opt == 'n')
		return pass_number(ps, "--top", arg, false, &top_n);
	if (opt == 'y' && !syms && !(syms = syms_new()))
		return pass_error(ps, "libelf cannot start");
	return 0;
}

static int hot_end(struct pass *ps, int status)
{
	struct notes notes;

	if (!ps->pid || ps->pid_seen) {
		kind_notes(&ps->kind, &notes, AN_HOT);
		if (ps->format == TABLE_TEXT)
			notes_print(&notes);
		report(ps, top_n, syms);
	}
	syms_free(syms);
	hot_free(&hot);
	regtags_free(&tags);
	return status;
}

const struct report hot_report = {
	.name = "hot", .usage = usage, .takes = TAKES_PID | TAKES_FILTERS | TAKES_FORMAT,
	.longopts = hot_opts, .shorts = "n:", .option = hot_option,
	.begin = hot_begin, .fault = hot_fault, .end = hot_end,
};

int cmd_hot(int argc, char **argv)
{
	return report_main(&hot_report, argc, argv);
}
