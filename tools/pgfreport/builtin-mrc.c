// SPDX-License-Identifier: GPL-2.0
/*
 * pgfreport mrc - the miss-ratio curves of the reference string: LRU
 * (exact, from the reuse distances), FIFO, CLOCK and OPT.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "builtin.h"
#include "cache.h"
#include "kind.h"
#include "pass.h"
#include "../lib/svg.h"

static const char usage[] =
"Usage: pgfreport mrc [OPTION...] [TRACE]\n"
"\n"
"Miss-ratio curves of the reference string (every counted fault; page =\n"
"address / page size): per cache size, the miss ratio and the misses,\n"
"cold ones included, of LRU (exact, from the reuse distances), FIFO,\n"
"CLOCK (second chance: a load leaves the reference bit clear, a hit sets\n"
"it) and OPT (Belady's MIN; it goes through two temporary files in\n"
"$TMPDIR, 12 bytes per reference). It first says what kind of trace it\n"
"reads (\"# mode M\") and what that means: a first-touch trace holds\n"
"nearly only cold misses (flat curves at the footprint); a window=K\n"
"trace lacks the references that hit its K-page FIFO window (sizes below\n"
"K cannot be told); an interval=MS trace has each page's first reference\n"
"in each interval. A trace is a subsequence of the program's references,\n"
"so the LRU and OPT misses it gives are lower bounds of the program's.\n"
"\n"
"Options:\n"
"  --sizes LIST  the cache sizes in pages, e.g. 16,64,256; default: 1, 2,\n"
"                4, ... below the footprint, then the footprint\n"
"  --plot FILE   also draw the curves of every policy into FILE (SVG), on\n"
"                a log2 size axis in pages and bytes (the sizes a window=K\n"
"                trace cannot tell shaded)\n";

static struct cache cache;

/* "1,8,64" into *@v, sorted, without repeats; 0 or -1. */
static int parse_sizes(const char *arg, uint64_t **v, size_t *n)
{
	const char *p = arg;
	uint64_t *s = NULL;
	size_t ns = 0;
	char *end;

	for (;;) {
		unsigned long long x;
		uint64_t *t;

		if (*p < '0' || *p > '9')
			goto bad;
		errno = 0;
		x = strtoull(p, &end, 10);
		if (errno || !x || (*end && *end != ','))
			goto bad;
		t = realloc(s, (ns + 1) * sizeof(*s));
		if (!t)
			goto bad;
		s = t;
		s[ns++] = x;
		if (!*end)
			break;
		p = end + 1;
	}
	/* Sort (insertion: lists are short) and drop repeats. */
	for (size_t i = 1; i < ns; i++)
		for (size_t j = i; j && s[j - 1] > s[j]; j--) {
			uint64_t t = s[j];

			s[j] = s[j - 1];
			s[j - 1] = t;
		}
	*n = 1;
	for (size_t i = 1; i < ns; i++)
		if (s[i] != s[*n - 1])
			s[(*n)++] = s[i];
	*v = s;
	return 0;
bad:
	free(s);
	return -1;
}

static int mrc_fault(struct pass *ps, const struct pgft_rec *r,
		     const struct pgft_region *g, long sp, unsigned long long addr)
{
	(void)g;
	(void)sp;
	if (pgft_counted(r->result)) {
			cache_ref(&cache, addr / ps->page_size, 0);
	}
	return 0;
}

static int report(const struct pass *ps, const char *plot)
{
	struct mrc *fifo = cache.sim[MRC_FIFO];
	unsigned long long refs = cache.lru.refs;
	size_t n = mrc_nr(fifo);
	uint64_t *miss_at = calloc(4 * (n ? n : 1), sizeof(*miss_at));
	uint64_t *size_at = calloc(n ? n : 1, sizeof(*size_at));
	const uint64_t *curve[4];
	struct notes notes;
	int ret = 0;

	if (!miss_at || !size_at) {
		fprintf(stderr, "%s: out of memory\n", pgft_prog);
		exit(1);
	}
	kind_notes(&ps->kind, &notes, AN_MRC);
	notes_print(&notes);
	printf("# %llu references to %llu pages (%llu KiB); misses include the "
	       "%llu cold ones\n", refs, (unsigned long long)reuse_pages(&cache.lru),
	       (unsigned long long)reuse_pages(&cache.lru) * ps->page_size / 1024,
	       (unsigned long long)cache.lru.cold);
	printf("# %9s %14s %7s %7s %7s %7s %12s %12s %12s %12s\n", "size_pages",
	       "size_bytes", "lru", "fifo", "clock", "opt", "lru_misses",
	       "fifo_misses", "clock_misses", "opt_misses");
	for (size_t i = 0; i < n; i++) {
		uint64_t size = mrc_size(fifo, i), miss[4];

		miss[0] = reuse_lru_misses(&cache.lru, size);
		for (int p = MRC_FIFO; p <= MRC_OPT; p++)
			miss[1 + p] = mrc_misses(cache.sim[p], i);
		printf("%12llu %14llu", (unsigned long long)size,
		       (unsigned long long)size * ps->page_size);
		for (int k = 0; k < 4; k++)
			printf(" %7.4f", refs ? (double)miss[k] / refs : 0.0);
		for (int k = 0; k < 4; k++) {
			printf(" %12llu", (unsigned long long)miss[k]);
			miss_at[k * n + i] = miss[k];
		}
		putchar('\n');
		size_at[i] = size;
	}
	for (int k = 0; k < 4; k++)
		curve[k] = miss_at + k * n;
	if (plot) {
		FILE *f = svg_open(plot);
		struct plot_text t = kind_plot_text(&notes, "Miss-ratio curves",
						    ps->fname, ps->page_size);

		if (f) {
			plot_mrc(f, &t, size_at, n, curve, refs, kind_blind(&ps->kind));
			ret = svg_close(f, plot);
		} else {
			ret = 1;
		}
	}
	free(miss_at);
	free(size_at);
	return ret;
}

int cmd_mrc(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "sizes", required_argument, NULL, 'z' },
		{ "plot", required_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 },
	};
	struct pass ps = { .cmd = "mrc", .usage = usage,
			   .takes = TAKES_PID | TAKES_FILTERS };
	const char *plot = NULL;
	uint64_t *sizes = NULL;
	size_t nsizes = 0;
	int opt, status;

	while ((opt = pass_getopt(&ps, argc, argv, "", longopts)) != -1) {
		switch (opt) {
		case PASS_QUIT:
			return ps.status;
		case 'z':
			free(sizes);
			if (parse_sizes(optarg, &sizes, &nsizes))
				return pass_bad_arg(&ps, "--sizes", optarg, "a list of "
						    "positive numbers of pages, such "
						    "as 1,8,64");
			break;
		case 'p':
			plot = optarg;
			break;
		}
	}
	if (pass_open(&ps, argc - optind, argv + optind) ||
	    cache_init(&cache, true, sizes, nsizes, false))
		return 1;
	ps.fault = mrc_fault;
	status = pass_run(&ps);
	if (cache_end(&cache))
		status = 1;
	else if (!ps.pid || ps.pid_seen)
		status |= report(&ps, plot);
	cache_free(&cache);
	free(sizes);
	pass_close(&ps);
	return status;
}
