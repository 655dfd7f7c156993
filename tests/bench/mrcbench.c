// SPDX-License-Identifier: GPL-2.0
/*
 * mrcbench - how fast the cache analyses of tools/lib run: the LRU
 * reuse-distance pass (with the LRU curve from it) and FIFO, CLOCK and
 * OPT each at the default sizes, on N generated references.
 *
 *	mrcbench [N [WHICH]]	(N: default 10,000,000; WHICH: some of
 *				lru,fifo,clock,opt,shards,fixed, default
 *				all)
 *
 * The references are the pages of gentrace's fault addresses (the same
 * generator: random over four regions, about 525,000 distinct pages at
 * 10 M, the worst case for locality), made in memory before the clock
 * starts, so the figures are the analyses' alone (pgfreport's parsing of
 * the text trace comes on top: scripts/bench-report.sh times both).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include "genaddr.h"
#include "lib/mrc.h"
#include "lib/reuse.h"
#include "lib/shards.h"
#include "lib/shards_fixed.h"

static double clock_s(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Wall time, and the CPU time of this process (other load shows). */
struct span {
	double wall, cpu;
};

static struct span now(void)
{
	return (struct span){ clock_s(CLOCK_MONOTONIC),
			      clock_s(CLOCK_PROCESS_CPUTIME_ID) };
}

static void report(const char *what, unsigned long long sizes,
		   unsigned long long pages, struct span t0, uint64_t n)
{
	struct span t = now();

	t.wall -= t0.wall;
	t.cpu -= t0.cpu;
	printf("%-30s %6llu %9llu %9.3f %9.3f %14.0f\n", what, sizes, pages,
	       t.wall, t.cpu, n / t.wall);
}

/* gentrace's addresses, as page numbers. */
static void generate(uint64_t *refs, uint64_t n)
{
	unsigned long long x = GENADDR_SEED;

	for (uint64_t i = 0; i < n; i++)
		refs[i] = genaddr_next(&x) / 4096;
}

static long max_rss_mib(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss / 1024;
}

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000000;
	const char *which = argc > 2 ? argv[2] : "lru,fifo,clock,opt,shards,fixed";
	uint64_t *refs, misses = 0, sum;
	struct reuse r;
	struct span t;

	if (!n) {
		fprintf(stderr, "usage: mrcbench [NUMBER_OF_REFERENCES]\n");
		return 2;
	}
	refs = malloc(n * sizeof(*refs));
	if (!refs) {
		perror("mrcbench");
		return 1;
	}
	generate(refs, n);
	printf("mrcbench: %llu references (gentrace's addresses), this host; "
	       "peak RSS with the references in memory: %ld MiB before\n",
	       (unsigned long long)n, max_rss_mib());
	printf("%-30s %6s %9s %9s %9s %14s\n", "analysis", "sizes", "pages",
	       "seconds", "cpu_s", "references/s");

	if (!strstr(which, "lru"))
		goto policies;
	t = now();
	reuse_init(&r, 0);
	/* In batches of 256, as pgfreport feeds it. */
	for (uint64_t i = 0; i < n; i += 256)
		if (reuse_ref_batch(&r, refs + i, n - i < 256 ? n - i : 256)) {
			perror("mrcbench: reuse");
			return 1;
		}
	/* The LRU curve at the default sizes (as mrc's), from the histogram. */
	sum = 0;
	for (uint64_t s = 1; s < reuse_pages(&r); s *= 2, sum++)
		misses += reuse_lru_misses(&r, s);
	report("lru (reuse distance + curve)", sum, reuse_pages(&r), t, n);
	reuse_free(&r);

policies:
	for (int p = MRC_FIFO; p <= MRC_OPT; p++) {
		struct mrc *m;
		size_t simulated = 0;

		if (!strstr(which, mrc_policy_name(p)))
			continue;
		t = now();
		m = mrc_new(p, NULL, 0);
		if (!m) {
			perror("mrcbench: mrc_new");
			return 1;
		}
		for (uint64_t i = 0; i < n; i += 256)
			if (mrc_ref_batch(m, refs + i, n - i < 256 ? n - i : 256)) {
				perror("mrcbench: mrc_ref_batch");
				return 1;
			}
		if (mrc_end(m)) {
			perror("mrcbench: mrc_end");
			return 1;
		}
		for (size_t i = 0; i < mrc_nr(m); i++)
			simulated += mrc_size(m, i) < mrc_footprint(m);
		report(mrc_policy_name(p), simulated, mrc_footprint(m), t, n);
		mrc_free(m);
	}
	/* SHARDS at 1%: LRU alone, then with FIFO, CLOCK and OPT on the sample */
	for (int sims = 0; strstr(which, "shards") && sims < 2; sims++) {
		struct shards s;

		t = now();
		if (shards_init(&s, 0.01, 0, sims, NULL, 0)) {
			perror("mrcbench: shards_init");
			return 1;
		}
		for (uint64_t i = 0; i < n; i++)
			shards_ref(&s, refs[i]);
		if (shards_end(&s)) {
			perror("mrcbench: shards_end");
			return 1;
		}
		for (size_t i = 0; i < shards_nr(&s); i++)
			misses += shards_ratio(&s, -1, i) > 0;
		report(sims ? "shards 1% (lru, fifo, clock, opt)" : "shards 1% (lru)",
		       shards_nr(&s), reuse_pages(&s.lru), t, n);
		shards_free(&s);
	}
	/* fixed-size SHARDS (LRU), at 8192 and 65536 sampled pages */
	for (uint64_t pages = 8192; strstr(which, "fixed") && pages <= 65536; pages *= 8) {
		struct shards_fixed s;
		char what[40];

		t = now();
		if (shards_fixed_init(&s, pages, 0, NULL, 0)) {
			perror("mrcbench: shards_fixed_init");
			return 1;
		}
		for (uint64_t i = 0; i < n; i++)
			shards_fixed_ref(&s, refs[i]);
		if (shards_fixed_end(&s)) {
			perror("mrcbench: shards_fixed_end");
			return 1;
		}
		for (size_t i = 0; i < shards_fixed_nr(&s); i++)
			misses += shards_fixed_ratio(&s, i) > 0;
		snprintf(what, sizeof(what), "shards-size %llu (lru)",
			 (unsigned long long)pages);
		report(what, shards_fixed_nr(&s), s.pages, t, n);
		shards_fixed_free(&s);
	}
	printf("peak RSS: %ld MiB (%llu MiB of it the references)\n", max_rss_mib(),
	       (unsigned long long)(n * sizeof(*refs) >> 20));
	free(refs);
	return 0;
}
