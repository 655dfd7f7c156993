// SPDX-License-Identifier: GPL-2.0
/*
 * pgfreport tlb - the TLB misses of the reference string, per TLB
 * geometry: fully associative ones exact from the LRU curve, set
 * associative ones simulated.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "builtin.h"
#include "cache.h"
#include "kind.h"
#include "pass.h"
#include "report.h"
#include "../lib/tlb.h"

static const char usage[] =
"Usage: pgfreport tlb [OPTION...] [TRACE]\n"
"\n"
"TLB misses of the reference string, per TLB: N, a fully associative LRU\n"
"TLB of N entries (exact, from the LRU curve), or N:W, N entries in N/W\n"
"sets of W ways, LRU in each set, page p in set p mod N/W; one entry maps\n"
"one page of the trace (4 KiB here). Cache-line effects, huge pages and\n"
"the page walk's own caches are beyond a page trace. It first says what\n"
"kind of trace it reads, as pgfreport mrc does.\n"
"\n"
"Options:\n"
"  --specs SPECS  the TLBs, a list of N and N:W (default\n"
"                " TLB_DEFAULT_SPECS "), such as 32,64:4,1536:12\n";

/* The report's state (report.h) */
struct tlb_state {
	struct cache cache;
	struct tlb_spec *specs;		/* --specs */
	size_t nspecs;
	struct tlb *tlbs;
};

static int tlb_fault(struct pass *ps, void *st, const struct pgft_rec *r,
		     const struct pgft_region *g, long sp, unsigned long long addr)
{
	struct tlb_state *T = st;
	uint64_t page = pass_page(ps, addr);

	(void)g;
	(void)sp;
	if (!pgft_counted(r->result))
		return 0;
	cache_ref(&T->cache, ps, 0);
	for (size_t i = 0; i < T->nspecs; i++)
		if (T->tlbs[i].way)
			tlb_ref(&T->tlbs[i], page);
	return 0;
}

/* --format csv|json */
static void report_table(const struct pass *ps, const struct tlb_state *T)
{
	static const char *const cols[] = {
		"entries", "ways", "sets", "reach_bytes", "misses", "miss_ratio",
	};
	const struct reuse *r = &T->cache.lru;
	struct table t;

	table_begin(&t, stdout, ps->format, cols, 6);
	for (size_t i = 0; i < T->nspecs; i++) {
		const struct tlb_spec *s = &T->specs[i];
		uint64_t miss = s->ways ? T->tlbs[i].misses :
			reuse_lru_misses(r, s->entries);

		table_u64(&t, s->entries);
		if (s->ways)
			table_u64(&t, s->ways);
		else
			table_none(&t);		/* fully associative */
		table_u64(&t, s->ways ? s->entries / s->ways : 1);
		table_u64(&t, s->entries * ps->trace.page_size);
		table_u64(&t, miss);
		table_num(&t, r->refs ? (double)miss / r->refs : 0.0);
	}
	table_end(&t);
}

static void report(const struct pass *ps, const struct tlb_state *T)
{
	const struct reuse *r = &T->cache.lru;

	if (ps->format != TABLE_TEXT) {
		report_table(ps, T);
		return;
	}

	printf("# pages of %lu bytes, one TLB entry each, LRU replacement; ENTRIES:WAYS "
	       "has ENTRIES/WAYS sets, page p in set p mod sets; \"full\": fully "
	       "associative, exact from the LRU curve\n", ps->trace.page_size);
	printf("# a page trace sees pages, not accesses: cache-line effects (and "
	       "huge pages, the page walk's own caches, hits between two faults) "
	       "are beyond it\n");
	printf("# %llu references to %llu pages; misses include the %llu cold ones\n",
	       (unsigned long long)r->refs, (unsigned long long)reuse_pages(r),
	       (unsigned long long)r->cold);
	printf("# %9s %6s %6s %14s %12s %10s\n", "entries", "ways", "sets",
	       "reach_bytes", "misses", "miss_ratio");
	for (size_t i = 0; i < T->nspecs; i++) {
		const struct tlb_spec *s = &T->specs[i];
		uint64_t miss = s->ways ? T->tlbs[i].misses :
			reuse_lru_misses(r, s->entries);
		char ways[16] = "full";

		if (s->ways)
			snprintf(ways, sizeof(ways), "%u", s->ways);
		printf("%11llu %6s %6llu %14llu %12llu %10.4f\n",
		       (unsigned long long)s->entries, ways,
		       (unsigned long long)(s->ways ? s->entries / s->ways : 1),
		       (unsigned long long)s->entries * ps->trace.page_size,
		       (unsigned long long)miss,
		       r->refs ? (double)miss / r->refs : 0.0);
	}
}

static const struct option tlb_opts[] = {
	{ "specs", required_argument, NULL, 'T' },
	{ NULL, 0, NULL, 0 },
};

/* --specs, at once: a bad list is an option's error, before any trace */
static int parse(struct pass *ps, struct tlb_state *T, const char *list)
{
	free(T->specs);
	T->specs = NULL;
	errno = 0;
	if (tlb_parse(list, &T->specs, &T->nspecs) && errno != EINVAL)
		return pass_oom(ps);
	if (!T->specs)
		return pass_bad_arg(ps, "--specs", list, "a list of TLBs, ENTRIES "
				    "(fully associative) or ENTRIES:WAYS with WAYS "
				    "dividing ENTRIES, such as 64:4,1536:12");
	return 0;
}

static int tlb_option(struct pass *ps, void *st, int opt, const char *arg)
{
	return opt == 'T' ? parse(ps, st, arg) : 0;
}

static int tlb_begin(struct pass *ps, void *st)
{
	struct tlb_state *T = st;

	if (!T->specs && parse(ps, T, TLB_DEFAULT_SPECS))
		return PGF_EXIT_FAIL;
	T->tlbs = calloc(T->nspecs, sizeof(*T->tlbs));
	for (size_t i = 0; T->tlbs && i < T->nspecs; i++)
		if (T->specs[i].ways && tlb_init(&T->tlbs[i], T->specs[i].entries,
					      T->specs[i].ways))
			return pass_error(ps, "out of memory");
	if (!T->tlbs)
		return pass_error(ps, "out of memory");
	return cache_init(&T->cache, false, NULL, 0, false, 1) ?:
	       cache_attach(&T->cache, ps);
}

static int tlb_end(struct pass *ps, void *st, int status)
{
	struct tlb_state *T = st;
	struct notes notes;

	if (cache_end(&T->cache)) {
		status = pass_status(status, PGF_EXIT_FAIL);
	} else if (!ps->pid || ps->replay.pid_seen) {
		kind_notes(&ps->replay.kind, &notes, AN_TLB);
		if (ps->format == TABLE_TEXT)
			notes_print(&notes);
		report(ps, T);
	}
	for (size_t i = 0; i < T->nspecs; i++)
		tlb_free(&T->tlbs[i]);
	free(T->tlbs);
	free(T->specs);
	cache_free(&T->cache);
	return status;
}

const struct report tlb_report = {
	.name = "tlb", .usage = usage, .takes = TAKES_PID | TAKES_FILTERS | TAKES_FORMAT,
	.size = sizeof(struct tlb_state),
	.longopts = tlb_opts, .option = tlb_option, .begin = tlb_begin,
	.fault = tlb_fault, .end = tlb_end,
};

int cmd_tlb(int argc, char **argv)
{
	return report_main(&tlb_report, argc, argv);
}
