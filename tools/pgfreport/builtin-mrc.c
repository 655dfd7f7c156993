// SPDX-License-Identifier: GPL-2.0
/*
 * pgfreport mrc - the miss-ratio curves of the reference string: LRU
 * (exact, from the reuse distances), FIFO, CLOCK and OPT.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include "builtin.h"
#include "cache.h"
#include "kind.h"
#include "pass.h"
#include "report.h"
#include "../lib/shards.h"
#include "../lib/shards_fixed.h"
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
"                trace cannot tell shaded)\n"
"  --shards RATE  approximate curves for traces too large for exact ones,\n"
"                from a sample of RATE of the pages (such as 0.01) chosen\n"
"                by a hash (SHARDS, Waldspurger et al., FAST'15): LRU from\n"
"                the sample's reuse distances, FIFO, CLOCK and OPT\n"
"                simulated on it at size x RATE; it says the rate, what was\n"
"                sampled, and an error estimate from a second sample of\n"
"                another hash seed. Memory and time: RATE of the exact\n"
"                curves'\n"
"  --shards-size PAGES  approximate LRU curves in memory bounded by PAGES\n"
"                sampled pages (such as 65536), whatever the footprint:\n"
"                the sampling rate starts at 1 and falls as pages come,\n"
"                the pages of the largest hash leaving (fixed-size\n"
"                SHARDS); LRU alone: the FIFO, CLOCK and OPT columns show\n"
"                '-', the plot draws LRU alone; it says the final rate,\n"
"                the pages sampled and an error estimate from a second\n"
"                sample of another hash seed. Memory: about 60 bytes a\n"
"                sampled page, twice. Not with --shards\n"
"  --jobs N      the exact curves on up to N CPUs (default: every CPU\n"
"                this process may use; 1: one): CLOCK and OPT's file\n"
"                beside the pass that reads the trace, then OPT in N\n"
"                stages, a range of the sizes each, one passing the\n"
"                next what missed at all of its own; the same results\n"
"                whatever N\n";

/* The report's state (report.h) */
struct mrc_state {
	struct cache cache;		/* the exact curves */
	struct shards sample[2];	/* --shards: the curves, and a second seed's */
	struct shards_fixed fixed[2];	/* --shards-size: the same */
	const char *plot;		/* --plot */
	uint64_t *sizes;		/* --sizes, or NULL */
	size_t nsizes;
	double rate;			/* --shards, or 0 */
	uint64_t max_pages;		/* --shards-size, or 0 */
	unsigned int jobs;		/* --jobs, or 0: the CPUs */
};

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

/* A comment line of the text report (none in CSV or JSON). */
static void __attribute__((format(printf, 2, 3)))
say(const struct pass *ps, const char *fmt, ...)
{
	va_list ap;

	if (ps->format != TABLE_TEXT)
		return;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
}

/*
 * The table (and chart) of @n sizes: @size_at[i] pages, @miss_at[k * n + i]
 * the misses of policy k (LRU, FIFO, CLOCK, OPT) of @refs references, for
 * the first @npol policies (the others not estimated: '-'); @sampled:
 * estimates.
 */
static int table(const struct pass *ps, const struct notes *notes, size_t n,
		 const uint64_t *size_at, const uint64_t *miss_at,
		 unsigned long long refs, const char *plot, int npol, bool sampled)
{
	const uint64_t *curve[4] = { NULL };
	int ret = 0;

	say(ps, "# %9s %14s %7s %7s %7s %7s %12s %12s %12s %12s\n", "size_pages",
	       "size_bytes", "lru", "fifo", "clock", "opt", "lru_misses",
	       "fifo_misses", "clock_misses", "opt_misses");
	if (ps->format != TABLE_TEXT) {
		static const char *const cols[] = {
			"size_pages", "size_bytes", "lru", "fifo", "clock", "opt",
			"lru_misses", "fifo_misses", "clock_misses", "opt_misses",
		};
		struct table t;

		table_begin(&t, stdout, ps->format, cols, 10);
		for (size_t i = 0; i < n; i++) {
			table_u64(&t, size_at[i]);
			table_u64(&t, size_at[i] * ps->trace.page_size);
			for (int k = 0; k < 4; k++)
				if (k < npol)
					table_num(&t, refs ? (double)miss_at[k * n + i] / refs : 0.0);
				else
					table_none(&t);
			for (int k = 0; k < 4; k++)
				if (k < npol)
					table_u64(&t, miss_at[k * n + i]);
				else
					table_none(&t);
		}
		table_end(&t);
	}
	for (size_t i = 0; ps->format == TABLE_TEXT && i < n; i++) {
		printf("%12llu %14llu", (unsigned long long)size_at[i],
		       (unsigned long long)size_at[i] * ps->trace.page_size);
		for (int k = 0; k < 4; k++)
			if (k < npol)
				printf(" %7.4f", refs ? (double)miss_at[k * n + i] / refs : 0.0);
			else
				printf(" %7s", "-");
		for (int k = 0; k < 4; k++)
			if (k < npol)
				printf(" %12llu", (unsigned long long)miss_at[k * n + i]);
			else
				printf(" %12s", "-");
		putchar('\n');
	}
	for (int k = 0; k < npol; k++)
		curve[k] = miss_at + k * n;
	if (plot) {
		FILE *f = svg_open(plot);
		struct plot_text t = kind_plot_text(notes, sampled ?
						    "Miss-ratio curves (SHARDS, sampled)" :
						    "Miss-ratio curves", ps->trace.fname,
						    ps->trace.page_size);

		if (f) {
			plot_mrc(f, &t, size_at, n, curve, refs,
				 kind_blind(&ps->replay.kind), sampled);
			ret = svg_close(f, plot) ? PGF_EXIT_FAIL : 0;
		} else {
			ret = PGF_EXIT_FAIL;
		}
	}
	return ret;
}

static void *zalloc(size_t n)
{
	return calloc(n ? n : 1, 1);
}

/*
 * --files: what the kernel's page cache gave the file references, and the
 * smallest LRU cache that would have missed no more often on the whole
 * reference string.
 */
static void kernel_note(const struct pass *ps, const struct reuse *lru)
{
	unsigned long long hit = ps->replay.file_hits, miss = ps->replay.file_misses;
	uint64_t lo = 1, hi = reuse_pages(lru);

	if (!hit && !miss) {
		say(ps, "# --files: no file references (a trace without \"files\": "
		    "tracepgfault -c)\n");
		return;
	}
	say(ps, "# the kernel's page cache: %llu hits, %llu misses of the %llu "
	    "file references (%.1f%% hit); its readahead read %llu pages ahead\n",
	    hit, miss, hit + miss, 100.0 * hit / (hit + miss),
	    ps->replay.file_readahead);
	if (!hi || reuse_lru_misses(lru, hi) > miss) {
		say(ps, "# the curves below have no readahead: every first "
		    "reference misses, where the kernel's readahead made hits of "
		    "many\n");
		return;
	}
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (reuse_lru_misses(lru, mid) <= miss)
			hi = mid;
		else
			lo = mid + 1;
	}
	say(ps, "# an LRU cache of %llu pages (%llu KiB) misses no more often on "
	    "these references\n", (unsigned long long)lo,
	    (unsigned long long)lo * ps->trace.page_size / 1024);
}

static int report(const struct pass *ps, struct mrc_state *m, const char *plot)
{
	struct mrc *fifo = m->cache.sim[MRC_FIFO];
	unsigned long long refs = m->cache.lru.refs;
	size_t n = mrc_nr(fifo);
	uint64_t *miss_at = zalloc(4 * n * sizeof(*miss_at));
	uint64_t *size_at = zalloc(n * sizeof(*size_at));
	struct notes notes;
	int ret;

	if (!miss_at || !size_at) {
		free(miss_at);
		free(size_at);
		return pass_oom(ps);
	}
	kind_notes(&ps->replay.kind, &notes, AN_MRC);
	if (ps->format == TABLE_TEXT)
		notes_print(&notes);
	say(ps, "# %llu references to %llu pages (%llu KiB); misses include the "
	       "%llu cold ones\n", refs, (unsigned long long)reuse_pages(&m->cache.lru),
	       (unsigned long long)reuse_pages(&m->cache.lru) * ps->trace.page_size / 1024,
	       (unsigned long long)m->cache.lru.cold);
	if (ps->files)
		kernel_note(ps, &m->cache.lru);
	for (size_t i = 0; i < n; i++) {
		size_at[i] = mrc_size(fifo, i);
		miss_at[i] = reuse_lru_misses(&m->cache.lru, size_at[i]);
		for (int p = MRC_FIFO; p <= MRC_OPT; p++)
			miss_at[(1 + p) * n + i] = mrc_misses(m->cache.sim[p], i);
	}
	ret = table(ps, &notes, n, size_at, miss_at, refs, plot, 4, false);
	free(miss_at);
	free(size_at);
	return ret;
}

/* ---- mrc --shards: sampled ----------------------------------------------- */


/*
 * Of @n default sizes (@size_at, the whole's pages) at @rate, the first
 * ones whose sample cache holds fewer than SHARDS_MIN_CACHE pages: every
 * sampled page stands for 1 / rate, so they are biased (the last row
 * stays, whatever it is).
 */
static size_t biased_rows(const uint64_t *size_at, size_t n, double rate)
{
	size_t first = 0;

	while (first + 1 < n && llround(size_at[first] * rate) < SHARDS_MIN_CACHE)
		first++;
	return first;
}

/*
 * The rest of a sampled report (--shards, --shards-size) after its
 * description: the error estimate, from @x2 (the second sample's miss
 * ratios, NAN where it has none at the size) against @x (the first's,
 * policy k's at [k * n + i], for the first @npol policies), then the
 * table of @x.
 */
static int sampled_table(const struct pass *ps, const struct notes *notes,
			 size_t n, const uint64_t *size_at, const double *x,
			 const double *x2, int npol, unsigned long long refs,
			 double rate, const char *plot)
{
	uint64_t *miss_at = zalloc(4 * n * sizeof(*miss_at));
	double diff = 0;
	size_t m = 0;
	int ret;

	if (!miss_at)
		return pass_oom(ps);
	for (size_t i = 0; i < (size_t)npol * n; i++) {
		miss_at[i] = (uint64_t)llround(x[i] * refs);
		if (!isnan(x2[i])) {
			diff += fabs(x[i] - x2[i]);
			m++;
		}
	}
	say(ps, "# error estimate: a second sample (another hash seed) differs by "
	       "%.4f on average (the mean absolute difference of the miss ratios "
	       "over the sizes%s); each one's error is about that / sqrt(2); "
	       "sizes below %.0f pages (%d / rate) are biased: the default sizes "
	       "start above them\n", m ? diff / m : 0.0,
	       npol > 1 ? " and policies" : "", SHARDS_MIN_CACHE / rate,
	       SHARDS_MIN_CACHE);
	ret = table(ps, notes, n, size_at, miss_at, refs, plot, npol, true);
	free(miss_at);
	return ret;
}

static int shards_report(const struct pass *ps, struct mrc_state *m,
			 const char *plot)
{
	const struct shards *s = &m->sample[0];
	unsigned long long refs = s->refs;
	size_t nr = shards_nr(s), n, first = 0;
	uint64_t *size_at = zalloc(nr * sizeof(*size_at));
	double *x = zalloc(4 * nr * sizeof(*x)), *x2 = zalloc(4 * nr * sizeof(*x2));
	double rate = shards_rate(s);
	struct notes notes;
	int ret;

	if (!size_at || !x || !x2) {
		free(size_at);
		free(x);
		free(x2);
		return pass_oom(ps);
	}
	for (size_t i = 0; i < nr; i++)
		size_at[i] = shards_size(s, i);
	if (!s->sizes)
		first = biased_rows(size_at, nr, rate);
	n = nr - first;
	for (size_t r = 0; r < n; r++) {
		size_t i = first + r;

		size_at[r] = size_at[i];
		for (int p = -1; p <= MRC_OPT; p++) {
			x[(1 + p) * n + r] = shards_ratio(s, p, i);
			x2[(1 + p) * n + r] = NAN;
			/* the second sample, at the same sample size if it has it */
			for (size_t j = 0; j < shards_nr(&m->sample[1]); j++)
				if (shards_sample_size(&m->sample[1], j) ==
				    shards_sample_size(s, i)) {
					x2[(1 + p) * n + r] = shards_ratio(&m->sample[1], p, j);
					break;
				}
		}
	}
	kind_notes(&ps->replay.kind, &notes, AN_MRC);
	if (ps->format == TABLE_TEXT)
		notes_print(&notes);
	say(ps, "# SHARDS (spatial sampling by a hash of the page, Waldspurger et "
	       "al., FAST'15) at rate %.4f: %llu of %llu references sampled, %llu "
	       "pages (about %.0f in all); LRU from the sample's reuse distances "
	       "over the references the rate expects (SHARDS-adj), FIFO, CLOCK "
	       "and OPT simulated on the sample at size x %.4f; misses are the "
	       "ratios x %llu\n", rate, (unsigned long long)s->lru.refs, refs,
	       (unsigned long long)reuse_pages(&s->lru),
	       reuse_pages(&s->lru) / rate, rate, refs);
	ret = sampled_table(ps, &notes, n, size_at, x, x2, 4, refs, rate, plot);
	free(size_at);
	free(x);
	free(x2);
	return ret;
}

/* ---- mrc --shards-size: sampled in bounded memory ----------------------- */


static int fixed_report(const struct pass *ps, struct mrc_state *m,
			const char *plot, bool asked)
{
	const struct shards_fixed *s = &m->fixed[0];
	unsigned long long refs = s->refs;
	size_t nr = shards_fixed_nr(s), n, first = 0;
	uint64_t *size_at = zalloc(nr * sizeof(*size_at));
	double *x = zalloc(nr * sizeof(*x)), *x2 = zalloc(nr * sizeof(*x2));
	double rate = shards_fixed_rate(s);
	struct notes notes;
	int ret;

	if (!size_at || !x || !x2) {
		free(size_at);
		free(x);
		free(x2);
		return pass_oom(ps);
	}
	for (size_t i = 0; i < nr; i++)
		size_at[i] = shards_fixed_size(s, i);
	if (!asked)
		first = biased_rows(size_at, nr, rate);
	n = nr - first;
	for (size_t r = 0; r < n; r++) {
		size_at[r] = size_at[first + r];
		x[r] = shards_fixed_ratio(s, first + r);
		/* the second sample's footprint, so its default sizes, differ */
		x2[r] = shards_fixed_ratio_at(&m->fixed[1], size_at[r]);
	}
	kind_notes(&ps->replay.kind, &notes, AN_MRC);
	if (ps->format == TABLE_TEXT)
		notes_print(&notes);
	say(ps, "# SHARDS of a fixed size (at most %llu sampled pages, the rate "
	       "falling from 1 as pages come: SHARDS_max, Waldspurger et al., "
	       "FAST'15) ended at rate %.6f: %llu of %llu references sampled, %llu "
	       "pages kept (about %llu in all); LRU from the sample's reuse "
	       "distances, each reference weighing 1 / the rate it was sampled "
	       "at, over all the references (SHARDS-adj); distances from %d pages "
	       "up in bins of 1/%d octave; FIFO, CLOCK and OPT not estimated "
	       "('-'); misses are the ratios x %llu\n",
	       (unsigned long long)s->max_pages, rate,
	       (unsigned long long)s->sampled, refs, (unsigned long long)s->pages,
	       (unsigned long long)shards_fixed_footprint(s), SHFX_EXACT,
	       SHFX_PER_OCTAVE, refs);
	ret = sampled_table(ps, &notes, n, size_at, x, x2, 1, refs, rate, plot);
	free(size_at);
	free(x);
	free(x2);
	return ret;
}

static const struct option mrc_opts[] = {
	{ "sizes", required_argument, NULL, 'z' },
	{ "plot", required_argument, NULL, 'p' },
	{ "shards", required_argument, NULL, 'S' },
	{ "shards-size", required_argument, NULL, 'Z' },
	{ "jobs", required_argument, NULL, 'j' },
	{ NULL, 0, NULL, 0 },
};


/* A fixed rate, or a fixed number of sampled pages: not both. */
static int both_shards(struct pass *ps)
{
	return pass_usage(ps, "--shards and --shards-size: one or the other (a "
			  "fixed sampling rate, or a fixed number of sampled pages)");
}

static int mrc_option(struct pass *ps, void *st, int opt, const char *arg)
{
	struct mrc_state *m = st;
	unsigned long long v;
	char *end;

	switch (opt) {
	case 'z':
		free(m->sizes);
		if (parse_sizes(arg, &m->sizes, &m->nsizes))
			return pass_bad_arg(ps, "--sizes", arg, "a list of positive "
					    "numbers of pages, such as 1,8,64");
		break;
	case 'p':
		m->plot = arg;
		break;
	case 'S':
		m->rate = strtod(arg, &end);
		if (end == arg || *end || !(m->rate > 0 && m->rate <= 1) ||
		    m->rate * SHARDS_MOD < 1)
			return pass_bad_arg(ps, "--shards", arg, "a sampling rate "
					    "above 0 and up to 1, such as 0.01");
		if (m->max_pages)
			return both_shards(ps);
		break;
	case 'Z':
		errno = 0;
		v = strtoull(arg, &end, 10);
		if (errno || end == arg || *end || *arg < '0' || *arg > '9' || !v ||
		    v > SHFX_MAX_PAGES)
			return pass_bad_arg(ps, "--shards-size", arg, "a number of "
					    "sampled pages from 1 to 2^30, such as 65536");
		m->max_pages = v;
		if (m->rate)
			return both_shards(ps);
		break;
	case 'j':
		errno = 0;
		v = strtoull(arg, &end, 10);
		if (errno || end == arg || *end || *arg < '0' || *arg > '9' || !v ||
		    v > 64)
			return pass_bad_arg(ps, "--jobs", arg, "a number of threads "
					    "from 1 to 64");
		m->jobs = v;
		break;
	}
	return 0;
}

static int mrc_begin(struct pass *ps, void *st)
{
	struct mrc_state *m = st;

	if (m->jobs && (m->rate || m->max_pages))
		return pass_usage(ps, "--jobs is for the exact curves: not with "
				  "--shards or --shards-size");
	for (int k = 0; m->max_pages && k < 2; k++)
		if (shards_fixed_init(&m->fixed[k], m->max_pages, k, m->sizes, m->nsizes))
			return pass_error(ps, "--shards-size: %s", strerror(errno));
	for (int k = 0; m->rate && k < 2; k++)
		if (shards_init(&m->sample[k], m->rate, k, true, m->sizes, m->nsizes))
			return pass_error(ps, "--shards: %s", strerror(errno));
	if (!m->rate && !m->max_pages)
		return cache_init(&m->cache, true, m->sizes, m->nsizes, false, m->jobs) ?:
		       cache_attach(&m->cache, ps);
	return 0;
}

static int mrc_fault(struct pass *ps, void *st, const struct pgft_rec *r,
		     const struct pgft_region *g, long sp, unsigned long long addr)
{
	struct mrc_state *m = st;
	uint64_t page = pass_page(ps, addr);

	(void)g;
	(void)sp;
	if (!pgft_counted(r->result))
		return 0;
	if (m->max_pages)
		for (int k = 0; k < 2; k++)
			shards_fixed_ref(&m->fixed[k], page);
	else if (m->rate)
		for (int k = 0; k < 2; k++)
			shards_ref(&m->sample[k], page);
	else
		cache_ref(&m->cache, ps, 0);
	return 0;
}

static int mrc_finish(struct pass *ps, void *st, int status)
{
	struct mrc_state *m = st;
	bool ok = true;

	if (m->max_pages) {
		for (int k = 0; k < 2; k++)
			ok &= !shards_fixed_end(&m->fixed[k]);
		if (!ok)
			status = pass_error(ps, "--shards-size: %s", strerror(errno));
		else if (!ps->pid || ps->replay.pid_seen)
			status = pass_status(status,
					     fixed_report(ps, m, m->plot, m->sizes != NULL));
		for (int k = 0; k < 2; k++)
			shards_fixed_free(&m->fixed[k]);
	} else if (m->rate) {
		for (int k = 0; k < 2; k++)
			ok &= !shards_end(&m->sample[k]);
		if (!ok)
			status = pass_error(ps, "--shards: %s", strerror(errno));
		else if (!ps->pid || ps->replay.pid_seen)
			status = pass_status(status, shards_report(ps, m, m->plot));
		for (int k = 0; k < 2; k++)
			shards_free(&m->sample[k]);
	} else {
		if (cache_end(&m->cache))
			status = pass_status(status, PGF_EXIT_FAIL);
		else if (!ps->pid || ps->replay.pid_seen)
			status = pass_status(status, report(ps, m, m->plot));
		cache_free(&m->cache);
	}
	free(m->sizes);
	return status;
}

const struct report mrc_report = {
	.name = "mrc", .usage = usage, .takes = TAKES_PID | TAKES_FILTERS | TAKES_FORMAT |
		 TAKES_FILES | TAKES_PHYS,
	.size = sizeof(struct mrc_state),
	.longopts = mrc_opts, .option = mrc_option, .begin = mrc_begin,
	.fault = mrc_fault, .ids = true, .end = mrc_finish,
};

int cmd_mrc(int argc, char **argv)
{
	return report_main(&mrc_report, argc, argv);
}
