// SPDX-License-Identifier: GPL-2.0
/*
 * samplebench - what sampling mode ("1 sample=MS") costs.
 *
 *   samplebench [-m MiB] [-r reps] [-s seconds] [-i ms,...]
 *
 * A process with `MiB` (default 64) of anonymous memory resident, written
 * once, walks it for `seconds` (default 2): a sequential and a random
 * walk, one store per page visited. Untraced, then sampled every `ms`
 * (default 10,100,1000), alternately, `reps` times (default 3): page
 * visits per second, the slowdown (untraced ÷ sampled, medians), and from
 * the trace itself, which a reader process drains as tracepgfault does:
 * scans, the mean scan time, the ns per page scanned (the scan's own
 * figure: its NS over its SCANNED), faults during the walk (on UML, every
 * page after every scan; on x86_64, none), and records lost.
 *
 * Output: "result samplewalk walk=seq|rand mode=off|sample=MS
 * visits_per_s=.. slowdown=.. scans=.. scan_us=.. scan_ns_per_page=..
 * faults=.. lost=..".
 */
#include <getopt.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include "pgf.h"
#include "bench.h"

#define PAGE		4096UL
#define MAXLIST		8

static long pages = 64 * 256;
static int reps = 3;
static double seconds = 2;

static void die(const char *what)
{
	fprintf(stderr, "samplebench: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* Page visits per second of a walk for `seconds`, one store per visit. */
static double walk_rate(char *m, bool random)
{
	unsigned int seed = 1;
	double t0 = now(), end = t0 + seconds;
	unsigned long long n = 0;

	while (now() < end) {
		for (long i = 0; i < pages; i++) {
			long p = random ? rand_r(&seed) % pages : i;

			((volatile char *)m)[p * PAGE]++;
		}
		n += pages;
	}
	return n / (now() - t0);
}

int main(int argc, char **argv)
{
	long ms[MAXLIST] = { 10, 100, 1000 };
	int nms = 3, opt;
	char *m;

	while ((opt = getopt(argc, argv, "m:r:s:i:")) != -1) {
		switch (opt) {
		case 'm':
			pages = strtol(optarg, NULL, 10) * 256;
			break;
		case 'r':
			reps = atoi(optarg);
			break;
		case 's':
			seconds = atof(optarg);
			break;
		case 'i':
			nms = parse_numbers(optarg, MAXLIST, ms);
			break;
		default:
			fprintf(stderr, "usage: samplebench [-m MiB] [-r reps] [-s seconds] [-i ms,...]\n");
			return 2;
		}
	}
	if (pages < 1 || reps < 1 || reps > 32 || seconds <= 0 || nms < 1) {
		fprintf(stderr, "samplebench: bad arguments\n");
		return 2;
	}
	m = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (m == MAP_FAILED)
		die("mmap");
	madvise(m, pages * PAGE, MADV_NOHUGEPAGE);
	/*
	 * The reader is forked: without this, every page would be shared
	 * with it, and each store of the walk after the fork a COW fault.
	 */
	if (madvise(m, pages * PAGE, MADV_DONTFORK))
		die("madvise");
	memset(m, 1, pages * PAGE);
	printf("# samplebench: %ld MiB resident, %d reps, %.1f s walks\n",
	       pages / 256, reps, seconds);
	for (int kind = 0; kind < 2; kind++) {
		const char *name = kind ? "rand" : "seq";
		double off[32], rate[MAXLIST][32];
		struct drain_counts sum[MAXLIST] = { 0 };

		for (int r = 0; r < reps; r++) {
			off[r] = walk_rate(m, kind);
			for (int i = 0; i < nms; i++) {
				char start[32];
				struct drain_counts k;
				struct drain d;
				int n;

				n = snprintf(start, sizeof(start), "1 sample=%ld", ms[i]);
				if (pgf_ctl(getpid(), start, n))
					die("start sampling");
				drain_start(&d, "samplebench", 256 * 1024);
				rate[i][r] = walk_rate(m, kind);
				drain_end(&d, &k);
				sum[i].scans += k.scans;
				sum[i].scanned += k.scanned;
				sum[i].ns += k.ns;
				sum[i].faults += k.faults;
				sum[i].lost_faults += k.lost_faults;
				sum[i].lost_other += k.lost_other;
			}
		}
		printf("result samplewalk walk=%s mode=off visits_per_s=%.0f slowdown=1.00 scans=0 scan_us=0 scan_ns_per_page=0 faults=0 lost=0\n",
		       name, median(off, reps));
		for (int i = 0; i < nms; i++) {
			double o = median(off, reps), t = median(rate[i], reps);
			struct drain_counts *k = &sum[i];

			printf("result samplewalk walk=%s mode=sample=%ld visits_per_s=%.0f slowdown=%.3f scans=%llu scan_us=%.1f scan_ns_per_page=%.2f faults=%llu lost=%llu\n",
			       name, ms[i], t, o / t, k->scans / reps,
			       k->scans ? k->ns / 1e3 / k->scans : 0,
			       k->scanned ? (double)k->ns / k->scanned : 0,
			       k->faults / reps, k->lost_faults + k->lost_other);
		}
	}
	return 0;
}
